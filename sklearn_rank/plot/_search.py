"""A hyper-parameter search's metric against one parameter, with the spread over folds."""

import difflib
from numbers import Integral, Real

import numpy as np

from ..utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from ._common import literal, new_or_given_axes, pyplot

_CONSTRAINTS = {
    "spread": [StrOptions({"std", "minmax"}), None],
    "show_folds": ["boolean"],
    "max_lines": [Interval(Integral, 1, None, closed="left")],
    "xscale": [StrOptions({"auto", "linear", "log", "symlog"})],
}

# Up to this many numeric values, each gets a tick labelled as the search has it.
_MAX_TICKS = 12
_SPREAD_LABEL = {"std": "mean \N{PLUS-MINUS SIGN} std", "minmax": "mean, min to max",
                 None: "mean"}


def _well_spread(x, scale):
    """Whether a label at each value would not overlap its neighbours (a grid's values,
    not a randomized search's draws, which can fall close together)."""
    x = np.unique(x)
    if len(x) < 2:
        return True
    position = np.log10(x) if scale == "log" and (x > 0).all() else x
    gaps = np.diff(position) / (position[-1] - position[0])
    return bool(gaps.min() >= 1 / _MAX_TICKS)


def _auto_scale(x):
    """``"log"`` for values more evenly spaced on a log scale than on a linear one."""
    x = np.unique(x)
    if len(x) < 3 or x.min() <= 0:
        return "linear"

    def unevenness(gaps):
        return gaps.std() / gaps.mean()

    return "log" if unevenness(np.diff(np.log(x))) < unevenness(np.diff(x)) else "linear"


def _is_number(value):
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))


def _equal(a, b):
    """Whether two parameter values are the same (``1 == 1.0``; arrays or models by identity)."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _show(value):
    """A parameter value as a legend shows it."""
    if _is_number(value):
        return f"{value:g}"
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _check_param(names, param, what):
    if param in names:
        return
    close = [n for n in names if n.endswith(f"__{param}")]
    close = close or difflib.get_close_matches(str(param), names, n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    raise ValueError(
        f"{what} {param!r} is not a parameter of the search.{hint} Its cv_results_ holds the "
        f"parameters {', '.join(map(repr, names))}."
    )


def _search_results(cv_results, param, metric, fixed):
    """Read a search's results: the selected candidates, their folds and the lines."""
    if hasattr(cv_results, "cv_results_"):
        cv_results = cv_results.cv_results_
    if not hasattr(cv_results, "keys") or "params" not in cv_results:
        raise TypeError(
            "cv_results must be the cv_results_ dict of a fitted GridSearchCV or "
            "RandomizedSearchCV (or the search itself); got "
            f"{type(cv_results).__name__} without a 'params' entry."
        )
    candidates = list(cv_results["params"])
    names = sorted({key[len("param_"):] for key in cv_results if key.startswith("param_")})
    _check_param(names, param, "param")
    fixed = dict(fixed or {})
    for name in fixed:
        _check_param(names, name, "fixed names")
    if param in fixed:
        raise ValueError(f"param {param!r} is plotted on the x axis; it cannot be fixed too.")

    key = f"mean_test_{metric}"
    if key not in cv_results:
        known = sorted(k[len("mean_test_"):] for k in cv_results if k.startswith("mean_test_"))
        hint = (" A search with one scorer names it 'score'; with a dict or list of scorers, "
                "use their names, e.g. metric='ndcg@10'.")
        raise ValueError(
            f"metric {metric!r} is not in cv_results_ (no {key!r}); its test metrics are "
            f"{', '.join(map(repr, known))}.{hint}"
        )
    n_splits = 0
    while f"split{n_splits}_test_{metric}" in cv_results:
        n_splits += 1

    rows = [
        i for i, p in enumerate(candidates)
        if param in p and all(n in p and _equal(p[n], v) for n, v in fixed.items())
    ]
    if not rows:
        raise ValueError(
            f"No candidate of the search has the parameter {param!r}"
            + (f" with {fixed}" if fixed else "") + "."
        )
    if "iter" in cv_results:
        # A halving search scores a candidate again at each iteration it survives, on more
        # resources: show each candidate's last score.
        last = {}
        for i in rows:
            key = repr(sorted(candidates[i].items()))
            if key not in last or cv_results["iter"][i] > cv_results["iter"][last[key]]:
                last[key] = i
        rows = sorted(last.values())
    # The other parameters that vary among the selected candidates: one line per combination.
    others = sorted({n for i in rows for n in candidates[i] if n != param and n not in fixed})
    others = [
        n for n in others
        if len({repr(candidates[i].get(n, "<unset>")) for i in rows}) > 1
    ]
    return cv_results, candidates, rows, others, n_splits


def _line_key(candidate, others):
    return tuple(repr(candidate.get(n, "<unset>")) for n in others)


def _line_label(candidate, others):
    if not others:
        return None
    return ", ".join(f"{n}={_show(candidate[n])}" if n in candidate else f"{n} unset"
                     for n in others)


class ParameterSearchDisplay:
    """A search's cross-validated metric against one hyper-parameter, with the fold spread.

    One line per combination of the other parameters that vary among the candidates shown
    (select some with ``fixed=``); on each, the mean test metric over the folds, a band of
    their spread, and each fold's value as a faint dot. The best mean shown is starred, and
    the title says where it is.

    It is recommended to create one with :meth:`from_cv_results`. All parameters are
    stored as attributes.

    Parameters
    ----------
    param_values : ndarray of shape (n_values,)
        The values of the parameter on the x axis: increasing numbers, or any values in
        the order of the search (drawn as categories).

    mean_scores : ndarray of shape (n_lines, n_values)
        Mean test metric of each line at each value; NaN where a line has no candidate.

    param : str
        Name of the parameter on the x axis.

    std_scores : ndarray of shape (n_lines, n_values), default=None
        Standard deviation of the test metric over the folds; NaN where a line has no
        candidate.

    fold_scores : ndarray of shape (n_lines, n_values, n_splits), default=None
        The test metric of every fold; NaN where a line has no candidate.

    labels : list of str, default=None
        The other parameters' values of each line, for the legend; None for one line.

    metric : str, default="score"
        Name of the metric, for the axis label.

    fixed : dict, default=None
        The parameters held fixed to select the candidates shown, for the title.

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
        The mean of each line.

    bands_ : list of matplotlib PolyCollection
        The spread of each line (empty with ``spread=None``).

    folds_ : list of matplotlib PathCollection
        The fold values of each line (empty with ``show_folds=False``).

    best_ : matplotlib Line2D or None
        The star on the best mean shown; None when every mean is NaN.

    ax_ : matplotlib Axes
        Axes with the plot.

    figure_ : matplotlib Figure
        Figure containing the plot.

    See Also
    --------
    sklearn.model_selection.ValidationCurveDisplay : One parameter's curve, computed by
        fitting anew.
    MetricAtKDisplay : A metric against its cut-off k.

    Examples
    --------
    A grid search of a ridge regression, its query ids routed as metadata:

    >>> import matplotlib.pyplot as plt
    >>> import sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_rank import get_scorer
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.model_selection import QueryKFold
    >>> from sklearn_rank.plot import ParameterSearchDisplay
    >>> X, y, qid = make_ranking(n_queries=30, random_state=0)
    >>> grid = {"alpha": [0.1, 1.0, 10.0], "fit_intercept": [True, False]}
    >>> search = GridSearchCV(Ridge(), grid, scoring={"ndcg@10": get_scorer("ndcg@10")},
    ...                       refit=False, cv=QueryKFold(3))
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, qid=qid)

    One line per value of ``fit_intercept``, the other parameter of the grid:

    >>> display = ParameterSearchDisplay.from_cv_results(
    ...     search.cv_results_, "alpha", metric="ndcg@10")
    >>> display.param_values
    array([ 0.1,  1. , 10. ])
    >>> display.labels
    ['fit_intercept=True', 'fit_intercept=False']
    >>> display.fold_scores.shape
    (2, 3, 3)
    >>> plt.close("all")
    """

    def __init__(self, param_values, mean_scores, *, param, std_scores=None,
                 fold_scores=None, labels=None, metric="score", fixed=None):
        self.param_values = param_values
        self.mean_scores = mean_scores
        self.param = param
        self.std_scores = std_scores
        self.fold_scores = fold_scores
        self.labels = labels
        self.metric = metric
        self.fixed = fixed

    def plot(self, ax=None, *, spread="std", show_folds=True, xscale="auto",
             line_kwargs=None, band_kwargs=None, fold_kwargs=None):
        """Draw the mean of every line, its spread over the folds, and the folds.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.

        spread : {"std", "minmax"} or None, default="std"
            The band around each mean: one standard deviation over the folds either side
            (``std_scores``), or from the lowest to the highest fold (``fold_scores``).

        show_folds : bool, default=True
            Whether to draw each fold's value as a faint dot.

        xscale : {"auto", "linear", "log", "symlog"}, default="auto"
            Scale of a numeric x axis. ``"auto"``: logarithmic for positive values more
            evenly spaced on a log scale than on a linear one (``[0.01, 0.1, 1, 10]``,
            ``[15, 31, 63]``), linear otherwise (``[100, 200, 300]``, any two values).
            Ignored for categories.

        line_kwargs, band_kwargs, fold_kwargs : dict, default=None
            Keywords of matplotlib's ``plot``, ``fill_between`` and ``scatter``, for every
            line.

        Returns
        -------
        display : ParameterSearchDisplay
            The display, with ``lines_``, ``bands_``, ``folds_``, ``best_``, ``ax_`` and
            ``figure_`` set.
        """
        caller = f"{type(self).__name__}.plot"
        validate_parameter_constraints(
            {k: _CONSTRAINTS[k] for k in ("spread", "show_folds", "xscale")},
            {"spread": spread, "show_folds": show_folds, "xscale": xscale},
            caller_name=caller,
        )
        if spread == "std" and self.std_scores is None:
            raise ValueError("spread='std' needs std_scores; this display has none.")
        if (spread == "minmax" or show_folds) and self.fold_scores is None:
            raise ValueError(
                "spread='minmax' and show_folds=True need fold_scores; this display has none."
            )
        self.ax_, self.figure_ = new_or_given_axes(ax, caller)
        from matplotlib.ticker import NullLocator

        values = np.asarray(self.param_values)
        mean = np.atleast_2d(np.asarray(self.mean_scores, dtype=np.float64))
        categorical = values.dtype.kind not in "iuf"
        x = np.arange(len(values), dtype=np.float64) if categorical else values.astype(float)
        std = (None if self.std_scores is None
               else np.asarray(self.std_scores, dtype=np.float64).reshape(mean.shape))
        fold_scores = (None if self.fold_scores is None
                       else np.asarray(self.fold_scores, dtype=np.float64)
                       .reshape(*mean.shape, -1))
        labels = ([None if label is None else literal(label) for label in self.labels]
                  if self.labels is not None else [None] * len(mean))

        self.lines_, self.bands_, self.folds_ = [], [], []
        for i, label in enumerate(labels):
            has = ~np.isnan(mean[i])
            kwargs = {"marker": "o", "markersize": 4, **({"label": label} if label else {}),
                      **(line_kwargs or {})}
            (line,) = self.ax_.plot(x[has], mean[i, has], **kwargs)
            self.lines_.append(line)
            color = line.get_color()
            if spread is not None:
                if spread == "std":
                    low, high = mean[i] - std[i], mean[i] + std[i]
                else:
                    low, high = fold_scores[i].min(axis=1), fold_scores[i].max(axis=1)
                self.bands_.append(self.ax_.fill_between(
                    x[has], low[has], high[has],
                    **{"color": color, "alpha": 0.15, "linewidth": 0, **(band_kwargs or {})}))
            if show_folds:
                folds = fold_scores[i][has]
                self.folds_.append(self.ax_.scatter(
                    np.repeat(x[has], folds.shape[1]), folds.ravel(),
                    **{"color": color, "alpha": 0.35, "s": 10, "linewidths": 0,
                       **(fold_kwargs or {})}))

        self.best_ = None
        if not np.isnan(mean).all():
            line, column = np.unravel_index(np.nanargmax(mean), mean.shape)
            where = literal(f"{self.param}={_show(values[column])}")
            if labels[line]:
                where += f", {labels[line]}"
            if self.fixed:
                where += literal(
                    f" ({', '.join(f'{n}={_show(v)}' for n, v in self.fixed.items())})")
            (self.best_,) = self.ax_.plot(
                [x[column]], [mean[line, column]], linestyle="none", marker="*",
                markersize=13, color=self.lines_[line].get_color(), markeredgecolor="black")
            self.ax_.set_title(f"\N{BLACK STAR} best mean {mean[line, column]:.4f}, at {where}")

        scale = "linear"
        if not categorical and xscale != "linear":
            scale = _auto_scale(x) if xscale == "auto" else xscale
            self.ax_.set_xscale(scale)
        if categorical or (len(x) <= _MAX_TICKS and _well_spread(x, scale)):
            # A grid's few values, as the search has them, rather than 3 x 10^-2 and the like.
            self.ax_.set_xticks(x, [literal(_show(v)) for v in values])
            self.ax_.xaxis.set_minor_locator(NullLocator())
        n_splits = None if self.fold_scores is None else np.shape(self.fold_scores)[-1]
        folds = f" over {n_splits} folds" if n_splits else ""
        self.ax_.set(xlabel=literal(self.param),
                     ylabel=f"{literal(self.metric)} ({_SPREAD_LABEL[spread]}{folds})")
        self.ax_.grid(True, alpha=0.3)
        if self.ax_.get_legend_handles_labels()[1]:
            self.ax_.legend()
        return self

    @classmethod
    def from_cv_results(cls, cv_results, param, *, metric="score", fixed=None, spread="std",
                        show_folds=True, max_lines=10, ax=None, xscale="auto",
                        line_kwargs=None, band_kwargs=None, fold_kwargs=None):
        """Plot a fitted search's test metric against one of its parameters.

        Parameters
        ----------
        cv_results : dict or fitted search
            The ``cv_results_`` of a fitted :class:`~sklearn.model_selection.GridSearchCV`,
            :class:`~sklearn.model_selection.RandomizedSearchCV` or halving search (or the
            search itself). A halving search's candidates are shown at the last iteration
            each reached, with the most resources.

        param : str
            The parameter on the x axis, as the search names it (``"ridge__alpha"`` in a
            pipeline).

        metric : str, default="score"
            The test metric: ``"score"`` for a search with one scorer, else the name of one
            of its scorers, e.g. ``"ndcg@10"``.

        fixed : dict, default=None
            Parameter name -> value: show only the candidates with these values.

        spread : {"std", "minmax"} or None, default="std"
            The band around each mean: plus and minus the standard deviation over the
            folds, or from the lowest to the highest fold.

        show_folds : bool, default=True
            Whether to draw each fold's value as a faint dot.

        max_lines : int, default=10
            Largest number of lines (combinations of the other varying parameters) to draw;
            more is an error that suggests ``fixed=``. A randomized search over continuous
            distributions needs ``fixed=`` or a search over ``param`` alone.

        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.

        xscale : {"auto", "linear", "log", "symlog"}, default="auto"
            Scale of a numeric x axis, as in :meth:`plot`.

        line_kwargs, band_kwargs, fold_kwargs : dict, default=None
            Keywords of matplotlib's ``plot``, ``fill_between`` and ``scatter``.

        Returns
        -------
        display : ParameterSearchDisplay

        Raises
        ------
        ValueError
            With the attribute ``parameter="max_lines"`` when the other parameters take
            more than ``max_lines`` combinations: a caller can then pass ``fixed=`` (as
            the message suggests) without reading the message.
        """
        caller = f"{cls.__name__}.from_cv_results"
        pyplot(caller)
        validate_parameter_constraints(
            _CONSTRAINTS,
            {"spread": spread, "show_folds": show_folds, "max_lines": max_lines,
             "xscale": xscale},
            caller_name=caller,
        )
        results, candidates, rows, others, n_splits = _search_results(
            cv_results, param, metric, fixed)

        keys = list(dict.fromkeys(_line_key(candidates[i], others) for i in rows))
        if len(keys) > max_lines:
            example = {n: candidates[rows[0]][n] for n in others if n in candidates[rows[0]]}
            error = ValueError(
                f"The other parameters {others} take {len(keys)} combinations among the "
                f"candidates, more than max_lines={max_lines} lines. Select some with "
                f"fixed=, e.g. fixed={example!r}, or raise max_lines."
            )
            error.parameter = "max_lines"
            raise error
        xs = [candidates[i][param] for i in rows]
        numeric = all(_is_number(v) for v in xs)
        if numeric:
            param_values = np.unique(np.asarray(xs, dtype=np.float64))
            if all(isinstance(v, Integral) for v in xs):
                param_values = param_values.astype(np.int64)
            position = {v: j for j, v in enumerate(param_values.tolist())}

            def column_of(v):
                return position[float(v) if param_values.dtype.kind == "f" else int(v)]
        else:
            shown = list(dict.fromkeys(repr(v) for v in xs))
            position = {r: j for j, r in enumerate(shown)}
            param_values = np.empty(len(shown), dtype=object)
            for v in xs:
                param_values[position[repr(v)]] = v

            def column_of(v):
                return position[repr(v)]

        shape = (len(keys), len(param_values))
        mean = np.full(shape, np.nan)
        std = np.full(shape, np.nan)
        folds = np.full((*shape, n_splits), np.nan)
        seen = np.zeros(shape, dtype=bool)
        labels = [None] * len(keys)
        line_of = {k: j for j, k in enumerate(keys)}
        for i in rows:
            line = line_of[_line_key(candidates[i], others)]
            column = column_of(candidates[i][param])
            if seen[line, column]:
                raise ValueError(
                    f"Two candidates of the search have the same parameters "
                    f"{candidates[i]}; cannot tell which to draw."
                )
            seen[line, column] = True
            labels[line] = _line_label(candidates[i], others)
            mean[line, column] = results[f"mean_test_{metric}"][i]
            std[line, column] = results[f"std_test_{metric}"][i]
            for s in range(n_splits):
                folds[line, column, s] = results[f"split{s}_test_{metric}"][i]
        display = cls(param_values, mean, param=param, std_scores=std, fold_scores=folds,
                      labels=labels if others else None, metric=metric,
                      fixed=dict(fixed) if fixed else None)
        return display.plot(ax, spread=spread, show_folds=show_folds, xscale=xscale,
                            line_kwargs=line_kwargs, band_kwargs=band_kwargs,
                            fold_kwargs=fold_kwargs)
