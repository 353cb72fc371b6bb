/*
 * distinct.c - the k-way merge of ascending lists of distinct values and
 * their weights (distinct.h).
 */
#include <stdlib.h>

#include "data/distinct.h"
#include "util/util.h"

gbt_status gbt__distinct_merge(const struct gbt_distinct_list *lists, size_t nl, uint32_t *keys, uint64_t *w,
                               uint32_t *cnt, size_t *n)
{
    size_t *at = NULL, k = 0;
    FORWARD_IF_ERROR(gbt__alloc(&at, nl ? nl : 1, sizeof *at, 1, "merge positions"));
    /* take the smallest head; every list whose head it is gives its weight and moves on */
    for (;;) {
        uint32_t key = 0;
        uint64_t sum = 0;
        int found = 0;
        for (size_t r = 0; r < nl; r++)
            if (at[r] < lists[r].n && (!found || lists[r].keys[at[r]] < key)) {
                key = lists[r].keys[at[r]];
                found = 1;
            }
        if (!found) break;
        for (size_t r = 0; r < nl; r++)
            if (at[r] < lists[r].n && lists[r].keys[at[r]] == key) {
                sum += lists[r].w ? lists[r].w[at[r]] : lists[r].cnt[at[r]];
                at[r]++;
            }
        keys[k] = key;
        if (w)
            w[k] = sum;
        else
            cnt[k] = (uint32_t)sum;
        k++;
    }
    free(at);
    *n = k;
    return GBT_OK;
}
