"""gbt.cv: k-fold cross validation with XGBoost's signature and result, trained
by the library's driver (gbt_booster_train_folds) in one call."""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import collective
from .callback import CallbackContainer, EarlyStopping, EvaluationMonitor, TrainingCallback
from .core import Booster, Dataset, _merge_params
from .training import _drive

__all__ = ["cv"]


class CVPack:
    """One fold of :func:`gbt.cv`, as XGBoost's: its training rows
    ``dtrain``, its test rows ``dtest``, its booster ``bst`` and the sets it
    is evaluated on, ``watchlist``."""

    def __init__(self, dtrain: Dataset, dtest: Dataset, bst: Booster):
        self.dtrain, self.dtest, self.bst = dtrain, dtest, bst
        self.watchlist = [(dtrain, "train"), (dtest, "test")]


class _PackedBooster:
    """The model :func:`gbt.cv`'s callbacks see, as XGBoost's: the folds as
    ``cvfolds``; ``set_param`` and ``set_attr`` apply to every fold, and any
    other attribute is the first fold's booster's."""

    def __init__(self, cvfolds: List[CVPack]):
        self.cvfolds = cvfolds

    def set_param(self, params: Any, value: Any = None) -> None:
        for f in self.cvfolds:
            f.bst.set_param(params, value)

    def set_attr(self, **kwargs: Any) -> None:
        for f in self.cvfolds:
            f.bst.set_attr(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cvfolds[0].bst, name)


def _folds(dtrain: Dataset, nfold: int, stratified: bool, folds: Any, seed: int,
           shuffle: bool) -> List[Tuple[np.ndarray, np.ndarray]]:
    n = dtrain.num_row()
    if folds is not None:
        if hasattr(folds, "split"):
            return [(np.asarray(a), np.asarray(b))
                    for a, b in folds.split(np.zeros((n, 1)), dtrain.get_label())]
        return [(np.asarray(a), np.asarray(b)) for a, b in folds]
    if int(nfold) < 2:
        raise ValueError(f"nfold must be at least 2; got {nfold}")
    if stratified:
        from sklearn.model_selection import StratifiedKFold

        skf = StratifiedKFold(n_splits=nfold, shuffle=shuffle, random_state=seed if shuffle else None)
        return [(a, b) for a, b in skf.split(np.zeros((n, 1)), dtrain.get_label())]
    # XGBoost's split: a permutation from RandomState(seed), cut into nfold parts
    idx = np.random.RandomState(seed).permutation(n) if shuffle else np.arange(n)
    parts = np.array_split(idx, nfold)
    return [(np.concatenate([parts[j] for j in range(nfold) if j != i]), parts[i]) for i in range(nfold)]


def cv(params: Any, dtrain: Dataset, num_boost_round: int = 10, nfold: int = 3, stratified: bool = False,
       folds: Any = None, metrics: Sequence[str] = (), obj: Optional[Callable[..., Any]] = None,
       maximize: Optional[bool] = None, early_stopping_rounds: Optional[int] = None,
       fpreproc: Optional[Callable[..., Any]] = None, as_pandas: bool = True,
       verbose_eval: Union[None, bool, int] = None, show_stdv: bool = True, seed: int = 0,
       callbacks: Optional[Sequence[TrainingCallback]] = None, shuffle: bool = True,
       custom_metric: Optional[Callable[..., Any]] = None) -> Any:
    """Cross validation, as XGBoost's ``xgb.cv``.

    The rows of ``dtrain`` are split into ``nfold`` folds (as XGBoost splits
    them: a permutation from ``numpy.random.RandomState(seed)`` cut into
    equal parts, or scikit-learn's ``StratifiedKFold`` with ``stratified``, or
    the caller's ``folds``: a splitter with ``split(X, y)`` or a list of
    (train indices, test indices)); one booster per fold trains
    ``num_boost_round`` rounds on the other folds and is evaluated each round
    on its training rows (``train``) and on its fold (``test``).

    Parameters follow :func:`gbt.train`; ``metrics`` (a name or a list)
    replaces ``eval_metric``; ``fpreproc(dtrain, dtest, params) -> (dtrain,
    dtest, params)`` runs on each fold first.  With ``early_stopping_rounds``
    training stops when the mean of the last metric on ``test`` has not
    improved for that many rounds, and the result ends at the best round
    (XGBoost's rule: only when it stopped early).
    The folds train together in one call of the library's driver
    (``gbt_booster_train_folds``), which averages each round's metrics over
    the folds, logs the round, stops early on the means and runs the
    callbacks through its per-round hook.
    Callbacks see ``{"train": {metric: [(mean, std), ...]}, "test": ...}``
    and, as the model, XGBoost's packed booster: ``model.cvfolds`` lists each
    fold's ``dtrain``, ``dtest`` and ``bst``; ``set_param`` and ``set_attr``
    apply to every fold; other attributes are the first fold's booster's.

    Returns
    -------
    pandas.DataFrame or dict
        Columns ``train-{metric}-mean``, ``train-{metric}-std``,
        ``test-{metric}-mean``, ``test-{metric}-std`` (standard deviations of
        the population, as numpy's), one row per round; a dict of lists
        without pandas or with ``as_pandas=False``.

    Cross validation runs in one process: inside a distributed
    :mod:`gbt.collective` context it is refused (each process would
    validate on its own rows only).
    """
    if not isinstance(dtrain, Dataset):
        raise TypeError(f"dtrain must be a gbt.Dataset, not {type(dtrain).__name__}")
    if collective.is_distributed():
        raise ValueError("gbt.cv runs in one process; call it outside gbt.collective's communicator "
                         "(gbt.train and the estimators train across processes)")
    if dtrain.get_group() is not None and folds is None:
        raise ValueError("gbt.cv on data with query groups needs folds= (whole groups per fold)")
    params = _merge_params(params)
    if metrics:
        params["eval_metric"] = [metrics] if isinstance(metrics, str) else list(metrics)
    if obj is not None and int(params.get("num_class", 0) or 0) > 1 and "objective" not in params:
        params["objective"] = "multi:softprob"
    if obj is not None and "base_score" not in params and not str(params.get("objective", "")).startswith("multi:"):
        params["base_score"] = 0.5  # as gbt.train does for a custom objective
    cbs = list(callbacks or [])
    if verbose_eval:
        period = 1 if verbose_eval is True else int(verbose_eval)
        cbs.append(EvaluationMonitor(period=period, show_stdv=show_stdv))
    if early_stopping_rounds:
        cbs.append(EarlyStopping(rounds=early_stopping_rounds, maximize=maximize))
    if any(isinstance(c, EarlyStopping) and c.save_best for c in cbs):
        raise ValueError("EarlyStopping's `save_best` is not applicable to gbt.cv, which returns no model "
                         "(as in XGBoost)")

    packs = []
    grouped = dtrain.get_group() is not None
    for train_idx, test_idx in _folds(dtrain, nfold, stratified, folds, seed, shuffle):
        if grouped:  # whole query groups, in the data's order
            train_idx, test_idx = np.sort(train_idx), np.sort(test_idx)
        dtr, dte = (dtrain.slice(train_idx, allow_groups=grouped),
                    dtrain.slice(test_idx, allow_groups=grouped))  # XGBoost keeps the folds' order
        p = copy.deepcopy(params)
        if fpreproc is not None:
            dtr, dte, p = fpreproc(dtr, dte, p)
        packs.append((Booster(p), dtr, dte))

    container = CallbackContainer(cbs)
    view = container.before_training(_PackedBooster([CVPack(dtr, dte, b) for b, dtr, dte in packs]))
    monitors = [c for c in cbs if isinstance(c, EvaluationMonitor)]
    try:
        for b, dtr, dte in packs:
            b._note_categories(dtr)
            if obj is not None:
                b._set_objective(obj, dtr)
            if custom_metric is not None:
                b._set_custom_metric(custom_metric, output_margin=obj is not None, maximize=maximize,
                                     datasets=[dtr, dte])
        if int(num_boost_round) > 0 and not container.before_iteration(view, 0):
            _drive([b for b, _, _ in packs], [dtr for _, dtr, _ in packs],
                   [[(dtr, "train"), (dte, "test")] for _, dtr, dte in packs], int(num_boost_round),
                   container, 0, folds=True, show_stdv=any(m.show_stdv for m in monitors), view=view)
    finally:
        for b, dtr, dte in packs:
            b._clear_custom_metric()
            if obj is not None:
                b._clear_objective()
    container.after_training(view)
    history = container.history
    stop = next((c for c in cbs if isinstance(c, EarlyStopping)), None)
    rows = len(next(iter(next(iter(history.values())).values()))) if history else 0
    if stop is not None and stop.stopped and stop.best_iteration is not None:
        rows = stop.best_iteration + 1
    result: Dict[str, List[float]] = {}
    for name in ("train", "test"):
        for metric, pairs in history.get(name, {}).items():
            result[f"{name}-{metric}-mean"] = [m for m, _ in pairs[:rows]]
            result[f"{name}-{metric}-std"] = [s for _, s in pairs[:rows]]
    if as_pandas:
        try:
            import pandas as pd
        except ImportError:
            return result
        return pd.DataFrame.from_dict(result)
    return result
