import glob
import os
import subprocess
import sys

import pytest

import gbt

HERE = os.path.dirname(os.path.abspath(__file__))


def test_plot_metric(breast_cancer, breast_cancer_test):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    X, y, _ = breast_cancer
    Xt, yt, _ = breast_cancer_test
    res = {}
    gbt.train({"objective": "binary:logistic", "eval_metric": ["logloss", "auc"]}, gbt.Dataset(X, label=y), 8,
              evals=[(gbt.Dataset(X, label=y), "train"), (gbt.Dataset(Xt, label=yt), "test")],
              evals_result=res, verbose_eval=False)
    ax = gbt.plot_metric(res, metric="auc")
    assert [l.get_label() for l in ax.get_lines()] == ["train", "test"]
    assert list(ax.get_lines()[1].get_ydata()) == res["test"]["auc"]
    assert ax.get_ylabel() == "auc"
    with pytest.raises(ValueError, match="no metric 'rmse'"):
        gbt.plot_metric(res, metric="rmse")


@pytest.mark.parametrize("script", sorted(glob.glob(os.path.join(HERE, "..", "examples", "*.py"))),
                         ids=os.path.basename)
def test_example_runs_end_to_end(script, tmp_path):
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gbt.__file__)))
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(filter(None, [pkg, os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, script], cwd=tmp_path, capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("accuracy" if script.endswith("quickstart.py") else "dtest-") in r.stdout


def test_readme_python_quick_start_runs_as_written(tmp_path):
    """README.md's Python block, run as a user would paste it."""
    readme = os.path.join(HERE, "..", "..", "..", "README.md")
    with open(readme) as f:
        text = f.read()
    blocks = text.split("```python\n")[1:]
    assert blocks, "README.md has no Python block"
    code = blocks[0].split("\n```")[0]
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gbt.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [pkg, os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    acc = float(r.stdout.split("accuracy", 1)[1].split()[0])
    assert acc > 0.9
    assert "best round" in r.stdout and (tmp_path / "breast_cancer.json").exists()
