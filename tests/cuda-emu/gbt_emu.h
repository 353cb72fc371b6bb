/*
 * gbt_emu.h - what tests may ask of the CUDA emulator (plain C).
 *
 * Only the test-only build of the CUDA backend has these functions (the
 * build defines GBT_CUDA_EMU); README.md beside this file describes the
 * emulator and its environment variables.
 */
#ifndef GBT_EMU_CONTROL_H
#define GBT_EMU_CONTROL_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reports made so far (misuse found in device code or at a launch), and the last one's text. */
int gbt_emu_reports(void);
const char *gbt_emu_last_report(void);

/*
 * Fault injection: the nth call from now of one kind fails, once (0
 * disarms).  Kinds: "malloc" (cudaMalloc, cudaMallocAsync), "host_malloc"
 * (cudaMallocHost), "copy" (cudaMemcpy*, cudaMemset*), "launch" (a kernel
 * launch), "stream" (cudaStreamCreate*), "event" (cudaEventCreate*),
 * "sync" (cudaStreamSynchronize, cudaEventSynchronize).  Returns 0, or -1
 * for an unknown kind.
 */
int gbt_emu_fail_nth(const char *kind, long nth);
/* Calls of a kind so far (-1 for an unknown kind). */
long gbt_emu_calls(const char *kind);

/*
 * The most device memory allocated at once (the bytes asked for, before
 * the driver's rounding) since the last gbt_emu_peak_reset, which starts a
 * new measurement from what is allocated now.
 */
unsigned long long gbt_emu_peak_bytes(void);
void gbt_emu_peak_reset(void);

/* Forgets a sticky error (as a new process would start without it). */
void gbt_emu_clear_error(void);

/*
 * The calling thread's current device (cudaGetDevice), and setting it as
 * a host program's own cudaSetDevice would.
 */
int gbt_emu_get_device(void);
void gbt_emu_set_device(int device);

/* The scheduling seed of this process (GBT_EMU_SEED, or drawn and printed at the first launch). */
unsigned long long gbt_emu_seed(void);

/*
 * The counting build (make cuda-emu-cost; README.md "The counting
 * build"): runs the device work still queued, writes the counters gathered
 * since the last call (per kernel: launches, global sectors, shared
 * wavefronts, atomics; host waits, copies and memsets) to out as one line
 * of JSON, and clears them.  Returns 0, or -1 (writing nothing) in the
 * other builds, which count nothing.
 */
int gbt_emu_cost_take(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
