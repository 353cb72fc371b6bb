/*
 * nomem_cli.h - the allocation-failure sweep of a command-line tool: the
 * tool's main, built into the test program (as tool_main), runs in a
 * forked child with the n-th allocation failing, for n = 0, 1, ... until
 * the run no longer allocates that many times.  Every run must end with
 * status 0 and the output of the run without failures, or with status 1
 * and a message "PROG: ..." on standard error; never by a signal (a crash,
 * or SIGALRM after 60 s: a hang), never leaving a temporary file or an
 * output file other than the complete one.  Blocks live at the end of a
 * run that returns from main are counted too (a run that exits with
 * status 1 hands its memory back with the process).
 */
#ifndef GBT_TESTS_NOMEM_CLI_H
#define GBT_TESTS_NOMEM_CLI_H

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nomem.h"
#include "testutil.h"

int tool_main(int argc, char **argv);

/* The whole content of a file (NULL if it does not exist); *len its bytes. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    size_t cap = 0;
    *len = 0;
    if (f == NULL) return NULL;
    for (;;) {
        if (*len + 4096 > cap) s = realloc(s, cap = 2 * cap + 4096);
        size_t got = fread(s + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    fclose(f);
    return s;
}

/* Runs tool_main(argv) in a child with allocation n failing; its wait status. */
static int run_tool(char **argv, long n, const char *log)
{
    int argc = 0, st = 0;
    pid_t pid;
    while (argv[argc]) argc++;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int rc;
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(99);
        close(fd);
        alarm(60);
        arm(n);
        rc = tool_main(argc, argv);
        disarm();
        /* a run that returns from main has freed what it allocated (stdout's buffer aside) */
        if (rc == 0 && nm->live > 1) rc = 98;
        exit(rc);
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return st;
}

/*
 * The sweep of one command line; `out` is the file it writes (removed
 * before each run), `prog` the name its messages start with.
 */
static void cli_sweep(const char *what, char **argv, const char *out, const char *prog)
{
    char log[600], cmd[700], needle[64];
    char *ref, *got, *msg;
    size_t ref_len, got_len, msg_len;
    long n;
    int crashes = 0, hangs = 0, silent = 0, wrong = 0, leaks = 0, partial = 0, other = 0, st;
    snprintf(log, sizeof log, "%s/tool.log", tu_tmpdir());
    snprintf(needle, sizeof needle, "%s: ", prog);
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '[.]tmp[.]'", tu_tmpdir());
    {
        /*
         * libgomp allocates its thread pool at the first parallel region and
         * exits the process ("libgomp: Out of memory") when that fails: it
         * cannot be caught (docs/reliability.md).  Made here, before the
         * fork, the children inherit it and the sweep tests gbt's own code.
         */
        const char *const p[] = {"nthread=1", NULL};
        gbt_dataset *d = tu_dataset(20, 2, 0, 0);
        gbt_booster_free(tu_train(d, 1, p));
        gbt_dataset_free(d);
    }
    unlink(out);
    st = run_tool(argv, -1, log);
    ref = slurp(out, &ref_len);
    if (!ok(st == 0 && ref != NULL, "%s: runs without failures", what)) return;
    for (n = 0; n < 100000; n++) {
        unlink(out);
        st = run_tool(argv, n, log);
        got = slurp(out, &got_len);
        msg = slurp(log, &msg_len);
        if (msg) msg[msg_len ? msg_len - 1 : 0] = '\0';
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
            if (!hangs++) diag("%s: allocation %ld failed: no end after 60 s", what, n);
        } else if (WIFSIGNALED(st)) {
            if (!crashes++) diag("%s: allocation %ld failed: signal %d: %s", what, n, WTERMSIG(st), msg ? msg : "");
        } else if (WIFEXITED(st) && WEXITSTATUS(st) == 98) {
            if (!leaks++) diag("%s: allocation %ld failed: blocks left at the end of main", what, n);
        } else if (WIFEXITED(st) && WEXITSTATUS(st) == 1) {
            if ((msg == NULL || strstr(msg, needle) == NULL) && !silent++)
                diag("%s: allocation %ld failed: status 1 without a message: '%s'", what, n, msg ? msg : "");
        } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            if (!other++) diag("%s: allocation %ld failed: wait status %d: %s", what, n, st, msg ? msg : "");
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && (got == NULL || got_len != ref_len || memcmp(got, ref, ref_len)))
            if (!wrong++) diag("%s: allocation %ld failed: status 0 but not the output of the run without failures", what, n);
        if ((got && (got_len != ref_len || memcmp(got, ref, ref_len))) || system(cmd) == 0)
            if (!partial++) diag("%s: allocation %ld failed: a partial or temporary file is left", what, n);
        free(got);
        free(msg);
        if (nm->allocs <= n) break;
    }
    ok(crashes == 0 && hangs == 0 && other == 0, "%s: none of %ld failed allocations crashes or hangs", what, n);
    ok(silent == 0, "%s: each failure exits with status 1 and a message", what);
    ok(wrong == 0, "%s: each success writes the right output", what);
    ok(leaks == 0, "%s: a run that returns frees what it allocated", what);
    ok(partial == 0, "%s: no partial or temporary file is left", what);
    free(ref);
}

#endif
