#!/usr/bin/env python3
"""Loading benchmark: gbt's CSV and LIBSVM readers against pandas and the peers' own loaders.

    python3 bench/load.py                      # 1M rows x 28 features, 2 threads
    python3 bench/load.py --rows 100000        # quicker
    python3 bench/load.py --baseline-lib /tmp/old/.libs/libgbt.so   # also an older gbt

Writes W1's data (bench/gen_workload higgs: label + 28 features, 2% missing)
as CSV ("%.6g", missing as "nan", no header) and as LIBSVM (1-based indices,
missing values left out), cached under --workdir, then times, each in its own
process and alternating, for --repeat rounds:

- gbt: gbt_dataset_from_file(path, "format=csv|libsvm,nthread=N") through
  ctypes on the built libgbt.so;
- pandas: pandas.read_csv(path, header=None) (C engine; CSV only; it has no
  LIBSVM reader);
- xgboost: xgboost.DMatrix("path?format=csv&label_column=0" or
  "?format=libsvm", nthread=N);
- lightgbm: lightgbm.Dataset(path, params).construct() with num_threads=N:
  LightGBM reads and bins in one step, so its time includes binning;
- sklearn (if installed): sklearn.datasets.load_svmlight_file (LIBSVM only).

The file is read once before timing, so every loader reads from the page
cache.  Prints a markdown table (median seconds, MB/s, peak resident memory,
and each loader's time divided by gbt's) and writes it with the machine and
load average to bench/results/<date>-<host>-load.md (with --rows other than
1M: bench/work/results/).
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (the suite's data generation and machine description)

LOADERS = {"csv": ["gbt", "pandas", "xgboost", "lightgbm"],
           "libsvm": ["gbt", "xgboost", "lightgbm", "sklearn"]}


def write_text_files(data, rows, workdir):
    """CSV and LIBSVM copies of the first `rows` training rows of a generated higgs data set."""
    import numpy as np
    csv = os.path.join(workdir, "load-higgs-%d.csv" % rows)
    svm = os.path.join(workdir, "load-higgs-%d.libsvm" % rows)
    if os.path.exists(csv) and os.path.exists(svm):
        return csv, svm
    with open(os.path.join(data, "meta.json")) as f:
        ncol = json.load(f)["cols"]
    X = np.fromfile(os.path.join(data, "X_train.f32"), dtype="<f4").reshape(-1, ncol)[:rows]
    y = np.fromfile(os.path.join(data, "y_train.f32"), dtype="<f4")[:rows]
    run.log("writing %d rows as CSV and LIBSVM" % rows)
    for path, kind in ((csv, "csv"), (svm, "libsvm")):
        tmp = path + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            for i in range(0, rows, 10000):
                lines = []
                for lab, row in zip(y[i:i + 10000].tolist(), X[i:i + 10000].tolist()):
                    if kind == "csv":
                        lines.append("%.6g," % lab + ",".join("%.6g" % v for v in row))
                    else:
                        lines.append("%.6g " % lab + " ".join("%d:%.6g" % (j + 1, v)
                                                               for j, v in enumerate(row) if v == v))
                f.write("\n".join(lines) + "\n")
        os.rename(tmp, path)
    return csv, svm


def load_one(lib, fmt, path, threads, gbt_lib):
    """Runs in the child: loads the file once and returns (seconds, rows, columns)."""
    if lib.startswith("gbt"):
        import ctypes
        g = ctypes.CDLL(gbt_lib)
        g.gbt_last_error.restype = ctypes.c_char_p
        d = ctypes.c_void_p()
        nrow, ncol = ctypes.c_uint64(), ctypes.c_uint64()
        opts = ("format=%s,side_files=0,nthread=%d" % (fmt, threads)).encode()
        t0 = time.perf_counter()
        s = g.gbt_dataset_from_file(path.encode(), opts, ctypes.byref(d))
        if s != 0 and b"nthread" in (g.gbt_last_error() or b""):
            # a gbt without the nthread option (a baseline build): its reader is serial anyway
            t0 = time.perf_counter()
            s = g.gbt_dataset_from_file(path.encode(), ("format=%s,side_files=0" % fmt).encode(),
                                        ctypes.byref(d))
        t = time.perf_counter() - t0
        if s != 0:
            raise RuntimeError(g.gbt_last_error().decode())
        g.gbt_dataset_shape(d, ctypes.byref(nrow), ctypes.byref(ncol))
        return t, nrow.value, ncol.value
    if lib == "pandas":
        import pandas as pd
        t0 = time.perf_counter()
        df = pd.read_csv(path, header=None)
        t = time.perf_counter() - t0
        return t, df.shape[0], df.shape[1] - 1
    if lib == "xgboost":
        import xgboost as xgb
        uri = path + ("?format=csv&label_column=0" if fmt == "csv" else "?format=libsvm")
        t0 = time.perf_counter()
        m = xgb.DMatrix(uri, nthread=threads)
        t = time.perf_counter() - t0
        return t, m.num_row(), m.num_col()
    if lib == "lightgbm":
        import lightgbm as lgb
        params = {"num_threads": threads, "verbose": -1, "header": False, "label_column": 0, "max_bin": 256}
        t0 = time.perf_counter()
        ds = lgb.Dataset(path, params=params).construct()
        t = time.perf_counter() - t0
        return t, ds.num_data(), ds.num_feature()
    if lib == "sklearn":
        from sklearn.datasets import load_svmlight_file
        t0 = time.perf_counter()
        X, _ = load_svmlight_file(path, zero_based=False)
        t = time.perf_counter() - t0
        return t, X.shape[0], X.shape[1]
    raise ValueError(lib)


def available(lib):
    mod = {"pandas": "pandas", "xgboost": "xgboost", "lightgbm": "lightgbm", "sklearn": "sklearn"}.get(lib)
    if mod is None:
        return True
    try:
        __import__(mod)
        return True
    except ImportError:
        return False


def measure(lib, fmt, path, threads, gbt_lib):
    """One load in a fresh process: seconds, rows, columns and the child's peak resident MiB."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", lib, fmt, path, str(threads), gbt_lib]
    code, out, err, peak, _, _ = run.run_measured(cmd, env, 0, False)
    if code != 0:
        return {"error": (err.strip().splitlines() or ["exit %d" % code])[-1]}
    r = run.last_json(out)
    r["peak_mib"] = peak
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=2, help="threads for every loader (default 2)")
    ap.add_argument("--rows", type=int, default=1000000, help="rows of the files (default 1M)")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds; the median is reported")
    ap.add_argument("--formats", default="csv,libsvm")
    ap.add_argument("--libs", default="gbt,pandas,xgboost,lightgbm,sklearn")
    ap.add_argument("--baseline-lib", help="another libgbt.so, measured as 'gbt-baseline' in the same run")
    ap.add_argument("--workdir", default=os.path.join(HERE, "work"))
    ap.add_argument("--builddir", default=run.SRCDIR, help="the configured build tree (default: the source tree)")
    ap.add_argument("--results-dir")
    ap.add_argument("--no-results", action="store_true")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    if args.child:
        lib, fmt, path, threads, gbt_lib = args.child
        t, n, c = load_one(lib, fmt, path, int(threads), gbt_lib)
        print(json.dumps({"seconds": t, "rows": n, "cols": c}))
        return 0

    started = datetime.datetime.now(datetime.timezone.utc)
    info = run.machine_info()
    gbt_lib = os.path.join(args.builddir, ".libs", "libgbt.so")
    if not os.path.exists(gbt_lib):
        run.die("%s not found: build gbt first" % gbt_lib)
    suite_args = argparse.Namespace(bindir=os.path.join(args.builddir, "bench"), build=True,
                                    builddir=args.builddir, workdir=args.workdir, seed=args.seed,
                                    threads=args.threads)
    suite = run.Suite(suite_args)
    suite.ensure_binaries()
    data = suite.dataset("higgs", max(args.rows / 1e6, 1.0))
    csv, svm = write_text_files(data, args.rows, args.workdir)
    files = {"csv": csv, "libsvm": svm}
    wanted = args.libs.split(",")
    libs_of = {}
    for fmt in args.formats.split(","):
        libs = [l for l in LOADERS[fmt] if l in wanted and available(l)]
        if args.baseline_lib:
            libs.insert(1, "gbt-baseline")
        libs_of[fmt] = libs
        with open(files[fmt], "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass
    times = {}
    for rep in range(args.repeat):
        for fmt, libs in libs_of.items():
            for lib in libs:
                so = args.baseline_lib if lib == "gbt-baseline" else gbt_lib
                r = measure(lib, fmt, files[fmt], args.threads, so)
                times.setdefault((fmt, lib), []).append(r)
                run.log("%s %s: %s" % (fmt, lib, "%.3f s" % r["seconds"] if "seconds" in r else r["error"]))
    rows = ["| format | loader | rows x cols | median s | runs s | MB/s | peak MiB | time / gbt's |",
            "|---|---|---|---|---|---|---|---|"]
    results = []
    for fmt, libs in libs_of.items():
        size_mb = os.path.getsize(files[fmt]) / 1e6
        ok = [r for r in times[(fmt, "gbt")] if "seconds" in r]
        g = statistics.median(r["seconds"] for r in ok) if ok else None
        for lib in libs:
            rs = times[(fmt, lib)]
            good = [r for r in rs if "seconds" in r]
            if not good:
                rows.append("| %s | %s | failed: %s | | | | | |" % (fmt, lib, rs[-1]["error"][:80]))
                continue
            med = statistics.median(r["seconds"] for r in good)
            peak = max(r.get("peak_mib", 0) for r in good)
            rows.append("| %s | %s | %d x %d | %.3f | %s | %.0f | %.0f | %s |" % (
                fmt, lib, good[0]["rows"], good[0]["cols"], med,
                " ".join("%.2f" % r["seconds"] for r in good), size_mb / med, peak,
                "%.2f" % (med / g) if g else "—"))
            results.append({"format": fmt, "loader": lib, "runs": rs, "median_s": med, "file_mb": size_mb})
    text = "\n".join(rows)
    notes = ["",
             "- %s: %.0f MB, %s: %.0f MB; %d threads; each load in its own process, loaders alternating, "
             "%d rounds; the file in the page cache." % (os.path.basename(csv), os.path.getsize(csv) / 1e6,
                                                         os.path.basename(svm), os.path.getsize(svm) / 1e6,
                                                         args.threads, args.repeat),
             "- time / gbt's above 1: gbt is faster.  LightGBM's time includes binning (its loader bins "
             "as it reads); peak MiB includes the Python interpreter and the library for every loader."]
    with open("/proc/loadavg") as f:
        info["load_after"] = " ".join(f.read().split()[:3])
    text += "\n" + "\n".join(notes)
    print(text)
    if not args.no_results:
        rdir = args.results_dir or (os.path.join(HERE, "results") if args.rows == 1000000
                                    else os.path.join(args.workdir, "results"))
        os.makedirs(rdir, exist_ok=True)
        base = "%s-%s-load%s" % (started.strftime("%Y-%m-%d"), info["host"],
                                 "" if args.rows == 1000000 else "-rows%d" % args.rows)
        path = os.path.join(rdir, base + ".md")
        n = 2
        while os.path.exists(path):
            path = os.path.join(rdir, "%s-%d.md" % (base, n))
            n += 1
        versions = []
        for mod in ("pandas", "xgboost", "lightgbm", "sklearn"):
            try:
                versions.append("%s %s" % (mod, __import__(mod).__version__))
            except ImportError:
                pass
        head = ["# gbt loading benchmark", "",
                "- date: %s" % started.strftime("%Y-%m-%d %H:%M:%S UTC"),
                "- commit: %s" % run.git_commit(),
                "- command: `%s`" % " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
                "- CPU: %s, %d logical cores" % (info["cpu"], info["cores"]),
                "- load average before / after (1, 5, 15 min): %s / %s" % (info.get("load_before", "?"),
                                                                            info["load_after"]),
                "- libraries: %s" % ", ".join(versions), ""]
        with open(path, "w") as f:
            f.write("\n".join(head) + "\n" + text + "\n")
        with open(path[:-3] + ".json", "w") as f:
            json.dump({"date": started.isoformat(), "commit": run.git_commit(), "machine": info,
                       "threads": args.threads, "results": results}, f, indent=1)
        run.log("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
