"""``sklearn-rank cv``: cross-validated comparison of rankers, with intervals and tests.

A shell over :func:`sklearn_rank.benchmark.run_benchmark`: every model (built by its
``--model``/``--set`` options under each seed) is fitted on the same folds of whole queries
of every data set (``--dataset``), under every seed (``--repeats``), and with ``--test``
refitted on all the data and scored on the held-out test set. This module reads the
options, checks the inputs and outputs, prints the header and passes the progress line,
the ``--store`` recorder and its provenance; the tables are the result's
(:meth:`~sklearn_rank.benchmark.BenchmarkResult.tables`).
"""

import functools

import numpy as np

from .. import __version__
from ..benchmark import library_versions
from ._axes import add_axis_options, named_datasets, seeds_of
from ._common import (
    USAGE,
    CLIError,
    Progress,
    add_benchmark_data_options,
    add_convention_option,
    add_quiet_option,
    check_distinct,
    check_distinct_outputs,
    check_enough_queries,
    check_grades,
    check_output_path,
    check_test_apart,
    checked_metric_keys,
    describe_grade_scales,
    describe_metrics,
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
    write_json,
    write_text,
)
from ._config import add_config_option, choice, integer, load_config, metrics, path, seed, text
from ._models import (
    MODELS,
    add_model_options,
    check_labels,
    check_rankable,
    default_models,
    dense_models,
    fit_errors,
    kind_note,
    model_choices,
    note_passed_on,
)
from ._store import add_store_options, check_store_options, store_files

NAME = "cv"
SUMMARY = "cross-validated comparison of rankers: means, confidence intervals, paired tests"
DESCRIPTION = """\
Cross-validate several models on the same folds of whole queries, then compare their
per-query test metrics: the mean of each with its bootstrap confidence interval, and a paired
t-test of every model against the baseline, Holm-corrected over the models. With --test, the
same comparison of the models refitted on all the training data, on a held-out test set.

Models (--model NAME, repeated, each followed by its --set options):
{models}
  MODULE:CLASS  a scikit-learn estimator class, imported (the current folder first)

Without --data, the models are compared on generated LETOR-like data (make_ranking).
Several files after one --data are pooled into one data set; --dataset NAME=SOURCE, repeated,
compares the models on each data set on its own. --repeats N (or --seeds) repeats the split
with N seeds: each query's value is averaged over the seeds, and the spread over seeds shown.
"""
EPILOG = """\
examples:
  sklearn-rank cv
  sklearn-rank cv --data train.txt --models lambdarank xgboost --metrics ndcg@10 map
  sklearn-rank cv --data mslr-web10k:1 --test mslr-web10k:1:test --model pointwise \\
      --model lightgbm --set num_leaves=31 --model xgboost --set max_depth=6
  sklearn-rank cv --model small=lightgbm --set num_leaves=7 --model large=lightgbm \\
      --set num_leaves=63 --output results.json --per-query-output per_query.csv
  sklearn-rank cv --config benchmark.toml --n-jobs 4
  sklearn-rank cv --dataset web10k=mslr-web10k:1 --dataset yahoo=set1.train.txt \\
      --repeats 3 --store results.sqlite
"""
DEFAULT_METRICS = ("ndcg@10", "err@10", "map")
# The options' defaults, applied after the configuration file (options given are None).
DEFAULTS = {"n_queries": 500, "seed": 0, "metrics": list(DEFAULT_METRICS), "n_splits": 5,
            "n_estimators": 100, "n_jobs": 1, "format": "text"}
# --output suffix -> format of the results table
_TABLE_SUFFIXES = {".txt": "text", ".md": "markdown", ".tex": "latex", ".csv": "csv",
                   ".json": "json"}
_FORMATS = ("text", "markdown", "latex")
# The keys of a configuration file besides data, splitter and models -> reader.
CONFIG_KEYS = {
    "seed": seed(), "n_queries": integer(2), "n_estimators": integer(1),
    "n_jobs": integer(1), "convention": text(), "metrics": metrics(), "baseline": text(),
    "format": choice(_FORMATS), "output": path(), "per_query_output": path(),
    "plot": path(),
    "store": path(),
}


def description():
    lines = [f"  {m.name:<12} {m.estimator}: {m.summary}"
             + (f' (needs pip install "sklearn-rank[{m.extra}]")' if m.extra else "")
             for m in MODELS.values()]
    return DESCRIPTION.format(models="\n".join(lines))


def add_arguments(parser):
    add_config_option(parser, "cv")
    add_benchmark_data_options(
        parser, DEFAULTS, seeded="the generated data, the folds, the models and the bootstrap")
    models = parser.add_argument_group("models")
    add_model_options(models, several=True)
    models.add_argument(
        "--models", nargs="+", choices=list(MODELS), metavar="MODEL",
        help=f"several built-in models at once, among {', '.join(MODELS)} (default: "
        "pointwise, lambdarank and xgboost when XGBoost is installed); --set options after "
        "it apply to all of them")
    models.add_argument("--baseline", metavar="LABEL",
                        help="the model the others are tested against (default: the first)")
    models.add_argument("--n-estimators", type=int_at_least(1), metavar="N",
                        help="trees of every built-in model, unless --set sets them "
                        f"(default: {DEFAULTS['n_estimators']})")
    evaluation = parser.add_argument_group("evaluation")
    evaluation.add_argument("--metrics", nargs="+", type=metric_name, metavar="METRIC",
                            help="metric names (default: " + " ".join(DEFAULT_METRICS) + ")")
    add_convention_option(evaluation, "the metrics")
    evaluation.add_argument("--n-splits", type=int_at_least(2), metavar="K",
                            help=f"number of folds (default: {DEFAULTS['n_splits']})")
    evaluation.add_argument("--n-jobs", type=int_at_least(1), metavar="N",
                            help="units of work (a model on a fold) run in parallel "
                            "processes; every model uses one thread (default: 1)")
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=_FORMATS,
                        help="format of the results table on stdout (default: text)")
    output.add_argument("--output", metavar="FILE",
                        help="also write the results, as the suffix says: .txt, .md, .tex or "
                        ".csv tables with a header of provenance, or .json")
    output.add_argument("--per-query-output", metavar="FILE.csv",
                        help="also write the per-query values: one row per model, split (cv "
                        "or test), fold and query, one column per metric")
    output.add_argument("--plot", metavar="FILE.png",
                        help="also draw the metric at k of every model and the per-query "
                        "differences of the best one with the baseline (needs matplotlib)")
    add_quiet_option(output)
    add_store_options(parser)
    add_axis_options(parser)


def run(args, demo=()):
    """Run ``sklearn-rank cv``; returns the exit code. ``demo``: the names of the
    subcommands, when run as the demonstration of ``sklearn-rank`` without one."""
    config_models, config_inputs = load_config(args, "cv", CONFIG_KEYS, DEFAULTS)
    metrics_given = check_distinct(args.metrics, "--metrics")
    if args.models is not None and args.model:
        raise usage_error("give the models with --model (repeated) or --models, not both.")
    left_out = []
    names = args.models
    if names is None and not args.model and not config_models:
        names, left_out = default_models()
    elif names is not None:
        names = check_distinct(names, "--models")
    choices = check_labels(model_choices(args, config_models, names))
    labels = [c.label for c in choices]
    baseline = labels[0] if args.baseline is None else args.baseline
    if baseline not in labels:
        raise usage_error(f"--baseline {baseline!r} is not one of the models compared "
                          f"({' '.join(labels)}); add it with --model.")
    if len(choices) < 2:
        raise usage_error(f"--model names {len(choices)} model; a comparison needs at least 2.")
    named = named_datasets(args)
    seeds = seeds_of(args)
    several = named is not None or seeds[0][0] is not None
    if args.test is not None and args.data is None:
        raise usage_error("--test needs --data: the models are refitted on all of --data "
                          "and scored on --test.")
    if several:
        _check_several(args)
    check_test_apart(args.data, args.test)
    named_inputs = [i for name, sources in (named or {}).items()
                    for i in source_inputs(sources, f"--dataset {name}")]
    output_format = _check_outputs(args, [*config_inputs, *named_inputs])
    check_store_options(args, [*source_inputs(args.data, "--data"),
                               *source_inputs(args.test, "--test"), *named_inputs,
                               *config_inputs])
    estimators = {c.label: c.build(args.n_estimators, args.seed) for c in choices}

    note = note_printer(getattr(args, "prog", "sklearn-rank cv"))
    datasets, test = load_run_datasets(args, named, note=note)
    data = next(iter(datasets.values()))
    for name, each in datasets.items():
        check_enough_queries(each, args.n_splits)
        check_grades(each, "--data" if name is None else f"--dataset {name}")
    check_grades(test, "--test")
    for each in datasets.values():
        check_rankable(choices, estimators, each)
    dense = dense_models(choices, estimators,
                         [("--data" if name is None else f"--dataset {name}", each)
                          for name, each in datasets.items()] + [("--test", test)], note)
    for c in choices:
        if (why := kind_note(c, estimators[c.label])) is not None:
            note(why)
        fitted_on = data.densified() if c.label in dense else data
        note_passed_on(c, estimators[c.label], args.n_estimators, args.seed, fitted_on, note)
    grades = np.concatenate([each.y for each in datasets.values()]
                            + ([] if test is None else [test.y]))
    scales = {m: options for m in metrics_given
              if (options := grade_scale_options(m, args.convention, grades))}
    keys = checked_metric_keys(metrics_given, args.convention, scales, "--metrics")
    if None not in datasets:  # each data set on its own grade scale, as a run of it alone
        scales = {name: {m: options for m in metrics_given
                         if (options := grade_scale_options(m, args.convention, each.y))}
                  for name, each in datasets.items()}
        keys = {name: checked_metric_keys(metrics_given, args.convention, scales[name],
                                          "--metrics")
                for name in datasets}
    provenance = _provenance(args, choices, baseline)

    text = args.format == "text"
    if demo:
        print(_demo_header(labels, args, demo), end="\n\n")
    header = _header(data, test, choices, baseline, left_out, args, scales, keys, datasets,
                     seeds)
    if text:
        print(header)
        print(flush=True)

    with tied_scores_in_row_order(args.convention):
        result = _run_benchmark(choices, datasets, test, metrics_given, args, provenance)
    try:
        tables = result.tables(baseline=baseline)
    except ValueError as exc:
        raise CLIError(f"cannot compare the models: {exc}") from None
    print(tables.render(args.format, split="cv"))
    if text:
        times = ", ".join(f"{label} {np.mean([t for each in result.folds.values() for t in each[label]['fit_time']]):.2f} s"  # noqa: E501
                          for label in labels)
        print(f"\nMean fit time per fold: {times}.")
    if tables.held_out is not None:
        print("\n" + tables.render(args.format, split="test"))
    if output_format == "json":
        write_json(args.output, {"metadata": result.provenance, **tables.to_dict()}, "--output")
    elif output_format is not None:
        write_text(args.output, tables.to_csv() if output_format == "csv"
                   else tables.render(output_format, header=header), "--output")
    if args.per_query_output is not None:
        write_text(args.per_query_output, result.per_query_csv(), "--per-query-output")
    if args.plot is not None:
        with literal_text():
            figure, axes = new_figure("--plot", ncols=2)
            tables.plot(data, axes)
            save_figure(figure, args.plot, "--plot")
    return 0


def _check_several(args):
    """The outputs a run of several data sets or seeds does not write (yet): refused before
    the work, with what to use instead."""
    for option, value in (("--test", args.test), ("--plot", args.plot)):
        if value is not None:
            raise usage_error(f"{option} goes with one data set and one seed; this run has "
                              "--dataset or --repeats/--seeds. Run it on its own data set.")
    if args.output is not None and args.output.lower().endswith(".csv"):
        raise usage_error("--output: a run of several data sets or seeds writes .txt, .md, "
                          ".tex or .json tables, not .csv; --per-query-output writes every "
                          "value as CSV.")


def _check_outputs(args, config_inputs):
    """Check every output before the work; returns the format of ``--output``."""
    inputs = [*source_inputs(args.data, "--data"), *source_inputs(args.test, "--test"),
              *config_inputs]
    output_format = None
    if args.output is not None:
        suffix = check_output_path(args.output, "--output", tuple(_TABLE_SUFFIXES), inputs)
        output_format = _TABLE_SUFFIXES[suffix]
    if args.per_query_output is not None:
        check_output_path(args.per_query_output, "--per-query-output", (".csv",), inputs)
    if args.plot is not None:
        check_output_path(args.plot, "--plot", figure_suffixes(), inputs)
        import_extra("matplotlib", "plot", "--plot")
    check_distinct_outputs([*store_files(getattr(args, "store", None)),
                            ("--output", args.output),
                            ("--per-query-output", args.per_query_output),
                            ("--plot", args.plot)])
    return output_format


def _provenance(args, choices, baseline):
    """What the command records of its run beside what
    :func:`~sklearn_rank.benchmark.run_benchmark` records (the data sets, metric keys,
    splitter and seeds): the command, the models as specified, the baseline, the trees and
    the library versions, taken before the work, as the command always took them."""
    return {"command": "sklearn-rank cv",
            "models": {c.label: c.provenance() for c in choices}, "baseline": baseline,
            "n_estimators": args.n_estimators, "versions": library_versions()}


def _demo_header(labels, args, subcommands):
    text = (
        "sklearn-rank without a subcommand runs this demonstration, 'sklearn-rank cv': "
        f"a {args.n_splits}-fold cross-validated comparison of "
        f"{' and '.join(labels[1:])} with {labels[0]} on generated learning-to-rank data, "
        "with bootstrap confidence intervals and paired tests. 'sklearn-rank --help' lists "
        f"the subcommands ({', '.join(subcommands)})."
    )
    return wrap([text]).replace("\n  ", "\n")  # a paragraph: no hanging indent


def _header(data, test, choices, baseline, left_out, args, scales, keys, datasets, seeds):
    models = "; ".join(c.describe() + (" (the baseline)" if c.label == baseline else "")
                       for c in choices)
    # the built-in models whose trees are --n-estimators, not a --set of their own
    default_trees = [c.label for c in choices if not c.user_class and not any(
        name in c.params for group in (c.model.aliases or ((c.model.trees,),))
        if c.model.trees in group for name in group)]
    trees = ("" if not default_trees else f"; {args.n_estimators} trees each"
             if len(default_trees) == len(choices)
             else f"; {args.n_estimators} trees for {', '.join(default_trees)}")
    if None in datasets:
        lines = [f"Data: {data.description}."]
        if args.data is not None and len(args.data) > 1:
            lines.append(f"The {len(args.data)} files of --data are pooled into one data set "
                         "(--dataset NAME=SOURCE, repeated, compares on each on its own).")
    else:
        lines = [f"Data sets ({len(datasets)}, each compared on its own): "
                 + "; ".join(f"{name} = {each.description}" for name, each in datasets.items())
                 + "."]
    if test is not None:
        lines.append(f"Held-out test set: {test.description}; each model refitted on all of "
                     "the data.")
    lines += [
        f"Models: {models}{trees}.",
        (f"Folds: QueryKFold(n_splits={args.n_splits}, shuffle=True, "
         f"random_state={args.seed}), every query whole in one test fold."
         if seeds[0][0] is None else
         f"Folds: QueryKFold(n_splits={args.n_splits}, shuffle=True), repeated with the "
         f"seeds {', '.join(str(seed) for seed, _ in seeds)} (of the split and the models), "
         "every query whole in one test fold of each repeat; the tables average each "
         "query's value over the repeats."),
    ]
    if None not in datasets:
        if any(scales.values()):
            lines.append("Grade scale of each data set (its largest grade, shared by its folds "
                         "and seeds): " + "; ".join(
                             f"{name}: " + ", ".join(f"{m} with max_grade={o['max_grade']}"
                                                     for m, o in scales[name].items())
                             for name in datasets if scales[name]) + ".")
        keys = next(iter(keys.values()))
    elif scales:
        lines.append(describe_grade_scales(scales))
    lines.append(describe_metrics(keys, args.convention))
    # the fingerprint of every data set, not of the first
    lines.append(f"sklearn-rank {__version__}, seed {args.seed}, data " + ", ".join(
        ("" if name is None else f"{name} ") + f"sha256:{each.fingerprint()[:12]}"
        for name, each in datasets.items()) + ".")
    lines += [f'{m.name} left out: {m.library} is not installed (pip install '
              f'"sklearn-rank[{m.extra}]").' for m in left_out]
    return wrap(lines)


# ----------------------------------------------------------------------------------------
# The run: sklearn_rank.benchmark.run_benchmark, with the command's store, progress and
# provenance


def _run_benchmark(choices, datasets, test, metrics, args, provenance):
    """:func:`sklearn_rank.benchmark.run_benchmark` of the models (each built by its
    :meth:`ModelChoice.build` under each seed) on the data sets, with ``--store``'s
    recorder, the progress line and the command's ``provenance``; its errors as the
    command's.

    Returns
    -------
    result : BenchmarkResult
    """
    from ..benchmark import run_benchmark
    from ._scoring import CommandRecorder

    try:
        return run_benchmark(
            {c.label: functools.partial(c.build, args.n_estimators) for c in choices},
            datasets.get(None, datasets), metrics=metrics,
            convention=args.convention, n_splits=args.n_splits, random_state=args.seed,
            n_repeats=getattr(args, "repeats", None), seeds=getattr(args, "seeds", None),
            test=test, store=CommandRecorder(args), n_jobs=args.n_jobs,
            return_predictions=args.plot is not None,
            progress=functools.partial(Progress, enabled=not args.quiet),
            provenance=provenance, check_models=False, quiet=True)
    except CLIError:  # the results store's, not the models'
        raise
    except fit_errors([c.spec for c in choices]) as exc:  # e.g. grades LightGBM refuses
        raise CLIError(f"cross-validation failed: {_error_text(exc, choices)}") from None
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metrics: cannot compute the metrics: {exc}", USAGE) from None


def _error_text(exc, choices):
    if any(c.user_class for c in choices) and not isinstance(exc, (ValueError, TypeError)):
        return f"{type(exc).__name__}: {exc}"
    return str(exc)
