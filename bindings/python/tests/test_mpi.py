"""Training across MPI processes from Python (gbt.train's comm=,
gbt.collective): one `mpirun -np 3` of mpi_worker.py, whose ranks each train
on their rows, against this process's training on all the rows (no MPI).
The launch is most of the cost (about 2 CPU-s), so one launch does every
case: 3 ranks, a 2-rank communicator split from them, early stopping on an
evaluation set, depthwise and lossguide, a callback that stops one rank, a
parameter that differs on one rank, the collective operations, and gbt.cv
refused inside the context."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import gbt
from gbt import collective

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mpi_worker  # noqa: E402

NP = 3


def test_one_process_answers_without_a_communicator():
    assert (collective.get_rank(), collective.get_world_size(), collective.is_distributed()) == (0, 1, False)
    a = np.array([1, 2], dtype=np.int32)
    assert collective.allreduce(a, collective.Op.BITWISE_OR).tolist() == [1, 2]
    assert collective.broadcast({"x": 1}, 0) == {"x": 1}
    with pytest.raises(TypeError, match="integer array"):
        collective.allreduce(np.ones(2), collective.Op.BITWISE_AND)
    with pytest.raises(TypeError, match="XGBoost's tracker arguments do not apply"):
        collective.init(dmlc_tracker_uri="127.0.0.1")


def need_mpirun(modules, install):
    """mpirun's path; skips, saying what is missing, without one of the
    Python modules, without mpirun, or with a libgbt built without MPI."""
    for m in modules:
        if importlib.util.find_spec(m) is None:
            pytest.skip(f"{m} is not installed ({install})")
    mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
    if mpirun is None:
        pytest.skip("no mpirun or mpiexec on PATH (apt-get install openmpi-bin)")
    if not gbt.build_info().get("mpi"):
        pytest.skip("this libgbt was built without MPI (configure found no mpicc)")
    return mpirun


def mpi_env(out):
    """As tests/mpi_env.sh: root in CI's containers, no single-copy transfers, session files of our own,
    sockets on the loopback device only (the start-up channel on lo; no TCP transport between the ranks,
    which share one machine, since Open MPI 4.1's listens on every address whatever btl_tcp_if_include says)."""
    return dict(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_orte_tmpdir_base=str(out),
                OMPI_MCA_oob_tcp_if_include="lo", OMPI_MCA_btl_tcp_if_include="lo", OMPI_MCA_btl="self,vader",
                OMP_NUM_THREADS="1")


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    """The worker's outputs: (facts per rank, model bytes by (case, rank), mpirun's standard output)."""
    mpirun = need_mpirun(["mpi4py"], "pip install mpi4py")
    out = tmp_path_factory.mktemp("mpi")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **mpi_env(out))
    proc = subprocess.Popen([mpirun, "-np", str(NP), "--oversubscribe", sys.executable,
                             os.path.join(HERE, "mpi_worker.py"), str(out)],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        log, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.terminate()  # mpirun ends its ranks on SIGTERM
        _, err = proc.communicate()
        pytest.fail(f"mpirun -np {NP} did not finish in 120 s (a rank waits forever?): {err[-2000:]}")
    assert proc.returncode == 0, f"mpirun failed ({proc.returncode}): {err[-2000:]}"
    facts = [json.loads((out / f"{r}.json").read_text()) for r in range(NP)]
    models = {tuple(p.name.split(".")[:2]): p.read_bytes() for p in out.glob("*.model")}
    return facts, models, log


def reference(params):
    """One process on all the rows; the history of its evaluation set."""
    X, y, Xv, yv = mpi_worker.data()
    history = {}
    b = gbt.train(params, gbt.DMatrix(X, y), mpi_worker.ROUNDS, evals=[(gbt.DMatrix(Xv, yv), "valid")],
                  early_stopping_rounds=2, evals_result=history, verbose_eval=False)
    assert b.num_boosted_rounds() < mpi_worker.ROUNDS, "the data must make early stopping stop"
    return bytes(b.save_raw("gbt")), history


@pytest.mark.parametrize("case,params,nranks", [("depthwise", mpi_worker.PARAMS, NP),
                                                ("lossguide", mpi_worker.LOSSGUIDE, NP),
                                                ("depthwise2", mpi_worker.PARAMS, 2)])
def test_every_rank_ends_with_the_one_process_model(ranks, case, params, nranks):
    facts, models, _ = ranks
    ref, history = reference(params)
    for r in range(nranks):
        assert models[(case, str(r))] == ref, f"{case}: rank {r} of {nranks}"
    if case == "depthwise":  # the metrics of the whole evaluation set, on every rank
        assert all(f["depthwise_history"] == history for f in facts)


def test_iterator_datasets_made_in_the_context_give_the_one_process_model(ranks):
    """QuantileDMatrix(DataIter) on each rank (2 batches of its rows): the model
    of one process's in-memory Dataset of all the rows, binary and rank:ndcg;
    ExtMemQuantileDMatrix too (each rank's pages in its own file, removed)."""
    facts, models, _ = ranks
    X, y, _, _ = mpi_worker.data()
    ref = bytes(gbt.train(mpi_worker.PARAMS, gbt.DMatrix(X, y), 4).save_raw("gbt"))
    q = np.repeat(np.arange(300 // 12), 12)
    ref_rank = bytes(gbt.train(mpi_worker.RANK, gbt.DMatrix(X, y * 2, qid=q), 4).save_raw("gbt"))
    for r in range(NP):
        assert models[("iter", str(r))] == ref, f"rank {r}"
        assert models[("iter_pages", str(r))] == ref, f"rank {r}, ExtMemQuantileDMatrix"
        assert (facts[r]["page_files"], facts[r]["pages_left"]) == (1, 0), f"rank {r}: one page file, removed"
        assert models[("iter_rank", str(r))] == ref_rank, f"rank {r}, rank:ndcg"
        assert "made from batches by itself" in facts[r]["iter_alone"], facts[r]["iter_alone"]


def test_a_callback_stopping_one_rank_stops_every_rank_there(ranks):
    assert [f["stopped_rounds"] for f in ranks[0]] == [3] * NP


def test_the_evaluation_log_prints_on_rank_0_only(ranks):
    rounds = [line.split("\t")[0] for line in ranks[2].splitlines() if line.startswith("[")]
    assert rounds == ["[0]", "[1]", "[2]"]


def test_a_parameter_differing_on_one_rank_fails_every_rank(ranks):
    for f in ranks[0]:
        assert f["mismatch"] == (f"ParamError: rank {NP - 1}: its parameters differ from rank 0's: every process "
                                 "must set the same parameters")


def test_collective_operations(ranks):
    for r, f in enumerate(ranks[0]):
        assert (f["rank"], f["size"], f["distributed"]) == (r, NP, True)
        assert f["sum"] == [sum(range(NP)), NP]
        assert f["max"] == [(NP - 1) * 0.5]
        assert f["bcast"] == {"from": NP - 1}
        assert f["after_context"] == [0, 1]
        assert f["cv"].startswith("gbt.cv runs in one process")
