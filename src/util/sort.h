/*
 * sort.h - stable LSD radix sorts used for bin cuts and AUC.
 */
#ifndef GBT_SORT_H
#define GBT_SORT_H

#include <stddef.h>
#include <stdint.h>

/* A key whose unsigned order is the numeric order of the float (NaN excluded). */
static inline uint32_t gbt__float_key(float f)
{
    union { float f; uint32_t u; } c = {f};
    return (c.u & 0x80000000u) ? ~c.u : (c.u | 0x80000000u);
}

static inline float gbt__key_float(uint32_t k)
{
    union { uint32_t u; float f; } c;
    c.u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    return c.f;
}

static inline uint64_t gbt__double_key(double d)
{
    union { double d; uint64_t u; } c = {d};
    return (c.u & 0x8000000000000000ull) ? ~c.u : (c.u | 0x8000000000000000ull);
}

/*
 * Sorts keys ascending, carrying `vals` (may be NULL) along; the scratch
 * arrays hold n elements each.  Stable.
 */
void gbt__radix_sort32(uint32_t *keys, float *vals, size_t n, uint32_t *key_tmp, float *val_tmp);
void gbt__radix_sort64(uint64_t *keys, uint32_t *vals, size_t n, uint64_t *key_tmp,
                       uint32_t *val_tmp);

#endif
