/* lab2-vector-mult.c: the bench of lab 2, element-wise products (lab2.h).
 *
 * A product c[i] = a[i] * b[i] reads 8 bytes and writes 4 per element and
 * does one multiplication: nothing but memory traffic, so the yardstick is
 * the streaming ceiling (a device-to-device copy), not a library.  Every
 * product is checked bit for bit: a float product is exactly rounded, the
 * same on the host and the device. */
#include <string.h>

#include "bench.h"
#include "kit.h"
#include "lab2.h"
#include "libraries.h"

/* solutions/lab2-vector-mult/fastest.cu (linked into this program): beyond the lab's steps. */
void vector_mult_fastest(const float *a, const float *b, float *c, int n);
void vector_mult_fastest_on_device(const float *d_a, const float *d_b, float *d_c, int n);

enum what { PRODUCTS, IN_PLACE, DOT };

typedef struct {
    enum what what;
    bench_lab *lab;
    void *fn;
    const float *a, *b;
    float *c;             /* products, or the array multiplied in place */
    int n, blocks;
    double exact, abs_sum; /* the dot product */
} product_run;

static double product_once(void *context, char *note)
{
    product_run *r = context;
    float dot = 0;
    lab2_phase_times times;
    if (r->what == IN_PLACE)
        memcpy(r->c, r->a, (size_t)r->n * sizeof(float)); /* a fresh a[] for every run */
    else
        bench_poison(r->c, (size_t)r->n);

    bench_lab_start(r->lab);
    if (r->what == PRODUCTS)
        ((__typeof__(&vector_mult))r->fn)(r->a, r->b, r->c, r->n);
    else if (r->what == IN_PLACE)
        ((__typeof__(&vector_mult_in_place))r->fn)(r->c, r->b, r->n, r->blocks);
    else
        dot = ((__typeof__(&dot_product))r->fn)(r->a, r->b, r->n, &times);
    double ms = bench_lab_elapsed(r->lab, note);
    if (ms < 0)
        return ms;

    if (r->what == DOT)
        return bench_check_sum(dot, r->exact, r->abs_sum, 2000, note) ? ms : -1;
    for (int i = 0; i < r->n; i++) {
        float expected = r->a[i] * r->b[i];
        if (r->c[i] != expected) { /* NaN (not written) never equals */
            snprintf(note, 200, "wrong: c[%d] = %.9g but a[%d] * b[%d] = %.9g", i, r->c[i], i, i, expected);
            return -1;
        }
    }
    return ms;
}

/* The fastest kernel alone, on inputs already in device memory, after L2
 * is written back: the state the copy ceiling measures from.  (An upload
 * just before leaves L2 full of dirty lines of the inputs, which then go
 * back to device memory while the timed kernel runs.) */
typedef struct {
    const float *d_a, *d_b, *a, *b;
    float *d_c, *c;
    int n;
} device_run;

static double device_once(void *context, char *note)
{
    device_run *r = context;
    bench_device_poison(r->d_c, (size_t)r->n); /* NaN: a product not written shows */
    bench_write_back_l2();
    bench_lab_start(NULL);
    vector_mult_fastest_on_device(r->d_a, r->d_b, r->d_c, r->n);
    double ms = bench_lab_elapsed(NULL, note);
    if (ms < 0)
        return ms;
    bench_device_download(r->c, r->d_c, (size_t)r->n);
    for (int i = 0; i < r->n; i++) {
        if (r->c[i] != r->a[i] * r->b[i]) {
            snprintf(note, 200, "wrong: c[%d] = %.9g but a[%d] * b[%d] = %.9g", i, r->c[i], i, i, r->a[i] * r->b[i]);
            return -1;
        }
    }
    return ms;
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    void *fns[3] = {bench_symbol(lab, "vector_mult"), bench_symbol(lab, "vector_mult_in_place"),
                    bench_symbol(lab, "dot_product")};
    /* One full wave of blocks for the grid-stride version: 2048 threads an SM. */
    int blocks = bench_sm_count() * (2048 / LAB2_THREADS_PER_BLOCK);
    char in_place_name[80];
    snprintf(in_place_name, sizeof in_place_name, "vector_mult_in_place (%d blocks, grid-stride)", blocks);
    const char *names[3] = {"vector_mult (one thread per element)", in_place_name,
                            "dot_product (its products kernel only)"};

    const char *fastest_name = "vector_mult_fastest (float4; solutions/fastest.cu)";
    const char *kernel_name = "its kernel alone (inputs on the device, L2 written back)";
    if (o.reference)
        bench_ceiling(&o);
    size_t largest = bench_largest_size(&o);
    float *a = bench_host_alloc(largest * sizeof(float));
    float *b = bench_host_alloc(largest * sizeof(float));
    float *c = bench_host_alloc(largest * sizeof(float));
    for (int s = 0; s < o.size_count; s++) {
        long n = o.sizes[s];
        kit_fill_uniform(a, (size_t)n, -1.0f, 1.0f, (uint64_t)n);
        kit_fill_uniform(b, (size_t)n, -1.0f, 1.0f, (uint64_t)n + 1);
        double exact = kit_dot(a, b, (size_t)n), abs_sum = kit_abs_dot(a, b, (size_t)n);
        double bytes = 12.0 * n; /* two floats read, one written */
        for (int w = PRODUCTS; w <= DOT; w++) {
            product_run run = {w, lab, fns[w], a, b, c, (int)n, blocks, exact, abs_sum};
            bench_timed_row(&o, fns[w], names[w], n, bytes, "GB/s", NULL, product_once, &run);
        }
        if (o.reference) {
            product_run run = {PRODUCTS, NULL, (void *)vector_mult_fastest, a, b, c, (int)n, blocks, exact, abs_sum};
            bench_result r = bench_repeat(&o.plan, product_once, &run);
            bench_row(&o, "solution", fastest_name, n, bytes, "GB/s", NULL, &r);

            float *d_a = bench_device_copy(a, (size_t)n), *d_b = bench_device_copy(b, (size_t)n);
            float *d_c = bench_device_copy(c, (size_t)n);
            device_run on_device = {d_a, d_b, a, b, d_c, c, (int)n};
            r = bench_repeat(&o.plan, device_once, &on_device);
            /* The target: within 10% of the copy's rate, where the arrays dwarf L2. */
            bench_row(&o, "solution", kernel_name, n, bytes, "GB/s", n >= 1L << 24 ? "ceiling>=90" : NULL, &r);
            bench_device_free(d_a);
            bench_device_free(d_b);
            bench_device_free(d_c);
        }
    }
    bench_host_free(a);
    bench_host_free(b);
    bench_host_free(c);
    return 0;
}
