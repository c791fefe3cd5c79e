"""Cross-validation of rankers, with the query ids routed for the user."""

from functools import partial
from numbers import Integral
from traceback import format_exc

import numpy as np
from joblib import effective_n_jobs
from sklearn import config_context
from sklearn.model_selection import cross_validate as _sklearn_cross_validate
from sklearn.utils.metadata_routing import get_routing_for_object, process_routing

from ..metrics._result import PerQueryResult, means_of
from ..metrics._scorer import (
    RankingScorer,
    _one_score_per_row,
    _response_method_for,
    get_scorer,
    make_ranking_scorer,
    needs_grade_scale,
)
from ..utils._param_validation import validate_params
from ..utils._qid import factorize, resolve_qid
from ..utils._sklearn_internals import _BaseScorer, _cached_call, _MultimetricScorer
from ._split import QueryKFold, _QuerySplitter


def grade_scale(metric, y, *, convention=None):
    """``{"max_grade": ...}`` for a metric that needs a grade scale its name does not fix.

    ERR (and RBP with ``graded=True``) divide the grades by ``max_grade``, which by default
    is the largest grade of each call: each fold of a cross-validation would be scored on
    its own scale. This fixes it to the largest grade of the whole ``y`` (1 when every grade
    is 0, where any scale gives 0), unless the metric name or the convention sets it:
    :func:`cross_validate` applies it to metric names, and so do the benchmark runs.

    Parameters
    ----------
    metric : str
        A metric name (``"err@10"``...).
    y : array-like
        The grades of the whole data set.
    convention : str, default=None
        A convention preset, which may set the scale itself.

    Returns
    -------
    options : dict
        Empty, or ``{"max_grade": largest grade of y}``, an int when it is a whole number.

    Examples
    --------
    >>> from sklearn_rank.model_selection import grade_scale
    >>> grade_scale("err@10", [0, 1, 3]), grade_scale("ndcg@10", [0, 1, 3])
    ({'max_grade': 3}, {})
    """
    if not needs_grade_scale(metric, convention=convention):
        return {}
    grades = np.asarray(y)
    if grades.dtype.kind not in "biuf":
        raise ValueError(
            f"y must hold numeric relevance grades; got an array of dtype {grades.dtype}."
        )
    top = float(np.max(grades)) if len(grades) else 0.0
    top = top if top > 0 else 1.0  # all grades 0: any scale gives 0
    return {"max_grade": int(top) if top.is_integer() else top}


def _scorers(scoring, y):
    """Scoring as a dict name -> scorer (metric names become ranking scorers).

    A metric name that needs the top grade of the scale (ERR...) gets the largest grade of
    the whole ``y``, so that every fold is scored on the same scale.
    """

    def scorer(metric):
        if isinstance(metric, str) and needs_grade_scale(metric):
            return make_ranking_scorer(metric, **grade_scale(metric, y))
        return get_scorer(metric)

    if isinstance(scoring, str):
        return {scoring: scorer(scoring)}
    if callable(scoring):
        return {"score": scoring}
    if isinstance(scoring, dict):
        return {name: scorer(s) for name, s in scoring.items()}
    names = list(scoring)
    if len(set(names)) != len(names) or not all(isinstance(n, str) for n in names):
        raise ValueError(
            f"scoring as a list must hold distinct metric names; got {names!r}."
        )
    return {name: scorer(name) for name in names}


def _splits(cv, X, y, qid, disjoint_tests=False):
    """The (train, test) pairs of ``cv``, checked to keep every query whole.

    A query with rows in both sets, or a test set with only part of a query, is an error:
    the first leaks, the second scores a shorter query than the data holds. A training set
    may hold part of a query (documents subsampled on purpose): that changes what is
    learnt, not what the test scores measure. With ``disjoint_tests``, a row in the test
    sets of two splits is an error too.
    """
    if cv is None or isinstance(cv, Integral):
        cv = QueryKFold(5 if cv is None else cv)
    if isinstance(cv, _QuerySplitter):
        splits = list(cv.split(X, y, qid=qid))
    elif hasattr(cv, "split"):
        # a group splitter (one that requests groups) gets the query ids as its groups
        wants_groups = get_routing_for_object(cv).consumes("split", ["groups"])
        splits = list(cv.split(X, y, **({"groups": qid} if wants_groups else {})))
    else:
        splits = [(np.asarray(train), np.asarray(test)) for train, test in cv]
    codes, queries = factorize(qid, len(qid))
    sizes = np.bincount(codes, minlength=len(queries))
    for i, (train, test) in enumerate(splits):
        shared = np.intersect1d(qid[train], qid[test])
        if len(shared):
            raise ValueError(
                f"Split {i} of cv={cv!r} puts rows of the same queries in training and "
                f"test (e.g. qid {', '.join(map(str, shared[:3]))}): a query must stay whole, "
                "or the test scores leak. Use sklearn_rank.model_selection.QueryKFold, or a "
                "group splitter such as GroupKFold, which receives the query ids as groups."
            )
        # a test query cut short would be scored as if its missing rows did not exist
        in_test = np.bincount(codes[test], minlength=len(sizes))
        cut = np.flatnonzero((in_test > 0) & (in_test < sizes))
        if len(cut):
            raise ValueError(
                f"Split {i} of cv={cv!r} has a test set that holds only part of query "
                f"{queries[cut[0]]} ({len(cut)} such queries): a test query must hold all its "
                "rows, or it is scored as a shorter query than it is. Put every row of a query "
                "in the same test set, e.g. with sklearn_rank.model_selection.QueryKFold."
            )
    if disjoint_tests and splits:
        counts = np.bincount(np.concatenate([np.asarray(test, dtype=np.intp)
                                             for _, test in splits]), minlength=1)
        if (counts > 1).any():
            row = int(np.argmax(counts > 1))
            raise ValueError(
                f"return_predictions=True needs test sets that do not overlap, one prediction "
                f"per row; row {row} is in the test sets of {counts[row]} splits of cv={cv!r}. "
                "Use a splitter whose test sets partition the data, such as QueryKFold."
            )
    return splits


# The attribute under which _FoldScorer leaves what it computed on each fold's fitted clone.
_KEPT = "_sklearn_rank_fold_predictions"


class _FoldScorer(_MultimetricScorer):
    """Every scorer of a fold on one prediction, kept on the fitted clone for the caller.

    scikit-learn's ``cross_validate`` brings back only numbers from its scorer, and the
    fitted clones (``return_estimator=True``). This scorer, a scikit-learn multi-metric
    scorer in all else (same routing, one call of each response method for all the
    scorers, a failing scorer's error kept as text when ``raise_exc`` is False, which
    scikit-learn turns into ``error_score`` with its warning), leaves on the clone it scored
    the query ids of the call, the responses it computed and each ranking scorer's
    per-query result (None for a call where a scorer failed), so that
    :func:`cross_validate` can return the predictions and per-query values without
    predicting or scoring again; it then takes them off. ``callback()`` is called after
    the first scoring of each clone (its test set), in this process only: the caller
    passes none to worker processes.
    """

    def __init__(self, scorers, callback=None, raise_exc=True):
        super().__init__(scorers=scorers, raise_exc=raise_exc)
        self.callback = callback

    def __call__(self, estimator, X, y_true, **kwargs):
        routed = process_routing(self, "score", **kwargs)
        cache = {}
        method_caller = partial(_cached_call, cache)
        scores, results, failed = {}, {}, False
        for name, scorer in self._scorers.items():
            params = routed[name].score
            try:
                if isinstance(scorer, RankingScorer):
                    results[name] = scorer._evaluate(method_caller, estimator, X, y_true,
                                                     **params)
                    scores[name] = means_of(results[name], stacklevel=2)[scorer.name]
                elif isinstance(scorer, _BaseScorer):
                    scores[name] = scorer._score(method_caller, estimator, X, y_true, **params)
                else:
                    scores[name] = scorer(estimator, X, y_true, **params)
            except Exception:
                if self._raise_exc:
                    raise
                scores[name] = format_exc()
                failed = True
        calls = vars(estimator).setdefault(_KEPT, [])
        calls.append((kwargs.get("qid"), None, None) if failed
                     else (kwargs.get("qid"), cache, results))
        if self.callback is not None and len(calls) == 1:
            self.callback()
        return scores


def _take_responses(result, qid, kept):
    """Per fold, ``(responses, per-query results)`` computed on its test set.

    ``kept`` holds, per fitted clone, the calls that :class:`_FoldScorer` left on it.
    """
    folds = []
    for fold, (calls, test) in enumerate(zip(kept, result["indices"]["test"])):
        test_ids = qid[test]
        computed = next(((cache, results) for ids, cache, results in calls
                         if ids is not None and np.array_equal(ids, test_ids)), (None, None))
        if computed[0] is None:  # error_score other than "raise", and a failed fit or scorer
            raise ValueError(
                f"Fold {fold} has no test predictions: its fit or its scoring failed. "
                "Per-query values and predictions need every fold; use "
                "error_score='raise' to see the error."
            )
        folds.append(computed)
    return folds


@validate_params(
    {
        "estimator": [object],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "qid": ["array-like", None],
        "scoring": [str, callable, list, tuple, dict],
        "cv": ["cv_object"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "params": [dict, None],
        "pre_dispatch": [Integral, str],
        "return_train_score": ["boolean"],
        "return_estimator": ["boolean"],
        "return_indices": ["boolean"],
        "return_per_query": ["boolean"],
        "return_predictions": ["boolean"],
        "callback": [callable, None],
        "error_score": [str, float, int],
        "qid_column": [str, None],
    },
    prefer_skip_nested_validation=False,
)
def cross_validate(estimator, X, y, *, qid=None, scoring="ndcg@10", cv=5, n_jobs=None,
                   verbose=0, params=None, pre_dispatch="2*n_jobs", return_train_score=False,
                   return_estimator=False, return_indices=False, return_per_query=False,
                   return_predictions=False, callback=None, error_score="raise",
                   qid_column="qid"):
    """Cross-validate a ranker on whole queries, routing the query ids for you.

    scikit-learn's :func:`~sklearn.model_selection.cross_validate`, with three differences:
    the query ids reach the splitter, the scorers and every estimator that requests them
    (sklearn-rank's adapters do) without any routing set-up; a splitter that cuts a query
    between training and test, or tests part of a query, is an error; and a failing fit
    raises instead of scoring NaN.

    Parameters
    ----------
    estimator : estimator object
        The ranker, regressor or pipeline to fit.

    X : array-like or DataFrame of shape (n_samples, n_features)
        Features. A DataFrame may hold the query ids in its ``qid_column``.

    y : array-like of shape (n_samples,)
        Graded relevance.

    qid : array-like of shape (n_samples,), default=None
        Query id of each row; taken from ``X[qid_column]`` when None.

    scoring : str, callable, list, tuple or dict, default: ``"ndcg@10"``
        Metric name(s) (``"ndcg@10"``, ``["ndcg@10", "err@10", "map"]``), scorers, or a dict
        name -> metric name or scorer. The results use the names as keys
        (``"test_ndcg@10"``); the estimator predicts once per fold for all of them.
        A metric name that needs the top grade of the relevance scale and does not give it
        (``"err@10"``, ``"rbp(graded=true)"``) is scored with ``max_grade`` set to the
        largest grade of the whole ``y``, the same for every fold; give
        ``"err@10(max_grade=4)"`` when your scale goes higher than the data.

    cv : int, cross-validation generator or iterable, default=5
        An int is the number of folds of a :class:`QueryKFold`. A scikit-learn splitter
        whose ``split`` takes ``groups`` receives the query ids there.

    n_jobs : int, default=None
        Number of jobs to run in parallel.

    verbose : int, default=0
        Verbosity.

    params : dict, default=None
        Other metadata for the estimator's fit and the scorers (``sample_weight``...),
        routed as scikit-learn's metadata routing does.

    pre_dispatch : int or str, default="2*n_jobs"
        Number of jobs dispatched in parallel.

    return_train_score, return_estimator, return_indices : bool, default=False
        As in scikit-learn.

    return_per_query : bool, default=False
        Also return ``result["per_query"]``: a
        :class:`~sklearn_rank.metrics.PerQueryResult` of the test queries of every fold,
        with one metric per scorer (named as in ``test_<name>``): its ``query_ids``, its
        ``fold`` column (the fold, 0 for the first, that tested each query), each metric's
        per-query test values (``result["per_query"]["ndcg@10"]``), undefined masks and
        options, and the query weights when the scorers were given ``sample_weight``. It
        is ready for :mod:`sklearn_rank.stats`, which pairs it with other results by
        query id. The values come from the predictions the scores were computed on: no
        second prediction. A query tested by several folds (repeated cross-validation)
        has one entry per fold; the entries are ordered by query id, then fold.

    return_predictions : bool, default=False
        Also return ``result["predictions"]``: the out-of-fold ranking scores, one array of
        shape (n_samples,) in the rows' order, each row's score predicted by the model of
        the fold that tests it (the response of the first scorer: ``predict`` for rankers
        and regressors); NaN for a row that no fold tests. The scores are those the
        metrics were computed on: each fold predicts once. The test sets must not overlap.

    callback : callable, default=None
        Called as ``callback()`` once per fold, when its test set is scored: progress
        reporting, say. With one job, it runs as each fold ends; when the folds run in
        several processes (``n_jobs``), it is not sent to them, and the calls come, one per
        fold, when all are done.

    error_score : "raise" or float, default="raise"
        What to do when a fit or a scorer fails: raise (the default, unlike
        scikit-learn), or score this value, with scikit-learn's warning.

    qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids.

    Returns
    -------
    result : dict
        ``fit_time``, ``score_time``, ``test_<name>`` (and ``train_<name>``) arrays of
        shape (n_splits,), plus ``estimator``, ``indices``, ``per_query`` and
        ``predictions`` on request.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.model_selection import cross_validate
    >>> X, y, qid = make_ranking(n_queries=30, random_state=0)
    >>> result = cross_validate(Ridge(), X, y, qid=qid, scoring=["ndcg@10", "map"], cv=3)
    >>> result["test_ndcg@10"].shape
    (3,)

    The out-of-fold scores, predicted once per fold, and the per-query test values:

    >>> result = cross_validate(Ridge(), X, y, qid=qid, scoring="ndcg@10", cv=3,
    ...                         return_per_query=True, return_predictions=True)
    >>> result["predictions"].shape == y.shape
    True
    >>> per_query = result["per_query"]
    >>> per_query
    PerQueryResult(n_queries=30, metrics=['ndcg@10'], n_folds=3)
    >>> per_query.query_ids.shape, per_query.fold.shape, per_query["ndcg@10"].shape
    ((30,), (30,), (30,))
    """
    _, qid = resolve_qid(X, qid, qid_column=qid_column, caller="cross_validate")
    scorers = _scorers(scoring, y)
    for option, requested in (("return_per_query", return_per_query),
                              ("return_predictions", return_predictions)):
        if not requested:
            continue
        for name, scorer in scorers.items():  # before any fit, not after all of them
            if not isinstance(scorer, RankingScorer):
                raise TypeError(f"{option}=True needs ranking scorers; {name!r} is {scorer!r}.")
    splits = _splits(cv, X, y, qid, disjoint_tests=return_predictions)
    routed = {"qid": qid, **(params or {})}
    respond = return_per_query or return_predictions
    in_process = effective_n_jobs(n_jobs) == 1
    scoring = (_FoldScorer(scorers, callback if in_process else None,
                           raise_exc=error_score == "raise")
               if respond or (callback is not None and in_process) else scorers)
    with config_context(enable_metadata_routing=True):
        result = _sklearn_cross_validate(
            estimator, X, y, scoring=scoring, cv=splits, n_jobs=n_jobs, verbose=verbose,
            params=routed, pre_dispatch=pre_dispatch, return_train_score=return_train_score,
            return_estimator=return_estimator or respond,
            return_indices=return_indices or respond, error_score=error_score,
        )
    if callback is not None and not in_process:
        for _ in splits:
            callback()
    kept = [vars(model).pop(_KEPT, []) for model in result.get("estimator", ())]
    if respond:
        folds = _take_responses(result, qid, kept)
        if return_per_query:
            result["per_query"] = _per_query(scorers, folds)
        if return_predictions:
            result["predictions"] = _predictions(result, scorers, len(qid), folds)
        if not return_estimator:
            del result["estimator"]
        if not return_indices:
            del result["indices"]
    return result


def _per_query(scorers, folds):
    """Per-query test values of every ranking scorer, those its fold scorer computed, as
    one :class:`PerQueryResult` with a fold column: a metric per scorer, named as the
    scorer is in ``scoring``, with its undefined mask and options.

    Every scorer of a fold scores the same rows, so their results share the query ids,
    and, when each was given the same ``sample_weight``, the query weights.
    """
    parts = []
    for fold, (_, results) in enumerate(folds):
        values, undefined, options = {}, {}, {}
        first = None
        for name, scorer in scorers.items():
            scored = results[name]
            first = scored if first is None else first
            _check_same_weights(first, scored, name, next(iter(scorers)))
            values[name] = scored[scorer.name]
            undefined[name] = scored.undefined[scorer.name]
            options[name] = dict(scored.options[scorer.name])
        parts.append(PerQueryResult._trusted(
            first.query_ids, values, undefined, first.query_weight, options, first.weight_unit,
            np.full(len(first), fold, dtype=np.int64)))
    return PerQueryResult.concat(parts)


def _check_same_weights(first, other, name, first_name):
    """Refuse scorers of one fold that were given different query weights: one result
    holds one weight per query."""
    same = (first.query_weight is None) == (other.query_weight is None) and (
        first.query_weight is None
        or (first.weight_unit == other.weight_unit
            and np.array_equal(first.query_weight, other.query_weight)))
    if not same:
        raise ValueError(
            f"return_per_query=True returns every scorer's per-query values in one "
            f"PerQueryResult, with one weight per query, but scorers {first_name!r} and "
            f"{name!r} were given different sample weights (one of them none). Request "
            "sample_weight for every scorer (scorer.set_score_request(sample_weight=True)) "
            "or for none."
        )


def _predictions(result, scorers, n_samples, folds):
    """The out-of-fold scores in the rows' order: the first scorer's, NaN where untested."""
    first = next(iter(scorers.values()))
    predictions = np.full(n_samples, np.nan)
    for estimator, test, (computed, _) in zip(result["estimator"], result["indices"]["test"],
                                              folds):
        method = _response_method_for(estimator, first.response_method)
        predictions[test] = _one_score_per_row(computed[method], estimator, method)
    return predictions
