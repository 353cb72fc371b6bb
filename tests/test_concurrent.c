/*
 * test_concurrent.c - many threads predicting with one booster at once get
 * the same bits as one thread, for dense and CSR input and single rows.
 */
#include <pthread.h>

#include "testutil.h"

enum { N = 3000, C = 8, THREADS = 8, REPEAT = 5 };

struct job {
    const gbt_booster *b;
    const gbt_dataset *d;
    const float *x;
    const float *want;
    int bad;
};

static void *predict_many(void *arg)
{
    struct job *j = arg;
    float *out = malloc(N * sizeof *out);
    for (int rep = 0; rep < REPEAT; rep++) {
        if (gbt_booster_predict(j->b, j->d, 0, out, N) != GBT_OK || memcmp(out, j->want, N * sizeof *out) != 0) j->bad++;
        for (int r = rep; r < N; r += 97) {
            float one;
            if (gbt_booster_predict_dense(j->b, j->x + r * C, 1, C, NAN, 0, &one, 1) != GBT_OK || one != j->want[r]) j->bad++;
        }
    }
    free(out);
    return NULL;
}

int main(void)
{
    const char *const p[] = {"objective=binary:logistic", "max_depth=6", "nthread=2", NULL};
    float *x = malloc(N * C * sizeof *x), *y = malloc(N * sizeof *y), *want = malloc(N * sizeof *want);
    gbt_dataset *d = NULL, *csr;
    gbt_booster *b;
    pthread_t th[THREADS];
    struct job jobs[THREADS];
    int bad = 0;
    tu_seed(31);
    tu_data(N, C, 0.1, 1, x, y);
    gbt_dataset_from_dense(x, N, C, NAN, &d);
    gbt_dataset_set_field(d, "label", y, N);
    csr = tu_to_csr(x, y, N, C);
    b = tu_train(d, 20, p);
    ok_call(gbt_booster_predict(b, d, 0, want, N), "one thread predicts");
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (struct job){b, t % 2 ? csr : d, x, want, 0};
        pthread_create(&th[t], NULL, predict_many, &jobs[t]);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        bad += jobs[t].bad;
    }
    ok(bad == 0, "%d threads predicting at once (dense, CSR, single rows) all got the same bits (%d mismatches)",
       THREADS, bad);
    gbt_booster_free(b);
    gbt_dataset_free(d);
    gbt_dataset_free(csr);
    free(x);
    free(y);
    free(want);
    return done_testing();
}
