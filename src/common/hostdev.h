/*
 * hostdev.h - marks functions that both gcc (the CPU backend) and nvcc (the
 * CUDA backend) compile, so that every decision-relevant number has one
 * definition.  Files that include this must be compiled without
 * floating-point contraction (-ffp-contract=off, nvcc -fmad=false); fast
 * math is refused below, and the CUDA backend compares a few values of
 * both compilers whenever it opens a device (cuda/math_check.h).
 */
#ifndef GBT_COMMON_HOSTDEV_H
#define GBT_COMMON_HOSTDEV_H

/*
 * Fast math reorders and contracts the shared math.  gcc and clang define
 * __FAST_MATH__ under -ffast-math or -Ofast (also on the host side of nvcc
 * -Xcompiler -ffast-math).  nvcc's --use_fast_math defines no macro in
 * CUDA 13 (__USE_FAST_MATH__ is refused for a toolkit that defines it):
 * its contraction on the device is caught when the CUDA backend opens a
 * device (cuda/math_check.h).
 */
#if defined(__FAST_MATH__) || defined(__USE_FAST_MATH__)
#error "gbt must not be built with fast math (-ffast-math, -Ofast, --use_fast_math): the CPU and CUDA backends would train different models"
#endif

#if defined(__CUDACC__)
#define GBT_HOSTDEV __host__ __device__
#else
#define GBT_HOSTDEV
#endif

#define GBT_SHARED static inline GBT_HOSTDEV

#endif
