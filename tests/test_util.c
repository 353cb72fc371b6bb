/*
 * test_util.c - the shared math (exp, sigmoid, fixed point, rounding), the
 * counter-based generator, radix sorts, number formatting and allocation,
 * and gbt__strtof against the C library's strtof.
 */
#define _GNU_SOURCE
#include <float.h>
#include <locale.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grad_math.h"
#include "common/rng.h"
#include "util/sort.h"
#include "tap.h"
#include "util/util.h"

static void test_exp(void)
{
    double worst = 0.0;
    int bad_special = 0;
    /* against the C library: within 2 ulp over the range that matters */
    for (int i = -7000; i <= 7000; i++) {
        double x = i * 0.1003, e = exp(x), g = gbt_exp(x);
        double rel = fabs(g - e) / e;
        if (rel > worst) worst = rel;
    }
    ok(worst < 4.5e-16, "gbt_exp agrees with exp within 2 ulp on [-702, 702] (worst %.3g)", worst);
    {
        /* subnormal results: rounded once, so within one least subnormal (plus 2 ulp of p) */
        int bad = 0;
        for (int i = 0; i <= 3650; i++) {
            double x = -708.4 - i * 0.01, e = exp(x), g = gbt_exp(x);
            bad |= fabs(g - e) > 0x1p-1074 + 4.5e-16 * e;
        }
        ok(!bad, "gbt_exp agrees with exp on [-744.9, -708.4], where results are subnormal");
    }
    ok(gbt_exp(709.78) < INFINITY && near(gbt_exp(709.78) / exp(709.78), 1.0, 1e-15) &&
           gbt_exp(-745.1) > 0.0,
       "gbt_exp is finite just below overflow and positive just above underflow");
    bad_special |= gbt_exp(0.0) != 1.0;
    bad_special |= gbt_exp(1000.0) != INFINITY;
    bad_special |= gbt_exp(-1000.0) != 0.0;
    bad_special |= !isnan(gbt_exp(NAN));
    ok(!bad_special, "gbt_exp(0) = 1, overflow to inf, underflow to 0, NaN stays NaN");
    ok(fabs(gbt_sigmoid(0.0) - 0.5) == 0.0 && near(gbt_sigmoid(2.0), 1.0 / (1.0 + exp(-2.0)), 1e-15),
       "sigmoid(0) = 0.5 exactly, sigmoid(2) = 0.8807970779778823");
}

static void test_fixed_point(void)
{
    /* maxabs in [2^(E-1), 2^E) gives exponent 30 - E: 0.75 -> E = 0 -> 30 */
    ok(gbt_quant_exponent(0.75) == 30, "exponent of 0.75 is 30 (got %d)", gbt_quant_exponent(0.75));
    ok(gbt_quant_exponent(1.0) == 29, "exponent of 1.0 is 29 (got %d)", gbt_quant_exponent(1.0));
    ok(gbt_quant_exponent(0.0) == 0, "exponent of 0 is 0");
    ok(gbt_quantize(0.75, 30) == 805306368, "0.75 * 2^30 = 805306368");
    ok(gbt_quantize(-0.75, 30) == -805306368, "quantisation is symmetric");
    ok(gbt_quantize(1.0 / 3.0, 2) == 1 && gbt_quantize(0.625, 2) == 3 && gbt_quantize(-0.625, 2) == -3,
       "rounding: 1/3*4 -> 1, 2.5 -> 3, -2.5 -> -3 (halves away from zero)");
    {
        /* every value below maxabs fits in 31 bits */
        double m = 123.456;
        int e = gbt_quant_exponent(m);
        int32_t q = gbt_quantize(m, e);
        ok(q > 0 && q <= (1 << 30), "largest value quantises within 2^30 (%d)", q);
        ok(near(gbt_dequantize(q, e), m, 1e-8), "dequantised value is within 2^-30 relative");
    }
}

static void test_rng(void)
{
    int kept = 0, n = 100000, differs = 0;
    for (int r = 0; r < n; r++) kept += gbt_row_sampled(42, 3, (uint64_t)r, 0.3);
    ok(kept > 29000 && kept < 31000, "subsample 0.3 keeps about 30%% of rows (%d of %d)", kept, n);
    ok(gbt_draw(1, 2, 3, 4) == gbt_draw(1, 2, 3, 4), "draws are a pure function of their key");
    for (int r = 0; r < 64; r++) differs += gbt_row_sampled(42, 3, (uint64_t)r, 0.5) != gbt_row_sampled(42, 4, (uint64_t)r, 0.5);
    ok(differs > 10, "different rounds sample different rows (%d of 64 differ)", differs);
    ok(gbt_row_sampled(7, 0, 5, 1.0), "rate 1 keeps every row");
}

static void test_sort(void)
{
    float vals[] = {3.5f, -1.0f, 0.0f, -0.0f, 1e30f, -1e30f, 2.0f, 2.0f, FLT_MIN, -FLT_MIN};
    const size_t n = sizeof vals / sizeof vals[0];
    uint32_t keys[16], tmp[16];
    float w[16], wt[16];
    int sorted = 1, carried = 1;
    for (size_t i = 0; i < n; i++) {
        keys[i] = gbt__float_key(vals[i]);
        w[i] = vals[i];
    }
    gbt__radix_sort32(keys, w, n, tmp, wt);
    for (size_t i = 1; i < n; i++) sorted &= gbt__key_float(keys[i - 1]) <= gbt__key_float(keys[i]);
    for (size_t i = 0; i < n; i++) carried &= memcmp(&w[i], &(float){gbt__key_float(keys[i])}, 4) == 0;
    ok(sorted, "radix sort orders floats, negatives and zeros included");
    ok(carried, "radix sort carries the payload with its key");
    {
        uint64_t k[5] = {gbt__double_key(2.0), gbt__double_key(-3.0), gbt__double_key(2.0),
                         gbt__double_key(-1e300), gbt__double_key(0.5)};
        uint64_t kt[5];
        uint32_t v[5] = {0, 1, 2, 3, 4}, vt[5];
        gbt__radix_sort64(k, v, 5, kt, vt);
        ok(v[0] == 3 && v[1] == 1 && v[2] == 4 && v[3] == 0 && v[4] == 2,
           "64-bit radix sort is stable and orders doubles (%u %u %u %u %u)", v[0], v[1], v[2], v[3], v[4]);
    }
}

static void test_format(void)
{
    char buf[64];
    float fs[] = {0.1f, 1.0f / 3.0f, 3.4028235e38f, 1e-45f, -2.5f};
    double ds[] = {0.1, 1.0 / 3.0, 1e308, 5e-324, -2.5};
    int okf = 1, okd = 1;
    for (size_t i = 0; i < 5; i++) {
        gbt__format_float(buf, sizeof buf, fs[i]);
        okf &= gbt__strtof(buf, NULL) == fs[i];
        gbt__format_double(buf, sizeof buf, ds[i]);
        okd &= gbt__strtod(buf, NULL) == ds[i];
    }
    ok(okf, "floats are written so they read back to the same bits");
    ok(okd, "doubles are written so they read back to the same bits");
    gbt__format_float(buf, sizeof buf, 0.1f);
    ok(strcmp(buf, "0.1") == 0, "0.1f is written as 0.1 (got %s)", buf);
    ok(gbt__edit_distance("max_dept", "max_depth") == 1 && gbt__edit_distance("abc", "abc") == 0,
       "edit distance");
}

static void test_alloc(void)
{
    const float src[1] = {1.0f};
    float *p = NULL;
    uint32_t *q = NULL;
    ok(gbt__alloc(&p, 0, sizeof *p, 0, "nothing") == GBT_OK && p != NULL,
       "allocating 0 elements gives a block, not NULL (memcpy of 0 bytes to it is defined)");
    if (p) memcpy(p, src, 0);
    free(p);
    ok(gbt__alloc(&q, 0, sizeof *q, 1, "nothing") == GBT_OK && q != NULL, "and so does a zeroed one");
    free(q);
    ok(gbt__alloc(&q, SIZE_MAX / 2, 4, 0, "too much") == GBT_E_NO_MEMORY && q == NULL,
       "an overflowing size fails with GBT_E_NO_MEMORY: %s", gbt_last_error());
    {
        /* fuzz_readers found a CSV row of a label only indexing into a reserve of 0 floats: NULL + 0 */
        size_t cap = 0;
        p = NULL;
        ok(gbt__reserve(&p, &cap, 0, sizeof *p, "nothing") == GBT_OK && p != NULL && cap > 0,
           "reserving 0 elements gives a block, not NULL (NULL + 0 is undefined)");
        free(p);
    }
}

/* Whether gbt__strtof gives strtof's bits and end for s; counts a mismatch (printing the first few). */
static int strtof_agrees(const char *s, locale_t c, int *shown)
{
    char *e1, *e2;
    float a = gbt__strtof(s, &e1), b = strtof_l(s, &e2, c);
    if (memcmp(&a, &b, sizeof a) == 0 && e1 == e2) return 1;
    if ((*shown)++ < 5)
        diag("gbt__strtof(\"%s\") = %.9g (end +%d), strtof: %.9g (end +%d)", s, (double)a,
             (int)(e1 - s), (double)b, (int)(e2 - s));
    return 0;
}

static void test_strtof(void)
{
    static const char *const edge[] = {
        "0", "-0", "+0", "0.0", "-0.0e10", "0e999999999999", "1", "-1", "+1", ".5", "-.5", "5.", "5.e3",
        ".", "-", "+", "", " 1", "\t2", "1 ", "1,2", "1e", "1e+", "1e-", "1e+5", "1E-5", "1.5e", "1.5ex",
        "0x10", "0X1p3", "-0x1.8p1", "1x", "inf", "-inf", "Infinity", "INF", "nan", "-nan", "NaN",
        "nan(123)", "na", "NA", "abc", "--1", "+-1", "1..2", "1.2.3", "1e5e5", "3.4028235e38",
        "3.40282347e38", "3.4028236e38", "3.5e38", "1e39", "1e-38", "1.17549435e-38", "1.1754942e-38",
        "1e-45", "1.4e-45", "7e-46", "1e-46", "1e-50", "16777216", "16777217", "16777218",
        "16777219", "9007199254740992", "9007199254740993", "9223372036854775807",
        "18446744073709551615", "18446744073709551616", "12345678901234567890",
        "1234567890123456789", "0.1", "0.2", "0.3", "1e22", "1e23", "1e-22", "1e-23",
        "123456789e-22", "0.000000000000000000000000000001", "100000000000000000000000",
        "1.00000000000000000000000000001", "0.99999999999999999999999", "33554431", "33554433e0",
        "1.0000000596046448", "1.00000005960464477539062500", "1.00000005960464477539062501",
        "1.00000005960464477539062499", "0.30000001192092896", "2.5e-8", "-3.4e38", NULL};
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    int bad = 0, shown = 0;
    char buf[96];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    /* valgrind's run (GBT_TEST_QUICK=2): 20,000 of each kind, 1M in the plain run */
    const int draws = getenv("GBT_TEST_QUICK") && atoi(getenv("GBT_TEST_QUICK")) >= 2 ? 20000 : 1000000;
    for (int i = 0; edge[i]; i++) bad += !strtof_agrees(edge[i], c, &shown);
    ok(bad == 0, "gbt__strtof agrees with strtof (bits and end) on %d edge cases", (int)(sizeof edge / sizeof *edge) - 1);
    /* random decimal text: 1 to 25 digits, a point anywhere, exponents, signs, junk after */
    bad = 0;
    for (int i = 0; i < draws; i++) {
        int n = 0, nd, pt;
        x = gbt_mix64(x + 0x9e3779b97f4a7c15ull);
        nd = 1 + (int)(x % 25);
        pt = (int)((x >> 8) % (uint64_t)(nd + 2)) - 1;
        if ((x >> 16) & 1) buf[n++] = (x >> 17) & 1 ? '-' : '+';
        for (int k = 0; k < nd; k++) {
            uint64_t y = gbt_mix64(x + (uint64_t)k);
            if (k == pt) buf[n++] = '.';
            /* leading zeros and runs of zeros and nines make long ties and carries */
            buf[n++] = (char)('0' + ((y >> 3) % 4 == 0 ? 0 : (y >> 3) % 4 == 1 ? 9 : (int)(y % 10)));
        }
        if (((x >> 20) & 3) == 0) n += sprintf(buf + n, "e%d", (int)((x >> 24) % 101) - 50);
        if (((x >> 22) & 7) == 0) buf[n++] = "x,e. a"[(x >> 26) % 6];
        buf[n] = '\0';
        bad += !strtof_agrees(buf, c, &shown);
    }
    ok(bad == 0, "gbt__strtof agrees with strtof on %d random decimal strings (%d differ)", draws, bad);
    /* floats printed with 6 to 9 digits, and the midpoints between neighbours near them */
    bad = 0;
    for (int i = 0; i < draws; i++) {
        uint32_t u;
        float f, g;
        x = gbt_mix64(x + 0x9e3779b97f4a7c15ull);
        u = (uint32_t)x & 0x7fffffffu;
        memcpy(&f, &u, sizeof f);
        if (!isfinite(f)) continue;
        sprintf(buf, "%.*g", 6 + (int)((x >> 32) % 4), (double)f);
        bad += !strtof_agrees(buf, c, &shown);
        g = nextafterf(f, INFINITY);
        if (!isfinite(g)) continue;
        /* the exact midpoint (a double), printed exactly-ish and just off it */
        sprintf(buf, "%.*g", 9 + (int)((x >> 40) % 12), ((double)f + (double)g) / 2);
        bad += !strtof_agrees(buf, c, &shown);
    }
    ok(bad == 0, "gbt__strtof agrees with strtof on %d printed floats and as many midpoints (%d differ)", draws, bad);
    freelocale(c);
}

int main(void)
{
    test_exp();
    test_fixed_point();
    test_rng();
    test_sort();
    test_format();
    test_alloc();
    test_strtof();
    return done_testing();
}
