#!/usr/bin/env python3
"""How the cost of a training with a validation set grows with its rounds.

gbt.train evaluates each round's new trees only, on raw scores cached per
validation set (src/train/rounds.c), so 1000 rounds should cost about
1000/300 = 3.3 times 300 rounds; re-predicting every tree each round would
cost about (1000/300)^2 = 11 times.  XGBoost 3.2, which caches prediction
the same way, is timed in the same run for comparison when it is installed.

    python3 bench/eval_cost.py        (needs the gbt package importable:
                                       PYTHONPATH=bindings/python and
                                       GBT_LIBRARY_PATH=.libs/libgbt.so)
"""
import time

import numpy as np

import gbt

try:
    import xgboost
except ImportError:  # the peer is optional
    xgboost = None


def best_time(lib, rounds, dtrain, dvalid, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        lib.train({"max_depth": 2, "nthread": 1, "eta": 0.05}, dtrain, rounds, evals=[(dvalid, "v")],
                  verbose_eval=False)
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)).astype(np.float32)
    y = X[:, 0] - X[:, 1] + rng.normal(size=300)
    Xv = rng.normal(size=(40000, 4)).astype(np.float32)
    yv = Xv[:, 0] - Xv[:, 1]
    print("library   300 rounds  1000 rounds  ratio (linear: 3.3, re-predicting: 11)")
    for lib in (gbt, xgboost):
        if lib is None:
            continue
        dtrain, dvalid = lib.DMatrix(X, label=y), lib.DMatrix(Xv, label=yv)
        t300, t1000 = best_time(lib, 300, dtrain, dvalid), best_time(lib, 1000, dtrain, dvalid)
        print(f"{lib.__name__:8s}  {t300:9.3f} s  {t1000:10.3f} s  {t1000 / t300:5.2f}")


if __name__ == "__main__":
    main()
