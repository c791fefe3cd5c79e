"""The vectorised metrics against the slow reference of ``tests/_brute_force.py``.

Every metric of the registry and every option is compared, per query and on the
aggregate (the weighted mean, the sum of counts, the geometric mean of gm_*), on small
random inputs built so that the hard cases are common: scores drawn from a handful
of values (ties everywhere, including +-inf), queries without a relevant document,
non-contiguous query ids, unretrieved judged rows and random weights. A metric gets
``k`` and ``ties`` only when its registry entry takes them.
"""

import math
import warnings

import _brute_force_judged
import numpy as np
import pytest
from _brute_force import (
    METRIC_FUNCTIONS,
    brute_force,
    kendall_tau_b,
    orderings,
    spearman_rho,
)
from numpy.testing import assert_allclose
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank import metrics
from sklearn_rank.metrics._registry import METRICS

RTOL = ATOL = 1e-12
KS = (None, 1, 2, 3, 5)
TIES = ("average", "stable", "optimistic", "pessimistic")


def takes(metric, option):
    """Whether the registry entry of ``metric`` has ``option``."""
    return option in METRICS[metric].options


# --------------------------------------------------------------------------------------
# Random inputs
# --------------------------------------------------------------------------------------
def make_case(seed, max_queries, min_queries=1):
    """Flat arrays of ``min_queries`` to ``max_queries`` queries of 1 to 7 documents."""
    rng = np.random.default_rng(seed)
    score_values = np.array([-np.inf, 0.0, 0.5, 0.5, 1.0, 1.0, 2.0, np.inf])
    qid_values = rng.permutation(np.arange(max_queries) * 7 % 13 + 3)  # distinct ids
    if rng.random() < 0.3:
        qid_values = np.array([f"q{value}" for value in qid_values])
    y_true, y_score, qid, retrieved = [], [], [], []
    masked = rng.random() < 0.5
    for q in qid_values[: rng.integers(min_queries, max_queries + 1)]:
        n = int(rng.integers(1, 8))
        if rng.random() < 0.2:
            labels = np.zeros(n)
        else:
            labels = rng.integers(0, 4, n).astype(float)
        scores = rng.choice(score_values[1:-1] if rng.random() < 0.7 else score_values, n)
        mask = rng.random(n) < 0.75 if masked else np.ones(n, dtype=bool)
        mask[rng.integers(n)] = True  # every query keeps a ranked document
        y_true.extend(labels)
        y_score.extend(scores)
        qid.extend([q] * n)
        retrieved.extend(mask)
    order = rng.permutation(len(y_true))
    case = {
        "y_true": np.asarray(y_true)[order],
        "y_score": np.asarray(y_score)[order],
        "qid": np.asarray(qid)[order],
    }
    if len(set(qid)) == 1 and rng.random() < 0.5:
        case["qid"] = "single_query"
    if masked:
        case["retrieved"] = np.asarray(retrieved)[order]
    if rng.random() < 0.5:
        case["sample_weight"] = rng.uniform(0.1, 3.0, len(y_true))[order]
    return case


def all_tied_case():
    """One query whose six documents share a score: 720 orderings to average."""
    return {
        "y_true": np.array([0.0, 3.0, 1.0, 0.0, 2.0, 1.0, 2.0, 0.0]),
        "y_score": np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 5.0, 0.0]),
        "qid": np.array(["b", "a", "a", "a", "a", "a", "a", "b"]),
    }


# A few large calls (many queries each) cover the per-query formulas for few engine
# calls; the small ones cover a call whose every query is skipped (seed 5), string query
# ids (9), qid="single_query" (22) and a single row (24); then a block of 6 tied scores and queries
# with nothing retrieved.
def unretrieved_queries_case():
    """Queries 1 and 3 have nothing retrieved, query 1 with relevant documents."""
    return {
        "y_true": np.array([2.0, 0.0, 1.0, 0.0, 3.0, 1.0, 0.0]),
        "y_score": np.array([1.0, 0.0, 1.0, 2.0, 0.5, 1.0, 0.0]),
        "qid": np.array([1, 1, 2, 2, 2, 3, 3]),
        "retrieved": np.array([False, False, True, True, False, False, False]),
        "sample_weight": np.array([1.0, 2.0, 1.0, 1.0, 0.5, 3.0, 3.0]),
    }


CASES = [
    *(make_case(seed, max_queries=12, min_queries=8) for seed in range(3)),
    *(make_case(seed, max_queries=2) for seed in (5, 6, 9, 22, 24)),
    all_tied_case(),
]


def engine(metric, case, **options):
    """Mean and per-query values of the public function on ``case``."""
    function = getattr(metrics, METRIC_FUNCTIONS[metric])
    y_true, y_score = case["y_true"], case["y_score"]
    rest = {key: value for key, value in case.items() if key not in ("y_true", "y_score")}
    mean = function(y_true, y_score, **rest, **options)
    per_query = function(y_true, y_score, **rest, **options, return_per_query=True)
    return mean, per_query


def reference(metric, case, **options):
    return brute_force(metric, **case, **options)


def assert_same(metric, case, **options):
    expected_mean, expected_per_query = reference(metric, case, **options)
    with warnings.catch_warnings():
        if math.isnan(expected_mean):
            # Every query skipped: a NaN mean, which the engine may announce.
            warnings.simplefilter("ignore", UndefinedMetricWarning)
        mean, per_query = engine(metric, case, **options)
    try:
        assert isinstance(mean, float)
        assert_allclose(per_query, expected_per_query, rtol=RTOL, atol=ATOL)
        assert_allclose(mean, expected_mean, rtol=RTOL, atol=ATOL)
    except AssertionError as error:
        # Formatting the arrays is costly, so only on failure.
        raise AssertionError(f"{metric} {options} on {case}: got mean {mean!r}") from error


# --------------------------------------------------------------------------------------
# The option grid: every option value of every metric, one test per (metric, options,
# ties); each test runs every k over every case.
# --------------------------------------------------------------------------------------
RANKED_GRID = [
    *(
        (metric, {"gain": gain, "log_base": base})
        for metric in ("dcg", "ndcg")
        for gain in ("exponential", "linear")
        for base in (2, math.e)
    ),
    *(
        ("err", {"gain": gain, "max_grade": max_grade})
        for gain in ("exponential", "linear")
        for max_grade in (None, 4, "query")
    ),
    ("err", {"persistence": 0.7}),
    *(
        ("rbp", {"persistence": p, "relevance_threshold": threshold})
        for p in (0.8, 0.5)
        for threshold in (1, 2)
    ),
    *(("rbp", {"graded": True, "max_grade": max_grade}) for max_grade in (None, 4, "query")),
    *(
        ("map", {"relevance_threshold": threshold, "ap_denominator": denominator})
        for threshold in (1, 2)
        for denominator in ("all", "min_k", "found")
    ),
    *(
        ("precision", {"relevance_threshold": threshold, "short_lists": short})
        for threshold in (1, 2)
        for short in ("k", "length", "rows")
    ),
    *(
        (metric, {"relevance_threshold": threshold})
        for metric in ("mrr", "recall", "hit_rate", "hits")
        for threshold in (1, 2)
    ),
    *(
        ("half_life_utility", {"half_life": half_life, "default_rating": rating})
        for half_life in (2, 5)
        for rating in (0, 1)
    ),
    # the DCG family's gain mappings (an unlisted grade keeps its value) and 1/rank discount
    *(
        (metric, options)
        for metric in ("dcg", "ndcg")
        for options in (
            {"discount": "rank"},
            {"gain": "linear", "discount": "rank"},
            {"gain": {0: 0.5, 1: 3.0, 2: 9.0}, "discount": "rank"},
            {"gain": {1: 3.0, 3: 0.5}, "log_base": 10},
        )
    ),
    # incomplete judgements, retrieved sets and counts: the grid of
    # tests/test_trec_measures_judged.py
    *_brute_force_judged.GRID,
    # interpolated precision, R-based and G-based measures
    *(
        ("gm_map", {"relevance_threshold": threshold, "ap_denominator": denominator})
        for threshold in (1, 2)
        for denominator in ("all", "min_k", "found")
    ),
    *(
        ("iprec_at_recall", {"recall": recall, "recall_rounding": rounding})
        for recall in (0.0, 0.3, 0.5, 1.0)
        for rounding in ("nearest", "legacy")
    ),
    ("iprec_at_recall", {"recall": 0.5, "relevance_threshold": 2}),
    *(("yaap", {"relevance_threshold": threshold}) for threshold in (1, 2)),
    ("eleven_point_average", {}),
    ("eleven_point_average", {"recall_rounding": "legacy", "relevance_threshold": 2}),
    ("eleven_point_average", {"recall_levels": (0.25, 0.5, 0.75), "recall_rounding": "legacy"}),
    *(("rprec_mult", {"mult": mult}) for mult in (0.2, 0.5, 1.0, 2.0)),
    ("rprec_mult", {"mult": 1.5, "relevance_threshold": 2}),
    *(("bing", {"relevance_threshold": threshold}) for threshold in (1, 2)),
    ("g", {}),
    ("g", {"gain": "linear"}),
    ("g", {"gain": {0: 0.5, 1: 3.0, 2: 9.0}}),
    *(
        (metric, options)
        for metric in ("ndcg_rel", "rndcg")
        for options in (
            {},
            {"gain": "linear"},
            {"discount": "rank"},
            {"gain": {1: 3.0, 2: 9.0, 3: 0.5}, "log_base": 10},
        )
    ),
    *(("rndcg", {"relevance_threshold": threshold}) for threshold in (2, 3)),
]
# (metric, options, ties): every tie rule for a metric that takes one, else ties=None
RANKED_CASES = [
    (metric, options, ties)
    for metric, options in RANKED_GRID
    for ties in (TIES if takes(metric, "ties") else (None,))
]


def _id(metric, options):
    inner = ",".join(f"{key}={value:.3g}" if isinstance(value, float) else f"{key}={value}"
                     for key, value in options.items())
    return f"{metric}({inner})"


@pytest.mark.parametrize(
    "metric, options, ties", RANKED_CASES,
    ids=[f"{_id(metric, options)}-{ties}" for metric, options, ties in RANKED_CASES],
)
def test_ranked_metric_matches_brute_force(metric, options, ties):
    if ties is not None:
        options = {**options, "ties": ties}
    for case in CASES:
        for k in KS if takes(metric, "k") else (None,):
            assert_same(metric, case, **({"k": k} if takes(metric, "k") else {}), **options)


def test_ranked_grid_sets_ties_and_k_only_where_the_registry_takes_them():
    # the others would raise TypeError; the grid must still reach every metric
    assert {metric for metric, _, _ in RANKED_CASES} >= set(METRICS) - {
        "r_precision", "kendall_tau", "spearman", "pairwise_accuracy"}
    for metric, options, ties in RANKED_CASES:
        assert set(options) <= set(METRICS[metric].options), (metric, options)
        assert (ties is None) == (not takes(metric, "ties")), metric


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("threshold", [1, 2])
def test_r_precision_matches_brute_force(threshold, ties):
    for case in CASES:
        assert_same("r_precision", case, ties=ties, relevance_threshold=threshold)


@pytest.mark.parametrize("persistence", [0.8, 0.5])
def test_rbp_residual_matches_brute_force(persistence):
    for case in CASES:
        y_true, y_score = case["y_true"], case["y_score"]
        rest = {key: value for key, value in case.items() if key not in ("y_true", "y_score")}
        for k in KS:
            options = {"k": k, "persistence": persistence}
            expected_mean, expected_per_query = reference("rbp_residual", case, **options)
            _, residual = metrics.rbp_score(
                y_true, y_score, **rest, **options, return_residual=True, return_per_query=True
            )
            assert_allclose(residual, expected_per_query, rtol=RTOL, atol=ATOL)
            _, mean_residual = metrics.rbp_score(
                y_true, y_score, **rest, **options, return_residual=True
            )
            assert_allclose(mean_residual, expected_mean, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("metric", list(METRIC_FUNCTIONS))
def test_call_with_nothing_retrieved(metric):
    # Every judged document unretrieved: the ranked lists are empty, every query scores 0
    # (correlations: no pair, the no_relevant value; counts of relevant documents and
    # rates of unjudged documents are what they are without a ranking).
    case = {
        "y_true": np.array([1.0, 0.0, 2.0]),
        "y_score": np.array([0.0, 1.0, 0.0]),
        "qid": np.array([1, 1, 2]),
        "retrieved": np.array([False, False, False]),
    }
    assert_same(metric, case)


def unjudged_case(seed):
    """A random case whose labels are NaN (outside the judgement pool) or -1 (in the pool,
    unjudged) on some rows, read with judged="y_true"."""
    case = make_case(seed, max_queries=6, min_queries=3)
    kind = np.random.default_rng(seed + 1000).random(len(case["y_true"]))
    case["y_true"] = np.where(kind < 0.15, np.nan, np.where(kind < 0.25, -1.0, case["y_true"]))
    case["judged"] = "y_true"
    return case


UNJUDGED_CASES = [unjudged_case(seed) for seed in range(4)]


@pytest.mark.parametrize("unjudged", ["nonrelevant", "condensed"])
@pytest.mark.parametrize("metric", list(METRIC_FUNCTIONS))
def test_unjudged_documents_match_brute_force(metric, unjudged):
    # Every metric takes `unjudged`: an unjudged document ranks as grade 0, or is taken out
    # of the ranking first; it is relevant to none, judged for none.
    assert any(np.isnan(case["y_true"]).any() and (case["y_true"] < 0).any()
               for case in UNJUDGED_CASES)
    for case in UNJUDGED_CASES:
        for ties in TIES if takes(metric, "ties") else (None,):
            for k in (None, 2) if takes(metric, "k") else (None,):
                options = {"unjudged": unjudged, "no_relevant": np.nan}
                if ties is not None:
                    options["ties"] = ties
                if k is not None:
                    options["k"] = k
                assert_same(metric, case, **options)


CORRELATION_GRID = [
    ("kendall_tau", {}),
    ("spearman", {}),
    *(("pairwise_accuracy", {"ties_credit": credit}) for credit in (0.0, 0.5, 1.0)),
]


@pytest.mark.parametrize(
    "metric, options", CORRELATION_GRID, ids=[_id(*params) for params in CORRELATION_GRID]
)
def test_correlation_metric_matches_brute_force(metric, options):
    # Correlations pair the ranked (retrieved) rows only.
    for case in CASES:
        assert_same(metric, case, **options)


# --------------------------------------------------------------------------------------
# The policy for queries without a relevant document, the same for every metric
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("no_relevant", [0.0, 1.0, np.nan, "raise"], ids=str)
@pytest.mark.parametrize("metric", list(METRIC_FUNCTIONS))
def test_no_relevant_policy_matches_brute_force(metric, no_relevant):
    k_values = (None, 3) if takes(metric, "k") else (None,)
    for case in CASES:
        for k in k_values:
            options = {"no_relevant": no_relevant}
            if k is not None:
                options["k"] = k
            try:
                reference(metric, case, **options)
            except ValueError:
                with pytest.raises(ValueError):
                    engine(metric, case, **options)
            else:
                assert_same(metric, case, **options)


@pytest.mark.parametrize("no_relevant", [1.0, np.nan], ids=str)
@pytest.mark.parametrize(
    "metric, options",
    [
        ("map", {"relevance_threshold": 2}),
        ("precision", {"relevance_threshold": 2, "k": 3}),
        ("r_precision", {"relevance_threshold": 3}),
        ("rbp", {"relevance_threshold": 2}),
        ("rbp", {"graded": True, "relevance_threshold": 2}),
        ("half_life_utility", {"default_rating": 1}),
        ("err", {"max_grade": "query"}),
    ],
    ids=lambda value: _id("", value) if isinstance(value, dict) else value,
)
def test_no_relevant_follows_each_metric_notion_of_relevance(metric, options, no_relevant):
    # Relevant means y_true >= relevance_threshold for binary metrics, a positive gain
    # for graded ones (so graded RBP ignores the threshold, and half-life utility needs
    # y_true > default_rating).
    for case in CASES:
        assert_same(metric, case, no_relevant=no_relevant, **options)


def test_no_relevant_raise_is_exercised():
    """Some case must have a query without relevant document, or the test above is idle."""
    raising = 0
    for case in CASES:
        try:
            brute_force("ndcg", **case, no_relevant="raise")
        except ValueError:
            raising += 1
    assert 0 < raising < len(CASES)


# --------------------------------------------------------------------------------------
# evaluate(): the same numbers as the functions it names
# --------------------------------------------------------------------------------------
EVALUATE_NAMES = {
    "ndcg": ("ndcg", {}),
    "NDCG@3": ("ndcg", {"k": 3}),
    "ndcg@10": ("ndcg", {"k": 10}),
    "dcg@5": ("dcg", {"k": 5}),
    "err@2": ("err", {"k": 2}),
    "map": ("map", {}),
    "map@3": ("map", {"k": 3}),
    "ap@3": ("map", {"k": 3}),
    "mrr": ("mrr", {}),
    "rr": ("mrr", {}),
    "mrr@2": ("mrr", {"k": 2}),
    "p@5": ("precision", {"k": 5}),
    "r@2": ("recall", {"k": 2}),
    "success@1": ("hit_rate", {"k": 1}),
    "hit_rate@3": ("hit_rate", {"k": 3}),
    "hits@3": ("hits", {"k": 3}),
    "r_precision": ("r_precision", {}),
    "rprec": ("r_precision", {}),
    "rbp(p=0.8)": ("rbp", {"persistence": 0.8}),
    "rbp(p=0.5)": ("rbp", {"persistence": 0.5}),
    "kendall_tau": ("kendall_tau", {}),
    "spearman": ("spearman", {}),
    "pairwise_accuracy": ("pairwise_accuracy", {}),
    "half_life_utility": ("half_life_utility", {}),
    "bpref": ("bpref", {}),
    "gm_bpref(rel=2)": ("gm_bpref", {"relevance_threshold": 2}),
    "infAP": ("infap", {}),
    "judged@3": ("judged", {"k": 3}),
    "unj@2": ("unjudged_rate", {"k": 2}),
    "rbp_resid(p=0.5)": ("rbp_residual", {"persistence": 0.5}),
    "set_f(beta=2)": ("set_f", {"beta": 2}),
    "set_map": ("set_map", {}),
    "num_rel_ret": ("num_rel_ret", {}),
    "num_q": ("num_q", {}),
    "utility(a=2,c=-1)": ("utility", {"relevant_retrieved": 2, "relevant_missed": -1}),
    "fallout@3": ("fallout", {"k": 3}),
    "f1@2": ("f1", {"k": 2}),
    "relative_p@3": ("relative_p", {"k": 3}),
    "gm_map@3": ("gm_map", {"k": 3}),
    "iprec_at_recall(recall=0.5)": ("iprec_at_recall", {"recall": 0.5}),
    "11pt_avg": ("eleven_point_average", {}),
    "rprec_mult(mult=2)": ("rprec_mult", {"mult": 2}),
    "g": ("g", {}),
    "bing": ("bing", {}),
    "ndcg_rel(gains={1: 3, 2: 9})": ("ndcg_rel", {"gain": {1: 3, 2: 9}}),
    "rndcg": ("rndcg", {}),
    "ndcg@3(discount=rank)": ("ndcg", {"k": 3, "discount": "rank"}),
}


@pytest.mark.parametrize("return_per_query", [False, True])
@pytest.mark.parametrize("ties", ["average", "pessimistic"])
def test_evaluate_matches_single_functions(ties, return_per_query):
    names = list(EVALUATE_NAMES)
    for case in CASES:
        y_true, y_score = case["y_true"], case["y_score"]
        rest = {key: value for key, value in case.items() if key not in ("y_true", "y_score")}
        result = metrics.evaluate(
            y_true,
            y_score,
            metrics=names,
            ties=ties,
            return_per_query=return_per_query,
            **rest,
        )
        assert list(result) == names
        for name, (metric, options) in EVALUATE_NAMES.items():
            if takes(metric, "ties"):
                options = {**options, "ties": ties}
            function = getattr(metrics, METRIC_FUNCTIONS[metric])
            expected = function(
                y_true, y_score, **rest, **options, return_per_query=return_per_query
            )
            assert_allclose(result[name], expected, rtol=RTOL, atol=ATOL, err_msg=name)
            mean, per_query = reference(metric, case, **options)
            assert_allclose(
                result[name],
                per_query if return_per_query else mean,
                rtol=RTOL,
                atol=ATOL,
                err_msg=name,
            )


def test_evaluate_with_retrieved_matches_single_functions():
    names = ["NDCG@3", "map", "r@2", "rprec", "p@5", "kendall_tau", "pairwise_accuracy"]
    for case in CASES:
        if "retrieved" not in case:
            continue
        y_true, y_score = case["y_true"], case["y_score"]
        rest = {key: value for key, value in case.items() if key not in ("y_true", "y_score")}
        result = metrics.evaluate(y_true, y_score, metrics=names, **rest)
        for name in names:
            metric, options = EVALUATE_NAMES[name]
            expected, _ = reference(metric, case, **options)
            assert_allclose(result[name], expected, rtol=RTOL, atol=ATOL, err_msg=name)


# --------------------------------------------------------------------------------------
# Checks of the reference itself
# --------------------------------------------------------------------------------------
def test_orderings_average_enumerates_every_permutation_of_tied_blocks():
    # Blocks {0, 2} (score 1) and {1, 3, 4} (score 0): 2! * 3! orderings.
    result = orderings([0, 1, 2, 3, 4], [1.0, 0.0, 1.0, 0.0, 0.0], "average")
    assert len(result) == 12
    assert len({order for order, _ in result}) == 12
    assert math.isclose(sum(p for _, p in result), 1.0)
    assert all(set(order[:2]) == {0, 2} for order, _ in result)


@pytest.mark.parametrize(
    "ties, expected",
    [
        ("stable", (2, 0, 1, 3)),
        ("optimistic", (2, 1, 0, 3)),
        ("pessimistic", (2, 0, 1, 3)),
    ],
)
def test_orderings_explicit_tie_breaks(ties, expected):
    # Rows 0 and 1 tie at score 1; row 1 has the higher label.
    [(order, probability)] = orderings([0, 2, 1, 5], [1.0, 1.0, 3.0, -np.inf], ties)
    assert order == expected
    assert probability == 1.0


def test_reference_correlations_agree_with_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(2, 8))
        y_true = rng.integers(0, 4, n).astype(float)
        y_score = rng.choice([0.0, 0.5, 1.0, 2.0], n)
        if len(set(y_true)) < 2 or len(set(y_score)) < 2:
            continue
        assert math.isclose(
            kendall_tau_b(list(y_true), list(y_score)),
            stats.kendalltau(y_true, y_score).statistic,
            rel_tol=1e-12,
            abs_tol=1e-12,
        )
        assert math.isclose(
            spearman_rho(list(y_true), list(y_score)),
            stats.spearmanr(y_true, y_score).statistic,
            rel_tol=1e-12,
            abs_tol=1e-12,
        )
