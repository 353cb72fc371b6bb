#!/usr/bin/env python3
"""Accuracy of gbt against XGBoost with the same parameters.

Trains both libraries on every dataset with max_depth=6, eta=0.1, 100
rounds, max_bin=256 (hist) and compares the test metrics.  gbt runs through
its command-line tools; XGBoost through its Python package.

    python3 bench/accuracy.py [--gbt-bin DIR] [--out FILE]

The objectives of issue 9 (count:poisson, reg:gamma, reg:tweedie,
reg:squaredlogerror, reg:pseudohubererror, binary:hinge, reg:absoluteerror,
reg:quantileerror) are compared on synthetic data where each makes sense
(counts, positive skewed amounts, amounts with exact zeros, outliers,
skewed noise) with their default metrics.

The survival objectives (survival:cox, survival:aft) are compared on
synthetic censored times: "cox" has proportional-hazards event times with
30% random right-censoring (negative labels), "aft" log-normal times of
which 25% are right-censored and 15% interval-censored (gbt reads the
intervals from the side files FILE.lower and FILE.upper; XGBoost from
label_lower_bound / label_upper_bound); their test metrics are
cox-nloglik and aft-nloglik, computed here from the predictions.

The ranking objectives (rank:ndcg, rank:pairwise, rank:map, rank:ndcg with
lambdarank_pair_method=mean) are compared on sets drawn by the generator of
datasets/rank.{train,test}.libsvm (datasets/make_ranking.py: graded relevance
0-4 with qid:; rank:map on relevance >= 2 as 1), --ranking-sets of them
(default 3) with --ranking-queries training and as many test queries each
(default 10000, the size of MSLR-WEB10K), scored with ndcg@5, ndcg@10 and
map@10 computed here per query (--only ranking runs only them).  Each row
also shows XGBoost against itself with max_bin 255: the comparison's own
resolution (docs/accuracy.md says why the sets are this large).
--only ranking-grid runs them again with every feature rounded to a multiple
of 0.1, so that both libraries have the same candidate splits.

Exits non-zero when a metric differs from XGBoost's by more than the
tolerance (issue 2: 0.005, 1.5% for mlogloss; issue 9: 1% relative for the
losses of the new objectives, 0.005 for error).
"""
import math
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

PARAMS = {"max_depth": 6, "eta": 0.1, "max_bin": 256}
ROUNDS = 100


def load_csv(path):
    a = np.loadtxt(path, delimiter=",", ndmin=2)
    return a[:, 1:], a[:, 0]


def synthetic(kind, n, seed):
    """Deterministic synthetic tasks with mixed feature distributions and missing values."""
    rng = np.random.RandomState(seed)
    d = 20
    X = np.column_stack([
        rng.normal(size=n), rng.exponential(size=n), rng.uniform(-2, 2, size=n),
        rng.randint(0, 7, size=n).astype(float), rng.lognormal(size=n),
    ] + [rng.normal(size=n) for _ in range(d - 5)])
    z = (np.sin(X[:, 0] * 2) + 0.5 * X[:, 1] - 0.3 * X[:, 2] ** 2 + 0.4 * (X[:, 3] > 3)
         + 0.2 * np.log1p(X[:, 4]) + 0.3 * X[:, 5] * X[:, 6] + 0.1 * X[:, 7:].sum(axis=1))
    X[rng.uniform(size=X.shape) < 0.03] = np.nan
    if kind in ("binary", "hinge"):
        y = (z + rng.logistic(scale=0.5, size=n) > np.median(z)).astype(float)
    elif kind == "multiclass":
        y = np.digitize(z + rng.normal(scale=0.4, size=n), np.quantile(z, [0.2, 0.4, 0.6, 0.8])).astype(float)
    elif kind == "count":
        y = rng.poisson(np.exp(0.5 * z)).astype(float)
    elif kind == "gamma":
        y = rng.gamma(2.0, np.exp(0.5 * z) / 2.0)
    elif kind == "tweedie":  # compound Poisson-gamma: exact zeros and positive amounts
        counts = rng.poisson(np.exp(0.4 * z))
        y = np.array([rng.gamma(2.0, 0.5, size=c).sum() for c in counts])
    elif kind == "squaredlog":
        y = np.exp(0.4 * z + rng.normal(scale=0.3, size=n)) - 0.5
    elif kind in ("absolute", "quantile"):  # skewed, heavy-tailed noise and 5% outliers
        y = z + rng.exponential(scale=0.5, size=n) + np.where(rng.uniform(size=n) < 0.05, rng.normal(scale=10, size=n), 0)
    elif kind == "cox":  # proportional hazards: exponential times with rate exp(z), 30% censored
        t = rng.exponential(size=n) / np.exp(0.8 * z)
        c = rng.uniform(size=n) < 0.3
        y = np.where(c, -t * rng.uniform(0.2, 1.0, size=n), t)
    elif kind == "aft":  # log-normal times; columns: lower, upper
        t = np.exp(0.7 * z + rng.normal(scale=0.5, size=n))
        u = rng.uniform(size=n)
        lo = np.where(u < 0.25, t * rng.uniform(0.3, 1.0, size=n), np.where(u < 0.4, t * 0.7, t))
        hi = np.where(u < 0.25, np.inf, np.where(u < 0.4, t * 1.4, t))
        y = np.column_stack([lo, hi])
    elif kind == "huber":  # 5% gross outliers
        y = z + rng.normal(scale=0.3, size=n) + np.where(rng.uniform(size=n) < 0.05, rng.normal(scale=10, size=n), 0)
    else:
        y = z + rng.normal(scale=0.3, size=n)
    cut = int(0.8 * n)
    return (X[:cut], y[:cut]), (X[cut:], y[cut:])


def write_csv(path, X, y):
    if y.ndim == 2:  # survival:aft: the bounds go to the side files PATH.lower and PATH.upper
        for ext, col in (("lower", 0), ("upper", 1)):
            with open(path + "." + ext, "w") as f:
                f.write("".join("%.9g\n" % v if np.isfinite(v) else "inf\n" for v in y[:, col]))
        y = y[:, 0]
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(",".join(["%.9g" % label] + ["" if np.isnan(v) else "%.9g" % v for v in row]) + "\n")


def metrics_for(task):
    return {"binary": ["auc", "logloss"], "regression": ["rmse"], "multiclass": ["mlogloss", "merror"],
            "count": ["poisson-nloglik"], "gamma": ["gamma-nloglik", "gamma-deviance"],
            "tweedie": ["tweedie-nloglik@1.5"], "squaredlog": ["rmsle"], "huber": ["mphe"],
            "hinge": ["error"], "absolute": ["mae"], "quantile": ["quantile"], "cox": ["cox-nloglik"],
            "aft": ["aft-nloglik"]}[task]


NEW_OBJECTIVES = {"count": "count:poisson", "gamma": "reg:gamma", "tweedie": "reg:tweedie",
                  "squaredlog": "reg:squaredlogerror", "huber": "reg:pseudohubererror", "hinge": "binary:hinge",
                  "absolute": "reg:absoluteerror", "quantile": "reg:quantileerror",
                  "cox": "survival:cox", "aft": "survival:aft"}
QUANTILES = [0.1, 0.5, 0.9]


def objective_for(task, nclass):
    if task == "binary":
        return {"objective": "binary:logistic"}
    if task == "regression":
        return {"objective": "reg:squarederror"}
    if task == "quantile":
        return {"objective": NEW_OBJECTIVES[task], "quantile_alpha": QUANTILES}
    if task in NEW_OBJECTIVES:
        return {"objective": NEW_OBJECTIVES[task]}
    return {"objective": "multi:softprob", "num_class": nclass}


def score(metric, y, p):
    eps = 1e-16
    if metric == "auc":
        from sklearn.metrics import roc_auc_score
        return roc_auc_score(y, p)
    if metric == "logloss":
        p = np.clip(p, eps, 1 - eps)
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    if metric == "rmse":
        return float(np.sqrt(np.mean((p - y) ** 2)))
    if metric == "mlogloss":
        return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y.astype(int)], eps, 1))))
    if metric == "merror":
        return float(np.mean(np.argmax(p, axis=1) != y))
    # the metrics of issue 9, from their definitions (p is the predicted mean)
    if metric == "poisson-nloglik":
        p = np.maximum(p, eps)
        return float(np.mean([math.lgamma(v + 1) for v in y] + p - np.log(p) * y))
    if metric == "gamma-nloglik":
        return float(np.mean(y / p + np.log(p)))
    if metric == "gamma-deviance":
        t = (y + 1e-6) / (p + 1e-6)
        return float(2 * np.mean(t - np.log(t) - 1))
    if metric == "tweedie-nloglik@1.5":
        rho = 1.5
        return float(np.mean(-y * p ** (1 - rho) / (1 - rho) + p ** (2 - rho) / (2 - rho)))
    if metric == "rmsle":
        return float(np.sqrt(np.mean((np.log1p(p) - np.log1p(y)) ** 2)))
    if metric == "mphe":
        return float(np.mean(np.sqrt(1 + (p - y) ** 2) - 1))
    if metric == "error":
        return float(np.mean((p > 0.5) != (y > 0.5)))
    if metric == "mae":
        return float(np.mean(np.abs(p - y)))
    if metric == "quantile":  # the pinball loss, averaged over rows and quantiles
        d = y[:, None] - p.reshape(len(y), len(QUANTILES))
        a = np.array(QUANTILES)[None, :]
        return float(np.mean(np.where(d >= 0, a * d, (a - 1) * d)))
    if metric == "cox-nloglik":  # Breslow: rows of tied times share one risk set; per event
        t = np.abs(y)
        order = np.argsort(t, kind="stable")
        ts, ps = t[order], p[order].astype(float)
        risk_from = np.cumsum(ps[::-1])[::-1]  # sum of p over this row and the later ones
        first = np.searchsorted(ts, ts, side="left")  # a tie group's risk set starts at its first row
        ev = y[order] > 0
        return float(np.sum(np.log(risk_from[first][ev]) - np.log(ps[ev])) / ev.sum())
    if metric == "aft-nloglik":  # normal noise, scale 1: y holds the lower and upper bounds
        lo, hi, m = y[:, 0], y[:, 1], np.log(p.astype(float))
        cdf = lambda z: 0.5 * np.array([math.erfc(-v / math.sqrt(2)) for v in z])
        out = np.empty(len(m))
        obs = lo == hi
        z = np.log(lo[obs]) - m[obs]
        out[obs] = -np.log(np.maximum(np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi) / lo[obs], 1e-12))
        c = ~obs
        fh = np.where(np.isinf(hi[c]), 1.0, cdf(np.log(np.where(np.isinf(hi[c]), 1.0, hi[c])) - m[c]))
        fl = np.where(lo[c] > 0, cdf(np.log(np.maximum(lo[c], 1e-300)) - m[c]), 0.0)
        out[c] = -np.log(np.maximum(fh - fl, 1e-12))
        return float(np.mean(out))
    raise ValueError(metric)


RANKING = [("rank:ndcg", {}), ("rank:pairwise", {}), ("rank:map", {}),
           ("rank:ndcg", {"lambdarank_pair_method": "mean", "lambdarank_num_pair_per_sample": 4})]


def read_libsvm_labels(path):
    """Labels and query ids of a LIBSVM file with qid:."""
    y, q = [], []
    with open(path) as f:
        for line in f:
            t = line.split()
            y.append(float(t[0]))
            q.append(int(t[1].split(":")[1]))
    return np.array(y), np.array(q)


def ranking_metric(metric, y, p, qid):
    """ndcg@k (gain 2^y - 1) or map@k, the mean over the queries (XGBoost's definitions)."""
    k = int(metric.split("@")[1])
    vals = []
    for q in np.unique(qid):
        m = qid == q
        yy, pp = y[m], p[m]
        order = np.argsort(-pp, kind="stable")
        ranked = yy[order]
        if metric.startswith("ndcg"):
            disc = 1.0 / np.log2(np.arange(len(yy)) + 2.0)
            dcg = ((2.0 ** ranked[:k] - 1) * disc[:k]).sum()
            idcg = ((2.0 ** np.sort(yy)[::-1][:k] - 1) * disc[:k]).sum()
            vals.append(dcg / idcg if idcg > 0 else 1.0)
        else:
            hits = np.cumsum(ranked > 0)
            ap = sum(hits[i] / (i + 1.0) for i in range(min(k, len(yy))) if ranked[i] > 0)
            vals.append(ap / min(hits[-1], k) if hits[-1] > 0 else 1.0)
    return float(np.mean(vals))


def on_grid(line, grid):
    """A LIBSVM line with every feature value rounded to a multiple of grid."""
    t = line.split()
    vals = ("%s:%.6g" % (k, round(float(v) / grid) * grid) for k, v in (x.split(":") for x in t[2:]))
    return " ".join(t[:2] + list(vals)) + "\n"


def ranking_sets(datasets, work, queries, nsets):
    """The ranking comparison sets: (name, train path, test path) each.

    Set s has `queries` training and as many test queries, drawn by
    datasets/make_ranking.py's generator from numpy's default_rng(1000 + s)."""
    sys.path.insert(0, datasets)
    import make_ranking
    sets = []
    for s in range(nsets):
        rng = np.random.default_rng(1000 + s)
        paths = []
        for part, qid0 in (("train", 1), ("test", queries + 1)):
            paths.append(os.path.join(work, "rank%d.%s.libsvm" % (s, part)))
            with open(paths[-1], "w") as f:
                f.write("\n".join(make_ranking.make(rng, queries, qid0)) + "\n")
        sets.append(("set %d, %d/%d queries" % (s, queries, queries), paths[0], paths[1]))
    return sets


def rewrite_libsvm(src, dst, grid, binary):
    """src's lines into dst: features rounded to multiples of grid (if
    grid), labels >= 2 as 1 and the rest as 0 (if binary)."""
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            if grid:
                line = on_grid(line, grid)
            if binary:
                label, rest = line.split(" ", 1)
                line = "%d %s" % (float(label) >= 2, rest)
            g.write(line)


def permute_queries(src, dst, seed):
    """src's query groups (consecutive rows of one qid) into dst in a random order."""
    groups = []
    with open(src) as f:
        for line in f:
            qid = line.split()[1]
            if not groups or groups[-1][0] != qid:
                groups.append((qid, []))
            groups[-1][1].append(line)
    order = np.random.default_rng(seed).permutation(len(groups))
    with open(dst, "w") as g:
        for i in order:
            g.writelines(groups[i][1])


DRAWS = 5  # query orders over which the objectives with sampled pairs are averaged


def run_ranking(sets, gbt_bin, work, nthread, grid=None):
    """Rows of the ranking comparison and the number outside the tolerance.

    Each row also gives XGBoost's own score with max_bin 255 minus its
    score with 256: how far the test score moves when only the bin cuts
    move, the resolution of the comparison on that set.  With grid, every
    feature value is first rounded to a multiple of it, so that each feature
    has fewer distinct values than bins and both libraries have the same
    candidate splits (the difference left is the algorithm's).

    lambdarank_pair_method=mean draws its pairs at random, from other
    generators in the two libraries (XGBoost 3.2's draws do not follow
    `seed`; they follow the round and the query's position), so one model
    of each is one draw: both libraries train on DRAWS orders of the
    training queries (the file's, then random permutations) and the row
    compares the mean scores, with each library's range over the draws."""
    import xgboost as xgb
    rows, failed = [], 0
    for setname, train, test in sets:
        src, binary = {}, {}
        for part, path in (("train", train), ("test", test)):
            src[part] = path
            if grid:
                src[part] = path.replace(".libsvm", ".grid.libsvm")
                rewrite_libsvm(path, src[part], grid, False)
            binary[part] = path.replace(".libsvm", ".binary.libsvm")  # rank:map: grades 2 and up
            rewrite_libsvm(src[part], binary[part], None, True)
        for obj, extra in RANKING:
            files = binary if obj == "rank:map" else src
            y, qid = read_libsvm_labels(files["test"])
            params = dict(PARAMS, objective=obj, **extra)
            dtest = xgb.DMatrix(files["test"] + "?format=libsvm")
            metrics = ["map@10"] if obj == "rank:map" else ["ndcg@10", "ndcg@5"]
            scores = {m: {"x256": [], "x255": [], "gbt": []} for m in metrics}
            for draw in range(DRAWS if extra.get("lambdarank_pair_method") == "mean" else 1):
                trainfile = files["train"]
                if draw:
                    trainfile = os.path.join(work, "permuted.libsvm")
                    permute_queries(files["train"], trainfile, draw)
                dtrain = xgb.DMatrix(trainfile + "?format=libsvm")
                px = {mb: xgb.train(dict(params, tree_method="hist", nthread=nthread, max_bin=mb),
                                    dtrain, ROUNDS).predict(dtest) for mb in (256, 255)}
                pg = run_gbt(params, trainfile, files["test"], gbt_bin, work)
                for m in metrics:
                    scores[m]["x256"].append(ranking_metric(m, y, px[256], qid))
                    scores[m]["x255"].append(ranking_metric(m, y, px[255], qid))
                    scores[m]["gbt"].append(ranking_metric(m, y, pg, qid))
            name = obj + (", features on a %g grid" % grid if grid else "")
            for m in metrics:
                sc = scores[m]
                sx, sg, s255 = (float(np.mean(sc[k])) for k in ("x256", "gbt", "x255"))
                label = name
                if len(sc["gbt"]) > 1:
                    label += " (mean pairs, 4 a document; the mean of %d draws: XGBoost %.5f-%.5f, gbt %.5f-%.5f)" % (
                        len(sc["gbt"]), min(sc["x256"]), max(sc["x256"]), min(sc["gbt"]), max(sc["gbt"]))
                ok = abs(sg - sx) <= 0.005
                failed += not ok
                rows.append("| %s | %s | %s | %.5f | %.5f | %+.5f | %+.5f | 0.005 | %s |" % (
                    label, setname, m, sx, sg, sg - sx, s255 - sx, "ok" if ok else "OUTSIDE"))
    return rows, failed


def run_xgboost(params, train, test, nthread):
    import xgboost as xgb
    p = dict(params, tree_method="hist", nthread=nthread)
    if train[1].ndim == 2:  # survival:aft: interval bounds
        d = xgb.DMatrix(train[0])
        d.set_float_info("label_lower_bound", train[1][:, 0])
        d.set_float_info("label_upper_bound", train[1][:, 1])
    else:
        d = xgb.DMatrix(train[0], label=train[1])
    b = xgb.train(p, d, ROUNDS)
    return b.predict(xgb.DMatrix(test[0]))


def run_gbt(params, train, test, gbt_bin, work):
    """gbtrain on the file train, gbpredict on test: the predictions."""
    model = os.path.join(work, "model.json")
    pred = os.path.join(work, "pred.txt")
    args = [os.path.join(gbt_bin, "gbtrain"), "-q", "--num_round=%d" % ROUNDS]
    args += ["--%s=%s" % (k, ",".join(map(str, v)) if isinstance(v, list) else v) for k, v in params.items()]
    subprocess.run(args + [train, model], check=True)
    subprocess.run([os.path.join(gbt_bin, "gbpredict"), "-q", test, model, pred], check=True)
    return np.loadtxt(pred, ndmin=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gbt-bin", default=".", help="directory holding gbtrain and gbpredict")
    ap.add_argument("--datasets", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "datasets"))
    ap.add_argument("--nthread", type=int, default=2)
    ap.add_argument("--out", help="also write the markdown table here")
    ap.add_argument("--only", help="comma-separated names of the sets to run (e.g. count,gamma; default all)")
    ap.add_argument("--ranking-queries", type=int, default=10000,
                    help="training (and test) queries of each ranking set (default 10000)")
    ap.add_argument("--ranking-sets", type=int, default=3, help="number of ranking sets (default 3)")
    args = ap.parse_args()
    import xgboost

    only = set(args.only.split(",")) if args.only else set()
    cases = [("breast_cancer", "binary"), ("digits", "multiclass"), ("diabetes", "regression")]
    rows, failed = [], 0
    with tempfile.TemporaryDirectory() as work:
        sets = []
        for name, task in cases:
            tr = os.path.join(args.datasets, name + ".train.csv")
            te = os.path.join(args.datasets, name + ".test.csv")
            sets.append((name, task, load_csv(tr), load_csv(te), tr, te))
        for kind, n in [("binary", 100000), ("multiclass", 50000), ("regression", 100000),
                        ("count", 30000), ("gamma", 30000), ("tweedie", 30000), ("squaredlog", 30000),
                        ("huber", 30000), ("hinge", 30000), ("absolute", 30000), ("quantile", 30000),
                        ("cox", 30000), ("aft", 30000)]:
            if only and kind not in only:
                continue
            train, test = synthetic(kind, n, seed=len(kind))
            tr = os.path.join(work, "syn_%s.train.csv" % kind)
            te = os.path.join(work, "syn_%s.test.csv" % kind)
            write_csv(tr, *train)
            write_csv(te, *test)
            sets.append(("synthetic %s (%dk rows)" % (kind, n // 1000), kind, train, test, tr, te))
        for name, task, train, test, tr_csv, te_csv in sets:
            if only and name not in only and task not in only:
                continue
            nclass = int(train[1].max()) + 1 if task == "multiclass" else 0
            params = dict(PARAMS, **objective_for(task, nclass))
            px = run_xgboost(params, train, test, args.nthread)
            pg = run_gbt(params, tr_csv, te_csv, args.gbt_bin, work)
            if task == "multiclass":
                pg = pg.reshape(len(test[1]), nclass)
            for m in metrics_for(task):
                sx, sg = score(m, test[1], px), score(m, test[1], pg)
                if m == "mlogloss":
                    tol, ok = "1.5%", abs(sg - sx) <= 0.015 * sx
                elif m == "merror":
                    tol, ok = "-", True
                elif task in NEW_OBJECTIVES and m != "error":
                    tol, ok = "1%", abs(sg - sx) <= 0.01 * abs(sx)
                else:
                    tol, ok = "0.005", abs(sg - sx) <= 0.005
                failed += not ok
                rows.append("| %s | %s | %.5f | %.5f | %+.5f | %s | %s |" % (
                    name, m, sx, sg, sg - sx, tol, "ok" if ok else "OUTSIDE"))
        rank_rows = []
        if not only or "ranking" in only or "ranking-grid" in only:
            rsets = ranking_sets(args.datasets, work, args.ranking_queries, args.ranking_sets)
            for grid in (None, 0.1):
                if not only or ("ranking-grid" if grid else "ranking") in only:
                    rrows, rfailed = run_ranking(rsets, args.gbt_bin, work, args.nthread, grid)
                    rank_rows += rrows
                    failed += rfailed
    table = []
    if rows:
        table += ["| dataset | metric | XGBoost %s | gbt | gbt - XGBoost | tolerance | |" % xgboost.__version__,
                  "|---|---|---|---|---|---|---|"] + rows
    if rank_rows:
        table += [""] if rows else []
        table += ["| objective | set | metric | XGBoost %s | gbt | gbt - XGBoost | XGBoost 255 bins - 256 "
                  "| tolerance | |" % xgboost.__version__, "|---|---|---|---|---|---|---|---|---|"] + rank_rows
    text = "\n".join(table)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
