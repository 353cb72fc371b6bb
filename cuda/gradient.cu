/*
 * gradient.cu - per-row gradients from the shared math (common/), row
 * subsampling, and their fixed-point form.
 *
 *   grad_rows   a thread per row: gbt_row_weight, gbt_row_sampled,
 *               gbt_row_gradients into g and h (K > 1; a multi-target
 *               model's T = K labels a row: gbt_target_gradients)
 *   grad_max1   (K == 1) the same per row, keeping only the maxima of
 *               |g| and |h| (nothing stored)
 *   grad_quant1 (K == 1) the same per row again, straight into the
 *               fixed-point pairs and their totals: computing g and h
 *               twice costs less than writing them and reading them back
 *               (16 bytes a row each way), and the same function of the
 *               same inputs gives the same bits
 *   rank_groups (ranking objectives, instead of grad_rows) a thread per
 *               query group: gbt_rank_group_gradients, then 0 for the rows
 *               gbt_row_sampled rejects
 *   grad_max    (K > 1, ranking, host gradients) per class the largest
 *               |g| and |h| (an exact max: the bit
 *               patterns of non-negative doubles order as the values do,
 *               so a 64-bit atomicMax computes it in any order)
 *   grad_quant  gbt_quant_exponent of the maxima, gbt_quantize, and the
 *               exact int64 totals (64-bit integer atomics)
 * The maxima and totals come back to the host in one copy: one host
 * synchronisation per round.  gbt_cu_set_gradients takes the doubles
 * from the host instead of grad_rows (custom and survival objectives) and
 * quantises them the same way.
 */
#include <string.h>

#include "common/rank_math.h"
#include "common/rng.h"
/*
 * The survival math compiles here too, so that nvcc checks it: its
 * gradients are computed on the host for every backend today and come in
 * through gbt_cu_set_gradients (docs/decisions.md, "Survival gradients").
 */
#include "common/surv_math.h"
#include "cu_internal.cuh"

namespace {

typedef unsigned long long ull;

__device__ __forceinline__ ull bits_of(double v)
{
    return (ull)__double_as_longlong(v);
}

__device__ __forceinline__ double value_of(ull b)
{
    return __longlong_as_double((long long)b);
}

/* |v| into the running maximum m: exactly the CPU's (NaN never wins, -0 loses to 0). */
__device__ __forceinline__ void max_abs(double v, double *m)
{
    if (v < 0) v = -v;
    if (v > *m) *m = v;
}

/* The warp's largest gm and hm (+0 or positive: their bits order as their values) into maxima. */
__device__ __forceinline__ void warp_max(double gm, double hm, ull *gmax, ull *hmax)
{
    ull gb = bits_of(gm), hb = bits_of(hm);
    for (int off = 16; off > 0; off >>= 1) {
        ull go = __shfl_xor_sync(0xffffffffu, gb, off), ho = __shfl_xor_sync(0xffffffffu, hb, off);
        if (go > gb) gb = go;
        if (ho > hb) hb = ho;
    }
    if (threadIdx.x % 32 == 0) {
        if (gb) atomicMax(gmax, gb);
        if (hb) atomicMax(hmax, hb);
    }
}

/* The warp's sums of sg and sh added to *gs and *hs (64-bit integers: exact in any order). */
__device__ __forceinline__ void warp_sums(long long sg, long long sh, ull *gs, ull *hs)
{
    for (int off = 16; off > 0; off >>= 1) {
        sg += __shfl_xor_sync(0xffffffffu, sg, off);
        sh += __shfl_xor_sync(0xffffffffu, sh, off);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(gs, (ull)sg);
        atomicAdd(hs, (ull)sh);
    }
}

/*
 * Row r's weighted (0: not sampled) gradients and hessians of its K outputs
 * into g[k * stride] and h[k * stride] (gbt_row_gradients; multi-target,
 * T == K labels per row: gbt_target_gradients).
 */
__device__ __forceinline__ void row_gh(int obj, const struct gbt_obj_param &op, int K, int T, const double *margin,
                                       const float *label, const float *weight, uint64_t seed, int round,
                                       double subsample, uint64_t row_base, uint64_t r, double *g,
                                       double *h, uint64_t stride)
{
    const int in = gbt_row_sampled(seed, round, row_base + r, subsample);
    if (T > 1) {
        gbt_target_gradients(obj, &op, K, margin + r * (uint64_t)K, 1, label + r * (uint64_t)T,
                             in && weight ? (double)weight[r] : in ? 1.0 : 0.0, g, h, stride);
        return;
    }
    double w = gbt_row_weight(label[r], weight ? weight[r] : 1.0, op.scale_pos);
    if (!in) w = 0.0;
    gbt_row_gradients(obj, &op, K, margin + r * (uint64_t)K, 1, label[r], w, g, h, stride);
}

/* K outputs: g and h of every row and class (class k's at k * n). */
__global__ void __launch_bounds__(256, 4)
    grad_rows(int obj, struct gbt_obj_param op, int K, int T, uint64_t n, const double *margin,
              const float *label, const float *weight, uint64_t seed, int round,
              double subsample, uint64_t row_base, double *g, double *h)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < n;
         r += (uint64_t)gridDim.x * blockDim.x)
        row_gh(obj, op, K, T, margin, label, weight, seed, round, subsample, row_base, r, g + r, h + r, n);
}

/* One output: the largest |g| and |h| into maxima[0] and maxima[1]. */
__global__ void __launch_bounds__(256, 4)
    grad_max1(int obj, struct gbt_obj_param op, uint64_t n, const double *margin,
              const float *label, const float *weight, uint64_t seed, int round,
              double subsample, uint64_t row_base, ull *maxima)
{
    double gm = 0.0, hm = 0.0;
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < n;
         r += (uint64_t)gridDim.x * blockDim.x) {
        double gv, hv;
        row_gh(obj, op, 1, 1, margin, label, weight, seed, round, subsample, row_base, r, &gv, &hv, 1);
        max_abs(gv, &gm);
        max_abs(hv, &hm);
    }
    warp_max(gm, hm, &maxima[0], &maxima[1]);
}

__global__ void __launch_bounds__(64, 12)
    rank_groups(int obj, struct gbt_obj_param op, uint64_t n, uint64_t ngroups,
                const uint32_t *group_ptr, const double *margin, const float *label,
                const float *weight, uint64_t seed, int round, double subsample,
                uint64_t row_base, uint64_t group_base, uint32_t *idx, double *stat,
                const double *bias, double *g, double *h)
{
    for (uint64_t grp = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; grp < ngroups;
         grp += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t b = group_ptr[grp], cnt = group_ptr[grp + 1] - b;
        struct gbt_rank_scratch s;
        struct gbt_rank_bias ub;
        const double w = (weight ? (double)weight[b] : 1.0) * op.rank_wnorm;
        /* bias (lambdarank_unbiased): ti+, tj- (rank_npos each), then li and lj (n each) */
        ub.tplus = bias;
        ub.tminus = bias + op.rank_npos;
        ub.li = bias ? (double *)bias + 2 * (uint64_t)op.rank_npos + b : NULL;
        ub.lj = bias ? (double *)bias + 2 * (uint64_t)op.rank_npos + n + b : NULL;
        ub.npos = op.rank_npos;
        s.order = idx + b;
        s.tmp = idx + n + b;
        s.lorder = idx + 2 * n + b;
        s.nrel = stat + b;
        s.acc = stat + n + b;
        gbt_rank_group_gradients(obj, &op, seed, round, group_base + grp, cnt, margin + b, label + b,
                                 w, &s, bias ? &ub : NULL, g + b, h + b);
        for (uint32_t i = 0; i < cnt; i++)
            if (!gbt_row_sampled(seed, round, row_base + b + i, subsample)) {
                g[b + i] = 0.0;
                h[b + i] = 0.0;
            }
    }
}

/* Blocks [k * per, (k+1) * per) work on class k.  maxima: K for g, then K for h. */
__global__ void __launch_bounds__(256, 8)
    grad_max(const double *g, const double *h, uint64_t n, unsigned per, ull *maxima,
             int K)
{
    const int k = (int)(blockIdx.x / per);
    const uint64_t b = blockIdx.x % per;
    const double *gs = g + (uint64_t)k * n, *hs = h + (uint64_t)k * n;
    double gm = 0.0, hm = 0.0;
    for (uint64_t r = b * blockDim.x + threadIdx.x; r < n; r += (uint64_t)per * blockDim.x) {
        max_abs(gs[r], &gm);
        max_abs(hs[r], &hm);
    }
    warp_max(gm, hm, &maxima[k], &maxima[K + k]);
}

/* Fixed-point pairs and their totals (sums: K for g, then K for h). */
__global__ void __launch_bounds__(256, 8)
    grad_quant(const double *g, const double *h, uint64_t n, unsigned per,
               const ull *maxima, int K, struct gbt_gpair *q, ull *sums)
{
    const int k = (int)(blockIdx.x / per);
    const uint64_t b = blockIdx.x % per;
    const double gsc = gbt_quant_scale(gbt_quant_exponent(value_of(maxima[k])));
    const double hsc = gbt_quant_scale(gbt_quant_exponent(value_of(maxima[K + k])));
    const double *gs = g + (uint64_t)k * n, *hs = h + (uint64_t)k * n;
    struct gbt_gpair *qs = q + (uint64_t)k * n;
    long long sg = 0, sh = 0;
    for (uint64_t r = b * blockDim.x + threadIdx.x; r < n; r += (uint64_t)per * blockDim.x) {
        struct gbt_gpair p;
        p.g = gbt_quantize_scaled(gs[r], gsc);
        p.h = gbt_quantize_scaled(hs[r], hsc);
        qs[r] = p;
        sg += p.g;
        sh += p.h;
    }
    warp_sums(sg, sh, &sums[k], &sums[K + k]);
}

/* One output: the pairs of grad_quant from the gradients computed again (row_gh). */
__global__ void __launch_bounds__(256, 4)
    grad_quant1(int obj, struct gbt_obj_param op, uint64_t n, const double *margin,
                const float *label, const float *weight, uint64_t seed, int round,
                double subsample, uint64_t row_base, const ull *maxima,
                struct gbt_gpair *q, ull *sums)
{
    const double gsc = gbt_quant_scale(gbt_quant_exponent(value_of(maxima[0])));
    const double hsc = gbt_quant_scale(gbt_quant_exponent(value_of(maxima[1])));
    long long sg = 0, sh = 0;
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < n;
         r += (uint64_t)gridDim.x * blockDim.x) {
        double gv, hv;
        struct gbt_gpair p;
        row_gh(obj, op, 1, 1, margin, label, weight, seed, round, subsample, row_base, r, &gv, &hv, 1);
        p.g = gbt_quantize_scaled(gv, gsc);
        p.h = gbt_quantize_scaled(hv, hsc);
        q[r] = p;
        sg += p.g;
        sh += p.h;
    }
    warp_sums(sg, sh, &sums[0], &sums[1]);
}

} // namespace

using namespace gbt_cu;

/*
 * Distributed training: the maxima (2K bit patterns at `maxima` on the
 * device) to the host, through the hook, and back.
 */
static int reduce_maxima(struct gbt_cu_ctx *c, const struct gbt_max_hook *hook, ull *maxima, char *msg)
{
    const size_t bytes = 2 * (size_t)c->K * sizeof(ull);
    /* the pinned result buffer holds the doubles' own bytes (bits_of) */
    double *v = (double *)c->result_host;
    gbt_status s;
    CU_CHECK(cudaMemcpyAsync(v, maxima, bytes, cudaMemcpyDeviceToHost, c->stream));
    CU_FORWARD(drain(c, msg));
    s = hook->reduce(hook->user, v, 2 * c->K);
    if (s != GBT_OK) return failf(msg, s, "%s", gbt_last_error());
    CU_CHECK(cudaMemcpyAsync(maxima, v, bytes, cudaMemcpyHostToDevice, c->stream));
    CU_FORWARD(drain(c, msg));
    return 0;
}

/*
 * The maxima, fixed-point pairs and totals: of the doubles in c->gtmp and
 * c->htmp, or (one: K == 1, gradients from the margins) of the gradients
 * that grad_max1 and grad_quant1 compute themselves.
 */
static int quantize(struct gbt_cu_ctx *c, const struct gbt_grad_request *one,
                    const struct gbt_max_hook *hook, struct gbt_class_sums *out, char *msg)
{
    const int K = c->K;
    const uint64_t n = c->n;
    ull *maxima = c->sums, *totals = c->sums + 2 * K;
    const ull *res = (const ull *)c->result_host;
    const float *weight = c->has_weight ? c->weight : NULL;
    unsigned per = grid_for(c, n, 256) / (unsigned)K;
    if (per < 1) per = 1;
    if ((uint64_t)per * (uint64_t)K > 0x7fffffffu) per = 0x7fffffffu / (unsigned)K;
    if (one) {
        grad_max1<<<grid_for(c, n, 256), 256, 0, c->stream>>>(c->objective, one->obj, n, c->margin,
                                                               c->label, weight, one->seed, one->round,
                                                               one->subsample, one->row_base, maxima);
        CU_LAUNCHED("grad_max1");
    } else {
        grad_max<<<per * (unsigned)K, 256, 0, c->stream>>>(c->gtmp, c->htmp, n, per, maxima, K);
        CU_LAUNCHED("grad_max");
    }
    if (hook) CU_FORWARD(reduce_maxima(c, hook, maxima, msg));
    if (one) {
        grad_quant1<<<grid_for(c, n, 256), 256, 0, c->stream>>>(
            c->objective, one->obj, n, c->margin, c->label, weight, one->seed, one->round,
            one->subsample, one->row_base, maxima, c->grad, totals);
        CU_LAUNCHED("grad_quant1");
    } else {
        grad_quant<<<per * (unsigned)K, 256, 0, c->stream>>>(c->gtmp, c->htmp, n, per, maxima, K,
                                                             c->grad, totals);
        CU_LAUNCHED("grad_quant");
    }
    CU_CHECK(cudaMemcpyAsync(c->result_host, c->sums, 4 * (size_t)K * sizeof(ull),
                             cudaMemcpyDeviceToHost, c->stream));
    CU_FORWARD(drain(c, msg));
    for (int k = 0; k < K; k++) {
        double gm, hm;
        memcpy(&gm, &res[k], sizeof gm);
        memcpy(&hm, &res[K + k], sizeof hm);
        out[k].g_exp = gbt_quant_exponent(gm);
        out[k].h_exp = gbt_quant_exponent(hm);
        out[k].total.g = (int64_t)res[2 * K + k];
        out[k].total.h = (int64_t)res[3 * K + k];
    }
    return 0;
}

/*
 * The ranking objectives' gradients into gtmp and htmp; lambdarank_unbiased
 * takes the biases to the device and brings each row's li and lj back.
 */
static int rank(struct gbt_cu_ctx *c, const struct gbt_grad_request *req, char *msg)
{
    const uint64_t n = c->n, np = req->obj.rank_npos;
    double *bias = NULL;
    int rc = 0;
    cudaError_t e;
    if (np) {
        e = cudaMalloc((void **)&bias, (2 * np + 2 * n) * sizeof(double));
        if (e != cudaSuccess) return fail(msg, e, "allocating the position biases", __FILE__, __LINE__);
        e = cudaMemcpyAsync(bias, req->rank_tplus, np * sizeof(double), cudaMemcpyHostToDevice, c->stream);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(bias + np, req->rank_tminus, np * sizeof(double), cudaMemcpyHostToDevice,
                                c->stream);
        if (e != cudaSuccess) rc = fail(msg, e, "cudaMemcpyAsync (the position biases)", __FILE__, __LINE__);
    }
    if (rc == 0) {
        rank_groups<<<grid_for(c, c->ngroups, 64), 64, 0, c->stream>>>(
            c->objective, req->obj, n, c->ngroups, c->group_ptr, c->margin, c->label,
            c->has_weight ? c->weight : NULL, req->seed, req->round, req->subsample, req->row_base,
            req->group_base, c->rank_idx, c->rank_stat, bias, c->gtmp, c->htmp);
        e = cudaGetLastError();
        if (e != cudaSuccess) rc = fail(msg, e, "launching rank_groups", __FILE__, __LINE__);
    }
    if (rc == 0 && np) {
        e = cudaMemcpyAsync(req->rank_li, bias + 2 * np, 2 * n * sizeof(double), cudaMemcpyDeviceToHost,
                            c->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
        if (e != cudaSuccess) rc = fail(msg, e, "cudaMemcpyAsync (li and lj)", __FILE__, __LINE__);
    }
    if (bias) (void)cudaFree(bias);
    return rc;
}

extern "C" int gbt_cu_gradients(struct gbt_cu_ctx *c, const struct gbt_grad_request *req,
                                struct gbt_class_sums *out, char *msg)
{
    gbt_cu::device_scope keep;
    const int K = c->K;
    const uint64_t n = c->n;
    CU_FORWARD(use_device(c, msg));
    CU_CHECK(cudaMemsetAsync(c->sums, 0, 4 * (size_t)K * sizeof(ull), c->stream));
    if (gbt_objective_is_ranking(c->objective)) {
        if (c->ngroups == 0)
            return failf(msg, GBT_E_INTERNAL, "ranking objective without query groups");
        int rc = rank(c, req, msg);
        if (rc) return rc;
    } else if (K == 1) {
        return quantize(c, req, req->max_hook, out, msg);
    } else {
        grad_rows<<<grid_for(c, n, 256), 256, 0, c->stream>>>(
            c->objective, req->obj, K, c->T, n, c->margin, c->label, c->has_weight ? c->weight : NULL,
            req->seed, req->round, req->subsample, req->row_base, c->gtmp, c->htmp);
        CU_LAUNCHED("grad_rows");
    }
    return quantize(c, NULL, req->max_hook, out, msg);
}

extern "C" int gbt_cu_set_gradients(struct gbt_cu_ctx *c, const double *g, const double *h,
                                    const struct gbt_max_hook *hook, struct gbt_class_sums *out,
                                    char *msg)
{
    gbt_cu::device_scope keep;
    const size_t bytes = (size_t)c->n * (size_t)c->K * sizeof(double);
    CU_FORWARD(use_device(c, msg));
    CU_CHECK(cudaMemsetAsync(c->sums, 0, 4 * (size_t)c->K * sizeof(ull), c->stream));
    CU_CHECK(cudaMemcpyAsync(c->gtmp, g, bytes, cudaMemcpyHostToDevice, c->stream));
    CU_CHECK(cudaMemcpyAsync(c->htmp, h, bytes, cudaMemcpyHostToDevice, c->stream));
    return quantize(c, NULL, hook, out, msg);
}
