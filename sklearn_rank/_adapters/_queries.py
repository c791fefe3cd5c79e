"""Query-set plumbing: per-row query ids in, rows grouped by query out, whole queries held out.

Functions on arrays, with no estimator in sight, so that the in-memory adapters and the Dask
rankers (which run them per partition, on the workers) share them:

- :func:`is_single_query`, :func:`check_column_qid`, :func:`missing_qid_message`: where the
  query ids come from, and why none came;
- :func:`check_target`, :func:`check_row_weight`, :func:`check_grades`: the labels and row
  weights of one data set;
- :func:`group_queries`: rows ordered so that each query's are contiguous, and the size of
  each query (a :class:`QuerySet`); :func:`query_codes`: the query number of each row;
- :func:`query_weight`: one weight per query, the mean of its rows' weights, computed by the
  metrics engine so that a booster and :mod:`sklearn_rank.metrics` weigh queries alike;
- :func:`held_out_queries`: whole queries drawn for the early-stopping eval set;
- :func:`as_eval_list`, :func:`per_eval_set`: the eval sets and their per-set arguments.
"""

import contextlib
import math

import numpy as np
from scipy import sparse
from sklearn import get_config
from sklearn.utils import check_random_state
from sklearn.utils import validation as sklearn_validation

from ..utils._arrays import check_finite_nonnegative
from ..utils._qid import (  # noqa: F401 - SINGLE_QUERY and is_single_query: re-exported
    QID_HELP,
    SINGLE_QUERY,
    _is_dataframe,
    group_sizes,
    is_single_query,
)
from ..utils._segments import query_weight as _segment_query_weight
from ..utils._segments import segment_starts
from ..utils._sklearn_internals import _safe_indexing


class QuerySet:
    """One data set with the rows of each query contiguous, as the boosters want it.

    Built by :func:`group_queries`.

    Attributes
    ----------
    X, y : the rows, grouped by query.
    qid : ndarray
        The caller's query ids, in the grouped row order.
    sizes : ndarray of int
        Number of rows of each query, in order.
    sample_weight : ndarray or None
        Per-row weights, grouped.
    extras : dict
        Other per-row arrays (init scores, base margins...), grouped.
    has_qid : bool
        Whether query ids were given (False: ``qid="single_query"``, all rows form one
        query).
    reordered : bool
        Whether the rows are not in the caller's order (sorted by query, or a subset).
    """

    def __init__(self, X, y, qid, sizes, sample_weight, extras, has_qid, reordered=False):
        self.X = X
        self.y = y
        self.qid = qid
        self.sizes = sizes
        self.sample_weight = sample_weight
        self.extras = extras
        self.has_qid = has_qid
        self.reordered = reordered

    @property
    def n_queries(self):
        return len(self.sizes)

    @property
    def codes(self):
        """Query number of each row, 0 to ``n_queries - 1``, non-decreasing."""
        return query_codes(self.sizes)

    @property
    def query_ids(self):
        """The query id of each query, in order."""
        return self.qid[segment_starts(self.sizes)]

    def query_weight(self):
        """Weight of each query (see :func:`query_weight`), or None without row weights."""
        return query_weight(self.sizes, self.sample_weight)

    def take(self, rows):
        """The set restricted to ``rows``, increasing positions: queries stay contiguous."""
        qid = self.qid[rows]
        _, sizes = group_sizes(qid)
        return QuerySet(
            _safe_indexing(self.X, rows), self.y[rows], qid, sizes,
            None if self.sample_weight is None else self.sample_weight[rows],
            {key: _safe_indexing(value, rows) for key, value in self.extras.items()},
            self.has_qid, reordered=True,
        )

    def split(self, held):
        """``(kept, held_out)`` sets of whole queries; ``held`` is a boolean mask of queries."""
        held_rows = np.repeat(held, self.sizes)
        return self.take(np.flatnonzero(~held_rows)), self.take(np.flatnonzero(held_rows))


def group_queries(X, y, qid, sample_weight=None, extras=None, *, has_qid=True):
    """Rows reordered stably so that each query's are contiguous, as a :class:`QuerySet`.

    The inputs are already checked, one entry per row. Rows already grouped keep their order
    (and their queries the order in which they come); otherwise the queries come in the order
    of ``np.unique(qid)`` (:func:`sklearn_rank.utils._qid.group_sizes`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank._adapters import group_queries
    >>> X = np.arange(5.0).reshape(-1, 1)
    >>> grouped = group_queries(X, np.array([1, 0, 2, 0, 1]), np.array(["b", "a", "b", "c", "a"]))
    >>> grouped.X.ravel().tolist(), grouped.sizes.tolist(), grouped.query_ids.tolist()
    ([1.0, 4.0, 0.0, 2.0, 3.0], [2, 2, 1], ['a', 'b', 'c'])
    """
    extras = {key: value for key, value in (extras or {}).items() if value is not None}
    order, sizes = group_sizes(qid)
    if order is not None:
        X = _safe_indexing(X, order)
        y, qid = y[order], qid[order]
        if sample_weight is not None:
            sample_weight = sample_weight[order]
        extras = {key: _safe_indexing(value, order) for key, value in extras.items()}
    return QuerySet(X, y, qid, sizes, sample_weight, extras, has_qid,
                    reordered=order is not None)


def query_codes(sizes):
    """Query number of each row of rows grouped by query, ``sizes`` rows per query."""
    return np.repeat(np.arange(len(sizes)), sizes)


def query_weight(sizes, sample_weight):
    """Weight of each query of rows grouped by query: the mean of its rows' weights.

    That is how :mod:`sklearn_rank.metrics` weighs queries, and this is the metrics engine's
    own computation (``RankingInput.query_weight``): a booster that weighs queries
    (XGBoost, CatBoost) and the metrics then agree, and weights whose sums overflow or
    underflow float64 are rescaled as the metrics rescale them. None without row weights.
    """
    if sample_weight is None:
        return None
    sizes = np.asarray(sizes)
    weight = np.asarray(sample_weight, dtype=np.float64)
    return _segment_query_weight(query_codes(sizes), weight, sizes)


def held_out_queries(n_queries, fraction, random_state):
    """Boolean mask of the queries held out for early stopping: ``fraction`` of them, whole.

    At least one query is held out and at least one kept (``n_queries`` must be 2 or more);
    they are drawn with ``random_state`` (a seed, a ``RandomState`` or a ``Generator``).

    Examples
    --------
    >>> from sklearn_rank._adapters import held_out_queries
    >>> held = held_out_queries(10, 0.25, random_state=0)
    >>> int(held.sum())  # ceil(0.25 * 10) queries, whole
    3
    """
    n_held = math.ceil(fraction * n_queries)
    n_held = min(max(n_held, 1), n_queries - 1)
    if not isinstance(random_state, np.random.Generator):
        random_state = check_random_state(random_state)
    held = np.zeros(n_queries, dtype=bool)
    held[random_state.choice(n_queries, n_held, replace=False)] = True
    return held


# --------------------------------------------------------------------------------------
# Checks of one data set
# --------------------------------------------------------------------------------------


def check_target(y, n_samples, caller):
    """1-D numeric labels, one per row (a column vector is raveled with a warning)."""
    if y is None:
        raise ValueError(
            f"{caller} requires y to be passed, but the target y is None: give the relevance "
            "label of every row."
        )
    if hasattr(y, "to_numpy") and not isinstance(y, np.ndarray):
        y = y.to_numpy()
    # scikit-learn's column_or_1d, not sklearn_rank.utils' strict one: an estimator ravels a
    # column vector y with a DataConversionWarning (check_supervised_y_2d)
    y = sklearn_validation.column_or_1d(np.asarray(y), warn=True)
    if y.dtype.kind == "O":
        with contextlib.suppress(TypeError, ValueError):  # the dtype check below says why
            y = y.astype(np.float64)
    if y.dtype.kind not in "biuf":
        raise ValueError(
            f"{caller} needs numeric relevance labels; got y of dtype {y.dtype}."
        )
    if len(y) != n_samples:
        raise ValueError(
            f"{caller}: X has {n_samples} rows but y has {len(y)} labels; give one label per "
            "row."
        )
    return y


def check_row_weight(sample_weight, n_samples, caller, name="sample_weight"):
    """Per-row weights: finite, non-negative, not all zero; None passes through."""
    if sample_weight is None:
        return None
    if hasattr(sample_weight, "to_numpy") and not isinstance(sample_weight, np.ndarray):
        sample_weight = sample_weight.to_numpy()
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.ndim != 1 or len(weight) != n_samples:
        raise ValueError(
            f"{name} for {caller} must hold one weight per row: shape ({n_samples},); got "
            f"shape {weight.shape}."
        )
    check_finite_nonnegative(weight, f"{name} for {caller}")
    if n_samples and not weight.any():
        raise ValueError(f"{name} for {caller} is all zeros: no row would count.")
    return weight


def check_grades(y, caller, *, max_grade=None, binary=False, objective, fix):
    """Labels a booster's ranking objective accepts: integer grades within its range.

    Raised before the data reach the booster, so that the user sees which row is wrong and
    how to fix it instead of a C++ error.
    """
    y = np.asarray(y, dtype=np.float64)
    if binary:
        bad = (y != 0) & (y != 1)
        need = "binary relevance labels, 0 or 1"
    else:
        bad = ~np.isfinite(y) | (y < 0) | (y != np.round(y))
        if max_grade is not None:
            bad |= y > max_grade
        need = ("integer relevance grades from 0" if max_grade is None
                else f"integer relevance grades from 0 to {max_grade}")
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{caller}: the {objective} objective needs {need}; got {float(y[row])!r} at row "
            f"{row}. "
            f"{fix}"
        )


def as_rows(X):
    """``X`` in a form every booster reads, with rows.

    Lists and array-likes without ``shape`` become arrays; sparse input other than CSR and
    CSC matrices (scipy's sparse arrays, COO, DOK...) becomes a CSR matrix, which the boosters
    read without a warning (LightGBM 4.7 cannot predict on sparse arrays at all).
    """
    if isinstance(X, (list, tuple)) or (hasattr(X, "__array__") and not hasattr(X, "shape")):
        return np.asarray(X)
    if sparse.issparse(X) and not isinstance(X, (sparse.csr_matrix, sparse.csc_matrix)):
        return sparse.csr_matrix(X)
    return X


# --------------------------------------------------------------------------------------
# Where the query ids come from
# --------------------------------------------------------------------------------------


def missing_qid_message(X, qid_column, caller, *, action="train on", eval_index=None):
    """Why no query ids reached ``caller``, both ways to pass them, and the usual culprit.

    The commonest way to get here is a transformer in a Pipeline that turned a DataFrame
    with a query-id column into an array (or renamed the column), with routing off; the
    message says so, and names the wrapper that carries the column through.
    """
    column = qid_column or "qid"
    if _is_dataframe(X):
        names = [str(name) for name in X.columns]
        shown = ", ".join(repr(name) for name in names[:5]) + (", ..." if len(names) > 5 else "")
        what = f"X is a DataFrame with no {column!r} column (its columns: {shown})"
    else:
        kind = ("a numpy array" if isinstance(X, np.ndarray)
                else "a sparse matrix" if sparse.issparse(X) else f"a {type(X).__name__}")
        what = f"X is {kind}, which has no query-id column"
    routing = "on" if get_config().get("enable_metadata_routing") else "off"
    if eval_index is not None:
        return (
            f"{caller} needs the query id of every row, and got none: {what}, and eval_qid "
            "has no entry for it. Pass eval_qid=[qid_val, ...] "
            "(one array of per-row query ids per eval set, as qid= for the training rows), or "
            f"make that eval set's X a pandas or polars DataFrame with a {column!r} column. "
            f"An entry {SINGLE_QUERY!r} in eval_qid makes that eval set one query, on purpose."
        )
    return (
        f"{caller} needs the query id of every row, and got none: {what}, and no qid= was "
        f"given (metadata routing is {routing}). "
        + QID_HELP.format(column=column)
        + " In a search or cross-validation without routing, groups=qid reaches the splitter "
        "only. If X came through a transformer of a Pipeline (StandardScaler, ...), that "
        f"transformer turned the DataFrame into an array or dropped its {column!r} column: "
        "wrap it as sklearn_rank.preprocessing.KeepQueryId(StandardScaler()), which "
        "transforms the other columns and carries the query ids through, or route qid=. "
        f"To {action} all rows as one query on purpose, pass qid={SINGLE_QUERY!r}."
    )


def check_column_qid(qid, qid_column, caller):
    """Refuse query ids read from a column that a transformer has visibly changed.

    Query ids are labels (integers or strings); a column of non-integer numbers is what
    ``StandardScaler().set_output(transform="pandas")`` or a ``QuantileTransformer`` leaves
    of them, and reading those as query ids may merge queries (or fit on ids turned
    features).
    """
    if qid.dtype.kind != "f":
        return
    fraction = np.isfinite(qid) & (qid != np.round(qid))
    if fraction.any():
        row = int(np.flatnonzero(fraction)[0])
        raise ValueError(
            f"{caller}: the {qid_column!r} column of X holds non-integer numbers (e.g. "
            f"{float(qid[row])!r} at row {row}), not query ids: a transformer before the "
            "ranker probably transformed it, e.g. StandardScaler().set_output("
            "transform='pandas') or a QuantileTransformer, which can merge queries. Wrap the "
            "transformer as sklearn_rank.preprocessing.KeepQueryId(...), which leaves the "
            "column alone, or route qid= with metadata routing. If these numbers really are "
            "your query ids, make them integers or strings."
        )


# --------------------------------------------------------------------------------------
# Eval sets
# --------------------------------------------------------------------------------------


def per_eval_set(values, n_sets, name):
    """One entry per eval set (None for none)."""
    if values is None:
        return [None] * n_sets
    if not isinstance(values, (list, tuple)) or len(values) != n_sets:
        got = f"{len(values)} entries" if isinstance(values, (list, tuple)) else type(values)
        raise ValueError(
            f"{name} must be a list with one entry per eval set ({n_sets}), e.g. "
            f"{name}=[qid_val] for eval_set=[(X_val, y_val)]; got {got}."
        )
    return list(values)


def as_eval_list(eval_set):
    """``eval_set`` as a list of ``(X, y)`` pairs; a single pair is accepted."""
    if eval_set is None:
        return []
    if not isinstance(eval_set, (list, tuple)):
        raise ValueError(
            "eval_set must be a list of (X, y) pairs, e.g. eval_set=[(X_val, y_val)] with "
            f"eval_qid=[qid_val]; got {type(eval_set).__name__}."
        )
    if isinstance(eval_set, tuple) and len(eval_set) == 2 and not isinstance(eval_set[0], tuple):
        return [eval_set]
    eval_set = list(eval_set)
    for i, pair in enumerate(eval_set):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(
                f"eval_set must be a list of (X, y) pairs; eval_set[{i}] is not a pair."
            )
    return eval_set
