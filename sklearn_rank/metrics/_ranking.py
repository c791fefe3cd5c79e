"""Public ranking metrics: thin, validated shells over the shared engine.

Each function has an explicit signature, for IDEs and numpydoc; everything else about its
metric (options, defaults, constraints, kernel, aggregation) comes from its entry in
:data:`~sklearn_rank.metrics._registry.METRICS`, and ``tests/test_metric_spec.py`` checks the
signature against that entry.
"""

import numpy as np

from ..utils._param_validation import validate_params
from . import _per_query as pq
from ._dask import dask_score, is_dask_collection
from ._input import check_ranking_input
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
    no function copies its option list by hand. Dask inputs go to
    :func:`~sklearn_rank.metrics._dask.dask_score`.
    """
    data = ("y_true", "y_score", "qid", "sample_weight", *METRICS[metric].inputs)
    if any(is_dask_collection(arguments[name]) for name in data):
        return dask_score(metric, arguments)
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
        run, those that the qrels do not list); their ``y_true`` must be 0, NaN (outside
        the judgement pool) or negative (trec_eval's -1: in the pool, left unjudged), so
        that the ``judged`` mask of :func:`~sklearn_rank.datasets.read_trec` gives what
        ``"y_true"`` gives.
        ``"y_true"`` reads it from ``y_true`` as trec_eval reads qrels: NaN marks a
        document without a judgement, a negative grade (trec_eval's -1) one in the
        judgement pool left unjudged (see :func:`sklearn_rank.datasets.read_trec`).
        ``None`` means that every row is judged; NaN and negative grades are then
        refused. Unjudged documents count as non-relevant (see ``unjudged``); bpref,
        infAP and Judged@k read the mask."""

# The document names, described in the tails of the parameters.
_DOCNO_DOC = """docno : array-like of shape (n_samples,), default=None
        Name of each document (strings, as in a TREC run; other values are written as
        text). With ``ties="stable"``, equal scores are ranked by name, descending (compared
        byte by byte), as trec_eval ranks them, instead of by row order:
        ``convention="trec_eval"`` reproduces trec_eval whatever the row order. Without
        names, that convention warns when tied documents of different grades keep their row
        order (:class:`~sklearn_rank.metrics.TiedScoresWarning`)."""

_DOCS = {
    "data": """y_true : array-like of shape (n_samples,)
        Graded relevance of each document: non-negative finite numbers (ints or floats).
        Lists, numpy arrays, pandas and polars Series are accepted.

    y_score : array-like of shape (n_samples,)
        Score of each document; higher ranks first. Infinite scores are allowed, NaN is
        not. Scores are ranked exactly as given: integers (beyond 2**53 too, e.g.
        nanosecond timestamps), ``datetime64`` and long doubles are never rounded to
        float64 into false ties.""",
    "qid": """qid : array-like of shape (n_samples,) or "single_query", default=None
        Query id of each document, of any sortable dtype (ints, strings...). Rows may come
        in any order and the documents of a query need not be contiguous. Required: the
        default ``None`` (qid left out) raises a ``ValueError``, since the rows of several
        queries scored as one give a wrong number. ``"single_query"`` scores all rows as
        one query, on purpose (the opt-in that the rankers take too).""",
    "k": """k : int, default=None
        Only the top ``k`` ranked documents of each query count. ``None`` means the whole
        list, as does any ``k`` beyond the longest list (P@k, though, still divides by
        ``k`` with ``short_lists="k"``).""",
    "gain": """gain : {"exponential", "linear"}, default=None
        Gain of a document of grade ``y``: ``2**y - 1`` (Burges et al., LightGBM, XGBoost)
        or ``y`` (Järvelin & Kekäläinen, trec_eval, scikit-learn). ``None`` means
        ``"exponential"``, or the value of ``convention``.""",
    "dcg_gain": """gain : {"exponential", "linear"} or dict, default=None
        Gain of a document of grade ``y``: ``2**y - 1`` (Burges et al., LightGBM, XGBoost)
        or ``y`` (Järvelin & Kekäläinen, trec_eval, scikit-learn), or a mapping grade ->
        gain such as ``{1: 3, 2: 9, 4: 4.5}`` (trec_eval's ``ndcg.1=3,2=9,4=4.5``,
        ir_measures' ``nDCG(gains=...)``; the name ``"ndcg(gains={1: 3, 2: 9})"``), in
        which a grade that the mapping does not list keeps its own value as gain (grade 3
        above has gain 3, trec_eval's rule) and a document without a judgement has gain 0
        whatever grade 0's gain. Grades are non-negative numbers, gains finite ones
        (negative gains are allowed, as in trec_eval). The ideal ordering sorts the
        judged documents by decreasing gain and counts the positive gains only.
        ``None`` means ``"exponential"``, or the value of ``convention``.""",
    "discount": """discount : {"log", "rank"}, default="log"
        Discount of the document at rank ``i``: ``1 / log_b(i + 1)`` with ``log_b`` of
        base ``log_base`` (Järvelin & Kekäläinen, and every system's default), or ``1 / i``
        (CatBoost's ``denominator=Position``, TF-Ranking's reciprocal-rank discount), for
        which ``log_base`` is not used.""",
    "log_base": """log_base : float, default=2
        Base of the logarithm of the position discount ``1 / log_b(i + 1)`` (with
        ``discount="log"``).""",
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

    """ + _DOCNO_DOC + """

    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. A query weighs the mean of its rows' weights (LightGBM's
        rule) and the result is the weighted mean over queries.

    convention : {"catboost", "lightgbm", "sklearn", "torchmetrics", "trec_eval", \
            "xgboost"}, default=None
        Preset that sets every convention option left to ``None`` so that the result
        equals what that system computes on the same input. Explicit keywords override
        the preset. A preset sets only the metrics that its system computes
        (:data:`~sklearn_rank.metrics.CONVENTION_METRICS`): any other keeps sklearn-rank's
        defaults. See :ref:`conventions`.

    return_per_query : bool, default=False
        Return the per-query values instead of their mean.""",
    "correlation_no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query whose grades are all equal (a single document included): the
        correlation is undefined there. ``None`` means 0.0.""",
    "pairs_tail": """retrieved : array-like of bool of shape (n_samples,), default=None
        ``False`` marks judged documents that the system did not return: they have no
        meaningful score and form no pair. ``None`` means that every row was retrieved.

    """ + _JUDGED_DOC + """

    """ + _DOCNO_DOC + """

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
def dcg_score(y_true, y_score, *, qid=None, k=None, gain=None, discount="log", log_base=2,
              ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None,
              judged=None, docno=None, sample_weight=None, convention=None, return_per_query=False):
    """Discounted cumulative gain, per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(dcg_gain)s

    %(discount)s

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

    where :math:`y_{(i)}` is the grade of the document ranked :math:`i`-th by ``y_score``;
    with ``discount="rank"`` the denominator is :math:`i`. A query without a document of
    positive gain takes the ``no_relevant`` value.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from sklearn_rank.metrics import dcg_score
    >>> y_true = [2, 3, 3, 1, 2]
    >>> y_score = [5, 4, 3, 2, 1]
    >>> round(dcg_score(y_true, y_score, qid="single_query", gain="linear"), 4)
    6.5972
    """
    return _score("dcg", locals())


@validate_params(_constraints("ndcg"), prefer_skip_nested_validation=True)
@_fill_doc
def ndcg_score(y_true, y_score, *, qid=None, k=None, gain=None, discount="log", log_base=2,
               ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None,
               judged=None, docno=None, sample_weight=None, convention=None,
               return_per_query=False):
    """Normalised discounted cumulative gain, per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(dcg_gain)s

    %(discount)s

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

    where IDCG@k is the DCG@k of the query's judged documents sorted by decreasing gain
    (including those not ``retrieved``), their positive gains only (trec_eval's ideal
    ordering, which matters for a ``gain`` mapping that is not increasing or has negative
    gains). A query without a document of positive gain (with the named gains, whose
    documents all have grade 0) has IDCG = 0 and takes the ``no_relevant`` value: 0 for
    scikit-learn and trec_eval, 1 for LightGBM and XGBoost.

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

    trec_eval's ``ndcg.1=3,2=9`` gives grade 2 the gain 9 and grade 3 its own value, 3:
    the ideal ordering puts grade 2 first.

    >>> ndcg_score(y_true, y_score, qid=qid, gain={1: 3, 2: 9}, return_per_query=True).round(4)
    array([0.6885, 0.6934])
    """
    return _score("ndcg", locals())


@validate_params(_constraints("err"), prefer_skip_nested_validation=True)
@_fill_doc
def err_score(y_true, y_score, *, qid=None, k=None, gain=None, max_grade=None, persistence=1.0,
              ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
              docno=None,
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
    >>> err_score([4, 0, 2], [3, 2, 1], qid="single_query", max_grade=4)
    0.94140625
    """
    return _score("err", locals())


@validate_params(_constraints("rbp", return_residual=["boolean"]),
                 prefer_skip_nested_validation=True)
@_fill_doc
def rbp_score(y_true, y_score, *, qid=None, k=None, persistence=None, graded=None, max_grade=None,
              relevance_threshold=None, ties=None, no_relevant=None, unjudged="nonrelevant",
              retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
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
    >>> rbp_score([1, 0, 1], [3, 2, 1], qid="single_query", persistence=0.5)
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
                            judged=None, docno=None, sample_weight=None, convention=None,
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
    >>> half_life_utility_score([0, 2, 1], [3, 2, 1], qid="single_query", half_life=2)
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
              docno=None,
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
    >>> round(map_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], qid="single_query", k=5), 4)
    0.8056
    """
    return _score("map", locals())


@validate_params(_constraints("mrr"), prefer_skip_nested_validation=True)
@_fill_doc
def mrr_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
              no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
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
                    retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
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
    >>> precision_score([1, 0, 1, 1, 0, 1], [6, 5, 4, 3, 2, 1], qid="single_query", k=5)
    0.6
    """
    return _score("precision", locals())


@validate_params(_constraints("recall"), prefer_skip_nested_validation=True)
@_fill_doc
def recall_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
                 no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
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
    >>> recall_score([1, 0, 1, 1, 0, 1], [6, 5, 4, 3, 2, 1], qid="single_query", k=5)
    0.75
    """
    return _score("recall", locals())


@validate_params(_constraints("hit_rate"), prefer_skip_nested_validation=True)
@_fill_doc
def hit_rate_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
                   no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                   docno=None,
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
               no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
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

    >>> hits_score([1, 0, 1], [2, 1, 1], qid="single_query", k=2)
    1.5
    """
    return _score("hits", locals())


@validate_params(_constraints("r_precision"), prefer_skip_nested_validation=True)
@_fill_doc
def r_precision_score(y_true, y_score, *, qid=None, relevance_threshold=None, ties=None,
                      no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                      docno=None,
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
    >>> r_precision_score([1, 0, 1, 0], [4, 3, 2, 1], qid="single_query")
    0.5
    """
    return _score("r_precision", locals())


# --------------------------------------------------------------------------------------
# Correlations and pairs (the whole list of each query; no cut-off, no tie option)
# --------------------------------------------------------------------------------------

@validate_params(_constraints("kendall_tau"), prefer_skip_nested_validation=True)
@_fill_doc
def kendall_tau_score(y_true, y_score, *, qid=None, no_relevant=None, unjudged="nonrelevant",
                      retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
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
    >>> round(kendall_tau_score([3, 2, 1, 0], [0.9, 0.7, 0.8, 0.1], qid="single_query"), 4)
    0.6667
    """
    return _score("kendall_tau", locals())


@validate_params(_constraints("spearman"), prefer_skip_nested_validation=True)
@_fill_doc
def spearman_score(y_true, y_score, *, qid=None, no_relevant=None, unjudged="nonrelevant",
                   retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
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
    >>> spearman_score([3, 2, 1, 0], [0.9, 0.7, 0.8, 0.1], qid="single_query")
    0.8
    """
    return _score("spearman", locals())


@validate_params(_constraints("pairwise_accuracy"), prefer_skip_nested_validation=True)
@_fill_doc
def pairwise_accuracy_score(y_true, y_score, *, qid=None, ties_credit=0.5, no_relevant=None,
                            unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                            sample_weight=None,
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
    >>> pairwise_accuracy_score([2, 1, 0], [0.5, 0.5, 0.1], qid="single_query")
    0.8333333333333334
    """
    return _score("pairwise_accuracy", locals())


# --------------------------------------------------------------------------------------
# Incomplete judgements, retrieved sets and counts
# --------------------------------------------------------------------------------------

_DOCS.update({
    "defined_no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Accepted as every metric accepts it, but never applied: this measure is defined on
        every query, those without a relevant document included.""",
    "set_data": _DOCS["data"] + """ Not read by this measure, whose value depends on the
        set of retrieved documents (``retrieved``) only; accepted for a uniform signature.""",
    "count_tail": """retrieved : array-like of bool of shape (n_samples,), default=None
        ``False`` marks judged documents that the system did not return: they are not
        retrieved, but they are documents of their query (and count in ``num_rel``), as in
        trec_eval. ``None`` means that every row was retrieved.

    """ + _JUDGED_DOC + """

    """ + _DOCNO_DOC + """

    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. A query weighs the mean of its rows' weights (LightGBM's
        rule), and the total is the sum of each query's count times its weight.

    convention : str, default=None
        Preset name; see :func:`ndcg_score`.

    return_per_query : bool, default=False
        Return the per-query counts instead of their sum.""",
    "count_returns": """Returns
    -------
    total : float or ndarray of shape (n_queries,)
        Sum of the per-query counts, each times its query's weight when ``sample_weight``
        is given (as trec_eval sums ``num_*``). With ``return_per_query=True``, the count of
        each query in the order of ``np.unique(qid)``.""",
    "gm_returns": """Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Geometric mean of the per-query values, each floored at 1e-5 (trec_eval's floor),
        weighted by ``sample_weight`` when given. With ``return_per_query=True``, the value
        of each query (not floored, not its logarithm) in the order of ``np.unique(qid)``,
        NaN for a query skipped by ``no_relevant=np.nan``.""",
    "bpref_ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered, as for every ranking
        metric; ``"average"`` gives the exact expectation over the orderings of tied
        documents. ``None`` means ``"average"``, or the value of ``convention``
        (trec_eval: ``"stable"``, with the rows in :func:`~sklearn_rank.datasets.read_trec`'s
        order).""",
})


@validate_params(_constraints("bpref"), prefer_skip_nested_validation=True)
@_fill_doc
def bpref_score(y_true, y_score, *, qid=None, relevance_threshold=None, ties=None,
                no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                sample_weight=None, convention=None, return_per_query=False):
    """Binary preference (bpref): how often judged relevant documents precede judged
    non-relevant ones, per query, averaged over queries.

    Documents without a judgement do not enter bpref: it was built for incomplete
    judgements (Buckley & Voorhees 2004). Pass ``judged="y_true"`` (NaN or negative grades
    mark them) or a ``judged`` mask; without either, every document is judged.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(relevance_threshold)s

    %(bpref_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    gm_bpref_score : The geometric mean of bpref over queries.
    infap_score : Inferred AP, for judgements sampled from the pool.

    Notes
    -----
    With :math:`R` judged relevant documents and :math:`N` judged non-relevant ones (ranked
    or not), and :math:`n_r` the judged non-relevant documents ranked above the relevant
    document :math:`r`:

    .. math::
        \\mathrm{bpref} = \\frac{1}{R} \\sum_{r \\text{ ranked}}
        \\left(1 - \\frac{\\min(n_r, R)}{\\min(N, R)}\\right)

    a term being 1 when :math:`n_r = 0`. This is trec_eval's ``bpref`` (``m_bpref.c``),
    which the one of Buckley & Voorhees equals when :math:`N \\ge R`. With
    ``ties="average"``, :math:`n_r` for a relevant document in a tie block of :math:`q`
    judged non-relevant documents is uniform over :math:`b, ..., b + q` (:math:`b` those
    ranked above the block), and the expectation is exact.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval evaluation with incomplete
       information", SIGIR 2004.

    Examples
    --------
    The second document has no judgement (NaN); the relevant document ranked last comes
    after the only judged non-relevant one:

    >>> import numpy as np
    >>> from sklearn_rank.metrics import bpref_score
    >>> bpref_score([1, np.nan, 0, 1], [4, 3, 2, 1], qid="single_query", judged="y_true")
    0.5
    """
    return _score("bpref", locals())


@validate_params(_constraints("gm_bpref"), prefer_skip_nested_validation=True)
@_fill_doc
def gm_bpref_score(y_true, y_score, *, qid=None, relevance_threshold=None, ties=None,
                   no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                   docno=None,
                   sample_weight=None, convention=None, return_per_query=False):
    """Geometric mean over queries of bpref (trec_eval's ``gm_bpref``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(relevance_threshold)s

    %(bpref_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(gm_returns)s

    See Also
    --------
    bpref_score : bpref, its per-query values and their arithmetic mean.

    Notes
    -----
    :math:`\\exp(\\overline{\\log \\max(\\mathrm{bpref}_q, 10^{-5})})`: the floor keeps one
    query at 0 from making the mean 0, as in trec_eval (``MIN_GEO_MEAN``). The geometric
    mean rewards systems that do well on every query over those that excel on some.

    Examples
    --------
    >>> from sklearn_rank.metrics import gm_bpref_score
    >>> y_true = [1, 0, 1, 0, 1, 0]
    >>> y_score = [3, 2, 1, 3, 2, 1]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> gm_bpref_score(y_true, y_score, qid=qid, return_per_query=True)
    array([0.5, 0. ])
    >>> round(gm_bpref_score(y_true, y_score, qid=qid), 6)
    0.002236
    """
    return _score("gm_bpref", locals())


@validate_params(_constraints("infap"), prefer_skip_nested_validation=True)
@_fill_doc
def infap_score(y_true, y_score, *, qid=None, relevance_threshold=None, ties=None,
                no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                sample_weight=None, convention=None, return_per_query=False):
    """Inferred average precision (infAP), per query, averaged over queries.

    infAP (Yilmaz & Aslam 2006) estimates AP when only a random sample of the judgement
    pool was judged. It tells apart documents in the pool left unjudged (trec_eval's qrels
    -1: a negative grade with ``judged="y_true"``), which count as relevant in the
    proportion of the judged ones ranked above, from documents outside the pool (NaN with
    ``judged="y_true"``, or ``judged=False``), which count as non-relevant.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(relevance_threshold)s

    %(bpref_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    map_score : Average precision, every document judged.
    bpref_score : Binary preference, another measure for incomplete judgements.

    Notes
    -----
    For the relevant document at rank :math:`i` (1-based), with :math:`u` documents outside
    the pool above it and :math:`r`, :math:`n` judged relevant and non-relevant ones above
    it:

    .. math::
        \\mathrm{infAP} = \\frac{1}{R} \\sum_{\\text{relevant ranked}} \\frac{1}{i}
        \\left(1 + (i - 1 - u) \\frac{r + \\epsilon}{r + n + 2 \\epsilon}\\right)

    with :math:`\\epsilon = 10^{-5}` and :math:`R` the judged relevant documents, as
    trec_eval's ``infAP`` (``m_infap.c``). When every document is judged, it is AP up to
    :math:`\\epsilon`. With ``ties="average"`` the expectation over the orderings of tied
    documents is exact: for each tie block holding a relevant document, a sum over the
    number of members above it and the number of judged ones among them, about
    :math:`m \\min(j, m - j)` terms for a block of :math:`m` documents of which :math:`j`
    are judged. Blocks that would need more than about 2.7e8 terms in one call raise a
    ``ValueError`` that suggests another ``ties``.

    References
    ----------
    .. [1] E. Yilmaz and J. A. Aslam, "Estimating average precision with incomplete and
       imperfect judgments", CIKM 2006.

    Examples
    --------
    The second document is in the pool but unjudged (-1), the third outside it (NaN):

    >>> import numpy as np
    >>> from sklearn_rank.metrics import infap_score
    >>> round(infap_score([1, -1, np.nan, 1], [4, 3, 2, 1], qid="single_query", judged="y_true"), 6)
    0.874998
    """
    return _score("infap", locals())


@validate_params(_constraints("judged"), prefer_skip_nested_validation=True)
@_fill_doc
def judged_score(y_true, y_score, *, qid=None, k=None, ties=None, no_relevant=None,
                 unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                 sample_weight=None,
                 convention=None, return_per_query=False):
    """Judged@k: the fraction of the top k documents that have a judgement.

    ir_measures' ``Judged@k``: how much of what a system ranks high the judgements cover.
    Low values say that its other scores rest on documents nobody judged.

    Parameters
    ----------
    %(data)s

    %(qid)s

    k : int, default=None
        Only the top ``k`` ranked documents count; a query with fewer ranked documents
        divides by their number. ``None`` means the whole list.

    %(ties)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    unjudged_rate_score : The fraction of the top k without a judgement (trec_eval's unj).

    Notes
    -----
    A query without ranked documents scores 0. A document in the judgement pool left
    unjudged (trec_eval's qrels -1) has no judgement: ir_measures, which counts every
    document listed in the qrels, counts it as judged. With ``unjudged="condensed"`` every
    ranked document is judged, and the value is 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.metrics import judged_score
    >>> judged_score([1, np.nan, 0, np.nan], [4, 3, 2, 1], qid="single_query", judged="y_true", k=3)
    0.6666666666666666
    """
    return _score("judged", locals())


@validate_params(_constraints("unjudged_rate"), prefer_skip_nested_validation=True)
@_fill_doc
def unjudged_rate_score(y_true, y_score, *, qid=None, k=None, ties=None, no_relevant=None,
                        unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                        sample_weight=None,
                        convention=None, return_per_query=False):
    """The fraction of the top k documents without a judgement (trec_eval's ``unj``).

    A "red flag" measure: high values at small k say that the judgements cover the
    system's ranking poorly. Lower is better.

    Parameters
    ----------
    %(data)s

    %(qid)s

    k : int, default=None
        Only the top ``k`` ranked documents count, and the count is divided by ``k`` even
        when fewer documents are ranked (the missing ones count as judged), as trec_eval's
        ``unj_k`` does. ``None`` means the whole list, divided by its length.

    %(ties)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    judged_score : The fraction of the top k with a judgement (ir_measures' Judged@k).

    Notes
    -----
    Documents outside the pool and those in the pool left unjudged (trec_eval's -1) are
    both unjudged. With ``unjudged="condensed"`` no ranked document is, and the value is 0.

    Examples
    --------
    Two of four documents are unjudged; at k=5 the missing fifth counts as judged:

    >>> import numpy as np
    >>> from sklearn_rank.metrics import unjudged_rate_score
    >>> unjudged_rate_score([1, np.nan, 0, -1], [4, 3, 2, 1], qid="single_query",
    ...                     judged="y_true", k=5)
    0.4
    """
    return _score("unjudged_rate", locals())


@validate_params(_constraints("rbp_residual"), prefer_skip_nested_validation=True)
@_fill_doc
def rbp_residual_score(y_true, y_score, *, qid=None, k=None, persistence=None,
                       all_judged=None, ties=None, no_relevant=None, unjudged="nonrelevant",
                       retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
                       return_per_query=False):
    """The residual of rank-biased precision: the most that RBP could still gain.

    RBP (Moffat & Zobel 2008) counts unjudged documents as non-relevant; the residual is
    what it would gain if they were all relevant, and if every document beyond the
    evaluated depth was too. The true RBP lies between :func:`rbp_score` and the sum of
    both. Lower is better: a small residual means a reliable RBP. trec_eval's
    ``rbp_resid``.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    persistence : float in (0, 1), default=None
        Probability :math:`p` that the user goes on to the next document, as in
        :func:`rbp_score`: use the value of the RBP that the residual goes with. ``None``
        means 0.8, or the value of ``convention`` (trec_eval: 0.9).

    all_judged : {"tail", "zero"}, default=None
        The residual of a query none of whose top k documents lacks a judgement: the tail
        :math:`p^d` (the residual of :func:`rbp_score`), or 0, as trec_eval's ``rbp_resid``
        reports it (it computes the residual only where a ranked document is unjudged).
        ``None`` means ``"tail"``, or the value of ``convention`` (trec_eval: ``"zero"``).

    %(ties)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    rbp_score : RBP; with ``return_residual=True``, the residual :math:`p^d` of the depth.

    Notes
    -----
    With :math:`d = \\min(k, n)` the evaluated depth of a list of :math:`n` ranked
    documents and :math:`U` the ranks of the unjudged ones within it:

    .. math:: \\mathrm{residual} = p^d + (1 - p) \\sum_{i \\in U} p^{i - 1}

    Documents outside the pool and those in the pool left unjudged both count as unjudged.
    With ``unjudged="condensed"`` none is ranked: the residual is :math:`p^d` (or 0 with
    ``all_judged="zero"``). With ``ties="average"``, the exact expectation over the
    orderings of tied documents.

    References
    ----------
    .. [1] A. Moffat and J. Zobel, "Rank-biased precision for measurement of retrieval
       effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    The second of three documents is unjudged: :math:`0.5^3 + 0.5 \\times 0.5`.

    >>> import numpy as np
    >>> from sklearn_rank.metrics import rbp_residual_score
    >>> rbp_residual_score([1, np.nan, 0], [3, 2, 1], qid="single_query",
    ...                    judged="y_true", persistence=0.5)
    0.375
    """
    return _score("rbp_residual", locals())


@validate_params(_constraints("set_p"), prefer_skip_nested_validation=True)
@_fill_doc
def set_p_score(y_true, y_score, *, qid=None, relevance_threshold=None, no_relevant=None,
                unjudged="nonrelevant", retrieved=None, judged=None, docno=None, sample_weight=None,
                convention=None, return_per_query=False):
    """Set precision: the fraction of relevant documents among all those retrieved.

    trec_eval's ``set_P``. Unlike P@k it has no cut-off and does not depend on the order:
    it is P@k with k the length of each query's list.

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    A query without retrieved documents scores 0. With ``unjudged="condensed"``, the
    unjudged documents leave the retrieved set (trec_eval's ``-J``).

    Examples
    --------
    >>> from sklearn_rank.metrics import set_p_score
    >>> set_p_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid="single_query",
    ...             retrieved=[True, True, True, True, False])
    0.5
    """
    return _score("set_p", locals())


@validate_params(_constraints("set_recall"), prefer_skip_nested_validation=True)
@_fill_doc
def set_recall_score(y_true, y_score, *, qid=None, relevance_threshold=None, no_relevant=None,
                     unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                     sample_weight=None,
                     convention=None, return_per_query=False):
    """Set recall: the fraction of a query's relevant documents that were retrieved.

    trec_eval's ``set_recall``: recall at the length of each query's list.

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import set_recall_score
    >>> set_recall_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid="single_query",
    ...                  retrieved=[True, True, True, True, False])
    0.6666666666666666
    """
    return _score("set_recall", locals())


@validate_params(_constraints("set_f"), prefer_skip_nested_validation=True)
@_fill_doc
def set_f_score(y_true, y_score, *, qid=None, relevance_threshold=None, beta=1.0,
                no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                sample_weight=None, convention=None, return_per_query=False):
    """Set F-measure: the weighted harmonic mean of set precision and set recall.

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    beta : float >= 0, default=1.0
        Weight of recall: recall is ``beta`` times as important as precision, as in
        scikit-learn's ``fbeta_score``. trec_eval's ``set_F.x`` and ir_measures'
        ``SetF(beta=x)`` weigh it by ``x = beta**2``: their ``x`` is this
        ``beta=sqrt(x)``. 1 (the default of all three) gives F1; 0 gives set precision.

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    .. math::
        F_\\beta = \\frac{(1 + \\beta^2) P R}{\\beta^2 P + R}

    with :math:`P` and :math:`R` set precision and set recall, 0 when no relevant document
    was retrieved (van Rijsbergen's E measure is :math:`1 - F`).

    Examples
    --------
    >>> from sklearn_rank.metrics import set_f_score
    >>> set_f_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid="single_query",
    ...             retrieved=[True, True, True, True, False])
    0.5714285714285715
    """
    return _score("set_f", locals())


@validate_params(_constraints("set_map"), prefer_skip_nested_validation=True)
@_fill_doc
def set_map_score(y_true, y_score, *, qid=None, relevance_threshold=None, no_relevant=None,
                  unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                  sample_weight=None,
                  convention=None, return_per_query=False):
    """Unranked set AP: set precision times set recall (trec_eval's ``set_map``).

    AP of the retrieved set taken as unordered: each retrieved relevant document scores
    the set precision, each missed one 0.

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import set_map_score
    >>> set_map_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid="single_query",
    ...               retrieved=[True, True, True, True, False])
    0.3333333333333333
    """
    return _score("set_map", locals())


@validate_params(_constraints("set_relative_p"), prefer_skip_nested_validation=True)
@_fill_doc
def set_relative_p_score(y_true, y_score, *, qid=None, relevance_threshold=None,
                         no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                         docno=None,
                         sample_weight=None, convention=None, return_per_query=False):
    """Relative set precision: set precision over the best one possible for the set's size.

    trec_eval's ``set_relative_P``: the relevant documents retrieved, divided by the
    smaller of the number retrieved and the number of relevant documents.

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import set_relative_p_score
    >>> set_relative_p_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid="single_query",
    ...                      retrieved=[True, True, True, True, False])
    0.6666666666666666
    """
    return _score("set_relative_p", locals())


@validate_params(_constraints("relative_p"), prefer_skip_nested_validation=True)
@_fill_doc
def relative_p_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
                     no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
                     docno=None,
                     sample_weight=None, convention=None, return_per_query=False):
    """Relative precision at k: P@k over the best P@k possible (trec_eval's ``relative_P``).

    The relevant documents in the top k divided by ``min(k, R)``: precision up to rank R,
    recall beyond.

    Parameters
    ----------
    %(data)s

    %(qid)s

    k : int, default=None
        Only the top ``k`` ranked documents count. ``None`` means the whole list: the value
        is then :func:`set_relative_p_score`'s.

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import relative_p_score
    >>> relative_p_score([0, 1, 1, 0, 0], [5, 4, 3, 2, 1], qid="single_query", k=3)
    1.0
    """
    return _score("relative_p", locals())


@validate_params(_constraints("num_ret"), prefer_skip_nested_validation=True)
@_fill_doc
def num_ret_score(y_true, y_score, *, qid=None, no_relevant=None, unjudged="nonrelevant",
                  retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
                  return_per_query=False):
    """The number of retrieved documents, summed over queries (trec_eval's ``num_ret``).

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(count_tail)s

    %(count_returns)s

    Notes
    -----
    With ``unjudged="condensed"`` only the judged retrieved documents count, as with
    trec_eval's ``-J``.

    Examples
    --------
    >>> from sklearn_rank.metrics import num_ret_score
    >>> num_ret_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid=[1, 1, 1, 2, 2],
    ...               retrieved=[True, True, False, True, True])
    4.0
    """
    return _score("num_ret", locals())


@validate_params(_constraints("num_rel"), prefer_skip_nested_validation=True)
@_fill_doc
def num_rel_score(y_true, y_score, *, qid=None, relevance_threshold=None, no_relevant=None,
                  unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                  sample_weight=None,
                  convention=None, return_per_query=False):
    """The number of relevant documents, retrieved or not, summed over queries
    (trec_eval's ``num_rel``).

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(count_tail)s

    %(count_returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import num_rel_score
    >>> num_rel_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid=[1, 1, 1, 2, 2],
    ...               retrieved=[True, True, False, True, True])
    3.0
    """
    return _score("num_rel", locals())


@validate_params(_constraints("num_rel_ret"), prefer_skip_nested_validation=True)
@_fill_doc
def num_rel_ret_score(y_true, y_score, *, qid=None, relevance_threshold=None, no_relevant=None,
                      unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                      sample_weight=None,
                      convention=None, return_per_query=False):
    """The number of relevant documents retrieved, summed over queries (trec_eval's
    ``num_rel_ret``).

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(count_tail)s

    %(count_returns)s

    See Also
    --------
    hits_score : The relevant documents in the top k, averaged over queries.

    Examples
    --------
    >>> from sklearn_rank.metrics import num_rel_ret_score
    >>> num_rel_ret_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid=[1, 1, 1, 2, 2],
    ...                   retrieved=[True, True, False, True, True])
    2.0
    """
    return _score("num_rel_ret", locals())


@validate_params(_constraints("num_nonrel_judged_ret"), prefer_skip_nested_validation=True)
@_fill_doc
def num_nonrel_judged_ret_score(y_true, y_score, *, qid=None, relevance_threshold=None,
                                no_relevant=None, unjudged="nonrelevant", retrieved=None,
                                judged=None, docno=None, sample_weight=None, convention=None,
                                return_per_query=False):
    """The number of judged non-relevant documents retrieved, summed over queries
    (trec_eval's ``num_nonrel_judged_ret``).

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(count_tail)s

    %(count_returns)s

    Notes
    -----
    Retrieved documents without a judgement are not counted, whatever ``unjudged``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.metrics import num_nonrel_judged_ret_score
    >>> num_nonrel_judged_ret_score([1, 0, np.nan, 0], [4, 3, 2, 1], qid="single_query",
    ...                             judged="y_true")
    2.0
    """
    return _score("num_nonrel_judged_ret", locals())


@validate_params(_constraints("num_q"), prefer_skip_nested_validation=True)
@_fill_doc
def num_q_score(y_true, y_score, *, qid=None, no_relevant=None, unjudged="nonrelevant",
                retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
                return_per_query=False):
    """The number of queries (trec_eval's ``num_q``).

    Every query of ``qid`` counts, those without retrieved or relevant documents included.

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(count_tail)s

    %(count_returns)s

    Examples
    --------
    >>> from sklearn_rank.metrics import num_q_score
    >>> num_q_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid=[1, 1, 1, 2, 2])
    2.0
    """
    return _score("num_q", locals())


@validate_params(_constraints("utility"), prefer_skip_nested_validation=True)
@_fill_doc
def utility_score(y_true, y_score, *, qid=None, relevance_threshold=None,
                  relevant_retrieved=1.0, nonrelevant_retrieved=-1.0, relevant_missed=0.0,
                  nonrelevant_missed=0.0, collection_size=None, no_relevant=None,
                  unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                  sample_weight=None,
                  convention=None, return_per_query=False):
    """Set utility: a worth per document, by whether it is relevant and was retrieved.

    trec_eval's ``utility.a,b,c,d`` (TREC filtering tracks): ``a`` per retrieved relevant
    document, ``b`` per retrieved non-relevant one, ``c`` per relevant document missed and
    ``d`` per non-relevant one not retrieved; per query, averaged over queries.

    Parameters
    ----------
    %(set_data)s

    %(qid)s

    %(relevance_threshold)s

    relevant_retrieved : float, default=1.0
        ``a``: worth of a retrieved relevant document.

    nonrelevant_retrieved : float, default=-1.0
        ``b``: worth of a retrieved non-relevant document (unjudged ones included).

    relevant_missed : float, default=0.0
        ``c``: worth of a relevant document not retrieved.

    nonrelevant_missed : float, default=0.0
        ``d``: worth of any other document of the collection.

    collection_size : int, default=None
        The documents of each query's collection, for ``d`` (trec_eval's ``-N``, whose
        default is 0). ``None`` means each query's rows, retrieved or not.

    %(defined_no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    .. math:: U = a \\, n_{rr} + b \\, (n_{ret} - n_{rr}) + c \\, (R - n_{rr})
        + d \\, (N - n_{ret} - R + n_{rr})

    with :math:`n_{ret}` the retrieved documents, :math:`n_{rr}` the relevant ones among
    them, :math:`R` the relevant documents and :math:`N` the collection's size. Defined on
    every query: one without relevant documents still pays for what it retrieved. The
    parameters in a metric name take their names or trec_eval's letters:
    ``"utility(a=2,b=-1)"``. trec_eval averages utility over queries, as here; a sum is
    ``utility_score(...) * number of queries``.

    Examples
    --------
    Two relevant and two non-relevant documents retrieved, one relevant one missed:

    >>> from sklearn_rank.metrics import utility_score
    >>> utility_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], qid="single_query",
    ...               retrieved=[True, True, True, True, False], relevant_retrieved=3)
    4.0
    """
    return _score("utility", locals())


@validate_params(_constraints("fallout"), prefer_skip_nested_validation=True)
@_fill_doc
def fallout_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
                  no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                  sample_weight=None, convention=None, return_per_query=False):
    """Fall-out at k: the fraction of the judged non-relevant documents ranked in the top k.

    The false positive rate of the top k. Lower is better.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    %(ties)s

    no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query without a judged non-relevant document, for which fall-out is
        undefined. ``np.nan`` skips such queries; ``"raise"`` raises a ``ValueError``.
        ``None`` means 0.0, or the value of ``convention``.

    %(unjudged)s

    %(tail)s

    %(returns)s

    Notes
    -----
    .. math:: \\mathrm{FallOut@k} = \\frac{|\\text{judged non-relevant in the top k}|}
        {|\\text{judged non-relevant}|}

    the denominator counting every judged non-relevant document of the query, retrieved or
    not. This is the textbook definition (Manning et al., "Introduction to Information
    Retrieval", 8.3) and torchmetrics' ``RetrievalFallOut``; neither ir_measures nor ranx
    nor trec_eval has a fall-out. Documents without a judgement are not known to be
    non-relevant: they count in neither term (with ``unjudged="condensed"`` they also
    leave the top k to the judged ones).

    Examples
    --------
    Two judged non-relevant documents, one of them in the top 2:

    >>> from sklearn_rank.metrics import fallout_score
    >>> fallout_score([1, 0, 1, 0], [4, 3, 2, 1], qid="single_query", k=2)
    0.5
    """
    return _score("fallout", locals())


@validate_params(_constraints("f1"), prefer_skip_nested_validation=True)
@_fill_doc
def f1_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None, ties=None,
             no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
             sample_weight=None, convention=None, return_per_query=False):
    """F1 at k: the harmonic mean of precision at k and recall at k (ranx's ``f1``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    k : int, default=None
        Only the top ``k`` ranked documents count, and P@k divides by ``k`` even when
        fewer documents are ranked (ranx and trec_eval's P@k). ``None`` means the whole
        list: the value is then :func:`set_f_score`'s.

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    set_f_score : F of the retrieved set, with any weight of recall.

    Notes
    -----
    .. math::
        \\mathrm{F1@k} = \\frac{2 \\, \\mathrm{P@k} \\, \\mathrm{R@k}}
        {\\mathrm{P@k} + \\mathrm{R@k}} = \\frac{2 \\, \\mathrm{hits@k}}{k + R}

    0 when no relevant document is in the top k. Linear in the hits, so that
    ``ties="average"`` is the exact expectation over the orderings of tied documents.
    Not to be confused with scikit-learn's ``f1_score`` for classification.

    Examples
    --------
    >>> from sklearn_rank.metrics import f1_score
    >>> f1_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], qid="single_query", k=2)
    0.4
    """
    return _score("f1", locals())
# --------------------------------------------------------------------------------------
# Interpolated precision, R-based and G-based measures
# --------------------------------------------------------------------------------------

_DOCS.update({
    "recall_rounding": """recall_rounding : {"nearest", "legacy"}, default="nearest"
        How a recall level ``x`` becomes a number of relevant documents ``c`` out of the
        query's ``R``: ``x * R`` rounded to the nearest integer, halves up (trec_eval 10.0's
        ``lround``), or ``floor(x * R + 0.9)`` (trec_eval up to 9.0.8, hence pytrec_eval and
        ir_measures' ``IPrec``). They differ when the fractional part of ``x * R`` is
        from 0.1 to 0.5 (excluded), which the legacy rule rounds up: ``0.1 * 474 = 47.4``
        is 47 documents for the one, 48 for the other.""",
    "curve_ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered. ``"average"``: every
        tied document takes its tie block's mean relevance, and the measure is computed on
        that tie-averaged list (McSherry & Najork's tie-aware precision and recall at each
        cut-off): the mean over the orderings of a maximum has no tractable form, and this
        is not it; without ties it is the measure itself. ``"stable"``: input row order
        (trec_eval's, with the rows in :func:`~sklearn_rank.datasets.read_trec`'s order);
        ``"optimistic"`` / ``"pessimistic"``: more / less relevant documents first, which
        bound every ordering's value. ``None`` means ``"average"``, or the value of
        ``convention``.""",
    "g_ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered. ``"average"``: every
        tied document takes its tie block's mean gain and G is computed on that list (the
        mean of G over the orderings has no tractable form, and this is not it; without
        ties it is G itself). ``"stable"``: input row order (trec_eval's, with the rows in
        :func:`~sklearn_rank.datasets.read_trec`'s order); ``"optimistic"`` /
        ``"pessimistic"``: more / less relevant documents first. ``None`` means
        ``"average"``, or the value of ``convention``.""",
    "gain_no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query without a document of positive gain (none judged relevant, with
        the named gains), for which the measure is undefined. ``np.nan`` skips such queries;
        ``"raise"`` raises a ``ValueError``. ``None`` means ``0.0``, or the value of
        ``convention``.""",
})


@validate_params(_constraints("gm_map"), prefer_skip_nested_validation=True)
@_fill_doc
def gm_map_score(y_true, y_score, *, qid=None, k=None, relevance_threshold=None,
                 ap_denominator=None, ties=None, no_relevant=None, unjudged="nonrelevant",
                 retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
                 return_per_query=False):
    """Geometric mean over queries of average precision (trec_eval's ``gm_map``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(k)s

    %(relevance_threshold)s

    ap_denominator : {"all", "min_k", "found"}, default=None
        What AP@k divides by, as for :func:`map_score`. ``None`` means ``"all"``, or the
        value of ``convention``.

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Geometric mean of the per-query AP, each floored at 1e-5 (trec_eval's floor),
        weighted by ``sample_weight`` when given. With ``return_per_query=True``, the AP of
        each query (not floored, not its logarithm) in the order of ``np.unique(qid)``, NaN
        for a query skipped by ``no_relevant=np.nan``.

    See Also
    --------
    map_score : The arithmetic mean of AP.

    Notes
    -----
    .. math::
        \\mathrm{GM\\_MAP} = \\exp\\Big(\\frac{\\sum_q w_q \\log \\max(\\mathrm{AP}_q,
        10^{-5})}{\\sum_q w_q}\\Big)

    A query at AP 0 would make a plain geometric mean 0 whatever the others: trec_eval
    floors each value at 1e-5 (``MIN_GEO_MEAN``), and so does this function. The geometric
    mean rewards systems that are consistent over queries (Robertson 2006).

    References
    ----------
    .. [1] S. Robertson, "On GMAP: and other transformations", CIKM 2006.

    Examples
    --------
    Two queries of AP 1 and 0.5: their geometric mean is :math:`\\sqrt{0.5}`:

    >>> from sklearn_rank.metrics import gm_map_score
    >>> y_true, y_score, qid = [1, 0, 0, 1], [4, 3, 2, 1], [1, 1, 2, 2]
    >>> round(gm_map_score(y_true, y_score, qid=qid), 4)
    0.7071
    >>> gm_map_score(y_true, y_score, qid=qid, return_per_query=True)
    array([1. , 0.5])
    """
    return _score("gm_map", locals())


@validate_params(_constraints("yaap"), prefer_skip_nested_validation=True)
@_fill_doc
def yaap_score(y_true, y_score, *, qid=None, relevance_threshold=None, ties=None,
               no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None,
               docno=None, sample_weight=None, convention=None, return_per_query=False):
    """Yet another average precision (trec_eval's ``yaap``): AP smoothed on a log-odds scale.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(relevance_threshold)s

    %(ties)s

    %(defined_no_relevant)s

    %(unjudged)s

    %(tail)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries of yaap, weighted by ``sample_weight`` when given; with
        ``return_per_query=True``, the value of each query in the order of
        ``np.unique(qid)``.

    See Also
    --------
    map_score : Average precision, :math:`S / R`.
    gm_map_score : Another transformation of AP: the geometric mean over queries.

    Notes
    -----
    .. math::
        \\mathrm{yaap} = \\log \\frac{1 + S}{1 + R - S}, \\qquad
        S = \\sum_{r \\text{ relevant ranked}} \\frac{\\#\\{\\text{relevant at ranks} \\le r\\}}{r}

    :math:`S` is the numerator of average precision (:math:`\\mathrm{AP} = S / R`) and
    :math:`R` the number of relevant documents of the query, retrieved or not; the logarithm
    is natural. yaap is monotonic in AP on one query, but it stays finite and spreads out
    the values near 0 and 1, so that its mean over queries is less dominated by the extremes
    than MAP (Robertson [1]_). It is defined on every query: 0 without a relevant document
    (``no_relevant`` never applies); a query of the qrels that the run does not retrieve
    (trec_eval ``-c``) has :math:`\\log(1 / (1 + R))`. This is trec_eval 10.0's ``yaap``
    (``m_yaap.c``). With ``ties="average"``, :math:`S` is its expectation over the orderings
    of tied documents.

    References
    ----------
    .. [1] S. Robertson, "On Smoothing Average Precision", ECIR 2012, LNCS 7224, pp. 158-169.

    Examples
    --------
    The first query ranks its relevant document first (:math:`S = 1`, :math:`R = 1`:
    :math:`\\log 2`), the second second (:math:`S = 1/2`: :math:`\\log 1 = 0`):

    >>> from sklearn_rank.metrics import yaap_score
    >>> y_true, y_score, qid = [1, 0, 0, 1], [4, 3, 2, 1], [1, 1, 2, 2]
    >>> yaap_score(y_true, y_score, qid=qid, return_per_query=True)
    array([0.69314718, 0.        ])
    """
    return _score("yaap", locals())


@validate_params(_constraints("iprec_at_recall"), prefer_skip_nested_validation=True)
@_fill_doc
def iprec_at_recall_score(y_true, y_score, *, qid=None, recall=0.0, relevance_threshold=None,
                          recall_rounding="nearest", ties=None, no_relevant=None,
                          unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
                          sample_weight=None, convention=None, return_per_query=False):
    """Interpolated precision at a recall level (trec_eval's ``iprec_at_recall``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    recall : float in [0, 1], default=0.0
        The recall level: trec_eval's ``iprec_at_recall_0.50`` is ``recall=0.5`` (and
        ir_measures' ``IPrec@0.5``, with ``recall_rounding="legacy"``). 0 gives the
        largest precision at any rank.

    %(relevance_threshold)s

    %(recall_rounding)s

    %(curve_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    eleven_point_average_score : The mean over recall levels.
    map_score : Average precision, the area under the non-interpolated curve.

    Notes
    -----
    With :math:`R` relevant documents (retrieved or not) and :math:`c` of them at the
    recall level (see ``recall_rounding``), the value is the largest precision at a rank
    at or below that of the :math:`c`-th relevant document,

    .. math::
        \\mathrm{iprec}(x) = \\max_{j \\ge r_c} \\mathrm{P@}j,

    0 when fewer than :math:`c` relevant documents are retrieved (:math:`c = 0` counts as
    1). This is the standard interpolation of the recall-precision graph (``m_iprec_at_recall.c``).

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, "Introduction to Information
       Retrieval", section 8.4, Cambridge University Press, 2008.
    .. [2] F. McSherry and M. Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008.

    Examples
    --------
    Relevant documents at ranks 1, 3 and 4: at recall 0.5 (2 of 3 relevant documents), the
    best precision from rank 3 on is P@4 = 0.75:

    >>> from sklearn_rank.metrics import iprec_at_recall_score
    >>> iprec_at_recall_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], qid="single_query", recall=0.5)
    0.75
    """
    return _score("iprec_at_recall", locals())


@validate_params(_constraints("eleven_point_average"), prefer_skip_nested_validation=True)
@_fill_doc
def eleven_point_average_score(y_true, y_score, *, qid=None,
                               recall_levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                                              0.9, 1.0),
                               relevance_threshold=None, recall_rounding="nearest", ties=None,
                               no_relevant=None, unjudged="nonrelevant", retrieved=None,
                               judged=None, docno=None, sample_weight=None, convention=None,
                               return_per_query=False):
    """Interpolated precision averaged over recall levels (trec_eval's ``11pt_avg``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    recall_levels : array-like of float in [0, 1], default=(0.0, 0.1, ..., 1.0)
        The recall levels averaged over, each counted as often as given: trec_eval's 11
        points by default; trec_eval's ``11pt_avg.25,.5,.75`` is
        ``recall_levels=(0.25, 0.5, 0.75)`` (in a name, ``"11pt_avg_.25,.5,.75"``).

    %(relevance_threshold)s

    %(recall_rounding)s

    %(curve_ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    iprec_at_recall_score : The interpolated precision at one level.

    Notes
    -----
    The mean of :func:`iprec_at_recall_score` over the levels. trec_eval's own loop
    (``m_11pt_avg.c``) assumes ascending levels; for others its value is not this mean
    (sklearn-rank's reading of trec_eval's names refuses them).

    Examples
    --------
    Relevant documents at ranks 1, 3 and 4: precision 1 up to recall 0.4 (5 levels), 0.75
    beyond (6 levels):

    >>> from sklearn_rank.metrics import eleven_point_average_score
    >>> round(eleven_point_average_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], qid="single_query"), 4)
    0.8636
    >>> eleven_point_average_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], qid="single_query",
    ...                            recall_levels=[0.5, 1])
    0.75
    """
    return _score("eleven_point_average", locals())


@validate_params(_constraints("rprec_mult"), prefer_skip_nested_validation=True)
@_fill_doc
def rprec_mult_score(y_true, y_score, *, qid=None, mult=1.0, relevance_threshold=None,
                     ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None,
                     judged=None, docno=None, sample_weight=None, convention=None,
                     return_per_query=False):
    """Precision at a multiple of R, the number of relevant documents (trec_eval's
    ``Rprec_mult``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    mult : float > 0, default=1.0
        The multiple of :math:`R`: trec_eval's ``Rprec_mult_0.20`` is ``mult=0.2``. 1 is
        R-precision (:func:`r_precision_score`).

    %(relevance_threshold)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    r_precision_score : Precision at R.

    Notes
    -----
    The cut-off is :math:`c = \\lfloor \\mathrm{mult} \\cdot R + 0.9 \\rfloor`
    (``m_Rprec_mult.c``), and the value :math:`\\mathrm{hits@}c / c`: a list shorter than
    :math:`c` still divides by :math:`c`, and a cut-off of 0 (:math:`\\mathrm{mult} \\cdot R
    < 0.1`) gives 0. With ``ties="average"`` the expectation over tied orderings is exact.
    Comparing low and high multiples tells precision-oriented systems from recall-oriented
    ones.

    Examples
    --------
    Three relevant documents at ranks 1, 3 and 4 of five: at twice R, 3 hits over a
    cut-off of 6:

    >>> from sklearn_rank.metrics import rprec_mult_score
    >>> rprec_mult_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], qid="single_query", mult=2)
    0.5
    """
    return _score("rprec_mult", locals())


@validate_params(_constraints("g"), prefer_skip_nested_validation=True)
@_fill_doc
def g_score(y_true, y_score, *, qid=None, gain=None, ties=None, no_relevant=None,
            unjudged="nonrelevant", retrieved=None, judged=None, docno=None, sample_weight=None,
            convention=None, return_per_query=False):
    """trec_eval's normalised gain G, per query, averaged over queries.

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(dcg_gain)s

    %(g_ties)s

    %(gain_no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    bing_score : G with binary gains.
    ndcg_score : Discounted cumulative gain, normalised.

    Notes
    -----
    Experimental in trec_eval (``m_G.c``, 2008): a gain measure that combines qualities of
    AP and nDCG. The document at rank :math:`i` adds

    .. math:: \\frac{g_i}{\\log_2(2 + C_i - S_i)}

    where :math:`S_i` is the gain of the documents ranked up to :math:`i` and :math:`C_i` the
    sum over ranks :math:`j \\le i` of :math:`\\max(\\hat g_j, 1)`, :math:`\\hat g_j` the
    :math:`j`-th ideal gain (0 beyond the positive ones). G is the sum over the ranked
    documents, over the sum of the positive ideal gains. A document retrieved when most of
    those above it have higher gains is rewarded nearly as much as one at its ideal place.

    Examples
    --------
    >>> from sklearn_rank.metrics import g_score
    >>> round(g_score([2, 0, 1, 3, 0], [5, 4, 3, 2, 1], qid="single_query", gain="linear"), 4)
    0.5976
    """
    return _score("g", locals())


@validate_params(_constraints("bing"), prefer_skip_nested_validation=True)
@_fill_doc
def bing_score(y_true, y_score, *, qid=None, relevance_threshold=None, ties=None,
               no_relevant=None, unjudged="nonrelevant", retrieved=None, judged=None, docno=None,
               sample_weight=None, convention=None, return_per_query=False):
    """trec_eval's binary G (``binG``), per query, averaged over queries.

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

    See Also
    --------
    g_score : The graded measure.

    Notes
    -----
    Experimental in trec_eval (``m_binG.c``, 2008): with :math:`n_r` the non-relevant
    documents (unjudged ones included) ranked above the relevant document :math:`r`,

    .. math:: \\mathrm{binG} = \\frac{1}{R} \\sum_{r \\text{ ranked}} \\frac{1}{\\log_2(2 + n_r)}.

    With ``ties="average"`` the expectation over tied orderings is exact: in a tie block
    of :math:`m` documents, :math:`r` of them relevant, the non-relevant members above a
    given relevant one number :math:`0, ..., m - r` with equal probability.

    Examples
    --------
    Relevant documents at ranks 1, 3 and 4, after 0, 1 and 1 non-relevant ones:

    >>> from sklearn_rank.metrics import bing_score
    >>> round(bing_score([1, 0, 1, 1, 0], [5, 4, 3, 2, 1], qid="single_query"), 4)
    0.754
    """
    return _score("bing", locals())


@validate_params(_constraints("ndcg_rel"), prefer_skip_nested_validation=True)
@_fill_doc
def ndcg_rel_score(y_true, y_score, *, qid=None, gain=None, discount="log", log_base=2,
                   ties=None, no_relevant=None, unjudged="nonrelevant", retrieved=None,
                   judged=None, docno=None, sample_weight=None, convention=None,
                   return_per_query=False):
    """nDCG averaged over the documents of positive gain (trec_eval's ``ndcg_rel``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(dcg_gain)s

    %(discount)s

    %(log_base)s

    %(ties)s

    %(gain_no_relevant)s

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    ndcg_score : nDCG at one cut-off.
    rndcg_score : nDCG averaged over the R levels.

    Notes
    -----
    Experimental in trec_eval (``m_ndcg_rel.c``): nDCG@:math:`i` at the rank :math:`i` of
    each retrieved document of positive gain, the ideal DCG truncated at :math:`i` too; a
    document of positive gain that is not retrieved counts the nDCG at the end of the list.
    The mean is over the :math:`P` documents of positive gain, and a query whose sum is not
    positive (possible with negative gains) scores 0, as in trec_eval. With
    ``ties="average"`` the expectation over tied orderings is exact (the sum is one of
    products of two documents' relevance and gain, whose mean over a tie block is the mean
    over its pairs of members); with negative gains it has no tractable form and
    ``ties="average"`` raises where ties occur.

    Examples
    --------
    >>> from sklearn_rank.metrics import ndcg_rel_score
    >>> round(ndcg_rel_score([2, 0, 1, 3, 0], [5, 4, 3, 2, 1], qid="single_query",
    ...                      gain="linear"), 4)
    0.6627
    """
    return _score("ndcg_rel", locals())


@validate_params(_constraints("rndcg"), prefer_skip_nested_validation=True)
@_fill_doc
def rndcg_score(y_true, y_score, *, qid=None, gain=None, discount="log", log_base=2,
                relevance_threshold=None, ties=None, no_relevant=None, unjudged="nonrelevant",
                retrieved=None, judged=None, docno=None, sample_weight=None, convention=None,
                return_per_query=False):
    """nDCG averaged over the R levels of the ideal ordering (trec_eval's ``Rndcg``).

    Parameters
    ----------
    %(data)s

    %(qid)s

    %(dcg_gain)s

    %(discount)s

    %(log_base)s

    relevance_threshold : float, default=None
        Only decides which queries are undefined (those without a document with
        ``y_true >= relevance_threshold``, as trec_eval's ``-l``); the measure itself reads
        the gains. ``None`` means 1, or the value of ``convention``.

    %(ties)s

    no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query without a relevant document or without a document of positive
        gain, for which the measure is undefined. ``np.nan`` skips such queries;
        ``"raise"`` raises a ``ValueError``. ``None`` means ``0.0``, or the value of
        ``convention``.

    %(unjudged)s

    %(tail)s

    %(returns)s

    See Also
    --------
    ndcg_score : nDCG at one cut-off.
    ndcg_rel_score : nDCG averaged over the documents of positive gain.

    Notes
    -----
    Experimental in trec_eval (``m_Rndcg.c``): the R levels are the ranks where the ideal
    gain changes, the last ideal document of each gain level (with 5 documents of gain 3,
    3 of gain 2 and 10 of gain 1: ranks 5, 8 and 18), and the value is the mean of nDCG at
    those ranks, plus nDCG at the end of the list when it goes on at least two documents
    beyond the ideal's positive gains (trec_eval's condition). With ``ties="average"``
    the expectation over tied orderings is exact.

    Examples
    --------
    Gains 3, 2 and 1 in the ideal ordering: the mean of nDCG@1, nDCG@2 and nDCG@3, and of
    nDCG@5 at the end of the list:

    >>> from sklearn_rank.metrics import rndcg_score
    >>> round(rndcg_score([2, 0, 1, 3, 0], [5, 4, 3, 2, 1], qid="single_query", gain="linear"), 4)
    0.6143
    """
    return _score("rndcg", locals())


