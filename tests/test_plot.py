"""sklearn_rank.plot: the plotted data are the metrics' and the statistics' values, exactly.

Every display is drawn headless (Agg). What a display draws is compared with what
sklearn_rank.metrics and sklearn_rank.stats return for the same data, and with the search's
cv_results_; bad input gets a clear error; a missing matplotlib fails only when plotting,
naming the extra to install.
"""

import doctest
import re
import subprocess
import sys

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_array_equal
from scipy import stats
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank import get_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate, evaluate_per_query, ndcg_score
from sklearn_rank.model_selection import QueryKFold, cross_validate
from sklearn_rank.plot import (
    MetricAtKDisplay,
    ParameterSearchDisplay,
    PerQueryDifferenceDisplay,
)
from sklearn_rank.preprocessing import DropQueryId
from sklearn_rank.stats import bootstrap_ci, paired_test

# Few resamples: the intervals are compared with bootstrap_ci's on the same seed, not judged.
FAST = {"n_resamples": 199, "random_state": 0}



@pytest.fixture(scope="module")
def data():
    """Test queries of a ranking problem, and two models' scores on them."""
    X, y, qid = make_ranking(n_queries=60, random_state=0)
    rng = np.random.default_rng(0)
    score_a = X[:, 0] + X[:, 1] + rng.normal(0, 1, len(y))
    score_b = X[:, 0] + rng.normal(0, 1, len(y))
    return X, y, qid, score_a, score_b


@pytest.fixture(scope="module")
def models(data):
    """Two fitted models; the first 40 queries trained them, the last 20 test them."""
    X, y, qid, _, _ = data
    train = qid < 40
    a = Ridge(alpha=1.0).fit(X[train], y[train])
    b = make_pipeline(_FirstColumns(2), Ridge(alpha=1.0)).fit(X[train], y[train])
    test = ~train
    return a, b, X[test], y[test], qid[test]


class _FirstColumns(TransformerMixin, BaseEstimator):
    """Keep the first n columns (a second model that sees less)."""

    def __init__(self, n=2):
        self.n = n

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.asarray(X)[:, : self.n]


def band_bounds(collection):
    """The lowest and highest y of a fill_between band at each x, in x order."""
    vertices = collection.get_paths()[0].vertices
    by_x = {}
    for x, y in vertices:
        by_x.setdefault(x, []).append(y)
    xs = sorted(by_x)
    return np.array([min(by_x[x]) for x in xs]), np.array([max(by_x[x]) for x in xs])


# --------------------------------------------------------------------------------------
# MetricAtKDisplay
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["ndcg", "nDCG", "P", "recall", "err", "ap", "rr",
                                    "success", "rbp(p=0.5)", "dcg"])
def test_metric_at_k_values_are_the_metrics(plt, data, metric):
    _, y, qid, score, _ = data
    ks = [1, 2, 3, 5, 10, 20]
    display = MetricAtKDisplay.from_predictions(y, score, qid=qid, metric=metric, ks=ks)
    base, paren, params = metric.partition("(")
    for j, k in enumerate(ks):
        name = f"{base}@{k}{paren}{params}"
        assert display.values[j] == evaluate(y, score, qid=qid, metrics=[name])[name]
        assert_array_equal(
            display.per_query_values[:, j],
            evaluate(y, score, qid=qid, metrics=[name], return_per_query=True)[name],
        )
    assert_array_equal(display.line_.get_xdata(), ks)
    assert_array_equal(display.line_.get_ydata(), display.values)
    assert_array_equal(display.query_ids, np.unique(qid))
    assert display.band_ is None
    assert display.ax_.get_ylabel() == f"{base}@k{paren}{params}"
    assert display.ax_.get_xlabel() == "Cut-off k"


def test_metric_at_k_equals_the_public_metric_functions(plt, data):
    _, y, qid, score, _ = data
    display = MetricAtKDisplay.from_predictions(y, score, qid=qid, ks=10,
                                                gain="linear", ties="average")
    assert_array_equal(display.ks, np.arange(1, 11))
    expected = [ndcg_score(y, score, qid=qid, k=k, gain="linear", ties="average")
                for k in range(1, 11)]
    assert_array_equal(display.values, expected)


def test_metric_at_k_leaves_out_queries_without_relevant_documents(plt):
    y = [0, 0, 0, 2, 1, 0, 1, 0, 3]
    score = [0.3, 0.2, 0.1, 0.1, 0.9, 0.5, 0.4, 0.8, 0.2]
    qid = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    display = MetricAtKDisplay.from_predictions(y, score, qid=qid, ks=[1, 2, 3],
                                                no_relevant=np.nan, confidence_level=0.9,
                                                **FAST)
    for j, k in enumerate([1, 2, 3]):
        assert display.values[j] == ndcg_score(y, score, qid=qid, k=k, no_relevant=np.nan)
        kept = display.per_query_values[1:, j]
        assert np.isnan(display.per_query_values[0, j])
        ci = bootstrap_ci(kept, confidence_level=0.9, **FAST).confidence_interval
        assert (display.ci_low[j], display.ci_high[j]) == tuple(ci)


@pytest.mark.parametrize("ci_method", ["BCa", "percentile", "basic"])
def test_metric_at_k_band_is_bootstrap_ci(plt, data, ci_method):
    _, y, qid, score, _ = data
    ks = [1, 3, 5, 10]
    display = MetricAtKDisplay.from_predictions(
        y, score, qid=qid, metric="ndcg", ks=ks, confidence_level=0.9, ci_method=ci_method,
        name="model", **FAST)
    for j, k in enumerate(ks):
        values = evaluate(y, score, qid=qid, metrics=[f"ndcg@{k}"],
                          return_per_query=True)[f"ndcg@{k}"]
        ci = bootstrap_ci(values, method=ci_method, confidence_level=0.9,
                          **FAST).confidence_interval
        assert display.ci_low[j] == ci.low
        assert display.ci_high[j] == ci.high
    low, high = band_bounds(display.band_)
    assert_array_equal(low, display.ci_low)
    assert_array_equal(high, display.ci_high)
    assert display.line_.get_label() == "model (90% CI)"


def test_metric_at_k_reuses_the_axes(plt, data):
    _, y, qid, score_a, score_b = data
    first = MetricAtKDisplay.from_predictions(y, score_a, qid=qid, name="A", ks=5)
    second = MetricAtKDisplay.from_predictions(y, score_b, qid=qid, name="B", ks=5,
                                               ax=first.ax_)
    assert second.ax_ is first.ax_ and second.figure_ is first.figure_
    assert first.ax_.get_lines() == [first.line_, second.line_]
    assert [t.get_text() for t in first.ax_.get_legend().get_texts()] == ["A", "B"]
    assert first.line_.get_color() != second.line_.get_color()
    # .plot draws again, on a new figure when no ax is given
    again = first.plot(name="A again")
    assert again.ax_ is not second.ax_
    assert_array_equal(again.line_.get_ydata(), second.ax_.get_lines()[0].get_ydata())


def test_metric_at_k_from_estimator_equals_from_predictions(plt, models):
    model, _, X, y, qid = models
    by_model = MetricAtKDisplay.from_estimator(model, X, y, qid=qid, metric="err",
                                               confidence_level=0.95, **FAST)
    by_scores = MetricAtKDisplay.from_predictions(y, model.predict(X), qid=qid,
                                                  metric="err", confidence_level=0.95,
                                                  **FAST)
    assert by_model.name == "Ridge"
    for attribute in ("ks", "values", "per_query_values", "ci_low", "ci_high", "query_ids"):
        assert_array_equal(getattr(by_model, attribute), getattr(by_scores, attribute))


def test_metric_at_k_from_estimator_reads_the_qid_column(plt, data):
    pd = pytest.importorskip("pandas")
    X, y, qid, _, _ = data
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).assign(qid=qid)
    model = make_pipeline(DropQueryId(), Ridge()).fit(frame, y)
    display = MetricAtKDisplay.from_estimator(model, frame, y, ks=5)
    expected = MetricAtKDisplay.from_predictions(y, model.predict(frame), qid=qid, ks=5)
    assert display.name == "Ridge"
    assert_array_equal(display.values, expected.values)


def test_from_estimator_ranks_a_classifier_by_a_continuous_score(plt, data):
    # A classifier's hard 0/1 labels tie most documents: the displays, like the scorers,
    # rank it by its decision function by default.
    from sklearn.linear_model import LogisticRegression

    X, y, qid, _, _ = data
    relevant = (y >= 1).astype(int)
    model = LogisticRegression().fit(X, relevant)
    display = MetricAtKDisplay.from_estimator(model, X, relevant, qid=qid, metric="map",
                                              ks=[1, 5], **FAST)
    expected = MetricAtKDisplay.from_predictions(relevant, model.decision_function(X),
                                                 qid=qid, metric="map", ks=[1, 5], **FAST)
    hard = MetricAtKDisplay.from_predictions(relevant, model.predict(X), qid=qid,
                                             metric="map", ks=[1, 5], **FAST)
    assert_array_equal(display.values, expected.values)
    assert not np.array_equal(display.values, hard.values)
    differences = PerQueryDifferenceDisplay.from_estimator(model, model, X, relevant, qid=qid,
                                                           metric="map", **FAST)
    assert_array_equal(differences.differences, 0.0)
    with pytest.raises(ValueError, match="response_method must be"):
        MetricAtKDisplay.from_estimator(model, X, relevant, qid=qid, response_method="bogus")


# --------------------------------------------------------------------------------------
# PerQueryDifferenceDisplay
# --------------------------------------------------------------------------------------


def drawn_differences(display):
    """The bar heights, in the order of their x positions."""
    bars = [bar for container in display.bars_ for bar in container]
    x = np.array([bar.get_x() + bar.get_width() / 2 for bar in bars])
    heights = np.array([bar.get_height() for bar in bars])
    return x[np.argsort(x)], heights[np.argsort(x)]


@pytest.mark.parametrize("metric", ["ndcg@10", "map", "err@5", "kendall_tau"])
def test_differences_are_the_per_query_differences(plt, data, metric):
    _, y, qid, score_a, score_b = data
    display = PerQueryDifferenceDisplay.from_predictions(
        y, score_a, score_b, qid=qid, metric=metric, ci_method="percentile", **FAST)
    a = evaluate(y, score_a, qid=qid, metrics=[metric], return_per_query=True)[metric]
    b = evaluate(y, score_b, qid=qid, metrics=[metric], return_per_query=True)[metric]
    by_query = dict(zip(np.unique(qid).tolist(), a - b))
    assert sorted(display.query_ids.tolist()) == sorted(by_query)
    assert [by_query[q] for q in display.query_ids.tolist()] == display.differences.tolist()
    assert np.all(np.diff(display.differences) <= 0)
    assert display.mean_difference == np.mean(a - b)
    ci = bootstrap_ci(a, b, method="percentile", **FAST).confidence_interval
    assert display.confidence_interval == tuple(ci)
    assert display.pvalue == paired_test(a, b).pvalue
    # the bars of queries that differ, at positions 1..n; ties have no visible height
    x, heights = drawn_differences(display)
    moved = display.differences != 0
    assert_array_equal(x, np.arange(1, len(a) + 1)[moved])
    assert_array_equal(heights, display.differences[moved])
    assert display.mean_line_.get_ydata()[0] == display.mean_difference
    low, high = band_bounds(display.band_)
    assert_array_equal(low, [ci.low, ci.low])
    assert_array_equal(high, [ci.high, ci.high])
    assert display.ax_.get_ylabel() == f"{metric} difference"


def test_differences_legend_counts_the_wins(plt):
    y = [1, 0, 1, 0, 1, 0, 1, 0]
    qid = [1, 1, 2, 2, 3, 3, 4, 4]
    a = [0.9, 0.1, 0.9, 0.1, 0.9, 0.1, 0.2, 0.8]  # right on queries 1-3, wrong on 4
    b = [0.1, 0.9, 0.9, 0.1, 0.2, 0.8, 0.2, 0.8]  # right on query 2 only
    display = PerQueryDifferenceDisplay.from_predictions(
        y, a, b, qid=qid, metric="rr", names=("new", "old"), test="permutation", **FAST)
    assert display.differences.tolist() == [0.5, 0.5, 0.0, 0.0]
    assert display.query_ids.tolist() == [1, 3, 2, 4]
    texts = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert "new better on 2 queries" in texts
    assert "old better on 0 queries" in texts
    assert any(t.startswith("mean difference +0.2500 (randomization p = ") for t in texts)
    assert "2 tied" in display.ax_.get_xlabel()
    assert display.test_result_.test == "permutation"


def test_differences_from_estimator_equals_from_predictions(plt, models):
    a, b, X, y, qid = models
    by_models = PerQueryDifferenceDisplay.from_estimator(a, b, X, y, qid=qid, **FAST)
    by_scores = PerQueryDifferenceDisplay.from_predictions(
        y, a.predict(X), b.predict(X), qid=qid, **FAST)
    assert by_models.names == ("Ridge (A)", "Ridge (B)")
    assert_array_equal(by_models.differences, by_scores.differences)
    assert_array_equal(by_models.query_ids, by_scores.query_ids)
    assert by_models.confidence_interval == by_scores.confidence_interval


def test_differences_from_cv_results_align_by_query(plt, data):
    X, y, qid, _, _ = data
    cv = QueryKFold(3, shuffle=True, random_state=0)
    scoring = ["ndcg@10", "map"]
    a = cross_validate(Ridge(alpha=1.0), X, y, qid=qid, cv=cv, scoring=scoring,
                       return_per_query=True)
    b = cross_validate(Ridge(alpha=1.0), X[:, :3], y, qid=qid, cv=cv, scoring=scoring,
                       return_per_query=True)
    display = PerQueryDifferenceDisplay.from_cv_results(a, b, metric="map", **FAST)
    value_a = dict(zip(a["per_query"].query_ids.tolist(), a["per_query"]["map"]))
    value_b = dict(zip(b["per_query"].query_ids.tolist(), b["per_query"]["map"]))
    expected = [value_a[q] - value_b[q] for q in display.query_ids.tolist()]
    assert display.differences.tolist() == expected
    assert len(expected) == len(np.unique(qid))
    # the t-test's own interval, Student's t (ci_method="auto"), as its legend says
    ci = paired_test(a, b, metric="map", ci_method="t").confidence_interval
    assert display.confidence_interval == tuple(ci)
    assert display.ci_method == "t"
    assert display.band_.get_label().startswith("95% Student's t CI of the mean")
    assert display.metric == "map"


def test_differences_from_cv_results_with_one_metric(plt, data):
    X, y, qid, _, _ = data
    a = cross_validate(Ridge(), X, y, qid=qid, cv=3, scoring="ndcg@5", return_per_query=True)
    b = cross_validate(Ridge(alpha=1e4), X, y, qid=qid, cv=3, scoring="ndcg@5",
                       return_per_query=True)
    display = PerQueryDifferenceDisplay.from_cv_results(a, b, **FAST)
    assert display.metric == "ndcg@5"


def test_differences_band_is_the_interval_of_the_test_in_the_legend(plt, data):
    """Issue 18, item 5: the band beside the t-test's p-value is the t-test's interval."""
    _, y, qid, score_a, score_b = data
    display = PerQueryDifferenceDisplay.from_predictions(y, score_a, score_b, qid=qid, **FAST)
    d = display.test_result_.differences
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert display.confidence_interval == (ci.low, ci.high)
    assert (ci.low > 0 or ci.high < 0) == (display.pvalue < 0.05)
    labels = [display.mean_line_.get_label(), display.band_.get_label()]
    assert "paired t-test p = " in labels[0] and "Student's t CI" in labels[1]
    # another method when asked for, named as such beside the test
    bca = PerQueryDifferenceDisplay.from_predictions(y, score_a, score_b, qid=qid,
                                                     ci_method="BCa", **FAST)
    assert bca.confidence_interval == tuple(bootstrap_ci(
        display.test_result_.differences, **FAST).confidence_interval)
    assert bca.band_.get_label().startswith("95% BCa bootstrap CI of the mean")
    # the randomization test gets a bootstrap interval
    permutation = PerQueryDifferenceDisplay.from_predictions(
        y, score_a, score_b, qid=qid, test="permutation", **FAST)
    assert permutation.ci_method == "BCa"


def test_differences_from_per_query_results_pair_by_query_id(plt, data):
    """PerQueryResult and frames indexed by qid are paired by query id, never by position."""
    pd = pytest.importorskip("pandas")
    _, y, qid, score_a, score_b = data
    a = evaluate_per_query(y, score_a, qid=qid, metrics=["ndcg@10"])
    b = evaluate_per_query(y, score_b, qid=qid, metrics=["ndcg@10"])
    expected = PerQueryDifferenceDisplay.from_predictions(y, score_a, score_b, qid=qid,
                                                          **FAST)
    reversed_b = b.to_frame().iloc[::-1]
    for inputs in [(a, b), (a.to_frame(), reversed_b)]:
        display = PerQueryDifferenceDisplay.from_cv_results(*inputs, **FAST)
        assert display.differences.tolist() == expected.differences.tolist()
        assert display.query_ids.tolist() == expected.query_ids.tolist()
        assert display.pvalue == expected.pvalue
    shifted = evaluate_per_query(y, score_b, qid=qid + 1, metrics=["ndcg@10"])
    with pytest.raises(ValueError, match=r"1 only in 'a' \(0\) and 1 only in 'b' \(60\)"):
        PerQueryDifferenceDisplay.from_cv_results(a.to_frame(), shifted.to_frame(), **FAST)
    with pytest.raises(ValueError, match=r"system 'a' comes with query ids and system 'b' "
                                         r"without"):
        PerQueryDifferenceDisplay.from_cv_results(
            a, pd.DataFrame({"ndcg@10": b["ndcg@10"]}), **FAST)


# --------------------------------------------------------------------------------------
# ParameterSearchDisplay
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def search(data):
    """A fitted grid search of Ridge over alpha and fit_intercept, with two metrics."""
    X, y, qid, _, _ = data
    grid = {"alpha": [0.1, 10.0, 1000.0], "fit_intercept": [True, False]}
    scoring = {"ndcg@10": get_scorer("ndcg@10"), "map": get_scorer("map")}
    search = GridSearchCV(Ridge(), grid, scoring=scoring, refit=False, cv=QueryKFold(3))
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, qid=qid)
    return search


@pytest.mark.parametrize("metric", ["ndcg@10", "map"])
def test_search_lines_are_the_cv_results(plt, search, metric):
    results = search.cv_results_
    display = ParameterSearchDisplay.from_cv_results(results, "alpha", metric=metric)
    assert_array_equal(display.param_values, [0.1, 10.0, 1000.0])
    assert display.labels == ["fit_intercept=True", "fit_intercept=False"]
    assert len(display.lines_) == 2
    for line, intercept in zip(display.lines_, [True, False]):
        rows = [i for i, p in enumerate(results["params"]) if p["fit_intercept"] is intercept]
        rows.sort(key=lambda i: results["params"][i]["alpha"])
        assert_array_equal(line.get_xdata(), [0.1, 10.0, 1000.0])
        assert_array_equal(line.get_ydata(), results[f"mean_test_{metric}"][rows])
        j = display.lines_.index(line)
        for s in range(3):
            assert_array_equal(display.fold_scores[j, :, s],
                               results[f"split{s}_test_{metric}"][rows])
        low, high = band_bounds(display.bands_[j])
        mean, std = results[f"mean_test_{metric}"][rows], results[f"std_test_{metric}"][rows]
        assert_array_equal(low, mean - std)
        assert_array_equal(high, mean + std)
        folds = display.folds_[j].get_offsets()
        assert_array_equal(np.sort(folds[:, 1]),
                           np.sort(display.fold_scores[j].ravel()))
    best = np.argmax(results[f"mean_test_{metric}"])
    assert display.best_.get_ydata()[0] == results[f"mean_test_{metric}"][best]
    assert display.ax_.get_xscale() == "log"
    assert display.ax_.get_xlabel() == "alpha"
    assert display.ax_.get_ylabel() == f"{metric} (mean \N{PLUS-MINUS SIGN} std over 3 folds)"


def test_search_fixed_and_minmax(plt, search):
    results = search.cv_results_
    display = ParameterSearchDisplay.from_cv_results(
        search, "alpha", metric="map", fixed={"fit_intercept": False}, spread="minmax",
        show_folds=False)
    rows = [i for i, p in enumerate(results["params"]) if not p["fit_intercept"]]
    assert display.labels is None and len(display.lines_) == 1
    assert display.ax_.get_legend() is None
    best = max(rows, key=lambda i: results["mean_test_map"][i])
    assert display.ax_.get_title() == (
        f"\N{BLACK STAR} best mean {results['mean_test_map'][best]:.4f}, at "
        f"alpha={results['params'][best]['alpha']:g} (fit_intercept=False)")
    assert [t.get_text() for t in display.ax_.get_xticklabels()] == ["0.1", "10", "1000"]
    assert_array_equal(display.lines_[0].get_ydata(), results["mean_test_map"][rows])
    folds = np.column_stack([results[f"split{s}_test_map"][rows] for s in range(3)])
    low, high = band_bounds(display.bands_[0])
    assert_array_equal(low, folds.min(axis=1))
    assert_array_equal(high, folds.max(axis=1))
    assert display.folds_ == []


def test_search_categorical_parameter(plt, search):
    display = ParameterSearchDisplay.from_cv_results(search, "fit_intercept",
                                                     metric="ndcg@10", spread=None)
    assert display.param_values.tolist() == [True, False]
    assert [t.get_text() for t in display.ax_.get_xticklabels()] == ["True", "False"]
    assert display.labels == ["alpha=0.1", "alpha=10", "alpha=1000"]
    assert display.bands_ == []


def _results(params, n_splits=2, seed=0):
    """A cv_results_-like dict over the given candidates, with one scorer."""
    rng = np.random.default_rng(seed)
    folds = rng.uniform(0.3, 0.7, size=(n_splits, len(params)))
    results = {"params": params,
               "mean_test_score": folds.mean(axis=0), "std_test_score": folds.std(axis=0)}
    for s in range(n_splits):
        results[f"split{s}_test_score"] = folds[s]
    for name in {n for p in params for n in p}:
        results[f"param_{name}"] = np.ma.masked_array(
            [p.get(name) for p in params], mask=[name not in p for p in params], dtype=object)
    return results


def test_search_list_of_grids_and_unset_parameters(plt):
    # GridSearchCV over [{"model__depth": [...]}, {"model__depth": [...], "extra": [...]}]
    params = [{"depth": 2}, {"depth": 4}, {"depth": 8},
              {"depth": 2, "extra": "x"}, {"depth": 8, "extra": "x"}, {"other": 1}]
    results = _results(params)
    display = ParameterSearchDisplay.from_cv_results(results, "depth")
    assert display.param_values.tolist() == [2, 4, 8]
    assert display.labels == ["extra unset", "extra=x"]
    assert_array_equal(display.lines_[0].get_ydata(), results["mean_test_score"][:3])
    assert_array_equal(display.lines_[1].get_xdata(), [2, 8])
    assert_array_equal(display.lines_[1].get_ydata(), results["mean_test_score"][3:5])
    assert np.isnan(display.mean_scores[1, 1])
    assert display.ax_.get_xscale() == "log"  # 2, 4, 8: evenly spaced on a log scale


def test_search_halving_shows_each_candidate_last_iteration(plt):
    params = [{"a": 1}, {"a": 2}, {"a": 3}, {"a": 2}, {"a": 3}, {"a": 3}]
    results = {**_results(params), "iter": np.array([0, 0, 0, 1, 1, 2])}
    display = ParameterSearchDisplay.from_cv_results(results, "a")
    assert_array_equal(display.mean_scores[0], results["mean_test_score"][[0, 3, 5]])


def test_search_scale_and_categories(plt):
    linear = ParameterSearchDisplay.from_cv_results(
        _results([{"n": 100}, {"n": 200}, {"n": 300}]), "n")
    assert linear.ax_.get_xscale() == "linear"
    mixed = ParameterSearchDisplay.from_cv_results(
        _results([{"depth": 3}, {"depth": None}, {"depth": 6}]), "depth")
    assert mixed.param_values.tolist() == [3, None, 6]
    assert [t.get_text() for t in mixed.ax_.get_xticklabels()] == ["3", "None", "6"]


# --------------------------------------------------------------------------------------
# Errors, PNGs, matplotlib as an optional dependency, docstring examples
# --------------------------------------------------------------------------------------

Y = [2, 1, 0, 0, 1, 0]
S = [0.4, 0.3, 0.2, 0.1, 0.5, 0.6]
Q = [1, 1, 1, 2, 2, 2]
at_k = MetricAtKDisplay.from_predictions
diff = PerQueryDifferenceDisplay.from_predictions
search_plot = ParameterSearchDisplay.from_cv_results
RESULTS = _results([{"alpha": a, "ridge__fit_intercept": b}
                    for a in (0.1, 1.0) for b in (True, False)])

# (function, args, kwargs, exception, regex the message must match)
CASES = [
    (at_k, (Y, S[:5]), {"qid": Q}, ValueError, r"lengths differ"),
    (at_k, (Y, S), {}, ValueError,
     r"MetricAtKDisplay\.from_predictions needs the query id of every row.*qid='single_query'"),
    (at_k, (Y, S), {"qid": Q[:4]}, ValueError, r"got 4 ids for 6 rows"),
    (at_k, (Y, S), {"qid": Q, "metric": "ndgc"}, ValueError,
     r"Unknown metric name 'ndgc'. Did you mean 'ndcg'"),
    (at_k, (Y, S), {"qid": Q, "metric": "kendall_tau"}, ValueError,
     r"The metric 'kendall_tau' takes no cut-off k.*Metrics with a cut-off: dcg, err"),
    (at_k, (Y, S), {"qid": Q, "metric": "rprec"}, ValueError, r"takes no cut-off k"),
    (at_k, (Y, S), {"qid": Q, "metric": "ndcg@10"}, ValueError,
     r"metric='ndcg@10' fixes the cut-off.*metric='ndcg'"),
    (at_k, (Y, S), {"qid": Q, "ks": []}, ValueError, r"ks must hold at least one cut-off"),
    (at_k, (Y, S), {"qid": Q, "ks": [0, 1]}, ValueError, r"cut-offs of at least 1; got 0"),
    (at_k, (Y, S), {"qid": Q, "ks": [1.5, 2]}, TypeError, r"ks must hold integers"),
    (at_k, (Y, S), {"qid": Q, "ks": None}, TypeError, r"ks must be an int or an iterable"),
    (at_k, (Y, S), {"qid": Q, "confidence_level": 95}, InvalidParameterError,
     r"'confidence_level' parameter of MetricAtKDisplay.from_predictions"),
    (at_k, (Y, S), {"qid": Q, "ci_method": "t"}, InvalidParameterError, r"'ci_method'"),
    (at_k, (Y, S), {"qid": Q, "sample_weight": np.ones(6)}, TypeError,
     r"does not take sample_weight"),
    (at_k, (Y, S), {"qid": Q, "persistence": 0.5}, TypeError,
     r"got option\(s\) \['persistence'\] that none of the metrics"),
    (diff, (Y, S, S[:5]), {"qid": Q}, ValueError, r"lengths differ"),
    (diff, (Y, S, S), {"qid": Q, "metric": "nope@3"}, ValueError, r"Unknown metric name"),
    (diff, (Y, S, S), {"qid": Q, "metric": ["ndcg@3"]}, TypeError, r"one metric name"),
    (diff, (Y, S, S), {"qid": Q, "names": ("A",)}, ValueError, r"names must be a pair"),
    (diff, (Y, S, S), {"qid": "single_query"}, ValueError, r"at least 2 queries"),
    (diff, (Y, S, S), {}, ValueError,
     r"PerQueryDifferenceDisplay\.from_predictions needs the query id of every row"),
    (diff, (Y, S, S), {"qid": Q, "test": "z"}, InvalidParameterError, r"'test' parameter"),
    (PerQueryDifferenceDisplay.from_cv_results,
     ({"per_query": {"qid": [1, 2, 3], "map": [0.1, 0.2, 0.3], "ndcg": [0, 1, 0]}},
      {"per_query": {"qid": [1, 2, 3], "map": [0.2, 0.2, 0.3], "ndcg": [1, 1, 0]}}), {},
     ValueError, r"several metrics \(\['map', 'ndcg'\]\); choose one with metric="),
    (PerQueryDifferenceDisplay.from_cv_results,
     ({"per_query": {"qid": [1, 2, 3], "map": [0.1, 0.2, 0.3]}},
      {"per_query": {"qid": [1, 2, 4], "map": [0.2, 0.2, 0.3]}}), {},
     ValueError, r"not evaluated on the same queries"),
    (PerQueryDifferenceDisplay.from_cv_results, ({"test_map": [0.1]}, {"test_map": [0.2]}),
     {}, ValueError, r"without per-query values.*return_per_query=True"),
    (search_plot, (RESULTS, "gamma"), {}, ValueError,
     r"param 'gamma' is not a parameter of the search.*'alpha', 'ridge__fit_intercept'"),
    (search_plot, (RESULTS, "fit_intercept"), {}, ValueError,
     r"Did you mean 'ridge__fit_intercept'\?"),
    (search_plot, (RESULTS, "alpha"), {"metric": "ndcg@10"}, ValueError,
     r"metric 'ndcg@10' is not in cv_results_ .*its test metrics are 'score'"),
    (search_plot, (RESULTS, "alpha"), {"fixed": {"beta": 1}}, ValueError,
     r"fixed names 'beta' is not a parameter"),
    (search_plot, (RESULTS, "alpha"), {"fixed": {"alpha": 1}}, ValueError,
     r"cannot be fixed too"),
    (search_plot, (RESULTS, "alpha"), {"fixed": {"ridge__fit_intercept": 3}}, ValueError,
     r"No candidate of the search has the parameter 'alpha' with"),
    (search_plot, (RESULTS, "alpha"), {"max_lines": 1}, ValueError,
     r"take 2 combinations.*max_lines=1.*fixed=\{'ridge__fit_intercept': True\}"),
    (search_plot, ([1, 2], "alpha"), {}, TypeError, r"cv_results_ dict of a fitted"),
    (search_plot, (RESULTS, "alpha"), {"spread": "iqr"}, InvalidParameterError,
     r"'spread' parameter"),
    (search_plot, (_results([{"a": 1}, {"a": 1}]), "a"), {}, ValueError,
     r"Two candidates of the search have the same parameters"),
]


@pytest.mark.parametrize(
    "function, args, kwargs, exception, message", CASES,
    ids=[f"{c[0].__qualname__}-{i}" for i, c in enumerate(CASES)],
)
def test_errors(plt, function, args, kwargs, exception, message):
    with pytest.raises(exception, match=message):
        function(*args, **kwargs)


def test_too_many_lines_is_an_error_with_its_parameter(plt):
    """A caller (``sklearn-rank tune --plot``) falls back to ``fixed=`` on this error by its
    attribute, without reading the message."""
    with pytest.raises(ValueError) as caught:
        search_plot(RESULTS, "alpha", max_lines=1)
    assert caught.value.parameter == "max_lines"
    with pytest.raises(ValueError) as caught:
        search_plot(RESULTS, "gamma")
    assert getattr(caught.value, "parameter", None) is None


def test_plot_without_the_data_it_needs(plt):
    display = ParameterSearchDisplay(np.array([1, 2]), np.array([[0.5, 0.6]]), param="a")
    with pytest.raises(ValueError, match="spread='std' needs std_scores"):
        display.plot()
    display.plot(spread=None, show_folds=False)
    assert_array_equal(display.lines_[0].get_ydata(), [0.5, 0.6])


@pytest.mark.parametrize(
    "values, labelled",
    [([0.05, 0.1, 0.15, 0.2], True),  # a grid: each value is a tick, as the search has it
     ([0.0646, 0.0777, 0.2, 0.25], False)],  # random draws close together: automatic ticks
)
def test_search_labels_each_value_only_when_labels_cannot_overlap(plt, values, labelled):
    display = ParameterSearchDisplay(np.array(values), np.array([[0.5, 0.6, 0.7, 0.6]]),
                                     param="learning_rate")
    display.plot(spread=None, show_folds=False, xscale="linear")
    ticks = list(display.ax_.get_xticks())
    assert (ticks == values) is labelled


def test_every_display_saves_a_png(plt, data, search, tmp_path):
    _, y, qid, score_a, score_b = data
    first = MetricAtKDisplay.from_predictions(y, score_a, qid=qid, name="A",
                                              confidence_level=0.95, **FAST)
    MetricAtKDisplay.from_predictions(y, score_b, qid=qid, name="B", ax=first.ax_,
                                      confidence_level=0.95, **FAST)
    displays = {
        "metric_at_k": first,
        "differences": PerQueryDifferenceDisplay.from_predictions(
            y, score_a, score_b, qid=qid, names=("A", "B"), **FAST),
        "search": ParameterSearchDisplay.from_cv_results(search, "alpha", metric="ndcg@10"),
    }
    for name, display in displays.items():
        path = tmp_path / f"{name}.png"
        display.figure_.savefig(path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plotting_without_matplotlib_names_the_extra(monkeypatch, data):
    _, y, qid, score, _ = data
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    message = re.escape('pip install "sklearn-rank[plot]"')
    with pytest.raises(ImportError, match=message):
        MetricAtKDisplay.from_predictions(y, score, qid=qid)
    with pytest.raises(ImportError, match=message):
        PerQueryDifferenceDisplay.from_predictions(y, score, score, qid=qid)
    with pytest.raises(ImportError, match=message):
        ParameterSearchDisplay.from_cv_results(RESULTS, "alpha")
    with pytest.raises(ImportError, match=r"MetricAtKDisplay.plot needs .*matplotlib"):
        MetricAtKDisplay([1], [0.5], metric="ndcg@k").plot()


def test_importing_the_plot_package_does_not_import_matplotlib():
    code = ("import sys; import sklearn_rank.plot; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("module", ["_cutoff", "_differences", "_search"])
def test_docstring_examples(plt, module):
    """The Examples sections run headless and print what they say."""
    import importlib

    mod = importlib.import_module(f"sklearn_rank.plot.{module}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_from_estimator_refuses_a_model_fitted_on_the_query_ids(plt, data):
    pd = pytest.importorskip("pandas")
    X, y, qid, _, _ = data
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).assign(qid=qid)
    model = Ridge().fit(frame, y)  # the query ids as a feature: no DropQueryId
    with pytest.raises(ValueError, match="MetricAtKDisplay.from_estimator: X has a query-id "
                                         "column 'qid', and the model was fitted with"):
        MetricAtKDisplay.from_estimator(model, frame, y, ks=5)
    with pytest.raises(ValueError, match="the model was fitted with that column"):
        get_scorer("ndcg@10")(model, frame, y)
