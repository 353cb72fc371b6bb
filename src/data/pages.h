/*
 * pages.h - pages of the binned matrix on disk (XGBoost's external-memory
 * cache): a dataset made from batches with a cache prefix
 * (gbt_dataset_from_iter_ext) writes each batch's binned rows as one page
 * of a file under that prefix, and keeps only the cuts in memory.
 *
 * The file, `PREFIX-gbt-PID-N.pages` (PREFIX ending in '/': no '-'), is
 * created new (O_EXCL: an existing file is never written over; N counts up
 * until the name is free) and removed when the dataset, and any training
 * streaming it, is done with it (binned.h's references).  Each
 * page is a header (the tag "GBTPAGE\0", the format version, the page's
 * index, its first row and row count, the layout, the feature count, the
 * count of its values, a hash of the cuts and the total shape, and the
 * dataset's own number), the codes (dense: nrow x nfeat of 1 or 2 bytes;
 * CSR: nrow + 1 row offsets of 8 bytes from 0, then the slots of 4 bytes),
 * all in the host's byte order (the file lives no longer than the process),
 * and a CRC-32 of the header and the codes.  Reading a page checks all of
 * it against what was written, and every code against the cuts: a page of
 * another dataset or of other cuts is stale, a short file truncated, a
 * wrong checksum corrupt (GBT_E_FORMAT, naming the file, the page and the
 * fault).
 */
#ifndef GBT_PAGES_H
#define GBT_PAGES_H

#include <stdint.h>

#include "data/quantize.h"

struct gbt_pages;

/*
 * A new, empty page file under prefix for the binned matrix q (its cuts,
 * layout and total nrow; no codes needed).  GBT_E_IO naming the path when
 * it cannot be created.
 */
gbt_status gbt__pages_create(const char *prefix, const struct gbt_qmatrix *q, struct gbt_pages **out);

/* Appends the next page: part's codes (or CSR rows) for its nrow rows, in q's layout. */
gbt_status gbt__pages_write(struct gbt_pages *p, const struct gbt_qmatrix *part);

/* Flushes and closes the file once every row is written (GBT_E_IO on a failed write). */
gbt_status gbt__pages_close(struct gbt_pages *p);

/* The file's path and its number of pages. */
const char *gbt__pages_path(const struct gbt_pages *p);
uint64_t gbt__pages_count(const struct gbt_pages *p);

/*
 * The binned matrix read back whole: out gets a copy of q's cuts and every
 * page's codes, each page checked as above.
 */
gbt_status gbt__pages_load(const struct gbt_pages *p, const struct gbt_qmatrix *q, struct gbt_qmatrix *out);

/*
 * Reading the pages one at a time, for a training that streams them (the
 * CPU backend): a reader holds the open file and a buffer the size of the
 * largest page.  gbt__pages_reader_read reads page i (pread at its
 * offset) with every check of gbt__pages_load (the checksum: see
 * gbt__pages_reader_recheck), into the reader's buffer: *page is that page
 * alone (nrow its rows, CSR row offsets from 0, cuts a copy of q's
 * pointers), valid until the next read; *row_begin its first row in the
 * matrix.
 */
struct gbt_page_reader;
gbt_status gbt__pages_reader_open(const struct gbt_pages *p, const struct gbt_qmatrix *q,
                                  struct gbt_page_reader **out);
gbt_status gbt__pages_reader_read(struct gbt_page_reader *r, uint64_t i, const struct gbt_qmatrix **page,
                                  uint64_t *row_begin);
void gbt__pages_reader_close(struct gbt_page_reader *r);

/*
 * A reader sums a page's bytes against its checksum at the page's first
 * read, and again after this call or once the file's identity (fstat:
 * device, inode, size, modification and change times) differs from the
 * one at the last read; every other check (header, codes within the cuts,
 * length) is made at every read.  The CPU backend calls this at each tree.
 */
void gbt__pages_reader_recheck(struct gbt_page_reader *r);

/* Page i's first row (i = the page count: the row count). */
uint64_t gbt__pages_row_begin(const struct gbt_pages *p, uint64_t i);

/* The bytes of the largest page's codes (a reader's buffer). */
uint64_t gbt__pages_max_page_bytes(const struct gbt_pages *p);

/* Closes and removes the file, and frees p (NULL: nothing). */
void gbt__pages_free(struct gbt_pages *p);

#endif
