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

failed=""
start=$(date +%s)
for backend in $backends; do
    for check in tests/check-*.sh; do
        [ -n "${TEST_ONLY:-}" ] && case "$check" in *"$TEST_ONLY"*) ;; *) continue ;; esac
        name="$(basename "$check" .sh) [$backend]"
        echo "# $name"
        t0=$(date +%s)
        if BACKEND=$backend sh "$check"; then
            echo "# $name: passed ($(( $(date +%s) - t0 )) s)"
        else
            echo "# $name: FAILED ($(( $(date +%s) - t0 )) s)"
            failed="$failed
    $name"
        fi
    done
done

echo
if [ -n "$failed" ]; then
    echo "make test: FAILED after $(( $(date +%s) - start )) s:$failed"
    exit 1
fi
echo "make test: all checks passed ($(( $(date +%s) - start )) s, backends: $backends)"
