"""xgboost_explain.py MODEL DATA_CSV GBPREDICT WORKDIR - the model written in
XGBoost's JSON schema (the same trees, covers as sum_hessian, base scores),
then XGBoost's pred_leaf, pred_contribs (exact and approx_contribs),
pred_interactions and iteration_range margins against gbpredict's on the same rows.  Prints TAP
lines (no plan)."""
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

model, data, gbpredict, work = sys.argv[1:5]
m = json.load(open(model))
F, K = m["num_feature"], len(m["base_margin"])
trees = []
for i, t in enumerate(m["trees"]):
    n = t["num_nodes"]
    parents = [2147483647] * n
    leaf = [t["left"][j] < 0 for j in range(n)]
    for j in range(n):
        if not leaf[j]:
            parents[t["left"][j]] = parents[t["right"][j]] = j
    t = {k: [float(v) for v in t[k]] if k in ("value", "threshold", "gain", "cover") else t[k] for k in t}
    trees.append({
        "base_weights": t["value"], "categories": [], "categories_nodes": [], "categories_segments": [],
        "categories_sizes": [], "default_left": t["default_left"], "id": i,
        "left_children": t["left"], "right_children": t["right"], "loss_changes": t["gain"], "parents": parents,
        "split_conditions": [t["value"][j] if leaf[j] else t["threshold"][j] for j in range(n)],
        "split_indices": [0 if leaf[j] else t["feature"][j] for j in range(n)], "split_type": [0] * n,
        "sum_hessian": t["cover"],
        "tree_param": {"num_deleted": "0", "num_feature": str(F), "num_nodes": str(n), "size_leaf_vector": "1"}})
obj = {"name": m["objective"], "softmax_multiclass_param": {"num_class": str(m["num_class"])}} if K > 1 else \
    {"name": "reg:squarederror", "reg_loss_param": {"scale_pos_weight": "1"}}
x = {"learner": {"attributes": {}, "feature_names": [], "feature_types": [],
                 "gradient_booster": {"model": {"gbtree_model_param": {"num_parallel_tree": "1",
                                                                       "num_trees": str(len(trees))},
                                                "iteration_indptr": list(range(0, len(trees) + 1, K)),
                                                "tree_info": [i % K for i in range(len(trees))], "trees": trees},
                                      "name": "gbtree"},
                 "learner_model_param": {"base_score": "[" + ",".join("%.9E" % v for v in m["base_margin"]) + "]",
                                         "boost_from_average": "1", "num_class": str(m["num_class"]),
                                         "num_feature": str(F), "num_target": "1"},
                 "name": "generic", "objective": obj},
     "version": [3, 2, 0]}
path = os.path.join(work, "xgb.json")
json.dump(x, open(path, "w"))
b = xgb.Booster(model_file=path)
X = np.loadtxt(data, delimiter=",", dtype=np.float32)[:200, 1:]
X[::7, 2] = np.nan  # some missing values
rows = os.path.join(work, "rows.csv")
np.savetxt(rows, X, delimiter=",", fmt="%.9g")
d = xgb.DMatrix(X, missing=np.nan)
rounds = len(trees) // K
name = os.path.basename(model)


def gbt(*opts):
    out = os.path.join(work, "out.txt")
    subprocess.run([gbpredict, "-q", *opts, rows, model, out], check=True)
    return np.loadtxt(out, ndmin=2)


n = 0
for what, opts, kw in [("--margin", ["--margin"], dict(output_margin=True)),
                       ("--pred_leaf", ["--pred_leaf"], dict(pred_leaf=True)),
                       ("--pred_contribs", ["--pred_contribs"], dict(pred_contribs=True)),
                       ("--pred_contribs --approx_contribs", ["--pred_contribs", "--approx_contribs"],
                        dict(pred_contribs=True, approx_contribs=True)),
                       ("--pred_interactions", ["--pred_interactions"], dict(pred_interactions=True)),
                       ("--margin --rounds=1:%d" % rounds, ["--margin", "--rounds=1:%d" % rounds],
                        dict(output_margin=True, iteration_range=(1, rounds)))]:
    n += 1
    p = b.predict(d, **kw).reshape(len(X), -1)
    g = gbt(*opts)
    good = p.shape == g.shape and np.allclose(p, g, rtol=1e-5, atol=1e-5)
    if "leaf" in what:
        good = good and np.array_equal(p, g)
    print("%s %d - %s: %s on %d rows = XGBoost %s's (%s values, max abs diff %.3g)" % (
        "ok" if good else "not ok", n, name, what, len(X), xgb.__version__, g.size,
        np.abs(p - g).max() if p.shape == g.shape else float("nan")))
