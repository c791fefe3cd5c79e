"""Public functions of the measures of retrieved sets and of counts: set precision,
recall, F and AP, utility and trec_eval's counts.

The metrics of family ``"sets"`` of the registry (``Metric.family``): thin, validated
shells over the shared engine, built with the helpers of ``_shell.py``. A metric of this
family takes a kernel, a registry entry and its public function here (CONTRIBUTING.md).
"""

from ..utils._param_validation import validate_params
from ._shell import _constraints, _fill_doc, _score


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
