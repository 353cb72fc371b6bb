/*
 * model.h - the model: K raw scores per row, each the starting score plus
 * the sum of its class's trees.  A round holds num_parallel_tree trees per
 * class, stored parallel index first: tree t of a round is parallel tree
 * t / K of class t % K (so tree t of the model is of class t % K).  model.c owns it and its trees; the files
 * of src/model/ read, write, explain and predict it, taking a
 * `const struct gbt_model *` and, where the format holds them, the
 * training parameters.
 */
#ifndef GBT_MODEL_H
#define GBT_MODEL_H

#include <stdint.h>

#include "data/categories.h"
#include "data/dataset.h"
#include "model/predict.h"
#include "model/tree.h"
#include "params/params.h"
#include "util/util.h"

struct gbt_model {
    int K;                /* raw scores per row; 0 until trained or loaded */
    int objective;
    int num_class;
    int num_target;       /* multi-target: K labels per row, one output each; else 0 or 1 */
    int num_parallel_tree; /* trees per class and round, >= 1 */
    uint64_t num_feature;
    int index_base;       /* enum gbt_index_base of the training data (never _GUESSED) */
    struct gbt_file_layout layout; /* of the training file (format NONE: not from a file) */
    double *base;         /* K starting raw scores */
    struct gbt_tree *trees;
    uint32_t ntrees;
    size_t trees_cap;
    /*
     * booster=dart: each tree's weight (ntrees of them, room for trees_cap),
     * by which its leaf values are multiplied in the forest, SHAP and
     * exports; NULL when dart is 0 (every tree weighs 1).
     */
    int dart;
    float *weight;
    struct gbt_forest forest;
    char **feature_names;    /* nfeature_names <= num_feature names, or NULL: "f0", "f1", ... */
    uint64_t nfeature_names;
    /* nfeature_types <= num_feature types (enum gbt_feature_type), or NULL: every feature numeric */
    uint8_t *feature_types;
    uint64_t nfeature_types;
    /* the file listed types, even if none is categorical (XGBoost's reader keeps no all-numeric list) */
    int types_declared;
    int best_iteration;   /* -1: no early stop recorded */
    double best_score;
    /* user attributes (model_attr.c): nattr keys and values, in the order first set */
    char **attr_keys, **attr_values;
    uint64_t nattr;
    uint64_t epoch;       /* moves whenever trees are dropped: raw scores summed before are stale */
    /*
     * booster=gblinear (then no trees): linear_rounds rounds trained, and
     * (num_feature + 1) * K weights, XGBoost's layout: feature f's weight
     * for output k at f * K + k, output k's bias at num_feature * K + k.
     */
    int linear;
    int linear_rounds;
    float *weights;
};

/* Allocates a linear model's zero weights for num_feature and K (set before). */
gbt_status gbt__model_linear_init(struct gbt_model *m);

/* Trees per round: K * num_parallel_tree. */
static inline uint32_t gbt__model_round_trees(const struct gbt_model *m)
{
    return (uint32_t)m->K * (uint32_t)m->num_parallel_tree;
}

/* Labels per row the model was trained on: K for a multi-target model, else 1. */
static inline int gbt__model_targets(const struct gbt_model *m)
{
    return m->num_target > 1 ? m->num_target : 1;
}

/* Complete rounds of the model (0 before training). */
static inline int gbt__model_rounds(const struct gbt_model *m)
{
    if (m->linear) return m->linear_rounds;
    return m->K ? (int)(m->ntrees / gbt__model_round_trees(m)) : 0;
}

/*
 * The model's index of XGBoost's tree j: XGBoost keeps a round's trees
 * class first (class j / P, parallel tree j % P), the model parallel index
 * first.  The same index when num_parallel_tree is 1.
 */
static inline uint32_t gbt__model_tree_of_xgboost(const struct gbt_model *m, uint32_t j)
{
    const uint32_t R = gbt__model_round_trees(m), P = (uint32_t)m->num_parallel_tree, i = j % R;
    return j - i + (i % P) * (uint32_t)m->K + i / P;
}

/* Tree t's weight: 1 but in a dart model. */
static inline float gbt__model_weight(const struct gbt_model *m, uint32_t t)
{
    return m->weight ? m->weight[t] : 1.0f;
}

/* Appends a tree of weight w (1 outside dart) to the model and its forest (t is emptied). */
gbt_status gbt__model_add_tree(struct gbt_model *m, struct gbt_tree *t, float w);
/*
 * A loader's two steps of gbt__model_add_tree: appends a tree to the
 * model alone (t is emptied), and, once gbt__model_check has passed, lays
 * the trees not yet in the forest out for prediction.
 */
gbt_status gbt__model_append_tree(struct gbt_model *m, struct gbt_tree *t, float w);
gbt_status gbt__model_index_trees(struct gbt_model *m);
/*
 * A dart model's weights changed from tree `from` on: the forest lays
 * those trees out again with their new weights, and the epoch moves (raw
 * scores summed before are stale).
 */
gbt_status gbt__model_reweigh(struct gbt_model *m, uint32_t from);

/*
 * The semantic checks of a model built from outside data (model_check.c):
 * GBT_OK, or GBT_E_FORMAT with a message that starts with `what` and names
 * the tree and node.  Needs no forest: loaders call it before
 * gbt__model_index_trees.
 */
gbt_status gbt__model_check(const struct gbt_model *m, const char *what);

/* The starting raw scores of d's rows (nrow * K): its base_margin, else the model's. */
void gbt__model_start_margins(const struct gbt_model *m, const gbt_dataset *d, double *margin);

/* Moves the model's trees (of a model without dart weights) into *out, n of them, the caller's; the model keeps none. */
gbt_status gbt__model_take_trees(struct gbt_model *m, struct gbt_tree **out, uint32_t *n);

/* Drops trees from index ntrees on. */
void gbt__model_truncate(struct gbt_model *m, uint32_t ntrees);

/* Whether feature f is categorical in the model. */
static inline int gbt__model_is_cat(const struct gbt_model *m, uint64_t f)
{
    return f < m->nfeature_types && m->feature_types[f] == 1;
}

/*
 * The data's feature types against the model's (features missing from
 * either are numeric): GBT_E_INVALID_ARG naming the first feature that
 * differs; `what` names the data.
 */
gbt_status gbt__model_check_types(const struct gbt_model *m, const uint8_t *types, uint64_t ntypes,
                                  const char *what);

/* The value of user attribute key, or NULL (model_attr.c). */
const char *gbt__model_attr(const struct gbt_model *m, const char *key);
/* Sets user attribute key to a copy of value (NULL removes it). */
gbt_status gbt__model_set_attr(struct gbt_model *m, const char *key, const char *value);
/*
 * model_categories.c: the attribute feature_categories as one lookup per
 * feature (*n = num_feature; features without names have n 0), or *out
 * NULL when the model has none; GBT_E_FORMAT when the attribute is not a
 * JSON object of categorical feature indices to lists of strings, numbers
 * or bools without repeats.  Free with gbt__cat_dicts_free.
 */
gbt_status gbt__model_cat_dicts(const struct gbt_model *m, struct gbt_cat_dict **out, uint64_t *n);
/* Sets src's user attributes in dst. */
gbt_status gbt__model_copy_attrs(struct gbt_model *dst, const struct gbt_model *src);
void gbt__model_free_attrs(struct gbt_model *m);
/* The attributes as JSON members, "key": "value", separated by ", " (no braces). */
void gbt__model_write_attrs(const struct gbt_model *m, struct gbt_strbuf *sb);

/* Frees the model's memory and leaves it empty (best_iteration -1, one parallel tree, epoch moved on). */
void gbt__model_free(struct gbt_model *m);

/* Every feature's name ("f<i>" where the model has none) in one block: free(*names). */
gbt_status gbt__model_feature_names(const struct gbt_model *m, char ***names, uint64_t *n);
/* Replaces the model's feature names by n names (n == num_feature), or drops them (n == 0). */
gbt_status gbt__model_set_feature_names(struct gbt_model *m, const char *const *names, uint64_t n);

/* Model JSON (model_json.c), with the training parameters p. */
gbt_status gbt__model_write_json(const struct gbt_model *m, const struct gbt_params *p,
                                 struct gbt_strbuf *sb);
/* Reads a gbt or XGBoost JSON model into the empty model m and the default parameters p. */
gbt_status gbt__model_read_json(const char *text, size_t len, const char *what, struct gbt_model *m,
                                struct gbt_params *p);
/* Writes the model in `format` (GBT_MODEL_*) to a temporary file renamed over path. */
gbt_status gbt__model_save(const struct gbt_model *m, const struct gbt_params *p, const char *path,
                           int format);
/* The model in `format` (GBT_MODEL_*) into sb; GBT_E_INVALID_ARG for an unknown format. */
gbt_status gbt__model_write(const struct gbt_model *m, const struct gbt_params *p, int format,
                            struct gbt_strbuf *sb);
/* Reads the model file at path into the empty model m and the default parameters p. */
gbt_status gbt__model_load(const char *path, struct gbt_model *m, struct gbt_params *p);

/* XGBoost's JSON model format (model_xgboost_write.c, model_xgboost.c). */
struct gbt_jdoc;
gbt_status gbt__model_write_xgboost(const struct gbt_model *m, const struct gbt_params *p,
                                    struct gbt_strbuf *sb);
/* The same document as UBJSON (XGBoost's .ubj). */
gbt_status gbt__model_write_xgboost_ubj(const struct gbt_model *m, const struct gbt_params *p,
                                        struct gbt_strbuf *sb);
/* 1 when XGBoost keeps base_score as a probability: the logit-link objectives but binary:logitraw. */
int gbt__xgboost_base_is_probability(int obj);
/*
 * XGBoost keeps the starting score as base_score, a float (a probability,
 * a mean for the log link, else the raw score): gbt__xgboost_base_score is
 * raw score margin's base_score, gbt__xgboost_base_margin base_score's raw
 * score (in double), and gbt__xgboost_base_round sets the K raw scores of
 * base to the ones a base_score holds, those XGBoost's format keeps exactly
 * (a trained model's are rounded so, as XGBoost rounds its own, so that an
 * export loads back predicting the same bits).  A probability is bounded to
 * [1e-6, 1 - 1e-6] before its logit, as XGBoost bounds it, and one at a
 * bound is written 0 or 1 (XGBoost's degenerate estimate).
 */
float gbt__xgboost_base_score(int obj, double margin);
double gbt__xgboost_base_margin(int obj, float base_score);
void gbt__xgboost_base_round(int obj, int K, double *base);
/* m's base_score as XGBoost's learner_model_param writes it: "[v0,v1,...]", one per output. */
void gbt__xgboost_put_base_score(struct gbt_strbuf *sb, const struct gbt_model *m);
/* Reads the parsed XGBoost JSON model doc into the empty model m and the default parameters p. */
gbt_status gbt__model_read_xgboost(const struct gbt_jdoc *doc, const char *what, struct gbt_model *m,
                                   struct gbt_params *p);

/*
 * model_sniff.c: GBT_OK, or GBT_E_FORMAT with a message that names `what`,
 * says what the text is (an XGBoost or LightGBM model, a data file) and what
 * to do, when it is a kind of file often given in place of a gbt model.
 */
gbt_status gbt__model_sniff(const char *text, size_t len, const char *what);

/* The model as text, JSON or Graphviz dot (dump.c): gbt_booster_dump's contract. */
gbt_status gbt__model_dump(const struct gbt_model *m, const char *format, int tree, int with_stats,
                           char **out, size_t *len);

/* Feature importance of `type` (importance.c): gbt_booster_feature_importance's contract. */
gbt_status gbt__model_feature_importance(const struct gbt_model *m, const char *type, double *out,
                                         uint64_t len);

/* Rounds [begin, end) of src into the empty model out (slice.c). */
gbt_status gbt__model_slice(const struct gbt_model *src, int begin, int end, int step, struct gbt_model *out);

#endif
