"""Per-query values of the systems to compare, read from any accepted input and aligned.

A system's values come as one of:

- an array-like of per-query values, aligned with the other systems by position;
- a tuple ``(qid, values)``, aligned with the other systems by query id;
- a mapping (or a pandas / polars DataFrame) of columns: optional ``"qid"`` and ``"fold"``,
  and one column of per-query values per metric, e.g. ``{"qid": ..., "ndcg@10": ...}``; a
  pandas DataFrame without a ``"qid"`` column has its query ids in its index (as
  ``PerQueryResult.to_frame()`` puts them), unless that index is pandas' default one;
- a pandas Series, its index holding the query ids (unless it is pandas' default index);
- an object with ``query_ids`` and a mapping ``values`` of metric name -> per-query values,
  and optionally ``fold`` (the fold of each query, or None), ``undefined`` (metric name ->
  mask of the queries where the metric is undefined) and ``query_weight`` (None when
  unweighted): a :class:`sklearn_rank.metrics.PerQueryResult`, read through this small
  protocol so that ``stats`` imports nothing from ``metrics``;
- the dict that :func:`sklearn_rank.model_selection.cross_validate` returns with
  ``return_per_query=True``, whose ``"per_query"`` entry is such an object (a dict of
  columns in older releases, still accepted);
- an object with ``query_ids``, a mapping ``per_query`` of measure name -> values per
  query and a mapping ``summary``: a :class:`sklearn_rank.metrics.TrecEvalResult`, whose
  measures (the float columns: not the counts, nor ``relstring``) are read by query id.

Values with query ids are aligned by query id; values without (arrays, polars objects,
pandas objects with the default index) are aligned by position, and only with other values
without ids: a mix of the two is refused, as position would then pair unrelated queries.

Queries are the statistical unit. A query that appears more than once, in different folds
(repeated cross-validation), gets the mean of its values.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..utils._arrays import check_same_rows
from ..utils._qid import _is_dataframe, factorize

_RESERVED = ("qid", "fold")
_SHOWN = 5  # ids shown in an error message

NAN_HELP = (
    "A metric gives NaN to a query without relevant documents under no_relevant=np.nan. "
    "Every system needs a value for every query: recompute the metric with "
    "no_relevant=0.0 (the default), or drop these queries from every system."
)


def _show(ids):
    ids = list(ids)
    shown = ", ".join(repr(_scalar(i)) for i in ids[:_SHOWN])
    return shown + (", ..." if len(ids) > _SHOWN else "")


def _scalar(x):
    return x.item() if isinstance(x, np.generic) else x


@dataclass
class Source:
    """One system's values as given: per-row query ids, folds and one column per metric."""

    name: object
    qid: object  # ndarray or None
    fold: object  # ndarray or None
    columns: dict  # metric name -> float ndarray, one entry per row
    form: str = "per-query values"  # what was given, for error messages
    # metric name -> bool ndarray, one entry per row: where the metric is undefined (its value
    # is then the no_relevant option's); only a PerQueryResult says. The statistics use the
    # values as they are, as for every other form: the masks only name such queries in errors.
    undefined: dict = None
    title: str = None  # how errors name the system, when not by its name
    # metric name -> the canonical key of what was computed (a PerQueryResult says; other
    # forms do not): two systems' values of one name under two definitions are not compared
    keys: dict = None

    @property
    def label(self):
        return self.title or f"system {self.name!r}"

    def column(self, metric):
        try:
            return self.columns[metric]
        except KeyError:
            raise ValueError(
                f"{self.label} has no per-query values for the metric {metric!r}; it has "
                f"{sorted(self.columns)}."
            ) from None

    def where(self, row, metric=None):
        """How an error message names a row: by its query id when known, and whether
        ``metric`` is undefined there, when the input says."""
        where = (f"qid {_scalar(self.qid[row])!r}" if self.qid is not None
                 else f"position {row}")
        mask = (self.undefined or {}).get(metric)
        if mask is not None and mask[row]:
            where += f", a query where {metric!r} is undefined"
        return where


def _to_1d(x, what):
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = x.to_numpy()
    try:
        arr = np.asarray(x)
    except ValueError as exc:
        raise ValueError(
            f"{what} must be a 1-D array-like, one entry per query; numpy cannot read it "
            f"as an array ({exc})."
        ) from None
    if arr.ndim != 1:
        hint = " To give query ids, pass a tuple (qid, values)." if arr.ndim == 2 else ""
        raise ValueError(
            f"{what} must be a 1-D array-like, one entry per query; got an array of shape "
            f"{arr.shape}.{hint}"
        )
    return arr


def _values(x, what):
    arr = _to_1d(x, what)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{what} must hold numbers; got values of dtype {arr.dtype}"
                + (f" such as {arr[0]!r}." if len(arr) else ".")
            ) from None
    return arr.astype(np.float64, copy=False)


def _ids(x, what):
    arr = _to_1d(x, what)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{what} must not contain NaN: every value needs a query id.")
    if arr.dtype == object and any(v is None for v in arr):
        raise ValueError(f"{what} must not contain None: every value needs a query id.")
    try:
        np.unique(arr)
    except TypeError as exc:
        raise TypeError(
            f"{what} must be of one sortable type (numbers or strings); got values that "
            f"cannot be compared with each other ({exc})."
        ) from None
    return arr


def is_per_query_result(x):
    """Whether ``x`` follows the per-query protocol of
    :class:`sklearn_rank.metrics.PerQueryResult`: ``query_ids`` beside a mapping ``values`` of
    metric name -> per-query values (and optionally ``fold``, None without folds,
    ``undefined``, a mapping of metric name -> mask, and ``query_weight``, None when
    unweighted)."""
    return hasattr(x, "query_ids") and isinstance(getattr(x, "values", None), Mapping)


_WEIGHTED = (
    "{label} is {what} with query weights (computed with sample_weight): its mean is a "
    "weighted mean, but these statistics weigh every query alike, so they would not be about "
    "that mean. Compare results computed without sample_weight, or pass only the 'qid' and "
    "metric columns (for a PerQueryResult: {{'qid': result.query_ids, metric: "
    "result[metric]}}) to weigh every query alike knowingly."
)


def _from_per_query_result(x, label):
    """``(columns, undefined)``: the columns ``qid``, ``fold`` (when ``x`` has folds) and
    one per metric, and the undefined masks that ``x`` holds, by metric."""
    if getattr(x, "query_weight", None) is not None:
        raise ValueError(_WEIGHTED.format(label=label, what=f"a {type(x).__name__}"))
    fold = getattr(x, "fold", None)
    columns = {"qid": x.query_ids, **({} if fold is None else {"fold": fold}), **x.values}
    masks = getattr(x, "undefined", None)
    undefined = ({m: np.asarray(masks[m], dtype=bool) for m in x.values if m in masks}
                 if isinstance(masks, Mapping) else None)
    return columns, undefined


def _keys_of(x):
    """Metric name -> canonical key of a :class:`~sklearn_rank.metrics.PerQueryResult`'s
    metrics, for those whose key it knows."""
    keys = {}
    for m in x.values:
        try:
            keys[m] = x.key(m)
        except (AttributeError, KeyError, TypeError, ValueError):  # built by hand: unknown
            continue
    return keys


def _is_pandas(x):
    return type(x).__module__.partition(".")[0] == "pandas"


def _index_ids(x, label):
    """``(qid, fold)`` held by the index of a pandas DataFrame or Series.

    pandas' default index (an unnamed ``RangeIndex`` 0, 1, 2...) numbers rows, not queries:
    it gives ``(None, None)``. A MultiIndex names its levels ``"qid"`` and ``"fold"``.
    """
    index = x.index
    names = list(index.names)
    if index.nlevels > 1:
        if "qid" not in names or len(set(names)) != len(names) or set(names) - {"qid", "fold"}:
            raise ValueError(
                f"{label} has a MultiIndex with levels {names}; only levels named 'qid' and "
                "'fold' are understood. Reset the index (frame.reset_index()) to columns "
                "named 'qid', 'fold' and one per metric."
            )
        fold = index.get_level_values("fold") if "fold" in names else None
        return index.get_level_values("qid"), fold
    start, step = getattr(index, "start", None), getattr(index, "step", None)
    if type(index).__name__ == "RangeIndex" and index.name is None and (start, step) == (0, 1):
        return None, None
    if index.name == "fold":
        return None, index
    return index, None


def _is_pair(x):
    return (isinstance(x, tuple) and len(x) == 2
            and all(not isinstance(v, str) and np.ndim(v) >= 1 for v in x))


def as_source(x, name, *, default_metric, label=None):
    """Read one system's input; ``default_metric`` names the values of a bare array, and
    ``label`` how errors name the system (default: ``system NAME``)."""
    title, label = label, label or f"system {name!r}"
    if isinstance(x, Mapping) and "per_query" in x:
        x = x["per_query"]
        if not (isinstance(x, Mapping) or is_per_query_result(x)):
            raise TypeError(
                f"{label}: result['per_query'] must be a dict of per-query columns, as "
                f"cross_validate(..., return_per_query=True) returns; got {type(x).__name__}."
            )
    elif isinstance(x, Mapping) and any(str(k).startswith("test_") for k in x):
        key = next(str(k) for k in x if str(k).startswith("test_"))
        raise ValueError(
            f"{label} looks like a cross_validate result without per-query values (it has "
            f"{key!r} but no 'per_query'). Run cross_validate(..., return_per_query=True): "
            "queries, not folds, are the unit of the comparison."
        )
    if type(x).__module__.partition(".")[0] == "dask" and hasattr(x, "compute"):
        # evaluate_per_query's lazy frame of Dask inputs: one row per query, small
        x = x.compute()
    kind = _kind_of_input(x)
    undefined = keys = None
    if is_per_query_result(x):
        keys = _keys_of(x)
        x, undefined = _from_per_query_result(x, label)
    elif is_trec_eval_result(x):
        x = _from_trec_eval_result(x)
    index_qid = index_fold = None
    if _is_dataframe(x):
        if keys is None and _is_pandas(x):  # PerQueryResult.to_frame's, when it has them
            known = getattr(x, "attrs", {}).get("metric_keys")
            keys = dict(known) if isinstance(known, Mapping) else None
        if _is_pandas(x) and "qid" not in x.columns:
            index_qid, index_fold = _index_ids(x, label)
        x = {column: x[column] for column in x.columns}
        if index_fold is not None and "fold" in x:
            raise ValueError(
                f"{label} has folds both in its index and in its 'fold' column; keep one."
            )
    elif _is_pandas(x) and hasattr(x, "index") and np.ndim(x) == 1:  # a pandas Series
        known = getattr(x, "attrs", {}).get("metric_keys")  # a column of to_frame's
        if keys is None and isinstance(known, Mapping) and x.name in known:
            keys = {default_metric: known[x.name]}
        index_qid, index_fold = _index_ids(x, label)
        if index_qid is not None:
            x = (index_qid, x)
    if isinstance(x, Mapping):
        known = getattr(x, "attrs", None)  # a benchmark run's columns (PerQueryColumns)
        if keys is None and isinstance(known, Mapping) and isinstance(
                known.get("metric_keys"), Mapping):
            keys = dict(known["metric_keys"])
        if "query_weight" in x:  # evaluate_per_query's Dask frame with sample_weight
            raise ValueError(_WEIGHTED.format(label=label, what="per-query values"))
        columns = {k: v for k, v in x.items() if k not in _RESERVED}
        if not columns:
            raise ValueError(
                f"{label} has no column of per-query values besides {sorted(x)}; expected "
                "e.g. {'qid': ..., 'ndcg@10': ...}."
            )
        qid, fold = x.get("qid", index_qid), x.get("fold", index_fold)
        check_same_rows({"qid": qid, "fold": fold, **columns}, label)
    elif _is_pair(x):
        qid, values = x
        check_same_rows({"qid": qid, "values": values}, label)
        columns, fold = {default_metric: values}, None
    elif isinstance(x, str) or not _has_dimensions(x):
        raise TypeError(
            f"{label} must be per-query values (an array-like), a tuple (qid, values), a "
            "dict or DataFrame of per-query columns, a pandas Series indexed by query id, a "
            "PerQueryResult, a TrecEvalResult or a cross_validate result; got "
            f"{type(x).__name__}."
        )
    else:
        qid, fold, columns = None, index_fold, {default_metric: x}
    if index_qid is not None:
        form = f"{kind} indexed by query id"
    elif kind in ("an array", "a polars Series", "a tuple (qid, values)", "a PerQueryResult",
                  "a TrecEvalResult"):
        form = kind
    elif qid is not None:
        form = f"{kind} with a 'qid' column"
    elif kind == "a pandas Series":
        form = f"{kind} with pandas' default index"
    elif kind == "a pandas DataFrame":
        form = f"{kind} with pandas' default index and no 'qid' column"
    else:
        form = f"{kind} without a 'qid' column"
    columns = {metric: _values(v, f"The per-query values of {label} for {metric!r}")
               for metric, v in columns.items()}
    if qid is not None:
        qid = _ids(qid, f"qid of {label}")
    if fold is not None:
        fold = _ids(fold, f"fold of {label}")
    lengths = {f"{metric!r}": len(v) for metric, v in columns.items()}
    if qid is not None:
        lengths["qid"] = len(qid)
    if fold is not None:
        lengths["fold"] = len(fold)
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise ValueError(f"The columns of {label} must have the same length; got {detail}.")
    if next(iter(lengths.values())) == 0:
        raise ValueError(f"{label} has no per-query values: its columns are empty.")
    if undefined is not None:
        undefined = {m: mask for m, mask in undefined.items()
                     if m in columns and mask.shape == columns[m].shape}
    return Source(name, qid, fold, columns, form, undefined, title, keys)


def is_trec_eval_result(x):
    """Whether ``x`` follows the protocol of :class:`sklearn_rank.metrics.TrecEvalResult`:
    ``query_ids`` beside a mapping ``per_query`` of measure name -> values per query, and a
    mapping ``summary`` (trec_eval's ``all`` lines)."""
    return (hasattr(x, "query_ids") and isinstance(getattr(x, "per_query", None), Mapping)
            and isinstance(getattr(x, "summary", None), Mapping))


def _from_trec_eval_result(x):
    """The columns ``qid`` and one per measure of ``x``: its float columns, the measures;
    the counts (``num_ret``... integers) and ``relstring`` (text) are no quality measure
    to average."""
    measures = {name: values for name, values in x.per_query.items()
                if np.asarray(values).dtype.kind == "f"}
    return {"qid": x.query_ids, **measures}


def _kind_of_input(x):
    """What an input is, in words, for error messages."""
    if is_per_query_result(x) or is_trec_eval_result(x):
        return f"a {type(x).__name__}"
    if _is_dataframe(x):
        return f"a {type(x).__module__.partition('.')[0]} DataFrame"
    if _is_pair(x):
        return "a tuple (qid, values)"
    if isinstance(x, Mapping):
        return "a dict"
    module = type(x).__module__.partition(".")[0]
    if module in ("pandas", "polars") and type(x).__name__ == "Series":
        return f"a {module} Series"
    return "an array"


def _has_dimensions(x):
    """Whether numpy sees ``x`` as an array of at least one dimension."""
    try:
        return np.ndim(x) > 0
    except (TypeError, ValueError):  # an object that only looks like a sequence
        return False


def as_sources(systems, *, metric):
    """Read every system; ``metric`` is the user's ``metric=`` (None, a str or a list)."""
    if isinstance(metric, str):
        default = metric
    elif metric is not None and len(metric) == 1:
        default = metric[0]
    else:
        default = "score"
    return [as_source(x, name, default_metric=default) for name, x in systems.items()]


def common_metrics(sources, metric, *, same_definitions=True):
    """The metrics to compare: the requested ones, or those every system has; with
    ``same_definitions``, each computed alike by every system that says how."""
    if metric is None:
        names = [m for m in sources[0].columns if all(m in s.columns for s in sources)]
        if not names:
            detail = "; ".join(f"{s.label}: {sorted(s.columns)}" for s in sources)
            raise ValueError(
                f"The systems have no metric in common ({detail}). Choose one with metric=, "
                "or name the values of bare arrays by passing metric='name'."
            )
        return names
    names = [metric] if isinstance(metric, str) else list(metric)
    if not names:
        raise ValueError("metric= is an empty list; give at least one metric name, or None.")
    for m in names:
        for s in sources:
            s.column(m)
    if same_definitions:
        check_same_definitions(sources, names)
    return names


def check_same_definitions(sources, metrics):
    """Refuse to compare the values of one metric name computed under two definitions (say
    ``ndcg@10`` under ``convention="trec_eval"`` and under ``"lightgbm"``): their difference
    would be the conventions', reported as the systems'."""
    for m in metrics:
        known = [(s, s.keys[m]) for s in sources if s.keys and m in s.keys]
        differ = [(s, key) for s, key in known if key != known[0][1]]
        if differ:
            (first, key), (other, other_key) = known[0], differ[0]
            raise ValueError(
                f"The values of {m!r} are not one metric: {first.label} computed {key!r} and "
                f"{other.label} {other_key!r} (other conventions or options). Their "
                "difference would be that of the definitions, not of the systems: compute "
                f"{m!r} of every system with the same convention= and options."
            )


def _check_finite(source, metric, values):
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        kind = "NaN" if np.isnan(values[row]) else "infinite"
        raise ValueError(
            f"The per-query values of {source.label} for {metric!r} contain "
            f"{int(bad.sum())} NaN or infinite value(s), e.g. {kind} at "
            f"{source.where(row, metric)}. " + (NAN_HELP if kind == "NaN" else "")
        )


def _mean_by(codes, values, n):
    return np.bincount(codes, weights=values, minlength=n) / np.bincount(codes, minlength=n)


def _by_query(source, metric):
    """``(ids, values)`` with one value per query, in the order of ``np.unique(qid)``."""
    values = source.column(metric)
    _check_finite(source, metric, values)
    if source.qid is None:
        return None, values
    codes, ids = factorize(source.qid, len(source.qid))
    if len(ids) == len(codes):
        out = np.empty_like(values)
        out[codes] = values
        return ids, out
    repeated = ids[np.bincount(codes) > 1]
    if source.fold is None:
        raise ValueError(
            f"qid of {source.label} holds repeated query ids ({_show(repeated)}); give one "
            "value per query. Values of a query evaluated in several folds (repeated "
            "cross-validation) are averaged when a 'fold' column tells the folds apart."
        )
    pairs = np.unique(np.stack([codes, np.unique(source.fold, return_inverse=True)[1]
                                .reshape(-1)]), axis=1)
    if pairs.shape[1] != len(codes):
        raise ValueError(
            f"{source.label} has several values for one query in one fold (e.g. among "
            f"qid {_show(repeated)}); give one value per query and fold."
        )
    return ids, _mean_by(codes, values, len(ids))


def _kind(ids):
    return {"b": "numbers", "i": "numbers", "u": "numbers", "f": "numbers",
            "U": "strings", "S": "bytes"}.get(ids.dtype.kind, "objects")


def _check_same_ids(sources, ids, what, context, ids_name):
    ref, ref_ids = sources[0], ids[0]
    for source, other in zip(sources[1:], ids[1:]):
        if len(other) == len(ref_ids) and np.array_equal(other, ref_ids):
            continue
        if _kind(other) != _kind(ref_ids):
            raise TypeError(
                f"The {ids_name} of {ref.label} are {_kind(ref_ids)} and those of "
                f"{source.label} are {_kind(other)}; use the same ids for every system."
            )
        only_ref = np.setdiff1d(ref_ids, other)
        only_other = np.setdiff1d(other, ref_ids)
        parts = []
        if len(only_ref):
            parts.append(f"{len(only_ref)} only in {_who(ref)} ({_show(only_ref)})")
        if len(only_other):
            parts.append(f"{len(only_other)} only in {_who(source)} ({_show(only_other)})")
        raise ValueError(
            f"Systems {_who(ref)} and {_who(source)} were not evaluated on the same "
            f"{what}{context}: " + " and ".join(parts) + ". Evaluate every system on the "
            "same test queries (with cross_validate, the same cv splits)"
            + (", or keep only the queries that every system has in each input."
               if what == "queries" else ".")
        )


@dataclass
class Aligned:
    """Values of every system on common units: ``values[i, s]`` is unit ``i`` of system ``s``."""

    values: np.ndarray
    ids: object  # query ids or fold labels of the rows, or None (aligned by position)
    unit: str


def _who(source):
    """A system's name in a message: its title, or its name."""
    return source.title or repr(source.name)


def align(sources, metric, unit):
    """Align the values of ``metric`` of every source on common queries or folds."""
    if unit == "fold":
        return _align_folds(sources, metric)
    pairs = [_by_query(s, metric) for s in sources]
    ids = [p[0] for p in pairs]
    with_ids = [i is not None for i in ids]
    if any(with_ids) and not all(with_ids):
        given = sources[with_ids.index(True)]
        missing = sources[with_ids.index(False)]
        raise ValueError(
            f"{given.label} comes with query ids and {missing.label} without "
            f"({_who(given)} is {given.form}, "
            f"{_who(missing)} {missing.form}): aligned by position, the "
            "values would be paired with unrelated queries. Give query ids to every system "
            "(a tuple (qid, values), a 'qid' column, a pandas DataFrame or Series indexed by "
            "query id, a PerQueryResult), or to none: values without ids are aligned by "
            "position."
        )
    if all(with_ids):
        _check_same_ids(sources, ids, "queries", f" (for {metric!r})", "query ids")
    else:
        lengths = [len(p[1]) for p in pairs]
        if len(set(lengths)) > 1:
            detail = ", ".join(f"{_who(s)} has {n}" for s, n in zip(sources, lengths))
            raise ValueError(
                f"Without query ids, per-query values are aligned by position and must have "
                f"the same length; got {detail}. Pass (qid, values) to align them by query "
                "id."
            )
    values = np.column_stack([p[1] for p in pairs])
    if len(values) < 2:
        raise ValueError(
            f"Statistics need at least 2 queries; got {len(values)} for {metric!r}."
        )
    return Aligned(values, ids[0], "query")


def _align_folds(sources, metric):
    for s in sources:
        if s.fold is None:
            raise ValueError(
                f"unit='fold' needs the fold of every query, and {s.label} has none: pass "
                "cross_validate(..., return_per_query=True) results, or mappings with a "
                "'fold' column."
            )
    folds, means = [], []
    for s in sources:
        values = s.column(metric)
        _check_finite(s, metric, values)
        labels, codes = np.unique(s.fold, return_inverse=True)
        folds.append(labels)
        means.append(_mean_by(codes.reshape(-1), values, len(labels)))
    _check_same_ids(sources, folds, "folds", f" (for {metric!r})", "fold labels")
    if all(s.qid is not None for s in sources):
        ref = sources[0]
        for s in sources[1:]:
            for f in folds[0]:
                mine, theirs = ref.qid[ref.fold == f], s.qid[s.fold == f]
                if not np.array_equal(np.sort(mine), np.sort(theirs)):
                    raise ValueError(
                        f"Systems {_who(ref)} and {_who(s)} have different test queries "
                        f"in fold {_scalar(f)!r}: their cross-validation splits differ. "
                        "Evaluate every system with the same cv splits."
                    )
    values = np.column_stack(means)
    if len(values) < 2:
        raise ValueError(
            f"unit='fold' needs at least 2 folds; got {len(values)} for {metric!r}."
        )
    return Aligned(values, folds[0], "fold")


def fold_means(source, metric):
    """Mean of ``metric`` in each fold of ``source`` as a dict, or None without folds."""
    if source.fold is None:
        return None
    values = source.column(metric)
    labels, codes = np.unique(source.fold, return_inverse=True)
    means = _mean_by(codes.reshape(-1), values, len(labels))
    return {_scalar(f): float(m) for f, m in zip(labels, means)}
