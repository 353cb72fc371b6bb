/*
 * cli.h - what gbtrain and gbpredict share: options, config files, logging
 * to standard error, error exits and atomic output files.  The tools use
 * only the public API (gbt.h).
 */
#ifndef GBT_CLI_H
#define GBT_CLI_H

#include <stdio.h>

#include "gbt.h"
#include "util/outfile.h"

/* One option as the user gave it: --name=value, --name value or a config line. */
struct cli_opt {
    char name[64];
    char value[1024];
    const char *file; /* the config file (argv's string), or NULL: the command line */
    unsigned line;    /* its line */
};

struct cli_opts {
    struct cli_opt *v;
    size_t n, cap;
    char *positional[8];
    int npositional;
};

/* Prints "<prog>: <message>" and exits with status 1. */
void cli_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Dies with the library's last error, prefixed by what was being done, its
 * options (header=1, label_column=N, ...) written as the tools' flags
 * (--header, --label_column=N), and the note of cli_set_note after it.
 */
void cli_die_status(gbt_status s, const char *doing);

/* Text that cli_die_status appends to its messages (NULL or "": none). */
void cli_set_note(const char *text);

/*
 * Copies msg to buf (len bytes) with the library's option words as flags:
 * "use header=1" -> "use --header", "label_column=N" -> "--label_column=N",
 * "delimiter=;" -> "--delimiter=';'"; "'label_column=auto'" (quoted) stays.
 */
void cli_flag_words(const char *msg, char *buf, size_t len);

/*
 * Sets the program name used in messages, and makes the exit fail (status
 * 1, "cannot write standard output") when anything printed to standard
 * output could not be written.
 */
void cli_set_prog(const char *name);

/* The program name used in messages. */
const char *cli_prog(void);

/*
 * Makes cli_die hand its message (without the "PROG: " prefix) to hook
 * instead of printing it; cli_die still exits if hook returns.  The MPI
 * runs' agreement on failures (cli_mpi.c).
 */
void cli_set_die_hook(void (*hook)(const char *msg));

/*
 * Parses argv.  Options take a value unless their name is listed in `flags`
 * (space-separated, e.g. "header margin q quiet help version"), in which case
 * "--name" means "--name=1".  Names are normalised ('-' becomes '_').  A
 * single dash introduces only a one-letter flag (-q, -h); any other is an
 * unknown option.
 */
void cli_parse_args(int argc, char **argv, const char *flags, struct cli_opts *o);

/*
 * Reads "name = value" lines (# comments, lines of any length) of a config
 * file, before the command line; one pair of quotes around a value is
 * dropped.  path must outlive o: options point to it.
 */
void cli_read_config(const char *path, struct cli_opts *o);

/* Dies with "ORIGIN: message", ORIGIN the option's file:line or "command line". */
void cli_die_option(const struct cli_opt *opt, const char *message) __attribute__((noreturn));

/*
 * The file a data path names, in buf: the path itself when it names an
 * existing file, else the part before an XGBoost URI's '?' or '#' (the
 * rule of gbt_dataset_from_file).
 */
void cli_data_file(const char *path, char *buf, size_t len);

/* The last value given for name, or NULL. */
const char *cli_get(const struct cli_opts *o, const char *name);

/*
 * A boolean option's value: 1 for 1, true, yes or on, 0 for 0, false, no or
 * off (any case), -1 for anything else ("" included).  A bare --flag is
 * stored as "1" (cli_parse_args).
 */
int cli_parse_bool(const char *value);

/*
 * The boolean option name: 0 when it is not given, else its last value
 * read by cli_parse_bool; dies naming the option, where it was given (the
 * command line or config FILE:LINE) and the value for anything else.
 */
int cli_flag(const struct cli_opts *o, const char *name);

/* Dies (as cli_flag) unless every option of the space-separated list `flags` given in o is a boolean. */
void cli_check_flags(const struct cli_opts *o, const char *flags);

/*
 * Marks d's categorical features from --categorical_feature (LightGBM's:
 * column numbers "0,3,7" or names "name:country,store") or --feature_types
 * (XGBoost's: "q,c,q", one per feature); nothing when neither is given.
 * Dies naming the option for a bad list, or with the library's message
 * (file, line and column) for a value that is not a category.
 */
void cli_apply_feature_types(const struct cli_opts *o, gbt_dataset *d, const char *path);

/*
 * --help (-h) or --version among o's options: prints usage(stdout), or
 * "TOOL VERSION" and the build, frees o's values and returns 1 (the tool
 * then exits 0, and the exit checks that standard output took it);
 * otherwise returns 0.
 */
int cli_help_or_version(struct cli_opts *o, const char *tool, void (*usage)(FILE *f));

/* Logs to standard error; quiet drops info messages, quiet 2 warnings too (errors only). */
void cli_install_logger(int quiet);

/*
 * An output: standard output for NULL or "-", else a path written by
 * outfile.h's rules (a regular file atomically through a temporary file
 * and a rename, links followed; a device, FIFO or socket in place).
 * cli_out_commit dies, naming the path or "standard output", on any write
 * error (ferror, fflush, fsync, fclose, rename).
 */
struct cli_out {
    FILE *f;
    char *path;          /* NULL: standard output */
    struct gbt_outfile o;
    int err;             /* the errno of the first failed cli_out_write */
};
void cli_out_open(struct cli_out *out, const char *path);
void cli_out_write(struct cli_out *out, const void *p, size_t n);
void cli_out_commit(struct cli_out *out);

/*
 * Refuses an output path that names one of the inputs (the same file,
 * however spelled), or an existing regular file that is_ours() does not
 * recognise, from its first bytes, as what the tool writes, unless `force`
 * is set; `what` names the output in messages ("MODEL_FILE").
 */
void cli_check_output(const char *path, const char *const *inputs, int ninputs,
                      int (*is_ours)(const char *head), int force, const char *what);

/*
 * Dies unless a file can be created next to `path` (or the file its
 * symbolic links point at) to be renamed over it, as cli_out_open and
 * gbt_booster_save do, leaving nothing behind.  Standard output ("-") and
 * paths written in place (devices, FIFOs, sockets) are not probed.
 */
void cli_check_writable(const char *path);

/*
 * The format a model is saved in to path: XGBoost's UBJSON for a name that
 * ends in ".ubj" (XGBoost's extension for it), else XGBoost's JSON with
 * `xgboost`, else gbt's JSON (GBT_MODEL_*).
 */
int cli_model_format(const char *path, int xgboost);

/*
 * Saves b to path in cli_model_format(path, xgboost), "-" meaning standard
 * output; dies with `doing` on failure.
 */
void cli_save_model(const gbt_booster *b, const char *path, int xgboost, const char *doing);

/* Dies unless the CUDA device that `device` (a device parameter value) names is present. */
void cli_check_device(const char *device);

/*
 * Says on standard error what was read from `path` into d: its rows and
 * features, and the side files read with it (FILE.weight, ...; the library
 * reads every side file present and fails on a bad one, so those present
 * after a successful read are those it used).  With only_side, nothing is
 * said when no side file was read.
 */
void cli_report_data(const char *path, const gbt_dataset *d, int only_side);

/*
 * Builds the gbt_dataset_from_file option string from the data options,
 * the booster's nthread and --progress (default: 1 when standard error is
 * a terminal and -q is not given, else 0).
 */
void cli_data_options(const struct cli_opts *o, const gbt_booster *b, char *buf, size_t len);

/*
 * Prints the parameter table (for --help); `defaults` (NULL or
 * NULL-terminated name, value pairs) gives the tool's own defaults where
 * they differ from the library's.
 */
void cli_print_params(FILE *f, const char *const *defaults);

/* The shortest text that reads back as the same float. */
void cli_format_float(char *buf, size_t len, float v);

#endif
