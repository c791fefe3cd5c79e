"""Edge inputs get the right answer or a clear error, never a silently wrong number.

Each test names the slip it guards against (issue 9, "Edge inputs found wrong"): narrow or
wide integer dtypes, values that float64 cannot hold exactly, extreme weights and options,
huge cut-offs, group sizes passed as query ids, repeated options in metric names.
"""

import re

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank.metrics import (
    dcg_score,
    err_score,
    evaluate,
    half_life_utility_score,
    kendall_tau_score,
    map_score,
    ndcg_score,
    pairwise_accuracy_score,
    parse_metric,
    precision_score,
    rbp_score,
    spearman_score,
)
from sklearn_rank.metrics._registry import METRICS
from sklearn_rank.model_selection import QueryKFold
from sklearn_rank.utils._qid import check_qid, factorize, group_sizes

# The examples without query ids are one query each, on purpose: the metrics' opt-in.
ONE_QUERY = "single_query"

# Every metric of the registry, with and without a cut-off (test_all_names_every_metric).
ALL = ["ndcg", "ndcg@2", "dcg@3", "err", "err@2", "rbp", "rbp@2(graded=true)", "map",
       "map@2(ap_denominator=found)", "map@2(ap_denominator=min_k)", "mrr", "mrr@1", "p@2",
       "p@2(short_lists=length)", "r@2", "success@1", "hits@2", "rprec", "hlu", "hlu@2",
       "kendall_tau", "spearman", "pairwise_accuracy",
       # incomplete judgements, retrieved sets and counts
       "bpref", "gm_bpref", "infap", "judged", "judged@2", "unj@2", "rbp_resid",
       "rbp_resid@2(all_judged=zero)", "set_p", "set_recall", "set_f", "set_map",
       "set_relative_p", "relative_p@2", "num_ret", "num_rel", "num_rel_ret",
       "num_nonrel_judged_ret", "num_q", "utility", "fallout", "fallout@2", "f1", "f1@2",
       # interpolated precision, R-based and G-based measures, the DCG family's options
       "gm_map", "gm_map@2", "yaap", "iprec_at_recall(recall=0.3)", "11pt_avg",
       "rprec_mult(mult=0.5)", "g", "bing", "ndcg_rel", "rndcg", "ndcg@2(discount=rank)",
       "dcg(gains={1: 3, 2: 9})"]
TIES = ["average", "stable", "optimistic", "pessimistic"]


def test_all_names_every_metric():
    assert {parse_metric(name)[0].name for name in ALL} == set(METRICS)


def dense_ranks(values):
    """Integers 0, 1, ... in the order of ``values``, equal values equal: the same ranking,
    in numbers that float64 holds exactly."""
    return np.unique(values, return_inverse=True)[1].reshape(-1)


def assert_same(a, b):
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-13, atol=1e-13, err_msg=name)


# ------------------------------------------------------------------ query ids


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_factorize_ids_spanning_their_dtype(dtype):
    # ids at both ends of the dtype's range, in a compact range or not
    info = np.iinfo(dtype)
    for ids in ([info.min, info.min + 1, info.max - 1, info.max],
                [info.max - 3, info.max - 1, info.max],
                [info.min, info.min + 2]):
        # enough rows for int16's whole range to take the look-up table
        qid = np.array(ids * 5000, dtype=dtype)[::-1]
        codes, uniques = factorize(qid, len(qid))
        expected_uniques, expected_codes = np.unique(qid, return_inverse=True)
        np.testing.assert_array_equal(codes, expected_codes)
        np.testing.assert_array_equal(uniques, expected_uniques)
        assert uniques.dtype == qid.dtype


def test_factorize_bool_non_native_and_empty_ids():
    qid = np.array([True, False, True])
    np.testing.assert_array_equal(factorize(qid, 3)[0], [1, 0, 1])
    swapped = np.array([-5, 7, -5, 300], dtype=">i4")
    codes, uniques = factorize(swapped, 4)
    np.testing.assert_array_equal(codes, [0, 1, 0, 2])
    np.testing.assert_array_equal(uniques, [-5, 7, 300])
    codes, uniques = factorize(np.zeros(0, dtype=np.int8), 0)
    assert len(codes) == 0 and len(uniques) == 0


def test_int8_ids_spanning_their_range_are_two_queries():
    qid = np.array([-128, -128, 127, 127], dtype=np.int8)
    values = precision_score([1, 0, 0, 0], [2, 1, 2, 1], qid=qid, k=1, return_per_query=True)
    np.testing.assert_array_equal(values, [1.0, 0.0])
    order, sizes = group_sizes(np.array([-128, 127, -128, 127], dtype=np.int8))
    np.testing.assert_array_equal(sizes, [2, 2])
    np.testing.assert_array_equal(order, [0, 2, 1, 3])


@pytest.mark.parametrize("qid", [np.array([-128, -128, 127, 127], dtype=np.int8),
                                 np.array([2**63, 2**63, 2**63 + 1, 2**63 + 1], dtype=np.uint64)])
def test_query_kfold_keeps_extreme_ids_apart(qid):
    folds = list(QueryKFold(n_splits=2).split(np.zeros((4, 1)), qid=qid))
    assert [sorted(test) for _, test in folds] == [[0, 1], [2, 3]]


def test_uint64_ids_from_2_63():
    qid = np.array([2**63, 2**63, 2**63 + 1, 2**63 + 1], dtype=np.uint64)
    values = precision_score([1, 0, 0, 0], [2, 1, 2, 1], qid=qid, k=1, return_per_query=True)
    np.testing.assert_array_equal(values, [1.0, 0.0])
    assert factorize(qid, 4)[1].tolist() == [2**63, 2**63 + 1]


@pytest.mark.parametrize("func, call", [
    (ndcg_score, lambda qid: ndcg_score([1, 0, 1, 0], [1, 2, 1, 2], qid=qid)),
    (evaluate, lambda qid: evaluate([1, 0, 1, 0], [1, 2, 1, 2], qid=qid, metrics=["map"])),
    (rbp_score, lambda qid: rbp_score([1, 0, 1, 0], [1, 2, 1, 2], qid=qid)),
])
def test_group_sizes_as_qid_get_the_hint_everywhere(func, call):
    with pytest.raises(ValueError) as metric_error:
        call([2, 2])
    with pytest.raises(ValueError) as adapter_error:
        check_qid([2, 2], 4, caller=func.__name__)
    # one validator: the same message, hint included, wherever the ids come in
    assert str(metric_error.value) == str(adapter_error.value)
    assert "look like group sizes" in str(metric_error.value)
    assert f"qid for {func.__name__} must have one query id per row" in str(metric_error.value)


def test_group_sizes_hint_for_unsigned_sizes_that_wrap():
    sizes = np.array([2**63, 2**63, 4], dtype=np.uint64)  # sums to 4 modulo 2**64
    with pytest.raises(ValueError) as error:
        check_qid(sizes, 4)
    assert "group sizes" not in str(error.value)


# ------------------------------------------------------------------ scores ranked exactly


def big_integer_sample(rng, dtype, offset):
    qid = np.repeat(np.arange(30), 7)
    y = rng.integers(0, 4, len(qid))
    steps = rng.integers(0, 4, len(qid))  # ties, and neighbours one apart
    s = (np.array(offset, dtype=dtype) + steps.astype(dtype)).astype(dtype)
    return y, s, qid


@pytest.mark.parametrize("dtype, offset", [
    (np.int64, 2**60), (np.int64, -(2**63)), (np.int64, 2**63 - 4), (np.uint64, 2**64 - 4),
    (np.uint64, 2**63), (np.int64, 1_700_000_000_000_000_000),  # nanosecond timestamps
])
@pytest.mark.parametrize("ties", TIES)
def test_integer_scores_beyond_2_53_rank_exactly(dtype, offset, ties):
    y, s, qid = big_integer_sample(np.random.default_rng(0), dtype, offset)
    exact = evaluate(y, s, qid=qid, metrics=ALL, ties=ties, return_per_query=True)
    ranks = evaluate(y, dense_ranks(s), qid=qid, metrics=ALL, ties=ties, return_per_query=True)
    assert_same(exact, ranks)


def test_integer_scores_beyond_2_53_by_hand():
    s = np.array([2**53 + 1, 2**53], dtype=np.int64)
    assert precision_score([1, 0], s, qid=ONE_QUERY, k=1) == 1.0
    assert kendall_tau_score([1, 0], s, qid=ONE_QUERY) == 1.0
    assert spearman_score([1, 0], s, qid=ONE_QUERY) == 1.0
    assert pairwise_accuracy_score([1, 0], s, qid=ONE_QUERY) == 1.0
    assert ndcg_score([1, 0], s, qid=ONE_QUERY) == 1.0


def test_timestamps_as_scores():
    times = np.array(["2026-01-01T00:00:00.000000001", "2026-01-01T00:00:00.000000000",
                      "2026-01-01T00:00:00.000000002"], dtype="datetime64[ns]")
    assert kendall_tau_score([1, 0, 2], times, qid=ONE_QUERY) == 1.0
    assert kendall_tau_score([1, 0, 2], times.astype(np.int64), qid=ONE_QUERY) == 1.0
    with pytest.raises(ValueError, match="y_score must not contain NaT"):
        ndcg_score([1, 0], np.array(["NaT", "2026-01-01"], dtype="datetime64[ns]"), qid=ONE_QUERY)


def test_long_double_scores_rank_exactly():
    base = np.longdouble(1)
    tiny = np.finfo(np.longdouble).eps
    if tiny >= np.finfo(np.float64).eps:
        pytest.skip("long double is float64 on this platform")
    s = np.array([base + tiny, base, base + 2 * tiny], dtype=np.longdouble)
    assert precision_score([1, 0, 2], s, qid=ONE_QUERY, k=1, relevance_threshold=2) == 1.0
    assert kendall_tau_score([1, 0, 2], s, qid=ONE_QUERY) == 1.0
    assert spearman_score([1, 0, 2], s, qid=ONE_QUERY) == 1.0
    # long doubles that float64 holds exactly take the float64 path, with the same result
    assert ndcg_score([1, 0, 2], np.array([2, 1, 3], dtype=np.longdouble), qid=ONE_QUERY) == 1.0


def test_long_double_labels_that_float64_rounds_are_refused():
    tiny = np.finfo(np.longdouble).eps
    if tiny >= np.finfo(np.float64).eps:
        pytest.skip("long double is float64 on this platform")
    y = np.array([1 + tiny, 1], dtype=np.longdouble)
    with pytest.raises(ValueError, match=r"y_true holds values that float64 cannot represent "
                                         r"exactly.*row 0.*astype\(np.float64\)"):
        kendall_tau_score(y, [2, 1], qid=ONE_QUERY)


def test_python_integers_in_object_arrays_are_exact():
    s = np.array([2**53 + 1, 2**53], dtype=object)
    assert precision_score([1, 0], s, qid=ONE_QUERY, k=1) == 1.0
    huge = np.array([2**70 + 1, 2**70], dtype=object)  # beyond every integer dtype
    with pytest.raises(ValueError, match="y_score holds values that float64 cannot represent"):
        precision_score([1, 0], huge, qid=ONE_QUERY, k=1)


@pytest.mark.parametrize("which", ["y_true", "y_score"])
def test_numeric_text_in_object_arrays_reads_as_in_str_arrays(which):
    # an object array of numeric strings (pandas' strings) was refused as values "float64
    # cannot represent exactly", while the str array of the same text was read
    y, s, qid = np.array([1, 0, 2]), np.array([0.5, 0.2, 0.9]), np.array([7, 7, 7])
    arrays = {"y_true": y, "y_score": s}
    expected = ndcg_score(y, s, qid=qid)
    text = arrays[which].astype(str)
    for given in (text, text.astype(object)):
        assert ndcg_score(**{**arrays, which: given}, qid=qid) == expected
    # numbers and text mixed in one array are named as such
    mixed = arrays[which].astype(object)
    mixed[1] = str(mixed[1])
    with pytest.raises(TypeError, match=f"{which} mixes numbers and text, e.g. '0(.2)?' at "
                                        "row 1"):
        ndcg_score(**{**arrays, which: mixed}, qid=qid)


def test_long_queries_count_pairs_exactly():
    # queries longer than the pair matrices take the O(m log m) path
    rng = np.random.default_rng(1)
    m = 5000
    y = rng.integers(0, 50, m).astype(np.int64) + 2**60
    s = rng.integers(0, 40, m).astype(np.int64) + 2**60
    for func in (kendall_tau_score, pairwise_accuracy_score, spearman_score):
        assert func(y, s, qid=ONE_QUERY) == pytest.approx(
            func(dense_ranks(y), dense_ranks(s), qid=ONE_QUERY), abs=1e-12)


# ------------------------------------------------------------------ labels


def test_unsigned_grades_pairs():
    # a difference of unsigned grades wraps: compare them instead
    y = np.array([100, 0, 50, 7], dtype=np.uint16)
    s = [4, 1, 3, 2]
    assert kendall_tau_score(y, s, qid=ONE_QUERY) == 1.0
    assert pairwise_accuracy_score(y, s, qid=ONE_QUERY) == 1.0


def test_integer_labels_beyond_2_53_as_grades_of_correlations():
    y = np.array([2**60 + 2, 2**60 + 1, 2**60], dtype=np.int64)
    s = [3.0, 2.0, 1.0]
    for func in (kendall_tau_score, spearman_score, pairwise_accuracy_score):
        assert func(y, s, qid=ONE_QUERY) == 1.0


def test_relevance_threshold_beyond_2_53_is_exact():
    y = np.array([2**60 - 1, 2**60, 0, 2**60], dtype=np.int64)
    s = [4, 3, 2, 1]
    binary = (y >= 2**60).astype(np.int64)
    names = ["map", "mrr", "p@1", "r@1", "success@1", "rprec", "rbp"]
    exact = evaluate(y, s, qid=ONE_QUERY, metrics=names, relevance_threshold=2**60)
    assert_same(exact, evaluate(binary, s, qid=ONE_QUERY, metrics=names))
    assert exact["p@1"] == 0.0
    # float labels against an integer threshold that float64 rounds down
    y = np.array([2.0**53, 2.0**53 + 2])
    assert precision_score(y, [2, 1], qid=ONE_QUERY, k=1, relevance_threshold=2**53 + 1) == 0.0


@pytest.mark.parametrize("ties, expected", [("optimistic", 1.0), ("pessimistic", 0.0)])
def test_unsigned_labels_from_2_63_with_tie_rules(ties, expected):
    for y in ([2**63 + 1, 2**63], [2**63, 2**63 + 1]):
        y = np.array(y, dtype=np.uint64)
        value = precision_score(y, [1, 1], qid=ONE_QUERY, k=1, ties=ties,
                                relevance_threshold=2**63 + 1)
        assert value == expected


# ------------------------------------------------------------------ weights and means


def test_huge_finite_weights():
    y, s, qid = [1, 0, 0, 1], [2, 1, 2, 1], [1, 1, 2, 2]
    for func in (ndcg_score, map_score, kendall_tau_score):
        expected = func(y, s, qid=qid, sample_weight=[1, 1, 3, 3])
        assert func(y, s, qid=qid, sample_weight=[1e308, 1e308, 3e307, 3e307]) == (
            pytest.approx(func(y, s, qid=qid, sample_weight=[10, 10, 3, 3])))
        assert func(y, s, qid=qid, sample_weight=[1e308] * 4) == pytest.approx(
            func(y, s, qid=qid))
        assert np.isfinite(expected)


def test_subnormal_weights():
    y, s, qid = [1, 0, 0, 1], [2, 1, 2, 1], [1, 1, 2, 2]
    for func in (ndcg_score, map_score):
        assert func(y, s, qid=qid, sample_weight=[1e-320, 1e-320, 3e-320, 3e-320]) == (
            pytest.approx(func(y, s, qid=qid, sample_weight=[1, 1, 3, 3]), rel=1e-14))


def test_max_grade_compared_exactly_with_integer_grades():
    y = np.array([2**63 + 1, 0], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"max_grade=9.223372036854776e\+18 is below the "
                                         r"largest grade in y_true \(9223372036854775809\)"):
        err_score(y, [2, 1], qid=ONE_QUERY, max_grade=2.0**63)


def test_mean_of_huge_per_query_values():
    y = np.array([1e308, 1e308])
    assert dcg_score(y, [1, 1], qid=[1, 2], gain="linear") == 1e308
    assert dcg_score(y, [1, 1], qid=[1, 2], gain="linear", sample_weight=[1, 3]) == 1e308


def test_overflowing_gains_raise_instead_of_nan():
    with pytest.raises(ValueError, match=r"ndcg_score is not a finite number for 1 of 1 "
                                         r"queries.*overflowed float64.*Rescale y_true"):
        ndcg_score([1023, 1023, 1023], [3, 2, 1], qid=ONE_QUERY)
    with pytest.raises(ValueError, match="dcg_score is not a finite number"):
        dcg_score([1e308, 1e308, 1e308], [3, 2, 1], qid=ONE_QUERY, gain="linear")


# ------------------------------------------------------------------ RBP residual


def test_rbp_residual_skips_the_queries_the_score_skips():
    y, s, qid = [0, 0, 1, 0, 0], [1, 2, 1, 2, 3], [1, 1, 2, 2, 2]
    score, residual = rbp_score(y, s, qid=qid, no_relevant=np.nan, return_residual=True)
    per_query, per_query_residual = rbp_score(y, s, qid=qid, no_relevant=np.nan,
                                              return_residual=True, return_per_query=True)
    assert np.isnan(per_query[0]) and np.isnan(per_query_residual[0])
    assert score == per_query[1]
    assert residual == pytest.approx(0.8**3)
    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        score, residual = rbp_score([0, 0], [1, 2], qid=ONE_QUERY,
                                    no_relevant=np.nan, return_residual=True)
    assert np.isnan(score) and np.isnan(residual)


def test_rbp_residual_with_huge_k():
    _, residual = rbp_score([1, 0, 1], [3, 2, 1], qid=ONE_QUERY, k=10**20, return_residual=True)
    assert residual == pytest.approx(0.8**3)


# ------------------------------------------------------------------ huge cut-offs


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("scores", [[3.0, 2.0, 1.0, 2.0, 1.0], [1.0, 1.0, 1.0, 2.0, 2.0]])
def test_huge_cut_off_is_the_cut_off_beyond_every_list(ties, scores):
    y, qid = [2, 0, 1, 1, 0], [1, 1, 1, 2, 2]
    names = ["ndcg", "dcg", "err", "rbp", "map", "map(ap_denominator=min_k)",
             "map(ap_denominator=found)", "mrr", "r", "success", "hlu", "p(short_lists=length)"]
    for k in (10**20, 10**400):
        huge = evaluate(y, scores, qid=qid, metrics=[f"{n}@{k}" if "(" not in n else
                                                     n.replace("(", f"@{k}(") for n in names],
                        ties=ties, return_per_query=True)
        whole = evaluate(y, scores, qid=qid, metrics=names, ties=ties, return_per_query=True)
        for (name, value), expected in zip(huge.items(), whole.values(), strict=True):
            np.testing.assert_allclose(value, expected, rtol=1e-13, err_msg=name)
    # P@k with short_lists="k" divides by k
    assert precision_score(y, scores, qid=qid, k=10**20, ties=ties) == pytest.approx(1e-20)
    assert precision_score(y, scores, qid=qid, k=10**400, ties=ties) == 0.0
    assert ndcg_score(y, scores, qid=qid, k=10**20, ties=ties) == ndcg_score(
        y, scores, qid=qid, ties=ties)


def test_huge_cut_off_in_names_and_scorers():
    from sklearn.dummy import DummyRegressor

    from sklearn_rank.metrics import make_ranking_scorer

    y, s = [1, 0, 2], [2.0, 1.0, 3.0]
    name = "ndcg@99999999999999999999"
    assert evaluate(y, s, qid=ONE_QUERY, metrics=[name])[name] == 1.0
    X = np.array(s)[:, None]
    model = DummyRegressor().fit(X, y)
    scorer = make_ranking_scorer(name)
    assert scorer(model, X, y, qid=[1, 1, 1]) == pytest.approx(
        make_ranking_scorer("ndcg")(model, X, y, qid=[1, 1, 1]))


# ------------------------------------------------------------------ repeated options


@pytest.mark.parametrize("name", ["ndcg@10(k=5)", "rbp(p=0.5,p=0.8)",
                                  "rbp(p=0.5,persistence=0.8)", "rbp(persistence=0.5, p=0.5)",
                                  "p@5(rel=2,l=3)", "map(no_relevant=1,no_relevant=0)"])
def test_options_given_twice_in_a_name_are_refused(name):
    with pytest.raises(ValueError, match=r"sets \w+ twice"):
        parse_metric(name)
    with pytest.raises(ValueError, match=r"sets \w+ twice"):
        evaluate([1, 0], [2, 1], qid=ONE_QUERY, metrics=[name])


def test_integer_options_in_names_are_exact():
    _, options = parse_metric("p@1(rel=9007199254740993)")
    assert options["relevance_threshold"] == 2**53 + 1


def test_evaluate_refuses_an_option_that_every_metric_overrides():
    with pytest.raises(TypeError, match=re.escape(
            "evaluate() got option(s) ['k'], but every metric of ['ndcg@10'] that takes them "
            "fixes them in its name")):
        evaluate([1, 0], [2, 1], qid=ONE_QUERY, metrics=["ndcg@10"], k=5)
    with pytest.raises(TypeError, match=r"option\(s\) \['persistence'\]"):
        evaluate([1, 0], [2, 1], qid=ONE_QUERY, metrics=["rbp(p=0.5)", "ndcg"], persistence=0.8)
    # an option that some metric takes applies there; names still win where they fix it
    result = evaluate([1, 0, 1], [3, 2, 1], qid=ONE_QUERY, metrics=["p@1", "p"], k=2)
    assert result == {"p@1": 1.0, "p": 0.5}


# ------------------------------------------------------------------ clear errors


@pytest.mark.parametrize("func, y, message", [
    (kendall_tau_score, [1, 1, 0, 1], "whose documents all have the same grade"),
    (spearman_score, [1, 1, 0, 1], "whose documents all have the same grade"),
    (pairwise_accuracy_score, [1, 1, 0, 1], "without a pair of documents of different grades"),
])
def test_correlations_say_why_they_are_undefined(func, y, message):
    with pytest.raises(ValueError, match=r"undefined for 1 of 2 queries " + message +
                       r" \(e\.g\. qid 7\)"):
        func(y, [1, 2, 3, 4], qid=[7, 7, 8, 8], no_relevant="raise")


def test_all_queries_skipped_warning_says_why():
    with pytest.warns(UndefinedMetricWarning, match="the queries whose documents all have "
                                                    "the same grade, and all 1 are such"):
        kendall_tau_score([1, 1], [1, 2], qid=ONE_QUERY, no_relevant=np.nan)


def test_err_with_a_max_grade_beyond_2_to_the_1024():
    # 2**max_grade overflows; R = (2**y - 1) / 2**max_grade does not, nor does the answer
    value = err_score([1, 2, 0], [3, 2, 1], qid=ONE_QUERY, max_grade=2000)
    assert 0.0 <= value < 1e-300
    assert err_score([1100, 0], [2, 1], qid=ONE_QUERY) == 1.0
    assert err_score([1100, 0], [1, 2], qid=ONE_QUERY, max_grade="query") == pytest.approx(0.5)
    assert err_score([1100, 0], [2, 1], qid=ONE_QUERY, max_grade=1101) == pytest.approx(0.5)


def test_err_with_a_tiny_persistence_and_ties():
    # only the first document counts: the expected R of the first of three tied documents
    value = err_score([1, 1, 0], [1, 1, 1], qid=ONE_QUERY, persistence=1e-320, max_grade=2)
    assert value == pytest.approx((0.25 + 0.25 + 0.0) / 3, rel=1e-12)


@pytest.mark.parametrize("default_rating", [-1e308, -np.finfo(np.float64).max])
def test_half_life_utility_with_an_extreme_default_rating(default_rating):
    # every utility is about -default_rating: the ideal order has the same utility
    value = half_life_utility_score([1, 0, 2], [1, 2, 3], qid=ONE_QUERY,
                                    default_rating=default_rating)
    assert value == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"undefined for 1 of 1 queries without a document "
                                         r"graded above default_rating"):
        half_life_utility_score([1, 0], [1, 2], qid=ONE_QUERY,
                                default_rating=1e308, no_relevant="raise")


def test_half_life_utility_of_subnormal_grades():
    # HLU does not depend on the scale of the grades (with default_rating=0)
    grades = np.array([3, 1, 2, 0, 1, 3, 2, 2])
    s, qid = [1, 1, 2, 2, 1, 3, 3, 3], [1, 1, 1, 1, 2, 2, 2, 2]
    for half_life in (2.0, 1e308):
        expected = half_life_utility_score(grades, s, qid=qid, half_life=half_life,
                                           return_per_query=True)
        tiny = half_life_utility_score(grades * 1e-320, s, qid=qid, half_life=half_life,
                                       return_per_query=True)
        np.testing.assert_allclose(tiny, expected, rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.uint64])
@pytest.mark.parametrize("prefix_bits", [None, 0, 3, 12])
def test_segment_argsort_of_integers_against_python(dtype, prefix_bits):
    from sklearn_rank.utils._segments import segment_argsort

    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    n = 400
    pool = np.array([info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2, 2**7 - 1],
                    dtype=dtype)
    values = np.where(rng.random(n) < 0.5, rng.choice(pool, n),
                      rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True))
    codes = rng.integers(0, 7, n)
    order, ties = segment_argsort(values, codes, 7, prefix_bits=prefix_bits)
    expected = sorted(range(n), key=lambda i: (codes[i], -int(values[i]), i))
    np.testing.assert_array_equal(order, expected)
    tied = [p for p in range(1, n) if codes[expected[p]] == codes[expected[p - 1]]
            and values[expected[p]] == values[expected[p - 1]]]
    np.testing.assert_array_equal(ties, tied)


def test_a_log_base_written_as_a_long_integer_is_a_number():
    # a Python int beyond int64 reached numpy's log as an object: numpy's TypeError
    y_true, y_score, qid = [2, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
    as_int = evaluate(y_true, y_score, qid=qid, metrics=["dcg(log_base=100000000000000000000)"])
    as_float = dcg_score(y_true, y_score, qid=qid, log_base=1e20)
    assert list(as_int.values()) == [as_float]
    assert dcg_score(y_true, y_score, qid=qid, log_base=10**20) == as_float


@pytest.mark.parametrize("qid", [
    ["1", "1", "10", "2", "2", "7"],          # grouped and ascending: the runs are the queries
    ["b", "b", "a", "a", "c"],                # grouped, not ascending
    ["a", "b", "a", "c"],                     # a query in two runs
    ["007", "007", "7", "7"],                 # two queries, as written
    ["q"] * 5,
])
@pytest.mark.parametrize("kind", ["U", "S"])
def test_factorize_grouped_string_ids_as_np_unique(qid, kind):
    qid = np.array(qid, dtype=kind)
    codes, uniques = factorize(qid, len(qid))
    expected, inverse = np.unique(qid, return_inverse=True)
    np.testing.assert_array_equal(uniques, expected)
    np.testing.assert_array_equal(codes, inverse)
