"""Issue 33's booster=dart: the weights of XGBoost's formulas on rounds whose
drops are known (rate_drop=1: every earlier tree, skip_drop=1: none), gbtree's
trees when nothing is dropped, the same model from the same seed, and XGBoost
3.2's dart models both ways (loaded here, exported there: the same
predictions), and accuracy close to XGBoost's dart."""
import json

import numpy as np
import pytest

import gbt

_P = dict(objective="reg:squarederror", max_depth=3, max_bin=32, tree_method="hist")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, X[:, 0] + np.sin(2 * X[:, 1]) + 0.1 * rng.normal(size=n)


def _model(b, tmp_path):
    path = tmp_path / "m.json"
    b.save_model(path)
    return json.loads(path.read_text())


def _weights(b, tmp_path):
    return np.array([t["weight"] for t in _model(b, tmp_path)["trees"]], dtype=np.float32)


@pytest.mark.parametrize("normalize", ["tree", "forest"])
def test_every_tree_dropped_weights_by_hand(tmp_path, normalize):
    """rate_drop=1 drops every earlier tree, so each round fits the starting
    score alone (three equal trees) and the weights follow by hand, in float32
    as XGBoost computes them: eta 0.5, k = 1 then 2 trees dropped."""
    X, y = _data()
    p = dict(_P, booster="dart", rate_drop=1.0, eta=0.5, normalize_type=normalize)
    b = gbt.train(p, gbt.DMatrix(X, label=y), 3)
    f32, lr = np.float32, np.float32(0.5)
    if normalize == "tree":
        # round 1: k=1, dropped *= 1/(1+lr), new 1/(1+lr); round 2: k=2, dropped *= 2/(2+lr), new 1/(2+lr)
        a, c = f32(1 / (f32(1) + lr)), f32(2 / (f32(2) + lr))
        want = [f32(a * c), f32(a * c), f32(1 / (f32(2) + lr))]
    else:
        # forest: dropped and new trees 1/(1+lr) each round
        a = f32(1 / (1 + lr))
        want = [f32(a * a), f32(a * a), a]
    np.testing.assert_array_equal(_weights(b, tmp_path), np.array(want, dtype=np.float32))
    trees = _model(b, tmp_path)["trees"]
    assert trees[0]["value"] == trees[1]["value"] == trees[2]["value"]
    # the prediction: start + (sum of weights) * the one tree's value
    one = gbt.train(dict(_P, eta=0.5), gbt.DMatrix(X, label=y), 1)
    base = one.predict(gbt.DMatrix(X), output_margin=True, iteration_range=(0, 1))
    start = _model(one, tmp_path)["base_margin"][0]
    np.testing.assert_allclose(b.predict(gbt.DMatrix(X), output_margin=True),
                               start + (base - start) * float(sum(want)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("extra", [dict(rate_drop=0.0), dict(rate_drop=0.5, skip_drop=1.0)])
def test_no_drops_is_gbtree(tmp_path, extra):
    """No tree dropped (rate_drop=0, or every round skipped): weights 1, as
    XGBoost gives (checked there), and gbtree's trees and predictions exactly."""
    X, y = _data()
    d = gbt.DMatrix(X, label=y)
    b = gbt.train(dict(_P, booster="dart", **extra), d, 5)
    g = gbt.train(_P, d, 5)
    np.testing.assert_array_equal(_weights(b, tmp_path), np.ones(5, np.float32))
    np.testing.assert_array_equal(b.predict(d), g.predict(d))
    xgb = pytest.importorskip("xgboost")
    bx = xgb.train(dict(_P, booster="dart", **extra), xgb.DMatrix(X, label=y), 5)
    assert json.loads(bx.save_raw("json"))["learner"]["gradient_booster"]["weight_drop"] == [1.0] * 5


def test_same_seed_same_model():
    """The same seed draws the same trees; another seed others.  save_config
    has XGBoost's dart layout, and load_config gives the parameters back."""
    X, y = _data()
    d = gbt.DMatrix(X, label=y)
    p = dict(_P, booster="dart", rate_drop=0.4, one_drop=1, sample_type="weighted", seed=3)
    b = gbt.train(p, d, 6)
    assert bytes(b.save_raw("gbt")) == bytes(gbt.train(p, d, 6).save_raw("gbt"))
    assert bytes(gbt.train(dict(p, seed=4), d, 6).save_raw("gbt")) != bytes(b.save_raw("gbt"))
    gb = json.loads(b.save_config())["learner"]["gradient_booster"]
    assert gb["name"] == "dart" and gb["gbtree"]["name"] == "gbtree"
    assert gb["dart_train_param"] == dict(normalize_type="tree", one_drop="1", rate_drop="0.4",
                                          sample_type="weighted", skip_drop="0")
    c = gbt.Booster()
    c.load_config(b.save_config())
    assert (c.get_param("booster"), c.get_param("rate_drop"), c.get_param("one_drop")) == ("dart", "0.4", "true")


def test_xgboost_dart_models_both_ways(tmp_path):
    """XGBoost's dart model (drops and weights of its own) loaded here predicts
    as XGBoost, whole and over rounds, SHAP values summing to the margins; gbt's
    dart model exported loads in XGBoost with the same predictions."""
    xgb = pytest.importorskip("xgboost")
    X, y = _data()
    yc = (y > 0.3).astype(float)
    p = dict(_P, objective="binary:logistic", booster="dart", rate_drop=0.3, one_drop=1, eta=0.3, seed=5)
    bx = xgb.train(p, xgb.DMatrix(X, label=yc), 8)
    wx = json.loads(bx.save_raw("json"))["learner"]["gradient_booster"]["weight_drop"]
    assert len(set(wx)) > 1
    bx.save_model(tmp_path / "x.json")
    bg = gbt.Booster(model_file=str(tmp_path / "x.json"))
    for ir in [(0, 0), (2, 6)]:
        np.testing.assert_allclose(bg.predict(gbt.DMatrix(X), output_margin=True, iteration_range=ir),
                                   bx.predict(xgb.DMatrix(X), output_margin=True, iteration_range=ir),
                                   rtol=1e-5, atol=1e-5)
    contribs = bg.predict(gbt.DMatrix(X), pred_contribs=True)
    np.testing.assert_allclose(contribs.sum(axis=1), bg.predict(gbt.DMatrix(X), output_margin=True),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(contribs, bx.predict(xgb.DMatrix(X), pred_contribs=True), rtol=1e-4, atol=1e-5)
    bg2 = gbt.train(p, gbt.DMatrix(X, label=yc), 8)
    bg2.save_model(tmp_path / "g.json", format="xgboost")
    back = xgb.Booster(model_file=str(tmp_path / "g.json"))
    np.testing.assert_allclose(back.predict(xgb.DMatrix(X)), bg2.predict(gbt.DMatrix(X)), rtol=1e-5, atol=1e-6)
    # three classes, two parallel trees a round: the weights follow the trees' reordering both ways
    y3 = np.digitize(y, [-0.5, 0.7])
    p3 = dict(_P, objective="multi:softprob", num_class=3, booster="dart", rate_drop=0.4, num_parallel_tree=2,
              subsample=0.8, seed=2)
    for model, load, data in ((gbt.train(p3, gbt.DMatrix(X, label=y3), 3), xgb.Booster, xgb.DMatrix),
                              (xgb.train(p3, xgb.DMatrix(X, label=y3), 3), gbt.Booster, gbt.DMatrix)):
        if isinstance(model, gbt.Booster):
            model.save_model(tmp_path / "m3.json", format="xgboost")
        else:
            model.save_model(tmp_path / "m3.json")
        other = load(model_file=str(tmp_path / "m3.json"))
        mdata = xgb.DMatrix(X) if isinstance(model, xgb.Booster) else gbt.DMatrix(X)
        np.testing.assert_allclose(other.predict(data(X), output_margin=True, iteration_range=(1, 3)),
                                   model.predict(mdata, output_margin=True, iteration_range=(1, 3)),
                                   rtol=1e-5, atol=1e-6)


def test_dart_estimator_accuracy_near_xgboosts():
    """The estimators take booster='dart' and its parameters: held-out
    accuracy within 0.03 of XGBoost's dart (different draws, same settings)."""
    xgb = pytest.importorskip("xgboost")
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=800, n_features=8, n_informative=5, random_state=1)
    kw = dict(booster="dart", rate_drop=0.1, skip_drop=0.5, n_estimators=20, max_depth=4, random_state=2)
    acc = [(m(**kw).fit(X[:500], y[:500]).predict(X[500:]) == y[500:]).mean()
           for m in (xgb.XGBClassifier, gbt.XGBClassifier)]
    assert abs(acc[0] - acc[1]) < 0.03, acc


def test_custom_objective_and_binned_only_data():
    """A custom objective is handed the margins without the round's dropped
    trees, so squared error by hand trains the built-in objective's model;
    data kept as bins only cannot have trees taken out of its margins, which
    is refused by name (with rate_drop=0 nothing is dropped, and it trains)."""
    X, y = _data()
    d = gbt.DMatrix(X, label=y)
    p = dict(_P, booster="dart", rate_drop=0.5, base_score=0.2, seed=1)
    want = gbt.train(p, d, 5).predict(d, output_margin=True)
    got = gbt.train(p, d, 5, obj=lambda m, dt: (m - dt.get_label(), np.ones_like(m))).predict(d, output_margin=True)
    np.testing.assert_array_equal(got, want)

    class Once(gbt.DataIter):
        def __init__(self):
            self.done = False
            super().__init__()

        def next(self, input_data):
            if self.done:
                return False
            input_data(data=X, label=y)
            self.done = True
            return True

        def reset(self):
            self.done = False

    q = gbt.QuantileDMatrix(Once(), max_bin=32)
    with pytest.raises(gbt.GBTError, match="booster=dart.*keeps only their bins"):
        gbt.train(p, q, 3)
    assert gbt.train(dict(p, rate_drop=0.0), q, 3).num_boosted_rounds() == 3
