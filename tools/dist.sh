#!/bin/sh
# make dist: the student copy, a tarball with no solution source in it.
#
#   tools/dist.sh                      dist/cuda-labs-student.tar.gz
#   tools/dist.sh --stage DIR          the copy as a folder (for the platform packages)
#   tools/dist.sh --gencode            the nvcc flags of the GPU fat binary
#   tools/dist.sh --solution-lines     the lines only the solutions hold (leak check)
#   tools/dist.sh --leaks DIR          the lines of DIR's files that are solution lines
#   tools/dist.sh --cross-leaks DIR    the given files of DIR's labs that hold another lab's answer
#   tools/dist.sh --broken-links DIR   the relative links of DIR's Markdown that lead nowhere
#   tools/dist.sh --excluded PATH      exit 0 when PATH stays out of the copy
#
# The copy holds the labs, the harness, the CPU backend, the grader and its
# suites, the tools, the Makefile, the README and the handouts (Markdown and
# rendered HTML).  It holds no solutions/, no tests/ (the known-bad versions
# there are near-solutions), no platforms/, and no grading/hidden/ (the
# instructor's hidden tests).  In place of the solutions it carries their
# builds, as reference runners: prebuilt/cpu/<lab>/reference-runner, and
# prebuilt/gpu/<lab>/reference-runner where nvcc exists (every real
# architecture from sm_60 that this nvcc knows, plus PTX of the newest for
# cards that come later); ./grader grades against those.  A reference runner
# is a program, the runner with the reference linked in, stripped, that
# exports none of the lab's functions: a submission that loads it (dlopen)
# finds nothing to call (common/runner/code.h).  The
# suites' models (grading/<lab>/model.c, the answers to the labs' TODOs)
# come as objects too, prebuilt/host/grading/<lab>/model.o, beside their headers.
#
# Environment:
#   DIST_GPU=auto|yes|no     build the GPU references (auto: where nvcc exists)
#   DIST_GPU_ARCH="flags"    nvcc flags for them instead of the full fat binary
#   DIST_LABS="lab1 lab2"    only these labs (folder names, short names or numbers), the
#                            others left out whole (default: every labs/lab*/)
#   DIST_HANDOUTS=auto|no    render the handouts (auto: when pandoc is or can be installed)
#   DIST_TARBALL=FILE        where to write it (default dist/cuda-labs-student.tar.gz)
#   DIST_EARLIER_ANSWERS=yes a given file may hold an earlier lab's answer (students are past it)
set -u
cd "$(dirname "$0")/.." || exit 2

say() { echo "dist: $*" >&2; }
die() { echo "dist: $*" >&2; exit 2; }

# ---- what stays out ------------------------------------------------------------
excluded() {
    case "$1" in
    solutions|solutions/*|tests|tests/*|platforms|platforms/*|dist|dist/*|build|build/*) return 0 ;;
    grading/*/mutants|grading/*/mutants/*|grading/*/alternatives|grading/*/alternatives/*) return 0 ;;
    grading/hidden|grading/hidden/*|prebuilt|prebuilt/*|.deps|.deps/*|.git|.git/*|.github/*|.ci/*) return 0 ;;
    docs/instructors.md) return 0 ;;
    *solution*) return 0 ;;   # e.g. a going-further solution kept beside a lab
    esac
    return 1
}

# ---- the fat binary -------------------------------------------------------------
# -gencode for every real architecture this nvcc builds that the labs can use
# (tools/cuda-arch.sh --list: sm_60 up, as far as this toolkit goes), and PTX
# of the newest, which the driver compiles for newer GPUs.
gencode() {
    flags="" newest=""
    for c in $(tools/cuda-arch.sh --list); do
        flags="$flags -gencode arch=compute_$c,code=sm_$c"
        newest=$c
    done
    [ -n "$newest" ] || return 1
    echo "${flags# } -gencode arch=compute_$newest,code=compute_$newest"
}

# ---- lines that only the solutions hold ------------------------------------------
# From each solution file, the code lines inside its TODO regions that the
# skeleton does not have and that appear nowhere in the labs, the harness or
# the grading suites (the suites' models, grading/<lab>/model.c, count as
# nowhere: the copy holds their objects only).  A copy holding any of them
# leaks a solution.
solution_lines() {
    perl -e '
        my %elsewhere;
        for my $f (@ARGV) {
            next if $f =~ m{^solutions/};
            open my $h, "<", $f or next;
            while (<$h>) { s/^\s+|\s+$//g; $elsewhere{$_} = 1; }
        }
        for my $f (grep { m{^solutions/.*\.cu$} } @ARGV) {
            open my $h, "<", $f or next;
            my $in = 0;
            while (my $line = <$h>) {
                if ($line =~ m{/\*\s*END TODO\b}) { $in = 0; next; }
                if ($line =~ m{/\*\s*TODO\s+\d}) { $in = 1; next; }
                next unless $in;
                (my $t = $line) =~ s/^\s+|\s+$//g;
                next if length($t) < 12 || $t =~ m{^(/\*|\*|//)};
                next if $elsewhere{$t};
                print "$t\n";
            }
        }' $(find solutions labs common grading -type f \( -name '*.cu' -o -name '*.c' -o -name '*.h' \) \
             -not -path 'grading/hidden/*' -not -path 'grading/*/model.c' 2>/dev/null | sort) | sort -u
}

# cross_leaks DIR: the given files of DIR's labs that hold another lab's
# answer ("file: lab L's TODO k (n of its lines)").  solution_lines excuses a
# line found in any lab, so that a lab's own answers are looked for line by
# line; this looks across labs: for each TODO region of each solution, the
# lines that neither its lab's skeleton nor the harness, backend or suites
# have, and every given file of another lab in DIR that holds three of them
# (or all, for a shorter answer).  One line alone is an idiom
# (__syncthreads();), three are an answer: lab 7 carrying lab 6's step 5.
cross_leaks() {
    perl -e '
        my $dir = shift;
        my (%shared, %own);
        for my $f (@ARGV) {
            next if $f =~ m{^solutions/};
            open my $h, "<", $f or next;
            my $lab = $f =~ m{^labs/([^/]+)/} ? $1 : undef;
            while (<$h>) {
                s/^\s+|\s+$//g;
                if (defined $lab) { $own{$lab}{$_} = 1 } else { $shared{$_} = 1 }
            }
        }
        my @regions;   # [lab, "TODO k", {line => 1}]
        for my $f (grep { m{^solutions/.*\.cu$} } @ARGV) {
            my ($lab) = $f =~ m{^solutions/([^/]+)/};
            open my $h, "<", $f or next;
            my $region;
            while (my $line = <$h>) {
                if ($line =~ m{/\*\s*END TODO\b}) { push @regions, $region if $region && %{$region->[2]}; undef $region; next; }
                if ($line =~ m{/\*\s*TODO\s+(\d+)}) { $region = [$lab, "TODO $1 of " . substr($f, length "solutions/"), {}]; next; }
                next unless $region;
                (my $t = $line) =~ s/^\s+|\s+$//g;
                next if length($t) < 12 || $t =~ m{^(/\*|\*|//)};
                next if $shared{$t} || $own{$lab}{$t};
                $region->[2]{$t} = 1;
            }
        }
        for my $file (sort split /\n/, `find "$dir/labs" -type f 2>/dev/null`) {
            my ($lab) = $file =~ m{/labs/([^/]+)/[^/]+$} or next;
            next if -B $file;
            open my $h, "<", $file or next;
            my %has;
            while (<$h>) { s/^\s+|\s+$//g; $has{$_} = 1 }
            for my $r (@regions) {
                next if $r->[0] eq $lab;
                my $lines = keys %{$r->[2]};
                my $found = grep { $has{$_} } keys %{$r->[2]};
                next unless $found >= 3 || ($lines >= 2 && $found == $lines);
                (my $name = $file) =~ s{^\Q$dir\E/}{};
                print "$name: $r->[0] $r->[1] ($found of its $lines lines)\n";
            }
        }' "$1" $(find solutions labs common grading -type f \( -name '*.cu' -o -name '*.c' -o -name '*.h' \) \
             -not -path 'grading/hidden/*' -not -path 'grading/*/model.c' 2>/dev/null | sort)
}

# broken_links DIR: the relative links and images of DIR's Markdown files whose
# targets are not in DIR ("file: target").
broken_links() {
    find "$1" -type f -name '*.md' | sort | perl -e '
        my $dir = shift;
        while (my $file = <STDIN>) {
            chomp $file;
            open my $h, "<", $file or next;
            my $text = do { local $/; <$h> };
            $text =~ s/```.*?```//gs;   # code blocks: their brackets are code
            (my $base = $file) =~ s{/[^/]+$}{};
            my @targets = ($text =~ /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, $text =~ /<img[^>]*\ssrc="([^"]+)"/g);
            for my $t (@targets) {
                next if $t =~ m{^([a-z]+:|#|/)};
                (my $path = $t) =~ s/#.*//;
                next if $path eq "" || -e "$base/$path";
                (my $name = $file) =~ s{^\Q$dir\E/}{};
                print "$name: $t\n";
            }
        }' "$1"
}

# trim_docs DIR LAB...: DIR's documents laid out by lab (docs/*.md with a
# heading that names one of the LABs: docs/performance.md; the labs and
# handouts are per lab already, and elsewhere a lab is only an example)
# without what is about the labs given: a section whose heading names one
# of them, a paragraph, table or list that does (code blocks stay).
trim_docs() {
    dir=$1; shift
    [ $# -gt 0 ] || return 0
    find "$dir/docs" -type f -name '*.md' 2>/dev/null | while IFS= read -r f; do
        # (stdin is the list of files: the filter reads its file by name)
        perl -e '
            my $file = shift;
            my $alt = join "|", map { my $s = $_; $s =~ s/-.*//; (quotemeta($_), quotemeta($s) . "(?![0-9])") } @ARGV;
            open my $h, "<", $file or exit 0;
            my @lines = <$h>;
            # only a document laid out by lab (a heading names one): elsewhere a lab is an example
            exit 0 unless grep { /^#+\s.*\b(?:$alt)\b/ } @lines;
            my (@out, @para, $cut);
            my ($changed, $fence) = (0, 0);
            # a paragraph (lines up to a blank one) goes out whole when it names one of the labs
            my $flush = sub { if (grep { /\b(?:$alt)\b/ } @para) { $changed = 1 } else { push @out, @para } @para = () };
            for my $line (@lines) {
                if ($line =~ /^```/) { $flush->() unless $fence; $fence = !$fence; push @out, $line unless defined $cut; next; }
                if ($fence) { push @out, $line unless defined $cut; next; }   # code: examples, kept as they are
                if ($line =~ /^(#+)\s/) {
                    $flush->();
                    my $level = length $1;
                    undef $cut if defined $cut && $level <= $cut;
                    $cut = $level if !defined $cut && $line =~ /\b(?:$alt)\b/;
                }
                if (defined $cut) { $changed = 1; next; }
                if ($line =~ /^\s*$/) { $flush->(); push @out, $line; next; }
                push @para, $line;
            }
            $flush->();
            exit 0 unless $changed;
            open my $o, ">", $file or die "$file: $!"; print $o @out;' "$f" "$@" < /dev/null
    done
}

# find_leaks LINES_FILE DIR: every line of a text file under DIR that is,
# once trimmed, one of the solution-only lines ("file:line: text").
find_leaks() {
    find "$2" -type f -print0 | perl -0 -e '
        open my $l, "<", shift or die; my %solution = do { local $/ = "\n"; map { chomp; $_ => 1 } <$l> };
        while (my $file = <STDIN>) {
            chomp $file;
            next if -B $file;          # binaries: the prebuilt references
            open my $h, "<", $file or next;
            local $/ = "\n";
            while (my $line = <$h>) {
                (my $t = $line) =~ s/^\s+|\s+$//g;
                print "$file:$.: $t\n" if $solution{$t};
            }
        }' "$1"
}

case "${1:-}" in
--leaks) solution_lines > "${TMPDIR:-/tmp}/dist-lines.$$"; find_leaks "${TMPDIR:-/tmp}/dist-lines.$$" "${2:?a folder}"; rm -f "${TMPDIR:-/tmp}/dist-lines.$$"; exit 0 ;;
--gencode) gencode; exit 0 ;;
--solution-lines) solution_lines; exit 0 ;;
--cross-leaks) cross_leaks "${2:?a folder}"; exit 0 ;;
--broken-links) broken_links "${2:?a folder}"; exit 0 ;;
--excluded) excluded "${2:?a path}"; exit $? ;;
esac

[ -d solutions ] || die "this is a student copy already (no solutions/): make dist runs in the full kit"

stage_only=""
if [ "${1:-}" = --stage ]; then
    stage_only=${2:?--stage needs a folder}
    case "$stage_only" in /*) ;; *) stage_only="$(pwd)/$stage_only" ;; esac
fi

name=cuda-labs
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
stage="$tmp/$name"
mkdir -p "$stage"

all_labs=$(ls -d labs/lab*/ 2>/dev/null | xargs -n 1 basename)
[ -n "$all_labs" ] || die "no labs in labs/"
# Each name of DIST_LABS as a folder name, a short name or a number (lab3-folding, lab3, 3).
labs=""
for wanted in ${DIST_LABS:-$all_labs}; do
    lab=$(sh tools/lab-folder.sh "$wanted") || die "DIST_LABS: no lab named $wanted (the labs: $(echo $all_labs))"
    labs="$labs $lab"
done
labs=$(echo $labs)
# The labs not released are left out whole: their skeletons, suites, calls,
# handouts, benchmarks and figures.
others=$(echo "$all_labs" | grep -v -x -F "$(echo "$labs" | tr ' ' '\n')")
not_released() {
    for other in $others; do
        case "$1" in
        labs/"$other"/*|grading/"$other"/*) return 0 ;;
        handouts/"$other".*|handouts/"$other"/*) return 0 ;;
        docs/performance/*"$other".*) return 0 ;;
        esac
    done
    return 1
}

# A given file (no TODO) that holds another lab's answer (lab 4's folding.cu
# is lab 3's), or a suite's model that holds its own lab's answers
# (grading/<lab>/model.c), says "dist: compiled only" in its first lines:
# the copy gets its object, built below, and not its source.
compiled_only() {
    case "$1" in
    labs/*/*.cu|grading/*/model.c) head -n 5 "$1" | grep -q 'dist: compiled only' ;;
    *) return 1 ;;
    esac
}

# ---- 1. the files ----------------------------------------------------------------------
sh tools/kit-files.sh | while IFS= read -r f; do
    [ -f "$f" ] || continue
    excluded "$f" && continue
    not_released "$f" && continue
    compiled_only "$f" && continue
    mkdir -p "$stage/$(dirname "$f")" && cp -p "$f" "$stage/$f"
done

# What the copy's own documents say about labs it leaves out goes with them
# (docs/performance.md's sections and rows of the other labs, their plots).
trim_docs "$stage" $others

# ---- 2. the references, built here ----------------------------------------------------
# strip_prebuilt FILE: a prebuilt reference runner or object without its
# debug information (which names the solution's lines and variables) nor its
# local symbols (the names of its static helpers).  A reference runner keeps
# no symbol table at all (its entry points are found through a table compiled
# into it); an object keeps its global symbols, which the lab program links with.
strip_prebuilt() {
    command -v strip >/dev/null 2>&1 || { say "WARNING: no strip here: $1 keeps its debug information"; return 0; }
    case "$1" in
    */reference-runner) strip --strip-all "$1" ;;
    *) strip --strip-debug --discard-all "$1" ;;
    esac || die "strip failed on $1"
}
# build_prebuilt BACKEND BUILD_DIR [VARIABLE=VALUE...]: for every lab with a
# solution, its reference runner and the objects of its compiled-only given
# files, built by make (BACKEND=BACKEND B=BUILD_DIR and the variables) and
# copied, stripped, into the stage's prebuilt/BACKEND/<lab>/.
build_prebuilt() {
    backend=$1 build=$2
    shift 2
    for lab in $labs; do
        [ -d "solutions/$lab" ] || continue
        make -s --no-print-directory BACKEND="$backend" B="$build" "$@" "$build/$lab/reference-runner" \
            >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; die "the $backend reference of $lab did not build"; }
        mkdir -p "$stage/prebuilt/$backend/$lab"
        cp "$build/$lab/reference-runner" "$stage/prebuilt/$backend/$lab/reference-runner"
        strip_prebuilt "$stage/prebuilt/$backend/$lab/reference-runner"
        for f in labs/"$lab"/*.cu; do
            compiled_only "$f" || continue
            object="$build/$lab/student/$(basename "$f" .cu).o"
            make -s --no-print-directory BACKEND="$backend" B="$build" "$@" "$object" >"$tmp/build.log" 2>&1 \
                || { cat "$tmp/build.log" >&2; die "$f did not build for the $backend backend"; }
            cp "$object" "$stage/prebuilt/$backend/$lab/"
            strip_prebuilt "$stage/prebuilt/$backend/$lab/$(basename "$object")"
        done
    done
}
tools/setup.sh || exit 2
for lab in $labs; do
    [ -d "solutions/$lab" ] || say "$lab has no solutions/$lab: no prebuilt reference"
done
build_prebuilt cpu build/cpu
say "prebuilt cpu references: $(ls "$stage/prebuilt/cpu" | tr '\n' ' ')"

# The suites' models, as host objects like the grader's own (the Makefile
# links them where their source is absent), without debug information: it
# would name their lines and variables.
for lab in $labs; do
    model="grading/$lab/model.c"
    [ -f "$model" ] && compiled_only "$model" || continue
    object="build/host/grading/$lab/model.o"
    make -s --no-print-directory BACKEND=cpu "$object" >"$tmp/build.log" 2>&1 \
        || { cat "$tmp/build.log" >&2; die "$model did not build"; }
    mkdir -p "$stage/prebuilt/host/grading/$lab"
    cp "$object" "$stage/prebuilt/host/grading/$lab/model.o"
    if command -v strip >/dev/null 2>&1; then
        strip --strip-debug "$stage/prebuilt/host/grading/$lab/model.o" || die "strip failed on $object"
    fi
done
[ -d "$stage/prebuilt/host" ] && say "prebuilt grading models: $(cd "$stage/prebuilt/host/grading" && ls */model.o | tr '\n' ' ')"

want_gpu=${DIST_GPU:-auto}
if [ "$want_gpu" = auto ]; then
    command -v nvcc >/dev/null 2>&1 && want_gpu=yes || want_gpu=no
fi
if [ "$want_gpu" = yes ]; then
    command -v nvcc >/dev/null 2>&1 || die "DIST_GPU=yes but there is no nvcc"
    arch=${DIST_GPU_ARCH:-$(gencode)}
    [ -n "$arch" ] || die "this nvcc builds no architecture the labs can use (sm_60 or newer)"
    gpu_build=build/gpu-dist
    # Objects do not depend on the flags: a change of flags starts over.
    if [ "$(cat "$gpu_build/flags" 2>/dev/null)" != "$arch $(nvcc --version | tail -n 1)" ]; then
        rm -rf "$gpu_build" && mkdir -p "$gpu_build"
        echo "$arch $(nvcc --version | tail -n 1)" > "$gpu_build/flags"
    fi
    say "building the gpu references with: $arch"
    build_prebuilt gpu "$gpu_build" ARCH="$arch"
    echo "$arch" > "$stage/prebuilt/gpu/ARCH"
    say "prebuilt gpu references: $(ls -d "$stage"/prebuilt/gpu/*/ | xargs -n 1 basename | tr '\n' ' ')"
fi

# ---- 3. the handouts, rendered -------------------------------------------------------
if [ "${DIST_HANDOUTS:-auto}" != no ] && ls handouts/*.md >/dev/null 2>&1; then
    if tools/render-handout.sh --all build/handouts >"$tmp/handouts.log" 2>&1; then
        for f in build/handouts/*.html build/handouts/*.pdf; do
            [ -f "$f" ] && ! not_released "handouts/$(basename "$f")" && cp "$f" "$stage/handouts/"
        done
        say "rendered handouts: $(ls "$stage"/handouts/*.html | wc -l) HTML"
    else
        sed 's/^/    /' "$tmp/handouts.log" >&2
        say "WARNING: the handouts were not rendered; the copy has them in Markdown only"
    fi
fi

# ---- 4. what a student copy says about itself ---------------------------------------
cat >> "$stage/README.md" <<'EOF'

## This is a student copy

It has no reference solutions. `./grader` grades your code against the
reference builds in `prebuilt/` (the `cpu` one on any Linux machine, the
`gpu` one on an NVIDIA GPU), so grading works as everywhere else;
`make labN SOLUTION=1` is not available. The grading suites in `grading/`
are yours to read; the models they compare your work with (answers to the
TODOs) come compiled, in `prebuilt/host/grading/<lab>/model.o`, and
`grading/<lab>/model.h` says what each computes. The handouts are in
`handouts/`, as Markdown and as HTML. `make doctor` tells what your machine
has and what it lacks.
EOF
mkdir -p "$stage/tests"
cat > "$stage/tests/run.sh" <<'EOF'
#!/bin/sh
# The kit's own tests are not part of the student copy.
echo "The kit's own tests are not part of this student copy."
echo "Grade your work with:  ./grader all   (or ./grader lab3 for one lab)"
EOF
chmod +x "$stage/tests/run.sh"

# ---- 5. no solution in it --------------------------------------------------------------
solution_lines > "$tmp/solution-lines"
find_leaks "$tmp/solution-lines" "$stage" > "$tmp/leaks"
if [ -s "$tmp/leaks" ]; then
    say "a solution would leak through these lines:"
    sed "s|^$stage/|    |" "$tmp/leaks" | head -n 20 >&2
    die "no copy made"
fi

# Every relative link of the copy's documents leads somewhere in it.
broken_links "$stage" > "$tmp/links"
if [ -s "$tmp/links" ]; then
    say "links to what the copy does not hold:"
    sed 's/^/    /' "$tmp/links" >&2
    die "no copy made"
fi

# Across labs: a given file that holds another lab's answer.  Allowed only
# for an earlier lab's answer, and only when the instructor says the students
# are past that lab (DIST_EARLIER_ANSWERS=yes: a later release of lab 7 for a
# class that finished lab 6); a later lab's answer never.
cross_leaks "$stage" > "$tmp/cross"
if [ -s "$tmp/cross" ]; then
    refused=""
    while IFS= read -r leak; do
        holder=$(echo "$leak" | sed -n 's|^labs/lab\([0-9]*\)-.*|\1|p')
        owner=$(echo "$leak" | sed -n 's|^[^:]*: lab\([0-9]*\)-.*|\1|p')
        if [ "${DIST_EARLIER_ANSWERS:-no}" = yes ] && [ -n "$owner" ] && [ -n "$holder" ] && [ "$owner" -lt "$holder" ]; then
            say "note: $leak (allowed: DIST_EARLIER_ANSWERS=yes)"
        else
            refused="$refused
    $leak"
        fi
    done < "$tmp/cross"
    if [ -n "$refused" ]; then
        say "another lab's answer would be handed over in these given files:$refused"
        say "move that code into a given file marked 'dist: compiled only' (the copy then holds its object),"
        say "release the labs apart, or, once students are past the earlier lab, DIST_EARLIER_ANSWERS=yes"
        die "no copy made"
    fi
fi

# ---- 6. out ----------------------------------------------------------------------------
if [ -n "$stage_only" ]; then
    rm -rf "$stage_only" && mkdir -p "$(dirname "$stage_only")" && cp -R "$stage" "$stage_only" || exit 2
    say "student copy staged in $stage_only"
    exit 0
fi
tarball=${DIST_TARBALL:-dist/$name-student.tar.gz}
mkdir -p "$(dirname "$tarball")"
tar -C "$tmp" --owner=0 --group=0 --sort=name -czf "$tarball.tmp" "$name" && mv "$tarball.tmp" "$tarball" || exit 2
say "$tarball: $(tar -tzf "$tarball" | grep -c '[^/]$') files, $(du -h "$tarball" | cut -f 1)"
