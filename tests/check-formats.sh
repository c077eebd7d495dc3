#!/bin/sh
# Every output format of the grader, on runs of its test lab that pass, fail,
# crash, skip, print junk and do not compile: JSON parses and follows
# docs/developing.md, JUnit XML is well-formed with crashes as <error>,
# Gradescope and PrairieLearn fields are present and consistent, the TAP plan
# matches.  One points policy in all of them: the test lab gains a going-further
# item (its title says so), and the skeleton, the solution, a passing and a
# failing attempt of it, and every other run report the same maximum, with
# the going-further points apart.  Parsing uses perl (always here); xmllint or
# python3 when present.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
cpu_pass_only
. tests/fixtures/grader/kit.sh
fixture_setup
# The going-further item: the fixture has no TODO of its own for it, so the
# run says whether it was attempted (FX_GOING_FURTHER, which the item's
# process inherits from the grader).
rm "$kit/grading" && cp -R "$FIXTURE/grading" "$kit/grading" && perl -0 -i -pe '
    s/(\nGRADE_LAB\()/\nGRADE_ITEM(further, 3, GRADE_CORRECTNESS, 2, "", "going further: fx_add(20, 22) is 42", "")\n{\n    if (!getenv("FX_GOING_FURTHER"))\n        grade_skip("going further not attempted: it neither adds nor costs points");\n    grade_check(GRADE_FN(grade_student(), fx_add)(20, 22) == 42, "fx_add(20, 22) is not 42");\n}\n$1/;
' "$kit/grading/lab1-fixture/suite.c" && grep -q '^GRADE_ITEM(further,' "$kit/grading/lab1-fixture/suite.c" \
    || { not_ok "the test lab gets a going-further item"; finish; }

# results RUN FORMAT ARGS...: writes $work/RUN.FORMAT, the report in $work/RUN.FORMAT.log
results() {
    run=$1 format=$2
    shift 2
    case $run in further*) further=1 ;; *) further="" ;; esac
    (cd "$kit" && if [ -n "$further" ]; then export FX_GOING_FURTHER=1; else unset FX_GOING_FURTHER; fi
     ./grader lab1 --backend=cpu --seed=11 --format="$format" --out="$work/$run.$format" "$@") \
        >"$work/$run.$format.log" 2>&1
    rc=$?
}
runs="pass skeleton further further_wrong fail crash junk broken"
args_pass="--solution"
args_skeleton=""
args_further="--solution"
args_further_wrong="--student-dir=$students/wrong-add"
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
            for my $k (qw(lab points max_points going_further_points going_further_max_points gradable items)) {
                exists $lab->{$k} or die "lab without $k\n" }
            my ($lp, $lm, $fp, $fm) = (0, 0, 0, 0);
            for my $i (@{$lab->{items}}) {
                for my $k (qw(name title kind status points max_points going_further feedback)) { exists $i->{$k} or die "item without $k\n" }
                ($i->{going_further} ? 1 : 0) == ($i->{title} =~ /going further/i ? 1 : 0) or die "going_further of $i->{name}\n";
                $i->{status} =~ /^(passed|failed|error|skipped)$/ or die "status $i->{status}\n";
                $i->{kind} =~ /^(correctness|performance|sanitizer)$/ or die "kind $i->{kind}\n";
                die "skipped item counts\n" if $i->{status} eq "skipped" && ($i->{points} || $i->{max_points});
                die "failed item scores\n" if $i->{status} =~ /failed|error/ && $i->{points};
                if ($i->{going_further}) { $fp += $i->{points}; $fm += $i->{max_points}; next }
                $lp += $i->{points}; $lm += $i->{max_points};
            }
            abs($lp - $lab->{points}) < 0.01 && abs($lm - $lab->{max_points}) < 0.01 or die "lab total is not the sum of its counted items\n";
            abs($fp - $lab->{going_further_points}) < 0.01 && abs($fm - $lab->{going_further_max_points}) < 0.01
                or die "going-further points are not the sum of those items\n";
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
if [ "$(count '<error ' crash)" -eq 2 ] && grep -q 'testsuite name="lab1-fixture" tests="7" failures="0" errors="2" skipped="3"' "$work/crash.junit" \
    && [ "$(count '<failure ' fail)" -eq 1 ] && [ "$(count '<skipped ' pass)" -eq 3 ] \
    && [ "$(count '<testcase ' pass)" -eq 7 ] && [ "$(count '<failure\|<error' pass)" -eq 0 ]; then
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
        ref $g->{tests} eq "ARRAY" && @{$g->{tests}} == 7 or die "tests\n";
        defined $g->{score} && abs($g->{score} - $j->{points}) < 0.01 or die "top-level score is not json points\n";
        defined $g->{execution_time} && $g->{execution_time} =~ /^\d+$/ or die "no execution_time in whole seconds\n";
        defined $g->{output} && $g->{output} =~ /seed 11/ or die "output without the seed\n";
        my ($sum, $max) = (0, 0);
        my %item = map { $_->{name} => $_ } @{$j->{labs}[0]{items}};
        for my $t (@{$g->{tests}}) {
            for my $k (qw(name number output visibility)) { exists $t->{$k} or die "test without $k\n" }
            my ($name) = $t->{name} =~ /^(\w+):/ or die "test name $t->{name}\n";
            my $i = $item{$name} or die "test $name is no item\n";
            if ($i->{status} eq "skipped") {
                # Gradescope has no skipped status; 0/0 or a status would show as passed
                exists $t->{$_} and die "skipped $name has $_\n" for qw(score max_score status);
                $t->{output} =~ /^skipped: / or die "skipped $name does not say so\n";
                next;
            }
            $t->{status} =~ /^(passed|failed)$/ or die "status $t->{status}\n";
            if ($i->{going_further}) {
                exists $t->{score} || exists $t->{max_score} and die "going-further $name has a score\n";
                $t->{output} =~ /^going further: [0-9.]+\/[0-9.]+, not counted in the total/ or die "going-further $name output\n";
                next;
            }
            $t->{score} <= $t->{max_score} + 1e-9 or die "score above max_score\n";
            $sum += $t->{score}; $max += $t->{max_score};
        }
        abs($sum - $j->{points}) < 0.01 or die "scores add to $sum, json says $j->{points}\n";
        abs($max - $j->{max_points}) < 0.01 or die "max_scores add to $max, json says $j->{max_points}\n";' "$work/$run.gradescope"
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
        @{$p->{tests}} == 7 or die "tests\n";
        (my $jf = $ARGV[0]) =~ s/prairielearn$/json/; open my $g, "<", $jf or die "no $jf\n"; my $j = decode_json(<$g>);
        my $want = $j->{max_points} > 0 ? $j->{points} / $j->{max_points} : 0;
        abs($p->{score} - $want) < 0.001 or die "score $p->{score}, json says $want\n";' "$work/$run.prairielearn"
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

# ---- one points policy ------------------------------------------------------------------------
# Every run reports the same maximum in every format, whatever was attempted:
# "FORMAT RUN MAX..." lines, then each format must hold one value.  A build
# failure is left out: the test lab's gpu_only item skips itself at run time
# (grade_skip on the cpu backend), which a build failure cannot know, so its
# maximum is 1 more; it is "not gradable", score 0.  (The labs' suites give
# their GPU-only items a GPU-only kind, skipped alike either way.)
for run in $runs; do
    eval "results $run text \$args_$run"
done
perl -MJSON::PP -e '
    sub load { local $/; open my $f, "<", $_[0] or return undef; my $t = <$f>; $_[1] ? $t : eval { decode_json($t) } }
    sub n { defined $_[0] && $_[0] =~ /^[0-9.]+$/ ? sprintf("%.2f", $_[0]) : ($_[0] // "none") }
    my ($dir, @runs) = @ARGV;
    for my $run (@runs) {
        my $j = load("$dir/$run.json");
        print "json $run ", $j ? n($j->{max_points}) . " " . n($j->{labs}[0]{max_points}) : "none", "\n";
        my $g = load("$dir/$run.gradescope");
        my $m = 0; $m += $_->{max_score} // 0 for @{$g ? $g->{tests} : []};
        printf "gradescope %s %s %s\n", $run, n($m), $g ? n($g->{extra_data}{max_score}) : "none";
        my $p = load("$dir/$run.prairielearn");
        my ($pm) = ($p && $p->{message} =~ m{^[0-9.]+/([0-9.]+) points}) ? ($1) : ("none");
        print "prairielearn $run ", n($pm), "\n";
        my $tap = load("$dir/$run.tap", 1) // "";
        my $tm = 0;
        while ($tap =~ /\n  ---\n(.*?)\n  \.\.\.\n/sg) { my $y = $1; next if $y =~ /going_further: true/; $tm += $1 if $y =~ /max_points: ([0-9.]+)/ }
        print "tap $run ", n($tm), "\n";
        my ($xm) = (load("$dir/$run.junit", 1) // "") =~ /name="max_points" value="([0-9.]+)"/;
        print "junit $run ", n($xm), "\n";
        my ($txt) = (load("$dir/$run.text", 1) // "") =~ m{^lab1-fixture: [0-9.]+/([0-9.]+) points}m;
        print "text $run ", n($txt), "\n";
    }' "$work" $runs > "$work/maxima"
policy_ok=1
for format in json gradescope prairielearn tap junit text; do
    values=$(grep "^$format " "$work/maxima" | grep -v "^$format broken " | cut -d' ' -f3- | tr ' ' '\n' | sort -u | tr '\n' ' ')
    case $values in
        "" | *" "?*" "* | *none*) policy_ok=0; echo "    $format: maxima $values" ;;
    esac
done
json_max=$(sed -n 's/^json pass \([0-9.]*\) .*/\1/p' "$work/maxima")
if [ $policy_ok = 1 ] && [ "$json_max" = 8.00 ]; then
    ok "one points policy: skeleton, solution, going further passed and failed, wrong, crash and junk all report the maximum 8 in every format"
else
    not_ok "one points policy: every run reports the same maximum in every format"
    sed 's/^/    /' "$work/maxima"
fi
check "going further apart: 3/3 when attempted, 0/3 when attempted wrong, nothing when not, never in the total" '
    sub load { local $/; open my $f, "<", $_[0] or die "no $_[0]\n"; decode_json(<$f>) }
    my $dir = $ARGV[0];
    my %f = map { $_ => load("$dir/$_.json")->{labs}[0] } qw(pass further further_wrong skeleton);
    "$f{further}{going_further_points} $f{further}{going_further_max_points}" eq "3 3" or die "attempted: $f{further}{going_further_points}/$f{further}{going_further_max_points}\n";
    "$f{further_wrong}{going_further_points} $f{further_wrong}{going_further_max_points}" eq "0 3" or die "attempted wrong\n";
    $f{$_}{going_further_max_points} == 0 or die "$_: not attempted, yet $f{$_}{going_further_max_points}\n" for qw(pass skeleton);
    $f{further}{points} == $f{pass}{points} or die "going further changed the points: $f{further}{points} against $f{pass}{points}\n";' "$work"
if grep -q '^lab1-fixture: 8.0/8.0 points (going further: 3.0/3.0, not counted in the total)' "$work/further.text" \
    && grep -q 'further: going further: .* (not counted in the total)$' "$work/further.text"; then
    ok "text: the going-further points apart on the item and the total line"
else
    not_ok "text: the going-further points apart on the item and the total line"
    sed 's/^/    /' "$work/further.text"
fi
finish
