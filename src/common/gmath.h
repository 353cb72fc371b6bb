/*
 * gmath.h - exp and the functions built on it, computed with IEEE add,
 * subtract, multiply and divide only, so that gcc and nvcc give the same
 * bits (the C library's exp and CUDA's differ in the last place).
 *
 * exp(x): x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite reduction with a
 * two-part ln2 whose high part has trailing zero bits, so k*LN2_HI is
 * exact), exp(r) by its Taylor series to degree 13 (truncation error below
 * 2^-60 on that interval) evaluated by Estrin's scheme, then scaled by 2^k.
 * k is rounded to nearest (ties to even) by adding and subtracting 1.5 * 2^52,
 * which also leaves k in the low bits of the sum, and 2^k is built from
 * those bits: no branch and no conversion to an integer register, so a loop
 * of exp vectorises (the CPU gradients do; see docs/perf-notes.md).
 *
 * log and log1p (for reg:squaredlogerror's gradients) are built the same
 * way: a reduction by the exponent bits and a series in IEEE arithmetic.
 */
#ifndef GBT_COMMON_GMATH_H
#define GBT_COMMON_GMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/hostdev.h"

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

/* Beyond these, exp is inf and 0 (the last is below half the least subnormal). */
#define GBT_EXP_MAX 709.782712893384
#define GBT_EXP_MIN (-745.2)
#define GBT_EXP_SHIFTER 6755399441055744.0 /* 1.5 * 2^52 */

GBT_SHARED double gbt_exp(double x)
{
    /* clamped so that k lies in [-1075, 1024]; the ends are set at the return (NaN passes) */
    const double xc = x < GBT_EXP_MIN ? GBT_EXP_MIN : x > GBT_EXP_MAX ? GBT_EXP_MAX : x;
    const double t = xc * GBT_INV_LN2 + GBT_EXP_SHIFTER; /* 1.5 * 2^52 + k, exactly */
    const double kf = t - GBT_EXP_SHIFTER;
    const double r = (xc - kf * GBT_LN2_HI) - kf * GBT_LN2_LO;
    double p, s1, s2;
    uint64_t tb, kb, k1, k2;
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
    /*
     * The low 12 bits of t + 2048 are k + 2048 (the shifter's are zero).
     * 2^k = 2^(k1 - 1024) 2^(k2 - 1024) with k1 + k2 = k + 2048, both
     * factors normal, so a subnormal result is rounded once.
     */
    memcpy(&tb, &t, sizeof tb);
    kb = (tb + 2048) & 0xfff;
    k1 = kb >> 1;
    k2 = kb - k1;
    k1 = (k1 - 1) << 52; /* the biased exponent of 2^(k1 - 1024) */
    k2 = (k2 - 1) << 52;
    memcpy(&s1, &k1, sizeof s1);
    memcpy(&s2, &k2, sizeof s2);
    p = p * s1 * s2;
    p = x > GBT_EXP_MAX ? (double)INFINITY : p;
    return x < GBT_EXP_MIN ? 0.0 : p;
}

GBT_SHARED double gbt_sigmoid(double x)
{
    return 1.0 / (1.0 + gbt_exp(-x));
}

/*
 * log(x): x = 2^k m with sqrt(2)/2 <= m < sqrt(2), and log(m) = 2 atanh(s)
 * with s = (m - 1) / (m + 1), |s| < 0.1716, by its odd series to s^23
 * (truncation below 2^-60), plus k ln2 in two parts.  0 gives -inf, a
 * negative number or NaN gives NaN, inf gives inf.
 */
GBT_SHARED double gbt_log(double x)
{
    uint64_t bits;
    int k = 0;
    double m, s, z, p;
    if (!(x > 0.0)) return x == 0.0 ? -(double)INFINITY : (double)NAN;
    if (x > 1.7976931348623157e308) return x;
    if (x < 2.2250738585072014e-308) { /* subnormal: scale by 2^54 first */
        x *= 18014398509481984.0;
        k = -54;
    }
    memcpy(&bits, &x, sizeof bits);
    k += (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
    memcpy(&m, &bits, sizeof m); /* in [1, 2) */
    if (m > 1.4142135623730951) {
        m *= 0.5;
        k += 1;
    }
    s = (m - 1.0) / (m + 1.0);
    z = s * s;
    p = 1.0 / 23.0;
    p = p * z + 1.0 / 21.0;
    p = p * z + 1.0 / 19.0;
    p = p * z + 1.0 / 17.0;
    p = p * z + 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z + 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z + 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z + 1.0 / 3.0;
    p = p * z;
    return (double)k * GBT_LN2_HI + ((double)k * GBT_LN2_LO + (2.0 * s + 2.0 * s * p));
}

/* log(1 + x) for x >= -1, accurate for small x (log(u) x / (u - 1) with u = 1 + x). */
GBT_SHARED double gbt_log1p(double x)
{
    const double u = 1.0 + x;
    if (u == 1.0) return x;
    if (u > 1.7976931348623157e308) return gbt_log(u);
    return gbt_log(u) * (x / (u - 1.0));
}

#endif
