"""``sklearn-rank cv``: cross-validated comparison of rankers, with intervals and tests.

Each model goes through :func:`sklearn_rank.model_selection.cross_validate` on the same
folds, which returns the per-query test values and, for ``--plot``, the out-of-fold scores,
predicting once per fold; its callback moves the progress line. The per-query values of all
folds go to :func:`sklearn_rank.stats.compare`, whose results table is printed and, with
``--output``, written (:meth:`~sklearn_rank.stats.ComparisonResult.to_csv` for CSV).
"""

import numpy as np

from ._common import (
    USAGE,
    CLIError,
    Progress,
    add_convention_option,
    add_data_option,
    add_generated_data_options,
    add_quiet_option,
    check_distinct,
    check_enough_queries,
    check_output_path,
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
    write_text,
)
from ._models import MODELS, boosters_quiet, default_models, describe, fit_errors

NAME = "cv"
SUMMARY = "cross-validated comparison of rankers: means, confidence intervals, paired tests"
DESCRIPTION = """\
Cross-validate several models on the same folds of whole queries, then compare their
per-query test metrics: the mean of each with its bootstrap confidence interval, and a paired
t-test of every model against the baseline, Holm-corrected over the models.

Models (--models):
{models}

Without --data, the models are compared on generated LETOR-like data (make_ranking).
"""
EPILOG = """\
examples:
  sklearn-rank cv
  sklearn-rank cv --data train.txt --models lambdarank xgboost --metrics ndcg@10 map
  sklearn-rank cv --n-queries 200 --n-splits 3 --plot cv.png --output results.md
"""
DEFAULT_METRICS = ("ndcg@10", "err@10", "map")
# --output suffix -> format of the results table
_TABLE_SUFFIXES = {".txt": "text", ".md": "markdown", ".tex": "latex", ".csv": "csv"}


def description():
    lines = [f"  {m.name:<11} {m.estimator}: {m.summary}"
             + (f' (needs pip install "sklearn-rank[{m.extra}]")' if m.extra else "")
             for m in MODELS.values()]
    return DESCRIPTION.format(models="\n".join(lines))


def add_arguments(parser):
    add_data_option(parser)
    add_generated_data_options(
        parser, n_queries=500,
        seeded="the generated data, the folds, the models and the bootstrap")
    parser.add_argument(
        "--models", nargs="+", choices=list(MODELS), metavar="MODEL",
        help=f"models to compare, among {', '.join(MODELS)} (default: all whose library is "
        "installed, xgboost only when XGBoost is)")
    parser.add_argument("--baseline", metavar="MODEL",
                        help="the model the others are tested against (default: the first)")
    parser.add_argument("--metrics", nargs="+", type=metric_name,
                        default=list(DEFAULT_METRICS), metavar="METRIC",
                        help="metric names (default: " + " ".join(DEFAULT_METRICS) + ")")
    add_convention_option(parser, "the metrics")
    parser.add_argument("--n-splits", type=int_at_least(2), default=5, metavar="K",
                        help="number of folds (default: 5)")
    parser.add_argument("--n-estimators", type=int_at_least(1), default=100, metavar="N",
                        help="trees of every model (default: 100)")
    parser.add_argument("--n-jobs", type=int_at_least(1), default=1, metavar="N",
                        help="folds fitted in parallel processes; every model uses one "
                        "thread (default: 1)")
    parser.add_argument("--format", choices=("text", "markdown", "latex"), default="text",
                        help="format of the results table on stdout (default: text)")
    parser.add_argument("--output", metavar="FILE",
                        help="also write the results table, as "
                        f"{'/'.join(_TABLE_SUFFIXES)} says: text, Markdown, LaTeX or CSV")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="also draw the metric at k of every model and the per-query "
                        "differences of the best one with the baseline (needs matplotlib)")
    add_quiet_option(parser)


def run(args, demo=False):
    """Run ``sklearn-rank cv``; returns the exit code."""
    metrics = check_distinct(args.metrics, "--metrics")
    left_out = []
    if args.models is None:
        names, left_out = default_models()
    else:
        names = check_distinct(args.models, "--models")
    baseline = names[0] if args.baseline is None else args.baseline
    if baseline not in names:
        raise usage_error(f"--baseline {baseline!r} is not one of the models compared "
                          f"({' '.join(names)}); add it to --models.")
    if len(names) < 2:
        raise usage_error(f"--models names {len(names)} model; a comparison needs at least 2.")
    output_format = None
    inputs = letor_inputs(args.data or [])
    if args.output is not None:
        suffix = check_output_path(args.output, "--output", tuple(_TABLE_SUFFIXES), inputs)
        output_format = _TABLE_SUFFIXES[suffix]
    if args.plot is not None:
        check_output_path(args.plot, "--plot", figure_suffixes(), inputs)
        import_extra("matplotlib", "plot", "--plot")
    models = {name: MODELS[name].make(args.n_estimators, args.seed, "--models")
              for name in names}
    data = (load_letor(args.data, "--data")
            if args.data is not None else generated_data(args.n_queries, args.seed))
    check_enough_queries(data, args.n_splits)
    scales = {m: options for m in metrics
              if (options := grade_scale_options(m, args.convention, data.y))}

    text = args.format == "text"
    if demo:
        print(_demo_header(names, args), end="\n\n")
    if text:
        print(_header(data, names, baseline, left_out, args, scales))
        print(flush=True)

    folds = _cross_validate(models, data, metrics, args, scales)
    result = _compare(folds, metrics, baseline, args.seed)
    print(_RENDERERS[args.format](result))
    if text:
        times = ", ".join(f"{name} {np.mean(folds[name]['fit_time']):.2f} s" for name in names)
        print(f"\nMean fit time per fold: {times}.")
    if args.output is not None:
        write_text(args.output, _RENDERERS[output_format](result), "--output")
    if args.plot is not None:
        _plot(folds, data, metrics, baseline, result, args, scales)
    return 0


def _demo_header(names, args):
    text = (
        "sklearn-rank without a subcommand runs this demonstration, 'sklearn-rank cv': "
        f"a {args.n_splits}-fold cross-validated comparison of "
        f"{' and '.join(names[1:])} with {names[0]} on generated learning-to-rank data, "
        "with bootstrap confidence intervals and paired tests. 'sklearn-rank --help' lists "
        "the subcommands (evaluate, cv, tune)."
    )
    return wrap([text]).replace("\n  ", "\n")  # a paragraph: no hanging indent


def _header(data, names, baseline, left_out, args, scales):
    models = "; ".join(describe(name) + (" (the baseline)" if name == baseline else "")
                       for name in names)
    lines = [
        f"Data: {data.description}.",
        f"Models: {models}; {args.n_estimators} trees each.",
        (f"Folds: QueryKFold(n_splits={args.n_splits}, shuffle=True, "
         f"random_state={args.seed}), every query whole in one test fold."),
    ]
    if scales:
        lines.append(describe_grade_scales(scales))
    lines += [f'{m.name} left out: {m.library} is not installed (pip install '
              f'"sklearn-rank[{m.extra}]").' for m in left_out]
    return wrap(lines)


# ----------------------------------------------------------------------------------------
# Cross-validation


def _cross_validate(models, data, metrics, args, scales):
    """Per model: the per-query values of all folds, fit times, out-of-fold scores."""
    from ..model_selection import QueryKFold, cross_validate
    from ._scoring import QuietScorer

    cv = QueryKFold(args.n_splits, shuffle=True, random_state=args.seed)
    try:
        scoring = {m: QuietScorer(m, scales.get(m, {}), "auto", "qid", args.convention)
                   for m in metrics}
    except ValueError as exc:
        raise CLIError(f"--metrics: {exc}", USAGE) from None
    predict = args.plot is not None
    progress = Progress(len(models) * args.n_splits, "cross-validation",
                        enabled=not args.quiet)
    folds = {}
    try:
        for name, estimator in models.items():
            done = iter(range(1, args.n_splits + 1))

            def advance(name=name, done=done):
                progress.advance(f"{name}, fold {next(done)}/{args.n_splits}")

            with boosters_quiet():
                result = cross_validate(
                    estimator, data.X, data.y, qid=data.qid, scoring=scoring, cv=cv,
                    n_jobs=args.n_jobs, return_per_query=True, return_predictions=predict,
                    callback=advance)
            folds[name] = {"per_query": result["per_query"],
                           "fit_time": [float(t) for t in result["fit_time"]],
                           "scores": result.get("predictions")}
    except fit_errors(models) as exc:  # e.g. grades LightGBM refuses
        raise CLIError(f"cross-validation failed: {exc}") from None
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metrics: cannot compute the metrics: {exc}", USAGE) from None
    finally:
        progress.close()
    return folds


def _compare(folds, metrics, baseline, seed):
    from ..stats import compare

    systems = {name: fold["per_query"] for name, fold in folds.items()}
    try:
        return compare(systems, metric=metrics, baseline=baseline, random_state=seed)
    except ValueError as exc:
        raise CLIError(f"cannot compare the models: {exc}") from None


# format -> the results table in that format
_RENDERERS = {
    "text": lambda result: result.to_string(),
    "markdown": lambda result: result.to_markdown(),
    "latex": lambda result: result.to_latex(),
    "csv": lambda result: result.to_csv(index_label="model"),
}


def _curve_metric(metrics):
    """The first metric with a cut-off, drawn against k (nDCG when none has one)."""
    from ..metrics import parse_metric

    for name in metrics:
        entry, _ = parse_metric(name)
        if "k" in entry.options:
            return entry.name
    return "ndcg"


def _plot(folds, data, metrics, baseline, result, args, scales):
    """Left: the metric at k of every model. Right: the best model minus the baseline."""
    from ..plot import MetricAtKDisplay, PerQueryDifferenceDisplay

    figure, (left, right) = new_figure("--plot", ncols=2)
    options = {} if args.convention is None else {"convention": args.convention}
    curve = _curve_metric(metrics)
    options.update(grade_scale_options(curve, args.convention, data.y))
    for name, fold in folds.items():
        MetricAtKDisplay.from_predictions(data.y, fold["scores"], qid=data.qid,
                                          metric=curve, ks=range(1, 21),
                                          name=name, ax=left, **options)
    left.set_title(f"Out-of-fold predictions, {args.n_splits}-fold cross-validation")
    first = metrics[0]
    others = [s for s in result.systems if s != baseline]
    best = max(others, key=lambda s: result.estimates[first][s].mean)
    PerQueryDifferenceDisplay.from_cv_results(
        folds[best]["per_query"], folds[baseline]["per_query"], metric=first,
        names=(best, baseline), ax=right, random_state=args.seed)
    save_figure(figure, args.plot, "--plot")
