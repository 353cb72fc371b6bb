/*
 * comm.c - what distributed training builds on the collective operations
 * of comm.h: agreement on failures, gathers of unequal parts, row offsets.
 */
#include "train/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/util.h"

void gbt__comm_free(struct gbt_comm *c)
{
    if (c == NULL) return;
    c->ops->free(c->impl);
    free(c);
}

/* the length of the failure message one rank sends the others */
#define AGREE_MSG 1024

gbt_status gbt__comm_agree(struct gbt_comm *c, gbt_status s)
{
    int64_t first = s == GBT_OK ? c->size : c->rank;
    char msg[AGREE_MSG + 16];
    gbt_status r;
    r = c->ops->allreduce_i64(c->impl, &first, 1, GBT_COMM_MIN);
    if (r != GBT_OK) return r;
    if (first >= c->size) return GBT_OK;
    memset(msg, 0, sizeof msg);
    if (first == c->rank) {
        int32_t code = (int32_t)s;
        memcpy(msg, &code, sizeof code);
        snprintf(msg + 16, AGREE_MSG, "%s", gbt_last_error());
    }
    r = c->ops->bcast(c->impl, msg, sizeof msg, (int)first);
    if (r != GBT_OK) return r;
    {
        int32_t code;
        memcpy(&code, msg, sizeof code);
        msg[sizeof msg - 1] = '\0';
        return gbt__fail((gbt_status)code, "rank %d: %s", (int)first, msg + 16);
    }
}

gbt_status gbt__comm_gather_all(struct gbt_comm *c, const void *send, size_t bytes, void **out,
                                size_t *counts)
{
    int64_t *len;
    size_t *b, total = 0;
    gbt_status s;
    *out = NULL;
    FORWARD_IF_ERROR(gbt__alloc(&len, (size_t)c->size, sizeof *len, 1, "gather sizes"));
    s = gbt__alloc(&b, (size_t)c->size, sizeof *b, 0, "gather sizes");
    if (s != GBT_OK) {
        free(len);
        return s;
    }
    len[c->rank] = (int64_t)bytes;
    s = c->ops->allreduce_i64(c->impl, len, (size_t)c->size, GBT_COMM_SUM);
    for (int r = 0; r < c->size && s == GBT_OK; r++) {
        b[r] = (size_t)len[r];
        total += b[r];
        if (counts) counts[r] = b[r];
    }
    if (s == GBT_OK) s = gbt__alloc(out, total ? total : 1, 1, 0, "gathered data");
    if (s == GBT_OK) s = c->ops->allgatherv(c->impl, send, *out, b);
    if (s != GBT_OK) {
        free(*out);
        *out = NULL;
    }
    free(len);
    free(b);
    return s;
}

gbt_status gbt__comm_row_offset(struct gbt_comm *c, uint64_t nrow, uint64_t *before, uint64_t *total)
{
    int64_t *n;
    gbt_status s;
    FORWARD_IF_ERROR(gbt__alloc(&n, (size_t)c->size, sizeof *n, 1, "row counts"));
    n[c->rank] = (int64_t)nrow;
    s = c->ops->allreduce_i64(c->impl, n, (size_t)c->size, GBT_COMM_SUM);
    if (s == GBT_OK) {
        *before = *total = 0;
        for (int r = 0; r < c->size; r++) {
            if (r < c->rank) *before += (uint64_t)n[r];
            *total += (uint64_t)n[r];
        }
    }
    free(n);
    return s;
}
