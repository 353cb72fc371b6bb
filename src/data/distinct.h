/*
 * distinct.h - merging ascending lists of distinct values: the cuts of
 * several processes (train/dist.c) or of an iterator's batches
 * (dataset_iter.c) come from one list per feature made this way.
 */
#ifndef GBT_DISTINCT_H
#define GBT_DISTINCT_H

#include <stddef.h>
#include <stdint.h>

#include "gbt.h"

/*
 * One feature's distinct values, keys ascending (gbt_cut_key), with their
 * fixed-point weights (common/cuts.h) in w or, where the rows are
 * unweighted, their counts in cnt (4 bytes a value instead of 8): one of
 * the two is set.
 */
struct gbt_distinct_list {
    const uint32_t *keys;
    const uint64_t *w;
    const uint32_t *cnt;
    size_t n;
};

/*
 * Merges nl lists into keys (room for the lists' total): keys ascending, a
 * value held by several lists once, its weights summed (integers: exact)
 * into w or, when w is NULL, its counts into cnt.  *n is the number of
 * values merged.  Fails only when it cannot allocate its nl positions.
 */
gbt_status gbt__distinct_merge(const struct gbt_distinct_list *lists, size_t nl, uint32_t *keys, uint64_t *w,
                               uint32_t *cnt, size_t *n);

#endif
