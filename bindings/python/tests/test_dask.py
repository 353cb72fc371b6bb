"""gbt.dask on a Dask cluster started by dask-mpi: one `mpirun -np 5` of
dask_worker.py (scheduler, client, three workers; every server on
127.0.0.1) does every case, against this process's training on all the rows
(no MPI, no Dask): gbt.dask.train's model bytes and history (depthwise and
lossguide, early stopping on an evaluation set; 2 partitions for 3 workers;
DaskQuantileDMatrix), gbt.dask.predict, the regressor and the ranker (qid),
DaskXGBClassifier on a dask DataFrame with a category column, a worker whose
data fails (every worker stops with its message), and a worker killed during
training (a clear error on the client, in bounded time).  A parameter
differing on one rank cannot happen here (the client sends one parameter
dict to every worker); test_mpi.py covers the library's check."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import gbt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dask_worker  # noqa: E402
import mpi_worker  # noqa: E402
from test_mpi import mpi_env, need_mpirun, reference  # noqa: E402

LIMIT_S = 150  # the whole run; about 20 s on an idle machine


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """What the client got: (facts, model bytes by case)."""
    mpirun = need_mpirun(["mpi4py", "dask", "distributed", "dask_mpi", "pyarrow"],
                         "pip install mpi4py dask[dataframe] distributed dask-mpi")
    out = tmp_path_factory.mktemp("dask")
    env = dict(os.environ, DASK_LOGGING__DISTRIBUTED="error", PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               **mpi_env(out))
    # --enable-recovery: the killed worker must not make mpirun end the client too
    proc = subprocess.Popen([mpirun, "-np", "5", "--oversubscribe", "--enable-recovery", sys.executable,
                             os.path.join(HERE, "dask_worker.py"), str(out)],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    facts = out / "facts.json"
    deadline = time.monotonic() + LIMIT_S
    while not facts.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    # the workers left wait in MPI for the killed one: the job ends here (mpirun ends its ranks on SIGTERM)
    time.sleep(0.5)
    proc.terminate()
    _, err = proc.communicate()
    assert facts.exists(), f"the client wrote nothing in {LIMIT_S} s (rc {proc.returncode}): {err[-3000:]}"
    models = {p.name.split(".")[0]: p.read_bytes() for p in out.glob("*.model")}
    return json.loads(facts.read_text()), models


def test_three_workers(cluster):
    assert cluster[0]["workers"] == 3


@pytest.mark.parametrize("case,params", [("depthwise", mpi_worker.PARAMS), ("lossguide", mpi_worker.LOSSGUIDE),
                                         ("two_partitions", mpi_worker.PARAMS), ("quantile", mpi_worker.PARAMS)])
def test_train_gives_the_one_process_model(cluster, case, params):
    facts, models = cluster
    ref, history = reference(params)
    assert models[case] == ref
    if case in ("depthwise", "lossguide"):
        assert facts[f"{case}_history"] == history


def test_predict_partition_wise(cluster):
    X, _, _, _ = mpi_worker.data()
    b = gbt.Booster()
    b.load_model(bytearray(cluster[1]["lossguide"]))
    assert np.array_equal(np.asarray(cluster[0]["predict"], dtype=np.float32), b.predict(gbt.DMatrix(X)))


def test_classifier_on_a_dataframe_with_a_category_column(cluster):
    facts, models = cluster
    (F, y), (Fv, yv) = dask_worker.frame()
    clf = gbt.XGBClassifier(n_estimators=mpi_worker.ROUNDS, max_depth=3, learning_rate=0.6, n_jobs=1,
                            enable_categorical=True, early_stopping_rounds=2)
    clf.fit(F, y, eval_set=[(Fv, yv)], verbose=False)
    assert clf.best_iteration < mpi_worker.ROUNDS - 1, "early stopping must stop"
    assert models["classifier"] == bytes(clf.get_booster().save_raw("gbt"))
    assert facts["classifier_predict"] == clf.predict(Fv).tolist()
    assert np.array_equal(facts["classifier_proba"], clf.predict_proba(Fv)[:, 1])


def test_regressor_and_ranker(cluster):
    X, y, _, _ = mpi_worker.data()
    reg = gbt.XGBRegressor(n_estimators=3, max_depth=3, n_jobs=1).fit(X, y)
    assert cluster[1]["regressor"] == bytes(reg.get_booster().save_raw("gbt"))
    rank = gbt.XGBRanker(n_estimators=3, max_depth=3, n_jobs=1).fit(X, y, qid=np.arange(len(y)) // 10)
    assert cluster[1]["ranker"] == bytes(rank.get_booster().save_raw("gbt"))
    assert np.array_equal(np.asarray(cluster[0]["ranker_predict"], dtype=np.float32), rank.predict(X))


def test_a_worker_whose_data_fails_stops_every_worker(cluster):
    assert cluster[0]["bad_label"].startswith("ValueError: gbt.dask: worker ")
    assert cluster[0]["bad_label"].endswith("could not build its datasets: ValueError: Label contains NaN, infinity or a value too large")


def test_a_killed_worker_fails_the_training_on_the_client(cluster):
    facts = cluster[0]
    assert facts["killed"].startswith("RuntimeError: gbt.dask.train: worker tcp://127.0.0.1:")
    assert f"(MPI rank {dask_worker.KILLED}) left the cluster during training" in facts["killed"]
    assert "no model was made" in facts["killed"]
    assert facts["killed_after_s"] < 30
