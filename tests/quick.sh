#!/bin/sh
# make check: the quick tier, for the edit loop (under 3 minutes on 2 cores).
# Every lab built on the cpu backend, every lab's solution and skeleton
# graded, and the cpu backend's feature tests (its plain build).  It runs
# a part of what `make test` runs; `make test` before committing.
# The two checks run at the same time (they build nothing in common once
# `make all` has run: the backend's tests build in backend-tests/); each
# one's output is printed whole when both have ended.
set -u
cd "$(dirname "$0")/.." || exit 2
start=$(date +%s)
failed=""
make -s --no-print-directory -j2 BACKEND=cpu all || exit 2
logs=$(mktemp -d) && trap 'rm -rf "$logs"' EXIT
checks="check-labs check-backend"
for check in $checks; do
    ( t0=$(date +%s)
      BACKEND=cpu CHECK_BACKEND_QUICK=1 sh "tests/$check.sh" > "$logs/$check" 2>&1
      echo "$? $(( $(date +%s) - t0 ))" > "$logs/$check.rc" ) &
done
wait
for check in $checks; do
    echo "# $check [cpu]"
    cat "$logs/$check"
    set -- $(cat "$logs/$check.rc" 2>/dev/null)
    if [ "${1:-1}" = 0 ]; then
        echo "# $check [cpu]: passed (${2:-?} s)"
    else
        echo "# $check [cpu]: FAILED (${2:-?} s)"
        failed="$failed $check"
    fi
done
if [ -n "$failed" ]; then
    echo "make check: FAILED after $(( $(date +%s) - start )) s:$failed"
    exit 1
fi
echo "make check: passed ($(( $(date +%s) - start )) s; make test runs everything)"
