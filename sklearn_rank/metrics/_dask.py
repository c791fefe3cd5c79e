"""Ranking metrics of Dask collections: the in-memory engine, once per partition.

:func:`dask_evaluate` is what :func:`~sklearn_rank.metrics.evaluate`,
:func:`~sklearn_rank.metrics.evaluate_per_query` and the public ``*_score`` functions run
when an input is a Dask collection (:func:`is_dask_collection`), and :func:`dask_summary`
what :func:`~sklearn_rank.metrics.evaluate_summary` runs. It

1. checks the inputs before any computation: Dask Series (or Dask arrays) of one Dask
   DataFrame, with the same partitions, nothing in memory mixed in;
2. brings the rows of each query into one partition with Dask's own shuffle on ``qid``,
   unless they are there already: ``qid`` is the index of a frame with known divisions
   (``set_index``), or the caller declares ``partitioned_by_query=True``, a claim that is
   verified (a query found in two partitions is an error, never a number);
3. runs the in-memory engine on each partition (:func:`~sklearn_rank.metrics._result.result_of`:
   one grouping, one sort), so that the two paths cannot drift apart;
4. merges the partitions: per-query values as a Dask DataFrame, or the means through a tree
   reduction of each metric's :class:`~sklearn_rank.metrics._aggregate.Aggregator`, the one
   aggregation rule of the library: the means are those of the same call in memory, bit for
   bit, when the partitions compute the same per-query values. An aggregator keeps its
   queries' values (8 bytes per query and metric, and the query ids), not partial sums: no
   merge of partial sums reproduces numpy's pairwise sum over all queries.

The checks of step 1 and the shuffle of step 2 are those of the Dask rankers:
:mod:`sklearn_rank.utils._dask`, the Dask room both sides share.

What a partition cannot know is computed first: the largest grade of all rows, the scale of
graded ERR and RBP when ``max_grade`` is not given (``aggregate`` refuses to merge results
computed with different scales; every partition gets the global one). Where a metric breaks
ties by input row order (``ties="stable"``...), each row carries its position through the
shuffle and every partition puts its rows back in input order.

This module imports Dask only inside its functions: ``import sklearn_rank.metrics`` does not
import Dask, and a call on numpy arrays pays one attribute look-up per input.
"""

import copy
import math

import numpy as np

from ..utils._dask import as_series, check_same_partitions, grouped_by_index, shuffle_by_query
from ..utils._qid import SINGLE_QUERY, metric_qid
from ._bound import as_plan, bind_metrics
from ._input import check_ranking_input
from ._registry import METRICS
from ._result import result_of

# The per-row inputs of the metrics, and the columns that hold them in the frame built here.
INPUTS = ("y_true", "y_score", "qid", "sample_weight", "retrieved", "judged", "docno")
# The position of each row in the input (its partition, then its row in the partition), for
# the metrics that break ties by input order: kept through the shuffle.
_ROW = "_row"
_ROW_BITS = 40  # rows per partition below 2**40; partitions below 2**23
# How many partitions' aggregators one task of the tree reduction merges.
_SPLIT_EVERY = 16
# The fixes that the messages of check_same_partitions say, in the terms of the metrics.
_SAME_FRAME_FIXES = {
    "partitions": "The Dask inputs must be columns of one Dask DataFrame, with the same "
                  "partitions: pass ddf['label'], ddf['score'], ddf['qid']... of one frame.",
    "divisions": "The Dask inputs must be columns of one Dask DataFrame, with the same "
                 "partitions.",
    "example": "ddf['label'], ddf['score'], ddf['qid']...",
}


def is_dask_collection(x):
    """Whether ``x`` is a Dask collection (a Dask Series, DataFrame, Index, array...).

    Dask is not imported: the type's module and its ``__dask_graph__`` say it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.metrics._dask import is_dask_collection
    >>> is_dask_collection(np.arange(3)), is_dask_collection(None)
    (False, False)
    """
    kind = type(x)
    return kind.__module__.startswith("dask.") and hasattr(kind, "__dask_graph__")


# --------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------


def dask_evaluate(y_true, y_score, qid, metrics, sample_weight, retrieved, judged, convention,
                  options, *, caller, return_per_query, partitioned_by_query=False,
                  stacklevel=4, docno=None):
    """:func:`~sklearn_rank.metrics.evaluate` (or ``evaluate_per_query``) of Dask inputs.

    Parameters
    ----------
    y_true, y_score, qid, metrics, sample_weight, retrieved, judged, convention, docno
        As :func:`~sklearn_rank.metrics.evaluate` takes them; the per-row inputs are Dask
        Series of one Dask DataFrame, or 1-D Dask arrays, with the same partitions (``qid``
        may be the frame's index).
    options : dict
        The options of ``**options``.
    caller : {"evaluate", "evaluate_per_query"}
        Who asks: names it in messages, and ``"evaluate_per_query"`` returns the per-query
        frame with its query weights.
    return_per_query : bool
        Return the per-query values (a Dask DataFrame) instead of the means.
    partitioned_by_query : bool, default=False
        The rows of each query sit in one partition already: no shuffle. Verified.
    stacklevel : int, default=4
        Of the ``UndefinedMetricWarning`` of a metric whose every query was skipped, as for
        :func:`warnings.warn` called here: 4 points at the caller of ``evaluate``, past the
        frames of ``evaluate`` and of ``validate_params``.

    Returns
    -------
    result : dict or dask.dataframe.DataFrame
        Metric name -> mean, as :func:`~sklearn_rank.metrics.evaluate` returns it; or a
        lazy Dask DataFrame with a ``qid`` column and one float column per metric (named
        as given), one row per query, each partition's queries in increasing order (the
        partitions are not sorted among themselves). ``evaluate_per_query`` adds a
        ``query_weight`` column (the mean weight of the query's rows) when
        ``sample_weight`` is given.
    """
    plan = _plan(metrics, options, caller, convention)
    inputs = {"y_true": y_true, "y_score": y_score, "qid": qid, "sample_weight": sample_weight,
              "retrieved": retrieved, "judged": judged, "docno": docno}
    per_query = caller == "evaluate_per_query" or return_per_query
    return _evaluate_plan(plan, inputs, convention, caller=caller, per_query=per_query,
                          with_weight=caller == "evaluate_per_query",
                          partitioned_by_query=partitioned_by_query,
                          stacklevel=stacklevel + 1)


def dask_score(metric, arguments, *, stacklevel=5):
    """The public function of ``metric`` (``ndcg_score``...) on Dask inputs.

    ``arguments`` is the function's ``locals()`` on entry, as
    :func:`~sklearn_rank.metrics._shell._score` takes them. Returns the mean, or with
    ``return_per_query=True`` a Dask DataFrame of ``qid`` and the values, in a column named
    as the function (``"ndcg_score"``). ``stacklevel`` as in :func:`dask_evaluate`: 5 points
    at the caller of the public function, past ``_score``, the function and
    ``validate_params``.
    """
    spec = METRICS[metric]
    # the public function validated its arguments
    plan = as_plan([(spec.function_name, spec,
                     {option.name: arguments[option.name] for option in spec.all_options})],
                   arguments["convention"])
    inputs = {name: arguments.get(name) for name in INPUTS}
    result = _evaluate_plan(plan, inputs, arguments["convention"], caller=spec.function_name,
                            per_query=arguments["return_per_query"], with_weight=False,
                            partitioned_by_query=False, stacklevel=stacklevel + 1)
    return result if arguments["return_per_query"] else result[spec.function_name]


def dask_summary(y_true, y_score, qid, metrics, sample_weight, retrieved, judged, convention,
                 options, *, partitioned_by_query=False, stacklevel=4, docno=None):
    """:func:`~sklearn_rank.metrics.evaluate_summary` of Dask inputs: the means of
    ``metrics`` with the numbers of queries and rows, ``{"means": {name: mean}, "queries":
    n_queries, "rows": n_rows}``, in one pass over the data (two with a graded ERR or RBP
    without ``max_grade``). The arguments as :func:`dask_evaluate` takes them."""
    plan = _plan(metrics, options, "evaluate_summary", convention)
    inputs = {"y_true": y_true, "y_score": y_score, "qid": qid, "sample_weight": sample_weight,
              "retrieved": retrieved, "judged": judged, "docno": docno}
    return _evaluate_plan(plan, inputs, convention, caller="evaluate_summary", per_query=False,
                          with_weight=False, partitioned_by_query=partitioned_by_query,
                          stacklevel=stacklevel + 1, counts=True)


def _plan(metrics, options, caller, convention=None):
    """The bound ``[(name, BoundMetric)]`` of ``metrics``, as ``evaluate`` binds them."""
    return bind_metrics(metrics, options, convention, caller=caller)


def _evaluate_plan(plan, inputs, convention, *, caller, per_query, with_weight,
                   partitioned_by_query, stacklevel, counts=False):
    """The body of :func:`dask_evaluate` and :func:`dask_score`, on a ``plan`` of bound
    metrics ``(name, BoundMetric)`` (or of validated ``(name, metric, kernel_options)``,
    bound here to ``convention``); ``stacklevel`` as for ``warnings.warn`` called here.
    ``counts`` returns the means with the numbers of queries and rows."""
    import dask

    plan = as_plan(plan, convention)
    # qid left out is refused before any computation; "single_query" is no column: one query
    inputs = {**inputs, "qid": metric_qid(inputs["qid"], caller)}
    frame, layout = _input_frame(inputs, caller)
    job = _Job(plan, caller, layout, frame._meta)
    # the claim to verify: not needed where dask's divisions prove it, or for one query
    verify = partitioned_by_query and layout["qid"] and not layout["grouped"]
    # A first, light pass when the computation needs it before it starts: the grade scale
    # of all rows, or the claim of partitioned_by_query, checked before a lazy result is
    # handed out. Missing query ids are looked for in the same pass.
    prepass = job.needs_top_label or (verify and per_query)
    if prepass:
        scans = _scan(layout["collections"], job, ranges=verify)
        job = job.but(top_label=_top_label(scans), ids_checked=True)
        if verify:
            _check_disjoint([s["range"] for s in scans if s["range"]], layout["collections"],
                            caller)
    if not layout["qid"]:
        frame = frame.repartition(npartitions=1)  # a single query: all its rows
    elif not (layout["grouped"] or partitioned_by_query):
        frame = _shuffled(frame, job)
        job = job.but(ids_checked=True, shuffled=True)

    if per_query:
        return frame.map_partitions(_per_query_frame, job, with_weight,
                                    meta=job.per_query_meta(with_weight),
                                    enforce_metadata=False, align_dataframes=False)

    parts = [dask.delayed(_partials)(part, job, number)
             for number, part in enumerate(frame.to_delayed())]
    (total,) = dask.compute(_tree_reduce(parts))
    if verify and not prepass:
        _check_disjoint(total["ranges"], layout["collections"], caller)
    if total["rows"] == 0:
        raise ValueError("y_true and y_score are empty: there is no document to rank.")
    means = {}
    for name, _ in plan:  # a loop, not a comprehension: one frame less for stacklevel
        means[name] = total["metrics"][name].result(stacklevel=stacklevel + 1)
    if counts:
        return {"means": means, "queries": total["queries"], "rows": total["rows"]}
    return means


# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


def _input_frame(inputs, caller):
    """One Dask DataFrame of the Dask inputs, a column each (named as :data:`INPUTS`), and
    its layout: which inputs it holds, and whether the rows of each query are known to sit
    in one partition (``qid`` is a frame's index with known divisions).

    Raises, before any computation, for inputs in memory mixed with Dask ones, Dask
    collections other than Series, Index and 1-D arrays, and Series of different frames or
    partitions.
    """
    import dask.array as da
    import dask.dataframe as dd

    given = {name: x for name, x in inputs.items() if x is not None}
    judged_rule = None
    if isinstance(given.get("judged"), str):  # judged="y_true": a rule, not a column
        judged_rule = given.pop("judged")
    in_memory = [name for name, x in given.items() if not is_dask_collection(x)]
    if in_memory:
        lazy = [name for name in given if name not in in_memory]
        raise TypeError(
            f"{caller} got Dask inputs ({', '.join(lazy)}) mixed with inputs in memory "
            f"({', '.join(f'{n}: {type(given[n]).__name__}' for n in in_memory)}). Pass every "
            "per-row input as a column of the same Dask DataFrame (a Dask Series), or "
            "compute the Dask ones first to evaluate in memory."
        )
    series, arrays = {}, {}
    for name, x in given.items():
        if isinstance(x, (dd.Series, dd.Index)):
            series[name] = x
        elif isinstance(x, da.Array) and x.ndim == 1:
            arrays[name] = x
        else:
            shape = f" of {x.ndim} dimensions" if isinstance(x, da.Array) else ""
            raise TypeError(
                f"{caller} takes {name} as a Dask Series (a column of a Dask DataFrame), "
                f"the frame's index or a 1-D Dask array; got a Dask {type(x).__name__}"
                f"{shape}. Pass one column, e.g. ddf['{name}']."
            )
    if "y_true" not in given or "y_score" not in given:
        missing = "y_true" if "y_true" not in given else "y_score"
        raise ValueError(f"{missing} is required; got None.")

    if series:
        (first, a), *others = series.items()
        check_same_partitions((first, a), dict(others), caller, fixes=_SAME_FRAME_FIXES)
        _check_arrays(arrays, next(iter(series.values())).npartitions, caller)
    else:
        _check_arrays(arrays, next(iter(arrays.values())).numblocks[0], caller)
    qid = given.get("qid")
    layout = {
        "columns": tuple(name for name in INPUTS if name in given),
        "qid": qid is not None,
        # dask's divisions: each index value in one partition, whatever the partitioning
        "grouped": grouped_by_index(qid),
        "judged_rule": judged_rule,
        "collections": given,
    }
    return _frame_of(given, layout["columns"], caller), layout


def _frame_of(collections, names, caller):
    """The Dask DataFrame of the (checked) collections ``names``, a column each: passes that
    read some inputs only compute those (a projection would keep the others' tasks).

    The columns are put side by side row by row, as numpy arrays are, never joined on
    their index: each partition of every input must hold the same rows
    (:func:`_side_by_side` refuses it otherwise, as numpy refuses arrays of different
    lengths). A join would score a filtered ``ddf.label[ddf.score > 0.1]`` on the rows
    it shares with the unfiltered others.
    """
    import dask.dataframe as dd

    chosen = {name: collections[name] for name in names if name in collections}
    columns = {name: as_series(x, name) for name, x in chosen.items()}
    indexed = tuple(isinstance(x, (dd.Series, dd.Index)) for x in chosen.values())
    meta = _side_by_side(*(c._meta for c in columns.values()), names=tuple(columns),
                         indexed=indexed, caller=caller)
    return dd.map_partitions(_side_by_side, *columns.values(), names=tuple(columns),
                             indexed=indexed, caller=caller, meta=meta,
                             enforce_metadata=False, align_dataframes=False)


def _side_by_side(*parts, names, indexed, caller, partition_info=None):
    """One partition of each input (pandas Series) as the columns ``names`` of one pandas
    DataFrame, row by row; a ValueError when they hold different rows: other numbers of
    rows, or (``indexed``: the Series and Indexes, not the arrays) other index labels."""
    import pandas as pd

    number = partition_info["number"] if partition_info else 0
    first = parts[0]
    for name, part in zip(names[1:], parts[1:], strict=True):
        if len(part) != len(first):
            raise ValueError(
                f"{caller}: {names[0]} has {len(first)} rows in partition {number} of the "
                f"input, and {name} has {len(part)}: every per-row input needs one value per "
                "row, as numpy arrays of one length do. A column filtered alone "
                "(ddf.label[ddf.score > 0.1]) keeps other rows than the others: filter the "
                "frame instead, ddf = ddf[ddf.score > 0.1], and pass its columns.")
    labelled = [(name, part) for name, part, has in zip(names, parts, indexed, strict=True)
                if has]
    for name, part in labelled[1:]:
        if not part.index.equals(labelled[0][1].index):
            raise ValueError(
                f"{caller}: {labelled[0][0]} and {name} hold different rows in partition "
                f"{number} of the input (their index labels differ): every per-row input "
                "must be a column of the same rows of one Dask DataFrame. A column filtered "
                "alone keeps other rows than the others: filter the frame instead, "
                "ddf = ddf[mask], and pass its columns.")
    index = labelled[0][1].index if labelled else first.index
    return pd.DataFrame({name: part.reset_index(drop=True)
                         for name, part in zip(names, parts, strict=True)}).set_axis(index)


def _check_arrays(arrays, npartitions, caller):
    """Raise unless the Dask arrays have ``npartitions`` chunks, the same ones where their
    sizes are known (unknown ones are compared when the partitions are built)."""
    known = {name: x.chunks[0] for name, x in arrays.items()
             if not any(math.isnan(size) for size in x.chunks[0])}
    for name, x in arrays.items():
        if x.numblocks[0] != npartitions:
            raise ValueError(
                f"{caller}: {name} is a Dask array of {x.numblocks[0]} chunks, where the other "
                f"inputs have {npartitions} partitions. Give every input the same partitions "
                "(e.g. ddf['score'].to_dask_array(lengths=True) for each column)."
            )
    if len(set(known.values())) > 1:
        (a, chunks_a), (b, chunks_b) = list(known.items())[:2]
        if chunks_a == chunks_b:
            b, chunks_b = next((n, c) for n, c in known.items() if c != chunks_a)
        raise ValueError(
            f"{caller}: the Dask arrays {a} and {b} have different chunks ({chunks_a} and "
            f"{chunks_b}), so their blocks hold different rows; give them the same."
        )


# --------------------------------------------------------------------------------------
# What every partition is told
# --------------------------------------------------------------------------------------


class _Job:
    """What a partition needs to compute its part: the bound metrics, the layout of the
    frame, and what was learned from all rows (the grade scale). Pickled to the workers with
    every task."""

    def __init__(self, plan, caller, layout, meta):
        self.plan = list(plan)  # (name, BoundMetric): immutable values
        self.caller = caller
        self.columns = layout["columns"]
        self.judged_rule = layout["judged_rule"]
        self.qid_dtype = meta["qid"].dtype if "qid" in meta else np.dtype(np.intp)
        self.weighted = "sample_weight" in self.columns
        # graded ERR and RBP without max_grade scale grades by the largest of all rows, as
        # BoundMetric.compute records it
        self.scaled = [bound.needs_top_label for _, bound in plan]
        self.needs_top_label = any(self.scaled)
        # ties broken by input row order: the rows of a partition go back into input order
        # after the shuffle (metrics without a tie rule do not depend on row order)
        self.in_input_order = any(bound.options.get("ties", "average") != "average"
                                  for _, bound in plan)
        self.top_label = None  # the largest grade of all rows, when needs_top_label
        self.ids_checked = False  # missing query ids looked for by an earlier pass or stage
        self.shuffled = False

    def but(self, **changes):
        """A copy with ``changes``: a job handed to a task never changes afterwards."""
        job = copy.copy(self)
        vars(job).update(changes)
        return job

    def plan_for_partition(self):
        """``[(name, BoundMetric)]``, with the grade scale of all rows."""
        return [(name, bound.replace(max_grade=self.top_label)
                 if scaled and self.top_label is not None else bound)
                for (name, bound), scaled in zip(self.plan, self.scaled, strict=True)]

    def per_query_meta(self, with_weight):
        import pandas as pd

        columns = {"qid": pd.Series([], dtype=self.qid_dtype)}
        for name, _ in self.plan:
            columns[name] = pd.Series([], dtype=np.float64)
        if with_weight and self.weighted:
            columns["query_weight"] = pd.Series([], dtype=np.float64)
        return pd.DataFrame(columns)


# --------------------------------------------------------------------------------------
# Passes
# --------------------------------------------------------------------------------------


def _scan(collections, job, *, ranges):
    """The light pass: per partition, its missing query ids (an error), the range of its
    query ids (with ``ranges``) and its largest grade (when a metric needs the scale)."""
    import dask

    names = ["qid", *(["y_true", "judged"] if job.needs_top_label else [])]
    parts = _frame_of(collections, names, job.caller).to_delayed()
    return list(dask.compute(*[dask.delayed(_scan_partition)(part, job, number, ranges)
                               for number, part in enumerate(parts)]))


def _scan_partition(part, job, number, ranges):
    found = {"range": None, "top": None}
    if "qid" in part.columns:
        qid = _present_ids(part["qid"], number, job.caller)
        if ranges and len(qid):
            found["range"] = (number, _item(qid.min()), _item(qid.max()))
    if job.needs_top_label and len(part):
        found["top"] = _partition_top_label(part, job)
    return found


def _partition_top_label(part, job):
    """The largest grade of the partition's rows, as the engine reads the grades."""
    judged = job.judged_rule if job.judged_rule is not None else part.get("judged")
    y_true = part["y_true"]
    # the grades alone are read: the rows' queries do not matter
    data = check_ranking_input(y_true, np.zeros(len(y_true)), SINGLE_QUERY, judged=judged,
                               caller=job.caller)
    return data.top_label.item()


def _top_label(scans):
    tops = [s["top"] for s in scans if s["top"] is not None]
    return max(tops) if tops else None


def _item(value):
    return value.item() if isinstance(value, np.generic) else value


def _present_ids(qid, number, caller):
    """``qid`` (a pandas Series), or a ValueError when some are missing."""
    missing = qid.isna()
    if missing.any():
        i = int(np.flatnonzero(missing.to_numpy())[0])
        raise ValueError(
            f"{caller}: qid has {int(missing.sum())} missing value(s) (null, None or NaN) "
            f"in partition {number} of the input, the first at its row {i}: every row needs "
            "a query id. Drop those rows, or give them their query's id."
        )
    return qid


def _shuffled(frame, job):
    """``frame`` shuffled by Dask on ``qid``: all rows of a query in one partition.

    Before the shuffle, in the same tasks as the read, missing query ids are refused, and
    each row gets its input position when the metrics break ties by input order.
    """
    meta = frame._meta
    if job.in_input_order:
        meta = meta.assign(**{_ROW: np.zeros(0, dtype=np.int64)})
    frame = frame.map_partitions(_prepared, job, meta=meta, enforce_metadata=False,
                                 align_dataframes=False)
    return shuffle_by_query(frame, "qid", npartitions=frame.npartitions)


def _prepared(part, job, partition_info=None):
    number = partition_info["number"] if partition_info else 0
    if not job.ids_checked:
        _present_ids(part["qid"], number, job.caller)
    if job.in_input_order:
        part = part.assign(**{_ROW: (number << _ROW_BITS) + np.arange(len(part),
                                                                       dtype=np.int64)})
    return part


def _check_disjoint(ranges, collections, caller):
    """Raise when a query has rows in two partitions (``partitioned_by_query=True``).

    Partitions whose ranges of query ids do not overlap (data written sorted, or in ranges
    of queries) are proven disjoint by those ranges alone. Otherwise Dask counts the
    partitions of each query, from the distinct ids of each partition.
    """
    try:
        ranges = sorted(ranges, key=lambda r: (r[1], r[2]))
        if all(a[2] < b[1] for a, b in zip(ranges, ranges[1:])):
            return
    except TypeError:  # ids of several types: let the exact count decide
        pass
    import dask
    import pandas as pd

    frame = _frame_of(collections, ["qid"], caller)
    table = frame.map_partitions(
        _ids_with_partition, meta=pd.DataFrame({"qid": frame._meta["qid"],
                                                "partition": np.zeros(0, dtype=np.int64)}),
        enforce_metadata=False, align_dataframes=False)
    spread = table.groupby("qid")["partition"].agg(["count", "min", "max"], split_out=True)
    split = spread[spread["count"] > 1]
    # one computation of both, not persist() then len(): a persisted frame read from Parquet
    # loses its keys (dask 2026.8: "Missing dependency" on the threaded scheduler, "lost
    # dependencies" on distributed)
    n_split, firsts = dask.compute(split.map_partitions(len).sum(),
                                   split.map_partitions(_first_row, meta=split._meta))
    if n_split:  # the smallest id named, whatever the order in which Dask found them
        firsts = firsts.sort_index(kind="stable")
        qid, row = firsts.index[0], firsts.iloc[0]
        more = f" (and {n_split - 1} other queries)" if n_split > 1 else ""
        raise SplitQueryError(
            f"partitioned_by_query=True says that the rows of each query sit in one "
            f"partition, but query {_item(qid)!r} has rows in {int(row['count'])} partitions "
            f"(partitions {int(row['min'])} and {int(row['max'])}){more}: its value would be "
            "computed from part of its rows. Drop partitioned_by_query to let Dask shuffle "
            "the rows by query, or write the data partitioned by query first (e.g. "
            "ddf.shuffle(on='qid') before to_parquet).",
            qid=_item(qid), n_partitions=int(row["count"]),
            partitions=(int(row["min"]), int(row["max"])), n_queries=int(n_split)
        )


class SplitQueryError(ValueError):
    """``partitioned_by_query=True`` given, but a query has rows in several partitions.

    A :class:`ValueError`; its attributes let a caller, such as the command line, word the
    fix in its own terms: ``parameter`` (``"partitioned_by_query"``), ``qid`` (the smallest
    such query), ``n_partitions`` (how many partitions hold its rows), ``partitions`` (the
    first and last of them) and ``n_queries`` (how many queries are split).
    """

    parameter = "partitioned_by_query"

    def __init__(self, message, *, qid=None, n_partitions=None, partitions=None,
                 n_queries=None):
        super().__init__(message)
        self.qid = qid
        self.n_partitions = n_partitions
        self.partitions = partitions
        self.n_queries = n_queries

    def __reduce__(self):
        return type(self), (str(self),), self.__dict__


# public as sklearn_rank.metrics.SplitQueryError: its tracebacks name it so
SplitQueryError.__module__ = "sklearn_rank.metrics"


def _first_row(frame):
    return frame.sort_index(kind="stable").iloc[:1]


def _ids_with_partition(part, partition_info=None):
    import pandas as pd

    number = partition_info["number"] if partition_info else 0
    ids = part["qid"].drop_duplicates()
    return pd.DataFrame({"qid": ids.to_numpy(), "partition": np.full(len(ids), number)})


# --------------------------------------------------------------------------------------
# One partition
# --------------------------------------------------------------------------------------


def _partition_result(part, job, number):
    """The :class:`PerQueryResult` of one partition's rows (None for an empty partition):
    the in-memory engine, as ``evaluate_per_query`` runs it."""
    if "qid" in part.columns and not job.ids_checked:
        _present_ids(part["qid"], number, job.caller)
    if len(part) == 0:
        return None
    if _ROW in part.columns:  # back into input order, for ties broken by it
        part = part.iloc[np.argsort(part[_ROW].to_numpy())]
    # no qid column: the caller passed qid="single_query" (all rows in one partition)
    qid = part["qid"] if "qid" in part.columns else SINGLE_QUERY
    judged = job.judged_rule if job.judged_rule is not None else part.get("judged")
    try:
        data = check_ranking_input(part["y_true"], part["y_score"], qid,
                                   part.get("sample_weight"), part.get("retrieved"),
                                   judged=judged, docno=part.get("docno"), caller=job.caller)
        return result_of(data, job.plan_for_partition())
    except (TypeError, ValueError) as exc:
        exc.add_note(f"In partition {number} of the Dask input"
                     + (" after the shuffle on qid" if job.shuffled else "")
                     + "; rows are numbered within the partition.")
        raise


def _per_query_frame(part, job, with_weight, partition_info=None):
    """One partition's per-query values as a pandas DataFrame: ``qid``, then the metrics."""
    import pandas as pd

    number = partition_info["number"] if partition_info else 0
    result = _partition_result(part, job, number)
    meta = job.per_query_meta(with_weight)
    if result is None:
        return meta
    columns = {"qid": pd.Series(result.query_ids).astype(job.qid_dtype)}
    for name in meta.columns[1:]:
        if name == "query_weight":
            columns[name] = result.query_weight * result.weight_unit
        else:
            columns[name] = np.array(result[name])
    return pd.DataFrame(columns)


# --------------------------------------------------------------------------------------
# Means: the aggregators of the partitions, merged in a tree
# --------------------------------------------------------------------------------------


def _partials(part, job, number):
    """The aggregators of one partition's metrics (:meth:`BoundMetric.aggregator
    <sklearn_rank.metrics._bound.BoundMetric.aggregator>`, its queries added), and what the
    merge checks: rows, queries, and the range of its query ids."""
    result = _partition_result(part, job, number)
    plan = job.plan_for_partition()
    total = {"rows": len(part), "queries": 0, "ranges": [],
             "metrics": {name: bound.aggregator(name) for name, bound in plan}}
    if result is None:
        return total
    ids = result.query_ids
    total["queries"] = len(ids)
    total["ranges"] = [(number, _item(ids[0]), _item(ids[-1]))]
    for name, aggregator in total["metrics"].items():
        aggregator.add(result[name], result.query_weight, query_ids=ids,
                       weight_unit=result.weight_unit)
    return total


def _merge(*parts):
    """The aggregators of several partitions as one."""
    total = {"rows": sum(p["rows"] for p in parts), "queries": sum(p["queries"] for p in parts),
             "ranges": [r for p in parts for r in p["ranges"]], "metrics": {}}
    for name, aggregator in parts[0]["metrics"].items():
        for part in parts[1:]:
            aggregator = aggregator.merge(part["metrics"][name])
        total["metrics"][name] = aggregator
    return total


def _tree_reduce(parts):
    """One delayed merge of ``parts``, merged ``_SPLIT_EVERY`` at a time."""
    import dask

    if not parts:
        return dask.delayed(_merge)({"rows": 0, "queries": 0, "ranges": [], "metrics": {}})
    while len(parts) > 1:
        parts = [dask.delayed(_merge)(*parts[i:i + _SPLIT_EVERY])
                 for i in range(0, len(parts), _SPLIT_EVERY)]
    return parts[0]
