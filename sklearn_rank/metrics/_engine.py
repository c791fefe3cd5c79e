"""The ranking engine: validate once, group rows by query, sort once, share the result.

Every metric of :mod:`sklearn_rank.metrics` is a few lines on top of the objects built here:

* :class:`RankingInput` holds the validated flat arrays and the factorised query ids;
* :class:`Grouping` lays queries out by increasing number of rows, and sorts the rows of
  every query by a value with one sort of packed 64-bit keys (:func:`segment_argsort`): no
  Python loop over queries, and no two-key lexicographic sort. It also keeps a 2-D "bucket"
  layout (queries of equal length side by side) in which per-query cumulative products run
  along ``axis=1``;
* :class:`Ranking` is the ranked list of every query for one tie convention, with the tie
  blocks that the ``ties="average"`` expectation needs.

A :class:`RankingInput` caches its groupings and rankings, so :func:`~sklearn_rank.metrics.evaluate`
computes many metrics from a single sort.
"""

import functools
import math
from functools import cached_property
from numbers import Integral

import numpy as np

from ..utils._arrays import check_finite_nonnegative, column_or_1d
from ..utils._qid import check_qid, code_dtype, factorize, metric_qid

TIES = ("average", "stable", "optimistic", "pessimistic")


def cached(method):
    """Cache ``method(self, *args)`` per ``args`` (hashable) for the life of the instance.

    The engine's one caching rule: whatever is derived from the input is computed on first
    use and kept, attributes with :func:`functools.cached_property`, methods that take an
    argument (a threshold, a tie rule, a cut-off) with this decorator, whose values live in
    the instance's ``_cache`` dict under ``(method name, *args)``.
    """
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self, *args):
        cache = vars(self).setdefault("_cache", {})
        key = (name, *args)
        if key not in cache:
            cache[key] = method(self, *args)
        return cache[key]

    return wrapper

# --------------------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------------------


def _as_float(arr, name):
    if arr.dtype == object or arr.dtype.kind in "USMmV":
        try:
            out = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must hold numbers; got values of dtype {arr.dtype} such as "
                f"{arr[0]!r}."
            ) from None
    elif arr.dtype.kind in "biuf":
        out = arr.astype(np.float64, copy=False)
    else:
        raise TypeError(f"{name} must hold numbers; got dtype {arr.dtype}.")
    return out


def _exact_numbers(arr, name, *, keep_wide=False):
    """``arr`` as numbers that compare exactly as the values given: integers as they are,
    other numbers as float64 where that is exact.

    Integers are kept, not cast to float64, which would merge those beyond 2**53 (scores
    such as nanosecond timestamps). Long doubles, and Python numbers in an object array,
    become float64 when that loses nothing; otherwise they are kept as they are with
    ``keep_wide`` (the engine ranks any numeric dtype exactly), else refused: rounding
    them would tie values that differ, silently.
    """
    kind = arr.dtype.kind
    if kind in "iu":
        return arr
    if kind in "mM" and keep_wide:  # times as scores: their int64 ticks, in the same order
        if np.isnat(arr).any():
            i = int(np.flatnonzero(np.isnat(arr))[0])
            raise ValueError(
                f"{name} must not contain NaT (a missing time); got "
                f"{int(np.isnat(arr).sum())}, the first at row {i}."
            )
        return arr.view(np.int64)
    if kind in "bf" and arr.dtype.itemsize <= 8:
        return arr.astype(np.float64, copy=False)
    if kind == "f":
        out = arr.astype(np.float64)
        lossless = (out == arr) | np.isnan(arr)
    elif arr.dtype == object or kind in "US":
        if arr.dtype == object and all(isinstance(v, str) for v in arr.tolist()):
            # text held as objects (pandas' strings): read as the str array of the same text
            return _exact_numbers(arr.astype(str), name, keep_wide=keep_wide)
        ints = _exact_integers(arr)
        if ints is not None:
            return ints
        out = _as_float(arr, name)
        if arr.dtype != object:  # decimal text is read to the nearest float, as float() does
            return out
        lossless = (out == arr) | np.isnan(out)  # Python compares int and float exactly
    else:
        raise TypeError(f"{name} must hold numbers; got dtype {arr.dtype}.")
    if lossless.all():
        return out
    if keep_wide and kind == "f":
        return arr
    i = int(np.flatnonzero(~lossless)[0])
    if isinstance(arr[i], str):
        raise TypeError(
            f"{name} mixes numbers and text, e.g. {arr[i]!r} at row {i} (dtype object); "
            f"expected numbers. Pass {name} as numbers, e.g. {name}.astype(np.float64)."
        )
    raise ValueError(
        f"{name} holds values that float64 cannot represent exactly, e.g. {arr[i]!r} at row "
        f"{i} (dtype {arr.dtype}); computing with them as float64 would round them and could "
        f"tie values that differ. Pass a numpy array of integers or floats, or "
        f"{name}.astype(np.float64) if that precision does not matter to you."
    )


def _exact_integers(arr):
    """Integers in an object or string array as an int64/uint64 array, else None."""
    if arr.dtype == object:
        try:
            ints = np.array(arr.tolist())
        except (TypeError, ValueError, OverflowError):
            return None
        return ints if ints.ndim == 1 and ints.dtype.kind in "iu" else None
    for dtype in (np.int64, np.uint64):
        try:
            return arr.astype(dtype)
        except (TypeError, ValueError, OverflowError):
            continue
    return None


def check_ranking_input(y_true, y_score, qid=None, sample_weight=None, retrieved=None, *,
                        judged=None, docno=None, caller="this metric"):
    """Validate the flat arrays of a ranking metric and return a :class:`RankingInput`.

    ``qid`` goes through :func:`sklearn_rank.utils._qid.check_qid`, the one validator of
    query ids; ``caller`` names the function in its messages. ``qid=None`` is refused
    (:func:`sklearn_rank.utils._qid.metric_qid`): ``qid="single_query"`` makes all rows
    one query, on purpose. ``retrieved`` is a boolean mask (``None``: every row is
    retrieved). ``judged`` says which rows have a judgement:

    * ``None``: every row; NaN and negative grades are refused;
    * a boolean mask: ``False`` rows have none; their ``y_true`` must be 0 or NaN;
    * ``"y_true"``: read from ``y_true`` as trec_eval reads qrels: NaN marks a document
      without a judgement, outside the judgement pool; a negative grade (trec_eval's -1) a
      document in the pool left unjudged; any other value is a judgement.

    Unjudged rows have grade 0 in :attr:`RankingInput.y_true`: they count as non-relevant
    unless a metric reads :attr:`RankingInput.judged_mask` (or ``unjudged="condensed"``
    takes them out of the ranking).

    ``docno`` names the documents (``None``: no names): ``ties="stable"`` then ranks equal
    scores by name, descending, as trec_eval does (:func:`docno_order`).
    """
    from_y_true = isinstance(judged, str)
    if from_y_true and judged != "y_true":
        raise ValueError(
            f"judged must be a boolean mask, None or 'y_true' (read the judgements from "
            f"y_true: NaN for a document without one); got {judged!r}."
        )
    y_true = column_or_1d(y_true, "y_true")
    y_score = column_or_1d(y_score, "y_score")
    arrays = {"y_true": y_true, "y_score": y_score}
    if sample_weight is not None:
        sample_weight = column_or_1d(sample_weight, "sample_weight")
        arrays["sample_weight"] = sample_weight
    if retrieved is not None:
        retrieved = column_or_1d(retrieved, "retrieved")
        arrays["retrieved"] = retrieved
    if judged is not None and not from_y_true:
        judged = column_or_1d(judged, "judged")
        arrays["judged"] = judged
    if docno is not None:
        docno = column_or_1d(docno, "docno")
        arrays["docno"] = docno
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(
            f"All inputs must have one entry per document, but their lengths differ: "
            f"{detail}."
        )
    qid = metric_qid(qid, caller)  # None from here on: "single_query", all rows one query
    if qid is not None:
        qid = check_qid(qid, len(y_true), caller=caller)
    if len(y_true) == 0:
        raise ValueError("y_true and y_score are empty: there is no document to rank.")

    # Integer grades are kept as they come (a float copy would be one more array of n);
    # they cannot be NaN or infinite.
    y_true = _exact_numbers(y_true, "y_true")
    pool_unjudged = None
    if from_y_true:
        y_true, judged, pool_unjudged = _judgements_of(y_true)
    else:
        judged = _boolean_mask(judged, "judged")
        y_true, pool_unjudged = _check_grades(y_true, judged)
    # Integer scores too are ranked as they are: exactly, even beyond 2**53.
    y_score = _exact_numbers(y_score, "y_score", keep_wide=True)
    if y_score.dtype.kind == "f" and np.isnan(y_score).any():
        i = int(np.flatnonzero(np.isnan(y_score))[0])
        raise ValueError(
            f"y_score must not contain NaN (infinite scores are allowed); got "
            f"{int(np.isnan(y_score).sum())} NaN value(s), the first at row {i}."
        )
    if sample_weight is not None:
        sample_weight = check_finite_nonnegative(_as_float(sample_weight, "sample_weight"),
                                                 "sample_weight")
    retrieved = _boolean_mask(retrieved, "retrieved")
    docno = None if docno is None else docno_order(docno)
    codes, uniques = factorize(qid, len(y_true))
    return RankingInput(y_true, y_score, codes, uniques, sample_weight, retrieved, judged,
                        pool_unjudged, docno)


def docno_order(docno):
    """trec_eval's tie-break as a sort key: per row, the place of its document name among
    the names sorted in decreasing order (0 for the largest).

    trec_eval ranks a query's documents by score, descending, then by document name,
    descending, compared byte by byte (``strcmp``). Names are compared as text: Python's
    order of strings is that of their UTF-8 bytes; numbers are written as text first
    (``10`` comes before ``9``, as the names ``"10"`` and ``"9"`` do in trec_eval).
    """
    if docno.dtype.kind in "SU":  # text, or bytes: compared as they are
        names = docno
    else:
        missing = [i for i, name in enumerate(docno.tolist())
                   if name is None or (isinstance(name, float) and name != name)]
        if missing:
            raise ValueError(
                f"docno must name every document; got {len(missing)} missing name(s) (None "
                f"or NaN), the first at row {missing[0]}."
            )
        names = np.array([name.decode("utf-8") if isinstance(name, bytes) else str(name)
                          for name in docno.tolist()], dtype=str)
    uniques, codes = np.unique(names, return_inverse=True)
    order = np.subtract(len(uniques) - 1, codes.reshape(-1), dtype=np.int64)
    return order.astype(code_dtype(len(uniques)), copy=False)


class GradeError(ValueError):
    """A relevance grade of ``y_true`` that the metrics refuse: NaN, infinite or negative.

    A :class:`ValueError`; its attributes let a caller, such as the command line, word the
    fix in its own terms: ``row``, the index in ``y_true`` of the first such grade, its
    ``value``, and ``count``, the number of such grades.
    """

    parameter = "y_true"

    def __init__(self, message, *, row=None, value=None, count=None):
        super().__init__(message)
        self.row = row
        self.value = value
        self.count = count

    def __reduce__(self):  # raised in a Dask worker, it crosses processes whole
        return type(self), (str(self),), self.__dict__


# public as sklearn_rank.metrics.GradeError: its tracebacks name it so
GradeError.__module__ = "sklearn_rank.metrics"


_NAN_HINT = ("If NaN marks documents without a judgement (a run merged with its qrels), pass "
             "judged='y_true'.")


def _check_grades(y_true, judged):
    """``y_true`` checked against a ``judged`` mask (or None): finite non-negative grades on
    judged rows, 0, NaN or a negative grade on the others (which become 0).

    Returns the grades and the pooled-but-unjudged mask (None when there is none). As with
    ``judged="y_true"``, a negative grade on an unjudged row is trec_eval's -1, a document
    in the judgement pool left unjudged, and NaN one outside the pool: so the ``judged``
    mask of :func:`~sklearn_rank.datasets.read_trec` gives what ``judged="y_true"`` gives.
    """
    pooled = None
    if y_true.dtype.kind in "iu":
        bad_value = y_true < 0 if y_true.dtype.kind == "i" else None
    else:
        bad_value = ~(y_true >= 0) | np.isinf(y_true)  # NaN, -inf, inf, negatives
    if judged is not None:
        if y_true.dtype.kind == "f":
            unjudged_nan = ~judged & np.isnan(y_true)
            if unjudged_nan.any():  # NaN is what an unjudged row may hold: grade 0
                y_true = np.where(unjudged_nan, 0.0, y_true)
                bad_value &= ~unjudged_nan
        if bad_value is not None:
            negative = ~judged & (y_true < 0) & (y_true > -np.inf)
            if negative.any():  # trec_eval's -1: in the pool, unjudged; grade 0
                y_true = np.where(negative, 0, y_true)
                bad_value &= ~negative
                pooled = negative
        graded = np.flatnonzero(~judged & (y_true != 0))
        if len(graded):
            i = int(graded[0])
            raise ValueError(
                f"judged=False marks a document without a judgement, but y_true gives "
                f"{len(graded)} such row(s) a grade, e.g. {y_true[i]} at row {i}. Give "
                "unjudged rows grade 0 (or NaN), or mark the rows that have a grade as judged."
            )
    if bad_value is not None and bad_value.any():
        i = int(np.flatnonzero(bad_value)[0])
        value = y_true[i]
        where = {"row": i, "value": value.item(), "count": int(bad_value.sum())}
        if value != value:
            raise GradeError(
                f"y_true must hold finite relevance labels; got "
                f"{int(np.isnan(y_true).sum())} NaN value(s), the first at row {i}. "
                + _NAN_HINT, **where
            )
        if value < 0 and np.isfinite(value):
            raise GradeError(
                f"y_true must hold non-negative relevance labels; got {value} at row {i}. "
                "Map judgements such as -1 to 0 first (non-relevant), or pass "
                "judged='y_true' to read negative grades as trec_eval reads its qrels' -1: a "
                "document in the judgement pool left unjudged.", **where
            )
        raise GradeError(
            f"y_true must hold finite relevance labels; got {int(bad_value.sum())} infinite "
            f"or invalid value(s), the first at row {i} ({value}).", **where
        )
    return y_true, pooled


def _judgements_of(y_true):
    """``judged="y_true"``: grades with 0 on unjudged rows, the judged mask (None when every
    row is judged) and the pooled-but-unjudged mask (None when there is none)."""
    if y_true.dtype.kind in "iu":
        negative = y_true < 0 if y_true.dtype.kind == "i" else np.zeros(len(y_true), bool)
        missing = np.zeros(len(y_true), dtype=bool)
    else:
        if np.isinf(y_true).any():
            i = int(np.flatnonzero(np.isinf(y_true))[0])
            raise GradeError(
                f"y_true must hold finite relevance labels or NaN (no judgement) with "
                f"judged='y_true'; got {y_true[i]} at row {i}.", row=i,
                value=y_true[i].item(), count=int(np.isinf(y_true).sum())
            )
        missing = np.isnan(y_true)
        negative = y_true < 0
    unjudged = missing | negative
    if not unjudged.any():
        return y_true, None, None
    grades = np.where(unjudged, 0, y_true)
    return grades, ~unjudged, (negative if negative.any() else None)


def _boolean_mask(mask, name):
    """A validated row mask (bool, or integers 0 and 1), None when it is None or all True:
    a mask that excludes nothing costs the metrics nothing."""
    if mask is None:
        return None
    if mask.dtype != bool:
        if mask.dtype.kind in "iu" and np.isin(mask, (0, 1)).all():
            mask = mask.astype(bool)
        else:
            raise TypeError(
                f"{name} must be a boolean mask; got dtype {mask.dtype}."
            )
    return None if mask.all() else mask


def at_least(labels, threshold):
    """``labels >= threshold``, exactly for every dtype of labels.

    numpy would compare integer labels with a float threshold in float64, where 2**60 - 1
    and 2**60 are equal: for integers, compare with the smallest integer at or above the
    threshold instead (numpy compares integers with Python integers exactly, in range or
    not). Likewise, an integer threshold beyond 2**53 is raised to the smallest float64 not
    below it for float labels.
    """
    if labels.dtype.kind in "iu":
        if math.isfinite(threshold):
            threshold = math.ceil(threshold)
    elif isinstance(threshold, Integral) and float(threshold) < threshold:
        threshold = np.nextafter(float(threshold), np.inf)
    return labels >= threshold


# --------------------------------------------------------------------------------------
# Sorting rows by query (codes from sklearn_rank.utils._qid.factorize)
# --------------------------------------------------------------------------------------


def stable_argsort_codes(codes, n_codes, relabel=None, *, in_runs=False):
    """Stable argsort of integer codes in ``[0, n_codes)``, in linear time or one SIMD sort.

    With ``relabel`` (an array of ``n_codes`` codes), sorts ``relabel[codes]`` without
    building it at full width. ``in_runs``: the codes come mostly in long stretches already
    in order (a file written query by query): the keys are sorted by numpy's stable sort
    (timsort), linear on such stretches, instead of its SIMD sort.

    numpy's stable sort of 16-bit integers is a radix sort: one pass. Wider codes are sorted
    as values, not indices: each row's key is ``code << b | row`` (``b`` bits hold a row
    number), distinct keys, so that an unstable sort is stable on the codes, and numpy sorts
    64-bit values with SIMD instructions several times faster than it argsorts them. The
    row numbers are the low bits of the sorted keys.
    """
    def sort_key(dtype, shift=0):
        if relabel is None:
            return codes.astype(dtype) << shift
        return (relabel.astype(dtype) << shift)[codes]

    if n_codes <= 1 << 16:
        return np.argsort(sort_key(np.uint16), kind="stable")
    shift = max(len(codes) - 1, 1).bit_length()
    if (n_codes - 1).bit_length() + shift > 63:
        return np.argsort(sort_key(np.int64), kind="stable")
    key = sort_key(np.int64, shift)
    key |= np.arange(len(codes), dtype=np.int64)
    key.sort(kind="stable" if in_runs else None)
    key &= (1 << shift) - 1
    return key.astype(np.intp, copy=False)


# Bits of score prefix, beyond log2 of the rows per query, below which the packed sort's
# colliding runs cost more to sort than all rows do (see _prefix_suffices). Floats: their
# leading 12 bits (sign and exponent) separate octaves, not the values within one.
_SPARE_BITS_FLOAT = 12
# Integers: the prefix holds the leading bits of their range, but values crowd in part of it.
_SPARE_BITS_INTEGER = 3
# More than one row in this many sharing its prefix with the previous row: one pass over
# the values to prove the prefix exact costs less than comparing the values of those pairs.
_MANY_PAIRS = 16


# Rows that the passes building and reading the sort keys take at once: 512 KiB of 64-bit
# integers, which stay in cache from one pass to the next, and no temporary array of n
# stacks on the keys.
_ROWS_AT_ONCE = 1 << 16


def _row_slices(n):
    """Consecutive slices of ``_ROWS_AT_ONCE`` rows (the last one shorter) covering ``n``."""
    return (slice(lo, min(lo + _ROWS_AT_ONCE, n)) for lo in range(0, n, _ROWS_AT_ONCE))


# Rows of one batch of the batched sort (see segment_argsort): 22 bits of row number leave
# the value prefix enough bits for queries of up to a few thousand rows.
_BATCH_ROWS = 1 << 22


def segment_argsort(values, codes, n_codes, *, relabel=None, secondary=None, prefix_bits=None,
                    batch_rows=None):
    """Rows grouped by code, each group by decreasing value: one sort of 64-bit integers.

    Returns ``(order, ties)``. ``order`` lists the rows of code 0 first (or, with
    ``relabel``, an array of ``n_codes`` distinct ranks, of the code ranked first), each
    code's rows by decreasing ``values``; equal values by increasing ``secondary`` if given,
    then by row. ``ties`` holds the positions ``p`` of ``order`` whose value equals that at
    ``p - 1`` in the same group.

    Each row becomes one key ``code | value prefix | row``: the code in the top bits, then
    the leading bits of an order-reversing integer image of its value (as many as the code
    and row numbers leave free), then its row number, which makes every key distinct. One
    SIMD sort of those keys orders the rows by code and value prefix, and by row within
    equal prefixes. Rows of one code whose prefixes are equal but whose values differ (rare
    with 30 or more bits of prefix) are put in order afterwards by an exact sort of those
    rows only. ``prefix_bits`` caps the prefix, so that tests exercise that step and
    benchmarks the sizes (beyond 1e8 rows) whose code and row numbers leave a short prefix.

    When the prefix is too short to tell a query's values apart (see
    :func:`_prefix_suffices`), those runs would hold most rows and their exact sort would
    cost several times a plain two-key sort: the rows are then sorted by
    :func:`_lexsort_segments` instead, with the same result.

    Beyond :data:`_BATCH_ROWS` rows (100M rows in a million queries, say), the code and row
    numbers can leave too short a prefix: the rows are then grouped by code first (one
    sort of the codes), and the groups sorted by batches of whole groups of at most
    :data:`_BATCH_ROWS` rows, each by its own packed key, whose code and row numbers are
    the batch's (fewer bits). ``batch_rows`` forces batches of that many rows (for tests).

    ``values`` and ``secondary`` are float or integer arrays without NaN. A ``uint8``
    ``secondary`` takes 8 bits of the key, just above the row, so that ties need no second
    sort; any other is applied by the exact sort of the tied rows.
    """
    if batch_rows is not None and len(values) > batch_rows:
        return _batched_segment_argsort(values, codes, n_codes, relabel, secondary,
                                        prefix_bits, batch_rows)
    return _packed_segment_argsort(values, codes, n_codes, relabel, secondary, prefix_bits,
                                   batch=True)


def _packed_segment_argsort(values, codes, n_codes, relabel, secondary, prefix_bits, batch):
    """:func:`segment_argsort` by one packed key; by batches (``batch=True``) or
    :func:`_lexsort_segments` when the key leaves too short a prefix."""
    n = len(values)
    row_bits = max(n - 1, 1).bit_length()
    code_bits = max(n_codes - 1, 1).bit_length()
    bits = 64 - row_bits - code_bits
    packed = secondary is not None and secondary.dtype == np.uint8 and bits >= 8
    low_bits = row_bits + 8 if packed else row_bits  # below the value prefix
    bits -= low_bits - row_bits
    if prefix_bits is not None:
        bits = min(bits, prefix_bits)
    # bits < 0: beyond 2**32 rows, no room for the packed key
    if bits < 0 or not _prefix_suffices(values, bits, n / max(n_codes, 1)):
        if batch and n > _BATCH_ROWS and n_codes > 1:
            return _batched_segment_argsort(values, codes, n_codes, relabel, secondary,
                                            prefix_bits, _BATCH_ROWS)
        return _lexsort_segments(values, codes if relabel is None else relabel[codes],
                                 secondary, n_codes)
    # built in place, a slice of rows at a time: the keys are the one array of n alive
    exact = None  # whether equal prefixes mean equal values, when known from the image
    if values.dtype.kind in "iu":
        key, exact = _descending_integer_prefix(values, bits)
    else:
        key = _descending_prefix(values, bits) if bits else np.zeros(n, dtype=np.uint64)
    table = None if relabel is None else relabel.astype(np.uint64)
    for rows in _row_slices(n):
        part = key[rows]
        if packed:
            part <<= np.uint64(8)
            part |= secondary[rows]
        part <<= np.uint64(row_bits)
        part |= np.arange(rows.start, rows.stop, dtype=np.uint64)
        code = codes[rows].astype(np.uint64) if table is None else table[codes[rows]]
        code <<= np.uint64(bits + low_bits)
        part |= code
    key.sort()
    # positions whose key differs from the previous one below the value prefix only: same
    # code, same value prefix, so the only places where rows can be tied or out of order
    found = [np.zeros(0, dtype=np.intp)]
    for rows in _row_slices(n - 1):
        same = np.bitwise_xor(key[rows.start + 1 : rows.stop + 1], key[rows])
        found.append(np.flatnonzero(same < np.uint64(1 << low_bits)) + (rows.start + 1))
    pairs = np.concatenate(found)
    del found
    key &= np.uint64((1 << row_bits) - 1)
    order = key.view(np.int64).astype(np.intp, copy=False)
    if not len(pairs):
        return order, pairs
    if exact and (secondary is None or packed):
        return order, pairs  # equal prefixes are equal values: true ties, in order
    if (exact is None and len(pairs) > n // _MANY_PAIRS and (secondary is None or packed)
            and _prefix_is_exact(values, bits)):
        return order, pairs  # many ties (labels, say), and equal prefixes mean equal values
    return order, _order_within_prefixes(order, pairs, values, secondary, packed)


def _prefix_suffices(values, bits, mean_size):
    """Whether a ``bits``-bit prefix of the values sorts queries of ``mean_size`` rows with
    few collisions, or is exact (equal prefixes, equal values).

    A query's ``m`` values are told apart by about ``log2(m)`` bits of their spread; the
    prefix must hold :data:`_SPARE_BITS_FLOAT` (12) or :data:`_SPARE_BITS_INTEGER` (3) bits
    more. Measured on 2M rows with normal, distinct (ranks) or 100 distinct scores, in
    queries of 100, 1000 and 10k rows: the packed sort takes 0.03-0.1 s at full prefix, as
    long as the exact sort (0.25-0.5 s) within about a bit of this threshold, and 0.9-2 s at
    16 bits (the cliff), while the exact sort does not depend on the prefix.
    """
    is_float = values.dtype.kind == "f"
    spare = _SPARE_BITS_FLOAT if is_float else _SPARE_BITS_INTEGER
    if bits >= math.log2(max(mean_size, 1.0)) + spare:
        return True
    if is_float:  # grades such as 0.5 or 3.0: the prefix may still hold the whole value
        return _prefix_is_exact(values, bits)
    return not len(values) or (int(values.max()) - int(values.min())).bit_length() <= bits


def _descending_prefix(values, bits):
    """The leading ``bits`` bits of an unsigned integer image of ``values`` whose order is
    the reverse of the values' order (IEEE 754 bit patterns, made monotone)."""
    image = np.add(values, 0.0, dtype=np.float64).view(np.int64)  # -0.0 + 0.0 is +0.0
    for rows in _row_slices(len(image)):
        part = image[rows]
        # non-negative values: flip all bits but the sign (larger values, smaller images);
        # negative values: keep their bits (sign set, and larger magnitudes, larger images)
        flip = part >> 63
        np.invert(flip, out=flip)
        flip &= np.int64(np.iinfo(np.int64).max)
        part ^= flip
        part = part.view(np.uint64)
        part >>= np.uint64(64 - bits)
    return image.view(np.uint64)


def _descending_integer_prefix(values, bits):
    """:func:`_descending_prefix` for integers, exact: ``max - value`` in 64 bits (no
    float64 rounding), its leading ``bits`` bits from the highest bit that the range of
    values uses. Integers spanning fewer than ``2**bits`` values (ranks, counts, days) have
    an exact prefix; wider ones, such as nanosecond timestamps, still keep ``bits`` bits of
    their spread, not those of their common magnitude.

    Returns the prefixes and whether equal prefixes mean equal values.
    """
    if not len(values):  # no row retrieved
        return np.zeros(0, dtype=np.uint64), True
    lo, hi = int(values.min()), int(values.max())
    width = (hi - lo).bit_length()
    if not bits:
        return np.zeros(len(values), dtype=np.uint64), width == 0
    # max - value, modulo 2**64: exact, since it lies in [0, 2**64)
    wide = values.view(np.uint64) if values.dtype.itemsize == 8 else values.astype(np.uint64)
    image = np.subtract(np.uint64(hi % (1 << 64)), wide, dtype=np.uint64)
    if width > bits:
        image >>= np.uint64(width - bits)
    return image, width <= bits


def _prefix_is_exact(values, bits):
    """Whether values with equal ``bits``-bit prefixes (see :func:`_descending_prefix`) are
    always equal: true when every value's float64 image ends in zero bits beyond the prefix,
    as grades such as 0.5 or 3.0 do. (Integers have an image of their own.)"""
    if values.dtype.kind != "f" or values.dtype.itemsize > 8:
        return False
    image = np.add(values, 0.0, dtype=np.float64).view(np.int64)
    image &= np.int64((1 << (64 - bits)) - 1) if bits else np.int64(-1)
    return not image.any()


def _order_within_prefixes(order, pairs, values, secondary, packed=False):
    """Put in exact order the runs of rows that share code and value prefix (in place).

    ``pairs`` are the positions whose row shares its prefix with the one before it. Runs
    whose values are all equal (true ties) and, with ``secondary``, whose secondary values
    are all equal too or were ``packed`` in the key, are already in order; the others are
    sorted exactly. Returns the positions tied with the previous one.
    """
    later, earlier = order[pairs], order[pairs - 1]
    unsorted = values[later] != values[earlier]
    if secondary is not None and not packed:
        unsorted |= secondary[later] != secondary[earlier]
    if unsorted.any():
        # a run is a maximal chain of consecutive pair positions, from pairs[i] - 1 on
        new_run = np.ones(len(pairs), dtype=bool)
        np.not_equal(pairs[1:], pairs[:-1] + 1, out=new_run[1:])
        run = np.cumsum(new_run) - 1
        first = pairs[new_run] - 1
        size = np.diff(np.append(np.flatnonzero(new_run), len(pairs))) + 1
        todo = np.unique(run[unsorted])
        member, offset = _expand_runs(size[todo])
        positions = first[todo][member] + offset
        rows = order[positions]
        keys = [rows, _negated(values[rows]), member]
        if secondary is not None:
            keys.insert(1, secondary[rows])
        order[positions] = rows[np.lexsort(keys)]
        later, earlier = order[pairs], order[pairs - 1]
    return pairs[values[later] == values[earlier]]


def _negated(values):
    """An order-reversing image of ``values``, exact for every numeric dtype: ``-values``
    for floats, ``~values`` for integers (``-1 - x``: no overflow at int64's minimum, and
    unsigned values need no signed cast, which wraps from 2**63 on)."""
    return np.invert(values) if values.dtype.kind in "biu" else -values


def _expand_runs(size):
    """For runs of the given sizes: the run of each member, and its offset in the run."""
    member = np.repeat(np.arange(len(size)), size)
    offset = np.arange(len(member)) - np.repeat(np.cumsum(size) - size, size)
    return member, offset


def _batched_segment_argsort(values, codes, n_codes, relabel, secondary, prefix_bits,
                             batch_rows):
    """:func:`segment_argsort` by batches of whole groups of at most ``batch_rows`` rows
    (one group of more rows is a batch of its own), each sorted by a packed key of its own.

    The groups, in the order of ``relabel``, are cut into consecutive batches; the rows go
    to their batch by a stable radix sort of their batch numbers (a few hundred at most),
    which keeps the input order within a batch, as the batch's row numbers then say.
    """
    code_order = np.arange(n_codes) if relabel is None else np.argsort(relabel, kind="stable")
    rank = np.empty(n_codes, dtype=np.intp)  # a code's place in the group order
    rank[code_order] = np.arange(n_codes)
    ends = np.cumsum(np.bincount(codes, minlength=n_codes)[code_order])
    firsts = [0]  # the first group of each batch, in group order: the whole groups that fit
    while firsts[-1] < n_codes:
        done = int(ends[firsts[-1] - 1]) if firsts[-1] else 0
        firsts.append(max(int(np.searchsorted(ends, done + batch_rows, side="right")),
                          firsts[-1] + 1))
    firsts = np.array(firsts)
    # 16-bit batch numbers (a radix sort) whenever they fit: always, but for tiny batches
    width = np.uint16 if len(firsts) <= 1 << 16 else np.intp
    batch_of_group = np.repeat(np.arange(len(firsts) - 1, dtype=width), np.diff(firsts))
    row_batch = batch_of_group[rank][codes]
    order = np.argsort(row_batch, kind="stable")  # the rows by batch, then ranked in place
    del row_batch
    ties = [np.zeros(0, dtype=np.intp)]
    for first, last in zip(firsts[:-1].tolist(), firsts[1:].tolist()):
        start = int(ends[first - 1]) if first else 0
        stop = int(ends[last - 1])
        if stop == start:  # groups without rows
            continue
        rows = order[start:stop]
        local = rank[codes[rows]]
        local -= first
        part, tied = _packed_segment_argsort(
            values[rows], local, last - first, None,
            None if secondary is None else secondary[rows], prefix_bits, batch=False)
        rows[:] = rows[part]  # the batch's slice of order, ranked
        ties.append(tied + start)
    return order, np.concatenate(ties)


def _lexsort_segments(values, segments, secondary, n_segments=None):
    """:func:`segment_argsort` by an exact lexicographic sort (any size, slower).

    One stable sort per key, from the last key to the first (``secondary``, then decreasing
    values, then ``segments`` in ``[0, n_segments)``): the order of ``np.lexsort``, in about
    60% of its time, since the segments take a radix sort.
    """
    if n_segments is None:
        n_segments = int(segments.max()) + 1 if len(segments) else 0
    if secondary is None:
        order = np.argsort(_negated(values), kind="stable")
    else:
        order = np.argsort(secondary, kind="stable")
        order = order[np.argsort(_negated(values[order]), kind="stable")]
    order = order[stable_argsort_codes(segments[order], n_segments)]
    seg, val = segments[order], values[order]
    return order, np.flatnonzero((seg[1:] == seg[:-1]) & (val[1:] == val[:-1])) + 1


# --------------------------------------------------------------------------------------
# Groups laid out as padded 2-D buckets
# --------------------------------------------------------------------------------------


class Buckets:
    """Segments of a flat array, grouped by length into 2-D blocks.

    The segments (the rows of one query, or the documents of one tie block) of one length
    form one block, so that a per-segment sort or cumulative product is one numpy call along
    ``axis=1`` per block, whatever the number of segments. A block is a plain reshape of the
    flat array when its segments are contiguous, as the rows of queries are in a
    :class:`Grouping`, and a gather otherwise.

    With ``pad=True``, lengths shared by too few segments to pay for a block of their own
    (fewer than ``_MIN_CELLS`` cells) share a padded block with the other rare lengths of
    their width class (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20...: four steps an octave, so
    at most a quarter of it is padding). Long-tailed length distributions then cost a few
    dozen blocks, not one per distinct length.

    Each block is ``(segments, width, index, valid)``: ``index`` is a slice of the flat array
    or a ``(n_segments, width)`` matrix of flat positions (padding points one past the end,
    where the methods put a sentinel), and ``valid`` is None or the mask of real cells.
    """

    # A block of fewer cells costs more in per-call numpy overhead than its padding saves.
    _MIN_CELLS = 256

    def __init__(self, sizes, starts, pad=True, by_length=None):
        """``by_length``, if known, is the segments in order of increasing size."""
        self.n = int(sizes.sum())
        self.n_segments = len(sizes)
        if by_length is None:
            by_length = sizes_ascending(sizes)
        by_length = by_length[sizes[by_length] > 0]
        lengths = sizes[by_length]
        cuts = np.flatnonzero(np.diff(lengths)) + 1
        self.blocks = []
        rare = []
        for seg in np.split(by_length, cuts) if len(by_length) else ():
            width = int(sizes[seg[0]])
            if pad and len(seg) * width < self._MIN_CELLS:
                rare.append(seg)
                continue
            first = starts[seg]
            if len(seg) == 1 or (np.diff(first) == width).all():
                index = slice(int(first[0]), int(first[0]) + len(seg) * width)
            else:
                index = first[:, None] + np.arange(width)
            self.blocks.append((seg, width, index, None))
        if rare:
            seg = np.concatenate(rare)
            size = sizes[seg]
            octave = np.floor(np.log2(np.maximum(size - 1, 1))).astype(np.int64)
            step = np.left_shift(1, np.maximum(octave - 2, 0))
            width = -(-size // step) * step
            for w in np.unique(width):
                members = seg[width == w]
                cols = np.arange(w)
                valid = cols < sizes[members, None]
                index = np.where(valid, starts[members, None] + cols, self.n)
                self.blocks.append((members, int(w), index, valid))
        self.padded = bool(rare)

    @staticmethod
    def view(x, width, index):
        """The values of an unpadded block as a 2-D array (a view when contiguous)."""
        if isinstance(index, slice):
            return x[index].reshape(-1, width)
        return x[index]

    def _source(self, x, fill):
        """``x`` with the padding sentinel appended, when some block is padded."""
        return np.append(x, fill) if self.padded else x

    def cumprod_exclusive(self, x, depth=None):
        """Product of the values before each position, within its segment.

        With ``depth``, only the first ``depth`` positions of each segment are computed;
        the others are set to 0.
        """
        out = np.zeros(len(x), dtype=np.float64)
        for _, width, index, valid in self.blocks:
            d = width if depth is None else min(width, depth)
            # padding trails the real cells of a row, so its value (clipped to the last
            # element) never enters a real cell's product: no copy with a sentinel needed
            values = self.view(x, width, index) if valid is None else x.take(index, mode="clip")
            contiguous = isinstance(index, slice)
            if contiguous:  # write in place
                prod = out[index].reshape(-1, width)[:, :d]
                prod[:, 0] = 1.0
            else:
                prod = np.ones((values.shape[0], d))
            if d <= 16 and len(values) >= 64 * d:
                # column by column: numpy's cumprod along a short axis 1 pays per row
                for j in range(1, d):
                    np.multiply(prod[:, j - 1], values[:, j - 1], out=prod[:, j])
            else:
                np.cumprod(values[:, : d - 1], axis=1, out=prod[:, 1:])
            if valid is not None:
                keep = valid[:, :d]
                out[index[:, :d][keep]] = prod[keep]
            elif not contiguous:
                out[index[:, :d]] = prod
        return out

    def scan(self, x, running, fill):
        """``running`` (a running operation along axis 1, e.g. a cumulative sum) within
        each segment, laid out as ``x``; ``fill`` pads the short rows of padded blocks and
        must not change the real cells' results (it trails them)."""
        out = np.empty(len(x), dtype=np.float64)
        source = self._source(x, fill)
        for _, width, index, valid in self.blocks:
            result = running(self.view(source, width, index))
            if valid is not None:
                out[index[valid]] = result[valid]
            elif isinstance(index, slice):
                out[index] = result.ravel()
            else:
                out[index] = result
        return out

    def prod(self, x):
        """Product of the values of each segment (1 for an empty segment)."""
        out = np.ones(self.n_segments, dtype=np.float64)
        source = self._source(x, 1.0)
        for seg, width, index, _ in self.blocks:
            out[seg] = np.prod(self.view(source, width, index), axis=1)
        return out


def sizes_ascending(sizes):
    """Stable order of segments by increasing size (a radix sort for the usual sizes)."""
    if not len(sizes):
        return np.zeros(0, dtype=np.intp)
    return stable_argsort_codes(sizes, int(sizes.max()) + 1)


def segment_sum(index, values, n):
    """``np.bincount`` with weights, always float (numpy gives int64 for empty input)."""
    return np.bincount(index, values, n).astype(np.float64, copy=False)


def segment_sums_in_order(x, starts):
    """Per segment of ``x`` (contiguous, beginning at ``starts``), the sum of its values
    added one at a time from the first, as the loops of C add them (trec_eval's, LightGBM's).

    ``np.add.reduceat`` and ``sum`` add pairwise, and the first value last: exact halves at
    the 4th decimal then round the other way than trec_eval's (relevant documents at ranks
    2, 8, 16 and 25 of 10: AP 0.10975, printed 0.1097 by trec_eval, 0.1098 pairwise).
    Segments of one size at a time, as the rows of a 2-D array whose ``cumsum`` along the
    rows adds in order: a loop over the distinct sizes, not over the segments.
    """
    sizes = np.diff(starts, append=len(x))
    out = np.zeros(len(starts))
    by_size = sizes_ascending(sizes)
    ordered = sizes[by_size]
    bounds = np.flatnonzero(np.diff(ordered, prepend=-1)).tolist() + [len(by_size)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        size, which = int(ordered[a]), by_size[a:b]
        if size == 1:
            out[which] = x[starts[which]]
        elif size > 1:
            rows = x[starts[which][:, None] + np.arange(size)]
            out[which] = np.cumsum(rows, axis=1, dtype=np.float64)[:, -1]
    out += 0.0  # a sum from C's 0.0 is never -0.0
    return out


def sum_in_order(values):
    """The sum of ``values`` added one at a time from the first (see
    :func:`segment_sums_in_order`); 0.0 for none."""
    return float(np.cumsum(values, dtype=np.float64)[-1]) + 0.0 if len(values) else 0.0


def segment_starts(sizes):
    starts = np.zeros(len(sizes), dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    return starts


# --------------------------------------------------------------------------------------
# The validated input, and what is derived from it once
# --------------------------------------------------------------------------------------


# The per-query grade counts (n_queries x n_grades cells) replace sorts of the labels while
# they hold at most two cells per row: more (many queries, each with few of many grades)
# and reading them costs more than the sort of the labels that they save...
_LEVEL_CELLS_PER_ROW = 2
# ...or at most this many cells, whatever the rows: small inputs, where both are instant.
_LEVEL_CELLS_FREE = 1024
# Rows whose bincount keys are built at once: 512 KiB of intp, which stays in cache.
_LEVEL_ROWS_AT_ONCE = 1 << 16


def query_weight(codes, sample_weight, sizes, *, return_unit=False):
    """Weight of each query: the mean of its rows' weights (LightGBM's rule).

    ``codes`` is the query code of each row (``0..len(sizes) - 1``), ``sizes`` the rows per
    query. Only ratios of weights matter, so weights whose sums overflow float64 (near 1e308)
    or lose precision (subnormal) are summed scaled to at most 1: divided by their maximum,
    which is then the unit of the result (``return_unit=True`` returns it too; 1.0 when the
    sums were not scaled).
    """
    total, unit = segment_sum(codes, sample_weight, len(sizes)), 1.0
    if len(total) and not _well_scaled(total.max()):
        unit = float(sample_weight.max())
        total = segment_sum(codes, sample_weight / unit, len(sizes))
    weight = total / sizes
    return (weight, unit) if return_unit else weight


class RankingInput:
    """Validated flat arrays of one metric call, with everything derived from them cached."""

    def __init__(self, y_true, y_score, codes, query_ids, sample_weight, retrieved,
                 judged=None, pool_unjudged=None, docno_order=None):
        self.y_true = y_true
        self.y_score = y_score
        self.codes = codes
        self.query_ids = query_ids
        self.n_queries = len(query_ids)
        self.sample_weight = sample_weight
        self.retrieved = retrieved
        # which rows are judged (a document with a judgement, grade >= 0), None when all
        # are; unjudged rows have grade 0 in y_true
        self.judged_mask = judged
        # unjudged rows in the judgement pool (trec_eval's qrels -1: RELVALUE_UNJUDGED),
        # None when there is none; the other unjudged rows are outside the pool (NONPOOL)
        self.pool_unjudged = pool_unjudged
        # the tie-break of ties="stable" when the documents are named (docno_order), None
        # when they are not: row order then
        self.docno_order = docno_order
        self._cache = {}

    @cached
    def condensed(self):
        """This input with its unjudged rows taken out of the ranking (``retrieved`` is
        False there): Sakai's condensed lists, trec_eval's ``-J``. Self when all are
        judged."""
        if self.judged_mask is None:
            return self
        retrieved = (self.judged_mask if self.retrieved is None
                     else self.retrieved & self.judged_mask)
        return RankingInput(self.y_true, self.y_score, self.codes, self.query_ids,
                            self.sample_weight, retrieved, self.judged_mask, self.pool_unjudged,
                            self.docno_order)

    @cached_property
    def _weight_and_unit(self):
        if self.sample_weight is None:
            return None, 1.0
        return query_weight(self.codes, self.sample_weight, self.all_rows.sizes,
                            return_unit=True)

    @property
    def query_weight(self):
        """Mean of the rows' weights of each query (LightGBM's rule), or None; in units of
        :attr:`weight_unit`."""
        return self._weight_and_unit[0]

    @property
    def weight_unit(self):
        """``query_weight * weight_unit`` is the mean row weight: 1.0 unless the weights were
        so large or small that their sums were taken scaled (see :func:`query_weight`)."""
        return self._weight_and_unit[1]

    @cached_property
    def all_rows(self):
        """All rows (retrieved or not, judged or not) grouped by query."""
        return Grouping(self)

    @cached_property
    def ranked_rows(self):
        """The rows that take part in the ranking, grouped by query."""
        if self.retrieved is None:
            return self.all_rows
        return Grouping(self, np.flatnonzero(self.retrieved))

    @cached
    def n_relevant(self, threshold):
        """Number of rows (retrieved or not) with ``y_true >= threshold``, per query."""
        if self._levels is not None:  # from the grade counts: no pass over the rows
            grades, counts = self._levels
            relevant = np.zeros(self.n_queries)
            for column in counts.T[grades >= threshold]:  # a few columns, not n rows
                relevant += column
            return relevant
        rel = at_least(self.y_true, threshold).astype(np.float64)
        return segment_sum(self.codes, rel, self.n_queries)

    @cached
    def max_label(self):
        """Largest label of each query."""
        if self._levels is not None:
            grades, counts = self._levels
            return grades[np.argmax(counts > 0, axis=1)]
        return self.all_rows.segment_max(self.all_rows.label)

    @cached_property
    def top_label(self):
        """The largest label of all rows."""
        return self.y_true.max()

    @cached_property
    def grades(self):
        """``y_true`` as 8-bit integers when it holds integer grades below 256, else None.

        Gathers of one byte per row stay in cache where those of eight do not.
        """
        if self.top_label >= 256:
            return None
        grades = self.y_true.astype(np.uint8)
        if self.y_true.dtype.kind in "iu":  # non-negative integers below 256: exact
            return grades
        return grades if (grades == self.y_true).all() else None

    @cached_property
    def _levels(self):
        """Per-query counts of each grade, for small integer grades; else None.

        Returns the grades in decreasing order and a (n_queries, n_grades) count matrix,
        from which any sum over the ideal ordering follows without sorting.
        """
        grade = self.grades
        if grade is None:
            return None
        n_levels = int(self.top_label) + 1
        if self.n_queries * n_levels > _LEVEL_CELLS_PER_ROW * len(self.y_true) + _LEVEL_CELLS_FREE:
            return None
        n_cells = self.n_queries * n_levels
        # bincount reads intp keys: built a slice of rows at a time, so that the key is
        # never an array of n (it would stack on the ranking's arrays). A slice holds at
        # least as many rows as there are cells, so adding up the counts costs at most a
        # pass over the rows.
        step = max(_LEVEL_ROWS_AT_ONCE, n_cells)
        counts = np.zeros(n_cells, dtype=np.intp)
        for lo in range(0, len(grade), step):
            key = self.codes[lo : lo + step].astype(np.intp)
            key *= n_levels
            key += n_levels - 1
            key -= grade[lo : lo + step]
            counts += np.bincount(key, minlength=n_cells)
        counts = counts.astype(code_dtype(len(self.y_true)), copy=False)  # counts <= n
        return np.arange(n_levels - 1, -1, -1, dtype=np.float64), counts.reshape(-1, n_levels)

    @cached_property
    def _ideal_sorted(self):
        group = self.all_rows
        order, _ = group.rank_by(self.y_true)
        return self.y_true[order], group.position, group.query

    def labels_at(self, rows):
        """``y_true[rows]``, gathered from the 8-bit :attr:`grades` when they exist."""
        if self.grades is None:
            return self.y_true[rows]
        return self.grades[rows].astype(np.float64)

    def ideal_sum(self, value, weight, k):
        """Per query: sum over the top ``k`` positions of the ideal ordering (all rows
        by decreasing grade) of ``value(grade) * weight(position)``.

        ``value`` and ``weight`` are vectorised functions of grades and 0-based positions.
        """
        depth = int(self.all_rows.sizes.max())
        depth = depth if k is None else min(depth, k)
        if self._levels is not None:
            grades, counts = self._levels
            table = np.zeros(depth + 1)
            np.cumsum(weight(np.arange(depth)), out=table[1:])
            # grade by grade (a handful), each a vector over queries: numpy's cumsum along a
            # short axis 1 costs far more per query
            total = np.zeros(self.n_queries)
            before = np.zeros(self.n_queries, dtype=counts.dtype)
            for grade_value, column in zip(value(grades), counts.T, strict=True):
                if grade_value == 0:
                    before += column
                    continue
                start = table[np.minimum(before, depth)]
                before += column
                total += (table[np.minimum(before, depth)] - start) * grade_value
            return total
        labels, position, query = self._ideal_sorted
        keep = position < depth
        return segment_sum(query[keep], value(labels[keep]) * weight(position[keep]),
                           self.n_queries)

    @cached
    def ranking(self, ties):
        """The ranked lists under one tie convention."""
        return Ranking(self, ties)

    def apply_no_relevant(self, values, undefined, no_relevant, *, metric,
                          undefined_reason="that have no relevant document"):
        """The per-query ``values`` with the no-relevant policy applied to the queries of
        ``undefined`` (a mask, or None): ``no_relevant`` (a float; NaN skips them) replaces
        their values, or ``"raise"`` raises. A value that is not finite elsewhere raises.

        ``undefined_reason`` completes "queries ..." in the messages: why the metric is
        undefined on the queries of ``undefined``.
        """
        values = np.asarray(values, dtype=np.float64)
        broken = ~np.isfinite(values)
        if undefined is not None:
            broken &= ~undefined
        if broken.any():
            self._raise_not_finite(values, broken, metric)
        if undefined is not None and undefined.any():
            if isinstance(no_relevant, str):  # "raise"
                bad = self.query_ids[np.flatnonzero(undefined)[:5]]
                raise ValueError(
                    f"{metric} is undefined for {int(undefined.sum())} of "
                    f"{self.n_queries} queries {undefined_reason} "
                    f"(e.g. qid {', '.join(map(str, bad))}), and no_relevant='raise'. "
                    "Pass no_relevant=0.0, 1.0 or np.nan (skip such queries) to score them."
                )
            values = values.copy()
            values[undefined] = no_relevant
        return values

    def _raise_not_finite(self, values, broken, metric):
        bad = np.flatnonzero(broken)
        ids = ", ".join(map(str, self.query_ids[bad[:5]]))
        raise ValueError(
            f"{metric} is not a finite number for {len(bad)} of {self.n_queries} queries "
            f"(e.g. qid {ids}: {values[bad[0]]}): a sum of gains overflowed float64, with "
            f"grades up to {self.top_label} in y_true. Rescale y_true (e.g. divide it by "
            "its maximum) or, with gain='exponential', use gain='linear'."
        )


def _well_scaled(total):
    """Whether a sum of weights is finite and far from float64's subnormal numbers (weights
    of 1e-320 keep a few bits of precision, and their products with values none)."""
    return total <= 0 or 2.0**-900 < total < np.inf


class Grouping:
    """Rows grouped by query, queries laid out by increasing number of rows.

    The layout puts queries of equal length next to each other, so that per-query
    cumulative products run on plain reshapes (see :class:`Buckets`). Nothing of size n is
    built here: :meth:`rank_by` orders the rows of every query by some value (one sort, for
    the rankings), and :attr:`order` lists each query's rows in input order (one radix sort,
    built only for the pairwise statistics, which read :attr:`label` and :attr:`score`).

    Attributes: ``codes`` (query code of each row of the grouping), ``sizes`` and ``starts``
    per query code, ``layout`` (the codes in laid-out order, that is by increasing size) and
    ``layout_position`` (the inverse: the place of each code in the layout), ``query`` and
    ``position`` per laid-out row.
    """

    def __init__(self, data, rows=None):
        self.data = data
        self.rows = rows
        self.codes = data.codes if rows is None else data.codes[rows]
        n_queries = data.n_queries
        self.n = len(self.codes)
        self.sizes = np.bincount(self.codes, minlength=n_queries)
        self.layout = sizes_ascending(self.sizes)
        self.layout_position = np.empty(n_queries, dtype=np.intp)
        self.layout_position[self.layout] = np.arange(n_queries)
        self.layout_sizes = self.sizes[self.layout]
        self.layout_starts = segment_starts(self.layout_sizes)
        self.starts = self.layout_starts[self.layout_position]

    def values(self, x):
        """``x`` (one entry per input row) restricted to the rows of the grouping."""
        return x if self.rows is None else x[self.rows]

    def rank_by(self, values, secondary=None):
        """Every query's rows by decreasing ``values`` (see :func:`segment_argsort`).

        ``values`` and ``secondary`` have one entry per row of the grouping. Returns the
        laid-out order (indices into those rows) and the positions tied with the previous one.
        """
        return segment_argsort(values, self.codes, len(self.sizes),
                               relabel=self.layout_position, secondary=secondary)

    @cached_property
    def order(self):
        """Original row index of each laid-out row, each query's rows in input order."""
        moved = stable_argsort_codes(self.codes, len(self.sizes), relabel=self.layout_position)
        return moved if self.rows is None else self.rows[moved]

    @cached_property
    def label(self):
        """``y_true`` laid out."""
        return self.data.y_true[self.order]

    @property
    def score(self):
        """``y_score`` laid out (not kept)."""
        return self.data.y_score[self.order]

    @cached_property
    def buckets(self):
        return Buckets(self.sizes, self.starts, by_length=self.layout)

    @cached_property
    def query(self):
        return np.repeat(self.layout.astype(code_dtype(len(self.sizes))), self.layout_sizes)

    @cached_property
    def position(self):
        """0-based position of each laid-out row within its query."""
        # ones, with each query's first row set back by the length of the one before, summed
        # in place: no second array of n (32-bit where it fits)
        position = np.ones(self.n, dtype=code_dtype(self.n))
        if self.n:
            sizes = self.layout_sizes[self.layout_sizes > 0]
            starts = self.layout_starts[self.layout_sizes > 0]
            position[starts[1:]] = (1 - sizes[:-1]).astype(position.dtype)  # wraps if unsigned
            position[0] = 0
            np.cumsum(position, out=position)
        return position

    def segment_max(self, values):
        """Largest value of each query (0 for a query without rows)."""
        out = np.zeros(len(self.sizes))
        nonempty = self.layout_sizes > 0
        if nonempty.any():
            out[self.layout[nonempty]] = np.maximum.reduceat(values, self.layout_starts[nonempty])
        return out


class Ranking:
    """The ranked list of every query under one tie convention.

    Attributes are flat arrays over the ranked rows, in ranked order (queries in the
    :class:`Grouping`'s layout, documents by decreasing score): ``query``, ``position``
    (0-based) and ``label``. Tie blocks: with ``ties="average"``, one block per run of equal
    scores within a query; otherwise one block per document. Per block, computed on first
    use: ``block`` (the block of each row), ``block_start`` (position of its first
    document), ``block_size``, ``block_query``, ``block_first`` (flat index of its first row).
    """

    def __init__(self, data, ties):
        self.data = data
        self.ties = ties
        group = data.ranked_rows
        self.n_queries = data.n_queries
        self.sizes = group.sizes
        self.starts = group.starts
        self._group = group
        secondary = None
        if ties in ("optimistic", "pessimistic"):
            # more relevant first (a smaller secondary key) or last; bytes when possible
            label = group.values(data.y_true if data.grades is None else data.grades)
            if ties == "pessimistic":
                secondary = label
            elif data.grades is None:
                secondary = _negated(label)
            else:
                secondary = np.subtract(255, label, dtype=np.uint8)
        elif ties == "stable" and data.docno_order is not None:
            secondary = group.values(data.docno_order)  # by document name, descending
        order, tied = group.rank_by(group.values(data.y_score), secondary)
        rows = order if group.rows is None else group.rows[order]
        del order
        # the queries whose value can depend on the row order: row-order ties (no document
        # names) between documents that a metric tells apart (grade or judgement)
        self.row_order_queries = np.zeros(0, dtype=np.intp)
        if ties == "stable" and data.docno_order is None and len(tied):
            differ = data.y_true[rows[tied]] != data.y_true[rows[tied - 1]]
            for mask in (data.judged_mask, data.pool_unjudged):
                if mask is not None:
                    differ |= mask[rows[tied]] != mask[rows[tied - 1]]
            self.row_order_queries = np.unique(data.codes[rows[tied[differ]]])
        self.grades = None if data.grades is None else data.grades[rows]
        self._y_true = data.y_true[rows] if self.grades is None else None
        # per ranked row, whether it is judged and whether it is in the pool but unjudged
        # (trec_eval's -1): None when every row is judged, or none is pooled-but-unjudged
        self.judged = None if data.judged_mask is None else data.judged_mask[rows]
        self.pool_unjudged = None if data.pool_unjudged is None else data.pool_unjudged[rows]
        del rows
        # after the order is gone, so that its array of n and these do not stack
        self.position = group.position
        self.has_ties = ties == "average" and len(tied) > 0
        if self.has_ties:
            self._new_block = np.ones(len(self.position), dtype=bool)
            self._new_block[tied] = False

    @property
    def query(self):
        """Query code of each ranked row (built on first read: the metrics that only sum
        per query, or read :meth:`relevant`, never need this array of n)."""
        return self._group.query

    @cached_property
    def label(self):
        """Label of each ranked row: ``y_true``'s, or with 8-bit :attr:`grades`, those as
        floats (built on first read: the metrics that read the grades never need it)."""
        return self._y_true if self.grades is None else self.grades.astype(np.float64)

    def map_labels(self, function, rows=slice(None)):
        """``function(label)`` for the ranked rows ``rows`` (a slice or a mask), as a new
        float array.

        With 8-bit grades, ``function`` is evaluated once per grade, on ``0.0, 1.0, ...,``
        the top grade, and the rows read the table (one gather of one byte per row, far
        cheaper than ``np.exp2`` and the like). ``function`` must act element-wise.
        """
        if self.grades is None:
            labels = self.label[rows]
            out = np.asarray(function(labels), dtype=np.float64)
            return out.copy() if np.may_share_memory(out, self.label) else out
        table = function(np.arange(int(self.data.top_label) + 1, dtype=np.float64))
        return np.asarray(table, dtype=np.float64).take(self.grades[rows])

    @cached_property
    def buckets(self):
        """The queries' ranked rows as :class:`Buckets`."""
        return self._group.buckets

    @cached_property
    def block_first(self):
        if not self.has_ties:
            return np.arange(len(self.position))
        return np.flatnonzero(self._new_block)

    @cached_property
    def block(self):
        if not self.has_ties:
            return np.arange(len(self.position))
        return np.cumsum(self._new_block) - 1

    @cached_property
    def block_size(self):
        return np.diff(np.append(self.block_first, len(self.position)))

    @cached_property
    def block_start(self):
        return self.position[self.block_first] if self.has_ties else self.position

    @cached_property
    def block_query(self):
        return self.query[self.block_first] if self.has_ties else self.query

    def block_sum(self, x):
        if not self.has_ties:
            return x
        return np.add.reduceat(x, self.block_first) if len(x) else x

    def expected(self, x):
        """Each row's value replaced by its tie block's mean (the expectation over orders)."""
        if not self.has_ties:
            return x
        return (self.block_sum(x) / self.block_size)[self.block]

    def per_query(self, x, k=None):
        """Per query, the sum of ``x`` over its ranked rows; with ``k``, ``x`` holds the
        values of the rows of :meth:`top` only (in order), summed over each query's top ``k``.

        Each query's rows are contiguous: one ``np.add.reduceat``, no scattered adds. With
        ``ties="stable"`` (the rows' order is the ranking, as in trec_eval, LightGBM and
        XGBoost), the rows are added in ranked order, as their loops add them.
        """
        starts, owners = self._sum_segments(k)
        out = np.zeros(self.n_queries)
        if len(starts):
            out[owners] = self.segment_sums(x, starts)
        return out

    def segment_sums(self, x, starts):
        """Sums of the segments of ``x`` beginning at ``starts``: added in ranked order
        with ``ties="stable"`` (see :meth:`per_query`), pairwise otherwise."""
        if self.ties == "stable":
            return segment_sums_in_order(x, starts)
        return np.add.reduceat(x, starts, dtype=np.float64)

    @cached
    def _sum_segments(self, k):
        """Where each nonempty query's (top ``k``) ranked rows start, and its code."""
        group = self._group
        sizes = group.layout_sizes if k is None else np.minimum(group.layout_sizes, k)
        nonempty = sizes > 0
        return segment_starts(sizes)[nonempty], group.layout[nonempty]

    @cached
    def relevant(self, threshold):
        """The ranked rows with ``label >= threshold``, in ranked order: their flat
        indices, their queries, and the index (into these) of each query's first.

        What AP, RR and success@k read when there are no ties.
        """
        if self.grades is None:
            rows = np.flatnonzero(at_least(self.label, threshold))
        elif threshold > 255:
            rows = np.zeros(0, dtype=np.intp)
        else:  # compare bytes with a byte: no float copy of the grades
            rows = np.flatnonzero(self.grades >= np.uint8(max(np.ceil(threshold), 0)))
        # kept for the other metrics: 32-bit where they fit, half the memory (narrowed
        # first, so that the 64-bit indices are gone before the query codes are built)
        rows = rows.astype(code_dtype(len(self.position)), copy=False)
        # each query's rows are contiguous: where its relevant rows begin among ``rows``
        # follows from its first row, with no query code per ranked row
        group = self._group
        # the starts in the rows' type (below len(position)): no widened copy of the rows
        begin = np.searchsorted(rows, group.layout_starts.astype(rows.dtype))
        count = np.diff(begin, append=len(rows))
        query = np.repeat(group.layout.astype(code_dtype(self.n_queries)), count)
        return rows, query, begin[count > 0]

    @cached
    def top(self, k):
        """Mask of the rows ranked in the top ``k`` of their query (all rows if None).

        A mask, not indices: an eighth of the memory, and as fast to gather with.
        """
        return slice(None) if k is None else self.position < k

    def top_rows(self, k):
        """The top ``k`` rows of every query: their mask, and their segments laid out
        as :class:`Buckets` over those rows (each query's top rows are contiguous), so that a
        per-query cumulative product at a cut-off touches the top rows only."""
        return self.top(k), self._top_buckets(k)

    @cached
    def _top_buckets(self, k):
        group = self._group
        sizes = np.minimum(self.sizes, k)
        starts = np.empty_like(self.starts)
        starts[group.layout] = segment_starts(sizes[group.layout])
        # min(size, k) is in the same order as size
        return Buckets(sizes, starts, by_length=group.layout)

    @cached_property
    def block_buckets(self):
        """Tie blocks of the same query laid out as 2-D buckets (one segment per query)."""
        sizes = np.bincount(self.block_query, minlength=self.n_queries)
        return Buckets(sizes, np.searchsorted(self.block_first, self.starts))

    @cached_property
    def member_buckets(self):
        """Documents of each tie block laid out as 2-D buckets (one segment per block)."""
        return Buckets(self.block_size, self.block_first)

    def relevant_before_block(self, relevant):
        """Per block: relevant documents ranked before it (within its query), and in it."""
        per_block = self.block_sum(relevant)
        before = np.cumsum(per_block)
        before -= per_block
        if len(per_block):
            # subtract what earlier queries contributed: the running total at each query's
            # first block, repeated over its blocks (contiguous, in layout order)
            first, count = self._layout_blocks
            before -= np.repeat(before[first], count)
        return before, per_block

    @cached_property
    def _layout_blocks(self):
        """Per query in layout order: the index of its first tie block, and its number of
        blocks (queries without ranked rows point at block 0, with no blocks)."""
        group = self._group
        if self.has_ties:
            count = np.bincount(self.block_query, minlength=self.n_queries)[group.layout]
        else:
            count = group.layout_sizes
        first = segment_starts(count)
        return np.minimum(first, max(len(self.block_first) - 1, 0)), count
