#!/usr/bin/env python3
"""Accuracy on categorical features: gbt against XGBoost (enable_categorical)
and LightGBM (categorical_feature), and gbt on one-hot columns.

Generated binary tasks: 3 numeric columns and categorical columns of
CATS categories each (3, 30, 1000), every category with its own effect on
the log-odds, 5% of the categorical values missing; 50,000 training and
20,000 test rows.  All libraries train max_depth=6 (LightGBM: num_leaves
63, max_depth 6), eta 0.1, 100 rounds, max_bin 256, 2 threads.  gbt runs
through gbtrain/gbpredict (--categorical_feature), XGBoost and LightGBM
through their Python packages; "gbt one-hot" trains gbt on the categorical
columns expanded into one 0/1 column per category (sparse LIBSVM).

    python3 bench/accuracy_cat.py [--gbt-bin DIR]

Prints a Markdown table of test AUC and logloss (docs/accuracy.md).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROUNDS = 100


def task(ncat, ncols, n, seed):
    rng = np.random.RandomState(seed)
    effects = [rng.standard_normal(ncat) * 1.2 for _ in range(ncols)]
    X = np.empty((n, 3 + ncols))
    X[:, :3] = rng.standard_normal((n, 3))
    logit = 0.8 * X[:, 0] - 0.5 * X[:, 1] * X[:, 2]
    for j in range(ncols):
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


def write_onehot(path, X, y, ncat, ncols):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            toks = ["%d:%.9g" % (j, row[j]) for j in range(3)]
            for k in range(ncols):
                v = row[3 + k]
                if not np.isnan(v):
                    toks.append("%d:1" % (3 + k * ncat + int(v)))
            f.write("%g %s\n" % (label, " ".join(toks)))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s: %s" % (" ".join(cmd), r.stderr))


def gbt(bindir, work, Xtr, ytr, Xte, ncols, onehot=False, ncat=0):
    common = ["--objective=binary:logistic", "--max_depth=6", "--eta=0.1", "--max_bin=256", "--nthread=2",
              "--num_round=%d" % ROUNDS, "-q"]
    tr, te, model, pred = (os.path.join(work, f) for f in ("tr", "te", "m.json", "p.txt"))
    if onehot:
        write_onehot(tr, Xtr, np.zeros(len(Xtr)) + ytr, ncat, ncols)
        write_onehot(te, Xte, np.zeros(len(Xte)), ncat, ncols)
        run([os.path.join(bindir, "gbtrain")] + common + ["--format=libsvm", "--indexing_mode=0", tr, model])
        run([os.path.join(bindir, "gbpredict"), "-q", "--format=libsvm", "--indexing_mode=0", te, model, pred])
    else:
        write_csv(tr, Xtr, ytr)
        write_csv(te, Xte, np.zeros(len(Xte)))
        cats = ",".join(str(3 + k) for k in range(ncols))
        run([os.path.join(bindir, "gbtrain")] + common + ["--format=csv", "--categorical_feature=" + cats, tr,
                                                          model])
        run([os.path.join(bindir, "gbpredict"), "-q", "--format=csv", te, model, pred])
    return np.loadtxt(pred)


def xgboost(Xtr, ytr, Xte, ncols):
    import xgboost as xgb
    types = ["q"] * 3 + ["c"] * ncols
    dtr = xgb.DMatrix(Xtr, label=ytr, feature_types=types, enable_categorical=True)
    dte = xgb.DMatrix(Xte, feature_types=types, enable_categorical=True)
    params = {"objective": "binary:logistic", "max_depth": 6, "eta": 0.1, "max_bin": 256, "nthread": 2,
              "tree_method": "hist"}
    return xgb.train(params, dtr, ROUNDS).predict(dte), xgb.__version__


def lightgbm(Xtr, ytr, Xte, ncols):
    import lightgbm as lgb
    cats = list(range(3, 3 + ncols))
    params = {"objective": "binary", "num_leaves": 63, "max_depth": 6, "learning_rate": 0.1, "max_bin": 255,
              "num_threads": 2, "verbose": -1}
    ds = lgb.Dataset(Xtr, label=ytr, categorical_feature=cats)
    return lgb.train(params, ds, ROUNDS).predict(Xte), lgb.__version__


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gbt-bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    rows = []
    versions = {}
    with tempfile.TemporaryDirectory() as work:
        for ncat, ncols in [(3, 4), (30, 3), (1000, 2)]:
            X, y = task(ncat, ncols, 70000, ncat)
            Xtr, ytr, Xte, yte = split(X, y, 50000)
            preds = {"gbt": gbt(args.gbt_bin, work, Xtr, ytr, Xte, ncols),
                     "gbt one-hot": gbt(args.gbt_bin, work, Xtr, ytr, Xte, ncols, True, ncat)}
            preds["XGBoost"], versions["XGBoost"] = xgboost(Xtr, ytr, Xte, ncols)
            preds["LightGBM"], versions["LightGBM"] = lightgbm(Xtr, ytr, Xte, ncols)
            for name, p in preds.items():
                rows.append((ncat, ncols, name, auc(yte, p), logloss(yte, p)))
    print("XGBoost %s, LightGBM %s" % (versions["XGBoost"], versions["LightGBM"]))
    print()
    print("| categories | categorical columns | model | test AUC | test logloss | AUC - gbt's |")
    print("|---|---|---|---|---|---|")
    base = {}
    for ncat, ncols, name, a, l in rows:
        if name == "gbt":
            base[ncat] = a
    for ncat, ncols, name, a, l in rows:
        print("| %d | %d | %s | %.5f | %.5f | %+.5f |" % (ncat, ncols, name, a, l, a - base[ncat]))


if __name__ == "__main__":
    main()
