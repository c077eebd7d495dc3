#!/bin/sh
# Every output format of the grader, on runs of its test lab that pass, fail,
# crash, skip, print junk and do not compile: JSON parses and follows
# docs/developing.md, JUnit XML is well-formed with crashes as <error>,
# Gradescope and PrairieLearn fields are present and consistent, the TAP plan
# matches.  Parsing uses perl (always here); xmllint or python3 when present.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
. tests/fixtures/grader/kit.sh
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
kit=$work/kit
fixture_kit "$kit" || { not_ok "the test kit can be made"; finish; }
students=$work/students
fixture_students "$students" || { not_ok "the student variants can be made from their patches"; finish; }

# results RUN FORMAT ARGS...: writes $work/RUN.FORMAT, the report in $work/RUN.FORMAT.log
results() {
    run=$1 format=$2
    shift 2
    (cd "$kit" && ./grader lab1 --backend=cpu --seed=11 --format="$format" --out="$work/$run.$format" "$@") \
        >"$work/$run.$format.log" 2>&1
    rc=$?
}
runs="pass fail crash junk broken"
args_pass="--solution"
args_fail="--student-dir=$students/wrong-add"
args_crash="--student-dir=$students/segv"
args_junk="--student-dir=$students/junk"
args_broken="--student-dir=$students/nocompile"

# check DESCRIPTION PERL-PROGRAM FILE: the program dies with a reason when the file is wrong.
check() {
    if reason=$(perl -MJSON::PP -e "$2" "$3" 2>&1); then ok "$1"; else not_ok "$1: $reason"; fi
}

# ---- json ----------------------------------------------------------------------------
for run in $runs; do
    eval "results $run json \$args_$run"
    check "json ($run): parses and follows the documented schema" '
        local $/; open my $f, "<", $ARGV[0] or die "no file\n"; my $r = decode_json(<$f>);
        for my $k (qw(backend seed points max_points labs)) { exists $r->{$k} or die "no $k\n" }
        my ($p, $m) = (0, 0);
        for my $lab (@{$r->{labs}}) {
            for my $k (qw(lab points max_points gradable items)) { exists $lab->{$k} or die "lab without $k\n" }
            my ($lp, $lm) = (0, 0);
            for my $i (@{$lab->{items}}) {
                for my $k (qw(name title kind status points max_points feedback)) { exists $i->{$k} or die "item without $k\n" }
                $i->{status} =~ /^(passed|failed|error|skipped)$/ or die "status $i->{status}\n";
                $i->{kind} =~ /^(correctness|performance|sanitizer)$/ or die "kind $i->{kind}\n";
                die "skipped item counts\n" if $i->{status} eq "skipped" && ($i->{points} || $i->{max_points});
                die "failed item scores\n" if $i->{status} =~ /failed|error/ && $i->{points};
                $lp += $i->{points}; $lm += $i->{max_points};
            }
            abs($lp - $lab->{points}) < 0.01 && abs($lm - $lab->{max_points}) < 0.01 or die "lab total is not the sum\n";
            $p += $lab->{points}; $m += $lab->{max_points};
        }
        abs($p - $r->{points}) < 0.01 && abs($m - $r->{max_points}) < 0.01 or die "total is not the sum\n";
        $r->{seed} == 11 or die "seed $r->{seed}\n";' "$work/$run.json"
done
check "json: a crash is an error, a wrong result a failure, a build failure not gradable" '
    sub load { local $/; open my $f, "<", $_[0] or die; decode_json(<$f>) }
    sub item { my ($r, $n) = @_; (grep { $_->{name} eq $n } @{$r->{labs}[0]{items}})[0] }
    my $dir = $ARGV[0];
    item(load("$dir/crash.json"), "sum_random")->{status} eq "error" or die "crash\n";
    item(load("$dir/fail.json"), "add_small")->{status} eq "failed" or die "failure\n";
    item(load("$dir/pass.json"), "speed")->{status} eq "skipped" or die "skip\n";
    my $b = load("$dir/broken.json");
    !$b->{labs}[0]{gradable} or die "gradable after a build failure\n";
    item($b, "add_small")->{feedback} =~ /does not compile/ or die "no compiler feedback\n";
    my $j = load("$dir/junk.json");
    $j->{points} == $j->{max_points} or die "junk run lost points\n";' "$work"

(cd "$kit" && ./grader lab1 --backend=cpu --student-dir="$students/junk" --format=json) >"$work/stdout.json" 2>"$work/stderr.log"
if perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' <"$work/stdout.json" 2>/dev/null \
    && grep -q "^lab1-fixture: 8.0/8.0 points" "$work/stderr.log"; then
    ok "json on stdout parses although the student's code prints; the report goes to stderr"
else
    not_ok "json on stdout parses although the student's code prints; the report goes to stderr"
    head -c 600 "$work/stdout.json" | sed 's/^/    /'
fi

# ---- junit -----------------------------------------------------------------------------
well_formed() {
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$1"
    elif command -v python3 >/dev/null 2>&1; then
        python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"
    else
        return 2
    fi
}
for run in $runs; do
    eval "results $run junit \$args_$run"
    well_formed "$work/$run.junit" >"$work/xml.err" 2>&1
    case $? in
        0) ok "junit ($run): well-formed XML" ;;
        2) ok "junit ($run): well-formed XML # SKIP neither xmllint nor python3 is installed" ;;
        *) not_ok "junit ($run): well-formed XML"; sed 's/^/    /' "$work/xml.err" | head -n 5 ;;
    esac
done
count() { grep -c "$1" "$work/$2.junit"; }
if [ "$(count '<error ' crash)" -eq 2 ] && grep -q 'testsuite name="lab1-fixture" tests="6" failures="0" errors="2" skipped="2"' "$work/crash.junit" \
    && [ "$(count '<failure ' fail)" -eq 1 ] && [ "$(count '<skipped ' pass)" -eq 2 ] \
    && [ "$(count '<testcase ' pass)" -eq 6 ] && [ "$(count '<failure\|<error' pass)" -eq 0 ]; then
    ok "junit: crashes are <error>, wrong results <failure>, skips <skipped>, counts agree"
else
    not_ok "junit: crashes are <error>, wrong results <failure>, skips <skipped>, counts agree"
    sed 's/^/    /' "$work/crash.junit" | head -n 20
fi

# ---- gradescope ---------------------------------------------------------------------------
for run in $runs; do
    eval "results $run gradescope \$args_$run"
    check "gradescope ($run): the fields of results.json, scores consistent with json" '
        sub load { local $/; open my $f, "<", $_[0] or die "no file $_[0]\n"; decode_json(<$f>) }
        my $g = load($ARGV[0]); (my $jf = $ARGV[0]) =~ s/gradescope$/json/; my $j = load($jf);
        ref $g->{tests} eq "ARRAY" && @{$g->{tests}} == 6 or die "tests\n";
        exists $g->{score} and die "top-level score overrides the tests\n";
        defined $g->{output} && $g->{output} =~ /seed 11/ or die "output without the seed\n";
        my $sum = 0;
        for my $t (@{$g->{tests}}) {
            for my $k (qw(name number score max_score status output visibility)) { exists $t->{$k} or die "test without $k\n" }
            $t->{status} =~ /^(passed|failed)$/ or die "status $t->{status}\n";
            $t->{score} <= $t->{max_score} + 1e-9 or die "score above max_score\n";
            $sum += $t->{score};
        }
        abs($sum - $j->{points}) < 0.01 or die "scores add to $sum, json says $j->{points}\n";' "$work/$run.gradescope"
done

# ---- prairielearn ---------------------------------------------------------------------------
for run in $runs; do
    eval "results $run prairielearn \$args_$run"
    check "prairielearn ($run): score in [0, 1], gradable, tests with points" '
        local $/; open my $f, "<", $ARGV[0] or die "no file\n"; my $p = decode_json(<$f>);
        my $broken = $ARGV[0] =~ /broken/;
        $p->{score} >= 0 && $p->{score} <= 1 or die "score $p->{score}\n";
        ($p->{gradable} ? 1 : 0) == ($broken ? 0 : 1) or die "gradable is wrong\n";
        defined $p->{message} && defined $p->{output} or die "message or output missing\n";
        for my $t (@{$p->{tests}}) { for my $k (qw(name points max_points message output)) { exists $t->{$k} or die "test without $k\n" } }
        @{$p->{tests}} == 6 or die "tests\n";' "$work/$run.prairielearn"
done

# ---- tap ---------------------------------------------------------------------------------------
for run in $runs; do
    eval "results $run tap \$args_$run"
    file=$work/$run.tap
    plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$file")
    lines=$(grep -c -E '^(not )?ok [0-9]+ ' "$file")
    if head -n 1 "$file" | grep -q '^TAP version 1[34]$' && [ -n "$plan" ] && [ "$plan" -eq "$lines" ] \
        && [ "$(grep -c '^ok .* # SKIP ' "$file")" -ge 1 ]; then
        ok "tap ($run): version line, plan matches $lines test lines, skips as directives"
    else
        not_ok "tap ($run): version line, plan matches the test lines, skips as directives"
        sed 's/^/    /' "$file" | head -n 12
    fi
done
if [ "$(grep -c '^not ok' "$work/crash.tap")" -eq 2 ] && [ "$(grep -c '^not ok' "$work/pass.tap")" -eq 0 ]; then
    ok "tap: failing items are 'not ok', passing ones 'ok'"
else
    not_ok "tap: failing items are 'not ok', passing ones 'ok'"
fi

# ---- text ---------------------------------------------------------------------------------------
results text text --student-dir="$students/wrong-add"
if grep -q "^lab1-fixture: 6.0/8.0 points" "$work/text.text" && grep -q "^seed 11: replay with" "$work/text.text" \
    && ! grep -q "$(printf '\033')" "$work/text.text"; then
    ok "text with --out: the plain report with its total and seed"
else
    not_ok "text with --out: the plain report with its total and seed"
fi
finish
