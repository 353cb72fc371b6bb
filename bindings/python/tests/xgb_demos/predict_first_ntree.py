"""Predict with the first trees only: iteration_range, on a Booster and an estimator."""
import numpy as np
from sklearn.datasets import load_svmlight_file

import xgboost as xgb


def native_interface():
    dtrain = xgb.DMatrix("demo.train.libsvm?format=libsvm")
    dtest = xgb.DMatrix("demo.test.libsvm?format=libsvm")
    param = {"max_depth": 2, "eta": 1, "objective": "binary:logistic"}
    watchlist = [(dtest, "eval"), (dtrain, "train")]
    num_round = 3
    bst = xgb.train(param, dtrain, num_round, watchlist)
    label = dtest.get_label()
    ypred1 = bst.predict(dtest, iteration_range=(0, 1))
    ypred2 = bst.predict(dtest)
    print("error of ypred1=%f" % (np.sum((ypred1 > 0.5) != label) / float(len(label))))
    print("error of ypred2=%f" % (np.sum((ypred2 > 0.5) != label) / float(len(label))))
    assert not np.allclose(ypred1, ypred2)
    return ypred1, ypred2


def sklearn_interface():
    X_train, y_train = load_svmlight_file("demo.train.libsvm", zero_based=True)
    X_test, y_test = load_svmlight_file("demo.test.libsvm", zero_based=True, n_features=X_train.shape[1])
    clf = xgb.XGBClassifier(n_estimators=3, max_depth=2, eta=1)
    clf.fit(X_train, y_train, eval_set=[(X_test, y_test)])
    assert clf.n_classes_ == 2
    y_score = clf.predict_proba(X_test, iteration_range=(0, 1))
    print("error of y1=%f" % (np.sum((y_score[:, 1] > 0.5) != y_test) / float(len(y_test))))
    y_score = clf.predict_proba(X_test, iteration_range=(0, 2))
    print("error of y2=%f" % (np.sum((y_score[:, 1] > 0.5) != y_test) / float(len(y_test))))
    return y_score[:, 1]


p1, p2 = native_interface()
s2 = sklearn_interface()
RESULT = {"ypred1": p1, "ypred2": p2, "sk_y2": s2}
