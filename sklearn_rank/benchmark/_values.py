"""Per-query values of a benchmark run across its seeds, and as ``PerQueryResult`` objects.

The statistics over seeds are :func:`sklearn_rank.stats.seed_summary`'s: the runner's
results, the stored runs, the report and the command line read them through the helpers
here, so that a number is computed in one place. :class:`Analyses` gives a run
(:class:`~sklearn_rank.benchmark.BenchmarkResult`, :class:`~sklearn_rank.benchmark.StoredRun`)
its analyses across seeds and data sets.
"""

import inspect

import numpy as np

__all__ = ["Analyses", "PerQueryColumns", "per_query_result", "power_pair", "seed_mean",
           "seed_spread"]


def _summary(per_query_by_seed, metrics):
    """The :class:`~sklearn_rank.stats.SeedSummary` of one system on one data set."""
    from ..stats import seed_summary

    keep = ("qid", "fold", *metrics)  # not the "dataset" and "seed" of a stored run
    return seed_summary({(None, None, i): {k: v for k, v in values.items() if k in keep}
                         for i, values in enumerate(per_query_by_seed)},
                        metric=list(metrics))


def seed_mean(per_query_by_seed, metrics):
    """The per-query values of one system on one data set, averaged over the seeds.

    Every repeat scores every query once (in the test fold its seed put it in): the mean of
    a query's values over the repeats is its value with the seed noise of the split and the
    model averaged out, and the systems' means stay paired by query and seed (what
    :meth:`sklearn_rank.stats.SeedSummary.per_query_means` gives). A NaN per-query value
    stays NaN, for :func:`~sklearn_rank.stats.compare` to refuse it naming the system.

    Parameters
    ----------
    per_query_by_seed : list of dict
        Per seed, ``{"qid": ..., metric: values}``.
    metrics : list of str

    Returns
    -------
    per_query : dict
        ``{"qid": sorted query ids, metric: mean over the seeds}``.
    """
    from ..utils._qid import unique_ids

    qid = unique_ids(per_query_by_seed[0]["qid"])
    out = {"qid": qid}
    for metric in metrics:
        stacked = []
        for values in per_query_by_seed:
            order = np.argsort(values["qid"], kind="stable")
            ids = np.asarray(values["qid"])[order]
            if len(ids) != len(qid) or not np.array_equal(ids, qid):
                raise ValueError("the repeats of a data set scored different queries; "
                                 "their per-query values cannot be averaged.")
            stacked.append(np.asarray(values[metric], dtype=np.float64)[order])
        out[metric] = np.mean(stacked, axis=0)
    return out


def seed_spread(per_query_by_seed, metrics):
    """The spread over seeds of a system's mean over queries.

    Computed by :func:`~sklearn_rank.stats.seed_summary` (the numbers of
    :meth:`BenchmarkResult.seed_summary
    <sklearn_rank.benchmark.BenchmarkResult.seed_summary>`), for per-query values held per
    seed, as :func:`seed_mean` takes them.

    Parameters
    ----------
    per_query_by_seed : list of dict
        Per seed, ``{"qid": ..., metric: values}``.
    metrics : list of str
        The metrics, keys of the dicts.

    Returns
    -------
    spread : dict
        ``{metric: (mean of the per-seed means, their standard deviation with ddof=1)}``;
        the deviation is NaN for one seed.

    Raises
    ------
    ValueError
        A NaN per-query value, as :func:`~sklearn_rank.stats.seed_summary` refuses it.
    """
    summary = _summary(per_query_by_seed, metrics)
    return {row.metric: (row.mean, np.nan if row.seed_std is None else row.seed_std)
            for row in summary.rows}


def run_keys(provenance, dataset=None):
    """Metric name -> the canonical key that a run recorded for data set ``dataset`` (its
    ``provenance["datasets"][dataset]["metrics"]``, else its ``provenance["metrics"]``):
    what each of its numbers computed. None when the provenance has none."""
    provenance = provenance or {}
    datasets = provenance.get("datasets")
    if isinstance(datasets, dict) and isinstance(datasets.get(dataset), dict):
        keys = datasets[dataset].get("metrics", provenance.get("metrics"))
    else:
        keys = provenance.get("metrics")
    return keys if isinstance(keys, dict) else None


class PerQueryColumns(dict):
    """A system's per-query columns ``{"qid", ("fold",) metric: values}`` with each metric's
    canonical key in ``attrs["metric_keys"]``, as
    :meth:`~sklearn_rank.metrics.PerQueryResult.to_frame` keeps them: the statistics refuse
    to compare them with values of the same name computed otherwise (another run's, under
    another convention)."""

    def __init__(self, columns, keys=None):
        super().__init__(columns)
        self.attrs = {"metric_keys": {m: key for m, key in (keys or {}).items() if m in self}}


def metric_options(metrics, keys):
    """The ``options`` of a :class:`~sklearn_rank.metrics.PerQueryResult` of ``metrics``
    computed as ``keys`` (metric name -> canonical key) say, so that its
    :meth:`~sklearn_rank.metrics.PerQueryResult.key` says what was computed and the
    statistics refuse to compare it with the same name computed otherwise; a metric
    without a key this version reads is left without options (its key unknown)."""
    from ..metrics import bind_metric

    options = {}
    for m in metrics:
        try:
            bound = bind_metric((keys or {})[m])
        except (KeyError, TypeError, ValueError):  # no key, or one of another version
            continue
        options[m] = {"metric": bound.metric.name, **bound.options}
    return options


def per_query_result(values, metrics, keys=None):
    """A :class:`~sklearn_rank.metrics.PerQueryResult` of stored per-query values (with their
    folds when ``PerQueryResult`` takes a fold column); with ``keys`` (metric name -> the
    canonical key the run recorded, :func:`run_keys`), the options of each metric
    (:func:`metric_options`)."""
    from ..metrics import PerQueryResult

    # a result lists its queries in increasing order; the folds list them fold by fold
    order = np.argsort(values["qid"], kind="stable")
    kwargs = {}
    if "fold" in values and "fold" in inspect.signature(PerQueryResult).parameters:
        kwargs["fold"] = np.asarray(values["fold"])[order]
    return PerQueryResult(np.asarray(values["qid"])[order],
                          {m: np.asarray(values[m])[order] for m in metrics},
                          options=metric_options(metrics, keys), **kwargs)


def _seed_summary(run, metric=None, **kwargs):
    from ..stats import seed_summary

    return seed_summary(run._per_query_values(),
                        metric=list(run.metrics) if metric is None else metric, **kwargs)


def _one_metric(run, metric):
    if metric is None:
        return run.metrics[0]
    if metric not in run.metrics:
        raise ValueError(f"metric={metric!r} is not a metric of this run; its metrics: "
                         f"{', '.join(map(repr, run.metrics))}.")
    return metric


def _dataset_name(run, dataset):
    datasets = list(run.datasets)
    if dataset is None and len(datasets) == 1:
        return datasets[0]
    if dataset not in datasets:
        raise ValueError(f"dataset={dataset!r} is not a data set of this run; its data "
                         f"sets: {', '.join(map(repr, datasets))}.")
    return dataset


class Analyses:
    """The analyses of a run across its seeds and data sets, shared by
    :class:`~sklearn_rank.benchmark.BenchmarkResult` and
    :class:`~sklearn_rank.benchmark.StoredRun`, so that Python and the report agree.

    A subclass gives ``datasets``, ``seeds``, ``metrics`` and :meth:`_per_query_values`.
    (:class:`~sklearn_rank.benchmark.StoredRun`, whose module loads on its own, calls these
    methods on itself instead of inheriting them.)
    """

    def _per_query_values(self):
        """``{(dataset, model, seed): {"qid", "fold", metric: values}}``."""
        raise NotImplementedError

    def seed_summary(self, metric=None, **kwargs):
        """:func:`sklearn_rank.stats.seed_summary` of the run: per data set, model and
        metric, the mean over queries and seeds, the spread of the per-seed means, and the
        query-level interval.

        Parameters
        ----------
        metric : str or list of str, default=None
            The metrics; None: all the run's metrics.
        **kwargs
            ``confidence_level``, ``ci_method``, ``n_resamples``, ``random_state`` of
            :func:`~sklearn_rank.stats.seed_summary`.

        Returns
        -------
        summary : SeedSummary
            With :meth:`~sklearn_rank.stats.SeedSummary.paired_test` (pairing the same query
            under the same seed) and the tables.
        """
        return _seed_summary(self, metric, **kwargs)

    def paired_test(self, a, b, *, dataset=None, metric=None, **kwargs):
        """:meth:`sklearn_rank.stats.SeedSummary.paired_test` of models ``a`` and ``b`` on
        one data set: the same query under the same seed paired, one unit per query.

        ``metric`` defaults to the run's first metric, ``dataset`` to the one data set of a
        run of one; other keyword arguments go to the test.
        """
        metric = _one_metric(self, metric)
        return _seed_summary(self, metric).paired_test(
            a, b, dataset=_dataset_name(self, dataset), metric=metric, **kwargs)

    def query_set_size(self, a, b, *, dataset=None, metric=None, delta=None, alpha=0.05,
                       power=0.8, alternative="two-sided"):
        """:func:`sklearn_rank.stats.query_set_size` of models ``a`` and ``b`` on one data
        set: the queries the paired t-test needs to detect ``delta``, and the minimum
        detectable difference with the queries at hand.

        The variance is that of the per-query differences, each query's values averaged
        over the seeds (:meth:`sklearn_rank.stats.SeedSummary.query_set_size`).

        Returns
        -------
        result : QuerySetSize
        """
        metric = _one_metric(self, metric)
        return _seed_summary(self, metric).query_set_size(
            a, b, dataset=_dataset_name(self, dataset), metric=metric, delta=delta,
            alpha=alpha, power=power, alternative=alternative)

    def compare_datasets(self, metric=None, *, posthoc="wilcoxon", correction="auto",
                         alpha=0.05, higher_is_better=True, delta=None, power=0.8):
        """:func:`sklearn_rank.stats.compare_datasets` of the models across the run's data
        sets, with the power line of each data set.

        Each data set gives each model one score, its mean over queries and seeds; the
        models are ranked within each data set (Friedman's test, the post-hoc tests, the
        groups of the critical difference diagram). Beneath the tests, per data set, the
        power line of the best model against the runner-up (the two best average ranks):
        the queries needed to detect ``delta`` with the paired t-test at ``alpha`` and
        ``power``, and the minimum detectable difference with the queries at hand.

        Parameters
        ----------
        metric : str, default=None
            The metric; None: the run's first metric.
        posthoc : {"wilcoxon", "sign", "nemenyi"}, default="wilcoxon"
        correction : {"auto", "holm", "bonferroni"} or None, default="auto"
        alpha : float, default=0.05
        higher_is_better : bool, default=True
            As in :func:`~sklearn_rank.stats.compare_datasets`.
        delta : float, default=None
            The difference of the power lines, in metric units; None: only the minimum
            detectable difference.
        power : float, default=0.8
            The power of the power lines.

        Returns
        -------
        result : AcrossDatasetsResult
        """
        from ..stats import compare_datasets

        metric = _one_metric(self, metric)
        summary = _seed_summary(self, metric)
        settings = {"metric": metric, "posthoc": posthoc, "correction": correction,
                    "alpha": alpha, "higher_is_better": higher_is_better}
        ranked = compare_datasets(summary, **settings)
        best, runner_up = power_pair(ranked)
        lines = {dataset: summary.query_set_size(best, runner_up, dataset=dataset,
                                                 metric=metric, delta=delta, alpha=alpha,
                                                 power=power)
                 for dataset in ranked.datasets}
        return compare_datasets(summary, **settings, power=lines)


def power_pair(result):
    """The two models of the power lines of an :class:`~sklearn_rank.stats.AcrossDatasetsResult`:
    the best average rank and the runner-up (the first given on a tie)."""
    first, second = np.argsort(result.average_ranks, kind="stable")[:2]
    return result.models[first], result.models[second]
