# table.awk: turns the bench programs' raw rows into the results.
#
#   awk -F, -v out=build/bench -f bench/table.awk build/bench/*.raw.csv
#
# For every lab it writes out/<lab>.csv (the raw columns plus rate,
# pct_ceiling, x_library, target_value and verdict) and prints a table; last it prints
# whether each target of the issue is met.  Derived columns:
#   rate         work / median time: GB/s (bytes a version must move at
#                least) or TFLOP/s (2 m n k for a matrix product)
#   pct_ceiling  rate over the lab's ceiling: the best copy rate of the run
#                (the streaming ceiling), or for TFLOP/s cuBLAS's best rate
#   x_library    the library's time over this row's time at the same size:
#                above 1 is faster than the library, below 1 slower
#   target_value what the target compares, with its measure ("1.04 x library")
#   verdict      met, or MISSED by how much
# A lab's row faster than 1.5 x the copy ceiling gets check "impossible".
# POSIX awk only (mawk, gawk, busybox).

function rank(side) {
    return side == "ceiling" ? 1 : side == "library" ? 2 : side == "library-cold" ? 3 : \
           side == "floor" ? 4 : side == "solution" ? 5 : side == "student" ? 6 : 7
}
function show_size(s, unit,    p, k) {
    if (s == 0) return "-"
    if (unit == "TFLOP/s") return s
    for (p = 1; p < s; p *= 2) k++
    return p == s ? "2^" k : s
}
function num(x) { return x + 0 }
function measured(i) { return check[i] == "ok" || check[i] == "model" }
function fmt(x, digits) { return x == "" ? "-" : sprintf("%." digits "f", x) }

# The row of lab l with this side (any side when "") and version at size s.
function find_row(l, wanted_side, wanted_version, s,    i) {
    for (i = 1; i <= rows; i++)
        if (lab[i] == l && size[i] == s && version[i] == wanted_version && \
            (wanted_side == "" || side[i] == wanted_side) && measured(i))
            return i
    return 0
}

# Fills value[i] and verdict[i] from target[i].
function judge(i,    t, op, limit, name, j) {
    t = target[i]
    if (t == "") return
    if (index(t, ">=")) { op = ">="; limit = num(substr(t, index(t, ">=") + 2)); t = substr(t, 1, index(t, ">=") - 1) }
    else { op = "<="; limit = num(substr(t, index(t, "<=") + 2)); t = substr(t, 1, index(t, "<=") - 1) }
    if (!measured(i)) { verdict[i] = "not measured (" check[i] ")"; return }
    if (t == "library") { value[i] = x_library[i]; what[i] = "x library" }
    else if (t == "ceiling") { value[i] = pct[i]; what[i] = "% of ceiling" }
    else if (substr(t, 1, 6) == "floor:") {
        j = find_row(lab[i], "floor", substr(t, 7), size[i])
        value[i] = j ? num(ms[i]) / num(ms[j]) : ""; what[i] = "x floor time"
    } else if (substr(t, 1, 6) == "speed:") {
        j = find_row(lab[i], side[i], substr(t, 7), size[i])
        value[i] = j ? num(ms[j]) / num(ms[i]) : ""; what[i] = "x speed of " substr(t, 7)
    }
    if (value[i] == "") { verdict[i] = "not measured (nothing to compare with)"; return }
    if ((op == ">=" && value[i] >= limit) || (op == "<=" && value[i] <= limit))
        verdict[i] = "met"
    else
        verdict[i] = sprintf("MISSED by %.0f%%", op == ">=" ? 100 * (1 - value[i] / limit) : 100 * (value[i] / limit - 1))
    goal[i] = op " " limit
}

BEGIN { FS = ","; if (out == "") out = "build/bench" }
FNR == 1 && $1 == "lab" { next }  # each file's header
NF >= 13 {
    rows++
    lab[rows] = $1; side[rows] = $2; version[rows] = $3; size[rows] = num($4); runs[rows] = $5
    ms[rows] = $6; lo[rows] = $7; hi[rows] = $8; work[rows] = $9; unit[rows] = $10; check[rows] = $11
    target[rows] = $12; note[rows] = $13
    for (f = 14; f <= NF; f++) note[rows] = note[rows] ";" $f
    if (!(lab[rows] in seen)) { seen[lab[rows]] = 1; labs[++lab_count] = lab[rows] }
}

END {
    # Rates and each lab's ceiling.
    for (i = 1; i <= rows; i++) {
        rate[i] = ""
        if (measured(i) && num(ms[i]) > 0 && num(work[i]) > 0)
            rate[i] = unit[i] == "TFLOP/s" ? num(work[i]) / (num(ms[i]) * 1e9) : num(work[i]) / (num(ms[i]) * 1e6)
        if (rate[i] != "" && ((side[i] == "ceiling" && unit[i] == "GB/s") || (side[i] == "library" && unit[i] == "TFLOP/s")))
            if (rate[i] > ceiling[lab[i]]) ceiling[lab[i]] = rate[i]
    }
    for (i = 1; i <= rows; i++) {
        pct[i] = rate[i] != "" && ceiling[lab[i]] > 0 ? 100 * rate[i] / ceiling[lab[i]] : ""
        x_library[i] = ""
        if ((side[i] == "solution" || side[i] == "student") && measured(i))
            for (j = 1; j <= rows; j++)
                if (lab[j] == lab[i] && side[j] == "library" && size[j] == size[i] && measured(j)) {
                    x_library[i] = num(ms[j]) / num(ms[i]); break
                }
    }
    # A lab's rate above the streaming ceiling is not a fast kernel but a
    # result check that let a wrong answer through (a dot product that
    # returns 0 without reading anything, say): marked impossible, never ok.
    # A kernel that only reads may beat a copy, which also writes, a little,
    # hence the margin; 1.5 x the best copy of the run is out of reach.
    for (i = 1; i <= rows; i++)
        if ((side[i] == "solution" || side[i] == "student") && unit[i] == "GB/s" && check[i] == "ok" && \
            pct[i] != "" && pct[i] > 150) {
            check[i] = "impossible"
            note[i] = sprintf("impossible: %.0f GB/s is %.0f%% of the copy ceiling (%.0f GB/s); no kernel reads its inputs that fast, so the result check passed a kernel that skipped the work", \
                              rate[i], pct[i], ceiling[lab[i]])
        }
    for (i = 1; i <= rows; i++) judge(i)

    print "Times are the device time of the kernels alone: for a lab, kit_timed_ms(), the sum of its"
    print "LAUNCHes between events (its entry points take host arrays; their copies and allocations"
    print "are not counted); for a library, events around the call.  Each is the median of the runs"
    print "(runs column), after warm-up; every run's result was checked.  GB/s counts the bytes a"
    print "version must move at least; % ceil is of the best copy rate (read + write) of the run"
    print "(for matmul: of cuBLAS's best); x lib is the library's time over this time (> 1: faster)."
    print "Inputs are uploaded just before each run, as the labs' entry points do, so below the L2"
    print "size they sit partly in L2; 'library-cold' rows read them from device memory instead."

    for (L = 1; L <= lab_count; L++) {
        l = labs[L]
        file = out "/" l ".csv"
        print "lab,side,version,size,runs,median_ms,min_ms,max_ms,work,unit,rate,pct_ceiling,x_library,check,target,target_value,verdict,note" > file
        # Sort this lab's rows by size, then side, then input order (insertion sort).
        n = 0
        for (i = 1; i <= rows; i++) if (lab[i] == l) order[++n] = i
        for (a = 2; a <= n; a++) {
            x = order[a]
            for (b = a - 1; b >= 1; b--) {
                y = order[b]
                if (size[y] < size[x] || (size[y] == size[x] && (rank(side[y]) < rank(side[x]) || \
                    (rank(side[y]) == rank(side[x]) && y < x)))) break
                order[b + 1] = y
            }
            order[b + 1] = x
        }
        printf "\n== %s\n", l
        printf "%8s  %-12s %-46s %5s %10s %10s %7s %7s  %s\n", "size", "side", "version", "runs", "time ms", "rate", "% ceil", "x lib", "check"
        for (a = 1; a <= n; a++) {
            i = order[a]
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", lab[i], side[i], version[i], size[i], runs[i], \
                ms[i], lo[i], hi[i], work[i], unit[i], rate[i], pct[i], x_library[i], check[i], target[i], \
                value[i] == "" ? "" : sprintf("%.3f %s", value[i], what[i]), verdict[i], note[i] > file
            r = rate[i] == "" ? "-" : sprintf(rate[i] >= 100 ? "%.0f" : "%.2f", rate[i]) " " (unit[i] == "TFLOP/s" ? "TF/s" : "GB/s")
            if (unit[i] == "-") r = "-"
            status = check[i]
            if (!measured(i)) status = index(note[i], check[i]) == 1 ? note[i] : check[i] ": " note[i]
            printf "%8s  %-12s %-46s %5s %10s %10s %7s %7s  %s\n", show_size(size[i], unit[i]), side[i], \
                substr(version[i], 1, 46), runs[i], measured(i) ? sprintf("%.4f", ms[i]) : "-", r, \
                fmt(pct[i], 1), fmt(x_library[i], 2), substr(status, 1, 90)
        }
        close(file)
    }

    print "\n== Targets (what the solutions must reach)"
    printf "%-19s %-40s %8s %8s %-22s %8s  %s\n", "lab", "version", "size", "value", "measure", "target", "verdict"
    for (i = 1; i <= rows; i++) {
        if (target[i] == "") continue
        targets++
        if (verdict[i] == "met") met++
        printf "%-19s %-40s %8s %8s %-22s %8s  %s\n", lab[i], substr(version[i], 1, 40), show_size(size[i], unit[i]), \
            fmt(value[i], 2), substr(what[i], 1, 22), goal[i] == "" ? "-" : goal[i], verdict[i]
    }
    printf "%d of %d targets met\n", met, targets
}
