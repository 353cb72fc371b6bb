/*
 * io.h - reading datasets from text files, streamed line by line.
 */
#ifndef GBT_IO_H
#define GBT_IO_H

#include <stdint.h>
#include <stdio.h>

#include "data/categories.h"
#include "data/dataset.h"

/*
 * Reads a file through a window that grows only to the longest line (or the
 * block asked for), never to the file's size: one line at a time, or in
 * blocks of whole lines that the readers parse in parallel.
 */
struct gbt_line_reader {
    FILE *f;
    const char *path;
    char *buf;              /* cap + 1 bytes; buf[end] is always '\0' */
    size_t cap, start, end; /* unconsumed bytes are buf[start, end) */
    int eof;
    int bom_checked; /* the start was looked at for a UTF-8 byte-order mark (dropped) */
    uint64_t line;   /* number of the line last consumed, from 1 */
    uint64_t offset; /* bytes consumed */
    uint64_t size;   /* the file's size when it is a regular file, else 0 */
    int threads;     /* threads the readers may use */
    size_t block;    /* bytes of a block per thread (GBT_BLOCK_PER_THREAD; tests make it small) */
    double progress; /* seconds between progress reports (gbt__lines_progress), 0: none */
    double t_start, t_last;
    /*
     * 0, or where the reader ends (reading in batches): the lines and blocks
     * stop at the first line end at or after this offset
     */
    uint64_t stop;
    /*
     * LIBSVM read in batches (io_libsvm.c): the qid state after the lines
     * read so far (0: no line yet, 1: every line has a qid, 2: none has),
     * the last line's qid, and whether the last read's first query went on
     * from the read before (the same qid across the batches' boundary)
     */
    int qid_state;
    long long qid_last;
    int qid_continues;
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

/*
 * The next run of whole lines, about `want` bytes (more when one line is
 * longer), ending just after a LF or at the end of the file, where a NUL
 * follows it; *len is 0 at the end.  Valid until the next call.  lr->line
 * is not advanced: the caller adds the lines it counts.
 */
gbt_status gbt__lines_block(struct gbt_line_reader *lr, size_t want, const char **text, size_t *len);

/* The bytes of a block for each of lr->threads threads (4 chunks of 2 MiB), and at most in all. */
#define GBT_BLOCK_PER_THREAD ((size_t)8 << 20)
#define GBT_BLOCK_MAX ((size_t)64 << 20)

/* The longest line, LF included: the window's largest size (a longer line is refused when the window fills). */
#define GBT_LINE_MAX GBT_BLOCK_MAX

/* The bytes of the blocks the readers ask for. */
static inline size_t gbt__block_bytes(const struct gbt_line_reader *lr)
{
    const size_t b = lr->block * (size_t)lr->threads;
    return b < GBT_BLOCK_MAX ? b : GBT_BLOCK_MAX;
}

/*
 * Logs "reading PATH: ..." at GBT_LOG_INFO every lr->progress seconds (none
 * in the first interval, so a quick read says nothing).  Returns whether
 * anything was ever logged.
 */
int gbt__lines_progress(struct gbt_line_reader *lr);

void gbt__lines_close(struct gbt_line_reader *lr);

/* Whether the n bytes at s are nothing but blanks (or a '#' comment). */
int gbt__line_is_blank(const char *s, size_t n);

/* Whether strtof would skip c as leading white space (isspace in the C locale). */
static inline int gbt__is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* The line's length without its CR, if it ends in one. */
static inline size_t gbt__line_trim_cr(const char *s, size_t n)
{
    return n > 0 && s[n - 1] == '\r' ? n - 1 : n;
}

/*
 * A piece of a block for one thread: whole lines, parsed into the reader's
 * own buffers; the first bad line stops it and is parsed again by the
 * caller for its message (errors are per thread).
 */
struct gbt_chunk {
    const char *text;
    size_t len;
    gbt_status status;     /* GBT_OK, or an allocation failure */
    uint64_t rows, lines;  /* rows made, lines passed (blank ones too) */
    int64_t bad_line;      /* the first bad line, from 0 within the chunk; -1: none */
    const char *bad_text;  /* that line, bad_len bytes without LF or CR */
    size_t bad_len;
    uint64_t first_row, first_line; /* set by the caller, in file order */
};

#define GBT_MAX_CHUNKS 256

/*
 * Cuts a block of whole lines into chunks of about equal size at line ends,
 * four per thread (so that a slow thread does not hold up the others), at
 * most GBT_MAX_CHUNKS, none smaller than 64 KiB.  Returns their number.
 */
int gbt__split_block(const char *text, size_t len, int threads, struct gbt_chunk *chunks);

/*
 * What a reader does with the chunks of each block (gbt__lines_read_chunks);
 * i is the chunk's number in its block, an index into the reader's buffers.
 *   parse    parses chunk i (on any thread), stopping at its first bad line
 *   place    in file order, ch->first_line set: gives the chunk's rows their
 *            place (ch->first_row) and room, and adds what is counted in order
 *   explain  the chunk's bad line, numbered `line` in the file, parsed again
 *            for its message: returns that error
 *   ready    optional: after the block's chunks are placed, before copying
 *   copy     copies chunk i's parsed rows to their place (on any thread)
 */
struct gbt_chunk_ops {
    void *ctx;
    gbt_status (*parse)(void *ctx, struct gbt_chunk *ch, int i);
    gbt_status (*place)(void *ctx, struct gbt_chunk *ch, int i);
    gbt_status (*explain)(void *ctx, const struct gbt_chunk *ch, int i, uint64_t line);
    gbt_status (*ready)(void *ctx);
    void (*copy)(void *ctx, const struct gbt_chunk *ch, int i);
};

/*
 * Reads lr's remaining lines block by block: each block cut into chunks,
 * parsed in parallel, placed in file order (the first failure in file order
 * wins: an allocation failure, or a bad line with its own message; the
 * chunks before it are whole) and copied in parallel.
 */
gbt_status gbt__lines_read_chunks(struct gbt_line_reader *lr, const struct gbt_chunk_ops *ops);

/* Reads the lines of a LIBSVM file into a CSR dataset with labels (and groups from qid). */
gbt_status gbt__read_libsvm(struct gbt_line_reader *lr, gbt_dataset **out);

/* Options of CSV and TSV reading. */
/* label_column=auto[:K]: the first data line has `features` fields (no label) or one more (label in column K, default 0). */
#define GBT_LABEL_AUTO (-2)

struct gbt_csv_options {
    char delim;
    int64_t label_column; /* -1: no label column; GBT_LABEL_AUTO: from the field count */
    uint64_t features;    /* with GBT_LABEL_AUTO: the feature columns expected */
    int header;
    int has_missing;
    float missing;
    int64_t auto_label;   /* with GBT_LABEL_AUTO: the label's column when there is one */
    /*
     * category_names=1: a feature field that is not a number is a category
     * name; each column of names becomes categorical, its categories its
     * names sorted by their bytes (io_csv.c)
     */
    int category_names;
    /* ncats entries, by feature: the categories whose names the feature's fields hold (n 0: numbers) */
    const struct gbt_cat_dict *cats;
    uint64_t ncats;
    /* the feature_types option (gbt_file_options.types), or NULL: a name in a "c" column is refused saying so */
    const char *types;
};

/* gbt_dataset_from_file's options (io_file.c). */
struct gbt_file_options {
    int format;         /* GBT_FMT_* */
    char delimiter;     /* the delimiter option, or 0 */
    struct gbt_csv_options csv;
    int side_files;
    int indexing_mode;  /* LIBSVM: 0 zero-based, 1 one-based, -1 guessed */
    int64_t nthread;    /* 0: all the machine offers */
    double progress;    /* seconds between progress reports, 0: none */
    uint64_t batch_bytes; /* the text of one batch (gbt_dataset_from_file_iter); 0: its default */
    char *types;        /* feature_types=qcq: a letter a feature (q numeric, c categorical), or NULL; owned */
};

/* Frees what o owns (its types); o is then as parsed from no options. */
void gbt__file_options_free(struct gbt_file_options *o);

/*
 * The feature_types option's types set on d (gbt_dataset_set_feature_types,
 * the letters checked against d's features first); nothing without it.
 */
gbt_status gbt__file_apply_types(const struct gbt_file_options *o, const char *file, gbt_dataset *d);

enum { GBT_FMT_GUESS, GBT_FMT_LIBSVM, GBT_FMT_CSV, GBT_FMT_TSV };

/*
 * Opens path, a file or one of XGBoost's data URIs ("PATH?OPTIONS#CACHE"),
 * as a text data file: *file (free it) the file's path, *cache (free it;
 * NULL when the URI names none) the URI's cache name, o its options
 * (options, then the URI's), lr the opened reader and o->format guessed
 * from it.  A binary dataset file is refused (*binary set: the caller
 * reads it with gbt_dataset_load_binary).
 */
gbt_status gbt__file_open(const char *path, const char *options, struct gbt_file_options *o,
                          struct gbt_line_reader *lr, char **file, char **cache, int *binary);

/*
 * Reads lr's rows (to the end of the file, or of lr->stop) as o says into a
 * new dataset; LIBSVM indices as written (gbt__dataset_set_index_base
 * applies o->indexing_mode).
 */
gbt_status gbt__file_read_rows(struct gbt_line_reader *lr, struct gbt_file_options *o, gbt_dataset **out);

/*
 * The weights of the side file PATH.weight (free them; NULL and 0 when there
 * is no such file), each checked >= 0.
 */
gbt_status gbt__side_weights(const char *path, float **w, uint64_t *n);

/*
 * gbt_dataset_from_file, where the CSV/TSV fields of feature f < ncats with
 * cats[f].n > 0 are category names, read as their codes in cats[f]
 * (gbt_booster_read_data).
 */
gbt_status gbt__dataset_read_file(const char *path, const char *options, const struct gbt_cat_dict *cats,
                                  uint64_t ncats, gbt_dataset **out);

/*
 * gbt_dataset_from_file_iter, and with peers (not NULL) over their
 * processes, each reading its own file (gbt__dataset_from_iter_peers).
 */
gbt_status gbt__dataset_from_file_iter_peers(const char *path, const char *options, int max_bin,
                                             const struct gbt_iter_peers *peers, gbt_dataset **out);

/* Reads the lines of a CSV or TSV file into a dense dataset. */
gbt_status gbt__read_delimited(struct gbt_line_reader *lr, const struct gbt_csv_options *opt,
                               gbt_dataset **out);

#endif
