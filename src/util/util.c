/*
 * util.c - checked allocation, C-locale numbers, clock, threads, text buffer.
 */
#define _GNU_SOURCE
#include <float.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "util/util.h"

gbt_status gbt__alloc(void *out, size_t n, size_t size, int zero, const char *what)
{
    void **p = (void **)out;
    *p = NULL;
    /* a block even for no elements: memcpy and pointer arithmetic on NULL are undefined */
    if (n == 0 || size == 0) n = size = 1;
    RETURN_ERROR_IF(n > SIZE_MAX / size, GBT_E_NO_MEMORY, "out of memory: %s needs %zu x %zu bytes",
                    what, n, size);
    *p = zero ? calloc(n, size) : malloc(n * size);
    RETURN_ERROR_IF(*p == NULL, GBT_E_NO_MEMORY, "out of memory allocating %zu bytes for %s",
                    n * size, what);
    return GBT_OK;
}

gbt_status gbt__strdup(char **out, const char *s)
{
    size_t n = strlen(s) + 1;
    FORWARD_IF_ERROR(gbt__alloc(out, n, 1, 0, "a copy of a name"));
    memcpy(*out, s, n);
    return GBT_OK;
}

gbt_status gbt__reserve(void *p, size_t *cap, size_t need, size_t size, const char *what)
{
    void **pp = (void **)p;
    size_t ncap;
    void *np;
    /* a block even for no elements, as gbt__alloc: pointer arithmetic on NULL is undefined */
    if (need <= *cap && *pp != NULL) return GBT_OK;
    ncap = *cap ? *cap : 16;
    while (ncap < need) {
        RETURN_ERROR_IF(ncap > SIZE_MAX / 2 / size, GBT_E_NO_MEMORY, "out of memory growing %s",
                        what);
        ncap *= 2;
    }
    np = realloc(*pp, ncap * size);
    RETURN_ERROR_IF(np == NULL, GBT_E_NO_MEMORY, "out of memory allocating %zu bytes for %s",
                    ncap * size, what);
    *pp = np;
    *cap = ncap;
    return GBT_OK;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t get_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale;
}

/* The powers of ten that a double holds exactly. */
static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^-k rounded to double: not exact, so used only where the error cannot matter. */
static const double approx_pow10_neg[] = {1e-0,  1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                          1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                          1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};

/*
 * The fast path of gbt__strtof: "[sign] digits [. digits] [e [sign] digits]"
 * with at most 19 significant digits.  Returns 0 (leaving *out alone) where
 * it cannot give strtof's correctly rounded result; then strtof decides.
 *
 * Why the result is exact: w (< 2^53) and 10^|q| (|q| <= 22) are exact
 * doubles, so w * 10^q or w / 10^-q is the exact value rounded once to
 * double (Clinger).  Rounding that double to float gives the float nearest
 * the exact value unless the double lies exactly halfway between two
 * floats (the exact value may lie on either side of it): then, and for
 * results outside the normal float range (subnormals, overflow, where
 * strtof also sets errno), strtof is asked instead.
 *
 * The division is slow, so w * 10^-k is tried first with 10^-k rounded to
 * double: that product is within 2^-52 of the exact value relative, under
 * 2 units in its last place.  Float rounding boundaries (halfway points)
 * lie 2^28 of those units apart, so when the product is more than 16 units
 * from one, the exact value lies on the same side and both round to the
 * same float.  Only the rest (about 1 in 16 million) is divided.
 */
static int strtof_fast(const char *s, char **end, float *out)
{
    const char *p = s, *digits;
    uint64_t w = 0, bits;
    int nd = 0, neg = 0, any;
    long q = 0;
    double d;
    float f;
    if (FLT_EVAL_METHOD != 0) return 0; /* the arithmetic below must round to double */
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    digits = p;
    while (*p == '0') p++;
    for (; *p >= '0' && *p <= '9'; p++, nd++) {
        if (nd == 19) return 0;
        w = w * 10 + (uint64_t)(*p - '0');
    }
    any = p > digits;
    if (*p == '.') {
        const char *frac = ++p;
        if (w == 0)
            for (; *p == '0'; p++) q--;
        for (; *p >= '0' && *p <= '9'; p++, nd++, q--) {
            if (nd == 19) return 0;
            w = w * 10 + (uint64_t)(*p - '0');
        }
        any |= p > frac;
    }
    if (!any || *p == 'x' || *p == 'X') return 0; /* no digits ("inf", "nan", " 1") or hex */
    if (*p == 'e' || *p == 'E') {
        const char *x = p + 1;
        int eneg = 0;
        long e = 0;
        if (*x == '-' || *x == '+') eneg = *x++ == '-';
        if (*x >= '0' && *x <= '9') {
            for (; *x >= '0' && *x <= '9'; x++)
                if (e < 100000) e = e * 10 + (*x - '0');
            q += eneg ? -e : e;
            p = x;
        }
    }
    if (w == 0) {
        f = neg ? -0.0f : 0.0f;
    } else {
        if (w > ((uint64_t)1 << 53) || q < -22 || q > 22) return 0;
        int divide = 1;
        if (q < 0) {
            d = (double)w * approx_pow10_neg[-q];
            memcpy(&bits, &d, sizeof bits);
            divide = !(d > 1e-30 && d < 1e30 && (uint32_t)((bits & 0x1fffffff) - (0x10000000 - 16)) > 32);
        }
        if (divide || q >= 0) {
            d = q < 0 ? (double)w / exact_pow10[-q] : (double)w * exact_pow10[q];
            memcpy(&bits, &d, sizeof bits);
            if ((bits & 0x1fffffff) == 0x10000000) return 0; /* halfway between two floats */
            if (d <= FLT_MIN || d > FLT_MAX) return 0;
        }
        f = (float)d;
        if (neg) f = -f;
    }
    if (end) *end = (char *)p;
    *out = f;
    return 1;
}

float gbt__strtof(const char *s, char **end)
{
    locale_t l;
    float f;
    if (strtof_fast(s, end, &f)) return f;
    l = get_c_locale();
    return l ? strtof_l(s, end, l) : strtof(s, end);
}

double gbt__strtod(const char *s, char **end)
{
    locale_t l = get_c_locale();
    return l ? strtod_l(s, end, l) : strtod(s, end);
}

static int format_c(char *buf, size_t len, const char *fmt, int digits, double v)
{
    locale_t l = get_c_locale();
    locale_t old = l ? uselocale(l) : (locale_t)0;
    int n = snprintf(buf, len, fmt, digits, v);
    if (l) uselocale(old);
    return n;
}

int gbt__format_float(char *buf, size_t len, float v)
{
    int n = 0;
    for (int digits = 6; digits <= 9; digits++) {
        n = format_c(buf, len, "%.*g", digits, (double)v);
        if (gbt__strtof(buf, NULL) == v) break;
    }
    return n;
}

int gbt__format_double(char *buf, size_t len, double v)
{
    int n = 0;
    for (int digits = 15; digits <= 17; digits++) {
        n = format_c(buf, len, "%.*g", digits, v);
        if (gbt__strtod(buf, NULL) == v) break;
    }
    return n;
}

double gbt__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gbt__threads(int64_t nthread)
{
#ifdef _OPENMP
    /*
     * More threads than processors only cost stacks and scratch, and a
     * thread libgomp cannot create ends the process (docs/decisions.md).
     */
    const int procs = omp_get_num_procs();
    const int64_t want = nthread > 0 ? nthread : omp_get_max_threads();
    return want < procs ? (int)want : procs > 0 ? procs : 1;
#else
    (void)nthread;
    return 1;
#endif
}

void gbt__sb_append(struct gbt_strbuf *sb, const char *text, size_t n)
{
    if (sb->failed) return;
    if (gbt__reserve(&sb->s, &sb->cap, sb->len + n + 1, 1, "text buffer") != GBT_OK) {
        sb->failed = 1;
        return;
    }
    memcpy(sb->s + sb->len, text, n);
    sb->len += n;
    sb->s[sb->len] = '\0';
}

void gbt__sb_printf(struct gbt_strbuf *sb, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = 1;
    } else if ((size_t)n < sizeof small) {
        gbt__sb_append(sb, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big == NULL) {
            sb->failed = 1;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        gbt__sb_append(sb, big, (size_t)n);
        free(big);
    }
}

int gbt__edit_distance(const char *a, const char *b)
{
    int row[256];
    size_t la = strlen(a), lb = strlen(b);
    if (la > 255) la = 255;
    if (lb > 255) lb = 255;
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            if (up + 1 < best) best = up + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}
