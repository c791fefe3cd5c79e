"""The one rule that turns per-query values into a value over queries.

An :class:`Aggregator` gathers the per-query values of one metric, from one call, from
chunks of disjoint queries (cross-validation folds, stored runs) or from the partitions of a
Dask collection, and gives their value by the metric's rule (:data:`AGGREGATIONS`): the same
number, bit for bit, however the queries were chunked. It keeps the values, not partial
sums: the mean of :func:`~sklearn_rank.metrics.evaluate` adds them pairwise in the order of
the query ids (numpy's sum), or one at a time under ``ties="stable"`` and trec_eval's
convention (:func:`~sklearn_rank.utils._segments.sum_in_order`), and no merge of partial
sums repeats either. :meth:`Aggregator.result` puts the chunks back in query-id order and
runs :func:`mean_over_queries` (or the sum, or the geometric mean) once on all of them.

:meth:`Metric.aggregate <sklearn_rank.metrics._registry.Metric.aggregate>`,
:func:`~sklearn_rank.metrics.aggregate` (and through it ``evaluate``, the public functions and
the scorers), the Dask tree reduction and the trec_eval command all aggregate here.
"""

import warnings

import numpy as np

from ..utils._segments import _well_scaled, sum_in_order

# How the per-query values of a metric become one number (Metric.aggregate): the (weighted)
# mean; the geometric mean, of values floored at GEOMETRIC_MEAN_FLOOR (trec_eval's gm_map,
# gm_bpref); the (weighted) sum, for counts (trec_eval's num_ret, num_rel, num_rel_ret).
AGGREGATIONS = ("mean", "geometric_mean", "sum")
# trec_eval's MIN_GEO_MEAN: one query at 0 would make the geometric mean 0, whatever the others.
GEOMETRIC_MEAN_FLOOR = 1e-5
_NO_RELEVANT_REASON = "that have no relevant document"


def in_query_order(options, convention=None):
    """Whether the values of a metric computed with resolved ``options`` are added one at a
    time in query order, as trec_eval adds them: the rows' order is the ranking
    (``ties="stable"``, trec_eval's ties), or the convention is trec_eval's. ``options`` may
    hold the convention, as :attr:`PerQueryResult.options
    <sklearn_rank.metrics.PerQueryResult.options>` records it."""
    convention = options.get("convention", convention)
    return options.get("ties") == "stable" or convention == "trec_eval"


class Aggregator:
    """The value over queries of one metric, from per-query values added in chunks.

    Parameters
    ----------
    aggregation : {"mean", "geometric_mean", "sum"}, default="mean"
        The metric's rule (:attr:`Metric.aggregation
        <sklearn_rank.metrics._registry.Metric.aggregation>`).
    in_order : bool, default=False
        Without weights, add the values one at a time in query order, as trec_eval does,
        rather than pairwise (see :meth:`Metric.aggregate
        <sklearn_rank.metrics._registry.Metric.aggregate>`).
    label : str, default="metric"
        The metric as the caller named it, for messages.
    undefined_reason : str, default="that have no relevant document"
        Completes "queries ..." in the warning when every query was skipped.

    Examples
    --------
    >>> from sklearn_rank.metrics._aggregate import Aggregator
    >>> a = Aggregator(label="mrr").add([1.0, 0.5], query_ids=[1, 3])
    >>> b = Aggregator(label="mrr").add([0.25], query_ids=[2])
    >>> a.merge(b).result()
    0.5833333333333334
    """

    __slots__ = ("aggregation", "in_order", "label", "undefined_reason", "_chunks")

    def __init__(self, aggregation="mean", *, in_order=False, label="metric",
                 undefined_reason=_NO_RELEVANT_REASON):
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}; got {aggregation!r}.")
        self.aggregation = aggregation
        self.in_order = bool(in_order)
        self.label = label
        self.undefined_reason = undefined_reason
        self._chunks = ()

    def __getstate__(self):  # __slots__ without __dict__: pickled to Dask's workers and back
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)

    def _like(self, chunks):
        other = Aggregator.__new__(Aggregator)
        other.__setstate__({**self.__getstate__(), "_chunks": chunks})
        return other

    @property
    def n_queries(self):
        """The number of queries added so far (NaN values included)."""
        return sum(len(chunk[1]) for chunk in self._chunks)

    def add(self, values, weights=None, *, query_ids=None, weight_unit=1.0):
        """Add the per-query values of some queries; returns the aggregator.

        Parameters
        ----------
        values : array-like of shape (n_queries,)
            Per-query values, NaN for a query skipped by ``no_relevant=np.nan``.
        weights : array-like of shape (n_queries,), default=None
            Query weights, in units of ``weight_unit``
            (:attr:`PerQueryResult.query_weight <sklearn_rank.metrics.PerQueryResult>`);
            every chunk weighted, or none.
        query_ids : array-like of shape (n_queries,), default=None
            The queries' ids, which put chunks back in query order; needed when several
            chunks are added (or merged), else the values are taken in the order given.
        weight_unit : float, default=1.0
            ``weights * weight_unit`` is in the units of ``sample_weight``.
        """
        values = np.asarray(values, dtype=np.float64)
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float64)
        if query_ids is not None:
            query_ids = np.asarray(query_ids)
        chunk = (query_ids, values, weights, float(weight_unit))
        if self._chunks and ((weights is None) != (self._chunks[0][2] is None)):
            raise ValueError(
                f"Cannot aggregate weighted and unweighted values of {self.label}: pass "
                "sample_weight to every chunk or to none."
            )
        self._chunks = (*self._chunks, chunk)
        return self

    def merge(self, other):
        """A new aggregator of the values of both (of other queries, of the same rule)."""
        if (other.aggregation, other.in_order) != (self.aggregation, self.in_order):
            raise ValueError(
                f"Cannot merge the values of {self.label} aggregated by "
                f"{self.aggregation!r} (in_order={self.in_order}) with those aggregated by "
                f"{other.aggregation!r} (in_order={other.in_order})."
            )
        merged = self._like(self._chunks)
        for chunk in other._chunks:
            merged.add(chunk[1], chunk[2], query_ids=chunk[0], weight_unit=chunk[3])
        return merged

    def _gathered(self):
        """``(values, weights, unit)`` of every chunk, in query-id order; weights in one unit
        (the largest, as :meth:`PerQueryResult.concat
        <sklearn_rank.metrics.PerQueryResult.concat>` puts them)."""
        chunks = self._chunks
        if not chunks:
            return np.zeros(0), None, 1.0
        if len(chunks) == 1:
            _, values, weights, unit = chunks[0]
            return values, weights, unit
        values = np.concatenate([c[1] for c in chunks])
        weights, unit = None, chunks[0][3]
        if chunks[0][2] is not None:
            # the largest unit of the chunks that weigh something: a chunk of zero weights
            # (unit 1.0) must not sink the others' tiny weights into subnormal numbers
            unit = max((c[3] for c in chunks if c[2].any()), default=chunks[0][3])
            weights = np.concatenate([c[2] if c[3] == unit or not c[2].any()
                                      else c[2] * (c[3] / unit) for c in chunks])
        if any(c[0] is None for c in chunks):
            raise ValueError(
                f"Cannot put the chunks of {self.label} in query order: add them with their "
                "query_ids."
            )
        ids = np.concatenate([c[0] for c in chunks])
        if ids.dtype.kind == "f" and all(c[0].dtype.kind in "iu" for c in chunks):
            # int64 with uint64 ids: compared as Python integers, exactly
            ids = np.concatenate([c[0].astype(object) for c in chunks])
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        if len(sorted_ids) > 1 and bool(np.any(sorted_ids[1:] == sorted_ids[:-1])):
            raise ValueError(
                f"A query appears in two chunks of {self.label}: the rows of a query were "
                "split across chunks, so its per-query value in each is not its value. Group "
                "the rows by query before chunking."
            )
        return values[order], None if weights is None else weights[order], unit

    def result(self, *, stacklevel=2):
        """The value over queries, by the rule; NaN with an ``UndefinedMetricWarning``
        when every query was skipped (``stacklevel`` as for :func:`warnings.warn` called
        by the caller of this method: 2 points at its caller)."""
        values, weights, unit = self._gathered()
        return _aggregated(self, values, weights, unit, stacklevel + 1)


def _aggregated(aggregator, values, weights, unit, stacklevel):
    """The rule of ``aggregator`` on gathered values; ``stacklevel`` as
    :func:`mean_over_queries` takes it (as if the caller of this function warned)."""
    kept = ~np.isnan(values)
    if aggregator.aggregation == "sum" and kept.any():
        values = values[kept]
        if weights is None:
            return sum_in_order(values) if aggregator.in_order else float(values.sum())
        # the mean depends on ratios of weights only, a weighted sum on the weights: back
        # to the units of sample_weight (unit is 1.0 unless the weights are extreme)
        if unit != 1.0:
            weights = weights * unit
        return float(np.dot(weights[kept], values))
    if aggregator.aggregation == "geometric_mean":
        values = np.log(np.maximum(values, GEOMETRIC_MEAN_FLOOR))  # NaN stays NaN
    mean = mean_over_queries(values, weights, metric=aggregator.label,
                             undefined_reason=aggregator.undefined_reason,
                             stacklevel=stacklevel, in_order=aggregator.in_order)
    return float(np.exp(mean)) if aggregator.aggregation == "geometric_mean" else mean


def mean_over_queries(values, query_weight=None, *, metric,
                      undefined_reason=_NO_RELEVANT_REASON, stacklevel=2, in_order=False):
    """The (weighted) mean over queries of per-query ``values``, NaN (skipped) left out.

    ``query_weight`` (one per query, or None) is :attr:`RankingInput.query_weight`: only
    the ratios of weights matter. Every query skipped: NaN, with an
    ``UndefinedMetricWarning`` (``stacklevel`` as for :func:`warnings.warn`, as if the
    caller of this function warned); a zero total weight of the kept queries: ``ValueError``.
    ``in_order``: without weights, the values are added one at a time in their order, then
    divided by their number, as trec_eval averages (:func:`sum_in_order`).
    """
    kept = ~np.isnan(values)
    if not kept.any():
        from sklearn.exceptions import UndefinedMetricWarning  # scikit-learn's: users filter it

        warnings.warn(
            f"{metric} is undefined: every query was skipped. no_relevant=nan skips the "
            f"queries {undefined_reason}, and all {len(values)} are such queries. "
            "Returning nan.",
            UndefinedMetricWarning,
            stacklevel=stacklevel + 1,
        )
        return float("nan")
    values = values[kept]
    weight = None
    if query_weight is not None:
        weight = query_weight[kept]
        with np.errstate(over="ignore"):
            total = weight.sum()
        if total <= 0:
            raise ValueError(
                "sample_weight gives every evaluated query a weight of zero; the "
                "weighted mean is undefined."
            )
        if not _well_scaled(total):  # only the ratios of weights matter
            weight = weight / weight.max()
    elif in_order:
        with np.errstate(over="ignore"):
            mean = sum_in_order(values) / len(values)
        if np.isfinite(mean):
            return mean
    return _mean(values, weight)


def _mean(values, weight=None):
    """The (weighted) mean of finite ``values``, without overflow where it is finite."""
    with np.errstate(over="ignore", invalid="ignore"):
        mean = values.mean() if weight is None else np.dot(weight, values) / weight.sum()
    if not np.isfinite(mean):  # a sum overflowed: average values scaled into [-1, 1]
        scale = np.abs(values).max()
        return float(_mean(values / scale, weight) * scale)
    return float(mean)
