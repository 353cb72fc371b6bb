/*
 * test_nomem_gbpredict.c - gbpredict's main with each allocation failing
 * in turn (tests/nomem_cli.h): loading a model, predicting a CSV file
 * into an output file, evaluating a metric.  Skipped under
 * AddressSanitizer, which owns malloc itself.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS (nomem.h) */
#include "testutil.h"
#include "util/util.h"

#if defined(__SANITIZE_ADDRESS__)
int main(void)
{
    return skip_all("AddressSanitizer owns malloc, which this test replaces to fail allocations");
}
#else
#define main tool_main
#include "cli/gbpredict.c"
#undef main
#include "nomem_cli.h"

int main(void)
{
    const char *const params[] = {"objective=binary:logistic", "max_depth=3", "nthread=1", NULL};
    char data[512], model[512], out[512];
    char *argv[] = {"gbpredict", "-q", "--nthread=1", "--device=cpu", "--metric=auc", data, model, out, NULL};
    struct gbt_strbuf csv = {0};
    gbt_dataset *d;
    gbt_booster *b;
    if (!nomem_active()) return skip_all(NOMEM_INACTIVE);
    for (int r = 0; r < 40; r++)
        gbt__sb_printf(&csv, "%d,%d,%s,%d\n", (r * 5 % 11 + r * 3 % 7) % 2, r * 5 % 11, r % 5 ? "1.5" : "", r * 3 % 7);
    snprintf(data, sizeof data, "%s", tu_write("data.csv", csv.s));
    free(csv.s);
    snprintf(model, sizeof model, "%s/in.model", tu_tmpdir());
    snprintf(out, sizeof out, "%s/predictions.txt", tu_tmpdir());
    if (gbt_dataset_from_file(data, NULL, &d) != GBT_OK) return skip_all("cannot read the data");
    b = tu_train(d, 3, params);
    if (!ok(gbt_booster_save(b, model) == GBT_OK, "a model to predict with")) return done_testing();
    gbt_booster_free(b);
    gbt_dataset_free(d);
    if (nomem_share() != 0) return skip_all("no shared memory for the counters");
    cli_sweep("gbpredict", argv, out, "gbpredict");
    tu_cleanup();
    return done_testing();
}
#endif
