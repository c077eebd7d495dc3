#!/bin/sh
# The Slurm engine of batch grading (ENGINE=slurm for tools/batch-grade.sh,
# which prepares the batch and calls "submit"; docs/instructors.md, "On your
# cluster").  A batch lives in OUT.slurm/ on the cluster's shared filesystem:
#   batch.env       the batch's settings (kit, grader, lab, seed, ...)
#   list, ids/N     its submissions' numbers and ids; src/N the copy graded
#   N.rc, N.json    a graded submission: the grader's exit status and result
#   attempts/N      how many times a task was given it; stopped/N why the
#                   cluster stopped it the last time (after its retry: its row)
#   jobs            one line per job array: "JOBID CHUNK TODO_FILE"
#
#   tools/slurm-batch.sh submit OUT TODO   submits the numbers in TODO, then
#                                          collects (waits) unless SLURM_WAIT=no
#   tools/slurm-batch.sh collect OUT       make batch-collect: retries what the
#                                          cluster stopped once, writes OUT.csv/.jsonl
#                                          when every row is final (exit 3: not yet)
#   tools/slurm-batch.sh busy OUT          exit 0 when a job of the batch is in the queue
#   tools/slurm-batch.sh task WORK TODO CHUNK   one array task (sbatch runs it)
#
# The settings (partition, account, time, memory, GPUs, chunk, waiting):
# environment variables, else batch.slurm.conf in the kit's root (or the
# file SLURM_CONFIG names), else defaults; tools/slurm.conf.example lists them.
set -u

# ---- one array task: grade its share of TODO, each in a scratch folder of its own ----
if [ "${1:-}" = task ]; then
    work=$2 todo=$3 chunk=$4
    . "$work/batch.env" || exit 2
    index=${SLURM_ARRAY_TASK_ID:?not in a Slurm array task}
    cd "$BATCH_KIT" || exit 2
    scratch_root=${SLURM_SCRATCH_DIR:-${TMPDIR:-/tmp}}
    task_user="" scratch=""
    finish_task() {
        [ -n "$scratch" ] && rm -rf "$scratch"
        [ -n "$task_user" ] && userdel "$task_user" 2>/dev/null
    }
    trap finish_task EXIT
    trap 'exit 143' TERM INT HUP
    # As root (a cluster where the tasks run as root, or this kit's test):
    # a runner user of this task's own, made on its node and removed at its
    # end, so that no other task's submission shares its process limit or
    # can read its copy.  As the instructor, the grader contains the
    # student code with what it has (contain.c: namespaces, Landlock).
    users=""
    if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1; then
        users="cudalabs-j${SLURM_JOB_ID:-$$}-"
        useradd --system --no-create-home --shell /usr/sbin/nologin "${users}1" 2>/dev/null \
            && task_user="${users}1" || users=""
    fi
    first=$((index * chunk + 1))
    sed -n "${first},$((first + chunk - 1))p" "$todo" > "$work/running.$index.$$" || exit 2
    while read -r n; do
        case $n in '' | *[!0-9]*) continue ;; esac
        echo "${SLURM_ARRAY_JOB_ID:-?}_$index ${SLURMD_NODENAME:-$(hostname)}" > "$work/running/$n" 2>/dev/null
        scratch=$(mktemp -d "$scratch_root/cudalabs-task.XXXXXX") || exit 2
        mkdir "$scratch/src" "$scratch/logs" && chmod 711 "$scratch" "$scratch/src" || exit 2
        if cp -R -P -- "$work/src/$n" "$scratch/src/$n" 2>"$scratch/logs/$n.copy"; then
            BATCH_WORK=$scratch BATCH_SLOTS=$scratch BATCH_LOGS=$scratch/logs BATCH_USERS=$users \
            BATCH_GRADER=$BATCH_GRADER BATCH_LAB=$BATCH_LAB BATCH_RUNNER=$BATCH_RUNNER BATCH_ONLY=$BATCH_ONLY \
            BATCH_BACKEND=$BATCH_BACKEND BATCH_SEED=$BATCH_SEED BATCH_TIMEOUT=$BATCH_TIMEOUT \
                sh tools/batch-grade.sh --grade-one "$n" 2>/dev/null
        else
            { echo "submission $n (its id is in the tables)"; cat "$scratch/logs/$n.copy"; } > "$scratch/logs/$n.log"
            echo 6 > "$scratch/$n.rc"
        fi
        # The grader's own files, brought back whole; the exit status last,
        # through a rename on the shared filesystem: once N.rc is there, the
        # row is final.
        printf '%s\n' "$scratch/src/$n/" > "$work/$n.scratch"
        [ -f "$scratch/$n.json" ] && cp "$scratch/$n.json" "$work/$n.json"
        cp "$scratch/logs/$n.log" "$BATCH_OUT.logs/$n.log" 2>/dev/null
        cp "$scratch/$n.rc" "$work/.$n.rc" && mv "$work/.$n.rc" "$work/$n.rc"
        rm -f "$work/running/$n"
        rm -rf "$scratch"
        scratch=""
    done < "$work/running.$index.$$"
    rm -f "$work/running.$index.$$"
    exit 0
fi

usage() { echo "usage: tools/slurm-batch.sh submit OUT TODO | collect OUT | busy OUT" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1
out=$2
case "$out" in /*) ;; *) out="$(pwd)/$out" ;; esac
work="$out.slurm"
[ -f "$work/batch.env" ] || { echo "slurm-batch: no batch at $work (start it with make batch ... ENGINE=slurm)" >&2; exit 2; }
. "$work/batch.env" || exit 2
cd "$BATCH_KIT" || exit 2

# conf KEY DEFAULT: the environment's KEY, else the config file's, else DEFAULT
config=${SLURM_CONFIG:-$BATCH_KIT/batch.slurm.conf}
conf() {
    eval "value=\${$1:-}"
    if [ -z "$value" ] && [ -f "$config" ]; then
        value=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$config" | tail -n 1 \
                | sed 's/[[:space:]]*$//; s/^"\(.*\)"$/\1/; s/^'"'"'\(.*\)'"'"'$/\1/')
    fi
    printf '%s' "${value:-$2}"
}

# quote TEXT: TEXT as one word for sh
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
jobs_so_far() { if [ -f "$work/jobs" ]; then wc -l < "$work/jobs"; else echo 0; fi; }

# in_queue: the batch's jobs still in the queue (pending or running), one a line
in_queue() {
    [ -f "$work/jobs" ] || return 0
    while read -r job _; do
        squeue -h -j "$job" -o '%i' 2>/dev/null
    done < "$work/jobs"
}
if [ "$action" = busy ]; then
    [ -n "$(in_queue)" ]
    exit $?
fi

# Two collections (or a collection and a rerun) of one batch at once would
# submit its retries twice: the second waits its turn.
if command -v flock >/dev/null 2>&1; then
    exec 9>>"$out.lock" || exit 2
    flock 9 || exit 2
fi

chunk=$(conf SLURM_CHUNK 1)
case $chunk in '' | *[!0-9]* | 0) echo "slurm-batch: SLURM_CHUNK is a number of submissions per task, not '$chunk'" >&2; exit 2 ;; esac
wait_for_it=$(conf SLURM_WAIT yes)
poll=$(conf SLURM_POLL 10)

# submit TODO ATTEMPT: one job array for the numbers in TODO
submit() {
    todo=$1
    count=$(grep -c . "$todo")
    [ "$count" -gt 0 ] || return 0
    tasks=$(( (count + chunk - 1) / chunk ))
    gpus_default=0
    if [ "$BATCH_BACKEND" = gpu ]; then
        gpus_default=1
        case $BATCH_LAB_FOLDER in lab9-*) gpus_default=2 ;; esac   # lab 9 grades on two GPUs
    fi
    gpus=$(conf SLURM_GRES_GPUS "$gpus_default")
    minutes=$(( (BATCH_TIMEOUT * chunk + 120 + 59) / 60 ))
    time=$(conf SLURM_TIME "$minutes")
    mem_default=6G
    [ "$BATCH_BACKEND" = gpu ] && mem_default=20G   # nvcc's own limit is 16 GiB
    mem=$(conf SLURM_MEM "$mem_default")
    cpus=$(conf SLURM_CPUS 2)
    partition=$(conf SLURM_PARTITION "") account=$(conf SLURM_ACCOUNT "") qos=$(conf SLURM_QOS "")
    max_running=$(conf SLURM_MAX_RUNNING "")
    extra=$(conf SLURM_EXTRA "")
    mkdir -p "$work/slurm" "$work/running" "$work/seen" || return 2
    # The job's script names the kit's copy of this script: sbatch keeps a
    # copy of the job script only, so the task finds the rest on the shared
    # filesystem (the kit built once, above).
    {
        echo '#!/bin/sh'
        scratch_dir=$(conf SLURM_SCRATCH_DIR "")
        [ -n "$scratch_dir" ] && printf 'SLURM_SCRATCH_DIR=%s; export SLURM_SCRATCH_DIR\n' "$(quote "$scratch_dir")"
        printf 'exec sh %s task %s "$@"\n' "$(quote "$BATCH_KIT/tools/slurm-batch.sh")" "$(quote "$work")"
    } > "$work/job.sh"
    set -- --parsable --job-name="cudalabs-$BATCH_LAB" --array="0-$((tasks - 1))${max_running:+%$max_running}" \
        --output="$work/slurm/%A_%a.out" --time="$time" --mem="$mem" --cpus-per-task="$cpus" --chdir="$BATCH_KIT"
    [ -n "$partition" ] && set -- "$@" --partition="$partition"
    [ -n "$account" ] && set -- "$@" --account="$account"
    [ -n "$qos" ] && set -- "$@" --qos="$qos"
    [ "$gpus" -gt 0 ] 2>/dev/null && set -- "$@" --gres="gpu:$gpus"
    # shellcheck disable=SC2086 # SLURM_EXTRA is the instructor's own sbatch options, split on spaces
    job=$(sbatch "$@" $extra "$work/job.sh" "$todo" "$chunk" 2>"$work/sbatch.err") \
        || { echo "slurm-batch: sbatch refused the job array:" >&2; sed 's/^/    /' "$work/sbatch.err" >&2; return 2; }
    job=${job%%;*}
    echo "$job $chunk $todo" >> "$work/jobs"
    while read -r n; do
        a=$(cat "$work/attempts/$n" 2>/dev/null || echo 0)
        echo $((a + 1)) > "$work/attempts/$n"
    done < "$todo"
    echo "slurm-batch: job array $job: $count submissions in $tasks tasks (time $time, memory $mem${partition:+, partition $partition}$([ "$gpus" -gt 0 ] 2>/dev/null && echo ", gres gpu:$gpus"))"
}

# state_of N: "STATE" or "STATE, Reason" of the last task that had N, from
# sacct where the cluster keeps accounting, else from scontrol (which knows
# a job for MinJobAge seconds after its end)
state_of() {
    line=$(grep -n "" "$work/jobs" | while IFS=: read -r _ entry; do
               set -- $entry
               pos=$(grep -nx "$N" "$3" 2>/dev/null | head -n 1 | cut -d: -f1)
               [ -n "$pos" ] && echo "$1 $(( (pos - 1) / $2 ))"
           done | tail -n 1)
    [ -n "$line" ] || { echo "never submitted"; return; }
    task="${line% *}_${line#* }"
    state="" reason=""
    acct=$(sacct -n -P -X -j "$task" -o State,Reason 2>/dev/null | head -n 1)
    if [ -n "$acct" ]; then
        state=${acct%%|*} reason=${acct#*|}
    else
        info=$(scontrol -o show job "$task" 2>/dev/null)
        state=$(printf '%s' "$info" | sed -n 's/.*JobState=\([^ ]*\).*/\1/p')
        reason=$(printf '%s' "$info" | sed -n 's/.* Reason=\([^ ]*\).*/\1/p')
    fi
    state=${state%% by *}
    [ -n "$state" ] || { echo "task $task: the scheduler no longer knows it"; return; }
    case $reason in '' | None | Resources | Priority | Dependency | '(null)') why=$state ;; *) why="$state, $reason" ;; esac
    # a task that ended by itself without the result: its own output says why
    case $state in COMPLETED | FAILED) why="$why; the task's output: $BATCH_OUT.slurm/slurm/$task.out" ;; esac
    echo "$why"
}

collect() {
    while :; do
        if [ -n "$(in_queue)" ]; then
            if [ "$wait_for_it" = no ]; then
                echo "slurm-batch: the batch still runs ($(in_queue | wc -l) tasks in the queue): make batch-collect OUT=$BATCH_OUT later"
                return 3
            fi
            sleep "$poll"
            continue
        fi
        # every task has ended: which rows have no result, and why
        todo_name="todo.$(( $(jobs_so_far) + 1 ))"
        : > "$work/$todo_name.part"
        while read -r N; do
            [ -e "$work/$N.rc" ] && continue
            # each attempt's end is read once (seen/N: the attempt read), so
            # that a second collection finds what the first one did
            attempts=$(cat "$work/attempts/$N" 2>/dev/null || echo 0)
            [ "$(cat "$work/seen/$N" 2>/dev/null)" = "$attempts" ] && continue
            why=$(state_of)
            printf '%s\n' "$why" > "$work/stopped/$N"
            echo "$attempts" > "$work/seen/$N"
            [ "$attempts" -lt 2 ] && echo "$N" >> "$work/$todo_name.part"
        done < "$work/list"
        mv "$work/$todo_name.part" "$work/$todo_name"
        if [ -s "$work/$todo_name" ]; then
            echo "slurm-batch: the cluster stopped $(wc -l < "$work/$todo_name") tasks' submissions; once more:"
            submit "$work/$todo_name" || return 2
            [ "$wait_for_it" = no ] && { echo "slurm-batch: make batch-collect OUT=$BATCH_OUT once it has run"; return 3; }
            continue
        fi
        rm -f "$work/$todo_name"
        break
    done
    perl tools/batch-tables.pl "$work" "$BATCH_OUT" "$BATCH_LAB_FOLDER" "$BATCH_SEED" "$BATCH_BACKEND" "$BATCH_TIMEOUT" \
        "$BATCH_SUBMISSIONS" || return 2
    stopped=0
    while read -r N; do [ -e "$work/$N.rc" ] || stopped=$((stopped + 1)); done < "$work/list"
    [ "$stopped" -gt 0 ] && echo "slurm-batch: $stopped not graded (the cluster stopped them twice): run the same make batch again to grade only those"
    echo "batch-grade: $(wc -l < "$work/list") submissions -> $BATCH_OUT.csv, $BATCH_OUT.jsonl (logs in $BATCH_OUT.logs/)"
    return 0
}

case $action in
submit)
    [ $# -eq 3 ] || usage
    todo_name="todo.$(( $(jobs_so_far) + 1 ))"
    mv "$3" "$work/$todo_name" || exit 2
    submit "$work/$todo_name" || exit 2
    if [ "$wait_for_it" = no ]; then
        echo "slurm-batch: submitted; make batch-collect OUT=$BATCH_OUT gathers the grades once the array has run"
        exit 0
    fi
    collect; exit $? ;;
collect) collect; exit $? ;;
*) usage ;;
esac
