/*
 * binary_write.c - gbt_dataset_save_binary: a dataset whole, as version 2
 * of the binary dataset files (docs/binary-format.md), written through
 * outfile.h (a regular file is replaced atomically).
 */
#include <stdlib.h>
#include <string.h>

#include "data/binary.h"
#include "util/crc32.h"
#include "util/outfile.h"
#include "util/util.h"

#define WBUF ((size_t)1 << 16)

struct writer {
    struct gbt_outfile out;
    const char *path;
    struct gbt_crc32 crc;
    unsigned char *buf; /* WBUF bytes not yet written */
    size_t n;
    int failed; /* msg holds why */
    char msg[1024];
};

static void flush(struct writer *w)
{
    if (!w->failed && w->n && gbt__outfile_write(&w->out, w->path, w->buf, w->n, w->msg, sizeof w->msg) != 0)
        w->failed = 1;
    w->n = 0;
}

/* Appends `count` elements of `size` bytes, in little-endian order, to the file and its checksum. */
static void put(struct writer *w, const void *p, uint64_t count, size_t size)
{
    const unsigned char *b = p;
    uint64_t bytes = count * size;
    while (bytes > 0 && !w->failed) {
        size_t k;
        if (WBUF - w->n < size) flush(w);
        k = WBUF - w->n < bytes ? WBUF - w->n : (size_t)bytes;
        k -= k % size;
        memcpy(w->buf + w->n, b, k);
        gbt__binary_swap_le(w->buf + w->n, k / size, size);
        gbt__crc32_update(&w->crc, w->buf + w->n, k);
        w->n += k;
        b += k;
        bytes -= k;
    }
}

static void put_u64(struct writer *w, uint64_t v)
{
    put(w, &v, 1, 8);
}

/* A section: its tag, its length in bytes, then (the caller's) payload. */
static void section(struct writer *w, const char *tag, uint64_t bytes)
{
    put(w, tag, 4, 1);
    put_u64(w, bytes);
}

static void array(struct writer *w, const char *tag, const void *p, uint64_t count, size_t size)
{
    if (p == NULL || count == 0) return;
    section(w, tag, count * size);
    put(w, p, count, size);
}

static void names(struct writer *w, const gbt_dataset *d)
{
    uint64_t bytes = 0;
    if (d->nfeature_names == 0) return;
    for (uint64_t i = 0; i < d->nfeature_names; i++) bytes += 4 + strlen(d->feature_names[i]);
    section(w, "NAME", bytes);
    for (uint64_t i = 0; i < d->nfeature_names; i++) {
        const uint32_t k = (uint32_t)strlen(d->feature_names[i]);
        put(w, &k, 1, 4);
        put(w, d->feature_names[i], k, 1);
    }
}

static void origin(struct writer *w, const gbt_dataset *d)
{
    unsigned char b[4];
    if (d->layout.format == GBT_FILE_NONE && d->index_base == GBT_BASE_NONE) return;
    b[0] = (unsigned char)d->layout.format;
    b[1] = (unsigned char)d->layout.delim;
    b[2] = (unsigned char)d->layout.header;
    b[3] = (unsigned char)d->index_base;
    section(w, "ORIG", 12);
    put(w, b, 4, 1);
    put_u64(w, (uint64_t)d->layout.label_column);
}

static void write_all(struct writer *w, const gbt_dataset *d)
{
    static const char *const field_tags[GBT_BINARY_NFIELDS] = {"LABL", "WGHT", "BMAR", "LLOW", "LUPP"};
    const float *fields[GBT_BINARY_NFIELDS] = {d->label, d->weight, d->base_margin, d->label_lower, d->label_upper};
    const uint64_t nfields[GBT_BINARY_NFIELDS] = {d->nrow * (uint64_t)gbt__dataset_targets(d), d->nrow,
                                                  d->nbase_margin, d->nrow, d->nrow};
    char magic[GBT_BINARY_MAGIC_LEN + 1];
    snprintf(magic, sizeof magic, "%s%d\n", GBT_BINARY_MAGIC, GBT_BINARY_VERSION);
    put(w, magic, GBT_BINARY_MAGIC_LEN, 1);
    put_u64(w, d->nrow);
    put_u64(w, d->ncol);
    if (d->dense) {
        array(w, "DENS", d->dense, d->nrow * d->ncol, 4);
    } else {
        array(w, "CSRP", d->indptr, d->nrow + 1, 8);
        section(w, "CSRI", d->nnz * 4);
        put(w, d->indices, d->nnz, 4);
        section(w, "CSRV", d->nnz * 4);
        put(w, d->values, d->nnz, 4);
    }
    for (int i = 0; i < GBT_BINARY_NFIELDS; i++) array(w, field_tags[i], fields[i], nfields[i], 4);
    array(w, "GRUP", d->groups, d->ngroups, 4);
    array(w, "FWGT", d->feature_weights, d->ncol, 4);
    names(w, d);
    array(w, "TYPE", d->feature_types, d->ncol, 1);
    origin(w, d);
    if (d->category_names) array(w, "CATS", d->category_names, strlen(d->category_names), 1);
    {
        const uint32_t crc = w->crc.value;
        section(w, "END ", 4);
        put(w, &crc, 1, 4);
    }
    flush(w);
}

gbt_status gbt_dataset_save_binary(const gbt_dataset *d, const char *path)
{
    struct writer *w;
    gbt_status s = GBT_OK;
    int r;
    CHECK_NOT_NULL(d);
    CHECK_NOT_NULL(path);
    FORWARD_IF_ERROR(gbt__dataset_need_values(d, "gbt_dataset_save_binary"));
    FORWARD_IF_ERROR(gbt__alloc(&w, 1, sizeof *w, 1, "binary dataset writer"));
    w->path = path;
    gbt__crc32_init(&w->crc);
    s = gbt__alloc(&w->buf, WBUF, 1, 0, "binary dataset writer");
    if (s == GBT_OK && (r = gbt__outfile_open(&w->out, path, w->msg, sizeof w->msg)) != 0)
        s = gbt__fail(r == -2 ? GBT_E_NO_MEMORY : GBT_E_IO, "%s", w->msg);
    if (s == GBT_OK) {
        write_all(w, d);
        if (w->failed) {
            gbt__outfile_abort(&w->out);
            s = gbt__fail(GBT_E_IO, "%s", w->msg);
        } else if (gbt__outfile_commit(&w->out, path, w->msg, sizeof w->msg) != 0) {
            s = gbt__fail(GBT_E_IO, "%s", w->msg);
        }
    }
    free(w->buf);
    free(w);
    return s;
}
