#!/bin/sh
# Grades one submission for a learning platform and always leaves a results
# file the platform can read, whatever the submission does.
#
#   autograde.sh --platform gradescope|prairielearn --kit DIR --lab LAB \
#                --submission DIR --out FILE [--user NAME]
#
# The lab's .cu files are taken from anywhere inside the submission folder,
# the kit is copied to a scratch folder, prepared if it still holds its
# solutions (platforms/common/prepare-kit.sh), and ./grader runs there on the
# student's files.  As root, and when the user NAME exists, the grader stays
# root and runs the student's code as that unprivileged user
# (--runner-user), which can read neither the kit nor the results.  When the grader
# leaves no valid results (it was stopped, or the kit itself did not build),
# this script writes them: score 0 with the reason (Gradescope), or
# gradable false (PrairieLearn).
#
# Environment: SUBMISSION_TIMEOUT (seconds for the grader, default 540),
# BACKEND (default: what the machine has), KILL_LEFTOVERS=yes (after grading,
# end every process left by the unprivileged user: only for a user that
# exists for grading alone).
set -u
platform="" kit="" lab="" submission="" out="" user=""
while [ $# -gt 0 ]; do
    case "$1" in
    --platform) platform=$2; shift 2 ;;
    --kit) kit=$2; shift 2 ;;
    --lab) lab=$2; shift 2 ;;
    --submission) submission=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    *) echo "autograde: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$platform" in gradescope|prairielearn) ;; *) echo "autograde: --platform gradescope|prairielearn" >&2; exit 2 ;; esac
[ -n "$kit" ] && [ -n "$lab" ] && [ -n "$submission" ] && [ -n "$out" ] || { echo "autograde: missing arguments" >&2; exit 2; }
start=$(date +%s)
mkdir -p "$(dirname "$out")"
rm -f "$out"

# json_string TEXT: TEXT as a JSON string (for the results this script writes itself).
json_string() {
    printf '%s' "$1" | LC_ALL=C sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' \
        | LC_ALL=C tr -d '\000-\010\013-\037' | awk 'BEGIN { printf "\"" } { printf "%s%s", (NR > 1 ? "\\n" : ""), $0 } END { printf "\"" }'
}
# write_failure REASON LOG: results saying the submission could not be graded.
write_failure() {
    message="$1"
    details=$(tail -n 60 "$2" 2>/dev/null)
    if [ "$platform" = gradescope ]; then
        printf '{ "score": 0, "execution_time": %d, "output": %s, "output_format": "text", "visibility": "visible",\n  "stdout_visibility": "hidden", "tests": [] }\n' \
            "$(( $(date +%s) - start ))" "$(json_string "$message

$details")" > "$out"
    else
        printf '{ "gradable": false, "score": 0, "message": %s, "output": %s, "tests": [] }\n' \
            "$(json_string "$message")" "$(json_string "$details")" > "$out"
    fi
}

work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
log="$work/grader.log"
: > "$log"

# ---- the kit, ready to grade, in a scratch folder -----------------------------
cp -Rp "$kit" "$work/kit" ||  # -p: unchanged times, so nothing built is rebuilt
    { write_failure "The autograder's kit could not be copied." "$log"; exit 0; }
labdir=$(sh "$work/kit/tools/lab-folder.sh" "$lab" "$work/kit")
if [ -z "$labdir" ]; then
    write_failure "The autograder is set up for $lab, which this kit does not have." "$log"; exit 0
fi
if [ "$(id -u)" = 0 ]; then
    (cd "$work/kit" && sh tools/setup.sh) >>"$log" 2>&1   # Check and the build tools, where the platform lacks them
fi
if [ -d "$work/kit/solutions" ]; then
    sh "$(dirname "$0")/prepare-kit.sh" "$work/kit" "$labdir" >>"$log" 2>&1 \
        || { write_failure "The autograder could not build its reference (not your fault: tell your instructor)." "$log"; exit 0; }
fi

# ---- the student's files ---------------------------------------------------------------
mkdir -p "$work/student" "$work/results"
found=""
for name in $(cd "$work/kit/labs/$labdir" && ls *.cu); do
    file=$(find "$submission" -type f -name "$name" 2>/dev/null | sort | head -n 1)
    [ -n "$file" ] && cp "$file" "$work/student/$name" && found="$found $name"
done
if [ -z "$found" ]; then
    echo "Expected: $(cd "$work/kit/labs/$labdir" && ls *.cu | tr '\n' ' ')" > "$log"
    echo "Received: $(cd "$submission" && find . -type f | sed 's|^\./||' | tr '\n' ' ')" >> "$log"
    write_failure "None of lab $labdir's files were in the submission: upload $(cd "$work/kit/labs/$labdir" && ls *.cu | tr '\n' ' ')" "$log"
    exit 0
fi
echo "autograde: $labdir, files:$found" >> "$log"

# ---- grade, as the unprivileged user where there is one ---------------------------------
short=${labdir%%-*}
timeout_s=${SUBMISSION_TIMEOUT:-540}
set -- ./grader "$short" --student-dir="$work/student" --format="$platform" --out="$work/results/results.json"
[ -n "${BACKEND:-}" ] && set -- "$@" --backend="$BACKEND"
# the items of the instructor's hidden suite stay hidden until grades are published
hidden_items="$work/kit/grading/$labdir.hidden-items"
[ -s "$hidden_items" ] && set -- "$@" --hidden-items="$(paste -sd, "$hidden_items")"
as_user=""
if [ "$(id -u)" = 0 ] && [ -n "$user" ] && id "$user" >/dev/null 2>&1; then
    as_user=$user
    set -- "$@" --runner-user="$user"
fi
if [ -n "$as_user" ]; then
    chmod -R go-rwx "$kit" "$work" 2>/dev/null   # neither the kit nor the results are the student's to read
    (cd "$work/kit" && timeout -k 10 "$timeout_s" "$@") >>"$log" 2>&1
else
    [ "$(id -u)" = 0 ] && echo "autograde: no user '${user:-}' here: the student's code runs as root" >> "$log"
    (cd "$work/kit" && timeout -k 10 "$timeout_s" "$@") >>"$log" 2>&1
fi
rc=$?
if [ -n "$as_user" ] && [ "${KILL_LEFTOVERS:-no}" = yes ]; then
    runuser -u "$as_user" -- kill -KILL -1 2>/dev/null   # whatever the student's code left running
fi
echo "autograde: grader exit $rc after $(( $(date +%s) - start )) s" >> "$log"
cat "$log"   # the platform keeps stdout for the instructor

# ---- results: the grader's own, checked, else ours ---------------------------------------
result="$work/results/results.json"
valid=no
if [ -s "$result" ]; then
    if command -v perl >/dev/null 2>&1 && perl -MJSON::PP -e 1 2>/dev/null; then
        perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); exit(ref $r eq "HASH" && ref $r->{tests} eq "ARRAY" ? 0 : 1)' \
            < "$result" 2>/dev/null && valid=yes
    else
        valid=yes   # no JSON parser here: trust the grader, which wrote it from its own record
    fi
fi
if [ "$valid" = yes ]; then
    # The student knows their files by name, not by this scratch folder.
    sed -e "s|$work/student/||g" -e "s|$work/kit/||g" -e "s|$work/||g" "$result" > "$out"
elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    write_failure "Grading stopped after $timeout_s s: the submission ran too long (a kernel or a loop that never ends?)." "$log"
else
    write_failure "The submission could not be graded (grader exit $rc)." "$log"
fi
exit 0
