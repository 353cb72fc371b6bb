/*
 * split_cat.c - the best split of a categorical feature in a node's
 * histogram on the CPU: the candidates of common/cat_math.h, one-hot or
 * partition, scored by gbt_split_gain (with monotone constraints on other
 * features, gbt_bounded_split_gain under the node's bounds: a categorical
 * feature itself is never constrained) and ordered by gbt_split_before.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cat_math.h"
#include "common/constraint_math.h"
#include "cpu/cpu.h"

static int cmp_entry(const void *a, const void *b)
{
    const struct gbt_cat_entry *x = a, *y = b;
    if (gbt_cat_sorts_before(x->key, x->bin, y->key, y->bin)) return -1;
    if (gbt_cat_sorts_before(y->key, y->bin, x->key, x->bin)) return 1;
    return 0;
}

/* Scores the set of right sums r (without missing rows) as candidate `cand`, missing left then right. */
static void consider(struct gbt_hbin r, struct gbt_hbin miss, int has_miss, const struct gbt_split_job *job,
                     double parent_gain, const struct gbt_split_params *p, uint32_t f, int32_t cand,
                     struct gbt_split *best)
{
    const struct gbt_hbin total = job->total;
    for (int dl = 1; dl >= !has_miss; dl--) {
        struct gbt_split s;
        s.right = r;
        if (!dl) {
            s.right.g += miss.g;
            s.right.h += miss.h;
        }
        s.left.g = total.g - s.right.g;
        s.left.h = total.h - s.right.h;
        s.gain = p->monotone ? gbt_bounded_split_gain(s.left, s.right, parent_gain, p, job->lower, job->upper, 0)
                             : gbt_split_gain(s.left, s.right, parent_gain, p);
        if (s.gain == -(double)INFINITY) continue;
        s.feature = (int32_t)f;
        s.bin = cand;
        s.default_left = dl;
        s.is_cat = 1;
        if (best->feature < 0 || gbt_split_before(s.gain, s.feature, s.bin, s.default_left, best->gain,
                                                  best->feature, best->bin, best->default_left))
            *best = s;
    }
}

void gbt__cpu_best_of_cat(const struct gbt_cuts *cuts, const struct gbt_hbin *h, uint32_t f,
                          const struct gbt_split_job *job, double parent_gain, const struct gbt_split_params *p,
                          struct gbt_cat_entry *order, struct gbt_split *best, uint32_t *bits)
{
    const struct gbt_hbin total = job->total;
    const uint32_t n = cuts->nbins[f];
    const struct gbt_hbin *fh = h + cuts->offset[f];
    struct gbt_hbin miss = total;
    int has_miss;
    best->feature = -1;
    best->gain = -(double)INFINITY;
    for (uint32_t b = 0; b < n; b++) {
        miss.g -= fh[b].g;
        miss.h -= fh[b].h;
    }
    has_miss = !(miss.g == 0 && miss.h == 0);
    if (gbt_cat_onehot(n, p)) {
        for (uint32_t b = 0; b < n; b++) consider(fh[b], miss, has_miss, job, parent_gain, p, f, (int32_t)b, best);
    } else {
        const uint32_t K = gbt_cat_max_k(n, p);
        struct gbt_hbin pre = {0, 0}, suf = {0, 0};
        for (uint32_t b = 0; b < n; b++) {
            order[b].key = gbt_cat_key(fh[b], p);
            order[b].bin = b;
        }
        qsort(order, n, sizeof *order, cmp_entry);
        for (uint32_t k = 1; k <= K; k++) {
            const struct gbt_hbin a = fh[order[k - 1].bin], z = fh[order[n - k].bin];
            pre.g += a.g;
            pre.h += a.h;
            suf.g += z.g;
            suf.h += z.h;
            consider(pre, miss, has_miss, job, parent_gain, p, f, gbt_cat_candidate(n, 0, k), best);
            consider(suf, miss, has_miss, job, parent_gain, p, f, gbt_cat_candidate(n, 1, k), best);
        }
    }
    if (best->feature < 0) return;
    memset(bits, 0, gbt_cat_words(n) * sizeof *bits);
    if (gbt_cat_onehot(n, p)) {
        bits[best->bin / 32] |= 1u << (best->bin % 32);
    } else {
        const int suffix = (uint32_t)best->bin >= n;
        const uint32_t k = suffix ? (uint32_t)best->bin - n + 1 : (uint32_t)best->bin + 1;
        for (uint32_t i = 0; i < k; i++) {
            const uint32_t b = order[suffix ? n - 1 - i : i].bin;
            bits[b / 32] |= 1u << (b % 32);
        }
    }
}
