"""A benchmark run: models x data sets x seeds x folds, stored and resumed.

:func:`run_benchmark` is the library's entry point, which ``sklearn-rank cv`` calls. Its
pieces: :func:`benchmark_tasks` lays out the units of work (every model on every fold of
``QueryKFold`` of every data set, the split repeated with a seed per repeat),
:func:`~sklearn_rank.benchmark._runner.run_units` runs them, a
:class:`~sklearn_rank.benchmark.Recorder` (a results store) receives each result as it ends,
and :func:`assemble_folds` puts the per-query values of each model back together, per data
set and seed, in fold order.
"""

import csv
import io
from numbers import Integral

import numpy as np

from ._units import Task, Unit, as_dataset
from ._values import (
    Analyses,
    PerQueryColumns,
    _dataset_name,
    per_query_result,
    run_keys,
    seed_mean,
)

__all__ = ["BenchmarkResult", "assemble_folds", "benchmark_tasks", "repeat_seeds",
           "run_benchmark", "splitter_text"]


def splitter_text(n_splits, seed):
    """The splitter of one repeat, as the provenance records it."""
    return f"QueryKFold(n_splits={n_splits}, shuffle=True, random_state={seed})"


def repeat_seeds(random_state, n_repeats=None, seeds=None):
    """The repeats of a run: ``[(unit_seed, seed)]``.

    Without ``n_repeats`` and ``seeds``, one repeat of seed ``random_state`` whose units
    carry no seed (``unit_seed`` None: the run's seed, as in a run of one seed). Otherwise
    one repeat per seed, ``seeds`` or ``random_state, random_state + 1, ...``.

    Parameters
    ----------
    random_state : int or None
        The seed of the run; the first of the repeats of ``n_repeats``.
    n_repeats : int, default=None
        The number of repeats, of consecutive seeds from ``random_state``.
    seeds : list of int, default=None
        The seeds of the repeats, distinct. Not with ``n_repeats``.

    Returns
    -------
    repeats : list of tuple
        ``(unit_seed, seed)``: the seed that the units of the repeat carry (None for a run
        of one seed), and the seed of its split and models.

    Raises
    ------
    ValueError
        Both ``n_repeats`` and ``seeds``, or a value that is not a valid count or list of
        seeds.

    Examples
    --------
    >>> from sklearn_rank.benchmark import repeat_seeds
    >>> repeat_seeds(0)
    [(None, 0)]
    >>> repeat_seeds(0, n_repeats=3)
    [(0, 0), (1, 1), (2, 2)]
    """
    if n_repeats is not None and seeds is not None:
        raise ValueError(f"give n_repeats or seeds, not both; got n_repeats={n_repeats!r} and "
                         f"seeds={seeds!r}.")
    if n_repeats is None and seeds is None:
        return [(None, random_state)]
    if seeds is None:
        if isinstance(n_repeats, bool) or not isinstance(n_repeats, Integral) or n_repeats < 1:
            raise ValueError(f"n_repeats must be an integer of at least 1; got {n_repeats!r}.")
        if not isinstance(random_state, Integral):
            raise ValueError("n_repeats numbers the seeds from random_state, which must be an "
                             f"integer; got random_state={random_state!r}.")
        seeds = [int(random_state) + i for i in range(n_repeats)]
    seeds = list(seeds)
    bad = [s for s in seeds if isinstance(s, bool) or not isinstance(s, Integral)]
    if not seeds or bad:
        raise ValueError(f"seeds must be a non-empty list of integers; got {seeds!r}.")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct: a repeated seed repeats the same split; "
                         f"got {seeds!r}.")
    return [(int(s), int(s)) for s in seeds]


def benchmark_tasks(labels, estimator_for, datasets, seeds, n_splits, *, params,
                    dense=frozenset(), test=None, scoring=None):
    """The units of work of a run, with what each needs to run.

    Parameters
    ----------
    labels : list of str
        The models, in order.
    estimator_for : callable
        ``estimator_for(label, seed)`` -> the unfitted estimator of a model under a seed.
    datasets : dict
        Data set name (None for a run of one unnamed data set) -> data set.
    seeds : list of (int or None, int)
        :func:`repeat_seeds`.
    n_splits : int
        The folds of ``QueryKFold``.
    params : dict
        Model label -> the parameters set (part of the unit keys of a store).
    dense : set of str, default=frozenset()
        The models that take dense features only.
    test : data set, default=None
        A held-out test set: each model refitted on all the data is one more unit (a run
        of one data set and one seed only).
    scoring : dict, default=None
        Data set name -> the scorers of its folds (each data set's grade scale); None: the
        runner's scoring for every task.

    Returns
    -------
    tasks : list of Task
    """
    from ..model_selection import QueryKFold

    tasks = []
    for name, data in datasets.items():
        for unit_seed, seed in seeds:
            cv = QueryKFold(n_splits, shuffle=True, random_state=seed)
            splits = list(cv.split(data.X, data.y, qid=data.qid))
            for label in labels:
                estimator = estimator_for(label, seed)
                for fold, (train, test_rows) in enumerate(splits):
                    unit = Unit(label, fold, dataset=name, seed=unit_seed)
                    tasks.append(Task(unit, estimator, params[label], train, test_rows,
                                      unit.describe(n_splits), dense=label in dense,
                                      data=data,
                                      scoring=None if scoring is None else scoring[name]))
    if test is not None:
        if len(datasets) != 1 or len(seeds) != 1:
            raise ValueError("a held-out test set goes with a run of one data set and one "
                             f"seed; this run has {len(datasets)} data sets and {len(seeds)} "
                             "seeds.")
        (name, data), ((unit_seed, seed),) = next(iter(datasets.items())), seeds
        for label in labels:
            unit = Unit(label, None, dataset=name, seed=unit_seed)
            tasks.append(Task(unit, estimator_for(label, seed), params[label],
                              detail=unit.describe(n_splits), dense=label in dense,
                              data=data))
    return tasks


def assemble_folds(results, labels, metrics, datasets, seeds):
    """Per data set and seed, per model, the units' results in fold order: what one
    ``cross_validate`` returns.

    Returns
    -------
    folds : dict
        ``(dataset, unit_seed)`` -> model label -> ``{"per_query": {"qid", "fold", metric:
        values}, "fit_time", "score_time", "scores_by_fold", "scores"}`` (``scores``: the
        out-of-fold predictions of every row, when the units kept them).
    tested : dict
        Model label -> the per-query values on the held-out test set.
    """
    folds, tested = {}, {}
    for name, data in datasets.items():
        for unit_seed, _ in seeds:
            mine_all = [r for r in results if r.unit.dataset == name
                        and r.unit.seed == unit_seed]
            folds[name, unit_seed] = _assemble(mine_all, labels, metrics, len(data.y))
    for label in labels:
        held_out = [r for r in results if r.unit.model == label and r.unit.fold is None]
        if held_out:
            tested[label] = held_out[0].per_query
    return folds, tested


def _assemble(results, labels, metrics, n_rows):
    folds = {}
    for label in labels:
        mine = sorted((r for r in results if r.unit.model == label and r.unit.fold is not None),
                      key=lambda r: r.unit.fold)
        per_query = {"qid": np.concatenate([r.per_query["qid"] for r in mine]),
                     "fold": np.concatenate([np.full(len(r.per_query["qid"]), r.unit.fold)
                                             for r in mine])}
        per_query.update({m: np.concatenate([r.per_query[m] for r in mine]) for m in metrics})
        scores = None
        if mine and mine[0].predictions is not None:
            scores = np.full(n_rows, np.nan)
            for r in mine:
                scores[r.rows] = r.predictions
        folds[label] = {"per_query": per_query, "fit_time": [r.fit_time for r in mine],
                        "score_time": [r.score_time for r in mine],
                        "scores_by_fold": {m: [r.scores[m] for r in mine] for m in metrics},
                        "scores": scores}
    return folds


class BenchmarkResult(Analyses):
    """The per-query values of a benchmark run, per data set, seed and model.

    Attributes
    ----------
    models : list of str
        The model labels, in the order given.
    datasets : list
        The data set names; ``[None]`` for a run of one unnamed data set.
    seeds : list
        The seeds of the repeats; ``[None]`` for a run of one seed (``random_state``).
    metrics : list of str
        The metric names.
    provenance : dict
        What the run recorded (and a store keeps): data fingerprints, metrics and their
        canonical keys, convention, splitter, seeds, models, library versions.
    folds : dict
        ``(dataset, seed)`` -> model -> ``{"per_query", "fit_time", "score_time",
        "scores_by_fold", "scores"}``.
    tested : dict
        Model -> its per-query values on the held-out test set (``{"qid", metric:
        values}``), refitted on all the data (``run_benchmark(test=...)``); empty without
        a test set. :meth:`per_query`, :meth:`systems` and :meth:`compare` give them with
        ``split="test"``.
    run_id : int or None
        The run in the store, when the run was stored.

    Notes
    -----
    The analyses across seeds and data sets are those of the stored run
    (:class:`~sklearn_rank.benchmark.StoredRun`) too: :meth:`seed_summary`,
    :meth:`paired_test` and :meth:`query_set_size` on one data set pair the same query under
    the same seed; :meth:`compare_datasets` ranks the models on each data set by their mean
    over queries and seeds.
    """

    def __init__(self, folds, *, models, datasets, seeds, metrics, provenance, run_id=None,
                 tested=None):
        self.folds = folds
        self.tested = dict(tested or {})
        self.models = list(models)
        self.datasets = list(datasets)
        self.seeds = list(seeds)
        self.metrics = list(metrics)
        self.provenance = provenance
        self.run_id = run_id

    def __repr__(self):
        def count(n, word):
            return f"{n} {word}{'' if n == 1 else 's'}"

        return (f"BenchmarkResult({count(len(self.models), 'model')} x "
                f"{count(len(self.datasets), 'data set')} x {count(len(self.seeds), 'seed')}, "
                f"metrics {self.metrics})")

    def _per_query_values(self):
        return {(dataset, label, seed): self.folds[dataset, seed][label]["per_query"]
                for dataset in self.datasets for label in self.models for seed in self.seeds}

    def _seed(self, seed):
        if seed is None and len(self.seeds) == 1:  # the one seed, whether it is named or not
            return self.seeds[0]
        if seed not in self.seeds:
            raise ValueError(f"seed={seed!r} is not a seed of this run; its seeds: "
                             f"{', '.join(map(repr, self.seeds))}.")
        return seed

    def systems(self, dataset=None, seed=None, *, split="cv"):
        """The per-query values of every model on one data set, as
        :func:`~sklearn_rank.stats.compare` takes them.

        Parameters
        ----------
        dataset : str, default=None
            The data set; None for a run of one.
        seed : int, default=None
            The seed of one repeat; None: the run's one seed, or, in a run of several, each
            query's value averaged over the seeds (:func:`seed_mean`), paired by query.
        split : {"cv", "test"}, default="cv"
            ``"cv"``: the test folds of the cross-validation; ``"test"``: the held-out test
            set, each model refitted on all the data (a run with ``test``).

        Returns
        -------
        systems : dict
            Model label -> ``{"qid", ("fold",) metric: values}``, a dict whose
            ``attrs["metric_keys"]`` holds the canonical key of each metric, so that the
            statistics refuse to compare it with another run's values of the same name
            computed otherwise.
        """
        if split not in ("cv", "test"):
            raise ValueError(f"split must be 'cv' or 'test'; got {split!r}.")
        if split == "test":
            if not self.tested:
                raise ValueError("split='test': this run has no held-out test set; give "
                                 "run_benchmark a test set (test=...).")
            keys = run_keys(self.provenance, _dataset_name(self, dataset))
            return {label: PerQueryColumns(self.tested[label], keys) for label in self.models}
        dataset = _dataset_name(self, dataset)
        keys = run_keys(self.provenance, dataset)
        if seed is None and len(self.seeds) > 1:
            return {label: PerQueryColumns(seed_mean([self.folds[dataset, s][label]["per_query"]
                                                      for s in self.seeds], self.metrics), keys)
                    for label in self.models}
        seed = self._seed(seed)
        return {label: PerQueryColumns(self.folds[dataset, seed][label]["per_query"], keys)
                for label in self.models}

    def per_query(self, model, dataset=None, seed=None, *, split="cv"):
        """The per-query values of one model on one data set, as a
        :class:`~sklearn_rank.metrics.PerQueryResult` (see :meth:`systems` for ``seed`` and
        ``split``)."""
        if model not in self.models:
            raise ValueError(f"model={model!r} is not a model of this run; its models: "
                             f"{', '.join(map(repr, self.models))}.")
        # with the metrics' options the run recorded, so that the statistics refuse to
        # compare them with another run's values of the same name under another convention
        columns = self.systems(dataset, seed, split=split)[model]
        return per_query_result(columns, self.metrics, columns.attrs["metric_keys"])

    def compare(self, dataset=None, *, seed=None, split="cv", metric=None, baseline=None,
                **kwargs):
        """:func:`sklearn_rank.stats.compare` of the models on one data set.

        In a run of several seeds (``seed=None``), the models are paired by query and seed:
        each query's difference is the mean over the seeds of the two models' differences
        on that query under the same seed (the same split, the same training data), and
        each query is one unit of the tests -- as
        :meth:`~sklearn_rank.stats.SeedSummary.paired_test` pairs them. A seed's repeat
        is not new evidence: counting each (query, seed) as a unit would let seed noise
        pose as a difference.

        ``split="test"`` compares the models refitted on all the data on the held-out test
        set. ``metric`` defaults to the run's metrics, ``baseline`` to the first model, and
        ``random_state`` to the run's seed; other keyword arguments go to ``compare``.
        """
        from ..stats import compare

        kwargs.setdefault("random_state", self.provenance.get("seed"))
        return compare(self.systems(dataset, seed, split=split), metric=metric or self.metrics,
                       baseline=baseline or self.models[0], **kwargs)

    def summary(self):
        """One row per data set, model and metric: the mean over queries (averaged over
        the seeds) and the standard deviation of the per-seed means (NaN for one seed): the
        rows of :meth:`seed_summary`, which refuses a NaN per-query value (a metric with
        ``no_relevant=nan``) rather than skip its query.

        Returns
        -------
        rows : list of dict
            ``{"dataset", "model", "metric", "mean", "seed_std", "n_seeds"}``.
        """
        spread = {(r.dataset, r.model, r.metric): r for r in self.seed_summary().rows}
        rows = []
        for dataset in self.datasets:
            for label in self.models:
                for metric in self.metrics:
                    row = spread[dataset, label, metric]
                    rows.append({"dataset": dataset, "model": label, "metric": metric,
                                 "mean": row.mean,
                                 "seed_std": np.nan if row.seed_std is None else row.seed_std,
                                 "n_seeds": len(self.seeds)})
        return rows

    def per_query_csv(self):
        """Every per-query value of the run as CSV text, every value with all its digits.

        One row per model, (data set, seed,) split, fold and query: the columns ``model``,
        then ``dataset`` and ``seed`` in a run of named data sets or of seeds, then
        ``split`` (``cv``, or ``test`` for the held-out test set, whose ``fold`` is empty),
        ``fold``, ``qid`` and one column per metric.

        Returns
        -------
        text : str
        """
        axes = self.datasets != [None] or self.seeds != [None]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["model", *(("dataset", "seed") if axes else ()), "split", "fold",
                         "qid", *self.metrics])

        def rows(label, where, split, per_query):
            columns = [np.asarray(per_query[m]).tolist() for m in self.metrics]
            folds = (np.asarray(per_query["fold"]).tolist() if "fold" in per_query
                     else [""] * len(per_query["qid"]))
            for i, (q, f) in enumerate(zip(np.asarray(per_query["qid"]).tolist(), folds)):
                writer.writerow([label, *where, split, f, q, *(c[i] for c in columns)])

        for (dataset, seed), systems in self.folds.items():
            where = ("" if dataset is None else dataset, "" if seed is None else seed)
            for label in self.models:
                rows(label, where if axes else (), "cv", systems[label]["per_query"])
        for label, per_query in self.tested.items():
            rows(label, ("", "") if axes else (), "test", per_query)
        return buffer.getvalue()

    def tables(self, *, baseline=None):
        """The results tables of the run, as ``sklearn-rank cv`` prints and writes them.

        Per data set, the models compared (:meth:`compare`, each query averaged over the
        seeds) and, in a run of several seeds, the spread of their means over the seeds
        (:meth:`summary`); with a held-out test set, the models refitted on all the data
        compared on it.

        Parameters
        ----------
        baseline : str, default=None
            The model the others are tested against; None: the first.

        Returns
        -------
        tables : BenchmarkTables
            With ``render(format)`` (text, Markdown or LaTeX), ``to_dict()`` (JSON-ready
            rows) and, for a run of one data set and seed, ``to_csv()``; the
            :class:`~sklearn_rank.stats.ComparisonResult` objects are its
            ``comparisons`` (per data set) and ``held_out``.

        Raises
        ------
        ValueError
            As :func:`~sklearn_rank.stats.compare`: e.g. a NaN per-query value (a metric
            with ``no_relevant=nan``), naming the model.

        Examples
        --------
        >>> from sklearn.linear_model import LinearRegression, Ridge
        >>> from sklearn_rank.benchmark import run_benchmark
        >>> from sklearn_rank.datasets import make_ranking
        >>> result = run_benchmark({"ols": LinearRegression(), "ridge": Ridge()},
        ...                        make_ranking(30, random_state=0), n_splits=3, n_repeats=2)
        >>> tables = result.tables()
        >>> print(tables.render().splitlines()[0])
        The data set, each query averaged over 2 seeds:
        >>> sorted(tables.to_dict()["datasets"][""]["seed_spread"]["ridge"])
        ['ndcg@10']
        """
        from ._tables import BenchmarkTables

        # compared first: compare refuses a NaN value naming the model
        comparisons = {name: self.compare(name, baseline=baseline) for name in self.datasets}
        held_out = self.compare(split="test", baseline=baseline) if self.tested else None
        spread = {}
        if self.datasets != [None] or self.seeds != [None]:
            for row in self.summary():
                spread.setdefault(row["dataset"], {}).setdefault(row["model"], {})[
                    row["metric"]] = (row["mean"], row["seed_std"])
        return BenchmarkTables(self, comparisons, held_out, spread)


def _run_record(command, datasets, test, keys, *, convention, random_state, n_splits,
                repeats, provenance, before_metrics=None, models=None):
    """The metadata a run of :func:`run_benchmark` or ``run_search`` records.

    ``before_metrics`` (the searched metric) and ``models`` (the models' provenance, the
    baseline, or the searched model and its space) are the entries of one kind of run, in
    their place among the others; ``provenance`` (the caller's own record) goes over all.
    """
    from .._version import __version__
    from ._units import library_versions

    recorded = {
        "command": command,
        "sklearn_rank_version": __version__,
        "data": next(iter(datasets.values())).metadata(),
        "test": None if test is None else test.metadata(),
        **(before_metrics or {}),
        "metrics": next(iter(keys.values())),
        "convention": convention,
        "seed": random_state,
        "splitter": splitter_text(n_splits, random_state),
        **(models or {}),
        "n_estimators": None,
        "versions": library_versions(),
    }
    if None not in datasets:
        recorded["datasets"] = {name: {**d.metadata(), "metrics": keys[name]}
                                for name, d in datasets.items()}
    if repeats[0][0] is not None:
        recorded["seeds"] = [seed for seed, _ in repeats]
    recorded.update(provenance or {})
    return recorded


def _models_provenance(models):
    """What a run records of each model: its class and the parameters it was given."""
    return {label: {"model": f"{type(est).__module__}:{type(est).__qualname__}",
                    "params": _params_of(est)} for label, est in models.items()}


def _params_of(estimator):
    return dict(estimator.get_params(deep=False)) if hasattr(estimator, "get_params") else {}


def _reseeded(estimator, seed):
    """A clone of ``estimator`` whose seed is ``seed``: its ``random_state``, when it has
    one, unless its seed was given as ``random_seed`` (CatBoost's alias of
    ``random_state``, which refuses both set at once): that one is replaced instead."""
    from sklearn.base import clone

    estimator = clone(estimator)
    params = estimator.get_params(deep=False)
    if params.get("random_seed") is not None and params.get("random_state") is None:
        estimator.set_params(random_seed=seed)
    elif "random_state" in params:
        estimator.set_params(random_state=seed)
    return estimator


def _datasets_of(data):
    """``data`` of :func:`run_benchmark` or ``run_search`` as ``{name: RankingDataset}``:
    a dict's data sets by their names, else the one data set keyed by None. A ``Bunch``
    (a dict) of ``data``, ``target`` and ``qid`` is one data set, not three named ones."""
    if isinstance(data, dict) and not {"data", "target", "qid"} <= set(data):
        if not data:
            raise ValueError("data is an empty dict; give at least one data set.")
        return {str(name): as_dataset(value, name) for name, value in data.items()}
    return {None: as_dataset(data)}


def _grade_scales(metrics, convention, y):
    """``{metric: {"max_grade": ...}}`` of the metrics that need a grade scale: the largest
    grade of the data set, so that its folds (and seeds) share one scale; each data set has
    its own, as a run of it alone would."""
    from ..model_selection._validation import grade_scale

    return {m: options for m in metrics if (options := grade_scale(m, y, convention=convention))}


def _is_factory(model):
    """Whether a value of ``models`` is a function of the seed rather than an estimator (a
    class, which has ``fit`` too, is taken as an estimator and refused by ``clone``)."""
    return callable(model) and not isinstance(model, type) and not hasattr(model, "fit")


def _dense_labels(models, datasets):
    """The models given the dense copy of sparse features: those that take no sparse input
    (scikit-learn's tags), when a data set they are fitted or scored on is sparse; the
    labels of :func:`check_models`' answer, without its checks."""
    from ._models import _takes_sparse

    if not any(hasattr(each.X, "toarray") for each in datasets):
        return frozenset()
    return frozenset(label for label, est in models.items() if _takes_sparse(est) is False)


def _is_recorder(store):
    return all(callable(getattr(store, name, None))
               for name in ("start", "known", "record", "finish"))


def run_benchmark(models, data, *, metrics=("ndcg@10",), convention=None, n_splits=5,
                  random_state=0, n_repeats=None, seeds=None, test=None, store=None,
                  resume=False, n_jobs=1, return_predictions=False, progress=None,
                  provenance=None, check_models=True, quiet=False):
    """Cross-validate models on data sets, over seeds, and optionally store the run.

    Every model is fitted on the same folds of whole queries
    (:class:`~sklearn_rank.model_selection.QueryKFold`, shuffled) of every data set, the
    split repeated with a seed per repeat. Each (data set, seed, model, fold) is a unit of
    work; with ``store``, each unit is written to a SQLite results store as it ends, so that
    a run that is killed keeps what it finished, and ``resume=True`` computes only the units
    the store lacks.

    Parameters
    ----------
    models : dict of str to estimator or callable
        Model label -> unfitted scikit-learn estimator (a ranker of
        :mod:`sklearn_rank.lightgbm`, :mod:`sklearn_rank.xgboost`, ... or any regressor).
        In a run repeated over seeds (``n_repeats``, ``seeds``), each repeat fits a clone
        whose ``random_state`` is the repeat's seed, when it has one (CatBoost's
        ``random_seed``, when the seed was given so); in a run of one seed,
        the estimators are fitted as given. A value may also be a function
        ``build(random_state)`` that returns a new unfitted estimator for a seed (not a
        class): it is called with ``random_state`` for a run of one seed and with each
        repeat's seed, for a model whose seed is not its ``random_state`` or that keeps a
        seed of its own (what the command line's ``--model`` and ``--set`` build).
        They are checked against the data before any work (:func:`check_models`): a
        model that takes no sparse input is given a dense copy of sparse features.
    data : dict, tuple or data set
        Data set name -> data set, where a data set is an ``(X, y, qid)`` tuple or an object
        with ``X``, ``y``, ``qid`` attributes (the command line's data sets); or one such data
        set, unnamed.
    metrics : str or list of str
        Metric names (:func:`~sklearn_rank.metrics.list_metrics`); by default ``ndcg@10``.
        A metric that needs a grade scale (ERR) gets the largest grade of each data set
        (and of the held-out test set), shared by its folds and seeds, as a run of that
        data set alone would.
    convention : str, default=None
        A convention preset (``"trec_eval"``, ...), for every metric.
    n_splits : int, default=5
        The folds of each split.
    random_state : int, default=0
        The seed of the split, in a run of one seed; the first seed of
        ``n_repeats``; the ``random_state`` of the bootstrap of :meth:`BenchmarkResult.compare`.
    n_repeats : int, default=None
        Repeat the split (and the models' seeds) with the seeds ``random_state``,
        ``random_state + 1``, ...
    seeds : list of int, default=None
        The seeds of the repeats, instead of ``n_repeats``.
    test : tuple or data set, default=None
        A held-out test set, as a data set of ``data``, for a run of one data set and one
        seed: each model is also refitted on all of the data set and scored on it, with the
        metrics as the folds score them. Its per-query values are
        ``result.tested`` (``result.per_query(model, split="test")``), and a store keeps
        them as the split ``"test"``.
    store : str, path-like or Recorder, default=None
        A SQLite results store (created if needed) that receives each unit as it ends; or
        a :class:`~sklearn_rank.benchmark.Recorder` (such as a
        :class:`~sklearn_rank.benchmark.StoreRecorder` with options of its own), not yet
        started: it receives the run's provenance and units (``start``), answers the
        units it holds (``known``), receives each result (``record``) and ``finish``, or
        ``close`` (when it has one) if the run fails.
    resume : bool, default=False
        With a store's path: continue the stored run of the same settings, computing only
        the units it lacks. Without it, a store that holds a run of the same settings is
        refused (:class:`~sklearn_rank.benchmark.RunExistsError`).
    n_jobs : int, default=1
        Units run in parallel processes.
    return_predictions : bool, default=False
        Keep the out-of-fold predictions (``result.folds[dataset, seed][model]["scores"]``).
    progress : callable, default=None
        None shows nothing; else a factory ``progress(total, what)`` of a progress display,
        begun once before the first unit, advanced as each unit ends and closed at the
        end, even on an error (see :func:`~sklearn_rank.benchmark._runner.start_progress`).
        ``what`` is ``"cross-validation"``, and the detail of ``begin`` says
        ``"(2 models x 5 folds, 1 process)"``.
    provenance : dict, default=None
        What the caller records of the run beside what this function records (the command
        line's command, its models' specifications, its data descriptions...): its keys
        replace those of the same name in ``result.provenance`` and in the store, whose run
        key is its fingerprint. Its ``"models"`` entry, ``{label: {"model": ...,
        "params": ...}}``, also gives the parameters each unit is stored with.
    check_models : bool, default=True
        Check the models against the data before the work (:func:`check_models` and
        scikit-learn's parameter validation); False skips the checks, for a caller that
        ran its own (the dense copy of sparse features is still given to the models that
        need it).
    quiet : bool, default=False
        Keep the boosters' native log lines (``[LightGBM] [Fatal] ...``, written before the
        error that follows them is raised) off this process's output while the units run.

    Returns
    -------
    result : BenchmarkResult
        The per-query values per data set, seed and model, with
        :meth:`~BenchmarkResult.compare` and :meth:`~BenchmarkResult.summary`.

    Raises
    ------
    ModelCheckError
        A model that cannot work on the data (a parameter that scikit-learn's validation
        refuses, or that a booster refuses or would ignore in a trial fit; a classifier
        without ``predict_proba`` on more than two grades; a dense copy that would not fit
        in memory), before any work, naming the model's label.

    See Also
    --------
    load_store : Read a stored run.
    write_report : An HTML page of the runs of a store.

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression, Ridge
    >>> from sklearn_rank.benchmark import run_benchmark
    >>> from sklearn_rank.datasets import make_ranking
    >>> data = {"easy": make_ranking(40, noise=0.1, random_state=0),
    ...         "hard": make_ranking(40, noise=2.0, random_state=1)}
    >>> result = run_benchmark({"ols": LinearRegression(), "ridge": Ridge(alpha=10.0)},
    ...                        data, metrics=["ndcg@10"], n_splits=3, n_repeats=2)
    >>> result
    BenchmarkResult(2 models x 2 data sets x 2 seeds, metrics ['ndcg@10'])
    >>> result.per_query("ridge", dataset="easy").metrics
    ('ndcg@10',)
    >>> table = result.compare("hard")
    >>> table.systems
    ['ols', 'ridge']

    A held-out test set, scored by each model refitted on all the data; its queries come
    from the same draw (one problem), split by query:

    >>> X, y, qid = make_ranking(40, random_state=2)
    >>> fit, held = qid < 30, qid >= 30
    >>> held_out = run_benchmark({"ols": LinearRegression(), "ridge": Ridge()},
    ...                          (X[fit], y[fit], qid[fit]), n_splits=3,
    ...                          test=(X[held], y[held], qid[held]))
    >>> held_out.per_query("ridge", split="test").query_ids.shape
    (10,)
    """
    from ..metrics import bind_metric
    from ._models import check_models as check_against_data
    from ._models import check_parameters
    from ._runner import processes, run_units, start_progress, unit_scoring
    from ._units import Recorder

    if not isinstance(models, dict) or not models:
        raise TypeError(f"models must be a non-empty dict of label -> estimator; got "
                        f"{type(models).__name__}.")
    metrics = list([metrics] if isinstance(metrics, str) else metrics)
    datasets = _datasets_of(data)
    repeats = repeat_seeds(random_state, n_repeats, seeds)
    if test is not None:
        if len(datasets) != 1 or len(repeats) != 1:
            raise ValueError("a held-out test set (test=...) goes with a run of one data set "
                             f"and one seed; this run has {len(datasets)} data sets and "
                             f"{len(repeats)} seeds.")
        test = as_dataset(test, "test")
    if resume and store is None:
        raise ValueError("resume=True continues a stored run: give the store (store=PATH).")
    if resume and _is_recorder(store):
        raise ValueError("resume=True goes with a store's path; a Recorder given as store "
                         "resumes as it was made (e.g. StoreRecorder(path, resume=True)).")

    keys, scoring = {}, {}
    for name, each in datasets.items():
        # the held-out test set on the scale of its data set: one scale for every number
        grades = each.y if test is None else np.concatenate([each.y, test.y])
        scales = _grade_scales(metrics, convention, grades)
        scoring[name] = unit_scoring(metrics, scales=scales, convention=convention)
        # what each number is: the key of the metric bound as its scorer binds it
        keys[name] = {m: bind_metric(m, options=scales.get(m, {}), convention=convention).key
                      for m in metrics}
    labels = list(models)
    # the estimators of the run's seed (fitted in a run of one seed, checked, recorded)
    given = {label: model(random_state) if _is_factory(model) else model
             for label, model in models.items()}
    fitted_on = list(datasets.values()) + ([] if test is None else [test])
    if check_models:
        # refused now, not in every fold: a parameter scikit-learn refuses, a booster's
        # parameter it refuses or ignores (check_models' trial fits of the parameters that
        # differ from the class's defaults), a classifier that cannot rank the grades, a
        # dense copy that would not fit
        check_parameters(given)
        check_against_data(given, list(datasets.items()),
                           test=None if test is None else [("test", test)])
    dense = _dense_labels(given, fitted_on)
    built = {}

    def estimator_for(label, seed):
        if repeats[0][0] is None:  # one seed: the estimators as given, their seeds theirs
            return given[label]
        if (label, seed) not in built:
            model = models[label]
            built[label, seed] = model(seed) if _is_factory(model) else _reseeded(model, seed)
        return built[label, seed]

    recorded = _run_record("sklearn_rank.benchmark.run_benchmark", datasets, test, keys,
                           convention=convention, random_state=random_state,
                           n_splits=n_splits, repeats=repeats, provenance=provenance,
                           models={"models": _models_provenance(given),
                                   "baseline": labels[0]})
    params = {label: recorded["models"][label]["params"]
              if "params" in (recorded.get("models") or {}).get(label, {})
              else _params_of(given[label]) for label in labels}
    tasks = benchmark_tasks(labels, estimator_for, datasets, repeats, n_splits, params=params,
                            dense=dense, test=test, scoring=scoring)
    if store is None:
        recorder = Recorder()
    elif _is_recorder(store):
        recorder = store
    else:
        from ._store import StoreRecorder

        recorder = StoreRecorder(store, resume=resume, predictions=return_predictions)
    recorder.start(recorded, [task.unit for task in tasks])

    n_processes = processes(n_jobs, len(tasks))
    axes = "".join([f"{len(datasets)} data sets x " if None not in datasets else "",
                    f"{len(repeats)} seeds x " if repeats[0][0] is not None else ""])
    detail = (f"({len(labels)} model{'s' if len(labels) > 1 else ''} x {axes}{n_splits} folds"
              + (" + test" if test is not None else "")
              + f", {n_processes} process{'es' if n_processes > 1 else ''})")
    shown = None
    try:
        shown = start_progress(progress, len(tasks), "cross-validation", detail)
        results = list(run_units(tasks, None, scoring=None, n_jobs=n_processes,
                                 progress=shown, recorder=recorder,
                                 predict=return_predictions, test_data=test,
                                 test_keys=next(iter(keys.values())), quiet=quiet))
    except BaseException:
        if callable(getattr(recorder, "close", None)):  # the store, not marked finished
            recorder.close()
        raise
    finally:
        if shown is not None:
            shown.close()
    recorder.finish()
    folds, tested = assemble_folds(results, labels, metrics, datasets, repeats)
    return BenchmarkResult(
        folds, models=labels, datasets=list(datasets), seeds=[s for s, _ in repeats],
        metrics=metrics, provenance=recorded, tested=tested,
        run_id=getattr(recorder, "run_id", None))
