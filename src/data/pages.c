/*
 * pages.c - pages of the binned matrix on disk (pages.h): the file
 * created new under the caller's prefix, pages appended with their
 * headers and checksums, read back with every check, removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "data/pages.h"
#include "util/crc32.h"
#include "util/util.h"

#define PAGE_TAG "GBTPAGE"
#define PAGE_VERSION 1u
enum { HEADER_WORDS = 10, HEADER_BYTES = HEADER_WORDS * 8 };

struct gbt_pages {
    char *path;
    FILE *f;                /* open while pages are written */
    uint64_t cuts_hash, id; /* in every header */
    uint64_t nrow, nnz;     /* rows and (CSR) values written so far */
    uint64_t total_rows;
    int layout;
    uint32_t nfeat;
    uint64_t npage, cap;
    uint64_t *row_begin, *val_begin; /* per page, npage + 1: its first row and (CSR) value */
};

static atomic_uint_fast64_t file_seq;

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

static uint64_t cuts_hash(const struct gbt_qmatrix *q)
{
    const struct gbt_cuts *c = &q->cuts;
    uint64_t h = 14695981039346656037ull, shape[4] = {c->nfeat, c->total_slots, (uint64_t)q->layout, q->nrow};
    h = fnv(h, shape, sizeof shape);
    h = fnv(h, c->offset, (c->nfeat + 1) * sizeof *c->offset);
    h = fnv(h, c->nbins, c->nfeat * sizeof *c->nbins);
    h = fnv(h, c->cut, c->total_slots * sizeof *c->cut);
    h = fnv(h, c->has_missing, c->nfeat);
    if (c->is_cat) h = fnv(h, c->is_cat, c->nfeat);
    return h;
}

/* A page's value count: CSR slots, or cells. */
static uint64_t page_values(const struct gbt_pages *p, uint64_t nrow, uint64_t nnz)
{
    return p->layout == GBT_QM_CSR ? nnz : nrow * p->nfeat;
}

static void header_fill(const struct gbt_pages *p, uint64_t i, uint64_t row_begin, uint64_t nrow, uint64_t nval,
                        uint64_t h[HEADER_WORDS])
{
    const uint32_t vl[2] = {PAGE_VERSION, (uint32_t)p->layout};
    memset(h, 0, HEADER_BYTES);
    memcpy(h, PAGE_TAG, sizeof PAGE_TAG);
    memcpy(&h[1], vl, sizeof vl);
    h[2] = i;
    h[3] = row_begin;
    h[4] = nrow;
    h[5] = p->nfeat;
    h[6] = nval;
    h[7] = p->cuts_hash;
    h[8] = p->id;
    h[9] = p->total_rows;
}

gbt_status gbt__pages_create(const char *prefix, const struct gbt_qmatrix *q, struct gbt_pages **out)
{
    struct gbt_pages *p = NULL;
    const size_t n = strlen(prefix);
    const char *dash = n > 0 && prefix[n - 1] != '/' ? "-" : "";
    int fd = -1;
    gbt_status s;
    *out = NULL;
    FORWARD_IF_ERROR(gbt__alloc(&p, 1, sizeof *p, 1, "page store"));
    s = gbt__alloc(&p->path, n + 64, 1, 0, "page file name");
    for (int tries = 0; s == GBT_OK && fd < 0 && tries < 1000; tries++) {
        snprintf(p->path, n + 64, "%s%sgbt-%ld-%llu.pages", prefix, dash, (long)getpid(),
                 (unsigned long long)atomic_fetch_add(&file_seq, 1));
        fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno != EEXIST)
            s = gbt__fail(GBT_E_IO, "cannot create the page file '%s' (cache prefix '%s'): %s", p->path, prefix,
                          strerror(errno));
    }
    if (s == GBT_OK && fd < 0)
        s = gbt__fail(GBT_E_IO, "cannot create a page file under the cache prefix '%s': every name tried exists",
                      prefix);
    if (s == GBT_OK && (p->f = fdopen(fd, "wb")) == NULL) {
        s = gbt__fail(GBT_E_IO, "cannot open the page file '%s': %s", p->path, strerror(errno));
        close(fd);
        unlink(p->path);
    }
    if (s != GBT_OK) {
        free(p->path);
        free(p);
        return s;
    }
    p->layout = q->layout;
    p->nfeat = q->cuts.nfeat;
    p->total_rows = q->nrow;
    p->cuts_hash = cuts_hash(q);
    {
        /* this dataset's number: a page of another one (even of the same cuts) is stale */
        const uint64_t mix[4] = {(uint64_t)getpid(), (uint64_t)time(NULL), (uint64_t)(uintptr_t)p,
                                 (uint64_t)atomic_load(&file_seq)};
        p->id = fnv(p->cuts_hash, mix, sizeof mix);
    }
    *out = p;
    return GBT_OK;
}

static gbt_status write_all(struct gbt_pages *p, struct gbt_crc32 *crc, const void *v, size_t n)
{
    gbt__crc32_update(crc, v, n);
    RETURN_ERROR_IF(n && fwrite(v, 1, n, p->f) != n, GBT_E_IO, "cannot write the page file '%s': %s", p->path,
                    strerror(errno));
    return GBT_OK;
}

gbt_status gbt__pages_write(struct gbt_pages *p, const struct gbt_qmatrix *part)
{
    struct gbt_crc32 crc;
    uint64_t h[HEADER_WORDS];
    const uint64_t nrow = part->nrow, nnz = p->layout == GBT_QM_CSR ? part->row_ptr[nrow] : 0;
    const uint64_t nval = page_values(p, nrow, nnz);
    RETURN_ERROR_IF(p->f == NULL, GBT_E_INVALID_ARG, "the page file '%s' is closed", p->path);
    if (p->npage + 1 >= p->cap) {
        const uint64_t cap = p->cap ? 2 * p->cap : 16;
        uint64_t **arr[2] = {&p->row_begin, &p->val_begin};
        for (int k = 0; k < 2; k++) {
            uint64_t *grown = realloc(*arr[k], cap * sizeof **arr[k]);
            RETURN_ERROR_IF(grown == NULL, GBT_E_NO_MEMORY, "out of memory for the page index");
            if (p->cap == 0) grown[0] = 0;
            *arr[k] = grown;
        }
        p->cap = cap;
    }
    gbt__crc32_init(&crc);
    header_fill(p, p->npage, p->nrow, nrow, nval, h);
    FORWARD_IF_ERROR(write_all(p, &crc, h, HEADER_BYTES));
    if (p->layout == GBT_QM_CSR) {
        FORWARD_IF_ERROR(write_all(p, &crc, part->row_ptr, (nrow + 1) * sizeof *part->row_ptr));
        FORWARD_IF_ERROR(write_all(p, &crc, part->slots, nval * sizeof *part->slots));
    } else if (p->layout == GBT_QM_DENSE8) {
        FORWARD_IF_ERROR(write_all(p, &crc, part->codes8, nval));
    } else {
        FORWARD_IF_ERROR(write_all(p, &crc, part->codes16, nval * sizeof *part->codes16));
    }
    {
        const uint32_t sum = crc.value;
        FORWARD_IF_ERROR(write_all(p, &crc, &sum, sizeof sum));
    }
    p->nrow += nrow;
    p->nnz += nnz;
    p->npage++;
    p->row_begin[p->npage] = p->nrow;
    p->val_begin[p->npage] = p->nnz;
    return GBT_OK;
}

gbt_status gbt__pages_close(struct gbt_pages *p)
{
    int bad;
    if (p->f == NULL) return GBT_OK;
    bad = fclose(p->f) != 0;
    p->f = NULL;
    RETURN_ERROR_IF(bad, GBT_E_IO, "cannot write the page file '%s': %s", p->path, strerror(errno));
    RETURN_ERROR_IF(p->nrow != p->total_rows, GBT_E_INVALID_ARG, "the page file '%s' has %llu rows of %llu",
                    p->path, (unsigned long long)p->nrow, (unsigned long long)p->total_rows);
    return GBT_OK;
}

const char *gbt__pages_path(const struct gbt_pages *p)
{
    return p->path;
}

uint64_t gbt__pages_count(const struct gbt_pages *p)
{
    return p->npage;
}

/*
 * Whether any of a's n codes is above lim's (n within lim's length): in
 * blocks of a fixed count into as many flags, which the compiler turns
 * into vector compares.
 */
static int over8(const uint8_t *restrict a, const uint8_t *restrict lim, size_t n)
{
    uint8_t acc[64] = {0};
    unsigned any = 0;
    size_t j = 0;
    for (; j + 64 <= n; j += 64)
        for (int k = 0; k < 64; k++) acc[k] |= (uint8_t)(a[j + k] > lim[j + k]);
    for (int k = 0; k < 64; k++) any |= acc[k];
    for (; j < n; j++) any |= a[j] > lim[j];
    return any != 0;
}

static int over16(const uint16_t *restrict a, const uint16_t *restrict lim, size_t n)
{
    uint16_t acc[32] = {0};
    unsigned any = 0;
    size_t j = 0;
    for (; j + 32 <= n; j += 32)
        for (int k = 0; k < 32; k++) acc[k] |= (uint16_t)(a[j + k] > lim[j + k]);
    for (int k = 0; k < 32; k++) any |= acc[k];
    for (; j < n; j++) any |= a[j] > lim[j];
    return any != 0;
}

/* Whether any of a's n slots is lim or more. */
static int over32(const uint32_t *restrict a, uint32_t lim, size_t n)
{
    uint32_t acc[16] = {0};
    unsigned any = 0;
    size_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) acc[k] |= (uint32_t)(a[j + k] >= lim);
    for (int k = 0; k < 16; k++) any |= acc[k];
    for (; j < n; j++) any |= a[j] >= lim;
    return any != 0;
}

/* Rows of a dense layout's code limits (each row: every feature's bin count, its missing code). */
enum { LIMIT_ROWS = 64 };

/*
 * The largest code of each cell of LIMIT_ROWS rows, row after row (a dense
 * layout; NULL for CSR), so that a block of rows is checked as one run: a
 * feature's bin count (its missing code), or the largest code the width
 * holds when that is less (256 bins and no missing value: codes 0 to 255).
 */
static gbt_status limits_make(const struct gbt_pages *p, const struct gbt_cuts *c, void **out)
{
    const size_t nf = p->nfeat, cells = (size_t)LIMIT_ROWS * nf;
    *out = NULL;
    if (p->layout == GBT_QM_CSR) return GBT_OK;
    if (p->layout == GBT_QM_DENSE8) {
        uint8_t *l;
        FORWARD_IF_ERROR(gbt__alloc(&l, cells ? cells : 1, 1, 0, "a page's code limits"));
        for (size_t k = 0; k < cells; k++) l[k] = (uint8_t)(c->nbins[k % nf] < 255 ? c->nbins[k % nf] : 255);
        *out = l;
    } else {
        uint16_t *l;
        FORWARD_IF_ERROR(gbt__alloc(&l, cells ? cells : 1, 2, 0, "a page's code limits"));
        for (size_t k = 0; k < cells; k++) l[k] = (uint16_t)(c->nbins[k % nf] < 65535 ? c->nbins[k % nf] : 65535);
        *out = l;
    }
    return GBT_OK;
}

/*
 * Whether any code of out's rows [r0, r1) (CSR: slots [v0, v1)) is outside
 * the cuts (c: out's own may be unset; lim: limits_make's).
 */
static int codes_bad(const struct gbt_pages *p, const struct gbt_cuts *c, const void *lim,
                     const struct gbt_qmatrix *out, uint64_t r0, uint64_t r1, uint64_t v0, uint64_t v1)
{
    const uint64_t nf = p->nfeat;
    int bad = 0;
    if (p->layout == GBT_QM_CSR) {
        bad |= out->row_ptr[r0] != v0;
        for (uint64_t r = r0; r < r1; r++) bad |= out->row_ptr[r + 1] < out->row_ptr[r];
        bad |= out->row_ptr[r1] != v1;
        bad |= over32(out->slots + v0, c->total_slots, v1 - v0);
    } else {
        for (uint64_t r = r0; r < r1; r += LIMIT_ROWS) {
            const size_t cells = (size_t)((r1 - r < LIMIT_ROWS ? r1 - r : LIMIT_ROWS) * nf);
            bad |= p->layout == GBT_QM_DENSE8 ? over8(out->codes8 + r * nf, lim, cells)
                                              : over16(out->codes16 + r * nf, lim, cells);
        }
    }
    return bad;
}

static gbt_status codes_error(const struct gbt_pages *p, uint64_t i)
{
    return gbt__fail(GBT_E_FORMAT, "page file '%s', page %llu: a code out of the cuts' range (corrupt)", p->path,
                     (unsigned long long)i);
}

static gbt_status sum_error(const struct gbt_pages *p, uint64_t i, uint32_t stored, uint32_t sum)
{
    return gbt__fail(GBT_E_FORMAT,
                     "page file '%s', page %llu: checksum mismatch (stored %08x, computed %08x): the file is corrupt",
                     p->path, (unsigned long long)i, stored, sum);
}

static gbt_status short_error(const struct gbt_pages *p, uint64_t i, const char *why)
{
    return gbt__fail(GBT_E_FORMAT,
                     "page file '%s', page %llu: %s: the file was cut short or replaced since it was written", p->path,
                     (unsigned long long)i, why);
}

static gbt_status tail_error(const struct gbt_pages *p)
{
    return gbt__fail(GBT_E_FORMAT, "page file '%s': bytes after its %llu pages: the file was replaced", p->path,
                     (unsigned long long)p->npage);
}

/* Reads n bytes of page i into v, adding them to the checksum crc (NULL: none). */
static gbt_status read_all(const struct gbt_pages *p, FILE *f, uint64_t i, struct gbt_crc32 *crc, void *v, size_t n)
{
    if (n && fread(v, 1, n, f) != n) return short_error(p, i, ferror(f) ? strerror(errno) : "truncated");
    if (crc) gbt__crc32_update(crc, v, n);
    return GBT_OK;
}

/* Page i's header against the one written. */
static gbt_status check_header(const struct gbt_pages *p, uint64_t i, const uint64_t got[HEADER_WORDS])
{
    uint64_t want[HEADER_WORDS];
    const uint64_t nrow = p->row_begin[i + 1] - p->row_begin[i];
    uint32_t vl[2];
    header_fill(p, i, p->row_begin[i], nrow, page_values(p, nrow, p->val_begin[i + 1] - p->val_begin[i]), want);
    memcpy(vl, &got[1], sizeof vl);
    RETURN_ERROR_IF(memcmp(got, PAGE_TAG, sizeof PAGE_TAG) != 0, GBT_E_FORMAT,
                    "page file '%s', page %llu: no page header there (not a gbt page file, or overwritten)", p->path,
                    (unsigned long long)i);
    RETURN_ERROR_IF(vl[0] != PAGE_VERSION, GBT_E_FORMAT, "page file '%s', page %llu: format version %u, not %u",
                    p->path, (unsigned long long)i, vl[0], PAGE_VERSION);
    RETURN_ERROR_IF(got[7] != want[7], GBT_E_FORMAT,
                    "page file '%s', page %llu: stale: binned with other cuts or another shape than this dataset's",
                    p->path, (unsigned long long)i);
    RETURN_ERROR_IF(got[8] != want[8], GBT_E_FORMAT,
                    "page file '%s', page %llu: stale: written for another dataset", p->path, (unsigned long long)i);
    RETURN_ERROR_IF(memcmp(got, want, HEADER_BYTES) != 0, GBT_E_FORMAT,
                    "page file '%s', page %llu: the header says page %llu of rows [%llu, +%llu), %llu values, "
                    "layout %u; this dataset wrote page %llu of rows [%llu, +%llu), %llu values, layout %d",
                    p->path, (unsigned long long)i, (unsigned long long)got[2], (unsigned long long)got[3],
                    (unsigned long long)got[4], (unsigned long long)got[6], vl[1], (unsigned long long)i,
                    (unsigned long long)want[3], (unsigned long long)want[4], (unsigned long long)want[6], p->layout);
    return GBT_OK;
}

/*
 * Page i read, with every check, into out's rows from r0 (CSR: its values
 * from v0; out->row_ptr[r0] == v0 already): the whole matrix's place of
 * the page (lim: limits_make's).
 */
static gbt_status read_page(const struct gbt_pages *p, FILE *f, uint64_t i, const struct gbt_cuts *c,
                            const void *lim, struct gbt_qmatrix *out, uint64_t r0, uint64_t v0)
{
    struct gbt_crc32 crc, *k = &crc;
    uint64_t h[HEADER_WORDS];
    const uint64_t n = p->row_begin[i + 1] - p->row_begin[i], nv = p->val_begin[i + 1] - p->val_begin[i];
    const uint64_t nf = p->nfeat;
    uint32_t stored;
    gbt__crc32_init(k);
    FORWARD_IF_ERROR(read_all(p, f, i, k, h, HEADER_BYTES));
    FORWARD_IF_ERROR(check_header(p, i, h));
    if (p->layout == GBT_QM_CSR) {
        FORWARD_IF_ERROR(read_all(p, f, i, k, out->row_ptr + r0, (n + 1) * 8));
        for (uint64_t r = r0; r <= r0 + n; r++) out->row_ptr[r] += v0; /* page offsets from 0 */
        FORWARD_IF_ERROR(read_all(p, f, i, k, out->slots + v0, nv * 4));
    } else if (p->layout == GBT_QM_DENSE8) {
        FORWARD_IF_ERROR(read_all(p, f, i, k, out->codes8 + r0 * nf, n * nf));
    } else {
        FORWARD_IF_ERROR(read_all(p, f, i, k, out->codes16 + r0 * nf, n * nf * 2));
    }
    FORWARD_IF_ERROR(read_all(p, f, i, NULL, &stored, sizeof stored));
    if (stored != crc.value) return sum_error(p, i, stored, crc.value);
    if (codes_bad(p, c, lim, out, r0, r0 + n, v0, v0 + nv)) return codes_error(p, i);
    if (i + 1 == p->npage && fgetc(f) != EOF) return tail_error(p);
    return GBT_OK;
}

#define DUP(dst, src, n)                                                                    \
    do {                                                                                    \
        if ((src) != NULL) {                                                                \
            FORWARD_IF_ERROR(gbt__alloc(&(dst), (n) ? (n) : 1, sizeof *(src), 0, "cuts")); \
            memcpy((dst), (src), (n) * sizeof *(src));                                      \
        }                                                                                   \
    } while (0)

static gbt_status cuts_copy(struct gbt_cuts *to, const struct gbt_cuts *c)
{
    to->nfeat = c->nfeat;
    to->total_slots = c->total_slots;
    DUP(to->offset, c->offset, c->nfeat + 1u);
    DUP(to->nbins, c->nbins, c->nfeat);
    DUP(to->cut, c->cut, c->total_slots);
    DUP(to->has_missing, c->has_missing, c->nfeat);
    DUP(to->is_cat, c->is_cat, c->nfeat);
    DUP(to->category, c->category, c->total_slots);
    return GBT_OK;
}

static gbt_status load(const struct gbt_pages *p, const struct gbt_qmatrix *q, struct gbt_qmatrix *out)
{
    const uint64_t n = p->nrow, nf = p->nfeat, cells = n * nf > 0 ? n * nf : 1;
    FILE *f;
    void *lim;
    gbt_status s = GBT_OK;
    RETURN_ERROR_IF(p->f != NULL, GBT_E_INVALID_ARG, "the page file '%s' is still being written", p->path);
    FORWARD_IF_ERROR(cuts_copy(&out->cuts, &q->cuts));
    out->nrow = n;
    out->layout = p->layout;
    if (p->layout == GBT_QM_CSR) {
        FORWARD_IF_ERROR(gbt__alloc(&out->row_ptr, n + 1, sizeof *out->row_ptr, 1, "binned rows"));
        FORWARD_IF_ERROR(gbt__alloc(&out->slots, p->nnz ? p->nnz : 1, sizeof *out->slots, 0, "binned values"));
    } else if (p->layout == GBT_QM_DENSE8) {
        FORWARD_IF_ERROR(gbt__alloc(&out->codes8, cells, 1, 0, "binned matrix"));
    } else {
        FORWARD_IF_ERROR(gbt__alloc(&out->codes16, cells, 2, 0, "binned matrix"));
    }
    FORWARD_IF_ERROR(limits_make(p, &out->cuts, &lim));
    f = fopen(p->path, "rb");
    if (f == NULL) {
        free(lim);
        return gbt__fail(GBT_E_IO, "cannot open the page file '%s': %s", p->path, strerror(errno));
    }
    for (uint64_t i = 0; s == GBT_OK && i < p->npage; i++)
        s = read_page(p, f, i, &out->cuts, lim, out, p->row_begin[i], p->val_begin[i]);
    fclose(f);
    free(lim);
    return s;
}

gbt_status gbt__pages_load(const struct gbt_pages *p, const struct gbt_qmatrix *q, struct gbt_qmatrix *out)
{
    gbt_status s;
    memset(out, 0, sizeof *out);
    s = load(p, q, out);
    if (s != GBT_OK) gbt__qmatrix_free(out);
    return s;
}

void gbt__pages_free(struct gbt_pages *p)
{
    if (p == NULL) return;
    if (p->f) fclose(p->f);
    unlink(p->path);
    free(p->path);
    free(p->row_begin);
    free(p->val_begin);
    free(p);
}

/*
 * A reader reads a page with pread at its offset.  The checksum verdicts:
 * a page whose checksum matched is not summed again until
 * gbt__pages_reader_recheck, as long as the file is the one it was read
 * from (its device, inode, size, modification and change times, taken by
 * fstat at every read); any difference forgets every verdict.
 */
struct gbt_page_reader {
    const struct gbt_pages *p;
    int fd;
    uint64_t *at;             /* npage + 1: each page's offset in the file, then the file's length */
    struct gbt_qmatrix page;  /* one page's codes; cuts: a copy of the struct of q's, not owned */
    void *lim;                /* limits_make's */
    uint8_t *summed;          /* per page: its checksum matched, the file as `seen` */
    struct stat seen;
};

/* Whether a and b are the same file, unchanged. */
static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Page i's bytes in the file: header, codes, checksum. */
static uint64_t page_file_bytes(const struct gbt_pages *p, uint64_t i)
{
    const uint64_t n = p->row_begin[i + 1] - p->row_begin[i], nv = p->val_begin[i + 1] - p->val_begin[i];
    const uint64_t codes = p->layout == GBT_QM_CSR      ? (n + 1) * 8 + nv * 4
                           : p->layout == GBT_QM_DENSE8 ? n * p->nfeat
                                                        : n * p->nfeat * 2;
    return HEADER_BYTES + codes + 4;
}

uint64_t gbt__pages_max_page_bytes(const struct gbt_pages *p)
{
    uint64_t most = 0;
    for (uint64_t i = 0; i < p->npage; i++) {
        const uint64_t b = page_file_bytes(p, i) - HEADER_BYTES - 4;
        if (b > most) most = b;
    }
    return most;
}

gbt_status gbt__pages_reader_open(const struct gbt_pages *p, const struct gbt_qmatrix *q, struct gbt_page_reader **out)
{
    struct gbt_page_reader *r;
    uint64_t rows = 1, vals = 1;
    gbt_status s;
    *out = NULL;
    RETURN_ERROR_IF(p->f != NULL, GBT_E_INVALID_ARG, "the page file '%s' is still being written", p->path);
    for (uint64_t i = 0; i < p->npage; i++) {
        const uint64_t n = p->row_begin[i + 1] - p->row_begin[i], nv = p->val_begin[i + 1] - p->val_begin[i];
        if (n > rows) rows = n;
        if (nv > vals) vals = nv;
    }
    FORWARD_IF_ERROR(gbt__alloc(&r, 1, sizeof *r, 1, "page reader"));
    r->p = p;
    r->fd = -1;
    r->page.cuts = q->cuts;
    r->page.layout = p->layout;
    if (p->layout == GBT_QM_CSR) {
        s = gbt__alloc(&r->page.row_ptr, rows + 1, sizeof *r->page.row_ptr, 1, "a page's rows");
        if (s == GBT_OK) s = gbt__alloc(&r->page.slots, vals, sizeof *r->page.slots, 0, "a page's values");
    } else if (p->layout == GBT_QM_DENSE8) {
        s = gbt__alloc(&r->page.codes8, rows * (p->nfeat ? p->nfeat : 1), 1, 0, "a page's codes");
    } else {
        s = gbt__alloc(&r->page.codes16, rows * (p->nfeat ? p->nfeat : 1), 2, 0, "a page's codes");
    }
    if (s == GBT_OK) s = limits_make(p, &q->cuts, &r->lim);
    if (s == GBT_OK) s = gbt__alloc(&r->summed, p->npage ? p->npage : 1, 1, 1, "page checks");
    if (s == GBT_OK) s = gbt__alloc(&r->at, p->npage + 1, sizeof *r->at, 1, "page offsets");
    for (uint64_t i = 0; s == GBT_OK && i < p->npage; i++) r->at[i + 1] = r->at[i] + page_file_bytes(p, i);
    if (s == GBT_OK && (r->fd = open(p->path, O_RDONLY)) < 0)
        s = gbt__fail(GBT_E_IO, "cannot open the page file '%s': %s", p->path, strerror(errno));
    if (s != GBT_OK) {
        gbt__pages_reader_close(r);
        return s;
    }
    *out = r;
    return GBT_OK;
}

/* n bytes at `at` into v: 0, 1 when the file ends first, -1 on an error (errno). */
static int pread_all(int fd, void *v, size_t n, uint64_t at)
{
    char *c = v;
    while (n > 0) {
        const ssize_t got = pread(fd, c, n, (off_t)at);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) return 1;
        c += got;
        n -= (size_t)got;
        at += (uint64_t)got;
    }
    return 0;
}

/*
 * Page i's codes (CSR: row offsets, then slots) read into the reader's
 * page: 0, 1 when the file ends first, -1 on a read error (errno).
 */
static int read_codes(struct gbt_page_reader *r, uint64_t i)
{
    const struct gbt_pages *p = r->p;
    const uint64_t n = p->row_begin[i + 1] - p->row_begin[i], nv = p->val_begin[i + 1] - p->val_begin[i];
    const uint64_t at = r->at[i] + HEADER_BYTES, nf = p->nfeat;
    int got;
    if (p->layout == GBT_QM_CSR) {
        got = pread_all(r->fd, r->page.row_ptr, (n + 1) * 8, at);
        return got ? got : pread_all(r->fd, r->page.slots, nv * 4, at + (n + 1) * 8);
    }
    if (p->layout == GBT_QM_DENSE8) return pread_all(r->fd, r->page.codes8, n * nf, at);
    return pread_all(r->fd, r->page.codes16, n * nf * 2, at);
}

gbt_status gbt__pages_reader_read(struct gbt_page_reader *r, uint64_t i, const struct gbt_qmatrix **page,
                                  uint64_t *row_begin)
{
    const struct gbt_pages *p = r->p;
    uint64_t h[HEADER_WORDS], n, nv;
    uint32_t stored;
    struct stat now;
    int got;
    RETURN_ERROR_IF(i >= p->npage, GBT_E_INTERNAL, "page %llu of %llu", (unsigned long long)i,
                    (unsigned long long)p->npage);
    n = p->row_begin[i + 1] - p->row_begin[i];
    nv = p->val_begin[i + 1] - p->val_begin[i];
    RETURN_ERROR_IF(fstat(r->fd, &now) != 0, GBT_E_IO, "cannot stat the page file '%s': %s", p->path,
                    strerror(errno));
    if (!same_file(&now, &r->seen)) {
        memset(r->summed, 0, p->npage);
        r->seen = now;
    }
    got = pread_all(r->fd, h, HEADER_BYTES, r->at[i]);
    if (got != 0) return short_error(p, i, got < 0 ? strerror(errno) : "truncated");
    FORWARD_IF_ERROR(check_header(p, i, h));
    got = read_codes(r, i);
    if (got == 0) got = pread_all(r->fd, &stored, sizeof stored, r->at[i + 1] - 4);
    if (got != 0) return short_error(p, i, got < 0 ? strerror(errno) : "truncated");
    if (!r->summed[i]) {
        struct gbt_crc32 crc;
        gbt__crc32_init(&crc);
        gbt__crc32_update(&crc, h, HEADER_BYTES);
        if (p->layout == GBT_QM_CSR) {
            gbt__crc32_update(&crc, r->page.row_ptr, (n + 1) * 8);
            gbt__crc32_update(&crc, r->page.slots, nv * 4);
        } else {
            gbt__crc32_update(&crc, p->layout == GBT_QM_DENSE8 ? (const void *)r->page.codes8
                                                               : (const void *)r->page.codes16,
                              r->at[i + 1] - r->at[i] - HEADER_BYTES - 4);
        }
        if (stored != crc.value) return sum_error(p, i, stored, crc.value);
    }
    r->page.nrow = n;
    if (codes_bad(p, &r->page.cuts, r->lim, &r->page, 0, n, 0, nv)) return codes_error(p, i);
    if (i + 1 == p->npage && (uint64_t)now.st_size > r->at[p->npage]) return tail_error(p);
    r->summed[i] = 1;
    *page = &r->page;
    *row_begin = p->row_begin[i];
    return GBT_OK;
}

uint64_t gbt__pages_row_begin(const struct gbt_pages *p, uint64_t i)
{
    return p->row_begin[i];
}

void gbt__pages_reader_recheck(struct gbt_page_reader *r)
{
    memset(r->summed, 0, r->p->npage);
}

void gbt__pages_reader_close(struct gbt_page_reader *r)
{
    if (r == NULL) return;
    if (r->fd >= 0) close(r->fd);
    free(r->lim);
    free(r->summed);
    free(r->at);
    free(r->page.codes8);
    free(r->page.codes16);
    free(r->page.row_ptr);
    free(r->page.slots);
    free(r);
}
