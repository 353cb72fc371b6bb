/*
 * interrupt.c - gbtrain's SIGINT and SIGTERM (interrupt.h has the rules).
 *
 * The handler may run on any thread (OpenMP's workers do not block
 * signals), so it touches only lock-free atomics and write(2); what needs
 * more (removing a temporary file, the final message) the main thread
 * does when it sees the flags.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "util/outfile.h"

/* the phases of interrupt.h, and the save's two (in a temporary file; streamed in place) */
enum { SAVE_TMP = INTERRUPT_TRAIN + 1, SAVE_IN_PLACE };

static atomic_int phase = INTERRUPT_SETUP;
static atomic_int first;     /* the first signal, 0 before it */
static atomic_int count;     /* the signals so far */
static atomic_int cancelled; /* a second signal during a save into a temporary file */
static gbt_booster *_Atomic training;
/* what the model file holds, for the handler: two buffers, the one in use flipped after the other is written */
static char held[2][4200];
static atomic_int held_at;

static void say(const char *text)
{
    /* write(2) is what a signal handler may call; a short write loses only words */
    ssize_t n = write(STDERR_FILENO, text, strlen(text));
    (void)n;
}

/* Ends the run from the handler: "PROG: WHY (what the model file holds)"; exit status 130. */
static void stop_now(const char *why, int with_held)
{
    say(cli_prog());
    say(why);
    if (with_held) {
        say(" (");
        say(held[atomic_load(&held_at)]);
        say(")");
    }
    say("\n");
    _exit(130);
}

static void on_signal(int sig)
{
    const int ph = atomic_load(&phase);
    int expected = 0;
    const int is_first = atomic_compare_exchange_strong(&first, &expected, sig);
    gbt_booster *b = atomic_load(&training);
    atomic_fetch_add(&count, 1);
    if (ph == INTERRUPT_SETUP)
        stop_now(sig == SIGINT ? ": interrupted before training: nothing written"
                               : ": terminated before training: nothing written", 1);
    /* the probe's temporary file is removed by the main thread, which then stops */
    if (ph == INTERRUPT_PROBE) return;
    if (!is_first) {
        if (ph == SAVE_TMP) {
            atomic_store(&cancelled, 1); /* the main thread removes the temporary file and stops */
            return;
        }
        if (ph == SAVE_IN_PLACE)
            stop_now(": interrupted again: stopping at once; the model streamed in place (standard output, a "
                     "device, FIFO or socket) is incomplete", 0);
        stop_now(": interrupted again: stopping at once; the rounds since the last save are not saved", 1);
    }
    if (b) gbt_booster_request_stop(b);
    say(cli_prog());
    say(sig == SIGINT ? ": interrupted (SIGINT)" : ": terminated (SIGTERM)");
    say(ph == INTERRUPT_TRAIN ? ": finishing the round in progress, then saving the model of the finished rounds "
                                "(again: stop at once)\n"
                              : ": finishing the save in progress, then stopping (again: stop at once, "
                                "abandoning the save)\n");
}

void interrupt_init(void)
{
    struct sigaction sa;
    snprintf(held[0], sizeof held[0], "the model file untouched");
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* one handler at a time: the second signal's finds the first's */
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void interrupt_phase(enum interrupt_phase p, gbt_booster *b)
{
    atomic_store(&training, b);
    atomic_store(&phase, (int)p);
    if (p == INTERRUPT_SETUP && atomic_load(&first) != 0)
        stop_now(atomic_load(&first) == SIGINT ? ": interrupted before training: nothing written"
                                               : ": terminated before training: nothing written", 1);
}

int interrupt_signal(void)
{
    return atomic_load(&first);
}

void interrupt_held(const char *text)
{
    const int next = !atomic_load(&held_at);
    snprintf(held[next], sizeof held[next], "%s", text);
    atomic_store(&held_at, next);
}

const char *interrupt_held_text(void)
{
    return held[atomic_load(&held_at)];
}

void interrupt_pause(const char *where)
{
    const char *v = getenv("GBTRAIN_TEST_PAUSE");
    const size_t n = strlen(where);
    if (v == NULL || strncmp(v, where, n) != 0 || v[n] != ':') return;
    fprintf(stderr, "%s: test pause: %s\n", cli_prog(), where);
    for (int i = 0; i < 3000 && atomic_load(&count) < atoi(v + n + 1); i++) {
        const struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
}

/* Dies with the save's message; standard output named as such (cli_save_model's words). */
static void fail(const char *path, const char *p, const char *msg) __attribute__((noreturn));
static void fail(const char *path, const char *p, const char *msg)
{
    cli_die("saving the model: %s%s", p != path ? "standard output: " : "", msg);
}

int interrupt_save(const gbt_booster *b, const char *path)
{
    /* "-": the descriptor itself, written in place (outfile.h) */
    const char *p = strcmp(path, "-") == 0 ? "/dev/stdout" : path;
    const int before = atomic_load(&phase);
    struct gbt_outfile o;
    char msg[8400], *buf = NULL;
    size_t len = 0;
    int r = 0;
    gbt_status s;
    if (fflush(stdout) != 0) cli_die("cannot write standard output: %s", strerror(errno));
    /* a second signal during an earlier save's commit (a checkpoint's) set it after that save was done */
    atomic_store(&cancelled, 0);
    s = gbt_booster_save_to_buffer_format(b, cli_model_format(path, 0), &buf, &len);
    if (s != GBT_OK) cli_die_status(s, "saving the model");
    /*
     * The handler must know that a temporary file may exist before it
     * does; a stream is told apart first, so that a FIFO's open waiting
     * for its reader still stops at a second signal.
     */
    atomic_store(&phase, gbt__outfile_in_place(p) ? SAVE_IN_PLACE : SAVE_TMP);
    if (gbt__outfile_open(&o, p, msg, sizeof msg) != 0) {
        gbt_free(buf);
        fail(path, p, msg);
    }
    atomic_store(&phase, o.in_place ? SAVE_IN_PLACE : SAVE_TMP);
    /* in pieces, so that a second signal is seen within one piece's write */
    for (size_t at = 0; at < len && r == 0 && !atomic_load(&cancelled); at += 1u << 20) {
        const size_t n = len - at < 1u << 20 ? len - at : 1u << 20;
        r = gbt__outfile_write(&o, p, buf + at, n, msg, sizeof msg);
    }
    gbt_free(buf);
    if (r == 0 && !o.in_place) {
        /* synced and closed here (commit then only renames), so that the pause below finds the file complete */
        r = gbt__outfile_sync(&o, p, msg, sizeof msg);
        if (r == 0 && close(o.fd) != 0 && errno != EINTR) {
            snprintf(msg, sizeof msg, "cannot write '%s': %s", p, strerror(errno));
            r = -1;
        }
        o.fd = -1;
        if (r == 0) interrupt_pause("save");
    }
    if (r != 0 || atomic_load(&cancelled)) {
        gbt__outfile_abort(&o);
        atomic_store(&phase, before);
        if (r != 0) fail(path, p, msg);
        return 1;
    }
    /* a second signal from here on finds the model saved: commit's rename is the point of no return */
    if (gbt__outfile_commit(&o, p, msg, sizeof msg) != 0) {
        atomic_store(&phase, before);
        fail(path, p, msg);
    }
    atomic_store(&phase, before);
    return 0;
}
