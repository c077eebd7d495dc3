#!/bin/sh
# The kit's own tests: `make test` runs this.  It runs every tests/check-*.sh
# in name order, on the cpu backend, and on the gpu backend too where a GPU
# is present.  Each check prints "ok"/"not ok" lines and exits nonzero on
# failure; this script prints a summary and fails if any check failed.
set -u
cd "$(dirname "$0")/.." || exit 2

backends=cpu
[ "$(tools/detect-backend.sh)" = gpu ] && backends="cpu gpu"
[ -n "${TEST_BACKENDS:-}" ] && backends=$TEST_BACKENDS

# Checks that only compile and install (no grade's time limit depends on
# them) start first, in the background, so that their minutes overlap the
# other checks' waits; their output is printed, whole, once they end.
# TEST_BACKGROUND="" runs every check in turn.
background=${TEST_BACKGROUND-check-nvcc}
logs=$(mktemp -d) && trap 'rm -rf "$logs"' EXIT
in_background() { case " $background " in *" $(basename "$1" .sh) "*) return 0 ;; esac; return 1; }

failed=""
table="" # one line per check: its time and its verdict, printed at the end
start=$(date +%s)
note_time() { table="$table
$(printf '    %-26s %6s s  %s' "$1" "$2" "$3")"; }
for backend in $backends; do
    for check in tests/check-*.sh; do
        [ -n "${TEST_ONLY:-}" ] && case "$check" in *"$TEST_ONLY"*) ;; *) continue ;; esac
        in_background "$check" || continue
        name="$(basename "$check" .sh) [$backend]"
        echo "# $name: started in the background"
        ( t0=$(date +%s)
          BACKEND=$backend sh "$check" > "$logs/$backend-$(basename "$check")" 2>&1
          echo "$? $(( $(date +%s) - t0 ))" > "$logs/$backend-$(basename "$check").rc" ) &
    done
    for check in tests/check-*.sh; do
        [ -n "${TEST_ONLY:-}" ] && case "$check" in *"$TEST_ONLY"*) ;; *) continue ;; esac
        in_background "$check" && continue
        name="$(basename "$check" .sh) [$backend]"
        echo "# $name"
        t0=$(date +%s)
        if BACKEND=$backend sh "$check"; then
            echo "# $name: passed ($(( $(date +%s) - t0 )) s)"
            note_time "$name" "$(( $(date +%s) - t0 ))" passed
        else
            echo "# $name: FAILED ($(( $(date +%s) - t0 )) s)"
            note_time "$name" "$(( $(date +%s) - t0 ))" FAILED
            failed="$failed
    $name"
        fi
    done
    wait
    for check in tests/check-*.sh; do
        [ -n "${TEST_ONLY:-}" ] && case "$check" in *"$TEST_ONLY"*) ;; *) continue ;; esac
        in_background "$check" || continue
        name="$(basename "$check" .sh) [$backend]"
        log="$logs/$backend-$(basename "$check")"
        echo "# $name (ran in the background)"
        cat "$log"
        set -- $(cat "$log.rc" 2>/dev/null)
        if [ "${1:-1}" = 0 ]; then
            echo "# $name: passed (${2:-?} s)"
            note_time "$name" "${2:-?}" "passed (in the background)"
        else
            echo "# $name: FAILED (${2:-?} s)"
            note_time "$name" "${2:-?}" "FAILED (in the background)"
            failed="$failed
    $name"
        fi
    done
done

echo
echo "make test: the time of each check$table"
echo
if [ -n "$failed" ]; then
    echo "make test: FAILED after $(( $(date +%s) - start )) s:$failed"
    exit 1
fi
echo "make test: all checks passed ($(( $(date +%s) - start )) s, backends: $backends)"
