/* lab8-tiled-matmul.c: the bench of lab 8, tiled matrix multiply (lab8.h).
 *
 * A product of two n x n matrices does 2 n^3 floating-point operations on
 * 12 n^2 bytes: bound by arithmetic, measured in TFLOP/s.  Beside the
 * lab's naive and tiled kernels: cuBLAS SGEMM in plain FP32 (no TF32) and
 * the register-tiled kernel of solutions/lab8-tiled-matmul/register_tiled.cu,
 * which this program links itself (it is not part of the lab).
 *
 * Checks: cuBLAS's product is compared with a double-precision product at
 * sampled positions (within 32 units of u * sum|a_ik b_kj|: plain FP32
 * lands near 1, TF32 near 100); every other product is compared with
 * cuBLAS's element by element, within 2 k u (|A| |B|)_ij, twice the error
 * bound of any order of summation (|A| |B| also comes from cuBLAS). */
#include <math.h>
#include <stdio.h>

#include "bench.h"
#include "kit_internal.h"
#include "kit_program.h"
#include "lab8.h"
#include "libraries.h"

/* solutions/lab8-tiled-matmul/fastest.cu and register_tiled.cu (linked into this program): beyond the lab's steps. */
void matmul_tiled_fastest(const float *a, const float *b, float *c, int m, int k, int n);
void matmul_register_tiled(const float *a, const float *b, float *c, int m, int k, int n);

enum kind { NAIVE, TILED, TILED_FASTEST, REGISTER_TILED };

typedef struct {
    enum kind kind;
    bench_lab *lab;            /* NULL: this program's own (the versions of solutions/ it links) */
    void *fn;
    int tile;
    const float *a, *b, *expected, *bound;
    float *c;
    int side;
} product_run;

static double product_once(void *context, char *note)
{
    product_run *r = context;
    int s = r->side;
    bench_poison(r->c, (size_t)s * s);
    bench_lab_start(r->lab);
    if (r->kind == NAIVE)
        ((__typeof__(&matmul_naive))r->fn)(r->a, r->b, r->c, s, s, s);
    else if (r->kind == TILED)
        ((__typeof__(&matmul_tiled))r->fn)(r->a, r->b, r->c, s, s, s, r->tile);
    else if (r->kind == TILED_FASTEST)
        matmul_tiled_fastest(r->a, r->b, r->c, s, s, s);
    else
        matmul_register_tiled(r->a, r->b, r->c, s, s, s);
    double ms = bench_lab_elapsed(r->lab, note);
    if (ms < 0)
        return -1;
    return bench_check_matrix(r->c, r->expected, r->bound, s, s, note) ? ms : -1;
}

static const char *const naive_name = "matmul_naive (one thread per element)";

/* The matrices of a run, each with room for its largest side. */
typedef struct {
    float *a, *b, *c, *expected, *bound, *abs_a, *abs_b;
    long largest;
} matrices;

static matrices matrices_alloc(const bench_options *o)
{
    long largest = 0;
    for (int i = 0; i < o->side_count; i++)
        largest = o->sides[i] > largest ? o->sides[i] : largest;
    size_t most = (size_t)largest * largest * sizeof(float);
    matrices m = {bench_host_alloc(most), bench_host_alloc(most), bench_host_alloc(most), bench_host_alloc(most),
                  bench_host_alloc(most), bench_host_alloc(most), bench_host_alloc(most), largest};
    return m;
}

static void matrices_free(matrices *m)
{
    float *all[] = {m->a, m->b, m->c, m->expected, m->bound, m->abs_a, m->abs_b};
    for (int i = 0; i < 7; i++)
        bench_host_free(all[i]);
}

/* A and B of side s, cuBLAS's product of them (what the others are compared
 * with) and each element's bound, 2 k u (|A| |B|)_ij. */
static void make_inputs(matrices *m, int s)
{
    size_t count = (size_t)s * s;
    kit_fill_uniform(m->a, count, -1.0f, 1.0f, (uint64_t)s);
    kit_fill_uniform(m->b, count, -1.0f, 1.0f, (uint64_t)s + 1);
    for (size_t e = 0; e < count; e++)
        m->abs_a[e] = fabsf(m->a[e]), m->abs_b[e] = fabsf(m->b[e]);
    lib_sgemm_once(m->a, m->b, m->expected, s, s, s);
    lib_sgemm_once(m->abs_a, m->abs_b, m->bound, s, s, s);
    for (size_t e = 0; e < count; e++)
        m->bound[e] *= 2.0f * s * (float)KIT_UNIT_ROUNDOFF * 1.01f;
}

/* cuBLAS's product itself, against doubles, before anything is compared
 * with it, and its row on the reference side; 0 when it is wrong. */
static int library_row(const bench_options *o, const matrices *m, int s, double flops)
{
    double worst = 0;
    char note[200] = "";
    int blas_ok = bench_check_matmul_samples(m->a, m->b, m->expected, s, s, s, 64, 32.0, &worst, note);
    if (o->reference) {
        bench_result r = lib_sgemm(m->a, m->b, s, s, s, m->expected, m->bound, &o->plan);
        if (!blas_ok)
            r.ok = 0, snprintf(r.note, sizeof r.note, "%s", note);
        else if (r.ok)
            snprintf(r.note, sizeof r.note, "FP32: worst error at 64 sampled elements %.2f units of u*sum|a b|",
                     worst);
        bench_row(o, "library", "cuBLAS SGEMM (FP32; TF32 off)", s, flops, "TFLOP/s", NULL, &r);
    }
    if (!blas_ok)
        fprintf(stderr, "bench: cuBLAS's product at %d is wrong (%s): nothing is checked against it\n", s, note);
    return blas_ok;
}

/* The lab's kernels: naive, tiled with the chosen tile and with 16 (the textbook's). */
/* fns: the lab's matmul_naive and matmul_tiled (NULL where missing). */
static void lab_rows(const bench_options *o, bench_lab *lab, void *const fns[2], int chosen, const matrices *m, int s,
                     double flops)
{
    int tiles[2] = {kit_is_power_of_two_in(chosen, 1, 32) ? chosen : 32, 16};
    int tile_count = tiles[0] == 16 ? 1 : 2;
    for (int t = -1; t < tile_count; t++) {
        char name[120];
        if (t < 0)
            snprintf(name, sizeof name, "%s", naive_name);
        else
            snprintf(name, sizeof name, "matmul_tiled (tile %d%s)", tiles[t],
                     tiles[t] == chosen ? ", matmul_choose_tile's" : "");
        void *fn = fns[t < 0 ? 0 : 1];
        product_run run = {t < 0 ? NAIVE : TILED, lab, fn, t < 0 ? 0 : tiles[t], m->a, m->b, m->expected, m->bound,
                           m->c, s};
        bench_timed_row(o, fn, name, s, flops, "TFLOP/s", NULL, product_once, &run);
    }
}

/* The versions of solutions/ that this program links (reference side only). */
static void solution_rows(const bench_options *o, const matrices *m, int s, double flops)
{
    const char *register_name = "register-tiled 128x128, 8x16 a thread, async copies (solutions/)";
    const char *fastest_name = "matmul_tiled_fastest (tile 32 when compiling; solutions/fastest.cu)";
    char naive_target[120];
    snprintf(naive_target, sizeof naive_target, "speed:%s>=1.5", naive_name);
    product_run run = {TILED_FASTEST, NULL, NULL, 0, m->a, m->b, m->expected, m->bound, m->c, s};
    bench_result r = bench_repeat(&o->plan, product_once, &run);
    /* The target: the tiled algorithm at least 1.5 times as fast as naive, at every size. */
    bench_row(o, "solution", fastest_name, s, flops, "TFLOP/s", naive_target, &r);
    run.kind = REGISTER_TILED;
    r = bench_repeat(&o->plan, product_once, &run);
    /* The target: 0.9 of cuBLAS at the largest side (4096 in a full run). */
    bench_row(o, "solution", register_name, s, flops, "TFLOP/s", s == m->largest ? "library>=0.9" : NULL, &r);
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    void *fns[2] = {bench_symbol(lab, "matmul_naive"), bench_symbol(lab, "matmul_tiled")};
    __typeof__(&matmul_choose_tile) choose_tile = BENCH_FN(lab, matmul_choose_tile);
    int chosen = choose_tile ? choose_tile() : 0;
    matrices m = matrices_alloc(&o);
    for (int i = 0; i < o.side_count; i++) {
        int s = (int)o.sides[i];
        double flops = 2.0 * s * s * s;
        make_inputs(&m, s);
        if (!library_row(&o, &m, s, flops))
            continue;
        lab_rows(&o, lab, fns, chosen, &m, s, flops);
        if (o.reference)
            solution_rows(&o, &m, s, flops);
    }
    matrices_free(&m);
    return 0;
}
