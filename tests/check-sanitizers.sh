#!/bin/sh
# Every solution runs clean under the cpu backend's sanitizers: built with
# AddressSanitizer (out-of-bounds global and shared accesses, leaks) and with
# ThreadSanitizer (races between the threads of a block), each lab program
# runs a small input and must finish with no report.  The planted bugs these
# builds must catch live with the backend's tests and the labs' mutants.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (sanitizer builds belong to the cpu backend)"; finish; }
out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT

small_args() {
    case "$1" in
    lab1-*) echo "2 40" ;;
    lab8-*) echo "64 1 16" ;;
    *) echo "1000 1" ;;
    esac
}

for lab_dir in labs/lab*/; do
    lab=$(basename "$lab_dir")
    for sanitizer in address thread; do
        program="build/cpu-$sanitizer/$lab/lab-solution"
        log="$out/$lab-$sanitizer.log"
        if ! make -s --no-print-directory BACKEND=cpu SANITIZE=$sanitizer "$program" >"$log" 2>&1; then
            not_ok "$lab: the solution builds with SANITIZE=$sanitizer"
            head -20 "$log" | sed 's/^/    /'
            continue
        fi
        TSAN_OPTIONS="halt_on_error=1 exitcode=66" ASAN_OPTIONS="detect_leaks=1" \
            "$program" $(small_args "$lab") >"$log" 2>&1
        rc=$?
        if [ "$rc" -eq 0 ] && ! grep -q "Sanitizer" "$log"; then
            ok "$lab: the solution runs clean under SANITIZE=$sanitizer"
        else
            not_ok "$lab: the solution runs clean under SANITIZE=$sanitizer (exit $rc)"
            grep -m 12 -A 8 "Sanitizer\|error" "$log" | sed 's/^/    /'
        fi
    done
done
finish
