#!/usr/bin/env python3
"""A cost model of gbt's CUDA training, from the CUDA emulator's counters.

    make cuda-emu-cost                      # once (configure found clang++)
    python3 bench/costmodel.py              # W1's shape at 68k and 136k rows, scaled to 10M

Trains W1's shape (bench/README.md: dense binary, 28 features, depthwise
depth 8, max_bin 256, eta 0.1, lambda 1, min_child_weight 1) with
device=cuda on the emulated H100 of the counting build
(tests/cuda-emu/README.md, "The counting build"), at two sizes, and prints:

1. the counts per kernel of one steady round (the rounds after the first,
   averaged) at each emulated size, and per round (host waits, copies);
2. the same counts scaled to --target-rows (10M): each count is taken as
   a + b * rows, with a and b from the two sizes (per-row work in b, the
   per-node and per-block work of a depth-8 tree, which both sizes grow
   in full, in a);
3. a modelled H100 time per kernel and per round, and its ratio to the
   measured 8.8 ms per round of docs/gpu-runs/2026-11-23-h100.md.

Every figure is "modelled": counts are what the emulator sees the kernels
ask for (compiled by clang, not nvcc), times come from the peak figures
below, not from a GPU.  See bench/README.md, "The cost model".
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import kernel_resources  # noqa: E402

# ---- W1's shape (bench/run.py: WORKLOADS["W1"] and COMMON) ----
W1_PARAMS = ["objective=binary:logistic", "grow_policy=depthwise", "max_depth=8", "max_bin=256",
             "eta=0.1", "min_child_weight=1", "lambda=1"]
W1_COLS = 28

# ---- the H100 (SXM5, 80 GB HBM3: the GPU of docs/gpu-runs/2026-11-23-h100.md) ----
# Peak figures, so that every modelled time is a floor for what it counts.
H100 = dict(
    hbm_bytes_per_s=3.35e12,   # NVIDIA H100 SXM5 datasheet: 3.35 TB/s HBM3
    sms=132,                   # H100 SXM5: 132 SMs
    clock_hz=1.98e9,           # H100 SXM5 maximum boost clock, 1980 MHz
    l1_bytes_per_clk=128,      # per SM: L1/shared memory serve 32 banks x 4 bytes per clock
    launch_s=2e-6,             # assumed: gap between two dependent kernels of one stream
    sync_s=10e-6,              # assumed: host wait plus the relaunch after it (GPU idle)
    event_sync_s=1e-6,         # assumed: an event already reached (gbt's staging-buffer waits)
    copy_s=2e-6,               # assumed: one small asynchronous copy in stream order
    pcie_bytes_per_s=64e9,     # PCIe 5.0 x16, one direction, nominal
)
MEASURED_ROUND_S = 8.8e-3      # docs/gpu-runs/2026-11-23-h100.md: (4.40 - 3.532) / 99

# ---- latencies of one dependent step, in SM clocks (docs/perf-notes.md, "A cost model with
# latency and occupancy", cites each; none is fitted to gbt's own measurements) ----
LATENCY = dict(
    dram=400,    # a global load that misses L2 (Hopper, published microbenchmark figure)
    l2=200,      # a global load that hits L2 (idem)
    shared=20,   # a shared-memory load (idem)
    shared_atomic=40,  # a shared-memory atomic that returns its old value (ATOMS): assumed, a load and a store
)

KERNEL_NAMES = {
    "build_kernel(c->layout, true, paged)": "hist_build (shared)",
    "build_kernel(c->layout, false, paged)": "hist_build (global)",
}

KFIELDS = ["launches", "blocks", "threads", "dsmem", "gld_req", "gld_sec", "gld_bytes", "gst_req", "gst_sec",
           "gst_bytes", "gld_uniq", "gst_uniq", "sld_req", "sld_wav", "sst_req", "sst_wav", "sat",
           "sat_req", "sat_wav", "gat", "gat_req", "gat_sec"]
HFIELDS = ["sync_stream", "sync_event", "sync_device", "sync_copy", "sync_implicit", "copy_h2d",
           "copy_h2d_bytes", "copy_d2h", "copy_d2h_bytes", "copy_d2d", "copy_d2d_bytes", "memset",
           "memset_bytes"]


def log(msg):
    print("# " + msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)
    if r.returncode != 0:
        sys.exit("costmodel: %s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stderr[-3000:]))
    return r.stdout


def tree_nodes(tree, max_depth=8, top=True):
    """(splits, leaves, histogram builds) of a dumped round (gbt_booster_dump json: a list of trees).

    Depthwise growth builds the root's histogram and, for every split whose
    children may split again (depth + 1 < max_depth), the smaller child's
    (the other comes by subtraction)."""
    if isinstance(tree, list):
        tot = [0, 0, 0]
        for t in tree:
            tot = [a + b for a, b in zip(tot, tree_nodes(t, max_depth, True))]
        return tuple(tot)
    if "children" not in tree:
        return 0, 1, 1 if top else 0
    s, l, b = 1, 0, (1 if top else 0) + (1 if tree["depth"] + 1 < max_depth else 0)
    for c in tree["children"]:
        cs, cl, cb = tree_nodes(c, max_depth, False)
        s, l, b = s + cs, l + cl, b + cb
    return s, l, b


def train(args, data, rows):
    cmd = [os.path.join(args.bindir, "costmodel_run"), os.path.join(data, "X_train.f32"),
           os.path.join(data, "y_train.f32"), str(rows), str(W1_COLS), str(args.rounds),
           "nthread=%d" % args.threads] + W1_PARAMS
    env = dict(os.environ, GBT_EMU_SEED=str(args.seed))
    env.pop("GBT_EMU_INTERLEAVE", None)
    t0 = time.time()
    out = run(cmd, env=env)
    log("%d rows, %d rounds on the emulator: %.0f s" % (rows, args.rounds, time.time() - t0))
    rounds, trees = {}, {}
    for line in out.splitlines():
        tag, _, rest = line.partition(" ")
        if tag == "round":
            r, _, js = rest.partition(" ")
            rounds[int(r)] = json.loads(js)
        elif tag == "tree":
            r, _, js = rest.partition(" ")
            trees[int(r)] = tree_nodes(json.loads(js))
    return rounds, trees


def average(dicts, fields):
    out = {}
    for f in fields:
        out[f] = sum(d.get(f, 0) for d in dicts) / max(len(dicts), 1)
    return out


def steady(rounds):
    """Per kernel and host counts of one round after the first, averaged over rounds 2..R."""
    rs = [rounds[r] for r in sorted(rounds) if r >= 2] or [rounds[1]]
    names = sorted({k for r in rs for k in r["kernels"]})
    kern = {k: average([r["kernels"].get(k, {}) for r in rs], KFIELDS) for k in names}
    host = average([r["host"] for r in rs], HFIELDS)
    return kern, host


FULL_TREE_BUILDS = 128  # depth 8, depthwise: the root and the smaller child of each of 127 splits above depth 7


def scale(v1, v2, u1, u2, n1, n2, u_t, n_t):
    """v = a u + b rows through (u1, n1, v1) and (u2, n2, v2), at (u_t, n_t): u counts the
    per-node units of a kernel (histogram builds, or blocks + builds), rows the per-row work.
    Proportional to the rows with one size; a or b that would be negative is 0."""
    if n1 == n2:
        return v2 * n_t / n2
    det = u1 * n2 - u2 * n1
    a = (v1 * n2 - v2 * n1) / det if det else 0.0
    b = (u1 * v2 - u2 * v1) / det if det else v2 / n2
    if b < 0:
        a, b = v2 / u2, 0.0
    elif a < 0:
        a, b = 0.0, v2 / n2
    return a * u_t + b * n_t


def units(name, k, builds):
    """The per-node units of a kernel's counts: the histogram kernel zeroes and flushes its shared
    histogram once per (block, node) pair; every other per-node work goes with the builds."""
    if name.startswith("build_kernel("):
        return k.get("blocks", 0) + builds
    return builds


def flush_cap(scaled, k2, builds, builds_t):
    """hist_build's global atomics flush the non-zero bins of each (block, node) pair: at most
    2 words per slot of every pair, whatever the rows.  At the emulated sizes a block sees a few
    hundred rows per node and most bins are zero, so a + b rows overshoots; cap it."""
    z = k2.get("hist_zero")
    notes = []
    for name in ("build_kernel(c->layout, true, paged)", "build_kernel(c->layout, false, paged)"):
        c = scaled.get(name)
        if c is None or z is None or builds <= 0:
            continue
        words_per_job = z["gst_bytes"] / 8.0 / builds  # hist_zero writes every word of each BUILD slot once
        cap = (c["blocks"] + builds_t) * words_per_job
        if c["gat"] > cap:
            notes.append("%s: global atomics capped at (blocks %.0f + builds %.0f) x %.0f words = %.1fM "
                         "(a x nodes + b x rows gave %.1fM): a block adds each non-zero bin of each node it meets once"
                         % (KERNEL_NAMES.get(name, name), c["blocks"], builds_t, words_per_job, cap / 1e6,
                            c["gat"] / 1e6))
            c["gat_sec"] = c["gat_sec"] * cap / c["gat"]
            c["gat"] = cap
    return ("Modelled scaling exception: " + "; ".join(notes) + ".") if notes else ""


def ptxas_name(name):
    """The kernel of a launch expression as ptxas's report names it (W1's layout: dense uint8)."""
    if name.startswith("build_kernel("):
        return "hist_build<0, %s, false>" % ("true" if "true," in name else "false")  # W1: in memory, not paged
    return name


def resident_warps(name, k, res):
    """Warps of one launch resident on the GPU at once: blocks per SM from the kernel's threads,
    its registers (ptxas's report; not counted without one) and its static and dynamic shared
    memory, times the SMs, at most the launch's blocks.  Returns (warps, registers or None)."""
    if k["blocks"] <= 0 or k["launches"] <= 0:
        return 0.0, None
    tpb = max(1, int(round(k["threads"] / k["blocks"])))
    r = res.get(ptxas_name(name)) or res.get(kernel_resources.base_name(ptxas_name(name)))
    regs = r["regs"] if r else None
    smem = (r["smem"] if r else 0) + int(k.get("dsmem", 0))
    per_sm = kernel_resources.blocks_per_sm(tpb, regs, smem)
    blocks = min(k["blocks"] / k["launches"], per_sm * H100["sms"])
    return blocks * ((tpb + 31) // 32), regs


def latency_cycles(k):
    """The dependent steps of a kernel's warps, in clocks summed over its warp instructions: each
    global load waits for its data (from DRAM for the share of its sectors that are distinct in
    the launch, else from L2), each shared load and each shared atomic for theirs.  Stores and
    global atomics (RED: no value returned) do not hold a warp up."""
    f = min(1.0, k["gld_uniq"] / k["gld_sec"]) if k["gld_sec"] else 1.0
    load = f * LATENCY["dram"] + (1 - f) * LATENCY["l2"]
    return k["gld_req"] * load + k["sld_req"] * LATENCY["shared"] + k["sat_req"] * LATENCY["shared_atomic"]


def in_flight(name, consts):
    """Independent rows a warp of the kernel keeps in flight: its loads for that many rows are
    issued before it waits on any of them (the histogram kernel's HIST_ROWS_IN_FLIGHT), else 1."""
    if name.startswith("build_kernel("):
        return max(1, consts.get("HIST_ROWS_IN_FLIGHT", 1))
    return 1


def kernel_time(k, warps=0.0, chains=1):
    """Modelled seconds of one kernel's counts, and the term that bounds it: the largest of the
    bandwidth terms and the latency term (its dependent steps over the warps in flight, each
    with `chains` independent rows in flight)."""
    hz, sms = H100["clock_hz"], H100["sms"]
    terms = {
        "DRAM": 32.0 * (k["gld_uniq"] + k["gst_uniq"]) / H100["hbm_bytes_per_s"],
        "L1": 32.0 * (k["gld_sec"] + k["gst_sec"]) / (H100["l1_bytes_per_clk"] * sms * hz),
        "shared": (k["sld_wav"] + k["sst_wav"] + k["sat_wav"]) / (sms * hz),
        "atomics": 32.0 * k["gat"] / H100["hbm_bytes_per_s"],
    }
    if warps > 0:
        terms["latency"] = latency_cycles(k) / warps / chains / hz
    bound = max(terms, key=terms.get)
    return terms[bound] + k["launches"] * H100["launch_s"], bound


def host_time(h):
    waits = (h["sync_stream"] + h["sync_device"] + h["sync_copy"] + h["sync_implicit"]) * H100["sync_s"] + \
        h["sync_event"] * H100["event_sync_s"]
    copies = (h["copy_h2d"] + h["copy_d2h"]) * H100["copy_s"] + \
        (h["copy_h2d_bytes"] + h["copy_d2h_bytes"]) / H100["pcie_bytes_per_s"]
    device = (h["copy_d2d_bytes"] * 2 + h["memset_bytes"]) / H100["hbm_bytes_per_s"] + \
        (h["copy_d2d"] + h["memset"]) * H100["launch_s"]
    return waits, copies + device


def fmt(v):
    if v >= 100:
        return "{:,.0f}".format(v)
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def mb(v):
    return "%.1f" % (v / 1e6)


def report(sizes, kerns, hosts, trees, target, args):
    n1, n2 = sizes[0], sizes[-1]
    k1, k2 = kerns[0], kerns[-1]
    names = sorted(set(k1) | set(k2), key=lambda k: -k2.get(k, {}).get("gld_sec", 0))
    zero = {f: 0 for f in KFIELDS}
    b1, b2 = trees[0][2], trees[-1][2]
    scaled = {}
    for k in names:
        c1, c2 = k1.get(k, zero), k2.get(k, zero)
        u1, u2 = units(k, c1, b1), units(k, c2, b2)
        u_t = units(k, c2, FULL_TREE_BUILDS)  # the grid at the larger size is the grid at 10M
        scaled[k] = {f: scale(c1[f], c2[f], u1, u2, n1, n2, u_t, target) for f in KFIELDS}
        for f in ("launches", "blocks", "threads", "dsmem"):  # per level, or per block of a grid that no longer grows
            if k.startswith("build_kernel(") or f in ("launches", "dsmem"):
                scaled[k][f] = c2[f]
    # host calls are per level (one unit per round), their bytes per node
    hscaled = {f: scale(hosts[0][f], hosts[-1][f], b1 if f.endswith("bytes") else 1,
                        b2 if f.endswith("bytes") else 1, n1, n2,
                        FULL_TREE_BUILDS if f.endswith("bytes") else 1, target) for f in HFIELDS}
    cap_note = flush_cap(scaled, k2, trees[-1][2], FULL_TREE_BUILDS)
    per_kernel = {}
    p = print
    p("# Modelled cost of one W1 training round on an H100 (gbt CUDA backend, from the emulator)")
    p()
    p("Every figure below is **modelled**: counted by the CUDA emulator's counting build on W1's shape")
    p("(28 features, depthwise depth 8, max_bin 256) at %s rows, scaled to %s rows, and timed" %
      (" and ".join("{:,}".format(n) for n in sizes), "{:,}".format(target)))
    p("from H100 peak figures.  Command: `%s`." % " ".join(["python3", "bench/costmodel.py"] + args.argv))
    p()
    p("Tree shape per steady round (modelled from the emulated trainings): " +
      "; ".join("%s rows: %.1f splits, %.1f leaves, %.1f histogram builds" % ("{:,}".format(n), t[0], t[1], t[2])
                for n, t in zip(sizes, trees)))
    p()
    for n, k, h in zip(sizes, kerns, hosts):
        p("## Modelled counts per steady round at %s rows (emulator)" % "{:,}".format(n))
        p()
        p("| kernel (modelled) | launches | global load requests | load sectors | distinct load sectors |"
          " store requests | store sectors | shared wavefronts | shared atomics | global atomics |")
        p("|---|---|---|---|---|---|---|---|---|---|")
        for name in names:
            c = k.get(name, zero)
            p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                KERNEL_NAMES.get(name, name), fmt(c["launches"]), fmt(c["gld_req"]), fmt(c["gld_sec"]),
                fmt(c["gld_uniq"]), fmt(c["gst_req"]), fmt(c["gst_sec"]),
                fmt(c["sld_wav"] + c["sst_wav"] + c["sat_wav"]), fmt(c["sat"]), fmt(c["gat"])))
        p()
        p(host_line(h))
        p()
    p("## Modelled per steady round at %s rows (scaled: a x nodes + b x rows through the two sizes,"
      " a full depth-8 tree of %d histogram builds)" % ("{:,}".format(target), FULL_TREE_BUILDS))
    p()
    p("| kernel (modelled) | launches | requested MB (L1) | DRAM MB (distinct sectors) | shared wavefronts (M)"
      " | shared atomics (M) | global atomics (M) | registers | warps in flight | latency ms | bound"
      " | modelled H100 ms |")
    p("|---|---|---|---|---|---|---|---|---|---|---|---|")
    total_k = 0.0
    total_dram = 0.0
    total_launch = 0.0
    rows_out = []
    res = kernel_resources.read_reports(args.ptxas) if os.path.isdir(args.ptxas) else {}
    consts = kernel_resources.constants(args.cuda_src)
    for name in names:
        c = scaled[name]
        warps, regs = resident_warps(name, c, res)
        chains = in_flight(name, consts)
        t, bound = kernel_time(c, warps, chains)
        total_k += t
        total_dram += 32.0 * (c["gld_uniq"] + c["gst_uniq"])
        total_launch += c["launches"]
        lat = latency_cycles(c) / warps / chains / H100["clock_hz"] if warps > 0 else 0.0
        rows_out.append((t, name, c, bound, warps, regs, lat))
        per_kernel[KERNEL_NAMES.get(name, name)] = dict(ms=t * 1e3, bound=bound, warps=warps, registers=regs,
                                                         latency_ms=lat * 1e3)
    for t, name, c, bound, warps, regs, lat in sorted(rows_out, key=lambda r: -r[0]):
        p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %.3f |" % (
            KERNEL_NAMES.get(name, name), fmt(c["launches"]), mb(32.0 * (c["gld_sec"] + c["gst_sec"])),
            mb(32.0 * (c["gld_uniq"] + c["gst_uniq"])), "%.2f" % ((c["sld_wav"] + c["sst_wav"] + c["sat_wav"]) / 1e6),
            "%.2f" % (c["sat"] / 1e6), "%.2f" % (c["gat"] / 1e6), regs if regs else "?", fmt(warps), lat * 1e3,
            bound, t * 1e3))
    waits, copies = host_time(hscaled)
    total = total_k + waits + copies
    p()
    p(host_line(hscaled))
    p()
    p("| modelled per round | ms |")
    p("|---|---|")
    p("| kernels (%d launches, %.0f MB from DRAM) | %.3f |" % (round(total_launch), total_dram / 1e6, total_k * 1e3))
    p("| host waits (%.0f stream/copy/implicit at %.0f us, %.0f event at %.0f us) | %.3f |" % (
        hscaled["sync_stream"] + hscaled["sync_device"] + hscaled["sync_copy"] + hscaled["sync_implicit"],
        H100["sync_s"] * 1e6, hscaled["sync_event"], H100["event_sync_s"] * 1e6, waits * 1e3))
    p("| copies and memsets | %.3f |" % (copies * 1e3))
    p("| **total, modelled** | **%.3f** |" % (total * 1e3))
    p("| measured on an H100 (docs/gpu-runs/2026-11-23-h100.md, rounds after the first) | 8.8 |")
    p("| measured / modelled | %.2f |" % (MEASURED_ROUND_S / total))
    p()
    if cap_note:
        p(cap_note)
        p()
    p("Model: a kernel's modelled time is the largest of DRAM (distinct 32-byte sectors per launch x 32 B"
      " / %.2f TB/s), L1 (requested sectors x 32 B / (%d B/clock x %d SMs x %.2f GHz)), shared memory"
      " (wavefronts / (%d SMs x %.2f GHz)), global atomics (32 B each at the DRAM rate) and latency"
      " (each warp's global loads at %d clocks from DRAM or %d from L2, by the share of distinct sectors,"
      " shared loads at %d and shared atomics at %d, over the warps in flight: blocks per SM from the"
      " threads, ptxas's registers (\"?\": no report in %s, not counted) and the shared memory, times"
      " the SMs, and by the rows a warp keeps in flight: %d for the histogram kernel), plus %.0f us per launch; host waits %.0f us each (event waits %.0f us), copies %.0f us each plus bytes at"
      " %.0f GB/s.  The measured record has no per-kernel times, so only the round's total is"
      " compared." % (H100["hbm_bytes_per_s"] / 1e12, H100["l1_bytes_per_clk"], H100["sms"], H100["clock_hz"] / 1e9,
                      H100["sms"], H100["clock_hz"] / 1e9, LATENCY["dram"], LATENCY["l2"], LATENCY["shared"],
                      LATENCY["shared_atomic"], args.ptxas, in_flight("build_kernel(", consts), H100["launch_s"] * 1e6, H100["sync_s"] * 1e6,
                      H100["event_sync_s"] * 1e6, H100["copy_s"] * 1e6, H100["pcie_bytes_per_s"] / 1e9))
    return dict(sizes=sizes, target=target, trees=trees,
                per_size=[dict(kernels=k, host=h) for k, h in zip(kerns, hosts)],
                scaled=dict(kernels=scaled, host=hscaled), modelled_round_s=total, per_kernel=per_kernel,
                measured_round_s=MEASURED_ROUND_S, h100=H100, latency=LATENCY)


def host_line(h):
    return ("Modelled host side per round: %s host waits (stream %s, event %s, device %s, synchronous copies %s,"
            " implicit %s); copies to the device %s (%s bytes), to the host %s (%s bytes), device to device %s;"
            " memsets %s (%s bytes)." % (
                fmt(h["sync_stream"] + h["sync_event"] + h["sync_device"] + h["sync_copy"] + h["sync_implicit"]),
                fmt(h["sync_stream"]), fmt(h["sync_event"]), fmt(h["sync_device"]), fmt(h["sync_copy"]),
                fmt(h["sync_implicit"]), fmt(h["copy_h2d"]), fmt(h["copy_h2d_bytes"]), fmt(h["copy_d2h"]),
                fmt(h["copy_d2h_bytes"]), fmt(h["copy_d2d"]), fmt(h["memset"]), fmt(h["memset_bytes"])))


def replayed(files):
    """The sizes, per-size counts and tree shapes of one or more earlier --json files, in the order of
    their sizes: at most two sizes in all, no size twice (two one-size counts, of the same kernels,
    taken at different times, make one two-size run)."""
    per = {}
    for fn in files:
        try:
            with open(fn) as f:
                old = json.load(f)
        except OSError as e:
            sys.exit("costmodel: %s: cannot read it (%s)" % (fn, e.strerror))
        except ValueError as e:
            sys.exit("costmodel: %s: not JSON (%s)" % (fn, e))
        try:
            got = list(zip(old["sizes"], old["per_size"], old["trees"]))
        except (KeyError, TypeError) as e:
            sys.exit("costmodel: %s: not a costmodel --json file (no %s)" % (fn, e))
        for n, ps, t in got:
            if n in per:
                sys.exit("costmodel: %s: %d rows counted twice in --replay's files" % (fn, n))
            per[n] = (ps["kernels"], ps["host"], tuple(t))
    if not 1 <= len(per) <= 2:
        sys.exit("costmodel: --replay's files hold %d sizes; one or two are modelled" % len(per))
    sizes = sorted(per)
    return (sizes, [per[n][0] for n in sizes], [per[n][1] for n in sizes], [per[n][2] for n in sizes])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="68000,136000",
                    help="emulated sizes, one or two (default 68000,136000: both at or above the 67.3k rows"
                         " where the histogram kernel's grid stops growing)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds per size; rounds 2.. are averaged (default 2)")
    ap.add_argument("--target-rows", type=int, default=10000000, help="rows to scale to (default 10M)")
    ap.add_argument("--threads", type=int, default=2, help="host threads (binning on the CPU)")
    ap.add_argument("--seed", type=int, default=1, help="GBT_EMU_SEED (the counts barely depend on it)")
    ap.add_argument("--builddir", default=SRCDIR, help="the configured build tree (default: the source tree)")
    ap.add_argument("--ptxas", help="ptxas's reports of the kernels counted (default: BUILDDIR/cuda, where a CUDA"
                    " build keeps them: build-aux/cudalt.sh)")
    ap.add_argument("--cuda-src", help="the counted kernels' cuda/ sources, for their constants (default:"
                    " BUILDDIR/cuda when it has them, else this tree's)")
    ap.add_argument("--workdir", default=os.path.join(HERE, "work"), help="generated data (default bench/work)")
    ap.add_argument("--json", help="also write every count and modelled figure to this file")
    ap.add_argument("--replay", help="model again the counts of an earlier --json file (no emulation); two"
                    " files, comma-separated, each of one size, are modelled together as one two-size run")
    args = ap.parse_args()
    args.argv = sys.argv[1:]
    args.bindir = os.path.join(args.builddir, "bench")
    if args.ptxas is None:
        args.ptxas = os.path.join(args.builddir, "cuda")
    # the kernels' sources: the build tree's (in-tree builds, scripts/costmodel-calibrate.sh), else this tree's
    if args.cuda_src is None:
        args.cuda_src = os.path.join(args.builddir, "cuda")
        if not os.path.exists(os.path.join(args.cuda_src, "histogram.cu")):
            args.cuda_src = os.path.join(SRCDIR, "cuda")
    if args.replay:
        sizes, kerns, hosts, trees = replayed(args.replay.split(","))
        res = report(sizes, kerns, hosts, trees, args.target_rows, args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(res, f, indent=1, sort_keys=True)
        return
    sizes = sorted(int(x) for x in args.rows.split(","))
    if not 1 <= len(sizes) <= 2 or sizes[0] < 1 or args.rounds < 1:
        sys.exit("costmodel: --rows takes one or two positive sizes, --rounds a positive count")
    if not os.path.exists(os.path.join(args.bindir, "costmodel_run")):
        log("building the counting build (make cuda-emu-cost) in %s" % args.builddir)
        run(["make", "-C", args.builddir, "--no-print-directory", "-s", "cuda-emu-cost", "bench/gen_workload"])
    os.makedirs(args.workdir, exist_ok=True)
    data = os.path.join(args.workdir, "costmodel-higgs-%d" % sizes[-1])
    if not os.path.exists(os.path.join(data, "meta.json")):
        log("generating W1's data, %d rows, in %s" % (sizes[-1], data))
        run([os.path.join(args.bindir, "gen_workload"), "higgs", data, "--rows", str(sizes[-1]),
             "--test-rows", "1", "--seed", "42"])
    kerns, hosts, trees, firsts = [], [], [], []
    for n in sizes:
        rounds, tr = train(args, data, n)
        firsts.append(rounds[1])
        k, h = steady(rounds)
        kerns.append(k)
        hosts.append(h)
        st = [tr[r] for r in sorted(tr) if r >= 2] or [tr[1]]
        trees.append(tuple(sum(x[i] for x in st) / len(st) for i in range(3)))
    res = report(sizes, kerns, hosts, trees, args.target_rows, args)
    for n, r1 in zip(sizes, firsts):
        print("First round at %s rows (modelled, emulator; binning on the device, the codes back and up again; the emulated CUB sort and scans are one thread each, so their counts are not a GPU's): %d launches; %s"
              % ("{:,}".format(n), sum(k["launches"] for k in r1["kernels"].values()), host_line(r1["host"])[0].lower()
                 + host_line(r1["host"])[1:]))
        print()
    res["first_round"] = firsts
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
