"""pandas category columns with enable_categorical (XGBoost's flag): codes
and types, XGBoost's refusal without the flag, predictions equal to XGBoost
3.2's with enable_categorical=True, and the category names kept with the
model, so frames whose categories come in another order (or with ones the
training frame lacked) are recoded; each expected value comes from XGBoost
or from a recoding done here with plain dicts."""
import pickle

import numpy as np
import pytest

import gbt

pd = pytest.importorskip("pandas")

CITIES = ["oslo", "lima", "pune", "kiev", "rome"]
SHOPS = [f"s{i:02d}" for i in range(40)]


def frame(n=3000, seed=0):
    """Two category columns (5 and 40 categories, 4% missing) and one numeric
    column of 100 distinct values (so both libraries cut it at every value)."""
    rng = np.random.default_rng(seed)
    city = rng.choice(CITIES, n)
    shop = rng.choice(SHOPS, n).astype(object)
    shop[rng.random(n) < 0.04] = None
    x = np.round(rng.random(n), 2)
    effect_c = {c: v for c, v in zip(CITIES, [0.0, 2.0, -1.0, 0.5, 1.5])}
    effect_s = {s: np.sin(i * 1.3) for i, s in enumerate(SHOPS)}
    y = (x * 2 + np.array([effect_c[c] for c in city])
         + np.array([effect_s.get(s, 0.7) for s in shop]) + 0.1 * rng.normal(size=n))
    df = pd.DataFrame({"city": pd.Categorical(city, categories=CITIES), "x": x,
                       "shop": pd.Categorical(shop, categories=SHOPS)})
    return df, y


def codes_by_hand(df, cats):
    """The frame as a float matrix, each category column coded by the position
    of its value in cats[column] (a value not there: 1000, missing: NaN)."""
    out = np.empty(df.shape, dtype=np.float32)
    for j, name in enumerate(df.columns):
        if name in cats:
            pos = {v: k for k, v in enumerate(cats[name])}
            out[:, j] = [np.nan if (v is None or (isinstance(v, float) and np.isnan(v)))
                         else pos.get(v, 1000) for v in df[name].astype(object)]
        else:
            out[:, j] = df[name].to_numpy(dtype=np.float32)
    return out


PARAMS = {"max_depth": 4, "eta": 0.3, "max_bin": 256, "nthread": 2}
TRAIN_CATS = {"city": CITIES, "shop": SHOPS}


@pytest.fixture(scope="module")
def trained():
    df, y = frame()
    return df, y, gbt.train(PARAMS, gbt.Dataset(df, y, enable_categorical=True), 12)


def test_refused_without_the_flag_as_xgboost():
    df, y = frame(100)
    with pytest.raises(ValueError) as mine:
        gbt.Dataset(df, y)
    with pytest.raises(ValueError, match="enable_categorical"):
        gbt.GBTRegressor(n_estimators=2).fit(df, y)
    xgb = pytest.importorskip("xgboost")
    with pytest.raises(ValueError) as theirs:
        xgb.DMatrix(df, y)
    # the same sentences, XGBoost's spacing aside, naming every category column
    def words(e):
        return str(e.value).replace("experimental ", "").replace("parameter`", "parameter `").replace(
            ":city", ": city").split()
    assert words(mine) == words(theirs)
    assert "shop: category" in str(mine.value)


def test_codes_and_types():
    df, y = frame(200)
    d = gbt.Dataset(df, y, enable_categorical=True)
    assert d.feature_types == ["c", "float", "c"]  # XGBoost's types of the frame's columns
    assert d.num_col() == 3
    q = gbt.QuantileDMatrix(df, y, enable_categorical=True)
    assert q.feature_types == ["c", "float", "c"]
    # the codes are the category positions: a model trained on codes made by hand is the same model
    by_hand = gbt.Dataset(codes_by_hand(df, TRAIN_CATS), y, feature_types=["c", "q", "c"],
                          feature_names=list(df.columns))
    a = gbt.train(PARAMS, d, 4)
    b = gbt.train(PARAMS, by_hand, 4)
    assert a.get_dump() == b.get_dump()
    assert any(":{" in t for t in a.get_dump())


def test_same_predictions_as_xgboost(trained):
    xgb = pytest.importorskip("xgboost")
    df, y, bst = trained
    theirs = xgb.train({**PARAMS, "tree_method": "hist"}, xgb.DMatrix(df, y, enable_categorical=True), 12)
    want = theirs.predict(xgb.DMatrix(df, enable_categorical=True))
    got = bst.predict(df)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # XGBoost recodes a frame whose categories come in another order: both agree there too
    df2 = df.copy()
    df2["city"] = df2["city"].cat.reorder_categories(CITIES[::-1])
    df2["shop"] = df2["shop"].cat.reorder_categories(SHOPS[::-1])
    np.testing.assert_allclose(bst.predict(df2), theirs.predict(xgb.DMatrix(df2, enable_categorical=True)),
                               rtol=1e-5, atol=1e-5)


def test_sklearn_same_as_xgboost():
    xgb = pytest.importorskip("xgboost")
    df, y = frame(1500, seed=3)
    kw = dict(n_estimators=8, max_depth=3, learning_rate=0.3, max_bin=256, enable_categorical=True)
    mine = gbt.GBTRegressor(**kw, tree_method="hist").fit(df, y)
    theirs = xgb.XGBRegressor(**kw, tree_method="hist").fit(df, y)
    np.testing.assert_allclose(mine.predict(df), theirs.predict(df), rtol=1e-5, atol=1e-5)


def test_reordered_and_unseen_categories(trained, tmp_path):
    df, y, bst = trained
    rng = np.random.default_rng(5)
    # another order, an extra category no training row had, and that category in some rows
    cities = ["rome", "atlantis", "kiev", "oslo", "pune", "lima"]
    city = df["city"].astype(object).to_numpy().copy()
    city[rng.random(len(city)) < 0.05] = "atlantis"
    df2 = df.copy()
    df2["city"] = pd.Categorical(city, categories=cities)
    df2["shop"] = df2["shop"].cat.reorder_categories(SHOPS[::-1])
    assert (df2["city"].cat.codes.to_numpy() != df["city"].cat.codes.to_numpy()).any()
    want = bst.predict(codes_by_hand(df2, TRAIN_CATS))  # an unseen code (1000) for atlantis
    np.testing.assert_array_equal(bst.predict(df2), want)
    np.testing.assert_array_equal(bst.predict(gbt.Dataset(df2, enable_categorical=True)), want)
    # the rows that kept their category predict as before
    keep = city != "atlantis"
    np.testing.assert_array_equal(bst.predict(df2)[keep], bst.predict(df)[keep])
    # kept with the model: its file and pickling
    path = str(tmp_path / "m.json")
    bst.save_model(path)
    again = gbt.Booster(model_file=path)
    assert again.attr("feature_categories") is not None
    np.testing.assert_array_equal(again.predict(df2), want)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(bst)).predict(df2), want)
    assert again.feature_types == ["c", "float", "c"]  # a DataFrame's types, as XGBoost's model keeps them


def test_evaluation_recodes(trained):
    df, y, _ = trained
    df2 = df.copy()
    df2["shop"] = df2["shop"].cat.reorder_categories(SHOPS[::-1])
    res1, res2 = {}, {}
    d = gbt.Dataset(df, y, enable_categorical=True)
    gbt.train(PARAMS, d, 5, evals=[(gbt.Dataset(df, y, enable_categorical=True), "v")], evals_result=res1,
              verbose_eval=False)
    gbt.train(PARAMS, d, 5, evals=[(gbt.Dataset(df2, y, enable_categorical=True), "v")], evals_result=res2,
              verbose_eval=False)
    assert res1 == res2
    bst = gbt.train(PARAMS, d, 2)
    with pytest.raises(ValueError, match="categories differ from the model's"):
        bst.update(gbt.Dataset(df2, y, enable_categorical=True))
    # gbt.train continuing on the reordered frame recodes it: the model of one frame
    more = gbt.train(PARAMS, gbt.Dataset(df2, y, enable_categorical=True), 2, xgb_model=bst)
    same = gbt.train(PARAMS, d, 2, xgb_model=bst)
    assert more.get_dump() == same.get_dump()


def test_sklearn_reordered(tmp_path):
    df, y = frame(1000, seed=2)
    reg = gbt.GBTRegressor(n_estimators=6, max_depth=3, enable_categorical=True).fit(
        df, y, eval_set=[(df, y)])
    df2 = df.copy()
    df2["city"] = df2["city"].cat.reorder_categories(CITIES[::-1])
    np.testing.assert_array_equal(reg.predict(df2), reg.predict(df))
    np.testing.assert_array_equal(reg.predict(df), reg.get_booster().predict(codes_by_hand(df, TRAIN_CATS)))
    path = str(tmp_path / "reg.json")
    reg.save_model(path)
    back = gbt.GBTRegressor(enable_categorical=True)
    back.load_model(path)
    np.testing.assert_array_equal(back.predict(df2), reg.predict(df))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(reg)).predict(df2), reg.predict(df))


def test_slices_keep_the_categories():
    df, y = frame(600, seed=4)
    part = gbt.Dataset(df, y, enable_categorical=True).slice_rows(100, 400)
    bst = gbt.train(PARAMS, part, 3)
    assert bst.attr("feature_categories") is not None
    df2 = df.copy()
    df2["city"] = df2["city"].cat.reorder_categories(CITIES[::-1])
    np.testing.assert_array_equal(bst.predict(df2), bst.predict(codes_by_hand(df, TRAIN_CATS)))
