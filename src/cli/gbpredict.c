/*
 * gbpredict - predicts with a saved model: one line per row of DATA_FILE,
 * written to OUTPUT_FILE (atomically) or standard output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_mpi.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: gbpredict [options] DATA_FILE MODEL_FILE [OUTPUT_FILE]\n"
            "\n"
            "Writes one line per row of DATA_FILE: the prediction, or num_class\n"
            "tab-separated probabilities for multi:softprob (one per target of a\n"
            "multi-target model, per quantile of reg:quantileerror), or with --pred_* the\n"
            "row's values, tab-separated.  OUTPUT_FILE defaults to standard output ('-'); a\n"
            "file is replaced only once it is complete (a symbolic link: the file it\n"
            "points at), never when it is DATA_FILE or MODEL_FILE, and only with\n"
            "--force when it does not hold predictions; a device, FIFO or socket\n"
            "(/dev/stdout, a named pipe) is written in place.  A write error is exit\n"
            "status 1.  Yes/no options (--margin, --pred_*, --header, --force, -q,\n"
            "--validate_features) take 1/0, true/false, yes/no or on/off, in any case;\n"
            "alone (not --validate_features) they mean 1; any other value is an error.\n"
            "\n"
            "  --margin                 raw scores instead of transformed predictions\n"
            "  --pred_leaf              per row, the leaf id reached in each tree, in model\n"
            "                           order (a round holds num_class trees, or with\n"
            "                           num_parallel_tree P, P times num_class: the first\n"
            "                           parallel tree of every class, then the second...):\n"
            "                           the node's index in the tree of the model file, as\n"
            "                           XGBoost's pred_leaf\n"
            "  --pred_contribs          per row, the SHAP value of each feature, then the\n"
            "                           bias term, summing to the raw score; for num_class\n"
            "                           classes, one such block per class (exact TreeSHAP)\n"
            "  --approx_contribs        with --pred_contribs: Saabas' approximation instead\n"
            "                           (each split on the row's path gives its feature the\n"
            "                           change of the expected value; XGBoost's\n"
            "                           approx_contribs); with --pred_interactions, those\n"
            "                           on the diagonal, 0 elsewhere, as XGBoost's\n"
            "  --pred_interactions      per row, (features + 1)^2 SHAP interaction values\n"
            "                           (row-major, the bias last; each row sums to the\n"
            "                           feature's SHAP value), one block per class\n"
            "  --rounds=A:B             predict with the rounds [A, B) only, from 0 (B\n"
            "                           empty or 0: to the last); default: rounds\n"
            "                           0..best_iteration of a model that records one\n"
            "                           (early stopping; XGBoost's estimators predict so),\n"
            "                           else all (--rounds=0: all)\n"
            "  --metric=NAME            also print NAME (a metric of gbtrain's eval_metric:\n"
            "                           rmse, mae, auc, logloss, quantile, cox-nloglik,\n"
            "                           ndcg@K, map@K, pre@K, aucpr, ...) against the data's\n"
            "                           labels (or survival intervals) on standard error,\n"
            "                           per query when the data has groups; repeatable\n"
            "  --format=libsvm|csv|tsv  data format (default: guessed from the content)\n"
            "  --label_column=N         CSV/TSV label column (-1: none); by default a file\n"
            "                           with the model's number of features has no label,\n"
            "                           one with one column more has it where the model's\n"
            "                           training file had it (first for a model that does\n"
            "                           not record it), and any other count is an error\n"
            "  --header                 CSV/TSV files start with a line of column names\n"
            "                           (default: as the model's training file; --header=0:\n"
            "                           none)\n"
            "  --delimiter=C            CSV fields separated by C (; | or :; default: the\n"
            "                           model's training file's delimiter)\n"
            "  --missing=V              CSV/TSV: V also means missing\n"
            "  --categorical_feature=LIST, --feature_types=LIST  as gbtrain's: the file's\n"
            "                           category codes are checked (an error names the\n"
            "                           line and column); predictions do not change\n"
            "  --validate_features=0|1  1: refuse data whose feature names (a CSV/TSV\n"
            "                           header) differ from the model's (default 1)\n"
            "  --indexing_mode=0|1|auto LIBSVM: feature indices start at 0 or 1 (default\n"
            "                           auto: 0 when an index 0 appears, else 1)\n"
            "  --nthread=N              threads, reading included (default: all cores)\n"
            "  --progress=S             report reading progress every S seconds (default:\n"
            "                           1 when standard error is a terminal, else 0: never)\n"
            "  --device=auto|cpu|cuda|cuda:N  where to predict (default auto: CUDA device 0\n"
            "                           when present for 1024 rows or more, else the CPU)\n"
            "  --force                  replace an existing OUTPUT_FILE that does not hold\n"
            "                           predictions (an input file is never replaced)\n"
            "  -q, --quiet              print only errors\n"
            "  --version                print the version and build information\n"
            "  --help                   print this text\n"
            "\n"
            "DATA_FILE may be an XGBoost URI, FILE?format=csv&label_column=0 (those\n"
            "options win over the flags); FILE#CACHE (XGBoost's external-memory cache)\n"
            "reads FILE in batches of about 32 MiB of its text (batch_bytes=N among the\n"
            "URI's options), each predicted and written before the next, so its rows\n"
            "are never all in memory; not with --metric, DATA_FILE.base_margin or\n"
            "mpirun.\n"
            "\n"
            "Side files next to DATA_FILE are read when present, and named when read:\n"
            "DATA_FILE.base_margin (starting raw scores: they change every prediction),\n"
            "DATA_FILE.label and DATA_FILE.weight (for --metric), DATA_FILE.lower and DATA_FILE.upper (for\n"
            "aft-nloglik and interval-regression-accuracy), DATA_FILE.group (or\n"
            "DATA_FILE.query).\n"
            "\n"
            "When the model keeps category names (a model trained in Python on pandas\n"
            "categories, or by XGBoost on them), a CSV/TSV DATA_FILE holds the names in\n"
            "those columns: each is coded as its position in the model's list, as Python\n"
            "codes a DataFrame; a name the list lacks is a category unseen in training.\n"
            "\n"
            "DATA_FILE may also be a binary dataset saved by gbt_dataset_save_binary or\n"
            "Python's Dataset.save_binary, recognised by its first bytes: it holds every\n"
            "field, so side files and format options do not apply to it.\n"
            "\n"
            "Under mpirun, each rank predicts its share of DATA_FILE (a DATA_FILE with\n"
            "%%d: the file of its rank; otherwise its range of the file's rows) and rank\n"
            "0 writes all rows in order; not with --metric.\n");
}

/* The value of key in a "key=value,key=value" list, in buf ("" when absent). */
static void option_value(const char *list, const char *key, char *buf, size_t len)
{
    const size_t kl = strlen(key);
    buf[0] = '\0';
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            snprintf(buf, len, "%.*s", (int)strcspn(p + kl + 1, ","), p + kl + 1);
            return;
        }
}

/* Appends ",key=value" (no comma first when data_opts is empty). */
static void append_option(char *data_opts, size_t len, const char *key, const char *value)
{
    size_t used = strlen(data_opts);
    if ((size_t)snprintf(data_opts + used, len - used, "%s%s=%s", used ? "," : "", key, value) >= len - used)
        cli_die("data options are too long");
}

/* Reads the data with key=value (the model's, unless the flag is given); notes it in note. */
static void take(const struct cli_opts *o, const char *key, const char *value, char *data_opts, size_t len,
                 char *note, size_t note_len)
{
    size_t used = strlen(note);
    if (cli_get(o, key)) return;
    append_option(data_opts, len, key, value);
    snprintf(note + used, note_len - used, "%s--%s=%s", used ? ", " : "", key, value);
}

/*
 * How a CSV or TSV DATA_FILE is read where no flag says: as the model's
 * training file was (gbt_booster_get_attr "training_file": its header and
 * a delimiter other than a comma or tab), and with the label where it
 * was, when there is one: the reader decides from the first data line
 * (the model's number of features: no label; one more: the label in the
 * training file's label column, or first for a model that does not record
 * it; else an error), as it reads the file once (a pipe cannot be read
 * twice).  The format itself is still guessed from the content (a model of
 * CSV data predicts LIBSVM files too).  A flag wins over the model for its
 * own setting; --format=libsvm drops the model's CSV settings.  Returns
 * (in note) what was taken from the model, for error messages.
 */
static void choose_layout(const struct cli_opts *o, const gbt_booster *b, char *data_opts, size_t len,
                          char *note, size_t note_len)
{
    char nfeat[32], file[128] = "", fmt[16], delim[8], header[8], label[32], auto_label[48] = "auto";
    const char *user_fmt = cli_get(o, "format");
    int delimited;
    note[0] = '\0';
    if (gbt_booster_get_attr(b, "training_file", file, sizeof file) != GBT_OK) file[0] = '\0';
    option_value(file, "format", fmt, sizeof fmt);
    option_value(file, "delimiter", delim, sizeof delim);
    option_value(file, "header", header, sizeof header);
    option_value(file, "label_column", label, sizeof label);
    /* the model's CSV settings, for a file read as CSV or TSV */
    delimited = (strcmp(fmt, "csv") == 0 || strcmp(fmt, "tsv") == 0) && !(user_fmt && strcmp(user_fmt, "libsvm") == 0);
    if (delimited && delim[0] && !user_fmt) take(o, "delimiter", delim, data_opts, len, note, note_len);
    if (delimited) take(o, "header", header, data_opts, len, note, note_len);
    if (cli_get(o, "label_column") || gbt_booster_get_attr(b, "num_feature", nfeat, sizeof nfeat) != GBT_OK) return;
    /* auto:K: with one column more than the features, the label is column K (the training file's) */
    if (delimited && label[0] != '-' && strcmp(label, "0") != 0)
        snprintf(auto_label, sizeof auto_label, "auto:%s", label);
    append_option(data_opts, len, "label_column", auto_label);
    append_option(data_opts, len, "features", nfeat);
    if (delimited && label[0]) {
        size_t used = strlen(note);
        snprintf(note + used, note_len - used, "%s--label_column=%s when DATA_FILE has %s + 1 columns",
                 used ? ", " : "", label, nfeat);
    }
}

/* --rounds=A:B, A:, :B: the rounds [A, B) (B 0: to the last). */
static void parse_rounds(const char *v, int *begin, int *end)
{
    char *e;
    long a = 0, b = 0;
    const char *colon = strchr(v, ':');
    if (colon == NULL) cli_die("--rounds=%s: expected A:B (the rounds [A, B), from 0)", v);
    if (colon != v) {
        a = strtol(v, &e, 10);
        if (e != colon || a < 0 || a > 0x7fffffff) cli_die("--rounds=%s: A is not a round number", v);
    }
    if (colon[1] != '\0') {
        b = strtol(colon + 1, &e, 10);
        if (*e != '\0' || b < 0 || b > 0x7fffffff) cli_die("--rounds=%s: B is not a round number", v);
    }
    *begin = (int)a;
    *end = (int)b;
}

/*
 * Without --rounds, a model that records early stopping's best round
 * predicts (and --metric evaluates) with rounds 0..best_iteration, as
 * XGBoost's estimators do: *b becomes that slice of the model.
 */
static void use_best_rounds(gbt_booster **b, int quiet)
{
    char buf[32];
    int best, rounds;
    gbt_booster *part;
    gbt_status s;
    if (gbt_booster_get_attr(*b, "best_iteration", buf, sizeof buf) != GBT_OK) return;
    best = atoi(buf);
    if ((s = gbt_booster_num_rounds(*b, &rounds)) != GBT_OK) cli_die_status(s, "counting rounds");
    if (best + 1 >= rounds) return;
    if ((s = gbt_booster_slice(*b, 0, best + 1, &part)) != GBT_OK) cli_die_status(s, "taking the best rounds");
    if (!quiet)
        fprintf(stderr, "predicting with rounds 0..%d of %d: the model's best_iteration (--rounds=0: for every "
                "round)\n", best, rounds);
    gbt_booster_free(*b);
    *b = part;
}

/* Whether a file starts like gbpredict's output: tab-separated numbers. */
static int is_predictions(const char *head)
{
    const char *p = head;
    for (;;) {
        char *e;
        strtof(p, &e);
        if (e == p) return 0;
        if (*e != '\t') return *e == '\n' || *e == '\0';
        p = e + 1;
    }
}

/*
 * The yes/no options (cli_flag), and those of them that may stand alone
 * (--margin: --margin=1); --validate_features takes its value, as it always
 * did, so that "--validate_features 0" does not make 0 the OUTPUT_FILE.
 */
static const char bool_flags[] =
    "margin pred_leaf pred_contribs approx_contribs pred_interactions header q quiet help h version force "
    "validate_features";
static const char bare_flags[] =
    "margin pred_leaf pred_contribs approx_contribs pred_interactions header q quiet help h version force";

/* The rows written with their width values each (cli_format_float), tab-separated. */
static void write_rows(FILE *f, const float *pred, uint64_t nrow, uint64_t width)
{
    char buf[32];
    for (uint64_t r = 0; r < nrow; r++)
        for (uint64_t k = 0; k < width; k++) {
            cli_format_float(buf, sizeof buf, pred[r * width + k]);
            fputs(buf, f);
            fputc(k + 1 < width ? '\t' : '\n', f);
        }
}

/*
 * DATA_FILE#CACHE: the file read a batch at a time (gbt_file_batches_*),
 * each batch predicted and written before the next is read, so memory
 * holds one batch.  What needs every row at once is refused.
 */
static void predict_batches(const struct cli_opts *o, const gbt_booster *b, const char *data, const char *data_opts,
                            unsigned flags, int round_begin, int round_end, int quiet)
{
    const size_t plain = strcspn(data, "?#");
    char side[4200];
    gbt_file_batches *r = NULL;
    struct cli_out out;
    uint64_t rows = 0, batches = 0;
    gbt_status s;
    if (cli_mpi_size() > 1)
        cli_die("%s: DATA_FILE#CACHE is read in batches by one process, not under mpirun: drop the #CACHE", data);
    if (cli_get(o, "metric"))
        cli_die("%s: --metric needs every row's prediction at once: drop the #CACHE", data);
    snprintf(side, sizeof side, "%.*s.base_margin", (int)plain, data);
    if (access(side, F_OK) == 0)
        cli_die("%s: starting raw scores are not read in batches (DATA_FILE#CACHE): drop the #CACHE", side);
    if ((s = gbt_file_batches_open(data, data_opts, &r)) != GBT_OK) cli_die_status(s, "reading data");
    cli_out_open(&out, o->npositional == 3 ? o->positional[2] : NULL);
    for (;;) {
        gbt_dataset *d = NULL;
        uint64_t nrow, len, width;
        float *pred;
        if ((s = gbt_file_batches_next(r, &d)) != GBT_OK) cli_die_status(s, "reading data");
        if (d == NULL) break;
        cli_apply_feature_types(o, d, data);
        gbt_dataset_shape(d, &nrow, NULL);
        s = gbt_booster_predict_size_rounds(b, nrow, flags, round_begin, round_end, &len);
        if (s == GBT_OK) s = gbt_booster_predict_size_rounds(b, 1, flags, round_begin, round_end, &width);
        if (s != GBT_OK) cli_die_status(s, "predicting");
        pred = malloc(len * sizeof *pred + 1);
        if (pred == NULL) cli_die("out of memory for %llu predictions", (unsigned long long)len);
        if ((s = gbt_booster_predict_rounds(b, d, flags, round_begin, round_end, pred, len)) != GBT_OK)
            cli_die_status(s, "predicting");
        write_rows(out.f, pred, nrow, width);
        free(pred);
        gbt_dataset_free(d);
        rows += nrow;
        batches++;
    }
    cli_out_commit(&out);
    gbt_file_batches_close(r);
    if (!quiet)
        fprintf(stderr, "%.*s: %llu rows predicted in %llu batch%s\n", (int)plain, data, (unsigned long long)rows,
                (unsigned long long)batches, batches == 1 ? "" : "es");
}

int main(int argc, char **argv)
{
    struct cli_opts o;
    char data_opts[512];
    const char *v;
    gbt_dataset *d;
    gbt_booster *b;
    gbt_status s;
    uint64_t nrow, len, width;
    unsigned flags = 0;
    int round_begin = 0, round_end = 0;
    float *pred;
    struct cli_out out;
    int quiet, distributed;
    char shown[4096], note_text[700];

    cli_set_prog(argv[0]);
    distributed = cli_mpi_start(&argc, &argv);
    memset(&o, 0, sizeof o);
    cli_parse_args(argc, argv, bare_flags, &o);
    if (cli_help_or_version(&o, "gbpredict", usage)) return 0;
    cli_check_flags(&o, bool_flags);
    if (o.npositional < 2)
        cli_die("%s given; usage: gbpredict [options] DATA_FILE MODEL_FILE [OUTPUT_FILE] (try --help)",
                o.npositional ? "no MODEL_FILE" : "no DATA_FILE and MODEL_FILE");
    if (o.npositional > 3)
        cli_die("%d file arguments, expected DATA_FILE MODEL_FILE [OUTPUT_FILE]: '%s' is one too many "
                "(try --help)", o.npositional, o.positional[3]);
    for (size_t i = 0; i < o.n; i++) {
        static const char *const known[] = {"margin",  "metric",        "format",  "label_column", "delimiter",
                                            "header",  "missing",       "nthread", "indexing_mode",
                                            "device",  "force",         "q",       "quiet",
                                            "progress", "validate_features", "pred_leaf",
                                            "pred_contribs", "approx_contribs", "pred_interactions", "rounds",
                                            "categorical_feature", "feature_types", NULL};
        int ok = 0;
        for (int k = 0; known[k]; k++) ok |= strcmp(known[k], o.v[i].name) == 0;
        if (!ok) cli_die("unknown option '--%s' (try --help)", o.v[i].name);
    }
    if (distributed && cli_get(&o, "metric"))
        cli_die("--metric is not available under mpirun: each rank holds only its rows; run gbpredict "
                "--metric without mpirun");
    if (o.npositional == 3 && cli_mpi_rank() == 0) {
        const char *inputs[2] = {o.positional[0], o.positional[1]};
        cli_check_output(o.positional[2], inputs, 2, is_predictions, cli_flag(&o, "force"), "OUTPUT_FILE");
    }
    quiet = cli_flag(&o, "q") || cli_flag(&o, "quiet");
    /* under mpirun, ranks other than 0 print only errors */
    cli_install_logger(cli_mpi_rank() > 0 ? 2 : quiet);
    if (cli_flag(&o, "margin")) flags |= GBT_PREDICT_MARGIN;
    if (cli_flag(&o, "pred_leaf")) flags |= GBT_PREDICT_LEAF;
    if (cli_flag(&o, "pred_contribs")) flags |= GBT_PREDICT_CONTRIBS;
    if (cli_flag(&o, "pred_interactions")) flags |= GBT_PREDICT_INTERACTIONS;
    if (cli_flag(&o, "approx_contribs")) {
        if (!cli_flag(&o, "pred_contribs") && !cli_flag(&o, "pred_interactions"))
            cli_die("--approx_contribs approximates the SHAP values of --pred_contribs (or "
                    "--pred_interactions): give both");
        flags |= GBT_PREDICT_APPROX;
    }
    if (cli_flag(&o, "pred_leaf") + cli_flag(&o, "pred_contribs") + cli_flag(&o, "pred_interactions") > 1)
        cli_die("--pred_leaf, --pred_contribs and --pred_interactions exclude each other");
    if ((v = cli_get(&o, "rounds")) != NULL) parse_rounds(v, &round_begin, &round_end);
    if ((flags & ~GBT_PREDICT_MARGIN) || cli_get(&o, "rounds"))
        for (size_t i = 0; i < o.n; i++)
            if (strcmp(o.v[i].name, "metric") == 0)
                cli_die("--metric evaluates the model's predictions (those of its best_iteration when it "
                        "records one): not with --rounds or --pred_*");

    if ((v = cli_get(&o, "device")) != NULL) cli_check_device(v);
    s = gbt_booster_load(o.positional[1], &b);
    if (s != GBT_OK) cli_die_status(s, "loading the model");
    if (cli_get(&o, "rounds") == NULL) use_best_rounds(&b, quiet || cli_mpi_rank() > 0);
    if ((v = cli_get(&o, "nthread")) != NULL && (s = gbt_booster_set_param(b, "nthread", v)) != GBT_OK)
        cli_die_status(s, "--nthread");
    if ((v = cli_get(&o, "device")) != NULL && (s = gbt_booster_set_param(b, "device", v)) != GBT_OK)
        cli_die_status(s, "--device");
    if (cli_get(&o, "validate_features") &&
        (s = gbt_booster_set_param(b, "validate_features", cli_flag(&o, "validate_features") ? "1" : "0")) != GBT_OK)
        cli_die_status(s, "--validate_features");
    cli_data_options(&o, b, data_opts, sizeof data_opts);
    {
        char taken[512];
        choose_layout(&o, b, data_opts, sizeof data_opts, taken, sizeof taken);
        /* a file that does not read as the model's training file did: say where the settings came from */
        snprintf(note_text, sizeof note_text,
                 "%s%s%s", taken[0] ? " (read as the model's training file was: " : "", taken,
                 taken[0] ? "; give --delimiter, --header or --label_column to read it otherwise)" : "");
        cli_set_note(note_text);
    }
    /* "PATH#CACHE" (no file of that name): in batches */
    if (strchr(o.positional[0], '#') && access(o.positional[0], F_OK) != 0) {
        predict_batches(&o, b, o.positional[0], data_opts, flags, round_begin, round_end, quiet);
        gbt_booster_free(b);
        free(o.v);
        return 0;
    }
    /* under mpirun, this rank's share of the rows (cli_mpi.h) */
    d = cli_mpi_read_share(o.positional[0], data_opts, b, shown, sizeof shown);
    /* past the reading, a header taken from the model still explains names that differ */
    if (!strstr(note_text, "--header=1")) cli_set_note(NULL);
    if (!quiet && cli_mpi_rank() == 0) cli_report_data(shown, d, 1); /* a base margin changes every prediction */
    cli_apply_feature_types(&o, d, shown); /* checks the category codes; prediction reads values alike */
    cli_mpi_agree();
    gbt_dataset_shape(d, &nrow, NULL);
    s = gbt_booster_predict_size_rounds(b, nrow, flags, round_begin, round_end, &len);
    if (s != GBT_OK) cli_die_status(s, "predicting");
    /* the values per row, from one row: a rank may hold none */
    s = gbt_booster_predict_size_rounds(b, 1, flags, round_begin, round_end, &width);
    if (s != GBT_OK) cli_die_status(s, "predicting");
    pred = malloc(len * sizeof *pred + 1);
    if (pred == NULL) cli_die("out of memory for %llu predictions", (unsigned long long)len);
    if (nrow > 0 && (s = gbt_booster_predict_rounds(b, d, flags, round_begin, round_end, pred, len)) != GBT_OK)
        cli_die_status(s, "predicting");
    cli_set_note(NULL);
    cli_mpi_agree();
    if (distributed) {
        /* rank 0 writes every rank's rows, in rank order */
        float *all = cli_mpi_gather(pred, len, &len);
        free(pred);
        pred = all;
        nrow = len / width;
        if (cli_mpi_rank() != 0) {
            cli_mpi_agree(); /* that rank 0 wrote them */
            gbt_dataset_free(d);
            gbt_booster_free(b);
            free(o.v);
            return 0;
        }
    }

    for (size_t i = 0; i < o.n; i++) {
        double value;
        if (strcmp(o.v[i].name, "metric") != 0) continue;
        s = gbt_booster_eval(b, d, o.v[i].value, &value);
        if (s != GBT_OK) cli_die_status(s, "evaluating");
        fprintf(stderr, "%s\t%.6f\n", o.v[i].value, value);
    }

    cli_out_open(&out, o.npositional == 3 ? o.positional[2] : NULL);
    write_rows(out.f, pred, nrow, width);
    cli_out_commit(&out);
    cli_mpi_agree();
    free(pred);
    gbt_dataset_free(d);
    gbt_booster_free(b);
    free(o.v);
    return 0;
}
