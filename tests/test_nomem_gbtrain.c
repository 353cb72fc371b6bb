/*
 * test_nomem_gbtrain.c - gbtrain's main with each allocation failing in
 * turn (tests/nomem_cli.h): training with a validation file and a
 * metric, saving the model.  Skipped under AddressSanitizer, which owns
 * malloc itself.
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
#include "cli/gbtrain.c"
#undef main
#include "nomem_cli.h"

int main(void)
{
    char data[512], model[512];
    char *argv[] = {"gbtrain", "-q", "--nthread=1", "--device=cpu", "--num_round=3", "--max_depth=3",
                    "--objective=binary:logistic", "--eval_metric=auc", NULL, data, model, NULL};
    char valid[600];
    struct gbt_strbuf csv = {0};
    for (int r = 0; r < 40; r++)
        gbt__sb_printf(&csv, "%d,%d,%s,%d\n", (r * 5 % 11 + r * 3 % 7) % 2, r * 5 % 11, r % 5 ? "1.5" : "", r * 3 % 7);
    snprintf(data, sizeof data, "%s", tu_write("train.csv", csv.s));
    snprintf(valid, sizeof valid, "--valid=%s", data);
    argv[8] = valid;
    snprintf(model, sizeof model, "%s/out.model", tu_tmpdir());
    free(csv.s);
    if (!nomem_active()) return skip_all(NOMEM_INACTIVE);
    if (nomem_share() != 0) return skip_all("no shared memory for the counters");
    cli_sweep("gbtrain", argv, model, "gbtrain");
    tu_cleanup();
    return done_testing();
}
#endif
