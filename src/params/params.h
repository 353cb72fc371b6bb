/*
 * params.h - the booster's parameters: one table (params.c) gives every
 * parameter's name, aliases, type, default, range and help text; this
 * struct holds the values.
 */
#ifndef GBT_PARAMS_H
#define GBT_PARAMS_H

#include <stdint.h>

#include "common/types.h"
#include "gbt.h"

#define GBT_MAX_METRICS 16
#define GBT_METRIC_NAME_MAX 32
#define GBT_DEVICE_NAME_MAX 32
#define GBT_MAX_CLASSES 4096
#define GBT_MAX_BASE_SCORE 256 /* values of a base_score list (one is every output's) */
#define GBT_CONSTRAINT_TEXT_MAX 16384 /* bytes of monotone_ and interaction_constraints' text */

enum gbt_booster_kind { GBT_BOOSTER_GBTREE = 0, GBT_BOOSTER_DART = 1, GBT_BOOSTER_GBLINEAR = 2 };
enum gbt_dart_sample { GBT_DART_UNIFORM = 0, GBT_DART_WEIGHTED = 1 };
enum gbt_dart_normalize { GBT_DART_NORM_TREE = 0, GBT_DART_NORM_FOREST = 1 };

enum gbt_grow_policy { GBT_GROW_DEPTHWISE = 0, GBT_GROW_LOSSGUIDE = 1 };

struct gbt_params {
    int64_t objective; /* enum gbt_objective_id */
    int64_t num_class;
    double eta;
    int64_t max_depth;
    int64_t max_leaves;
    int64_t grow_policy;
    int64_t max_bin;
    double histogram_pool_size; /* MB of cached node histograms; <= 0: no limit */
    double lambda;
    double alpha;
    double gamma;
    double min_child_weight;
    double max_delta_step; /* NaN: auto (0.7 for count:poisson, else 0) */
    int64_t max_cat_to_onehot; /* categorical features: one-hot below this many categories */
    int64_t max_cat_threshold; /* categorical features: the most categories of a partition's set */
    double cat_smooth;         /* categorical partitions: LightGBM's regularisation (common/cat_math.h) */
    double cat_l2;
    double min_data_per_group;
    int64_t num_parallel_tree; /* trees per class and round (a random forest's size) */
    int64_t booster;           /* enum gbt_booster_kind */
    double rate_drop;          /* dart: each tree's chance of being dropped in a round */
    int64_t one_drop;          /* dart: drop at least one tree (unless the round skips) */
    double skip_drop;          /* dart: a round's chance of dropping nothing */
    int64_t sample_type;       /* dart: enum gbt_dart_sample */
    int64_t normalize_type;    /* dart: enum gbt_dart_normalize */
    double subsample;
    double colsample_bytree;
    double colsample_bylevel;
    double colsample_bynode;
    double scale_pos_weight; /* binary objectives: factor of the weight of rows labelled 1 */
    double huber_slope;      /* reg:pseudohubererror, mphe */
    double tweedie_variance_power;
    double quantile_alpha[GBT_MAX_QUANTILES]; /* reg:quantileerror, quantile metric */
    int64_t num_quantile_alpha;
    int64_t aft_loss_distribution;     /* survival:aft: enum gbt_aft_dist */
    double aft_loss_distribution_scale; /* survival:aft, aft-nloglik */
    int64_t lambdarank_pair_method;         /* rank:*: enum gbt_rank_pair_method */
    double lambdarank_num_pair_per_sample;  /* NaN: auto (32 for topk, 1 for mean) */
    int64_t ndcg_exp_gain;                  /* rank:ndcg and the ndcg metrics: gain 2^y - 1 (1) or y (0) */
    int64_t lambdarank_normalization;
    int64_t lambdarank_score_normalization;
    int64_t lambdarank_unbiased;            /* rank:*: Unbiased LambdaMART's position biases */
    double lambdarank_bias_norm;            /* their Lp regularisation p */
    /* base_score as given, one value for every output or one per output; none (auto): estimated from the labels */
    double base_score[GBT_MAX_BASE_SCORE];
    int64_t num_base_score;
    /*
     * As given (params/constraints.h), resolved against the training
     * data's features: owned heap text, NULL for none (so that a booster
     * without constraints costs nothing).  A struct holding them is copied
     * with gbt__params_copy and released with gbt__params_free.
     */
    char *monotone_constraints;
    char *interaction_constraints;
    int64_t seed;
    int64_t nthread;
    char device[GBT_DEVICE_NAME_MAX];
    char eval_metric[GBT_MAX_METRICS][GBT_METRIC_NAME_MAX];
    int64_t num_eval_metric;
    int64_t early_stopping_rounds;
    int64_t disable_default_eval_metric; /* no default metric when eval_metric is empty */
    int64_t verbosity;
    int64_t tree_method; /* accepted for XGBoost configurations; always hist */
    int64_t multi_strategy; /* accepted for XGBoost configurations; always one_output_per_tree */
    int64_t updater;     /* enum gbt_updater: gblinear's, or the tree updaters of process_type=update */
    int64_t feature_selector; /* gblinear: enum gbt_linear_selector */
    int64_t top_k;       /* gblinear greedy and thrifty: features per output and round (0: all) */
    int64_t validate_features; /* compare the data's feature names with the model's */
    int64_t process_type; /* enum gbt_process_type */
    int64_t refresh_leaf; /* updater=refresh: 1: leaf values too; 0: the statistics only */
    uint64_t given[2]; /* bit i: the table's parameter i was set (not at its default) */
};

enum gbt_updater {
    GBT_LINEAR_SHOTGUN = 0, GBT_LINEAR_COORD_DESCENT = 1, /* booster=gblinear */
    GBT_UPDATER_REFRESH = 2, GBT_UPDATER_PRUNE = 3, GBT_UPDATER_REFRESH_PRUNE = 4 /* process_type=update */
};
enum gbt_process_type { GBT_PROCESS_DEFAULT = 0, GBT_PROCESS_UPDATE = 1 };
enum gbt_linear_selector {
    GBT_SELECT_CYCLIC = 0, GBT_SELECT_SHUFFLE, GBT_SELECT_RANDOM, GBT_SELECT_GREEDY, GBT_SELECT_THRIFTY
};

/* What changing a parameter affects (bit flags). */
enum {
    GBT_PF_MODEL = 1,   /* defines the model: frozen once the booster has trees */
    GBT_PF_REBUILD = 2, /* changes the training set-up (binning, device, sizes) */
    GBT_PF_DART = 4     /* booster and the dart parameters: saved with the model only by dart models */
};

/* Sets every parameter to its default. */
void gbt__params_init(struct gbt_params *p);

/* dst := a deep copy of src (dst holds nothing to release). */
gbt_status gbt__params_copy(struct gbt_params *dst, const struct gbt_params *src);

/* Releases the texts of p (the constraints); p is then at their default. */
void gbt__params_free(struct gbt_params *p);

/*
 * Parses and stores one parameter.  *flags receives the parameter's GBT_PF_
 * bits.  On failure p is unchanged and the message names the parameter.
 */
gbt_status gbt__params_set(struct gbt_params *p, const char *name, const char *value, int *flags);

/* Writes a parameter's value as text. */
gbt_status gbt__params_get(const struct gbt_params *p, const char *name, char *buf, size_t len);

enum gbt_device_kind { GBT_DEVICE_AUTO, GBT_DEVICE_CPU, GBT_DEVICE_CUDA };

/* Parses "auto", "cpu", "cuda" or "cuda:N" (ordinal -1 for auto/cpu, N or 0 for cuda). */
gbt_status gbt__device_parse(const char *text, int *kind, int *ordinal);

/*
 * Walks the parameters that describe training (for the model file): calls
 * fn(name, value_text) for each, in table order, skipping those that do not
 * change the model (nthread, device, verbosity, eval_metric, ...).
 */
void gbt__params_each_training(const struct gbt_params *p,
                               void (*fn)(const char *name, const char *value, void *user),
                               void *user);

/* obj_param.c: scale_pos_weight where it applies (binary objectives), else 1. */
double gbt__params_scale_pos(const struct gbt_params *p);
/* max_delta_step resolved: auto is 0.7 for count:poisson (as XGBoost), else 0. */
double gbt__params_max_delta_step(const struct gbt_params *p);
/* The objective's parameters for the gradients (both boosters, every backend). */
struct gbt_obj_param gbt__params_obj_param(const struct gbt_params *p);

#endif
