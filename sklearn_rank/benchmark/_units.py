"""The units of work of a benchmark run, their results, and where the results go.

A *unit* (:class:`Unit`) is one model, or one candidate of a search, fitted on the training
queries of one fold of one data set under one seed and scored on its test queries; or
refitted on all the training data and scored on a held-out test set (``fold=None``). A
:class:`Recorder` receives each :class:`UnitResult` as its unit ends; a results store is one
(:class:`~sklearn_rank.benchmark.StoreRecorder`), which, resuming a run, also answers the
units it holds.

The standard library and numpy only: imported by the command line's argument builders.
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Recorder", "Task", "Unit", "UnitResult", "as_dataset", "library_versions"]


@dataclass(frozen=True)
class Unit:
    """One unit of work of a benchmark run, the key of its result.

    Attributes
    ----------
    model : str
        The label of the model.
    fold : int or None
        The fold, from 0; None for the held-out test set, on which the model refitted on
        all the training data is scored.
    candidate : int or None, default=None
        The index of the candidate in a search (in ``cv_results["params"]``); None
        otherwise.
    dataset : str or None, default=None
        The name of the data set, in a run of several (or of named) data sets; None in a
        run of one unnamed data set.
    seed : int or None, default=None
        The seed of the split and of the model, in a run repeated over seeds; None in a run
        of one seed (the run's).
    """

    model: str
    fold: object
    candidate: object = None
    dataset: object = None
    seed: object = None

    def describe(self, n_splits):
        """``"lambdarank, fold 2/5"``, ``"candidate 3, fold 1/3"``, ``"lambdarank, test"``,
        ``"lambdarank, web10k, seed 1, fold 2/5"``."""
        where = "test" if self.fold is None else f"fold {self.fold + 1}/{n_splits}"
        who = self.model if self.candidate is None else f"candidate {self.candidate + 1}"
        axes = ([] if self.dataset is None else [str(self.dataset)]) + (
            [] if self.seed is None else [f"seed {self.seed}"])
        return ", ".join([who, *axes, where])

    def label(self):
        """``"lambdarank fold 2"``, ``"lambdarank candidate 3 fold 0"``, ``"lambdarank
        test"``, ``"lambdarank web10k seed 1 fold 2"``: the unit in a store's run."""
        where = "test" if self.fold is None else f"fold {self.fold}"
        who = self.model if self.candidate is None else f"{self.model} candidate {self.candidate}"
        axes = ([] if self.dataset is None else [str(self.dataset)]) + (
            [] if self.seed is None else [f"seed {self.seed}"])
        return " ".join([who, *axes, where])


@dataclass
class UnitResult:
    """What a unit of work computed.

    Attributes
    ----------
    unit : Unit
    params : dict
        The parameters of the model that the caller set (and, for a candidate of a search,
        the candidate's).
    scores : dict
        Metric name -> mean over the unit's test queries.
    per_query : dict
        ``"qid"``: the test queries (in ``np.unique`` order), and per metric name the
        per-query values.
    fit_time, score_time : float
        Seconds.
    predictions : ndarray or None
        The ranking scores of the test rows (when asked for).
    rows : ndarray or None
        The indices of the test rows in the data (None for the held-out test set).
    estimator : object or None
        The fitted model, when asked for (the refitted model only).
    """

    unit: Unit
    params: dict
    scores: dict
    per_query: dict
    fit_time: float
    score_time: float
    predictions: object = None
    rows: object = None
    estimator: object = field(default=None, repr=False)

    def per_query_result(self, keys=None):
        """The per-query values as a :class:`~sklearn_rank.metrics.PerQueryResult`, with the
        unit's fold as its fold column (None for the held-out test set); with ``keys``
        (metric name -> the canonical key the run recorded), each metric's options."""
        from ..metrics import PerQueryResult
        from ._values import metric_options

        metrics = [m for m in self.per_query if m != "qid"]
        qid = np.asarray(self.per_query.get("qid", []))
        fold = None if self.unit.fold is None else np.full(len(qid), self.unit.fold)
        return PerQueryResult(qid, {m: self.per_query[m] for m in metrics}, fold=fold,
                              options=metric_options(metrics, keys))


@dataclass
class Task:
    """A unit to run, as :func:`~sklearn_rank.benchmark.run_units` takes it.

    Attributes
    ----------
    unit : Unit
        The key of its result.
    estimator : estimator
        Unfitted.
    params : dict
        The parameters set on the model, recorded with the result.
    train, test : array-like of int, default=None
        The rows of the fold; None for a unit of the held-out test set (``unit.fold``
        None), fitted on all the data.
    detail : str, default=""
        Its text on a progress line.
    dense : bool, default=False
        A model that takes no sparse input: it is given the data's ``densified()``.
    data : RankingDataset, default=None
        The data set it is fitted on; None for the runner's one data set.
    scoring : dict, default=None
        The scorers of its data set (:func:`~sklearn_rank.benchmark.unit_scoring`); None
        for the runner's.
    """

    unit: Unit
    estimator: object
    params: dict
    train: object = None
    test: object = None
    detail: str = ""
    dense: bool = False
    data: object = None
    scoring: object = None


class Recorder:
    """Where each finished unit of work goes; and, resuming a run, the units already done.

    This one keeps nothing. A results store subclasses it: :meth:`start` receives the
    run's provenance and units before the work, :meth:`known` answers a unit's stored
    :class:`UnitResult` (which is then not run again) or None, :meth:`record` receives each
    :class:`UnitResult` as its unit ends (in the caller's process, in the order units end),
    :meth:`finish` is called once all are done.
    """

    def start(self, provenance, units):
        """Receive the run's provenance (a dict) and its units (list of :class:`Unit`)
        before the work."""

    def known(self, unit, params):
        """The stored :class:`UnitResult` of ``unit`` run with ``params``, or None to run
        it."""
        return None

    def record(self, result):
        """Receive the :class:`UnitResult` of a unit that has just ended."""

    def finish(self):
        """Called once every unit is done."""


def as_dataset(value, name="data"):
    """A data set of a benchmark run: a :class:`~sklearn_rank.datasets.RankingDataset` (or
    an object with its ``X``, ``y``, ``qid``, ``densified`` and ``metadata``) as it is; an
    ``(X, y, qid)`` tuple, or a ``Bunch`` of ``data``, ``target`` and ``qid`` (what
    :func:`~sklearn_rank.datasets.make_ranking` returns with ``return_X_y_qid=False``), as a
    ``RankingDataset`` whose source is ``name``."""
    if all(hasattr(value, a) for a in ("X", "y", "qid", "densified", "metadata")):
        return value
    if isinstance(value, tuple) and len(value) == 3:
        X, y, qid = value
        if qid is None:
            raise ValueError(f"data {name!r}: the query ids are None; a benchmark splits "
                             "whole queries into folds, so it needs them (X, y, qid).")
        if not (len(y) == len(qid) == X.shape[0]):
            raise ValueError(f"data {name!r}: X has {X.shape[0]} rows, y {len(y)} and qid "
                             f"{len(qid)}; expected the same number of rows.")
        from ..datasets import RankingDataset

        return RankingDataset(X, np.asarray(y), np.asarray(qid), source=str(name))
    if all(hasattr(value, a) for a in ("data", "target", "qid")):  # make_ranking's Bunch
        return as_dataset((value.data, value.target, value.qid), name)
    if isinstance(value, (tuple, list)):
        got = f"a {type(value).__name__} of {len(value)} items"
        if len(value) == 2:
            got += " (X and y without the query ids?)"
    else:
        got = type(value).__name__
    raise TypeError(f"data {name!r}: expected an (X, y, qid) tuple or a data set with X, y "
                    f"and qid attributes; got {got}.")


def library_versions():
    """The versions of Python, sklearn-rank and the libraries this process has imported:
    what a run records of its computation.

    Returns
    -------
    versions : dict of str to str
    """
    import platform
    import sys

    from .._version import __version__

    versions = {"python": platform.python_version(), "sklearn-rank": __version__}
    for module, name in (("numpy", "numpy"), ("scipy", "scipy"), ("sklearn", "scikit-learn"),
                         ("joblib", "joblib"), ("lightgbm", "lightgbm"),
                         ("xgboost", "xgboost"), ("catboost", "catboost"),
                         ("pandas", "pandas"), ("polars", "polars")):
        version = getattr(sys.modules.get(module), "__version__", None)
        if version is not None:
            versions[name] = str(version)
    return versions
