/*
 * gbtrain - trains a gradient-boosted tree model from a LIBSVM, CSV or TSV
 * file and saves it as JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* XGBoost's, its R package's and scikit-learn's names of the number of rounds. */
static const char *const round_names[] = {"num_round",    "num_rounds", "num_boost_round",
                                          "n_estimators", "nround",     "nrounds", NULL};

/* Options of the tool itself (besides round_names); everything else is a training parameter. */
static const char *const tool_options[] = {"config", "valid", "format", "label_column", "header",
                                           "missing", "indexing_mode", "q", "quiet", "help", "h",
                                           "version", "force", "save_period", "progress", NULL};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: gbtrain [options] TRAIN_FILE [MODEL_FILE]\n"
            "\n"
            "Trains gradient-boosted trees on TRAIN_FILE and saves the model to MODEL_FILE\n"
            "(default: TRAIN_FILE's base name with the extension .model, in the current\n"
            "directory).  Options are --name=value or --name value.\n"
            "\n"
            "  --num_round=N            boosting rounds (default 10; also num_boost_round,\n"
            "                           n_estimators, nround, nrounds)\n"
            "  --save_period=N          also save the model every N rounds (default 0:\n"
            "                           only at the end); not with early stopping\n"
            "  --config=FILE            read 'name = value' lines (values may be quoted);\n"
            "                           the command line wins\n"
            "  --valid=FILE             validation data, repeatable: metrics each round,\n"
            "                           early stopping on the last one\n"
            "  --format=libsvm|csv|tsv  data format (default: guessed from the content)\n"
            "  --label_column=N         CSV/TSV label column (default 0; -1: none)\n"
            "  --header                 CSV/TSV files start with a line of column names\n"
            "  --missing=V              CSV/TSV: V also means missing\n"
            "  --progress=S             report reading progress every S seconds (default:\n"
            "                           1 when standard error is a terminal, else 0: never)\n"
            "  --force                  replace an existing MODEL_FILE that is not a gbt\n"
            "                           model (an input file is never replaced)\n"
            "  --indexing_mode=0|1|auto LIBSVM: feature indices start at 0 or 1 (default\n"
            "                           auto: 0 when an index 0 appears, else 1)\n"
            "  -q, --quiet              print only warnings and errors\n"
            "  --version                print the version and build information\n"
            "  --help                   print this text\n"
            "\n"
            "Side files next to a data file are read when present: FILE.weight,\n"
            "FILE.base_margin, FILE.group (or FILE.query).\n"
            "\n");
    cli_print_params(f);
}

static int is_tool_option(const char *name)
{
    for (int i = 0; tool_options[i]; i++)
        if (strcmp(tool_options[i], name) == 0) return 1;
    for (int i = 0; round_names[i]; i++)
        if (strcmp(round_names[i], name) == 0) return 1;
    return 0;
}

/* A file's name without its directory and last extension: "data/train.csv" -> "train". */
static void base_name(const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/');
    const char *dot;
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    if (snprintf(buf, len, "%.*s", (int)(dot && dot != base ? dot - base : (long)strlen(base)), base) >= (int)len)
        cli_die("file name '%s' is too long", base);
}

static int is_model(const char *head)
{
    return strstr(head, "\"format\": \"gbt-model\"") != NULL;
}

/* MODEL_FILE must not be an input, nor an existing file that is not a model. */
static void check_model_path(const struct cli_opts *o, const char *model_path)
{
    const char *inputs[66];
    int n = 0;
    inputs[n++] = o->positional[0];
    inputs[n++] = cli_get(o, "config");
    for (size_t i = 0; i < o->n && n < 66; i++)
        if (strcmp(o->v[i].name, "valid") == 0) inputs[n++] = o->v[i].value;
    cli_check_output(model_path, inputs, n, is_model, cli_get(o, "force") != NULL, "MODEL_FILE");
    cli_check_writable(model_path);
}

/* A count option in [0, 1000000000], or `deflt` when it is not given. */
static int count_option(const struct cli_opts *o, const char *name, int deflt)
{
    const char *v = cli_get(o, name);
    char *end;
    long n;
    if (v == NULL) return deflt;
    errno = 0;
    n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno || n < 0 || n > 1000000000)
        cli_die("%s expects an integer in [0, 1000000000], got '%s'", name, v);
    return (int)n;
}

static void save(const gbt_booster *b, const char *path, int quiet)
{
    gbt_status s = gbt_booster_save(b, path);
    int n = 0;
    if (s != GBT_OK) cli_die_status(s, "saving the model");
    if (!quiet) {
        gbt_booster_num_rounds(b, &n);
        fprintf(stderr, "saved %d rounds to %s\n", n, path);
    }
}

static gbt_dataset *load(const char *path, const char *options)
{
    gbt_dataset *d;
    gbt_status s = gbt_dataset_from_file(path, options, &d);
    if (s != GBT_OK) cli_die_status(s, "reading data");
    return d;
}

int main(int argc, char **argv)
{
    struct cli_opts o;
    char data_opts[512], model_path[4096];
    const char *v;
    gbt_dataset *train, *valid[64];
    const char *valid_names[64];
    char names[64][256];
    int nvalid = 0, rounds, period, done, quiet;
    gbt_booster *b;
    gbt_status s;
    char *config = NULL;

    cli_set_prog(argv[0]);
    memset(&o, 0, sizeof o);
    cli_parse_args(argc, argv, "header q quiet help h version force", &o);
    if (cli_get(&o, "help") || cli_get(&o, "h")) {
        usage(stdout);
        free(o.v);
        return 0;
    }
    if (cli_get(&o, "version")) {
        free(o.v);
        printf("gbtrain %s\n%s\n", gbt_version(), gbt_build_info());
        return 0;
    }
    if ((v = cli_get(&o, "config")) != NULL) {
        struct cli_opts all;
        memset(&all, 0, sizeof all);
        /* the options keep pointing to the path, and v lies in o.v, freed below */
        config = strdup(v);
        if (config == NULL) cli_die("out of memory");
        cli_read_config(config, &all);
        for (size_t i = 0; i < o.n; i++) {
            if (all.n == all.cap) {
                all.cap = all.cap ? all.cap * 2 : 32;
                all.v = realloc(all.v, all.cap * sizeof *all.v);
                if (all.v == NULL) cli_die("out of memory");
            }
            all.v[all.n++] = o.v[i];
        }
        memcpy(all.positional, o.positional, sizeof o.positional);
        all.npositional = o.npositional;
        free(o.v);
        o = all;
    }
    if (o.npositional < 1)
        cli_die("no TRAIN_FILE given; usage: gbtrain [options] TRAIN_FILE [MODEL_FILE] (try --help)");
    if (o.npositional > 2)
        cli_die("%d file arguments, expected TRAIN_FILE [MODEL_FILE]: '%s' is one too many (try --help)",
                o.npositional, o.positional[2]);
    quiet = cli_get(&o, "q") || cli_get(&o, "quiet");
    cli_install_logger(quiet);

    rounds = 10;
    for (int i = 0; round_names[i]; i++) rounds = count_option(&o, round_names[i], rounds);
    period = count_option(&o, "save_period", 0);

    s = gbt_booster_create(&b);
    if (s != GBT_OK) cli_die_status(s, "creating the booster");
    if (!quiet && (s = gbt_booster_set_param(b, "verbosity", "2")) != GBT_OK)
        cli_die_status(s, "setting verbosity");
    for (size_t i = 0; i < o.n; i++) {
        if (is_tool_option(o.v[i].name)) continue;
        s = gbt_booster_set_param(b, o.v[i].name, o.v[i].value);
        if (s != GBT_OK) cli_die_option(&o.v[i], gbt_last_error());
    }

    if (o.positional[1]) {
        if (snprintf(model_path, sizeof model_path, "%s", o.positional[1]) >= (int)sizeof model_path)
            cli_die("model path is too long (%zu bytes)", strlen(o.positional[1]));
    } else {
        base_name(o.positional[0], model_path, sizeof model_path - 8);
        strcat(model_path, ".model");
    }
    {
        char dev[64];
        if (gbt_booster_get_param(b, "device", dev, sizeof dev) == GBT_OK) cli_check_device(dev);
    }
    check_model_path(&o, model_path);
    cli_data_options(&o, b, data_opts, sizeof data_opts);
    train = load(o.positional[0], data_opts);
    for (size_t i = 0; i < o.n; i++) {
        if (strcmp(o.v[i].name, "valid") != 0) continue;
        if (nvalid == 64) cli_die("at most 64 validation files");
        valid[nvalid] = load(o.v[i].value, data_opts);
        base_name(o.v[i].value, names[nvalid], sizeof names[nvalid]);
        valid_names[nvalid] = names[nvalid];
        nvalid++;
    }

    if (period > 0) {
        char es[32];
        if (gbt_booster_get_param(b, "early_stopping_rounds", es, sizeof es) == GBT_OK && strcmp(es, "0") != 0)
            cli_die("--save_period and early_stopping_rounds cannot be combined: early stopping "
                    "follows one uninterrupted training");
    }
    /* With --save_period, training runs in pieces of that many rounds, each saved. */
    done = 0;
    do {
        int n = period > 0 && rounds - done > period ? period : rounds - done;
        s = gbt_booster_train(b, train, n, (const gbt_dataset *const *)valid, valid_names, nvalid);
        if (s != GBT_OK) cli_die_status(s, "training");
        done += n;
        if (done < rounds) save(b, model_path, quiet);
    } while (done < rounds);
    save(b, model_path, quiet);
    for (int i = 0; i < nvalid; i++) gbt_dataset_free(valid[i]);
    gbt_dataset_free(train);
    gbt_booster_free(b);
    free(o.v);
    free(config);
    return 0;
}
