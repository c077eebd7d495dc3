#!/bin/sh
# A batch's grades as the gradebook CSV a learning platform imports.
#
#   tools/grades-export.sh canvas GRADES.csv "ASSIGNMENT (ID)" [CANVAS_EXPORT.csv] > canvas.csv
#   tools/grades-export.sh moodle GRADES.csv "GRADE ITEM" > moodle.csv
#   make grades-export LMS=canvas GRADES=grades/lab3.csv ASSIGNMENT="Lab 3 (1234)" [ROSTER=export.csv]
#
# GRADES.csv: tools/batch-grade.sh's CSV (its id and points columns).
#
# canvas: Canvas's gradebook import reads the columns Student, ID, SIS User
#   ID, SIS Login ID and Section, then one column per assignment named
#   "Assignment name (assignment id)" (as in the gradebook's own export); it
#   finds the student by ID, SIS User ID or SIS Login ID.  With
#   CANVAS_EXPORT.csv (the course's gradebook export) each of its students
#   gets the grade whose batch id is in its column CANVAS_MATCH (default "SIS
#   Login ID"), with the export's own Student, ID, SIS ... columns.  Without
#   it, the batch id goes into the column CANVAS_MATCH and the Student column.
# moodle: Moodle's "Import grades: CSV file" maps one column to the user (by
#   ID number, username or email: name it with MOODLE_ID, default "ID
#   number", and pick the same field at "Map to") and a column to the grade
#   item (named here GRADE ITEM).
#
# A submission with no grade (not graded: the cluster stopped it, no files,
# refused) gets an empty cell, which both platforms leave as it was, never 0;
# each is named on stderr.
set -u
usage() { echo "usage: tools/grades-export.sh canvas|moodle GRADES.csv ASSIGNMENT [CANVAS_EXPORT.csv]" >&2; exit 2; }
[ $# -ge 3 ] && [ $# -le 4 ] || usage
case $1 in canvas | moodle) ;; *) usage ;; esac
[ $# = 4 ] && [ "$1" != canvas ] && usage
for f in "$2" ${4:+"$4"}; do [ -r "$f" ] || { echo "grades-export: cannot read $f" >&2; exit 2; }; done
CSV_CELL="$(cd "$(dirname "$0")" && pwd)/csv-cell.pl" exec perl -e '
    use strict; use warnings;
    my ($lms, $grades, $assignment, $roster) = @ARGV;
    require $ENV{CSV_CELL};
    # one CSV record (quoted cells may hold commas, quotes and line breaks)
    sub record { my ($in) = @_; my $line = <$in>; return unless defined $line;
        while (($line =~ tr/"//) % 2) { my $more = <$in>; last unless defined $more; $line .= $more }
        $line =~ s/\r?\n\z//; my @f;
        while ($line =~ /\G(?:"((?:[^"]|"")*)"|([^,]*))(,|\z)/gs) {
            my $v = defined $1 ? $1 : $2; $v =~ s/""/"/g; push @f, $v; last if $3 eq ""; }
        return \@f; }
    sub table { my ($file) = @_;
        open my $in, "<:encoding(UTF-8)", $file or die "grades-export: cannot read $file\n";
        my $head = record($in) or die "grades-export: $file is empty\n";
        $head->[0] =~ s/^\x{feff}//;
        my @rows; while (my $r = record($in)) { next unless grep { $_ ne "" } @$r; my %row; @row{@$head} = @$r; push @rows, \%row }
        return ($head, \@rows); }
    # a cell as the platform should read it (csv_cell quotes what a
    # spreadsheet would run; an id was quoted that way in GRADES.csv)
    sub plain { my $v = shift // ""; $v =~ s/^\x27(?=[=+\-@\t\r])//; return $v }
    my ($head, $rows) = table($grades);
    for my $c (qw(id points)) { die "grades-export: $grades has no column $c\n" unless grep { $_ eq $c } @$head }
    my %points;
    for my $r (@$rows) {
        my $id = plain($r->{id});
        if (($r->{points} // "") =~ /^-?[0-9.]+$/ && ($r->{status} // "") !~ /^(not_graded|no_files|refused)$/) {
            $points{$id} = $r->{points};
        } else {
            $points{$id} = "";
            print STDERR "grades-export: $id: no grade (", ($r->{status} // "?"), "), left empty\n";
        }
    }
    binmode STDOUT, ":encoding(UTF-8)";
    sub line { print join(",", map { csv_cell($_) } @_), "\n" }
    if ($lms eq "moodle") {
        line($ENV{MOODLE_ID} || "ID number", $assignment);
        line($_, $points{$_}) for sort keys %points;
        exit 0;
    }
    my $match = $ENV{CANVAS_MATCH} || "SIS Login ID";
    my @columns = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section");
    die "grades-export: CANVAS_MATCH is one of @columns[1..3], not \"$match\"\n" unless grep { $_ eq $match } @columns[1 .. 3];
    line(@columns, $assignment);
    if (!$roster) {
        for my $id (sort keys %points) { my %row = (Student => $id, $match => $id); line((map { $row{$_} // "" } @columns), $points{$id}) }
        exit 0;
    }
    my ($roster_head, $students) = table($roster);
    die "grades-export: $roster has no column \"$match\" (CANVAS_MATCH)\n" unless grep { $_ eq $match } @$roster_head;
    my %seen;
    for my $s (@$students) {
        next if ($s->{Student} // "") =~ /^\s*Points Possible\s*$/;   # the second line of the export
        my $key = $s->{$match} // "";
        next if $key eq "";
        $seen{$key} = 1;
        line((map { $s->{$_} // "" } @columns), exists $points{$key} ? $points{$key} : "");
        print STDERR "grades-export: $key ($s->{Student}): no submission in $grades\n" unless exists $points{$key};
    }
    print STDERR "grades-export: $_: not a student of $roster, left out\n" for grep { !$seen{$_} } sort keys %points;
' "$1" "$2" "$3" "${4:-}"
