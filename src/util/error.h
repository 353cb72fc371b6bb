/*
 * error.h - internal error reporting and logging.
 *
 * A failing function records a message with gbt__fail() and returns its
 * status; the public gbt_last_error() gives that message back.  The macros
 * keep error paths to one line, in the manner of zstd's RETURN_ERROR_IF.
 */
#ifndef GBT_ERROR_H
#define GBT_ERROR_H

#include <stdarg.h>
#include <stdint.h>

#include "gbt.h"

#if defined(__GNUC__)
#define GBT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GBT_PRINTF(a, b)
#endif

/* Records a message for this thread and returns s. */
gbt_status gbt__fail(gbt_status s, const char *fmt, ...) GBT_PRINTF(2, 3);

/* Prefixes this thread's last message with "<prefix>: " and returns s. */
gbt_status gbt__fail_context(gbt_status s, const char *fmt, ...) GBT_PRINTF(2, 3);

/*
 * The first error of a parallel loop (OpenMP): a worker's message lands in
 * its own thread's last error, which the caller never sees.  So a worker
 * whose call failed keeps the failure here with the loop index it was
 * working on (gbt__par_error_keep, right after the call, while its message
 * is its thread's last error), and the caller, after the loop, makes the
 * failure of the lowest index its own (gbt__par_error_raise): the same
 * message whatever the thread count and schedule, never a stale one.
 */
#define GBT_ERROR_MSG_MAX 1024
struct gbt_par_error {
    gbt_status status; /* GBT_OK while nothing failed */
    uint64_t index;    /* the failed index kept */
    char msg[GBT_ERROR_MSG_MAX];
};

void gbt__par_error_init(struct gbt_par_error *e);

/* In a worker: keeps failure s at `index` (this thread's last error its message) if no lower index failed. */
void gbt__par_error_keep(struct gbt_par_error *e, uint64_t index, gbt_status s);

/* After the loop, on the calling thread: GBT_OK, or the failure kept, its message this thread's last error. */
gbt_status gbt__par_error_raise(const struct gbt_par_error *e);

/*
 * Logs a message at `level` if `verbosity` (a booster's parameter) admits
 * it (level <= verbosity) and a callback is set.
 */
void gbt__log(int verbosity, int level, const char *fmt, ...) GBT_PRINTF(3, 4);

#define RETURN_ERROR_IF(cond, status, ...)                 \
    do {                                                   \
        if (cond) return gbt__fail((status), __VA_ARGS__); \
    } while (0)

#define FORWARD_IF_ERROR(expr)             \
    do {                                   \
        gbt_status fwd_s_ = (expr);        \
        if (fwd_s_ != GBT_OK) return fwd_s_; \
    } while (0)

#define CHECK_NOT_NULL(p) \
    RETURN_ERROR_IF((p) == NULL, GBT_E_INVALID_ARG, "%s: '%s' is NULL", __func__, #p)

#endif /* GBT_ERROR_H */
