"""Issue 33's multi-target regression and multi-label classification
(XGBoost's multi_strategy=one_output_per_tree) against XGBoost 3.2: the same
predictions, intercepts, metrics and model files both ways."""
import json

import numpy as np
import pytest

import gbt

_P = dict(max_depth=3, max_bin=16, tree_method="hist")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    Y = np.stack([X[:, 0] + X[:, 1] ** 2, 2 * X[:, 2] - 1, np.sin(X[:, 3]) + 0.5], axis=1)
    return X, Y + 0.1 * rng.normal(size=Y.shape)


@pytest.mark.parametrize("objective", ["reg:squarederror", "reg:absoluteerror", "binary:logistic"])
def test_multi_target_is_xgboosts(objective):
    """3 targets, 10 rounds: XGBoost's predictions, per-target intercepts
    (save_config) and train metric; 30 trees, tree t of target t % 3."""
    xgb = pytest.importorskip("xgboost")
    X, Y = _data()
    if objective == "binary:logistic":
        Y = (Y > 0.5).astype(np.float64)
    p = dict(_P, objective=objective)
    hx, hg = {}, {}
    bx = xgb.train(p, xgb.DMatrix(X, label=Y), 10, evals=[(xgb.DMatrix(X, label=Y), "t")], evals_result=hx,
                   verbose_eval=False)
    bg = gbt.train(p, gbt.DMatrix(X, label=Y), 10, evals=[(gbt.DMatrix(X, label=Y), "t")], evals_result=hg,
                   verbose_eval=False)
    got = bg.predict(gbt.DMatrix(X))
    assert got.shape == (300, 3)
    np.testing.assert_allclose(got, bx.predict(xgb.DMatrix(X)), rtol=1e-5, atol=2e-6)
    metric = next(iter(hx["t"]))
    np.testing.assert_allclose(hg["t"][metric], hx["t"][metric], rtol=1e-6)
    mx = json.loads(bx.save_config())["learner"]["learner_model_param"]
    mg = json.loads(bg.save_config())["learner"]["learner_model_param"]
    assert mg["num_target"] == mx["num_target"] == "3"
    np.testing.assert_allclose(json.loads(mg["base_score"]), json.loads(mx["base_score"]), rtol=1e-6)
    assert len(bg.get_dump()) == 30


def test_multi_target_models_both_ways(tmp_path):
    """An XGBoost multi-target model loads in gbt and predicts the same; gbt's
    exported one loads in XGBoost and predicts the same; gbt's own format
    keeps num_target."""
    xgb = pytest.importorskip("xgboost")
    X, Y = _data(120)
    p = dict(_P, objective="reg:squarederror")
    bx = xgb.train(p, xgb.DMatrix(X, label=Y), 4)
    bx.save_model(tmp_path / "x.json")
    np.testing.assert_allclose(gbt.Booster(model_file=tmp_path / "x.json").predict(gbt.DMatrix(X)),
                               bx.predict(xgb.DMatrix(X)), rtol=1e-6, atol=1e-6)
    bg = gbt.train(p, gbt.DMatrix(X, label=Y), 4)
    bg.save_model(tmp_path / "g.json", format="xgboost")
    want = bg.predict(gbt.DMatrix(X))
    np.testing.assert_allclose(xgb.Booster(model_file=tmp_path / "g.json").predict(xgb.DMatrix(X)), want,
                               rtol=1e-6, atol=1e-6)
    bg.save_model(tmp_path / "g.model", format="gbt")  # gbt's JSON whatever the name
    assert json.loads((tmp_path / "g.model").read_text())["num_target"] == 3
    np.testing.assert_array_equal(gbt.Booster(model_file=tmp_path / "g.model").predict(gbt.DMatrix(X)), want)


def test_multi_label_classifier_and_regressor_are_xgboosts():
    """XGBClassifier with y of shape (n, 3) of 0/1: binary:logistic per column,
    predict_proba (n, 3) and predict (n, 3) as XGBoost's; XGBRegressor with
    2-D y; SHAP values (n, 3, F + 1) summing to the raw scores."""
    xgb = pytest.importorskip("xgboost")
    X, Y = _data(200)
    B = (Y > 0.5).astype(int)
    kw = dict(_P, n_estimators=5)
    cx, cg = xgb.XGBClassifier(**kw).fit(X, B), gbt.GBTClassifier(**kw).fit(X, B)
    np.testing.assert_allclose(cg.predict_proba(X), cx.predict_proba(X), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(cg.predict(X), cx.predict(X))
    rx, rg = xgb.XGBRegressor(**kw).fit(X, Y), gbt.GBTRegressor(**kw).fit(X, Y)
    np.testing.assert_allclose(rg.predict(X), rx.predict(X), rtol=1e-5, atol=1e-5)
    b = rg.get_booster()
    contribs = b.predict(gbt.DMatrix(X), pred_contribs=True)
    assert contribs.shape == (200, 3, 5)
    np.testing.assert_allclose(contribs.sum(axis=2), b.predict(gbt.DMatrix(X), output_margin=True),
                               rtol=1e-5, atol=1e-5)


def test_multi_target_refusals():
    """vector leaves, a multi-class objective on 2-D labels, 2-D labels
    continuing a one-target model, and a validation set of one label per row
    for a model of 3 targets are refused by name."""
    X, Y = _data(50)
    with pytest.raises(gbt.GBTError, match="multi_output_tree"):
        gbt.train({"multi_strategy": "multi_output_tree"}, gbt.DMatrix(X, label=Y), 1)
    with pytest.raises(gbt.GBTError, match="3 targets per row"):
        gbt.train({"objective": "multi:softprob", "num_class": 3}, gbt.DMatrix(X, label=Y), 1)
    one = gbt.train({}, gbt.DMatrix(X, label=Y[:, 0]), 1)
    with pytest.raises(gbt.GBTError, match="1 label"):
        gbt.train({}, gbt.DMatrix(X, label=Y), 1, xgb_model=one)
    with pytest.raises(gbt.GBTError, match="1 label.*3 target"):
        gbt.train({}, gbt.DMatrix(X, label=Y), 1, evals=[(gbt.DMatrix(X, label=Y[:, 0]), "v")])


def test_given_intercept_vectors_are_xgboosts(tmp_path):
    """base_score given as one value per target or class (XGBoost 3's vector
    intercept), or one for all: the intercept save_config reports, the
    predictions and the exported model (boost_from_average 0) as XGBoost's;
    a degenerate logistic estimate (all labels 0) reported as 0, as XGBoost."""
    xgb = pytest.importorskip("xgboost")
    X, Y = _data(60)
    c = np.digitize(Y[:, 0], [0.0, 1.5])  # 3 classes
    cases = [(dict(objective="reg:squarederror", base_score=[0.5, 1.0, 2.0]), Y),
             (dict(objective="binary:logistic", base_score=[0.2, 0.5, 0.9]), (Y > 0.5).astype(np.float64)),
             (dict(objective="reg:squarederror", base_score=0.5), Y),
             (dict(objective="multi:softprob", num_class=3, base_score=[0.1, -0.2, 0.3]), c),
             (dict(objective="binary:logistic"), np.zeros(60))]
    for p, y in cases:
        p = dict(_P, **p)
        bx, bg = xgb.train(p, xgb.DMatrix(X, label=y), 2), gbt.train(p, gbt.DMatrix(X, label=y), 2)
        ix = json.loads(json.loads(bx.save_config())["learner"]["learner_model_param"]["base_score"])
        ig = json.loads(json.loads(bg.save_config())["learner"]["learner_model_param"]["base_score"])
        assert ig == ix, (p, ig, ix)
        want = bx.predict(xgb.DMatrix(X), output_margin=True)
        np.testing.assert_allclose(bg.predict(gbt.DMatrix(X), output_margin=True), want, rtol=1e-5, atol=1e-5)
        bx.save_model(tmp_path / "x.json")  # XGBoost's model loads in gbt and predicts the same
        np.testing.assert_allclose(gbt.Booster(model_file=tmp_path / "x.json").predict(gbt.DMatrix(X), output_margin=True),
                                   want, rtol=1e-6, atol=1e-6)
        bg.save_model(tmp_path / "g.json", format="xgboost")
        back = xgb.Booster(model_file=tmp_path / "g.json")
        assert json.loads(back.save_config())["learner"]["learner_model_param"]["boost_from_average"] == (
            "0" if "base_score" in p else "1")
        np.testing.assert_allclose(back.predict(xgb.DMatrix(X), output_margin=True),
                                   bg.predict(gbt.DMatrix(X), output_margin=True), rtol=1e-6, atol=1e-6)
    with pytest.raises(gbt.ParamError, match=r"2 values; the model has 3 output\(s\)"):
        gbt.train(dict(_P, base_score=[0.5, 1.0]), gbt.DMatrix(X, label=Y), 1)
