"""plot.py CSV PNG TITLE: one lab's rates against the size (matplotlib).

Reads a lab's results (build/bench/<lab>.csv, written by bench/table.awk)
and draws one line per side and version: the rate (GB/s or TFLOP/s) at
every size, so that the gap between the lab and its library shows at a
glance.  bench/plot.sh calls it when gnuplot is not there."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

STYLE = {  # side: (line style, colour or None for the default cycle)
    "ceiling": (":", "grey"),
    "library": ("-", "black"),
    "library-cold": ("--", "black"),
    "floor": (":", "tab:red"),
    "solution": ("-", None),
    "student": ("--", None),
}


def main(csv_path, png_path, title):
    series, unit = {}, "GB/s"
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if not row["rate"] or int(row["size"]) == 0:
                continue
            unit = row["unit"]
            key = (row["side"], row["version"])
            series.setdefault(key, []).append((int(row["size"]), float(row["rate"])))
    if not series:
        sys.exit("nothing to plot in " + csv_path)

    fig, ax = plt.subplots(figsize=(10, 5.5))
    for (side, version), points in series.items():
        points.sort()
        style, colour = STYLE.get(side, ("-", None))
        ax.plot([p[0] for p in points], [p[1] for p in points], linestyle=style, marker="o",
                markersize=3, color=colour, label=f"{side}: {version}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("matrix side (n x n times n x n)" if unit == "TFLOP/s" else "elements")
    ax.set_ylabel(unit)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: plot.py CSV PNG TITLE")
    main(*sys.argv[1:])
