"""The Dask estimators of :mod:`gbt.dask` (scikit-learn's interface over
:func:`gbt.dask.train` and :func:`gbt.dask.predict`), loaded on first use."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import dask.array as da
import numpy as np

from . import sklearn as _sk
from .dask import DaskDMatrix, _client, _dask_frame, predict, train

class _DaskModel:
    """What the Dask estimators add to gbt's: ``fit`` on dask collections
    through :func:`train`, ``predict`` through :func:`predict`; ``client``
    (default: the current client).  The booster parameters are the
    scikit-learn estimators' (:class:`gbt.GBTModel`)."""

    @property
    def client(self) -> Any:
        return _client(getattr(self, "_client", None))

    @client.setter
    def client(self, client: Any) -> None:
        self._client = client

    def _dask_fit(self, X: Any, y: Any, params: Dict[str, Any], sample_weight: Any, base_margin: Any,
                  eval_set: Any, sample_weight_eval_set: Any, verbose: Any, xgb_model: Any,
                  qid: Any = None, eval_qid: Any = None) -> "_DaskModel":
        if self.early_stopping_rounds and not eval_set:
            raise ValueError("early_stopping_rounds needs eval_set")
        missing = np.nan if self.missing is None else float(self.missing)
        cat = bool(self.enable_categorical)

        def matrix(X: Any, y: Any, w: Any, m: Any, q: Any) -> DaskDMatrix:
            return DaskDMatrix(self.client, X, y, weight=w, base_margin=m, qid=q, missing=missing,
                               feature_types=self.feature_types, enable_categorical=cat)

        dtrain = matrix(X, y, sample_weight, base_margin, qid)
        evals = [(matrix(Xv, yv, (sample_weight_eval_set or [None] * len(eval_set))[i], None,
                         eval_qid[i] if eval_qid else None), f"validation_{i}")
                 for i, (Xv, yv) in enumerate(eval_set or [])]
        out = train(self.client, params, dtrain, self._rounds(), evals=evals,
                    early_stopping_rounds=self.early_stopping_rounds or None, verbose_eval=verbose,
                    xgb_model=_sk._booster_of(xgb_model), callbacks=self.callbacks)
        self._Booster, self.evals_result_ = out["booster"], out["history"]
        self.n_features_in_ = dtrain.num_col()
        if _dask_frame(X):
            self.feature_names_in_ = np.asarray([str(c) for c in X.columns], dtype=object)
        return self

    def _dask_predict(self, X: Any, output_margin: bool = False,
                      iteration_range: Optional[Tuple[int, int]] = None) -> Any:
        _sk.check_is_fitted(self, "_Booster")
        return predict(self.client, self._Booster, X, output_margin=output_margin,
                       iteration_range=self._iteration_range(iteration_range))


class DaskGBTRegressor(_DaskModel, _sk.GBTRegressor):
    """:class:`gbt.GBTRegressor` on dask collections (XGBoost's ``DaskXGBRegressor``)."""

    def fit(self, X: Any, y: Any, *, sample_weight: Any = None, base_margin: Any = None,
            eval_set: Optional[Sequence] = None, verbose: Any = True, xgb_model: Any = None,
            sample_weight_eval_set: Optional[Sequence] = None) -> "DaskGBTRegressor":
        params = self._booster_params()
        params["objective"] = self.objective or "reg:squarederror"
        return self._dask_fit(X, y, params, sample_weight, base_margin, eval_set, sample_weight_eval_set,
                              verbose, xgb_model)

    def predict(self, X: Any, output_margin: bool = False,
                iteration_range: Optional[Tuple[int, int]] = None) -> Any:
        return self._dask_predict(X, output_margin, iteration_range)


class DaskGBTClassifier(_DaskModel, _sk.GBTClassifier):
    """:class:`gbt.GBTClassifier` on dask collections (XGBoost's
    ``DaskXGBClassifier``): the classes are the label's distinct values
    (computed once), the label is encoded partition by partition."""

    def fit(self, X: Any, y: Any, *, sample_weight: Any = None, base_margin: Any = None,
            eval_set: Optional[Sequence] = None, verbose: Any = True, xgb_model: Any = None,
            sample_weight_eval_set: Optional[Sequence] = None) -> "DaskGBTClassifier":
        self.classes_ = np.unique(np.asarray(self.client.compute(y.unique() if hasattr(y, "unique")
                                                                   else da.unique(y)).result()))
        self.n_classes_ = len(self.classes_)
        if self.n_classes_ < 2:
            raise ValueError(f"the data has only one class ({self.classes_[0]!r}); a classifier needs at least 2")
        if callable(self.objective):
            raise TypeError("gbt.dask: the Dask estimators take a built-in objective's name, not a function")
        params = self._classifier_params()
        classes = self.classes_

        def encode(v: Any) -> Any:
            def codes(b: Any) -> Any:
                idx = np.searchsorted(classes, np.asarray(b)).astype(np.float32)
                return type(b)(idx, index=b.index) if hasattr(b, "index") else idx
            return v.map_partitions(codes, meta=(None, np.float32)) if hasattr(v, "map_partitions") \
                else v.map_blocks(codes, dtype=np.float32)

        eval_set = [(Xv, encode(yv)) for Xv, yv in (eval_set or [])] or None
        return self._dask_fit(X, encode(y), params, sample_weight, base_margin, eval_set,
                              sample_weight_eval_set, verbose, xgb_model)

    def predict_proba(self, X: Any, iteration_range: Optional[Tuple[int, int]] = None) -> Any:
        """Class probabilities, a dask array of shape (rows, n_classes)."""
        raw = self._dask_predict(X, iteration_range=iteration_range)
        raw = raw.to_dask_array() if hasattr(raw, "to_dask_array") else raw
        if raw.ndim == 1:
            return raw.map_blocks(lambda p: np.column_stack([1.0 - p.astype(np.float64), p]), dtype=np.float64,
                                  new_axis=1, chunks=(raw.chunks[0], (2,)))
        return raw.astype(np.float64)

    def predict(self, X: Any, output_margin: bool = False,
                iteration_range: Optional[Tuple[int, int]] = None) -> Any:
        """Predicted class labels (``classes_``) as a dask array; raw scores with ``output_margin``."""
        raw = self._dask_predict(X, output_margin, iteration_range)
        if output_margin:
            return raw
        raw = raw.to_dask_array() if hasattr(raw, "to_dask_array") else raw
        obj, classes = self._Booster.get_param("objective"), self.classes_

        def labels(b: np.ndarray) -> np.ndarray:
            if obj in ("binary:logistic", "reg:logistic"):
                idx = (b > 0.5).astype(np.intp)
            elif b.ndim == 2:
                idx = np.argmax(b, axis=1)
            elif obj == "binary:logitraw":
                idx = (b > 0).astype(np.intp)
            else:
                idx = b.astype(np.intp)
            return classes[idx]

        return raw.map_blocks(labels, dtype=classes.dtype, drop_axis=[1] if raw.ndim == 2 else [],
                              chunks=(raw.chunks[0],))


class DaskGBTRanker(_DaskModel, _sk.GBTRanker):
    """:class:`gbt.GBTRanker` on dask collections (XGBoost's ``DaskXGBRanker``):
    ``qid`` partitioned as X, each query's rows within one partition."""

    def fit(self, X: Any, y: Any, *, qid: Any = None, sample_weight: Any = None, base_margin: Any = None,
            eval_set: Optional[Sequence] = None, eval_qid: Optional[Sequence] = None, verbose: Any = True,
            xgb_model: Any = None, sample_weight_eval_set: Optional[Sequence] = None) -> "DaskGBTRanker":
        if qid is None:
            raise ValueError("DaskGBTRanker.fit needs qid (a query id per row, partitioned as X)")
        params = self._booster_params()
        params["objective"] = self.objective or "rank:ndcg"
        return self._dask_fit(X, y, params, sample_weight, base_margin, eval_set, sample_weight_eval_set,
                              verbose, xgb_model, qid, eval_qid)

    def predict(self, X: Any, output_margin: bool = False,
                iteration_range: Optional[Tuple[int, int]] = None) -> Any:
        return self._dask_predict(X, output_margin, iteration_range)


#: XGBoost's names
DaskXGBRegressor = DaskGBTRegressor
DaskXGBClassifier = DaskGBTClassifier
DaskXGBRanker = DaskGBTRanker
