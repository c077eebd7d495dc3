#!/bin/sh
# The handouts: every one renders to standalone HTML (make handouts), every
# relative link and image it names exists, and every excerpt marked
# "<!-- from: FILE -->" is still, line for line, in FILE (and never from
# solutions/, since handouts go to students), and every table of items and
# quoted constant is the code's (tools/handout-facts.sh), every figure a
# handout names (<!-- figure: NAME -->) is made, well-formed SVG and in the
# rendered page, and every <!-- bench: LAB --> shows make bench's plot or
# says it is absent; where chromium is installed, one handout prints to a
# PDF that holds its figure's caption.  tools/render-handout.sh explains the
# conventions.
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

# ---- the figures (make handout-figures: tools/handout-figures.c) -------------------
# Every <!-- figure: NAME --> has build/handouts/figures/NAME.svg, made from
# the reference (so only where solutions/ exists), well-formed XML on its own
# (xmllint where present, else a shape check), with its title; the rendered
# pages below must hold it.
figure_names=$(sed -n 's/^<!--[[:space:]]*figure:[[:space:]]*\([A-Za-z0-9_-]*\)[[:space:]]*-->[[:space:]]*$/\1/p' "$@")
figures_made=no
if [ -z "$figure_names" ]; then
    not_ok "figures: no handout has a <!-- figure: NAME --> marker"
elif [ ! -d solutions ]; then
    ok "figures # SKIP no solutions/ (a student copy): the figures come from runs of the reference"
else
    rm -rf build/handouts/figures
    if nice make -s --no-print-directory handout-figures > "$work/figures.log" 2>&1; then
        ok "figures: make handout-figures made every figure ($(ls build/handouts/figures | wc -l) files)"
    else
        not_ok "figures: make handout-figures failed"
        sed 's/^/    /' "$work/figures.log" | tail -n 20
    fi
    figures_made=yes
    for name in $figure_names; do
        svg=build/handouts/figures/$name.svg
        if [ ! -s "$svg" ]; then
            not_ok "figure $name: a handout names it, but $svg was not made"
        elif command -v xmllint >/dev/null 2>&1 && ! xmllint --noout "$svg" > "$work/xmllint.log" 2>&1; then
            not_ok "figure $name: $svg is not well-formed XML: $(head -n 2 "$work/xmllint.log")"
        elif ! perl -e 'local $/; my $s = <STDIN>; exit !($s =~ m{\A<svg xmlns="http://www.w3.org/2000/svg"[^>]*><title>[^<]+</title>.*</svg>\s*\z}s && $s !~ /<script/i)' < "$svg"; then
            not_ok "figure $name: $svg is not one <svg> with a title (or holds a script)"
        else
            ok "figure $name: $svg is well-formed SVG$(command -v xmllint >/dev/null 2>&1 && echo ' (xmllint)') with its title"
        fi
    done
    # ... and the program says when a figure is not made: a name it does not know.
    if build/host/handout-figures "$work/unknown" build/cpu no-such-figure > "$work/unknown.log" 2>&1; then
        not_ok "figures: handout-figures exits 0 for a figure it does not know"
    elif grep -q '^not made no-such-figure: no such figure' "$work/unknown.log"; then
        ok "figures: handout-figures fails on a figure it does not know, and names it"
    else
        not_ok "figures: handout-figures fails on an unknown figure without naming it: $(head -n 2 "$work/unknown.log")"
    fi
fi

# ---- rendering ---------------------------------------------------------------------
if ! command -v pandoc >/dev/null 2>&1 && [ "$(id -u)" != 0 ]; then
    ok "render # SKIP pandoc is not installed and this is not root (sudo apt-get install -y pandoc)"
    finish
fi
tools/render-handout.sh --setup || { not_ok "render: pandoc could not be installed"; finish; }
for md in "$@"; do
    name=$(basename "$md" .md)
    html="$work/html/$name.html"
    HANDOUT_PDF_ENGINE=none tools/render-handout.sh "$md" "$work/html" > "$work/render.log" 2>&1  # (the PDF: below)
    rc=$?
    if [ "$rc" -ne 0 ] || [ ! -s "$html" ]; then
        not_ok "$md renders to HTML"
        sed 's/^/    /' "$work/render.log" | tail -n 20
    elif grep -q '<img[^>]*src="[^d"][^"]*"' "$html"; then
        not_ok "$md renders to standalone HTML (an image is not embedded: $(grep -o '<img[^>]*src="[^d"][^"]*"' "$html" | head -n 1))"
    else
        ok "$md renders to standalone HTML ($(wc -c < "$html") bytes)"
    fi
    # each of its figures is in the page, inline, with its own title
    for name in $(sed -n 's/^<!--[[:space:]]*figure:[[:space:]]*\([A-Za-z0-9_-]*\)[[:space:]]*-->[[:space:]]*$/\1/p' "$md"); do
        [ "$figures_made" = yes ] || continue
        svg=build/handouts/figures/$name.svg
        [ -s "$svg" ] || continue
        if perl -e 'local $/; open my $p, "<", $ARGV[0] or exit 1; my $page = <$p>; open my $f, "<", $ARGV[1] or exit 1;
                    my $svg = <$f>; my ($title) = $svg =~ m{<title>(.*?)</title>}s;
                    exit !($page =~ m{<figure class="handout-figure" id="figure-\Q$ARGV[2]\E">\s*<svg\b[^>]*>\s*<title>\Q$title\E</title>.*?</svg>\s*<figcaption>}s)' \
            "$html" "$svg" "$name"; then
            ok "$md: the page holds figure $name"
        else
            not_ok "$md: the page lacks figure $name, or holds it broken"
        fi
    done
    # each bench marker: the plot where make bench made one, else the line that says so
    for lab in $(sed -n 's/^<!--[[:space:]]*bench:[[:space:]]*\([A-Za-z0-9_-]*\)[[:space:]]*-->[[:space:]]*$/\1/p' "$md"); do
        if [ -s "build/bench/$lab.png" ]; then
            grep -q '<img[^>]*src="data:image/png' "$html" && ok "$md: make bench's plot of $lab is in the page" \
                || not_ok "$md: build/bench/$lab.png exists but is not in the page"
        else
            grep -q "No speed plot here yet" "$html" && ok "$md: no build/bench/$lab.png, and the page says so" \
                || not_ok "$md: no build/bench/$lab.png, and the page does not say so"
        fi
    done
done
# A marker whose figure is missing renders the line that says so, not a broken page.
if [ "$figures_made" = yes ]; then
    sed 's/<!-- figure: lab3-rounds -->/<!-- figure: lab3-no-such -->/' handouts/lab3-folding.md > "$work/edited/lab3-folding.md"
    HANDOUT_PDF_ENGINE=none tools/render-handout.sh "$work/edited/lab3-folding.md" "$work/edited-html" > "$work/render.log" 2>&1
    if grep -q 'figure lab3-no-such is missing' "$work/render.log" \
        && grep -q 'Figure lab3-no-such goes here' "$work/edited-html/lab3-folding.html" \
        && ! grep -q 'id="figure-lab3-no-such"' "$work/edited-html/lab3-folding.html"; then
        ok "render: a figure marker with no figure is named on stderr and in the page"
    else
        not_ok "render: a figure marker with no figure is not reported"
    fi
fi

# ---- PDF by headless chromium (tools/render-handout.sh's last engine) ----------------
# One handout with a figure printed by chromium from its HTML page: a PDF
# (%PDF-, pages), whose text holds the figure's caption (pdftotext); the same
# handout with its figure marker naming a missing figure makes a PDF without
# that caption, so the check tells a page that lost its figure.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    ok "PDF by chromium # SKIP chromium is not installed (tools/setup.sh browser)"
elif [ "$figures_made" != yes ] || [ ! -s build/handouts/figures/lab3-rounds.svg ]; then
    ok "PDF by chromium # SKIP no figures here (they come from runs of the reference)"
else
    caption=$(perl -0ne 'if (m{<title>(.*?)</title>}s) { my $t = $1; $t =~ s/&lt;/</g; $t =~ s/&gt;/>/g;
        $t =~ s/&#39;/\x27/g; $t =~ s/&quot;/"/g; $t =~ s/&amp;/&/g; print join " ", (split " ", $t)[0 .. 5] }' \
        build/handouts/figures/lab3-rounds.svg)
    # pdf_text PDF: its words on one line (pdftotext), or nothing
    pdf_text() { pdftotext -q "$1" - 2>/dev/null | tr -s ' \n\f' '   '; }
    # pdf_pages PDF: its pages (pdfinfo where present, else the page objects)
    pdf_pages() {
        if command -v pdfinfo >/dev/null 2>&1; then pdfinfo "$1" 2>/dev/null | sed -n 's/^Pages: *//p'
        else grep -a -c '/Type */Page[^s]' "$1"; fi
    }
    HANDOUT_PDF_ENGINE=chromium tools/render-handout.sh handouts/lab3-folding.md "$work/pdf" > "$work/pdf.log" 2>&1
    pdf=$work/pdf/lab3-folding.pdf
    pages=$( [ -s "$pdf" ] && pdf_pages "$pdf")
    if [ -s "$pdf" ] && head -c 5 "$pdf" | grep -q '^%PDF-' && [ "${pages:-0}" -ge 1 ]; then
        ok "PDF by chromium: handouts/lab3-folding.md prints to a PDF of $pages pages ($(wc -c < "$pdf") bytes)"
        if ! command -v pdftotext >/dev/null 2>&1; then
            ok "PDF by chromium holds the figure's caption # SKIP no pdftotext (tools/setup.sh browser installs poppler-utils)"
        else
            HANDOUT_PDF_ENGINE=chromium tools/render-handout.sh "$work/edited/lab3-folding.md" "$work/edited-pdf" \
                > "$work/pdf.log" 2>&1
            if pdf_text "$pdf" | grep -qF -- "$caption" \
                && [ -s "$work/edited-pdf/lab3-folding.pdf" ] && ! pdf_text "$work/edited-pdf/lab3-folding.pdf" | grep -qF -- "$caption"; then
                ok "PDF by chromium: its text holds figure lab3-rounds's caption ('$caption ...'), and a copy without the figure's does not"
            else
                not_ok "PDF by chromium: its text lacks figure lab3-rounds's caption ('$caption'), or the copy without the figure has it"
            fi
        fi
    else
        not_ok "PDF by chromium: handouts/lab3-folding.md prints to a PDF (pages: ${pages:-none}; $(tail -n 2 "$work/pdf.log"))"
    fi
fi

# ---- two handouts in a browser ----------------------------------------------------------
# The pages with the most figures, opened by chromium as a reader would:
# no console message, every figure drawn (an <svg> per figure in the DOM),
# and a screenshot kept in build/test-artifacts/handout-LAB.png.
if [ -z "$browser" ]; then
    ok "handouts in a browser # SKIP chromium is not installed (tools/setup.sh browser)"
elif [ "$figures_made" != yes ]; then
    ok "handouts in a browser # SKIP no figures here (they come from runs of the reference)"
else
    mkdir -p build/test-artifacts
    for lab in lab3-folding lab8-tiled-matmul; do
        HANDOUT_PDF_ENGINE=none tools/render-handout.sh handouts/$lab.md "$work/shown" > "$work/shown.log" 2>&1
        page=$work/shown/$lab.html shot=build/test-artifacts/handout-$lab.png
        wanted=$(grep -c '<!-- figure: ' handouts/$lab.md)
        rm -f "$shot"
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
            --dump-dom "file://$page" > "$work/$lab.dom" 2> "$work/$lab.console"
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --screenshot="$shot" --window-size=1000,2400 "file://$page" > /dev/null 2>&1
        drawn=$(grep -o '<svg' "$work/$lab.dom" | wc -l)
        console=$(grep -E 'CONSOLE|Refused to|Uncaught' "$work/$lab.console" | head -3)
        if [ "$wanted" -ge 1 ] && [ "$drawn" -ge "$wanted" ] && [ -z "$console" ] && [ -s "$shot" ]; then
            ok "chromium shows handouts/$lab.md with its $wanted figures drawn, no console message; screenshot $shot"
        else
            not_ok "chromium shows handouts/$lab.md (figures: $drawn of $wanted, console: ${console:-none}, screenshot: $(ls -s "$shot" 2>/dev/null))"
        fi
    done
fi
finish
