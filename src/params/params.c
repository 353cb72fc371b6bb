/*
 * params.c - the one table of booster parameters.
 *
 * Each row gives a parameter's name, aliases (XGBoost's), type, default,
 * bounds, flags and help.  Defaults are parsed from the table's text at
 * start-up, so the default shown in --help is the one in use.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/types.h"
#include "metric/metric.h"
#include "params/params.h"
#include "params/constraints.h"
#include "util/util.h"

enum ptype { PT_INT, PT_DOUBLE, PT_AUTO_DOUBLE, PT_DOUBLES, PT_ENUM, PT_DEVICE, PT_METRICS, PT_BOOL, PT_TEXT };

struct pdef {
    const char *name;
    const char *aliases;  /* comma-separated */
    enum ptype type;
    const char *const *choices; /* PT_ENUM: NULL-terminated names; others: shown as type */
    const char *deflt;
    double lo, hi;        /* numeric bounds */
    int lo_open, hi_open; /* 1: the bound itself is excluded */
    size_t offset;
    int flags;            /* GBT_PF_ bits */
    int in_model;         /* saved with the model as a training parameter */
    const char *help;
};

#define OFF(f) offsetof(struct gbt_params, f)
#define INF HUGE_VAL

static const char *const objective_choices[] = {
#define OBJECTIVE_NAME_(id, name) name,
    GBT_OBJECTIVE_MAP(OBJECTIVE_NAME_)
#undef OBJECTIVE_NAME_
    NULL};
static const char *const grow_choices[] = {"depthwise", "lossguide", NULL};
static const char *const tree_method_choices[] = {"hist", "auto", NULL};
static const char *const booster_choices[] = {"gbtree", "dart", "gblinear", NULL};
static const char *const sample_type_choices[] = {"uniform", "weighted", NULL};
static const char *const normalize_type_choices[] = {"tree", "forest", NULL};
static const char *const multi_strategy_choices[] = {"one_output_per_tree", NULL};
static const char *const updater_choices[] = {"shotgun", "coord_descent", "refresh", "prune", "refresh,prune", NULL};
static const char *const process_type_choices[] = {"default", "update", NULL};
static const char *const selector_choices[] = {"cyclic", "shuffle", "random", "greedy", "thrifty", NULL};
static const char *const aft_dist_choices[] = {"normal", "logistic", "extreme", NULL};
static const char *const pair_method_choices[] = {"topk", "mean", NULL};

static const struct pdef table[] = {
    {"objective", "", PT_ENUM, objective_choices, "reg:squarederror", 0, 0, 0, 0, OFF(objective),
     GBT_PF_MODEL | GBT_PF_REBUILD, 1, "learning task and loss"},
    {"num_class", "", PT_INT, NULL, "0", 0, GBT_MAX_CLASSES, 0, 0, OFF(num_class),
     GBT_PF_MODEL | GBT_PF_REBUILD, 1,
     "number of classes for multi:softmax and multi:softprob (num_class > 1 without an objective: "
     "multi:softmax, as XGBoost)"},
    {"eta", "learning_rate", PT_DOUBLE, NULL, "0.3", 0, INF, 0, 1, OFF(eta), 0, 1,
     "step size shrinkage applied to each tree's leaf values"},
    {"max_depth", "", PT_INT, NULL, "6", 0, 63, 0, 0, OFF(max_depth), GBT_PF_REBUILD, 1,
     "maximum tree depth (0: unlimited, lossguide only)"},
    {"max_leaves", "max_leaf_nodes", PT_INT, NULL, "0", 0, 1 << 30, 0, 0, OFF(max_leaves),
     GBT_PF_REBUILD, 1, "maximum number of leaves per tree (0: no limit)"},
    {"grow_policy", "", PT_ENUM, grow_choices, "depthwise", 0, 0, 0, 0,
     OFF(grow_policy), GBT_PF_REBUILD, 1,
     "depthwise: split every node of a level; lossguide: split the leaf of highest gain"},
    {"max_bin", "max_bins", PT_INT, NULL, "256", 2, 65535, 0, 0, OFF(max_bin), GBT_PF_REBUILD, 1,
     "maximum number of histogram bins per feature"},
    {"histogram_pool_size", "", PT_DOUBLE, NULL, "1024", -1, INF, 0, 1, OFF(histogram_pool_size),
     GBT_PF_REBUILD, 0,
     "MB for the node histograms kept between splits: at most max(2, floor(MB * 2^20 / (16 * "
     "bins))) of them, the others rebuilt from their rows when needed; 0 or -1: no limit; the "
     "model does not depend on it"},
    {"lambda", "reg_lambda", PT_DOUBLE, NULL, "1", 0, INF, 0, 1, OFF(lambda), 0, 1,
     "L2 regularisation of leaf weights"},
    {"alpha", "reg_alpha", PT_DOUBLE, NULL, "0", 0, INF, 0, 1, OFF(alpha), 0, 1,
     "L1 regularisation of leaf weights"},
    {"gamma", "min_split_loss", PT_DOUBLE, NULL, "0", 0, INF, 0, 1, OFF(gamma), 0, 1,
     "minimum loss reduction a split must bring"},
    {"min_child_weight", "", PT_DOUBLE, NULL, "1", 0, INF, 0, 1, OFF(min_child_weight), 0, 1,
     "minimum hessian sum in each child"},
    {"max_delta_step", "", PT_AUTO_DOUBLE, NULL, "auto", 0, INF, 0, 1, OFF(max_delta_step), 0, 1,
     "largest absolute leaf weight before eta (0: no limit; auto: 0.7 for count:poisson, where "
     "it also enters the hessian, as in XGBoost, else 0)"},
    {"max_cat_to_onehot", "", PT_INT, NULL, "4", 1, INT32_MAX, 0, 0, OFF(max_cat_to_onehot), 0, 1,
     "categorical features: a feature with fewer categories than this splits one category "
     "against the rest (one-hot), a feature with more on a set of categories (a partition)"},
    {"max_cat_threshold", "", PT_INT, NULL, "64", 1, INT32_MAX, 0, 0, OFF(max_cat_threshold), 0, 1,
     "categorical features: the most categories a partition split sends right"},
    {"cat_smooth", "", PT_DOUBLE, NULL, "0", 0, INF, 0, 1, OFF(cat_smooth), 0, 1,
     "categorical partitions (LightGBM's; 0: off): added to each category's hessian sum in the "
     "leaf weight that orders the categories; categories of fewer rows are left out of the order "
     "(they stay with the rest)"},
    {"cat_l2", "", PT_DOUBLE, NULL, "0", 0, INF, 0, 1, OFF(cat_l2), 0, 1,
     "categorical partitions (LightGBM's; 0: off): L2 regularisation added to lambda in the "
     "children's gains of a partition split (leaf weights keep lambda)"},
    {"min_data_per_group", "", PT_DOUBLE, NULL, "0", 0, INF, 0, 1, OFF(min_data_per_group), 0, 1,
     "categorical partitions (LightGBM's; 0: off): the rows that the categories added to a "
     "partition's set since the last set scored, and the rest of the node, must each hold (rows "
     "estimated from hessian sums, as LightGBM does)"},
    {"num_parallel_tree", "", PT_INT, NULL, "1", 1, 1 << 20, 0, 0, OFF(num_parallel_tree),
     GBT_PF_MODEL, 1,
     "trees grown per class in each round, all fitted to the round's starting margins, each with "
     "eta / num_parallel_tree and its own row and column draws (a random forest: one round with "
     "subsample and colsample_bynode)"},
    {"booster", "", PT_ENUM, booster_choices, "gbtree", 0, 0, 0, 0, OFF(booster),
     GBT_PF_MODEL | GBT_PF_REBUILD | GBT_PF_DART, 1,
     "gbtree: boosted trees; dart: boosted trees with dropout (each round leaves some earlier "
     "trees out of the margins its gradients come from, then scales the new and the dropped "
     "trees by weights kept in the model); gblinear: one weight per feature and output plus a bias, "
     "by coordinate descent on the raw feature values (missing values count as 0; CPU only; its eta "
     "defaults to 0.5 and lambda to 0 unless set, as in XGBoost)"},
    {"rate_drop", "", PT_DOUBLE, NULL, "0", 0, 1, 0, 0, OFF(rate_drop), GBT_PF_DART, 1,
     "dart: each earlier tree's chance of being dropped in a round"},
    {"one_drop", "", PT_BOOL, NULL, "false", 0, 1, 0, 0, OFF(one_drop), GBT_PF_DART, 1,
     "dart: true: a round that drops no tree by rate_drop drops one (unless skip_drop skips it)"},
    {"skip_drop", "", PT_DOUBLE, NULL, "0", 0, 1, 0, 0, OFF(skip_drop), GBT_PF_DART, 1,
     "dart: a round's chance of dropping no tree at all (its new trees then weigh 1)"},
    {"sample_type", "", PT_ENUM, sample_type_choices, "uniform", 0, 0, 0, 0, OFF(sample_type), GBT_PF_DART, 1,
     "dart: uniform: every tree dropped with chance rate_drop; weighted: each with chance rate_drop "
     "times its weight over the trees' mean weight"},
    {"normalize_type", "", PT_ENUM, normalize_type_choices, "tree", 0, 0, 0, 0, OFF(normalize_type), GBT_PF_DART, 1,
     "dart: with k trees dropped and eta the learning rate over the round's trees, tree: the new trees weigh 1 / (k + eta) "
     "and the dropped ones are scaled by k / (k + eta); forest: the new trees weigh 1 / (1 + eta) "
     "and the dropped ones are scaled by 1 / (1 + eta)"},
    {"subsample", "", PT_DOUBLE, NULL, "1", 0, 1, 1, 0, OFF(subsample), 0, 1,
     "fraction of rows sampled for each round (for each tree of a round of parallel trees)"},
    {"colsample_bytree", "", PT_DOUBLE, NULL, "1", 0, 1, 1, 0, OFF(colsample_bytree), 0, 1,
     "fraction of features sampled for each tree"},
    {"colsample_bylevel", "", PT_DOUBLE, NULL, "1", 0, 1, 1, 0, OFF(colsample_bylevel), 0, 1,
     "fraction of the tree's features sampled for each depth"},
    {"colsample_bynode", "", PT_DOUBLE, NULL, "1", 0, 1, 1, 0, OFF(colsample_bynode), 0, 1,
     "fraction of the level's features sampled for each node"},
    {"scale_pos_weight", "", PT_DOUBLE, NULL, "1", 0, INF, 1, 1, OFF(scale_pos_weight), 0, 1,
     "binary objectives: the weight of rows labelled 1 is multiplied by this (e.g. negatives / positives)"},
    {"huber_slope", "", PT_DOUBLE, NULL, "1", 0, INF, 1, 1, OFF(huber_slope), GBT_PF_MODEL, 1,
     "reg:pseudohubererror and the mphe metric: the slope delta of the loss"},
    {"tweedie_variance_power", "", PT_DOUBLE, NULL, "1.5", 1, 2, 0, 1, OFF(tweedie_variance_power),
     GBT_PF_MODEL, 1, "reg:tweedie: the variance power rho, in [1, 2)"},
    {"quantile_alpha", "", PT_DOUBLES, NULL, "0.5", 0, 1, 0, 0, OFF(quantile_alpha),
     GBT_PF_MODEL | GBT_PF_REBUILD, 1,
     "reg:quantileerror and the quantile metric: the quantile, or several ('0.1,0.5,0.9' or "
     "'[0.1, 0.5, 0.9]'), one output each"},
    {"aft_loss_distribution", "", PT_ENUM, aft_dist_choices, "normal", 0, 0, 0, 0,
     OFF(aft_loss_distribution), 0, 1,
     "survival:aft and aft-nloglik: the distribution of the log-time noise"},
    {"aft_loss_distribution_scale", "", PT_DOUBLE, NULL, "1", 0, INF, 1, 1,
     OFF(aft_loss_distribution_scale), 0, 1,
     "survival:aft and aft-nloglik: the scale sigma of that distribution"},
    {"lambdarank_pair_method", "", PT_ENUM, pair_method_choices, "topk", 0, 0, 0, 0,
     OFF(lambdarank_pair_method), 0, 1,
     "rank:*: topk: pairs of each of the first k documents of the model's ranking with every "
     "later one; mean: k pairs per document, drawn at random (seeded)"},
    {"lambdarank_num_pair_per_sample", "", PT_AUTO_DOUBLE, NULL, "auto", 1, 4294967294.0, 0, 0,
     OFF(lambdarank_num_pair_per_sample), 0, 1,
     "rank:*: k of lambdarank_pair_method (auto: 32 for topk, 1 for mean)"},
    {"ndcg_exp_gain", "", PT_BOOL, NULL, "true", 0, 1, 0, 0, OFF(ndcg_exp_gain), 0, 1,
     "rank:ndcg and the ndcg metrics: gain 2^label - 1 (true, labels 0..31) or the label (false)"},
    {"lambdarank_normalization", "", PT_BOOL, NULL, "true", 0, 1, 0, 0,
     OFF(lambdarank_normalization), 0, 1,
     "rank:*: scale each query's gradients (topk: log2(1 + L) / L of its lambda sum L; mean: 1 / k)"},
    {"lambdarank_score_normalization", "", PT_BOOL, NULL, "true", 0, 1, 0, 0,
     OFF(lambdarank_score_normalization), 0, 1,
     "rank:*: divide each pair's metric change by |score difference| + 0.01"},
    {"lambdarank_unbiased", "", PT_BOOL, NULL, "false", 0, 1, 0, 0, OFF(lambdarank_unbiased), 0, 1,
     "rank:*: Unbiased LambdaMART: estimate each position's click bias from the rows' order in "
     "their query (the order shown) and debias the pairs by it, as XGBoost's"},
    {"lambdarank_bias_norm", "", PT_DOUBLE, NULL, "1", 0, INF, 0, 1, OFF(lambdarank_bias_norm), 0, 1,
     "rank:* with lambdarank_unbiased: the Lp regularisation p of the position biases "
     "(bias = (L_i / L_0)^(1 / (1 + p)))"},
    {"base_score", "", PT_DOUBLES, NULL, "auto", -FLT_MAX, FLT_MAX, 0, 0, OFF(base_score),
     GBT_PF_MODEL, 1, "initial prediction, one value for every output or a list [v0, v1, ...] of one per "
     "target or class (auto: estimated from the labels, e.g. the weighted label mean)"},
    {"monotone_constraints", "", PT_TEXT, NULL, "", 0, 0, 0, 0, OFF(monotone_constraints),
     GBT_PF_REBUILD, 1,
     "one of -1, 0, 1 per feature, (1,0,-1) or [1,0,-1] (features past a shorter list: 0), or by name "
     "{age:1,income:-1}: predictions never decrease (1) or increase (-1) with the feature; empty: none"},
    {"interaction_constraints", "", PT_TEXT, NULL, "", 0, 0, 0, 0, OFF(interaction_constraints),
     GBT_PF_REBUILD, 1,
     "sets of features (indices or names) that may interact, [[0,1],[2,3,4]]: a branch uses only "
     "features sharing a set with every feature above it; empty: none"},
    {"seed", "random_state", PT_INT, NULL, "0", 0, 9007199254740991.0, 0, 0, OFF(seed), 0, 1,
     "seed of row and feature sampling"},
    {"nthread", "n_jobs,num_threads", PT_INT, NULL, "0", 0, 4096, 0, 0, OFF(nthread),
     GBT_PF_REBUILD, 0, "CPU threads (0: all cores; never more than the cores); the model does not depend on it"},
    {"device", "", PT_DEVICE, NULL, "auto", 0, 0, 0, 0, OFF(device),
     GBT_PF_REBUILD, 0, "where to train: auto uses CUDA device 0 when present, else the CPU"},
    {"eval_metric", "metric", PT_METRICS, NULL, "", 0, 0, 0, 0, OFF(eval_metric), 0, 0,
     "metrics for validation sets, comma-separated (default: the objective's)"},
    {"early_stopping_rounds", "early_stopping_round", PT_INT, NULL, "0", 0, 1 << 30, 0, 0,
     OFF(early_stopping_rounds), 0, 0,
     "stop when the last validation metric has not improved for this many rounds (0: off)"},
    {"disable_default_eval_metric", "", PT_BOOL, NULL, "false", 0, 1, 0, 0,
     OFF(disable_default_eval_metric), 0, 0,
     "true: without eval_metric, validation sets report no metric (only a custom one)"},
    {"verbosity", "", PT_INT, NULL, "1", 0, 3, 0, 0, OFF(verbosity), 0, 0,
     "0 silent, 1 warnings, 2 info (per-round metrics), 3 debug (also set-up details, each round's trees and times)"},
    {"tree_method", "", PT_ENUM, tree_method_choices, "hist", 0, 0, 0, 0, OFF(tree_method), 0, 0,
     "accepted for XGBoost configurations: gbt always builds histograms (exact and approx are "
     "taken as hist, gpu_hist as hist with device=cuda, each with a warning)"},
    {"multi_strategy", "", PT_ENUM, multi_strategy_choices, "one_output_per_tree", 0, 0, 0, 0, OFF(multi_strategy),
     0, 0,
     "multi-target models (labels of several values per row) and multi-class ones grow one tree per target or "
     "class and round (XGBoost's multi_output_tree, trees with a vector of values per leaf, is not implemented)"},
    {"updater", "", PT_ENUM, updater_choices, "shotgun", 0, 0, 0, 0, OFF(updater), 0, 0,
     "booster=gblinear: shotgun (XGBoost's default: features outer, outputs inner) or coord_descent "
     "(outputs outer); both run in one fixed order, so the model does not depend on nthread. "
     "process_type=update: refresh (each node's statistics, and with refresh_leaf its leaf value, "
     "recomputed from the data's gradients), prune (splits of gain below gamma, or deeper than "
     "max_depth, removed bottom-up) or refresh,prune (both, in that order)"},
    {"process_type", "", PT_ENUM, process_type_choices, "default", 0, 0, 0, 0, OFF(process_type), 0, 0,
     "default: each round grows new trees; update: each round takes the model's trees of that round "
     "(the model continued from) and changes them with updater, no new trees: the model keeps the "
     "rounds updated, and more rounds than the model has are an error (XGBoost's); on the host, "
     "whatever the device"},
    {"refresh_leaf", "", PT_BOOL, NULL, "true", 0, 1, 0, 0, OFF(refresh_leaf), 0, 0,
     "updater=refresh: true: leaf values are refreshed too (eta times the new weight); false: only "
     "the statistics (cover, gain, inner weights)"},
    {"feature_selector", "", PT_ENUM, selector_choices, "cyclic", 0, 0, 0, 0, OFF(feature_selector), 0, 0,
     "booster=gblinear: the order of the coordinate updates: cyclic, shuffle (seeded per round), "
     "random (seeded draws with repeats), greedy or thrifty (largest weight change first, "
     "coord_descent only, with top_k)"},
    {"top_k", "", PT_INT, NULL, "0", 0, INT32_MAX, 0, 0, OFF(top_k), 0, 0,
     "booster=gblinear with feature_selector greedy or thrifty: the most features updated per output "
     "and round (0: all)"},
    {"validate_features", "", PT_INT, NULL, "1", 0, 1, 0, 0, OFF(validate_features), 0, 0,
     "1: predicting, evaluating or training on data whose feature names differ from the model's is an "
     "error; 0: names are not compared"},
};

#define NPARAMS ((int)(sizeof table / sizeof table[0]))
_Static_assert(NPARAMS <= 64 * (int)(sizeof ((struct gbt_params *)0)->given / sizeof(uint64_t)),
               "gbt_params.given has a bit per parameter");

static void normalise(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++) out[i] = in[i] == '-' ? '_' : in[i];
    out[i] = '\0';
}

static int alias_matches(const char *aliases, const char *name)
{
    size_t n = strlen(name);
    const char *p = aliases;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncmp(p, name, n) == 0) return 1;
        p += l;
        if (*p == ',') p++;
    }
    return 0;
}

static const struct pdef *lookup(const char *raw)
{
    char name[64];
    normalise(raw, name, sizeof name);
    for (int i = 0; i < NPARAMS; i++)
        if (strcmp(table[i].name, name) == 0 || alias_matches(table[i].aliases, name))
            return &table[i];
    return NULL;
}

static const char *closest_name(const char *raw)
{
    char name[64];
    const char *best = NULL;
    int bestd = 1 << 30;
    normalise(raw, name, sizeof name);
    for (int i = 0; i < NPARAMS; i++) {
        int d = gbt__edit_distance(name, table[i].name);
        if (d < bestd) {
            bestd = d;
            best = table[i].name;
        }
    }
    return bestd <= 3 || bestd * 3 <= (int)strlen(name) ? best : NULL;
}

static char range_text[NPARAMS][80];
static char type_texts[NPARAMS][512];
static pthread_once_t text_once = PTHREAD_ONCE_INIT;

static void fmt_bound(char *buf, size_t len, double v)
{
    if (v == INF)
        snprintf(buf, len, "inf");
    else if (v == -INF)
        snprintf(buf, len, "-inf");
    else
        gbt__format_double(buf, len, v);
}

static void make_texts(void)
{
    for (int i = 0; i < NPARAMS; i++) {
        const struct pdef *d = &table[i];
        char lo[32], hi[32];
        if (d->choices) {
            size_t len = 0;
            for (int c = 0; d->choices[c] && len < sizeof type_texts[i]; c++)
                len += (size_t)snprintf(type_texts[i] + len, sizeof type_texts[i] - len, "%s%s",
                                        c ? "|" : "", d->choices[c]);
        }
        if (d->type != PT_INT && d->type != PT_DOUBLE && d->type != PT_AUTO_DOUBLE &&
            d->type != PT_DOUBLES)
            continue;
        fmt_bound(lo, sizeof lo, d->lo);
        fmt_bound(hi, sizeof hi, d->hi);
        snprintf(range_text[i], sizeof range_text[i], "%c%s, %s%c", d->lo_open ? '(' : '[', lo,
                 hi, d->hi_open ? ')' : ']');
    }
}

static const char *range_of(const struct pdef *d)
{
    pthread_once(&text_once, make_texts);
    return range_text[d - table];
}

static const char *type_text(const struct pdef *d)
{
    switch (d->type) {
    case PT_INT: return "int";
    case PT_DOUBLE: return "double";
    case PT_AUTO_DOUBLE: return "double|auto";
    case PT_DOUBLES: return strcmp(d->deflt, "auto") == 0 ? "double list|auto" : "double list";
    case PT_DEVICE: return "auto|cpu|cuda|cuda:N";
    case PT_METRICS: return gbt__metric_names();
    case PT_BOOL: return "bool";
    case PT_TEXT: return "text";
    default: pthread_once(&text_once, make_texts); return type_texts[d - table];
    }
}

static int in_range(const struct pdef *d, double v)
{
    if (d->lo_open ? !(v > d->lo) : !(v >= d->lo)) return 0;
    if (d->hi_open ? !(v < d->hi) : !(v <= d->hi)) return 0;
    return 1;
}

static gbt_status bad_value(const struct pdef *d, const char *value, const char *expect)
{
    return gbt__fail(GBT_E_PARAM, "parameter '%s' expects %s, got '%s'", d->name, expect, value);
}

static gbt_status parse_number(const struct pdef *d, const char *value, double *out)
{
    char expect[128];
    char *end;
    double v;
    snprintf(expect, sizeof expect, "%s in %s", d->type == PT_INT ? "an integer" : "a number",
             range_of(d));
    if (d->type == PT_INT) {
        long long ll;
        errno = 0;
        ll = strtoll(value, &end, 10);
        if (end == value || *end != '\0' || errno == ERANGE) return bad_value(d, value, expect);
        v = (double)ll;
    } else {
        v = gbt__strtod(value, &end);
        while (isspace((unsigned char)*end)) end++;
        if (end == value || *end != '\0' || !isfinite(v)) return bad_value(d, value, expect);
    }
    if (!in_range(d, v)) return bad_value(d, value, expect);
    *out = v;
    return GBT_OK;
}

/* A list parameter's count and capacity: quantile_alpha's or base_score's. */
static int64_t *list_count(const struct pdef *d, struct gbt_params *p, int64_t *cap)
{
    *cap = d->offset == OFF(base_score) ? GBT_MAX_BASE_SCORE : GBT_MAX_QUANTILES;
    return d->offset == OFF(base_score) ? &p->num_base_score : &p->num_quantile_alpha;
}

static int64_t list_len(const struct pdef *d, const struct gbt_params *p)
{
    return d->offset == OFF(base_score) ? p->num_base_score : p->num_quantile_alpha;
}

/*
 * A list of numbers: "0.5", "0.1,0.5,0.9" or XGBoost's "[0.1, 0.5, 0.9]",
 * each in the parameter's range; "auto" (none) where that is the default.
 * The list parameters are quantile_alpha and base_score, their counts
 * num_quantile_alpha and num_base_score.
 */
static gbt_status set_doubles(const struct pdef *d, struct gbt_params *p, const char *value)
{
    double *out = (double *)((char *)p + d->offset);
    const char *s = value, *end;
    const char *expect = "a number or a list like [0.1, 0.5, 0.9]";
    char one[64];
    int64_t n = 0, cap, *count = list_count(d, p, &cap);
    int open;
    if (strcmp(d->deflt, "auto") == 0 && strcmp(value, "auto") == 0) {
        *count = 0;
        return GBT_OK;
    }
    while (isspace((unsigned char)*s)) s++;
    open = *s == '[';
    s += open;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) end--;
    if (open != (end > s && end[-1] == ']')) return bad_value(d, value, expect);
    end -= open;
    for (;;) {
        const char *c = s;
        size_t l;
        while (c < end && *c != ',') c++;
        l = (size_t)(c - s);
        while (l > 0 && isspace((unsigned char)*s)) s++, l--;
        RETURN_ERROR_IF(n == cap, GBT_E_PARAM, "parameter '%s': at most %lld values", d->name, (long long)cap);
        if (l == 0 || l >= sizeof one) return bad_value(d, value, expect);
        memcpy(one, s, l);
        one[l] = '\0';
        FORWARD_IF_ERROR(parse_number(d, one, &out[n]));
        n++;
        if (c == end) break;
        s = c + 1;
    }
    for (int64_t i = n; i < cap; i++) out[i] = 0.0;
    *count = n;
    return GBT_OK;
}

static int enum_index(const char *const *choices, const char *value)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(choices[i], value) == 0) return i;
    return -1;
}

/* The choice nearest to a mistyped value, or NULL when none is near. */
static const char *closest_choice(const char *const *choices, const char *value)
{
    const char *best = NULL;
    int bestd = 1 << 30;
    for (int i = 0; choices[i]; i++) {
        int d = gbt__edit_distance(value, choices[i]);
        if (d < bestd) {
            bestd = d;
            best = choices[i];
        }
    }
    return bestd <= 3 || bestd * 3 <= (int)strlen(value) ? best : NULL;
}

static gbt_status add_metrics(const struct pdef *d, struct gbt_params *p, const char *value)
{
    const char *s = value;
    if (*value == '\0') {
        p->num_eval_metric = 0;
        return GBT_OK;
    }
    while (*s) {
        char one[GBT_METRIC_NAME_MAX];
        const char *e = strchr(s, ',');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        int dup = 0;
        if (l == 0 || l >= sizeof one) return bad_value(d, value, "metric names");
        memcpy(one, s, l);
        one[l] = '\0';
        if (gbt__metric_parse(one, NULL) != GBT_OK)
            return gbt__fail(GBT_E_PARAM, "parameter 'eval_metric': unknown metric '%s' (one of %s)",
                             one, type_text(d));
        for (int64_t i = 0; i < p->num_eval_metric; i++) dup |= strcmp(p->eval_metric[i], one) == 0;
        if (!dup) {
            RETURN_ERROR_IF(p->num_eval_metric == GBT_MAX_METRICS, GBT_E_PARAM,
                            "parameter 'eval_metric': at most %d metrics", GBT_MAX_METRICS);
            memcpy(p->eval_metric[p->num_eval_metric++], one, l + 1);
        }
        s += l;
        if (*s == ',') s++;
    }
    return GBT_OK;
}

static gbt_status set_one(const struct pdef *d, struct gbt_params *p, const char *value)
{
    char *field = (char *)p + d->offset;
    double v;
    int idx;
    switch (d->type) {
    case PT_INT:
        FORWARD_IF_ERROR(parse_number(d, value, &v));
        *(int64_t *)field = (int64_t)v;
        return GBT_OK;
    case PT_DOUBLE:
        FORWARD_IF_ERROR(parse_number(d, value, &v));
        *(double *)field = v;
        return GBT_OK;
    case PT_AUTO_DOUBLE:
        if (strcmp(value, "auto") == 0) {
            *(double *)field = NAN;
            return GBT_OK;
        }
        FORWARD_IF_ERROR(parse_number(d, value, &v));
        *(double *)field = v;
        return GBT_OK;
    case PT_ENUM:
        idx = enum_index(d->choices, value);
        RETURN_ERROR_IF(idx < 0 && d->offset == OFF(multi_strategy) && strcmp(value, "multi_output_tree") == 0,
                        GBT_E_PARAM, "multi_strategy=multi_output_tree (one tree for every target, with a "
                        "vector of values per leaf) is not implemented in gbt; multi-target models grow "
                        "one tree per target and round (multi_strategy=one_output_per_tree)");
        if (idx < 0) {
            const char *near = closest_choice(d->choices, value);
            if (near)
                return gbt__fail(GBT_E_PARAM, "parameter '%s' expects one of %s, got '%s'; did you mean '%s'?",
                                 d->name, type_text(d), value, near);
            return gbt__fail(GBT_E_PARAM, "parameter '%s' expects one of %s, got '%s'", d->name,
                             type_text(d), value);
        }
        *(int64_t *)field = idx;
        return GBT_OK;
    case PT_DEVICE:
        if (strlen(value) >= GBT_DEVICE_NAME_MAX || gbt__device_parse(value, NULL, NULL) != GBT_OK)
            return bad_value(d, value, "auto, cpu, cuda or cuda:N");
        strcpy(field, value);
        return GBT_OK;
    case PT_DOUBLES:
        return set_doubles(d, p, value);
    case PT_METRICS:
        return add_metrics(d, p, value);
    case PT_TEXT: {
        /* the old text is released only once the new one is in place */
        char **text = (char **)field, *copy = NULL;
        RETURN_ERROR_IF(strlen(value) >= GBT_CONSTRAINT_TEXT_MAX, GBT_E_PARAM,
                        "parameter '%s': longer than %d bytes", d->name, GBT_CONSTRAINT_TEXT_MAX - 1);
        FORWARD_IF_ERROR(gbt__constraint_text_check(d->name, value));
        if (value[0]) FORWARD_IF_ERROR(gbt__strdup(&copy, value));
        free(*text);
        *text = copy;
        return GBT_OK;
    }
    case PT_BOOL:
        if (strcmp(value, "true") == 0 || strcmp(value, "True") == 0 || strcmp(value, "1") == 0)
            *(int64_t *)field = 1;
        else if (strcmp(value, "false") == 0 || strcmp(value, "False") == 0 || strcmp(value, "0") == 0)
            *(int64_t *)field = 0;
        else
            return bad_value(d, value, "true or false");
        return GBT_OK;
    }
    return gbt__fail(GBT_E_INTERNAL, "parameter '%s' has no type", d->name);
}

void gbt__params_init(struct gbt_params *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < NPARAMS; i++) set_one(&table[i], p, table[i].deflt);
}

void gbt__params_free(struct gbt_params *p)
{
    free(p->monotone_constraints);
    free(p->interaction_constraints);
    p->monotone_constraints = p->interaction_constraints = NULL;
}

gbt_status gbt__params_copy(struct gbt_params *dst, const struct gbt_params *src)
{
    char *m = NULL, *in = NULL;
    gbt_status s = GBT_OK;
    if (src->monotone_constraints) s = gbt__strdup(&m, src->monotone_constraints);
    if (s == GBT_OK && src->interaction_constraints) s = gbt__strdup(&in, src->interaction_constraints);
    if (s != GBT_OK) {
        free(m);
        return s;
    }
    *dst = *src;
    dst->monotone_constraints = m;
    dst->interaction_constraints = in;
    return GBT_OK;
}

/* Names of the number of rounds in XGBoost's and LightGBM's interfaces. */
static const char *const round_count_names[] = {"num_round", "num_rounds", "num_boost_round",
                                                "n_estimators", "nround", "nrounds",
                                                "num_iterations", NULL};

/*
 * XGBoost's other tree methods: exact and approx become hist, gpu_hist
 * becomes hist on CUDA (device 0 unless one is set), each with a warning.
 */
static gbt_status set_tree_method(struct gbt_params *p, const char *value)
{
    if (strcmp(value, "gpu_hist") == 0) {
        if (strncmp(p->device, "cuda", 4) != 0 && strncmp(p->device, "gpu", 3) != 0)
            strcpy(p->device, "cuda");
        gbt__log((int)p->verbosity, GBT_LOG_WARNING,
                 "tree_method=gpu_hist is deprecated (as in XGBoost 2.0): use tree_method=hist with "
                 "device=cuda; training with those (device=%s)", p->device);
    } else {
        gbt__log((int)p->verbosity, GBT_LOG_WARNING,
                 "tree_method=%s is not implemented: gbt builds histograms only, so it trains with "
                 "tree_method=hist (max_bin sets the histogram resolution)", value);
    }
    p->tree_method = 0;
    return GBT_OK;
}

/*
 * Defaults that depend on other parameters, as XGBoost's: the linear
 * booster's eta 0.5 and lambda 0, and objective multi:softmax once
 * num_class > 1 is set without an objective (XGBoost's learner).  Only
 * parameters that were never set take them.
 */
static void dependent_defaults(struct gbt_params *p)
{
    const int linear = p->booster == GBT_BOOSTER_GBLINEAR;
    for (int i = 0; i < NPARAMS; i++) {
        if (p->given[i / 64] & (1ull << (i % 64))) continue;
        if (table[i].offset == OFF(eta)) p->eta = linear ? 0.5 : 0.3;
        if (table[i].offset == OFF(lambda)) p->lambda = linear ? 0.0 : 1.0;
        if (table[i].offset == OFF(objective))
            p->objective = enum_index(objective_choices,
                                      p->num_class > 1 ? "multi:softmax" : table[i].deflt);
    }
}

gbt_status gbt__params_set(struct gbt_params *p, const char *name, const char *value, int *flags)
{
    struct gbt_params tmp;
    const struct pdef *d;
    CHECK_NOT_NULL(name);
    CHECK_NOT_NULL(value);
    d = lookup(name);
    if (d == NULL) {
        char norm[64];
        const char *near = closest_name(name);
        normalise(name, norm, sizeof norm);
        if (enum_index(round_count_names, norm) >= 0)
            return gbt__fail(GBT_E_PARAM,
                             "unknown parameter '%s': the number of rounds is not a booster "
                             "parameter; pass it to gbt_booster_train (gbtrain --num_round=N)", name);
        if (near)
            return gbt__fail(GBT_E_PARAM, "unknown parameter '%s'; did you mean '%s'?", name, near);
        return gbt__fail(GBT_E_PARAM, "unknown parameter '%s'", name);
    }
    tmp = *p;
    tmp.given[(d - table) / 64] |= 1ull << ((d - table) % 64);
    if (d->offset == OFF(tree_method) &&
        (strcmp(value, "gpu_hist") == 0 || strcmp(value, "exact") == 0 || strcmp(value, "approx") == 0))
        FORWARD_IF_ERROR(set_tree_method(&tmp, value));
    else
        FORWARD_IF_ERROR(set_one(d, &tmp, value));
    if (d->offset == OFF(booster) || d->offset == OFF(num_class)) dependent_defaults(&tmp);
    *p = tmp;
    if (flags) *flags = d->flags;
    return GBT_OK;
}

static gbt_status value_text(const struct pdef *d, const struct gbt_params *p, char *buf,
                             size_t len)
{
    const char *field = (const char *)p + d->offset;
    char tmp[GBT_MAX_METRICS * GBT_METRIC_NAME_MAX + 64 + GBT_MAX_BASE_SCORE * 32];
    tmp[0] = '\0';
    if (d->type == PT_TEXT) {
        const char *text = *(char *const *)field ? *(char *const *)field : "";
        RETURN_ERROR_IF(strlen(text) + 1 > len, GBT_E_INVALID_ARG,
                        "buffer of %zu bytes is too small for the value of '%s' (%zu bytes)", len,
                        d->name, strlen(text) + 1);
        memcpy(buf, text, strlen(text) + 1);
        return GBT_OK;
    }
    switch (d->type) {
    case PT_INT:
        snprintf(tmp, sizeof tmp, "%lld", (long long)*(const int64_t *)field);
        break;
    case PT_DOUBLE:
        gbt__format_double(tmp, sizeof tmp, *(const double *)field);
        break;
    case PT_AUTO_DOUBLE:
        if (isnan(*(const double *)field))
            snprintf(tmp, sizeof tmp, "auto");
        else
            gbt__format_double(tmp, sizeof tmp, *(const double *)field);
        break;
    case PT_DOUBLES:
        if (list_len(d, p) == 0) snprintf(tmp, sizeof tmp, "auto");
        for (int64_t i = 0; i < list_len(d, p); i++) {
            size_t l = strlen(tmp);
            if (i) tmp[l++] = ',';
            gbt__format_double(tmp + l, sizeof tmp - l, ((const double *)field)[i]);
        }
        break;
    case PT_ENUM:
        snprintf(tmp, sizeof tmp, "%s", d->choices[*(const int64_t *)field]);
        break;
    case PT_DEVICE:
        snprintf(tmp, sizeof tmp, "%s", field);
        break;
    case PT_BOOL:
        snprintf(tmp, sizeof tmp, "%s", *(const int64_t *)field ? "true" : "false");
        break;
    case PT_METRICS:
        for (int64_t i = 0; i < p->num_eval_metric; i++) {
            if (i) strcat(tmp, ",");
            strcat(tmp, p->eval_metric[i]);
        }
        break;
    case PT_TEXT:
        break;
    }
    RETURN_ERROR_IF(strlen(tmp) + 1 > len, GBT_E_INVALID_ARG,
                    "buffer of %zu bytes is too small for the value of '%s' (%zu bytes)", len,
                    d->name, strlen(tmp) + 1);
    memcpy(buf, tmp, strlen(tmp) + 1);
    return GBT_OK;
}

gbt_status gbt__params_get(const struct gbt_params *p, const char *name, char *buf, size_t len)
{
    const struct pdef *d;
    CHECK_NOT_NULL(name);
    CHECK_NOT_NULL(buf);
    d = lookup(name);
    RETURN_ERROR_IF(d == NULL, GBT_E_PARAM, "unknown parameter '%s'", name);
    return value_text(d, p, buf, len);
}

gbt_status gbt__device_parse(const char *text, int *kind, int *ordinal)
{
    int k, o = -1;
    CHECK_NOT_NULL(text);
    if (strcmp(text, "auto") == 0) {
        k = GBT_DEVICE_AUTO;
    } else if (strcmp(text, "cpu") == 0) {
        k = GBT_DEVICE_CPU;
    } else if (strcmp(text, "cuda") == 0 || strcmp(text, "gpu") == 0) {
        k = GBT_DEVICE_CUDA;
        o = 0;
    } else if (strncmp(text, "cuda:", 5) == 0 || strncmp(text, "gpu:", 4) == 0) {
        const char *num = strchr(text, ':') + 1;
        char *end;
        long v;
        errno = 0;
        v = strtol(num, &end, 10);
        RETURN_ERROR_IF(*num < '0' || *num > '9' || *end != '\0' || errno || v > 65535,
                        GBT_E_PARAM, "bad device '%s': the ordinal must be a number", text);
        k = GBT_DEVICE_CUDA;
        o = (int)v;
    } else {
        return gbt__fail(GBT_E_PARAM, "bad device '%s' (expected auto, cpu, cuda or cuda:N)", text);
    }
    if (kind) *kind = k;
    if (ordinal) *ordinal = o;
    return GBT_OK;
}

void gbt__params_each_training(const struct gbt_params *p,
                               void (*fn)(const char *name, const char *value, void *user),
                               void *user)
{
    for (int i = 0; i < NPARAMS; i++) {
        char buf[GBT_CONSTRAINT_TEXT_MAX];
        if (!table[i].in_model) continue;
        /* gbtree models are written as before dart existed: older gbt reads them */
        if ((table[i].flags & GBT_PF_DART) && p->booster != GBT_BOOSTER_DART) continue;
        if (value_text(&table[i], p, buf, sizeof buf) == GBT_OK) fn(table[i].name, buf, user);
    }
}

int gbt_param_count(void)
{
    return NPARAMS;
}

gbt_status gbt_param_describe(int i, const char **name, const char **aliases, const char **type,
                              const char **deflt, const char **range, const char **help)
{
    RETURN_ERROR_IF(i < 0 || i >= NPARAMS, GBT_E_INVALID_ARG,
                    "gbt_param_describe: index %d is outside [0, %d)", i, NPARAMS);
    if (name) *name = table[i].name;
    if (aliases) *aliases = table[i].aliases;
    if (type) *type = type_text(&table[i]);
    if (deflt) *deflt = table[i].deflt;
    if (range) *range = range_of(&table[i]);
    if (help) *help = table[i].help;
    return GBT_OK;
}
