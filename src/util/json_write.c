/*
 * json_write.c - JSON numbers and strings for every format gbt writes
 * (json_write.h).
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

void gbt__sb_json_escaped(struct gbt_strbuf *sb, const char *text)
{
    for (const char *p = text; *p; p++) {
        const unsigned char c = (unsigned char)*p;
        if (c == '\n' || c == '\r' || c == '\t') {
            gbt__sb_append(sb, c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t", 2);
            continue;
        }
        if (c < 0x20) {
            gbt__sb_printf(sb, "\\u%04x", (unsigned)c);
            continue;
        }
        if (c == '"' || c == '\\') gbt__sb_append(sb, "\\", 1);
        gbt__sb_append(sb, p, 1);
    }
}

void gbt__sb_json_string(struct gbt_strbuf *sb, const char *text)
{
    gbt__sb_append(sb, "\"", 1);
    gbt__sb_json_escaped(sb, text);
    gbt__sb_append(sb, "\"", 1);
}
