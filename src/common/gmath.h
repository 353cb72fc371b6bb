/*
 * gmath.h - exp and the functions built on it, computed with IEEE add,
 * subtract, multiply and divide only, so that gcc and nvcc give the same
 * bits (the C library's exp and CUDA's differ in the last place).
 *
 * exp(x): x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite reduction with a
 * two-part ln2 whose high part has trailing zero bits, so k*LN2_HI is
 * exact), exp(r) by its Taylor series to degree 13 (truncation error below
 * 2^-60 on that interval), then scaled by 2^k.
 */
#ifndef GBT_COMMON_GMATH_H
#define GBT_COMMON_GMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hostdev.h"

#define GBT_LN2_HI 6.93147180369123816490e-01
#define GBT_LN2_LO 1.90821492927058770002e-10
#define GBT_INV_LN2 1.44269504088896338700e+00

/* 2^k for -1022 <= k <= 1023, built from its bits. */
GBT_SHARED double gbt_pow2i(int k)
{
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* v * 2^k, exact unless the result overflows or is subnormal. */
GBT_SHARED double gbt_ldexp(double v, int k)
{
    while (k > 1000) {
        v *= gbt_pow2i(1000);
        k -= 1000;
    }
    while (k < -1000) {
        v *= gbt_pow2i(-1000);
        k += 1000;
    }
    return v * gbt_pow2i(k);
}

/* Rounds to the nearest integer, halves away from zero (|v| < 2^63). */
GBT_SHARED double gbt_round(double v)
{
    return (double)(int64_t)(v + copysign(0.5, v));
}

GBT_SHARED double gbt_exp(double x)
{
    double kf, r, p;
    int k;
    if (x != x) return x;
    if (x > 709.782712893384) return (double)INFINITY;
    if (x < -745.2) return 0.0;
    kf = gbt_round(x * GBT_INV_LN2);
    k = (int)kf;
    r = (x - kf * GBT_LN2_HI) - kf * GBT_LN2_LO;
    p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    /* split the scaling so that 2^(k/2) and 2^(k-k/2) are both normal */
    return p * gbt_pow2i(k / 2) * gbt_pow2i(k - k / 2);
}

GBT_SHARED double gbt_sigmoid(double x)
{
    return 1.0 / (1.0 + gbt_exp(-x));
}

#endif
