/*
 * json_write.h - writing JSON into a string buffer (util.h's gbt_strbuf),
 * for every format gbt writes: numbers as the shortest text that reads
 * back to the same value, strings quoted and escaped, and arrays element
 * by element.  Each format lays its members out itself
 * (the gbt format indented, XGBoost's on one line).
 */
#ifndef GBT_JSON_WRITE_H
#define GBT_JSON_WRITE_H

#include <stdint.h>

#include "util/util.h"

/*
 * v as the shortest text that reads back to the same float; real: always
 * with a point or an exponent ("1.0", not "1"), for readers that tell
 * integers from reals (XGBoost's).
 */
void gbt__json_put_float(struct gbt_strbuf *sb, float v, int real);

/*
 * Appends text as the inside of a JSON string: '"' and '\\' escaped,
 * newline, carriage return and tab as \\n, \\r, \\t and other control
 * characters as \\u00XX (XGBoost's JSON reader reads the three short
 * escapes; it keeps \\u00XX as its six characters and refuses \\b and \\f).
 */
void gbt__sb_json_escaped(struct gbt_strbuf *sb, const char *text);

/* Appends text as a JSON string: quoted, escaped as gbt__sb_json_escaped escapes it. */
void gbt__sb_json_string(struct gbt_strbuf *sb, const char *text);

/* v as the shortest text that reads back to the same double. */
void gbt__json_put_double(struct gbt_strbuf *sb, double v);

/*
 * Writes head (a string literal: the member's separator and key, as the
 * format lays them out), then the n elements [e0,e1,...], PUT writing
 * element i_ (an int32_t from 0 to n - 1).
 */
#define GBT_JSON_PUT_ARRAY(sb, head, n, PUT)                  \
    do {                                                      \
        gbt__sb_append(sb, head "[", sizeof head);            \
        for (int32_t i_ = 0; i_ < (n); i_++) {                \
            if (i_) gbt__sb_append(sb, ",", 1);               \
            PUT;                                              \
        }                                                     \
        gbt__sb_append(sb, "]", 1);                           \
    } while (0)

#endif
