/*
 * gbpredict - predicts with a saved model: one line per row of DATA_FILE,
 * written to OUTPUT_FILE (atomically) or standard output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: gbpredict [options] DATA_FILE MODEL_FILE [OUTPUT_FILE]\n"
            "\n"
            "Writes one line per row of DATA_FILE: the prediction, or num_class\n"
            "tab-separated probabilities for multi:softprob.  OUTPUT_FILE defaults to\n"
            "standard output; a file is replaced only once it is complete, never when it\n"
            "is DATA_FILE or MODEL_FILE, and only with --force when it does not hold\n"
            "predictions.\n"
            "\n"
            "  --margin                 raw scores instead of transformed predictions\n"
            "  --metric=NAME            also print NAME (auc, logloss, error, rmse, mae,\n"
            "                           mlogloss, merror, ndcg@K, map@K, pre@K, aucpr, ...)\n"
            "                           against the data's labels on standard error, per\n"
            "                           query when the data has groups; repeatable\n"
            "  --format=libsvm|csv|tsv  data format (default: guessed from the content)\n"
            "  --label_column=N         CSV/TSV label column (-1: none); by default a file\n"
            "                           with the model's number of features has no label,\n"
            "                           one with one column more has it first, and any\n"
            "                           other count is an error\n"
            "  --header                 CSV/TSV files start with a line of column names\n"
            "  --missing=V              CSV/TSV: V also means missing\n"
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
            "Side files next to DATA_FILE are read when present, and named when read:\n"
            "DATA_FILE.base_margin (starting raw scores: they change every prediction),\n"
            "DATA_FILE.weight (for --metric), DATA_FILE.group (or DATA_FILE.query).\n");
}

/*
 * Where the label is when --label_column is not given: the reader decides
 * from the first data line of a CSV or TSV file (the model's number of
 * columns: no label; one more: the label first; else an error), as it
 * reads the file once (a pipe cannot be read twice).
 */
static void choose_label_column(const struct cli_opts *o, const gbt_booster *b, char *data_opts,
                                size_t len)
{
    char buf[32];
    size_t used = strlen(data_opts);
    if (cli_get(o, "label_column")) return;
    if (gbt_booster_get_attr(b, "num_feature", buf, sizeof buf) != GBT_OK) return;
    if (used + sizeof ",label_column=auto,features=" + strlen(buf) > len) cli_die("data options are too long");
    snprintf(data_opts + used, len - used, "%slabel_column=auto,features=%s", used ? "," : "", buf);
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

int main(int argc, char **argv)
{
    struct cli_opts o;
    char data_opts[512];
    const char *v;
    gbt_dataset *d;
    gbt_booster *b;
    gbt_status s;
    uint64_t nrow, len;
    unsigned flags = 0;
    float *pred;
    struct cli_out out;
    int quiet;

    cli_set_prog(argv[0]);
    memset(&o, 0, sizeof o);
    cli_parse_args(argc, argv, "margin header q quiet help h version force", &o);
    if (cli_get(&o, "help") || cli_get(&o, "h")) {
        usage(stdout);
        free(o.v);
        return 0;
    }
    if (cli_get(&o, "version")) {
        free(o.v);
        printf("gbpredict %s\n%s\n", gbt_version(), gbt_build_info());
        return 0;
    }
    if (o.npositional < 2)
        cli_die("%s given; usage: gbpredict [options] DATA_FILE MODEL_FILE [OUTPUT_FILE] (try --help)",
                o.npositional ? "no MODEL_FILE" : "no DATA_FILE and MODEL_FILE");
    if (o.npositional > 3)
        cli_die("%d file arguments, expected DATA_FILE MODEL_FILE [OUTPUT_FILE]: '%s' is one too many "
                "(try --help)", o.npositional, o.positional[3]);
    for (size_t i = 0; i < o.n; i++) {
        static const char *const known[] = {"margin",  "metric",        "format",  "label_column",
                                            "header",  "missing",       "nthread", "indexing_mode",
                                            "device",  "force",         "q",       "quiet",
                                            "progress", NULL};
        int ok = 0;
        for (int k = 0; known[k]; k++) ok |= strcmp(known[k], o.v[i].name) == 0;
        if (!ok) cli_die("unknown option '--%s' (try --help)", o.v[i].name);
    }
    if (o.npositional == 3) {
        const char *inputs[2] = {o.positional[0], o.positional[1]};
        cli_check_output(o.positional[2], inputs, 2, is_predictions, cli_get(&o, "force") != NULL,
                         "OUTPUT_FILE");
    }
    quiet = cli_get(&o, "q") || cli_get(&o, "quiet");
    cli_install_logger(quiet);
    if (cli_get(&o, "margin")) flags |= GBT_PREDICT_MARGIN;

    if ((v = cli_get(&o, "device")) != NULL) cli_check_device(v);
    s = gbt_booster_load(o.positional[1], &b);
    if (s != GBT_OK) cli_die_status(s, "loading the model");
    if ((v = cli_get(&o, "nthread")) != NULL && (s = gbt_booster_set_param(b, "nthread", v)) != GBT_OK)
        cli_die_status(s, "--nthread");
    if ((v = cli_get(&o, "device")) != NULL && (s = gbt_booster_set_param(b, "device", v)) != GBT_OK)
        cli_die_status(s, "--device");
    cli_data_options(&o, b, data_opts, sizeof data_opts);
    choose_label_column(&o, b, data_opts, sizeof data_opts);
    s = gbt_dataset_from_file(o.positional[0], data_opts, &d);
    if (s != GBT_OK) cli_die_status(s, "reading data");
    if (!quiet) cli_report_data(o.positional[0], d, 1); /* a base margin changes every prediction */
    gbt_dataset_shape(d, &nrow, NULL);
    s = gbt_booster_predict_size(b, nrow, flags, &len);
    if (s != GBT_OK) cli_die_status(s, "predicting");
    pred = malloc(len * sizeof *pred + 1);
    if (pred == NULL) cli_die("out of memory for %llu predictions", (unsigned long long)len);
    s = gbt_booster_predict(b, d, flags, pred, len);
    if (s != GBT_OK) cli_die_status(s, "predicting");

    for (size_t i = 0; i < o.n; i++) {
        double value;
        if (strcmp(o.v[i].name, "metric") != 0) continue;
        s = gbt_booster_eval(b, d, o.v[i].value, &value);
        if (s != GBT_OK) cli_die_status(s, "evaluating");
        fprintf(stderr, "%s\t%.6f\n", o.v[i].value, value);
    }

    cli_out_open(&out, o.npositional == 3 ? o.positional[2] : NULL);
    {
        uint64_t width = nrow ? len / nrow : 1;
        char buf[32];
        for (uint64_t r = 0; r < nrow; r++) {
            for (uint64_t k = 0; k < width; k++) {
                cli_format_float(buf, sizeof buf, pred[r * width + k]);
                fputs(buf, out.f);
                fputc(k + 1 < width ? '\t' : '\n', out.f);
            }
        }
    }
    cli_out_commit(&out);
    free(pred);
    gbt_dataset_free(d);
    gbt_booster_free(b);
    free(o.v);
    return 0;
}
