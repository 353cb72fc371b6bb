#!/usr/bin/env python3
"""Writes survival.{train,test}.csv: a small synthetic survival set.

No survival dataset with a compatible licence was at hand offline (the
installed packages ship none), so this generator makes one, with a fixed
seed (numpy's RandomState, stable across versions).  Each of 800 rows has 6
features (normal, uniform, exponential, a 0-4 category, two pure-noise
columns), a Weibull event time whose log is linear in the first four
features, and an independent uniform censoring time, after which a row is
right-censored (about 1 in 5).  Files, 600 training and 200 test rows:

    survival.{train,test}.csv        label, features: the label is the time,
                                     negative when censored (survival:cox)
    survival.{train,test}.csv.lower  the interval [lower, upper] holding each
    survival.{train,test}.csv.upper  time (survival:aft): [t, t] when observed,
                                     [c, inf] when censored at c

Run from this directory:

    python3 make_survival.py
"""
import numpy as np


def main():
    rng = np.random.RandomState(20261123)
    n = 800
    X = np.column_stack([rng.normal(size=n), rng.uniform(-1, 1, size=n), rng.exponential(size=n),
                         rng.randint(0, 5, size=n).astype(float), rng.normal(size=n), rng.normal(size=n)])
    log_scale = 1.0 + 0.6 * X[:, 0] - 0.8 * X[:, 1] + 0.3 * np.log1p(X[:, 2]) + 0.2 * (X[:, 3] >= 3)
    t = np.exp(log_scale) * rng.weibull(1.5, size=n)
    c = rng.uniform(0, np.quantile(t, 0.95) * 1.6, size=n)
    event = t <= c
    time = np.where(event, t, c)
    label = np.where(event, time, -time)
    for name, rows in (("survival.train.csv", range(0, 600)), ("survival.test.csv", range(600, n))):
        with open(name, "w") as f, open(name + ".lower", "w") as lo, open(name + ".upper", "w") as hi:
            for r in rows:
                f.write(",".join(["%.6g" % label[r]] + ["%.6g" % v for v in X[r]]) + "\n")
                lo.write("%.6g\n" % time[r])
                hi.write("%.6g\n" % time[r] if event[r] else "inf\n")


if __name__ == "__main__":
    main()
