"""``sklearn-rank tune``: grid or randomized search of a ranker's parameters.

scikit-learn's own :class:`~sklearn.model_selection.GridSearchCV` and
:class:`~sklearn.model_selection.RandomizedSearchCV` run the search, over the folds of a
:class:`~sklearn_rank.model_selection.QueryKFold`, with the query ids routed as metadata to
the splitter, the model and the scorer.
"""

import sys

import numpy as np

from ._common import (
    USAGE,
    CLIError,
    Progress,
    add_convention_option,
    add_data_option,
    add_generated_data_options,
    add_quiet_option,
    check_enough_queries,
    check_output_path,
    close_matches,
    describe_grade_scales,
    figure_suffixes,
    generated_data,
    grade_scale_options,
    import_extra,
    int_at_least,
    letor_inputs,
    load_letor,
    metric_name,
    new_figure,
    save_figure,
    usage_error,
    wrap,
)
from ._models import MODELS, boosters_quiet, check_params, describe, fit_errors
from ._params import parse_params

NAME = "tune"
SUMMARY = "grid or randomized search of a ranker's parameters against a metric"
DESCRIPTION = """\
Search the parameters of a model by cross-validation over whole queries, and print the best
ones with the top candidates.

Parameters (--param NAME=VALUES, once per parameter):
  num_leaves=7,15,31                  a list: ints, floats, true/false, none, or strings
  learning_rate=loguniform(0.01,0.3)  floats between the bounds, log-uniformly (random search)
  learning_rate=uniform(0.01,0.3)     floats between the bounds, uniformly (random search)
  num_leaves=randint(7,63)            integers from 7 to 63, both included (random search)

Without --param, each model has a default grid (and default distributions for --search
random). Without --data, the search runs on generated LETOR-like data (make_ranking).
"""
EPILOG = """\
examples:
  sklearn-rank tune
  sklearn-rank tune --data train.txt --param num_leaves=15,31,63 --param learning_rate=0.05,0.1
  sklearn-rank tune --search random --n-iter 20 --param "learning_rate=loguniform(0.01,0.3)"
  sklearn-rank tune --model xgboost --metric err@10 --plot search.png
"""
_N_ITER = 10  # default --n-iter


def add_arguments(parser):
    add_data_option(parser)
    add_generated_data_options(
        parser, n_queries=200,
        seeded="the generated data, the folds, the models and the random search")
    parser.add_argument("--model", choices=list(MODELS), default="lambdarank", metavar="MODEL",
                        help=f"the model, among {', '.join(MODELS)} (default: lambdarank)")
    parser.add_argument("--search", choices=("grid", "random"), default="grid",
                        help="grid search of every combination, or randomized search of "
                        "--n-iter candidates (default: grid)")
    parser.add_argument("--n-iter", type=int_at_least(1), metavar="N",
                        help=f"candidates of a randomized search (default: {_N_ITER})")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUES",
                        help="a parameter and its values, e.g. num_leaves=7,15,31 or "
                        "learning_rate=loguniform(0.01,0.3); repeat for each parameter "
                        "(default: the model's default grid)")
    parser.add_argument("--metric", type=metric_name, default="ndcg@10", metavar="METRIC",
                        help="the metric to maximise (default: ndcg@10)")
    add_convention_option(parser, "the metric")
    parser.add_argument("--n-splits", type=int_at_least(2), default=3, metavar="K",
                        help="number of folds (default: 3)")
    parser.add_argument("--n-estimators", type=int_at_least(1), default=100, metavar="N",
                        help="trees, unless --param n_estimators=... searches them "
                        "(default: 100)")
    parser.add_argument("--n-jobs", type=int_at_least(1), default=1, metavar="N",
                        help="fits run in parallel processes, each model on one thread; the "
                        "progress line only moves with 1 (default: 1)")
    parser.add_argument("--top", type=int_at_least(1), default=10, metavar="N",
                        help="candidates shown, best first (default: 10)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="also draw the metric against one parameter (needs matplotlib)")
    parser.add_argument("--plot-param", metavar="NAME",
                        help="the parameter on the x axis of --plot (default: the first)")
    add_quiet_option(parser)


def _grid_search(estimator, space, args, **options):
    from sklearn.model_selection import GridSearchCV, ParameterGrid

    return GridSearchCV(estimator, space, **options), len(ParameterGrid(space))


def _random_search(estimator, space, args, **options):
    from sklearn.model_selection import ParameterGrid, RandomizedSearchCV

    n_iter = _N_ITER if args.n_iter is None else args.n_iter
    if all(isinstance(values, list) for values in space.values()):
        # scikit-learn warns and samples the grid without repetition: say it here instead
        n_iter = min(n_iter, len(ParameterGrid(space)))
    return (RandomizedSearchCV(estimator, space, n_iter=n_iter, random_state=args.seed,
                               **options), n_iter)


# --search -> build(estimator, space, args, **options) -> (unfitted search, candidates)
_SEARCHES = {"grid": _grid_search, "random": _random_search}


def run(args):
    """Run ``sklearn-rank tune``; returns the exit code."""
    model = MODELS[args.model]
    if args.n_iter is not None and args.search != "random":
        raise usage_error("--n-iter sets the candidates of --search random; a grid search "
                          "tries every combination.")
    if args.plot_param is not None and args.plot is None:
        raise usage_error("--plot-param chooses the x axis of --plot, which is not given.")
    default_space = not args.param
    specs = args.param or (model.grid if args.search == "grid" else model.distributions)
    params = parse_params(specs, search=args.search)
    plot_param = args.plot_param or next(iter(params))
    if args.plot is not None:
        if plot_param not in params:
            raise usage_error(f"--plot-param {plot_param!r} is not a searched parameter; "
                              f"expected one of {', '.join(params)}.")
        check_output_path(args.plot, "--plot", figure_suffixes(), letor_inputs(args.data or []))
        import_extra("matplotlib", "plot", "--plot")
    estimator = model.make(args.n_estimators, args.seed, "--model")
    data = (load_letor(args.data, "--data") if args.data is not None
            else generated_data(args.n_queries, args.seed))
    check_enough_queries(data, args.n_splits)
    check_params(model, estimator, params, data)
    _note_unknown(estimator, params)
    scale = grade_scale_options(args.metric, args.convention, data.y)

    from ..model_selection import QueryKFold
    from ._scoring import ProgressScorer, QuietScorer

    space = {name: param.search_space for name, param in params.items()}
    try:
        scorer = QuietScorer(args.metric, scale, "predict", "qid", args.convention)
    except ValueError as exc:
        raise CLIError(f"--metric: {exc}", USAGE) from None
    # the progress of fits in other processes (--n-jobs) is not seen here
    in_process = args.n_jobs == 1
    progress = Progress(0, f"{args.search} search", enabled=in_process and not args.quiet)
    if in_process:
        scorer = ProgressScorer(scorer, progress.advance)
    cv = QueryKFold(args.n_splits, shuffle=True, random_state=args.seed)
    search, n_candidates = _SEARCHES[args.search](
        estimator, space, args, scoring={args.metric: scorer}, refit=False, cv=cv,
        n_jobs=args.n_jobs, error_score="raise")
    progress.total = n_candidates * args.n_splits

    print(f"Data: {data.description}.")
    space_name = {"grid": "grid", "random": "distributions"}[args.search]
    source = f" (the default {space_name} of {model.name})" if default_space else ""
    trees = ("trees searched" if "n_estimators" in params
             else f"{args.n_estimators} trees")
    lines = [
        f"Model: {describe(model.name)}, {trees}.",
        (f"Search: {type(search).__name__}, {n_candidates} candidates x {args.n_splits} "
         f"folds of QueryKFold(shuffle=True, random_state={args.seed}), maximising "
         f"{args.metric}."),
        "Parameters: " + " ".join(f"--param {p.text}" for p in params.values())
        + f"{source}.",
    ]
    if scale:
        lines.append(describe_grade_scales({args.metric: scale}))
    print(wrap(lines))
    print(flush=True)

    _fit(search, data, progress, args)
    results = search.cv_results_
    print(_summary(results, args.metric, list(params), args.n_splits, args.top))
    if args.plot is not None:
        _plot(results, plot_param, params, args)
    return 0


def _note_unknown(estimator, params):
    """Say when a parameter the booster knows is not one of the estimator's named ones.

    :func:`check_params` has refused the names that the booster does not know.
    """
    known = sorted(estimator.get_params())
    for name in params:
        if name not in known:
            print(f"sklearn-rank tune: note: {name!r} is not a named parameter of "
                  f"{type(estimator).__name__}; it is passed to the booster as it is."
                  f"{close_matches(name, known)}", file=sys.stderr)


def _fit(search, data, progress, args):
    import sklearn

    if args.n_jobs > 1 and not args.quiet:
        print(f"{args.search} search: {progress.total} fits in {args.n_jobs} processes...",
              file=sys.stderr, flush=True)
    try:
        # a booster's own log lines would only repeat its error; the query ids reach the
        # splitter, the model and the scorer as routed metadata
        with boosters_quiet(), sklearn.config_context(enable_metadata_routing=True):
            search.fit(data.X, data.y, qid=data.qid)
    except fit_errors([args.model]) as exc:  # e.g. num_leaves=1, or grades LightGBM refuses
        raise CLIError(f"the search failed: {exc}") from None
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metric: cannot compute the metric: {exc}", USAGE) from None
    finally:
        progress.close()


def _show(value):
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    return str(value.item() if isinstance(value, np.generic) else value)


def _summary(results, metric, names, n_splits, top):
    """Best score and parameters, then the top candidates with mean ± std over the folds."""
    from ..stats._table import format_table

    ranks = np.asarray(results[f"rank_test_{metric}"])
    order = np.argsort(ranks, kind="stable")
    mean, std = results[f"mean_test_{metric}"], results[f"std_test_{metric}"]
    best = order[0]
    best_params = ", ".join(f"{n}={_show(results['params'][best][n])}" for n in names)
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
        if "max_lines" not in str(exc):
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
