/*
 * tap.h - a minimal Test Anything Protocol emitter for the test programs.
 *
 *   plan_no_plan();  ok(cond, "name %d", i);  skip("reason");  return done_testing();
 */
#ifndef GBT_TAP_H
#define GBT_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static void tap_vok(int cond, const char *fmt, va_list ap)
{
    tap_n++;
    printf("%sok %d - ", cond ? "" : "not ", tap_n);
    vprintf(fmt, ap);
    printf("\n");
    if (!cond) tap_failed++;
    fflush(stdout);
}

static int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vok(cond, fmt, ap);
    va_end(ap);
    return cond;
}

/* Prints a diagnostic line (shown by the harness). */
static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void skip(const char *fmt, ...)
{
    va_list ap;
    tap_n++;
    printf("ok %d # SKIP ", tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* Skips the whole program: "1..0 # SKIP reason". */
static int skip_all(const char *reason) __attribute__((unused));
static int skip_all(const char *reason)
{
    printf("1..0 # SKIP %s\n", reason);
    return 0;
}

static int done_testing(void) __attribute__((unused));
static int done_testing(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

/* ok() for a gbt call that should succeed; prints the library's message if not. */
#define ok_call(expr, ...)                                                    \
    do {                                                                      \
        int ok_call_s_ = (int)(expr);                                         \
        if (!ok(ok_call_s_ == 0, __VA_ARGS__)) diag("%s", gbt_last_error()); \
    } while (0)

/* Near-equality for doubles: |a - b| <= tol * max(1, |b|). */
static int near(double a, double b, double tol) __attribute__((unused));
static int near(double a, double b, double tol)
{
    double s = fabs(b) > 1.0 ? fabs(b) : 1.0;
    return fabs(a - b) <= tol * s;
}

#endif
