#!/bin/sh
# Grades one lab and prints, for $GITHUB_OUTPUT, the line "result=<base64>"
# that classroom-resources/autograding-grading-reporter reads: one test per
# grader item with its points, so students get partial credit.  The grader's
# report goes to stderr (the workflow's log).
#
#   sh .github/classroom/autograding-result.sh LAB     (from the repository's root)
set -u
lab=${1:?usage: autograding-result.sh LAB}
out=$(mktemp) || exit 2
trap 'rm -f "$out" "$out.log"' EXIT
./grader "$lab" --backend="${BACKEND:-cpu}" --format=json --out="$out" >"$out.log" 2>&1
rc=$?
cat "$out.log" >&2
perl -MJSON::PP -MMIME::Base64 -e '
    my ($file, $rc, $logfile) = @ARGV;
    my $r = eval { local $/; open my $f, "<", $file or die; decode_json(<$f>) };
    my $log = do { local $/; open my $f, "<", $logfile; <$f> // "" };
    my (@tests, $max);
    if ($r && $r->{labs} && @{$r->{labs}}) {
        for my $lab (@{$r->{labs}}) {
            for my $i (@{$lab->{items}}) {
                next if $i->{status} eq "skipped";
                push @tests, { name => "$lab->{lab}: $i->{name}", status => $i->{status} eq "passed" ? "pass" : "fail",
                               score => $i->{points} + 0, max_score => $i->{max_points} + 0,
                               message => $i->{feedback} // "", test_code => "./grader $ARGV[3] --only=$i->{name}",
                               filename => "", line_no => 0, duration => 0 };
            }
        }
        $max = $r->{max_points} + 0;
    }
    my $status = $rc == 0 ? "pass" : @tests && $rc == 1 ? "fail" : "error";
    if ($status eq "error" && !@tests) {
        my @tail = (split /\n/, $log)[-30 .. -1];
        push @tests, { name => "build and grade", status => "error", score => 0,
                       message => join("\n", grep { defined } @tail), test_code => "./grader $ARGV[3]",
                       filename => "", line_no => 0, duration => 0 };
    }
    my $result = { version => 1, status => $status, max_score => $max // 0, tests => \@tests };
    print "result=", encode_base64(JSON::PP->new->canonical->encode($result), ""), "\n";
' "$out" "$rc" "$out.log" "$lab"
