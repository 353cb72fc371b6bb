#!/usr/bin/env python3
"""construct.py - dataset construction + binning, gbt builds against LightGBM, paired.

    python3 bench/construct.py DATA_DIR SRC_TREE [SRC_TREE ...] [--pairs N] [--threads T]

DATA_DIR holds gen_workload's dense output (X_train.f32, meta.json).  Each
SRC_TREE (a checkout of gbt's src/ and include/ with a config.h) is built
into a construct_time binary; then N rounds each run every binary once and
LightGBM's lgb.Dataset(X, y, params={max_bin: 255}).construct() once, in
turn, so that the machine's drift hits every one alike.  Prints each
round's times and the medians.
"""
import glob, json, os, subprocess, sys, tempfile, time

import numpy as np


def build(tree, out):
    srcs = [f"{tree}/src/data/{n}.c" for n in ("dataset", "feature_names", "quantize", "binned")]
    srcs = [s for s in srcs if os.path.exists(s)]
    srcs += [f"{tree}/src/util/{n}.c" for n in ("sort", "util", "error")]
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.check_call(["cc", "-std=c11", "-O2", "-fopenmp", "-ffp-contract=off", "-fno-trapping-math",
                           "-D_POSIX_C_SOURCE=200809L", f"-I{tree}", f"-I{tree}/include", f"-I{tree}/src",
                           "-o", out, f"{here}/construct_time.c"] + srcs + ["-lm"])


def main():
    args = sys.argv[1:]
    pairs, threads = 5, 2
    if "--pairs" in args:
        i = args.index("--pairs"); pairs = int(args[i + 1]); del args[i:i + 2]
    if "--threads" in args:
        i = args.index("--threads"); threads = int(args[i + 1]); del args[i:i + 2]
    data, trees = args[0], args[1:]
    meta = json.load(open(f"{data}/meta.json"))
    n, c = meta["rows"], meta["cols"]
    tmp = tempfile.mkdtemp()
    bins = []
    for k, t in enumerate(trees):
        bins.append(f"{tmp}/construct_{k}")
        build(t, bins[-1])
    import lightgbm as lgb
    X = np.fromfile(f"{data}/X_train.f32", dtype=np.float32).reshape(n, c)
    y = np.fromfile(f"{data}/y_train.f32", dtype=np.float32)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    res = {t: [] for t in trees}
    res["lightgbm"] = []
    for p in range(pairs):
        for t, b in zip(trees, bins):
            out = subprocess.check_output([b, f"{data}/X_train.f32", str(n), str(c), str(threads)], env=env)
            res[t].append(json.loads(out))
        t0 = time.perf_counter()
        lgb.Dataset(X, y, params={"max_bin": 255, "num_threads": threads, "verbose": -1}).construct()
        res["lightgbm"].append({"total_s": time.perf_counter() - t0})
        print(f"round {p}: " + "  ".join(f"{k}: {v[-1]}" for k, v in res.items()), flush=True)
    print("medians (s):")
    for k, v in res.items():
        line = {f: float(np.median([r[f] for r in v])) for f in v[0] if f.endswith("_s")}
        print(f"  {k}: {line}")


if __name__ == "__main__":
    main()
