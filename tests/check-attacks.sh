#!/bin/sh
# The attack suite (tests/attacks, see its README): each attack, appended to
# lab 3's skeleton and to its solution, may change nothing but its own
# items.  Checked on a plain run, as an ordinary user (where the test runs
# as root and can make one), through the Gradescope and PrairieLearn
# packages in scratch roots, through the GitHub package's grading step (as
# the ordinary user, as on GitHub's runners), and in batch grading, as root
# and as the ordinary user.  The attacks on the walls themselves run again
# with CUDALABS_NO_LANDLOCK=1 (a kernel without Landlock),
# CUDALABS_NO_NAMESPACES=1 (a default Docker container) and both, as root
# and as the ordinary user, on the items that call the attack (WALL_ITEMS):
# the walls do not depend on the item; the attacks that leave things behind
# (LEFTOVER_ATTACKS) run with CUDALABS_NO_SECCOMP=1 too, with and without
# namespaces, so that what the filter would have refused is made and must
# be removed all the same.
#
# The grades run at once, ATTACK_JOBS of them (default: the cores plus
# two, since a grade waits on its builds and runners part of the time),
# each with its own folders; every check is a case whose lines are
# printed in the order above, whatever ran first.  What each check looks
# at stays this run's own: a reaper (a child subreaper, below) holds what
# a grade leaves behind, and an attack whose effects could reach past its
# own grade names a lane ("lane:" line, see tests/attacks/README.md) that
# keeps it apart from the grades it could touch.  The 2 s after each
# grade, in which nothing it left may act, are waited by every grade at
# once, not one after another.  ATTACK_TIMES=FILE logs each grade's start
# and end there.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
lab=lab3-folding file=fold.cu
[ -d "solutions/$lab" ] || { ok "attacks # SKIP no solution of $lab in this copy"; finish; }
work=$(mktemp -d) && chmod 755 "$work" && trap 'rm -rf "$work"' EXIT
# (a build cache of this check's own where the run gives none: tests/run.sh
# gives one to every check; 1777: each user that grades keeps a folder in it)
if [ -z "${CUDALABS_BUILD_CACHE:-}" ]; then
    mkdir -m 1777 "$work/build-cache" && export CUDALABS_BUILD_CACHE="$work/build-cache"
fi
kit=$(pwd)
attacks=tests/attacks/$lab
seed=7
export STUDENT_BUILD_SECONDS=${STUDENT_BUILD_SECONDS:-20} # (more on a loaded machine)
# a secret of the grader's that no feedback may show (print-environment.cu)
export GRADER_TOKEN=s3cret
jobs=${ATTACK_JOBS:-$(( $( (nproc || getconf _NPROCESSORS_ONLN) 2>/dev/null || echo 2) + 2 ))}

# ---- cases: started at once, reported in order ---------------------------------------------
# Each check is a case: a background job whose ok and not ok lines, and what
# they show, go to $work/cases/N (N.done when it is complete).  report_cases
# prints the complete ones in order through lib.sh's ok and not_ok.
mkdir "$work/cases" "$work/locks"
case_no=0 reported=0 case_pids=""
next_case() { case_no=$((case_no + 1)); case_out=$(printf '%s/cases/%05d' "$work" "$case_no"); }
report_cases() {
    while [ -e "$(printf '%s/cases/%05d.done' "$work" $((reported + 1)))" ]; do
        reported=$((reported + 1))
        while IFS= read -r line; do
            case $line in
            "@ok "*) ok "${line#@ok }" ;;
            "@not_ok "*) not_ok "${line#@not_ok }" ;;
            *) printf '%s\n' "$line" ;;
            esac
        done < "$(printf '%s/cases/%05d' "$work" "$reported")"
    done
}
# note LINE: a case that is only a line (an ok with # SKIP, a comment)
note() { next_case; printf '%s\n' "$1" > "$case_out"; : > "$case_out.done"; report_cases; }
# The job slots: a token a line in a pipe; a grade takes one for as long as
# its grader runs (reap, below), and gives it back when the grader ends.
mkfifo "$work/slots"
exec 3<>"$work/slots"
i=0
while [ $i -lt "$jobs" ]; do echo >&3; i=$((i + 1)); done
holding_slot="" no_slot=""
# start_case LANES COMMAND...: COMMAND (a function of this script, with its
# arguments) as the next case, in the background.  LANES: "" (any time),
# "alone" (no other grade whose runner is the same user at the same time:
# $class), or lane names (one grade of the lane at a time; "leftovers"
# also keeps every other grade from looking for leftovers meanwhile).
start_case() {
    lanes=$1
    shift
    next_case
    (
        exec > "$case_out" 2>&1 4>"$work/locks/$class"
        ok() { echo "@ok $*"; }
        not_ok() { echo "@not_ok $*"; }
        case_lanes=$lanes
        # (the user's lock first, then the lanes, sorted, and a job slot
        # only once every lock is held (reap): every case takes its locks
        # in one order and never waits for a lock while it holds a slot, so
        # that no two cases wait on each other.  Every case holds the lane
        # "leftovers" too, shared: its check for what an attack left behind
        # must not see what a case of that lane makes meanwhile.)
        case " $lanes " in *" alone "*) flock -x 4; no_slot=1 ;; *) flock -s 4 ;; esac
        fd=5
        for lane in $( { echo $lanes | tr ' ' '\n'; echo leftovers; } | grep -v -x alone | sort -u); do
            eval "exec $fd>\"\$work/locks/lane-\$lane\""
            case " $lanes " in *" $lane "*) flock -x $fd ;; *) flock -s $fd ;; esac
            fd=$((fd + 1))
        done
        "$@"
        [ -z "$holding_slot" ] || echo >&3 # (a case that ran no grade of its own gives its slot back)
        wait # (its reapers)
        : > "$case_out.done"
    ) &
    case_pids="$case_pids $!"
    holding_slot=""
    report_cases
}
# wait_cases: every case started so far has ended
wait_cases() { for pid in $case_pids; do wait "$pid"; done; case_pids=""; }

# The reaper: runs a grade as a child of a child subreaper, so that whatever
# the grade leaves running becomes its own and is this grade's alone (not
# another's that runs at the same time); writes the grade's exit status, as
# a shell gives it, to FIFO as soon as it ends; reaps for HOLD seconds, then
# writes the processes still left, "pid args" a line, to LIST.
cat > "$work/reaper.pl" <<'REAPER'
use strict;
use warnings;
use Config;
use POSIX qw(WNOHANG);
use Time::HiRes qw(time sleep);
my ($fifo, $hold, $list, @command) = @ARGV;
open my $tell, ">", $fifo or die "reaper: $fifo: $!\n";
my $prctl = eval { require "syscall.ph"; &SYS_prctl() } // ($Config{archname} =~ /aarch64/ ? 167 : 157);
syscall($prctl, 36, 1, 0, 0, 0) == 0 or die "reaper: cannot be a child subreaper (prctl): $!\n"; # PR_SET_CHILD_SUBREAPER
my $grade = fork // die "reaper: fork: $!\n";
if (!$grade) { { no warnings "exec"; exec { $command[0] } @command } print STDERR "reaper: $command[0]: $!\n"; POSIX::_exit(127) }
waitpid($grade, 0);
my $status = $?;
print $tell(($status & 127) ? 128 + ($status & 127) : $status >> 8, "\n");
close $tell;
my $until = time + $hold;
while (time < $until) { 1 while waitpid(-1, WNOHANG) > 0; sleep 0.05 }
1 while waitpid(-1, WNOHANG) > 0;
my %children;
for my $stat (glob "/proc/[0-9]*/stat") {
    open my $f, "<", $stat or next;
    my $text = <$f> // next;
    my ($pid) = $stat =~ m{/proc/(\d+)/};
    my (undef, $parent) = split " ", substr($text, rindex($text, ")") + 2);
    push @{$children{$parent}}, $pid;
}
my @queue = ($$);
open my $out, ">", "$list.part" or die "reaper: $list: $!\n";
while (@queue) {
    for my $child (@{$children{shift @queue} || []}) {
        push @queue, $child;
        open my $f, "<", "/proc/$child/cmdline" or next;
        local $/;
        my $args = <$f> // "";
        $args =~ s/\0/ /g;
        $args =~ s/ +$//;
        print $out "$child $args\n";
    }
}
close $out;
rename "$list.part", $list;
REAPER
# reap RUN COMMAND...: COMMAND under the reaper, its output in $work/RUN.out,
# its exit status in $rc, $took its seconds; a job slot held meanwhile
reap() {
    reap_run=$1
    shift
    [ -n "$holding_slot$no_slot" ] || { read -r _ <&3; holding_slot=1; }
    rm -f "$work/$reap_run.left" "$work/$reap_run.fifo"
    mkfifo "$work/$reap_run.fifo"
    t0=$(date +%s)
    [ -n "${ATTACK_TIMES:-}" ] && echo "$(date +%s.%N) start $reap_run" >> "$ATTACK_TIMES"
    perl "$work/reaper.pl" "$work/$reap_run.fifo" 2 "$work/$reap_run.left" "$@" \
        > "$work/$reap_run.out" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- &
    reaper=$!
    rc=$(head -n 1 < "$work/$reap_run.fifo")
    took=$(( $(date +%s) - t0 ))
    sum_at_end=$( { cksum < "$work/$reap_run.json"; } 2>/dev/null)
    [ -n "${ATTACK_TIMES:-}" ] && echo "$(date +%s.%N) end $reap_run $rc" >> "$ATTACK_TIMES"
    rm -f "$work/$reap_run.fifo"
    [ -z "$holding_slot" ] || { echo >&3; holding_slot=""; }
    # (an attack that runs alone is alone while its grade runs; what it
    # leaves is its own reaper's, and its leftovers are looked for below)
    case " ${case_lanes:-} " in *" alone "*) flock -u 4 ;; esac
}

# Listeners outside the sandbox, which the network attacks try to reach:
# a unix socket in /dev/shm, two in the abstract namespace (a stream and
# datagrams) and UDP on 127.0.0.1; what they hear goes to $work/heard (see
# heard_nothing).
heard="$work/heard"
: > "$heard"
chmod 666 "$heard"
rm -f /dev/shm/cudalabs-attack.sock
HEARD="$heard" perl -MIO::Socket::UNIX -MIO::Socket::INET -e '
    my $u = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => "/dev/shm/cudalabs-attack.sock", Listen => 5) or exit 1;
    chmod 0777, "/dev/shm/cudalabs-attack.sock";
    my $d = IO::Socket::INET->new(Proto => "udp", LocalAddr => "127.0.0.1", LocalPort => 47999) or exit 1;
    my $a = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => "\0cudalabs-attack-abstract", Listen => 5) or exit 1;
    my $g = IO::Socket::UNIX->new(Type => SOCK_DGRAM(), Local => "\0cudalabs-attack-datagram") or exit 1;
    my $sel = ""; vec($sel, fileno($_), 1) = 1 for $u, $d, $a, $g;
    for (;;) {
        select(my $r = $sel, undef, undef, undef) > 0 or next;
        my $text = "";
        if (vec($r, fileno($d), 1)) { $d->recv($text, 512) }
        if (vec($r, fileno($g), 1)) { $g->recv($text, 512); $text ||= "abstract datagram\n" }
        for my $l ($u, $a) {
            next unless vec($r, fileno($l), 1);
            my $c = $l->accept or next; $c->blocking(0); select(undef, undef, undef, 0.2); $c->sysread($text, 512); $text ||= "unix connection\n"; close $c;
        }
        open my $f, ">>", $ENV{HEARD} or next; print $f $text; close $f;
    }' 2>/dev/null &
listener=$!
trap 'kill $listener 2>/dev/null; rm -f /dev/shm/cudalabs-attack.sock; rm -rf "$work"' EXIT

# The shared object the blob attacks carry as bytes (a stand-in for a
# reference's: it answers fold_sum's sums right).
printf 'int blob_fold_sum(const int *a, int n) { long long s = 0; for (int i = 0; i < n; i++) s += a[i]; return (int)s; }\n' \
    > "$work/blob.c"
cc -shared -fPIC -O1 -o "$work/blob.so" "$work/blob.c" 2>/dev/null
blob_bytes=$(od -An -v -tu1 "$work/blob.so" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
# The reference runner as make dist ships it (stripped), which the attacks
# that try to reuse a shipped reference carry as a C string (@REFERENCE_BYTES@).
make -s --no-print-directory BACKEND=$BACKEND "build/$BACKEND/$lab/reference-runner" >/dev/null 2>&1 \
    && strip --strip-all -o "$work/reference-runner" "build/$BACKEND/$lab/reference-runner" 2>/dev/null
perl -e 'local $/; my $b = <STDIN>; my @p = unpack("(a64)*", $b);
         print join("\n", map { "\"" . join("", map { sprintf("\\%03o", ord) } split //, $_) . "\"" } @p) || "\"\"";' \
    < "$work/reference-runner" > "$work/reference-bytes" 2>/dev/null

# submission NAME BASE ATTACK: a folder $work/subs/NAME holding BASE with ATTACK appended
submission() {
    dir="$work/subs/$1"
    mkdir -p "$dir"
    if grep -q 'REPLACES the lab file' "$3"; then
        sed "s|@KIT@|$kit|g" "$3" > "$dir/$file"
    elif grep -q 'HIJACKS fold_sum' "$3"; then
        { echo '#define fold_sum fold_sum_hijacked'; cat "$2"; echo '#undef fold_sum';
          cat tests/attacks/helpers.inc "$3"; } > "$dir/$file"
    else
        cat "$2" tests/attacks/helpers.inc "$3" > "$dir/$file"
    fi
    if grep -q '@BLOB_BYTES@' "$dir/$file"; then
        BYTES="$blob_bytes" perl -pi -e 's/\@BLOB_BYTES\@/$ENV{BYTES}/g' "$dir/$file"
    fi
    if grep -q '@REFERENCE_BYTES@' "$dir/$file"; then # (a file: megabytes, more than an environment holds)
        FROM="$work/reference-bytes" perl -pi -e 'BEGIN { local $/; open my $f, "<", $ENV{FROM} or die; $bytes = <$f> }
                                                  s/\@REFERENCE_BYTES\@/$bytes/g' "$dir/$file"
    fi
}

# On a GPU, every item but the sanitizer's: that item runs the lab program
# (the attack included) under compute-sanitizer for seconds per grade, and
# an attack that breaks the program rightly fails it.
only=""
[ "$BACKEND" = gpu ] && only="--only=$(./grader list 2>/dev/null | sed -n '/^lab3-folding /,/^lab4/p' \
    | awk '/^    / && $1 != "sanitizer" { printf "%s%s", sep, $1; sep = "," }')"

# grade NAME DIR [ARGS]: $work/NAME.{out,json}, exit status in $rc (what
# the grade left behind is held by its reaper: sound waits for it)
grade() {
    run=$1 folder=$2
    shift 2
    reap "$run" env $switches ./grader lab3 --backend=$BACKEND --seed=$seed --student-dir="$folder" --format=json \
        --out="$work/$run.json" $only "$@"
}
points() { sed -n "s|^$lab: \([0-9.]*\)/.*|\1|p" "$work/$1.out" | tail -n 1; }
statuses() { grep -E '^ +(PASS|FAIL|ERROR|SKIP) ' "$work/$1.out" | awk '{ sub(":", "", $3); print $3, $1 }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
same() { [ -n "$1" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0) }'; }
show() { sed 's/^/    /' "$work/$1.out" | head -n 40; }

# The attacks' SysV objects (by key, and the private segment by its size), removed.
remove_attack_ipc() {
    ipcs -m 2>/dev/null | awk 'tolower($1) ~ /^0x0c0da1a[b-e]$/ || $5 == 789921 { print $2 }' | xargs -r -n 1 ipcrm -m 2>/dev/null
    ipcs -s 2>/dev/null | awk 'tolower($1) ~ /^0x0c0da1a[b-e]$/ { print $2 }' | xargs -r -n 1 ipcrm -s 2>/dev/null
    ipcs -q 2>/dev/null | awk 'tolower($1) ~ /^0x0c0da1a[b-e]$/ { print $2 }' | xargs -r -n 1 ipcrm -q 2>/dev/null
    true
}

# What must hold after any run, attack or not (once its reaper has ended:
# wait "$reaper" first, in the case's own shell).
sound() { # sound NAME: why not, or nothing
    out=$work/$1.out json=$work/$1.json
    case $rc in 0|1|2) ;; *) echo "exit $rc"; return ;; esac
    grep -q "^$lab: .* points" "$out" || grep -q "does not compile" "$out" || { echo "no summary"; return; }
    [ -s "$json" ] || { echo "no results file"; return; }
    if [ "${results_format:-json}" = junit ]; then # (the GitHub package's report)
        grep -q '<testsuites' "$json" && { ! perl -MXML::Parser -e 1 2>/dev/null \
            || perl -MXML::Parser -e 'XML::Parser->new->parsefile($ARGV[0])' "$json" 2>/dev/null; } \
            || { echo "results file not valid JUnit"; return; }
    else
        perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' < "$json" 2>/dev/null || { echo "results file not valid JSON"; return; }
    fi
    # (the forged file's score, 9999, as a value: a random seed may hold the digits 9999)
    grep -q -E '[:,] *9999([^0-9]|$)' "$json" && { echo "forged results file"; return; }
    grep -q "$(printf '\033')" "$out" && { echo "an escape sequence reached the report"; return; }
    grep -q -E '^ +PASS .*forged|^lab3-folding: 20.0/20.0 points$' "$out" && [ "$2" = skeleton ] \
        && { echo "a line the attack printed looks like the grader's"; return; }
    perl -e 'local $/; my $t = <STDIN>; utf8::decode($t) or exit 1' < "$out" || { echo "report not valid UTF-8"; return; }
    # (its sum as the grader ended, 2 s ago: the reaper held that long, waited for by the caller)
    [ "$(cksum < "$json")" = "$sum_at_end" ] || { echo "results file changed after the grader ended"; return; }
    # (this run's processes only, those its reaper holds: other grades run at
    # the same time, and other kits may be grading on the machine; a
    # student's runner is shown as the lab program, ./build/<backend>/lab3-folding/lab,
    # and is told by the student's object it maps from this kit)
    [ -f "$work/$1.left" ] || { echo "the reaper left no list of the processes left"; return; }
    left=$(cat "$work/$1.left" | grep -E '[l]ab3-folding-student.so|[s]ubmissions/.*student.so|[c]udalabs-grader-|[b]uild/[a-z]*/lab3-folding/lab$|[b]uild/host/runner |[r]eference-runner' \
        | while read -r pid args; do
              where="$(readlink "/proc/$pid/cwd" 2>/dev/null) $(grep -o -m 1 '/[^ ]*student.so' "/proc/$pid/maps" 2>/dev/null)"
              case "$args $where/" in *"$kit/"*|*"$work/"*) echo "$args" ;; esac
          done | head -n 3)
    [ -z "$left" ] || { echo "processes left: $left"; return; }
    grep -q -F s3cret "$out" "$json" && { echo "the grader's secret (GRADER_TOKEN) reached the report or results"; return; }
    # (the attacks' keys 0x0c0da1ab to 0x0c0da1ae, and a private segment of
    # 789921 bytes: ipc-leftovers*.cu; as an ordinary user without
    # namespaces too, where the grader removes what the item added; while
    # no grade of the lane that makes them runs, unless it is this one: the
    # case holds that lane, shared, from its start)
    leftovers=$(ls -d /dev/shm/cudalabs-attack-* 2>/dev/null; ipcs -a 2>/dev/null | grep -i -E '0x0c0da1a[b-e]| 789921 ')
    if [ -n "$leftovers" ]; then
        rm -f /dev/shm/cudalabs-attack-*
        remove_attack_ipc
        echo "left after grading: $(echo $leftovers)"; return
    fi
}
# heard_nothing NAME RUN: the listeners outside heard nothing from attack NAME
# (with or without namespaces: the filter lets no unix socket connect or
# send to an address; without the filter, CUDALABS_NO_SECCOMP=1, these
# attacks do not run).  These attacks run in the lane "listeners", one at
# a time, and empty what was heard before they start (listen_afresh).
heard_nothing() {
    case $1 in
    udp-out|unix-socket-out|abstract-socket-out) [ ! -s "$heard" ] && case " $case_lanes " in *" listeners "*) ;; *) false ;; esac ;;
    *) true ;;
    esac
}
listen_afresh() { case " $case_lanes " in *" listeners "*) : > "$heard" ;; esac; }

# ---- the walls, with each missing -------------------------------------------------------------
# The attacks on the walls (a "walls:" line) and those that Landlock alone
# stopped once, again with the switches that stand in for hosts without
# Landlock, without namespaces, and without both, on one item that calls
# the attack (the walls do not depend on the item).
switches=""
WALL_ITEMS=fold_sums_exact
WALL_SKELETONS="dlopen-blob dlopen-blob-at-load dlopen-reference read-solutions"
LEFTOVER_ATTACKS="ipc-leftovers ipc-leftovers-at-call"
wall_attacks="$(grep -l '^// walls:' "$attacks"/*.cu | xargs -n 1 basename | sed 's/\.cu$//' | tr '\n' ' ')"
wall_modes() { # wall_modes WHO: the switches in turn, grade() as WHO grades
    saved_only=$only saved_attacks=${ATTACKS_ONLY:-}
    only="--only=$WALL_ITEMS"
    for set in CUDALABS_NO_LANDLOCK=1 CUDALABS_NO_NAMESPACES=1 "CUDALABS_NO_LANDLOCK=1 CUDALABS_NO_NAMESPACES=1" \
               CUDALABS_NO_SECCOMP=1 "CUDALABS_NO_SECCOMP=1 CUDALABS_NO_NAMESPACES=1"; do
        switches=$set
        case $set in
        # without the filter, only what is left behind is checked: the
        # filter is the wall the other attacks meet (below the minimum)
        *SECCOMP*) ATTACKS_ONLY="$LEFTOVER_ATTACKS" ;;
        *NAMESPACES*LANDLOCK*|*LANDLOCK*NAMESPACES*)
            if [ "$1" = user ]; then
                # student code runs as the grader's own user: with neither
                # Landlock nor namespaces it can read what that user reads
                # (the kit included), below the documented minimum
                note "@ok user, neither Landlock nor namespaces: reading the kit # SKIP below the minimum a platform grades on"
                ATTACKS_ONLY="$wall_attacks"
            else
                ATTACKS_ONLY="$wall_attacks read-solutions dlopen-reference stop-and-kill-graders"
            fi ;;
        *LANDLOCK*) ATTACKS_ONLY="read-solutions dlopen-reference forge-results-and-kill dlopen-blob-at-load kill-everyone" ;;
        *) ATTACKS_ONLY="$wall_attacks" ;;
        esac
        [ -n "$saved_attacks" ] && ATTACKS_ONLY=$(for a in $ATTACKS_ONLY; do case " $saved_attacks " in *" $a "*) echo "$a" ;; esac; done | tr '\n' ' ')
        [ -n "$(echo $ATTACKS_ONLY)" ] || continue
        tag=$(echo "$set" | sed 's/CUDALABS_//g; s/=1//g; s/ /+/g' | tr 'A-Z_' 'a-z-')
        run_attacks "$1-$tag"
    done
    switches="" only=$saved_only ATTACKS_ONLY=$saved_attacks
}

# ---- the submissions, made once -------------------------------------------------------------
# Every mode grades the same folders (each attack on the skeleton and on
# the solution), made before any grade starts: no case writes them.
mkdir -p "$work/subs/skeleton" "$work/subs/solution"
cp "labs/$lab/$file" "$work/subs/skeleton/"
cp "solutions/$lab/$file" "$work/subs/solution/"
for attack in "$attacks"/*.cu; do
    name=$(basename "$attack" .cu)
    [ -n "${ATTACKS_ONLY:-}" ] && case " $ATTACKS_ONLY " in *" $name "*) ;; *) continue ;; esac
    if grep -q '^// expect: build-fails' "$attack"; then
        submission "$name" "labs/$lab/$file" "$attack"
    else
        submission "$name-skeleton" "labs/$lab/$file" "$attack"
        submission "$name-solution" "solutions/$lab/$file" "$attack"
    fi
done

# ---- the baselines --------------------------------------------------------------------
class=root
baseline() { grade "$1" "$work/subs/$1"; echo "$rc" > "$work/$1.rc"; }
start_case "" baseline skeleton
start_case "" baseline solution
wait_cases
rc=$(cat "$work/solution.rc")
skeleton_points=$(points skeleton)
solution_points=$(points solution)
reported=$case_no # (the baselines' cases print nothing: this line does)
if [ -n "$skeleton_points" ] && [ "$rc" = 0 ]; then
    ok "baselines: the skeleton scores $skeleton_points, the solution full marks ($solution_points)"
else
    not_ok "baselines: the skeleton and the solution grade"; show solution; finish
fi

# ---- the kits and packages the other modes grade with, built meanwhile ----------------------
# (one after another in the background, in the order the modes need them,
# with one job slot: the grades keep the others; kit_ready NAME waits for one)
kit_build() { kit_builds="$kit_builds $1"; }
kits_build() { # each kit_build NAME COMMAND, its exit status in $work/NAME.ready
    (read -r _ <&3
     for build in $kit_builds; do
         kit_name=${build%%:*}
         "${build#*:}"; echo $? > "$work/$kit_name.part"; mv "$work/$kit_name.part" "$work/$kit_name.ready"
     done
     echo >&3) &
    kit_pids=$!
}
kit_builds="" kit_pids=""
# (the build cache, where this run has one, for the grades as the ordinary
# user too: setpriv --reset-env leaves it out; that user keeps a folder of
# its own in it)
user_cache=${CUDALABS_BUILD_CACHE:+CUDALABS_BUILD_CACHE=$CUDALABS_BUILD_CACHE}
kit_ready() { wait_for=$work/$1.ready; while [ ! -e "$wait_for" ]; do sleep 1; done; [ "$(cat "$wait_for")" = 0 ]; }
user_ok=""
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
    user=cudalabs-student
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>/dev/null
    if id "$user" >/dev/null 2>&1; then
        user_ok=1
        as_user() { setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups --reset-env "$@"; }
        # (as a command, for the reaper to run)
        as_user_command="setpriv --reuid=$user --regid=$(id -g "$user") --init-groups --reset-env"
        # the user's own copy of the kit, built by that user
        copy="$work/user-kit"
        user_kit() {
            mkdir -p "$copy"
            # (the working tree as it is, not git's index: a copy of the tree
            # without its history, as on a GPU machine, is tested the same way)
            tar cf - --exclude=./build --exclude=./.git --exclude=./dist --exclude=./.deps . | (cd "$copy" && tar xf -)
            [ -d .deps ] && cp -R .deps "$copy/"
            seed_kit_objects "$copy" "$lab"
            chown -R "$user" "$copy"
            as_user sh -c "cd '$copy' && PATH='$PATH' make -s build/host/grader build-$lab BACKEND=$BACKEND" >"$work/user-build.out" 2>&1
            true
        }
        kit_build user-kit:user_kit
        # The GitHub package's starting repository, its grader built by the user.
        gh="$work/github-$lab"
        github_repo() {
            DIST_DIR="$work" DIST_HANDOUTS=no platforms/github/build.sh "$lab" > "$work/github-build.log" 2>&1 \
                && seed_kit_objects "$gh" "$lab" && chown -R "$user" "$gh" \
                && as_user sh -c "cd '$gh' && PATH='$PATH' make -s build/host/grader BACKEND=cpu" >> "$work/github-build.log" 2>&1
        }
        [ "$BACKEND" = cpu ] && kit_build github:github_repo
    fi
fi
if [ "$BACKEND" = cpu ]; then
    gs="$work/gradescope"
    gradescope_kit() {
        mkdir -p "$gs/root/source" "$gs/runs"
        DIST_DIR="$gs" platforms/gradescope/build.sh "$lab" > "$gs/build.log" 2>&1 \
            && (cd "$gs/root/source" && unzip -q "$gs/gradescope-$lab.zip") \
            && seed_kit_objects "$gs/root/source/kit" "$lab" && sh "$gs/root/source/prepare-kit.sh" "$gs/root/source/kit" "$lab" > "$gs/prepare.log" 2>&1
    }
    kit_build gradescope:gradescope_kit
    pl="$work/prairielearn"
    # in the grading image, the documented route: the kit built once, as its
    # Dockerfile does (image-setup.sh on a copy), not in every job; the
    # per-job build of PrairieLearn's own image is check-platforms' to test
    prairielearn_kit() {
        DIST_DIR="$pl" platforms/prairielearn/build.sh "$lab" > "$pl.log" 2>&1 \
           && cp -R "$pl/prairielearn-$lab/image" "$pl/image" && seed_kit_objects "$pl/image/kit" "$lab" && sh "$pl/image/image-setup.sh" "$pl/image/kit" "$lab" >> "$pl.log" 2>&1
    }
    kit_build prairielearn:prairielearn_kit
fi
kits_build

# ---- each attack, on the skeleton and on the solution -----------------------------------
# attack_case MODE NAME ATTACK COSTS BASE: one grade of an attack (a case);
# BASE skeleton, solution, or build (an attack on the build, on the skeleton)
attack_case() {
    mode=$1 name=$2 attack=$3 costs=$4 base=$5
    listen_afresh
    if [ "$base" = build ]; then
        grade "$mode-$name" "$work/subs/$name"
        if [ $rc = 2 ] && grep -q "does not compile" "$work/$mode-$name.out" && [ $took -lt 120 ]; then
            ok "$mode: $name does not build (exit 2, ${took} s)"
        else
            not_ok "$mode: $name does not build (exit $rc, ${took} s)"; show "$mode-$name"
        fi
        return
    fi
    run="$mode-$name-$base"
    grade "$run" "$work/subs/$name-$base"
    wait "$reaper"
    why=$(sound "$run" "$base")
    heard_nothing "$name" "$run" || why="${why:+$why; }a listener outside the sandbox heard it"
    if [ "$base" = skeleton ]; then
        got=$(points "$run")
        if [ -z "$why" ] && [ -n "$got" ] && le "$got" "$skeleton_points"; then
            ok "$mode: $name on the skeleton scores $got (the skeleton $skeleton_points)"
        else
            not_ok "$mode: $name on the skeleton scores ${got:-nothing} (the skeleton $skeleton_points) ${why:+: $why}"
            show "$run"
        fi
        return
    fi
    lost=""
    for pair in $(statuses "$run" | tr ' ' ':'); do
        item=${pair%%:*} status=${pair#*:}
        case "$status" in PASS|SKIP) continue ;; esac
        case " $costs " in *" all "*|*" $item "*) ;; *) lost="$lost $item" ;; esac
    done
    if [ -z "$why" ] && [ -z "$lost" ] && [ -n "$(points "$run")" ]; then
        ok "$mode: $name on the solution costs only its items ($(points "$run")/$solution_points)"
    else
        not_ok "$mode: $name on the solution costs only its items (lost:${lost:- nothing}) ${why:+: $why}"
        show "$run"
    fi
}
run_attacks() { # run_attacks MODE: the attacks as this user, each grade a case
    mode=$1
    for attack in "$attacks"/*.cu; do
        name=$(basename "$attack" .cu)
        [ -n "${ATTACKS_ONLY:-}" ] && case " $ATTACKS_ONLY " in *" $name "*) ;; *) continue ;; esac
        # the runner's walls, the wire and the build are the same under every
        # package: through a package only what it adds (a "packages:" line:
        # its script, results file, output, kit copy, environment)
        case $mode in plain*|user*) ;; *) grep -q '^// packages:' "$attack" || continue ;; esac
        # an attack slow enough to run in some modes only says which ("modes:")
        modes=$(sed -n 's|^// modes: \([a-z ]*\).*|\1|p' "$attack")
        [ -n "$modes" ] && case " $modes " in *" ${mode%%-*} "*) ;; *) continue ;; esac
        costs=$(sed -n 's|^// costs: ||p' "$attack")
        # what it must not meet ("lane:"), and the mode's own (one GitHub repository)
        lanes=$( { sed -n 's|^// lane: \([a-z -]*\).*|\1|p' "$attack" | tr ' ' '\n'; [ "$mode" = github ] && echo github; } \
                 | grep . | sort -u | tr '\n' ' ')
        if grep -q '^// expect: build-fails' "$attack"; then
            start_case "$lanes" attack_case "$mode" "$name" "$attack" "$costs" build
            continue
        fi
        # (with a switch on, only the attacks that could answer for a
        # skeleton run on it: the others' skeleton runs show nothing new)
        case "$mode $WALL_SKELETONS " in *-no-*" $name "*|plain\ *|user\ *|gradescope\ *|prairielearn\ *)
        start_case "$lanes" attack_case "$mode" "$name" "$attack" "$costs" skeleton ;;
        esac
        start_case "$lanes" attack_case "$mode" "$name" "$attack" "$costs" solution
    done
}
run_attacks plain
wall_modes plain

# ---- submissions handled safely -------------------------------------------------------------
odd_path() {
    odd="$work/subs/a b \$(touch $work/pwned) 'q'"
    mkdir -p "$odd" && cp "solutions/$lab/$file" "$odd/"
    grade odd-path "$odd"
    [ $rc = 0 ] && [ ! -e "$work/pwned" ] && ok "a folder named with spaces, quotes and \$(...) grades as it is" \
        || { not_ok "a folder named with spaces, quotes and \$(...) grades as it is (exit $rc)"; show odd-path; }
}
start_case "" odd_path
empty_folder() {
    mkdir -p "$work/subs/empty" && echo "not the lab" > "$work/subs/empty/notes.txt"
    grade empty "$work/subs/empty"
    [ $rc = 2 ] && grep -q "holds no file of $lab" "$work/empty.out" && ok "a folder with no file of the lab: exit 2, said plainly" \
        || { not_ok "a folder with no file of the lab: exit 2, said plainly (exit $rc)"; show empty; }
}
start_case "" empty_folder
resubmit() {
    mkdir -p "$work/subs/resubmit" && cp "solutions/$lab/$file" "$work/subs/resubmit/"
    grade resubmit-1 "$work/subs/resubmit"
    cp "labs/$lab/$file" "$work/subs/resubmit/" && touch -d '2001-01-01' "$work/subs/resubmit/$file"
    grade resubmit-2 "$work/subs/resubmit"
    [ "$(points resubmit-2)" = "$skeleton_points" ] && ok "a resubmitted file older than the last build is rebuilt" \
        || { not_ok "a resubmitted file older than the last build is rebuilt ($(points resubmit-2))"; show resubmit-2; }
}
start_case "" resubmit
together() {
    grade together-1 "$work/subs/solution" & first=$!
    holding_slot="" # (the grade in the background gives the slot back)
    ./grader lab3 --backend=$BACKEND --seed=$seed --student-dir="$work/subs/skeleton" >"$work/together-2.out" 2>&1 3>&- 4>&-
    second=$?
    wait $first
    [ "$(points together-1)" = "$solution_points" ] && [ "$(points together-2)" = "$skeleton_points" ] \
        && ok "two graders at once in one checkout: both right" \
        || { not_ok "two graders at once in one checkout: both right ($(points together-1), $(points together-2), $second)"; show together-2; }
}
start_case "" together
multiplier() {
    CK_TIMEOUT_MULTIPLIER=0 ./grader lab3 --backend=$BACKEND --seed=$seed --student-dir="$work/subs/solution" --only=fold_launches \
        >"$work/multiplier.out" 2>&1 3>&- 4>&-
    rc=$?
    [ $rc = 0 ] && ok "CK_TIMEOUT_MULTIPLIER=0 is ignored (timeouts stay on)" || not_ok "CK_TIMEOUT_MULTIPLIER=0 is ignored (exit $rc)"
}
start_case "" multiplier

# ---- as an ordinary user -----------------------------------------------------------------------
if [ -n "$user_ok" ]; then
    class=student
    kit_ready user-kit
    chown -R "$user" "$work/subs"
    abi=$(as_user "$copy/build/host/grader" --sandbox-abi 2>/dev/null)
    note "# as $user, Landlock ABI ${abi:-none}"
    grade() {
        run=$1 folder=$2
        shift 2
        reap "$run" $as_user_command env GRADER_TOKEN=s3cret $user_cache $switches sh -c 'cd "$1" && shift && PATH="$0" ./grader "$@"' \
            "$PATH" "$copy" lab3 --backend=$BACKEND --seed=$seed --student-dir="$folder" --format=json --out="$work/$run.json" $only "$@"
    }
    chmod 777 "$work"
    user_skeleton() {
        grade user-skeleton "$work/subs/skeleton"
        [ "$(points user-skeleton)" = "$skeleton_points" ] && ok "as $user: the skeleton scores $skeleton_points" \
            || { not_ok "as $user: the skeleton scores $skeleton_points"; show user-skeleton; sed 's/^/    /' "$work/user-build.out" | tail -5; }
    }
    start_case "" user_skeleton
    # (signals to the grader are stopped by the seccomp filter, and by
    # Landlock's signal scoping from ABI 6)
    # The user's own things in /dev/shm and SysV IPC, there before any
    # item: where the grader removes what an item left as this user (no
    # namespaces) it must keep these.
    rm -f /dev/shm/cudalabs-own-file; ipcrm -M 0x0c0da1ff 2>/dev/null
    as_user sh -c 'echo mine > /dev/shm/cudalabs-own-file'
    as_user perl -e 'use IPC::SysV qw(IPC_CREAT); defined shmget(0x0c0da1ff, 4096, IPC_CREAT | 0600) or exit 1'
    run_attacks user
    wall_modes user

    # ---- through the GitHub package's grading step, as this user -------------------------
    # The workflow's step (.github/grade.sh) in the lab's starting
    # repository, the attack in the student's own file there, as
    # GitHub's runners run it: an ordinary user.  Its results file is the
    # JUnit report.  The attacks that run through the packages, on the
    # solution, one at a time (the lane "github": one repository).
    if [ "$BACKEND" != cpu ]; then
        note "@ok github: the grading step # SKIP on the cpu pass only"
    elif kit_ready github; then
        grade() {
            run=$1
            cp "$2/$file" "$gh/labs/$lab/$file" && chown "$user" "$gh/labs/$lab/$file"
            rm -f "$gh/grade-report.xml"
            ln -sf "$gh/grade-report.xml" "$work/$run.json"
            reap "$run" $as_user_command env GRADER_TOKEN=s3cret $user_cache $switches sh -c 'cd "$1" && PATH="$0" BACKEND=cpu sh .github/grade.sh lab3' \
                "$PATH" "$gh"
        }
        results_format=junit
        run_attacks github
        results_format=json
    else
        next_case
        { echo "@not_ok github: the starting repository of $lab builds"; sed 's/^/    /' "$work/github-build.log" | tail -n 10; } > "$case_out"
        : > "$case_out.done"
    fi

    # (checked once every grade as this user has ended: below)
    next_case
    own_things_case=$case_out
    class=root
else
    note "@ok as an ordinary user # SKIP needs root, useradd and setpriv"
fi

# ---- through the Gradescope and PrairieLearn packages, in scratch roots ------------------------
# Each attack again, graded as the platform grades it: the package's own
# script, as the unprivileged user nobody where the test is root.  The
# grader's exit status and report are in the script's output; the results
# file is the platform's (whose later changes the checks look for).  Each
# grade has its own root (the package's source, built once, linked in).
pkg_user=no-such-user
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && pkg_user=nobody
package_grade() { # package_grade RUN FOLDER RESULTS SCRIPT...: the package grades FOLDER
    run=$1 folder=$2 results=$3
    shift 3
    rm -f "$results"
    ln -sf "$results" "$work/$run.json"
    reap "$run" "$@"
    rc=$(sed -n 's/^autograde: grader exit \([0-9]*\).*/\1/p' "$work/$run.out" | tail -n 1)
    rc=${rc:-99}
}
if [ "$BACKEND" = cpu ]; then
    if kit_ready gradescope; then
        grade() {
            root="$gs/runs/$1"
            mkdir -p "$root/submission" "$root/results" && ln -s "$gs/root/source" "$root/source" && cp "$2"/* "$root/submission/"
            AUTOGRADER_ROOT="$root" KILL_LEFTOVERS=no GRADER_USER=$pkg_user package_grade "$1" "$2" \
                "$root/results/results.json" sh "$root/source/run_autograder"
        }
        run_attacks gradescope
    else
        next_case
        { echo "@not_ok gradescope: the package for $lab builds"; sed 's/^/    /' "$gs/build.log" "$gs/prepare.log" 2>/dev/null | tail -n 10; } > "$case_out"
        : > "$case_out.done"
    fi
    if kit_ready prairielearn; then
        package="$pl/prairielearn-$lab"
        grade() { # a fresh /grade per job, as PrairieLearn makes one
            root="$pl/grade-$1"
            rm -rf "$root" && mkdir -p "$root/student"
            cp -R "$package/serverFilesCourse" "$root/serverFilesCourse"
            cp -R "$package/questions/cuda-labs/$lab/tests" "$root/tests"
            cp "$2"/* "$root/student/"
            PL_ROOT="$root" GRADER_USER=$pkg_user CUDA_LABS_KIT="$pl/image/kit" \
                package_grade "$1" "$2" "$root/results/results.json" sh "$root/tests/run.sh"
        }
        run_attacks prairielearn
    else
        next_case
        { echo "@not_ok prairielearn: the package for $lab builds"; sed 's/^/    /' "$pl.log" | tail -n 10; } > "$case_out"
        : > "$case_out.done"
    fi
else
    note "@ok the platform packages # SKIP on the cpu pass only"
fi

# ---- every grade has ended ----------------------------------------------------------------------
wait_cases
for pid in $kit_pids; do wait "$pid"; done
if [ -n "$user_ok" ]; then
    if [ -f /dev/shm/cudalabs-own-file ] && ipcs -m | grep -q -i 0x0c0da1ff; then
        echo "@ok as $user: the user's own /dev/shm file and SysV segment outlive every grade" > "$own_things_case"
    else
        echo "@not_ok as $user: the user's own /dev/shm file and SysV segment outlive every grade" > "$own_things_case"
    fi
    : > "$own_things_case.done"
    rm -f /dev/shm/cudalabs-own-file; ipcrm -M 0x0c0da1ff 2>/dev/null
fi
report_cases

# batch_rows_check WHAT GRADES MIN: every attack's rows in GRADES.jsonl (more
# than MIN of them): on the skeleton at most the skeleton's points, on the
# solution no item lost but those its "costs:" line names.
batch_rows_check() {
    bad_rows=$(ATTACKS="$attacks" SKELETON="$skeleton_points" perl -MJSON::PP -ne '
        my $r = decode_json($_); my ($name, $base) = $r->{id} =~ /^(.*)-(skeleton|solution)$/ or next;
        my $file = "$ENV{ATTACKS}/$name.cu"; -f $file or next;
        open my $f, "<", $file or next; my ($costs) = map { /^\/\/ costs: (.*)/ ? $1 : () } <$f>; $costs //= "";
        next if $costs =~ /\ball\b/ && $base eq "solution";
        if ($base eq "solution" && $r->{status} !~ /^(graded|full_marks)$/) { print "$r->{id}:$r->{status} "; next }
        if ($base eq "skeleton") { print "$r->{id} " if ($r->{points} // 0) > $ENV{SKELETON}; next }
        for my $i (@{$r->{items} || []}) {
            next if $i->{status} =~ /^(passed|skipped)$/ || $costs =~ /\ball\b/ || " $costs " =~ / \Q$i->{name}\E /;
            print "$r->{id}:$i->{name} ";
        }' < "$2.jsonl")
    rows=$(grep -c . "$2.jsonl" 2>/dev/null)
    if [ -z "$bad_rows" ] && [ "${rows:-0}" -gt "$3" ]; then
        ok "$1: every attack ($rows rows) costs only its own items"
    else
        not_ok "$1: every attack (${rows:-0} rows) costs only its own items (wrong: ${bad_rows:-no rows})"
        for bad in $bad_rows; do # the feedback of each item lost
            ID=${bad%%:*} ITEM=${bad#*:} perl -MJSON::PP -ne 'my $r = decode_json($_); next unless $r->{id} eq $ENV{ID};
                for (@{$r->{items}}) { print "    $ENV{ID} $_->{name}: ", substr($_->{feedback} // "", 0, 600), "\n" if $_->{name} eq $ENV{ITEM} }' \
                < "$2.jsonl"
        done
    fi
}
row() { ID=$1 perl -MJSON::PP -ne 'my $r = decode_json($_); print "$r->{points}\n" if $r->{id} eq $ENV{ID}' < "${2:-$work/grades}.jsonl"; }

# ---- batch grading, as the ordinary user and as root -------------------------------------------
# The two batches at once (each grades its submissions two at a time, as
# batch grading does), once every other grade has ended: a batch grades
# the attacks that run alone elsewhere side by side by design.
# As the ordinary user: the attacks that run through the packages (a
# "packages:" line), on the solution, graded by tools/batch-grade.sh run as
# that user: no runner user of its own then, the grader's walls only.
user_batch() {
    ubatch="$work/user-batch"
    mkdir -p "$ubatch"
    for attack in "$attacks"/*.cu; do
        name=$(basename "$attack" .cu)
        grep -q '^// packages:' "$attack" || continue
        grep -q '^// modes:' "$attack" && ! grep -q '^// modes:.*batch' "$attack" && continue
        [ -d "$work/subs/$name-solution" ] && cp -R "$work/subs/$name-solution" "$ubatch/"
    done
    cp -R "$work/subs/solution" "$work/subs/skeleton" "$ubatch/"
    chown -R "$user" "$ubatch"
    as_user env SEED=$seed JOBS=2 GRADER_TOKEN=s3cret $user_cache sh -c 'cd "$1" && PATH="$0" tools/batch-grade.sh lab3 "$2" "$3"' \
        "$PATH" "$copy" "$ubatch" "$work/user-grades" > "$work/user-batch.out" 2>&1 3>&- 4>&-
    brc=$?
    sleep 2
    bsol=$(row solution "$work/user-grades") bsk=$(row skeleton "$work/user-grades")
    left=$(ls -d /dev/shm/cudalabs-attack-* 2>/dev/null)
    if [ $brc = 0 ] && same "$bsol" "$solution_points" && same "$bsk" "$skeleton_points" && [ -z "$left" ] \
       && ! grep -q -E '[:,] *9999([^0-9]|$)' "$work/user-grades.jsonl" "$work/user-grades.csv" \
       && ! grep -q -r -F s3cret "$work/user-grades.jsonl" "$work/user-grades.csv" "$work/user-grades.logs"; then
        ok "batch grading as $user: the baselines keep their points ($bsol, $bsk), nothing forged, no secret, nothing left in /dev/shm"
    else
        not_ok "batch grading as $user: the baselines keep their points (exit $brc: $bsol, $bsk; left: $left)"
        sed 's/^/    /' "$work/user-batch.out" | tail -n 15
    fi
    batch_rows_check "batch grading as $user" "$work/user-grades" 1
}
[ -n "$user_ok" ] && start_case "" user_batch

# As root: every attack's submissions but those on the walls (the same
# runner: plain runs only) and those limited to other modes.
root_batch() {
    batch="$work/batch"
    mkdir -p "$batch"
    for sub in "$work"/subs/*-skeleton "$work"/subs/*-solution "$work/subs/skeleton" "$work/subs/solution"; do
        base=$(basename "$sub") attack_name=$(basename "$sub" | sed 's/-skeleton$//; s/-solution$//')
        grep -q '^// walls:' "$attacks/$attack_name.cu" 2>/dev/null && continue # the same runner: plain runs only
        grep -q '^// modes:' "$attacks/$attack_name.cu" 2>/dev/null \
            && ! grep -q '^// modes:.*batch' "$attacks/$attack_name.cu" && continue
        [ -d "$sub" ] && cp -R "$sub" "$batch/$base"
    done
    cp -R "$work/subs/solution" "$batch/zz-last-solution"
    SEED=$seed JOBS=2 tools/batch-grade.sh lab3 "$batch" "$work/grades" > "$work/batch.out" 2>&1 3>&- 4>&-
    brc=$?
    sleep 2
    bsol=$(row solution) blast=$(row zz-last-solution) bsk=$(row skeleton) bdl=$(row dlopen-reference-skeleton)
    bforge=$(row forge-results-and-kill-solution) bdrv=$(row driver-start-solution)
    if [ $brc = 0 ] && same "$bsol" "$solution_points" && same "$blast" "$solution_points" && same "$bforge" "$solution_points" \
       && same "$bdrv" "$solution_points" \
       && le "${bdl:-99}" "$skeleton_points" && same "$bsk" "$skeleton_points" && ! grep -q -E '[:,] *9999([^0-9]|$)' "$work/grades.jsonl" "$work/grades.csv"; then
        ok "batch grading: attacks change only their own rows ($bsol, $blast, $bforge, $bdrv, $bsk, $bdl)"
    else
        not_ok "batch grading: attacks change only their own rows (exit $brc: $bsol, $blast, $bforge, $bdrv, $bsk, $bdl)"
        sed 's/^/    /' "$work/batch.out" | tail -n 15
    fi
    batch_rows_check "batch grading" "$work/grades" 20
    perl -e 'local $/; my $t = <STDIN>; utf8::decode($t) or exit 1' < "$work/grades.jsonl" \
        && ! grep -q -E '(^|,)[=+@-]' "$work/grades.csv" \
        && ok "batch grading: the JSON lines are valid UTF-8, no CSV cell starts with = + - @" \
        || not_ok "batch grading: the JSON lines are valid UTF-8, no CSV cell starts with = + - @"
}
if [ -n "${ATTACKS_ONLY:-}" ]; then
    note "@ok batch grading # SKIP ATTACKS_ONLY is set"
else
    start_case "" root_batch
fi
wait_cases
report_cases
finish
