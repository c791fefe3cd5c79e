"""Per-query values of trec_eval's curve and gain measures: interpolated precision, the
11-point average, R-precision at multiples of R, binG, G, ndcg_rel and Rndcg.

The kernels follow :mod:`~sklearn_rank.metrics._per_query`: ``kernel(data, **options)``
returns ``(values, undefined)``, one value per query in query-code order and the mask of the
queries to which ``no_relevant`` applies, with no Python loop over queries. Each reproduces
the trec_eval measure of the same name (``m_<name>.c``); ``tests/test_trec_measures_curves.py``
checks them against trec_eval compiled (pytrec_eval) and trec_eval's own test fixtures.

Ties (``ties="average"``):

* **Exact expectations** over the orderings of tied documents where the measure allows one:
  ``rprec_mult`` (a precision at a cut-off: linear in the relevance of the rows), ``rndcg``
  (an average of nDCG at cut-offs that do not depend on the ranking), ``bing`` (within a
  tie block of ``m`` documents, ``r`` of them relevant, the number of non-relevant members
  above a given relevant one is uniform on ``0..m-r``) and ``ndcg_rel`` (a sum of products
  of one document's relevance and another's gain, whose expectation over a tie block is the
  mean over its pairs of members).
* **Measures of the averaged list** for ``iprec_at_recall``, ``eleven_point_average`` and
  ``g``, whose exact expectation has no tractable form (a maximum over ranks; a gain divided
  by a function of the gains above it): every tied document takes its block's mean relevance
  (or gain), the tie-aware curves of McSherry & Najork (2008), and the measure is computed on
  them. This is not the mean of the measure over the orderings; without ties it is the
  measure itself. For interpolated precision, the expected precision at a cut-off is a
  monotone function of the cut-off within a block, so the largest one over a range of
  cut-offs is at an end of each block.
"""

import numpy as np

from ._engine import Buckets, cached, segment_sum
from ._per_query import (
    _binary,
    _expand,
    check_gain,
    discount_weight,
    gain_input,
    gain_key,
    gain_values,
    ideal_gains,
    position_weights,
    relevant_hits,
    segment_cumsum,
)

# trec_eval's 11 recall levels (m_11pt_avg.c, m_iprec_at_recall.c), written as its literals:
# 0.1 * 3 is not 0.3, and a level times R rounds to a number of relevant documents.
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

RECALL_ROUNDINGS = ("nearest", "legacy")


# --------------------------------------------------------------------------------------
# R-precision at multiples of R
# --------------------------------------------------------------------------------------


def rprec_mult(data, *, mult, relevance_threshold, ties):
    """Precision at the cut-off ``floor(mult * R + 0.9)`` (m_Rprec_mult.c), dividing by the
    cut-off when the list is shorter; 0 at a cut-off of 0."""
    ranking = data.ranking(ties)
    n_relevant = data.n_relevant(relevance_threshold)
    cut = np.floor(mult * n_relevant + 0.9)
    hits = relevant_hits(ranking, relevance_threshold, cut)
    values = np.divide(hits, cut, out=np.zeros_like(hits), where=cut > 0)
    return values, n_relevant <= 0


# --------------------------------------------------------------------------------------
# Interpolated precision
# --------------------------------------------------------------------------------------


def check_recall_levels(levels):
    """The recall levels of the 11-point average, as a 1-D float array in [0, 1]."""
    try:
        array = np.asarray(levels, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"recall_levels must be a sequence of recall levels in [0, 1], e.g. "
            f"(0.25, 0.5, 0.75); got {levels!r}."
        ) from None
    if array.ndim != 1 or not len(array) or not ((array >= 0) & (array <= 1)).all():
        raise ValueError(
            f"recall_levels must be a non-empty sequence of recall levels in [0, 1], e.g. "
            f"(0.25, 0.5, 0.75); got {levels!r}."
        )
    return array


def _relevant_counts(levels, n_relevant, rounding):
    """The number of relevant documents ``c`` at each recall level, per query: ``level * R``
    rounded to the nearest integer, halves up (``lround``: trec_eval 10.0), or
    ``floor(level * R + 0.9)`` (``"legacy"``: trec_eval up to 9.0.8, hence pytrec_eval)."""
    x = n_relevant[:, None] * levels[None, :]
    if rounding == "legacy":
        return np.floor(x + 0.9)
    counts = np.floor(x)
    counts += (x - counts) >= 0.5  # exact: x and floor(x) are within a factor 2
    return counts


def _relevant_blocks(ranking, threshold):
    """The ranked tie blocks that hold a relevant document, in ranked order, query by query.

    Returns their query, their first 0-based position ``s``, size ``m``, number of relevant
    members ``r`` and of relevant documents ranked before them in the query ``b`` (floats).
    Without ties, a block is a relevant document.
    """
    if not ranking.has_ties:
        rows, query, first = ranking.relevant(threshold)
        start = ranking.position[rows].astype(np.float64)
        before = np.arange(len(rows), dtype=np.float64)
        before -= np.repeat(first, np.diff(np.append(first, len(rows))))
        ones = np.ones(len(rows))
        return query, start, ones, ones, before
    relevant = _binary(ranking, threshold)
    before, in_block = ranking.relevant_before_block(relevant)
    blocks = np.flatnonzero(in_block > 0)
    return (ranking.block_query[blocks], ranking.block_start[blocks].astype(np.float64),
            ranking.block_size[blocks].astype(np.float64), in_block[blocks], before[blocks])


def _later_maximum(values, query):
    """For each block, the largest of ``values`` over the later blocks of its query (0 if
    none): a maximum accumulated backwards within each query's run of blocks, the runs of
    one length side by side in 2-D buckets."""
    n = len(values)
    first = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    buckets = Buckets(np.diff(np.append(first, n)), first)
    suffix = buckets.scan(
        values, lambda block: np.maximum.accumulate(block[:, ::-1], axis=1)[:, ::-1], -np.inf)
    later = np.zeros(n)
    later[:-1] = suffix[1:]
    later[first[1:] - 1] = 0.0  # the last block of a query: none after it
    return later


@cached
def _precision_curve(ranking, threshold):
    """What interpolated precision reads at any recall level, once per ranking and
    threshold (cached on the ranking: ``iprec_at_recall`` at eleven levels and ``11pt_avg``
    share it).

    Per block holding a relevant document (see :func:`_relevant_blocks`): its query, first
    position, size, relevant members and relevant documents before it, the (expected)
    precision at its end, the largest precision over the later blocks of its query, and the
    relevant documents up to its end counted over all queries; per query, the relevant
    documents retrieved and the count before its first block.
    """
    query, start, size, found, before = _relevant_blocks(ranking, threshold)
    n_queries = ranking.n_queries
    retrieved = segment_sum(query, found, n_queries)
    if not len(query):
        return query, start, size, found, before, found, found, retrieved, found, found
    # the (expected) precision at each end of each block; the largest over the later
    # blocks of the query
    at_end = (before + found) / (start + size)
    at_start = (before * size + found) / (size * (start + 1.0))
    later = _later_maximum(np.maximum(at_start, at_end), query)
    total = np.cumsum(found)  # relevant documents up to each block's end, over queries
    offset = np.zeros(n_queries)
    first = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    offset[query[first]] = total[first] - found[first]
    return query, start, size, found, before, at_end, later, retrieved, total, offset


def interpolated_precision(data, levels, *, relevance_threshold, recall_rounding, ties):
    """trec_eval's interpolated precision at each recall level, per query.

    At level ``x`` (``c`` relevant documents, see :func:`_relevant_counts`): the largest
    precision at a rank at or below that of the ``c``-th relevant document
    (``Int_Prec(rank X) = MAX(Prec(rank Y)) for all Y >= X``), 0 when fewer than ``c`` are
    retrieved. With ``ties="average"``, on the tie-averaged curve (see the module's
    documentation).

    Returns the values, of shape (n_queries, n_levels), and the queries without a relevant
    document.
    """
    ranking = data.ranking(ties)
    n_relevant = data.n_relevant(relevance_threshold)
    counts = _relevant_counts(levels, n_relevant, recall_rounding)
    (query, start, size, found, before, at_end, later, retrieved, total,
     offset) = _precision_curve(ranking, relevance_threshold)
    values = np.zeros((data.n_queries, len(levels)))
    if len(query):
        # per (query, level) with c <= retrieved: the block where the c-th relevant
        # document is reached, and the first rank there at which the expected number of
        # relevant documents is c
        needed = np.maximum(counts, 1.0)
        where = np.nonzero(needed <= retrieved[:, None])
        q = where[0]
        block = np.searchsorted(total, offset[q] + needed[where], side="left")
        s, m, r, b = start[block], size[block], found[block], before[block]
        step = np.clip(np.ceil((needed[where] - b) * m / r), 1.0, m)
        reached = (b * m + step * r) / (m * (s + step))
        values[where] = np.maximum(np.maximum(reached, at_end[block]), later[block])
    return values, n_relevant <= 0


@cached
def _eleven_points(data, relevance_threshold, recall_rounding, ties):
    """:func:`interpolated_precision` at the :data:`ELEVEN_POINTS`, cached on ``data``:
    trec_eval's iprec_at_recall at its eleven levels and 11pt_avg share one pass (each
    value depends on its query and level alone: the same numbers as level by level)."""
    return interpolated_precision(
        data, np.array(ELEVEN_POINTS), relevance_threshold=relevance_threshold,
        recall_rounding=recall_rounding, ties=ties)


def iprec_at_recall(data, *, recall, relevance_threshold, recall_rounding, ties):
    level = float(recall)
    if level in ELEVEN_POINTS:
        values, undefined = _eleven_points(data, relevance_threshold, recall_rounding, ties)
        return values[:, ELEVEN_POINTS.index(level)].copy(), undefined.copy()
    values, undefined = interpolated_precision(
        data, np.array([level]), relevance_threshold=relevance_threshold,
        recall_rounding=recall_rounding, ties=ties)
    return values[:, 0], undefined


def eleven_point_average(data, *, recall_levels, relevance_threshold, recall_rounding, ties):
    levels = check_recall_levels(recall_levels)
    if np.array_equal(levels, ELEVEN_POINTS):
        values, undefined = _eleven_points(data, relevance_threshold, recall_rounding, ties)
        undefined = undefined.copy()
    else:
        values, undefined = interpolated_precision(
            data, levels, relevance_threshold=relevance_threshold,
            recall_rounding=recall_rounding, ties=ties)
    total = np.zeros(data.n_queries)
    for column in values.T[::-1]:  # m_11pt_avg.c adds from the last level down
        total += column
    return total / len(levels), undefined


# --------------------------------------------------------------------------------------
# binG and G
# --------------------------------------------------------------------------------------


def bing(data, *, relevance_threshold, ties):
    """Sum over the relevant documents of ``1 / log2(2 + non-relevant ranked above)``,
    over R (m_binG.c)."""
    ranking = data.ranking(ties)
    n_relevant = data.n_relevant(relevance_threshold)
    query, start, size, found, before = _relevant_blocks(ranking, relevance_threshold)
    # a relevant member has the block's m - r non-relevant members above it uniformly
    # 0..m-r times: r / (m - r + 1) times the sum over those counts
    spread = (size - found + 1.0).astype(np.intp)
    owner, offset = _expand(spread)
    above = start[owner] - before[owner] + offset - 1.0
    terms = found[owner] / spread[owner] / np.log2(2.0 + above)
    total = segment_sum(query[owner], terms, data.n_queries)
    undefined = n_relevant <= 0
    return np.divide(total, n_relevant, out=np.zeros_like(total), where=~undefined), undefined


def _ideal_at(data, ideal_values, ranking):
    """``ideal_values`` (laid out as ``data.all_rows``) at each ranked row's position."""
    return ideal_values[data.all_rows.starts[ranking.query] + ranking.position]


def g(data, *, gain, ties):
    """trec_eval's G (m_G.c): the sum over the ranked documents of
    ``gain / log2(2 + cost - gains so far)``, over the sum of the ideal gains, where the
    cost adds ``max(ideal gain, 1)`` per rank."""
    gain = check_gain(gain)
    data = gain_input(data, gain)
    ranking = data.ranking(ties)
    group = data.all_rows
    ideal = ideal_gains(data, gain)
    cost = segment_cumsum(np.maximum(ideal, 1.0), group.buckets)
    gains = ranking.expected(ranking.map_labels(lambda labels: gain_values(labels, gain)))
    so_far = segment_cumsum(gains, ranking.buckets)
    spent = 2.0 + _ideal_at(data, cost, ranking)
    spent -= so_far
    terms = np.divide(gains, np.log2(spent), out=np.zeros_like(gains), where=gains != 0)
    total = segment_sum(group.query, np.maximum(ideal, 0.0), data.n_queries)
    values = ranking.per_query(terms)
    undefined = total <= 0
    return np.divide(values, total, out=np.zeros_like(values), where=~undefined), undefined


# --------------------------------------------------------------------------------------
# nDCG averaged over relevant documents and over R levels
# --------------------------------------------------------------------------------------


def _ideal_curve(data, gain, discount, log_base):
    """The ideal ordering's gains and running ideal DCG (laid out as ``data.all_rows``), and
    per query the number of positive ideal gains and the whole ideal DCG.

    Cached on ``data`` per gain and discount (ndcg_rel and Rndcg share it); the arrays are
    shared: callers must not write to them.
    """
    cache = vars(data).setdefault("_cache", {})
    key = ("ideal_curve", gain_key(gain), discount, log_base)
    if key not in cache:
        cache[key] = _compute_ideal_curve(data, gain, discount_weight(discount, log_base))
    return cache[key]


def _compute_ideal_curve(data, gain, weight):
    group = data.all_rows
    ideal = ideal_gains(data, gain)
    positive = np.maximum(ideal, 0.0)
    running = segment_cumsum(positive * position_weights(group.position, None, weight),
                             group.buckets)
    n_positive = segment_sum(group.query, (ideal > 0).astype(np.float64), data.n_queries)
    last = group.starts + group.sizes - 1
    return ideal, running, n_positive, running[last]


def _expected_running_dcg(ranking, gain, discount, log_base):
    """:func:`_running_dcg` of the expected gains (each tie block's mean) and the
    discount, cached on ``ranking`` (ndcg_rel and Rndcg share it); the arrays are shared:
    callers must not write to them."""
    cache = vars(ranking).setdefault("_cache", {})
    key = ("expected_running_dcg", gain_key(gain), discount, log_base)
    if key not in cache:
        gains = ranking.expected(ranking.map_labels(lambda labels: gain_values(labels, gain)))
        cache[key] = _running_dcg(ranking, gains, discount_weight(discount, log_base))
    return cache[key]


def _running_dcg(ranking, gains, weight):
    """DCG at each ranked row (its own gain included), and per query the whole DCG."""
    weighted = gains * position_weights(ranking.position, None, weight)
    running = segment_cumsum(weighted, ranking.buckets)
    total = np.zeros(ranking.n_queries)
    nonempty = ranking.sizes > 0
    total[nonempty] = running[(ranking.starts + ranking.sizes - 1)[nonempty]]
    return running, total


def ndcg_rel(data, *, gain, discount, log_base, ties):
    """trec_eval's ndcg_rel (m_ndcg_rel.c): nDCG at the rank of each document of positive
    gain, averaged over the positive-gain documents; one not retrieved counts the nDCG at
    the end of the list. 0 when that sum is not positive."""
    gain = check_gain(gain)
    data = gain_input(data, gain)
    weight = discount_weight(discount, log_base)
    ranking = data.ranking(ties)
    _, ideal_running, n_positive, ideal_total = _ideal_curve(data, gain, discount, log_base)
    gains = ranking.map_labels(lambda labels: gain_values(labels, gain))
    positive = (gains > 0).astype(np.float64)
    ideal_here = _ideal_at(data, ideal_running, ranking)
    if ranking.has_ties:
        if isinstance(gain, dict) and min(gain.values()) < 0:
            raise ValueError(
                "ndcg_rel with negative gains has no exact expectation over the orderings "
                "of tied documents: trec_eval scores a query 0 when its sum is negative. "
                "Pass ties='stable' (trec_eval's order), 'optimistic' or 'pessimistic'."
            )
        at_rank = _expected_positive_dcg(ranking, gains, positive, weight)
    else:
        at_rank = positive * _expected_running_dcg(ranking, gain, discount, log_base)[0]
    dcg_total = _expected_running_dcg(ranking, gain, discount, log_base)[1]
    # the ideal DCG is positive from the first rank on when a gain is positive
    counted = (ideal_here > 0) if ranking.has_ties else (positive > 0)
    ratio = np.divide(at_rank, ideal_here, out=np.zeros_like(at_rank), where=counted)
    total = ranking.per_query(ratio)
    retrieved = ranking.per_query(positive)
    tail = np.divide(dcg_total, ideal_total, out=np.zeros_like(dcg_total),
                     where=ideal_total > 0)
    total += (n_positive - retrieved) * tail
    undefined = n_positive <= 0
    values = np.divide(total, n_positive, out=np.zeros_like(total), where=~undefined)
    return np.where(total > 0, values, 0.0), undefined


def _expected_positive_dcg(ranking, gains, positive, weight):
    """``E[1{gain_Y > 0} DCG(Y)]`` at each ranked position ``Y`` over the orderings of tied
    documents (DCG(Y) includes the document at ``Y``).

    The earlier blocks enter through their mean gains (blocks are independent); within the
    block, the document at ``Y`` and one above it are a uniform pair of distinct members,
    and the document at ``Y`` alone a uniform member.
    """
    block, size = ranking.block, ranking.block_size.astype(np.float64)
    share = ranking.block_sum(positive) / size  # P(the document at Y has a positive gain)
    both = ranking.block_sum(positive * gains) / size  # E[1{gain > 0} gain] of one member
    pairs = np.divide(ranking.block_sum(positive) * ranking.block_sum(gains)
                      - ranking.block_sum(positive * gains), size * (size - 1.0),
                      out=np.zeros_like(size), where=size > 1)
    weights = position_weights(ranking.position, None, weight)
    mean_gains = ranking.expected(gains)
    before = segment_cumsum(mean_gains * weights, ranking.buckets)
    before -= mean_gains * weights  # expected DCG above each row...
    first = ranking.block_first
    before_block = before[first][block]  # ...above its block
    within = segment_cumsum(weights, ranking.member_buckets) - weights  # weights above it
    return (share[block] * before_block + pairs[block] * within + both[block] * weights)


def rndcg(data, *, gain, discount, log_base, relevance_threshold, ties):
    """trec_eval's Rndcg (m_Rndcg.c): nDCG averaged over the R levels, the cut-offs where
    the ideal gain changes (the last ideal document of each gain level), and at the end of
    the list when it goes on beyond the ideal's positive gains (trec_eval's condition:
    at least two documents beyond)."""
    gain = check_gain(gain)
    data = gain_input(data, gain)
    ranking = data.ranking(ties)
    group = data.all_rows
    ideal, ideal_running, n_positive, ideal_total = _ideal_curve(data, gain, discount, log_base)
    running, dcg_total = _expected_running_dcg(ranking, gain, discount, log_base)
    n_ret = ranking.sizes
    # R levels: ideal rows of positive gain followed by another gain (or by none)
    following = np.append(ideal[1:], -np.inf)
    following[group.starts + group.sizes - 1] = -np.inf
    level_end = np.flatnonzero((ideal > 0) & (following != ideal))
    query = group.query[level_end]
    cut = group.position[level_end].astype(np.intp) + 1  # nDCG@cut
    depth = np.minimum(cut, n_ret[query])
    at_cut = np.zeros(len(cut))
    ranked = depth > 0
    at_cut[ranked] = running[ranking.starts[query[ranked]] + depth[ranked] - 1]
    terms = at_cut / ideal_running[level_end]
    total = segment_sum(query, terms, data.n_queries)
    count = np.bincount(query, minlength=data.n_queries).astype(np.float64)
    beyond = (n_positive + 1 < n_ret) & (ideal_total > 0)
    total[beyond] += dcg_total[beyond] / ideal_total[beyond]
    count += beyond
    undefined = (data.n_relevant(relevance_threshold) <= 0) | (count == 0)
    return np.divide(total, count, out=np.zeros_like(total), where=~undefined), undefined

