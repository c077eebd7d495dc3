#!/usr/bin/perl
# Makes the results file a platform reads complete and true, from what the
# grader left (platforms/common/autograde.sh calls it; perl and its core
# JSON::PP are already the kit's needs):
#
#   perl results.pl --platform gradescope|prairielearn --out FILE --seconds N
#        [--results GRADER_JSON] [--log LIVE_LOG] [--list GRADER_LIST] [--kit DIR]
#        [--hidden ITEMS_FILE] [--stopped LIMIT_S] [--failure MESSAGE]
#
# With --results (the grader finished): the grader's own file, plus what the
# platform needs that the grader does not write yet:
#   Gradescope    execution_time (the whole job's seconds); a skipped item (not
#                 graded on this backend) as an informational test with no score
#                 and no status, not as "passed 0/0"; the top-level score then;
#   PrairieLearn  format_errors when the submission is not gradable; the items of
#                 the hidden suite folded into one test that names none of them,
#                 and their lines left out of the report students see;
#   both          the compiler's messages in place of the path of a log file
#                 that students cannot open.
# With --stopped (the platform's time ran out first and the grader was stopped):
# results rebuilt from the grader's live report (LIVE_LOG: one line per item as
# each ends) and its item list: the items graded before the limit keep their
# points, the others are "not graded: time ran out" at 0 of their points.
# With --failure: no grade at all; the message and the log's end.
# With --refused (the grader would not grade: the host's sandbox is below the
# minimum): no grade and no score, not even 0; the message for the student,
# the log's end for the staff (Gradescope: the output and no score or test;
# PrairieLearn: gradable false, so the attempt is not used up).
use strict;
use warnings;
use JSON::PP;

my %opt = (seconds => 0);
while (@ARGV) {
    my $k = shift @ARGV;
    $k =~ s/^--// or die "results.pl: unknown argument $k\n";
    $opt{$k} = shift @ARGV;
}
my $platform = $opt{platform} // die "results.pl: --platform\n";
my $json = JSON::PP->new->canonical->pretty;

sub slurp {
    my ($f) = @_;
    return undef unless defined $f && open my $h, '<', $f;
    local $/;
    my $t = <$h>;
    return $t;
}

# The hidden suite's own items (one name a line), where the package has them.
my %hidden = map { $_ => 1 } grep { length } split /\n/, (slurp($opt{hidden}) // '');

# compiler_text TEXT: TEXT with "the compiler's log is PATH" replaced by that
# log's lines (make's own lines, which name the kit's folders, left out).
sub compiler_text {
    my ($text) = @_;
    return $text unless defined $text;
    $text =~ s{the compiler's log is (\S+)}{
        my $path = $1;
        $path = "$opt{kit}/$path" if defined $opt{kit} && $path !~ m{^/};
        my $log = slurp($path);
        if (defined $log) {
            my @lines = grep { !/^make(\[\d+\])?: / && /\S/ } split /\n/, $log;
            splice @lines, 80, @lines - 80, "... (" . (@lines - 80) . " more lines)" if @lines > 80;
            "the compiler says:\n" . join("\n", map { "    $_" } @lines);
        } else {
            "the compiler's messages are in the items below";
        }
    }ge;
    return $text;
}

# report_without_hidden TEXT: the grader's text report less the lines of hidden items
# (an item's line, then its feedback indented below it).
sub report_without_hidden {
    my ($text) = @_;
    return $text unless %hidden && defined $text;
    my ($out, $skip) = ('', 0);
    for my $line (split /\n/, $text, -1) {
        if ($line =~ /^\s*(?:\[\d+\/\d+\] )?(?:PASS|FAIL|ERROR|SKIP)\s+\S+\s+(\w+): /) {
            $skip = $hidden{$1} ? 1 : 0;
            $out .= "  (a hidden item)\n" if $skip;
        } elsif ($line !~ /^      /) {
            $skip = 0;
        }
        $out .= "$line\n" unless $skip;
    }
    $out =~ s/\n\z//;
    return $out;
}

sub write_out {
    my ($r) = @_;
    open my $h, '>', $opt{out} or die "results.pl: cannot write $opt{out}: $!\n";
    print $h $json->encode($r);
    close $h or die "results.pl: cannot write $opt{out}: $!\n";
}

sub log_tail {
    my @lines = split /\n/, (slurp($opt{log}) // '');
    splice @lines, 0, @lines - 60 if @lines > 60;
    return join "\n", @lines;
}

# ---- not graded: the host is below the minimum ------------------------------------------
if (defined $opt{refused}) {
    if ($platform eq 'gradescope') {
        write_out({ execution_time => $opt{seconds} + 0, output => $opt{refused}, output_format => 'text',
                    visibility => 'visible', stdout_visibility => 'hidden', tests => [],
                    extra_data => { not_graded => JSON::PP::true } });
    } else {
        write_out({ gradable => JSON::PP::false, message => $opt{refused}, format_errors => [$opt{refused}],
                    output => log_tail(), tests => [] });
    }
    exit 0;
}

# ---- no grade at all ---------------------------------------------------------------------
if (defined $opt{failure}) {
    my $details = log_tail();
    if ($platform eq 'gradescope') {
        write_out({ score => 0, execution_time => $opt{seconds} + 0, output => "$opt{failure}\n\n$details",
                    output_format => 'text', visibility => 'visible', stdout_visibility => 'hidden', tests => [] });
    } else {
        write_out({ gradable => JSON::PP::false, score => 0, message => $opt{failure},
                    format_errors => [$opt{failure}], output => $details, tests => [] });
    }
    exit 0;
}

# ---- the time ran out: the items graded before the limit, from the live report ----------------
sub rebuilt_from_log {
    my $limit = $opt{stopped};
    # The lab's items in order, with their points and titles ("./grader list" lines).
    my (@items, $lab);
    for my $line (split /\n/, (slurp($opt{list}) // '')) {
        if ($line =~ /^(lab\S+)\s/) { $lab = $1; next; }
        next unless defined $lab && $lab eq $opt{lab};
        if ($line =~ /^\s{4}(\w+)\s+([\d.]+)\s+(.*?)\s*$/) {
            my ($name, $points, $title) = ($1, $2, $3);
            my $gpu = $title =~ s/\s*\((gpu[^)]*)\)$// ? 1 : 0;
            # going further: graded when reached, never in a total (the grader's one policy)
            push @items, { name => $name, points => $points, title => $title, gpu => $gpu,
                           further => ($title =~ /going further/i ? 1 : 0) };
        }
    }
    # What the grader printed as each item ended.
    my (%done, $current, $backend);
    for my $line (split /\n/, (slurp($opt{log}) // '')) {
        if ($line =~ /^== (\S+) \((\w+) backend/) { $backend = $2 if $1 eq $opt{lab}; next; }
        if ($line =~ /^\s*(?:\[\d+\/\d+\] )?(PASS|FAIL|ERROR|SKIP)\s+(\S+)\s+(\w+): /) {
            my ($status, $score, $name) = ($1, $2, $3);
            my ($got, $max) = $score =~ m{^([\d.]+)/([\d.]+)$} ? ($1, $2) : (0, 0);
            $current = $done{$name} = { status => lc($status), points => $got + 0, max => $max + 0, feedback => '' };
            $current->{status} = 'skipped' if $status eq 'SKIP';
            next;
        }
        if (defined $current && $line =~ /^      (.*)$/) {
            $current->{feedback} .= ($current->{feedback} eq '' ? '' : "\n") . $1;
            next;
        }
        undef $current;
    }
    $backend //= 'cpu';
    my @results;
    for my $it (@items) {
        my $d = $done{$it->{name}};
        if (!$d) {
            # Not reached.  A GPU-only item would have been skipped off a GPU.
            $d = $it->{gpu} && $backend ne 'gpu'
                ? { status => 'skipped', points => 0, max => 0, feedback => 'runs on a GPU only (this run uses the cpu backend)' }
                : { status => 'not graded', points => 0, max => $it->{points} + 0, feedback => "not graded: time ran out (grading stopped after $limit s)" };
        }
        push @results, { %$it, %$d };
    }
    return \@results;
}

sub gradescope_test {
    my ($lab_number, $k, $r) = @_;
    my $t = { name => "$r->{name}: $r->{title}", number => "$lab_number.$k", output => $r->{feedback},
              output_format => 'text', tags => [$opt{lab}], visibility => $hidden{$r->{name}} ? 'after_published' : 'visible' };
    if ($r->{status} eq 'skipped' || ($r->{further} && $r->{status} eq 'not graded')) {
        $t->{name} .= ' (not graded here)';
        $t->{output} = "skipped: $r->{feedback}" unless $t->{output} =~ /^skipped: /;
    } elsif ($r->{further}) {
        $t->{status} = $r->{status} eq 'pass' ? 'passed' : 'failed';
        $t->{output} = "going further: $r->{points}/$r->{max}, not counted in the total\n$t->{output}";
    } else {
        $t->{score} = $r->{points};
        $t->{max_score} = $r->{max};
        $t->{status} = $r->{status} eq 'pass' ? 'passed' : 'failed';
    }
    return $t;
}

if (defined $opt{stopped}) {
    my $items = rebuilt_from_log();
    my ($points, $max) = (0, 0);
    for (grep { !$_->{further} } @$items) { $points += $_->{points}; $max += $_->{max}; }
    my $graded = grep { $_->{status} ne 'not graded' && $_->{status} ne 'skipped' } @$items;
    my $message = sprintf "Grading stopped at its time limit (%d s): the %d item(s) graded before it count; the others are not graded: "
        . "time ran out (a kernel or a loop that never ends, or code far too slow?).", $opt{stopped}, $graded;
    my ($lab_number) = $opt{lab} =~ /^lab(\d+)/;
    if ($platform eq 'gradescope') {
        my $k = 0;
        my @tests = map { gradescope_test($lab_number // 0, ++$k, $_) } @$items;
        write_out({ score => $points, execution_time => $opt{seconds} + 0, output => $message, output_format => 'text',
                    visibility => 'visible', stdout_visibility => 'hidden', tests => \@tests });
    } else {
        my @tests;
        my ($hp, $hm, $hn) = (0, 0, 0);
        for my $r (@$items) {
            next if $r->{status} eq 'skipped' && !$r->{max};
            next if $r->{further};   # reported apart by the grader, never in the score
            if ($hidden{$r->{name}}) { $hp += $r->{points}; $hm += $r->{max}; $hn++; next; }
            push @tests, { name => "$opt{lab}: $r->{name}", description => $r->{title}, points => $r->{points},
                           max_points => $r->{max}, message => ($r->{status} eq 'pass' ? '' : (split /\n/, $r->{feedback})[0] // ''),
                           output => $r->{feedback} };
        }
        push @tests, { name => "$opt{lab}: hidden tests", description => "$hn item(s) of the instructor's own",
                       points => $hp, max_points => $hm, message => '', output => '' } if $hn;
        my $report = join "\n", map { sprintf "  %-10s %s/%s  %s", uc($_->{status}), $_->{points}, $_->{max}, $_->{name} }
                                grep { !$hidden{$_->{name}} } @$items;
        write_out({ gradable => JSON::PP::true, score => $max > 0 ? $points / $max : 0, message => $message,
                    output => "$message\n\n$report", tests => \@tests });
    }
    exit 0;
}

# ---- the grader's own results, completed ------------------------------------------------------
my $r = eval { decode_json(slurp($opt{results}) // '') };
die "results.pl: no valid results in " . ($opt{results} // '(none)') . "\n" unless ref $r eq 'HASH' && ref $r->{tests} eq 'ARRAY';
if ($platform eq 'gradescope') {
    $r->{execution_time} //= $opt{seconds} + 0;
    $r->{output} = compiler_text($r->{output});
    my $sum = 0;
    for my $t (@{$r->{tests}}) {
        # "skipped: ..." with 0 of 0: Gradescope has passed and failed only; an
        # informational test (no score, no status) is neither.
        if (($t->{status} // '') eq 'passed' && !($t->{max_score} // 0) && ($t->{output} // '') =~ /^skipped: /) {
            delete @$t{qw(score max_score status)};
            $t->{name} .= ' (not graded here)';
        }
        $sum += $t->{score} // 0;
    }
    $r->{score} //= $sum + 0;
} else {
    $r->{message} = compiler_text($r->{message});
    if (exists $r->{gradable} && !$r->{gradable}) {
        $r->{format_errors} //= [grep { length } split /\n(?=\S)/, $r->{message} // 'not gradable'];
    }
    if (%hidden) {
        my @tests;
        my ($hp, $hm, $hn) = (0, 0, 0);
        for my $t (@{$r->{tests}}) {
            my ($item) = ($t->{name} // '') =~ /:\s*(\w+)$/;
            if (defined $item && $hidden{$item}) { $hp += $t->{points} // 0; $hm += $t->{max_points} // 0; $hn++; next; }
            push @tests, $t;
        }
        push @tests, { name => "$opt{lab}: hidden tests", description => "$hn item(s) of the instructor's own",
                       points => $hp, max_points => $hm, message => '', output => '' } if $hn;
        $r->{tests} = \@tests;
        $r->{output} = report_without_hidden($r->{output});
    }
}
write_out($r);
