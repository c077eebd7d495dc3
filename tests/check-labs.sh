#!/bin/sh
# Every lab: the reference solution gets full marks, and the untouched
# skeleton builds, is graded item by item without crashing the grader, and
# scores nothing (a going-further step not attempted is skipped).
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT

# one_lab LAB: its solution and its skeleton graded (the labs at once: in_parallel)
one_lab() {
    lab=$1
    short=${lab%%-*}

    ./grader "$short" --solution --backend="$BACKEND" --format=json --out="$out/$lab-solution.json" >"$out/$lab.log" 2>&1
    rc=$?
    total=$(json_total "$out/$lab-solution.json" 2>/dev/null)
    set -- $total
    if [ "$rc" -eq 0 ] && [ -n "$total" ] && [ "$1" = "$2" ]; then
        ok "$lab: the solution gets full marks ($1/$2)"
    else
        not_ok "$lab: the solution gets full marks (exit $rc, points ${total:-none})"
        sed 's/^/    /' "$out/$lab.log" | head -40
    fi

    # One scale: every lab is worth 100 points, what this backend grades
    # plus what the total says is graded elsewhere, plus the going-further
    # points it reports apart (they count toward no total).
    line=$(grep "^$lab: " "$out/$lab.log" | tail -n 1)
    if echo "$line" | perl -ne 'exit !(m{/([0-9.]+) points(?: \(going further: [0-9.]+/([0-9.]+)[^)]*\))?(?: \(([0-9.]+) more are graded [^)]*\))?$}
                                       && $1 + ($2 // 0) + ($3 // 0) == 100)'; then
        ok "$lab: the total and the points graded elsewhere make 100 ($line)"
    else
        not_ok "$lab: the total and the points graded elsewhere make 100 ($line)"
    fi

    ./grader "$short" --backend="$BACKEND" --format=json --out="$out/$lab-skeleton.json" >"$out/$lab.log" 2>&1
    rc=$?
    total=$(json_total "$out/$lab-skeleton.json" 2>/dev/null)
    set -- $total
    if [ "$rc" -eq 1 ] && [ -n "$total" ] && perl -e 'exit !($ARGV[0] == 0)' "$1"; then
        ok "$lab: the skeleton is graded and scores nothing ($1/$2, exit 1)"
    else
        not_ok "$lab: the skeleton is graded and scores nothing (exit $rc, points ${total:-none})"
        sed 's/^/    /' "$out/$lab.log" | head -40
    fi
}
labs=$(for suite in grading/lab*/suite.c; do basename "$(dirname "$suite")"; done)
in_parallel one_lab $labs
# The README's quick start grades an unfinished lab: make lab1 succeeds on a
# program that reports a wrong result, so the grader after && runs.
if [ "$BACKEND" = cpu ]; then
    (make -s --no-print-directory lab1 BACKEND=cpu && ./grader lab1 --backend=cpu) >"$out/quickstart.log" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q "lab1-hello: .* points" "$out/quickstart.log"; then
        ok "make lab1 && ./grader lab1 grades the untouched skeleton (exit 1)"
    else
        not_ok "make lab1 && ./grader lab1 grades the untouched skeleton (exit $rc)"; tail -20 "$out/quickstart.log" | sed 's/^/    /'
    fi
fi
finish
