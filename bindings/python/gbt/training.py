"""gbt.train: boosting rounds driven from Python, with per-round metrics as numbers."""
from __future__ import annotations

import copy
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .callback import (CallbackContainer, EarlyStopping, EvaluationMonitor, ProgressBar,
                       TrainingCallback)
from .core import Booster, Dataset

__all__ = ["train"]


def train(params: Mapping[str, Any], dtrain: Dataset, num_boost_round: int = 10, *,
          evals: Optional[Sequence[Tuple[Dataset, str]]] = None,
          early_stopping_rounds: Optional[int] = None,
          evals_result: Optional[Dict[str, Dict[str, List[float]]]] = None,
          verbose_eval: Union[bool, int] = True,
          xgb_model: Union[None, str, Booster, bytes, bytearray] = None,
          callbacks: Optional[Sequence[TrainingCallback]] = None) -> Booster:
    """Train a booster.

    Each round is one ``gbt_booster_update``; after it, every metric of
    ``eval_metric`` (or the objective's default) is computed on each of
    ``evals`` with ``gbt_booster_eval``, and the callbacks run.  Without
    ``evals`` and callbacks the model is the one ``gbtrain`` and
    ``gbt_booster_train`` make with the same parameters, byte for byte; with
    ``early_stopping_rounds`` too.

    Parameters
    ----------
    params : dict
        Booster parameters (XGBoost's names).  ``eval_metric`` may be a list.
    dtrain : Dataset
        The training data, with labels.
    num_boost_round : int, default 10
    evals : list of (Dataset, str), optional
        Data to evaluate after each round, with their names.
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

    Returns
    -------
    Booster
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
        callbacks.append(EarlyStopping(rounds=early_stopping_rounds))
    for c in callbacks:
        if isinstance(c, ProgressBar) and c.total is None:
            c.total = int(num_boost_round)

    if isinstance(xgb_model, Booster):
        booster = xgb_model.copy()
        booster.set_param(params)
    elif xgb_model is not None:
        booster = Booster(model_file=xgb_model)
        booster.set_param(params)
    else:
        booster = Booster(params)

    container = CallbackContainer(callbacks)
    booster = container.before_training(booster)
    start = booster.num_boosted_rounds() if xgb_model is not None else 0
    for epoch in range(start, start + int(num_boost_round)):
        if container.before_iteration(booster, epoch):
            break
        booster.update(dtrain, epoch)
        if container.after_iteration(booster, epoch, evals):
            break
    booster = container.after_training(booster)
    if evals_result is not None:
        evals_result.clear()
        evals_result.update(copy.deepcopy(container.history))
    return booster
