#!/bin/sh
# make handouts: each handouts/*.md as one standalone HTML file (figures and
# style inside it), and as PDF where a PDF engine is installed.
#
#   tools/render-handout.sh --all OUT_DIR          every handout (make handouts: build/handouts)
#   tools/render-handout.sh handouts/lab3-folding.md OUT_DIR
#   tools/render-handout.sh --setup                install pandoc (as root) or print how
#
# Two conventions for what a handout shows, each an HTML comment on the line
# before a fenced block (invisible on GitHub and in the HTML):
#
#   <!-- from: labs/lab3-folding/fold.cu -->
#   ```c
#   ...lines copied from that file, unchanged and in one piece...
#   ```
#       an excerpt of a kit file; tests/check-handouts.sh fails when the file
#       no longer holds these lines, so excerpts never go stale.
#
#   <!-- output: lab3-folding 12 7 -->
#   ```
#   ...what the program printed...
#   ```
#       the output of the lab's reference program (`make lab3 SOLUTION=1
#       ARGS="12 7"`): the renderer runs it and puts the real output, round
#       pictures included, in the HTML.  Where it cannot (a student copy has
#       no solutions), the text stored in the Markdown is kept.
#
#   <!-- figure: lab3-rounds -->
#       a figure of the lab, drawn by the kit (make handout-figures:
#       tools/handout-figures.c, the report's drawing code, from a run of the
#       reference) as build/handouts/figures/lab3-rounds.svg: the renderer puts
#       the SVG itself in the page, in a <figure> with its caption, making the
#       figures first when one is missing.  Where it cannot (a student copy
#       has no solutions), a line says which figure is missing.
#
#   <!-- bench: lab4-tournament -->
#       the plot of the lab's rates that make bench draws on a GPU
#       (build/bench/lab4-tournament.png), where it has been made; else a line
#       saying how to make it.
#
#   <!-- items: LAB --> ... <!-- /items -->, <!-- value: NAME -->...<!-- /value -->
#       the lab's table of items and a constant, from the code:
#       tools/handout-facts.sh says how.
#
# pandoc comes from Debian's packages (apt-get install pandoc).  The PDF is
# made by pandoc with weasyprint, wkhtmltopdf or LaTeX where one is
# installed, else by headless chromium from the HTML page (figures and all);
# HANDOUT_PDF_ENGINE=chromium (or another) picks one.
set -u
cd "$(dirname "$0")/.." || exit 2
here=tools

setup() {
    command -v pandoc >/dev/null 2>&1 && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "make handouts needs pandoc. Install it with:" >&2
        echo "    sudo apt-get install -y pandoc" >&2
        return 1
    fi
    command -v apt-get >/dev/null 2>&1 || { echo "make handouts needs pandoc (no apt-get here: install it with your package manager)" >&2; return 1; }
    echo "Installing pandoc for the handouts" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=900 install -y -q pandoc >/dev/null 2>&1 \
        || { apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null 2>&1 && apt-get -o DPkg::Lock::Timeout=900 install -y -q pandoc >/dev/null; } \
        || { echo "apt-get could not install pandoc" >&2; return 1; }
}

# Fills every "output:" block of a handout with a real run of the reference
# program; prints the resulting Markdown.
fill_outputs() {
    perl -e '
        my ($md, $backend) = @ARGV;
        open my $in, "<", $md or die "$md: $!";
        my @lines = <$in>;
        my $i = 0;
        while ($i < @lines) {
            my $line = $lines[$i];
            print $line;
            $i++;
            next unless $line =~ /^<!--\s*output:\s*(\S+)\s*(.*?)\s*-->\s*$/;
            my ($lab, $args) = ($1, $2);
            next unless $i < @lines && $lines[$i] =~ /^(```+|~~~+)/;
            my $fence = $1;
            print $lines[$i++];
            my @stored;
            while ($i < @lines && $lines[$i] !~ /^\Q$fence\E\s*$/) { push @stored, $lines[$i++]; }
            my $program = "build/$backend/$lab/lab-solution";
            my $output;
            if (-d "solutions/$lab"
                && system("make -s --no-print-directory BACKEND=$backend $program >/dev/null 2>&1") == 0) {
                $output = `$program $args 2>&1`;
                $output = undef if $? != 0;
            }
            if (defined $output) {
                $output .= "\n" unless $output =~ /\n\z/;
                print $output;
            } else {
                print STDERR "render-handout: $md: kept the stored output of $lab $args (the reference program is not available here)\n";
                print @stored;
            }
        }' "$1" "$2"
}

figures=${HANDOUT_FIGURES:-build/handouts/figures}

# The figures the handouts name, made where one is missing (once a run).
make_figures() {
    for figure in $(sed -n 's/^<!--[[:space:]]*figure:[[:space:]]*\([A-Za-z0-9_-]*\)[[:space:]]*-->[[:space:]]*$/\1/p' "$@"); do
        [ -s "$figures/$figure.svg" ] && continue
        [ "$figures" = build/handouts/figures ] || return 0
        make -s --no-print-directory handout-figures >&2 || echo "render-handout: some figures were not made (make handout-figures says why)" >&2
        return 0
    done
}

# Puts each "figure:" marker's SVG, and each "bench:" marker's plot, in the
# Markdown; prints the result.  The SVG goes in as raw HTML with no blank
# line (pandoc keeps an HTML block whole up to the first blank line).
fill_figures() {
    perl -e '
        my ($md, $figures) = @ARGV;
        open my $in, "<", $md or die "$md: $!";
        while (my $line = <$in>) {
            print $line;
            if ($line =~ /^<!--\s*figure:\s*([A-Za-z0-9_-]+)\s*-->\s*$/) {
                my $name = $1;
                my $svg;
                if (open my $f, "<", "$figures/$name.svg") { local $/; $svg = <$f>; }
                if (defined $svg && $svg =~ /^<svg\b.*<\/svg>\s*$/s) {
                    $svg =~ s/\n\s*\n/\n/g;
                    my ($title) = $svg =~ m{<title>(.*?)</title>}s;
                    print "<figure class=\"handout-figure\" id=\"figure-$name\">\n$svg";
                    print "<figcaption>", $title // $name, "</figcaption>\n</figure>\n\n";
                } else {
                    print STDERR "render-handout: $md: figure $name is missing ($figures/$name.svg: make handout-figures)\n";
                    print "\n*(Figure $name goes here: `make handout-figures` draws it from the reference solution, which this copy of the kit does not have.)*\n\n";
                }
            } elsif ($line =~ /^<!--\s*bench:\s*([A-Za-z0-9_-]+)\s*-->\s*$/) {
                my $lab = $1;
                if (-s "build/bench/$lab.png") {
                    print "\n![The rates of $lab against the size, as make bench measured them](build/bench/$lab.png)\n\n";
                } else {
                    print "\n*(No speed plot here yet: `make bench` on a GPU draws this lab'"'"'s rates against the size, build/bench/$lab.png, and `make handouts` then shows it here.)*\n\n";
                }
            }
        }' "$1" "$figures"
}

# The PDF engine: pandoc's (weasyprint, wkhtmltopdf, LaTeX), else headless
# chromium printing the HTML page itself (which keeps the SVG figures
# inline, as LaTeX cannot); HANDOUT_PDF_ENGINE picks one (none: no PDF).
chromium_binary() { command -v chromium || command -v chromium-browser || true; }
pdf_engine() {
    if [ -n "${HANDOUT_PDF_ENGINE:-}" ]; then
        if [ "$HANDOUT_PDF_ENGINE" = chromium ]; then [ -n "$(chromium_binary)" ] && echo chromium
        else command -v "$HANDOUT_PDF_ENGINE" >/dev/null 2>&1 && echo "$HANDOUT_PDF_ENGINE"; fi
        return 0
    fi
    for e in weasyprint wkhtmltopdf xelatex pdflatex; do
        command -v "$e" >/dev/null 2>&1 && { echo "$e"; return 0; }
    done
    [ -n "$(chromium_binary)" ] && echo chromium
    return 0
}
# chromium_pdf HTML PDF: the page printed by headless chromium (no sandbox:
# as root its own cannot start; the page runs no script), no header or
# footer lines; a PDF that is not made, or not a PDF, is said and removed.
chromium_pdf() {
    rm -f "$2"
    timeout 180 "$(chromium_binary)" --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
        --print-to-pdf-no-header --print-to-pdf="$2" "file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" \
        > "$2.log" 2>&1
    if [ -s "$2" ] && head -c 5 "$2" | grep -q '^%PDF-'; then
        rm -f "$2.log"
    else
        rm -f "$2"
        echo "render-handout: $(basename "$2") not made (chromium failed; see $2.log)" >&2
    fi
}

render() {   # render MD OUT_DIR
    md=$1 out=$2
    name=$(basename "$md" .md)
    dir=$(dirname "$md")
    title=$(sed -n 's/^# //p' "$md" | head -n 1)
    backend=${BACKEND:-$(tools/detect-backend.sh)}
    mkdir -p "$out"
    # The tables of items and quoted constants, from the code (tools/handout-facts.sh)
    tools/handout-facts.sh "$md" > "$out/$name.facts.md" 2>/dev/null || cp "$md" "$out/$name.facts.md"
    fill_outputs "$out/$name.facts.md" "$backend" > "$out/$name.outputs.md" || return 1
    make_figures "$md"
    fill_figures "$out/$name.outputs.md" > "$out/$name.md" || return 1
    rm -f "$out/$name.facts.md" "$out/$name.outputs.md"
    # pandoc 2.19 renamed --self-contained to --embed-resources --standalone.
    if pandoc --help 2>/dev/null | grep -q -- '--embed-resources'; then
        embed="--embed-resources --standalone"
    else
        embed="--self-contained"
    fi
    pandoc -f gfm -t html5 $embed --resource-path="$dir:." --metadata pagetitle="${title:-$name}" \
        --css "$here/render-handout.css" -o "$out/$name.html" "$out/$name.md" || return 1
    # Links to another handout go to its HTML page.
    perl -pi -e 's{href="([A-Za-z0-9_.-]+)\.md(#[^"]*)?"}{-f "handouts/$1.md" ? "href=\"$1.html" . ($2 // "") . "\"" : $&}ge' "$out/$name.html"
    engine=$(pdf_engine)
    if [ "$engine" = chromium ]; then
        chromium_pdf "$out/$name.html" "$out/$name.pdf"
    elif [ -n "$engine" ]; then
        pandoc -f gfm --resource-path="$dir:." --metadata title="${title:-$name}" --pdf-engine="$engine" \
            -o "$out/$name.pdf" "$out/$name.md" 2>"$out/$name.pdf.log" \
            && rm -f "$out/$name.pdf.log" \
            || echo "render-handout: $name.pdf not made ($engine failed; see $out/$name.pdf.log)" >&2
    fi
    echo "  $out/$name.html$( [ -f "$out/$name.pdf" ] && echo " and .pdf")"
}

case "${1:-}" in
--setup) setup; exit $? ;;
--all)
    out=${2:-build/handouts}
    setup || exit 1
    set -- handouts/*.md
    [ -f "$1" ] || { echo "render-handout: no handouts/*.md yet" >&2; exit 0; }
    [ -n "$(pdf_engine)" ] || echo "render-handout: HTML only (for PDF too: sudo apt-get install -y chromium, or weasyprint)" >&2
    make_figures "$@"
    failed=0
    for md in "$@"; do
        render "$md" "$out" || { echo "render-handout: $md did not render" >&2; failed=1; }
    done
    exit $failed ;;
"") echo "usage: tools/render-handout.sh --all OUT_DIR | FILE.md OUT_DIR | --setup" >&2; exit 2 ;;
*)
    setup || exit 1
    render "$1" "${2:-build/handouts}" ;;
esac
