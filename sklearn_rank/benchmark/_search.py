"""A search of a ranker's parameters by cross-validation over whole queries, stored and resumed.

:func:`run_search` is the library's grid or randomized search, and ``sklearn-rank tune``
is a shell over it. The candidates are those of scikit-learn's
:class:`~sklearn.model_selection.GridSearchCV` (:class:`~sklearn.model_selection.
ParameterGrid`) or :class:`~sklearn.model_selection.RandomizedSearchCV`
(:class:`~sklearn.model_selection.ParameterSampler` with the seed), tried on the folds of a
:class:`~sklearn_rank.model_selection.QueryKFold`, and :attr:`SearchResult.cv_results_` has
their layout and numbers. Each (data set, seed, candidate, fold) is a unit of work
(:class:`~sklearn_rank.benchmark.Unit`) run by :func:`~sklearn_rank.benchmark.run_units`
and handed to a :class:`~sklearn_rank.benchmark.Recorder` (a results store) as it ends; the
model refitted with the best parameters on all the data is one more unit.
"""

import math
from numbers import Integral

import numpy as np

from ._benchmark import (
    _datasets_of,
    _grade_scales,
    _models_provenance,
    _reseeded,
    _run_record,
    repeat_seeds,
)
from ._units import Task, Unit, as_dataset
from ._values import run_keys

__all__ = ["SearchResult", "run_search", "search_candidates"]

# The most candidates of a search: each is fitted on every fold, and each (candidate, fold)
# is built before the work (a clone of the model); 10**11 candidates failed with a
# MemoryError building them.
MAX_CANDIDATES = 10_000
N_ITER = 10  # the candidates of a randomized search by default


def search_candidates(params, *, search="grid", n_iter=None, random_state=0):
    """The candidates of a search, in the order :func:`run_search` tries them.

    Those of :class:`~sklearn.model_selection.GridSearchCV` (``search="grid"``: every
    combination, :class:`~sklearn.model_selection.ParameterGrid`) or of
    :class:`~sklearn.model_selection.RandomizedSearchCV` (``search="random"``: ``n_iter``
    draws of :class:`~sklearn.model_selection.ParameterSampler` seeded with
    ``random_state``; a space of lists only is sampled without repetition, so at most its
    number of combinations).

    Parameters
    ----------
    params : dict of str to list or distribution
        Parameter name -> the values to try (a list), or for a randomized search a
        distribution with an ``rvs`` method (``scipy.stats.loguniform(0.01, 0.3)``).
    search : {"grid", "random"}, default="grid"
    n_iter : int, default=None
        The candidates of a randomized search, at most 10,000 (10 by default); not with
        a grid search, which tries every combination.
    random_state : int, default=0
        The seed of a randomized search.

    Returns
    -------
    candidates : list of dict

    Raises
    ------
    ValueError
        Empty ``params``, an unknown ``search``, ``n_iter`` with a grid search, or more
        than 10,000 candidates.

    Examples
    --------
    >>> from sklearn_rank.benchmark import search_candidates
    >>> search_candidates({"alpha": [0.1, 1.0], "fit_intercept": [True]})
    [{'alpha': 0.1, 'fit_intercept': True}, {'alpha': 1.0, 'fit_intercept': True}]
    """
    from sklearn.model_selection import ParameterGrid, ParameterSampler

    if search not in ("grid", "random"):
        raise ValueError(f"search must be 'grid' or 'random'; got {search!r}.")
    if not isinstance(params, dict) or not params:
        raise ValueError("params must be a non-empty dict of parameter name -> values (a list, "
                         "or a distribution for search='random'); got "
                         f"{params!r}.")
    bad = [name for name, values in params.items()
           if not hasattr(values, "rvs") and (isinstance(values, (str, bytes))
                                             or not hasattr(values, "__len__"))]
    if bad or (search == "grid" and any(hasattr(v, "rvs") for v in params.values())):
        name = (bad or [n for n, v in params.items() if hasattr(v, "rvs")])[0]
        raise ValueError(f"params[{name!r}] must be a list of values"
                         + (" or a distribution with an rvs method" if search == "random"
                            else " (a distribution goes with search='random')")
                         + f"; got {params[name]!r}.")
    empty = [name for name, values in params.items() if not hasattr(values, "rvs")
             and len(values) == 0]
    if empty:
        raise ValueError(f"params[{empty[0]!r}] is an empty list; give at least one value.")
    space = {name: values if hasattr(values, "rvs") else list(values)
             for name, values in params.items()}
    if search == "grid":
        if n_iter is not None:
            raise ValueError(f"n_iter={n_iter!r} sets the candidates of search='random'; a "
                             "grid search tries every combination.")
        size = math.prod(len(values) for values in space.values())
        if size > MAX_CANDIDATES:
            sizes = " x ".join(str(len(values)) for values in space.values())
            raise ValueError(f"the grid has {size:,} candidates ({sizes} values), more than "
                             f"the {MAX_CANDIDATES:,} a search may try (each is fitted on every "
                             "fold); list fewer values, or sample some of them with a "
                             "randomized search")
        return list(ParameterGrid(space))
    n_iter = N_ITER if n_iter is None else n_iter
    if (isinstance(n_iter, bool) or not isinstance(n_iter, Integral)
            or not 1 <= n_iter <= MAX_CANDIDATES):
        raise ValueError(f"n_iter must be an integer from 1 to {MAX_CANDIDATES:,}; got "
                         f"{n_iter!r}.")
    if all(isinstance(values, list) for values in space.values()):
        # scikit-learn warns and samples the grid without repetition: say it here instead
        n_iter = min(n_iter, len(ParameterGrid(space)))
    return list(ParameterSampler(space, n_iter, random_state=random_state))


def _space_text(values):
    """A parameter's values as the provenance records them: the same text in every process
    (the run key of a store), never an object's address."""
    dist = getattr(values, "dist", None)
    if dist is not None and hasattr(values, "args"):  # a frozen scipy distribution
        arguments = [repr(a) for a in values.args]
        arguments += [f"{k}={v!r}" for k, v in sorted(getattr(values, "kwds", {}).items())]
        return f"{getattr(dist, 'name', type(dist).__name__)}({', '.join(arguments)})"
    if hasattr(values, "rvs"):
        return f"{type(values).__module__}.{type(values).__qualname__}"
    return "[" + ", ".join(repr(v) for v in values) + "]"


def _with(estimator, candidate):
    """A clone of ``estimator`` with the candidate's parameters; a parameter it does not
    have is refused naming ``params``."""
    from sklearn.base import clone

    try:
        return clone(estimator).set_params(**candidate)
    except ValueError as exc:
        raise ValueError(f"params: {exc}") from None


def cv_results(candidates, results, metric, n_splits, seeds=((None, None),)):
    """``cv_results_`` as scikit-learn's searches lay it out, from the units' results; the
    folds of a repeated split (``seeds``) are its splits one repeat after the other, as
    with scikit-learn's ``RepeatedKFold``."""
    from scipy.stats import rankdata

    n = len(candidates)
    repeat = {seed: k for k, (seed, _) in enumerate(seeds)}
    n_splits = n_splits * len(seeds)
    test, fit, score = (np.full((n, n_splits), np.nan) for _ in range(3))
    for r in results:
        i, fold = r.unit.candidate, repeat[r.unit.seed] * (n_splits // len(seeds)) + r.unit.fold
        test[i, fold], fit[i, fold], score[i, fold] = r.scores[metric], r.fit_time, r.score_time
    out = {}

    def store(key, array, splits=False, rank=False):
        # as BaseSearchCV._format_results: unweighted mean and std over the folds
        if splits:
            for fold in range(n_splits):
                out[f"split{fold}_{key}"] = array[:, fold]
        means = np.average(array, axis=1)
        out[f"mean_{key}"] = means
        out[f"std_{key}"] = np.sqrt(np.average((array - means[:, np.newaxis]) ** 2, axis=1))
        if rank:
            if np.isnan(means).all():
                out[f"rank_{key}"] = np.ones_like(means, dtype=np.int32)
            else:
                filled = np.where(np.isnan(means), np.nanmin(means) - 1, means)
                out[f"rank_{key}"] = rankdata(-filled, method="min").astype(np.int32)

    store("fit_time", fit)
    store("score_time", score)
    names = list(dict.fromkeys(name for candidate in candidates for name in candidate))
    for name in names:
        column = np.ma.MaskedArray(np.empty(n, dtype=object), mask=True)
        for i, candidate in enumerate(candidates):
            if name in candidate:
                column[i] = candidate[name]
        out[f"param_{name}"] = column
    out["params"] = candidates
    store(f"test_{metric}", test, splits=True, rank=True)
    return out


def _show(value):
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    return str(value.item() if isinstance(value, np.generic) else value)


def _exact(value):
    """A parameter with all its digits: the shortest text that reads back the same float."""
    value = value.item() if isinstance(value, np.generic) else value
    return repr(value) if isinstance(value, float) else str(value)


class SearchResult:
    """The result of :func:`run_search` on one data set.

    Attributes
    ----------
    cv_results_ : dict
        As :class:`~sklearn.model_selection.GridSearchCV`'s: ``split{k}_test_{metric}``
        (the folds of a repeated split one repeat after the other, as with
        ``RepeatedKFold``), ``mean_``, ``std_`` and ``rank_test_{metric}``,
        ``mean_fit_time``, ``std_fit_time``, ``mean_score_time``, ``std_score_time``,
        ``param_{name}`` (masked arrays) and ``params``.
    best_index_ : int
        The candidate of the best mean score (the first of equal ones).
    best_params_ : dict
    best_score_ : float
        Its mean over the folds (of every repeat).
    best_estimator_ : estimator or None
        The model refitted with the best parameters on all the data (``refit=True``);
        None without a refit, or when a resumed store answered the refit (a store keeps
        no models).
    test_per_query_ : PerQueryResult or None
        The refitted model's per-query values on the held-out test set (``test``).
    test_score_ : object or None
        Their mean and bootstrap confidence interval
        (:func:`~sklearn_rank.stats.bootstrap_ci`, seeded with ``random_state``).
    metric : str
    search : {"grid", "random"}
    params : list of str
        The parameters searched, in the order given.
    dataset : str or None
        The data set's name; None for one unnamed data set.
    seeds : list
        The seeds of the repeats; ``[None]`` for a search of one seed.
    provenance : dict
        What the search recorded (and a store keeps).
    run_id : int or None
        The run in the store, when the search was stored.
    """

    def __init__(self, cv_results, *, metric, dataset, seeds, folds, refit, test_score,
                 provenance, search, params, run_id=None):
        self.cv_results_ = cv_results
        self.metric = metric
        self.search = search
        self.params = list(params)
        self.dataset = dataset
        self.seeds = list(seeds)
        self.best_index_ = int(np.argmin(cv_results[f"rank_test_{metric}"]))
        self.best_params_ = cv_results["params"][self.best_index_]
        self.best_score_ = float(cv_results[f"mean_test_{metric}"][self.best_index_])
        self.best_estimator_ = None if refit is None else refit.estimator
        # with the metric's options the search recorded, so that the statistics refuse to
        # compare them with values of the same name under another convention
        self.test_per_query_ = (None if refit is None or not refit.per_query
                                else refit.per_query_result(run_keys(provenance, dataset)))
        self.test_score_ = test_score
        self.provenance = provenance
        self.run_id = run_id
        self._folds = folds  # seed -> the best candidate's results, fold by fold

    def __repr__(self):
        std = self.cv_results_[f"std_test_{self.metric}"][self.best_index_]
        where = "" if self.dataset is None else f"{self.dataset}: "
        test = ("" if self.test_score_ is None
                else f", test {self.metric} {self.test_score_.mean:.4f}")
        return (f"SearchResult({where}best {self.metric} {self.best_score_:.4f} ± {std:.4f} "
                f"with {self.best_params_} (candidate {self.best_index_ + 1} of "
                f"{len(self.cv_results_['params'])}){test})")

    def summary(self, top=10):
        """The best score and parameters, then the ``top`` candidates, best first, with
        the mean ± standard deviation of their score over the folds and their mean fit time.

        Returns
        -------
        text : str
        """
        from ..utils._text import format_table

        results, metric = self.cv_results_, self.metric
        ranks = np.asarray(results[f"rank_test_{metric}"])
        order = np.argsort(ranks, kind="stable")
        mean, std = results[f"mean_test_{metric}"], results[f"std_test_{metric}"]
        best, names = order[0], self.params
        n_folds = sum(key.startswith("split") for key in results)
        best_params = ", ".join(f"{n}={_exact(results['params'][best][n])}" for n in names)
        rows = [[str(ranks[i]), f"{mean[i]:.4f} ± {std[i]:.4f}",
                 *(_show(results["params"][i][n]) for n in names),
                 f"{results['mean_fit_time'][i]:.2f} s"] for i in order[:top]]
        return "\n".join([
            f"Best {metric}: {mean[best]:.4f} ± {std[best]:.4f} (mean ± std over {n_folds} "
            "folds)", f"Best parameters: {best_params}", "",
            format_table(["rank", f"{metric} (mean ± std)", *names, "fit time"], rows)])

    def plot(self, param=None, *, ax=None):
        """The score against one parameter
        (:meth:`~sklearn_rank.plot.ParameterSearchDisplay.from_cv_results`).

        A grid search draws a line per combination of the other parameters, or, when they
        are more than 10, the slice through the best candidate; a randomized search, whose
        candidates each draw every parameter anew, a point per candidate. A legend of more
        than 10 entries is left out.

        Parameters
        ----------
        param : str, default=None
            The parameter on the x axis; by default the first searched.
        ax : matplotlib Axes, default=None

        Returns
        -------
        display : ParameterSearchDisplay
        """
        from ..plot import ParameterSearchDisplay

        results, metric = self.cv_results_, self.metric
        param = self.params[0] if param is None else param
        if param not in self.params:
            raise ValueError(f"param={param!r} is not a searched parameter; expected one of "
                             f"{', '.join(self.params)}.")
        max_lines = len(results["params"]) if self.search == "random" else 10
        try:
            display = ParameterSearchDisplay.from_cv_results(
                results, param, metric=metric, max_lines=max_lines, ax=ax)
        except ValueError as exc:
            if getattr(exc, "parameter", None) != "max_lines":
                raise
            # more combinations of the other parameters than lines: the slice through the best
            fixed = {n: self.best_params_[n] for n in self.params if n != param}
            if ax is not None:
                ax.clear()
            display = ParameterSearchDisplay.from_cv_results(results, param, metric=metric,
                                                             fixed=fixed, ax=ax)
        legend = display.ax_.get_legend()
        if legend is not None and len(legend.get_texts()) > 10:
            legend.remove()  # a legend of every candidate would hide the plot
        return display

    def to_dict(self, cv_results=True):
        """The best parameters and scores with all their digits, the test score, the
        provenance and (``cv_results``) :attr:`cv_results_`: what ``sklearn-rank tune
        --output`` writes as JSON.

        Returns
        -------
        best : dict
            ``{"metadata", "model", "metric", "best_index", "best_params", "best_score",
            "best_score_std", "fixed_params", "test", ("cv_results")}``; ``"test"`` is
            ``{"mean", "ci_low", "ci_high", "n_queries"}`` or None.
        """
        test = None
        if self.test_score_ is not None:
            low, high = self.test_score_.confidence_interval
            test = {"mean": float(self.test_score_.mean), "ci_low": float(low),
                    "ci_high": float(high), "n_queries": len(self.test_per_query_.query_ids)}
        model = self.provenance.get("model", {})
        out = {
            "metadata": self.provenance,
            "model": model.get("label"),
            "metric": self.metric,
            "best_index": self.best_index_,
            "best_params": self.best_params_,
            "best_score": self.cv_results_[f"mean_test_{self.metric}"][self.best_index_],
            "best_score_std": self.cv_results_[f"std_test_{self.metric}"][self.best_index_],
            "fixed_params": model.get("params", {}),
            "test": test,
        }
        if cv_results:
            out["cv_results"] = self.cv_results_
        return out

    def per_query(self, seed=None):
        """The best candidate's out-of-fold per-query values.

        Parameters
        ----------
        seed : int, default=None
            The seed of one repeat; None: the search's one seed, or, in a search of
            several, each query's value averaged over the seeds
            (:func:`~sklearn_rank.benchmark.seed_mean`, without a fold column).

        Returns
        -------
        result : PerQueryResult
            With its fold column (:meth:`~sklearn_rank.metrics.PerQueryResult.concat` of
            the folds' results, each :meth:`~sklearn_rank.metrics.PerQueryResult.with_fold`).
        """
        from ._values import per_query_result, seed_mean

        keys = run_keys(self.provenance, self.dataset)
        if seed is None and len(self.seeds) > 1:
            return per_query_result(seed_mean([self._values(s) for s in self.seeds],
                                              [self.metric]), [self.metric], keys)
        if seed is None:
            seed = self.seeds[0]
        if seed not in self.seeds:
            raise ValueError(f"seed={seed!r} is not a seed of this search; its seeds: "
                             f"{', '.join(map(repr, self.seeds))}.")
        return per_query_result(self._values(seed), [self.metric], keys)

    def _values(self, seed):
        mine = self._folds[seed]
        return {"qid": np.concatenate([r.per_query["qid"] for r in mine]),
                "fold": np.concatenate([np.full(len(r.per_query["qid"]), r.unit.fold)
                                        for r in mine]),
                self.metric: np.concatenate([r.per_query[self.metric] for r in mine])}


def run_search(model, params, data, *, metric="ndcg@10", search="grid", n_iter=None,
               convention=None, n_splits=5, random_state=0, n_repeats=None, seeds=None,
               refit=True, test=None, store=None, resume=False, n_jobs=1, progress=None,
               provenance=None, check_models=True):
    """Search a ranker's parameters by cross-validation over whole queries.

    Every candidate (:func:`search_candidates`) is fitted on the same folds of whole queries
    (:class:`~sklearn_rank.model_selection.QueryKFold`, shuffled), the split repeated with a
    seed per repeat, and scored with ``metric``; the best mean over the folds wins, as in
    scikit-learn's ``GridSearchCV`` (whose ``cv_results_`` layout the result has). Each
    (data set, seed, candidate, fold) is a unit of work; with ``store``, each is written to
    a SQLite results store as it ends, and ``resume=True`` computes only the units a killed
    search left out.

    Parameters
    ----------
    model : estimator or callable
        The unfitted ranker (or regressor) whose parameters are searched. In a search of
        one seed it is fitted as given; in a search repeated over seeds, each repeat fits a
        clone whose ``random_state`` is the repeat's seed, when it has one (as
        :func:`run_benchmark` does). The refit is of the model as given. A callable
        ``model(seed)`` returning the unfitted estimator of a seed gives each repeat its
        own instead, and ``model(random_state)`` is the one of a search of one seed and of
        the refit: for a model seeded otherwise (CatBoost's ``random_seed``).
    params : dict of str to list or distribution
        Parameter name -> the values to try, as :func:`search_candidates` takes them.
    data : dict, tuple or data set
        An ``(X, y, qid)`` tuple or a data set with ``X``, ``y``, ``qid`` attributes; or a
        dict of name -> data set, each searched on its own (its own folds, grade scale
        and best parameters) within one run of the store.
    metric : str
        The metric to maximise (:func:`~sklearn_rank.metrics.list_metrics`); by default
        ``ndcg@10``. A metric that needs a grade scale (ERR) gets the largest grade of the
        data set (and of ``test``).
    search : {"grid", "random"}, default="grid"
    n_iter : int, default=None
        The candidates of ``search="random"`` (10 by default).
    convention : str, default=None
        A convention preset (``"trec_eval"``, ...) for the metric.
    n_splits : int, default=5
        The folds of each split.
    random_state : int, default=0
        The seed of the split and of the randomized search in a search of one seed; the
        first seed of ``n_repeats``; the seed of the test score's bootstrap.
    n_repeats : int, default=None
        Repeat the split (and the model's seed) with the seeds ``random_state``,
        ``random_state + 1``, ...; each candidate's score is its mean over every fold of
        every repeat.
    seeds : list of int, default=None
        The seeds of the repeats, instead of ``n_repeats``.
    refit : bool, default=True
        Refit the best candidate on all of each data set (:attr:`SearchResult.
        best_estimator_`); one more unit of work per data set.
    test : tuple or data set, default=None
        A held-out test set (with one data set only) on which the refitted model is
        scored: :attr:`SearchResult.test_per_query_` and ``test_score_``.
    store : str, path-like or Recorder, default=None
        A SQLite results store (created if needed) that receives each unit as it ends; or
        a :class:`~sklearn_rank.benchmark.Recorder` (such as a
        :class:`~sklearn_rank.benchmark.StoreRecorder` of one's own), started with the
        search's provenance and units.
    resume : bool, default=False
        With a store path: continue the stored search of the same settings, computing only
        the units it lacks. Without it, a store that holds a search of the same settings is
        refused (:class:`~sklearn_rank.benchmark.RunExistsError`).
    n_jobs : int, default=1
        Units run in parallel processes.
    progress : callable, default=None
        None (nothing shown) or a factory ``progress(total, what)`` of a progress display
        (see :func:`~sklearn_rank.benchmark.run_units`): ``what`` is ``"grid search"`` or
        ``"random search"``.
    provenance : dict, default=None
        Recorded beside (and over) what the search records: the data sets' fingerprints,
        metric, convention, seed, splitter, model, search, space and library versions. Its
        ``"model"`` entry, ``{"label", "model", "params"}``, names the model in the store
        and gives the parameters recorded with each unit (with the candidate's).
    check_models : bool, default=True
        Check the model and each candidate against the data before any work
        (:func:`~sklearn_rank.benchmark.check_models`); a model that takes no sparse input
        is given a dense copy of sparse features. False skips the checks (a caller that
        made its own).

    Returns
    -------
    result : SearchResult or dict of str to SearchResult
        The search on one data set; or, for a dict of data sets, each one's.

    Raises
    ------
    ValueError
        Empty ``params``, an unknown ``search``, ``n_iter`` with a grid search, ``test``
        with several data sets or without ``refit``, ``resume`` without a store path.
    ModelCheckError
        A model or candidate that cannot work on the data, before any work.

    See Also
    --------
    run_benchmark : Cross-validate several models on the same folds.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank.benchmark import run_search
    >>> from sklearn_rank.datasets import make_ranking
    >>> data = make_ranking(40, random_state=0)
    >>> result = run_search(Ridge(), {"alpha": [0.1, 100.0]}, data, n_splits=3)
    >>> result.best_params_
    {'alpha': 100.0}
    >>> result.cv_results_["rank_test_ndcg@10"]
    array([2, 1], dtype=int32)
    >>> result.best_estimator_
    Ridge(alpha=100.0)
    >>> result.per_query().fold[:5]  # the best candidate's value on each query, its fold
    array([2, 2, 1, 2, 0])

    Several data sets, each searched on its own, the split repeated over two seeds:

    >>> results = run_search(Ridge(), {"alpha": [0.1, 100.0]},
    ...                      {"a": data, "b": make_ranking(30, random_state=1)},
    ...                      n_splits=3, n_repeats=2, refit=False)
    >>> sorted(results)
    ['a', 'b']
    >>> results["b"].best_params_
    {'alpha': 0.1}
    """

    from ..metrics import bind_metric
    from ..model_selection import QueryKFold
    from ._runner import processes, run_units, start_progress, unit_scoring
    from ._units import Recorder

    if not isinstance(metric, str):
        raise TypeError(f"metric must be one metric name (a str); got {metric!r}.")
    candidates = search_candidates(params, search=search, n_iter=n_iter,
                                   random_state=random_state)
    if callable(model) and not hasattr(model, "fit"):
        seeded = model
        base = model(random_state)
    elif hasattr(model, "fit") and hasattr(model, "get_params"):
        seeded, base = None, model
    else:
        raise TypeError("model must be an unfitted estimator (with fit and get_params) or a "
                        f"callable model(seed) returning one; got {type(model).__name__}.")
    datasets = _datasets_of(data)
    if test is not None:
        if len(datasets) != 1 or None not in datasets:
            raise ValueError("test goes with one data set: the model refitted on it is scored "
                             f"on the test set; data has {len(datasets)} named data sets.")
        if not refit:
            raise ValueError("test scores the model refitted on all the data: it needs "
                             "refit=True.")
        test = as_dataset(test, "test")
    repeats = repeat_seeds(random_state, n_repeats, seeds)
    if store is not None and not isinstance(store, Recorder) and not hasattr(store, "record"):
        from ._store import StoreRecorder

        recorder = StoreRecorder(store, resume=resume, refit_estimator=refit)
    elif resume:
        raise ValueError("resume=True continues a stored search: give the store as a path "
                         "(store=PATH); a Recorder resumes by itself.")
    else:
        recorder = store if store is not None else Recorder()
    label = type(base).__name__
    if check_models:
        from ._models import check_models as check
        from ._models import check_parameters

        built = {f"candidate {i + 1} {c}": _with(base, c) for i, c in enumerate(candidates)}
        check_parameters({label: base, **built})
        test_sets = None if test is None else [("test", test)]
        if check({label: base}, list(datasets.items()), test=test_sets) is not None:
            # the model takes no sparse input: all its work uses the dense copy, made once
            datasets = {name: d.densified() for name, d in datasets.items()}
            test = None if test is None else test.densified()

    scoring, keys = {}, {}
    for name, each in datasets.items():
        grades = each.y if test is None else np.concatenate([each.y, test.y])
        scales = _grade_scales([metric], convention, grades)
        scoring[name] = unit_scoring([metric], scales=scales, convention=convention)
        # what each number is: the key of the metric bound as its scorer binds it
        keys[name] = {metric: bind_metric(metric, options=scales.get(metric, {}),
                                          convention=convention).key}
    recorded = _run_record(
        "sklearn_rank.benchmark.run_search", datasets, test, keys, convention=convention,
        random_state=random_state, n_splits=n_splits, repeats=repeats, provenance=provenance,
        before_metrics={"metric": metric},
        models={"model": {"label": label, **_models_provenance({label: base})[label]},
                "search": search,
                "space": {name: _space_text(values) for name, values in params.items()}})
    label = recorded["model"].get("label", label)
    fixed = recorded["model"].get("params", {})

    # a callable's estimator of random_state is the one it gave (the checked one)
    estimators = {} if seeded is None else {random_state: base}

    def estimator_for(seed):
        if repeats[0][0] is None:  # one seed: the estimator as given, its seed its own
            return base
        if seed not in estimators:
            estimators[seed] = seeded(seed) if seeded is not None else _reseeded(base, seed)
        return estimators[seed]

    n, tasks = len(candidates), []
    for name, each in datasets.items():
        for unit_seed, seed in repeats:
            splits = list(QueryKFold(n_splits, shuffle=True, random_state=seed).split(
                each.X, each.y, qid=each.qid))
            estimator = estimator_for(seed)
            # a search of one data set and seed lists its units candidate by candidate (the
            # order of its stores' runs), the others fold by fold
            order = ([(i, f) for i in range(n) for f in range(n_splits)]
                     if name is None and unit_seed is None else
                     [(i, f) for f in range(n_splits) for i in range(n)])
            for i, fold in order:
                train, test_rows = splits[fold]
                detail = ", ".join(([] if name is None else [name]) + [f"candidate {i + 1}/{n}"]
                                   + ([] if unit_seed is None else [f"seed {unit_seed}"])
                                   + [f"fold {fold + 1}/{n_splits}"])
                tasks.append(Task(Unit(label, fold, candidate=i, dataset=name, seed=unit_seed),
                                  _with(estimator, candidates[i]),
                                  {**fixed, **candidates[i]}, train, test_rows, detail,
                                  data=each, scoring=scoring[name]))
    refits = [Unit(label, None, dataset=name) for name in datasets] if refit else []
    recorder.start(recorded, [t.unit for t in tasks] + refits)
    n_jobs_shown = processes(n_jobs, len(tasks))
    shown = start_progress(
        progress, len(tasks) + len(refits), f"{search} search",
        "(" + ("" if None in datasets else f"{len(datasets)} data sets x ")
        + f"{n} candidates x {n_splits} folds"
        + ("" if repeats[0][0] is None else f" x {len(repeats)} seeds")
        + ("" if not refit else " + refit" if len(refits) == 1 else f" + {len(refits)} refits")
        + f", {n_jobs_shown} process{'es' if n_jobs_shown > 1 else ''})")
    tables, refitted = {}, {}
    try:
        results = list(run_units(tasks, None, scoring=None, n_jobs=n_jobs, progress=shown,
                                 recorder=recorder, quiet=True))
        for name in datasets:
            tables[name] = cv_results(candidates, [r for r in results if r.unit.dataset == name],
                                      metric, n_splits, repeats)
        if refit:
            best = {name: int(np.argmin(table[f"rank_test_{metric}"]))
                    for name, table in tables.items()}
            refit_tasks = [Task(unit, _with(base, candidates[best[unit.dataset]]),
                                {**fixed, **candidates[best[unit.dataset]]},
                                detail=("" if unit.dataset is None else f"{unit.dataset}, ")
                                + "refit on all the data"
                                + (", scored on the test set" if test is not None else ""),
                                data=datasets[unit.dataset])
                           for unit in refits]
            refitted = {r.unit.dataset: r for r in run_units(
                refit_tasks, None, scoring=None, n_jobs=1, progress=shown, recorder=recorder,
                test_data=test, test_keys=keys[None] if test is not None else None,
                response_method="auto", keep_estimator=True, quiet=True)}
    except BaseException:
        if recorder is not store and hasattr(recorder, "close"):
            recorder.close()  # the run stays unfinished, resumable
        raise
    finally:
        shown.close()
    recorder.finish()

    out = {}
    for name, table in tables.items():
        best = int(np.argmin(table[f"rank_test_{metric}"]))
        folds = {unit_seed: sorted((r for r in results if r.unit.dataset == name
                                    and r.unit.seed == unit_seed and r.unit.candidate == best),
                                   key=lambda r: r.unit.fold)
                 for unit_seed, _ in repeats}
        held_out = refitted.get(name)
        test_score = None
        if held_out is not None and held_out.per_query:
            from ..stats import bootstrap_ci

            test_score = bootstrap_ci(held_out.per_query[metric], random_state=random_state)
        out[name] = SearchResult(table, metric=metric, dataset=name,
                                 seeds=[s for s, _ in repeats], folds=folds, refit=held_out,
                                 test_score=test_score, provenance=recorded,
                                 search=search, params=params,
                                 run_id=getattr(recorder, "run_id", None))
    return out.get(None, out)
