/*
 * cost.h - the emulator's cost counters (the counting build only, where
 * GBT_EMU_COST is defined): what runtime.cc tells cost.cc, and what cost.cc
 * counts.  README.md beside this file, "The counting build", says what is
 * counted and how; gbt_emu.h has the calls that read the counters.
 *
 * Global and shared memory accesses reach cost.cc through clang's
 * -fsanitize-coverage=trace-loads,trace-stores callbacks, compiled into the
 * rewritten kernels only; atomics through emu.h (cost_atomic).  runtime.cc
 * announces allocations, kernels, blocks, copies and host waits.
 */
#ifndef GBT_EMU_COST_H
#define GBT_EMU_COST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

namespace gbt_emu {
namespace cost {

/* Device memory: an allocation [p, p + n) exists / is gone. */
void on_alloc(const void *p, size_t n);
void on_free(const void *p);

/* A kernel's grid starts / ends (name: the launch expression). */
void kernel_begin(const char *name, unsigned blocks, unsigned threads_per_block);
void kernel_end(void);
/* A block starts (its dynamic shared memory) / a static __shared__ variable is allocated / the block ends. */
void block_begin(unsigned nthreads, const void *dyn, size_t dyn_bytes);
void shared_add(const void *p, size_t n);
void block_end(void);

/* What the host asks of the runtime. */
enum host_kind {
    H_SYNC_STREAM,   /* cudaStreamSynchronize */
    H_SYNC_EVENT,    /* cudaEventSynchronize */
    H_SYNC_DEVICE,   /* cudaDeviceSynchronize */
    H_SYNC_COPY,     /* cudaMemcpy, cudaMemset, cudaMemcpyAsync into pageable memory */
    H_SYNC_IMPLICIT, /* cudaFree, cudaFreeHost, cudaStreamDestroy: wait for the device */
    H_COPY_H2D,
    H_COPY_D2H,
    H_COPY_D2D,
    H_MEMSET,
    H_COUNT
};
void host(host_kind k, size_t bytes);

/* Writes the counters since the last take as one JSON object and one line, then clears them. */
void take(FILE *out);

} // namespace cost
} // namespace gbt_emu

#endif
