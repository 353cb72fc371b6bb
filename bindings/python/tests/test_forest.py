"""Issue 33's XGBoost features against XGBoost 3.2: random forests
(num_parallel_tree, GBTRFClassifier/GBTRFRegressor: the same trees without
sampling, comparable accuracy with it, and the sampling's promise, the same
seed the same model) and multiclass auc/aucpr."""
import json

import numpy as np
import pytest

import gbt

_P = dict(num_parallel_tree=3, max_depth=3, eta=0.7, tree_method="hist", max_bin=32)


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    return X, X[:, 0] + np.sin(X[:, 1]) + 0.1 * rng.normal(size=n)


@pytest.mark.parametrize("objective", ["reg:squarederror", "multi:softprob"])
def test_forest_rounds_are_xgboosts(objective):
    """3 rounds of 3 trees without sampling: XGBoost's raw scores, whole and
    over rounds [1, 3) and [2, 3); 3 rounds counted, 9 trees per class."""
    xgb = pytest.importorskip("xgboost")
    X, y = _data()
    extra = {}
    if objective.startswith("multi"):
        y = np.digitize(y, [-0.5, 0.8])
        extra["num_class"] = 3
    p = dict(_P, objective=objective, **extra)
    bx = xgb.train(p, xgb.DMatrix(X, label=y), 3)
    bg = gbt.train(p, gbt.DMatrix(X, label=y), 3)
    assert bg.num_boosted_rounds() == 3
    assert len(bg.get_dump()) == 9 * (3 if extra else 1)
    for ir in [(0, 0), (1, 3), (2, 3)]:
        want = bx.predict(xgb.DMatrix(X), output_margin=True, iteration_range=ir)
        got = bg.predict(gbt.DMatrix(X), output_margin=True, iteration_range=ir)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # slicing counts rounds of forests too
    np.testing.assert_allclose(bg[1:3].predict(gbt.DMatrix(X), output_margin=True),
                               bx[1:3].predict(xgb.DMatrix(X), output_margin=True), rtol=1e-5, atol=1e-5)


def test_forest_estimators_match_xgboosts_accuracy():
    """XGBoost's forest defaults (subsample and colsample_bynode 0.8), 20
    trees: gbt's held-out accuracy and R2 within 0.03 of XGBoost's."""
    xgb = pytest.importorskip("xgboost")
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=1200, n_features=10, n_informative=6, n_classes=3,
                               random_state=1)
    Xt, Xv, yt, yv = X[:900], X[900:], y[:900], y[900:]
    acc = [(m(n_estimators=20, max_depth=5, random_state=3).fit(Xt, yt).predict(Xv) == yv).mean()
           for m in (xgb.XGBRFClassifier, gbt.XGBRFClassifier)]
    assert abs(acc[0] - acc[1]) < 0.03, acc
    r = np.random.default_rng(2)
    Xr = r.normal(size=(1200, 8))
    yr = Xr[:, 0] * 2 + Xr[:, 1] ** 2 + np.sin(3 * Xr[:, 2]) + 0.3 * r.normal(size=1200)
    r2 = []
    for m in (xgb.XGBRFRegressor, gbt.XGBRFRegressor):
        pred = m(n_estimators=20, max_depth=5, random_state=3).fit(Xr[:900], yr[:900]).predict(Xr[900:])
        r2.append(1 - ((pred - yr[900:]) ** 2).sum() / ((yr[900:] - yr[900:].mean()) ** 2).sum())
    assert abs(r2[0] - r2[1]) < 0.03, r2


def test_sampled_forest_same_seed_same_model():
    """Row and column draws per tree: the same seed gives the same bytes,
    another seed another model; the trees of one round differ."""
    X, y = _data(300)
    p = dict(_P, subsample=0.7, colsample_bynode=0.8, seed=5)
    raw = [gbt.train(dict(p, seed=s), gbt.DMatrix(X, label=y), 2).save_raw("gbt") for s in (5, 5, 6)]
    assert raw[0] == raw[1] and raw[0] != raw[2]
    dump = gbt.train(p, gbt.DMatrix(X, label=y), 1).get_dump()
    assert len(dump) == 3 and len(set(dump)) == 3


def test_forest_estimators_parameters():
    """get_params lists every parameter with the forest defaults; clone keeps
    them; one round of n_estimators trees; no early stopping."""
    from sklearn.base import clone
    p = gbt.XGBRFRegressor(max_depth=4, objective="reg:tweedie").get_params()
    assert (p["max_depth"], p["objective"], p["colsample_bynode"], p["subsample"], p["learning_rate"],
            p["reg_lambda"]) == (4, "reg:tweedie", 0.8, 0.8, 1.0, 1e-5)
    assert clone(gbt.XGBRFClassifier(n_estimators=7)).get_params()["n_estimators"] == 7
    X, y = _data(200)
    m = gbt.XGBRFRegressor(n_estimators=4, max_depth=2).fit(X, y)
    b = m.get_booster()
    assert b.num_boosted_rounds() == 1 and len(b.get_dump()) == 4
    assert json.loads(b.save_config())["learner"]["gradient_booster"]["gbtree_model_param"][
        "num_parallel_tree"] == "4"
    with pytest.raises(NotImplementedError):
        gbt.XGBRFRegressor(early_stopping_rounds=2).fit(X, y, eval_set=[(X, y)])


def test_multiclass_auc_and_aucpr_are_xgboosts():
    """Multiclass auc and aucpr (one class against the rest) in the round
    log: XGBoost 3.2's values, with and without weights."""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=300), [-0.5, 0.6])
    p = dict(objective="multi:softprob", num_class=3, max_depth=3, eval_metric=["auc", "aucpr"])
    for w in (None, rng.uniform(0.5, 2, 300)):
        rx, rg = {}, {}
        xgb.train(p, xgb.DMatrix(X, label=y, weight=w), 2, evals=[(xgb.DMatrix(X, label=y, weight=w), "t")],
                  evals_result=rx, verbose_eval=False)
        gbt.train(p, gbt.DMatrix(X, label=y, weight=w), 2, evals=[(gbt.DMatrix(X, label=y, weight=w), "t")],
                  evals_result=rg, verbose_eval=False)
        for name in ("auc", "aucpr"):
            np.testing.assert_allclose(rg["t"][name], rx["t"][name], rtol=1e-9)
