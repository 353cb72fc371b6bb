import copy
import pickle

import numpy as np
import pandas as pd
import pytest

import gbt

PARAMS = {"objective": "binary:logistic", "max_depth": 3}


@pytest.fixture(scope="module")
def trained(breast_cancer):
    X, y, _ = breast_cancer
    return gbt.train(PARAMS, gbt.Dataset(X, label=y), 10), X, y


def test_save_load_round_trip(trained, tmp_path):
    b, X, _ = trained
    b.save_model(tmp_path / "m.json")
    b2 = gbt.Booster(model_file=tmp_path / "m.json")
    assert b2.save_raw("gbt") == b.save_raw("gbt")
    np.testing.assert_array_equal(b2.predict(X), b.predict(X))
    b3 = gbt.Booster()
    b3.load_model(bytes(b.save_raw("gbt")))
    np.testing.assert_array_equal(b3.predict(X), b.predict(X))
    assert b3.num_boosted_rounds() == 10 and b3.num_features() == 30


def test_pickle_and_copy(trained):
    b, X, _ = trained
    b.set_param("nthread", 1)
    for b2 in (pickle.loads(pickle.dumps(b)), copy.copy(b), copy.deepcopy(b), b.copy()):
        assert b2 is not b and b2.save_raw("gbt") == b.save_raw("gbt")
        assert b2.get_param("nthread") == "1"
        np.testing.assert_array_equal(b2.predict(X), b.predict(X))
    b.set_param("nthread", 0)
    assert pickle.loads(pickle.dumps(gbt.Booster())).num_boosted_rounds() == 0


def test_predict_inputs_agree(trained):
    b, X, _ = trained
    p = b.predict(X)
    assert p.dtype == np.float32 and p.shape == (len(X),)
    np.testing.assert_array_equal(b.predict(gbt.Dataset(X)), p)
    np.testing.assert_array_equal(b.predict(X.astype(np.float64)), p)
    np.testing.assert_array_equal(b.predict(np.asfortranarray(X)), p)
    np.testing.assert_array_equal(b.predict(X.tolist()), p)
    m = b.predict(X, output_margin=True)
    np.testing.assert_allclose(1 / (1 + np.exp(-m.astype(np.float64))), p, rtol=1e-6)


def test_eval_metrics_are_numbers_matching_scikit_learn(trained, breast_cancer_test):
    from sklearn.metrics import log_loss, roc_auc_score
    b, _, _ = trained
    Xt, yt, _ = breast_cancer_test
    d = gbt.Dataset(Xt, label=yt)
    vals = b.eval_metrics(d, ["auc", "logloss", "error"])
    p = b.predict(Xt).astype(np.float64)
    assert vals["auc"] == pytest.approx(roc_auc_score(yt, p), abs=1e-9)
    assert vals["logloss"] == pytest.approx(log_loss(yt, p), rel=1e-6)
    assert vals["error"] == pytest.approx(np.mean((p > 0.5) != yt), abs=1e-12)
    assert b.eval(d, "test").startswith("[0]\ttest-logloss:")


def test_params_and_attributes():
    b = gbt.Booster({"eta": 0.1, "max_depth": 3, "eval_metric": ["auc", "logloss"]})
    assert b.get_param("eta") == "0.1" and b.get_param("learning_rate") == "0.1"
    assert b.eval_metric_names() == ["auc", "logloss"]
    b.set_param("eval_metric", "rmse")  # XGBoost's set_param adds a metric (test_eval_metrics)
    b.set_param("eval_metric", ["auc", "mae"])
    assert b.eval_metric_names() == ["auc", "logloss", "rmse", "mae"]
    b.set_param([("eval_metric", ""), ("eval_metric", "rmse")])  # gbt's "" empties the list first
    assert b.eval_metric_names() == ["rmse"]
    X = np.arange(20, dtype=np.float32).reshape(10, 2)
    t = gbt.train({"objective": "binary:logistic"}, gbt.DMatrix(X, np.arange(10) % 2), 1)
    t.set_param("eval_metric", "auc")  # after train the default stays, as XGBoost's (check_precision_score)
    assert t.eval_metric_names() == ["logloss", "auc"]
    assert b.attr("best_iteration") is None and not hasattr(b, "best_iteration")  # XGBoost's AttributeError
    with pytest.warns(UserWarning, match=r'Parameters: \{ "etaa" \} are not used.*did you mean .eta.'):
        b.set_param("etaa", 0.1)  # XGBoost's warning; the C API refuses the name
    with pytest.raises(gbt.ParamError) as e:
        b.set_param("max_depth", -1)
    assert isinstance(e.value, ValueError) and e.value.status == 5
    with pytest.raises(gbt.StateError, match="no model"):
        b.predict(np.zeros((2, 3), np.float32))


def test_dataset_fields_and_errors(breast_cancer):
    X, y, _ = breast_cancer
    d = gbt.Dataset(X, label=y, weight=np.ones(len(y)), base_margin=np.zeros(len(y)))
    np.testing.assert_array_equal(d.get_label(), y)
    np.testing.assert_array_equal(d.get_weight(), np.ones(len(y), np.float32))
    assert d.num_row() == 427 and d.num_col() == 30
    with pytest.raises(ValueError, match="label has 3 values but the data has 427 rows"):
        d.set_label([0, 1, 0])
    with pytest.raises(ValueError, match="2-dimensional"):
        gbt.Dataset(np.zeros(5))
    with pytest.raises(ValueError, match="must be numeric"):
        gbt.Dataset(np.array([["a", "b"]]))
    with pytest.raises(gbt.FormatError):
        gbt.Dataset(np.array([[1.0, np.inf]]))
    with pytest.raises(gbt.GBTIOError, match="no_such_file"):
        gbt.Dataset("no_such_file.csv")
    with pytest.raises(ValueError, match="Weight contains NaN"):
        d.set_weight(np.full(len(y), np.nan))


def test_pandas_columns(breast_cancer):
    X, y, _ = breast_cancer
    df = pd.DataFrame(X[:, :3], columns=["a", "b", "c"])
    d = gbt.Dataset(df, label=y)
    assert d.feature_names == ["a", "b", "c"]
    df2 = df.assign(city=["x"] * len(df), when=pd.Timestamp("2020-01-01"))
    with pytest.raises(ValueError, match=r"not numeric: 'city' \((object|str)\), 'when'"):
        gbt.Dataset(df2, label=y)
    nullable = df.astype({"a": "Float64"}).assign(flag=[True, False] * (len(df) // 2) + [True])
    nullable.loc[0, "a"] = pd.NA
    d3 = gbt.Dataset(nullable, label=y)
    assert d3.num_col() == 4
    b = gbt.train(PARAMS, d, 3)
    with pytest.raises(ValueError, match="missing from the data: c"):
        b.predict(df.rename(columns={"c": "z"}))
    np.testing.assert_array_equal(b.predict(df), b.predict(X[:, :3]))


def test_groups_and_qid():
    X = np.random.RandomState(0).rand(10, 2)
    d = gbt.Dataset(X, qid=[1, 1, 1, 5, 5, 2, 2, 2, 2, 9])
    with pytest.raises(ValueError, match="consecutive"):
        d.set_qid([1, 2, 1, 2, 1, 2, 1, 2, 1, 2])
    with pytest.raises(ValueError, match="sum to 9 but the data has 10 rows"):
        d.set_group([4, 5])
    d.set_group([4, 6])


def test_device_cuda_without_a_gpu_is_the_library_error(breast_cancer):
    if gbt.device_count() > 0:
        pytest.skip("this machine has a CUDA device")
    X, y, _ = breast_cancer
    with pytest.raises(gbt.NoDeviceError) as e:
        gbt.train({"device": "cuda"}, gbt.Dataset(X, label=y), 1)
    assert "cuda" in str(e.value).lower()
    b = gbt.train({"device": "auto"}, gbt.Dataset(X, label=y), 1)
    assert b.attr("device") == "cpu"


def test_continued_training_gives_the_uninterrupted_model(breast_cancer):
    X, y, _ = breast_cancer
    d = gbt.Dataset(X, label=y)
    whole = gbt.train(PARAMS, d, 8)
    first = gbt.train(PARAMS, d, 3)
    again = gbt.train(PARAMS, d, 5, xgb_model=first)
    assert first.num_boosted_rounds() == 3  # the original is left as it was
    assert again.save_raw("gbt") == whole.save_raw("gbt")
    from_bytes = gbt.train(PARAMS, d, 5, xgb_model=bytes(first.save_raw("gbt")))
    assert from_bytes.save_raw("gbt") == whole.save_raw("gbt")


def test_a_model_of_0_rounds_has_empty_dumps(tmp_path):
    # issue 38, finding 6: a 0-round model (gbtrain --num_round=0, written
    # here by hand) dumped "out of memory writing the dump"
    text = ('{"format": "gbt-model", "format_version": 1, "gbt_version": "0.1.0", '
            '"objective": "reg:squarederror", "num_class": 0, "num_feature": 2, '
            '"base_margin": [0.5], "training": {}, "trees": []}')
    b = gbt.Booster()
    b.load_model(bytearray(text.encode()))
    assert b.num_boosted_rounds() == 0
    assert b.get_dump() == [] and b.get_dump(dump_format="json") == []
    b.dump_model(tmp_path / "d.txt")
    assert (tmp_path / "d.txt").read_text() == ""
    b.dump_model(tmp_path / "d.json", dump_format="json")
    assert (tmp_path / "d.json").read_text().split() == ["[", "]"]
    assert b.get_score(importance_type="total_gain") == {}
    np.testing.assert_array_equal(b.predict(np.zeros((3, 2), dtype=np.float32)), [0.5, 0.5, 0.5])


def test_training_0_rounds_gives_a_model_of_no_trees():
    # as gbtrain --num_round=0 and xgboost.train(..., 0): the starting score
    # (here the labels' mean, 0.25), empty dumps; before, "the booster has no model"
    X = np.array([[0.5, 1], [0.2, 3], [0.9, 2], [0.1, 5]], dtype=np.float32)
    b = gbt.train({}, gbt.Dataset(X, label=np.array([1.0, 0, 0, 0])), num_boost_round=0)
    assert b.num_boosted_rounds() == 0 and b.get_dump() == []
    np.testing.assert_allclose(b.predict(X), [0.25] * 4)
