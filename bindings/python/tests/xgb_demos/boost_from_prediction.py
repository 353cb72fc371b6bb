"""Start a model from another's margins (base_margin)."""
import numpy as np

import xgboost as xgb

dtrain = xgb.DMatrix("demo.train.libsvm?format=libsvm")
dtest = xgb.DMatrix("demo.test.libsvm?format=libsvm")
watchlist = [(dtest, "eval"), (dtrain, "train")]

print("start running example to start from a initial prediction")
param = {"max_depth": 2, "eta": 1, "objective": "binary:logistic"}
bst = xgb.train(param, dtrain, 1, watchlist)
ptrain = bst.predict(dtrain, output_margin=True)
ptest = bst.predict(dtest, output_margin=True)
dtrain.set_base_margin(ptrain)
dtest.set_base_margin(ptest)

print("this is result of running from initial prediction")
bst2 = xgb.train(param, dtrain, 1, watchlist)
p = bst2.predict(dtest)
# one round more from the first model's margins is the two-round model
full = xgb.train(param, xgb.DMatrix("demo.train.libsvm?format=libsvm"), 2)
pfull = full.predict(xgb.DMatrix("demo.test.libsvm?format=libsvm"))
assert np.max(np.abs(pfull - p)) < 0.05
RESULT = {"p": p}
