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
    slot=1
    while ! mkdir "$BATCH_WORK/slot.$slot" 2>/dev/null; do slot=$((slot + 1)); done
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
    rmdir "$BATCH_WORK/slot.$slot"
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

# This run's own scratch folder: two batch runs at once share nothing.
# Everything the run made goes at its end (cleanup), on a signal too.
work="" grader_dir="" locked="" made_users=""
cleanup() {
    [ -n "$work" ] && rm -rf "$work"
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
rm -rf "$out.logs" && mkdir -p "$out.logs" "$work/src" || exit 2

# Build what every submission shares (the grader, the harness, the reference)
# once, before the parallel runs, so that they never race to build it; under
# the kit's build lock (the grader's own), so that another batch run or a
# grader started at the same time never builds the same files at once.
echo "batch-grade: $lab on the $backend backend, seed $seed, $jobs at a time"
if [ -d "solutions/$lab" ]; then
    shared="build/host/grader build/$backend/$lab/reference-runner"
else
    shared="build/host/grader"
fi
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
perl -MJSON::PP -MEncode -e '
    my ($work, $out, $lab, $seed, $backend, $timeout, $submissions) = @ARGV;
    my (@rows, @item_names, %seen_item, $max_seen);
    open my $list, "<", "$work/list" or die;
    while (my $line = <$list>) {
        chomp $line;
        my $number = $line;
        my $id = do { local $/; open my $f, "<", "$work/ids/$number" or die; <$f> };
        $id = Encode::decode("UTF-8", $id);  # the folder name as it is (invalid bytes become U+FFFD)
        my $dir = "$submissions/$id";
        my $rc = do { local @ARGV = ("$work/$number.rc"); my $v = <>; defined $v ? $v + 0 : 255 };
        # The submission was copied to a scratch folder: name its files alone.
        my $scratch = "$work/src/$number/";
        my $log = do { local $/; open my $f, "<", "$out.logs/$number.log"; <$f> // "" };
        $log = Encode::decode("UTF-8", $log);  # any bytes: invalid ones become U+FFFD
        $log =~ s/[\x00-\x08\x0b-\x1f\x7f-\x9f]/?/g;
        $log =~ s/\Q$scratch\E//g;
        my $result;
        if (open my $f, "<", "$work/$number.json") {
            local $/; my $text = <$f>;
            $text =~ s/\Q$scratch\E//g;
            $result = eval { decode_json($text) };
        }
        my $row = { id => $id, lab => $lab, backend => $backend, seed => $seed + 0, exit_code => $rc,
                    points => 0, max_points => undef, items => [], build_errors => "",
                    log => "$out.logs/$number.log" };
        my $graded = $result && $result->{labs} && @{$result->{labs}} ? $result->{labs}[0] : undef;
        if ($graded) {
            $row->{points} = $result->{points} + 0;
            $row->{max_points} = $result->{max_points} + 0;
            for my $item (@{$graded->{items} || []}) {
                push @{$row->{items}}, { map { $_ => $item->{$_} } qw(name status points max_points feedback) };
                push @item_names, $item->{name} unless $seen_item{$item->{name}}++;
            }
            $max_seen = $row->{max_points} if !defined $max_seen || $row->{max_points} > $max_seen;
        }
        $rc = 3 if $rc == 2 && $log =~ /holds no file of/;
        $row->{status} =
              $rc == 3   ? "no_files"
            : $rc == 5 || $rc == 6 ? "refused"
            : $rc == 124 || $rc == 137 ? "timeout"
            : $rc == 2   ? "not_gradable"
            : $rc == 0 && $graded ? "full_marks"
            : $rc == 1 && $graded ? "graded"
            : "grader_error";
        $row->{status} = "timeout" if $rc == 124 || $rc == 137;
        if ($row->{status} ne "full_marks" && $row->{status} ne "graded") {
            # Why it could not be graded: the compiler errors, else the last lines.
            my @lines = grep { /\berror\b|undefined reference|No rule to make|refused|two copies|symbolic link/i && !/^\s*[A-Z]+\s+[\d.]+\/[\d.]+\s/ } split /\n/, $log;
            s/^\s+// for @lines;
            @lines = (split /\n/, $log)[-5 .. -1] unless @lines;
            @lines = grep { defined } @lines;
            $row->{build_errors} = join "\n", @lines[0 .. ($#lines < 19 ? $#lines : 19)];
            $row->{build_errors} = "no time left: stopped after $timeout s\n" . $row->{build_errors}
                if $row->{status} eq "timeout";
            $row->{build_errors} = "none of the lab'"'"'s files were found in $dir" if $row->{status} eq "no_files";
            $row->{build_errors} = "not a folder but a symbolic link: not graded" if $rc == 5;
            $row->{build_errors} = "could not be copied: " . $row->{build_errors} if $rc == 6;
        }
        push @rows, $row;
    }
    for my $row (@rows) { $row->{max_points} //= $max_seen; }
    @rows = sort { $a->{id} cmp $b->{id} } @rows;

    my $json = JSON::PP->new->utf8->canonical;
    open my $jl, ">", "$out.jsonl" or die "$out.jsonl: $!";
    print $jl $json->encode($_), "\n" for @rows;

    require "./tools/csv-cell.pl"; # spreadsheet-safe cells
    open my $csv, ">:encoding(UTF-8)", "$out.csv" or die "$out.csv: $!";
    print $csv join(",", map { csv_cell($_) } qw(id status points max_points exit_code seed), @item_names, "build_errors"), "\n";
    for my $row (@rows) {
        my %by_name = map { $_->{name} => $_ } @{$row->{items}};
        my @cells = map { my $i = $by_name{$_}; !$i ? "" : $i->{status} eq "skipped" ? "skipped" : $i->{points} } @item_names;
        (my $errors = $row->{build_errors}) =~ s/\n/ | /g;
        print $csv join(",", map { csv_cell($_) } $row->{id}, $row->{status}, $row->{points}, $row->{max_points} // "",
                        $row->{exit_code}, $row->{seed}, @cells, $errors), "\n";
    }
    printf "  %-24s %-14s %s\n", $_->{id}, $_->{status}, defined $_->{max_points} ? "$_->{points}/$_->{max_points}" : "-" for @rows;
 ' "$work" "$out" "$lab" "$seed" "$backend" "$timeout_s" "$submissions" || exit 2
echo "batch-grade: $number submissions -> $out.csv, $out.jsonl (logs in $out.logs/)"
