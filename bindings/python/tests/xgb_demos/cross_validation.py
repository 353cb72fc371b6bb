"""xgb.cv: k-fold cross validation, with a metric, a preprocessing function, a custom objective."""
import numpy as np

import xgboost as xgb

dtrain = xgb.DMatrix("demo.train.libsvm?format=libsvm")
param = {"max_depth": 2, "eta": 1, "objective": "binary:logistic"}
num_round = 2

print("running cross validation")
res = xgb.cv(param, dtrain, num_round, nfold=5, metrics={"error"}, seed=0,
             callbacks=[xgb.callback.EvaluationMonitor(show_stdv=True)])
print(res)
assert list(res.columns) == ["train-error-mean", "train-error-std", "test-error-mean", "test-error-std"]
assert len(res) == num_round

print("running cross validation, disable standard deviation display")
res = xgb.cv(param, dtrain, num_boost_round=10, nfold=5, metrics={"error"}, seed=0,
             callbacks=[xgb.callback.EvaluationMonitor(show_stdv=False),
                        xgb.callback.EarlyStopping(3)])
print(res)
assert len(res) <= 10


def fpreproc(dtrain, dtest, param):
    label = dtrain.get_label()
    ratio = float(np.sum(label == 0)) / np.sum(label == 1)
    param["scale_pos_weight"] = ratio
    return (dtrain, dtest, param)


print("running cross validation, with preprocessing function")
res_pre = xgb.cv(param, dtrain, num_round, nfold=5, metrics={"auc"}, seed=0, fpreproc=fpreproc)
print(res_pre)


def logregobj(preds, dtrain):
    labels = dtrain.get_label()
    preds = 1.0 / (1.0 + np.exp(-preds))
    grad = preds - labels
    hess = preds * (1.0 - preds)
    return grad, hess


def evalerror(preds, dtrain):
    labels = dtrain.get_label()
    return "error", float(sum(labels != (preds > 0.0))) / len(labels)


param = {"max_depth": 2, "eta": 1}
res_obj = xgb.cv(param, dtrain, num_round, nfold=5, seed=0, obj=logregobj, custom_metric=evalerror)
print(res_obj)
res_dict = xgb.cv(param, dtrain, num_round, nfold=5, seed=0, obj=logregobj, custom_metric=evalerror,
                  as_pandas=False)
assert isinstance(res_dict, dict) and "test-error-mean" in res_dict
RESULT = {"auc": res_pre["test-auc-mean"].to_numpy(), "custom_error": res_obj["test-error-mean"].to_numpy()}
