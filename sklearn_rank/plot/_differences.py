"""Per-query differences between two models, sorted, with the CI of the mean difference."""

from numbers import Integral, Real

import numpy as np

from ..metrics import evaluate_per_query
from ..stats import paired_test
from ..stats._data import as_sources, common_metrics
from ..stats._paired import CI_METHODS, TESTS
from ..stats._table import ci_name
from ..utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from ..utils._qid import metric_qid
from ._common import (
    check_sample_weight,
    estimator_name,
    estimator_scores,
    literal,
    new_or_given_axes,
    pyplot,
)

_CONSTRAINTS = {
    "test": [StrOptions(set(TESTS))],
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "ci_method": [StrOptions({"auto", *CI_METHODS})],
    "n_resamples": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state", np.random.Generator],
}

_TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon", "permutation": "randomization"}


def _check_names(names):
    if isinstance(names, str) or len(names) != 2:
        raise ValueError(f"names must be a pair of model names such as ('A', 'B'); got {names!r}.")
    return tuple(str(n) for n in names)


class PerQueryDifferenceDisplay:
    """Per-query differences of a metric between two models, sorted, with their mean's CI.

    Each bar is one query: the metric of model A minus that of model B, sorted from A's
    largest win on the left to B's largest win on the right. The line is the mean difference
    (the difference of the two models' means) and the band its confidence interval, from
    :func:`sklearn_rank.stats.paired_test`. It shows whether a gain in the mean comes from
    many queries or from a few, and how many queries a model loses.

    It is recommended to create one with :meth:`from_predictions`, :meth:`from_estimator`
    or :meth:`from_cv_results`. All parameters are stored as attributes.

    Parameters
    ----------
    differences : ndarray of shape (n_queries,)
        Per-query differences ``A - B``, in the order to draw them (from the ``from_*``
        methods: decreasing).

    query_ids : ndarray of shape (n_queries,), default=None
        The query of each difference, None when unknown.

    mean_difference : float, default=None
        Mean of the differences; computed from them when None.

    confidence_interval : tuple of float, default=None
        ``(low, high)`` of the mean difference; no band when None.

    confidence_level : float, default=None
        Level of that interval.

    ci_method : str, default=None
        How that interval was computed (``"t"``, ``"BCa"``...), named in the legend.

    pvalue : float, default=None
        p-value of the paired test, shown in the legend when given.

    test : str, default=None
        The test behind ``pvalue``: ``"t"``, ``"wilcoxon"`` or ``"permutation"``.

    metric : str, default=None
        The metric's name, for the axis label.

    names : tuple of str, default=("A", "B")
        Names of the two models.

    Attributes
    ----------
    bars_ : list of two matplotlib BarContainer
        The queries where A is better, and those where B is better (ties have no bar).

    mean_line_ : matplotlib Line2D
        The mean difference.

    band_ : matplotlib PolyCollection or None
        The confidence interval of the mean difference.

    test_result_ : PairedTestResult
        Only on displays made by the ``from_*`` methods: the result of
        :func:`sklearn_rank.stats.paired_test` behind the plot (test, p-value, interval,
        effect size, differences in the order of the query ids).

    ax_ : matplotlib Axes
        Axes with the plot.

    figure_ : matplotlib Figure
        Figure containing the plot.

    See Also
    --------
    sklearn_rank.stats.paired_test : The test and the interval shown.
    MetricAtKDisplay : The metric against its cut-off k.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.plot import PerQueryDifferenceDisplay
    >>> X, y, qid = make_ranking(n_queries=30, random_state=0)
    >>> display = PerQueryDifferenceDisplay.from_predictions(
    ...     y, X[:, 0] + X[:, 1], X[:, 0], qid=qid, metric="ndcg@10",
    ...     names=("features 0 + 1", "feature 0"), n_resamples=999, random_state=0)
    >>> display.differences[:3].round(3)
    array([0.569, 0.342, 0.323])
    >>> round(display.mean_difference, 3)
    0.14
    >>> display.ci_method, [round(bound, 3) for bound in display.confidence_interval]
    ('t', [0.092, 0.189])
    >>> plt.close("all")
    """

    def __init__(self, differences, *, query_ids=None, mean_difference=None,
                 confidence_interval=None, confidence_level=None, pvalue=None, test=None,
                 metric=None, names=("A", "B"), ci_method=None):
        self.differences = differences
        self.query_ids = query_ids
        self.mean_difference = mean_difference
        self.confidence_interval = confidence_interval
        self.confidence_level = confidence_level
        self.ci_method = ci_method
        self.pvalue = pvalue
        self.test = test
        self.metric = metric
        self.names = names

    def plot(self, ax=None, *, names=None, bar_kwargs=None, mean_kwargs=None,
             band_kwargs=None):
        """Draw the sorted differences, their mean and its confidence interval.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.

        names : tuple of str, default=None
            Names of the two models; defaults to the display's ``names``.

        bar_kwargs : dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.bar` for both sets of bars.

        mean_kwargs : dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.axhline` for the mean.

        band_kwargs : dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.fill_between` for the interval.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            The display, with ``bars_``, ``mean_line_``, ``band_``, ``ax_`` and
            ``figure_`` set.
        """
        self.ax_, self.figure_ = new_or_given_axes(ax, f"{type(self).__name__}.plot")
        name_a, name_b = map(literal, _check_names(self.names if names is None else names))
        d = np.asarray(self.differences, dtype=np.float64)
        mean = float(np.mean(d)) if self.mean_difference is None else self.mean_difference
        x = np.arange(1, len(d) + 1)
        wins_a, wins_b = d > 0, d < 0
        bar_kwargs = {"width": 0.8 if len(d) <= 50 else 1.0, "linewidth": 0,
                      **(bar_kwargs or {})}
        self.bars_ = [
            self.ax_.bar(x[wins], d[wins], color=color,
                         label=f"{who} better on {int(wins.sum())} queries", **bar_kwargs)
            for wins, who, color in ((wins_a, name_a, "tab:blue"),
                                     (wins_b, name_b, "tab:orange"))
        ]
        self.ax_.axhline(0.0, color="0.5", linewidth=0.8)
        mean_label = f"mean difference {mean:+.4f}"
        if self.pvalue is not None:
            test = _TEST_NAMES.get(self.test, self.test or "test")
            mean_label += f" ({test} p = {self.pvalue:.2g})"
        mean_kwargs = {"color": "black", "linewidth": 1.5, "label": mean_label,
                       **(mean_kwargs or {})}
        self.mean_line_ = self.ax_.axhline(mean, **mean_kwargs)
        self.band_ = None
        if self.confidence_interval is not None:
            low, high = self.confidence_interval
            level = "" if self.confidence_level is None else f"{self.confidence_level:.0%} "
            method = "" if self.ci_method is None else f"{ci_name(self.ci_method)} "
            band_kwargs = {"color": "black", "alpha": 0.15, "linewidth": 0,
                           "label": f"{level}{method}CI of the mean [{low:+.4f}, {high:+.4f}]",
                           **(band_kwargs or {})}
            # Across the whole x range, as axhspan would, but with the bounds as given.
            self.band_ = self.ax_.fill_between([0, len(d) + 1], low, high, **band_kwargs)
        ties = int(len(d) - wins_a.sum() - wins_b.sum())
        counted = f"{len(d)} queries" + (f", {ties} tied" if ties else "")
        metric = "metric" if self.metric is None else literal(self.metric)
        self.ax_.set(
            title=f"{name_a} minus {name_b}, per query",
            xlabel=f"Queries, sorted by difference ({counted})",
            ylabel=f"{metric} difference",
            xlim=(0, len(d) + 1),
        )
        self.ax_.legend(loc="best", framealpha=0.9)
        return self

    @classmethod
    def _from_values(cls, a, b, *, metric, names, ax, test, confidence_level, ci_method,
                     n_resamples, random_state, caller, query_ids=None, plot_kwargs):
        """Run the paired test on aligned values and plot the sorted differences."""
        validate_parameter_constraints(
            _CONSTRAINTS,
            {"test": test, "confidence_level": confidence_level, "ci_method": ci_method,
             "n_resamples": n_resamples, "random_state": random_state},
            caller_name=caller,
        )
        names = _check_names(names)
        result = paired_test(a, b, metric=metric, test=test, ci_method=ci_method,
                             confidence_level=confidence_level, n_resamples=n_resamples,
                             random_state=random_state)
        ids = result.ids if query_ids is None else query_ids
        d = result.differences
        # Decreasing differences; equal ones in the order of their query ids.
        order = np.argsort(-d, kind="stable")
        display = cls(d[order], query_ids=None if ids is None else ids[order],
                      mean_difference=result.mean_difference,
                      confidence_interval=tuple(result.confidence_interval),
                      confidence_level=confidence_level, pvalue=result.pvalue, test=test,
                      metric=metric, names=names, ci_method=result.ci_method)
        display.test_result_ = result
        return display.plot(ax, **plot_kwargs)

    @classmethod
    def from_predictions(cls, y_true, y_score_a, y_score_b, *, qid=None, metric="ndcg@10",
                         names=("A", "B"), ax=None, test="t", confidence_level=0.95,
                         ci_method="auto", n_resamples=9999, random_state=None,
                         bar_kwargs=None, mean_kwargs=None, band_kwargs=None,
                         **metric_options):
        """Plot the per-query differences of two models' scores on the same data.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Graded relevance of each row.

        y_score_a, y_score_b : array-like of shape (n_samples,)
            Scores of model A and model B.

        qid : array-like of shape (n_samples,) or "single_query", default=None
            Query id of each row, in any order. Required: None (qid left out) raises a
            ``ValueError``; ``"single_query"`` treats all rows as one query, on purpose.

        metric : str, default: ``"ndcg@10"``
            Any metric name of :func:`sklearn_rank.metrics.evaluate`.

        names : tuple of str, default=("A", "B")
            Names of the two models.

        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.

        test : {"t", "wilcoxon", "permutation"}, default="t"
            The paired test whose p-value the legend shows, as in
            :func:`sklearn_rank.stats.paired_test`.

        confidence_level : float, default=0.95
            Level of the confidence interval of the mean difference.

        ci_method : {"auto", "BCa", "percentile", "basic", "t"}, default="auto"
            How the interval is computed, as in :func:`sklearn_rank.stats.paired_test`:
            ``"auto"`` draws the test's own interval, Student's t beside the t-test. The
            legend names the test and the interval's method.

        n_resamples : int, default=9999
            Number of bootstrap resamples (and of sign flips of the permutation test).

        random_state : int, RandomState instance, Generator or None, default=None
            Seeds the resampling, as in :func:`sklearn_rank.stats.paired_test`.

        bar_kwargs, mean_kwargs, band_kwargs : dict, default=None
            Keywords of matplotlib's ``bar``, ``axhline`` and ``fill_between``.

        **metric_options
            Options of :func:`sklearn_rank.metrics.evaluate` (``convention=``,
            ``gain=``...). Queries scored NaN (``no_relevant=np.nan``) are left out.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            Also has ``test_result_``, the :class:`~sklearn_rank.stats.PairedTestResult`.
        """
        caller = f"{cls.__name__}.from_predictions"
        pyplot(caller)
        one_query = metric_qid(qid, caller) is None  # qid left out is refused
        check_sample_weight(metric_options, caller)
        if not isinstance(metric, str):
            raise TypeError(f"metric must be one metric name such as 'ndcg@10'; got {metric!r}.")
        result_a, result_b = (
            evaluate_per_query(y_true, y_score, qid=qid, metrics=[metric], **metric_options)
            for y_score in (y_score_a, y_score_b))
        # The same y_true and qid: the same queries in the same order, NaN on the same ones.
        a, b = result_a[metric], result_b[metric]
        kept = np.isfinite(a) & np.isfinite(b)
        ids = None if one_query else result_a.query_ids[kept]
        return cls._from_values(
            a[kept], b[kept], metric=metric, names=names, ax=ax, test=test,
            confidence_level=confidence_level, ci_method=ci_method, n_resamples=n_resamples,
            random_state=random_state, caller=caller, query_ids=ids,
            plot_kwargs={"bar_kwargs": bar_kwargs, "mean_kwargs": mean_kwargs,
                         "band_kwargs": band_kwargs},
        )

    @classmethod
    def from_estimator(cls, estimator_a, estimator_b, X, y, *, qid=None, metric="ndcg@10",
                       names=None, ax=None, test="t", confidence_level=0.95,
                       ci_method="auto", n_resamples=9999, random_state=None,
                       response_method="auto", qid_column="qid", bar_kwargs=None,
                       mean_kwargs=None, band_kwargs=None, **metric_options):
        """Plot the per-query differences of two fitted models on the same test data.

        Parameters
        ----------
        estimator_a, estimator_b : estimator object
            Fitted rankers, regressors, classifiers or pipelines.

        X : array-like or DataFrame of shape (n_samples, n_features)
            Test features, as the estimators take them; a DataFrame may hold the query ids
            in its ``qid_column``.

        y : array-like of shape (n_samples,)
            Graded relevance of each row.

        qid : array-like of shape (n_samples,), default=None
            Query id of each row; taken from ``X[qid_column]`` when None.

        names : tuple of str, default=None
            Names of the two models; defaults to their class names (suffixed ``" (A)"`` and
            ``" (B)"`` when they are the same).

        metric, ax, test, confidence_level, ci_method, n_resamples, random_state
            As in :meth:`from_predictions`.

        response_method : str or tuple of str, default="auto"
            The estimators' method giving the scores, as in
            :func:`sklearn_rank.make_ranking_scorer`: ``"auto"`` ranks a classifier by
            its ``decision_function`` or ``predict_proba``, never by its hard labels.

        qid_column : str or None, default="qid"
            Column of a DataFrame ``X`` holding the query ids.

        bar_kwargs, mean_kwargs, band_kwargs : dict, default=None
            Keywords of matplotlib's ``bar``, ``axhline`` and ``fill_between``.

        **metric_options
            As in :meth:`from_predictions`.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        caller = f"{cls.__name__}.from_estimator"
        pyplot(caller)
        score_a, qid = estimator_scores(estimator_a, X, y, qid, response_method=response_method,
                                        qid_column=qid_column, caller=caller)
        score_b, _ = estimator_scores(estimator_b, X, y, qid, response_method=response_method,
                                      qid_column=qid_column, caller=caller)
        if names is None:
            names = estimator_name(estimator_a), estimator_name(estimator_b)
            if names[0] == names[1]:
                names = f"{names[0]} (A)", f"{names[1]} (B)"
        return cls.from_predictions(
            y, score_a, score_b, qid=qid, metric=metric, names=names, ax=ax, test=test,
            confidence_level=confidence_level, ci_method=ci_method, n_resamples=n_resamples,
            random_state=random_state, bar_kwargs=bar_kwargs, mean_kwargs=mean_kwargs,
            band_kwargs=band_kwargs, **metric_options,
        )

    @classmethod
    def from_cv_results(cls, cv_result_a, cv_result_b, *, metric=None, names=("A", "B"),
                        ax=None, test="t", confidence_level=0.95, ci_method="auto",
                        n_resamples=9999, random_state=None, bar_kwargs=None,
                        mean_kwargs=None, band_kwargs=None):
        """Plot the per-query differences of two cross-validated or evaluated models.

        The queries are matched by query id; a query tested in several folds (repeated
        cross-validation) counts once, with the mean of its values, as in
        :mod:`sklearn_rank.stats`. Only two inputs without query ids (plain arrays) are
        paired by position.

        Parameters
        ----------
        cv_result_a, cv_result_b : dict, PerQueryResult or DataFrame
            The results of :func:`sklearn_rank.model_selection.cross_validate` with
            ``return_per_query=True`` on the same splits (or their ``"per_query"`` dicts),
            the :class:`~sklearn_rank.metrics.PerQueryResult` of
            :func:`~sklearn_rank.metrics.evaluate_per_query` (or its ``to_frame()``,
            indexed by query id), or any per-query input
            :func:`sklearn_rank.stats.paired_test` takes.

        metric : str, default=None
            The metric among the results' ``scoring``, e.g. ``"ndcg@10"``; may be None
            when they hold only one.

        names, ax, test, confidence_level, ci_method, n_resamples, random_state
            As in :meth:`from_predictions`.

        bar_kwargs, mean_kwargs, band_kwargs : dict, default=None
            Keywords of matplotlib's ``bar``, ``axhline`` and ``fill_between``.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        caller = f"{cls.__name__}.from_cv_results"
        pyplot(caller)
        names = _check_names(names)
        # The metric shown: the one asked for, or the only one both results hold.
        metrics = common_metrics(as_sources({"a": cv_result_a, "b": cv_result_b},
                                            metric=metric), metric)
        if len(metrics) > 1:
            raise ValueError(
                f"The results hold several metrics ({metrics}); choose one with metric=."
            )
        return cls._from_values(
            cv_result_a, cv_result_b, metric=metrics[0], names=names, ax=ax, test=test,
            confidence_level=confidence_level, ci_method=ci_method, n_resamples=n_resamples,
            random_state=random_state, caller=caller,
            plot_kwargs={"bar_kwargs": bar_kwargs, "mean_kwargs": mean_kwargs,
                         "band_kwargs": band_kwargs},
        )
