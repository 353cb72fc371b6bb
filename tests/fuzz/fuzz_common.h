/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses (tests/fuzz/).
 * A harness reports a broken invariant by calling FUZZ_ASSERT, which
 * aborts: libFuzzer records the input as a finding.
 */
#ifndef GBT_FUZZ_COMMON_H
#define GBT_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbt.h"

#define FUZZ_ASSERT(cond)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: invariant broken: %s (last error: %s)\n", __FILE__,   \
                    __LINE__, #cond, gbt_last_error());                                    \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* A failed call must say why. */
#define FUZZ_FAILED_WITH_MESSAGE(s) ((s) != GBT_OK && gbt_last_error()[0] != '\0')

/* Consumes bytes from the front of the input. */
struct fuzz_in {
    const uint8_t *p;
    size_t n;
};

/* A log callback that drops every message: the harnesses check statuses, not the log. */
static inline void fuzz_quiet(int level, const char *msg, void *user)
{
    (void)level, (void)msg, (void)user;
}

static inline unsigned fuzz_byte(struct fuzz_in *in)
{
    if (in->n == 0) return 0;
    in->n--;
    return *in->p++;
}

/* A number in [0, n). */
static inline unsigned fuzz_pick(struct fuzz_in *in, unsigned n)
{
    unsigned v = fuzz_byte(in);
    v = v << 8 | fuzz_byte(in);
    return n ? v % n : 0;
}

/* Compares two models saved to buffers. */
static inline int fuzz_same_model(const gbt_booster *a, const gbt_booster *b)
{
    char *x = NULL, *y = NULL;
    size_t lx = 0, ly = 0;
    int same;
    FUZZ_ASSERT(gbt_booster_save_to_buffer(a, &x, &lx) == GBT_OK);
    FUZZ_ASSERT(gbt_booster_save_to_buffer(b, &y, &ly) == GBT_OK);
    same = lx == ly && memcmp(x, y, lx) == 0;
    gbt_free(x);
    gbt_free(y);
    return same;
}

/* Bitwise equality of float arrays (NaN equal to the same NaN). */
static inline int fuzz_same_floats(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

#endif
