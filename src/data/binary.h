/*
 * binary.h - the binary dataset files (docs/binary-format.md): what the
 * readers of each version hand to the one builder of the dataset.
 *
 *   binary.c         the field names, byte order and exact reads they share
 *   binary_read.c    gbt_dataset_is_binary, gbt_dataset_load_binary: the
 *                    magic, the version, the builder, version 2's reader
 *   binary_npz.c     version 1's reader (a NumPy .npz archive, as the
 *                    Python package wrote it before version 2)
 *   binary_write.c   gbt_dataset_save_binary (version 2)
 */
#ifndef GBT_BINARY_H
#define GBT_BINARY_H

#include <stdint.h>
#include <stdio.h>

#include "data/dataset.h"

/* "GBTDMAT" + the version as one ASCII digit + "\n". */
#define GBT_BINARY_MAGIC "GBTDMAT"
#define GBT_BINARY_MAGIC_LEN 9
#define GBT_BINARY_VERSION 2

/* The per-row float fields a file may hold, in the order of struct gbt_binary_parts' field[]. */
#define GBT_BINARY_NFIELDS 5
extern const char *const gbt__binary_fields[GBT_BINARY_NFIELDS];

/*
 * A dataset as read from a file, before it is checked: every array
 * malloc'ed or NULL (absent).  gbt__binary_build checks it and makes the
 * dataset, taking the feature arrays; gbt__binary_parts_free frees the rest.
 */
struct gbt_binary_parts {
    int have_shape;
    uint64_t nrow, ncol;
    float *dense;                       /* nrow * ncol, NaN missing */
    uint64_t ndense;
    uint64_t *indptr;                   /* CSR: nindptr == nrow + 1 */
    uint64_t nindptr;
    uint32_t *indices;                  /* nindices == nvalues == indptr[nrow] */
    uint64_t nindices;
    float *values;
    uint64_t nvalues;
    float *field[GBT_BINARY_NFIELDS];   /* gbt__binary_fields' order */
    uint64_t nfield[GBT_BINARY_NFIELDS];
    uint32_t *groups;
    uint64_t ngroups;
    float *feature_weights;
    uint64_t nfeature_weights;
    char **names;                       /* nnames UTF-8 strings */
    uint64_t nnames;
    uint8_t *types;                     /* ntypes entries: enum gbt_feature_type */
    uint64_t ntypes;
    char *cats;                         /* the category names' JSON text (NUL-terminated), or NULL */
    int have_origin;                    /* the file the data was first read from */
    struct gbt_file_layout layout;
    int index_base;
};

/*
 * Makes the dataset of p (read from `path`, named by every message):
 * the shape, the feature arrays and each field checked as the C API
 * checks them.  Frees p either way.
 */
gbt_status gbt__binary_build(struct gbt_binary_parts *p, const char *path, gbt_dataset **out);

void gbt__binary_parts_free(struct gbt_binary_parts *p);

/*
 * Reads the rest of a version-1 file (f just after its magic; `size` the
 * file's size in bytes) into p.
 */
gbt_status gbt__binary_read_v1(FILE *f, const char *path, uint64_t size, struct gbt_binary_parts *p);

/* Reads n bytes from f into buf: a short read is a truncated file (message naming path and `what`). */
gbt_status gbt__binary_read_exact(FILE *f, const char *path, void *buf, size_t n, const char *what);

/* Little-endian numbers in byte arrays, whatever the host's order. */
static inline uint16_t gbt__le16(const unsigned char *b)
{
    return (uint16_t)(b[0] | (unsigned)b[1] << 8);
}
static inline uint32_t gbt__le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t gbt__le64(const unsigned char *b)
{
    return (uint64_t)gbt__le32(b) | (uint64_t)gbt__le32(b + 4) << 32;
}

/*
 * Converts n elements of `size` bytes (2, 4 or 8) at p between little-endian
 * and the host's order, in place (nothing to do on a little-endian host).
 */
void gbt__binary_swap_le(void *p, uint64_t n, size_t size);

#endif
