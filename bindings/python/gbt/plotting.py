"""Plots (matplotlib is optional: imported when a plot is asked for)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["plot_metric"]


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
