/*
 * util.h - small helpers used across the core: checked allocation,
 * locale-independent number text, a monotonic clock, thread counts and a
 * growable text buffer.
 */
#ifndef GBT_UTIL_H
#define GBT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/*
 * Allocates n * size bytes (zeroed if `zero`) into *out, or fails with
 * GBT_E_NO_MEMORY naming `what` and the size.  n == 0 (or size == 0) still
 * gives a block to free, never NULL, so that copying or offsetting zero
 * elements of it is defined.
 */
gbt_status gbt__alloc(void *out, size_t n, size_t size, int zero, const char *what);

/* A copy of s in *out (free it), or GBT_E_NO_MEMORY. */
gbt_status gbt__strdup(char **out, const char *s);

/* Grows *p to hold at least `need` elements of `size` bytes (capacity in *cap). */
gbt_status gbt__reserve(void *p, size_t *cap, size_t need, size_t size, const char *what);

/* Parses a float or double in the C locale (strtof/strtod semantics). */
float gbt__strtof(const char *s, char **end);
double gbt__strtod(const char *s, char **end);

/*
 * Writes v in the C locale with as few digits as read back to the same
 * bits (at most 9 for float, 17 for double).  Returns the length.
 */
int gbt__format_float(char *buf, size_t len, float v);
int gbt__format_double(char *buf, size_t len, double v);

/* Seconds on a monotonic clock. */
double gbt__now(void);

/* Threads to use for `nthread` (0: all the machine offers), at most the processors available. */
int gbt__threads(int64_t nthread);

/* A growable NUL-terminated text buffer; on allocation failure `failed` is set. */
struct gbt_strbuf {
    char *s;
    size_t len, cap;
    int failed;
};
void gbt__sb_append(struct gbt_strbuf *sb, const char *text, size_t n);
void gbt__sb_printf(struct gbt_strbuf *sb, const char *fmt, ...) GBT_PRINTF(2, 3);

/* Levenshtein distance between two short strings (capped at 255 chars). */
int gbt__edit_distance(const char *a, const char *b);

#endif /* GBT_UTIL_H */
