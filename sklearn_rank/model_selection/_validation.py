"""Cross-validation of rankers, with the query ids routed for the user."""

from functools import partial
from numbers import Integral

import numpy as np
from sklearn import config_context
from sklearn.metrics._scorer import _cached_call
from sklearn.model_selection import cross_validate as _sklearn_cross_validate
from sklearn.utils import _safe_indexing
from sklearn.utils.metadata_routing import get_routing_for_object

from ..metrics._scorer import RankingScorer, get_scorer, make_ranking_scorer, needs_grade_scale
from ..utils._param_validation import validate_params
from ..utils._qid import resolve_qid
from ._split import QueryKFold, _QuerySplitter


def _scorers(scoring, y):
    """Scoring as a dict name -> scorer (metric names become ranking scorers).

    A metric name that needs the top grade of the scale (ERR...) gets the largest grade of
    the whole ``y``, so that every fold is scored on the same scale.
    """

    def scorer(metric):
        if isinstance(metric, str) and needs_grade_scale(metric):
            grades = np.asarray(y)
            if grades.dtype.kind not in "biuf":
                raise ValueError(
                    f"y must hold numeric relevance grades; got an array of dtype {grades.dtype}."
                )
            top = float(np.max(grades)) if len(grades) else 0.0
            top = top if top > 0 else 1.0  # all grades 0: any scale gives 0
            return make_ranking_scorer(metric, max_grade=int(top) if top.is_integer() else top)
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


def _splits(cv, X, y, qid):
    """The (train, test) pairs of ``cv``, checked to keep every query whole."""
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
    for i, (train, test) in enumerate(splits):
        shared = np.intersect1d(qid[train], qid[test])
        if len(shared):
            raise ValueError(
                f"Split {i} of cv={cv!r} puts rows of the same queries in training and "
                f"test (e.g. qid {', '.join(map(str, shared[:3]))}): a query must stay whole, "
                "or the test scores leak. Use sklearn_rank.model_selection.QueryKFold, or a "
                "group splitter such as GroupKFold, which receives the query ids as groups."
            )
    return splits


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
        "error_score": [str, float, int],
        "qid_column": [str, None],
    },
    prefer_skip_nested_validation=False,
)
def cross_validate(estimator, X, y, *, qid=None, scoring="ndcg@10", cv=5, n_jobs=None,
                   verbose=0, params=None, pre_dispatch="2*n_jobs", return_train_score=False,
                   return_estimator=False, return_indices=False, return_per_query=False,
                   error_score="raise", qid_column="qid"):
    """Cross-validate a ranker on whole queries, routing the query ids for you.

    scikit-learn's :func:`~sklearn.model_selection.cross_validate`, with three differences:
    the query ids reach the splitter, the scorers and every estimator that requests them
    (sklearn-rank's adapters do) without any routing set-up; a splitter that cuts a query
    between training and test is an error; and a failing fit raises instead of scoring NaN.

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
        Also return ``result["per_query"]``: a dict with ``"qid"`` (the test queries of every
        fold, concatenated), ``"fold"`` (the fold of each) and, per metric name, the
        per-query test values, ready for :mod:`sklearn_rank.stats`.

    error_score : "raise" or float, default="raise"
        What to do when a fit or a scorer fails: raise (the default, unlike
        scikit-learn), or score this value, with scikit-learn's warning.

    qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids.

    Returns
    -------
    result : dict
        ``fit_time``, ``score_time``, ``test_<name>`` (and ``train_<name>``) arrays of
        shape (n_splits,), plus ``estimator``, ``indices`` and ``per_query`` on request.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.model_selection import cross_validate
    >>> X, y, qid = make_ranking(n_queries=30, random_state=0)
    >>> result = cross_validate(Ridge(), X, y, qid=qid, scoring=["ndcg@10", "map"], cv=3)
    >>> result["test_ndcg@10"].shape
    (3,)
    """
    _, qid = resolve_qid(X, qid, qid_column=qid_column, caller="cross_validate")
    scorers = _scorers(scoring, y)
    if return_per_query:  # before any fit, not after all of them
        for name, scorer in scorers.items():
            if not isinstance(scorer, RankingScorer):
                raise TypeError(
                    f"return_per_query=True needs ranking scorers; {name!r} is {scorer!r}."
                )
    splits = _splits(cv, X, y, qid)
    routed = {"qid": qid, **(params or {})}
    with config_context(enable_metadata_routing=True):
        result = _sklearn_cross_validate(
            estimator, X, y, scoring=scorers, cv=splits, n_jobs=n_jobs, verbose=verbose,
            params=routed, pre_dispatch=pre_dispatch, return_train_score=return_train_score,
            return_estimator=return_estimator or return_per_query,
            return_indices=return_indices or return_per_query, error_score=error_score,
        )
    if return_per_query:
        result["per_query"] = _per_query(result, scorers, X, y, qid, params or {})
        if not return_estimator:
            del result["estimator"]
        if not return_indices:
            del result["indices"]
    return result


def _per_query(result, scorers, X, y, qid, params):
    """Per-query test values of every ranking scorer, predicting once per fold."""
    columns = {"qid": [], "fold": []}
    columns.update({name: [] for name in scorers})
    y = np.asarray(y)
    weight = params.get("sample_weight")
    for fold, (estimator, test) in enumerate(zip(result["estimator"], result["indices"]["test"])):
        method_caller = partial(_cached_call, {})  # one predict per fold for all metrics
        X_test = _safe_indexing(X, test)
        fold_ids = None
        for name, scorer in scorers.items():
            ids, values = scorer._evaluate(
                method_caller, estimator, X_test, y[test],
                True, qid=qid[test],
                sample_weight=None if weight is None else np.asarray(weight)[test],
            )
            fold_ids = ids
            columns[name].append(values)
        columns["qid"].append(fold_ids)
        columns["fold"].append(np.full(len(fold_ids), fold))
    return {key: np.concatenate(parts) for key, parts in columns.items()}
