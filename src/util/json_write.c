/*
 * json_write.c - JSON numbers for every format gbt writes (json_write.h).
 */
#include <string.h>

#include "util/json_write.h"

void gbt__json_put_float(struct gbt_strbuf *sb, float v, int real)
{
    char buf[40];
    int n = gbt__format_float(buf, sizeof buf - 2, v);
    if (real && !strpbrk(buf, ".eE")) buf[n++] = '.', buf[n++] = '0', buf[n] = '\0';
    gbt__sb_append(sb, buf, (size_t)n);
}

void gbt__json_put_double(struct gbt_strbuf *sb, double v)
{
    char buf[40];
    gbt__sb_append(sb, buf, (size_t)gbt__format_double(buf, sizeof buf, v));
}
