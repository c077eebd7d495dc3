#!/usr/bin/perl
# batch-tables.pl: the two tables of a batch (OUT.csv and OUT.jsonl) from
# its work folder, for both engines of tools/batch-grade.sh (local and
# slurm), so that they write the same rows, in the same order.
#
#   perl tools/batch-tables.pl WORK OUT LAB SEED BACKEND TIMEOUT SUBMISSIONS
#
# WORK holds list (the submissions' numbers), ids/N (each one's id),
# N.rc (the grader's exit status), N.json (its result), and, from the
# slurm engine only, N.scratch (the node's scratch folder the grader read
# the copy from) and stopped/N (why the cluster stopped its task, after
# its retry: the row is then "not graded", never 0 points).
# Run from the kit's root (it requires tools/csv-cell.pl).
use strict;
use warnings;
use JSON::PP;
use Encode;
my ($work, $out, $lab, $seed, $backend, $timeout, $submissions) = @ARGV;
my (@rows, @item_names, %seen_item, $max_seen);
open my $list, "<", "$work/list" or die;
while (my $line = <$list>) {
    chomp $line;
    my $number = $line;
    my $id = do { local $/; open my $f, "<", "$work/ids/$number" or die; <$f> };
    $id = Encode::decode("UTF-8", $id);  # the folder name as it is (invalid bytes become U+FFFD)
    my $dir = "$submissions/$id";
    my $stopped = -e "$work/stopped/$number" ? do { local $/; open my $f, "<", "$work/stopped/$number" or die; <$f> } : undef;
    if (defined $stopped && !-e "$work/$number.rc") {
        # the cluster killed its task twice: no grade, and no points either
        chomp $stopped;
        push @rows, { id => $id, lab => $lab, backend => $backend, seed => $seed + 0, exit_code => undef,
                      status => "not_graded", points => undef, max_points => undef, items => [],
                      build_errors => "not graded: the cluster stopped it ($stopped)", log => "$out.logs/$number.log" };
        next;
    }
    my $rc = do { local @ARGV = ("$work/$number.rc"); my $v = <>; defined $v ? $v + 0 : 255 };
    # The submission was copied to a scratch folder: name its files alone.
    my $scratch = "$work/src/$number/";
    if (open my $f, "<", "$work/$number.scratch") { local $/; $scratch = <$f>; chomp $scratch; }
    my $log = do { local $/; open my $f, "<", "$out.logs/$number.log"; <$f> // "" };
    $log = Encode::decode("UTF-8", $log);  # any bytes: invalid ones become U+FFFD
    $log =~ s/[\x00-\x08\x0b-\x1f\x7f-\x9f]/?/g;
    $log =~ s/\Q$scratch\E//g;
    my $result;
    if (open my $f, "<", "$work/$number.json") {
        local $/; my $text = <$f>;
        $text =~ s/\Q$scratch\E//g;
        $result = eval { decode_json($text) };
    }
    my $row = { id => $id, lab => $lab, backend => $backend, seed => $seed + 0, exit_code => $rc,
                points => 0, max_points => undef, items => [], build_errors => "",
                log => "$out.logs/$number.log" };
    my $graded = $result && $result->{labs} && @{$result->{labs}} ? $result->{labs}[0] : undef;
    if ($graded) {
        $row->{points} = $result->{points} + 0;
        $row->{max_points} = $result->{max_points} + 0;
        for my $item (@{$graded->{items} || []}) {
            push @{$row->{items}}, { map { $_ => $item->{$_} } qw(name status points max_points feedback) };
            push @item_names, $item->{name} unless $seen_item{$item->{name}}++;
        }
        $max_seen = $row->{max_points} if !defined $max_seen || $row->{max_points} > $max_seen;
    }
    $rc = 3 if $rc == 2 && $log =~ /holds no file of/;
    $row->{status} =
          $rc == 3   ? "no_files"
        : $rc == 5 || $rc == 6 ? "refused"
        : $rc == 124 || $rc == 137 ? "timeout"
        : $rc == 2   ? "not_gradable"
        : $rc == 0 && $graded ? "full_marks"
        : $rc == 1 && $graded ? "graded"
        : "grader_error";
    $row->{status} = "timeout" if $rc == 124 || $rc == 137;
    if ($row->{status} ne "full_marks" && $row->{status} ne "graded") {
        # Why it could not be graded: the compiler errors, else the last lines.
        my @lines = grep { /\berror\b|undefined reference|No rule to make|refused|two copies|symbolic link/i && !/^\s*[A-Z]+\s+[\d.]+\/[\d.]+\s/ } split /\n/, $log;
        s/^\s+// for @lines;
        @lines = (split /\n/, $log)[-5 .. -1] unless @lines;
        @lines = grep { defined } @lines;
        $row->{build_errors} = join "\n", @lines[0 .. ($#lines < 19 ? $#lines : 19)];
        $row->{build_errors} = "no time left: stopped after $timeout s\n" . $row->{build_errors}
            if $row->{status} eq "timeout";
        $row->{build_errors} = "none of the lab's files were found in $dir" if $row->{status} eq "no_files";
        $row->{build_errors} = "not a folder but a symbolic link: not graded" if $rc == 5;
        $row->{build_errors} = "could not be copied: " . $row->{build_errors} if $rc == 6;
    }
    push @rows, $row;
}
for my $row (@rows) { $row->{max_points} //= $max_seen; }
@rows = sort { $a->{id} cmp $b->{id} } @rows;

my $json = JSON::PP->new->utf8->canonical;
open my $jl, ">", "$out.jsonl" or die "$out.jsonl: $!";
print $jl $json->encode($_), "\n" for @rows;

require "./tools/csv-cell.pl"; # spreadsheet-safe cells
open my $csv, ">:encoding(UTF-8)", "$out.csv" or die "$out.csv: $!";
print $csv join(",", map { csv_cell($_) } qw(id status points max_points exit_code seed), @item_names, "build_errors"), "\n";
for my $row (@rows) {
    my %by_name = map { $_->{name} => $_ } @{$row->{items}};
    my @cells = map { my $i = $by_name{$_}; !$i ? "" : $i->{status} eq "skipped" ? "skipped" : $i->{points} } @item_names;
    (my $errors = $row->{build_errors}) =~ s/\n/ | /g;
    print $csv join(",", map { csv_cell($_) } $row->{id}, $row->{status}, $row->{points} // "", $row->{max_points} // "",
                    $row->{exit_code} // "", $row->{seed}, @cells, $errors), "\n";
}
printf "  %-24s %-14s %s\n", $_->{id}, $_->{status}, defined $_->{max_points} ? ($_->{points} // "-") . "/$_->{max_points}" : "-" for @rows;
