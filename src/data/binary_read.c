/*
 * binary_read.c - gbt_dataset_is_binary and gbt_dataset_load_binary: the
 * magic and version of a binary dataset file, version 2's sections
 * (docs/binary-format.md), and the one builder that checks what either
 * version's reader found and makes the dataset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/binary.h"
#include "data/feature_names.h"
#include "util/crc32.h"
#include "util/util.h"

void gbt__binary_parts_free(struct gbt_binary_parts *p)
{
    free(p->dense);
    free(p->indptr);
    free(p->indices);
    free(p->values);
    for (int i = 0; i < GBT_BINARY_NFIELDS; i++) free(p->field[i]);
    free(p->groups);
    free(p->feature_weights);
    gbt__names_free(p->names, p->nnames);
    free(p->types);
    free(p->cats);
    memset(p, 0, sizeof *p);
}

/* The feature values of p moved into d (shape checked), then checked as gbt_dataset_from_dense/_csr check them. */
static gbt_status build_features(struct gbt_binary_parts *p, const char *path, gbt_dataset *d)
{
    const uint64_t nrow = p->nrow;
    const int csr = p->indptr || p->indices || p->values;
    RETURN_ERROR_IF(!p->have_shape, GBT_E_FORMAT, "%s: corrupt: no shape (rows and columns)", path);
    if (gbt__dataset_check_shape(p->nrow, p->ncol) != GBT_OK) return gbt__fail_context(GBT_E_FORMAT, "%s", path);
    RETURN_ERROR_IF(p->dense && csr, GBT_E_FORMAT, "%s: corrupt: both dense and sparse feature values", path);
    RETURN_ERROR_IF(!p->dense && !csr, GBT_E_FORMAT, "%s: corrupt: no feature values", path);
    d->nrow = p->nrow;
    d->ncol = p->ncol;
    if (p->dense) {
        RETURN_ERROR_IF(p->ndense != p->nrow * p->ncol, GBT_E_FORMAT,
                        "%s: corrupt: %llu dense values for %llu rows x %llu columns", path,
                        (unsigned long long)p->ndense, (unsigned long long)p->nrow, (unsigned long long)p->ncol);
        d->dense = p->dense;
        p->dense = NULL;
        return gbt__dataset_finish_dense(d);
    }
    RETURN_ERROR_IF(!p->indptr || !p->indices || !p->values, GBT_E_FORMAT,
                    "%s: corrupt: sparse feature values without their %s", path,
                    !p->indptr ? "row offsets" : !p->indices ? "column indices" : "values");
    RETURN_ERROR_IF(p->nindptr != nrow + 1, GBT_E_FORMAT, "%s: corrupt: %llu row offsets for %llu rows", path,
                    (unsigned long long)p->nindptr, (unsigned long long)nrow);
    RETURN_ERROR_IF(p->indptr[0] != 0, GBT_E_FORMAT, "%s: corrupt: the first row offset is %llu, not 0", path,
                    (unsigned long long)p->indptr[0]);
    for (uint64_t r = 0; r < nrow; r++)
        RETURN_ERROR_IF(p->indptr[r + 1] < p->indptr[r], GBT_E_FORMAT,
                        "%s: corrupt: the row offsets decrease at row %llu", path, (unsigned long long)r);
    RETURN_ERROR_IF(p->nindices != p->indptr[nrow] || p->nvalues != p->indptr[nrow], GBT_E_FORMAT,
                    "%s: corrupt: %llu column indices and %llu values for %llu sparse entries", path,
                    (unsigned long long)p->nindices, (unsigned long long)p->nvalues,
                    (unsigned long long)p->indptr[nrow]);
    d->indptr = p->indptr;
    d->indices = p->indices;
    d->values = p->values;
    p->indptr = NULL;
    p->indices = NULL;
    p->values = NULL;
    return gbt__dataset_finish_csr(d);
}

/* The file the data was first read from: its layout and LIBSVM index base, checked. */
static gbt_status build_origin(const struct gbt_binary_parts *p, const char *path, gbt_dataset *d)
{
    const struct gbt_file_layout *l = &p->layout;
    if (!p->have_origin) return GBT_OK;
    RETURN_ERROR_IF(l->format < GBT_FILE_NONE || l->format > GBT_FILE_DELIMITED ||
                        (l->format == GBT_FILE_DELIMITED && (l->delim == '\0' || !strchr(",\t;|:", l->delim))) ||
                        l->header < 0 || l->header > 1 || l->label_column < -1 ||
                        l->label_column >= (int64_t)GBT_MAX_FEATURES || p->index_base < GBT_BASE_NONE ||
                        p->index_base > GBT_BASE_ONE_GUESSED,
                    GBT_E_FORMAT, "%s: corrupt: the origin section holds an unknown layout", path);
    d->layout = *l;
    d->index_base = p->index_base;
    return GBT_OK;
}

/* Each field, the groups, names and types of p set on d as the C API sets them. */
static gbt_status build_info(struct gbt_binary_parts *p, const char *path, gbt_dataset *d)
{
    for (int i = 0; i < GBT_BINARY_NFIELDS; i++)
        if (p->field[i] && gbt_dataset_set_field(d, gbt__binary_fields[i], p->field[i], p->nfield[i]) != GBT_OK)
            return gbt__fail_context(GBT_E_FORMAT, "%s", path);
    if (p->groups && gbt_dataset_set_groups(d, p->groups, p->ngroups) != GBT_OK)
        return gbt__fail_context(GBT_E_FORMAT, "%s", path);
    if (p->feature_weights &&
        gbt_dataset_set_field(d, "feature_weights", p->feature_weights, p->nfeature_weights) != GBT_OK)
        return gbt__fail_context(GBT_E_FORMAT, "%s", path);
    if (p->names && gbt_dataset_set_feature_names(d, (const char *const *)p->names, p->nnames) != GBT_OK)
        return gbt__fail_context(GBT_E_FORMAT, "%s", path);
    if (p->types) {
        const char **t;
        gbt_status s;
        RETURN_ERROR_IF(p->ntypes != d->ncol, GBT_E_FORMAT, "%s: corrupt: %llu feature types for %llu columns",
                        path, (unsigned long long)p->ntypes, (unsigned long long)d->ncol);
        FORWARD_IF_ERROR(gbt__alloc(&t, p->ntypes, sizeof *t, 0, "feature types"));
        for (uint64_t f = 0; f < p->ntypes; f++)
            if ((t[f] = gbt__feature_type_name(p->types[f])) == NULL) {
                free(t);
                return gbt__fail(GBT_E_FORMAT, "%s: corrupt: feature type %u of column %llu is not 0 to %d", path,
                                 (unsigned)p->types[f], (unsigned long long)f, GBT_FT_COUNT - 1);
            }
        s = gbt_dataset_set_feature_types(d, t, p->ntypes); /* names the file: d->source is set */
        free(t);
        FORWARD_IF_ERROR(s);
    }
    /* after the types: the listed features must be categorical */
    if (p->cats && gbt_dataset_set_category_names(d, p->cats) != GBT_OK)
        return gbt__fail_context(GBT_E_FORMAT, "%s: section CATS", path);
    return build_origin(p, path, d);
}

gbt_status gbt__binary_build(struct gbt_binary_parts *p, const char *path, gbt_dataset **out)
{
    gbt_dataset *d = NULL;
    gbt_status s = gbt__dataset_alloc(&d);
    if (s == GBT_OK) s = gbt__strdup(&d->source, path);
    if (s == GBT_OK) s = build_features(p, path, d);
    if (s == GBT_OK) s = build_info(p, path, d);
    gbt__binary_parts_free(p);
    if (s != GBT_OK) {
        gbt_dataset_free(d);
        return s;
    }
    *out = d;
    return GBT_OK;
}

/* ------------------------------------------------------------------ */
/* Version 2                                                           */
/* ------------------------------------------------------------------ */

struct v2_reader {
    FILE *f;
    const char *path;
    uint64_t offset, size; /* bytes read; the file's size (UINT64_MAX: not known) */
    struct gbt_crc32 crc;
};

static gbt_status v2_read(struct v2_reader *r, void *buf, size_t n, const char *what)
{
    FORWARD_IF_ERROR(gbt__binary_read_exact(r->f, r->path, buf, n, what));
    gbt__crc32_update(&r->crc, buf, n);
    r->offset += n;
    return GBT_OK;
}

/* A section's payload of `len` bytes: n elements of `size` bytes each, host order, in *out (free it). */
static gbt_status v2_array(struct v2_reader *r, const char *tag, uint64_t len, size_t size, void *out, uint64_t *n)
{
    void *buf;
    gbt_status s;
    char what[64];
    RETURN_ERROR_IF(*(void **)out != NULL, GBT_E_FORMAT, "%s: corrupt: section %s appears twice", r->path, tag);
    RETURN_ERROR_IF(len % size != 0, GBT_E_FORMAT,
                    "%s: corrupt: section %s holds %llu bytes, not a whole number of %zu-byte values", r->path, tag,
                    (unsigned long long)len, size);
    const uint64_t left = r->size > r->offset ? r->size - r->offset : 0;
    RETURN_ERROR_IF(len > left, GBT_E_FORMAT, "%s: truncated: section %s needs %llu bytes but the file has %llu left",
                    r->path, tag, (unsigned long long)len, (unsigned long long)left);
    RETURN_ERROR_IF(len > SIZE_MAX, GBT_E_NO_MEMORY, "%s: section %s is too large for this machine", r->path, tag);
    snprintf(what, sizeof what, "section %s", tag);
    FORWARD_IF_ERROR(gbt__alloc(&buf, (size_t)(len / size), size, 0, what));
    s = v2_read(r, buf, (size_t)len, what);
    if (s != GBT_OK) {
        free(buf);
        return s;
    }
    gbt__binary_swap_le(buf, len / size, size);
    *(void **)out = buf;
    *n = len / size;
    return GBT_OK;
}

/* "NAME": n names, each a u32 byte count and its UTF-8 bytes. */
static gbt_status v2_names(struct v2_reader *r, uint64_t len, struct gbt_binary_parts *p)
{
    unsigned char *buf = NULL;
    uint64_t n = 0, at = 0, count = 0;
    gbt_status s;
    RETURN_ERROR_IF(p->names != NULL, GBT_E_FORMAT, "%s: corrupt: section NAME appears twice", r->path);
    FORWARD_IF_ERROR(v2_array(r, "NAME", len, 1, &buf, &n));
    for (at = 0; at + 4 <= n; count++) at += 4 + (uint64_t)gbt__le32(buf + at);
    s = at == n ? gbt__alloc(&p->names, count ? count : 1, sizeof *p->names, 1, "feature names")
                : gbt__fail(GBT_E_FORMAT, "%s: corrupt: section NAME does not end with its last name", r->path);
    for (uint64_t i = 0, pos = 0; s == GBT_OK && i < count; i++) {
        const uint32_t k = gbt__le32(buf + pos);
        s = gbt__alloc(&p->names[i], (size_t)k + 1, 1, 0, "a feature name");
        if (s != GBT_OK) break;
        p->nnames = i + 1;
        memcpy(p->names[i], buf + pos + 4, k);
        p->names[i][k] = '\0';
        if (strlen(p->names[i]) != k)
            s = gbt__fail(GBT_E_FORMAT, "%s: corrupt: feature name %llu holds a NUL byte", r->path,
                          (unsigned long long)i);
        pos += 4 + (uint64_t)k;
    }
    free(buf);
    return s;
}

/* "CATS": the category names' JSON text, without a NUL byte. */
static gbt_status v2_cats(struct v2_reader *r, uint64_t len, struct gbt_binary_parts *p)
{
    uint64_t n = 0;
    char *text;
    RETURN_ERROR_IF(p->cats != NULL, GBT_E_FORMAT, "%s: corrupt: section CATS appears twice", r->path);
    FORWARD_IF_ERROR(v2_array(r, "CATS", len, 1, &p->cats, &n));
    FORWARD_IF_ERROR(gbt__alloc(&text, (size_t)n + 1, 1, 0, "category names"));
    memcpy(text, p->cats, (size_t)n);
    text[n] = '\0';
    free(p->cats);
    p->cats = text;
    RETURN_ERROR_IF(strlen(text) != n, GBT_E_FORMAT, "%s: corrupt: section CATS holds a NUL byte", r->path);
    return GBT_OK;
}

/* "ORIG": u8 format, u8 delimiter, u8 header, u8 index base, i64 label column. */
static gbt_status v2_origin(struct v2_reader *r, uint64_t len, struct gbt_binary_parts *p)
{
    unsigned char b[12];
    RETURN_ERROR_IF(p->have_origin, GBT_E_FORMAT, "%s: corrupt: section ORIG appears twice", r->path);
    RETURN_ERROR_IF(len != sizeof b, GBT_E_FORMAT, "%s: corrupt: section ORIG holds %llu bytes, not 12", r->path,
                    (unsigned long long)len);
    FORWARD_IF_ERROR(v2_read(r, b, sizeof b, "section ORIG"));
    p->have_origin = 1;
    p->layout.format = b[0];
    p->layout.delim = (char)b[1];
    p->layout.header = b[2];
    p->index_base = b[3];
    p->layout.label_column = (int64_t)gbt__le64(b + 4);
    return GBT_OK;
}

static gbt_status v2_section(struct v2_reader *r, const char *tag, uint64_t len, struct gbt_binary_parts *p)
{
    static const char *const field_tags[GBT_BINARY_NFIELDS] = {"LABL", "WGHT", "BMAR", "LLOW", "LUPP"};
    for (int i = 0; i < GBT_BINARY_NFIELDS; i++)
        if (strcmp(tag, field_tags[i]) == 0) return v2_array(r, tag, len, 4, &p->field[i], &p->nfield[i]);
    if (strcmp(tag, "DENS") == 0) return v2_array(r, tag, len, 4, &p->dense, &p->ndense);
    if (strcmp(tag, "CSRP") == 0) return v2_array(r, tag, len, 8, &p->indptr, &p->nindptr);
    if (strcmp(tag, "CSRI") == 0) return v2_array(r, tag, len, 4, &p->indices, &p->nindices);
    if (strcmp(tag, "CSRV") == 0) return v2_array(r, tag, len, 4, &p->values, &p->nvalues);
    if (strcmp(tag, "GRUP") == 0) return v2_array(r, tag, len, 4, &p->groups, &p->ngroups);
    if (strcmp(tag, "FWGT") == 0) return v2_array(r, tag, len, 4, &p->feature_weights, &p->nfeature_weights);
    if (strcmp(tag, "TYPE") == 0) return v2_array(r, tag, len, 1, &p->types, &p->ntypes);
    if (strcmp(tag, "NAME") == 0) return v2_names(r, len, p);
    if (strcmp(tag, "ORIG") == 0) return v2_origin(r, len, p);
    if (strcmp(tag, "CATS") == 0) return v2_cats(r, len, p);
    return gbt__fail(GBT_E_FORMAT, "%s: corrupt: unknown section '%s' at offset %llu", r->path, tag,
                     (unsigned long long)(r->offset - 12));
}

/* A tag as text for messages: its printable ASCII bytes, others as '?'. */
static void tag_text(const unsigned char *b, char *tag)
{
    for (int k = 0; k < 4; k++) tag[k] = b[k] >= 0x20 && b[k] < 0x7F ? (char)b[k] : '?';
    tag[4] = '\0';
}

static gbt_status read_v2(struct v2_reader *r, const unsigned char *magic, struct gbt_binary_parts *p)
{
    unsigned char b[16];
    gbt__crc32_update(&r->crc, magic, GBT_BINARY_MAGIC_LEN);
    FORWARD_IF_ERROR(v2_read(r, b, 16, "the header (rows and columns)"));
    p->have_shape = 1;
    p->nrow = gbt__le64(b);
    p->ncol = gbt__le64(b + 8);
    for (;;) {
        char tag[5];
        uint64_t len;
        const uint32_t want = r->crc.value;
        FORWARD_IF_ERROR(gbt__binary_read_exact(r->f, r->path, b, 12, "a section header (no END section)"));
        tag_text(b, tag);
        len = gbt__le64(b + 4);
        if (memcmp(b, "END ", 4) == 0) {
            unsigned char c[4];
            RETURN_ERROR_IF(len != 4, GBT_E_FORMAT, "%s: corrupt: section END holds %llu bytes, not 4", r->path,
                            (unsigned long long)len);
            FORWARD_IF_ERROR(gbt__binary_read_exact(r->f, r->path, c, 4, "section END"));
            RETURN_ERROR_IF(gbt__le32(c) != want, GBT_E_FORMAT,
                            "%s: corrupt: checksum mismatch (CRC-32 %08x stored, %08x computed over the %llu bytes "
                            "before section END)",
                            r->path, (unsigned)gbt__le32(c), (unsigned)want, (unsigned long long)r->offset);
            RETURN_ERROR_IF(fgetc(r->f) != EOF, GBT_E_FORMAT, "%s: corrupt: bytes after section END", r->path);
            return GBT_OK;
        }
        gbt__crc32_update(&r->crc, b, 12);
        r->offset += 12;
        FORWARD_IF_ERROR(v2_section(r, tag, len, p));
    }
}

/* ------------------------------------------------------------------ */
/* Sniffing and loading                                                */
/* ------------------------------------------------------------------ */

/* The version of a binary file's magic (1..9), or 0 when b is not one. */
static int magic_version(const unsigned char *b, size_t n)
{
    if (n < GBT_BINARY_MAGIC_LEN || memcmp(b, GBT_BINARY_MAGIC, 7) != 0 || b[8] != '\n') return 0;
    return b[7] >= '1' && b[7] <= '9' ? b[7] - '0' : 0;
}

/* Opens path and reads its first bytes; *version 0 when it is not a binary dataset. */
static gbt_status open_binary(const char *path, FILE **out, unsigned char *magic, int *version, uint64_t *size)
{
    struct stat st;
    size_t n;
    FILE *f = fopen(path, "rb");
    RETURN_ERROR_IF(f == NULL, errno == ENOMEM ? GBT_E_NO_MEMORY : GBT_E_IO, "cannot open '%s': %s", path,
                    strerror(errno));
    *size = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
    n = fread(magic, 1, GBT_BINARY_MAGIC_LEN, f);
    *version = magic_version(magic, n);
    *out = f;
    return GBT_OK;
}

gbt_status gbt_dataset_is_binary(const char *path, int *out)
{
    FILE *f;
    unsigned char magic[GBT_BINARY_MAGIC_LEN];
    int version;
    uint64_t size;
    CHECK_NOT_NULL(path);
    CHECK_NOT_NULL(out);
    FORWARD_IF_ERROR(open_binary(path, &f, magic, &version, &size));
    fclose(f);
    *out = version != 0;
    return GBT_OK;
}

gbt_status gbt_dataset_load_binary(const char *path, gbt_dataset **out)
{
    FILE *f;
    unsigned char magic[GBT_BINARY_MAGIC_LEN];
    int version;
    uint64_t size;
    struct gbt_binary_parts p;
    gbt_status s;
    CHECK_NOT_NULL(path);
    CHECK_NOT_NULL(out);
    memset(&p, 0, sizeof p);
    FORWARD_IF_ERROR(open_binary(path, &f, magic, &version, &size));
    if (version == 1) {
        s = gbt__binary_read_v1(f, path, size, &p);
    } else if (version == 2) {
        struct v2_reader r = {f, path, GBT_BINARY_MAGIC_LEN, size, {{{0}}, 0}};
        gbt__crc32_init(&r.crc);
        s = read_v2(&r, magic, &p);
    } else if (version > GBT_BINARY_VERSION) {
        s = gbt__fail(GBT_E_FORMAT, "%s: a binary dataset of format version %d; this gbt reads versions 1 to %d "
                      "(save it again with this gbt, or use a newer one)", path, version, GBT_BINARY_VERSION);
    } else {
        s = gbt__fail(GBT_E_FORMAT, "%s: not a gbt binary dataset (it does not start with \"GBTDMAT\", a version "
                      "digit and a newline)", path);
    }
    fclose(f);
    if (s != GBT_OK) {
        gbt__binary_parts_free(&p);
        return s;
    }
    return gbt__binary_build(&p, path, out);
}
