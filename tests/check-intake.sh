#!/bin/sh
# The intake of submissions and the walls of the student's build (issue 25,
# and issue 27's two copies): a submission's lab file that is a symbolic
# link, two copies of a lab file, compile errors that would quote a file
# outside the submission, a build without end (its log and its memory), the
# kit's own secrets and a batch folder inside the kit read by #include, and
# batch grading with ids that hold tabs, newlines, quotes and leading dashes,
# two batch runs at once.  Lab 3 on the cpu backend.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
lab=lab3-folding file=fold.cu
[ -d "solutions/$lab" ] || { ok "intake # SKIP no solution of $lab in this copy"; finish; }
work=$(mktemp -d) && chmod 755 "$work" && trap 'rm -rf "$work" "$inkit"' EXIT
kit=$(pwd)
seed=42
export STUDENT_BUILD_SECONDS=60
make -s BACKEND=cpu build/host/grader build/cpu/$lab/reference-runner build/cpu/$lab/main.o >/dev/null 2>&1

NVCC_CHECK=
grade() { # grade NAME DIR: $work/NAME.out, exit status in $rc
    NVCC_CHECK=$NVCC_CHECK ./grader lab3 --backend=cpu --seed=$seed --student-dir="$2" --only=fold_sums_exact >"$work/$1.out" 2>&1
    rc=$?
}
points() { sed -n "s|^$lab: \([0-9.]*\)/.*|\1|p" "$work/$1.out" | tail -n 1; }
show() { sed 's/^/    /' "$work/$1.out" | head -n 20; }
sub() { mkdir -p "$work/subs/$1" && echo "$work/subs/$1"; }

# ---- intake --------------------------------------------------------------------------------------
d=$(sub link) && ln -s "/proc/self/cwd/solutions/$lab/$file" "$d/$file"
grade link "$d"
[ $rc = 2 ] && grep -q "$file is a symbolic link" "$work/link.out" && [ -z "$(points link)" ] \
    && ok "a lab file that is a symbolic link (to the solution) is refused, by name" \
    || { not_ok "a lab file that is a symbolic link (to the solution) is refused, by name (exit $rc, $(points link) points)"; show link; }
d=$(sub link-abs) && ln -s "$kit/solutions/$lab/$file" "$d/$file"
grade link-abs "$d"
[ $rc = 2 ] && grep -q "symbolic link" "$work/link-abs.out" \
    && ok "a symbolic link by the kit's own path is refused" || { not_ok "a symbolic link by the kit's own path is refused (exit $rc)"; show link-abs; }
# a file only its owner may read (patch -o and some unzip tools make them):
# graded, as root too, where the runner user may not read it
d=$(sub private) && cp "solutions/$lab/$file" "$d/" && chmod 600 "$d/$file"
grade private "$d"
[ $rc = 0 ] && [ "$(points private)" != 0.0 ] && ok "a lab file of mode 600 is graded" \
    || { not_ok "a lab file of mode 600 is graded (exit $rc)"; show private; }
# and a hard link to it is refused where root reads (it could be a file of the system's)
if [ "$(id -u)" = 0 ]; then
    d=$(sub hard) && ln "$work/subs/private/$file" "$d/$file"
    grade hard "$d"
    [ $rc = 2 ] && grep -q "hard link" "$work/hard.out" && ok "as root, a lab file of mode 600 with another name is refused" \
        || { not_ok "as root, a lab file of mode 600 with another name is refused (exit $rc)"; show hard; }
fi
d=$(sub two) && mkdir -p "$d/a" "$d/b" && cp "labs/$lab/$file" "$d/a/" && cp "solutions/$lab/$file" "$d/b/"
grade two "$d"
[ $rc = 2 ] && grep -q "two copies of $file: a/$file and b/$file" "$work/two.out" \
    && ok "two copies of a lab file (a/ and b/) are refused with both paths" \
    || { not_ok "two copies of a lab file (a/ and b/) are refused with both paths (exit $rc, $(points two) points)"; show two; }
d=$(sub nested) && mkdir -p "$d/deep/er" && cp "solutions/$lab/$file" "$d/deep/er/"
grade nested "$d"
[ $rc = 0 ] && ok "a lab file in a nested folder is found and graded" || { not_ok "a lab file in a nested folder is found and graded (exit $rc)"; show nested; }

# ---- the build's walls ---------------------------------------------------------------------------
attack() { # attack NAME TEXT: the skeleton with TEXT appended
    d=$(sub "$1") && { cat "labs/$lab/$file"; printf '%s\n' "$2"; } > "$d/$file"
    t0=$(date +%s); grade "$1" "$d"; took=$(( $(date +%s) - t0 ))
}
attack passwd '#include "/etc/passwd"'
first=$(head -n 1 /etc/passwd | cut -c 1-20)
[ $rc = 2 ] && grep -q "does not compile" "$work/passwd.out" && ! grep -rqF "$first" "$work/passwd.out" build/logs/*-$lab-student.log \
    && grep -q "outside your submission" "$work/passwd.out" \
    && ok "#include \"/etc/passwd\": the feedback names the file, not its text" \
    || { not_ok "#include \"/etc/passwd\": the feedback names the file, not its text (exit $rc)"; show passwd; }
if [ "$(id -u)" = 0 ]; then
    attack shadow "$(sed -n '/^#include/,$p' tests/attacks/$lab/incbin-shadow.cu)"
    [ $rc = 2 ] && grep -q "does not compile" "$work/shadow.out" && ! grep -q 'root:' "$work/shadow.out" \
        && ok "as root, .incbin \"/etc/shadow\" does not build (the build runs as the runner user)" \
        || { not_ok "as root, .incbin \"/etc/shadow\" does not build (exit $rc)"; show shadow; }
fi
# (these with NVCC_CHECK=no: g++ then reads the file, as where nvcc is missing)
NVCC_CHECK=no; attack passwd-gcc '#include "/etc/passwd"'; NVCC_CHECK=
[ $rc = 2 ] && ! grep -rqF "$first" "$work/passwd-gcc.out" build/logs/*-$lab-student.log && grep -q "outside your submission" "$work/passwd-gcc.out" \
    && ok "#include \"/etc/passwd\" (g++'s messages): the feedback names the file, not its text" \
    || { not_ok "#include \"/etc/passwd\" (g++'s messages): the feedback names the file, not its text (exit $rc)"; show passwd-gcc; }
NVCC_CHECK=no; attack zero '#include "/dev/zero"'; NVCC_CHECK=
[ $rc = 2 ] && [ $took -lt 60 ] && grep -q "memory" "$work/zero.out" \
    && ok "#include \"/dev/zero\" ends in $took s with a message about memory" \
    || { not_ok "#include \"/dev/zero\" ends with a message about memory (exit $rc, $took s)"; show zero; }
before=$(du -sk build/logs | cut -f 1)
NVCC_CHECK=no; attack self "$(sed -n '/^#include/,$p' tests/attacks/$lab/self-include.cu)"; NVCC_CHECK=
grown=$(( $(du -sk build/logs | cut -f 1) - before ))
[ $rc = 2 ] && [ "$grown" -lt 1024 ] && [ $took -lt 60 ] && ok "a file that includes itself twice does not build, in $took s, and leaves ${grown} KiB of log" \
    || { not_ok "a file that includes itself twice does not build, quickly, and leaves little log (exit $rc, $took s, ${grown} KiB)"; show self; }
attack syntax 'this is not C;'
[ $rc = 2 ] && grep -q "$file[:(][0-9]*.*error" "$work/syntax.out" && grep -q '^ *\^' "$work/syntax.out" \
    && ok "the student's own error keeps its line and caret" || { not_ok "the student's own error keeps its line and caret"; show syntax; }
# (CUDALABS_NO_LANDLOCK=1: where sandbox.c offers it, without Landlock)
d=$(sub cwd) && echo "#include \"/proc/self/cwd/solutions/$lab/$file\"" > "$d/$file"
export CUDALABS_NO_LANDLOCK=1; grade cwd "$d"; unset CUDALABS_NO_LANDLOCK
[ "${rc}" = 2 ] && [ "$(points cwd)" = 0.0 ] && ok "#include of the solution through /proc/self/cwd scores nothing" \
    || { not_ok "#include of the solution through /proc/self/cwd scores nothing (exit $rc, $(points cwd))"; show cwd; }
# a batch folder inside the kit: another submission's file through the build's working folder
inkit="$kit/export-intake-$$"
mkdir -p "$inkit/alice" "$inkit/mallory" && cp "solutions/$lab/$file" "$inkit/alice/"
echo "#include \"/proc/self/cwd/export-intake-$$/alice/$file\"" > "$inkit/mallory/$file"
export CUDALABS_NO_LANDLOCK=1; grade inkit "$inkit/mallory"; unset CUDALABS_NO_LANDLOCK
[ "${rc}" = 2 ] && [ "$(points inkit)" = 0.0 ] && ok "#include of a batch folder inside the kit through /proc/self/cwd scores nothing" \
    || { not_ok "#include of a batch folder inside the kit through /proc/self/cwd scores nothing (exit $rc, $(points inkit))"; show inkit; }

# A batch folder inside the kit: mallory's file names alice's by the kit's own path.
mkdir -p "$inkit/batch/alice" "$inkit/batch/mallory"
cp "solutions/$lab/$file" "$inkit/batch/alice/"
echo "#include \"$inkit/batch/alice/$file\"" > "$inkit/batch/mallory/$file"
CUDALABS_NO_LANDLOCK=1 SEED=$seed JOBS=2 ONLY=fold_sums_exact tools/batch-grade.sh lab3 "$inkit/batch" "$work/inkit" > "$work/inkit-batch.out" 2>&1
m=$(ID=mallory perl -MJSON::PP -ne 'my $r = decode_json($_); print "$r->{status} $r->{points}" if $r->{id} eq $ENV{ID}' < "$work/inkit.jsonl" 2>/dev/null)
a=$(ID=alice perl -MJSON::PP -ne 'my $r = decode_json($_); print "$r->{status} $r->{points}" if $r->{id} eq $ENV{ID}' < "$work/inkit.jsonl" 2>/dev/null)
[ "$a" = "full_marks 20" ] && [ "${m%% *}" = not_gradable ] \
    && ok "batch in a folder inside the kit: another student's file, #included by its path, is not readable ($m)" \
    || { not_ok "batch in a folder inside the kit: another student's file, #included by its path, is not readable (alice '$a', mallory '$m')"; tail -n 5 "$work/inkit-batch.out" | sed 's/^/    /'; }

# ---- batch grading: ids are data ----------------------------------------------------------------
subs="$work/batch"
tab=$(printf '\t') nl='
'
mkdir -p "$subs/mallory${tab}solutions" "$subs/zed-correct" "$subs/-dash" "$subs/new${nl}line" "$subs/quote \"q\" 'x'" \
         "$subs/two/a" "$subs/two/b"
cp "labs/$lab/$file" "$subs/mallory${tab}solutions/"
cp "solutions/$lab/$file" "$subs/zed-correct/"
cp "solutions/$lab/$file" "$subs/-dash/"
cp "solutions/$lab/$file" "$subs/new${nl}line/"
cp "solutions/$lab/$file" "$subs/quote \"q\" 'x'/"
cp "labs/$lab/$file" "$subs/two/a/" && cp "solutions/$lab/$file" "$subs/two/b/"
mkdir -p "$subs/linked" && ln -s "$kit/solutions/$lab/$file" "$subs/linked/$file"
SEED=$seed JOBS=2 ONLY=fold_sums_exact tools/batch-grade.sh lab3 "$subs" "$work/grades" > "$work/batch.out" 2>&1
brc=$?
row() { ID=$1 perl -MJSON::PP -ne 'my $r = decode_json($_); print "$r->{status} $r->{points}\n" if $r->{id} eq $ENV{ID}' < "$work/grades.jsonl" 2>/dev/null; }
full=$(row zed-correct)
[ $brc = 0 ] && [ "$(row "mallory${tab}solutions")" = "graded 0" ] && [ "$full" = "full_marks 20" ] \
    && ok "batch: mallory<TAB>solutions grades its own skeleton (0), the next student keeps full marks" \
    || { not_ok "batch: mallory<TAB>solutions grades its own skeleton, the next student keeps full marks (exit $brc: '$(row "mallory${tab}solutions")', '$full')"; tail -n 12 "$work/batch.out" | sed 's/^/    /'; }
[ "$(row -dash)" = "full_marks 20" ] && [ "$(row "new${nl}line")" = "full_marks 20" ] && [ "$(row "quote \"q\" 'x'")" = "full_marks 20" ] \
    && ok "batch: ids with a leading dash, a newline and quotes grade as they are" \
    || not_ok "batch: ids with a leading dash, a newline and quotes grade as they are ('$(row -dash)', '$(row "new${nl}line")', '$(row "quote \"q\" 'x'")')"
[ "$(grep -c . "$work/grades.jsonl")" = 7 ] && grep -q '^"'"'"'-dash",' "$work/grades.csv" && grep -q "^\"new$" "$work/grades.csv" \
    && ok "batch: one row per folder, ids CSV-quoted" || { not_ok "batch: one row per folder, ids CSV-quoted"; sed 's/^/    /' "$work/grades.csv" | cut -c 1-80; }
[ "$(row two | cut -d ' ' -f 1)" = not_gradable ] && grep -q 'two copies' "$work/grades.csv" \
    && [ "$(row linked | cut -d ' ' -f 1)" = not_gradable ] && grep -q 'symbolic link' "$work/grades.csv" \
    && ok "batch: two copies and a symbolic link are refused, with the reason in the row" \
    || not_ok "batch: two copies and a symbolic link are refused, with the reason in the row ('$(row two)', '$(row linked)')"

# Two batch runs at once: their runner users must differ (a fork bomb in one
# must not take the other's processes).  Each run grades one submission
# whose fold_sum returns 1000000 + its user id, which the feedback shows.
if [ "$(id -u)" = 0 ]; then
    for k in 1 2; do
        mkdir -p "$work/b$k/uid$k"
        { echo '#define fold_sum fold_sum_hijacked'; cat "solutions/$lab/$file"; echo '#undef fold_sum'
          printf '#include <unistd.h>\nextern "C" int fold_sum(const int *a, int n) { (void)a; (void)n; return 1000000 + (int)getuid(); }\n'
        } > "$work/b$k/uid$k/$file"
    done
    SEED=$seed JOBS=2 ONLY=fold_sums_exact tools/batch-grade.sh lab3 "$work/b1" "$work/g1" > "$work/b1.out" 2>&1 & p1=$!
    SEED=$seed JOBS=2 ONLY=fold_sums_exact tools/batch-grade.sh lab3 "$work/b2" "$work/g2" > "$work/b2.out" 2>&1
    r2=$?; wait $p1; r1=$?
    u1=$(grep -o 'returned 1[0-9]*' "$work/g1.jsonl" 2>/dev/null | head -n 1)
    u2=$(grep -o 'returned 1[0-9]*' "$work/g2.jsonl" 2>/dev/null | head -n 1)
    [ $r1 = 0 ] && [ $r2 = 0 ] && [ -n "$u1" ] && [ -n "$u2" ] && [ "$u1" != "$u2" ] \
        && ok "two batch runs at once run their submissions as different users ($u1, $u2)" \
        || { not_ok "two batch runs at once run their submissions as different users (exit $r1 $r2: '$u1' '$u2')"; tail -n 5 "$work/b1.out" "$work/b2.out" | sed 's/^/    /'; }
    left=$(grep -c '^cudalabs-[0-9]*-' /etc/passwd)
    [ "$left" = 0 ] && ok "the batch runs removed their runner users" || not_ok "the batch runs removed their runner users ($left left)"
else
    ok "two batch runs at once # SKIP needs root"
fi
finish
