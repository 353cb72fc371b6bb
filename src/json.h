/*
 * json.h - a small JSON reader for model files: the document becomes an
 * array of nodes that point into the source text.
 */
#ifndef GBT_JSON_H
#define GBT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "gbt.h"

enum gbt_jtype { GBT_J_NULL, GBT_J_BOOL, GBT_J_NUMBER, GBT_J_STRING, GBT_J_ARRAY, GBT_J_OBJECT };

struct gbt_jnode {
    int type;
    uint32_t line;
    int32_t child;      /* first element or member, -1 if none */
    int32_t next;       /* next sibling, -1 if none */
    int32_t count;      /* elements or members */
    const char *text;   /* number or string (without quotes, still escaped) */
    size_t len;
    const char *key;    /* member name (escaped), for members of objects */
    size_t key_len;
};

struct gbt_jdoc {
    struct gbt_jnode *n;
    size_t len, cap;
};

/* Parses src; errors read "<what>:<line>: <problem>".  The root is node 0. */
gbt_status gbt__json_parse(const char *src, size_t len, const char *what, struct gbt_jdoc *doc);
void gbt__json_free(struct gbt_jdoc *doc);

/* The member `key` of object node obj, or -1. */
int32_t gbt__json_member(const struct gbt_jdoc *doc, int32_t obj, const char *key);

/* Copies a string node, unescaped, into buf (truncated to len - 1). */
void gbt__json_string(const struct gbt_jnode *n, char *buf, size_t len);

#endif
