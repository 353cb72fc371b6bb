"""Training callbacks: the hooks of :func:`gbt.train` and what is built on them.

A callback subclasses :class:`TrainingCallback` and overrides any of its
hooks.  ``after_iteration`` (and ``before_iteration``) returning True stops
training; an exception raised in a hook stops training and propagates to
the caller of :func:`gbt.train`.

The training loop is the library's (``gbt_booster_train``, or
``gbt_booster_train_folds`` for :func:`gbt.cv`): it runs the rounds,
evaluates, logs and stops early, and calls these hooks through its per-round
hook (``gbt_booster_set_train_hook``), once per round.  The evaluation
history passed to the hooks is a dict ``{data name: {metric name: [value of
round 0, value of round 1, ...]}}`` of Python floats (``(mean, std)`` pairs in
:func:`gbt.cv`), in the order of ``evals`` and of the booster's metrics, the
values the library computed.  :class:`EarlyStopping` and
:class:`EvaluationMonitor` configure and show what the library does.
"""
from __future__ import annotations

import collections.abc
import os
import pickle
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .core import Booster

__all__ = ["TrainingCallback", "EarlyStopping", "EvaluationMonitor", "LearningRateScheduler",
           "TrainingCheckPoint", "ProgressBar", "CallbackContainer"]

#: metric histories by data name and metric: floats, or (mean, std) pairs in cv (XGBoost's type)
EvalsLog = Dict[str, Dict[str, Union[List[float], List[Tuple[float, float]]]]]


class TrainingCallback:
    """Base class of training callbacks; every hook does nothing by default."""

    #: the type of ``evals_log`` (XGBoost's ``TrainingCallback.EvalsLog``)
    EvalsLog = EvalsLog

    def before_training(self, model: Booster) -> Booster:
        """Called once before the first round; returns the model."""
        return model

    def after_training(self, model: Booster) -> Booster:
        """Called once after the last round; returns the model (possibly another one)."""
        return model

    def before_iteration(self, model: Booster, epoch: int, evals_log: EvalsLog) -> bool:
        """Called before round ``epoch``; True stops training."""
        return False

    def after_iteration(self, model: Booster, epoch: int, evals_log: EvalsLog) -> bool:
        """Called after round ``epoch`` and its evaluation; True stops training."""
        return False


class CallbackContainer:
    """Runs a list of callbacks in order; used by :func:`gbt.train` and
    :func:`gbt.cv` from the library's per-round hook, which fills
    ``history`` with each round's metrics first."""

    def __init__(self, callbacks: Sequence[TrainingCallback]):
        for c in callbacks:
            if not isinstance(c, TrainingCallback):
                raise TypeError(f"callbacks must be gbt.callback.TrainingCallback instances; got "
                                f"{type(c).__name__}")
        self.callbacks = list(callbacks)
        self.history: EvalsLog = {}

    def before_training(self, model: Booster) -> Booster:
        for c in self.callbacks:
            model = c.before_training(model)
            if not isinstance(model, Booster) and not isinstance(getattr(model, "cvfolds", None), list):
                raise TypeError(f"{type(c).__name__}.before_training must return the Booster")
        return model

    def after_training(self, model: Booster) -> Booster:
        for c in self.callbacks:
            model = c.after_training(model)
            if not isinstance(model, Booster) and not isinstance(getattr(model, "cvfolds", None), list):
                raise TypeError(f"{type(c).__name__}.after_training must return the Booster")
        return model

    def before_iteration(self, model: Booster, epoch: int) -> bool:
        return any([c.before_iteration(model, epoch, self.history) for c in self.callbacks])

    def after_iteration(self, model: Booster, epoch: int, line: Optional[str] = None) -> bool:
        """Every callback sees the round, even when an earlier one asks to
        stop; ``line`` is the library's log line of the round, which the
        :class:`EvaluationMonitor` callbacks show."""
        for c in self.callbacks:
            if isinstance(c, EvaluationMonitor):
                c._round_line = line
        return any([c.after_iteration(model, epoch, self.history) for c in self.callbacks])


class EarlyStopping(TrainingCallback):
    """Stop when a validation metric has not improved for ``rounds`` rounds.

    The library's training driver does the stopping (``gbt_booster_train``
    with ``gbt_booster_set_early_stopping``; gbtrain's
    ``--early_stopping_rounds`` is the same rule): given to :func:`gbt.train`
    or :func:`gbt.cv`, this object sets it up and mirrors its state
    (``best_iteration``, ``best_score``, ``stopped``) round by round.  By
    default it watches the last metric on the last validation set.  As in
    XGBoost 3.2, each new best round is recorded in the model at once
    (``Booster.best_iteration`` and ``best_score``, saved with it) and every
    round trained stays: ``Booster.predict`` uses them all unless given
    ``iteration_range=(0, best_iteration + 1)``, which the scikit-learn
    estimators use by default.  ``save_best=True`` keeps rounds ``0 ..
    best_iteration`` only when the training ends (what gbt did on every
    early stop before).  ``stopping_history`` is XGBoost's record of the
    watched metric: ``{data name: {metric name: [each round's value]}}``
    (``(mean, std)`` pairs in :func:`gbt.cv`), from the rounds of the last
    training.  One EarlyStopping per training.

    Parameters
    ----------
    rounds : int
        Rounds without improvement before stopping.
    metric_name, data_name : str, optional
        The metric and validation set to watch (default: the last ones).
    maximize : bool, optional
        Whether higher is better (default: the library's answer for its
        metrics, ``gbt_booster_metric_describe``: auc, ndcg, map... are
        maximised, losses and errors minimised; a custom metric's name
        decides as in XGBoost: names starting with auc, aucpr, pre, map or
        ndcg are maximised).
    save_best : bool, default False
        Cut the rounds after the best one when the training ends (XGBoost's
        option and default).  Not for :func:`gbt.cv`, which returns no
        model (ValueError, as in XGBoost).
    min_delta : float, default 0
        An improvement must be larger than this.
    """

    def __init__(self, rounds: int, metric_name: Optional[str] = None, data_name: Optional[str] = None,
                 maximize: Optional[bool] = None, min_delta: float = 0.0, save_best: bool = False):
        if int(rounds) < 1:
            raise ValueError(f"rounds must be at least 1; got {rounds}")
        if min_delta < 0:
            raise ValueError(f"min_delta must be >= 0; got {min_delta}")
        self.rounds = int(rounds)
        self.metric_name = metric_name
        self.data_name = data_name
        self.maximize = maximize
        self.min_delta = float(min_delta)
        self.save_best = save_best
        self.best_iteration: Optional[int] = None
        self.best_score: Optional[float] = None
        self.stopped = False
        self.stopping_history: EvalsLog = {}

    def _configure(self, handle: Any) -> None:
        """Hands the rule to the training driver (``gbt_booster_set_early_stopping``)."""
        from . import _lib

        _lib.check(_lib.LIB.gbt_booster_set_early_stopping(
            handle, self.rounds, None if self.data_name is None else _lib.cstr(self.data_name),
            None if self.metric_name is None else _lib.cstr(self.metric_name),
            -1 if self.maximize is None else int(bool(self.maximize)), self.min_delta,
            int(bool(self.save_best))))

    def _observe(self, best_iteration: int, best_score: float, stop: bool) -> None:
        """The driver's state after a round (its hook's arguments)."""
        if best_iteration >= 0:
            self.best_iteration, self.best_score = best_iteration, best_score
        self.stopped = self.stopped or stop

    def before_training(self, model: Booster) -> Booster:
        self.best_iteration, self.best_score, self.stopped = None, None, False
        self.stopping_history = {}
        return model

    def after_iteration(self, model: Booster, epoch: int, evals_log: EvalsLog) -> bool:
        # the watched metric as the driver picks it: the named ones, else the last set's last metric
        data = self.data_name if self.data_name is not None else next(reversed(evals_log), None)
        log = (evals_log.get(data) or {}) if data is not None else {}
        metric = self.metric_name if self.metric_name is not None else next(reversed(log), None)
        if metric in log and log[metric]:
            self.stopping_history.setdefault(data, {}).setdefault(metric, []).append(log[metric][-1])
        return self.stopped


def _rank(model: Booster) -> int:
    """The model's rank in the communicator it trains on (gbt.train's comm), 0 without one."""
    comm = getattr(model, "_comm", None)
    return comm.Get_rank() if comm is not None else 0


class EvaluationMonitor(TrainingCallback):
    """Print each round's metrics: the library's round line, as gbtrain logs
    it without the times (``[3]\tvalid-auc:0.991234``).

    Parameters
    ----------
    rank : int, default 0
        The process that prints when the booster trains across processes
        (``gbt.train(..., comm=)``, :mod:`gbt.collective`): the others stay
        silent, as XGBoost's workers do.
    period : int, default 1
        Print every ``period`` rounds (and the last round).
    show_stdv : bool, default False
        In :func:`gbt.cv`, print each mean with its standard deviation
        (``test-auc:0.98+0.01``).
    logger : callable, optional
        Called with each line (default: print to ``file``).
    file : file object, default sys.stdout
    """

    def __init__(self, rank: int = 0, period: int = 1, show_stdv: bool = False, logger: Any = None,
                 *, file: Any = None):
        self.rank = int(rank)
        self.period = max(1, int(period))
        self.show_stdv = bool(show_stdv)
        self.logger = logger
        self.file = file
        self._last: Optional[str] = None
        self._round_line: Optional[str] = None

    def _emit(self, line: str) -> None:
        if self.logger is not None:
            self.logger(line + "\n")
        else:
            print(line, file=self.file or sys.stdout)

    def after_iteration(self, model: Booster, epoch: int, evals_log: EvalsLog) -> bool:
        line, self._round_line = self._round_line, None
        if not evals_log or line is None or _rank(model) != self.rank:
            return False
        if epoch % self.period == 0:
            self._emit(line)
            self._last = None
        else:
            self._last = line
        return False

    def after_training(self, model: Booster) -> Booster:
        if self._last is not None:
            self._emit(self._last)
            self._last = None
        return model


class LearningRateScheduler(TrainingCallback):
    """Change the learning rate as training goes, as XGBoost's callback does:
    after round ``epoch`` the booster's ``learning_rate`` becomes
    ``learning_rates(epoch)`` (a function of the round) or
    ``learning_rates[epoch]`` (a sequence), so round ``epoch + 1`` uses it."""

    def __init__(self, learning_rates: Any):
        if callable(learning_rates):
            self.learning_rates = learning_rates
        elif isinstance(learning_rates, collections.abc.Sequence):
            rates = list(learning_rates)
            self.learning_rates = lambda epoch: rates[epoch]
        else:
            raise TypeError(f"learning_rates must be a function of the round or a sequence; got "
                            f"{type(learning_rates).__name__}")

    def after_iteration(self, model: Booster, epoch: int, evals_log: EvalsLog) -> bool:
        model.set_param("learning_rate", float(self.learning_rates(epoch)))
        return False


class TrainingCheckPoint(TrainingCallback):
    """Save the model every ``interval`` rounds, as XGBoost's callback does:
    ``directory/name_R.json`` (gbt's JSON model; XGBoost writes ``.ubj``) or,
    with ``as_pickle``, ``name_R.pkl``, R the round just finished counted
    from the start of the model; the first after round ``interval``.  Each
    save is atomic (:meth:`gbt.Booster.save_model` and a renamed temporary file
    for pickles)."""

    #: the model files' extension (XGBoost's ``default_format``, whose is ``"ubj"``)
    default_format = "json"

    def __init__(self, directory: Any, name: str = "model", as_pickle: bool = False, interval: int = 100):
        if int(interval) < 1:
            raise ValueError(f"interval must be at least 1; got {interval}")
        self.directory = os.fspath(directory)
        self.name = name
        self.as_pickle = bool(as_pickle)
        self.interval = int(interval)
        self._count = 0
        self._start = 0

    def before_training(self, model: Booster) -> Booster:
        self._start = model.num_boosted_rounds()
        self._count = 0
        return model

    def after_iteration(self, model: Booster, epoch: int, evals_log: EvalsLog) -> bool:
        if self._count == self.interval:
            # XGBoost's epoch is counted from the start of this training; gbt.train's from the model's
            r = epoch if epoch >= self._start else epoch + self._start
            path = os.path.join(self.directory, f"{self.name}_{r}" + (".pkl" if self.as_pickle else "." + self.default_format))
            if self.as_pickle:
                tmp = f"{path}.tmp{os.getpid()}"
                with open(tmp, "wb") as f:
                    pickle.dump(model, f)
                os.replace(tmp, path)
            else:
                model.save_model(path)
            self._count = 0
        self._count += 1
        return False


class ProgressBar(TrainingCallback):
    """A progress bar over the rounds, with the latest metric: tqdm's when
    tqdm is installed, else one line on standard error rewritten in place.

    Parameters
    ----------
    total : int, optional
        The number of rounds (``gbt.train`` fills it in).
    """

    def __init__(self, total: Optional[int] = None, file: Any = None):
        self.total = total
        self.file = file
        self._bar: Any = None

    def before_training(self, model: Booster) -> Booster:
        try:
            from tqdm.auto import tqdm
            self._bar = tqdm(total=self.total, unit="round", file=self.file)
        except ImportError:
            self._bar = None
        return model

    def after_iteration(self, model: Booster, epoch: int, evals_log: EvalsLog) -> bool:
        last = ""
        if evals_log:
            data = list(evals_log)[-1]
            metric = list(evals_log[data])[-1]
            last = f"{data}-{metric}={evals_log[data][metric][-1]:.6f}"
        if self._bar is not None:
            self._bar.update(1)
            if last:
                self._bar.set_postfix_str(last, refresh=False)
        else:
            f = self.file or sys.stderr
            total = f"/{self.total}" if self.total else ""
            f.write(f"\rround {epoch + 1}{total} {last}")
            f.flush()
        return False

    def after_training(self, model: Booster) -> Booster:
        if self._bar is not None:
            self._bar.close()
        else:
            (self.file or sys.stderr).write("\n")
        return model
