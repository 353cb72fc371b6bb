"""XGBoost's ``DataIter``: batches of data from any source, for
:class:`gbt.QuantileDMatrix` (``gbt_dataset_from_iter``) and
:class:`gbt.ExtMemQuantileDMatrix` (its binned matrix in pages on disk).

A subclass implements ``next(input_data)``, which hands one batch to
``input_data(data=..., label=..., ...)`` and returns True, or returns False
when there are no more batches, and ``reset()``, which starts again from the
first batch.  gbt reads the batches twice (three times for weights that span
more than about 2^(39 - log2 rows)): once for each feature's distinct values,
once to bin each batch; it never holds more than one batch of feature values.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from ctypes import byref, c_char_p, c_float, c_void_p
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from ._lib import ITER_NEXT_FN, ITER_RESET_FN, LIB, check, cstr
from .core import (_as_dense_f32, _as_vector, _check_feature_types, _is_pandas_df, _is_sparse,
                   _pandas_to_numpy, _ptr)

__all__ = ["DataIter"]


class DataIter(ABC):
    """The caller's batches (XGBoost's ``xgboost.DataIter`` protocol).

    Parameters
    ----------
    cache_prefix : str, optional
        XGBoost's prefix of the cache files of external memory: where
        :class:`gbt.ExtMemQuantileDMatrix` writes its page file (``None``:
        the current folder); :class:`gbt.QuantileDMatrix` writes none.
    release_data : bool
        XGBoost's; gbt keeps no converted batch between calls either way.
    on_host, min_cache_page_bytes :
        XGBoost's external-memory settings for the GPU; accepted and unused.
    """

    def __init__(self, cache_prefix: Optional[str] = None, release_data: bool = True, *,
                 on_host: bool = True, min_cache_page_bytes: Optional[int] = None) -> None:
        self.cache_prefix = cache_prefix
        self.release_data = release_data
        self.on_host = on_host
        self.min_cache_page_bytes = min_cache_page_bytes
        self._exception: Optional[BaseException] = None

    @abstractmethod
    def next(self, input_data: Callable[..., None]) -> bool:
        """Give the next batch to ``input_data(data=..., label=..., weight=...,
        base_margin=..., group=..., qid=..., label_lower_bound=...,
        label_upper_bound=..., feature_names=..., feature_types=...)`` and
        return True; return False when there are no more batches."""
        raise NotImplementedError()

    @abstractmethod
    def reset(self) -> None:
        """Start again from the first batch."""
        raise NotImplementedError()

    def reraise(self) -> None:
        """Raise the exception a callback caught, if any (XGBoost's)."""
        if self._exception is not None:
            exc, self._exception = self._exception, None
            raise exc


class _ArrayRows(DataIter):
    """The rows of an array the caller holds, a block of about 16 MB of
    float32 at a time, with the same rows of its per-row fields:
    ``QuantileDMatrix(array)`` of an array that is not float32 bins them
    as batches where its values repeat, so that only the binned matrix is
    kept and no more than a block of the floats is ever converted."""

    BLOCK_BYTES = 16 << 20

    def __init__(self, data: np.ndarray, fields: Dict[str, Any]) -> None:
        super().__init__()
        self.data, self.fields, self.at = data, fields, 0
        self.step = max(1, self.BLOCK_BYTES // (4 * max(1, data.shape[1])))

    def next(self, input_data: Callable[..., None]) -> bool:
        if self.at >= self.data.shape[0]:
            return False
        rows = slice(self.at, self.at + self.step)
        input_data(data=self.data[rows], **{k: v[rows] for k, v in self.fields.items()})
        self.at += self.step
        return True

    def reset(self) -> None:
        self.at = 0

    @staticmethod
    def pays(data: np.ndarray) -> bool:
        """Whether binning in blocks holds less than a float32 copy of the
        array would (4 bytes a value).  Pass 1 keeps each feature's
        distinct values (8 bytes each): so it pays unless most values are
        distinct.  Judged on 4,096 rows spread over the array: fewer
        distinct than half the present values there."""
        sample = data[::max(1, data.shape[0] // 4096)]
        present = distinct = 0
        for col in np.asarray(sample, dtype=np.float32).T:
            col = col[~np.isnan(col)]
            present += col.size
            distinct += np.unique(col).size
        return 2 * distinct < present


def _keywords_only(args: tuple) -> None:
    """input_data takes its fields by name, as XGBoost's does (and says so in its words)."""
    if args:
        raise TypeError("Keyword argument is required: input_data(data=..., label=..., ...), "
                        f"not {len(args)} positional argument(s)")


def _set_batch(batch: int, missing: float, names: List[Optional[List[str]]], *, data: Any,
               label: Any = None, weight: Any = None, base_margin: Any = None, group: Any = None,
               qid: Any = None, label_lower_bound: Any = None, label_upper_bound: Any = None,
               feature_names: Optional[Sequence[str]] = None, feature_types: Any = None) -> None:
    """One batch into libgbt's batch handle (copied there)."""
    _check_feature_types(feature_types)
    if _is_pandas_df(data):
        if any(str(t) == "category" for t in data.dtypes):
            raise ValueError("a batch with category columns: gbt's iterator takes numeric data only "
                             "(give category codes with feature_types 'c')")
        arr, df_names = _pandas_to_numpy(data)
        if feature_names is None:
            feature_names = df_names
        data = arr
    if _is_sparse(data):
        import scipy.sparse as sp

        csr = data if data.format == "csr" else sp.csr_matrix(data)
        if not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()
        values = np.array(csr.data, dtype=np.float32)
        if not math.isnan(missing):
            values[values == np.float32(missing)] = np.nan
        indptr = np.ascontiguousarray(csr.indptr, dtype=np.uint64)
        indices = np.ascontiguousarray(csr.indices, dtype=np.uint32)
        nrow, ncol = csr.shape
        check(LIB.gbt_batch_set_csr(batch, _ptr(indptr), _ptr(indices), _ptr(values), nrow, ncol))
    else:
        arr = _as_dense_f32(data)
        nrow, ncol = arr.shape
        check(LIB.gbt_batch_set_dense(batch, _ptr(arr), nrow, ncol, c_float(missing)))
    fields = {"label": label, "weight": weight, "label_lower_bound": label_lower_bound,
              "label_upper_bound": label_upper_bound}
    for field, values in fields.items():
        if values is not None:
            v = _as_vector(values, nrow, field)
            check(LIB.gbt_batch_set_field(batch, cstr(field), _ptr(v), v.size))
    if base_margin is not None:
        bm = np.ascontiguousarray(np.asarray(base_margin), dtype=np.float32).reshape(-1)
        check(LIB.gbt_batch_set_field(batch, cstr("base_margin"), _ptr(bm), bm.size))
    if group is not None and qid is not None:
        raise ValueError("give group or qid, not both")
    if qid is not None:
        q = np.asarray(qid).reshape(-1)
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if q.size else np.zeros(0, np.int64)
        group = np.diff(np.r_[starts, q.size])
    if group is not None:
        sizes = np.ascontiguousarray(np.asarray(group), dtype=np.uint32)
        check(LIB.gbt_batch_set_groups(batch, _ptr(sizes), sizes.size))
    if feature_types is not None:
        types = (c_char_p * len(feature_types))(*[cstr(str(t)) for t in feature_types])
        check(LIB.gbt_batch_set_feature_types(batch, types, len(feature_types)))
    if not names:
        names.append(list(feature_names) if feature_names is not None else None)


def dataset_from_iter(it: DataIter, max_bin: int, missing: float, cache_prefix: Optional[str] = None,
                      ref: Any = None, comm: Any = None) -> Dict[str, Any]:
    """A ``gbt_dataset`` handle made from the iterator's batches (binned with
    the cuts of ``ref``, a dataset handle, when given; else the binned matrix
    in pages under cache_prefix unless it is None), and the first batch's
    feature names; with ``comm`` (an mpi4py communicator) over its ranks
    (``gbt_dataset_from_iter_ext_mpi``: the cuts of every rank's batches, each
    rank's pages its own file), every rank calling it with its own iterator."""
    if not isinstance(it, DataIter):
        raise TypeError("expected a gbt.DataIter")
    names: List[Optional[List[str]]] = []
    it._exception = None

    def next_cb(user: Any, batch: int) -> int:
        def input_data(*args: Any, **kwargs: Any) -> None:
            _keywords_only(args)
            if "data" not in kwargs:
                raise TypeError("input_data() needs data=")
            _set_batch(batch, missing, names, **kwargs)

        try:
            return 1 if it.next(input_data) else 0
        except BaseException as e:  # the C caller cannot take it: kept and raised after
            it._exception = e
            return -1

    def reset_cb(user: Any) -> int:
        try:
            it.reset()
            return 0
        except BaseException as e:
            it._exception = e
            return -1

    handle = c_void_p()
    if ref is not None:
        status = LIB.gbt_dataset_from_iter_ref(ITER_NEXT_FN(next_cb), ITER_RESET_FN(reset_cb), None, ref,
                                               int(max_bin), byref(handle))
    elif comm is not None:
        from .collective import _comm_address

        status = LIB.gbt_dataset_from_iter_ext_mpi(ITER_NEXT_FN(next_cb), ITER_RESET_FN(reset_cb), None,
                                                   int(max_bin), None if cache_prefix is None else cstr(cache_prefix),
                                                   _comm_address(comm), byref(handle))
    else:
        status = LIB.gbt_dataset_from_iter_ext(ITER_NEXT_FN(next_cb), ITER_RESET_FN(reset_cb), None, int(max_bin),
                                               None if cache_prefix is None else cstr(cache_prefix), byref(handle))
    it.reraise()
    check(status)
    return {"handle": handle, "feature_names": names[0] if names else None}


def concat_batches(it: DataIter) -> Dict[str, Any]:
    """Every batch of ``it`` (from a reset), joined in order: what
    ``Dataset(iterator)`` (XGBoost's ``DMatrix(iterator)``) holds, the
    feature values kept in memory.  A field must come with every batch or
    with none; the first batch's feature names and types are the dataset's."""
    parts: List[Dict[str, Any]] = []

    def input_data(*args: Any, **kwargs: Any) -> None:
        _keywords_only(args)
        parts.append(kwargs)

    it.reset()
    while it.next(input_data):
        pass
    it.reset()
    if not parts:
        raise ValueError("the iterator gave no batches")
    out: Dict[str, Any] = {}
    for key in sorted(set().union(*parts)):
        values = [p.get(key) for p in parts]
        if key in ("feature_names", "feature_types"):
            out[key] = values[0]
            continue
        given = [v is not None for v in values]
        if not any(given):
            continue
        if not all(given):
            raise ValueError(f"batch {given.index(not given[0])} {'has' if not given[0] else 'has no'} "
                             f"{key}, but batch 0 {'has none' if not given[0] else 'has'}: give it with every "
                             "batch or with none")
        if key == "data" and hasattr(values[0], "tocsr"):  # scipy sparse
            import scipy.sparse

            out[key] = scipy.sparse.vstack([v.tocsr() for v in values], format="csr")
        elif key == "data" and hasattr(values[0], "iloc"):  # pandas
            import pandas

            out[key] = pandas.concat(values, ignore_index=True)
        else:
            out[key] = np.concatenate([np.asarray(v) for v in values])
    return out
