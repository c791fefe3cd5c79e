"""Bayesian comparisons of two models with a region of practical equivalence (ROPE).

The correlated t-test over the folds of repeated cross-validation (Corani and Benavoli 2015)
and the signed-rank test over data sets (Benavoli et al. 2017), built on scipy. Each reports
the posterior probabilities that A is better, that the two are practically equivalent (their
difference within ``rope`` of 0, in metric units), and that B is better.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from scipy import stats

from ..utils._param_validation import Interval, validate_params
from ._paired import rng_source


@dataclass(frozen=True)
class BayesianComparison:
    """Posterior probabilities of a Bayesian comparison of models A and B.

    Attributes
    ----------
    method : str
        ``"correlated t-test"`` or ``"signed-rank test"``.
    p_a_better : float
        Posterior probability that A is better by more than ``rope``. For the signed-rank
        test: the probability that "A better" is the most probable of the three regions.
    p_equivalent : float
        Posterior probability that the two are practically equivalent.
    p_b_better : float
        Posterior probability that B is better by more than ``rope``.
    rope : float
        Half-width of the region of practical equivalence, in metric units.
    mean_difference : float
        Mean of the observed differences ``a - b`` (over folds, or over data sets).
    n : int
        Number of differences (folds, or data sets).
    posterior : scipy frozen distribution or None
        The correlated t-test's posterior of the mean difference (a Student t).
    samples : ndarray of shape (n_samples, 3) or None
        The signed-rank test's Monte Carlo samples of the probabilities of the regions
        (B better, equivalent, A better), one row per Dirichlet draw.
    """

    method: str
    p_a_better: float
    p_equivalent: float
    p_b_better: float
    rope: float
    mean_difference: float
    n: int
    posterior: object = field(default=None, repr=False, compare=False)
    samples: object = field(default=None, repr=False, compare=False)

    def summary(self, names=("A", "B")):
        """The result in words.

        Parameters
        ----------
        names : tuple of str, default=("A", "B")
            Names of the two models.

        Returns
        -------
        text : str
        """
        a, b = names
        return (f"Bayesian {self.method} (ROPE +/-{self.rope:g}): P({a} better) = "
                f"{self.p_a_better:.3f}, P(equivalent) = {self.p_equivalent:.3f}, "
                f"P({b} better) = {self.p_b_better:.3f}.")

    def __str__(self):
        return self.summary()


def _is_labelled_series(x):
    """Whether ``x`` is a pandas Series whose index labels its values (not pandas' default
    index 0, 1, 2..., which only numbers them)."""
    if type(x).__module__.partition(".")[0] != "pandas" or np.ndim(x) != 1:
        return False
    index = getattr(x, "index", None)
    if index is None:
        return False
    default = (type(index).__name__ == "RangeIndex" and index.name is None
               and index.start == 0 and index.step == 1)
    return not default


def _paired_values(a, b, what, metric):
    """Two aligned 1-D float arrays from arrays, cross_validate results or mappings."""
    def read(x, name):
        if isinstance(x, Mapping) and metric is not None and f"test_{metric}" in x:
            x = x[f"test_{metric}"]  # a cross_validate result: its per-fold scores
        elif isinstance(x, Mapping) and any(str(key).startswith("test_") for key in x):
            keys = sorted(str(key)[5:] for key in x if str(key).startswith("test_"))
            raise ValueError(
                f"{name} is a cross_validate result; choose its metric with metric= (one of "
                f"{keys})."
            )
        if _is_labelled_series(x):  # paired by label, as a mapping: not by position
            return dict(x.items())
        return x

    a, b = read(a, "a"), read(b, "b")
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            only_a = sorted(map(str, set(a) - set(b)))
            only_b = sorted(map(str, set(b) - set(a)))
            raise ValueError(
                f"a and b must hold the same {what}: only in a {only_a}, only in b {only_b}."
            )
        keys = list(a)
        a, b = [a[k] for k in keys], [b[k] for k in keys]
    x, y = (np.asarray(v, dtype=np.float64) for v in (a, b))
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(
            f"a and b must be 1-D, one value per {what[:-1]}, of the same length; got shapes "
            f"{x.shape} and {y.shape}."
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"The values of a and b must be finite, one per {what[:-1]}.")
    return x, y


@validate_params(
    {
        "a": "no_validation",
        "b": "no_validation",
        "test_fraction": [Interval(Real, 0, 1, closed="neither")],
        "rope": [Interval(Real, 0, None, closed="left")],
        "metric": [str, None],
    },
    prefer_skip_nested_validation=True,
)
def bayesian_correlated_ttest(a, b, *, test_fraction, rope=0.01, metric=None):
    """Bayesian correlated t-test of two models over the folds of repeated cross-validation.

    The folds of cross-validation share training data, so their scores are correlated, and
    a t-test that treats them as independent is overconfident. Corani and Benavoli (2015)
    model the correlation as ``rho = n_test / n_total`` (Nadeau and Bengio's correction): the
    posterior of the mean difference is a Student t with ``n - 1`` degrees of freedom,
    location the mean of the ``n`` fold differences and squared scale
    ``(1 / n + rho / (1 - rho)) s**2``, ``s`` their standard deviation (``ddof=1``).

    Parameters
    ----------
    a, b : array-like of shape (n_folds,), or cross_validate results
        The scores of models A and B on the same folds, in the same order (all the folds of
        all the repeats): arrays (pandas Series with an index of their own are paired by
        label), or the dicts of
        :func:`sklearn_rank.model_selection.cross_validate` (``metric`` then chooses
        ``test_<metric>``).

    test_fraction : float
        ``rho``, the fraction of the data in each test fold: ``1 / n_splits`` for
        k-fold cross-validation.

    rope : float, default=0.01
        Half-width of the region of practical equivalence, in metric units: differences
        within ``[-rope, rope]`` count as no difference.

    metric : str, default=None
        The metric of cross_validate results, e.g. ``"ndcg@10"``.

    Returns
    -------
    result : BayesianComparison
        ``p_a_better``, ``p_equivalent``, ``p_b_better`` and ``posterior``, the
        :func:`scipy.stats.t` distribution of the mean difference ``a - b``.

    See Also
    --------
    bayesian_signed_rank_test : The comparison over data sets.
    paired_test : The frequentist test on per-query values.

    Notes
    -----
    ``P(A better) = P(mu > rope)``, ``P(equivalent) = P(-rope <= mu <= rope)`` and
    ``P(B better) = P(mu < -rope)`` under the posterior. When every fold gives the same
    difference, the posterior is that difference, with certainty.

    References
    ----------
    .. [1] G. Corani and A. Benavoli, "A Bayesian approach for comparing cross-validated
       algorithms on multiple data sets", Machine Learning 100(2), 2015.
    .. [2] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine
       Learning 52(3), 2003.
    .. [3] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, "Time for a change: a tutorial
       for comparing multiple classifiers through Bayesian analysis", JMLR 18(77), 2017.

    Examples
    --------
    ``nDCG@10`` of two rankers on 2 repeats of 5-fold cross-validation:

    >>> from sklearn_rank.stats import bayesian_correlated_ttest
    >>> a = [0.52, 0.55, 0.50, 0.53, 0.54, 0.51, 0.56, 0.52, 0.53, 0.55]
    >>> b = [0.50, 0.54, 0.50, 0.51, 0.52, 0.50, 0.53, 0.52, 0.51, 0.53]
    >>> result = bayesian_correlated_ttest(a, b, test_fraction=1 / 5, rope=0.01)
    >>> print(result.summary(("lambdamart", "ridge")))
    Bayesian correlated t-test (ROPE +/-0.01): P(lambdamart better) = 0.796, \
P(equivalent) = 0.203, P(ridge better) = 0.001.
    """
    x, y = _paired_values(a, b, "folds", metric)
    n = len(x)
    if n < 2:
        raise ValueError(f"The correlated t-test needs at least 2 folds; got {n}.")
    d = x - y
    mean = float(np.mean(d))
    variance = float(np.var(d, ddof=1))
    if variance == 0:  # the same difference on every fold: a point posterior
        posterior = None
        right, left = float(mean > rope), float(mean < -rope)
    else:
        scale = np.sqrt((1 / n + test_fraction / (1 - test_fraction)) * variance)
        posterior = stats.t(n - 1, loc=mean, scale=scale)
        right, left = float(posterior.sf(rope)), float(posterior.cdf(-rope))
    # rounding of a posterior narrower than the rope can take the difference below 0
    return BayesianComparison("correlated t-test", right, max(0.0, 1.0 - right - left), left,
                              float(rope), mean, n, posterior=posterior)


@validate_params(
    {
        "a": "no_validation",
        "b": "no_validation",
        "rope": [Interval(Real, 0, None, closed="left")],
        "prior_strength": [Interval(Real, 0, None, closed="neither")],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def bayesian_signed_rank_test(a, b, *, rope=0.01, prior_strength=0.5, n_samples=50000,
                              random_state=None):
    """Bayesian signed-rank test of two models over data sets (Benavoli et al. 2017).

    The Bayesian counterpart of Wilcoxon's signed-rank test: a Dirichlet process models the
    distribution of the differences ``a - b`` over data sets, with a prior pseudo-observation
    at 0 of strength ``prior_strength``. Each Monte Carlo draw of Dirichlet weights
    ``w`` gives the probabilities of the three regions, e.g. "A better"
    :math:`\\theta_r = \\sum_{i,j} w_i w_j [z_i + z_j > 2\\,rope]` over all ordered pairs of
    the differences and the pseudo-observation ``z``; the result is how often each region
    is the most probable.

    Parameters
    ----------
    a, b : array-like of shape (n_datasets,) or dict
        The scores of models A and B on the same data sets: arrays in the same order, or
        dicts ``{data set: score}`` (or pandas Series indexed by data set) with the same
        keys, paired by key.

    rope : float, default=0.01
        Half-width of the region of practical equivalence, in metric units.

    prior_strength : float, default=0.5
        ``s``, the weight of the prior pseudo-observation at 0.

    n_samples : int, default=50000
        Monte Carlo draws of the Dirichlet weights.

    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the draws: an int draws them from ``numpy.random.default_rng(random_state)``.

    Returns
    -------
    result : BayesianComparison
        ``p_a_better``, ``p_equivalent``, ``p_b_better`` and the ``samples`` of the
        regions' probabilities (B better, equivalent, A better).

    See Also
    --------
    compare_datasets : Friedman's test and the frequentist post-hoc tests.
    bayesian_correlated_ttest : The comparison over the folds of one data set.

    Notes
    -----
    The weights are ``Dirichlet(s, 1, ..., 1)`` over the pseudo-observation ``z_0 = 0`` and
    the ``n`` differences, drawn at once with ``Generator.dirichlet``. A pair counts for
    "A better" when :math:`z_i + z_j > 2\\,rope`, for "B better" when it is below
    :math:`-2\\,rope`, and for equivalence otherwise. A draw in which two regions tie for
    the most probable counts half for each, as in the authors' code.

    References
    ----------
    .. [1] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, "Time for a change: a tutorial
       for comparing multiple classifiers through Bayesian analysis", JMLR 18(77), 2017.
    .. [2] A. Benavoli, G. Corani, F. Mangili, M. Zaffalon and F. Ruggeri, "A Bayesian
       Wilcoxon signed-rank test based on the Dirichlet process", ICML 2014.

    Examples
    --------
    Mean ``nDCG@10`` of two rankers on eight data sets:

    >>> from sklearn_rank.stats import bayesian_signed_rank_test
    >>> a = [0.52, 0.79, 0.71, 0.50, 0.45, 0.66, 0.61, 0.40]
    >>> b = [0.49, 0.78, 0.69, 0.50, 0.41, 0.63, 0.61, 0.38]
    >>> result = bayesian_signed_rank_test(a, b, rope=0.01, random_state=0)
    >>> print(result.summary(("lambdamart", "ridge")))
    Bayesian signed-rank test (ROPE +/-0.01): P(lambdamart better) = 0.977, \
P(equivalent) = 0.023, P(ridge better) = 0.000.
    """
    x, y = _paired_values(a, b, "data sets", None)
    n = len(x)
    if n < 2:
        raise ValueError(f"The signed-rank test needs at least 2 data sets; got {n}.")
    z = np.concatenate([[0.0], x - y])
    alpha = np.concatenate([[prior_strength], np.ones(n)])
    weights = rng_source(random_state)().dirichlet(alpha, size=n_samples)
    sums = z[:, None] + z[None, :]
    regions = [sums < -2 * rope, (sums >= -2 * rope) & (sums <= 2 * rope), sums > 2 * rope]
    # theta[s, r] = w_s' M_r w_s: the probability of region r under draw s
    theta = np.column_stack([np.einsum("si,ij,sj->s", weights, m.astype(np.float64), weights)
                             for m in regions])
    top = np.isclose(theta, theta.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    wins = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    return BayesianComparison("signed-rank test", float(wins[2]), float(wins[1]),
                              float(wins[0]), float(rope), float(np.mean(x - y)), n,
                              samples=theta)
