/*
 * cli.c - shared parts of gbtrain and gbpredict.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

static const char *prog = "gbt";

static void close_stdout(void);

void cli_set_prog(const char *name)
{
    static int registered;
    const char *slash = strrchr(name, '/');
    prog = slash ? slash + 1 : name;
    /* whatever a tool printed to standard output: a write error there is an error exit */
    if (!registered++) atexit(close_stdout);
}

const char *cli_prog(void)
{
    return prog;
}

static void (*die_hook)(const char *msg);

void cli_set_die_hook(void (*hook)(const char *msg))
{
    die_hook = hook;
}

void cli_die(const char *fmt, ...)
{
    va_list ap;
    if (die_hook) {
        char msg[4096];
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        die_hook(msg);
    }
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static char note[1200];

void cli_set_note(const char *text)
{
    snprintf(note, sizeof note, "%s", text ? text : "");
}

/* Whether c may be part of an option's name: then "header=1" inside a word is not an option. */
static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '\'';
}

void cli_flag_words(const char *msg, char *buf, size_t len)
{
    static const char *const keys[] = {"header", "label_column", "indexing_mode", "format",
                                       "delimiter", "missing", "features", "validate_features", NULL};
    size_t n = 0;
    for (const char *p = msg; *p && n + 1 < len;) {
        int done = 0;
        /* not inside a data URI: FILE?format=csv&label_column=0 is what the user types */
        for (int k = 0; keys[k] && !done && (p == msg || (!name_char(p[-1]) && p[-1] != '?' && p[-1] != '&'));
             k++) {
            const size_t kl = strlen(keys[k]);
            if (strncmp(p, keys[k], kl) != 0 || p[kl] != '=') continue;
            if (strcmp(keys[k], "header") == 0 && p[kl + 1] == '1' && !name_char(p[kl + 2])) {
                n += (size_t)snprintf(buf + n, len - n, "--header");
                p += kl + 2;
            } else if (strcmp(keys[k], "delimiter") == 0 && p[kl + 1] && !name_char(p[kl + 2])) {
                /* ; and | mean something to the shell */
                n += (size_t)snprintf(buf + n, len - n, "--delimiter='%c'", p[kl + 1]);
                p += kl + 2;
            } else {
                n += (size_t)snprintf(buf + n, len - n, "--%s=", keys[k]);
                p += kl + 1;
            }
            done = 1;
        }
        if (n >= len) break;
        if (!done) buf[n++] = *p++;
    }
    buf[n < len ? n : len - 1] = '\0';
}

void cli_die_status(gbt_status s, const char *doing)
{
    const char *msg = gbt_last_error();
    char flags[4096];
    /* the library's hints name its options (header=1); a command-line user types flags (--header) */
    cli_flag_words(msg[0] ? msg : gbt_status_str(s), flags, sizeof flags);
    cli_die("%s: %s%s", doing, flags, note);
}

static void normalise(char *s)
{
    for (; *s; s++)
        if (*s == '-') *s = '_';
}

static void add(struct cli_opts *o, const char *name, const char *value, const char *file, unsigned line)
{
    struct cli_opt *opt;
    if (strlen(name) >= sizeof o->v[0].name) cli_die("option name '%s' is too long", name);
    if (strlen(value) >= sizeof o->v[0].value) cli_die("value of option '%s' is too long", name);
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 32;
        struct cli_opt *v = realloc(o->v, cap * sizeof *v);
        if (v == NULL) cli_die("out of memory");
        o->v = v;
        o->cap = cap;
    }
    opt = &o->v[o->n++];
    strcpy(opt->name, name);
    normalise(opt->name);
    strcpy(opt->value, value);
    opt->file = file;
    opt->line = line;
}

void cli_die_option(const struct cli_opt *opt, const char *message)
{
    if (opt->file) cli_die("%s:%u: %s", opt->file, opt->line, message);
    cli_die("command line: %s", message);
}

static int is_flag(const char *flags, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = flags; (p = strstr(p, name)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

void cli_parse_args(int argc, char **argv, const char *flags, struct cli_opts *o)
{
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *a = argv[i], *eq;
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) {
                if (o->npositional == 8) cli_die("too many file arguments (try --help)");
                o->positional[o->npositional++] = argv[i];
            }
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (o->npositional == 8) cli_die("too many file arguments (try --help)");
            o->positional[o->npositional++] = argv[i];
            continue;
        }
        if (a[1] != '-' && (a[2] != '\0' || !is_flag(flags, a + 1)))
            cli_die("unknown option '%s' (the short options are -q and -h; try --help)", a);
        a += a[1] == '-' ? 2 : 1;
        eq = strchr(a, '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq ? eq - a : (long)strlen(a)), a);
        normalise(name);
        if (eq)
            add(o, name, eq + 1, NULL, 0);
        else if (is_flag(flags, name))
            add(o, name, "1", NULL, 0);
        else if (i + 1 < argc)
            add(o, name, argv[++i], NULL, 0);
        else
            cli_die("option '%s' needs a value (try --help)", argv[i]);
    }
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t') s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) e--;
    *e = '\0';
    return s;
}

/* Drops one pair of matching quotes around a value: "binary:logistic" or 'hist'. */
static char *unquote(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
        s[n - 1] = '\0';
        return s + 1;
    }
    return s;
}

void cli_read_config(const char *path, struct cli_opts *o)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    if (f == NULL) cli_die("cannot open config file '%s': %s", path, strerror(errno));
    errno = 0;
    while (getline(&line, &cap, f) >= 0) {
        char *s, *eq, *hash;
        lineno++;
        /* a UTF-8 byte-order mark (Windows editors write one) is skipped, as in data files */
        if (lineno == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0) memmove(line, line + 3, strlen(line + 3) + 1);
        /* a comment starts at a '#' outside quotes ("train.txt#dtrain.cache" is XGBoost's cache URI) */
        for (hash = line; *hash && *hash != '#'; hash++)
            if (*hash == '"' && strchr(hash + 1, '"')) hash = strchr(hash + 1, '"');
        *hash = '\0';
        s = trim(line);
        if (*s == '\0') continue;
        eq = strchr(s, '=');
        if (eq == NULL) cli_die("%s:%u: expected 'name = value'", path, lineno);
        *eq = '\0';
        add(o, trim(s), unquote(trim(eq + 1)), path, lineno);
    }
    if (ferror(f) || errno == ENOMEM) cli_die("cannot read config file '%s': %s", path, strerror(errno));
    free(line);
    fclose(f);
}

const char *cli_get(const struct cli_opts *o, const char *name)
{
    for (size_t i = o->n; i-- > 0;)
        if (strcmp(o->v[i].name, name) == 0) return o->v[i].value;
    return NULL;
}

static const struct cli_opt *last_opt(const struct cli_opts *o, const char *name)
{
    for (size_t i = o->n; i-- > 0;)
        if (strcmp(o->v[i].name, name) == 0) return &o->v[i];
    return NULL;
}

int cli_parse_bool(const char *value)
{
    static const char *const spellings[][2] = {{"1", "0"}, {"true", "false"}, {"yes", "no"}, {"on", "off"}};
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
        for (int k = 0; k < 2; k++)
            if (strcasecmp(value, spellings[i][k]) == 0) return 1 - k;
    return -1;
}

int cli_flag(const struct cli_opts *o, const char *name)
{
    const struct cli_opt *opt = last_opt(o, name);
    char msg[1400];
    int v;
    if (opt == NULL) return 0;
    if ((v = cli_parse_bool(opt->value)) >= 0) return v;
    if (opt->file)
        snprintf(msg, sizeof msg, "%s = '%s': expected a boolean: 1/0, true/false, yes/no or on/off", name,
                 opt->value);
    else
        snprintf(msg, sizeof msg, "--%s='%s': expected a boolean: 1/0, true/false, yes/no or on/off", name,
                 opt->value);
    cli_die_option(opt, msg);
}

void cli_check_flags(const struct cli_opts *o, const char *flags)
{
    for (size_t i = 0; i < o->n; i++)
        if (is_flag(flags, o->v[i].name)) cli_flag(o, o->v[i].name);
}

/* Marks the features of the list `list` ("0,3" or "name:a,b") categorical in types. */
static void categorical_list(const struct cli_opt *opt, const gbt_dataset *d, uint64_t ncol, const char **types)
{
    const char *const *names = NULL;
    uint64_t nnames = 0;
    const int by_name = strncmp(opt->value, "name:", 5) == 0;
    const char *p = opt->value + (by_name ? 5 : 0);
    char msg[1400];
    if (by_name) gbt_dataset_get_feature_names(d, &names, &nnames);
    if (*p == '\0')
        cli_die_option(opt, by_name ? "--categorical_feature=name: names no feature (give names, name:a,b)"
                                    : "--categorical_feature is empty (give column numbers 0,3,7 or names name:a,b)");
    for (;;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        uint64_t f = ncol;
        if (by_name) {
            for (uint64_t i = 0; i < nnames; i++)
                if (strlen(names[i]) == len && strncmp(names[i], p, len) == 0) f = i;
            if (f == ncol) {
                snprintf(msg, sizeof msg, "--categorical_feature: no feature is named '%.*s'%s%s", (int)len, p,
                         len == 0 ? " (an empty name between commas)" : "",
                         nnames ? "" : " (the data has no feature names: give a CSV header with --header=1)");
                cli_die_option(opt, msg);
            }
        } else {
            char *stop;
            unsigned long long v;
            errno = 0;
            v = strtoull(p, &stop, 10);
            if (len == 0 || stop != p + len || errno != 0 || *p == '-' || *p == '+' || v >= ncol) {
                snprintf(msg, sizeof msg,
                         "--categorical_feature: '%.*s' is not a feature column from 0 to %llu (give column "
                         "numbers, or names as name:a,b)",
                         (int)len, p, (unsigned long long)(ncol - 1));
                cli_die_option(opt, msg);
            }
            f = v;
        }
        types[f] = "c";
        if (end == NULL) break;
        p = end + 1; /* "0,3," ends with an empty item: refused above */
    }
}

void cli_apply_feature_types(const struct cli_opts *o, gbt_dataset *d, const char *path)
{
    const struct cli_opt *cat = last_opt(o, "categorical_feature"), *ft = last_opt(o, "feature_types");
    uint64_t nrow, ncol;
    const char **types;
    gbt_status s;
    char msg[1400];
    if (cat == NULL && ft == NULL) return;
    if (cat && ft) cli_die_option(cat, "--categorical_feature and --feature_types both mark features: give one");
    gbt_dataset_shape(d, &nrow, &ncol);
    types = malloc((size_t)ncol * sizeof *types + 1);
    if (types == NULL) cli_die("out of memory");
    for (uint64_t f = 0; f < ncol; f++) types[f] = "q";
    if (cat) {
        categorical_list(cat, d, ncol, types);
    } else {
        /* XGBoost's list: one type a feature, comma-separated, brackets and quotes allowed */
        static char buf[sizeof ft->value];
        uint64_t n = 0;
        char *c = buf;
        int need_item = 1; /* at the start and after a comma, a type must come */
        snprintf(buf, sizeof buf, "%s", ft->value);
        /* types separated by commas (or spaces); brackets, quotes and spaces around them are dropped */
        for (;;) {
            while (*c == '[' || *c == ']' || *c == '"' || *c == '\'' || *c == ' ') *c++ = '\0';
            if ((*c == ',' && need_item) || (*c == '\0' && need_item && n > 0)) {
                /* "q,,c", ",q" or "q,c,": an item without a type */
                snprintf(msg, sizeof msg, "--feature_types: type %llu of '%s' is empty (give q or c for each feature)",
                         (unsigned long long)n + 1, ft->value);
                cli_die_option(ft, msg);
            }
            if (*c == '\0') break;
            if (*c == ',') {
                *c++ = '\0';
                need_item = 1;
                continue;
            }
            if (n < ncol) types[n] = c;
            n++;
            need_item = 0;
            while (*c && *c != ',' && *c != '[' && *c != ']' && *c != '"' && *c != '\'' && *c != ' ') c++;
        }
        if (n != ncol) {
            snprintf(msg, sizeof msg, "--feature_types: %s types for %s's %llu features", n > ncol ? "more" : "fewer",
                     path, (unsigned long long)ncol);
            cli_die_option(ft, msg);
        }
    }
    s = gbt_dataset_set_feature_types(d, types, ncol);
    free(types);
    if (s != GBT_OK) cli_die_status(s, cat ? "--categorical_feature" : "--feature_types");
}

static void log_to_stderr(int level, const char *msg, void *user)
{
    int quiet = *(int *)user;
    if (quiet && level >= GBT_LOG_INFO) return;
    if (quiet > 1 && level >= GBT_LOG_WARNING) return;
    if (level <= GBT_LOG_WARNING)
        fprintf(stderr, "%s: %s: %s\n", prog, level == GBT_LOG_ERROR ? "error" : "warning", msg);
    else
        fprintf(stderr, "%s\n", msg);
}

void cli_install_logger(int quiet)
{
    static int q;
    q = quiet;
    gbt_set_log_callback(log_to_stderr, &q);
}

void cli_out_open(struct cli_out *out, const char *path)
{
    char msg[8400];
    memset(out, 0, sizeof *out);
    out->o.fd = -1;
    if (path == NULL || strcmp(path, "-") == 0) {
        out->f = stdout;
        return;
    }
    out->path = strdup(path);
    if (out->path == NULL) cli_die("out of memory");
    if (gbt__outfile_open(&out->o, path, msg, sizeof msg) != 0) cli_die("%s", msg);
    out->f = fdopen(out->o.fd, "w");
    if (out->f == NULL) {
        int e = errno;
        gbt__outfile_abort(&out->o);
        cli_die("cannot write '%s': %s", path, strerror(e));
    }
}

void cli_out_write(struct cli_out *out, const void *p, size_t n)
{
    if (n > 0 && fwrite(p, 1, n, out->f) != n && out->err == 0) out->err = errno ? errno : EIO;
}

void cli_out_commit(struct cli_out *out)
{
    char msg[8400];
    int bad, e;
    if (out->path == NULL) {
        errno = 0;
        bad = fflush(stdout) != 0;
        e = bad ? errno : out->err;
        if (bad || ferror(stdout) || out->err)
            cli_die("cannot write standard output: %s", e ? strerror(e) : "a write failed");
        return;
    }
    errno = 0;
    bad = fflush(out->f) != 0;
    e = bad ? errno : out->err;
    bad |= ferror(out->f) || out->err;
    if (!bad && gbt__outfile_sync(&out->o, out->path, msg, sizeof msg) != 0) {
        fclose(out->f);
        out->o.fd = -1;
        gbt__outfile_abort(&out->o);
        cli_die("%s", msg);
    }
    if (fclose(out->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    out->o.fd = -1; /* fclose closed it */
    if (bad) {
        gbt__outfile_abort(&out->o);
        cli_die("cannot write '%s': %s", out->path, e ? strerror(e) : "a write failed");
    }
    if (gbt__outfile_commit(&out->o, out->path, msg, sizeof msg) != 0) cli_die("%s", msg);
    free(out->path);
    memset(out, 0, sizeof *out);
}

void cli_data_file(const char *path, char *buf, size_t len)
{
    struct stat st;
    snprintf(buf, len, "%s", path);
    if (stat(path, &st) != 0) buf[strcspn(buf, "?#")] = '\0';
}

/* The first bytes of a UBJSON model that the tools write (XGBoost's too). */
#define UBJ_HEAD "{L\0\0\0\0\0\0\0\x07learner{"

int cli_model_format(const char *path, int xgboost)
{
    const size_t n = strlen(path);
    if (n >= 4 && strcmp(path + n - 4, ".ubj") == 0) return GBT_MODEL_XGBOOST_UBJ;
    return xgboost ? GBT_MODEL_XGBOOST : GBT_MODEL_GBT;
}

void cli_check_output(const char *path, const char *const *inputs, int ninputs,
                      int (*is_ours)(const char *head), int force, const char *what)
{
    struct stat out, in;
    char head[4096];
    size_t n;
    FILE *f;
    /* stat follows symbolic links: a link is judged by the file it points at, the one replaced */
    if (path == NULL || strcmp(path, "-") == 0 || stat(path, &out) != 0) return;
    for (int i = 0; i < ninputs; i++) {
        char file[4096];
        if (inputs[i] == NULL) continue;
        cli_data_file(inputs[i], file, sizeof file); /* "train.csv?format=csv" is train.csv */
        if (stat(file, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino && S_ISREG(out.st_mode))
            cli_die("%s '%s' is the input file '%s'; refusing to overwrite it", what, path, file);
    }
    /* devices, FIFOs and sockets are written in place, never replaced: no content to judge */
    if (force || !S_ISREG(out.st_mode)) return;
    f = fopen(path, "r");
    if (f == NULL) return; /* writing it will say why */
    n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    /* a .ubj model is binary: its first bytes are the tools' UBJSON, "{", then the key "learner" */
    if (cli_model_format(path, 0) == GBT_MODEL_XGBOOST_UBJ && n >= sizeof UBJ_HEAD - 1 &&
        memcmp(head, UBJ_HEAD, sizeof UBJ_HEAD - 1) == 0)
        return;
    if (n > 0 && !is_ours(head))
        cli_die("%s '%s' exists and is not a file this tool writes; refusing to replace it "
                "(--force replaces it)", what, path);
}

void cli_check_writable(const char *path)
{
    struct gbt_outfile probe;
    char msg[8400];
    /* standard output, devices, FIFOs and sockets are not probed: opening a FIFO would end its reader's input */
    if (strcmp(path, "-") == 0 || gbt__outfile_in_place(path)) return;
    if (gbt__outfile_open(&probe, path, msg, sizeof msg) != 0) cli_die("%s", msg);
    gbt__outfile_abort(&probe);
}

void cli_save_model(const gbt_booster *b, const char *path, int xgboost, const char *doing)
{
    /* "-": the descriptor itself, which the library writes in place (outfile.h) */
    const char *p = strcmp(path, "-") == 0 ? "/dev/stdout" : path;
    gbt_status s;
    if (fflush(stdout) != 0) cli_die("cannot write standard output: %s", strerror(errno));
    s = gbt_booster_save_format(b, p, cli_model_format(path, xgboost));
    if (s != GBT_OK && p != path) cli_die("%s: standard output: %s", doing, gbt_last_error());
    if (s != GBT_OK) cli_die_status(s, doing);
}

int cli_help_or_version(struct cli_opts *o, const char *tool, void (*usage)(FILE *f))
{
    if (cli_flag(o, "help") || cli_flag(o, "h"))
        usage(stdout);
    else if (cli_flag(o, "version"))
        printf("%s %s\n%s\n", tool, gbt_version(), gbt_build_info());
    else
        return 0;
    free(o->v);
    return 1;
}

static void close_stdout(void)
{
    int bad, e;
    errno = 0;
    bad = fflush(stdout) != 0;
    e = errno;
    if (bad || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write standard output: %s\n", prog, bad && e ? strerror(e) : "a write failed");
        _exit(1);
    }
}

void cli_check_device(const char *device)
{
    const char *colon;
    gbt_status s;
    if (strncmp(device, "cuda", 4) != 0 && strncmp(device, "gpu", 3) != 0) return;
    colon = strchr(device, ':');
    s = gbt_device_describe(colon ? atoi(colon + 1) : 0, NULL, 0, NULL, NULL, NULL, NULL);
    if (s != GBT_OK) cli_die("device=%s: %s", device, gbt_last_error());
}

void cli_report_data(const char *path, const gbt_dataset *d, int only_side)
{
    static const char *const side[][2] = {{"weight", "weights"}, {"base_margin", "base margins"},
                                           {"lower", "lower bounds"}, {"upper", "upper bounds"},
                                           {"feature_weights", "feature weights"},
                                           {"group", "groups"},  {"query", "groups"}};
    size_t n = strlen(path) + 24, used = 0;
    char *name = malloc(n), *list = malloc(7 * (n + 32));
    uint64_t nrow = 0, ncol = 0;
    int groups = 0;
    struct stat st;
    /* the side files of a data URI's file (cli_data_file) */
    const int exists = stat(path, &st) == 0, file_len = (int)(exists ? strlen(path) : strcspn(path, "?#"));
    int binary = 0;
    if (name == NULL || list == NULL) cli_die("out of memory");
    list[0] = '\0';
    /* a binary dataset holds its fields: its side files were not read */
    if (exists && S_ISREG(st.st_mode) && gbt_dataset_is_binary(path, &binary) == GBT_OK && binary)
        used = (size_t)sprintf(list, " (a binary dataset)");
    for (int i = 0; i < 7 && !binary; i++) {
        snprintf(name, n, "%.*s.%s", file_len, path, side[i][0]);
        if (groups || stat(name, &st) != 0) continue;
        groups = i >= 5; /* FILE.query only without FILE.group */
        used += (size_t)sprintf(list + used, "; %s from %s", side[i][1], name);
    }
    gbt_dataset_shape(d, &nrow, &ncol);
    if (!only_side || used > 0)
        fprintf(stderr, "read %s: %llu rows, %llu features%s\n", path, (unsigned long long)nrow,
                (unsigned long long)ncol, list);
    free(name);
    free(list);
}

void cli_data_options(const struct cli_opts *o, const gbt_booster *b, char *buf, size_t len)
{
    const char *v;
    char nthread[32];
    size_t used = 0;
    buf[0] = '\0';
#define APPEND(key)                                                                      \
    if ((v = cli_get(o, key)) != NULL)                                                   \
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s=%s",     \
                                 used ? "," : "", key, v);
    APPEND("format")
    APPEND("label_column")
    if (cli_get(o, "header"))
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%sheader=%d", used ? "," : "",
                                 cli_flag(o, "header"));
    APPEND("delimiter")
    APPEND("missing")
    APPEND("indexing_mode")
    APPEND("progress")
#undef APPEND
    /* loading progress by default only where a person watches: on a terminal, not with -q */
    if (cli_get(o, "progress") == NULL && !cli_flag(o, "q") && !cli_flag(o, "quiet") && isatty(STDERR_FILENO))
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%sprogress=1", used ? "," : "");
    /* the readers use the booster's threads */
    if (gbt_booster_get_param(b, "nthread", nthread, sizeof nthread) == GBT_OK)
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%snthread=%s", used ? "," : "",
                                 nthread);
    if (used >= len) cli_die("data options are too long");
}

void cli_print_params(FILE *f, const char *const *defaults)
{
    fprintf(f, "Training parameters (XGBoost's names; '-' and '_' are the same):\n");
    for (int i = 0; i < gbt_param_count(); i++) {
        const char *name, *aliases, *type, *deflt, *range, *help;
        char head[600];
        gbt_param_describe(i, &name, &aliases, &type, &deflt, &range, &help);
        for (int k = 0; defaults && defaults[k]; k += 2)
            if (strcmp(defaults[k], name) == 0) deflt = defaults[k + 1];
        snprintf(head, sizeof head, "--%s=%s", name, type);
        fprintf(f, "  %-34s %s\n", head, help);
        fprintf(f, "  %-34s default %s%s%s%s%s\n", "", deflt[0] ? deflt : "(none)",
                range[0] ? ", range " : "", range, aliases[0] ? ", alias " : "", aliases);
    }
}

void cli_format_float(char *buf, size_t len, float v)
{
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(buf, len, "%.*g", digits, (double)v);
        if (strtof(buf, NULL) == v) return;
    }
}
