/*
 * quantize.h - bin cuts and the binned matrix.
 *
 * Feature f has nbins[f] value bins; bin b holds the values v with
 * cut[b-1] <= v < cut[b] (cut[-1] = -inf): each cut is the smallest
 * training value of the next bin, as in XGBoost, and the last cut is
 * FLT_MAX.  A split after bin t sends v < cut[t] left; after the last bin
 * (every present value left, FLT_MAX too) the tree stores it mirrored,
 * threshold -FLT_MAX (grow.c).  Cuts are computed
 * once, by one rule for every backend (src/common/cuts.h).
 *
 * Histograms have one slot per value bin plus one slot for missing values
 * per feature: feature f owns slots [offset[f], offset[f+1]), the last of
 * them the missing slot.
 *
 * The binned matrix is dense (row-major codes, code nbins[f] = missing;
 * uint8 when max_bin <= 256, else uint16) or, for sparse data, CSR (each
 * row's present values as global slot numbers, ascending).
 *
 * A column-major copy (struct gbt_qcols) serves the CPU's row partition,
 * which reads one feature of many rows: per feature either a dense column
 * of codes (nrow of them, nbins[f] = missing; one byte each for
 * GBT_QM_DENSE8, else two) or, for a feature present in fewer than a
 * quarter of the rows (CSR layout only), its present rows ascending with
 * their codes.  The CPU backend builds it when a training opens and frees
 * it when it closes; the binned matrix (kept with the dataset, binned.h)
 * does not hold it, so the CUDA backend, which reads the row-major codes,
 * never pays for it.
 */
#ifndef GBT_QUANTIZE_H
#define GBT_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "common/cuts.h"
#include "data/dataset.h"

/* The most distinct categories one feature may have in training data (16-bit bin codes). */
#define GBT_CAT_MAX_DISTINCT 65535u

enum gbt_qlayout { GBT_QM_DENSE8, GBT_QM_DENSE16, GBT_QM_CSR };

/* Data sparser than this (present values / cells) is binned as CSR. */
#define GBT_SPARSE_DENSITY 0.25

struct gbt_cuts {
    uint32_t nfeat;
    uint32_t total_slots;
    uint32_t *offset;     /* nfeat + 1 */
    uint32_t *nbins;      /* value bins of each feature */
    /*
     * total_slots; cut[offset[f] + b]; NaN in missing slots.  Each feature
     * has nbins[f] value slots and one missing slot, except in GBT_QM_CSR
     * layout a feature f > 0 without values, which has none (R3).
     */
    float *cut;
    uint8_t *has_missing; /* the binned data has missing values of the feature */
    /*
     * Categorical features (gbt_dataset_set_feature_types): is_cat[f] is 1
     * for them (NULL when there are none).  Such a feature has one bin per
     * distinct category of the training data, ascending, whatever max_bin
     * (at most GBT_CAT_MAX_DISTINCT); its cuts are the numeric ones of
     * those values (each the next bin's category, the last FLT_MAX), so
     * every category finds its bin by the same search, and category[k] is
     * the category of slot k (total_slots entries; 0 in numeric features).
     */
    uint8_t *is_cat;
    uint32_t *category;
};

struct gbt_qmatrix {
    struct gbt_cuts cuts;
    uint64_t nrow;
    int layout;
    uint8_t *codes8;   /* GBT_QM_DENSE8: nrow * nfeat */
    uint16_t *codes16; /* GBT_QM_DENSE16: nrow * nfeat */
    uint64_t *row_ptr; /* GBT_QM_CSR: nrow + 1 */
    uint32_t *slots;   /* GBT_QM_CSR: row_ptr[nrow] global slots */
};

/* The column-major copy: feature f's entries are [col_off[f], col_off[f+1]). */
struct gbt_qcols {
    uint64_t *col_off;  /* nfeat + 1 */
    uint8_t *col_dense; /* nfeat: 1 when the column holds every row */
    uint8_t *col_code8; /* codes, GBT_QM_DENSE8 */
    uint16_t *col_code; /* codes, the other layouts */
    uint32_t *col_row;  /* the row of each entry (sparse columns; unused in dense ones) */
};

/* The layout of nrow x ncol data with nnz present values binned with max_bin. */
int gbt__qm_layout(uint64_t nrow, uint64_t ncol, uint64_t nnz, int max_bin);

/* A feature's cut budget: in the dense uint8 layout a feature with missing values keeps one code for them. */
static inline uint32_t gbt__feature_budget(int max_bin, int layout, int has_missing)
{
    return layout == GBT_QM_DENSE8 && has_missing && max_bin > 255 ? 255u : (uint32_t)max_bin;
}

/* The largest of n row weights (w NULL: 1): a maximum, so the same on any thread count. */
double gbt__max_weight(const float *w, uint64_t n, int nthread);

/*
 * Fills c's offset, total_slots and cut (allocated here) from c->nbins
 * (nfeat set, offset allocated): feature f's cuts are read at tmp_cuts +
 * at[f], or with at NULL at tmp_cuts + f * stride.  One missing slot per
 * feature, none for an empty feature f > 0 in the CSR layout (R3).
 */
gbt_status gbt__cuts_assemble(struct gbt_cuts *c, int layout, const float *tmp_cuts, const uint64_t *at, size_t stride);

/*
 * Computes weighted-quantile cuts for d (weights from d's "weight" field)
 * and bins it.  At most max_bin value bins per numeric feature; in the
 * dense uint8 layout a feature with missing values keeps one code for
 * them, so it gets at most 255 value bins at max_bin = 256.  A categorical
 * feature with more categories than the uint8 layout holds makes the
 * dense layout uint16.
 */
gbt_status gbt__quantize(const gbt_dataset *d, int max_bin, int nthread, struct gbt_qmatrix *out);

/*
 * Distributed training (dist.c): the cuts of every process's rows.  The
 * layout follows nrow and nnz, the counts over every process; sum_counts
 * sums each feature's present values over the processes (in place),
 * max_weight replaces *w by its maximum over the processes, merge merges
 * one feature's distinct values (keys ascending, gbt_cut_key) and their
 * fixed-point weights (common/cuts.h) over the processes into new buffers
 * (free(); the weights' buffer has room for one more), keys ascending,
 * the weights of a value present in several
 * processes summed (exact integers).  Collective: every process calls them,
 * the merges in feature order.
 */
struct gbt_quant_dist {
    uint64_t nrow, nnz;
    gbt_status (*sum_counts)(void *user, uint64_t *count, uint32_t nfeat);
    gbt_status (*max_weight)(void *user, double *w);
    gbt_status (*merge)(void *user, const uint32_t *keys, const uint64_t *w, size_t n, uint32_t **mkeys,
                        uint64_t **mw, size_t *mn);
    void *user;
};

/* gbt__quantize with cuts over every process's rows (dist NULL: this process's). */
gbt_status gbt__quantize_dist(const gbt_dataset *d, int max_bin, int nthread, const struct gbt_quant_dist *dist,
                              struct gbt_qmatrix *out);

/*
 * The distinct present values of each feature f of d, ascending
 * (gbt_cut_key, -0 as 0), into new arrays keys[f] (n[f] of them) and their
 * fixed-point weights at `shift` (common/cuts.h) into w[f] (room for n[f]
 * + 1): what a process gives gbt_quant_dist's merge, here for one batch of
 * an iterator (dataset_iter.c).  keys, w and n have d->ncol entries; on
 * failure the arrays made so far are left for the caller to free.
 */
gbt_status gbt__quantize_distinct(const gbt_dataset *d, int shift, int nthread, uint32_t **keys, uint64_t **w,
                                  size_t *n);

/*
 * Dense rows read in place: value (r, f) at data[r * stride + f]; NaN and
 * (when it is not NaN) `missing` are missing.
 */
struct gbt_dense_src {
    const float *data;
    uint64_t stride;
    float missing;
};

/*
 * The cuts and layout gbt__quantize makes for d's rows, with those rows
 * read in place from src (d holds their shape, nnz, weights and feature
 * types, no values) and never copied whole: each thread gathers one
 * feature's present values at a time.  count[f] is feature f's present
 * values.  Into out, without codes (gbt__quantize_rows bins the rows).
 */
gbt_status gbt__quantize_cuts_in_place(const gbt_dataset *d, const struct gbt_dense_src *src, const uint64_t *count,
                                       int max_bin, int nthread, struct gbt_qmatrix *out);

/*
 * Bins d's rows with the cuts and layout of q (made for data of d's
 * columns) into part: part's codes (or CSR rows and slots) for d->nrow
 * rows; part holds no cuts of its own (they stay q's).  An iterator's
 * second pass bins each batch so (dataset_iter.c).
 */
gbt_status gbt__quantize_rows(const gbt_dataset *d, const struct gbt_qmatrix *q, int nthread,
                              struct gbt_qmatrix *part);

void gbt__qmatrix_free(struct gbt_qmatrix *q);

/* The column-major copy of q's codes (nthread threads for dense layouts). */
gbt_status gbt__qcols_build(const struct gbt_qmatrix *q, int nthread, struct gbt_qcols *out);

void gbt__qcols_free(struct gbt_qcols *c);

/* The value bin of v (not NaN) among n cuts (common/cuts.h: the same search on the device). */
static inline uint32_t gbt__bin_search(const float *cut, uint32_t n, float v)
{
    return gbt_cut_bin(cut, n, v);
}

/* The value bin of v (not NaN) in feature f. */
static inline uint32_t gbt__bin_of(const struct gbt_cuts *c, uint32_t f, float v)
{
    return gbt__bin_search(c->cut + c->offset[f], c->nbins[f], v);
}

/* Row r's code for feature f: its value bin, or nbins[f] when missing. */
uint32_t gbt__qm_code(const struct gbt_qmatrix *q, uint64_t r, uint32_t f);

/* Whether feature f is categorical. */
static inline int gbt__cuts_is_cat(const struct gbt_cuts *c, uint32_t f)
{
    return c->is_cat != NULL && c->is_cat[f];
}

/*
 * The words of one split's set of bins (a bitset over the bins of the
 * categorical feature with the most): 0 without categorical features.
 */
static inline uint32_t gbt__cuts_cat_words(const struct gbt_cuts *c)
{
    uint32_t most = 0;
    for (uint32_t f = 0; c->is_cat != NULL && f < c->nfeat; f++)
        if (c->is_cat[f] && c->nbins[f] > most) most = c->nbins[f];
    return (most + 31u) / 32u;
}

/* Whether feature f can split at all (two value bins, or one and missing values). */
static inline int gbt__feature_usable(const struct gbt_cuts *c, uint32_t f)
{
    return c->nbins[f] >= 2 || (c->nbins[f] == 1 && c->has_missing[f]);
}

#endif
