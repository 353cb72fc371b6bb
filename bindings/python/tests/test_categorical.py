"""Categorical features from Python: Dataset(feature_types=...) marks
columns categorical (XGBoost's spelling); bad category values raise with the
row and column; trained models split on sets of categories, save the types,
and predict what XGBoost predicts from the exported model."""
import json
import math

import numpy as np
import pytest

import gbt


def data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 12, n).astype(np.float64)
    x = rng.random(n)
    c[::9] = np.nan
    y = x + np.sin(np.nan_to_num(c, nan=5.0) * 1.7)
    return np.column_stack([x, c]), y


def test_feature_types_round_trip():
    X, y = data()
    d = gbt.Dataset(X, y, feature_types=["q", "c"])
    assert d.feature_types == ["q", "c"]
    d.feature_types = None
    assert d.feature_types is None  # (as XGBoost: no types set, none categorical)


def test_bad_category_names_row_and_column():
    X, y = data()
    X[3, 1] = 2.5
    with pytest.raises(gbt.InvalidArgumentError, match=r"row 3: column 1 \(f1\) is categorical but holds 2.5"):
        gbt.Dataset(X, y, feature_types=["q", "c"])
    with pytest.raises(ValueError, match="feature_types has 1 types"):
        gbt.Dataset(X, y, feature_types=["c"])


def test_categorical_model(tmp_path):
    X, y = data()
    bst = gbt.train({"max_depth": 3, "nthread": 1}, gbt.Dataset(X, y, feature_types=["q", "c"]), 5)
    assert any(":{" in t for t in bst.get_dump())
    model = json.loads(bytes(bst.save_raw("gbt")).decode())
    assert model["feature_types"] == ["q", "c"]
    # unseen categories (20) and negative codes go left, as XGBoost sends them
    Xt = np.array([[0.5, 20.0], [0.5, -1.0]])
    p = bst.predict(gbt.Dataset(Xt))
    assert p[0] == p[1]
    xgb = pytest.importorskip("xgboost")
    path = str(tmp_path / "m.json")
    bst.save_model(path, format="xgboost")
    theirs = xgb.Booster(model_file=path).predict(
        xgb.DMatrix(X.astype(np.float32), feature_types=["q", "c"], enable_categorical=True), output_margin=True)
    mine = bst.predict(gbt.Dataset(X), output_margin=True)
    assert np.allclose(mine, theirs, rtol=1e-5, atol=1e-5)
    assert not math.isnan(float(mine[0]))


def test_sklearn_feature_types():
    X, y = data()
    reg = gbt.GBTRegressor(n_estimators=5, max_depth=3, feature_types=["q", "c"], max_cat_threshold=4)
    reg.fit(X, y)
    model = json.loads(bytes(reg.get_booster().save_raw("gbt")).decode())
    assert model["feature_types"] == ["q", "c"]
    assert model["training"]["max_cat_threshold"] == "4"
    assert any(":{" in t for t in reg.get_booster().get_dump())
    assert reg.get_params()["feature_types"] == ["q", "c"]


def test_sklearn_lightgbm_regularisation(tmp_path):
    """LightGBM's cat_smooth, cat_l2 and min_data_per_group pass through the
    estimators' **kwargs to the library (the model records them and differs
    from the default one) and export as ordinary categorical splits."""
    X, y = data()
    lgb = {"cat_smooth": 10, "cat_l2": 10, "min_data_per_group": 20}
    reg = gbt.GBTRegressor(n_estimators=5, max_depth=3, feature_types=["q", "c"], **lgb).fit(X, y)
    plain = gbt.GBTRegressor(n_estimators=5, max_depth=3, feature_types=["q", "c"]).fit(X, y)
    model = json.loads(bytes(reg.get_booster().save_raw("gbt")).decode())
    assert {k: model["training"][k] for k in lgb} == {"cat_smooth": "10", "cat_l2": "10", "min_data_per_group": "20"}
    assert {k: reg.get_params()[k] for k in lgb} == lgb
    assert not np.array_equal(reg.predict(X), plain.predict(X))
    xgb = pytest.importorskip("xgboost")
    path = str(tmp_path / "m.json")
    reg.get_booster().save_model(path, format="xgboost")
    theirs = xgb.Booster(model_file=path).predict(
        xgb.DMatrix(X.astype(np.float32), feature_types=["q", "c"], enable_categorical=True), output_margin=True)
    assert np.allclose(reg.predict(X, output_margin=True), theirs, rtol=1e-5, atol=1e-5)


def _colours_numbers(n, seed):
    """n rows: a colour name, an integer category of four, a normal value."""
    rng = np.random.default_rng(seed)
    return (rng.choice(["red", "green", "blue", "pink", "gray"], n), rng.choice([3, 7, 11, 20], n),
            rng.normal(size=n))


@pytest.mark.parametrize("reorder", [False, True])
def test_load_xgboost_pandas_categories(tmp_path, reorder):
    """A model XGBoost trained on pandas categories (string and integer ones:
    XGBoost's cats.enc) predicts what XGBoost predicts, also for a frame whose
    categories come in another order (recoded by hand here)."""
    xgb = pytest.importorskip("xgboost")
    pd = pytest.importorskip("pandas")
    c, k, x = _colours_numbers(1500, 3)
    y = ((c == "red") | (x > 0.5) | (k == 7)).astype(float)
    df = pd.DataFrame({"c": pd.Categorical(c), "x": x, "k": pd.Categorical(k)})
    bx = xgb.train({"objective": "binary:logistic", "max_depth": 4, "max_cat_to_onehot": 1},
                   xgb.DMatrix(df, y, enable_categorical=True), 10)
    path = str(tmp_path / "xgb_cats.json")
    bx.save_model(path)
    want = bx.predict(xgb.DMatrix(df, enable_categorical=True), output_margin=True)
    bg = gbt.Booster(model_file=path)
    if reorder:
        df = df.copy()
        df["c"] = df["c"].cat.reorder_categories(["red", "pink", "green", "gray", "blue"])
        df["k"] = df["k"].cat.reorder_categories([20, 11, 7, 3])
    got = bg.predict(gbt.DMatrix(df, enable_categorical=True), output_margin=True)
    assert np.abs(got - want).max() < 1e-5


def test_export_pandas_categories_to_xgboost(tmp_path):
    """gbt's XGBoost export carries the frame's categories in XGBoost 3.2's
    cats (names and int64 numbers), so XGBoost codes a frame by the names:
    its predictions equal gbt's also for a frame whose categories come in
    another order (which XGBoost would read as other codes without them);
    gbt reads the export back to the same list.  A name that is not ASCII,
    which XGBoost 3.2 cannot read back, is refused."""
    xgb = pytest.importorskip("xgboost")
    pd = pytest.importorskip("pandas")
    c, k, x = _colours_numbers(300, 4)
    y = ((c == "red") | (x > 0.5) | (k == 7)).astype(float) + 0.5 * (c == "pink")
    df = pd.DataFrame({"c": pd.Categorical(c, categories=["red", "pink", "green", "gray", "blue"]), "x": x,
                       "k": pd.Categorical(k, categories=[20, 3, 11, 7])})
    bst = gbt.train({"max_depth": 3, "nthread": 1, "max_cat_to_onehot": 1},
                    gbt.Dataset(df, y, enable_categorical=True), 5)
    path = str(tmp_path / "cats.json")
    bst.save_model(path, format="xgboost")
    mine = bst.predict(gbt.Dataset(df, enable_categorical=True), output_margin=True)
    other = df.copy()
    other["c"] = other["c"].cat.reorder_categories(["blue", "gray", "green", "pink", "red"])
    other["k"] = other["k"].cat.reorder_categories([3, 7, 11, 20])
    theirs = xgb.Booster(model_file=path).predict(xgb.DMatrix(other, enable_categorical=True),
                                                  output_margin=True)
    assert np.abs(mine - theirs).max() < 1e-5
    assert json.loads(gbt.Booster(model_file=path).attr("feature_categories")) == \
        {"0": ["red", "pink", "green", "gray", "blue"], "2": [20, 3, 11, 7]}
    df["c"] = df["c"].cat.rename_categories({"pink": "ros\u00e9"})
    bst = gbt.train({"max_depth": 2, "nthread": 1}, gbt.Dataset(df, y, enable_categorical=True), 1)
    with pytest.raises(gbt.GBTError, match="category 'ros\u00e9' is not ASCII"):
        bst.save_model(path, format="xgboost")


def test_save_binary_keeps_category_names(tmp_path):
    """save_binary keeps a DataFrame's category names (section CATS): the
    Dataset read back has them, and a model trained on it keeps them as one
    trained on the frame does, with the same trees."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    c = rng.choice(["red", "green", "blue"], 200)
    x = rng.normal(size=200)
    df = pd.DataFrame({"x": x, "c": pd.Categorical(c, categories=["red", "blue", "green"])})
    d = gbt.Dataset(df, x + (c == "red"), enable_categorical=True)
    path = str(tmp_path / "cats.bin")
    d.save_binary(path)
    back = gbt.Dataset(path)
    # the frame's types, as XGBoost keeps them
    assert back._categories == {1: ["red", "blue", "green"]} and back.feature_types == ["float", "c"]
    params = {"max_depth": 2, "nthread": 1}
    a, b = gbt.train(params, d, 3), gbt.train(params, back, 3)
    assert json.loads(b.attr("feature_categories")) == {"1": ["red", "blue", "green"]}
    assert a.get_dump() == b.get_dump()


def test_a_worker_threads_error_reaches_python_with_its_message():
    # issue 38, finding 5: binning runs a feature per OpenMP worker; its
    # error ("more than 65535 categories") reached Python as "invalid
    # argument", or as the message of an earlier error.  Features 3 and 6
    # both have 65536 categories: feature 3's message, at every thread count.
    i = np.arange(65536)
    X = np.stack([i % 3, i % 5, i % 7, i, i % 11, i % 13, (i * 7) % 65536, i % 17], axis=1).astype(np.float32)
    d = gbt.Dataset(X, (i % 2).astype(np.float32), feature_types=["q", "q", "q", "c", "q", "q", "c", "q"])
    want = "categorical feature 3 has 65536 distinct categories in the training data; gbt supports at most 65535"
    for nthread in (1, 2, 8):
        got = []
        for _ in range(20):
            # an unrelated error first: its message must not come back
            with pytest.raises(gbt.GBTError, match="max_depth"):
                gbt.train({"max_depth": -5}, d, 1)
            with pytest.raises(gbt.GBTError) as e:
                gbt.train({"nthread": nthread}, d, 1)
            got.append(str(e.value))
        assert got == [want] * 20, (nthread, sorted(set(got)))


def test_corrupted_categorical_model_is_refused():
    """A set moved to a leaf, or feature types that contradict the splits,
    used to load and predict otherwise (issue 38): now a FormatError naming
    the tree and node."""
    X, y = data()
    bst = gbt.train({"max_depth": 2, "nthread": 1}, gbt.Dataset(X, y, feature_types=["q", "c"]), 2)
    model = json.loads(bytes(bst.save_raw("gbt")).decode())
    tree = next(t for t in model["trees"] if t.get("categories_nodes"))
    node = tree["categories_nodes"][-1]
    leaf = len(tree["left"]) - 1  # the last node: a leaf, after every split (ascending order kept)
    tree["categories_nodes"][-1] = leaf
    with pytest.raises(gbt.FormatError, match=r"tree \d+: node %d is a leaf but has a set of categories" % leaf):
        gbt.Booster(model_file=bytearray(json.dumps(model).encode()))
    tree["categories_nodes"][-1] = node
    model["feature_types"] = ["q", "q"]
    with pytest.raises(gbt.FormatError, match=r"categorical split on feature 1 \(f1\)"):
        gbt.Booster(model_file=bytearray(json.dumps(model).encode()))
    # a short list (older gbt files): the features past it are numeric, which the splits contradict here
    model["feature_types"] = ["c"]
    with pytest.raises(gbt.FormatError, match=r"node \d+ is a (numeric|categorical) split .* feature_types"):
        gbt.Booster(model_file=bytearray(json.dumps(model).encode()))
