/*
 * io_lines.c - a streaming line reader: the file passes through a window
 * that grows only to the longest line (or block), never to the file's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/io.h"
#include "util/util.h"

#define WINDOW (1u << 20)

gbt_status gbt__lines_open(struct gbt_line_reader *lr, const char *path)
{
    memset(lr, 0, sizeof *lr);
    lr->path = path;
    lr->f = fopen(path, "rb");
    RETURN_ERROR_IF(lr->f == NULL, errno == ENOMEM ? GBT_E_NO_MEMORY : GBT_E_IO, "cannot open '%s': %s",
                    path, strerror(errno));
    if (gbt__alloc(&lr->buf, WINDOW + 1, 1, 0, "line buffer") != GBT_OK) {
        fclose(lr->f);
        lr->f = NULL;
        return GBT_E_NO_MEMORY;
    }
    lr->cap = WINDOW;
    lr->buf[0] = '\0';
    lr->threads = 1;
    lr->block = GBT_BLOCK_PER_THREAD;
    {
        struct stat st;
        if (fstat(fileno(lr->f), &st) == 0 && S_ISREG(st.st_mode)) lr->size = (uint64_t)st.st_size;
    }
    lr->t_start = lr->t_last = gbt__now();
    return GBT_OK;
}

/*
 * Drops a UTF-8 byte-order mark (EF BB BF, which spreadsheet programs write
 * at the start of a CSV file) before the first line: a field or feature
 * name would otherwise hold it, invisibly.
 */
static void skip_bom(struct gbt_line_reader *lr)
{
    static const char bom[3] = {'\xEF', '\xBB', '\xBF'};
    lr->bom_checked = 1;
    if (lr->end - lr->start >= 3 && memcmp(lr->buf + lr->start, bom, 3) == 0) {
        lr->start += 3;
        lr->offset += 3;
    }
}

void gbt__lines_close(struct gbt_line_reader *lr)
{
    if (lr->f) fclose(lr->f);
    free(lr->buf);
    memset(lr, 0, sizeof *lr);
}

/* Makes the window at least `cap` bytes. */
static gbt_status grow(struct gbt_line_reader *lr, size_t cap)
{
    char *nb = realloc(lr->buf, cap + 1);
    RETURN_ERROR_IF(nb == NULL, GBT_E_NO_MEMORY, "out of memory: a %zu-byte window to read '%s'", cap,
                    lr->path);
    lr->buf = nb;
    lr->cap = cap;
    return GBT_OK;
}

/*
 * Moves the unconsumed bytes to the front and reads more behind them,
 * doubling the window when it is full (a line longer than the window).
 */
static gbt_status refill(struct gbt_line_reader *lr)
{
    size_t have = lr->end - lr->start, got;
    if (lr->start > 0) {
        memmove(lr->buf, lr->buf + lr->start, have);
        lr->start = 0;
        lr->end = have;
    }
    if (have == lr->cap) {
        /* a full window without a line end: a line longer than the window may grow to is refused now */
        RETURN_ERROR_IF(lr->cap >= GBT_LINE_MAX, GBT_E_FORMAT,
                        "%s:%llu: line longer than %zu MiB (the reader's window; is this a text file?)", lr->path,
                        (unsigned long long)lr->line + 1, GBT_LINE_MAX >> 20);
        FORWARD_IF_ERROR(grow(lr, lr->cap * 2 < GBT_LINE_MAX ? lr->cap * 2 : GBT_LINE_MAX));
    }
    got = fread(lr->buf + lr->end, 1, lr->cap - lr->end, lr->f);
    if (got == 0) {
        RETURN_ERROR_IF(ferror(lr->f), GBT_E_IO, "error reading '%s': %s", lr->path,
                        strerror(errno));
        lr->eof = 1;
    }
    lr->end += got;
    lr->buf[lr->end] = '\0';
    /* fread fills the window but at the end of the file: the first read holds the mark, if any */
    if (!lr->bom_checked && (lr->end - lr->start >= 3 || lr->eof)) skip_bom(lr);
    return GBT_OK;
}

gbt_status gbt__lines_next(struct gbt_line_reader *lr, char **line, size_t *len)
{
    char *nl;
    size_t n;
    if (lr->stop && lr->offset >= lr->stop) {
        *line = NULL;
        *len = 0;
        return GBT_OK;
    }
    for (;;) {
        nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
        if (nl || lr->eof) break;
        FORWARD_IF_ERROR(refill(lr));
    }
    if (nl == NULL && lr->start == lr->end) {
        *line = NULL;
        *len = 0;
        return GBT_OK;
    }
    n = nl ? (size_t)(nl - (lr->buf + lr->start)) : lr->end - lr->start;
    *line = lr->buf + lr->start;
    lr->start += n + (nl != NULL);
    lr->offset += n + (nl != NULL);
    lr->line++;
    if (n > 0 && (*line)[n - 1] == '\r') n--;
    (*line)[n] = '\0';
    RETURN_ERROR_IF(memchr(*line, '\0', n) != NULL, GBT_E_FORMAT,
                    "%s:%llu: NUL byte in the line; is this a text file?", lr->path,
                    (unsigned long long)lr->line);
    *len = n;
    return GBT_OK;
}

gbt_status gbt__lines_peek(struct gbt_line_reader *lr, int skip, char **copy)
{
    size_t pos = 0; /* bytes of lr->buf after lr->start already looked at */
    *copy = NULL;
    for (;;) {
        char *from = lr->buf + lr->start + pos;
        size_t left = lr->end - lr->start - pos, n;
        char *nl = memchr(from, '\n', left);
        if (nl == NULL && !lr->eof) {
            FORWARD_IF_ERROR(refill(lr));
            continue;
        }
        if (left == 0) return GBT_OK;
        n = nl ? (size_t)(nl - from) : left;
        pos += n + (nl != NULL);
        if (skip > 0) {
            skip--;
            continue;
        }
        FORWARD_IF_ERROR(gbt__alloc(copy, n + 1, 1, 0, "the first line"));
        memcpy(*copy, from, n);
        if (n > 0 && (*copy)[n - 1] == '\r') n--;
        (*copy)[n] = '\0';
        if (!gbt__line_is_blank(*copy, n)) return GBT_OK;
        free(*copy);
        *copy = NULL;
    }
}

gbt_status gbt__lines_block(struct gbt_line_reader *lr, size_t want, const char **text, size_t *len)
{
    size_t n;
    if (lr->stop && lr->offset >= lr->stop) {
        *text = lr->buf + lr->start;
        *len = 0;
        return GBT_OK;
    }
    if (lr->cap < want) FORWARD_IF_ERROR(grow(lr, want));
    for (;;) {
        n = lr->end - lr->start;
        if (!lr->eof && n < lr->cap) {
            FORWARD_IF_ERROR(refill(lr)); /* fill the window: fread may return less */
            continue;
        }
        while (n > 0 && lr->buf[lr->start + n - 1] != '\n') n--;
        if (n > 0 || lr->eof) break;
        FORWARD_IF_ERROR(refill(lr)); /* a line longer than the window */
    }
    if (n == 0) n = lr->end - lr->start; /* the last line, without a LF, before the NUL at buf[end] */
    if (lr->stop && n > lr->stop - lr->offset) {
        /* up to the first line end at or after the stop */
        const char *nl = memchr(lr->buf + lr->start + (lr->stop - lr->offset - 1), '\n',
                                n - (size_t)(lr->stop - lr->offset - 1));
        if (nl) n = (size_t)(nl - (lr->buf + lr->start)) + 1;
    }
    *text = lr->buf + lr->start;
    *len = n;
    lr->start += n;
    lr->offset += n;
    return GBT_OK;
}

int gbt__split_block(const char *text, size_t len, int threads, struct gbt_chunk *chunks)
{
    size_t want = (size_t)threads * 4, step, at = 0;
    int n = 0;
    if (want > GBT_MAX_CHUNKS) want = GBT_MAX_CHUNKS;
    step = len / want;
    if (step < ((size_t)64 << 10)) step = (size_t)64 << 10;
    while (at < len) {
        size_t cut = len - at <= step || n == GBT_MAX_CHUNKS - 1 ? len : at + step;
        if (cut < len) {
            const char *nl = memchr(text + cut - 1, '\n', len - (cut - 1));
            cut = nl ? (size_t)(nl - text) + 1 : len;
        }
        memset(&chunks[n], 0, sizeof chunks[n]);
        chunks[n].text = text + at;
        chunks[n].len = cut - at;
        n++;
        at = cut;
    }
    return n;
}

gbt_status gbt__lines_read_chunks(struct gbt_line_reader *lr, const struct gbt_chunk_ops *ops)
{
    const int nt = lr->threads;
    struct gbt_chunk chunks[GBT_MAX_CHUNKS];
    gbt_status s = GBT_OK;
    for (;;) {
        const char *text;
        size_t len;
        int nc;
        s = gbt__lines_block(lr, gbt__block_bytes(lr), &text, &len);
        if (s != GBT_OK || len == 0) break;
        nc = gbt__split_block(text, len, nt, chunks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
        for (int i = 0; i < nc; i++) chunks[i].status = ops->parse(ops->ctx, &chunks[i], i);
        for (int i = 0; i < nc && s == GBT_OK; i++) {
            struct gbt_chunk *ch = &chunks[i];
            if (ch->status != GBT_OK) {
                s = gbt__fail(ch->status, "%s: out of memory parsing lines %llu and after", lr->path,
                              (unsigned long long)lr->line + 1);
                break;
            }
            ch->first_line = lr->line + 1;
            if ((s = ops->place(ops->ctx, ch, i)) != GBT_OK) break;
            if (ch->bad_line >= 0) {
                /* parsed again on this thread, for the message */
                const uint64_t at = ch->first_line + (uint64_t)ch->bad_line;
                s = ops->explain(ops->ctx, ch, i, at);
                if (s == GBT_OK)
                    s = gbt__fail(GBT_E_INTERNAL, "%s:%llu: the line parsed twice gave two answers", lr->path,
                                  (unsigned long long)at);
                break;
            }
            lr->line += ch->lines;
        }
        if (s == GBT_OK && ops->ready) s = ops->ready(ops->ctx);
        if (s != GBT_OK) break;
        /* every chunk's rows have their place now */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
        for (int i = 0; i < nc; i++) ops->copy(ops->ctx, &chunks[i], i);
        gbt__lines_progress(lr);
    }
    return s;
}

int gbt__lines_progress(struct gbt_line_reader *lr)
{
    const double now = gbt__now();
    const int shown = lr->t_last > lr->t_start;
    if (!(lr->progress > 0) || now - lr->t_last < lr->progress) return shown;
    lr->t_last = now;
    if (lr->size > 0)
        gbt__log(GBT_LOG_INFO, GBT_LOG_INFO, "reading %s: %.0f%% (%.0f of %.0f MB, %.1fs)", lr->path,
                 100.0 * (double)lr->offset / (double)lr->size, (double)lr->offset / 1e6,
                 (double)lr->size / 1e6, now - lr->t_start);
    else
        gbt__log(GBT_LOG_INFO, GBT_LOG_INFO, "reading %s: %.0f MB (%.1fs)", lr->path,
                 (double)lr->offset / 1e6, now - lr->t_start);
    return 1;
}

int gbt__line_is_blank(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    return i == n || s[i] == '#';
}
