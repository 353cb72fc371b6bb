/*
 * binary_npz.c - version 1 of the binary dataset files: after the magic, a
 * NumPy .npz archive (a ZIP archive of stored, uncompressed .npy arrays) as
 * the Python package's save_binary wrote it before the format moved into
 * the library (docs/binary-format.md).  Only what that writer wrote is
 * read: stored entries, ZIP64 sizes, one-dimensional little-endian arrays
 * of the dtypes it used; every entry's CRC-32 is checked.
 */
#include <stdlib.h>
#include <string.h>

#include "data/binary.h"
#include "util/crc32.h"
#include "util/util.h"

/* What each array of the archive holds and the dtype it must have. */
enum v1_key { K_SHAPE, K_DENSE, K_INDPTR, K_INDICES, K_VALUES, K_GROUP, K_NAMES, K_FIELD0 };

static const struct {
    const char *name, *descr;
} keys[] = {{"shape", "<u8"}, {"dense", "<f4"}, {"indptr", "<u8"}, {"indices", "<u4"}, {"values", "<f4"},
            {"group", "<u4"}, {"feature_names", "<U"}};

struct v1_reader {
    FILE *f;
    const char *path;
    uint64_t offset, size;
    struct gbt_crc32 crc;
    const char *entry; /* the entry being read, for messages */
};

static gbt_status v1_read(struct v1_reader *r, void *buf, size_t n, const char *what)
{
    FORWARD_IF_ERROR(gbt__binary_read_exact(r->f, r->path, buf, n, what));
    gbt__crc32_update(&r->crc, buf, n);
    r->offset += n;
    return GBT_OK;
}

/* The key of an entry's name ("dense.npy" -> K_DENSE), or -1. */
static int key_of(const char *name)
{
    const size_t n = strlen(name);
    if (n < 5 || strcmp(name + n - 4, ".npy") != 0) return -1;
    for (int k = 0; k < (int)(sizeof keys / sizeof keys[0]); k++)
        if (strlen(keys[k].name) == n - 4 && memcmp(name, keys[k].name, n - 4) == 0) return k;
    for (int i = 0; i < GBT_BINARY_NFIELDS; i++)
        if (strlen(gbt__binary_fields[i]) == n - 4 && memcmp(name, gbt__binary_fields[i], n - 4) == 0)
            return K_FIELD0 + i;
    return -1;
}

/* The text after `key` in a .npy header dict, blanks skipped, or NULL. */
static const char *dict_value(const char *h, const char *key)
{
    const char *v = strstr(h, key);
    if (v == NULL) return NULL;
    v += strlen(key);
    while (*v == ' ') v++;
    return v;
}

/*
 * Parses a .npy header: the dtype (between quotes) into descr and the
 * length of a one-dimensional shape "(N,)" into *n.
 */
static gbt_status parse_header(struct v1_reader *r, const char *h, char *descr, size_t dlen, uint64_t *n)
{
    const char *d = dict_value(h, "'descr':"), *s = dict_value(h, "'shape':"), *e;
    char *end;
    size_t k;
    RETURN_ERROR_IF(d == NULL || *d != '\'' || (e = strchr(d + 1, '\'')) == NULL || (k = (size_t)(e - d - 1)) >= dlen,
                    GBT_E_FORMAT, "%s: corrupt: array '%s' has no readable dtype", r->path, r->entry);
    memcpy(descr, d + 1, k);
    descr[k] = '\0';
    RETURN_ERROR_IF(s == NULL || *s != '(' || s[1] < '0' || s[1] > '9', GBT_E_FORMAT,
                    "%s: corrupt: array '%s' is not one-dimensional", r->path, r->entry);
    *n = strtoull(s + 1, &end, 10);
    RETURN_ERROR_IF(end[0] != ',' || end[strspn(end + 1, " ") + 1] != ')', GBT_E_FORMAT,
                    "%s: corrupt: array '%s' is not one-dimensional", r->path, r->entry);
    return GBT_OK;
}

/* UTF-32LE code points (k of them, NUL-padded) as a new UTF-8 string in *out. */
static gbt_status utf32_name(struct v1_reader *r, const unsigned char *b, uint64_t k, char **out)
{
    char *s, *w;
    FORWARD_IF_ERROR(gbt__alloc(&s, (size_t)k * 4 + 1, 1, 0, "a feature name"));
    w = s;
    for (uint64_t i = 0; i < k; i++) {
        const uint32_t c = gbt__le32(b + 4 * i);
        if (c == 0) break;
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
            free(s);
            return gbt__fail(GBT_E_FORMAT, "%s: corrupt: a feature name holds the invalid code point 0x%x", r->path,
                             (unsigned)c);
        }
        if (c < 0x80) {
            *w++ = (char)c;
        } else if (c < 0x800) {
            *w++ = (char)(0xC0 | c >> 6);
            *w++ = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            *w++ = (char)(0xE0 | c >> 12);
            *w++ = (char)(0x80 | (c >> 6 & 0x3F));
            *w++ = (char)(0x80 | (c & 0x3F));
        } else {
            *w++ = (char)(0xF0 | c >> 18);
            *w++ = (char)(0x80 | (c >> 12 & 0x3F));
            *w++ = (char)(0x80 | (c >> 6 & 0x3F));
            *w++ = (char)(0x80 | (c & 0x3F));
        }
    }
    *w = '\0';
    *out = s;
    return GBT_OK;
}

/* "<U7": the names array's item of 7 code points; *k = 7. */
static gbt_status names_width(struct v1_reader *r, const char *descr, uint64_t *k)
{
    char *end;
    RETURN_ERROR_IF(strncmp(descr, "<U", 2) != 0 || descr[2] < '1' || descr[2] > '9', GBT_E_FORMAT,
                    "%s: corrupt: array 'feature_names' has dtype '%s', expected '<U' and a width", r->path, descr);
    *k = strtoull(descr + 2, &end, 10);
    RETURN_ERROR_IF(*end != '\0' || *k > 4096, GBT_E_FORMAT,
                    "%s: corrupt: array 'feature_names' has dtype '%s', expected '<U' and a width", r->path, descr);
    return GBT_OK;
}

/* Stores the n items (data, `bytes` bytes in all) of array `key` in p. */
static gbt_status keep(struct v1_reader *r, int key, unsigned char *data, uint64_t n, uint64_t k,
                       struct gbt_binary_parts *p)
{
    void **slot = NULL;
    uint64_t *count = NULL;
    switch (key) {
    case K_SHAPE:
        RETURN_ERROR_IF(n != 2, GBT_E_FORMAT, "%s: corrupt: the shape has %llu numbers, not 2", r->path,
                        (unsigned long long)n);
        p->have_shape = 1;
        p->nrow = ((uint64_t *)(void *)data)[0];
        p->ncol = ((uint64_t *)(void *)data)[1];
        free(data);
        return GBT_OK;
    case K_NAMES: {
        gbt_status s = gbt__alloc(&p->names, n ? n : 1, sizeof *p->names, 1, "feature names");
        for (uint64_t i = 0; s == GBT_OK && i < n; i++) {
            s = utf32_name(r, data + 4 * k * i, k, &p->names[i]);
            if (s == GBT_OK) p->nnames = i + 1;
        }
        free(data);
        return s;
    }
    case K_DENSE: slot = (void **)&p->dense, count = &p->ndense; break;
    case K_INDPTR: slot = (void **)&p->indptr, count = &p->nindptr; break;
    case K_INDICES: slot = (void **)&p->indices, count = &p->nindices; break;
    case K_VALUES: slot = (void **)&p->values, count = &p->nvalues; break;
    case K_GROUP: slot = (void **)&p->groups, count = &p->ngroups; break;
    default: slot = (void **)&p->field[key - K_FIELD0], count = &p->nfield[key - K_FIELD0]; break;
    }
    *slot = data;
    *count = n;
    return GBT_OK;
}

/* One .npy member of `len` bytes: its header, then its data into p. */
static gbt_status read_npy(struct v1_reader *r, int key, uint64_t len, struct gbt_binary_parts *p)
{
    unsigned char pre[12], *data;
    char *header, descr[32];
    const size_t want_size = key == K_SHAPE || key == K_INDPTR ? 8 : 4;
    uint64_t hlen, n = 0, k = 1, item, bytes;
    size_t plen;
    gbt_status s;
    RETURN_ERROR_IF(len < 10, GBT_E_FORMAT, "%s: corrupt: array '%s' is too short for a .npy header", r->path,
                    r->entry);
    FORWARD_IF_ERROR(v1_read(r, pre, 10, "a .npy header"));
    RETURN_ERROR_IF(memcmp(pre, "\x93NUMPY", 6) != 0 || pre[6] < 1 || pre[6] > 3, GBT_E_FORMAT,
                    "%s: corrupt: array '%s' is not a .npy array of version 1 to 3", r->path, r->entry);
    if (pre[6] == 1) {
        plen = 10;
        hlen = gbt__le16(pre + 8);
    } else {
        RETURN_ERROR_IF(len < 12, GBT_E_FORMAT, "%s: corrupt: array '%s' is too short for a .npy header", r->path,
                        r->entry);
        FORWARD_IF_ERROR(v1_read(r, pre + 10, 2, "a .npy header"));
        plen = 12;
        hlen = gbt__le32(pre + 8);
    }
    RETURN_ERROR_IF(hlen > len - plen || hlen > 65536, GBT_E_FORMAT, "%s: corrupt: array '%s' has a header of %llu bytes",
                    r->path, r->entry, (unsigned long long)hlen);
    FORWARD_IF_ERROR(gbt__alloc(&header, (size_t)hlen + 1, 1, 0, "a .npy header"));
    s = v1_read(r, header, (size_t)hlen, "a .npy header");
    header[hlen] = '\0';
    if (s == GBT_OK) s = parse_header(r, header, descr, sizeof descr, &n);
    free(header);
    FORWARD_IF_ERROR(s);
    if (key == K_NAMES) {
        FORWARD_IF_ERROR(names_width(r, descr, &k));
    } else {
        RETURN_ERROR_IF(strcmp(descr, keys[key < K_FIELD0 ? key : K_DENSE].descr) != 0, GBT_E_FORMAT,
                        "%s: corrupt: array '%s' has dtype '%s', expected '%s'", r->path, r->entry, descr,
                        keys[key < K_FIELD0 ? key : K_DENSE].descr);
    }
    item = want_size * k;
    bytes = len - plen - hlen;
    RETURN_ERROR_IF(n > bytes / item || n * item != bytes, GBT_E_FORMAT,
                    "%s: corrupt: array '%s' of %llu items holds %llu bytes of data", r->path, r->entry,
                    (unsigned long long)n, (unsigned long long)bytes);
    FORWARD_IF_ERROR(gbt__alloc(&data, (size_t)bytes, 1, 0, "binary dataset array"));
    s = v1_read(r, data, (size_t)bytes, "an array's data");
    if (s != GBT_OK) {
        free(data);
        return s;
    }
    if (key != K_NAMES) gbt__binary_swap_le(data, n, want_size);
    return keep(r, key, data, n, k, p);
}

/* The sizes of a ZIP64 extra field (id 1): those of the local header that are 0xFFFFFFFF. */
static gbt_status zip64_sizes(struct v1_reader *r, const unsigned char *x, size_t xlen, uint64_t *usize,
                              uint64_t *csize)
{
    for (size_t at = 0; at + 4 <= xlen;) {
        const unsigned id = gbt__le16(x + at), n = gbt__le16(x + at + 2);
        const unsigned char *v = x + at + 4;
        size_t used = 0;
        RETURN_ERROR_IF(at + 4 + n > xlen, GBT_E_FORMAT, "%s: corrupt: entry '%s' has a broken extra field",
                        r->path, r->entry);
        if (id == 1) {
            if (*usize == 0xFFFFFFFFu && used + 8 <= n) *usize = gbt__le64(v + used), used += 8;
            if (*csize == 0xFFFFFFFFu && used + 8 <= n) *csize = gbt__le64(v + used), used += 8;
        }
        at += 4 + n;
    }
    return GBT_OK;
}

/*
 * At the central directory (after the last entry): the file must end with
 * the end-of-central-directory record (22 bytes, no comment), else it was
 * cut short.  Not checked when the size is not known (a pipe).
 */
static gbt_status end_of_archive(struct v1_reader *r)
{
    unsigned char e[22];
    if (r->size == UINT64_MAX) return GBT_OK;
    RETURN_ERROR_IF(r->size < r->offset + 18 || fseek(r->f, (long)(r->size - 22), SEEK_SET) != 0 ||
                        fread(e, 1, 22, r->f) != 22 || memcmp(e, "PK\5\6", 4) != 0 || gbt__le16(e + 20) != 0,
                    GBT_E_FORMAT, "%s: truncated: the version-1 archive does not end with its directory", r->path);
    return GBT_OK;
}

gbt_status gbt__binary_read_v1(FILE *f, const char *path, uint64_t size, struct gbt_binary_parts *p)
{
    struct v1_reader r = {f, path, GBT_BINARY_MAGIC_LEN, size, {{{0}}, 0}, ""};
    unsigned seen = 0;
    for (;;) {
        unsigned char h[30], extra[65536];
        char name[64];
        unsigned flags, method, nlen, xlen;
        uint32_t crc;
        uint64_t csize, usize;
        int key;
        r.entry = "";
        FORWARD_IF_ERROR(gbt__binary_read_exact(f, path, h, 4, "the archive (no central directory)"));
        r.offset += 4;
        if (memcmp(h, "PK\1\2", 4) == 0 || memcmp(h, "PK\5\6", 4) == 0 || memcmp(h, "PK\6\6", 4) == 0)
            return end_of_archive(&r);
        RETURN_ERROR_IF(memcmp(h, "PK\3\4", 4) != 0, GBT_E_FORMAT,
                        "%s: corrupt: no ZIP entry at offset %llu of the version-1 archive", path,
                        (unsigned long long)(r.offset - 4));
        FORWARD_IF_ERROR(gbt__binary_read_exact(f, path, h + 4, 26, "a ZIP entry header"));
        flags = gbt__le16(h + 6), method = gbt__le16(h + 8), crc = gbt__le32(h + 14);
        csize = gbt__le32(h + 18), usize = gbt__le32(h + 22), nlen = gbt__le16(h + 26), xlen = gbt__le16(h + 28);
        RETURN_ERROR_IF(nlen == 0 || nlen >= sizeof name, GBT_E_FORMAT,
                        "%s: corrupt: an entry name of %u bytes in the version-1 archive", path, nlen);
        FORWARD_IF_ERROR(gbt__binary_read_exact(f, path, name, nlen, "a ZIP entry name"));
        name[nlen] = '\0';
        r.entry = name;
        FORWARD_IF_ERROR(gbt__binary_read_exact(f, path, extra, xlen, "a ZIP extra field"));
        r.offset += 26 + nlen + xlen;
        FORWARD_IF_ERROR(zip64_sizes(&r, extra, xlen, &usize, &csize));
        RETURN_ERROR_IF(flags & 9u, GBT_E_FORMAT, "%s: entry '%s' is %s: not written by gbt", path, name,
                        flags & 1u ? "encrypted" : "followed by a data descriptor");
        RETURN_ERROR_IF(method != 0 || csize != usize, GBT_E_FORMAT,
                        "%s: entry '%s' is compressed: not written by gbt (its arrays are stored)", path, name);
        key = key_of(name);
        RETURN_ERROR_IF(key < 0, GBT_E_FORMAT, "%s: corrupt: unknown entry '%s' in the version-1 archive", path,
                        name);
        RETURN_ERROR_IF(seen & 1u << key, GBT_E_FORMAT, "%s: corrupt: entry '%s' appears twice", path, name);
        seen |= 1u << key;
        RETURN_ERROR_IF(csize > (r.size > r.offset ? r.size - r.offset : 0), GBT_E_FORMAT,
                        "%s: truncated: entry '%s' needs %llu bytes but the file has %llu left", path, name,
                        (unsigned long long)csize, (unsigned long long)(r.size > r.offset ? r.size - r.offset : 0));
        gbt__crc32_init(&r.crc);
        FORWARD_IF_ERROR(read_npy(&r, key, csize, p));
        RETURN_ERROR_IF(r.crc.value != crc, GBT_E_FORMAT,
                        "%s: corrupt: entry '%s' fails its checksum (CRC-32 %08x stored, %08x computed)", path, name,
                        (unsigned)crc, (unsigned)r.crc.value);
    }
    return GBT_OK;
}
