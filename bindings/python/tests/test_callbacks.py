import io

import numpy as np
import pytest

import gbt
from gbt.callback import EarlyStopping, EvaluationMonitor, ProgressBar, TrainingCallback


@pytest.fixture(scope="module")
def data(breast_cancer, breast_cancer_test):
    X, y, _ = breast_cancer
    Xt, yt, _ = breast_cancer_test
    return gbt.Dataset(X, label=y), gbt.Dataset(Xt, label=yt), Xt, yt


class Recorder(TrainingCallback):
    def __init__(self, stop_at=None):
        self.calls, self.stop_at = [], stop_at

    def before_training(self, model):
        self.calls.append("before_training")
        return model

    def after_training(self, model):
        self.calls.append("after_training")
        return model

    def before_iteration(self, model, epoch, evals_log):
        self.calls.append(("before", epoch))
        return False

    def after_iteration(self, model, epoch, evals_log):
        self.calls.append(("after", epoch, len(evals_log["test"]["auc"])))
        return epoch == self.stop_at


def test_hooks_order_and_stop(data):
    dtrain, dtest, _, _ = data
    r = Recorder(stop_at=2)
    b = gbt.train({"objective": "binary:logistic", "eval_metric": "auc"}, dtrain, 10,
                  evals=[(dtest, "test")], callbacks=[r], verbose_eval=False)
    assert r.calls == ["before_training", ("before", 0), ("after", 0, 1), ("before", 1),
                       ("after", 1, 2), ("before", 2), ("after", 2, 3), "after_training"]
    assert b.num_boosted_rounds() == 3


def test_history_values_are_the_metrics_of_each_round(data):
    from sklearn.metrics import roc_auc_score
    dtrain, dtest, Xt, yt = data
    res = {}
    seen = []

    class Snap(TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            seen.append(roc_auc_score(yt, model.predict(Xt)))
            return False
    gbt.train({"objective": "binary:logistic", "eval_metric": ["logloss", "auc"]}, dtrain, 6,
              evals=[(dtrain, "train"), (dtest, "test")], evals_result=res, callbacks=[Snap()],
              verbose_eval=False)
    assert list(res) == ["train", "test"] and list(res["test"]) == ["logloss", "auc"]
    assert all(isinstance(v, float) for v in res["test"]["auc"])
    np.testing.assert_allclose(res["test"]["auc"], seen, atol=1e-12)


def test_exception_in_a_callback_propagates(data):
    dtrain, _, _, _ = data

    class Boom(TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            if epoch == 1:
                raise KeyError("boom")
            return False
    with pytest.raises(KeyError, match="boom"):
        gbt.train({}, dtrain, 10, callbacks=[Boom()])


def test_early_stopping_callback_options(data):
    dtrain, dtest, Xt, yt = data
    res = {}
    es = EarlyStopping(rounds=3, metric_name="logloss", data_name="test", save_best=False)
    b = gbt.train({"objective": "binary:logistic", "eval_metric": ["logloss", "auc"], "eta": 0.8},
                  dtrain, 100, evals=[(dtest, "test")], callbacks=[es], evals_result=res,
                  verbose_eval=False)
    ll = res["test"]["logloss"]
    best = int(np.argmin(ll))
    assert es.stopped and b.best_iteration == best and b.best_score == ll[best]
    assert b.num_boosted_rounds() == len(ll) == best + 4  # all rounds kept
    assert es.stopping_history == {"test": {"logloss": ll}}  # XGBoost's: the watched metric only
    es2 = EarlyStopping(rounds=3, metric_name="logloss", save_best=True)
    b2 = gbt.train({"objective": "binary:logistic", "eval_metric": ["logloss", "auc"], "eta": 0.8},
                   dtrain, 100, evals=[(dtest, "test")], callbacks=[es2], verbose_eval=False)
    assert b2.num_boosted_rounds() == best + 1 and b2.best_iteration == best
    assert es2.stopping_history == {"test": {"logloss": ll}}  # the default data set: the last
    # the cut model is the first rounds of the whole one
    np.testing.assert_array_equal(b2.predict(dtest), b.predict(dtest, iteration_range=(0, best + 1)))
    with pytest.raises(ValueError, match="needs at least one validation set"):
        gbt.train({}, dtrain, 5, early_stopping_rounds=2)
    with pytest.raises(ValueError, match="no metric 'auc'"):
        gbt.train({}, dtrain, 5, evals=[(dtest, "t")], callbacks=[EarlyStopping(2, metric_name="auc")],
                  verbose_eval=False)


def test_early_stopping_without_a_stop_keeps_every_round(data):
    dtrain, dtest, _, _ = data
    b = gbt.train({"objective": "binary:logistic", "eta": 0.01}, dtrain, 5, evals=[(dtest, "t")],
                  early_stopping_rounds=50, verbose_eval=False)
    assert b.num_boosted_rounds() == 5 and b.best_iteration == 4
    # recorded in the model as XGBoost records it, with or without a stop
    assert gbt.Booster(model_file=b.save_raw("gbt")).best_iteration == 4


def test_evaluation_monitor_and_progress_bar(data, capsys):
    dtrain, dtest, _, _ = data
    out = io.StringIO()
    gbt.train({"eval_metric": "rmse"}, dtrain, 5, evals=[(dtest, "test")],
              callbacks=[EvaluationMonitor(period=2, file=out), ProgressBar(file=io.StringIO())],
              verbose_eval=False)
    lines = out.getvalue().splitlines()
    assert [l.split("\t")[0] for l in lines] == ["[0]", "[2]", "[4]"]
    assert lines[0].startswith("[0]\ttest-rmse:")
    gbt.train({}, dtrain, 3, evals=[(dtest, "v")], verbose_eval=True)
    assert capsys.readouterr().out.count("v-rmse:") == 3


@pytest.mark.parametrize("cv", [False, True])
def test_one_crossing_and_one_hook_call_per_round(data, monkeypatch, cv):
    """gbt.train and gbt.cv call the library's driver once; it calls back once
    per round; no round is driven from Python (no gbt_booster_update or
    gbt_booster_eval_round call)."""
    from gbt import _lib
    dtrain, dtest, _, _ = data
    calls = {}
    for name in ("gbt_booster_train", "gbt_booster_train_folds", "gbt_booster_update",
                 "gbt_booster_eval_round", "gbt_booster_boost"):
        def counted(*args, _real=getattr(_lib.LIB, name), _name=name):
            calls[_name] = calls.get(_name, 0) + 1
            return _real(*args)
        monkeypatch.setattr(_lib.LIB, name, counted)
    hook_type = _lib.TRAIN_HOOK_FN

    def counting_hook(fn):
        def hook(*args):
            calls["hook"] = calls.get("hook", 0) + 1
            return fn(*args)
        return hook_type(hook)
    monkeypatch.setattr(_lib, "TRAIN_HOOK_FN", counting_hook)

    def logistic(preds, d):  # a custom objective runs inside the driver's rounds too
        p = 1 / (1 + np.exp(-preds))
        return p - d.get_label(), p * (1 - p)
    params = {"objective": "binary:logistic", "eval_metric": "auc", "max_depth": 2}
    if cv:
        gbt.cv(params, dtrain, 6, nfold=3, obj=logistic, verbose_eval=False)
        assert calls == {"gbt_booster_train_folds": 1, "hook": 6}
    else:
        gbt.train(params, dtrain, 6, evals=[(dtrain, "train"), (dtest, "test")], obj=logistic,
                  verbose_eval=False)
        assert calls == {"gbt_booster_train": 1, "hook": 6}


def test_cv_callbacks_see_the_folds():
    # XGBoost's cv hands callbacks a packed booster: model.cvfolds (each fold's dtrain,
    # dtest, bst); set_param reaches every fold (XGBoost's test_cv_explicit_fold_indices_labels)
    rng = np.random.RandomState(0)
    d = gbt.Dataset(rng.randn(30, 3), label=np.arange(30))
    seen = []

    class Look(TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            seen.append([f.dtest.get_label().tolist() for f in model.cvfolds])
            model.set_param("eta", 0.25)
            seen.append([f.bst.get_param("eta") for f in model.cvfolds])
            return False

    gbt.cv({"max_depth": 2}, d, 1, folds=[([1, 3], [5, 8]), ([7, 9], [23, 11, 2])], callbacks=[Look()],
           as_pandas=False)
    assert seen == [[[5.0, 8.0], [23.0, 11.0, 2.0]], ["0.25", "0.25"]]
