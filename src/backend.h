/*
 * backend.h - the table of operations a backend (CPU, CUDA) provides to
 * the tree grower, and the registry that picks one for a device string.
 *
 * grow.c owns the algorithm and drives every backend the same way; a
 * backend owns its data (binned matrix, gradients, row partition,
 * histograms, training margins) and works on batches of nodes.
 *
 * One tree, as grow.c calls it:
 *   gradients (once per round, all classes)
 *   begin_tree(class)                  every row in node 0
 *   histograms(BUILD node 0 into a slot)
 *   loop: best_splits(batch) -> partition(batch) ->
 *         histograms(BUILD the smaller children, SUBTRACT them from the
 *         parents' slots, which then hold the larger children)
 *   finish_tree(leaf values)           margins += leaf value of each row
 * Node ids are given by grow.c; histogram slots are small integers, also
 * managed by grow.c, below plan->max_slots.
 *
 * Contract every backend keeps (tests/test_backend.c checks it against the
 * CPU backend, which is the reference):
 * - Gradients: for the ranking objectives per query group from
 *   gbt_rank_group_gradients (common/rank_math.h), the group's weight that
 *   of its first row, then 0 for rows gbt_row_sampled rejects; else
 *   per row and class from gbt_row_gradients (common/) with the
 *   objective's parameters req->obj and the weight of gbt_row_weight
 *   (req->obj.scale_pos), 0 for rows gbt_row_sampled
 *   rejects (rows and groups numbered from req->row_base and
 *   req->group_base); per class the exponents from
 *   gbt_quant_exponent of the largest |g| and |h| (after req->max_hook),
 *   the pairs from gbt_quantize, the totals their exact int64 sums.
 * - A histogram holds, for each of qm->cuts.total_slots slots, the exact
 *   int64 sums of the pairs of the node's rows whose value of the slot's
 *   feature falls in the slot's bin.  Missing slots (the last slot of each
 *   feature that has one, src/data/quantize.h) may hold anything: split finding derives the missing sums as
 *   node total minus the feature's value bins.
 * - best_splits scans, for every allowed usable feature
 *   (gbt__feature_usable), the candidates of gbt_candidate_exists, scores
 *   them with gbt_split_gain (with p->monotone: gbt_bounded_split_gain
 *   with the job's bounds and the feature's constraint, the parent's gain
 *   gbt_bounded_node_gain), skips -inf, and returns the first by
 *   gbt_split_before; feature = -1, gain = -inf, bin = -1, default_left = 0,
 *   zero sums when none is valid.  Categorical features take the
 *   candidates of common/cat_math.h instead, and their sets of bins.  The result is a pure function of the
 *   histogram and the job, so every backend returns the same bits.
 * - partition gives each child the rows that go to it, in any order (the
 *   CPU keeps their order; CUDA's one-pass partition does not): nothing
 *   computed from a node's rows depends on their order (integer sums, a
 *   row's own margin, the leaf refit's sort), so the model is the same.
 * - Margins are doubles; finish_tree adds the given double values.
 */
#ifndef GBT_BACKEND_H
#define GBT_BACKEND_H

#include <stdint.h>

#include "common/split_math.h"
#include "common/types.h"
#include "gbt.h"
#include "data/quantize.h"
#include "params/params.h"

struct gbt_forest;
struct gbt_pages;
struct gbt_dview;
struct gbt_shap_forest;

/* What a backend needs to set up training on one dataset. */
struct gbt_train_plan {
    const struct gbt_qmatrix *qm; /* binned training data (host) */
    /*
     * With a backend whose stream_pages is set, the pages of a dataset made
     * from batches with a cache prefix (data/pages.h): qm then holds the
     * cuts, nrow and layout but no codes, and the backend reads the pages
     * in order whenever it needs codes.  NULL: the codes are in qm.
     */
    const struct gbt_pages *pages;
    const float *label;           /* nrow * num_target, row-major */
    int num_target;               /* labels per row: num_class (multi-target: output k fits label k) or 1 */
    const float *weight;          /* nrow, or NULL for all 1 */
    const double *margin;         /* nrow * num_class initial raw scores, row-major */
    uint64_t nrow;
    int num_class;
    int objective;      /* enum gbt_objective_id */
    /* ranking objectives: group g is rows [group_ptr[g], group_ptr[g + 1]); else NULL, 0 */
    const uint32_t *group_ptr;
    uint64_t ngroups;
    uint32_t max_nodes; /* node ids of one tree are below this */
    uint32_t max_slots; /* histogram slots in use at once */
    int nthread;        /* host threads */
    /*
     * 1: every colsample rate is 1, so best_splits is never given masks (a
     * backend may then skip their buffers); 0: masks may come.
     */
    int no_column_sampling;
    /* nfeat monotone constraints (-1, 0, +1; common/constraint_math.h), or NULL for none */
    const int8_t *monotone;
};

/*
 * Distributed training (dist.c): called by gradients and set_gradients
 * with the largest |g| of each class, then the largest |h| (2 * num_class
 * values, the rows of this process), before any quantisation; replaces them
 * with the maxima over every process, so that every process quantises with
 * the same exponents.
 */
struct gbt_max_hook {
    gbt_status (*reduce)(void *user, double *maxima, int n);
    void *user;
};

struct gbt_grad_request {
    int round;
    uint64_t seed;
    double subsample;
    struct gbt_obj_param obj; /* the objective's parameters, scale_pos_weight among them */
    /* the global index of local row 0 and of local query group 0 (row sampling, pair draws) */
    uint64_t row_base, group_base;
    const struct gbt_max_hook *max_hook; /* NULL: one process */
    /*
     * lambdarank_unbiased (obj.rank_npos > 0), host memory: the position
     * biases ti+ and tj- (rank_npos each), and li and lj, one per row, that
     * gradients fills (common/rank_math.h; rank_lj == rank_li + nrow); else
     * NULL.
     */
    const double *rank_tplus, *rank_tminus;
    double *rank_li, *rank_lj;
};

/* One class's gradients for this round: exact totals and fixed-point exponents. */
struct gbt_class_sums {
    struct gbt_hbin total;
    int g_exp, h_exp;
};

enum gbt_hist_op {
    GBT_HIST_BUILD,   /* slot := histogram of node's rows */
    GBT_HIST_SUBTRACT /* slot := slot - src */
};

struct gbt_hist_job {
    int32_t op;
    int32_t node;
    int32_t slot;
    int32_t src;
};

struct gbt_split_job {
    int32_t node;
    int32_t slot;
    struct gbt_hbin total; /* the node's sums */
    /* bounds of the node's weight (with p->monotone; common/constraint_math.h), else unused */
    double lower, upper;
};

struct gbt_partition_job {
    int32_t node, left, right;
    int32_t feature, bin, default_left;
    /* a categorical split: the bins of cat_set (a bitset) go right, the others left */
    int32_t is_cat;
    const uint32_t *cat_set;
};

struct gbt_leaf {
    int32_t node;
    int32_t reserved;
    double value; /* added to the margins of the node's rows */
};

struct gbt_backend_ops {
    const char *name;
    /* 1: open takes plan->pages and streams them; 0: it needs the codes in plan->qm */
    int stream_pages;
    int (*device_count)(void);
    /*
     * Optional (NULL: none): why device_count() is 0 when the driver could
     * not count the devices (no driver, or one too old for the runtime),
     * as text for messages; NULL when counting succeeded.
     */
    const char *(*device_error)(void);
    gbt_status (*describe)(int ordinal, char *name, size_t name_len, int *cc_major,
                           int *cc_minor, uint64_t *total_bytes, uint64_t *free_bytes);
    gbt_status (*open)(int ordinal, const struct gbt_train_plan *plan, void **ctx);
    void (*close)(void *ctx);
    /* Gradients of every class from the current margins; out has num_class entries. */
    gbt_status (*gradients)(void *ctx, const struct gbt_grad_request *req,
                            struct gbt_class_sums *out);
    /*
     * Gradients computed by the host (custom objectives, survival
     * objectives), instead of `gradients`: g and h hold nrow * num_class
     * doubles, class-major (class k's at k * nrow), weights and row sampling
     * already applied; quantised as `gradients` does (per class exponents of
     * the largest |g| and |h|, through max_hook when not NULL, gbt_quantize,
     * exact totals).
     */
    gbt_status (*set_gradients)(void *ctx, const double *g, const double *h,
                                const struct gbt_max_hook *max_hook, struct gbt_class_sums *out);
    /* Starts a tree of class cls: every row in node 0. */
    gbt_status (*begin_tree)(void *ctx, int cls);
    /* Runs the BUILD jobs, then the SUBTRACT jobs. */
    gbt_status (*histograms)(void *ctx, const struct gbt_hist_job *jobs, int n);
    /*
     * The best split of each job's node over the features whose mask byte
     * is set (masks: n rows of nfeat bytes, or NULL for every feature).
     * With categorical features, cat_sets holds n sets of
     * gbt__cuts_cat_words words: job j's is the bitset of the bins that go
     * right when out[j].is_cat (else anything); NULL without them.
     */
    gbt_status (*best_splits)(void *ctx, const struct gbt_split_job *jobs, int n,
                              const uint8_t *masks, const struct gbt_split_params *p,
                              struct gbt_split *out, uint32_t *cat_sets);
    /* Splits each job's node: its rows go to the left or right child (in any order). */
    gbt_status (*partition)(void *ctx, const struct gbt_partition_job *jobs, int n);
    /* Adds each leaf's value to its rows' margins of the tree's class. */
    gbt_status (*finish_tree)(void *ctx, const struct gbt_leaf *leaves, int n);
    /* Copies the training margins (nrow * num_class, row-major) to the host. */
    gbt_status (*read_margins)(void *ctx, double *out);
    /*
     * Replaces the training margins by in (nrow * num_class, row-major):
     * a round of parallel trees with row sampling computes each tree's
     * gradients from the round's starting margins (train/booster.c).
     */
    gbt_status (*write_margins)(void *ctx, const double *in);
    /*
     * Copies the row list of the tree being grown (nrow row ids, grouped
     * by node as partition left them) and each node's first position and
     * row count (max_nodes each; nodes the tree never made hold anything).
     * A split node keeps its range, its children's rows together.  For
     * the objectives that refit leaves (leaf_refit.c).
     */
    gbt_status (*read_rows)(void *ctx, uint32_t *rows, uint64_t *node_begin, uint64_t *node_count);
    /* For tests: a slot's histogram (total_slots bins) and a class's fixed-point gradients. */
    gbt_status (*read_histogram)(void *ctx, int slot, struct gbt_hbin *out);
    /* Replaces a slot's histogram (total_slots bins): the sums of every process (dist.c). */
    gbt_status (*write_histogram)(void *ctx, int slot, const struct gbt_hbin *in);
    gbt_status (*read_gradients)(void *ctx, int cls, struct gbt_gpair *out);
    /*
     * Optional (NULL: the host walks the trees, predict.c): the raw scores
     * of trees [t0, t1) of f (t0 a multiple of K) for every row of v on device `ordinal`, into
     * margin_out (v->nrow * K, row-major), each row starting from its
     * base_margin or base[k]; the same bits as gbt__forest_predict's sums.
     * Safe to call from many threads at once.
     */
    gbt_status (*predict_margins)(int ordinal, const struct gbt_forest *f, uint32_t t0, uint32_t t1, int K,
                                  const double *base, const struct gbt_dview *v,
                                  double *margin_out);
    /*
     * Optional (NULL: the host computes it, shap.c): output `kind` (enum
     * gbt_explain_kind) of the forest f for nrow rows of nfeat values each
     * (x, NaN: missing) starting from base (nrow * K), into out (nrow times
     * the kind's width, see gbt__explain_width); the same bits as the
     * host's.  Safe to call from many threads at once.
     */
    gbt_status (*predict_explain)(int ordinal, const struct gbt_shap_forest *f, int kind,
                                  const float *x, const double *base, uint64_t nrow, float *out);
    /*
     * Optional (NULL: the host bins, gbt__quantize): the bin cuts and the
     * binned matrix of d with max_bin computed on device `ordinal`, into
     * out (host memory); byte for byte gbt__quantize's.
     */
    gbt_status (*quantize)(int ordinal, const gbt_dataset *d, int max_bin, struct gbt_qmatrix *out);
};

const struct gbt_backend_ops *gbt__backend_cpu(void);
/* The CUDA backend, or NULL when the library was built without it. */
const struct gbt_backend_ops *gbt__backend_cuda(void);


/*
 * Picks the backend for a device string: an explicit CUDA device that is not
 * there is GBT_E_NO_DEVICE; "auto" takes CUDA device 0 when usable, else the
 * CPU, and logs the choice.  With no device, the messages say why when the
 * driver did (device_error).
 */
gbt_status gbt__device_resolve(const char *text, int verbosity,
                               const struct gbt_backend_ops **ops, int *ordinal);

#endif
