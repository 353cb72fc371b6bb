"""The leaf each row reaches in each tree."""
import xgboost as xgb

dtrain = xgb.DMatrix("demo.train.libsvm?format=libsvm")
dtest = xgb.DMatrix("demo.test.libsvm?format=libsvm")
param = {"max_depth": 2, "eta": 1, "objective": "binary:logistic"}
watchlist = [(dtest, "eval"), (dtrain, "train")]
num_round = 3
bst = xgb.train(param, dtrain, num_round, watchlist)

print("start testing predict the leaf indices")
leafindex = bst.predict(dtest, iteration_range=(0, 2), pred_leaf=True, strict_shape=True)
print(leafindex.shape)
print(leafindex)
assert leafindex.shape == (dtest.num_row(), 2, 1, 1)
leafindex = bst.predict(dtest, pred_leaf=True)
print(leafindex.shape)
assert leafindex.shape == (dtest.num_row(), 3)
RESULT = {"leaves": leafindex}
