"""Per-query values of the measures for incomplete judgements, of retrieved sets and of counts.

The kernels follow :mod:`~sklearn_rank.metrics._per_query`: ``kernel(data, **options)``
returns ``(values, undefined)``, one value per query in query-code order and the mask of the
queries to which ``no_relevant`` applies (``None`` for the measures defined on every query),
with no Python loop over queries. The trec_eval measures are trec_eval's (``m_<name>.c``),
Judged@k is ir_measures' and F1@k ranx's; ``tests/test_trec_measures_judged.py`` checks them
against trec_eval compiled (pytrec_eval), its test fixtures, ir_measures and ranx.

A ranked row is in one of trec_eval's judgement states (``form_res_rels.c``): judged, with a
grade; in the judgement pool but unjudged (a qrels -1, :attr:`RankingInput.pool_unjudged`);
or outside the pool (not in the qrels). ``judged="y_true"`` reads the last two from negative
grades and NaN; without it every row is judged.

* **Sets and counts** (``set_*``, ``num_*``, ``utility``) depend on the retrieved set only:
  they read no ranking and need no sort.
* **Linear in the rows' indicators** (Judged@k, unj@k, fall-out@k, relative P@k, F1@k, the
  RBP residual): with ``ties="average"``, each indicator is replaced by its tie block's
  mean, the exact expectation over the orderings of tied documents.
* **bpref** counts, for each judged relevant document, the judged non-relevant ones ranked
  above it. Within a tie block of ``q`` judged non-relevant documents, the number of them
  above a given relevant member is uniform on ``0..q`` (documents of the other states do
  not enter), so the expectation of ``min(b + X, R)`` is a difference of two sums of
  ``min(j, R)``, in closed form.
* **infAP** is not linear in the counts above a relevant document: with ties, its exact
  expectation sums, for each tie block holding a relevant document, over the number ``T``
  of members above it (uniform) and the number ``Y`` of judged ones among them
  (hypergeometric). Given ``(T, Y)``, the relevant documents among the ``Y`` and the
  out-of-pool ones among the ``T - Y`` are independent hypergeometric counts, in which the
  term is linear: their means enter exactly. The sum has one term per ``(T, Y)`` pair, so
  about ``m * min(judged, unjudged)`` terms for a block of ``m`` documents (``m`` when its
  members are all judged, or all unjudged but the relevant one).
"""

import numpy as np

from ..utils._qid import code_dtype
from ._engine import at_least, cached, segment_sum
from ._per_query import (
    _binary,
    _comb_ratio,
    _expand,
    _first_relevant_blocks,
    _hits,
    _log_comb,
    copies,
    count_before,
    position_weights,
    relevant_hits,
)
from ._per_query import rbp_residual as _rbp_tail

# trec_eval's INFAP_EPSILON (trec_eval.h): keeps infAP's estimate of the precision above a
# relevant document defined when no judged document precedes it.
INFAP_EPSILON = 1e-5

# infAP with ties="average": terms computed at once (memory), and at most in one call (time:
# about a second per 2**25 terms).
_INFAP_CHUNK = 1 << 22
_INFAP_MAX_TERMS = 1 << 28


# --------------------------------------------------------------------------------------
# Judgement states
# --------------------------------------------------------------------------------------


def _judged_nonrelevant(data, threshold):
    """Per query, the judged documents (retrieved or not) graded below ``threshold``:
    trec_eval's ``rel_levels`` below the relevance level."""
    nonrelevant = ~at_least(data.y_true, threshold)
    if data.judged_mask is not None:
        nonrelevant &= data.judged_mask
    return np.bincount(data.codes[nonrelevant], minlength=data.n_queries).astype(np.float64)


def _ratio(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0."""
    return np.divide(numerator, denominator, out=np.zeros_like(numerator, dtype=np.float64),
                     where=denominator > 0)


def _divisor(k, fallback):
    """What a measure at cut-off ``k`` divides by: ``k`` itself (as trec_eval's P@k and unj@k
    do beyond a short list; inf where float(k) would overflow), or ``fallback`` without k."""
    if k is None:
        return fallback.astype(np.float64)
    return np.full(len(fallback), float(k) if k < 2**1000 else np.inf)


def _relevant_in_top(ranking, threshold, k):
    """:func:`_in_top` of the relevant rows (``label >= threshold``)."""
    return relevant_hits(ranking, threshold, np.inf if k is None else k)


def _unjudged_in_top(ranking, k):
    """:func:`_in_top` of the unjudged rows (``ranking.judged`` is not None); without
    ties, counted from their indices, found once per ranking."""
    if ranking.has_ties:
        return _in_top(ranking, (~ranking.judged).astype(np.float64), k)
    return count_before(ranking, _unjudged_rows(ranking), np.inf if k is None else k)


@cached
def _unjudged_rows(ranking):
    rows = np.flatnonzero(~ranking.judged)
    return rows.astype(code_dtype(ranking.n), copy=False)


def _in_top(ranking, indicator, k):
    """Per query, the expected number of ranked rows flagged by ``indicator`` in the top
    ``k`` (all rows if None)."""
    if k is None:
        return ranking.per_query(ranking.expected(indicator))
    # positions are below the number of rows: a larger k selects them all
    return _hits(ranking, indicator, min(k, ranking.n))


# --------------------------------------------------------------------------------------
# Sets and counts: the retrieved rows, in any order
# --------------------------------------------------------------------------------------


@cached
def _set_counts(data, threshold):
    """Per query: retrieved documents, relevant ones among them, and relevant ones in all.

    Cached on ``data`` per threshold: trec_eval's set measures (set_P, set_recall, set_F,
    set_map, set_relative_P, num_rel_ret, utility) all read them. The arrays are shared:
    callers must not write to them.
    """
    group = data.ranked_rows
    retrieved = group.sizes.astype(np.float64)
    # the 8-bit grades where they exist: a gather of one byte per row, not eight
    labels = data.y_true if data.grades is None else data.grades
    relevant = at_least(group.values(labels), threshold)
    found = np.bincount(group.codes[relevant], minlength=data.n_queries).astype(np.float64)
    return retrieved, found, data.n_relevant(threshold)


def set_precision(data, *, relevance_threshold):
    retrieved, found, n_relevant = _set_counts(data, relevance_threshold)
    return _ratio(found, retrieved), n_relevant <= 0


def set_recall(data, *, relevance_threshold):
    _, found, n_relevant = _set_counts(data, relevance_threshold)
    return _ratio(found, n_relevant), n_relevant <= 0


def set_f(data, *, relevance_threshold, beta):
    retrieved, found, n_relevant = _set_counts(data, relevance_threshold)
    precision, recall = _ratio(found, retrieved), _ratio(found, n_relevant)
    weight = float(beta) ** 2  # trec_eval's set_F.x is F with beta**2 = x
    values = _ratio((1.0 + weight) * precision * recall, weight * precision + recall)
    return values, n_relevant <= 0


def set_map(data, *, relevance_threshold):
    retrieved, found, n_relevant = _set_counts(data, relevance_threshold)
    return _ratio(found * found, retrieved * n_relevant), n_relevant <= 0


def set_relative_precision(data, *, relevance_threshold):
    retrieved, found, n_relevant = _set_counts(data, relevance_threshold)
    return _ratio(found, np.minimum(retrieved, n_relevant)), n_relevant <= 0


def num_ret(data):
    return data.ranked_rows.sizes.astype(np.float64), None


def num_rel(data, *, relevance_threshold):
    return data.n_relevant(relevance_threshold).astype(np.float64, copy=True), None


def num_rel_ret(data, *, relevance_threshold):
    _, found, _ = _set_counts(data, relevance_threshold)
    return found.copy(), None


def num_nonrel_judged_ret(data, *, relevance_threshold):
    group = data.ranked_rows
    nonrelevant = ~at_least(group.values(data.y_true), relevance_threshold)
    if data.judged_mask is not None:
        nonrelevant &= group.values(data.judged_mask)
    counts = np.bincount(group.codes[nonrelevant], minlength=data.n_queries)
    return counts.astype(np.float64), None


def num_q(data):
    return np.ones(data.n_queries), None


def utility(data, *, relevance_threshold, relevant_retrieved, nonrelevant_retrieved,
            relevant_missed, nonrelevant_missed, collection_size):
    retrieved, found, n_relevant = _set_counts(data, relevance_threshold)
    size = (data.all_rows.sizes.astype(np.float64) if collection_size is None
            else float(collection_size))
    values = (relevant_retrieved * found
              + nonrelevant_retrieved * (retrieved - found)
              + relevant_missed * (n_relevant - found))
    if nonrelevant_missed != 0:  # 0 * (a count) is 0: no collection size needed then
        values += nonrelevant_missed * (size + found - retrieved - n_relevant)
    return values, None


# --------------------------------------------------------------------------------------
# Linear in the ranked rows' indicators: ties="average" is each block's mean
# --------------------------------------------------------------------------------------


def judged_at_k(data, *, k, ties):
    sizes = data.ranked_rows.sizes
    depth = sizes if k is None else np.minimum(sizes, k)
    if data.judged_mask is None:
        return _ratio(depth.astype(np.float64), depth), None
    ranking = data.ranking(ties)
    judged = ranking.judged
    return _ratio(_in_top(ranking, judged.astype(np.float64), k), depth), None


def unjudged_rate(data, *, k, ties):
    divisor = _divisor(k, data.ranked_rows.sizes)
    if data.judged_mask is None:
        return np.zeros(data.n_queries), None
    ranking = data.ranking(ties)
    return _ratio(_unjudged_in_top(ranking, k), divisor), None


def fallout(data, *, k, relevance_threshold, ties):
    n_nonrelevant = _judged_nonrelevant(data, relevance_threshold)
    ranking = data.ranking(ties)
    nonrelevant = 1.0 - _binary(ranking, relevance_threshold)
    judged = ranking.judged
    if judged is not None:
        nonrelevant *= judged
    return _ratio(_in_top(ranking, nonrelevant, k), n_nonrelevant), n_nonrelevant <= 0


def relative_precision(data, *, k, relevance_threshold, ties):
    ranking = data.ranking(ties)
    found = _relevant_in_top(ranking, relevance_threshold, k)
    n_relevant = data.n_relevant(relevance_threshold)
    depth = data.ranked_rows.sizes if k is None else k
    return _ratio(found, np.minimum(depth, n_relevant)), n_relevant <= 0


def f1(data, *, k, relevance_threshold, ties):
    ranking = data.ranking(ties)
    found = _relevant_in_top(ranking, relevance_threshold, k)
    n_relevant = data.n_relevant(relevance_threshold)
    # 2 P R / (P + R) with P = found / k and R = found / n_relevant
    values = _ratio(2.0 * found, _divisor(k, data.ranked_rows.sizes) + n_relevant)
    return values, n_relevant <= 0


def _any_in_top(ranking, indicator, k):
    """Per query, the probability that a ranked row flagged by ``indicator`` (0 or 1) is in
    the top ``k`` (anywhere if None): hit_rate's rule, for any indicator."""
    query, block, r = _first_relevant_blocks(ranking, indicator)
    values = np.zeros(ranking.n_queries)
    if k is None:
        values[query] = 1.0
        return values
    if not ranking.has_ties:  # the first flagged row is in the top k or not
        values[query] = ranking.block_start[block] < k
        return values
    s, m = ranking.block_start[block], ranking.block_size[block]
    slots = np.clip(k - s, 0, m)
    miss = _comb_ratio(m - r, slots, m, slots)  # no flagged member within the cut-off
    values[query] = np.where(slots > 0, 1.0 - miss, 0.0)
    return values


def rbp_residual(data, *, k, persistence, all_judged, ties):
    # the most that RBP could gain: every unjudged document in the top k relevant, and every
    # document beyond the top k (p**depth, the residual of rbp_score)
    tail = _rbp_tail(data, k=k, persistence=persistence)
    if data.judged_mask is None:
        return (tail if all_judged == "tail" else np.zeros(data.n_queries)), None
    ranking = data.ranking(ties)
    judged = ranking.judged
    unjudged = (~judged).astype(np.float64)
    weight = position_weights(ranking.position, k, lambda p: (1.0 - persistence) * persistence**p)
    values = ranking.per_query(ranking.expected(unjudged) * weight)
    if all_judged == "zero":  # trec_eval sets rbp_resid only where an unjudged doc is ranked
        tail *= _any_in_top(ranking, unjudged, k)
    return values + tail, None


# --------------------------------------------------------------------------------------
# bpref and infAP
# --------------------------------------------------------------------------------------


def _count_above(ranking, indicator, rows, query):
    """Without ties: for each of ``rows`` (ranked rows of the queries ``query``, in ranked
    order), the number of rows flagged by ``indicator`` (0 or 1) ranked above it in its
    query. :meth:`Ranking.relevant_before_block` at those rows: exact counts in float64,
    read at the rows alone."""
    running = np.cumsum(indicator)
    first = ranking.starts[query]
    above = running[rows] - indicator[rows]
    above -= running[first] - indicator[first]
    return above


def _sum_min(n, cap):
    """``sum(min(j, cap) for j in range(n))``, element-wise, in floats (exact to 2**53)."""
    low = np.minimum(n, cap)
    return low * (low - 1.0) / 2.0 + np.maximum(n - cap, 0.0) * cap


def bpref(data, *, relevance_threshold, ties):
    # trec_eval's bpref and gm_bpref: computed once
    return copies(_bpref(data, relevance_threshold, ties))


@cached
def _bpref(data, relevance_threshold, ties):
    ranking = data.ranking(ties)
    relevant = _binary(ranking, relevance_threshold)
    nonrelevant = 1.0 - relevant
    judged = ranking.judged
    if judged is not None:  # unjudged documents, in the pool or not, do not enter bpref
        nonrelevant *= judged
    n_relevant = data.n_relevant(relevance_threshold)
    n_nonrelevant = _judged_nonrelevant(data, relevance_threshold)
    if ranking.has_ties:
        above, tied = ranking.relevant_before_block(nonrelevant)
        found = ranking.block_sum(relevant)
        keep = np.flatnonzero(found)
        query = ranking.block_query[keep]
        above, tied = above[keep], tied[keep]
    else:  # the relevant rows alone
        keep, query, _ = ranking.relevant(relevance_threshold)
        found = relevant
        above, tied = _count_above(ranking, nonrelevant, keep, query), nonrelevant[keep]
    cap = n_relevant[query]
    # E[min(b + X, R)] with X uniform on 0..q: the judged non-relevant members of the block
    # ranked above a given relevant member (q = 0 without ties: the member is relevant)
    penalty = (_sum_min(above + tied + 1.0, cap) - _sum_min(above, cap)) / (tied + 1.0)
    share = 1.0 - _ratio(penalty, np.minimum(n_nonrelevant, n_relevant)[query])
    values = segment_sum(query, found[keep] * share, data.n_queries)
    undefined = n_relevant <= 0
    return _ratio(values, n_relevant), undefined


def _infap_term(start, above, rel_above, nonrel_above, nonpool_above):
    """infAP's term of a relevant document at 0-based ``start`` (m_infap.c): the precision
    above it estimated from the judged documents, the out-of-pool ones counted non-relevant
    and the pooled-but-unjudged ones relevant in the judged proportion. ``above`` documents
    precede it in the block; the others are counts (or expected counts) above it."""
    position = start + above
    estimate = (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2.0 * INFAP_EPSILON)
    return (1.0 + (position - nonpool_above) * estimate) / (position + 1.0)


def infap(data, *, relevance_threshold, ties):
    ranking = data.ranking(ties)
    relevant = _binary(ranking, relevance_threshold)
    judged, pooled = ranking.judged, ranking.pool_unjudged
    nonrelevant = 1.0 - relevant
    if judged is None:
        nonpool = np.zeros(len(relevant))
    else:
        nonrelevant *= judged
        outside = ~judged if pooled is None else ~(judged | pooled)
        nonpool = outside.astype(np.float64)
    n_relevant = data.n_relevant(relevance_threshold)
    if not ranking.has_ties:  # one term per relevant row
        keep, query, first = ranking.relevant(relevance_threshold)
        # the relevant rows above each: its rank among its query's relevant rows
        rel_above = np.arange(len(keep), dtype=np.float64)
        rel_above -= np.repeat(first, np.diff(np.append(first, len(keep))))
        nonrel_above, nonpool_above = (
            _count_above(ranking, x, keep, query) for x in (nonrelevant, nonpool))
        terms = _infap_term(ranking.position[keep].astype(np.float64), 0.0, rel_above,
                            nonrel_above, nonpool_above)
        values = segment_sum(query, terms, data.n_queries)
        return _ratio(values, n_relevant), n_relevant <= 0
    counts = [ranking.relevant_before_block(x) for x in (relevant, nonrelevant, nonpool)]
    (rel_above, r), (nonrel_above, q), (nonpool_above, v) = counts
    keep = np.flatnonzero(r)
    terms = r[keep] * _expected_infap_terms(
        ranking.block_start[keep].astype(np.float64), ranking.block_size[keep], r[keep],
        q[keep], v[keep], rel_above[keep], nonrel_above[keep], nonpool_above[keep])
    values = segment_sum(ranking.block_query[keep], terms, data.n_queries)
    return _ratio(values, n_relevant), n_relevant <= 0


def _expected_infap_terms(start, size, r, q, v, rel_above, nonrel_above, nonpool_above):
    """infAP's expected term of one relevant member of each tie block (see the module).

    Per block: ``r`` relevant, ``q`` judged non-relevant and ``v`` out-of-pool members (the
    rest pooled-but-unjudged), and the counts of each above the block. For a given relevant
    member, ``T`` members precede it (uniform on ``0..m-1``), of which ``Y`` are judged
    (hypergeometric: ``r - 1 + q`` judged among the ``m - 1`` others).
    """
    m = size.astype(np.intp)
    judged = r - 1.0 + q  # judged members besides the given one
    unjudged = m - r - q
    owner, offset = _expand(m)  # one row per (block, T)
    t = offset - 1.0
    lowest = np.maximum(0.0, t - unjudged[owner])
    count = (np.minimum(t, judged[owner]) - lowest + 1.0).astype(np.intp)
    total = int(count.sum())
    if total > _INFAP_MAX_TERMS:
        raise ValueError(
            f"infAP with ties='average' sums over {total} orderings of tied documents (tie "
            f"blocks of up to {int(m.max())} documents mixing judged and unjudged ones): too "
            "many to compute exactly here. Pass ties='stable' (trec_eval's rule with rows in "
            "its order), 'optimistic' or 'pessimistic'."
        )
    out = np.zeros(len(m))
    # (block, T) rows by chunks of about _INFAP_CHUNK terms: a loop over chunks, not queries
    bounds = np.searchsorted(np.cumsum(count), np.arange(_INFAP_CHUNK, total, _INFAP_CHUNK))
    for rows in np.split(np.arange(len(count)), np.unique(bounds)):
        if not len(rows):
            continue
        pair, step = _expand(count[rows])  # one row per (block, T, Y)
        row = rows[pair]
        b = owner[row]
        tt, y = t[row], lowest[row] + step - 1.0
        jb, wb, m1 = judged[b], unjudged[b], m[b] - 1.0
        prob = np.exp(_log_comb(jb, y) + _log_comb(wb, tt - y) - _log_comb(m1, tt))
        # means of the relevant members among the Y judged, out-of-pool among the T - Y
        rel = rel_above[b] + _ratio(y * (r[b] - 1.0), jb)
        nonpool = nonpool_above[b] + _ratio((tt - y) * v[b], wb)
        nonrel = nonrel_above[b] + (y - _ratio(y * (r[b] - 1.0), jb))
        term = _infap_term(start[b], tt, rel, nonrel, nonpool)
        out += segment_sum(b, prob * term, len(m))
    return out / m
