"""sklearn_rank.plot.CriticalDifferenceDisplay: the groups drawn are the groups the tests give.

The diagram is drawn headless (Agg). Its bars are read back from the matplotlib Line2D
objects and compared with the maximal sets of models that no corrected test tells apart,
found here by brute force from the p-values; its model lines start at the average ranks;
Nemenyi's bar is the critical difference.
"""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.utils._param_validation import InvalidParameterError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from sklearn_rank.plot import CriticalDifferenceDisplay  # noqa: E402
from sklearn_rank.stats import compare_datasets  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def scores_of(seed, n_datasets=14, n_models=6):
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.04, -0.04, n_models) + rng.normal(0, 0.01, n_models)
    base = rng.uniform(0.3, 0.8, (n_datasets, 1))
    values = base + skill + rng.normal(0, 0.02, (n_datasets, n_models))
    return {f"data_{d}": {f"model_{m}": float(values[d, m]) for m in range(n_models)}
            for d in range(n_datasets)}


def groups_from_pvalues(result):
    """Maximal sets of 2+ models, no pair of which has a corrected p-value <= alpha."""
    k = len(result.models)
    apart = result.pvalues_corrected <= result.alpha
    sets = [set(c) for size in range(2, k + 1) for c in itertools.combinations(range(k), size)
            if not any(apart[i, j] for i, j in itertools.combinations(c, 2))]
    maximal = [c for c in sets if not any(c < other for other in sets)]
    return sorted(tuple(sorted(result.models[i] for i in c)) for c in maximal)


@pytest.mark.parametrize("method", ["wilcoxon", "sign", "nemenyi"])
@pytest.mark.parametrize("seed", range(6))
def test_groups_drawn_are_the_tests_groups(method, seed):
    display = CriticalDifferenceDisplay.from_scores(scores_of(seed), method=method)
    result = display.result_
    expected = groups_from_pvalues(result)
    assert sorted(tuple(sorted(g)) for g in display.groups_) == expected
    ranks = dict(zip(result.models, result.average_ranks))
    assert len(display.group_lines_) == len(display.group_markers_) == len(expected)
    for members, bar, dots in zip(display.groups_, display.group_lines_,
                                  display.group_markers_):
        member_ranks = sorted(ranks[m] for m in members)
        # the bar spans its members, and a dot marks each of them
        assert_allclose(bar.get_xdata(), [member_ranks[0], member_ranks[-1]])
        assert_allclose(np.sort(dots.get_xdata()), member_ranks)
        assert len(set(bar.get_ydata())) == 1
        assert bar.axes is display.ax_
    # each model's line starts at its average rank on the axis
    for name, line in zip(result.models, display.rank_lines_):
        assert line.get_xdata()[0] == pytest.approx(ranks[name])
        assert line.get_ydata()[0] == 0


def test_a_group_need_not_be_contiguous_in_rank():
    """Wilcoxon's groups do not follow the ranks: a model between two members of a group
    need not belong to it; its rank then carries no dot on that group's bar."""
    for seed in range(200):
        result = compare_datasets(scores_of(seed, n_datasets=10, n_models=5))
        order = list(np.argsort(result.average_ranks, kind="stable"))
        for g in result.groups:
            positions = sorted(order.index(result.models.index(m)) for m in g)
            if positions != list(range(positions[0], positions[-1] + 1)):
                display = CriticalDifferenceDisplay.from_result(result)
                gap = next(p for p in range(positions[0], positions[-1]) if p not in positions)
                outsider = result.average_ranks[order[gap]]
                dots = display.group_markers_[display.groups_.index(g)].get_xdata()
                assert not np.isclose(dots, outsider).any()
                return
    pytest.skip("no group with a gap among these seeds")


def test_nemenyi_draws_the_critical_difference():
    display = CriticalDifferenceDisplay.from_scores(scores_of(0), method="nemenyi",
                                                    alpha=0.1)
    cd = display.result_.critical_difference
    x = display.cd_line_.get_xdata()
    assert_allclose(x[1] - x[0], cd)
    assert display.critical_difference == cd
    # with Nemenyi, a group is a run of models less than CD apart
    ranks = dict(zip(display.result_.models, display.result_.average_ranks))
    for g in display.groups_:
        assert max(ranks[m] for m in g) - min(ranks[m] for m in g) <= cd
    assert CriticalDifferenceDisplay.from_scores(scores_of(0)).cd_line_ is None


def test_draws_on_given_axes_and_from_result():
    result = compare_datasets(scores_of(1), posthoc="sign")
    fig, ax = plt.subplots()
    display = CriticalDifferenceDisplay.from_result(result, ax=ax, title="nDCG@10")
    assert display.ax_ is ax and display.figure_ is fig
    assert ax.get_title() == "nDCG@10"
    assert display.result_ is result
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("model_0 (") for t in texts)


def test_plot_from_constructor_and_bad_input():
    display = CriticalDifferenceDisplay([1.2, 2.0, 2.8], ["a", "b", "c"],
                                        groups=[("a", "b")]).plot()
    assert display.groups_ == [("a", "b")]
    assert "Average rank" in display.ax_.get_title()
    with pytest.raises(ValueError, match="not in names: \\['z'\\]"):
        CriticalDifferenceDisplay([1.0, 2.0], ["a", "b"], groups=[("a", "z")]).plot()
    with pytest.raises(ValueError, match="one entry per model"):
        CriticalDifferenceDisplay([1.0, 2.0, 3.0], ["a", "b"]).plot()
    with pytest.raises(InvalidParameterError, match="method"):
        CriticalDifferenceDisplay.from_scores(scores_of(0), method="holm")


def test_html_embeds_the_display():
    result = compare_datasets(scores_of(2))
    display = CriticalDifferenceDisplay.from_result(result)
    html = result.to_html(figure=display)
    assert html.count('<img alt="Critical difference diagram') == 1
    assert "data:image/png;base64," in html
