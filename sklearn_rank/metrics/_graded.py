"""Public functions of the graded metrics: the DCG family, ERR, RBP, the half-life
utility, G and trec_eval's variants of nDCG.

The metrics of family ``"graded"`` of the registry (``Metric.family``): thin, validated
shells over the shared engine, built with the helpers of ``_shell.py``. A metric of this
family takes a kernel, a registry entry and its public function here (CONTRIBUTING.md).
"""

import numpy as np

from ..utils._param_validation import validate_params
from . import _per_query as pq
from ._registry import METRICS
from ._result import means_of
from ._shell import _constraints, _data, _fill_doc, _result, _score


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
