#!/bin/sh
# tools/bench-report.sh [DIR...]: `make bench-report`.  Writes docs/performance.md
# (and its plots under docs/performance/) from the results of `make bench`
# runs, one section per run: DIR/environment.txt, DIR/<lab>.csv and
# DIR/<lab>.png (DIR defaults to build/bench, the last run here).  To show
# several GPUs, copy each run's build/bench somewhere and name every copy.
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || set -- build/bench
page=docs/performance.md
pictures=docs/performance

results=1
for dir in "$@"; do
    if [ ! -f "$dir/environment.txt" ] || [ -z "$(ls "$dir"/lab*.csv 2>/dev/null)" ]; then
        # A page with results is never replaced by one without.
        if [ -f "$page" ]; then
            echo "bench-report: no results in $dir: run make bench on a machine with a GPU first" >&2
            exit 1
        fi
        results=0
    fi
done
field() { sed -n "s/^$1: //p" "$dir/environment.txt" | head -n 1; }
if [ $results = 1 ]; then
    mkdir -p "$pictures"
    rm -f "$pictures"/*.png # (notes.md stays)
fi

# The method: the same on every page.
intro() {
    cat <<'EOF'
# Performance

How fast the kit's solutions run, beside the library a professional would
call instead and the GPU's own streaming ceiling, measured by `make bench`
in one run on one GPU.  Run it on yours and compare: `make bench` prints the
same table for your code (the `student` rows) next to the solution's.

## How it measures

- **What is timed.** The labs' entry points take host arrays and do their
  own copies, so a lab is timed by the harness: `kit_timed_ms()`, the device
  time of its `LAUNCH`es between CUDA events, without its allocations and
  copies.  A library call is timed with events around it.  Each number is
  the median of many runs after warm-up runs.
- **Checked.** Every run's result is compared with a double-precision
  reference (sums and dot products under the kit's tolerance policy, maxima
  and integer sums exactly, element-wise products bit for bit, matrix
  products element by element against cuBLAS, whose own product is
  checked against doubles).  A wrong result is reported, not timed.
- **Caches.** Inputs are uploaded just before each run, as the labs' entry
  points do, so the library sees the data exactly as the lab does; below
  the L2 size that data sits partly in L2, which is why small sizes can
  pass the ceiling.  The upload also leaves L2 full of lines not yet
  written to device memory, and the next kernel pays for writing them
  back: `library-cold` rows (inputs rotated among copies larger than L2,
  no upload before) are faster than the plain `library` rows for that
  reason.  The ceiling itself is a device-to-device `cudaMemcpy` over
  rotated buffers, counting the bytes read and written.
- **The steps and beyond.** The `solution` rows named after a lab's entry
  points run the reference solution, which does what the lab's steps
  teach and nothing more (it is what the grader's speed items time a
  student against).  Rows naming a file of `solutions/` run the fastest
  versions, beyond the steps (`fastest.cu`, `register_tiled.cu`): the
  targets against the libraries are theirs.
- **Columns.** *rate*: the bytes a version must move at least (GB/s), or
  2 n^3 floating-point operations for a matrix product (TFLOP/s).
  *% ceiling*: of the best copy rate of the run (for matrix products, of
  cuBLAS's best).  *x library*: the library's time over this time (above 1
  is faster).  *floor* rows are computed, not measured: what a
  one-launch-per-round algorithm cannot beat, the bytes its rounds move at
  the ceiling plus the measured cost of one launch per round.
- **Noise.** Times vary by a few percent between runs of the same program;
  differences smaller than that mean nothing.  The CSV keeps each
  measurement's fastest and slowest run.

EOF
}

# One run: its machine, the targets, then each lab's table and plot.
results() {
    csvs=$(ls "$dir"/lab*.csv 2>/dev/null | grep -v '\.raw\.csv$')
    gpu=$(field gpu)
    slug=$(echo "${gpu%%,*}" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
    echo "## ${gpu%%,*}"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| GPU (name, driver, memory, top SM and memory clocks) | ${gpu:-unknown} |"
    echo "| CUDA | $(field cuda) |"
    echo "| architecture flag | $(field arch) |"
    echo "| run | $(field mode) |"
    echo "| date | $(field date) |"
    echo
    echo "### Targets"
    echo
    echo "What the kit's solutions must reach (the first column names the lab):"
    echo
    awk -F, '
        function show_size(s, unit,    p, k) {
            if (unit == "TFLOP/s") return s
            for (p = 1; p < s; p *= 2) k++
            return p == s ? "2^" k : s
        }
        FNR == 1 { for (i = 1; i <= NF; i++) column[$i] = i; next }
        $column["target"] != "" {
            if (!header++) { print "| lab | version | size | target | measured | verdict |"; print "|---|---|---:|---|---|---|" }
            t = $column["target"]
            if (sub(/^library>=/, "", t)) t = "at least " t " x the library'"'"'s speed"
            else if (sub(/^ceiling>=/, "", t)) t = "at least " t "% of the ceiling"
            else if (sub(/^floor:/, "", t)) { split(t, p, "<="); t = "time at most " p[2] " x " p[1] }
            else if (sub(/^speed:/, "", t)) { split(t, p, ">="); t = "at least " p[2] " x the speed of " p[1] }
            printf "| %s | %s | %s | %s | %s | %s |\n", $column["lab"], $column["version"], show_size($column["size"], $column["unit"]), \
                t, $column["target_value"] == "" ? "-" : $column["target_value"], $column["verdict"]
        }' $csvs

    for csv in $csvs; do
        lab=$(basename "$csv" .csv)
        echo
        echo "### $lab (${gpu%%,*})"
        echo
        if [ -f "$dir/$lab.png" ]; then
            cp "$dir/$lab.png" "$pictures/$slug-$lab.png"
            echo "![$lab on the ${gpu%%,*}: rate against size]($(basename "$pictures")/$slug-$lab.png)"
            echo
        fi
        awk -F, '
            function show_size(s, unit,    p, k) {
                if (s == 0) return "-"
                if (unit == "TFLOP/s") return s
                for (p = 1; p < s; p *= 2) k++
                return p == s ? "2^" k : s
            }
            function fmt(x, f) { return x == "" ? "-" : sprintf(f, x) }
            FNR == 1 { for (i = 1; i <= NF; i++) column[$i] = i
                       print "| size | side | version | time (ms) | rate | % ceiling | x library | check |"
                       print "|---:|---|---|---:|---:|---:|---:|---|"; next }
            {
                ok = $column["check"] == "ok" || $column["check"] == "model"
                rate = $column["rate"] == "" ? "-" : sprintf($column["rate"] >= 100 ? "%.0f %s" : "%.2f %s", $column["rate"], $column["unit"])
                printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", show_size($column["size"], $column["unit"]), \
                    $column["side"], $column["version"], ok ? sprintf("%.4f", $column["median_ms"]) : "-", rate, \
                    fmt($column["pct_ceiling"], "%.1f"), fmt($column["x_library"], "%.2f"), \
                    ok || index($column["note"], $column["check"]) == 1 ? (ok ? $column["check"] : $column["note"]) : $column["check"] ": " $column["note"]
            }' "$csv"
    done
}

{
    intro
    if [ $results = 1 ]; then
        echo "Regenerate this page with \`make bench && make bench-report\` (one GPU), or"
        echo "\`tools/bench-report.sh DIR...\` with a copy of each run's \`build/bench\`."
        for dir in "$@"; do
            echo
            results
        done
        # What the runs mean, written by hand beside the plots (kept when the page is regenerated)
        [ -f "$pictures/notes.md" ] && { echo; cat "$pictures/notes.md"; }
    else
        echo "## Results"
        echo
        echo "No run is recorded here yet: run \`make bench\` on a machine with an NVIDIA"
        echo "GPU, then \`make bench-report\` to fill this page."
    fi
} > "$page"
[ $results = 0 ] && { echo "bench-report: wrote $page (no results yet)"; exit 0; }
echo "bench-report: wrote $page and $(ls "$pictures"/*.png 2>/dev/null | wc -l) plots in $pictures/"
