/*
 * math_check.h - a few values of the shared math (common/gmath.h,
 * split_math.h) that gbt_cu_open computes on the device and compares, bit
 * for bit, with the values cuda/backend_cuda.c computed on the host (built
 * as the CPU backend is).  A build that contracts or reorders
 * floating-point operations on either side (fast-math flags, FMA
 * contraction, another build system) would train different models on the
 * CPU and the GPU; this catches it before training.
 *
 * Plain C: backend_cuda.c includes it, and so does device.cu.
 */
#ifndef GBT_CUDA_MATH_CHECK_H
#define GBT_CUDA_MATH_CHECK_H

#include "common/gmath.h"
#include "common/split_math.h"

#define GBT_MATH_CHECKS 8

/* Check i (0 <= i < GBT_MATH_CHECKS): exp, the sigmoid, gains and a leaf weight. */
GBT_SHARED double gbt_math_check_value(int i)
{
    const struct gbt_hbin l = {-123456789, 987654321}, r = {555555555, 333333333};
    struct gbt_split_params p = {1.0, 0.25, 0.0, 0.5, 0, 0, 0.0, 0.0, 4, 64, 0, 0, 0.0, 0.0, 0.0, 0.0};
    gbt_split_params_scale(&p, 20, 21);
    switch (i) {
    case 0: return gbt_exp(-0.7);
    case 1: return gbt_exp(1.3);
    case 2: return gbt_exp(20.5);
    case 3: return gbt_exp(-700.25);
    case 4: return gbt_sigmoid(0.3);
    case 5: return gbt_split_gain(l, r, 0.125, &p);
    case 6: p.max_delta_step = 0.7; return gbt_split_gain(l, r, 0.125, &p);
    default: return gbt_node_weight(l, &p);
    }
}

/* What check i computes, for messages. */
static inline const char *gbt_math_check_name(int i)
{
    static const char *const names[GBT_MATH_CHECKS] = {
        "gbt_exp(-0.7)", "gbt_exp(1.3)", "gbt_exp(20.5)", "gbt_exp(-700.25)", "gbt_sigmoid(0.3)",
        "gbt_split_gain (lambda 1, alpha 0.25)", "gbt_split_gain (max_delta_step 0.7)",
        "gbt_node_weight (alpha 0.25)"};
    return i >= 0 && i < GBT_MATH_CHECKS ? names[i] : "?";
}

#endif
