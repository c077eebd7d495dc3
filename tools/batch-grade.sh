#!/bin/sh
# Grades a folder of submissions for one lab, in parallel, into one CSV and
# one JSON-lines file.
#
#   tools/batch-grade.sh LAB SUBMISSIONS_DIR [OUT_PREFIX]
#   make batch LAB=lab3 SUBMISSIONS=path/to/folder [OUT=grades/lab3]
#
# SUBMISSIONS_DIR holds one subfolder per student (its name is the student's
# id); the lab's .cu files may sit anywhere inside it.  Writes OUT_PREFIX.csv
# and OUT_PREFIX.jsonl (one row per submission: id, status, points, max,
# every item's result, build errors) and keeps each grader log in
# OUT_PREFIX.logs/.  Every submission is graded with the same seed, so all
# students get the same inputs; the seed is in every row for replays.  A
# second run with the same OUT_PREFIX while this one runs refuses
# (OUT_PREFIX.lock); other runs at once share nothing they write.
#
# A submission that crashes or hangs costs its own row only: the grader runs
# each item in a forked process with a time limit, and the whole submission
# has a time limit too.  Environment:
#   JOBS=N                  submissions graded at once (default: the number of cores)
#   SUBMISSION_TIMEOUT=S    seconds for one submission (default 900)
#   BACKEND=gpu|cpu         as everywhere in the kit
#   SEED=S                  the inputs' seed (default: a fresh one, printed)
#   BATCH_HIDDEN=no         grade with the public suite even when the hidden one exists
#   HIDDEN_SUITES=DIR       where the hidden suites are (default grading/hidden): DIR/<lab>.c is
#                           compiled once per batch into a grader of the batch's own
#   ONLY=ITEM,ITEM | gpu    grade only these items; "gpu": the lab's GPU-only items (its
#                           performance and sanitizer items), for a course whose platform has
#                           no GPU: grade them here and add them with tools/merge-grades.sh
#   ENGINE=local|slurm      where the submissions are graded: here (default), or as a job
#                           array on a Slurm cluster (tools/slurm-batch.sh; its settings in
#                           batch.slurm.conf, see tools/slurm.conf.example).  With slurm the
#                           batch's state stays in OUT_PREFIX.slurm/ (on the shared filesystem):
#                           a second run with the same OUT_PREFIX grades only the rows still
#                           missing, with the batch's seed; REGRADE=ID grades that one again.
set -u

usage() { echo "usage: tools/batch-grade.sh LAB SUBMISSIONS_DIR [OUT_PREFIX]" >&2; exit 2; }

# ---- one submission (run by xargs, one process per submission) -------------
# Its only argument is the submission's number: ids are data (any byte in a
# folder name), never passed through xargs or split on anything.
if [ "${1:-}" = --grade-one ]; then
    number=$2
    dir="$BATCH_WORK/src/$number"
    log="$BATCH_LOGS/$number.log"
    echo "submission $number (its id is in the tables)" > "$log"
    # A slot of its own, and as root that slot's runner user: limits on
    # processes count per user, so a fork bomb in one submission must
    # not take the processes of another graded at the same time.
    # (a Slurm task has slots of its own, in its own scratch folder)
    slots=${BATCH_SLOTS:-$BATCH_WORK}
    slot=1
    while ! mkdir "$slots/slot.$slot" 2>/dev/null; do slot=$((slot + 1)); done
    user_arg="" runner=""
    [ -n "${BATCH_USERS:-}" ] && runner="${BATCH_USERS}$slot" && user_arg="--runner-user=$runner"
    if [ "$(id -u)" = 0 ]; then
        # the grader reads the copy as the runner user; no other slot's user can
        chown -R -h "${runner:-$BATCH_RUNNER}" "$dir" && chmod 700 "$dir"
    fi
    # The grader's output, kept to its first 256 KiB (the build's own log is
    # capped by the grader).
    { timeout -k 10 "$BATCH_TIMEOUT" "$BATCH_GRADER" "$BATCH_LAB" --backend="$BATCH_BACKEND" --seed="$BATCH_SEED" \
          --student-dir="$dir" --format=json --out="$BATCH_WORK/$number.json" $user_arg \
          ${BATCH_ONLY:+--only=$BATCH_ONLY} 2>&1
      echo $? > "$BATCH_WORK/$number.rc"; } \
        | perl -e 'my ($n, $max) = (0, 262144); while (sysread(STDIN, my $b, 65536)) {
                       print substr($b, 0, $max - $n) if $n < $max; $n += length $b }
                   print "\n(this log was cut: ", $n - $max, " more bytes)\n" if $n > $max' >>"$log"
    rm -rf "$dir"   # nothing of it is left for the slot's next submission
    rmdir "$slots/slot.$slot"
    printf '.' >&2
    exit 0
fi

# ---- the batch --------------------------------------------------------------------
[ $# -ge 2 ] && [ $# -le 3 ] || usage
lab_arg=$1
case "$2" in /*) submissions=$2 ;; *) submissions="$(pwd)/$2" ;; esac
out=${3:-grades-$lab_arg}
case "$out" in /*) ;; *) out="$(pwd)/$out" ;; esac
[ -d "$submissions" ] || { echo "batch-grade: no folder $submissions" >&2; exit 2; }

self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.." || exit 2

lab=$(sh tools/lab-folder.sh "$lab_arg")
[ -n "$lab" ] && [ -d "labs/$lab" ] || { echo "batch-grade: no lab '$lab_arg' in labs/ (try: $(ls labs | tr '\n' ' '))" >&2; exit 2; }
short=${lab%%-*}
backend=${BACKEND:-$(tools/detect-backend.sh)}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
timeout_s=${SUBMISSION_TIMEOUT:-900}
engine=${ENGINE:-local}
case $engine in
local | slurm) ;;
*) echo "batch-grade: ENGINE is local or slurm, not '$engine'" >&2; exit 2 ;;
esac

# This run's own scratch folder: two batch runs at once share nothing.
# Everything the run made goes at its end (cleanup), on a signal too.
work="" grader_dir="" locked="" made_users="" keep_work=""
cleanup() {
    [ -n "$work" ] && [ -z "$keep_work" ] && rm -rf "$work"
    [ -n "$grader_dir" ] && rm -rf "$grader_dir"
    [ -n "$locked" ] && rm -f "$out.lock"
    for u in $made_users; do userdel "$u" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
work=$(mktemp -d) || exit 2

# Two runs writing the same results (the same OUT_PREFIX, or the default one
# in the same folder) would remove each other's logs and mix their tables:
# the second refuses.  The lock is the file OUT_PREFIX.lock, held for the
# whole run and removed at its end (flock(1); without it, no such guard).
# The file must still be the one locked: a run ending removes it.
if command -v flock >/dev/null 2>&1; then
    mkdir -p "$(dirname "$out")" || exit 2
    exec 9>>"$out.lock" || exit 2
    if ! flock -n 9 || ! [ "$out.lock" -ef "/proc/$$/fd/9" ]; then
        echo "batch-grade: another batch run writes $out.csv now; give this one another OUT_PREFIX" >&2
        exit 2
    fi
    locked=1
fi
# The slurm engine's work folder is the batch's state, kept between runs
# and collections on the shared filesystem: OUT_PREFIX.slurm.  A run with
# an OUT_PREFIX whose batch is already there is a rerun: it keeps the
# graded rows (and their logs) and grades only the others, with the seed
# the batch was started with.
rerun=""
if [ "$engine" = slurm ]; then
    rm -rf "$work"
    work="$out.slurm" keep_work=1
    if [ -f "$work/batch.env" ]; then
        rerun=1
        # (its rows must all be of one lab, one backend, one seed)
        old=$(. "$work/batch.env" && printf '%s %s %s' "$BATCH_LAB_FOLDER" "$BATCH_BACKEND" "$BATCH_SEED")
        set -- $old
        if [ "$1" != "$lab" ] || [ "$2" != "$backend" ] || { [ -n "${SEED:-}" ] && [ "$SEED" != "$3" ]; }; then
            echo "batch-grade: $work holds a batch of $1 on the $2 backend with seed $3: give this run another OUT_PREFIX" >&2
            exit 2
        fi
        seed=$3
        sh tools/slurm-batch.sh busy "$out" \
            && { echo "batch-grade: the batch's jobs still run: make batch-collect OUT=$out, or scancel them" >&2; exit 2; }
    else
        rm -rf "$work" "$out.logs"
    fi
    mkdir -p "$out.logs" "$work/src" && chmod 700 "$work" || exit 2
else
    rm -rf "$out.logs" && mkdir -p "$out.logs" "$work/src" || exit 2
fi

# Build what every submission shares (the grader, the harness, the reference)
# once, before the parallel runs, so that they never race to build it; under
# the kit's build lock (the grader's own), so that another batch run or a
# grader started at the same time never builds the same files at once.
if [ "$engine" = slurm ]; then
    echo "batch-grade: $lab on the $backend backend, seed $seed, as a Slurm job array"
else
    echo "batch-grade: $lab on the $backend backend, seed $seed, $jobs at a time"
fi
if [ -d "solutions/$lab" ]; then
    shared="build/host/grader build/$backend/$lab/reference-runner"
else
    shared="build/host/grader"
fi
# The cluster's tasks share this one build: everything a grading makes of
# the kit is made here, so that on the nodes the grader's own make finds it
# all up to date (it is never rebuilt per task).
[ "$engine" = slurm ] && [ -f "labs/$lab/main.c" ] && shared="$shared build/$backend/$lab/main.o"
tools/setup.sh || exit 2
mkdir -p build || exit 2
lock=""
command -v flock >/dev/null 2>&1 && lock="flock build/.build-lock"
$lock make -s --no-print-directory BACKEND="$backend" $shared >"$out.logs/shared-build.log" 2>&1 </dev/null 9>&- \
    || { echo "batch-grade: the grader or the reference did not build; see $out.logs/shared-build.log" >&2; exit 2; }

# With the instructor's hidden suite (grading/hidden/<lab>.c), a grader of
# this run's own where it replaces the public suite: built once here from
# the kit's own objects (only the suite is compiled: seconds, not the
# minutes of a whole kit), and used by every submission's run.  Its folder
# (build/batch-grader.XXXXXX, since the grader finds the kit two levels up
# from where it lies) is this run's and this user's alone, and as root the
# grader closes build/ to every other user, the runner users included.
grader="$(pwd)/grader"
hidden="${HIDDEN_SUITES:-grading/hidden}/$lab.c"
if [ -f "$hidden" ] && [ "${BATCH_HIDDEN:-yes}" = yes ]; then
    grader_dir=$(mktemp -d build/batch-grader.XXXXXX) && chmod 700 "$grader_dir" || exit 2
    $lock make -s --no-print-directory BACKEND="$backend" HIDDEN_SUITE="$hidden" HIDDEN_GRADER="$grader_dir/grader" \
        "$grader_dir/grader" >>"$out.logs/shared-build.log" 2>&1 </dev/null 9>&- \
        || { echo "batch-grade: the hidden suite $hidden did not build; see $out.logs/shared-build.log" >&2; exit 2; }
    grader="$(pwd)/$grader_dir/grader"
    echo "batch-grade: with the hidden suite $hidden"
fi

only=${ONLY:-}
if [ "$only" = gpu ]; then
    only=$("$grader" list 2>/dev/null | awk -v lab="$lab" '$1 == lab {on = 1; next} /^lab/ {on = 0}
                                                           on && /\(gpu/ {printf "%s%s", sep, $1; sep = ","}')
    [ -n "$only" ] || { echo "batch-grade: $lab has no GPU-only items" >&2; exit 2; }
    [ "$backend" = gpu ] || echo "batch-grade: warning: ONLY=gpu on the $backend backend grades nothing (run it on a GPU machine)" >&2
fi
[ -n "$only" ] && echo "batch-grade: only the items $only"

# ---- the slurm engine: copy what is to be graded, then submit the array --------
if [ "$engine" = slurm ]; then
    # A rerun's old batch grader goes: this run built its own.
    if [ -n "$rerun" ]; then
        old_dir=$(. "$work/batch.env" && printf '%s' "${BATCH_GRADER_DIR:-}")
        [ -n "$old_dir" ] && [ "$old_dir" != "$(pwd)/$grader_dir" ] && rm -rf "$old_dir"
    fi
    mkdir -p "$work/ids" "$work/stopped" "$work/attempts" && touch "$work/list" || exit 2
    # the numbers the batch gave its submissions, by the bytes of their ids
    for f in "$work"/ids/*; do
        [ -f "$f" ] && printf '%s %s\n' "$(od -An -tx1 -v "$f" | tr -d ' \n')" "${f##*/}"
    done > "$work/index"
    regrade_hex=""
    [ -n "${REGRADE:-}" ] && regrade_hex=$(printf '%s' "$REGRADE" | od -An -tx1 -v | tr -d ' \n')
    number=$(wc -l < "$work/list")
    : > "$work/todo.new"
    count=0
    for sub in "$submissions"/* "$submissions"/.[!.]* "$submissions"/..?*; do
        [ -e "$sub" ] || [ -L "$sub" ] || continue
        [ -d "$sub" ] || [ -L "$sub" ] || continue
        count=$((count + 1))
        hex=$(printf '%s' "${sub##*/}" | od -An -tx1 -v | tr -d ' \n')
        n=$(awk -v h="$hex" '$1 == h { print $2; exit }' "$work/index")
        if [ -n "$n" ]; then
            # graded already (the cluster stopping it is no grade): kept, unless regraded
            [ -e "$work/$n.rc" ] && [ "$hex" != "$regrade_hex" ] && continue
        else
            number=$((number + 1)) n=$number
            printf '%s' "${sub##*/}" > "$work/ids/$n"
            echo "$n" >> "$work/list"
        fi
        rm -rf "$work/src/$n" "$work/$n.rc" "$work/$n.json" "$work/$n.scratch" "$work/stopped/$n" "$work/attempts/$n" "$work/seen/$n"
        if [ -L "$sub" ]; then
            echo 5 > "$work/$n.rc"   # a link: not a submission's own folder
        elif cp -R -P -- "$sub" "$work/src/$n" 2>"$out.logs/$n.log"; then
            echo "$n" >> "$work/todo.new"
        else
            echo 6 > "$work/$n.rc"
        fi
    done
    [ "$count" -gt 0 ] || { echo "batch-grade: no submission folders in $submissions" >&2; exit 2; }
    [ -n "$regrade_hex" ] && ! grep -q "^$regrade_hex " "$work/index" \
        && echo "batch-grade: REGRADE: no submission '$REGRADE' in this batch yet (graded as a new one if its folder is there)" >&2
    if [ "$(id -u)" = 0 ] && [ -n "$(find "$submissions" -maxdepth 0 -perm /0077 2>/dev/null)" ]; then
        chmod go-rwx "$submissions" && echo "batch-grade: $submissions is now closed to other users (chmod go-rwx)"
    fi
    runner=nobody
    id cudalabs >/dev/null 2>&1 && runner=cudalabs
    q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
    {
        echo "# the batch's settings, read by tools/slurm-batch.sh (its tasks and its collections)"
        echo "BATCH_KIT=$(q "$(pwd)")"
        echo "BATCH_GRADER=$(q "$grader")"
        echo "BATCH_GRADER_DIR=$(q "${grader_dir:+$(pwd)/$grader_dir}")"
        echo "BATCH_LAB=$(q "$short")"
        echo "BATCH_LAB_FOLDER=$(q "$lab")"
        echo "BATCH_BACKEND=$(q "$backend")"
        echo "BATCH_SEED=$(q "$seed")"
        echo "BATCH_TIMEOUT=$(q "$timeout_s")"
        echo "BATCH_ONLY=$(q "$only")"
        echo "BATCH_RUNNER=$(q "$runner")"
        echo "BATCH_OUT=$(q "$out")"
        echo "BATCH_SUBMISSIONS=$(q "$submissions")"
    } > "$work/batch.env" || exit 2
    grader_dir=""   # the cluster's tasks use it: slurm-batch.sh removes it once the batch is whole
    rm -f "$work/index"
    # (the lock goes with this run; slurm-batch.sh takes it again)
    [ -n "$locked" ] && { exec 9>&-; rm -f "$out.lock"; locked=""; }
    sh tools/slurm-batch.sh submit "$out" "$work/todo.new"
    exit $?
fi

# Each submission is copied (links as links, which the grader refuses) into
# the batch's own scratch folder, as $work/src/NUMBER, and its id kept in
# $work/ids/NUMBER: any byte of a folder name is data.  The grader reads
# only the copy: a submissions folder inside the kit is never read by a
# build, and as root each copy belongs to its slot's runner user alone.
number=0
mkdir -p "$work/ids" && chmod 711 "$work" "$work/src"
for sub in "$submissions"/* "$submissions"/.[!.]* "$submissions"/..?*; do
    [ -e "$sub" ] || [ -L "$sub" ] || continue
    [ -d "$sub" ] || [ -L "$sub" ] || continue
    number=$((number + 1))
    printf '%s' "${sub##*/}" > "$work/ids/$number"
    echo "$number" >> "$work/list"
    if [ -L "$sub" ]; then
        echo 5 > "$work/$number.rc"   # a link: not a submission's own folder
    else
        cp -R -P -- "$sub" "$work/src/$number" 2>"$out.logs/$number.log" || echo 6 > "$work/$number.rc"
    fi
done
[ "$number" -gt 0 ] || { echo "batch-grade: no submission folders in $submissions" >&2; exit 2; }
# As root, the submissions folder itself is closed to other users (the
# runner users among them): without Landlock, a build could otherwise read
# another student's files by their path.
if [ "$(id -u)" = 0 ] && [ -n "$(find "$submissions" -maxdepth 0 -perm /0077 2>/dev/null)" ]; then
    chmod go-rwx "$submissions" && echo "batch-grade: $submissions is now closed to other users (chmod go-rwx)"
fi

# As root: one runner user per slot, made for this run.
# The users are this batch run's own (cudalabs-PID-N, removed at the end), so
# that two batch runs at once never share one.
users=""
runner=nobody
id cudalabs >/dev/null 2>&1 && runner=cudalabs   # the grader's own choice (contain.c)
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1; then
    users=cudalabs-$$-
    for k in $(seq 1 "$jobs"); do
        tries=0
        until id "$users$k" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$users$k" 2>/dev/null; do
            tries=$((tries + 1))   # another batch run may hold the lock on /etc/passwd
            [ $tries -lt 5 ] || { echo "batch-grade: could not make the runner user $users$k; submissions share one" >&2; users=""; break 2; }
            sleep 1
        done
        made_users="$made_users $users$k"
    done
fi
export BATCH_GRADER="$grader" BATCH_WORK="$work" BATCH_LOGS="$out.logs" BATCH_LAB="$short" BATCH_USERS="$users" BATCH_RUNNER="$runner" BATCH_ONLY="$only" \
       BATCH_BACKEND="$backend" BATCH_SEED="$seed" BATCH_TIMEOUT="$timeout_s"
# (fd 9, the lock, stays with this shell: the graders and what they start never hold it)
for n in $(cat "$work/list"); do [ -e "$work/$n.rc" ] || echo "$n"; done | xargs -n 1 -P "$jobs" sh "$self" --grade-one 9>&-
echo >&2

# ---- the two tables -------------------------------------------------------------
perl tools/batch-tables.pl "$work" "$out" "$lab" "$seed" "$backend" "$timeout_s" "$submissions" || exit 2
echo "batch-grade: $number submissions -> $out.csv, $out.jsonl (logs in $out.logs/)"
