"""gbt.dask: training where a Dask cluster's partitions live, in XGBoost's
shape (:class:`DaskDMatrix`, :class:`DaskQuantileDMatrix`, :func:`train`,
:func:`predict`, :class:`DaskGBTClassifier`, :class:`DaskGBTRegressor`,
:class:`DaskGBTRanker` and XGBoost's ``DaskXGB*`` names for them).

The workers exchange over MPI, as :func:`gbt.train`'s ``comm=`` does: the
cluster is started by ``dask-mpi`` (``mpirun -np N python3 script.py`` with
``dask_mpi.initialize()``; rank 0 the scheduler, rank 1 the client script,
ranks 2.. the workers) and each training makes a communicator of the
workers that train (``MPI_Comm_create_group``, called by them alone).  Each
of them assembles its share of the rows and calls :func:`gbt.train` on it;
every one ends with the model one process trains on all the rows (in
partition order), byte for byte, and the client gets that booster
(docs/distributed.md, "Dask")::

    from dask_mpi import initialize
    initialize(interface="lo")
    from distributed import Client
    import gbt.dask

    client = Client()
    dtrain = gbt.dask.DaskDMatrix(client, X, y)      # dask arrays or DataFrames
    out = gbt.dask.train(client, params, dtrain, 100, evals=[(dtrain, "train")])
    pred = gbt.dask.predict(client, out, X)          # partition by partition
"""
from __future__ import annotations

import hashlib
import itertools
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

try:
    import dask
    import distributed
except ImportError as _e:  # pragma: no cover - the message is the point
    raise ImportError(f"gbt.dask needs dask and distributed ({_e}): pip install dask distributed dask-mpi "
                      "mpi4py, and start the cluster with dask-mpi (docs/distributed.md)") from _e

from .core import Booster, Dataset
from .training import train as _train

__all__ = ["DaskDMatrix", "DaskQuantileDMatrix", "train", "predict", "inplace_predict",
           "DaskGBTRegressor", "DaskGBTClassifier", "DaskGBTRanker",
           "DaskXGBRegressor", "DaskXGBClassifier", "DaskXGBRanker"]

# dask.array and dask.dataframe are imported where a collection is made, not here: the workers
# import this module (for _train_task) and need neither (dask.dataframe alone costs 1-2 CPU-s)


def _dask_array(x: Any) -> bool:
    m = sys.modules.get("dask.array")
    return m is not None and isinstance(x, m.Array)


def _dask_frame(x: Any, series: bool = False) -> bool:
    m = sys.modules.get("dask.dataframe")
    return m is not None and isinstance(x, (m.DataFrame, m.Series) if series else m.DataFrame)


_tags = itertools.count(1)  # MPI_Comm_create_group's tag: one per training of this client


def _client(client: Any) -> Any:
    return client if client is not None else distributed.get_client()


def _blocks(x: Any, what: str) -> List[Any]:
    """x's partitions (row blocks) as delayed objects."""
    if _dask_array(x):
        if x.ndim == 2 and x.numblocks[1] != 1:
            x = x.rechunk({1: -1})
        return list(x.to_delayed().reshape(-1))
    if _dask_frame(x, series=True):
        return list(x.to_delayed())
    raise TypeError(f"gbt.dask: {what} must be a dask array, DataFrame or Series; got {type(x).__name__}")


def _known_categories(X: Any) -> Tuple[Any, Dict[str, Any]]:
    """X with every category column's categories known (the whole column's,
    computed once), and those dtypes by column: every partition is cast to
    them, so a code means the same category on every worker."""
    if not _dask_frame(X):
        return X, {}
    import pandas as pd

    cols = [c for c, t in X.dtypes.items() if isinstance(t, pd.CategoricalDtype)]
    if not cols:
        return X, {}
    X = X.categorize(columns=cols)
    return X, {c: X.dtypes[c] for c in cols}


class DaskDMatrix:
    """XGBoost's ``DaskDMatrix``: the partitions of a dask array or DataFrame
    (and of its label, weight, base_margin, qid, bounds: partitioned as the
    data), computed on the cluster and kept there (futures).  The other
    arguments are :class:`gbt.Dataset`'s; with ``enable_categorical`` a
    DataFrame's category columns get one list of categories, the whole
    column's (``categorize``), on every worker."""

    _quantile = False

    def __init__(self, client: Any, data: Any, label: Any = None, *, weight: Any = None,
                 base_margin: Any = None, missing: Optional[float] = None, silent: bool = False,
                 feature_names: Optional[Sequence[str]] = None, feature_types: Any = None,
                 group: Any = None, qid: Any = None, label_lower_bound: Any = None,
                 label_upper_bound: Any = None, feature_weights: Any = None,
                 enable_categorical: bool = False) -> None:
        if group is not None:
            raise TypeError("gbt.dask takes qid (a query id per row, partitioned as the data), not group")
        self.client = _client(client)
        data, self._dtypes = _known_categories(data) if enable_categorical else (data, {})
        fields = dict(label=label, weight=weight, base_margin=base_margin, qid=qid,
                      label_lower_bound=label_lower_bound, label_upper_bound=label_upper_bound)
        blocks = {"data": _blocks(data, "data")}
        for name, v in fields.items():
            if v is not None:
                if _dask_array(v) and _dask_array(data) and v.chunks[0] != data.chunks[0]:
                    v = v.rechunk({0: data.chunks[0]})
                blocks[name] = _blocks(v, name)
                if len(blocks[name]) != len(blocks["data"]):
                    raise ValueError(f"gbt.dask: {name} has {len(blocks[name])} partitions but data "
                                     f"{len(blocks['data'])}: partition them alike")
        names = list(blocks)
        futures = self.client.compute([d for n in names for d in blocks[n]])
        n = len(blocks["data"])
        self._parts = [{name: futures[i * n + p] for i, name in enumerate(names)} for p in range(n)]
        self._lengths = self.client.gather(self.client.map(len, [p["data"] for p in self._parts], pure=False))
        if _dask_frame(data) and feature_names is None:
            feature_names = [str(c) for c in data.columns]
        self.feature_names = feature_names
        self._kwargs = dict(missing=missing, feature_types=feature_types, feature_weights=feature_weights,
                            enable_categorical=enable_categorical, feature_names=feature_names)
        self._max_bin: Optional[int] = None
        self._num_col = len(data.columns) if _dask_frame(data) else (data.shape[1] if data.ndim > 1 else 1)

    def num_row(self) -> int:
        return int(sum(self._lengths))

    def num_col(self) -> int:
        return int(self._num_col)


class DaskQuantileDMatrix(DaskDMatrix):
    """XGBoost's ``DaskQuantileDMatrix``: each worker's share becomes a
    :class:`gbt.Dataset` holding its values (``max_bin`` given here is the booster's
    unless params set it; ``ref`` is accepted: gbt bins every set with the
    training data's cuts, which the workers merge exactly)."""

    _quantile = True

    def __init__(self, client: Any, data: Any, label: Any = None, *, max_bin: Optional[int] = None,
                 ref: Any = None, **kwargs: Any) -> None:
        super().__init__(client, data, label, **kwargs)
        self._max_bin = None if max_bin is None else int(max_bin)


def _local(share: List[Tuple[Dict[str, Any], int, int]], dtypes: Dict[str, Any],
           kwargs: Dict[str, Any], max_bin: Optional[int], quantile: bool) -> Dataset:
    """The dataset of a worker's share: rows start:stop of each partition, in order."""
    import pandas as pd

    cols: Dict[str, List[Any]] = {}
    for part, start, stop in share:
        for name, v in part.items():
            if name == "data" and dtypes:
                v = v.astype(dtypes)
            cols.setdefault(name, []).append(v.iloc[start:stop] if hasattr(v, "iloc") else v[start:stop])
    joined = {name: (pd.concat(vs) if hasattr(vs[0], "iloc") else np.concatenate(vs)) for name, vs in cols.items()}
    data = joined.pop("data")
    d = Dataset(data, **joined, **kwargs)
    if quantile:  # QuantileDMatrix's max_bin, the values kept: the training merges every worker's into the cuts
        d.max_bin = max_bin
    return d


def _train_task(world_ranks: List[int], tag: int, params: Dict[str, Any], shares: List[Any],
                names: List[str], specs: List[Tuple[Dict[str, Any], Dict[str, Any], Optional[int], bool]],
                options: Dict[str, Any]) -> Dict[str, Any]:
    """One worker's training: the communicator of the training workers, its
    datasets, gbt.train on them.  Returns the model's digest and history,
    and the bytes from the first worker only."""
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    group = world.Get_group().Incl(world_ranks)
    comm = world.Create_group(group, tag)
    group.Free()
    try:
        try:
            sets, err = [_local(s, *spec) for s, spec in zip(shares, specs)], None
        except Exception as e:  # noqa: BLE001 - shared with the other workers below, then raised
            sets, err = None, f"{type(e).__name__}: {e}"
        errs = comm.allgather(err)  # no worker enters training while another has no data
        for r, e in enumerate(errs):
            if e is not None:
                raise ValueError(f"gbt.dask: worker {r} of the training (MPI rank {world_ranks[r]}) could not "
                                 f"build its datasets: {e}")
        history: Dict[str, Any] = {}
        booster = _train(params, sets[0], evals=list(zip(sets[1:], names)), evals_result=history,
                         comm=comm, **options)
        raw = bytes(booster.save_raw("gbt"))
        first = comm.Get_rank() == 0
        del booster  # frees its duplicate of comm before comm itself
    finally:
        comm.Free()
    return {"raw": raw if first else None, "sha256": hashlib.sha256(raw).hexdigest(), "history": history}


def _runs(lengths: Sequence[int], parts: int) -> List[Tuple[int, int]]:
    """Contiguous runs [a, b) of the non-empty partitions, `parts` of them,
    balanced by rows; each holds at least one partition."""
    idx = [i for i, n in enumerate(lengths) if n > 0]
    cum = np.cumsum([lengths[i] for i in idx])
    cuts = [0]
    for k in range(1, parts):
        b = int(np.searchsorted(cum, k * cum[-1] / parts)) + 1
        cuts.append(min(max(b, cuts[-1] + 1), len(idx) - (parts - k)))
    cuts.append(len(idx))
    return [(idx[a], idx[b - 1] + 1) for a, b in zip(cuts, cuts[1:])]


def _row_shares(dm: DaskDMatrix, parts: int, what: str) -> List[List[Tuple[Any, int, int]]]:
    """Rows of dm split into `parts` contiguous, balanced shares (whole
    partitions with qid, whose query groups must not be split)."""
    total = dm.num_row()
    if "qid" in dm._parts[0]:
        if sum(1 for n in dm._lengths if n) < parts:
            raise ValueError(f"gbt.dask: {what} has fewer non-empty partitions than the {parts} training workers; "
                             "with qid each worker needs whole partitions: repartition it")
        return [[(dm._parts[i], 0, dm._lengths[i]) for i in range(a, b) if dm._lengths[i]]
                for a, b in _runs(dm._lengths, parts)]
    if total < parts:
        raise ValueError(f"gbt.dask: {what} has {total} rows, fewer than the {parts} training workers: "
                         "every worker needs a row of it")
    bounds = [k * total // parts for k in range(parts + 1)]
    starts = np.concatenate([[0], np.cumsum(dm._lengths)])
    shares = []
    for lo, hi in zip(bounds, bounds[1:]):
        shares.append([(dm._parts[i], max(lo - starts[i], 0), min(hi, starts[i + 1]) - starts[i])
                       for i in range(len(dm._parts)) if starts[i] < hi and starts[i + 1] > lo])
    return shares


def _worker_ranks(client: Any) -> Dict[str, int]:
    """Each worker's rank in MPI_COMM_WORLD; refuses a cluster not under one MPI job."""
    def rank() -> Tuple[int, int]:
        try:
            from mpi4py import MPI
        except ImportError:
            return (-1, 0)
        return (MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()) if MPI.Is_initialized() else (-1, 0)

    ranks = client.run(rank)
    if not ranks or len({s for _, s in ranks.values()}) != 1 or len({r for r, _ in ranks.values()}) != len(ranks) \
            or min(r for r, _ in ranks.values()) < 0:
        raise RuntimeError("gbt.dask trains over MPI among the workers of a cluster started by dask-mpi "
                           "(mpirun -np N python3 script.py calling dask_mpi.initialize()); these workers are not "
                           f"the ranks of one MPI job (world rank, size by worker: {ranks})")
    return {a: r for a, (r, _) in ranks.items()}


def train(client: Any, params: Dict[str, Any], dtrain: DaskDMatrix, num_boost_round: int = 10, *,
          evals: Optional[Sequence[Tuple[DaskDMatrix, str]]] = None, obj: Any = None,
          early_stopping_rounds: Optional[int] = None, xgb_model: Any = None, verbose_eval: Any = True,
          callbacks: Any = None, custom_metric: Any = None, maximize: Optional[bool] = None,
          poll_s: float = 0.5) -> Dict[str, Any]:
    """XGBoost's ``dask.train``: ``{'booster': Booster, 'history': {...}}``.

    The training workers are those holding the training partitions, at most
    one per non-empty partition; each gets a contiguous run of partitions
    (balanced by rows; a partition moves when it lives elsewhere), and each
    evaluation set is split into contiguous row ranges among them, so the
    model is the one :func:`gbt.train` makes on all the rows in partition
    order.  A worker without a share does not take part (gbt refuses a
    dataset of no rows).  A training worker that leaves the cluster (a
    crash, a lost machine, as Dask's scheduler sees it) raises
    ``RuntimeError`` here once the client's view of the workers shows it
    gone (refreshed every ``distributed.client.scheduler-info-interval``,
    2 s by default; polled every ``poll_s``), and no model is returned; the other training workers stay
    blocked in MPI (which cannot repair a communicator) until the MPI job
    ends.  Callbacks run on the workers (pickled); the evaluation log
    prints on the first training worker's standard output."""
    client = _client(client)
    ranks = _worker_ranks(client)
    evals = list(evals or [])
    for d in [dtrain] + [d for d, _ in evals]:
        if not isinstance(d, DaskDMatrix):
            raise TypeError(f"gbt.dask.train takes DaskDMatrix datasets; got {type(d).__name__}")
    lengths = dtrain._lengths
    parts = min(len(ranks), sum(1 for n in lengths if n))
    if parts == 0:
        raise ValueError("gbt.dask.train: the training data has no rows")
    runs = _runs(lengths, parts)
    # each run goes to the worker holding most of its rows (ties: the lower rank), in run order
    who = client.who_has([p["data"] for p in dtrain._parts])
    free, owner = set(ranks), []
    for a, b in runs:
        held = {w: sum(lengths[i] for i in range(a, b) if w in who.get(dtrain._parts[i]["data"].key, ()))
                for w in free}
        best = max(sorted(free, key=ranks.get), key=lambda w: held[w])
        owner.append(best)
        free.discard(best)
    world_ranks = [ranks[w] for w in owner]
    tag = next(_tags)
    train_shares = [[(dtrain._parts[i], 0, lengths[i]) for i in range(a, b) if lengths[i]] for a, b in runs]
    eval_shares = [_row_shares(d, parts, f"evals[{j}] ({name!r})") for j, (d, name) in enumerate(evals)]
    specs = [(d._dtypes, d._kwargs, d._max_bin, d._quantile) for d in [dtrain] + [d for d, _ in evals]]
    if dtrain._max_bin is not None and "max_bin" not in params:
        params = dict(params, max_bin=dtrain._max_bin)
    options = dict(num_boost_round=num_boost_round, obj=obj, early_stopping_rounds=early_stopping_rounds,
                   xgb_model=xgb_model, verbose_eval=verbose_eval, callbacks=callbacks,
                   custom_metric=custom_metric, maximize=maximize)
    futures = [client.submit(_train_task, world_ranks, tag, dict(params),
                             [train_shares[k]] + [s[k] for s in eval_shares], [n for _, n in evals], specs,
                             options, workers=[w], allow_other_workers=False, pure=False, retries=0,
                             key=f"gbt-dask-train-{tag}-{k}")
               for k, w in enumerate(owner)]
    while True:
        try:
            distributed.wait(futures, timeout=poll_s)
        except distributed.TimeoutError:
            pass
        erred = [f for f in futures if f.status == "error"]
        if erred or all(f.status == "finished" for f in futures):
            break
        lost = [w for w in owner if w not in client.scheduler_info(n_workers=-1)["workers"]]
        if lost:
            client.cancel(futures)
            raise RuntimeError(
                f"gbt.dask.train: worker {lost[0]} (MPI rank {ranks[lost[0]]}) left the cluster during training "
                "(a crash or a lost machine): the training is abandoned and no model was made; the other "
                "training workers stay blocked in MPI until the MPI job ends: restart the cluster to train again")
    if erred:
        erred[0].result()  # raises the worker's exception (every worker has the same one)
    results = client.gather(futures)
    if len({r["sha256"] for r in results}) != 1:  # pragma: no cover - the library's promise, checked
        raise RuntimeError("gbt.dask.train: the workers ended with different models: " +
                           ", ".join(r["sha256"][:12] for r in results))
    booster = Booster()
    booster.load_model(bytearray(results[0]["raw"]))
    return {"booster": booster, "history": results[0]["history"]}


def _booster(model: Any) -> Booster:
    if isinstance(model, dict):
        model = model["booster"]
    if not isinstance(model, Booster):
        raise TypeError(f"model must be a gbt.Booster or the dict gbt.dask.train returns; got {type(model).__name__}")
    return model


def _predict_block(block: Any, booster: Booster, dtypes: Dict[str, Any], kw: Dict[str, Any],
                   shape: Tuple[int, ...]) -> np.ndarray:
    """The predictions of one partition (its category columns cast to the agreed categories)."""
    if len(block) == 0:
        return np.zeros((0,) + shape, dtype=np.float32)
    if dtypes:
        block = block.astype(dtypes)
    kw = dict(kw)
    data = Dataset(block, missing=kw.pop("missing"), enable_categorical=bool(dtypes))
    return booster.predict(data, **kw)


def _predict_frame(block: Any, booster: Booster, dtypes: Dict[str, Any], kw: Dict[str, Any],
                   shape: Tuple[int, ...]) -> Any:
    import pandas as pd

    out = _predict_block(block, booster, dtypes, kw, shape)
    return pd.Series(out, index=block.index) if not shape else pd.DataFrame(out, index=block.index)


def predict(client: Any, model: Any, data: Any, output_margin: bool = False, pred_leaf: bool = False,
            iteration_range: Optional[Tuple[int, int]] = None, missing: Optional[float] = None,
            validate_features: bool = True) -> Any:
    """XGBoost's ``dask.predict``, partition by partition on the workers:
    for a dask DataFrame a dask Series (one output per row) or DataFrame
    (several), for a dask array or a :class:`DaskDMatrix` a dask array.
    ``model`` is a :class:`gbt.Booster` or :func:`train`'s dict."""
    _client(client)
    booster = _booster(model)
    iteration_range = (0, 0) if iteration_range is None else iteration_range
    kw = dict(output_margin=output_margin, pred_leaf=pred_leaf, iteration_range=iteration_range,
              validate_features=validate_features, missing=missing)
    # the shape of one row's output, from a row of missing values
    probe = booster.predict(Dataset(np.full((1, booster.num_features()), np.nan, dtype=np.float32)),
                            output_margin=output_margin, pred_leaf=pred_leaf, iteration_range=iteration_range,
                            validate_features=False)
    shape = tuple(probe.shape[1:])
    if isinstance(data, DaskDMatrix):
        import dask.array as da

        kw["missing"] = data._kwargs["missing"] if missing is None else missing
        one = dask.delayed(booster, traverse=False)
        return da.concatenate([
            da.from_delayed(dask.delayed(_predict_block)(dask.delayed(lambda p: p["data"])(p), one, data._dtypes, kw,
                                                         shape), shape=(n,) + shape, dtype=probe.dtype)
            for p, n in zip(data._parts, data._lengths)], axis=0)
    if _dask_frame(data):
        data, dtypes = _known_categories(data)
        import pandas as pd

        meta = (pd.Series([], dtype=probe.dtype) if not shape
                else pd.DataFrame({i: pd.Series([], dtype=probe.dtype) for i in range(int(np.prod(shape)))}))
        return data.map_partitions(_predict_frame, booster, dtypes, kw, shape, meta=meta)
    if _dask_array(data):
        if data.ndim == 2 and data.numblocks[1] != 1:
            data = data.rechunk({1: -1})
        return data.map_blocks(_predict_block, booster, {}, kw, shape, dtype=probe.dtype,
                               chunks=(data.chunks[0],) + tuple((k,) for k in shape),
                               drop_axis=[] if shape else [1], new_axis=None)
    raise TypeError("gbt.dask.predict takes a dask array, a dask DataFrame or a DaskDMatrix; "
                    f"got {type(data).__name__}")


def inplace_predict(client: Any, model: Any, data: Any, iteration_range: Optional[Tuple[int, int]] = None,
                    predict_type: str = "value", missing: float = np.nan) -> Any:
    """XGBoost's ``dask.inplace_predict``: :func:`predict` (``predict_type``
    ``"margin"`` for raw scores)."""
    return predict(client, model, data, output_margin=predict_type == "margin", iteration_range=iteration_range,
                   missing=missing)



def __getattr__(name: str) -> Any:
    # the estimators need scikit-learn, which the workers need not import
    if name in ("DaskGBTRegressor", "DaskGBTClassifier", "DaskGBTRanker",
                "DaskXGBRegressor", "DaskXGBClassifier", "DaskXGBRanker"):
        from . import _dask_estimators
        return getattr(_dask_estimators, name)
    raise AttributeError(f"module 'gbt.dask' has no attribute {name!r}")
