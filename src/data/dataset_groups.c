/*
 * dataset_groups.c - a dataset's query groups as row offsets, the form the
 * ranking objectives, the ranking metrics and the backends work on.
 */
#include "data/dataset.h"
#include "util/util.h"

gbt_status gbt__dataset_group_ptr(const gbt_dataset *d, uint32_t **ptr, uint64_t *ngroups)
{
    const uint64_t ng = d->groups && d->ngroups ? d->ngroups : 1;
    uint32_t *p;
    FORWARD_IF_ERROR(gbt__alloc(&p, ng + 1, sizeof *p, 0, "query groups"));
    p[0] = 0;
    for (uint64_t g = 0; g < ng; g++)
        p[g + 1] = p[g] + (d->groups && d->ngroups ? d->groups[g] : (uint32_t)d->nrow);
    *ptr = p;
    *ngroups = ng;
    return GBT_OK;
}
