/* main.c: the lab 8 program (fixed: do not edit).
 *
 *     lab [n] [seed] [tile]
 *
 * Multiplies two seeded n x n matrices with the naive kernel and with your
 * tiled one, checks the tiled product against a double-precision CPU
 * reference, and prints both times with their GFLOP/s, the occupancy of
 * the tiled kernel for every tile side, and the tile side your
 * matmul_choose_tile() picks (a third argument forces a tile side).  For
 * n <= 16 the data are small integers and A, B and C are drawn with their
 * tiles.  Exit status: 0 when the tiled product is right, 1 when wrong.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kit.h"
#include "kit_program.h"
#include "lab8.h"

enum {
    PICTURE_MAX = 16,  /* draw the matrices up to this side */
    TIMED_RUNS = 3,    /* the time printed is the median of these, after one warm-up */
    CHECK_ALL_MAX = 1 << 27 /* check every element up to this many multiply-adds, else a sample */
};

/* The tolerance, in units of k * u * sum_i |a_ri b_ic|: a float dot product
 * of k terms, summed in any order, with or without fused multiply-adds,
 * errs by less than 1.01 k u sum |terms| (for k u < 0.01). */
static const double TOLERANCE_C = 2.0;

static int is_tile_side(int t) { return kit_is_power_of_two_in(t, 1, 32); }

/* Kernel time of one call: the median of TIMED_RUNS after a warm-up. */
static double time_product(int tiled, const float *a, const float *b, float *c, int n, int tile)
{
    double ms[TIMED_RUNS];
    for (int run = -1; run < TIMED_RUNS; run++) {
        kit_reset_records();
        if (tiled)
            matmul_tiled(a, b, c, n, n, n, tile);
        else
            matmul_naive(a, b, c, n, n, n);
        if (run >= 0)
            ms[run] = kit_timed_ms();
    }
    return kit_median(ms, TIMED_RUNS);
}

/* Checks C[r][c] against the double product; returns 1 when within tolerance
 * and reports the first element that is not. */
static int check_element(const float *a, const float *b, const float *c, int n, int r, int col, double *worst)
{
    double exact = 0, abs_sum = 0;
    for (int i = 0; i < n; i++) {
        double term = (double)a[r * n + i] * b[i * n + col];
        exact += term;
        abs_sum += fabs(term);
    }
    double got = c[r * n + col];
    double units = kit_error_units(got, exact, abs_sum) / n;
    if (units > *worst || isnan(got))
        *worst = isnan(got) ? INFINITY : units;
    if (kit_within_tolerance(got, exact, abs_sum, TOLERANCE_C * n))
        return 1;
    printf("C[%d][%d] = %.9g but the product is %.9g: off by %.3g units of k u sum|a b| (at most %g allowed)\n", r,
           col, got, exact, units, TOLERANCE_C);
    return 0;
}

/* Every element for small products, else 4096 seeded positions and the corners. */
static int check_product(const float *a, const float *b, const float *c, int n, unsigned long long seed)
{
    double worst = 0;
    long long checked = 0;
    int right = 1;
    if ((double)n * n * n <= CHECK_ALL_MAX) {
        for (int r = 0; r < n && right; r++)
            for (int col = 0; col < n && right; col++, checked++)
                right = check_element(a, b, c, n, r, col, &worst);
    } else {
        kit_rng rng = kit_rng_new(seed + 1);
        for (int s = 0; s < 4096 + 4 && right; s++, checked++) {
            int r = s < 4 ? (s & 1) * (n - 1) : (int)(kit_rng_next(&rng) % (unsigned)n);
            int col = s < 4 ? (s >> 1) * (n - 1) : (int)(kit_rng_next(&rng) % (unsigned)n);
            right = check_element(a, b, c, n, r, col, &worst);
        }
    }
    if (right)
        printf("tiled product: right (%lld of %lld elements checked, worst error %.3g units of k u sum|a b|, %g allowed)\n",
               checked, (long long)n * n, worst, TOLERANCE_C);
    return right;
}

/* A matrix with lines between its tiles. */
static void draw_matrix(const char *name, const float *x, int n, int tile)
{
    printf("\n%s, tiles of %d x %d:\n", name, tile, tile);
    for (int r = 0; r < n; r++) {
        if (r > 0 && r % tile == 0) {
            printf("    ");
            for (int col = 0; col < n; col++)
                printf("%s-----", col > 0 && col % tile == 0 ? "-+" : "");
            printf("\n");
        }
        printf("    ");
        for (int col = 0; col < n; col++)
            printf("%s%5g", col > 0 && col % tile == 0 ? " |" : "", x[r * n + col]);
        printf("\n");
    }
}

/* Calls every step once, in the order of the TODOs, so that the first
 * "not implemented yet" reminder names the first unfinished step. */
static void touch_steps_in_order(void)
{
    float one = 1.0f, product = 0.0f;
    (void)matmul_shared_bytes(1);
    matmul_tiled(&one, &one, &product, 1, 1, 1, 1);
    (void)occupancy_from_blocks(1, 32);
    (void)matmul_occupancy(1);
    (void)tile_for_block_size(1);
}

static void print_occupancy(void)
{
    printf("\noccupancy of the tiled kernel (%d registers per thread; compare with nvcc --resource-usage):\n",
           matmul_kernel_registers());
    printf("    tile   threads   shared bytes   occupancy\n");
    for (int t = 1; t <= 32; t *= 2)
        printf("    %4d   %7d   %12zu   %9.3f\n", t, t * t, matmul_shared_bytes(t * t), matmul_occupancy(t));
}

int main(int argc, char **argv)
{
    const char *usage = "[n, 1..16384] [seed] [tile: 1, 2, 4, 8, 16 or 32]";
    int n = kit_arg_n(argc, argv, kit_on_gpu() ? 2048 : 128, 16384, usage);
    unsigned long long seed = kit_arg_seed(argc, argv, 2);
    int forced_tile = kit_arg_long(argc, argv, 3, 0);
    if (argc > 3 && !is_tile_side(forced_tile))
        kit_usage_exit(argv[0], usage);
    printf("lab8 tiled-matmul: C = A B with n = %d (A, B and C are %d x %d), seed = %llu, device: %s\n", n, n, n,
           seed, kit_device_name());

    touch_steps_in_order();
    int chosen = matmul_choose_tile();
    int tile = forced_tile ? forced_tile : chosen;
    printf("matmul_choose_tile: tile %d x %d (%d threads per block)\n", chosen, chosen, chosen * chosen);
    if (!is_tile_side(tile)) {
        printf("    that is not a power of two from 1 to 32, so this run uses 16 x 16\n");
        tile = 16;
    }
    if (forced_tile)
        printf("this run uses the tile you asked for: %d x %d\n", tile, tile);
    if (n % tile != 0)
        printf("note: n = %d is not a multiple of the tile side %d: the tiled kernel needs the bounds checks of\n"
               "      \"going further\" for this size\n", n, tile);
    print_occupancy();

    size_t count = (size_t)n * n;
    float *a = kit_host_array(count, sizeof *a, n), *b = kit_host_array(count, sizeof *b, n);
    float *c_naive = kit_host_array(count, sizeof *c_naive, n), *c_tiled = kit_host_array(count, sizeof *c_tiled, n);
    int small = n <= PICTURE_MAX;
    if (small) { /* small integers: every product and sum is exact, easy to read */
        kit_fill_small_floats(a, count, -3, 3, seed);
        kit_fill_small_floats(b, count, -3, 3, seed + 7);
    } else {
        kit_fill_uniform(a, count, -1.0f, 1.0f, seed);
        kit_fill_uniform(b, count, -1.0f, 1.0f, seed + 7);
    }

    kit_set_timing(1);
    double naive_ms = time_product(0, a, b, c_naive, n, tile);
    double started = kit_wall_ms();
    double tiled_ms = time_product(1, a, b, c_tiled, n, tile);
    double call_ms = (kit_wall_ms() - started) / (TIMED_RUNS + 1);

    double gflop = 2.0 * n * n * (double)n / 1e9;
    printf("\nnaive kernel: %9.3f ms  %8.1f GFLOP/s\n", naive_ms, gflop / (naive_ms / 1e3));
    printf("tiled kernel: %9.3f ms  %8.1f GFLOP/s  (%.2fx the naive one; %.3f ms per call with copies)\n", tiled_ms,
           gflop / (tiled_ms / 1e3), naive_ms / tiled_ms, call_ms);
    if (!kit_on_gpu())
        printf("(on the cpu backend these times say nothing about a GPU)\n");

    if (small) {
        draw_matrix("A", a, n, tile);
        draw_matrix("B", b, n, tile);
        draw_matrix("C = A B from your tiled kernel", c_tiled, n, tile);
    }
    printf("\n");
    int right = check_product(a, b, c_tiled, n, seed);
    kit_print_reminder("lab8-tiled-matmul");
    free(a);
    free(b);
    free(c_naive);
    free(c_tiled);
    return right ? 0 : 1;
}
