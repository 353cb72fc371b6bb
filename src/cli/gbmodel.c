/*
 * gbmodel - looks into a saved model: a summary, feature importance, the
 * trees as text, JSON or Graphviz DOT, a model of some of its rounds, and
 * the model in XGBoost's JSON format or back.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: gbmodel info MODEL_FILE [OUTPUT_FILE]\n"
            "       gbmodel importance [--type=TYPE] MODEL_FILE [OUTPUT_FILE]\n"
            "       gbmodel dump [--format=FORMAT] [--tree=N] [--with_stats] MODEL_FILE [OUTPUT_FILE]\n"
            "       gbmodel slice --rounds=A:B MODEL_FILE OUTPUT_FILE\n"
            "       gbmodel convert --to=FORMAT MODEL_FILE OUTPUT_FILE\n"
            "\n"
            "info        what the model is: objective, classes, targets, intercept\n"
            "            (base_score, one per output), features (by name;\n"
            "            past 1000 features only their number), rounds, trees, leaves,\n"
            "            depth, early stopping, and the training parameters that\n"
            "            differ from their defaults\n"
            "importance  one line per feature that some tree splits on, 'NAME<TAB>VALUE',\n"
            "            most important first (ties in feature order); a linear model\n"
            "            (booster=gblinear): its nonzero coefficients, with --type=weight\n"
            "dump        the trees (a linear model: its biases and weights, as XGBoost),\n"
            "            to OUTPUT_FILE (default: standard output)\n"
            "slice       a model of rounds [A, B) (every tree of those rounds),\n"
            "            saved to OUTPUT_FILE; training it goes on after round B - 1\n"
            "convert     the model in another format, saved to OUTPUT_FILE; MODEL_FILE\n"
            "            may be a gbt model or an XGBoost JSON or UBJSON (.ubj) model\n"
            "\n"
            "  --type=weight|gain|cover|total_gain|total_cover\n"
            "                           importance: splits on the feature (weight), their\n"
            "                           summed gain or cover (total_*), or those sums per\n"
            "                           split (gain, cover), as XGBoost (default gain)\n"
            "  --format=text|json|dot   dump: XGBoost's text dump, its JSON dump, or a\n"
            "                           Graphviz graph (render with dot -Tpng) (default text)\n"
            "  --tree=N                 dump: only tree N, from 0 (default -1: every tree)\n"
            "  --with_stats             dump: add each node's gain and cover (default off)\n"
            "  --rounds=A:B             slice: rounds A to B - 1, from 0; A: means to the\n"
            "                           last round, :B from round 0; A:B:S every S-th of\n"
            "                           them (XGBoost's booster[A:B:S]) (no default)\n"
            "  --to=xgboost|gbt         convert: XGBoost's JSON model format (loads in\n"
            "                           xgboost.Booster(model_file=...), Treelite, Triton's\n"
            "                           FIL backend), or a gbt model (no default); an\n"
            "                           OUTPUT_FILE named *.ubj gets XGBoost's UBJSON\n"
            "  --force                  replace an existing OUTPUT_FILE that gbmodel did\n"
            "                           not write (an input file is never replaced)\n"
            "  -q, --quiet              print only errors\n"
            "  --version                print the version and build information\n"
            "  --help                   print this text\n"
            "\n"
            "OUTPUT_FILE '-' is standard output, the default of info, importance and\n"
            "dump.  A file is written to a temporary file beside it and renamed into\n"
            "place (a symbolic link: over the file it points at), so an error never\n"
            "leaves a partial file; a device, FIFO or socket (/dev/stdout, a named\n"
            "pipe) is written in place.  A write error is exit status 1.  Yes/no\n"
            "options (--with_stats, --force, -q) take 1/0, true/false, yes/no or on/off,\n"
            "in any case; alone they mean 1; any other value is an error.\n");
}

static gbt_booster *load(const char *path)
{
    gbt_booster *b;
    gbt_status s = gbt_booster_load(path, &b);
    if (s != GBT_OK) cli_die_status(s, "loading the model");
    return b;
}

static int is_model(const char *head)
{
    return strstr(head, "\"format\": \"gbt-model\"") != NULL;
}

/* A model gbmodel writes: a gbt model or an XGBoost JSON model (gbmodel convert's). */
static int is_any_model(const char *head)
{
    return is_model(head) || strncmp(head, "{\"learner\":{", 12) == 0;
}

static int is_dump(const char *head)
{
    return strncmp(head, "booster[", 8) == 0 || strncmp(head, "[\n  { \"nodeid\"", 15) == 0 ||
           strncmp(head, "[\n]", 3) == 0 || strncmp(head, "digraph ", 8) == 0;
}

static int is_info(const char *head)
{
    return strncmp(head, "model: ", 7) == 0;
}

/* Lines of 'NAME<TAB>NUMBER' (the last one may be cut). */
static int is_importance(const char *head)
{
    for (const char *p = head; *p;) {
        const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');
        char *end;
        if (tab == NULL || (nl && tab > nl)) return 0;
        strtod(tab + 1, &end);
        if (end == tab + 1 || (*end != '\n' && *end != '\0')) return 0;
        p = *end ? end + 1 : end;
    }
    return 1;
}

static void attr(const gbt_booster *b, const char *key, char *buf, size_t len)
{
    if (gbt_booster_get_attr(b, key, buf, len) != GBT_OK) snprintf(buf, len, "none");
}

/* "feature_types: q, int, c": each of the n features' type as the training data spelt it. */
static void feature_types(const gbt_booster *b, FILE *f, uint64_t n)
{
    const char **types = malloc((n + 1) * sizeof *types);
    gbt_status s;
    if (types == NULL) cli_die_status(GBT_E_NO_MEMORY, "reading the feature types");
    s = gbt_booster_feature_types(b, n, types);
    if (s != GBT_OK) cli_die_status(s, "reading the feature types");
    fprintf(f, "feature_types:");
    for (uint64_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? ", " : " ", types[i]);
    fprintf(f, "\n");
    free(types);
}

/* Leaves and the largest depth, from the text dump (one line per node, a tab a level). */
static void tree_sizes(const gbt_booster *b, unsigned long long *leaves, int *depth)
{
    char *text;
    size_t len;
    gbt_status s = gbt_booster_dump(b, "text", -1, 0, &text, &len);
    *leaves = 0;
    *depth = 0;
    if (s != GBT_OK) cli_die_status(s, "reading the trees");
    for (char *p = text; *p;) {
        char *e = strchr(p, '\n');
        int d = 0;
        if (e == NULL) e = p + strlen(p);
        while (p[d] == '\t') d++;
        if (d > *depth) *depth = d;
        {
            const char end = *e;
            *e = '\0';
            if (strstr(p, ":leaf=") != NULL) (*leaves)++;
            *e = end;
        }
        p = *e ? e + 1 : e;
    }
    gbt_free(text);
}

/* gbmodel info lists the feature names of models with at most this many features. */
#define INFO_MAX_NAMES 1000

static void info(const char *path, const char *out_path)
{
    gbt_booster *b = load(path);
    struct cli_out out;
    char buf[1024], deflt[64];
    char **names;
    uint64_t n;
    int rounds, depth;
    unsigned long long leaves;
    gbt_status s;
    cli_out_open(&out, out_path);
    fprintf(out.f, "model: %s\n", path);
    gbt_booster_get_param(b, "objective", buf, sizeof buf);
    fprintf(out.f, "objective: %s\n", buf);
    gbt_booster_get_param(b, "num_class", buf, sizeof buf);
    fprintf(out.f, "num_class: %s\n", buf);
    attr(b, "num_target", buf, sizeof buf);
    fprintf(out.f, "num_target: %s\n", buf);
    {
        /* one float text (at most 15 bytes with its comma) per output: up to 4096 classes */
        char *bs = malloc((size_t)1 << 17);
        if (bs == NULL) cli_die("out of memory");
        attr(b, "base_score", bs, (size_t)1 << 17);
        fprintf(out.f, "base_score: %s\n", bs);
        free(bs);
    }
    gbt_booster_num_rounds(b, &rounds);
    fprintf(out.f, "rounds: %d\n", rounds);
    attr(b, "num_trees", buf, sizeof buf);
    fprintf(out.f, "trees: %s\n", buf);
    tree_sizes(b, &leaves, &depth);
    fprintf(out.f, "leaves: %llu\nmax_depth_reached: %d\n", leaves, depth);
    attr(b, "best_iteration", buf, sizeof buf);
    fprintf(out.f, "best_iteration: %s\n", buf);
    attr(b, "best_score", buf, sizeof buf);
    fprintf(out.f, "best_score: %s\n", buf);
    attr(b, "num_feature", buf, sizeof buf);
    n = strtoull(buf, NULL, 10);
    fprintf(out.f, "num_feature: %llu\nfeature_names:", (unsigned long long)n);
    if (n > INFO_MAX_NAMES) {
        /* a count, not a list: the names of a model declaring 2^24 features would take gigabytes */
        fprintf(out.f, " not listed (more than %d features)\n", INFO_MAX_NAMES);
        fprintf(out.f, "feature_types: not listed (more than %d features)\n", INFO_MAX_NAMES);
    } else {
        s = gbt_booster_feature_names(b, &names, &n);
        if (s != GBT_OK) cli_die_status(s, "reading the feature names");
        for (uint64_t i = 0; i < n; i++) fprintf(out.f, "%s%s", i ? ", " : " ", names[i]);
        fprintf(out.f, "\n");
        gbt_free(names);
        feature_types(b, out.f, n);
    }
    attr(b, "training_file", buf, sizeof buf);
    fprintf(out.f, "training_file: %s\n", buf);
    fprintf(out.f, "training parameters (those not at their default):\n");
    for (int i = 0; i < gbt_param_count(); i++) {
        const char *name, *d;
        gbt_param_describe(i, &name, NULL, NULL, &d, NULL, NULL);
        if (strcmp(name, "objective") == 0 || strcmp(name, "num_class") == 0) continue;
        if (gbt_booster_get_param(b, name, buf, sizeof buf) != GBT_OK) continue;
        snprintf(deflt, sizeof deflt, "%s", d);
        if (strcmp(buf, deflt) != 0) fprintf(out.f, "  %s = %s\n", name, buf);
    }
    cli_out_commit(&out);
    gbt_booster_free(b);
}

struct ranked {
    double v;
    uint64_t f;
};

static int by_value(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return x->f < y->f ? -1 : x->f > y->f;
}

static void importance(const char *path, const char *type, const char *out_path)
{
    gbt_booster *b = load(path);
    struct cli_out out;
    char **names, buf[32];
    uint64_t n, k = 0;
    double *v, *weight;
    struct ranked *r;
    gbt_status s = gbt_booster_feature_names(b, &names, &n);
    if (s != GBT_OK) cli_die_status(s, "reading the feature names");
    v = malloc((n + 1) * sizeof *v);
    weight = malloc((n + 1) * sizeof *weight);
    r = malloc((n + 1) * sizeof *r);
    if (v == NULL || weight == NULL || r == NULL) cli_die("out of memory");
    if ((s = gbt_booster_feature_importance(b, type, v, n)) != GBT_OK) cli_die_status(s, "--type");
    if ((s = gbt_booster_feature_importance(b, "weight", weight, n)) != GBT_OK)
        cli_die_status(s, "feature importance");
    for (uint64_t f = 0; f < n; f++)
        if (weight[f] != 0) r[k++] = (struct ranked){v[f], f}; /* a linear model's coefficients may be < 0 */
    qsort(r, (size_t)k, sizeof *r, by_value);
    cli_out_open(&out, out_path);
    for (uint64_t i = 0; i < k; i++) {
        /* the fewest digits that read back as the same double */
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, r[i].v);
            if (strtod(buf, NULL) == r[i].v) break;
        }
        fprintf(out.f, "%s\t%s\n", names[r[i].f], buf);
    }
    cli_out_commit(&out);
    free(r);
    free(weight);
    free(v);
    gbt_free(names);
    gbt_booster_free(b);
}

static long int_option(const struct cli_opts *o, const char *name, long deflt, long lo, long hi)
{
    const char *v = cli_get(o, name);
    char *end;
    long n;
    if (v == NULL) return deflt;
    errno = 0;
    n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno || n < lo || n > hi)
        cli_die("--%s expects an integer in [%ld, %ld], got '%s'", name, lo, hi, v);
    return n;
}

static void dump(const struct cli_opts *o, const char *path, const char *out_path)
{
    const char *format = cli_get(o, "format") ? cli_get(o, "format") : "text";
    const int stats = cli_flag(o, "with_stats");
    const int tree = (int)int_option(o, "tree", -1, -1, 0x7fffffff);
    gbt_booster *b;
    struct cli_out out;
    char *text;
    size_t len;
    gbt_status s;
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0 && strcmp(format, "dot") != 0)
        cli_die("--format expects text, json or dot, got '%s'", format);
    if (out_path) cli_check_output(out_path, &path, 1, is_dump, cli_flag(o, "force"), "OUTPUT_FILE");
    b = load(path);
    s = gbt_booster_dump(b, format, tree, stats, &text, &len);
    if (s != GBT_OK) cli_die_status(s, "--tree");
    cli_out_open(&out, out_path);
    cli_out_write(&out, text, len);
    cli_out_commit(&out);
    gbt_free(text);
    gbt_booster_free(b);
}

/* "A:B", "A:" (to the end) or ":B" (from 0), then ":S" for every S-th round, against the model's rounds. */
static void parse_rounds(const char *v, int rounds, int *begin, int *end, int *step)
{
    const char *colon = v ? strchr(v, ':') : NULL, *colon2 = colon ? strchr(colon + 1, ':') : NULL;
    char *e;
    long a = 0, b = rounds, st = 1;
    int bad = colon == NULL;
    if (!bad && colon != v) {
        errno = 0;
        a = strtol(v, &e, 10);
        bad |= e != colon || errno != 0;
    }
    if (!bad && colon[1] != '\0' && colon + 1 != colon2) {
        errno = 0;
        b = strtol(colon + 1, &e, 10);
        bad |= (colon2 ? e != colon2 : *e != '\0') || errno != 0;
    }
    if (!bad && colon2) {
        errno = 0;
        st = strtol(colon2 + 1, &e, 10);
        bad |= colon2[1] == '\0' || *e != '\0' || errno != 0 || st < 1 || st > INT_MAX;
    }
    if (bad || a < 0 || b > rounds || a >= b)
        cli_die("--rounds expects A:B or A:B:S with 0 <= A < B <= %d (the model's rounds) and S >= 1, got '%s'",
                rounds, v ? v : "nothing");
    *begin = (int)a;
    *end = (int)b;
    *step = (int)st;
}

static void slice(const struct cli_opts *o, const char *path, const char *out_path)
{
    gbt_booster *b, *part;
    int rounds, begin, end, step, kept;
    gbt_status s;
    if (out_path == NULL) cli_die("slice needs MODEL_FILE and OUTPUT_FILE (try --help)");
    if (cli_get(o, "rounds") == NULL) cli_die("slice needs --rounds=A:B (try --help)");
    cli_check_output(out_path, &path, 1, is_model, cli_flag(o, "force"), "OUTPUT_FILE");
    cli_check_writable(out_path);
    b = load(path);
    gbt_booster_num_rounds(b, &rounds);
    parse_rounds(cli_get(o, "rounds"), rounds, &begin, &end, &step);
    if ((s = gbt_booster_slice_step(b, begin, end, step, &part)) != GBT_OK) cli_die_status(s, "slicing");
    cli_save_model(part, out_path, 0, "saving the model");
    kept = (end - begin + step - 1) / step;
    if (!cli_flag(o, "q") && !cli_flag(o, "quiet"))
        fprintf(stderr, "saved rounds %d to %d%s (%d of %d) to %s\n", begin, begin + (kept - 1) * step,
                step > 1 ? " by steps" : "", kept, rounds, strcmp(out_path, "-") == 0 ? "standard output" : out_path);
    gbt_booster_free(part);
    gbt_booster_free(b);
}

static void convert(const struct cli_opts *o, const char *path, const char *out_path)
{
    const char *to = cli_get(o, "to");
    gbt_booster *b;
    if (out_path == NULL) cli_die("convert needs MODEL_FILE and OUTPUT_FILE (try --help)");
    if (to == NULL || (strcmp(to, "xgboost") != 0 && strcmp(to, "gbt") != 0))
        cli_die("convert needs --to=xgboost or --to=gbt, got %s (try --help)", to ? to : "nothing");
    if (strcmp(to, "gbt") == 0 && cli_model_format(out_path, 0) == GBT_MODEL_XGBOOST_UBJ)
        cli_die("%s: a .ubj file holds an XGBoost model in UBJSON: convert --to=xgboost writes one, "
                "--to=gbt needs another name", out_path);
    cli_check_output(out_path, &path, 1, is_any_model, cli_flag(o, "force"), "OUTPUT_FILE");
    cli_check_writable(out_path);
    b = load(path);
    cli_save_model(b, out_path, strcmp(to, "xgboost") == 0, "converting the model");
    if (!cli_flag(o, "q") && !cli_flag(o, "quiet"))
        fprintf(stderr, "saved %s as %s to %s\n", path,
                cli_model_format(out_path, 0) == GBT_MODEL_XGBOOST_UBJ ? "an XGBoost UBJSON model"
                : strcmp(to, "xgboost") == 0                          ? "an XGBoost JSON model"
                                                                      : "a gbt model",
                strcmp(out_path, "-") == 0 ? "standard output" : out_path);
    gbt_booster_free(b);
}

/* Options each command takes (besides force, q, quiet). */
static void check_options(const struct cli_opts *o, const char *cmd, const char *allowed)
{
    for (size_t i = 0; i < o->n; i++) {
        const char *name = o->v[i].name;
        const char *p = strstr(allowed, name);
        const size_t n = strlen(name);
        if (strcmp(name, "force") == 0 || strcmp(name, "q") == 0 || strcmp(name, "quiet") == 0) continue;
        while (p && !((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')))
            p = strstr(p + 1, name);
        if (p == NULL || allowed[0] == '\0')
            cli_die("gbmodel %s takes no option '--%s' (try --help)", cmd, name);
    }
}

/* The boolean options: a bare --name means --name=1 (cli_parse_args, cli_flag). */
static const char bool_flags[] = "with_stats q quiet help h version force";

int main(int argc, char **argv)
{
    struct cli_opts o;
    const char *cmd, *model, *out;
    int nfiles;
    cli_set_prog(argv[0]);
    memset(&o, 0, sizeof o);
    cli_parse_args(argc, argv, bool_flags, &o);
    if (cli_help_or_version(&o, "gbmodel", usage)) return 0;
    cli_check_flags(&o, bool_flags);
    if (o.npositional == 0) cli_die("no command given: info, importance, dump, slice or convert (try --help)");
    cmd = o.positional[0];
    nfiles = o.npositional - 1;
    model = nfiles >= 1 ? o.positional[1] : NULL;
    out = nfiles >= 2 ? o.positional[2] : NULL;
    cli_install_logger(cli_flag(&o, "q") || cli_flag(&o, "quiet"));
    if (strcmp(cmd, "info") == 0 || strcmp(cmd, "importance") == 0 || strcmp(cmd, "dump") == 0 ||
        strcmp(cmd, "slice") == 0 || strcmp(cmd, "convert") == 0) {
        const int max_files = 2;
        if (model == NULL) cli_die("gbmodel %s needs a MODEL_FILE (try --help)", cmd);
        if (nfiles > max_files)
            cli_die("gbmodel %s: '%s' is one file argument too many (try --help)", cmd,
                    o.positional[1 + max_files]);
    } else {
        cli_die("unknown command '%s': expected info, importance, dump, slice or convert (try --help)", cmd);
    }
    if (strcmp(cmd, "info") == 0) {
        check_options(&o, cmd, "");
        if (out) cli_check_output(out, &model, 1, is_info, cli_flag(&o, "force"), "OUTPUT_FILE");
        info(model, out);
    } else if (strcmp(cmd, "importance") == 0) {
        const char *type = cli_get(&o, "type") ? cli_get(&o, "type") : "gain";
        check_options(&o, cmd, "type");
        if (out) cli_check_output(out, &model, 1, is_importance, cli_flag(&o, "force"), "OUTPUT_FILE");
        importance(model, type, out);
    } else if (strcmp(cmd, "dump") == 0) {
        check_options(&o, cmd, "format tree with_stats");
        dump(&o, model, out);
    } else if (strcmp(cmd, "slice") == 0) {
        check_options(&o, cmd, "rounds");
        slice(&o, model, out);
    } else {
        check_options(&o, cmd, "to");
        convert(&o, model, out);
    }
    free(o.v);
    return 0;
}
