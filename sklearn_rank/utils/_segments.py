"""Segments of flat arrays: rows grouped by an integer code, sorted and summed per group.

The primitives under the metrics engine, the TREC readers and the boosters' query sets: a
stable sort of codes (:func:`stable_argsort_codes`), rows grouped by code and ranked by a
value in one sort of packed 64-bit keys (:func:`segment_argsort`), and sums, starts and
mean weights of segments. They know nothing of metrics.
"""

import math

import numpy as np


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


def _row_slices(n, start=0):
    """Consecutive slices of ``_ROWS_AT_ONCE`` rows (the last one shorter) covering ``n``
    rows from ``start``."""
    stop = start + n
    return (slice(lo, min(lo + _ROWS_AT_ONCE, stop))
            for lo in range(start, stop, _ROWS_AT_ONCE))


def flatnonzero_by_slices(n, flags, dtype):
    """``np.flatnonzero`` of ``n`` flags, as ``dtype`` (narrower than intp where the
    indices fit), from ``flags(rows)``: the flags of each slice ``rows`` of
    :data:`_ROWS_AT_ONCE` rows.

    Built a slice at a time, counted first: neither a mask of n nor 64-bit indices of all
    the rows found are ever alive, only the result. ``flags`` is called twice per slice (a
    comparison of a slice in cache costs less than keeping its mask).
    """
    counts = [int(np.count_nonzero(flags(rows))) for rows in _row_slices(n)]
    out = np.empty(sum(counts), dtype=dtype)
    at = 0
    for rows, count in zip(_row_slices(n), counts):
        if count:
            found = np.flatnonzero(flags(rows))
            found += rows.start
            out[at : at + count] = found
            at += count
    return out


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
    # built in place, a slice of rows at a time: the keys are the one array of n alive, and
    # a slice stays in cache from the score's image to the finished key
    exact = None  # whether equal prefixes mean equal values, when known from the image
    floats = values.dtype.kind not in "iu"
    if floats:
        key = np.empty(n, dtype=np.uint64)
    else:
        key, exact = _descending_integer_prefix(values, bits)
    code_shift = np.uint64(bits + low_bits)
    # the codes' part of the keys, shifted once per code rather than once per row
    table = None if relabel is None else relabel.astype(np.uint64) << code_shift
    for rows in _row_slices(n):
        part = key[rows]
        if floats:
            _descending_prefix_into(values[rows], bits, part)
        if packed:
            part <<= np.uint64(8)
            part |= secondary[rows]
        part <<= np.uint64(row_bits)
        part |= np.arange(rows.start, rows.stop, dtype=np.uint64)
        if table is None:
            code = codes[rows].astype(np.uint64)
            code <<= code_shift
        else:
            # take, not indexing: half the time with 32-bit codes ("clip": they are valid,
            # and "raise" would check each one)
            code = table.take(codes[rows], mode="clip")
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


def _descending_prefix_into(values, bits, out):
    """The leading ``bits`` bits of an unsigned integer image of ``values`` whose order is
    the reverse of the values' order (IEEE 754 bit patterns, made monotone), written into
    ``out`` (``uint64``, as long as ``values``)."""
    if not bits:
        out[:] = 0
        return
    np.add(values, 0.0, out=out.view(np.float64), dtype=np.float64)  # -0.0 + 0.0 is +0.0
    image = out.view(np.int64)
    # non-negative values: flip all bits but the sign (larger values, smaller images);
    # negative values: keep their bits (sign set, and larger magnitudes, larger images)
    flip = image >> 63
    np.invert(flip, out=flip)
    flip &= np.int64(np.iinfo(np.int64).max)
    image ^= flip
    out >>= np.uint64(64 - bits)


def _descending_integer_prefix(values, bits):
    """:func:`_descending_prefix_into` for integers, exact: ``max - value`` in 64 bits (no
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
    """Whether values with equal ``bits``-bit prefixes (see :func:`_descending_prefix_into`) are
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


def sizes_ascending(sizes):
    """Stable order of segments by increasing size (a radix sort for the usual sizes)."""
    if not len(sizes):
        return np.zeros(0, dtype=np.intp)
    return stable_argsort_codes(sizes, int(sizes.max()) + 1)


def segment_sizes(codes, n_codes):
    """Rows per code in ``[0, n_codes)``: ``np.bincount(codes, minlength=n_codes)``, a
    slice of rows at a time.

    bincount reads intp: 32-bit codes converted whole would be one more array of n, and a
    pass through memory rather than cache (about twice the time on 1M rows). A slice holds
    at least as many rows as there are codes, so adding up the counts costs at most a pass
    over the rows.
    """
    step = max(_ROWS_AT_ONCE, n_codes)
    sizes = np.zeros(n_codes, dtype=np.intp)
    for lo in range(0, len(codes), step):
        sizes += np.bincount(codes[lo : lo + step], minlength=n_codes)
    return sizes


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


def _well_scaled(total):
    """Whether a sum of weights is finite and far from float64's subnormal numbers (weights
    of 1e-320 keep a few bits of precision, and their products with values none)."""
    return total <= 0 or 2.0**-900 < total < np.inf
