"""Ranking scorers: genuine scikit-learn scorers that know about queries.

A scorer built here works wherever scikit-learn takes ``scoring=``: ``GridSearchCV``,
``RandomizedSearchCV``, ``cross_validate``, ``validation_curve``..., and sklearn-rank's
``HalvingGridSearchCV``, alone or in a multi-metric dict or list, in which case the estimator
predicts once per fold. Everything a scorer can check is checked when it is built (options,
grade scale, response method), since scikit-learn turns a scorer's error during a search into
a NaN score and a warning.
It finds the query ids either as routed metadata (it requests ``qid`` by default) or in a
DataFrame column of ``X`` (see :mod:`sklearn_rank.utils._qid`).
"""

from functools import partial

import numpy as np
from sklearn.base import is_classifier

from ..utils._param_validation import validate_parameter_constraints
from ..utils._qid import QID_HELP, has_qid_column, is_single_query, resolve_qid
from ..utils._sklearn_internals import (
    _BaseScorer,
    _cached_call,
    _check_response_method,
    _raise_for_params,
)
from ..utils._trained import check_trained_queries
from ._bound import bind_metric, grade_scale_message, scale_left_to_data
from ._input import check_ranking_input
from ._registry import METRICS
from ._result import means_of, result_of

# Names offered by get_scorer_names(): the usual cut-offs of each metric taking one.
_CUTOFFS = (1, 3, 5, 10, 20)

# Methods a ranking scorer may take its scores from.
_RESPONSE_METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function")
# What response_method="auto" tries on a binary classifier, in order: decision_function does
# not saturate as probabilities do (fewer false ties), and ranks as predict_proba does.
_BINARY_AUTO = ("decision_function", "predict_proba")


class RankingScorer(_BaseScorer):
    """A scorer ``scorer(estimator, X, y, qid=None)`` computing one ranking metric.

    Build it with :func:`make_ranking_scorer` or :func:`get_scorer`.
    """

    # Under metadata routing, a ranking scorer asks for the query ids without being told.
    __metadata_request__score = {"qid": True}

    def __init__(self, name, options, response_method, qid_column, convention):
        caller = f"make_ranking_scorer({name!r})"
        # the metric, bound once: parsed, its options checked, merged and validated, the
        # convention resolved; every call of the scorer computes it as it is
        bound = bind_metric(name, options=options, convention=convention, caller=caller)
        validate_parameter_constraints({"qid_column": [str, None]}, {"qid_column": qid_column},
                                       caller_name=caller)
        _check_response_method_param(response_method, caller)
        bound.check_declared_scale(name, caller)
        self.response_method = (tuple(response_method) if isinstance(response_method, list)
                                else response_method)
        super().__init__(
            score_func=bound.metric.function, sign=1, kwargs=dict(options),
            # what scikit-learn's multi-metric scorer inspects to decide on caching; the
            # method called is chosen per estimator by _response_method_for
            response_method=(_BINARY_AUTO + ("predict",) if self.response_method == "auto"
                             else self.response_method),
        )
        self.name = name
        self.qid_column = qid_column
        self.convention = convention
        self._bound = bound

    def set_score_request(self, **kwargs):
        """Set the metadata that the scorer requests, keeping its request of ``qid``.

        scikit-learn's ``set_score_request`` replaces the whole request: on a ranking
        scorer, ``set_score_request(sample_weight=True)`` would drop the ``qid`` that it
        requests by default, and the search would then fail for want of query ids. The
        request of ``qid`` stays unless ``qid`` is among ``kwargs``.

        Parameters
        ----------
        **kwargs : dict
            ``param=alias`` pairs, as in scikit-learn: ``True``, ``False``, ``None`` or a
            string alias.

        Returns
        -------
        self : RankingScorer
        """
        super().set_score_request(**kwargs)
        if "qid" not in kwargs:
            self._metadata_request.score.add_request(param="qid", alias=True)
        return self

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in self._kwargs.items())
        if self.convention is not None:
            extra += f", convention={self.convention!r}"
        if self.response_method != "auto":
            extra += f", response_method={self.response_method!r}"
        if self.qid_column != "qid":
            extra += f", qid_column={self.qid_column!r}"
        return f"make_ranking_scorer({self.name!r}{extra})"

    def __call__(self, estimator, X, y_true, *, qid=None, sample_weight=None, **kwargs):
        """Score ``estimator`` on ``X`` against ``y_true``, query by query.

        Parameters
        ----------
        estimator : object
            Fitted estimator with the scorer's response method.
        X : array-like or DataFrame
            Features; a DataFrame may hold the query ids in its ``qid_column``.
        y_true : array-like of shape (n_samples,)
            Graded relevance.
        qid : array-like of shape (n_samples,) or "single_query", default=None
            Query ids; taken from ``X[qid_column]`` when None. Unlike other metadata, it is
            accepted with or without metadata routing. ``"single_query"`` scores all rows
            as one query, on purpose, as the metric functions take it.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; a query weighs the mean of its rows' weights.
        **kwargs
            Other metadata: only with metadata routing enabled.

        Returns
        -------
        score : float
        """
        _raise_for_params(kwargs, self, None)
        return self._score(partial(_cached_call, None), estimator, X, y_true, qid=qid,
                           sample_weight=sample_weight, **kwargs)

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        result = self._evaluate(method_caller, estimator, X, y_true, **kwargs)
        return means_of(result, stacklevel=3)[self.name]  # a warning at the caller

    def _evaluate(self, method_caller, estimator, X, y_true, qid=None, sample_weight=None,
                  **kwargs):
        """The :class:`~sklearn_rank.metrics.PerQueryResult` of the scorer's metric (named
        ``self.name``) on the estimator's scores: the per-query values with their ids."""
        if kwargs:
            raise TypeError(
                f"{self!r} got unexpected metadata {sorted(kwargs)}; it takes qid and "
                "sample_weight."
            )
        if qid is None and not has_qid_column(X, self.qid_column):
            raise ValueError(_missing_qid_message(self, X))
        y_score, qid = estimator_scores(
            estimator, X, qid, response_method=self.response_method,
            qid_column=self.qid_column, caller=repr(self), method_caller=method_caller,
        )
        # a test query cut from a training query (cv=5, KFold) is refused, naming the fix
        check_trained_queries(estimator, y_true, qid, caller=repr(self))
        data = check_ranking_input(y_true, y_score, qid, sample_weight)
        return result_of(data, [(self.name, self._bound)])


def estimator_scores(estimator, X, qid, *, response_method, qid_column, caller,
                     method_caller=None):
    """``(y_score, qid)``: one ranking score per row of a fitted estimator on ``X``, and
    the query ids, from ``qid`` or from ``X[qid_column]``.

    The sequence of every ranking scorer, and of the displays' ``from_estimator``: an error
    when there are no query ids, or when ``X`` has the query-id column and the model was
    fitted with it as a feature. The estimator gets ``X`` as it was fitted on, query-id
    column included: the adapters and :class:`~sklearn_rank.preprocessing.DropQueryId`
    drop that column themselves. ``method_caller`` calls the response method (scikit-learn's
    ``_cached_call``, which a multi-metric scorer shares among its scorers).
    """
    column = has_qid_column(X, qid_column)
    if not is_single_query(qid, caller):  # "single_query": all rows one query, on purpose
        _, qid = resolve_qid(X, qid, qid_column=qid_column, caller=caller)
    if column:
        _check_qid_not_a_feature(estimator, qid_column, caller)
    method = _response_method_for(estimator, response_method)
    y_score = (method_caller or partial(_cached_call, None))(estimator, method, X)
    return _one_score_per_row(y_score, estimator, method), qid


def _response_method_for(estimator, response_method):
    """The response method to call on ``estimator``: ``"auto"`` resolved.

    ``"auto"`` ranks a classifier by a continuous score, never by its hard labels, as
    scikit-learn's own ranking scorers (``roc_auc``, ``average_precision``) do: a binary
    classifier by its ``decision_function`` (else ``predict_proba``), a multiclass one by
    the expected grade from ``predict_proba``. Anything else (rankers, regressors,
    pipelines ending in one) by ``predict``.
    """
    if response_method != "auto":
        return response_method
    if not is_classifier(estimator):
        return "predict"
    classes = getattr(estimator, "classes_", None)
    if classes is not None and len(classes) > 2:
        if not hasattr(estimator, "predict_proba"):
            # its decision_function gives one score per class: nothing to rank documents by
            raise ValueError(
                f"{type(estimator).__name__} is a classifier of {len(classes)} grades "
                "without predict_proba: a multiclass classifier is ranked by its expected "
                "grade, which needs predict_proba. Use a regressor of the grades, a "
                "classifier with predict_proba (e.g. LogisticRegression), a binary "
                "classifier of relevant/not relevant, or a ranker."
            )
        return "predict_proba"
    return _BINARY_AUTO


def _one_score_per_row(y_score, estimator, response_method):
    """Reduce a classifier's 2-D response to one ranking score per row.

    Binary ``predict_proba`` already comes reduced to the positive class by scikit-learn;
    a multiclass ``predict_proba`` becomes the expected grade ``sum_c p_c * c`` (classes must
    be numbers), a multiclass ``decision_function`` is not a ranking score.
    """
    y_score = np.asarray(y_score)
    if y_score.ndim == 1:
        return y_score
    if y_score.ndim == 2 and y_score.shape[1] == 1:
        return y_score[:, 0]
    # the method actually called: the first of a tuple that the estimator has
    method = _check_response_method(estimator, response_method).__name__
    classes = getattr(estimator, "classes_", None)
    numeric = classes is not None and np.asarray(classes).dtype.kind in "biuf"
    if method == "predict_proba" and numeric:
        return y_score @ np.asarray(classes, dtype=np.float64)
    raise ValueError(
        f"The estimator's {method} returned an array of shape {y_score.shape}; a ranking "
        "scorer needs one score per row. Use response_method='predict_proba' (or 'auto') "
        "with a classifier whose classes are grades (the score is then the expected grade), "
        "or a regressor."
    )


def _check_response_method_param(response_method, caller):
    if isinstance(response_method, str):
        valid = response_method == "auto" or response_method in _RESPONSE_METHODS
    else:
        valid = (isinstance(response_method, (tuple, list)) and len(response_method) > 0
                 and all(m in _RESPONSE_METHODS for m in response_method))
    if not valid:
        raise ValueError(
            f"{caller}: response_method must be 'auto', one of "
            f"{', '.join(map(repr, _RESPONSE_METHODS))}, or a tuple of them tried in order; "
            f"got {response_method!r}."
        )


def needs_grade_scale(metric, *, options=None, convention=None):
    """Whether ``metric`` depends on a grade scale that nothing declares.

    ERR (and RBP with ``graded=True``) divides every grade by the top grade ``max_grade``.
    Left unset, it is the largest grade of each call: of each cross-validation fold, of each
    partition, so that a score would depend on which queries share the call.

    Parameters
    ----------
    metric : str
        Metric name, e.g. ``"err@10"`` or ``"rbp(graded=true)"``.
    options : dict, default=None
        Options given besides the name (``{"max_grade": 4}``).
    convention : str, default=None
        Preset of conventions, which may set ``max_grade`` (``"catboost"`` does for ERR).

    Returns
    -------
    needed : bool
        True when the metric uses ``max_grade`` and neither the name, ``options`` nor the
        convention sets it. The options are not validated (:func:`bind_metric` does):
        a command can ask before it reports the errors of the names.

    See Also
    --------
    BoundMetric.needs_top_label : The same rule, of a bound metric.

    Examples
    --------
    Scoring the folds of a cross-validation on one scale, the largest grade of the data
    (what :func:`~sklearn_rank.model_selection.cross_validate` does for metric names):

    >>> import numpy as np
    >>> from sklearn_rank.metrics import make_ranking_scorer, needs_grade_scale
    >>> y = np.array([0, 1, 3, 2])
    >>> needs_grade_scale("err@10"), needs_grade_scale("err@10(max_grade=4)")
    (True, False)
    >>> needs_grade_scale("err@10", convention="catboost")
    False
    >>> scorer = make_ranking_scorer("err@10", max_grade=int(y.max()))
    """
    return scale_left_to_data(metric, options=options, convention=convention)


def check_grade_scale(metric, *, options=None, convention=None, caller=None):
    """Raise a ``ValueError`` naming the fix when ``metric`` needs an undeclared grade scale.

    The rule of every scorer, adapter and command that scores subsets of the data (folds,
    partitions, validation sets): see :func:`needs_grade_scale`. Direct calls of the metric
    functions and :func:`~sklearn_rank.metrics.evaluate` keep the largest grade of the call.

    Parameters
    ----------
    metric : str
        Metric name, e.g. ``"err@10"``.
    options : dict, default=None
        Options given besides the name.
    convention : str, default=None
        Preset of conventions.
    caller : str, default=None
        Who asks, for the message; ``"make_ranking_scorer(...)"`` also suggests the keyword.

    Raises
    ------
    ValueError
        When :func:`needs_grade_scale` is true.
    """
    if needs_grade_scale(metric, options=options, convention=convention):
        raise ValueError(grade_scale_message(metric, caller))


def _missing_qid_message(scorer, X):
    where = ""
    if hasattr(X, "columns"):
        where = f" X is a DataFrame, but has no {scorer.qid_column!r} column."
    return (
        f"{scorer!r} needs the query id of every row, and got none.{where} With metadata "
        "routing off (scikit-learn's default), groups=qid in search.fit(X, y, groups=qid) or "
        "cross_val_score(..., groups=qid) reaches only the splitter, never the scorer. "
        + QID_HELP.format(column=scorer.qid_column or "qid")
        + " Inside a search or cross_val_score, scikit-learn turns this error into a NaN "
        "score with a warning (error_score=np.nan); pass error_score='raise' to stop at it."
    )


def _features_seen(estimator, qid_column):
    """Names of the input features that reach the model of ``estimator``, or None.

    None when they cannot be told: no feature names, a meta-estimator other than a pipeline
    or a search, which may drop columns itself, or a model that reads and drops the query-id
    column itself (sklearn-rank's rankers, whose ``qid_column`` names it).
    """
    if getattr(estimator, "qid_column", None) == qid_column:
        return None
    best = getattr(estimator, "best_estimator_", None)
    if best is not None:  # a fitted search scores with its best estimator
        return _features_seen(best, qid_column)
    steps = getattr(estimator, "steps", None)
    if steps is not None:  # a Pipeline: what its last step is fed
        final = steps[-1][1]
        if final is None or final == "passthrough":
            return None
        if len(steps) == 1:
            return _features_seen(final, qid_column)
        try:
            names = estimator[:-1].get_feature_names_out()
        except Exception:  # a step without feature names: cannot tell
            return None
        # a ColumnTransformer prefixes the names it passes on: "remainder__qid"
        names = [str(name).rsplit("__", 1)[-1] for name in names]
        if getattr(final, "qid_column", None) == qid_column:
            # a ranker drops the query-id column of a DataFrame it is fed; fed an array (a
            # transformer's output, with routing on), it takes every column as a feature:
            # then it was fitted on as many features as the steps before it put out
            if qid_column in names and getattr(final, "n_features_in_", None) == len(names):
                return names
            return None
        return names
    params = estimator.get_params(deep=False) if hasattr(estimator, "get_params") else {}
    if any(hasattr(value, "fit") and not isinstance(value, type) for value in params.values()):
        return None  # a meta-estimator: what its inner model sees is its business
    names = getattr(estimator, "feature_names_in_", None)
    return None if names is None else list(names)


def _check_qid_not_a_feature(estimator, qid_column, caller):
    """Refuse a model fitted with the query-id column as a feature (no DropQueryId first)."""
    features = _features_seen(estimator, qid_column)
    if features is not None and qid_column in features:
        raise ValueError(
            f"{caller}: X has a query-id column {qid_column!r}, and the model was fitted with "
            "that column as one of its features. Query ids are labels, not features: the "
            "score would look plausible but measure a model that learnt from them. In front "
            "of a pointwise model, put "
            "sklearn_rank.preprocessing.DropQueryId() first in the pipeline; in front of a "
            "ranker, wrap the preprocessing as sklearn_rank.preprocessing.KeepQueryId(...). "
            "If the column is a genuine feature, pass qid_column=None (or another column) to "
            "the scorer and route the query ids."
        )


def make_ranking_scorer(metric, *, response_method="auto", qid_column="qid",
                        convention=None, **options):
    """Make a scikit-learn scorer from a ranking metric name.

    Parameters
    ----------
    metric : str
        Metric name, as in :func:`sklearn_rank.metrics.evaluate`: ``"ndcg@10"``,
        ``"err@10"``, ``"map"``, ``"mrr@10"``, ``"p@5"``, ``"rbp(p=0.8)"``...

    response_method : "auto", str or tuple of str, default="auto"
        Method of the estimator that gives the scores. ``"auto"`` ranks by a continuous
        score, as scikit-learn's ``roc_auc`` and ``average_precision`` scorers do, never by
        hard labels: a classifier (or a pipeline ending in one) by its
        ``decision_function`` when binary (else ``predict_proba``), by the expected grade
        ``sum_c p_c * c`` from ``predict_proba`` when multiclass over numeric grades;
        rankers, regressors and anything else by ``predict``. Or one of ``"predict"``,
        ``"predict_proba"``, ``"predict_log_proba"``, ``"decision_function"``, or a tuple of
        them tried in order.

    qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids, read when no ``qid`` is routed.
        When ``X`` has that column, a model fitted with it as a feature (no
        :class:`~sklearn_rank.preprocessing.DropQueryId` in front of it) is an error.

    convention : str, default=None
        Preset of conventions, as in :func:`sklearn_rank.metrics.ndcg_score`.

    **options
        Options of the metric (``gain="linear"``, ``max_grade=4``, ``ties="stable"``...),
        checked here: an option the metric does not take, or one the name already sets,
        is an error.

    Returns
    -------
    scorer : RankingScorer
        Callable as ``scorer(estimator, X, y, qid=qid)``; higher is better.

    Raises
    ------
    ValueError
        For a metric that divides the grades by the top grade of the scale (ERR, RBP with
        ``graded=True``) when no ``max_grade`` is given, in the name, as an option or by
        the convention: each fold of a search would otherwise be scored on its own scale.
        Give the scale's top grade (``make_ranking_scorer("err@10", max_grade=4)``), or
        ``max_grade="query"``. :func:`sklearn_rank.model_selection.cross_validate`, which
        sees all the grades, fills it for metric names given as strings.
        When called, for rows of a query that the model (an adapter, a Dask ranker, or a
        pipeline holding one or :class:`~sklearn_rank.preprocessing.DropQueryId`) was
        trained on, other than its trained rows: what ``cv=5`` or ``KFold`` leave in a test
        fold. Use a query splitter (:class:`~sklearn_rank.model_selection.QueryKFold`), or,
        for other queries under reused ids,
        :func:`~sklearn_rank.model_selection.reused_query_ids`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import make_ranking_scorer
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=20, random_state=0)
    >>> scorer = make_ranking_scorer("ndcg@10")
    >>> scorer
    make_ranking_scorer('ndcg@10')
    >>> model = Ridge().fit(X, y)
    >>> 0 < scorer(model, X, y, qid=qid) <= 1
    True
    """
    return RankingScorer(metric, options, response_method, qid_column, convention)


def get_scorer(scoring):
    """Get a ranking scorer from its metric name (a scorer passes through unchanged).

    Parameters
    ----------
    scoring : str or callable
        Metric name such as ``"ndcg@10"`` (see :func:`get_scorer_names`), or a scorer.

    Returns
    -------
    scorer : callable

    Examples
    --------
    >>> from sklearn_rank import get_scorer
    >>> get_scorer("err@10(max_grade=4)")
    make_ranking_scorer('err@10(max_grade=4)')
    """
    if callable(scoring):
        return scoring
    return make_ranking_scorer(scoring)


def get_scorer_names():
    """Names of the ranking scorers, as :func:`get_scorer` takes them.

    Every metric of the registry, and each with the cut-offs 1, 3, 5, 10 and 20 where it
    takes one. Any other cut-off (``"ndcg@7"``) or option (``"rbp(p=0.5)"``) works too.
    ERR is not listed: it needs the top grade of your relevance scale in its name,
    ``"err@10(max_grade=4)"`` for grades 0 to 4 (see :func:`make_ranking_scorer`).

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> from sklearn_rank import get_scorer_names
    >>> "ndcg@10" in get_scorer_names()
    True
    """
    names = []
    for metric in METRICS.values():
        if needs_grade_scale(metric.name):  # no scale fits every data set
            continue
        names.append(metric.name)
        if "k" in metric.options:
            names.extend(f"{metric.name}@{k}" for k in _CUTOFFS)
    return sorted(names)


__all__ = [
    "RankingScorer",
    "check_grade_scale",
    "get_scorer",
    "get_scorer_names",
    "make_ranking_scorer",
    "needs_grade_scale",
]
