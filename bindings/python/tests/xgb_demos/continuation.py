"""Training continuation: from a saved model, a pickled one, and with early stopping."""
import os
import pickle
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import xgboost as xgb


def training_continuation(tmpdir: str, use_pickle: bool) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    clf = xgb.XGBClassifier(n_estimators=8, max_depth=2, learning_rate=0.3)
    clf.fit(X, y, eval_set=[(X, y)], verbose=False)
    print("Total boosted rounds:", clf.get_booster().num_boosted_rounds())
    if use_pickle:
        path = os.path.join(tmpdir, "model-first-8.pkl")
        with open(path, "wb") as fd:
            pickle.dump(clf, fd)
        with open(path, "rb") as fd:
            loaded = pickle.load(fd)
    else:
        path = os.path.join(tmpdir, "model-first-8.json")
        clf.save_model(path)
        loaded = xgb.XGBClassifier()
        loaded.load_model(path)
    clf = xgb.XGBClassifier(n_estimators=8, max_depth=2, learning_rate=0.3)
    clf.fit(X, y, eval_set=[(X, y)], verbose=False, xgb_model=loaded)
    print("Total boosted rounds:", clf.get_booster().num_boosted_rounds())
    assert clf.get_booster().num_boosted_rounds() == 16
    return clf.predict_proba(X)[:, 1]


def training_continuation_early_stop(tmpdir: str, use_pickle: bool):
    early_stopping_rounds = 5
    early_stop = xgb.callback.EarlyStopping(rounds=early_stopping_rounds, save_best=True)
    n_estimators = 200
    X, y = load_breast_cancer(return_X_y=True)
    clf = xgb.XGBClassifier(n_estimators=n_estimators, eval_metric="logloss", callbacks=[early_stop])
    X_train, X_valid, y_train, y_valid = train_test_split(X, y, random_state=0)
    clf.fit(X_train, y_train, eval_set=[(X_valid, y_valid)])
    n_estimators -= clf.get_booster().num_boosted_rounds()
    booster = clf.get_booster()
    res = clf.evals_result()
    assert len(res["validation_0"]["logloss"]) == booster.num_boosted_rounds() + early_stopping_rounds
    path = os.path.join(tmpdir, "model-first.json")
    booster.save_model(path)
    loaded = xgb.Booster(model_file=path)
    assert loaded.num_boosted_rounds() == booster.num_boosted_rounds()
    return booster.num_boosted_rounds()


def booster_continuation():
    X, y = load_breast_cancer(return_X_y=True)
    d = xgb.DMatrix(X, y)
    params = {"max_depth": 2, "objective": "binary:logistic"}
    first = xgb.train(params, d, 4)
    more = xgb.train(params, d, 4, xgb_model=first)
    whole = xgb.train(params, d, 8)
    assert more.num_boosted_rounds() == 8
    np.testing.assert_allclose(more.predict(d), whole.predict(d), rtol=1e-6)
    return more.predict(d)


with tempfile.TemporaryDirectory() as tmpdir:
    p_json = training_continuation(tmpdir, False)
    p_pkl = training_continuation(tmpdir, True)
    np.testing.assert_allclose(p_json, p_pkl, rtol=1e-6)
    rounds = training_continuation_early_stop(tmpdir, False)
p_booster = booster_continuation()
RESULT = {"p": p_json, "p_booster": p_booster}
