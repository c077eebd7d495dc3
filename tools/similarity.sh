#!/bin/sh
# Pairs of submissions of one lab that are much alike, with the lines they
# share, found by Debian's similarity-tester (sim_c: it compares C by its
# tokens, so renamed variables and moved blank lines do not hide a copy).
#
#   tools/similarity.sh LAB SUBMISSIONS_DIR [THRESHOLD]
#   make similarity LAB=lab3 SUBMISSIONS=dir [THRESHOLD=60]
#
# SUBMISSIONS_DIR is the folder batch grading reads (one subfolder per
# student).  Each submission's lab files (the .cu files of labs/LAB, found
# anywhere in its folder) are put end to end, and every line that is also a
# line of the skeleton is blanked first (line numbers kept): what all
# students were given is no evidence.  Lists each pair where one consists
# for THRESHOLD percent (default 60) or more of the other's material, most
# alike first, then the runs of lines they share.  A list is a reason to
# look, not a verdict.
set -u
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: tools/similarity.sh LAB SUBMISSIONS_DIR [THRESHOLD]" >&2; exit 2; }
lab_arg=$1
case "$2" in /*) submissions=$2 ;; *) submissions="$(pwd)/$2" ;; esac
threshold=${3:-60}
case $threshold in '' | *[!0-9]*) echo "similarity: THRESHOLD is a percentage, not '$threshold'" >&2; exit 2 ;; esac
[ -d "$submissions" ] || { echo "similarity: no folder $submissions" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
lab=$(sh tools/lab-folder.sh "$lab_arg")
[ -n "$lab" ] && [ -d "labs/$lab" ] || { echo "similarity: no lab '$lab_arg' in labs/" >&2; exit 2; }
if ! command -v sim_c >/dev/null 2>&1; then
    echo "similarity: needs sim_c, from Debian's similarity-tester: sudo apt-get install similarity-tester" >&2
    exit 2
fi
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

cat labs/$lab/*.cu > "$work/skeleton"
number=0
for sub in "$submissions"/* "$submissions"/.[!.]* "$submissions"/..?*; do
    [ -d "$sub" ] && [ ! -L "$sub" ] || continue
    number=$((number + 1))
    printf '%s' "${sub##*/}" > "$work/id.$number"
    : > "$work/all.$number"
    for file in labs/$lab/*.cu; do
        find "$sub" -name "${file##*/}" -type f 2>/dev/null | sort | head -n 1 | while IFS= read -r found; do
            cat "$found" >> "$work/all.$number"
        done
    done
    # the skeleton's lines blanked, the line numbers kept
    perl -e 'my %skeleton; open my $s, "<", $ARGV[0] or die; while (<$s>) { (my $k = $_) =~ s/\s+//g; $skeleton{$k} = 1 if $k ne "" }
             open my $f, "<", $ARGV[1] or die; while (<$f>) { (my $k = $_) =~ s/\s+//g; print exists $skeleton{$k} ? "\n" : $_ }' \
        "$work/skeleton" "$work/all.$number" > "$work/$number.cu"
done
[ "$number" -ge 2 ] || { echo "similarity: fewer than two submissions in $submissions"; exit 0; }

(cd "$work" && sim_c -p -s -e -t "$threshold" $(seq -f '%g.cu' 1 "$number")) > "$work/percent" 2>"$work/sim.err" \
    || { echo "similarity: sim_c failed:" >&2; sed 's/^/    /' "$work/sim.err" >&2; exit 2; }
# "A.cu consists for P % of B.cu material": one line per pair, the larger of its two percentages
perl -ne 'next unless /^(\d+)\.cu consists for (\d+) % of (\d+)\.cu material/; my ($x, $p, $y) = ($1, $2, $3);
          ($x, $y) = ($y, $x) if $x > $y; $max{"$x $y"} = $p if !defined $max{"$x $y"} || $p > $max{"$x $y"};
          END { print "$max{$_} $_\n" for sort { $max{$b} <=> $max{$a} || $a cmp $b } keys %max }' "$work/percent" > "$work/pairs"
id() { cat "$work/id.$1"; }
echo "similarity: $lab, $number submissions, pairs at $threshold % or more (the skeleton's lines left out)"
if [ ! -s "$work/pairs" ]; then
    echo "  none"
    exit 0
fi
while read -r percent a b; do
    printf '\n%3s %%  %s  <->  %s\n' "$percent" "$(id "$a")" "$(id "$b")"
done < "$work/pairs"
while read -r percent a b; do
    printf '\n==== %s %% : %s  <->  %s ====\n' "$percent" "$(id "$a")" "$(id "$b")"
    (cd "$work" && sim_c -r 6 -w 160 -T "$a.cu" "$b.cu") | sed -n '/^[0-9]*\.cu: line/,$p' \
        | sed "/^[[:space:]]*|[[:space:]]*\$/d; s/^$a\\.cu: line/first: line/; s/|$b\\.cu: line/|second: line/"
done < "$work/pairs"
