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
            "standard output; a file is replaced only once it is complete.\n"
            "\n"
            "  --margin                 raw scores instead of transformed predictions\n"
            "  --metric=NAME            also print NAME (auc, logloss, error, rmse, mae,\n"
            "                           mlogloss, merror) against the data's labels on\n"
            "                           standard error; repeatable\n"
            "  --format=libsvm|csv|tsv  data format (default: guessed from the content)\n"
            "  --label_column=N         CSV/TSV label column (default 0; -1: none)\n"
            "  --header                 CSV/TSV files start with a line of column names\n"
            "  --missing=V              CSV/TSV: V also means missing\n"
            "  --nthread=N              threads (default: all cores)\n"
            "  -q, --quiet              print only errors\n"
            "  --version                print the version and build information\n"
            "  --help                   print this text\n");
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
    cli_parse_args(argc, argv, "margin header q quiet help h version", &o);
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
    if (o.npositional < 2 || o.npositional > 3) {
        usage(stderr);
        cli_die("expected DATA_FILE MODEL_FILE [OUTPUT_FILE]");
    }
    for (size_t i = 0; i < o.n; i++) {
        static const char *const known[] = {"margin", "metric", "format", "label_column", "header",
                                            "missing", "nthread", "q", "quiet", NULL};
        int ok = 0;
        for (int k = 0; known[k]; k++) ok |= strcmp(known[k], o.v[i].name) == 0;
        if (!ok) cli_die("unknown option '--%s' (try --help)", o.v[i].name);
    }
    quiet = cli_get(&o, "q") || cli_get(&o, "quiet");
    cli_install_logger(quiet);
    if (cli_get(&o, "margin")) flags |= GBT_PREDICT_MARGIN;

    s = gbt_booster_load(o.positional[1], &b);
    if (s != GBT_OK) cli_die_status(s, "loading the model");
    if ((v = cli_get(&o, "nthread")) != NULL && (s = gbt_booster_set_param(b, "nthread", v)) != GBT_OK)
        cli_die_status(s, "--nthread");
    cli_data_options(&o, data_opts, sizeof data_opts);
    s = gbt_dataset_from_file(o.positional[0], data_opts, &d);
    if (s != GBT_OK) cli_die_status(s, "reading data");
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
