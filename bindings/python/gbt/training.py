"""gbt.train: the library's rounds (gbt_booster_update) and evaluation
(gbt_booster_eval_round) driven from Python, with per-round metrics as numbers."""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .callback import (CallbackContainer, EarlyStopping, EvaluationMonitor, ProgressBar,
                       TrainingCallback)
from . import _lib
from .core import Booster, Dataset, _merge_params

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


def train(params: Mapping[str, Any], dtrain: Dataset, num_boost_round: int = 10,
          evals: Optional[Sequence[Tuple[Dataset, str]]] = None,
          obj: Optional[Callable[..., Any]] = None,
          maximize: Optional[bool] = None,
          early_stopping_rounds: Optional[int] = None,
          evals_result: Optional[Dict[str, Dict[str, List[float]]]] = None,
          verbose_eval: Union[bool, int] = True,
          xgb_model: Union[None, str, Booster, bytes, bytearray] = None,
          callbacks: Optional[Sequence[TrainingCallback]] = None,
          custom_metric: Optional[Callable[..., Any]] = None) -> Booster:
    """Train a booster.

    Each round is one ``gbt_booster_update``; after it, every metric of
    ``eval_metric`` (or the objective's default, as the library decides it:
    ``ndcg@32`` for rank:ndcg, ``cox-nloglik`` for survival:cox, ...) is
    computed on each of ``evals`` with ``gbt_booster_eval_round``, which
    keeps each dataset's raw scores between rounds and adds only the new
    trees, and the callbacks run.  The model, the metrics and the early stop
    are those of ``gbtrain`` and ``gbt_booster_train`` with the same
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
        for this many rounds; the returned booster then keeps rounds
        ``0 .. best_iteration`` only (as ``gbt_booster_train`` does) and has
        ``best_iteration`` and ``best_score``.  See
        :class:`gbt.callback.EarlyStopping` for the other choices.
    evals_result : dict, optional
        Filled with the history: ``{name: {metric: [values per round]}}``.
    verbose_eval : bool or int, default True
        Print the metrics every round (True) or every N rounds.
    xgb_model : Booster, path or bytes, optional
        A model to continue training from (a copy; the original is unchanged).
    callbacks : list of TrainingCallback, optional
    custom_metric : callable, optional
        XGBoost's ``custom_metric``: ``custom_metric(preds, data) -> (name,
        value)`` (or a list of such pairs), computed on each of ``evals``
        after the built-in metrics (so it decides early stopping).  preds are
        the predictions (float32, as :meth:`Booster.predict` gives them), or
        the raw scores when ``obj`` is given, as XGBoost does.

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
    if isinstance(xgb_model, Booster):
        booster = xgb_model.copy()
        booster.set_param(params)
    elif xgb_model is not None:
        booster = Booster(model_file=xgb_model)
        booster.set_param(params)
    else:
        booster = Booster(params)

    if obj is not None and not callable(obj):
        raise TypeError(f"obj must be callable; got {type(obj).__name__}")
    if (obj is not None and "base_score" not in params and not booster.num_boosted_rounds()
            and not str(params.get("objective", "")).startswith("multi:")):
        # XGBoost estimates no starting score for a custom objective: it starts at 0.5
        booster.set_param("base_score", 0.5)
    # pandas categories: the model's (continued training) or the training frame's codes for every set
    target = booster._categories() or (dtrain._categories or None)
    dtrain = dtrain._recoded(target)
    evals = [(d._recoded(target), name) for d, name in evals]
    container = CallbackContainer(callbacks)
    booster = container.before_training(booster)
    if custom_metric is not None:
        booster._set_custom_metric(custom_metric, output_margin=obj is not None, maximize=maximize)
    start = booster.num_boosted_rounds() if xgb_model is not None else 0
    try:
        for epoch in range(start, start + int(num_boost_round)):
            if container.before_iteration(booster, epoch):
                break
            booster.update(dtrain, epoch, fobj=obj)
            if container.after_iteration(booster, epoch, evals):
                break
    except KeyboardInterrupt:
        _keep_finished_rounds(booster, container, start)
    finally:
        booster._clear_custom_metric()
        booster._eval_forget()
    if int(num_boost_round) == 0 and xgb_model is None:
        # as gbtrain --num_round=0 and XGBoost: a model of no trees (its starting
        # score), which saves, predicts and dumps, set up by the C driver
        _lib.check(_lib.LIB.gbt_booster_train(booster._handle, dtrain._handle, 0, None, None, 0))
    booster = container.after_training(booster)
    if evals_result is not None:
        evals_result.clear()
        evals_result.update(copy.deepcopy(container.history))
    return booster
