/*
 * memory.c - the CPU backend's memory estimate: what a training holds at
 * its peak (the binned matrix, or with pages on disk the largest page and
 * a byte a row of partition notes; per-row arrays, node arrays, the
 * histogram pool full, the per-thread scratch), checked against what the
 * process may use before anything is allocated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/util.h"
#include "cpu/cpu.h"

/* The binned matrix's bytes (allocated before the backend opens, but part of the training). */
static uint64_t qmatrix_bytes(const struct gbt_qmatrix *qm, uint64_t n)
{
    const uint64_t nf = qm->cuts.nfeat;
    switch (qm->layout) {
    case GBT_QM_DENSE8: return n * nf;
    case GBT_QM_DENSE16: return 2 * n * nf;
    default: return (n + 1) * 8 + (qm->row_ptr ? qm->row_ptr[n] : 0) * 4;
    }
}

void gbt__cpu_estimate(const struct gbt_train_plan *plan, struct gbt_cpu_estimate *e)
{
    const uint64_t n = plan->nrow, nk = n * (uint64_t)plan->num_class;
    const uint64_t bins = plan->qm->cuts.total_slots, T = (uint64_t)plan->nthread;
    const uint64_t hist = bins * sizeof(struct gbt_hbin);
    e->pool = (uint64_t)plan->max_slots * hist;
    e->codes = plan->pages ? gbt__pages_max_page_bytes(plan->pages) + n : qmatrix_bytes(plan->qm, n);
    e->rows = nk * (sizeof(double) * 3 + sizeof(struct gbt_gpair)); /* margins, gradients */
    e->rows += n * 2 * sizeof(uint32_t);                              /* row partition */
    e->total = e->codes + e->rows;
    e->total += T * GBT_CPU_CHUNK * sizeof(uint32_t);
    e->total += (uint64_t)plan->max_nodes * 2 * sizeof(uint64_t);
    e->total += (uint64_t)plan->max_slots * sizeof(struct gbt_hbin *);
    e->total += e->pool;
    e->total += 2 * T * hist; /* scratch */
    if (plan->group_ptr) e->total += (plan->ngroups + 1) * 4 + 3 * n * 4 + 2 * n * 8;
}

/* The smaller of an rlimit's soft value and *limit. */
static void lower_to_rlimit(int resource, uint64_t *limit, const char **why, const char *name)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < *limit) {
        *limit = (uint64_t)rl.rlim_cur;
        *why = name;
    }
}

/*
 * The smaller of the process's memory cgroup limit and *limit: v2's
 * memory.max, v1's memory.limit_in_bytes, of the cgroup /proc/self/cgroup
 * names (its own, not its parents').
 */
static void lower_to_cgroup(uint64_t *limit, const char **why)
{
    char line[1024], file[1200], ctrl[512];
    FILE *f = fopen("/proc/self/cgroup", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        unsigned long long v;
        int v2;
        FILE *g;
        if (b == NULL) continue;
        b[strcspn(b, "\n")] = '\0';
        snprintf(ctrl, sizeof ctrl, ",%.*s,", (int)(b - a - 1), a + 1);
        v2 = b == a + 1;
        if (!v2 && strstr(ctrl, ",memory,") == NULL) continue;
        snprintf(file, sizeof file, v2 ? "/sys/fs/cgroup%s/memory.max" : "/sys/fs/cgroup/memory%s/memory.limit_in_bytes",
                 b + 1);
        g = fopen(file, "r");
        if (g && fscanf(g, "%llu", &v) == 1 && (uint64_t)v < *limit) { /* v2's "max": no limit, no number */
            *limit = (uint64_t)v;
            *why = v2 ? "the memory cgroup's limit (memory.max)" : "the memory cgroup's limit (memory.limit_in_bytes)";
        }
        if (g) fclose(g);
    }
    if (f) fclose(f);
}

gbt_status gbt__cpu_check_memory(const struct gbt_train_plan *plan)
{
    struct gbt_cpu_estimate e;
    uint64_t limit = UINT64_MAX;
    const char *why = NULL;
    char paged[160] = "";
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        limit = (uint64_t)pages * (uint64_t)page;
        why = "the machine's physical memory";
    }
    lower_to_rlimit(RLIMIT_AS, &limit, &why, "the address-space limit (ulimit -v)");
    lower_to_rlimit(RLIMIT_DATA, &limit, &why, "the data-segment limit (ulimit -d)");
    lower_to_cgroup(&limit, &why);
    {
        const char *fake = getenv(GBT_CPU_FAKE_MEMORY_ENV);
        char *end;
        unsigned long long v;
        if (fake && *fake && (v = strtoull(fake, &end, 10), *end == '\0')) {
            limit = v;
            why = "the memory (" GBT_CPU_FAKE_MEMORY_ENV ")";
        }
    }
    gbt__cpu_estimate(plan, &e);
    if (plan->pages)
        snprintf(paged, sizeof paged,
                 "the binned matrix in %llu pages on disk, of which one page and a byte a row: %llu bytes, ",
                 (unsigned long long)gbt__pages_count(plan->pages), (unsigned long long)e.codes);
    RETURN_ERROR_IF(why != NULL && e.total > limit, GBT_E_NO_MEMORY,
                    "training needs about %llu bytes on the CPU but %s is %llu bytes (%llu rows, "
                    "%u features, %sper-row state: %llu bytes, a histogram pool of %u slots of %u bins: %llu "
                    "bytes); lower histogram_pool_size%s",
                    (unsigned long long)e.total, why, (unsigned long long)limit,
                    (unsigned long long)plan->nrow, plan->qm->cuts.nfeat, paged, (unsigned long long)e.rows,
                    plan->max_slots, plan->qm->cuts.total_slots, (unsigned long long)e.pool,
                    plan->pages ? ", or train on fewer rows (the per-row state stays in memory)" : "");
    return GBT_OK;
}
