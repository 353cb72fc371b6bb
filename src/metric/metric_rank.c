/*
 * metric_rank.c - the metrics of ranked lists, per query group, with
 * XGBoost's (3.2) definitions:
 *   ndcg@k   DCG of the first k rows by score over the ideal DCG of the
 *            first k labels; gain 2^y - 1 (ndcg_exp_gain) or y, discount
 *            1 / log2(position + 2).  A query whose ideal DCG is 0 scores
 *            1 (ndcg@k-: 0), and, as in XGBoost, that score is not
 *            multiplied by the query's weight (its weight still counts in
 *            the denominator).
 *   map@k    sum over the relevant rows among the first k of (relevant rows
 *            up to it) / (position + 1), over min(relevant rows, k); binary
 *            labels; a query without relevant rows scores 1 (map@k-: 0),
 *            weighted like any other.
 *   pre@k    relevant rows among the first k over min(k, query size).
 *   auc      per query of 3 rows or more: the pairs (i, j), i before j
 *            once the rows are sorted by label descending, count 1 when
 *            i scores higher, 1/2 on equal scores; the mean over those
 *            queries (weights cancel, as in XGBoost).
 *   aucpr    the area under the precision-recall curve, interpolated
 *            between thresholds as Davis and Goadrich (XGBoost's
 *            BinaryPRAUC); over the whole data with row weights, or the
 *            mean over the queries that have both classes.
 * "ndcg", "map" and "pre" without @k mean @32, as in XGBoost.
 * Ties in score keep row order (stable sorts).  The queries are summed in
 * order on one thread, so the value never depends on threads or device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/gmath.h"
#include "metric/metric.h"
#include "util/util.h"

#define DEFAULT_TOPK 32

static const struct {
    const char *name;
    int id, takes_k;
} rank_metrics[] = {
    {"ndcg", GBT_METRIC_NDCG, 1},
    {"map", GBT_METRIC_MAP, 1},
    {"pre", GBT_METRIC_PRE, 1},
    {"aucpr", GBT_METRIC_AUCPR, 0},
};

int gbt__metric_is_rank(int id)
{
    return id == GBT_METRIC_NDCG || id == GBT_METRIC_MAP || id == GBT_METRIC_PRE ||
           id == GBT_METRIC_AUCPR;
}

int gbt__metric_rank_parse(const char *name, struct gbt_metric *out, gbt_status *status)
{
    for (size_t i = 0; i < sizeof rank_metrics / sizeof rank_metrics[0]; i++) {
        const size_t len = strlen(rank_metrics[i].name);
        const char *rest = name + len;
        struct gbt_metric m = {.id = rank_metrics[i].id, .threshold = 0.5, .rho = 1.5, .huber_slope = 1.0,
                               .maximize = 1, .aft_sigma = 1.0, .topk = DEFAULT_TOPK, .exp_gain = 1};
        if (strncmp(name, rank_metrics[i].name, len) != 0) continue;
        if (*rest != '\0' && *rest != '@' && *rest != '-') continue; /* another metric's name */
        *status = GBT_OK;
        if (!rank_metrics[i].takes_k) {
            if (*rest != '\0') *status = gbt__fail(GBT_E_PARAM, "metric '%s' takes no @k or -", name);
        } else {
            if (*rest == '@') {
                char *end;
                unsigned long k = strtoul(rest + 1, &end, 10);
                if (end == rest + 1 || k < 1 || k > 0xffffffffUL || (*end != '\0' && strcmp(end, "-") != 0)) {
                    *status = gbt__fail(GBT_E_PARAM,
                                        "metric '%s': expected %s@K or %s@K- with a whole K >= 1", name,
                                        rank_metrics[i].name, rank_metrics[i].name);
                } else {
                    m.topk = (uint32_t)k;
                    m.minus = *end == '-';
                }
            } else if (*rest == '-') {
                if (rest[1] != '\0')
                    *status = gbt__fail(GBT_E_PARAM, "metric '%s': nothing may follow '-'", name);
                m.minus = 1;
            }
            if (*status == GBT_OK && m.minus && m.id == GBT_METRIC_PRE)
                *status = gbt__fail(GBT_E_PARAM, "metric '%s': pre@K takes no '-'", name);
        }
        if (*status == GBT_OK && out) *out = m;
        return 1;
    }
    return 0;
}

struct ranked {
    double score;
    float label;
    uint32_t row;
};

/* Score descending, then row ascending: a stable order. */
static int by_score(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* Label descending, then row ascending. */
static int by_label(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->label != y->label) return x->label > y->label ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static double gain(float y, int exp_gain)
{
    return exp_gain ? gbt_pow2i((int)y) - 1.0 : (double)y;
}

static double dcg(const struct ranked *r, uint32_t k, int exp_gain)
{
    double s = 0.0;
    for (uint32_t i = 0; i < k; i++) s += gain(r[i].label, exp_gain) / log2((double)i + 2.0);
    return s;
}

/* Binary PR-AUC of rows r[0..n) sorted by score descending, each weighing w (or weight[row]). */
static double pr_auc(const struct ranked *r, uint32_t n, const float *weight, double w)
{
    double pos = 0.0, neg = 0.0, tp = 0.0, fp = 0.0, tp_prev = 0.0, fp_prev = 0.0, area = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double wi = weight ? (double)weight[r[i].row] : w;
        pos += wi * r[i].label;
        neg += wi * (1.0 - r[i].label);
    }
    if (!(pos > 0.0) || !(neg > 0.0)) return NAN;
    for (uint32_t i = 0; i <= n; i++) {
        if (i == n || (i > 0 && r[i].score != r[i - 1].score)) {
            /* the segment from the previous threshold: precision interpolated as Davis and Goadrich */
            const double re_prev = tp_prev / pos, re = tp / pos;
            double a = 1.0, b = 0.0;
            if (tp != tp_prev) {
                const double h = (fp - fp_prev) / (tp - tp_prev);
                a = 1.0 + h;
                b = (fp_prev - h * tp_prev) / pos;
            }
            if (b != 0.0)
                area += (re - re_prev - b / a * (log(a * re + b) - log(a * re_prev + b))) / a;
            else
                area += (re - re_prev) / a;
            tp_prev = tp;
            fp_prev = fp;
        }
        if (i < n) {
            const double wi = weight ? (double)weight[r[i].row] : w;
            tp += wi * r[i].label;
            fp += wi * (1.0 - r[i].label);
        }
    }
    return area;
}

/* The labels the metric accepts: the first offending row is named. */
static gbt_status check_labels(const struct gbt_metric *m, const float *label, uint64_t n)
{
    static const char *const names[] = {"ndcg", "map", "pre", "aucpr"};
    const char *name = names[m->id - GBT_METRIC_NDCG];
    for (uint64_t r = 0; r < n; r++) {
        const float y = label[r];
        if (m->id == GBT_METRIC_NDCG) {
            if (!(y >= 0.0f) || isinf(y))
                return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is not a finite relevance >= 0 (%s)",
                                 (unsigned long long)r, (double)y, name);
            if (m->exp_gain && (y != floorf(y) || y > 31.0f))
                return gbt__fail(GBT_E_FORMAT,
                                 "row %llu: label %g is not a whole number in 0..31, as ndcg with "
                                 "ndcg_exp_gain=true needs", (unsigned long long)r, (double)y);
        } else if (m->id == GBT_METRIC_AUCPR) {
            if (!(y >= 0.0f && y <= 1.0f))
                return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is outside [0, 1] for aucpr",
                                 (unsigned long long)r, (double)y);
        } else if (y != 0.0f && y != 1.0f) {
            return gbt__fail(GBT_E_FORMAT, "row %llu: label %g is not 0 or 1: %s takes binary relevance",
                             (unsigned long long)r, (double)y, name);
        }
    }
    return GBT_OK;
}

/* The AUC of one query (rows r[0..n) sorted by label descending): pairs ordered correctly. */
static double group_auc(const struct ranked *r, uint32_t n)
{
    double s = 0.0, pairs = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            s += r[i].score > r[j].score ? 1.0 : r[i].score == r[j].score ? 0.5 : 0.0;
            pairs += 1.0;
        }
    return pairs > 0 ? s / pairs : 0.0;
}

gbt_status gbt__metric_rank_eval(const struct gbt_metric *m, const double *margin,
                                 const float *label, const float *weight,
                                 const uint32_t *group_ptr, uint64_t ngroups, uint64_t nrow,
                                 double *out)
{
    struct ranked *r, *ideal = NULL;
    uint32_t maxn = 0;
    double sum = 0.0, wsum = 0.0;
    uint64_t valid = 0;
    const int is_auc = m->id == GBT_METRIC_AUC;
    if (!is_auc) FORWARD_IF_ERROR(check_labels(m, label, nrow));
    if (m->id == GBT_METRIC_AUCPR && group_ptr == NULL) {
        /* the whole data: row weights */
        FORWARD_IF_ERROR(gbt__alloc(&r, nrow ? nrow : 1, sizeof *r, 0, "metric"));
        for (uint64_t i = 0; i < nrow; i++) {
            r[i].score = margin[i];
            r[i].label = label[i];
            r[i].row = (uint32_t)i;
        }
        qsort(r, nrow, sizeof *r, by_score);
        *out = pr_auc(r, (uint32_t)nrow, weight, 1.0);
        free(r);
        return GBT_OK;
    }
    for (uint64_t g = 0; g < ngroups; g++) {
        uint32_t n = group_ptr ? group_ptr[g + 1] - group_ptr[g] : (uint32_t)nrow;
        if (n > maxn) maxn = n;
    }
    FORWARD_IF_ERROR(gbt__alloc(&r, maxn ? maxn : 1, sizeof *r, 0, "metric"));
    if (gbt__alloc(&ideal, maxn ? maxn : 1, sizeof *ideal, 0, "metric") != GBT_OK) {
        free(r);
        return GBT_E_NO_MEMORY;
    }
    for (uint64_t g = 0; g < ngroups; g++) {
        const uint32_t b = group_ptr ? group_ptr[g] : 0;
        const uint32_t n = group_ptr ? group_ptr[g + 1] - b : (uint32_t)nrow;
        const uint32_t k = m->topk && m->topk < n ? m->topk : n;
        const double w = weight ? (double)weight[b] : 1.0;
        double v = 0.0;
        int none = 0; /* no relevant row: the fixed score, unweighted */
        for (uint32_t i = 0; i < n; i++) {
            r[i].score = margin[b + i];
            r[i].label = label[b + i];
            r[i].row = b + i;
        }
        if (is_auc) {
            if (n < 3) continue;
            qsort(r, n, sizeof *r, by_label);
            sum += group_auc(r, n);
            valid++;
            continue;
        }
        qsort(r, n, sizeof *r, by_score);
        if (m->id == GBT_METRIC_AUCPR) {
            v = pr_auc(r, n, NULL, w);
            if (isnan(v)) continue;
            sum += v;
            valid++;
            continue;
        }
        if (m->id == GBT_METRIC_NDCG) {
            double idcg;
            memcpy(ideal, r, n * sizeof *r);
            qsort(ideal, n, sizeof *ideal, by_label);
            idcg = dcg(ideal, k, m->exp_gain);
            if (idcg == 0.0)
                none = 1;
            else
                v = dcg(r, k, m->exp_gain) / idcg;
        } else if (m->id == GBT_METRIC_MAP) {
            double hits = 0.0, ap = 0.0, total = 0.0;
            for (uint32_t i = 0; i < n; i++) {
                if (r[i].label == 0.0f) continue;
                hits += 1.0;
                if (i < k) ap += hits / ((double)i + 1.0);
            }
            total = hits < (double)k ? hits : (double)k;
            if (hits == 0.0)
                none = 1;
            else
                v = ap / total;
        } else { /* pre@k */
            double hits = 0.0;
            for (uint32_t i = 0; i < k; i++) hits += r[i].label != 0.0f;
            v = hits / (double)k;
        }
        if (none) /* XGBoost weighs map's fixed score, not ndcg's */
            sum += (m->minus ? 0.0 : 1.0) * (m->id == GBT_METRIC_MAP ? w : 1.0);
        else
            sum += w * v;
        wsum += w;
    }
    free(r);
    free(ideal);
    if (is_auc || m->id == GBT_METRIC_AUCPR)
        *out = valid ? sum / (double)valid : NAN;
    else
        *out = wsum > 0.0 ? sum / wsum : NAN;
    return GBT_OK;
}
