#!/usr/bin/env python3
"""gbt against XGBoost with the same constraints (issue 24).

Trains both libraries (max_depth=6, eta=0.1, 100 rounds, max_bin=256,
hist) with monotone_constraints, interaction_constraints and
feature_weights (with colsample_bynode) on a generated set and on the
bundled diabetes and breast_cancer sets, and prints the test metrics as a
Markdown table (docs/accuracy.md).  It also checks, for every gbt model,
that its XGBoost JSON export loads in XGBoost and predicts the same, and
that the predictions are monotone over a grid for 100 rows.

    GBT_LIBRARY_PATH=.libs python3 bench/constraints.py
"""
import os
import sys
import tempfile

import numpy as np
import xgboost as xgb

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bindings", "python"))
import gbt  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
COMMON = {"max_depth": 6, "eta": 0.1, "max_bin": 256, "nthread": 2, "verbosity": 0}


def load(name):
    tr = np.loadtxt(os.path.join(ROOT, "datasets", name + ".train.csv"), delimiter=",")
    te = np.loadtxt(os.path.join(ROOT, "datasets", name + ".test.csv"), delimiter=",")
    return tr[:, 1:], tr[:, 0], te[:, 1:], te[:, 0]


def generated(n=20000, seed=7):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(2 * n, 8))
    X[rng.uniform(size=X.shape) < 0.03] = np.nan
    Z = np.nan_to_num(X)
    y = (Z[:, 0] + 0.5 * np.sin(3 * Z[:, 0]) - Z[:, 1] + 0.7 * Z[:, 2] * Z[:, 3] + 0.5 * Z[:, 4]
         + 0.3 * Z[:, 5] * Z[:, 6] + 0.3 * rng.normal(size=2 * n))
    return X[:n], y[:n], X[n:], y[n:]


def metric(obj, y, p):
    if obj == "reg:squarederror":
        return "rmse", float(np.sqrt(np.mean((y - p) ** 2)))
    from sklearn.metrics import roc_auc_score
    return "auc", float(roc_auc_score(y, p))


def monotone_ok(predict, X, mono):
    grid_rows = X[np.arange(100) * 7 % len(X)]
    for f, c in enumerate(mono):
        if c == 0:
            continue
        lo, hi = np.nanmin(X[:, f]), np.nanmax(X[:, f])
        grid = np.linspace(lo - 1, hi + 1, 200)
        for row in grid_rows:
            Z = np.repeat(row[None, :], grid.size, axis=0)
            Z[:, f] = grid
            if np.any(c * np.diff(predict(Z).astype(np.float64)) < 0):
                return False
    return True


def run(name, data, obj, mono, inter, fweights):
    Xtr, ytr, Xte, yte = data
    params = dict(COMMON, objective=obj)
    if mono is not None:
        params["monotone_constraints"] = "(" + ",".join(map(str, mono)) + ")"
    if inter is not None:
        params["interaction_constraints"] = str(inter).replace(" ", "")
    if fweights is not None:
        params["colsample_bynode"] = 0.5
    dx = xgb.DMatrix(Xtr, ytr)
    dg = gbt.Dataset(Xtr, ytr)
    if fweights is not None:
        dx.set_info(feature_weights=np.asarray(fweights, dtype=np.float32))
        dg.set_feature_weights(fweights)
    bx = xgb.train(dict(params, tree_method="hist"), dx, 100)
    bg = gbt.train(params, dg, 100)
    px = bx.predict(xgb.DMatrix(Xte))
    pg = bg.predict(gbt.Dataset(Xte))
    mname, mx = metric(obj, yte, px)
    _, mg = metric(obj, yte, pg)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.json")
        bg.save_model(path, format="xgboost")
        back = xgb.Booster(model_file=path)
        pb = back.predict(xgb.DMatrix(Xte))
        export_same = bool(np.allclose(pb, pg, rtol=1e-5, atol=1e-5))
        attrs = back.attributes()
    mono_ok = "-"
    if mono is not None:
        mg_ok = monotone_ok(lambda Z: bg.predict(gbt.Dataset(Z), output_margin=True), Xte, mono)
        mx_ok = monotone_ok(lambda Z: bx.predict(xgb.DMatrix(Z), output_margin=True), Xte, mono)
        mono_ok = f"{'yes' if mg_ok else 'NO'} / {'yes' if mx_ok else 'NO'}"
    cons = []
    if mono is not None:
        cons.append("monotone " + params["monotone_constraints"])
    if inter is not None:
        cons.append("interaction " + params["interaction_constraints"])
    if fweights is not None:
        cons.append("feature_weights " + ",".join(f"{w:g}" for w in fweights) + ", colsample_bynode 0.5")
    ok_attr = mono is None or attrs.get("monotone_constraints") == params["monotone_constraints"]
    print(f"| {name} | {'; '.join(cons) or 'none'} | {mname} | {mx:.5f} | {mg:.5f} | {mg - mx:+.5f} | "
          f"{mono_ok} | {'yes' if export_same and ok_attr else 'NO'} |", flush=True)
    return export_same and ok_attr and mono_ok in ("-", "yes / yes")


def main():
    print("| data | constraints | metric | XGBoost 3.2 | gbt | gbt - XGBoost | monotone on the grid (gbt / XGBoost) | export loads in XGBoost, same predictions |")
    print("|---|---|---|---|---|---|---|---|")
    gen = generated()
    dia = load("diabetes")
    bc = load("breast_cancer")
    good = True
    good &= run("generated (20k rows)", gen, "reg:squarederror", None, None, None)
    good &= run("generated (20k rows)", gen, "reg:squarederror", (1, -1, 0, 0, 1, 0, 0, 0), None, None)
    good &= run("generated (20k rows)", gen, "reg:squarederror", None, [[0, 1], [2, 3], [4, 5, 6, 7]], None)
    good &= run("generated (20k rows)", gen, "reg:squarederror", (1, -1, 0, 0, 1, 0, 0, 0),
                [[0, 1], [2, 3], [4, 5, 6, 7]], [1, 1, 2, 2, 1, 0.5, 0.5, 0])
    # diabetes: age, sex, bmi, bp, s1..s6; bmi, bp and s5 raise the disease score
    good &= run("diabetes", dia, "reg:squarederror", None, None, None)
    good &= run("diabetes", dia, "reg:squarederror", (0, 0, 1, 1, 0, 0, 0, 0, 1, 0), None, None)
    good &= run("diabetes", dia, "reg:squarederror", (0, 0, 1, 1, 0, 0, 0, 0, 1, 0),
                [[0, 1], [2, 3, 8], [4, 5, 6, 7, 9]], None)
    # breast_cancer (label 1: benign): larger mean and worst radius lower the odds
    mono = [0] * 30
    mono[0] = mono[20] = -1
    good &= run("breast_cancer", bc, "binary:logistic", None, None, None)
    good &= run("breast_cancer", bc, "binary:logistic", tuple(mono), None, None)
    good &= run("breast_cancer", bc, "binary:logistic", None, None, [1.0] * 10 + [2.0] * 10 + [0.5] * 10)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
