"""Softmax written in Python as a custom objective and metric, against multi:softprob."""
import numpy as np

import xgboost as xgb

np.random.seed(1994)
kRows = 100
kCols = 10
kClasses = 4
kRounds = 10

X = np.random.randn(kRows, kCols)
y = np.random.randint(0, 4, size=kRows)
m = xgb.DMatrix(X, y)


def softmax(x):
    e = np.exp(x)
    return e / np.sum(e)


def softprob_obj(predt, data):
    labels = data.get_label()
    if data.get_weight().size == 0:
        weights = np.ones(kRows, dtype=float)
    else:
        weights = data.get_weight()
    assert predt.shape == (kRows, kClasses)
    grad = np.zeros((kRows, kClasses), dtype=float)
    hess = np.zeros((kRows, kClasses), dtype=float)
    eps = 1e-6
    for r in range(predt.shape[0]):
        target = labels[r]
        p = softmax(predt[r, :])
        for c in range(predt.shape[1]):
            assert target >= 0 or target <= kClasses
            g = p[c] - 1.0 if c == target else p[c]
            g = g * weights[r]
            h = max(2.0 * p[c] * (1.0 - p[c]) * weights[r], eps)
            grad[r, c] = g
            hess[r, c] = h
    return grad, hess


def predict(booster, X):
    predt = booster.predict(X, output_margin=True)
    out = np.zeros(kRows)
    for r in range(predt.shape[0]):
        out[r] = np.argmax(predt[r])
    return out


def merror(predt, dtrain):
    y = dtrain.get_label()
    if predt.size == y.size:
        predt = predt.reshape(y.size, 1)
    else:
        predt = predt.reshape(y.size, kClasses)
    out = np.zeros(kRows)
    for r in range(predt.shape[0]):
        out[r] = np.argmax(predt[r])
    errors = np.zeros(kRows)
    errors[y != out] = 1.0
    return "PyMError", float(np.sum(errors) / kRows)


custom_results = {}
booster = xgb.train({"num_class": kClasses, "disable_default_eval_metric": True}, m,
                    num_boost_round=kRounds, obj=softprob_obj, custom_metric=merror,
                    evals_result=custom_results, evals=[(m, "train")])
predt = predict(booster, m)

native_results = {}
native = xgb.train({"num_class": kClasses, "objective": "multi:softprob", "eval_metric": "merror"},
                   m, num_boost_round=kRounds, evals_result=native_results, evals=[(m, "train")])
native_predt = np.argmax(native.predict(m), axis=1)
# the custom objective's trees start from 0.5, the native one's from 0: the argmax agrees
assert np.all(predt == native_predt) or np.mean(predt == native_predt) > 0.9
assert custom_results["train"]["PyMError"][-1] < custom_results["train"]["PyMError"][0]

RESULT = {"custom": custom_results["train"]["PyMError"], "native": native_results["train"]["merror"],
          "custom_last": custom_results["train"]["PyMError"][-1]}
