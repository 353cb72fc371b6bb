#!/usr/bin/env python3
"""Peak memory (ru_maxrss) of one training round on generated rows, each
way in a fresh process, for gbt and XGBoost:

    array      gbt.Dataset(X) / xgboost.DMatrix(X): from one array
    qdm        QuantileDMatrix(X): from one array
    iter       QuantileDMatrix(DataIter): the rows made batch by batch,
               never all held
    extmem     ExtMemQuantileDMatrix(DataIter): the binned matrix in pages
               on disk, in a temporary folder

    python3 bench/iter_memory.py [ROWS] [COLS] [BATCHES] [continuous|rounded] [WAY,...]

WAY is gbt-array, gbt-qdm, ..., xgb-extmem (default: all eight).  The
array ways fill X batch by batch too, so the batches are the same rows.
"rounded" data has 101 distinct values per feature (two decimals), the
continuous kind about one per row.  The process's memory before the data
(Python, numpy, the library) is printed apart, as "base"; "peak - base"
of the array ways includes the array (ROWS x COLS x 4 bytes), which the
caller holds.
"""
import subprocess
import sys

CHILD = r'''
import resource, sys, tempfile, time
import numpy as np
rows, cols, nb, kind, way = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
lib = __import__("xgboost" if way.startswith("xgb") else "gbt")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()

def batch(k):
    rng = np.random.default_rng(k)
    n = rows // nb
    X = rng.random((n, cols), dtype=np.float32)
    if kind == "rounded":
        X = np.round(X, 2)
    return X, (X[:, 0] + X[:, 1] > 1).astype(np.float32)

class It(lib.DataIter):
    def __init__(self, cache_prefix=None):
        self.k = 0
        super().__init__(cache_prefix=cache_prefix)
    def next(self, input_data):
        if self.k == nb:
            return False
        X, y = batch(self.k)
        input_data(data=X, label=y)
        self.k += 1
        return True
    def reset(self):
        self.k = 0

params = {"objective": "binary:logistic", "max_depth": 6, "max_bin": 256, "nthread": 2, "tree_method": "hist"}
cache = tempfile.TemporaryDirectory()
kind_of = way.split("-", 1)[1]
if kind_of == "extmem":
    d = lib.ExtMemQuantileDMatrix(It(cache.name + "/c"), max_bin=256)
elif kind_of == "iter":
    d = lib.QuantileDMatrix(It(), max_bin=256)
else:
    n = rows // nb
    X, y = np.empty((n * nb, cols), dtype=np.float32), np.empty(n * nb, dtype=np.float32)
    for k in range(nb):
        X[k * n:(k + 1) * n], y[k * n:(k + 1) * n] = batch(k)
    if kind_of == "qdm":
        d = lib.QuantileDMatrix(X, y, max_bin=256)
    else:
        d = lib.DMatrix(X, y) if way.startswith("xgb") else lib.Dataset(X, label=y)
lib.train(params, d, 1)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{way:11s} base {base / 1024:7.1f} MB  peak {peak / 1024:7.1f} MB  peak - base {(peak - base) / 1024:7.1f} MB"
      f"  {time.perf_counter() - t0:6.1f} s", flush=True)
del d  # before its cache folder goes
cache.cleanup()
'''

WAYS = ("gbt-array", "gbt-qdm", "gbt-iter", "gbt-extmem", "xgb-array", "xgb-qdm", "xgb-iter", "xgb-extmem")


def main():
    rows = sys.argv[1] if len(sys.argv) > 1 else "400000"
    cols = sys.argv[2] if len(sys.argv) > 2 else "20"
    nb = sys.argv[3] if len(sys.argv) > 3 else "8"
    kind = sys.argv[4] if len(sys.argv) > 4 else "continuous"
    ways = sys.argv[5].split(",") if len(sys.argv) > 5 else WAYS
    for w in ways:
        if w not in WAYS:
            sys.exit(f"iter_memory.py: unknown way '{w}' (one of {', '.join(WAYS)})")
    print(f"{rows} x {cols} float32 ({int(rows) * int(cols) * 4 / 2**20:.1f} MB), {nb} batches, {kind}", flush=True)
    for way in ways:
        subprocess.run([sys.executable, "-c", CHILD, rows, cols, nb, kind, way], check=True)


if __name__ == "__main__":
    main()
