"""Every kind of input gives the model gbtrain makes from the same data: the
same model file, byte for byte."""
import os

import numpy as np
import pytest
import scipy.sparse as sp

import gbt
from conftest import DATASETS, load_csv, read_model, run_gbtrain

PARAMS = {"objective": "binary:logistic", "max_depth": 4, "eta": 0.3}
CLI = ["--objective=binary:logistic", "--max_depth=4", "--eta=0.3", "--num_round=15"]


def read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def cli_model(gbtrain, tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    run_gbtrain(gbtrain, CLI + [os.path.join(DATASETS, "breast_cancer.train.csv"), "m.json"], d)
    return read_model(d / "m.json")


@pytest.fixture(scope="module")
def cli_model_named(gbtrain, tmp_path_factory):
    """gbtrain's model of the same CSV with a header naming the features
    f0..f29: a model trained on named data (a DataFrame) stores the names."""
    d = tmp_path_factory.mktemp("cli_named")
    with open(os.path.join(DATASETS, "breast_cancer.train.csv")) as f:
        body = f.read()
    ncol = len(body.split("\n", 1)[0].split(","))
    with open(d / "named.csv", "w") as f:
        f.write(",".join(["label"] + [f"f{i}" for i in range(ncol - 1)]) + "\n" + body)
    run_gbtrain(gbtrain, CLI + ["--header", "named.csv", "m.json"], d)
    return read_model(d / "m.json")


def full_csr(X):
    """CSR with every entry stored (zeros too): the same values as the dense matrix."""
    n, m = X.shape
    return sp.csr_matrix((X.reshape(-1), np.tile(np.arange(m), n), np.arange(0, n * m + 1, m)),
                         shape=X.shape)


KINDS = {
    "numpy-f32-C": lambda X: np.ascontiguousarray(X, dtype=np.float32),
    "numpy-f32-F": lambda X: np.asfortranarray(X, dtype=np.float32),
    "numpy-f64-C": lambda X: np.ascontiguousarray(X, dtype=np.float64),
    "numpy-f64-F": lambda X: np.asfortranarray(X, dtype=np.float64),
    "numpy-f32-strided": lambda X: np.repeat(X, 2, axis=1)[:, ::2],
    "pandas": lambda X: __import__("pandas").DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]),
    "scipy-csr": full_csr,
    "scipy-csc": lambda X: full_csr(X).tocsc(),
    "list": lambda X: X.tolist(),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_input_kind_gives_the_cli_model(kind, breast_cancer, cli_model, cli_model_named, tmp_path):
    X, y, _ = breast_cancer
    data = KINDS[kind](X)
    b = gbt.train(PARAMS, gbt.Dataset(data, label=y), 15, verbose_eval=False)
    b.save_model(tmp_path / "py.json")
    got = read_model(tmp_path / "py.json")
    if kind == "pandas":  # and its column types, as XGBoost's model keeps them ("float": numeric, as "q")
        line = b'  "feature_types": [' + b", ".join([b'"float"'] * X.shape[1]) + b"],\n"
        assert line in got
        got = got.replace(line, b"")
    # A DataFrame's column names are stored in the model, as gbtrain --header stores a CSV's.
    assert got == (cli_model_named if kind == "pandas" else cli_model)
    if kind == "pandas":
        assert b.feature_names is None  # f0, f1...: the library's own names for unnamed ones
        assert b'"feature_names"' in cli_model_named and b'"feature_names"' not in cli_model


def test_file_through_the_c_reader_gives_the_cli_model(cli_model, tmp_path):
    d = gbt.Dataset(os.path.join(DATASETS, "breast_cancer.train.csv"))
    b = gbt.train(PARAMS, d, 15)
    raw = bytes(b.save_raw("gbt"))
    assert b'"training_file": {"format": "csv", "delimiter": ",", "header": 0, "label_column": 0}' in raw
    assert b"".join(l for l in raw.splitlines(keepends=True) if b'"training_file"' not in l) == cli_model
    assert d.shape == (427, 30)


def test_float32_c_order_is_not_copied_in_python(breast_cancer, monkeypatch):
    import gbt.core as core
    X, y, _ = breast_cancer
    X = np.ascontiguousarray(X)
    seen = []
    real = core.LIB.gbt_dataset_from_dense

    class Spy:
        def __call__(self, ptr, *a):
            seen.append(ptr.value)
            return real(ptr, *a)
    monkeypatch.setattr(core, "LIB", type("L", (), {"__getattr__": lambda s, n: getattr(real_lib, n),
                                                     "gbt_dataset_from_dense": Spy()})())
    real_lib = gbt._lib.LIB
    gbt.Dataset(X, label=y)
    assert seen == [X.ctypes.data]


def test_weights_match_the_cli_side_file(gbtrain, breast_cancer, tmp_path):
    X, y, path = breast_cancer
    w = (np.arange(len(y)) % 3 + 0.5).astype(np.float32)
    train = tmp_path / "train.csv"
    train.write_bytes(read(path))
    (tmp_path / "train.csv.weight").write_text("".join(f"{v!r}\n" for v in w.tolist()))
    run_gbtrain(gbtrain, CLI + ["train.csv", "m.json"], tmp_path)
    b = gbt.train(PARAMS, gbt.Dataset(X, label=y, weight=w), 15)
    assert bytes(b.save_raw("gbt")) == read_model(tmp_path / "m.json")


def test_multiclass_matches_the_cli(gbtrain, tmp_path):
    X, y, path = load_csv("digits.train.csv")
    run_gbtrain(gbtrain, ["--objective=multi:softprob", "--num_class=10", "--num_round=5",
                          "--max_depth=3", path, "m.json"], tmp_path)
    b = gbt.train({"objective": "multi:softprob", "num_class": 10, "max_depth": 3},
                  gbt.Dataset(X, label=y), 5)
    assert bytes(b.save_raw("gbt")) == read_model(tmp_path / "m.json")
    p = b.predict(X[:7])
    assert p.shape == (7, 10)
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=1e-5)


def test_early_stopping_matches_the_cli(gbtrain, tmp_path):
    X, y, path = load_csv("diabetes.train.csv")
    Xv, yv, vpath = load_csv("diabetes.test.csv")
    run_gbtrain(gbtrain, ["--num_round=200", "--eta=0.3", "--max_depth=4", "--valid", vpath,
                          "--eval_metric=mae", "--eval_metric=rmse", "--early_stopping_rounds=5",
                          path, "m.json"], tmp_path)
    res = {}
    b = gbt.train({"eta": 0.3, "max_depth": 4, "eval_metric": ["mae", "rmse"]},
                  gbt.Dataset(X, label=y), 200, evals=[(gbt.Dataset(Xv, label=yv), "valid")],
                  early_stopping_rounds=5, evals_result=res, verbose_eval=False)
    cli = read_model(tmp_path / "m.json")
    assert b"best_iteration" in cli
    assert bytes(b.save_raw("gbt")) == cli
    # independent of the library: the best round is the argmin of the recorded rmse
    rmse = res["valid"]["rmse"]
    assert b.best_iteration == int(np.argmin(rmse))
    assert len(rmse) == b.best_iteration + 5 + 1
    assert b.num_boosted_rounds() == b.best_iteration + 5 + 1  # every round stays, as in XGBoost 3.2
    # ... and the score is the rmse of the best round's predictions
    pred = b.predict(Xv, iteration_range=(0, b.best_iteration + 1)).astype(np.float64)
    assert b.best_score == pytest.approx(np.sqrt(np.mean((pred - yv) ** 2)), rel=1e-6)


def test_sparse_with_absent_entries_matches_a_libsvm_file(gbtrain, tmp_path):
    rng = np.random.RandomState(3)
    X = rng.rand(300, 8).astype(np.float32)
    X[rng.rand(300, 8) < 0.4] = 0
    y = (X[:, 0] + X[:, 1] > 0.6).astype(np.float32)
    csr = sp.csr_matrix(X)  # zeros are absent: missing
    lines = []
    for i in range(X.shape[0]):
        row = csr[i]
        lines.append(f"{int(y[i])} " + " ".join(f"{j}:{v!r}" for j, v in zip(row.indices, row.data.tolist())))
    (tmp_path / "t.libsvm").write_text("\n".join(lines) + "\n")
    run_gbtrain(gbtrain, ["--objective=binary:logistic", "--num_round=8", "--indexing_mode=0",
                          "t.libsvm", "m.json"], tmp_path)
    b = gbt.train({"objective": "binary:logistic"}, gbt.Dataset(csr, label=y), 8)
    cli = read_model(tmp_path / "m.json").decode().splitlines()
    # the CLI's model records the base of its LIBSVM file; nothing else differs
    cli = [l for l in cli if '"libsvm_index_base"' not in l]
    assert bytes(b.save_raw("gbt")).decode().splitlines() == cli
    # and a CSC copy of the same matrix gives the same model
    b2 = gbt.train({"objective": "binary:logistic"}, gbt.Dataset(csr.tocsc(), label=y), 8)
    assert b2.save_raw("gbt") == b.save_raw("gbt")


def test_missing_value_is_the_same_as_nan(breast_cancer):
    X, y, _ = breast_cancer
    Xn = X.copy()
    Xn[::7, 3] = np.nan
    Xm = X.copy()
    Xm[::7, 3] = -999
    a = gbt.train(PARAMS, gbt.Dataset(Xn, label=y), 5)
    b = gbt.train(PARAMS, gbt.Dataset(Xm, label=y, missing=-999), 5)
    assert a.save_raw("gbt") == b.save_raw("gbt")
    np.testing.assert_array_equal(a.predict(Xn), b.predict(Xm, missing=-999))
    c = gbt.train(PARAMS, gbt.Dataset(full_csr(Xm), label=y, missing=-999), 5)
    assert c.save_raw("gbt") == a.save_raw("gbt")


def test_quantiles_with_early_stopping_match_the_cli(gbtrain, tmp_path):
    """Two trees a round (one per quantile): early stopping keeps whole rounds."""
    X, y, path = load_csv("diabetes.train.csv")
    Xv, yv, vpath = load_csv("diabetes.test.csv")
    run_gbtrain(gbtrain, ["--objective=reg:quantileerror", "--quantile_alpha=0.1,0.9", "--num_round=100",
                          "--max_depth=3", "--valid", vpath, "--early_stopping_rounds=3", path, "m.json"],
                tmp_path)
    b = gbt.train({"objective": "reg:quantileerror", "quantile_alpha": [0.1, 0.9], "max_depth": 3},
                  gbt.Dataset(X, label=y), 100, evals=[(gbt.Dataset(Xv, label=yv), "valid")],
                  early_stopping_rounds=3, verbose_eval=False)
    cli = read_model(tmp_path / "m.json")
    assert b"best_iteration" in cli
    assert bytes(b.save_raw("gbt")) == cli
    p = b.predict(Xv)
    assert p.shape == (len(yv), 2) and np.mean(p[:, 0] <= p[:, 1]) > 0.9
    reg = gbt.GBTRegressor(objective="reg:quantileerror", quantile_alpha=[0.1, 0.9], max_depth=3,
                           n_estimators=10).fit(X, y)
    assert reg.predict(Xv).shape == (len(yv), 2)


def test_series_and_refused_arrays():
    """As XGBoost 3.2 (checked there): a pandas Series is one column named after
    it ("0" unnamed); bytes, str and arrays not 2-D are ValueErrors; repeated
    feature names are named in XGBoost's words."""
    pd = pytest.importorskip("pandas")
    d = gbt.DMatrix(pd.Series([1.0, 2.0, 3.0, 4.0], name="a"), label=[0, 1, 0, 1])
    assert (d.num_row(), d.num_col(), d.feature_names) == (4, 1, ["a"])
    assert gbt.DMatrix(pd.Series([1.0, 2.0])).feature_names == ["0"]
    for bad in (np.array([[b"1", b"2"]]), np.array([["1", "2"]]), np.array(1.0), np.ones(3), np.ones((2, 2, 2))):
        with pytest.raises(ValueError):
            gbt.DMatrix(bad)
    d = gbt.DMatrix(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"Duplicates found: \['b'\]"):
        d.feature_names = ["b", "a", "b"]
