#!/bin/sh
# make dist: the student copy is built, unpacked elsewhere, holds no solution
# source (no solutions/, no mutants, no hidden tests, none of the lines
# that only the solutions have, and the suites' models as objects only),
# builds, grades the skeletons low, and grades full marks once the solutions
# are copied into labs/ by hand.
#   CHECK_DIST_LABS="lab1-hello lab3-folding" chooses the labs graded in the copy.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
kit=$(pwd)
# The handouts are rendered as HTML only here: a PDF engine (chromium, once
# check-report has installed it) took seconds of CPU a handout, for PDFs no
# check below reads; printing a handout to PDF is check-handouts' to test.
export HANDOUT_PDF_ENGINE=none

labs=""
for suite in grading/lab*/suite.c; do
    lab=$(basename "$(dirname "$suite")")
    [ -d "solutions/$lab" ] && [ -d "labs/$lab" ] && labs="$labs $lab"
done
if [ -z "$labs" ]; then
    ok "student copy # SKIP no lab with a solution and a grading suite yet"
    finish
fi
# Grading in the copy builds each lab twice: by default the first and the last
# lab are graded (every lab's prebuilt reference is checked all the same).
set -- $labs
eval "last=\${$#}"
graded_labs=${CHECK_DIST_LABS:-$(echo "$1 $last" | tr ' ' '\n' | sort -u | tr '\n' ' ')}

# What stays out, path by path (hidden tests are the instructor's).
for path in solutions/lab3-folding/fold.cu grading/lab3-folding/mutants/x.patch grading/lab3-folding/alternatives/x.patch grading/hidden/lab3-folding.c platforms/gradescope/setup.sh; do
    tools/dist.sh --excluded "$path" && ok "dist leaves out $path" || not_ok "dist leaves out $path"
done
for path in labs/lab3-folding/fold.cu grading/lab3-folding/suite.c grading/lab3-folding/lab-calls.h grading/lab3-folding/model.h common/harness/kit.h common/harness/kit_hooks.h grader Makefile; do
    tools/dist.sh --excluded "$path" && not_ok "dist keeps $path" || ok "dist keeps $path"
done

# ---- build it (GPU references only on the gpu backend, for one architecture:
# the full fat binary takes long; its flags are checked below) -----------------
if [ "$BACKEND" = gpu ]; then
    export DIST_GPU=yes DIST_GPU_ARCH="$(tools/cuda-arch.sh)"
else
    export DIST_GPU=no
fi
# (DIST_EARLIER_ANSWERS=yes: a given file that holds an earlier lab's answer is
# allowed here, for the checks below; that the copy is refused without it is
# checked further down.)
DIST_EARLIER_ANSWERS=yes DIST_TARBALL="$work/student.tar.gz" tools/dist.sh > "$work/dist.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ -s "$work/student.tar.gz" ]; then
    ok "tools/dist.sh made the tarball ($(du -h "$work/student.tar.gz" | cut -f 1))"
else
    not_ok "tools/dist.sh made the tarball (exit $rc)"
    sed 's/^/    /' "$work/dist.log" | tail -n 30
    finish
fi
mkdir -p "$work/unpacked" && tar -xzf "$work/student.tar.gz" -C "$work/unpacked"
copy="$work/unpacked/cuda-labs"

# ---- no solution inside -------------------------------------------------------------
leftovers=$(cd "$copy" && ls -d solutions grading/*/mutants grading/*/alternatives grading/hidden platforms 2>/dev/null | tr '\n' ' ')
[ -z "$leftovers" ] && ok "no solutions/, mutants, alternatives, hidden tests or platforms in the copy" \
                    || not_ok "no solutions/, mutants, alternatives, hidden tests or platforms in the copy: $leftovers"
tools/dist.sh --solution-lines > "$work/solution-lines"
n_lines=$(wc -l < "$work/solution-lines")
if [ "$n_lines" -eq 0 ]; then
    not_ok "the solutions have distinctive lines to look for (none found: the leak check would prove nothing)"
elif find "$copy" -type f -print0 | perl -0 -e '
        open my $l, "<", shift or die; my %solution = do { local $/ = "\n"; map { chomp; $_ => 1 } <$l> }; my $leaks = 0;
        while (my $file = <STDIN>) { chomp $file; next if -B $file; open my $h, "<", $file or next; local $/ = "\n";
            while (<$h>) { s/^\s+|\s+$//g; if ($solution{$_}) { print "    $file:$.: $_\n"; $leaks++ } } }
        exit($leaks > 0 ? 0 : 1)' "$work/solution-lines" > "$work/leaks"; then
    not_ok "none of the $n_lines solution-only lines is in the copy:"; head -n 10 "$work/leaks"
else
    ok "none of the $n_lines solution-only lines is in the copy"
fi
missing=""
for lab in $labs; do [ -x "$copy/prebuilt/cpu/$lab/reference-runner" ] || missing="$missing $lab"; done
[ -z "$missing" ] && ok "a prebuilt cpu reference runner for every lab" || not_ok "a prebuilt cpu reference runner for every lab (missing:$missing)"
stray=$(cd "$copy" && find prebuilt -name '*.so' | head -n 3 | tr '\n' ' ')
[ -z "$stray" ] && ok "no shared object in prebuilt/ (a reference is a runner program)" || not_ok "no shared object in prebuilt/: $stray"
# The references and given objects are stripped like the models: no debug
# information (it names the solution's lines and variables), and a reference
# runner keeps no symbol table at all (the names of its functions).
if command -v readelf >/dev/null 2>&1 && command -v strip >/dev/null 2>&1; then
    unstripped=""
    for f in $(find "$copy/prebuilt" -type f \( -name 'reference-runner' -o -name '*.o' \)); do
        sections=$(readelf -S "$f" 2>/dev/null)
        echo "$sections" | grep -q '\.debug_' && unstripped="$unstripped ${f#$copy/}(debug)"
        case "$f" in *reference-runner) echo "$sections" | grep -q ' \.symtab ' && unstripped="$unstripped ${f#$copy/}(symtab)" ;; esac
    done
    [ -z "$unstripped" ] && ok "the prebuilt reference runners and objects carry no debug information, the runners no symbol table" \
                         || not_ok "the prebuilt reference runners and objects are stripped:$unstripped"
fi
# Nothing in a shipped reference can be looked up: its dynamic symbols (nm -D,
# readelf --dyn-syms) name none of the lab's entry points (grading/<lab>/lab-calls.h)
# nor the harness's functions, and a program that dlopen()s it and dlsym()s
# them gets nothing.  Checked first on the kit's own lab 3 reference as a
# shared object, which exports them: the checks must find them there.
entry_points() { sed -n 's/^CALL([^,]*, *\([A-Za-z_0-9]*\),.*/\1/p; s/^CALL_VOID(\([A-Za-z_0-9]*\),.*/\1/p' "grading/$1/lab-calls.h"; }
exported() { # exported FILE LAB: the lab's functions and the harness's among FILE's dynamic symbols
    names=$(entry_points "$2" | tr '\n' '|')
    { nm -D --defined-only "$1" 2>/dev/null; readelf --dyn-syms -W "$1" 2>/dev/null; } \
        | awk '{ print $NF }' | sed 's/@.*//' | grep -E -x "(${names}kit_[a-z_]*)" | sort -u | tr '\n' ' '
}
cat > "$work/load.c" <<'CEOF'
/* load FILE NAME...: dlopen FILE, dlsym each NAME; prints what it found */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    void *handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        printf("not loaded: %s\n", dlerror());
        return 0;
    }
    for (int i = 2; i < argc; i++)
        if (dlsym(handle, argv[i]))
            printf("found %s\n", argv[i]);
    return 0;
}
CEOF
if command -v nm >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 && cc -o "$work/load" "$work/load.c" -ldl 2>/dev/null; then
    known=lab3-folding
    make -s --no-print-directory BACKEND=cpu "build/cpu/$known/reference.so" >/dev/null 2>&1
    control=$(exported "build/cpu/$known/reference.so" $known)
    control_found=$("$work/load" "$kit/build/cpu/$known/reference.so" $(entry_points $known) | grep -c '^found')
    if [ -n "$control" ] && [ "$control_found" -gt 0 ]; then
        ok "the checks find the entry points a shared object exports (build/cpu/$known/reference.so: $control_found found)"
    else
        not_ok "the checks find the entry points a shared object exports (build/cpu/$known/reference.so: '$control', $control_found found)"
    fi
    shown="" loaded=""
    for f in $(find "$copy/prebuilt" -type f -name reference-runner); do
        lab=$(basename "$(dirname "$f")")
        names=$(exported "$f" "$lab")
        [ -z "$names" ] || shown="$shown ${f#$copy/}: $names;"
        found=$("$work/load" "$f" $(entry_points "$lab") kit_set_error_handler kit_launch_count | grep '^found' | tr '\n' ' ')
        [ -z "$found" ] || loaded="$loaded ${f#$copy/}: $found;"
    done
    [ -z "$shown" ] && ok "nm -D and readelf --dyn-syms of the prebuilt references show none of the labs' or the harness's functions" \
                    || not_ok "nm -D and readelf --dyn-syms of the prebuilt references show none of the labs' or the harness's functions:$shown"
    [ -z "$loaded" ] && ok "dlopen() and dlsym() of the prebuilt references find none of the labs' or the harness's functions" \
                     || not_ok "dlopen() and dlsym() of the prebuilt references find none of the labs' or the harness's functions:$loaded"
else
    ok "no function of a prebuilt reference can be looked up # SKIP needs nm, readelf and a C compiler"
fi
if [ "$BACKEND" = gpu ]; then
    missing=""
    for lab in $labs; do [ -x "$copy/prebuilt/gpu/$lab/reference-runner" ] || missing="$missing $lab"; done
    [ -z "$missing" ] && ok "a prebuilt gpu reference for every lab" || not_ok "a prebuilt gpu reference for every lab (missing:$missing)"
fi
if ls handouts/*.md >/dev/null 2>&1 && command -v pandoc >/dev/null 2>&1; then
    n_md=$(ls handouts/*.md | wc -l); n_html=$(ls "$copy"/handouts/*.html 2>/dev/null | wc -l)
    [ "$n_md" -eq "$n_html" ] && ok "the $n_html handouts are in the copy as HTML" \
                              || not_ok "the handouts are in the copy as HTML ($n_html of $n_md)"
fi

# ---- the suites' models come compiled, with their headers --------------------------------
# grading/<lab>/model.c holds the answers to a lab's TODOs ("dist: compiled only").
models=$(grep -l 'dist: compiled only' grading/*/model.c 2>/dev/null)
if [ -z "$models" ]; then
    ok "the suites' models come compiled # SKIP no grading/*/model.c marked compiled only"
else
    sources=$(cd "$copy" && ls grading/*/model.c 2>/dev/null | tr '\n' ' ')
    [ -z "$sources" ] && ok "no grading/*/model.c in the copy" || not_ok "no grading/*/model.c in the copy: $sources"
    missing=""
    for model in $models; do
        mlab=$(basename "$(dirname "$model")")
        [ -f "$copy/prebuilt/host/grading/$mlab/model.o" ] || missing="$missing $mlab/model.o"
        [ -f "$copy/grading/$mlab/model.h" ] || missing="$missing $mlab/model.h"
    done
    [ -z "$missing" ] && ok "every model is in the copy as prebuilt/host/grading/<lab>/model.o, with its header" \
                      || not_ok "every model is in the copy as an object, with its header (missing:$missing)"
    if command -v strip >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1; then
        debug=""
        for o in "$copy"/prebuilt/host/grading/*/model.o; do
            [ -f "$o" ] && readelf -S "$o" | grep -q '\.debug_' && debug="$debug $(basename "$(dirname "$o")")"
        done
        [ -z "$debug" ] && ok "the prebuilt models carry no debug information" \
                        || not_ok "the prebuilt models carry no debug information:$debug"
    fi
    # No model function is defined in the copy's text, by its name (with or
    # without the lab prefix; a header's declaration ends with ';'), and no line
    # of a model that only the model has is anywhere in the copy.
    if perl -e '
            my (%names, %lines, %elsewhere);
            my @models = split " ", shift;
            my $copy = shift;
            for my $f (grep { !m{^grading/(hidden/|[^/]+/model\.)} } split /\n/, `find labs common grading -type f -name "*.[ch]*"`) {
                open my $h, "<", $f or next; while (<$h>) { s/^\s+|\s+$//g; $elsewhere{$_} = 1 } }
            for my $m (@models) {
                open my $h, "<", $m or die "$m: $!";
                while (my $line = <$h>) {
                    if ($line =~ /^(?!static\b)[A-Za-z][\w\s\*]*?\b(lab\d+_(\w+))\s*\(/ && $line !~ /;\s*$/) {
                        $names{$1} = 1; $names{$2} = 1;
                    }
                    (my $t = $line) =~ s/^\s+|\s+$//g;
                    $lines{$t} = $m if length($t) >= 16 && $t !~ m{^(/\*|\*|//|#)} && !$elsewhere{$t};
                }
            }
            die "no model function found\n" unless %names && %lines;
            my $alt = join "|", map { quotemeta } sort keys %names;
            my $found = 0;
            for my $file (split /\n/, `find "$copy" -type f`) {
                next if -B $file; open my $h, "<", $file or next;
                while (my $line = <$h>) {
                    (my $t = $line) =~ s/^\s+|\s+$//g;
                    my $defines = $file =~ /\.(c|h|cu|cuh|cpp|hpp)$/ && $line =~ /^[A-Za-z][^;]*\b($alt)\(/
                                  && $line !~ /;\s*$/;
                    if ($defines || $lines{$t}) {
                        print "    $file:$.: $t\n"; $found++;
                    }
                }
            }
            exit($found ? 0 : 1)' "$models" "$copy" > "$work/model-text" 2>&1; then
        not_ok "none of the models' source text is in the copy:"; head -n 10 "$work/model-text"
    elif [ -s "$work/model-text" ]; then
        not_ok "none of the models' source text is in the copy (the check failed):"; head -n 5 "$work/model-text"
    else
        ok "none of the models' source text (definitions, lines only the models have) is in the copy"
    fi
fi

# ---- it builds and grades -------------------------------------------------------------
first=$(echo $labs | cut -d ' ' -f 1)
(cd "$copy" && make --no-print-directory BACKEND="$BACKEND" "${first%%-*}" SOLUTION=1) > "$work/solution.log" 2>&1
if [ $? -ne 0 ] && grep -q "student copy" "$work/solution.log"; then
    ok "make ${first%%-*} SOLUTION=1 explains that a student copy has no solution"
else
    not_ok "make ${first%%-*} SOLUTION=1 explains that a student copy has no solution"
    sed 's/^/    /' "$work/solution.log" | tail -n 10
fi
# The untouched skeleton's program runs and says what is wrong (its exit status may say so too).
(cd "$copy" && make --no-print-directory BACKEND="$BACKEND" "${first%%-*}") > "$work/program.log" 2>&1
if [ -x "$copy/build/$BACKEND/$first/lab" ] && grep -q "^== $first (your code" "$work/program.log"; then
    ok "make ${first%%-*} builds and runs the lab program in the copy"
else
    not_ok "make ${first%%-*} builds and runs the lab program in the copy"; sed 's/^/    /' "$work/program.log" | tail -n 15
fi

for lab in $graded_labs; do
    short=${lab%%-*}
    (cd "$copy" && ./grader "$short" --backend="$BACKEND" --format=json --out="$work/$lab-skeleton.json") > "$work/log" 2>&1
    rc=$?
    set -- $(json_total "$work/$lab-skeleton.json" 2>/dev/null)
    if [ "$rc" -eq 1 ] && [ -n "${2:-}" ] && perl -e 'exit !($ARGV[0] < 0.5 * $ARGV[1])' "$1" "$2"; then
        ok "copy: the skeleton of $lab grades low against the prebuilt reference ($1/$2)"
    else
        not_ok "copy: the skeleton of $lab grades low against the prebuilt reference (exit $rc, ${1:-?}/${2:-?})"
        sed 's/^/    /' "$work/log" | tail -n 20
    fi
    cp solutions/$lab/*.cu "$copy/labs/$lab/"
    (cd "$copy" && ./grader "$short" --backend="$BACKEND" --format=json --out="$work/$lab-solution.json") > "$work/log" 2>&1
    rc=$?
    set -- $(json_total "$work/$lab-solution.json" 2>/dev/null)
    if [ "$rc" -eq 0 ] && [ -n "${2:-}" ] && [ "$1" = "$2" ]; then
        ok "copy: the solution copied into labs/$lab gets full marks ($1/$2)"
    else
        not_ok "copy: the solution copied into labs/$lab gets full marks (exit $rc, ${1:-?}/${2:-?})"
        sed 's/^/    /' "$work/log" | tail -n 20
    fi
done

# ---- a copy of some labs only: the others are absent, not merely unbuilt -----------------
set -- $labs
if [ $# -ge 3 ]; then
    first=$1 second=$2
    # short names (lab1 lab2), as an instructor types them; the rendered handouts too, where pandoc is
    DIST_LABS="${first%%-*} ${second%%-*}" DIST_GPU=no tools/dist.sh --stage "$work/two" > "$work/two.log" 2>&1
    rc=$?
    stray=$(cd "$work/two" 2>/dev/null && find . -type f | grep -E 'lab[0-9]' \
                | grep -v -E "$first|$second|${first%%-*}[^0-9]|${second%%-*}[^0-9]" | head -n 5)
    if [ $rc -eq 0 ] && [ -d "$work/two/labs/$first" ] && [ -z "$stray" ]; then
        ok "DIST_LABS=\"$first $second\": nothing of the other labs is in the copy"
    else
        not_ok "DIST_LABS=\"$first $second\": nothing of the other labs is in the copy (exit $rc; $stray)"
        tail -n 5 "$work/two.log" | sed 's/^/    /'
    fi
    # Its documents laid out by lab say nothing of the other labs
    # (docs/performance.md's sections, rows and paragraphs of theirs go with
    # them), and every relative link leads somewhere.
    others_named=$(cd "$work/two" 2>/dev/null && for d in $(grep -l -E '^#+ .*lab[0-9]' docs/*.md 2>/dev/null); do
        for l in $labs; do [ "$l" = "$first" ] || [ "$l" = "$second" ] || ! grep -q "$l" "$d" || echo "$d:$l"; done; done | head -n 5)
    broken=$(tools/dist.sh --broken-links "$work/two" | head -n 5)
    if [ $rc -eq 0 ] && [ -z "$others_named" ] && [ -z "$broken" ]; then
        ok "that copy's documents laid out by lab name none of the other labs, and none of its links is broken"
    else
        not_ok "that copy's documents laid out by lab name none of the other labs, and none of its links is broken ($others_named; $broken)"
    fi
    if (cd "$work/two" && make -s build/host/grader >/dev/null 2>&1 && ./grader list) > "$work/two-list" 2>&1 \
        && [ "$(grep -c '^lab' "$work/two-list")" -eq 2 ]; then
        ok "that copy's grader builds and knows its two labs"
    else
        not_ok "that copy's grader builds and knows its two labs"; head -n 10 "$work/two-list" | sed 's/^/    /'
    fi
fi

# ---- a given file that holds another lab's answer comes compiled, not as source ---------------
# (each copy built on this kit's cpu library, harness and main.o, seed_kit_objects:
# that a copy builds them from nothing is shown by the copy graded above)
for given in $(grep -l 'dist: compiled only' labs/*/*.cu 2>/dev/null); do
    glab=$(basename "$(dirname "$given")") gname=$(basename "$given" .cu)
    DIST_LABS="$glab" DIST_GPU=no DIST_HANDOUTS=no tools/dist.sh --stage "$work/given" > "$work/given.log" 2>&1
    if [ ! -f "$work/given/labs/$glab/$gname.cu" ] && [ -f "$work/given/prebuilt/cpu/$glab/$gname.o" ] \
       && { [ ! -d .deps ] || cp -R .deps "$work/given/"; } \
       && seed_kit_objects "$work/given" "$glab" \
       && (cd "$work/given" && make -s BACKEND=cpu "build/cpu/$glab/lab") > "$work/given-build.log" 2>&1; then
        ok "$given: a copy of $glab holds its object, not its source, and the lab program builds with it"
    else
        not_ok "$given: a copy of $glab holds its object, not its source, and the lab program builds with it"
        tail -n 5 "$work/given.log" "$work/given-build.log" 2>/dev/null | sed 's/^/    /'
    fi
    # The same copy's grader builds (with the suite's prebuilt model where it
    # has one) and grades the untouched skeleton to the end: exit 1, a summary line.
    with_model=""
    [ -f "$work/given/prebuilt/host/grading/$glab/model.o" ] && with_model=" with its prebuilt model"
    (cd "$work/given" && ./grader "${glab%%-*}" --backend=cpu) > "$work/given-grade.log" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q -E "^$glab: [0-9.]+/[0-9.]+ points" "$work/given-grade.log"; then
        ok "that copy's grader builds$with_model and grades the skeleton of $glab to the end ($(grep -E "^$glab: " "$work/given-grade.log" | cut -d ' ' -f 2))"
    else
        not_ok "that copy's grader builds$with_model and grades the skeleton of $glab to the end (exit $rc)"
        tail -n 15 "$work/given-grade.log" | sed 's/^/    /'
    fi
    rm -rf "$work/given"
done

# ---- no lab's given code holds another lab's answer ---------------------------------------
# The check across labs finds a TODO region's answer in another lab's given
# file: here lab A's first multi-line answer put into a copy of lab B's file.
set -- $labs
cross_found=no
if [ $# -ge 2 ]; then
    mkdir -p "$work/cross/labs/$2"
    perl -ne 'if (m{/\*\s*END TODO}) { exit if $n >= 3; $in = 0; $n = 0; @k = (); next }
              if (m{/\*\s*TODO\s+\d}) { $in = 1; next }
              if ($in && length((my $t = $_) =~ s/^\s+|\s+$//gr) >= 12 && !m{^\s*(/\*|\*|//)}) { $n++; print }' \
        solutions/"$1"/*.cu > "$work/cross/labs/$2/given.cu"
    tools/dist.sh --cross-leaks "$work/cross" > "$work/cross.log" 2>&1
    if grep -q "^labs/$2/given.cu: $1 TODO" "$work/cross.log"; then
        ok "the check across labs finds $1's answer put in a given file of $2"
    else
        not_ok "the check across labs finds $1's answer put in a given file of $2"; head -n 5 "$work/cross.log" | sed 's/^/    /'
    fi
fi
# Each such file in the kit itself (lab 7 reuses lab 6's step 5): a copy with
# both labs is refused unless the instructor says the students are past the
# earlier lab (DIST_EARLIER_ANSWERS=yes).
tools/dist.sh --cross-leaks . | while IFS= read -r leak; do
    file=${leak%%:*}
    head -n 5 "$file" | grep -q 'dist: compiled only' && continue   # its object only goes in the copy
    echo "$leak"
done > "$work/kit-cross"
if [ -s "$work/kit-cross" ]; then
    holder=$(head -n 1 "$work/kit-cross" | cut -d / -f 2)
    owner=$(head -n 1 "$work/kit-cross" | sed 's/^[^:]*: \([^ ]*\) .*/\1/')
    echo "# a given file holds another lab's answer (to move into a 'dist: compiled only' file): $(cat "$work/kit-cross" | tr '\n' ' ')"
    DIST_LABS="$owner $holder" DIST_GPU=no DIST_HANDOUTS=no tools/dist.sh --stage "$work/pair" > "$work/pair.log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && grep -q "another lab's answer" "$work/pair.log" && [ ! -d "$work/pair" ]; then
        ok "a copy of $owner and $holder is refused: $holder's given code holds $owner's answer"
    else
        not_ok "a copy of $owner and $holder is refused: $holder's given code holds $owner's answer (exit $rc)"
        tail -n 5 "$work/pair.log" | sed 's/^/    /'
    fi
else
    ok "no given file of the kit holds another lab's answer"
fi

# ---- the GPU fat binary's flags ------------------------------------------------------
if command -v nvcc >/dev/null 2>&1; then
    flags=$(tools/dist.sh --gencode)
    n_sm=$(echo "$flags" | grep -o 'code=sm_[0-9]*' | wc -l)
    n_known=$(nvcc --list-gpu-code 2>/dev/null | grep -c '^sm_[0-9]*$')
    n_ptx=$(echo "$flags" | grep -o 'code=compute_[0-9]*' | wc -l)
    if [ "$n_sm" -gt 0 ] && [ "$n_sm" -eq "$n_known" ] && [ "$n_ptx" -eq 1 ]; then
        ok "the GPU references are a fat binary: $n_sm architectures and PTX of the newest"
    else
        not_ok "the GPU references are a fat binary ($n_sm of $n_known architectures, $n_ptx PTX): $flags"
    fi
    echo '__global__ void k(float *a) { a[threadIdx.x] *= 2.0f; }' > "$work/k.cu"
    if nvcc $flags -c "$work/k.cu" -o "$work/k.o" > "$work/nvcc.log" 2>&1; then
        ok "nvcc accepts the fat-binary flags"
    else
        not_ok "nvcc accepts the fat-binary flags"; sed 's/^/    /' "$work/nvcc.log" | head
    fi
fi
finish
