"""Squared log error as a custom objective with RMSLE as a custom metric, against the built-ins."""
from typing import Dict, List, Tuple

import numpy as np

import xgboost as xgb

kRows = 2000
kCols = 5
kSeed = 1994
np.random.seed(kSeed)
kBoostRound = 20


def generate_data() -> Tuple[xgb.DMatrix, xgb.DMatrix]:
    x = np.random.randn(kRows, kCols)
    y = np.exp(0.5 * x[:, 0] - 0.3 * x[:, 1] + 0.1 * np.random.randn(kRows)) + 1
    train_portion = int(kRows * 0.8)
    dtrain = xgb.DMatrix(x[:train_portion], label=y[:train_portion])
    dtest = xgb.DMatrix(x[train_portion:], label=y[train_portion:])
    return dtrain, dtest


def native_rmse(dtrain, dtest) -> Dict[str, Dict[str, List[float]]]:
    results: Dict[str, Dict[str, List[float]]] = {}
    xgb.train({"tree_method": "hist", "seed": kSeed, "objective": "reg:squarederror",
               "eval_metric": "rmsle"}, dtrain=dtrain, num_boost_round=kBoostRound,
              evals=[(dtrain, "dtrain"), (dtest, "dtest")], evals_result=results)
    return results


def native_rmsle(dtrain, dtest) -> Dict[str, Dict[str, List[float]]]:
    results: Dict[str, Dict[str, List[float]]] = {}
    xgb.train({"tree_method": "hist", "seed": kSeed, "objective": "reg:squaredlogerror",
               "eval_metric": "rmsle"}, dtrain=dtrain, num_boost_round=kBoostRound,
              evals=[(dtrain, "dtrain"), (dtest, "dtest")], evals_result=results)
    return results


def py_rmsle(dtrain, dtest) -> Dict:
    def gradient(predt: np.ndarray, dtrain) -> np.ndarray:
        y = dtrain.get_label()
        return (np.log1p(predt) - np.log1p(y)) / (predt + 1)

    def hessian(predt: np.ndarray, dtrain) -> np.ndarray:
        y = dtrain.get_label()
        return (-np.log1p(predt) + np.log1p(y) + 1) / np.power(predt + 1, 2)

    def squared_log(predt: np.ndarray, dtrain) -> Tuple[np.ndarray, np.ndarray]:
        predt[predt < -1] = -1 + 1e-6
        return gradient(predt, dtrain), hessian(predt, dtrain)

    def rmsle(predt: np.ndarray, dtrain) -> Tuple[str, float]:
        y = dtrain.get_label()
        predt[predt < -1] = -1 + 1e-6
        elements = np.power(np.log1p(y) - np.log1p(predt), 2)
        return "PyRMSLE", float(np.sqrt(np.sum(elements) / len(y)))

    results: Dict[str, Dict[str, List[float]]] = {}
    xgb.train({"tree_method": "hist", "seed": kSeed, "disable_default_eval_metric": 1},
              dtrain=dtrain, num_boost_round=kBoostRound, obj=squared_log, custom_metric=rmsle,
              evals=[(dtrain, "dtrain"), (dtest, "dtest")], evals_result=results)
    return results


dtrain, dtest = generate_data()
rmse_evals = native_rmse(dtrain, dtest)
rmsle_evals = native_rmsle(dtrain, dtest)
py_rmsle_evals = py_rmsle(dtrain, dtest)
assert py_rmsle_evals["dtest"]["PyRMSLE"][-1] < rmse_evals["dtest"]["rmsle"][0]
RESULT = {"rmse": rmse_evals["dtest"]["rmsle"], "rmsle": rmsle_evals["dtest"]["rmsle"],
          "py_rmsle": py_rmsle_evals["dtest"]["PyRMSLE"], "rmsle_last": rmsle_evals["dtest"]["rmsle"][-1]}
