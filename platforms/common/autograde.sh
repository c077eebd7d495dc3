#!/bin/sh
# Grades one submission for a learning platform and always leaves a results
# file the platform can read, whatever the submission does, before the
# platform's own time limit.
#
#   autograde.sh --platform gradescope|prairielearn --kit DIR --lab LAB \
#                --submission DIR --out FILE [--user NAME]
#
# The lab's .cu files are taken from anywhere inside the submission folder,
# the kit is copied to a scratch folder, prepared if it still holds its
# solutions (platforms/common/prepare-kit.sh: the per-job build), and
# ./grader runs there on the student's files.  As root, and when the user
# NAME exists, the grader stays root and runs the student's code as that
# unprivileged user (--runner-user), which can read neither the kit nor the
# results.  results.pl (beside this script) completes the grader's results
# for the platform; when the grader leaves none, it writes them: the items
# graded before the time limit when the grader was stopped there, else score
# 0 with the reason (Gradescope) or gradable false (PrairieLearn).
#
# Time: everything this script does counts against PLATFORM_LIMIT, the
# platform's own limit for the whole job (seconds, default 600: PrairieLearn's
# most and Gradescope's default).  The per-job build gets what is left less a
# minute for grading; the grader gets what is left after the build, less a
# reserve (a sixth, 10 to 30 s) in which the results are written, so that they
# are written before the platform ends the job.
#
# Environment: PLATFORM_LIMIT (above), SUBMISSION_TIMEOUT (seconds for the
# grader, at most what is left), BACKEND (default: what the machine has),
# KILL_LEFTOVERS=yes (after grading, end every process left by the
# unprivileged user: only for a user that exists for grading alone).
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
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$(dirname "$out")"
rm -f "$out"

limit=${PLATFORM_LIMIT:-600}
reserve=$((limit / 6))
[ "$reserve" -gt 30 ] && reserve=30
[ "$reserve" -lt 10 ] && reserve=10
# The grader is sent TERM by then and KILL 3 s later (once here it outlived
# TERM by 10 s); the results are written in what is left.
deadline=$((start + limit - reserve))
left() { echo $((deadline - $(date +%s))); }

# results ARGS...: results.pl writes the platform's results file (it says how).
results() {
    perl "$here/results.pl" --platform "$platform" --out "$out" --seconds "$(( $(date +%s) - start ))" "$@"
}
# write_failure REASON: results saying the submission could not be graded, with the log's end.
write_failure() {
    results --failure "$1" --log "$log" || {
        # results.pl could not run (no perl here?): a minimal file the platform still reads
        if [ "$platform" = gradescope ]; then echo '{ "score": 0, "output": "The autograder could not write its results (not your fault: tell your instructor).", "tests": [] }' > "$out"
        else echo '{ "gradable": false, "format_errors": ["The autograder could not write its results (not your fault: tell your instructor)."], "tests": [] }' > "$out"; fi
    }
}

work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
log="$work/grader.log"
: > "$log"

# ---- the kit, ready to grade, in a scratch folder -----------------------------
cp -Rp "$kit" "$work/kit" ||  # -p: unchanged times, so nothing built is rebuilt
    { write_failure "The autograder's kit could not be copied."; exit 0; }
labdir=$(sh "$work/kit/tools/lab-folder.sh" "$lab" "$work/kit")
if [ -z "$labdir" ]; then
    write_failure "The autograder is set up for $lab, which this kit does not have."; exit 0
fi
if [ "$(id -u)" = 0 ]; then
    # Check and the build tools, where the platform lacks them.  A job without
    # network cannot install anything: bounded, so that a missing mirror costs
    # a minute at most, and the grading goes on with what is there.
    (cd "$work/kit" && timeout -k 5 60 sh tools/setup.sh) >>"$log" 2>&1
fi
if [ -d "$work/kit/solutions" ]; then
    # The per-job build (PrairieLearn's own image): it counts inside the job's
    # limit, and leaves a minute for grading at least.
    build_s=$(( $(left) - 60 ))
    if [ "$build_s" -lt 10 ]; then
        write_failure "The autograder has no time left to build its kit within the platform's limit of $limit s (not your fault: tell your instructor)."
        exit 0
    fi
    timeout -k 5 "$build_s" sh "$here/prepare-kit.sh" "$work/kit" "$labdir" >>"$log" 2>&1
    rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        write_failure "The autograder ran out of time building its kit ($build_s s of the platform's $limit s; not your fault: tell your instructor, whose prebuilt grading image avoids this build)."
        exit 0
    elif [ "$rc" != 0 ]; then
        write_failure "The autograder could not build its reference (not your fault: tell your instructor)."
        exit 0
    fi
fi

# ---- the student's files ---------------------------------------------------------------
mkdir -p "$work/student" "$work/results"
# The whole submission is copied as it is (links stay links): the grader
# finds the lab's files at any depth, refuses a link or a second copy of a
# file by name, and says which, so no copy is chosen here in silence.
cp -R -P "$submission/." "$work/student/" 2>/dev/null
found=""
for name in $(cd "$work/kit/labs/$labdir" && ls *.cu); do
    [ -n "$(find "$work/student" -name "$name" 2>/dev/null | head -n 1)" ] && found="$found $name"
done
if [ -z "$found" ]; then
    echo "Expected: $(cd "$work/kit/labs/$labdir" && ls *.cu | tr '\n' ' ')" > "$log"
    echo "Received: $(cd "$submission" && find . -type f | sed 's|^\./||' | tr '\n' ' ')" >> "$log"
    write_failure "None of lab $labdir's files were in the submission: upload $(cd "$work/kit/labs/$labdir" && ls *.cu | tr '\n' ' ')"
    exit 0
fi
echo "autograde: $labdir, files:$found" >> "$log"

# ---- grade, as the unprivileged user where there is one ---------------------------------
short=${labdir%%-*}
timeout_s=$(left)
[ -n "${SUBMISSION_TIMEOUT:-}" ] && [ "$SUBMISSION_TIMEOUT" -lt "$timeout_s" ] && timeout_s=$SUBMISSION_TIMEOUT
[ "$timeout_s" -lt 1 ] && timeout_s=1
# --require-walls: on a host whose sandbox is below the minimum a grade
# needs (docs/instructors.md, "The walls a grade needs") the grader grades
# nothing, and the results say so: no grade, never a 0.
set -- ./grader "$short" --require-walls --student-dir="$work/student" --format="$platform" --out="$work/results/results.json"
[ -n "${BACKEND:-}" ] && set -- "$@" --backend="$BACKEND"
# the items of the instructor's hidden suite stay hidden until grades are published
hidden_items="$work/kit/grading/$labdir/hidden-items"
[ -s "$hidden_items" ] && set -- "$@" --hidden-items="$(paste -sd, "$hidden_items")"
as_user=""
if [ "$(id -u)" = 0 ] && [ -n "$user" ] && id "$user" >/dev/null 2>&1; then
    as_user=$user
    set -- "$@" --runner-user="$user"
fi
# Its item list first: what to report for items it never reaches if the time runs out.
(cd "$work/kit" && ./grader list) > "$work/list" 2>/dev/null
: > "$work/live"
if [ -n "$as_user" ]; then
    chmod -R go-rwx "$kit" "$work" 2>/dev/null   # neither the kit nor the results are the student's to read
else
    [ "$(id -u)" = 0 ] && echo "autograde: no user '${user:-}' here: the student's code runs as root" >> "$log"
fi
# The grader's report, one line per item as each ends, is kept apart (live):
# it is what is known of a run stopped at the limit.
(cd "$work/kit" && timeout -k 3 "$timeout_s" "$@") > "$work/live" 2>>"$log"
rc=$?
cat "$work/live" >> "$log"
if [ -n "$as_user" ] && [ "${KILL_LEFTOVERS:-no}" = yes ]; then
    runuser -u "$as_user" -- kill -KILL -1 2>/dev/null   # whatever the student's code left running
fi
echo "autograde: grader exit $rc after $(( $(date +%s) - start )) s (limit $timeout_s s)" >> "$log"
cat "$log"   # the platform keeps stdout for the instructor

# ---- results: the grader's own, completed, else rebuilt, else the reason -------------------
result="$work/results/results.json"
common="--lab $labdir --kit $work/kit --hidden $hidden_items --log $work/live"
# The student knows their files by name, not by this scratch folder.
scrub() { sed -e "s|$work/student/||g" -e "s|$work/kit/||g" -e "s|$work/||g" "$1" > "$1.scrubbed" && mv "$1.scrubbed" "$1"; }
refused=$(sed -n 's/^grader: not grading: //p' "$log" | head -n 1)
if [ -n "$refused" ]; then
    results --refused "Not graded: the autograder's host cannot sandbox student code well enough to grade it ($refused). This is not your grade and not your fault: tell your instructor, who must move the autograder to a host that meets the minimum and regrade." \
        --log "$log" || write_failure "Not graded: the autograder's host cannot sandbox student code (tell your instructor)."
    scrub "$out"
elif [ -s "$result" ] && results --results "$result" $common 2>>"$log"; then
    scrub "$out"
elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    results --stopped "$timeout_s" --list "$work/list" $common || write_failure "Grading stopped after $timeout_s s: the submission ran too long."
    scrub "$out"
else
    write_failure "The submission could not be graded (grader exit $rc)."
fi
exit 0
