#!/usr/bin/env python3
"""Categorical splits between gbt and XGBoost 3.2 (TAP on stdout).

    python3 tests/xgboost_cat.py BUILDDIR WORKDIR

Generated data: a numeric column and categorical columns of 3 (one-hot at
the default max_cat_to_onehot = 4) and 40 categories (partitions), with
missing values; the test rows add categories never seen in training.
gbt -> XGBoost: gbtrain --categorical_feature trains, `gbmodel convert
--to=xgboost` exports, xgboost.Booster loads the model and its raw scores
(DMatrix with feature_types and enable_categorical) equal gbpredict
--margin's to float precision.  XGBoost -> gbt: xgboost.train with
enable_categorical=True saves JSON and gbpredict predicts what XGBoost
predicts.  gbt -> XGBoost -> gbt: the model converted back keeps the
feature types and predicts the same.
"""
import json
import os
import subprocess
import sys

import numpy as np

# XGBoost imports scikit-learn (and with it SciPy's statistics) when it is
# installed, for its estimator classes, which this script does not use: 3 of
# the import's 4 CPU-s, paid in each of CI's runs of this test
sys.modules.setdefault("sklearn", None)
import xgboost as xgb  # noqa: E402

build, work = sys.argv[1:3]
n = 0
failed = 0


def ok(cond, name):
    global n, failed
    n += 1
    failed += not cond
    print("%s %d - %s" % ("ok" if cond else "not ok", n, name))


def tool(name, *args):
    r = subprocess.run([os.path.join(build, name)] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        print("# %s %s: %s" % (name, " ".join(args), r.stderr.strip().replace("\n", " ")))
    return r.returncode == 0


def agree(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64).reshape(np.shape(a))
    d = np.abs(a - b) / np.maximum(1.0, np.abs(a))
    return a.shape == b.shape and bool(np.all(d <= 1e-5)), float(d.max()) if d.size else 0.0


def make(rows, seed, unseen):
    rng = np.random.default_rng(seed)
    x = rng.random(rows)
    a = rng.integers(0, 3 + unseen, rows).astype(np.float64)  # 3 categories (+1 unseen)
    b = rng.integers(0, 40 + 2 * unseen, rows).astype(np.float64)  # 40 categories (+2 unseen)
    a[rng.random(rows) < 0.1] = np.nan
    b[rng.random(rows) < 0.1] = np.nan
    y = x + np.where(np.isnan(a), 0.3, np.array([0.0, 1.0, -1.0, 2.0])[np.nan_to_num(a).astype(int)]) \
        + np.sin(np.nan_to_num(b, nan=7.0) * 1.3) + 0.1 * rng.standard_normal(rows)
    return np.column_stack([x, a, b]), y


def write_csv(path, X, y):
    with open(path, "w") as f:
        f.write("y,x,a,b\n")
        for row, label in zip(X, y):
            f.write(",".join(["%.9g" % label] + ["" if np.isnan(v) else "%.9g" % v for v in row]) + "\n")


Xtr, ytr = make(2000, 1, 0)
Xte, yte = make(500, 2, 1)
tr, te = os.path.join(work, "train.csv"), os.path.join(work, "test.csv")
write_csv(tr, Xtr, ytr)
write_csv(te, Xte, yte)
types = ["q", "c", "c"]


def gbt_margins(model):
    out = os.path.join(work, "pred.txt")
    if not tool("gbpredict", "-q", "--margin", "--header", te, model, out):
        return None
    return np.loadtxt(out, ndmin=1)


def xgb_matrix(X, y=None):
    return xgb.DMatrix(X.astype(np.float32), label=y, feature_names=["x", "a", "b"], feature_types=types,
                       enable_categorical=True)


for name, params in [("depthwise", ["--max_depth=4"]),
                     ("lossguide, max_cat_threshold=8", ["--grow_policy=lossguide", "--max_leaves=10",
                                                         "--max_cat_threshold=8"])]:
    model, exported, back = (os.path.join(work, f) for f in ("m.gbt", "m.json", "back.gbt"))
    trained = tool("gbtrain", "-q", "--num_round=10", "--header", "--categorical_feature=name:a,b", *params, tr,
                   model)
    converted = trained and tool("gbmodel", "convert", "--to=xgboost", model, exported)
    ok(converted, "%s: gbtrain's categorical model converts to XGBoost JSON" % name)
    if not converted:
        continue
    with open(exported) as f:
        learner = json.load(f)["learner"]
    trees = learner["gradient_booster"]["model"]["trees"]
    ok(learner["feature_types"] == types and any(1 in t["split_type"] for t in trees),
       "%s: the export has feature_types q,c,c and categorical splits" % name)
    mine = gbt_margins(model)
    try:
        bst = xgb.Booster(model_file=exported)
        theirs = bst.predict(xgb_matrix(Xte), output_margin=True)
    except xgb.core.XGBoostError as e:
        print("# XGBoost: %s" % str(e).splitlines()[0])
        theirs = None
    same, worst = agree(mine, theirs) if mine is not None and theirs is not None else (False, 0)
    ok(same, "%s: XGBoost 3.2 predicts gbt's raw scores, unseen categories and missing values included "
       "(worst relative difference %.2g)" % (name, worst))
    again = tool("gbmodel", "convert", "--to=gbt", exported, back) and gbt_margins(back)
    same, worst = agree(mine, again) if again is not None and again is not False else (False, 0)
    with open(back) as f:
        model_back = json.load(f)
    ok(same and model_back.get("feature_types") == types,
       "%s: converted back to gbt it keeps the types and predicts the same (%.2g; the starting score "
       "went through XGBoost's float)" % (name, worst))

# XGBoost -> gbt
for name, extra in [("partition", {}), ("one-hot everywhere", {"max_cat_to_onehot": 64}),
                    ("max_cat_threshold=4", {"max_cat_threshold": 4})]:
    params = {"max_depth": 4, "eta": 0.3, "tree_method": "hist", "seed": 0}
    params.update(extra)
    bst = xgb.train(params, xgb_matrix(Xtr, ytr), num_boost_round=10)
    path = os.path.join(work, "xgb.json")
    bst.save_model(path)
    theirs = bst.predict(xgb_matrix(Xte), output_margin=True)
    mine = gbt_margins(path)
    same, worst = agree(theirs, mine) if mine is not None else (False, 0)
    ok(same, "XGBoost (%s) -> gbt: gbpredict predicts XGBoost's raw scores (worst relative difference %.2g)"
       % (name, worst))

print("1..%d" % n)
sys.exit(1 if failed else 0)
