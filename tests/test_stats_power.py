"""sklearn_rank.stats.query_set_size: topic-set-size design on the paired t-test.

Powers are recomputed here with scipy.stats.nct directly; the numbers of queries are checked
to be the first to reach the power, and against Cohen's (1988) tables.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.stats import QuerySetSize, paired_test, query_set_size


def nct_power(n, delta, sd, alpha=0.05, two_sided=True):
    """Power of the paired t-test, from the noncentral t written out."""
    df, nc = n - 1, np.sqrt(n) * delta / sd
    if two_sided:
        c = stats.t.isf(alpha / 2, df)
        return stats.nct.sf(c, df, nc) + stats.nct.cdf(-c, df, nc)
    return stats.nct.sf(stats.t.isf(alpha, df), df, nc)


@pytest.mark.parametrize("d, expected", [(0.2, 199), (0.5, 34), (0.8, 15)])
def test_cohens_table(d, expected):
    """Cohen (1988) / G*Power, one-sample (paired) t-test, alpha 0.05 two-sided, power 0.8:
    effect sizes 0.2, 0.5, 0.8 need 199, 34 and 15 pairs."""
    sd = 0.15
    assert query_set_size(variance=sd**2, delta=d * sd).n_needed == expected


@pytest.mark.parametrize("delta, sd, alpha, power, alternative", [
    (0.01, 0.1, 0.05, 0.8, "two-sided"),
    (0.02, 0.25, 0.01, 0.9, "two-sided"),
    (0.05, 0.3, 0.05, 0.8, "greater"),
    (0.3, 0.2, 0.05, 0.95, "two-sided"),
])
def test_n_needed_is_the_first_n_reaching_the_power(delta, sd, alpha, power, alternative):
    result = query_set_size(variance=sd**2, delta=delta, alpha=alpha, power=power,
                            alternative=alternative)
    n = result.n_needed
    two = alternative == "two-sided"
    assert nct_power(n, delta, sd, alpha, two) >= power
    assert nct_power(n - 1, delta, sd, alpha, two) < power


@pytest.mark.parametrize("n", [10, 50, 400])
def test_minimum_detectable_difference_has_the_target_power(n):
    sd = 0.2
    result = query_set_size(variance=sd**2, n_queries=n)
    mdd = result.minimum_detectable_difference
    assert_allclose(nct_power(n, mdd, sd), 0.8, rtol=1e-9)
    # and the n needed for that difference is the n at hand
    assert query_set_size(variance=sd**2, delta=mdd * (1 + 1e-9)).n_needed == n
    assert result.n_needed is None


def test_from_per_query_values():
    rng = np.random.default_rng(0)
    a = rng.uniform(0.2, 0.8, 60)
    b = np.clip(a - 0.02 + rng.normal(0, 0.1, 60), 0, 1)
    result = query_set_size(a, b, delta=0.02)
    d = a - b
    assert isinstance(result, QuerySetSize)
    assert_allclose(result.variance, np.var(d, ddof=1))
    assert result.n_queries == 60
    assert_allclose(result.power_at_hand, nct_power(60, 0.02, np.std(d, ddof=1)))
    # the differences themselves give the same answer
    assert query_set_size(d, delta=0.02) == result
    # with query ids, paired by query as paired_test pairs them
    qid = np.arange(60)
    order = rng.permutation(60)
    with_ids = query_set_size((qid, a), (qid[order], b[order]), delta=0.02)
    assert_allclose(with_ids.variance, result.variance)
    # at the minimum detectable difference, the power is the target
    assert paired_test(a, b).n == result.n_queries


def test_power_line():
    result = query_set_size(variance=0.04, n_queries=50, delta=0.1)
    assert str(result) == (
        "34 queries needed to detect a mean difference of 0.1 (paired t-test, alpha = 0.05, "
        "power 0.8); 50 at hand, which detect a difference of 0.0808 or more.")
    only = query_set_size(variance=0.04, n_queries=50)
    assert str(only) == ("50 at hand, which detect a difference of 0.0808 or more (paired "
                         "t-test, alpha = 0.05, power 0.8).")


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((), {"delta": 0.1}, ValueError, "not neither"),
        (([0.1, 0.2],), {"variance": 0.1, "delta": 0.1}, ValueError, "not both"),
        ((), {"variance": 0.1}, ValueError, "Nothing to compute"),
        (([0.1, 0.1, 0.1],), {"delta": 0.1}, ValueError, "variance is 0"),
        (([0.1],), {"delta": 0.1}, ValueError, "at least 2 values"),
        (([0.1, 0.2],), {"delta": 0.1, "n_queries": 5}, ValueError, "leave it out"),
        ((), {"variance": 0.1, "delta": 0.1, "power": 0.01}, ValueError, "above alpha"),
        ((), {"variance": -0.1, "delta": 0.1}, InvalidParameterError, "variance"),
        ((), {"variance": 0.1, "delta": 0.0}, InvalidParameterError, "delta"),
        ((), {"variance": 0.1, "n_queries": 1}, InvalidParameterError, "n_queries"),
        ((), {"variance": 0.1, "delta": 0.1, "alternative": "less"}, InvalidParameterError,
         "alternative"),
    ],
)
def test_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        query_set_size(*args, **kwargs)
