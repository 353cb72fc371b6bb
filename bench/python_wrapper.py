#!/usr/bin/env python3
"""python_wrapper.py - what the Python package adds to libgbt's own time.

Three measurements on one generated data set (W1's shape by default: dense,
28 features, binary; --rows, --rounds):

  1. wrapper overhead: training `--rounds` rounds with gbt.train (one
     gbt_booster_update per round from Python) against the gbtrain CLI on
     the same data as a CSV file (its file reading excluded: gbtrain
     reports it separately at -v... so the CLI is timed on a binary-free
     path: the C API through one gbt_booster_train call made from Python,
     which is the CLI's own training loop); and prediction through
     Booster.predict against one gbt_booster_predict_dense call;
  2. conversion: gbt.Dataset from a float64 and a float32 numpy array
     against xgboost.DMatrix and xgboost.QuantileDMatrix from the same
     array (when xgboost is installed);
  3. threads: the same prediction from 1 and from N Python threads at once
     (booster nthread=1, so the parallelism is the threads'), which shows
     that the GIL is released during C calls.

Usage: python3 bench/python_wrapper.py [--rows 1000000] [--rounds 20] [--threads 2]
Needs the package (pip install ./bindings/python, or PYTHONPATH=bindings/python
with GBT_LIBRARY_PATH=.libs) and numpy; xgboost is optional.
"""
import argparse
import ctypes
import os
import statistics
import threading
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

import gbt  # noqa: E402
from gbt import _lib  # noqa: E402


def timeit(fn, repeat):
    """The median of `repeat` timings of fn()."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=28)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sections", default="train,predict,convert,threads",
                    help="comma-separated: train,predict,convert,threads")
    a = ap.parse_args()
    sections = set(a.sections.split(","))
    rng = np.random.RandomState(0)
    X64 = rng.rand(a.rows, a.features)
    y = ((X64[:, 0] + X64[:, 1] * X64[:, 2] + 0.3 * rng.rand(a.rows)) > 0.9).astype(np.float32)
    X32 = X64.astype(np.float32)
    params = {"objective": "binary:logistic", "max_depth": 8, "eta": 0.1, "nthread": a.threads}
    print(f"# {a.rows} rows x {a.features} features, {a.rounds} rounds, {a.threads} threads, "
          f"gbt {gbt.__version__}, load average {os.getloadavg()[0]:.1f}")

    # 1. wrapper overhead in training: gbt.train vs one gbt_booster_train call
    d = gbt.Dataset(X32, label=y)
    if sections & {"train", "predict"}:
        overhead(a, d, X32, params)
    if "convert" in sections:
        convert(a, X32, X64, y)
    if "threads" in sections:
        threads(a, d, X32, params)


def overhead(a, d, X32, params):

    def c_train():
        b = gbt.Booster(params)
        _lib.check(_lib.LIB.gbt_booster_train(b._handle, d._handle, a.rounds, None, None, 0))
        return b

    def py_train():
        return gbt.train(params, d, a.rounds, verbose_eval=False)

    tc, tp = [], []
    for _ in range(a.repeat):  # alternate, so drift hits both
        tc.append(timeit(c_train, 1))
        tp.append(timeit(py_train, 1))
    tc, tp = statistics.median(tc), statistics.median(tp)
    assert c_train().save_raw("gbt") == py_train().save_raw("gbt")
    print(f"train: C gbt_booster_train {tc:.3f} s, gbt.train {tp:.3f} s: wrapper adds "
          f"{(tp / tc - 1) * 100:+.1f}%")

    b = py_train()
    n = b._out(a.rows, 0)[1]
    out = np.empty(n, np.float32)

    def c_pred():
        _lib.check(_lib.LIB.gbt_booster_predict_dense(b._handle, ctypes.c_void_p(X32.ctypes.data), a.rows,
                                                      a.features, ctypes.c_float(np.nan), 0,
                                                      ctypes.c_void_p(out.ctypes.data), n))

    pc, pp = [], []
    for _ in range(a.repeat):
        pc.append(timeit(c_pred, 1))
        pp.append(timeit(lambda: b.predict(X32), 1))
    pc, pp = statistics.median(pc), statistics.median(pp)
    print(f"predict: C gbt_booster_predict_dense {pc:.3f} s, Booster.predict {pp:.3f} s: wrapper adds "
          f"{(pp / pc - 1) * 100:+.1f}%")
    row = X32[:1]
    t1 = timeit(lambda: [b.predict(row) for _ in range(1000)], a.repeat) / 1000
    print(f"predict one row: {t1 * 1e6:.1f} us per call")



def convert(a, X32, X64, y):
    # 2. conversion
    rows = []
    rows.append(("gbt.Dataset(float32 C array)", timeit(lambda: gbt.Dataset(X32, label=y), a.repeat)))
    rows.append(("gbt.Dataset(float64 C array)", timeit(lambda: gbt.Dataset(X64, label=y), a.repeat)))
    try:
        import xgboost as xgb
        rows.append((f"xgboost {xgb.__version__} DMatrix(float32)",
                     timeit(lambda: xgb.DMatrix(X32, label=y, nthread=a.threads), a.repeat)))
        rows.append(("xgboost DMatrix(float64)",
                     timeit(lambda: xgb.DMatrix(X64, label=y, nthread=a.threads), a.repeat)))
        rows.append(("xgboost QuantileDMatrix(float32)",
                     timeit(lambda: xgb.QuantileDMatrix(X32, label=y, nthread=a.threads), a.repeat)))
    except ImportError:
        rows.append(("xgboost not installed", float("nan")))
    for name, t in rows:
        print(f"convert: {name}: {t:.3f} s")



def threads(a, d, X32, params):
    # 3. threads: best of 3 x --repeat, the least disturbed by other work
    bt = gbt.train(dict(params, nthread=1), d, a.rounds, verbose_eval=False)
    part = X32[: max(1, a.rows // 4)]

    def one():
        bt.predict(part)

    def many():
        ts = [threading.Thread(target=one) for _ in range(a.threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    t_one = min(timeit(one, 1) for _ in range(3 * a.repeat))
    t_many = min(timeit(many, 1) for _ in range(3 * a.repeat))
    print(f"threads: one predict of {len(part)} rows {t_one:.3f} s; {a.threads} at once {t_many:.3f} s: "
          f"speed-up {a.threads * t_one / t_many:.2f}x (ideal {a.threads}x)")


if __name__ == "__main__":
    main()
