"""Rankers across data sets: Friedman's test on ranks, post-hoc tests, groups, tables.

One score per (data set, model) -- the mean of a metric over a data set's queries -- is all
these tests see: the data sets are the units, as Demšar (2006) and Benavoli, Corani and
Mangili (2016) recommend, so that means of data sets of different scales are never averaged.
"""

import base64
import html
import io
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy import stats

from ..utils._param_validation import Interval, StrOptions, validate_params
from . import _table
from ._compare import adjust_pvalues
from ._paired import run_test

POSTHOCS = ("wilcoxon", "sign", "nemenyi")
_POSTHOC_NAMES = {"wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
                  "nemenyi": "Nemenyi test"}
# The number of data sets beyond which a post-hoc test is not searched for significance:
# enough for any alpha a paper uses.
_MAX_DATASETS = 10_000


def studentized_range_q(k, alpha):
    """Nemenyi's ``q_alpha`` for ``k`` models: the studentized range over ``sqrt(2)``.

    ``scipy.stats.studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``: the values of
    Demšar's (2006) table 5, which were computed the same way and rounded.
    """
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))


def _nemenyi_se(k, n):
    """Standard error of a difference of two average ranks under the null hypothesis."""
    return np.sqrt(k * (k + 1) / (6.0 * n))


def _nemenyi_pvalue(rank_difference, k, n):
    z = np.abs(rank_difference) / _nemenyi_se(k, n)
    return float(stats.studentized_range.sf(z * np.sqrt(2), k, np.inf))


def smallest_pvalue(test, n_datasets, n_models=2):
    """The smallest p-value ``test`` can give with ``n_datasets`` data sets.

    The p-value of the most extreme outcome: every data set favours the same model (Wilcoxon
    and sign tests), every data set ranks the models in the same order (Friedman), or the
    first and last models are ranked so on every data set (Nemenyi). Zero differences only
    raise it.
    """
    n, k = n_datasets, n_models
    if test == "wilcoxon":
        # distinct differences of one sign: the exact test's 2 / 2**n below 51 data sets
        return float(stats.wilcoxon(np.arange(1.0, n + 1)).pvalue)
    if test == "sign":
        return float(stats.binomtest(n, n, 0.5).pvalue)
    if test == "nemenyi":
        return _nemenyi_pvalue(k - 1, k, n)
    if test == "friedman":
        return float(stats.chi2.sf(n * (k - 1), k - 1))
    raise ValueError(f"Unknown test {test!r}.")


def _needed_datasets(test, n_models, alpha, factor):
    """The fewest data sets with which ``factor * smallest p`` can be at most ``alpha``."""
    n = 2
    while n <= _MAX_DATASETS:
        if factor * smallest_pvalue(test, n, n_models) <= alpha:
            return n
        n += 1 if n < 100 else n // 10
    return None


def _read_scores(scores, metric):
    """``(datasets, models, matrix)`` from a mapping, a DataFrame or a SeedSummary."""
    if hasattr(scores, "dataset_scores"):  # a SeedSummary: the means over queries and seeds
        scores = scores.dataset_scores(metric)
    elif metric is not None:
        raise ValueError(
            "metric= only chooses among the metrics of a SeedSummary; the scores given are "
            f"already one number per data set and model ({type(scores).__name__})."
        )
    if hasattr(scores, "columns") and hasattr(scores, "index"):  # a pandas DataFrame
        datasets = list(scores.index)
        models = list(scores.columns)
        matrix = np.asarray(scores.to_numpy(), dtype=np.float64)
    elif isinstance(scores, Mapping):
        datasets = list(scores)
        if not datasets:
            raise ValueError("scores is empty; give {data set: {model: score}}.")
        for name in datasets:
            if not isinstance(scores[name], Mapping):
                raise TypeError(
                    f"scores[{name!r}] must be a mapping {{model: score}}; got "
                    f"{type(scores[name]).__name__}."
                )
        models = list(scores[datasets[0]])
        for name in datasets[1:]:
            if set(scores[name]) != set(models):
                missing = sorted(map(str, set(models) - set(scores[name])))
                extra = sorted(map(str, set(scores[name]) - set(models)))
                raise ValueError(
                    f"Every data set needs a score for every model: data set {name!r} lacks "
                    f"{missing} and has {extra} beyond those of {datasets[0]!r}. Compare the "
                    "models that every data set has."
                )
        try:
            matrix = np.array([[scores[d][m] for m in models] for d in datasets],
                              dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("scores must hold one number per data set and model.") from None
    else:
        raise TypeError(
            "scores must be a mapping {data set: {model: score}}, a pandas DataFrame with one "
            "row per data set and one column per model, or a SeedSummary; got "
            f"{type(scores).__name__}."
        )
    if len(models) < 2 or len(datasets) < 2:
        raise ValueError(
            f"Comparing across data sets needs at least 2 models and 2 data sets; got "
            f"{len(models)} model(s) and {len(datasets)} data set(s)."
        )
    bad = ~np.isfinite(matrix)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"The scores must be finite; model {models[j]!r} on data set {datasets[i]!r} has "
            f"{matrix[i, j]}."
        )
    return datasets, models, matrix


def maximal_cliques(adjacent):
    """Maximal cliques of an undirected graph given by a boolean adjacency matrix.

    Bron and Kerbosch's algorithm with pivoting; a handful of models is a tiny graph.

    Returns
    -------
    cliques : list of tuple of int
        Each clique's vertices in increasing order, the cliques in lexicographic order.
    """
    k = len(adjacent)
    neighbours = [set(np.flatnonzero(adjacent[i])) - {i} for i in range(k)]
    out = []

    def expand(clique, candidates, excluded):
        if not candidates and not excluded:
            out.append(tuple(sorted(clique)))
            return
        pivot = max(candidates | excluded, key=lambda v: len(neighbours[v] & candidates))
        for v in list(candidates - neighbours[pivot]):
            expand(clique | {v}, candidates & neighbours[v], excluded & neighbours[v])
            candidates = candidates - {v}
            excluded = excluded | {v}

    expand(set(), set(range(k)), set())
    return sorted(out)


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test that all models rank alike across data sets.

    Attributes
    ----------
    statistic : float
        Friedman's chi-square, with the correction for tied ranks, as
        :func:`scipy.stats.friedmanchisquare` computes it.
    pvalue : float
        Its p-value, from the chi-square distribution with ``k - 1`` degrees of freedom.
    iman_davenport_statistic : float
        Iman and Davenport's ``F = (N - 1) chi2 / (N (k - 1) - chi2)``, less conservative
        than the chi-square (Demšar 2006); infinite when every data set ranks the models
        alike.
    iman_davenport_pvalue : float
        Its p-value, from the F distribution with ``k - 1`` and ``(k - 1)(N - 1)`` degrees
        of freedom.
    smallest_pvalue : float
        The smallest p-value of the chi-square test with these numbers of data sets and
        models (every data set ranking the models alike).

    When every data set ties every model, both statistics are 0 and both p-values 1.
    """

    statistic: float
    pvalue: float
    iman_davenport_statistic: float
    iman_davenport_pvalue: float
    smallest_pvalue: float


def friedman_test(matrix):
    """:class:`FriedmanResult` of scores of shape (n_datasets, n_models), ``k >= 3``."""
    n, k = matrix.shape
    if np.all(matrix == matrix[:, :1]):
        # Every data set ties every model: the ranks cannot differ (scipy's tie correction
        # would divide 0 by 0).
        return FriedmanResult(0.0, 1.0, 0.0, 1.0, smallest_pvalue("friedman", n, k))
    chi2, pvalue = stats.friedmanchisquare(*matrix.T)
    denominator = n * (k - 1) - chi2
    if denominator <= 0:  # every data set ranks the models alike
        f, f_pvalue = np.inf, 0.0
    else:
        f = (n - 1) * chi2 / denominator
        f_pvalue = float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    return FriedmanResult(float(chi2), float(pvalue), float(f), f_pvalue,
                          smallest_pvalue("friedman", n, k))


@dataclass(frozen=True)
class PairwiseTest:
    """One post-hoc comparison of :func:`compare_datasets`: ``model_a`` against ``model_b``.

    Attributes
    ----------
    model_a, model_b : str
        The two models, ``model_a`` before ``model_b`` in the order given.
    statistic : float
        Wilcoxon's ``W`` (:func:`scipy.stats.wilcoxon`), the number of data sets ``model_a``
        wins (sign test), or the difference of average ranks ``a - b`` (Nemenyi).
    pvalue : float
        Uncorrected p-value; 1.0 when the two models score alike on every data set.
    pvalue_corrected : float
        Corrected over the ``k (k - 1) / 2`` pairs (equal to ``pvalue`` for Nemenyi, whose
        distribution already accounts for them, and with ``correction=None``).
    significant : bool
        ``pvalue_corrected <= alpha``.
    wins, ties, losses : int
        Data sets on which ``model_a`` scores above, the same as, below ``model_b``.
    """

    model_a: object
    model_b: object
    statistic: float
    pvalue: float
    pvalue_corrected: float
    significant: bool
    wins: int
    ties: int
    losses: int


class AcrossDatasetsResult(_table.TextTable):
    """Models compared across data sets, from :func:`compare_datasets`.

    Renders as a ranks table with the tests beneath: ``str(result)`` or :meth:`to_string`,
    :meth:`to_markdown`, :meth:`to_latex`, :meth:`to_html`, :meth:`to_frame`.

    Attributes
    ----------
    datasets, models : list
        Names, in the order given.
    scores : ndarray of shape (n_datasets, n_models)
        The score of each model on each data set.
    ranks : ndarray of shape (n_datasets, n_models)
        Ranks within each data set, 1 for the best, ties sharing their average rank.
    average_ranks : ndarray of shape (n_models,)
        Mean rank of each model over the data sets.
    friedman : FriedmanResult or None
        Friedman's test; None with 2 models (the one post-hoc pair is then the test).
    posthoc : str
        ``"wilcoxon"``, ``"sign"`` or ``"nemenyi"``.
    correction : str or None
        ``"holm"``, ``"bonferroni"`` or None.
    pairs : list of PairwiseTest
        Every pair of models.
    pvalues, pvalues_corrected : ndarray of shape (n_models, n_models)
        Symmetric matrices of the pairs' p-values; NaN on the diagonal.
    significant : ndarray of shape (n_models, n_models)
        Whether each pair differs at ``alpha``.
    groups : list of tuple
        The maximal groups of two or more models that no test tells apart (the maximal
        cliques of the graph of non-significant pairs), each in order of average rank.
    critical_difference : float or None
        Nemenyi's ``CD = q_alpha sqrt(k (k + 1) / (6 N))``; None for the other tests.
    smallest_pvalue : float
        The smallest p-value the post-hoc test can give with these data sets.
    posthoc_can_reject : bool
        Whether any pair can be declared different at ``alpha`` with these data sets:
        ``smallest_pvalue``, times the number of pairs under Holm's or Bonferroni's
        correction, is at most ``alpha``.
    datasets_needed : int or None
        The fewest data sets with which the post-hoc test could declare a pair different.
    power : dict or None
        Data set -> :class:`QuerySetSize`, shown as the power lines.
    alpha, higher_is_better
        The settings of :func:`compare_datasets`.
    """

    def __init__(self, *, datasets, models, scores, ranks, friedman, posthoc, correction,
                 pairs, critical_difference, smallest_pvalue, datasets_needed, alpha,
                 higher_is_better, power=None):
        self.datasets = datasets
        self.models = models
        self.scores = scores
        self.ranks = ranks
        self.average_ranks = ranks.mean(axis=0)
        self.friedman = friedman
        self.posthoc = posthoc
        self.correction = correction
        self.pairs = pairs
        self.critical_difference = critical_difference
        self.smallest_pvalue = smallest_pvalue
        self.datasets_needed = datasets_needed
        self.alpha = alpha
        self.higher_is_better = higher_is_better
        self.power = power
        k = len(models)
        self.pvalues = np.full((k, k), np.nan)
        self.pvalues_corrected = np.full((k, k), np.nan)
        self.significant = np.zeros((k, k), dtype=bool)
        index = {name: i for i, name in enumerate(models)}
        for p in pairs:
            i, j = index[p.model_a], index[p.model_b]
            self.pvalues[i, j] = self.pvalues[j, i] = p.pvalue
            self.pvalues_corrected[i, j] = self.pvalues_corrected[j, i] = p.pvalue_corrected
            self.significant[i, j] = self.significant[j, i] = p.significant
        order = np.argsort(self.average_ranks, kind="stable")
        position = np.empty(k, dtype=int)
        position[order] = np.arange(k)
        self.groups = [
            tuple(models[i] for i in sorted(clique, key=lambda i: position[i]))
            for clique in maximal_cliques(~self.significant)
            if len(clique) > 1
        ]
        self.groups.sort(key=lambda g: [position[index[m]] for m in g])

    @property
    def posthoc_can_reject(self):
        return self._factor() * self.smallest_pvalue <= self.alpha

    def _factor(self):
        m = len(self.pairs)
        return m if self.correction in ("holm", "bonferroni") else 1

    def test_lines(self):
        """The lines under the table, in words: the tests, their verdicts, the limits.

        Returns
        -------
        lines : list of str
        """
        return _test_lines(self)

    def to_string(self, digits=3):
        """The ranks table as plain text, with the tests beneath.

        Parameters
        ----------
        digits : int, default=3
            Decimals of the scores.

        Returns
        -------
        table : str
        """
        return _render(self, "text", digits)

    def to_markdown(self, digits=3):
        """The ranks table in Markdown, the best score of each data set in bold.

        Parameters
        ----------
        digits : int, default=3
            Decimals of the scores.

        Returns
        -------
        table : str
        """
        return _render(self, "markdown", digits)

    def to_latex(self, digits=3, *, caption=None, label=None):
        """The ranks table as a LaTeX ``table`` a paper can include as it is.

        booktabs rules, the best score of each data set and the best average rank in bold,
        the tests as footnote lines, special characters (``_``, ``&``, ``%``...) escaped.

        Parameters
        ----------
        digits : int, default=3
            Decimals of the scores.

        caption : str, default=None
            The table's caption, as LaTeX (not escaped); none when None.

        label : str, default=None
            Its ``\\label``; none when None.

        Returns
        -------
        table : str
            Needs ``\\usepackage{booktabs}``.
        """
        return _render(self, "latex", digits, caption=caption, label=label)

    def to_html(self, digits=3, *, figure=None):
        """An HTML fragment: the ranks table, the tests and the critical difference diagram.

        Parameters
        ----------
        digits : int, default=3
            Decimals of the scores.

        figure : matplotlib Figure or display, default=None
            The diagram to embed as a PNG image (base64 data URI), e.g.
            ``CriticalDifferenceDisplay.from_result(result).figure_``, or the display
            itself. No image when None.

        Returns
        -------
        fragment : str
            A ``<section class="across-datasets">`` element, its text escaped.
        """
        return _html(self, digits, figure)

    def to_frame(self, kind="ranks"):
        """The result as a pandas DataFrame.

        Parameters
        ----------
        kind : {"ranks", "scores", "pairs"}, default="ranks"
            ``"ranks"``: one row per data set and a last row ``"average rank"``, one column
            per model. ``"scores"``: the scores. ``"pairs"``: one row per pair of models,
            with the statistic, the raw and corrected p-values, the verdict and the wins,
            ties and losses.

        Returns
        -------
        frame : pandas.DataFrame
        """
        from ..utils._optional import import_optional

        pd = import_optional("pandas", extra="pandas",
                             purpose="AcrossDatasetsResult.to_frame")
        if kind == "ranks":
            frame = pd.DataFrame(self.ranks, index=list(self.datasets), columns=self.models)
            frame.loc["average rank"] = self.average_ranks
            return frame
        if kind == "scores":
            return pd.DataFrame(self.scores, index=list(self.datasets), columns=self.models)
        if kind == "pairs":
            return pd.DataFrame.from_records([vars(p) for p in self.pairs])
        raise ValueError(f"kind must be 'ranks', 'scores' or 'pairs'; got {kind!r}.")


@validate_params(
    {
        "scores": "no_validation",
        "metric": [str, None],
        "posthoc": [StrOptions(set(POSTHOCS))],
        "correction": [StrOptions({"auto", "holm", "bonferroni"}), None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "higher_is_better": ["boolean"],
        "power": [Mapping, None],
    },
    prefer_skip_nested_validation=True,
)
def compare_datasets(scores, *, metric=None, posthoc="wilcoxon", correction="auto", alpha=0.05,
                     higher_is_better=True, power=None):
    """Compare models across data sets: ranks, Friedman's test and post-hoc tests.

    Each data set gives one score per model (e.g. the mean ``nDCG@10`` over its queries and
    seeds) and ranks the models; Friedman's test asks whether the models' ranks differ more
    than chance allows, and a post-hoc test compares each pair of models over the data
    sets. Scores are never averaged across data sets, whose scales differ.

    Parameters
    ----------
    scores : dict, pandas DataFrame or SeedSummary
        ``{data set: {model: score}}``, every data set with the same models; a DataFrame with
        one row per data set and one column per model; or the :class:`SeedSummary` of
        :func:`seed_summary`, whose means over queries and seeds are read.

    metric : str, default=None
        With a :class:`SeedSummary` of several metrics, the metric to compare.

    posthoc : {"wilcoxon", "sign", "nemenyi"}, default="wilcoxon"
        The comparison of each pair of models. ``"wilcoxon"``: Wilcoxon's signed-rank test
        on the differences of the two models' scores over the data sets
        (:func:`scipy.stats.wilcoxon`, zero differences dropped). ``"sign"``: the sign test
        on the data sets each model wins (:func:`scipy.stats.binomtest`, ties dropped). Both
        depend on the two models only, as Benavoli et al. (2016) recommend. ``"nemenyi"``:
        Nemenyi's test on the difference of average ranks, as in Demšar (2006); its verdict
        on a pair depends on which other models are in the table.

    correction : {"auto", "holm", "bonferroni"} or None, default="auto"
        Correction of the pairwise p-values for multiple comparisons (see
        :func:`adjust_pvalues`). ``"auto"``: Holm's for the Wilcoxon and sign tests, none
        for Nemenyi's, whose studentized range already accounts for all pairs (another
        correction is refused with it).

    alpha : float, default=0.05
        Significance level of every test.

    higher_is_better : bool, default=True
        Whether a higher score ranks first (every ``*_score`` metric).

    power : dict, default=None
        Data set -> :class:`QuerySetSize` (from :func:`query_set_size`), printed beneath the
        tests: whether each data set has enough queries.

    Returns
    -------
    result : AcrossDatasetsResult
        ``average_ranks``, ``friedman``, ``pairs``, ``groups``, ``critical_difference``,
        and the tables.

    See Also
    --------
    seed_summary : The means over queries and seeds, with their spread over seeds.
    bayesian_signed_rank_test : The Bayesian counterpart of the Wilcoxon test over data sets.
    sklearn_rank.plot.CriticalDifferenceDisplay : The average ranks and the groups, drawn.

    Notes
    -----
    Ranks are within each data set, 1 for the best, ties sharing their average rank.
    Friedman's statistic is :func:`scipy.stats.friedmanchisquare`'s (with its correction for
    ties); Iman and Davenport's F is reported beside it. Nemenyi's critical difference is
    :math:`CD = q_\\alpha \\sqrt{k(k+1)/(6N)}` for ``k`` models and ``N`` data sets, with
    :math:`q_\\alpha` the studentized range quantile over :math:`\\sqrt 2`
    (:func:`scipy.stats.studentized_range`, infinite degrees of freedom).

    With few data sets a test cannot reach significance at all: Wilcoxon's exact test on
    5 data sets gives at best p = 2/2**5 = 0.0625. The result then says so (``smallest_pvalue``,
    ``posthoc_can_reject``, ``datasets_needed``) and its text prints the limit, not the
    p-values, which could only read as "no difference".

    References
    ----------
    .. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data sets",
       JMLR 7, 2006.
    .. [2] A. Benavoli, G. Corani and F. Mangili, "Should we really use post-hoc tests based
       on mean-ranks?", JMLR 17(5), 2016.
    .. [3] R. L. Iman and J. M. Davenport, "Approximations of the critical region of the
       Friedman statistic", Communications in Statistics 9(6), 1980.

    Examples
    --------
    >>> from sklearn_rank.stats import compare_datasets
    >>> scores = {
    ...     "web30k": {"lambdamart": 0.52, "xgb": 0.51, "ridge": 0.45},
    ...     "yahoo": {"lambdamart": 0.79, "xgb": 0.79, "ridge": 0.74},
    ...     "istella": {"lambdamart": 0.71, "xgb": 0.69, "ridge": 0.62},
    ...     "mq2008": {"lambdamart": 0.50, "xgb": 0.51, "ridge": 0.47},
    ... }
    >>> result = compare_datasets(scores)
    >>> result.average_ranks
    array([1.375, 1.625, 3.   ])
    >>> round(result.friedman.pvalue, 4)
    0.0381
    >>> result.posthoc_can_reject, result.datasets_needed
    (False, 7)
    >>> print(result.test_lines()[1])
    Post-hoc: with 4 data sets, the Wilcoxon signed-rank test cannot reach alpha = 0.05 \
after Holm's correction over 3 pairs: its smallest p-value is 0.125 (0.375 corrected). \
No pair can be declared different; 7 data sets are needed.
    """
    datasets, models, matrix = _read_scores(scores, metric)
    n, k = matrix.shape
    if correction == "auto":
        correction = None if posthoc == "nemenyi" else "holm"
    elif posthoc == "nemenyi" and correction is not None:
        raise ValueError(
            f"correction={correction!r} does not go with posthoc='nemenyi': Nemenyi's "
            "studentized range already accounts for all pairs. Use correction='auto'."
        )
    ranks = np.apply_along_axis(stats.rankdata, 1, -matrix if higher_is_better else matrix)
    average = ranks.mean(axis=0)
    friedman = friedman_test(matrix) if k >= 3 else None
    index_pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    raw, statistics = [], []
    for i, j in index_pairs:
        x, y = matrix[:, i], matrix[:, j]
        if posthoc == "wilcoxon":
            statistic, p = run_test(x, y, test="wilcoxon", alternative="two-sided",
                                    n_resamples=1, rng=None)
        elif posthoc == "sign":
            wins, losses = int(np.sum(x > y)), int(np.sum(x < y))
            statistic = float(wins)
            p = float(stats.binomtest(wins, wins + losses, 0.5).pvalue) if wins + losses else 1.0
        else:
            statistic = float(average[i] - average[j])
            p = _nemenyi_pvalue(statistic, k, n)
        raw.append(p)
        statistics.append(statistic)
    raw = np.array(raw)
    corrected = raw if correction is None else adjust_pvalues(raw, method=correction)
    better = 1 if higher_is_better else -1
    pairs = [
        PairwiseTest(models[i], models[j], float(s), float(p), float(q), bool(q <= alpha),
                     int(np.sum(better * (matrix[:, i] - matrix[:, j]) > 0)),
                     int(np.sum(matrix[:, i] == matrix[:, j])),
                     int(np.sum(better * (matrix[:, i] - matrix[:, j]) < 0)))
        for (i, j), s, p, q in zip(index_pairs, statistics, raw, corrected)
    ]
    factor = len(pairs) if correction is not None else 1
    cd = None
    if posthoc == "nemenyi":
        cd = float(studentized_range_q(k, alpha) * _nemenyi_se(k, n))
    return AcrossDatasetsResult(
        datasets=datasets, models=models, scores=matrix, ranks=ranks, friedman=friedman,
        posthoc=posthoc, correction=correction, pairs=pairs, critical_difference=cd,
        smallest_pvalue=smallest_pvalue(posthoc, n, k),
        datasets_needed=_needed_datasets(posthoc, k, alpha, factor), alpha=alpha,
        higher_is_better=higher_is_better, power=power,
    )


# -- Rendering ----------------------------------------------------------------------------


def _p(p):
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.1e}"


def _test_lines(result):
    n, k = result.scores.shape
    alpha = f"alpha = {result.alpha:g}"
    lines = []
    f = result.friedman
    if f is None:
        lines.append("Friedman: not run with 2 models; the post-hoc test of the pair is the "
                     "comparison.")
    elif f.smallest_pvalue > result.alpha:
        lines.append(
            f"Friedman: with {n} data sets and {k} models, the chi-square test cannot reach "
            f"{alpha} (its smallest p-value is {_p(f.smallest_pvalue)}); Iman-Davenport F = "
            f"{f.iman_davenport_statistic:.3g}, p = {_p(f.iman_davenport_pvalue)}."
        )
    else:
        verdict = "the ranks differ" if f.pvalue <= result.alpha else "no difference found"
        lines.append(
            f"Friedman: chi2({k - 1}) = {f.statistic:.3g}, p = {_p(f.pvalue)} ({verdict} at "
            f"{alpha}); Iman-Davenport F({k - 1}, {(k - 1) * (n - 1)}) = "
            f"{f.iman_davenport_statistic:.3g}, p = {_p(f.iman_davenport_pvalue)}."
        )
    test = _POSTHOC_NAMES[result.posthoc]
    m = len(result.pairs)
    if result.correction is None:
        how = ""
    else:
        how = (f" after {result.correction.capitalize()}'s correction over {m} "
               f"{'pair' if m == 1 else 'pairs'}")
    if not result.posthoc_can_reject:
        corrected = ""
        if result.correction is not None:
            corrected = f" ({_p(min(1.0, m * result.smallest_pvalue))} corrected)"
        needed = (f"{result.datasets_needed} data sets are needed"
                  if result.datasets_needed else "more data sets are needed")
        lines.append(
            f"Post-hoc: with {n} data sets, the {test} cannot reach {alpha}{how}: its "
            f"smallest p-value is {_p(result.smallest_pvalue)}{corrected}. No pair can be "
            f"declared different; {needed}."
        )
    else:
        if result.posthoc == "nemenyi":
            q = studentized_range_q(k, result.alpha)
            head = (f"Post-hoc: {test}, {alpha}: critical difference CD = {q:.3f} x "
                    f"sqrt({k}x{k + 1}/(6x{n})) = {result.critical_difference:.3f} in "
                    "average rank.")
        else:
            head = f"Post-hoc: {test} over the {n} data sets, {alpha}{how}."
        found = [p for p in result.pairs if p.significant]
        if found:
            parts = []
            for p in found:
                a, b = p.model_a, p.model_b
                if p.wins < p.losses or (p.wins == p.losses and p.statistic < 0):
                    a, b = b, a
                parts.append(f"{a} > {b} (p = {_p(p.pvalue_corrected)})")
            head += " Significant: " + "; ".join(parts) + "."
        else:
            head += " No pair differs significantly."
        lines.append(head)
    if result.groups:
        groups = "; ".join("{" + ", ".join(map(str, g)) + "}" for g in result.groups)
        lines.append(f"Not told apart: {groups}.")
    for dataset, size in (result.power or {}).items():
        lines.append(f"Queries, {dataset}: {size.summary()}")
    return lines


def _cells(result, digits, fmt):
    rows = []
    for d, name in enumerate(result.datasets):
        row = result.scores[d]
        best = row.max() if result.higher_is_better else row.min()
        cells = []
        for j, value in enumerate(row):
            text = f"{value:.{digits}f}"
            if value == best and fmt == "markdown":
                text = f"**{text}**"
            elif value == best and fmt == "latex":
                text = rf"\textbf{{{text}}}"
            cells.append(f"{text} ({result.ranks[d, j]:g})")
        rows.append([str(name), *cells])
    avg = result.average_ranks
    last = []
    for value in avg:
        text = f"{value:.2f}"
        if value == avg.min() and fmt == "markdown":
            text = f"**{text}**"
        elif value == avg.min() and fmt == "latex":
            text = rf"\textbf{{{text}}}"
        last.append(text)
    rows.append(["Average rank", *last])
    return rows


def _render(result, fmt, digits, caption=None, label=None):
    header = ["Data set", *map(str, result.models)]
    rows = _cells(result, digits, fmt)
    notes = ["Score (rank within the data set, 1 = best).", *result.test_lines()]
    if fmt == "text":
        lines = [_table.format_table(header, rows, "text"), ""]
        for note in notes:
            lines += _table.wrap(note)
        return "\n".join(lines)
    if fmt == "markdown":
        return "\n".join([_table.format_table(header, rows, "markdown"), "", *notes])
    esc = _table._latex_escape
    ncols = len(header)
    lines = [r"\begin{table}", r"\centering"]
    if caption is not None:
        lines.append(rf"\caption{{{caption}}}")
    if label is not None:
        lines.append(rf"\label{{{label}}}")
    lines += [r"\begin{tabular}{l" + "r" * (ncols - 1) + "}", r"\toprule",
              " & ".join(esc(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join([esc(r[0]), *r[1:]]) + r" \\" for r in rows[:-1]]
    lines.append(r"\midrule")
    lines.append(" & ".join([rows[-1][0], *rows[-1][1:]]) + r" \\")
    lines.append(r"\bottomrule")
    lines.append(r"\end{tabular}")
    lines += [r"\par\smallskip", r"\begin{minipage}{\linewidth}\footnotesize"]
    lines += [esc(note) + r"\par" for note in notes]
    lines += [r"\end{minipage}", r"\end{table}"]
    return "\n".join(lines)


def figure_png(figure):
    """A matplotlib figure (or a display holding one) as base64 PNG text."""
    figure = getattr(figure, "figure_", figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", dpi=110)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _html(result, digits, figure):
    esc = html.escape
    head = "".join(f"<th>{esc(str(h))}</th>" for h in ["Data set", *result.models])
    body = []
    for row_cells, best in zip(_cells(result, digits, "text"), _best_flags(result)):
        cells = [f"<th>{esc(row_cells[0])}</th>"]
        cells += [f"<td><strong>{esc(c)}</strong></td>" if b else f"<td>{esc(c)}</td>"
                  for c, b in zip(row_cells[1:], best)]
        body.append("<tr>" + "".join(cells) + "</tr>")
    parts = ['<section class="across-datasets">', "<h2>Across data sets</h2>",
             "<table>", f"<thead><tr>{head}</tr></thead>",
             "<tbody>" + "".join(body) + "</tbody>", "</table>",
             "<p>Score (rank within the data set, 1 = best).</p>"]
    parts += [f"<p>{esc(line)}</p>" for line in result.test_lines()]
    if figure is not None:
        alt = "Critical difference diagram: average ranks of " + ", ".join(
            map(str, result.models))
        parts.append(f'<img alt="{esc(alt)}" src="data:image/png;base64,'
                     f'{figure_png(figure)}">')
    parts.append("</section>")
    return "\n".join(parts)


def _best_flags(result):
    flags = []
    for row in result.scores:
        best = row.max() if result.higher_is_better else row.min()
        flags.append(row == best)
    avg = result.average_ranks
    flags.append(avg == avg.min())
    return flags
