"""Public functions of the correlations and pairs: Kendall's tau, Spearman's rho and
the pairwise accuracy, on the whole list of each query (no cut-off, no tie option).

The metrics of family ``"correlation"`` of the registry (``Metric.family``): thin, validated
shells over the shared engine, built with the helpers of ``_shell.py``. A metric of this
family takes a kernel, a registry entry and its public function here (CONTRIBUTING.md).
"""

from ..utils._param_validation import validate_params
from ._shell import _constraints, _fill_doc, _score


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
