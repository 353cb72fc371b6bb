"""XGBoost-style scripts (tests/xgb_demos/) run with `import xgboost as xgb`
and with only that line changed to `import gbt as xgb`; where the two
libraries' models should agree, the numbers each script leaves in RESULT
are compared."""
import contextlib
import io
import os
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DEMOS = os.path.join(HERE, "xgb_demos")
DATASETS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "datasets"))
IMPORT = "import xgboost as xgb\n"

# Scripts whose feature belongs to another issue: run, expected to fail with gbt.
PENDING: dict = {}

# Per script: RESULT key -> (rtol, atol) between XGBoost's and gbt's numbers.
# Absent keys are not compared (the scripts' own asserts still run on both).
AGREE = {
    "basic_walkthrough": {"error": (0, 0.02), "preds": (0, 0.05)},
    "sklearn_examples": {"iris_acc": (0, 0.1), "mse": (0.15, 0)},
    # random labels on 100 rows: the first rounds differ by a few rows, the end agrees
    "custom_softmax": {"native": (0, 0.08), "custom_last": (0, 0.03)},
    # reg:squaredlogerror: XGBoost starts from base_score 0.5, gbt from its estimate;
    # the curves differ at first and meet
    "custom_rmsle": {"rmse": (0.05, 0), "rmsle_last": (0.05, 0), "py_rmsle": (0.05, 0)},
    # 142 test rows: 0.03 is 4 rows that land on the other side of 0.5 (bin cuts differ)
    "evals_result": {"eval_logloss": (0.05, 0), "eval_error": (0, 0.03), "train_logloss": (0.05, 0)},
    "predict_first_ntree": {"ypred1": (0, 0.05), "ypred2": (0, 0.05)},
    "cross_validation": {"auc": (0, 0.03)},
    "boost_from_prediction": {"p": (0, 0.05)},
    "continuation": {"p_booster": (0, 0.05)},
    "sklearn_evals_result": {"v0": (0.03, 0), "v1": (0.03, 0)},
    "callbacks": {"valid_rmse": (0, 0.05)},
    # 1000 rows, 1000 distinct numeric values and 4 categories: the same cuts, the same
    # partition splits (max_cat_to_onehot=1), the same model (0.041484 both)
    "categorical": {"rmse": (1e-5, 0)},
}

SCRIPTS = sorted(f[:-3] for f in os.listdir(DEMOS) if f.endswith(".py"))


def _write_libsvm(src, dst):
    """The repository's breast-cancer CSV (label first) as zero-based LIBSVM."""
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            fields = line.strip().split(",")
            if not fields or not fields[0]:
                continue
            feats = " ".join(f"{i}:{v}" for i, v in enumerate(fields[1:]) if float(v) != 0)
            out.write(f"{fields[0]} {feats}\n")


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("xgb_demos")
    _write_libsvm(os.path.join(DATASETS, "breast_cancer.train.csv"), d / "demo.train.libsvm")
    _write_libsvm(os.path.join(DATASETS, "breast_cancer.test.csv"), d / "demo.test.libsvm")
    return d


def run_demo(name, lib, cwd):
    with open(os.path.join(DEMOS, name + ".py")) as f:
        source = f.read()
    assert source.count(IMPORT) == 1, f"{name}.py must import xgboost as xgb once"
    if lib == "gbt":
        source = source.replace(IMPORT, "import gbt as xgb\n")
    ns = {"__name__": "__main__", "__file__": name + ".py"}
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, f"{name}.py[{lib}]", "exec"), ns)
    finally:
        os.chdir(old)
    return ns["RESULT"]


_xgb_results = {}


@pytest.mark.parametrize("name", SCRIPTS)
def test_demo_xgboost(name, demo_dir):
    """The script itself is right: it runs under XGBoost."""
    pytest.importorskip("xgboost")
    pytest.importorskip("sklearn")
    _xgb_results[name] = run_demo(name, "xgboost", demo_dir)


@pytest.mark.parametrize("name", SCRIPTS)
def test_demo_gbt(name, demo_dir):
    """The same script with `import gbt as xgb` runs and agrees with XGBoost."""
    pytest.importorskip("sklearn")
    if name in PENDING:  # runs, so that it shows as XPASS once the feature lands
        try:
            run_demo(name, "gbt", demo_dir)
        except Exception as e:
            pytest.xfail(f"{PENDING[name]}: {type(e).__name__}: {e}")
        return
    got = run_demo(name, "gbt", demo_dir)
    want = _xgb_results.get(name)
    if want is None:
        return
    for key, (rtol, atol) in AGREE.get(name, {}).items():
        np.testing.assert_allclose(np.asarray(got[key], dtype=float), np.asarray(want[key], dtype=float),
                                   rtol=rtol, atol=atol, err_msg=f"{name}: {key}")
