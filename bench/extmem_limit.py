#!/usr/bin/env python3
"""External memory under a memory limit: data about 3x the memory a
training is allowed, made batch by batch by a DataIter (never whole in
memory), trained by gbt's ExtMemQuantileDMatrix and by XGBoost's on the
same batches under the same limit, each in its own process.

    python3 bench/extmem_limit.py [--allow-mb 200] [--ratio 3] [--cols 200] [--batches 32] [--rounds 3]

The limit: a memory cgroup (v2 memory.max, else v1 memory.limit_in_bytes;
the script must be able to make one, e.g. as root) holding only the child.
Each library's process before any data (Python, numpy, the library: its
"base", measured first in a process of its own) is added to the allowance,
so both get ALLOW MB for the data and the training; the rows are
ALLOW x RATIO MB of float32.  Without a writable cgroup the script falls
back to an address-space limit (RLIMIT_AS, ulimit -v) of the child's own
address space before the data plus ALLOW plus 256 MB for thread stacks
and allocator arenas: a looser bound, said so in the output.

Values have two decimals (101 distinct a feature): pass 1's exact lists
are small then (docs/external-memory.md, Memory).  For each way it prints
the peak RSS of the child (mapped files included: XGBoost maps its page
files, so its RSS may pass the cgroup's limit, the pages being page cache
the kernel can drop), the cgroup's peak (its memory, page cache of
the page file included), the seconds to make the data and to train, the peaks of making the data
and of the training alone (the freed heap returned by malloc_trim, then
VmHWM reset through /proc/self/clear_refs), and
for gbt the bytes its page reader read per round (/proc/self/io rchar),
which gbt's CUDA backend (a copy of every page per pass) would move over PCIe, with
the seconds that takes at 25 GB/s (PCIe 4.0 x16) and 50 GB/s (5.0 x16),
and gbt's own memory estimate (the figure its up-front check compares
with the memory, read from the refusal under GBT_CPU_FAKE_MEMORY_BYTES=1).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, resource, sys, tempfile, time
import numpy as np
way, rows, cols, nb, rounds, cache_dir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
lib = __import__("xgboost" if way == "xgboost" else "gbt")
out = {"base_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
with open("/proc/self/statm") as f:
    out["base_vsz"] = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
if rows == 0:
    print(json.dumps(out)); sys.exit(0)

def rchar():
    with open("/proc/self/io") as f:
        return int(next(l for l in f if l.startswith("rchar")).split()[1])

class It(lib.DataIter):
    def __init__(self, prefix):
        self.k = 0
        super().__init__(cache_prefix=prefix)
    def next(self, input_data):
        if self.k == nb:
            return False
        rng = np.random.default_rng(self.k)
        X = np.round(rng.random((rows // nb, cols), dtype=np.float32), 2)
        y = (X[:, 0] + X[:, 1] > 1).astype(np.float32)
        input_data(data=X, label=y)
        self.k += 1
        return True
    def reset(self):
        self.k = 0

params = {"objective": "binary:logistic", "max_depth": 6, "max_bin": 256, "nthread": 2, "tree_method": "hist"}
t0 = time.perf_counter()
d = lib.ExtMemQuantileDMatrix(It(os.path.join(cache_dir, "c")), max_bin=256)
out["make_s"] = time.perf_counter() - t0
if way == "gbt":
    os.environ["GBT_CPU_FAKE_MEMORY_BYTES"] = "1"
    try:
        lib.train(params, d, 1)
    except lib.GBTError as e:
        out["estimate"] = str(e)
    del os.environ["GBT_CPU_FAKE_MEMORY_BYTES"]
def status(key):
    with open("/proc/self/status") as f:
        return int(next(l for l in f if l.startswith(key + ":")).split()[1]) * 1024

out["make_peak_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
import ctypes
ctypes.CDLL("libc.so.6").malloc_trim(0)  # the batches' freed heap back to the system: VmRSS is what lives
out["rss_before_train"] = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # VmHWM starts again from VmRSS: the training's own peak
r0, t0 = rchar(), time.perf_counter()
b = lib.train(params, d, rounds)
out["train_s"] = time.perf_counter() - t0
out["train_hwm"] = status("VmHWM")
out["read_per_round"] = (rchar() - r0) / rounds
# clear_refs reset ru_maxrss with VmHWM: the whole run's peak is the larger of the two phases
out["peak_kb"] = max(out["make_peak_kb"], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
out["trees"] = len(b.get_dump())
print(json.dumps(out))
'''


def cgroup_dir():
    """A new memory cgroup's folder and its version, or (None, None)."""
    with open("/proc/self/cgroup") as f:
        lines = [l.rstrip("\n").split(":", 2) for l in f]
    name = f"gbt-bench-{os.getpid()}"
    for _, ctrl, path in lines:
        if ctrl == "" and os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            cand, ver = os.path.join("/sys/fs/cgroup" + path, name), 2
        elif "memory" in ctrl.split(","):
            cand, ver = os.path.join("/sys/fs/cgroup/memory", name), 1
        else:
            continue
        try:
            os.mkdir(cand)
            return cand, ver
        except OSError:
            pass
    return None, None


def cgroup_read(cg, ver, v1, v2):
    try:
        with open(os.path.join(cg, v2 if ver == 2 else v1)) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def run_child(way, args, rows, limit_bytes, cg, ver):
    cache = tempfile.TemporaryDirectory(dir=args.cache_dir)
    cmd = [sys.executable, "-c", CHILD, way, str(rows), str(args.cols), str(args.batches), str(args.rounds),
           cache.name]
    pre = None
    if cg and limit_bytes:
        with open(os.path.join(cg, "memory.max" if ver == 2 else "memory.limit_in_bytes"), "w") as f:
            f.write(str(limit_bytes))
        if ver == 1:
            with open(os.path.join(cg, "memory.max_usage_in_bytes"), "w") as f:
                f.write("0")

        def pre():
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
    elif limit_bytes:
        import resource

        def pre():
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    p = subprocess.run(cmd, preexec_fn=pre, capture_output=True, text=True)
    cache.cleanup()
    if p.returncode != 0:
        return {"failed": f"exit {p.returncode}" + (" (killed: over the limit)" if p.returncode < 0 else ""),
                "stderr": p.stderr[-600:]}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    if cg and limit_bytes:
        out["cgroup_peak"] = cgroup_read(cg, ver, "memory.max_usage_in_bytes", "memory.peak")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--allow-mb", type=float, default=200, help="memory for the data and training (MB)")
    ap.add_argument("--ratio", type=float, default=3, help="data size / allowance")
    ap.add_argument("--cols", type=int, default=200)
    ap.add_argument("--batches", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cache-dir", default=None, help="where the page files go (a disk, not tmpfs)")
    ap.add_argument("--ways", default="gbt,xgboost")
    args = ap.parse_args()
    mb = 1 << 20
    allow = int(args.allow_mb * mb)
    rows = int(allow * args.ratio / (4 * args.cols)) // args.batches * args.batches
    cg, ver = cgroup_dir()
    print(f"{rows} x {args.cols} float32 = {rows * args.cols * 4 / mb:.0f} MB in {args.batches} batches, "
          f"two decimals; allowance {args.allow_mb:.0f} MB above each library's base; "
          f"limit: {'cgroup v%d' % ver if cg else 'RLIMIT_AS (no writable cgroup; base VSZ + allowance + 256 MB)'}; "
          f"{args.rounds} rounds, depth 6, max_bin 256, 2 threads", flush=True)
    results = {}
    try:
        for way in args.ways.split(","):
            base = run_child(way, args, 0, 0, None, None)
            if cg:
                limit = base["base_kb"] * 1024 + allow
            else:
                limit = base["base_vsz"] + allow + 256 * mb
            r = run_child(way, args, rows, limit, cg, ver)
            r.update(limit=limit, base=base["base_kb"] * 1024)
            results[way] = r
            if "failed" in r:
                print(f"{way:8s} limit {limit / mb:6.0f} MB: {r['failed']}\n{r['stderr']}", flush=True)
                continue
            line = (f"{way:8s} limit {limit / mb:6.0f} MB  base {r['base'] / mb:6.1f} MB  peak RSS "
                    f"{r['peak_kb'] / 1024:6.1f} MB (peak - base {(r['peak_kb'] * 1024 - r['base']) / mb:6.1f} MB)")
            if r.get("cgroup_peak"):
                line += f"  cgroup peak {r['cgroup_peak'] / mb:6.1f} MB"
            line += f"  make {r['make_s']:6.1f} s  train {r['train_s']:6.1f} s ({r['trees']} trees)"
            print(line, flush=True)
            print(f"         making the data: peak - base {(r['make_peak_kb'] * 1024 - r['base']) / mb:6.1f} MB; "
                  f"training: peak {(r['train_hwm'] - r['rss_before_train']) / mb:6.1f} MB above the "
                  f"{r['rss_before_train'] / mb:.1f} MB before it", flush=True)
            if way == "gbt":
                m = re.search(r"needs about (\d+) bytes", r.get("estimate", ""))
                est = int(m.group(1)) if m else None
                rd = r["read_per_round"]
                print(f"         estimate {est / mb if est else float('nan'):6.1f} MB (gbt's check: "
                      f"{r.get('estimate', '?')})", flush=True)
                print(f"         pages read per round {rd / mb:8.1f} MB = {rd / (rows * args.cols):.1f} x the "
                      f"binned matrix; over PCIe {rd / 25e9:.3f} s at 25 GB/s, {rd / 50e9:.3f} s at 50 GB/s "
                      f"a round", flush=True)
        if all("failed" not in results.get(w, {"failed": 1}) for w in ("gbt", "xgboost")):
            g, x = results["gbt"], results["xgboost"]
            above = (g["peak_kb"] * 1024 - g["base"]) / (x["peak_kb"] * 1024 - x["base"])
            print(f"gbt / xgboost: peak - base {above:.2f} (XGBoost's RSS counts its mapped page files)"
                  f", train time {g['train_s'] / x['train_s']:.2f}, make time {g['make_s'] / x['make_s']:.2f}")
    finally:
        if cg:
            os.rmdir(cg)
    print(json.dumps({k: {a: b for a, b in v.items() if a != "stderr"} for k, v in results.items()}))


if __name__ == "__main__":
    main()
