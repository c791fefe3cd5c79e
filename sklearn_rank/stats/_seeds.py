"""Variance where it comes from: per-query values of models on data sets under several seeds.

A benchmark repeats its cross-validation with several seeds (each repeat tests every query
once). The spread of a model's mean over seeds is the seed's noise; the spread over queries
is the data's. :func:`seed_summary` reports both, and pairs two models' values query by
query under the same seed, so that seed noise does not pose as a difference between models.
"""

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ..utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)
from . import _table
from ._data import align, as_source, check_same_definitions, common_metrics
from ._paired import (
    CI_METHODS,
    CONSTRAINTS,
    ConfidenceInterval,
    compare_pair,
    estimate_mean,
    rng_source,
)

_KEYS = ("dataset", "model", "seed")


@dataclass(frozen=True)
class SeedSpread:
    """One model on one data set and metric, from :func:`seed_summary`.

    Attributes
    ----------
    dataset, model, metric : str
        What the row is about.
    mean : float
        Mean over queries and seeds (the mean of the per-seed means: every seed tests the
        same queries).
    seed_std : float or None
        Standard deviation (``ddof=1``) of the per-seed means: the seed's noise. None with
        a single seed.
    seed_min, seed_max : float
        The lowest and highest per-seed mean.
    seed_means : ndarray of shape (n_seeds,)
        The mean over queries under each seed, in the order of ``SeedSummary.seeds``.
    confidence_interval : ConfidenceInterval
        Interval of the mean over queries, each query's value averaged over seeds first:
        the query-level uncertainty.
    n_seeds, n_queries : int
        Seeds and queries.
    """

    dataset: object
    model: object
    metric: str
    mean: float
    seed_std: object
    seed_min: float
    seed_max: float
    confidence_interval: ConfidenceInterval
    n_seeds: int
    n_queries: int
    seed_means: object = field(default=None, repr=False, compare=False)


def _read_long_frame(frame):
    missing = [c for c in (*_KEYS, "qid") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"A long DataFrame of per-query values needs the columns 'dataset', 'model', "
            f"'seed' and 'qid' beside one column per metric; it lacks {missing}."
        )
    out = {}
    for key, group in frame.groupby(list(_KEYS), sort=False):
        out[tuple(key)] = {c: group[c].to_numpy() for c in group.columns if c not in _KEYS}
    return out


def _describe(dataset, model, seed):
    """How errors name a system of a (dataset, model, seed) key."""
    return (f"model {model!r}" + ("" if dataset is None else f" on data set {dataset!r}")
            + ("" if seed is None else f" under seed {seed!r}"))


def _grid(values, metric):
    """``{dataset: (models, seeds, {(model, seed): Source})}`` with a complete grid."""
    if hasattr(values, "columns") and hasattr(values, "groupby"):
        values = _read_long_frame(values)
    if not isinstance(values, Mapping) or not values:
        raise TypeError(
            "values must be a non-empty mapping {(dataset, model, seed): per-query values} or "
            "a long pandas DataFrame with columns 'dataset', 'model', 'seed', 'qid' and one "
            f"per metric; got {type(values).__name__}."
        )
    default = metric if isinstance(metric, str) else "score"
    grid = {}
    for key, x in values.items():
        if not (isinstance(key, tuple) and len(key) == 3):
            raise ValueError(
                f"The keys of values must be (dataset, model, seed) tuples; got {key!r}."
            )
        dataset, model, seed = key
        models, seeds, sources = grid.setdefault(dataset, ([], [], {}))
        if model not in models:
            models.append(model)
        if seed not in seeds:
            seeds.append(seed)
        sources[(model, seed)] = as_source(x, key, default_metric=default,
                                           label=_describe(dataset, model, seed))
    for dataset, (models, seeds, sources) in grid.items():
        absent = [(m, s) for m in models for s in seeds if (m, s) not in sources]
        if absent:
            shown = ", ".join(f"model {m!r} seed {s!r}" for m, s in absent[:5])
            raise ValueError(
                f"Data set {dataset!r} needs per-query values of every model under every seed "
                f"(models {models}, seeds {seeds}) to pair them by seed; missing: {shown}"
                + (", ..." if len(absent) > 5 else "") + "."
            )
    return grid


class SeedSummary(_table.TextTable):
    """Means over queries, spreads over seeds and query-level intervals, per data set and model.

    From :func:`seed_summary`. Renders as a table: ``str(summary)`` or :meth:`to_string`,
    :meth:`to_markdown`, :meth:`to_latex`, :meth:`to_html`, :meth:`to_frame`.

    Attributes
    ----------
    rows : list of SeedSpread
        One per data set, model and metric.
    datasets, metrics : list
        In the order first given.
    models, seeds : dict
        ``models[dataset]``, ``seeds[dataset]``: lists, in the order first given.
    values : dict
        ``values[dataset][metric]``: ndarray of shape (n_queries, n_models, n_seeds), the
        aligned per-query values.
    query_ids : dict
        ``query_ids[dataset]``: the query ids of those rows (None when aligned by position).
    confidence_level : float
    ci_method : str
    """

    def __init__(self, *, rows, datasets, metrics, models, seeds, values, query_ids,
                 confidence_level, ci_method):
        self.rows = rows
        self.datasets = datasets
        self.metrics = metrics
        self.models = models
        self.seeds = seeds
        self.values = values
        self.query_ids = query_ids
        self.confidence_level = confidence_level
        self.ci_method = ci_method

    def _metric(self, metric):
        if metric is None:
            if len(self.metrics) > 1:
                raise ValueError(
                    f"The summary holds several metrics ({self.metrics}); choose one with "
                    "metric=."
                )
            return self.metrics[0]
        if metric not in self.metrics:
            raise ValueError(f"metric={metric!r} is not one of {self.metrics}.")
        return metric

    def _model(self, dataset, model):
        if dataset not in self.models:
            raise ValueError(f"dataset={dataset!r} is not one of {self.datasets}.")
        if model not in self.models[dataset]:
            raise ValueError(
                f"Model {model!r} is not one of data set {dataset!r}'s: "
                f"{self.models[dataset]}."
            )
        return self.models[dataset].index(model)

    def per_query_means(self, model, *, dataset, metric=None):
        """Each query's value of ``model``, averaged over seeds.

        Returns
        -------
        ids, values : ndarray or None, ndarray of shape (n_queries,)
        """
        metric = self._metric(metric)
        j = self._model(dataset, model)
        return self.query_ids[dataset], self.values[dataset][metric][:, j, :].mean(axis=1)

    def dataset_scores(self, metric=None):
        """``{dataset: {model: mean}}``: what :func:`compare_datasets` compares.

        Parameters
        ----------
        metric : str, default=None
            The metric; may be None when the summary holds one.

        Returns
        -------
        scores : dict
        """
        metric = self._metric(metric)
        out = {}
        for row in self.rows:
            if row.metric == metric:
                out.setdefault(row.dataset, {})[row.model] = row.mean
        return out

    def paired_test(self, a, b, *, dataset, metric=None, test="t", alternative="two-sided",
                    ci_method="auto", confidence_level=0.95, n_resamples=9999,
                    random_state=None):
        """Paired test of models ``a`` and ``b`` on one data set, over queries.

        The two models' values are paired by query and seed: the same query under the same
        seed (the same split, the same training data). The pairs of each query are then
        reduced to their mean over seeds, and the test runs on these per-query mean
        differences, each query one unit. The ``n_queries * n_seeds`` pairs are not
        independent -- a query's pairs share the query -- and a test that counted each as
        a unit would take seed repeats for new evidence: it would shrink the p-value with
        every seed added and let seed noise pose as a difference between the models.

        Parameters
        ----------
        a, b : str
            The two models.

        dataset : str
            The data set.

        metric : str, default=None
            The metric; may be None when the summary holds one.

        test, alternative, ci_method, confidence_level, n_resamples, random_state
            As in :func:`paired_test`.

        Returns
        -------
        result : PairedTestResult
            Over ``n_queries`` units, the differences of the per-query means over seeds.
        """
        validate_parameter_constraints(
            {k: CONSTRAINTS[k] for k in ("test", "alternative", "ci_method", "confidence_level",
                               "n_resamples", "random_state")},
            {"test": test, "alternative": alternative, "ci_method": ci_method,
             "confidence_level": confidence_level, "n_resamples": n_resamples,
             "random_state": random_state},
            caller_name="SeedSummary.paired_test",
        )
        ids, x = self.per_query_means(a, dataset=dataset, metric=metric)
        _, y = self.per_query_means(b, dataset=dataset, metric=metric)
        return compare_pair(x, y, test=test, alternative=alternative, ci_method=ci_method,
                            confidence_level=confidence_level, n_resamples=n_resamples,
                            rng=rng_source(random_state), ids=ids)

    def query_set_size(self, a, b, *, dataset, metric=None, **kwargs):
        """:func:`query_set_size` of models ``a`` and ``b`` on one data set.

        The variance is that of the per-query differences of the means over seeds, the
        units of :meth:`paired_test`.

        Parameters
        ----------
        a, b : str
            The two models.

        dataset : str
            The data set.

        metric : str, default=None
            The metric; may be None when the summary holds one.

        **kwargs
            ``delta``, ``alpha``, ``power``, ``alternative`` of :func:`query_set_size`.

        Returns
        -------
        result : QuerySetSize
        """
        from ._power import query_set_size

        _, x = self.per_query_means(a, dataset=dataset, metric=metric)
        _, y = self.per_query_means(b, dataset=dataset, metric=metric)
        return query_set_size(x - y, **kwargs)

    def _table(self, fmt, digits):
        level = f"{self.confidence_level * 100:g}%"
        several = len(self.metrics) > 1
        # a run of one unnamed data set has no data set column (its name would be "None")
        named = any(r.dataset is not None for r in self.rows)
        header = [*(["Data set"] if named else []), "Model", *(["Metric"] if several else []),
                  "Mean", "Seed sd", "Seed range", f"{level} CI (queries)", "Seeds", "Queries"]
        rows = []
        for r in self.rows:
            sd = "-" if r.seed_std is None else f"{r.seed_std:.{digits}f}"
            low, high = r.confidence_interval
            rows.append([*([str(r.dataset)] if named else []), str(r.model),
                         *([r.metric] if several else []),
                         f"{r.mean:.{digits}f}", sd,
                         f"{r.seed_min:.{digits}f} - {r.seed_max:.{digits}f}",
                         f"[{low:.{digits}f}, {high:.{digits}f}]", str(r.n_seeds),
                         str(r.n_queries)])
        note = (f"Mean over queries and seeds; seed sd and range: of the per-seed means; CI: "
                f"{level} {_table.ci_name(self.ci_method)} interval over queries, each "
                "query's value averaged over seeds.")
        return header, rows, note

    def to_string(self, digits=3):
        """The summary as plain text.

        Parameters
        ----------
        digits : int, default=3

        Returns
        -------
        table : str
        """
        header, rows, note = self._table("text", digits)
        return "\n".join([_table.format_table(header, rows, "text",
                                              align=_align(header)),
                          "", *_table.wrap(note)])

    def to_markdown(self, digits=3):
        """The summary in Markdown.

        Parameters
        ----------
        digits : int, default=3

        Returns
        -------
        table : str
        """
        header, rows, note = self._table("markdown", digits)
        return "\n".join([_table.format_table(header, rows, "markdown",
                                              align=_align(header)),
                          "", note])

    def to_latex(self, digits=3):
        """The summary as a LaTeX ``tabular`` with booktabs rules.

        Parameters
        ----------
        digits : int, default=3

        Returns
        -------
        table : str
        """
        header, rows, note = self._table("latex", digits)
        esc = _table._latex_escape
        lines = [r"\begin{tabular}{" + _align(header) + "}", r"\toprule",
                 " & ".join(esc(h) for h in header) + r" \\", r"\midrule"]
        lines += [" & ".join(esc(c).replace(" - ", "--") for c in r) + r" \\" for r in rows]
        lines += [r"\bottomrule",
                  rf"\multicolumn{{{len(header)}}}{{l}}{{\footnotesize {esc(note)}}} \\",
                  r"\end{tabular}"]
        return "\n".join(lines)

    def to_html(self, digits=3):
        """The summary as an HTML fragment, for a report.

        Parameters
        ----------
        digits : int, default=3

        Returns
        -------
        fragment : str
            A ``<section class="seed-spread">`` element, its text escaped.
        """
        esc = html.escape
        header, rows, note = self._table("html", digits)
        head = "".join(f"<th>{esc(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>"
                       for row in rows)
        return "\n".join(['<section class="seed-spread">', "<h2>Spread over seeds</h2>",
                          f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
                          "</table>", f"<p>{esc(note)}</p>", "</section>"])

    def to_frame(self):
        """One row per data set, model and metric (pandas needed).

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``dataset``, ``model``, ``metric``, ``mean``, ``seed_std``,
            ``seed_min``, ``seed_max``, ``ci_low``, ``ci_high``, ``n_seeds``,
            ``n_queries``.
        """
        from ..utils._optional import import_optional

        pd = import_optional("pandas", extra="pandas", purpose="SeedSummary.to_frame")
        return pd.DataFrame.from_records([
            {"dataset": r.dataset, "model": r.model, "metric": r.metric, "mean": r.mean,
             "seed_std": np.nan if r.seed_std is None else r.seed_std,
             "seed_min": r.seed_min, "seed_max": r.seed_max,
             "ci_low": r.confidence_interval.low, "ci_high": r.confidence_interval.high,
             "n_seeds": r.n_seeds, "n_queries": r.n_queries}
            for r in self.rows
        ])


@validate_params(
    {
        "values": "no_validation",
        "metric": [str, list, tuple, None],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "ci_method": [StrOptions(set(CI_METHODS))],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "random_state": CONSTRAINTS["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def seed_summary(values, *, metric=None, confidence_level=0.95, ci_method="t",
                 n_resamples=9999, random_state=None):
    """Per data set, model and metric: the mean, its spread over seeds, its query interval.

    Parameters
    ----------
    values : dict or pandas DataFrame
        The per-query values of each model on each data set under each seed, as either

        - a dict ``{(dataset, model, seed): per_query}``, ``per_query`` in any form that
          :func:`paired_test` takes with query ids: a
          :class:`~sklearn_rank.metrics.PerQueryResult`, a tuple ``(qid, values)``, a dict
          or DataFrame with a ``"qid"`` column (and an optional ``"fold"``) and one column
          per metric, a ``cross_validate(..., return_per_query=True)`` result;
        - a long pandas DataFrame with columns ``"dataset"``, ``"model"``, ``"seed"``,
          ``"qid"`` (optionally ``"fold"``) and one column per metric, one row per query of
          each (dataset, model, seed).

        Within a data set, every model must have values under every seed, on the same
        queries (each seed's repeat of cross-validation tests every query once).

    metric : str, list of str or None, default=None
        The metrics to summarise; None: every metric all inputs have.

    confidence_level : float, default=0.95
        Level of the query-level intervals.

    ci_method : {"t", "BCa", "percentile", "basic"}, default="t"
        The interval of the mean over queries: Student's t, or a bootstrap interval over
        queries (:func:`scipy.stats.bootstrap`).

    n_resamples : int, default=9999
        Bootstrap resamples, for the bootstrap intervals.

    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the bootstrap, as in :func:`bootstrap_ci`.

    Returns
    -------
    summary : SeedSummary
        ``rows`` (:class:`SeedSpread`), the tables, :meth:`SeedSummary.paired_test` and
        :meth:`SeedSummary.dataset_scores` for :func:`compare_datasets`.

    See Also
    --------
    compare_datasets : The models compared across data sets.
    query_set_size : Whether a data set has enough queries.

    Notes
    -----
    Three sources of variation, kept apart. The mean over queries of each seed gives
    ``n_seeds`` per-seed means: their standard deviation and range are the seed's noise (the
    split, the model's own randomness). Each query's values are averaged over seeds, and the
    interval of the mean over these per-query means is the query-level uncertainty: how
    much the mean would move with other queries. A test between models pairs the same query
    under the same seed (:meth:`SeedSummary.paired_test`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.stats import seed_summary
    >>> rng = np.random.default_rng(0)
    >>> qid = np.arange(40)
    >>> base = rng.uniform(0.3, 0.7, size=40)
    >>> values = {
    ...     ("web30k", model, seed): (qid, base + shift + rng.normal(0, 0.05, size=40))
    ...     for model, shift in [("lambdamart", 0.03), ("ridge", 0.0)] for seed in range(3)
    ... }
    >>> summary = seed_summary(values, metric="ndcg@10")
    >>> row = summary.rows[0]
    >>> row.model, round(row.mean, 3), round(row.seed_std, 4), row.n_seeds, row.n_queries
    ('lambdamart', 0.547, 0.0119, 3, 40)
    >>> result = summary.paired_test("lambdamart", "ridge", dataset="web30k")
    >>> result.n, round(result.mean_difference, 4), round(result.pvalue, 4)
    (40, 0.0349, 0.0)
    """
    grid = _grid(values, metric)
    everything = [s for _, _, sources in grid.values() for s in sources.values()]
    # each data set may have its definition (its own grade scale): compared within one
    metrics = common_metrics(everything, metric, same_definitions=False)
    rng = rng_source(random_state)
    rows, aligned_values, query_ids = [], {}, {}
    for dataset, (models, seeds, sources) in grid.items():
        ordered = [sources[(m, s)] for m in models for s in seeds]
        check_same_definitions(ordered, metrics)
        aligned_values[dataset] = {}
        for m in metrics:
            aligned = align(ordered, m, "query")
            cube = aligned.values.reshape(len(aligned.values), len(models), len(seeds))
            aligned_values[dataset][m] = cube
            query_ids[dataset] = aligned.ids
            for j, model in enumerate(models):
                seed_means = cube[:, j, :].mean(axis=0)
                estimate = estimate_mean(cube[:, j, :].mean(axis=1), method=ci_method,
                                         confidence_level=confidence_level,
                                         n_resamples=n_resamples, rng=rng())
                rows.append(SeedSpread(
                    dataset, model, m, float(seed_means.mean()),
                    float(np.std(seed_means, ddof=1)) if len(seeds) > 1 else None,
                    float(seed_means.min()), float(seed_means.max()),
                    estimate.confidence_interval, len(seeds), len(cube), seed_means,
                ))
    return SeedSummary(
        rows=rows, datasets=list(grid), metrics=metrics,
        models={d: g[0] for d, g in grid.items()}, seeds={d: g[1] for d, g in grid.items()},
        values=aligned_values, query_ids=query_ids, confidence_level=confidence_level,
        ci_method=ci_method,
    )


def _align(header):
    """Left the names (data set, model), right the rest, as the tables of ``stats`` align."""
    left = sum(name in ("Data set", "Model") for name in header)
    return "l" * left + "r" * (len(header) - left)
