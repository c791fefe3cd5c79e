"""Paired tests and bootstrap confidence intervals on per-query values, via scipy.stats."""

import inspect
from collections import namedtuple
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from scipy import stats

from ..utils._param_validation import Interval, StrOptions, validate_params
from ._data import align, as_sources, common_metrics

TESTS = ("t", "wilcoxon", "permutation")
BOOTSTRAP_METHODS = ("BCa", "percentile", "basic")
CI_METHODS = (*BOOTSTRAP_METHODS, "t")
# ci_method="auto": the interval of the mean difference that belongs to the test. Student's t
# interval is the paired t-test inverted: it excludes 0 exactly when the two-sided p-value is
# below 1 - confidence_level. The randomization test, a resampling test, gets a bootstrap
# interval. No interval of the mean inverts Wilcoxon's test (a shift of the median): it gets
# the bootstrap interval too, and the tables say that the two come from different methods.
TEST_INTERVALS = {"t": "t", "permutation": "BCa", "wilcoxon": "BCa"}

# scipy 1.15 renamed ``random_state`` to ``rng`` (SPEC 7); both take a Generator.
_RNG = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
# Resamples are drawn in batches of about this many values, so that memory stays bounded on
# large query sets; scipy's results do not depend on the batch size.
_BATCH_VALUES = 2**22

CONSTRAINTS = {
    "a": "no_validation",
    "b": "no_validation",
    "metric": [str, None],
    "test": [StrOptions(set(TESTS))],
    "alternative": [StrOptions({"two-sided", "less", "greater"})],
    "method": [StrOptions(set(BOOTSTRAP_METHODS))],
    "ci_method": [StrOptions({"auto", *CI_METHODS})],
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "n_resamples": [Interval(Integral, 1, None, closed="left")],
    "unit": [StrOptions({"query", "fold"})],
    "random_state": ["random_state", np.random.Generator],
}

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = "Lower and upper bounds of a two-sided confidence interval."


_DOCS = {
    "systems_input": """Per-query values of a system, in one of these forms:

        - a :class:`~sklearn_rank.metrics.PerQueryResult` (from
          :func:`~sklearn_rank.metrics.evaluate_per_query`), aligned by query id, with its
          folds when it has a fold column; an unweighted one, as the tests weigh every
          query alike. Its values are used as they are: a query where the metric is
          undefined counts with its ``no_relevant`` value, as in any other form;
        - a tuple ``(qid, values)`` of two array-likes, aligned by query id, in any order;
        - a dict (or a pandas or polars DataFrame) of columns: an optional ``"qid"``, an
          optional ``"fold"`` and one column of per-query values per metric. A pandas
          DataFrame without a ``"qid"`` column is aligned by its index, which holds the
          query ids (as ``PerQueryResult.to_frame()`` puts them; a MultiIndex may have
          levels ``"qid"`` and ``"fold"``), unless it is pandas' default index;
        - a pandas Series indexed by query id;
        - the dict returned by
          :func:`sklearn_rank.model_selection.cross_validate` with
          ``return_per_query=True`` (its ``"per_query"`` PerQueryResult is read);
        - an array-like of shape (n_queries,) without query ids (a list, a numpy array, a
          polars Series, a pandas object with pandas' default index), aligned with the
          other system by position: only beside another input without query ids.

        Values must be finite. A query that appears in several folds (repeated
        cross-validation) counts once, with the mean of its values.""",
    "metric": """metric : str, default=None
        The metric to use when the input holds several (a dict or a ``cross_validate``
        result), e.g. ``"ndcg@10"``. ``None`` is fine when there is only one.""",
    "confidence_level": """confidence_level : float, default=0.95
        Confidence level of the two-sided intervals, in (0, 1).""",
    "n_resamples": """n_resamples : int, default=9999
        Number of bootstrap resamples, and of random sign flips of the permutation test. The
        permutation test is exact (it enumerates all ``2**n`` sign flips) when
        ``2**n <= n_resamples``.""",
    "unit": """unit : {"query", "fold"}, default="query"
        The statistical unit. ``"query"``: per-query values, pooled over folds.
        ``"fold"``: per-fold means (the input must have a ``"fold"`` column, as
        ``cross_validate`` results do), each fold one observation. With as many units as
        folds it has little power, and it is not conservative: its few degrees of freedom
        can flag a difference that the per-query test does not.""",
    "random_state": """random_state : int, RandomState instance, Generator or None, \
            default=None
        Seeds the resampling. An int seeds a fresh ``numpy.random.default_rng(random_state)``
        for every resampling procedure, so that results equal scipy's called with
        ``rng=np.random.default_rng(random_state)``, and do not depend on what else is
        computed in the same call. A ``Generator`` or ``RandomState`` is drawn from in turn.
        ``None`` gives non-reproducible results.""",
}


def difference_ci_method(ci_method, test):
    """The method of the interval of a mean difference: ``"auto"`` resolved for ``test``."""
    return TEST_INTERVALS[test] if ci_method == "auto" else ci_method


def fill_doc(func):
    func.__doc__ = func.__doc__ % _DOCS
    return func


def rng_source(random_state):
    """A function returning the generator of the next resampling procedure."""
    if random_state is None:
        rng = np.random.default_rng()
        return lambda: rng
    if isinstance(random_state, Integral):
        return lambda: np.random.default_rng(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        rng = np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
        return lambda: rng
    return lambda: random_state


def _batch(n):
    return max(1, _BATCH_VALUES // max(n, 1))


def _mean_ci(values, *, method, confidence_level, n_resamples, rng):
    """``(low, high, standard_error)`` of the mean of ``values``."""
    n = len(values)
    if np.ptp(values) == 0:
        # Every resample has the same mean; scipy would warn and return NaN for BCa and t.
        return values[0], values[0], 0.0
    if method == "t":
        ci = stats.ttest_1samp(values, 0.0).confidence_interval(confidence_level)
        return ci.low, ci.high, np.std(values, ddof=1) / np.sqrt(n)
    result = stats.bootstrap(
        (values,), np.mean, n_resamples=n_resamples, confidence_level=confidence_level,
        method=method, batch=_batch(n), **{_RNG: rng},
    )
    ci = result.confidence_interval
    return ci.low, ci.high, result.standard_error


def cohens_d(differences):
    """Cohen's d for paired samples, ``mean(d) / std(d, ddof=1)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.mean(differences) / np.std(differences, ddof=1))


def run_test(x, y, *, test, alternative, n_resamples, rng):
    """``(statistic, pvalue)`` of a paired test of ``x`` against ``y``."""
    if not np.any(x != y):
        # No query differs: the statistics are 0/0 and scipy warns; nothing to test.
        return np.nan, 1.0
    d = x - y
    if test == "t" and np.ptp(d) == 0:
        # Every query differs by the same amount: t is infinite (scipy warns of precision
        # loss in the variance of the differences); the p-value is its limit.
        sign = np.sign(d[0])
        pvalue = {"two-sided": 0.0, "greater": float(sign < 0), "less": float(sign > 0)}
        return float(sign * np.inf), pvalue[alternative]
    if test == "t":
        result = stats.ttest_rel(x, y, alternative=alternative)
    elif test == "wilcoxon":
        result = stats.wilcoxon(x, y, alternative=alternative)
    else:
        # With one sample, permutation_type="samples" flips the signs of the differences:
        # the same null distribution as swapping x and y within pairs, five times faster.
        result = stats.permutation_test(
            (d,), np.mean, permutation_type="samples", vectorized=True,
            n_resamples=n_resamples, alternative=alternative, batch=_batch(len(x)),
            **{_RNG: rng()},
        )
    return float(result.statistic), float(result.pvalue)


@dataclass(frozen=True)
class MeanEstimate:
    """The mean of per-query values with a confidence interval, from :func:`bootstrap_ci`.

    Attributes
    ----------
    mean : float
        Mean over the units (queries, or folds with ``unit="fold"``).
    confidence_interval : ConfidenceInterval
        ``(low, high)``, two-sided.
    confidence_level : float
        Confidence level of the interval.
    method : str
        How the interval was computed: ``"BCa"``, ``"percentile"``, ``"basic"`` (bootstrap)
        or ``"t"`` (Student's t).
    standard_error : float
        Bootstrap standard error of the mean (``sd / sqrt(n)`` for ``method="t"``).
    n : int
        Number of units.
    unit : str
        ``"query"`` or ``"fold"``.
    ids : ndarray or None
        Query ids (or fold labels) of the units, None when the values came without ids.
    """

    mean: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    method: str
    standard_error: float
    n: int
    unit: str = "query"
    ids: object = field(default=None, repr=False, compare=False)


def estimate_mean(values, *, method, confidence_level, n_resamples, rng, unit="query",
                  ids=None):
    """:class:`MeanEstimate` of already aligned values."""
    low, high, se = _mean_ci(values, method=method, confidence_level=confidence_level,
                             n_resamples=n_resamples, rng=rng)
    return MeanEstimate(float(np.mean(values)), ConfidenceInterval(float(low), float(high)),
                        confidence_level, method, float(se), len(values), unit, ids)


@dataclass(frozen=True)
class PairedTestResult:
    """Result of :func:`paired_test`: system ``a`` against system ``b`` on the same units.

    Attributes
    ----------
    test : str
        ``"t"``, ``"wilcoxon"`` or ``"permutation"``.
    statistic : float
        Paired t statistic; Wilcoxon's ``W`` as :func:`scipy.stats.wilcoxon` reports it
        (the smaller rank sum for a two-sided test, the rank sum of positive differences
        otherwise); or the mean difference for the permutation test. NaN when the two
        systems agree on every unit.
    pvalue : float
        p-value of the test; 1.0 when the two systems agree on every unit.
    alternative : str
        ``"two-sided"``, ``"greater"`` (mean of ``a`` above that of ``b``) or ``"less"``.
    mean_a, mean_b : float
        Means of the two systems.
    mean_difference : float
        ``mean_a - mean_b``, the mean of the per-unit differences ``a - b``.
    confidence_interval : ConfidenceInterval
        Two-sided confidence interval ``(low, high)`` of the mean difference.
    confidence_level : float
        Its confidence level.
    ci_method : str
        How it was computed: ``"BCa"``, ``"percentile"``, ``"basic"`` (bootstrap) or
        ``"t"`` (Student's t, the interval of the t-test: with ``test="t"``, a two-sided
        alternative and ``confidence_level = 1 - alpha``, it excludes 0 exactly when
        ``pvalue < alpha``).
    effect_size : float
        Cohen's d for paired samples (:math:`d_z`): the mean difference divided by the
        standard deviation (``ddof=1``) of the differences. NaN when the systems agree on
        every unit, infinite when every difference is the same non-zero number.
    n : int
        Number of units.
    unit : str
        ``"query"`` or ``"fold"``.
    ids : ndarray or None
        Query ids (or fold labels) of the units, None when aligned by position.
    differences : ndarray
        The per-unit differences ``a - b``, in the order of ``ids``.
    """

    test: str
    statistic: float
    pvalue: float
    alternative: str
    mean_a: float
    mean_b: float
    mean_difference: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    ci_method: str
    effect_size: float
    n: int
    unit: str = "query"
    ids: object = field(default=None, repr=False, compare=False)
    differences: object = field(default=None, repr=False, compare=False)


def compare_pair(x, y, *, test, alternative, ci_method, confidence_level, n_resamples, rng,
              unit="query", ids=None):
    """:class:`PairedTestResult` of two aligned arrays."""
    statistic, pvalue = run_test(x, y, test=test, alternative=alternative,
                                 n_resamples=n_resamples, rng=rng)
    ci_method = difference_ci_method(ci_method, test)
    d = x - y
    low, high, _ = _mean_ci(d, method=ci_method, confidence_level=confidence_level,
                            n_resamples=n_resamples, rng=rng())
    return PairedTestResult(
        test, statistic, pvalue, alternative, float(np.mean(x)), float(np.mean(y)),
        float(np.mean(d)), ConfidenceInterval(float(low), float(high)), confidence_level,
        ci_method, cohens_d(d), len(d), unit, ids, d,
    )


def _two_systems(a, b, metric, unit):
    sources = as_sources({"a": a, "b": b}, metric=metric)
    metrics = common_metrics(sources, metric)
    if len(metrics) > 1:
        raise ValueError(
            f"The inputs hold several metrics ({metrics}); choose one with metric=."
        )
    return align(sources, metrics[0], unit)


@validate_params(
    {k: CONSTRAINTS[k] for k in ("a", "b", "metric", "test", "alternative", "ci_method",
                                 "confidence_level", "n_resamples", "unit", "random_state")},
    prefer_skip_nested_validation=True,
)
@fill_doc
def paired_test(a, b, *, metric=None, test="t", alternative="two-sided", ci_method="auto",
                confidence_level=0.95, n_resamples=9999, unit="query", random_state=None):
    """Test whether two systems differ, query by query, and estimate by how much.

    The two systems must have been evaluated on the same queries: each query gives one
    paired difference ``a - b``. The test comes from :mod:`scipy.stats`; the confidence
    interval of the mean difference is, by default, the one that belongs to the test:
    Student's t interval with the t-test, a bootstrap interval
    (:func:`scipy.stats.bootstrap`) with the randomization test.

    Parameters
    ----------
    a : array-like, tuple, dict, DataFrame, Series, PerQueryResult or cross_validate result
        %(systems_input)s

    b : array-like, tuple, dict, DataFrame, Series, PerQueryResult or cross_validate result
        The other system, in any of the forms of ``a``: both with query ids (which must be
        the same queries) or both without.

    %(metric)s

    test : {"t", "wilcoxon", "permutation"}, default="t"
        ``"t"``: paired Student's t-test (:func:`scipy.stats.ttest_rel`).
        ``"wilcoxon"``: Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`, zero
        differences dropped, exact or normal approximation as scipy chooses).
        ``"permutation"``: the randomization test of IR evaluation (Fisher's, as in
        Smucker et al.) on the mean difference: each query's two values are swapped at
        random, which flips the sign of its difference;
        :func:`scipy.stats.permutation_test` with ``permutation_type="samples"`` on the
        differences ``a - b``.

    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis: the means differ, the mean of ``a`` is greater, or
        less, than that of ``b``.

    ci_method : {"auto", "BCa", "percentile", "basic", "t"}, default="auto"
        Confidence interval of the mean difference: a bootstrap interval of
        :func:`scipy.stats.bootstrap` (bias-corrected and accelerated, percentile, basic)
        or Student's t interval. ``"auto"``: the interval of the test, ``"t"`` with
        ``test="t"`` (it excludes 0 exactly when the two-sided p-value is below
        ``1 - confidence_level``), ``"BCa"`` with ``"permutation"`` and ``"wilcoxon"``.
        No interval of the mean inverts the Wilcoxon test, nor, exactly, the
        randomization test: near the threshold, such an interval and the test can
        disagree. The interval is two-sided whatever ``alternative``.

    %(confidence_level)s

    %(n_resamples)s

    %(unit)s

    %(random_state)s

    Returns
    -------
    result : PairedTestResult
        ``statistic``, ``pvalue``, ``mean_difference``, ``confidence_interval``,
        ``effect_size`` (Cohen's d for paired samples), ``n`` and the per-query
        ``differences``.

    See Also
    --------
    compare : Many systems at once, with corrections for multiple comparisons.
    bootstrap_ci : Confidence interval of one system's mean, or of a mean difference.

    Notes
    -----
    The effect size is Cohen's :math:`d_z = \\bar d / s_d`, the mean of the per-query
    differences over their standard deviation (``ddof=1``); as a rule of thumb 0.2 is small,
    0.5 medium, 0.8 large.

    When the two systems have the same value on every query, no test is run: the p-value is
    1.0 and the statistic NaN (scipy's tests are undefined there). When every query differs
    by the same non-zero amount, the t statistic is infinite and its p-value 0 (1 for a
    one-sided alternative in the other direction).

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical
       significance tests for information retrieval evaluation", CIKM 2007.
    .. [2] B. Efron, "Better bootstrap confidence intervals", JASA 82(397), 1987.
    .. [3] J. Cohen, "Statistical Power Analysis for the Behavioral Sciences", 2nd ed.,
       1988.

    Examples
    --------
    ``nDCG@10`` of two rankers on the same eight queries:

    >>> from sklearn_rank.stats import paired_test
    >>> lambdamart = [0.61, 0.52, 0.80, 0.45, 0.72, 0.66, 0.58, 0.90]
    >>> bm25 = [0.55, 0.50, 0.71, 0.47, 0.60, 0.62, 0.51, 0.84]
    >>> result = paired_test(lambdamart, bm25, test="t", random_state=0)
    >>> round(result.mean_difference, 4), round(result.pvalue, 4)
    (0.055, 0.0083)
    >>> round(result.effect_size, 2)
    1.29

    The interval of the mean difference is the t-test's own, Student's t: at 95%%, it
    excludes 0 exactly when the p-value is below 0.05.

    >>> result.ci_method, [round(bound, 4) for bound in result.confidence_interval]
    ('t', [0.0193, 0.0907])

    The randomization test enumerates all 2**8 sign flips here, so it is exact:

    >>> round(paired_test(lambdamart, bm25, test="permutation").pvalue, 4)
    0.0234

    With query ids, the values are matched by query, whatever their order:

    >>> result = paired_test(([1, 2, 3], [0.2, 0.4, 0.9]), ([3, 1, 2], [0.7, 0.1, 0.4]),
    ...                      random_state=0)
    >>> result.ids, result.differences.round(2)
    (array([1, 2, 3]), array([0.1, 0. , 0.2]))
    """
    aligned = _two_systems(a, b, metric, unit)
    x, y = aligned.values[:, 0], aligned.values[:, 1]
    return compare_pair(x, y, test=test, alternative=alternative, ci_method=ci_method,
                     confidence_level=confidence_level, n_resamples=n_resamples,
                     rng=rng_source(random_state), unit=aligned.unit, ids=aligned.ids)


@validate_params(
    {k: CONSTRAINTS[k] for k in ("a", "b", "metric", "method", "confidence_level",
                                 "n_resamples", "unit", "random_state")},
    prefer_skip_nested_validation=True,
)
@fill_doc
def bootstrap_ci(a, b=None, *, metric=None, method="BCa", confidence_level=0.95,
                 n_resamples=9999, unit="query", random_state=None):
    """Bootstrap confidence interval of a system's mean, or of the mean difference of two.

    Queries are resampled with replacement by :func:`scipy.stats.bootstrap`. With ``b``,
    the interval is that of the mean of the paired differences ``a - b``: both systems keep
    the same queries in every resample.

    Parameters
    ----------
    a : array-like, tuple, dict, DataFrame, Series, PerQueryResult or cross_validate result
        %(systems_input)s

    b : array-like, tuple, dict, DataFrame, Series, PerQueryResult or cross_validate \
result, default=None
        A second system on the same queries, in any of the forms of ``a``. When given, the
        interval is that of ``mean(a - b)``.

    %(metric)s

    method : {"BCa", "percentile", "basic"}, default="BCa"
        Bootstrap interval: bias-corrected and accelerated (better coverage on skewed
        per-query values, the usual case), percentile, or basic.

    %(confidence_level)s

    n_resamples : int, default=9999
        Number of bootstrap resamples.

    %(unit)s

    %(random_state)s

    Returns
    -------
    result : MeanEstimate
        ``mean``, ``confidence_interval`` (``low``, ``high``), ``standard_error``, ``n``.

    See Also
    --------
    paired_test : Test of the difference of two systems, with its confidence interval.
    compare : Means, intervals and tests of many systems at once.

    Notes
    -----
    When every value is the same, the interval is that value (scipy's BCa interval is
    undefined there).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman &
       Hall, 1993.

    Examples
    --------
    >>> from sklearn_rank.stats import bootstrap_ci
    >>> ndcg = [0.61, 0.52, 0.80, 0.45, 0.72, 0.66, 0.58, 0.90, 0.35, 0.70]
    >>> result = bootstrap_ci(ndcg, method="percentile", random_state=0)
    >>> round(result.mean, 3)
    0.629
    >>> low, high = result.confidence_interval
    >>> bool(low < result.mean < high)
    True
    """
    if b is None:
        sources = as_sources({"a": a}, metric=metric)
        metrics = common_metrics(sources, metric)
        if len(metrics) > 1:
            raise ValueError(
                f"The input holds several metrics ({metrics}); choose one with metric=."
            )
        aligned = align(sources, metrics[0], unit)
        values = aligned.values[:, 0]
    else:
        aligned = _two_systems(a, b, metric, unit)
        values = aligned.values[:, 0] - aligned.values[:, 1]
    return estimate_mean(values, method=method, confidence_level=confidence_level,
                         n_resamples=n_resamples, rng=rng_source(random_state)(),
                         unit=aligned.unit, ids=aligned.ids)
