"""gbt.train: one call of the library's training driver (gbt_booster_train),
which runs the rounds, evaluates, logs and stops early; the callbacks run in
its per-round hook."""
from __future__ import annotations

import copy
import ctypes
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .callback import (CallbackContainer, EarlyStopping, EvaluationMonitor, ProgressBar,
                       TrainingCallback)
from . import _lib, collective
from .core import Booster, Dataset, _merge_params

# gbt_booster_set_early_stopping's defaults: early_stopping_rounds alone
_ES_DEFAULTS = (-1, None, None, -1, 0.0, 0)
_NO_HOOK = ctypes.cast(None, _lib.TRAIN_HOOK_FN)

__all__ = ["train"]


def _num_class(params: Mapping[str, Any]) -> int:
    try:
        return int(params.get("num_class", 0) or 0)
    except (TypeError, ValueError):
        return 0


def _keep_finished_rounds(booster: Booster, container: CallbackContainer, start: int) -> None:
    """After Ctrl-C: the booster keeps its finished rounds (an interrupted
    gbt_booster_update adds no tree), the history is cut to them, and a
    warning says how many rounds were done."""
    import warnings

    done = booster.num_boosted_rounds() - start
    for metrics in container.history.values():
        for values in metrics.values():
            del values[done:]
    warnings.warn(f"training interrupted (KeyboardInterrupt): keeping the {done} round"
                  f"{'' if done == 1 else 's'} finished ({booster.num_boosted_rounds()} in the model)",
                  RuntimeWarning, stacklevel=3)


def _drive(boosters: Sequence[Booster], trains: Sequence[Dataset],
           evals: Sequence[Sequence[Tuple[Dataset, str]]], num_rounds: int, container: CallbackContainer,
           start: int, folds: bool = False, show_stdv: bool = False, view: Any = None) -> None:
    """One call of the training driver: ``gbt_booster_train`` for one
    booster, ``gbt_booster_train_folds`` for the folds of :func:`gbt.cv`
    (``evals[f]`` the sets of fold f, named alike).  The driver calls the
    hook once per round with the metric values (the folds' means and
    standard deviations), its log line and early stopping's state; the hook
    fills the history and runs the callbacks, whose True stops the training.
    An exception in a callback stops it after that round and is raised
    here; so is one from a custom objective or metric.  The callbacks see
    ``view`` as the model (:func:`gbt.cv`'s folds), else the first booster."""
    for d in list(trains) + [d for sets in evals for d, _ in sets]:
        d._check_weight()
    model = boosters[0]
    seen = model if view is None else view
    stops = [c for c in container.callbacks if isinstance(c, EarlyStopping)]
    if len(stops) > 1:
        raise ValueError(f"a training takes one EarlyStopping callback; got {len(stops)}")
    names = [name for _, name in evals[0]]
    end = start + int(num_rounds)
    state: Dict[str, Any] = {"metrics": None, "error": None}

    def hook(handle: int, it: int, mean: Any, std: Any, count: int, line: Optional[bytes], best_it: int,
             best_score: float, early: int, user: int) -> int:
        try:
            if state["metrics"] is None:  # after round 1: a custom metric has its name
                state["metrics"] = [n for n, _ in model._metric_info()]
            metrics = state["metrics"]
            for k in range(count):
                value = (float(mean[k]), float(std[k])) if folds else float(mean[k])
                container.history.setdefault(names[k // len(metrics)], {}).setdefault(
                    metrics[k % len(metrics)], []).append(value)
            for c in stops:
                c._observe(best_it, best_score, bool(early))
            stop = container.after_iteration(seen, it, line.decode("utf-8", "replace") if line else None)
            if not stop and it + 1 < end:
                stop = container.before_iteration(seen, it + 1)
            return 1 if stop else 0
        except BaseException as e:  # raised again once the driver returns
            state["error"] = e
            return 1

    fn = _lib.TRAIN_HOOK_FN(hook)
    nv = len(names)
    valid = (ctypes.c_void_p * max(1, nv * len(boosters)))(
        *[d._handle.value for sets in evals for d, _ in sets])
    cnames = (ctypes.c_char_p * max(1, nv))(*[_lib.cstr(n) for n in names])
    es = stops[0] if stops else None
    if es is not None:
        es._configure(model._handle)
    else:  # gbt.train stops early only when asked (the early_stopping_rounds parameter is not read)
        _lib.check(_lib.LIB.gbt_booster_set_early_stopping(model._handle, 0, None, None, -1, 0.0, 0))
    _lib.check(_lib.LIB.gbt_booster_set_train_hook(model._handle, fn, None))
    for b in boosters:
        b._cb_error = None
    previous = sys.unraisablehook

    def unraisable(info: Any) -> None:
        # Ctrl-C during a round is raised on entry to the next Python callback,
        # before its try, where ctypes can only report it: stop after this round
        if isinstance(info.exc_value, KeyboardInterrupt) and state["error"] is None:
            state["error"] = info.exc_value
            _lib.LIB.gbt_booster_request_stop(model._handle)
        else:
            previous(info)

    sys.unraisablehook = unraisable
    try:
        if folds:
            handles = (ctypes.c_void_p * len(boosters))(*[b._handle.value for b in boosters])
            datas = (ctypes.c_void_p * len(trains))(*[d._handle.value for d in trains])
            st = _lib.LIB.gbt_booster_train_folds(handles, len(boosters), datas, int(num_rounds), valid,
                                                  cnames, nv, int(bool(show_stdv)))
        else:
            st = _lib.LIB.gbt_booster_train(model._handle, trains[0]._handle, int(num_rounds), valid,
                                            cnames, nv)
    finally:
        sys.unraisablehook = previous
        _lib.LIB.gbt_booster_set_train_hook(model._handle, _NO_HOOK, None)
        _lib.LIB.gbt_booster_set_early_stopping(model._handle, *_ES_DEFAULTS)
        for b in boosters:
            b._cache = {}
    if state["error"] is not None:
        raise state["error"]
    for b in boosters:
        if getattr(b, "_cb_error", None) is not None:
            b._raise_callback_error(st)
    _lib.check(st)


def train(params: Mapping[str, Any], dtrain: Dataset, num_boost_round: int = 10,
          evals: Optional[Sequence[Tuple[Dataset, str]]] = None,
          obj: Optional[Callable[..., Any]] = None,
          maximize: Optional[bool] = None,
          early_stopping_rounds: Optional[int] = None,
          evals_result: Optional[Dict[str, Dict[str, List[float]]]] = None,
          verbose_eval: Union[bool, int] = True,
          xgb_model: Union[None, str, Booster, bytes, bytearray] = None,
          callbacks: Optional[Sequence[TrainingCallback]] = None,
          custom_metric: Optional[Callable[..., Any]] = None,
          comm: Any = None) -> Booster:
    """Train a booster.

    One call of the library's training driver, ``gbt_booster_train``, the
    loop behind ``gbtrain``: each round it trains, computes every metric of
    ``eval_metric`` (or the objective's default, as the library decides it:
    ``ndcg@32`` for rank:ndcg, ``cox-nloglik`` for survival:cox, ...) on each
    of ``evals``, decides early stopping and makes the round's log line; then
    its per-round hook runs the callbacks with those values.  The model, the
    metrics and the early stop are those of ``gbtrain`` with the same
    parameters and validation sets, byte for byte.

    Parameters
    ----------
    params : dict or list of (name, value) pairs
        Booster parameters (XGBoost's names).  ``eval_metric`` may be a list,
        or come several times in a list of pairs (every one is kept).
    dtrain : Dataset
        The training data, with labels.
    num_boost_round : int, default 10
    evals : list of (Dataset, str), optional
        Data to evaluate after each round, with their names.
    obj : callable, optional
        A custom objective, XGBoost's ``obj``: ``obj(preds, dtrain) -> (grad,
        hess)``, preds the raw scores of the training rows (float64, shape
        ``(rows,)`` or ``(rows, K)``), grad and hess of the same size, the
        loss's derivatives at them with the weights included.  The
        ``objective`` parameter still fixes base_score, the prediction
        transform and the default metric.  Without ``base_score`` in params
        a new model starts from 0.5, as XGBoost's does with a custom
        objective (built-in objectives start from the label mean).
    maximize : bool, optional
        Whether higher is better for early stopping's metric (default: the
        library's answer for a built-in metric; a custom metric's name
        decides as in XGBoost: names starting with auc, aucpr, pre, map or
        ndcg are maximised).
    early_stopping_rounds : int, optional
        Stop when the last metric on the last of ``evals`` has not improved
        for this many rounds.  As in XGBoost 3.2 the returned booster keeps
        every round trained (``num_boosted_rounds()`` is ``best_iteration +
        early_stopping_rounds + 1`` after a stop) and records
        ``best_iteration`` and ``best_score`` in the model;
        :meth:`Booster.predict` uses every round unless given
        ``iteration_range=(0, bst.best_iteration + 1)``.
        ``callbacks=[gbt.callback.EarlyStopping(rounds=N, save_best=True)]``
        keeps rounds ``0 .. best_iteration`` only.
    evals_result : dict, optional
        Filled with the history: ``{name: {metric: [values per round]}}``.
    verbose_eval : bool or int, default True
        Print the metrics every round (True) or every N rounds.
    xgb_model : Booster, path or bytes, optional
        A model to continue training from (a copy; the original is unchanged).
    callbacks : list of TrainingCallback, optional
    custom_metric : callable, optional
        XGBoost's ``custom_metric``: ``custom_metric(preds, data) -> (name,
        value)`` (or a list of such pairs, each a metric of its own),
        computed on each of ``evals`` after the built-in metrics (so its
        last pair decides early stopping unless ``EarlyStopping``'s
        ``metric_name`` picks another).  preds are
        the predictions (float32, as :meth:`Booster.predict` gives them), or
        the raw scores when ``obj`` is given, as XGBoost does.
    comm : mpi4py communicator, optional
        Train across the processes of this MPI communicator (such as
        ``MPI.COMM_WORLD`` under ``mpirun``): every process calls ``train``
        with the same parameters and its own rows in ``dtrain`` and in each
        of ``evals`` (the processes' rows in rank order make up the whole
        sets), and every process gets the model one process trains on all
        the rows, byte for byte; the metrics, early stopping and the
        callbacks see the whole evaluation sets.  Default: the communicator
        of :mod:`gbt.collective` when one is set (``with
        gbt.collective.CommunicatorContext():``), else one process.  A
        ``custom_metric`` is refused under a communicator (it would see one
        process's rows); ``obj`` gives the gradients of the process's rows.

    Returns
    -------
    Booster

    The arguments may be given by position in this order, as XGBoost's
    ``train(params, dtrain, num_boost_round, evals, ...)``.  A
    KeyboardInterrupt (Ctrl-C) during training stops it after the round in
    progress is finished or dropped: the booster of the finished rounds is
    returned, with a warning saying how many (callbacks' ``after_training``
    still runs); a second Ctrl-C raises as usual.
    """
    if not isinstance(dtrain, Dataset):
        raise TypeError(f"dtrain must be a gbt.Dataset, not {type(dtrain).__name__}")
    if int(num_boost_round) < 0:
        raise ValueError(f"num_boost_round must be >= 0; got {num_boost_round}")
    evals = list(evals or [])
    for i, pair in enumerate(evals):
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], Dataset)
                and isinstance(pair[1], str)):
            raise TypeError(f"evals[{i}] must be a (gbt.Dataset, name) pair")
    callbacks = list(callbacks or [])
    if verbose_eval and evals:
        period = 1 if verbose_eval is True else int(verbose_eval)
        callbacks.append(EvaluationMonitor(period=period))
    if early_stopping_rounds:
        if not evals:
            raise ValueError("early_stopping_rounds needs at least one validation set in evals")
        callbacks.append(EarlyStopping(rounds=early_stopping_rounds, maximize=maximize))
    for c in callbacks:
        if isinstance(c, ProgressBar) and c.total is None:
            c.total = int(num_boost_round)

    params = _merge_params(params)
    if getattr(dtrain, "max_bin", None) is not None and not any(
            k in params for k in ("max_bin", "max-bin")):
        params["max_bin"] = dtrain.max_bin  # a QuantileDMatrix's bins are the booster's
    if obj is not None and _num_class(params) > 1 and "objective" not in params and xgb_model is None:
        # XGBoost 3.2 takes multi:softmax then: predict gives the class of the
        # largest raw score, and output_margin the raw scores
        params["objective"] = "multi:softmax"
    if xgb_model is not None:
        booster = xgb_model.copy() if isinstance(xgb_model, Booster) else Booster(model_file=xgb_model)
        qbin = getattr(dtrain, "max_bin", None)
        if qbin is not None and booster.num_boosted_rounds() and int(booster.get_param("max_bin")) != qbin:
            # XGBoost's error: the continued trees were grown on bins of the model's max_bin
            raise ValueError(f"the QuantileDMatrix's max_bin={qbin} and the model's "
                             f"max_bin={booster.get_param('max_bin')} should be consistent")
        booster.set_param(params)
    else:
        booster = Booster(params)
    if comm is None:
        comm = collective._current()
    if comm is not None:
        collective._attach(booster, comm)

    if obj is not None and not callable(obj):
        raise TypeError(f"obj must be callable; got {type(obj).__name__}")
    if (obj is not None and "base_score" not in params and not booster.num_boosted_rounds()
            and not str(params.get("objective", "")).startswith("multi:")):
        # XGBoost estimates no starting score for a custom objective: it starts at 0.5
        booster.set_param("base_score", 0.5)
    # pandas categories: the model's (continued training) or the training frame's codes for every set
    target = booster._categories() or (dtrain._categories or None)
    if comm is not None:
        collective._same_categories(comm, target)
    dtrain = dtrain._recoded(target)
    evals = [(d._recoded(target), name) for d, name in evals]
    container = CallbackContainer(callbacks)
    booster = container.before_training(booster)
    booster._note_categories(dtrain)
    if obj is not None:
        booster._set_objective(obj, dtrain)
    if custom_metric is not None:
        booster._set_custom_metric(custom_metric, output_margin=obj is not None, maximize=maximize,
                                   datasets=[d for d, _ in evals])
    start = booster.num_boosted_rounds() if xgb_model is not None else 0
    try:
        # a continued model asked for no rounds stays as it is; a new one gets its starting score
        if not (int(num_boost_round) == 0 and xgb_model is not None) and not (
                int(num_boost_round) > 0 and container.before_iteration(booster, start)):
            _drive([booster], [dtrain], [evals], int(num_boost_round), container, start)
    except KeyboardInterrupt:
        _keep_finished_rounds(booster, container, start)
    finally:
        booster._clear_custom_metric()
        if obj is not None:
            booster._clear_objective()
    booster = container.after_training(booster)
    if evals_result is not None:
        evals_result.clear()
        evals_result.update(copy.deepcopy(container.history))
    if booster._has_model() and not booster.get_param("eval_metric"):
        # XGBoost's train leaves the objective's default metric in the booster's list, so a
        # later set_param("eval_metric", m) evaluates both (its check_precision_score)
        try:
            booster.set_param("eval_metric", booster.eval_metric_names())
        except _lib.ParamError:  # a default the metric list cannot name: evaluation keeps its default
            booster.set_param("eval_metric", "")
    return booster
