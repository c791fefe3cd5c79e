"""The work of ``sklearn-rank cv`` and ``tune``: scorers, units of work and their runner.

A *unit* (:class:`Unit`) is one model, or one candidate of a search, fitted on the training
queries of one fold and scored on its test queries; or refitted on all the training data and
scored on the held-out test set (``fold=None``). :func:`run_units` runs units in parallel
processes (``--n-jobs``) with joblib's ``return_as="generator_unordered"``, and hands each
:class:`UnitResult` to the caller as soon as it is done: the progress line moves as each unit
ends, whatever the number of processes, and a :class:`Recorder` receives each result as it
comes, which is where a results store writes it (and, resuming, answers the units it holds).

In a module of its own, imported when the work starts, so that the command line's other
modules (and ``sklearn-rank --help``) do not load scikit-learn.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from ..metrics import RankingScorer


class QuietScorer(RankingScorer):
    """A ranking scorer that, unpickled in a worker process of ``--n-jobs``, keeps
    LightGBM's native log lines off that process's output, as the command line does in its
    own process. It scores as :func:`~sklearn_rank.metrics.make_ranking_scorer` does."""

    def __setstate__(self, state):
        from ._models import silence_lightgbm

        self.__dict__.update(state)
        silence_lightgbm()


class ProgressScorer:
    """A scorer that calls ``callback()`` after each score of ``scorer``.

    A plain scorer callable, ``scorer(estimator, X, y, **metadata)``, that routes the
    metadata ``scorer`` asks for: scikit-learn's searches call it once per fit. The
    callback is passed explicitly: for one process only (``--n-jobs 1``), since a worker
    process would advance its own copy.
    """

    def __init__(self, scorer, callback):
        self.scorer = scorer
        self.callback = callback

    def __call__(self, estimator, X, y_true, **kwargs):
        score = self.scorer(estimator, X, y_true, **kwargs)
        self.callback()
        return score

    def get_metadata_routing(self):
        return self.scorer.get_metadata_routing()


# ----------------------------------------------------------------------------------------
# Units of work


@dataclass(frozen=True)
class Unit:
    """One unit of work of a benchmark run, the key of its result.

    Attributes
    ----------
    model : str
        The label of the model (``--model LABEL=...``).
    fold : int or None
        The fold, from 0; None for the held-out test set (``--test``), on which the model
        refitted on all the training data is scored.
    candidate : int or None, default=None
        The index of the candidate in ``tune``'s search (in ``cv_results["params"]``);
        None in ``cv`` and for ``tune``'s refitted model.
    """

    model: str
    fold: object
    candidate: object = None

    def describe(self, n_splits):
        """``"lambdarank, fold 2/5"``, ``"candidate 3, fold 1/3"``, ``"lambdarank, test"``."""
        where = "test" if self.fold is None else f"fold {self.fold + 1}/{n_splits}"
        who = self.model if self.candidate is None else f"candidate {self.candidate + 1}"
        return f"{who}, {where}"


@dataclass
class UnitResult:
    """What a unit of work computed.

    Attributes
    ----------
    unit : Unit
    params : dict
        The parameters of the model that the command line set: the ``--set`` ones and,
        for a candidate of ``tune``, the candidate's.
    scores : dict
        Metric name -> mean over the unit's test queries.
    per_query : dict
        ``"qid"``: the test queries (in ``np.unique`` order), and per metric name the
        per-query values.
    fit_time, score_time : float
        Seconds.
    predictions : ndarray or None
        The ranking scores of the test rows (``cv --plot`` only).
    rows : ndarray or None
        The indices of the test rows in the data (None for the held-out test set).
    estimator : object or None
        The fitted model, for ``tune --save-model`` (the refitted model only).
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


@dataclass
class Task:
    """A unit to run: the estimator (unfitted), the rows of its fold, its progress text;
    ``dense`` for a model that takes no sparse input (:meth:`Dataset.densified`)."""

    unit: Unit
    estimator: object
    params: dict
    train: object = None
    test: object = None
    detail: str = ""
    dense: bool = False


class Recorder:
    """Where each finished unit of work goes; and, resuming a run, the units already done.

    This one keeps nothing. A results store subclasses it: :meth:`start` receives the
    run's provenance and units before the work, :meth:`known` answers a unit's stored
    :class:`UnitResult` (which is then not run again) or None, :meth:`record` receives each
    :class:`UnitResult` as its unit ends (in the command's process, in the order units end),
    :meth:`finish` is called once all are done.
    """

    def start(self, provenance, units):
        pass

    def known(self, unit, params):
        return None

    def record(self, result):
        pass

    def finish(self):
        pass


def recorder_for(args, provenance, units):
    """The :class:`Recorder` of a run of ``cv`` or ``tune``: one that keeps nothing, or
    that of the results store.

    With ``--store``, a :class:`~sklearn_rank._cli._store.StoreRecorder`: each unit is
    written to the results store as it ends and, with ``--resume``, the units stored are
    not run again.
    """
    from ._store import store_recorder

    recorder = store_recorder(args, provenance, units)
    if recorder is None:
        recorder = Recorder()
        recorder.start(provenance, units)
    return recorder


def processes(n_jobs, n_units):
    """The processes of ``--n-jobs n_jobs`` for ``n_units`` units of work: at most one per
    unit, and at most one per CPU (every model fits on one thread, so a process more only
    holds one more copy of the data); at least 1."""
    from joblib import cpu_count

    return max(1, min(n_jobs, n_units, cpu_count()))


def run_units(tasks, data, *, scoring, n_jobs, progress, recorder, predict=False,
              test_data=None, test_keys=None, response_method="auto", keep_estimator=False):
    """Run ``tasks``; yields each :class:`UnitResult` as its unit ends.

    Units that ``recorder`` already knows are yielded first, without running. The others run
    in ``n_jobs`` processes (in this one for 1; no more than :func:`processes` allows), in
    the order given; their results come in
    the order they end. Each is handed to ``recorder.record`` and moves ``progress``.

    Parameters
    ----------
    tasks : list of Task
    data : Dataset
        The training data: a task with ``fold`` set is fitted on its ``train`` rows and
        scored on its ``test`` rows; one with ``fold=None`` is fitted on all of it.
    scoring : dict
        Metric name -> :class:`QuietScorer`, for the folds.
    test_data : Dataset, default=None
        The held-out test set of the tasks with ``fold=None``.
    test_keys : dict, default=None
        Metric name -> canonical key (:meth:`~sklearn_rank.metrics.Metric.key` with the
        options and convention of the scorer): what the held-out test set is scored with.
    """
    from joblib import effective_n_jobs
    from sklearn.utils.parallel import Parallel, delayed

    pending = []
    for task in tasks:
        known = recorder.known(task.unit, task.params)
        if known is None:
            pending.append(task)
            continue
        progress.advance(f"{task.detail} (stored)")
        yield known
    # a process per pending unit at most: 40 processes for 6 units would each start, and
    # each hold the data (n_jobs = 100000 started hundreds before the first fit)
    n_jobs = processes(n_jobs, len(pending))
    in_worker = effective_n_jobs(n_jobs) > 1

    def job(task):
        train = data.densified() if task.dense else data
        if task.unit.fold is None:
            test = test_data.densified() if task.dense and test_data is not None else test_data
            held_out = (None, None, None) if test is None else (test.X, test.y, test.qid)
            return delayed(_fit_and_test)(
                task.unit, task.estimator, task.params, train.X, train.y, train.qid,
                *held_out, test_keys, response_method, keep_estimator, in_worker)
        return delayed(_fit_and_score)(
            task.unit, task.estimator, task.params, train.X, train.y, train.qid, task.train,
            task.test, scoring, predict)

    details = {task.unit: task.detail for task in pending}
    if not pending:
        return
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    for result in parallel(job(task) for task in pending):
        recorder.record(result)
        progress.advance(details[result.unit])
        yield result


def _fit_and_score(unit, estimator, params, X, y, qid, train, test, scoring, predict):
    """Fit on the ``train`` rows, score on the ``test`` rows: one fold of
    :func:`sklearn_rank.model_selection.cross_validate`, whose per-query values and
    predictions it returns."""
    from ..model_selection import cross_validate

    result = cross_validate(estimator, X, y, qid=qid, scoring=scoring, cv=[(train, test)],
                            return_per_query=True, return_predictions=predict)
    tested = result["per_query"]  # a PerQueryResult, of the one fold
    per_query = {"qid": tested.query_ids, **tested.values}
    return UnitResult(
        unit=unit, params=params,
        scores={name: float(result[f"test_{name}"][0]) for name in scoring},
        per_query=per_query, fit_time=float(result["fit_time"][0]),
        score_time=float(result["score_time"][0]),
        predictions=result["predictions"][test] if predict else None, rows=np.asarray(test))


def _fit_and_test(unit, estimator, params, X, y, qid, X_test, y_test, qid_test, keys,
                  response_method, keep_estimator, in_worker):
    """Fit on all the training data, score on the held-out test set (if any) with the
    canonical keys of the metrics (the same numbers as the folds' scorers)."""
    import sklearn

    from ..metrics import aggregate, evaluate_per_query
    from ..metrics._scorer import estimator_scores
    from ._models import fit_params, silence_lightgbm

    if in_worker:
        silence_lightgbm()
    start = time.perf_counter()
    with sklearn.config_context(enable_metadata_routing=True):
        estimator.fit(X, y, **fit_params(estimator, qid))
    fit_time = time.perf_counter() - start
    if X_test is None:  # a refit without a test set (tune --save-model)
        return UnitResult(unit=unit, params=params, scores={}, per_query={},
                          fit_time=fit_time, score_time=0.0,
                          estimator=estimator if keep_estimator else None)
    start = time.perf_counter()
    y_score, _ = estimator_scores(estimator, X_test, qid_test, response_method=response_method,
                                  qid_column="qid", caller="the held-out test set")
    result = evaluate_per_query(y_test, y_score, qid=qid_test,
                                metrics=list(dict.fromkeys(keys.values())))
    means = aggregate(result)
    score_time = time.perf_counter() - start
    per_query = {"qid": result.query_ids}
    per_query.update({name: result[key] for name, key in keys.items()})
    return UnitResult(unit=unit, params=params,
                      scores={name: float(means[key]) for name, key in keys.items()},
                      per_query=per_query, fit_time=fit_time, score_time=score_time,
                      estimator=estimator if keep_estimator else None)
