/*
 * outfile.c - output paths that never destroy what they point at
 * (outfile.h has the rules).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/outfile.h"

#define MAX_LINKS 40

static int say(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int say(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* The descriptor that path names (/dev/stdout, /dev/fd/N, /proc/self/fd/N, ...), or -1. */
static int fd_alias(const char *path)
{
    static const char *const prefix[] = {"/dev/fd/", "/proc/self/fd/"};
    char own[64];
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    for (int i = 0; i < 3; i++) {
        const char *p = i < 2 ? prefix[i] : own;
        size_t n = strlen(p);
        if (strncmp(path, p, n) == 0 && path[n] >= '0' && path[n] <= '9') {
            char *end;
            long fd = strtol(path + n, &end, 10);
            if (*end == '\0' && fd >= 0 && fd < 1 << 20) return (int)fd;
        }
    }
    return -1;
}

/* link's target resolved against the directory of the link `at` (a new string, or NULL). */
static char *beside(const char *at, const char *link)
{
    const char *slash = strrchr(at, '/');
    size_t dn = link[0] == '/' || slash == NULL ? 0 : (size_t)(slash - at) + 1;
    char *s = malloc(dn + strlen(link) + 1);
    if (s == NULL) return NULL;
    memcpy(s, at, dn);
    strcpy(s + dn, link);
    return s;
}

/* The symbolic link at cur, read (a new string), or NULL with errno. */
static char *read_link(const char *cur, size_t size)
{
    char *buf = malloc(size + 1);
    ssize_t n;
    if (buf == NULL) return NULL;
    n = readlink(cur, buf, size + 1);
    if (n < 0 || (size_t)n > size) {
        if (n >= 0) errno = ENAMETOOLONG;
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static int connect_socket(const char *path)
{
    struct sockaddr_un a;
    int fd;
    if (strlen(path) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strcpy(a.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/*
 * Opens an existing non-regular file in place; returns 1 when it turned
 * out to be a regular file after all (replaced meanwhile), 0 when open,
 * -1 on error.
 */
static int open_in_place(struct gbt_outfile *o, const char *path, const struct stat *st, char *msg, size_t len)
{
    struct stat now;
    int fd = S_ISSOCK(st->st_mode) ? connect_socket(path) : open(path, O_WRONLY | O_NOCTTY);
    if (fd < 0) return say(msg, len, "cannot write '%s': %s", path, strerror(errno));
    if (fstat(fd, &now) == 0 && S_ISREG(now.st_mode)) {
        close(fd);
        return 1;
    }
    o->fd = fd;
    o->in_place = 1;
    return 0;
}

/*
 * Follows the symbolic links from path to the file to replace (*target, a
 * new string); sets *alias to a descriptor met on the way, or -1.
 */
static int resolve(const char *path, char **target, int *alias, char *msg, size_t len)
{
    char *cur = strdup(path);
    struct stat st;
    *alias = -1;
    if (cur == NULL) return say(msg, len, "cannot write '%s': out of memory", path) - 1;
    for (int hops = 0;; hops++) {
        char *link, *next;
        if ((*alias = fd_alias(cur)) >= 0) break;
        if (lstat(cur, &st) != 0) {
            int e = errno;
            if (e == ENOENT && hops == 0) break; /* a new file */
            if (e == ENOENT)
                say(msg, len, "cannot write '%s': it is a symbolic link to '%s', which does not exist "
                              "(a dangling link is not followed)", path, cur);
            else
                say(msg, len, "cannot write '%s': %s", path, strerror(e));
            free(cur);
            return -1;
        }
        if (!S_ISLNK(st.st_mode)) break;
        if (hops == MAX_LINKS) {
            free(cur);
            return say(msg, len, "cannot write '%s': %s", path, strerror(ELOOP));
        }
        link = read_link(cur, st.st_size > 0 ? (size_t)st.st_size : 4096);
        next = link ? beside(cur, link) : NULL;
        if (next == NULL) {
            int e = errno;
            free(link);
            free(cur);
            return say(msg, len, "cannot write '%s': %s", path, strerror(e ? e : ENOMEM)) - (e == ENOMEM || !e);
        }
        free(link);
        free(cur);
        cur = next;
    }
    *target = cur;
    return 0;
}

int gbt__outfile_open(struct gbt_outfile *o, const char *path, char *msg, size_t len)
{
    static unsigned counter;
    struct stat st;
    int alias, have, r;
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if ((alias = fd_alias(path)) < 0 && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return say(msg, len, "cannot write '%s': it is a directory", path);
        if (!S_ISREG(st.st_mode)) {
            if ((r = open_in_place(o, path, &st, msg, len)) <= 0) return r;
        }
    }
    if (alias < 0 && (r = resolve(path, &o->target, &alias, msg, len)) != 0) return r;
    if (alias >= 0) {
        free(o->target);
        o->target = NULL;
        o->fd = fcntl(alias, F_DUPFD_CLOEXEC, 3);
        if (o->fd < 0) return say(msg, len, "cannot write '%s': %s", path, strerror(errno));
        o->in_place = 1;
        return 0;
    }
    have = stat(o->target, &st) == 0;
    if (have && !S_ISREG(st.st_mode)) {
        /* a link to a device, FIFO or socket that stat(path) missed: created meanwhile */
        free(o->target);
        o->target = NULL;
        return say(msg, len, "cannot write '%s': it changed while being opened", path);
    }
    o->tmp = malloc(strlen(o->target) + 48);
    if (o->tmp == NULL) {
        gbt__outfile_abort(o);
        return say(msg, len, "cannot write '%s': out of memory", path) - 1;
    }
    for (int attempt = 0; attempt < 100 && o->fd < 0; attempt++) {
        sprintf(o->tmp, "%s.tmp.%ld.%u", o->target, (long)getpid(),
                __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (o->fd < 0 && errno != EEXIST) {
            int e = errno;
            if (strcmp(o->target, path) != 0)
                say(msg, len, "cannot write '%s' (a link to '%s'): %s", path, o->target, strerror(e));
            else
                say(msg, len, "cannot write '%s': %s", path, strerror(e));
            free(o->tmp);
            o->tmp = NULL;
            gbt__outfile_abort(o);
            return -1;
        }
    }
    if (o->fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        gbt__outfile_abort(o);
        return say(msg, len, "cannot create a temporary file next to '%s'", path);
    }
    /* the replaced file's permissions stay (the owner may differ: then the new file is ours) */
    if (have) (void)fchmod(o->fd, st.st_mode & 07777);
    return 0;
}

int gbt__outfile_write(struct gbt_outfile *o, const char *path, const void *p, size_t n, char *msg, size_t len)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(o->fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return say(msg, len, "cannot write '%s': %s", path, w < 0 ? strerror(errno) : "short write");
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int gbt__outfile_sync(struct gbt_outfile *o, const char *path, char *msg, size_t len)
{
    if (o->in_place || o->fd < 0 || fsync(o->fd) == 0) return 0;
    return say(msg, len, "cannot write '%s': %s", path, strerror(errno));
}

/* Syncs the directory that holds file, so that a rename in it survives a power loss. */
static int sync_dir(const char *file)
{
    const char *slash = strrchr(file, '/');
    size_t n = slash == NULL ? 1 : slash == file ? 1 : (size_t)(slash - file);
    char buf[4096], *dir = n < sizeof buf ? buf : malloc(n + 1);
    int fd, r = 0;
    if (dir == NULL) return ENOMEM;
    memcpy(dir, slash ? file : ".", n);
    dir[n] = '\0';
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir != buf) free(dir);
    if (fd < 0) return errno;
    /* some file systems cannot sync a directory (EINVAL): there is nothing more to do there */
    if (fsync(fd) != 0 && errno != EINVAL) r = errno;
    close(fd);
    return r;
}

int gbt__outfile_commit(struct gbt_outfile *o, const char *path, char *msg, size_t len)
{
    int r = 0, e;
    if (o->fd >= 0) {
        r = gbt__outfile_sync(o, path, msg, len);
        if (close(o->fd) != 0 && r == 0 && errno != EINTR)
            r = say(msg, len, "cannot write '%s': %s", path, strerror(errno));
        o->fd = -1;
    }
    if (r == 0 && !o->in_place) {
        if (rename(o->tmp, o->target) != 0)
            r = say(msg, len, "cannot write '%s': %s", path, strerror(errno));
        else if ((e = sync_dir(o->target)) != 0) {
            /* the new file is in place; whether it outlives a power loss is not known */
            free(o->tmp);
            o->tmp = NULL;
            r = say(msg, len, "cannot sync the directory of '%s': %s", path, strerror(e));
        } else {
            free(o->tmp);
            o->tmp = NULL;
        }
    }
    gbt__outfile_abort(o);
    return r;
}

void gbt__outfile_abort(struct gbt_outfile *o)
{
    if (o->fd >= 0) close(o->fd);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->target);
    o->fd = -1;
    o->tmp = o->target = NULL;
}

int gbt__outfile_in_place(const char *path)
{
    struct stat st;
    char msg[8], *target = NULL;
    int alias;
    if (fd_alias(path) >= 0) return 1;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return !S_ISDIR(st.st_mode);
    if (resolve(path, &target, &alias, msg, sizeof msg) != 0) return 0;
    free(target);
    return alias >= 0;
}
