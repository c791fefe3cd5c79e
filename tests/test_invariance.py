"""Properties every metric has, checked with hypothesis over a registry of metrics.

A ranking metric of (y_true, y_score, qid) must not depend on how the caller happens to
store the data: the order of the rows, the names of the queries, the container type,
weights that are all equal, or the scale of the scores. Its values must stay in range, and
the number it returns must be its per-query values aggregated by its registry entry's rule
(``Metric.aggregation``): their (weighted) mean, their weighted sum for counts, or
trec_eval's geometric mean, of values floored at 1e-5, for gm_map and gm_bpref.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank import metrics
from sklearn_rank.metrics._registry import METRICS

RTOL = ATOL = 1e-12
# trec_eval's MIN_GEO_MEAN: the floor of the values of a geometric mean
GEOMETRIC_MEAN_FLOOR = 1e-5

# (id, public function, keywords, range of the per-query values or None when unbounded).
UNIT = (0.0, 1.0)
REGISTRY = [
    ("ndcg", "ndcg_score", {}, UNIT),
    ("ndcg@3-linear", "ndcg_score", {"k": 3, "gain": "linear"}, UNIT),
    ("dcg@5", "dcg_score", {"k": 5}, (0.0, math.inf)),
    ("dcg-linear-log10", "dcg_score", {"gain": "linear", "log_base": 10}, (0.0, math.inf)),
    ("err", "err_score", {}, UNIT),
    ("err@3-query-grade", "err_score", {"k": 3, "max_grade": "query"}, UNIT),
    ("err-linear-p0.5", "err_score", {"gain": "linear", "persistence": 0.5}, UNIT),
    ("rbp", "rbp_score", {}, UNIT),
    ("rbp@4-graded-p0.5", "rbp_score", {"k": 4, "graded": True, "persistence": 0.5}, UNIT),
    ("map", "map_score", {}, UNIT),
    ("map@3-min_k", "map_score", {"k": 3, "ap_denominator": "min_k"}, UNIT),
    ("map@3-found", "map_score", {"k": 3, "ap_denominator": "found"}, UNIT),
    ("mrr@5-threshold2", "mrr_score", {"k": 5, "relevance_threshold": 2}, UNIT),
    ("precision@3", "precision_score", {"k": 3}, UNIT),
    ("precision@5-length", "precision_score", {"k": 5, "short_lists": "length"}, UNIT),
    ("recall@3", "recall_score", {"k": 3}, UNIT),
    ("hit_rate@2", "hit_rate_score", {"k": 2}, UNIT),
    ("hits@3", "hits_score", {"k": 3}, (0.0, 3.0)),
    ("r_precision", "r_precision_score", {}, UNIT),
    ("half_life_utility@4", "half_life_utility_score", {"k": 4}, UNIT),
    ("kendall_tau", "kendall_tau_score", {}, (-1.0, 1.0)),
    ("spearman", "spearman_score", {}, (-1.0, 1.0)),
    ("pairwise_accuracy", "pairwise_accuracy_score", {}, UNIT),
    # incomplete judgements, retrieved sets and counts
    ("bpref", "bpref_score", {}, UNIT),
    ("bpref-threshold2", "bpref_score", {"relevance_threshold": 2}, UNIT),
    ("gm_bpref", "gm_bpref_score", {}, UNIT),
    ("infap", "infap_score", {}, UNIT),
    ("judged@3", "judged_score", {"k": 3}, UNIT),
    ("unjudged_rate@5", "unjudged_rate_score", {"k": 5}, UNIT),
    ("rbp_residual@4", "rbp_residual_score", {"k": 4, "persistence": 0.5}, UNIT),
    ("rbp_residual-zero", "rbp_residual_score", {"all_judged": "zero"}, UNIT),
    ("set_p", "set_p_score", {}, UNIT),
    ("set_recall", "set_recall_score", {}, UNIT),
    ("set_f-beta2", "set_f_score", {"beta": 2.0}, UNIT),
    ("set_map", "set_map_score", {}, UNIT),
    ("set_relative_p", "set_relative_p_score", {}, UNIT),
    ("relative_p@3", "relative_p_score", {"k": 3}, UNIT),
    ("num_ret", "num_ret_score", {}, (0.0, math.inf)),
    ("num_rel", "num_rel_score", {}, (0.0, math.inf)),
    ("num_rel_ret", "num_rel_ret_score", {}, (0.0, math.inf)),
    ("num_nonrel_judged_ret", "num_nonrel_judged_ret_score", {}, (0.0, math.inf)),
    ("num_q", "num_q_score", {}, (0.0, math.inf)),
    ("utility", "utility_score", {}, (-math.inf, math.inf)),
    ("utility-abcd", "utility_score", {"relevant_retrieved": 2.0, "relevant_missed": -1.0,
                                       "nonrelevant_missed": 0.5}, (-math.inf, math.inf)),
    ("fallout@3", "fallout_score", {"k": 3}, UNIT),
    ("f1@3", "f1_score", {"k": 3}, UNIT),
    # interpolated precision, R-based and G-based measures, the DCG family's gains
    ("ndcg-gains", "ndcg_score", {"gain": {1: 3.0, 2: 9.0, 3: 4.5}}, UNIT),
    ("ndcg@3-rank", "ndcg_score", {"k": 3, "discount": "rank"}, UNIT),
    ("dcg@4-rank-gains", "dcg_score", {"k": 4, "discount": "rank", "gain": {0: 0.5, 3: 1}},
     (0.0, math.inf)),
    ("gm_map", "gm_map_score", {}, UNIT),
    ("yaap", "yaap_score", {}, (-math.inf, math.inf)),
    ("iprec_at_recall-0.5", "iprec_at_recall_score", {"recall": 0.5}, UNIT),
    ("iprec_at_recall-legacy", "iprec_at_recall_score",
     {"recall": 0.3, "recall_rounding": "legacy"}, UNIT),
    ("11pt_avg", "eleven_point_average_score", {}, UNIT),
    ("3pt_avg-threshold2", "eleven_point_average_score",
     {"recall_levels": (0.2, 0.5, 0.8), "relevance_threshold": 2}, UNIT),
    ("rprec_mult-0.2", "rprec_mult_score", {"mult": 0.2}, UNIT),
    ("rprec_mult-2", "rprec_mult_score", {"mult": 2.0}, UNIT),
    ("g", "g_score", {}, UNIT),
    ("g-gains", "g_score", {"gain": {0: 0.5, 2: 1.0}}, UNIT),
    ("bing", "bing_score", {}, UNIT),
    ("ndcg_rel", "ndcg_rel_score", {}, UNIT),
    ("ndcg_rel-linear-rank", "ndcg_rel_score", {"gain": "linear", "discount": "rank"}, UNIT),
    ("rndcg", "rndcg_score", {}, UNIT),
    ("rndcg-gains-log10", "rndcg_score", {"gain": {1: 2.0, 2: 2.0}, "log_base": 10}, UNIT),
]
# The registry entry of each public function.
SPEC = {metric.function_name: metric for metric in METRICS.values()}
# Functions without a `ties` option: the correlations and the measures of the retrieved set.
UNRANKED = tuple(name for name, metric in SPEC.items() if "ties" not in metric.options)

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SCORES = [-np.inf, -1.0, 0.0, 0.5, 1.0, 2.0, np.inf]


@st.composite
def ranking_data(draw, max_rows=20):
    """Small flat inputs: few queries, few labels, few distinct scores (many ties)."""
    n = draw(st.integers(1, max_rows))
    data = {
        "y_true": draw(arrays(np.float64, n, elements=st.sampled_from([0.0, 1.0, 2.0, 3.0]))),
        "y_score": draw(arrays(np.float64, n, elements=st.sampled_from(SCORES))),
        "qid": draw(arrays(np.int64, n, elements=st.integers(0, 4))),
    }
    if draw(st.booleans()):
        data["retrieved"] = draw(arrays(np.bool_, n))
    return data


def call(function_name, data, options, ties, **extra):
    """Call a metric, passing ``ties`` to the metrics that take it."""
    function = getattr(metrics, function_name)
    if function_name not in UNRANKED:
        options = {**options, "ties": ties}
    return function(**data, **options, **extra)


def aggregate(function_name, values, weights):
    """The per-query ``values`` over queries of ``weights`` by the metric's aggregation,
    written out here: NaN values (skipped queries) are left out."""
    how = SPEC[function_name].aggregation
    if how == "sum":
        return np.sum(values * weights)
    if how == "geometric_mean":
        logs = np.log(np.maximum(values, GEOMETRIC_MEAN_FLOOR))
        return np.exp(np.sum(logs * weights) / np.sum(weights))
    assert how == "mean", how
    return np.sum(values * weights) / np.sum(weights)


def per_query(function_name, data, options, ties, **extra):
    return call(function_name, data, options, ties, return_per_query=True, **extra)


# --------------------------------------------------------------------------------------
# Storage does not matter
# --------------------------------------------------------------------------------------
@SETTINGS
@given(
    data=ranking_data(),
    seed=st.integers(0, 2**32 - 1),
    ties=st.sampled_from(["average", "optimistic", "pessimistic"]),
)
def test_row_order_does_not_matter(data, seed, ties):
    # With "stable" ties the input order is the tie-break, so it is excluded.
    order = np.random.default_rng(seed).permutation(len(data["y_true"]))
    shuffled = {key: value[order] for key, value in data.items()}
    for name, function_name, options, _ in REGISTRY:
        assert_allclose(
            per_query(function_name, shuffled, options, ties),
            per_query(function_name, data, options, ties),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )


@SETTINGS
@given(
    data=ranking_data(),
    seed=st.integers(0, 2**32 - 1),
    ties=st.sampled_from(["average", "stable", "optimistic", "pessimistic"]),
    as_strings=st.booleans(),
)
def test_qid_relabelling_permutes_per_query_values(data, seed, ties, as_strings):
    old_ids = np.unique(data["qid"])
    new_values = np.random.default_rng(seed).permutation(100)[: len(old_ids)]
    new_ids = np.array([f"query-{v}" for v in new_values]) if as_strings else new_values
    mapping = dict(zip(old_ids.tolist(), new_ids.tolist()))
    relabelled = {**data, "qid": np.array([mapping[q] for q in data["qid"].tolist()])}
    # Position of each old query in the np.unique order of the new labels.
    position = np.searchsorted(np.unique(relabelled["qid"]), new_ids)
    for name, function_name, options, _ in REGISTRY:
        before = per_query(function_name, data, options, ties)
        after = per_query(function_name, relabelled, options, ties)
        assert_allclose(after[position], before, rtol=RTOL, atol=ATOL, err_msg=name)
        assert_allclose(
            call(function_name, relabelled, options, ties),
            call(function_name, data, options, ties),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )


CONTAINERS = {
    "list": lambda values: values.tolist(),
    "numpy": lambda values: values,
    "pandas": lambda values: pytest.importorskip("pandas").Series(values),
    "polars": lambda values: pytest.importorskip("polars").Series(values),
}


@SETTINGS
@given(data=ranking_data(), qid_as_strings=st.booleans())
def test_container_type_does_not_matter(data, qid_as_strings):
    # Every container on each example, against the values of the numpy arrays computed once.
    if qid_as_strings:
        data = {**data, "qid": np.array([f"q{q}" for q in data["qid"]])}
    containers = {container: {key: wrap(value) for key, value in data.items()}
                  for container, wrap in CONTAINERS.items()}
    for name, function_name, options, _ in REGISTRY:
        expected = per_query(function_name, data, options, "average")
        for container, wrapped in containers.items():
            got = per_query(function_name, wrapped, options, "average")
            assert isinstance(got, np.ndarray), (name, container)
            np.testing.assert_array_equal(got, expected, err_msg=f"{name}, {container}")
            mean = call(function_name, wrapped, options, "average")
            assert isinstance(mean, float), (name, container)


# --------------------------------------------------------------------------------------
# Equal weights are no weights
# --------------------------------------------------------------------------------------
@SETTINGS
@given(
    data=ranking_data(),
    weight=st.sampled_from([1.0, 0.25, 2.5, 1e3]),
    ties=st.sampled_from(["average", "stable", "optimistic", "pessimistic"]),
)
def test_constant_weights_equal_no_weights(data, weight, ties):
    # A mean is blind to a weight common to every row; a sum (the counts) is multiplied by it.
    weights = np.full(len(data["y_true"]), weight)
    for name, function_name, options, _ in REGISTRY:
        scale = weight if SPEC[function_name].aggregation == "sum" else 1.0
        assert_allclose(
            call(function_name, data, options, ties, sample_weight=weights),
            scale * call(function_name, data, options, ties),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )


# --------------------------------------------------------------------------------------
# Only the order of the scores matters
# --------------------------------------------------------------------------------------
TRANSFORMS = {
    "affine": lambda s: 2.5 * s + 3.0,
    "exp": np.exp,
    "arctan": np.arctan,
    "cube": lambda s: s**3,
}


@SETTINGS
@given(
    data=ranking_data(),
    transform=st.sampled_from(list(TRANSFORMS)),
    ties=st.sampled_from(["average", "stable", "optimistic", "pessimistic"]),
)
def test_strictly_increasing_score_transform_does_not_matter(data, transform, ties):
    transformed = {**data, "y_score": TRANSFORMS[transform](data["y_score"])}
    # The transforms keep the ties and the order of the score values used here.
    assert len(np.unique(transformed["y_score"])) == len(np.unique(data["y_score"]))
    for name, function_name, options, _ in REGISTRY:
        assert_allclose(
            per_query(function_name, transformed, options, ties),
            per_query(function_name, data, options, ties),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )


# --------------------------------------------------------------------------------------
# Ranges and means
# --------------------------------------------------------------------------------------
@SETTINGS
@given(
    data=ranking_data(),
    ties=st.sampled_from(["average", "stable", "optimistic", "pessimistic"]),
    no_relevant=st.sampled_from([0.0, 1.0]),
)
def test_values_are_in_range(data, ties, no_relevant):
    for name, function_name, options, (low, high) in REGISTRY:
        values = per_query(function_name, data, options, ties, no_relevant=no_relevant)
        assert np.all(values >= low - 1e-12), (name, values)
        assert np.all(values <= high + 1e-12), (name, values)
        mean = call(function_name, data, options, ties, no_relevant=no_relevant)
        assert low - 1e-12 <= mean <= high + 1e-12, (name, mean)


@SETTINGS
@given(
    data=ranking_data(),
    weights=st.none() | arrays(np.float64, 20, elements=st.floats(0.1, 10.0)),
    ties=st.sampled_from(["average", "stable", "optimistic", "pessimistic"]),
    no_relevant=st.sampled_from([0.0, 1.0, np.nan]),
)
def test_aggregate_is_the_weighted_aggregate_of_per_query_values(data, weights, ties,
                                                                  no_relevant):
    extra = {"no_relevant": no_relevant}
    query_weights = np.ones(len(np.unique(data["qid"])))
    if weights is not None:
        extra["sample_weight"] = weights[: len(data["y_true"])]
        _, inverse = np.unique(data["qid"], return_inverse=True)
        query_weights = np.bincount(inverse, weights=extra["sample_weight"]) / np.bincount(
            inverse
        )
    for name, function_name, options, _ in REGISTRY:
        values = per_query(function_name, data, options, ties, **extra)
        assert values.shape == query_weights.shape, name
        kept = ~np.isnan(values)
        with warnings.catch_warnings():
            # A mean over no query at all is NaN, which the engine may announce.
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            mean = call(function_name, data, options, ties, **extra)
        if not kept.any():
            assert math.isnan(mean), name
            continue
        expected = aggregate(function_name, values[kept], query_weights[kept])
        assert_allclose(mean, expected, rtol=RTOL, atol=ATOL, err_msg=name)


def test_aggregations_of_the_registry_are_all_exercised():
    # the registry holds a metric of each aggregation, and REGISTRY calls each of them
    used = {SPEC[function_name].aggregation for _, function_name, _, _ in REGISTRY}
    assert used == {"mean", "sum", "geometric_mean"}
