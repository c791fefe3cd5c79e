"""How many queries are enough: topic-set-size design on the paired t-test (Sakai 2016)."""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy import optimize, stats

from ..utils._param_validation import Interval, StrOptions, validate_params
from ._paired import _two_systems

# n is searched up to here: a difference that needs more queries is not worth designing for.
_MAX_QUERIES = 10_000_000


def paired_t_power(n, delta, variance, *, alpha=0.05, alternative="two-sided"):
    """Power of the paired t-test on ``n`` queries to detect a mean difference ``delta``.

    Under the alternative, ``t = mean(d) / (s_d / sqrt(n))`` follows the noncentral t
    distribution with ``n - 1`` degrees of freedom and noncentrality
    ``sqrt(n) * delta / sigma_d`` (:func:`scipy.stats.nct`).
    """
    df = n - 1
    noncentrality = np.sqrt(n) * delta / np.sqrt(variance)
    if alternative == "two-sided":
        critical = stats.t.ppf(1 - alpha / 2, df)
        # P(T < -c) written as P(T' > c) with T' of noncentrality -lambda: scipy's
        # nct.cdf gives NaN in that far tail for large noncentralities (scipy 1.17), its sf
        # gives the same probability without.
        return float(stats.nct.sf(critical, df, noncentrality)
                     + stats.nct.sf(critical, df, -noncentrality))
    critical = stats.t.ppf(1 - alpha, df)
    return float(stats.nct.sf(critical, df, noncentrality))


def _needed(delta, variance, alpha, power, alternative):
    """The fewest queries whose paired t-test reaches ``power``; None beyond the search."""
    def reached(n):
        return paired_t_power(n, delta, variance, alpha=alpha,
                              alternative=alternative) >= power

    # Doubling then bisection: the power grows with n (for n >= 2), so the first n that
    # reaches it is found exactly, without evaluating every n on the way.
    low, high = 1, 2
    while not reached(high):
        low, high = high, high * 2
        if high > _MAX_QUERIES:
            return None
    while high - low > 1:
        mid = (low + high) // 2
        if reached(mid):
            high = mid
        else:
            low = mid
    return high


def _detectable(n, variance, alpha, power, alternative):
    """The smallest ``delta`` the paired t-test on ``n`` queries detects with ``power``."""
    sd = np.sqrt(variance)

    def gap(delta):
        return paired_t_power(n, delta, variance, alpha=alpha,
                              alternative=alternative) - power

    high = sd
    while gap(high) < 0:
        high *= 2
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-12 * sd, rtol=1e-12))


@dataclass(frozen=True)
class QuerySetSize:
    """How many queries a paired t-test needs, from :func:`query_set_size`.

    Attributes
    ----------
    n_needed : int or None
        The fewest queries with which the paired t-test detects a mean difference ``delta``
        with probability ``power`` at ``alpha``; None when ``delta`` is None.
    n_queries : int or None
        The queries at hand (None when only a variance was given without ``n_queries``).
    minimum_detectable_difference : float or None
        The smallest mean difference detected with probability ``power`` with the queries
        at hand.
    power_at_hand : float or None
        The power to detect ``delta`` with the queries at hand.
    variance : float
        Variance (``ddof=1``) of the per-query differences.
    delta : float or None
        The mean difference to detect, in metric units.
    alpha, power : float
        Significance level and target power.
    alternative : str
        ``"two-sided"`` or ``"greater"`` (one-sided).
    """

    n_needed: object
    n_queries: object
    minimum_detectable_difference: object
    power_at_hand: object
    variance: float
    delta: object
    alpha: float
    power: float
    alternative: str = "two-sided"

    def summary(self):
        """The power line of the tables, in words."""
        parts = []
        test = f"paired t-test, alpha = {self.alpha:g}, power {self.power:g}"
        if self.delta is not None:
            needed = ("more than 10 million" if self.n_needed is None
                      else f"{self.n_needed}")
            parts.append(f"{needed} queries needed to detect a mean difference of "
                         f"{self.delta:g} ({test})")
            test = None
        if self.n_queries is not None:
            have = f"{self.n_queries} at hand"
            if self.minimum_detectable_difference is not None:
                have += (", which detect a difference of "
                         f"{self.minimum_detectable_difference:.3g} or more")
                if test is not None:
                    have += f" ({test})"
            parts.append(have)
        return "; ".join(parts) + "."

    def __str__(self):
        return self.summary()


@validate_params(
    {
        "a": "no_validation",
        "b": "no_validation",
        "variance": [Interval(Real, 0, None, closed="neither"), None],
        "n_queries": [Interval(Integral, 2, None, closed="left"), None],
        "delta": [Interval(Real, 0, None, closed="neither"), None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "power": [Interval(Real, 0, 1, closed="neither")],
        "alternative": [StrOptions({"two-sided", "greater"})],
        "metric": [str, None],
    },
    prefer_skip_nested_validation=True,
)
def query_set_size(a=None, b=None, *, variance=None, n_queries=None, delta=None, alpha=0.05,
                   power=0.8, alternative="two-sided", metric=None):
    """The number of queries a paired t-test needs, and the difference the ones at hand detect.

    Sakai's topic-set-size design (2016) on the paired t-test: from the variance of the
    per-query differences of two systems, the number of queries with which the test detects
    a mean difference ``delta`` with probability ``power`` at level ``alpha``, computed
    exactly with the noncentral t distribution; and the minimum detectable difference with
    the queries at hand. A non-significant result with a minimum detectable difference above
    the difference that matters means "too few queries", not "no difference".

    Parameters
    ----------
    a : array-like, tuple, dict, DataFrame, Series, PerQueryResult or cross_validate result, \
default=None
        Per-query values of a system, in any form :func:`paired_test` takes, with ``b``; or,
        without ``b``, the per-query differences themselves (an array). Leave it out to give
        ``variance`` instead.

    b : same forms as ``a``, default=None
        The other system's per-query values, on the same queries.

    variance : float, default=None
        The variance of the per-query differences, e.g. from a pilot study or an earlier
        benchmark, instead of ``a`` and ``b``.

    n_queries : int, default=None
        The queries at hand, with ``variance``; with ``a``, their number.

    delta : float, default=None
        The mean difference to detect, in metric units (e.g. 0.01 of ``nDCG@10``). None
        computes only the minimum detectable difference.

    alpha : float, default=0.05
        Significance level of the test.

    power : float, default=0.8
        The probability of detecting a true difference ``delta`` (1 - beta).

    alternative : {"two-sided", "greater"}, default="two-sided"
        Two-sided, or one-sided test.

    metric : str, default=None
        The metric, when ``a`` and ``b`` hold several.

    Returns
    -------
    result : QuerySetSize
        ``n_needed``, ``minimum_detectable_difference``, ``power_at_hand`` and the inputs;
        ``str(result)`` is the power line of the tables.

    See Also
    --------
    paired_test : The test whose power this is.

    Notes
    -----
    With ``n`` queries and differences of standard deviation :math:`\\sigma_d`, the paired t
    statistic follows, under a true mean difference :math:`\\delta`, the noncentral t
    distribution with ``n - 1`` degrees of freedom and noncentrality
    :math:`\\lambda = \\sqrt n\\,\\delta/\\sigma_d`. The power is
    :math:`P(|T| > t_{1-\\alpha/2,\\,n-1})`; ``n_needed`` is the smallest ``n`` whose power
    reaches ``power``. Sakai's Excel tools approximate this; here it is exact, up to the
    variance, which is an estimate (``ddof=1``) from the data given.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016.
    .. [2] J. Cohen, "Statistical Power Analysis for the Behavioral Sciences", 2nd ed.,
       1988.

    Examples
    --------
    Differences with a standard deviation of 0.2: a mean difference of 0.1 (Cohen's
    ``d = 0.5``) needs 34 queries for a power of 0.8 at alpha = 0.05 (Cohen's tables):

    >>> from sklearn_rank.stats import query_set_size
    >>> result = query_set_size(variance=0.2 ** 2, n_queries=50, delta=0.1)
    >>> result.n_needed
    34
    >>> round(result.minimum_detectable_difference, 4)
    0.0808
    >>> print(result)
    34 queries needed to detect a mean difference of 0.1 (paired t-test, alpha = 0.05, \
power 0.8); 50 at hand, which detect a difference of 0.0808 or more.
    """
    if delta is None and n_queries is None and variance is not None:
        raise ValueError(
            "Nothing to compute: give delta (the queries needed to detect it) or n_queries "
            "(the difference that many queries detect), or both."
        )
    if power <= alpha:
        raise ValueError(
            f"power={power} must be above alpha={alpha}: a test detects any difference, even "
            "none, with probability alpha."
        )
    if a is None and b is not None:
        raise ValueError("b is given without a; give both systems' per-query values.")
    if (a is None) == (variance is None):
        raise ValueError(
            "Give either the per-query values (a and b, or the differences as a) or "
            "variance=, not " + ("both." if a is not None else "neither.")
        )
    if a is not None:
        if n_queries is not None:
            raise ValueError(
                "n_queries is the number of per-query values given; leave it out with a."
            )
        if b is None:
            d = np.asarray(a, dtype=np.float64)
            if d.ndim != 1 or len(d) < 2:
                raise ValueError(
                    "a, the per-query differences, must be a 1-D array of at least 2 values; "
                    f"got shape {d.shape}."
                )
        else:
            aligned = _two_systems(a, b, metric, "query")
            d = aligned.values[:, 0] - aligned.values[:, 1]
        if not np.isfinite(d).all():
            raise ValueError("The per-query differences must be finite.")
        variance = float(np.var(d, ddof=1))
        n_queries = len(d)
        if np.ptp(d) == 0:
            raise ValueError(
                "The per-query differences all have the same value: their variance is 0, and "
                "any difference would be detected with 2 queries. Check that the two systems "
                "differ, or give variance= from a pilot study."
            )
    needed = None if delta is None else _needed(delta, variance, alpha, power, alternative)
    mdd = at_hand = None
    if n_queries is not None:
        mdd = _detectable(n_queries, variance, alpha, power, alternative)
        if delta is not None:
            at_hand = paired_t_power(n_queries, delta, variance, alpha=alpha,
                                     alternative=alternative)
    return QuerySetSize(needed, n_queries, mdd, at_hand, float(variance), delta, alpha, power,
                        alternative)
