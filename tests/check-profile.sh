#!/bin/sh
# A performance item short of the reference explains its time with Nsight
# Compute's counters (common/grading/profile.c runs ncu on a GPU;
# counters.c reads its table and words it).  ncu needs a GPU, so this check
# feeds counters.c the tables of real runs kept in tests/fixtures/profile:
# the slow known-bad versions of labs 2, 5, 6, 7 and 8 and the reference,
# on an H100.  Each explanation must name the cause the known-bad version
# was written to have, with its numbers; the reference against itself must
# name none.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the tables are read the same on either pass: run on the cpu pass)"; finish; }
out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT
fx=tests/fixtures/profile

if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Icommon/grading -Icommon/harness -o "$out/explain" $fx/explain.c common/grading/counters.c -lm \
    2>"$out/cc.log"; then
    not_ok "counters.c and its test driver compile"
    sed 's/^/    /' "$out/cc.log"
    finish
fi

# explains NAME YOURS REFERENCE LENSES TEXT...: the explanation holds every TEXT
explains() {
    name=$1 yours=$2 reference=$3 lenses=$4
    shift 4
    "$out/explain" "$yours" "$reference" "$lenses" > "$out/said" 2>&1
    rc=$? missing=""
    for text in "$@"; do
        grep -q -F -- "$text" "$out/said" || missing="$missing [$text]"
    done
    if [ $rc = 0 ] && [ -z "$missing" ]; then
        ok "$name"
    else
        not_ok "$name (exit $rc; missing:${missing:- none})"
        sed 's/^/    /' "$out/said"
    fi
}

sectors="neighbouring threads that read neighbouring addresses"
occupancy="fewer resident warps leave fewer others to run"
loads="yours issues more global load instructions for the same result"
close="By these counters yours is close to the reference"

explains "lab 2, lanes far apart: the sectors' bytes left unused, 12% against 100%" \
    $fx/lab2-lanes-far-apart.csv $fx/lab2-solution.csv bandwidth,loads,occupancy \
    "The largest difference (8.0 times): $sectors" "using 12% of each 32-byte sector fetched, the reference 2097152 using 100%" \
    "yours 1.054 ms, the reference's 0.146 ms"
explains "lab 5, contiguous runs: the sectors' bytes left unused" \
    $fx/lab5-contiguous-runs.csv $fx/lab5-solution.csv bandwidth,loads,idle-lanes \
    "The largest difference (8.0 times): $sectors" "at 32% of the device's DRAM bandwidth, the reference 136.6 MB at 62%"
explains "lab 6, 32 blocks: occupancy, 12% of the warp slots against 98%" \
    $fx/lab6-fixed-32-blocks.csv $fx/lab6-solution.csv bandwidth,loads,occupancy,bank-conflicts \
    "The largest difference (7.8 times): $occupancy" "yours kept 12% of the SM's warp slots busy" "the reference 98% of 100%"
explains "lab 7, 32 blocks: occupancy, 12% against 73% of 75% possible" \
    $fx/lab7-fixed-32-blocks.csv $fx/lab7-solution.csv loads,bandwidth,occupancy \
    "The largest difference (5.9 times): $occupancy" "the reference 73% of 75%" "(the limit: registers per thread)"
explains "lab 8, no shared memory: 33 times the global loads" \
    $fx/lab8-no-shared-memory.csv $fx/lab8-solution.csv bank-conflicts,loads,occupancy,bandwidth \
    "The largest difference (33.0 times): $loads" "yours issued 553648128 load instructions" "the reference 16777216"
explains "lab 8: the longest of the four launches is read (6.087 ms, not the first launch's 0.003 ms)" \
    $fx/lab8-no-shared-memory.csv $fx/lab8-solution.csv loads "yours 6.087 ms, the reference's 3.166 ms"
for lab in lab2 lab5 lab6 lab7 lab8; do
    explains "$lab: the reference against itself names no cause" \
        $fx/$lab-solution.csv $fx/$lab-solution.csv bandwidth,bank-conflicts,occupancy,idle-lanes,loads "$close"
done
explains "lab 6: the reference against a slower version names no cause (the lenses are read one way)" \
    $fx/lab6-solution.csv $fx/lab6-fixed-32-blocks.csv bandwidth,loads,occupancy,bank-conflicts "$close"
explains "only the lenses asked for are shown" $fx/lab6-fixed-32-blocks.csv $fx/lab6-solution.csv loads \
    "global loads: yours issued"
if grep -q "global loads:" "$out/said" && ! grep -q -e "occupancy:" -e "memory:" -e "shared memory:" "$out/said"; then
    ok "a lens not asked for is left out"
else
    not_ok "a lens not asked for is left out (asked for loads alone)"
    sed 's/^/    /' "$out/said"
fi
explains "where there is no reference program (a student copy), yours alone" \
    $fx/lab7-fixed-32-blocks.csv - occupancy "no reference program here to compare with" "yours kept 12%"

# What the program printed before ncu's table cannot stand in for it: the
# last table in the output is ncu's, printed after the program ended.
{ sed 's/"0.1[0-9]*"/"1"/; s/"[0-9],[0-9]*,[0-9]*"/"1"/g' $fx/lab2-solution.csv; cat $fx/lab2-lanes-far-apart.csv; } > "$out/forged.csv"
explains "a table the program printed before ncu's is not read" "$out/forged.csv" $fx/lab2-solution.csv loads \
    "using 12% of each 32-byte sector fetched" "yours 1.054 ms"
printf 'lab 2: n = 33554432\nno table here\n"ID","Process ID" (not at a line start)\n' > "$out/none.csv"
"$out/explain" "$out/none.csv" $fx/lab2-solution.csv loads > "$out/said" 2>&1
rc=$?
if [ $rc = 1 ] && [ ! -s "$out/said" ]; then
    ok "output without ncu's table: no explanation (profile.c then says ncu profiled no launch)"
else
    not_ok "output without ncu's table: no explanation (exit $rc)"
fi
finish
