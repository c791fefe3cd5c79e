"""Per-query values of every metric, computed on the engine's shared structures.

Each function takes a :class:`~sklearn_rank.metrics._engine.RankingInput` and resolved options
and returns ``(values, undefined)``: one value per query (in query-code order) and the mask of
queries to which the ``no_relevant`` policy applies. No function loops over queries.

Ties (``ties="average"``) are handled exactly. A tie block of ``m`` documents starting after
``s`` ranked documents is a uniformly random ordering of its members, so:

* metrics linear in the documents' gains (DCG, P@k, R@k, hits@k, R-precision, RBP,
  half-life utility) replace each gain by its block's mean gain;
* AP uses, for the document at offset ``t`` of a block with ``r`` relevant members and ``b``
  relevant documents before it, ``E[rel_i C_i] = r/m (b + 1 + (t-1)(r-1)/(m-1))`` where
  ``C_i`` counts the relevant documents up to position ``i``;
* RR and success@k only depend on the first block holding a relevant document, whose first
  relevant member falls at offset ``j`` with probability ``C(m-j, r-1) / C(m, r)``;
* ERR uses ``E[prod_{u<t} a_u R_t] = G(t-1) - G(t)/p`` with ``a = p (1 - R)`` and ``G(l)``
  the mean product of ``a`` over the ``l``-subsets of the block, found by a recurrence over
  the block's members that is vectorised over all tied blocks at once.

With ``ties`` other than ``"average"`` every document is a block of its own and the same
formulas reduce to the textbook ones.

The DCG family (DCG, nDCG and, in :mod:`~sklearn_rank.metrics._per_query_curves`, trec_eval's
G, ndcg_rel and Rndcg) shares its gains and ideal ordering here: ``gain`` is
``"exponential"``, ``"linear"`` or a mapping grade -> gain (trec_eval's ``ndcg.1=3,2=9``:
a grade that the mapping does not list keeps its own value as gain; an unjudged document has
gain 0), the ideal ordering sorts the judged documents by decreasing gain and keeps the
positive gains only (trec_eval's ``setup_gains``), and ``discount`` is ``1 / log_b(i + 1)``
or ``1 / i`` at the 1-based rank ``i``.
"""

import math
from numbers import Real

import numpy as np

from ._engine import Buckets, RankingInput, at_least, cached, segment_sum

# --------------------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------------------


# 2.0**x overflows float64 from x = 1024 on: the largest grade of exponential gains.
_EXP2_LIMIT = 1024


def check_exponential(top):
    """Raise if ``2**top`` overflows: exponential gains need grades below 1024."""
    if top >= _EXP2_LIMIT:
        raise ValueError(
            f"gain='exponential' computes 2**y_true - 1, which overflows for the grade "
            f"{top:g} found in y_true (grades must be below 1024). Use gain='linear' or "
            "rescale the labels."
        )


def check_gain(gain):
    """The ``gain`` option as the DCG family reads it: ``"exponential"``, ``"linear"``, or
    a mapping grade -> gain, checked and returned as a dict of floats.

    Raises ValueError for a grade that is not a non-negative finite number or a gain that
    is not a finite number (booleans are neither).
    """
    if isinstance(gain, str):
        return gain
    checked = {}
    for grade, value in gain.items():
        if (isinstance(grade, (bool, np.bool_)) or not isinstance(grade, Real)
                or not 0 <= grade < math.inf):
            raise ValueError(
                f"gain={dict(gain)!r} maps grades to gains, and a grade is a non-negative "
                f"finite number (as in y_true); got the grade {grade!r}."
            )
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, Real)
                or not math.isfinite(value)):
            raise ValueError(
                f"gain={dict(gain)!r} maps grades to gains, and a gain is a finite number; "
                f"got {value!r} for the grade {grade!r}."
            )
        checked[float(grade)] = float(value)
    return checked


def gain_values(labels, gain):
    """The gain of each label: ``2**y - 1``, ``y``, or a checked mapping's (see
    :func:`check_gain`), where an unlisted grade keeps its own value and a label of -0.0
    (an unjudged document, see :func:`gain_input`) has gain 0."""
    if isinstance(gain, dict):
        out = np.array(labels, dtype=np.float64)  # a copy: unlisted grades keep their value
        for grade, value in gain.items():
            out[labels == grade] = value
        out[np.signbit(labels)] = 0.0
        return out
    if gain == "linear":
        return labels
    check_exponential(labels.max() if len(labels) else 0.0)
    return np.exp2(labels) - 1.0


def gain_input(data, gain):
    """``data``, or a copy whose unjudged rows have grade -0.0 when ``gain`` gives grade 0
    a gain.

    trec_eval gives a document without a judgement gain 0 (``get_gain`` of
    RELVALUE_NONPOOL or RELVALUE_UNJUDGED) and leaves it out of the ideal ordering, while a
    judged non-relevant one has the gain of grade 0. -0.0 equals 0.0 wherever the engine
    compares grades (``ties="optimistic"`` orders the rows as it does with 0.0), and
    :func:`gain_values` reads its sign. The copy (cached on ``data``) costs a sort of its
    own; it is only made in that case.
    """
    if not isinstance(gain, dict) or gain.get(0.0, 0.0) == 0 or data.judged_mask is None:
        return data
    cache = vars(data).setdefault("_cache", {})
    if "gain_input" not in cache:
        y_true = np.where(data.judged_mask, data.y_true, -0.0)
        relabelled = RankingInput(y_true, data.y_score, data.codes, data.query_ids,
                                  data.sample_weight, data.retrieved, data.judged_mask,
                                  data.pool_unjudged)
        relabelled.grades = None  # 8-bit grades would lose the sign of -0.0
        cache["gain_input"] = relabelled
    return cache["gain_input"]


def position_weights(position, k, weight):
    """``weight(position)`` for positions below ``k`` and 0 beyond, by table look-up.

    ``weight`` (a vectorised function of 0-based positions) is evaluated once per distinct
    position, not once per row.
    """
    size = int(position.max()) + 1 if len(position) else 0
    depth = size if k is None else min(size, k)
    table = np.zeros(size)
    table[:depth] = weight(np.arange(depth, dtype=np.float64))
    return table.take(position, mode="clip")  # take: faster with 32-bit positions


def top_position_weights(ranking, k, weight, *, scale=None):
    """``position_weights(ranking.position[ranking.top(k)], None, weight)``, the weights of
    the rows ranked in the top ``k`` of their query, without reading their positions.

    Each query's top rows are contiguous, and the queries come by increasing size, so by
    non-decreasing number of top rows: the weights are the table's first entries tiled,
    one run of queries of equal length at a time (written in place, where a gather of the
    positions and then of the table reads each row twice). ``k=None``: every ranked row.

    With ``scale`` (a float64 array of the top rows' values), returns ``scale`` multiplied
    by the weights in place, the products that ``scale * weights`` gives, with no array of
    the weights.
    """
    if k is None:
        weights = position_weights(ranking.position, None, weight)
        if scale is None:
            return weights
        scale *= weights
        return scale
    sizes = np.minimum(ranking.layout_sizes, k)
    sizes = sizes[sizes > 0]
    if not len(sizes):
        return np.zeros(0) if scale is None else scale
    # the table that position_weights builds for these positions: as long as the longest
    # top, the weight evaluated on the same positions, so that every value is the same
    depth = int(sizes[-1])
    table = np.asarray(weight(np.arange(depth, dtype=np.float64)), dtype=np.float64)
    runs = np.flatnonzero(np.diff(sizes)) + 1
    bounds = [0, *runs.tolist(), len(sizes)]
    out = np.empty(int(sizes.sum())) if scale is None else scale
    start = 0
    for a, b in zip(bounds[:-1], bounds[1:]):
        width = int(sizes[a])
        stop = start + (b - a) * width
        run = out[start:stop].reshape(b - a, width)
        if scale is None:
            run[:] = table[:width]  # broadcast: no copy
        else:
            run *= table[:width]
        start = stop
    return out


def log_discount(log_base):
    """The position discount ``1 / log_b(i + 1)`` at the 1-based rank ``i = position + 1``."""
    if log_base == 2:
        return lambda position: 1.0 / np.log2(position + 2.0)
    # float(): a base written as a long integer ("log_base=100000000000000000000") is a
    # Python int, which numpy's log does not take
    log_b = np.log(float(log_base))
    return lambda position: log_b / np.log(position + 2.0)


def discount_weight(discount, log_base):
    """The position discount of the DCG family, a function of 0-based positions:
    ``1 / log_b(i + 1)`` (``"log"``) or ``1 / i`` (``"rank"``: CatBoost's
    ``denominator=Position``) at the 1-based rank ``i = position + 1``."""
    if discount == "rank":
        return lambda position: 1.0 / (position + 1.0)
    return log_discount(log_base)


def segment_cumsum(x, buckets):
    """Running sums of ``x`` within each segment of ``buckets`` (a laid-out flat array),
    added one by one from each segment's start, as trec_eval's loops add them."""
    return buckets.scan(x, lambda block: np.cumsum(block, axis=1), 0.0)


def gain_key(gain):
    """``gain`` (a name or a checked mapping grade -> gain) as a hashable cache key."""
    return gain if isinstance(gain, str) else tuple(sorted(gain.items()))


def ideal_gains(data, gain):
    """The gains of every query's rows by decreasing gain: trec_eval's ideal ordering.

    A flat array laid out as ``data.all_rows`` (query ``q``'s position ``p`` is at
    ``data.all_rows.starts[q] + p``). Only its positive gains count in an ideal DCG; rows of
    gain 0 or less (unjudged rows among them) come last. Cached on ``data`` per ``gain``.
    """
    key = ("ideal_gains", gain_key(gain))
    cache = vars(data).setdefault("_cache", {})
    if key in cache:
        return cache[key]
    group = data.all_rows
    levels = data._levels  # per-query counts of small integer grades: no sort
    if levels is not None:
        grades, counts = levels
        by_gain = gain_values(grades, gain)
        order = np.argsort(-by_gain, kind="stable")
        counts = counts[group.layout][:, order]
        sorted_gains = np.repeat(np.tile(by_gain[order], data.n_queries), counts.ravel())
    else:
        gains = gain_values(data.y_true, gain)
        order, _ = group.rank_by(gains)
        sorted_gains = np.asarray(gains, dtype=np.float64)[order]
    cache[key] = sorted_gains
    return sorted_gains


def _log_comb(n, r):
    from scipy.special import gammaln  # 0.26 s to import: only the measures that need it

    return gammaln(n + 1.0) - gammaln(r + 1.0) - gammaln(n - r + 1.0)


def _comb_ratio(n1, r1, n2, r2):
    """``C(n1, r1) / C(n2, r2)``, zero where ``r1 > n1`` or ``r1 < 0``."""
    n1, r1, n2, r2 = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (n1, r1, n2, r2)))
    ok = (r1 >= 0) & (r1 <= n1)
    out = np.zeros(n1.shape)
    out[ok] = np.exp(_log_comb(n1[ok], r1[ok]) - _log_comb(n2[ok], r2[ok]))
    return out


def _expand(lengths):
    """For segments of the given lengths: the segment of each item and its 1-based offset."""
    lengths = np.asarray(lengths, dtype=np.intp)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    offset = np.arange(len(owner)) - starts[owner] + 1
    return owner, offset


def _first_relevant_blocks(ranking, relevant):
    """Per query with a ranked relevant document: its query, and the first such block."""
    per_block = ranking.block_sum(relevant)
    blocks = np.flatnonzero(per_block > 0)
    query = ranking.block_query[blocks]
    first = np.ones(len(blocks), dtype=bool)
    first[1:] = query[1:] != query[:-1]
    blocks = blocks[first]
    return query[first], blocks, per_block[blocks]


def _binary(ranking, threshold):
    """1.0 for the ranked rows with ``label >= threshold``, else 0.0."""
    return ranking.map_labels(lambda labels: at_least(labels, threshold).astype(np.float64))


# --------------------------------------------------------------------------------------
# Graded metrics
# --------------------------------------------------------------------------------------


def _dcg(ranking, k, gain, weight):
    def gains(labels):
        return gain_values(labels, gain)

    if ranking.has_ties:
        expected = ranking.expected(ranking.map_labels(gains))
        return ranking.per_query(expected * position_weights(ranking.position, k, weight))
    if _by_pieces(ranking, k):
        gain_of = ranking.grade_table(gains)
        weights = _top_weight_table(ranking, k, weight)
        values = np.zeros(ranking.n_queries)
        for codes, width, rows in ranking.top_pieces(k):
            weighted = gain_of[_grades_of(ranking, rows, width)]
            weighted *= weights[:width]
            values[codes] = _row_sums(ranking, weighted)
        return values
    top = ranking.top(k)
    weighted = top_position_weights(ranking, k, weight, scale=ranking.map_labels(gains, top))
    return ranking.per_query(weighted, k)


# Cut-offs up to which the metrics at a cut-off read the top rows by pieces (see
# Ranking.top_pieces): beyond, too many runs of one top length, each a few numpy calls.
_PIECES_MAX_K = 64


def _by_pieces(ranking, k):
    """Whether a metric at cut-off ``k`` without ties reads the top rows by pieces: with
    8-bit grades (a table look-up per row) and a small cut-off."""
    return k is not None and k <= _PIECES_MAX_K and ranking.grades is not None


def _grades_of(ranking, rows, width):
    """The 8-bit grades of a piece of :meth:`Ranking.top_pieces`, as a 2-D array."""
    if isinstance(rows, slice):
        return ranking.grades[rows].reshape(-1, width)
    return ranking.grades[rows]


def _top_weight_table(ranking, k, weight):
    """``weight`` at the positions of the longest top: the table that
    :func:`top_position_weights` tiles, so that every weight is the same number."""
    depth = int(min(ranking.layout_sizes[-1], k)) if len(ranking.layout_sizes) else 0
    return np.asarray(weight(np.arange(depth, dtype=np.float64)), dtype=np.float64)


def _row_sums(ranking, values):
    """Per row of a 2-D piece (a query's top rows), their sum as :meth:`Ranking.per_query`
    adds them (in ranked order with ``ties="stable"``, pairwise otherwise)."""
    width = values.shape[1]
    return ranking.segment_sums(values.reshape(-1), np.arange(0, values.size, width))


def _without_positive_gain(data, gain):
    """Queries without a document of positive gain, where the DCG family is undefined."""
    if isinstance(gain, str):
        return data.max_label() <= 0
    return ideal_gains(data, gain)[data.all_rows.starts] <= 0


def dcg(data, *, k, gain, discount, log_base, ties):
    gain = check_gain(gain)
    data = gain_input(data, gain)
    values = _dcg(data.ranking(ties), k, gain, discount_weight(discount, log_base))
    return values, _without_positive_gain(data, gain)


def ideal_dcg(data, *, k, gain, weight):
    """DCG@k of the ideal ordering, its positive gains only (trec_eval's ideal_dcg)."""
    if isinstance(gain, str):  # gains grow with the grade: the engine's ideal sums
        return data.ideal_sum(lambda grade: gain_values(grade, gain), weight, k)
    group = data.all_rows
    ideal = ideal_gains(data, gain)
    positive = np.maximum(ideal, 0.0)
    positive *= position_weights(group.position, k, weight)
    return segment_sum(group.query, positive, data.n_queries)


def ndcg(data, *, k, gain, discount, log_base, ties):
    gain = check_gain(gain)
    data = gain_input(data, gain)
    weight = discount_weight(discount, log_base)
    values = _dcg(data.ranking(ties), k, gain, weight)
    ideal = ideal_dcg(data, k=k, gain=gain, weight=weight)
    undefined = ideal <= 0
    return np.divide(values, ideal, out=np.zeros_like(values), where=~undefined), undefined


def half_life_utility(data, *, k, half_life, default_rating, ties):
    ranking = data.ranking(ties)
    # HLU is a ratio: utilities near float64's limits (sums that overflow, or subnormal
    # numbers without precision) are scaled by a power of two, which is exact
    span = float(data.top_label) / 2.0 - default_rating / 2.0  # no overflow: both finite
    scale = 2.0**-600 if span > 2.0**500 else 2.0**600 if 0 < span < 2.0**-500 else 1.0

    def utility(grade):
        if scale < 1.0:
            return np.maximum(grade * scale - default_rating * scale, 0.0)
        utilities = np.maximum(grade - default_rating, 0.0)
        return utilities * scale if scale > 1.0 else utilities

    def weight(position):
        return np.exp2(-position / (half_life - 1.0))

    gains = ranking.expected(ranking.map_labels(utility))
    values = ranking.per_query(gains * position_weights(ranking.position, k, weight))
    ideal = data.ideal_sum(utility, weight, k)
    undefined = ideal <= 0
    return np.divide(values, ideal, out=np.zeros_like(values), where=~undefined), undefined


def _grade_scale(data, max_grade):
    """The top grade of ERR and graded RBP: a number, or one per query for "query"."""
    top = data.top_label
    if isinstance(max_grade, str):  # "query"
        return data.max_label()
    if max_grade is None:
        return top
    if top.item() > max_grade:  # Python compares integers and floats exactly
        raise ValueError(
            f"max_grade={max_grade} is below the largest grade in y_true ({top.item()}); "
            "pass the maximum of your relevance scale, or max_grade='query'."
        )
    return float(max_grade)


def _satisfaction(ranking, rows, scale, gain, times=None):
    """ERR's stopping probability R of the ranked rows ``rows`` (a slice or a mask).

    With ``times`` (the float64 values of those rows), returns ``times * R``, computed in
    place a slice of rows at a time where R is read from the labels.
    """
    if np.ndim(scale):  # the top grade of each query
        labels, query = ranking.label[rows], ranking.query[rows]
        if gain == "linear":
            inverse = np.divide(1.0, scale, out=np.zeros_like(scale), where=scale > 0)
            stop = labels * inverse[query]
        elif np.max(scale) < _EXP2_LIMIT:
            stop = (np.exp2(labels) - 1.0) * np.exp2(-scale)[query]
        else:
            scale = scale[query]
            stop = np.exp2(labels - scale) - np.exp2(-scale)  # 2**y overflows: not here
        if times is None:
            return stop
        times *= stop
        return times

    return ranking.map_labels(_stop_function(scale, gain), rows, times=times)


def _stop_function(scale, gain):
    """ERR's stopping probability R as a function of the grade, for one top grade."""

    def stop(labels):
        if gain == "linear":
            return labels / scale if scale > 0 else np.zeros_like(labels)
        if scale < _EXP2_LIMIT:
            return (np.exp2(labels) - 1.0) * np.exp2(-float(scale))
        # (2**y - 1) / 2**g_max for grades (or a max_grade) from 1024 on, where 2**y
        # overflows: the same number, without computing 2**y
        return np.exp2(labels - float(scale)) - np.exp2(-float(scale))

    return stop


def err(data, *, k, gain, max_grade, persistence, ties):
    ranking = data.ranking(ties)
    scale = _grade_scale(data, max_grade)
    undefined = data.max_label() <= 0
    if not ranking.has_ties and not np.ndim(scale) and _by_pieces(ranking, k):
        # R_t * prod_{u<t} go_on_u / t by pieces of the top rows: the same products, in
        # the same order, as below, with the arrays of a piece alone
        stop_of = ranking.grade_table(_stop_function(scale, gain))
        weights = _top_weight_table(ranking, k, lambda p: 1.0 / (p + 1.0))
        values = np.zeros(data.n_queries)
        for codes, width, rows in ranking.top_pieces(k):
            stop = stop_of[_grades_of(ranking, rows, width)]
            go_on = np.subtract(1.0, stop)
            go_on *= persistence
            value = np.empty_like(go_on)
            value[:, 0] = 1.0
            if width <= 16:  # column by column, as Buckets.cumprod_exclusive
                for j in range(1, width):
                    np.multiply(value[:, j - 1], go_on[:, j - 1], out=value[:, j])
            else:
                np.cumprod(go_on[:, :-1], axis=1, out=value[:, 1:])
            value *= stop
            value *= weights[:width]
            values[codes] = _row_sums(ranking, value)
        return values, undefined
    if not ranking.has_ties:
        # only the top k rows of each query matter: work on those alone
        if k is None:
            rows, buckets = slice(None), ranking.buckets
        else:
            rows, buckets = ranking.top_rows(k)
        # in place: R_t * prod_{u<t} go_on_u / t, one array of the rows alive (R is read
        # twice rather than kept: for integer grades, a table look-up, a slice at a time)
        value = _satisfaction(ranking, rows, scale, gain)
        np.subtract(1.0, value, out=value)
        value *= persistence
        buckets.cumprod_exclusive(value, in_place=True)
        _satisfaction(ranking, rows, scale, gain, times=value)
        top_position_weights(ranking, k, lambda p: 1.0 / (p + 1.0), scale=value)
        return ranking.per_query(value, k), undefined

    satisfaction = _satisfaction(ranking, slice(None), scale, gain)
    unsatisfied = 1.0 - satisfaction
    go_on = persistence * unsatisfied

    start, size = ranking.block_start, ranking.block_size
    reach = size if k is None else np.clip(k - start, 0, size)
    inner = np.zeros(len(size))
    first_row = ranking.block_first
    single = (size == 1) & (reach >= 1)
    inner[single] = satisfaction[first_row[single]] / (start[single] + 1.0)
    tied = np.flatnonzero((size > 1) & (reach >= 1))
    if len(tied):
        inner[tied] = _tied_err(
            unsatisfied, first_row[tied], size[tied], start[tied], reach[tied], persistence
        )
    block_before = ranking.block_buckets.cumprod_exclusive(ranking.member_buckets.prod(go_on))
    values = segment_sum(ranking.block_query, block_before * inner, data.n_queries)
    return values, undefined


def _tied_err(unsatisfied, first_row, size, start, reach, persistence):
    """Expected ERR contribution of tied blocks, relative to reaching the block.

    With ``a = p (1 - R)`` and ``H(l)`` the mean product of ``1 - R`` over the ``l``-subsets
    of a block, ``G(l) = p**l H(l)`` and the contribution at offset ``t`` is
    ``G(t-1) - G(t)/p = p**(t-1) (H(t-1) - H(t))``: computed in that form, which never
    divides by ``p`` (a tiny persistence would lose all precision).

    ``mean[b, l]`` is ``H(l)`` over the first ``i`` members of block ``b``; one step per
    member index ``i``, vectorised over all the blocks that have an ``i``-th member. Blocks
    are taken by octaves of size, so that ``mean`` holds at most about twice as many cells
    as the blocks have members (or ``depth`` per member), and by decreasing size within an
    octave, so that the blocks with an ``i``-th member are a leading slice of ``mean``.
    """
    out = np.zeros(len(size))
    octave = np.log2(size).astype(np.intp)  # every block has 2 members or more
    for level in np.unique(octave):
        chunk = np.flatnonzero(octave == level)
        chunk = chunk[np.argsort(-size[chunk], kind="stable")]
        m, s, depth, first = size[chunk], start[chunk], reach[chunk], first_row[chunk]
        width = int(depth.max())
        mean = np.zeros((len(chunk), width + 1))
        mean[:, 0] = 1.0
        # number of blocks with at least i members, for i = 1 .. largest size
        having = np.searchsorted(-m, -np.arange(1, int(m[0]) + 1), side="right")
        for i in range(1, int(m[0]) + 1):
            w = min(i, width)
            ell = np.arange(1, w + 1)
            cur = mean[: having[i - 1]]
            member = unsatisfied[first[: len(cur)] + (i - 1)]
            cur[:, 1 : w + 1] = ((i - ell) / i * cur[:, 1 : w + 1]
                                 + ell / i * member[:, None] * cur[:, :w])
        t = np.arange(1, width + 1)
        expected = (mean[:, :-1] - mean[:, 1:]) * persistence ** (t - 1.0)
        weight = np.where(t <= depth[:, None], 1.0 / (s[:, None] + t), 0.0)
        out[chunk] = (expected * weight).sum(axis=1)
    return out


def rbp(data, *, k, persistence, graded, max_grade, relevance_threshold, ties):
    ranking = data.ranking(ties)
    if graded:
        rel = _satisfaction(ranking, slice(None), _grade_scale(data, max_grade), "linear")
        undefined = data.max_label() <= 0
    else:
        rel = _binary(ranking, relevance_threshold)
        undefined = data.n_relevant(relevance_threshold) <= 0
    weight = position_weights(ranking.position, k,
                              lambda p: (1.0 - persistence) * persistence**p)
    return ranking.per_query(ranking.expected(rel) * weight), undefined


def rbp_residual(data, *, k, persistence):
    depth = data.ranked_rows.sizes if k is None else np.minimum(data.ranked_rows.sizes, k)
    return persistence ** depth.astype(np.float64)


# --------------------------------------------------------------------------------------
# Binary metrics
# --------------------------------------------------------------------------------------


def _hits(ranking, relevant, cut):
    """Expected number of relevant documents at positions below ``cut`` (per query)."""
    keep = ranking.position < cut
    return ranking.per_query(ranking.expected(relevant) * keep)


def count_before(ranking, rows, cut):
    """Per query, the number of ``rows`` (flat indices of ranked rows, increasing) at
    positions below ``cut`` (a number, or one per query), as floats.

    Each query's ranked rows are contiguous, from ``ranking.starts``: two binary searches
    per query, no pass over the rows. The counts equal :func:`_hits` of the rows'
    indicator without ties (a sum of ones, exact in float64).
    """
    if np.ndim(cut) == 0:
        cut = min(cut, ranking.n)  # a number of any size; inf for all rows
    order, starts = _starts_in_order(ranking, rows.dtype.str)
    depth = np.minimum(ranking.sizes[order], cut if np.ndim(cut) == 0 else cut[order])
    # each query's end is at most the next query's start: sorted too
    count = np.searchsorted(rows, starts + depth.astype(rows.dtype))
    count -= np.searchsorted(rows, starts)
    out = np.empty(len(order))
    out[order] = count
    return out


@cached
def _starts_in_order(ranking, dtype):
    """The queries by first row, and their starts in ``dtype`` (the rows' own type: below
    len(position)): sorted keys, which numpy searches far faster than scattered ones, and
    no widened copy of the rows."""
    order = np.argsort(ranking.starts, kind="stable")
    return order, ranking.starts[order].astype(dtype)


def relevant_hits(ranking, threshold, cut):
    """:func:`_hits` of the relevant documents (``label >= threshold``) below ``cut`` (a
    number, or one per query); without ties, counted from :meth:`Ranking.relevant`
    (cached), with no pass over the ranked rows for each cut-off."""
    if ranking.has_ties:
        return _hits(ranking, _binary(ranking, threshold),
                     cut[ranking.query] if np.ndim(cut) else cut)
    return count_before(ranking, ranking.relevant_rows(threshold)[0], cut)


def copies(result):
    """A kernel's ``(values, undefined)`` as new arrays: the measures that repeat a cached
    kernel with the same options (trec_eval's map and gm_map, bpref and gm_bpref) get
    results that share no array."""
    values, undefined = result
    return values.copy(), (None if undefined is None else undefined.copy())


def precision(data, *, k, relevance_threshold, short_lists, ties):
    ranking = data.ranking(ties)
    # the list's length: its ranked rows, or with "rows" every row of the query, those not
    # retrieved included (torchmetrics' length when scores <= 0 count as not retrieved)
    rows = data.all_rows if short_lists == "rows" else ranking
    n_list = rows.sizes.astype(np.float64)
    if k is None and ranking.has_ties:
        hits, depth = ranking.per_query(_binary(ranking, relevance_threshold)), n_list
    elif k is None:
        hits, depth = relevant_hits(ranking, relevance_threshold, np.inf), n_list
    else:
        # positions are below the number of rows: a larger k selects them all, and is only
        # read as the divisor (float(k) overflows beyond 1e308, where P@k is 0.0)
        hits = relevant_hits(ranking, relevance_threshold, min(k, ranking.n))
        depth = np.full(data.n_queries, float(k) if k < 2**1000 else np.inf)
        if short_lists in ("length", "rows"):
            depth = np.minimum(depth, n_list)
    values = np.divide(hits, depth, out=np.zeros_like(hits), where=depth > 0)
    return values, data.n_relevant(relevance_threshold) <= 0


def hits(data, *, k, relevance_threshold, ties):
    # a count, defined on every query; a query without relevant documents is still
    # "undefined" so that no_relevant treats it as every binary metric does (0 by default)
    ranking = data.ranking(ties)
    if not ranking.has_ties:
        found = relevant_hits(ranking, relevance_threshold, np.inf if k is None else k)
    else:
        relevant = _binary(ranking, relevance_threshold)
        found = ranking.per_query(relevant) if k is None else _hits(ranking, relevant, k)
    return found, data.n_relevant(relevance_threshold) <= 0


def recall(data, *, k, relevance_threshold, ties):
    found, undefined = hits(data, k=k, relevance_threshold=relevance_threshold, ties=ties)
    n_relevant = data.n_relevant(relevance_threshold)
    return np.divide(found, n_relevant, out=np.zeros_like(found), where=~undefined), undefined


def r_precision(data, *, relevance_threshold, ties):
    ranking = data.ranking(ties)
    n_relevant = data.n_relevant(relevance_threshold)
    hits = relevant_hits(ranking, relevance_threshold, n_relevant)
    undefined = n_relevant <= 0
    return np.divide(hits, n_relevant, out=np.zeros_like(hits), where=~undefined), undefined


def _first_relevant_positions(ranking, threshold):
    """Without ties: by chunks of whole queries, each query with a ranked relevant
    document, and the 0-based position of its first one."""
    for rows, first, query in ranking.relevant_chunks(threshold, _CHUNK_ROWS):
        # a row's position is its place minus its query's first: no positions of every row
        yield query, rows[first] - ranking.starts[query]


def reciprocal_rank(data, *, k, relevance_threshold, ties):
    ranking = data.ranking(ties)
    values = np.zeros(data.n_queries)
    if not ranking.has_ties:
        for query, s in _first_relevant_positions(ranking, relevance_threshold):
            rank = s + 1.0
            values[query] = 1.0 / rank if k is None else np.where(rank <= k, 1.0 / rank, 0.0)
        return values, data.n_relevant(relevance_threshold) <= 0
    relevant = _binary(ranking, relevance_threshold)
    query, block, r = _first_relevant_blocks(ranking, relevant)
    s, m = ranking.block_start[block], ranking.block_size[block]
    # offset j of the first relevant member: 1 .. m - r + 1, and within the cut-off
    last = m - r + 1 if k is None else np.clip(np.minimum(m - r + 1, k - s), 0, None)
    owner, j = _expand(last.astype(np.intp))
    prob = _comb_ratio(m[owner] - j, r[owner] - 1, m[owner], r[owner])
    values[query] = segment_sum(owner, prob / (s[owner] + j), len(block))
    return values, data.n_relevant(relevance_threshold) <= 0


def hit_rate(data, *, k, relevance_threshold, ties):
    ranking = data.ranking(ties)
    values = np.zeros(data.n_queries)
    if not ranking.has_ties:
        for query, s in _first_relevant_positions(ranking, relevance_threshold):
            values[query] = 1.0 if k is None else s < k
        return values, data.n_relevant(relevance_threshold) <= 0
    relevant = _binary(ranking, relevance_threshold)
    query, block, r = _first_relevant_blocks(ranking, relevant)
    s, m = ranking.block_start[block], ranking.block_size[block]
    if k is None:
        values[query] = 1.0
    else:
        slots = np.clip(k - s, 0, m)
        miss = _comb_ratio(m - r, slots, m, slots)  # no relevant member within the cut-off
        values[query] = np.where(slots > 0, 1.0 - miss, 0.0)
    return values, data.n_relevant(relevance_threshold) <= 0


def average_precision(data, *, k, relevance_threshold, ap_denominator, ties):
    return copies(_average_precision(data, k, relevance_threshold, ap_denominator, ties))


@cached
def _average_precision(data, k, relevance_threshold, ap_denominator, ties):
    ranking = data.ranking(ties)
    n_relevant = data.n_relevant(relevance_threshold)
    undefined = n_relevant <= 0
    numerator, found, relevant, contribution = _ap_sums(data, k, relevance_threshold, ties)
    if ap_denominator == "all" or k is None and ap_denominator != "found":
        denominator = n_relevant
    elif ap_denominator == "min_k":
        denominator = np.minimum(n_relevant, k)
    else:  # "found": relevant documents within the cut-off
        denominator = found
    values = np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0)
    if ap_denominator == "found" and k is not None and ranking.has_ties:
        _found_straddling(ranking, relevant, contribution, k, values)
    return values, undefined


@cached
def _ap_sums(data, k, relevance_threshold, ties):
    """AP's numerator per query, the sum of the precision at each relevant document ranked
    within the cut-off (expected over the orderings of tied documents), the number of those
    documents, and, with ties, :func:`_expected_precision_sums`' relevance and contributions
    (else None): computed once for map, gm_map and yaap."""
    ranking = data.ranking(ties)
    if ranking.has_ties:
        return _expected_precision_sums(ranking, relevance_threshold, k)
    return (*_precision_sums(ranking, relevance_threshold, k), None, None)


def yaap(data, *, relevance_threshold, ties):
    """trec_eval's yaap (m_yaap.c; Robertson, "On Smoothing Average Precision", ECIR 2012):
    ``log((1 + S) / (1 + R - S))``, S being AP's numerator (AP = S / R) and R the number of
    relevant documents; defined on every query (0 when R = 0, as S is then 0)."""
    numerator = _ap_sums(data, None, relevance_threshold, ties)[0]
    n_relevant = data.n_relevant(relevance_threshold)
    return np.log((1.0 + numerator) / (1.0 + n_relevant - numerator)), None


# Rows per chunk of AP's and RR's passes over the relevant rows (Ranking.relevant_chunks):
# their temporaries are a chunk's (at most 512 KiB each), not all rows'.
_CHUNK_ROWS = 1 << 16


def _precision_sums(ranking, threshold, k):
    """Without ties, per query: the sum of precision at the rank of each relevant document
    within the cut-off, and the number of those documents.

    The relevant rows alone are read: the ``j``-th of a query at 0-based position ``p``
    adds ``j / (p + 1)``. By chunks of whole queries (:meth:`Ranking.relevant_chunks`, of
    about :data:`_CHUNK_ROWS` rows), so that the relevant rows, their positions and the
    running counts are a chunk's.
    """
    numerator, found = np.zeros(ranking.n_queries), np.zeros(ranking.n_queries)
    for rows, starts, owners in ranking.relevant_chunks(threshold, _CHUNK_ROWS):
        count = np.diff(starts, append=len(rows))
        # a row's position is its place minus its query's first ranked row: no positions
        # of every ranked row
        position = np.repeat(ranking.starts[owners], count)
        np.subtract(rows, position, out=position)
        if k is not None and position.max() >= k:
            kept = np.flatnonzero(position < k)
            if not len(kept):
                continue
            member = np.repeat(np.arange(len(owners)), count)[kept]
            position = position[kept]
            starts = np.flatnonzero(np.diff(member, prepend=-1))
            owners = owners[member[starts]]
            count = np.diff(starts, append=len(position))
        # j, the count of relevant rows so far in the query: ones, each query's first set
        # back by the count of the query before, summed in place (exact integers in
        # float64; no second array of the relevant rows)
        found_so_far = np.ones(len(position))
        found_so_far[starts[1:]] -= count[:-1]
        np.cumsum(found_so_far, out=found_so_far)
        # the rank p + 1, in place in the gathered positions (below n: no overflow),
        # divides as the float p + 1.0 would
        position += 1
        found_so_far /= position
        del position
        numerator[owners] = ranking.segment_sums(found_so_far, starts)
        found[owners] = count
    return numerator, found


def _expected_precision_sums(ranking, threshold, k):
    """:func:`_precision_sums` as expectations over the orderings of tied documents.

    Also returns the relevance of each row and each row's expected contribution, which the
    "found" denominator needs where a tie block straddles the cut-off.
    """
    relevant = _binary(ranking, threshold)
    position = ranking.position
    before, in_block = ranking.relevant_before_block(relevant)
    block = ranking.block
    size = ranking.block_size[block]
    offset = position - ranking.block_start[block]
    r = in_block[block]
    # E[rel_i * C_i] with C_i the number of relevant documents up to position i
    contribution = r / size * (before[block] + 1.0 + offset * (r - 1.0) / np.maximum(size - 1, 1))
    contribution *= position_weights(position, k, lambda p: 1.0 / (p + 1.0))
    found = _hits(ranking, relevant, np.inf if k is None else k)
    return ranking.per_query(contribution), found, relevant, contribution


def _found_straddling(ranking, relevant, contribution, k, values):
    """Exact AP@k with the "found" denominator where a tie block straddles rank k.

    The denominator then depends on how many of the block's ``r`` relevant members land in
    the ``q = k - s`` slots above the cut-off: a hypergeometric ``x``. Given ``x``, those
    members are uniformly placed in the ``q`` slots.
    """
    from scipy.special import digamma  # 0.26 s to import: only where a block straddles k

    start, size = ranking.block_start, ranking.block_size
    before, in_block = ranking.relevant_before_block(relevant)
    straddle = np.flatnonzero((start < k) & (start + size > k) & (in_block > 0))
    if not len(straddle):
        return
    query = ranking.block_query[straddle]
    outside = ~np.isin(ranking.block, straddle)
    fixed = segment_sum(ranking.query, contribution * outside, ranking.n_queries)[query]
    s = start[straddle].astype(np.float64)
    m = size[straddle].astype(np.float64)
    r = in_block[straddle]
    b = before[straddle]
    q = k - s
    lowest = np.maximum(0.0, q - (m - r))
    count = (np.minimum(r, q) - lowest + 1).astype(np.intp)
    owner, offset = _expand(count)
    x = lowest[owner] + offset - 1.0
    mo, ro, qo = m[owner], r[owner], q[owner]
    prob = np.exp(_log_comb(ro, x) + _log_comb(mo - ro, qo - x) - _log_comb(mo, qo))
    so, qo = s[owner], q[owner]
    h1 = digamma(so + qo + 1.0) - digamma(so + 1.0)  # sum_{t=1..q} 1 / (s + t)
    h2 = qo - (so + 1.0) * h1  # sum_{t=1..q} (t - 1) / (s + t)
    pairs = np.divide(x - 1.0, qo - 1.0, out=np.zeros_like(x), where=qo > 1)
    inside = x / qo * ((b[owner] + 1.0) * h1 + pairs * h2)
    found = b[owner] + x
    term = np.divide(fixed[owner] + inside, found, out=np.zeros_like(x), where=found > 0)
    values[query] = segment_sum(owner, prob * term, len(straddle))


# --------------------------------------------------------------------------------------
# Correlations and pairs
# --------------------------------------------------------------------------------------

_PAIRWISE_CELLS = 1 << 22  # cells of the pair matrices built at once
_PAIRWISE_WIDTH = 4096  # longer queries use an O(m log m) method, one query at a time
_PAIRWISE_GRADES = 32  # integer grades below this: counted grade by grade, O(n) per grade


def pair_counts(data):
    """Per query: pairs, pairs tied in y_true, tied in y_score, tied in both, and S = C - D.

    Only ranked (retrieved) documents form pairs: the others have no meaningful score.
    """
    if data.grades is not None and data.top_label < _PAIRWISE_GRADES:
        return _graded_pair_counts(data)
    group = data.ranked_rows
    y, s = group.label, group.score
    out = np.zeros((5, data.n_queries))
    for seg, width, index, _ in Buckets(group.sizes, group.starts, pad=False).blocks:
        if width == 1:
            continue
        if width > _PAIRWISE_WIDTH:
            _pair_counts_long(y, s, group, seg, out)
            continue
        labels, scores = Buckets.view(y, width, index), Buckets.view(s, width, index)
        upper = np.triu(np.ones((width, width), dtype=bool), 1)
        step = max(1, _PAIRWISE_CELLS // (width * width))
        out[0, seg] = width * (width - 1) / 2
        for lo in range(0, len(seg), step):
            yy, ss = labels[lo : lo + step], scores[lo : lo + step]
            # signs by comparison, not by subtraction: exact for every dtype (a difference
            # of unsigned grades wraps, one of integers beyond 2**53 in float64 rounds)
            above, below = yy[:, :, None] > yy[:, None, :], yy[:, :, None] < yy[:, None, :]
            dy = above.astype(np.int8) - below
            above, below = ss[:, :, None] > ss[:, None, :], ss[:, :, None] < ss[:, None, :]
            ds = above.astype(np.int8) - below
            tie_y, tie_s = (dy == 0) & upper, (ds == 0) & upper
            rows = seg[lo : lo + step]
            out[1, rows] = tie_y.sum(axis=(1, 2))
            out[2, rows] = tie_s.sum(axis=(1, 2))
            out[3, rows] = (tie_y & tie_s).sum(axis=(1, 2))
            out[4, rows] = (dy * ds * upper).sum(axis=(1, 2))
    return out


def _graded_pair_counts(data):
    """:func:`pair_counts` for small integer grades, from the ranking, in O(n) per grade.

    In the ranking (documents by decreasing score, equal scores in one tie block), a document
    of grade ``y`` forms with each document of an earlier block (a higher score) a concordant
    pair if that one's grade is higher, a discordant one if lower. So, grade by grade, the
    number of documents of grade ``g`` in the earlier blocks of the query gives each
    document's share of ``S = C - D``; the same per-block counts give the pairs tied in both.
    """
    ranking = data.ranking("average")
    grades = ranking.grades
    sizes = ranking.sizes.astype(np.float64)
    n_pairs = sizes * (sizes - 1.0) / 2.0
    tied_label = np.zeros(data.n_queries)
    tied_both = np.zeros(len(ranking.block_size))  # per tie block
    signed = np.zeros(len(grades))  # per document: C - D with the documents ranked above
    for grade in range(int(data.top_label) + 1):
        is_grade = (grades == grade).astype(np.float64)
        count = ranking.per_query(is_grade)
        tied_label += count * (count - 1.0) / 2.0
        before, in_block = ranking.relevant_before_block(is_grade)
        del is_grade
        tied_both += in_block * (in_block - 1.0) / 2.0
        if ranking.has_ties:
            before = before[ranking.block]
        # +1 for each such document if the grade is above this document's, -1 if below
        np.add(signed, before, out=signed, where=grades < grade)
        np.subtract(signed, before, out=signed, where=grades > grade)
    if ranking.has_ties:
        block_size = ranking.block_size.astype(np.float64)
        tied_score = segment_sum(ranking.block_query, block_size * (block_size - 1.0) / 2.0,
                                 data.n_queries)
        tied_both = segment_sum(ranking.block_query, tied_both, data.n_queries)
    else:
        tied_score = tied_both = np.zeros(data.n_queries)
    return np.stack([n_pairs, tied_label, tied_score, tied_both, ranking.per_query(signed)])


def _pair_counts_long(y, s, group, seg, out):
    from scipy.stats import kendalltau

    def tied_pairs(*keys):
        # runs of equal keys after one sort, compared in each key's own dtype (stacking the
        # keys would cast integers beyond 2**53 to float64, and merge them)
        order = np.lexsort(keys[::-1])
        same = np.ones(len(order) - 1, dtype=bool)
        for key in keys:
            key = key[order]
            same &= key[1:] == key[:-1]
        counts = np.diff(np.flatnonzero(np.r_[True, ~same, True]))
        return float((counts * (counts - 1) // 2).sum())

    for g in seg:  # only queries longer than _PAIRWISE_WIDTH documents
        lo = group.starts[g]
        yy, ss = y[lo : lo + group.sizes[g]], s[lo : lo + group.sizes[g]]
        m = len(yy)
        n0, n1, n2, n3 = m * (m - 1) / 2, tied_pairs(yy), tied_pairs(ss), tied_pairs(yy, ss)
        if n1 == n0 or n2 == n0:
            diff = 0.0
        else:
            tau = kendalltau(yy, ss, variant="b").statistic
            diff = tau * np.sqrt((n0 - n1) * (n0 - n2))
        out[:, g] = n0, n1, n2, n3, np.round(diff)


def kendall_tau(data):
    n0, n1, n2, _, diff = pair_counts(data)
    undefined = n1 >= n0
    denominator = np.sqrt(np.maximum(n0 - n1, 0) * np.maximum(n0 - n2, 0))
    values = np.divide(diff, denominator, out=np.zeros(data.n_queries), where=denominator > 0)
    return values, undefined


def pairwise_accuracy(data, *, ties_credit):
    n0, n1, n2, n3, diff = pair_counts(data)
    comparable = n0 - n1
    untied = n0 - n1 - n2 + n3  # pairs tied in neither: C + D
    concordant = (untied + diff) / 2.0
    credited = concordant + ties_credit * (n2 - n3)
    undefined = comparable <= 0
    return np.divide(credited, comparable, out=np.zeros_like(credited), where=~undefined), undefined


def _average_ranks(values, group):
    """Rank of each row of ``group`` within its query (ties get their mean rank), 0-based."""
    order, tied = group.rank_by(values)
    new_block = np.ones(group.n, dtype=bool)
    new_block[tied] = False
    block = np.cumsum(new_block) - 1
    mean = np.bincount(block, group.position) / np.bincount(block)
    ranks = np.empty(group.n)
    ranks[order] = mean[block]
    return ranks


def spearman(data):
    group = data.ranked_rows
    centre = (group.sizes[group.codes] - 1) / 2.0
    ry = _average_ranks(group.values(data.y_true), group) - centre
    rs = _average_ranks(group.values(data.y_score), group) - centre
    sums = [segment_sum(group.codes, v, data.n_queries) for v in (ry * rs, ry * ry, rs * rs)]
    undefined = sums[1] <= 0
    denominator = np.sqrt(sums[1] * sums[2])
    values = np.divide(sums[0], denominator, out=np.zeros(data.n_queries), where=denominator > 0)
    return values, undefined
