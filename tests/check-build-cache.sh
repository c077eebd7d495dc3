#!/bin/sh
# The build cache (common/grading/build_cache.h, CUDALABS_BUILD_CACHE): the
# same files graded again take the build kept from the first grade, with the
# same grade; changed files, another time limit, a build that failed and a
# build without Landlock are built anew, and nothing of them is kept; a
# PATH that finds the same compilers shares the kept build.  nvcc's front
# check (where nvcc is here): its pass on files built in the walls is kept,
# and spares nvcc to the same files built again without Landlock, which are
# still built; a file nvcc rejects is never kept as passed; with
# CUDALABS_NVCC_CHECK=no there is no check, and that build is kept apart.
# Lab 3 on the cpu backend.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
lab=lab3-folding file=fold.cu
[ -d "solutions/$lab" ] || { ok "build cache # SKIP no solution of $lab in this copy"; finish; }
work=$(mktemp -d) && chmod 755 "$work" && trap 'rm -rf "$work"' EXIT
make -s BACKEND=cpu build/host/grader build/cpu/$lab/reference-runner build/cpu/$lab/main.o >/dev/null 2>&1
export CUDALABS_BUILD_CACHE="$work/cache"
# (builds: the users' folders, not the front check's verdicts that root keeps for every user)
kept() { entries | wc -l; }
verdicts() { find "$CUDALABS_BUILD_CACHE/verdicts-of-root" -mindepth 1 -maxdepth 1 -type d ! -name '.new-*' 2>/dev/null | wc -l; }
grade() { # grade NAME DIR [ENV...]: $work/NAME.out and .json
    name=$1 dir=$2
    shift 2
    env "$@" ./grader lab3 --backend=cpu --seed=11 --student-dir="$dir" --only=fold_sums_exact,fold_launches \
        --format=json --out="$work/$name.json" >"$work/$name.out" 2>&1
}
same_grade() { [ "$(json_items "$work/$1.json")" = "$(json_items "$work/$2.json")" ] && [ -n "$(json_items "$work/$1.json")" ]; }
entries() { find "$CUDALABS_BUILD_CACHE" -mindepth 2 -maxdepth 2 -type d ! -name '.new-*' ! -name files ! -path '*/verdicts-of-root/*' 2>/dev/null | sort; }
front_checked=""
[ -s build/cpu/harness/nvcc-check ] && [ "$(id -u)" = 0 ] && front_checked=yes
walled=$(./grader lab3 --backend=cpu --solution --only=fold_launches 2>&1 | grep -c "namespaces.*Landlock")
if [ "$walled" -eq 0 ]; then
    ok "build cache # SKIP this host has not both namespaces and Landlock: nothing is ever kept"
    finish
fi

mkdir -p "$work/right/$lab" "$work/wrong/$lab" "$work/broken/$lab"
cp "solutions/$lab/$file" "$work/right/$lab/"
cp "labs/$lab/$file" "$work/wrong/$lab/"
{ cat "solutions/$lab/$file"; echo "this does not compile"; } > "$work/broken/$lab/$file"

# The proof that a kept build is what a grade takes: the right file's kept
# build swapped for the skeleton's, then the right file graded again, which
# then grades as the skeleton.
grade first "$work/right/$lab"
right_entry=$(entries)
grade skeleton "$work/wrong/$lab"
wrong_entry=$(entries | grep -v -x -F "$right_entry")
if [ "$(kept)" -eq 2 ] && ! same_grade first skeleton; then
    ok "each new set of files is built and kept once, and graded as itself"
else
    not_ok "each new set of files is built and kept once (kept: $(kept))"
    sed 's/^/    /' "$work/skeleton.out" | head -n 20
fi
grade again "$work/right/$lab"
cp "$right_entry/0" "$work/right.so" && cp "$wrong_entry/0" "$right_entry/0"
grade swapped "$work/right/$lab"
cp "$work/right.so" "$right_entry/0"
if [ "$(kept)" -eq 2 ] && same_grade first again && same_grade skeleton swapped; then
    ok "the same files graded again take the kept build (with the same grade)"
else
    not_ok "the same files graded again take the kept build (kept: $(kept))"
    sed 's/^/    /' "$work/swapped.out" | head -n 20
fi

grade broken1 "$work/broken/$lab"
grade broken2 "$work/broken/$lab"
if [ "$(kept)" -eq 2 ] && grep -q "does not compile" "$work/broken2.out"; then
    ok "a build that failed is not kept: graded again, it is built again and says why"
else
    not_ok "a build that failed is not kept (kept: $(kept))"
    sed 's/^/    /' "$work/broken2.out" | head -n 20
fi

grade limit "$work/right/$lab" STUDENT_BUILD_SECONDS=77
if [ "$(kept)" -eq 3 ]; then
    ok "another build time limit is another key"
else
    not_ok "another build time limit is another key (kept: $(kept))"
fi

# (from here the right file's kept build is the skeleton's: a grade that
# took it would grade as the skeleton)
cp "$wrong_entry/0" "$right_entry/0"
grade open "$work/right/$lab" CUDALABS_NO_LANDLOCK=1
if [ "$(kept)" -eq 3 ] && same_grade first open; then
    ok "a build without Landlock (it could read more than its scratch folder) neither takes nor leaves a kept build"
else
    not_ok "a build without Landlock neither takes nor leaves a kept build (kept: $(kept))"
    sed 's/^/    /' "$work/open.out" | head -n 20
fi

# nvcc's front check: its pass on the right file in the walls (the first
# grade) was kept, and spared to the grade without Landlock above, which
# was still built (graded as itself, not as the kept skeleton); the
# skeleton's and the longer limit's passes are kept too, the broken file's
# (g++ failed after nvcc) is not.
if [ -z "$front_checked" ]; then
    ok "nvcc's front check kept # SKIP no nvcc here that compiles the kit, or not root (root's verdicts are the ones kept for all)"
else
    # (the grader says so where its error output is a terminal: script(1) gives it one)
    script -qec "env CUDALABS_NO_LANDLOCK=1 ./grader lab3 --backend=cpu --seed=11 --student-dir='$work/right/$lab' \
        --only=fold_sums_exact,fold_launches --format=json --out='$work/open-tty.json'" /dev/null > "$work/open-tty.out" 2>&1 < /dev/null
    script -qec "env CUDALABS_NO_LANDLOCK=1 ./grader lab3 --backend=cpu --seed=11 --student-dir='$work/broken/$lab' \
        --only=fold_sums_exact,fold_launches" /dev/null > "$work/broken-tty.out" 2>&1 < /dev/null
    if [ "$(verdicts)" -eq 2 ] && grep -q "nvcc's check passed on the same files before" "$work/open-tty.out" \
       && same_grade first open-tty && ! grep -q "nvcc's check passed" "$work/broken-tty.out"; then
        ok "nvcc's pass on files built in the walls is kept, and spares nvcc to the same files built without Landlock"
    else
        not_ok "nvcc's pass on files built in the walls is kept, and spares nvcc to the same files built without Landlock (verdicts: $(verdicts))"
        sed 's/^/    /' "$work/open-tty.out" | head -n 20
    fi
    # a host function called from a kernel: g++ builds it, nvcc does not
    mkdir -p "$work/host-call/$lab"
    { cat "solutions/$lab/$file"
      printf '\nstatic int host_only(int x) { return x + 1; }\n__global__ void uses_host(int *a) { a[0] = host_only(a[0]); }\n'
    } > "$work/host-call/$lab/$file"
    before=$(verdicts)
    grade host-call1 "$work/host-call/$lab"
    grade host-call2 "$work/host-call/$lab" CUDALABS_NO_LANDLOCK=1
    grade host-call3 "$work/host-call/$lab" CUDALABS_NO_NAMESPACES=1
    if [ "$(verdicts)" -eq "$before" ] && grep -q "__host__ function" "$work/host-call1.out" \
       && grep -q "__host__ function" "$work/host-call2.out" && grep -q "__host__ function" "$work/host-call3.out"; then
        ok "a file nvcc rejects is never kept as passed: in the walls and out of them, nvcc says why it does not build"
    else
        not_ok "a file nvcc rejects is never kept as passed (verdicts: $before, then $(verdicts))"
        sed 's/^/    /' "$work/host-call2.out" | head -n 20
    fi
    if [ "$(stat -c '%u %a' "$CUDALABS_BUILD_CACHE/verdicts-of-root")" = "0 755" ]; then
        ok "root's verdicts are in a folder that only root writes"
    else
        not_ok "root's verdicts are in a folder that only root writes ($(stat -c '%u %a' "$CUDALABS_BUILD_CACHE/verdicts-of-root"))"
    fi
fi

# another PATH that finds the same tools is the same build (a package's
# PATH differs from a shell's): it takes the kept one, the skeleton's now
grade path "$work/right/$lab" PATH="$work/no-tools-here:$PATH"
if [ "$(kept)" -eq 3 ] && same_grade skeleton path; then
    ok "a PATH that finds the same compilers takes the kept build"
else
    not_ok "a PATH that finds the same compilers takes the kept build (kept: $(kept))"
    sed 's/^/    /' "$work/path.out" | head -n 20
fi

grade plain "$work/right/$lab" CUDALABS_BUILD_CACHE=
if same_grade first plain; then
    ok "without CUDALABS_BUILD_CACHE every build is made anew"
else
    not_ok "without CUDALABS_BUILD_CACHE every build is made anew"
    sed 's/^/    /' "$work/plain.out" | head -n 20
fi

# CUDALABS_NVCC_CHECK=no (check-mutants, whose files check-nvcc compiles
# with nvcc): no front check, so a file only nvcc refuses builds with g++
# and is graded; that build is kept apart from one with the check, so the
# same file graded without the setting is refused by nvcc again.
if [ -n "$front_checked" ]; then
    before=$(kept)
    grade unchecked "$work/host-call/$lab" CUDALABS_NVCC_CHECK=no
    grade checked-again "$work/host-call/$lab"
    if [ -n "$(json_items "$work/unchecked.json")" ] && ! grep -q "__host__ function" "$work/unchecked.out" \
       && grep -q "__host__ function" "$work/checked-again.out" && [ "$(kept)" -eq $((before + 1)) ]; then
        ok "CUDALABS_NVCC_CHECK=no leaves nvcc's check out, and its build is never taken by a grade with the check"
    else
        not_ok "CUDALABS_NVCC_CHECK=no leaves nvcc's check out, and its build is never taken by a grade with the check (kept: $before, then $(kept))"
        sed 's/^/    /' "$work/unchecked.out" "$work/checked-again.out" | head -n 20
    fi
fi
finish
