#!/bin/sh
# The grader's HTML report (build/report/labN.html, --format=html): for one
# known-bad version of each lab (grading/<lab>/mutants) and for its
# solution, graded on the item that version loses, the page is written,
# is well-formed (the page as XML: it is written so; each SVG figure on its
# own), has the item's figure where the lab draws one, and marks the
# failing element, and the figures beside it (a block's tree in labs 6-7,
# the tail of a float4 read in lab 7) mark theirs; lab 8's occupancy items
# draw a table with the wrong value marked; the solution's page passes the
# item and has no figure.  A submission that
# prints markup and invalid UTF-8 gets an escaped page with no script.
# Where Debian's chromium is installed, a report with each kind of figure
# (browser_cases) is rendered in it (loaded, the items in its DOM, no
# console message) and its screenshot kept in
# build/test-artifacts/report-LAB-KIND.png.  Last, tools/grades-stats.sh --html on a
# small fixture is well-formed and draws its histogram.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
tools/setup.sh browser >/dev/null 2>&1 || :   # chromium and xmllint where missing (as root, with apt-get)
cpu_pass_only
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
artifacts=build/test-artifacts
mkdir -p "$artifacts"

# well_formed PAGE: the page, and each <svg> in it alone, parse as XML; no <script> anywhere.
well_formed() {
    command -v xmllint >/dev/null 2>&1 && { xmllint --noout "$1" 2>&1 | head -3 | grep . && return 1; }
    perl -e '
        local $/; open my $f, "<", $ARGV[0] or die "no page\n"; my $page = <$f>;
        $page =~ /<script/i and die "a <script> in the page\n";
        $page =~ /^<!DOCTYPE html>/ or die "no doctype\n";
        $page =~ m{</html>\s*$} or die "not whole\n";
        my $i = 0;
        while ($page =~ m{(<svg\b.*?</svg>)}gs) {
            open my $o, ">", "$ARGV[1].svg$i" or die; print $o $1; close $o; $i++;
        }' "$1" "$work/part" || return 1
    for svg in "$work"/part.svg*; do
        [ -f "$svg" ] || continue
        if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$svg" 2>&1 | head -3 | grep . && return 1; fi
        rm -f "$svg"
    done
    return 0
}

# lab mutant item figure beside: the mutant loses `item`, the report draws
# `figure` ("-" for a lab that draws none) with its failing element marked,
# and beside it the figure `beside` ("-": none), its failing element marked
# too (figure.h: a tree, a float4 tail); the solution's report passes the
# item.  A mutant a+b is patch a, then b: lab 6's own check stops a call
# whose partials are wrong before they reach the grader, so its figure needs
# that check gone too (partials-not-checked).
cases="
lab1-hello missing-bound-check global_index_bounds grid -
lab2-vector-mult no-bound-check products_exact - -
lab3-folding first-fold-at-half-n fold_invariant rounds -
lab4-tournament naive-multiples-of-d naive_invariant rounds -
lab5-max-reduction pair-zero-identity tmax_invariant rounds -
lab6-shared-dot contiguous-chunks+partials-not-checked partials_invariant partials tree
lab7-coop-groups shuffle-up-not-down tile_shuffle_exact partials tree
lab7-coop-groups float4-drops-tail vector_tail partials tail
lab7-coop-groups float4-reads-past-end vector_tail partials tail
lab8-tiled-matmul transposed-tile-index tiled_exact matrix -
lab8-tiled-matmul occupancy-ignores-registers occupancy table -
lab8-tiled-matmul occupancy-counts-threads occupancy_formula table -
lab9-many-gpus ring-chunk-off-by-one ring_steps rounds -
"
# The reports a browser renders below (where chromium is installed): one of each kind of figure.
browser_cases="lab3-rounds lab8-matrix lab6-tree lab7-tail lab8-table"
# svg_parses FILE: one <svg> element, well-formed XML (xmllint where present), no script.
svg_parses() {
    grep -qi '<script' "$1" && return 1
    head -c 4 "$1" | grep -q '^<svg' || return 1
    ! command -v xmllint >/dev/null 2>&1 || xmllint --noout "$1" 2>/dev/null
}

# platform_figures NAME LAB DIR ITEM: the platforms' results carry the failing
# item's figure as an SVG image (Gradescope: one more test, html, no score
# and no status; PrairieLearn: images), the SVG well-formed, and the item
# tests as many as the items; the solution's results carry none.
platform_figures() {
    name=$1 short=$2 dir=$3 item=$4
    for format in gradescope prairielearn; do
        ./grader "$short" --backend=cpu --seed=7 --student-dir="$dir" --only="$item" --format=$format \
            --out="$dir/results.$format" > /dev/null 2>&1
        ./grader "$short" --backend=cpu --seed=7 --solution --only="$item" --format=$format \
            --out="$dir/solution.$format" > /dev/null 2>&1
        if perl -MJSON::PP -MMIME::Base64 -e '
            sub load { local $/; open my $f, "<", $_[0] or die "no $_[0]\n"; decode_json(<$f>) }
            my ($format, $item, $dir) = @ARGV; my $r = load("$dir/results.$format"); my $s = load("$dir/solution.$format");
            my @urls;
            if ($format eq "gradescope") {
                my @html = grep { ($_->{output_format} // "") eq "html" } @{$r->{tests}};
                @html == 1 or die "no html test\n";
                exists $html[0]{$_} and die "the figures test has $_\n" for qw(score max_score status);
                @urls = $html[0]{output} =~ /<img alt="[^"<]*" src="(data:image\/svg\+xml;base64,[A-Za-z0-9+\/=]+)">/g;
                @{$r->{tests}} == 2 or die "tests: ", scalar @{$r->{tests}}, "\n";
                grep { ($_->{output_format} // "") eq "html" } @{$s->{tests}} and die "the solution has figures\n";
            } else {
                @urls = map { $_->{url} } @{$r->{images} // []};
                $_->{label} =~ /: \Q$item\E: / or die "label $_->{label}\n" for @{$r->{images}};
                exists $s->{images} and die "the solution has images\n";
            }
            @urls == 1 or die "images: ", scalar @urls, "\n";
            (my $b = $urls[0]) =~ s/^data:image\/svg\+xml;base64,// or die "not an svg data url\n";
            open my $o, ">", "$dir/platform.svg" or die; print $o decode_base64($b); close $o;' \
            "$format" "$item" "$dir" 2>"$dir/why" && svg_parses "$dir/platform.svg"; then
            ok "$name: $format's results carry the figure as an SVG image, the solution's none"
        else
            not_ok "$name: $format's results carry the figure as an SVG image, the solution's none ($(cat "$dir/why"))"
        fi
    done
}

one_case() {
    set -- $1
    lab=$1 mutant=$2 item=$3 figure=$4 beside=$5 short=${1%%-*}
    dir="$work/$lab-$mutant"
    mkdir -p "$dir"
    for part in $(echo "$mutant" | tr + ' '); do
        patch_file="grading/$lab/mutants/$part.patch"
        [ -f "$patch_file" ] || { not_ok "$lab: $patch_file is missing"; return; }
        replaces=$(sed -n 's|^// replaces: *||p' "$patch_file" | head -n 1)
        from="solutions/$lab/$replaces"
        [ -f "$dir/$replaces" ] && mv "$dir/$replaces" "$dir/$replaces.before" && from="$dir/$replaces.before"
        patch -s -o "$dir/$replaces" "$from" < "$patch_file" >/dev/null 2>&1 \
            || { not_ok "$lab/$mutant: the patch $part applies"; return; }
        rm -f "$dir/$replaces.before"
    done
    make -s --no-print-directory BACKEND=cpu "build/cpu/$lab/reference-runner" build/host/grader >/dev/null 2>&1
    # Its own report folder: other checks grade the same lab in this tree at the same time.
    ./grader "$short" --backend=cpu --seed=7 --student-dir="$dir" --only="$item" --format=html \
        --out="$dir/report.html" --report-dir="$dir/report" > "$dir/log" 2>&1
    page="$dir/report/$short.html"
    last=$(tail -n 1 "$dir/log")
    if [ "$last" = "report: $page" ] && cmp -s "$page" "$dir/report.html"; then
        ok "$lab/$mutant: the last line names $page, and --format=html wrote the same page"
    else
        not_ok "$lab/$mutant: the last line names $page ('$last'), and --format=html wrote the same page"
    fi
    if well_formed "$dir/report.html"; then ok "$lab/$mutant: the report is well-formed, with no script"
    else not_ok "$lab/$mutant: the report is well-formed, with no script"; fi
    if grep -q "<section class=\"item failed\" id=\"item-$item\">" "$dir/report.html"; then
        ok "$lab/$mutant: the report shows $item failed"
    else
        not_ok "$lab/$mutant: the report shows $item failed"; sed 's/^/    /' "$dir/log" | head -10
    fi
    if [ "$figure" != - ]; then
        if perl -e '
            local $/; open my $f, "<", $ARGV[0] or die; my $p = <$f>;
            $p =~ m{id="item-$ARGV[1]">.*?<figure class="figure-$ARGV[2]">\s*<svg\b(.*?)</svg>}s or die "no figure\n";
            my $svg = $1;
            $svg =~ /class="wrong"/ or die "no element marked\n";
            $ARGV[2] ne "matrix" || $svg =~ /class="wrong-tile"/ or die "no tile marked\n";
            $svg =~ /should (hold|be)/ or die "does not say what it should hold\n";' \
            "$dir/report.html" "$item" "$figure" 2>"$dir/why"; then
            ok "$lab/$mutant: the $figure figure marks the failing element"
        else
            not_ok "$lab/$mutant: the $figure figure marks the failing element ($(cat "$dir/why"))"
        fi
    fi
    if [ "$beside" != - ]; then
        # beside the main figure, in the same item: one figure of that kind, its wrong element marked, said
        if perl -e '
            local $/; open my $f, "<", $ARGV[0] or die; my $p = <$f>;
            my ($section) = $p =~ m{(id="item-$ARGV[1]">.*?</section>)}s or die "no item\n";
            my @svgs = $section =~ m{<figure class="figure-$ARGV[2]">\s*<svg\b(.*?)</svg>}sg;
            @svgs == 1 or die scalar(@svgs) . " $ARGV[2] figures\n";
            $section =~ m{<figure class="figure-[a-z]+">.*<figure class="figure-$ARGV[2]">}s or die "not beside another\n";
            $svgs[0] =~ /class="wrong"/ or die "no element marked\n";
            $svgs[0] =~ /should (hold|be|not be)/ or die "does not say what it should be\n";' \
            "$dir/report.html" "$item" "$beside" 2>"$dir/why"; then
            ok "$lab/$mutant: beside it, the $beside figure marks the failing element"
        else
            not_ok "$lab/$mutant: beside it, the $beside figure marks the failing element ($(cat "$dir/why"))"
        fi
    fi
    ./grader "$short" --backend=cpu --seed=7 --solution --only="$item" --format=html --out="$dir/solution.html" \
        > "$dir/solution.log" 2>&1
    if well_formed "$dir/solution.html" && grep -q "<section class=\"item passed\" id=\"item-$item\">" "$dir/solution.html" \
        && ! grep -q '<figure' "$dir/solution.html"; then
        ok "$lab: the solution's report is well-formed and passes $item"
    else
        not_ok "$lab: the solution's report is well-formed and passes $item"
    fi
    case $short-$figure in lab3-rounds | lab8-matrix) platform_figures "$lab/$mutant" "$short" "$dir" "$item" ;; esac
    kind=$figure
    [ "$beside" = - ] || kind=$beside
    [ -f "$work/keep-$short-$kind.html" ] || cp "$dir/report.html" "$work/keep-$short-$kind.html"
}
echo "$cases" | while read -r line; do [ -n "$line" ] && one_case "$line"; done > "$work/cases.out"
cat "$work/cases.out"
n_test=$(grep -c '^\(not \)\{0,1\}ok' "$work/cases.out")
n_failed=$(grep -c '^not ok' "$work/cases.out")

# ---- a submission's bytes stay text --------------------------------------------------------
dir="$work/hostile"
mkdir -p "$dir"
patch -s -o "$dir/hello.cu" solutions/lab1-hello/hello.cu < grading/lab1-hello/mutants/missing-bound-check.patch
perl -0 -i -pe 's/(void fill_global_indices\(int \*out, int n, lab1_shape grid, lab1_shape block\)\n\{\n)/$1    fprintf(stderr, "<\/pre><script>alert(1)<\/script>\\xff\\xfe\\xc0\\xaf <img src=x onerror=alert(2)>\\n");\n/' \
    "$dir/hello.cu"
grep -q 'alert(1)' "$dir/hello.cu" || not_ok "the hostile submission is made"
./grader lab1 --backend=cpu --seed=7 --student-dir="$dir" --only=global_index_bounds --report-dir="$dir/report" > "$dir/log" 2>&1
page=$dir/report/lab1.html
if well_formed "$page" && grep -q '&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;' "$page" \
    && ! grep -qi '<img' "$page" && perl -MEncode -e 'local $/; open my $f, "<", $ARGV[0]; my $b = <$f>;
        Encode::decode("UTF-8", $b, Encode::FB_CROAK)' "$page" 2>/dev/null; then
    ok "a submission printing </pre><script>, an <img> and invalid UTF-8 gets an escaped, valid UTF-8 page with no script"
else
    not_ok "a submission printing </pre><script>, an <img> and invalid UTF-8 gets an escaped, valid UTF-8 page with no script"
    grep -n 'alert' "$page" | head -3 | sed 's/^/    /'
fi

# With no --report-dir the page goes to build/report/labN.html, named on the last line.
dir="$work/default-dir"
mkdir -p "$dir"
./grader lab1 --backend=cpu --seed=7 --solution --only=global_index_bounds > "$dir/log" 2>&1
if [ "$(tail -n 1 "$dir/log")" = "report: build/report/lab1.html" ] && [ -s build/report/lab1.html ]; then
    ok "with no --report-dir, the last line names build/report/lab1.html, and it is written"
else
    not_ok "with no --report-dir, the last line names build/report/lab1.html ('$(tail -n 1 "$dir/log")'), and it is written"
fi

# ---- in a real browser -------------------------------------------------------------------------
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    ok "reports in a browser # SKIP chromium is not installed (tools/setup.sh installs it where it can)"
else
    for lab in $browser_cases; do
        page="$work/keep-$lab.html"
        shot="$artifacts/report-$lab.png"
        [ -f "$page" ] || { not_ok "$lab's report for the browser was written"; continue; }
        rm -f "$shot"
        # (--no-sandbox: as root chromium's own sandbox cannot start; the page runs no script)
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
            --dump-dom "file://$page" > "$work/$lab.dom" 2> "$work/$lab.console"
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --screenshot="$shot" --window-size=1200,1600 "file://$page" > /dev/null 2>&1
        items=$(grep -c '<section class="item' "$work/$lab.dom")
        console=$(grep -E 'CONSOLE|Refused to|Uncaught' "$work/$lab.console" | head -3)
        if [ "$items" -ge 1 ] && grep -q 'class="wrong"' "$work/$lab.dom" && [ -z "$console" ] && [ -s "$shot" ]; then
            ok "chromium loads $lab's report ($items item, the failing element in its DOM, no console message); screenshot $shot"
        else
            not_ok "chromium loads $lab's report (items: $items, console: ${console:-none}, screenshot: $(ls -s "$shot" 2>/dev/null))"
        fi
    done
fi

# ---- the class statistics as a page ----------------------------------------------------------
cat > "$work/grades.jsonl" <<'JSON'
{"student":"ada","lab":"lab3-folding","status":"full_marks","points":100,"max_points":100,"items":[{"name":"fold_invariant","status":"passed","points":20,"max_points":20},{"name":"fold_sums_exact","status":"passed","points":80,"max_points":80}]}
{"student":"bob <b>","lab":"lab3-folding","status":"graded","points":80,"max_points":100,"items":[{"name":"fold_invariant","status":"failed","points":0,"max_points":20},{"name":"fold_sums_exact","status":"passed","points":80,"max_points":80}]}
{"student":"cy","lab":"lab3-folding","status":"graded","points":0,"max_points":100,"items":[{"name":"fold_invariant","status":"failed","points":0,"max_points":20},{"name":"fold_sums_exact","status":"failed","points":0,"max_points":80}]}
{"student":"dee","lab":"lab3-folding","status":"did_not_compile","points":0,"max_points":100,"items":[]}
JSON
if sh tools/grades-stats.sh --html "$work/grades.jsonl" > "$work/stats.html" 2> "$work/stats.err" \
    && well_formed "$work/stats.html" && grep -q 'class="histogram"' "$work/stats.html" \
    && grep -q 'fold_invariant' "$work/stats.html" && grep -q "$(sed -n '1,2p' common/grading/report.css | tail -n 1)" "$work/stats.html"; then
    ok "tools/grades-stats.sh --html: a well-formed page in the report's style, the histogram and a bar per item"
else
    not_ok "tools/grades-stats.sh --html: a well-formed page in the report's style ($(head -c 300 "$work/stats.err"))"
fi
finish
