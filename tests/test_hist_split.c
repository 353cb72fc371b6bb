/*
 * test_hist_split.c - the CPU backend's operations against brute force on
 * small random data: gradients recomputed row by row, histograms summed
 * straight from the raw values, and the best split found by trying every
 * threshold with sums taken directly over the rows.
 */
#include <float.h>
#include <math.h>

#include "backend.h"
#include "common/grad_math.h"
#include "common/rng.h"
#include "data/dataset.h"
#include "data/quantize.h"
#include "testutil.h"

struct fixture {
    gbt_dataset *d;
    struct gbt_qmatrix q;
    const struct gbt_backend_ops *ops;
    void *ctx;
    int K, obj;
    float *x; /* dense copy of the data, NaN = missing */
    uint64_t n, nf;
    struct gbt_gpair *pairs; /* K * n */
    struct gbt_class_sums sums[8];
};

static void setup(struct fixture *fx, uint64_t n, uint64_t nf, double missing, int obj, int K,
                  int max_bin, int sparse, int weighted, double subsample)
{
    float *y = malloc(n * sizeof *y), *w = malloc(n * sizeof *w);
    double *margin = calloc(n * (uint64_t)K, sizeof *margin);
    struct gbt_train_plan plan;
    struct gbt_grad_request req = {.round = 3, .seed = 11, .subsample = subsample, .obj = {.scale_pos = 1.0, .poisson_delta = 0.7, .huber_slope = 1.0, .tweedie_rho = 1.5, .aft_sigma = 1.0}};
    memset(fx, 0, sizeof *fx);
    fx->n = n;
    fx->nf = nf;
    fx->K = K;
    fx->obj = obj;
    fx->x = malloc(n * nf * sizeof *fx->x);
    tu_data(n, nf, missing, obj == GBT_OBJ_REG_SQUAREDERROR ? 0 : K > 1 ? K : 1, fx->x, y);
    if (sparse) /* make it sparse: most values missing */
        for (uint64_t i = 0; i < n * nf; i++)
            if (tu_unit() < 0.85) fx->x[i] = NAN;
    for (uint64_t r = 0; r < n; r++) w[r] = (float)(0.5 + tu_unit());
    for (uint64_t i = 0; i < n * (uint64_t)K; i++) margin[i] = tu_unit() - 0.5;
    if (sparse)
        fx->d = tu_to_csr(fx->x, y, n, nf);
    else if (gbt_dataset_from_dense(fx->x, n, nf, NAN, &fx->d) != GBT_OK || gbt_dataset_set_field(fx->d, "label", y, n) != GBT_OK)
        exit(2);
    if (weighted) gbt_dataset_set_field(fx->d, "weight", w, n);
    if (gbt__quantize(fx->d, max_bin, 2, &fx->q) != GBT_OK) exit(2);
    memset(&plan, 0, sizeof plan);
    plan.qm = &fx->q;
    plan.label = fx->d->label;
    plan.weight = fx->d->weight;
    plan.margin = margin;
    plan.nrow = n;
    plan.num_class = K;
    plan.objective = obj;
    plan.max_nodes = 64;
    plan.max_slots = 8;
    plan.nthread = 2;
    fx->ops = gbt__backend_cpu();
    if (fx->ops->open(-1, &plan, &fx->ctx) != GBT_OK) exit(2);
    if (fx->ops->gradients(fx->ctx, &req, fx->sums) != GBT_OK) exit(2);
    fx->pairs = malloc(n * (uint64_t)K * sizeof *fx->pairs);
    for (int k = 0; k < K; k++) fx->ops->read_gradients(fx->ctx, k, fx->pairs + (uint64_t)k * n);
    {
        /* brute force: the same per-row math, one row at a time */
        double *g = malloc((uint64_t)K * sizeof *g), *h = malloc((uint64_t)K * sizeof *h);
        double *gd = malloc(n * (uint64_t)K * sizeof *gd), *hd = malloc(n * (uint64_t)K * sizeof *hd);
        int same = 1;
        for (uint64_t r = 0; r < n; r++) {
            float wr = weighted ? w[r] : 1.0f;
            if (!gbt_row_sampled(11, 3, r, subsample)) wr = 0.0f;
            gbt_row_gradients(obj, &req.obj, K, margin + r * (uint64_t)K, 1, y[r], wr, g, h, 1);
            for (int k = 0; k < K; k++) {
                gd[(uint64_t)k * n + r] = g[k];
                hd[(uint64_t)k * n + r] = h[k];
            }
        }
        for (int k = 0; k < K; k++) {
            double gm = 0, hm = 0;
            int64_t gs = 0, hs = 0;
            for (uint64_t r = 0; r < n; r++) {
                gm = fmax(gm, fabs(gd[(uint64_t)k * n + r]));
                hm = fmax(hm, fabs(hd[(uint64_t)k * n + r]));
            }
            same &= fx->sums[k].g_exp == gbt_quant_exponent(gm) && fx->sums[k].h_exp == gbt_quant_exponent(hm);
            for (uint64_t r = 0; r < n; r++) {
                struct gbt_gpair p = fx->pairs[(uint64_t)k * n + r];
                same &= p.g == gbt_quantize(gd[(uint64_t)k * n + r], fx->sums[k].g_exp);
                same &= p.h == gbt_quantize(hd[(uint64_t)k * n + r], fx->sums[k].h_exp);
                gs += p.g;
                hs += p.h;
            }
            same &= gs == fx->sums[k].total.g && hs == fx->sums[k].total.h;
        }
        ok(same, "gradients, exponents and totals equal a row-by-row recomputation");
        free(g);
        free(h);
        free(gd);
        free(hd);
    }
    free(y);
    free(w);
    free(margin);
}

static void teardown(struct fixture *fx)
{
    fx->ops->close(fx->ctx);
    gbt__qmatrix_free(&fx->q);
    gbt_dataset_free(fx->d);
    free(fx->x);
    free(fx->pairs);
}

/* Whether row r is in the node given by the conditions (feature, cut, dl) along a path. */
struct cond {
    int feature;
    float thr;
    int dl, left;
};

static int in_node(const struct fixture *fx, uint64_t r, const struct cond *path, int depth)
{
    for (int i = 0; i < depth; i++) {
        float v = fx->x[r * fx->nf + (uint64_t)path[i].feature];
        int goes_left = isnan(v) ? path[i].dl : v < path[i].thr;
        if (goes_left != path[i].left) return 0;
    }
    return 1;
}

/* The histogram of a node straight from the raw values: value bins only. */
static int histogram_matches(const struct fixture *fx, int cls, int slot, const struct cond *path, int depth)
{
    const struct gbt_cuts *c = &fx->q.cuts;
    struct gbt_hbin *want = calloc(c->total_slots, sizeof *want), *got = malloc(c->total_slots * sizeof *got);
    int same = 1;
    fx->ops->read_histogram(fx->ctx, slot, got);
    for (uint64_t r = 0; r < fx->n; r++) {
        struct gbt_gpair p = fx->pairs[(uint64_t)cls * fx->n + r];
        if (!in_node(fx, r, path, depth)) continue;
        for (uint64_t f = 0; f < fx->nf; f++) {
            float v = fx->x[r * fx->nf + f];
            uint32_t s;
            if (isnan(v)) continue;
            s = c->offset[f] + gbt__bin_of(c, (uint32_t)f, v);
            want[s].g += p.g;
            want[s].h += p.h;
        }
    }
    for (uint64_t f = 0; f < fx->nf; f++)
        for (uint32_t b = 0; b < c->nbins[f]; b++) {
            uint32_t s = c->offset[f] + b;
            same &= want[s].g == got[s].g && want[s].h == got[s].h;
        }
    free(want);
    free(got);
    return same;
}

/* The best split of a node by trying every cut with sums over the rows. */
static struct gbt_split brute_split(const struct fixture *fx, int cls, const struct cond *path, int depth,
                                    const uint8_t *mask, const struct gbt_split_params *sp)
{
    const struct gbt_cuts *c = &fx->q.cuts;
    struct gbt_split best;
    struct gbt_hbin total = {0, 0};
    double pg;
    memset(&best, 0, sizeof best);
    best.feature = -1;
    best.bin = -1;
    best.gain = -INFINITY;
    for (uint64_t r = 0; r < fx->n; r++)
        if (in_node(fx, r, path, depth)) {
            total.g += fx->pairs[(uint64_t)cls * fx->n + r].g;
            total.h += fx->pairs[(uint64_t)cls * fx->n + r].h;
        }
    pg = gbt_node_gain(total, sp);
    for (uint64_t f = 0; f < fx->nf; f++) {
        if ((mask && !mask[f]) || !gbt__feature_usable(c, (uint32_t)f)) continue;
        for (int t = 0; t < (int)c->nbins[f]; t++)
            for (int dl = 1; dl >= 0; dl--) {
                struct gbt_hbin l = {0, 0}, rr;
                float thr = c->cut[c->offset[f] + (uint32_t)t];
                double gain;
                if (!gbt_candidate_exists(t, dl, (int)c->nbins[f])) continue;
                for (uint64_t r = 0; r < fx->n; r++) {
                    float v;
                    if (!in_node(fx, r, path, depth)) continue;
                    v = fx->x[r * fx->nf + f];
                    if (isnan(v) ? dl : v < thr) {
                        l.g += fx->pairs[(uint64_t)cls * fx->n + r].g;
                        l.h += fx->pairs[(uint64_t)cls * fx->n + r].h;
                    }
                }
                rr.g = total.g - l.g;
                rr.h = total.h - l.h;
                gain = gbt_split_gain(l, rr, pg, sp);
                if (gain == -INFINITY) continue;
                if (best.feature >= 0 && !gbt_split_before(gain, (int)f, t, dl, best.gain, best.feature, best.bin, best.default_left))
                    continue;
                best.gain = gain;
                best.feature = (int32_t)f;
                best.bin = t;
                best.default_left = dl;
                best.left = l;
                best.right = rr;
            }
    }
    return best;
}

static int same_split(const struct gbt_split *a, const struct gbt_split *b)
{
    return a->feature == b->feature && a->bin == b->bin && a->default_left == b->default_left &&
           memcmp(&a->gain, &b->gain, sizeof a->gain) == 0 && a->left.g == b->left.g &&
           a->left.h == b->left.h && a->right.g == b->right.g && a->right.h == b->right.h;
}

static void check_tree_level(struct fixture *fx, int cls, const char *what)
{
    struct gbt_split_params sp = {1.0, 0.0, 0.0, 0.1, 0, 0, 0.0, 0.0, 4, 64, 0, 0, 0.0, 0.0, 0.0, 0.0};
    struct gbt_hist_job hj = {GBT_HIST_BUILD, 0, 0, -1};
    struct gbt_split_job sj = {0, 0, fx->sums[cls].total, 0.0, 0.0};
    struct gbt_split got, want;
    struct cond path[2] = {{0, 0.0f, 0, 0}, {0, 0.0f, 0, 0}};
    uint8_t *mask = calloc(fx->nf, 1);
    int ok_all;
    gbt_split_params_scale(&sp, fx->sums[cls].g_exp, fx->sums[cls].h_exp);
    fx->ops->begin_tree(fx->ctx, cls);
    fx->ops->histograms(fx->ctx, &hj, 1);
    ok(histogram_matches(fx, cls, 0, path, 0), "%s: root histogram equals direct sums", what);
    fx->ops->best_splits(fx->ctx, &sj, 1, NULL, &sp, &got, NULL);
    want = brute_split(fx, cls, path, 0, NULL, &sp);
    ok(got.feature >= 0 && same_split(&got, &want), "%s: root split equals brute force (feature %d bin %d dl %d)",
       what, got.feature, got.bin, got.default_left);
    {
        /* alpha > 0 and max_delta_step > 0 take the general scan (alpha = 0 the plain one) */
        struct gbt_split_params sg = sp;
        struct gbt_split gg, wg;
        sg.alpha = 0.05;
        sg.max_delta_step = 0.7;
        fx->ops->best_splits(fx->ctx, &sj, 1, NULL, &sg, &gg, NULL);
        wg = brute_split(fx, cls, path, 0, NULL, &sg);
        ok(same_split(&gg, &wg), "%s: root split with alpha and max_delta_step equals brute force", what);
    }
    /* a mask with only the last usable feature */
    for (int f = (int)fx->nf - 1; f >= 0; f--)
        if (gbt__feature_usable(&fx->q.cuts, (uint32_t)f)) {
            mask[f] = 1;
            break;
        }
    {
        struct gbt_split gm, wm;
        fx->ops->best_splits(fx->ctx, &sj, 1, mask, &sp, &gm, NULL);
        wm = brute_split(fx, cls, path, 0, mask, &sp);
        ok(same_split(&gm, &wm) && (gm.feature < 0 || mask[gm.feature]), "%s: a feature mask restricts the search", what);
    }
    /* split the root, then build the lighter child and subtract */
    if (got.feature >= 0) {
        struct gbt_partition_job pj = {0, 1, 2, got.feature, got.bin, got.default_left, 0, NULL};
        int small = got.left.h <= got.right.h ? 1 : 2, big = 3 - small;
        struct gbt_hist_job jobs[2] = {{GBT_HIST_BUILD, small, 1, -1}, {GBT_HIST_SUBTRACT, big, 0, 1}};
        float thr = fx->q.cuts.cut[fx->q.cuts.offset[got.feature] + (uint32_t)got.bin];
        struct gbt_split_job kids[2] = {{1, small == 1 ? 1 : 0, got.left, 0.0, 0.0},
                                        {2, small == 2 ? 1 : 0, got.right, 0.0, 0.0}};
        struct gbt_split ks[2];
        fx->ops->partition(fx->ctx, &pj, 1);
        fx->ops->histograms(fx->ctx, jobs, 2);
        path[0] = (struct cond){got.feature, thr, got.default_left, 1};
        ok_all = histogram_matches(fx, cls, small == 1 ? 1 : 0, path, 1);
        path[0].left = 0;
        ok_all &= histogram_matches(fx, cls, small == 2 ? 1 : 0, path, 1);
        ok(ok_all, "%s: children histograms (one built, one by subtraction) equal direct sums", what);
        fx->ops->best_splits(fx->ctx, kids, 2, NULL, &sp, ks, NULL);
        path[0].left = 1;
        want = brute_split(fx, cls, path, 1, NULL, &sp);
        ok_all = same_split(&ks[0], &want);
        path[0].left = 0;
        want = brute_split(fx, cls, path, 1, NULL, &sp);
        ok_all &= same_split(&ks[1], &want);
        ok(ok_all, "%s: children splits equal brute force", what);
        {
            /* leaves: margins of the left child's rows grow by 1, the right's by -2 */
            struct gbt_leaf leaves[2] = {{1, 0, 1.0}, {2, 0, -2.0}};
            double *before = malloc(fx->n * (uint64_t)fx->K * sizeof *before), *after = malloc(fx->n * (uint64_t)fx->K * sizeof *after);
            int right = 1;
            fx->ops->read_margins(fx->ctx, before);
            fx->ops->finish_tree(fx->ctx, leaves, 2);
            fx->ops->read_margins(fx->ctx, after);
            path[0].left = 1;
            for (uint64_t r = 0; r < fx->n; r++)
                for (int k = 0; k < fx->K; k++) {
                    double want_m = before[r * (uint64_t)fx->K + (uint64_t)k] + (k == cls ? (in_node(fx, r, path, 1) ? 1.0 : -2.0) : 0.0);
                    right &= after[r * (uint64_t)fx->K + (uint64_t)k] == want_m;
                }
            ok(right, "%s: partition put every row in the right child (leaf values land on its rows)", what);
            free(before);
            free(after);
        }
    }
    free(mask);
}

int main(void)
{
    struct fixture fx;
    tu_seed(1);
    setup(&fx, 500, 6, 0.1, GBT_OBJ_BINARY_LOGISTIC, 1, 16, 0, 0, 1.0);
    check_tree_level(&fx, 0, "binary, dense8, missing");
    teardown(&fx);
    setup(&fx, 400, 5, 0.05, GBT_OBJ_REG_SQUAREDERROR, 1, 300, 0, 1, 0.7);
    check_tree_level(&fx, 0, "regression, dense16, weights, subsample");
    teardown(&fx);
    setup(&fx, 600, 12, 0.0, GBT_OBJ_BINARY_LOGISTIC, 1, 8, 1, 1, 1.0);
    ok(fx.q.layout == GBT_QM_CSR, "sparse data uses the CSR layout");
    check_tree_level(&fx, 0, "binary, CSR, weights");
    teardown(&fx);
    setup(&fx, 450, 4, 0.1, GBT_OBJ_MULTI_SOFTPROB, 3, 32, 0, 0, 1.0);
    check_tree_level(&fx, 1, "softprob class 1 of 3");
    check_tree_level(&fx, 2, "softprob class 2 of 3");
    teardown(&fx);
    return done_testing();
}
