/*
 * binned.c - the binned matrix kept with a dataset (binned.h).
 *
 * The dataset's pointer and the reference counts change under one
 * process-wide lock, held for a few loads and stores only: binning itself
 * runs outside it, so that boosters on different datasets bin in parallel.
 * Two boosters that bin one dataset at the same moment each bin; the later
 * one's matrix is kept (both are the same bits).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "data/binned.h"
#include "util/error.h"
#include "util/util.h"

static atomic_flag binned_lock = ATOMIC_FLAG_INIT;

static void lock(void)
{
    while (atomic_flag_test_and_set_explicit(&binned_lock, memory_order_acquire)) {
    }
}

static void unlock(void)
{
    atomic_flag_clear_explicit(&binned_lock, memory_order_release);
}

gbt_status gbt__binned_alloc(struct gbt_binned **out)
{
    struct gbt_binned *b;
    FORWARD_IF_ERROR(gbt__alloc(&b, 1, sizeof *b, 1, "binned data"));
    b->refs = 1;
    *out = b;
    return GBT_OK;
}

void gbt__binned_release(struct gbt_binned *b)
{
    int last;
    if (b == NULL) return;
    lock();
    last = --b->refs == 0;
    unlock();
    if (!last) return;
    gbt__qmatrix_free(&b->qm);
    gbt__pages_free(b->pages);
    free(b);
}

/* Takes d's kept matrix away from it and releases it (d->drop_binned). */
static void drop_binned(gbt_dataset *d)
{
    struct gbt_binned *old;
    lock();
    old = d->binned;
    d->binned = NULL;
    unlock();
    gbt__binned_release(old);
}

void gbt__binned_keep(gbt_dataset *d, struct gbt_binned *b)
{
    struct gbt_binned *old;
    lock();
    b->refs++;
    old = d->binned;
    d->binned = b;
    d->drop_binned = drop_binned;
    d->binned_generation = d->generation;
    unlock();
    gbt__binned_release(old);
}

gbt_status gbt__binned_check_local(const gbt_dataset *d)
{
    const struct gbt_binned *b = d->binned;
    RETURN_ERROR_IF(d->binned_only && b && b->nproc > 1, GBT_E_INVALID_ARG,
                    "the dataset was made from batches over %d processes (gbt_dataset_from_iter_mpi): its bins "
                    "are the cuts of all their %llu rows, so it trains only under that communicator "
                    "(gbt_booster_set_mpi_comm), with the other processes' parts",
                    b->nproc, (unsigned long long)b->nrow_all);
    return GBT_OK;
}

gbt_status gbt__binned_get(const gbt_dataset *cd, int max_bin, int nthread, int verbosity,
                           const struct gbt_binner *by, struct gbt_binned **out)
{
    /* the kept matrix is a cache, not the data: datasets are created non-const */
    gbt_dataset *d = (gbt_dataset *)cd;
    const uint64_t generation = d->generation;
    struct gbt_binned *b = NULL, *old;
    double t0;
    gbt_status s;
    lock();
    if (d->binned && d->binned_generation == generation && d->binned->max_bin == max_bin) {
        b = d->binned;
        b->refs++;
    }
    unlock();
    if (b && b->pages && !(by && by->stream_pages)) {
        /* the codes are on disk: read back for this training only */
        struct gbt_binned *mem = NULL;
        t0 = gbt__now();
        s = gbt__binned_alloc(&mem);
        if (s == GBT_OK) s = gbt__pages_load(b->pages, &b->qm, &mem->qm);
        if (s == GBT_OK) {
            mem->max_bin = max_bin;
            gbt__log(verbosity, GBT_LOG_DEBUG, "binned data: read %llu pages of %s in %.3f s (max_bin=%d, %u bins)",
                     (unsigned long long)gbt__pages_count(b->pages), gbt__pages_path(b->pages), gbt__now() - t0,
                     max_bin, b->qm.cuts.total_slots);
        }
        gbt__binned_release(b);
        if (s != GBT_OK) {
            gbt__binned_release(mem);
            return s;
        }
        *out = mem;
        return GBT_OK;
    }
    if (b && b->pages) {
        gbt__log(verbosity, GBT_LOG_DEBUG, "binned data: %llu pages of %s streamed by the training (max_bin=%d, %u bins)",
                 (unsigned long long)gbt__pages_count(b->pages), gbt__pages_path(b->pages), max_bin,
                 b->qm.cuts.total_slots);
        *out = b;
        return GBT_OK;
    }
    if (b) {
        gbt__log(verbosity, GBT_LOG_DEBUG, "binned data: reusing the dataset's (max_bin=%d, %u bins)", max_bin,
                 b->qm.cuts.total_slots);
        *out = b;
        return GBT_OK;
    }
    /* no feature values to bin again: the iterator's binning is the only one */
    RETURN_ERROR_IF(d->binned_only, GBT_E_INVALID_ARG,
                    "the dataset was made from an iterator or an array's bins with max_bin=%d and holds no "
                    "feature values, so it cannot be binned with max_bin=%d: make it again with that max_bin",
                    d->binned ? d->binned->max_bin : 0, max_bin);
    t0 = gbt__now();
    FORWARD_IF_ERROR(gbt__binned_alloc(&b));
    if (by && by->quantize)
        s = by->quantize(by->ordinal, d, max_bin, &b->qm);
    else
        s = gbt__quantize(d, max_bin, nthread, &b->qm);
    if (s != GBT_OK) {
        gbt__binned_release(b);
        return s;
    }
    b->max_bin = max_bin;
    b->refs = 2; /* the caller's and the dataset's */
    lock();
    old = d->binned;
    d->binned = b;
    d->drop_binned = drop_binned;
    d->binned_generation = generation;
    d->binnings++;
    unlock();
    gbt__binned_release(old);
    if (by && by->quantize)
        gbt__log(verbosity, GBT_LOG_DEBUG,
                 "binned data: binned on %s:%d in %.3f s (max_bin=%d, %u bins), kept with the dataset",
                 by->name ? by->name : "device", by->ordinal, gbt__now() - t0, max_bin, b->qm.cuts.total_slots);
    else
        gbt__log(verbosity, GBT_LOG_DEBUG,
                 "binned data: binned in %.3f s (max_bin=%d, %u bins), kept with the dataset", gbt__now() - t0,
                 max_bin, b->qm.cuts.total_slots);
    *out = b;
    return GBT_OK;
}
