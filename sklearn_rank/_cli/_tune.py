"""``sklearn-rank tune``: grid or randomized search of a ranker's parameters.

A shell over :func:`sklearn_rank.benchmark.run_search`: the options, the configuration file
and the parameter grammar (:mod:`._params`) give the model and the space searched; the
checks and the header come first, then the search (its units in ``--n-jobs`` processes, a
progress line, ``--store``), then the tables and the files of ``--output``,
``--save-model``, ``--per-query-output`` and ``--plot``.
"""

import functools
import pickle
from pathlib import Path

import numpy as np

from ._axes import add_axis_options, named_datasets, seeds_of
from ._common import (
    USAGE,
    CLIError,
    Progress,
    add_benchmark_data_options,
    add_convention_option,
    add_quiet_option,
    check_distinct_outputs,
    check_enough_queries,
    check_grades,
    check_output_path,
    check_test_apart,
    checked_metric_keys,
    close_matches,
    describe_grade_scales,
    describe_metrics,
    describe_run,
    figure_suffixes,
    grade_scale_options,
    import_extra,
    int_at_least,
    literal_text,
    load_run_datasets,
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
    dense_models,
    fit_errors,
    kind_note,
    model_choices,
    note_passed_on,
)
from ._params import param_from_value, parse_params
from ._store import CLIStoreRecorder, add_store_options, check_store_options, store_files

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
MAX_CANDIDATES = 10_000  # of a search: run_search's limit (search_candidates)
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
    from ..benchmark import run_search, search_candidates

    (choice,) = model_choices(
        args, config_models, None if args.model or config_models else [_DEFAULT_MODEL])
    params, source = _search_space(args, choice)
    space = {name: p.search_space for name, p in params.items()}
    try:  # (the grammar refused any other error before)
        n_candidates = len(search_candidates(space, search=args.search, n_iter=args.n_iter,
                                             random_state=args.seed))
    except ValueError as exc:  # more than MAX_CANDIDATES
        raise usage_error(f"--search {args.search}: {exc} (--search random --n-iter N).") from None
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
    for option, value in (("--test", args.test), ("--save-model", args.save_model),
                          ("--plot", args.plot), ("--per-query-output", args.per_query_output)):
        if named is not None and value is not None:
            raise usage_error(f"{option} goes with one data set; this search has several "
                              "(--dataset). Search each data set on its own for it.")
    options = {None: "--data"} if named is None else {n: f"--dataset {n}" for n in named}
    inputs = [*source_inputs(args.data, "--data"), *source_inputs(args.test, "--test"),
              *(i for n, s in (named or {}).items() for i in source_inputs(s, options[n])),
              *config_inputs]
    sidecar = _check_outputs(args, inputs)
    check_store_options(args, inputs)
    estimator = choice.build(args.n_estimators, args.seed)
    note = note_printer(getattr(args, "prog", "sklearn-rank tune"))
    # --test goes with --data alone (refused above with --dataset)
    datasets, test = load_run_datasets(args, named, note=note)
    if named is None:
        check_enough_queries(datasets[None], args.n_splits)
    if (why := kind_note(choice, estimator)) is not None:
        note(why)
    scales, keys = {}, {}
    for name, data in datasets.items():
        if named is not None:
            check_enough_queries(data, args.n_splits)
        check_grades(data, options[name])
        if named is None:
            check_grades(test, "--test")
        check_rankable([choice], {choice.label: estimator}, data)
        if dense_models([choice], {choice.label: estimator},
                        [(options[name], data)] + ([("--test", test)] if named is None else []),
                        note):  # the one model takes no sparse input: all its work is dense
            datasets[name] = data = data.densified()
            test = None if test is None else test.densified()
        if named is None:
            note_passed_on(choice, estimator, args.n_estimators, args.seed, data, note)
        check_params(choice, estimator, params, data)
        if named is None:
            _note_unknown(estimator, params, note)
        # each data set on its own grade scale, as a search of it alone
        grades = data.y if test is None else np.concatenate([data.y, test.y])
        scales[name] = grade_scale_options(args.metric, args.convention, grades)
        keys[name] = checked_metric_keys([args.metric], args.convention,
                                         {args.metric: scales[name]}, "--metric")
    first = next(iter(datasets.values()))
    if named is not None:
        note_passed_on(choice, estimator, args.n_estimators, args.seed, first, note)
        _note_unknown(estimator, params, note)
    print(_header(args, choice, params, source, datasets, test, n_candidates, seeds, scales,
                  keys))
    print(flush=True)

    store = None if args.store is None else CLIStoreRecorder(
        args.store, resume=args.resume, prog=getattr(args, "prog", "sklearn-rank tune"),
        refit_estimator=args.save_model is not None)
    try:
        with tied_scores_in_row_order(args.convention):
            found = run_search(
                lambda s: estimator if s == args.seed else choice.build(args.n_estimators, s),
                space, datasets if named is not None else first, metric=args.metric,
                search=args.search, n_iter=args.n_iter, convention=args.convention,
                n_splits=args.n_splits, random_state=args.seed,
                n_repeats=getattr(args, "repeats", None), seeds=getattr(args, "seeds", None),
                refit=args.save_model is not None or test is not None, test=test, store=store,
                n_jobs=args.n_jobs, progress=functools.partial(Progress, enabled=not args.quiet),
                provenance={"command": "sklearn-rank tune",
                            "model": {"label": choice.label, **choice.provenance()},
                            "space": {name: p.text for name, p in params.items()},
                            "n_estimators": args.n_estimators}, check_models=False)
    except CLIError:  # the results store's, not the models'
        raise
    except fit_errors([choice.spec]) as exc:  # e.g. num_leaves=1, or grades LightGBM refuses
        shown = (f"{type(exc).__name__}: {exc}" if choice.user_class
                 and not isinstance(exc, (ValueError, TypeError)) else str(exc))
        raise CLIError(f"the search failed: {shown}") from None
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metric: cannot compute the metric: {exc}", USAGE) from None
    more = (f"\n({n_candidates - args.top} more candidates; --top shows more.)"
            if n_candidates > args.top else "")
    if named is not None:
        for name, result in found.items():
            print(f"Data set {name}:\n")
            print(result.summary(args.top) + more)
            print()
        if args.output is not None:
            write_json(args.output, {"metadata": result.provenance, "datasets": {
                name: {k: v for k, v in result.to_dict().items() if k != "metadata"}
                for name, result in found.items()}}, "--output")
        return 0
    result = found
    print(result.summary(args.top) + more)
    if (estimate := result.test_score_) is not None:
        (low, high), level = estimate.confidence_interval, round(100 * estimate.confidence_level)
        print("\n" + wrap([
            f"Held-out test {args.metric}: {estimate.mean:.4f} [{low:.4f}, {high:.4f}] (mean "
            f"over {len(result.test_per_query_.query_ids)} queries [{level}% {estimate.method} "
            "bootstrap CI]), the model refitted with the best parameters on all of the data."]))
    if args.output is not None:
        write_json(args.output, result.to_dict(), "--output")
    if args.save_model is not None:
        _save_model(args.save_model, sidecar, result.best_estimator_,
                    result.to_dict(cv_results=False))
    if args.per_query_output is not None:
        folds = result.per_query()
        order = np.argsort(folds.fold, kind="stable")  # fold by fold, each by query id
        tested = result.test_per_query_
        write_per_query(args.per_query_output, {choice.label: {
            "qid": folds.query_ids[order], "fold": folds.fold[order],
            args.metric: folds[args.metric][order]}}, {} if tested is None else {
            choice.label: {"qid": tested.query_ids, args.metric: tested[args.metric]}},
            [args.metric])
    if args.plot is not None:
        figure, (ax,) = new_figure("--plot")
        with literal_text():
            result.plot(plot_param, ax=ax)
        save_figure(figure, args.plot, "--plot")
    return 0


def _header(args, choice, params, source, datasets, test, n_candidates, seeds, scales, keys):
    """What is searched, on which data, how: the lines before the work."""
    from .. import __version__

    sampler = ("ParameterGrid" if args.search == "grid"
               else f"ParameterSampler, random_state={args.seed}")
    space_name = {"grid": "grid", "random": "distributions"}[args.search]
    model = f"Model: {choice.describe()}{_trees(choice, params, args.n_estimators)}."
    given = "Parameters: " + " ".join(f"--param {p.text}" for p in params.values())
    default = f" (the default {space_name} of {choice.spec})" if source == "default" else ""
    search = f"Search: {args.search} ({sampler}), {n_candidates} candidates x {args.n_splits} folds"
    repeated = seeds[0][0] is not None
    listed = ", ".join(str(s) for s, _ in seeds)
    if None not in datasets:  # --dataset: each searched on its own
        lines = [
            f"Data sets ({len(datasets)}, each searched on its own): "
            + "; ".join(f"{name} = {data.description}" for name, data in datasets.items()) + ".",
            model,
            search + (f" x {len(seeds)} repeats with the seeds {listed}" if repeated else "")
            + f" of QueryKFold(shuffle=True) on each data set, maximising {args.metric}.",
            given + default + ".",
        ]
        if any(scales.values()):
            lines.append("Grade scale of each data set (its largest grade): " + "; ".join(
                f"{name}: {args.metric} with max_grade={scale['max_grade']}"
                for name, scale in scales.items() if scale) + ".")
        lines.append(describe_metrics(next(iter(keys.values())), args.convention))
        lines.append(f"sklearn-rank {__version__}, seed {args.seed}, data " + ", ".join(
            f"{name} sha256:{d.metadata()['sha256'][:12]}" for name, d in datasets.items()) + ".")
        return wrap(lines)
    lines = [] if test is None else [f"Held-out test set: {test.description}."]
    lines += [
        model,
        search + (f" x {len(seeds)} repeats of QueryKFold(shuffle=True) with the seeds {listed} "
                  f"(of the split and the model), maximising {args.metric}, the mean over every "
                  "fold of every repeat." if repeated else f" of QueryKFold(shuffle=True, "
                  f"random_state={args.seed}), maximising {args.metric}."),
        given + (default or (" (the grid of the configuration file)" if source == "config"
                             else "")) + ".",
    ]
    if scales[None]:
        lines.append(describe_grade_scales({args.metric: scales[None]}))
    lines.append(describe_metrics(keys[None], args.convention))
    lines.append(describe_run({"sklearn_rank_version": __version__, "seed": args.seed,
                               "data": datasets[None].metadata()}) + ".")
    return f"Data: {datasets[None].description}.\n" + wrap(lines)


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


def _check_outputs(args, inputs):
    """Check every output before the work; returns the path of --save-model's note."""
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
