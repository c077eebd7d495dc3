#!/bin/sh
# plot.sh CSV PNG TITLE: one lab's rates against the size, as a PNG.
# gnuplot where it is installed, else python3 with matplotlib (bench/plot.py);
# with neither it says so and exits 1 (the bench goes on without plots).
set -u
[ $# -eq 3 ] || { echo "usage: plot.sh CSV PNG TITLE" >&2; exit 2; }
csv=$1 png=$2 title=$3
here=$(dirname "$0")

if command -v gnuplot >/dev/null 2>&1; then
    series=$(mktemp -d) || exit 1
    trap 'rm -rf "$series"' EXIT
    # One data file per side and version: a quoted title line, then "size rate" lines.
    count=$(awk -F, -v dir="$series" '
        NR == 1 { for (i = 1; i <= NF; i++) column[$i] = i; next }
        $column["rate"] != "" && $column["size"] + 0 > 0 {
            key = $column["side"] ": " $column["version"]
            if (!(key in file)) { file[key] = dir "/" (++n) ".dat"; printf "\"%s\" rate\n", key > file[key] }
            print $column["size"], $column["rate"] > file[key]
            unit = $column["unit"]
        }
        END { print n + 0; print unit > (dir "/unit") }' "$csv")
    [ "$count" -gt 0 ] || { echo "nothing to plot in $csv"; exit 1; }
    unit=$(cat "$series/unit")
    xlabel=elements
    [ "$unit" = "TFLOP/s" ] && xlabel="matrix side"
    gnuplot <<GNUPLOT
set terminal pngcairo size 1000,700 font ",9"
set output "$png"
set title "$title"
set logscale x 2
set format x "2^{%L}"
set xlabel "$xlabel"
set ylabel "$unit"
set grid
set key below left Left reverse noenhanced
plot for [i=1:$count] sprintf("$series/%d.dat", i) using 1:2 with linespoints pointsize 0.6 title columnheader(1)
GNUPLOT
    exit $?
fi

if command -v python3 >/dev/null 2>&1 && python3 -c 'import matplotlib' >/dev/null 2>&1; then
    exec python3 "$here/plot.py" "$csv" "$png" "$title"
fi
echo "no plot: neither gnuplot nor python3 with matplotlib is installed here"
exit 1
