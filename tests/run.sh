#!/bin/sh
# The kit's own tests: `make test` runs this.  It runs every tests/check-*.sh
# on the cpu backend, and on the gpu backend too where a GPU is present.
# Each check prints "ok"/"not ok" lines and exits nonzero on failure; this
# script prints each check's output, whole, when it ends, then a table of
# their times, and fails if any check failed.
#
# The checks run several at a time (most of a check's time is waiting: on
# graders' time limits, hangs being stopped, compilers), from the longest
# to the shortest, once every lab, the grader and the sanitizer builds are
# built: so that no two checks build the same files in the same build
# folder at once.
#   TEST_JOBS=N        checks at a time on the cpu pass (default 3: CI has
#                      2 cores, and the checks wait more than they compute)
#   TEST_GPU_JOBS=N    on the gpu pass (default 1: performance items time
#                      the GPU, which a second check would share)
#   TEST_ONLY=WORD     only the checks whose name holds WORD
#   TEST_APART="a,b c,d"  checks that must never run at the same time as
#                      each other (one group per word, names without
#                      check-/.sh); see `apart` below for today's
#   TEST_NICE="nvcc"   checks run at a lower priority, so that those whose
#                      grades have time limits get the cores first; such a
#                      check takes none of the TEST_JOBS slots (it runs on
#                      what the others leave: check-nvcc waits minutes for
#                      its CUDA 11.8 install, and in a slot it kept the
#                      short checks queued behind it)
set -u
cd "$(dirname "$0")/.." || exit 2

backends=cpu
[ "$(tools/detect-backend.sh)" = gpu ] && backends="cpu gpu"
[ -n "${TEST_BACKENDS:-}" ] && backends=$TEST_BACKENDS

# Longest first (their times on CI's 2 cores), so that the pool ends
# together; checks not named here follow in name order.
longest_first="nvcc attacks backend mutants platforms dist batch slurm grader sanitizers labs intake report beyond own-network formats"
# Checks that share state of the whole machine and so must not overlap.
# What the checks share, and why it needs no group today:
#   build folders   every lab, the grader, the runners and the sanitizer
#                   builds are made below, before any check starts; the
#                   checks then build only in folders of their own
#                   (submissions/<tag>, backend-tests, mktemp folders), and
#                   the grader takes build/.build-lock for what it makes;
#   users           batch-grade.sh makes runner users named by its pid,
#                   the attacks their own; platforms grade as nobody, whose
#                   processes no check kills (KILL_LEFTOVERS=no);
#   /dev/shm, SysV  graded code has IPC and mount namespaces of its own
#                   where the machine allows them (as root on CI it does);
#                   only the attacks name fixed /dev/shm files;
#   ports           the attacks use 127.0.0.1, and own-network listens on
#                   a port the system picks (and a socket under /run named
#                   by its pid), which its probes must never reach;
#   build/batch-grader.*  check-batch finds none left after its hidden-suite
#                   run; only a hidden suite makes one, and only check-batch
#                   grades with one.
# A machine without namespaces as root removes the runner user's /dev/shm
# and SysV objects after each item: there the attacks (which use them) and
# the grading checks are kept apart.
apart=${TEST_APART-}
if [ -z "${TEST_APART+set}" ] && [ "$(id -u)" = 0 ] && ! unshare -i -m true 2>/dev/null; then
    apart="attacks,mutants,platforms,batch,grader,intake,labs,dist,formats"
fi
nice_checks=" ${TEST_NICE-nvcc} "

logs=$(mktemp -d) && trap 'rm -rf "$logs"' EXIT
# One build cache for every grade of the run (common/grading/build_cache.h):
# a submission graded again (through each package, as each user, on each
# host the checks stand in for) is compiled once; every grade still runs.
# (1777: each user that grades keeps a folder of its own in it)
if [ -z "${CUDALABS_BUILD_CACHE+set}" ]; then
    chmod 755 "$logs" && mkdir -m 1777 "$logs/build-cache" && export CUDALABS_BUILD_CACHE="$logs/build-cache"
fi
start=$(date +%s)
failed=""
table="" # one line per check: wall and CPU seconds, verdict
cpu_total=0 # the checks' CPU seconds, added up (what CI's cores must give)
note_time() { table="$table
$(printf '    %-26s %6s s %8s s  %s' "$1" "$2" "$3" "$4")"
    case $3 in *[!0-9]*|"") ;; *) cpu_total=$((cpu_total + $3)) ;; esac; }

selected() { # the checks of this run, longest first
    for name in $longest_first; do
        [ -f "tests/check-$name.sh" ] && echo "check-$name"
    done
    for check in tests/check-*.sh; do
        name=$(basename "$check" .sh)
        case " $longest_first " in *" ${name#check-} "*) continue ;; esac
        echo "$name"
    done
}
checks=""
for check in $(selected); do
    [ -n "${TEST_ONLY:-}" ] && case "$check" in *"$TEST_ONLY"*) ;; *) continue ;; esac
    checks="$checks $check"
done

# group_of CHECK: the TEST_APART group CHECK is in ("" for none)
group_of() {
    for group in $apart; do
        case ",$group," in *",${1#check-},"*) echo "$group"; return ;; esac
    done
}

# Build once, for every check: every lab (student program, solution,
# reference runner and library), the grader and its runner; on the cpu
# backend also every lab's solution in both sanitizer builds, which the
# sanitizer, mutant and backend checks all build in (their kit objects and
# the backend library are shared).
prebuild() {
    backend=$1
    t0=$(date +%s)
    echo "# building every lab and the grader once [$backend]"
    if ! make -s --no-print-directory -j2 BACKEND="$backend" all > "$logs/prebuild.log" 2>&1; then
        sed 's/^/    /' "$logs/prebuild.log" | tail -n 30
        echo "# the build failed: the checks run anyway, and say what fails"
    fi
    if [ "$backend" = cpu ] && echo "$checks" | grep -q 'sanitizers\|mutants\|backend'; then
        targets=""
        for lab_dir in labs/lab*/; do
            targets="$targets build/cpu-address/$(basename "$lab_dir")/lab-solution"
        done
        make -s --no-print-directory -j2 BACKEND=cpu SANITIZE=address $targets > "$logs/prebuild-asan.log" 2>&1
        make -s --no-print-directory -j2 BACKEND=cpu SANITIZE=thread $(echo "$targets" | sed 's/cpu-address/cpu-thread/g') \
            > "$logs/prebuild-tsan.log" 2>&1
        # (a failure here is the sanitizer check's to report)
    fi
    echo "# built in $(( $(date +%s) - t0 )) s"
}

# launch CHECK BACKEND: starts it in the background; its output goes to
# $logs/CHECK, "EXIT WALL CPU" to $logs/CHECK.rc when it ends.
launch() {
    check=$1 backend=$2
    priority=""
    case "$nice_checks" in *" ${check#check-} "*) priority="nice -n 10" ;; esac
    ( t0=$(date +%s)
      if [ -x /usr/bin/time ]; then
          BACKEND=$backend /usr/bin/time -f '%U %S' -o "$logs/$check.cpu" $priority sh "tests/$check.sh" > "$logs/$check" 2>&1
      else
          BACKEND=$backend $priority sh "tests/$check.sh" > "$logs/$check" 2>&1
      fi
      rc=$?
      cpu=$(tail -n 1 "$logs/$check.cpu" 2>/dev/null | awk 'NF == 2 { printf "%.0f", $1 + $2 }')
      echo "$rc $(( $(date +%s) - t0 )) ${cpu:-?}" > "$logs/$check.rc" ) &
}

# report CHECK BACKEND: prints a finished check's output and verdict.
report() {
    check=$1 backend=$2
    name="$check [$backend]"
    echo "# $name"
    cat "$logs/$check"
    set -- $(cat "$logs/$check.rc")
    if [ "$1" = 0 ]; then
        echo "# $name: passed ($2 s, CPU $3 s)"
        note_time "$name" "$2" "$3" passed
    else
        echo "# $name: FAILED ($2 s, CPU $3 s)"
        note_time "$name" "$2" "$3" FAILED
        failed="$failed
    $name"
    fi
}

# CUDA 11.8 for check-nvcc, where it is missing and may be installed:
# its install (minutes of download and unpacking) starts now, beside the
# build and the first checks, not when check-nvcc comes to it.
if echo "$checks" | grep -q check-nvcc; then
    mkdir -p "$logs/cuda-setup" && export CUDA_SETUP_DIR="$logs/cuda-setup"
    BACKEND=cpu sh tests/check-nvcc.sh --install-only
fi

for backend in $backends; do
    jobs=${TEST_JOBS:-3}
    [ "$backend" = gpu ] && jobs=${TEST_GPU_JOBS:-1}
    prebuild "$backend"
    waiting=$checks running="" busy_groups=" "
    while [ -n "$waiting$running" ]; do
        # the ones that ended: printed, their slot and group freed
        still=""
        for check in $running; do
            if [ -f "$logs/$check.rc" ]; then
                report "$check" "$backend"
                group=$(group_of "$check")
                [ -n "$group" ] && busy_groups=$(echo "$busy_groups" | sed "s| $group | |")
            else
                still="$still $check"
            fi
        done
        running=$still
        # start what fits: the first waiting checks whose group is free
        left=""
        for check in $waiting; do
            group=$(group_of "$check")
            slots=0
            for other in $running; do
                case "$nice_checks" in *" ${other#check-} "*) ;; *) slots=$((slots + 1)) ;; esac
            done
            case "$nice_checks" in *" ${check#check-} "*) slots=-1 ;; esac
            if [ "$slots" -lt "$jobs" ] \
                && { [ -z "$group" ] || case "$busy_groups" in *" $group "*) false ;; *) true ;; esac; }; then
                echo "# $check [$backend]: started"
                rm -f "$logs/$check" "$logs/$check.rc" "$logs/$check.cpu"
                launch "$check" "$backend"
                running="$running $check"
                [ -n "$group" ] && busy_groups="$busy_groups$group "
            else
                left="$left $check"
            fi
        done
        waiting=$left
        [ -n "$running" ] && sleep 1
    done
    wait
done

echo
echo "make test: the time of each check (wall, then CPU: user + system of the check and all it ran)$table"
printf '    %-26s %6s   %8s s\n' "all checks" "" "$cpu_total"
echo
if [ -n "$failed" ]; then
    echo "make test: FAILED after $(( $(date +%s) - start )) s:$failed"
    exit 1
fi
echo "make test: all checks passed ($(( $(date +%s) - start )) s, backends: $backends, $jobs checks at a time)"
