/*
 * ubjson.c - UBJSON read as the JSON text of the same document (with each
 * value's offset in the bytes, for messages) and written from a parsed
 * JSON document (ubjson.h).  Numbers are big-endian, as the draft says.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_write.h"
#include "util/ubjson.h"

#define MAX_DEPTH 64 /* as json.c's */

int gbt__ubjson_sniff(const char *src, size_t len)
{
    return len >= 2 && src[0] == '{' && src[1] != '\0' && strchr("iUIlL$#", src[1]) != NULL;
}

/* ---- reading -------------------------------------------------------------- */

struct reader {
    const unsigned char *p, *end, *src;
    const char *what;
    struct gbt_strbuf out;
    struct gbt_jpos *at;
    size_t nat, cap;
};

static gbt_status fail_at(const struct reader *r, const unsigned char *at, const char *msg)
{
    if (at >= r->end)
        return gbt__fail(GBT_E_FORMAT, "%s: UBJSON: %s (byte %zu: the data ends early; is the file truncated?)",
                         r->what, msg, (size_t)(at - r->src));
    return gbt__fail(GBT_E_FORMAT, "%s: UBJSON: %s (byte %zu)", r->what, msg, (size_t)(at - r->src));
}

/* The payload bytes of a value of this marker's type; -1 for strings and containers, -2 for no type. */
static int payload(unsigned char m)
{
    switch (m) {
    case 'Z': case 'T': case 'F': return 0;
    case 'i': case 'U': case 'C': return 1;
    case 'I': return 2;
    case 'l': case 'd': return 4;
    case 'L': case 'D': return 8;
    case 'S': case 'H': case '[': case '{': return -1;
    default: return -2;
    }
}

/* The n-byte big-endian number at r->p, consumed. */
static uint64_t take_be(struct reader *r, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | r->p[i];
    r->p += n;
    return v;
}

/* The integer of type marker m (i U I l L) at r->p, consumed. */
static gbt_status take_int(struct reader *r, unsigned char m, const unsigned char *at, int64_t *v)
{
    const int n = payload(m);
    uint64_t u;
    if (!strchr("iUIlL", m) || m == '\0') return fail_at(r, at, "expected an integer type marker (i, U, I, l or L)");
    if ((size_t)(r->end - r->p) < (size_t)n) return fail_at(r, r->end, "an integer is cut short");
    u = take_be(r, n);
    switch (m) {
    case 'i': *v = (int8_t)u; break;
    case 'U': *v = (uint8_t)u; break;
    case 'I': *v = (int16_t)u; break;
    case 'l': *v = (int32_t)u; break;
    default: *v = (int64_t)u; break;
    }
    return GBT_OK;
}

/*
 * A count or length (a marker and an integer) of things of at least
 * `size` bytes each: negative counts, and counts the bytes left cannot
 * hold, are refused.
 */
static gbt_status take_count(struct reader *r, size_t size, const char *what, int64_t *n)
{
    const unsigned char *at = r->p;
    char msg[160];
    if (r->p >= r->end) return fail_at(r, r->p, "expected a count");
    r->p++;
    FORWARD_IF_ERROR(take_int(r, *at, at, n));
    if (*n < 0) {
        snprintf(msg, sizeof msg, "%s %lld is negative", what, (long long)*n);
        return fail_at(r, at, msg);
    }
    if ((uint64_t)*n > (uint64_t)(r->end - r->p) / size) {
        snprintf(msg, sizeof msg, "%s %lld is more than the %zu bytes left can hold", what, (long long)*n,
                 (size_t)(r->end - r->p));
        return fail_at(r, at, msg);
    }
    return GBT_OK;
}

/* Records that the value whose marker is at `at` starts here in the JSON text. */
static gbt_status mark(struct reader *r, const unsigned char *at)
{
    FORWARD_IF_ERROR(gbt__reserve(&r->at, &r->cap, r->nat + 1, sizeof *r->at, "UBJSON offsets"));
    r->at[r->nat].text = r->out.len;
    r->at[r->nat++].bin = (size_t)(at - r->src);
    return GBT_OK;
}

/* n bytes at r->p as a JSON string (quoted, escaped), consumed; they must be UTF-8. */
static gbt_status put_string(struct reader *r, size_t n)
{
    const unsigned char *s = r->p, *e = r->p + n;
    gbt__sb_append(&r->out, "\"", 1);
    while (s < e) {
        const unsigned char *run = s;
        while (s < e && *s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\') s++;
        gbt__sb_append(&r->out, (const char *)run, (size_t)(s - run));
        if (s == e) break;
        if (*s >= 0x80) {
            const size_t k = gbt__utf8_len(s, (size_t)(e - s));
            if (k == 0) return fail_at(r, s, "a string is not valid UTF-8");
            gbt__sb_append(&r->out, (const char *)s, k);
            s += k;
        } else if (*s < 0x20) {
            gbt__sb_printf(&r->out, "\\u%04x", *s++);
        } else {
            gbt__sb_printf(&r->out, "\\%c", *s++);
        }
    }
    gbt__sb_append(&r->out, "\"", 1);
    r->p = e;
    return GBT_OK;
}

static gbt_status value(struct reader *r, unsigned char m, const unsigned char *at, int depth);

/* The next marker, after any no-ops ('N'), consumed; *at is where it was. */
static gbt_status take_marker(struct reader *r, unsigned char *m, const unsigned char **at)
{
    while (r->p < r->end && *r->p == 'N') r->p++;
    if (r->p >= r->end) return fail_at(r, r->p, "expected a value");
    *at = r->p;
    *m = *r->p++;
    return GBT_OK;
}

/* An array or object after its '[' or '{': optimised ('$' type, '#' count) or closed by ']' or '}'. */
static gbt_status container(struct reader *r, int object, int depth)
{
    const unsigned char close = object ? '}' : ']';
    unsigned char type = 0;
    int64_t n = -1;
    if (r->p < r->end && *r->p == '$') {
        const int size = r->p + 1 < r->end ? payload(r->p[1]) : -2;
        if (size == -2) return fail_at(r, r->p + 1, "expected the type of a typed container");
        if (size == 0) return fail_at(r, r->p + 1, "typed containers of null, true or false are not supported");
        type = r->p[1];
        r->p += 2;
        if (r->p >= r->end || *r->p != '#') return fail_at(r, r->p, "a typed container without a count ('#')");
    }
    if (r->p < r->end && *r->p == '#') {
        const int size = type ? payload(type) : 1;
        r->p++;
        /* each element takes at least a byte, each member two more (its name's length) */
        FORWARD_IF_ERROR(take_count(r, (size_t)(size > 0 ? size : 1) + (object ? 2u : 0u),
                                    object ? "member count" : "element count", &n));
    }
    gbt__sb_append(&r->out, object ? "{" : "[", 1);
    for (int64_t i = 0; n < 0 || i < n; i++) {
        const unsigned char *at = NULL;
        unsigned char m = 0;
        if (n < 0) {
            while (r->p < r->end && *r->p == 'N') r->p++;
            if (r->p >= r->end)
                return fail_at(r, r->p, object ? "the data ends inside an object" : "the data ends inside an array");
            if (*r->p == close) {
                r->p++;
                break;
            }
        }
        if (i) gbt__sb_append(&r->out, ",", 1);
        if (object) {
            int64_t kl;
            FORWARD_IF_ERROR(take_count(r, 1, "member name length", &kl));
            FORWARD_IF_ERROR(put_string(r, (size_t)kl));
            gbt__sb_append(&r->out, ":", 1);
        }
        if (type) {
            at = r->p;
            m = type;
        } else {
            FORWARD_IF_ERROR(take_marker(r, &m, &at));
        }
        FORWARD_IF_ERROR(value(r, m, at, depth + 1));
    }
    gbt__sb_append(&r->out, object ? "}" : "]", 1);
    return GBT_OK;
}

static gbt_status value(struct reader *r, unsigned char m, const unsigned char *at, int depth)
{
    const int size = payload(m);
    char msg[64];
    int64_t n;
    if (depth > MAX_DEPTH) return fail_at(r, at, "nesting too deep");
    if (r->out.failed) return gbt__fail(GBT_E_NO_MEMORY, "out of memory reading %s (UBJSON)", r->what);
    if (r->out.len > GBT_JSON_MAX_BYTES)
        return fail_at(r, at, "the document is larger than a model can be as JSON text");
    if (size == -2) {
        snprintf(msg, sizeof msg, "unknown type marker 0x%02x", m);
        return fail_at(r, at, msg);
    }
    if (size > 0 && (size_t)(r->end - r->p) < (size_t)size) return fail_at(r, r->end, "a number is cut short");
    FORWARD_IF_ERROR(mark(r, at));
    switch (m) {
    case 'Z': gbt__sb_append(&r->out, "null", 4); return GBT_OK;
    case 'T': gbt__sb_append(&r->out, "true", 4); return GBT_OK;
    case 'F': gbt__sb_append(&r->out, "false", 5); return GBT_OK;
    case 'i': case 'U': case 'I': case 'l': case 'L':
        FORWARD_IF_ERROR(take_int(r, m, at, &n));
        gbt__sb_printf(&r->out, "%lld", (long long)n);
        return GBT_OK;
    case 'd': case 'D': {
        const uint64_t u = take_be(r, size);
        double v;
        if (m == 'd') {
            const uint32_t w = (uint32_t)u;
            float f;
            memcpy(&f, &w, sizeof f);
            v = f;
        } else {
            memcpy(&v, &u, sizeof v);
        }
        if (!isfinite(v)) return fail_at(r, at, "a NaN or infinite number, which a JSON document cannot hold");
        if (m == 'd')
            gbt__json_put_float(&r->out, (float)v, 1);
        else
            gbt__json_put_double(&r->out, v);
        return GBT_OK;
    }
    case 'C':
        if (r->p[0] >= 0x80) return fail_at(r, at, "a char ('C') above 127");
        return put_string(r, 1);
    case 'S':
        FORWARD_IF_ERROR(take_count(r, 1, "string length", &n));
        return put_string(r, (size_t)n);
    case 'H':
        FORWARD_IF_ERROR(take_count(r, 1, "high-precision number length", &n));
        if (n == 0 || gbt__json_number_len((const char *)r->p, (size_t)n) != (size_t)n)
            return fail_at(r, at, "a high-precision number ('H') that is not a JSON number");
        gbt__sb_append(&r->out, (const char *)r->p, (size_t)n);
        r->p += n;
        return GBT_OK;
    default: /* '[' and '{' */
        return container(r, m == '{', depth);
    }
}

gbt_status gbt__ubjson_parse(const char *src, size_t len, const char *what, struct gbt_jdoc *doc)
{
    struct reader r = {(const unsigned char *)src, (const unsigned char *)src + len, (const unsigned char *)src,
                       what, {0}, NULL, 0, 0};
    const unsigned char *at = NULL;
    unsigned char m = 0;
    gbt_status s;
    memset(doc, 0, sizeof *doc);
    if (len > GBT_JSON_MAX_BYTES)
        return gbt__fail(GBT_E_FORMAT, "%s: %zu bytes is larger than a model can be (%llu bytes at most)", what,
                         len, (unsigned long long)GBT_JSON_MAX_BYTES);
    s = take_marker(&r, &m, &at);
    if (s == GBT_OK) s = value(&r, m, at, 0);
    while (s == GBT_OK && r.p < r.end && *r.p == 'N') r.p++;
    if (s == GBT_OK && r.p < r.end) s = fail_at(&r, r.p, "bytes after the end of the document");
    if (s == GBT_OK && r.out.failed) s = gbt__fail(GBT_E_NO_MEMORY, "out of memory reading %s (UBJSON)", what);
    if (s == GBT_OK && r.out.len > GBT_JSON_MAX_BYTES)
        s = fail_at(&r, r.end, "the document is larger than a model can be as JSON text");
    /* the text is the document's own JSON: it parses, its nodes then get the bytes' offsets */
    if (s == GBT_OK) s = gbt__json_parse(r.out.s, r.out.len, what, doc);
    if (s != GBT_OK) {
        free(r.out.s);
        free(r.at);
        return s;
    }
    doc->own = r.out.s;
    doc->at = r.at;
    doc->nat = r.nat;
    for (size_t i = 0; i < doc->len; i++) doc->n[i].pos = gbt__json_source_pos(doc, doc->n[i].pos);
    return GBT_OK;
}

/* ---- writing -------------------------------------------------------------- */

static void put_be(struct gbt_strbuf *sb, uint64_t v, int n)
{
    unsigned char b[8];
    for (int i = 0; i < n; i++) b[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
    gbt__sb_append(sb, (const char *)b, (size_t)n);
}

/* A length or count as XGBoost writes them: 'L' and an int64. */
static void put_count(struct gbt_strbuf *sb, uint64_t n)
{
    gbt__sb_append(sb, "L", 1);
    put_be(sb, n, 8);
}

/* A string node's text, unescaped, with its length. */
static gbt_status put_text(struct gbt_strbuf *sb, const struct gbt_jnode *n, const char *text, size_t len)
{
    char *buf = malloc(len + 1);
    struct gbt_jnode k = *n;
    RETURN_ERROR_IF(buf == NULL, GBT_E_NO_MEMORY, "out of memory writing UBJSON");
    k.text = text;
    k.len = len;
    gbt__json_string(&k, buf, len + 1);
    put_count(sb, strlen(buf));
    gbt__sb_append(sb, buf, strlen(buf));
    free(buf);
    return GBT_OK;
}

/* Whether the number text is an integer (no fraction, no exponent) that fits an int64; its value. */
static int integer_of(const struct gbt_jnode *n, long long *v)
{
    char buf[32], *end;
    if (n->len >= sizeof buf || memchr(n->text, '.', n->len) || memchr(n->text, 'e', n->len) ||
        memchr(n->text, 'E', n->len))
        return 0;
    memcpy(buf, n->text, n->len);
    buf[n->len] = '\0';
    errno = 0;
    *v = strtoll(buf, &end, 10);
    return errno == 0 && *end == '\0';
}

static double double_of(const struct gbt_jnode *n)
{
    char buf[400];
    size_t l = n->len < sizeof buf - 1 ? n->len : sizeof buf - 1;
    memcpy(buf, n->text, l);
    buf[l] = '\0';
    return strtod(buf, NULL);
}

/* A number: an integer in the smallest type that holds it (XGBoost's bounds), else float32 where exact. */
static void put_number(struct gbt_strbuf *sb, const struct gbt_jnode *n)
{
    long long v;
    double d;
    if (integer_of(n, &v)) {
        if (v > INT8_MIN && v < INT8_MAX)
            gbt__sb_append(sb, "i", 1), put_be(sb, (uint64_t)v, 1);
        else if (v > INT16_MIN && v < INT16_MAX)
            gbt__sb_append(sb, "I", 1), put_be(sb, (uint64_t)v, 2);
        else if (v > INT32_MIN && v < INT32_MAX)
            gbt__sb_append(sb, "l", 1), put_be(sb, (uint64_t)v, 4);
        else
            gbt__sb_append(sb, "L", 1), put_be(sb, (uint64_t)v, 8);
        return;
    }
    d = double_of(n);
    if ((double)(float)d == d) {
        const float f = (float)d;
        uint32_t w;
        memcpy(&w, &f, sizeof w);
        gbt__sb_append(sb, "d", 1);
        put_be(sb, w, 4);
    } else {
        uint64_t w;
        memcpy(&w, &d, sizeof w);
        gbt__sb_append(sb, "D", 1);
        put_be(sb, w, 8);
    }
}

/* One element of a typed array of `marker`: false when it does not fit the type. */
static int put_typed(struct gbt_strbuf *sb, char marker, const struct gbt_jnode *n)
{
    long long v;
    if (marker == 'd') {
        const double d = double_of(n);
        const float f = (float)d;
        uint32_t w;
        if (!isfinite(f)) return 0;
        memcpy(&w, &f, sizeof w);
        put_be(sb, w, 4);
        return 1;
    }
    if (!integer_of(n, &v)) return 0;
    if (marker == 'U' && v >= 0 && v <= UINT8_MAX) put_be(sb, (uint64_t)v, 1);
    else if (marker == 'l' && v >= INT32_MIN && v <= INT32_MAX) put_be(sb, (uint64_t)v, 4);
    else if (marker == 'L') put_be(sb, (uint64_t)v, 8);
    else return 0;
    return 1;
}

struct writer {
    const struct gbt_jdoc *doc;
    const struct gbt_ubj_typed *typed;
    size_t ntyped;
    struct gbt_strbuf *out;
};

/* The element marker of a member named by the node's key, or 0. */
static char typed_marker(const struct writer *w, const struct gbt_jnode *n)
{
    for (size_t i = 0; n->key && i < w->ntyped; i++)
        if (strlen(w->typed[i].key) == n->key_len && memcmp(w->typed[i].key, n->key, n->key_len) == 0)
            return w->typed[i].marker;
    return 0;
}

static gbt_status write_node(const struct writer *w, int32_t id, const struct gbt_jnode *n)
{
    struct gbt_strbuf *sb = w->out;
    switch (n->type) {
    case GBT_J_NULL: gbt__sb_append(sb, "Z", 1); return GBT_OK;
    case GBT_J_BOOL: gbt__sb_append(sb, n->text[0] == 't' ? "T" : "F", 1); return GBT_OK;
    case GBT_J_NUMBER: put_number(sb, n); return GBT_OK;
    case GBT_J_STRING: gbt__sb_append(sb, "S", 1); return put_text(sb, n, n->text, n->len);
    case GBT_J_ARRAY: {
        const char marker = typed_marker(w, n);
        struct gbt_jiter it = {0};
        struct gbt_jnode el;
        int numbers = 1;
        for (int32_t c = n->packed ? -1 : n->child; c >= 0; c = w->doc->n[c].next)
            numbers &= w->doc->n[c].type == GBT_J_NUMBER;
        if (marker && numbers) {
            gbt__sb_append(sb, "[$", 2);
            gbt__sb_append(sb, &marker, 1);
            gbt__sb_append(sb, "#", 1);
        } else {
            gbt__sb_append(sb, "[#", 2);
        }
        put_count(sb, (uint64_t)n->count);
        if (!n->packed && !(marker && numbers)) {
            for (int32_t c = n->child; c >= 0; c = w->doc->n[c].next) FORWARD_IF_ERROR(write_node(w, c, &w->doc->n[c]));
            return GBT_OK;
        }
        /* numbers: a packed array's are read in place */
        while (gbt__json_next(w->doc, id, &it, &el)) {
            if (!marker)
                put_number(sb, &el);
            else if (!put_typed(sb, marker, &el))
                return gbt__fail(GBT_E_INVALID_ARG, "UBJSON: \"%.*s\" holds %.*s, which its type ('%c') cannot",
                                 (int)n->key_len, n->key, (int)el.len, el.text, marker);
        }
        return GBT_OK;
    }
    default: /* objects */
        gbt__sb_append(sb, "{", 1);
        for (int32_t c = n->child; c >= 0; c = w->doc->n[c].next) {
            FORWARD_IF_ERROR(put_text(sb, &w->doc->n[c], w->doc->n[c].key, w->doc->n[c].key_len));
            FORWARD_IF_ERROR(write_node(w, c, &w->doc->n[c]));
        }
        gbt__sb_append(sb, "}", 1);
        return GBT_OK;
    }
}

gbt_status gbt__ubjson_write(const struct gbt_jdoc *doc, const struct gbt_ubj_typed *typed, size_t ntyped,
                             struct gbt_strbuf *out)
{
    const struct writer w = {doc, typed, ntyped, out};
    FORWARD_IF_ERROR(write_node(&w, 0, &doc->n[0]));
    RETURN_ERROR_IF(out->failed, GBT_E_NO_MEMORY, "out of memory writing UBJSON");
    return GBT_OK;
}
