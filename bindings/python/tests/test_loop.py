"""gbt.train on the library's loop: every objective gives gbtrain's model
byte for byte (with a validation set and early stopping), the default
metrics are the library's (that a round's evaluation costs only its new
trees is timed by bench/eval_cost.py)."""
import json

import numpy as np
import pytest

import gbt
from conftest import read_model, run_gbtrain


def _objectives():
    info = {p["name"]: p for p in gbt.params_info()}
    return info["objective"]["type"].split("|")


def _f32(a):
    """Values that read back the same from text: 4 significant digits, parsed to float32."""
    return np.array([f"{v:.4g}" for v in np.ravel(a)], dtype=np.float32).reshape(np.shape(a))


def _task(objective, n, seed):
    """Features, labels and side fields for one objective."""
    rng = np.random.default_rng(seed)
    X = _f32(rng.normal(size=(n, 5)))
    z = X[:, 0] + 0.5 * X[:, 1] - X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=n)
    side, params = {}, {}
    if objective.startswith(("binary:", "reg:logistic")):
        y = (z > 0).astype(np.float32)
    elif objective.startswith("multi:"):
        y = np.digitize(z, [-0.7, 0.7]).astype(np.float32)
        params["num_class"] = 3
    elif objective in ("count:poisson", "reg:tweedie"):
        y = np.floor(np.exp(0.5 * z)).astype(np.float32)
    elif objective in ("reg:gamma", "reg:squaredlogerror"):
        y = _f32(np.exp(0.5 * z))
    elif objective == "survival:cox":
        t = _f32(np.exp(0.5 * z) + 0.01)
        y = np.where(rng.random(n) < 0.3, -t, t).astype(np.float32)
    elif objective == "survival:aft":
        lo = _f32(np.exp(0.5 * z) + 0.01)
        hi = np.where(rng.random(n) < 0.3, np.inf, lo).astype(np.float32)
        y = lo
        side["lower"], side["upper"] = lo, hi
    elif objective.startswith("rank:"):
        y = np.digitize(z, [0] if objective == "rank:map" else [-1, 0, 1]).astype(np.float32)
        side["group"] = np.full(n // 10, 10, dtype=np.uint32)
    else:
        y = _f32(z)
    if objective == "reg:quantileerror":
        params["quantile_alpha"] = "0.3,0.7"
    return X, y, side, params


def _write(path, X, y, side):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(",".join(f"{v:.4g}" for v in [label, *row]) + "\n")
    for key, values in side.items():
        with open(f"{path}.{key}", "w") as f:
            f.write("".join(("inf" if np.isinf(v) else f"{v:.4g}") + "\n" for v in values)
                    if key != "group" else "".join(f"{v}\n" for v in values))


def _dataset(X, y, side):
    d = gbt.Dataset(X, label=y, label_lower_bound=side.get("lower"), label_upper_bound=side.get("upper"))
    if "group" in side:
        d.set_group(side["group"])
    return d


STOPPED = set()
COMPARED = set()  # the objectives whose comparison ran and passed


@pytest.mark.parametrize("objective", _objectives())
def test_every_objective_matches_gbtrain(gbtrain, tmp_path, objective):
    X, y, side, extra = _task(objective, 300, 1)
    Xv, yv, sidev, _ = _task(objective, 100, 2)
    _write(tmp_path / "train.csv", X, y, side)
    _write(tmp_path / "valid.csv", Xv, yv, sidev)
    params = {"objective": objective, "max_depth": 3, "eta": 0.5, "subsample": 0.9, "seed": 5,
              "early_stopping_rounds": 3, **extra}
    run_gbtrain(gbtrain, [f"--{k}={v}" for k, v in params.items()] +
                ["--num_round=40", "--valid=valid.csv", "train.csv", "cli.json"], tmp_path)
    history = {}
    pyparams = dict(params)
    esr = pyparams.pop("early_stopping_rounds")
    b = gbt.train(pyparams, _dataset(X, y, side), 40, evals=[(_dataset(Xv, yv, sidev), "valid")],
                  early_stopping_rounds=esr, evals_result=history, verbose_eval=False)
    cli = read_model(tmp_path / "cli.json")
    assert bytes(b.save_raw("gbt")) == cli
    # the metric is the library's default for the objective, the one the model file names
    names = list(history["valid"])
    assert names == b.eval_metric_names() and len(names) == 1
    m = json.loads(cli)
    # early stopping records its best round whether it stopped or not; every round stays
    assert len(history["valid"][names[0]]) == b.num_boosted_rounds()
    STOPPED.add(objective) if b.num_boosted_rounds() < 40 else None
    assert b.best_iteration == m["best_iteration"]
    assert history["valid"][names[0]][b.best_iteration] == pytest.approx(m["best_score"], rel=1e-12)
    COMPARED.add(objective)


def test_some_objectives_stopped_early(gbtrain):
    # the comparison above covered early stopping too (it runs first, in file order)
    if len(COMPARED) < len(_objectives()):
        pytest.skip(f"the comparison ran for {len(COMPARED)} of {len(_objectives())} objectives "
                    "(selected alone, or a comparison failed): what stopped early is not known")
    assert len(STOPPED) >= 3, STOPPED


@pytest.mark.parametrize("objective,metric", [
    ("rank:ndcg", "ndcg@32"), ("rank:pairwise", "ndcg@32"), ("rank:map", "map@32"),
    ("survival:cox", "cox-nloglik"), ("survival:aft", "aft-nloglik"), ("binary:logitraw", "auc"),
    ("reg:squarederror", "rmse"), ("multi:softprob", "mlogloss"),
])
def test_default_metrics(objective, metric):
    # XGBoost's defaults for these objectives (its documentation's eval_metric entry)
    b = gbt.Booster({"objective": objective, "num_class": 3} if objective.startswith("multi")
                    else {"objective": objective})
    assert b.eval_metric_names() == [metric]


def test_train_equals_the_c_loop_with_two_sets(breast_cancer, breast_cancer_test):
    # gbt_booster_train (bound directly) and gbt.train: same model, same early stop
    import ctypes
    from gbt._lib import LIB, check
    X, y, _ = breast_cancer
    Xt, yt, _ = breast_cancer_test
    params = {"objective": "binary:logistic", "eval_metric": ["auc", "logloss"], "eta": 0.8,
              "early_stopping_rounds": 4, "max_depth": 4, "verbosity": 0}
    d, v1, v2 = gbt.Dataset(X, label=y), gbt.Dataset(Xt, label=yt), gbt.Dataset(X[:200], label=y[:200])
    a = gbt.Booster(params)
    sets = (ctypes.c_void_p * 2)(v2._handle.value, v1._handle.value)
    check(LIB.gbt_booster_train(a._handle, d._handle, 100, sets, None, 2))
    p = dict(params)
    esr = p.pop("early_stopping_rounds")
    b = gbt.train(p, d, 100, evals=[(v2, "a"), (v1, "b")], early_stopping_rounds=esr, verbose_eval=False)
    assert a.best_iteration == b.best_iteration
    assert bytes(a.save_raw("gbt")) == bytes(b.save_raw("gbt"))


def test_early_stop_keeps_names_intact(tmp_path):
    # The early stop is recorded by the library (gbt_booster_set_best), not by
    # editing the model's text: a feature named best_iteration keeps its name.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2)).astype(np.float32)
    y = X[:, 0] + rng.normal(size=200)
    d = gbt.Dataset(X, label=y, feature_names=["best_iteration", "best_score"])
    v = gbt.Dataset(X[:50], label=y[:50] + 5 * rng.normal(size=50),
                    feature_names=["best_iteration", "best_score"])
    b = gbt.train({"eta": 1.0}, d, 50, evals=[(v, "v")], early_stopping_rounds=2, verbose_eval=False)
    m = json.loads(bytes(b.save_raw("gbt")))
    assert b.feature_names == ["best_iteration", "best_score"]
    assert m["best_iteration"] == b.best_iteration and b.num_boosted_rounds() == b.best_iteration + 2 + 1
