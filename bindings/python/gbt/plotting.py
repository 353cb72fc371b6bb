"""Plots (matplotlib is optional: imported when a plot is asked for)."""
from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["plot_metric", "plot_importance", "to_graphviz", "plot_tree"]


def plot_metric(history: Union[Dict[str, Dict[str, List[float]]], Any], metric: Optional[str] = None,
                dataset_names: Optional[Sequence[str]] = None, ax: Any = None,
                title: Optional[str] = "Metric during training", xlabel: str = "Round",
                ylabel: Optional[str] = None, grid: bool = True, **kwargs: Any) -> Any:
    """Plot a metric per round: learning curves from the evaluation history.

    Parameters
    ----------
    history : dict or fitted GBTClassifier/GBTRegressor
        ``evals_result`` of :func:`gbt.train` (``{data: {metric: [values]}}``)
        or an estimator fitted with ``eval_set`` (its ``evals_result_``).
    metric : str, optional
        The metric to plot (default: the first one recorded).
    dataset_names : list of str, optional
        The data sets to draw (default: all).
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure).
    **kwargs
        Passed to ``ax.plot``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover
        raise ImportError("plot_metric needs matplotlib: pip install matplotlib") from e
    if hasattr(history, "evals_result_"):
        history = history.evals_result_
    if not isinstance(history, dict) or not history:
        raise ValueError("history is empty: train with evals=[...] and evals_result={} "
                         "(or fit with eval_set=[...]) first")
    names = list(dataset_names) if dataset_names is not None else list(history)
    for n in names:
        if n not in history:
            raise ValueError(f"no data set {n!r} in the history (there are {', '.join(history)})")
    if metric is None:
        metric = next(iter(history[names[0]]))
    if ax is None:
        _, ax = plt.subplots(1, 1)
    for n in names:
        if metric not in history[n]:
            raise ValueError(f"no metric {metric!r} for {n!r} (there are {', '.join(history[n])})")
        values = history[n][metric]
        ax.plot(range(len(values)), values, label=n, **kwargs)
    ax.legend(loc="best")
    if title is not None:
        ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel if ylabel is not None else metric)
    ax.grid(grid)
    return ax


def _booster(model: Any) -> Any:
    from .core import Booster
    if isinstance(model, Booster):
        return model
    if hasattr(model, "get_booster"):
        return model.get_booster()
    raise TypeError(f"expected a gbt.Booster or a fitted gbt estimator, not {type(model).__name__}")


def plot_importance(model: Any, ax: Any = None, height: float = 0.2, xlim: Any = None, ylim: Any = None,
                    title: Optional[str] = "Feature importance", xlabel: Optional[str] = "Importance score",
                    ylabel: Optional[str] = "Features", importance_type: str = "weight",
                    max_num_features: Optional[int] = None, grid: bool = True,
                    show_values: bool = True, values_format: str = "{v}", **kwargs: Any) -> Any:
    """A horizontal bar chart of feature importance (XGBoost's ``plot_importance``).

    Parameters
    ----------
    model : Booster or fitted estimator
    importance_type : str, default "weight"
        See :meth:`gbt.Booster.get_score`.
    max_num_features : int, optional
        Only the most important ones.
    show_values : bool
        Write each value next to its bar (with ``values_format``).
    **kwargs
        Passed to ``ax.barh``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover
        raise ImportError("plot_importance needs matplotlib: pip install matplotlib") from e
    score = _booster(model).get_score(importance_type=importance_type)
    if not score:
        raise ValueError("the model has no splits: no feature importance to plot")
    items = sorted(score.items(), key=lambda kv: kv[1])
    if max_num_features is not None:
        items = items[-max_num_features:]
    labels, values = zip(*items)
    if ax is None:
        _, ax = plt.subplots(1, 1)
    ylocs = list(range(len(values)))
    ax.barh(ylocs, values, align="center", height=height, **kwargs)
    if show_values:
        for x, y in zip(values, ylocs):
            ax.text(x + 1e-12, y, values_format.format(v=x), va="center")
    ax.set_yticks(ylocs)
    ax.set_yticklabels(labels)
    ax.set_xlim(xlim if xlim is not None else (0, max(values) * 1.1))
    ax.set_ylim(ylim if ylim is not None else (-1, len(values)))
    if title is not None:
        ax.set_title(title)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.grid(grid)
    return ax


def _tree_idx(tree_idx: int, num_trees: Optional[int]) -> int:
    """XGBoost 3's deprecated ``num_trees`` (the tree's index), with its warning."""
    if num_trees is None:
        return tree_idx
    warnings.warn("The `num_trees` parameter is deprecated, use `tree_idx` instead.", FutureWarning,
                  stacklevel=3)
    if tree_idx not in (0, num_trees):
        raise ValueError("Both `num_trees` and `tree_idx` are used, prefer `tree_idx` instead.")
    return num_trees


def to_graphviz(model: Any, tree_idx: int = 0, with_stats: bool = False, *,
                num_trees: Optional[int] = None, **kwargs: Any) -> Any:
    """One tree as a Graphviz graph, from the library's dot dump
    (``gbt_booster_dump(..., "dot", ...)``).

    Returns a ``graphviz.Source`` when the ``graphviz`` Python package is
    installed (it renders in notebooks and with ``.render()``), else the dot
    text itself (``dot -Tpng`` renders it).  ``kwargs`` go to
    ``graphviz.Source``.  ``num_trees`` is XGBoost's deprecated name of
    ``tree_idx`` (a FutureWarning, as XGBoost gives).
    """
    tree_idx = _tree_idx(tree_idx, num_trees)
    b = _booster(model)
    n = b.num_trees()
    if not 0 <= tree_idx < n:
        raise IndexError(f"tree_idx {tree_idx} is out of range (the model has {n} trees)")
    text = b._dump_one("dot", int(tree_idx), with_stats)
    try:
        import graphviz
    except ImportError:
        return text
    return graphviz.Source(text, **kwargs)


def plot_tree(model: Any, tree_idx: int = 0, ax: Any = None, with_stats: bool = False, *,
              num_trees: Optional[int] = None, **kwargs: Any) -> Any:
    """Draw one tree on a matplotlib axes (XGBoost's ``plot_tree``): needs the
    ``graphviz`` Python package and Graphviz's ``dot`` program to render.
    ``num_trees``: as in :func:`to_graphviz`.

    Returns
    -------
    matplotlib.axes.Axes
    """
    try:
        import matplotlib.pyplot as plt
        import matplotlib.image as image
    except ImportError as e:  # pragma: no cover
        raise ImportError("plot_tree needs matplotlib: pip install matplotlib") from e
    src = to_graphviz(model, _tree_idx(tree_idx, num_trees), with_stats)
    if isinstance(src, str):
        raise ImportError("plot_tree needs the graphviz package (pip install graphviz) and Graphviz's "
                          "dot program; to_graphviz() gives the dot text without them")
    import io
    png = src.pipe(format="png")
    if ax is None:
        _, ax = plt.subplots(1, 1, **kwargs)
    ax.imshow(image.imread(io.BytesIO(png)))
    ax.axis("off")
    return ax
