#!/bin/sh
# Adds the points of the GPU-only items, graded on a GPU machine, to a
# platform's grades (Gradescope, PrairieLearn and GitHub grade on CPUs).
#
#   tools/merge-grades.sh PLATFORM.csv GPU.csv [ID_COLUMN [POINTS_COLUMN]] > final.csv
#
# PLATFORM.csv: the platform's grade export (or a batch CSV), one row per
#   student with a header row; ID_COLUMN names the column that holds the
#   same id as the GPU run's submission folders (default "id"), and
#   POINTS_COLUMN the column of the points (default "points").
# GPU.csv: tools/batch-grade.sh's CSV from `make batch ... ONLY=gpu` on a
#   GPU machine, over the platform's export of the submissions.
# Writes id, platform_points, gpu_points, total, note: one row per student of
# either file; a student missing from one of them gets 0 there and a note.
set -u
[ $# -ge 2 ] && [ $# -le 4 ] || { echo "usage: tools/merge-grades.sh PLATFORM.csv GPU.csv [ID_COLUMN [POINTS_COLUMN]]" >&2; exit 2; }
for f in "$1" "$2"; do [ -r "$f" ] || { echo "merge-grades: cannot read $f" >&2; exit 2; }; done
CSV_CELL="$(cd "$(dirname "$0")" && pwd)/csv-cell.pl" exec perl -e '
    use strict; use warnings;
    my ($platform, $gpu, $id_col, $points_col) = @ARGV;
    # One CSV line into fields: commas inside double quotes stay, "" is a quote.
    sub fields { my ($line) = @_; $line =~ s/\r?\n\z//; my @f;
        while ($line =~ /\G(?:"((?:[^"]|"")*)"|([^,]*))(,|\z)/g) {
            my $v = defined $1 ? $1 : $2; $v =~ s/""/"/g; push @f, $v; last if $3 eq ""; }
        return @f; }
    sub table { my ($file, $id, $points) = @_;
        open my $in, "<", $file or die "merge-grades: cannot read $file\n";
        my @head = fields(scalar <$in> // "");
        my %at; @at{@head} = 0 .. $#head;
        for ($id, $points) { die "merge-grades: $file has no column \"$_\" (its columns: @head)\n" unless exists $at{$_} }
        my (%rows, @order);
        while (my $line = <$in>) { next unless $line =~ /\S/;
            my @f = fields($line); my $key = $f[$at{$id}] // ""; next if $key eq "";
            push @order, $key unless exists $rows{$key};
            $rows{$key} = { points => ($f[$at{$points}] // "") =~ /^-?[0-9.]+$/ ? $f[$at{$points}] : 0,
                            status => exists $at{status} ? $f[$at{status}] // "" : "" }; }
        return (\%rows, \@order); }
    my ($p, $p_order) = table($platform, $id_col, $points_col);
    my ($g, $g_order) = table($gpu, "id", "points");
    require "$ENV{CSV_CELL}"; # spreadsheet-safe cells
    print "id,platform_points,gpu_points,total,note\n";
    my %done;
    for my $id (@$p_order, @$g_order) {
        next if $done{$id}++;
        my $pp = $p->{$id} ? $p->{$id}{points} : 0;
        my $gp = $g->{$id} ? $g->{$id}{points} : 0;
        my $note = !$p->{$id} ? "not in the platform grades"
                 : !$g->{$id} ? "not in the GPU run"
                 : $g->{$id}{status} && $g->{$id}{status} !~ /^(graded|full_marks)$/ ? "GPU run: $g->{$id}{status}" : "";
        printf "%s,%s,%s,%s,%s\n", csv_cell($id), $pp + 0, $gp + 0, $pp + $gp, csv_cell($note);
    }
' "$1" "$2" "${3:-id}" "${4:-points}"
