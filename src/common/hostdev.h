/*
 * hostdev.h - marks functions that both gcc (the CPU backend) and nvcc (the
 * CUDA backend) compile, so that every decision-relevant number has one
 * definition.  Files that include this must be compiled without
 * floating-point contraction (-ffp-contract=off, nvcc -fmad=false).
 */
#ifndef GBT_COMMON_HOSTDEV_H
#define GBT_COMMON_HOSTDEV_H

#if defined(__CUDACC__)
#define GBT_HOSTDEV __host__ __device__
#else
#define GBT_HOSTDEV
#endif

#define GBT_SHARED static inline GBT_HOSTDEV

#endif
