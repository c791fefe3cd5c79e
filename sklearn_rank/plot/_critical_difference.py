"""Critical difference diagram: average ranks across data sets, and the groups not told apart."""

from numbers import Real

import numpy as np

from ..stats import compare_datasets
from ..stats._across import POSTHOCS
from ..utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from ._common import literal, pyplot

_CONSTRAINTS = {
    "method": [StrOptions(set(POSTHOCS))],
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "higher_is_better": ["boolean"],
}
_METHOD_NAMES = {"wilcoxon": "Wilcoxon signed-rank", "sign": "sign test",
                 "nemenyi": "Nemenyi"}


class CriticalDifferenceDisplay:
    """Average ranks of models across data sets, with the groups that cannot be told apart.

    Demšar's (2006) diagram: an axis of average ranks (1, the best, on the left), each model
    hanging from its average rank, and a thick bar under each group of models that the
    post-hoc tests do not tell apart -- a maximal group of models no two of which differ
    significantly. A dot on a bar marks each model of the group, since a model that lies
    between two members need not belong to it (the Wilcoxon and sign tests, unlike Nemenyi's,
    do not follow the order of the ranks). With Nemenyi's test, a bar above the axis shows
    the critical difference.

    It is recommended to create one with :meth:`from_scores` or :meth:`from_result`. All
    parameters are stored as attributes.

    Parameters
    ----------
    average_ranks : array-like of shape (n_models,)
        Average rank of each model, 1 for the best.

    names : list of str
        The models, in the order of ``average_ranks``.

    groups : list of tuple, default=()
        Groups of two or more models (names) not told apart.

    critical_difference : float, default=None
        Nemenyi's critical difference, drawn above the axis; none when None.

    method : str, default=None
        The post-hoc test behind the groups, named in the title.

    alpha : float, default=None
        Its significance level, named in the title.

    n_datasets : int, default=None
        Number of data sets, named in the title.

    Attributes
    ----------
    groups_ : list of tuple
        The groups drawn, each in order of average rank.

    group_lines_ : list of matplotlib Line2D
        One bar per group, from the lowest to the highest average rank of its members, in
        the order of ``groups_``.

    group_markers_ : list of matplotlib Line2D
        The dots of each group's members, at their average ranks.

    rank_lines_ : list of matplotlib Line2D
        Each model's line from its average rank to its label, in the order of ``names``.

    cd_line_ : matplotlib Line2D or None
        The critical difference bar.

    result_ : AcrossDatasetsResult
        Only on displays made by :meth:`from_scores` or :meth:`from_result`: the tests
        behind the groups.

    ax_ : matplotlib Axes
        Axes with the diagram.

    figure_ : matplotlib Figure
        Figure containing the diagram.

    See Also
    --------
    sklearn_rank.stats.compare_datasets : The tests and the groups drawn.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn_rank.plot import CriticalDifferenceDisplay
    >>> scores = {
    ...     "web30k": {"lambdamart": 0.52, "xgb": 0.51, "ridge": 0.45},
    ...     "yahoo": {"lambdamart": 0.79, "xgb": 0.79, "ridge": 0.74},
    ...     "istella": {"lambdamart": 0.71, "xgb": 0.69, "ridge": 0.62},
    ...     "mq2008": {"lambdamart": 0.50, "xgb": 0.51, "ridge": 0.47},
    ... }
    >>> display = CriticalDifferenceDisplay.from_scores(scores, method="nemenyi")
    >>> display.average_ranks
    array([1.375, 1.625, 3.   ])
    >>> display.groups_
    [('lambdamart', 'xgb', 'ridge')]
    >>> round(display.critical_difference, 3)
    1.657
    >>> plt.close("all")
    """

    def __init__(self, average_ranks, names, *, groups=(), critical_difference=None,
                 method=None, alpha=None, n_datasets=None):
        self.average_ranks = average_ranks
        self.names = names
        self.groups = groups
        self.critical_difference = critical_difference
        self.method = method
        self.alpha = alpha
        self.n_datasets = n_datasets

    def plot(self, ax=None, *, title=None, group_kwargs=None, line_kwargs=None):
        """Draw the diagram.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure, sized to the number of models, when None.

        title : str, default=None
            The title; by default, the test, its level and the number of data sets.

        group_kwargs : dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.plot` for the group bars.

        line_kwargs : dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.plot` for the models' lines.

        Returns
        -------
        display : CriticalDifferenceDisplay
        """
        plt = pyplot(f"{type(self).__name__}.plot")
        ranks = np.asarray(self.average_ranks, dtype=np.float64)
        names = [str(n) for n in self.names]
        k = len(names)
        if ranks.shape != (k,) or k < 2:
            raise ValueError(
                f"average_ranks and names must have one entry per model, 2 or more; got "
                f"{ranks.shape[0] if ranks.ndim else 0} ranks and {k} names."
            )
        index = {name: i for i, name in enumerate(names)}
        groups = [tuple(str(m) for m in g) for g in self.groups]
        for g in groups:
            unknown = [m for m in g if m not in index]
            if unknown:
                raise ValueError(f"The groups name models that are not in names: {unknown}.")
        order = np.argsort(ranks, kind="stable")
        n_left = (k + 1) // 2
        n_groups = len(groups)
        # Vertical layout, in data units: the axis at 0, the group bars under it, then one
        # row per label on each side.
        group_top, group_step = -0.35, 0.3
        first_row = group_top - group_step * max(n_groups, 1) - 0.25
        row_step = 0.55
        n_rows = max(n_left, k - n_left)
        bottom = first_row - row_step * (n_rows - 1) - 0.4
        if ax is None:
            _, ax = plt.subplots(figsize=(7.0, 1.3 + 0.32 * (n_rows + n_groups)))
        self.ax_, self.figure_ = ax, ax.figure
        low, high = 1.0, float(max(k, np.ceil(ranks.max())))
        margin = 0.12 * (high - low) + 0.3

        # the axis of ranks, 1 (best) on the left
        ax.plot([low, high], [0, 0], color="black", linewidth=1)
        ticks = np.arange(low, high + 1)
        for t in ticks:
            ax.plot([t, t], [0, 0.12], color="black", linewidth=1)
            ax.text(t, 0.2, f"{t:g}", ha="center", va="bottom", fontsize=9)
        line_kwargs = {"color": "0.25", "linewidth": 1, **(line_kwargs or {})}
        self.rank_lines_ = [None] * k
        for row, i in enumerate(order[:n_left]):  # the best half, labelled on the left
            y = first_row - row_step * row
            (self.rank_lines_[i],) = ax.plot([ranks[i], ranks[i], low - margin], [0, y, y],
                                             **line_kwargs)
            ax.text(low - margin - 0.05, y, f"{literal(names[i])} ({ranks[i]:.2f})", ha="right",
                    va="center", fontsize=9)
        for row, i in enumerate(order[n_left:][::-1]):  # the worst, from the right edge in
            y = first_row - row_step * row
            (self.rank_lines_[i],) = ax.plot([ranks[i], ranks[i], high + margin], [0, y, y],
                                             **line_kwargs)
            ax.text(high + margin + 0.05, y, f"({ranks[i]:.2f}) {literal(names[i])}", ha="left",
                    va="center", fontsize=9)

        group_kwargs = {"color": "black", "linewidth": 3, "solid_capstyle": "round",
                        **(group_kwargs or {})}
        position = {i: p for p, i in enumerate(order)}
        self.groups_ = [tuple(sorted(g, key=lambda m: position[index[m]])) for g in groups]
        self.group_lines_, self.group_markers_ = [], []
        for g, members in enumerate(self.groups_):
            y = group_top - group_step * g
            xs = np.sort(ranks[[index[m] for m in members]])
            (bar,) = ax.plot([xs[0], xs[-1]], [y, y], **group_kwargs)
            (dots,) = ax.plot(xs, np.full(len(xs), y), linestyle="none", marker="o",
                              markersize=5, color=group_kwargs["color"])
            self.group_lines_.append(bar)
            self.group_markers_.append(dots)

        self.cd_line_ = None
        top = 0.75
        if self.critical_difference is not None:
            cd = float(self.critical_difference)
            (self.cd_line_,) = ax.plot([low, low + cd], [0.85, 0.85], color="tab:red",
                                       linewidth=2, marker="|", markersize=10)
            ax.text(low + cd / 2, 1.0, f"CD = {cd:.2f}", ha="center", va="bottom",
                    fontsize=9, color="tab:red")
            top = 1.45
        if title is None:
            parts = []
            if self.method is not None:
                parts.append(_METHOD_NAMES.get(self.method, str(self.method)))
            if self.alpha is not None:
                parts.append(f"alpha = {self.alpha:g}")
            if self.n_datasets is not None:
                parts.append(f"{self.n_datasets} data sets")
            title = "Average rank" + (f" ({', '.join(parts)})" if parts else "")
        ax.set_title(title, fontsize=10)
        ax.set_xlim(low - margin - 2.2, high + margin + 2.2)
        ax.set_ylim(bottom, top)
        ax.set_axis_off()
        return self

    @classmethod
    def from_result(cls, result, *, ax=None, title=None, group_kwargs=None,
                    line_kwargs=None):
        """Draw the diagram of a :func:`~sklearn_rank.stats.compare_datasets` result.

        Parameters
        ----------
        result : AcrossDatasetsResult
            The comparison; its ``groups`` are drawn, and its critical difference with
            ``posthoc="nemenyi"``.

        ax, title, group_kwargs, line_kwargs
            As in :meth:`plot`.

        Returns
        -------
        display : CriticalDifferenceDisplay
            Also has ``result_``.
        """
        pyplot(f"{cls.__name__}.from_result")
        display = cls(result.average_ranks, list(result.models), groups=result.groups,
                      critical_difference=result.critical_difference, method=result.posthoc,
                      alpha=result.alpha, n_datasets=len(result.datasets))
        display.result_ = result
        return display.plot(ax, title=title, group_kwargs=group_kwargs,
                            line_kwargs=line_kwargs)

    @classmethod
    def from_scores(cls, scores, *, method="wilcoxon", alpha=0.05, higher_is_better=True,
                    metric=None, ax=None, title=None, group_kwargs=None, line_kwargs=None):
        """Compare models across data sets and draw the diagram.

        Parameters
        ----------
        scores : dict, pandas DataFrame or SeedSummary
            One score per data set and model, as :func:`~sklearn_rank.stats.compare_datasets`
            takes them.

        method : {"wilcoxon", "sign", "nemenyi"}, default="wilcoxon"
            The post-hoc test whose groups are drawn: Wilcoxon's signed-rank test or the
            sign test over data sets with Holm's correction (Benavoli et al. 2016), or
            Nemenyi's test, with its critical difference (Demšar 2006).

        alpha : float, default=0.05
            Significance level.

        higher_is_better : bool, default=True
            Whether a higher score ranks first.

        metric : str, default=None
            With a SeedSummary of several metrics, the metric to compare.

        ax, title, group_kwargs, line_kwargs
            As in :meth:`plot`.

        Returns
        -------
        display : CriticalDifferenceDisplay
            Also has ``result_``, the :class:`~sklearn_rank.stats.AcrossDatasetsResult`.
        """
        caller = f"{cls.__name__}.from_scores"
        pyplot(caller)
        validate_parameter_constraints(
            _CONSTRAINTS,
            {"method": method, "alpha": alpha, "higher_is_better": higher_is_better},
            caller_name=caller,
        )
        result = compare_datasets(scores, metric=metric, posthoc=method, alpha=alpha,
                                  higher_is_better=higher_is_better)
        return cls.from_result(result, ax=ax, title=title, group_kwargs=group_kwargs,
                               line_kwargs=line_kwargs)
