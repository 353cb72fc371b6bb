#!/usr/bin/env python3
"""Times XGBoost, LightGBM or gbt's Python package on a workload written by
gen_workload.

    python3 bench/peers.py --lib xgboost|lightgbm|gbt-python --data DIR --params JSON
                           [--rounds N] [--threads N] [--device cpu|cuda]
                           [--train-rows N] [--predict] [--predict-rows N]
                           [--repeat N] [--latency-calls N]

The measurements match gbt_bench's: loading the raw files is not timed;
"construct_s" is building the library's training dataset from the arrays
in memory (XGBoost: QuantileDMatrix, which also bins; LightGBM:
Dataset(...).construct(), which also bins); "train_s" is the training call;
the test metric is computed here with numpy from the predictions on the
test set; with --predict, batch prediction of the training rows (best of
--repeat) and the median latency of single-row predictions.  --params holds
the library's own parameters, already mapped by run.py.  Prints one JSON
object on stdout.  Exits 3 with {"skipped": ...} when the library cannot be
imported.
"""
import argparse
import json
import os
import resource
import sys
import time

import numpy as np


def load_split(d, meta, split):
    n = meta["rows"] if split == "train" else meta["test_rows"]
    y = np.fromfile(os.path.join(d, "y_%s.f32" % split), dtype="<f4")
    if meta["sparse"]:
        import scipy.sparse
        ip = np.fromfile(os.path.join(d, "X_%s.indptr.u64" % split), dtype="<u8")
        ix = np.fromfile(os.path.join(d, "X_%s.indices.u32" % split), dtype="<u4")
        v = np.fromfile(os.path.join(d, "X_%s.values.f32" % split), dtype="<f4")
        # scipy wants signed index arrays
        X = scipy.sparse.csr_matrix((v, ix.astype(np.int32), ip.astype(np.int64)), shape=(n, meta["cols"]))
    else:
        X = np.fromfile(os.path.join(d, "X_%s.f32" % split), dtype="<f4").reshape(n, meta["cols"])
    if len(y) != n:
        raise SystemExit("%s: y_%s.f32 has %d rows, meta.json says %d" % (d, split, len(y), n))
    return X, y


def auc(y, p):
    """Area under the ROC curve; tied scores count one half."""
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    ranks = np.empty(len(p), dtype=np.float64)
    # average ranks over ties
    edges = np.flatnonzero(np.diff(ps)) + 1
    starts = np.concatenate(([0], edges))
    ends = np.concatenate((edges, [len(p)]))
    avg = (starts + ends + 1) / 2.0
    ranks[order] = np.repeat(avg, ends - starts)
    pos = y > 0.5
    npos, nneg = pos.sum(), len(y) - pos.sum()
    if npos == 0 or nneg == 0:
        return float("nan")
    return float((ranks[pos].sum() - npos * (npos + 1) / 2.0) / (npos * nneg))


def metric_value(metric, y, p):
    eps = 1e-15
    if metric == "auc":
        return auc(y, p)
    if metric == "rmse":
        return float(np.sqrt(np.mean((p - y) ** 2)))
    if metric == "mlogloss":
        p = p.reshape(len(y), -1)
        return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y.astype(int)], eps, 1 - eps))))
    if metric == "logloss":
        p = np.clip(p, eps, 1 - eps)
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    raise SystemExit("unknown metric " + metric)


def take_rows(X, n):
    return X[:n]


# Neither library needs scikit-learn or pandas for what is measured here, but
# both import them when they are installed: seconds of start-up and tens of
# MiB of peak memory that have nothing to do with training.  Hide them while
# the library is imported (and try again without hiding if that fails).
OPTIONAL_MODULES = ("sklearn", "pandas")


def import_quietly(name):
    import importlib
    hidden = [m for m in OPTIONAL_MODULES if m not in sys.modules]
    for m in hidden:
        sys.modules[m] = None
    try:
        return importlib.import_module(name)
    except ImportError:
        for m in hidden:
            sys.modules.pop(m, None)
        for m in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[m]
        return importlib.import_module(name)
    finally:
        for m in hidden:
            if sys.modules.get(m, 0) is None:
                del sys.modules[m]


class XGBoost:
    name = "xgboost"

    def __init__(self, params, threads):
        xgboost = import_quietly("xgboost")
        self.xgb = xgboost
        self.version = xgboost.__version__
        self.params = dict(params)
        self.threads = threads

    def construct(self, X, y):
        return self.xgb.QuantileDMatrix(X, label=y, max_bin=self.params.get("max_bin", 256),
                                        nthread=self.threads)

    def train(self, dtrain, rounds):
        self.booster = self.xgb.train(self.params, dtrain, num_boost_round=rounds)

    def predict(self, X):
        return self.booster.inplace_predict(X)

    def device(self):
        """The device XGBoost used: it falls back to the CPU, with a warning, when it sees no GPU."""
        try:
            cfg = json.loads(self.booster.save_config())
            return cfg["learner"]["generic_param"]["device"]
        except (AttributeError, KeyError, ValueError):
            return self.params.get("device", "cpu")


class GBTPython:
    """gbt through its Python package (bindings/python): the same library as
    the "gbt" row (gbt_bench, in C), so the difference is the wrapper's."""
    name = "gbt-python"

    def __init__(self, params, threads):
        gbt = import_quietly("gbt")
        self.gbt = gbt
        self.version = gbt.__version__
        self.params = dict(params)
        self.threads = threads

    def construct(self, X, y):
        return self.gbt.Dataset(X, label=y)

    def train(self, dtrain, rounds):
        self.booster = self.gbt.train(self.params, dtrain, num_boost_round=rounds, verbose_eval=False)

    def predict(self, X):
        return self.booster.predict(X)

    def device(self):
        return self.booster.attr("device") or "cpu"


class LightGBM:
    name = "lightgbm"

    def __init__(self, params, threads):
        lightgbm = import_quietly("lightgbm")
        self.lgb = lightgbm
        self.version = lightgbm.__version__
        self.params = dict(params)
        self.threads = threads

    def construct(self, X, y):
        ds = self.lgb.Dataset(X, label=y, params=self.params, free_raw_data=True)
        ds.construct()
        return ds

    def train(self, dtrain, rounds):
        self.booster = self.lgb.train(self.params, dtrain, num_boost_round=rounds)

    def predict(self, X):
        return self.booster.predict(X, num_threads=self.threads)

    def device(self):
        return self.params.get("device_type", "cpu")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, choices=["xgboost", "lightgbm", "gbt-python"])
    ap.add_argument("--data", required=True)
    ap.add_argument("--params", required=True, help="the library's parameters as a JSON object")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--train-rows", type=int, default=0)
    ap.add_argument("--metric")
    ap.add_argument("--predict", action="store_true")
    ap.add_argument("--predict-rows", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--latency-calls", type=int, default=2000)
    args = ap.parse_args()

    try:
        cls = {"xgboost": XGBoost, "lightgbm": LightGBM, "gbt-python": GBTPython}[args.lib]
        lib = cls(json.loads(args.params), args.threads)
    except ImportError as e:
        print(json.dumps({"library": args.lib, "skipped": "not importable: %s" % e}))
        return 3

    t0 = time.perf_counter()
    with open(os.path.join(args.data, "meta.json")) as f:
        meta = json.load(f)
    Xtr, ytr = load_split(args.data, meta, "train")
    Xte, yte = load_split(args.data, meta, "test")
    nrow = meta["rows"]
    train_rows = args.train_rows if 0 < args.train_rows < nrow else nrow
    Xfit, yfit = take_rows(Xtr, train_rows), ytr[:train_rows]
    load_s = time.perf_counter() - t0
    metric = args.metric or {"binary": "auc", "multiclass": "mlogloss"}.get(meta["task"], "rmse")

    t0 = time.perf_counter()
    dtrain = lib.construct(Xfit, yfit)
    construct_s = time.perf_counter() - t0

    want = str(lib.params.get("device", lib.params.get("device_type", "cpu")))
    t0 = time.perf_counter()
    try:
        lib.train(dtrain, args.rounds)
    except Exception as e:  # the library's own error type
        if want != "cpu" and ("not enabled" in str(e) or "recompile" in str(e).lower()):
            print(json.dumps({"library": args.lib, "version": lib.version,
                              "skipped": "no %s support in this build: %s" % (want, str(e).splitlines()[0])}))
            return 3
        raise
    train_s = time.perf_counter() - t0
    del dtrain
    if want != "cpu" and not lib.device().startswith(("cuda", "gpu")):
        print(json.dumps({"library": args.lib, "version": lib.version,
                          "skipped": "asked for device %s but trained on %s (no GPU visible)" % (want, lib.device())}))
        return 3

    t0 = time.perf_counter()
    value = metric_value(metric, yte, np.asarray(lib.predict(Xte), dtype=np.float64))
    eval_s = time.perf_counter() - t0

    out = {
        "library": lib.name, "version": lib.version, "device": lib.device(), "params": lib.params,
        "train_rows": train_rows, "test_rows": meta["test_rows"], "cols": meta["cols"],
        "rounds": args.rounds, "num_class": meta["num_class"], "sparse": meta["sparse"],
        "load_s": load_s, "construct_s": construct_s, "train_s": train_s,
        "ms_per_round": 1000.0 * train_s / args.rounds if args.rounds else None,
        "metric": metric, "metric_value": value, "eval_s": eval_s,
    }

    if args.predict:
        npred = args.predict_rows if 0 < args.predict_rows < nrow else nrow
        Xp = take_rows(Xtr, npred)
        best = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            lib.predict(Xp)
            t = time.perf_counter() - t0
            best = t if best is None or t < best else best
        out.update(predict_rows=npred, predict_s=best, predict_rows_per_s=npred / best)
        if not meta["sparse"] and args.latency_calls > 0:
            warm = min(20, args.latency_calls)
            lat = []
            for c in range(warm + args.latency_calls):
                row = (c * 7919) % npred
                x1 = Xp[row:row + 1]
                t0 = time.perf_counter()
                lib.predict(x1)
                t = time.perf_counter() - t0
                if c >= warm:
                    lat.append(t)
            lat.sort()
            out.update(latency_calls=args.latency_calls,
                       latency_us_median=1e6 * lat[len(lat) // 2],
                       latency_us_p99=1e6 * lat[min(len(lat) - 1, len(lat) * 99 // 100)])

    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
