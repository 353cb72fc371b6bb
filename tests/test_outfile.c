/*
 * test_outfile.c - the tools' and gbt_booster_save's output code
 * (src/util/outfile.c), exhaustively: every kind of path it may be given,
 * times every system call it makes failing in turn, in every way that call
 * can fail.
 *
 * The program defines open, write, fsync, close and rename itself (they
 * call the kernel directly), so that outfile.c's calls come here.  A sweep
 * runs "open PATH, write two pieces, commit" once to count the calls, then
 * again with call n failing, for every n and every fault of that call:
 * an error (EIO, ENOSPC, EACCES, ...), EINTR, a short write, or EINVAL
 * from a directory's fsync.  After each run:
 *   - a success wrote the whole new text to the target, in place or in
 *     the file the links lead to, the links still links and an existing
 *     file's permission bits kept;
 *   - a failure said so in a message naming the path as given, and left
 *     the target as it was (a file's old text, or no file), except after
 *     the rename, when only the directory's sync failed and the message
 *     says that;
 *   - no temporary file is left, and nothing that was not a regular file
 *     (directory, FIFO, socket, link) became one.
 * Every node is made under the test's own temporary directory.
 */
#undef _FORTIFY_SOURCE
#define _DEFAULT_SOURCE /* syscall */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "tap.h"
#include "util/outfile.h"

/* ---- the interposed calls --------------------------------------------------- */

enum fault { F_NONE, F_ERROR, F_EINTR, F_SHORT, F_EINVAL };
static const char *const fault_name[] = {"none", "an error", "EINTR", "a short write", "EINVAL"};

static int armed;        /* count (and maybe fail) calls */
static int calls;        /* calls counted since arming */
static int fail_at = -1; /* the call that fails */
static enum fault fault;
#define MAX_CALLS 64
static char names[MAX_CALLS][8]; /* the calls of the last run, in order */

/* Whether this call fails, and how; records its name. */
static enum fault hit(const char *name)
{
    if (!armed) return F_NONE;
    if (calls < MAX_CALLS) snprintf(names[calls], sizeof names[calls], "%s", name);
    return calls++ == fail_at ? fault : F_NONE;
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    switch (hit("open")) {
    case F_ERROR: errno = (flags & O_CREAT) ? ENOSPC : EACCES; return -1;
    case F_EINTR: errno = EINTR; return -1;
    default: return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    }
}

ssize_t write(int fd, const void *p, size_t n)
{
    switch (hit("write")) {
    case F_ERROR: errno = ENOSPC; return -1;
    case F_EINTR: errno = EINTR; return -1;
    case F_SHORT: return (ssize_t)syscall(SYS_write, fd, p, n > 1 ? (size_t)1 : n);
    default: return (ssize_t)syscall(SYS_write, fd, p, n);
    }
}

int fsync(int fd)
{
    switch (hit("fsync")) {
    case F_ERROR: errno = EIO; return -1;
    case F_EINVAL: errno = EINVAL; return -1;
    default: return (int)syscall(SYS_fsync, fd);
    }
}

int close(int fd)
{
    /* Linux closes the descriptor whatever close returns */
    const enum fault f = hit("close");
    const int r = (int)syscall(SYS_close, fd);
    if (f == F_ERROR) errno = EIO;
    if (f == F_EINTR) errno = EINTR;
    return f == F_ERROR || f == F_EINTR ? -1 : r;
}

int rename(const char *from, const char *to)
{
    if (hit("rename") == F_ERROR) {
        errno = EXDEV;
        return -1;
    }
    return (int)syscall(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to);
}

/* The faults a call can have (F_NONE ends the list). */
static const enum fault *faults_of(const char *name)
{
    static const enum fault open_f[] = {F_ERROR, F_NONE}, write_f[] = {F_ERROR, F_EINTR, F_SHORT, F_NONE},
                            fsync_f[] = {F_ERROR, F_EINVAL, F_NONE}, close_f[] = {F_ERROR, F_EINTR, F_NONE},
                            rename_f[] = {F_ERROR, F_NONE};
    if (strcmp(name, "open") == 0) return open_f;
    if (strcmp(name, "write") == 0) return write_f;
    if (strcmp(name, "fsync") == 0) return fsync_f;
    if (strcmp(name, "close") == 0) return close_f;
    return rename_f;
}

/* ---- the paths ---------------------------------------------------------------- */

static char dir[256];

enum kind {
    K_NEW,           /* no file yet */
    K_FILE,          /* a regular file, mode 0640, old text */
    K_LINK,          /* a relative link to such a file */
    K_LINK_CHAIN,    /* an absolute link to a relative link to the file */
    K_DANGLING,      /* a link to a file that does not exist: refused */
    K_LOOP,          /* two links to each other: refused */
    K_DIR,           /* a directory: refused */
    K_NO_DIR,        /* a file in a directory that does not exist: refused */
    K_FIFO,          /* a FIFO with a reader: written in place */
    K_LINK_FIFO,     /* a link to that FIFO */
    K_PIPE_FD,       /* /dev/fd/N of a pipe's write end */
    K_SOCKET,        /* a listening UNIX socket: connected to, written in place */
    K_COUNT
};
static const char *const kind_name[] = {"a new file", "a file", "a link to a file", "a chain of two links",
                                        "a dangling link", "a link loop", "a directory",
                                        "a file in a missing directory", "a FIFO", "a link to a FIFO",
                                        "/dev/fd/N of a pipe", "a UNIX socket"};

static const char old_text[] = "the old model\n";
static const char new_a[] = "{\"a new\": ", new_b[] = "\"model\"}\n";

struct setup {
    char path[512];   /* given to outfile */
    char target[512]; /* where a replaced file's text ends up; "" in place or refused */
    int reader;       /* FIFO, pipe or socket: the end to read from, else -1 */
    int listener;     /* socket: the listening socket */
    int pipe_w;       /* pipe: the write end (the path names it) */
    int refused;      /* the open must fail whatever happens */
    const char *refusal; /* what its message says */
};

static void path_in(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    chmod(path, mode);
}

/* Empties the directory (one level, and the subdirectory of K_DIR). */
static void clear_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[600];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0) rmdir(p);
    }
    if (d) closedir(d);
}

static int make(enum kind k, struct setup *s)
{
    char p[512], q[512];
    memset(s, 0, sizeof *s);
    s->reader = s->listener = s->pipe_w = -1;
    clear_dir();
    switch (k) {
    case K_NEW:
        path_in(s->path, sizeof s->path, "new.model");
        strcpy(s->target, s->path);
        break;
    case K_FILE:
        path_in(s->path, sizeof s->path, "old.model");
        write_file(s->path, old_text, 0640);
        strcpy(s->target, s->path);
        break;
    case K_LINK:
        path_in(s->target, sizeof s->target, "real.model");
        write_file(s->target, old_text, 0640);
        path_in(s->path, sizeof s->path, "link.model");
        if (symlink("real.model", s->path) != 0) return -1;
        break;
    case K_LINK_CHAIN:
        path_in(s->target, sizeof s->target, "real.model");
        write_file(s->target, old_text, 0640);
        path_in(p, sizeof p, "hop.model");
        if (symlink("real.model", p) != 0) return -1;
        path_in(s->path, sizeof s->path, "link.model");
        if (symlink(p, s->path) != 0) return -1;
        break;
    case K_DANGLING:
        path_in(s->path, sizeof s->path, "dangling.model");
        if (symlink("nowhere.model", s->path) != 0) return -1;
        s->refused = 1;
        s->refusal = "dangling link";
        break;
    case K_LOOP:
        path_in(s->path, sizeof s->path, "a.model");
        path_in(p, sizeof p, "b.model");
        if (symlink("b.model", s->path) != 0 || symlink("a.model", p) != 0) return -1;
        s->refused = 1;
        s->refusal = "symbolic links";
        break;
    case K_DIR:
        path_in(s->path, sizeof s->path, "sub");
        if (mkdir(s->path, 0755) != 0) return -1;
        s->refused = 1;
        s->refusal = "it is a directory";
        break;
    case K_NO_DIR:
        path_in(s->path, sizeof s->path, "missing/new.model");
        s->refused = 1;
        s->refusal = "No such file or directory";
        break;
    case K_FIFO:
    case K_LINK_FIFO:
        path_in(p, sizeof p, "fifo");
        if (mkfifo(p, 0600) != 0) return -1;
        /* the reader is there first (non-blocking), so that the writer's open does not wait */
        s->reader = (int)syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_NONBLOCK, 0);
        if (k == K_FIFO) {
            strcpy(s->path, p);
        } else {
            path_in(s->path, sizeof s->path, "link.fifo");
            if (symlink("fifo", s->path) != 0) return -1;
        }
        break;
    case K_PIPE_FD: {
        int fds[2];
        if (pipe(fds) != 0) return -1;
        s->reader = fds[0];
        s->pipe_w = fds[1];
        fcntl(s->reader, F_SETFL, O_NONBLOCK);
        snprintf(s->path, sizeof s->path, "/dev/fd/%d", s->pipe_w);
        break;
    }
    case K_SOCKET: {
        struct sockaddr_un a;
        path_in(q, sizeof q, "sock");
        memset(&a, 0, sizeof a);
        a.sun_family = AF_UNIX;
        if (strlen(q) >= sizeof a.sun_path) return -1;
        strcpy(a.sun_path, q);
        s->listener = socket(AF_UNIX, SOCK_STREAM, 0);
        if (s->listener < 0 || bind(s->listener, (struct sockaddr *)&a, sizeof a) != 0 ||
            listen(s->listener, 4) != 0)
            return -1;
        strcpy(s->path, q);
        break;
    }
    default: return -1;
    }
    return 0;
}

/* The text of a file (up to 4 KB), "" when it is not a regular file; -1 when there is none. */
static int slurp(const char *path, char *buf, size_t len)
{
    struct stat st;
    FILE *f;
    size_t n;
    buf[0] = '\0';
    if (lstat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) return 0;
    f = fopen(path, "r");
    if (f == NULL) return -1;
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return (int)n;
}

/* What reached the reader of a FIFO, pipe or socket. */
static void drain(struct setup *s, char *buf, size_t len)
{
    size_t n = 0;
    int fd = s->reader;
    buf[0] = '\0';
    if (s->listener >= 0) {
        fd = accept(s->listener, NULL, NULL);
        if (fd >= 0) fcntl(fd, F_SETFL, O_NONBLOCK);
    }
    while (fd >= 0 && n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    if (s->listener >= 0 && fd >= 0) syscall(SYS_close, fd);
}

static void teardown(struct setup *s)
{
    if (s->reader >= 0) syscall(SYS_close, s->reader);
    if (s->listener >= 0) syscall(SYS_close, s->listener);
    if (s->pipe_w >= 0) syscall(SYS_close, s->pipe_w);
}

/* A name in the directory holding ".tmp.": a temporary file left behind. */
static int leftover(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)) != NULL) found |= strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return found;
}

/* The kinds of the nodes that must stay what they were (links, FIFO, socket, directory). */
static int nodes_kept(enum kind k, const struct setup *s)
{
    struct stat st;
    char p[512];
    switch (k) {
    case K_LINK:
    case K_LINK_CHAIN:
    case K_DANGLING:
    case K_LOOP:
    case K_LINK_FIFO:
        if (lstat(s->path, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
        if (k == K_LINK_CHAIN) {
            path_in(p, sizeof p, "hop.model");
            if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
        }
        if (k == K_LINK_FIFO) {
            path_in(p, sizeof p, "fifo");
            return lstat(p, &st) == 0 && S_ISFIFO(st.st_mode);
        }
        if (k == K_DANGLING) {
            path_in(p, sizeof p, "nowhere.model");
            return lstat(p, &st) != 0;
        }
        return 1;
    case K_FIFO: return lstat(s->path, &st) == 0 && S_ISFIFO(st.st_mode);
    case K_SOCKET: return lstat(s->path, &st) == 0 && S_ISSOCK(st.st_mode);
    case K_DIR: return lstat(s->path, &st) == 0 && S_ISDIR(st.st_mode);
    default: return 1;
    }
}

/* One run: open, two writes, commit (or abort after a failed write). 0 or -1 with msg. */
static int run(const char *path, char *msg, size_t len)
{
    struct gbt_outfile o;
    int r;
    msg[0] = '\0';
    armed = 1;
    calls = 0;
    r = gbt__outfile_open(&o, path, msg, len);
    if (r == 0) r = gbt__outfile_write(&o, path, new_a, strlen(new_a), msg, len);
    if (r == 0) r = gbt__outfile_write(&o, path, new_b, strlen(new_b), msg, len);
    if (r == 0)
        r = gbt__outfile_commit(&o, path, msg, len);
    else if (o.fd >= 0 || o.tmp)
        gbt__outfile_abort(&o);
    armed = 0;
    return r;
}

/*
 * Whether an error of call n must fail the run: every call's, except a
 * close after the rename (the directory's, once synced).
 */
static int must_report(int n)
{
    int rename_at = -1;
    for (int i = 0; i < MAX_CALLS && names[i][0]; i++)
        if (strcmp(names[i], "rename") == 0) rename_at = i;
    return strcmp(names[n], "close") != 0 || rename_at < 0 || n < rename_at;
}

/* Checks one run of kind k with call n failing by f (n = -1: none); 1 when every rule held. */
static int check(enum kind k, int n, enum fault f, int *ncalls)
{
    struct setup s;
    char msg[1024], text[4096], want[128], what[160];
    struct stat st;
    int r, good = 1, sync_only;
    snprintf(want, sizeof want, "%s%s", new_a, new_b);
    snprintf(what, sizeof what, "%s, call %d (%s) failing with %s", kind_name[k], n,
             n >= 0 && n < MAX_CALLS ? names[n] : "-", fault_name[f]);
    if (make(k, &s) != 0) {
        diag("%s: set-up failed: %s", what, strerror(errno));
        teardown(&s);
        return 0;
    }
    fail_at = n;
    fault = f;
    r = run(s.path, msg, sizeof msg);
    fail_at = -1;
    if (ncalls) *ncalls = calls;
    sync_only = strstr(msg, "cannot sync the directory of") != NULL;
    if (s.refused) {
        if (r == 0 || strstr(msg, s.path) == NULL || (n < 0 && strstr(msg, s.refusal) == NULL)) {
            diag("%s: expected a refusal naming '%s' (%s), got %d: %s", what, s.path, s.refusal, r, msg);
            good = 0;
        }
    } else if (r == 0) {
        if (s.target[0]) {
            if (slurp(s.target, text, sizeof text) < 0 || strcmp(text, want) != 0) {
                diag("%s: success, but '%s' holds '%s'", what, s.target, text);
                good = 0;
            }
            if (k != K_NEW && (stat(s.target, &st) != 0 || (st.st_mode & 07777) != 0640)) {
                diag("%s: the file's mode is not 0640 any more", what);
                good = 0;
            }
        } else {
            drain(&s, text, sizeof text);
            if (strcmp(text, want) != 0) {
                diag("%s: success, but the reader got '%s'", what, text);
                good = 0;
            }
        }
    } else {
        if (msg[0] == '\0' || strstr(msg, s.path) == NULL) {
            diag("%s: a failure whose message does not name '%s': %s", what, s.path, msg);
            good = 0;
        }
        if (s.target[0]) {
            const int have = slurp(s.target, text, sizeof text);
            const int as_before = k == K_NEW ? have < 0 : have >= 0 && strcmp(text, old_text) == 0;
            const int replaced = have >= 0 && strcmp(text, want) == 0;
            if (!(as_before || (sync_only && replaced))) {
                diag("%s: failed (%s) and left '%s' holding '%s'", what, msg, s.target,
                     have < 0 ? "(no file)" : text);
                good = 0;
            }
        }
    }
    if (r == 0 && f == F_ERROR && must_report(n)) {
        diag("%s: the error was not reported", what);
        good = 0;
    }
    if (leftover()) {
        diag("%s: a temporary file was left", what);
        good = 0;
    }
    if (!nodes_kept(k, &s)) {
        diag("%s: a link, FIFO, socket or directory was replaced", what);
        good = 0;
    }
    teardown(&s);
    return good;
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    int total = 0;
    snprintf(dir, sizeof dir, "%s/gbt-outfile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        ok(0, "a temporary directory: %s", strerror(errno));
        return done_testing();
    }
    for (int k = 0; k < K_COUNT; k++) {
        char seen[MAX_CALLS][8], list[MAX_CALLS * 8] = "";
        int ncalls = 0, runs = 1;
        /* without failures first: the calls it makes, by name */
        int good;
        memset(names, 0, sizeof names);
        good = check((enum kind)k, -1, F_NONE, &ncalls);
        if (ncalls > MAX_CALLS) ncalls = MAX_CALLS;
        memcpy(seen, names, sizeof seen);
        for (int n = 0; n < ncalls; n++) {
            strcat(list, n ? " " : "");
            strcat(list, seen[n]);
            for (const enum fault *f = faults_of(seen[n]); *f != F_NONE; f++, runs++) {
                memcpy(names, seen, sizeof names);
                good &= check((enum kind)k, n, *f, NULL);
            }
        }
        total += runs;
        ok(good, "%s: each of its %d calls (%s) failing every way it can, %d runs: the rules hold",
           kind_name[k], ncalls, list, runs);
    }
    diag("%d runs in all", total);
    clear_dir();
    rmdir(dir);
    return done_testing();
}
