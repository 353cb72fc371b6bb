#!/usr/bin/env python3
"""Run XGBoost's own tests/python with ``xgboost`` resolved to gbt; print per-file counts.

Not part of CI (it needs XGBoost's test sources, fetched by hand, and takes
minutes).  Get the tests of XGBoost v3.2.0 once:

    git clone https://github.com/dmlc/xgboost && cd xgboost
    git archive v3.2.0 tests/python demo | tar -x -C /tmp/xgb-v3.2.0

(the tests read demo/data beside tests/) and run, from the repository root,
with a built libgbt:

    python3 tools/xgb_pytests.py --tests /tmp/xgb-v3.2.0/tests/python \\
        --lib .libs/libgbt.so [--peer] [FILE ...]

Needs pytest, hypothesis (XGBoost's helpers skip every test without it),
scikit-learn, pandas, scipy, matplotlib, graphviz (pip, with Debian's graphviz
for test_plotting) and the real xgboost 3.2 installed
(its ``xgboost.testing`` helpers are used, loaded so that they call gbt).
``xgboost`` is tools/xgbshim (see its docstring).  Each file runs in its
own pytest process; ``--peer`` runs it against the real XGBoost as well.
FILE defaults to the 17 files of issue 33.  The table gives passed /
failed / errors / skipped per file and the names the shim had to take from
XGBoost because gbt lacks them ("stand-ins").
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIM = os.path.join(ROOT, "tools", "xgbshim")
FILES = ["test_basic", "test_basic_models", "test_training_continuation", "test_callback",
         "test_early_stopping", "test_eval_metrics", "test_ranking", "test_survival",
         "test_interaction_constraints", "test_monotone_constraints", "test_predict",
         "test_dmatrix", "test_model_io", "test_pickling", "test_config", "test_parse_tree",
         "test_plotting"]


def _root_of(tests: str) -> str:
    """Where XGBoost's CI runs the tests: the source root (it reads demo/data/...
    relative to it), two levels above tests/python, when demo/ is there."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(tests)))
    return root if os.path.isdir(os.path.join(root, "demo")) else tests


def run_file(tests: str, name: str, peer: bool, lib: str, timeout: int, tmp: str):
    """One pytest run of one file: (passed, failed, errors, skipped, seconds, stand-ins, note)."""
    xml = os.path.join(tmp, f"{name}-{'peer' if peer else 'gbt'}.xml")
    standins = os.path.join(tmp, f"{name}.standins")
    env = dict(os.environ, MPLBACKEND="Agg", GBT_XGB_STANDINS=standins)
    if not peer:
        env["PYTHONPATH"] = os.pathsep.join(
            [SHIM, os.path.join(ROOT, "bindings", "python"), env.get("PYTHONPATH", "")])
        env["GBT_LIBRARY_PATH"] = os.path.abspath(lib)  # pytest runs in the tests' root
    # --tb=native: pytest's own rendering of some failures (test_with_pandas's column-split
    # tests) crashed under CPython 3.11.7 ("AST constructor recursion depth mismatch"), an
    # INTERNALERROR that ended the file's run; Python's tracebacks need no AST
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=native",
           "--junitxml", xml, os.path.join(tests, name + ".py")]
    t0 = time.time()
    note = ""
    try:
        subprocess.run(cmd, cwd=_root_of(tests), env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        note = f"timed out after {timeout} s"
    secs = time.time() - t0
    counts = [0, 0, 0, 0]
    if os.path.exists(xml):
        for suite in ET.parse(xml).getroot().iter("testsuite"):
            total = int(suite.get("tests", 0))
            fail, err, skip = (int(suite.get(k, 0)) for k in ("failures", "errors", "skipped"))
            counts = [counts[0] + total - fail - err - skip, counts[1] + fail,
                      counts[2] + err, counts[3] + skip]
    elif not note:
        note = "no result"
    names = []
    if os.path.exists(standins):
        with open(standins, encoding="utf-8") as f:
            names = sorted(set(f.read().split()))
    return counts + [secs, names, note]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tests", required=True, help="XGBoost's tests/python folder (v3.2.0)")
    ap.add_argument("--lib", default=os.path.join(ROOT, ".libs", "libgbt.so"), help="libgbt.so")
    ap.add_argument("--peer", action="store_true", help="also run each file on the real XGBoost")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per file and side")
    ap.add_argument("files", nargs="*", help="test files (default: issue 33's 17)")
    args = ap.parse_args()
    files = [f[:-3] if f.endswith(".py") else f for f in (args.files or FILES)]
    total = {"gbt": [0, 0, 0, 0], "peer": [0, 0, 0, 0]}
    standins = {}
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'file':32} {'pass':>5} {'fail':>5} {'err':>5} {'skip':>5} {'s':>6}"
              + ("   xgboost: pass fail err skip" if args.peer else ""))
        for name in files:
            row = run_file(args.tests, name, False, args.lib, args.timeout, tmp)
            line = f"{name:32} {row[0]:5} {row[1]:5} {row[2]:5} {row[3]:5} {row[4]:6.0f}"
            total["gbt"] = [a + b for a, b in zip(total["gbt"], row[:4])]
            for s in row[5]:
                standins.setdefault(s, []).append(name)
            if args.peer:
                p = run_file(args.tests, name, True, args.lib, args.timeout, tmp)
                line += f"   {p[0]:13} {p[1]:4} {p[2]:3} {p[3]:4}"
                total["peer"] = [a + b for a, b in zip(total["peer"], p[:4])]
            print(line + (f"   {row[6]}" if row[6] else ""), flush=True)
    t = total["gbt"]
    line = f"{'total':32} {t[0]:5} {t[1]:5} {t[2]:5} {t[3]:5}"
    if args.peer:
        p = total["peer"]
        line += f"   {'':6} {p[0]:13} {p[1]:4} {p[2]:3} {p[3]:4}"
    print(line)
    if standins:
        print("\nstand-ins (names gbt lacks, taken from XGBoost so the files load):")
        for s, where in sorted(standins.items()):
            print(f"  {s}: {', '.join(where)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
