"""Loading libgbt with ctypes, its function signatures, and its errors.

The shared library is found, in this order, at ``GBT_LIBRARY_PATH`` (a file,
or a directory holding ``libgbt.so``), then in the package itself (``gbt/lib``,
where ``pip install`` puts the library it built).  Every call goes through a
``ctypes.CDLL``, which releases the GIL for the duration of the C call.
"""
from __future__ import annotations

import ctypes
import logging
import os
from ctypes import (CFUNCTYPE, POINTER, c_char, c_char_p, c_double, c_float, c_int, c_size_t,
                    c_uint, c_uint64, c_void_p)
from typing import Dict, Optional, Type

__all__ = ["GBTError", "XGBoostError", "InvalidArgumentError", "OutOfMemoryError", "GBTIOError", "FormatError",
           "ParamError", "StateError", "NoDeviceError", "DeviceError", "InternalError"]

_log = logging.getLogger("gbt")


# ---------------------------------------------------------------- errors

class GBTError(ValueError):
    """A call into libgbt failed.  A ``ValueError``, as XGBoost's
    ``XGBoostError`` is, so that code written against XGBoost that catches
    ``ValueError`` catches gbt's errors too.

    Attributes
    ----------
    status : int
        The ``gbt_status`` value (see ``GBT_STATUS_MAP`` in gbt.h).
    status_name : str
        Its name without the prefix, e.g. ``"E_PARAM"``.
    message : str
        ``gbt_last_error()`` of the failed call.
    """

    status: int = -1
    status_name: str = ""

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class InvalidArgumentError(GBTError, ValueError):
    """GBT_E_INVALID_ARG: an argument the library cannot take (shapes, counts)."""
    status, status_name = 1, "E_INVALID_ARG"


class OutOfMemoryError(GBTError, MemoryError):
    """GBT_E_NO_MEMORY: an allocation failed, on the host or a device."""
    status, status_name = 2, "E_NO_MEMORY"


class GBTIOError(GBTError, OSError):
    """GBT_E_IO: reading or writing a file failed."""
    status, status_name = 3, "E_IO"


class FormatError(GBTError, ValueError):
    """GBT_E_FORMAT: malformed input (a bad line in a file, infinite values, a bad model)."""
    status, status_name = 4, "E_FORMAT"


class ParamError(GBTError, ValueError):
    """GBT_E_PARAM: an unknown parameter or a value out of its range."""
    status, status_name = 5, "E_PARAM"


class StateError(GBTError, RuntimeError):
    """GBT_E_STATE: not allowed now (predicting without a model, changing the objective)."""
    status, status_name = 6, "E_STATE"


class NoDeviceError(GBTError, RuntimeError):
    """GBT_E_NO_DEVICE: the CUDA device asked for is not there."""
    status, status_name = 7, "E_NO_DEVICE"


class DeviceError(GBTError, RuntimeError):
    """GBT_E_DEVICE: the CUDA device failed."""
    status, status_name = 8, "E_DEVICE"


class InternalError(GBTError, RuntimeError):
    """GBT_E_INTERNAL: a bug in gbt; please report it."""
    status, status_name = 9, "E_INTERNAL"


#: XGBoost's name (``xgboost.core.XGBoostError``) for the error of a failed
#: library call, so that ``except xgb.core.XGBoostError`` catches gbt's.
XGBoostError = GBTError

_ERRORS: Dict[int, Type[GBTError]] = {
    cls.status: cls for cls in (InvalidArgumentError, OutOfMemoryError, GBTIOError, FormatError,
                                ParamError, StateError, NoDeviceError, DeviceError, InternalError)
}


# ---------------------------------------------------------------- loading

class LibraryNotFound(ImportError):
    """libgbt could not be found or loaded."""


def _library_candidates() -> list:
    env = os.environ.get("GBT_LIBRARY_PATH")
    if env:
        if os.path.isdir(env):
            return [os.path.join(env, name) for name in ("libgbt.so", "libgbt.so.0", "libgbt.dylib")]
        return [env]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
    return [os.path.join(here, "libgbt.so")]


def _load() -> ctypes.CDLL:
    tried = []
    for path in _library_candidates():
        if not os.path.exists(path):
            tried.append(f"{path} (not there)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    where = ("GBT_LIBRARY_PATH=" + os.environ["GBT_LIBRARY_PATH"]) if os.environ.get(
        "GBT_LIBRARY_PATH") else "the package (gbt/lib)"
    raise LibraryNotFound(
        f"gbt: cannot load libgbt from {where}: tried " + "; ".join(tried) +
        ". Install the package with `pip install ./bindings/python` (which builds and bundles it) "
        "or set GBT_LIBRARY_PATH to an installed libgbt.so or its directory.")


LIB = _load()
LIBRARY_PATH: str = LIB._name  # type: ignore[attr-defined]

_dataset_p = c_void_p
_booster_p = c_void_p
LOG_FN = CFUNCTYPE(None, c_int, c_char_p, c_void_p)
# gbt_objective_fn: (margin, nrow, outputs, data, user, grad, hess) -> 0 or failure
OBJECTIVE_FN = CFUNCTYPE(c_int, POINTER(c_double), c_uint64, c_int, c_void_p, c_void_p,
                         POINTER(c_double), POINTER(c_double))
# gbt_eval_fn: (margin, nrow, outputs, data, user, out) -> 0 or failure
# gbt.h's GBT_MAX_CUSTOM_METRICS: the most (name, value) pairs one custom metric returns
MAX_CUSTOM_METRICS = 16
EVAL_FN = CFUNCTYPE(c_int, POINTER(c_double), c_uint64, c_int, c_void_p, c_void_p, POINTER(c_double))
# gbt_train_hook_fn: (booster, iteration, mean, std, count, line, best_iteration, best_score,
# early_stop, user) -> 0 to go on, non-zero to stop
TRAIN_HOOK_FN = CFUNCTYPE(c_int, c_void_p, c_int, POINTER(c_double), POINTER(c_double), c_int, c_char_p,
                          c_int, c_double, c_int, c_void_p)

# gbt_iter_next_fn: (user, batch) -> 1 a batch, 0 no more, < 0 failure; gbt_iter_reset_fn: (user) -> 0
ITER_NEXT_FN = CFUNCTYPE(c_int, c_void_p, c_void_p)
ITER_RESET_FN = CFUNCTYPE(c_int, c_void_p)

_SIGNATURES = {
    # name: (restype, argtypes)
    "gbt_status_str": (c_char_p, [c_int]),
    "gbt_last_error": (c_char_p, []),
    "gbt_version": (c_char_p, []),
    "gbt_build_info": (c_char_p, []),
    "gbt_device_count": (c_int, []),
    "gbt_device_describe": (c_int, [c_int, POINTER(c_char), c_size_t, POINTER(c_int), POINTER(c_int),
                                    POINTER(c_uint64), POINTER(c_uint64)]),
    "gbt_set_log_callback": (None, [LOG_FN, c_void_p]),
    "gbt_free": (None, [c_void_p]),
    "gbt_param_count": (c_int, []),
    "gbt_param_describe": (c_int, [c_int] + [POINTER(c_char_p)] * 6),
    "gbt_dataset_from_dense": (c_int, [c_void_p, c_uint64, c_uint64, c_float, POINTER(_dataset_p)]),
    "gbt_dataset_from_dense_binned": (c_int, [c_void_p, c_uint64, c_uint64, c_uint64, c_float, c_void_p, c_int,
                                              POINTER(_dataset_p)]),
    "gbt_dataset_from_csr": (c_int, [c_void_p, c_void_p, c_void_p, c_uint64, c_uint64,
                                     POINTER(_dataset_p)]),
    "gbt_dataset_from_file": (c_int, [c_char_p, c_char_p, POINTER(_dataset_p)]),
    "gbt_dataset_from_iter": (c_int, [ITER_NEXT_FN, ITER_RESET_FN, c_void_p, c_int, POINTER(_dataset_p)]),
    "gbt_dataset_from_iter_ext_mpi": (c_int, [ITER_NEXT_FN, ITER_RESET_FN, c_void_p, c_int, c_char_p, c_void_p,
                                              POINTER(_dataset_p)]),
    "gbt_dataset_from_iter_ext": (c_int, [ITER_NEXT_FN, ITER_RESET_FN, c_void_p, c_int, c_char_p,
                                          POINTER(_dataset_p)]),
    "gbt_dataset_from_iter_ref": (c_int, [ITER_NEXT_FN, ITER_RESET_FN, c_void_p, _dataset_p, c_int,
                                          POINTER(_dataset_p)]),
    "gbt_batch_set_dense": (c_int, [c_void_p, c_void_p, c_uint64, c_uint64, c_float]),
    "gbt_batch_set_csr": (c_int, [c_void_p, c_void_p, c_void_p, c_void_p, c_uint64, c_uint64]),
    "gbt_batch_set_field": (c_int, [c_void_p, c_char_p, c_void_p, c_uint64]),
    "gbt_batch_set_groups": (c_int, [c_void_p, c_void_p, c_uint64]),
    "gbt_batch_set_feature_types": (c_int, [c_void_p, POINTER(c_char_p), c_uint64]),
    "gbt_dataset_save_binary": (c_int, [_dataset_p, c_char_p]),
    "gbt_dataset_set_field": (c_int, [_dataset_p, c_char_p, c_void_p, c_uint64]),
    "gbt_dataset_get_field": (c_int, [_dataset_p, c_char_p, POINTER(POINTER(c_float)),
                                      POINTER(c_uint64)]),
    "gbt_dataset_set_groups": (c_int, [_dataset_p, c_void_p, c_uint64]),
    "gbt_dataset_shape": (c_int, [_dataset_p, POINTER(c_uint64), POINTER(c_uint64)]),
    "gbt_dataset_free": (None, [_dataset_p]),
    "gbt_booster_create": (c_int, [POINTER(_booster_p)]),
    "gbt_booster_set_param": (c_int, [_booster_p, c_char_p, c_char_p]),
    "gbt_booster_get_param": (c_int, [_booster_p, c_char_p, POINTER(c_char), c_size_t]),
    "gbt_booster_get_attr": (c_int, [_booster_p, c_char_p, POINTER(c_char), c_size_t]),
    "gbt_booster_set_attr": (c_int, [_booster_p, c_char_p, c_char_p]),
    "gbt_booster_attributes": (c_int, [_booster_p, POINTER(c_void_p)]),
    "gbt_booster_rank_position_bias": (c_int, [_booster_p, c_void_p, c_void_p, ctypes.c_uint32,
                                               POINTER(ctypes.c_uint32)]),
    "gbt_booster_update": (c_int, [_booster_p, _dataset_p]),
    "gbt_booster_eval": (c_int, [_booster_p, _dataset_p, c_char_p, POINTER(c_double)]),
    "gbt_booster_num_rounds": (c_int, [_booster_p, POINTER(c_int)]),
    "gbt_booster_predict_size": (c_int, [_booster_p, c_uint64, c_uint, POINTER(c_uint64)]),
    "gbt_booster_predict": (c_int, [_booster_p, _dataset_p, c_uint, c_void_p, c_uint64]),
    "gbt_booster_predict_dense": (c_int, [_booster_p, c_void_p, c_uint64, c_uint64, c_float, c_uint,
                                          c_void_p, c_uint64]),
    "gbt_booster_save": (c_int, [_booster_p, c_char_p]),
    "gbt_booster_load": (c_int, [c_char_p, POINTER(_booster_p)]),
    "gbt_booster_save_to_buffer": (c_int, [_booster_p, POINTER(c_void_p), POINTER(c_size_t)]),
    "gbt_booster_load_from_buffer": (c_int, [c_char_p, c_size_t, POINTER(_booster_p)]),
    "gbt_booster_free": (None, [_booster_p]),
    "gbt_dataset_set_feature_names": (c_int, [_dataset_p, POINTER(c_char_p), c_uint64]),
    "gbt_dataset_set_feature_types": (c_int, [_dataset_p, POINTER(c_char_p), c_uint64]),
    "gbt_dataset_get_feature_types": (c_int, [_dataset_p, c_uint64, POINTER(c_char_p)]),
    "gbt_dataset_set_category_names": (c_int, [_dataset_p, c_char_p]),
    "gbt_dataset_get_category_names": (c_int, [_dataset_p, POINTER(c_char_p)]),
    "gbt_dataset_get_feature_names": (c_int, [_dataset_p, POINTER(POINTER(c_char_p)),
                                              POINTER(c_uint64)]),
    "gbt_booster_feature_names": (c_int, [_booster_p, POINTER(POINTER(c_char_p)), POINTER(c_uint64)]),
    "gbt_booster_set_feature_names": (c_int, [_booster_p, POINTER(c_char_p), c_uint64]),
    "gbt_booster_feature_importance": (c_int, [_booster_p, c_char_p, c_void_p, c_uint64]),
    "gbt_booster_dump": (c_int, [_booster_p, c_char_p, c_int, c_int, POINTER(c_void_p),
                                 POINTER(c_size_t)]),
    "gbt_booster_slice": (c_int, [_booster_p, c_int, c_int, POINTER(_booster_p)]),
    "gbt_booster_slice_step": (c_int, [_booster_p, c_int, c_int, c_int, POINTER(_booster_p)]),
    "gbt_booster_predict_size_rounds": (c_int, [_booster_p, c_uint64, c_uint, c_int, c_int,
                                                POINTER(c_uint64)]),
    "gbt_booster_predict_rounds": (c_int, [_booster_p, _dataset_p, c_uint, c_int, c_int, c_void_p,
                                           c_uint64]),
    "gbt_booster_predict_dense_rounds": (c_int, [_booster_p, c_void_p, c_uint64, c_uint64, c_float,
                                                 c_uint, c_int, c_int, c_void_p, c_uint64]),
    "gbt_booster_save_xgboost": (c_int, [_booster_p, c_char_p]),
    "gbt_booster_save_format": (c_int, [_booster_p, c_char_p, c_int]),
    "gbt_booster_save_to_buffer_format": (c_int, [_booster_p, c_int, POINTER(c_void_p), POINTER(c_size_t)]),
    "gbt_dataset_get_groups": (c_int, [_dataset_p, POINTER(POINTER(ctypes.c_uint32)),
                                       POINTER(c_uint64)]),
    "gbt_dataset_get_data": (c_int, [_dataset_p, POINTER(POINTER(c_float)), POINTER(POINTER(c_uint64)),
                                     POINTER(POINTER(ctypes.c_uint32)), POINTER(POINTER(c_float)),
                                     POINTER(c_uint64)]),
    "gbt_dataset_slice_rows": (c_int, [_dataset_p, c_uint64, c_uint64, POINTER(_dataset_p)]),
    "gbt_booster_train": (c_int, [_booster_p, _dataset_p, c_int, c_void_p, c_void_p, c_int]),
    "gbt_booster_train_folds": (c_int, [c_void_p, c_int, c_void_p, c_int, c_void_p, c_void_p, c_int,
                                        c_int]),
    "gbt_booster_set_train_hook": (c_int, [_booster_p, TRAIN_HOOK_FN, c_void_p]),
    "gbt_booster_set_early_stopping": (c_int, [_booster_p, c_int, c_char_p, c_char_p, c_int, c_double,
                                               c_int]),
    "gbt_booster_boost": (c_int, [_booster_p, _dataset_p, c_void_p, c_void_p, c_uint64]),
    "gbt_booster_train_margins": (c_int, [_booster_p, _dataset_p, c_void_p, c_uint64]),
    "gbt_booster_set_objective_callback": (c_int, [_booster_p, OBJECTIVE_FN, c_void_p]),
    "gbt_booster_set_eval_callback": (c_int, [_booster_p, c_char_p, EVAL_FN, c_void_p, c_int]),
    "gbt_booster_set_eval_names": (c_int, [_booster_p, c_int, POINTER(c_char_p)]),
    "gbt_booster_set_mpi_comm": (c_int, [_booster_p, c_void_p]),
    "gbt_booster_metric_count": (c_int, [_booster_p, POINTER(c_int)]),
    "gbt_booster_metric_describe": (c_int, [_booster_p, c_int, POINTER(c_char), c_size_t,
                                            POINTER(c_int)]),
    "gbt_booster_eval_round": (c_int, [_booster_p, _dataset_p, c_void_p, c_int]),
    "gbt_booster_eval_forget": (c_int, [_booster_p, _dataset_p]),
    "gbt_booster_set_best": (c_int, [_booster_p, c_int, c_double]),
    "gbt_booster_keep_rounds": (c_int, [_booster_p, c_int]),
    "gbt_booster_request_stop": (c_int, [_booster_p]),
    "gbt_booster_transform": (c_int, [_booster_p, c_void_p, c_uint64, c_void_p, c_uint64]),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _fn = getattr(LIB, _name)
    _fn.restype = _res
    _fn.argtypes = _args

def has(name: str) -> bool:
    """Whether the loaded libgbt exports the C function ``name``."""
    try:
        getattr(LIB, name)
        return True
    except AttributeError:
        return False


GBT_PREDICT_MARGIN = 1
GBT_PREDICT_LEAF = 2
GBT_PREDICT_CONTRIBS = 4
GBT_PREDICT_INTERACTIONS = 8
GBT_PREDICT_APPROX = 16
# model formats (gbt.h's GBT_MODEL_*)
GBT_MODEL_GBT = 0
GBT_MODEL_XGBOOST = 1
GBT_MODEL_XGBOOST_UBJ = 2


def check(status: int, context: str = "") -> None:
    """Raise the GBTError subclass of ``status`` with this thread's gbt_last_error()."""
    if status == 0:
        return
    msg = LIB.gbt_last_error().decode("utf-8", "replace")
    if not msg:
        msg = LIB.gbt_status_str(status).decode()
    if context:
        msg = f"{context}: {msg}"
    raise _ERRORS.get(status, GBTError)(msg, status)


def cstr(s: str) -> bytes:
    return s.encode("utf-8")


# ---------------------------------------------------------------- logging

_LEVELS = {0: logging.ERROR, 1: logging.WARNING, 2: logging.INFO, 3: logging.DEBUG}


@LOG_FN
def _log_callback(level: int, msg: bytes, user: int) -> None:  # pragma: no cover - trivial
    try:
        _log.log(_LEVELS.get(level, logging.INFO), "%s", msg.decode("utf-8", "replace"))
    except Exception:
        pass


LIB.gbt_set_log_callback(_log_callback, None)
