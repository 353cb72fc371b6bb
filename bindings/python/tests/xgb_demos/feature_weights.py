"""Feature weights: columns sampled in proportion to their weight."""
import numpy as np

import xgboost as xgb

rng = np.random.RandomState(1994)
kRows = 1000
kCols = 10
X = rng.randn(kRows, kCols)
y = rng.randn(kRows)
fw = np.ones(shape=(kCols,))
for i in range(kCols):
    fw[i] *= float(i)
dtrain = xgb.DMatrix(X, y)
dtrain.set_info(feature_weights=fw)
bst = xgb.train({"tree_method": "hist", "colsample_bynode": 0.2}, dtrain, num_boost_round=10,
                evals=[(dtrain, "d")])
feature_map = bst.get_fscore()
# feature 0 has weight 0: never sampled, never split on
assert "f0" not in feature_map
scores = np.array([feature_map.get(f"f{i}", 0) for i in range(kCols)])
assert scores[-1] > scores[1]
RESULT = {}
