"""gbt from Python, start to finish: the notebook-style tour.

Trains on scikit-learn's breast cancer data with the low-level API
(gbt.Dataset, gbt.train) and with the scikit-learn estimator, stops early on
a validation set, saves and reloads the model, and plots the learning curve
when matplotlib is installed.  Run it as it is: python3 examples/quickstart.py
"""
import pickle

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import gbt

print("gbt", gbt.__version__, "cuda compiled:", gbt.build_info()["cuda"]["compiled"])

# --- data
X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
dtrain = gbt.Dataset(X_train, label=y_train)
dtest = gbt.Dataset(X_test, label=y_test)

# --- the training API: per-round metrics come back as numbers
history = {}
booster = gbt.train(
    {"objective": "binary:logistic", "max_depth": 4, "eta": 0.1, "eval_metric": ["logloss", "auc"]},
    dtrain, num_boost_round=500, evals=[(dtrain, "train"), (dtest, "test")],
    early_stopping_rounds=20, evals_result=history, verbose_eval=50)
print(f"best round {booster.best_iteration}, test auc {booster.best_score:.4f}, "
      f"{booster.num_boosted_rounds()} rounds kept")
# as in XGBoost, every round stays: predict with those up to the best one
proba = booster.predict(X_test, iteration_range=(0, booster.best_iteration + 1))
print(f"test accuracy (train API): {np.mean((proba > 0.5) == y_test):.4f}")

# --- save, load, pickle: the same predictions
booster.save_model("breast_cancer.json")
again = gbt.Booster(model_file="breast_cancer.json")
best = (0, again.best_iteration + 1)  # saved with the model
assert np.array_equal(again.predict(X_test, iteration_range=best), proba)
assert np.array_equal(pickle.loads(pickle.dumps(booster)).predict(X_test, iteration_range=best), proba)

# --- the scikit-learn estimator
clf = gbt.GBTClassifier(n_estimators=200, max_depth=4, learning_rate=0.1)
clf.fit(X_train, y_train, eval_set=[(X_test, y_test)])
print(f"test accuracy (GBTClassifier): {clf.score(X_test, y_test):.4f}")

# --- the learning curve
try:
    import matplotlib
    matplotlib.use("Agg")
    ax = gbt.plot_metric(history, metric="logloss")
    ax.figure.savefig("learning_curve.png")
    print("learning curve: learning_curve.png")
except ImportError:
    print("(matplotlib is not installed: no plot)")
