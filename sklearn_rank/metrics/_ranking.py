"""Public ranking metrics: thin, validated shells over the shared engine.

Each function has an explicit signature, for IDEs and numpydoc; everything else about its
metric (options, defaults, constraints, kernel, aggregation) comes from its entry in
:data:`~sklearn_rank.metrics._registry.METRICS`, and ``tests/test_metric_spec.py`` checks the
signature against that entry.
"""

import numpy as np

from ..utils._param_validation import validate_params
from . import _per_query as pq
from ._engine import check_ranking_input
from ._registry import CONSTRAINTS, METRICS
from ._result import means_of, result_of


def _constraints(metric, **extra):
    """The ``validate_params`` constraints of the public function of ``metric``: its data
    arguments, its options (from the registry) and ``extra`` arguments of its own."""
    spec = METRICS[metric]
    data = ("y_true", "y_score", "qid", *spec.inputs, "sample_weight", "convention",
            "return_per_query")
    return {**{name: CONSTRAINTS[name] for name in data}, **spec.constraints, **extra}


def _data(metric, arguments):
    """The validated arrays of a call of the public function of ``metric``."""
    spec = METRICS[metric]
    inputs = {name: arguments[name] for name in spec.inputs}
    return check_ranking_input(arguments["y_true"], arguments["y_score"], arguments["qid"],
                               arguments["sample_weight"], caller=spec.function_name,
                               **inputs)


def _options(metric, arguments):
    """The options of ``metric`` among ``arguments``, no_relevant included."""
    return {option.name: arguments[option.name] for option in METRICS[metric].all_options}


def _result(metric, arguments, data=None):
    """The :class:`PerQueryResult` of the public function of ``metric`` called with
    ``arguments``: one metric, named as the function is (``"ndcg_score"``, in messages)."""
    spec = METRICS[metric]
    data = _data(metric, arguments) if data is None else data
    return result_of(data, [(spec.function_name, spec, _options(metric, arguments))],
                     arguments["convention"])


def _score(metric, arguments):
    """The value of the public function of ``metric`` called with ``arguments``.

    ``arguments`` is the function's ``locals()`` on entry: its parameters by name, so that
    no function copies its option list by hand.
    """
    result = _result(metric, arguments)
    name = METRICS[metric].function_name
    if arguments["return_per_query"]:
        return np.array(result[name])  # bare and writable, as always
    # the warning of a metric whose every query was skipped: at the caller of the public
    # function, past this frame, the function's and that of validate_params
    return means_of(result, stacklevel=5)[name]


# The judged mask, described in both tails of the parameters.
_JUDGED_DOC = """judged : array-like of bool of shape (n_samples,) or "y_true", default=None
        Which documents have a judgement. ``False`` marks those without one (in a TREC
        run, those that the qrels do not list); their ``y_true`` must be 0 or NaN.
        ``"y_true"`` reads it from ``y_true`` as trec_eval reads qrels: NaN marks a
        document without a judgement, a negative grade (trec_eval's -1) one in the
        judgement pool left unjudged (see :func:`sklearn_rank.datasets.read_trec`).
        ``None`` means that every row is judged; NaN and negative grades are then
        refused. Unjudged documents count as non-relevant (see ``unjudged``); bpref,
        infAP and Judged@k read the mask."""

_DOCS = {
    "data": """y_true : array-like of shape (n_samples,)
        Graded relevance of each document: non-negative finite numbers (ints or floats).
        Lists, numpy arrays, pandas and polars Series are accepted.

    y_score : array-like of shape (n_samples,)
        Score of each document; higher ranks first. Infinite scores are allowed, NaN is
        not. Scores are ranked exactly as given: integers (beyond 2**53 too, e.g.
        nanosecond timestamps), ``datetime64`` and long doubles are never rounded to
        float64 into false ties.""",
    "qid": """qid : array-like of shape (n_samples,), default=None
        Query id of each document, of any sortable dtype (ints, strings...). Rows may come
        in any order and the documents of a query need not be contiguous. ``None`` means
        that all rows belong to a single query.""",
    "k": """k : int, default=None
        Only the top ``k`` ranked documents of each query count. ``None`` means the whole
        list, as does any ``k`` beyond the longest list (P@k, though, still divides by
        ``k`` with ``short_lists="k"``).""",
    "gain": """gain : {"exponential", "linear"}, default=None
        Gain of a document of grade ``y``: ``2**y - 1`` (Burges et al., LightGBM, XGBoost)
        or ``y`` (Järvelin & Kekäläinen, trec_eval, scikit-learn). ``None`` means
        ``"exponential"``, or the value of ``convention``.""",
    "log_base": """log_base : float, default=2
        Base of the logarithm of the position discount ``1 / log_b(i + 1)``.""",
    "ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered. ``"average"``: the exact
        expectation of the metric over all orderings of each run of tied scores;
        ``"stable"``: input row order; ``"optimistic"`` / ``"pessimistic"``: more / less
        relevant documents first, then input order. ``None`` means ``"average"``, or the
        value of ``convention``.""",
    "no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query that has no relevant document, for which the metric is
        undefined. ``np.nan`` skips such queries: they leave the mean. ``"raise"`` raises a
        ``ValueError``. ``None`` means ``0.0``, or the value of ``convention``.""",
    "unjudged": """unjudged : {"nonrelevant", "condensed"}, default="nonrelevant"
        What the documents without a judgement are (``judged=False``; NaN and negative
        grades with ``judged="y_true"``): non-relevant documents in the ranking, as
        trec_eval counts them by default, or ``"condensed"``: taken out of the ranking
        before the metric is computed (Sakai's condensed lists; trec_eval's ``-J``).""",
    "relevance_threshold": """relevance_threshold : float, default=None
        A document is relevant when ``y_true >= relevance_threshold``. ``None`` means 1
        (trec_eval's rule), or the value of ``convention``.""",
    "tail": """retrieved : array-like of bool of shape (n_samples,), default=None
        ``False`` marks judged documents that the system did not return: they are never
        ranked, but they count as relevant documents of their query (in the denominators
        of recall, AP and R-precision and in the ideal DCG), as in trec_eval. ``None``
        means that every row was retrieved.

    """ + _JUDGED_DOC + """

    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. A query weighs the mean of its rows' weights (LightGBM's
        rule) and the result is the weighted mean over queries.

    convention : {"catboost", "lightgbm", "sklearn", "torchmetrics", "trec_eval", \
            "xgboost"}, default=None
        Preset that sets every convention option left to ``None`` so that the result
        equals what that system computes on the same input. Explicit keywords override
        the preset. See :ref:`conventions`.

    return_per_query : bool, default=False
        Return the per-query values instead of their mean.""",
    "correlation_no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query whose grades are all equal (a single document included): the
        correlation is undefined there. ``None`` means 0.0.""",
    "pairs_tail": """retrieved : array-like of bool of shape (n_samples,), default=None
        ``False`` marks judged documents that the system did not return: they have no
        meaningful score and form no pair. ``None`` means that every row was retrieved.

    """ + _JUDGED_DOC + """

    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row; a query weighs the mean of its rows' weights.

    convention : str, default=None
        Preset name; see :func:`ndcg_score`.

    return_per_query : bool, default=False
        Return the per-query values instead of their mean.""",
    "returns": """Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean of the per-query values, weighted by ``sample_weight`` when given. With
        ``return_per_query=True``, the value of each query in the order of
        ``np.unique(qid)``, NaN for a query skipped by ``no_relevant=np.nan``.""",
}


def _fill_doc(func):
    func.__doc__ = func.__doc__ % _DOCS
    return func


# --------------------------------------------------------------------------------------
# Graded metrics
# --------------------------------------------------------------------------------------


@validate_params(_constraints("dcg"), prefer_skip_nested_validation=True)
@_fill_doc
def dcg_score(y_true, y_score, *, qid=None, k=None, gain=None, log_base=2, ties=None,
              no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
              sample_weight=None, convention=None, return_per_query=False):
    """Discounted cumulative gain, per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(gain)s

    %(log_base)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    ndcg_score : DCG normalised by the DCG of the ideal ordering.

    Notes
    -----
    .. math:: \\mathrm{DCG@k} = \\sum_{i=1}^{k} \\frac{\\mathrm{gain}(y_{(i)})}{\\log_b(i + 1)}

    where :math:`y_{(i)}` is the grade of the document ranked :math:`i`-th by ``y_score``.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from sklearn_rank.metrics import dcg_score
    >>> y_true = [2, 3, 3, 1, 2]
    >>> y_score = [5, 4, 3, 2, 1]
    >>> round(dcg_score(y_true, y_score, gain="linear"), 4)
    6.5972
    """
    return _score("dcg", locals())


@validate_params(_constraints("ndcg"), prefer_skip_nested_validation=True)
@_fill_doc
def ndcg_score(y_true, y_score, *, qid=None, k=None, gain=None, log_base=2, ties=None,
               no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
               sample_weight=None, convention=None, return_per_query=False):
    """Normalised discounted cumulative gain, per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(gain)s

    %(log_base)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    dcg_score : The unnormalised DCG.
    evaluate : Several metrics from one sort.

    Notes
    -----
    .. math:: \\mathrm{nDCG@k} = \\frac{\\mathrm{DCG@k}}{\\mathrm{IDCG@k}}

    where IDCG@k is the DCG@k of the query's judged documents sorted by decreasing grade
    (including those not ``retrieved``). A query whose documents all have grade 0 has
    IDCG = 0 and takes the ``no_relevant`` value: 0 for scikit-learn and trec_eval, 1 for
    LightGBM and XGBoost.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] F. McSherry and M. Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008.

    Examples
    --------
    Two queries in one flat array; the rows of a query need not be contiguous:

    >>> from sklearn_rank.metrics import ndcg_score
    >>> y_true = [3, 0, 2, 1, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.4, 0.3, 0.6]
    >>> qid = ["a", "b", "a", "b", "a", "b"]
    >>> ndcg_score(y_true, y_score, qid=qid, return_per_query=True).round(4)
    array([0.9558, 0.6934])
    >>> ndcg_score(y_true, y_score, qid=qid, k=1)
    0.5
    """
    return _score("ndcg", locals())


@validate_params(_constraints("err"), prefer_skip_nested_validation=True)
@_fill_doc
def err_score(y_true, y_score, *, qid=None, k=None, gain=None, max_grade=None, persistence=1.0,
              ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
              sample_weight=None, convention=None, return_per_query=False):
    """Expected reciprocal rank (Chapelle et al. 2009), per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(gain)s

    max_grade : float or "query", default=None
        The top grade :math:`g_{max}` of the relevance scale. ``None`` uses the largest
        grade found in ``y_true`` (of this call: pass the scale's maximum explicitly when
        scoring subsets, e.g. cross-validation folds, so that all are on one scale);
        ``"query"`` uses each query's own largest grade.

    persistence : float in (0, 1], default=1.0
        Probability :math:`p` that the user goes on after a document that did not
        satisfy them. 1 is Chapelle's ERR.

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    The user reads down the list and stops, satisfied, at document :math:`i` with
    probability :math:`R_i`:

    .. math::
        R_i = \\frac{2^{g_i} - 1}{2^{g_{max}}} \\text{ (exponential gain)},
        \\quad R_i = \\frac{g_i}{g_{max}} \\text{ (linear gain)}

    .. math::
        \\mathrm{ERR@k} = \\sum_{i=1}^{k} \\frac{1}{i} R_i \\prod_{j<i} p (1 - R_j)

    With ``ties="average"`` the expectation over tied orderings is exact.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal rank
       for graded relevance", CIKM 2009.

    Examples
    --------
    >>> from sklearn_rank.metrics import err_score
    >>> err_score([4, 0, 2], [3, 2, 1], max_grade=4)
    0.94140625
    """
    return _score("err", locals())


@validate_params(_constraints("rbp", return_residual=["boolean"]),
                 prefer_skip_nested_validation=True)
@_fill_doc
def rbp_score(y_true, y_score, *, qid=None, k=None, persistence=None, graded=None, max_grade=None,
              relevance_threshold=None, ties=None, no_relevant=None, unjudged="nonrelevant",
              retrieved=None, judged=None, sample_weight=None, convention=None,
              return_per_query=False, return_residual=False):
    """Rank-biased precision (Moffat & Zobel 2008), per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    persistence : float in (0, 1), default=None
        Probability :math:`p` that the user goes on to the next document. ``None`` means
        0.8, the default of ir-measures and ranx, or the value of ``convention``
        (trec_eval: 0.9). Moffat & Zobel also report 0.5 and 0.95. There is no universal
        default: always report the value used.

    graded : bool, default=None
        Use the graded relevance :math:`y / g_{max}` instead of binary relevance. ``None``
        means False, or the value of ``convention`` (trec_eval: True, with
        ``max_grade="query"``).

    max_grade : float or "query", default=None
        :math:`g_{max}` for ``graded=True``, as in :func:`err_score`.

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    return_residual : bool, default=False
        Also return the residual: the most that the documents beyond the evaluated depth
        :math:`d` (``min(k, number of ranked documents)``) could add, :math:`p^d`. It is
        averaged over the same queries as the score: NaN for a query that
        ``no_relevant=np.nan`` skips.

    %(returns)s
    residual : float or ndarray of shape (n_queries,)
        Only with ``return_residual=True``: the (mean or per-query) residual.

    Notes
    -----
    .. math:: \\mathrm{RBP} = (1 - p) \\sum_{i=1}^{d} \\mathrm{rel}_i \\, p^{i-1}

    References
    ----------
    .. [1] A. Moffat and J. Zobel, "Rank-biased precision for measurement of retrieval
       effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    >>> from sklearn_rank.metrics import rbp_score
    >>> rbp_score([1, 0, 1], [3, 2, 1], persistence=0.5)
    0.625
    """
    arguments = locals()
    if not return_residual:
        return _score("rbp", arguments)
    data, spec = _data("rbp", arguments), METRICS["rbp"]
    result = _result("rbp", arguments, data)
    per_query = np.array(result["rbp_score"])
    persistence = result.options["rbp_score"]["persistence"]  # the convention's, if unset
    residual = pq.rbp_residual(data, k=None if k is None else min(k, len(data.y_true)),
                               persistence=persistence)
    skipped = np.isnan(per_query)  # by no_relevant=np.nan: the residual skips them too
    residual[skipped] = np.nan
    if return_per_query:
        return per_query, residual
    score = means_of(result, stacklevel=4)["rbp_score"]  # a warning at the caller
    if np.isnan(score):  # every query skipped, and said so once
        return score, float("nan")
    return score, spec.aggregate(residual, data.query_weight, label="rbp residual")


@validate_params(_constraints("half_life_utility"), prefer_skip_nested_validation=True)
@_fill_doc
def half_life_utility_score(y_true, y_score, *, qid=None, k=None, half_life=5.0, default_rating=0.0,
                            ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None,
                            judged=None, sample_weight=None, convention=None,
                            return_per_query=False):
    """Half-life utility (Breese et al. 1998), normalised per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    half_life : float > 1, default=5
        Rank :math:`\\alpha` at which a document has a 50%% chance of being viewed.

    default_rating : float, default=0
        Neutral rating :math:`d`: only the part of a grade above it is useful.

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    .. math::
        R = \\sum_{i} \\frac{\\max(y_{(i)} - d, 0)}{2^{(i-1)/(\\alpha-1)}}, \\qquad
        \\mathrm{HLU} = \\frac{R}{R^{max}}

    with :math:`R^{max}` the utility of the ideal ordering. Breese et al. report
    :math:`100 \\sum R / \\sum R^{max}` over users; this function averages the per-query
    ratios, like every other metric here.

    References
    ----------
    .. [1] J. S. Breese, D. Heckerman and C. Kadie, "Empirical analysis of predictive
       algorithms for collaborative filtering", UAI 1998.

    Examples
    --------
    >>> from sklearn_rank.metrics import half_life_utility_score
    >>> half_life_utility_score([0, 2, 1], [3, 2, 1], half_life=2)
    0.5
    """
    return _score("half_life_utility", locals())


# --------------------------------------------------------------------------------------
# Binary metrics
# --------------------------------------------------------------------------------------


@validate_params(_constraints("map"), prefer_skip_nested_validation=True)
@_fill_doc
def map_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ap_denominator=None,
              ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
              sample_weight=None, convention=None, return_per_query=False):
    """Mean average precision (AP per query, averaged over queries).

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    ap_denominator : {"all", "min_k", "found"}, default=None
        What AP@k divides by: ``"all"`` relevant documents of the query :math:`R`
        (trec_eval's ``map`` and ``map_cut``), ``min(R, k)`` (LightGBM), or the relevant
        documents ``"found"`` in the top k (XGBoost). ``None`` means ``"all"``, or the value
        of ``convention``.

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    .. math:: \\mathrm{AP@k} = \\frac{1}{D} \\sum_{i=1}^{k} \\mathrm{rel}_i \\, \\mathrm{P@}i

    With ``ties="average"`` the expectation over tied orderings is exact, for every
    denominator.

    Examples
    --------
    Relevant documents at ranks 1, 3 and 4 of five:

    >>> from sklearn_rank.metrics import map_score
    >>> round(map_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], k=5), 4)
    0.8056
    """
    return _score("map", locals())


@validate_params(_constraints("mrr"), prefer_skip_nested_validation=True)
@_fill_doc
def mrr_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
              no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
              sample_weight=None, convention=None, return_per_query=False):
    """Mean reciprocal rank of the first relevant document.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    :math:`\\mathrm{RR@k} = 1 / i` where :math:`i` is the rank of the first relevant
    document if :math:`i \\le k`, else 0.

    Examples
    --------
    >>> from sklearn_rank.metrics import mrr_score
    >>> mrr_score([0, 1, 1, 0], [4, 3, 2, 1], qid=[1, 1, 2, 2])
    0.75
    """
    return _score("mrr", locals())


@validate_params(_constraints("precision"), prefer_skip_nested_validation=True)
@_fill_doc
def precision_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None,
                    short_lists=None, ties=None, no_relevant=None, unjudged="nonrelevant",
                    retrieved=None, judged=None, sample_weight=None, convention=None,
                    return_per_query=False):
    """Precision at k: the fraction of relevant documents among the top k.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    short_lists : {"k", "length", "rows"}, default=None
        What P@k divides by when a query has fewer than k ranked documents: ``k``
        (trec_eval), the list's length (its ranked documents), or ``"rows"``: all the
        query's rows, those with ``retrieved=False`` included. Without ``k``, ``"k"`` and
        ``"length"`` divide by the ranked documents, ``"rows"`` by all rows. ``"rows"`` with
        ``retrieved=y_score > 0`` is torchmetrics' P without ``top_k`` or with
        ``adaptive_k=True``. ``None`` means ``"k"``, or the value of ``convention``.

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import precision_score
    >>> precision_score([1, 0, 1, 1, 0, 1], [6, 5, 4, 3, 2, 1], k=5)
    0.6
    """
    return _score("precision", locals())


@validate_params(_constraints("recall"), prefer_skip_nested_validation=True)
@_fill_doc
def recall_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
                 no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                 sample_weight=None, convention=None, return_per_query=False):
    """Recall at k: the fraction of a query's relevant documents found in the top k.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    Three of the four relevant documents are in the top 5:

    >>> from sklearn_rank.metrics import recall_score
    >>> recall_score([1, 0, 1, 1, 0, 1], [6, 5, 4, 3, 2, 1], k=5)
    0.75
    """
    return _score("recall", locals())


@validate_params(_constraints("hit_rate"), prefer_skip_nested_validation=True)
@_fill_doc
def hit_rate_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
                   no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                   sample_weight=None, convention=None, return_per_query=False):
    """Hit rate (success@k): the fraction of queries with a relevant document in the top k.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import hit_rate_score
    >>> hit_rate_score([0, 1, 0, 0, 1, 0], [3, 2, 1, 3, 2, 1], qid=[1, 1, 1, 2, 2, 2], k=1)
    0.0
    """
    return _score("hit_rate", locals())


@validate_params(_constraints("hits"), prefer_skip_nested_validation=True)
@_fill_doc
def hits_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
               no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
               sample_weight=None, convention=None, return_per_query=False):
    """Hits at k: the number of relevant documents among the top k, averaged over queries.

    A count, not a rate: ranx's ``hits@k``. For the fraction of queries with a relevant
    document in the top k, see :func:`hit_rate_score`.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    hit_rate_score : 1 when a relevant document is in the top k, else 0 (success@k).
    precision_score : Hits at k divided by k.
    recall_score : Hits at k divided by the number of relevant documents.

    Notes
    -----
    .. math:: \\mathrm{hits@k} = \\sum_{i=1}^{\\min(k, n)} \\mathrm{rel}_i

    with :math:`n` the number of ranked (retrieved) documents of the query: judged
    documents with ``retrieved=False`` are never counted. With ``ties="average"``, the
    value is the exact expected count over the orderings of tied documents, which need not
    be an integer. A query without relevant documents has 0 hits; it takes the
    ``no_relevant`` value all the same (0 by default and under every preset; 1 only with an
    explicit ``no_relevant=1.0``), so that ``no_relevant=np.nan`` leaves out the same
    queries as the other binary metrics. ``hits@k`` is ``k`` times ``P@k`` (with
    ``short_lists="k"``). As a metric name, ``"hits"`` named the hit rate in earlier
    versions of sklearn-rank; ``"hit"`` is refused as ambiguous.

    Examples
    --------
    Two relevant documents in the top 3 of the first query, one in the second:

    >>> from sklearn_rank.metrics import hits_score
    >>> y_true = [1, 0, 1, 1, 0, 1, 0, 0]
    >>> y_score = [8, 7, 6, 5, 8, 7, 6, 5]
    >>> qid = [1, 1, 1, 1, 2, 2, 2, 2]
    >>> hits_score(y_true, y_score, qid=qid, k=3, return_per_query=True)
    array([2., 1.])
    >>> hits_score(y_true, y_score, qid=qid, k=3)
    1.5

    With tied scores, the expected count over the orderings of the tie:

    >>> hits_score([1, 0, 1], [2, 1, 1], k=2)
    1.5
    """
    return _score("hits", locals())


@validate_params(_constraints("r_precision"), prefer_skip_nested_validation=True)
@_fill_doc
def r_precision_score(y_true, y_score, *, qid=None, relevance_threshold=None, ties=None,
                      no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                      sample_weight=None, convention=None, return_per_query=False):
    """R-precision: precision at rank R, the number of relevant documents of the query.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import r_precision_score
    >>> r_precision_score([1, 0, 1, 0], [4, 3, 2, 1])
    0.5
    """
    return _score("r_precision", locals())


# --------------------------------------------------------------------------------------
# Correlations and pairs (the whole list of each query; no cut-off, no tie option)
# --------------------------------------------------------------------------------------

@validate_params(_constraints("kendall_tau"), prefer_skip_nested_validation=True)
@_fill_doc
def kendall_tau_score(y_true, y_score, *, qid=None, no_relevant=None, unjudged="nonrelevant",
                      retrieved=None, judged=None, sample_weight=None, convention=None,
                      return_per_query=False):
    """Kendall's tau-b between grades and scores, per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(correlation_no_relevant)s

    %(unjudged)s

    %(pairs_tail)s

    %(returns)s

    Notes
    -----
    .. math:: \\tau_b = \\frac{C - D}{\\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with :math:`C`, :math:`D` the concordant and discordant pairs, :math:`n_0` all pairs,
    :math:`n_1` and :math:`n_2` the pairs tied in ``y_true`` and in ``y_score``
    (``scipy.stats.kendalltau(variant="b")``). A query with constant scores but varying
    grades scores 0 (no association) instead of scipy's NaN.

    Examples
    --------
    >>> from sklearn_rank.metrics import kendall_tau_score
    >>> round(kendall_tau_score([3, 2, 1, 0], [0.9, 0.7, 0.8, 0.1]), 4)
    0.6667
    """
    return _score("kendall_tau", locals())


@validate_params(_constraints("spearman"), prefer_skip_nested_validation=True)
@_fill_doc
def spearman_score(y_true, y_score, *, qid=None, no_relevant=None, unjudged="nonrelevant",
                   retrieved=None, judged=None, sample_weight=None, convention=None,
                   return_per_query=False):
    """Spearman's rank correlation between grades and scores, per query, averaged.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(correlation_no_relevant)s

    %(unjudged)s

    %(pairs_tail)s

    %(returns)s

    Notes
    -----
    The Pearson correlation of the average ranks (``scipy.stats.spearmanr``). A query
    with constant scores but varying grades scores 0.

    Examples
    --------
    >>> from sklearn_rank.metrics import spearman_score
    >>> spearman_score([3, 2, 1, 0], [0.9, 0.7, 0.8, 0.1])
    0.8
    """
    return _score("spearman", locals())


@validate_params(_constraints("pairwise_accuracy"), prefer_skip_nested_validation=True)
@_fill_doc
def pairwise_accuracy_score(y_true, y_score, *, qid=None, ties_credit=0.5, no_relevant=None,
                            unjudged="nonrelevant", retrieved=None, judged=None, sample_weight=None,
                            convention=None, return_per_query=False):
    """Fraction of concordant pairs: document pairs of a query ordered as their grades.

    Parameters
    ----------
    %(data)s

    %(qid)s

    ties_credit : float in [0, 1], default=0.5
        Credit of a pair with different grades but equal scores: 0 (a tie is an error),
        0.5 (a coin flip: the expectation over tie orderings) or 1.

    no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query without any pair of different grades. ``None`` means 0.0.

    %(unjudged)s

    %(pairs_tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import pairwise_accuracy_score
    >>> pairwise_accuracy_score([2, 1, 0], [0.5, 0.5, 0.1])
    0.8333333333333334
    """
    return _score("pairwise_accuracy", locals())


# --- helper M1: incomplete judgements, sets, counts ---
# --- end M1 ---
# --- helper M2: curves, R-based, the DCG family's gains ---
# --- end M2 ---
