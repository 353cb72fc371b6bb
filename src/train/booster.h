/*
 * booster.h - the internal layout of gbt_booster: parameters, the model
 * (model/model.h) and the training state that lives between rounds on one
 * dataset.
 */
#ifndef GBT_BOOSTER_H
#define GBT_BOOSTER_H

#include <stdatomic.h>
#include <stdint.h>

#include "params/constraints.h"
#include "backend.h"
#include "data/binned.h"
#include "model/model.h"
#include "train/grow.h"
#include "params/params.h"
#include "util/util.h"

struct gbt_train_state {
    uint64_t data_generation;
    const struct gbt_backend_ops *ops;
    void *ctx;
    int ordinal;
    /* the binned training data: the dataset's kept matrix (binned.h), or a private one (distributed) */
    struct gbt_binned *binned;
    const struct gbt_qmatrix *qm;
    uint8_t *usable;
    struct gbt_constraints cons; /* monotone, interaction, feature weights (constraints.h) */
    uint32_t max_nodes, max_slots; /* max_slots: the histogram pool (histogram_pool_size) */
    struct gbt_grow_stats hist_stats; /* the last round's histogram work */
    /* gradients computed on the host (survival, custom): nrow * K each, class-major */
    double *hg, *hh, *hmargin;
    uint32_t *cox_order; /* survival:cox: rows by |label| (surv_order.h) */
    /*
     * lambdarank_unbiased: ti+ and tj- (rank_npos each; 1 at first), then the
     * last round's li and lj of every row (nrow each; common/rank_math.h)
     */
    double *rank_bias;
    uint32_t rank_npos;
    /* distributed training (dist.h), else NULL: the exchanges, and every process's labels */
    struct gbt_dist *dist;
    gbt_dataset *all;
    /* booster=dart (dart.c): the round's dropped trees, drawn (ready) for the coming round; stale:
       the backend's margins are not the sum of every tree times its weight */
    uint32_t *dart_drop, dart_ndrop;
    int dart_ready, dart_stale;
    struct gbt_linear_cols *lin; /* booster=gblinear: the training data by column (train/linear.c) */
};

struct gbt_comm;
struct gbt_update;

/* One evaluation set's raw scores, kept between rounds. */
struct gbt_eval_cache {
    const gbt_dataset *d; /* compared by address and generation, never read once stale */
    uint64_t generation;  /* d's generation when the scores were computed */
    uint64_t epoch;       /* the model's epoch (gbt_model.epoch) they belong to */
    uint32_t ntrees;      /* trees summed into margin */
    double *margin;       /* nrow * K raw scores */
    gbt_dataset *all;     /* distributed training: every process's labels of the set, else NULL */
    char name[64];        /* a validation set's name, for messages; "" for other data */
    uint64_t used;        /* when last used (a counter), for eviction */
};

struct gbt_booster {
    struct gbt_params params;
    struct gbt_model model;
    struct gbt_train_state *ts;
    char device_used[32];
    /* gbt_booster_set_objective_callback */
    gbt_objective_fn obj_fn;
    void *obj_user;
    /* gbt_booster_set_eval_callback */
    gbt_eval_fn eval_fn;
    void *eval_user;
    int eval_maximize;
    int eval_count; /* its values: 1, or more with gbt_booster_set_eval_names */
    char eval_names[GBT_MAX_CUSTOM_METRICS][64];
    /* gbt_booster_set_round_callback */
    gbt_round_fn round_fn;
    void *round_user;
    /* gbt_booster_set_train_hook */
    gbt_train_hook_fn hook_fn;
    void *hook_user;
    /* gbt_booster_set_early_stopping (es_set 0: the defaults, early_stopping_rounds alone) */
    int es_set, es_rounds, es_maximize, es_save_best;
    double es_min_delta;
    char es_data[64], es_metric[64];
    /* gbt_booster_request_stop: set from a signal handler or another thread, taken by gbt_booster_train */
    atomic_int stop_requested;
    /* gbt_booster_set_mpi_comm: the ranks training together, or NULL (dist.c) */
    struct gbt_comm *comm;
    /* gbt_booster_eval_round: evaluation sets' raw scores between rounds (rounds.c) */
    /* process_type=update (update.c): the trees being updated, the training margins; NULL before */
    struct gbt_update *upd;
    struct gbt_eval_cache *evc;
    int nevc;
    uint64_t evc_clock;
};

/* Frees c's scores (it stays usable, empty). */
void gbt__eval_cache_free(struct gbt_eval_cache *c);

/* The booster's own caches (gbt_booster_eval_round), freed with it. */
void gbt__booster_eval_caches_free(gbt_booster *b);

/* Drops the training state: the next round sets training up again on its data. */
void gbt__booster_drop_state(gbt_booster *b);

/*
 * Sets training up on train (binning, device, the backend's context, the
 * starting scores): the first round on a dataset, or after a rebuild.
 */
gbt_status gbt__booster_build_state(gbt_booster *b, const gbt_dataset *train);

/*
 * Fixes the model's objective, classes, starting scores and features on
 * first training (checks them when training on); all: the labels the
 * starting score comes from (every process's when distributed).
 */
gbt_status gbt__booster_init_model(gbt_booster *b, const gbt_dataset *train, const gbt_dataset *all);

/*
 * process_type=update: the checks of updating and of train against the
 * model, then the update begun (update.c's gbt__update_begin: rounds >= 0
 * refuses more rounds than are left before anything is set aside);
 * custom: the gradients come from the caller.
 */
gbt_status gbt__booster_ready_update(gbt_booster *b, const gbt_dataset *train, int custom, int rounds);

/* The threads the booster's nthread parameter gives. */
int gbt__booster_threads(const gbt_booster *b);

/* The data's feature names against the model's, unless validate_features=0. */
gbt_status gbt__booster_check_names(const gbt_booster *b, const gbt_dataset *d);

/* d's base_margin, when it has one, holds K values per row. */
gbt_status gbt__booster_check_base_margin(const gbt_dataset *d, int K);

/* 1 when `device` is "auto" (a failure on a CUDA device falls back to the CPU). */
int gbt__booster_device_auto(const char *device);

/*
 * Seconds left after `done` of `total` rounds, from the rounds alone:
 * t_setup is when set-up (binning, device, validation margins) ended,
 * t_first when the first round ended.  The first round may still include
 * lazy device set-up, so from the second round on it is left out.
 */
double gbt__eta(double t_setup, double t_first, double now, int done, int total);

#endif
