"""A custom objective and metric: squared log error and RMSLE written in
NumPy, trained with XGBoost's train() API.

The script is written for XGBoost's Python API and runs unchanged on gbt
(``import gbt as xgb``): DMatrix, train(obj=..., custom_metric=...,
evals=..., evals_result=...) and disable_default_eval_metric are the same.
It trains three models on the same data and prints each one's RMSLE on the
test set after the last round:

  squared error   reg:squarederror, evaluated with the built-in rmsle
  squared log     reg:squaredlogerror, evaluated with the built-in rmsle
  custom          the squared log error's gradients from Python, evaluated
                  with an RMSLE computed in Python

Run: python custom_rmsle.py [--rounds N]
"""
import argparse
from typing import Dict, List, Tuple

import numpy as np

import gbt as xgb

SEED = 1994


def make_data(rows: int = 5000, cols: int = 6) -> Tuple[np.ndarray, np.ndarray]:
    """Features and positive, skewed targets with a few large outliers."""
    rng = np.random.RandomState(SEED)
    X = rng.normal(size=(rows, cols))
    y = np.exp(0.6 * X[:, 0] - 0.4 * X[:, 1] + 0.2 * X[:, 2] * X[:, 3] + 0.1 * rng.normal(size=rows))
    outliers = rng.choice(rows, rows // 50, replace=False)
    y[outliers] *= 20.0
    return X, y


def squared_log_grad_hess(predt: np.ndarray, dtrain: "xgb.DMatrix") -> Tuple[np.ndarray, np.ndarray]:
    """d/dp and d2/dp2 of 1/2 (log1p(p) - log1p(y))^2, with p kept above -1."""
    y = dtrain.get_label()
    p = np.maximum(predt, -1 + 1e-6)
    diff = np.log1p(p) - np.log1p(y)
    grad = diff / (p + 1)
    hess = (1 - diff) / np.power(p + 1, 2)
    return grad, np.maximum(hess, 1e-6)


def rmsle(predt: np.ndarray, dtrain: "xgb.DMatrix") -> Tuple[str, float]:
    """The root mean squared log error, named as the results report it."""
    y = dtrain.get_label()
    p = np.maximum(predt, -1 + 1e-6)
    return "PyRMSLE", float(np.sqrt(np.mean(np.square(np.log1p(p) - np.log1p(y)))))


def run(dtrain: "xgb.DMatrix", dtest: "xgb.DMatrix", rounds: int) -> Dict[str, Dict[str, List[float]]]:
    evals = [(dtrain, "dtrain"), (dtest, "dtest")]
    out = {}
    for name, params in (("squared error", {"objective": "reg:squarederror", "eval_metric": "rmsle"}),
                         ("squared log", {"objective": "reg:squaredlogerror", "eval_metric": "rmsle"})):
        results: Dict[str, Dict[str, List[float]]] = {}
        xgb.train({"tree_method": "hist", "seed": SEED, **params}, dtrain, num_boost_round=rounds,
                  evals=evals, evals_result=results, verbose_eval=False)
        out[name] = results
    results = {}
    xgb.train({"tree_method": "hist", "seed": SEED, "disable_default_eval_metric": 1}, dtrain,
              num_boost_round=rounds, obj=squared_log_grad_hess, custom_metric=rmsle, evals=evals,
              evals_result=results, verbose_eval=False)
    out["custom"] = results
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    X, y = make_data()
    cut = len(y) * 4 // 5
    dtrain = xgb.DMatrix(X[:cut], label=y[:cut])
    dtest = xgb.DMatrix(X[cut:], label=y[cut:])
    for name, results in run(dtrain, dtest, args.rounds).items():
        metric = list(results["dtest"])[-1]
        print(f"{name}: dtest-{metric} {results['dtest'][metric][-1]:.6f}")


if __name__ == "__main__":
    main()
