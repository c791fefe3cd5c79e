"""Slow, obvious references of trec_eval's curve and gain measures and of the DCG family.

The formulas of ``tests/_brute_force.py`` for the measures of
``sklearn_rank/metrics/_per_query_curves.py`` (``iprec_at_recall``, ``eleven_point_average``,
``rprec_mult``, ``bing``, ``g``, ``ndcg_rel``, ``rndcg``, ``gm_map``) and for DCG and nDCG
with a gain mapping and a discount, written from trec_eval's loops (``m_iprec_at_recall.c``,
``m_11pt_avg.c``, ``m_Rprec_mult.c``, ``m_binG.c``, ``m_G.c``, ``m_ndcg_rel.c``,
``m_Rndcg.c``, ``m_ndcg.c``): one query at a time, rank by rank, sharing nothing with the
engine. ``_brute_force`` merges :data:`RANKED_METRICS` into its table (its ``dcg`` and
``ndcg`` replace the ones there, which they equal for named gains and the log discount).

Each formula takes ``ranked``, the labels of the retrieved documents from rank 1 down, and
``judged``, the labels of every row of the query, then its options. A label carries the
judgement state as ``judged="y_true"`` reads it: NaN for a document outside the pool, a
negative number for one in the pool left unjudged; such a document has gain 0, is not
relevant and is not in the ideal ordering.

:func:`brute_force` computes per-query values itself, with the metric's own notion of an
undefined query (a formula returns None there), and with ``ties="average"`` either the mean
over every ordering of the tied documents or, for the measures of :data:`AVERAGED_LIST`,
the measure of the list whose tied documents take their block's mean relevance or gain
(exact fractions), which is what sklearn-rank computes for them.
"""

import math
from fractions import Fraction

import numpy as np

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: How the per-query values of a measure become one number, when not by their mean:
#: trec_eval's gm_map, the geometric mean of AP (floored at 1e-5).
AGGREGATIONS = {"gm_map": "geometric_mean"}

#: Measures whose ties="average" value is that of the tie-averaged list, not the mean
#: over orderings (no tractable exact expectation).
AVERAGED_LIST = ("iprec_at_recall", "eleven_point_average", "g")


# --------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------
def _is_judged(label):
    return label == label and label >= 0


def _relevant(label, threshold):
    return 1 if _is_judged(label) and label >= threshold else 0


def _gain(label, gain):
    if not _is_judged(label):
        return 0.0
    if isinstance(gain, dict):
        for grade, value in gain.items():
            if label == grade:
                return float(value)
        return float(label)
    if gain == "linear":
        return float(label)
    if gain == "exponential":
        return 2.0**label - 1.0
    raise ValueError(f"unknown gain={gain!r}")


def _weight(rank, discount, log_base):
    """Discount of the 1-based ``rank``."""
    if discount == "rank":
        return 1.0 / rank
    return 1.0 / (math.log(rank + 1) / math.log(log_base))


def _ideal(judged, gain):
    """The positive gains of the judged documents, largest first."""
    gains = sorted((_gain(label, gain) for label in judged if _is_judged(label)), reverse=True)
    return [value for value in gains if value > 0]


def _n_relevant(judged, threshold):
    return sum(_relevant(label, threshold) for label in judged)


# --------------------------------------------------------------------------------------
# DCG and nDCG
# --------------------------------------------------------------------------------------
def dcg(ranked, judged, k=None, gain="exponential", discount="log", log_base=2):
    if not _ideal(judged, gain):
        return None  # no document of positive gain
    depth = len(ranked) if k is None else min(k, len(ranked))
    return sum(_gain(ranked[i], gain) * _weight(i + 1, discount, log_base)
               for i in range(depth))


def ndcg(ranked, judged, k=None, gain="exponential", discount="log", log_base=2):
    ideal = _ideal(judged, gain)
    depth = len(ideal) if k is None else min(k, len(ideal))
    best = sum(ideal[i] * _weight(i + 1, discount, log_base) for i in range(depth))
    if best <= 0:
        return None
    return dcg(ranked, judged, k, gain, discount, log_base) / best


# --------------------------------------------------------------------------------------
# Interpolated precision and R-precision at multiples of R
# --------------------------------------------------------------------------------------
def _count_at(level, n_relevant, rounding):
    """Relevant documents at a recall level: trec_eval's product in doubles, then
    ``(long)(x + 0.9)`` or ``lround(x)`` (halves away from zero), the latter exactly."""
    x = level * n_relevant
    if rounding == "legacy":
        return int(x + 0.9)
    exact = Fraction(x)
    whole = math.floor(exact)
    return whole + (1 if exact - whole >= Fraction(1, 2) else 0)


def _interpolated(relevance, n_relevant, level, rounding):
    """trec_eval's iprec at ``level`` from per-rank relevances (0/1, or block means)."""
    count = _count_at(level, n_relevant, rounding)
    found = sum(relevance)
    if count > found:
        return 0.0
    needed = max(count, 1)
    so_far, best, reached = 0, 0, False
    for rank, rel in enumerate(relevance, start=1):
        so_far += rel
        if so_far >= needed:
            reached = True
        if reached:
            best = max(best, Fraction(so_far) / rank)
    return float(best)


def iprec_at_recall(ranked, judged, k=None, recall=0.0, relevance_threshold=1,
                    recall_rounding="nearest"):
    n_relevant = _n_relevant(judged, relevance_threshold)
    if n_relevant == 0:
        return None
    relevance = [_relevant(label, relevance_threshold) for label in ranked]
    return _interpolated(relevance, n_relevant, recall, recall_rounding)


def eleven_point_average(ranked, judged, k=None, recall_levels=ELEVEN_POINTS,
                         relevance_threshold=1, recall_rounding="nearest"):
    n_relevant = _n_relevant(judged, relevance_threshold)
    if n_relevant == 0:
        return None
    relevance = [_relevant(label, relevance_threshold) for label in ranked]
    values = [_interpolated(relevance, n_relevant, level, recall_rounding)
              for level in recall_levels]
    return math.fsum(values) / len(values)


def rprec_mult(ranked, judged, k=None, mult=1.0, relevance_threshold=1):
    n_relevant = _n_relevant(judged, relevance_threshold)
    if n_relevant == 0:
        return None
    cut = int(mult * n_relevant + 0.9)
    if cut == 0:
        return 0.0
    hits = sum(_relevant(label, relevance_threshold) for label in ranked[:cut])
    return hits / cut


# --------------------------------------------------------------------------------------
# binG and G
# --------------------------------------------------------------------------------------
def bing(ranked, judged, k=None, relevance_threshold=1):
    n_relevant = _n_relevant(judged, relevance_threshold)
    if n_relevant == 0:
        return None
    total, nonrelevant = 0.0, 0
    for label in ranked:
        if _relevant(label, relevance_threshold):
            total += 1.0 / math.log2(2 + nonrelevant)
        else:
            nonrelevant += 1
    return total / n_relevant


def _g_of(gains, ideal):
    total_ideal = sum(ideal)
    if total_ideal <= 0:
        return None
    cost = so_far = value = 0.0
    for rank, gain in enumerate(gains, start=1):
        so_far += gain
        cost += max(ideal[rank - 1], 1.0) if rank <= len(ideal) else 1.0
        if gain != 0:
            value += gain / math.log2(2 + cost - so_far)
    return value / total_ideal


def g(ranked, judged, k=None, gain="exponential"):
    return _g_of([_gain(label, gain) for label in ranked], _ideal(judged, gain))


# --------------------------------------------------------------------------------------
# nDCG over relevant documents and over R levels
# --------------------------------------------------------------------------------------
def ndcg_rel(ranked, judged, k=None, gain="exponential", discount="log", log_base=2):
    ideal = _ideal(judged, gain)
    if not ideal:
        return None
    gains = [_gain(label, gain) for label in ranked]

    def ideal_dcg(depth):
        return sum(ideal[i] * _weight(i + 1, discount, log_base)
                   for i in range(min(depth, len(ideal))))

    total, found, running = 0.0, 0, 0.0
    for rank, value in enumerate(gains, start=1):
        running += value * _weight(rank, discount, log_base)
        if value > 0:
            total += running / ideal_dcg(rank)
            found += 1
    total += (len(ideal) - found) * running / ideal_dcg(len(ideal))
    return total / len(ideal) if total > 0 else 0.0


def rndcg(ranked, judged, k=None, gain="exponential", discount="log", log_base=2,
          relevance_threshold=1):
    if _n_relevant(judged, relevance_threshold) == 0:
        return None
    ideal = _ideal(judged, gain)
    gains = [_gain(label, gain) for label in ranked]

    def at(depth, values):
        return sum(values[i] * _weight(i + 1, discount, log_base)
                   for i in range(min(depth, len(values))))

    # the last rank of each run of equal positive ideal gains
    cuts = [i + 1 for i in range(len(ideal)) if i + 1 == len(ideal) or ideal[i + 1] != ideal[i]]
    terms = [at(cut, gains) / at(cut, ideal) for cut in cuts]
    if len(ranked) >= len(ideal) + 2 and ideal:  # trec_eval: two documents beyond at least
        terms.append(at(len(ranked), gains) / at(len(ideal), ideal))
    if not terms:
        return None
    return sum(terms) / len(terms)


def gm_map(ranked, judged, k=None, relevance_threshold=1, ap_denominator="all"):
    if _n_relevant(judged, relevance_threshold) == 0:
        return None
    from _brute_force import average_precision  # imports this module: not at the top

    return average_precision(ranked, judged, k, relevance_threshold, ap_denominator)


RANKED_METRICS = {
    "dcg": dcg,
    "ndcg": ndcg,
    "gm_map": gm_map,
    "iprec_at_recall": iprec_at_recall,
    "eleven_point_average": eleven_point_average,
    "rprec_mult": rprec_mult,
    "g": g,
    "bing": bing,
    "ndcg_rel": ndcg_rel,
    "rndcg": rndcg,
    "yaap": None,  # query_value computes it (_yaap): S is averaged over orderings, not yaap
}

# --------------------------------------------------------------------------------------
# The tie-averaged list, and the per-query driver
# --------------------------------------------------------------------------------------
def _blocks(scores):
    """Ranked positions (stable order) grouped into runs of equal scores."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    blocks = []
    for i in order:
        if blocks and scores[blocks[-1][0]] == scores[i]:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    return blocks


def _averaged(metric, labels, scores, judged, options):
    """The measure of the list whose tied documents take their block's mean (exactly)."""
    blocks = _blocks(scores)
    threshold = options.get("relevance_threshold", 1)
    if metric == "g":
        gains = []
        for block in blocks:
            mean = sum(Fraction(_gain(labels[i], options.get("gain", "exponential")))
                       for i in block) / len(block)
            gains += [float(mean)] * len(block)
        return _g_of(gains, _ideal(judged, options.get("gain", "exponential")))
    n_relevant = _n_relevant(judged, threshold)
    if n_relevant == 0:
        return None
    relevance = []
    for block in blocks:
        mean = Fraction(sum(_relevant(labels[i], threshold) for i in block), len(block))
        relevance += [mean] * len(block)
    rounding = options.get("recall_rounding", "nearest")
    if metric == "iprec_at_recall":
        return _interpolated(relevance, n_relevant, options.get("recall", 0.0), rounding)
    values = [_interpolated(relevance, n_relevant, level, rounding)
              for level in options.get("recall_levels", ELEVEN_POINTS)]
    return math.fsum(values) / len(values)


def _yaap(labels, scores, judged, ties, k=None, relevance_threshold=1):
    """trec_eval's yaap, log((1 + S) / (1 + R - S)), S the sum over the ranked relevant
    documents of (relevant documents up to it) / its rank. With ties="average", S is its
    mean over the orderings (sklearn-rank's definition: S is linear in the ranking, the
    logarithm is not), then the logarithm is taken. It has no cut-off (``k`` is None)."""
    assert k is None, "yaap takes no cut-off"
    from _brute_force import orderings  # imports this module: not at the top

    grades = [label if _is_judged(label) else 0.0 for label in labels]
    expected = 0.0
    for order, probability in orderings(grades, scores, ties):
        found, total = 0, 0.0
        for rank, i in enumerate(order, start=1):
            if _relevant(labels[i], relevance_threshold):
                found += 1
                total += found / rank
        expected += probability * total
    n_relevant = _n_relevant(judged, relevance_threshold)
    return math.log((1.0 + expected) / (1.0 + n_relevant - expected))


def query_value(metric, y_true, y_score, retrieved, *, ties="average", **options):
    """Value of ``metric`` on one query (rows in input order), None where undefined."""
    judged = [float(v) for v in y_true]
    labels = [float(v) for v, r in zip(y_true, retrieved) if r]
    scores = [float(s) for s, r in zip(y_score, retrieved) if r]
    if metric == "yaap":
        return _yaap(labels, scores, judged, ties, **options)
    if ties == "average" and metric in AVERAGED_LIST:
        return _averaged(metric, labels, scores, judged, options)
    from _brute_force import orderings  # imports this module: not at the top

    formula = RANKED_METRICS[metric]
    total = 0.0
    # an unjudged document is ordered as grade 0 (ties="optimistic" and "pessimistic")
    grades = [label if _is_judged(label) else 0.0 for label in labels]
    for order, probability in orderings(grades, scores, ties):
        value = formula([labels[i] for i in order], judged, **options)
        if value is None:
            return None
        total += probability * value
    return total


def brute_force(metric, y_true, y_score, qid=None, *, retrieved=None, no_relevant=0.0,
                **options):
    """Per-query reference values of ``metric``, in ``np.unique(qid)`` order."""
    y_true = np.asarray(y_true, dtype=float)
    n = len(y_true)
    one_query = qid is None or (isinstance(qid, str) and qid == "single_query")
    qid = np.zeros(n, dtype=int) if one_query else np.asarray(qid)
    retrieved = np.ones(n, dtype=bool) if retrieved is None else np.asarray(retrieved)
    queries = np.unique(qid)
    out = np.empty(len(queries))
    for index, query in enumerate(queries):
        rows = [i for i in range(n) if qid[i] == query]
        value = query_value(metric, [y_true[i] for i in rows], [y_score[i] for i in rows],
                            [bool(retrieved[i]) for i in rows], **options)
        out[index] = no_relevant if value is None else value
    return out
