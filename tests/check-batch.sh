#!/bin/sh
# Batch grading: a folder with a correct, a wrong (the untouched skeleton), a
# non-compiling and a hanging submission gives four rows with the right
# outcomes, in the CSV and in the JSON-lines file.  The fixtures are made
# here from the lab's own files, at test time.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

lab=""
for candidate in lab1-hello lab2-vector-mult $(ls labs 2>/dev/null); do
    if [ -d "solutions/$candidate" ] && [ -f "grading/$candidate.c" ]; then lab=$candidate; break; fi
done
if [ -z "$lab" ]; then
    ok "batch grading # SKIP no lab with a solution and a grading suite yet"
    finish
fi

subs="$work/submissions"
mkdir -p "$subs/alice-correct" "$subs/bob-wrong/nested/folder" "$subs/carol-broken" "$subs/dave-hangs"
cp solutions/$lab/*.cu "$subs/alice-correct/"
cp labs/$lab/*.cu "$subs/bob-wrong/nested/folder/"          # found wherever it sits
cp solutions/$lab/*.cu "$subs/carol-broken/"
first=$(ls "$subs/carol-broken" | head -n 1)
echo 'this line is not C and does not compile;' >> "$subs/carol-broken/$first"
# The hang: the first function defined in the file never returns.
cp solutions/$lab/*.cu "$subs/dave-hangs/"
perl -0pi -e 's/\n\{\n/\n{\n    for (;;) sleep(1); \/* never returns *\/\n/ and s/^/#include <unistd.h>\n/' "$subs/dave-hangs/$first"
grep -q 'for (;;) sleep(1)' "$subs/dave-hangs/$first" || not_ok "the hanging fixture could not be made from $first"

# Check's per-item limits shortened (CK_TIMEOUT_MULTIPLIER), so that the hang
# costs seconds, not minutes; the whole submission has its own limit too.
start=$(date +%s)
CK_TIMEOUT_MULTIPLIER=0.2 SUBMISSION_TIMEOUT=240 SEED=4242 JOBS=2 \
    tools/batch-grade.sh "${lab%%-*}" "$subs" "$work/out/grades" > "$work/log" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
if [ "$rc" -eq 0 ] && [ -s "$work/out/grades.csv" ] && [ -s "$work/out/grades.jsonl" ]; then
    ok "batch-grade wrote the CSV and the JSON lines ($elapsed s)"
else
    not_ok "batch-grade wrote the CSV and the JSON lines (exit $rc)"
    sed 's/^/    /' "$work/log" | tail -n 30
    finish
fi

# One line per row: id status points max_points exit seed n_items has_build_errors
perl -MJSON::PP -ne 'my $r = decode_json($_);
    printf "%s %s %s %s %s %s %d %d\n", $r->{id}, $r->{status}, $r->{points}, $r->{max_points} // "-", $r->{exit_code},
           $r->{seed}, scalar @{$r->{items}}, $r->{build_errors} ne "" ? 1 : 0' "$work/out/grades.jsonl" > "$work/rows" 2>"$work/perl.err"
if [ "$(wc -l < "$work/rows")" -eq 4 ] && [ "$(wc -l < "$work/out/grades.csv")" -eq 5 ]; then
    ok "four rows, in both files"
else
    not_ok "four rows, in both files (jsonl: $(wc -l < "$work/rows"), csv lines: $(wc -l < "$work/out/grades.csv"))"
    cat "$work/perl.err" "$work/out/grades.csv" | sed 's/^/    /'
fi
row() { awk -v id="$1" '$1 == id' "$work/rows"; }

set -- $(row alice-correct)
if [ "${2:-}" = full_marks ] && [ "$3" = "$4" ] && [ "$7" -gt 0 ]; then ok "the correct submission gets full marks ($3/$4, $7 items)"
else not_ok "the correct submission gets full marks (row: $(row alice-correct))"; fi

set -- $(row bob-wrong)
if [ "${2:-}" = graded ] && perl -e 'exit !($ARGV[0] < $ARGV[1])' "$3" "$4"; then ok "the skeleton, found in a nested folder, is graded and loses points ($3/$4)"
else not_ok "the skeleton, found in a nested folder, is graded and loses points (row: $(row bob-wrong))"; fi

set -- $(row carol-broken)
if [ "${2:-}" = not_gradable ] && [ "$3" = 0 ] && [ "$8" = 1 ] && grep -q 'carol-broken,not_gradable,.*error' "$work/out/grades.csv"; then
    ok "the non-compiling submission is not gradable, with its compiler errors in the row"
else
    not_ok "the non-compiling submission is not gradable, with its compiler errors in the row (row: $(row carol-broken))"
fi

set -- $(row dave-hangs)
if { [ "${2:-}" = timeout ] || [ "${2:-}" = graded ]; } && perl -e 'exit !($ARGV[0] < $ARGV[1])' "$3" "$4"; then
    ok "the hanging submission costs only its own row ($2, $3/$4)"
else
    not_ok "the hanging submission costs only its own row (row: $(row dave-hangs))"
fi

if [ "$(cut -d ' ' -f 6 "$work/rows" | sort -u)" = 4242 ]; then ok "every row was graded with the batch's seed"
else not_ok "every row was graded with the batch's seed ($(cut -d ' ' -f 6 "$work/rows" | sort -u | tr '\n' ' '))"; fi

head -n 1 "$work/out/grades.csv" | grep -q '^id,status,points,max_points,exit_code,seed,.*,build_errors$' \
    && ok "the CSV header names the columns and every item" \
    || not_ok "the CSV header names the columns and every item: $(head -n 1 "$work/out/grades.csv")"
# ---- a course on a platform without a GPU: some items there, the others here, added up ----
# (On a GPU machine the second run is ONLY=gpu; here two halves of the cpu
# items stand for the two runs.)  Each student's total must be the full run's.
two="$work/two"
mkdir -p "$two"
cp -R "$subs/alice-correct" "$subs/bob-wrong" "$two/"
items=$(./grader list 2>/dev/null | awk -v lab="$lab" '$1 == lab {on = 1; next} /^lab/ {on = 0} on && !/\(gpu/ {print $1}')
first_half=$(echo "$items" | head -n 3 | paste -sd, -)
second_half=$(echo "$items" | tail -n +4 | paste -sd, -)
ONLY=$first_half SEED=4242 JOBS=2 tools/batch-grade.sh "${lab%%-*}" "$two" "$work/platform" > "$work/log1" 2>&1 \
    && ONLY=$second_half SEED=4242 JOBS=2 tools/batch-grade.sh "${lab%%-*}" "$two" "$work/gpu" > "$work/log2" 2>&1 \
    && tools/merge-grades.sh "$work/platform.csv" "$work/gpu.csv" > "$work/merged.csv" 2> "$work/merge.err"
rc=$?
full_alice=$(awk -F, '$1 == "alice-correct" {print $3}' "$work/out/grades.csv")
full_bob=$(awk -F, '$1 == "bob-wrong" {print $3}' "$work/out/grades.csv")
merged_alice=$(awk -F, '$1 == "alice-correct" {print $4}' "$work/merged.csv" 2>/dev/null)
merged_bob=$(awk -F, '$1 == "bob-wrong" {print $4}' "$work/merged.csv" 2>/dev/null)
part_alice=$(awk -F, '$1 == "alice-correct" {print $2}' "$work/merged.csv" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ -n "$merged_alice" ] && [ "$merged_alice" = "$full_alice" ] && [ "$merged_bob" = "$full_bob" ] \
   && [ "${part_alice:-0}" != "$full_alice" ] && head -n 1 "$work/merged.csv" | grep -q '^id,platform_points,gpu_points,total,note$'; then
    ok "ONLY= batches of two parts of the items add up with merge-grades.sh to the full grade ($merged_alice and $merged_bob)"
else
    not_ok "ONLY= batches of two parts of the items add up with merge-grades.sh to the full grade (exit $rc; alice $merged_alice of $full_alice, bob $merged_bob of $full_bob)"
    cat "$work/merge.err" "$work/merged.csv" 2>/dev/null | sed 's/^/    /' | head -n 10
    tail -n 5 "$work/log1" "$work/log2" 2>/dev/null | sed 's/^/    /'
fi
printf 'student,score\n=alice,1\n' > "$work/odd.csv"
if tools/merge-grades.sh "$work/odd.csv" "$work/gpu.csv" student score > "$work/odd-merged.csv" 2>&1 \
   && grep -q "^\"'=alice\",1,0,1,not in the GPU run$" "$work/odd-merged.csv"; then
    ok "merge-grades.sh takes the platform's column names and quotes what a spreadsheet would run"
else
    not_ok "merge-grades.sh takes the platform's column names and quotes what a spreadsheet would run"
    sed 's/^/    /' "$work/odd-merged.csv" | head -n 5
fi
finish
