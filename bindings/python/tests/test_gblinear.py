"""Issue 33's booster=gblinear against XGBoost 3.2: coordinate descent gives
XGBoost's raw scores, models cross both ways, CUDA refuses it."""
import numpy as np
import pytest

import gbt


def _data(n=500, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan  # missing counts as 0, in both
    y = np.nan_to_num(X) @ np.array([1, -2, 0.5, 0, 3], np.float32) + rng.normal(size=n).astype(np.float32)
    return X, y


@pytest.mark.parametrize("params", [
    dict(updater="coord_descent", feature_selector="cyclic"),
    dict(updater="shotgun", reg_lambda=0.1, reg_alpha=0.05),
    dict(updater="coord_descent", feature_selector="thrifty", top_k=3),
    dict(updater="coord_descent", objective="multi:softprob", num_class=3),
])
def test_gblinear_is_xgboosts(params, tmp_path):
    """20 rounds: margins within 1e-5 relative of XGBoost's (squared error is
    bit-equal); gbt's export predicts the same in XGBoost, XGBoost's model
    the same in gbt, contributions and dumps as XGBoost's."""
    xgb = pytest.importorskip("xgboost")
    X, y = _data()
    if params.get("objective", "").startswith("multi"):
        y = np.digitize(y, [-1, 1]).astype(np.float32)
    p = dict(booster="gblinear", nthread=1, **params)
    bx = xgb.train(p, xgb.DMatrix(X, y), 20)
    bg = gbt.train(dict(p), gbt.Dataset(X, y), 20)
    px = bx.predict(xgb.DMatrix(X), output_margin=True)
    pg = bg.predict(gbt.Dataset(X), output_margin=True)
    np.testing.assert_allclose(pg, px, rtol=1e-5, atol=1e-5)
    bg.save_model(tmp_path / "g.json", format="xgboost")
    back = xgb.Booster(model_file=str(tmp_path / "g.json"))
    assert back.num_boosted_rounds() == 20
    np.testing.assert_array_equal(back.predict(xgb.DMatrix(X), output_margin=True), pg)
    bx.save_model(tmp_path / "x.json")
    bl = gbt.Booster(model_file=tmp_path / "x.json")
    np.testing.assert_array_equal(bl.predict(gbt.Dataset(X), output_margin=True), px)
    cx = bx.predict(xgb.DMatrix(X[:20]), pred_contribs=True)
    np.testing.assert_array_equal(bl.predict(gbt.Dataset(X[:20]), pred_contribs=True).reshape(cx.shape), cx)
    assert bl.get_dump() == bx.get_dump()


def test_gblinear_model_file_and_refusals(tmp_path):
    """gbt's file round trip keeps the bits and the rounds; device=cuda and
    leaf prediction are refused by name; eta and lambda default as XGBoost's."""
    X, y = _data(100)
    b = gbt.train(dict(booster="gblinear", nthread=1), gbt.Dataset(X, y), 3)
    assert b.get_param("eta") == "0.5" and b.get_param("lambda") == "0"
    b.save_model(tmp_path / "m.json")
    c = gbt.Booster(model_file=tmp_path / "m.json")
    assert c.num_boosted_rounds() == 3
    np.testing.assert_array_equal(c.predict(gbt.Dataset(X)), b.predict(gbt.Dataset(X)))
    with pytest.raises(gbt.GBTError, match="gblinear trains on the CPU only"):
        gbt.train(dict(booster="gblinear", device="cuda"), gbt.Dataset(X, y), 1)
    with pytest.raises(gbt.GBTError, match="no leaves"):
        b.predict(gbt.Dataset(X), pred_leaf=True)


def test_gblinear_ranking_and_survival():
    """rank:ndcg (query groups of 20) and survival:aft (a fifth censored),
    10 rounds: XGBoost's raw scores within 1e-5 relative."""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5)).astype(np.float32)
    s = X @ np.array([1, -1, 0.5, 0, 2], np.float32)
    rel = np.clip(np.floor(s - s.min()), 0, 4).astype(np.float32)
    t = np.exp(-s / 3 + 0.3 * rng.normal(size=400)).astype(np.float32)
    upper = np.where(rng.random(400) < 0.2, np.inf, t).astype(np.float32)
    for objective in ("rank:ndcg", "survival:aft"):
        made = []
        for D in (xgb.DMatrix, gbt.Dataset):
            d = D(X, rel) if objective == "rank:ndcg" else D(X)
            if objective == "rank:ndcg":
                d.set_group([20] * 20)
            else:
                d.set_float_info("label_lower_bound", t)
                d.set_float_info("label_upper_bound", upper)
            made.append(d)
        p = dict(booster="gblinear", nthread=1, objective=objective)
        px = xgb.train(p, made[0], 10).predict(xgb.DMatrix(X), output_margin=True)
        pg = gbt.train(dict(p), made[1], 10).predict(gbt.Dataset(X), output_margin=True)
        assert np.max(np.abs(pg - px)) <= 1e-5 * np.max(np.abs(px)), objective


def test_multi_target_matches_xgboost():
    """Two labels a row: each output fits its own label (XGBoost's gblinear: the same bits)."""
    xgb = pytest.importorskip("xgboost")
    X = np.random.RandomState(3).rand(200, 3).astype(np.float32)
    Y = np.c_[X[:, 0], 5 * X[:, 1] - X[:, 2]].astype(np.float32)
    p = {"booster": "gblinear", "updater": "coord_descent"}
    ours = gbt.train(p, gbt.DMatrix(X, label=Y), 20).predict(gbt.DMatrix(X))
    theirs = xgb.train(p, xgb.DMatrix(X, label=Y), 20).predict(xgb.DMatrix(X))
    assert ours.shape == (200, 2)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_save_best_is_refused_as_xgboost():
    # XGBoost 3.2 (test_callback's test_early_stopping_save_best_model): ValueError for gblinear
    rng = np.random.RandomState(0)
    X = rng.randn(50, 3)
    d = gbt.DMatrix(X, label=X[:, 0])
    es = gbt.callback.EarlyStopping(rounds=2, save_best=True)
    with pytest.raises(ValueError, match="`save_best` is not applicable"):
        gbt.train({"booster": "gblinear"}, d, 5, evals=[(d, "t")], callbacks=[es], verbose_eval=False)
    es = gbt.callback.EarlyStopping(rounds=2)  # without save_best it trains
    b = gbt.train({"booster": "gblinear"}, d, 5, evals=[(d, "t")], callbacks=[es], verbose_eval=False)
    assert b.num_boosted_rounds() == 5 and b.best_iteration == 4
    # a linear model's best round is a round of it (saved and loaded: once refused as beyond its trees)
    assert gbt.Booster(model_file=b.save_raw("gbt")).best_iteration == 4
