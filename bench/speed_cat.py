#!/usr/bin/env python3
"""Training speed with categorical features: gbt against XGBoost
(enable_categorical, hist) and LightGBM (categorical_feature), in one run
on the same generated data.

Data (generated, seed 7): ROWS training rows (1,000,000) and 200,000 test
rows; 5 numeric columns (normal; an interaction and a threshold in the
log-odds) and 5 categorical columns of 10, 30, 100, 300 and 1,000
categories (skewed frequencies: a few common categories and a long tail;
each category its own effect on the log-odds; 5% missing), binary labels.
Every library trains binary:logistic, depthwise max_depth=8 (LightGBM:
num_leaves 255, max_depth 8), eta 0.1, ROUNDS rounds (100), max_bin 256,
min_child_weight 1, lambda 1, THREADS threads (2), with XGBoost's
categorical defaults (one-hot below 4 categories, at most 64 categories
on a split's side; LightGBM: max_cat_to_onehot 4, max_cat_threshold 64,
its cat_smooth, cat_l2 and min_data_per_group left at their defaults).
gbt and XGBoost get the codes as float columns with feature_types "c",
LightGBM as categorical_feature; all through their Python packages, one
after the other in this process.

"construct s" is building the library's data object (gbt.Dataset,
xgboost.DMatrix, lightgbm.Dataset(...).construct(), which also bins);
"train s" is the training call (gbt and XGBoost bin there, in the first
round); ratios are the peer's time over gbt's.  --repeat N runs each
library N times, alternating, and reports medians.

    GBT_LIBRARY_PATH=.libs python3 bench/speed_cat.py [--rows 1000000] [--rounds 100] [--repeat 1]

Prints a Markdown table (docs/perf-notes.md keeps the last one).
"""
import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CATS = [10, 30, 100, 300, 1000]
NUMERIC = 5


def generate(n, seed):
    """n rows: NUMERIC numeric columns, then one categorical column per CATS entry; labels."""
    rng = np.random.RandomState(seed)
    X = np.empty((n, NUMERIC + len(CATS)), dtype=np.float32)
    X[:, :NUMERIC] = rng.standard_normal((n, NUMERIC))
    logit = 0.7 * X[:, 0] - 0.4 * X[:, 1] * X[:, 2] + 0.5 * (X[:, 3] > 0.5)
    for j, ncat in enumerate(CATS):
        effects = np.random.RandomState(100 + j).standard_normal(ncat) * 0.8
        c = np.minimum((rng.pareto(1.2, n) * ncat / 8).astype(np.int64), ncat - 1)
        logit += effects[c]
        col = c.astype(np.float32)
        col[rng.uniform(size=n) < 0.05] = np.nan
        X[:, NUMERIC + j] = col
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
    return X, y


def auc(y, p):
    """Area under the ROC curve (ties by average rank)."""
    order = np.argsort(p, kind="mergesort")
    sp = p[order]
    ranks = np.empty(len(p))
    i = 0
    while i < len(sp):
        j = i
        while j + 1 < len(sp) and sp[j + 1] == sp[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j + 2) / 2.0
        i = j + 1
    npos = float(y.sum())
    return (ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(y) - npos))


TYPES = ["q"] * NUMERIC + ["c"] * len(CATS)
CAT_COLS = list(range(NUMERIC, NUMERIC + len(CATS)))


def common(args):
    return {"objective": "binary:logistic", "eta": 0.1, "max_depth": 8, "max_bin": 256,
            "min_child_weight": 1.0, "lambda": 1.0, "nthread": args.threads,
            "max_cat_to_onehot": 4, "max_cat_threshold": 64}


def run_gbt(args, X, y, Xt):
    import gbt
    t0 = time.perf_counter()
    d = gbt.Dataset(X, y, feature_types=TYPES)
    t1 = time.perf_counter()
    b = gbt.train(common(args), d, args.rounds)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, b.predict(Xt), "gbt " + gbt.__version__


def run_xgboost(args, X, y, Xt):
    import xgboost as xgb
    t0 = time.perf_counter()
    d = xgb.DMatrix(X, y, feature_types=TYPES, enable_categorical=True, nthread=args.threads)
    t1 = time.perf_counter()
    b = xgb.train({**common(args), "tree_method": "hist", "verbosity": 0}, d, args.rounds)
    t2 = time.perf_counter()
    dt = xgb.DMatrix(Xt, feature_types=TYPES, enable_categorical=True, nthread=args.threads)
    return t1 - t0, t2 - t1, b.predict(dt), "xgboost " + xgb.__version__


def run_lightgbm(args, X, y, Xt):
    import lightgbm as lgb
    p = {"objective": "binary", "learning_rate": 0.1, "max_bin": 256, "num_leaves": 255, "max_depth": 8,
         "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": 1.0, "lambda_l2": 1.0,
         "num_threads": args.threads, "verbose": -1, "max_cat_to_onehot": 4, "max_cat_threshold": 64}
    t0 = time.perf_counter()
    d = lgb.Dataset(X, y, categorical_feature=CAT_COLS, params=p, free_raw_data=True).construct()
    t1 = time.perf_counter()
    b = lgb.train(p, d, num_boost_round=args.rounds)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, b.predict(Xt), "lightgbm " + lgb.__version__


RUNNERS = {"gbt": run_gbt, "xgboost": run_xgboost, "lightgbm": run_lightgbm}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--test-rows", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--libs", default="gbt,xgboost,lightgbm")
    args = ap.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if "GBT_LIBRARY_PATH" not in os.environ and os.path.isdir(os.path.join(ROOT, ".libs")):
        os.environ["GBT_LIBRARY_PATH"] = os.path.join(ROOT, ".libs")
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

    X, y = generate(args.rows + args.test_rows, 7)
    X, Xt, y, yt = X[:args.rows], X[args.rows:], y[:args.rows], y[args.rows:]
    libs = [lib for lib in args.libs.split(",") if lib]
    times = {lib: ([], []) for lib in libs}
    result = {}
    for _ in range(args.repeat):
        for lib in libs:
            try:
                c, t, p, name = RUNNERS[lib](args, X, y, Xt)
            except ImportError as e:
                print(f"# {lib} skipped: {e}", file=sys.stderr)
                continue
            times[lib][0].append(c)
            times[lib][1].append(t)
            result[lib] = (name, auc(yt, np.asarray(p, dtype=np.float64)))
            print(f"# {name}: construct {c:.2f} s, train {t:.2f} s", file=sys.stderr, flush=True)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Categorical speed workload: {args.rows:,} training rows, {NUMERIC} numeric + "
          f"{len(CATS)} categorical columns ({', '.join(map(str, CATS))} categories), depthwise d8, "
          f"{args.rounds} rounds, {args.threads} threads, median of {args.repeat}; "
          f"{platform.node()}, load average {load:.2f} at the end.\n")
    print("| library | construct s | train s | ms/round | test AUC | gbt speed-up (train) | "
          "gbt speed-up (construct + train) |")
    print("|---|---|---|---|---|---|---|")
    ref = None
    if "gbt" in result:
        ref = (statistics.median(times["gbt"][0]), statistics.median(times["gbt"][1]))
    for lib in libs:
        if lib not in result:
            continue
        c, t = statistics.median(times[lib][0]), statistics.median(times[lib][1])
        if lib == "gbt" or ref is None:
            ratio = "(reference)", "(reference)"
        else:
            ratio = f"{t / ref[1]:.2f}x", f"{(c + t) / (ref[0] + ref[1]):.2f}x"
        name, a = result[lib]
        print(f"| {name} | {c:.3f} | {t:.2f} | {1000 * t / args.rounds:.1f} | {a:.5f} | {ratio[0]} | {ratio[1]} |")


if __name__ == "__main__":
    main()
