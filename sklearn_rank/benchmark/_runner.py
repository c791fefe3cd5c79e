"""The runner of benchmark runs: scorers, units of work run in parallel processes.

:func:`run_units` runs units (:class:`~sklearn_rank.benchmark.Unit`) in parallel processes
(``n_jobs``) with joblib's ``return_as="generator_unordered"``, and hands each
:class:`~sklearn_rank.benchmark.UnitResult` to the caller as soon as it is done: a progress
display moves as each unit ends, whatever the number of processes, and a
:class:`~sklearn_rank.benchmark.Recorder` receives each result as it comes, which is where a
results store writes it (and, resuming, answers the units it holds).

Imported when the work starts, so that the command line's other modules (and
``sklearn-rank --help``) do not load scikit-learn.
"""

import contextlib
import time

import numpy as np

from ..metrics._scorer import RankingScorer
from ._units import UnitResult


class QuietScorer(RankingScorer):
    """A ranking scorer that, unpickled in a worker process (``n_jobs``), keeps LightGBM's
    native log lines off that process's output, as the runner does in its own process. It
    scores as :func:`~sklearn_rank.metrics.make_ranking_scorer` does."""

    def __setstate__(self, state):
        from ._models import silence_lightgbm

        self.__dict__.update(state)
        silence_lightgbm()


def unit_scoring(metrics, *, scales=None, convention=None):
    """The scorers of the units' test folds: metric name -> a :class:`QuietScorer`.

    Parameters
    ----------
    metrics : list of str
        Metric names.
    scales : dict, default=None
        Metric name -> its grade-scale options (``{"max_grade": ...}``, the largest grade of
        the data set, so that every fold is scored on the same scale).
    convention : str, default=None
        A convention preset, for every metric.

    Returns
    -------
    scoring : dict
    """
    scales = scales or {}
    return {m: QuietScorer(m, scales.get(m, {}), "auto", "qid", convention) for m in metrics}


def processes(n_jobs, n_units):
    """The processes that :func:`run_units` starts for ``n_units`` units of work.

    At most ``n_jobs``, at most one per unit, and at most one per CPU (every model fits on
    one thread, so a process more only holds one more copy of the data); at least 1. For a
    progress display that says how many processes run.

    Parameters
    ----------
    n_jobs : int
        The processes asked for.
    n_units : int
        The units of work to run.

    Returns
    -------
    n_processes : int
    """
    from joblib import cpu_count

    return max(1, min(n_jobs, n_units, cpu_count()))


def start_progress(progress, total, what, detail=""):
    """The progress display of a run, begun.

    The library's runners take ``progress=None`` (nothing shown) or a factory called as
    ``progress(total, what)`` (``total`` units of work, ``what`` is being done, e.g.
    ``"cross-validation"``) that returns an object with ``begin(detail)``, called once
    before the first unit, ``advance(detail)``, called as each unit ends, and ``close()``,
    called at the end, even on an error: the command line's progress line
    (:class:`~sklearn_rank.benchmark.ProgressLine`, ``enabled=not quiet``) is one.
    """
    from ._progress import ProgressLine

    shown = progress(total, what) if progress is not None else ProgressLine(
        total, what, enabled=False)
    shown.begin(detail)
    return shown


def run_units(tasks, data, *, scoring, n_jobs, progress, recorder, predict=False,
              test_data=None, test_keys=None, response_method="auto", keep_estimator=False,
              quiet=False):
    """Run ``tasks``; yields each :class:`UnitResult` as its unit ends.

    Units that ``recorder`` already knows are yielded first, without running. The others run
    in ``n_jobs`` processes (in this one for 1; no more than :func:`processes` allows), in
    the order given; their results come in the order they end. Each is handed to
    ``recorder.record`` and moves ``progress``.

    Parameters
    ----------
    tasks : list of Task
    data : Dataset
        The training data of the tasks without ``data`` of their own: a task with ``fold``
        set is fitted on its ``train`` rows and scored on its ``test`` rows; one with
        ``fold=None`` is fitted on all of it.
    scoring : dict
        Metric name -> :class:`QuietScorer`, for the folds of the tasks without a scoring
        of their own (``Task.scoring``: a data set's grade scale).
    test_data : Dataset, default=None
        The held-out test set of the tasks with ``fold=None``.
    n_jobs : int
        The processes.
    progress : object
        Its ``advance(detail)`` is called as each unit ends (``detail``: the task's text).
    recorder : Recorder
        Answers the units it knows (:meth:`Recorder.known`), receives each result
        (:meth:`Recorder.record`).
    predict : bool, default=False
        Keep the predictions of the test rows of each fold.
    test_data : Dataset, default=None
        The held-out test set of the tasks with ``fold=None``.
    test_keys : dict, default=None
        Metric name -> canonical key (:meth:`~sklearn_rank.metrics.Metric.key` with the
        options and convention of the scorer): what the held-out test set is scored with.
    response_method : str, default="auto"
        How the refitted models score the held-out test set.
    keep_estimator : bool, default=False
        Keep the refitted model in its result.
    quiet : bool, default=False
        Keep the boosters' native log lines (``[LightGBM] [Fatal] ...``, written before
        the error that follows them is raised) off this process's output while the units
        run, as the command line does.

    Yields
    ------
    result : UnitResult

    See Also
    --------
    benchmark_tasks : The tasks of a run.
    run_benchmark : The whole run, with a store.
    """
    from ._models import boosters_quiet

    with boosters_quiet() if quiet else contextlib.nullcontext():
        yield from _run_units(tasks, data, scoring, n_jobs, progress, recorder, predict,
                              test_data, test_keys, response_method, keep_estimator)


def _run_units(tasks, data, scoring, n_jobs, progress, recorder, predict, test_data,
               test_keys, response_method, keep_estimator):
    """:func:`run_units`, without its ``quiet``."""
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
        own = data if task.data is None else task.data
        train = own.densified() if task.dense else own
        if task.unit.fold is None:
            test = test_data.densified() if task.dense and test_data is not None else test_data
            held_out = (None, None, None) if test is None else (test.X, test.y, test.qid)
            return delayed(_fit_and_test)(
                task.unit, task.estimator, task.params, train.X, train.y, train.qid,
                *held_out, test_keys, response_method, keep_estimator, in_worker)
        return delayed(_fit_and_score)(
            task.unit, task.estimator, task.params, train.X, train.y, train.qid, task.train,
            task.test, scoring if task.scoring is None else task.scoring, predict)

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

    from ..metrics import evaluate_per_query
    from ..metrics._result import means_of
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
    means = means_of(result, stacklevel=2)
    score_time = time.perf_counter() - start
    per_query = {"qid": result.query_ids}
    per_query.update({name: result[key] for name, key in keys.items()})
    return UnitResult(unit=unit, params=params,
                      scores={name: float(means[key]) for name, key in keys.items()},
                      per_query=per_query, fit_time=fit_time, score_time=score_time,
                      estimator=estimator if keep_estimator else None)
