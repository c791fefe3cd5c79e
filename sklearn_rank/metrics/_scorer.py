"""Ranking scorers: genuine scikit-learn scorers that know about queries.

A scorer built here works wherever scikit-learn takes ``scoring=``: ``GridSearchCV``,
``RandomizedSearchCV``, ``HalvingGridSearchCV``, ``cross_validate``, ``validation_curve``...,
alone or in a multi-metric dict or list, in which case the estimator predicts once per fold.
It finds the query ids either as routed metadata (it requests ``qid`` by default) or in a
DataFrame column of ``X`` (see :mod:`sklearn_rank.utils._qid`).
"""

from functools import partial

import numpy as np
from sklearn.metrics._scorer import _BaseScorer, _cached_call
from sklearn.utils._metadata_requests import _raise_for_params

from ..utils._param_validation import validate_parameter_constraints
from ..utils._qid import resolve_qid
from ._engine import check_ranking_input
from ._ranking import score_data
from ._registry import METRICS, metric_options, parse_metric

# Names offered by get_scorer_names(): the usual cut-offs of each metric taking one.
_CUTOFFS = (1, 3, 5, 10, 20)


class RankingScorer(_BaseScorer):
    """A scorer ``scorer(estimator, X, y, qid=None)`` computing one ranking metric.

    Build it with :func:`make_ranking_scorer` or :func:`get_scorer`.
    """

    # Under metadata routing, a ranking scorer asks for the query ids without being told.
    __metadata_request__score = {"qid": True}

    def __init__(self, name, options, response_method, qid_column, convention):
        metric, fixed = parse_metric(name)
        kernel_options = metric_options(metric, fixed, options)
        validate_parameter_constraints(
            metric.constraints, kernel_options, caller_name=f"make_ranking_scorer({name!r})"
        )
        super().__init__(
            score_func=metric.function, sign=1, kwargs=dict(options),
            response_method=response_method,
        )
        self.name = name
        self.qid_column = qid_column
        self.convention = convention
        self._metric = metric
        self._kernel_options = kernel_options

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in self._kwargs.items())
        if self.convention is not None:
            extra += f", convention={self.convention!r}"
        if self._response_method != "predict":
            extra += f", response_method={self._response_method!r}"
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
        qid : array-like of shape (n_samples,), default=None
            Query ids; taken from ``X[qid_column]`` when None. Unlike other metadata, it is
            accepted with or without metadata routing.
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
        return self._evaluate(method_caller, estimator, X, y_true, False, **kwargs)[1]

    def _evaluate(self, method_caller, estimator, X, y_true, return_per_query, qid=None,
                  sample_weight=None, **kwargs):
        """The query ids (as in ``np.unique``) and the score, or the per-query values."""
        if kwargs:
            raise TypeError(
                f"{self!r} got unexpected metadata {sorted(kwargs)}; it takes qid and "
                "sample_weight."
            )
        _, qid = resolve_qid(X, qid, qid_column=self.qid_column, caller=repr(self))
        # The estimator gets X as it was fitted on: the adapters and DropQueryId drop the
        # query-id column themselves.
        y_score = method_caller(estimator, self._response_method, X)
        y_score = _one_score_per_row(y_score, estimator, self._response_method)
        data = check_ranking_input(y_true, y_score, qid, sample_weight)
        value = score_data(data, self._metric.name, self._metric.kernel, self.convention,
                           dict(self._kernel_options), return_per_query, self.name)
        return data.query_ids, value


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
    method = response_method if isinstance(response_method, str) else response_method[0]
    classes = getattr(estimator, "classes_", None)
    if "proba" in str(method) and classes is not None and np.asarray(classes).dtype.kind in "biuf":
        return y_score @ np.asarray(classes, dtype=np.float64)
    raise ValueError(
        f"The estimator's {method} returned an array of shape {y_score.shape}; a ranking "
        "scorer needs one score per row. Use response_method='predict_proba' with a "
        "classifier whose classes are grades (the score is then the expected grade), or a "
        "regressor."
    )


def make_ranking_scorer(metric, *, response_method="predict", qid_column="qid",
                        convention=None, **options):
    """Make a scikit-learn scorer from a ranking metric name.

    Parameters
    ----------
    metric : str
        Metric name, as in :func:`sklearn_rank.metrics.evaluate`: ``"ndcg@10"``,
        ``"err@10"``, ``"map"``, ``"mrr@10"``, ``"p@5"``, ``"rbp(p=0.8)"``...

    response_method : str or tuple of str, default="predict"
        Method of the estimator that gives the scores: ``"predict"`` for rankers and
        regressors; ``"predict_proba"`` for a classifier (binary: probability of the
        positive class; multiclass over numeric grades: the expected grade);
        ``"decision_function"``; or a tuple tried in order.

    qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids, read when no ``qid`` is routed.

    convention : str, default=None
        Preset of conventions, as in :func:`sklearn_rank.metrics.ndcg_score`.

    **options
        Options of the metric (``gain="linear"``, ``max_grade=4``, ``ties="stable"``...).

    Returns
    -------
    scorer : RankingScorer
        Callable as ``scorer(estimator, X, y, qid=qid)``; higher is better.

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
    >>> get_scorer("err@10")
    make_ranking_scorer('err@10')
    """
    if callable(scoring):
        return scoring
    return make_ranking_scorer(scoring)


def get_scorer_names():
    """Names of the ranking scorers, as :func:`get_scorer` takes them.

    Every metric of the registry, and each with the cut-offs 1, 3, 5, 10 and 20 where it
    takes one. Any other cut-off (``"ndcg@7"``) or option (``"rbp(p=0.5)"``) works too.

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
        names.append(metric.name)
        if "k" in metric.options:
            names.extend(f"{metric.name}@{k}" for k in _CUTOFFS)
    return sorted(names)


__all__ = ["RankingScorer", "get_scorer", "get_scorer_names", "make_ranking_scorer"]
