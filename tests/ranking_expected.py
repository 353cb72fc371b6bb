#!/usr/bin/env python3
# Expected metric values for tests/test_ranking.c, computed by XGBoost 3.2.0's
# own evaluation (Booster.eval on a DMatrix whose base_margin holds the scores,
# 0 boosting rounds).  Run: python3 tests/ranking_expected.py
import numpy as np, xgboost as xgb
sizes = [4, 6, 5, 2, 3]
score = np.array([0.5, -0.2, 0.5, 1.0,   0.1, 0.9, -0.3, 0.4, 0.4, 0.0,   2.0, 1.0, 0.0, -1.0, 0.5,
                  0.3, 0.2,   0.7, -0.1, 0.2])
grade = np.array([1, 0, 2, 0,   3, 0, 1, 2, 0, 1,   0, 0, 0, 0, 0,   1, 0,   2, 0, 1], dtype=np.float32)
binary = (grade >= 1).astype(np.float32)
gw = np.array([1.0, 2.0, 0.5, 1.5, 3.0], dtype=np.float32)
qid = np.repeat(np.arange(len(sizes)), sizes)
X = np.zeros((len(score), 1))
print("xgboost", xgb.__version__)
def ev(metric, y, w=None, q=True, extra={}):
    d = xgb.DMatrix(X, label=y, qid=qid if q else None, base_margin=score)
    if w is not None: d.set_weight(w)
    b = xgb.train({"objective": "rank:pairwise" if q else "binary:logistic", "eval_metric": metric, **extra}, d, 0)
    return float(b.eval(d).split(":")[1])
rows = []
for name, y in (("grade", grade), ("binary", binary)):
    for m in ["ndcg", "ndcg@3", "ndcg@3-", "ndcg-", "ndcg@1"] + (["map", "map@2", "map@2-", "pre@2", "pre@5", "aucpr"] if name == "binary" else []) + ["auc"]:
        for wname, w in (("none", None), ("weights", gw)):
            rows.append((name, m, wname, "exp", ev(m, y, w)))
    rows.append((name, "ndcg@3", "none", "linear", ev("ndcg@3", y, None, True, {"ndcg_exp_gain": False})))
rows.append(("binary", "aucpr", "none", "nogroups", ev("aucpr", binary, None, False)))
rows.append(("binary", "auc", "none", "nogroups", ev("auc", binary, None, False)))
for r in rows: print('    {"%s", "%s", %d, %d, %.17g},' % (r[1], r[0], r[2] == "weights", {"exp":0,"linear":1,"nogroups":2}[r[3]], r[4]))
