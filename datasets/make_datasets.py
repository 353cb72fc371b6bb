#!/usr/bin/env python3
"""Writes the bundled datasets from the copies scikit-learn ships.

Each dataset is split once, with a fixed seed, into 75% training and 25%
test rows (stratified by class for classification), and written as CSV with
the label in column 0 and no header.  Run from this directory:

    python3 make_datasets.py
"""
import numpy as np
from sklearn import datasets


def split(n, y=None, seed=20261121):
    rng = np.random.RandomState(seed)
    if y is None:
        idx = rng.permutation(n)
        cut = int(round(0.75 * n))
        return np.sort(idx[:cut]), np.sort(idx[cut:])
    train, test = [], []
    for c in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == c))
        cut = int(round(0.75 * len(rows)))
        train.extend(rows[:cut])
        test.extend(rows[cut:])
    return np.sort(train), np.sort(test)


def number(v):
    v = float(v)
    return str(int(v)) if v == int(v) else repr(v)


def write(name, X, y, rows):
    with open(name, "w") as f:
        for r in rows:
            f.write(",".join([number(y[r])] + [repr(float(v)) for v in X[r]]) + "\n")


def main():
    sets = {
        "breast_cancer": (datasets.load_breast_cancer(return_X_y=True), True),
        "digits": (datasets.load_digits(return_X_y=True), True),
        "diabetes": (datasets.load_diabetes(return_X_y=True, scaled=False), False),
    }
    for name, ((X, y), classify) in sets.items():
        train, test = split(len(y), y if classify else None)
        write(name + ".train.csv", X, y, train)
        write(name + ".test.csv", X, y, test)
        print(name, X.shape, "train", len(train), "test", len(test))


if __name__ == "__main__":
    main()
