"""Slow, obvious reference implementations of every metric in ``sklearn_rank.metrics``.

This module is a test oracle. It is written straight from the textbook formulas of
the metrics API contract and deliberately shares nothing with the engine: one query
at a time, plain Python loops over ranks, and ties resolved by explicitly building
every ordering. ``ties="average"`` is the exact mean of the metric over all
orderings of every block of tied scores (``itertools.permutations`` of each block,
the Cartesian product over blocks), so it is only usable on small queries. The one
exception is the measures of ``_brute_force_curves.AVERAGED_LIST`` (interpolated
precision, the 11-point average, trec_eval's G), whose mean over orderings has no
tractable exact form: sklearn-rank defines their ``ties="average"`` as the measure of
the list whose tied documents take their block's mean relevance or gain, and
``_brute_force_curves`` computes that list in exact fractions.

The formulas of the measures of incomplete judgements, sets and counts live in
``_brute_force_judged.py``, those of interpolated precision, the R-based and G-based
measures and the DCG family's gain mappings and discounts in ``_brute_force_curves.py``;
this module merges them into one table and one driver.

The entry point is :func:`brute_force`::

    mean, per_query = brute_force("ndcg", y_true, y_score, qid, k=3, ties="average")

Conventions the engine has to agree with:

- queries come out in ``np.unique(qid)`` order;
- the weight of a query is the mean of the weights of all its rows;
- rows with ``retrieved=False`` are never ranked, but count in R (recall, AP,
  R-precision), in the ideal DCG / ideal utility, and in the "has a relevant
  document" test that triggers ``no_relevant``;
- ``no_relevant`` gives the value of a query without a relevant document
  (``np.nan`` skips it, ``"raise"`` raises ``ValueError``);
- ``k=None`` means no truncation: precision divides by the list length, AP's
  ``"min_k"`` denominator is then R;
- a query none of whose rows is retrieved scores 0 (when it has a relevant document);
- with ``judged="y_true"``, NaN and negative labels are unjudged documents: grade 0 in
  the ranking (``unjudged="nonrelevant"``) or out of it (``"condensed"``), relevant to
  no metric; the measures of incomplete judgements tell them from judged ones;
- counts, rates of judgements, the RBP residual and utility are defined on every query,
  relevant documents or not; fall-out needs a judged non-relevant document; the DCG
  family and G a document of positive gain (see :func:`defined`);
- the per-query values become one number by the metric's aggregation
  (:data:`AGGREGATIONS`): the weighted mean, the weighted sum for counts, trec_eval's
  geometric mean (of values floored at 1e-5) for gm_map and gm_bpref.
"""

import itertools
import math

import _brute_force_curves
import _brute_force_judged
import numpy as np

#: Metric names understood by :func:`brute_force`, mapped to the public function name.
METRIC_FUNCTIONS = {
    "dcg": "dcg_score",
    "ndcg": "ndcg_score",
    "err": "err_score",
    "rbp": "rbp_score",
    "map": "map_score",
    "mrr": "mrr_score",
    "precision": "precision_score",
    "recall": "recall_score",
    "hit_rate": "hit_rate_score",
    "hits": "hits_score",
    "r_precision": "r_precision_score",
    "kendall_tau": "kendall_tau_score",
    "spearman": "spearman_score",
    "pairwise_accuracy": "pairwise_accuracy_score",
    "half_life_utility": "half_life_utility_score",
    # incomplete judgements, retrieved sets and counts
    **{name: f"{name}_score" for name in (
        "bpref", "gm_bpref", "infap", "judged", "unjudged_rate", "rbp_residual", "set_p",
        "set_recall", "set_f", "set_map", "set_relative_p", "relative_p", "num_ret", "num_rel",
        "num_rel_ret", "num_nonrel_judged_ret", "num_q", "utility", "fallout", "f1")},
    # interpolated precision, R-based and G-based measures, the DCG family's gains
    **{name: f"{name}_score" for name in (
        "gm_map", "iprec_at_recall", "eleven_point_average", "rprec_mult", "g", "bing",
        "ndcg_rel", "rndcg", "yaap")},
}

#: Metrics whose value is a correlation between labels and scores, not a function of
#: a ranked list: ``k`` and ``ties`` do not apply, ``no_relevant`` is the value for a
#: query whose labels are constant.
CORRELATION_METRICS = ("kendall_tau", "spearman", "pairwise_accuracy")

#: Metrics whose value does not depend on the order of the ranked documents, so that
#: ``ties`` does not apply: the correlations, and the measures of the retrieved set.
UNRANKED_METRICS = (*CORRELATION_METRICS, *_brute_force_judged.UNORDERED)

#: How the per-query values of a metric become one number, when not by their mean.
AGGREGATIONS = {**_brute_force_judged.AGGREGATIONS, **_brute_force_curves.AGGREGATIONS}

# Largest number of orderings ties="average" may enumerate for one query.
_MAX_ORDERINGS = 50_000


# --------------------------------------------------------------------------------------
# Orderings of one query's retrieved documents
# --------------------------------------------------------------------------------------
def orderings(y_true, y_score, ties):
    """Every ranking of one query's documents with its probability.

    Parameters
    ----------
    y_true, y_score : sequences of float
        Labels and scores of the ranked (retrieved) documents, in input order.
    ties : {"average", "stable", "optimistic", "pessimistic"}

    Returns
    -------
    list of (tuple of int, float)
        Positions into ``y_true`` from rank 1 down, and the probability of that
        ordering. Only ``"average"`` produces more than one ordering.
    """
    n = len(y_score)
    rows = range(n)
    if ties == "stable":
        return [(tuple(sorted(rows, key=lambda i: (-y_score[i], i))), 1.0)]
    if ties == "optimistic":
        return [(tuple(sorted(rows, key=lambda i: (-y_score[i], -y_true[i], i))), 1.0)]
    if ties == "pessimistic":
        return [(tuple(sorted(rows, key=lambda i: (-y_score[i], y_true[i], i))), 1.0)]
    if ties != "average":
        raise ValueError(f"unknown ties={ties!r}")

    by_score = sorted(rows, key=lambda i: (-y_score[i], i))
    blocks = []
    for i in by_score:
        if blocks and y_score[blocks[-1][0]] == y_score[i]:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    count = math.prod(math.factorial(len(block)) for block in blocks)
    if count > _MAX_ORDERINGS:
        raise ValueError(f"{count} orderings: too many for the brute force")
    result = []
    for choice in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = tuple(i for block in choice for i in block)
        result.append((order, 1.0 / count))
    return result


# --------------------------------------------------------------------------------------
# Per-query formulas on one explicit ranking
#
# ``ranked`` holds the labels of the retrieved documents from rank 1 down, ``judged``
# the labels of every row of the query (retrieved or not), ``k`` the cut-off or None.
# --------------------------------------------------------------------------------------
def _cut(k, n):
    """Number of ranked positions considered."""
    return n if k is None else min(k, n)


def _gain(label, gain):
    if gain == "exponential":
        return 2.0**label - 1.0
    if gain == "linear":
        return float(label)
    raise ValueError(f"unknown gain={gain!r}")


def _dcg_of(labels, k, gain, log_base):
    total = 0.0
    for i in range(1, _cut(k, len(labels)) + 1):
        total += _gain(labels[i - 1], gain) / (math.log(i + 1) / math.log(log_base))
    return total


def dcg(ranked, judged, k=None, gain="exponential", log_base=2):
    """DCG@k = sum_{i<=k} gain(rel_i) / log_b(i + 1)."""
    return _dcg_of(ranked, k, gain, log_base)


def ndcg(ranked, judged, k=None, gain="exponential", log_base=2):
    """DCG@k / IDCG@k, the ideal ranking built from every judged row."""
    ideal = sorted(judged, reverse=True)
    return _dcg_of(ranked, k, gain, log_base) / _dcg_of(ideal, k, gain, log_base)


def _grade_probability(label, gain, max_grade):
    if gain == "exponential":
        return (2.0**label - 1.0) / 2.0**max_grade
    if gain == "linear":
        return label / max_grade
    raise ValueError(f"unknown gain={gain!r}")


def err(ranked, judged, k=None, gain="exponential", max_grade=None, persistence=1.0):
    """ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} persistence (1 - R_j)."""
    total = 0.0
    reach = 1.0  # probability that the user examines rank i
    for i in range(1, _cut(k, len(ranked)) + 1):
        stop = _grade_probability(ranked[i - 1], gain, max_grade)
        total += reach * stop / i
        reach *= persistence * (1.0 - stop)
    return total


def rbp(
    ranked,
    judged,
    k=None,
    persistence=0.8,
    graded=False,
    max_grade=None,
    relevance_threshold=1,
):
    """RBP = (1 - p) sum_{i<=k} rel_i p^(i-1)."""
    total = 0.0
    for i in range(1, _cut(k, len(ranked)) + 1):
        label = ranked[i - 1]
        if graded:
            rel = label / max_grade
        else:
            rel = 1.0 if label >= relevance_threshold else 0.0
        total += rel * persistence ** (i - 1)
    return (1.0 - persistence) * total


def rbp_residual(ranked, judged, k=None, persistence=0.8, **unused):
    """Weight of the positions RBP did not look at: p^d with d = min(k, n)."""
    return persistence ** _cut(k, len(ranked))


def _is_relevant(label, threshold):
    return label >= threshold


def average_precision(ranked, judged, k=None, relevance_threshold=1, ap_denominator="all"):
    """AP@k = sum_{i<=k} rel_i P@i / D."""
    hits = 0
    total = 0.0
    for i in range(1, _cut(k, len(ranked)) + 1):
        if _is_relevant(ranked[i - 1], relevance_threshold):
            hits += 1
            total += hits / i
    n_relevant = sum(_is_relevant(label, relevance_threshold) for label in judged)
    if ap_denominator == "all":
        denominator = n_relevant
    elif ap_denominator == "min_k":
        denominator = n_relevant if k is None else min(n_relevant, k)
    elif ap_denominator == "found":
        denominator = hits
    else:
        raise ValueError(f"unknown ap_denominator={ap_denominator!r}")
    return total / denominator if denominator else 0.0


def reciprocal_rank(ranked, judged, k=None, relevance_threshold=1):
    """1 / rank of the first relevant document within the top k, else 0."""
    for i in range(1, _cut(k, len(ranked)) + 1):
        if _is_relevant(ranked[i - 1], relevance_threshold):
            return 1.0 / i
    return 0.0


def _hits(ranked, depth, threshold):
    return sum(_is_relevant(label, threshold) for label in ranked[:depth])


def precision(ranked, judged, k=None, relevance_threshold=1, short_lists="k"):
    """hits@k / k (short_lists="k"), hits@k / min(k, n) (short_lists="length"), or hits@k /
    min(k, rows) with rows every judged row, retrieved or not (short_lists="rows")."""
    n = len(ranked)
    hits = _hits(ranked, _cut(k, n), relevance_threshold)
    if n == 0:
        return 0.0  # nothing retrieved: no hit, whatever the denominator
    if short_lists == "rows":
        return hits / (len(judged) if k is None else min(k, len(judged)))
    if k is None:
        return hits / n
    if short_lists == "k":
        return hits / k
    if short_lists == "length":
        return hits / min(k, n)
    raise ValueError(f"unknown short_lists={short_lists!r}")


def recall(ranked, judged, k=None, relevance_threshold=1):
    """hits@k / R, R counting unretrieved relevant documents too."""
    n_relevant = sum(_is_relevant(label, relevance_threshold) for label in judged)
    return _hits(ranked, _cut(k, len(ranked)), relevance_threshold) / n_relevant


def hit_rate(ranked, judged, k=None, relevance_threshold=1):
    """1 if a relevant document is in the top k, else 0."""
    return 1.0 if _hits(ranked, _cut(k, len(ranked)), relevance_threshold) else 0.0


def hits(ranked, judged, k=None, relevance_threshold=1):
    """The number of relevant documents in the top k."""
    return float(_hits(ranked, _cut(k, len(ranked)), relevance_threshold))


def r_precision(ranked, judged, relevance_threshold=1):
    """hits@R / R."""
    n_relevant = sum(_is_relevant(label, relevance_threshold) for label in judged)
    return _hits(ranked, n_relevant, relevance_threshold) / n_relevant


def _utility_of(labels, k, half_life, default_rating):
    total = 0.0
    for i in range(1, _cut(k, len(labels)) + 1):
        total += max(labels[i - 1] - default_rating, 0.0) / 2.0 ** (
            (i - 1) / (half_life - 1)
        )
    return total


def half_life_utility(ranked, judged, k=None, half_life=5, default_rating=0):
    """Breese's utility sum_i max(y_i - d, 0) / 2^((i-1)/(h-1)), over its ideal."""
    ideal = sorted(judged, reverse=True)
    return _utility_of(ranked, k, half_life, default_rating) / _utility_of(
        ideal, k, half_life, default_rating
    )


_RANKED_METRICS = {
    "dcg": dcg,
    "ndcg": ndcg,
    "err": err,
    "rbp": rbp,
    "rbp_residual": rbp_residual,
    "map": average_precision,
    "mrr": reciprocal_rank,
    "precision": precision,
    "recall": recall,
    "hit_rate": hit_rate,
    "hits": hits,
    "r_precision": r_precision,
    "half_life_utility": half_life_utility,
    # incomplete judgements, retrieved sets and counts, in _brute_force_judged.py. Its
    # rbp_residual, trec_eval's rbp_resid, replaces the one above: with every document
    # judged it is the same p**min(k, n)
    **_brute_force_judged.RANKED_METRICS,
    # interpolated precision, R-based and G-based measures, in _brute_force_curves.py. Its
    # dcg and ndcg, which take a gain mapping and the discount, replace the ones above (equal for
    # named gains and the log discount). With ties="average", iprec_at_recall,
    # eleven_point_average and g are not the mean over orderings: see its AVERAGED_LIST.
    **_brute_force_curves.RANKED_METRICS,
}


# --------------------------------------------------------------------------------------
# Correlation metrics (one query, plain pair loops)
# --------------------------------------------------------------------------------------
def _sign(x):
    return int(x > 0) - int(x < 0)


def kendall_tau_b(y_true, y_score):
    """tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2)), counting pairs explicitly."""
    n = len(y_true)
    concordant_minus_discordant = 0
    pairs = n * (n - 1) // 2
    tied_true = tied_score = 0
    for i in range(n):
        for j in range(i + 1, n):
            a = _sign(y_true[i] - y_true[j])
            b = _sign(y_score[i] - y_score[j])
            concordant_minus_discordant += a * b
            tied_true += a == 0
            tied_score += b == 0
    return concordant_minus_discordant / math.sqrt(
        (pairs - tied_true) * (pairs - tied_score)
    )


def _average_ranks(values):
    """1-based ranks, tied values sharing the mean of the ranks they span."""
    ranks = [0.0] * len(values)
    for i, v in enumerate(values):
        below = sum(w < v for w in values)
        equal = sum(w == v for w in values)
        ranks[i] = below + (equal + 1) / 2.0
    return ranks


def spearman_rho(y_true, y_score):
    """Pearson correlation of the average ranks."""
    a = _average_ranks(y_true)
    b = _average_ranks(y_score)
    n = len(a)
    mean_a = sum(a) / n
    mean_b = sum(b) / n
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b))
    var_a = sum((x - mean_a) ** 2 for x in a)
    var_b = sum((y - mean_b) ** 2 for y in b)
    return cov / math.sqrt(var_a * var_b)


def pairwise_accuracy(y_true, y_score, ties_credit=0.5):
    """Fraction of pairs with different labels that the scores order correctly."""
    credit = 0.0
    pairs = 0
    n = len(y_true)
    for i in range(n):
        for j in range(i + 1, n):
            if y_true[i] == y_true[j]:
                continue
            pairs += 1
            agreement = _sign(y_true[i] - y_true[j]) * _sign(y_score[i] - y_score[j])
            if agreement > 0:
                credit += 1.0
            elif agreement == 0:
                credit += ties_credit
    return credit / pairs


def _correlation(metric, y_true, y_score, options):
    """Value of a correlation metric, or None when y_true is constant."""
    if len(set(y_true)) < 2:
        return None
    if metric == "pairwise_accuracy":
        return pairwise_accuracy(y_true, y_score, **options)
    if options:
        raise TypeError(f"unexpected options {options} for {metric}")
    if len(set(y_score)) < 2:
        return 0.0
    if metric == "kendall_tau":
        return kendall_tau_b(y_true, y_score)
    return spearman_rho(y_true, y_score)


# --------------------------------------------------------------------------------------
# One query, then the whole call
# --------------------------------------------------------------------------------------
_GRADED = ("dcg", "ndcg", "err", "half_life_utility")


def _has_relevant(metric, judged, options):
    """The contract's notion of "the query has a relevant document"."""
    if metric == "half_life_utility":
        return any(label > options.get("default_rating", 0) for label in judged)
    if metric in _GRADED or (metric.startswith("rbp") and options.get("graded", False)):
        return any(label > 0 for label in judged)
    threshold = options.get("relevance_threshold", 1)
    return any(label >= threshold for label in judged)


def defined(metric, judged, options):
    """Whether ``metric`` is defined on a query whose rows have labels ``judged``; where it
    is not, ``no_relevant`` gives its value. The measures of ``_brute_force_curves`` say so
    themselves (their formula returns None), and are not asked here."""
    if metric in _brute_force_judged.RANKED_METRICS:
        threshold = options.get("relevance_threshold", 1)
        return _brute_force_judged.defined(metric, judged, relevance_threshold=threshold)
    return _has_relevant(metric, judged, options)


def _grade(label):
    """The grade by which optimistic and pessimistic ties order a document: 0 when
    unjudged (NaN, or negative as trec_eval's -1), as the engine orders it."""
    return label if label == label and label >= 0 else 0.0


def query_value(metric, y_true, y_score, retrieved, *, k=None, ties="average", **options):
    """Value of ``metric`` on one query, or None where it is undefined (:func:`defined`).

    ``y_true``, ``y_score`` and ``retrieved`` hold all the rows of the query in input
    order. ``max_grade`` must already be a number for ERR and graded RBP. ``ties`` is
    ignored by the metrics of :data:`UNRANKED_METRICS`.
    """
    if metric in _brute_force_curves.RANKED_METRICS:
        return _brute_force_curves.query_value(metric, y_true, y_score, retrieved, k=k,
                                               ties=ties, **options)
    if metric not in _brute_force_judged.RANKED_METRICS:
        # the formulas of this module read grades: an unjudged document is one of grade 0
        y_true = [_grade(float(v)) for v in y_true]
    judged = [float(v) for v in y_true]
    labels = [float(v) for v, r in zip(y_true, retrieved) if r]
    scores = [float(s) for s, r in zip(y_score, retrieved) if r]

    if metric in CORRELATION_METRICS:
        if k is not None:
            raise TypeError("correlation metrics take no k in the brute force")
        return _correlation(metric, labels, scores, options)

    if not defined(metric, judged, options):
        return None
    if metric in UNRANKED_METRICS:
        ties = "stable"  # one ordering: the value of a set is that of any of its orders
    formula = _RANKED_METRICS[metric]
    if metric != "r_precision":
        options = {"k": k, **options}
    expected = 0.0
    for order, probability in orderings([_grade(v) for v in labels], scores, ties):
        ranked = [labels[i] for i in order]
        expected += probability * formula(ranked, judged, **options)
    return expected


def brute_force(
    metric,
    y_true,
    y_score,
    qid=None,
    *,
    sample_weight=None,
    retrieved=None,
    judged=None,
    unjudged="nonrelevant",
    no_relevant=0.0,
    **options,
):
    """Reference value of ``metric`` on flat arrays grouped by ``qid``.

    Parameters
    ----------
    metric : str
        A key of :data:`METRIC_FUNCTIONS`.
    y_true, y_score : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
        None or "single_query" means a single query.
    sample_weight : array-like of shape (n_samples,), default=None
    retrieved : array-like of bool of shape (n_samples,), default=None
    judged : {None, "y_true"}, default=None
        ``"y_true"``: NaN and negative labels mark unjudged documents (NaN outside the
        judgement pool, negative inside it, as trec_eval's -1). None: every label must be
        a grade.
    unjudged : {"nonrelevant", "condensed"}, default="nonrelevant"
        An unjudged document is ranked with grade 0, or taken out of the ranking first
        (a condensed list); either way it counts in no R and in no ideal ordering.
    no_relevant : float or "raise", default=0.0
    **options
        ``k``, ``ties`` and the metric's own options, as in the public function.

    Returns
    -------
    mean : float
        The per-query values of the queries that were not skipped (NaN if all were),
        aggregated by the metric's rule (:data:`AGGREGATIONS`): by default their
        weighted mean.
    per_query : ndarray of shape (n_queries,)
        One value per query in ``np.unique(qid)`` order, NaN for a skipped query.
    """
    y_true = np.asarray(y_true, dtype=float)
    y_score = np.asarray(y_score, dtype=float)
    n = len(y_true)
    one_query = qid is None or (isinstance(qid, str) and qid == "single_query")
    qid = np.zeros(n, dtype=int) if one_query else np.asarray(qid)
    retrieved = np.ones(n, dtype=bool) if retrieved is None else np.asarray(retrieved)
    is_judged = np.array([label == label and label >= 0 for label in y_true], dtype=bool)
    if judged is None and not is_judged.all():
        raise ValueError("NaN or negative labels without judged='y_true'")
    if judged not in (None, "y_true"):
        raise ValueError(f"the brute force reads judged=None or 'y_true'; got {judged!r}")
    if unjudged == "condensed":
        retrieved = retrieved & is_judged
    elif unjudged != "nonrelevant":
        raise ValueError(f"unknown unjudged={unjudged!r}")
    sample_weight = (
        np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    )

    options = dict(options)
    max_grade = options.get("max_grade")
    uses_max_grade = metric == "err" or (
        metric.startswith("rbp") and options.get("graded", False)
    )
    if uses_max_grade and max_grade is None:
        options["max_grade"] = float(max(_grade(label) for label in y_true))

    queries = np.unique(qid)
    per_query = np.full(len(queries), np.nan)
    weights = np.zeros(len(queries))
    for q_index, q in enumerate(queries):
        rows = [i for i in range(n) if qid[i] == q]
        weights[q_index] = sum(sample_weight[i] for i in rows) / len(rows)
        query_options = dict(options)
        if uses_max_grade and max_grade == "query":
            query_options["max_grade"] = max(_grade(y_true[i]) for i in rows)
        value = query_value(
            metric,
            [y_true[i] for i in rows],
            [y_score[i] for i in rows],
            [bool(retrieved[i]) for i in rows],
            **query_options,
        )
        if value is None:
            if isinstance(no_relevant, str):
                if no_relevant == "raise":
                    raise ValueError(f"query {q!r} has no relevant document")
                raise ValueError(f"unknown no_relevant={no_relevant!r}")
            value = no_relevant
        per_query[q_index] = value

    how = AGGREGATIONS.get(metric, "mean")
    return float(_brute_force_judged.aggregate_by(how, per_query, weights)), per_query
