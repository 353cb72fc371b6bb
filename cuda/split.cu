/*
 * split.cu - the best split of each node of a batch.
 *
 * split_features: block (job, chunk) takes a chunk of the features; each
 * warp scans one feature at a time: the sum of its value bins (missing =
 * node total - that sum, as on the CPU), then an inclusive prefix of the
 * bins in tiles of 32 with a CUB warp scan, each lane scoring its bin's
 * candidates (common/split_math.h).  Lanes, warps and then split_final
 * (one block per job, over the chunks) keep the first candidate in the
 * total order of gbt_split_before.  Because that order is total and the
 * sums are exact integers, every reduction order gives the CPU's answer.
 * Categorical features: split_cat runs gbt_cat_best (common/cat_math.h,
 * the CPU's definition) for each (job, categorical feature), one thread
 * each, its sort scratch in the context; split_final takes those
 * candidates in the same order, and cat_sets writes the set of each job
 * whose winner is categorical (gbt_cat_best again, for that feature).
 * Only the chosen gbt_split of each job (and its set) is copied back: the
 * one host synchronisation of a level.
 */
#include <math.h>
#include <string.h>

#include <cub/warp/warp_scan.cuh>

#include "cu_internal.cuh"
#include "common/cat_math.h"
#include "common/constraint_math.h"

namespace {

using gbt_cu::cand;
using gbt_cu::SPLIT_THREADS;
using gbt_cu::SPLIT_WARPS;

struct lpair {
    long long g, h;
};

__device__ __forceinline__ lpair operator+(const lpair &a, const lpair &b)
{
    return lpair{a.g + b.g, a.h + b.h};
}

struct split_args {
    const struct gbt_split_job *jobs;
    const uint8_t *masks; /* njobs x nfeat, or NULL */
    const uint8_t *usable;
    const uint32_t *offset, *nbins;
    uint32_t nfeat, total_slots;
    const struct gbt_hbin *hist;
    struct gbt_split_params p;
    cand *cands;
};

/* Whether a comes before b: a valid candidate before an invalid one, else gbt_split_before. */
__device__ __forceinline__ bool before(const cand &a, const cand &b)
{
    if (!a.valid) return false;
    if (!b.valid) return true;
    return gbt_split_before(a.gain, a.feature, a.bin, a.dl, b.gain, b.feature, b.bin, b.dl) != 0;
}

__device__ __forceinline__ cand shfl_down(const cand &x, int off)
{
    const unsigned full = 0xffffffffu;
    cand y;
    y.gain = __shfl_down_sync(full, x.gain, off);
    y.feature = __shfl_down_sync(full, x.feature, off);
    y.bin = __shfl_down_sync(full, x.bin, off);
    y.dl = __shfl_down_sync(full, x.dl, off);
    y.valid = __shfl_down_sync(full, x.valid, off);
    y.lg = __shfl_down_sync(full, x.lg, off);
    y.lh = __shfl_down_sync(full, x.lh, off);
    return y;
}

/* The first candidate of the block in lane 0 of warp 0 (every thread must call it). */
__device__ __forceinline__ cand block_first(cand best, cand *sh)
{
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int off = 16; off > 0; off >>= 1) {
        cand y = shfl_down(best, off);
        if (before(y, best)) best = y;
    }
    if (lane == 0) sh[warp] = best;
    __syncthreads();
    if (threadIdx.x == 0)
        for (unsigned w = 1; w < blockDim.x / 32; w++)
            if (before(sh[w], best)) best = sh[w];
    return best;
}

__global__ void __launch_bounds__(SPLIT_THREADS, 2)
    split_features(split_args a, uint32_t chunks, uint32_t fpc)
{
    typedef cub::WarpScan<lpair> WarpScan;
    __shared__ typename WarpScan::TempStorage scan_tmp[SPLIT_WARPS];
    __shared__ cand warp_best[SPLIT_WARPS];
    const unsigned full = 0xffffffffu;
    const uint32_t j = blockIdx.x / chunks, ch = blockIdx.x % chunks;
    const struct gbt_split_job job = a.jobs[j];
    const struct gbt_split_params p = a.p;
    const double parent_gain = p.monotone ? gbt_bounded_node_gain(job.total, &p, job.lower, job.upper)
                                          : gbt_node_gain(job.total, &p);
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t f_end = (ch + 1) * fpc < a.nfeat ? (ch + 1) * fpc : a.nfeat;
    const struct gbt_hbin *slot = a.hist + (uint64_t)job.slot * a.total_slots;
    cand best;
    best.valid = 0;
    best.gain = 0.0;
    best.feature = best.bin = best.dl = 0;
    best.lg = best.lh = 0;
    for (uint32_t f = ch * fpc + warp; f < f_end; f += SPLIT_WARPS) {
        /* the same for the whole warp */
        if ((a.masks && !a.masks[(uint64_t)j * a.nfeat + f]) || !a.usable[f] || (a.usable[f] & GBT_FEAT_CAT))
            continue;
        const int nb = (int)a.nbins[f];
        const int mono = gbt_feature_constraint(a.usable[f]);
        const struct gbt_hbin *fh = slot + a.offset[f];
        long long pg = 0, ph = 0;
        for (int t = (int)lane; t < nb; t += 32) {
            pg += fh[t].g;
            ph += fh[t].h;
        }
        for (int off = 16; off > 0; off >>= 1) {
            pg += __shfl_xor_sync(full, pg, off);
            ph += __shfl_xor_sync(full, ph, off);
        }
        const long long mg = job.total.g - pg, mh = job.total.h - ph;
        lpair carry = {0, 0};
        for (int base = 0; base < nb; base += 32) {
            const int t = base + (int)lane;
            lpair v = {0, 0}, inc, agg;
            if (t < nb) {
                v.g = fh[t].g;
                v.h = fh[t].h;
            }
            WarpScan(scan_tmp[warp]).InclusiveSum(v, inc, agg);
            __syncwarp(); /* scan_tmp[warp] is reused by the next tile */
            inc = inc + carry;
            carry = carry + agg;
            if (t >= nb) continue;
            for (int dl = 1; dl >= 0; dl--) {
                struct gbt_hbin l, r;
                double gain;
                if (!gbt_candidate_exists(t, dl, nb)) continue;
                l.g = inc.g;
                l.h = inc.h;
                if (dl) {
                    l.g += mg;
                    l.h += mh;
                }
                r.g = job.total.g - l.g;
                r.h = job.total.h - l.h;
                gain = p.monotone ? gbt_bounded_split_gain(l, r, parent_gain, &p, job.lower, job.upper,
                                                           gbt_candidate_constraint(mono, t, dl, nb))
                                  : gbt_split_gain(l, r, parent_gain, &p);
                if (gain == -(double)INFINITY) continue;
                cand x;
                x.gain = gain;
                x.feature = (int32_t)f;
                x.bin = t;
                x.dl = dl;
                x.valid = 1;
                x.lg = l.g;
                x.lh = l.h;
                if (before(x, best)) best = x;
            }
        }
    }
    best = block_first(best, warp_best);
    if (threadIdx.x == 0) a.cands[blockIdx.x] = best;
}

/* The parent gain of a job, as split_features computes it. */
__device__ __forceinline__ double parent_gain_of(const struct gbt_split_job &job, const struct gbt_split_params &p)
{
    return p.monotone ? gbt_bounded_node_gain(job.total, &p, job.lower, job.upper) : gbt_node_gain(job.total, &p);
}

struct cat_args {
    const uint32_t *feat, *off; /* ncat categorical features, their scratch offsets */
    uint32_t ncat, total;       /* categorical features, their bins */
    struct gbt_cat_entry *order;
    cand *cands;                /* njobs * ncat */
    uint32_t *bits;             /* njobs * words */
    uint32_t words;
};

/* One thread per (job, categorical feature): gbt_cat_best. */
__global__ void __launch_bounds__(64, 8) split_cat(split_args a, cat_args ca, uint32_t njobs)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (uint64_t)njobs * ca.ncat) return;
    const uint32_t j = (uint32_t)(i / ca.ncat), k = (uint32_t)(i % ca.ncat), f = ca.feat[k];
    const struct gbt_split_job job = a.jobs[j];
    const struct gbt_split_params p = a.p;
    cand x;
    x.valid = 0;
    x.gain = 0.0;
    x.feature = x.bin = x.dl = 0;
    x.lg = x.lh = 0;
    if (!(a.masks && !a.masks[(uint64_t)j * a.nfeat + f]) && a.usable[f]) {
        struct gbt_split s;
        gbt_cat_best(a.hist + (uint64_t)job.slot * a.total_slots + a.offset[f], a.nbins[f], (int32_t)f, job.total,
                     job.lower, job.upper, parent_gain_of(job, p), &p,
                     ca.order + (uint64_t)j * ca.total + ca.off[k], &s, NULL);
        if (s.feature >= 0) {
            x.valid = 1;
            x.gain = s.gain;
            x.feature = s.feature;
            x.bin = s.bin;
            x.dl = s.default_left;
            x.lg = s.left.g;
            x.lh = s.left.h;
        }
    }
    ca.cands[i] = x;
}

/* One thread per job: the set of a categorical winner (gbt_cat_best again, now with its bits). */
__global__ void __launch_bounds__(64, 8)
    cat_sets(split_args a, cat_args ca, const struct gbt_split *out, uint32_t njobs)
{
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= njobs) return;
    const struct gbt_split w = out[j];
    uint32_t *bits = ca.bits + (uint64_t)j * ca.words;
    for (uint32_t t = 0; t < ca.words; t++) bits[t] = 0;
    if (!w.is_cat) return;
    for (uint32_t k = 0; k < ca.ncat; k++) {
        if (ca.feat[k] != (uint32_t)w.feature) continue;
        const struct gbt_split_job job = a.jobs[j];
        const struct gbt_split_params p = a.p;
        struct gbt_split s;
        gbt_cat_best(a.hist + (uint64_t)job.slot * a.total_slots + a.offset[w.feature], a.nbins[w.feature],
                     w.feature, job.total, job.lower, job.upper, parent_gain_of(job, p), &p,
                     ca.order + (uint64_t)j * ca.total + ca.off[k], &s, bits);
    }
}

__global__ void __launch_bounds__(SPLIT_THREADS, 8)
    split_final(const struct gbt_split_job *jobs, const cand *cands, uint32_t chunks, const cand *ccands,
                uint32_t ncat, const uint8_t *usable, struct gbt_split *out)
{
    __shared__ cand warp_best[SPLIT_WARPS];
    const uint32_t j = blockIdx.x;
    cand best;
    best.valid = 0;
    best.gain = 0.0;
    best.feature = best.bin = best.dl = 0;
    best.lg = best.lh = 0;
    for (uint32_t c = threadIdx.x; c < chunks; c += blockDim.x) {
        const cand x = cands[(uint64_t)j * chunks + c];
        if (before(x, best)) best = x;
    }
    for (uint32_t c = threadIdx.x; c < ncat; c += blockDim.x) {
        const cand x = ccands[(uint64_t)j * ncat + c];
        if (before(x, best)) best = x;
    }
    best = block_first(best, warp_best);
    if (threadIdx.x == 0) {
        const struct gbt_hbin total = jobs[j].total;
        struct gbt_split s;
        if (best.valid) {
            s.gain = best.gain;
            s.feature = best.feature;
            s.bin = best.bin;
            s.default_left = best.dl;
            s.left.g = best.lg;
            s.left.h = best.lh;
            s.right.g = total.g - best.lg;
            s.right.h = total.h - best.lh;
            s.is_cat = (usable[best.feature] & GBT_FEAT_CAT) ? 1 : 0;
        } else {
            s.gain = -(double)INFINITY;
            s.feature = -1;
            s.bin = -1;
            s.default_left = 0;
            s.left.g = s.left.h = s.right.g = s.right.h = 0;
            s.is_cat = 0;
        }
        out[j] = s;
    }
}

} // namespace

using namespace gbt_cu;

extern "C" int gbt_cu_best_splits(struct gbt_cu_ctx *c, const struct gbt_split_job *jobs, int n,
                                  const uint8_t *masks, const struct gbt_split_params *p,
                                  struct gbt_split *out, uint32_t *sets, char *msg)
{
    gbt_cu::device_scope keep;
    split_args a;
    memset(&a, 0, sizeof a); /* padding too: the emulator reads every word of a kernel's arguments */
    void *d_jobs, *d_masks = NULL;
    uint32_t chunks, fpc, max_chunks, want;
    if (n <= 0) return 0;
    for (int j = 0; j < n; j++)
        if (jobs[j].slot < 0 || (uint32_t)jobs[j].slot >= c->max_slots || !c->slot_built[jobs[j].slot])
            return failf(msg, GBT_E_INTERNAL, "split of an empty histogram slot %d", jobs[j].slot);
    if ((uint32_t)n > c->max_slots)
        return failf(msg, GBT_E_INTERNAL, "%d split jobs exceed the %u the context holds", n,
                     c->max_slots);
    CU_FORWARD(use_device(c, msg));
    CU_FORWARD(upload(c, ST_SPLIT, jobs, (size_t)n * sizeof *jobs, &d_jobs, msg));
    if (masks) CU_FORWARD(upload(c, ST_MASK, masks, (size_t)n * c->nfeat, &d_masks, msg));

    max_chunks = (c->nfeat + SPLIT_WARPS - 1) / SPLIT_WARPS;
    want = (c->split_blocks + (uint32_t)n - 1) / (uint32_t)n;
    chunks = want < max_chunks ? want : max_chunks;
    if ((uint64_t)chunks * (uint64_t)n > c->cand_cap) chunks = c->cand_cap / (uint32_t)n;
    if (chunks < 1) chunks = 1;
    fpc = (c->nfeat + chunks - 1) / chunks;

    a.jobs = (const struct gbt_split_job *)d_jobs;
    a.masks = (const uint8_t *)d_masks;
    a.usable = c->usable;
    a.offset = c->offset;
    a.nbins = c->nbins;
    a.nfeat = c->nfeat;
    a.total_slots = c->total_slots;
    a.hist = c->hist;
    a.p = *p;
    a.cands = c->cands;
    split_features<<<(unsigned)((uint64_t)n * chunks), SPLIT_THREADS, 0, c->stream>>>(a, chunks, fpc);
    CU_LAUNCHED("split_features");
    cat_args ca;
    memset(&ca, 0, sizeof ca);
    ca.feat = c->cat_feat;
    ca.off = c->cat_off;
    ca.ncat = c->ncat;
    ca.total = c->cat_total;
    ca.order = c->cat_order;
    ca.cands = c->cat_cands;
    ca.bits = c->cat_bits;
    ca.words = c->cat_words;
    if (c->ncat) {
        const uint64_t items = (uint64_t)n * c->ncat;
        split_cat<<<(unsigned)((items + 63) / 64), 64, 0, c->stream>>>(a, ca, (uint32_t)n);
        CU_LAUNCHED("split_cat");
    }
    split_final<<<(unsigned)n, SPLIT_THREADS, 0, c->stream>>>(a.jobs, c->cands, chunks, c->cat_cands, c->ncat,
                                                              c->usable, c->splits);
    CU_LAUNCHED("split_final");
    if (c->ncat) {
        if (sets == NULL) return failf(msg, GBT_E_INTERNAL, "categorical splits without room for their sets");
        cat_sets<<<(unsigned)((n + 63) / 64), 64, 0, c->stream>>>(a, ca, c->splits, (uint32_t)n);
        CU_LAUNCHED("cat_sets");
    }
    CU_CHECK(cudaMemcpyAsync(c->result_host, c->splits, (size_t)n * sizeof(struct gbt_split),
                             cudaMemcpyDeviceToHost, c->stream));
    CU_FORWARD(drain(c, msg));
    memcpy(out, c->result_host, (size_t)n * sizeof(struct gbt_split));
    if (c->ncat) /* synchronous, after the stream: the sets of the jobs whose split is categorical */
        CU_CHECK(cudaMemcpy(sets, c->cat_bits, (size_t)n * c->cat_words * 4, cudaMemcpyDeviceToHost));
    return 0;
}
