"""XGBoost 3.2's Python names that its own tests use, compared with XGBoost
itself on the same small data: XGBoostError, DMatrix.slice and get_data,
feature types of a DataFrame, the Booster's feature name and type setters,
TrainingCallback.EvalsLog and TrainingCheckPoint.default_format."""
import numpy as np
import pytest

import gbt

xgb = pytest.importorskip("xgboost")


def _data():
    X = np.arange(15, dtype=np.float64).reshape(5, 3)
    X[1, 1] = np.nan
    X[2, 0] = 0.0  # a stored zero stays an entry
    return X, np.array([0, 1, 0, 1, 1], np.float32), np.arange(1, 6, dtype=np.float32)


def test_xgboost_error_is_gbts():
    assert gbt.XGBoostError is gbt.GBTError and gbt.core.XGBoostError is gbt.GBTError
    with pytest.raises(gbt.core.XGBoostError):
        gbt.Booster(model_file="no/such/model.json")


@pytest.mark.parametrize("sparse", [False, True])
def test_slice_and_get_data_as_xgboost(sparse):
    sp = pytest.importorskip("scipy.sparse")
    X, y, w = _data()
    data = sp.csr_matrix(np.nan_to_num(X, nan=0.0)) if sparse else X
    ours = gbt.DMatrix(data, label=y, weight=w, feature_names=["a", "b", "c"])
    theirs = xgb.DMatrix(data, label=y, weight=w, feature_names=["a", "b", "c"])
    got, want = ours.get_data(), theirs.get_data()
    assert sp.isspmatrix_csr(got) and got.dtype == np.float32
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data, want.data)
    rows = [4, 0, 2]
    s, t = ours.slice(rows), theirs.slice(rows)
    np.testing.assert_array_equal(s.get_label(), t.get_label())
    np.testing.assert_array_equal(s.get_weight(), t.get_weight())
    assert s.feature_names == t.feature_names and s.num_col() == t.num_col() == 3
    np.testing.assert_array_equal(s.get_data().toarray(), t.get_data().toarray())


def test_slice_query_groups():
    X, y, _ = _data()
    d = gbt.DMatrix(X, label=y, group=[2, 3])
    with pytest.raises(ValueError, match="allow_groups"):
        d.slice([0, 1])
    assert list(d.slice([2, 3, 4], allow_groups=True).get_group()) == [3]


def test_feature_types_as_xgboost():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"i": [1, 2, 3], "f": [1.5, 2.0, 3.0], "b": [True, False, True],
                       "n": pd.array([1, None, 3], dtype="Int64"),
                       "c": pd.Series(["x", "y", "x"], dtype="category")})
    assert (gbt.DMatrix(df, enable_categorical=True).feature_types
            == xgb.DMatrix(df, enable_categorical=True).feature_types)
    X, y, _ = _data()
    assert gbt.DMatrix(X).feature_types is None is xgb.DMatrix(X).feature_types
    d = gbt.DMatrix(X, feature_types=["int", "q", "c"])
    assert d.feature_types == ["int", "q", "c"]


def test_feature_types_kept_in_the_model_as_xgboost(tmp_path):
    # XGBoost keeps each type's spelling in the model and through save_binary (test_feature_info)
    X, y, _ = _data()
    types = ["int", "float", "i"]
    path = str(tmp_path / "d.buffer")
    gbt.DMatrix(X, y, feature_types=types).save_binary(path)
    d = gbt.DMatrix(path)
    assert d.feature_types == types
    p = {"max_depth": 2, "nthread": 1}
    bst, ref = gbt.train(p, d, 2), xgb.train(p, xgb.DMatrix(X, y, feature_types=types), 2)
    assert bst.feature_types == ref.feature_types == types
    assert bst.get_dump() == gbt.train(p, gbt.DMatrix(X, y), 2).get_dump()  # numeric, as "q"
    for raw in ("gbt", "json", "ubj"):
        assert gbt.Booster(model_file=bst.save_raw(raw)).feature_types == types
    assert xgb.Booster(model_file=bst.save_raw("json")).feature_types == types
    assert gbt.Booster(model_file=ref.save_raw("ubj")).feature_types == types
    assert gbt.train(p, gbt.DMatrix(X, y), 2).feature_types is None


def test_booster_feature_name_and_type_setters(tmp_path):
    X, y, _ = _data()
    bst = gbt.train({"max_depth": 2, "nthread": 1}, gbt.DMatrix(X, y), 2)
    ref = xgb.train({"max_depth": 2, "nthread": 1}, xgb.DMatrix(X, y), 2)
    for b in (bst, ref):
        b.feature_names = ["x", "y", "z"]
        b.feature_types = ["q", "int", "float"]
    assert bst.feature_names == ref.feature_names == ["x", "y", "z"]
    bst.save_model(tmp_path / "m.json")
    assert gbt.Booster(model_file=tmp_path / "m.json").feature_names == ["x", "y", "z"]
    assert "[x<" in bst.get_dump()[0] or "[y<" in bst.get_dump()[0] or "[z<" in bst.get_dump()[0]
    for b in (bst, ref):
        b.feature_names = None
    assert bst.feature_names is None is ref.feature_names
    for b in (bst, ref):  # XGBoost takes names of the wrong length and fails when they are used
        b.feature_names = ["x", "y"]
        assert b.feature_names == ["x", "y"]
        with pytest.raises(ValueError):
            b.get_fscore()
        b.feature_names = None
        assert b.get_fscore()
    with pytest.raises(ValueError, match="2 names for a model of 3 features"):
        bst.set_feature_names(["x", "y"])  # gbt's setter checks at once
    with pytest.raises(ValueError, match="fixed by the model's splits"):
        bst.feature_types = ["c", "q", "q"]


def test_control_characters_in_feature_names_as_xgboost():
    # XGBoost takes them (test_special_model_dump_characters); every format escapes them
    X, y, _ = _data()
    names = ['"f 0"', "\tf\n1", "f\\2"]
    b = gbt.train({"max_depth": 2, "nthread": 1}, gbt.DMatrix(X, y, feature_names=names), 2)
    for fmt in ("gbt", "json", "ubj"):
        assert gbt.Booster(model_file=b.save_raw(fmt)).feature_names == names
    ref = xgb.Booster(model_file=b.save_raw("ubj"))
    assert ref.feature_names == names
    for fmt in ("text", "json", "dot"):  # the names escaped in the dumps as XGBoost escapes them
        seen = [{e for e in ('\\"f 0\\"', "\\tf\\n1", "f\\\\2") if e in "".join(m.get_dump(dump_format=fmt))}
                for m in (b, ref)]
        assert seen[0] == seen[1] and seen[0], (fmt, seen)
    with pytest.raises(ValueError, match="may not hold"):
        gbt.DMatrix(X, feature_names=["a", "b[", "c"])


def test_callback_names(tmp_path):
    assert gbt.callback.TrainingCallback.EvalsLog == xgb.callback.TrainingCallback.EvalsLog
    X, y, _ = _data()
    cp = gbt.callback.TrainingCheckPoint(directory=tmp_path, interval=1)
    gbt.train({"nthread": 1}, gbt.DMatrix(X, y), 2, callbacks=[cp])
    assert (tmp_path / f"model_1.{gbt.callback.TrainingCheckPoint.default_format}").exists()


def test_trees_to_dataframe_and_split_histogram_as_xgboost(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = X[:, 0] + 0.1 * rng.randn(60)
    bst = gbt.train({"max_depth": 2, "nthread": 1}, gbt.DMatrix(X, y), 2)
    # XGBoost's functions on the same trees: the gbt model exported to XGBoost's JSON and loaded there
    bst.save_model(tmp_path / "m.json", format="xgboost")
    ref = xgb.Booster(model_file=str(tmp_path / "m.json"))
    got, want = bst.trees_to_dataframe(), ref.trees_to_dataframe()
    assert list(got.columns) == list(want.columns) and len(got) == len(want)
    for col in ("Tree", "Node", "ID", "Feature", "Yes", "No", "Missing"):
        assert got[col].fillna("").astype(str).tolist() == want[col].fillna("").astype(str).tolist(), col
    for col in ("Split", "Gain", "Cover"):
        np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float), rtol=1e-6)
    for bins in (None, 1, 2, 5):
        np.testing.assert_allclose(bst.get_split_value_histogram("f0", bins=bins, as_pandas=False),
                                   ref.get_split_value_histogram("f0", bins=bins, as_pandas=False), rtol=1e-6)
    h = bst.get_split_value_histogram("not_there")
    assert isinstance(h, pd.DataFrame) and list(h.columns) == ["SplitValue", "Count"] and h.shape[0] == 0


@pytest.mark.filterwarnings("ignore:.*are not used")  # XGBoost on the other objectives' parameters
@pytest.mark.parametrize("objective", ["binary:logistic", "survival:aft", "multi:softprob", "reg:pseudohubererror"])
def test_save_config_as_xgboost_and_round_trip(objective):
    import json

    rng = np.random.RandomState(0)
    X = rng.rand(40, 2)
    y = (X[:, 0] > 0.5).astype(np.float32)
    params = {"objective": objective, "eta": 0.125, "subsample": 0.5, "max_depth": 3, "nthread": 2,
              "seed": 7, "aft_loss_distribution": "logistic", "huber_slope": 2}
    if objective.startswith("multi"):
        params["num_class"] = 2

    def data(lib):
        d = lib.DMatrix(X, y + (objective == "survival:aft"))
        if objective == "survival:aft":
            d.set_float_info("label_lower_bound", y + 1)
            d.set_float_info("label_upper_bound", y + 1)
        return d

    ours = gbt.train(params, data(gbt), 2)
    theirs = xgb.train(params, data(xgb), 2)
    got, want = json.loads(ours.save_config())["learner"], json.loads(theirs.save_config())["learner"]
    for section in ("generic_param", "learner_train_param"):
        for key in ("nthread", "seed", "objective", "booster"):
            if key in want[section]:
                assert got[section][key] == want[section][key], (section, key)
    tree_got, tree_want = got["gradient_booster"]["tree_train_param"], want["gradient_booster"]["tree_train_param"]
    assert set(tree_got) <= set(tree_want)  # XGBoost's names; each value as XGBoost's
    for key in ("eta", "learning_rate", "subsample", "max_depth", "lambda", "reg_alpha", "max_bin"):
        assert float(tree_got[key]) == pytest.approx(float(tree_want[key]), rel=1e-7)
    assert got["objective"].keys() == want["objective"].keys()
    for sec, vals in want["objective"].items():
        if isinstance(vals, dict):
            assert {k: float(v) if v[0].isdigit() else v for k, v in got["objective"][sec].items()} == \
                   {k: float(v) if v[0].isdigit() else v for k, v in vals.items()}
    assert [m["name"] for m in got["metrics"]] == [m["name"] for m in want["metrics"]]
    assert got["metrics"][0].keys() == want["metrics"][0].keys()
    if objective != "reg:pseudohubererror":  # (the two libraries' starting scores differ there)
        np.testing.assert_allclose(json.loads(got["learner_model_param"]["base_score"]),
                                   json.loads(want["learner_model_param"]["base_score"]), atol=0.02)
    for key in ("num_class", "num_feature", "num_target"):
        assert got["learner_model_param"][key] == want["learner_model_param"][key]
    # the round trip: a fresh booster given the text has the same parameters
    again = gbt.Booster()
    again.load_config(ours.save_config())
    for p in gbt.params_info():
        if p["name"] != "eval_metric":
            assert again.get_param(p["name"]) == ours.get_param(p["name"]), p["name"]
    assert again.eval_metric_names() == ours.eval_metric_names()
    # XGBoost's own text sets the parameters both have
    mine = gbt.Booster()
    mine.load_config(theirs.save_config())
    assert float(mine.get_param("eta")) == pytest.approx(0.125) and mine.get_param("max_depth") == "3"
    assert mine.get_param("objective") == objective


def test_xgboost_internal_parameters_accepted_typos_refused():
    import warnings

    X, y, _ = _data()
    d = gbt.DMatrix(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # XGBoost takes these silently; so does gbt
        a = gbt.train({"nthread": 1, "debug_synchronize": True, "sparse_threshold": 0.2,
                       "seed_per_iteration": 1, "boost_from_average": 1}, d, 2)
    assert bytes(a.save_raw("gbt")) == bytes(gbt.train({"nthread": 1}, d, 2).save_raw("gbt"))
    with pytest.warns(UserWarning, match=r'Parameters: \{ "max_dpeth" \} are not used.*max_depth'):
        b = gbt.train({"max_dpeth": 3}, d, 1)  # XGBoost's warning, and the name ignored
    assert bytes(b.save_raw("gbt")) == bytes(gbt.train({}, d, 1).save_raw("gbt"))


def test_private_helpers_xgboost_tests_import():
    """core.Integer, core._parse_eval_str and core._parse_version answer as
    XGBoost's own helpers of those names."""
    from xgboost import core as xc
    assert gbt.core.Integer == xc.Integer
    for ver in ("2.1.0", "2.1.0-dev", "2.1.0rc1", "2.1.0.post1", "3.2.0"):
        assert gbt.core._parse_version(ver) == xc._parse_version(ver)
    line = "[7]\ttrain-rmse:0.52\tvalid-ndcg@32:0.9125\tvalid-logloss:1e-05"
    assert gbt.core._parse_eval_str(line) == xc._parse_eval_str(line)
