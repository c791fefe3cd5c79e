"""evaluate and evaluate_per_query: bound metrics, computed once on validated data.

Both bind their metric names once (:func:`~sklearn_rank.metrics._bound.bind_metrics`),
validate the data once, and compute every metric from one grouping and one sort
(:func:`~sklearn_rank.metrics._result.result_of`); Dask inputs go to
:func:`~sklearn_rank.metrics._dask.dask_evaluate`, which runs the same computation per
partition. This module sits above both, so that neither imports the other.
"""

from dataclasses import dataclass

import numpy as np

from ..utils._param_validation import validate_params
from ._bound import bind_metrics
from ._dask import dask_evaluate, dask_summary, is_dask_collection
from ._input import check_ranking_input
from ._registry import CONSTRAINTS
from ._result import means_of, result_of

__all__ = ["EvaluationSummary", "evaluate", "evaluate_per_query", "evaluate_summary"]


# The arguments of evaluate and evaluate_per_query (besides the metrics' own options).
_EVALUATE_CONSTRAINTS = {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "qid": CONSTRAINTS["qid"],
        "metrics": [list, tuple, str],
        "sample_weight": ["array-like", None],
        "retrieved": ["array-like", None],
        "judged": CONSTRAINTS["judged"],
        "docno": CONSTRAINTS["docno"],
        "convention": CONSTRAINTS["convention"],
}


@validate_params({**_EVALUATE_CONSTRAINTS, "partitioned_by_query": ["boolean"]},
                 prefer_skip_nested_validation=True)
def evaluate_per_query(y_true, y_score, *, qid=None, metrics=("ndcg@10", "map", "mrr"),
                       sample_weight=None, retrieved=None, judged=None, docno=None,
                       convention=None, partitioned_by_query=False, **options):
    """Compute several ranking metrics per query, with the query ids they belong to.

    The same computation as :func:`evaluate` (one grouping, one sort), returned before the
    mean over queries: :func:`aggregate` of the result gives :func:`evaluate`'s means.

    Parameters
    ----------
    y_true, y_score, qid, sample_weight, retrieved, judged, docno, convention
        As in :func:`ndcg_score`.

    metrics : list of str or str, default: ``("ndcg@10", "map", "mrr")``
        Metric names, as in :func:`evaluate`.

    partitioned_by_query : bool, default=False
        With Dask inputs, as in :func:`evaluate`; ignored for arrays in memory.

    **options
        Options applied to every metric that takes them, as in :func:`evaluate`.

    Returns
    -------
    result : PerQueryResult or dask.dataframe.DataFrame
        Query ids (in the order of ``np.unique(qid)``), per metric the values (after the
        ``no_relevant`` policy) and the mask of queries where it is undefined, the query
        weights (None without ``sample_weight``) and the resolved options. With Dask
        inputs, a lazy Dask DataFrame: a ``qid`` column, one column per metric and, with
        ``sample_weight``, a ``query_weight`` column (see :ref:`scaling`).

    See Also
    --------
    evaluate : The means over queries (``return_per_query=True`` gives bare arrays).
    aggregate : The means of one or several results.

    Examples
    --------
    >>> from sklearn_rank.metrics import aggregate, evaluate_per_query
    >>> y_true = [3, 0, 2, 1, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.4, 0.3, 0.6]
    >>> qid = [1, 2, 1, 2, 1, 2]
    >>> result = evaluate_per_query(y_true, y_score, qid=qid, metrics=["ndcg@2", "P@1"])
    >>> result.to_frame().round(4)  # doctest: +NORMALIZE_WHITESPACE
         ndcg@2  P@1
    qid
    1    0.7872  1.0
    2    0.3869  0.0
    >>> {name: round(value, 4) for name, value in aggregate(result).items()}
    {'ndcg@2': 0.587, 'P@1': 0.5}
    """
    if any(map(is_dask_collection,
               (y_true, y_score, qid, sample_weight, retrieved, judged, docno))):
        return dask_evaluate(y_true, y_score, qid, metrics, sample_weight, retrieved, judged,
                             convention, options, caller="evaluate_per_query",
                             return_per_query=True, partitioned_by_query=partitioned_by_query,
                             docno=docno)
    return evaluate_result(y_true, y_score, qid, metrics, sample_weight, retrieved, judged,
                           convention, options, caller="evaluate_per_query", docno=docno)


@validate_params({**_EVALUATE_CONSTRAINTS, "return_per_query": ["boolean"],
                  "partitioned_by_query": ["boolean"]},
                 prefer_skip_nested_validation=True)
def evaluate(y_true, y_score, *, qid=None, metrics=("ndcg@10", "map", "mrr"), sample_weight=None,
             retrieved=None, judged=None, docno=None, convention=None, return_per_query=False,
             partitioned_by_query=False, **options):
    """Compute several ranking metrics at once, grouping and sorting the data once.

    :func:`evaluate_per_query` followed by :func:`aggregate`, in one call.

    Parameters
    ----------
    y_true, y_score, qid, sample_weight, retrieved, judged, docno, convention, \
return_per_query
        As in :func:`ndcg_score`.

    metrics : list of str or str, default: ``("ndcg@10", "map", "mrr")``
        Metric names, case-insensitive: ``"ndcg@10"``, ``"dcg@5"``, ``"err@20"``,
        ``"map"``/``"ap@10"``, ``"mrr"``/``"rr@10"``, ``"p@5"``, ``"r@100"``,
        ``"success@10"``/``"hit_rate@10"``, ``"rprec"``, ``"rbp(p=0.8)"``,
        ``"kendall_tau"``, ``"spearman"``, ``"pairwise_accuracy"``,
        ``"half_life_utility"``. See :func:`get_metric_names`.

    partitioned_by_query : bool, default=False
        With Dask inputs (Dask Series of one Dask DataFrame, or Dask arrays), declare that
        the rows of each query sit in one partition already, to skip the shuffle on
        ``qid``. The claim is checked: a query found in two partitions is an error.
        Ignored for arrays in memory. See :ref:`scaling`.

    **options
        Options applied to every metric that takes them (``ties="stable"``,
        ``gain="linear"``, ``no_relevant=1.0``, ``max_grade=4``...). An option that no
        requested metric takes is an error. Options fixed in a name (``"rbp(p=0.5)"``) win;
        an option that every metric taking it fixes in its name would have no effect, and
        is an error too.

    Returns
    -------
    results : dict or dask.dataframe.DataFrame
        Metric name (as given) -> mean value, or per-query array with
        ``return_per_query=True`` (in the order of ``np.unique(qid)``; prefer
        :func:`evaluate_per_query`, whose result carries the query ids). With Dask inputs
        and ``return_per_query=True``, a lazy Dask DataFrame of ``qid`` and one column per
        metric, which can be written to Parquet without collecting it.

    See Also
    --------
    evaluate_per_query : The per-query values, with their query ids.
    aggregate : The means of one or several per-query results.

    Examples
    --------
    >>> from sklearn_rank.metrics import evaluate
    >>> y_true = [3, 0, 2, 1, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.4, 0.3, 0.6]
    >>> qid = [1, 2, 1, 2, 1, 2]
    >>> result = evaluate(y_true, y_score, qid=qid, metrics=["ndcg@2", "mrr", "P@1"])
    >>> {name: round(value, 4) for name, value in result.items()}
    {'ndcg@2': 0.587, 'mrr': 0.75, 'P@1': 0.5}
    """
    if any(map(is_dask_collection,
               (y_true, y_score, qid, sample_weight, retrieved, judged, docno))):
        return dask_evaluate(y_true, y_score, qid, metrics, sample_weight, retrieved, judged,
                             convention, options, caller="evaluate",
                             return_per_query=return_per_query,
                             partitioned_by_query=partitioned_by_query, docno=docno)
    result = evaluate_result(y_true, y_score, qid, metrics, sample_weight, retrieved, judged,
                             convention, options, caller="evaluate", docno=docno)
    if return_per_query:  # bare arrays, writable, as evaluate has always returned them
        return {name: np.array(values) for name, values in result.values.items()}
    # the warning of a metric whose every query was skipped: at the caller of evaluate, past
    # the frame of validate_params
    return means_of(result, stacklevel=4)


@dataclass(frozen=True)
class EvaluationSummary:
    """The means of :func:`evaluate_summary`, with the numbers of queries and rows.

    Attributes
    ----------
    means : dict
        Metric name (as given) -> mean over queries, as :func:`evaluate` returns them.
    n_queries : int
        The number of queries evaluated.
    n_rows : int
        The number of rows (documents) of the input.
    """

    means: dict
    n_queries: int
    n_rows: int


@validate_params({**_EVALUATE_CONSTRAINTS, "partitioned_by_query": ["boolean"]},
                 prefer_skip_nested_validation=True)
def evaluate_summary(y_true, y_score, *, qid=None, metrics=("ndcg@10", "map", "mrr"),
                     sample_weight=None, retrieved=None, judged=None, docno=None,
                     convention=None, partitioned_by_query=False, **options):
    """Compute the means of several ranking metrics, with the numbers of queries and rows.

    :func:`evaluate`'s means (the same numbers), with what a report of them says beside
    them: how many queries and rows they come from. With Dask inputs (larger than memory),
    all three come from one pass over the data, and the per-query values never leave the
    workers; in memory, the counts are those of :func:`evaluate_per_query`'s result.

    Parameters
    ----------
    y_true, y_score, qid, sample_weight, retrieved, judged, docno, convention
        As in :func:`ndcg_score`; with Dask inputs, Dask Series of one Dask DataFrame (or
        Dask arrays), as :func:`evaluate` takes them.

    metrics : list of str or str, default: ``("ndcg@10", "map", "mrr")``
        Metric names, as in :func:`evaluate`.

    partitioned_by_query : bool, default=False
        With Dask inputs, as in :func:`evaluate`; ignored for arrays in memory.

    **options
        Options applied to every metric that takes them, as in :func:`evaluate`.

    Returns
    -------
    summary : EvaluationSummary
        ``means`` (metric name -> mean), ``n_queries`` and ``n_rows``.

    See Also
    --------
    evaluate : The means alone.
    evaluate_per_query : The per-query values, with their query ids.

    Examples
    --------
    >>> from sklearn_rank.metrics import evaluate_summary
    >>> y_true = [3, 0, 2, 1, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.4, 0.3, 0.6]
    >>> qid = [1, 2, 1, 2, 1, 2]
    >>> summary = evaluate_summary(y_true, y_score, qid=qid, metrics=["ndcg@2", "P@1"])
    >>> summary.n_queries, summary.n_rows
    (2, 6)
    >>> {name: round(value, 4) for name, value in summary.means.items()}
    {'ndcg@2': 0.587, 'P@1': 0.5}

    The same on a Dask DataFrame (``pip install sklearn-rank[dask]``), in one pass:

    >>> import dask.dataframe as dd  # doctest: +SKIP
    >>> ddf = dd.read_parquet("scores/")  # doctest: +SKIP
    >>> summary = evaluate_summary(ddf["label"], ddf["score"], qid=ddf["qid"],
    ...                            metrics=["ndcg@10"])  # doctest: +SKIP
    """
    if any(map(is_dask_collection,
               (y_true, y_score, qid, sample_weight, retrieved, judged, docno))):
        counted = dask_summary(y_true, y_score, qid, metrics, sample_weight, retrieved, judged,
                               convention, options, partitioned_by_query=partitioned_by_query,
                               docno=docno)
        return EvaluationSummary(counted["means"], counted["queries"], counted["rows"])
    plan = bind_metrics(metrics, options, convention, caller="evaluate_summary")
    data = check_ranking_input(y_true, y_score, qid, sample_weight, retrieved, judged=judged,
                               docno=docno, caller="evaluate_summary")
    result = result_of(data, plan)
    # the warning of a metric whose every query was skipped: at the caller, past the frame
    # of validate_params
    return EvaluationSummary(means_of(result, stacklevel=4), len(result), len(data.y_true))


def evaluate_result(y_true, y_score, qid, metrics, sample_weight, retrieved, judged, convention,
                    options, *, caller, docno=None):
    """:func:`evaluate_per_query` with ``caller`` (``"evaluate"``...) in its messages: the
    body that :func:`evaluate` and :func:`evaluate_per_query` share."""
    plan = bind_metrics(metrics, options, convention, caller=caller)
    data = check_ranking_input(y_true, y_score, qid, sample_weight, retrieved, judged=judged,
                               docno=docno, caller=caller)
    return result_of(data, plan)
