#!/bin/sh
# tools/bench.sh: `make bench`.  Builds, checks and times every lab on this
# GPU: the reference solution and your code, beside the library a
# professional would call and the device's own ceiling, at sizes from 2^16
# to 2^28 elements (matrix sides 512 to 4096).  Prints one table per lab and,
# last, whether the solutions meet their targets; writes under build/bench/:
#   <lab>.csv      every row with its derived columns (bench/table.awk says what they mean)
#   <lab>.png      the rates against the size (gnuplot, else python3 with matplotlib)
#   all.csv        every lab's rows in one file
#   table.txt      the printed tables;  environment.txt  the GPU, driver, CUDA and date
#   logs/          the build and each bench program's output
#
# Options, from the environment or as make variables (make bench BENCH_QUICK=1):
#   BENCH_QUICK=1         a short run (about 3 minutes on an H100): sizes 2^16, 2^20,
#                         2^24, 2^28, matrix sides 1024 and 4096, fewer runs
#   BENCH_LABS="6 lab7"   only these labs (numbers or folder names)
#   BENCH_SIZES="20 24"   log2 of the element counts;  BENCH_MATMUL="1024 2048"  matrix sides
#   BENCH_STUDENT=0       leave your code out (time the reference and the libraries only)
#   BENCH_JOBS=N          parallel compile jobs (default: the processor count)
set -u
cd "$(dirname "$0")/.." || exit 2

BACKEND=${BACKEND:-$(tools/detect-backend.sh)}
if [ "$BACKEND" != gpu ]; then
    cat <<EOF
make bench: nothing timed on the $BACKEND backend.

The bench measures kernels on an NVIDIA GPU, and this build uses the kit's
CPU emulation (no usable GPU with nvcc here, or BACKEND=$BACKEND was asked for).
The emulator runs every CUDA thread as a fiber on this processor, one block
after another: its times say how fast the emulation is, not how fast a kernel
would run on a GPU.  A kernel that is fast on a GPU can be slow here and the
other way round, so its numbers would teach the wrong lessons.

Run make bench on a machine with an NVIDIA GPU and the CUDA toolkit, or read
docs/performance.md for results measured on one.
EOF
    exit 0
fi

OUT=build/bench
LOGS=$OUT/logs
JOBS=${BENCH_JOBS:-$(nproc 2>/dev/null || echo 4)}
ARCH=${ARCH-$(tools/cuda-arch.sh)}
started=$(date +%s)
mkdir -p "$LOGS"
rm -f "$OUT"/*.csv "$OUT"/*.png "$OUT"/bin/* "$LOGS"/*

# ---- Which labs --------------------------------------------------------------------
all_labs=$(cd labs && ls -d lab*/ 2>/dev/null | tr -d / | sort -V)
labs=""
for lab in $all_labs; do
    if [ -n "${BENCH_LABS:-}" ]; then
        number=$(echo "$lab" | sed 's/^lab\([0-9]*\).*/\1/')
        case " $BENCH_LABS " in *" $lab "*|*" $number "*|*" lab$number "*) ;; *) continue ;; esac
    fi
    labs="$labs $lab"
done

# ---- Build: the labs' shared objects and the bench programs, in one make -------------
make_vars="BACKEND=gpu ARCH=$ARCH"
targets=""
for lab in $labs; do
    targets="$targets build/gpu/$lab/reference.so build/gpu/$lab/student.so"
    [ -f "grading/$lab/bench.c" ] && targets="$targets $OUT/bin/$lab"
done
echo "make bench: building$labs (log: $LOGS/build.log)"
# -k: a lab that does not build must not stop the others; each is checked below.
make -k -j"$JOBS" $make_vars $targets > "$LOGS/build.log" 2>&1
built() { make -q $make_vars "$1" >/dev/null 2>&1 && [ -f "$1" ]; }
for f in "$OUT"/obj/beyond/*/*.ptxas.txt; do [ -f "$f" ] && cp "$f" "$LOGS/$(basename "$(dirname "$f")")-$(basename "$f")"; done

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory \
        --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
    echo "cuda: $(nvcc --version | sed -n 's/^Cuda compilation tools, //p')"
    echo "arch: ${ARCH:-nvcc default}"
    echo "mode: $([ "${BENCH_QUICK:-0}" != 0 ] && echo quick || echo full)${BENCH_SIZES:+, sizes 2^($BENCH_SIZES)}${BENCH_MATMUL:+, sides $BENCH_MATMUL}"
    [ -n "${NVIDIA_TF32_OVERRIDE:-}" ] && echo "warning: NVIDIA_TF32_OVERRIDE=$NVIDIA_TF32_OVERRIDE is set"
} > "$OUT/environment.txt"
cat "$OUT/environment.txt"
gpu_name=$(sed -n 's/^gpu: \([^,]*\),.*/\1/p' "$OUT/environment.txt" | head -n 1)

# ---- Run: the reference side (with the libraries), then the student's --------------
skipped=""
for lab in $labs; do
    program=$OUT/bin/$lab
    raw=$OUT/$lab.raw.csv
    if [ ! -f "grading/$lab/bench.c" ]; then
        case $lab in
        lab1-*) skipped="$skipped\n  $lab: nothing to time (its kernels print and describe the device)" ;;
        *) skipped="$skipped\n  $lab: no bench program (grading/$lab/bench.c) yet" ;;
        esac
        continue
    fi
    if ! built "$program"; then
        skipped="$skipped\n  $lab: its bench program does not build against labs/$lab/ (see $LOGS/build.log)"
        continue
    fi
    echo "lab,side,version,size,runs,median_ms,min_ms,max_ms,work,unit,check,target,note" > "$raw"
    lab_started=$(date +%s)
    for side in reference student; do
        [ "$side" = student ] && [ "${BENCH_STUDENT:-1}" = 0 ] && continue
        if ! built "build/gpu/$lab/$side.so"; then
            skipped="$skipped\n  $lab: build/gpu/$lab/$side.so does not build (see $LOGS/build.log)"
            continue
        fi
        "$program" --lab="$lab" --side="$side" --build=build/gpu --csv="$raw" > "$LOGS/$lab-$side.log" 2>&1
        status=$?
        if [ $status -ne 0 ]; then
            skipped="$skipped\n  $lab: the $side run stopped early (exit $status): $(tail -n 1 "$LOGS/$lab-$side.log")"
        fi
    done
    echo "  $lab: $(($(date +%s) - lab_started)) s"
done

# ---- The tables, the CSVs, the plots ----------------------------------------------------
raws=$(ls "$OUT"/*.raw.csv 2>/dev/null)
if [ -z "$raws" ]; then
    printf "make bench: nothing was timed.%b\n" "$skipped"
    exit 1
fi
awk -v out="$OUT" -f bench/table.awk $raws > "$OUT/table.txt"
first=$(ls "$OUT"/lab*.csv | grep -v '\.raw\.csv$' | head -n 1)
{ head -n 1 "$first"
  for lab in $labs; do [ -f "$OUT/$lab.csv" ] && tail -n +2 "$OUT/$lab.csv"; done; } > "$OUT/all.csv"
plots=""
for lab in $labs; do
    [ -f "$OUT/$lab.csv" ] || continue
    if bench/plot.sh "$OUT/$lab.csv" "$OUT/$lab.png" "$lab on ${gpu_name:-this GPU}" >> "$LOGS/plots.log" 2>&1; then
        plots="$plots $OUT/$lab.png"
    fi
done
[ -n "$plots" ] || plots=" none$(tail -n 1 "$LOGS/plots.log" 2>/dev/null | sed 's/^/ (/; s/$/)/')"

echo
cat "$OUT/table.txt"
[ -n "$skipped" ] && printf "\nNot timed:%b\n" "$skipped"
echo
echo "CSV: $OUT/all.csv (and one per lab); plots:$plots"
echo "make bench: $(($(date +%s) - started)) s in all; results page: make bench-report"
