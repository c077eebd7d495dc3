/* bench_opencl.c: bench.cu's three launches of 2^N threads, written in
 * OpenCL, for an OpenCL implementation on the CPU (PoCL, Debian's
 * pocl-opencl-icd) to run side by side with the cpu backend (make bench-cpu).
 *   bench_opencl [threads-log2 [runs]]   defaults 20 and 7
 * Prints, per kernel, the median CPU time per work-item (the process's CPU
 * time, every core PoCL's threads used added up, as bench.cu counts its
 * own) and the time on the clock, in the same words as bench.cu, so that
 * tests/backend/bench-cpu.sh can put the two side by side.  The results
 * are checked, so that a kernel the implementation skips or gets wrong
 * cannot pass for a fast one. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_clock.h"

static const char *source =
    "__kernel void no_barriers(__global const float *in, __global float *out)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = 2.0f * in[i];\n"
    "}\n"
    "__kernel void one_barrier(__global const float *in, __global float *out)\n"
    "{\n"
    "    __local float cache[256];\n"
    "    int t = get_local_id(0), i = get_global_id(0);\n"
    "    cache[t] = in[i];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[i] = cache[get_local_size(0) - 1 - t];\n"
    "}\n"
    "__kernel void eight_barriers(__global const float *in, __global float *out)\n"
    "{\n"
    "    __local float cache[256];\n"
    "    int t = get_local_id(0), i = get_global_id(0);\n"
    "    cache[t] = in[i];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int s = 128; s > 0; s /= 2) {\n"
    "        if (t < s)\n"
    "            cache[t] += cache[t + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[get_group_id(0)] = cache[0];\n"
    "}\n";

static void need(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "bench_opencl: %s failed (OpenCL error %d)\n", what, err);
        exit(2);
    }
}

enum { BLOCK = 256, MAX_RUNS = 99 };

int main(int argc, char **argv)
{
    int log2n = argc > 1 ? atoi(argv[1]) : 20, runs = argc > 2 ? atoi(argv[2]) : 7;
    runs = runs < 1 ? 1 : runs > MAX_RUNS ? MAX_RUNS : runs;
    size_t n = (size_t)1 << log2n, block = n < BLOCK ? n : BLOCK;
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    need(clGetPlatformIDs(1, &platform, 0), "clGetPlatformIDs (no OpenCL implementation installed?)");
    need(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, 0), "clGetDeviceIDs (no CPU device)");
    char name[256] = "";
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof name, name, 0);
    printf("OpenCL platform: %s\n", name);
    cl_context context = clCreateContext(0, 1, &device, 0, 0, &err);
    need(err, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    need(err, "clCreateCommandQueue");
    cl_program program = clCreateProgramWithSource(context, 1, &source, 0, &err);
    need(err, "clCreateProgramWithSource");
    need(clBuildProgram(program, 1, &device, "", 0, 0), "clBuildProgram");

    float *host = malloc(n * sizeof *host);
    for (size_t i = 0; i < n; i++)
        host[i] = (float)(i % 7);
    cl_mem in = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *host, host, &err);
    need(err, "clCreateBuffer");
    cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof *host, 0, &err);
    need(err, "clCreateBuffer");

    static const char *kernels[] = {"no_barriers", "one_barrier", "eight_barriers"};
    static const char *labels[] = {"no barrier:", "1 barrier:", "8 barriers:"};
    int wrong = 0;
    for (int k = 0; k < 3; k++) {
        cl_kernel kernel = clCreateKernel(program, kernels[k], &err);
        need(err, "clCreateKernel");
        need(clSetKernelArg(kernel, 0, sizeof in, &in), "clSetKernelArg");
        need(clSetKernelArg(kernel, 1, sizeof out, &out), "clSetKernelArg");
        double cpu[MAX_RUNS], wall[MAX_RUNS];
        for (int r = -1; r < runs; r++) { /* run -1: PoCL compiles the kernel for this work-group size */
            double c0 = cpu_s(), w0 = now_s();
            need(clEnqueueNDRangeKernel(queue, kernel, 1, 0, &n, &block, 0, 0, 0), "clEnqueueNDRangeKernel");
            need(clFinish(queue), "clFinish");
            if (r >= 0) {
                cpu[r] = cpu_s() - c0;
                wall[r] = now_s() - w0;
            }
        }
        need(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, n * sizeof *host, host, 0, 0, 0), "clEnqueueReadBuffer");
        /* what each kernel leaves in out, from in[i] = i % 7 */
        for (size_t i = 0; i < (k == 2 ? n / block : n); i++) {
            float want;
            if (k == 0) {
                want = 2.0f * (float)(i % 7);
            } else if (k == 1) {
                size_t j = i / block * block + (block - 1 - i % block);
                want = (float)(j % 7);
            } else {
                want = 0;
                for (size_t j = i * block; j < (i + 1) * block; j++)
                    want += (float)(j % 7);
            }
            wrong += host[i] != want;
        }
        printf("2^%d threads, %-13s %7.2f ns CPU per thread (%6.2f on the clock; median of %d)\n", log2n, labels[k],
               median(cpu, runs) / n * 1e9, median(wall, runs) / n * 1e9, runs);
        clReleaseKernel(kernel);
    }
    if (wrong)
        fprintf(stderr, "bench_opencl: %d results are wrong\n", wrong);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(host);
    return wrong ? 1 : 0;
}
