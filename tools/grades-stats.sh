#!/bin/sh
# A class's results for one lab, as a plain-text table: how many
# submissions lost points on each item (and their mean points), which item
# was most often the first one failed (items in the suite's order), and a
# histogram of the totals in tenths of the maximum.
#
#   tools/grades-stats.sh GRADES.jsonl
#   make grades-stats GRADES=grades/lab3.jsonl
#
# GRADES.jsonl: tools/batch-grade.sh's JSON lines.  Rows with no grade (not
# graded, no files, refused, did not compile) are counted apart: they lost
# no item, they were not graded on any.
set -u
[ $# = 1 ] || { echo "usage: tools/grades-stats.sh GRADES.jsonl" >&2; exit 2; }
[ -r "$1" ] || { echo "grades-stats: cannot read $1" >&2; exit 2; }
exec perl -MJSON::PP -e '
    use strict; use warnings;
    my (@rows, %status);
    open my $in, "<", $ARGV[0] or die;
    while (my $line = <$in>) { next unless $line =~ /\S/; my $r = decode_json($line); push @rows, $r; $status{$r->{status}}++ }
    my @graded = grep { $_->{status} eq "graded" || $_->{status} eq "full_marks" } @rows;
    my (@order, %item);
    for my $r (@graded) {
        for my $i (@{$r->{items}}) {
            push @order, $i->{name} unless $item{$i->{name}};
            my $s = $item{$i->{name}} ||= { max => $i->{max_points}, lost => 0, sum => 0, n => 0, skipped => 0 };
            if ($i->{status} eq "skipped") { $s->{skipped}++; next }
            $s->{n}++; $s->{sum} += $i->{points};
            $s->{lost}++ if $i->{points} < $i->{max_points};
        }
    }
    my %first;
    for my $r (@graded) {
        my ($f) = grep { $_->{status} ne "skipped" && $_->{points} < $_->{max_points} } @{$r->{items}};
        $first{$f->{name}}++ if $f;
    }
    my $lab = @rows ? $rows[0]{lab} : "?";
    printf "%-14s %d\n", "submissions", scalar @rows;
    printf "%-14s %d\n", "graded", scalar @graded;
    printf "%-14s %d (%s)\n", "not graded", @rows - @graded,
        join(", ", map { "$_ $status{$_}" } grep { $_ ne "graded" && $_ ne "full_marks" } sort keys %status) || "none"
        if @rows > @graded;
    printf "%-14s %d\n\n", "full marks", $status{full_marks} // 0;
    my $w = 4; for (@order) { $w = length if length > $w }
    printf "%-${w}s  %5s  %-12s  %5s  %s\n", "item", "max", "lost by", "mean", "skipped";
    for my $name (@order) {
        my $s = $item{$name};
        printf "%-${w}s  %5s  %-12s  %5s  %s\n", $name, $s->{max}, "$s->{lost} of $s->{n}",
            $s->{n} ? sprintf("%.1f", $s->{sum} / $s->{n}) : "-", $s->{skipped} || "";
    }
    print "\n";
    my @by_count = sort { $first{$b} <=> $first{$a} || $a cmp $b } keys %first;
    if (@by_count) {
        printf "most common first failure: %s (%d of %d graded)\n", $by_count[0], $first{$by_count[0]}, scalar @graded;
        printf "  first failed %-${w}s %d\n", $_, $first{$_} for @by_count;
    } else {
        print "most common first failure: none (no graded submission lost points)\n";
    }
    print "\ntotals (percent of the maximum), graded submissions:\n";
    my @bins = (0) x 10;
    for my $r (@graded) {
        my $pct = $r->{max_points} ? 100 * $r->{points} / $r->{max_points} : 0;
        my $b = int($pct / 10); $b = 9 if $b > 9; $b = 0 if $b < 0;
        $bins[$b]++;
    }
    for my $b (0 .. 9) {
        my $label = $b == 9 ? "90-100" : sprintf("%d-%d", 10 * $b, 10 * $b + 9);
        printf "  %6s  %-30s %d\n", $label, "#" x ($bins[$b] > 30 ? 30 : $bins[$b]), $bins[$b];
    }
' "$1"
