/*
 * rng.h - a counter-based random generator: every draw is a hash of
 * (seed, stream, a, b), so a draw never depends on the order or the thread
 * that makes it.  The mixing function is the splitmix64 finaliser.
 */
#ifndef GBT_COMMON_RNG_H
#define GBT_COMMON_RNG_H

#include <stdint.h>

#include "common/hostdev.h"

enum gbt_rng_stream {
    GBT_RNG_ROWS = 1,     /* a = round, b = row: subsample */
    GBT_RNG_TREE_COLS,    /* a = tree, b = feature: colsample_bytree */
    GBT_RNG_LEVEL_COLS,   /* a = tree * 64 + depth, b = feature: colsample_bylevel */
    GBT_RNG_NODE_COLS,    /* a = tree * 2^32 + node, b = feature: colsample_bynode */
    GBT_RNG_RANK_PAIRS,   /* a = round * 2^32 + group, b = index * pairs + k: rank pairs (mean) */
    GBT_RNG_DART,         /* a = round, b = 0 (skip), 1 + tree (drop), 2^64 - 1 (one_drop): dart */
    GBT_RNG_LINEAR_ORDER, /* a = round, b = position: gblinear's feature_selector=shuffle */
    GBT_RNG_LINEAR_PICK   /* a = round * 2^32 + output, b = step: gblinear's feature_selector=random */
};

GBT_SHARED uint64_t gbt_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

GBT_SHARED uint64_t gbt_draw(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b)
{
    return gbt_mix64(gbt_mix64(gbt_mix64(gbt_mix64(seed) ^ stream) ^ a) ^ b);
}

/* A draw as a double in [0, 1). */
GBT_SHARED double gbt_unit(uint64_t draw)
{
    return (double)(draw >> 11) * (1.0 / 9007199254740992.0);
}

/* Whether row `row` takes part in round `round` at sampling rate `rate`. */
GBT_SHARED int gbt_row_sampled(uint64_t seed, int round, uint64_t row, double rate)
{
    return rate >= 1.0 || gbt_unit(gbt_draw(seed, GBT_RNG_ROWS, (uint64_t)round, row)) < rate;
}

#endif
