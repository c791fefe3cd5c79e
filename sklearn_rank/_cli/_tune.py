"""``sklearn-rank tune``: grid or randomized search of a ranker's parameters.

The candidates are those of scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`
(:class:`~sklearn.model_selection.ParameterGrid`) or
:class:`~sklearn.model_selection.RandomizedSearchCV` (:class:`~sklearn.model_selection.
ParameterSampler` with the seed), over the folds of a :class:`~sklearn_rank.model_selection.
QueryKFold`, and ``cv_results`` has their layout and numbers. Each (candidate, fold) is a unit
of work (:class:`~sklearn_rank.benchmark.Unit`), run by :func:`~sklearn_rank.benchmark.
run_units` in ``--n-jobs`` processes: the progress line moves as each ends, and a
:class:`~sklearn_rank.benchmark.Recorder` receives each result. The model refitted with
the best parameters on all the data (``--save-model``, ``--test``) is one more unit.
"""

import math
import pickle
from pathlib import Path

import numpy as np

from ..benchmark import library_versions
from ._axes import add_axis_options, named_datasets, seeds_of
from ._common import (
    USAGE,
    CLIError,
    Progress,
    add_benchmark_data_options,
    add_convention_option,
    add_quiet_option,
    benchmark_data,
    check_distinct_outputs,
    check_enough_queries,
    check_grades,
    check_output_path,
    check_test_apart,
    close_matches,
    describe_grade_scales,
    describe_metrics,
    describe_run,
    figure_suffixes,
    format_table,
    grade_scale_options,
    import_extra,
    int_at_least,
    literal_text,
    load_benchmark_data,
    metric_keys,
    metric_name,
    new_figure,
    note_printer,
    save_figure,
    source_inputs,
    tied_scores_in_row_order,
    usage_error,
    wrap,
    write_atomic,
    write_json,
    write_per_query,
)
from ._config import add_config_option, choice, integer, load_config, metric, path, seed, text
from ._models import (
    add_model_options,
    check_params,
    check_rankable,
    check_settings,
    dense_models,
    fit_errors,
    kind_note,
    model_choices,
)
from ._params import param_from_value, parse_params
from ._store import add_store_options, check_store_options, store_files

NAME = "tune"
SUMMARY = "grid or randomized search of a ranker's parameters against a metric"
DESCRIPTION = """\
Search the parameters of a model by cross-validation over whole queries, and print the best
ones with the top candidates. --set fixes a parameter; --param searches one.

Parameters searched (--param NAME=VALUES, once per parameter):
  num_leaves=7,15,31                  a list: ints, floats, true/false, none, or strings
  learning_rate=loguniform(0.01,0.3)  floats between the bounds, log-uniformly (random search)
  learning_rate=uniform(0.01,0.3)     floats between the bounds, uniformly (random search)
  num_leaves=randint(7,63)            integers from 7 to 63, both included (random search)

Without --param, each built-in model has a default grid (and default distributions for
--search random). Without --data, the search runs on generated LETOR-like data (make_ranking).
"""
EPILOG = """\
examples:
  sklearn-rank tune
  sklearn-rank tune --data train.txt --param num_leaves=15,31,63 --param learning_rate=0.05,0.1
  sklearn-rank tune --search random --n-iter 20 --param "learning_rate=loguniform(0.01,0.3)"
  sklearn-rank tune --model xgboost --set n_estimators=300 --metric err@10 --plot search.png
  sklearn-rank tune --data mslr-web10k:1 --test mslr-web10k:1:test --output best.json \\
      --save-model best.joblib --per-query-output test.csv
"""
_N_ITER = 10  # default --n-iter
# The most candidates of a search: each is fitted on every fold, and each (candidate, fold)
# is built before the work (a clone of the model). 10,000 candidates of 5 folds are 50,000
# fits already; --n-iter 100000000000 failed with a MemoryError building them.
MAX_CANDIDATES = 10_000
_MAX_WHY = " candidates, each fitted on every fold"
DEFAULTS = {"n_queries": 200, "seed": 0, "search": "grid", "metric": "ndcg@10", "n_splits": 3,
            "n_estimators": 100, "n_jobs": 1, "top": 10}
CONFIG_KEYS = {
    "seed": seed(), "n_queries": integer(2), "n_estimators": integer(1),
    "n_jobs": integer(1), "convention": text(), "metric": metric(),
    "search": choice(("grid", "random")), "n_iter": integer(1, MAX_CANDIDATES, _MAX_WHY),
    "top": integer(1),
    "output": path(), "save_model": path(), "per_query_output": path(), "plot": path(),
    "plot_param": text(),
    "store": path(),
}
_MODEL_SUFFIXES = (".joblib", ".pkl", ".pickle")
_DEFAULT_MODEL = "lambdarank"


def add_arguments(parser):
    add_config_option(parser, "tune")
    add_benchmark_data_options(
        parser, DEFAULTS,
        seeded="the generated data, the folds, the models and the random search")
    model = parser.add_argument_group("model")
    add_model_options(model, several=False)
    model.add_argument("--param", action="append", metavar="NAME=VALUES",
                       help="a parameter to search and its values, e.g. num_leaves=7,15,31 or "
                       "learning_rate=loguniform(0.01,0.3); repeat for each parameter "
                       "(default: the model's default grid)")
    model.add_argument("--n-estimators", type=int_at_least(1), metavar="N",
                       help="trees of a built-in model, unless --set or --param sets them "
                       f"(default: {DEFAULTS['n_estimators']})")
    search = parser.add_argument_group("search")
    search.add_argument("--search", choices=("grid", "random"),
                        help="grid search of every combination, or randomized search of "
                        "--n-iter candidates (default: grid)")
    search.add_argument("--n-iter", type=int_at_least(1, MAX_CANDIDATES, _MAX_WHY),
                        metavar="N", help=f"candidates of a randomized search, at most "
                        f"{MAX_CANDIDATES:,} (default: {_N_ITER})")
    search.add_argument("--metric", type=metric_name, metavar="METRIC",
                        help="the metric to maximise (default: ndcg@10)")
    add_convention_option(search, "the metric")
    search.add_argument("--n-splits", type=int_at_least(2), metavar="K",
                        help=f"number of folds (default: {DEFAULTS['n_splits']})")
    search.add_argument("--n-jobs", type=int_at_least(1), metavar="N",
                        help="units of work (a candidate on a fold) run in parallel "
                        "processes, each model on one thread (default: 1)")
    output = parser.add_argument_group("output")
    output.add_argument("--top", type=int_at_least(1), metavar="N",
                        help=f"candidates shown, best first (default: {DEFAULTS['top']})")
    output.add_argument("--output", metavar="FILE.json",
                        help="also write the best parameters (all their digits), the best "
                        "score, the test score and the cv_results, with provenance, as JSON")
    output.add_argument("--save-model", metavar="FILE.joblib",
                        help="refit the model with the best parameters on all of --data and "
                        "save it (.joblib, or .pkl/.pickle for pickle), with FILE.json beside "
                        "it: the versions, data, parameters and scores")
    output.add_argument("--per-query-output", metavar="FILE.csv",
                        help="also write the per-query values of the best candidate on the "
                        "folds, and of the refitted model on --test: model, split, fold, "
                        "qid, metric")
    output.add_argument("--plot", metavar="FILE.png",
                        help="also draw the metric against one parameter (needs matplotlib)")
    output.add_argument("--plot-param", metavar="NAME",
                        help="the parameter on the x axis of --plot (default: the first)")
    add_quiet_option(output)
    add_store_options(parser)
    add_axis_options(parser)


def run(args):
    """Run ``sklearn-rank tune``; returns the exit code."""
    config_models, config_inputs = load_config(args, "tune", CONFIG_KEYS, DEFAULTS)
    if args.n_iter is not None and args.search != "random":
        raise usage_error("--n-iter sets the candidates of --search random; a grid search "
                          "tries every combination.")
    if args.plot_param is not None and args.plot is None:
        raise usage_error("--plot-param chooses the x axis of --plot, which is not given.")
    if args.model and len(args.model) > 1:
        raise usage_error(f"--model is given {len(args.model)} times; tune searches one "
                          "model (compare tuned models with 'sklearn-rank cv').")
    if args.test is not None and args.data is None:
        raise usage_error("--test needs --data: the model is refitted on all of --data and "
                          "scored on --test.")
    (choice,) = model_choices(
        args, config_models, None if args.model or config_models else [_DEFAULT_MODEL])
    params, source = _search_space(args, choice)
    _check_grid_size(params, args)
    fixed = [name for name in params if name in choice.params]
    if fixed:
        raise usage_error(f"{fixed[0]!r} is both set (--set) and searched (--param); give it "
                          "once.")
    plot_param = args.plot_param or next(iter(params))
    if args.plot is not None and plot_param not in params:
        raise usage_error(f"--plot-param {plot_param!r} is not a searched parameter; "
                          f"expected one of {', '.join(params)}.")
    check_test_apart(args.data, args.test)
    seeds = seeds_of(args)
    named = named_datasets(args)
    if seeds[0][0] is not None and args.per_query_output is not None:
        raise usage_error("--per-query-output goes with one split; this search repeats it "
                          "(--repeats/--seeds).")
    if named is not None:
        return _run_several(args, choice, params, source, named, seeds, config_inputs)
    sidecar = _check_outputs(args, config_inputs)
    check_store_options(args, [*source_inputs(args.data, "--data"),
                               *source_inputs(args.test, "--test"), *config_inputs])
    estimator = choice.build(args.n_estimators, args.seed)

    note = note_printer(getattr(args, "prog", "sklearn-rank tune"))
    data = (load_benchmark_data(args.data, "--data", args, note=note, quiet=args.quiet)
            if args.data is not None else benchmark_data(args.n_queries, args.seed))
    test = (load_benchmark_data(args.test, "--test", args, note=note, quiet=args.quiet,
                                min_queries=1, like=data)
            if args.test is not None else None)
    check_enough_queries(data, args.n_splits)
    if (why := kind_note(choice, estimator)) is not None:
        note(why)
    check_grades(data, "--data")
    check_grades(test, "--test")
    check_rankable([choice], {choice.label: estimator}, data)
    if dense_models([choice], {choice.label: estimator}, [("--data", data), ("--test", test)],
                    note):
        # the one model takes no sparse input: all its work uses the dense copy
        data = data.densified()
        test = None if test is None else test.densified()
    for name in check_settings(choice, args.n_estimators, args.seed, data):
        note(f"{name!r} is not a named parameter of {type(estimator).__name__}; it is passed "
             "to the booster as it is.")
    check_params(choice, estimator, params, data)
    _note_unknown(estimator, params, note)
    grades = data.y if test is None else np.concatenate([data.y, test.y])
    scale = grade_scale_options(args.metric, args.convention, grades)
    try:
        keys = metric_keys([args.metric], args.convention, {args.metric: scale})
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metric: cannot compute the metric: {exc}", USAGE) from None
    except (TypeError, ValueError) as exc:
        raise CLIError(f"--metric: {exc}", USAGE) from None
    candidates = _candidates({name: p.search_space for name, p in params.items()}, args)
    metadata = _metadata(args, data, test, choice, keys, params)
    if seeds[0][0] is not None:
        metadata["seeds"] = [seed for seed, _ in seeds]

    print(f"Data: {data.description}.")
    space_name = {"grid": "grid", "random": "distributions"}[args.search]
    sampler = ("ParameterGrid" if args.search == "grid"
               else f"ParameterSampler, random_state={args.seed}")
    trees = _trees(choice, params, args.n_estimators)
    lines = []
    if test is not None:
        lines.append(f"Held-out test set: {test.description}.")
    lines += [
        f"Model: {choice.describe()}{trees}.",
        (f"Search: {args.search} ({sampler}), {len(candidates)} candidates x {args.n_splits} "
         f"folds of QueryKFold(shuffle=True, random_state={args.seed}), maximising "
         f"{args.metric}." if seeds[0][0] is None else
         f"Search: {args.search} ({sampler}), {len(candidates)} candidates x {args.n_splits} "
         f"folds x {len(seeds)} repeats of QueryKFold(shuffle=True) with the seeds "
         f"{', '.join(str(s) for s, _ in seeds)} (of the split and the model), maximising "
         f"{args.metric}, the mean over every fold of every repeat."),
        "Parameters: " + " ".join(f"--param {p.text}" for p in params.values())
        + (f" (the default {space_name} of {choice.spec})" if source == "default"
           else " (the grid of the configuration file)" if source == "config" else "") + ".",
    ]
    if scale:
        lines.append(describe_grade_scales({args.metric: scale}))
    lines.append(describe_metrics(keys, args.convention))
    lines.append(describe_run(metadata) + ".")
    print(wrap(lines))
    print(flush=True)

    with tied_scores_in_row_order(args.convention):
        results, refit = _search(choice, estimator, candidates, data, test, args, scale,
                                 keys, metadata, seeds)
    cv_results = _cv_results(candidates, results, args.metric, args.n_splits, seeds)
    best = int(np.argmin(cv_results[f"rank_test_{args.metric}"]))
    print(_summary(cv_results, args.metric, list(params), args.n_splits * len(seeds),
                   args.top))
    tested = None
    if refit is not None and test is not None:
        tested = _held_out(refit, test, args)
        print("\n" + wrap([tested["text"]]))
    if args.output is not None:
        write_json(args.output, _best(cv_results, best, args, choice, metadata, tested),
                   "--output")
    if args.save_model is not None:
        _save_model(args.save_model, sidecar, refit.estimator,
                    _best(cv_results, best, args, choice, metadata, tested, results=False))
    if args.per_query_output is not None:
        best_folds = sorted((r for r in results if r.unit.candidate == best),
                            key=lambda r: r.unit.fold)
        per_query = {"qid": np.concatenate([r.per_query["qid"] for r in best_folds]),
                     "fold": np.concatenate([np.full(len(r.per_query["qid"]), r.unit.fold)
                                             for r in best_folds]),
                     args.metric: np.concatenate([r.per_query[args.metric]
                                                  for r in best_folds])}
        write_per_query(args.per_query_output, {choice.label: per_query},
                        {} if tested is None else {choice.label: refit.per_query},
                        [args.metric])
    if args.plot is not None:
        with literal_text():
            _plot(cv_results, plot_param, params, args)
    return 0


def _run_several(args, choice, params, source, named, seeds, config_inputs):
    """``tune --dataset NAME=SOURCE ...``: the search on each data set on its own (its own
    best parameters), all in one run of the store."""
    for option, value in (("--test", args.test), ("--save-model", args.save_model),
                          ("--plot", args.plot), ("--per-query-output", args.per_query_output)):
        if value is not None:
            raise usage_error(f"{option} goes with one data set; this search has several "
                              "(--dataset). Search each data set on its own for it.")
    inputs = [i for name, sources in named.items()
              for i in source_inputs(sources, f"--dataset {name}")]
    _check_outputs(args, [*config_inputs, *inputs])
    check_store_options(args, [*inputs, *config_inputs])
    estimator = choice.build(args.n_estimators, args.seed)
    note = note_printer(getattr(args, "prog", "sklearn-rank tune"))
    datasets = {name: load_benchmark_data(sources, f"--dataset {name}", args, note=note,
                                          quiet=args.quiet)
                for name, sources in named.items()}
    if (why := kind_note(choice, estimator)) is not None:
        note(why)
    scales, keys = {}, {}
    for name, data in datasets.items():
        check_enough_queries(data, args.n_splits)
        check_grades(data, f"--dataset {name}")
        check_rankable([choice], {choice.label: estimator}, data)
        if dense_models([choice], {choice.label: estimator}, [(f"--dataset {name}", data)],
                        note):
            datasets[name] = data = data.densified()
        check_params(choice, estimator, params, data)
        # each data set on its own grade scale, as a search of it alone
        scales[name] = grade_scale_options(args.metric, args.convention, data.y)
        try:
            keys[name] = metric_keys([args.metric], args.convention, {args.metric: scales[name]})
        except OverflowError as exc:
            raise CLIError(f"--metric: cannot compute the metric: {exc}", USAGE) from None
        except (TypeError, ValueError) as exc:
            raise CLIError(f"--metric: {exc}", USAGE) from None
    first = next(iter(datasets.values()))
    for name in check_settings(choice, args.n_estimators, args.seed, first):
        note(f"{name!r} is not a named parameter of {type(estimator).__name__}; it is passed "
             "to the booster as it is.")
    _note_unknown(estimator, params, note)
    candidates = _candidates({name: p.search_space for name, p in params.items()}, args)
    metadata = _metadata(args, first, None, choice, next(iter(keys.values())), params)
    metadata["datasets"] = {name: {**data.metadata(), "metrics": keys[name]}
                            for name, data in datasets.items()}
    if seeds[0][0] is not None:
        metadata["seeds"] = [seed for seed, _ in seeds]

    sampler = ("ParameterGrid" if args.search == "grid"
               else f"ParameterSampler, random_state={args.seed}")
    repeats = ("" if seeds[0][0] is None else
               f" x {len(seeds)} repeats with the seeds {', '.join(str(s) for s, _ in seeds)}")
    lines = [
        f"Data sets ({len(datasets)}, each searched on its own): "
        + "; ".join(f"{name} = {data.description}" for name, data in datasets.items()) + ".",
        f"Model: {choice.describe()}{_trees(choice, params, args.n_estimators)}.",
        (f"Search: {args.search} ({sampler}), {len(candidates)} candidates x {args.n_splits} "
         f"folds{repeats} of QueryKFold(shuffle=True) on each data set, maximising "
         f"{args.metric}."),
        "Parameters: " + " ".join(f"--param {p.text}" for p in params.values())
        + (f" (the default {'grid' if args.search == 'grid' else 'distributions'} of "
           f"{choice.spec})" if source == "default" else "") + ".",
    ]
    if any(scales.values()):
        lines.append("Grade scale of each data set (its largest grade): " + "; ".join(
            f"{name}: {args.metric} with max_grade={scale['max_grade']}"
            for name, scale in scales.items() if scale) + ".")
    lines.append(describe_metrics(next(iter(keys.values())), args.convention))
    lines.append(f"sklearn-rank {metadata['sklearn_rank_version']}, seed {args.seed}, data "
                 + ", ".join(f"{name} sha256:{d['sha256'][:12]}"
                             for name, d in metadata["datasets"].items()) + ".")
    print(wrap(lines))
    print(flush=True)
    with tied_scores_in_row_order(args.convention):
        results = _search_several(choice, estimator, candidates, datasets, seeds, args, scales,
                                  metadata)
    best_of = {}
    for name in datasets:
        mine = [r for r in results if r.unit.dataset == name]
        cv_results = _cv_results(candidates, mine, args.metric, args.n_splits, seeds)
        best = int(np.argmin(cv_results[f"rank_test_{args.metric}"]))
        print(f"Data set {name}:\n")
        print(_summary(cv_results, args.metric, list(params), args.n_splits * len(seeds),
                       args.top))
        print()
        best_of[name] = _best(cv_results, best, args, choice, metadata, None)
    if args.output is not None:
        write_json(args.output, {"metadata": metadata, "datasets": {
            name: {k: v for k, v in best.items() if k != "metadata"}
            for name, best in best_of.items()}}, "--output")
    return 0


def _search_several(choice, estimator, candidates, datasets, seeds, args, scales, metadata):
    """Every (data set, seed, candidate, fold) unit, run and recorded as one run."""
    from sklearn.base import clone

    from ..benchmark import Task, Unit, processes, run_units, unit_scoring
    from ..model_selection import QueryKFold
    from ._scoring import recorder_for

    try:
        scoring = {name: unit_scoring([args.metric], scales={args.metric: scales[name]},
                                      convention=args.convention) for name in datasets}
    except ValueError as exc:
        raise CLIError(f"--metric: {exc}", USAGE) from None
    n = len(candidates)
    tasks = []
    for name, data in datasets.items():
        for unit_seed, repeat in seeds:
            seeded = (estimator if repeat == args.seed
                      else choice.build(args.n_estimators, repeat))
            splits = QueryKFold(args.n_splits, shuffle=True, random_state=repeat).split(
                data.X, data.y, qid=data.qid)
            for fold, (train, test_rows) in enumerate(splits):
                for i, candidate in enumerate(candidates):
                    unit = Unit(choice.label, fold, candidate=i, dataset=name, seed=unit_seed)
                    tasks.append(Task(
                        unit, clone(seeded).set_params(**candidate),
                        {**choice.params, **candidate}, train, test_rows,
                        f"{name}, candidate {i + 1}/{n}"
                        + ("" if unit_seed is None else f", seed {unit_seed}")
                        + f", fold {fold + 1}/{args.n_splits}", data=data,
                        scoring=scoring[name]))
    recorder = recorder_for(args, metadata, [t.unit for t in tasks])
    progress = Progress(len(tasks), f"{args.search} search", enabled=not args.quiet)
    n_jobs = processes(args.n_jobs, len(tasks))
    progress.begin(f"({len(datasets)} data sets x {n} candidates x {args.n_splits} folds"
                   + (f" x {len(seeds)} seeds" if seeds[0][0] is not None else "")
                   + f", {n_jobs} process{'es' if n_jobs > 1 else ''})")
    try:
        results = list(run_units(tasks, None, scoring=None, n_jobs=args.n_jobs,
                                 progress=progress, recorder=recorder, quiet=True))
    except CLIError:  # the results store's, not the model's
        raise
    except fit_errors([choice.spec]) as exc:
        shown = (f"{type(exc).__name__}: {exc}" if choice.user_class
                 and not isinstance(exc, (ValueError, TypeError)) else str(exc))
        raise CLIError(f"the search failed: {shown}") from None
    except OverflowError as exc:
        raise CLIError(f"--metric: cannot compute the metric: {exc}", USAGE) from None
    finally:
        progress.close()
    recorder.finish()
    return results


def _search_space(args, choice):
    """The parameters searched, and where they come from: ``"option"`` (``--param``),
    ``"config"`` (the file's grid) or ``"default"`` (the model's)."""
    if args.param:
        return parse_params(args.param, search=args.search), "option"
    if choice.grid:
        params = {name: param_from_value(name, value, f"{choice.option}: grid.{name}",
                                         search=args.search)
                  for name, value in choice.grid.items()}
        return params, "config"
    if choice.model is None:
        raise usage_error(f"{choice.option}: a class of one's own has no default grid; give "
                          "the parameters to search with --param NAME=VALUES.")
    model = choice.model
    specs = model.grid if args.search == "grid" else model.distributions
    return parse_params(specs, search=args.search), "default"


def _trees(choice, params, n_estimators):
    """``", 100 trees"`` (--n-estimators), ``", trees searched"``, or nothing (set, or a
    class of one's own)."""
    if choice.user_class:
        return ""
    model = choice.model
    names = next((group for group in model.aliases if model.trees in group), (model.trees,))
    if any(name in params for name in names):
        return ", trees searched"
    if any(name in choice.params for name in names):
        return ""
    return f", {n_estimators} trees"


def _check_outputs(args, config_inputs):
    """Check every output before the work; returns the path of --save-model's note."""
    inputs = [*source_inputs(args.data, "--data"), *source_inputs(args.test, "--test"),
              *config_inputs]
    if args.output is not None:
        check_output_path(args.output, "--output", (".json",), inputs)
    sidecar = None
    if args.save_model is not None:
        check_output_path(args.save_model, "--save-model", _MODEL_SUFFIXES, inputs)
        sidecar = Path(f"{args.save_model}.json")
        check_output_path(sidecar, "--save-model (its note)", (".json",), inputs)
    if args.per_query_output is not None:
        check_output_path(args.per_query_output, "--per-query-output", (".csv",), inputs)
    if args.plot is not None:
        check_output_path(args.plot, "--plot", figure_suffixes(), inputs)
        import_extra("matplotlib", "plot", "--plot")
    check_distinct_outputs([*store_files(getattr(args, "store", None)),
                            ("--output", args.output), ("--save-model", args.save_model),
                            ("--save-model (its note)", sidecar),
                            ("--per-query-output", args.per_query_output),
                            ("--plot", args.plot)])
    return sidecar


def _note_unknown(estimator, params, note):
    """Say when a parameter the booster knows is not one of the estimator's named ones.

    :func:`check_params` has refused the names that the booster does not know.
    """
    known = sorted(estimator.get_params())
    for name in params:
        if name not in known:
            note(f"{name!r} is not a named parameter of {type(estimator).__name__}; it is "
                 f"passed to the booster as it is.{close_matches(name, known)}")


def _check_grid_size(params, args):
    """Refuse, before the work, a grid of more than :data:`MAX_CANDIDATES` candidates."""
    if args.search != "grid":
        return
    size = math.prod(len(p.values) for p in params.values())
    if size > MAX_CANDIDATES:
        sizes = " x ".join(str(len(p.values)) for p in params.values())
        raise usage_error(
            f"--search grid: the grid has {size:,} candidates ({sizes} values), more than the "
            f"{MAX_CANDIDATES:,} a search may try (each is fitted on every fold); list fewer "
            "values, or give --search random --n-iter N to sample N of them.")


def _candidates(space, args):
    """The candidates of GridSearchCV or RandomizedSearchCV, in their order."""
    from sklearn.model_selection import ParameterGrid, ParameterSampler

    if args.search == "grid":
        return list(ParameterGrid(space))
    n_iter = _N_ITER if args.n_iter is None else args.n_iter
    if all(isinstance(values, list) for values in space.values()):
        # scikit-learn warns and samples the grid without repetition: say it here instead
        n_iter = min(n_iter, len(ParameterGrid(space)))
    return list(ParameterSampler(space, n_iter, random_state=args.seed))


def _metadata(args, data, test, choice, keys, params):
    from .. import __version__

    return {
        "command": "sklearn-rank tune",
        "sklearn_rank_version": __version__,
        "data": data.metadata(),
        "test": None if test is None else test.metadata(),
        "metric": args.metric,
        "metrics": keys,
        "convention": args.convention,
        "seed": args.seed,
        "splitter": f"QueryKFold(n_splits={args.n_splits}, shuffle=True, "
                    f"random_state={args.seed})",
        "model": {"label": choice.label, **choice.provenance()},
        "search": args.search,
        "space": {name: p.text for name, p in params.items()},
        "n_estimators": args.n_estimators,
        "versions": library_versions(),
    }


def _search(choice, estimator, candidates, data, test, args, scale, keys, metadata,
            seeds=((None, None),)):
    """Every (candidate, fold) unit (of every repeat of the split: ``seeds``), then the
    refit with the best parameters when asked."""
    from sklearn.base import clone

    from ..benchmark import Task, Unit, processes, run_units, unit_scoring
    from ..model_selection import QueryKFold
    from ._scoring import recorder_for

    try:
        scoring = unit_scoring([args.metric], scales={args.metric: scale},
                               convention=args.convention)
    except ValueError as exc:
        raise CLIError(f"--metric: {exc}", USAGE) from None
    n = len(candidates)
    if seeds[0][0] is None:
        splits = list(QueryKFold(args.n_splits, shuffle=True, random_state=args.seed).split(
            data.X, data.y, qid=data.qid))
        tasks = [Task(Unit(choice.label, fold, candidate=i),
                      clone(estimator).set_params(**candidate), {**choice.params, **candidate},
                      train, test_rows,
                      f"candidate {i + 1}/{n}, fold {fold + 1}/{args.n_splits}")
                 for i, candidate in enumerate(candidates)
                 for fold, (train, test_rows) in enumerate(splits)]
    else:  # every repeat: its split, and the model under its seed
        tasks = []
        for repeat, _ in seeds:
            splits = QueryKFold(args.n_splits, shuffle=True, random_state=repeat).split(
                data.X, data.y, qid=data.qid)
            seeded = (estimator if repeat == args.seed
                      else choice.build(args.n_estimators, repeat))
            for fold, (train, test_rows) in enumerate(splits):
                tasks += [Task(Unit(choice.label, fold, candidate=i, seed=repeat),
                               clone(seeded).set_params(**candidate),
                               {**choice.params, **candidate}, train, test_rows,
                               f"candidate {i + 1}/{n}, seed {repeat}, fold {fold + 1}/"
                               f"{args.n_splits}")
                          for i, candidate in enumerate(candidates)]
    refit = args.save_model is not None or test is not None
    recorder = recorder_for(args, metadata,
                            [t.unit for t in tasks] + ([Unit(choice.label, None)] if refit
                                                       else []))
    progress = Progress(len(tasks) + refit, f"{args.search} search", enabled=not args.quiet)
    n_jobs = processes(args.n_jobs, len(tasks))
    progress.begin(f"({n} candidates x {args.n_splits} folds"
                   + (f" x {len(seeds)} seeds" if seeds[0][0] is not None else "")
                   + (" + refit" if refit else "")
                   + f", {n_jobs} process{'es' if n_jobs > 1 else ''})")
    errors = fit_errors([choice.spec])
    refitted = None
    try:
        results = list(run_units(tasks, data, scoring=scoring, n_jobs=args.n_jobs,
                                 progress=progress, recorder=recorder, quiet=True))
        if refit:
            cv_results = _cv_results(candidates, results, args.metric, args.n_splits,
                                     seeds)
            best = int(np.argmin(cv_results[f"rank_test_{args.metric}"]))
            task = Task(Unit(choice.label, None),
                        clone(estimator).set_params(**candidates[best]),
                        {**choice.params, **candidates[best]},
                        detail="refit on all the data"
                        + (", scored on the test set" if test is not None else ""))
            (refitted,) = run_units([task], data, scoring=scoring, n_jobs=1,
                                    progress=progress, recorder=recorder, test_data=test,
                                    test_keys=keys, response_method="auto",
                                    keep_estimator=True, quiet=True)
    except CLIError:  # the results store's, not the models'
        raise
    except errors as exc:  # e.g. num_leaves=1, or grades LightGBM refuses
        shown = (f"{type(exc).__name__}: {exc}" if choice.user_class
                 and not isinstance(exc, (ValueError, TypeError)) else str(exc))
        raise CLIError(f"the search failed: {shown}") from None
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metric: cannot compute the metric: {exc}", USAGE) from None
    finally:
        progress.close()
    recorder.finish()
    return results, refitted


def _cv_results(candidates, results, metric, n_splits, seeds=((None, None),)):
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


def _held_out(refit, test, args):
    """The test score of the refitted model: mean and bootstrap interval."""
    from ..stats import bootstrap_ci

    values = refit.per_query[args.metric]
    estimate = bootstrap_ci(values, random_state=args.seed)
    low, high = estimate.confidence_interval
    level = round(100 * estimate.confidence_level)
    text = (f"Held-out test {args.metric}: {estimate.mean:.4f} [{low:.4f}, {high:.4f}] (mean "
            f"over {len(values)} queries [{level}% {estimate.method} bootstrap CI]), the model "
            "refitted with the best parameters on all of the data.")
    return {"mean": float(estimate.mean), "ci_low": float(low), "ci_high": float(high),
            "n_queries": len(values), "text": text}


def _best(cv_results, best, args, choice, metadata, tested, results=True):
    """What ``--output`` (and ``--save-model``'s note) record: the best parameters and
    scores, with all their digits, the test score and (``results``) the cv_results."""
    out = {
        "metadata": metadata,
        "model": choice.label,
        "metric": args.metric,
        "best_index": best,
        "best_params": cv_results["params"][best],
        "best_score": cv_results[f"mean_test_{args.metric}"][best],
        "best_score_std": cv_results[f"std_test_{args.metric}"][best],
        "fixed_params": choice.params,
        "test": None if tested is None else {k: v for k, v in tested.items() if k != "text"},
    }
    if results:
        out["cv_results"] = cv_results
    return out


def _save_model(path, sidecar, estimator, note):
    """The refitted model, atomically, and its note beside it."""
    suffix = Path(path).suffix.lower()
    if suffix == ".joblib":
        import joblib

        def write(temporary):
            joblib.dump(estimator, temporary)
    else:
        def write(temporary):
            with open(temporary, "wb") as handle:
                pickle.dump(estimator, handle, protocol=pickle.HIGHEST_PROTOCOL)

    loader = ("joblib.load(path)" if suffix == ".joblib"
              else "pickle.load(open(path, 'rb'))")
    write_atomic(path, write, "--save-model")
    # the public module of the class: sklearn_rank.lightgbm, not sklearn_rank.lightgbm._ranker
    module = ".".join(part for part in type(estimator).__module__.split(".")
                      if not part.startswith("_")) or type(estimator).__module__
    write_json(sidecar, {"file": Path(path).name, "load": loader,
                         "estimator": f"{module}.{type(estimator).__qualname__}", **note},
               "--save-model")


def _show(value):
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    return str(value.item() if isinstance(value, np.generic) else value)


def _exact(value):
    """A parameter with all its digits: the shortest text that reads back the same float."""
    value = value.item() if isinstance(value, np.generic) else value
    return repr(value) if isinstance(value, float) else str(value)


def _summary(results, metric, names, n_splits, top):
    """Best score and parameters, then the top candidates with mean ± std over the folds."""
    ranks = np.asarray(results[f"rank_test_{metric}"])
    order = np.argsort(ranks, kind="stable")
    mean, std = results[f"mean_test_{metric}"], results[f"std_test_{metric}"]
    best = order[0]
    best_params = ", ".join(f"{n}={_exact(results['params'][best][n])}" for n in names)
    lines = [
        f"Best {metric}: {mean[best]:.4f} ± {std[best]:.4f} (mean ± std over {n_splits} folds)",
        f"Best parameters: {best_params}",
        "",
    ]
    shown = order[:top]
    rows = [[str(ranks[i]), f"{mean[i]:.4f} ± {std[i]:.4f}",
             *(_show(results["params"][i][n]) for n in names),
             f"{results['mean_fit_time'][i]:.2f} s"] for i in shown]
    lines.append(format_table(["rank", f"{metric} (mean ± std)", *names, "fit time"], rows))
    if len(order) > top:
        lines.append(f"({len(order) - top} more candidates; --top shows more.)")
    return "\n".join(lines)


def _plot(results, param, params, args):
    from ..plot import ParameterSearchDisplay

    figure, (ax,) = new_figure("--plot")
    n_candidates = len(results["params"])
    # A randomized search draws new values of every parameter for each candidate: one
    # "line" per candidate, a scatter in effect, is what there is to show.
    max_lines = n_candidates if args.search == "random" else 10
    try:
        display = ParameterSearchDisplay.from_cv_results(
            results, param, metric=args.metric, max_lines=max_lines, ax=ax)
    except ValueError as exc:
        if getattr(exc, "parameter", None) != "max_lines":
            raise
        # more combinations of the other parameters than lines: the slice through the best
        best = int(np.argmin(results[f"rank_test_{args.metric}"]))
        fixed = {n: results["params"][best][n] for n in params if n != param}
        ax.clear()
        display = ParameterSearchDisplay.from_cv_results(results, param, metric=args.metric,
                                                         fixed=fixed, ax=ax)
    legend = display.ax_.get_legend()
    if legend is not None and len(legend.get_texts()) > 10:
        legend.remove()  # a legend of every candidate would hide the plot
    save_figure(figure, args.plot, "--plot")
