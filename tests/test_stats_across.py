"""sklearn_rank.stats across data sets and seeds: compare_datasets and seed_summary.

Every statistic is checked against an independent reference on the same numbers:
Friedman's test against scipy.stats.friedmanchisquare, the post-hoc Wilcoxon and sign tests
against scipy.stats.wilcoxon and binomtest with Holm's correction written out here,
Nemenyi's critical difference against Demšar's (2006) table and worked example, the groups
against maximal cliques found by brute force, the seed spreads against numpy on the raw
values.
"""

import base64
import itertools
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.stats import (
    AcrossDatasetsResult,
    SeedSummary,
    compare_datasets,
    query_set_size,
    seed_summary,
)

# Demšar (2006), table 5(a) and 5(b): q_alpha of the two-tailed Nemenyi test, k = 2..10.
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]

# Ranks of 4 models on 14 data sets with the average ranks of Demšar's (2006) worked example
# (section 3.2.4: C4.5, C4.5+m, C4.5+cf, C4.5+m+cf): 3.143, 2.000, 2.893, 1.964.
DEMSAR_RANKS = np.array([
    [3, 4, 2, 1], [4, 1, 3, 2], [3, 4, 2, 1], [2, 3, 4, 1], [4, 3, 2, 1], [4, 1, 3, 2],
    [4, 1, 2, 3], [4, 2, 3, 1], [1, 2, 3, 4], [3, 1, 4, 2], [4, 1, 2, 3], [4, 2, 3, 1],
    [3, 1, 4, 2], [1, 2, 3.5, 3.5],
])


def random_scores(seed, n_datasets=8, n_models=4, ties=False):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 0.02, n_models)
    base = rng.uniform(0.3, 0.8, (n_datasets, 1))
    scores = base + skill + rng.normal(0, 0.02, (n_datasets, n_models))
    if ties:
        scores = np.round(scores, 2)
    return {f"ds_{d}": {f"model_{m}": float(scores[d, m]) for m in range(n_models)}
            for d in range(n_datasets)}


def matrix_of(scores):
    return np.array([list(row.values()) for row in scores.values()])


def holm(pvalues):
    """Holm's step-down correction, written out plainly."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    order = np.argsort(p)
    adjusted = np.empty(m)
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, (m - step) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def brute_force_groups(significant, names):
    """Maximal sets of 2 or more models with no significant pair, by enumeration."""
    k = len(names)
    cliques = [set(c) for size in range(2, k + 1) for c in itertools.combinations(range(k), size)
               if not any(significant[i, j] for i, j in itertools.combinations(c, 2))]
    maximal = [c for c in cliques if not any(c < other for other in cliques)]
    return sorted(tuple(sorted(names[i] for i in c)) for c in maximal)


# --------------------------------------------------------------------------------------
# Friedman
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [False, True])
def test_friedman_agrees_with_scipy(seed, ties):
    scores = random_scores(seed, ties=ties)
    result = compare_datasets(scores, posthoc="sign")
    reference = stats.friedmanchisquare(*matrix_of(scores).T)
    assert_allclose(result.friedman.statistic, reference.statistic, rtol=1e-12)
    assert_allclose(result.friedman.pvalue, reference.pvalue, rtol=1e-12)


def test_iman_davenport_and_ranks_by_hand():
    scores = random_scores(7, n_datasets=10, n_models=5, ties=True)
    m = matrix_of(scores)
    result = compare_datasets(scores, posthoc="sign")
    ranks = np.array([stats.rankdata(-row) for row in m])  # 1 = highest, ties averaged
    assert_array_equal(result.ranks, ranks)
    assert_allclose(result.average_ranks, ranks.mean(axis=0))
    n, k = m.shape
    chi2 = stats.friedmanchisquare(*m.T).statistic
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert_allclose(result.friedman.iman_davenport_statistic, f, rtol=1e-12)
    assert_allclose(result.friedman.iman_davenport_pvalue,
                    stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rtol=1e-12)


def test_lower_is_better_reverses_the_ranks():
    scores = random_scores(1)
    up = compare_datasets(scores)
    down = compare_datasets(scores, higher_is_better=False)
    assert_allclose(up.ranks + down.ranks, up.ranks.shape[1] + 1)


def test_friedman_smallest_pvalue_is_perfect_concordance():
    # every data set ranks the 3 models alike: chi2 = N (k - 1), the largest it can be
    scores = {f"d{i}": {"a": 0.9, "b": 0.5, "c": 0.1} for i in range(2)}
    result = compare_datasets(scores)
    assert_allclose(result.friedman.pvalue, result.friedman.smallest_pvalue)
    assert result.friedman.smallest_pvalue == pytest.approx(stats.chi2.sf(4, 2))
    assert result.friedman.smallest_pvalue > 0.05
    text = result.to_string().replace("\n", " ")
    assert "Friedman: with 2 data sets and 3 models, the chi-square test cannot reach" in text
    # with one more data set it can
    scores["d2"] = scores["d0"]
    assert compare_datasets(scores).friedman.smallest_pvalue < 0.05


def test_friedman_all_tied_is_no_difference():
    scores = {f"d{i}": {"a": 0.5, "b": 0.5, "c": 0.5} for i in range(6)}
    result = compare_datasets(scores)
    assert (result.friedman.statistic, result.friedman.pvalue) == (0.0, 1.0)
    assert all(p.pvalue == 1.0 for p in result.pairs)


def test_two_models_have_no_friedman():
    scores = {f"d{i}": {"a": 0.5 + i / 100, "b": 0.4} for i in range(7)}
    result = compare_datasets(scores)
    assert result.friedman is None
    assert "Friedman: not run with 2 models" in result.to_string()
    assert_allclose(result.pairs[0].pvalue, stats.wilcoxon(
        [0.5 + i / 100 for i in range(7)], [0.4] * 7).pvalue)


# --------------------------------------------------------------------------------------
# Post-hoc tests
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed, n_datasets, ties", [(0, 12, False), (1, 60, False),
                                                     (2, 9, True)])
def test_wilcoxon_posthoc_agrees_with_scipy_and_holm(seed, n_datasets, ties):
    # scipy's test is exact (no ties, up to 50 data sets), a permutation test (ties), or
    # the normal approximation (more than 50)
    scores = random_scores(seed, n_datasets=n_datasets, ties=ties)
    m = matrix_of(scores)
    result = compare_datasets(scores, posthoc="wilcoxon")
    pairs = list(itertools.combinations(range(m.shape[1]), 2))
    raw = []
    for (i, j), test in zip(pairs, result.pairs):
        d = m[:, i] - m[:, j]
        p = 1.0 if not d.any() else stats.wilcoxon(m[:, i], m[:, j]).pvalue
        raw.append(p)
        assert_allclose(test.pvalue, p, rtol=1e-12)
    assert_allclose([t.pvalue_corrected for t in result.pairs], holm(raw), rtol=1e-12)
    assert [t.significant for t in result.pairs] == list(holm(raw) <= 0.05)


def test_sign_posthoc_agrees_with_binomtest():
    scores = random_scores(3, n_datasets=15, ties=True)
    m = matrix_of(scores)
    result = compare_datasets(scores, posthoc="sign", correction="bonferroni")
    for (i, j), test in zip(itertools.combinations(range(m.shape[1]), 2), result.pairs):
        wins, losses = int((m[:, i] > m[:, j]).sum()), int((m[:, i] < m[:, j]).sum())
        p = stats.binomtest(wins, wins + losses).pvalue
        assert (test.wins, test.losses, test.ties) == (wins, losses, 15 - wins - losses)
        assert_allclose(test.pvalue, p, rtol=1e-12)
        assert_allclose(test.pvalue_corrected, min(1.0, 6 * p), rtol=1e-12)


@pytest.mark.parametrize("k", range(2, 11))
def test_nemenyi_q_matches_demsar_table(k):
    from sklearn_rank.stats._across import studentized_range_q

    assert studentized_range_q(k, 0.05) == pytest.approx(DEMSAR_Q05[k - 2], abs=1e-3)
    assert studentized_range_q(k, 0.10) == pytest.approx(DEMSAR_Q10[k - 2], abs=1e-3)


def test_nemenyi_demsar_worked_example():
    """Demšar (2006) 3.2.4: CD = 1.25 at 0.05 and 1.12 at 0.10; C4.5+m+cf beats C4.5 only
    at 0.10 (3.143 - 1.964 = 1.179)."""
    names = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
    scores = {f"data_{i}": dict(zip(names, 5.0 - row)) for i, row in enumerate(DEMSAR_RANKS)}
    r05 = compare_datasets(scores, posthoc="nemenyi", alpha=0.05)
    r10 = compare_datasets(scores, posthoc="nemenyi", alpha=0.10)
    assert_allclose(r05.average_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert round(r05.critical_difference, 2) == 1.25
    assert round(r10.critical_difference, 2) == 1.12
    assert r05.correction is None
    assert not r05.significant[0, 3] and r10.significant[0, 3]
    # the verdict is the rank difference against CD
    diff = np.abs(r10.average_ranks[:, None] - r10.average_ranks[None, :])
    assert_array_equal(r10.significant, diff > r10.critical_difference)
    assert "critical difference CD = 2.291" in r10.to_string().replace("\n", " ")


def test_nemenyi_refuses_a_second_correction():
    with pytest.raises(ValueError, match="Nemenyi's studentized range already accounts"):
        compare_datasets(random_scores(0), posthoc="nemenyi", correction="holm")


# --------------------------------------------------------------------------------------
# Too few data sets
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_smallest_wilcoxon_pvalue_by_enumeration(n):
    """The smallest p-value scipy's Wilcoxon gives over every sign pattern of n data sets."""
    from sklearn_rank.stats._across import smallest_pvalue

    magnitudes = np.arange(1.0, n + 1)
    best = min(stats.wilcoxon(magnitudes * np.array(signs)).pvalue
               for signs in itertools.product([-1, 1], repeat=n))
    assert smallest_pvalue("wilcoxon", n) == pytest.approx(best)
    assert smallest_pvalue("wilcoxon", n) == pytest.approx(2 / 2 ** n)
    assert smallest_pvalue("sign", n) == pytest.approx(2 / 2 ** n)


def test_five_data_sets_cannot_reach_significance():
    scores = {f"d{i}": {"a": 0.6 + i / 50, "b": 0.5} for i in range(5)}
    result = compare_datasets(scores)
    assert result.smallest_pvalue == pytest.approx(0.0625)
    assert not result.posthoc_can_reject
    assert result.datasets_needed == 6
    text = result.to_string().replace("\n", " ")
    assert ("with 5 data sets, the Wilcoxon signed-rank test cannot reach alpha = 0.05" in
            text)
    assert "6 data sets are needed" in text
    # no test line that can never be significant
    assert "Significant" not in text and "No pair differs" not in text
    # one more data set, and the same consistent win is significant
    scores["d5"] = {"a": 0.7, "b": 0.5}
    result = compare_datasets(scores)
    assert result.posthoc_can_reject and result.pairs[0].significant
    assert "a > b (p = 0.0312)" in result.to_string().replace("\n", " ")


def test_holm_factor_counts_in_the_data_sets_needed():
    from sklearn_rank.stats._across import smallest_pvalue

    for k, alpha in [(3, 0.05), (5, 0.05), (4, 0.1)]:
        scores = random_scores(0, n_datasets=6, n_models=k)
        result = compare_datasets(scores, alpha=alpha)
        m = k * (k - 1) // 2
        n = result.datasets_needed
        assert m * smallest_pvalue("wilcoxon", n) <= alpha
        assert m * smallest_pvalue("wilcoxon", n - 1) > alpha
        assert result.posthoc_can_reject == (n <= 6)


# --------------------------------------------------------------------------------------
# Groups
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("posthoc", ["wilcoxon", "sign", "nemenyi"])
@pytest.mark.parametrize("seed", range(5))
def test_groups_are_the_maximal_non_significant_cliques(posthoc, seed):
    scores = random_scores(seed, n_datasets=14, n_models=6)
    result = compare_datasets(scores, posthoc=posthoc)
    significant = result.pvalues_corrected <= result.alpha
    np.fill_diagonal(significant, False)
    expected = brute_force_groups(significant, result.models)
    assert sorted(tuple(sorted(g)) for g in result.groups) == expected
    for g in result.groups:  # each group in order of average rank
        ranks = [result.average_ranks[result.models.index(m)] for m in g]
        assert ranks == sorted(ranks)


# --------------------------------------------------------------------------------------
# Inputs and tables
# --------------------------------------------------------------------------------------


def test_dataframe_input_equals_mapping():
    pd = pytest.importorskip("pandas")
    scores = random_scores(2)
    frame = pd.DataFrame(scores).T
    a, b = compare_datasets(scores), compare_datasets(frame)
    assert_array_equal(a.ranks, b.ranks)
    assert [p.pvalue for p in a.pairs] == [p.pvalue for p in b.pairs]
    assert list(b.to_frame().index)[-1] == "average rank"
    assert len(b.to_frame("pairs")) == 6


@pytest.mark.parametrize(
    "scores, error, message",
    [
        ({"d1": {"a": 1.0, "b": 0.5}, "d2": {"a": 1.0, "c": 0.5}}, ValueError,
         "data set 'd2' lacks \\['b'\\] and has \\['c'\\]"),
        ({"d1": {"a": 1.0, "b": 0.5}}, ValueError, "at least 2 models and 2 data sets"),
        ({"d1": {"a": 1.0, "b": np.nan}, "d2": {"a": 1.0, "b": 0.5}}, ValueError,
         "model 'b' on data set 'd1' has nan"),
        ({"d1": [1.0, 0.5]}, TypeError, "must be a mapping \\{model: score\\}"),
        ([[1.0, 0.5]], TypeError, "scores must be a mapping"),
    ],
)
def test_bad_scores(scores, error, message):
    with pytest.raises(error, match=message):
        compare_datasets(scores)


def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match="posthoc"):
        compare_datasets(random_scores(0), posthoc="bonferroni-dunn")
    with pytest.raises(InvalidParameterError, match="alpha"):
        compare_datasets(random_scores(0), alpha=1.5)


def test_markdown_and_latex_tables():
    scores = {"web_30k": {"lambda_mart": 0.52, "ridge": 0.45, "xgb": 0.52},
              "yahoo": {"lambda_mart": 0.79, "ridge": 0.74, "xgb": 0.78},
              "ist%ella": {"lambda_mart": 0.71, "ridge": 0.62, "xgb": 0.69}}
    result = compare_datasets(scores)
    md = result.to_markdown()
    assert "| web_30k | **0.520** (1.5) | 0.450 (3) | **0.520** (1.5) |" in md
    assert "| Average rank | **1.17** | 3.00 | 1.83 |" in md
    latex = result.to_latex(caption="nDCG@10 across data sets", label="tab:across")
    assert r"\toprule" in latex and r"\midrule" in latex and r"\bottomrule" in latex
    assert r"web\_30k & \textbf{0.520} (1.5) & 0.450 (3) & \textbf{0.520} (1.5) \\" in latex
    assert r"ist\%ella" in latex
    assert r"Data set & lambda\_mart & ridge & xgb \\" in latex
    assert r"Average rank & \textbf{1.17} & 3.00 & 1.83 \\" in latex
    assert r"\caption{nDCG@10 across data sets}" in latex and r"\label{tab:across}" in latex
    # no underscore of a name escapes the escaping, outside LaTeX commands
    body = re.sub(r"\\[a-z]+\{[^}]*\}", "", latex)
    assert re.search(r"(?<!\\)_", body) is None
    assert latex.startswith(r"\begin{table}") and latex.endswith(r"\end{table}")


def test_power_lines_in_the_tables():
    size = query_set_size(variance=0.04, n_queries=50, delta=0.1)
    result = compare_datasets(random_scores(0), power={"ds_0": size})
    text = result.to_string().replace("\n", " ")
    assert "Queries, ds_0: 34 queries needed to detect a mean difference of 0.1" in text
    assert "Queries, ds_0: 34 queries" in result.to_markdown()


def test_html_fragment_embeds_the_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = compare_datasets({"a<b": {"x&y": 0.5, "z": 0.4}, "c": {"x&y": 0.6, "z": 0.3}})
    fig, ax = plt.subplots()
    fragment = result.to_html(figure=fig)
    plt.close(fig)
    assert fragment.startswith('<section class="across-datasets">')
    assert "<th>a&lt;b</th>" in fragment and "<th>x&amp;y</th>" in fragment
    png = re.search(r'src="data:image/png;base64,([^"]+)"', fragment).group(1)
    assert base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<img" not in result.to_html()


# --------------------------------------------------------------------------------------
# Seeds (item 2)
# --------------------------------------------------------------------------------------


def seeded_values(seed=0, n_queries=30, seeds=(0, 1, 2), models=("lambdamart", "ridge"),
                  datasets=("web30k", "yahoo"), shifts=(0.03, 0.0)):
    rng = np.random.default_rng(seed)
    out, raw = {}, {}
    for d in datasets:
        qid = rng.permutation(np.arange(n_queries)) + 1000
        base = rng.uniform(0.2, 0.8, n_queries)
        for model, shift in zip(models, shifts):
            for s in seeds:
                values = base + shift + rng.normal(0, 0.05, n_queries)
                order = rng.permutation(n_queries)  # rows in any order: paired by qid
                out[(d, model, s)] = {"qid": qid[order], "ndcg@10": values[order],
                                      "map": values[order] / 2}
                raw[(d, model, s)] = dict(zip(qid, values))
    return out, raw


def test_seed_summary_numbers_by_hand():
    values, raw = seeded_values()
    summary = seed_summary(values, metric="ndcg@10")
    assert isinstance(summary, SeedSummary)
    row = next(r for r in summary.rows if (r.dataset, r.model) == ("yahoo", "ridge"))
    ids = sorted(raw[("yahoo", "ridge", 0)])
    per_seed = np.array([[raw[("yahoo", "ridge", s)][q] for q in ids] for s in range(3)])
    assert_allclose(row.seed_means, per_seed.mean(axis=1))
    assert_allclose(row.mean, per_seed.mean())
    assert_allclose(row.seed_std, np.std(per_seed.mean(axis=1), ddof=1))
    assert (row.seed_min, row.seed_max) == (per_seed.mean(axis=1).min(),
                                            per_seed.mean(axis=1).max())
    # the query-level interval: Student's t over the per-query means over seeds
    ci = stats.ttest_1samp(per_seed.mean(axis=0), 0).confidence_interval(0.95)
    assert_allclose(row.confidence_interval, (ci.low, ci.high), rtol=1e-12)
    assert (row.n_seeds, row.n_queries) == (3, 30)


def test_seed_paired_test_pairs_query_and_seed_then_averages_over_seeds():
    values, raw = seeded_values(1)
    summary = seed_summary(values)
    assert summary.metrics == ["ndcg@10", "map"]
    result = summary.paired_test("lambdamart", "ridge", dataset="web30k", metric="ndcg@10")
    ids = sorted(raw[("web30k", "ridge", 0)])
    d = np.mean([[raw[("web30k", "lambdamart", s)][q] - raw[("web30k", "ridge", s)][q]
                  for q in ids] for s in range(3)], axis=0)
    reference = stats.ttest_rel(d, np.zeros_like(d))
    assert result.n == 30  # queries, not query x seed pairs
    assert_array_equal(result.ids, ids)
    assert_allclose(result.differences, d, rtol=1e-12)
    assert_allclose(result.pvalue, reference.pvalue, rtol=1e-10)
    wilcoxon = summary.paired_test("lambdamart", "ridge", dataset="web30k", metric="ndcg@10",
                                   test="wilcoxon", n_resamples=99, random_state=0)
    assert_allclose(wilcoxon.pvalue, stats.wilcoxon(d).pvalue, rtol=1e-12)


def test_seed_summary_feeds_compare_datasets_and_power():
    values, _ = seeded_values(2, datasets=("a", "b", "c", "d", "e", "f"))
    summary = seed_summary(values)
    result = compare_datasets(summary, metric="ndcg@10")
    assert isinstance(result, AcrossDatasetsResult)
    expected = {r.dataset: r.mean for r in summary.rows
                if r.model == "ridge" and r.metric == "ndcg@10"}
    assert_allclose(result.scores[:, 1], [expected[d] for d in result.datasets])
    with pytest.raises(ValueError, match="several metrics"):
        compare_datasets(summary)
    size = summary.query_set_size("lambdamart", "ridge", dataset="a", metric="map",
                                  delta=0.01)
    _, x = summary.per_query_means("lambdamart", dataset="a", metric="map")
    _, y = summary.per_query_means("ridge", dataset="a", metric="map")
    assert_allclose(size.variance, np.var(x - y, ddof=1))
    assert size.n_queries == 30


def test_seed_summary_long_frame_equals_mapping():
    pd = pytest.importorskip("pandas")
    values, _ = seeded_values(3)
    frame = pd.concat([pd.DataFrame({"dataset": d, "model": m, "seed": s, **cols})
                       for (d, m, s), cols in values.items()], ignore_index=True)
    a, b = seed_summary(values), seed_summary(frame)
    assert [(r.dataset, r.model, r.metric, r.mean, r.seed_std) for r in a.rows] == \
        [(r.dataset, r.model, r.metric, r.mean, r.seed_std) for r in b.rows]
    assert list(b.to_frame().columns)[:4] == ["dataset", "model", "metric", "mean"]


def test_seed_summary_tables():
    values, _ = seeded_values(4, seeds=(7,))
    summary = seed_summary(values, metric="ndcg@10")
    text = summary.to_string()
    assert "Seed sd" in text and "95% CI (queries)" in text
    # one seed: no spread to report, shown as a dash, not NaN
    assert summary.rows[0].seed_std is None
    assert "nan" not in text.lower()
    assert r"95\% CI (queries)" in summary.to_latex()
    fragment = summary.to_html()
    assert fragment.startswith('<section class="seed-spread">')
    assert "<th>Seed sd</th>" in fragment and "<td>-</td>" in fragment
    assert summary.to_markdown().startswith("| Data set | Model | Mean |")


def test_seed_summary_incomplete_grid():
    values, _ = seeded_values(5)
    del values[("yahoo", "ridge", 1)]
    with pytest.raises(ValueError, match="missing: model 'ridge' seed 1"):
        seed_summary(values)


def test_seed_summary_different_queries_under_a_seed():
    values, _ = seeded_values(6)
    cols = values[("web30k", "ridge", 2)]
    values[("web30k", "ridge", 2)] = {k: v[1:] for k, v in cols.items()}
    with pytest.raises(ValueError, match="not evaluated on the same queries"):
        seed_summary(values)


def test_seed_summary_bad_keys():
    with pytest.raises(ValueError, match="\\(dataset, model, seed\\) tuples"):
        seed_summary({("web30k", "ridge"): ([1, 2], [0.1, 0.2])})
    with pytest.raises(TypeError, match="non-empty mapping"):
        seed_summary([1, 2, 3])


def test_seed_summary_of_cross_validate_results():
    """Repeated cross-validation with a seed per repeat, as a benchmark runs it."""
    from sklearn.linear_model import Ridge

    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.model_selection import QueryKFold, cross_validate

    values = {}
    for dataset, seed_of_data in [("easy", 0), ("hard", 1)]:
        X, y, qid = make_ranking(n_queries=40, random_state=seed_of_data)
        for seed in range(2):
            cv = QueryKFold(n_splits=4, shuffle=True, random_state=seed)
            for model, columns in [("ridge", slice(None)), ("ridge_first_feature", [0])]:
                values[(dataset, model, seed)] = cross_validate(
                    Ridge(), X[:, columns], y, qid=qid, scoring=["ndcg@10"], cv=cv,
                    return_per_query=True)
    summary = seed_summary(values)
    assert summary.metrics == ["ndcg@10"]
    assert [r.n_queries for r in summary.rows] == [40] * 4
    row = summary.rows[0]
    # each seed's mean is the mean over the 40 queries that its 4 folds tested
    per_query = values[("easy", "ridge", 1)]["per_query"]
    assert_allclose(row.seed_means[1], np.mean(per_query["ndcg@10"]))
    result = compare_datasets(summary)
    assert result.models == ["ridge", "ridge_first_feature"]
