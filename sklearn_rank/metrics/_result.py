"""Per-query results that carry their query ids, and their aggregation over queries.

:func:`evaluate_per_query` computes per-query values (one grouping, one sort) and returns them
as a :class:`PerQueryResult`: query ids, values, the undefined mask, the query weights and the
options each metric was computed with. :func:`aggregate` averages it over queries by each
metric's rule (:meth:`Metric.aggregate`), and merges results computed on chunks of disjoint
queries (folds, partitions) into the value of one call on all their rows.

Every computation of a metric goes through here: :func:`result_of` computes bound metrics
(:mod:`~sklearn_rank.metrics._bound`) on validated data. :func:`evaluate` (in
:mod:`~sklearn_rank.metrics._evaluate`) is :func:`evaluate_per_query` followed by
:func:`aggregate`, as are the plots and the command line; the public ``*_score`` functions,
the scorers (and through them ``cross_validate``), the eval metrics and each Dask partition
build their results with :func:`result_of` from the data they validated, and average them
with :func:`means_of`, that is with the one aggregation rule
(:class:`~sklearn_rank.metrics._aggregate.Aggregator`). Whoever needs query ids takes them
from the result.
"""

import math
import os
import sys
import warnings
from numbers import Integral, Real
from types import MappingProxyType

import numpy as np

from ..utils._arrays import check_finite_nonnegative
from ..utils._optional import import_optional
from ..utils._sklearn_internals import PARAM_VALIDATION_MODULE
from ._aggregate import Aggregator, in_query_order
from ._bound import as_plan
from ._registry import METRICS


class PerQueryResult:
    """Per-query values of ranking metrics, with the query ids they belong to.

    Returned by :func:`evaluate_per_query`; :func:`aggregate` turns one or several of them
    (computed on disjoint queries) into means. Its arrays are read-only.

    Parameters
    ----------
    query_ids : array-like of shape (n_queries,)
        The distinct query ids, in increasing order (the order of ``np.unique(qid)``).
    values : dict of str to array-like of shape (n_queries,)
        Metric name -> value of each query, NaN for a query skipped by
        ``no_relevant=np.nan``.
    undefined : dict of str to array-like of bool of shape (n_queries,), default=None
        Metric name -> mask of the queries where the metric is undefined (no relevant
        document, all grades equal...), whose value is the ``no_relevant`` option's. None
        means that it is defined on every query.
    query_weight : array-like of shape (n_queries,), default=None
        Weight of each query (the mean weight of its rows, in units of ``weight_unit``), or
        None for unweighted queries.
    options : dict of str to dict, default=None
        Metric name -> the options it was computed with, resolved (see :attr:`options`).
    weight_unit : float, default=1.0
        ``query_weight * weight_unit`` is the mean row weight of each query: weights so
        large or small that their sums overflow or lose precision are kept scaled.
    fold : array-like of int of shape (n_queries,), default=None
        The cross-validation fold (a non-negative integer) that tested each query, aligned
        with ``query_ids``; None when the result has no folds. With folds, a query tested
        in several folds (repeated cross-validation) has one entry per fold: the entries
        are ordered by query id, then fold, and no (query id, fold) pair repeats. See
        :meth:`with_fold`.

    Attributes
    ----------
    query_ids : ndarray of shape (n_queries,)
    query_weight : ndarray of shape (n_queries,) or None
    weight_unit : float
    fold : ndarray of int of shape (n_queries,) or None
        The fold of each query, or None.
    metrics : tuple of str
        The metric names, in the order given.
    values, undefined : mapping of str to ndarray of shape (n_queries,)
        Per metric, read-only. ``result[name]`` is ``result.values[name]``.
    options : mapping of str to mapping
        Per metric: ``"metric"`` (its registry name), ``"convention"``, and every option of
        the metric as the computation used it, presets and defaults resolved
        (``no_relevant`` included). ``max_grade=None`` of a graded ERR or RBP is recorded as
        the largest grade of ``y_true``, the scale that was used, so that results computed
        with different scales cannot be merged.

    See Also
    --------
    evaluate_per_query : Compute a :class:`PerQueryResult`.
    aggregate : Mean over queries of one or several results.

    Examples
    --------
    >>> from sklearn_rank.metrics import evaluate_per_query
    >>> result = evaluate_per_query([1, 0, 0, 2], [0.3, 0.9, 0.5, 0.1], qid=["b", "a", "a", "b"],
    ...                             metrics=["ndcg@2", "mrr"])
    >>> result
    PerQueryResult(n_queries=2, metrics=['ndcg@2', 'mrr'])
    >>> result.query_ids.tolist(), result["mrr"].tolist()
    (['a', 'b'], [0.0, 1.0])
    >>> result.undefined["mrr"].tolist()
    [True, False]

    Results of cross-validation folds, each labelled with its fold, concatenated into one
    with a fold column (what :func:`~sklearn_rank.model_selection.cross_validate` returns
    with ``return_per_query=True``):

    >>> from sklearn_rank.metrics import PerQueryResult
    >>> y_true, y_score = [1, 0, 0, 2, 1, 0], [0.3, 0.9, 0.5, 0.1, 0.8, 0.2]
    >>> folds = [evaluate_per_query(y_true[i:i + 2], y_score[i:i + 2], qid=[i, i],
    ...                             metrics=["mrr"]) for i in (0, 2, 4)]
    >>> cv = PerQueryResult.concat([r.with_fold(k) for k, r in enumerate(folds)])
    >>> cv
    PerQueryResult(n_queries=3, metrics=['mrr'], n_folds=3)
    >>> cv.query_ids.tolist(), cv.fold.tolist(), cv["mrr"].tolist()
    ([0, 2, 4], [0, 1, 2], [0.5, 0.5, 1.0])
    """

    __slots__ = ("_ids", "_values", "_undefined", "_weight", "_unit", "_options", "_fold")
    __hash__ = None
    __iter__ = None  # ``for x in result`` would be ambiguous: queries or metrics?

    def __init__(self, query_ids, values, undefined=None, query_weight=None, options=None,
                 weight_unit=1.0, fold=None):
        query_ids = _column(query_ids, "query_ids")
        n = len(query_ids)
        if fold is not None:
            fold = _check_fold(fold, n)
        _check_increasing(query_ids, fold)
        if not isinstance(values, dict) or not values:
            raise TypeError(
                "values must be a non-empty dict of metric name -> per-query values; got "
                f"{type(values).__name__}."
            )
        names = tuple(values)
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"Metric names must be strings; got {name!r}.")
        if fold is not None and "fold" in names:
            raise ValueError(
                "A metric named 'fold' would be confused with the fold column: rename it."
            )
        undefined = {} if undefined is None else undefined
        options = {} if options is None else options
        for what, mapping in (("undefined", undefined), ("options", options)):
            extra = sorted(set(mapping) - set(names), key=str)
            if extra:
                raise ValueError(
                    f"{what} names metric(s) {extra} that values lacks; values has "
                    f"{list(names)}."
                )
        arrays = {name: _column(values[name], f"values[{name!r}]", n, np.float64)
                  for name in names}
        masks = {}
        for name in names:
            if name in undefined:
                masks[name] = _column(undefined[name], f"undefined[{name!r}]", n, bool)
            else:
                masks[name] = np.zeros(n, dtype=bool)
        if query_weight is not None:
            query_weight = check_finite_nonnegative(
                _column(query_weight, "query_weight", n, np.float64), "query_weight")
        if not (isinstance(weight_unit, Real) and 0 < weight_unit < math.inf):
            raise ValueError(
                f"weight_unit must be a finite positive number; got {weight_unit!r}."
            )
        self._set(query_ids, arrays, masks, query_weight, float(weight_unit),
                  {name: dict(options.get(name, {})) for name in names}, fold)

    @classmethod
    def _trusted(cls, query_ids, values, undefined, query_weight, options, weight_unit,
                 fold=None):
        """A result from arrays that the engine built (fresh, validated): no copies."""
        self = cls.__new__(cls)
        self._set(query_ids, values, undefined, query_weight, weight_unit, options, fold)
        return self

    def _set(self, query_ids, values, undefined, query_weight, weight_unit, options,
             fold=None):
        for array in (query_ids, query_weight, fold, *values.values(), *undefined.values()):
            if array is not None:
                array.flags.writeable = False
        self._ids = query_ids
        self._values = MappingProxyType(values)
        self._undefined = MappingProxyType(undefined)
        self._weight = query_weight
        self._unit = weight_unit
        self._options = MappingProxyType(
            {name: MappingProxyType(o) for name, o in options.items()}
        )
        self._fold = fold

    query_ids = property(lambda self: self._ids, doc="The query ids, in increasing order.")
    values = property(lambda self: self._values, doc="Metric name -> per-query values.")
    undefined = property(lambda self: self._undefined,
                         doc="Metric name -> mask of the queries where it is undefined.")
    query_weight = property(lambda self: self._weight, doc="Weight of each query, or None.")
    weight_unit = property(lambda self: self._unit,
                           doc="query_weight * weight_unit is the mean row weight.")
    options = property(lambda self: self._options,
                       doc="Metric name -> the resolved options it was computed with.")
    fold = property(lambda self: self._fold,
                    doc="The cross-validation fold of each query, or None.")

    @property
    def metrics(self):
        """The metric names, in the order given."""
        return tuple(self._values)

    def __len__(self):
        return len(self._ids)

    def __getitem__(self, name):
        try:
            return self._values[name]
        except (KeyError, TypeError):
            # cross_validate's per-query output was a dict with "qid" and "fold" columns
            hint = {"qid": " Its query ids are result.query_ids.",
                    "fold": " Its folds are result.fold."}.get(name, "") if isinstance(
                        name, str) else ""
            raise KeyError(
                f"{name!r} is not a metric of this result; it has {list(self._values)}.{hint}"
            ) from None

    def __contains__(self, name):
        return name in self._values

    def key(self, name):
        """The canonical key of metric ``name``: what it computed, as a name.

        :meth:`Metric.key <sklearn_rank.metrics._registry.Metric.key>` of the options that
        the metric was computed with (:attr:`options`, presets and defaults resolved): a
        name that :func:`evaluate_per_query` reads back into the same numbers without
        ``convention``, usable as a column name in a store of results. ``max_grade=None``
        of a graded ERR or RBP is written as the largest grade that it stood for.

        Parameters
        ----------
        name : str
            A metric of the result, as :attr:`metrics` names it.

        Returns
        -------
        key : str

        Raises
        ------
        KeyError
            When ``name`` is not a metric of the result.
        ValueError
            When the result was built by hand without the metric's registry name in its
            options (``options[name]["metric"]``).

        Examples
        --------
        >>> from sklearn_rank.metrics import evaluate_per_query
        >>> result = evaluate_per_query([1, 0, 2], [0.3, 0.9, 0.5], qid="single_query",
        ...                             metrics=["nDCG@10", "AP"], convention="trec_eval")
        >>> result.key("nDCG@10"), result.key("AP")
        ('ndcg@10(gain=linear,ties=stable)', 'map(ties=stable)')
        """
        self[name]  # raises, when name is not a metric of the result, a KeyError naming them
        options = dict(self._options[name])
        metric = METRICS.get(options.pop("metric", None))
        if metric is None:
            raise ValueError(
                f"The options of metric {name!r} do not name a metric of the registry "
                "(options[name]['metric']), so its key is unknown; build the result with "
                "evaluate_per_query, or pass options={name: {'metric': 'ndcg', ...}}."
            )
        options.pop("convention", None)  # the options are resolved: the preset is in them
        return metric.key(options)

    def with_fold(self, fold):
        """This result, every query labelled as tested in fold ``fold``.

        What a cross-validation loop calls on each fold's result before
        :meth:`concat` joins them into one result with a fold column; the values, masks,
        weights and options are those of this result.

        Parameters
        ----------
        fold : int
            The fold, a non-negative integer (0 for the first).

        Returns
        -------
        result : PerQueryResult
            A new result whose :attr:`fold` is ``fold`` for every query.

        Raises
        ------
        ValueError
            When ``fold`` is not a non-negative integer, or when this result has repeated
            query ids (folds of its own): one fold cannot hold a query twice.

        Examples
        --------
        >>> from sklearn_rank.metrics import evaluate_per_query
        >>> result = evaluate_per_query([1, 0, 0, 1], [0.3, 0.9, 0.5, 0.1], qid=[7, 7, 8, 8],
        ...                             metrics=["mrr"])
        >>> result.with_fold(2).fold.tolist()
        [2, 2]
        """
        if not (isinstance(fold, Integral) and not isinstance(fold, bool) and fold >= 0):
            raise ValueError(f"fold must be a non-negative integer; got {fold!r}.")
        if self._fold is not None and len(self._ids) > 1 and not bool(
                np.all(self._ids[1:] != self._ids[:-1])):
            raise ValueError(
                "This result has a query in several folds; with_fold would put it twice in "
                f"fold {fold}. Label each fold's result before concatenating them."
            )
        return type(self)._trusted(self._ids, dict(self._values), dict(self._undefined),
                                   self._weight, {m: dict(o) for m, o in self._options.items()},
                                   self._unit, np.full(len(self._ids), int(fold), np.int64))

    def __repr__(self):
        weighted = ", weighted" if self._weight is not None else ""
        folds = ("" if self._fold is None
                 else f", n_folds={len(np.unique(self._fold))}")
        return (f"PerQueryResult(n_queries={len(self)}, metrics={list(self.metrics)}"
                f"{weighted}{folds})")

    def __eq__(self, other):
        """Whether ``other`` holds the same ids, values (NaN equal to NaN), masks, weights,
        options and folds, bit for bit."""
        if not isinstance(other, PerQueryResult):
            return NotImplemented
        return (
            self.metrics == other.metrics
            and _same_ids(self._ids, other._ids)
            and _same_options(self._options, other._options)
            and self._unit == other._unit
            and (self._weight is None) == (other._weight is None)
            and (self._weight is None or np.array_equal(self._weight, other._weight))
            and (self._fold is None) == (other._fold is None)
            and (self._fold is None or np.array_equal(self._fold, other._fold))
            and all(np.array_equal(self._values[m], other._values[m], equal_nan=True)
                    and np.array_equal(self._undefined[m], other._undefined[m])
                    for m in self.metrics)
        )

    def __reduce__(self):  # mapping proxies do not pickle: rebuild from the arguments
        return type(self), tuple(self.to_dict().values())

    def to_dict(self):
        """The result as a dict of its constructor's arguments (arrays are copies).

        ``PerQueryResult(**result.to_dict()) == result``: what a store of results saves.

        Returns
        -------
        result : dict
            ``query_ids``, ``values``, ``undefined``, ``query_weight``, ``options``,
            ``weight_unit`` and ``fold``.
        """
        return {  # in the order of the constructor's parameters
            "query_ids": self._ids.copy(),
            "values": {m: v.copy() for m, v in self._values.items()},
            "undefined": {m: v.copy() for m, v in self._undefined.items()},
            "query_weight": None if self._weight is None else self._weight.copy(),
            "options": {m: dict(o) for m, o in self._options.items()},
            "weight_unit": self._unit,
            "fold": None if self._fold is None else self._fold.copy(),
        }

    def to_frame(self):
        """The per-query values as a pandas DataFrame: one row per query (indexed by
        ``qid``), a ``"fold"`` column when the result has folds, then one column per metric.

        :mod:`sklearn_rank.stats` reads such a frame by its index, as it reads the result.
        Its ``attrs["metric_keys"]`` holds each metric's :meth:`key`, so that the statistics
        refuse to compare it with values of the same name computed otherwise.

        Returns
        -------
        frame : pandas.DataFrame

        Raises
        ------
        ImportError
            When pandas is not installed (the ``pandas`` extra).
        """
        pandas = import_optional("pandas", extra="pandas", purpose="PerQueryResult.to_frame")
        columns = {} if self._fold is None else {"fold": np.array(self._fold)}
        columns.update({m: np.array(v) for m, v in self._values.items()})
        frame = pandas.DataFrame(columns, index=pandas.Index(np.array(self._ids), name="qid"))
        # what each column computed, for sklearn_rank.stats to refuse comparing one name
        # under two definitions (conventions, options), as it does for the result itself
        keys = {}
        for m in self._values:
            try:
                keys[m] = self.key(m)
            except ValueError:  # built by hand without the registry's name: unknown
                continue
        frame.attrs["metric_keys"] = keys
        return frame

    @classmethod
    def concat(cls, results):
        """One result from results computed on disjoint sets of queries.

        Results with a fold column (cross-validation folds, each labelled by
        :meth:`with_fold`) give a result with a fold column: there, a query may appear in
        several results, in different folds (repeated cross-validation), as long as no
        (query id, fold) pair repeats.

        Parameters
        ----------
        results : sequence of PerQueryResult
            With the same metrics and options, weighted or not alike, with folds or
            without alike.

        Returns
        -------
        result : PerQueryResult
            Queries in increasing order of id, as one :func:`evaluate_per_query` call on all
            the rows would list them (with folds: by id, then fold).

        Raises
        ------
        ValueError
            When a query id appears in two results (a query split across chunks: its value
            would be wrong) or, with folds, in two results of the same fold; when the
            results' metrics or options differ, or some have folds and others not.
        TypeError
            When an item is not a :class:`PerQueryResult`, or when the query ids of two
            results cannot be compared (numbers and strings).
        """
        results = list(results)
        if not results:
            raise ValueError("No result to concatenate: pass at least one PerQueryResult.")
        for i, r in enumerate(results):
            if not isinstance(r, PerQueryResult):
                raise TypeError(
                    f"Result {i} is a {type(r).__name__}, not a PerQueryResult; compute it "
                    "with sklearn_rank.metrics.evaluate_per_query."
                )
        if len(results) == 1:
            return results[0]
        first = results[0]
        for i, r in enumerate(results[1:], 1):
            _check_compatible(first, r, i)
        ids = np.concatenate([r._ids for r in results])
        if ids.dtype.kind == "f" and all(r._ids.dtype.kind in "iu" for r in results):
            # int64 with uint64 ids: numpy would compare them as float64, rounding ids beyond
            # 2**53; Python integers compare exactly
            ids = np.concatenate([r._ids.astype(object) for r in results])
        numeric = {r._ids.dtype.kind in "biuf" for r in results}
        if len(numeric) > 1:
            raise TypeError(
                "Cannot merge results whose query ids are numbers in some and not in "
                f"others (dtypes {sorted({str(r._ids.dtype) for r in results})}); a query "
                "id must have one type in every chunk."
            )
        fold = None
        if first._fold is not None:
            fold = np.concatenate([r._fold for r in results])
            by_fold = np.argsort(fold, kind="stable")  # then by id, stably: (id, fold) order
        try:
            if fold is None:
                order = np.argsort(ids, kind="stable")
            else:
                order = by_fold[np.argsort(ids[by_fold], kind="stable")]
        except TypeError as exc:
            raise TypeError(f"The results' query ids cannot be compared: {exc}.") from None
        ids = ids[order]
        same = ids[1:] == ids[:-1]
        if fold is not None:
            fold = fold[order]
            same &= fold[1:] == fold[:-1]
        repeated = np.flatnonzero(same)
        if len(repeated):
            shown = ", ".join(map(str, ids[repeated[:5]]))
            where = "more than one result" if fold is None else "two results of the same fold"
            raise ValueError(
                f"{len(repeated)} query id(s) appear in {where} (e.g. {shown}): the rows of "
                "a query were split across chunks, so its per-query value in each chunk is "
                "not its value. Group the rows by query before chunking."
            )
        values = {m: np.concatenate([r._values[m] for r in results])[order]
                  for m in first.metrics}
        undefined = {m: np.concatenate([r._undefined[m] for r in results])[order]
                     for m in first.metrics}
        weight, unit = None, first._unit
        if first._weight is not None:
            unit = max(r._unit for r in results)
            # the same unit everywhere (1.0 unless weights are extreme): the weights as they are
            weight = np.concatenate([r._weight if r._unit == unit else r._weight * (r._unit / unit)
                                     for r in results])[order]
        return cls._trusted(ids, values, undefined, weight,
                            {m: dict(o) for m, o in first._options.items()}, unit, fold)


def aggregate(result, *more_results):
    """Mean over queries of each metric of one or several :class:`PerQueryResult`.

    With one result, the means are those that :func:`evaluate` returns for the same call,
    bit for bit: weighted by the query weights, queries skipped by ``no_relevant=np.nan``
    left out. With several, computed on chunks of disjoint queries (cross-validation folds,
    data partitions, stored runs), the means are those of one call on all their rows. In a
    result with folds where a query was tested by several folds (repeated
    cross-validation), each of its entries counts.

    Parameters
    ----------
    result : PerQueryResult
    *more_results : PerQueryResult
        Results of the same metrics and options on other queries.

    Returns
    -------
    means : dict
        Metric name -> mean over queries; NaN, with an ``UndefinedMetricWarning``, when
        every query was skipped.

    Raises
    ------
    ValueError
        When a query appears in two results, or when their metrics or options differ (see
        :meth:`PerQueryResult.concat`); when every kept query has zero weight.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.metrics import aggregate, evaluate, evaluate_per_query
    >>> y_true = np.array([3, 0, 2, 1, 0, 1])
    >>> y_score = np.array([0.9, 0.8, 0.1, 0.4, 0.3, 0.6])
    >>> qid = np.array([1, 2, 1, 2, 1, 2])
    >>> first, second = qid == 1, qid == 2
    >>> a = evaluate_per_query(y_true[first], y_score[first], qid=qid[first], metrics=["mrr"])
    >>> b = evaluate_per_query(y_true[second], y_score[second], qid=qid[second],
    ...                        metrics=["mrr"])
    >>> aggregate(a, b) == evaluate(y_true, y_score, qid=qid, metrics=["mrr"])
    True
    """
    # the warning of a metric whose every query was skipped: at the caller of aggregate
    return means_of(PerQueryResult.concat((result, *more_results)), stacklevel=3)


def means_of(result, *, stacklevel):
    """Metric name -> aggregated value of each metric of one :class:`PerQueryResult`.

    The body of :func:`aggregate`, which :func:`evaluate`, the public ``*_score`` functions
    and the scorers call on the result they built. ``stacklevel`` is that of the
    ``UndefinedMetricWarning`` of a metric whose every query was skipped, as for
    :func:`warnings.warn` called here: 2 points at the caller of this function.
    """
    means = {}
    for name in result.metrics:  # a loop, not a comprehension: one frame less for stacklevel
        means[name] = _aggregate_metric(result, name, stacklevel + 1)
    return means


def _aggregate_metric(result, name, stacklevel):
    """The value over queries of one metric of ``result``: the rule of the registry entry
    that computed it (:meth:`Metric.aggregate`), the weighted mean for a result built by
    hand without one. ``stacklevel`` as for :func:`warnings.warn` called here."""
    options = result.options[name]
    metric = METRICS.get(options.get("metric"))
    if metric is None:
        aggregator = Aggregator(label=name)
    else:
        aggregator = Aggregator(metric.aggregation, in_order=in_query_order(options),
                                label=name, undefined_reason=metric.undefined_reason)
    aggregator.add(result.values[name], result.query_weight, weight_unit=result.weight_unit)
    return aggregator.result(stacklevel=stacklevel + 1)


def result_of(data, plan, convention=None):
    """The :class:`PerQueryResult` of the metrics of ``plan`` on ``data``, a validated
    :class:`RankingInput`: the one computation of bound metrics on data.

    ``plan`` holds ``(name, BoundMetric)`` items (see
    :func:`~sklearn_rank.metrics._bound.bind_metrics`), or ``(name, metric,
    kernel_options)`` items, bound here to ``convention``. Warns
    (:class:`TiedScoresWarning`) when the ``"trec_eval"`` preset ranks tied scores in row
    order for want of document names."""
    plan = as_plan(plan, convention)
    values, undefined, resolved = {}, {}, {}
    for name, bound in plan:
        values[name], undefined[name], resolved[name] = bound.compute(data, label=name)
    _warn_row_order_ties(data, plan, resolved)
    return PerQueryResult._trusted(data.query_ids, values, undefined, data.query_weight, resolved,
                                   data.weight_unit)


class TiedScoresWarning(UserWarning):
    """Tied scores ranked in row order where the convention ranks them by document name.

    ``convention="trec_eval"`` ranks equal scores by document name, descending, as trec_eval
    does; without ``docno=`` the names are unknown and tied documents keep their row
    order, so the result depends on it. Attributes: ``n_queries``, the number of such
    queries, and ``query_ids``, theirs.
    """

    def __init__(self, message, query_ids=()):
        super().__init__(message)
        self.query_ids = tuple(query_ids)
        self.n_queries = len(self.query_ids)


def _warn_row_order_ties(data, plan, resolved):
    """Warn when the ``"trec_eval"`` preset gave a metric ``ties="stable"`` (the caller did
    not ask for it) and, without document names, tied documents of different grades or
    judgements kept their row order: trec_eval ranks them by name."""
    if data.docno_order is not None:
        return
    for name, bound in plan:
        options = resolved[name]
        if (bound.convention != "trec_eval" or not bound.preset_ties
                or options.get("ties") != "stable"):
            continue  # no ties option, ties given by the caller, or not the preset's
        ranked = data.condensed() if options.get("unjudged") == "condensed" else data
        codes = ranked.ranking("stable").row_order_queries
        if not len(codes):
            continue
        query_ids = data.query_ids[codes].tolist()
        shown = ", ".join(map(repr, query_ids[:3])) + (", ..." if len(codes) > 3 else "")
        warnings.warn(TiedScoresWarning(
            f"convention='trec_eval' ranks tied scores by document name, descending, as "
            f"trec_eval does, but no docno was given: in {len(codes)} "
            f"{'query' if len(codes) == 1 else 'queries'} ({shown}), documents of different "
            "grades have equal scores and keep their row order instead, so the result "
            "depends on the row order and may differ from trec_eval's. Pass docno= (the "
            "document names, as read_trec returns them), or ties='stable' to rank ties in "
            "row order on purpose.", query_ids), stacklevel=_outside_package())
        return


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside_package():
    """The ``stacklevel`` of :func:`warnings.warn`, called by the caller of this function,
    that points at the first frame outside sklearn_rank and scikit-learn's
    ``validate_params`` wrappers: the user's call, at whatever depth the metric functions,
    scorers or command line reached the engine."""
    frame, level = sys._getframe(2), 2
    while frame is not None and (
            os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE)
            or frame.f_globals.get("__name__") == PARAM_VALIDATION_MODULE):
        frame, level = frame.f_back, level + 1
    return level


def per_query_values(data, bound, label):
    """One bound metric's per-query values on ``data`` (a :class:`RankingInput`):
    ``(values, undefined, options)``, see :meth:`BoundMetric.compute
    <sklearn_rank.metrics._bound.BoundMetric.compute>`."""
    return bound.compute(data, label=label)


# --------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------


def _column(x, name, n=None, dtype=None):
    """``x`` as a fresh 1-D array (of ``dtype``, of length ``n`` if given)."""
    try:
        array = np.array(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
        kind = "ids" if dtype is None else np.dtype(dtype).name
        raise TypeError(f"{name} must be a 1-D array of {kind}: {exc}") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {array.shape}.")
    if n is not None and len(array) != n:
        raise ValueError(f"{name} must have one entry per query ({n}); got {len(array)}.")
    return array


def _check_increasing(ids, fold=None):
    """Ids distinct and increasing; with folds, (id, fold) pairs distinct and increasing."""
    try:
        if fold is None:
            increasing = bool(np.all(ids[1:] > ids[:-1]))
        else:
            same = ids[1:] == ids[:-1]
            increasing = bool(np.all((ids[1:] > ids[:-1]) | (same & (fold[1:] > fold[:-1]))))
    except TypeError as exc:
        raise TypeError(f"query_ids cannot be compared with each other: {exc}.") from None
    if not increasing:
        if fold is None:
            raise ValueError(
                "query_ids must be distinct and in increasing order, as np.unique(qid) "
                "lists them; sort the ids and the values together (and drop repeated ids)."
            )
        raise ValueError(
            "With folds, the entries must be in increasing order of query id, then fold, "
            "and no (query id, fold) pair may repeat; sort the ids, folds and values "
            "together, or build the result with PerQueryResult.concat of each fold's "
            "result.with_fold(k)."
        )


def _check_fold(fold, n):
    """``fold`` as a fresh int64 array of ``n`` non-negative integers."""
    array = _column(fold, "fold", n)
    if not len(array):
        return array.astype(np.int64)
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"fold must hold integers, the fold of each query (0, 1, ...); got an array of "
            f"dtype {array.dtype}."
        )
    if array.min() < 0 or array.max() > np.iinfo(np.int64).max:
        bad = int(np.argmin(array)) if array.min() < 0 else int(np.argmax(array))
        raise ValueError(
            f"fold must hold non-negative integers (0, 1, ...); got {array[bad]} at position "
            f"{bad}."
        )
    return array.astype(np.int64)


def _same_ids(a, b):
    return len(a) == len(b) and bool(np.all(a == b))


def _same_value(a, b):
    """Equality of two option values, NaN equal to NaN (``no_relevant=np.nan``)."""
    nan_a, nan_b = (isinstance(x, float) and math.isnan(x) for x in (a, b))
    return nan_a and nan_b if nan_a or nan_b else bool(a == b)


def _same_options(a, b):
    return set(a) == set(b) and all(
        set(a[m]) == set(b[m]) and all(_same_value(a[m][k], b[m][k]) for k in a[m])
        for m in a
    )


def _check_compatible(first, other, i):
    """Raise unless ``other`` (result ``i``) can be merged with ``first``."""
    if set(other.metrics) != set(first.metrics):
        raise ValueError(
            f"Cannot merge results of different metrics: result 0 has "
            f"{list(first.metrics)}, result {i} has {list(other.metrics)}."
        )
    for m in first.metrics:
        a, b = first.options[m], other.options[m]
        differ = sorted(k for k in set(a) | set(b)
                        if k not in a or k not in b or not _same_value(a[k], b[k]))
        if differ:
            shown = "; ".join(f"{k}: {a.get(k, '(absent)')!r} vs {b.get(k, '(absent)')!r}"
                              for k in differ)
            hint = (" max_grade=None scales grades by the largest grade of the rows given: "
                    "pass max_grade explicitly." if "max_grade" in differ else "")
            raise ValueError(
                f"Cannot merge results computed with different options: metric {m!r} of "
                f"result 0 and result {i} differ in {shown}.{hint}"
            )
    if (first.fold is None) != (other.fold is None):
        raise ValueError(
            f"Cannot merge results with folds and results without: result 0 "
            f"{'has' if first.fold is not None else 'has no'} fold column, result {i} "
            f"{'has' if other.fold is not None else 'has no'}. Label every result with its "
            "fold (result.with_fold(k)), or none."
        )
    if (first.query_weight is None) != (other.query_weight is None):
        raise ValueError(
            f"Cannot merge weighted and unweighted results: result 0 "
            f"{'has' if first.query_weight is not None else 'has no'} query weights, "
            f"result {i} {'has' if other.query_weight is not None else 'has no'}. Pass "
            "sample_weight to every chunk or to none."
        )
