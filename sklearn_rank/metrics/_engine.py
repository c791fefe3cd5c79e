"""The ranking engine: group rows by query, sort once, share the result.

Every metric of :mod:`sklearn_rank.metrics` is a few lines on top of the objects built here:

* :class:`RankingInput` holds the validated flat arrays (built by
  :func:`~sklearn_rank.metrics._input.check_ranking_input`) and the factorised query ids;
* :class:`Grouping` lays queries out by increasing number of rows, and sorts the rows of
  every query by a value with one sort of packed 64-bit keys
  (:func:`~sklearn_rank.utils._segments.segment_argsort`): no
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

from ..utils._qid import code_dtype
from ..utils._segments import (
    _ROWS_AT_ONCE,
    _negated,
    _row_slices,
    flatnonzero_by_slices,
    query_weight,
    segment_argsort,
    segment_sizes,
    segment_starts,
    segment_sum,
    segment_sums_in_order,
    sizes_ascending,
    stable_argsort_codes,
)

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
        nonempty = sizes[by_length] > 0
        if not nonempty.all():
            by_length = by_length[nonempty]
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

    def cumprod_exclusive(self, x, depth=None, *, in_place=False):
        """Product of the values before each position, within its segment.

        With ``depth``, only the first ``depth`` positions of each segment are computed;
        the others are set to 0. ``in_place=True`` (without ``depth``) writes the products
        over ``x`` (a float64 array), with the same operations: no second array of
        ``len(x)``.
        """
        if in_place:
            if depth is not None or x.dtype != np.float64:
                raise ValueError("in_place needs float64 values and no depth")
            out = x
        else:
            out = np.zeros(len(x), dtype=np.float64)
        for _, width, index, valid in self.blocks:
            d = width if depth is None else min(width, depth)
            # padding trails the real cells of a row, so its value (clipped to the last
            # element) never enters a real cell's product: no copy with a sentinel needed
            values = self.view(x, width, index) if valid is None else x.take(index, mode="clip")
            contiguous = isinstance(index, slice)
            if contiguous:  # write in place
                prod = out[index].reshape(-1, width)[:, :d]
            else:
                prod = np.ones((values.shape[0], d))
            # values and prod are one array when both are x's cells: each column of values
            # is read before it is overwritten (kept aside), or numpy's cumprod copies
            # the input that overlaps its output
            shared = in_place and contiguous
            if d <= 16 and len(values) >= 64 * d:
                # column by column: numpy's cumprod along a short axis 1 pays per row
                before = values[:, 0].copy() if shared else None
                prod[:, 0] = 1.0
                for j in range(1, d):
                    if shared:
                        factor, before = before, values[:, j].copy() if j + 1 < d else None
                    else:
                        factor = values[:, j - 1]
                    np.multiply(prod[:, j - 1], factor, out=prod[:, j])
            else:
                np.cumprod(values[:, : d - 1], axis=1, out=prod[:, 1:])
                prod[:, 0] = 1.0
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




def _count_dtype(largest):
    """The narrowest integer type of the per-query grade counts, for queries of at most
    ``largest`` rows: a byte each at up to 255 rows (at ten rows per query, the counts
    would otherwise weigh a fifth of the rows' 64-bit values per grade)."""
    if largest < 1 << 8:
        return np.uint8
    if largest < 1 << 16:
        return np.uint16
    return code_dtype(largest + 1)


def _laid_out_counts(grades, group, n_levels):
    """Per query code, the count of each grade (in decreasing order) among ``grades``,
    the 8-bit grades of ``group``'s rows laid out (each query's rows contiguous).

    A slice of rows at a time, each counted into the cells of the queries it spans only:
    the counts are written in order and stay in cache (a bincount over every query's
    cells reads and writes them at random, and its output is as large as all of them).
    """
    n_queries, n = len(group.layout), len(grades)
    # by place in the layout, in the narrowest type that holds a query's rows
    largest = int(group.layout_sizes[-1]) if n_queries else 0
    counts = np.zeros((n_queries, n_levels), dtype=_count_dtype(largest))
    starts, sizes = group.layout_starts, group.layout_sizes
    ends = starts + sizes
    for lo in range(0, n, _LEVEL_ROWS_AT_ONCE):
        hi = min(lo + _LEVEL_ROWS_AT_ONCE, n)
        # the queries whose rows meet [lo, hi): a leading and a trailing one may be cut
        first = int(np.searchsorted(ends, lo, side="right"))
        last = int(np.searchsorted(starts, hi, side="left"))
        span = np.minimum(ends[first:last], hi) - np.maximum(starts[first:last], lo)
        key = np.repeat(np.arange(0, (last - first) * n_levels, n_levels), span)
        key += n_levels - 1
        key -= grades[lo:hi]
        cells = counts[first:last]
        # "unsafe": the counts fit the narrow type, which numpy would not assume
        np.add(cells, np.bincount(key, minlength=(last - first) * n_levels).reshape(
            -1, n_levels), out=cells, casting="unsafe")
    out = np.empty_like(counts)
    out[group.layout] = counts
    return out


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
        ranked = next((ranking for key, ranking in self._cache.items()
                       if key[0] == "ranking" and ranking._group.rows is None), None)
        if ranked is not None:  # the grades laid out by query: counted query by query
            counts = _laid_out_counts(ranked.grades, ranked._group, n_levels)
            return np.arange(n_levels - 1, -1, -1, dtype=np.float64), counts
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
        counts = counts.reshape(-1, n_levels)
        largest = int(counts.sum(axis=1).max()) if len(counts) else 0  # rows of a query
        counts = counts.astype(_count_dtype(largest), copy=False)
        return np.arange(n_levels - 1, -1, -1, dtype=np.float64), counts

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
        self.sizes = segment_sizes(self.codes, n_queries)
        self.layout = sizes_ascending(self.sizes)
        self.layout_position = np.empty(n_queries, dtype=code_dtype(n_queries))
        self.layout_position[self.layout] = np.arange(n_queries)
        self.layout_sizes = self.sizes[self.layout]
        self.layout_starts = segment_starts(self.layout_sizes)
        # 32-bit where they fit (below n): kept per query, as the layout's are
        self.starts = self.layout_starts.astype(code_dtype(self.n))[self.layout_position]

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
        # the row's place minus its query's start: a third of the time of a running sum
        # (numpy's cumsum does not vectorise), 32-bit where it fits
        dtype = code_dtype(self.n)
        starts = np.repeat(self.layout_starts.astype(dtype), self.layout_sizes)
        return np.subtract(np.arange(self.n, dtype=dtype), starts, out=starts)

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
        self.n = group.n
        self.has_ties = ties == "average" and len(tied) > 0
        if self.has_ties:
            self._new_block = np.ones(self.n, dtype=bool)
            self._new_block[tied] = False

    @property
    def position(self):
        """0-based position of each ranked row within its query (built on first read: the
        metrics that read the top ``k`` rows or the relevant rows alone, as nDCG@k, ERR@k,
        AP and RR do without ties, never need this array of n)."""
        return self._group.position

    @property
    def layout_sizes(self):
        """Ranked rows of each query, queries in ranked order (by increasing size)."""
        return self._group.layout_sizes

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

    def map_labels(self, function, rows=slice(None), *, times=None):
        """``function(label)`` for the ranked rows ``rows`` (a slice or a mask), as a new
        float array.

        With 8-bit grades, ``function`` is evaluated once per grade, on ``0.0, 1.0, ...,``
        the top grade, and the rows read the table (one gather of one byte per row, far
        cheaper than ``np.exp2`` and the like). ``function`` must act element-wise.

        With ``times`` (a float64 array, one value per row of ``rows``), returns ``times``
        multiplied in place by those values, found a slice of rows at a time: the same
        products, with no array of the values.
        """
        if times is not None:
            return self._times_mapped_labels(function, rows, times)
        if self.grades is None:
            labels = self.label[rows]
            out = np.asarray(function(labels), dtype=np.float64)
            return out.copy() if np.may_share_memory(out, self.label) else out
        # indexing, not take: take converts the byte indices to intp first (twice the time)
        return self.grade_table(function)[self.grades[rows]]

    def grade_table(self, function):
        """``function`` of each 8-bit grade ``0.0, 1.0, ...,`` the top grade, as float64:
        what :meth:`map_labels` reads the rows' values from."""
        table = function(np.arange(int(self.data.top_label) + 1, dtype=np.float64))
        return np.asarray(table, dtype=np.float64).reshape(-1)

    def _times_mapped_labels(self, function, rows, times):
        """``times *= map_labels(function, rows)``, a slice of the ranked rows at a time."""
        if self.grades is not None:
            table = self.grade_table(function)
        if isinstance(rows, slice):
            start, stop, step = rows.indices(self.n)
            if step != 1:  # no caller's: slice(None) or a mask
                times *= self.map_labels(function, rows)
                return times
            parts = ((part, None) for part in _row_slices(max(stop - start, 0), start))
        else:
            parts = ((part, rows[part]) for part in _row_slices(self.n))
        at = 0
        for part, chosen in parts:
            if self.grades is not None:
                grades = self.grades[part] if chosen is None else self.grades[part][chosen]
                values = table[grades]
            else:
                labels = self.label[part] if chosen is None else self.label[part][chosen]
                values = np.asarray(function(labels), dtype=np.float64)
            times[at : at + len(values)] *= values
            at += len(values)
        return times

    @cached_property
    def buckets(self):
        """The queries' ranked rows as :class:`Buckets`."""
        return self._group.buckets

    @cached_property
    def block_first(self):
        if not self.has_ties:
            return np.arange(self.n)
        return np.flatnonzero(self._new_block)

    @cached_property
    def block(self):
        if not self.has_ties:
            return np.arange(self.n)
        return np.cumsum(self._new_block) - 1

    @cached_property
    def block_size(self):
        return np.diff(np.append(self.block_first, self.n))

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
        # kept: 32-bit where they fit (below n), and no copies when every query has a
        # ranked row (the usual case)
        starts = segment_starts(sizes).astype(code_dtype(group.n), copy=False)
        if nonempty.all():
            return starts, group.layout
        return starts[nonempty], group.layout[nonempty]

    @cached
    def relevant(self, threshold):
        """The ranked rows with ``label >= threshold``, in ranked order: their flat
        indices, their queries, and the index (into these) of each query's first.

        What bpref, infAP and the recall curves read when there are no ties (AP, RR and
        success@k read :meth:`relevant_chunks`).
        """
        rows, first, owner = self.relevant_rows(threshold)
        count = np.diff(first, append=len(rows))
        return rows, np.repeat(owner, count), first

    @cached
    def relevant_rows(self, threshold):
        """:meth:`relevant` without a query per row: the rows, the index (into these) of
        the first of each query that has one, and the code of that query."""
        # kept for the other metrics: 32-bit where they fit, half the memory, and found a
        # slice of rows at a time, so that no mask of n nor 64-bit indices of all the
        # relevant rows are ever alive
        dtype = code_dtype(self.n)
        flags = self._relevant_flags(threshold)
        rows = (np.zeros(0, dtype=dtype) if flags is None
                else flatnonzero_by_slices(self.n, flags, dtype))
        # each query's rows are contiguous: where its relevant rows begin among ``rows``
        # follows from its first row, with no query code per ranked row
        group = self._group
        if group.rows is None and self.data._levels is not None:
            # every row ranked: the counts of the grades give each query's relevant rows
            count = self.data.n_relevant(threshold)[group.layout].astype(np.intp)
            begin = segment_starts(count)
        else:
            # the starts in the rows' type (below the number of rows): no widened copy of
            # the rows
            begin = np.searchsorted(rows, group.layout_starts.astype(rows.dtype))
            count = np.diff(begin, append=len(rows))
        found = count > 0
        return rows, begin[found], group.layout[found].astype(code_dtype(self.n_queries))

    def relevant_chunks(self, threshold, chunk_rows):
        """:meth:`relevant_rows` by chunks of whole queries: ``(rows, first, owner)`` of
        each chunk, ``first`` indexing the chunk's ``rows``.

        From :meth:`relevant_rows` when another metric built them, by chunks of about
        ``chunk_rows`` relevant rows; else found among about ``chunk_rows`` ranked rows at
        a time, and not kept: AP and RR alone never hold the relevant rows of every query.
        """
        built = vars(self).get("_cache", {}).get(("relevant_rows", threshold))
        if built is not None:
            rows, first, owner = built
            if not len(first):
                return
            # the queries that begin each chunk: the first at or after every chunk_rows rows
            bounds = np.unique(np.append(
                np.searchsorted(first, np.arange(0, len(rows), chunk_rows)), len(first)))
            for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
                lo, hi = int(first[a]), int(first[b]) if b < len(first) else len(rows)
                yield rows[lo:hi], first[a:b] - lo, owner[a:b]
            return
        flags = self._relevant_flags(threshold)
        if flags is None:
            return
        group = self._group
        starts, n_groups = group.layout_starts, len(group.layout)
        bounds = np.unique(np.append(
            np.searchsorted(starts, np.arange(0, self.n, chunk_rows)), n_groups))
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            lo, hi = int(starts[a]), int(starts[b]) if b < n_groups else self.n
            rows = np.flatnonzero(flags(slice(lo, hi)))
            rows += lo
            begin = np.searchsorted(rows, starts[a:b])
            found = np.diff(begin, append=len(rows)) > 0
            if found.any():
                yield rows, begin[found], group.layout[a:b][found]

    def _relevant_flags(self, threshold):
        """The function of a slice of ranked rows that flags those with ``label >=
        threshold``, or None when no row can be (an 8-bit grade is at most 255)."""
        if self.grades is None:
            return lambda part: at_least(self.label[part], threshold)
        if threshold > 255:
            return None
        grade = np.uint8(max(np.ceil(threshold), 0))  # bytes with a byte: no float copy
        return lambda part: self.grades[part] >= grade

    @cached
    def top(self, k):
        """Mask of the rows ranked in the top ``k`` of their query (all rows if None).

        A mask, not indices: an eighth of the memory, and as fast to gather with.
        """
        if k is None:
            return slice(None)
        group = self._group
        if "position" in vars(group):  # built for another metric: one comparison
            return group.position < k
        # without the positions (an array of n that nDCG@k and ERR@k need not build): the
        # queries of at most k rows, a leading run of the layout (by increasing size), are
        # wholly in their top k; of each longer query, its first k rows
        sizes, starts = group.layout_sizes, group.layout_starts
        longer = int(np.searchsorted(sizes, k, side="right")) if k < group.n else len(sizes)
        top = np.zeros(group.n, dtype=bool)
        top[: int(starts[longer]) if longer < len(sizes) else group.n] = True
        first = starts[longer:]
        step = max(_ROWS_AT_ONCE // max(k, 1), 1)  # k indices per query: a slice of rows
        for lo in range(0, len(first), step):
            top[(first[lo : lo + step, None] + np.arange(k)).ravel()] = True
        return top

    def top_pieces(self, k, cells=None):
        """The top ``k`` rows of every query, by pieces of whole queries whose tops have
        one length: ``(codes, width, rows)``, ``rows`` the pieces' ranked rows as a slice
        (the queries have ``width`` rows, all in their top) or a ``(queries, width)``
        matrix of their indices; about ``cells`` rows a piece.

        The queries come by increasing size, so their tops (``min(size, k)`` rows) come in
        at most ``k`` runs of one length: a metric at a cut-off reads each piece as a 2-D
        array, whose per-query products and sums run along ``axis=1``, with no mask and no
        array of all the top rows.
        """
        cells = _ROWS_AT_ONCE if cells is None else cells
        group = self._group
        sizes, starts = group.layout_sizes, group.layout_starts
        top = np.minimum(sizes, min(k, group.n))  # a k of any size
        bounds = [int(np.searchsorted(top, 1)), *(np.flatnonzero(np.diff(top)) + 1).tolist(),
                  len(top)]
        for a, b in zip(bounds[:-1], bounds[1:]):
            if a >= b:
                continue
            width = int(top[a])
            step = max(cells // width, 1)
            for lo in range(a, b, step):
                hi = min(lo + step, b)
                if sizes[hi - 1] == width:  # sizes ascending: every query has width rows
                    first = int(starts[lo])
                    rows = slice(first, first + (hi - lo) * width)
                else:
                    rows = starts[lo:hi, None] + np.arange(width)
                yield group.layout[lo:hi], width, rows

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
