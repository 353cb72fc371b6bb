"""evals_result() of an estimator fitted with two evaluation sets."""
import numpy as np
from sklearn.datasets import make_hastie_10_2

import xgboost as xgb

X, y = make_hastie_10_2(n_samples=2000, random_state=42)
labels, y = np.unique(y, return_inverse=True)
X_train, X_test = X[:1600], X[1600:]
y_train, y_test = y[:1600], y[1600:]

param_dist = {"objective": "binary:logistic", "n_estimators": 2}
clf = xgb.XGBModel(**param_dist, eval_metric="logloss")
clf.fit(X_train, y_train, eval_set=[(X_train, y_train), (X_test, y_test)], verbose=True)
evals_result = clf.evals_result()

print("Access logloss metric directly from validation_0:")
print(evals_result["validation_0"]["logloss"])
print("Access complete dict:")
print(evals_result)
assert set(evals_result) == {"validation_0", "validation_1"}
assert len(evals_result["validation_1"]["logloss"]) == 2
RESULT = {"v0": evals_result["validation_0"]["logloss"], "v1": evals_result["validation_1"]["logloss"]}
