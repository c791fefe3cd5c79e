"""A metric as a function of the cut-off k: nDCG@k, P@k, R@k, ERR@k... against k."""

from numbers import Integral, Real

import numpy as np

from ..metrics import aggregate, evaluate_per_query, parse_metric
from ..metrics._registry import METRICS
from ..stats import bootstrap_ci
from ..stats._paired import BOOTSTRAP_METHODS
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

_CI_CONSTRAINTS = {
    "confidence_level": [Interval(Real, 0, 1, closed="neither"), None],
    "ci_method": [StrOptions(set(BOOTSTRAP_METHODS))],
    "n_resamples": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state", np.random.Generator],
}


def _metrics_with_cutoff():
    return sorted(m.name for m in METRICS.values() if "k" in m.options)


def _check_ks(ks):
    """The cut-offs as a sorted array of distinct positive ints; an int n means 1..n."""
    if isinstance(ks, Integral) and not isinstance(ks, bool):
        ks = range(1, int(ks) + 1)
    try:
        values = np.asarray(list(ks))
    except TypeError:
        raise TypeError(
            f"ks must be an int or an iterable of ints such as range(1, 21); got {ks!r}."
        ) from None
    if values.ndim != 1 or len(values) == 0:
        raise ValueError(f"ks must hold at least one cut-off, e.g. range(1, 21); got {ks!r}.")
    if values.dtype.kind not in "iu":
        raise TypeError(f"ks must hold integers; got {values.tolist()!r}.")
    if values.min() < 1:
        raise ValueError(f"ks must hold cut-offs of at least 1; got {int(values.min())}.")
    return np.unique(values).astype(np.int64)


def _names_at_k(metric, ks):
    """The metric names of every cut-off, e.g. ``"ndcg@1"``..., and the axis label."""
    entry, fixed = parse_metric(metric)
    if "k" not in entry.options:
        raise ValueError(
            f"The metric {metric!r} takes no cut-off k, so it has no curve against k. "
            f"Metrics with a cut-off: {', '.join(_metrics_with_cutoff())}."
        )
    if "k" in fixed:
        raise ValueError(
            f"metric={metric!r} fixes the cut-off, but the cut-offs come from ks: give the "
            f"metric without '@{fixed['k']}', e.g. metric={entry.name!r}."
        )
    base, paren, params = metric.partition("(")
    base, params = base.strip(), paren + params
    return [f"{base}@{k}{params}" for k in ks], f"{base}@k{params}"


def _metric_at_k(y_true, y_score, qid, metric, ks, options, caller):
    """``metric`` at every cut-off, from one :func:`evaluate_per_query` call: the cut-offs,
    the axis label, the per-query values (one column per cut-off), their query ids (None
    for one query given as ``qid="single_query"``) and the means over queries."""
    one_query = metric_qid(qid, caller) is None  # qid left out is refused
    check_sample_weight(options, caller)
    ks = _check_ks(ks)
    names, label = _names_at_k(metric, ks)
    result = evaluate_per_query(y_true, y_score, qid=qid, metrics=names, **options)
    per_query = np.column_stack([result[name] for name in names])
    means = aggregate(result)
    query_ids = None if one_query else result.query_ids
    return ks, label, per_query, query_ids, np.array([means[name] for name in names])


class MetricAtKDisplay:
    """A ranking metric as a function of the cut-off k, with an optional confidence band.

    It is recommended to create one with :meth:`from_predictions` or
    :meth:`from_estimator`; pass the ``ax`` of a first display to draw several models on
    the same axes. All parameters are stored as attributes.

    Parameters
    ----------
    ks : ndarray of shape (n_ks,)
        The cut-offs, increasing.

    values : ndarray of shape (n_ks,)
        The metric at each cut-off: the mean over queries of the per-query values.

    metric : str
        The metric's axis label, e.g. ``"ndcg@k"``.

    per_query_values : ndarray of shape (n_queries, n_ks), default=None
        The value of every query at every cut-off; rows in the order of ``query_ids``.

    query_ids : ndarray of shape (n_queries,), default=None
        The query ids of the rows of ``per_query_values`` (in the order of ``np.unique``),
        None when all rows were one query.

    ci_low, ci_high : ndarray of shape (n_ks,), default=None
        Bounds of the confidence interval of the mean at each cut-off, None for no band.

    confidence_level : float, default=None
        The level of that interval.

    name : str, default=None
        Name of the model, for the legend. None shows no legend entry.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The curve of the metric against k.

    band_ : matplotlib PolyCollection or None
        The confidence band, None when there is no interval.

    ax_ : matplotlib Axes
        Axes with the curve.

    figure_ : matplotlib Figure
        Figure containing the curve.

    See Also
    --------
    sklearn_rank.metrics.evaluate_per_query : Several metrics (here, one per cut-off) from
        one sort, per query.
    sklearn_rank.stats.bootstrap_ci : The confidence intervals of the band.
    PerQueryDifferenceDisplay : Where two models differ, query by query.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.plot import MetricAtKDisplay
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> ridge = Ridge().fit(X[qid < 20], y[qid < 20])
    >>> test = qid >= 20
    >>> display = MetricAtKDisplay.from_estimator(
    ...     ridge, X[test], y[test], qid=qid[test], metric="nDCG", ks=range(1, 11))
    >>> display.ks
    array([ 1,  2,  3,  4,  5,  6,  7,  8,  9, 10])
    >>> display.values.round(2)
    array([0.68, 0.75, 0.74, 0.78, 0.8 , 0.81, 0.81, 0.82, 0.82, 0.83])

    A second model on the same axes, with a 95% bootstrap band:

    >>> baseline = MetricAtKDisplay.from_predictions(
    ...     y[test], X[test, 0], qid=qid[test], metric="nDCG", ks=range(1, 11),
    ...     name="feature 0", ax=display.ax_, confidence_level=0.95, n_resamples=999,
    ...     random_state=0)
    >>> len(display.ax_.get_lines())
    2
    >>> plt.close("all")
    """

    def __init__(self, ks, values, *, metric, per_query_values=None, query_ids=None,
                 ci_low=None, ci_high=None, confidence_level=None, name=None):
        self.ks = ks
        self.values = values
        self.metric = metric
        self.per_query_values = per_query_values
        self.query_ids = query_ids
        self.ci_low = ci_low
        self.ci_high = ci_high
        self.confidence_level = confidence_level
        self.name = name

    def plot(self, ax=None, *, name=None, line_kwargs=None, band_kwargs=None):
        """Draw the curve, and the confidence band when there is one.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None. Pass the ``ax_`` of another display
            to compare models on one axes.

        name : str, default=None
            Name for the legend; defaults to the display's ``name``.

        line_kwargs : dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.plot` for the curve.

        band_kwargs : dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.fill_between` for the band.

        Returns
        -------
        display : MetricAtKDisplay
            The display, with ``line_``, ``band_``, ``ax_`` and ``figure_`` set.
        """
        self.ax_, self.figure_ = new_or_given_axes(ax, f"{type(self).__name__}.plot")
        from matplotlib.ticker import MaxNLocator

        name = self.name if name is None else name
        has_band = self.ci_low is not None and self.ci_high is not None
        label = None if name is None else literal(name)
        if name is not None and has_band and self.confidence_level is not None:
            label = f"{label} ({self.confidence_level:.0%} CI)"
        ks = np.asarray(self.ks)
        line_kwargs = {"marker": "o", "markersize": 3.5, **({"label": label} if label else {}),
                       **(line_kwargs or {})}
        (self.line_,) = self.ax_.plot(ks, self.values, **line_kwargs)
        self.band_ = None
        if has_band:
            band_kwargs = {"color": self.line_.get_color(), "alpha": 0.2, "linewidth": 0,
                           **(band_kwargs or {})}
            self.band_ = self.ax_.fill_between(ks, self.ci_low, self.ci_high, **band_kwargs)
        self.ax_.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
        self.ax_.set(xlabel="Cut-off k", ylabel=literal(self.metric))
        self.ax_.grid(True, alpha=0.3)
        if self.ax_.get_legend_handles_labels()[1]:
            self.ax_.legend()
        return self

    @classmethod
    def from_predictions(cls, y_true, y_score, *, qid=None, metric="ndcg", ks=range(1, 21),
                         name=None, ax=None, confidence_level=None, ci_method="BCa",
                         n_resamples=9999, random_state=None, line_kwargs=None,
                         band_kwargs=None, **metric_options):
        """Plot a metric against the cut-off k from true labels and scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Graded relevance of each row.

        y_score : array-like of shape (n_samples,)
            Scores of the model; a higher score ranks a row higher within its query.

        qid : array-like of shape (n_samples,) or "single_query", default=None
            Query id of each row, in any order. Required: None (qid left out) raises a
            ``ValueError``; ``"single_query"`` treats all rows as one query, on purpose.

        metric : str, default="ndcg"
            A metric with a cut-off, without ``@k``, as :func:`sklearn_rank.metrics.evaluate`
            names them (case-insensitive; the spelling given labels the axis): ``"ndcg"``,
            ``"dcg"``, ``"err"``, ``"p"``, ``"r"``, ``"ap"``, ``"rr"``, ``"success"``,
            ``"rbp(p=0.8)"``... Options may follow in parentheses.

        ks : int or iterable of int, default=range(1, 21)
            The cut-offs; an int ``n`` means ``1, ..., n``.

        name : str, default=None
            Name of the model, for the legend.

        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.

        confidence_level : float, default=None
            When given, draw a band of bootstrap confidence intervals of the mean at each
            cut-off, from :func:`sklearn_rank.stats.bootstrap_ci` over queries.

        ci_method : {"BCa", "percentile", "basic"}, default="BCa"
            The bootstrap interval.

        n_resamples : int, default=9999
            Number of bootstrap resamples.

        random_state : int, RandomState instance, Generator or None, default=None
            Seeds the bootstrap. An int gives every cut-off's interval the same resamples of
            queries, those of ``bootstrap_ci(..., random_state=random_state)``.

        line_kwargs, band_kwargs : dict, default=None
            Keywords of matplotlib's ``plot`` and ``fill_between``.

        **metric_options
            Options of :func:`sklearn_rank.metrics.evaluate`: ``convention=``, ``gain=``,
            ``ties=``, ``no_relevant=``, ``retrieved=``... Queries scored NaN
            (``no_relevant=np.nan``) are left out of the means and intervals, as the
            metrics leave them out.

        Returns
        -------
        display : MetricAtKDisplay
        """
        caller = f"{cls.__name__}.from_predictions"
        pyplot(caller)
        validate_parameter_constraints(
            _CI_CONSTRAINTS,
            {"confidence_level": confidence_level, "ci_method": ci_method,
             "n_resamples": n_resamples, "random_state": random_state},
            caller_name=caller,
        )
        ks, label, per_query, query_ids, values = _metric_at_k(
            y_true, y_score, qid, metric, ks, metric_options, caller)
        ci_low = ci_high = None
        if confidence_level is not None:
            intervals = [
                bootstrap_ci(column[np.isfinite(column)], method=ci_method,
                             confidence_level=confidence_level, n_resamples=n_resamples,
                             random_state=random_state).confidence_interval
                for column in per_query.T
            ]
            ci_low, ci_high = np.array(intervals).T
        display = cls(ks, values, metric=label, per_query_values=per_query,
                      query_ids=query_ids, ci_low=ci_low, ci_high=ci_high,
                      confidence_level=confidence_level, name=name)
        return display.plot(ax, line_kwargs=line_kwargs, band_kwargs=band_kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, qid=None, metric="ndcg", ks=range(1, 21),
                       name=None, ax=None, confidence_level=None, ci_method="BCa",
                       n_resamples=9999, random_state=None, response_method="auto",
                       qid_column="qid", line_kwargs=None, band_kwargs=None,
                       **metric_options):
        """Plot a metric against the cut-off k of a fitted model on test data.

        Parameters
        ----------
        estimator : estimator object
            A fitted ranker, regressor, classifier or pipeline.

        X : array-like or DataFrame of shape (n_samples, n_features)
            Test features, as the estimator takes them; a DataFrame may hold the query ids
            in its ``qid_column``.

        y : array-like of shape (n_samples,)
            Graded relevance of each row.

        qid : array-like of shape (n_samples,), default=None
            Query id of each row; taken from ``X[qid_column]`` when None.

        metric, ks, ax, confidence_level, ci_method, n_resamples, random_state
            As in :meth:`from_predictions`.

        name : str, default=None
            Name of the model for the legend; defaults to the estimator's class name (the
            last step's, for a pipeline).

        response_method : str or tuple of str, default="auto"
            The estimator's method giving the scores, as in
            :func:`sklearn_rank.make_ranking_scorer`: ``"auto"`` ranks a classifier by
            its ``decision_function`` or ``predict_proba``, never by its hard labels.

        qid_column : str or None, default="qid"
            Column of a DataFrame ``X`` holding the query ids.

        line_kwargs, band_kwargs : dict, default=None
            Keywords of matplotlib's ``plot`` and ``fill_between``.

        **metric_options
            As in :meth:`from_predictions`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        caller = f"{cls.__name__}.from_estimator"
        pyplot(caller)
        y_score, qid = estimator_scores(estimator, X, y, qid, response_method=response_method,
                                        qid_column=qid_column, caller=caller)
        return cls.from_predictions(
            y, y_score, qid=qid, metric=metric, ks=ks,
            name=estimator_name(estimator) if name is None else name, ax=ax,
            confidence_level=confidence_level, ci_method=ci_method, n_resamples=n_resamples,
            random_state=random_state, line_kwargs=line_kwargs, band_kwargs=band_kwargs,
            **metric_options,
        )
