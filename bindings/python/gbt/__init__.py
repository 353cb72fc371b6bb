"""gbt: gradient-boosted decision trees on the CPU or an NVIDIA GPU.

A Python package over libgbt's C API (ctypes): :class:`Dataset`,
:class:`Booster`, :func:`train` (across MPI processes too: ``comm=``,
:mod:`gbt.collective`; on a Dask cluster: :mod:`gbt.dask`), callbacks, scikit-learn estimators
(:class:`GBTClassifier`, :class:`GBTRegressor`, :class:`GBTRanker`) and plots
(:func:`plot_metric`, :func:`plot_importance`, :func:`plot_tree`,
:func:`to_graphviz`).
"""
from ._lib import (DeviceError, FormatError, GBTError, GBTIOError, InternalError,
                   InvalidArgumentError, NoDeviceError, OutOfMemoryError, ParamError, StateError,
                   XGBoostError)
from ._lib import LIB as _LIB
from . import callback, collective
from .core import Booster, Dataset, ExtMemQuantileDMatrix, QuantileDMatrix, build_info, device_count, params_info
from .data_iter import DataIter

#: XGBoost's name for a dataset, so that scripts written for XGBoost's train() run
DMatrix = Dataset
from .training import train
from .cross_validation import cv
from .config import config_context, get_config, set_config
from .plotting import plot_importance, plot_metric, plot_tree, to_graphviz

__version__: str = _LIB.gbt_version().decode()

__all__ = ["Dataset", "DMatrix", "QuantileDMatrix", "ExtMemQuantileDMatrix", "DataIter", "Booster", "train", "cv", "callback", "collective", "set_config", "get_config", "config_context", "build_info", "device_count", "params_info",
           "plot_metric", "plot_importance", "plot_tree", "to_graphviz", "GBTClassifier", "GBTRegressor", "GBTRanker", "GBTModel", "XGBClassifier", "XGBRegressor",
           "XGBRanker", "XGBModel", "GBTRFClassifier", "GBTRFRegressor", "XGBRFClassifier", "XGBRFRegressor", "GBTError", "XGBoostError", "InvalidArgumentError",
           "OutOfMemoryError", "GBTIOError", "FormatError", "ParamError", "StateError",
           "NoDeviceError", "DeviceError", "InternalError", "__version__"]


def __getattr__(name: str):
    # scikit-learn is optional: the estimators load it on first use.
    if name in ("GBTClassifier", "GBTRegressor", "GBTRanker", "GBTModel",
                "XGBClassifier", "XGBRegressor", "XGBRanker", "XGBModel",
                "GBTRFClassifier", "GBTRFRegressor", "XGBRFClassifier", "XGBRFRegressor"):
        from . import sklearn as _sk
        return getattr(_sk, name)
    raise AttributeError(f"module 'gbt' has no attribute {name!r}")
