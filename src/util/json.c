/*
 * json.c - a recursive-descent JSON reader (RFC 8259 grammar, nesting
 * limited to 64 levels, documents up to GBT_JSON_MAX_BYTES).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/util.h"

#define MAX_DEPTH 64

struct parser {
    const char *p, *end, *src;
    const char *what;
    uint32_t line;
    struct gbt_jdoc *doc;
};

static gbt_status fail(struct parser *ps, const char *msg)
{
    const size_t at = (size_t)(ps->p - ps->src);
    if (ps->p >= ps->end)
        return gbt__fail(GBT_E_FORMAT, "%s:%u: %s (byte %zu: the text ends early; is the file truncated?)",
                         ps->what, ps->line, msg, at);
    return gbt__fail(GBT_E_FORMAT, "%s:%u: %s (byte %zu)", ps->what, ps->line, msg, at);
}

/* no overlong forms, no surrogates, nothing above U+10FFFF */
size_t gbt__utf8_len(const unsigned char *p, size_t n)
{
    size_t len;
    uint32_t c;
    if (p[0] < 0x80) return 1;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) len = 2, c = p[0] & 0x1Fu;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) len = 3, c = p[0] & 0x0Fu;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4) len = 4, c = p[0] & 0x07u;
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        c = c << 6 | (p[i] & 0x3Fu);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    return len;
}

static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == '\n')
            ps->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            break;
        ps->p++;
    }
}

static gbt_status new_node(struct parser *ps, int type, int32_t *id)
{
    struct gbt_jdoc *d = ps->doc;
    if (d->len >= INT32_MAX) return fail(ps, "too many objects, arrays and strings");
    FORWARD_IF_ERROR(gbt__reserve(&d->n, &d->cap, d->len + 1, sizeof *d->n, "JSON nodes"));
    memset(&d->n[d->len], 0, sizeof d->n[d->len]);
    d->n[d->len].type = type;
    d->n[d->len].line = ps->line;
    d->n[d->len].pos = (size_t)(ps->p - ps->src);
    d->n[d->len].child = d->n[d->len].next = -1;
    *id = (int32_t)d->len++;
    return GBT_OK;
}

/* Scans a string starting at the opening quote; sets text/len to its body. */
static gbt_status scan_string(struct parser *ps, const char **text, size_t *len)
{
    const char *start = ++ps->p;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) return fail(ps, "control character in a string");
        if (c >= 0x80) {
            size_t n = gbt__utf8_len((const unsigned char *)ps->p, (size_t)(ps->end - ps->p));
            if (n == 0) return fail(ps, "a string is not valid UTF-8");
            ps->p += n;
            continue;
        }
        if (c == '\\') {
            ps->p++;
            if (ps->p >= ps->end) break;
            if (*ps->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (ps->p + i >= ps->end || !strchr("0123456789abcdefABCDEF", ps->p[i]) || ps->p[i] == '\0')
                        return fail(ps, "bad \\u escape");
                ps->p += 4;
            } else if (!strchr("\"\\/bfnrt", *ps->p) || *ps->p == '\0') {
                return fail(ps, "bad escape in a string");
            }
        }
        ps->p++;
    }
    if (ps->p >= ps->end) return fail(ps, "unterminated string");
    *text = start;
    *len = (size_t)(ps->p - start);
    ps->p++;
    return GBT_OK;
}

static gbt_status parse_value(struct parser *ps, int depth, int32_t *out);

static gbt_status parse_container(struct parser *ps, int depth, int object, int32_t id)
{
    const char close = object ? '}' : ']';
    int32_t last = -1;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return GBT_OK;
    }
    for (;;) {
        const char *key = NULL;
        size_t key_len = 0;
        int32_t child;
        skip_ws(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"') return fail(ps, "expected a member name");
            FORWARD_IF_ERROR(scan_string(ps, &key, &key_len));
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') return fail(ps, "expected ':'");
            ps->p++;
        }
        FORWARD_IF_ERROR(parse_value(ps, depth + 1, &child));
        ps->doc->n[child].key = key;
        ps->doc->n[child].key_len = key_len;
        if (last < 0)
            ps->doc->n[id].child = child;
        else
            ps->doc->n[last].next = child;
        last = child;
        ps->doc->n[id].count++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return GBT_OK;
        }
        return fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static const char *digits(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9') p++;
    return p;
}

/*
 * The end of the number that starts at p, RFC 8259's grammar exactly:
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, not followed by another
 * character of a number; NULL if there is no such number at p.
 */
static const char *number_end(const char *p, const char *end)
{
    const char *q;
    if (p < end && *p == '-') p++;
    if (p >= end || *p < '0' || *p > '9') return NULL;
    p = *p == '0' ? p + 1 : digits(p, end);
    if (p < end && *p == '.') {
        q = digits(p + 1, end);
        if (q == p + 1) return NULL;
        p = q;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        q = digits(p, end);
        if (q == p) return NULL;
        p = q;
    }
    if (p < end && strchr("0123456789+-.eE", *p) && *p != '\0') return NULL;
    return p;
}

size_t gbt__json_number_len(const char *p, size_t n)
{
    const char *e = number_end(p, p + n);
    return e ? (size_t)(e - p) : 0;
}

static gbt_status parse_number(struct parser *ps, int32_t id)
{
    const char *s = ps->p, *e = number_end(ps->p, ps->end);
    if (e == NULL)
        return fail(ps, "bad number (JSON numbers: no leading zeros or '+', digits on both sides of '.', "
                        "digits in the exponent)");
    ps->p = e;
    ps->doc->n[id].text = s;
    ps->doc->n[id].len = (size_t)(e - s);
    return GBT_OK;
}

static const char *skip_ws_at(const char *p, const char *end, uint32_t *line)
{
    for (; p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'); p++)
        if (*p == '\n') ++*line;
    return p;
}

/*
 * An array of numbers only, at the '[' of ps: makes it the packed node id
 * (its body is read in place by gbt__json_next) and returns 1.  Returns 0,
 * with ps unmoved, for any other array (empty, mixed or malformed), which
 * parse_container then reads element by element.
 */
static int parse_packed(struct parser *ps, int32_t id)
{
    const char *p = ps->p + 1, *body = p;
    uint32_t line = ps->line;
    int32_t count = 0;
    for (;;) {
        p = number_end(skip_ws_at(p, ps->end, &line), ps->end);
        if (p == NULL || count == INT32_MAX) return 0;
        count++;
        p = skip_ws_at(p, ps->end, &line);
        if (p < ps->end && *p == ',') {
            p++;
            continue;
        }
        if (p < ps->end && *p == ']') break;
        return 0;
    }
    ps->doc->n[id].packed = 1;
    ps->doc->n[id].count = count;
    ps->doc->n[id].text = body;
    ps->doc->n[id].len = (size_t)(p - body);
    ps->p = p + 1;
    ps->line = line;
    return 1;
}

static gbt_status parse_value(struct parser *ps, int depth, int32_t *out)
{
    int32_t id;
    char c;
    if (depth > MAX_DEPTH) return fail(ps, "nesting too deep");
    skip_ws(ps);
    if (ps->p >= ps->end) return fail(ps, "expected a value");
    c = *ps->p;
    if (c == '{' || c == '[') {
        FORWARD_IF_ERROR(new_node(ps, c == '{' ? GBT_J_OBJECT : GBT_J_ARRAY, &id));
        *out = id;
        if (c == '[' && parse_packed(ps, id)) return GBT_OK;
        return parse_container(ps, depth, c == '{', id);
    }
    if (c == '"') {
        FORWARD_IF_ERROR(new_node(ps, GBT_J_STRING, &id));
        *out = id;
        return scan_string(ps, &ps->doc->n[id].text, &ps->doc->n[id].len);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        FORWARD_IF_ERROR(new_node(ps, GBT_J_NUMBER, &id));
        *out = id;
        return parse_number(ps, id);
    }
    for (int i = 0; i < 3; i++) {
        static const char *const words[] = {"true", "false", "null"};
        size_t l = strlen(words[i]);
        if ((size_t)(ps->end - ps->p) >= l && memcmp(ps->p, words[i], l) == 0) {
            FORWARD_IF_ERROR(new_node(ps, i == 2 ? GBT_J_NULL : GBT_J_BOOL, &id));
            ps->doc->n[id].text = ps->p;
            ps->doc->n[id].len = l;
            ps->p += l;
            *out = id;
            return GBT_OK;
        }
    }
    return fail(ps, "unexpected character");
}

gbt_status gbt__json_parse(const char *src, size_t len, const char *what, struct gbt_jdoc *doc)
{
    struct parser ps = {src, src + len, src, what, 1, doc};
    int32_t root;
    gbt_status s;
    memset(doc, 0, sizeof *doc);
    if (len > GBT_JSON_MAX_BYTES)
        return gbt__fail(GBT_E_FORMAT, "%s: %zu bytes is larger than a model can be (%llu bytes at most)", what,
                         len, (unsigned long long)GBT_JSON_MAX_BYTES);
    doc->src = src;
    s = parse_value(&ps, 0, &root);
    if (s == GBT_OK) {
        skip_ws(&ps);
        if (ps.p < ps.end && !(ps.p + 1 == ps.end && *ps.p == '\0')) s = fail(&ps, "text after the end of the document");
    }
    if (s != GBT_OK) gbt__json_free(doc);
    return s;
}

void gbt__json_free(struct gbt_jdoc *doc)
{
    free(doc->n);
    free(doc->own);
    free(doc->at);
    memset(doc, 0, sizeof *doc);
}

size_t gbt__json_source_pos(const struct gbt_jdoc *doc, size_t text)
{
    size_t lo = 0, hi = doc->nat;
    if (doc->at == NULL) return text;
    /* the last value that starts at or before `text` */
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (doc->at[mid].text <= text)
            lo = mid;
        else
            hi = mid;
    }
    return doc->nat ? doc->at[lo].bin : 0;
}

int32_t gbt__json_member(const struct gbt_jdoc *doc, int32_t obj, const char *key)
{
    size_t kl = strlen(key);
    if (obj < 0 || doc->n[obj].type != GBT_J_OBJECT) return -1;
    for (int32_t c = doc->n[obj].child; c >= 0; c = doc->n[c].next)
        if (doc->n[c].key_len == kl && memcmp(doc->n[c].key, key, kl) == 0) return c;
    return -1;
}

int gbt__json_next(const struct gbt_jdoc *doc, int32_t arr, struct gbt_jiter *it, struct gbt_jnode *el)
{
    const struct gbt_jnode *a = &doc->n[arr];
    const char *end, *p;
    if (!a->packed) {
        int32_t c = it->started ? it->next : a->child;
        it->started = 1;
        if (c < 0) return 0;
        *el = doc->n[c];
        it->next = el->next;
        return 1;
    }
    end = a->text + a->len; /* only a packed array has text: NULL + 0 is undefined */
    if (!it->started) {
        it->p = a->text;
        it->line = a->line;
        it->started = 1;
    }
    p = skip_ws_at(it->p, end, &it->line);
    if (p < end && *p == ',') p = skip_ws_at(p + 1, end, &it->line);
    if (p >= end) return 0;
    memset(el, 0, sizeof *el);
    el->type = GBT_J_NUMBER;
    el->line = it->line;
    el->child = el->next = -1;
    el->text = p;
    el->pos = gbt__json_source_pos(doc, (size_t)(p - doc->src));
    it->p = number_end(p, end);
    el->len = (size_t)(it->p - p);
    return 1;
}

/* The 4 hex digits at p (the parser has checked them). */
static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        const char h = p[k];
        v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return v;
}

void gbt__json_string(const struct gbt_jnode *n, char *buf, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < n->len && o + 1 < len; i++) {
        char c = n->text[i];
        if (c == '\\' && i + 1 < n->len) {
            char e = n->text[++i];
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                /* a code point as UTF-8 (a surrogate pair as one; a lone surrogate '?') */
                unsigned cp = i + 4 < n->len ? hex4(n->text + i + 1) : 0xFFFDu;
                char u[4];
                int nu;
                i += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n->len && n->text[i + 1] == '\\' &&
                    n->text[i + 2] == 'u') {
                    const unsigned lo = hex4(n->text + i + 3);
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                if (cp >= 0xD800 && cp < 0xE000) {
                    u[0] = '?';
                    nu = 1;
                } else if (cp < 0x80) {
                    u[0] = (char)cp;
                    nu = 1;
                } else if (cp < 0x800) {
                    u[0] = (char)(0xC0 | (cp >> 6));
                    u[1] = (char)(0x80 | (cp & 0x3F));
                    nu = 2;
                } else if (cp < 0x10000) {
                    u[0] = (char)(0xE0 | (cp >> 12));
                    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    u[2] = (char)(0x80 | (cp & 0x3F));
                    nu = 3;
                } else {
                    u[0] = (char)(0xF0 | (cp >> 18));
                    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    u[3] = (char)(0x80 | (cp & 0x3F));
                    nu = 4;
                }
                for (int k = 0; k < nu && o + 1 < len; k++) buf[o++] = u[k];
                continue;
            }
            default: c = e; break;
            }
        }
        buf[o++] = c;
    }
    if (len) buf[o] = '\0';
}

gbt_status gbt__jr_fail_at(const struct gbt_jreader *rd, const struct gbt_jnode *n, const char *msg)
{
    if (n && rd->doc->own) return gbt__fail(GBT_E_FORMAT, "%s: %s%s (byte %zu)", rd->what, rd->format, msg, n->pos);
    if (n) return gbt__fail(GBT_E_FORMAT, "%s:%u: %s%s (byte %zu)", rd->what, n->line, rd->format, msg, n->pos);
    return gbt__fail(GBT_E_FORMAT, "%s: %s%s", rd->what, rd->format, msg);
}

const char *gbt__jr_where(const struct gbt_jreader *rd, int32_t node, char *buf, size_t len)
{
    const struct gbt_jnode *n = &rd->doc->n[node];
    if (rd->doc->own)
        snprintf(buf, len, "%s (byte %zu)", rd->what, n->pos);
    else
        snprintf(buf, len, "%s:%u", rd->what, n->line);
    return buf;
}

gbt_status gbt__jr_fail(const struct gbt_jreader *rd, int32_t node, const char *msg)
{
    return gbt__jr_fail_at(rd, node >= 0 ? &rd->doc->n[node] : NULL, msg);
}

gbt_status gbt__jr_member(const struct gbt_jreader *rd, int32_t obj, const char *key, int type, int32_t *out)
{
    char msg[256];
    const int32_t m = gbt__json_member(rd->doc, obj, key);
    if (m < 0 || rd->doc->n[m].type != type) {
        snprintf(msg, sizeof msg, m < 0 ? "missing \"%s\"" : "\"%s\" has the wrong type", key);
        return gbt__jr_fail(rd, m < 0 ? obj : m, msg);
    }
    *out = m;
    return GBT_OK;
}
