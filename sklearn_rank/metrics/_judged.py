"""Public functions of the measures for incomplete judgements: bpref, infAP, Judged@k,
the unjudged rate and the RBP residual.

The metrics of family ``"judged"`` of the registry (``Metric.family``): thin, validated
shells over the shared engine, built with the helpers of ``_shell.py``. A metric of this
family takes a kernel, a registry entry and its public function here (CONTRIBUTING.md).
"""

from ..utils._param_validation import validate_params
from ._shell import _constraints, _fill_doc, _score


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
