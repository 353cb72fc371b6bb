/*
 * dist.c - distributed training by rows: the exchanges of dist.h.
 */
#include "train/dist.h"

#include <stdlib.h>
#include <string.h>

#include "data/binned.h"
#include "data/categories.h"
#include "data/dataset.h"
#include "data/distinct.h"
#include "util/error.h"
#include "objective/leaf_refit.h"
#include "util/util.h"

gbt_status gbt__dist_open(struct gbt_comm *c, gbt_status s, uint64_t nrow, uint64_t ngroups,
                          struct gbt_dist **out)
{
    struct gbt_dist *d = NULL;
    uint64_t gtotal = 0;
    *out = NULL;
    if (s == GBT_OK) s = gbt__alloc(&d, 1, sizeof *d, 1, "distributed state");
    s = gbt__comm_agree(c, s);
    if (s != GBT_OK) {
        free(d);
        return s;
    }
    d->comm = c;
    s = gbt__comm_row_offset(c, nrow, &d->row_base, &d->nrow_total);
    if (s == GBT_OK) s = gbt__comm_row_offset(c, ngroups, &d->group_base, &gtotal);
    if (s != GBT_OK) {
        free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}

void gbt__dist_free(struct gbt_dist *d)
{
    free(d);
}

gbt_status gbt__dist_agree(struct gbt_dist *d, gbt_status s)
{
    if (d->failed) return s;
    s = gbt__comm_agree(d->comm, s);
    if (s != GBT_OK) d->failed = 1;
    return s;
}

gbt_status gbt__dist_check_same(struct gbt_dist *d, uint64_t ncol, uint64_t sig)
{
    const int P = d->comm->size;
    int64_t *v = NULL;
    gbt_status s = gbt__alloc(&v, 3 * (size_t)P, sizeof *v, 1, "process checks");
    s = gbt__dist_agree(d, s);
    if (s != GBT_OK) {
        free(v);
        return s;
    }
    /* each process's feature count and digest (as two halves), then compared with process 0's */
    v[3 * d->comm->rank] = (int64_t)ncol;
    v[3 * d->comm->rank + 1] = (int64_t)(sig >> 32);
    v[3 * d->comm->rank + 2] = (int64_t)(sig & 0xffffffffu);
    s = d->comm->ops->allreduce_i64(d->comm->impl, v, 3 * (size_t)P, GBT_COMM_SUM);
    for (int r = 1; r < P && s == GBT_OK; r++) {
        if (v[3 * r] != v[0])
            s = gbt__fail(GBT_E_INVALID_ARG,
                          "rank %d: its data has %lld features, rank 0's %lld: every part must have the "
                          "same columns", r, (long long)v[3 * r], (long long)v[0]);
        else if (v[3 * r + 1] != v[1] || v[3 * r + 2] != v[2])
            s = gbt__fail(GBT_E_PARAM, "rank %d: its parameters differ from rank 0's: every process "
                                       "must set the same parameters", r);
    }
    if (s != GBT_OK) d->failed = 1;
    free(v);
    return s;
}

/* Feature f's category texts by code (n of them) in *out (free()); NULL entries for codes not there. */
static gbt_status by_code(const struct gbt_cat_dict *dict, const struct gbt_cat_entry ***out)
{
    const struct gbt_cat_entry **v = NULL;
    FORWARD_IF_ERROR(gbt__alloc(&v, dict->n ? dict->n : 1, sizeof *v, 1, "category names"));
    for (uint32_t i = 0; i < dict->n; i++)
        if (dict->entries[i].code < dict->n) v[dict->entries[i].code] = &dict->entries[i];
    *out = v;
    return GBT_OK;
}

/* The failure naming the first category where rank r's names (text) differ from rank 0's (first). */
static gbt_status categories_differ(const char *first, const char *text, int r, uint64_t ncol)
{
    struct gbt_cat_dict *a = NULL, *b = NULL;
    const struct gbt_cat_entry **va = NULL, **vb = NULL;
    gbt_status s = GBT_OK;
    int found = 0;
    if (*first) s = gbt__cat_dicts_parse(first, ncol, NULL, 0, &a);
    if (s == GBT_OK && *text) s = gbt__cat_dicts_parse(text, ncol, NULL, 0, &b);
    for (uint64_t f = 0; f < ncol && s == GBT_OK && !found; f++) {
        const uint32_t na = a ? a[f].n : 0, nb = b ? b[f].n : 0;
        static const struct gbt_cat_dict none = {0, 0, NULL};
        s = by_code(a ? &a[f] : &none, &va);
        if (s == GBT_OK) s = by_code(b ? &b[f] : &none, &vb);
        for (uint32_t c = 0; s == GBT_OK && c < (na > nb ? na : nb); c++) {
            const struct gbt_cat_entry *x = c < na ? va[c] : NULL, *y = c < nb ? vb[c] : NULL;
            if (x && y && x->len == y->len && memcmp(x->text, y->text, x->len) == 0) continue;
            s = gbt__fail(GBT_E_INVALID_ARG,
                          "rank %d: feature %llu's categories differ from rank 0's: category %u is %s%.*s%s there, "
                          "%s%.*s%s on rank 0 (%u categories there, %u on rank 0): a code must mean the same "
                          "category on every rank, so every rank's data must have the same categories (gbtrain: "
                          "the same names in the column of every rank's file)",
                          r, (unsigned long long)f, c, y ? "'" : "", y ? (int)(y->len > 80 ? 80 : y->len) : 6,
                          y ? y->text : "absent", y ? "'" : "", x ? "'" : "",
                          x ? (int)(x->len > 80 ? 80 : x->len) : 6, x ? x->text : "absent", x ? "'" : "", nb, na);
            found = 1;
        }
        free(va);
        free(vb);
        va = vb = NULL;
    }
    if (s == GBT_OK)
        s = gbt__fail(GBT_E_INVALID_ARG, "rank %d: its category names differ from rank 0's: a code must mean the "
                                         "same category on every rank", r);
    if (a) gbt__cat_dicts_free(a, ncol);
    if (b) gbt__cat_dicts_free(b, ncol);
    return s;
}

gbt_status gbt__dist_check_categories(struct gbt_dist *d, const char *json, uint64_t ncol)
{
    const int P = d->comm->size;
    const char *mine = json ? json : "", *at;
    size_t *counts = NULL;
    char *all = NULL;
    gbt_status s = gbt__alloc(&counts, (size_t)P, sizeof *counts, 1, "process checks");
    s = gbt__dist_agree(d, s);
    if (s == GBT_OK) s = gbt__comm_gather_all(d->comm, mine, strlen(mine) + 1, (void **)&all, counts);
    /* every process compares the same texts, so all fail alike without another exchange */
    at = all;
    for (int r = 1; r < P && s == GBT_OK; r++) {
        at += counts[r - 1];
        if (counts[r] != counts[0] || memcmp(at, all, counts[0]) != 0) s = categories_differ(all, at, r, ncol);
    }
    if (s != GBT_OK) d->failed = 1;
    free(all);
    free(counts);
    return s;
}

/* ---- gathers ------------------------------------------------------------- */

static gbt_status gather(struct gbt_dist *d, const void *part, size_t bytes, void **out)
{
    FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    return gbt__comm_gather_all(d->comm, part, bytes, out, NULL);
}

gbt_status gbt__dist_gather_doubles(struct gbt_dist *d, const double *part, uint64_t n, double **out)
{
    return gather(d, part, n * sizeof *part, (void **)out);
}

/*
 * One optional float field (a row each), gathered when any process has it:
 * a process without it contributes `fill` for its rows (weights: 1), or,
 * when `what` is not NULL, every process fails naming it (labels, bounds).
 */
static gbt_status gather_field(struct gbt_dist *d, const float *part, uint64_t nrow, float fill,
                               const char *what, float **out)
{
    int64_t has[2] = {part != NULL, -(int64_t)(part != NULL)};
    float *tmp = NULL;
    gbt_status s;
    *out = NULL;
    FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    FORWARD_IF_ERROR(d->comm->ops->allreduce_i64(d->comm->impl, has, 2, GBT_COMM_MAX));
    if (!has[0]) return GBT_OK;
    if (what && has[1] == 0) {
        /* some process has the field and some has not: the same answer everywhere */
        d->failed = 1;
        return gbt__fail(GBT_E_INVALID_ARG, "%s: some processes' data have them and some not; every "
                                            "part must have the same fields", what);
    }
    if (part == NULL) {
        s = gbt__alloc(&tmp, nrow ? nrow : 1, sizeof *tmp, 0, "a gathered field");
        for (uint64_t r = 0; r < nrow && s == GBT_OK; r++) tmp[r] = fill;
        s = gbt__dist_agree(d, s);
        if (s != GBT_OK) {
            free(tmp);
            return s;
        }
        part = tmp;
    } else {
        FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    }
    s = gather(d, part, nrow * sizeof *part, (void **)out);
    free(tmp);
    return s;
}

gbt_status gbt__dist_gather_labels(struct gbt_dist *d, const gbt_dataset *part, gbt_dataset **out)
{
    gbt_dataset *g = NULL;
    uint64_t before = 0, total = 0;
    gbt_status s = gbt__dataset_alloc(&g);
    s = gbt__dist_agree(d, s);
    if (s == GBT_OK) s = gbt__comm_row_offset(d->comm, part->nrow, &before, &total);
    if (s != GBT_OK) {
        gbt_dataset_free(g);
        return s;
    }
    g->nrow = total;
    /* multi-target: T labels per row, row-major, so a part's labels are its rows' */
    s = gather_field(d, part->label, part->nrow * (uint64_t)gbt__dataset_targets(part), 0.0f, "labels", &g->label);
    g->ntarget = part->ntarget;
    if (s == GBT_OK) s = gather_field(d, part->weight, part->nrow, 1.0f, NULL, &g->weight);
    if (s == GBT_OK) s = gather_field(d, part->label_lower, part->nrow, 0.0f, "label_lower_bound", &g->label_lower);
    if (s == GBT_OK) s = gather_field(d, part->label_upper, part->nrow, 0.0f, "label_upper_bound", &g->label_upper);
    if (s == GBT_OK) {
        s = gather(d, part->groups, part->ngroups * sizeof *part->groups, (void **)&g->groups);
        if (s == GBT_OK) {
            uint64_t n = 0;
            int64_t ng = (int64_t)part->ngroups;
            s = d->comm->ops->allreduce_i64(d->comm->impl, &ng, 1, GBT_COMM_SUM);
            g->ngroups = (uint64_t)ng;
            for (uint64_t i = 0; i < g->ngroups; i++) n += g->groups[i];
            if (g->ngroups == 0) {
                free(g->groups);
                g->groups = NULL;
            } else if (n != g->nrow) {
                s = gbt__fail(GBT_E_INVALID_ARG, "query groups hold %llu rows but the processes %llu",
                              (unsigned long long)n, (unsigned long long)g->nrow);
            }
        }
    }
    if (s != GBT_OK) {
        gbt_dataset_free(g);
        return s;
    }
    *out = g;
    return GBT_OK;
}

gbt_status gbt__dist_gather_leaves(void *user, const struct gbt_wvalue *v, const uint64_t *m, int n,
                                   struct gbt_wvalue **all, uint64_t **mall)
{
    struct gbt_dist *d = user;
    const int P = d->comm->size;
    uint64_t *counts = NULL, *at = NULL, total = 0, local = 0;
    struct gbt_wvalue *got = NULL;
    gbt_status s;
    *all = NULL;
    *mall = NULL;
    for (int i = 0; i < n; i++) local += m[i];
    /* every process's count of every leaf, then the values, process after process */
    s = gbt__alloc(&counts, (size_t)P * (size_t)n + 1, sizeof *counts, 1, "leaf counts");
    if (s == GBT_OK) s = gbt__alloc(&at, (size_t)P + 1, sizeof *at, 1, "leaf counts");
    if (s == GBT_OK) s = gbt__alloc(mall, (size_t)n + 1, sizeof **mall, 1, "leaf counts");
    s = gbt__dist_agree(d, s);
    if (s == GBT_OK) {
        memcpy(counts + (size_t)d->comm->rank * (size_t)n, m, (size_t)n * sizeof *m);
        s = d->comm->ops->allreduce_i64(d->comm->impl, (int64_t *)counts, (size_t)P * (size_t)n, GBT_COMM_SUM);
    }
    if (s == GBT_OK) s = gbt__comm_gather_all(d->comm, v, local * sizeof *v, (void **)&got, NULL);
    for (int r = 0; r < P && s == GBT_OK; r++) {
        at[r] = total;
        for (int i = 0; i < n; i++) total += counts[(size_t)r * (size_t)n + i];
    }
    if (s == GBT_OK) s = gbt__alloc(all, total ? total : 1, sizeof **all, 0, "leaf values");
    if (s == GBT_OK) {
        uint64_t k = 0;
        for (int i = 0; i < n; i++)
            for (int r = 0; r < P; r++) {
                const uint64_t c = counts[(size_t)r * (size_t)n + i];
                memcpy(*all + k, got + at[r], c * sizeof *got);
                at[r] += c;
                k += c;
                (*mall)[i] += c;
            }
    }
    free(counts);
    free(at);
    free(got);
    if (s != GBT_OK) {
        free(*all);
        free(*mall);
        *all = NULL;
        *mall = NULL;
    }
    return s;
}

/* ---- cuts ----------------------------------------------------------------- */

static gbt_status sum_counts(void *user, uint64_t *count, uint32_t nfeat)
{
    struct gbt_dist *d = user;
    FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    return d->comm->ops->allreduce_i64(d->comm->impl, (int64_t *)count, nfeat, GBT_COMM_SUM);
}

static gbt_status max_weight(void *user, double *w)
{
    struct gbt_dist *d = user;
    FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    return d->comm->ops->allreduce_f64(d->comm->impl, w, 1, GBT_COMM_MAX);
}

/*
 * One feature's distinct values and weights over the processes: each
 * process's list is gathered (keys, then weights) and the lists merged.
 */
static gbt_status merge(void *user, const uint32_t *keys, const uint64_t *w, size_t n, uint32_t **mkeys,
                        uint64_t **mw, size_t *mn)
{
    struct gbt_dist *d = user;
    const int P = d->comm->size;
    struct gbt_distinct_list *lists = NULL;
    uint32_t *all_keys = NULL;
    uint64_t *all_w = NULL;
    size_t *bytes = NULL, total = 0;
    gbt_status s = gbt__alloc(&bytes, (size_t)P, sizeof *bytes, 0, "merge counts");
    if (s == GBT_OK) s = gbt__alloc(&lists, (size_t)P, sizeof *lists, 1, "merge lists");
    *mkeys = NULL;
    *mw = NULL;
    s = gbt__dist_agree(d, s);
    if (s == GBT_OK) s = gbt__comm_gather_all(d->comm, keys, n * sizeof *keys, (void **)&all_keys, bytes);
    if (s == GBT_OK) s = gbt__comm_gather_all(d->comm, w, n * sizeof *w, (void **)&all_w, NULL);
    for (int r = 0; r < P && s == GBT_OK; r++) {
        lists[r].keys = all_keys + total;
        lists[r].w = all_w + total;
        lists[r].n = bytes[r] / sizeof *all_keys;
        total += lists[r].n;
    }
    if (s == GBT_OK) s = gbt__alloc(mkeys, total ? total : 1, sizeof **mkeys, 0, "merged values");
    if (s == GBT_OK) s = gbt__alloc(mw, total + 1, sizeof **mw, 0, "merged weights");
    if (s == GBT_OK) s = gbt__distinct_merge(lists, (size_t)P, *mkeys, *mw, NULL, mn);
    free(all_keys);
    free(all_w);
    free(bytes);
    free(lists);
    if (s != GBT_OK) {
        free(*mkeys);
        free(*mw);
        *mkeys = NULL;
        *mw = NULL;
    }
    return s;
}

gbt_status gbt__dist_quantize(struct gbt_dist *d, const gbt_dataset *part, int max_bin, int nthread,
                              struct gbt_qmatrix *out)
{
    struct gbt_quant_dist q;
    int64_t nnz = (int64_t)part->nnz;
    FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    FORWARD_IF_ERROR(d->comm->ops->allreduce_i64(d->comm->impl, &nnz, 1, GBT_COMM_SUM));
    q.nrow = d->nrow_total;
    q.nnz = (uint64_t)nnz;
    q.sum_counts = sum_counts;
    q.max_weight = max_weight;
    q.merge = merge;
    q.user = d;
    return gbt__dist_agree(d, gbt__quantize_dist(part, max_bin, nthread, &q, out));
}

/* ---- datasets from batches over the processes --------------------------------- */

static gbt_status peers_agree(void *user, gbt_status s)
{
    return gbt__dist_agree(user, s);
}

static gbt_status peers_max_sum(void *user, double *v, size_t n, int64_t *q, size_t m)
{
    return gbt__dist_max_sum(user, v, n, q, m);
}

void gbt__dist_iter_peers(struct gbt_dist *d, struct gbt_iter_peers *p)
{
    p->nproc = d->comm->size;
    p->agree = peers_agree;
    p->max_sum = peers_max_sum;
    p->merge = merge;
    p->user = d;
}

gbt_status gbt__dist_binned(struct gbt_dist *d, const gbt_dataset *part, int max_bin, int nthread, int verbosity,
                            int stream_pages, struct gbt_binned **out)
{
    /* the dataset's own binning: its cuts were merged over the processes when it was made */
    const struct gbt_binner by = {NULL, -1, "", stream_pages};
    const struct gbt_binned *kept = part->binned;
    int64_t v[4];
    uint32_t h = 2166136261u;
    gbt_status s = GBT_OK;
    *out = NULL;
    if (!part->binned_only) {
        s = gbt__binned_alloc(out);
        s = gbt__dist_agree(d, s);
        if (s == GBT_OK) s = gbt__dist_quantize(d, part, max_bin, nthread, &(*out)->qm);
        return s;
    }
    /* made from batches: its binning must be over these processes, with every process's cuts */
    if (kept == NULL || kept->nproc != d->comm->size || kept->nrow_all != d->nrow_total)
        s = gbt__fail(GBT_E_INVALID_ARG,
                      "its training data was made from batches %s%d processes and %llu rows, but %d processes "
                      "with %llu rows train: make every process's dataset with gbt_dataset_from_iter_mpi (Python: "
                      "QuantileDMatrix inside gbt.collective.CommunicatorContext) over the communicator that trains",
                      kept && kept->nproc > 1 ? "over " : "by itself, not over the ", kept ? kept->nproc : 0,
                      (unsigned long long)(kept ? kept->nrow_all : part->nrow), d->comm->size,
                      (unsigned long long)d->nrow_total);
    if (s == GBT_OK) s = gbt__binned_get(part, max_bin, nthread, verbosity, &by, out);
    s = gbt__dist_agree(d, s);
    if (s != GBT_OK) return s;
    /* the same cuts on every process (a digest of them: its largest and smallest over the processes) */
    for (size_t i = 0; i < (*out)->qm.cuts.total_slots * sizeof(float); i++)
        h = (h ^ ((const unsigned char *)(*out)->qm.cuts.cut)[i]) * 16777619u;
    v[0] = h;
    v[1] = -(int64_t)h;
    v[2] = (*out)->qm.layout;
    v[3] = -(int64_t)(*out)->qm.layout;
    s = d->comm->ops->allreduce_i64(d->comm->impl, v, 4, GBT_COMM_MAX);
    if (s == GBT_OK && (v[0] != -v[1] || v[2] != -v[3]))
        s = gbt__fail(GBT_E_INVALID_ARG, "the processes' datasets made from batches have different bin cuts: "
                                         "make them together, over the communicator that trains");
    if (s != GBT_OK) d->failed = 1;
    return s;
}

/* ---- the backend wrapper ---------------------------------------------------- */

static gbt_status reduce_max(void *user, double *maxima, int n)
{
    struct gbt_dist *d = user;
    FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    return d->comm->ops->allreduce_f64(d->comm->impl, maxima, (size_t)n, GBT_COMM_MAX);
}

gbt_status gbt__dist_max_sum(struct gbt_dist *d, double *v, size_t n, int64_t *q, size_t m)
{
    FORWARD_IF_ERROR(gbt__dist_agree(d, GBT_OK));
    if (n) FORWARD_IF_ERROR(d->comm->ops->allreduce_f64(d->comm->impl, v, n, GBT_COMM_MAX));
    return m ? d->comm->ops->allreduce_i64(d->comm->impl, q, m, GBT_COMM_SUM) : GBT_OK;
}

/* the exact totals of every process, after a gradients call that returned s */
static gbt_status sum_totals(struct gbt_dist *d, gbt_status s, struct gbt_class_sums *out)
{
    int64_t *t = NULL;
    s = gbt__dist_agree(d, s);
    if (s == GBT_OK) s = gbt__alloc(&t, 2 * (size_t)d->K, sizeof *t, 0, "gradient totals");
    s = gbt__dist_agree(d, s);
    for (int k = 0; k < d->K && s == GBT_OK; k++) {
        t[2 * k] = out[k].total.g;
        t[2 * k + 1] = out[k].total.h;
    }
    if (s == GBT_OK) s = d->comm->ops->allreduce_i64(d->comm->impl, t, 2 * (size_t)d->K, GBT_COMM_SUM);
    for (int k = 0; k < d->K && s == GBT_OK; k++) {
        out[k].total.g = t[2 * k];
        out[k].total.h = t[2 * k + 1];
    }
    free(t);
    return s;
}

static gbt_status w_gradients(void *ctx, const struct gbt_grad_request *req, struct gbt_class_sums *out)
{
    struct gbt_dist *d = ctx;
    struct gbt_grad_request r = *req;
    r.row_base = d->row_base;
    r.group_base = d->group_base;
    r.max_hook = &d->hook;
    return sum_totals(d, d->inner->gradients(d->inner_ctx, &r, out), out);
}

static gbt_status w_set_gradients(void *ctx, const double *g, const double *h,
                                  const struct gbt_max_hook *hook, struct gbt_class_sums *out)
{
    struct gbt_dist *d = ctx;
    (void)hook;
    return sum_totals(d, d->inner->set_gradients(d->inner_ctx, g, h, &d->hook, out), out);
}

static gbt_status w_begin_tree(void *ctx, int cls)
{
    struct gbt_dist *d = ctx;
    return d->inner->begin_tree(d->inner_ctx, cls);
}

/* BUILD jobs, their histograms summed over the processes, then the SUBTRACT jobs */
static gbt_status w_histograms(void *ctx, const struct gbt_hist_job *jobs, int n)
{
    struct gbt_dist *d = ctx;
    const size_t T = d->total_slots;
    struct gbt_hist_job *build = NULL, *sub = NULL;
    struct gbt_hbin *h = NULL;
    int nb = 0, ns = 0;
    gbt_status s = gbt__alloc(&build, (size_t)n + 1, sizeof *build, 0, "histogram jobs");
    if (s == GBT_OK) s = gbt__alloc(&sub, (size_t)n + 1, sizeof *sub, 0, "histogram jobs");
    for (int i = 0; i < n && s == GBT_OK; i++) {
        if (jobs[i].op == GBT_HIST_BUILD)
            build[nb++] = jobs[i];
        else
            sub[ns++] = jobs[i];
    }
    if (s == GBT_OK && nb) s = d->inner->histograms(d->inner_ctx, build, nb);
    if (s == GBT_OK && nb) s = gbt__alloc(&h, (size_t)nb * T, sizeof *h, 0, "histograms to sum");
    for (int i = 0; i < nb && s == GBT_OK; i++) s = d->inner->read_histogram(d->inner_ctx, build[i].slot, h + (size_t)i * T);
    s = gbt__dist_agree(d, s);
    /* (every process has the same jobs: the same nb) */
    if (s == GBT_OK && nb)
        s = d->comm->ops->allreduce_i64(d->comm->impl, (int64_t *)h, 2 * (size_t)nb * T, GBT_COMM_SUM);
    for (int i = 0; i < nb && s == GBT_OK; i++) s = d->inner->write_histogram(d->inner_ctx, build[i].slot, h + (size_t)i * T);
    if (s == GBT_OK && ns) s = d->inner->histograms(d->inner_ctx, sub, ns);
    free(build);
    free(sub);
    free(h);
    return s;
}

static gbt_status w_best_splits(void *ctx, const struct gbt_split_job *jobs, int n, const uint8_t *masks,
                                const struct gbt_split_params *p, struct gbt_split *out, uint32_t *cat_sets)
{
    struct gbt_dist *d = ctx;
    return d->inner->best_splits(d->inner_ctx, jobs, n, masks, p, out, cat_sets);
}

static gbt_status w_partition(void *ctx, const struct gbt_partition_job *jobs, int n)
{
    struct gbt_dist *d = ctx;
    return d->inner->partition(d->inner_ctx, jobs, n);
}

static gbt_status w_finish_tree(void *ctx, const struct gbt_leaf *leaves, int n)
{
    struct gbt_dist *d = ctx;
    return d->inner->finish_tree(d->inner_ctx, leaves, n);
}

static gbt_status w_read_margins(void *ctx, double *out)
{
    struct gbt_dist *d = ctx;
    return d->inner->read_margins(d->inner_ctx, out);
}

static gbt_status w_write_margins(void *ctx, const double *in)
{
    struct gbt_dist *d = ctx;
    return d->inner->write_margins(d->inner_ctx, in);
}

static gbt_status w_read_rows(void *ctx, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count)
{
    struct gbt_dist *d = ctx;
    return d->inner->read_rows(d->inner_ctx, rows, node_begin, node_count);
}

static gbt_status w_read_histogram(void *ctx, int slot, struct gbt_hbin *out)
{
    struct gbt_dist *d = ctx;
    return d->inner->read_histogram(d->inner_ctx, slot, out);
}

static gbt_status w_write_histogram(void *ctx, int slot, const struct gbt_hbin *in)
{
    struct gbt_dist *d = ctx;
    return d->inner->write_histogram(d->inner_ctx, slot, in);
}

static gbt_status w_read_gradients(void *ctx, int cls, struct gbt_gpair *out)
{
    struct gbt_dist *d = ctx;
    return d->inner->read_gradients(d->inner_ctx, cls, out);
}

static void w_close(void *ctx)
{
    struct gbt_dist *d = ctx;
    if (d->inner && d->inner_ctx) d->inner->close(d->inner_ctx);
    d->inner_ctx = NULL;
}

static const struct gbt_backend_ops wrapper = {
    .name = "distributed",
    .close = w_close,
    .gradients = w_gradients,
    .set_gradients = w_set_gradients,
    .begin_tree = w_begin_tree,
    .histograms = w_histograms,
    .best_splits = w_best_splits,
    .partition = w_partition,
    .finish_tree = w_finish_tree,
    .read_margins = w_read_margins,
    .write_margins = w_write_margins,
    .read_rows = w_read_rows,
    .read_histogram = w_read_histogram,
    .write_histogram = w_write_histogram,
    .read_gradients = w_read_gradients,
};

void gbt__dist_wrap(struct gbt_dist *d, const struct gbt_backend_ops **ops, void **ctx)
{
    d->inner = *ops;
    d->inner_ctx = *ctx;
    d->hook.reduce = reduce_max;
    d->hook.user = d;
    *ops = &wrapper;
    *ctx = d;
}
