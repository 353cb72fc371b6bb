"""The client script of test_dask.py's cluster, started by `mpirun -np 5
python3 dask_worker.py OUTDIR` with dask-mpi (rank 0 the scheduler, rank 1
this script, ranks 2-4 three workers, every server on 127.0.0.1): it trains
with gbt.dask and writes what it got to OUTDIR (CASE.model: the booster's
bytes; facts.json: the rest) for the test to compare with one process."""
import json
import os
import sys
import time

import numpy as np

import gbt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mpi_worker import LOSSGUIDE, PARAMS, ROUNDS, data  # noqa: E402

CHUNK = 60  # rows per partition: 5 training partitions for 3 workers, 4 of the evaluation set
KILLED = 4  # the MPI rank of the worker the last case kills


def frame():
    """mpi_worker's data as pandas frames with a category column ("colour",
    three categories, one of them missing from the validation rows), and
    labels that depend on it."""
    import pandas as pd

    X, y, Xv, yv = data()
    frames = []
    for A, b in ((X, y), (Xv, yv)):
        f = pd.DataFrame(A[:, :4], columns=["a", "b", "c", "d"])
        colour = np.where(A[:, 4] > 0.4, "red", np.where(A[:, 4] > -0.4, "green", "blue"))
        if len(frames):
            colour[colour == "blue"] = "green"
        f["colour"] = pd.Categorical(colour)
        frames.append((f, np.where(colour == "red", 1.0 - b, b).astype(np.float32)))
    return frames


class KillRank(gbt.callback.TrainingCallback):
    """Kills the worker process of MPI rank KILLED after round 1."""

    def after_iteration(self, model, epoch, evals_log):
        from mpi4py import MPI
        if epoch == 1 and MPI.COMM_WORLD.Get_rank() == KILLED:
            os.kill(os.getpid(), 9)
        return False


def main(out):
    from dask_mpi import initialize
    # every server on 127.0.0.1: the scheduler, the workers, and the HTTP servers both start
    initialize(interface="lo", dashboard=False, dashboard_address="127.0.0.1:0", nthreads=1, memory_limit=0,
               worker_options={"dashboard_address": "127.0.0.1:0"})

    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client

    import gbt.dask

    client = Client()
    facts = {"workers": len(client.scheduler_info(n_workers=-1)["workers"])}
    X, y, Xv, yv = data()
    dX, dy = da.from_array(X, chunks=(CHUNK, -1)), da.from_array(y, chunks=CHUNK)
    dtrain = gbt.dask.DaskDMatrix(client, dX, dy)
    dvalid = gbt.dask.DaskDMatrix(client, da.from_array(Xv, chunks=(CHUNK, -1)), da.from_array(yv, chunks=CHUNK))
    for case, params in (("depthwise", PARAMS), ("lossguide", LOSSGUIDE)):
        res = gbt.dask.train(client, params, dtrain, ROUNDS, evals=[(dvalid, "valid")], early_stopping_rounds=2,
                             verbose_eval=False)
        with open(os.path.join(out, f"{case}.model"), "wb") as f:
            f.write(res["booster"].save_raw("gbt"))
        facts[f"{case}_history"] = res["history"]
    facts["predict"] = gbt.dask.predict(client, res, dX).compute().tolist()
    # DaskQuantileDMatrix: the same model (gbt bins every dataset itself, 256 bins by default)
    res = gbt.dask.train(client, PARAMS, gbt.dask.DaskQuantileDMatrix(client, dX, dy, max_bin=256), ROUNDS,
                         evals=[(dvalid, "valid")], early_stopping_rounds=2, verbose_eval=False)
    with open(os.path.join(out, "quantile.model"), "wb") as f:
        f.write(res["booster"].save_raw("gbt"))
    # 2 partitions for 3 workers: one worker has no share and stays out of the training
    two = gbt.dask.DaskDMatrix(client, da.from_array(X, chunks=(150, -1)), da.from_array(y, chunks=150))
    res = gbt.dask.train(client, PARAMS, two, ROUNDS, evals=[(dvalid, "valid")], early_stopping_rounds=2,
                         verbose_eval=False)
    with open(os.path.join(out, "two_partitions.model"), "wb") as f:
        f.write(res["booster"].save_raw("gbt"))

    (F, fy), (Fv, fyv) = frame()
    dF, dFv = dd.from_pandas(F, npartitions=5), dd.from_pandas(Fv, npartitions=4)
    clf = gbt.dask.DaskXGBClassifier(n_estimators=ROUNDS, max_depth=3, learning_rate=0.6, n_jobs=1,
                                     enable_categorical=True, early_stopping_rounds=2)
    clf.fit(dF, dd.from_pandas(pd.Series(fy), npartitions=5),
            eval_set=[(dFv, dd.from_pandas(pd.Series(fyv), npartitions=4))], verbose=False)
    with open(os.path.join(out, "classifier.model"), "wb") as f:
        f.write(clf.get_booster().save_raw("gbt"))
    facts["classifier_predict"] = clf.predict(dFv).compute().tolist()
    facts["classifier_proba"] = clf.predict_proba(dFv).compute()[:, 1].tolist()

    # the regressor on the arrays, the ranker with query ids (groups of 10 rows, within the partitions)
    reg = gbt.dask.DaskXGBRegressor(n_estimators=3, max_depth=3, n_jobs=1).fit(dX, dy)
    with open(os.path.join(out, "regressor.model"), "wb") as f:
        f.write(reg.get_booster().save_raw("gbt"))
    rank = gbt.dask.DaskXGBRanker(n_estimators=3, max_depth=3, n_jobs=1)
    rank.fit(dX, dy, qid=da.from_array(np.arange(len(y)) // 10, chunks=CHUNK))
    with open(os.path.join(out, "ranker.model"), "wb") as f:
        f.write(rank.get_booster().save_raw("gbt"))
    facts["ranker_predict"] = rank.predict(dX).compute().tolist()

    # a label NaN in one partition: the worker holding it fails to build its dataset, every worker stops
    bad = y.copy()
    bad[CHUNK * 4 + 1] = np.nan
    try:
        gbt.dask.train(client, PARAMS, gbt.dask.DaskDMatrix(client, dX, da.from_array(bad, chunks=CHUNK)), 2,
                       verbose_eval=False)
        facts["bad_label"] = None
    except Exception as e:  # noqa: BLE001
        facts["bad_label"] = f"{type(e).__name__}: {e}"

    # a worker killed during training (last: MPI cannot mend the workers' communicator)
    start = time.monotonic()
    try:
        gbt.dask.train(client, PARAMS, dtrain, ROUNDS, verbose_eval=False, callbacks=[KillRank()])
        facts["killed"] = None
    except Exception as e:  # noqa: BLE001
        facts["killed"] = f"{type(e).__name__}: {e}"
    facts["killed_after_s"] = time.monotonic() - start
    with open(os.path.join(out, "facts.json"), "w") as f:
        json.dump(facts, f)


if __name__ == "__main__":
    main(sys.argv[1])
