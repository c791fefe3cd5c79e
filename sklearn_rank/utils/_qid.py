"""How query ids travel: as metadata (``qid=``) or as a column of a DataFrame ``X``.

Two ways, both supported everywhere (scorers, splitters, adapters):

1. metadata routing on (``sklearn.set_config(enable_metadata_routing=True)``): ``qid`` is
   passed as an argument, e.g. ``search.fit(X, y, qid=qid)``, and routed to whoever requests it;
2. routing off (scikit-learn's default): ``X`` is a pandas or polars DataFrame with a query-id
   column (``"qid"`` unless told otherwise), the XGBoost convention. The column is read, then
   dropped before the data reaches a model, so that no model sees it as a feature.

Wherever they come from, query ids of any type are coded as integers by :func:`factorize`,
the one place that does it (metrics, splitters, adapters, statistics, readers).
"""

import sys

import numpy as np

from ._arrays import column_or_1d

QID_HELP = (
    "Pass query ids in one of two ways: (1) with metadata routing enabled "
    "(sklearn.set_config(enable_metadata_routing=True)), give them as an argument, e.g. "
    "search.fit(X, y, qid=qid) or scorer(estimator, X, y, qid=qid); or (2) make X a pandas or "
    "polars DataFrame with a {column!r} column holding the query id of each row."
)


#: The ``qid`` value that makes all rows one query, on purpose: the explicit opt-in that
#: replaces the silent default (no query ids) that the adapters and the metrics refuse.
SINGLE_QUERY = "single_query"


def is_single_query(qid, caller):
    """Whether ``qid`` is the opt-in ``"single_query"``; other strings are refused."""
    if isinstance(qid, str):
        if qid == SINGLE_QUERY:
            return True
        raise ValueError(
            f"qid for {caller} must hold one query id per row, or be the string "
            f"{SINGLE_QUERY!r} to make all rows one query; got the string {qid!r}."
        )
    return False


def metric_qid(qid, caller):
    """The query ids of a metric call: ``qid`` itself, or None for ``"single_query"``.

    A metric computed without query ids would score every row as one query: a number
    without a word of warning, and a wrong one whenever the rows hold several queries. So
    ``qid=None`` (the argument left out) is refused, as the rankers, the scorers and the
    splitters refuse it, and all rows form one query only when asked for, with
    ``qid="single_query"``.
    """
    if qid is None:
        raise ValueError(
            f"{caller} needs the query id of every row, and got none: qid was not given. "
            "Without query ids every row would be scored as one query, a wrong number "
            "whenever the rows hold several queries. Pass qid= with the query id of each "
            f"row (in any order), or qid={SINGLE_QUERY!r} to score all rows as one query on "
            "purpose."
        )
    return None if is_single_query(qid, caller) else qid


def _is_dataframe(X):
    module = type(X).__module__
    return hasattr(X, "columns") and module.startswith(("pandas", "polars"))


def has_qid_column(X, qid_column):
    return qid_column is not None and _is_dataframe(X) and qid_column in list(X.columns)


def drop_qid_column(X, qid_column):
    """``X`` without its query-id column (``X`` itself when it has none)."""
    if not has_qid_column(X, qid_column):
        return X
    if type(X).__module__.startswith("polars"):
        return X.drop(qid_column)
    return X.drop(columns=qid_column)


def resolve_qid(X, qid=None, *, qid_column="qid", n_samples=None, caller="this operation",
                required=True):
    """Return ``(X_without_qid_column, qid)`` from the ``qid`` argument or ``X``'s column.

    Parameters
    ----------
    X : array-like, DataFrame or None
        The features; a DataFrame may hold the query ids in ``qid_column``.
    qid : array-like or None
        Query ids given as an argument; they win over the column.
    qid_column : str or None
        Name of the query-id column; None disables the column.
    n_samples : int, default=None
        Number of rows, when ``X`` is None.
    caller : str
        Who asks, for the error messages.
    required : bool
        Raise when no query ids are found; otherwise return ``qid=None``.
    """
    n = n_samples if X is None else _num_rows(X)
    column = has_qid_column(X, qid_column)
    if qid is None and column:
        qid = np.asarray(X[qid_column].to_numpy())
    X = drop_qid_column(X, qid_column)
    if qid is None:
        if required:
            where = ""
            if _is_dataframe(X):
                where = f" X is a DataFrame, but has no {qid_column!r} column."
            raise ValueError(
                f"{caller} needs the query id of every row, and got none.{where} "
                + QID_HELP.format(column=qid_column or "qid")
            )
        return X, None
    qid = check_qid(qid, n, caller=caller)
    return X, qid


def _num_rows(X):
    shape = getattr(X, "shape", None)
    return shape[0] if shape is not None else len(X)


def check_qid(qid, n_samples, *, caller="this operation"):
    """Validate per-row query ids; recognise group sizes passed by mistake.

    The one check of a ``qid`` argument, for the metrics, scorers, splitters and adapters
    alike: a 1-D array with one id per row. Returns it as a numpy array.
    """
    qid = column_or_1d(qid, f"qid for {caller}", hint=" Give one query id per row.")
    if n_samples is not None and len(qid) != n_samples:
        raise ValueError(
            f"qid for {caller} must have one query id per row: got {len(qid)} ids for "
            f"{n_samples} rows.{_group_sizes_hint(qid, n_samples)}"
        )
    return qid


def _group_sizes_hint(qid, n_samples):
    """A hint when ``qid`` looks like group sizes (LightGBM's ``group=``), else ''."""
    if qid.dtype.kind == "f" and len(qid) and np.isfinite(qid).all():
        if (qid != np.round(qid)).any():
            return ""
        qid = qid.astype(np.int64)
    if not (qid.dtype.kind in "iu" and 0 < len(qid) < n_samples and (qid > 0).all()):
        return ""
    if sum(qid.tolist()) != n_samples:  # Python integers: no wrap-around
        return ""
    return (
        " These look like group sizes (they sum to the number of rows), as LightGBM's "
        "group= takes: sklearn-rank wants one query id per row instead, e.g. "
        "qid = np.repeat(np.arange(len(group)), group)."
    )


def group_sizes(qid):
    """Rows sorted stably by query (runs of equal ids), and the size of each run.

    Returns ``(order, sizes)``: ``order`` is None when the rows of each query are already
    contiguous, else the stable permutation that makes them so (queries in the order of
    ``np.unique(qid)``); ``sizes`` are the group sizes in the resulting row order, as
    LightGBM's and XGBoost's ``group=`` want.
    """
    qid = np.asarray(qid)
    if len(qid) == 0:
        return None, np.zeros(0, dtype=np.intp)
    change = np.r_[True, qid[1:] != qid[:-1]]
    runs = qid[change]
    if len(factorize(runs, len(runs))[1]) == len(runs):
        starts = np.flatnonzero(change)
        return None, np.diff(np.append(starts, len(qid)))
    codes, _ = factorize(qid, len(qid))
    order = np.argsort(codes, kind="stable")
    return order, np.bincount(codes)


# How query ids are coded: integers 0..n_queries-1 in the order of np.unique(qid)


# Integer ids spanning at most this many values per row (plus a few for tiny inputs) are coded
# through a look-up table the size of their range: a pass over the table costs less than a sort.
_TABLE_SPAN_PER_ROW = 4
_TABLE_SPAN_FREE = 1024
# Below this many rows, importing pandas costs more than its hash table saves over np.unique.
_PANDAS_MIN_ROWS = 100_000


def factorize(qid, n):
    """Integer codes ``0..n_queries-1`` of ``qid`` in the order of ``np.unique(qid)``.

    Integer ids within a range not much larger than ``n`` are coded with a look-up table
    (no sort). Strings and other objects go through pandas' hash table when pandas is at
    hand (:func:`_hash_unique`); other ids through ``np.unique``.
    """
    if qid is None:
        return np.zeros(n, dtype=code_dtype(1)), np.zeros(1, dtype=np.intp)
    if len(qid) == 0:
        return np.zeros(0, dtype=code_dtype(0)), qid[:0]
    if qid.dtype.kind == "b":
        qid = qid.astype(np.intp)
    if qid.dtype.kind in "iu":
        if not qid.dtype.isnative:
            qid = qid.astype(qid.dtype.newbyteorder("="))
        lo, hi = int(qid.min()), int(qid.max())
        if lo > 0 and hi <= _TABLE_SPAN_PER_ROW * n + _TABLE_SPAN_FREE:
            lo = 0  # index the table by the ids themselves: no shifted copy
        if hi - lo <= _TABLE_SPAN_PER_ROW * n + _TABLE_SPAN_FREE:
            present = np.zeros(hi - lo + 1, dtype=bool)
            shifted, offset = _shifted(qid, lo)
            present[shifted] = True
            uniques = np.flatnonzero(present)
            # only the present ids are read; 32-bit codes halve the table that the gather
            # below reads at random ("clip": the ids are valid, and "raise" buffers)
            table = np.empty(len(present), dtype=code_dtype(len(uniques)))
            table[uniques] = np.arange(len(uniques), dtype=table.dtype)
            ids = uniques.astype(offset.dtype)
            ids += offset
            return table.take(shifted, mode="clip"), ids.view(qid.dtype)
    elif qid.dtype.kind in "fc" and np.isnan(qid).any():
        raise ValueError("qid must not contain NaN: every document needs a query id.")
    elif qid.dtype.kind in "mM" and np.isnat(qid).any():  # a timestamp column with nulls
        raise ValueError("qid must not contain NaT: every document needs a query id.")
    elif qid.dtype == object and np.equal(qid, None).any():  # in C, not a loop over rows
        raise ValueError("qid must not contain None: every document needs a query id.")
    elif qid.dtype.kind in "US" and len(qid) > 1:
        # rows grouped by query in ascending order (read_trec's, a sorted file's): the runs
        # of equal ids number the queries, with no hash of every row
        head = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
        uniques = qid[head]
        if (uniques[1:] > uniques[:-1]).all():
            sizes = np.diff(np.append(head, len(qid)))
            return np.repeat(np.arange(len(head), dtype=code_dtype(len(head))), sizes), uniques
    try:
        pandas = _pandas_at_hand(n) if qid.dtype.kind in "OUS" else None
        if pandas is not None:
            uniques, codes = _hash_unique(qid, pandas)  # refuses NaN and NaT itself
        else:
            if qid.dtype == object and _unequal_to_themselves(qid):
                raise ValueError("qid must not contain NaN or NaT: every document needs a "
                                 "query id.")
            uniques, codes = np.unique(qid, return_inverse=True)
    except TypeError as exc:
        raise TypeError(
            "qid values must be of one sortable type (numbers or strings); got "
            f"values that cannot be compared with each other ({exc})."
        ) from None
    return codes.reshape(-1).astype(code_dtype(len(uniques)), copy=False), uniques


def _unequal_to_themselves(qid):
    """Whether an object array holds NaN or NaT, the values unequal to themselves: each
    would be a query of its own, or all one query, where None is refused."""
    try:
        return bool(np.not_equal(qid, qid).any())
    except (TypeError, ValueError):  # objects whose comparison is no boolean
        return False


def _shifted(qid, lo):
    """``qid - lo`` (integers, ``0 <= qid - lo < 2**bits``), exactly, and ``lo`` as the
    offset that maps ``0, 1, ...`` back to ids: ``(index + offset).view(qid.dtype)``.

    The difference is taken in the unsigned type of ``qid``'s width, modulo ``2**bits``:
    exact, since it fits, where the signed one wraps (int8 ids -128..127 span 255), and
    without converting a ``lo`` beyond the signed range (uint64 ids from 2**63 on).
    """
    unsigned = np.dtype(f"u{qid.dtype.itemsize}")
    offset = np.array(lo % (1 << 8 * qid.dtype.itemsize), dtype=unsigned)
    if not lo:
        return qid, offset
    shifted = np.subtract(qid.view(unsigned), offset, dtype=unsigned)
    if unsigned.itemsize == np.dtype(np.intp).itemsize:
        shifted = shifted.view(np.intp)  # below 2**63: the indices take() wants, no copy
    return shifted, offset


def _pandas_at_hand(n):
    """pandas, if it is imported already or worth importing for ``n`` rows; else None."""
    if "pandas" in sys.modules:
        return sys.modules["pandas"]
    if n < _PANDAS_MIN_ROWS:
        return None
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def _hash_unique(qid, pandas):
    """``np.unique(qid, return_inverse=True)`` through pandas' hash table.

    ``np.unique`` sorts the rows, and for an object array (strings from a DataFrame, say)
    each comparison is a Python call: 3.4 s for a million strings, against 0.13 s here. Only
    the distinct ids are sorted.
    """
    codes, uniques = pandas.factorize(qid)
    if len(codes) and codes.min() < 0:
        raise ValueError("qid must not contain None or NaN: every document needs a query id.")
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    uniques = np.asarray(uniques)[order]
    if qid.dtype.kind in "US":
        uniques = uniques.astype(qid.dtype)
    return uniques, rank.take(codes)


def code_dtype(n_codes):
    """32-bit integer codes where they fit: half the memory and bandwidth of intp."""
    return np.int32 if n_codes < 2**31 else np.intp


def unique_ids(qid):
    """The distinct query ids, in the order of ``np.unique(qid)``: the order of the
    per-query values of :mod:`sklearn_rank.metrics` (see :func:`factorize`)."""
    qid = np.asarray(qid)
    return factorize(qid, len(qid))[1]
