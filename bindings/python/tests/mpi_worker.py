"""One rank of test_mpi.py's trainings, started by `mpirun -np 3 python3
mpi_worker.py OUTDIR`: each rank takes its rows of the generated data (rank
order = row order) and trains, and writes what it got to OUTDIR
(CASE.RANK.model: the model's bytes; RANK.json: the rest), for the test to
compare with one process's training on all the rows."""
import json
import os
import sys

import numpy as np

ROUNDS = 12


def data():
    """Training and validation sets: 5 features, noisy binary labels (the
    validation loss stops improving within ROUNDS rounds at eta 0.6)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(500, 5)).astype(np.float32)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) + rng.normal(scale=1.0, size=500)) > 0)
    return X[:300], y[:300].astype(np.float32), X[300:], y[300:].astype(np.float32)


PARAMS = {"objective": "binary:logistic", "eta": 0.6, "max_depth": 3, "nthread": 1, "seed": 1}
LOSSGUIDE = dict(PARAMS, grow_policy="lossguide", max_leaves=6, max_depth=0)
RANK = dict(PARAMS, objective="rank:ndcg")


def part(a, rank, size):
    n = len(a)
    return a[rank * n // size:(rank + 1) * n // size]


def main(out):
    from mpi4py import MPI

    import gbt
    from gbt import collective

    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    X, y, Xv, yv = data()
    facts = {}

    def save(case, booster):
        with open(os.path.join(out, f"{case}.{rank}.model"), "wb") as f:
            f.write(booster.save_raw("gbt"))

    def shards(r, n):
        return (gbt.DMatrix(part(X, r, n), part(y, r, n)), gbt.DMatrix(part(Xv, r, n), part(yv, r, n)))

    # gbt.train(comm=), depthwise, early stopping on an evaluation set, the history callbacks see
    dtrain, dvalid = shards(rank, size)
    history = {}
    b = gbt.train(PARAMS, dtrain, ROUNDS, evals=[(dvalid, "valid")], early_stopping_rounds=2,
                  evals_result=history, verbose_eval=False, comm=world)
    save("depthwise", b)
    facts["depthwise_history"] = history

    # XGBoost's way: gbt.train without comm= inside CommunicatorContext (COMM_WORLD), as the
    # estimators' fit calls it; lossguide
    with collective.CommunicatorContext():
        facts["rank"], facts["size"] = collective.get_rank(), collective.get_world_size()
        facts["distributed"] = collective.is_distributed()
        facts["sum"] = collective.allreduce(np.array([rank, 1], dtype=np.int64), collective.Op.SUM).tolist()
        facts["max"] = collective.allreduce(np.array([rank * 0.5]), collective.Op.MAX).tolist()
        facts["bcast"] = collective.broadcast({"from": rank}, size - 1)
        try:
            gbt.cv(PARAMS, dtrain, 2)
            facts["cv"] = None
        except ValueError as e:
            facts["cv"] = str(e)
        b = gbt.train(LOSSGUIDE, dtrain, ROUNDS, evals=[(dvalid, "valid")], early_stopping_rounds=2,
                      verbose_eval=False)
    facts["after_context"] = [collective.get_rank(), collective.get_world_size()]
    save("lossguide", b)

    # a communicator of ranks 0 and 1 only (comm.Split): two shares of the rows
    sub = world.Split(0 if rank < 2 else MPI.UNDEFINED, rank)
    if sub != MPI.COMM_NULL:
        dtrain2, dvalid2 = shards(rank, 2)
        b = gbt.train(PARAMS, dtrain2, ROUNDS, evals=[(dvalid2, "valid")], early_stopping_rounds=2,
                      verbose_eval=False, comm=sub)
        save("depthwise2", b)
        sub.Free()

    # QuantileDMatrix(DataIter) made inside the context over every rank (gbt_dataset_from_iter_ext_mpi), in
    # 2 batches a rank; regression, then rank:ndcg with qid (each rank's rows whole queries)
    class Batches(gbt.DataIter):
        def __init__(self, Xr, yr, qid=None):
            super().__init__()
            half = len(Xr) // 24 * 12  # a query (12 rows) lies within one batch
            self.parts = [(Xr[:half], yr[:half], None if qid is None else qid[:half]),
                          (Xr[half:], yr[half:], None if qid is None else qid[half:])]
            self.at = 0

        def next(self, input_data):
            if self.at == len(self.parts):
                return False
            Xb, yb, qb = self.parts[self.at]
            extra = {} if qb is None else {"qid": qb}
            input_data(data=Xb, label=yb, **extra)
            self.at += 1
            return True

        def reset(self):
            self.at = 0

    with collective.CommunicatorContext():
        b = gbt.train(PARAMS, gbt.QuantileDMatrix(Batches(part(X, rank, size), part(y, rank, size))), 4)
        save("iter", b)
        q = np.repeat(np.arange(300 // 12), 12)  # 25 queries of 12 rows; every rank's share whole queries
        cut = [r * 300 // size // 12 * 12 for r in range(size)] + [300]
        sl = slice(cut[rank], cut[rank + 1])
        b = gbt.train(RANK, gbt.QuantileDMatrix(Batches(X[sl], y[sl] * 2, q[sl])), 4)
        save("iter_rank", b)
        # ExtMemQuantileDMatrix (gbt_dataset_from_iter_ext_mpi): each rank's binned rows in its own page file
        pages = os.path.join(out, "pages", "")
        os.makedirs(pages, exist_ok=True)
        it = Batches(part(X, rank, size), part(y, rank, size))
        it.cache_prefix = pages
        mine = f"gbt-{os.getpid()}-"
        dpages = gbt.ExtMemQuantileDMatrix(it)
        facts["page_files"] = sum(f.startswith(mine) for f in os.listdir(pages))
        save("iter_pages", gbt.train(PARAMS, dpages, 4))
        del dpages  # and the booster, freed after save: the file removed
        facts["pages_left"] = sum(f.startswith(mine) for f in os.listdir(pages))
    try:  # made outside a context: its cuts are its own rows', refused by a distributed training
        gbt.train(PARAMS, gbt.QuantileDMatrix(Batches(part(X, rank, size), part(y, rank, size))), 1, comm=world)
        facts["iter_alone"] = None
    except gbt.GBTError as e:
        facts["iter_alone"] = str(e)

    # a callback that stops rank 1 only after round 2: every rank stops there; the evaluation log
    # (verbose_eval) prints on rank 0 only
    class StopOnRank1(gbt.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            return rank == 1 and epoch == 2

    b = gbt.train(PARAMS, dtrain, ROUNDS, evals=[(dvalid, "valid")], verbose_eval=True,
                  callbacks=[StopOnRank1()], comm=world)
    sys.stdout.flush()
    facts["stopped_rounds"] = b.num_boosted_rounds()

    # one parameter differs on the last rank: every rank gets its error
    try:
        gbt.train(dict(PARAMS, max_depth=4 if rank == size - 1 else 3), dtrain, 2, verbose_eval=False, comm=world)
        facts["mismatch"] = None
    except gbt.GBTError as e:
        facts["mismatch"] = f"{type(e).__name__}: {e}"

    with open(os.path.join(out, f"{rank}.json"), "w") as f:
        json.dump(facts, f)


if __name__ == "__main__":
    main(sys.argv[1])
