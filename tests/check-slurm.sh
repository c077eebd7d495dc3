#!/bin/sh
# Batch grading through a real Slurm (ENGINE=slurm): a one-node cluster on
# this machine (munged, slurmctld and slurmd, with a configuration written
# into a scratch folder here), lab 3 on the cpu backend.  Six submissions:
# a correct one, the skeleton, one that hangs, one that crashes, one whose
# task the scheduler kills (scancel, twice: the first time and its retry)
# and one whose folder name is full of quotes and spaces.  The merged table
# must be the local engine's row for row, but for the killed one, "not
# graded: the cluster stopped it (CANCELLED)"; a second collection gives the
# same bytes; a rerun grades only that row, and then every row is the local
# engine's.  Then the instructor's tools on those grades: the Canvas and
# Moodle exports' headers, the class statistics, and the similarity check
# finding a submission made by renaming another one's variables.
# Needs root and Debian's slurm-wlm, munge and similarity-tester (installed
# by tools/setup.sh slurm where missing); otherwise it says why and skips.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
cpu_pass_only
lab=lab3-folding
[ -d "solutions/$lab" ] || { ok "batch grading through Slurm # SKIP no solutions/$lab"; finish; }

if [ "$(id -u)" != 0 ]; then
    ok "batch grading through Slurm # SKIP not root: a one-node Slurm needs root to start"
    finish
fi
tools/setup.sh slurm >/dev/null 2>&1 || :   # installs them where missing (as root, with apt-get)
for tool in slurmctld slurmd munged sbatch sim_c; do
    command -v $tool >/dev/null 2>&1 || { ok "batch grading through Slurm # SKIP no $tool (apt-get install slurm-wlm munge similarity-tester)"; finish; }
done

# ---- a one-node Slurm, all of it in this folder, stopped at the end whatever happened ----
work=$(mktemp -d) && chmod 755 "$work" || exit 2   # munged wants every folder above its socket searchable
cluster="$work/cluster"
mkdir -p "$cluster/state" "$cluster/spool" "$cluster/munge" && chown munge "$cluster/munge" && chmod 755 "$cluster/munge"
stop_cluster() {
    for pid_file in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/pid"; do
        [ -s "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null
    done
    sleep 1
    for pid_file in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/pid"; do
        [ -s "$pid_file" ] && kill -9 "$(cat "$pid_file")" 2>/dev/null
    done
    [ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null
    rm -rf "$work"
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM HUP
# Ports of this test's own (not 6817/6818), so that a cluster already on
# this machine is left alone.
port=$((20000 + $$ % 20000))
cat > "$cluster/slurm.conf" <<EOF
ClusterName=cudalabs-test
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$cluster/munge/sock
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MinJobAge=3600
KillWait=2
InactiveLimit=0
ReturnToService=2
NodeName=localhost CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$cluster/slurm.conf"
runuser -u munge -- munged --socket="$cluster/munge/sock" --pid-file="$cluster/munge/pid" \
    --log-file="$cluster/munge/log" --seed-file="$cluster/munge/seed" 2>"$work/munged.err" \
    && slurmctld -f "$SLURM_CONF" 2>"$work/slurmctld.err" && slurmd -f "$SLURM_CONF" -N localhost 2>"$work/slurmd.err"
up=""
for _ in $(seq 1 40); do
    sinfo -h -o '%T' 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 0.5
done
if [ -z "$up" ]; then
    ok "batch grading through Slurm # SKIP the one-node Slurm did not start: $(cat "$work"/*.err "$cluster"/*.log 2>/dev/null | grep -i error | head -n 2 | tr '\n' ' ')"
    finish
fi
ok "a one-node Slurm runs here (slurmctld and slurmd on ports $port and $((port + 1)))"

# ---- the submissions ----------------------------------------------------------------
subs="$work/submissions"
quoted="o'brien \"the\" fold  (v2)"
mkdir -p "$subs/alice-correct" "$subs/bob-skeleton" "$subs/dave-hangs" "$subs/carl-crashes" "$subs/erin-killed" "$subs/$quoted"
cp solutions/$lab/*.cu "$subs/alice-correct/"
cp labs/$lab/*.cu "$subs/bob-skeleton/"
cp solutions/$lab/*.cu "$subs/erin-killed/"
cp solutions/$lab/*.cu "$subs/$quoted/"
cp solutions/$lab/fold.cu "$subs/dave-hangs/"
perl -0pi -e 's/(int fold_invariant_holds\([^)]*\)\n\{\n)/$1    for (;;) sleep(1); \/* never returns *\/\n/ and s/^/#include <unistd.h>\n/' "$subs/dave-hangs/fold.cu"
cp solutions/$lab/fold.cu "$subs/carl-crashes/"
perl -0pi -e 's/(int fold_invariant_holds\([^)]*\)\n\{\n)/$1    *(volatile int *)0 = 1; \/* a crash *\/\n/' "$subs/carl-crashes/fold.cu"
grep -q 'for (;;) sleep' "$subs/dave-hangs/fold.cu" && grep -q 'volatile int' "$subs/carl-crashes/fold.cu" \
    || not_ok "the hanging and crashing fixtures could not be made from solutions/$lab/fold.cu"

# The local engine's rows, the reference
CK_TIMEOUT_MULTIPLIER=0.2 SUBMISSION_TIMEOUT=45 SEED=4242 JOBS=2 \
    tools/batch-grade.sh lab3 "$subs" "$work/local/grades" > "$work/local.out" 2>&1 \
    || { not_ok "the local engine graded the folder"; sed 's/^/    /' "$work/local.out" | tail -n 10; finish; }

# The scheduler's kill: a watcher cancels the task that grades erin-killed
# each time it starts (the first time and its retry), as a time limit, a
# node failure or a preemption would.
out="$work/slurm/grades"
kill_erin() {
    killed=0
    while [ $killed -lt 2 ]; do
        n=""
        for f in "$out.slurm"/ids/*; do [ "$(cat "$f" 2>/dev/null)" = erin-killed ] && n=${f##*/}; done
        if [ -n "$n" ] && [ -s "$out.slurm/running/$n" ]; then
            task=$(cut -d ' ' -f 1 "$out.slurm/running/$n")
            [ "$task" != "${last:-}" ] && scancel "$task" 2>/dev/null && last=$task killed=$((killed + 1))
        fi
        sleep 0.2
    done
}
kill_erin & watcher=$!
start=$(date +%s)
CK_TIMEOUT_MULTIPLIER=0.2 SUBMISSION_TIMEOUT=45 SEED=4242 ENGINE=slurm SLURM_POLL=1 SLURM_MEM=200M SLURM_CPUS=1 \
    SLURM_CONFIG=/nonexistent tools/batch-grade.sh lab3 "$subs" "$out" > "$work/slurm.out" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null; watcher=""
if [ $rc = 0 ] && [ -s "$out.csv" ] && [ -s "$out.jsonl" ]; then
    ok "ENGINE=slurm graded the folder through a job array and wrote the two tables ($elapsed s)"
else
    not_ok "ENGINE=slurm graded the folder through a job array and wrote the two tables (exit $rc)"
    sed 's/^/    /' "$work/slurm.out" | tail -n 15
    cat "$out.slurm"/slurm/*.out 2>/dev/null | head -n 10 | sed 's/^/    task: /'
fi
grep -q 'job array' "$work/slurm.out" && [ "$(wc -l < "$out.slurm/jobs" 2>/dev/null)" = 2 ] \
    && ok "the killed task's submission was submitted once more, alone (two job arrays)" \
    || not_ok "the killed task's submission was submitted once more, alone ($(cat "$out.slurm/jobs" 2>/dev/null | tr '\n' ';'))"

# rows without the log's path (each batch names its own logs folder)
rows() { perl -pe 's/"log":"[^"]*"//' "$1"; }
row_of() { perl -MJSON::PP -ne 'my $r = decode_json($_); print $_ if $r->{id} eq $ARGV[0]; BEGIN { $id = shift @ARGV }' "$1" "$2"; }
rows "$work/local/grades.jsonl" | grep -v '"id":"erin-killed"' > "$work/local.rows"
rows "$out.jsonl" | grep -v '"id":"erin-killed"' > "$work/slurm.rows"
grep -v '^erin-killed,' "$work/local/grades.csv" > "$work/local.csv"
grep -v '^erin-killed,' "$out.csv" > "$work/slurm.csv"
if [ "$(wc -l < "$work/local.rows")" = 5 ] && cmp -s "$work/local.rows" "$work/slurm.rows" && cmp -s "$work/local.csv" "$work/slurm.csv"; then
    ok "the other five rows are the local engine's, in both files, in the same order (quotes and spaces in a name kept)"
else
    not_ok "the other five rows are the local engine's, in both files, in the same order"
    diff "$work/local.csv" "$work/slurm.csv" | head -n 10 | cut -c 1-200 | sed 's/^/    /'
fi
if grep -q '^erin-killed,not_graded,,[0-9.]*,,4242,.*not graded: the cluster stopped it (CANCELLED)' "$out.csv" \
   && grep '"id":"erin-killed"' "$out.jsonl" | grep -q '"points":null'; then
    ok "the task the scheduler killed twice: not graded, the cluster stopped it (CANCELLED), no points"
else
    not_ok "the task the scheduler killed twice: not graded, the cluster stopped it (CANCELLED), no points"
    grep 'erin' "$out.csv" | cut -c 1-200 | sed 's/^/    /'
fi
for s in alice-correct:full_marks bob-skeleton:graded dave-hangs: carl-crashes:graded; do
    grep -q "^${s%%:*},${s#*:}" "$out.csv" || not_ok "row ${s%%:*} is ${s#*:}: $(grep "^${s%%:*}," "$out.csv" | cut -c 1-80)"
done

# Two collections give the same file
cp "$out.csv" "$work/first.csv"; cp "$out.jsonl" "$work/first.jsonl"
tools/slurm-batch.sh collect "$out" > "$work/collect.out" 2>&1
if cmp -s "$out.csv" "$work/first.csv" && cmp -s "$out.jsonl" "$work/first.jsonl"; then
    ok "a second collection of the batch writes the same two files, byte for byte"
else
    not_ok "a second collection of the batch writes the same two files, byte for byte"
    diff "$work/first.csv" "$out.csv" | head -n 5 | sed 's/^/    /'
fi

# A rerun grades only the missing row; then every row is the local engine's
before=$(ls "$out.logs" | wc -l)
touch "$work/mark"
CK_TIMEOUT_MULTIPLIER=0.2 SUBMISSION_TIMEOUT=45 ENGINE=slurm SLURM_POLL=1 SLURM_MEM=200M SLURM_CPUS=1 SLURM_CHUNK=3 \
    SLURM_CONFIG=/nonexistent tools/batch-grade.sh lab3 "$subs" "$out" > "$work/rerun.out" 2>&1
rc=$?
regraded=$(find "$out.slurm" -maxdepth 1 -name '*.rc' -newer "$work/mark" | wc -l)
rows "$work/local/grades.jsonl" > "$work/local.all"
rows "$out.jsonl" > "$work/slurm.all"
if [ $rc = 0 ] && [ "$regraded" = 1 ] && grep -q '1 submissions in 1 tasks' "$work/rerun.out" \
   && cmp -s "$work/local.all" "$work/slurm.all" && cmp -s "$work/local/grades.csv" "$out.csv"; then
    ok "a rerun grades only the missing row, and then all six rows are the local engine's"
else
    not_ok "a rerun grades only the missing row, and then all six rows are the local engine's (exit $rc, $regraded graded again)"
    tail -n 5 "$work/rerun.out" | sed 's/^/    /'
    diff "$work/local/grades.csv" "$out.csv" | head -n 6 | cut -c 1-160 | sed 's/^/    /'
fi

# ---- the instructor's side --------------------------------------------------------------
# (a Canvas gradebook export: its header, its "Points Possible" line, two students)
printf '%s\n' 'Student,ID,SIS User ID,SIS Login ID,Section,Lab 3 (1234)' '    Points Possible,,,,,85' \
    '"Correct, Alice",101,s101,alice-correct,CUDA 1,' '"Absent, Zed",102,s102,zed,CUDA 1,' > "$work/roster.csv"
tools/grades-export.sh canvas "$out.csv" "Lab 3 (1234)" > "$work/canvas.csv" 2>"$work/export.err"
tools/grades-export.sh canvas "$out.csv" "Lab 3 (1234)" "$work/roster.csv" > "$work/canvas-roster.csv" 2>>"$work/export.err"
tools/grades-export.sh moodle "$out.csv" "Lab 3" > "$work/moodle.csv" 2>>"$work/export.err"
alice=$(awk -F, '$1 == "alice-correct" { print $3 }' "$out.csv")
if [ "$(head -n 1 "$work/canvas.csv")" = 'Student,ID,SIS User ID,SIS Login ID,Section,Lab 3 (1234)' ] \
   && grep -q "^alice-correct,,,alice-correct,,$alice\$" "$work/canvas.csv" \
   && [ "$(sed -n 2p "$work/canvas-roster.csv")" = "\"Correct, Alice\",101,s101,alice-correct,CUDA 1,$alice" ] \
   && [ "$(sed -n 3p "$work/canvas-roster.csv")" = '"Absent, Zed",102,s102,zed,CUDA 1,' ] \
   && [ "$(head -n 1 "$work/moodle.csv")" = 'ID number,Lab 3' ] && grep -q "^alice-correct,$alice\$" "$work/moodle.csv" \
   && grep -q '^dave-hangs,0$' "$work/moodle.csv" && grep -q '^bob-skeleton,0$' "$work/moodle.csv"; then
    ok "the Canvas and Moodle exports have their import headers and the grades ($alice for the correct one; Canvas's own roster kept)"
else
    not_ok "the Canvas and Moodle exports have their import headers and the grades"
    head -n 3 "$work/canvas.csv" "$work/canvas-roster.csv" "$work/moodle.csv" "$work/export.err" | sed 's/^/    /'
fi
tools/grades-stats.sh "$out.jsonl" > "$work/stats.txt" 2>&1
if grep -q '^submissions *6' "$work/stats.txt" && grep -q '^ *90-100 ' "$work/stats.txt" && grep -q 'most common first failure' "$work/stats.txt"; then
    ok "the class statistics: items lost, the first failures, a histogram of totals"
else
    not_ok "the class statistics: items lost, the first failures, a histogram of totals"
    sed 's/^/    /' "$work/stats.txt" | head -n 20
fi
# A copy of alice's with every variable renamed
mkdir -p "$subs/frank-renamed"
perl -pe 's/\bi\b/k/g; s/\bwidth\b/span/g; s/\bneeded\b/expected/g; s/\bpairs\b/count/g; s/\bd\b/dist/g; s/\bbytes\b/size_in_bytes/g' \
    "$subs/alice-correct/fold.cu" > "$subs/frank-renamed/fold.cu"
tools/similarity.sh lab3 "$subs" > "$work/sim.txt" 2>&1
if grep -q 'alice-correct.*frank-renamed\|frank-renamed.*alice-correct' "$work/sim.txt" \
   && ! grep -q 'bob-skeleton.*frank\|frank.*bob-skeleton' "$work/sim.txt"; then
    ok "the similarity check lists the pair made by renaming variables (and not the skeleton)"
else
    not_ok "the similarity check lists the pair made by renaming variables (and not the skeleton)"
    head -n 20 "$work/sim.txt" | sed 's/^/    /'
fi
finish
