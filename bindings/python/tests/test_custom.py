"""Custom objectives and metrics from Python with XGBoost's conventions:
train(obj=, custom_metric=), the estimators' objective=callable and
eval_metric=callable; expected values from XGBoost or computed by hand."""
import os
import subprocess
import sys

import numpy as np
import pytest

import gbt

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "examples", "custom_rmsle.py")


def _regression(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    y = (X[:, 0] - 2 * X[:, 1] + X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=n)).astype(np.float32)
    w = (0.5 + rng.random(n)).astype(np.float32)
    return X, y, w


def squared_error(preds, data):
    # reg:squarederror's gradients, by hand: g = (p - y) w, h = w
    y = data.get_label().astype(np.float64)
    w = data.get_weight()
    w = np.ones_like(y) if w is None or w.size == 0 else w.astype(np.float64)
    return (preds - y) * w, w


@pytest.mark.parametrize("weighted", [False, True])
def test_squared_error_as_custom_objective_is_reg_squarederror(weighted):
    X, y, w = _regression()
    d = gbt.Dataset(X, label=y, weight=w if weighted else None)
    params = {"max_depth": 4, "subsample": 0.8, "seed": 2, "base_score": 0.5}
    a = gbt.train({**params, "objective": "reg:squarederror"}, d, 8, verbose_eval=False)
    b = gbt.train(params, d, 8, obj=squared_error, verbose_eval=False)
    assert bytes(a.save_raw("gbt")) == bytes(b.save_raw("gbt"))


def test_custom_objective_starts_at_half_as_xgboost():
    # XGBoost starts a custom objective's model at 0.5 (no estimate from the labels)
    xgb = pytest.importorskip("xgboost")
    X, y, _ = _regression()
    seen = {}

    def record(lib):
        def obj(preds, data):
            seen.setdefault(lib, np.asarray(preds, dtype=np.float64).copy())
            return squared_error(np.asarray(preds, dtype=np.float64), data)
        return obj

    gbt.train({}, gbt.DMatrix(X, label=y), 1, obj=record("gbt"), verbose_eval=False)
    xgb.train({"tree_method": "hist"}, xgb.DMatrix(X, label=y), 1, obj=record("xgb"))
    assert np.all(seen["gbt"] == 0.5) and np.array_equal(seen["gbt"], seen["xgb"])


def test_custom_metric_values_by_hand():
    X, y, _ = _regression()
    Xv, yv, _ = _regression(200, 1)
    dv = gbt.Dataset(Xv, label=yv)

    def mae(preds, data):
        return "my-mae", float(np.mean(np.abs(preds - data.get_label())))

    hist = {}
    b = gbt.train({"max_depth": 3, "eval_metric": "rmse"}, gbt.Dataset(X, label=y), 6,
                  evals=[(dv, "v")], custom_metric=mae, evals_result=hist, verbose_eval=False)
    assert list(hist["v"]) == ["rmse", "my-mae"]
    for i in range(6):
        p = b.predict(Xv, iteration_range=(0, i + 1))
        assert hist["v"]["my-mae"][i] == pytest.approx(np.mean(np.abs(p - yv)), rel=1e-6)
        assert hist["v"]["rmse"][i] == pytest.approx(np.sqrt(np.mean((p.astype(np.float64) - yv) ** 2)),
                                                     rel=1e-5)


def test_custom_metric_list_of_pairs_reports_each():
    # XGBoost's custom metric may return several (name, value) pairs: every one
    # is in the history and the round's line, in order, after eval_metric's
    X, y, _ = _regression()
    Xv, yv, _ = _regression(200, 1)
    dt, dv = gbt.Dataset(X, label=y), gbt.Dataset(Xv, label=yv)

    def pair_metrics(preds, data):
        err = preds.astype(np.float64) - data.get_label()
        return [("my-mae", float(np.mean(np.abs(err)))), ("my-maxerr", float(np.max(np.abs(err))))]

    hist, lines = {}, []
    b = gbt.train({"max_depth": 3, "eval_metric": "rmse"}, dt, 5, evals=[(dt, "t"), (dv, "v")],
                  custom_metric=pair_metrics, evals_result=hist, verbose_eval=False,
                  callbacks=[gbt.callback.EvaluationMonitor(logger=lines.append)])
    assert b.num_boosted_rounds() == 5
    for name, Xs, ys in (("t", X, y), ("v", Xv, yv)):
        assert list(hist[name]) == ["rmse", "my-mae", "my-maxerr"]
        for i in range(5):
            err = np.abs(b.predict(Xs, iteration_range=(0, i + 1)).astype(np.float64) - ys)
            assert hist[name]["my-mae"][i] == pytest.approx(np.mean(err), rel=1e-6)
            assert hist[name]["my-maxerr"][i] == pytest.approx(np.max(err), rel=1e-6)
    assert len(lines) == 5
    lines = [line.rstrip("\n") for line in lines]
    fields = [f.split(":")[0] for f in lines[0].split("\t")]
    assert fields == ["[0]", "t-rmse", "t-my-mae", "t-my-maxerr", "v-rmse", "v-my-mae", "v-my-maxerr"]
    assert lines[2].split("\t")[6] == f"v-my-maxerr:{hist['v']['my-maxerr'][2]:.6f}"


def test_custom_metric_pairs_early_stopping_and_cv():
    X, y, _ = _regression()
    Xv, yv, _ = _regression(200, 1)
    dt, dv = gbt.Dataset(X, label=y), gbt.Dataset(Xv, label=yv)
    calls = []

    def opposite(preds, data):
        calls.append(1)  # one call per round on the one set
        return [("worse", float(len(calls))), ("better", -float(len(calls)))]

    # the last pair decides by default (it improves every round) ...
    b = gbt.train({"max_depth": 2}, dt, 8, evals=[(dv, "v")], custom_metric=opposite,
                  early_stopping_rounds=3, verbose_eval=False)
    assert b.num_boosted_rounds() == 8
    # ... and metric_name picks another: "worse" is best at round 0
    calls.clear()
    b = gbt.train({"max_depth": 2}, dt, 8, evals=[(dv, "v")], custom_metric=opposite, verbose_eval=False,
                  callbacks=[gbt.callback.EarlyStopping(rounds=3, metric_name="worse")])
    assert b.best_iteration == 0 and b.num_boosted_rounds() == 4 and len(calls) == 4

    # cv averages each pair over the folds: the fold's row count, by hand
    def sizes(preds, data):
        return [("rows", float(data.num_row())), ("half", data.num_row() / 2.0)]

    res = gbt.cv({"max_depth": 2}, dt, 2, nfold=3, custom_metric=sizes, as_pandas=False)
    tests = np.array([134.0, 133.0, 133.0])  # 400 rows in 3 folds
    assert res["test-rows-mean"] == pytest.approx([tests.mean()] * 2)
    assert res["test-rows-std"] == pytest.approx([tests.std()] * 2)
    assert res["test-half-mean"] == pytest.approx([tests.mean() / 2] * 2)
    assert res["train-rows-mean"] == pytest.approx([(400 - tests).mean()] * 2)


def test_custom_metric_gets_probabilities_or_margins():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.float32)
    d = gbt.Dataset(X, label=y)
    got = {}

    def grab(key):
        def metric(preds, data):
            got[key] = preds.copy()
            return "m", 0.0
        return metric

    b = gbt.train({"objective": "binary:logistic"}, d, 3, evals=[(d, "t")], custom_metric=grab("builtin"),
                  verbose_eval=False)
    np.testing.assert_array_equal(got["builtin"], b.predict(d))  # XGBoost: predictions with a built-in objective

    def logistic(preds, data):
        p = 1 / (1 + np.exp(-preds))
        return p - data.get_label(), p * (1 - p)

    b = gbt.train({"objective": "binary:logistic"}, d, 3, evals=[(d, "t")], obj=logistic,
                  custom_metric=grab("custom"), verbose_eval=False)
    np.testing.assert_array_equal(got["custom"], b.predict(d, output_margin=True))  # raw with obj=


def test_custom_metric_decides_early_stopping():
    X, y, _ = _regression()
    Xv, yv, _ = _regression(200, 1)
    calls = []

    def worsening(preds, data):
        calls.append(1)
        return "worse", float(len(calls))  # grows every round: round 0 is the best

    b = gbt.train({"max_depth": 3}, gbt.Dataset(X, label=y), 50, evals=[(gbt.Dataset(Xv, label=yv), "v")],
                  custom_metric=worsening, early_stopping_rounds=3, verbose_eval=False)
    assert b.best_iteration == 0 and b.num_boosted_rounds() == 4 and len(calls) == 4
    b = gbt.train({"max_depth": 3}, gbt.Dataset(X, label=y), 10, evals=[(gbt.Dataset(Xv, label=yv), "v")],
                  custom_metric=worsening, early_stopping_rounds=3, maximize=True, verbose_eval=False)
    assert b.num_boosted_rounds() == 10


def test_callback_errors_come_back():
    X, y, _ = _regression()
    d = gbt.Dataset(X, label=y)

    def bad(preds, data):
        raise KeyError("from the objective")

    with pytest.raises(KeyError, match="from the objective"):
        gbt.train({}, d, 2, obj=bad)

    def short(preds, data):
        return np.zeros(3), np.ones(3)

    with pytest.raises(ValueError, match="grad has 3 values"):
        gbt.train({}, d, 2, obj=short)
    b = gbt.train({}, d, 1)  # the booster trains on afterwards without the callback
    assert b.num_boosted_rounds() == 1


def test_sklearn_callable_objective_and_metric():
    from sklearn.metrics import mean_absolute_error
    from gbt.sklearn import GBTRegressor
    X, y, w = _regression()
    Xv, yv, _ = _regression(200, 1)

    def sq(y_true, y_pred, sample_weight=None):
        sw = np.ones_like(y_true) if sample_weight is None else sample_weight
        return (y_pred - y_true) * sw, sw

    a = GBTRegressor(n_estimators=5, max_depth=3, base_score=0.5).fit(X, y, sample_weight=w)
    b = GBTRegressor(n_estimators=5, max_depth=3, objective=sq, eval_metric=mean_absolute_error).fit(
        X, y, sample_weight=w, eval_set=[(Xv, yv)])
    assert bytes(a.get_booster().save_raw("gbt")) == bytes(b.get_booster().save_raw("gbt"))
    hist = b.evals_result_["validation_0"]
    assert list(hist) == ["rmse", "mean_absolute_error"]
    assert hist["mean_absolute_error"][-1] == pytest.approx(mean_absolute_error(yv, b.predict(Xv)), rel=1e-6)


def test_sklearn_classifier_callable_metric_gets_probabilities():
    from sklearn.metrics import log_loss
    from gbt.sklearn import GBTClassifier
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    c = GBTClassifier(n_estimators=4, eval_metric=log_loss).fit(X, y, eval_set=[(X, y)])
    hist = c.evals_result_["validation_0"]
    # the built-in logloss and sklearn's log_loss of the same probabilities agree
    assert hist["log_loss"][-1] == pytest.approx(hist["logloss"][-1], rel=1e-5)


def _run_demo(source, tmp_path, name):
    path = tmp_path / name
    path.write_text(source)
    # the gbt this test imported (an installed package, or the source tree
    # with GBT_LIBRARY_PATH), not necessarily the source tree beside it
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(gbt.__file__)),
                                                       os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, str(path), "--rounds", "12"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return dict(line.split(": ", 1) for line in r.stdout.strip().splitlines())


def test_custom_rmsle_demo_runs_as_xgboost_does(tmp_path):
    # examples/custom_rmsle.py, a script written for XGBoost's API, imports
    # gbt as xgb; run as is and with XGBoost, the RMSLE of each model agrees
    xgb = pytest.importorskip("xgboost")  # noqa: F841
    with open(DEMO) as f:
        source = f.read()
    assert "\nimport gbt as xgb\n" in source
    ours = _run_demo(source, tmp_path, "demo_gbt.py")
    theirs = _run_demo(source.replace("\nimport gbt as xgb\n", "\nimport xgboost as xgb\n"), tmp_path,
                       "demo_xgb.py")
    assert list(ours) == ["squared error", "squared log", "custom"] == list(theirs)
    for key in ours:
        m1, v1 = ours[key].split()
        m2, v2 = theirs[key].split()
        assert m1 == m2
        assert float(v1) == pytest.approx(float(v2), rel=0.02), key


def test_custom_metric_named_as_a_builtin_shows_once():
    # a custom value named like eval_metric's (rmse): XGBoost 3.2's line shows
    # the name once, with the custom value (its monitor prints the last value
    # kept under a name), and its history list holds both values each round
    X, y, _ = _regression(200)
    dt = gbt.Dataset(X, label=y)

    def shifted(preds, data):
        return "rmse", float(np.sqrt(np.mean((preds.astype(np.float64) - data.get_label()) ** 2))) + 1.0

    hist, lines = {}, []
    b = gbt.train({"max_depth": 2, "eval_metric": "rmse"}, dt, 2, evals=[(dt, "t")], custom_metric=shifted,
                  evals_result=hist, verbose_eval=False, callbacks=[gbt.callback.EvaluationMonitor(logger=lines.append)])
    fields = lines[1].rstrip("\n").split("\t")
    assert [f.split(":")[0] for f in fields] == ["[1]", "t-rmse"]
    custom = np.sqrt(np.mean((b.predict(X).astype(np.float64) - y) ** 2)) + 1.0
    assert float(fields[1].split(":")[1]) == pytest.approx(custom, abs=2e-6)
    assert len(hist["t"]["rmse"]) == 4 and hist["t"]["rmse"][3] == pytest.approx(custom, rel=1e-6)
    xgb = pytest.importorskip("xgboost")
    xhist, xlines = {}, []
    xgb.train({"max_depth": 2, "eval_metric": "rmse"}, xgb.DMatrix(X, label=y), 2, evals=[(xgb.DMatrix(X, label=y), "t")],
              custom_metric=shifted, evals_result=xhist, verbose_eval=False,
              callbacks=[xgb.callback.EvaluationMonitor(logger=xlines.append)])
    assert [f.split(":")[0] for f in xlines[1].rstrip("\n").split("\t")] == ["[1]", "t-rmse"]
    assert len(xhist["t"]["rmse"]) == 4
