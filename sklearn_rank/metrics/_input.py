"""Input checking of the metrics: flat arrays validated once into a :class:`RankingInput`.

:func:`check_ranking_input` is the one entry point: it checks the lengths, dtypes, grades,
judgements, masks, weights and document names, and codes the query ids.
"""

import numpy as np

from ..utils._arrays import check_finite_nonnegative, check_same_rows, column_or_1d
from ..utils._qid import check_qid, code_dtype, factorize, metric_qid
from ._engine import RankingInput


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
    check_same_rows({"y_true": y_true, "y_score": y_score, "qid": qid,
                      "sample_weight": sample_weight, "retrieved": retrieved,
                      "judged": None if from_y_true else judged, "docno": docno}, caller)
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
    if y_score.dtype.kind == "f" and np.isnan(y_score.min()):  # NaN's min is NaN: no mask
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
    # the usual case, checked by one or two reductions and no mask of n: no grade to refuse (nor
    # NaN, whose min is NaN)
    integers = y_true.dtype.kind in "iu"
    if y_true.min() >= 0 and (integers or y_true.max() < np.inf):
        bad_value = None
    elif integers:
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
