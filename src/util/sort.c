/*
 * sort.c - LSD radix sorts, 8 bits per pass: one counting pass for every
 * digit, then one scatter pass per digit, skipping digits that every key
 * shares.
 */
#include <string.h>

#include "util/sort.h"

/*
 * Fewer than two keys are sorted: the early return keeps the cost of the
 * features that hold no value (sparse data, huge indices) at nothing.
 */
#define RADIX_SORT_BODY(KEY_T, VAL_T, NBYTES)                                  \
    KEY_T *src = keys, *dst = key_tmp;                                         \
    VAL_T *vsrc = vals, *vdst = vals ? val_tmp : NULL;                         \
    size_t counts[NBYTES][256];                                                \
    if (n < 2) return;                                                         \
    memset(counts, 0, sizeof counts);                                          \
    for (size_t i = 0; i < n; i++)                                             \
        for (int d = 0; d < NBYTES; d++) counts[d][(src[i] >> (d * 8)) & 0xff]++; \
    for (int pass = 0; pass < NBYTES; pass++) {                                \
        size_t *count = counts[pass];                                          \
        int shift = pass * 8, skip = 0;                                        \
        for (int b = 0; b < 256; b++) skip |= count[b] == n;                   \
        if (skip) continue;                                                    \
        for (size_t b = 0, sum = 0; b < 256; b++) {                            \
            size_t c = count[b];                                               \
            count[b] = sum;                                                    \
            sum += c;                                                          \
        }                                                                      \
        for (size_t i = 0; i < n; i++) {                                       \
            size_t pos = count[(src[i] >> shift) & 0xff]++;                    \
            dst[pos] = src[i];                                                 \
            if (vsrc) vdst[pos] = vsrc[i];                                     \
        }                                                                      \
        { KEY_T *t = src; src = dst; dst = t; }                                \
        { VAL_T *t = vsrc; vsrc = vdst; vdst = t; }                            \
    }                                                                          \
    if (src != keys) {                                                         \
        memcpy(keys, src, n * sizeof *keys);                                   \
        if (vals) memcpy(vals, vsrc, n * sizeof *vals);                        \
    }

void gbt__radix_sort32(uint32_t *keys, float *vals, size_t n, uint32_t *key_tmp, float *val_tmp)
{
    RADIX_SORT_BODY(uint32_t, float, 4)
}

void gbt__radix_sort64(uint64_t *keys, uint32_t *vals, size_t n, uint64_t *key_tmp,
                       uint32_t *val_tmp)
{
    RADIX_SORT_BODY(uint64_t, uint32_t, 8)
}
