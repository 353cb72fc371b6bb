"""``xgboost`` resolved to gbt, for tools/xgb_pytests.py (not a package to install).

XGBoost's own tests import ``xgboost``; this package answers them with
gbt.  The modules gbt has its own version of (the package, ``core``,
``callback``, ``sklearn``, ``training``, ``config``, ``plotting``,
``collective``) are
gbt's; a name gbt lacks in them is taken from the installed XGBoost, so
that a test file can load at all, and is written to the file named by
``GBT_XGB_STANDINS`` (the runner lists those "stand-ins").  XGBoost's
modules that are not gbt's concern (``data``, ``compat``, ``tracker``,
...) are XGBoost's own.  ``xgboost.testing`` is XGBoost's
helper code, loaded afresh under this package so that it calls gbt.
"""
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import types

import gbt

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_real() -> types.ModuleType:
    """The installed XGBoost, imported under the name ``_xgboost_real``."""
    paths = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("xgboost", paths)
    if spec is None or spec.origin is None:
        raise ImportError("the shim needs the real xgboost installed (its testing helpers)")
    real_spec = importlib.util.spec_from_file_location(
        "_xgboost_real", spec.origin, submodule_search_locations=list(spec.submodule_search_locations))
    real = importlib.util.module_from_spec(real_spec)
    sys.modules["_xgboost_real"] = real
    real_spec.loader.exec_module(real)
    return real


_real = _load_real()


def _note(name: str) -> None:
    path = os.environ.get("GBT_XGB_STANDINS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(name + "\n")


def _lookup(modname: str, sources, real_mod):
    def getter(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        for src in sources:
            if hasattr(src, name):
                return getattr(src, name)
        if real_mod is not None and hasattr(real_mod, name):
            _note(f"{modname}.{name}")
            return getattr(real_mod, name)
        raise AttributeError(f"module {modname!r} has no attribute {name!r}")
    return getter


def _wrap(sub: str, gbt_mod: types.ModuleType) -> types.ModuleType:
    name = "xgboost." + sub
    mod = types.ModuleType(name, gbt_mod.__doc__)
    real_mod = importlib.import_module("_xgboost_real." + sub)
    mod.__getattr__ = _lookup(name, (gbt_mod, gbt), real_mod)
    sys.modules[name] = mod
    return mod


core = _wrap("core", importlib.import_module("gbt.core"))
callback = _wrap("callback", importlib.import_module("gbt.callback"))
training = _wrap("training", importlib.import_module("gbt.training"))
config = _wrap("config", importlib.import_module("gbt.config"))
plotting = _wrap("plotting", importlib.import_module("gbt.plotting"))
sklearn = _wrap("sklearn", importlib.import_module("gbt.sklearn"))
collective = _wrap("collective", importlib.import_module("gbt.collective"))
for _sub in ("compat", "_typing", "data", "_data_utils", "libpath", "tracker",
             "federated", "objective"):
    try:
        _m = importlib.import_module("_xgboost_real." + _sub)
    except ImportError:
        continue
    sys.modules["xgboost." + _sub] = _m
    globals()[_sub] = _m

# xgboost.testing (and anything not mapped above) loads from XGBoost's folder under this package.
__path__ = [os.path.dirname(_real.__file__)]
__version__ = gbt.__version__
for _k in dir(gbt):
    if not _k.startswith("_") and _k not in globals():
        globals()[_k] = getattr(gbt, _k)
for _k in ("XGBClassifier", "XGBRegressor", "XGBRanker", "XGBModel"):
    globals()[_k] = getattr(gbt, _k)
__getattr__ = _lookup("xgboost", (gbt,), _real)
