/*
 * types.h - plain data types shared by the core and every backend.
 */
#ifndef GBT_COMMON_TYPES_H
#define GBT_COMMON_TYPES_H

#include <stdint.h>

/* One row's gradient and hessian in fixed point (see quantize_grad.h). */
struct gbt_gpair {
    int32_t g, h;
};

/* A histogram bin or a node total: exact integer sums of gbt_gpair. */
struct gbt_hbin {
    int64_t g, h;
};

/*
 * The best split of a node.  feature < 0: no valid split.  Rows whose bin
 * of `feature` is <= `bin` go left; rows missing the feature go left when
 * default_left is set.  left and right are the children's exact sums.
 * is_cat: a split of a categorical feature (common/cat_math.h): the rows
 * whose bin is in the split's set of bins go right, the others left, and
 * `bin` numbers the candidate (gbt_cat_candidate) for the order of ties.
 */
struct gbt_split {
    double gain;
    int32_t feature;
    int32_t bin;
    int32_t default_left;
    int32_t is_cat;
    struct gbt_hbin left, right;
};

/* Objectives: X(ID, "name"); the enum and the parameter's choices come from here. */
#define GBT_OBJECTIVE_MAP(X)                      \
    X(REG_SQUAREDERROR, "reg:squarederror")       \
    X(REG_LOGISTIC, "reg:logistic")               \
    X(BINARY_LOGISTIC, "binary:logistic")         \
    X(BINARY_LOGITRAW, "binary:logitraw")         \
    X(MULTI_SOFTMAX, "multi:softmax")             \
    X(MULTI_SOFTPROB, "multi:softprob")           \
    X(COUNT_POISSON, "count:poisson")             \
    X(REG_GAMMA, "reg:gamma")                     \
    X(REG_TWEEDIE, "reg:tweedie")                 \
    X(REG_SQUAREDLOGERROR, "reg:squaredlogerror") \
    X(REG_PSEUDOHUBERERROR, "reg:pseudohubererror") \
    X(BINARY_HINGE, "binary:hinge")               \
    X(REG_ABSOLUTEERROR, "reg:absoluteerror")     \
    X(REG_QUANTILEERROR, "reg:quantileerror")     \
    X(SURVIVAL_COX, "survival:cox")               \
    X(SURVIVAL_AFT, "survival:aft")               \
    X(RANK_PAIRWISE, "rank:pairwise")             \
    X(RANK_NDCG, "rank:ndcg")                     \
    X(RANK_MAP, "rank:map")

enum gbt_objective_id {
#define GBT_OBJECTIVE_ENUM_(id, name) GBT_OBJ_##id,
    GBT_OBJECTIVE_MAP(GBT_OBJECTIVE_ENUM_)
#undef GBT_OBJECTIVE_ENUM_
    GBT_OBJ_COUNT
};

/* The most quantiles one reg:quantileerror model fits (quantile_alpha). */
#define GBT_MAX_QUANTILES 32

/*
 * The parameters of an objective's gradients, resolved for this training
 * (see gbt_row_gradients).  Passed to CUDA kernels by value: the fields are
 * ordered so that the struct has no padding (every byte is defined).
 */
struct gbt_obj_param {
    double scale_pos;     /* binary objectives: factor of rows labelled 1; else 1 */
    double poisson_delta; /* count:poisson: the hessian is exp(margin + poisson_delta) */
    double huber_slope;   /* reg:pseudohubererror: the slope delta */
    double tweedie_rho;   /* reg:tweedie: the variance power, in [1, 2) */
    double aft_sigma;     /* survival:aft: the scale of the distribution */
    /* rank:* (common/rank_math.h) */
    double rank_wnorm;           /* groups / sum of group weights (1 without weights) */
    uint32_t rank_num_pair;      /* lambdarank_num_pair_per_sample, resolved */
    uint32_t rank_npos;          /* lambdarank_unbiased: positions with a bias (0: off) */
    int32_t rank_method;         /* enum gbt_rank_pair_method */
    int32_t rank_exp_gain;       /* ndcg_exp_gain */
    int32_t rank_normalization;  /* lambdarank_normalization */
    int32_t rank_score_norm;     /* lambdarank_score_normalization */
    int32_t aft_dist;            /* survival:aft: enum gbt_aft_dist (common/surv_math.h) */
    /* reg:quantileerror: output k fits quantile alpha[k]; reg:absoluteerror: alpha[0] = 0.5 */
    double alpha[GBT_MAX_QUANTILES];
};

#endif
