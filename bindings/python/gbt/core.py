"""Dataset and Booster: the C API's handles as Python objects."""
from __future__ import annotations

import ctypes
import enum
import json
import math
import os
from ctypes import byref, c_char_p, c_double, c_float, c_int, c_size_t, c_uint64, c_void_p
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib
from ._lib import LIB, GBTIOError, XGBoostError, check, cstr

__all__ = ["Dataset", "QuantileDMatrix", "ExtMemQuantileDMatrix", "Booster", "XGBoostError", "build_info", "device_count", "params_info"]

PathLike = Union[str, "os.PathLike[str]"]
Integer = Union[int, np.integer]  # XGBoost's type name for an index or a count


def _parse_eval_str(result: str) -> List[Tuple[str, float]]:
    """The scores of an evaluation line (:meth:`Booster.eval_set`'s
    ``"[3]\ttrain-rmse:0.52\tvalid-rmse:0.61"``) as ``[(name, score), ...]``;
    XGBoost's private helper of the same name, which its tests and callbacks use."""
    pairs = [field.rpartition(":") for field in result.split()[1:]]
    return [(name, float(score)) for name, _, score in pairs]


def _parse_version(ver: str) -> Tuple[Tuple[int, int, int], str]:
    """``"2.1.0"``, ``"2.1.0-dev"``, ``"2.1.0rc1"``, ``"2.1.0.post1"`` as
    ``((2, 1, 0), suffix)``, the suffix ``""``, ``"dev"``, ``"rc1"`` or
    ``"post1"``; XGBoost's private helper of the same name."""
    base, _, dev = ver.partition("-")
    parts = base.split(".")
    post = parts.pop() if len(parts) == 4 else ""
    patch, rc, tail = parts[2].partition("rc")
    rc = rc + tail
    return (int(parts[0]), int(parts[1]), int(patch)), post or rc or dev


def build_info() -> Dict[str, Any]:
    """How the loaded libgbt was built (``gbt_build_info()``), as a dict.

    Adds ``"library"``: the path of the shared library the package loaded, and
    ``"devices"``: the number of CUDA devices it can use now.
    """
    info = json.loads(LIB.gbt_build_info().decode())
    info["library"] = _lib.LIBRARY_PATH
    info["devices"] = device_count()
    return info


def device_count() -> int:
    """The number of CUDA devices libgbt can use (0 without CUDA, a driver or a GPU)."""
    return int(LIB.gbt_device_count())


def params_info() -> List[Dict[str, str]]:
    """Every booster parameter the library knows, from its own table.

    Returns
    -------
    list of dict
        One dict per parameter with keys ``name``, ``aliases``, ``type``,
        ``default``, ``range`` and ``help``.
    """
    out = []
    for i in range(LIB.gbt_param_count()):
        f = [c_char_p() for _ in range(6)]
        check(LIB.gbt_param_describe(i, *[byref(x) for x in f]))
        vals = [(x.value or b"").decode() for x in f]
        out.append(dict(zip(("name", "aliases", "type", "default", "range", "help"), vals)))
    return out


_KNOWN_PARAMS: List[str] = []


def _has_param(name: str) -> bool:
    """Whether the library knows parameter ``name`` or has it as an alias."""
    if not _KNOWN_PARAMS:
        for p in params_info():
            _KNOWN_PARAMS.append(p["name"])
            _KNOWN_PARAMS.extend(a.strip() for a in p["aliases"].replace(";", ",").split(",") if a.strip())
    return name in _KNOWN_PARAMS or name.replace("-", "_") in _KNOWN_PARAMS


# ---------------------------------------------------------------- conversions

def _is_pandas_df(x: Any) -> bool:
    return type(x).__module__.startswith("pandas") and hasattr(x, "columns") and hasattr(x, "dtypes")


def _series_as_frame(x: Any) -> Any:
    """A pandas Series as XGBoost takes one: a frame of one column, named
    after the Series (``"0"`` when it has no name)."""
    if type(x).__module__.startswith("pandas") and getattr(x, "ndim", 0) == 1 and hasattr(x, "to_frame"):
        return x.to_frame(name=str(x.name) if x.name is not None else "0")
    return x


def _is_sparse(x: Any) -> bool:
    if not type(x).__module__.startswith("scipy"):
        return False  # without importing scipy (0.4 s) for every array
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover
        return False
    return sp.issparse(x)


# The model attribute (Booster.set_attr) holding the training frame's category names.
CATEGORIES_ATTR = "feature_categories"
# The facts gbt_booster_get_attr reports; other attribute names are the user's (set_attr).
_FACTS = ("device", "best_iteration", "best_score", "num_feature", "num_trees", "num_target", "training_file")


def _cat_value(v: Any) -> Any:
    """A category as JSON keeps it: str, int, float or bool (anything else as its str)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    return v if isinstance(v, str) else str(v)


def _is_category(dtype: Any) -> bool:
    import pandas as pd

    return isinstance(dtype, pd.CategoricalDtype)


def _category_frame(df: Any, enable_categorical: bool,
                    target: Optional[Mapping[int, Sequence[Any]]] = None
                    ) -> Tuple[Any, Optional[List[str]], Dict[int, List[Any]]]:
    """A DataFrame's ``category`` columns as category codes (XGBoost's
    ``enable_categorical``): each becomes float32 codes, its categories'
    positions (NaN missing), and "c" in the returned feature types, XGBoost's
    spellings of the frame's columns (:func:`_frame_types`; None when the
    frame has no such column).  ``target`` (feature index -> categories,
    a model's) recodes the columns it names: a category of the frame is given
    its position in the target's list, one the target lacks the code
    ``len(target)``, a category no training row had (it goes where XGBoost
    sends an unseen category, docs/decisions.md).  Returns the new frame,
    the types and each category column's categories (the target's where
    recoded).  Without enable_categorical a category column is refused as
    XGBoost refuses it."""
    cols = [i for i, t in enumerate(df.dtypes) if _is_category(t)]
    if not cols:
        return df, None, {}
    if not enable_categorical:
        bad = ", ".join(f"{df.columns[i]}: {df.dtypes.iloc[i]}" for i in cols)
        raise ValueError("DataFrame.dtypes for data must be int, float, bool or category. When categorical "
                         "type is supplied, the DMatrix parameter `enable_categorical` must be set to `True`. "
                         f"Invalid columns: {bad}")
    out = df.copy(deep=False)
    cats: Dict[int, List[Any]] = {}
    for i in cols:
        col = df.iloc[:, i]
        own = [_cat_value(v) for v in col.cat.categories]
        codes = col.cat.codes.to_numpy()
        if target is not None and i in target:
            want = [_cat_value(v) for v in target[i]]
            if want != own:
                pos = {v: k for k, v in enumerate(want)}
                lut = np.array([pos.get(v, len(want)) for v in own] + [-1], dtype=np.int64)
                codes = lut[codes]  # code -1 (missing) reads lut[-1] = -1
            own = want
        vals = codes.astype(np.float32)
        vals[codes < 0] = np.nan
        out.isetitem(i, vals)
        cats[i] = own
    return out, _frame_types(df), cats


def _extension(path: str) -> str:
    """A file name's extension as XGBoost picks a model format by it: lower case, no dot."""
    return os.path.splitext(path)[1][1:].lower()


def _model_text_kind(head: bytes) -> Optional[str]:
    """What a model file's first bytes are, as XGBoost tells them apart: "json"
    (``{`` then a quote or ``}``), "ubj" (``{`` then a UBJSON length marker),
    or None (neither: the library's loader names what it is)."""
    if not head.startswith(b"{"):
        return None
    rest = head[1:].lstrip()
    if rest[:1] in (b'"', b"}"):
        return "json"
    return "ubj" if rest[:1].isalpha() else None


def _check_model_name(path: str) -> None:
    """XGBoost's rules for a model file's name: ``.json`` holds JSON text,
    ``.ubj`` UBJSON, and another name is taken with a warning."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return  # the library's loader says why it cannot read it
    ext, kind = _extension(path), _model_text_kind(head)
    if ext == "json" and kind == "ubj":
        raise _lib.FormatError(f"{path}: a .json model file holds JSON text, but this one is UBJSON (it starts "
                               f"with {head[:12]!r}): name it .ubj, or load its bytes", _lib.FormatError.status)
    if ext == "ubj" and kind == "json":
        raise _lib.FormatError(f"{path}: a .ubj model file holds UBJSON, but this one is JSON text (it starts "
                               f"with {head[:12]!r}): name it .json, or load its bytes", _lib.FormatError.status)
    if ext not in ("json", "ubj") and kind is not None:
        import warnings
        full = "JSON (`json`)" if kind == "json" else "UBJSON (`ubj`)"
        warnings.warn(f"Unknown file format: `{ext}`. Using {full} as a guess.", UserWarning, stacklevel=3)


def _frame_types(df: Any) -> List[str]:
    """XGBoost's feature types of a DataFrame's columns: "int" for integer
    columns (nullable ``Int64`` too), "i" for boolean ones, "c" for
    ``category`` ones and "float" for the rest."""
    import pandas as pd

    types = []
    for dtype in df.dtypes:
        if isinstance(dtype, pd.SparseDtype):
            dtype = dtype.subtype
        if _is_category(dtype):
            types.append("c")
        elif pd.api.types.is_bool_dtype(dtype):
            types.append("i")
        elif pd.api.types.is_integer_dtype(dtype):
            types.append("int")
        else:
            types.append("float")
    return types


def _pandas_to_numpy(df: Any) -> Tuple[np.ndarray, List[str]]:
    """A float32 matrix of a DataFrame's numeric and boolean columns; others are refused."""
    import pandas as pd

    bad = []
    sparse = False
    for name, dtype in df.dtypes.items():
        if isinstance(dtype, pd.SparseDtype):
            dtype, sparse = dtype.subtype, True
        if pd.api.types.is_bool_dtype(dtype) or (pd.api.types.is_numeric_dtype(dtype)
                                                 and not pd.api.types.is_complex_dtype(dtype)):
            continue
        bad.append(f"'{name}' ({dtype})")
    if bad:
        raise ValueError(
            "gbt takes numeric, boolean and (with enable_categorical=True) category DataFrame columns "
            "only; not numeric: " + ", ".join(bad) + " (encode them as numbers, or as a pandas "
            "category column with enable_categorical=True)")
    if sparse:  # XGBoost's warning: the values are copied into a dense matrix
        import warnings
        warnings.warn("Sparse arrays from pandas are converted into dense.", UserWarning, stacklevel=3)
    if isinstance(df.columns, pd.MultiIndex):  # XGBoost's names: the levels joined by spaces
        names = [" ".join(str(x) for x in c) for c in df.columns]
    else:
        names = [str(c) for c in df.columns]
    if len(df.columns) and all(pd.api.types.is_float_dtype(t) and not isinstance(t, pd.api.extensions.ExtensionDtype)
                               for t in df.dtypes):
        arr = df.to_numpy(dtype=np.float32)
    else:
        arr = df.astype("float64").to_numpy(dtype=np.float32, na_value=np.nan)
    return arr, names


def _as_dense_f32(data: Any, what: str = "data") -> np.ndarray:
    """A C-ordered float32 2-D array: the caller's own array when it is one already."""
    if isinstance(data, np.ndarray) and data.dtype == np.float32 and data.ndim == 2 \
            and data.flags.c_contiguous:
        return data
    arr = np.asarray(data)
    if arr.dtype.kind in "USV":  # refused as XGBoost refuses them (object arrays of numbers convert)
        raise ValueError(f"{what} must be numeric; got values of dtype {arr.dtype}")
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{what} must be numeric; got values of dtype {arr.dtype} ({e})") from None
    if arr.dtype.kind == "c":
        raise ValueError(f"{what} must be real numbers; got dtype {arr.dtype}")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{what} must be numeric; got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{what} must be 2-dimensional (rows x features); got shape {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.float32)


def _as_vector(values: Any, n: int, what: str, dtype=np.float32) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be 1-dimensional; got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{what} has {arr.shape[0]} values but the data has {n} rows")
    try:
        return np.ascontiguousarray(arr, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what} must be numeric; got dtype {arr.dtype} ({e})") from None


def _ptr(arr: np.ndarray) -> c_void_p:
    return c_void_p(arr.ctypes.data)


# ---------------------------------------------------------------- Dataset


def _with_option(options: Union[None, str, Mapping[str, Any]], key: str, value: Any) -> Dict[str, Any]:
    out = _options_dict(options)
    out.setdefault(key, value)
    return out


def _options_dict(options: Union[None, str, Mapping[str, Any]]) -> Dict[str, Any]:
    if options is None:
        return {}
    if isinstance(options, Mapping):
        return dict(options)
    out: Dict[str, Any] = {}
    for item in str(options).split(","):
        if item.strip():
            k, _, v = item.partition("=")
            out[k.strip()] = v.strip()
    return out


def _check_feature_types(types: Any) -> None:
    """XGBoost's feature_types: a list of "q" (also "float", "int", "i") and
    "c"; libgbt checks each type (gbt_dataset_set_feature_types)."""
    if types is None:
        return
    if isinstance(types, (str, bytes)):
        raise ValueError(f"feature_types must be a list of types, one per column; got {types!r}")
    bad = [t for t in types if t not in ("q", "float", "int", "i", "c")]
    if bad:
        raise ValueError(f"feature_types {bad[:5]}: each type is \"q\" (numeric; also \"float\", "
                         "\"int\", \"i\") or \"c\" (categorical)")


# XGBoost's typing name for the data a function takes (numpy, pandas, scipy.sparse, lists, ...)
ArrayLike = Any


class DataSplitMode(enum.IntEnum):
    """XGBoost's ``data_split_mode`` of a distributed DMatrix: ``ROW``, each
    process holds some rows (gbt's distributed training); ``COL``, each holds
    some features (XGBoost's vertical federated learning), not implemented."""
    ROW = 0
    COL = 1


class Dataset:
    """Training or prediction data for gbt: a ``gbt_dataset`` handle.

    Parameters
    ----------
    data : numpy.ndarray, pandas.DataFrame, scipy.sparse matrix, list, str or os.PathLike
        The features: a 2-D array (float32 and float64, C or Fortran order;
        other numeric dtypes are converted), a DataFrame of numeric or boolean
        columns, a sparse matrix (CSR and CSC; other formats are converted to
        CSR), a list of rows, or the path of a LIBSVM, CSV or TSV file read by
        the C reader (``gbt_dataset_from_file``; XGBoost's URI suffixes such as
        ``train.txt?format=libsvm`` or ``?format=csv&label_column=0`` become
        its options, and a file written by :meth:`save_binary` is read back),
        or a :class:`gbt.DataIter` whose batches are joined in memory, the
        fields it gives with them too (XGBoost's ``DMatrix(iterator)``;
        :class:`QuantileDMatrix` and :class:`ExtMemQuantileDMatrix` keep only
        bins).  libgbt copies what it is
        given; a C-ordered float32 array (or a CSR matrix with float32 values,
        uint32 indices and uint64 row pointers) is handed over without a
        conversion in Python, anything else is converted once first.
    label, weight, base_margin : array-like, optional
        Per-row fields.  ``base_margin`` has one value per row, or
        ``(rows, num_class)`` values.
    label_lower_bound, label_upper_bound : array-like, optional
        ``survival:aft``'s censoring intervals, one bound each per row
        (``inf`` for an open upper end).
    group : array-like of int, optional
        Query group sizes (consecutive rows), summing to the row count.
    qid : array-like of int, optional
        A query id per row; rows of one query must be consecutive.  Another
        way of giving ``group``.
    missing : float, optional
        Values equal to this are missing (NaN is always missing; None: NaN
        only).  In sparse data absent entries are missing too.
    silent : bool
        XGBoost's; accepted (gbt's reader logs through ``logging``).
    nthread : int, optional
        For a file: the reader's threads (its ``nthread`` option).
    feature_weights : array-like, optional
        Each feature's weight in the column sampling draws (XGBoost's
        ``feature_weights``); see :meth:`set_feature_weights`.
    enable_categorical : bool
        XGBoost's flag: a DataFrame's ``category`` columns become
        categorical features (``feature_types`` "c"), each value its
        category's code, the position of its category in the column's
        ``categories`` (missing values missing).  The categories are kept
        with the Dataset, and a model trained on it keeps them (its
        ``feature_categories`` attribute): a frame whose categories come in
        another order is recoded to the training codes when the model
        predicts or evaluates it, and a category the training frame did not
        have predicts as a category no training row had (docs/decisions.md).
        Without it a ``category`` column is refused, as XGBoost refuses it.
    feature_names : list of str, optional
        Names of the columns (a DataFrame's column names by default; a CSV
        file read with ``header=1`` names them from its header).  They are
        given to libgbt (``gbt_dataset_set_feature_names``): a model trained
        on named data stores them, uses them in dumps and importances, and
        refuses named data whose names differ (see ``validate_features``).
    feature_types : list of str, optional
        XGBoost's ``feature_types``: one per column, ``"q"`` numeric or
        ``"c"`` categorical (``gbt_dataset_set_feature_types``).  A
        categorical column holds category codes, whole numbers from 0 to
        2^24 - 1 (NaN missing); trees split it on sets of categories.
        A DataFrame with ``category`` columns and ``enable_categorical``
        gives its own types unless these are given.
    file_options : str or dict, optional
        For a file: the options of ``gbt_dataset_from_file`` (``format``,
        ``label_column``, ``header``, ``missing``, ``indexing_mode``,
        ``side_files``, ``nthread``...), as ``"format=csv,header=1"`` or a dict.
        ``missing`` other than NaN is passed on as ``missing=V``.
    data_split_mode : DataSplitMode, optional
        XGBoost's: ``DataSplitMode.ROW`` (the default, the only one gbt
        has); ``COL`` raises ``NotImplementedError``.
    """

    _group_weight: Optional[np.ndarray] = None  # weights given per query group (get_weight)

    def __init__(self, data: Any, label: Any = None, *, weight: Any = None, base_margin: Any = None,
                 missing: Optional[float] = None, silent: bool = False,
                 feature_names: Optional[Sequence[str]] = None, feature_types: Any = None,
                 nthread: Optional[int] = None, group: Any = None, qid: Any = None,
                 label_lower_bound: Any = None, label_upper_bound: Any = None,
                 feature_weights: Any = None, enable_categorical: bool = False,
                 file_options: Union[None, str, Mapping[str, Any]] = None,
                 _categories: Optional[Mapping[int, Sequence[Any]]] = None,
                 data_split_mode: DataSplitMode = DataSplitMode.ROW):
        self._handle = c_void_p()
        if DataSplitMode(data_split_mode) != DataSplitMode.ROW:
            raise NotImplementedError("data_split_mode=COL (each process holding some features, XGBoost's "
                                      "vertical federated learning) is not implemented: gbt's processes "
                                      "each hold some rows (DataSplitMode.ROW)")
        self.missing = float(missing) if missing is not None else math.nan
        from .data_iter import DataIter, concat_batches

        data = _series_as_frame(data)
        if isinstance(data, DataIter):  # XGBoost's DMatrix(iterator): the batches joined, values kept
            got = concat_batches(data)
            data = got["data"]
            label = got.get("label") if label is None else label
            weight = got.get("weight") if weight is None else weight
            base_margin = got.get("base_margin") if base_margin is None else base_margin
            group = got.get("group") if group is None else group
            qid = got.get("qid") if qid is None else qid
            label_lower_bound = got.get("label_lower_bound") if label_lower_bound is None else label_lower_bound
            label_upper_bound = got.get("label_upper_bound") if label_upper_bound is None else label_upper_bound
            feature_names = got.get("feature_names") if feature_names is None else feature_names
            feature_types = got.get("feature_types") if feature_types is None else feature_types
        _check_feature_types(feature_types)
        handle = c_void_p()
        df_names = df_types = None
        # XGBoost's spellings of the feature types ("int", "float", "i"...) as given; None: not set
        self._type_names: Optional[List[str]] = None
        # pandas category columns: feature index -> categories (code order), and the frame
        self._categories: Dict[int, List[Any]] = {}
        self._frame = None
        self.enable_categorical = bool(enable_categorical)
        if isinstance(data, (str, bytes, os.PathLike)):
            path = os.fsdecode(data)
            # (XGBoost's URIs, "train.txt?format=libsvm", and save_binary's files are the C reader's)
            if nthread is not None:
                file_options = _with_option(file_options, "nthread", max(0, int(nthread)))
            self._from_file(path, file_options, handle)
        elif _is_pandas_df(data):
            coded, _, self._categories = _category_frame(data, enable_categorical, _categories)
            if self._categories:
                self._frame = data  # to recode for a model whose categories come in another order
            df_types = _frame_types(data)
            arr, df_names = _pandas_to_numpy(coded)
            self._from_dense(_as_dense_f32(arr), handle)
        elif _is_sparse(data):
            self._from_sparse(data, handle)
        elif isinstance(data, Dataset):
            raise TypeError("data is a gbt.Dataset already")
        else:
            if data is None:
                raise TypeError("data is None; give an array, a DataFrame, a sparse matrix or a path")
            if isinstance(data, np.ndarray) and data.ndim != 2:  # XGBoost's ValueError, not a conversion
                raise ValueError(f"data must be 2-dimensional (rows x features); got shape {data.shape}")
            if np.ndim(data) == 0:  # not array-like: XGBoost's warning, then its TypeError
                import warnings
                warnings.warn(f"Unknown data type: {type(data)}, trying to convert it to csr_matrix",
                              UserWarning, stacklevel=2)
                raise TypeError(f"Not supported type for data: {type(data)} (give an array, a DataFrame, "
                                "a sparse matrix or a path)")
            self._from_dense(_as_dense_f32(data), handle)
        self._handle = handle
        if feature_names is None:
            feature_names = df_names
        if feature_types is None:
            feature_types = df_types
        self.set_info(label=label, weight=weight, base_margin=base_margin, group=group, qid=qid,
                      label_lower_bound=label_lower_bound, label_upper_bound=label_upper_bound,
                      feature_names=feature_names, feature_types=feature_types,
                      feature_weights=feature_weights)
        if self._categories:
            # kept by the C dataset too (for its categorical features), so that save_binary writes them
            types = self.feature_types
            text = json.dumps({str(i): c for i, c in sorted(self._categories.items()) if types[i] == "c"},
                              ensure_ascii=False)
            check(LIB.gbt_dataset_set_category_names(self._handle, cstr(text)))
        elif self._frame is None and isinstance(data, (str, bytes, os.PathLike)):
            # a binary dataset saved from a frame of categories brings them back
            text_p = c_char_p()
            check(LIB.gbt_dataset_get_category_names(self._handle, byref(text_p)))
            if text_p.value:
                self._categories = {int(k): v for k, v in json.loads(text_p.value.decode("utf-8")).items()}

    # -- feature names
    @property
    def feature_names(self) -> Optional[List[str]]:
        """The features' names (``gbt_dataset_get_feature_names``), or None."""
        p = ctypes.POINTER(c_char_p)()
        n = c_uint64()
        check(LIB.gbt_dataset_get_feature_names(self._handle, byref(p), byref(n)))
        if not n.value:
            return None
        return [p[i].decode("utf-8") for i in range(n.value)]

    @feature_names.setter
    def feature_names(self, names: Optional[Sequence[str]]) -> None:
        if names is None:
            check(LIB.gbt_dataset_set_feature_names(self._handle, None, 0))
            return
        names = [str(n) for n in names]
        if len(names) != self.num_col():
            raise ValueError(f"feature_names has {len(names)} names but the data has "
                             f"{self.num_col()} columns")
        if len(set(names)) != len(names):  # XGBoost's message, naming each repeated name once
            seen: Dict[str, int] = {}
            for n in names:
                seen[n] = seen.get(n, 0) + 1
            raise ValueError(f"feature_names must be unique. Duplicates found: {[n for n, c in seen.items() if c > 1]}")
        arr = (c_char_p * len(names))(*[cstr(n) for n in names])
        check(LIB.gbt_dataset_set_feature_names(self._handle, arr, len(names)), "feature_names")

    # -- feature types
    @property
    def feature_types(self) -> Optional[List[str]]:
        """Each column's type as XGBoost reports it: the types as they were
        set (``"q"``, ``"float"``, ``"int"``, ``"i"`` numeric, ``"c"``
        categorical), a DataFrame's from its columns (``"int"``, ``"float"``,
        ``"i"`` for booleans, ``"c"`` for categories), else the library's
        (a file's, a binary dataset's: the spellings it was saved with) when
        some type is not ``"q"``, and None when every column is ``"q"``."""
        if self._type_names is not None:
            return list(self._type_names)
        n = self.num_col()
        arr = (c_char_p * max(n, 1))()
        check(LIB.gbt_dataset_get_feature_types(self._handle, n, arr))
        types = [arr[i].decode("ascii") for i in range(n)]
        return types if any(t != "q" for t in types) else None

    @feature_types.setter
    def feature_types(self, types: Optional[Sequence[str]]) -> None:
        if types is None:
            check(LIB.gbt_dataset_set_feature_types(self._handle, None, 0))
            self._type_names = None
            return
        types = [str(t) for t in types]
        if len(types) != self.num_col():
            raise ValueError(f"feature_types has {len(types)} types but the data has {self.num_col()} columns")
        arr = (c_char_p * len(types))(*[cstr(t) for t in types])
        check(LIB.gbt_dataset_set_feature_types(self._handle, arr, len(types)), "feature_types")
        self._type_names = types

    # -- categories
    def _needs_recoding(self, target: Optional[Mapping[int, Sequence[Any]]]) -> bool:
        """Whether a category column's categories differ from target's (a model's)."""
        if not target or not self._categories:
            return False
        return any(i in target and [_cat_value(v) for v in target[i]] != cats
                   for i, cats in self._categories.items())

    def _recoded(self, target: Optional[Mapping[int, Sequence[Any]]]) -> "Dataset":
        """This Dataset, or a new one from the same frame whose category codes
        are target's (with the same per-row fields), when the categories differ."""
        if not self._needs_recoding(target):
            return self
        if self._frame is None:
            raise ValueError("the Dataset's categories differ from the model's (another order, or categories the "
                             "model was not trained with) and it was read from a file: save it from a DataFrame "
                             "recoded to the model's categories")
        d = Dataset(self._frame, missing=None if math.isnan(self.missing) else self.missing,
                    enable_categorical=True, feature_names=self.feature_names,
                    feature_types=self.feature_types, _categories=target)
        for field in ("label", "weight", "base_margin", "label_lower_bound", "label_upper_bound"):
            v = self._get_field(field)
            if v is not None and v.size:
                d.set_float_info(field, v.reshape(self.num_row(), -1) if field == "label" else v)
        group = self.get_group()
        if group is not None:
            d.set_group(group)
        return d

    # -- construction
    def _from_dense(self, arr: np.ndarray, handle: c_void_p) -> None:
        nrow, ncol = arr.shape
        check(LIB.gbt_dataset_from_dense(_ptr(arr), nrow, ncol, c_float(self.missing), byref(handle)))

    def _from_sparse(self, data: Any, handle: c_void_p) -> None:
        import scipy.sparse as sp

        if data.ndim != 2:
            raise ValueError(f"sparse data must be 2-dimensional; got shape {data.shape}")
        if data.format not in ("csr", "csc", "coo"):  # XGBoost's warning for the formats it converts
            import warnings
            warnings.warn(f"Unknown data type: {type(data)}, trying to convert it to csr_matrix",
                          UserWarning, stacklevel=3)
        csr = data if data.format == "csr" else sp.csr_matrix(data)
        if data.format == "csr" and not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()
        if csr.dtype.kind == "c" or csr.dtype.kind not in "biuf":
            raise ValueError(f"sparse data must be numeric; got dtype {csr.dtype}")
        values = np.ascontiguousarray(csr.data, dtype=np.float32)
        if not math.isnan(self.missing):
            mask = values == np.float32(self.missing)
            if mask.any():
                values = values.copy() if values is csr.data else values
                values[mask] = np.nan
        indptr = np.ascontiguousarray(csr.indptr, dtype=np.uint64)
        indices = np.ascontiguousarray(csr.indices, dtype=np.uint32)
        nrow, ncol = csr.shape
        check(LIB.gbt_dataset_from_csr(_ptr(indptr), _ptr(indices), _ptr(values), nrow, ncol,
                                       byref(handle)))

    def _from_file(self, path: str, options: Union[None, str, Mapping[str, Any]],
                   handle: c_void_p) -> None:
        if isinstance(options, Mapping):
            opts = ",".join(f"{k}={v}" for k, v in options.items())
        else:
            opts = options or ""
        if not math.isnan(self.missing) and "missing=" not in opts:
            opts = (opts + "," if opts else "") + f"missing={self.missing!r}"
        check(LIB.gbt_dataset_from_file(cstr(path), cstr(opts) if opts else None, byref(handle)))

    # -- fields
    def _set_field(self, field: str, values: Any) -> None:
        if values is None:
            check(LIB.gbt_dataset_set_field(self._handle, cstr(field), None, 0))
            return
        arr = np.asarray(values)
        n = self.num_row()
        if field in ("base_margin", "label") and arr.ndim == 2:
            # several per row, row-major: base margins per output, labels per target (multi-target)
            if arr.shape[0] != n:
                raise ValueError(f"{field} has {arr.shape[0]} rows but the data has {n}")
            arr = np.ascontiguousarray(arr, dtype=np.float32).reshape(-1)
        else:
            arr = _as_vector(arr, n, field)
        if field in ("label", "weight") and not np.all(np.isfinite(arr)):
            # XGBoost's words, which scripts match
            raise ValueError(f"{field.capitalize()} contains NaN, infinity or a value too large")
        check(LIB.gbt_dataset_set_field(self._handle, cstr(field), _ptr(arr), arr.size), field)

    def _get_field(self, field: str) -> Optional[np.ndarray]:
        p = ctypes.POINTER(c_float)()
        n = c_uint64()
        check(LIB.gbt_dataset_get_field(self._handle, cstr(field), byref(p), byref(n)))
        if not n.value:
            return None
        return np.ctypeslib.as_array(p, shape=(n.value,)).copy()

    def set_float_info(self, field: str, data: Any) -> None:
        """Set a per-row field by name (``gbt_dataset_set_field``): ``label``,
        ``weight``, ``base_margin``, ``label_lower_bound``, ``label_upper_bound``
        (survival:aft's intervals; ``inf`` for an open end)."""
        if field == "feature_weights":
            self.set_feature_weights(data)
            return
        if field == "weight":
            self.set_weight(data)
            return
        if field in ("label_lower_bound", "label_upper_bound") and data is not None:
            arr = _as_vector(data, self.num_row(), field)
            check(LIB.gbt_dataset_set_field(self._handle, cstr(field), _ptr(arr), arr.size), field)
            return
        self._set_field(field, data)

    def get_float_info(self, field: str) -> np.ndarray:
        """A per-row field by name (a float32 copy); an empty array when it is not
        set (XGBoost's behaviour); ``weight`` as given (per row or per group)."""
        if field == "weight" and self._group_weight is not None:
            return self._group_weight.copy()
        v = self._get_field(field)
        if field == "base_margin" and v is not None and v.size > self.num_row():
            return v.reshape(self.num_row(), -1)  # several outputs: rows x outputs, as XGBoost's
        return np.empty(0, dtype=np.float32) if v is None else v

    def set_feature_weights(self, weights: Any) -> None:
        """Set each feature's weight in the draws of ``colsample_bytree``,
        ``colsample_bylevel`` and ``colsample_bynode`` (XGBoost's
        ``feature_weights``): one finite value >= 0 per feature, not all 0;
        None or an empty array removes them."""
        if weights is None:
            check(LIB.gbt_dataset_set_field(self._handle, cstr("feature_weights"), None, 0))
            return
        arr = np.ascontiguousarray(np.asarray(weights, dtype=np.float32).reshape(-1))
        if arr.size == 0:  # XGBoost's way of removing them
            check(LIB.gbt_dataset_set_field(self._handle, cstr("feature_weights"), None, 0))
            return
        check(LIB.gbt_dataset_set_field(self._handle, cstr("feature_weights"), _ptr(arr), arr.size))

    def set_label(self, label: Any) -> None:
        """Set the labels: one finite value per row, or an (nrow, T) array of T
        targets per row (multi-target regression, multi-label classification);
        None removes them."""
        self._set_field("label", label)

    def set_weight(self, weight: Any) -> None:
        """Set the weights (finite, >= 0; None removes them): one per row, or,
        on data with query groups, one per group as XGBoost takes them for
        ranking.  Per-group weights given before the groups wait for
        :meth:`set_group` / :meth:`set_qid` (as in XGBoost, the sizes are
        checked when training)."""
        self._group_weight = None
        if weight is not None:
            arr = np.asarray(weight)
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr = arr.reshape(-1)
            groups = self.get_group()
            if arr.ndim == 1 and arr.shape[0] != self.num_row() and groups is not None \
                    and arr.shape[0] != groups.size:
                raise ValueError("Size of weight must equal to the number of query groups when ranking "
                                 f"group is used: {arr.shape[0]} weights for {groups.size} query "
                                 f"groups of {self.num_row()} rows (or give one per row)")
            if arr.ndim == 1 and arr.shape[0] != self.num_row():
                if not np.all(np.isfinite(arr.astype(np.float64))):
                    raise ValueError("Weight contains NaN, infinity or a value too large")
                self._group_weight = np.ascontiguousarray(arr, dtype=np.float32)
                check(LIB.gbt_dataset_set_field(self._handle, cstr("weight"), None, 0))
                if groups is not None:
                    check(LIB.gbt_dataset_set_field(self._handle, cstr("weight"),
                                                    _ptr(self._group_weight), arr.shape[0]), "weight")
                return
        self._set_field("weight", weight)

    def _check_weight(self) -> None:
        """Raise XGBoost's error when per-group weights do not match the groups."""
        if self._group_weight is None:
            return
        groups = self.get_group()
        if groups is None:
            raise ValueError(f"Size of weights must equal to number of rows: {self._group_weight.size} "
                             f"weights for {self.num_row()} rows and no query groups")
        if groups.size != self._group_weight.size:
            raise ValueError("Size of weight must equal to the number of query groups when ranking "
                             f"group is used: {self._group_weight.size} weights for {groups.size} groups")

    def set_base_margin(self, margin: Any) -> None:
        """Set the starting raw scores: one per row, or rows x num_class."""
        self._set_field("base_margin", margin)

    def set_group(self, group: Any) -> None:
        """Set query groups: the sizes of consecutive runs of rows."""
        sizes = np.asarray(group)
        if sizes.ndim != 1 or (sizes.size and (sizes.dtype.kind not in "iu" or sizes.min() < 1)):
            raise ValueError("group must be a 1-D array of positive integer group sizes")
        if int(sizes.sum()) != self.num_row():
            raise ValueError(f"group sizes sum to {int(sizes.sum())} but the data has "
                             f"{self.num_row()} rows")
        sizes = np.ascontiguousarray(sizes, dtype=np.uint32)
        check(LIB.gbt_dataset_set_groups(self._handle, _ptr(sizes), sizes.size))
        gw = self._group_weight
        if gw is not None:
            check(LIB.gbt_dataset_set_field(self._handle, cstr("weight"), None, 0))
            if gw.size == sizes.size:
                check(LIB.gbt_dataset_set_field(self._handle, cstr("weight"), _ptr(gw), gw.size), "weight")

    def set_qid(self, qid: Any) -> None:
        """Set query groups from a query id per row (rows of a query consecutive)."""
        q = np.asarray(qid).reshape(-1)
        if q.shape[0] != self.num_row():
            raise ValueError(f"qid has {q.shape[0]} values but the data has {self.num_row()} rows")
        if q.size == 0:
            return
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        if len(np.unique(q[starts])) != len(starts):
            raise ValueError("qid: the rows of each query must be consecutive (sort the data by qid)")
        sizes = np.diff(np.r_[starts, q.size])
        self.set_group(sizes.astype(np.uint32))

    def get_group(self) -> Optional[np.ndarray]:
        """The query group sizes (a copy, uint32; ``gbt_dataset_get_groups``), or None."""
        p = ctypes.POINTER(ctypes.c_uint32)()
        n = c_uint64()
        check(LIB.gbt_dataset_get_groups(self._handle, byref(p), byref(n)))
        if not n.value:
            return None
        return np.ctypeslib.as_array(p, shape=(n.value,)).copy()

    def slice_rows(self, begin: int, end: int) -> "Dataset":
        """A new Dataset of rows ``begin`` to ``end - 1`` with their fields,
        groups (cut on group boundaries) and the feature names
        (``gbt_dataset_slice_rows``)."""
        handle = c_void_p()
        check(LIB.gbt_dataset_slice_rows(self._handle, int(begin), int(end), byref(handle)))
        d = Dataset.__new__(Dataset)
        d._handle, d.missing, d._type_names = handle, self.missing, self._type_names
        d.enable_categorical, d._categories = self.enable_categorical, self._categories
        d._frame = self._frame.iloc[int(begin):int(end)] if self._frame is not None else None
        return d

    def _raw(self) -> Tuple[Optional[np.ndarray], Any]:
        """The feature values without a copy: a dense (rows, cols) float32
        view, or None and a scipy CSR matrix over the library's arrays
        (``gbt_dataset_get_data``); valid while this Dataset lives."""
        nrow, ncol = self.num_row(), self.num_col()
        dense = ctypes.POINTER(c_float)()
        indptr = ctypes.POINTER(c_uint64)()
        indices = ctypes.POINTER(ctypes.c_uint32)()
        values = ctypes.POINTER(c_float)()
        nnz = c_uint64()
        check(LIB.gbt_dataset_get_data(self._handle, byref(dense), byref(indptr), byref(indices),
                                       byref(values), byref(nnz)))
        if not indptr:  # dense
            if not dense:
                return np.empty((nrow, ncol), np.float32), None
            return np.ctypeslib.as_array(dense, shape=(nrow * ncol,)).reshape(nrow, ncol), None
        import scipy.sparse as sp

        n = int(nnz.value)
        ip = np.ctypeslib.as_array(indptr, shape=(nrow + 1,)).astype(np.int64)
        ix = np.ctypeslib.as_array(indices, shape=(n,)) if n else np.empty(0, np.uint32)
        vals = np.ctypeslib.as_array(values, shape=(n,)) if n else np.empty(0, np.float32)
        return None, sp.csr_matrix((vals, ix, ip), shape=(nrow, ncol))

    def get_data(self) -> Any:
        """The feature values as a scipy CSR matrix (XGBoost's
        ``DMatrix.get_data``): float32 values of the present entries (missing
        values, NaN or ``missing=``, are absent; zeros are kept), columns
        ascending in each row."""
        import scipy.sparse as sp

        dense, csr = self._raw()
        if csr is not None:
            return sp.csr_matrix((csr.data.copy(), csr.indices.astype(np.int32), csr.indptr.astype(np.int64)),
                                 shape=csr.shape)
        present = ~np.isnan(dense)
        rows, cols = np.nonzero(present)
        indptr = np.concatenate([[0], np.cumsum(present.sum(axis=1))]).astype(np.int64)
        return sp.csr_matrix((dense[rows, cols].astype(np.float32), cols.astype(np.int32), indptr),
                             shape=dense.shape)

    def slice(self, rindex: Any, allow_groups: bool = False) -> "Dataset":
        """A new Dataset of the rows ``rindex`` (indices in any order, or a
        boolean mask), with their labels, weights, base margins, survival
        bounds, the feature names, types and weights, and the categories
        (XGBoost's ``DMatrix.slice``).  Data with query groups needs
        ``allow_groups=True``; then each group must be taken whole and
        contiguously (the slice keeps those groups)."""
        idx = np.asarray(rindex)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = idx.astype(np.int64).reshape(-1)
        nrow = self.num_row()
        if idx.size and (idx.min() < -nrow or idx.max() >= nrow):
            raise IndexError(f"slice: row index out of range for {nrow} rows")
        groups = self.get_group()
        if groups is not None and not allow_groups:
            raise ValueError("slice: the data has query groups; pass allow_groups=True")
        dense, csr = self._raw()
        out = Dataset(np.ascontiguousarray(dense[idx]) if csr is None else csr[idx], missing=np.nan)
        for field in ("label", "weight", "label_lower_bound", "label_upper_bound"):
            v = self._get_field(field)
            if v is not None:
                out.set_float_info(field, v.reshape(nrow, -1)[idx] if field == "label" else v[idx])
        bm = self._get_field("base_margin")
        if bm is not None:
            out.set_base_margin(bm.reshape(nrow, -1)[idx])
        if groups is not None:
            out.set_qid(np.repeat(np.arange(groups.size), groups)[idx])
        fw = self._get_field("feature_weights")
        if fw is not None:
            out.set_feature_weights(fw)
        if self.feature_names is not None:
            out.feature_names = self.feature_names
        if self.feature_types is not None:
            out.feature_types = self.feature_types
        out.missing, out.enable_categorical, out._categories = self.missing, self.enable_categorical, self._categories
        out._frame = self._frame.iloc[idx] if self._frame is not None else None
        return out

    def get_label(self) -> np.ndarray:
        """The labels (a float32 copy, flat: nrow * T values for T targets, row-major);
        an empty array when there are none (as XGBoost's)."""
        return self.get_float_info("label")

    def get_weight(self) -> np.ndarray:
        """The weights (a float32 copy) as given: per row, or per query group;
        an empty array when there are none (as XGBoost's)."""
        return self.get_float_info("weight")

    def get_base_margin(self) -> np.ndarray:
        """The base margin (a float32 copy): one per row, or rows x outputs
        when it has several per row (XGBoost's shapes); an empty array when
        there is none."""
        return self.get_float_info("base_margin")

    def set_info(self, *, label: Any = None, weight: Any = None, base_margin: Any = None,
                 group: Any = None, qid: Any = None, label_lower_bound: Any = None,
                 label_upper_bound: Any = None, feature_names: Optional[Sequence[str]] = None,
                 feature_types: Any = None, feature_weights: Any = None) -> None:
        """Set several fields at once (XGBoost's ``DMatrix.set_info``); None leaves one unchanged."""
        _check_feature_types(feature_types)
        if feature_weights is not None:
            self.set_feature_weights(feature_weights)
        if label is not None:
            self.set_label(label)
        if base_margin is not None:
            self.set_base_margin(base_margin)
        if label_lower_bound is not None:
            self.set_float_info("label_lower_bound", label_lower_bound)
        if label_upper_bound is not None:
            self.set_float_info("label_upper_bound", label_upper_bound)
        if group is not None and qid is not None:
            raise ValueError("give group or qid, not both")
        if group is not None:
            self.set_group(group)
        if qid is not None:
            self.set_qid(qid)
        if weight is not None:  # after the groups: on ranking data, one weight per group
            self.set_weight(weight)
        if feature_names is not None:
            self.feature_names = feature_names
        if feature_types is not None:
            self.feature_types = feature_types

    def get_uint_info(self, field: str) -> np.ndarray:
        """XGBoost's ``get_uint_info``: ``group_ptr`` (the offsets of the query
        groups, ``[0, s0, s0 + s1, ...]``, uint32; empty without groups)."""
        if field != "group_ptr":
            raise ValueError(f"unknown uint field {field!r}: gbt has 'group_ptr'")
        sizes = self.get_group()
        if sizes is None:
            return np.empty(0, dtype=np.uint32)
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.uint32)

    def set_uint_info(self, field: str, data: Any) -> None:
        """XGBoost's ``set_uint_info``: ``group`` (query group sizes)."""
        if field != "group":
            raise ValueError(f"unknown uint field {field!r}: gbt has 'group'")
        self.set_group(data)

    def num_nonmissing(self) -> int:
        """The number of values that are not missing."""
        dense = ctypes.POINTER(c_float)()
        nnz = c_uint64()
        check(LIB.gbt_dataset_get_data(self._handle, byref(dense), None, None, None, byref(nnz)))
        if dense:
            n = self.num_row() * self.num_col()
            arr = np.ctypeslib.as_array(dense, shape=(n,)) if n else np.empty(0, np.float32)
            return int(np.count_nonzero(~np.isnan(arr)))
        return int(nnz.value)

    def save_binary(self, fname: PathLike, silent: bool = True) -> None:
        """Save the dataset whole (feature values, fields, query groups, feature
        names and types, a DataFrame's category names) to a file that ``gbt.Dataset(fname)``, ``gbtrain`` and
        ``gbpredict`` read back (``gbt_dataset_save_binary``: gbt's own binary
        format, docs/binary-format.md; XGBoost's binary DMatrix files are not
        read).  Written atomically."""
        check(LIB.gbt_dataset_save_binary(self._handle, cstr(os.fspath(fname))))

    def num_row(self) -> int:
        """The number of rows."""
        r, c = c_uint64(), c_uint64()
        check(LIB.gbt_dataset_shape(self._handle, byref(r), byref(c)))
        return r.value

    def num_col(self) -> int:
        """The number of columns (features)."""
        r, c = c_uint64(), c_uint64()
        check(LIB.gbt_dataset_shape(self._handle, byref(r), byref(c)))
        return c.value

    @property
    def shape(self) -> Tuple[int, int]:
        return self.num_row(), self.num_col()

    def __repr__(self) -> str:
        return f"<gbt.Dataset {self.num_row()} rows x {self.num_col()} features>"

    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        if h is not None and h.value:
            try:
                LIB.gbt_dataset_free(h)
            except Exception:  # pragma: no cover - interpreter shutdown
                pass
            self._handle = None


class QuantileDMatrix(Dataset):
    """XGBoost's ``QuantileDMatrix``: a :class:`Dataset` (gbt bins every
    dataset for training itself, from the booster's ``max_bin``).

    ``max_bin`` given here becomes the booster's ``max_bin`` in
    :func:`gbt.train` unless params set it; ``max_quantile_batches`` is
    accepted and unused.  A 2-D numpy array (with ``label``, ``weight``,
    ``base_margin``, ``missing``, ``feature_names``, ``feature_weights``
    and no ``ref``, outside a collective context) is binned without a
    copy of its floats kept: the dataset holds the binned matrix
    (``max_bin``, 256 by default), as XGBoost's ``QuantileDMatrix`` does,
    and trains the model of ``Dataset(array)`` byte for byte.  A float32
    array with evenly spaced rows is read where it lies
    (``gbt_dataset_from_dense_binned``: the cuts one feature at a time,
    then the rows binned in blocks); another dtype is converted to one
    float32 copy first, unless its values repeat (fewer distinct values
    than half the present ones in 4,096 rows spread over it), where it is
    binned as an iterator's batches are (below), blocks of about 16 MB of
    its rows in turn.  Other data (a
    DataFrame, a sparse matrix, groups, categorical features) and an array
    with ``ref`` (the training data whose bins a validation set should use)
    make a :class:`Dataset` that keeps its values; the trees route values as
    they route the training data's bins.

    ``data`` may be a :class:`gbt.DataIter` (the fields then come with each
    batch, through ``input_data``): the batches are read twice, for the
    cuts of all the rows and then to bin each batch
    (``gbt_dataset_from_iter``), and the dataset keeps the binned matrix
    (``max_bin``, 256 by default) without the feature values.  It trains the
    model of the same rows in one :class:`Dataset`, byte for byte.  With
    ``ref`` (a :class:`Dataset`, the training data), the batches are read
    once and binned with the cuts a training on ``ref`` uses
    (``gbt_dataset_from_iter_ref``; ``max_bin`` is then ``ref``'s unless
    given): evaluation (an entry of ``evals``) and prediction on it give the
    values of the same rows in memory, bit for bit, as XGBoost's
    ``QuantileDMatrix(it, ref=dtrain)``.  Prediction and evaluation by trees
    whose thresholds are not its cuts (another ``max_bin``, other data),
    a training with another ``max_bin`` and slicing are refused
    (docs/external-memory.md).  Made inside a collective context
    (``gbt.collective.CommunicatorContext``, ``gbt.collective.init``), every
    rank with its own batches and without ``ref``, its cuts are those of
    every rank's rows (``gbt_dataset_from_iter_ext_mpi`` without a cache
    prefix), for a distributed
    :func:`gbt.train` over that communicator; one made outside is refused
    there."""

    _pages = False  # ExtMemQuantileDMatrix: the binned matrix in pages on disk

    def __init__(self, data: Any, label: Any = None, *, max_bin: Optional[int] = None, ref: Any = None,
                 max_quantile_batches: Optional[int] = None, **kwargs: Any):
        from .collective import _current
        from .data_iter import DataIter, _ArrayRows, dataset_from_iter

        if not isinstance(data, DataIter):
            plain = ("weight", "base_margin", "missing", "feature_names", "feature_weights", "silent", "nthread")
            if (self._pages or ref is not None or _current() is not None or not isinstance(data, np.ndarray)
                    or data.ndim != 2 or data.shape[0] == 0 or data.dtype.kind not in "fiub"
                    or any(k not in plain for k in kwargs)):
                super().__init__(data, label, **kwargs)
                self.max_bin = None if max_bin is None else int(max_bin)
                return
            in_place = data.dtype == np.float32 and data.strides[1] == 4 and data.strides[0] % 4 == 0 \
                and data.strides[0] >= 4 * data.shape[1]
            if in_place or not _ArrayRows.pays(data):
                self._from_array(data, label, max_bin, **kwargs)
                return
            # another dtype with repeating values: binned a block of rows at a time (no whole float32 copy)
            fields = {k: np.asarray(v) for k, v in (("label", label), ("weight", kwargs.pop("weight", None)),
                                                    ("base_margin", kwargs.pop("base_margin", None)))
                      if v is not None}
            data, label = _ArrayRows(data, fields), None
        self._handle = c_void_p()
        taken = ("missing", "feature_names", "feature_weights", "silent", "nthread", "enable_categorical")
        fields = ("weight", "base_margin", "group", "qid", "label_lower_bound", "label_upper_bound",
                  "feature_types")
        unknown = sorted(k for k in kwargs if k not in taken and k not in fields)
        if unknown:
            raise TypeError(f"QuantileDMatrix got unexpected keyword arguments: {', '.join(unknown)}")
        given = (["label"] if label is not None else []) + sorted(k for k in kwargs if k in fields)
        if given:  # XGBoost's ValueError and words
            raise ValueError("If data iterator is used as input, data like label should be specified as "
                             "batch argument: the per-row fields come with each batch (input_data); "
                             f"unexpected here: {', '.join(given)}")
        missing = kwargs.get("missing")
        self.missing = float(missing) if missing is not None else math.nan
        self._categories, self._frame, self.enable_categorical = {}, None, False
        if ref is not None and not isinstance(ref, Dataset):
            raise TypeError("ref must be the training gbt.Dataset (a QuantileDMatrix, DMatrix), "
                            f"not {type(ref).__name__}")
        if max_bin is None and ref is not None:
            max_bin = getattr(ref, "max_bin", None)
        self.max_bin = 256 if max_bin is None else int(max_bin)
        if ref is None:
            cache = (data.cache_prefix or "") if self._pages else None
            # inside a collective context (gbt.collective.init, CommunicatorContext) over its ranks, as XGBoost's
            made = dataset_from_iter(data, self.max_bin, self.missing, cache_prefix=cache, comm=_current())
        else:  # binned with ref's cuts, kept in memory (no pages): a validation set
            made = dataset_from_iter(data, self.max_bin, self.missing, ref=ref._handle)
        self._handle = made["handle"]
        names = kwargs.get("feature_names") or made["feature_names"]
        self.set_info(feature_names=names, feature_weights=kwargs.get("feature_weights"))

    def _from_array(self, data: np.ndarray, label: Any, max_bin: Optional[int], *, weight: Any = None,
                    base_margin: Any = None, missing: Any = None, feature_names: Any = None,
                    feature_weights: Any = None, silent: Any = None, nthread: Any = None) -> None:
        """The bins of a 2-D numpy array (``gbt_dataset_from_dense_binned``):
        a float32 array whose rows are evenly spaced is read in place, another
        converted to one float32 copy first."""
        arr = data
        if not (arr.dtype == np.float32 and arr.strides[1] == 4 and arr.strides[0] % 4 == 0
                and arr.strides[0] >= 4 * arr.shape[1]):
            arr = _as_dense_f32(arr)
        nrow, ncol = arr.shape
        self.missing = float(missing) if missing is not None else math.nan
        self._categories, self._frame, self.enable_categorical = {}, None, False
        self.max_bin = 256 if max_bin is None else int(max_bin)
        w = None if weight is None else _as_vector(weight, nrow, "weight")
        self._handle = c_void_p()
        check(LIB.gbt_dataset_from_dense_binned(arr.ctypes.data, nrow, ncol, arr.strides[0] // 4,
                                                c_float(self.missing), None if w is None else _ptr(w),
                                                self.max_bin, byref(self._handle)))
        self.set_info(label=label, base_margin=base_margin, feature_names=feature_names,
                      feature_weights=feature_weights)


class ExtMemQuantileDMatrix(QuantileDMatrix):
    """XGBoost's ``ExtMemQuantileDMatrix``: a :class:`QuantileDMatrix` of a
    :class:`gbt.DataIter` whose binned matrix is kept on disk, in pages of
    a file under the iterator's ``cache_prefix`` (``None``: the current
    folder), one page a batch, each with a header and a CRC-32
    (``gbt_dataset_from_iter_ext``).  The file is removed when the
    dataset and every booster that trained on it are freed.  Training on
    the CPU streams the pages, one in memory at a time (CUDA reads them
    back whole), checking each (a stale or corrupt page raises
    :class:`gbt.FormatError` naming the file), and gives the model of
    :class:`QuantileDMatrix` on the same batches, byte for byte; prediction
    and evaluation on it read the pages too (docs/external-memory.md).
    With ``ref`` the batches are binned with ``ref``'s cuts and kept in
    memory, as :class:`QuantileDMatrix`'s.  Made inside a collective
    context, as :class:`QuantileDMatrix`, each rank writes its own page file
    (``gbt_dataset_from_iter_ext_mpi``).  ``cache_host_ratio`` is accepted
    and unused."""

    _pages = True

    def __init__(self, data: Any, *, missing: Optional[float] = None, nthread: Optional[int] = None,
                 max_bin: Optional[int] = None, ref: Any = None, enable_categorical: bool = False,
                 max_quantile_batches: Optional[int] = None, cache_host_ratio: Optional[float] = None):
        from .data_iter import DataIter

        if not isinstance(data, DataIter):
            raise TypeError("ExtMemQuantileDMatrix takes a gbt.DataIter")
        super().__init__(data, max_bin=max_bin, ref=ref, max_quantile_batches=max_quantile_batches,
                         missing=missing, nthread=nthread, enable_categorical=enable_categorical)


# ---------------------------------------------------------------- parameters

def _param_text(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.ndim == 0:  # np.median(y): one number
        value = value.item()
    if isinstance(value, (list, tuple, np.ndarray)):  # quantile_alpha=[0.1, 0.9]: "0.1,0.9"
        return ",".join(_param_text(v) for v in value)
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return repr(int(v)) if v.is_integer() and abs(v) < 2**53 else repr(v)
    return str(value)


def _constraint_text(name: str, value: Any) -> str:
    """monotone_constraints and interaction_constraints in XGBoost's Python
    forms as the library's text: a tuple or list of -1/0/1 as "(1,0,-1)", a
    dict by feature name as '{"age":1}', nested lists of indices or names as
    '[[0,1],["a","b"]]'; text passes unchanged."""
    if isinstance(value, str):
        return value

    def whole(v: Any, what: str) -> int:
        # int() would make 1.9 feature 1 and 0.5 no constraint: refused, as the CLI's text is
        if isinstance(v, (str, bool, np.bool_, int, np.integer)) or (
                isinstance(v, (float, np.floating)) and float(v).is_integer()):
            return int(v)
        raise ValueError(f"{name}: {v} is not {what}")
    if isinstance(value, Mapping):
        return "{" + ",".join(json.dumps(str(k)) + ":" + str(whole(v, "-1, 0 or 1")) for k, v in value.items()) + "}"
    if name == "monotone_constraints":
        return "(" + ",".join(str(whole(v, "-1, 0 or 1")) for v in value) + ")"

    def item(v: Any) -> Any:
        return str(v) if isinstance(v, str) else whole(v, "a feature index (a whole number) or a name")
    return json.dumps([[item(v) for v in group] for group in value])


_CONSTRAINT_PARAMS = ("monotone_constraints", "interaction_constraints")

# ---------------------------------------------------------------- Booster

DataLike = Any


def _merge_params(params: Union[None, Mapping[str, Any], Iterable[Tuple[str, Any]]]) -> Dict[str, Any]:
    """Parameters as a dict: a dict as it is, or XGBoost's list of pairs, where
    ``eval_metric`` may come several times (each one a metric to compute: all
    are kept, in order) and any other name's last value wins."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return dict(params)
    out: Dict[str, Any] = {}
    for pair in params:
        try:
            k, v = pair
        except (TypeError, ValueError):
            raise TypeError(f"params must be a dict or a list of (name, value) pairs; got {pair!r}") from None
        if k in ("eval_metric", "metric") and k in out:
            prev = out[k]
            prev = [prev] if isinstance(prev, str) else list(prev)
            out[k] = prev + ([v] if isinstance(v, str) else list(v))
        else:
            out[k] = v
    return out


# XGBoost parameters that gbt has no counterpart for: name -> the values that
# mean what gbt does anyway (accepted silently; None: any value).  Any other
# value is ignored with a warning.  Names the library knows are passed to it.
_XGB_ONLY: Dict[str, Any] = {
    "validate_parameters": None, "silent": None, "predictor": None, "max_cached_hist_node": None,
    "sampling_method": {"uniform"},
    "updater": set(),  # the growers' names; gblinear's and refresh/prune go to the library (Booster._set_one)
    "gpu_id": set(),
    # switches that change no model in XGBoost or have gbt's meaning already: gbt's row and
    # column draws differ each round (seed_per_iteration); debug_synchronize and
    # sparse_threshold are XGBoost's internal knobs
    "debug_synchronize": None, "sparse_threshold": None, "seed_per_iteration": None,
    "boost_from_average": {1, "1"}, "fail_on_invalid_gpu_id": {0, "0"},
}


# the tree updaters of process_type=update, which the library runs
_UPDATERS = ("refresh", "prune", "refresh,prune")


def _xgb_only_param(name: str, value: Any) -> None:
    ok = _XGB_ONLY[name]
    if ok is None or value is None:
        return
    text = _param_text(value) if not isinstance(value, (list, tuple, dict)) else str(value)
    if isinstance(value, (list, tuple, dict)) and not value:
        return
    if value in ok or text in ok:
        return
    import warnings
    warnings.warn(f"gbt has no parameter `{name}`: {name}={value!r} is ignored", UserWarning, stacklevel=4)


def _fmap_renamer(fmap: PathLike, names: List[str]) -> Callable[[str], str]:
    """A function replacing the model's feature names in a dump with those of
    XGBoost's feature map file ``fmap`` (``index<TAB>name<TAB>type`` lines)."""
    import re

    mapping: Dict[str, str] = {}
    try:
        f = open(os.fspath(fmap), encoding="utf-8")
    except OSError as e:  # XGBoost raises its XGBoostError (a ValueError)
        raise GBTIOError(f"{os.fspath(fmap)}: cannot read the feature map: {e.strerror}") from e
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            parts = line.split()
            if len(parts) < 2 or not parts[0].isdigit():
                raise ValueError(f"{os.fspath(fmap)}:{lineno}: a feature map line is 'index name type'; "
                                 f"got {line.strip()!r}")
            i = int(parts[0])
            if i < len(names):
                mapping[names[i]] = parts[1]
    if not mapping:
        return lambda text: text
    pattern = re.compile(r'(?<=[\[" ])(' + "|".join(re.escape(n) for n in sorted(mapping, key=len, reverse=True))
                         + r')(?=[<"\]])')
    return lambda text: pattern.sub(lambda m: mapping[m.group(1)], text)


class Booster:
    """A gbt model: a ``gbt_booster`` handle.

    Parameters
    ----------
    params : dict or list of (name, value) pairs, optional
        Booster parameters by XGBoost's names and aliases (``gbt.params_info()``
        lists them).  ``eval_metric`` may be a list, or repeated in pairs.
    cache : list of Dataset, optional
        XGBoost's; accepted and unused (gbt keeps each evaluated dataset's
        scores between rounds itself).
    model_file : str, os.PathLike, bytes or bytearray, optional
        A saved model to load: a path, or the model's bytes (gbt's JSON,
        XGBoost's JSON or UBJSON: :meth:`save_raw`'s, or XGBoost's).

    Notes
    -----
    Prediction may run from many threads at once on one booster (the GIL is
    released during the C call); training or setting parameters while
    another thread uses the booster is not allowed.
    """

    def __init__(self, params: Optional[Mapping[str, Any]] = None, cache: Optional[Sequence[Dataset]] = None,
                 model_file: Any = None):
        # cache: XGBoost's list of DMatrix to keep predictions for; gbt keeps
        # evaluation scores per dataset itself, so it is accepted and unused.
        if isinstance(cache, (str, bytes, bytearray, os.PathLike)):
            raise TypeError("Booster's second argument is cache (a list of DMatrix), as in XGBoost; "
                            "give a saved model as model_file=")
        self._handle = c_void_p()
        self._cache: Dict[Any, int] = {}  # facts of the current model, cleared when it changes
        if model_file is not None:
            self.load_model(model_file)
        else:
            check(LIB.gbt_booster_create(byref(self._handle)))
        if params:
            self.set_param(params)

    # -- lifetime, copies, pickling
    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        if h is not None and h.value:
            try:
                LIB.gbt_booster_free(h)
            except Exception:  # pragma: no cover - interpreter shutdown
                pass
            self._handle = None

    def _replace_handle(self, new: c_void_p) -> None:
        self._cache = {}
        old = self._handle
        self._handle = new
        if old is not None and old.value:
            LIB.gbt_booster_free(old)

    def __getstate__(self) -> Dict[str, Any]:
        return {"model": self.save_raw("gbt") if self._has_model() else None,
                "params": self._param_snapshot()}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._handle = c_void_p()
        self._cache = {}
        if state.get("model") is not None:
            self.load_model(state["model"])
        else:
            check(LIB.gbt_booster_create(byref(self._handle)))
        for k, v in (state.get("params") or {}).items():
            self._set_one(k, v, quiet=True)

    def __copy__(self) -> "Booster":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "Booster":
        return self.copy()

    def copy(self) -> "Booster":
        """An independent copy (the model and the parameters)."""
        b = Booster.__new__(Booster)
        b.__setstate__(self.__getstate__())
        return b

    # -- parameters
    _SNAPSHOT = ("nthread", "device", "verbosity", "eval_metric")

    def _param_snapshot(self) -> Dict[str, str]:
        """Parameters a model file does not keep (the training block keeps the others)."""
        out = {}
        for k in self._SNAPSHOT:
            try:
                out[k] = self.get_param(k)
            except _lib.GBTError:
                pass
        return out

    def _set_one(self, name: str, value: Any, quiet: bool = False) -> None:
        # the library's updaters are gblinear's (shotgun, coord_descent) and those of
        # process_type=update (refresh, prune); XGBoost's growers ("grow_quantile_histmaker",
        # ...) have no counterpart, as before
        tree_updater = name == "updater" and value not in ("shotgun", "coord_descent", *_UPDATERS)
        if name == "updater" and value in _UPDATERS and not quiet:
            import warnings
            warnings.warn(f"`updater`={value!r} changes the model's trees (process_type=update); "
                          "`tree_method` does not apply to it", UserWarning, stacklevel=4)
        if name.replace("-", "_") in _XGB_ONLY and (tree_updater or not _has_param(name)):
            _xgb_only_param(name.replace("-", "_"), value)
            return
        if name in ("eval_metric", "metric"):
            # XGBoost's rule (and the C API's): each metric is added to the list; gbt's "" empties it
            metrics = [value] if isinstance(value, str) else list(value)
            for m in metrics:
                check(LIB.gbt_booster_set_param(self._handle, cstr(name), cstr(str(m))))
            return
        text = _constraint_text(name, value) if name in _CONSTRAINT_PARAMS else _param_text(value)
        st = LIB.gbt_booster_set_param(self._handle, cstr(name), cstr(text))
        if st == _lib.ParamError.status and not _has_param(name):
            # XGBoost ignores an unknown name with a warning; the C API refuses it
            hint = LIB.gbt_last_error().decode("utf-8", "replace")
            if not quiet:
                import warnings
                warnings.warn(f'Parameters: {{ "{name}" }} are not used. ({hint})', UserWarning, stacklevel=4)
            return
        if not quiet:
            check(st)

    def set_param(self, params: Union[str, Mapping[str, Any], Iterable[Tuple[str, Any]]],
                  value: Any = None) -> None:
        """Set parameters: ``set_param("eta", 0.1)`` or ``set_param({"eta": 0.1, ...})``.

        ``eval_metric`` adds the value (a name or a list of names) to the
        booster's metrics, as XGBoost's ``set_param`` does (a metric already
        there is not added twice); gbt's ``set_param("eval_metric", "")``
        empties the list first, so ``set_param([("eval_metric", ""),
        ("eval_metric", "rmse")])`` replaces it.  Other parameters take text
        or numbers.
        An unknown name is ignored with XGBoost's warning (``Parameters: {
        "name" } are not used.``, a ``UserWarning`` with the closest valid
        name); a value out of range raises :class:`gbt.ParamError` with the
        library's message.  (The C API and the CLIs refuse unknown names.)
        """
        if isinstance(params, str):
            items = [(params, value)]
        else:
            items = list(_merge_params(params).items())
        for k, v in items:
            if v is None:
                continue
            self._set_one(k, v)

    def get_param(self, name: str) -> str:
        """The current value of parameter ``name``, as text."""
        buf = ctypes.create_string_buffer(40000)  # constraint texts may be long
        check(LIB.gbt_booster_get_param(self._handle, cstr(name), buf, len(buf)))
        return buf.value.decode()

    def attr(self, key: str) -> Optional[str]:
        """A read-only fact (``device``, ``best_iteration``, ``best_score``,
        ``num_feature``) or an attribute set by :meth:`set_attr`, as text, or
        None when it is not known."""
        if key not in _FACTS:
            return self._user_attrs().get(key)
        buf = ctypes.create_string_buffer(256)
        st = LIB.gbt_booster_get_attr(self._handle, cstr(key), buf, len(buf))
        if st == 6:  # GBT_E_STATE: not known
            return None
        check(st)
        return buf.value.decode()

    def _user_attrs(self) -> Dict[str, str]:
        p = c_void_p()
        check(LIB.gbt_booster_attributes(self._handle, byref(p)))
        try:
            return json.loads(ctypes.string_at(p).decode("utf-8"))
        finally:
            LIB.gbt_free(p)

    def set_attr(self, **kwargs: Optional[str]) -> None:
        """Set attributes kept with the model (XGBoost's ``set_attr``): string
        values, saved in the model file; None removes one.  The facts of
        :meth:`attr` cannot be set."""
        for k, v in kwargs.items():
            if v is not None and not isinstance(v, str):
                raise ValueError(f"set_attr only accepts string values; {k}={v!r}")
            check(LIB.gbt_booster_set_attr(self._handle, cstr(k), None if v is None else cstr(v)))
        self._cache.pop("cats", None)

    def attributes(self) -> Dict[str, str]:
        """Every attribute that is known, as a dict: the facts, then those set by :meth:`set_attr`."""
        out = {}
        for k in ("device", "best_iteration", "best_score", "num_feature"):
            v = self.attr(k)
            if v is not None and not (k == "best_score" and v == "nan"):  # a best_iteration set alone
                out[k] = v
        out.update(self._user_attrs())
        return out

    # -- pandas categories kept with the model
    def _categories(self) -> Optional[Dict[int, List[Any]]]:
        """The training frame's categories (feature index -> categories in code
        order) from the model's ``feature_categories`` attribute, or None."""
        if "cats" not in self._cache:
            text = self._user_attrs().get(CATEGORIES_ATTR)
            self._cache["cats"] = {int(k): v for k, v in json.loads(text).items()} if text else {}
        return self._cache["cats"] or None

    def _note_categories(self, dtrain: "Dataset") -> None:
        """On training: keep dtrain's categories with the model (the first time),
        or refuse data whose categories differ from the model's."""
        if not dtrain._categories:
            return
        have = self._categories()
        if have is None:
            text = json.dumps({str(i): c for i, c in sorted(dtrain._categories.items())}, ensure_ascii=False)
            check(LIB.gbt_booster_set_attr(self._handle, cstr(CATEGORIES_ATTR), cstr(text)))
            self._cache.pop("cats", None)
        elif dtrain._needs_recoding(have):
            raise ValueError("the training data's categories differ from the model's (another order, or "
                             "categories the model was not trained with): train on a Dataset recoded to the "
                             "model's categories (gbt.train and fit do that for a DataFrame)")

    def _aligned(self, data: "Dataset") -> "Dataset":
        """data, or data recoded to the model's category codes."""
        return data._recoded(self._categories())

    @property
    def best_iteration(self) -> int:
        """The best round (0-based) that early stopping recorded in the model
        (saved with it), as XGBoost's: AttributeError when there is none
        (``attr("best_iteration")`` gives None instead).  Setting it records
        that round (with the current ``best_score``, if any)."""
        v = self.attr("best_iteration")
        if v is None:
            raise AttributeError("`best_iteration` is only defined when early stopping is used")
        return int(v)

    @best_iteration.setter
    def best_iteration(self, iteration: int) -> None:
        score = self.attr("best_score")
        check(LIB.gbt_booster_set_best(self._handle, int(iteration),
                                       float(score) if score is not None else float("nan")))

    @property
    def best_score(self) -> float:
        """The watched metric's value in ``best_iteration``, as XGBoost's:
        AttributeError when none is recorded."""
        v = self.attr("best_score")
        if v is None or v == "nan":
            raise AttributeError("`best_score` is only defined when early stopping is used")
        return float(v)

    @best_score.setter
    def best_score(self, score: float) -> None:
        it = self.attr("best_iteration")
        if it is None:
            raise ValueError("set best_iteration first: gbt records a best score with its round")
        check(LIB.gbt_booster_set_best(self._handle, int(it), float(score)))

    def num_boosted_rounds(self) -> int:
        """The number of boosting rounds the model holds."""
        n = c_int()
        check(LIB.gbt_booster_num_rounds(self._handle, byref(n)))
        return n.value

    def num_features(self) -> int:
        """The number of features the model was trained on (0 before training)."""
        nf = self._cache.get("nf")
        if nf is None:
            v = self.attr("num_feature")
            nf = int(v) if v is not None else 0
            if nf:
                self._cache["nf"] = nf
        return nf

    def _has_model(self) -> bool:
        return self.num_features() > 0 or self.num_boosted_rounds() > 0

    def _metric_info(self) -> List[Tuple[str, bool]]:
        """Every metric an evaluation reports, with whether higher is better
        (``gbt_booster_metric_count``/``_describe``): ``eval_metric``'s or the
        objective's default, then a custom metric while one is set."""
        n = c_int()
        check(LIB.gbt_booster_metric_count(self._handle, byref(n)))
        out = []
        buf = ctypes.create_string_buffer(128)
        mx = c_int()
        for i in range(n.value):
            check(LIB.gbt_booster_metric_describe(self._handle, i, buf, len(buf), byref(mx)))
            out.append((buf.value.decode(), bool(mx.value)))
        return out

    def eval_metric_names(self) -> List[str]:
        """The built-in metrics evaluation reports: ``eval_metric``, or the
        objective's default as the library decides it (rank:ndcg's
        ``ndcg@32``, survival:cox's ``cox-nloglik``...; none with
        ``disable_default_eval_metric``)."""
        names = [n for n, _ in self._metric_info()]
        return names[:len(names) - len(getattr(self, "_feval_names", None) or [])]

    # -- training and evaluation
    def update(self, dtrain: Dataset, iteration: Optional[int] = None,
               fobj: Optional[Callable[..., Any]] = None) -> None:
        """Train one more boosting round on ``dtrain`` (``gbt_booster_update``).

        ``fobj(preds, dtrain) -> (grad, hess)``: a custom objective, as
        XGBoost's: ``preds`` are the raw scores of the training rows (float64,
        shape ``(rows,)`` or ``(rows, K)``), grad and hess the first and second
        derivatives of the loss at them, weights included (the library calls
        it through ``gbt_booster_set_objective_callback``).  ``iteration`` is
        accepted for XGBoost's signature; the round is always the next one.
        """
        if not isinstance(dtrain, Dataset):
            raise TypeError(f"dtrain must be a gbt.Dataset, not {type(dtrain).__name__}")
        self._cache = {}
        self._note_categories(dtrain)
        if fobj is None:
            check(LIB.gbt_booster_update(self._handle, dtrain._handle))
            return
        self._set_objective(fobj, dtrain)
        try:
            st = LIB.gbt_booster_update(self._handle, dtrain._handle)
        finally:
            self._clear_objective()
        self._raise_callback_error(st)

    def _set_objective(self, fobj: Callable[..., Any], dtrain: Dataset) -> None:
        """Make ``fobj(preds, dtrain) -> (grad, hess)`` the gradients of every
        round on ``dtrain`` (``gbt_booster_set_objective_callback``) until
        :meth:`_clear_objective`; an exception it raises is kept in
        ``_cb_error`` and the round fails."""
        if not callable(fobj):
            raise TypeError(f"fobj must be callable; got {type(fobj).__name__}")

        def objective(margin: Any, nrow: int, k: int, data: int, user: int, grad: Any, hess: Any) -> int:
            try:
                n = nrow * k
                preds = np.ctypeslib.as_array(margin, shape=(n,)).copy()
                if k > 1:
                    preds = preds.reshape(nrow, k)
                g, h = fobj(preds, dtrain)
                for what, arr, dst in (("grad", g, grad), ("hess", h, hess)):
                    arr = np.asarray(arr, dtype=np.float64)
                    if arr.size != n:
                        raise ValueError(f"the custom objective's {what} has {arr.size} values; the "
                                         f"training data needs {n} ({nrow} rows x {k} outputs)")
                    np.ctypeslib.as_array(dst, shape=(n,))[:] = arr.reshape(-1)
                return 0
            except BaseException as e:  # raised again once the library returns
                self._cb_error = e
                return 1

        self._obj_fn = _lib.OBJECTIVE_FN(objective)
        self._cb_error = None
        check(LIB.gbt_booster_set_objective_callback(self._handle, self._obj_fn, None))

    def _clear_objective(self) -> None:
        LIB.gbt_booster_set_objective_callback(self._handle, ctypes.cast(None, _lib.OBJECTIVE_FN), None)
        self._obj_fn = None

    def _raise_callback_error(self, status: int) -> None:
        err, self._cb_error = getattr(self, "_cb_error", None), None
        if status != 0 and err is not None:
            raise err
        check(status)

    def boost(self, dtrain: Dataset, iteration: int, grad: Any, hess: Any) -> None:
        """One round from the caller's gradients (``gbt_booster_boost``): grad
        and hess hold ``rows x K`` values (row-major, weights included)."""
        if not isinstance(dtrain, Dataset):
            raise TypeError(f"dtrain must be a gbt.Dataset, not {type(dtrain).__name__}")
        g = np.ascontiguousarray(grad, dtype=np.float64).reshape(-1)
        h = np.ascontiguousarray(hess, dtype=np.float64).reshape(-1)
        if g.size != h.size:
            raise ValueError(f"grad has {g.size} values but hess {h.size}")
        self._cache = {}
        self._note_categories(dtrain)
        check(LIB.gbt_booster_boost(self._handle, dtrain._handle, _ptr(g), _ptr(h), g.size))

    def _set_custom_metric(self, feval: Callable[..., Any], output_margin: bool,
                           maximize: Optional[bool] = None,
                           datasets: Sequence[Dataset] = ()) -> None:
        """Make ``feval(preds, data) -> (name, value)`` (or a list of such
        pairs) the last metrics of every evaluation (``gbt_booster_set_eval_callback``):
        preds are the model's predictions (float32, as :meth:`predict` gives
        them) or, with ``output_margin``, its raw scores.  On its first call
        the metric takes the names of its pairs (``gbt_booster_set_eval_names``),
        one value each, in order; higher is better as ``maximize`` says, else
        as the library decides by each name.  ``datasets`` are the sets the
        training driver evaluates it on."""
        if not callable(feval):
            raise TypeError(f"custom_metric must be callable; got {type(feval).__name__}")
        by_handle = {d._handle.value: d for d in datasets}
        mx = -1 if maximize is None else int(bool(maximize))

        def metric(margin: Any, nrow: int, k: int, data: int, user: int, out: Any) -> int:
            try:
                raw = np.ctypeslib.as_array(margin, shape=(nrow * k,))
                if output_margin:
                    preds = raw.astype(np.float32)
                    if k > 1:
                        preds = preds.reshape(nrow, k)
                else:
                    width = self._width(0, 0, 0)
                    preds = np.empty(nrow * width, dtype=np.float32)
                    check(LIB.gbt_booster_transform(self._handle, _ptr(raw), nrow, _ptr(preds),
                                                    preds.size))
                    if width > 1:
                        preds = preds.reshape(nrow, width)
                ret = feval(preds, self._feval_data if self._feval_data is not None else by_handle.get(data))
                pairs = ret if isinstance(ret, list) else [ret]
                if not pairs or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
                    raise TypeError("a custom metric returns (name, value) or a list of such pairs; "
                                    f"got {ret!r}")
                if len(pairs) > _lib.MAX_CUSTOM_METRICS:
                    raise ValueError(f"a custom metric returns at most {_lib.MAX_CUSTOM_METRICS} pairs; "
                                     f"got {len(pairs)}")
                names = [str(n)[:63] for n, _ in pairs]
                if names != self._feval_names:  # the library logs and stops on the returned names
                    arr = (c_char_p * len(names))(*[cstr(n) for n in names])
                    check(LIB.gbt_booster_set_eval_names(self._handle, len(names), arr))
                    self._feval_names = names
                for i, (_, v) in enumerate(pairs):
                    out[i] = float(v)
                return 0
            except BaseException as e:
                self._cb_error = e
                return 1

        fn = _lib.EVAL_FN(metric)
        name = (getattr(feval, "__name__", "custom") or "custom")[:63]
        check(LIB.gbt_booster_set_eval_callback(self._handle, cstr(name), fn, None, mx))
        self._feval, self._feval_fn, self._feval_data = feval, fn, None
        self._feval_names = [name]

    def _clear_custom_metric(self) -> None:
        if getattr(self, "_feval", None) is not None:
            check(LIB.gbt_booster_set_eval_callback(self._handle, None,
                                                    ctypes.cast(None, _lib.EVAL_FN), None, 0))
        self._feval = self._feval_fn = self._feval_data = None
        self._feval_names = []

    def _eval_round(self, data: Dataset) -> Dict[str, float]:
        """Every metric on ``data``, from the raw scores the library keeps of it
        between rounds (``gbt_booster_eval_round``: only the trees added since
        the last call are walked); a custom metric's pairs come last."""
        # room for every pair a custom metric may name in this call
        out = np.zeros(len(self.eval_metric_names()) + _lib.MAX_CUSTOM_METRICS, dtype=np.float64)
        self._feval_data, self._cb_error = data, None
        try:
            st = LIB.gbt_booster_eval_round(self._handle, data._handle, _ptr(out), len(out))
        finally:
            self._feval_data = None
        self._raise_callback_error(st)
        return {name: float(out[i]) for i, (name, _) in enumerate(self._metric_info())}

    def eval_metrics(self, data: Dataset, metrics: Union[None, str, Sequence[str]] = None) -> Dict[str, float]:
        """Metric values of the model on ``data`` (which must have labels).

        Parameters
        ----------
        data : Dataset
        metrics : str or list of str, optional
            Default: the booster's ``eval_metric`` or the objective's metrics.

        Returns
        -------
        dict
            Metric name to value.
        """
        if not isinstance(data, Dataset):
            raise TypeError(f"data must be a gbt.Dataset, not {type(data).__name__}")
        names = self.eval_metric_names() if metrics is None else (
            [metrics] if isinstance(metrics, str) else list(metrics))
        out = {}
        v = c_double()
        for m in names:
            check(LIB.gbt_booster_eval(self._handle, data._handle, cstr(m), byref(v)))
            out[m] = v.value
        return out

    def eval(self, data: Dataset, name: str = "eval", iteration: int = 0) -> str:
        """XGBoost's evaluation string, ``"[iteration]\\tname-metric:value..."``."""
        return self.eval_set([(data, name)], iteration)

    def eval_set(self, evals: Sequence[Tuple[Dataset, str]], iteration: int = 0,
                 feval: Optional[Callable[..., Any]] = None, output_margin: bool = True) -> str:
        """The evaluation string of several ``(data, name)`` pairs, as
        XGBoost's: every metric of the booster (``gbt_booster_eval_round``: the
        raw scores of each dataset are kept between calls), then
        ``feval(preds, data) -> (name, value)`` if given (preds are raw scores
        with ``output_margin``, else predictions)."""
        parts = [f"[{iteration}]"]
        if feval is not None:
            self._set_custom_metric(feval, output_margin)
        try:
            for d, n in evals:
                for k, v in self._eval_round(d).items():
                    parts.append(f"{n}-{k}:{v:.6f}")
        finally:
            if feval is not None:
                self._clear_custom_metric()
        return "\t".join(parts)

    # -- feature names and importance
    @property
    def feature_names(self) -> Optional[List[str]]:
        """The names of the features the model was trained on, stored in the
        model (``gbt_booster_feature_names``), or None when the training data
        had no names (the library then calls them ``f0``, ``f1``, ...)."""
        pending = getattr(self, "_names_pending", None)
        if pending is not None:
            return list(pending)
        if "names" not in self._cache:
            names = self._c_feature_names()
            default = [f"f{i}" for i in range(len(names))]
            self._cache["names"] = None if (not names or names == default) else names
        names = self._cache["names"]
        return list(names) if names is not None else None

    @feature_names.setter
    def feature_names(self, names: Optional[Sequence[str]]) -> None:
        """Renames the model's features (one name per feature, kept when the
        model is saved); None drops the names.  As XGBoost's, a list of
        another length than the model's features is taken as it is and
        raises ValueError at its next use (importance, dumps, prediction,
        saving) until names that fit, or None, are set;
        :meth:`set_feature_names` (gbt's) raises at once."""
        if names is not None and self._has_model() and len(list(names)) != self.num_features():
            self.set_feature_names(None)
            self._names_pending = [str(n) for n in names]
            return
        self.set_feature_names(names)

    def set_feature_names(self, names: Optional[Sequence[str]]) -> None:
        """gbt's setter of the feature names (``gbt_booster_set_feature_names``):
        one per feature, checked at once (another count, or no model yet,
        raises ``InvalidArgumentError``, a ValueError); None drops them."""
        if names is None:
            check(LIB.gbt_booster_set_feature_names(self._handle, None, 0))
        else:
            names = [str(n) for n in names]
            arr = (c_char_p * max(len(names), 1))(*[cstr(n) for n in names])
            check(LIB.gbt_booster_set_feature_names(self._handle, arr, len(names)), "feature_names")
        self._names_pending = None
        self._cache.pop("names", None)

    def _check_pending_names(self) -> None:
        """XGBoost's deferred error for feature names of the wrong length."""
        pending = getattr(self, "_names_pending", None)
        if pending is not None:
            raise ValueError(f"feature_names has {len(pending)} names but the model has {self.num_features()} "
                             "features (set Booster.feature_names again, or to None)")

    def _c_feature_names(self) -> List[str]:
        """Every feature's name as the library reports it (``f0``... for unnamed ones)."""
        if not self._has_model():
            return []
        p = ctypes.POINTER(c_char_p)()
        n = c_uint64()
        check(LIB.gbt_booster_feature_names(self._handle, byref(p), byref(n)))
        try:
            return [p[i].decode("utf-8") for i in range(n.value)]
        finally:
            LIB.gbt_free(ctypes.cast(p, c_void_p))

    _IMPORTANCE_TYPES = ("weight", "gain", "cover", "total_gain", "total_cover")

    def feature_importances(self, importance_type: str = "weight") -> np.ndarray:
        """One importance value per feature (``gbt_booster_feature_importance``),
        0 for features no split uses.

        Parameters
        ----------
        importance_type : {"weight", "gain", "cover", "total_gain", "total_cover"}
            ``weight``: the number of splits on the feature; ``total_gain`` and
            ``total_cover``: the sums of their gains and covers; ``gain`` and
            ``cover``: those sums divided by ``weight`` (XGBoost's definitions).

        Returns
        -------
        numpy.ndarray of float64, shape (num_features,)
        """
        if importance_type not in self._IMPORTANCE_TYPES:
            raise ValueError(f"importance_type must be one of {', '.join(self._IMPORTANCE_TYPES)}; "
                             f"got {importance_type!r}")
        nf = self.num_features()
        out = np.zeros(nf, dtype=np.float64)
        if nf:
            check(LIB.gbt_booster_feature_importance(self._handle, cstr(importance_type),
                                                     _ptr(out), nf))
        return out

    def get_score(self, fmap: str = "", importance_type: str = "weight") -> Dict[str, float]:
        """Feature importance as XGBoost's ``Booster.get_score`` gives it: a dict
        from feature name (``f0``, ``f1``... without names) to value, holding
        only the features some split uses.  See :meth:`feature_importances`."""
        if fmap:
            raise ValueError("fmap is not supported: train on named data (feature_names) instead")
        self._check_pending_names()
        values = self.feature_importances(importance_type)
        used = self.feature_importances("weight") > 0
        names = self._c_feature_names()
        return {names[i]: float(values[i]) for i in range(len(values)) if used[i]}

    def get_fscore(self, fmap: str = "") -> Dict[str, float]:
        """``get_score(importance_type="weight")``."""
        return self.get_score(fmap, importance_type="weight")

    # -- slices and dumps
    def num_trees(self) -> int:
        """The number of trees: rounds times outputs (classes, quantiles); 0 for a
        linear model (booster="gblinear")."""
        if self.get_param("booster") == "gblinear":
            return 0
        n = c_uint64()
        check(LIB.gbt_booster_predict_size(self._handle, 1, _lib.GBT_PREDICT_LEAF, byref(n)))
        return int(n.value)

    def __getitem__(self, val: Union[int, slice, "ellipsis"]) -> "Booster":
        """``booster[a:b:s]``: a new Booster with rounds ``a``, ``a + s``, ...
        below ``b`` (``gbt_booster_slice_step``); ``booster[i]`` is
        ``booster[i:i + 1]``, ``booster[...]`` every round (as in XGBoost: a
        copy), ``booster[-k:]`` the last k rounds (XGBoost refuses negative
        indices; gbt takes this one form).  Other slices follow XGBoost:
        start >= 0, step >= 1, stop not below start, not empty, not past the
        rounds (IndexError).  As in XGBoost, the slice has no
        ``best_iteration`` or ``best_score`` (its other attributes stay)."""
        n = self.num_boosted_rounds()
        if val is Ellipsis:
            val = slice(None, None)
        if isinstance(val, (int, np.integer)):
            i = int(val)
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError(f"round {int(val)} is out of range (the model has {n} rounds)")
            begin, end, step = i, i + 1, 1
        elif isinstance(val, slice):
            step = 1 if val.step is None else int(val.step)
            if step < 1:
                raise ValueError(f"a slice's step must be >= 1, got {step}")
            start = 0 if val.start in (None, Ellipsis) else int(val.start)
            stop = n if val.stop in (None, Ellipsis) else int(val.stop)
            if start < 0 and val.stop in (None, Ellipsis):
                start = max(0, start + n)  # b[-k:]: the last k rounds (XGBoost refuses it)
            if start < 0:
                raise ValueError(f"a slice's start must be >= 0, got {start}")
            if stop < start:
                raise ValueError("Invalid slice", val)
            if stop == start:
                raise ValueError(f"Empty slice [{start}:{stop}] of a model of {n} rounds")
            if stop > n:
                raise IndexError(f"rounds [{start}, {stop}) are out of range (the model has {n} rounds)")
            begin, end = start, stop
        elif isinstance(val, tuple):  # XGBoost's error for booster[1, 2]
            raise ValueError("a Booster is sliced through 1 dimension only (rounds)")
        else:
            raise TypeError(f"Booster indices are ints or slices, not {type(val).__name__}")
        new = c_void_p()
        check(LIB.gbt_booster_slice_step(self._handle, begin, end, step, byref(new)))
        b = Booster.__new__(Booster)
        b._handle, b._cache = new, {}
        # XGBoost's slices drop best_iteration and best_score (gbt_booster_slice keeps them)
        check(LIB.gbt_booster_set_best(new, -1, 0.0))
        for k, v in self._param_snapshot().items():
            b._set_one(k, v, quiet=True)
        return b

    def _dump_one(self, fmt: str, tree: int, with_stats: bool) -> str:
        p, n = c_void_p(), c_size_t()
        check(LIB.gbt_booster_dump(self._handle, cstr(fmt), tree, int(bool(with_stats)),
                                   byref(p), byref(n)))
        try:
            return ctypes.string_at(p, n.value).decode("utf-8")
        finally:
            LIB.gbt_free(p)

    def get_dump(self, fmap: str = "", with_stats: bool = False, dump_format: str = "text") -> List[str]:
        """The trees as text, one string per tree (``gbt_booster_dump``).

        Parameters
        ----------
        with_stats : bool
            Add each split's gain and each node's cover.
        dump_format : {"text", "json", "dot"}
            XGBoost's text dump (without the ``booster[T]:`` line, as
            XGBoost's ``get_dump``), one JSON object per tree, or Graphviz dot.
        """
        if dump_format not in ("text", "json", "dot"):
            raise ValueError(f"dump_format must be 'text', 'json' or 'dot'; got {dump_format!r}")
        self._check_pending_names()
        rename = _fmap_renamer(fmap, self._c_feature_names()) if fmap else None
        out = []
        # a linear model (booster=gblinear) dumps as one piece, XGBoost's "bias:"/"weight:" lists
        pieces = 1 if self.get_param("booster") == "gblinear" else self.num_trees()
        for t in range(pieces):
            text = self._dump_one(dump_format, t, with_stats)
            if dump_format == "text" and text.startswith("booster["):
                text = text.split("\n", 1)[1]  # XGBoost's get_dump has no "booster[T]:" line
            elif dump_format == "json":
                text = text.strip()
                if text.startswith("[") and text.endswith("]"):
                    text = text[1:-1].strip()  # the tree's object, not an array of one
            out.append(rename(text) if rename else text)
        return out

    def dump_model(self, fout: PathLike, fmap: str = "", with_stats: bool = False,
                   dump_format: str = "text") -> None:
        """Write the dump to a file (XGBoost's ``dump_model``): for ``text``,
        each tree after a ``booster[T]:`` line; for ``json``, one JSON array.

        ``fmap`` is XGBoost's feature map file (lines ``index name type``):
        its names replace the features' names in the dump (the type column
        is read and not used: splits print as ``[name<value]`` whatever it
        says).  ``fout`` may be a path or an open text file."""
        if dump_format not in ("text", "json", "dot"):
            raise ValueError(f"dump_format must be 'text', 'json' or 'dot'; got {dump_format!r}")
        text = self._dump_one(dump_format, -1, with_stats)
        if fmap:
            text = _fmap_renamer(fmap, self._c_feature_names())(text)
        if hasattr(fout, "write"):
            fout.write(text)
            return
        with open(os.fspath(fout), "w", encoding="utf-8") as f:
            f.write(text)

    def trees_to_dataframe(self, fmap: PathLike = "") -> Any:
        """Every node of every tree as a pandas DataFrame, XGBoost's
        ``Booster.trees_to_dataframe``: columns ``Tree``, ``Node``, ``ID``
        ("tree-node"), ``Feature`` ("Leaf" for leaves), ``Split`` (the
        threshold; NaN for leaves and categorical splits), ``Yes``, ``No``,
        ``Missing`` (child IDs), ``Gain`` (the leaf value for leaves),
        ``Cover`` and ``Category`` (a categorical split's categories that go
        to ``Yes``), ordered by tree and node (from the JSON dump with
        statistics)."""
        import pandas as pd

        rows: List[Dict[str, Any]] = []

        def walk(t: int, node: Mapping[str, Any]) -> None:
            nid = f"{t}-{node['nodeid']}"
            if "leaf" in node:
                rows.append({"Tree": t, "Node": node["nodeid"], "ID": nid, "Feature": "Leaf",
                             "Split": math.nan, "Yes": math.nan, "No": math.nan, "Missing": math.nan,
                             "Gain": float(node["leaf"]), "Cover": float(node["cover"]),
                             "Category": math.nan})
                return
            cond = node["split_condition"]
            cat = isinstance(cond, list)
            rows.append({"Tree": t, "Node": node["nodeid"], "ID": nid, "Feature": node["split"],
                         "Split": math.nan if cat else float(cond), "Yes": f"{t}-{node['yes']}",
                         "No": f"{t}-{node['no']}", "Missing": f"{t}-{node['missing']}",
                         "Gain": float(node["gain"]), "Cover": float(node["cover"]),
                         "Category": list(cond) if cat else math.nan})
            for child in node["children"]:
                walk(t, child)

        for t, text in enumerate(self.get_dump(fmap=fmap, with_stats=True, dump_format="json")):
            walk(t, json.loads(text))
        cols = ["Tree", "Node", "ID", "Feature", "Split", "Yes", "No", "Missing", "Gain", "Cover", "Category"]
        return pd.DataFrame(rows, columns=cols).sort_values(["Tree", "Node"]).reset_index(drop=True)

    def get_split_value_histogram(self, feature: str, fmap: PathLike = "", bins: Optional[int] = None,
                                  as_pandas: bool = True) -> Any:
        """A histogram of the thresholds of the splits on ``feature`` (a
        name, or ``f<i>``), XGBoost's ``get_split_value_histogram``: numpy's
        histogram of the values with ``bins`` bins (at most the number of
        distinct values; None: that number), each non-empty bin as a row of
        its upper edge and its count (``SplitValue``, ``Count``), a pandas
        DataFrame with ``as_pandas`` when pandas is there, else an array.  A
        categorical feature raises ValueError."""
        values: List[float] = []
        categorical = False

        def walk(node: Mapping[str, Any]) -> None:
            nonlocal categorical
            if "leaf" in node:
                return
            if node["split"] == feature:
                if isinstance(node["split_condition"], list):
                    categorical = True
                else:
                    values.append(float(node["split_condition"]))
            for child in node["children"]:
                walk(child)

        for text in self.get_dump(fmap=fmap, dump_format="json"):
            walk(json.loads(text))
        if categorical:
            raise ValueError(f"get_split_value_histogram: feature {feature!r} is categorical; the split value "
                             "histogram doesn't support categorical splits (as XGBoost's)")
        n_unique = len(np.unique(values))
        nbins = max(min(n_unique, bins) if bins is not None else n_unique, 1)
        counts, edges = np.histogram(values, bins=nbins)
        table = np.column_stack((edges[1:], counts))
        table = table[table[:, 1] > 0]
        if as_pandas:
            try:
                import pandas as pd
            except ImportError:
                return table
            return pd.DataFrame(table, columns=["SplitValue", "Count"])
        return table

    def save_config(self) -> str:
        """The booster's parameters as JSON in the structure of XGBoost 3.2's
        ``save_config`` (gbt/xgb_config.py says where each parameter goes):
        ``learner.generic_param`` (``nthread``, ``seed``, ``device``),
        ``gradient_booster.tree_train_param``, ``learner_train_param``,
        ``learner_model_param`` (``base_score`` as a list: the model's
        intercept as a prediction, ``num_class``, ``num_feature``),
        ``objective`` with its own section, ``metrics``; the parameters
        XGBoost has no place for are in ``learner.gbt_param``.
        :meth:`load_config` of the text sets the same parameters."""
        from . import xgb_config

        params = {}
        for p in params_info():
            try:
                params[p["name"]] = self.get_param(p["name"])
            except _lib.GBTError:
                pass
        base: List[float] = []
        num_target = 1
        if self.num_boosted_rounds():
            # the model's intercept as the library writes XGBoost's base_score (a prediction:
            # 0.5, not 0, for binary:logistic), one per target or quantile; a multi-class
            # model's raw scores
            margin = json.loads(bytes(self.save_raw("gbt"))).get("base_margin") or []
            if not str(params.get("objective", "")).startswith("multi:") and margin:
                num_target = len(margin)  # XGBoost's outputs: targets or quantiles
            buf = ctypes.create_string_buffer(16 * len(margin) + 16)  # a float's text and comma each
            check(LIB.gbt_booster_get_attr(self._handle, cstr("base_score"), buf, len(buf)))
            base = json.loads(buf.value.decode())
        version = [int(x) for x in LIB.gbt_version().decode().split(".")[:3] if x.isdigit()]
        cfg = xgb_config.config(params, self.eval_metric_names(), self.num_features() if self._has_model() else 0,
                                self.num_trees() if self._has_model() else 0, base, version, num_target)
        if str(params.get("lambdarank_unbiased", "")).lower() in ("1", "true"):
            # the position biases estimated by this booster's training (XGBoost's ti+ and tj-)
            n = ctypes.c_uint32()
            check(LIB.gbt_booster_rank_position_bias(self._handle, None, None, 0, byref(n)))
            tp, tm = np.empty(n.value, np.float64), np.empty(n.value, np.float64)
            check(LIB.gbt_booster_rank_position_bias(self._handle, _ptr(tp), _ptr(tm), n.value, byref(n)))
            cfg["learner"]["objective"]["ti+"] = tp.tolist()
            cfg["learner"]["objective"]["tj-"] = tm.tolist()
        return json.dumps(cfg)

    def load_config(self, config: str) -> None:
        """Sets the parameters that a :meth:`save_config` text holds (this
        booster's, another's, or XGBoost's: every name the library knows is
        set, XGBoost's internal facts are skipped)."""
        from . import xgb_config

        for name, value in xgb_config.parameters(config, _has_param):
            self._set_one(name, value)
        self._cache = {}

    def __iter__(self):
        """Each round as a Booster of one round (XGBoost's ``for tree in booster``)."""
        for i in range(self.num_boosted_rounds()):
            yield self[i]

    # -- prediction
    def predict(self, data: DataLike, output_margin: bool = False, pred_leaf: bool = False,
                pred_contribs: bool = False, approx_contribs: bool = False,
                pred_interactions: bool = False, validate_features: bool = True,
                training: bool = False, iteration_range: Tuple[int, int] = (0, 0),
                strict_shape: bool = False, *, missing: float = np.nan) -> np.ndarray:
        """Predict rows (XGBoost's ``Booster.predict``).

        Parameters
        ----------
        data : Dataset, numpy.ndarray, pandas.DataFrame, scipy.sparse matrix or list
            Rows to predict; arrays are predicted without building a Dataset
            (``gbt_booster_predict_dense_rounds``).
        output_margin : bool, default False
            Raw scores before the objective's transform (``GBT_PREDICT_MARGIN``).
        pred_leaf : bool
            The leaf each row reaches in each tree (``GBT_PREDICT_LEAF``):
            shape ``(rows, trees)``, trees in model order (a round's K trees
            together), node ids as in the model file and the JSON dump.
        pred_contribs : bool
            SHAP values (TreeSHAP) and the bias term in the last column
            (``GBT_PREDICT_CONTRIBS``): ``(rows, F + 1)``, or
            ``(rows, K, F + 1)`` for K outputs (classes, quantiles).  Each
            row (block) sums to the margin.
        pred_interactions : bool
            SHAP interaction values (``GBT_PREDICT_INTERACTIONS``):
            ``(rows, F + 1, F + 1)`` or ``(rows, K, F + 1, F + 1)``.
        strict_shape : bool, default False
            XGBoost's fixed shapes: ``(rows, groups)`` for predictions and
            margins (groups: classes or quantiles, 1 otherwise),
            ``(rows, rounds, groups, 1)`` for ``pred_leaf``,
            ``(rows, groups, F + 1)`` for ``pred_contribs`` and
            ``(rows, groups, F + 1, F + 1)`` for ``pred_interactions``.
        training : bool
            Accepted; gbt's trees predict the same in and out of training.
        approx_contribs : bool, default False
            With ``pred_contribs``: Saabas' approximation instead of the exact
            SHAP values (``GBT_PREDICT_APPROX``, XGBoost's): in each tree the
            bias gets the root's expected value and every split on the row's
            path gives its feature the change of the expected value (the
            cover-weighted mean of the leaves below) from the node to the
            child the row takes.  With ``pred_interactions``, as XGBoost's:
            those values on the diagonal, 0 elsewhere (the approximation
            sees no interaction); ignored otherwise, as in XGBoost.
        validate_features : bool, default True
            Refuse a DataFrame or Dataset whose feature names differ from the
            model's (the library checks; the message here lists the names).
            With False, a named Dataset's names are taken off it for the call
            and put back (do not use that Dataset from another thread then).
        iteration_range : (int, int), default (0, 0)
            Use the trees of rounds ``[begin, end)`` only; ``(0, 0)`` is every
            round (``gbt_booster_predict_rounds``), also after early stopping,
            as in XGBoost (the estimators default to ``(0, best_iteration + 1)``).
        missing : float, default nan
            For arrays: values equal to this are missing.

        Returns
        -------
        numpy.ndarray of float32
            Shape ``(rows,)``, or ``(rows, num_class)`` for ``multi:softprob``
            (and for any multiclass objective with ``output_margin``), or
            ``(rows, K)`` for several quantiles; see above for the others.
        """
        self._check_pending_names()
        # training=True: XGBoost's dart would drop trees at random; gbt predicts with every tree (docs/decisions.md, DART).
        if int(pred_leaf) + int(pred_contribs) + int(pred_interactions) > 1:
            raise ValueError("give at most one of pred_leaf, pred_contribs and pred_interactions")
        flags = _lib.GBT_PREDICT_MARGIN if output_margin else 0
        if pred_leaf:
            flags |= _lib.GBT_PREDICT_LEAF
        elif pred_contribs:
            flags |= _lib.GBT_PREDICT_CONTRIBS | (_lib.GBT_PREDICT_APPROX if approx_contribs else 0)
        elif pred_interactions:
            flags |= _lib.GBT_PREDICT_INTERACTIONS | (_lib.GBT_PREDICT_APPROX if approx_contribs else 0)
        try:
            begin, end = (int(v) for v in iteration_range)
        except (TypeError, ValueError):
            raise ValueError(f"iteration_range must be a pair of ints; got {iteration_range!r}") from None
        data = _series_as_frame(data)
        if isinstance(data, Dataset) or _is_sparse(data) or _is_pandas_df(data):
            if isinstance(data, Dataset):
                d = self._aligned(data)
            elif _is_pandas_df(data):
                # a frame's category columns as the model's codes (XGBoost predicts them too)
                d = Dataset(data, missing=missing, enable_categorical=True, _categories=self._categories())
            else:
                d = Dataset(data, missing=missing)
            names = d.feature_names
            if validate_features:
                self._check_names(names, unnamed=not isinstance(data, Dataset))
            nrow = d.num_row()
            out, size = self._out(nrow, flags, begin, end)
            unnamed = names is not None and not validate_features
            if unnamed:  # the library compares names: leave them out for this call
                d.feature_names = None
            try:
                check(LIB.gbt_booster_predict_rounds(self._handle, d._handle, flags, begin, end,
                                                     _ptr(out), size))
            finally:
                if unnamed:
                    d.feature_names = names
        else:
            arr = _as_dense_f32(data)
            nrow, ncol = arr.shape
            nf = self.num_features()
            if nf and ncol != nf:
                raise ValueError(f"data has {ncol} features but the model was trained on {nf}")
            out, size = self._out(nrow, flags, begin, end)
            check(LIB.gbt_booster_predict_dense_rounds(self._handle, _ptr(arr), nrow, ncol,
                                                       c_float(missing), flags, begin, end,
                                                       _ptr(out), size))
        if strict_shape:
            return self._strict(out, nrow, pred_leaf, pred_contribs, pred_interactions, begin, end)
        if pred_contribs or pred_interactions:
            f1 = self.num_features() + 1
            per = f1 if pred_contribs else f1 * f1
            k = (size // nrow // per) if nrow else self._width(flags, begin, end) // per
            tail = (f1,) if pred_contribs else (f1, f1)
            return out.reshape((nrow,) + ((k,) if k > 1 else ()) + tail)
        width = size // nrow if nrow else self._width(flags, begin, end)
        if width != 1:  # one tree's leaves too are a vector, as XGBoost's
            return out.reshape(nrow, width)
        return out

    def inplace_predict(self, data: Any, iteration_range: Tuple[int, int] = (0, 0),
                        predict_type: str = "value", missing: float = np.nan,
                        validate_features: bool = True, base_margin: Any = None,
                        strict_shape: bool = False) -> np.ndarray:
        """XGBoost's ``inplace_predict``: :meth:`predict` on an array, a
        DataFrame or a sparse matrix (arrays go straight to the library
        without a Dataset); ``predict_type`` ``"value"`` or ``"margin"``."""
        if predict_type not in ("value", "margin"):
            raise ValueError(f"predict_type must be 'value' or 'margin'; got {predict_type!r}")
        if base_margin is not None:
            data = Dataset(data, base_margin=base_margin, missing=missing)
        return self.predict(data, output_margin=predict_type == "margin", iteration_range=iteration_range,
                            validate_features=validate_features, strict_shape=strict_shape, missing=missing)

    @property
    def feature_types(self) -> Optional[List[str]]:
        """The model's feature types as the training data spelt them (``"q"``,
        ``"int"``, ``"float"``, ``"i"`` numeric, ``"c"`` categorical), one per
        feature, or None when every one is ``"q"`` (XGBoost's
        ``Booster.feature_types``)."""
        if not self._has_model():
            return None
        types = json.loads(bytes(self.save_raw("gbt")).decode("utf-8")).get("feature_types")
        if not types or all(t == "q" for t in types):
            return None
        return list(types) + ["q"] * (self.num_features() - len(types))

    @feature_types.setter
    def feature_types(self, types: Optional[Sequence[str]]) -> None:
        """Accepts the model's own feature types again (a numeric spelling,
        ``"q"``, ``"float"``, ``"int"`` or ``"i"``, for each numeric feature
        and ``"c"`` for each categorical one; None for a model without
        categorical features), as scripts written for XGBoost set them.  A
        gbt model's types are those of its splits, so other types raise
        ValueError and the model does not change."""
        have = self.feature_types or ["q"] * self.num_features()
        if types is None:
            if "c" in have:
                raise ValueError("feature_types=None: the model has categorical features "
                                 f"{[i for i, t in enumerate(have) if t == 'c']}")
            return
        _check_feature_types(types)
        kinds = ["c" if t == "c" else "q" for t in types]
        if kinds != ["c" if t == "c" else "q" for t in have]:
            raise ValueError(f"feature_types {list(types)} differ from the model's {have}: gbt's "
                             "feature types are fixed by the model's splits")

    def _strict(self, out: np.ndarray, nrow: int, leaf: bool, contribs: bool, inter: bool,
                begin: int, end: int) -> np.ndarray:
        """XGBoost's strict_shape: (rows, groups) for predictions and margins,
        (rows, rounds, groups, num_parallel_tree) for leaves, (rows, groups,
        F + 1) for contributions and (rows, groups, F + 1, F + 1) for
        interactions; groups is the number of outputs (classes, quantiles)."""
        rounds = self.num_boosted_rounds()
        per_round = max(1, self.num_trees() // rounds) if rounds else 1
        forest = int(self.get_param("num_parallel_tree") or 1)
        groups = max(1, per_round // forest)
        if leaf:
            # a round's trees are parallel tree p of group k at p * groups + k (gbt_booster_predict)
            return out.reshape(nrow, -1, forest, groups).transpose(0, 1, 3, 2)
        f1 = self.num_features() + 1
        if contribs:
            return out.reshape(nrow, groups, f1)
        if inter:
            return out.reshape(nrow, groups, f1, f1)
        return out.reshape(nrow, -1)

    def _width(self, flags: int, begin: int, end: int) -> int:
        key = ("width", flags, begin, end)
        width = self._cache.get(key)
        if width is None:
            n = c_uint64()
            check(LIB.gbt_booster_predict_size_rounds(self._handle, 1, flags, begin, end, byref(n)))
            width = self._cache[key] = n.value
        return width

    def _out(self, nrow: int, flags: int, begin: int = 0, end: int = 0) -> Tuple[np.ndarray, int]:
        size = nrow * self._width(flags, begin, end)
        return np.empty(size, dtype=np.float32), size

    def _check_names(self, names: Optional[List[str]], unnamed: bool = True) -> None:
        """A ValueError when the data's feature names differ from the model's;
        data without names passes only with ``unnamed`` (XGBoost refuses a
        DMatrix without names for a model with names, not arrays)."""
        mine = self.feature_names
        if mine is not None and names is None and not unnamed:
            raise ValueError("the data has no feature names, but the model's features are named ("
                             + ", ".join(mine[:10]) + (", ..." if len(mine) > 10 else "")
                             + "); validate_features=False predicts on it by position")
        if mine is None or names is None or names == mine:
            return
        missing = [n for n in mine if n not in names]
        extra = [n for n in names if n not in mine]
        detail = []
        if missing:
            detail.append("missing from the data: " + ", ".join(missing[:10]))
        if extra:
            detail.append("not in the model: " + ", ".join(extra[:10]))
        if not detail:
            detail.append("the same names in another order")
        raise ValueError("feature names differ from the training data's (" + "; ".join(detail) + ")")

    # -- saving and loading
    def save_model(self, fname: PathLike, format: Optional[str] = None) -> None:
        """Save the model (written atomically: a temporary file renamed).

        Parameters
        ----------
        fname : str or os.PathLike
            As XGBoost's, the name chooses the format: ``.json`` is JSON
            (gbt's JSON model, what gbtrain writes), ``.ubj`` XGBoost's
            UBJSON model (its default binary format, what its
            ``save_model("m.ubj")`` writes), and any other name UBJSON too,
            with XGBoost's ``UserWarning`` ("Saving model in the UBJSON
            format as default").
        format : {"gbt", "xgboost"}, optional
            gbt's choice instead of the name's: ``gbt``: gbt's JSON model
            whatever the name (``gbt_booster_save``; not for ``.ubj``);
            ``xgboost``: XGBoost's model format, JSON, or UBJSON for a
            ``.ubj`` name (``gbt_booster_save_format``).  :meth:`load_model`
            reads all three.
        """
        self._check_pending_names()
        path = os.fsdecode(fname)
        ext = _extension(path)
        if format is None:
            if ext not in ("json", "ubj"):
                import warnings
                warnings.warn("Saving model in the UBJSON format as default.  You can use a file extension: "
                              "`json` or `ubj` to choose between formats (or gbt's format='gbt').",
                              UserWarning, stacklevel=2)
                check(LIB.gbt_booster_save_format(self._handle, cstr(path), _lib.GBT_MODEL_XGBOOST_UBJ))
                return
            format = "xgboost" if ext == "ubj" else "gbt"
        if format == "gbt" and ext == "ubj":
            raise ValueError("a .ubj file holds XGBoost's UBJSON model format: save it with format='xgboost' "
                             "(or leave format out), or give gbt's JSON model another name")
        if format == "gbt":
            check(LIB.gbt_booster_save(self._handle, cstr(path)))
        elif format == "xgboost":
            self.save_xgboost(fname)
        else:
            raise ValueError(f"format must be 'gbt' or 'xgboost'; got {format!r}")

    def save_xgboost(self, fname: PathLike) -> None:
        """Save the model in XGBoost's format: UBJSON for a name ending in
        ``.ubj``, JSON otherwise (``gbt_booster_save_format``)."""
        path = os.fsdecode(fname)
        check(LIB.gbt_booster_save_format(self._handle, cstr(path), _lib.GBT_MODEL_XGBOOST_UBJ if path.endswith(".ubj")
                                          else _lib.GBT_MODEL_XGBOOST))

    def save_raw(self, raw_format: str = "ubj") -> bytearray:
        """The model as bytes (``gbt_booster_save_to_buffer_format``).

        Parameters
        ----------
        raw_format : {"ubj", "json", "gbt"}, default "ubj"
            As in XGBoost, ``ubj`` (the default) is XGBoost's UBJSON model and
            ``json`` XGBoost's JSON model (the export of
            :meth:`save_xgboost`), which ``xgboost.Booster(model_file=...)``
            loads; both hold what XGBoost's model holds, and a model XGBoost
            cannot hold (an objective it lacks) is refused.  ``gbt``: gbt's
            own JSON model (gbtrain's file), which keeps everything gbt
            holds, training parameters included; pickling and :meth:`copy`
            use it.  :meth:`load_model` and ``Booster(model_file=...)`` read
            all three.  XGBoost's ``deprecated`` binary format is not written.
        """
        formats = {"ubj": _lib.GBT_MODEL_XGBOOST_UBJ, "json": _lib.GBT_MODEL_XGBOOST, "gbt": _lib.GBT_MODEL_GBT}
        if raw_format not in formats:
            raise ValueError(f"Unknown model format: {raw_format!r}; raw_format must be 'ubj' or 'json' "
                             f"(XGBoost's UBJSON or JSON model) or 'gbt' (gbt's JSON model)"
                             + (": XGBoost's old binary format is not written by gbt"
                                if raw_format == "deprecated" else ""))
        p, n = c_void_p(), c_size_t()
        try:
            check(LIB.gbt_booster_save_to_buffer_format(self._handle, formats[raw_format], byref(p), byref(n)))
        except _lib.GBTError as e:
            if raw_format == "gbt":
                raise
            raise type(e)(f"{e.message} (save_raw(raw_format={raw_format!r}) writes XGBoost's model format; "
                          f"raw_format='gbt' keeps gbt's whole model)", e.status) from None
        try:
            return bytearray(ctypes.string_at(p, n.value))
        finally:
            LIB.gbt_free(p)

    def load_model(self, fname: Union[PathLike, bytes, bytearray]) -> None:
        """Load a model from a file or from bytes (gbt's JSON, XGBoost's JSON or
        UBJSON, told apart by their first bytes); replaces this booster's model.
        As XGBoost's, a file named ``.json`` must hold JSON text and one
        named ``.ubj`` UBJSON (ValueError otherwise), and a file of another
        name is read with XGBoost's ``UserWarning`` saying which it was
        taken for; bytes (gbt's way to load by content alone, as the C API
        and the command-line tools do) are read without a warning.

        Training parameters come from the model; ``nthread``, ``device``,
        ``verbosity`` and ``eval_metric`` set on this booster are kept.
        """
        keep = self._param_snapshot() if self._handle.value else {}
        new = c_void_p()
        if isinstance(fname, (bytes, bytearray, memoryview)):
            raw = bytes(fname)
            check(LIB.gbt_booster_load_from_buffer(raw, len(raw), byref(new)))
        else:
            _check_model_name(os.fsdecode(fname))
            check(LIB.gbt_booster_load(cstr(os.fsdecode(fname)), byref(new)))
        self._replace_handle(new)
        for k, v in keep.items():
            self._set_one(k, v, quiet=True)

    def __repr__(self) -> str:
        return f"<gbt.Booster {self.num_boosted_rounds()} rounds, {self.num_features()} features>"
