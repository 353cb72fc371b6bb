/*
 * io_lines.c - a streaming line reader: the file passes through a window
 * that grows only to the longest line, never to the file's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "util.h"

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
    return GBT_OK;
}

void gbt__lines_close(struct gbt_line_reader *lr)
{
    if (lr->f) fclose(lr->f);
    free(lr->buf);
    memset(lr, 0, sizeof *lr);
}

/* Moves the unconsumed bytes to the front and reads more behind them. */
static gbt_status refill(struct gbt_line_reader *lr)
{
    size_t have = lr->end - lr->start, got;
    if (lr->start > 0) {
        memmove(lr->buf, lr->buf + lr->start, have);
        lr->start = 0;
        lr->end = have;
    }
    if (have == lr->cap) {
        char *nb;
        RETURN_ERROR_IF(lr->cap >= ((size_t)1 << 30), GBT_E_FORMAT,
                        "%s:%llu: line longer than 1 GiB", lr->path,
                        (unsigned long long)lr->line + 1);
        nb = realloc(lr->buf, lr->cap * 2 + 1);
        RETURN_ERROR_IF(nb == NULL, GBT_E_NO_MEMORY, "out of memory reading a long line of '%s'",
                        lr->path);
        lr->buf = nb;
        lr->cap *= 2;
    }
    got = fread(lr->buf + lr->end, 1, lr->cap - lr->end, lr->f);
    if (got == 0) {
        RETURN_ERROR_IF(ferror(lr->f), GBT_E_IO, "error reading '%s': %s", lr->path,
                        strerror(errno));
        lr->eof = 1;
    }
    lr->end += got;
    return GBT_OK;
}

gbt_status gbt__lines_next(struct gbt_line_reader *lr, char **line, size_t *len)
{
    char *nl;
    size_t n;
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
        if (!gbt__line_is_blank(*copy)) return GBT_OK;
        free(*copy);
        *copy = NULL;
    }
}

int gbt__line_is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0' || *s == '#';
}

gbt_status gbt__note_row_line(gbt_dataset *d, size_t *cap, uint64_t row, uint64_t line)
{
    FORWARD_IF_ERROR(gbt__reserve(&d->row_line, cap, row + 1, sizeof(uint32_t), "line numbers"));
    d->row_line[row] = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
    return GBT_OK;
}
