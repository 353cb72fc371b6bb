/*
 * json.h - the JSON reader of every format gbt reads: the document becomes an
 * array of nodes that point into the source text.  An array whose
 * elements are all numbers (the bulk of a model) is one node, its numbers
 * read in place by gbt__json_next; so the nodes take memory in proportion
 * to the objects and arrays of the document, not to its numbers.
 */
#ifndef GBT_JSON_H
#define GBT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "gbt.h"

enum gbt_jtype { GBT_J_NULL, GBT_J_BOOL, GBT_J_NUMBER, GBT_J_STRING, GBT_J_ARRAY, GBT_J_OBJECT };

struct gbt_jnode {
    int type;
    int packed;         /* an array of numbers without element nodes: text/len is its body */
    uint32_t line;
    size_t pos;         /* its first byte's offset in the document */
    int32_t child;      /* first element or member, -1 if none */
    int32_t next;       /* next sibling, -1 if none */
    int32_t count;      /* elements or members */
    const char *text;   /* number or string (without quotes, still escaped) */
    size_t len;
    const char *key;    /* member name (escaped), for members of objects */
    size_t key_len;
};

/* A value of a document read from UBJSON (ubjson.h): where its JSON text starts, and its bytes. */
struct gbt_jpos {
    size_t text, bin;
};

struct gbt_jdoc {
    const char *src;    /* the text parsed */
    struct gbt_jnode *n;
    size_t len, cap;
    char *own;          /* the JSON text a UBJSON document became (src), freed with the document; else NULL */
    struct gbt_jpos *at;  /* for such a document: each value's offsets, ascending; node pos are its bytes' */
    size_t nat;
};

/*
 * The largest document gbt__json_parse reads (2 GiB): far above any model
 * (a million trees of 255 nodes take about 1 GB), and below where the
 * int32_t node numbers and element counts could overflow.
 */
#define GBT_JSON_MAX_BYTES ((size_t)1 << 31)

/*
 * Parses src: RFC 8259 exactly (numbers by its grammar, strings valid
 * UTF-8); errors read "<what>:<line>: <problem> (byte <offset>)".  The
 * root is node 0.
 */
gbt_status gbt__json_parse(const char *src, size_t len, const char *what, struct gbt_jdoc *doc);
void gbt__json_free(struct gbt_jdoc *doc);

/* The member `key` of object node obj, or -1. */
int32_t gbt__json_member(const struct gbt_jdoc *doc, int32_t obj, const char *key);

/*
 * The elements of array node arr, one per call: *it starts zeroed.  Sets
 * *el to the element (for a packed array, a number node made on the fly
 * with its line) and returns 1, or returns 0 after the last.
 */
struct gbt_jiter {
    int32_t next;   /* the next element node (arrays with element nodes) */
    const char *p;  /* the next number's text (packed arrays) */
    uint32_t line;
    int started;
};
int gbt__json_next(const struct gbt_jdoc *doc, int32_t arr, struct gbt_jiter *it, struct gbt_jnode *el);

/*
 * The byte of the document's source at which the value whose text starts
 * at offset `text` of doc->src starts: `text` itself but for a document
 * read from UBJSON.
 */
size_t gbt__json_source_pos(const struct gbt_jdoc *doc, size_t text);

/* The length of the valid UTF-8 sequence at p (at most n bytes), or 0 (RFC 3629). */
size_t gbt__utf8_len(const unsigned char *p, size_t n);

/* The length of the JSON number (RFC 8259) at the start of p[0..n), or 0 when none starts there. */
size_t gbt__json_number_len(const char *p, size_t n);

/*
 * A reader of one parsed document, for its format's checks: `what` names
 * the document in messages and `format` starts each of them ("" or, say,
 * "XGBoost model: ").
 */
struct gbt_jreader {
    const struct gbt_jdoc *doc;
    const char *what;
    const char *format;
};

/*
 * Fails with GBT_E_FORMAT: "<what>:<line>: <format><msg> (byte <offset>)"
 * at node n (an element of a packed array too; no line for a UBJSON
 * document, whose offsets are its bytes'), or "<what>: <format><msg>"
 * with n NULL.
 */
gbt_status gbt__jr_fail_at(const struct gbt_jreader *rd, const struct gbt_jnode *n, const char *msg);

/*
 * Where node `node` is, for messages built by hand: "<what>:<line>", or
 * for a UBJSON document "<what> (byte <offset>)"; written into buf.
 */
const char *gbt__jr_where(const struct gbt_jreader *rd, int32_t node, char *buf, size_t len);

/* As gbt__jr_fail_at, at node number node (-1: none). */
gbt_status gbt__jr_fail(const struct gbt_jreader *rd, int32_t node, const char *msg);

/*
 * The member `key` of object node obj, which must have the given type
 * (enum gbt_jtype): "missing "key"" at obj, or ""key" has the wrong type"
 * at the member, fail.
 */
gbt_status gbt__jr_member(const struct gbt_jreader *rd, int32_t obj, const char *key, int type, int32_t *out);

/* Copies a string node, unescaped (\\uXXXX as UTF-8, a lone surrogate as '?'), into buf (truncated to len - 1). */
void gbt__json_string(const struct gbt_jnode *n, char *buf, size_t len);

#endif
