"""Public functions of the binary metrics: AP, RR, precision, recall, hit rate and hits,
R-precision, F1, fall-out, and trec_eval's interpolated precision and R- and G-based measures.

The metrics of family ``"binary"`` of the registry (``Metric.family``): thin, validated
shells over the shared engine, built with the helpers of ``_shell.py``. A metric of this
family takes a kernel, a registry entry and its public function here (CONTRIBUTING.md).
"""

from ..utils._param_validation import validate_params
from ._shell import _constraints, _fill_doc, _score


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
