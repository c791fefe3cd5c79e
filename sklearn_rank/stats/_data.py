"""Per-query values of the systems to compare, read from any accepted input and aligned.

A system's values come as one of:

- an array-like of per-query values, aligned with the other systems by position;
- a tuple ``(qid, values)``, aligned with the other systems by query id;
- a mapping (or a pandas / polars DataFrame) of columns: optional ``"qid"`` and ``"fold"``,
  and one column of per-query values per metric, e.g. ``{"qid": ..., "ndcg@10": ...}``;
- the dict that :func:`sklearn_rank.model_selection.cross_validate` returns with
  ``return_per_query=True``, whose ``"per_query"`` entry is such a mapping.

Queries are the statistical unit. A query that appears more than once, in different folds
(repeated cross-validation), gets the mean of its values.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

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

    @property
    def label(self):
        return f"system {self.name!r}"

    def column(self, metric):
        try:
            return self.columns[metric]
        except KeyError:
            raise ValueError(
                f"{self.label} has no per-query values for the metric {metric!r}; it has "
                f"{sorted(self.columns)}."
            ) from None

    def where(self, row):
        """How an error message names a row: by its query id when known."""
        if self.qid is not None:
            return f"qid {_scalar(self.qid[row])!r}"
        return f"position {row}"


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


def _is_pair(x):
    return (isinstance(x, tuple) and len(x) == 2
            and all(not isinstance(v, str) and np.ndim(v) >= 1 for v in x))


def as_source(x, name, *, default_metric):
    """Read one system's input; ``default_metric`` names the values of a bare array."""
    label = f"system {name!r}"
    if isinstance(x, Mapping) and "per_query" in x:
        x = x["per_query"]
        if not isinstance(x, Mapping):
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
    if _is_dataframe(x):
        x = {column: x[column] for column in x.columns}
    if isinstance(x, Mapping):
        columns = {k: v for k, v in x.items() if k not in _RESERVED}
        if not columns:
            raise ValueError(
                f"{label} has no column of per-query values besides {sorted(x)}; expected "
                "e.g. {'qid': ..., 'ndcg@10': ...}."
            )
        qid, fold = x.get("qid"), x.get("fold")
    elif _is_pair(x):
        qid, values = x
        columns, fold = {default_metric: values}, None
    elif isinstance(x, str) or np.ndim(x) == 0:
        raise TypeError(
            f"{label} must be per-query values (an array-like), a tuple (qid, values), a "
            f"dict of per-query columns or a cross_validate result; got {type(x).__name__}."
        )
    else:
        qid, fold, columns = None, None, {default_metric: x}
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
    return Source(name, qid, fold, columns)


def as_sources(systems, *, metric):
    """Read every system; ``metric`` is the user's ``metric=`` (None, a str or a list)."""
    if isinstance(metric, str):
        default = metric
    elif metric is not None and len(metric) == 1:
        default = metric[0]
    else:
        default = "score"
    return [as_source(x, name, default_metric=default) for name, x in systems.items()]


def common_metrics(sources, metric):
    """The metrics to compare: the requested ones, or those every system has."""
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
    return names


def _check_finite(source, metric, values):
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        kind = "NaN" if np.isnan(values[row]) else "infinite"
        raise ValueError(
            f"The per-query values of {source.label} for {metric!r} contain "
            f"{int(bad.sum())} NaN or infinite value(s), e.g. {kind} at "
            f"{source.where(row)}. " + (NAN_HELP if kind == "NaN" else "")
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
            parts.append(f"{len(only_ref)} only in {ref.name!r} ({_show(only_ref)})")
        if len(only_other):
            parts.append(f"{len(only_other)} only in {source.name!r} ({_show(only_other)})")
        raise ValueError(
            f"Systems {ref.name!r} and {source.name!r} were not evaluated on the same "
            f"{what}{context}: " + " and ".join(parts) + ". Evaluate every system on the "
            "same test queries (with cross_validate, the same cv splits)."
        )


@dataclass
class Aligned:
    """Values of every system on common units: ``values[i, s]`` is unit ``i`` of system ``s``."""

    values: np.ndarray
    ids: object  # query ids or fold labels of the rows, or None (aligned by position)
    unit: str


def align(sources, metric, unit):
    """Align the values of ``metric`` of every source on common queries or folds."""
    if unit == "fold":
        return _align_folds(sources, metric)
    pairs = [_by_query(s, metric) for s in sources]
    ids = [p[0] for p in pairs]
    with_ids = [i is not None for i in ids]
    if any(with_ids) and not all(with_ids):
        given = sources[with_ids.index(True)].label
        missing = sources[with_ids.index(False)].label
        raise ValueError(
            f"{given} comes with query ids and {missing} without: give (qid, values) for "
            "every system, to align them by query id, or bare arrays for all, aligned by "
            "position."
        )
    if all(with_ids):
        _check_same_ids(sources, ids, "queries", f" (for {metric!r})", "query ids")
    else:
        lengths = [len(p[1]) for p in pairs]
        if len(set(lengths)) > 1:
            detail = ", ".join(f"{s.name!r} has {n}" for s, n in zip(sources, lengths))
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
                        f"Systems {ref.name!r} and {s.name!r} have different test queries "
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
