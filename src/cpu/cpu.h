/*
 * cpu.h - the CPU backend's state, shared by its files (one per concern:
 * gradient.c, histogram.c, split.c, partition.c; backend_cpu.c holds the
 * table, set-up, leaves and margins).
 */
#ifndef GBT_CPU_H
#define GBT_CPU_H

#include <stdint.h>

#include "backend.h"
#include "data/pages.h"

/* Rows a partition chunk holds at most. */
#define GBT_CPU_CHUNK 16384

/*
 * Work below which a parallel region runs on one thread: waking the team
 * costs more than the loop, and waiting threads spin, which on a machine
 * whose cores are busy costs whole time slices (docs/perf-notes.md).
 */
#define GBT_CPU_MIN_PARALLEL 8192

struct cpu_ctx {
    const struct gbt_qmatrix *qm;
    struct gbt_qcols cols; /* the column-major copy of qm's codes, for the partition (not with pages) */
    /*
     * With pages (plan->pages): qm has no codes; histograms and partition
     * read the pages in order through reader, and the partition first
     * notes each row's side in go_left (nrow bytes).  NULL otherwise.
     */
    const struct gbt_pages *pages;
    struct gbt_page_reader *reader;
    uint64_t npage;
    uint8_t *go_left;
    uint64_t nrow;
    uint32_t nfeat;
    int K; /* outputs: classes, quantiles or targets (1 for most objectives) */
    int T; /* labels per row: K for a multi-target model, else 1 */
    int objective;
    int nthread;
    const float *label, *weight; /* label: nrow * T, row-major */
    uint32_t *group_ptr;       /* ranking: ngroups + 1 offsets; else NULL */
    uint64_t ngroups;
    uint32_t *rank_idx;        /* ranking: 3 * nrow: the groups' sort arrays */
    double *rank_stat;         /* ranking: 2 * nrow: the groups' MAP statistics */

    double *margin;          /* K * nrow: class k's margins at margin + k * nrow */
    struct gbt_gpair *grad;  /* K * nrow: class k's pairs at grad + k * nrow */
    double *gtmp, *htmp;     /* K * nrow: gradients in double before quantising */
    int cls;                 /* class of the tree being grown */

    uint32_t *rows, *rows_tmp; /* row ids, grouped by node; scratch of the same size */
    uint32_t *part_scratch;    /* partition: a chunk of rows per thread (GBT_CPU_CHUNK) */
    uint32_t max_nodes;
    uint64_t *node_begin, *node_count;

    uint32_t max_slots;
    struct gbt_hbin **hist; /* max_slots histograms, allocated on first use */
    struct gbt_hbin *scratch; /* 2 * nthread partial histograms */
    int8_t *monotone;         /* nfeat monotone constraints, or NULL */
};

/* The bytes a training on the CPU holds at its peak (memory.c). */
struct gbt_cpu_estimate {
    uint64_t total; /* everything, the binned matrix and the full histogram pool included */
    uint64_t codes; /* the binned matrix (with pages: the largest page and the partition's notes) */
    uint64_t pool;  /* max_slots histograms */
    uint64_t rows;  /* per-row state: margins, gradients, the row partition */
};
void gbt__cpu_estimate(const struct gbt_train_plan *plan, struct gbt_cpu_estimate *e);
/*
 * GBT_E_NO_MEMORY, with the numbers, when the estimate exceeds the
 * smallest of physical memory, the address-space and data limits and the
 * memory cgroup's limit.
 * Test hook: GBT_CPU_FAKE_MEMORY_BYTES=N takes N bytes as that limit.
 */
#define GBT_CPU_FAKE_MEMORY_ENV "GBT_CPU_FAKE_MEMORY_BYTES"
gbt_status gbt__cpu_check_memory(const struct gbt_train_plan *plan);

gbt_status gbt__cpu_gradients(void *ctx, const struct gbt_grad_request *req,
                              struct gbt_class_sums *out);
gbt_status gbt__cpu_set_gradients(void *ctx, const double *g, const double *h,
                                  const struct gbt_max_hook *hook, struct gbt_class_sums *out);
gbt_status gbt__cpu_histograms(void *ctx, const struct gbt_hist_job *jobs, int n);
gbt_status gbt__cpu_best_splits(void *ctx, const struct gbt_split_job *jobs, int n,
                                const uint8_t *masks, const struct gbt_split_params *p,
                                struct gbt_split *out, uint32_t *cat_sets);

struct gbt_cat_entry; /* common/cat_math.h: a bin and its sort key */

/*
 * The best candidate of categorical feature f in a node's histogram h
 * (best->feature -1 when none is valid), its set of bins in bits
 * (gbt_cat_words(nbins[f]) words); order: scratch of nbins[f] entries.
 */
void gbt__cpu_best_of_cat(const struct gbt_cuts *cuts, const struct gbt_hbin *h, uint32_t f,
                          const struct gbt_split_job *job, double parent_gain, const struct gbt_split_params *p,
                          struct gbt_cat_entry *order, struct gbt_split *best, uint32_t *bits);
gbt_status gbt__cpu_partition(void *ctx, const struct gbt_partition_job *jobs, int n);

/*
 * The first position in [lo, hi) of the ascending c->rows whose row is >=
 * r (a node's rows ascend: its rows in one page are one run of its range).
 */
static inline uint64_t gbt__cpu_rows_lower_bound(const struct cpu_ctx *c, uint64_t lo, uint64_t hi, uint64_t r)
{
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (c->rows[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
