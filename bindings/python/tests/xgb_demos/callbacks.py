"""Training callbacks: a custom one, early stopping, checkpoints, a learning-rate schedule."""
import os
import pickle
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import xgboost as xgb


class Recorder(xgb.callback.TrainingCallback):
    """Keeps the last value of each metric after every round."""

    def __init__(self, rounds):
        super().__init__()
        self.rounds = rounds
        self.seen = []

    def after_iteration(self, model, epoch, evals_log):
        if not evals_log:
            return False
        self.seen.append({d: {m: v[-1] for m, v in ms.items()} for d, ms in evals_log.items()})
        return False


def custom_callback():
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_valid, y_train, y_valid = train_test_split(X, y, random_state=0)
    D_train = xgb.DMatrix(X_train, y_train)
    D_valid = xgb.DMatrix(X_valid, y_valid)
    num_boost_round = 20
    rec = Recorder(num_boost_round)
    xgb.train({"objective": "binary:logistic", "eval_metric": ["error", "rmse"], "tree_method": "hist"},
              D_train, evals=[(D_train, "Train"), (D_valid, "Valid")], num_boost_round=num_boost_round,
              callbacks=[rec])
    assert len(rec.seen) == num_boost_round
    return [s["Valid"]["rmse"] for s in rec.seen]


def check_point_callback():
    rounds = 10
    X, y = load_breast_cancer(return_X_y=True)
    m = xgb.DMatrix(X, y)

    def check(as_pickle):
        # a checkpoint every `interval` rounds, named by the round, loadable
        names = sorted(f for f in os.listdir(tmpdir) if f.endswith(".pkl") == as_pickle)
        assert [os.path.splitext(f)[0] for f in names] == ["model_2", "model_4", "model_6", "model_8"], names
        path = os.path.join(tmpdir, names[1])
        if as_pickle:
            with open(path, "rb") as fd:
                loaded = pickle.load(fd)
        else:
            loaded = xgb.Booster(model_file=path)
        assert loaded.num_boosted_rounds() == 5

    with tempfile.TemporaryDirectory() as tmpdir:
        check_point = xgb.callback.TrainingCheckPoint(directory=tmpdir, interval=2, name="model")
        xgb.train({"objective": "binary:logistic"}, m, num_boost_round=rounds, evals=[(m, "Train")],
                  callbacks=[check_point])
        check(False)
        for f in os.listdir(tmpdir):
            os.remove(os.path.join(tmpdir, f))
        check_point = xgb.callback.TrainingCheckPoint(directory=tmpdir, interval=2, as_pickle=True, name="model")
        xgb.train({"objective": "binary:logistic"}, m, num_boost_round=rounds, evals=[(m, "Train")],
                  callbacks=[check_point])
        check(True)


def early_stopping_and_schedule():
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_valid, y_train, y_valid = train_test_split(X, y, random_state=0)
    dtrain = xgb.DMatrix(X_train, y_train)
    dvalid = xgb.DMatrix(X_valid, y_valid)
    es = xgb.callback.EarlyStopping(rounds=4, metric_name="logloss", data_name="valid", save_best=True)
    lr = xgb.callback.LearningRateScheduler(lambda epoch: 0.5 if epoch < 10 else 0.2)
    hist = {}
    bst = xgb.train({"objective": "binary:logistic", "eval_metric": "logloss"}, dtrain, 200,
                    evals=[(dtrain, "train"), (dvalid, "valid")], callbacks=[es, lr], evals_result=hist,
                    verbose_eval=False)
    assert bst.num_boosted_rounds() == bst.best_iteration + 1
    assert len(hist["valid"]["logloss"]) == bst.num_boosted_rounds() + 4
    return hist["valid"]["logloss"]


RESULT = {"valid_rmse": custom_callback(), "es_logloss": early_stopping_and_schedule()}
check_point_callback()
