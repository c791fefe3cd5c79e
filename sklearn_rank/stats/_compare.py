"""Many systems at once: all pairs or each against a baseline, with corrected p-values."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Real

import numpy as np

from ..utils._optional import import_optional
from ..utils._param_validation import Interval, StrOptions, validate_params
from . import _table
from ._data import align, as_sources, common_metrics, fold_means
from ._paired import (
    CONSTRAINTS,
    compare_pair,
    difference_ci_method,
    estimate_mean,
    fill_doc,
    rng_source,
)

CORRECTIONS = ("holm", "bonferroni")


def _is_stored_run(systems):
    """Whether ``systems`` follows the protocol of a stored run
    (:class:`~sklearn_rank.benchmark.StoredRun`): a mapping of systems that says what its run
    compared them with, its ``metrics``, ``baseline`` and ``seed``. Read so, ``stats``
    imports nothing of the benchmark layer above it."""
    return isinstance(systems, Mapping) and all(
        hasattr(systems, name) for name in ("metrics", "baseline", "seed"))


@validate_params(
    {"pvalues": ["array-like"], "method": [StrOptions(set(CORRECTIONS))]},
    prefer_skip_nested_validation=True,
)
def adjust_pvalues(pvalues, *, method="holm"):
    """Correct the p-values of a family of tests for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of shape (n_tests,)
        p-values of the family, in [0, 1]. NaN entries are left out of the family and stay
        NaN.

    method : {"holm", "bonferroni"}, default="holm"
        ``"bonferroni"``: each p-value times the number of tests ``m``. ``"holm"``: Holm's
        step-down method; with the p-values sorted increasingly, the ``i``-th (from 1) is
        multiplied by ``m - i + 1``, then made non-decreasing by a running maximum. Both
        are capped at 1 and control the family-wise error rate under any dependence between
        the tests; Holm's rejects at least as much as Bonferroni's.

    Returns
    -------
    adjusted : ndarray of shape (n_tests,)
        Adjusted p-values, in the order of ``pvalues``: reject the hypotheses whose adjusted
        p-value is at most ``alpha``.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.

    Examples
    --------
    >>> from sklearn_rank.stats import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], method="holm")
    array([0.03, 0.06, 0.06, 0.02])
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], method="bonferroni")
    array([0.04, 0.16, 0.12, 0.02])
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D; got an array of shape {p.shape}.")
    known = ~np.isnan(p)
    q = p[known]
    if ((q < 0) | (q > 1)).any():
        raise ValueError(f"pvalues must lie in [0, 1]; got {q[(q < 0) | (q > 1)][0]}.")
    m = len(q)
    if method == "bonferroni":
        adjusted = q * m
    else:
        order = np.argsort(q, kind="stable")
        adjusted = np.empty(m)
        adjusted[order] = np.maximum.accumulate((m - np.arange(m)) * q[order])
    out = np.full(p.shape, np.nan)
    out[known] = np.minimum(adjusted, 1.0)
    return out


@dataclass(frozen=True)
class Comparison:
    """One test of :func:`compare`: ``system_a`` against ``system_b`` on one metric.

    Attributes
    ----------
    metric : str
        The metric.
    system_a, system_b : str
        The two systems; differences are ``system_a - system_b``. Against a baseline,
        ``system_b`` is the baseline.
    result : PairedTestResult
        The test, the mean difference with its confidence interval (``result.ci_method``
        says how it was computed), the effect size.
    pvalue : float
        The p-value of the test, uncorrected.
    pvalue_corrected : float
        The p-value corrected over the comparisons of this metric (equal to ``pvalue`` with
        ``correction=None``).
    significant : bool
        ``pvalue_corrected <= alpha``.
    """

    metric: str
    system_a: object
    system_b: object
    result: object
    pvalue: float
    pvalue_corrected: float
    significant: bool


class ComparisonResult(_table.TextTable):
    """Means, confidence intervals and corrected tests of several systems, from :func:`compare`.

    Renders as a results table: ``str(result)`` or :meth:`to_string`, :meth:`to_markdown`,
    :meth:`to_latex`, :meth:`to_csv`, :meth:`to_frame`.

    Attributes
    ----------
    systems : list
        System names, in the order given.
    metrics : list of str
        Metric names.
    baseline : str or None
        The baseline, or None when all pairs were compared.
    estimates : dict
        ``estimates[metric][system]``: a :class:`MeanEstimate` (mean and confidence
        interval).
    comparisons : list of Comparison
        Every test, metric by metric.
    pvalues : dict
        ``pvalues[metric]``: array of shape (n_systems, n_systems) of the uncorrected
        p-values, symmetric, in the order of ``systems``; NaN where no test was run
        (the diagonal; pairs without the baseline).
    pvalues_corrected : dict
        The same with corrected p-values.
    fold_means : dict
        ``fold_means[metric][system]``: dict fold -> mean over that fold's test queries, or
        None when the values came without folds.
    n : dict
        ``n[metric]``: number of units (queries, or folds with ``unit="fold"``).
    ci_method : str
        The method of the intervals of the means: ``"BCa"``, ``"percentile"``, ``"basic"``
        or ``"t"`` (``ci_method="auto"`` of :func:`compare` gives ``"BCa"``).
    difference_ci_method : str
        The method of the intervals of the mean differences of the comparisons
        (``ci_method="auto"``: the test's own, ``"t"`` with the t-test).
    test, correction, alpha, confidence_level, unit
        The settings of :func:`compare`.
    """

    def __init__(self, *, systems, metrics, baseline, estimates, comparisons, fold_means, n,
                 test, correction, alpha, confidence_level, ci_method, unit,
                 difference_ci_method=None):
        self.systems = systems
        self.metrics = metrics
        self.baseline = baseline
        self.estimates = estimates
        self.comparisons = comparisons
        self.fold_means = fold_means
        self.n = n
        self.test = test
        self.correction = correction
        self.alpha = alpha
        self.confidence_level = confidence_level
        self.ci_method = ci_method
        self.difference_ci_method = (ci_method if difference_ci_method is None
                                     else difference_ci_method)
        self.unit = unit
        self.pvalues = self._matrix("pvalue")
        self.pvalues_corrected = self._matrix("pvalue_corrected")

    def _matrix(self, attribute):
        index = {name: i for i, name in enumerate(self.systems)}
        out = {m: np.full((len(self.systems),) * 2, np.nan) for m in self.metrics}
        for c in self.comparisons:
            i, j = index[c.system_a], index[c.system_b]
            out[c.metric][i, j] = out[c.metric][j, i] = getattr(c, attribute)
        return out

    @property
    def n_folds(self):
        """Number of cross-validation folds the queries came from, or None."""
        folds = {f for per_system in self.fold_means.values()
                 for means in per_system.values() if means is not None for f in means}
        return len(folds) or None

    def to_string(self, digits=3):
        """The results table as plain text, with its legend.

        Parameters
        ----------
        digits : int, default=3
            Decimals of the means and interval bounds.

        Returns
        -------
        table : str
        """
        return _table.render(self, "text", digits)

    def to_markdown(self, digits=3):
        """The results table in Markdown (GitHub's pipe tables), best mean in bold.

        Parameters
        ----------
        digits : int, default=3
            Decimals of the means and interval bounds.

        Returns
        -------
        table : str
        """
        return _table.render(self, "markdown", digits)

    def to_latex(self, digits=3):
        """The results table as a LaTeX ``tabular`` (booktabs rules), best mean in bold.

        Parameters
        ----------
        digits : int, default=3
            Decimals of the means and interval bounds.

        Returns
        -------
        table : str
            Needs ``\\usepackage{booktabs}``.
        """
        return _table.render(self, "latex", digits)

    def to_csv(self, path_or_buf=None, *, index_label="system"):
        """The results as CSV: one row per system, every number with all its digits.

        Needs neither pandas nor a file: without ``path_or_buf``, the text is returned.

        Parameters
        ----------
        path_or_buf : str, path-like, file-like or None, default=None
            Where to write: a path (written as UTF-8) or an object with a ``write`` method
            (a text file open with ``newline=""``, an :class:`io.StringIO`). None returns
            the text.

        index_label : str, default="system"
            The header of the first column, which holds the system names.

        Returns
        -------
        text : str or None
            The CSV text when ``path_or_buf`` is None, else None.

        Notes
        -----
        Columns, for each metric ``m``: ``m mean``, ``m ci_low``, ``m ci_high``, then,
        against a baseline, ``m pvalue_corrected`` (empty for the baseline) and
        ``m vs baseline`` (``higher``, ``lower`` or ``same`` for a significant difference
        or none, ``baseline`` for the baseline); without a baseline, ``m higher_than`` and
        ``m lower_than``: the systems it is significantly above or below,
        comma-separated.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_rank.stats import compare
        >>> rng = np.random.default_rng(0)
        >>> a = rng.uniform(size=50)
        >>> b = np.clip(a + rng.normal(0.1, 0.1, size=50), 0, 1)
        >>> result = compare({"bm25": a, "reranked": b}, baseline="bm25", random_state=0)
        >>> print(result.to_csv().splitlines()[0])
        system,score mean,score ci_low,score ci_high,score pvalue_corrected,score vs baseline
        """
        text = _table.csv_table(self, index_label)
        if path_or_buf is None:
            return text
        if hasattr(path_or_buf, "write"):
            path_or_buf.write(text)
        else:
            with open(path_or_buf, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        return None

    def to_records(self, *, index_label="system"):
        """The rows of :meth:`to_csv` as dicts: numbers as floats, empty cells as None.

        For JSON, without pandas: the verdicts (``m vs baseline``, ``m higher_than``,
        ``m lower_than``) stay text.

        Parameters
        ----------
        index_label : str, default="system"
            The key of the system names.

        Returns
        -------
        rows : list of dict
            One per system, in order, keyed by the columns of :meth:`to_csv`.
        """
        import csv
        import io

        rows = list(csv.DictReader(io.StringIO(self.to_csv(index_label=index_label))))
        for row in rows:
            for key, value in row.items():
                if key == index_label or key.endswith(("vs baseline", "than")):
                    continue
                row[key] = float(value) if value != "" else None
        return rows

    def to_frame(self, kind="summary"):
        """The results as a pandas DataFrame.

        Parameters
        ----------
        kind : {"summary", "comparisons", "folds"}, default="summary"
            ``"summary"``: one row per system, columns ``(metric, field)`` with fields
            ``mean``, ``ci_low``, ``ci_high``, ``higher_than`` and ``lower_than`` (the
            systems it is significantly above or below, comma-separated).
            ``"comparisons"``: one row per test, with the mean difference, its interval
            and the interval's method (``ci_method``: ``"t"``, the t-test's own interval,
            by default with ``test="t"``), the effect size, the statistic and the raw and
            corrected p-values. The interval is at ``confidence_level`` for each
            comparison, not adjusted for multiple comparisons.
            ``"folds"``: one row per system, columns ``(metric, fold)``: the mean over the
            test queries of each fold.

        Returns
        -------
        frame : pandas.DataFrame
        """
        pd = import_optional("pandas", extra="pandas", purpose="ComparisonResult.to_frame")
        if kind == "summary":
            return _table.summary_frame(self, pd)
        if kind == "comparisons":
            return _table.comparisons_frame(self, pd)
        if kind == "folds":
            return _table.folds_frame(self, pd)
        raise ValueError(
            f"kind must be 'summary', 'comparisons' or 'folds'; got {kind!r}."
        )


@validate_params(
    {
        "systems": [Mapping, str, os.PathLike],
        "metric": [str, list, tuple, None],
        "baseline": "no_validation",
        "test": CONSTRAINTS["test"],
        "correction": [StrOptions(set(CORRECTIONS)), None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "confidence_level": CONSTRAINTS["confidence_level"],
        "ci_method": CONSTRAINTS["ci_method"],
        "n_resamples": CONSTRAINTS["n_resamples"],
        "unit": CONSTRAINTS["unit"],
        "random_state": CONSTRAINTS["random_state"],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def compare(systems, *, metric=None, baseline=None, test="t", correction="holm", alpha=0.05,
            confidence_level=0.95, ci_method="auto", n_resamples=9999, unit="query",
            random_state=None):
    """Compare several systems on the same queries: means, intervals, corrected tests.

    For every metric: the mean of each system with its confidence interval, and a two-sided
    paired test (see :func:`paired_test`) of every pair of systems, or of every system
    against ``baseline``, with the p-values corrected for multiple comparisons. The result
    prints as a paper's results table with significance marks.

    Parameters
    ----------
    systems : dict, str or path-like
        A results store (``sklearn-rank cv --store FILE``), whose latest finished run is
        read by :func:`~sklearn_rank.benchmark.load_store`; or system name -> per-query
        values, each value in one of these forms:

        - a :class:`~sklearn_rank.metrics.PerQueryResult` (unweighted), aligned by query
          id, with its folds when it has a fold column;
        - a :class:`~sklearn_rank.metrics.TrecEvalResult`, aligned by query id: its
          measures, by trec_eval's names (``"map"``, ``"P_10"``), not its counts or
          ``relstring``;
        - a tuple ``(qid, values)`` of two array-likes, aligned by query id;
        - a dict (or a pandas or polars DataFrame) of columns: an optional ``"qid"``, an
          optional ``"fold"`` and one column of per-query values per metric; a pandas
          DataFrame without a ``"qid"`` column is aligned by its index (the query ids, as
          ``PerQueryResult.to_frame()`` puts them), unless that is pandas' default index;
        - a pandas Series indexed by query id;
        - the dict returned by
          :func:`sklearn_rank.model_selection.cross_validate` with
          ``return_per_query=True`` (its ``"per_query"`` PerQueryResult is read);
        - an array-like of shape (n_queries,) without query ids, aligned by position.

        Either every system comes with query ids, or none does: pairing by position
        happens only between inputs without ids, and a mix is refused.

        A run of a results store (:func:`~sklearn_rank.benchmark.load_store`, or a store's
        path) brings its metrics, baseline and seed as the defaults of ``metric``,
        ``baseline`` and ``random_state``: the table is the one that the command printed.
        Any mapping of systems with the attributes ``metrics``, ``baseline`` and ``seed``
        is read so.

        All systems must have been evaluated on the same queries (an error names the
        query ids that differ; keep the common ones in every input to compare on them).
        A query that appears in several folds (repeated cross-validation) counts once,
        with the mean of its values.

    metric : str, list of str or None, default=None
        The metrics to compare. ``None``: every metric all systems have. Bare arrays and
        ``(qid, values)`` tuples hold one metric, named ``metric`` when it is a string
        (``"score"`` otherwise).

    baseline : str, default=None
        Compare each system with this one only. ``None`` compares all pairs.

    test : {"t", "wilcoxon", "permutation"}, default="t"
        The paired test; see :func:`paired_test`. Tests are two-sided; use
        :func:`paired_test` for one-sided ones.

    correction : {"holm", "bonferroni"} or None, default="holm"
        Correction for multiple comparisons (see :func:`adjust_pvalues`), within the family
        of the comparisons of each metric. ``None``: no correction.

    alpha : float, default=0.05
        Significance level, in (0, 1): a difference is significant when its corrected
        p-value is at most ``alpha``.

    %(confidence_level)s

    ci_method : {"auto", "BCa", "percentile", "basic", "t"}, default="auto"
        Confidence intervals of the means and of the mean differences: bootstrap
        (:func:`scipy.stats.bootstrap`) or Student's t. ``"auto"``: BCa bootstrap
        intervals of the means, and the interval that belongs to the test for each mean
        difference: Student's t with ``test="t"`` (the t-test inverted: at
        ``confidence_level = 1 - alpha`` it excludes 0 exactly when the uncorrected
        p-value is below ``alpha``), BCa bootstrap with ``"permutation"`` and
        ``"wilcoxon"`` (which no interval of the mean inverts exactly).

    %(n_resamples)s

    %(unit)s

    %(random_state)s

    Returns
    -------
    result : ComparisonResult
        Prints as a table; ``estimates``, ``comparisons``, ``pvalues``,
        ``pvalues_corrected``, ``fold_means``, :meth:`~ComparisonResult.to_frame`.

    See Also
    --------
    paired_test : Two systems, with one-sided alternatives.
    adjust_pvalues : Holm and Bonferroni corrections.

    Notes
    -----
    In the tables, each system gets a letter; a superscript letter marks a mean that is
    significantly higher than that system's (all pairs), or † / ‡ one significantly higher
    / lower than the baseline's. The highest mean of each metric is in bold (Markdown and
    LaTeX). "Higher" is numerical: for metrics where lower is better, read the marks the
    other way round.

    The intervals of the table are those of each system's mean; the marks come from the
    paired tests on the per-query differences, which vary less than the values do: two
    intervals may overlap for a significant difference. The interval of each mean
    difference is in ``comparisons`` and ``to_frame("comparisons")``, at
    ``confidence_level`` for each comparison: a correction for multiple comparisons does
    not widen it, so it may exclude 0 for a difference that the corrected test does not
    find significant.

    With ``cross_validate`` results, each query's value comes from the model that did not
    see it in training; the per-query values of all folds are pooled (queries are the
    unit), and the per-fold means are kept in ``fold_means`` and
    ``to_frame(kind="folds")``. ``unit="fold"`` tests the fold means instead.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.stats import compare
    >>> rng = np.random.default_rng(0)
    >>> bm25 = rng.uniform(0.2, 0.6, size=50)
    >>> systems = {
    ...     "bm25": bm25,
    ...     "lambdamart": bm25 + rng.normal(0.08, 0.05, size=50),
    ...     "ridge": bm25 + rng.normal(0.01, 0.05, size=50),
    ... }
    >>> result = compare(systems, metric="ndcg@10", n_resamples=999, random_state=0)
    >>> print(result)
    System          ndcg@10
    --------------  ----------------------
    (a) bm25        0.411 [0.377, 0.442]
    (b) lambdamart  0.492 [0.453, 0.526]ᵃᶜ
    (c) ridge       0.422 [0.388, 0.454]
    <BLANKLINE>
    Mean over 50 queries [95%% BCa bootstrap CI].
    ᵃᵇᶜ: significantly higher than system (a), (b), (c): paired t-test, two-sided, Holm
    correction over the 3 comparisons of each metric, alpha = 0.05.
    >>> result.pvalues_corrected["ndcg@10"].round(4)
    array([[   nan, 0.    , 0.1012],
           [0.    ,    nan, 0.    ],
           [0.1012, 0.    ,    nan]])
    """
    if isinstance(systems, (str, os.PathLike)):
        # the one way from stats to the store: its public reader, for a path only
        from ..benchmark import load_store

        systems = load_store(systems)
    if _is_stored_run(systems):  # the command's table, unless told otherwise
        metric = list(systems.metrics) if metric is None else metric
        baseline = systems.baseline if baseline is None else baseline
        random_state = systems.seed if random_state is None else random_state
    if len(systems) < 2:
        raise ValueError(
            f"compare needs at least 2 systems; got {len(systems)}. Use bootstrap_ci for the "
            "confidence interval of one system's mean."
        )
    names = list(systems)
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline={baseline!r} is not one of the systems {names}.")
    sources = as_sources(systems, metric=metric)
    metrics = common_metrics(sources, metric)
    rng = rng_source(random_state)
    if baseline is None:
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    else:
        base = names.index(baseline)
        pairs = [(i, base) for i in range(len(names)) if i != base]
    options = dict(confidence_level=confidence_level, n_resamples=n_resamples)
    means_ci = "BCa" if ci_method == "auto" else ci_method
    differences_ci = difference_ci_method(ci_method, test)

    estimates, comparisons, per_fold, n = {}, [], {}, {}
    for m in metrics:
        aligned = align(sources, m, unit)
        values = aligned.values
        n[m] = len(values)
        estimates[m] = {
            name: estimate_mean(values[:, s], method=means_ci, rng=rng(), unit=aligned.unit,
                                ids=aligned.ids, **options)
            for s, name in enumerate(names)
        }
        results = [
            compare_pair(values[:, i], values[:, j], test=test, alternative="two-sided",
                         ci_method=differences_ci, rng=rng, unit=aligned.unit, ids=aligned.ids,
                         **options)
            for i, j in pairs
        ]
        raw = np.array([r.pvalue for r in results])
        corrected = raw if correction is None else adjust_pvalues(raw, method=correction)
        comparisons += [
            Comparison(m, names[i], names[j], r, float(p), float(q), bool(q <= alpha))
            for (i, j), r, p, q in zip(pairs, results, raw, corrected)
        ]
        per_fold[m] = {s.name: fold_means(s, m) for s in sources}
    return ComparisonResult(
        systems=names, metrics=metrics, baseline=baseline, estimates=estimates,
        comparisons=comparisons, fold_means=per_fold, n=n, test=test, correction=correction,
        alpha=alpha, confidence_level=confidence_level, ci_method=means_ci, unit=unit,
        difference_ci_method=differences_ci,
    )
