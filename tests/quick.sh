#!/bin/sh
# make check: the quick tier, for the edit loop (a few minutes on 2 cores).
# Every lab built on the cpu backend, every lab's solution and skeleton
# graded, and the cpu backend's feature tests (its plain build).  It runs
# a part of what `make test` runs; `make test` before committing.
set -u
cd "$(dirname "$0")/.." || exit 2
start=$(date +%s)
failed=""
make -s --no-print-directory BACKEND=cpu all || exit 2
for check in check-labs check-backend; do
    t0=$(date +%s)
    echo "# $check [cpu]"
    if BACKEND=cpu CHECK_BACKEND_QUICK=1 sh "tests/$check.sh"; then
        echo "# $check [cpu]: passed ($(( $(date +%s) - t0 )) s)"
    else
        echo "# $check [cpu]: FAILED ($(( $(date +%s) - t0 )) s)"
        failed="$failed $check"
    fi
done
if [ -n "$failed" ]; then
    echo "make check: FAILED after $(( $(date +%s) - start )) s:$failed"
    exit 1
fi
echo "make check: passed ($(( $(date +%s) - start )) s; make test runs everything)"
