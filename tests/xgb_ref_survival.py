#!/usr/bin/env python3
"""The XGBoost 3.2.0 reference values pasted into tests/test_survival.c.

Not run by make check (it needs the xgboost Python package); run it by hand
to recompute them:  python3 tests/xgb_ref_survival.py

1. XGBoost's own evaluation of given raw scores: the scores go in as
   base_margin and one round with eta 0 leaves them unchanged.
2. XGBoost's AFT gradient and hessian of one row far from the data (60
   sigmas): two identical rows, eta 1, max_depth 1, min_child_weight 0; the
   leaf is -G/(H + lambda), so lambda 0 and 1 give G and H (per row: / 2).
"""
import warnings

import numpy as np
import xgboost as xgb

warnings.filterwarnings("ignore")


def metrics():
    lo = np.array([1.0, 2.0, 0.5, 0.0, 3.0, 0.7, 4.0, 1.5], dtype=np.float32)
    hi = np.array([1.0, np.inf, 0.5, 2.0, 6.0, np.inf, 4.0, 2.5], dtype=np.float32)
    m = np.array([0.1, 0.3, -0.4, 0.2, 1.5, -2.0, 1.2, 0.6], dtype=np.float32)
    w = np.array([1.0, 2.0, 0.5, 1.0, 1.5, 1.0, 3.0, 0.25], dtype=np.float32)
    X = np.zeros((8, 1), dtype=np.float32)
    for weighted in (0, 1):
        d = xgb.DMatrix(X, base_margin=m, weight=w if weighted else None)
        d.set_float_info("label_lower_bound", lo)
        d.set_float_info("label_upper_bound", hi)
        for dist in ("normal", "logistic", "extreme"):
            b = xgb.train({"objective": "survival:aft", "aft_loss_distribution": dist,
                           "eval_metric": ["aft-nloglik", "interval-regression-accuracy"],
                           "eta": 0.0, "max_depth": 1}, d, 1)
            print("weighted" if weighted else "unweighted", dist, b.eval(d))
    y = np.array([2.0, -1.5, 3.0, 2.0, -2.0, 0.5, 4.0, -4.0, 1.0], dtype=np.float32)
    mc = np.array([0.2, -0.1, 0.5, 0.0, 0.3, -0.7, 1.1, 0.4, -0.2], dtype=np.float32)
    d = xgb.DMatrix(np.zeros((9, 1), dtype=np.float32), label=y, base_margin=mc)
    b = xgb.train({"objective": "survival:cox", "eval_metric": "cox-nloglik", "eta": 0.0, "max_depth": 1}, d, 1)
    print("cox", b.eval(d))


def far_gradient(dist, lo, hi, m):
    leaves = []
    for lam in (0.0, 1.0):
        d = xgb.DMatrix(np.zeros((2, 1), np.float32), base_margin=np.array([m, m], np.float32))
        d.set_float_info("label_lower_bound", np.array([lo, lo], np.float32))
        d.set_float_info("label_upper_bound", np.array([hi, hi], np.float32))
        b = xgb.train({"objective": "survival:aft", "aft_loss_distribution": dist, "eta": 1.0, "lambda": lam,
                       "min_child_weight": 0, "max_depth": 1}, d, 1)
        leaves.append(float(b.predict(d, output_margin=True)[0]) - m)
    l0, l1 = leaves
    if l0 == l1:
        return "leaf did not move: g = 0"
    H = l1 / (l0 - l1)
    return "g %.6g h %.6g" % (-l0 * H / 2, H / 2)


if __name__ == "__main__":
    metrics()
    for dist in ("normal", "logistic", "extreme"):
        for lo, hi in ((2.0, 2.0), (2.0, np.inf), (0.0, 3.0), (1.0, 4.0)):
            for m in (-60.0, 60.0):
                print(dist, lo, hi, m, far_gradient(dist, lo, hi, m))
