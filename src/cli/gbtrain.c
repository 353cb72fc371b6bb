/*
 * gbtrain - trains a gradient-boosted tree model from a LIBSVM, CSV or TSV
 * file (or a binary dataset file) and saves it as JSON.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_mpi.h"
#include "cli/interrupt.h"

/*
 * The yes/no options (cli_flag), and those of them that may stand alone
 * (--force: --force=1); --eval_train and pred_margin take their value, as
 * they always did, so that "--eval_train 0" does not make 0 a file argument.
 */
static const char bool_flags[] = "header q quiet help h version force eval_train pred_margin save_best";
static const char bare_flags[] = "header q quiet help h version force save_best";

/*
 * Whether training parameter `name` is a yes/no: the library's bool
 * parameters, and validate_features (an int in [0, 1]).  gbtrain reads
 * their values with cli_parse_bool, so they take every spelling its own
 * yes/no options take (the library takes 1/0 and true/false); a value it
 * does not know goes to the library as given, which refuses it.
 */
static int is_bool_param(const char *name)
{
    if (strcmp(name, "validate_features") == 0) return 1;
    for (int i = 0, n = gbt_param_count(); i < n; i++) {
        const char *pname, *type;
        if (gbt_param_describe(i, &pname, NULL, &type, NULL, NULL, NULL) == GBT_OK && strcmp(type, "bool") == 0 &&
            strcmp(name, pname) == 0)
            return 1;
    }
    return 0;
}

/* XGBoost's, its R package's and scikit-learn's names of the number of rounds. */
static const char *const round_names[] = {"num_round",    "num_rounds", "num_boost_round",
                                          "n_estimators", "nround",     "nrounds", NULL};

/*
 * Options of the tool itself (besides round_names and eval[NAME]); everything
 * else is a training parameter.  From "task" on they are the XGBoost CLI's
 * keys; those of its other tasks (test:data to fmap) are ignored in
 * training, as XGBoost ignores them.
 */
static const char *const tool_options[] = {"config", "valid", "format", "label_column", "header", "delimiter",
                                           "missing", "indexing_mode", "q", "quiet", "help", "h",
                                           "version", "force", "save_period", "progress", "eval_train",
                                           "task", "data", "model_out", "model_in", "model_dir",
                                           "test:data", "name_pred", "pred_margin", "name_dump",
                                           "dump_stats", "fmap", "categorical_feature", "feature_types", "save_best",
                                           NULL};

/* A data file: its path, its own reading options (from an XGBoost URI) and its name in metrics. */
struct data_file {
    char path[4096];
    char opts[512];
    char name[256];
    int cache; /* named with XGBoost's "#CACHE": the training data is read in batches */
    char cache_name[512]; /* a URI's CACHE (a plain path keeps its "#CACHE", which the library splits off) */
};

/* gbtrain prints per-round metrics by default (the library's default verbosity is 1). */
static const char *const tool_defaults[] = {"verbosity", "2", NULL};

/* The verbosity in effect: gbtrain's own messages follow it as the library's do. */
static int verbosity;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: gbtrain [options] TRAIN_FILE [MODEL_FILE]\n"
            "       gbtrain --config=XGBOOST_CLI_CONF [options]\n"
            "\n"
            "Trains gradient-boosted trees on TRAIN_FILE and saves the model to MODEL_FILE\n"
            "(default: TRAIN_FILE's base name with the extension .model, in the current\n"
            "directory; '-': standard output).  A file is written to a temporary file\n"
            "and renamed into place (a symbolic link: over the file it points at); a\n"
            "device, FIFO or socket (/dev/stdout, a named pipe) is written in place.\n"
            "A MODEL_FILE named *.ubj gets XGBoost's UBJSON model format (gbt's JSON\n"
            "otherwise); gbpredict, gbmodel and --model_in read either.\n"
            "Options are --name=value or --name value.  Yes/no options (--force,\n"
            "--header, --eval_train, -q) take 1/0, true/false, yes/no or on/off, in any\n"
            "case (a config file too); alone (not --eval_train) they mean 1; any other\n"
            "value is an error.\n"
            "\n"
            "A config file may use the XGBoost CLI's keys: data = TRAIN_FILE (a\n"
            "'?format=libsvm&label_column=0' suffix gives that file's format options),\n"
            "eval[NAME] = FILE (validation data named NAME), model_out = MODEL_FILE\n"
            "(default: model_dir/NNNN.model, NNNN the rounds, as XGBoost), num_round,\n"
            "save_period, eval_train, model_in, task = train.  task = pred is refused\n"
            "with the gbpredict command that does it.\n"
            "File arguments win over data and model_out.\n"
            "\n"
            "  --num_round=N            boosting rounds (default 10; also num_boost_round,\n"
            "                           n_estimators, nround, nrounds); with --model_in,\n"
            "                           the rounds added\n"
            "  --model_in=FILE          continue training the model in FILE: its trees\n"
            "                           and parameters (options given here win), then\n"
            "                           num_round more rounds; the same model as one\n"
            "                           uninterrupted training (default: none, train\n"
            "                           from scratch)\n"
            "  --save_period=N          also save the model every N rounds (default 0:\n"
            "                           only at the end), each time a complete model\n"
            "                           file replacing MODEL_FILE atomically (with early\n"
            "                           stopping: its best round so far); not with\n"
            "                           --save_best, nor a MODEL_FILE written in place\n"
            "  --config=FILE            read 'name = value' lines (values may be quoted);\n"
            "                           the command line wins\n"
            "  --valid=FILE             validation data, repeatable: metrics each round,\n"
            "                           early stopping on the last one\n"
            "  --save_best              with early_stopping_rounds: save only the rounds\n"
            "                           up to the best one (default: every round trained,\n"
            "                           the best recorded as best_iteration, which\n"
            "                           gbpredict predicts with)\n"
            "  --eval_train=0|1         metrics of the training data each round too\n"
            "                           (default: only when no --valid is given)\n"
            "  --format=libsvm|csv|tsv  data format (default: guessed from the content)\n"
            "  --label_column=N         CSV/TSV label column (default 0; -1: none); the\n"
            "                           model records it, with the header and delimiter,\n"
            "                           and gbpredict reads files that way by default\n"
            "  --header                 CSV/TSV files start with a line of column names\n"
            "  --delimiter=C            CSV fields separated by C (; | or :), not commas\n"
            "  --missing=V              CSV/TSV: V also means missing\n"
            "  --categorical_feature=LIST  categorical features (LightGBM's option): column\n"
            "                           numbers counted without the label, 0,3,7, or\n"
            "                           names from the header, name:country,store; their\n"
            "                           values are category codes, whole numbers from 0\n"
            "                           to 16777215, or in a CSV/TSV file category names:\n"
            "                           the categories are then the names sorted, which\n"
            "                           the model keeps for gbpredict (default: none)\n"
            "  --feature_types=LIST     XGBoost's feature_types instead: one type a\n"
            "                           feature, q (numeric) or c (categorical), q,c,q\n"
            "  --progress=S             report reading progress every S seconds (default:\n"
            "                           1 when standard error is a terminal, else 0: never)\n"
            "  --force                  replace an existing MODEL_FILE that is not a gbt\n"
            "                           model (an input file is never replaced)\n"
            "  --indexing_mode=0|1|auto LIBSVM: feature indices start at 0 or 1 (default\n"
            "                           auto: 0 when an index 0 appears, else 1)\n"
            "  -q, --quiet              print only warnings and errors (verbosity 1);\n"
            "                           --verbosity=3 adds set-up details and each\n"
            "                           round's trees and times\n"
            "  --version                print the version and build information\n"
            "  --help                   print this text\n"
            "\n"
            "A data file may be an XGBoost URI, FILE?format=csv&label_column=0 (those\n"
            "options win over the flags); FILE#CACHE (XGBoost's external-memory cache)\n"
            "reads FILE in batches: training data binned as it is read, its binned rows\n"
            "written in pages to a new file CACHE-gbt-PID-N.pages, removed at the end;\n"
            "a validation file binned with the training data's cuts, in memory.\n"
            "\n"
            "Ctrl-C (SIGINT) or SIGTERM finishes the round in progress, saves the model\n"
            "of the finished rounds and exits with status 130; before the first new\n"
            "round it writes nothing (MODEL_FILE stays as it was).  A second one stops\n"
            "at once (abandoning a save in progress, never leaving a partial file).\n"
            "\n"
            "Side files next to a data file are read when present, and named when read:\n"
            "FILE.label (the labels instead of the file's own; T numbers a line train a\n"
            "multi-target model of T outputs), FILE.weight, FILE.base_margin, FILE.lower\n"
            "and FILE.upper (survival:aft time intervals; inf for an open end),\n"
            "FILE.group (or FILE.query; with groups, FILE.weight may hold one weight per\n"
            "group, as XGBoost's ranking takes them).\n"
            "\n"
            "A data file may also be a binary dataset saved by gbt_dataset_save_binary or\n"
            "Python's Dataset.save_binary, recognised by its first bytes: it holds every\n"
            "field, so side files and format options do not apply to it.\n"
            "\n"
            "Under mpirun, each rank trains on its share of the rows (a file name with\n"
            "%%d: the file of its rank; otherwise its range of the file's rows; read in\n"
            "batches, FILE%%d#CACHE only) and rank 0 writes the model: the model of one\n"
            "process on all the rows.\n"
            "\n");
    cli_print_params(f, tool_defaults);
}

/* The XGBoost CLI's "eval[NAME]", NAME in *name (not terminated), or 0. */
static int eval_key(const char *key, const char **name, int *len)
{
    size_t n = strlen(key);
    if (strncmp(key, "eval[", 5) != 0 || n < 7 || key[n - 1] != ']') return 0;
    *name = key + 5;
    *len = (int)n - 6;
    return 1;
}

static int is_tool_option(const char *name)
{
    const char *e;
    int n;
    if (eval_key(name, &e, &n)) return 1;
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
static void check_model_path(const struct cli_opts *o, const struct data_file *files, int nfiles,
                             const char *model_path)
{
    const char *inputs[66];
    int n = 0;
    inputs[n++] = cli_get(o, "config");
    for (int i = 0; i < nfiles; i++) inputs[n++] = files[i].path;
    cli_check_output(model_path, inputs, n, is_model, cli_flag(o, "force"), "MODEL_FILE");
    cli_check_writable(model_path);
}

/*
 * A data file as the XGBoost CLI names it: "PATH?format=libsvm&label_column=0"
 * (its URI options are gbt's file options of the same names).
 */
static void xgb_data_file(const struct cli_opt *opt, struct data_file *f)
{
    const char *q = strrchr(opt->value, '?');
    size_t n = q ? (size_t)(q - opt->value) : strlen(opt->value);
    if (n == 0) cli_die_option(opt, "an empty file name");
    if (n >= sizeof f->path) cli_die_option(opt, "the file name is too long");
    memcpy(f->path, opt->value, n);
    f->path[n] = '\0';
    snprintf(f->opts, sizeof f->opts, "%s", q ? q + 1 : "");
    /* "PATH?OPTIONS#CACHE": the cache's name kept, the prefix of the training data's page file */
    f->cache = strchr(q ? f->opts : f->path, '#') != NULL && access(opt->value, F_OK) != 0;
    if (f->cache) {
        char *hash = strchr(q ? f->opts : f->path, '#');
        snprintf(f->cache_name, sizeof f->cache_name, "%s", hash + 1);
        *hash = '\0';
    }
    for (char *c = f->opts; *c; c++)
        if (*c == '&') *c = ',';
    /* each option once, as in a URI given on the command line (gbt_dataset_from_file) */
    for (const char *a = f->opts; *a; a += strcspn(a, ",") + (a[strcspn(a, ",")] == ',')) {
        const size_t kl = strcspn(a, "=,");
        for (const char *b = strchr(a, ','); b; b = strchr(b + 1, ','))
            if (strncmp(a, b + 1, kl) == 0 && strchr("=,", b[1 + kl])) {
                char msg[600];
                snprintf(msg, sizeof msg, "option '%.*s' is given twice in the URI (give each once)", (int)kl, a);
                cli_die_option(opt, msg);
            }
    }
}

/* A file given by its plain path (the command line, --valid). */
static void plain_data_file(const char *path, struct data_file *f)
{
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path)
        cli_die("file name '%.64s...' is too long", path);
    f->opts[0] = '\0';
    /* PATH#CACHE (the library splits it off) */
    f->cache = strchr(path, '#') != NULL && access(path, F_OK) != 0;
}

/*
 * task = pred of an XGBoost configuration: gbtrain trains; the message gives
 * the gbpredict command that does what the configuration asks.
 */
static void refuse_pred_task(const struct cli_opts *o, const struct cli_opt *task)
{
    const struct cli_opt *test = NULL, *model = NULL;
    const char *out = cli_get(o, "name_pred"), *margin = cli_get(o, "pred_margin");
    struct data_file f = {"TEST_DATA", "", "", 0, ""};
    char msg[9000], opts[1100] = "";
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++) {
        if (strcmp(o->v[i].name, "test:data") == 0) test = &o->v[i];
        if (strcmp(o->v[i].name, "model_in") == 0) model = &o->v[i];
    }
    if (test) xgb_data_file(test, &f);
    /* the URI's options as gbpredict's: "format=libsvm,header=1" -> " --format=libsvm --header=1" */
    for (const char *c = f.opts; *c && n + 4 < sizeof opts; c++) {
        if (c == f.opts || *c == ',') n += (size_t)snprintf(opts + n, sizeof opts - n, " --");
        if (*c != ',') opts[n++] = *c;
    }
    opts[n] = '\0';
    snprintf(msg, sizeof msg, "task = pred: gbtrain only trains; predict with: gbpredict%s%s %s %s %s",
             margin && cli_flag(o, "pred_margin") ? " --margin" : "", opts, f.path,
             model ? model->value : "MODEL_FILE", out ? out : "pred.txt");
    cli_die_option(task, msg);
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

static const char *shown(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard output" : path;
}

/*
 * Rank 0 saves (the only one under mpirun); then the ranks agree that it
 * did.  A second signal may abandon the save (interrupt.h): then the run
 * stops here, saying what the model file holds.
 */
static void save(const gbt_booster *b, const char *path)
{
    char text[4200];
    int n = 0;
    if (cli_mpi_rank() != 0) {
        cli_mpi_agree();
        return;
    }
    gbt_booster_num_rounds(b, &n);
    if (interrupt_save(b, path) != 0) {
        fprintf(stderr, "%s: interrupted again while saving: stopped; the model of %d rounds was not saved (%s)\n",
                cli_prog(), n, interrupt_held_text());
        exit(130);
    }
    snprintf(text, sizeof text, "%s holds the model of %d rounds saved earlier in this run", shown(path), n);
    interrupt_held(text);
    cli_mpi_agree();
    if (verbosity >= GBT_LOG_INFO) fprintf(stderr, "saved %d rounds to %s\n", n, shown(path));
}

/* --save_period: the checkpoints, every `period` rounds of this run but the last. */
struct checkpoint {
    const char *path;
    int period, start, rounds; /* the model's rounds before this run; the rounds asked for */
};

static int on_round(const gbt_booster *b, int rounds, void *user)
{
    const struct checkpoint *c = user;
    const int done = rounds - c->start;
    if (c->period > 0 && done % c->period == 0 && done < c->rounds && !interrupt_signal()) save(b, c->path);
    return 0;
}

/*
 * Reads a data file (under mpirun, this rank's share of it: cli_mpi.h) and
 * says what was read, side files included.
 */
static gbt_dataset *load(const struct data_file *f, const char *data_opts, const struct cli_opts *o,
                         const gbt_booster *model, int names)
{
    gbt_dataset *d;
    char options[1200], path[4096];
    snprintf(options, sizeof options, "%s%s%s%s", data_opts, data_opts[0] && f->opts[0] ? "," : "", f->opts,
             names ? (data_opts[0] || f->opts[0] ? ",category_names=1" : "category_names=1") : "");
    d = cli_mpi_read_share(f->path, options, model, path, sizeof path);
    if (verbosity >= GBT_LOG_INFO) cli_report_data(path, d, 0);
    cli_apply_feature_types(o, d, path);
    return d;
}

/* The training data read in batches, freed at any exit (cli_die's too), which removes its page file. */
static gbt_dataset *batches_data;

static void free_batches(void)
{
    gbt_dataset_free(batches_data);
    batches_data = NULL;
}

/*
 * --categorical_feature or --feature_types for a file read in batches: they
 * name features by the file's width and names, which its first batch tells,
 * so that batch is read (gbt_file_batches), the flag resolved on it as on a
 * file read whole (cli_apply_feature_types), and its types go to the
 * library as the option feature_types=qc.. on every batch.  Returns the
 * options (a new string; `options` freed).
 */
static char *batch_types(const struct cli_opts *o, const char *path, char *options)
{
    gbt_file_batches *r = NULL;
    gbt_dataset *first = NULL;
    uint64_t nrow, ncol;
    const char **types;
    char *all;
    size_t n;
    gbt_status s;
    if (!cli_get(o, "categorical_feature") && !cli_get(o, "feature_types")) return options;
    s = gbt_file_batches_open(path, options, &r);
    if (s == GBT_OK) s = gbt_file_batches_next(r, &first);
    gbt_file_batches_close(r);
    if (s != GBT_OK) cli_die_status(s, "reading data");
    if (first == NULL) cli_die("%s: no data rows", path);
    cli_apply_feature_types(o, first, path);
    gbt_dataset_shape(first, &nrow, &ncol);
    n = strlen(options);
    types = malloc((size_t)ncol * sizeof *types + 1);
    all = malloc(n + ncol + 17);
    if (types == NULL || all == NULL) cli_die("out of memory");
    if ((s = gbt_dataset_get_feature_types(first, ncol, types)) != GBT_OK) cli_die_status(s, "reading data");
    n = (size_t)sprintf(all, "%s%sfeature_types=", options, n ? "," : "");
    for (uint64_t f = 0; f < ncol; f++) all[n++] = types[f][0];
    all[n] = '\0';
    free(types);
    free(options);
    gbt_dataset_free(first);
    return all;
}

/*
 * Data named "PATH#CACHE", read in batches (gbt_dataset_from_file_iter):
 * the training data (ref NULL) binned with the booster's max_bin as it is
 * read, a validation file with the training data's cuts (ref, through
 * gbt_dataset_from_file_iter_ref), their feature values never all in
 * memory.
 */
static gbt_dataset *load_batches(const struct data_file *f, const char *data_opts, const struct cli_opts *o,
                                 const gbt_booster *b, const gbt_dataset *ref)
{
    gbt_dataset *d = NULL;
    char *options, max_bin[32], path[4096 + 520], shown[4096 + 520];
    if (ref && cli_mpi_size() > 1)
        cli_die("%s: validation data read in batches (#CACHE) is for one process, not mpirun: drop the #CACHE",
                f->path);
    if (!ref && cli_get(o, "model_in"))
        cli_die("%s: training on from --model_in reads the training data whole (its starting scores need the "
                "feature values): drop the #CACHE", f->path);
    if (gbt_booster_get_param(b, "max_bin", max_bin, sizeof max_bin) != GBT_OK)
        snprintf(max_bin, sizeof max_bin, "256");
    options = malloc(strlen(data_opts) + strlen(f->opts) + 2);
    if (options == NULL) cli_die("out of memory");
    sprintf(options, "%s%s%s", data_opts, data_opts[0] && f->opts[0] ? "," : "", f->opts);
    /* the cache name back on the path: the prefix of the page file the library writes */
    snprintf(path, sizeof path, "%s%s%s", f->path, f->cache_name[0] ? "#" : "", f->cache_name);
    cli_mpi_batches_path(path, shown, sizeof shown);
    options = batch_types(o, shown, options);
    if (ref) { /* no page file: kept in memory */
        gbt_status s = gbt_dataset_from_file_iter_ref(shown, options, ref, atoi(max_bin), &d);
        if (s != GBT_OK) cli_die_status(s, "reading data");
    } else { /* the training data: its page file removed at any exit */
        d = cli_mpi_read_batches(path, options, atoi(max_bin), shown, sizeof shown);
        batches_data = d;
        atexit(free_batches);
    }
    free(options);
    if (verbosity >= GBT_LOG_INFO) cli_report_data(f->path, d, 0);
    return d;
}

/*
 * The training data's category names (a CSV/TSV file's, read with
 * category_names=1, or a binary dataset's) kept with the model, as the
 * Python package keeps a DataFrame's, so that the validation files and
 * gbpredict read names by them.
 */
static void keep_category_names(gbt_booster *b, const gbt_dataset *train)
{
    const char *names = NULL;
    gbt_status s = gbt_dataset_get_category_names(train, &names);
    if (s == GBT_OK && names) s = gbt_booster_set_attr(b, "feature_categories", names);
    if (s != GBT_OK) cli_die_status(s, "keeping the category names with the model");
}

int main(int argc, char **argv)
{
    struct cli_opts o;
    char data_opts[512], model_path[4096];
    const char *v;
    /* files[0] the training data, then the validation files; evals the evaluation sets */
    static struct data_file files[65];
    gbt_dataset *train, *evals[65];
    const char *eval_names[65];
    int neval = 0, nvalid = 0, eval_train, rounds, period, done, start, quiet, distributed;
    gbt_booster *b;
    gbt_status s;
    char *config = NULL;

    cli_set_prog(argv[0]);
    interrupt_init();
    distributed = cli_mpi_start(&argc, &argv);
    memset(&o, 0, sizeof o);
    cli_parse_args(argc, argv, bare_flags, &o);
    if (cli_help_or_version(&o, "gbtrain", usage)) return 0;
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
    cli_check_flags(&o, bool_flags);
    if (o.npositional > 2)
        cli_die("%d file arguments, expected TRAIN_FILE [MODEL_FILE]: '%s' is one too many (try --help)",
                o.npositional, o.positional[2]);
    quiet = cli_flag(&o, "q") || cli_flag(&o, "quiet");
    /* under mpirun, ranks other than 0 print only errors */
    cli_install_logger(cli_mpi_rank() > 0 ? 2 : quiet);

    /* an XGBoost CLI configuration: its task, files and model names */
    for (size_t i = 0; i < o.n; i++) {
        const struct cli_opt *opt = &o.v[i];
        const char *name;
        int len;
        if (strcmp(opt->name, "task") == 0 && strcmp(opt->value, "pred") == 0) refuse_pred_task(&o, opt);
        if (strcmp(opt->name, "task") == 0 && strcmp(opt->value, "train") != 0)
            cli_die_option(opt, strcmp(opt->value, "dump") == 0
                                    ? "task = dump: gbtrain only trains; dump with: gbmodel dump MODEL_FILE"
                                    : "task expects train (gbtrain trains; gbpredict predicts)");
        if (strcmp(opt->name, "valid") == 0 || eval_key(opt->name, &name, &len)) {
            struct data_file *f = &files[1 + nvalid];
            if (nvalid == 64) cli_die("at most 64 validation files");
            if (strcmp(opt->name, "valid") == 0) {
                char file[sizeof f->path];
                plain_data_file(opt->value, f);
                /* named by its file: "test.csv?batch_bytes=N#dtest.cache" is "test" */
                snprintf(file, sizeof file, "%.*s", (int)(f->cache ? strcspn(f->path, "?#") : strlen(f->path)),
                         f->path);
                base_name(file, f->name, sizeof f->name);
            } else {
                xgb_data_file(opt, f);
                snprintf(f->name, sizeof f->name, "%.*s", len, name);
            }
            nvalid++;
        }
    }
    if (o.npositional >= 1) {
        plain_data_file(o.positional[0], &files[0]);
    } else {
        const struct cli_opt *data = NULL;
        for (size_t i = 0; i < o.n; i++)
            if (strcmp(o.v[i].name, "data") == 0) data = &o.v[i];
        if (data == NULL)
            cli_die("no TRAIN_FILE given (nor data = FILE in a --config file); usage: gbtrain [options] "
                    "TRAIN_FILE [MODEL_FILE] (try --help)");
        xgb_data_file(data, &files[0]);
    }

    rounds = 10;
    for (int i = 0; round_names[i]; i++) rounds = count_option(&o, round_names[i], rounds);
    period = count_option(&o, "save_period", 0);

    if ((v = cli_get(&o, "model_in")) != NULL) {
        /* continued training: the model's own parameters, then the options given here */
        s = gbt_booster_load(v, &b);
        if (s != GBT_OK) cli_die_status(s, "reading the model to continue (--model_in)");
    } else {
        s = gbt_booster_create(&b);
        if (s != GBT_OK) cli_die_status(s, "creating the booster");
    }
    if (!quiet && (s = gbt_booster_set_param(b, "verbosity", "2")) != GBT_OK)
        cli_die_status(s, "setting verbosity");
    for (size_t i = 0; i < o.n; i++) {
        if (is_tool_option(o.v[i].name)) continue;
        const int yes = is_bool_param(o.v[i].name) ? cli_parse_bool(o.v[i].value) : -1;
        s = gbt_booster_set_param(b, o.v[i].name, yes == 1 ? "1" : yes == 0 ? "0" : o.v[i].value);
        if (s != GBT_OK) cli_die_option(&o.v[i], gbt_last_error());
    }
    {
        char buf[32];
        if ((s = gbt_booster_get_param(b, "verbosity", buf, sizeof buf)) != GBT_OK)
            cli_die_status(s, "reading verbosity");
        verbosity = cli_mpi_rank() > 0 ? 0 : atoi(buf);
        if ((s = gbt_booster_get_param(b, "early_stopping_rounds", buf, sizeof buf)) != GBT_OK)
            cli_die_status(s, "reading early_stopping_rounds");
        if (strcmp(buf, "0") != 0 && nvalid == 0)
            cli_die("early_stopping_rounds needs validation data (--valid FILE): it watches the last "
                    "validation set's metric");
        if (cli_flag(&o, "save_best") && strcmp(buf, "0") == 0)
            cli_die("--save_best keeps the rounds up to early stopping's best one: it needs "
                    "--early_stopping_rounds=N");
        if (cli_flag(&o, "save_best") && period > 0)
            cli_die("--save_period and --save_best cannot be combined: the checkpoints would hold rounds "
                    "that the final model drops");
        /* by default every round stays and the model records best_iteration (gbpredict predicts with it) */
        if ((s = gbt_booster_set_early_stopping(b, -1, NULL, NULL, -1, 0.0, cli_flag(&o, "save_best"))) != GBT_OK)
            cli_die_status(s, "setting up early stopping");
    }
    eval_train = cli_get(&o, "eval_train") ? cli_flag(&o, "eval_train") : nvalid == 0;

    if (o.positional[1] || cli_get(&o, "model_out")) {
        v = o.positional[1] ? o.positional[1] : cli_get(&o, "model_out");
        if (snprintf(model_path, sizeof model_path, "%s", v) >= (int)sizeof model_path)
            cli_die("model path is too long (%zu bytes)", strlen(v));
    } else if (o.npositional == 0) {
        /* the XGBoost CLI's name for it: MODEL_DIR/NNNN.model, NNNN the number of rounds */
        v = cli_get(&o, "model_dir");
        if (snprintf(model_path, sizeof model_path, "%s%s%04d.model", v ? v : "", v && *v ? "/" : "", rounds) >=
            (int)sizeof model_path)
            cli_die("model path is too long");
    } else {
        base_name(files[0].path, model_path, sizeof model_path - 8);
        strcat(model_path, ".model");
    }
    {
        char dev[64];
        if (gbt_booster_get_param(b, "device", dev, sizeof dev) == GBT_OK) cli_check_device(dev);
    }
    if (cli_mpi_rank() == 0) {
        char text[4200];
        struct stat st;
        /* the probe's temporary file is removed before a signal ends the run */
        interrupt_phase(INTERRUPT_PROBE, NULL);
        check_model_path(&o, files, 1 + nvalid, model_path);
        interrupt_phase(INTERRUPT_SETUP, NULL);
        snprintf(text, sizeof text, "%s %s", shown(model_path),
                 strcmp(model_path, "-") == 0 ? "untouched" : stat(model_path, &st) == 0 ? "left as it was" : "not created");
        interrupt_held(text);
    }
    if (period > 0 && period < rounds && (strcmp(model_path, "-") == 0 || gbt__outfile_in_place(model_path)))
        cli_die("--save_period replaces MODEL_FILE at each checkpoint; '%s' is written in place (standard "
                "output, a device, FIFO or socket), which cannot hold more than one model", model_path);
    cli_data_options(&o, b, data_opts, sizeof data_opts);
    interrupt_pause("load");
    /*
     * with categorical features declared, a CSV/TSV file's names are their
     * categories; a model to continue reads them by its own list
     */
    {
        const int declared = cli_get(&o, "categorical_feature") || cli_get(&o, "feature_types");
        const int continued = cli_get(&o, "model_in") != NULL;
        train = files[0].cache ? load_batches(&files[0], data_opts, &o, b, NULL)
                               : load(&files[0], data_opts, &o, continued ? b : NULL, declared && !continued);
        if (!continued) keep_category_names(b, train);
    }
    if (eval_train) {
        /* XGBoost's name for it (train-logloss); first, so early stopping watches a validation set */
        evals[neval] = train;
        eval_names[neval++] = "train";
    }
    for (int i = 1; i <= nvalid; i++, neval++) {
        evals[neval] = files[i].cache ? load_batches(&files[i], data_opts, &o, b, train)
                                      : load(&files[i], data_opts, &o, b, 0);
        eval_names[neval] = files[i].name;
    }
    /* under mpirun: every rank has read its rows, or all exit with the first failure */
    cli_mpi_agree();
    /* the library computes cuts, gradients' scales, histograms and metrics over all ranks' rows */
    if (distributed && (s = gbt_booster_set_mpi_comm(b, NULL)) != GBT_OK) cli_die_status(s, "joining the ranks");

    /* one training, so that its progress line counts all the rounds; --save_period saves from its callback */
    {
        struct checkpoint cp = {model_path, period, 0, rounds};
        if ((s = gbt_booster_num_rounds(b, &cp.start)) != GBT_OK) cli_die_status(s, "counting rounds");
        if ((s = gbt_booster_set_round_callback(b, on_round, &cp)) != GBT_OK) cli_die_status(s, "training");
        interrupt_phase(INTERRUPT_TRAIN, b);
        interrupt_pause("train");
        s = gbt_booster_train(b, train, rounds, (const gbt_dataset *const *)evals, eval_names, neval);
        if (s != GBT_OK) cli_die_status(s, "training");
        if ((s = gbt_booster_num_rounds(b, &done)) != GBT_OK) cli_die_status(s, "counting rounds");
        start = cp.start;
    }
    /* interrupted before a new round finished: nothing to save (the model file keeps what it held) */
    if (interrupt_signal() && done == start) {
        if (cli_mpi_rank() == 0)
            fprintf(stderr, "%s: %s before the first %sround finished: nothing written (%s)\n", cli_prog(),
                    interrupt_signal() == SIGINT ? "interrupted" : "terminated", start ? "new " : "",
                    interrupt_held_text());
        exit(130);
    }
    /* interrupted during training, or during this save: exit 130 either way, saying what was saved */
    if (interrupt_signal()) verbosity = 0; /* the message below says it all */
    save(b, model_path);
    if (interrupt_signal() && cli_mpi_rank() == 0) {
        const char *what = interrupt_signal() == SIGINT ? "interrupted" : "terminated";
        if (start == 0)
            fprintf(stderr, "%s: %s: saved the model of the %d finished round%s (of %d asked for) to %s\n",
                    cli_prog(), what, done, done == 1 ? "" : "s", rounds, shown(model_path));
        else
            fprintf(stderr, "%s: %s: saved the model of %d rounds (%d from --model_in, %d finished now, of %d "
                    "asked for) to %s\n", cli_prog(), what, done, start, done - start, rounds, shown(model_path));
    }
    if (interrupt_signal()) exit(130);
    for (int i = eval_train; i < neval; i++) gbt_dataset_free(evals[i]);
    if (train == batches_data)
        free_batches();
    else
        gbt_dataset_free(train);
    gbt_booster_free(b);
    free(o.v);
    free(config);
    return 0;
}
