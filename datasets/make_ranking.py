#!/usr/bin/env python3
"""Writes the synthetic learning-to-rank set rank.{train,test}.libsvm.

No public ranking set with a compatible licence was at hand offline (neither
scikit-learn nor the other installed packages ship one), so this set is
generated: queries of 5 to 40 documents, 12 features (some informative
through non-linear terms, some pure noise, some missing), graded relevance
0-4 from a latent score with per-query offsets and noise, so that the
ranking within a query is learnable but not perfectly.  LIBSVM rows with
qid:, the rows of a query consecutive.  Fixed seed; run from this directory:

    python3 make_ranking.py
"""
import numpy as np

NFEAT = 12


def make(rng, nq, qid0):
    rows = []
    for q in range(nq):
        n = int(rng.integers(5, 41))
        X = rng.normal(size=(n, NFEAT))
        X[:, 3] = np.round(rng.uniform(0, 5, n))  # a few discrete values
        offset = rng.normal() * 0.8  # per-query shift: only the order within a query matters
        latent = (1.2 * X[:, 0] + 0.8 * np.tanh(2 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 4]
                  + 0.3 * X[:, 3] - 0.6 * np.abs(X[:, 5]) + offset
                  + rng.normal(size=n) * 0.7)
        # graded relevance: thresholds on the latent score, most documents irrelevant
        rel = np.digitize(latent, [0.8, 1.8, 2.6, 3.4])
        missing = rng.uniform(size=(n, NFEAT)) < 0.05
        for i in range(n):
            feats = " ".join("%d:%s" % (f + 1, repr(round(float(X[i, f]), 4)))
                             for f in range(NFEAT) if not missing[i, f])
            rows.append("%d qid:%d %s" % (rel[i], qid0 + q, feats))
    return rows


def main():
    rng = np.random.default_rng(20261123)
    for name, nq, qid0 in (("rank.train.libsvm", 400, 1), ("rank.test.libsvm", 400, 1001)):
        rows = make(rng, nq, qid0)
        with open(name, "w") as f:
            f.write("\n".join(rows) + "\n")
        print(name, len(rows), "rows", nq, "queries")


if __name__ == "__main__":
    main()
