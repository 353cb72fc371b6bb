#!/usr/bin/env python3
"""XGBoost JSON models between gbt and XGBoost itself, and Treelite when
importable (TAP on stdout).

    python3 tests/xgboost_interop.py BUILDDIR DATASETS WORKDIR

gbt -> XGBoost: gbtrain trains on a bundled dataset, `gbmodel convert
--to=xgboost` exports the model, xgboost.Booster loads it and its raw scores
on the test rows must equal gbpredict --margin's to float precision
(|d| <= 1e-5 max(1, |score|): XGBoost adds the leaves in float).
XGBoost -> gbt: xgboost.train's model saved as JSON and as UBJSON (.ubj)
predicts the same in gbpredict.  The same both ways in UBJSON: the export
converted to .ubj loads in XGBoost and predicts the same, and a .ubj that
gbt wrote, read and written again, gives the same bytes.  gbt -> XGBoost -> gbt: the converted-back model predicts the
same bits as the original and its dump numbers the nodes as the original's
and XGBoost's dump of the export do.  Same training: where XGBoost's quantile sketch is
exact (at most 2 x 8 x max_bin + 2 values per feature) gbt's bin cuts are
XGBoost's, so gbtrain and xgboost.train with the same parameters grow the
same trees and predict the same raw scores.
"""
import os
import re
import subprocess
import sys

import numpy as np

# XGBoost imports scikit-learn (and with it SciPy's statistics) when it is
# installed, for its estimator classes, which this script does not use: 3 of
# the import's 4 CPU-s, paid in each of CI's runs of this test
sys.modules.setdefault("sklearn", None)
import xgboost as xgb  # noqa: E402

try:
    import treelite
    import treelite.gtil
except ImportError:
    treelite = None

build, datasets, work = sys.argv[1:4]
n = 0
failed = 0


def ok(cond, name):
    global n, failed
    n += 1
    failed += not cond
    print("%s %d - %s" % ("ok" if cond else "not ok", n, name))


def tool(name, *args):
    r = subprocess.run([os.path.join(build, name)] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        print("# %s %s: %s" % (name, " ".join(args), r.stderr.strip().replace("\n", " ")))
    return r.returncode == 0


def load_csv(path):
    a = np.loadtxt(path, delimiter=",", ndmin=2)
    return a[:, 1:], a[:, 0]


def write_libsvm(path, X, y):
    """One-based LIBSVM with the NaN entries (and zeros) left out."""
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write("%g %s\n" % (label, " ".join("%d:%.9g" % (j + 1, v) for j, v in enumerate(row)
                                                    if not np.isnan(v) and v != 0)))


def agree(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64).reshape(np.shape(a))
    d = np.abs(a - b) / np.maximum(1.0, np.abs(a))
    return a.shape == b.shape and bool(np.all(d <= 1e-5)), float(d.max()) if d.size else 0.0


def node_ids(dump):
    """A text dump's node numbering: each split's id and its yes, no and missing ids, each leaf's id."""
    return re.findall(r"(\d+):(?:\[[^]]*\] yes=(\d+),no=(\d+),missing=(\d+)|leaf)", dump)


def gbt_margins(model, data, fmt, cols, *extra):
    out = os.path.join(work, "pred.txt")
    if not tool("gbpredict", "-q", "--margin", "--format=" + fmt, *extra, data, model, out):
        return None
    return np.loadtxt(out, ndmin=2).reshape(-1, cols) if cols > 1 else np.loadtxt(out, ndmin=1)


def xgb_dmatrix(X, fmt, path, ncol):
    """The rows for XGBoost.  A LIBSVM file is parsed here, indices as they are
    (XGBoost's reading): XGBoost's own text parser rounds some values to
    another float than strtof (1.4939 -> 1.4939001), which sends rows equal
    to a threshold to the other side."""
    if fmt != "libsvm":
        return xgb.DMatrix(X)
    import scipy.sparse
    rows, cols, vals = [], [], []
    with open(path) as f:
        for r, line in enumerate(f):
            for tok in line.split()[1:]:
                k, v = tok.split(":")
                if k != "qid":
                    rows.append(r)
                    cols.append(int(k))
                    vals.append(np.float32(v))
    m = scipy.sparse.csr_matrix((np.array(vals, np.float32), (rows, cols)), shape=(r + 1, ncol))
    return xgb.DMatrix(m)


cases = [
    # name, dataset, params, outputs
    ("breast_cancer binary:logistic depthwise", "breast_cancer", ["--objective=binary:logistic", "--max_depth=4"], 1),
    ("digits multi:softprob lossguide", "digits",
     ["--objective=multi:softprob", "--num_class=10", "--grow_policy=lossguide", "--max_leaves=12"], 10),
    ("diabetes reg:quantileerror (3 quantiles)", "diabetes",
     ["--objective=reg:quantileerror", "--quantile_alpha=0.1,0.5,0.9"], 3),
    ("diabetes count:poisson", "diabetes", ["--objective=count:poisson"], 1),
    ("survival survival:aft (logistic, interval side files)", "survival",
     ["--objective=survival:aft", "--aft_loss_distribution=logistic", "--aft_loss_distribution_scale=1.5"], 1),
    ("survival survival:cox (negative labels censored)", "survival", ["--objective=survival:cox"], 1),
    ("rank rank:ndcg (qid: groups, LIBSVM)", "rank", ["--objective=rank:ndcg", "--eval_metric=ndcg@10"], 1),
    ("rank rank:pairwise mean pairs", "rank",
     ["--objective=rank:pairwise", "--lambdarank_pair_method=mean", "--lambdarank_num_pair_per_sample=4"], 1),
    ("breast_cancer LIBSVM with missing values", "breast_cancer-libsvm",
     ["--objective=binary:logitraw", "--max_depth=3"], 1),
]

for name, data, params, cols in cases:
    fmt = "libsvm" if data.endswith("-libsvm") or data == "rank" else "csv"
    base = data.replace("-libsvm", "")
    if data == "rank":  # LIBSVM files with qid: as they are
        tr, te = (os.path.join(datasets, "rank.%s.libsvm" % part) for part in ("train", "test"))
        Xte = None
    else:
        Xtr, ytr = load_csv(os.path.join(datasets, base + ".train.csv"))
        Xte, yte = load_csv(os.path.join(datasets, base + ".test.csv"))
        tr = os.path.join(datasets, base + ".train.csv")
        te = os.path.join(datasets, base + ".test.csv")
    if data.endswith("-libsvm"):
        rng = np.random.RandomState(3)
        Xtr[rng.uniform(size=Xtr.shape) < 0.2] = np.nan
        Xte[rng.uniform(size=Xte.shape) < 0.2] = np.nan
        tr, te = os.path.join(work, "train.svm"), os.path.join(work, "test.svm")
        write_libsvm(tr, Xtr, ytr)
        write_libsvm(te, Xte, yte)
    model, exported, back = (os.path.join(work, f) for f in ("m.gbt", "m.json", "back.gbt"))
    trained = tool("gbtrain", "-q", "--num_round=20", "--format=" + fmt, *params, tr, model)
    converted = trained and tool("gbmodel", "convert", "--to=xgboost", model, exported)
    ok(converted, "%s: gbtrain's model converts to XGBoost JSON" % name)
    if not converted:
        continue
    mine = gbt_margins(model, te, fmt, cols)
    try:
        booster = xgb.Booster(model_file=exported)
        theirs = booster.predict(xgb_dmatrix(Xte, fmt, te, booster.num_features()), output_margin=True)
    except xgb.core.XGBoostError as e:
        print("# %s" % str(e).splitlines()[0])
        theirs = None
    same, d = agree(mine, theirs) if mine is not None and theirs is not None else (False, float("nan"))
    ok(same, "%s: XGBoost %s predicts gbt's raw scores (largest relative difference %.2g)" % (
        name, xgb.__version__, d))
    ubj, ubj2, ubj3 = (os.path.join(work, f) for f in ("m.ubj", "m2.ubj", "m3.ubj"))
    try:
        theirs = tool("gbmodel", "convert", "--to=xgboost", model, ubj) and xgb.Booster(model_file=ubj).predict(
            xgb_dmatrix(Xte, fmt, te, booster.num_features()), output_margin=True)
    except xgb.core.XGBoostError as e:
        print("# %s" % str(e).splitlines()[0])
        theirs = None
    same, d = agree(mine, theirs) if mine is not None and theirs is not None and theirs is not False else (
        False, float("nan"))
    # the export read and written again is the same bytes: node ids and starting scores kept exactly
    stable = tool("gbmodel", "-q", "convert", "--to=xgboost", ubj, ubj2) and tool(
        "gbmodel", "-q", "convert", "--to=xgboost", ubj2, ubj3) and \
        open(ubj, "rb").read() == open(ubj2, "rb").read() == open(ubj3, "rb").read()
    ok(same and stable, "%s: exported as UBJSON (.ubj), XGBoost predicts gbt's raw scores (%.2g); the .ubj read and "
       "written again is the same bytes" % (name, d))
    if treelite is None:
        n += 1
        print("ok %d - %s: Treelite # SKIP python3 cannot import treelite (pip install treelite)" % (n, name))
    elif fmt == "csv":
        try:
            tl = treelite.frontend.load_xgboost_model(exported)
            raw = np.asarray(treelite.gtil.predict(tl, Xte.astype(np.float32), pred_margin=True))
            same, d = agree(mine, raw.reshape(np.shape(mine))) if mine is not None else (False, float("nan"))
        except Exception as e:  # a refusal by Treelite is a failure of the export
            print("# treelite: %s" % str(e).splitlines()[0])
            same, d = False, float("nan")
        ok(same, "%s: Treelite %s loads the export and predicts gbt's raw scores (%.2g)" % (
            name, treelite.__version__, d))
    # the converted-back model takes LIBSVM indices as they are, as XGBoost does; it predicts the
    # same bits (XGBoost's own save and load are exact) and numbers its nodes as the original and
    # XGBoost's dump of the export do
    again = tool("gbmodel", "convert", "--to=gbt", exported, back) and gbt_margins(
        back, te, fmt, cols, *(["--indexing_mode=0"] if fmt == "libsvm" else []))
    same = again is not None and again is not False and np.array_equal(mine, again)
    ids = [node_ids(subprocess.run([os.path.join(build, "gbmodel"), "dump", f], capture_output=True,
                                   text=True).stdout) for f in (model, back)]
    ok(same and ids[0] == ids[1] == node_ids("".join(booster.get_dump())),
       "%s: converted back, gbt predicts the same bits and dumps the nodes as the original and XGBoost do" % name)
    if fmt == "libsvm":
        ok(not tool("gbpredict", "-q", te, back, os.path.join(work, "x.txt")),
           "%s: the converted-back model refuses to guess the file one-based" % name)

# XGBoost's own models in gbt
for name, data, params, cols in [
    ("XGBoost binary:logistic", "breast_cancer", {"objective": "binary:logistic", "max_depth": 4}, 1),
    ("XGBoost multi:softprob", "digits", {"objective": "multi:softprob", "num_class": 10}, 10),
    ("XGBoost reg:squarederror lossguide", "diabetes",
     {"objective": "reg:squarederror", "grow_policy": "lossguide", "max_leaves": 10}, 1),
    ("XGBoost reg:gamma", "diabetes", {"objective": "reg:gamma"}, 1),
]:
    Xtr, ytr = load_csv(os.path.join(datasets, data + ".train.csv"))
    Xte, yte = load_csv(os.path.join(datasets, data + ".test.csv"))
    b = xgb.train(dict(params, tree_method="hist", seed=1), xgb.DMatrix(Xtr, ytr), 20)
    theirs = b.predict(xgb.DMatrix(Xte))
    for ext, kind in (("json", "JSON"), ("ubj", "UBJSON (.ubj)")):
        path = os.path.join(work, "xgb." + ext)
        b.save_model(path)
        out = os.path.join(work, "xgb.pred")
        got = tool("gbpredict", "-q", os.path.join(datasets, data + ".test.csv"), path, out)
        mine = np.loadtxt(out, ndmin=2).reshape(theirs.shape) if got else None
        same, d = agree(theirs, mine) if mine is not None else (False, float("nan"))
        ok(same, "%s: gbpredict loads XGBoost %s's %s model and predicts what it predicts (%.2g)" % (
            name, xgb.__version__, kind, d))

# The same training as XGBoost: the same cuts, so the same trees
def same_training(name, Xtr, ytr, wtr, params, rounds=20):
    tr = os.path.join(work, "same.csv")
    np.savetxt(tr, np.column_stack([ytr, Xtr]), delimiter=",", fmt="%.9g")
    if os.path.exists(tr + ".weight"):
        os.remove(tr + ".weight")
    if wtr is not None:
        np.savetxt(tr + ".weight", wtr, fmt="%.9g")
    model = os.path.join(work, "same.gbt")
    args = ["--%s=%s" % kv for kv in params.items()]
    mine = tool("gbtrain", "-q", "--num_round=%d" % rounds, *args, tr, model) and gbt_margins(model, tr, "csv", 1)
    b = xgb.train(dict(params, tree_method="hist"), xgb.DMatrix(Xtr, ytr, weight=wtr, missing=np.nan), rounds)
    theirs = b.predict(xgb.DMatrix(Xtr, missing=np.nan), output_margin=True)
    same, d = agree(theirs, mine) if mine is not None and mine is not False else (False, float("nan"))
    ok(same, "%s: gbtrain and XGBoost %s's hist train the same model (largest relative difference of the "
       "raw scores %.2g)" % (name, xgb.__version__, d))


Xtr, ytr = load_csv(os.path.join(datasets, "breast_cancer.train.csv"))
same_training("breast_cancer (up to 455 distinct values a feature, max_bin 256)", Xtr, ytr, None,
              {"objective": "binary:logistic", "max_depth": 6})
rng = np.random.RandomState(11)
for rows, missing, weighted, max_bin in ((1000, 0.1, True, 64), (3000, 0.0, True, 256)):
    X = rng.normal(size=(rows, 4)).astype(np.float32)
    X[rng.uniform(size=X.shape) < missing] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=rows) * 0.3).astype(np.float32)
    w = rng.uniform(0.5, 2, size=rows).astype(np.float32) if weighted else None
    same_training("%d rows, %d%% missing, %sweights, max_bin %d" % (
        rows, missing * 100, "" if weighted else "no ", max_bin), X, y, w,
        {"objective": "reg:squarederror", "max_depth": 6, "max_bin": max_bin})

# constraints (issue 24): the same bounds, mid-points and allowed features, so the same trees
Xtr, ytr = load_csv(os.path.join(datasets, "breast_cancer.train.csv"))
same_training("breast_cancer, monotone_constraints -1 on features 0 and 20", Xtr, ytr, None,
              {"objective": "binary:logistic", "max_depth": 6,
               "monotone_constraints": "(" + ",".join("-1" if f in (0, 20) else "0" for f in range(30)) + ")"})
X = rng.normal(size=(1500, 4)).astype(np.float32)
X[rng.uniform(size=X.shape) < 0.05] = np.nan
Z = np.nan_to_num(X)
y = (Z[:, 0] + 0.5 * np.sin(3 * Z[:, 0]) - Z[:, 1] + Z[:, 2] * Z[:, 3] + rng.normal(size=1500) * 0.3).astype(np.float32)
for policy in ("depthwise", "lossguide"):
    params = {"objective": "reg:squarederror", "max_depth": 6, "max_bin": 64, "grow_policy": policy,
              "monotone_constraints": "(1,-1,0,0)", "interaction_constraints": "[[0,1],[2,3]]"}
    if policy == "lossguide":
        params.update(max_depth=0, max_leaves=16)
    same_training("1500 rows, 5%% missing, %s, monotone (1,-1,0,0), interaction [[0,1],[2,3]]" % policy,
                  X, y, None, params)

# random forests (issue 33): rounds of num_parallel_tree trees without sampling are XGBoost's, whole
# and over a range of rounds; the export loads in XGBoost, XGBoost's forest in gbpredict
X = rng.normal(size=(600, 5)).astype(np.float32)
y = (X[:, 0] + np.sin(X[:, 1]) + rng.normal(size=600) * 0.2).astype(np.float32)
for name, params, labels, cols in [
        ("reg:squarederror", {"objective": "reg:squarederror"}, y, 1),
        ("multi:softprob", {"objective": "multi:softprob", "num_class": 3}, np.digitize(y, [-0.5, 0.8]), 3)]:
    params = dict(params, num_parallel_tree=3, max_depth=3, eta=0.7, max_bin=32)
    name = "forest of 3 rounds of 3 trees, " + name
    tr = os.path.join(work, "forest.csv")
    np.savetxt(tr, np.column_stack([labels, X]), delimiter=",", fmt="%.9g")
    model, exported = os.path.join(work, "forest.gbt"), os.path.join(work, "forest.xgb.json")
    trained = tool("gbtrain", "-q", "--num_round=3", *["--%s=%s" % kv for kv in params.items()], tr, model)
    b = xgb.train(dict(params, tree_method="hist"), xgb.DMatrix(X, labels), 3)
    for rounds, ir in (("0:0", (0, 0)), ("1:3", (1, 3)), ("2:3", (2, 3))):
        mine = gbt_margins(model, tr, "csv", cols, "--rounds=" + rounds) if trained else None
        theirs = b.predict(xgb.DMatrix(X), output_margin=True, iteration_range=ir)
        same, d = agree(theirs, mine) if mine is not None else (False, float("nan"))
        ok(same, "%s: gbtrain's raw scores of rounds %s are XGBoost %s's of iteration_range %s (%.2g)" % (
            name, rounds, xgb.__version__, ir, d))
    mine = gbt_margins(model, tr, "csv", cols) if trained else None
    back = tool("gbmodel", "convert", "--to=xgboost", model, exported) and xgb.Booster(model_file=exported)
    theirs = back.predict(xgb.DMatrix(X), output_margin=True, iteration_range=(1, 2)) if back else None
    sliced = gbt_margins(model, tr, "csv", cols, "--rounds=1:2") if trained else None
    same, d = agree(theirs, sliced) if back and sliced is not None else (False, float("nan"))
    ok(same and back.num_boosted_rounds() == 3,
       "%s: the XGBoost export loads in XGBoost as 3 rounds, round 1 predicting gbt's (%.2g)" % (name, d))
    path = os.path.join(work, "forest.xgb.theirs.json")
    b.save_model(path)
    out = os.path.join(work, "forest.pred")
    got = tool("gbpredict", "-q", "--margin", "--rounds=1:3", tr, path, out)
    theirs = b.predict(xgb.DMatrix(X), output_margin=True, iteration_range=(1, 3))
    mine = np.loadtxt(out, ndmin=2).reshape(theirs.shape) if got else None
    same, d = agree(theirs, mine) if mine is not None else (False, float("nan"))
    ok(same, "%s: gbpredict reads XGBoost's forest and predicts its rounds [1, 3) as it does (%.2g)" % (name, d))

print("1..%d" % n)
sys.exit(1 if failed else 0)
