"""XGBoost's global configuration calls: set_config, get_config, config_context.

gbt's one global setting is how much of the library's log reaches Python:
``verbosity`` (XGBoost's levels: 0 silent, 1 warnings, 2 info, 3 debug)
sets the level of the ``"gbt"`` logger (the process's).  Other keys
XGBoost has (``use_rmm``, ``nthread``...) are kept and returned by
get_config, and do nothing.  As in XGBoost, the configuration is each
thread's own (a new thread starts from the defaults: verbosity 1, nthread
0, use_rmm False), and a value of None leaves a key as it is.
"""
from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, Dict, Iterator

__all__ = ["set_config", "get_config", "config_context"]

_LEVELS = {0: logging.CRITICAL + 10, 1: logging.WARNING, 2: logging.INFO, 3: logging.DEBUG}
_DEFAULTS: Dict[str, Any] = {"verbosity": 1, "use_rmm": False, "nthread": 0}
_LOCAL = threading.local()


def _config() -> Dict[str, Any]:
    """This thread's configuration."""
    if not hasattr(_LOCAL, "config"):
        _LOCAL.config = dict(_DEFAULTS)
    return _LOCAL.config


def set_config(**new_config: Any) -> None:
    """Set global configuration (XGBoost's ``xgb.set_config``)."""
    new_config = {k: v for k, v in new_config.items() if v is not None}
    if "verbosity" in new_config:
        v = int(new_config["verbosity"])
        if v not in _LEVELS:
            raise ValueError(f"verbosity must be 0, 1, 2 or 3; got {new_config['verbosity']!r}")
        logging.getLogger("gbt").setLevel(_LEVELS[v])
    _config().update(new_config)


def get_config() -> Dict[str, Any]:
    """The global configuration (a copy)."""
    return dict(_config())


@contextlib.contextmanager
def config_context(**new_config: Any) -> Iterator[None]:
    """Set configuration for a ``with`` block; the old one comes back after."""
    old = get_config()
    level = logging.getLogger("gbt").level
    set_config(**new_config)
    try:
        yield
    finally:
        _config().clear()
        _config().update(old)
        logging.getLogger("gbt").setLevel(level)
