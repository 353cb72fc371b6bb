/*
 * gmath.h - exp and the functions built on it, computed with IEEE add,
 * subtract, multiply and divide only, so that gcc and nvcc give the same
 * bits (the C library's exp and CUDA's differ in the last place).
 *
 * exp(x): x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite reduction with a
 * two-part ln2 whose high part has trailing zero bits, so k*LN2_HI is
 * exact), exp(r) by its Taylor series to degree 13 (truncation error below
 * 2^-60 on that interval) evaluated by Estrin's scheme, then scaled by 2^k.
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
    {
        /*
         * Estrin's scheme: pairs, then pairs of pairs, so the dependency
         * chain is 8 operations deep instead of Horner's 26.
         */
        const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
        const double p01 = 1.0 + r, p23 = 0.5 + r * (1.0 / 6.0);
        const double p45 = 1.0 / 24.0 + r * (1.0 / 120.0), p67 = 1.0 / 720.0 + r * (1.0 / 5040.0);
        const double p89 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
        const double pab = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
        const double pcd = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
        const double q0 = p01 + r2 * p23, q1 = p45 + r2 * p67, q2 = p89 + r2 * pab;
        p = (q0 + r4 * q1) + r8 * (q2 + r4 * pcd);
    }
    /* split the scaling so that 2^(k/2) and 2^(k-k/2) are both normal */
    return p * gbt_pow2i(k / 2) * gbt_pow2i(k - k / 2);
}

GBT_SHARED double gbt_sigmoid(double x)
{
    return 1.0 / (1.0 + gbt_exp(-x));
}

#endif
