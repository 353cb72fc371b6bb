/*
 * emu_cost.cu - the counting build's counters (tests/cuda-emu/README.md, "The
 * counting build") on kernels whose traffic is known by hand.
 *
 * traffic<<<N / 256, 256>>> (N = 4096 threads, 128 warps):
 *   out[i] = a[i] + b[32 i]: a read coalesced (N * 4 / 32 = 512 sectors in
 *   128 warp requests), b with a stride of 128 bytes (one sector per lane:
 *   N = 4096 sectors in 128 requests); out written coalesced (512 sectors).
 *   atomicAdd(counter, 1) by threads i < K (K = 1000): K global atomics in
 *   ceil(K / 32) = 32 warp instructions, one sector each.
 *   Shared: sh[t] = 0 and out2[...] = sh[t] by the first warp of each of
 *   the 16 blocks (16 requests, one wavefront each); atomicAdd(&sh[t % 32])
 *   by every thread (one bank each: one wavefront per warp) and
 *   atomicAdd(&sh[0]) by every thread (32 lanes on one word: 32 wavefronts).
 * Host: two cudaMemcpy to the device, one launch, one stream
 * synchronisation, one memset, one cudaMemcpy back (into pageable memory).
 * reread<<<16, 256>>>: every block reads the same 256 sectors (b[32 t]):
 * 4096 sectors requested, 256 distinct in the launch.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include "gbt_emu.h"

namespace {

constexpr int N = 4096, THREADS = 256, K = 1000;

__global__ void traffic(const float *a, const float *b, float *out, unsigned *counter, unsigned *out2, int k)
{
    __shared__ unsigned sh[32];
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (threadIdx.x < 32) sh[threadIdx.x] = 0;
    __syncthreads();
    out[i] = a[i] + b[32 * i];
    if (i < k) atomicAdd(counter, 1u);
    atomicAdd(&sh[threadIdx.x % 32], 1u);
    atomicAdd(&sh[0], 1u);
    __syncthreads();
    if (threadIdx.x < 32) out2[blockIdx.x * 32 + threadIdx.x] = sh[threadIdx.x];
}

/* Every block reads b[32 t] for its thread t: 16 blocks x 256 sectors requested, 256 distinct. */
__global__ void reread(const float *b, float *out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = b[32 * threadIdx.x];
}

int failures, tests;

void ok(bool cond, const char *what)
{
    tests++;
    if (!cond) failures++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", tests, what);
}

/* The number after "key": in text (the first occurrence after `from`), -1 when absent. */
long long field(const std::string &text, const char *from, const char *key)
{
    size_t p = from ? text.find(from) : 0;
    if (p == std::string::npos) return -1;
    std::string k = std::string("\"") + key + "\": ";
    p = text.find(k, p);
    if (p == std::string::npos) return -1;
    return atoll(text.c_str() + p + k.size());
}

std::string take(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL || gbt_emu_cost_take(f) != 0) {
        printf("Bail out! gbt_emu_cost_take failed (not the counting build?)\n");
        exit(1);
    }
    fclose(f);
    std::string s(buf, len);
    free(buf);
    return s;
}

} // namespace

int main(void)
{
    float *a, *b, *out;
    unsigned *counter, *out2;
    cudaStream_t st;
    float *ha = (float *)malloc(sizeof(float) * 32 * N);
    unsigned got = 0;
    for (int i = 0; i < 32 * N; i++) ha[i] = 1.0f;
    printf("1..24\n");
    if (cudaMalloc((void **)&a, sizeof(float) * N) != cudaSuccess ||
        cudaMalloc((void **)&b, sizeof(float) * 32 * N) != cudaSuccess ||
        cudaMalloc((void **)&out, sizeof(float) * N) != cudaSuccess ||
        cudaMalloc((void **)&counter, sizeof(unsigned)) != cudaSuccess ||
        cudaMalloc((void **)&out2, sizeof(unsigned) * 32 * (N / THREADS)) != cudaSuccess ||
        cudaStreamCreate(&st) != cudaSuccess) {
        printf("Bail out! cannot set up the emulated device\n");
        return 1;
    }
    (void)take(); /* the allocations' and stream's calls */

    cudaMemcpy(a, ha, sizeof(float) * N, cudaMemcpyHostToDevice);
    cudaMemcpy(b, ha, sizeof(float) * 32 * N, cudaMemcpyHostToDevice);
    cudaMemsetAsync(counter, 0, sizeof(unsigned), st);
    traffic<<<N / THREADS, THREADS, 0, st>>>(a, b, out, counter, out2, K);
    cudaStreamSynchronize(st);
    const std::string r = take();
    cudaMemcpy(&got, counter, sizeof got, cudaMemcpyDeviceToHost);
    const std::string back = take();
    /* the same lines of b read by every block: requested 16 times, distinct once */
    reread<<<N / THREADS, THREADS, 0, st>>>(b, out);
    cudaStreamSynchronize(st);
    const std::string rr = take();
    fprintf(stderr, "# %s# %s", r.c_str(), back.c_str());

    ok(field(r, "\"traffic\"", "launches") == 1, "one launch");
    ok(field(r, "\"traffic\"", "blocks") == N / THREADS, "16 blocks");
    ok(field(r, "\"traffic\"", "gld_req") == 2 * N / 32, "global loads: 2 requests per warp");
    ok(field(r, "\"traffic\"", "gld_sec") == N * 4 / 32 + N,
       "global load sectors: N*4/32 coalesced + N with stride 32");
    ok(field(r, "\"traffic\"", "gld_bytes") == 2 * 4 * N, "global load bytes asked: 2 floats per thread");
    ok(field(r, "\"traffic\"", "gld_uniq") == N * 4 / 32 + N, "distinct load sectors: each read once");
    ok(field(r, "\"traffic\"", "gst_req") == N / 32 + N / THREADS,
       "global stores: 1 request per warp, 1 per block for out2");
    ok(field(r, "\"traffic\"", "gst_sec") == N * 4 / 32 + 16 * 32 * 4 / 32,
       "global store sectors: out coalesced, out2 (16 blocks x 32 words)");
    ok(field(r, "\"traffic\"", "gat") == K, "K global atomics");
    ok(field(r, "\"traffic\"", "gat_req") == (K + 31) / 32, "global atomics: ceil(K/32) warp instructions");
    ok(field(r, "\"traffic\"", "gat_sec") == (K + 31) / 32, "global atomics: one sector per warp");
    ok(field(r, "\"traffic\"", "sat") == 2 * N, "shared atomics: two per thread");
    ok(field(r, "\"traffic\"", "sat_req") == 2 * N / 32, "shared atomics: two warp instructions per warp");
    ok(field(r, "\"traffic\"", "sat_wav") == N / 32 * (1 + 32),
       "shared atomic wavefronts: 1 (one lane per bank) + 32 (one word)");
    ok(field(r, "\"traffic\"", "sst_req") == N / THREADS && field(r, "\"traffic\"", "sst_wav") == N / THREADS,
       "shared stores: one conflict-free request per block");
    ok(field(r, "\"traffic\"", "sld_req") == N / THREADS && field(r, "\"traffic\"", "sld_wav") == N / THREADS,
       "shared loads: one conflict-free request per block");
    ok(field(r, "\"host\"", "copy_h2d") == 2 && field(r, "\"host\"", "copy_h2d_bytes") == 4 * N + 4 * 32 * N,
       "two copies to the device, their bytes");
    ok(field(r, "\"host\"", "sync_copy") == 2, "two synchronous copies");
    ok(field(r, "\"host\"", "sync_stream") == 1 && field(r, "\"host\"", "sync_event") == 0 &&
           field(r, "\"host\"", "sync_device") == 0,
       "one stream synchronisation");
    ok(field(r, "\"host\"", "memset") == 1 && field(r, "\"host\"", "memset_bytes") == 4, "one memset of 4 bytes");
    ok(field(back, "\"host\"", "copy_d2h") == 1 && field(back, "\"host\"", "copy_d2h_bytes") == 4 &&
           field(back, "\"host\"", "sync_copy") == 1,
       "a copy back into pageable memory: one copy, one wait");
    ok(field(back, NULL, "launches") == -1, "the counters were cleared by the take");
    ok(got == (unsigned)K, "the kernel ran (K atomic adds)");
    ok(field(rr, "\"reread\"", "gld_sec") == N && field(rr, "\"reread\"", "gld_uniq") == THREADS,
       "sectors read again by other blocks: requested each time, distinct once per launch");
    cudaFree(a);
    cudaFree(b);
    cudaFree(out);
    cudaFree(counter);
    cudaFree(out2);
    cudaStreamDestroy(st);
    free(ha);
    return failures ? 1 : 0;
}
