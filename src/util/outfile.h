/*
 * outfile.h - opening an output path without destroying what it names:
 * the rules of gbt_booster_save and of every output of the tools.
 *
 *   - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are the
 *     process's open descriptor N, written in place (a duplicate of it).
 *   - A character device, FIFO or socket (the path or, through symbolic
 *     links, its target) is written in place, streamed: never truncated,
 *     never replaced.  A socket is connected to (AF_UNIX, stream).
 *   - A regular file, or a path that does not exist, is written to a
 *     temporary file beside it (PATH.tmp.PID.N), synced and renamed over
 *     it, and the directory is synced after the rename.  An existing file's
 *     permission bits are kept.
 *   - A symbolic link is followed to its final target, which is replaced
 *     as above; the links stay.  A dangling link, a loop, or a target in a
 *     directory that cannot hold the temporary file is refused.
 *   - A directory is refused.
 *
 * Self-contained (POSIX only), so that the tools, which use only gbt.h,
 * compile it too.  Messages are written into the caller's buffer and name
 * the path as the caller gave it.
 */
#ifndef GBT_OUTFILE_H
#define GBT_OUTFILE_H

#include <stddef.h>

struct gbt_outfile {
    int fd;          /* where to write, -1 once closed */
    int in_place;    /* 1: streamed into a device, FIFO, socket or descriptor (no rename) */
    char *target;    /* the file replaced (symbolic links followed); NULL in place */
    char *tmp;       /* the temporary file beside it; NULL in place */
};

/*
 * Opens path for writing as above.  Returns 0, or -1 with the reason in
 * msg ("cannot write 'PATH': ..."), -2 when that reason is a failed
 * allocation.  A FIFO's open waits for its reader.
 */
int gbt__outfile_open(struct gbt_outfile *o, const char *path, char *msg, size_t len);

/* Writes n bytes at p to o->fd (restarting after EINTR); 0 or -1 with msg. */
int gbt__outfile_write(struct gbt_outfile *o, const char *path, const void *p, size_t n, char *msg,
                       size_t len);

/*
 * Finishes: syncs and closes o->fd (unless the caller closed it and set it
 * to -1, after its own sync through gbt__outfile_sync), renames the
 * temporary file over the target and syncs the directory.  On failure the
 * temporary file is removed; 0 or -1 with msg.  Frees o's strings either way.
 */
int gbt__outfile_commit(struct gbt_outfile *o, const char *path, char *msg, size_t len);

/* Syncs o->fd when it is a temporary file (in place: nothing); 0 or -1 with msg. */
int gbt__outfile_sync(struct gbt_outfile *o, const char *path, char *msg, size_t len);

/* Gives up: closes o->fd if open, removes the temporary file, frees o's strings. */
void gbt__outfile_abort(struct gbt_outfile *o);

/*
 * 1 when path would be written in place (descriptor, device, FIFO,
 * socket, or a link to one): it is neither probed nor replaced.
 */
int gbt__outfile_in_place(const char *path);

#endif
