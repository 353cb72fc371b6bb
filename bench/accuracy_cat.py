#!/usr/bin/env python3
"""Accuracy on categorical features: gbt against XGBoost (enable_categorical)
and LightGBM (categorical_feature), gbt with LightGBM's regularisation of
partitions, and gbt on one-hot columns.

Generated binary tasks: 3 numeric columns and categorical columns, every
category with its own effect on the log-odds, skewed frequencies, 5% of
the categorical values missing.  Four tasks: columns of 3, 30 and 1000
categories (4, 3 and 2 columns; 50,000 training and 20,000 test rows, 100
rounds), and one column each of 4, 60 and 800 categories (issue 33's
shape: 20,000 training and 20,000 test rows, 200 rounds).  All libraries
train max_depth=6 (LightGBM: num_leaves 63, max_depth 6), eta 0.1,
max_bin 256, 2 threads.  gbt runs through gbtrain/gbpredict
(--categorical_feature), XGBoost and LightGBM through their Python
packages with their defaults otherwise.  "gbt LightGBM cat" is gbt with
LightGBM's defaults of its categorical parameters (cat_smooth=10,
cat_l2=10, max_cat_threshold=32, min_data_per_group=100; gbt's other
defaults, lambda=1 among them), "gbt one-hot" gbt on the categorical
columns expanded into one 0/1 column per category (sparse LIBSVM).

    python3 bench/accuracy_cat.py [--gbt-bin DIR] [--seeds N]

Prints a Markdown table of test AUC and logloss (docs/accuracy.md); with
--seeds N, each task is generated N times (seeds 0 .. N-1 added to the
task's own) and the table gives the means.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# (name, categories of each categorical column, training rows, test rows, rounds, seed)
TASKS = [("3", [3] * 4, 50000, 20000, 100, 3), ("30", [30] * 3, 50000, 20000, 100, 30),
         ("1000", [1000] * 2, 50000, 20000, 100, 1000), ("4, 60, 800", [4, 60, 800], 20000, 20000, 200, 33)]
LGB_CAT = ["--cat_smooth=10", "--cat_l2=10", "--max_cat_threshold=32", "--min_data_per_group=100"]


def task(cats, n, seed):
    rng = np.random.RandomState(seed)
    ncols = len(cats)
    effects = [rng.standard_normal(ncat) * 1.2 for ncat in cats]
    X = np.empty((n, 3 + ncols))
    X[:, :3] = rng.standard_normal((n, 3))
    logit = 0.8 * X[:, 0] - 0.5 * X[:, 1] * X[:, 2]
    for j, ncat in enumerate(cats):
        # skewed frequencies: a few common categories, a long tail
        c = np.minimum((rng.pareto(1.2, n) * ncat / 8).astype(int), ncat - 1)
        logit += effects[j][c]
        cv = c.astype(float)
        cv[rng.uniform(size=n) < 0.05] = np.nan
        X[:, 3 + j] = cv
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(float)
    return X, y


def split(X, y, ntrain):
    return X[:ntrain], y[:ntrain], X[ntrain:], y[ntrain:]


def auc(y, p):
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    # ties: average ranks
    sp = p[order]
    i = 0
    while i < len(sp):
        j = i
        while j + 1 < len(sp) and sp[j + 1] == sp[i]:
            j += 1
        if j > i:
            ranks[order[i:j + 1]] = (i + j + 2) / 2.0
        i = j + 1
    npos = y.sum()
    return (ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(y) - npos))


def logloss(y, p):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def write_csv(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(",".join(["%g" % label] + ["" if np.isnan(v) else "%.9g" % v for v in row]) + "\n")


def write_onehot(path, X, y, cats):
    first = np.cumsum([3] + cats)  # each categorical column's first one-hot column
    with open(path, "w") as f:
        for row, label in zip(X, y):
            toks = ["%d:%.9g" % (j, row[j]) for j in range(3)]
            for k in range(len(cats)):
                v = row[3 + k]
                if not np.isnan(v):
                    toks.append("%d:1" % (first[k] + int(v)))
            f.write("%g %s\n" % (label, " ".join(toks)))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s: %s" % (" ".join(cmd), r.stderr))


def gbt(bindir, work, Xtr, ytr, Xte, rounds, cats, onehot=False, extra=()):
    common = ["--objective=binary:logistic", "--max_depth=6", "--eta=0.1", "--max_bin=256", "--nthread=2",
              "--num_round=%d" % rounds, "-q"] + list(extra)
    tr, te, model, pred = (os.path.join(work, f) for f in ("tr", "te", "m.json", "p.txt"))
    if onehot:
        write_onehot(tr, Xtr, np.zeros(len(Xtr)) + ytr, cats)
        write_onehot(te, Xte, np.zeros(len(Xte)), cats)
        run([os.path.join(bindir, "gbtrain")] + common + ["--format=libsvm", "--indexing_mode=0", tr, model])
        run([os.path.join(bindir, "gbpredict"), "-q", "--format=libsvm", "--indexing_mode=0", te, model, pred])
    else:
        write_csv(tr, Xtr, ytr)
        write_csv(te, Xte, np.zeros(len(Xte)))
        cols = ",".join(str(3 + k) for k in range(len(cats)))
        run([os.path.join(bindir, "gbtrain")] + common + ["--format=csv", "--categorical_feature=" + cols, tr,
                                                          model])
        run([os.path.join(bindir, "gbpredict"), "-q", "--format=csv", te, model, pred])
    return np.loadtxt(pred)


def xgboost(Xtr, ytr, Xte, rounds, ncols):
    import xgboost as xgb
    types = ["q"] * 3 + ["c"] * ncols
    dtr = xgb.DMatrix(Xtr, label=ytr, feature_types=types, enable_categorical=True)
    dte = xgb.DMatrix(Xte, feature_types=types, enable_categorical=True)
    params = {"objective": "binary:logistic", "max_depth": 6, "eta": 0.1, "max_bin": 256, "nthread": 2,
              "tree_method": "hist"}
    return xgb.train(params, dtr, rounds).predict(dte), xgb.__version__


def lightgbm(Xtr, ytr, Xte, rounds, ncols):
    import lightgbm as lgb
    cats = list(range(3, 3 + ncols))
    params = {"objective": "binary", "num_leaves": 63, "max_depth": 6, "learning_rate": 0.1, "max_bin": 255,
              "num_threads": 2, "verbose": -1}
    ds = lgb.Dataset(Xtr, label=ytr, categorical_feature=cats)
    return lgb.train(params, ds, rounds).predict(Xte), lgb.__version__


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gbt-bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args()
    rows = []
    versions = {}
    with tempfile.TemporaryDirectory() as work:
        for name, cats, ntrain, ntest, rounds, seed in TASKS:
            scores = {}
            for k in range(args.seeds):
                X, y = task(cats, ntrain + ntest, seed + k)
                Xtr, ytr, Xte, yte = split(X, y, ntrain)
                preds = {"gbt": gbt(args.gbt_bin, work, Xtr, ytr, Xte, rounds, cats),
                         "gbt LightGBM cat": gbt(args.gbt_bin, work, Xtr, ytr, Xte, rounds, cats, extra=LGB_CAT),
                         "gbt one-hot": gbt(args.gbt_bin, work, Xtr, ytr, Xte, rounds, cats, True)}
                preds["XGBoost"], versions["XGBoost"] = xgboost(Xtr, ytr, Xte, rounds, len(cats))
                preds["LightGBM"], versions["LightGBM"] = lightgbm(Xtr, ytr, Xte, rounds, len(cats))
                for model, p in preds.items():
                    scores.setdefault(model, []).append((auc(yte, p), logloss(yte, p)))
            for model, s in scores.items():
                rows.append((name, len(cats), model, np.mean([a for a, _ in s]), np.mean([l for _, l in s])))
    print("XGBoost %s, LightGBM %s, %d seed(s)" % (versions["XGBoost"], versions["LightGBM"], args.seeds))
    print()
    print("| categories | categorical columns | model | test AUC | test logloss | AUC - gbt's | AUC - LightGBM's |")
    print("|---|---|---|---|---|---|---|")
    base = {(r[0], r[2]): r[3] for r in rows}
    for name, ncols, model, a, l in rows:
        print("| %s | %d | %s | %.5f | %.5f | %+.5f | %+.5f |" % (name, ncols, model, a, l, a - base[(name, "gbt")],
                                                               a - base[(name, "LightGBM")]))


if __name__ == "__main__":
    main()
