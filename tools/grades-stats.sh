#!/bin/sh
# A class's results for one lab, as a plain-text table: how many
# submissions lost points on each item (and their mean points), which item
# was most often the first one failed (items in the suite's order), and a
# histogram of the totals in tenths of the maximum.
#
#   tools/grades-stats.sh GRADES.jsonl
#   tools/grades-stats.sh --html GRADES.jsonl > stats.html
#   make grades-stats GRADES=grades/lab3.jsonl [FORMAT=html]
#
# --html: the same as one self-contained page in the style of the grader's
# report (common/grading/report.css, the one style sheet of both), with an
# SVG histogram of the totals and a bar per item of how many lost it.
#
# GRADES.jsonl: tools/batch-grade.sh's JSON lines.  Rows with no grade (not
# graded, no files, refused, did not compile) are counted apart: they lost
# no item, they were not graded on any.
set -u
html=""
[ "${1:-}" = --html ] && { html=1; shift; }
[ $# = 1 ] || { echo "usage: tools/grades-stats.sh [--html] GRADES.jsonl" >&2; exit 2; }
[ -r "$1" ] || { echo "grades-stats: cannot read $1" >&2; exit 2; }
css="$(dirname "$0")/../common/grading/report.css"
[ -z "$html" ] || [ -r "$css" ] || { echo "grades-stats: cannot read $css" >&2; exit 2; }
exec perl -MJSON::PP -e '
    use strict; use warnings;
    my ($html, $css_path) = splice(@ARGV, 1, 2);
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
    my @bins = (0) x 10;
    for my $r (@graded) {
        my $pct = $r->{max_points} ? 100 * $r->{points} / $r->{max_points} : 0;
        my $b = int($pct / 10); $b = 9 if $b > 9; $b = 0 if $b < 0;
        $bins[$b]++;
    }
    if ($html) { html_page(); exit 0 }
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
    for my $b (0 .. 9) {
        my $label = $b == 9 ? "90-100" : sprintf("%d-%d", 10 * $b, 10 * $b + 9);
        printf "  %6s  %-30s %d\n", $label, "#" x ($bins[$b] > 30 ? 30 : $bins[$b]), $bins[$b];
    }
    sub esc { my $s = shift // ""; $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; $s =~ s/"/&quot;/g; $s =~ s/\x27/&#39;/g; $s }
    sub bin_label { my $b = shift; $b == 9 ? "90-100" : sprintf("%d-%d", 10 * $b, 10 * $b + 9) }
    sub svg_open {
        my ($class, $w, $h, $title) = @_;
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"$class\" viewBox=\"0 0 $w $h\" width=\"$w\" height=\"$h\" "
             . "font-family=\"monospace\" font-size=\"12\" role=\"img\"><title>$title</title>\n";
    }
    # The histogram of totals: ten bars, tenths of the maximum.
    sub histogram_svg {
        my $top = 1; for (@bins) { $top = $_ if $_ > $top }
        my $svg = svg_open("histogram", 640, 260, "totals of the graded submissions, percent of the maximum");
        for my $b (0 .. 9) {
            my $h = 200 * $bins[$b] / $top; my $x = 20 + 60 * $b;
            $svg .= sprintf "<rect x=\"%d\" y=\"%.1f\" width=\"50\" height=\"%.1f\" fill=\"#4e79a7\"/>\n", $x, 220 - $h, $h;
            $svg .= sprintf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#222222\">%d</text>\n", $x + 25, 214 - $h, $bins[$b];
            $svg .= sprintf "<text x=\"%d\" y=\"240\" text-anchor=\"middle\" fill=\"#222222\">%s</text>\n", $x + 25, bin_label($b);
        }
        return $svg . "</svg>\n";
    }
    # One bar per item: how many of the graded lost points on it.
    sub items_svg {
        my $height = 20 + 24 * @order;
        my $svg = svg_open("items", 900, $height, "how many lost points on each item");
        my $y = 10;
        for my $name (@order) {
            my $s = $item{$name}; my $w = $s->{n} ? 500 * $s->{lost} / $s->{n} : 0;
            $svg .= sprintf "<text x=\"290\" y=\"%d\" text-anchor=\"end\" fill=\"#222222\">%s</text>\n", $y + 14, esc($name);
            $svg .= sprintf "<rect x=\"300\" y=\"%d\" width=\"500\" height=\"18\" fill=\"#eeeeee\"/>\n", $y;
            $svg .= sprintf "<rect x=\"300\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"#d62728\"/>\n", $y, $w;
            $svg .= sprintf "<text x=\"810\" y=\"%d\" fill=\"#222222\">%d of %d</text>\n", $y + 14, $s->{lost}, $s->{n};
            $y += 24;
        }
        return $svg . "</svg>\n";
    }
    sub html_page {
        open my $c, "<", $css_path or die "grades-stats: cannot read $css_path\n";
        my $css = do { local $/; <$c> };
        my $not = join(", ", map { "$_ $status{$_}" } grep { $_ ne "graded" && $_ ne "full_marks" } sort keys %status) || "none";
        print "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n",
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src \x27none\x27; style-src \x27unsafe-inline\x27\"/>\n",
              "<title>", esc($lab), ": class statistics</title>\n<style>\n$css</style>\n</head>\n<body>\n",
              "<h1>", esc($lab), ": class statistics</h1>\n",
              sprintf("<p class=\"total\">%d submissions, %d graded, %d with full marks</p>\n", scalar @rows, scalar @graded, $status{full_marks} // 0),
              "<p class=\"meta\">not graded: ", esc(@rows > @graded ? $not : "none"), "</p>\n";
        print "<h2>Items</h2>\n<table>\n<tr><th>item</th><th>max</th><th>lost by</th><th>mean</th><th>skipped</th><th>first failure of</th></tr>\n";
        for my $name (@order) {
            my $s = $item{$name};
            printf "<tr><td class=\"name\">%s</td><td class=\"number\">%s</td><td class=\"number\">%d of %d</td><td class=\"number\">%s</td><td class=\"number\">%s</td><td class=\"number\">%d</td></tr>\n",
                esc($name), esc($s->{max}), $s->{lost}, $s->{n}, $s->{n} ? sprintf("%.1f", $s->{sum} / $s->{n}) : "-", $s->{skipped} || "", $first{$name} // 0;
        }
        print "</table>\n<figure>\n", items_svg(), "<figcaption>how many graded submissions lost points on each item</figcaption>\n</figure>\n";
        print "<h2>Totals</h2>\n<figure>\n", histogram_svg(), "<figcaption>totals of the graded submissions, in tenths of the maximum (percent)</figcaption>\n</figure>\n";
        print "</body>\n</html>\n";
    }
' "$1" "$html" "$css"
