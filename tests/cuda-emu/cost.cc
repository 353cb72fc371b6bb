/*
 * cost.cc - the counting build's counters (GBT_EMU_COST; see cost.h and
 * README.md "The counting build").
 *
 * Per kernel (by the name its launch was written with): launches, blocks,
 * threads; global loads and stores as warp requests, 32-byte sectors and
 * the bytes the lanes asked for; shared loads and stores as warp requests
 * and bank wavefronts; shared and global atomics.  Per period (between two
 * takes): host waits, copies by direction and memsets.
 *
 * How a warp instruction is recognised: the rewritten kernels are compiled
 * by clang with -fsanitize-coverage=trace-loads,trace-stores, so every load
 * and store that survives optimisation calls __sanitizer_cov_loadN or
 * _storeN with its address; the call's return address names the
 * instruction (the site).  The k-th execution of a site by each lane of a
 * warp is taken as one warp instruction, as lockstep execution would issue
 * it; its lanes' addresses give the distinct 32-byte sectors (global) or the
 * bank wavefronts (shared) that a GPU would serve.  Accesses outside device
 * allocations and the running block's shared memory (the fiber's stack, the
 * kernel's parameters, the emulator's own data) are not counted.
 */
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cost.h"
#include "emu.h"

namespace gbt_emu {
namespace cost {
namespace {

struct kstat {
    uint64_t launches, blocks, threads;
    uint64_t gld_req, gld_sec, gld_bytes, gst_req, gst_sec, gst_bytes;
    uint64_t gld_uniq, gst_uniq; /* distinct sectors per launch, summed over launches */
    uint64_t sld_req, sld_wav, sst_req, sst_wav;
    uint64_t sat, sat_req, sat_wav; /* shared atomics: lane operations, warp instructions, wavefronts */
    uint64_t gat, gat_req, gat_sec; /* global atomics: lane operations, warp instructions, sectors */
};

enum op_kind { OP_LOAD, OP_STORE, OP_ATOMIC };
enum space_kind { SP_GLOBAL, SP_SHARED };

struct range {
    uintptr_t lo, hi;
};

struct key {
    uintptr_t site;
    uint32_t k, warp;
    bool operator==(const key &o) const { return site == o.site && k == o.k && warp == o.warp; }
};

struct key_hash {
    size_t operator()(const key &x) const
    {
        uint64_t h = (uint64_t)x.site * 0x9e3779b97f4a7c15ull;
        h ^= ((uint64_t)x.k << 20 ^ x.warp) * 0xbf58476d1ce4e5b9ull;
        return (size_t)(h ^ (h >> 29));
    }
};

/* One warp instruction: the lanes' addresses (one per lane that executed it). */
struct entry {
    uint8_t space, op, size, n;
    uint64_t addr[32];
};

std::map<std::string, kstat> kernels;
kstat *cur; /* the running kernel's, NULL between kernels */
uint64_t host_calls[H_COUNT], host_bytes[H_COUNT];
std::vector<range> device; /* sorted by lo */

/* the running block */
std::vector<range> shared;
std::vector<std::unordered_map<uintptr_t, uint32_t>> lane_k; /* by thread rank: site -> executions */
std::unordered_map<key, uint32_t, key_hash> index;
std::vector<entry> entries;
std::unordered_set<uint64_t> seen_ld, seen_st; /* the running launch's global sectors */

bool in_device(uintptr_t a)
{
    static thread_local range last = {0, 0};
    if (a >= last.lo && a < last.hi) return true;
    auto it = std::upper_bound(device.begin(), device.end(), a,
                               [](uintptr_t v, const range &r) { return v < r.lo; });
    if (it == device.begin()) return false;
    --it;
    if (a < it->hi) {
        last = *it;
        return true;
    }
    return false;
}

bool in_shared(uintptr_t a)
{
    for (const range &r : shared)
        if (a >= r.lo && a < r.hi) return true;
    return false;
}

void record(const void *p, unsigned size, op_kind op, const void *site)
{
    const thread_ids *t = current;
    if (t == NULL || cur == NULL) return;
    const uintptr_t a = (uintptr_t)p;
    space_kind sp;
    if (in_shared(a))
        sp = SP_SHARED;
    else if (in_device(a))
        sp = SP_GLOBAL;
    else
        return;
    const unsigned rank = t->tid.x + t->bdim.x * (t->tid.y + t->bdim.y * t->tid.z);
    if (rank >= lane_k.size()) return;
    const uint32_t k = lane_k[rank][(uintptr_t)site]++;
    auto ins = index.try_emplace(key{(uintptr_t)site, k, rank / 32}, (uint32_t)entries.size());
    if (ins.second) {
        entries.emplace_back();
        entry &e = entries.back();
        e.space = (uint8_t)sp;
        e.op = (uint8_t)op;
        e.size = (uint8_t)size;
        e.n = 0;
    }
    entry &e = entries[ins.first->second];
    if (e.n < 32) e.addr[e.n++] = a;
}

/* Distinct 32-byte sectors of an instruction's lanes (added to `seen`, the launch's, when given). */
uint64_t sectors(const entry &e, std::unordered_set<uint64_t> *seen)
{
    uint64_t s[64];
    unsigned n = 0;
    for (unsigned i = 0; i < e.n; i++)
        for (uint64_t x = e.addr[i] >> 5; x <= (e.addr[i] + e.size - 1) >> 5 && n < 64; x++) s[n++] = x;
    std::sort(s, s + n);
    n = (unsigned)(std::unique(s, s + n) - s);
    if (seen)
        for (unsigned i = 0; i < n; i++) seen->insert(s[i]);
    return n;
}

/*
 * Shared-memory wavefronts: 32 banks of 4-byte words; a wavefront serves
 * one word per bank (a word read by several lanes is broadcast).  Atomics
 * serialise every lane on the same bank, the same word included.
 */
uint64_t wavefronts(const entry &e, bool atomic)
{
    uint64_t w[32 * 4];
    unsigned n = 0, per_bank[32] = {0}, most = 0;
    for (unsigned i = 0; i < e.n; i++)
        for (uint64_t x = e.addr[i] >> 2; x <= (e.addr[i] + e.size - 1) >> 2 && n < 128; x++) w[n++] = x;
    if (!atomic) {
        std::sort(w, w + n);
        n = (unsigned)(std::unique(w, w + n) - w);
    }
    for (unsigned i = 0; i < n; i++) {
        const unsigned b = (unsigned)(w[i] % 32);
        if (++per_bank[b] > most) most = per_bank[b];
    }
    return most ? most : 1;
}

void flush_block(void)
{
    if (cur != NULL)
        for (const entry &e : entries) {
            uint64_t bytes = (uint64_t)e.n * e.size;
            if (e.space == SP_GLOBAL) {
                if (e.op == OP_LOAD) {
                    cur->gld_req++;
                    cur->gld_sec += sectors(e, &seen_ld);
                    cur->gld_bytes += bytes;
                } else if (e.op == OP_STORE) {
                    cur->gst_req++;
                    cur->gst_sec += sectors(e, &seen_st);
                    cur->gst_bytes += bytes;
                } else {
                    cur->gat += e.n;
                    cur->gat_req++;
                    cur->gat_sec += sectors(e, NULL);
                }
            } else {
                if (e.op == OP_LOAD) {
                    cur->sld_req++;
                    cur->sld_wav += wavefronts(e, false);
                } else if (e.op == OP_STORE) {
                    cur->sst_req++;
                    cur->sst_wav += wavefronts(e, false);
                } else {
                    cur->sat += e.n;
                    cur->sat_req++;
                    cur->sat_wav += wavefronts(e, true);
                }
            }
        }
    entries.clear();
    index.clear();
    for (auto &m : lane_k) m.clear();
}

void json_name(FILE *out, const std::string &s)
{
    fputc('"', out);
    for (char ch : s) {
        if (ch == '"' || ch == '\\') fputc('\\', out);
        if ((unsigned char)ch >= 0x20) fputc(ch, out);
    }
    fputc('"', out);
}

} // namespace

void on_alloc(const void *p, size_t n)
{
    const range r = {(uintptr_t)p, (uintptr_t)p + n};
    device.insert(std::upper_bound(device.begin(), device.end(), r,
                                   [](const range &x, const range &y) { return x.lo < y.lo; }),
                  r);
}

void on_free(const void *p)
{
    for (size_t i = 0; i < device.size(); i++)
        if (device[i].lo == (uintptr_t)p) {
            device.erase(device.begin() + (long)i);
            break;
        }
}

void kernel_begin(const char *name, unsigned blocks, unsigned threads_per_block)
{
    cur = &kernels[name];
    cur->launches++;
    cur->blocks += blocks;
    cur->threads += (uint64_t)blocks * threads_per_block;
}

void kernel_end(void)
{
    if (cur != NULL) {
        cur->gld_uniq += seen_ld.size();
        cur->gst_uniq += seen_st.size();
    }
    seen_ld.clear();
    seen_st.clear();
    cur = NULL;
}

void block_begin(unsigned nthreads, const void *dyn, size_t dyn_bytes)
{
    shared.clear();
    if (dyn_bytes) shared.push_back(range{(uintptr_t)dyn, (uintptr_t)dyn + dyn_bytes});
    if (lane_k.size() < nthreads) lane_k.resize(nthreads);
    entries.clear();
    index.clear();
}

void shared_add(const void *p, size_t n)
{
    shared.push_back(range{(uintptr_t)p, (uintptr_t)p + n});
}

void block_end(void)
{
    flush_block();
    shared.clear();
}

void host(host_kind k, size_t bytes)
{
    host_calls[k]++;
    host_bytes[k] += bytes;
}

void take(FILE *out)
{
    static const char *const names[H_COUNT] = {"sync_stream", "sync_event", "sync_device", "sync_copy",
                                               "sync_implicit", "copy_h2d", "copy_d2h", "copy_d2d",
                                               "memset"};
    fputs("{\"kernels\": {", out);
    bool first = true;
    for (auto &kv : kernels) {
        const kstat &s = kv.second;
        if (!first) fputs(", ", out);
        first = false;
        json_name(out, kv.first);
        fprintf(out,
                ": {\"launches\": %llu, \"blocks\": %llu, \"threads\": %llu, "
                "\"gld_req\": %llu, \"gld_sec\": %llu, \"gld_bytes\": %llu, "
                "\"gst_req\": %llu, \"gst_sec\": %llu, \"gst_bytes\": %llu, "
                "\"gld_uniq\": %llu, \"gst_uniq\": %llu, "
                "\"sld_req\": %llu, \"sld_wav\": %llu, \"sst_req\": %llu, \"sst_wav\": %llu, "
                "\"sat\": %llu, \"sat_req\": %llu, \"sat_wav\": %llu, "
                "\"gat\": %llu, \"gat_req\": %llu, \"gat_sec\": %llu}",
                (unsigned long long)s.launches, (unsigned long long)s.blocks, (unsigned long long)s.threads,
                (unsigned long long)s.gld_req, (unsigned long long)s.gld_sec, (unsigned long long)s.gld_bytes,
                (unsigned long long)s.gst_req, (unsigned long long)s.gst_sec, (unsigned long long)s.gst_bytes,
                (unsigned long long)s.gld_uniq, (unsigned long long)s.gst_uniq,
                (unsigned long long)s.sld_req, (unsigned long long)s.sld_wav, (unsigned long long)s.sst_req,
                (unsigned long long)s.sst_wav, (unsigned long long)s.sat, (unsigned long long)s.sat_req,
                (unsigned long long)s.sat_wav, (unsigned long long)s.gat, (unsigned long long)s.gat_req,
                (unsigned long long)s.gat_sec);
    }
    fputs("}, \"host\": {", out);
    for (int k = 0; k < H_COUNT; k++)
        fprintf(out, "%s\"%s\": %llu, \"%s_bytes\": %llu", k ? ", " : "", names[k],
                (unsigned long long)host_calls[k], names[k], (unsigned long long)host_bytes[k]);
    fputs("}}\n", out);
    fflush(out);
    kernels.clear();
    memset(host_calls, 0, sizeof host_calls);
    memset(host_bytes, 0, sizeof host_bytes);
}

} // namespace cost

/* emu.h's atomics call this in the counting build (their return address: the kernel's instruction). */
void cost_atomic(const void *p, unsigned size, const void *site)
{
    cost::record(p, size, cost::OP_ATOMIC, site);
}

} // namespace gbt_emu

/* ---- clang's -fsanitize-coverage=trace-loads,trace-stores callbacks ---- */

#define GBT_EMU_COST_CB(n)                                                                  \
    extern "C" void __sanitizer_cov_load##n(void *p)                                         \
    {                                                                                        \
        gbt_emu::cost::record(p, n, gbt_emu::cost::OP_LOAD, __builtin_return_address(0));   \
    }                                                                                        \
    extern "C" void __sanitizer_cov_store##n(void *p)                                        \
    {                                                                                        \
        gbt_emu::cost::record(p, n, gbt_emu::cost::OP_STORE, __builtin_return_address(0));  \
    }
GBT_EMU_COST_CB(1)
GBT_EMU_COST_CB(2)
GBT_EMU_COST_CB(4)
GBT_EMU_COST_CB(8)
GBT_EMU_COST_CB(16)
#undef GBT_EMU_COST_CB
