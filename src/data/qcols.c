/*
 * qcols.c - the column-major copy of the binned matrix (struct gbt_qcols,
 * quantize.h), which the CPU backend builds for its row partition when a
 * training opens.
 */
#include <stdlib.h>
#include <string.h>

#include "data/quantize.h"
#include "util/util.h"

void gbt__qcols_free(struct gbt_qcols *c)
{
    free(c->col_off);
    free(c->col_dense);
    free(c->col_code8);
    free(c->col_code);
    free(c->col_row);
    memset(c, 0, sizeof *c);
}

/* The column-major copy of dense codes: every column dense; a blocked transpose. */
static gbt_status columns_of_dense(const struct gbt_qmatrix *q, int nthread, struct gbt_qcols *o)
{
    const uint64_t n = q->nrow, nf = q->cuts.nfeat;
    const uint64_t block = 2048, nblocks = (n + block - 1) / block;
    if (q->codes8)
        FORWARD_IF_ERROR(gbt__alloc(&o->col_code8, n * nf + 1, 1, 0, "binned columns"));
    else
        FORWARD_IF_ERROR(gbt__alloc(&o->col_code, n * nf + 1, sizeof(uint16_t), 0, "binned columns"));
    for (uint64_t f = 0; f < nf; f++) {
        o->col_off[f] = f * n;
        o->col_dense[f] = 1;
    }
    o->col_off[nf] = nf * n;
#pragma omp parallel for schedule(static) num_threads(nthread)
    for (uint64_t b = 0; b < nblocks; b++) {
        const uint64_t r0 = b * block, r1 = r0 + block < n ? r0 + block : n;
        for (uint64_t f = 0; f < nf; f++) {
            if (q->codes8)
                for (uint64_t r = r0; r < r1; r++) o->col_code8[f * n + r] = q->codes8[r * nf + f];
            else
                for (uint64_t r = r0; r < r1; r++) o->col_code[f * n + r] = q->codes16[r * nf + f];
        }
    }
    return GBT_OK;
}

/* The column-major copy of CSR codes: dense columns for common features, sparse ones for the rest. */
static gbt_status columns_of_csr(const struct gbt_qmatrix *q, struct gbt_qcols *o)
{
    const struct gbt_cuts *c = &q->cuts;
    const uint64_t n = q->nrow, nf = c->nfeat, nnz = q->row_ptr[n];
    uint32_t *slot_feature = NULL;
    uint64_t *count = NULL, *fill = NULL, total = 0;
    gbt_status s = gbt__alloc(&slot_feature, c->total_slots + 1, sizeof(uint32_t), 0, "slot features");
    if (s == GBT_OK) s = gbt__alloc(&count, nf + 1, sizeof(uint64_t), 1, "column counts");
    if (s == GBT_OK) s = gbt__alloc(&fill, nf + 1, sizeof(uint64_t), 0, "column fill");
    if (s != GBT_OK) goto done;
    for (uint64_t f = 0; f < nf; f++)
        for (uint32_t k = c->offset[f]; k < c->offset[f + 1]; k++) slot_feature[k] = (uint32_t)f;
    for (uint64_t i = 0; i < nnz; i++) count[slot_feature[q->slots[i]]]++;
    for (uint64_t f = 0; f < nf; f++) {
        o->col_dense[f] = count[f] * 4 >= n;
        o->col_off[f] = total;
        total += o->col_dense[f] ? n : count[f];
    }
    o->col_off[nf] = total;
    s = gbt__alloc(&o->col_code, total + 1, sizeof(uint16_t), 0, "binned columns");
    if (s == GBT_OK) s = gbt__alloc(&o->col_row, total + 1, sizeof(uint32_t), 0, "binned columns");
    if (s != GBT_OK) goto done;
    for (uint64_t f = 0; f < nf; f++) {
        fill[f] = o->col_off[f];
        if (o->col_dense[f])
            for (uint64_t r = 0; r < n; r++) o->col_code[o->col_off[f] + r] = (uint16_t)c->nbins[f];
    }
    for (uint64_t r = 0; r < n; r++)
        for (uint64_t i = q->row_ptr[r]; i < q->row_ptr[r + 1]; i++) {
            const uint32_t f = slot_feature[q->slots[i]];
            const uint16_t code = (uint16_t)(q->slots[i] - c->offset[f]);
            if (o->col_dense[f]) {
                o->col_code[o->col_off[f] + r] = code;
            } else {
                o->col_code[fill[f]] = code;
                o->col_row[fill[f]++] = (uint32_t)r;
            }
        }
done:
    free(slot_feature);
    free(count);
    free(fill);
    return s;
}

gbt_status gbt__qcols_build(const struct gbt_qmatrix *q, int nthread, struct gbt_qcols *out)
{
    const uint64_t nf = q->cuts.nfeat;
    gbt_status s;
    memset(out, 0, sizeof *out);
    s = gbt__alloc(&out->col_off, nf + 1, sizeof(uint64_t), 0, "binned columns");
    if (s == GBT_OK) s = gbt__alloc(&out->col_dense, nf + 1, 1, 0, "binned columns");
    if (s == GBT_OK) s = q->layout == GBT_QM_CSR ? columns_of_csr(q, out) : columns_of_dense(q, nthread, out);
    if (s != GBT_OK) gbt__qcols_free(out);
    return s;
}
