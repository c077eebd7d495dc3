/* counters.c: Nsight Compute's table read, and a slow kernel's counters
 * explained against the reference's in the lab's terms (counters.h). */
#include "counters.h"
#include "grade.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the counters ------------------------------------------------------------------------ */


static const struct {
    const char *metric;
    size_t at;
} COUNTERS[] = {
    {"gpu__time_duration.sum", offsetof(counters, time_ns)},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", offsetof(counters, dram_pct)},
    {"dram__bytes.sum", offsetof(counters, dram_bytes)},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", offsetof(counters, conflicts_load)},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", offsetof(counters, conflicts_store)},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", offsetof(counters, warps_active_pct)},
    {"sm__maximum_warps_per_active_cycle_pct", offsetof(counters, warps_possible_pct)},
    {"smsp__sass_average_branch_targets_threads_uniform.pct", offsetof(counters, uniform_pct)},
    {"smsp__thread_inst_executed_per_inst_executed.ratio", offsetof(counters, lanes)},
    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", offsetof(counters, sector_use_pct)},
    {"smsp__sass_inst_executed_op_global_ld.sum", offsetof(counters, loads)},
    {"launch__registers_per_thread", offsetof(counters, registers)},
    {"launch__block_size", offsetof(counters, block_threads)},
    {"launch__shared_mem_per_block", offsetof(counters, shared_bytes)},
    {"launch__occupancy_limit_registers", offsetof(counters, limit_registers)},
    {"launch__occupancy_limit_shared_mem", offsetof(counters, limit_shared)},
    {"launch__occupancy_limit_warps", offsetof(counters, limit_warps)},
    {"launch__occupancy_limit_blocks", offsetof(counters, limit_blocks)},
};
#define COUNTER_COUNT (sizeof COUNTERS / sizeof COUNTERS[0])
#define FIELDS_MAX 1024  /* of a row of ncu's table */

const char *counters_metric_list(void)
{
    static char list[2048];
    size_t used = 0;
    for (size_t k = 0; k < COUNTER_COUNT; k++)
        used += snprintf(list + used, sizeof list - used, "%s%s", k ? "," : "", COUNTERS[k].metric);
    return list;
}

/* Splits one line of ncu's CSV in place ("a","1,024",...) into at most
 * `most` fields; returns how many. */
static int csv_fields(char *line, char **fields, int most)
{
    int count = 0;
    char *p = line;
    while (*p && *p != '\n' && count < most) {
        if (*p == '"') {
            fields[count++] = ++p;
            while (*p && *p != '"' && *p != '\n')
                p++;
            if (*p == '"')
                *p++ = 0;
        } else {
            fields[count++] = p;
            while (*p && *p != ',' && *p != '\n')
                p++;
        }
        if (*p == ',')
            *p++ = 0;
        else if (*p == '\n')
            *p = 0;
    }
    return count;
}

/* "1,024.50" -> 1024.5; "n/a" or "" -> NAN */
static double number(const char *text)
{
    char digits[64];
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < sizeof digits; p++)
        if (*p != ',')
            digits[n++] = *p;
    digits[n] = 0;
    char *end;
    double value = strtod(digits, &end);
    return end == digits ? NAN : value;
}

int counters_read_table(char *output, counters *out)
{
    char *header = NULL;
    for (char *p = output; (p = strstr(p, "\"ID\",\"Process ID\"")) != NULL; p++)
        if (p == output || p[-1] == '\n')
            header = p;
    if (!header)
        return 0;
    char *units = strchr(header, '\n');
    char *row = units ? strchr(units + 1, '\n') : NULL;
    static char *names[FIELDS_MAX], *values[FIELDS_MAX];
    int columns = csv_fields(header, names, FIELDS_MAX);
    int found = 0;
    while (row && row[1] == '"') {
        row++;
        char *next = strchr(row, '\n');
        int count = csv_fields(row, values, FIELDS_MAX);
        counters c;
        for (size_t k = 0; k < COUNTER_COUNT; k++)
            *(double *)((char *)&c + COUNTERS[k].at) = NAN;
        for (int f = 0; f < count && f < columns; f++)
            for (size_t k = 0; k < COUNTER_COUNT; k++)
                if (strcmp(names[f], COUNTERS[k].metric) == 0)
                    *(double *)((char *)&c + COUNTERS[k].at) = number(values[f]);
        if (!isnan(c.time_ns) && (!found || c.time_ns > out->time_ns)) {
            *out = c;
            found = 1;
        }
        row = next;
    }
    return found;
}

/* ---- the words --------------------------------------------------------------------------- */

/* How much worse `yours` is than `theirs` where higher is better (1: alike);
 * 1 where either is unknown. */
static double worse_if_lower(double yours, double theirs)
{
    if (isnan(yours) || isnan(theirs) || theirs <= 0)
        return 1;
    return theirs / (yours > theirs / 1000 ? yours : theirs / 1000);
}

static double worse_if_higher(double yours, double theirs, double floor)
{
    if (isnan(yours) || isnan(theirs))
        return 1;
    return (yours + floor) / (theirs + floor);
}

/* What limits the launch's theoretical occupancy: the limits with the
 * fewest blocks per SM, in `text`. */
static const char *occupancy_limiter(const counters *c, char *text, size_t size)
{
    const char *names[] = {"registers per thread", "shared memory per block", "the SM's most warps",
                           "the SM's most blocks"};
    double limits[] = {c->limit_registers, c->limit_shared, c->limit_warps, c->limit_blocks};
    double least = NAN;
    for (int k = 0; k < 4; k++)
        if (!isnan(limits[k]) && (isnan(least) || limits[k] < least))
            least = limits[k];
    snprintf(text, size, "%s", isnan(least) ? "not known" : "");
    for (int k = 0; k < 4; k++)
        if (limits[k] == least)
            snprintf(text + strlen(text), size - strlen(text), "%s%s", text[0] ? " and " : "", names[k]);
    return text;
}

static void add(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *out, size_t size, const char *fmt, ...)
{
    size_t used = strlen(out);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, size - used, fmt, ap);
    va_end(ap);
}

/* "4.2 MB" */
static const char *bytes(double b, char *text, size_t size)
{
    if (isnan(b))
        snprintf(text, size, "?");
    else if (b >= 1e6)
        snprintf(text, size, "%.1f MB", b / 1e6);
    else
        snprintf(text, size, "%.0f KB", b / 1e3);
    return text;
}

typedef struct {
    unsigned lens;
    double gap;          /* how much worse yours is by this lens (1: alike) */
    const char *lesson;  /* what the lab teaches about it */
} lens_verdict;

void counters_explain(const char *kernel, const counters *you, const counters *ref, unsigned lenses, char *out,
                     size_t size)
{
    char a[32], b[32], limiter[96];
    if (ref)
        add(out, size, "Nsight Compute on %s (the longest of its first %d launches): yours %.3f ms, the reference's "
            "%.3f ms.", kernel, COUNTERS_LAUNCHES, you->time_ns / 1e6, ref->time_ns / 1e6);
    else
        add(out, size, "Nsight Compute on %s (the longest of its first %d launches): %.3f ms (no reference program "
            "here to compare with).", kernel, COUNTERS_LAUNCHES, you->time_ns / 1e6);
    static const counters none = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN,
                                  NAN, NAN};
    const counters *r = ref ? ref : &none;
    lens_verdict verdicts[5];
    int count = 0;
    if (lenses & GRADE_LENS_BANDWIDTH) {
        add(out, size, "\n  memory: yours moved %s at %.0f%% of the device's DRAM bandwidth", bytes(you->dram_bytes, a,
            sizeof a), you->dram_pct);
        if (ref)
            add(out, size, ", the reference %s at %.0f%%", bytes(r->dram_bytes, b, sizeof b), r->dram_pct);
        double gap = worse_if_lower(you->dram_pct, r->dram_pct);
        double more = worse_if_higher(you->dram_bytes, r->dram_bytes, 0);
        verdicts[count++] = (lens_verdict){GRADE_LENS_BANDWIDTH, gap > more ? gap : more,
            more > gap ? "yours moves more bytes than the reference for the same result: data read twice, or "
                         "written and read back"
                       : "this kernel does little arithmetic per byte, so its time is the bytes it moves over the "
                         "bandwidth it reaches: too few loads in flight (few threads, or each waiting on the last) "
                         "leave bandwidth unused"};
    }
    if (lenses & GRADE_LENS_BANK_CONFLICTS) {
        add(out, size, "\n  shared memory: %.0f bank conflicts on loads and %.0f on stores", you->conflicts_load,
            you->conflicts_store);
        if (ref)
            add(out, size, ", the reference %.0f and %.0f", r->conflicts_load, r->conflicts_store);
        verdicts[count++] = (lens_verdict){GRADE_LENS_BANK_CONFLICTS,
            worse_if_higher(you->conflicts_load + you->conflicts_store, r->conflicts_load + r->conflicts_store, 1e4),
            "threads of a warp that read one bank of shared memory at once (a column of a tile whose rows are 32 "
            "floats) are served one after another; a row of 33 puts each element of a column in its own bank"};
    }
    if (lenses & GRADE_LENS_OCCUPANCY) {
        add(out, size, "\n  occupancy: yours kept %.0f%% of the SM's warp slots busy, of %.0f%% possible with %.0f "
            "threads per block, %.0f registers per thread and %.0f bytes of shared memory per block (the limit: %s)",
            you->warps_active_pct, you->warps_possible_pct, you->block_threads, you->registers, you->shared_bytes,
            occupancy_limiter(you, limiter, sizeof limiter));
        if (ref)
            add(out, size, "; the reference %.0f%% of %.0f%% (%.0f threads, %.0f registers)", r->warps_active_pct,
                r->warps_possible_pct, r->block_threads, r->registers);
        verdicts[count++] = (lens_verdict){GRADE_LENS_OCCUPANCY, worse_if_lower(you->warps_active_pct,
            r->warps_active_pct), "fewer resident warps leave fewer others to run while one waits on memory; the "
            "limit named above is what to change (the block size, the registers or the shared memory a block "
            "asks for)"};
    }
    if (lenses & GRADE_LENS_IDLE_LANES) {
        add(out, size, "\n  lanes: yours kept %.1f of a warp's 32 lanes busy per instruction, with %.0f%% of its "
            "branches taken alike by the whole warp", you->lanes, you->uniform_pct);
        if (ref)
            add(out, size, "; the reference %.1f lanes and %.0f%%", r->lanes, r->uniform_pct);
        verdicts[count++] = (lens_verdict){GRADE_LENS_IDLE_LANES, worse_if_lower(you->lanes, r->lanes),
            "when the threads still at work are spread over every warp (a stride that doubles each round), each "
            "warp runs with most of its lanes idle; packed at the front of the block, the idle ones fill whole "
            "warps that do not run at all"};
    }
    if (lenses & GRADE_LENS_LOADS) {
        add(out, size, "\n  global loads: yours issued %.0f load instructions using %.0f%% of each 32-byte sector "
            "fetched", you->loads, you->sector_use_pct);
        if (ref)
            add(out, size, ", the reference %.0f using %.0f%%", r->loads, r->sector_use_pct);
        double more = worse_if_higher(you->loads, r->loads, 0);
        double waste = worse_if_lower(you->sector_use_pct, r->sector_use_pct);
        verdicts[count++] = (lens_verdict){GRADE_LENS_LOADS, more > waste ? more : waste,
            more > waste ? "yours issues more global load instructions for the same result: a value read again "
                           "from global memory where a tile in shared memory already held it, or 4 bytes at a time "
                           "where one float4 load brings 16, costs an instruction and a trip to memory each time"
                         : "neighbouring threads that read neighbouring addresses use every byte of the sectors "
                           "fetched; a stride between them fetches bytes no thread uses"};
    }
    if (!ref)
        return;
    int worst = -1;
    for (int k = 0; k < count; k++)
        if (verdicts[k].gap >= 1.25 && (worst < 0 || verdicts[k].gap > verdicts[worst].gap))
            worst = k;
    if (worst >= 0)
        add(out, size, "\nThe largest difference (%.1f times): %s.", verdicts[worst].gap, verdicts[worst].lesson);
    else
        add(out, size, "\nBy these counters yours is close to the reference: the time goes elsewhere (the launch "
            "configuration, more launches, or host work inside the timed call).");
}

