#!/bin/sh
# Every name of the kit that its words mention exists (issue 28).  In the
# comments and strings of the C and CUDA sources (labs/, solutions/,
# common/, grading/, bench/: the grader's feedback is its strings) and in
# the Markdown (handouts/, docs/, README.md), it finds
#   - every kit_* and KIT_* name (kit_fill_* and KIT_EVENT_* as prefixes,
#     kit_cuda.cu and kit_hooks.h as files),
#   - every upper-case name written as a macro call, LAUNCH_COOPERATIVE(...),
#     and, in the handouts and README, every upper-case name alone in
#     backticks, `SNAPSHOT` (docs/ names environment variables so),
#   - every "kit.h part N" (or kit_internal.h's), whose header must have a
#     part N,
# and fails on any that the kit's code (the same sources less comments and
# strings, the cpu backend's CUDA headers, the Makefiles and the tools'
# scripts less comments) does not have.  A few
# seconds of perl.  Before that it runs itself on a planted file with four
# wrong names, which it must find.  And kit.h, the student's header, declares
# only names that labs/, solutions/ or the handouts use (the grader's and the
# runner's go in kit_internal.h).
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (source checks: run once, on the cpu pass)"; finish; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

# The checker: perl reads the file lists from the environment (NAMES_CODE:
# the kit's code; NAMES_TEXT: the text to check) and prints one line per
# name that the code lacks: "file:line: name (why)".
cat > "$work/names.pl" <<'PERL'
use strict;
use warnings;
my @code = split /\n/, $ENV{NAMES_CODE};
my @text = split /\n/, $ENV{NAMES_TEXT};

sub slurp { my ($f) = @_; open my $h, "<", $f or return ""; local $/; my $s = <$h>; return $s; }

# Splits a C or CUDA source into its code and its words (comments and
# string literals), each kept with its line numbers.
sub split_source {
    my ($src) = @_;
    my ($code, @words) = ("");
    my $line = 1;
    pos($src) = 0;
    while (pos($src) < length $src) {
        if ($src =~ m{\G(/\*.*?(?:\*/|\z))}gcs || $src =~ m{\G(//[^\n]*)}gc
            || $src =~ m{\G("(?:\\.|[^"\\\n])*"?)}gc) {
            push @words, [$line, $1];
            $line += ($1 =~ tr/\n//);
            $code .= "\n" x ($1 =~ tr/\n//);
        } elsif ($src =~ m{\G('(?:\\.|[^'\\\n])*'?)}gc || $src =~ m{\G([^/"']+)}gc || $src =~ m{\G(.)}gcs) {
            $code .= $1;
            $line += ($1 =~ tr/\n//);
        }
    }
    return ($code, \@words);
}

my (%exists, %macro, %file);
for my $f (@code) {
    (my $base = $f) =~ s{.*/}{};
    $file{$base} = 1;
    (my $stem = $base) =~ s/\.[^.]*$//;
    $file{"$stem.o"} = 1 if $base =~ /\.(c|cu|cpp)$/;
    my $code;
    if ($f =~ /\.(c|h|cu|cpp)$/ || $f =~ m{/include/}) { ($code) = split_source(slurp($f)); }
    else { ($code = slurp($f)) =~ s/(^|\s)#.*//mg; }   # Makefiles and scripts: their names, less comments
    $exists{$_} = 1 for $code =~ /\b([A-Za-z_]\w*)\b/g;
    $macro{$_} = 1 for $code =~ /^\s*#\s*define\s+(\w+)/mg;
}
my %parts;   # "kit.h" => {3 => 1}: the headers' numbered parts
for my $f (grep { m{/kit\w*\.h$} } @code) {
    (my $base = $f) =~ s{.*/}{};
    $parts{$base}{$_} = 1 for slurp($f) =~ m{/\*\s*-+\s*(\d+)\.}g;
}
my @exists = sort keys %exists;

# check_words(file, first line, words, markdown): prints each wrong name
# with the line it is on.
sub check_words {
    my ($file, $first, $words, $markdown) = @_;
    my @bad;
    my $at = sub { $first + (substr($words, 0, $_[0]) =~ tr/\n//) };
    while ($words =~ /\b((?:kit|KIT)_\w*)(\.[a-z]+\b|\*)?/g) {
        my ($name, $after, $line) = ($1, $2 // "", $at->($-[0]));
        if ($after =~ /^\.(h|c|cu|o|sh|pl|mk)$/) { push @bad, [$line, "$name$after (no such file in the kit)"] unless $file{"$name$after"}; }
        elsif ($after eq "*") { push @bad, [$line, "$name* (no name of the kit begins so)"] unless grep { index($_, $name) == 0 } @exists; }
        elsif (!$exists{$name}) { push @bad, [$line, "$name (no such name in the kit)"]; }
    }
    while ($words =~ /(?<![\w.])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})\(/g) {
        push @bad, [$at->($-[0]), "$1(...) (no such macro in the kit)"] unless $macro{$1} || $exists{$1};
    }
    if ($markdown && $file =~ m{^(handouts/|README)}) {
        while ($words =~ /`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)`/g) {
            push @bad, [$at->($-[0]), "`$1` (no such name in the kit)"] unless length($1) < 4 || $exists{$1} || $macro{$1};
        }
    }
    while ($words =~ /\b(kit\w*\.h),?\s+parts?\s+(\d+)/g) {
        push @bad, [$at->($-[0]), "$1 part $2 (that header has no part $2)"] unless $parts{$1} && $parts{$1}{$2};
    }
    print "$file:$_->[0]: $_->[1]\n" for @bad;
}

for my $f (@text) {
    my $s = slurp($f);
    if ($f =~ /\.md$/) {
        check_words($f, 1, $s, 1);
    } else {
        my (undef, $words) = split_source($s);
        check_words($f, $_->[0], $_->[1], 0) for @$words;
    }
}
PERL

sources() {
    find labs solutions common grading bench -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cpp' \) \
        -not -path 'common/cpu/include/*' | sort
}
code=$(sources; find common/cpu/include -type f | sort; ls Makefile mk/*.mk common/cpu/cpu.mk tools/*.sh 2>/dev/null)
text=$(sources; ls handouts/*.md docs/*.md README.md 2>/dev/null)

# ---- the checker finds wrong names: four planted in one file ---------------------
cat > "$work/planted.cu" <<'EOF'
/* times the kernel with kit_time_ms(), a name that was never the kit's */
static const char *feedback = "launch it with kit_record_cooperative_launch";
/* LAUNCH_COOP(k, grid, block, 0, args), and the tolerance of kit.h
   part 42 */
EOF
found=$(NAMES_CODE="$code" NAMES_TEXT="$work/planted.cu" perl "$work/names.pl")
count=$(printf '%s\n' "$found" | grep -c 'planted.cu')
if [ "$count" -eq 4 ]; then
    ok "the check finds the four wrong names planted in a file"
else
    not_ok "the check finds the four wrong names planted in a file (found $count)"
    printf '%s\n' "$found" | sed 's/^/    /'
fi

# ---- the kit itself -------------------------------------------------------------------
start=$(date +%s)
found=$(NAMES_CODE="$code" NAMES_TEXT="$text" perl "$work/names.pl")
seconds=$(( $(date +%s) - start ))
files=$(printf '%s\n' "$text" | wc -l)
if [ -z "$found" ]; then
    ok "every kit_/KIT_ name, macro and header part named in $files files exists (${seconds}s)"
else
    not_ok "names in comments, strings, handouts and docs that the kit does not have"
    printf '%s\n' "$found" | sed 's/^/    /'
fi

# ---- kit.h holds only what the labs use ------------------------------------------------
# Every kit_/KIT_ name that the student's header declares (its code, less
# comments; its own guards aside) is used in labs/, solutions/ or a handout.
unused_in() { # unused_in HEADER: the names HEADER declares that no lab, solution or handout uses
    perl -0777 -ne 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; my %n; $n{$1} = 1 while /\b((?:kit|KIT)_\w+)\b(?!\.)/g;
                   print "$_\n" for grep { !/^KIT_(H|HAS_CUDA)$/ } sort keys %n' "$1" |
    while read -r name; do
        grep -rqw -- "$name" labs solutions handouts || echo "$name"
    done
}
{ cat common/harness/kit.h; echo 'void kit_grader_only(void);'; } > "$work/kit.h"
planted=$(unused_in "$work/kit.h" | tr '\n' ' ')
[ "$planted" = "kit_grader_only " ] && ok "the check finds a name planted in a copy of kit.h that no lab uses" \
    || not_ok "the check finds a name planted in a copy of kit.h that no lab uses (found: ${planted:-nothing})"
unused=$(unused_in common/harness/kit.h | tr '\n' ' ')
declared=$(perl -0777 -ne 's{/\*.*?\*/}{}gs; my %n; $n{$1} = 1 while /\b(kit_\w+)\s*[(;]/g; print scalar(keys %n)' common/harness/kit.h)
[ -z "$unused" ] && ok "kit.h declares only what labs/, solutions/ or the handouts use ($declared names; $(wc -l < common/harness/kit.h) lines)" \
    || not_ok "kit.h declares names that no lab, solution or handout uses (move them to kit_internal.h): $unused"
finish
