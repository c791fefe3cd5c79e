"""Per-query values of a benchmark run across its seeds, and as ``PerQueryResult`` objects.

A leaf of :mod:`sklearn_rank.benchmark`: the store, the runner and the report use it, and it
imports none of them (nor :mod:`sklearn_rank.stats`).
"""

import inspect

import numpy as np

__all__ = ["per_query_result", "seed_mean", "seed_spread"]


def seed_mean(per_query_by_seed, metrics):
    """The per-query values of one system on one data set, averaged over the seeds.

    Every repeat scores every query once (in the test fold its seed put it in): the mean of
    a query's values over the repeats is its value with the seed noise of the split and the
    model averaged out, and the systems' means stay paired by query.

    Parameters
    ----------
    per_query_by_seed : list of dict
        Per seed, ``{"qid": ..., metric: values}``.
    metrics : list of str

    Returns
    -------
    per_query : dict
        ``{"qid": sorted query ids, metric: mean over the seeds}``.
    """
    from ..utils._qid import unique_ids

    first = per_query_by_seed[0]
    qid = unique_ids(first["qid"])
    out = {"qid": qid}
    for metric in metrics:
        stacked = []
        for values in per_query_by_seed:
            order = np.argsort(values["qid"], kind="stable")
            ids = np.asarray(values["qid"])[order]
            if len(ids) != len(qid) or not np.array_equal(ids, qid):
                raise ValueError("the repeats of a data set scored different queries; "
                                 "their per-query values cannot be averaged.")
            stacked.append(np.asarray(values[metric], dtype=np.float64)[order])
        out[metric] = np.mean(stacked, axis=0)
    return out


def seed_spread(per_query_by_seed, metrics):
    """The spread over seeds of a system's mean over queries: ``{metric: (mean of the
    per-seed means, their standard deviation with ddof=1)}``; the deviation is NaN for one
    seed."""
    out = {}
    for metric in metrics:
        means = [float(np.nanmean(values[metric])) for values in per_query_by_seed]
        spread = float(np.std(means, ddof=1)) if len(means) > 1 else float("nan")
        out[metric] = (float(np.mean(means)), spread)
    return out


def per_query_result(values, metrics):
    """A :class:`~sklearn_rank.metrics.PerQueryResult` of stored per-query values (with their
    folds when ``PerQueryResult`` takes a fold column)."""
    from ..metrics import PerQueryResult

    # a result lists its queries in increasing order; the folds list them fold by fold
    order = np.argsort(values["qid"], kind="stable")
    kwargs = {}
    if "fold" in values and "fold" in inspect.signature(PerQueryResult).parameters:
        kwargs["fold"] = np.asarray(values["fold"])[order]
    return PerQueryResult(np.asarray(values["qid"])[order],
                          {m: np.asarray(values[m])[order] for m in metrics}, **kwargs)
