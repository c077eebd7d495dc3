#!/bin/sh
# Batch grading: a folder with a correct, a wrong (the untouched skeleton), a
# non-compiling and a hanging submission gives four rows with the right
# outcomes, in the CSV and in the JSON-lines file.  The fixtures are made
# here from the lab's own files, at test time.  Then: ONLY= halves added up
# by merge-grades.sh; an instructor's hidden suite (the public one with an
# item renamed) is graded, built once per batch, a submission costing about
# what it does with the public suite (both times printed); two batch runs at
# once with it give the rows each gives alone (as root, as users of their
# own), and a third with the first one's results prefix refuses.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
cpu_pass_only
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
graded_lab_or_skip "batch grading"

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
# ---- the instructor's hidden suite: built once per batch, graded, and two runs at once ----------
# The hidden suite here is the public one with one item renamed: its rows
# must name that item, and grading with it must cost about what grading with
# the public suite does (once, the suite is compiled; the kit is not built
# again).  Times are per submission, of a batch of two, one after the other.
pair="$work/pair"
mkdir -p "$pair" "$work/hidden"
cp -R "$subs/alice-correct" "$subs/bob-wrong" "$pair/"
# (an item the skeleton loses points on, in the first batch above)
secret_of=$(perl -MJSON::PP -ne 'my $r = decode_json($_); next if $r->{id} ne "bob-wrong";
    for (@{$r->{items}}) { if ($_->{status} ne "skipped" && $_->{points} < $_->{max_points}) { print "$_->{name}\n"; last } }' \
    "$work/out/grades.jsonl")
secret="hidden_$secret_of"
sed "s/^GRADE_ITEM($secret_of,/GRADE_ITEM($secret,/" "grading/$lab/suite.c" > "$work/hidden/$lab.c"
grep -q "^GRADE_ITEM($secret," "$work/hidden/$lab.c" || not_ok "the hidden suite's fixture could not be made from grading/$lab/suite.c"
now() { perl -MTime::HiRes=time -e 'printf "%.1f\n", time'; }
per_submission() { perl -e 'printf "%.1f", ($ARGV[1] - $ARGV[0]) / 2' "$1" "$2"; }
t0=$(now)
SEED=4242 JOBS=2 BATCH_HIDDEN=no HIDDEN_SUITES="$work/hidden" tools/batch-grade.sh "${lab%%-*}" "$pair" "$work/plain" > "$work/plain.out" 2>&1
plain_rc=$?
t1=$(now)
SEED=4242 JOBS=2 HIDDEN_SUITES="$work/hidden" tools/batch-grade.sh "${lab%%-*}" "$pair" "$work/hidden-run" > "$work/hidden.out" 2>&1
hidden_rc=$?
t2=$(now)
plain_s=$(per_submission "$t0" "$t1")
hidden_s=$(per_submission "$t1" "$t2")
echo "# per submission: $plain_s s with the public suite, $hidden_s s with the hidden one"
if [ "$plain_rc" = 0 ] && [ "$hidden_rc" = 0 ] && perl -e 'exit !($ARGV[1] <= 1.5 * $ARGV[0] + 5)' "$plain_s" "$hidden_s"; then
    ok "with the hidden suite a submission costs about what it does with the public one ($hidden_s s against $plain_s s)"
else
    not_ok "with the hidden suite a submission costs about what it does with the public one ($hidden_s s against $plain_s s; exit $plain_rc, $hidden_rc)"
    tail -n 5 "$work/plain.out" "$work/hidden.out" | sed 's/^/    /'
fi
# item FILE ID NAME: "points max_points" of item NAME in the row of ID
item() { perl -MJSON::PP -e 'my ($id, $name) = @ARGV; while (<STDIN>) { my $r = decode_json($_); next if $r->{id} ne $id;
    print "$_->{points} $_->{max_points}" for grep { $_->{name} eq $name } @{$r->{items}} }' "$2" "$3" < "$1"; }
alice_secret=$(item "$work/hidden-run.jsonl" alice-correct "$secret")
bob_secret=$(item "$work/hidden-run.jsonl" bob-wrong "$secret")
set -- $alice_secret $bob_secret
if [ -n "$secret_of" ] && grep -q 'with the hidden suite' "$work/hidden.out" && [ $# = 4 ] \
   && perl -e 'exit !($ARGV[0] == $ARGV[1] && $ARGV[0] > 0 && $ARGV[2] < $ARGV[3])' "$@" \
   && [ -z "$(item "$work/hidden-run.jsonl" alice-correct "$secret_of")" ] \
   && [ -z "$(item "$work/plain.jsonl" alice-correct "$secret")" ] && [ -n "$(item "$work/plain.jsonl" alice-correct "$secret_of")" ] \
   && head -n 1 "$work/hidden-run.csv" | grep -q ",$secret,"; then
    ok "the hidden suite's item $secret is graded: the correct submission gets its $1 of $2 points, the skeleton $3"
else
    not_ok "the hidden suite's item ${secret:-?} is graded (alice '$alice_secret', bob '$bob_secret')"
    head -n 3 "$work/hidden-run.csv" "$work/plain.csv" 2>/dev/null | sed 's/^/    /'
fi
if [ -z "$(ls -d build/batch-grader.* 2>/dev/null)" ] && [ ! -e "$work/hidden-run.lock" ]; then
    ok "the batch's own grader and its lock are gone after the run"
else
    not_ok "the batch's own grader and its lock are gone after the run ($(ls -d build/batch-grader.* "$work"/*.lock 2>/dev/null | tr '\n' ' '))"
fi

# Two batch runs at once, on the same lab and the same kit, each with the
# hidden suite: each must give the rows it gives alone.  A third one started
# with the first one's results prefix must refuse, leaving the first intact.
SEED=4242 JOBS=2 HIDDEN_SUITES="$work/hidden" tools/batch-grade.sh "${lab%%-*}" "$pair" "$work/at-once-1" > "$work/at-once-1.out" 2>&1 & p1=$!
SEED=4242 JOBS=2 HIDDEN_SUITES="$work/hidden" tools/batch-grade.sh "${lab%%-*}" "$pair" "$work/at-once-2" > "$work/at-once-2.out" 2>&1 & p2=$!
waited=0
while [ ! -e "$work/at-once-1.lock" ] && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
SEED=4242 JOBS=2 HIDDEN_SUITES="$work/hidden" tools/batch-grade.sh "${lab%%-*}" "$pair" "$work/at-once-1" > "$work/at-once-3.out" 2>&1
r3=$?
wait $p1; r1=$?
wait $p2; r2=$?
# (the JSON lines name their own logs folder: compare them without it)
same_rows() { perl -pe 's/"log":"[^"]*"//' "$1" > "$1.rows"; perl -pe 's/"log":"[^"]*"//' "$2" > "$2.rows"; cmp -s "$1.rows" "$2.rows"; }
if [ "$r1" = 0 ] && [ "$r2" = 0 ] && cmp -s "$work/hidden-run.csv" "$work/at-once-1.csv" && cmp -s "$work/hidden-run.csv" "$work/at-once-2.csv" \
   && same_rows "$work/hidden-run.jsonl" "$work/at-once-1.jsonl" && same_rows "$work/hidden-run.jsonl" "$work/at-once-2.jsonl"; then
    ok "two batch runs at once with the hidden suite give the rows each gives alone"
else
    not_ok "two batch runs at once with the hidden suite give the rows each gives alone (exit $r1 $r2)"
    for f in hidden-run at-once-1 at-once-2; do sed "s/^/    $f: /" "$work/$f.csv" 2>/dev/null | cut -c 1-120; done
    tail -n 5 "$work/at-once-1.out" "$work/at-once-2.out" | sed 's/^/    /'
fi
# as root, each run's submissions ran as runner users of that run's own
if [ "$(id -u)" = 0 ]; then
    users_of() { grep -ho 'runner user [^ ]*' "$work/$1.logs/"*.log 2>/dev/null | sort -u; }
    users_of at-once-1 > "$work/users-1"; users_of at-once-2 > "$work/users-2"
    if [ -s "$work/users-1" ] && [ -s "$work/users-2" ] && [ -z "$(comm -12 "$work/users-1" "$work/users-2")" ]; then
        ok "the two runs at once ran their submissions as different users ($(cat "$work/users-1" "$work/users-2" | sed 's/runner user //' | tr '\n' ' '))"
    else
        not_ok "the two runs at once ran their submissions as different users ($(cat "$work/users-1" "$work/users-2" | tr '\n' ' '))"
    fi
fi
if ! command -v flock >/dev/null 2>&1; then
    ok "a third run with the first one's results prefix refuses # SKIP no flock(1) here"
elif [ "$r3" = 2 ] && grep -q 'another batch run writes' "$work/at-once-3.out"; then
    ok "a third run with the first one's results prefix refuses while the first runs"
else
    not_ok "a third run with the first one's results prefix refuses while the first runs (exit $r3)"
    tail -n 5 "$work/at-once-3.out" | sed 's/^/    /'
fi
finish
