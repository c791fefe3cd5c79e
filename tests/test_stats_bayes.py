"""sklearn_rank.stats Bayesian comparisons, against the published formulas.

The correlated t-test (Corani and Benavoli 2015) is checked against its closed form computed
here with scipy.stats.t; the Bayesian signed-rank test (Benavoli et al. 2017) against a plain
double loop over the same Dirichlet draws (the authors' R tutorial, written out), and
against invariants. baycomp is not installed, and is not a dependency.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.stats import (
    BayesianComparison,
    bayesian_correlated_ttest,
    bayesian_signed_rank_test,
)

# 2 repeats of 5-fold cross-validation: nDCG@10 of two rankers on the same 10 folds
FOLDS_A = [0.52, 0.55, 0.50, 0.53, 0.54, 0.51, 0.56, 0.52, 0.53, 0.55]
FOLDS_B = [0.50, 0.54, 0.50, 0.51, 0.52, 0.50, 0.53, 0.52, 0.51, 0.53]


# --------------------------------------------------------------------------------------
# Correlated t-test
# --------------------------------------------------------------------------------------


def test_correlated_ttest_worked_example():
    """The closed form, by hand: x = a - b over n = 10 folds, rho = 1/5."""
    d = np.array(FOLDS_A) - np.array(FOLDS_B)
    n, rho, rope = 10, 0.2, 0.01
    mean = d.sum() / n
    s2 = ((d - mean) ** 2).sum() / (n - 1)
    scale = np.sqrt((1 / n + rho / (1 - rho)) * s2)  # 1/10 + 1/4 = 0.35
    p_right = 1 - stats.t.cdf((rope - mean) / scale, n - 1)
    p_left = stats.t.cdf((-rope - mean) / scale, n - 1)
    result = bayesian_correlated_ttest(FOLDS_A, FOLDS_B, test_fraction=rho, rope=rope)
    assert isinstance(result, BayesianComparison)
    assert_allclose(mean, 0.015)
    assert_allclose(result.mean_difference, mean)
    assert_allclose(result.p_a_better, p_right, rtol=1e-12)
    assert_allclose(result.p_b_better, p_left, rtol=1e-12)
    assert_allclose(result.p_equivalent, 1 - p_right - p_left, rtol=1e-12)
    assert_allclose(result.posterior.std(), scale * np.sqrt((n - 1) / (n - 3)))
    assert (round(result.p_a_better, 3), round(result.p_equivalent, 3),
            round(result.p_b_better, 3)) == (0.796, 0.203, 0.001)


def test_correlated_ttest_correction_widens_the_posterior():
    # rho -> 0 is the plain Bayesian t-test: scale s / sqrt(n); a larger rho is less sure
    plain = bayesian_correlated_ttest(FOLDS_A, FOLDS_B, test_fraction=1e-12, rope=0.0)
    d = np.array(FOLDS_A) - np.array(FOLDS_B)
    t = stats.ttest_1samp(d, 0.0, alternative="greater")
    # with a flat prior, P(mu < 0) is the one-sided p-value of the t-test
    assert_allclose(plain.p_b_better, t.pvalue, rtol=1e-6)
    tenfold = bayesian_correlated_ttest(FOLDS_A, FOLDS_B, test_fraction=0.1, rope=0.0)
    half = bayesian_correlated_ttest(FOLDS_A, FOLDS_B, test_fraction=0.5, rope=0.0)
    assert plain.p_a_better > tenfold.p_a_better > half.p_a_better > 0.5


def test_correlated_ttest_swap_and_degenerate():
    ab = bayesian_correlated_ttest(FOLDS_A, FOLDS_B, test_fraction=0.2)
    ba = bayesian_correlated_ttest(FOLDS_B, FOLDS_A, test_fraction=0.2)
    assert_allclose([ab.p_a_better, ab.p_equivalent, ab.p_b_better],
                    [ba.p_b_better, ba.p_equivalent, ba.p_a_better], rtol=1e-12)
    # the same difference on every fold: certainty where it lies (up to the rounding of
    # 0.5 - 0.48 and 0.6 - 0.58, which are not exactly equal)
    same = bayesian_correlated_ttest([0.5, 0.6, 0.7], [0.48, 0.58, 0.68], test_fraction=0.2)
    assert_allclose([same.p_a_better, same.p_equivalent, same.p_b_better], [1, 0, 0],
                    atol=1e-12)
    assert min(same.p_a_better, same.p_equivalent, same.p_b_better) >= 0
    exact = bayesian_correlated_ttest([0.5, 0.75], [0.25, 0.5], test_fraction=0.2)
    assert exact.posterior is None
    assert (exact.p_a_better, exact.p_equivalent, exact.p_b_better) == (1.0, 0.0, 0.0)
    inside = bayesian_correlated_ttest([0.5, 0.6], [0.5, 0.6], test_fraction=0.2)
    assert (inside.p_a_better, inside.p_equivalent, inside.p_b_better) == (0.0, 1.0, 0.0)


def test_correlated_ttest_reads_cross_validate_results():
    a = {"fit_time": np.zeros(10), "test_ndcg@10": np.array(FOLDS_A)}
    b = {"fit_time": np.zeros(10), "test_ndcg@10": np.array(FOLDS_B)}
    from_dicts = bayesian_correlated_ttest(a, b, test_fraction=0.2, metric="ndcg@10")
    from_arrays = bayesian_correlated_ttest(FOLDS_A, FOLDS_B, test_fraction=0.2)
    assert from_dicts.p_a_better == from_arrays.p_a_better
    with pytest.raises(ValueError, match="choose its metric with metric="):
        bayesian_correlated_ttest(a, b, test_fraction=0.2)


@pytest.mark.parametrize(
    "a, b, kwargs, error, message",
    [
        ([0.5], [0.4], {"test_fraction": 0.2}, ValueError, "at least 2 folds"),
        ([0.5, 0.6], [0.4], {"test_fraction": 0.2}, ValueError, "of the same length"),
        ([0.5, np.nan], [0.4, 0.5], {"test_fraction": 0.2}, ValueError, "must be finite"),
        ([0.5, 0.6], [0.4, 0.5], {"test_fraction": 1.0}, InvalidParameterError,
         "test_fraction"),
        ([0.5, 0.6], [0.4, 0.5], {"test_fraction": 0.2, "rope": -0.1},
         InvalidParameterError, "rope"),
    ],
)
def test_correlated_ttest_errors(a, b, kwargs, error, message):
    with pytest.raises(error, match=message):
        bayesian_correlated_ttest(a, b, **kwargs)


def test_correlated_ttest_needs_test_fraction():
    with pytest.raises(TypeError, match="test_fraction"):
        bayesian_correlated_ttest(FOLDS_A, FOLDS_B)


# --------------------------------------------------------------------------------------
# Signed-rank test
# --------------------------------------------------------------------------------------

DATASETS_A = [0.52, 0.79, 0.71, 0.50, 0.45, 0.66, 0.61, 0.40]
DATASETS_B = [0.49, 0.78, 0.69, 0.50, 0.41, 0.63, 0.61, 0.38]


def signed_rank_by_loops(a, b, rope, s, n_samples, seed):
    """Benavoli et al.'s procedure as in the authors' R tutorial, with plain loops."""
    diff = [0.0] + [x - y for x, y in zip(a, b)]
    weights = np.random.default_rng(seed).dirichlet([s] + [1.0] * (len(diff) - 1),
                                                    size=n_samples)
    wins = np.zeros(3)  # left (B better), rope, right (A better)
    for w in weights:
        left = rope_mass = right = 0.0
        for i in range(len(diff)):
            for j in range(len(diff)):
                product = w[i] * w[j]
                if diff[i] + diff[j] > 2 * rope:
                    right += product
                elif diff[i] + diff[j] < -2 * rope:
                    left += product
                else:
                    rope_mass += product
        masses = np.array([left, rope_mass, right])
        top = np.isclose(masses, masses.max(), rtol=0, atol=1e-12)
        wins += top / top.sum()
    return wins / n_samples


@pytest.mark.parametrize("rope, seed", [(0.01, 0), (0.02, 1), (0.0, 2)])
def test_signed_rank_matches_the_procedure_written_out(rope, seed):
    result = bayesian_signed_rank_test(DATASETS_A, DATASETS_B, rope=rope, n_samples=3000,
                                       random_state=seed)
    left, equivalent, right = signed_rank_by_loops(DATASETS_A, DATASETS_B, rope, 0.5, 3000,
                                                   seed)
    assert_allclose([result.p_b_better, result.p_equivalent, result.p_a_better],
                    [left, equivalent, right], atol=1e-12)
    assert result.samples.shape == (3000, 3)
    assert_allclose(result.samples.sum(axis=1), 1.0)


def test_signed_rank_invariants():
    kwargs = {"rope": 0.01, "n_samples": 4000, "random_state": 0}
    ab = bayesian_signed_rank_test(DATASETS_A, DATASETS_B, **kwargs)
    ba = bayesian_signed_rank_test(DATASETS_B, DATASETS_A, **kwargs)
    assert ab.p_a_better + ab.p_equivalent + ab.p_b_better == pytest.approx(1.0)
    # swapping the models swaps the regions, draw by draw
    assert_allclose([ab.p_a_better, ab.p_equivalent, ab.p_b_better],
                    [ba.p_b_better, ba.p_equivalent, ba.p_a_better])
    # far beyond the rope on every data set: A better, surely
    far = bayesian_signed_rank_test(np.array(DATASETS_B) + 0.2, DATASETS_B, **kwargs)
    assert far.p_a_better == 1.0
    # identical models: all mass in the rope
    same = bayesian_signed_rank_test(DATASETS_A, DATASETS_A, **kwargs)
    assert same.p_equivalent == 1.0
    # a wider rope absorbs the small differences
    wide = bayesian_signed_rank_test(DATASETS_A, DATASETS_B, rope=0.05, n_samples=4000,
                                     random_state=0)
    assert wide.p_equivalent > ab.p_equivalent


def test_signed_rank_seeded_and_mappings():
    a = dict(zip("abcdefgh", DATASETS_A))
    b = dict(zip("hgfedcba", DATASETS_B[::-1]))  # other order, same data sets
    one = bayesian_signed_rank_test(a, b, n_samples=1000, random_state=3)
    two = bayesian_signed_rank_test(DATASETS_A, DATASETS_B, n_samples=1000,
                                    random_state=np.random.default_rng(3))
    assert one.p_a_better == two.p_a_better
    with pytest.raises(ValueError, match="same data sets"):
        bayesian_signed_rank_test({"x": 0.5, "y": 0.4}, {"x": 0.5, "z": 0.4})
    with pytest.raises(ValueError, match="at least 2 data sets"):
        bayesian_signed_rank_test([0.5], [0.4])


def test_summary_text():
    result = bayesian_correlated_ttest(FOLDS_A, FOLDS_B, test_fraction=0.2)
    assert result.summary(("lambdamart", "ridge")) == (
        "Bayesian correlated t-test (ROPE +/-0.01): P(lambdamart better) = 0.796, "
        "P(equivalent) = 0.203, P(ridge better) = 0.001.")
