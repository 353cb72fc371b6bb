"""Constraints from Python: monotone_constraints and interaction_constraints
in XGBoost's forms (tuple, list, dict by name, nested lists of indices or
names), feature_weights through Dataset and fit(); checked on predictions
and on the trees' paths, not on the library's own bookkeeping."""
import json

import numpy as np
import pytest

import gbt


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 4))
    y = X[:, 0] + 0.8 * np.sin(4 * X[:, 0]) - X[:, 1] - 0.8 * np.cos(4 * X[:, 1]) + 0.3 * X[:, 2] * X[:, 3]
    return X, y + 0.1 * rng.normal(size=n)


def _steps_against(predict, X, f, direction):
    grid = np.linspace(-3, 3, 121)
    bad = 0
    for row in X[:40]:
        Z = np.repeat(row[None, :], grid.size, axis=0)
        Z[:, f] = grid
        d = np.diff(predict(Z).astype(np.float64))
        bad += int(np.sum(direction * d < 0))
    return bad


@pytest.mark.parametrize("mono", [(1, -1, 0, 0), [1, -1, 0, 0], "(1,-1,0,0)", {"x0": 1, "x1": -1}, (1, -1)])
def test_train_monotone_forms(mono):
    X, y = _data()
    d = gbt.Dataset(X, y)
    d.feature_names = ["x0", "x1", "x2", "x3"]
    b = gbt.train({"monotone_constraints": mono, "max_depth": 5, "verbosity": 0}, d, 20)
    pred = lambda Z: b.predict(gbt.Dataset(Z, feature_names=["x0", "x1", "x2", "x3"]), output_margin=True)
    assert _steps_against(pred, X, 0, 1) == 0
    assert _steps_against(pred, X, 1, -1) == 0


def test_unconstrained_can_fail():
    X, y = _data()
    b = gbt.train({"max_depth": 5, "verbosity": 0}, gbt.Dataset(X, y), 20)
    pred = lambda Z: b.predict(gbt.Dataset(Z), output_margin=True)
    assert _steps_against(pred, X, 0, 1) + _steps_against(pred, X, 1, -1) > 0


def _paths(booster):
    """The feature sets of every root-to-node path, from the JSON dump."""
    out = []

    def walk(node, used):
        if "children" not in node:
            return
        used = used | {node["split"]}
        out.append(used)
        for c in node["children"]:
            walk(c, used)

    for tree in booster.get_dump(dump_format="json"):
        walk(json.loads(tree), frozenset())
    return out


@pytest.mark.parametrize("sets", [[[0, 1], [2, 3]], [["a", "b"], ["c", "d"]], "[[0,1],[2,3]]"])
def test_sklearn_interaction(sets):
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    m = gbt.GBTRegressor(n_estimators=15, max_depth=4, interaction_constraints=sets)
    m.fit(df, y)
    paths = _paths(m.get_booster())
    allowed = [{"a", "b"}, {"c", "d"}]
    assert len(paths) > 50
    for p in paths:
        names = {str(f) for f in p}
        assert len(names) == 1 or any(names <= s for s in allowed), names


def test_sklearn_monotone_dict_and_params():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    m = gbt.GBTRegressor(n_estimators=20, max_depth=5, monotone_constraints={"a": 1, "b": -1})
    m.fit(df, y)
    pred = lambda Z: m.predict(pd.DataFrame(Z, columns=df.columns), output_margin=True)
    assert _steps_against(pred, X, 0, 1) == 0 and _steps_against(pred, X, 1, -1) == 0
    assert "monotone_constraints" in m.get_params()


def test_feature_weights_fit_and_dataset():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(400, 4))
    y = X.sum(axis=1)
    w = np.array([0.0, 1.0, 0.0, 3.0])
    m = gbt.GBTRegressor(n_estimators=200, max_depth=1, colsample_bytree=0.25, learning_rate=0.01)
    m.fit(X, y, feature_weights=w)
    counts = np.zeros(4)
    for tree in m.get_booster().get_dump(dump_format="json"):
        node = json.loads(tree)
        if "children" in node:
            counts[int(str(node["split"]).lstrip("f"))] += 1
    # one feature per tree, drawn with probability w / sum(w): 50 and 150 expected
    assert counts[0] == 0 and counts[2] == 0
    assert abs(counts[3] - 150) <= 4 * np.sqrt(200 * 0.75 * 0.25) + 1

    d = gbt.Dataset(X, y)
    d.set_feature_weights(w)
    np.testing.assert_array_equal(d.get_float_info("feature_weights"), w.astype(np.float32))
    d.set_float_info("feature_weights", None)
    assert d.get_float_info("feature_weights").size == 0  # unset: empty, as XGBoost's


@pytest.mark.parametrize("weights,word", [([1, -1, 1, 1], "negative"), ([0, 0, 0, 0], "0"), ([1, 1], "4 features")])
def test_feature_weights_errors(weights, word):
    X, y = _data(50)
    d = gbt.Dataset(X, y)
    with pytest.raises(gbt.GBTError, match="feature_weights") as e:
        d.set_feature_weights(weights)
    assert word in str(e.value)


@pytest.mark.parametrize("params,word", [
    ({"monotone_constraints": (1, 0, 0, 0, 1)}, "5 values for 4 features"),
    ({"monotone_constraints": (1, 0, 2, 0)}, "not -1, 0 or 1"),
    ({"monotone_constraints": {"nope": 1}}, "unknown feature name 'nope'"),
    ({"interaction_constraints": [[0, 7]]}, "out of range"),
])
def test_constraint_errors(params, word):
    X, y = _data(50)
    with pytest.raises(gbt.GBTError, match="constraints") as e:
        gbt.train(dict(params, verbosity=0), gbt.Dataset(X, y), 2)
    assert word in str(e.value)


@pytest.mark.parametrize("params,word", [
    ({"interaction_constraints": [[1.9, 2]]}, "1.9 is not a feature index"),
    ({"interaction_constraints": [[np.float64(0.5), 1]]}, "0.5 is not a feature index"),
    ({"monotone_constraints": (1, 0.5, 0, 0)}, "0.5 is not -1, 0 or 1"),
    ({"monotone_constraints": {"f0": -0.7}}, "-0.7 is not -1, 0 or 1"),
])
def test_constraint_fractions_refused(params, word):
    # issue 38, finding 9: int() made [[1.9, 2]] the set [[1, 2]]; the CLI's text refuses 1.9
    X, y = _data(50)
    with pytest.raises(ValueError, match="constraints") as e:
        gbt.train(dict(params, verbosity=0), gbt.Dataset(X, y), 2)
    assert word in str(e.value)


def test_constraint_whole_floats_accepted():
    # 2.0 from a float array is feature 2, as in XGBoost
    X, y = _data(200)
    a = gbt.train({"interaction_constraints": [[0.0, 1.0], [2, 3]], "verbosity": 0}, gbt.Dataset(X, y), 2)
    b = gbt.train({"interaction_constraints": [[0, 1], [2, 3]], "verbosity": 0}, gbt.Dataset(X, y), 2)
    assert a.save_raw("gbt") == b.save_raw("gbt")
