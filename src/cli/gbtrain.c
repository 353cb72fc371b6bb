/*
 * gbtrain - trains a gradient-boosted tree model from a LIBSVM, CSV or TSV
 * file and saves it as JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Options of the tool itself; everything else is a training parameter. */
static const char *const tool_options[] = {"num_round", "num_rounds", "num_boost_round", "config",
                                           "valid", "format", "label_column", "header", "missing",
                                           "q", "quiet", "help", "h", "version", NULL};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: gbtrain [options] TRAIN_FILE [MODEL_FILE]\n"
            "\n"
            "Trains gradient-boosted trees on TRAIN_FILE and saves the model to MODEL_FILE\n"
            "(default: TRAIN_FILE's base name with the extension .model, in the current\n"
            "directory).  Options are --name=value or --name value.\n"
            "\n"
            "  --num_round=N            boosting rounds (default 10)\n"
            "  --config=FILE            read 'name = value' lines; the command line wins\n"
            "  --valid=FILE             validation data, repeatable: metrics each round,\n"
            "                           early stopping on the last one\n"
            "  --format=libsvm|csv|tsv  data format (default: guessed from the content)\n"
            "  --label_column=N         CSV/TSV label column (default 0; -1: none)\n"
            "  --header                 CSV/TSV files start with a line of column names\n"
            "  --missing=V              CSV/TSV: V also means missing\n"
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
    int nvalid = 0, rounds = 10, quiet;
    gbt_booster *b;
    gbt_status s;
    char *config = NULL;

    cli_set_prog(argv[0]);
    memset(&o, 0, sizeof o);
    cli_parse_args(argc, argv, "header q quiet help h version", &o);
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
    if (o.npositional < 1 || o.npositional > 2) {
        usage(stderr);
        cli_die("expected TRAIN_FILE [MODEL_FILE]");
    }
    quiet = cli_get(&o, "q") || cli_get(&o, "quiet");
    cli_install_logger(quiet);

    if ((v = cli_get(&o, "num_round")) || (v = cli_get(&o, "num_rounds")) ||
        (v = cli_get(&o, "num_boost_round"))) {
        char *end;
        long n;
        errno = 0;
        n = strtol(v, &end, 10);
        if (*v == '\0' || *end != '\0' || errno || n < 0 || n > 1000000000)
            cli_die("num_round expects an integer in [0, 1000000000], got '%s'", v);
        rounds = (int)n;
    }

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
    cli_data_options(&o, data_opts, sizeof data_opts);
    train = load(o.positional[0], data_opts);
    for (size_t i = 0; i < o.n; i++) {
        if (strcmp(o.v[i].name, "valid") != 0) continue;
        if (nvalid == 64) cli_die("at most 64 validation files");
        valid[nvalid] = load(o.v[i].value, data_opts);
        base_name(o.v[i].value, names[nvalid], sizeof names[nvalid]);
        valid_names[nvalid] = names[nvalid];
        nvalid++;
    }

    s = gbt_booster_train(b, train, rounds, (const gbt_dataset *const *)valid, valid_names, nvalid);
    if (s != GBT_OK) cli_die_status(s, "training");
    s = gbt_booster_save(b, model_path);
    if (s != GBT_OK) cli_die_status(s, "saving the model");
    if (!quiet) {
        int n = 0;
        gbt_booster_num_rounds(b, &n);
        fprintf(stderr, "saved %d rounds to %s\n", n, model_path);
    }
    for (int i = 0; i < nvalid; i++) gbt_dataset_free(valid[i]);
    gbt_dataset_free(train);
    gbt_booster_free(b);
    free(o.v);
    free(config);
    return 0;
}
