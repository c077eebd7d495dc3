/* libraries.cu: the libraries and the device limits the labs are compared
 * with (see libraries.h).  CUB is header-only (CCCL, shipped with CUDA);
 * cuBLAS links with -lcublas. */
#include "libraries.h"

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "kit_program.h"

#define CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)
static void check_cublas(cublasStatus_t status, const char *what, const char *file, int line)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        kit_fail(file, line, "%s failed: cuBLAS status %d", what, (int)status);
}

/* ---- Host memory, the device ----------------------------------------------- */

extern "C" void *bench_host_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMallocHost(&p, bytes ? bytes : 1));
    return p;
}

extern "C" void bench_host_free(void *p) { CHECK(cudaFreeHost(p)); }

extern "C" float *bench_device_copy(const float *host, size_t n) { return kit_device_floats(host, n); }

extern "C" void bench_device_poison(float *device, size_t n)
{
    CHECK(cudaMemset(device, 0xff, n * sizeof(float))); /* NaN */
}

extern "C" void bench_device_download(float *host, const float *device, size_t n)
{
    CHECK(cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost));
}

extern "C" void bench_device_free(float *device) { CHECK(cudaFree(device)); }

extern "C" long bench_l2_bytes(void)
{
    int device = 0, bytes = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
    return bytes;
}

extern "C" int bench_sm_count(void)
{
    int device = 0, count = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
}

/* ---- Timing one call between two events ------------------------------------- */

static cudaEvent_t run_started, run_finished;

static void start_run(void)
{
    if (!run_started) {
        CHECK(cudaEventCreate(&run_started));
        CHECK(cudaEventCreate(&run_finished));
    }
    CHECK(cudaEventRecord(run_started, 0));
}

static double finish_run(void)
{
    float ms = 0;
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(run_finished, 0));
    CHECK(cudaEventSynchronize(run_finished));
    CHECK(cudaEventElapsedTime(&ms, run_started, run_finished));
    return ms;
}

/* ---- Inputs: uploaded before each run (warm), or rotated copies (cold) ------- */

typedef struct {
    const void *host[2];  /* the inputs on the host */
    size_t bytes[2];
    int count;            /* 1 or 2 inputs */
    size_t slice;         /* bytes of one copy of all inputs, rounded up to 256 */
    int copies;           /* device copies of the inputs */
    int next;             /* the copy the next run uses */
    int warm;
    char *pool;           /* copies * slice bytes of device memory */
} input_set;

static void inputs_init(input_set *in, int warm, const void *x, size_t x_bytes, const void *y, size_t y_bytes)
{
    memset(in, 0, sizeof *in);
    in->host[0] = x, in->bytes[0] = x_bytes;
    in->host[1] = y, in->bytes[1] = y_bytes;
    in->count = y ? 2 : 1;
    in->warm = warm;
    in->slice = (x_bytes + 255) / 256 * 256 + (y_bytes + 255) / 256 * 256;
    /* Cold: enough copies that the ones a run did not just use fill L2 three times over. */
    size_t enough = 3 * (size_t)bench_l2_bytes();
    in->copies = warm || in->slice >= enough ? 1 : (int)((enough + in->slice - 1) / in->slice) + 1;
    CHECK(cudaMalloc(&in->pool, in->slice * in->copies));
    for (int c = 0; c < in->copies; c++)
        for (int i = 0; i < in->count; i++)
            CHECK(cudaMemcpy(in->pool + c * in->slice + (i ? (x_bytes + 255) / 256 * 256 : 0), in->host[i],
                             in->bytes[i], cudaMemcpyHostToDevice));
}

/* The copy the next run reads: freshly uploaded when warm, else the next in turn. */
static void inputs_prepare(input_set *in, const void **x, const void **y)
{
    char *base;
    if (in->warm) {
        base = in->pool;
        for (int i = 0; i < in->count; i++)
            CHECK(cudaMemcpy(base + (i ? (in->bytes[0] + 255) / 256 * 256 : 0), in->host[i], in->bytes[i],
                             cudaMemcpyHostToDevice));
    } else {
        base = in->pool + in->next * in->slice;
        in->next = (in->next + 1) % in->copies;
    }
    *x = base;
    *y = in->count > 1 ? base + (in->bytes[0] + 255) / 256 * 256 : NULL;
}

static void inputs_free(input_set *in) { CHECK(cudaFree(in->pool)); }

/* ---- The streaming ceiling --------------------------------------------------- */

typedef struct {
    char *source, *destination; /* copies * bytes each */
    size_t bytes;
    int copies, next;
} copy_run;

static double copy_once(void *context, char *note)
{
    (void)note;
    copy_run *r = (copy_run *)context;
    size_t offset = (size_t)r->next * r->bytes;
    r->next = (r->next + 1) % r->copies;
    start_run();
    CHECK(cudaMemcpy(r->destination + offset, r->source + offset, r->bytes, cudaMemcpyDeviceToDevice));
    return finish_run();
}

extern "C" bench_result lib_copy(size_t n, const bench_plan *plan)
{
    copy_run r;
    memset(&r, 0, sizeof r);
    r.bytes = n * sizeof(float);
    size_t enough = 3 * (size_t)bench_l2_bytes();
    r.copies = 2 * r.bytes >= enough ? 1 : (int)((enough + 2 * r.bytes - 1) / (2 * r.bytes)) + 1;
    size_t total = r.bytes * r.copies;

    /* Source: seeded data; destination: poisoned (all bits set: NaN). */
    float *host = (float *)bench_host_alloc(r.bytes);
    kit_fill_uniform(host, n, -1.0f, 1.0f, 7);
    CHECK(cudaMalloc(&r.source, total));
    CHECK(cudaMalloc(&r.destination, total));
    for (int c = 0; c < r.copies; c++)
        CHECK(cudaMemcpy(r.source + c * r.bytes, host, r.bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(r.destination, 0xff, total));

    bench_result result = bench_repeat(plan, copy_once, &r);

    /* Every copy that ran must hold the source now. */
    float *back = (float *)bench_host_alloc(r.bytes);
    int used = result.runs + plan->warmups < r.copies ? result.runs + plan->warmups : r.copies;
    for (int c = 0; c < used && result.ok; c++) {
        CHECK(cudaMemcpy(back, r.destination + c * r.bytes, r.bytes, cudaMemcpyDeviceToHost));
        if (memcmp(back, host, r.bytes) != 0) {
            result.ok = 0;
            snprintf(result.note, sizeof result.note, "wrong: copy %d does not match its source", c);
        }
    }
    bench_host_free(back);
    bench_host_free(host);
    CHECK(cudaFree(r.source));
    CHECK(cudaFree(r.destination));
    return result;
}

/* ---- The cost of one launch ------------------------------------------------------ */

static __global__ void empty_kernel(int *never_written)
{
    if (never_written && threadIdx.x > blockDim.x) /* never true: keeps the launch honest */
        *never_written = 1;
}

static double empty_launch_once(void *context, char *note)
{
    (void)context, (void)note;
    kit_reset_records();
    LAUNCH(empty_kernel, 1, 256, 0, (int *)NULL);
    return kit_timed_ms();
}

extern "C" bench_result lib_empty_launch(const bench_plan *plan)
{
    kit_set_timing(1);
    return bench_repeat(plan, empty_launch_once, NULL);
}

/* ---- Writing back L2 ------------------------------------------------------------------ */

static __global__ void read_all(const float4 *scratch, size_t count, float *never_written)
{
    float sum = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        sum += scratch[i].x;
    if (sum == 1234.5f && never_written) /* keeps the loads; never true on the zeros read */
        *never_written = sum;
}

extern "C" void bench_write_back_l2(void)
{
    static float4 *scratch;
    static size_t count;
    if (!scratch) {
        count = 2 * (size_t)bench_l2_bytes() / sizeof(float4);
        CHECK(cudaMalloc(&scratch, count * sizeof(float4)));
        CHECK(cudaMemset(scratch, 0, count * sizeof(float4)));
    }
    read_all<<<4 * bench_sm_count(), 256>>>(scratch, count, NULL);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
}

/* ---- CUB DeviceReduce ---------------------------------------------------------------- */

enum reduction { SUM_INTS, SUM_FLOATS, MAX_FLOATS };

typedef struct {
    enum reduction what;
    input_set in;
    size_t n;
    void *temp;
    size_t temp_bytes;
    void *result;        /* one int or float on the device */
    long long exact_int;
    double exact, abs_sum;
} reduce_run;

static void cub_reduce(reduce_run *r, const void *x)
{
    int n = (int)r->n;
    switch (r->what) {
    case SUM_INTS:
        CHECK(cub::DeviceReduce::Sum(r->temp, r->temp_bytes, (const int *)x, (int *)r->result, n));
        break;
    case SUM_FLOATS:
        CHECK(cub::DeviceReduce::Sum(r->temp, r->temp_bytes, (const float *)x, (float *)r->result, n));
        break;
    case MAX_FLOATS:
        CHECK(cub::DeviceReduce::Max(r->temp, r->temp_bytes, (const float *)x, (float *)r->result, n));
        break;
    }
}

static double reduce_once(void *context, char *note)
{
    reduce_run *r = (reduce_run *)context;
    const void *x, *unused;
    inputs_prepare(&r->in, &x, &unused);
    CHECK(cudaMemset(r->result, 0xff, sizeof(float))); /* NaN, or the int -1 */
    start_run();
    cub_reduce(r, x);
    double ms = finish_run();

    int got_int = 0;
    float got = 0;
    if (r->what == SUM_INTS) {
        CHECK(cudaMemcpy(&got_int, r->result, sizeof got_int, cudaMemcpyDeviceToHost));
        if (got_int != r->exact_int) {
            snprintf(note, 200, "wrong: %d but the sum is %lld", got_int, r->exact_int);
            return -1;
        }
        return ms;
    }
    CHECK(cudaMemcpy(&got, r->result, sizeof got, cudaMemcpyDeviceToHost));
    if (r->what == MAX_FLOATS) {
        if (!(got == (float)r->exact)) {
            snprintf(note, 200, "wrong: %.9g but the maximum is %.9g", got, r->exact);
            return -1;
        }
        return ms;
    }
    return bench_check_sum(got, r->exact, r->abs_sum, 2000, note) ? ms : -1;
}

static bench_result reduce(reduce_run *r, const void *x, size_t element_bytes, int warm, const bench_plan *plan)
{
    inputs_init(&r->in, warm, x, r->n * element_bytes, NULL, 0);
    CHECK(cudaMalloc(&r->result, sizeof(float)));
    r->temp = NULL;
    cub_reduce(r, r->in.pool); /* with no temp storage: asks how much it needs */
    CHECK(cudaMalloc(&r->temp, r->temp_bytes ? r->temp_bytes : 1));
    bench_result result = bench_repeat(plan, reduce_once, r);
    CHECK(cudaFree(r->temp));
    CHECK(cudaFree(r->result));
    inputs_free(&r->in);
    return result;
}

extern "C" bench_result lib_sum_ints(const int *x, size_t n, int warm, long long exact, const bench_plan *plan)
{
    reduce_run r;
    memset(&r, 0, sizeof r);
    r.what = SUM_INTS, r.n = n, r.exact_int = exact;
    return reduce(&r, x, sizeof(int), warm, plan);
}

extern "C" bench_result lib_sum_floats(const float *x, size_t n, int warm, double exact, double abs_sum,
                                       const bench_plan *plan)
{
    reduce_run r;
    memset(&r, 0, sizeof r);
    r.what = SUM_FLOATS, r.n = n, r.exact = exact, r.abs_sum = abs_sum;
    return reduce(&r, x, sizeof(float), warm, plan);
}

extern "C" bench_result lib_max_floats(const float *x, size_t n, int warm, float exact, const bench_plan *plan)
{
    reduce_run r;
    memset(&r, 0, sizeof r);
    r.what = MAX_FLOATS, r.n = n, r.exact = exact;
    return reduce(&r, x, sizeof(float), warm, plan);
}

/* ---- cuBLAS ------------------------------------------------------------------------- */

static cublasHandle_t blas(void)
{
    static cublasHandle_t handle;
    if (!handle) {
        CHECK_CUBLAS(cublasCreate(&handle));
        /* Plain FP32: no TF32 or other reduced-precision tensor-core modes. */
        CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    }
    return handle;
}

typedef struct {
    input_set in;
    size_t n;
    float *result;
    double exact, abs_sum;
} dot_run;

static double dot_once(void *context, char *note)
{
    dot_run *r = (dot_run *)context;
    const void *x, *y;
    inputs_prepare(&r->in, &x, &y);
    CHECK(cudaMemset(r->result, 0xff, sizeof(float)));
    start_run();
    CHECK_CUBLAS(cublasSdot(blas(), (int)r->n, (const float *)x, 1, (const float *)y, 1, r->result));
    double ms = finish_run();
    float got = 0;
    CHECK(cudaMemcpy(&got, r->result, sizeof got, cudaMemcpyDeviceToHost));
    return bench_check_sum(got, r->exact, r->abs_sum, 2000, note) ? ms : -1;
}

extern "C" bench_result lib_dot(const float *x, const float *y, size_t n, int warm, double exact, double abs_sum,
                                const bench_plan *plan)
{
    dot_run r;
    memset(&r, 0, sizeof r);
    r.n = n, r.exact = exact, r.abs_sum = abs_sum;
    inputs_init(&r.in, warm, x, n * sizeof(float), y, n * sizeof(float));
    CHECK(cudaMalloc(&r.result, sizeof(float)));
    /* The result stays on the device, so the call does not wait to copy it back. */
    CHECK_CUBLAS(cublasSetPointerMode(blas(), CUBLAS_POINTER_MODE_DEVICE));
    bench_result result = bench_repeat(plan, dot_once, &r);
    CHECK_CUBLAS(cublasSetPointerMode(blas(), CUBLAS_POINTER_MODE_HOST));
    CHECK(cudaFree(r.result));
    inputs_free(&r.in);
    return result;
}

/* Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first. */
static void sgemm(const float *d_a, const float *d_b, float *d_c, int m, int k, int n)
{
    const float one = 1.0f, zero = 0.0f;
    CHECK_CUBLAS(cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, d_b, n, d_a, k, &zero, d_c, n));
}

typedef struct {
    const float *d_a, *d_b;
    float *d_c, *c;            /* device and host results */
    int m, k, n;
    const float *expected, *bound;
} sgemm_run;

static double sgemm_once(void *context, char *note)
{
    sgemm_run *r = (sgemm_run *)context;
    size_t count = (size_t)r->m * r->n;
    CHECK(cudaMemset(r->d_c, 0xff, count * sizeof(float)));
    start_run();
    sgemm(r->d_a, r->d_b, r->d_c, r->m, r->k, r->n);
    double ms = finish_run();
    CHECK(cudaMemcpy(r->c, r->d_c, count * sizeof(float), cudaMemcpyDeviceToHost));
    return bench_check_matrix(r->c, r->expected, r->bound, r->m, r->n, note) ? ms : -1;
}

extern "C" void lib_sgemm_once(const float *a, const float *b, float *c, int m, int k, int n)
{
    float *d_a = bench_device_copy(a, (size_t)m * k), *d_b = bench_device_copy(b, (size_t)k * n);
    float *d_c = bench_device_copy(NULL, (size_t)m * n);
    sgemm(d_a, d_b, d_c, m, k, n);
    CHECK(cudaMemcpy(c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
}

/* A product this size is bound by arithmetic, not by where its inputs sit:
 * they are uploaded once. */
extern "C" bench_result lib_sgemm(const float *a, const float *b, int m, int k, int n, const float *expected,
                                  const float *bound, const bench_plan *plan)
{
    sgemm_run r;
    r.d_a = bench_device_copy(a, (size_t)m * k);
    r.d_b = bench_device_copy(b, (size_t)k * n);
    r.d_c = bench_device_copy(NULL, (size_t)m * n);
    r.c = (float *)bench_host_alloc((size_t)m * n * sizeof(float));
    r.m = m, r.k = k, r.n = n, r.expected = expected, r.bound = bound;
    bench_result result = bench_repeat(plan, sgemm_once, &r);
    bench_host_free(r.c);
    CHECK(cudaFree((void *)r.d_a));
    CHECK(cudaFree((void *)r.d_b));
    CHECK(cudaFree(r.d_c));
    return result;
}
