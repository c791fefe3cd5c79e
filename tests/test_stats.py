"""sklearn_rank.stats: paired tests, bootstrap intervals, corrections and results tables.

Every statistic is checked against scipy.stats called directly on the same data (the
implementation must be a thin layer over it), the corrections against hand-worked values,
and the t-test and randomization test against ranx where the definitions match.
"""

import inspect
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.stats import (
    ComparisonResult,
    MeanEstimate,
    PairedTestResult,
    adjust_pvalues,
    bootstrap_ci,
    compare,
    paired_test,
)

# scipy >= 1.15 calls the seed of its resampling functions ``rng``; before, ``random_state``.
RNG = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
ALTERNATIVES = ["two-sided", "greater", "less"]


def seeded(seed):
    return {RNG: np.random.default_rng(seed)}


def mean_difference(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


# --------------------------------------------------------------------------------------
# Helpers that build inputs
# --------------------------------------------------------------------------------------


def per_query(seed, n=40, shifts=(0.0, 0.04, 0.01), noise=0.08):
    """Per-query values in [0, 1] of correlated systems, one array per shift."""
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 3, size=n)
    return [np.clip(base + s + rng.normal(0, noise, n), 0, 1) for s in shifts]


def cv_result(columns, qid, fold):
    """A dict shaped like cross_validate(..., return_per_query=True)'s output."""
    fold = np.asarray(fold)
    folds = np.unique(fold)
    result = {"fit_time": np.zeros(len(folds)), "score_time": np.zeros(len(folds))}
    for name, values in columns.items():
        result[f"test_{name}"] = np.array([np.mean(values[fold == f]) for f in folds])
    result["per_query"] = {"qid": np.asarray(qid), "fold": fold,
                           **{name: np.asarray(v, dtype=float) for name, v in columns.items()}}
    return result


def cv_systems(seed, n_queries=30, n_folds=3, shifts=(0.0, 0.1, 0.01), shuffle=True):
    """cross_validate-like results of several systems on the same folds.

    The queries of a fold are contiguous, as cross_validate concatenates folds; with
    ``shuffle`` the rows of every system but the first are permuted, as a user combining
    results of different runs might have them.
    """
    rng = np.random.default_rng(seed)
    qid = rng.permutation(np.arange(100, 100 + n_queries))
    fold = np.sort(np.arange(n_queries) % n_folds)
    ndcg = per_query(seed, n_queries, shifts)
    ap = per_query(seed + 1, n_queries, shifts)
    out = {}
    for s, name in enumerate(["bm25", "lambdamart", "ridge"][:len(shifts)]):
        order = rng.permutation(n_queries) if shuffle and s else np.arange(n_queries)
        out[name] = cv_result({"ndcg@10": ndcg[s][order], "map": ap[s][order]},
                              qid[order], fold[order])
    return out


# --------------------------------------------------------------------------------------
# Paired tests equal scipy's
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_t_test_is_scipys(seed, alternative):
    a, b, _ = per_query(seed)
    got = paired_test(a, b, test="t", alternative=alternative, ci_method="t")
    expected = stats.ttest_rel(a, b, alternative=alternative)
    assert got.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert got.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    # The interval is two-sided whatever the alternative.
    ci = stats.ttest_rel(a, b).confidence_interval(0.95)
    assert_allclose(got.confidence_interval, (ci.low, ci.high), rtol=1e-12)
    assert got.mean_difference == pytest.approx(np.mean(a - b), rel=1e-12)
    assert (got.mean_a, got.mean_b) == pytest.approx((np.mean(a), np.mean(b)), rel=1e-12)
    assert got.n == len(a)
    assert_allclose(got.differences, a - b)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n", [20, 80])  # exact and normal-approximation p-values
def test_wilcoxon_is_scipys(seed, alternative, n):
    a, b, _ = per_query(seed, n=n)
    a[:3] = b[:3]  # zero differences, which scipy's default zero_method drops
    got = paired_test(a, b, test="wilcoxon", alternative=alternative, ci_method="t")
    expected = stats.wilcoxon(a, b, alternative=alternative)
    assert got.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert got.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n, n_resamples", [(9, 999), (40, 999)])  # exact, then random
def test_permutation_test_is_scipys(seed, alternative, n, n_resamples):
    a, b, _ = per_query(seed, n=n)
    got = paired_test(a, b, test="permutation", alternative=alternative, ci_method="t",
                      n_resamples=n_resamples, random_state=seed)
    # Sign flips of the differences: scipy's "samples" permutations of one sample.
    expected = stats.permutation_test(
        (a - b,), np.mean, permutation_type="samples", vectorized=True,
        n_resamples=n_resamples, alternative=alternative, **seeded(seed))
    assert got.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert got.pvalue == expected.pvalue
    assert got.statistic == pytest.approx(np.mean(a - b), rel=1e-12)
    if 2**n <= n_resamples:
        # The same null distribution as swapping the two systems' values within queries,
        # scipy's "samples" permutations of two paired samples: exact p-values are equal.
        swapped = stats.permutation_test(
            (a, b), mean_difference, permutation_type="samples", vectorized=True,
            n_resamples=n_resamples, alternative=alternative)
        assert got.pvalue == pytest.approx(swapped.pvalue, rel=1e-12)


def test_exact_permutation_test_enumerates_sign_flips():
    """With 2**n <= n_resamples, the p-value is the share of all 2**n sign flips."""
    a, b, _ = per_query(3, n=8)
    d = a - b
    signs = 1 - 2 * ((np.arange(256)[:, None] >> np.arange(8)) & 1)
    null = (signs * d).mean(axis=1)
    observed = d.mean()
    tolerance = 1e-12
    expected = np.mean(np.abs(null) >= abs(observed) - tolerance)
    assert paired_test(a, b, test="permutation").pvalue == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
@pytest.mark.parametrize("confidence_level", [0.9, 0.95])
def test_bootstrap_ci_is_scipys(method, confidence_level):
    values = per_query(4, n=30)[0]
    got = bootstrap_ci(values, method=method, confidence_level=confidence_level,
                       n_resamples=999, random_state=7)
    expected = stats.bootstrap((values,), np.mean, method=method, n_resamples=999,
                               confidence_level=confidence_level, **seeded(7))
    assert isinstance(got, MeanEstimate)
    assert_allclose(got.confidence_interval, tuple(expected.confidence_interval),
                    rtol=1e-12)
    assert got.standard_error == pytest.approx(expected.standard_error, rel=1e-12)
    assert got.mean == pytest.approx(values.mean(), rel=1e-12)
    assert (got.n, got.method, got.confidence_level) == (30, method, confidence_level)


@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_bootstrap_ci_of_a_difference_is_a_paired_bootstrap(method):
    a, b, _ = per_query(5, n=30)
    got = bootstrap_ci(a, b, method=method, n_resamples=999, random_state=3)
    on_differences = stats.bootstrap((a - b,), np.mean, method=method, n_resamples=999,
                                     **seeded(3))
    paired = stats.bootstrap((a, b), mean_difference, paired=True, method=method,
                             n_resamples=999, **seeded(3))
    assert_allclose(got.confidence_interval, tuple(on_differences.confidence_interval),
                    rtol=1e-12)
    assert_allclose(got.confidence_interval, tuple(paired.confidence_interval), rtol=1e-12)
    # paired_test reports the same interval of the mean difference.
    result = paired_test(a, b, ci_method=method, n_resamples=999, random_state=3)
    assert_allclose(result.confidence_interval, got.confidence_interval, rtol=1e-12)


def test_effect_size_is_cohens_dz():
    a, b, _ = per_query(6)
    d = a - b
    got = paired_test(a, b, ci_method="t").effect_size
    assert got == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    # d_z is the t statistic over sqrt(n).
    assert got == pytest.approx(stats.ttest_rel(a, b).statistic / np.sqrt(len(d)), rel=1e-12)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "permutation"])
def test_identical_systems_are_not_tested(test):
    """scipy's statistics are 0/0 there (with warnings, errors here): p = 1, no warning."""
    a = per_query(7, n=12)[0]
    result = paired_test(a, a.copy(), test=test)
    assert result.pvalue == 1.0
    assert np.isnan(result.statistic)
    assert np.isnan(result.effect_size)
    assert tuple(result.confidence_interval) == (0.0, 0.0)


@pytest.mark.parametrize("alternative, pvalue", [("two-sided", 0.0), ("greater", 0.0),
                                                  ("less", 1.0)])
def test_constant_difference_gives_an_infinite_t(alternative, pvalue):
    """The limit of t as the spread of the differences vanishes; scipy would warn."""
    result = paired_test(np.full(6, 0.6), np.full(6, 0.5), alternative=alternative)
    assert (result.statistic, result.pvalue, result.effect_size) == (np.inf, pvalue, np.inf)
    assert result.confidence_interval.low == result.confidence_interval.high


def test_constant_values_have_a_point_interval():
    result = bootstrap_ci(np.full(10, 0.5))
    assert tuple(result.confidence_interval) == (0.5, 0.5)
    assert result.standard_error == 0.0


def test_results_are_reproducible_and_seeds_accepted():
    a, b, _ = per_query(8, n=40)
    kwargs = dict(test="permutation", n_resamples=199)
    first = paired_test(a, b, random_state=0, **kwargs)
    assert paired_test(a, b, random_state=0, **kwargs) == first
    for seed in (np.random.RandomState(0), np.random.default_rng(0), None):
        result = paired_test(a, b, random_state=seed, **kwargs)
        assert 0 < result.pvalue <= 1


def test_result_repr_is_short():
    a, b, _ = per_query(9, n=10)
    text = repr(paired_test(a, b, ci_method="t"))
    assert text.startswith("PairedTestResult(test='t', statistic=")
    assert "differences" not in text and "array" not in text


# --------------------------------------------------------------------------------------
# Input formats and alignment
# --------------------------------------------------------------------------------------


def test_alignment_by_qid_ignores_order():
    a, b, _ = per_query(10, n=25)
    qid = np.arange(500, 525)
    rng = np.random.default_rng(0)
    pa, pb = rng.permutation(25), rng.permutation(25)
    got = paired_test((qid[pa], a[pa]), (qid[pb], b[pb]), test="permutation",
                      n_resamples=499, random_state=1)
    expected = paired_test(a, b, test="permutation", n_resamples=499, random_state=1)
    assert got.pvalue == expected.pvalue
    assert_array_equal(got.ids, qid)
    assert_allclose(got.differences, a - b)
    assert expected.ids is None


def test_string_qids_and_containers():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    a, b, _ = per_query(11, n=12)
    qid = np.array([f"q{i:02d}" for i in range(12)])
    expected = paired_test(a, b, ci_method="t")
    order = np.arange(12)[::-1]
    inputs = [
        ((list(qid), list(a)), (tuple(qid[order]), b[order])),
        ({"qid": qid, "ndcg": a}, pd.DataFrame({"qid": qid[order], "ndcg": b[order]})),
        (pl.DataFrame({"qid": qid, "ndcg": a}), (pd.Series(qid[order]), pd.Series(b[order]))),
    ]
    for x, y in inputs:
        got = paired_test(x, y, ci_method="t", metric="ndcg")
        assert got.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
        assert_array_equal(got.ids, qid)


def test_cross_validate_format():
    systems = cv_systems(0)
    result = compare(systems, ci_method="t", test="t", random_state=0)
    assert result.metrics == ["ndcg@10", "map"]
    assert result.n == {"ndcg@10": 30, "map": 30}
    # The same numbers as from per-query arrays sorted by qid.
    for metric in result.metrics:
        sorted_values = {}
        for name, cv in systems.items():
            pq = cv["per_query"]
            sorted_values[name] = pq[metric][np.argsort(pq["qid"])]
        plain = compare(sorted_values, metric=metric, ci_method="t")
        assert_allclose(plain.pvalues[metric], result.pvalues[metric], rtol=1e-12)
        for name in systems:
            # Per-fold means are kept, and equal the fold scores of cross_validate.
            fold_means = result.fold_means[metric][name]
            assert list(fold_means) == [0, 1, 2]
            assert_allclose(list(fold_means.values()), systems[name][f"test_{metric}"])
            assert plain.fold_means[metric][name] is None
    assert result.n_folds == 3
    assert "Mean over 30 queries, pooled over 3 cross-validation folds" in str(result)


def test_fold_unit_tests_fold_means():
    systems = cv_systems(1, n_folds=5)
    result = compare(systems, metric="ndcg@10", unit="fold", ci_method="t", correction=None)
    assert result.n == {"ndcg@10": 5}
    fold = {n: np.array(s["test_ndcg@10"]) for n, s in systems.items()}
    expected = stats.ttest_rel(fold["lambdamart"], fold["bm25"]).pvalue
    assert result.pvalues["ndcg@10"][0, 1] == pytest.approx(expected, rel=1e-12)
    assert "Mean of 5 per-fold means" in str(result)
    got = paired_test(systems["lambdamart"], systems["bm25"], metric="ndcg@10", unit="fold",
                      ci_method="t")
    assert got.pvalue == pytest.approx(expected, rel=1e-12)
    assert_array_equal(got.ids, np.arange(5))


def test_repeated_cross_validation_averages_each_query():
    """A query tested in several folds (repeats) counts once, with its mean value."""
    a, b, _ = per_query(12, n=10)
    a2, b2, _ = per_query(13, n=10)
    qid = np.r_[np.arange(10), np.arange(10)]
    fold = np.r_[np.arange(10) % 2, 2 + np.arange(10) % 2]
    got = paired_test(cv_result({"m": np.r_[a, a2]}, qid, fold),
                      cv_result({"m": np.r_[b, b2]}, qid, fold), ci_method="t")
    expected = paired_test((a + a2) / 2, (b + b2) / 2, ci_method="t")
    assert got.n == 10
    assert got.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


def test_real_cross_validate_output():
    """Through the real cross_validate, when it has return_per_query."""
    from sklearn.linear_model import Ridge
    from sklearn.tree import DecisionTreeRegressor

    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.model_selection import cross_validate

    X, y, qid = make_ranking(n_queries=24, n_features=6, max_docs=15, random_state=0)
    kwargs = dict(qid=qid, scoring=["ndcg@10", "map"], cv=3, return_per_query=True)
    systems = {"ridge": cross_validate(Ridge(), X, y, **kwargs),
               "tree": cross_validate(DecisionTreeRegressor(max_depth=2, random_state=0),
                                      X, y, **kwargs)}
    result = compare(systems, n_resamples=199, random_state=0)
    assert result.metrics == ["ndcg@10", "map"]
    assert result.n["map"] == 24 and result.n_folds == 3
    for name, cv in systems.items():
        assert_allclose(list(result.fold_means["ndcg@10"][name].values()),
                        cv["test_ndcg@10"], rtol=1e-12)


# The library's own per-query outputs pair by query id (issue 18, item 4).


def _two_runs(relabel):
    """Per-query results of two scorings of the same rows; ``relabel`` renames b's queries."""
    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.metrics import evaluate_per_query

    X, y, qid = make_ranking(n_queries=30, n_features=6, max_docs=15, random_state=0)
    noise = np.random.default_rng(0).normal(size=len(y))
    a = evaluate_per_query(y, X[:, 0] + noise, qid=qid, metrics=["ndcg@10", "map"])
    b = evaluate_per_query(y, X[:, 0] + X[:, 1], qid=relabel(qid), metrics=["ndcg@10", "map"])
    return a, b


def test_per_query_results_of_other_queries_are_refused_not_paired_by_position():
    """The issue's repro: queries 0..29 against 1..30, as PerQueryResult and as frames."""
    a, b = _two_runs(lambda qid: qid + 1)
    message = (r"Systems 'a' and 'b' were not evaluated on the same queries \(for "
               r"'ndcg@10'\): 1 only in 'a' \(0\) and 1 only in 'b' \(30\)")
    with pytest.raises(ValueError, match=message):  # was a TypeError from numpy
        compare({"a": a, "b": b}, metric="ndcg@10")
    pytest.importorskip("pandas")
    with pytest.raises(ValueError, match=message):  # was query 0 paired with query 1
        compare({"a": a.to_frame(), "b": b.to_frame()}, metric="ndcg@10")
    # on the common queries 1..29, query k of a is paired with query k of b
    common = {"a": a.to_frame().loc[1:29], "b": b.to_frame().loc[1:29]}
    got = paired_test(common["a"], common["b"], metric="ndcg@10", random_state=0)
    expected = paired_test((a.query_ids[1:], a["ndcg@10"][1:]),
                           (b.query_ids[:-1], b["ndcg@10"][:-1]), random_state=0)
    assert_array_equal(got.ids, np.arange(1, 30))
    assert_array_equal(got.differences, a["ndcg@10"][1:] - b["ndcg@10"][:-1])
    assert got.pvalue == expected.pvalue


@pytest.mark.parametrize("form", ["result", "frame", "series"])
def test_per_query_results_pair_by_query_id(form):
    """A frame's rows in another order: by position and by id give other pairs; ids win."""
    pd = pytest.importorskip("pandas")
    a, b = _two_runs(lambda qid: qid)
    expected = compare({"a": (a.query_ids, a["map"]), "b": (b.query_ids, b["map"])},
                       metric="map", random_state=0)
    shuffled = b.to_frame().iloc[np.random.default_rng(1).permutation(30)]
    by_position = compare({"a": a["map"], "b": shuffled["map"].to_numpy()}, metric="map",
                          random_state=0)
    assert by_position.pvalues["map"][0, 1] != expected.pvalues["map"][0, 1]
    inputs = {"result": (a, b), "frame": (a.to_frame(), shuffled),
              "series": (a.to_frame()["map"], shuffled["map"])}[form]
    got = compare(dict(zip("ab", inputs)), metric="map", random_state=0)
    assert got.pvalues["map"][0, 1] == expected.pvalues["map"][0, 1]
    assert got.comparisons[0].result.confidence_interval == \
        expected.comparisons[0].result.confidence_interval
    assert_array_equal(got.comparisons[0].result.ids, np.arange(30))
    # every metric of a PerQueryResult or a frame, by default
    if form != "series":
        assert compare(dict(zip("ab", inputs)), random_state=0).metrics == ["ndcg@10", "map"]
    # a frame's "qid" column, when it has one, is the ids (its index is then ignored)
    moved = {"a": a.to_frame().reset_index(), "b": shuffled.reset_index()}
    assert isinstance(moved["a"].index, pd.RangeIndex)
    same = compare(moved, metric="map", random_state=0)
    assert same.pvalues["map"][0, 1] == expected.pvalues["map"][0, 1]


def test_values_without_ids_beside_values_with_ids_are_refused():
    pd = pytest.importorskip("pandas")
    a, b = _two_runs(lambda qid: qid)
    unindexed = pd.DataFrame({"map": b["map"]})  # pandas' default index: row numbers
    for with_ids, without, form in [
            (a, unindexed, "'a' is a PerQueryResult, 'b' a pandas DataFrame with pandas' "
                           "default index and no 'qid' column"),
            (a.to_frame(), b["map"], "'a' is a pandas DataFrame indexed by query id, 'b' an "
                                     "array"),
            (a, b.to_frame().reset_index(drop=True),
             "'a' is a PerQueryResult, 'b' a pandas DataFrame with pandas' default index"),
            (a, pd.Series(b["map"]),
             "'a' is a PerQueryResult, 'b' a pandas Series with pandas' default index")]:
        with pytest.raises(ValueError, match=re.escape(
                f"system 'a' comes with query ids and system 'b' without ({form}")):
            compare({"a": with_ids, "b": without}, metric="map")
    # without any id, frames and arrays are aligned by position, as before
    frames = compare({"a": pd.DataFrame({"map": a["map"]}), "b": unindexed}, metric="map",
                     random_state=0)
    arrays = compare({"a": a["map"], "b": b["map"]}, metric="map", random_state=0)
    assert frames.pvalues["map"][0, 1] == arrays.pvalues["map"][0, 1]


def test_per_query_result_inputs_compose_with_cross_validate_and_folds():
    """A PerQueryResult beside cross_validate's output, a frame indexed by (qid, fold)."""
    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import Ridge

    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.metrics import evaluate_per_query
    from sklearn_rank.model_selection import QueryKFold, cross_validate

    X, y, qid = make_ranking(n_queries=24, n_features=6, max_docs=15, random_state=0)
    qid = qid * 7 + 3  # ids that are not row numbers
    cv = cross_validate(Ridge(), X, y, qid=qid, scoring="ndcg@10", return_per_query=True,
                        cv=QueryKFold(3, shuffle=True, random_state=0))
    feature = evaluate_per_query(y, X[:, 0], qid=qid, metrics=["ndcg@10"])
    got = paired_test(cv, feature, metric="ndcg@10", random_state=0)
    per_query = cv["per_query"]  # a PerQueryResult with a fold column (was a dict)
    expected = paired_test((per_query.query_ids, per_query["ndcg@10"]),
                           (feature.query_ids, feature["ndcg@10"]), random_state=0)
    assert got.pvalue == expected.pvalue
    assert_array_equal(got.ids, np.unique(qid))
    # cross_validate's per-query values as a frame indexed by (qid, fold) keep their folds
    frame = per_query.to_frame().set_index("fold", append=True)
    assert isinstance(frame.index, pd.MultiIndex)
    result = compare({"cv": frame, "feature": feature}, random_state=0)
    assert result.n_folds == 3
    assert result.pvalues["ndcg@10"][0, 1] == expected.pvalue
    with pytest.raises(ValueError, match=r"a MultiIndex with levels \['qid', 'query'\]"):
        compare({"cv": frame.rename_axis(["qid", "query"]), "feature": feature})


def test_dask_per_query_frames_compose_by_query_id():
    """evaluate_per_query's lazy Dask frame: its partitions' queries in any order."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from sklearn_rank.metrics import evaluate_per_query

    rng = np.random.default_rng(0)
    qid = rng.permutation(np.repeat(np.arange(20) * 3, 4))
    y = rng.integers(0, 3, len(qid))
    score = rng.normal(size=len(qid))
    rows = dd.from_pandas(pd.DataFrame({"y": y, "score": score, "qid": qid}), npartitions=3)
    lazy = evaluate_per_query(rows["y"], rows["score"], qid=rows["qid"], metrics=["map"])
    other = evaluate_per_query(y, -score, qid=qid, metrics=["map"])
    computed = lazy.compute()
    expected = paired_test((computed["qid"], computed["map"]),
                           (other.query_ids, other["map"]), random_state=0)
    got = paired_test(lazy, other, random_state=0)
    assert got.pvalue == expected.pvalue
    assert_array_equal(got.ids, np.arange(20) * 3)
    weighted = evaluate_per_query(rows["y"], rows["score"], qid=rows["qid"], metrics=["map"],
                                  sample_weight=rows["score"].abs())
    with pytest.raises(ValueError, match=r"system 'a' is per-query values with query weights"):
        paired_test(weighted, other)


def test_weighted_per_query_results_are_refused():
    from sklearn_rank.metrics import evaluate_per_query

    y, qid = np.array([1, 0, 2, 0, 1, 1]), np.array([0, 0, 1, 1, 2, 2])
    weighted = evaluate_per_query(y, np.arange(6.0), qid=qid, metrics=["map"],
                                  sample_weight=np.array([1, 1, 2, 2, 3, 3.0]))
    plain = evaluate_per_query(y, -np.arange(6.0), qid=qid, metrics=["map"])
    with pytest.raises(ValueError, match=r"system 'a' is a PerQueryResult with query weights "
                                         r"\(computed with sample_weight\)"):
        compare({"a": weighted, "b": plain})


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(3, 30), strings=st.booleans())
def test_relabelling_and_reordering_queries_changes_nothing(seed, n, strings):
    a, b, c = per_query(seed, n=n)
    rng = np.random.default_rng(seed)
    labels = rng.choice(10**6, size=n, replace=False)
    qid = np.array([f"id{v}" for v in labels]) if strings else labels
    orders = [rng.permutation(n) for _ in range(3)]
    shuffled = {name: (qid[o], v[o]) for name, v, o in zip("abc", (a, b, c), orders)}
    plain = {name: v[np.argsort(qid)] for name, v in zip("abc", (a, b, c))}
    kwargs = dict(test="wilcoxon", ci_method="t", metric="m")
    assert_allclose(compare(shuffled, **kwargs).pvalues_corrected["m"],
                    compare(plain, **kwargs).pvalues_corrected["m"], rtol=1e-12)


# --------------------------------------------------------------------------------------
# Many systems: corrections, worked by hand
# --------------------------------------------------------------------------------------


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Sorted: 0.005, 0.01, 0.03, 0.04, times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04, then the
    # running maximum: 0.02, 0.03, 0.06, 0.06.
    assert_allclose(adjust_pvalues(p), [0.03, 0.06, 0.06, 0.02], rtol=1e-12)
    assert_allclose(adjust_pvalues(p, method="bonferroni"), [0.04, 0.16, 0.12, 0.02],
                    rtol=1e-12)
    # Capped at 1; ties keep their order; NaN stays out of the family (m = 3).
    assert_allclose(adjust_pvalues([0.5, 0.5, np.nan, 0.2]), [1.0, 1.0, np.nan, 0.6])
    assert_allclose(adjust_pvalues([0.3, np.nan, 0.4], method="bonferroni"),
                    [0.6, np.nan, 0.8])
    assert adjust_pvalues([]).shape == (0,)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_between_raw_and_bonferroni(p):
    p = np.array(p)
    holm, bonferroni = adjust_pvalues(p), adjust_pvalues(p, method="bonferroni")
    assert (holm >= p - 1e-15).all() and (holm <= bonferroni + 1e-15).all()
    order = np.argsort(p, kind="stable")
    assert (np.diff(holm[order]) >= 0).all()


def test_compare_all_pairs_by_hand():
    a, b, c = per_query(14, n=30, shifts=(0.0, 0.03, 0.015))
    result = compare({"a": a, "b": b, "c": c}, test="t", ci_method="t", metric="m")
    raw = {("a", "b"): stats.ttest_rel(a, b).pvalue, ("a", "c"): stats.ttest_rel(a, c).pvalue,
           ("b", "c"): stats.ttest_rel(b, c).pvalue}
    ranked = sorted(raw, key=raw.get)
    holm, running = {}, 0.0
    for i, pair in enumerate(ranked):
        running = max(running, (3 - i) * raw[pair])
        holm[pair] = min(1.0, running)
    assert [(c.system_a, c.system_b) for c in result.comparisons] == list(raw)
    index = {"a": 0, "b": 1, "c": 2}
    for (x, y), p in raw.items():
        for matrix, expected in ((result.pvalues["m"], p),
                                 (result.pvalues_corrected["m"], holm[x, y])):
            assert matrix[index[x], index[y]] == pytest.approx(expected, rel=1e-12)
            assert matrix[index[y], index[x]] == matrix[index[x], index[y]]
    assert np.isnan(np.diag(result.pvalues["m"])).all()
    for comparison in result.comparisons:
        pair = comparison.system_a, comparison.system_b
        assert comparison.significant == (holm[pair] <= 0.05)
    bonferroni = compare({"a": a, "b": b, "c": c}, correction="bonferroni", ci_method="t")
    assert_allclose(bonferroni.pvalues_corrected["score"],
                    np.minimum(1, 3 * result.pvalues["m"]), rtol=1e-12)
    uncorrected = compare({"a": a, "b": b, "c": c}, correction=None, ci_method="t")
    assert_allclose(uncorrected.pvalues_corrected["score"], result.pvalues["m"], rtol=1e-12)


def test_compare_against_baseline():
    a, b, c = per_query(15, n=30)
    result = compare({"a": a, "b": b, "c": c}, baseline="b", ci_method="t")
    assert [(c.system_a, c.system_b) for c in result.comparisons] == [("a", "b"), ("c", "b")]
    raw = np.array([stats.ttest_rel(a, b).pvalue, stats.ttest_rel(c, b).pvalue])
    assert_allclose([c.pvalue for c in result.comparisons], raw, rtol=1e-12)
    # Holm with two tests: the smaller p-value doubled, the larger one kept unless below it.
    low, high = np.argsort(raw)
    holm = np.empty(2)
    holm[low] = min(1.0, 2 * raw[low])
    holm[high] = min(1.0, max(2 * raw[low], raw[high]))
    assert_allclose([c.pvalue_corrected for c in result.comparisons], holm, rtol=1e-12)
    assert np.isnan(result.pvalues["score"][0, 2])  # a and c were not compared


def test_compare_equals_paired_test_with_the_same_seed():
    a, b, c = per_query(16, n=20)
    kwargs = dict(test="permutation", n_resamples=299, random_state=5)
    result = compare({"a": a, "b": b, "c": c}, correction=None, **kwargs)
    for comparison in result.comparisons:
        x = {"a": a, "b": b, "c": c}[comparison.system_a]
        y = {"a": a, "b": b, "c": c}[comparison.system_b]
        alone = paired_test(x, y, **kwargs)
        assert comparison.result == alone
    # Each system's interval is bootstrap_ci's with the same seed.
    assert result.estimates["score"]["b"] == bootstrap_ci(b, n_resamples=299, random_state=5)
    # Reordering the systems changes nothing but the order.
    swapped = compare({"c": c, "a": a, "b": b}, correction=None, **kwargs)
    assert swapped.pvalues["score"][1, 0] == result.pvalues["score"][0, 2]


# --------------------------------------------------------------------------------------
# ranx, where the definitions match
# --------------------------------------------------------------------------------------
# ranx's numba kernels warn about an integer cast when they are first compiled.
RANX_WARNINGS = pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")


def ranx_collection(seed, n_queries=15, n_docs=8):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), n_docs)
    y = rng.integers(0, 3, n_queries * n_docs)
    y[::n_docs] = np.maximum(y[::n_docs], 1)  # ranx needs a relevant document per query
    scores = {"a": y + rng.normal(0, 1, len(y)), "b": y + rng.normal(0, 1.5, len(y)),
              "c": y + rng.normal(0, 3, len(y))}
    return qid, y, scores


def as_ranx(ranx, qid, values, name=None, qrels=False):
    out = {}
    for i, (q, v) in enumerate(zip(qid, values)):
        if qrels and v <= 0:
            continue
        out.setdefault(f"q{q:02d}", {})[f"d{i}"] = int(v) if qrels else float(v)
    return ranx.Qrels(out) if qrels else ranx.Run(out, name=name)


@RANX_WARNINGS
@pytest.mark.parametrize("seed", [0, 1])
def test_ranx_student_t_test(seed):
    """ranx.compare(stat_test="student") is scipy's two-sided ttest_rel, uncorrected."""
    ranx = pytest.importorskip("ranx")
    from sklearn_rank.metrics import ndcg_score

    qid, y, scores = ranx_collection(seed)
    runs = [as_ranx(ranx, qid, s, name) for name, s in scores.items()]
    report = ranx.compare(as_ranx(ranx, qid, y, qrels=True), runs, metrics=["ndcg@5"],
                          stat_test="student", max_p=0.05)
    # sklearn-rank's nDCG@5 with linear gain is ranx's, query by query.
    per_query = {name: ndcg_score(y, s, qid=qid, k=5, gain="linear", return_per_query=True)
                 for name, s in scores.items()}
    for run in runs:
        ranx_values = [run.scores["ndcg@5"][f"q{q:02d}"] for q in range(15)]
        assert_allclose(per_query[run.name], ranx_values, rtol=0, atol=1e-12)
    # ranx's query ids, in its own (dict) order, aligned by id.
    by_id = {run.name: (list(run.scores["ndcg@5"]), list(run.scores["ndcg@5"].values()))
             for run in runs}
    for systems in (per_query, by_id):
        result = compare(systems, metric="ndcg@5", test="t", correction=None, alpha=0.05,
                         ci_method="t")
        for c in result.comparisons:
            expected = report.comparisons[c.system_a, c.system_b]["ndcg@5"]
            assert c.pvalue == pytest.approx(expected["p_value"], rel=1e-10)
            assert c.significant == bool(expected["significant"])
    from ranx.statistical_tests import paired_student_t_test

    p, _ = paired_student_t_test(per_query["a"], per_query["b"])
    assert paired_test(per_query["a"], per_query["b"]).pvalue == pytest.approx(p, rel=1e-12)


@RANX_WARNINGS
@pytest.mark.parametrize("n, n_resamples, shift",
                         [(12, 9999, 0.02), (12, 9999, 0.08), (40, 20000, 0.02),
                          (40, 20000, 0.06)])
def test_ranx_fisher_randomization_test(n, n_resamples, shift):
    """ranx's Fisher randomization test estimates the same p-value, up to Monte-Carlo error.

    Definitions: both swap the two systems' values of each query with probability 1/2 and
    compare the mean difference with the observed one. ranx counts
    ``|permuted| >= |observed|`` over its random permutations and divides by their number;
    scipy's two-sided p-value is ``2 * min(P(T >= t), P(T <= t))``, the same thing for this
    symmetric null distribution, and for random resamples it adds one to the count and to
    the number of resamples (so that it is never 0), and it enumerates all ``2**n`` sign
    flips, an exact p-value, when ``2**n <= n_resamples``. ranx's permutations run in
    numba threads whose random streams its seed does not fix, so its p-values vary from run
    to run even with the same random_seed: the comparison must allow for Monte-Carlo error.
    """
    pytest.importorskip("ranx")
    from ranx.statistical_tests import fisher_randomization_test

    a, b, _ = per_query(21, n=n, shifts=(0.0, shift, 0.0), noise=0.1)
    ours = paired_test(a, b, test="permutation", n_resamples=n_resamples, random_state=0)
    n_permutations = 20000
    p_ranx, _ = fisher_randomization_test(a, b, n_permutations, 0.05, 42)
    p = ours.pvalue
    assert 0.05 < p < 0.9  # p-values worth comparing: from about 0.06 to 0.8
    # Standard errors of the two estimates (ours is exact for n=12).
    se = np.sqrt(p * (1 - p) / n_permutations)
    if 2**n > n_resamples:
        se = np.hypot(se, np.sqrt(p * (1 - p) / n_resamples))
    assert abs(p_ranx - p) < 5 * se + 1 / n_resamples


# --------------------------------------------------------------------------------------
# The interval of a difference belongs to its test (issue 18, item 5)
# --------------------------------------------------------------------------------------


def disagreeing_pair():
    """Skewed differences: their BCa interval excludes 0, the paired t-test's p is 0.097.

    A few large losses among many small gains: BCa corrects for the skewness, the t
    interval does not.
    """
    rng = np.random.default_rng(17)
    n = 40
    b = rng.uniform(0.2, 0.8, n)
    d = np.where(rng.uniform(size=n) < 0.15, rng.uniform(-0.5, -0.1, n),
                 rng.exponential(0.02, n))
    return b + d, b


def excludes_zero(interval):
    return interval[0] > 0 or interval[1] < 0


def test_the_interval_beside_a_t_test_is_the_t_tests_own():
    a, b = disagreeing_pair()
    t_test = stats.ttest_rel(a, b)
    # the situation: the BCa interval of the difference excludes 0, yet p > 0.05
    assert excludes_zero(bootstrap_ci(a, b, random_state=0).confidence_interval)
    assert 0.05 < t_test.pvalue < 0.1
    expected = t_test.confidence_interval(0.95)
    for result in (paired_test(a, b, random_state=0),
                   compare({"a": a, "b": b}, correction=None, random_state=0)):
        test = result if isinstance(result, PairedTestResult) else result.comparisons[0].result
        assert test.ci_method == "t"
        assert_allclose(test.confidence_interval, (expected.low, expected.high), rtol=1e-12)
        assert not excludes_zero(test.confidence_interval)
        assert test.pvalue == t_test.pvalue  # the test itself is unchanged
    comparison = result.comparisons[0]
    assert not comparison.significant
    assert result.difference_ci_method == "t"
    # the means keep their BCa intervals: the table's numbers do not change
    assert result.ci_method == "BCa"
    assert result.estimates["score"]["a"].confidence_interval == \
        bootstrap_ci(a, random_state=0).confidence_interval
    pytest.importorskip("pandas")
    row = result.to_frame("comparisons").iloc[0]
    assert (row["ci_method"], bool(row["significant"])) == ("t", False)
    assert excludes_zero((row["ci_low"], row["ci_high"])) == bool(row["significant"])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("confidence_level", [0.9, 0.95])
def test_the_t_interval_excludes_zero_exactly_when_the_t_test_rejects(seed, confidence_level):
    systems = dict(zip("abc", per_query(seed, n=25, shifts=(0.0, 0.04, 0.08), noise=0.1)))
    result = compare(systems, correction=None, alpha=1 - confidence_level,
                     confidence_level=confidence_level, metric="m")
    for c in result.comparisons:
        assert excludes_zero(c.result.confidence_interval) == c.significant


def test_other_tests_and_intervals_are_named_as_different_methods():
    from sklearn_rank.stats._table import difference_interval_note

    a, b = disagreeing_pair()
    # the randomization test gets a bootstrap interval (its resamples, then the interval's)
    permutation = paired_test(a, b, test="permutation", random_state=0)
    assert permutation.ci_method == "BCa"
    assert permutation.confidence_interval == bootstrap_ci(a, b, random_state=0).confidence_interval
    # an interval asked for explicitly is kept, as before
    assert paired_test(a, b, ci_method="BCa", random_state=0).confidence_interval == \
        permutation.confidence_interval
    notes = {}
    for test, ci_method, correction in [("t", "auto", None), ("t", "auto", "holm"),
                                        ("t", "BCa", None), ("permutation", "auto", None),
                                        ("wilcoxon", "auto", None)]:
        result = compare({"a": a, "b": b, "c": b + 0.01}, test=test, ci_method=ci_method,
                         correction=correction, n_resamples=199, random_state=0)
        notes[test, ci_method, correction] = difference_interval_note(result)
    assert notes["t", "auto", None] == (
        "The interval of each mean difference is the 95% Student's t interval, the paired "
        "t-test's own: it excludes 0 exactly when the uncorrected p-value is below 0.05.")
    assert notes["t", "auto", "holm"].endswith(
        "It is not adjusted for the Holm correction: it can exclude 0 for a difference whose "
        "corrected p-value is above alpha = 0.05.")
    assert notes["t", "BCa", None] == (
        "The interval of each mean difference is a 95% BCa bootstrap interval, a different "
        "method from the paired t-test: near the threshold, an interval can exclude 0 beside "
        "a difference that is not significant, or the reverse.")
    assert "the randomization (permutation) test is another resampling method" in \
        notes["permutation", "auto", None]
    assert "a different method from the Wilcoxon signed-rank test" in \
        notes["wilcoxon", "auto", None]


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------


def table_systems():
    # b is far above a and c on "m1"; c is far below a on "m2"; a and c tie on "m1".
    a, b, c = per_query(30, n=40, shifts=(0.0, 0.15, 0.0), noise=0.03)
    a2, b2, c2 = per_query(31, n=40, shifts=(0.0, 0.003, -0.15), noise=0.03)
    return {"bm25": {"m1": a, "m2": a2}, "lambda_mart": {"m1": b, "m2": b2},
            "ridge": {"m1": c, "m2": c2}}


def expected_cell(values, marks=""):
    ci = stats.ttest_1samp(values, 0).confidence_interval(0.95)
    return f"{values.mean():.3f} [{ci.low:.3f}, {ci.high:.3f}]{marks}"


def test_text_table():
    systems = table_systems()
    result = compare(systems, ci_method="t")
    assert isinstance(result, ComparisonResult)
    lines = str(result).splitlines()
    assert repr(result) == result.to_string() == str(result)
    assert re.split(r"\s{2,}", lines[0]) == ["System", "m1", "m2"]
    rows = {line.split("  ")[0]: re.split(r"\s{2,}", line)[1:] for line in lines[2:5]}
    b = systems["lambda_mart"]
    assert rows["(b) lambda_mart"] == [expected_cell(b["m1"], "ᵃᶜ"), expected_cell(b["m2"], "ᶜ")]
    assert rows["(a) bm25"][1] == expected_cell(systems["bm25"]["m2"], "ᶜ")
    assert rows["(c) ridge"][0] == expected_cell(systems["ridge"]["m1"])
    legend = " ".join(lines[6:])
    assert "Mean over 40 queries [95% Student's t CI]." in legend
    assert ("ᵃᵇᶜ: significantly higher than system (a), (b), (c): paired t-test, two-sided, "
            "Holm correction over the 3 comparisons of each metric, alpha = 0.05.") in legend
    assert re.split(r"\s{2,}", result.to_string(digits=2).splitlines()[2])[1].startswith(
        f"{systems['bm25']['m1'].mean():.2f} [")


def test_markdown_table():
    systems = table_systems()
    md = compare(systems, ci_method="t").to_markdown()
    lines = md.splitlines()
    assert lines[0] == "| System | m1 | m2 |"
    assert lines[1] == "|:---|---:|---:|"
    b = systems["lambda_mart"]
    # The best mean of each metric in bold.
    bold_m1 = expected_cell(b["m1"], "ᵃᶜ").replace(" [", "** [", 1)
    bold_m2 = expected_cell(b["m2"], "ᶜ").replace(" [", "** [", 1)
    assert lines[3] == f"| (b) lambda_mart | **{bold_m1} | **{bold_m2} |"
    assert lines[5] == ""
    assert lines[6].startswith("Mean over 40 queries")


def test_latex_table():
    systems = table_systems()
    result = compare(systems, baseline="bm25", ci_method="t", correction="bonferroni",
                     test="wilcoxon")
    tex = result.to_latex()
    lines = tex.splitlines()
    assert lines[:4] == [r"\begin{tabular}{lrr}", r"\toprule", r"System & m1 & m2 \\",
                         r"\midrule"]
    b, c = systems["lambda_mart"], systems["ridge"]
    cell_b1 = expected_cell(b["m1"]).replace(" [", "} [", 1)
    assert lines[5] == (r"lambda\_mart & \textbf{" + cell_b1 + r"$^{\dagger}$ & "
                        + r"\textbf{" + expected_cell(b["m2"]).replace(" [", "} [", 1) + r" \\")
    assert lines[6].endswith(expected_cell(c["m2"]) + r"$^{\ddagger}$ \\")
    assert lines[4].startswith(r"bm25 (baseline) & ") and "$^" not in lines[4]
    assert lines[7] == r"\bottomrule"
    assert lines[8] == (r"\multicolumn{3}{l}{\footnotesize Mean over 40 queries [95\% "
                        r"Student's t CI].} \\")
    assert lines[9].startswith(r"\multicolumn{3}{l}{\footnotesize $^{\dagger}$ / "
                               r"$^{\ddagger}$: significantly higher / lower than the "
                               r"baseline (bm25): Wilcoxon signed-rank test, two-sided, "
                               r"Bonferroni correction over the 2 comparisons")
    assert lines[-1] == r"\end{tabular}"
    text = result.to_string()
    assert "† / ‡: significantly higher / lower than the baseline (bm25)" in text


def test_frames():
    pd = pytest.importorskip("pandas")
    systems = table_systems()
    result = compare(systems, ci_method="t")
    summary = result.to_frame()
    assert list(summary.index) == ["bm25", "lambda_mart", "ridge"]
    assert list(summary.columns.get_level_values(0).unique()) == ["m1", "m2"]
    assert list(summary["m1"].columns) == ["mean", "ci_low", "ci_high", "higher_than",
                                           "lower_than"]
    ci = stats.ttest_1samp(systems["ridge"]["m2"], 0).confidence_interval(0.95)
    assert_allclose(summary.loc["ridge", ("m2", "ci_low")], ci.low, rtol=1e-12)
    assert summary.loc["lambda_mart", ("m1", "higher_than")] == "bm25, ridge"
    assert summary.loc["ridge", ("m2", "lower_than")] == "bm25, lambda_mart"
    comparisons = result.to_frame(kind="comparisons")
    assert len(comparisons) == 6
    assert list(comparisons.columns[:3]) == ["metric", "system_a", "system_b"]
    assert_allclose(comparisons["pvalue_corrected"],
                    [c.pvalue_corrected for c in result.comparisons])
    folds = compare(cv_systems(2), ci_method="t").to_frame(kind="folds")
    assert folds.columns.names == ["metric", "fold"]
    assert folds.shape == (3, 6)
    assert isinstance(folds, pd.DataFrame)


def test_frame_without_pandas(monkeypatch):
    result = compare({"a": [0.1, 0.2, 0.4], "b": [0.2, 0.2, 0.5]}, ci_method="t")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r'pip install "sklearn-rank\[pandas\]"'):
        result.to_frame()
    assert "System" in result.to_string()  # the text table does not need pandas


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------

A, B = [0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.35, 0.7]
CV = cv_systems(3, n_queries=9)
CV_OTHER_FOLDS = cv_result({"ndcg@10": np.arange(9) / 10, "map": np.arange(9) / 10},
                           CV["bm25"]["per_query"]["qid"], np.arange(9) % 3)

# (function, args, kwargs, exception, regex the message must match)
ERRORS = [
    (paired_test, ([0.1, 0.2, 0.3], [0.1, 0.2]), {}, ValueError,
     r"aligned by position and must have the same length; got 'a' has 3, 'b' has 2"),
    (paired_test, (([1, 2, 3, 4], A), ([1, 2, 5, 6], B)), {}, ValueError,
     r"Systems 'a' and 'b' were not evaluated on the same queries \(for 'score'\): 2 only in "
     r"'a' \(3, 4\) and 2 only in 'b' \(5, 6\)"),
    (compare, ({"x": ([1, 2, 3], A[:3]), "y": ([1, 2, 4], B[:3])},), {}, ValueError,
     r"Systems 'x' and 'y' were not evaluated on the same queries .* 1 only in 'x' \(3\)"),
    (paired_test, (([1, 2, 3, 4], A), (["1", "2", "3", "4"], B)), {}, TypeError,
     r"The query ids of system 'a' are numbers and those of system 'b' are strings"),
    (paired_test, (([1, 2, 3, 4], A), B), {}, ValueError,
     r"system 'a' comes with query ids and system 'b' without"),
    (paired_test, (([1, 2, 2, 4], A), ([1, 2, 3, 4], B)), {}, ValueError,
     r"qid of system 'a' holds repeated query ids \(2\)"),
    (paired_test, ([0.1, np.nan, 0.3], [0.1, 0.2, 0.3]), {}, ValueError,
     r"system 'a' for 'score' contain 1 NaN or infinite value\(s\), e.g. NaN at position 1\. "
     r".*no_relevant=np.nan.*recompute the metric with no_relevant=0.0"),
    (paired_test, (([7, 8, 9], [0.1, 0.2, 0.3]), ([7, 8, 9], [0.1, np.inf, 0.3])), {},
     ValueError, r"system 'b' .* e.g. infinite at qid 8"),
    (paired_test, ([0.1], [0.2]), {}, ValueError, r"at least 2 queries; got 1"),
    (bootstrap_ci, ([],), {}, ValueError, r"system 'a' has no per-query values"),
    (paired_test, ([[0.1, 0.2]], [[0.1, 0.3]]), {}, ValueError,
     r"must be a 1-D array-like, one entry per query; got an array of shape \(1, 2\)"),
    (paired_test, ([[1, 2], [0.1, 0.2]], B), {}, ValueError,
     r"shape \(2, 2\)\. To give query ids, pass a tuple \(qid, values\)"),
    (paired_test, (["x", "y"], [0.1, 0.2]), {}, TypeError, r"must hold numbers"),
    (paired_test, (0.5, [0.1]), {}, TypeError, r"system 'a' must be per-query values"),
    (paired_test, (([1.0, np.nan], [0.1, 0.2]), ([1.0, 2.0], [0.1, 0.3])), {}, ValueError,
     r"qid of system 'a' must not contain NaN"),
    (paired_test, (A, B), {"test": "ttest"}, InvalidParameterError,
     r"The 'test' parameter of paired_test must be a str among .*'wilcoxon'.*Got 'ttest'"),
    (paired_test, (A, B), {"alternative": "two_sided"}, InvalidParameterError,
     r"'alternative' parameter"),
    (paired_test, (A, B), {"confidence_level": 95}, InvalidParameterError,
     r"'confidence_level' parameter of paired_test must be a float in the range "
     r"\(0(\.0)?, 1(\.0)?\)"),
    (paired_test, (A, B), {"n_resamples": 0}, InvalidParameterError, r"'n_resamples'"),
    (paired_test, (A, B), {"ci_method": "bca"}, InvalidParameterError, r"'ci_method'"),
    (paired_test, (A, B), {"random_state": "seed"}, InvalidParameterError, r"'random_state'"),
    (bootstrap_ci, (A,), {"method": "t"}, InvalidParameterError, r"'method' parameter"),
    (compare, ({"a": A, "b": B},), {"alpha": 1.5}, InvalidParameterError,
     r"'alpha' parameter of compare must be a float in the range \(0(\.0)?, 1(\.0)?\)"),
    (compare, ({"a": A, "b": B},), {"alpha": 0}, InvalidParameterError, r"'alpha'"),
    (compare, ({"a": A, "b": B},), {"correction": "fdr"}, InvalidParameterError,
     r"'correction'"),
    (compare, ([A, B],), {}, InvalidParameterError, r"'systems' parameter of compare"),
    (compare, ({"a": A},), {}, ValueError, r"compare needs at least 2 systems; got 1"),
    (compare, ({"a": A, "b": B},), {"baseline": "c"}, ValueError,
     r"baseline='c' is not one of the systems \['a', 'b'\]"),
    (compare, (CV,), {"metric": "ndcg@5"}, ValueError,
     r"system 'bm25' has no per-query values for the metric 'ndcg@5'; it has "
     r"\['map', 'ndcg@10'\]"),
    (compare, (CV,), {"metric": []}, ValueError, r"metric= is an empty list"),
    (compare, ({"a": CV["bm25"], "b": B},), {}, ValueError,
     r"The systems have no metric in common .* Choose one with metric="),
    (paired_test, (CV["bm25"], CV["ridge"]), {}, ValueError,
     r"hold several metrics \(\['ndcg@10', 'map'\]\); choose one with metric="),
    (paired_test, ({"test_ndcg@10": [0.5, 0.6]}, CV["ridge"]), {}, ValueError,
     r"looks like a cross_validate result without per-query values .* "
     r"return_per_query=True"),
    (paired_test, ({"qid": [1, 2]}, B), {}, ValueError, r"has no column of per-query values"),
    (paired_test, ({"qid": [1, 2, 3], "m": A}, B), {}, ValueError,
     r"columns of system 'a' must have the same length; got 'm' has 4, qid has 3"),
    (paired_test, (A, B), {"unit": "fold"}, ValueError,
     r"unit='fold' needs the fold of every query, and system 'a' has none"),
    (paired_test, (CV["bm25"], CV_OTHER_FOLDS), {"metric": "map", "unit": "fold"},
     ValueError, r"different test queries in fold 0"),
    (adjust_pvalues, ([0.1, 1.2],), {}, ValueError, r"pvalues must lie in \[0, 1\]; got 1.2"),
    (adjust_pvalues, ([0.1],), {"method": "fdr_bh"}, InvalidParameterError, r"'method'"),
]


@pytest.mark.parametrize("func, args, kwargs, exception, message", ERRORS,
                         ids=[f"{e[0].__name__}-{i}" for i, e in enumerate(ERRORS)])
def test_errors(func, args, kwargs, exception, message):
    with pytest.raises(exception, match=message):
        func(*args, **kwargs)


def test_result_method_errors():
    result = compare({"a": A, "b": B}, ci_method="t")
    pytest.importorskip("pandas")
    with pytest.raises(ValueError, match=r"kind must be 'summary', 'comparisons' or 'folds'"):
        result.to_frame(kind="pvalues")
    with pytest.raises(ValueError, match=r"no per-fold means: system 'a' came without"):
        result.to_frame(kind="folds")


def test_results_are_frozen():
    result = paired_test(A, B, ci_method="t")
    assert isinstance(result, PairedTestResult)
    with pytest.raises(AttributeError):
        result.pvalue = 0.0


# --------------------------------------------------------------------------------------
# CSV export
# --------------------------------------------------------------------------------------


def read_csv_rows(text):
    import csv
    import io

    return list(csv.DictReader(io.StringIO(text)))


def test_csv_against_a_baseline():
    systems = table_systems()
    result = compare(systems, baseline="bm25", ci_method="t")
    rows = read_csv_rows(result.to_csv())
    assert [row["system"] for row in rows] == ["bm25", "lambda_mart", "ridge"]
    assert list(rows[0]) == ["system"] + [
        f"{m} {field}" for m in ("m1", "m2")
        for field in ("mean", "ci_low", "ci_high", "pvalue_corrected", "vs baseline")]
    by_name = {row["system"]: row for row in rows}
    # every digit: the numbers read back are the estimates themselves
    for system, row in by_name.items():
        estimate = result.estimates["m1"][system]
        assert float(row["m1 mean"]) == estimate.mean
        assert (float(row["m1 ci_low"]), float(row["m1 ci_high"])) == tuple(
            estimate.confidence_interval)
    assert by_name["bm25"]["m1 vs baseline"] == "baseline"
    assert by_name["bm25"]["m1 pvalue_corrected"] == ""
    assert by_name["lambda_mart"]["m1 vs baseline"] == "higher"  # far above on m1
    assert by_name["ridge"]["m2 vs baseline"] == "lower"  # far below on m2
    test = next(c for c in result.comparisons if c.metric == "m2" and c.system_a == "ridge")
    assert float(by_name["ridge"]["m2 pvalue_corrected"]) == test.pvalue_corrected
    assert by_name["ridge"]["m1 vs baseline"] == "same"  # a tie on m1


def test_csv_of_all_pairs():
    result = compare(table_systems(), ci_method="t")
    rows = {row["system"]: row for row in read_csv_rows(result.to_csv())}
    assert "m1 vs baseline" not in rows["bm25"]
    assert rows["lambda_mart"]["m1 higher_than"] == "bm25, ridge"
    assert rows["bm25"]["m1 lower_than"] == "lambda_mart"
    assert rows["ridge"]["m2 lower_than"] == "bm25, lambda_mart"


def test_csv_to_a_path_or_a_buffer(tmp_path):
    import io

    result = compare(table_systems(), baseline="bm25", ci_method="t")
    text = result.to_csv(index_label="model")
    assert text.startswith("model,m1 mean,") and text.endswith("\n")
    path = tmp_path / "results.csv"
    assert result.to_csv(path, index_label="model") is None
    assert path.read_text(encoding="utf-8") == text
    buffer = io.StringIO()
    assert result.to_csv(buffer, index_label="model") is None
    assert buffer.getvalue() == text


def test_one_table_renderer_for_text_and_markdown():
    from sklearn_rank.stats._table import format_table, wrap

    header, rows = ["qid", "ndcg@10"], [["q1", "0.5000"], ["q10", "1.0000"]]
    assert format_table(header, rows) == "qid  ndcg@10\n---  -------\nq1    0.5000\nq10   1.0000"
    assert format_table(header, rows, "markdown").splitlines()[:2] == [
        "| qid | ndcg@10 |", "|:---|---:|"]
    assert format_table(header, [["a,b", "1"]], "csv") == 'qid,ndcg@10\n"a,b",1'
    assert wrap("pip install sklearn-rank[xgboost] now", 20, "  ") == [
        "pip install", "  sklearn-rank[xgboost]", "  now"]
    assert wrap("") == [""]


# ----------------------------------------------------------------------------------------
# compare reads a stored run and trec_eval's results through protocols: stats imports
# nothing of the benchmark layer above it


def test_stats_imports_nothing_of_the_benchmark_layer_at_import():
    import ast
    from pathlib import Path

    import sklearn_rank

    for path in (Path(sklearn_rank.__file__).parent / "stats").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level: a path given to compare reads the store
            if isinstance(node, ast.ImportFrom):
                assert "benchmark" not in (node.module or ""), (path.name, node.lineno)


def _stored_run(systems, **attributes):
    from sklearn_rank.benchmark import StoredRun

    run = StoredRun(systems)
    run.__dict__.update(attributes)
    return run


def test_compare_takes_a_stored_run_s_metrics_baseline_and_seed():
    rng = np.random.default_rng(0)
    qid = np.arange(40)
    base = rng.uniform(0.2, 0.6, 40)
    systems = {name: {"qid": qid, "ndcg@10": base + rng.normal(shift, 0.05, 40),
                      "map": base + rng.normal(shift, 0.05, 40)}
               for name, shift in (("a", 0.0), ("b", 0.05), ("c", -0.02))}
    run = _stored_run(systems, metrics=["map"], baseline="b", seed=7)
    got = compare(run, n_resamples=99)
    expected = compare(systems, metric=["map"], baseline="b", random_state=7, n_resamples=99)
    assert got.metrics == ["map"] and got.baseline == "b"
    assert got.to_string() == expected.to_string()
    # what the call says wins over the run's defaults
    assert compare(run, metric="ndcg@10", baseline=None, n_resamples=99).metrics == ["ndcg@10"]

    class Run(dict):  # any mapping that says what its run compared: the same
        metrics, baseline, seed = ["map"], "b", 7

    assert compare(Run(systems), n_resamples=99).to_string() == expected.to_string()


def _trec_eval_results(tmp_path):
    """trec_eval() of two runs on the same qrels, whose queries are listed in other
    orders in the files."""
    from sklearn_rank.metrics import trec_eval

    rng = np.random.default_rng(1)
    qrels = "".join(f"{q} 0 d{d} {rng.integers(0, 3)}\n" for q in range(1, 13)
                    for d in range(8))
    (tmp_path / "qrels").write_text(qrels)
    results = {}
    for name, order in (("first", range(1, 13)), ("second", range(12, 0, -1))):
        lines = "".join(f"{q} Q0 d{d} 0 {rng.random():.6f} {name}\n" for q in order
                        for d in range(8))
        (tmp_path / name).write_text(lines)
        results[name] = trec_eval(tmp_path / "qrels", tmp_path / name,
                                  measures=["map", "P.5", "num_ret", "relstring"])
    return results


def test_compare_reads_trec_eval_results_by_query_id(tmp_path):
    """A user comparing two runs' trec_eval values: it was a TypeError."""
    results = _trec_eval_results(tmp_path)
    got = compare(results, n_resamples=99, random_state=0)
    # the measures, by trec_eval's names: not the counts or relstring
    assert got.metrics == ["map", "P_5"]
    columns = {name: {"qid": r.query_ids, "map": r.per_query["map"],
                      "P_5": r.per_query["P_5"]} for name, r in results.items()}
    expected = compare(columns, n_resamples=99, random_state=0)
    assert got.to_string() == expected.to_string()
    for name, result in results.items():
        assert got.estimates["map"][name].mean == pytest.approx(result.summary["map"])


def test_compare_pairs_trec_eval_results_by_query_id_not_position(tmp_path):
    results = _trec_eval_results(tmp_path)
    first, second = results["first"], results["second"]
    # the second's queries reversed: paired by position, query 1 would meet query 12
    second.query_ids = second.query_ids[::-1]
    second.per_query = {k: v[::-1] for k, v in second.per_query.items()}
    got = compare({"first": first, "second": second}, metric="map", n_resamples=99,
                  random_state=0)
    (comparison,) = got.comparisons
    ids = first.query_ids
    order = np.argsort(second.query_ids)
    differences = first.per_query["map"] - second.per_query["map"][order][
        np.searchsorted(second.query_ids[order], ids)]
    assert comparison.result.mean_difference == pytest.approx(differences.mean())
    # and queries on one side only are named, not compared
    second.query_ids = second.query_ids.copy()
    second.query_ids[0] = "99"
    with pytest.raises(ValueError, match="99"):
        compare({"first": first, "second": second}, metric="map")
