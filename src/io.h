/*
 * io.h - reading datasets from text files, streamed line by line.
 */
#ifndef GBT_IO_H
#define GBT_IO_H

#include <stdint.h>
#include <stdio.h>

#include "dataset.h"

/* Reads a file one line at a time through a fixed-size window. */
struct gbt_line_reader {
    FILE *f;
    const char *path;
    char *buf;
    size_t cap, start, end; /* unconsumed bytes are buf[start, end) */
    int eof;
    uint64_t line; /* number of the line last returned, from 1 */
};

gbt_status gbt__lines_open(struct gbt_line_reader *lr, const char *path);

/*
 * A copy (to free) of the first line that is not blank after the first
 * `skip` lines, without consuming anything: the lines stay in the window
 * for gbt__lines_next, so a pipe is read once.  NULL at the end of the file.
 */
gbt_status gbt__lines_peek(struct gbt_line_reader *lr, int skip, char **copy);

/*
 * The next line without its LF or CRLF, NUL-terminated and writable until
 * the next call; *line is NULL at the end of the file.
 */
gbt_status gbt__lines_next(struct gbt_line_reader *lr, char **line, size_t *len);

void gbt__lines_close(struct gbt_line_reader *lr);

/* Whether a line holds nothing but blanks (or a '#' comment). */
int gbt__line_is_blank(const char *s);

/* Reads the lines of a LIBSVM file into a CSR dataset with labels (and groups from qid). */
gbt_status gbt__read_libsvm(struct gbt_line_reader *lr, gbt_dataset **out);

/* Options of CSV and TSV reading. */
/* label_column=auto: the first data line has `features` fields (no label) or one more (label first). */
#define GBT_LABEL_AUTO (-2)

struct gbt_csv_options {
    char delim;
    int64_t label_column; /* -1: no label column; GBT_LABEL_AUTO: from the field count */
    uint64_t features;    /* with GBT_LABEL_AUTO: the feature columns expected */
    int header;
    int has_missing;
    float missing;
};

/* Reads the lines of a CSV or TSV file into a dense dataset. */
gbt_status gbt__read_delimited(struct gbt_line_reader *lr, const struct gbt_csv_options *opt,
                               gbt_dataset **out);

/* Records the line of row `row`; grows the array as needed. */
gbt_status gbt__note_row_line(gbt_dataset *d, size_t *cap, uint64_t row, uint64_t line);

#endif
