#!/bin/sh
# The facts a handout quotes, filled from the code, where they are written once:
#
#   <!-- items: lab5-max-reduction -->
#   | item | points | TODO | what |
#   ...
#   <!-- /items -->
#       the lab's table of items, as `./grader list --markdown LAB` prints it
#       from the items' GRADE_ITEM declarations (grade.h);
#
#   ... c = <!-- value: DOT_TOLERANCE_C -->2000<!-- /value --> ...
#       a constant of the handout's lab: `#define NAME VALUE` or
#       `static const TYPE NAME = VALUE;` in labs/LAB/ or grading/LAB/ (one
#       value in all of them), a number without its C suffix (2000.0f: 2000).
#
#   tools/handout-facts.sh FILE.md         prints FILE.md with its facts filled
#   tools/handout-facts.sh --write FILE... fills them in place (after changing an item or a constant)
#   tools/handout-facts.sh --check FILE... "OK FILE" or "FAIL FILE: what differs" for each
#                                          (tests/check-handouts.sh); exit 1 on a difference
set -u
cd "$(dirname "$0")/.." || exit 2
mode=print
case "${1:-}" in --write|--check) mode=${1#--}; shift ;; esac
[ $# -ge 1 ] || { echo "usage: tools/handout-facts.sh [--write|--check] FILE.md..." >&2; exit 2; }
# The grader lists the items; build it once, quietly (./grader builds what it needs).
./grader list >/dev/null 2>&1 || { echo "handout-facts: ./grader does not build (./grader list)" >&2; exit 2; }
perl -e '
    my ($mode, @files) = @ARGV;
    my $failed = 0;
    sub value_of {
        my ($lab, $name) = @_;
        my %found;
        for my $file (glob("labs/$lab/*.h labs/$lab/*.cu grading/$lab/*.h grading/$lab/*.c")) {
            open my $h, "<", $file or next;
            while (<$h>) {
                $found{$1}{$file} = 1 if /^\s*#\s*define\s+\Q$name\E\s+\(?([-+0-9.eE]+[fFuUlL]*)\)?\s*(?:\/\*.*)?$/
                                      || /^\s*static\s+const\s+[\w ]+?\s+\Q$name\E\s*=\s*([-+0-9.eE]+[fFuUlL]*)\s*;/;
            }
        }
        my @values = keys %found;
        return (undef, "no #define or static const $name with a number in labs/$lab or grading/$lab") unless @values;
        my %shown = map { my $v = $_; $v =~ s/[fFuUlL]+$//; $v =~ s/^(-?\d+)\.0*$/$1/; ($v => 1) } @values;
        return (undef, "$name has several values: " . join(", ", sort keys %shown)) if keys %shown > 1;
        return ((keys %shown)[0], undef);
    }
    for my $md (@files) {
        (my $lab = $md) =~ s{^.*/|\.md$}{}g;
        open my $in, "<", $md or die "$md: $!";
        my @lines = <$in>;
        close $in;
        my (@out, @problems);
        for (my $i = 0; $i < @lines; $i++) {
            my $line = $lines[$i];
            $line =~ s{(<!--\s*value:\s*(\w+)\s*-->)(.*?)(<!--\s*/value\s*-->)}{
                my ($open, $name, $stored, $close) = ($1, $2, $3, $4);
                my ($value, $why) = value_of($lab, $name);
                if (!defined $value) { push @problems, "line " . ($i + 1) . ": $why"; $open . $stored . $close }
                else {
                    push @problems, "line " . ($i + 1) . ": $name is $value in the code, $stored here" if $stored ne $value;
                    $open . $value . $close;
                }
            }ge;
            push @out, $line;
            next unless $line =~ /^<!--\s*items:\s*(\S+)\s*-->\s*$/;
            my $items_lab = $1;
            my @stored;
            $i++;
            while ($i < @lines && $lines[$i] !~ /^<!--\s*\/items\s*-->/) { push @stored, $lines[$i++]; }
            if ($i >= @lines) { push @problems, "<!-- items: $items_lab --> has no <!-- /items -->"; push @out, @stored; last; }
            my @table = `./grader list --markdown $items_lab 2>&1`;
            if ($?) { push @problems, "./grader list --markdown $items_lab: @table"; @table = @stored; }
            for my $k (0 .. (@table > @stored ? $#table : $#stored)) {
                my ($want, $have) = ($table[$k] // "(nothing)\n", $stored[$k] // "(nothing)\n");
                next if $want eq $have;
                chomp($want, $have);
                push @problems, "the table of items differs from the code in its line " . ($k + 1) . ": the code says \"$want\", the handout \"$have\"";
                last;
            }
            push @out, @table, $lines[$i];
        }
        if ($mode eq "print") { print @out; }
        elsif ($mode eq "write") { if (@problems) { open my $o, ">", $md or die; print $o @out; print "filled $md\n"; } }
        else {
            if (@problems) { print "FAIL $md: " . join("; ", @problems) . "\n"; $failed = 1; }
            else { print "OK $md: its tables of items and quoted constants match the code\n"; }
        }
    }
    exit $failed;' "$mode" "$@"
