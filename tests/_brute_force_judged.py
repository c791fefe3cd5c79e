"""Slow, obvious references of the measures for incomplete judgements, sets and counts.

The formulas of ``tests/_brute_force.py`` for the measures of
``sklearn_rank/metrics/_per_query_judged.py``, written from trec_eval's loops (``m_bpref.c``,
``m_infap.c``, ``m_rbp_resid.c``, ``m_unjudged.c``, ``m_set_*.c``...), one query at a time and
sharing nothing with the engine. ``_brute_force`` merges :data:`RANKED_METRICS` into its table,
so that :func:`_brute_force.brute_force` and :func:`_brute_force.orderings` (the exact average
over the orderings of tied documents) apply to them.

Each formula takes ``ranked``, the labels of the retrieved documents from rank 1 down, and
``judged``, the labels of every row of the query (retrieved or not), then ``k`` (which the set
measures ignore) and the measure's options. A label carries the judgement state as
``judged="y_true"`` reads it: NaN for a document outside the judgement pool, a negative number
for one in the pool left unjudged (trec_eval's -1), a grade otherwise; without NaN or
negative labels every document is judged.
"""

import math

INFAP_EPSILON = 1e-5


def _is_judged(label):
    return label == label and label >= 0  # NaN compares unequal to itself


def _is_pooled(label):
    return label < 0


def _relevant(label, threshold):
    return _is_judged(label) and label >= threshold


def _nonrelevant(label, threshold):
    return _is_judged(label) and label < threshold


def _top(ranked, k):
    return ranked if k is None else ranked[:k]


def _n_relevant(judged, threshold):
    return sum(_relevant(label, threshold) for label in judged)


def bpref(ranked, judged, k=None, relevance_threshold=1):
    n_relevant = _n_relevant(judged, relevance_threshold)
    n_nonrelevant = sum(_nonrelevant(label, relevance_threshold) for label in judged)
    total, nonrelevant_so_far = 0.0, 0
    for label in ranked:
        if not _is_judged(label):
            continue
        if label < relevance_threshold:
            nonrelevant_so_far += 1
        elif nonrelevant_so_far > 0:
            total += 1.0 - (min(nonrelevant_so_far, n_relevant)
                            / min(n_nonrelevant, n_relevant))
        else:
            total += 1.0
    return total / n_relevant if n_relevant else 0.0


def infap(ranked, judged, k=None, relevance_threshold=1):
    total = 0.0
    relevant = nonrelevant = pooled = 0
    for j, label in enumerate(ranked):
        if not _is_judged(label):
            pooled += _is_pooled(label)
            continue
        if label < relevance_threshold:
            nonrelevant += 1
            continue
        relevant += 1
        if j == 0:
            total += 1.0
        else:
            total += 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
                (relevant - 1 + nonrelevant + pooled) / j) * (
                (relevant - 1 + INFAP_EPSILON)
                / (relevant - 1 + nonrelevant + 2 * INFAP_EPSILON))
    n_relevant = _n_relevant(judged, relevance_threshold)
    return total / n_relevant if n_relevant else 0.0


def judged_at_k(ranked, judged, k=None):
    top = _top(ranked, k)
    return sum(_is_judged(label) for label in top) / len(top) if top else 0.0


def unjudged_rate(ranked, judged, k=None):
    top = _top(ranked, k)
    divisor = len(ranked) if k is None else k
    return sum(not _is_judged(label) for label in top) / divisor if divisor else 0.0


def rbp_residual(ranked, judged, k=None, persistence=0.8, all_judged="tail"):
    """trec_eval's rbp_resid: p**depth plus (1 - p) p**(i - 1) per unjudged rank i."""
    top = _top(ranked, k)
    total, weight, unjudged = 0.0, 1.0, 0
    for label in top:
        if not _is_judged(label):
            unjudged += 1
            total += weight
        weight *= persistence
    if not unjudged and all_judged == "zero":
        return 0.0
    return weight + (1.0 - persistence) * total


def _counts(ranked, judged, threshold):
    found = sum(_relevant(label, threshold) for label in ranked)
    return len(ranked), found, _n_relevant(judged, threshold)


def set_p(ranked, judged, k=None, relevance_threshold=1):
    retrieved, found, _ = _counts(ranked, judged, relevance_threshold)
    return found / retrieved if retrieved else 0.0


def set_recall(ranked, judged, k=None, relevance_threshold=1):
    _, found, n_relevant = _counts(ranked, judged, relevance_threshold)
    return found / n_relevant if n_relevant else 0.0


def set_f(ranked, judged, k=None, relevance_threshold=1, beta=1.0):
    retrieved, found, n_relevant = _counts(ranked, judged, relevance_threshold)
    if not found:
        return 0.0
    precision, recall = found / retrieved, found / n_relevant
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def set_map(ranked, judged, k=None, relevance_threshold=1):
    retrieved, found, n_relevant = _counts(ranked, judged, relevance_threshold)
    return found * found / (retrieved * n_relevant) if retrieved and n_relevant else 0.0


def set_relative_p(ranked, judged, k=None, relevance_threshold=1):
    retrieved, found, n_relevant = _counts(ranked, judged, relevance_threshold)
    best = min(retrieved, n_relevant)
    return found / best if best else 0.0


def relative_p(ranked, judged, k=None, relevance_threshold=1):
    found = sum(_relevant(label, relevance_threshold) for label in _top(ranked, k))
    best = min(len(ranked) if k is None else k, _n_relevant(judged, relevance_threshold))
    return found / best if best else 0.0


def num_ret(ranked, judged, k=None):
    return float(len(ranked))


def num_rel(ranked, judged, k=None, relevance_threshold=1):
    return float(_n_relevant(judged, relevance_threshold))


def num_rel_ret(ranked, judged, k=None, relevance_threshold=1):
    return float(sum(_relevant(label, relevance_threshold) for label in ranked))


def num_nonrel_judged_ret(ranked, judged, k=None, relevance_threshold=1):
    return float(sum(_nonrelevant(label, relevance_threshold) for label in ranked))


def num_q(ranked, judged, k=None):
    return 1.0


def utility(ranked, judged, k=None, relevance_threshold=1, relevant_retrieved=1.0,
            nonrelevant_retrieved=-1.0, relevant_missed=0.0, nonrelevant_missed=0.0,
            collection_size=None):
    retrieved, found, n_relevant = _counts(ranked, judged, relevance_threshold)
    size = len(judged) if collection_size is None else collection_size
    return (relevant_retrieved * found + nonrelevant_retrieved * (retrieved - found)
            + relevant_missed * (n_relevant - found)
            + nonrelevant_missed * (size - retrieved - n_relevant + found))


def fallout(ranked, judged, k=None, relevance_threshold=1):
    found = sum(_nonrelevant(label, relevance_threshold) for label in _top(ranked, k))
    total = sum(_nonrelevant(label, relevance_threshold) for label in judged)
    return found / total if total else 0.0


def f1(ranked, judged, k=None, relevance_threshold=1):
    found = sum(_relevant(label, relevance_threshold) for label in _top(ranked, k))
    if not found:
        return 0.0
    precision = found / (len(ranked) if k is None else k)
    recall = found / _n_relevant(judged, relevance_threshold)
    return 2 * precision * recall / (precision + recall)


RANKED_METRICS = {
    "bpref": bpref,
    "gm_bpref": bpref,  # per query, bpref; the geometric mean is the aggregation's
    "infap": infap,
    "judged": judged_at_k,
    "unjudged_rate": unjudged_rate,
    "rbp_residual": rbp_residual,
    "set_p": set_p,
    "set_recall": set_recall,
    "set_f": set_f,
    "set_map": set_map,
    "set_relative_p": set_relative_p,
    "relative_p": relative_p,
    "num_ret": num_ret,
    "num_rel": num_rel,
    "num_rel_ret": num_rel_ret,
    "num_nonrel_judged_ret": num_nonrel_judged_ret,
    "num_q": num_q,
    "utility": utility,
    "fallout": fallout,
    "f1": f1,
}


#: Option values under which tests/test_trec_measures_judged.py compares every measure with
#: its formula (at every k, under every tie rule and both ``unjudged``).
GRID = [
    *(("bpref", {"relevance_threshold": t}) for t in (1, 2)),
    ("gm_bpref", {"relevance_threshold": 2}),
    *(("infap", {"relevance_threshold": t}) for t in (1, 2)),
    ("judged", {}),
    ("unjudged_rate", {}),
    *(("rbp_residual", {"persistence": p, "all_judged": a})
      for p in (0.8, 0.5) for a in ("tail", "zero")),
    *((name, {"relevance_threshold": t}) for t in (1, 2)
      for name in ("set_p", "set_recall", "set_map", "set_relative_p", "num_rel",
                   "num_rel_ret", "num_nonrel_judged_ret", "relative_p", "fallout", "f1")),
    *(("set_f", {"beta": b}) for b in (0.5, 1.0, 2.0)),
    ("set_f", {"beta": 2.0, "relevance_threshold": 2}),
    ("num_ret", {}),
    ("num_q", {}),
    ("utility", {}),
    ("utility", {"relevance_threshold": 2, "relevant_retrieved": 3, "nonrelevant_retrieved": -2,
                 "relevant_missed": -1, "nonrelevant_missed": 0.5}),
    ("utility", {"nonrelevant_missed": 1, "collection_size": 12}),
]


def defined(metric, judged, relevance_threshold=1, **options):
    """Whether ``metric`` is defined on a query whose rows have labels ``judged``; where it
    is not, ``no_relevant`` gives its value. Counts and rates of judgements (and utility) are
    defined on every query; fall-out needs a judged non-relevant document; the others a
    relevant one."""
    if metric in ("judged", "unjudged_rate", "rbp_residual", "utility", "num_ret", "num_rel",
                  "num_rel_ret", "num_nonrel_judged_ret", "num_q"):
        return True
    if metric == "fallout":
        return any(_nonrelevant(label, relevance_threshold) for label in judged)
    return _n_relevant(judged, relevance_threshold) > 0


#: Measures of the retrieved set, whatever its order: they take no ``ties``.
UNORDERED = ("set_p", "set_recall", "set_f", "set_map", "set_relative_p", "num_ret", "num_rel",
             "num_rel_ret", "num_nonrel_judged_ret", "num_q", "utility")

#: How the per-query values of a measure become one number, when not by their mean.
AGGREGATIONS = {"gm_bpref": "geometric_mean",
                **dict.fromkeys(("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
                                 "num_q"), "sum")}
# trec_eval's MIN_GEO_MEAN
GEOMETRIC_MEAN_FLOOR = 1e-5


def aggregate(metric, values, weights):
    """The per-query ``values`` of ``metric`` (NaN: skipped) over queries of ``weights``, by
    its rule in :data:`AGGREGATIONS` (see :func:`aggregate_by`)."""
    return aggregate_by(AGGREGATIONS.get(metric, "mean"), values, weights)


def aggregate_by(how, values, weights):
    """Per-query ``values`` (NaN: skipped) over queries of ``weights``: the weighted mean
    (``how="mean"``); the weighted sum, for counts (``"sum"``); trec_eval's geometric mean,
    exp of the weighted mean of log(max(value, 1e-5)) (``"geometric_mean"``). NaN when every
    query is skipped."""
    if how not in ("mean", "sum", "geometric_mean"):
        raise ValueError(f"unknown aggregation {how!r}")
    kept = [(w, v) for w, v in zip(weights, values) if v == v]
    if not kept:
        return math.nan
    if how == "sum":
        return sum(w * v for w, v in kept)
    if how == "geometric_mean":
        kept = [(w, math.log(max(v, GEOMETRIC_MEAN_FLOOR))) for w, v in kept]
    mean = sum(w * v for w, v in kept) / sum(w for w, _ in kept)
    return math.exp(mean) if how == "geometric_mean" else mean


#: The measures defined on the judgements themselves: they tell an unjudged document from a
#: judged non-relevant one. Every other metric counts an unjudged document as non-relevant,
#: so that a judged mask which only unjudges zero grades leaves it unchanged.
READS_JUDGEMENTS = frozenset({"bpref", "gm_bpref", "infap", "judged", "unjudged_rate",
                              "rbp_residual", "fallout", "num_nonrel_judged_ret"})
