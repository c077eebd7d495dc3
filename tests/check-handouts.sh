#!/bin/sh
# The handouts: every one renders to standalone HTML (make handouts), every
# relative link and image it names exists, and every excerpt marked
# "<!-- from: FILE -->" is still, line for line, in FILE (and never from
# solutions/, since handouts go to students), and every table of items and
# quoted constant is the code's (tools/handout-facts.sh).  tools/render-handout.sh
# explains the conventions.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

set -- handouts/*.md
if [ ! -f "$1" ]; then
    ok "handouts # SKIP no handouts/*.md yet"
    finish
fi

# ---- links, images, excerpts, output blocks (no tools needed) ---------------------
perl -e '
    for my $md (@ARGV) {
        open my $h, "<", $md or die;
        my @lines = <$h>;
        (my $dir = $md) =~ s{/[^/]*$}{};
        my (@bad_links, @bad_excerpts, $n_links, $n_excerpts);
        my $in_code = 0;
        for (my $i = 0; $i < @lines; $i++) {
            my $line = $lines[$i];
            if ($line =~ /^\s*(```|~~~)/) { $in_code = !$in_code; }
            if (!$in_code) {
                my @targets = ($line =~ /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, $line =~ /<img[^>]*\bsrc="([^"]+)"/g);
                for my $t (@targets) {
                    next if $t =~ m{^(https?:|mailto:|#|data:)};
                    (my $path = $t) =~ s/#.*//;
                    $n_links++;
                    push @bad_links, $t unless -e "$dir/$path";
                }
            }
            if ($line =~ /^<!--\s*from:\s*(\S+)\s*-->\s*$/) {
                my $file = $1;
                $n_excerpts++;
                my $fence = ($lines[$i + 1] // "") =~ /^(```+|~~~+)/ ? $1 : undef;
                if (!defined $fence) { push @bad_excerpts, "$file (no fenced block on the next line)"; next; }
                my @excerpt;
                my $j = $i + 2;
                while ($j < @lines && $lines[$j] !~ /^\Q$fence\E\s*$/) { push @excerpt, $lines[$j++]; }
                if ($file =~ m{^solutions/}) { push @bad_excerpts, "$file (solution code must not be shown to students)"; next; }
                open my $src, "<", $file or do { push @bad_excerpts, "$file (no such file)"; next; };
                my @text = <$src>;
                s/\s+$// for @excerpt, @text;
                my $found = 0;
                for my $start (0 .. @text - @excerpt) {
                    my $k = 0;
                    $k++ while $k < @excerpt && $text[$start + $k] eq $excerpt[$k];
                    if ($k == @excerpt) { $found = 1; last; }
                }
                push @bad_excerpts, "$file (line " . ($i + 1) . ": these " . scalar(@excerpt) . " lines are no longer in it)" unless $found && @excerpt;
            }
            if ($line =~ /^<!--\s*output:\s*(\S+)/) {
                my $lab = $1;
                $n_excerpts++;
                push @bad_excerpts, "output of $lab (no labs/$lab)" unless -d "labs/$lab";
            }
        }
        print @bad_links ? "FAIL $md: broken links: @bad_links\n" : "OK $md: its " . ($n_links // 0) . " links and images resolve\n";
        print @bad_excerpts ? "FAIL $md: excerpts: " . join("; ", @bad_excerpts) . "\n"
                            : "OK $md: its " . ($n_excerpts // 0) . " marked excerpts match their files\n";
    }' "$@" > "$work/static" 2>&1
while IFS= read -r line; do
    case "$line" in
    OK\ *) ok "${line#OK }" ;;
    *) not_ok "${line#FAIL }" ;;
    esac
done < "$work/static"

# ---- the facts a handout quotes, from the code (tools/handout-facts.sh) ------------
tools/handout-facts.sh --check "$@" > "$work/facts" 2>&1
while IFS= read -r line; do
    case "$line" in
    OK\ *) ok "${line#OK }" ;;
    *) not_ok "${line#FAIL }" ;;
    esac
done < "$work/facts"
# ... and the check sees a hand-edited row of a table of items, and a quoted
# constant that is no longer the code's.
mkdir -p "$work/edited"
# edited_fails HANDOUT EDIT MADE FAILS WHAT: HANDOUT changed by the perl EDIT
# (MADE: a pattern the changed copy holds) must fail the check with FAILS
edited_fails() {
    copy="$work/edited/$(basename "$1")"
    perl -pe "$2" "$1" > "$copy"
    if ! grep -q -- "$3" "$copy"; then
        not_ok "handout-facts: the edited copy of $1 could not be made"
    elif tools/handout-facts.sh --check "$copy" | grep -q -- "$4"; then
        ok "handout-facts: $5 fails the check"
    else
        not_ok "handout-facts: $5 passes the check"
    fi
}
edited_fails handouts/lab5-max-reduction.md 's/^(\| `block_max_negative` \| )8 /${1}9 /' '^| `block_max_negative` | 9 ' \
    '^FAIL .*table of items differs' "a hand-edited row of a table of items"
edited_fails handouts/lab6-shared-dot.md 's{(<!-- value: DOT_TOLERANCE_C -->)2000(<!-- /value -->)}{${1}1000$2}' \
    'DOT_TOLERANCE_C -->1000<' '^FAIL .*DOT_TOLERANCE_C is 2000 in the code, 1000 here' \
    "a quoted constant that differs from the code"

# ---- rendering ---------------------------------------------------------------------
if ! command -v pandoc >/dev/null 2>&1 && [ "$(id -u)" != 0 ]; then
    ok "render # SKIP pandoc is not installed and this is not root (sudo apt-get install -y pandoc)"
    finish
fi
tools/render-handout.sh --setup || { not_ok "render: pandoc could not be installed"; finish; }
for md in "$@"; do
    name=$(basename "$md" .md)
    html="$work/html/$name.html"
    tools/render-handout.sh "$md" "$work/html" > "$work/render.log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] || [ ! -s "$html" ]; then
        not_ok "$md renders to HTML"
        sed 's/^/    /' "$work/render.log" | tail -n 20
    elif grep -q '<img[^>]*src="[^d"][^"]*"' "$html"; then
        not_ok "$md renders to standalone HTML (an image is not embedded: $(grep -o '<img[^>]*src="[^d"][^"]*"' "$html" | head -n 1))"
    else
        ok "$md renders to standalone HTML ($(wc -c < "$html") bytes)"
    fi
done
finish
