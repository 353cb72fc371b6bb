"""Prediction outputs (leaves, SHAP contributions and interactions), round
ranges, slices, importance and dumps, checked against independent facts:
contributions sum to the margin, leaf ids are found by walking the JSON dump,
importance is gbmodel's, a slice predicts what its iteration_range predicts."""
import json
import subprocess

import numpy as np
import pytest

import gbt

PARAMS = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.3}


@pytest.fixture(scope="module")
def binary(breast_cancer):
    X, y, _ = breast_cancer
    return X, y, gbt.train(PARAMS, gbt.Dataset(X, label=y), 10)


@pytest.fixture(scope="module")
def multi():
    rng = np.random.RandomState(0)
    X = rng.rand(300, 5).astype(np.float32)
    X[rng.rand(300, 5) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0] + X[:, 1] + X[:, 3] * X[:, 2]) * 1.2).astype(int).clip(0, 2)
    b = gbt.train({"objective": "multi:softprob", "num_class": 3, "max_depth": 3},
                  gbt.Dataset(X, label=y), 6)
    return X, y, b


def walk(node, row):
    """The leaf id a row reaches in one tree of the JSON dump (missing: 'missing')."""
    while "leaf" not in node:
        f = int(node["split"][1:])
        v = row[f]
        nxt = node["missing"] if np.isnan(v) else (node["yes"] if v < node["split_condition"]
                                                   else node["no"])
        node = next(c for c in node["children"] if c["nodeid"] == nxt)
    return node["nodeid"]


def test_leaf_ids_are_the_walk_of_the_json_dump(multi):
    X, _, b = multi
    leaves = b.predict(X, pred_leaf=True)
    trees = [json.loads(t) for t in b.get_dump(dump_format="json")]
    assert leaves.shape == (len(X), 18) == (len(X), b.num_trees())
    expect = np.array([[walk(t, row) for t in trees] for row in X], dtype=np.float32)
    np.testing.assert_array_equal(leaves, expect)
    # a range keeps the trees of its rounds (3 a round)
    np.testing.assert_array_equal(b.predict(X, pred_leaf=True, iteration_range=(2, 4)),
                                  expect[:, 6:12])


def test_leaf_shapes_of_a_forest(multi):
    """XGBoost 3.2's shapes (run_predict_leaf): strict_shape gives (rows, rounds,
    classes, num_parallel_tree), a forest's trees of one class agreeing without
    sampling; one tree's leaves are a vector."""
    X, y, _ = multi
    d = gbt.Dataset(X[:60], label=y[:60])
    b = gbt.train({"num_class": 3, "num_parallel_tree": 2, "max_depth": 2, "verbosity": 0}, d, 2)
    leaf = b.predict(d, pred_leaf=True, strict_shape=True)
    assert leaf.shape == (60, 2, 3, 2)
    assert np.array_equal(leaf[..., 0], leaf[..., 1])
    assert not np.array_equal(leaf[:, :, 0, 0], leaf[:, :, 1, 0])  # the classes' trees differ
    assert b.predict(d, pred_leaf=True).shape == (60, 12)
    one = gbt.train({"max_depth": 2, "verbosity": 0}, d, 1)
    assert one.predict(d, pred_leaf=True).shape == (60,)


def test_contributions_sum_to_the_margin(binary, multi):
    X, _, b = binary
    c = b.predict(X, pred_contribs=True)
    assert c.shape == (len(X), X.shape[1] + 1)
    np.testing.assert_allclose(c.sum(axis=1), b.predict(X, output_margin=True), rtol=1e-5, atol=1e-5)
    X3, _, b3 = multi
    c3 = b3.predict(X3, pred_contribs=True)
    assert c3.shape == (len(X3), 3, 6)
    np.testing.assert_allclose(c3.sum(axis=2), b3.predict(X3, output_margin=True), rtol=1e-5,
                               atol=1e-5)
    # features no tree splits on get 0
    unused = b.feature_importances("weight") == 0
    assert unused.any() and np.all(c[:, :-1][:, unused] == 0)
    # a round range: the contributions of those rounds' trees, summing to that range's margin
    cr = b.predict(X, pred_contribs=True, iteration_range=(0, 4))
    np.testing.assert_allclose(cr.sum(axis=1), b.predict(X, output_margin=True, iteration_range=(0, 4)),
                               rtol=1e-5, atol=1e-5)


def test_interactions_rows_sum_to_the_contributions(binary, multi):
    X, _, b = binary
    X = X[:40]
    inter = b.predict(X, pred_interactions=True)
    F = X.shape[1]
    assert inter.shape == (40, F + 1, F + 1)
    np.testing.assert_allclose(inter, np.swapaxes(inter, 1, 2), atol=1e-6)
    np.testing.assert_allclose(inter.sum(axis=2), b.predict(X, pred_contribs=True), rtol=1e-4, atol=1e-4)
    X3, _, b3 = multi
    i3 = b3.predict(X3[:20], pred_interactions=True)
    assert i3.shape == (20, 3, 6, 6)
    np.testing.assert_allclose(i3.sum(axis=3), b3.predict(X3[:20], pred_contribs=True), rtol=1e-4,
                               atol=1e-4)
    with pytest.raises(ValueError, match="at most one"):
        b.predict(X, pred_leaf=True, pred_contribs=True)


def test_a_slice_predicts_its_iteration_range(binary, multi):
    for X, _, b in (binary, multi):
        n = b.num_boosted_rounds()
        for lo, hi in ((0, 3), (2, 5), (n - 1, n)):
            s = b[lo:hi]
            assert s.num_boosted_rounds() == hi - lo
            np.testing.assert_array_equal(s.predict(X), b.predict(X, iteration_range=(lo, hi)))
            np.testing.assert_array_equal(s.predict(X, output_margin=True),
                                          b.predict(X, output_margin=True, iteration_range=(lo, hi)))
        np.testing.assert_array_equal(b[3].predict(X), b.predict(X, iteration_range=(3, 4)))
        np.testing.assert_array_equal(b[:].predict(X), b.predict(X))
        np.testing.assert_array_equal(b[-2:].predict(X), b.predict(X, iteration_range=(n - 2, n)))
        # XGBoost's b[0:4:2]: the trees of rounds 0 and 2 (their leaves)
        k = b.num_trees() // n
        leaves = b.predict(X, pred_leaf=True).reshape(len(X), n, k)
        np.testing.assert_array_equal(b[0:4:2].predict(X, pred_leaf=True).reshape(len(X), 2, k), leaves[:, [0, 2]])
        with pytest.raises(ValueError, match=">= 1"):
            b[0:4:0]
        with pytest.raises(ValueError, match="Invalid"):
            b[3:1]
        with pytest.raises(IndexError):
            b[n]


def test_first_rounds_slice_is_the_shorter_model(breast_cancer):
    X, y, _ = breast_cancer
    d = gbt.Dataset(X, label=y)
    whole, short = gbt.train(PARAMS, d, 10), gbt.train(PARAMS, d, 4)
    assert bytes(whole[0:4].save_raw("gbt")) == bytes(short.save_raw("gbt"))
    again = gbt.train(PARAMS, d, 6, xgb_model=whole[0:4])  # training a slice goes on after it
    assert bytes(again.save_raw("gbt")) == bytes(whole.save_raw("gbt"))


def gbmodel_importance(gbmodel, path, kind):
    out = subprocess.run([gbmodel, "importance", f"--type={kind}", path], capture_output=True,
                         text=True, check=True).stdout
    return {line.split("\t")[0]: float(line.split("\t")[1]) for line in out.splitlines() if line}


@pytest.mark.parametrize("kind", ["weight", "gain", "cover", "total_gain", "total_cover"])
def test_importance_is_gbmodels(kind, binary, gbmodel, tmp_path):
    _, _, b = binary
    b.save_model(tmp_path / "m.json")
    cli = gbmodel_importance(gbmodel, str(tmp_path / "m.json"), kind)
    score = b.get_score(importance_type=kind)
    assert set(score) == set(cli)
    for k, v in cli.items():
        assert score[k] == pytest.approx(v, rel=1e-6)
    arr = b.feature_importances(kind)
    assert arr.shape == (b.num_features(),)
    assert sum(arr > 0) == len(cli)


def test_weight_importance_counts_the_splits_of_the_dump(multi):
    _, _, b = multi
    counts = {}
    for t in b.get_dump():
        for line in t.splitlines():
            if "[" in line:
                f = line.split("[")[1].split("<")[0]
                counts[f] = counts.get(f, 0) + 1
    assert b.get_score() == {k: float(v) for k, v in counts.items()}
    # gain = total_gain / weight
    tg, g, w = (b.get_score(importance_type=k) for k in ("total_gain", "gain", "weight"))
    for k in w:
        assert g[k] == pytest.approx(tg[k] / w[k], rel=1e-12)


def test_feature_names_go_into_the_model(breast_cancer, tmp_path):
    pd = pytest.importorskip("pandas")
    X, y, _ = breast_cancer
    names = [f"col {i}" for i in range(X.shape[1])]
    df = pd.DataFrame(X, columns=names)
    b = gbt.train(PARAMS, gbt.Dataset(df, label=y), 3)
    assert b.feature_names == names
    b.save_model(tmp_path / "m.json")
    with open(tmp_path / "m.json") as f:
        assert json.load(f)["feature_names"] == names
    loaded = gbt.Booster(model_file=tmp_path / "m.json")
    assert loaded.feature_names == names
    assert set(loaded.get_score()) <= set(names)
    assert "[col " in loaded.get_dump()[0]
    renamed = df.rename(columns={"col 3": "other"})
    with pytest.raises(ValueError, match="missing from the data: col 3"):
        loaded.predict(renamed)
    # validate_features=False predicts the renamed frame, and leaves its names alone
    d = gbt.Dataset(renamed)
    np.testing.assert_array_equal(loaded.predict(d, validate_features=False), loaded.predict(X))
    assert d.feature_names[3] == "other"
    with pytest.raises(gbt.InvalidArgumentError):
        gbt.Dataset(X[:, :2], feature_names=["a[0]", "b"])


def test_dumps_and_xgboost_format(multi, tmp_path):
    X, _, b = multi
    text = b.get_dump(with_stats=True)
    assert len(text) == 18 and text[0].startswith("0:[") and "gain=" in text[0]
    dot = b.get_dump(dump_format="dot")
    assert all(t.lstrip().startswith("digraph") for t in dot)
    src = gbt.to_graphviz(b, tree_idx=4)
    assert (src if isinstance(src, str) else src.source) == dot[4]
    with pytest.warns(FutureWarning, match="num_trees"):  # XGBoost 3's deprecated name of tree_idx
        src = gbt.to_graphviz(b, num_trees=4)
    assert (src if isinstance(src, str) else src.source) == dot[4]
    b.dump_model(tmp_path / "dump.json", dump_format="json")
    with open(tmp_path / "dump.json") as f:
        assert len(json.load(f)) == 18
    b.save_model(tmp_path / "x.json", format="xgboost")
    with open(tmp_path / "x.json") as f:
        assert "learner" in json.load(f)
    back = gbt.Booster(model_file=tmp_path / "x.json")
    np.testing.assert_allclose(back.predict(X), b.predict(X), rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="format"):
        b.save_model(tmp_path / "y.json", format="ubj")


def test_plot_importance(binary):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    _, _, b = binary
    ax = gbt.plot_importance(b, importance_type="gain", max_num_features=5)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    score = b.get_score(importance_type="gain")
    assert labels == sorted(score, key=score.get)[-5:]


@pytest.mark.parametrize("objective", ["survival:aft", "survival:cox"])
def test_survival_through_python_is_gbtrains_model(objective, gbtrain, tmp_path):
    from conftest import load_csv, read_model, run_gbtrain
    X, y, path = load_csv("survival.train.csv")
    run_gbtrain(gbtrain, [f"--objective={objective}", "--max_depth=3", "--num_round=5", path, "m.json"],
                tmp_path)
    cli = read_model(tmp_path / "m.json")
    d = gbt.Dataset(X, label=y)
    if objective == "survival:aft":
        bounds = [np.array([line.strip() for line in open(path + ext) if line.strip()], dtype=np.float32)
                  for ext in (".lower", ".upper")]
        d = gbt.Dataset(X, label=y, label_lower_bound=bounds[0], label_upper_bound=bounds[1])
        np.testing.assert_array_equal(d.get_float_info("label_upper_bound"), bounds[1])
    b = gbt.train({"objective": objective, "max_depth": 3}, d, 5)
    assert bytes(b.save_raw("gbt")) == cli


def test_plot_tree_needs_graphviz(multi):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    _, _, b = multi
    try:
        import graphviz  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="graphviz"):
            gbt.plot_tree(b, tree_idx=1)
        assert gbt.to_graphviz(b, tree_idx=1) == b.get_dump(dump_format="dot")[1]
    with pytest.raises(IndexError):
        gbt.to_graphviz(b, tree_idx=18)


@pytest.mark.parametrize("objective", ["binary:logistic", "multi:softprob"])
def test_approx_contribs_are_xgboosts(objective, tmp_path):
    """pred_contribs with approx_contribs (Saabas) of an XGBoost model loaded in gbt: XGBoost 3.2's
    own output within 1e-5, each block summing to the margin, and not the exact SHAP values."""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.RandomState(5)
    X = rng.normal(size=(150, 4)).astype(np.float32)
    X[rng.uniform(size=X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2]) > 0).astype(np.float32)
    params = {"objective": objective, "max_depth": 4, "eta": 0.5}
    if objective == "multi:softprob":
        y = y + (np.nan_to_num(X[:, 3]) > 0.5)
        params["num_class"] = 3
    theirs = xgb.train(params, xgb.DMatrix(X, y), 5)
    mine = gbt.Booster(model_file=theirs.save_raw("ubj"))
    got = mine.predict(X, pred_contribs=True, approx_contribs=True)
    want = theirs.predict(xgb.DMatrix(X), pred_contribs=True, approx_contribs=True)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    margin = mine.predict(X, output_margin=True)
    np.testing.assert_allclose(got.sum(axis=-1), margin, rtol=1e-5, atol=1e-5)
    assert np.abs(got - mine.predict(X, pred_contribs=True)).max() > 1e-3
    # with pred_interactions: XGBoost's output (the approximate values on the diagonal)
    got = mine.predict(X, pred_interactions=True, approx_contribs=True)
    want = theirs.predict(xgb.DMatrix(X), pred_interactions=True, approx_contribs=True)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
