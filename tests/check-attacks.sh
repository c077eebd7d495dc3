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
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
lab=lab3-folding file=fold.cu
[ -d "solutions/$lab" ] || { ok "attacks # SKIP no solution of $lab in this copy"; finish; }
work=$(mktemp -d) && chmod 755 "$work" && trap 'rm -rf "$work"' EXIT
kit=$(pwd)
attacks=tests/attacks/$lab
seed=7
export STUDENT_BUILD_SECONDS=${STUDENT_BUILD_SECONDS:-20} # (more on a loaded machine)
# a secret of the grader's that no feedback may show (print-environment.cu)
export GRADER_TOKEN=s3cret

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

# grade NAME DIR [ARGS]: $work/NAME.{out,json}, exit status in $rc; waits a
# little, so that anything the attack left behind has time to act
grade() {
    run=$1 folder=$2
    shift 2
    env $switches ./grader lab3 --backend=$BACKEND --seed=$seed --student-dir="$folder" --format=json --out="$work/$run.json" $only "$@" \
        >"$work/$run.out" 2>&1
    rc=$?
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

# What must hold after any run, attack or not.
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
    sum=$(cksum < "$json")
    sleep 2
    [ "$(cksum < "$json")" = "$sum" ] || { echo "results file changed after the grader ended"; return; }
    # (this run's processes only: other kits may be grading on the machine;
    # a student's runner is shown as the lab program, ./build/<backend>/lab3-folding/lab,
    # and is told by the student's object it maps from this kit)
    left=$(ps -eo pid=,args= | grep -E '[l]ab3-folding-student.so|[s]ubmissions/.*student.so|[c]udalabs-grader-|[b]uild/[a-z]*/lab3-folding/lab$|[b]uild/host/runner |[r]eference-runner' \
        | while read -r pid args; do
              where="$(readlink "/proc/$pid/cwd" 2>/dev/null) $(grep -o -m 1 '/[^ ]*student.so' "/proc/$pid/maps" 2>/dev/null)"
              case "$args $where/" in *"$kit/"*|*"$work/"*) echo "$args" ;; esac
          done | head -n 3)
    [ -z "$left" ] || { echo "processes left: $left"; return; }
    grep -q -F s3cret "$out" "$json" && { echo "the grader's secret (GRADER_TOKEN) reached the report or results"; return; }
    # (the attacks' keys 0x0c0da1ab to 0x0c0da1ae, and a private segment of
    # 789921 bytes: ipc-leftovers*.cu; as an ordinary user without
    # namespaces too, where the grader removes what the item added)
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
# attacks do not run).  Empties what they heard.
heard_nothing() {
    text=$(cat "$heard" 2>/dev/null)
    : > "$heard"
    case $1 in
    udp-out|unix-socket-out|abstract-socket-out) [ -z "$text" ] ;;
    *) true ;;
    esac
}

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
                ok "user, neither Landlock nor namespaces: reading the kit # SKIP below the minimum a platform grades on"
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

# ---- the baselines --------------------------------------------------------------------
mkdir -p "$work/subs/skeleton" "$work/subs/solution"
cp "labs/$lab/$file" "$work/subs/skeleton/"
cp "solutions/$lab/$file" "$work/subs/solution/"
grade skeleton "$work/subs/skeleton"
skeleton_points=$(points skeleton)
grade solution "$work/subs/solution"
solution_points=$(points solution)
if [ -n "$skeleton_points" ] && [ "$rc" = 0 ]; then
    ok "baselines: the skeleton scores $skeleton_points, the solution full marks ($solution_points)"
else
    not_ok "baselines: the skeleton and the solution grade"; show solution; finish
fi

# ---- each attack, on the skeleton and on the solution -----------------------------------
run_attacks() { # run_attacks MODE: the attacks as this user
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
        if grep -q '^// expect: build-fails' "$attack"; then
            submission "$name" "labs/$lab/$file" "$attack"
            t0=$(date +%s)
            grade "$mode-$name" "$work/subs/$name"
            took=$(( $(date +%s) - t0 ))
            if [ $rc = 2 ] && grep -q "does not compile" "$work/$mode-$name.out" && [ $took -lt 120 ]; then
                ok "$mode: $name does not build (exit 2, ${took} s)"
            else
                not_ok "$mode: $name does not build (exit $rc, ${took} s)"; show "$mode-$name"
            fi
            continue
        fi
        # (with a switch on, only the attacks that could answer for a
        # skeleton run on it: the others' skeleton runs show nothing new)
        case "$mode $WALL_SKELETONS " in *-no-*" $name "*|plain\ *|user\ *|gradescope\ *|prairielearn\ *)
        submission "$name-skeleton" "labs/$lab/$file" "$attack"
        grade "$mode-$name-skeleton" "$work/subs/$name-skeleton"
        why=$(sound "$mode-$name-skeleton" skeleton)
        heard_nothing "$name" "$mode-$name-skeleton" || why="${why:+$why; }a listener outside the sandbox heard it"
        got=$(points "$mode-$name-skeleton")
        if [ -z "$why" ] && [ -n "$got" ] && le "$got" "$skeleton_points"; then
            ok "$mode: $name on the skeleton scores $got (the skeleton $skeleton_points)"
        else
            not_ok "$mode: $name on the skeleton scores ${got:-nothing} (the skeleton $skeleton_points) ${why:+: $why}"
            show "$mode-$name-skeleton"
        fi ;;
        esac

        submission "$name-solution" "solutions/$lab/$file" "$attack"
        grade "$mode-$name-solution" "$work/subs/$name-solution"
        why=$(sound "$mode-$name-solution" solution)
        heard_nothing "$name" "$mode-$name-solution" || why="${why:+$why; }a listener outside the sandbox heard it"
        lost=""
        for pair in $(statuses "$mode-$name-solution" | tr ' ' ':'); do
            item=${pair%%:*} status=${pair#*:}
            case "$status" in PASS|SKIP) continue ;; esac
            case " $costs " in *" all "*|*" $item "*) ;; *) lost="$lost $item" ;; esac
        done
        if [ -z "$why" ] && [ -z "$lost" ] && [ -n "$(points "$mode-$name-solution")" ]; then
            ok "$mode: $name on the solution costs only its items ($(points "$mode-$name-solution")/$solution_points)"
        else
            not_ok "$mode: $name on the solution costs only its items (lost:${lost:- nothing}) ${why:+: $why}"
            show "$mode-$name-solution"
        fi
    done
}
run_attacks plain
wall_modes plain

# ---- submissions handled safely -------------------------------------------------------------
odd="$work/subs/a b \$(touch $work/pwned) 'q'"
mkdir -p "$odd" && cp "solutions/$lab/$file" "$odd/"
grade odd-path "$odd"
[ $rc = 0 ] && [ ! -e "$work/pwned" ] && ok "a folder named with spaces, quotes and \$(...) grades as it is" \
    || { not_ok "a folder named with spaces, quotes and \$(...) grades as it is (exit $rc)"; show odd-path; }
mkdir -p "$work/subs/empty" && echo "not the lab" > "$work/subs/empty/notes.txt"
grade empty "$work/subs/empty"
[ $rc = 2 ] && grep -q "holds no file of $lab" "$work/empty.out" && ok "a folder with no file of the lab: exit 2, said plainly" \
    || { not_ok "a folder with no file of the lab: exit 2, said plainly (exit $rc)"; show empty; }
mkdir -p "$work/subs/resubmit" && cp "solutions/$lab/$file" "$work/subs/resubmit/"
grade resubmit-1 "$work/subs/resubmit"
cp "labs/$lab/$file" "$work/subs/resubmit/" && touch -d '2001-01-01' "$work/subs/resubmit/$file"
grade resubmit-2 "$work/subs/resubmit"
[ "$(points resubmit-2)" = "$skeleton_points" ] && ok "a resubmitted file older than the last build is rebuilt" \
    || { not_ok "a resubmitted file older than the last build is rebuilt ($(points resubmit-2))"; show resubmit-2; }
grade together-1 "$work/subs/solution" & first=$!
./grader lab3 --backend=$BACKEND --seed=$seed --student-dir="$work/subs/skeleton" >"$work/together-2.out" 2>&1
second=$?
wait $first
[ "$(points together-1)" = "$solution_points" ] && [ "$(points together-2)" = "$skeleton_points" ] \
    && ok "two graders at once in one checkout: both right" \
    || { not_ok "two graders at once in one checkout: both right ($(points together-1), $(points together-2), $second)"; show together-2; }
CK_TIMEOUT_MULTIPLIER=0 ./grader lab3 --backend=$BACKEND --seed=$seed --student-dir="$work/subs/solution" --only=fold_launches \
    >"$work/multiplier.out" 2>&1
rc=$?
[ $rc = 0 ] && ok "CK_TIMEOUT_MULTIPLIER=0 is ignored (timeouts stay on)" || not_ok "CK_TIMEOUT_MULTIPLIER=0 is ignored (exit $rc)"

# ---- as an ordinary user -----------------------------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
    user=cudalabs-student
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>/dev/null
    if id "$user" >/dev/null 2>&1; then
        # the user's own copy of the kit, built by that user
        copy="$work/user-kit"
        mkdir -p "$copy"
        # (the working tree as it is, not git's index: a copy of the tree
        # without its history, as on a GPU machine, is tested the same way)
        tar cf - --exclude=./build --exclude=./.git --exclude=./dist --exclude=./.deps . | (cd "$copy" && tar xf -)
        [ -d .deps ] && cp -R .deps "$copy/"
        chown -R "$user" "$copy" "$work/subs"
        as_user() { setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups --reset-env "$@"; }
        as_user sh -c "cd '$copy' && PATH='$PATH' make -s build/host/grader build-$lab BACKEND=$BACKEND" >"$work/user-build.out" 2>&1
        abi=$(as_user "$copy/build/host/grader" --sandbox-abi 2>/dev/null)
        echo "# as $user, Landlock ABI ${abi:-none}"
        grade() {
            run=$1 folder=$2
            shift 2
            as_user env GRADER_TOKEN=s3cret $switches sh -c 'cd "$1" && shift && PATH="$0" ./grader "$@"' "$PATH" "$copy" lab3 --backend=$BACKEND --seed=$seed \
                --student-dir="$folder" --format=json --out="$work/$run.json" $only "$@" >"$work/$run.out" 2>&1
            rc=$?
        }
        chmod 777 "$work"
        grade user-skeleton "$work/subs/skeleton"
        [ "$(points user-skeleton)" = "$skeleton_points" ] && ok "as $user: the skeleton scores $skeleton_points" \
            || { not_ok "as $user: the skeleton scores $skeleton_points"; show user-skeleton; sed 's/^/    /' "$work/user-build.out" | tail -5; }
        # (signals to the grader are stopped by the seccomp filter, and by
        # Landlock's signal scoping from ABI 6)
        # The user's own things in /dev/shm and SysV IPC, there before any
        # item: where the grader removes what an item left as this user (no
        # namespaces) it must keep these.
        rm -f /dev/shm/cudalabs-own-file; ipcrm -M 0x0c0da1ff 2>/dev/null
        as_user sh -c 'echo mine > /dev/shm/cudalabs-own-file'
        as_user perl -e 'use IPC::SysV qw(IPC_CREAT); defined shmget(0x0c0da1ff, 4096, IPC_CREAT | 0600) or exit 1'
        user_ok=1
        run_attacks user
        wall_modes user

        # ---- through the GitHub package's grading step, as this user -------------------------
        # The workflow's step (.github/grade.sh) in the lab's starting
        # repository, the attack in the student's own file there, as
        # GitHub's runners run it: an ordinary user.  Its results file is the
        # JUnit report.  The attacks that run through the packages, on the
        # solution.
        gh="$work/github-$lab"
        if [ "$BACKEND" != cpu ]; then
            ok "github: the grading step # SKIP on the cpu pass only"
        elif DIST_DIR="$work" DIST_HANDOUTS=no platforms/github/build.sh "$lab" > "$work/github-build.log" 2>&1 \
             && chown -R "$user" "$gh" \
             && as_user sh -c "cd '$gh' && PATH='$PATH' make -s build/host/grader BACKEND=cpu" >> "$work/github-build.log" 2>&1; then
            grade() {
                run=$1
                cp "$2/$file" "$gh/labs/$lab/$file" && chown "$user" "$gh/labs/$lab/$file"
                rm -f "$gh/grade-report.xml"
                as_user env GRADER_TOKEN=s3cret $switches sh -c 'cd "$1" && PATH="$0" BACKEND=cpu sh .github/grade.sh lab3' \
                    "$PATH" "$gh" > "$work/$run.out" 2>&1
                rc=$?
                ln -sf "$gh/grade-report.xml" "$work/$run.json"
            }
            results_format=junit
            run_attacks github
            results_format=json
        else
            not_ok "github: the starting repository of $lab builds"; sed 's/^/    /' "$work/github-build.log" | tail -n 10
        fi

        if [ -f /dev/shm/cudalabs-own-file ] && ipcs -m | grep -q -i 0x0c0da1ff; then
            ok "as $user: the user's own /dev/shm file and SysV segment outlive every grade"
        else
            not_ok "as $user: the user's own /dev/shm file and SysV segment outlive every grade"
        fi
        rm -f /dev/shm/cudalabs-own-file; ipcrm -M 0x0c0da1ff 2>/dev/null
    else
        ok "as an ordinary user # SKIP useradd failed"
    fi
else
    ok "as an ordinary user # SKIP needs root, useradd and setpriv"
fi

# ---- through the Gradescope and PrairieLearn packages, in scratch roots ------------------------
# Each attack again, graded as the platform grades it: the package's own
# script, as the unprivileged user nobody where the test is root.  The
# grader's exit status and report are in the script's output; the results
# file is the platform's (whose later changes the checks look for).
pkg_user=no-such-user
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && pkg_user=nobody
package_grade() { # package_grade RUN FOLDER RESULTS SCRIPT...: the package grades FOLDER
    run=$1 folder=$2 results=$3
    shift 3
    rm -f "$results"
    "$@" > "$work/$run.out" 2>&1
    rc=$(sed -n 's/^autograde: grader exit \([0-9]*\).*/\1/p' "$work/$run.out" | tail -n 1)
    rc=${rc:-99}
    ln -sf "$results" "$work/$run.json"
}
if [ "$BACKEND" = cpu ]; then
    gs="$work/gradescope"
    mkdir -p "$gs/root/source" "$gs/root/submission" "$gs/root/results"
    if DIST_DIR="$gs" platforms/gradescope/build.sh "$lab" > "$gs/build.log" 2>&1 \
       && (cd "$gs/root/source" && unzip -q "$gs/gradescope-$lab.zip") \
       && sh "$gs/root/source/prepare-kit.sh" "$gs/root/source/kit" "$lab" > "$gs/prepare.log" 2>&1; then
        grade() {
            rm -rf "$gs/root/submission" && mkdir -p "$gs/root/submission" && cp "$2"/* "$gs/root/submission/"
            AUTOGRADER_ROOT="$gs/root" KILL_LEFTOVERS=no GRADER_USER=$pkg_user package_grade "$1" "$2" \
                "$gs/root/results/results.json" sh "$gs/root/source/run_autograder"
        }
        run_attacks gradescope
    else
        not_ok "gradescope: the package for $lab builds"; sed 's/^/    /' "$gs/build.log" "$gs/prepare.log" 2>/dev/null | tail -n 10
    fi
    pl="$work/prairielearn"
    # in the grading image, the documented route: the kit built once, as its
    # Dockerfile does (image-setup.sh on a copy), not in every job; the
    # per-job build of PrairieLearn's own image is check-platforms' to test
    if DIST_DIR="$pl" platforms/prairielearn/build.sh "$lab" > "$pl.log" 2>&1 \
       && cp -R "$pl/prairielearn-$lab/image" "$pl/image" && sh "$pl/image/image-setup.sh" "$pl/image/kit" "$lab" >> "$pl.log" 2>&1; then
        package="$pl/prairielearn-$lab"
        grade() { # a fresh /grade per job, as PrairieLearn makes one
            rm -rf "$pl/grade" && mkdir -p "$pl/grade/student"
            cp -R "$package/serverFilesCourse" "$pl/grade/serverFilesCourse"
            cp -R "$package/questions/cuda-labs/$lab/tests" "$pl/grade/tests"
            cp "$2"/* "$pl/grade/student/"
            PL_ROOT="$pl/grade" GRADER_USER=$pkg_user CUDA_LABS_KIT="$pl/image/kit" \
                package_grade "$1" "$2" "$pl/grade/results/results.json" sh "$pl/grade/tests/run.sh"
        }
        run_attacks prairielearn
    else
        not_ok "prairielearn: the package for $lab builds"; sed 's/^/    /' "$pl.log" | tail -n 10
    fi
else
    ok "the platform packages # SKIP on the cpu pass only"
fi

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

# ---- batch grading as the ordinary user ---------------------------------------------------------
# The attacks that run through the packages (a "packages:" line), on the
# solution, graded by tools/batch-grade.sh run as that user: no runner user
# of its own then, the grader's walls only.
if [ -n "${user_ok:-}" ]; then
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
    as_user env SEED=$seed JOBS=2 GRADER_TOKEN=s3cret sh -c 'cd "$1" && PATH="$0" tools/batch-grade.sh lab3 "$2" "$3"' \
        "$PATH" "$copy" "$ubatch" "$work/user-grades" > "$work/user-batch.out" 2>&1
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
fi

# ---- batch grading -----------------------------------------------------------------------------
[ -n "${ATTACKS_ONLY:-}" ] && { ok "batch grading # SKIP ATTACKS_ONLY is set"; finish; }
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
SEED=$seed JOBS=2 tools/batch-grade.sh lab3 "$batch" "$work/grades" > "$work/batch.out" 2>&1
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
finish
