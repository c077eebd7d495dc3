/* lab8-tiled-matmul.c: the grading suite of lab 8 (tiled matrix multiply and occupancy).
 *
 * What it checks, item by item:
 *   tiled_exact         C = A B exactly, small-integer data, shapes that are multiples of the tile
 *   tiled_random        C = A B within the tolerance below, random data, several shapes (not square)
 *   tiled_launch        one launch: tile x tile threads per block, the shared memory of two tiles
 *   tiled_any_size      going further, TODO 10: any sizes (1, primes, smaller than a tile); skipped while not attempted
 *   shared_bytes        matmul_shared_bytes() for every block size from 1 to 1024
 *   occupancy_formula   occupancy_from_blocks() against this device's limits
 *   occupancy           matmul_occupancy() against the occupancy API on this device
 *   block_size_rule     tile_for_block_size() for every block size from 0 to 1024
 *   choose_tile         matmul_choose_tile() against the block size the occupancy API suggests
 *   tiled_speedup       performance (GPU only): tiled faster than naive by the reference's margin, near its time
 *
 * On the cpu backend occupancy_formula, occupancy and choose_tile run on
 * another emulated device than the default (on_other_device), so that a
 * number hard-coded from the default device (64 warps per SM, tile 32, no
 * register limit) loses them.
 *
 * On the cpu backend every product is computed once per schedule order, so
 * a missing barrier (after the tile loads or after the products) shows.
 * The items on C also require that the device did the work: a right C is
 * what one cudaMemcpy brought back after the launch, unchanged
 * (common/grading/evidence.c).
 *
 * The tolerance: a float dot product of k terms, summed in any order, with
 * or without fused multiply-adds, is off by less than 1.01 k u sum|terms|
 * (u = 2^-24, k u < 0.01).  C[r][c] passes when
 *     |C[r][c] - exact| <= c k u sum_i |A[r][i] B[i][c]|,   c = 2,
 * which any correct order meets and a dropped, doubled or misplaced term
 * (about sum|terms| / k) misses by a factor of about 1 / (k^2 u).
 *
 * The header's rules and the items that check them:
 *   matrices are row-major floats: A is m x k, B is k x n, C = A B is m x n -> tiled_exact, tiled_random
 *   pointers are host memory: copy to the device, launch, copy C back -> tiled_exact, tiled_random,
 *       tiled_any_size
 *   the functions free what they allocated -> tiled_launch (matmul_tiled; matmul_naive is the kit's)
 *   matmul_tiled computes C = A B -> tiled_exact, tiled_random
 *   every power-of-two tile from 1 to 32 works, m, k, n multiples of it -> tiled_exact, tiled_launch
 *   one block of tile x tile threads for each tile of C -> tiled_launch
 *   the two tiles live in one dynamic shared-memory buffer -> tiled_launch
 *   the kernel reads the tile side from __constant__ memory -> tiled_launch (a 4-byte upload of it)
 *   going further: any m, k and n -> tiled_any_size
 *   matmul_shared_bytes: the bytes of two tiles of threads_per_block floats -> shared_bytes
 *   occupancy_from_blocks: warps the resident blocks occupy over the SM's most warps -> occupancy_formula
 *   matmul_occupancy: occupancy API, tile x tile threads, matmul_shared_bytes -> occupancy (exact if
 *       the kernel's register count matches the reference's)
 *   tile_for_block_size: root of the largest power of four not above the block size -> block_size_rule
 *   tile_for_block_size returns 0 for fewer than 1 thread -> block_size_rule (0 only)
 *   matmul_choose_tile: tile_for_block_size of the API's suggested block size -> choose_tile (exact if
 *       the register counts match)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "grader.h" /* sides_release_reference: on_other_device */
#include "lab8.h"
#include "lab8-tiled-matmul/model.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab8-tiled-matmul/lab-calls.h"

static const double TOLERANCE_C = 2.0;

typedef struct {
    int tile, m, k, n;
} shape;

#define COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

static const char *plural(long long count) { return count == 1 ? "" : "s"; }

static float *new_floats(size_t count)
{
    float *p = malloc((count ? count : 1) * sizeof *p);
    if (!p)
        grade_fail("grading error: out of host memory");
    return p;
}

/* The exact product (in double, from the same floats) and sum|terms| of C[r][c]. */
static void exact_element(const float *a, const float *b, const shape *s, int r, int c, double *exact,
                          double *abs_sum)
{
    double sum = 0, abs = 0;
    for (int i = 0; i < s->k; i++) {
        double term = (double)a[(size_t)r * s->k + i] * b[(size_t)i * s->n + c];
        sum += term;
        abs += fabs(term);
    }
    *exact = sum;
    *abs_sum = abs;
}

typedef struct {
    double *exact, *abs_sum;
} product;

static product exact_product(const float *a, const float *b, const shape *s)
{
    size_t count = (size_t)s->m * s->n;
    product p = {malloc(count * sizeof(double)), malloc(count * sizeof(double))};
    if (!p.exact || !p.abs_sum)
        grade_fail("grading error: out of host memory");
    /* Row by row over B's rows, so that B is read in order. */
    for (size_t e = 0; e < count; e++)
        p.exact[e] = p.abs_sum[e] = 0;
    for (int r = 0; r < s->m; r++)
        for (int i = 0; i < s->k; i++) {
            double x = a[(size_t)r * s->k + i];
            const float *b_row = b + (size_t)i * s->n;
            double *out = p.exact + (size_t)r * s->n, *abs_out = p.abs_sum + (size_t)r * s->n;
            for (int c = 0; c < s->n; c++) {
                double term = x * b_row[c];
                out[c] += term;
                abs_out[c] += fabs(term);
            }
        }
    return p;
}

static void free_product(product *p)
{
    free(p->exact);
    free(p->abs_sum);
}

/* Is `got` right for an element whose exact value and sum|terms| are given? */
static int element_right(float got, double exact, double abs_sum, int k, int exact_data)
{
    if (exact_data)
        return (double)got == exact;
    return kit_within_tolerance(got, exact, abs_sum, TOLERANCE_C * k);
}

static void describe_shape(char *out, size_t size, const shape *s, uint64_t seed, const char *order)
{
    snprintf(out, size, "A %d x %d, B %d x %d, tile %d, seed %llu%s%s", s->m, s->k, s->k, s->n, s->tile,
             (unsigned long long)seed, grade_on_gpu() ? "" : ", schedule ", grade_on_gpu() ? "" : order);
}

/* Pictures of row r of C around column c: what came back and what is right. */
static void picture_row(const float *got, const product *p, const shape *s, int r, int c)
{
    enum { WIDE = 12 };
    int from = s->n <= WIDE ? 0 : c - WIDE / 2;
    if (from < 0)
        from = 0;
    if (from + WIDE > s->n)
        from = s->n > WIDE ? s->n - WIDE : 0;
    int count = s->n < WIDE ? s->n : WIDE;
    float expected[WIDE];
    for (int j = 0; j < count; j++)
        expected[j] = (float)p->exact[(size_t)r * s->n + from + j];
    char label[96];
    snprintf(label, sizeof label, "row %d of your C, columns %d to %d (the wrong one marked *)", r, from,
             from + count - 1);
    grade_picture_floats(label, got + (size_t)r * s->n + from, count, c - from, c - from + 1);
    snprintf(label, sizeof label, "row %d of the right C, same columns", r);
    grade_picture_floats(label, expected, count, c - from, c - from + 1);
}

/* The first element of c that is wrong, or count when all are right. */
static size_t first_wrong(const float *c, const product *p, size_t count, int k, int exact_data)
{
    for (size_t e = 0; e < count; e++)
        if (!element_right(c[e], p->exact[e], p->abs_sum[e], k, exact_data))
            return e;
    return count;
}

/* The report's figure: C with its wrong elements, the tiles outlined, the
 * worst element (the largest error; NaN first) marked. */
static void attach_matrix_figure(const float *c, const product *p, const shape *s, int exact_data, const char *where)
{
    size_t count = (size_t)s->m * s->n, worst = 0;
    unsigned char *wrong = malloc(count ? count : 1);
    if (!wrong)
        return;
    double worst_error = -1;
    for (size_t e = 0; e < count; e++) {
        wrong[e] = !element_right(c[e], p->exact[e], p->abs_sum[e], s->k, exact_data);
        double error = isnan(c[e]) ? INFINITY : fabs((double)c[e] - p->exact[e]);
        if (wrong[e] && error > worst_error)
            worst_error = error, worst = e;
    }
    char caption[240];
    snprintf(caption, sizeof caption, "C = A B, %s: the elements outside the tolerance, tiles of %d x %d", where,
             s->tile, s->tile);
    grade_figure_matrix(caption, wrong, s->m, s->n, s->tile, (int)(worst / s->n), (int)(worst % s->n), c[worst],
                        p->exact[worst]);
    free(wrong);
}

/* Is C byte for byte A or B?  evidence.c takes bytes that went to the
 * device and came back unchanged for the host's work, which would blame
 * correct code whose C is an input (B the identity, or 1 x 1 x 1 with
 * B = 1); for such a C only the copy back is required. */
static int same_as_input(const float *c, const float *a, const float *b, const shape *s)
{
    size_t count = (size_t)s->m * s->n;
    return (count == (size_t)s->m * s->k && memcmp(c, a, count * sizeof(float)) == 0)
           || (count == (size_t)s->k * s->n && memcmp(c, b, count * sizeof(float)) == 0);
}

/* Runs your matmul_tiled on one shape in every schedule order and fails at
 * the first wrong element, with what it should be and a hint.  A result
 * that changes with the order of the threads means a race. */
static void check_tiled(const shape *s, const float *a, const float *b, uint64_t seed, int exact_data)
{
    grade_side *you = grade_student();
    product p = exact_product(a, b, s);
    size_t count = (size_t)s->m * s->n;
    int orders = grade_schedule_count();
    float *results = new_floats(count * (size_t)orders);
    int wrong_order = -1;
    for (int o = 0; o < orders; o++) {
        float *c = results + count * (size_t)o;
        for (size_t e = 0; e < count; e++)
            c[e] = NAN; /* an element your code never writes stays NaN */
        grade_set_schedule(you, grade_schedule_name(o));
        grade_reset_records(you); /* so that the copy record is this call's alone */
        GRADE_FN(you, matmul_tiled)(a, b, c, s->m, s->k, s->n, s->tile);
        if (wrong_order < 0 && first_wrong(c, &p, count, s->k, exact_data) < count)
            wrong_order = o;
    }
    if (wrong_order < 0) {
        /* Right in every order; and the last C must be the kernel's, what
         * one cudaMemcpy brought back after the launch, not the host's. */
        char where[160];
        const float *last = results + count * (size_t)(orders - 1);
        describe_shape(where, sizeof where, s, seed, grade_schedule_name(orders - 1));
        grade_require_from_device(you, where, "C", last, count * sizeof(float), !same_as_input(last, a, b, s));
        free(results);
        free_product(&p);
        return;
    }

    const float *c = results + count * (size_t)wrong_order;
    size_t bad = first_wrong(c, &p, count, s->k, exact_data);
    int r = (int)(bad / s->n), col = (int)(bad % s->n), t = s->tile;
    int all_zero = 1, order_matters = 0;
    for (size_t e = 0; e < count && all_zero; e++)
        all_zero = c[e] == 0.0f;
    for (int o = 1; o < orders && !order_matters; o++)
        order_matters = memcmp(results, results + count * (size_t)o, count * sizeof(float)) != 0;
    char where[160], hint[800] = "";
    describe_shape(where, sizeof where, s, seed, grade_schedule_name(wrong_order));
    if (all_zero)
        snprintf(hint, sizeof hint,
                 " All of C is 0: is the kernel launched (TODO 5), and does it load the tiles (TODO 2) and add "
                 "their products to sum (TODO 3)?");
    else if (order_matters)
        snprintf(hint, sizeof hint,
                 " Your C changes with the order in which the threads of a block run (the cpu backend tried %d "
                 "orders): threads race on the shared tiles, so a barrier is missing, either after the tile loads "
                 "(end of TODO 2) or after the products (end of TODO 3).",
                 orders);
    else if (*grade_guard_hint_float(c[bad], p.exact[bad], "A or B", -1))
        snprintf(hint, sizeof hint, "%s", grade_guard_hint_float(c[bad], p.exact[bad], "A or B", -1));
    else if (isnan(c[bad]) || fabsf(c[bad]) > 1e37f)
        snprintf(hint, sizeof hint,
                 " Such a value: either this element was never written, or the kernel read shared memory that no "
                 "thread had written yet (the cpu backend fills shared memory with NaN or about 3.4e38 when a block "
                 "starts, depending on the thread order): a missing barrier, or an index outside the tiles.");
    else
        snprintf(hint, sizeof hint,
                 " Check the indices of TODO 2 and 3: at step s the A tile holds A[row][s*t + tx], the B tile "
                 "B[s*t + ty][col], and sum adds a_tile[ty][i] * b_tile[i][tx].");
    if (s->n <= 64)
        picture_row(c, &p, s, r, col);
    attach_matrix_figure(c, &p, s, exact_data, where);
    if (exact_data)
        grade_fail("%s: C[%d][%d] = %.9g but the product is %.0f (exact: the data are small integers, so every "
                   "order of the sum gives it). C[%d][%d] belongs to the block at blockIdx (x %d, y %d), threadIdx "
                   "(x %d, y %d).%s",
                   where, r, col, c[bad], p.exact[bad], r, col, col / t, r / t, col % t, r % t, hint);
    grade_fail("%s: C[%d][%d] = %.9g but the product is %.9g, an error of %.3g units of k u sum|a b| where at most "
               "%g is allowed. C[%d][%d] belongs to the block at blockIdx (x %d, y %d), threadIdx (x %d, y %d).%s",
               where, r, col, c[bad], p.exact[bad], kit_error_units(c[bad], p.exact[bad], p.abs_sum[bad]) / s->k,
               TOLERANCE_C, r, col, col / t, r / t, col % t, r % t, hint);
}

/* ---- tiled_exact and tiled_random ----------------------------------------------- */

/* Every shape takes at least two steps along k (where tile < k), so that a
 * missing barrier after the products shows. */
static const shape exact_shapes[] = {
    {16, 16, 32, 16}, {16, 32, 64, 48}, {8, 24, 40, 16}, {32, 64, 96, 32},
    {4, 12, 20, 8},   {2, 6, 10, 4},    {1, 3, 5, 2},    {16, 128, 64, 96}, {16, 256, 512, 128},
};
static const shape exact_shapes_gpu[] = {{32, 1024, 512, 768}, {16, 768, 1024, 512}};

static const shape random_shapes[] = {
    {16, 48, 80, 32}, {32, 96, 64, 160}, {8, 40, 256, 24}, {16, 256, 128, 192}, {4, 20, 36, 12}, {32, 512, 256, 384},
};
static const shape random_shapes_gpu[] = {{16, 2048, 512, 1024}, {32, 1024, 1024, 1024}};

static void run_shapes(const shape *shapes, int count, int first_case, int exact_data)
{
    for (int i = 0; i < count; i++) {
        const shape *s = &shapes[i];
        uint64_t seed = grade_seed_for(first_case + i);
        float *a = new_floats((size_t)s->m * s->k), *b = new_floats((size_t)s->k * s->n);
        if (exact_data) {
            kit_fill_small_floats(a, (size_t)s->m * s->k, -4, 4, seed);
            kit_fill_small_floats(b, (size_t)s->k * s->n, -4, 4, seed + 1);
        } else {
            /* A mixes signs; B is scaled so that C is not close to A's range. */
            kit_fill_uniform(a, (size_t)s->m * s->k, -1.0f, 1.0f, seed);
            kit_fill_uniform(b, (size_t)s->k * s->n, -3.0f, 5.0f, seed + 1);
        }
        check_tiled(s, a, b, seed, exact_data);
        free(a);
        free(b);
    }
}

GRADE_ITEM(tiled_exact, 14, GRADE_CORRECTNESS, 60, "1,2,3,5", "tiled product exact on small-integer data, several shapes",
           "`C` exactly right on small-integer data, shapes that are multiples of the tile (tiles 1 to 32, "
           "not only square), in every thread order on the cpu backend")
{
    run_shapes(exact_shapes, COUNT(exact_shapes), 0, 1);
    if (grade_on_gpu())
        run_shapes(exact_shapes_gpu, COUNT(exact_shapes_gpu), 100, 1);
}

GRADE_ITEM(tiled_random, 14, GRADE_CORRECTNESS, 60, "1,2,3,5", "tiled product within c k u sum|a b| (c = 2) on random data, shapes not square",
           "`C` within 2 k u times the sum of the absolute terms of each element (see \"FMA and tolerances\") "
           "on random data, several non-square shapes, every thread order")
{
    run_shapes(random_shapes, COUNT(random_shapes), 200, 0);
    if (grade_on_gpu())
        run_shapes(random_shapes_gpu, COUNT(random_shapes_gpu), 300, 0);
}

/* ---- tiled_launch ---------------------------------------------------------------------- */

/* lab8.h: the kernel reads the tile side from __constant__ memory, so the
 * tile, an int, went there (cudaMemcpyToSymbol, which the copy record
 * notes) before the launch. */
static void require_tile_in_constant(grade_side *you, int t)
{
    uint64_t sum = kit_checksum(&t, sizeof t);
    for (int i = 0; i < grade_copy_count(you); i++) {
        const kit_copy *c = grade_copy_at(you, i);
        if (c->direction == KIT_TO_DEVICE && c->bytes == sizeof t && c->checksum == sum && c->launches_before == 0)
            return;
    }
    grade_fail("matmul_tiled(tile %d) did not copy the tile side into tile_side before its launch: lab8.h says the "
               "kernel reads it from __constant__ memory, where every thread of a warp gets it in one read. Copy it "
               "with cudaMemcpyToSymbol(tile_side, &tile, sizeof tile) (TODO 5)", t);
}

GRADE_ITEM(tiled_launch, 10, GRADE_CORRECTNESS, 30, "4,5", "one launch, tile x tile threads per block, the shared memory of two tiles",
           "one launch per call, `tile * tile` threads per block, at least the shared memory of two tiles "
           "and exactly `matmul_shared_bytes(tile * tile)`, no more blocks than tiles of `C`")
{
    grade_side *you = grade_student();
    for (int t = 32; t >= 1; t /= 2) {
        shape s = {t, 2 * t, 3 * t, t};
        float *a = new_floats((size_t)s.m * s.k), *b = new_floats((size_t)s.k * s.n), *c = new_floats((size_t)s.m * s.n);
        kit_fill_small_floats(a, (size_t)s.m * s.k, -2, 2, grade_seed_for(600 + t));
        kit_fill_small_floats(b, (size_t)s.k * s.n, -2, 2, grade_seed_for(700 + t));
        grade_reset_records(you);
        long long before = grade_device_bytes_in_use(you);
        GRADE_FN(you, matmul_tiled)(a, b, c, s.m, s.k, s.n, t);
        char call[64];
        snprintf(call, sizeof call, "matmul_tiled(tile %d)", t);
        grade_require_memory_freed(you, call, before);
        int launches = grade_launch_count(you);
        grade_check(launches == 1,
                    "matmul_tiled(tile %d) on A %d x %d and B %d x %d made %d kernel launches; it should make one "
                    "(through LAUNCH) of matmul_tiled_kernel",
                    t, s.m, s.k, s.k, s.n, launches);
        kit_launch launch = *grade_launch_at(you, 0); /* a copy: the next call's records replace these */
        const kit_launch *l = &launch;
        unsigned threads = l->block[0] * l->block[1] * l->block[2];
        grade_check(threads == (unsigned)(t * t),
                    "matmul_tiled(tile %d) launched %s with blocks of %u x %u x %u = %u threads; a tile of %d x %d "
                    "needs %d threads, one per element of C's tile",
                    t, l->kernel, l->block[0], l->block[1], l->block[2], threads, t, t, t * t);
        size_t needed = 2 * (size_t)t * t * sizeof(float);
        grade_check(l->shmem >= needed,
                    "matmul_tiled(tile %d) launched %s with %zu bytes of dynamic shared memory, but two tiles of %d "
                    "x %d floats need 2 x %d x %d x %zu = %zu bytes",
                    t, l->kernel, l->shmem, t, t, t, t, sizeof(float), needed);
        require_tile_in_constant(you, t);
        size_t own = GRADE_FN(you, matmul_shared_bytes)(t * t);
        grade_check(l->shmem == own,
                    "matmul_tiled(tile %d) launched with %zu bytes of dynamic shared memory, but "
                    "matmul_shared_bytes(%d) says %zu: launch with matmul_shared_bytes(tile * tile), so that the "
                    "occupancy API and the launch agree",
                    t, l->shmem, t * t, own);
        unsigned long long blocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
        unsigned long long tiles_of_c = (unsigned long long)(s.m / t) * (s.n / t);
        grade_check(blocks <= tiles_of_c,
                    "matmul_tiled(tile %d) on a C of %d x %d (%llu tiles) launched a grid of %u x %u x %u = %llu "
                    "blocks: the extra blocks have no tile of C to compute",
                    t, s.m, s.n, tiles_of_c, l->grid[0], l->grid[1], l->grid[2], blocks);
        free(a);
        free(b);
        free(c);
    }
}

/* ---- tiled_any_size (going further) ------------------------------------------------ */

GRADE_ITEM(tiled_any_size, 5, GRADE_CORRECTNESS, 60, "10", "going further: any sizes (1, primes, smaller than a tile)",
           "going further, TODO 10: sides that are not multiples of the tile (1, primes, smaller than one "
           "tile). Skipped (no points either way) while TODO 10 still says \"not implemented\"")
{
    /* Going further: skipped until the student says it is done (TODO 10
     * no longer calls kit_not_implemented), so that it neither adds nor
     * costs points before that. */
    grade_side *you = grade_student();
    float one = 1.0f, out = 0.0f;
    GRADE_FN(you, matmul_tiled)(&one, &one, &out, 1, 1, 1, 2);
    const char *todo = grade_todo_pending(you);
    if (todo && strcmp(todo, "TODO 10") == 0)
        grade_skip("going further (TODO 10) not attempted: it neither adds nor costs points");
    static const shape shapes[] = {
        {16, 1, 1, 1}, {16, 17, 33, 5}, {32, 31, 7, 45}, {8, 13, 97, 3},
        {4, 1, 19, 2}, {16, 100, 1, 37}, {32, 33, 33, 33}, {2, 3, 3, 3},
    };
    static const shape gpu_shapes[] = {{32, 1000, 999, 1001}, {16, 4099, 7, 3}};
    run_shapes(shapes, COUNT(shapes), 400, 0);
    if (grade_on_gpu())
        run_shapes(gpu_shapes, COUNT(gpu_shapes), 500, 0);
}

/* ---- shared_bytes ---------------------------------------------------------------------- */

GRADE_ITEM(shared_bytes, 5, GRADE_CORRECTNESS, 30, "4", "matmul_shared_bytes for every block size from 1 to 1024",
           "`matmul_shared_bytes(x)` for every `x` from 1 to 1024")
{
    size_t (*yours)(int) = GRADE_FN(grade_student(), matmul_shared_bytes);
    for (int threads = 1024; threads >= 1; threads--) {
        size_t got = yours(threads), needed = 2 * (size_t)threads * sizeof(float);
        if (got == needed)
            continue;
        const char *hint = got == needed / 2            ? " That is one tile; the block holds two (one from A, one from B)."
                           : got == 2 * (size_t)threads ? " That counts floats, not bytes: multiply by sizeof(float)."
                           : got == 0                   ? " (TODO 4 not done yet?)"
                                                        : "";
        grade_fail("matmul_shared_bytes(%d) = %zu, but a block of %d thread%s holds two tiles of %d float%s: 2 x %d x "
                   "%zu = %zu bytes.%s",
                   threads, got, threads, plural(threads), threads, plural(threads), threads, sizeof(float), needed,
                   hint);
    }
}

/* ---- occupancy_formula and occupancy ---------------------------------------------------- */

/* The default emulated device holds 2,048 threads (64 warps) per SM, assumes
 * 32 registers per thread and suggests 1,024 threads for the tiled kernel,
 * as an H100 does: tile 32, 64 warps or an occupancy that ignores registers
 * would be right there by luck.  On the cpu backend the items that grade a
 * constant derived from the device therefore run on another emulated device
 * (CUDAEMU_DEVICE=sm86, common/cpu/src/device.cpp: 48 warps and 16 blocks
 * per SM, 48 registers per thread, 672 threads suggested, tile 16), where
 * each of those is wrong.  Called before the item's first call: the
 * student's runner starts with the variable set, and the reference's, kept
 * from item to item with the default device, is let go so that this item
 * starts one of its own. */
static void on_other_device(void)
{
    if (grade_on_gpu())
        return; /* the device is the real one */
    setenv("CUDAEMU_DEVICE", "sm86", 1);
    sides_release_reference();
}

/* The most warps an SM of this device holds, from the reference. */
static int warps_per_sm(void)
{
    double one_warp = GRADE_FN(grade_reference(), occupancy_from_blocks)(1, 32);
    return one_warp > 0 ? (int)lround(1.0 / one_warp) : 0;
}

static int same_value(double x, double y) { return fabs(x - y) <= 1e-9; }

/* The report's figure for occupancy_formula: every block count tried with
 * `threads` threads a block, yours against the reference's formula, the
 * warps that decide it. */
static void attach_formula_figure(int threads, const int *counts, int count_n, int sm_warps)
{
    double (*yours)(int, int) = GRADE_FN(grade_student(), occupancy_from_blocks);
    double (*right)(int, int) = GRADE_FN(grade_reference(), occupancy_from_blocks);
    enum { COLUMNS = 6 };
    double values[16 * COLUMNS], should[16];
    int wrong[16], rows = 0, warps = (threads + 31) / 32;
    for (int j = 0; j < count_n && rows < 16; j++) {
        double expected = right(counts[j], threads);
        if (expected > 1.0 + 1e-12)
            break;
        double got = yours(counts[j], threads);
        double *row = values + rows * COLUMNS;
        row[0] = counts[j], row[1] = threads, row[2] = warps, row[3] = (double)counts[j] * warps, row[4] = got,
        row[5] = expected;
        wrong[rows] = same_value(got, expected) ? -1 : 4;
        should[rows++] = expected;
    }
    static const char *const headings[] = {"blocks", "threads", "warps each", "warps", "yours", "formula's"};
    char note[200], caption[200];
    snprintf(note, sizeof note, "the limit: at most %d warps of 32 threads per SM on %s, so occupancy = warps / %d",
             sm_warps, grade_device_name(), sm_warps);
    snprintf(caption, sizeof caption, "occupancy_from_blocks(blocks, %d) for each block count tried, yours against "
             "the reference's", threads);
    grade_table t = {caption, headings, COLUMNS, rows, values, NULL, wrong, should, 4, note};
    grade_figure_table(&t);
}

GRADE_ITEM(occupancy_formula, 9, GRADE_CORRECTNESS, 30, "6", "occupancy_from_blocks against this device's limits",
           "`occupancy_from_blocks` against this device's limits, block sizes that are and are not whole "
           "warps")
{
    on_other_device();
    static const int block_sizes[] = {256, 1024, 128, 64, 32, 16, 1, 31, 33, 96, 100, 200, 384, 512, 640, 1000};
    double (*yours)(int, int) = GRADE_FN(grade_student(), occupancy_from_blocks);
    double (*right)(int, int) = GRADE_FN(grade_reference(), occupancy_from_blocks);
    int sm_warps = warps_per_sm();
    static const int block_counts[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64};
    for (int i = 0; i < COUNT(block_sizes); i++)
        for (int j = 0; j < COUNT(block_counts); j++) {
            int threads = block_sizes[i], blocks = block_counts[j];
            double expected = right(blocks, threads);
            if (expected > 1.0 + 1e-12)
                break; /* more blocks than an SM can hold */
            double got = yours(blocks, threads);
            if (same_value(got, expected))
                continue;
            int warps = (threads + 31) / 32;
            const char *hint = "";
            if (same_value(got, (double)blocks * threads / (32.0 * sm_warps)))
                hint = " That counts threads; a block occupies whole warps, even when its last warp is not full.";
            else if (same_value(got, (double)blocks * threads / 1024.0) || same_value(got, (double)blocks * warps / 32.0))
                hint = " That divides by the block's thread limit (maxThreadsPerBlock); occupancy is about the SM's "
                       "limit, maxThreadsPerMultiProcessor.";
            else if (sm_warps != 64 && same_value(got, (double)blocks * warps / 64.0))
                hint = " That divides by 64 warps, what an H100 (and the default emulated device) holds; other "
                       "devices hold 48 or 32: read maxThreadsPerMultiProcessor and the warp size from the device.";
            else if (got == 0)
                hint = " (TODO 6 not done yet?)";
            attach_formula_figure(threads, block_counts, COUNT(block_counts), sm_warps);
            grade_fail("occupancy_from_blocks(%d, %d) = %.6g, but on this device (%s, at most %d warps of 32 threads "
                       "per SM) %d block%s of %d thread%s occup%s %d x %d = %d warp%s: %d / %d = %.6g.%s",
                       blocks, threads, got, grade_device_name(), sm_warps, blocks, plural(blocks), threads, plural(threads),
                       blocks == 1 ? "ies" : "y", blocks, warps, blocks * warps, plural(blocks * warps),
                       blocks * warps, sm_warps, expected, hint);
        }
}

static int same_registers(void)
{
    int yours = GRADE_FN(grade_student(), matmul_kernel_registers)();
    int reference = GRADE_FN(grade_reference(), matmul_kernel_registers)();
    if (yours != reference)
        grade_note("your tiled kernel uses %d registers per thread and the reference %d, so the occupancy API may "
                   "answer differently for the two; your value was checked for its form only",
                   yours, reference);
    return yours == reference;
}

/* The report's figure for occupancy: matmul_occupancy(t) for every tile
 * tried, yours against the API's (the reference's call), with what decides
 * it: the blocks the API fits, the blocks the SM's warps alone allow, the
 * shared memory of a block and the registers.  The device's other limits
 * (registers and shared memory per SM, blocks per SM) are not the
 * grader's to read: where the API fits fewer blocks than the warps allow,
 * the figure says one of them decides. */
static void attach_occupancy_figure(void)
{
    double (*yours)(int) = GRADE_FN(grade_student(), matmul_occupancy);
    double (*right)(int) = GRADE_FN(grade_reference(), matmul_occupancy);
    int sm_warps = warps_per_sm();
    enum { COLUMNS = 8, TILES = 6 };
    double values[TILES * COLUMNS], should[TILES];
    int wrong[TILES], rows = 0;
    const char *notes[TILES];
    for (int t = 32; t >= 1; t /= 2) {
        double got = yours(t), expected = right(t);
        int warps = (t * t + 31) / 32;
        long blocks = lround(expected * sm_warps / warps), by_warps = sm_warps / warps;
        double *row = values + rows * COLUMNS;
        row[0] = t, row[1] = t * t, row[2] = warps, row[3] = 2.0 * t * t * sizeof(float), row[4] = (double)blocks,
        row[5] = (double)by_warps, row[6] = got, row[7] = expected;
        wrong[rows] = same_value(got, expected) ? -1 : 6;
        should[rows] = expected;
        notes[rows++] = blocks >= by_warps ? "warps" : "another limit";
    }
    static const char *const headings[] = {"tile", "threads", "warps each", "shared bytes", "blocks (API)",
                                           "warp limit", "yours", "API's", "decided by"};
    char note[400];
    snprintf(note, sizeof note, "at most %d warps per SM; registers per thread: yours %d, the reference's %d\n"
             "another limit: registers, shared memory or blocks per SM (the grader does not read them)", sm_warps, GRADE_FN(grade_student(), matmul_kernel_registers)(),
             GRADE_FN(grade_reference(), matmul_kernel_registers)());
    grade_table table = {"matmul_occupancy(tile) for each tile tried, yours against the occupancy API's", headings,
                         COLUMNS, rows, values, notes, wrong, should, 6, note};
    grade_figure_table(&table);
}

GRADE_ITEM(occupancy, 9, GRADE_CORRECTNESS, 30, "7", "matmul_occupancy against the occupancy API on this device",
           "`matmul_occupancy(t)` for `t` = 1 to 32 equals what the occupancy API gives on this device (the "
           "emulated device on the cpu backend)")
{
    on_other_device();
    double (*yours)(int) = GRADE_FN(grade_student(), matmul_occupancy);
    double (*right)(int) = GRADE_FN(grade_reference(), matmul_occupancy);
    double (*formula)(int, int) = GRADE_FN(grade_reference(), occupancy_from_blocks);
    int comparable = same_registers();
    for (int t = 32; t >= 1; t /= 2) {
        double got = yours(t), expected = right(t);
        if (comparable) {
            if (same_value(got, expected))
                continue;
            attach_occupancy_figure();
            grade_fail("matmul_occupancy(%d) = %.6g, but on this device (%s) the occupancy API fits so many blocks "
                       "of %d threads with %zu bytes of shared memory that the occupancy is %.6g.%s",
                       t, got, grade_device_name(), t * t, 2 * (size_t)t * t * sizeof(float), expected,
                       got == 0 ? " (TODO 7 not done yet?)"
                                : " Pass cudaOccupancyMaxActiveBlocksPerMultiprocessor the tiled kernel, tile * tile "
                                  "threads and matmul_shared_bytes(tile * tile), then use occupancy_from_blocks.");
        }
        /* Different kernels: the value must still be some whole number of blocks. */
        int possible = 0;
        for (int blocks = 1; blocks <= 64 && !possible; blocks++)
            possible = same_value(got, formula(blocks, t * t)) && got <= 1.0 + 1e-12;
        if (!possible)
            attach_occupancy_figure();
        grade_check(possible,
                    "matmul_occupancy(%d) = %.6g, which no whole number of resident blocks of %d threads gives on "
                    "this device (%s)",
                    t, got, t * t, grade_device_name());
    }
}

/* ---- block_size_rule and choose_tile ------------------------------------------------------ */

/* The rule itself (lab8_rule) is in lab8-tiled-matmul/model.h. */

GRADE_ITEM(block_size_rule, 5, GRADE_CORRECTNESS, 30, "8", "tile_for_block_size: the largest power of four not above the block size",
           "`tile_for_block_size(x)` for every `x` from 0 to 1024")
{
    int (*yours)(int) = GRADE_FN(grade_student(), tile_for_block_size);
    for (int threads = 0; threads <= 1024; threads++) {
        int got = yours(threads), expected = lab8_rule(threads);
        if (got == expected)
            continue;
        if (threads == 0)
            grade_fail("tile_for_block_size(0) = %d, but no tile fits in a block of 0 threads: return 0", got);
        grade_fail("tile_for_block_size(%d) = %d, but the largest power of four not above %d is %d = %d x %d, so the "
                   "tile side is %d.%s",
                   threads, got, threads, expected * expected, expected, expected, expected,
                   got > 0 && got * got > threads ? " Your tile needs more threads than the block has: round down."
                   : got > 0 && (got & (got - 1)) ? " A tile side must be a power of two."
                   : got == 0                     ? " (TODO 8 not done yet?)"
                                                  : "");
    }
}

GRADE_ITEM(choose_tile, 5, GRADE_CORRECTNESS, 30, "9", "matmul_choose_tile follows cudaOccupancyMaxPotentialBlockSizeVariableSMem",
           "`matmul_choose_tile()` equals the rule applied to the API's suggestion on this device")
{
    on_other_device();
    int got = GRADE_FN(grade_student(), matmul_choose_tile)();
    int expected = GRADE_FN(grade_reference(), matmul_choose_tile)();
    if (same_registers()) {
        grade_check(got == expected,
                    "matmul_choose_tile() = %d, but on this device (%s) cudaOccupancyMaxPotentialBlockSizeVariableSMem "
                    "suggests a block size for the tiled kernel (with matmul_shared_bytes) from which the rule gives "
                    "tile %d.%s",
                    got, grade_device_name(), expected,
                    got == 0    ? " (TODO 9 not done yet?)"
                    : got == 32 ? " 32 is what an H100 and the default emulated device suggest; another device "
                                  "suggests another block size: ask the API on the device the code runs on."
                                : "");
        return;
    }
    grade_check(got >= 1 && got <= 32 && (got & (got - 1)) == 0,
                "matmul_choose_tile() = %d, which is not a tile side (a power of two from 1 to 32)", got);
}

/* ---- tiled_speedup (GPU only) ----------------------------------------------------------------- */

typedef struct {
    grade_side *side;
    int tiled, n, tile;
    const float *a, *b;
    float *c;
} timed_call;

static void run_timed(void *arg)
{
    timed_call *t = arg;
    if (t->tiled)
        GRADE_FN(t->side, matmul_tiled)(t->a, t->b, t->c, t->n, t->n, t->n, t->tile);
    else
        GRADE_FN(t->side, matmul_naive)(t->a, t->b, t->c, t->n, t->n, t->n);
}

GRADE_ITEM(tiled_speedup, 19, GRADE_PERFORMANCE, 120, "1,2,3,5", "tiled faster than naive by the reference's margin, near its time (GPU)",
           "GPU only: at `n = 4096`, with the tile the reference chooses, your tiled kernel faster than your "
           "naive one by at least the reference's speed-up less 20% (the bar is never above 1.5 times), and "
           "full points up to 1.2 times the reference's time, all timed in the same run; the reference's "
           "kernel is the steps' loop, nothing more; the feedback gives the three times and the GPU's name")
{
    if (!grade_on_gpu())
        grade_skip_elsewhere("timing means nothing on the cpu backend");
    const int n = 4096; /* the size of the kit's benchmark anchors: 2 x 4096^3 = 137 GFLOP */
    int tile = GRADE_FN(grade_reference(), matmul_choose_tile)();
    uint64_t seed = grade_seed_for(800);
    size_t count = (size_t)n * n;
    float *a = new_floats(count), *b = new_floats(count), *c = new_floats(count);
    kit_fill_uniform(a, count, -1.0f, 1.0f, seed);
    kit_fill_uniform(b, count, -1.0f, 1.0f, seed + 1);

    /* Only a right product earns speed points: check a sample of it first. */
    shape s = {tile, n, n, n};
    timed_call yours_tiled = {grade_student(), 1, n, tile, a, b, c};
    run_timed(&yours_tiled);
    kit_rng rng = kit_rng_new(seed + 2);
    for (int i = 0; i < 1024; i++) {
        int r = (int)(kit_rng_next(&rng) % n), col = (int)(kit_rng_next(&rng) % n);
        double exact, abs_sum;
        exact_element(a, b, &s, r, col, &exact, &abs_sum);
        grade_check(element_right(c[(size_t)r * n + col], exact, abs_sum, n, 0),
                    "A and B %d x %d, tile %d, seed %llu: C[%d][%d] = %.9g but the product is %.9g, so the speed "
                    "is not graded (see tiled_random)%s",
                    n, n, tile, (unsigned long long)seed, r, col, c[(size_t)r * n + col], exact,
                    grade_guard_hint_float(c[(size_t)r * n + col], exact, "A or B", -1));
    }

    timed_call yours_naive = {grade_student(), 0, n, tile, a, b, c};
    timed_call reference_tiled = {grade_reference(), 1, n, tile, a, b, c};
    double naive_ms = grade_time_ms(grade_student(), run_timed, &yours_naive, 1, 5);
    double tiled_ms = grade_time_ms(grade_student(), run_timed, &yours_tiled, 1, 5);
    double reference_ms = grade_time_ms(grade_reference(), run_timed, &reference_tiled, 1, 5);
    double gflop = 2.0 * n * n * (double)n / 1e9;
    double speedup = naive_ms / tiled_ms;
    grade_note("%s, n = %d, tile %d: naive %.3f ms (%.0f GFLOP/s), your tiled %.3f ms (%.0f GFLOP/s, %.2fx the "
               "naive one), the reference's tiled %.3f ms (%.0f GFLOP/s)",
               grade_device_name(), n, tile, naive_ms, gflop / naive_ms * 1e3, tiled_ms, gflop / tiled_ms * 1e3, speedup,
               reference_ms, gflop / reference_ms * 1e3);
    /* Full points when the tiled kernel is at least 1.5x faster than the
     * naive one and within 1.2x of the reference's time.  On a GPU where
     * even the reference is not 1.5x faster than the naive kernel (a large
     * L1 cache helps the naive one), the bar is the reference's speed-up
     * less 20%, the same slack as against the reference's time. */
    double reference_speedup = naive_ms / reference_ms;
    double needed = reference_speedup < 1.5 ? reference_speedup / 1.2 : 1.5;
    double fraction = grade_perf_fraction(tiled_ms, reference_ms);
    if (speedup < needed) {
        double against_naive = speedup > 0 ? speedup / needed : 0;
        if (against_naive < fraction)
            fraction = against_naive;
        grade_note("the tiled kernel should be at least %.2fx faster than the naive one; it is %.2fx", needed, speedup);
    }
    if (reference_speedup < 1.5)
        grade_note("on this GPU the reference's tiled kernel is only %.2fx faster than the naive one, so the bar is "
                   "%.2fx instead of 1.5x",
                   reference_speedup, needed);
    grade_score(fraction);
    free(a);
    free(b);
    free(c);
    grade_explain_speed("matmul_tiled_kernel", "2048 1",
                        GRADE_LENS_BANK_CONFLICTS | GRADE_LENS_LOADS | GRADE_LENS_OCCUPANCY | GRADE_LENS_BANDWIDTH);
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(5, "lab8", "64 1 16", "")

GRADE_LAB(8, "tiled-matmul", "lab8-tiled-matmul")
