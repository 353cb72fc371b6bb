/*
 * cuts.h - the bin cuts of one feature from its sorted present values: one
 * definition for the host (src/data/quantize.c) and the device
 * (cuda/quantize.cu).
 * Plain C, no allocation: callers pass every buffer (gbt_cuts_scratch
 * says how large).
 *
 * Weights are fixed-point integers.  With M the largest row weight over
 * all rows (a maximum, so independent of order) and n the row count, each
 * weight w becomes trunc(w * 2^s), s = gbt_weight_shift(M, n), so that a
 * sum over n rows stays below 2^63: every sum of weights (a value's
 * weight, the ranks) is an exact uint64 addition, the same in any order,
 * on any thread count or device.  Ranks are compared in double: the exact
 * integer times 2^-s, converted once.  Unweighted rows have weight 1,
 * which is exact; so are the weights of at most 63 - s significant bits
 * below their leading one, which covers every float weight within 2^(39 -
 * log2 n) of M.  A smaller weight loses its bits below 2^-s
 * (docs/determinism.md).
 *
 * The rule (XGBoost's hist, max_bin = budget, on exact ranks): with no
 * more distinct values than the budget, each distinct value has a bin.
 * Otherwise the exact weighted-quantile summary of the distinct values is
 * pruned to the size of XGBoost's sketch for `count` rows (eps = 1 /
 * (8 min(budget, count))), then to 8 entries per bin, then to budget + 1
 * entries, whose values but the first and the last are the cuts; the last
 * cut is FLT_MAX.  Where XGBoost's sketch is exact (up to about 4,000
 * values per feature) the cuts are XGBoost's.
 */
#ifndef GBT_COMMON_CUTS_H
#define GBT_COMMON_CUTS_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "hostdev.h"

/* The order-preserving uint32 key of a float (-0 and 0 differ: callers map -0 to 0 first). */
GBT_SHARED uint32_t gbt_cut_key(float f)
{
    union { float f; uint32_t u; } c;
    c.f = f;
    return (c.u & 0x80000000u) ? ~c.u : (c.u | 0x80000000u);
}

GBT_SHARED float gbt_cut_value(uint32_t k)
{
    union { uint32_t u; float f; } c;
    c.u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    return c.f;
}

/*
 * The shift s of the fixed-point weights for rows whose largest weight is
 * max_weight (>= 0, finite) and whose count is nrow: n weights below 2^e
 * (max_weight = f 2^e, 0.5 <= f < 1) sum below 2^(ceil(log2 n) + e + s) =
 * 2^63.
 */
GBT_SHARED int gbt_weight_shift(double max_weight, uint64_t nrow)
{
    int e = 0, c = 0;
    if (!(max_weight > 0.0)) return 0;
    (void)frexp(max_weight, &e);
    while (c < 64 && ((uint64_t)1 << c) < nrow) c++;
    return 63 - c - e;
}

/* w (0 <= w <= the largest weight) as a fixed-point integer: trunc(w 2^shift). */
GBT_SHARED uint64_t gbt_weight_fixed(float w, int shift)
{
    return (uint64_t)ldexp((double)w, shift);
}

/*
 * The distinct keys of n sorted keys (written over ukeys, which may be
 * keys) and the fixed-point sums of their weights (w NULL: all 1.0) into
 * uw; returns how many.
 */
GBT_SHARED size_t gbt_cuts_distinct(const uint32_t *keys, const float *w, int shift, size_t n, uint32_t *ukeys,
                                    uint64_t *uw)
{
    const uint64_t one = gbt_weight_fixed(1.0f, shift);
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t wi = w ? gbt_weight_fixed(w[i], shift) : one;
        if (i > 0 && keys[i - 1] == keys[i]) {
            uw[nd - 1] += wi;
        } else {
            ukeys[nd] = keys[i];
            uw[nd++] = wi;
        }
    }
    return nd;
}

/*
 * One entry of a weighted quantile summary (the XGBoost paper's): a value
 * and the bounds of its rank, rmin = weight of the values below it and
 * rmax = rmin + its weight in an exact summary, and its own weight wmin.
 */
struct gbt_qentry {
    double rmin, rmax, wmin;
    uint32_t key;
};

/*
 * At most maxsize (>= 2) of the summary entries e[0, n) into out: the first, the last, and
 * for each of the maxsize - 2 ranks evenly spaced between them the entry
 * whose rank interval is nearest, as XGBoost's summaries prune (in doubles
 * where XGBoost computes in floats: the same with unit weights).  Returns
 * how many.
 */
GBT_SHARED size_t gbt_qprune(const struct gbt_qentry *e, size_t n, size_t maxsize, struct gbt_qentry *out)
{
    const size_t m = maxsize - 1;
    struct gbt_qentry first, last;
    double begin, range;
    size_t size = 0, i = 1, lastidx = 0;
    if (n <= maxsize) {
        for (size_t k = 0; k < n; k++) out[k] = e[k];
        return n;
    }
    last = e[n - 1];
    first = e[0];
    begin = first.rmax;
    range = last.rmin - first.rmax;
    out[size++] = first;
    for (size_t k = 1; k < m; k++) {
        const double dx2 = 2.0 * ((double)k * range / (double)m + begin);
        struct gbt_qentry lo, hi = last;
        /* the first i whose next entry's mid-rank is above the target */
        while (i < n - 1) {
            hi = e[i + 1];
            if (dx2 < hi.rmax + hi.rmin) break;
            i++;
        }
        if (i == n - 1) break;
        lo = e[i];
        if (dx2 < (lo.rmin + lo.wmin) + (hi.rmax - hi.wmin)) {
            if (i != lastidx) out[size++] = lo;
            lastidx = i;
        } else {
            if (i + 1 != lastidx) out[size++] = hi;
            lastidx = i + 1;
        }
    }
    if (lastidx != n - 1) out[size++] = last;
    return size;
}

/* The size of XGBoost's sketch summary for count rows: the first of (2^l) x size >= count, l = 1, 2, ... */
GBT_SHARED uint64_t gbt_cuts_limit(uint64_t count, uint32_t budget)
{
    const uint64_t nb = count < budget ? count : budget;
    const double eps = 1.0 / ((float)nb * 8.0f);
    uint64_t limit = 0;
    for (int level = 1;; level++) {
        limit = (uint64_t)ceil((double)level / eps) + 1;
        if (limit > count) limit = count;
        if ((limit << level) >= count) break;
    }
    return limit;
}

/*
 * The scratch entries gbt_cuts_of_feature needs for nd distinct values of
 * count rows: *na in a, *nb in b (0 when nd <= budget).  Both grow with nd,
 * so the count of present values bounds them before the sort.
 */
GBT_SHARED void gbt_cuts_scratch(uint64_t nd, uint64_t count, uint32_t budget, uint64_t *na, uint64_t *nb)
{
    uint64_t limit, inter = (uint64_t)budget * 8;
    *na = *nb = 0;
    if (nd <= budget) return;
    limit = gbt_cuts_limit(count, budget);
    if (inter > count) inter = count;
    *na = nd < limit ? nd : limit;
    *nb = (nd < inter ? nd : inter) + 1;
}

/*
 * The weights uw[0, nd) of nd distinct values turned, in place, into their
 * rank prefix p[0, nd]: p[i] = the weight of the values below value i, p[nd]
 * the total (uw has nd + 1 entries).  Exact integer sums.
 */
GBT_SHARED void gbt_cuts_prefix(uint64_t *uw, size_t nd)
{
    uint64_t run = 0;
    for (size_t i = 0; i < nd; i++) {
        const uint64_t w = uw[i];
        uw[i] = run;
        run += w;
    }
    uw[nd] = run;
}

/* Entry i of the exact summary whose rank prefix is p (in units of `unit`). */
GBT_SHARED struct gbt_qentry gbt_qprefix_entry(const uint32_t *keys, const uint64_t *p, size_t i, double unit)
{
    struct gbt_qentry q;
    q.rmin = (double)p[i] * unit;
    q.rmax = (double)p[i + 1] * unit;
    q.wmin = (double)(p[i + 1] - p[i]) * unit;
    q.key = keys[i];
    return q;
}

/*
 * The first pruning pass of an exact summary (n entries, rank prefix p) to
 * maxsize < n entries, target k (1 <= k < maxsize - 1): the index of the
 * entry gbt_qprune picks for it, or -1 where gbt_qprune has stopped.  Each
 * target is independent of the others (a binary search on the mid-ranks,
 * which never decrease: gbt_qprune's forward cursor finds the same entry),
 * so a device runs one thread per target.
 */
GBT_SHARED long long gbt_qprune_pick(const uint32_t *keys, const uint64_t *p, size_t n, double unit, size_t maxsize,
                                     size_t k)
{
    const size_t m = maxsize - 1;
    const struct gbt_qentry first = gbt_qprefix_entry(keys, p, 0, unit), last = gbt_qprefix_entry(keys, p, n - 1, unit);
    const double begin = first.rmax, range = last.rmin - first.rmax;
    const double dx2 = 2.0 * ((double)k * range / (double)m + begin);
    struct gbt_qentry lo, hi;
    size_t a = 1, b = n - 1;
    /* the first i >= 1 whose next entry's mid-rank is above the target (n - 1: none) */
    while (a < b) {
        const size_t mid = a + (b - a) / 2;
        const struct gbt_qentry e = gbt_qprefix_entry(keys, p, mid + 1, unit);
        if (dx2 < e.rmax + e.rmin)
            b = mid;
        else
            a = mid + 1;
    }
    if (a == n - 1) return -1;
    lo = gbt_qprefix_entry(keys, p, a, unit);
    hi = gbt_qprefix_entry(keys, p, a + 1, unit);
    return dx2 < (lo.rmin + lo.wmin) + (hi.rmax - hi.wmin) ? (long long)a : (long long)a + 1;
}

/*
 * gbt_qprune of the exact summary (n > maxsize entries, rank prefix p) into
 * out: the first entry, each target's pick unless it repeats the one
 * before, the last.  pick[k] (k in [1, maxsize - 1)): gbt_qprune_pick's
 * answers computed beforehand (a device's), or pick NULL: computed here.
 */
GBT_SHARED size_t gbt_qprune_exact(const uint32_t *keys, const uint64_t *p, size_t n, double unit, size_t maxsize,
                                   const long long *pick, struct gbt_qentry *out)
{
    size_t size = 0;
    long long lastidx = 0;
    out[size++] = gbt_qprefix_entry(keys, p, 0, unit);
    for (size_t k = 1; k + 1 < maxsize; k++) {
        const long long c = pick ? pick[k] : gbt_qprune_pick(keys, p, n, unit, maxsize, k);
        if (c < 0) break;
        if (c != lastidx) out[size++] = gbt_qprefix_entry(keys, p, (size_t)c, unit);
        lastidx = c;
    }
    if (lastidx != (long long)n - 1) out[size++] = gbt_qprefix_entry(keys, p, n - 1, unit);
    return size;
}

/*
 * Whether the cuts of nd distinct values in count rows with this budget
 * take the first pruning pass (and how many targets it has: *maxsize).
 */
GBT_SHARED int gbt_cuts_first_pass(uint64_t nd, uint64_t count, uint32_t budget, uint64_t *maxsize)
{
    *maxsize = gbt_cuts_limit(count, budget);
    return nd > budget && nd > *maxsize;
}

/*
 * Cuts of one feature from its nd distinct present values (ukeys
 * ascending) whose rank prefix is p[0, nd] (gbt_cuts_prefix; in units of
 * `unit`; p may be rewritten) in count rows: at most `budget` cuts into
 * out, the last FLT_MAX; returns how many.  a and b: gbt_cuts_scratch's
 * entries.  All weights 0 count as all 1 (p becomes 0, 1, ..., nd).
 * pick: gbt_qprune_pick's answers for the first pass, computed
 * beforehand (gbt_cuts_first_pass), or NULL.
 */
GBT_SHARED uint32_t gbt_cuts_of_feature(const uint32_t *ukeys, uint64_t *p, size_t nd, uint64_t count,
                                        uint32_t budget, double unit, struct gbt_qentry *a, struct gbt_qentry *b,
                                        const long long *pick, float *out)
{
    uint64_t inter = (uint64_t)budget * 8, limit;
    uint32_t mb, ncut = 0;
    size_t n;
    if (nd == 0) return 0;
    if (nd <= budget) {
        for (size_t k = 1; k < nd; k++) out[k - 1] = gbt_cut_value(ukeys[k]);
        out[nd - 1] = FLT_MAX;
        return (uint32_t)nd;
    }
    if (p[nd] == 0) {
        for (size_t i = 0; i <= nd; i++) p[i] = i;
        unit = 1.0;
    }
    limit = gbt_cuts_limit(count, budget);
    if (inter > count) inter = count;
    mb = inter < budget ? (uint32_t)inter : budget;
    if (nd > limit) {
        n = gbt_qprune_exact(ukeys, p, nd, unit, limit, pick, a);
    } else {
        for (size_t i = 0; i < nd; i++) a[i] = gbt_qprefix_entry(ukeys, p, i, unit);
        n = nd;
    }
    n = gbt_qprune(a, n, inter, b);
    n = gbt_qprune(b, n, (size_t)mb + 1, a);
    for (size_t i = 1; i < n && i < mb; i++) {
        const float v = gbt_cut_value(a[i].key);
        if (i == 1 || v > out[ncut - 1]) out[ncut++] = v;
    }
    out[ncut++] = FLT_MAX;
    return ncut;
}

/*
 * The value bin of v (not NaN) among n cuts: the first b with v < cut[b],
 * at most n - 1.  Branch-free: the search narrows by halves with
 * conditional moves, which mispredicted branches would otherwise dominate.
 */
GBT_SHARED uint32_t gbt_cut_bin(const float *cut, uint32_t n, float v)
{
    uint32_t base = 0, len = n, i;
    if (n == 0) return 0;
    /* invariant: every cut before base is <= v; the step is arithmetic, not a jump */
    while (len > 1) {
        const uint32_t half = len / 2;
        base += half & (0u - (uint32_t)(cut[base + half - 1] <= v));
        len -= half;
    }
    i = base + (uint32_t)(cut[base] <= v);
    return i < n ? i : n - 1;
}

#endif
