/*
 * interrupt.h - gbtrain's SIGINT and SIGTERM: what a signal does in each
 * phase of a run, and saving the model so that no signal leaves a
 * temporary file or a partial model behind.
 *
 *   set-up (options, reading the data): a signal stops at once; nothing
 *       is written.
 *   probe (the model path's writability checked with a temporary file):
 *       the signal waits for the probe's file to be removed, then as set-up.
 *   training: the first signal asks the library to stop after the round
 *       in progress; a second stops at once (nothing is written then: the
 *       model file holds what the last save of this run left, or what it
 *       held before).
 *   saving (a checkpoint or the final save): the first signal lets the
 *       save finish (and stops training after it); a second abandons a
 *       save into a temporary file: the file is removed and the model
 *       file keeps what it held.  A model streamed in place (standard
 *       output, a FIFO) stops at once: a stream cannot be taken back.
 *
 * Test-only: GBTRAIN_TEST_PAUSE=WHERE:N makes gbtrain, at point WHERE
 * ("load": before reading the data; "train": before training; "save":
 * in each save to a temporary file, after its bytes are written and
 * synced and before the rename), print "gbtrain: test pause: WHERE" to
 * standard error and wait until N signals in all have arrived (at most 30
 * s), so that tests can send signals at those points deterministically.
 */
#ifndef GBT_CLI_INTERRUPT_H
#define GBT_CLI_INTERRUPT_H

#include "gbt.h"

enum interrupt_phase { INTERRUPT_SETUP, INTERRUPT_PROBE, INTERRUPT_TRAIN };

/* Installs the handlers of SIGINT and SIGTERM; the phase is set-up. */
void interrupt_init(void);

/*
 * Enters a phase; b is the booster that training stops (INTERRUPT_TRAIN).
 * Leaving the probe for set-up, a signal that came during the probe ends
 * the run there (exit 130, nothing written).
 */
void interrupt_phase(enum interrupt_phase phase, gbt_booster *b);

/* The first signal that arrived (SIGINT or SIGTERM), or 0. */
int interrupt_signal(void);

/*
 * What the model file holds now ("m.json left as it was", "m.json holds
 * the model of 4 rounds saved earlier in this run"), said when a signal
 * stops the run before it saves.  Copied.
 */
void interrupt_held(const char *text);

/* That text, as last set. */
const char *interrupt_held_text(void);

/* The test pause at point `where` (above); nothing unless GBTRAIN_TEST_PAUSE names it. */
void interrupt_pause(const char *where);

/*
 * Saves b's model to path ("-": standard output) by gbt_booster_save's
 * rules.  Returns 0 when saved, 1 when a second signal abandoned the save
 * (the temporary file removed, path untouched).  Dies (cli_die) on errors,
 * with nothing left behind.
 */
int interrupt_save(const gbt_booster *b, const char *path);

#endif
