"""The scikit-learn wrappers: classification, regression, grid search, early stopping, pickling."""
import pickle

import numpy as np
from sklearn.datasets import load_diabetes, load_digits, load_iris
from sklearn.metrics import confusion_matrix, mean_squared_error
from sklearn.model_selection import GridSearchCV, KFold, train_test_split

import xgboost as xgb

rng = np.random.RandomState(31337)

print("Zeros and Ones from the Digits dataset: binary classification")
digits = load_digits(n_class=2)
y = digits["target"]
X = digits["data"]
kf = KFold(n_splits=2, shuffle=True, random_state=rng)
digit_cm = []
for train_index, test_index in kf.split(X):
    xgb_model = xgb.XGBClassifier(n_jobs=1, n_estimators=20).fit(X[train_index], y[train_index])
    predictions = xgb_model.predict(X[test_index])
    actuals = y[test_index]
    digit_cm.append(confusion_matrix(actuals, predictions))
    print(digit_cm[-1])

print("Iris: multiclass classification")
iris = load_iris()
y = iris["target"]
X = iris["data"]
kf = KFold(n_splits=2, shuffle=True, random_state=rng)
iris_acc = []
for train_index, test_index in kf.split(X):
    xgb_model = xgb.XGBClassifier(n_jobs=1, n_estimators=20).fit(X[train_index], y[train_index])
    predictions = xgb_model.predict(X[test_index])
    iris_acc.append(float(np.mean(predictions == y[test_index])))
    print(confusion_matrix(y[test_index], predictions))

print("Diabetes: regression")
X, y = load_diabetes(return_X_y=True)
kf = KFold(n_splits=2, shuffle=True, random_state=rng)
mses = []
for train_index, test_index in kf.split(X):
    xgb_model = xgb.XGBRegressor(n_jobs=1, n_estimators=20, tree_method="hist").fit(X[train_index], y[train_index])
    predictions = xgb_model.predict(X[test_index])
    mses.append(mean_squared_error(y[test_index], predictions))
    print(mses[-1])

print("Parameter optimization")
xgb_model = xgb.XGBRegressor(n_jobs=1)
clf = GridSearchCV(xgb_model, {"max_depth": [2, 4], "n_estimators": [10, 30]}, verbose=1, n_jobs=1, cv=3)
clf.fit(X, y)
print(clf.best_score_)
print(clf.best_params_)

# The sklearn API models are picklable
print("Pickling sklearn API models")
pickle.dump(clf, open("best_diabetes.pkl", "wb"))
clf2 = pickle.load(open("best_diabetes.pkl", "rb"))
print(np.allclose(clf.predict(X), clf2.predict(X)))
assert np.allclose(clf.predict(X), clf2.predict(X))

# Early-stopping
X = digits["data"]
y = digits["target"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
clf = xgb.XGBClassifier(n_jobs=1, early_stopping_rounds=10, eval_metric="auc")
clf.fit(X_train, y_train, eval_set=[(X_test, y_test)])
assert clf.best_iteration is not None

RESULT = {"digit_cm": np.array(digit_cm), "iris_acc": iris_acc, "mse": mses,
          "grid_best": sorted(clf2.best_params_.items())}
