"""scikit-learn estimators: GBTClassifier, GBTRegressor and GBTRanker, and
the random forests GBTRFClassifier and GBTRFRegressor.

They follow scikit-learn's conventions (parameters in ``__init__`` stored as
given and validated in ``fit``, fitted attributes ending in ``_``,
``validate_data`` for inputs) and pass ``sklearn.utils.estimator_checks``.
Inside ``gbt.collective.CommunicatorContext()`` their ``fit`` trains across
the MPI processes, each on its own rows, as XGBoost's estimators do.
"""
from __future__ import annotations

import collections.abc
import functools
import inspect
import json
import numbers
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, _num_samples, check_is_fitted, validate_data

from . import collective
from .core import ArrayLike, Booster, Dataset, _category_frame, _is_pandas_df  # noqa: F401 (ArrayLike: XGBoost's)
from .training import train


def _weights(w: Any, X: Any, what: str) -> np.ndarray:
    """scikit-learn's checked sample weights; one per row, else XGBoost's words."""
    try:
        return _check_sample_weight(w, X, dtype=np.float64, ensure_non_negative=True)
    except ValueError as e:
        n = _num_samples(X)
        if w is not None and not np.isscalar(w) and _num_samples(w) != n:
            raise ValueError(f"Invalid size of sample weight: {what} has {_num_samples(w)} for {n} rows") from e
        raise


# XGBoost's typing name of the objective an estimator takes: a name or objective(y_true, y_pred)
SklObjective = Any

__all__ = ["GBTModel", "GBTClassifier", "GBTRegressor", "GBTRanker", "GBTRFClassifier", "GBTRFRegressor",
           "XGBModel", "XGBClassifier", "XGBRegressor", "XGBRanker", "XGBRFClassifier", "XGBRFRegressor"]

#: get_params names that are the estimator's own, not the booster's (XGBoost's ``_wrapper_params``)
_WRAPPER_ONLY = {"importance_type", "kwargs", "missing", "n_estimators", "enable_categorical",
                 "early_stopping_rounds", "callbacks", "feature_types", "feature_weights"}

# scikit-learn name -> the library's name (the library takes most of these as
# aliases already; the table keeps what is sent explicit).
_PARAM_NAMES = {
    "max_depth": "max_depth", "learning_rate": "eta", "max_leaves": "max_leaves",
    "grow_policy": "grow_policy", "max_bin": "max_bin", "reg_lambda": "lambda",
    "reg_alpha": "alpha", "gamma": "gamma", "min_child_weight": "min_child_weight",
    "max_delta_step": "max_delta_step", "subsample": "subsample",
    "colsample_bytree": "colsample_bytree", "colsample_bylevel": "colsample_bylevel",
    "colsample_bynode": "colsample_bynode", "scale_pos_weight": "scale_pos_weight",
    "huber_slope": "huber_slope", "tweedie_variance_power": "tweedie_variance_power",
    "quantile_alpha": "quantile_alpha",
    "base_score": "base_score", "device": "device", "verbosity": "verbosity",
    "histogram_pool_size": "histogram_pool_size",
    # XGBoost's: the library takes tree_method (hist; others warn) and booster
    # (gbtree); the rest are accepted by gbt.Booster with a warning when set
    # to something gbt does not do (see core._XGB_ONLY)
    "tree_method": "tree_method", "booster": "booster", "sampling_method": "sampling_method",
    "num_parallel_tree": "num_parallel_tree", "monotone_constraints": "monotone_constraints",
    "interaction_constraints": "interaction_constraints", "validate_parameters": "validate_parameters",
    "max_cat_to_onehot": "max_cat_to_onehot", "max_cat_threshold": "max_cat_threshold",
    "multi_strategy": "multi_strategy",
}

_ACCEPT_SPARSE = ["csr", "csc"]


def _keyword_args(func: Any) -> Any:
    """XGBoost's transition for keyword-only parameters: arguments passed by
    position past the positional ones still bind to the keyword-only ones in
    order (a later keyword of the same name loses, as in XGBoost), with a
    FutureWarning.  The signature stays keyword-only (scikit-learn reads it)."""
    sig = inspect.signature(func)
    npos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values())
    kwonly = [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]

    @functools.wraps(func)
    def inner(*args: Any, **kwargs: Any) -> Any:
        extra = len(args) - npos
        if extra <= 0:
            return func(*args, **kwargs)
        if extra > len(kwonly):
            raise TypeError(f"{func.__qualname__}() takes {npos - 1} positional arguments but "
                            f"{len(args) - 1} were given")
        names = kwonly[:extra]
        warnings.warn(f"Pass `{', '.join(names)}` as keyword args.  Passing these as positional "
                      "arguments will be considered as error in future releases.", FutureWarning,
                      stacklevel=2)
        kwargs.update(zip(names, args[npos:]))
        return func(*args[:npos], **kwargs)
    return inner


class GBTModel(BaseEstimator):
    """The base of the gbt estimators, and XGBoost's ``XGBModel``
    (``gbt.XGBModel`` is this class): fitted directly, it trains with
    ``objective`` as given (default ``reg:squarederror``) on numeric labels.

    Parameters
    ----------
    n_estimators : int, default 100
        Boosting rounds.
    max_depth, learning_rate, max_leaves, grow_policy, max_bin, reg_lambda, reg_alpha, gamma, min_child_weight, max_delta_step, subsample, colsample_bytree, colsample_bylevel, colsample_bynode, scale_pos_weight, huber_slope, tweedie_variance_power, quantile_alpha, base_score, device, verbosity, histogram_pool_size, max_cat_to_onehot, max_cat_threshold : optional
        The booster parameters of the same (or XGBoost's) names; None keeps
        the library's default (``gbt.params_info()`` lists them with their
        defaults and ranges).
    objective : str or callable, optional
        Default: ``reg:squarederror`` (regressor), ``binary:logistic`` or
        ``multi:softprob`` (classifier, from the number of classes).  A
        callable is a custom objective, as in XGBoost's estimators:
        ``objective(y_true, y_pred) -> (grad, hess)`` (with a
        ``sample_weight`` keyword when the fit has weights), y_pred the raw
        scores; the booster's objective is then the default above (it gives
        the prediction transform).  Not for GBTRanker.
    eval_metric : str, callable or list, optional
        Metrics computed on ``eval_set`` each round: names, and at most one
        callable ``eval_metric(y_true, y_pred[, sample_weight=]) -> value``
        (a scikit-learn metric such as ``mean_absolute_error``), reported
        under its function's name after the built-in ones and so deciding
        early stopping; y_pred are predictions (probabilities for the
        classifier), or raw scores with a callable objective.  GBTRanker,
        as XGBoost's, calls ``eval_metric(y_true, y_score)`` on each query
        and averages the values weighted by the queries' sizes (1.0 for a
        query of one row).
    early_stopping_rounds : int, optional
        Stop when the last metric on the last ``eval_set`` has not improved
        for this many rounds.  As in XGBoost 3.2 the model keeps every round
        trained and records the best one (``best_iteration``); ``predict``,
        ``predict_proba`` and ``apply`` use rounds ``0 .. best_iteration``
        unless given ``iteration_range``.  ``callbacks=
        [gbt.callback.EarlyStopping(rounds=N, save_best=True)]`` keeps only
        those rounds.
    random_state : int, RandomState or None
        The seed of row and feature sampling (None: 0).
    n_jobs : int, optional
        CPU threads (None, 0 or negative: all cores).  The model does not
        depend on it.
    missing : float, default nan
        Values equal to this are missing, besides NaN.
    feature_types : list of str, optional
        XGBoost's ``feature_types``: ``"q"`` (numeric) or ``"c"``
        (categorical) for each column of X; categorical columns hold
        category codes (see :class:`gbt.Dataset`).
    importance_type : str, optional
        What ``feature_importances_`` measures: ``gain`` (the default, as
        XGBoost's estimators), ``weight``, ``cover``, ``total_gain`` or
        ``total_cover``; see :meth:`gbt.Booster.feature_importances`.
    booster, tree_method : str, optional
        The library's parameters (``gbtree``; ``hist``, others warn).
    monotone_constraints : tuple, list, dict or str, optional
        As XGBoost's: one of -1, 0, 1 per feature (``(1, 0, -1)``; features
        past a shorter list are unconstrained), or a dict
        by feature name (``{"age": 1}``, names from a DataFrame's columns).
    interaction_constraints : list of lists or str, optional
        As XGBoost's: ``[[0, 1], [2, 3, 4]]``, indices or feature names.
    sampling_method, num_parallel_tree, validate_parameters, multi_strategy : optional
        XGBoost's; gbt has no such thing: accepted, and ignored with a
        warning unless the value means what gbt does anyway.
    enable_categorical : bool, default False
        XGBoost's flag: a DataFrame's ``category`` columns are categorical
        features (their codes, see :class:`gbt.Dataset`); their categories
        are kept with the model, so frames whose categories come in another
        order predict correctly.  Without it such columns are refused.
    feature_weights : array-like of shape (n_features,), optional
        Each feature's weight in the column sampling draws (XGBoost's
        ``feature_weights``; ``fit(feature_weights=)`` wins over it).
    callbacks : list of gbt.callback.TrainingCallback, optional
        Passed to :func:`gbt.train` on every ``fit``.
    **kwargs
        More booster parameters by the library's names or aliases
        (``eta=0.1``, ``lambda=1``), as XGBoost's estimators take them;
        ``get_params`` returns them and ``clone`` keeps them.
    """

    @_keyword_args
    def __init__(self, *, n_estimators: int = 100, max_depth: Optional[int] = None,
                 learning_rate: Optional[float] = None, max_leaves: Optional[int] = None,
                 grow_policy: Optional[str] = None, max_bin: Optional[int] = None,
                 reg_lambda: Optional[float] = None, reg_alpha: Optional[float] = None,
                 gamma: Optional[float] = None, min_child_weight: Optional[float] = None,
                 max_delta_step: Optional[float] = None, subsample: Optional[float] = None,
                 colsample_bytree: Optional[float] = None, colsample_bylevel: Optional[float] = None,
                 colsample_bynode: Optional[float] = None, scale_pos_weight: Optional[float] = None,
                 huber_slope: Optional[float] = None, tweedie_variance_power: Optional[float] = None,
                 quantile_alpha: Any = None, base_score: Optional[float] = None, objective: Optional[str] = None,
                 eval_metric: Any = None, early_stopping_rounds: Optional[int] = None,
                 random_state: Any = None, n_jobs: Optional[int] = None, device: Optional[str] = None,
                 verbosity: Optional[int] = None, missing: float = np.nan,
                 importance_type: Optional[str] = None, histogram_pool_size: Optional[float] = None,
                 booster: Optional[str] = None,
                 tree_method: Optional[str] = None, sampling_method: Optional[str] = None,
                 num_parallel_tree: Optional[int] = None, monotone_constraints: Any = None,
                 interaction_constraints: Any = None, validate_parameters: Optional[bool] = None,
                 enable_categorical: bool = False, feature_types: Any = None, feature_weights: Any = None,
                 max_cat_to_onehot: Optional[int] = None, max_cat_threshold: Optional[int] = None,
                 multi_strategy: Optional[str] = None, callbacks: Optional[List[Any]] = None,
                 **kwargs: Any):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.max_leaves = max_leaves
        self.grow_policy = grow_policy
        self.max_bin = max_bin
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_delta_step = max_delta_step
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.colsample_bylevel = colsample_bylevel
        self.colsample_bynode = colsample_bynode
        self.scale_pos_weight = scale_pos_weight
        self.huber_slope = huber_slope
        self.tweedie_variance_power = tweedie_variance_power
        self.quantile_alpha = quantile_alpha
        self.base_score = base_score
        self.objective = objective
        self.eval_metric = eval_metric
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.device = device
        self.verbosity = verbosity
        self.missing = missing
        self.importance_type = importance_type
        self.histogram_pool_size = histogram_pool_size
        self.booster = booster
        self.tree_method = tree_method
        self.sampling_method = sampling_method
        self.num_parallel_tree = num_parallel_tree
        self.monotone_constraints = monotone_constraints
        self.interaction_constraints = interaction_constraints
        self.validate_parameters = validate_parameters
        self.enable_categorical = enable_categorical
        self.feature_types = feature_types
        self.feature_weights = feature_weights
        self.max_cat_to_onehot = max_cat_to_onehot
        self.max_cat_threshold = max_cat_threshold
        self.multi_strategy = multi_strategy
        self.callbacks = callbacks
        if kwargs:
            # XGBoost's **kwargs: more booster parameters by the library's names
            # (eta=, lambda=, ...), kept as given and returned by get_params
            self.kwargs = kwargs

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        params = super().get_params(deep)
        kwargs = getattr(self, "kwargs", None)
        if isinstance(kwargs, dict):
            params.update(kwargs)
        return params

    def set_params(self, **params: Any) -> "GBTModel":
        if not params:
            return self
        valid = set(super().get_params(deep=False))
        for key, value in params.items():
            if key in valid:
                setattr(self, key, value)
            else:  # a booster parameter by the library's name, as XGBoost takes it
                if not hasattr(self, "kwargs"):
                    self.kwargs = {}
                self.kwargs[key] = value
        if hasattr(self, "_Booster"):  # a fitted model takes them too, as XGBoost's (eval_metric for eval_set)
            names = {_PARAM_NAMES.get(k, k) for k in params}
            given = {k: v for k, v in self._booster_params().items() if k in names}
            if given:
                self._Booster.set_param(given)
        return self

    def evals_result(self) -> Dict[str, Dict[str, List[float]]]:
        """The metric history of ``eval_set`` (XGBoost's method): ``{"validation_0": {metric: [...]}}``."""
        check_is_fitted(self, "_Booster")
        return self.evals_result_

    @property
    def best_iteration(self) -> int:
        """The best round early stopping recorded (0-based); AttributeError
        without one, as XGBoost's (:attr:`best_iteration_` gives None)."""
        return self.get_booster().best_iteration

    @property
    def best_score(self) -> float:
        """The watched metric's value in ``best_iteration``; AttributeError
        without one, as XGBoost's (:attr:`best_score_` gives None)."""
        return self.get_booster().best_score

    def get_num_boosting_rounds(self) -> int:
        """The rounds ``fit`` trains (``n_estimators``)."""
        return self._rounds()

    def get_xgb_params(self) -> Dict[str, Any]:
        """XGBoost's: ``get_params()`` less what only the estimator uses
        (``n_estimators``, ``missing``, ``callbacks``, ... and callables),
        by the estimator's names, with a numpy ``random_state`` drawn to
        the int seed (as XGBoost draws it)."""
        params = {k: v for k, v in self.get_params().items() if k not in _WRAPPER_ONLY and not callable(v)}
        if "random_state" in params:
            params["random_state"] = _seed(params["random_state"])
        return params

    def _get_type(self) -> Optional[str]:
        """XGBoost's name for the kind of estimator (``"classifier"``, ...)."""
        return self._kind()

    def _kind(self) -> Optional[str]:
        """XGBoost's ``_estimator_type``: what the model file records of the estimator."""
        for cls, kind in ((GBTRanker, "ranker"), (GBTClassifier, "classifier"), (GBTRegressor, "regressor")):
            if isinstance(self, cls):
                return kind
        return None

    def save_model(self, fname: Any) -> None:
        """Save the fitted model (:meth:`gbt.Booster.save_model`: gbt's JSON for
        a ``.json`` name, XGBoost's UBJSON for any other), with XGBoost's
        ``scikit_learn`` attribute naming the kind of estimator (``{"_estimator_type":
        "classifier"}``), which :meth:`load_model` checks."""
        b = self.get_booster()
        b.set_attr(scikit_learn=json.dumps({"_estimator_type": self._kind()}))
        try:
            b.save_model(fname)
        finally:
            b.set_attr(scikit_learn=None)

    def load_model(self, fname: Any) -> None:
        """Load a model saved by :meth:`save_model` (or any gbt model, or XGBoost
        JSON or UBJSON model) into this estimator.  ``n_features_in_`` comes from the model;
        a classifier's ``classes_`` become ``0 .. n_classes - 1`` (the model
        does not store the original labels), and ``objective``, ``booster``
        and ``feature_types`` the model's (``enable_categorical`` when one is
        ``"c"``), as in XGBoost.  A model an estimator of another
        kind saved (a classifier's in a regressor) is refused with XGBoost's
        TypeError."""
        b = Booster(model_file=fname)
        meta = b.attr("scikit_learn")
        if meta is not None:
            kind = json.loads(meta).get("_estimator_type")
            if kind is not None and kind != self._kind():
                raise TypeError(f"Loading an estimator with different type. Expecting: {self._kind()}, got: {kind}")
            b.set_attr(scikit_learn=None)
        self._Booster = b
        # as XGBoost's load_model: the model's objective and booster become the estimator's
        self.objective, self.booster = b.get_param("objective"), b.get_param("booster")
        # and its feature types, categorical ones setting enable_categorical (as XGBoost's)
        self.feature_types = b.feature_types
        self.enable_categorical = self.feature_types is not None and "c" in self.feature_types
        self._categories_ = None  # the loaded model's own (Booster._categories) from now on
        self.n_features_in_ = b.num_features()
        names = b.feature_names
        if names is not None:
            self.feature_names_in_ = np.array(names, dtype=object)
        self.evals_result_ = {}
        self._loaded_hook(b)

    def _loaded_hook(self, b: Booster) -> None:
        pass

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    # -- helpers
    def _booster_params(self) -> Dict[str, Any]:
        params: Dict[str, Any] = {}
        for name, cname in _PARAM_NAMES.items():
            v = getattr(self, name)
            if v is not None:
                params[cname] = v
        seed = _seed(self.random_state)
        if seed is not None:
            if int(seed) < 0:
                raise ValueError(f"random_state must be >= 0; got {seed}")
            params["seed"] = int(seed)
        if self.n_jobs is not None:
            params["nthread"] = max(0, int(self.n_jobs))
        kwargs = getattr(self, "kwargs", None)
        if isinstance(kwargs, dict):
            for k, v in kwargs.items():
                if v is not None:
                    params[k] = v
        if self.eval_metric is not None and not callable(self.eval_metric):
            names = [self.eval_metric] if isinstance(self.eval_metric, str) else self.eval_metric
            if not isinstance(names, collections.abc.Sequence):
                raise TypeError(f"Invalid type for the `eval_metric`: {type(names)}")
            for m in names:
                if not (callable(m) or isinstance(m, str)):
                    raise TypeError(f"Invalid type for the `eval_metric`: {type(m)}")
            builtin = [m for m in names if not callable(m)]
            if len(names) - len(builtin) > 1:  # XGBoost's error
                raise NotImplementedError("Using multiple custom metrics is not yet supported.")
            if builtin:
                params["eval_metric"] = builtin
        return params

    def _custom_functions(self) -> Tuple[Any, Any]:
        """XGBoost's scikit-learn conventions for callables: ``objective(y_true,
        y_pred[, sample_weight=]) -> (grad, hess)`` and ``eval_metric(y_true,
        y_pred[, sample_weight=]) -> value`` (named by the function), wrapped
        as :func:`gbt.train`'s ``obj`` and ``custom_metric``."""
        obj = metric = None
        if callable(self.objective):
            func = self.objective
            takes_weight = "sample_weight" in inspect.signature(func).parameters

            def obj(preds: np.ndarray, data: Dataset) -> Any:
                w = data.get_weight()
                w = w if w.size else None
                if w is not None and not takes_weight:
                    raise ValueError("the objective has no sample_weight parameter but the fit has "
                                     "sample weights")
                if w is not None:
                    return func(data.get_label(), preds, sample_weight=w)
                return func(data.get_label(), preds)
        m = self.eval_metric
        mfunc = m if callable(m) else next((f for f in (m if isinstance(m, (list, tuple)) else [])
                                            if callable(f)), None)
        if mfunc is not None:
            def metric(preds: np.ndarray, data: Dataset) -> Tuple[str, float]:
                w = data.get_weight()
                if not w.size:
                    return mfunc.__name__, mfunc(data.get_label(), preds)
                return mfunc.__name__, mfunc(data.get_label(), preds, sample_weight=w)
        return obj, metric

    def _rounds(self) -> int:
        n = self.n_estimators
        if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n_estimators must be a positive integer; got {n!r}")
        return int(n)

    def _encode_categories(self, X: Any, fit: bool) -> Any:
        """A DataFrame's ``category`` columns as category codes (float
        columns of the same names), with ``enable_categorical``; refused
        without it, as XGBoost refuses them.  On fit the categories are
        kept (``_categories_``, and with the model); afterwards a frame is
        recoded to them (categories in another order predict correctly)."""
        if not _is_pandas_df(X):
            if fit:
                self._categories_, self._category_types_ = None, None
            return X
        target = None
        if not fit:
            target = getattr(self, "_categories_", None)
            if target is None and hasattr(self, "_Booster"):
                target = self._Booster._categories()
        coded, types, cats = _category_frame(X, bool(self.enable_categorical), target)
        if fit:
            self._categories_, self._category_types_ = (cats or None), types
        return coded

    def _validate_X(self, X: Any, reset: bool) -> Any:
        X = self._encode_categories(_series_as_frame(X), fit=False)
        _refuse_non_numeric_columns(X)
        # prediction takes no rows too (an empty result), as XGBoost's
        try:
            return validate_data(self, X, reset=reset, accept_sparse=_ACCEPT_SPARSE,
                                 dtype=[np.float32, np.float64], ensure_all_finite="allow-nan",
                                 ensure_min_samples=1 if reset else 0)
        except ValueError as e:  # XGBoost's words first, then scikit-learn's details
            if str(e).startswith("The feature names should match"):
                raise ValueError(f"feature_names mismatch: {e}") from None
            raise

    def _validate_fit(self, X: Any, y: Any, **checks: Any) -> Tuple[Any, Any]:
        """fit's X and y, checked as XGBoost's fit checks them (its errors for
        None and for labels that are not finite), then by scikit-learn's
        ``validate_data``."""
        if X is None:
            raise TypeError("Not supported type for data: NoneType")
        if y is None:  # scikit-learn's words, after XGBoost's
            what = "Invalid classes inferred from unique values of `y`" if self._kind() == "classifier" \
                else "No labels"
            raise ValueError(f"{what}: {type(self).__name__} requires y to be passed, but the target y is None")
        X = self._encode_categories(_series_as_frame(X), fit=True)
        _refuse_non_numeric_columns(X)
        try:
            return validate_data(self, X, y, accept_sparse=_ACCEPT_SPARSE, dtype=[np.float32, np.float64],
                                 ensure_all_finite="allow-nan", **checks)
        except ValueError as e:
            if str(e).startswith("Input y contains"):
                raise ValueError(f"Label contains NaN, infinity or a value too large ({e})") from None
            raise

    def _dataset(self, X: Any, y: Any = None, weight: Any = None, base_margin: Any = None) -> Dataset:
        missing = np.nan if self.missing is None else float(self.missing)
        return Dataset(X, label=y, weight=weight, base_margin=base_margin, missing=missing)

    def _fit(self, X: Any, y: np.ndarray, sample_weight: Any, eval_set: Any,
             sample_weight_eval_set: Any, base_margin: Any, verbose: Any, params: Dict[str, Any],
             encode, xgb_model: Any = None, base_margin_eval_set: Any = None,
             feature_weights: Any = None) -> "GBTModel":
        rounds = self._rounds()
        if sample_weight is not None:
            sample_weight = _weights(sample_weight, X, "sample_weight")
            # A row of weight 0 is a row that is not there (scikit-learn's
            # definition); left in, its values would still become bin cuts.
            keep = sample_weight > 0
            if not keep.all():
                if not keep.any():
                    raise ValueError("every sample_weight is 0: nothing to fit")
                X, y, sample_weight = X[keep], y[keep], sample_weight[keep]
                if base_margin is not None:
                    base_margin = np.asarray(base_margin)[keep]
        dtrain = self._dataset(X, y, sample_weight, base_margin)
        self._set_feature_weights(dtrain, feature_weights)
        names = getattr(self, "feature_names_in_", None)
        if names is not None:  # stored in the model (gbt_dataset_set_feature_names)
            dtrain.feature_names = [str(c) for c in names]
        if self.feature_types is not None:  # stored in the model too
            dtrain.feature_types = self.feature_types
        elif getattr(self, "_categories_", None):  # a DataFrame's category columns
            dtrain.feature_types = self._category_types_
        if getattr(self, "_categories_", None):  # kept with the model (Booster._note_categories)
            dtrain._categories = dict(self._categories_)
        evals: List[Tuple[Dataset, str]] = []
        if eval_set is not None:
            if sample_weight_eval_set is not None and len(sample_weight_eval_set) != len(eval_set):
                raise ValueError(f"sample_weight_eval_set has {len(sample_weight_eval_set)} entries "
                                 f"but eval_set {len(eval_set)}")
            for i, pair in enumerate(eval_set):
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise ValueError(f"eval_set[{i}] must be an (X, y) pair")
                Xv, yv = pair
                Xv = self._validate_X(Xv, reset=False)
                yv = encode(np.asarray(yv))
                if yv.shape[0] != Xv.shape[0]:
                    raise ValueError(f"eval_set[{i}]: X has {Xv.shape[0]} rows but y {yv.shape[0]}")
                wv = None
                if sample_weight_eval_set is not None and sample_weight_eval_set[i] is not None:
                    wv = _weights(sample_weight_eval_set[i], Xv, f"sample_weight_eval_set[{i}]")
                bmv = base_margin_eval_set[i] if base_margin_eval_set is not None else None
                evals.append((self._dataset(Xv, yv, wv, bmv), f"validation_{i}"))
        if self.early_stopping_rounds and not evals:
            raise ValueError("early_stopping_rounds needs eval_set")
        history: Dict[str, Dict[str, List[float]]] = {}
        obj, metric = self._custom_functions()
        self._Booster = train(params, dtrain, rounds, evals=evals,
                              early_stopping_rounds=self.early_stopping_rounds or None,
                              evals_result=history, verbose_eval=verbose, obj=obj,
                              custom_metric=metric, xgb_model=_booster_of(xgb_model),
                              callbacks=self.callbacks)
        self.evals_result_ = history
        return self

    # -- public
    def get_booster(self) -> Booster:
        """The fitted :class:`gbt.Booster`."""
        check_is_fitted(self, "_Booster")
        return self._Booster

    @property
    def best_iteration_(self) -> Optional[int]:
        """The best round of early stopping (0-based), or None."""
        v = self.get_booster().attr("best_iteration")
        return int(v) if v is not None else None

    @property
    def best_score_(self) -> Optional[float]:
        """The validation score of ``best_iteration_``, or None."""
        v = self.get_booster().attr("best_score")
        return float(v) if v is not None else None

    @property
    def feature_importances_(self) -> np.ndarray:
        """Feature importance as XGBoost's estimators give it: ``importance_type``
        (default ``gain``; ``weight``, the coefficients, for booster="gblinear")
        per feature, 0 for unused ones, divided by the sum (float32; all zeros
        when no tree splits)."""
        b = self.get_booster()
        linear = b.get_param("booster") == "gblinear"  # XGBoost's default there: the coefficients
        values = b.feature_importances(self.importance_type or ("weight" if linear else "gain")).astype(np.float32)
        total = values.sum()
        return values if total == 0 else values / total

    def _linear_dump(self) -> Dict[str, Any]:
        b = self.get_booster()
        if b.get_param("booster") != "gblinear":
            raise AttributeError(f"coef_ is defined for booster='gblinear' only, not "
                                 f"{b.get_param('booster')!r}")
        return json.loads(b.get_dump(dump_format="json")[0])

    @property
    def coef_(self) -> np.ndarray:
        """booster='gblinear': the weights as XGBoost's estimators give them (feature by
        feature, output by output; with more than 2 classes reshaped to (n_classes, -1)
        as XGBoost reshapes them)."""
        coef = np.array(self._linear_dump()["weight"])
        n_classes = getattr(self, "n_classes_", None)
        if n_classes is not None and n_classes > 2:
            coef = coef.reshape((n_classes, -1))
        return coef

    @property
    def intercept_(self) -> np.ndarray:
        """booster='gblinear': the bias of each output (without base_score, as XGBoost);
        float32 as XGBoost gives it;
        a tree model's: its ``base_score``, one per output (XGBoost 3.2's, from
        :meth:`gbt.Booster.save_config`), float32 as XGBoost gives them."""
        b = self.get_booster()
        if b.get_param("booster") != "gblinear":
            param = json.loads(b.save_config())["learner"]["learner_model_param"]
            return np.array(json.loads(param["base_score"]), dtype=np.float32)
        return np.array(self._linear_dump()["bias"], dtype=np.float32)

    def _iteration_range(self, iteration_range: Optional[Tuple[int, int]]) -> Tuple[int, int]:
        # XGBoost's rule: no range (or an open one) means up to best_iteration
        # when early stopping recorded one, else every round.
        if self.get_booster().get_param("booster") == "gblinear":
            return (0, 0)  # as XGBoost: a linear model predicts with all its rounds
        if iteration_range is None or iteration_range[1] == 0:
            best = self.best_iteration_
            return (0, best + 1) if best is not None else (0, 0)
        return iteration_range

    def _predict_raw(self, X: Any, output_margin: bool = False,
                     iteration_range: Optional[Tuple[int, int]] = None, base_margin: Any = None) -> np.ndarray:
        check_is_fitted(self, "_Booster")
        X = self._validate_X(X, reset=False)
        missing = np.nan if self.missing is None else float(self.missing)
        if base_margin is not None:
            X = self._dataset(X, base_margin=base_margin)
        return self._Booster.predict(X, output_margin=output_margin, missing=missing,
                                     validate_features=False,
                                     iteration_range=self._iteration_range(iteration_range))

    def apply(self, X: Any, iteration_range: Optional[Tuple[int, int]] = None) -> np.ndarray:
        """The leaf each row reaches in each tree, shape (n_samples, n_trees)."""
        check_is_fitted(self, "_Booster")
        X = self._validate_X(X, reset=False)
        missing = np.nan if self.missing is None else float(self.missing)
        return self._Booster.predict(X, pred_leaf=True, missing=missing, validate_features=False,
                                     iteration_range=self._iteration_range(iteration_range))

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "_Booster")

    def _set_feature_weights(self, dtrain: Dataset, feature_weights: Any) -> None:
        """fit's feature_weights, else the constructor's, on the training set."""
        w = feature_weights if feature_weights is not None else self.feature_weights
        if w is not None:
            dtrain.set_feature_weights(w)

    @_keyword_args
    def fit(self, X: Any, y: Any, *, sample_weight: Any = None, base_margin: Any = None,
            eval_set: Optional[Sequence] = None, verbose: Any = True, xgb_model: Any = None,
            sample_weight_eval_set: Optional[Sequence] = None, base_margin_eval_set: Optional[Sequence] = None,
            feature_weights: Any = None) -> "GBTModel":
        """Fit with ``objective`` as given (default ``reg:squarederror``) and
        labels as numbers: XGBoost's ``XGBModel.fit``.  The parameters are
        :meth:`GBTRegressor.fit`'s."""
        X, y = self._validate_fit(X, y, y_numeric=True, multi_output=True)
        params = self._booster_params()
        params["objective"] = (None if callable(self.objective) else self.objective) or "reg:squarederror"
        y = _targets(y)
        return self._fit(X, y, sample_weight, eval_set,
                         sample_weight_eval_set, base_margin, verbose, params,
                         lambda v: _targets(v, y.ndim), xgb_model,
                         base_margin_eval_set, feature_weights)

    def predict(self, X: Any, output_margin: bool = False, validate_features: bool = True,
                base_margin: Any = None, iteration_range: Optional[Tuple[int, int]] = None) -> np.ndarray:
        """The booster's predictions (float32), or raw scores with ``output_margin``.
        ``iteration_range``: rounds ``[begin, end)``; default up to
        ``best_iteration_`` when there is one, else every round."""
        return self._predict_raw(X, output_margin, iteration_range, base_margin)


def _series_as_frame(X: Any) -> Any:
    """A pandas Series as X is one feature (a frame of that one column), as XGBoost reads it."""
    if type(X).__module__.startswith("pandas") and type(X).__name__ == "Series":
        return X.to_frame()
    return X


def _seed(seed: Any) -> Optional[int]:
    """random_state as the booster's seed: an int as given, a draw from a
    numpy RandomState or Generator (as XGBoost draws it), or None."""
    if isinstance(seed, np.random.RandomState):
        return int(seed.randint(np.iinfo(np.int32).max))
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(np.iinfo(np.int32).max))
    if seed is not None and not isinstance(seed, numbers.Integral):
        raise ValueError(f"random_state must be an int, a numpy RandomState or Generator, or None; got {seed!r}")
    return None if seed is None else int(seed)


def _column_vector_warning() -> None:
    """scikit-learn's warning for y of one column, read as one target.  The
    estimators accept several targets but leave the multi_output tag unset: its
    check wants float64 predictions where gbt gives XGBoost's float32."""
    from sklearn.exceptions import DataConversionWarning

    warnings.warn("A column-vector y was passed when a 1d array was expected; it is read as one target",
                  DataConversionWarning, stacklevel=4)


def _targets(y: Any, ndim: Optional[int] = None) -> np.ndarray:
    """Labels as float64: a vector, or (n, T) for T targets per row (multi-target;
    a single column becomes a vector); ndim: the training labels' (eval_set's must match)."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 2 and y.shape[1] == 1:
        _column_vector_warning()
        y = y.reshape(-1)
    if y.ndim > 2 or (ndim is not None and y.ndim != ndim):
        want = "one value per row" if ndim == 1 else "(n_samples, n_targets)" if ndim else "at most 2 dimensions"
        raise ValueError(f"the labels have shape {y.shape}; expected {want}")
    return y


def _booster_of(model: Any) -> Any:
    """fit's ``xgb_model``: a Booster, a fitted estimator, a path or None."""
    if isinstance(model, GBTModel):
        return model.get_booster()
    return model


def _refuse_non_numeric_columns(X: Any) -> None:
    """A DataFrame with non-numeric columns is refused with the columns named
    (category columns have become codes by now, or been refused)."""
    if type(X).__module__.startswith("pandas") and hasattr(X, "dtypes") and hasattr(X, "columns"):
        import pandas as pd
        bad = [f"'{c}' ({t})" for c, t in X.dtypes.items()
               if not (pd.api.types.is_bool_dtype(t) or (pd.api.types.is_numeric_dtype(t)
                                                         and not pd.api.types.is_complex_dtype(t)))]
        if bad:
            raise ValueError("gbt takes numeric, boolean and (with enable_categorical=True) category "
                             "DataFrame columns only; not numeric: " + ", ".join(bad) +
                             " (encode them as numbers, or as a pandas category column)")


class GBTRegressor(RegressorMixin, GBTModel):
    """Gradient-boosted trees for regression, with scikit-learn's interface.

    See :class:`GBTModel` for the parameters.  ``objective`` defaults to
    ``reg:squarederror``; any regression objective of the library works
    (``reg:absoluteerror``, ``reg:pseudohubererror``, ``count:poisson``, ``reg:gamma``,
    ``reg:tweedie``...).  ``objective="reg:quantileerror"`` with
    ``quantile_alpha=[0.1, 0.5, 0.9]`` predicts one column per quantile.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X was a DataFrame with string column names.
    evals_result_ : dict
        Metric history on ``eval_set``: ``{"validation_0": {metric: [...]}}``.
    best_iteration_, best_score_ : after early stopping.

    feature_importances_ : ndarray of float32
        ``importance_type`` (default ``gain``) normalised to sum to 1.
    """

    @_keyword_args
    def __init__(self, *, objective: Any = "reg:squarederror", **kwargs: Any) -> None:
        super().__init__(objective=objective, **kwargs)

    @classmethod
    def _get_param_names(cls) -> List[str]:
        # GBTModel's parameters (this __init__ only sets objective's default, as XGBRegressor's)
        return GBTModel._get_param_names()

    @_keyword_args
    def fit(self, X: Any, y: Any, *, sample_weight: Any = None, base_margin: Any = None,
            eval_set: Optional[Sequence] = None, verbose: Any = True, xgb_model: Any = None,
            sample_weight_eval_set: Optional[Sequence] = None, base_margin_eval_set: Optional[Sequence] = None,
            feature_weights: Any = None) -> "GBTRegressor":
        """Fit the model.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Several targets train a multi-target model (one tree per target
            and round); predictions are then (n_samples, n_targets).
        sample_weight : array-like of shape (n_samples,), optional
        eval_set : list of (X, y), optional
            Data evaluated after each round (``evals_result_``; early stopping).
        sample_weight_eval_set : list of array-like, optional
        base_margin : array-like, optional
            Starting raw scores per row.
        verbose : bool or int, default True
            Print the eval_set metrics every round (or every N rounds), as
            XGBoost's estimators do (nothing is printed without eval_set).
        xgb_model : Booster, fitted estimator or path, optional
            Continue training from this model (``n_estimators`` more rounds).
        base_margin_eval_set : list of array-like, optional
            Starting raw scores of each ``eval_set`` entry.
        feature_weights : array-like of shape (n_features,), optional
            Each feature's weight in the column sampling draws (XGBoost's
            ``feature_weights``): finite, >= 0, not all 0.

        Returns
        -------
        self
        """
        return super().fit(X, y, sample_weight=sample_weight, base_margin=base_margin, eval_set=eval_set,
                           verbose=verbose, xgb_model=xgb_model, sample_weight_eval_set=sample_weight_eval_set,
                           base_margin_eval_set=base_margin_eval_set, feature_weights=feature_weights)


class GBTClassifier(ClassifierMixin, GBTModel):
    """Gradient-boosted trees for classification, with scikit-learn's interface.

    See :class:`GBTModel` for the parameters.  Labels may be any values
    (strings, non-contiguous integers); they are encoded as 0 .. n_classes-1
    in sorted order.  ``objective`` defaults to ``binary:logistic`` for two
    classes and ``multi:softprob`` (with ``num_class``) for more.  ``y`` of
    shape (n_samples, n_labels) holding 0 and 1 is multi-label
    classification (``binary:logistic`` per label; ``predict`` and
    ``predict_proba`` give (n_samples, n_labels)), as XGBoost's.

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X was a DataFrame with string column names.
    evals_result_ : dict
    best_iteration_, best_score_ : after early stopping.

    feature_importances_ : ndarray of float32
        ``importance_type`` (default ``gain``) normalised to sum to 1.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True  # y of shape (n, T) of 0 and 1, as XGBClassifier
        return tags

    def _classifier_params(self) -> Dict[str, Any]:
        """The booster's parameters with the objective of ``self.objective``
        (num_class for a multi: one) or, when it is unset or a function, of
        the classes found by fit: binary:logistic for 2, multi:softprob for
        more."""
        params = self._booster_params()
        if self.objective is not None and not callable(self.objective):
            params["objective"] = self.objective
            if self.objective.startswith("multi:"):
                params["num_class"] = self.n_classes_
        elif self.n_classes_ == 2:
            params["objective"] = "binary:logistic"
        else:
            params["objective"] = "multi:softprob"
            params["num_class"] = self.n_classes_
        return params

    @_keyword_args
    def fit(self, X: Any, y: Any, *, sample_weight: Any = None, base_margin: Any = None,
            eval_set: Optional[Sequence] = None, verbose: Any = True, xgb_model: Any = None,
            sample_weight_eval_set: Optional[Sequence] = None, base_margin_eval_set: Optional[Sequence] = None,
            feature_weights: Any = None) -> "GBTClassifier":
        """Fit the model; see :meth:`GBTRegressor.fit` for the parameters."""
        X, y = self._validate_fit(X, y, multi_output=True)
        check_classification_targets(y)
        if np.ndim(y) == 2 and np.shape(y)[1] > 1:
            return self._fit_multilabel(X, np.asarray(y), sample_weight, eval_set, sample_weight_eval_set,
                                        base_margin, verbose, xgb_model, base_margin_eval_set, feature_weights)
        if np.ndim(y) == 2:
            _column_vector_warning()
        y = np.asarray(y).reshape(-1)
        self.classes_ = np.unique(y)
        comm = collective._current()
        if comm is not None:  # training across processes: the classes of every process's rows
            self.classes_ = np.unique(np.concatenate(comm.allgather(self.classes_)))
        y_enc = np.searchsorted(self.classes_, y)
        self.n_classes_ = len(self.classes_)
        if self.n_classes_ < 2:
            raise ValueError(f"the data has only one class ({self.classes_[0]!r}); a classifier "
                             "needs at least 2 classes")
        params = self._classifier_params()

        classes = self.classes_

        def encode(v: np.ndarray) -> np.ndarray:
            v = v.reshape(-1)
            idx = np.searchsorted(classes, v)
            idx = np.clip(idx, 0, len(classes) - 1)
            if not np.all(classes[idx] == v):
                unknown = np.setdiff1d(v, classes)
                raise ValueError(f"eval_set has labels not in the training data: {unknown[:5]!r}")
            return idx.astype(np.float32)

        return self._fit(X, y_enc.astype(np.float32), sample_weight, eval_set, sample_weight_eval_set,
                         base_margin, verbose, params, encode, xgb_model, base_margin_eval_set,
                         feature_weights)

    def _fit_multilabel(self, X: Any, y: np.ndarray, sample_weight: Any, eval_set: Any,
                        sample_weight_eval_set: Any, base_margin: Any, verbose: Any, xgb_model: Any,
                        base_margin_eval_set: Any, feature_weights: Any) -> "GBTClassifier":
        """Multi-label classification, as XGBoost's: y of shape (n, T) holding 0 and 1,
        one binary:logistic output per label column (classes_ [0, 1])."""
        self.classes_ = np.array([0, 1])
        self.n_classes_ = 2
        if not np.isin(y, (0, 1)).all():
            raise ValueError("multi-label classification takes labels of 0 and 1 in every column of y "
                             f"(shape {y.shape}); got {np.setdiff1d(np.unique(y), (0, 1))[:5]!r}")
        params = self._classifier_params()

        def encode(v: np.ndarray) -> np.ndarray:
            v = np.asarray(v, dtype=np.float32)
            if v.ndim != 2 or v.shape[1] != y.shape[1] or not np.isin(v, (0, 1)).all():
                raise ValueError(f"eval_set's labels must be 0 and 1 in {y.shape[1]} columns, as the "
                                 f"training labels; got shape {v.shape}")
            return v

        return self._fit(X, y.astype(np.float32), sample_weight, eval_set, sample_weight_eval_set,
                         base_margin, verbose, params, encode, xgb_model, base_margin_eval_set,
                         feature_weights)

    def _loaded_hook(self, b: Booster) -> None:
        k = int(b.get_param("num_class") or 0)
        self.n_classes_ = k if k > 1 else 2
        self.classes_ = np.arange(self.n_classes_)

    def predict_proba(self, X: Any, validate_features: bool = True, base_margin: Any = None,
                      iteration_range: Optional[Tuple[int, int]] = None) -> np.ndarray:
        """Class probabilities, shape (n_samples, n_classes), columns in ``classes_`` order."""
        obj = self._Booster.get_param("objective") if hasattr(self, "_Booster") else None
        raw = self._predict_raw(X, iteration_range=iteration_range, base_margin=base_margin)
        if obj in ("binary:logistic", "reg:logistic") and raw.ndim == 2:
            return raw.astype(np.float64)  # multi-label: each label's probability of 1, as XGBoost's
        if obj in ("binary:logistic", "reg:logistic"):
            p = raw.astype(np.float64)
            return np.column_stack([1.0 - p, p])
        if obj == "multi:softprob":
            return raw.astype(np.float64).reshape(raw.shape[0], -1)
        raise ValueError(f"predict_proba needs a probabilistic objective (binary:logistic, "
                         f"multi:softprob); this model's objective is {obj}")

    def predict(self, X: Any, output_margin: bool = False, validate_features: bool = True,
                base_margin: Any = None, iteration_range: Optional[Tuple[int, int]] = None) -> np.ndarray:
        """Predicted class labels (from ``classes_``), or raw scores with ``output_margin``."""
        if output_margin:
            return self._predict_raw(X, True, iteration_range, base_margin)
        check_is_fitted(self, "_Booster")
        obj = self._Booster.get_param("objective")
        raw = self._predict_raw(X, iteration_range=iteration_range, base_margin=base_margin)
        if obj in ("binary:logistic", "reg:logistic"):
            idx = (raw > 0.5).astype(np.intp)  # multi-label: (n, T) of 0 and 1
        elif obj == "multi:softprob":
            idx = np.argmax(raw.reshape(raw.shape[0], -1), axis=1)
        elif obj == "binary:logitraw":
            idx = (raw > 0).astype(np.intp)
        else:  # binary:hinge, multi:softmax: the class index itself
            idx = np.asarray(raw, dtype=np.intp)
            idx = idx if idx.ndim == 2 and obj == "binary:hinge" else idx.reshape(-1)
        return self.classes_[idx]


def _group_sizes(n: int, group: Any, qid: Any, what: str) -> np.ndarray:
    """Query group sizes from ``group`` (sizes) or ``qid`` (one id per row, rows
    of a query consecutive), checked against ``n`` rows."""
    if group is None and qid is None:  # XGBoost's words
        raise ValueError(f"{what}: Either `group` or `qid` is required for ranking task")
    if group is not None and qid is not None:
        raise ValueError(f"{what}: give group or qid (one of them)")
    if group is not None:
        sizes = np.asarray(group)
        if sizes.ndim != 1 or sizes.dtype.kind not in "iu" or (sizes.size and sizes.min() < 1):
            raise ValueError(f"{what}: group must be a 1-D array of positive integer group sizes")
        if int(sizes.sum()) != n:
            raise ValueError(f"{what}: group sizes sum to {int(sizes.sum())} but X has {n} rows")
        return sizes.astype(np.uint32)
    q = np.asarray(qid).reshape(-1)
    if q.shape[0] != n:
        raise ValueError(f"{what}: qid has {q.shape[0]} values but X has {n} rows")
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    if len(np.unique(q[starts])) != len(starts):
        raise ValueError(f"{what}: the rows of each query must be consecutive (sort the data by qid)")
    return np.diff(np.r_[starts, q.size]).astype(np.uint32)


def _qid_column(X: Any, qid: Any, what: str) -> Tuple[Any, Any]:
    """XGBoost's special ``qid`` column: a DataFrame's column named ``qid``
    is the query ids (and no feature); given together with ``qid`` it is refused."""
    if _is_pandas_df(X) and "qid" in X.columns:
        if qid is not None:
            raise ValueError(f"{what}: found both the special column `qid` in X and the `qid` "
                             "argument; give one of them")
        return X.drop(columns="qid"), X["qid"].to_numpy()
    return X, qid


class GBTRanker(GBTModel):
    """Gradient-boosted trees for learning to rank, with scikit-learn's interface
    (XGBoost's ``XGBRanker``).

    See :class:`GBTModel` for the parameters.  ``objective`` defaults to
    ``rank:ndcg``; ``rank:pairwise`` and ``rank:map`` work too (the
    library's ``lambdarank_*`` parameters keep their defaults: they are not
    estimator parameters yet).  Rows come in query groups:
    ``fit(X, y, group=sizes)`` or ``fit(X, y, qid=ids)``, rows of a query
    consecutive.  ``predict`` returns one score per row (higher ranks
    first); scores are comparable within a query only.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    evals_result_ : dict
    best_iteration_, best_score_ : after early stopping.
    feature_importances_ : ndarray of float32
    """

    @_keyword_args
    def fit(self, X: Any, y: Any, *, group: Any = None, qid: Any = None, sample_weight: Any = None,
            eval_set: Optional[Sequence] = None, eval_group: Optional[Sequence] = None,
            eval_qid: Optional[Sequence] = None, sample_weight_eval_set: Optional[Sequence] = None,
            base_margin: Any = None, verbose: Any = True, xgb_model: Any = None,
            base_margin_eval_set: Optional[Sequence] = None, feature_weights: Any = None) -> "GBTRanker":
        """Fit the model.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels (graded: 0, 1, 2...).
        group : array-like of int, optional
            Query sizes, in row order (summing to n_samples).
        qid : array-like, optional
            Each row's query id (instead of ``group``).
        sample_weight : array-like of shape (n_groups,), optional
            One weight per query, as XGBoost's rankers take it.
        eval_set : list of (X, y), optional
        eval_group, eval_qid : list of array-like, optional
            The groups of each ``eval_set`` entry.
        """
        X, qid = _qid_column(X, qid, "fit")
        X, y = self._validate_fit(X, y, y_numeric=True)
        sizes = _group_sizes(X.shape[0], group, qid, "fit")
        params = self._booster_params()
        if callable(self.objective):
            raise ValueError("GBTRanker takes objective by name only (rank:ndcg, rank:pairwise, "
                             "rank:map); callables are for GBTRegressor and GBTClassifier")
        params["objective"] = self.objective or "rank:ndcg"
        dtrain = self._dataset(X, np.asarray(y, dtype=np.float64).reshape(-1), None, base_margin)
        dtrain.set_group(sizes)
        self._set_feature_weights(dtrain, feature_weights)
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
            if w.shape[0] != len(sizes):
                raise ValueError("Size of weight must equal to the number of query groups when ranking "
                                 f"group is used: sample_weight has {w.shape[0]} values for "
                                 f"{len(sizes)} query groups (rankers take one weight per group)")
            dtrain.set_weight(w)
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            dtrain.feature_names = [str(c) for c in names]
        if self.feature_types is not None:
            dtrain.feature_types = self.feature_types
        evals: List[Tuple[Dataset, str]] = []
        for i, pair in enumerate(eval_set or []):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ValueError(f"eval_set[{i}] must be an (X, y) pair")
            gv = eval_group[i] if eval_group is not None else None
            Xv, qv = _qid_column(pair[0], eval_qid[i] if eval_qid is not None else None, f"eval_set[{i}]")
            Xv = self._validate_X(Xv, reset=False)
            yv = np.asarray(pair[1], dtype=np.float64).reshape(-1)
            if yv.shape[0] != Xv.shape[0]:
                raise ValueError(f"eval_set[{i}]: X has {Xv.shape[0]} rows but y {yv.shape[0]}")
            dv = self._dataset(Xv, yv, None,
                               base_margin_eval_set[i] if base_margin_eval_set is not None else None)
            dv.set_group(_group_sizes(Xv.shape[0], gv, qv, f"eval_set[{i}]"))
            if sample_weight_eval_set is not None and sample_weight_eval_set[i] is not None:
                dv.set_weight(np.asarray(sample_weight_eval_set[i], dtype=np.float64).reshape(-1))
            evals.append((dv, f"validation_{i}"))
        if self.early_stopping_rounds and not evals:
            raise ValueError("early_stopping_rounds needs eval_set")
        history: Dict[str, Dict[str, List[float]]] = {}
        self._Booster = train(params, dtrain, self._rounds(), evals=evals,
                              early_stopping_rounds=self.early_stopping_rounds or None,
                              evals_result=history, verbose_eval=verbose, xgb_model=_booster_of(xgb_model),
                              callbacks=self.callbacks, custom_metric=self._query_metric())
        self.evals_result_ = history
        return self

    def predict(self, X: Any, output_margin: bool = False, validate_features: bool = True,
                base_margin: Any = None, iteration_range: Optional[Tuple[int, int]] = None) -> np.ndarray:
        """One ranking score per row (float32); higher ranks first within a query.
        A DataFrame's ``qid`` column is left out, as in ``fit``."""
        return self._predict_raw(_qid_column(X, None, "predict")[0], output_margin, iteration_range, base_margin)

    def apply(self, X: Any, iteration_range: Optional[Tuple[int, int]] = None) -> np.ndarray:
        return super().apply(_qid_column(X, None, "apply")[0], iteration_range)

    def _query_metric(self) -> Any:
        """A callable ``eval_metric(y_true, y_score)`` as XGBoost's rankers
        apply it: on each query's rows (1.0 for a query of one row), the
        queries' values averaged weighted by their sizes; named by the function."""
        m = self.eval_metric
        func = m if callable(m) else next((f for f in (m if isinstance(m, (list, tuple)) else [])
                                           if callable(f)), None)
        if func is None:
            return None

        def metric(preds: np.ndarray, data: Dataset) -> Tuple[str, float]:
            sizes = data.get_group()
            if sizes is None:
                raise ValueError(f"eval_metric {func.__name__}: the data has no query groups")
            y, ends = data.get_label(), np.cumsum(sizes)
            values = [1.0 if n == 1 else func(y[e - n:e], preds[e - n:e]) for n, e in zip(sizes, ends)]
            return func.__name__, float(np.average(values, weights=sizes))
        return metric

    def score(self, X: Any, y: Any) -> float:
        """XGBoost's ``XGBRanker.score``: the model's last evaluation metric
        (``ndcg@32`` for ``rank:ndcg`` by default) on X and y, queries by
        X's ``qid`` column (without one, the rows are one query)."""
        X, qid = _qid_column(X, None, "score")
        X = self._validate_X(X, reset=False)
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        d = self._dataset(X, y)
        d.set_group(_group_sizes(X.shape[0], None if qid is not None else [X.shape[0]], qid, "score"))
        metric = self._query_metric()
        if metric is not None and callable(self.eval_metric):  # the one metric is the callable
            return metric(self.get_booster().predict(d), d)[1]
        return float(self.get_booster().eval(d).split("\t")[-1].rsplit(":", 1)[1])


class _Forest:
    """A random forest: one round of ``n_estimators`` parallel trees
    (``num_parallel_tree``), with XGBoost's random-forest defaults:
    ``learning_rate=1``, ``subsample=0.8``, ``colsample_bynode=0.8``,
    ``reg_lambda=1e-5``.  Every tree of the round fits the same gradients
    with ``learning_rate / n_estimators``, so the forest predicts the mean
    of its trees' Newton steps.  ``early_stopping_rounds`` and ``callbacks``
    are refused (one round has nothing to stop), as XGBoost refuses them."""

    @_keyword_args
    def __init__(self, *, learning_rate: float = 1.0, subsample: float = 0.8,
                 colsample_bynode: float = 0.8, reg_lambda: float = 1e-5, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, subsample=subsample,  # type: ignore[call-arg]
                         colsample_bynode=colsample_bynode, reg_lambda=reg_lambda, **kwargs)

    @classmethod
    def _get_param_names(cls) -> List[str]:
        # the estimator's parameters are GBTModel's (this __init__ only changes defaults)
        return GBTModel._get_param_names()

    def _rounds(self) -> int:
        """1: one round of ``n_estimators`` parallel trees."""
        if self.early_stopping_rounds is not None or self.callbacks is not None:  # type: ignore[attr-defined]
            raise NotImplementedError("early_stopping_rounds and callbacks are not implemented for the "
                                      "random forest estimators (they train one round)")
        super()._rounds()  # type: ignore[misc]
        return 1

    def _booster_params(self) -> Dict[str, Any]:
        params = super()._booster_params()  # type: ignore[misc]
        params["num_parallel_tree"] = super()._rounds()  # type: ignore[misc]
        return params

    def get_xgb_params(self) -> Dict[str, Any]:
        params = super().get_xgb_params()  # type: ignore[misc]
        params["num_parallel_tree"] = super()._rounds()  # type: ignore[misc]
        return params


class GBTRFRegressor(_Forest, GBTRegressor):
    __doc__ = "Random forest regression, with scikit-learn's interface.\n\n    " + (_Forest.__doc__ or "") + \
        "\n\n    See :class:`GBTRegressor` for the rest."


class GBTRFClassifier(_Forest, GBTClassifier):
    __doc__ = "Random forest classification, with scikit-learn's interface.\n\n    " + (_Forest.__doc__ or "") + \
        "\n\n    See :class:`GBTClassifier` for the rest."


#: XGBoost's names for the same classes (``import gbt as xgb`` runs XGBoost's scikit-learn code)
XGBModel = GBTModel
XGBRegressor = GBTRegressor
XGBClassifier = GBTClassifier
XGBRanker = GBTRanker
XGBRFRegressor = GBTRFRegressor
XGBRFClassifier = GBTRFClassifier
