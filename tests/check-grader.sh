#!/bin/sh
# The grader itself, on a test lab whose behaviour is known (a miniature kit
# around tests/fixtures/grader): scores and exit codes, a crash, a hang and
# an exit(0) that cost only their items, compile errors, --only, --seed,
# unknown labs, missing tools, and a student copy graded against a prebuilt
# reference.  Needs gcc and Check only (no GPU, no cpu backend).
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
cpu_pass_only
. tests/fixtures/grader/kit.sh
fixture_setup

# grade NAME ARGS...: runs ./grader in the test kit (cpu backend unless ARGS
# say otherwise: the fixture's expectations assume it); output in
# $work/NAME.out, status in $rc
grade() {
    run_name=$1
    shift
    (cd "$kit" && ./grader --backend=cpu "$@") >"$work/$run_name.out" 2>&1
    rc=$?
}
has() { grep -q -- "$2" "$work/$1.out"; }
line() { grep -E "^ *(\[[0-9]+/[0-9]+\] )?[A-Z]+ +[^ ]+ +$2:" "$work/$1.out"; }
status_of() { line "$1" "$2" | awk '{print $1}'; }
show() { sed 's/^/    /' "$work/$1.out" | head -n 30; }
expect() { # expect NAME DESCRIPTION CONDITION...
    name=$1 what=$2
    shift 2
    if "$@"; then ok "$what"; else not_ok "$what (exit $rc)"; show "$name"; fi
}
all_of() { for c in "$@"; do eval "$c" || return 1; done; }

grade solution lab1 --solution
expect solution "the reference gets full marks and exit 0" all_of '[ $rc -eq 0 ]' 'has solution "^lab1-fixture: 8.0/8.0 points"'

grade skeleton lab1
expect skeleton "the skeleton loses its TODO's items, says so, and exits 1" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of skeleton sum_random)" = FAIL ]' '[ "$(status_of skeleton add_small)" = PASS ]' \
    'has skeleton "your code says TODO 1 is not implemented yet"' 'has skeleton "^lab1-fixture: 4.0/8.0 points"'

grade lab9 lab9
expect lab9 "an unknown lab exits 2 and names the labs" all_of '[ $rc -eq 2 ]' \
    'has lab9 "no lab named lab9; the labs are: lab1-fixture"'

for label in 1 fixture lab1-fixture labs/lab1-fixture/; do
    grade names "$label" --solution --only=add_small
    expect names "the lab can be named $label" all_of '[ $rc -eq 0 ]' 'has names "^lab1-fixture: 2.0/2.0"'
done

grade wrong lab1 --student-dir="$students/wrong-add"
expect wrong "a wrong result fails its item with what was expected" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of wrong add_small)" = FAIL ]' 'has wrong "fx_add(-3, -3) returned -5, expected -6"' \
    'has wrong "^lab1-fixture: 6.0/8.0 points"'

grade segv lab1 --student-dir="$students/segv"
expect segv "a segfault costs only its items; the summary is printed" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of segv sum_random)" = ERROR ]' '[ "$(status_of segv scale)" = PASS ]' \
    'has segv "signal 11"' 'has segv "^lab1-fixture: 4.0/8.0 points"'

grade hang lab1 --student-dir="$students/hang"
expect hang "an endless loop times out and costs only its item" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of hang scale)" = ERROR ]' 'has hang "did not finish within 2.0 s"' \
    '[ "$(status_of hang sum_random)" = PASS ]' 'has hang "^lab1-fixture: 6.0/8.0 points"'
grade hang-twice lab1 --student-dir="$students/hang-twice"
expect hang-twice "after a first hang, later items get a quarter of their time" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of hang-twice sum_random)" = ERROR ]' '[ "$(status_of hang-twice scale)" = ERROR ]' \
    'has hang-twice "did not finish within 8.0 s"' 'has hang-twice "shortened because your code already hung"' \
    '[ "$(status_of hang-twice add_small)" = PASS ]'

grade exit0 lab1 --student-dir="$students/exit0"
expect exit0 "exit(0) in student code is caught, not a pass" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of exit0 add_small)" = ERROR ]' 'has exit0 "called exit(0)"' 'has exit0 "^lab1-fixture: 6.0/8.0 points"'

grade quick-exit lab1 --student-dir="$students/quick-exit"
expect quick-exit "_exit(0), which skips exit handlers, is caught too" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of quick-exit scale)" = ERROR ]' 'has quick-exit "_exit"' 'has quick-exit "^lab1-fixture: 6.0/8.0 points"'

grade junk lab1 --student-dir="$students/junk"
expect junk "what student code prints stays out of the report" all_of '[ $rc -eq 0 ]' \
    '! has junk "everything passed"' '! has junk "junk on stderr"' 'has junk "^lab1-fixture: 8.0/8.0 points"'
grade junk-verbose lab1 --student-dir="$students/junk" --verbose
expect junk-verbose "--verbose shows it, and the notes of passing items" all_of '[ $rc -eq 0 ]' \
    'has junk-verbose "everything passed"' 'has junk-verbose "note: 5 seeded inputs"'

grade missing lab1 --student-dir="$students/missing"
expect missing "a missing entry point fails its item and names it" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of missing scale)" = FAIL ]' 'has missing "does not define fx_scale()"'

grade kitfail lab1 --student-dir="$students/kitfail"
expect kitfail "an error the harness reports becomes the item's feedback" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of kitfail scale)" = FAIL ]' 'has kitfail "fixture.cu:[0-9]*: cudaMalloc(&d_a, bytes) failed: out of memory"'

grade racy lab1 --student-dir="$students/racy"
expect racy "the schedules are tried in turn and the failing one is named" all_of '[ $rc -eq 1 ]' \
    '[ "$(status_of racy sum_schedules)" = FAIL ]' 'has racy "under schedule rev"' '[ "$(status_of racy sum_random)" = PASS ]'

grade nocompile lab1 --student-dir="$students/nocompile"
expect nocompile "code that does not compile: every item fails with the compiler's error, exit 2" all_of '[ $rc -eq 2 ]' \
    '[ "$(status_of nocompile add_small)" = FAIL ]' '[ "$(status_of nocompile scale)" = FAIL ]' \
    'has nocompile "your code does not compile"' 'has nocompile "fixture.cu:10:[0-9]*: error"'

grade only lab1 --solution --only=add_small,scale
expect only "--only grades just the items named" all_of '[ $rc -eq 0 ]' \
    '[ "$(grep -c -E "^ +PASS" "$work/only.out")" -eq 2 ]' 'has only "^lab1-fixture: 4.0/4.0 points"'
grade only-none lab1 --solution --only=no_such_item
expect only-none "an --only that matches no item exits 2 and lists the items" all_of '[ $rc -eq 2 ]' \
    'has only-none "matches no item"' 'has only-none "add_small"'
grade only-skipped lab1 --solution --only=speed --backend=cpu
expect only-skipped "a run in which no item runs exits 2" all_of '[ $rc -eq 2 ]' 'has only-skipped "no item ran"'

# --devices=N: a count from 1 up; on the cpu backend the runners' emulated
# devices, kept in the replay command; on a GPU, no more than it has.
grade devices-bad lab1 --solution --devices=0
expect devices-bad "--devices=0 is refused (exit 2) with the range it takes" all_of '[ $rc -eq 2 ]' \
    'has devices-bad "devices wants a number of devices from 1 to 64, not 0"'
grade devices-cpu lab1 --solution --devices=3
expect devices-cpu "--devices=3 on the cpu backend grades, and its replay command keeps it" all_of '[ $rc -eq 0 ]' \
    'has devices-cpu "replay with ./grader lab1 --solution --backend=cpu --devices=3"'
(cd "$kit" && CUDA_VISIBLE_DEVICES=0 ./grader --backend=gpu --devices=2 lab1 --solution) >"$work/devices-gpu.out" 2>&1
rc=$?
expect devices-gpu "--devices=2 on a GPU with one visible is an error that says how many there are" all_of \
    '[ $rc -eq 2 ]' 'has devices-gpu "devices=2, but this machine has 1 GPU (as CUDA_VISIBLE_DEVICES lists them)"'

grade seed-a lab1 --only=sum_random
seed=$(sed -n 's/^seed \([0-9]*\): replay with .*--seed=\([0-9]*\)$/\1/p' "$work/seed-a.out")
grade seed-b lab1 --only=sum_random --seed="$seed"
grade seed-c lab1 --only=sum_random --seed=$((seed + 1))
input() { grep "input seed" "$work/$1.out"; }
expect seed-b "the seed is printed and --seed replays the same inputs" all_of '[ -n "$seed" ]' \
    '[ -n "$(input seed-a)" ]' '[ "$(input seed-a)" = "$(input seed-b)" ]' '[ "$(input seed-a)" != "$(input seed-c)" ]'

# Performance items and items that skip themselves run on the gpu backend
# only: the grader program itself is told so (the test lab needs no GPU).
(cd "$kit" && make -s BACKEND=cpu STUDENT_DIR="$students/slow" STUDENT_TAG=slow \
    build/cpu/submissions/slow/lab1-fixture/student.so) >"$work/slow-build.out" 2>&1
reference=$kit/build/cpu/lab1-fixture/reference.so
(cd "$kit" && build/host/grader lab1 --backend=gpu --student-so="lab1-fixture:build/cpu/submissions/slow/lab1-fixture/student.so" \
    --reference-so="lab1-fixture:$reference") >"$work/perf.out" 2>&1
rc=$?
expect perf "a slower student gets the reference/student fraction of a performance item" all_of '[ $rc -eq 1 ]' \
    'line perf speed | grep -q "1.33/4.0"' 'has perf "your time 30.0 ms, the reference 10.0 ms"' \
    '[ "$(status_of perf gpu_only)" = PASS ]' 'has perf "^lab1-fixture: 10.33/13.0 points"'
(cd "$kit" && build/host/grader lab1 --backend=gpu --student-so="lab1-fixture:$reference" \
    --reference-so="lab1-fixture:$reference") >"$work/perf-full.out" 2>&1
rc=$?
expect perf-full "as fast as the reference: full points, exit 0" all_of '[ $rc -eq 0 ]' \
    'line perf-full speed | grep -q "4.0/4.0"' 'has perf-full "^lab1-fixture: 13.0/13.0 points"'

# Time is charged to whoever used it (each side's calls have deadlines of
# their own, and whichever side used more of the item pays for a call that
# runs out of it).  Variants written here: fx_add that naps, on its first
# call (a student) or on every call (a slow reference).  add_small has 8 s
# on the cpu backend, its calls answer by 7.2 s: the student's by 6.4 s,
# leaving the reference the rest.  A student that naps 6.2 s leaves the
# reference's 1 s call too little: the student's item, named.
variant() { # variant NAME C-BODY-OF-fx_add
    mkdir -p "$students/$1" && awk -v body="$2" '
        /^int fx_add/ { print "#include <time.h>"; print "static void nap(double s) { struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)}; nanosleep(&t, 0); }"; print; getline; print; print body; getline; next }
        { print }' "$FIXTURE/solutions/lab1-fixture/fixture.cu" >"$students/$1/fixture.cu"
    (cd "$kit" && make -s BACKEND=cpu STUDENT_DIR="$students/$1" STUDENT_TAG="$1" \
        "build/cpu/submissions/$1/lab1-fixture/student.so") >"$work/$1-build.out" 2>&1
}
variant nap-first '    static int calls; if (calls++ == 0) nap(6.2); return a + b;'
variant nap-late '    static int calls; if (calls++ == 0) nap(7.1); return a + b;'
variant nap-always '    nap(1.0); return a + b;'
so() { echo "lab1-fixture:build/cpu/submissions/$1/lab1-fixture/student.so"; }
fast="lab1-fixture:build/cpu/lab1-fixture/reference.so"
sides() { # sides NAME STUDENT REFERENCE: lab 1's add_small, one .so against the other
    (cd "$kit" && build/host/grader lab1 --backend=cpu --only=add_small --student-so="$2" --reference-so="$3") \
        >"$work/$1.out" 2>&1
    rc=$?
}
sides slow-student "$(so nap-first)" "$(so nap-always)"
expect slow-student "a slow student call that leaves the reference too little costs the student's item, named" all_of \
    '[ $rc -eq 1 ]' '[ "$(status_of slow-student add_small)" = ERROR ]' '! has slow-student "reference solution failed"' \
    'has slow-student "the item ran out of time: your code.s calls took 6.[0-9] s of the item.s 8.0 s (the longest, fx_add(), 6.[0-9] s)"'
sides late-student "$(so nap-late)" "$fast"
expect late-student "a student call that runs until just before the item's end is the student's timeout, named" all_of \
    '[ $rc -eq 1 ]' '[ "$(status_of late-student add_small)" = ERROR ]' '! has late-student "reference solution failed"' \
    'has late-student "your code.s calls took 6.[0-9] s of the item.s 8.0 s (this one 6.[0-9] s)"'
sides hung-reference "$fast" "$(so nap-always)"
expect hung-reference "a reference that uses the item's time itself is the kit's fault (exit 2)" all_of '[ $rc -eq 2 ]' \
    'has hung-reference "the reference solution failed"'

# The speed evidence (evidence.c), as pure functions: no GPU needed.  The
# rest of evidence.c is never called here: the linker drops it, and what it needs.
cat >"$work/timing.c" <<'CEOF'
#include <math.h>
#include <stdio.h>
#include "grade.h"
static int failed;
static void expect_time(int impossible, double recorded, double outside, double bytes, double peak, const char *what)
{
    char why[512];
    const char *r = grade_timing_impossible(recorded, outside, bytes, peak, why, sizeof why);
    if (!r != !impossible) {
        printf("%s: %s\n", what, r ? r : "taken as possible");
        failed = 1;
    }
}
int main(void)
{
    double mb = 1 << 20, peak = 3352; /* an H100's GB/s */
    expect_time(0, 1.0, 2.0, 0, 0, "a time inside its call");
    expect_time(1, 5.0, 2.0, 0, 0, "a time longer than its call");
    expect_time(1, -1.0, 2.0, 0, 0, "a negative time");
    expect_time(1, NAN, 2.0, 0, 0, "not a number");
    expect_time(0, 0.045, 1.0, 128 * mb, peak, "128 MB read near peak");
    expect_time(1, 0.001, 1.0, 128 * mb, peak, "128 MB read 40x faster than peak (lab 5's size)");
    expect_time(0, 0.012, 1.0, 128 * mb, peak, "128 MB at 3.3x peak: a cache may hold part of it");
    expect_time(1, 0.10, 1.0, 512 * mb, peak, "512 MB read faster than peak");
    expect_time(0, 0.17, 1.0, 512 * mb, peak, "512 MB read at peak");
    expect_time(0, 0.0, 0.5, 4096, peak, "4 KB in no measurable time");
    if (fabs(grade_speed_floor_ms(20, 15, 8) - 8.5) > 1e-9 || grade_speed_floor_ms(1, 0.5, 10) != 0
        || grade_speed_floor_ms(30, 20, 19) != 27.5) {
        printf("grade_speed_floor_ms: %g %g %g\n", grade_speed_floor_ms(20, 15, 8), grade_speed_floor_ms(1, 0.5, 10),
               grade_speed_floor_ms(30, 20, 19));
        failed = 1;
    }
    return failed;
}
CEOF
if gcc -std=c11 -D_GNU_SOURCE -ffunction-sections -Icommon/grading -Icommon/harness -o "$work/timing" "$work/timing.c" \
    common/grading/evidence.c -lm -Wl,--gc-sections >"$work/timing.out" 2>&1 && "$work/timing" >>"$work/timing.out" 2>&1; then
    ok "speed evidence: a recorded time longer than its call, or faster than the bandwidth at any size, is impossible"
else
    not_ok "speed evidence: a recorded time longer than its call, or faster than the bandwidth at any size, is impossible"
    sed 's/^/    /' "$work/timing.out" | head -n 20
fi

# The build cache's keys (sha256.c): the standard's test vectors (FIPS
# 180-4's "abc", the empty message, the 448-bit message, and a million
# "a"s fed in pieces that cross its 64-byte blocks).
cat >"$work/sha.c" <<'CEOF'
#include <stdio.h>
#include <string.h>
#include "sha256.h"
static int failed;
static void expect_digest(const char *text, size_t repeat, size_t piece, const char *want)
{
    sha256 h;
    char hex[65];
    sha256_begin(&h);
    for (size_t i = 0; i < repeat; i++)
        for (size_t at = 0; at < strlen(text); at += piece)
            sha256_add(&h, text + at, strlen(text) - at < piece ? strlen(text) - at : piece);
    sha256_end(&h, hex);
    if (strcmp(hex, want) != 0) {
        printf("\"%.20s\" x %zu: %s, not %s\n", text, repeat, hex, want);
        failed = 1;
    }
}
int main(void)
{
    expect_digest("abc", 1, 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect_digest("", 1, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect_digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, 7,
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    expect_digest("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 10000, 37,
                  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    return failed;
}
CEOF
if gcc -std=c11 -Icommon/grading -o "$work/sha" "$work/sha.c" common/grading/sha256.c >"$work/sha.out" 2>&1 \
    && "$work/sha" >>"$work/sha.out" 2>&1; then
    ok "the build cache's SHA-256 gives the standard's digests"
else
    not_ok "the build cache's SHA-256 gives the standard's digests"
    sed 's/^/    /' "$work/sha.out" | head -n 10
fi

grade color lab1 --solution --color=always
expect color "--color=always gives colours and a progress count" all_of 'has color "\[1/6\]"' \
    'grep -q "$(printf "\033")" "$work/color.out"'
expect solution "plain text when the output is not a terminal" all_of '! grep -q "$(printf "\033")" "$work/solution.out"'

grade help --help
expect help "--help shows the options and exits 0" all_of '[ $rc -eq 0 ]' 'has help "--student-dir"' 'has help "--format"'
grade list list
expect list "list shows the labs and their items" all_of '[ $rc -eq 0 ]' 'has list "lab1-fixture"' 'has list "sum_schedules"'
grade notdir lab1 --student-dir="$work/no-such-folder"
expect notdir "a --student-dir that does not exist exits 2" all_of '[ $rc -eq 2 ]' 'has notdir "is not a folder"'

NVCC=no-such-nvcc grade no-nvcc lab1 --backend=gpu
expect no-nvcc "no nvcc for the gpu backend: exit 2 naming what to install" all_of '[ $rc -eq 2 ]' 'has no-nvcc "needs nvcc"'

# A student copy: no solutions/, the reference prebuilt.  (This kit's
# grader and runner in each test kit below: fixture_seed_host.)
copy=$work/copy
fixture_kit "$copy" && fixture_seed_host "$copy" "$work/kit" && rm "$copy/solutions" && mkdir -p "$copy/prebuilt/cpu/lab1-fixture" \
    && cp "$work/kit/build/cpu/lab1-fixture/reference-runner" "$copy/prebuilt/cpu/lab1-fixture/reference-runner"
(cd "$copy" && ./grader lab1 --backend=cpu) >"$work/copy.out" 2>&1
rc=$?
expect copy "a student copy grades against the prebuilt reference" all_of '[ $rc -eq 1 ]' \
    'has copy "^lab1-fixture: 4.0/8.0 points"'
# (its reference is a program that exports nothing: no shared object to grade as a student's)
(cd "$copy" && ./grader lab1 --backend=cpu --solution) >"$work/copy-solution.out" 2>&1
rc=$?
expect copy-solution "--solution in a student copy exits 2: it has no reference solution to grade" all_of '[ $rc -eq 2 ]' \
    'has copy-solution "this student copy has none"'
rm "$copy/prebuilt/cpu/lab1-fixture/reference-runner"
(cd "$copy" && ./grader lab1 --backend=cpu) >"$work/copy-none.out" 2>&1
rc=$?
expect copy-none "a student copy without its reference exits 2 and says why" all_of '[ $rc -eq 2 ]' \
    'has copy-none "no reference for lab1-fixture"'

# The kit's own failures are told apart from the student's.
broken=$work/broken
fixture_kit "$broken" && fixture_seed_host "$broken" "$work/kit" && rm "$broken/solutions" && mkdir -p "$broken/solutions/lab1-fixture" \
    && echo "this is not C" >"$broken/solutions/lab1-fixture/fixture.cu"
(cd "$broken" && ./grader lab1 --backend=cpu) >"$work/broken.out" 2>&1
rc=$?
expect broken "a reference that does not build: exit 2, blamed on the kit" all_of '[ $rc -eq 2 ]' \
    'has broken "the reference solution of lab1-fixture does not build"'
# A reference that builds but crashes: the items it breaks count toward
# nothing and the lab is "could not grade" (exit 2), never points lost.
crashing=$work/crashing
fixture_kit "$crashing" && fixture_seed_host "$crashing" "$work/kit" && rm "$crashing/solutions" && mkdir -p "$crashing/solutions/lab1-fixture" \
    && cp "$students/segv/fixture.cu" "$crashing/solutions/lab1-fixture/fixture.cu"
(cd "$crashing" && ./grader lab1 --backend=cpu --student-dir="$FIXTURE/solutions/lab1-fixture") >"$work/crashing.out" 2>&1
rc=$?
expect crashing "a reference that crashes: exit 2, the items it breaks count nothing, blamed on the kit" all_of \
    '[ $rc -eq 2 ]' 'has crashing "the reference solution failed (a fault of the kit"' \
    'has crashing "not graded: the reference solution could not run in"' '! has crashing "/8.0 points"'
rm "$broken/grading" && mkdir -p "$broken/grading/lab1-fixture" && echo "this is not C" >"$broken/grading/lab1-fixture/suite.c"
(cd "$broken" && ./grader lab1 --backend=cpu) >"$work/broken-grader.out" 2>&1
rc=$?
expect broken-grader "a grader that does not build: exit 2 with the compiler's error" all_of '[ $rc -eq 2 ]' \
    'has broken-grader "the grader itself does not build"' 'has broken-grader "error"'
finish
