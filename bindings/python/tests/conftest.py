"""Shared fixtures: the repository's data sets and the gbtrain CLI that the
package's models are compared with."""
import os
import shutil
import subprocess

# Threads that wait for work sleep instead of spinning: CI's 2 cores are
# shared, and libgomp's spinning makes a round 30 times slower when the
# machine is oversubscribed.  Set before libgbt (and its libgomp) loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DATASETS = os.path.join(ROOT, "datasets")


def find_gbtrain():
    """gbtrain from GBT_GBTRAIN, the package's own build directory, the
    repository root or PATH, or None."""
    cands = [os.environ.get("GBT_GBTRAIN"),
             os.path.join(ROOT, "bindings", "python", "build", "libgbt", "obj", "gbtrain"),
             os.path.join(ROOT, "gbtrain"), shutil.which("gbtrain")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


@pytest.fixture(scope="session")
def gbtrain():
    path = find_gbtrain()
    if path is None:
        pytest.skip("no gbtrain CLI to compare with (build it, or set GBT_GBTRAIN)")
    return path


@pytest.fixture(scope="session")
def gbmodel():
    """The gbmodel CLI next to gbtrain (GBT_GBMODEL, or the same directory)."""
    cands = [os.environ.get("GBT_GBMODEL")]
    train = find_gbtrain()
    if train:
        cands.append(os.path.join(os.path.dirname(train), "gbmodel"))
    cands.append(shutil.which("gbmodel"))
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    pytest.skip("no gbmodel CLI to compare with (build it, or set GBT_GBMODEL)")


def read_model(path):
    """A model file's bytes without its "training_file" line: gbtrain
    records the layout of the file it trained on, which a model trained
    from arrays has no file for (every other byte is the same)."""
    with open(path, "rb") as f:
        return b"".join(l for l in f.read().splitlines(keepends=True)
                        if not l.lstrip().startswith(b'"training_file"'))


def run_gbtrain(gbtrain, args, cwd):
    r = subprocess.run([gbtrain, "-q", *args], cwd=cwd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def load_csv(name):
    """A bundled CSV (label first) as float32 X and y, read as strtof reads it."""
    path = os.path.join(DATASETS, name)
    with open(path) as f:
        rows = [line.strip().split(",") for line in f if line.strip()]
    a = np.array(rows, dtype=np.float32)  # numpy parses each field straight to float32
    return a[:, 1:], a[:, 0], path


@pytest.fixture(scope="session")
def breast_cancer():
    return load_csv("breast_cancer.train.csv")


@pytest.fixture(scope="session")
def breast_cancer_test():
    return load_csv("breast_cancer.test.csv")
