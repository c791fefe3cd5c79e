"""What the subcommands share: errors, argument types, data loading, tables and progress.

Only the standard library and numpy are imported at module level, so that
``sklearn-rank --help`` does not wait for LightGBM, XGBoost, matplotlib or pandas.
"""

import argparse
import contextlib
import csv
import difflib
import io
import math
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from ..benchmark import ProgressLine as Progress  # noqa: F401 (cv's and tune's progress)
from ..utils._figures import figure_label, literal_text  # noqa: F401 (the CLI's figures)
from ..utils._paths import same_file
from ..utils._paths import write_atomic as _write_atomic
from ..utils._text import format_table, json_safe, to_json  # noqa: F401 (tables, JSON)
from ..utils._text import wrap as wrap_text

#: Exit code of a usage error (a bad option), as argparse has it.
USAGE = 2
#: Exit code of a data error (a missing or unreadable file, data a command cannot use).
DATA = 1


class CLIError(Exception):
    """A user error: printed as one line ``sklearn-rank <cmd>: error: ...``, no traceback.

    Parameters
    ----------
    message : str
        What went wrong: the file or option, what was expected and what was got.
    code : int, default=1
        The exit code: 1 for data errors, 2 for usage errors.
    prog : str, default=None
        The command that failed, e.g. ``"sklearn-rank cv"``; None lets ``main`` fill it.
    """

    def __init__(self, message, code=DATA, prog=None):
        super().__init__(message)
        self.code = code
        self.prog = prog


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors raised as :class:`CLIError`, not printed and exited.

    ``main`` prints them, so that a usage error looks like every other error and
    ``main(argv)`` returns its exit code instead of raising ``SystemExit``.
    """

    def error(self, message):
        raise CLIError(f"{message} (see '{self.prog} --help')", USAGE, self.prog)


def usage_error(message):
    """A :class:`CLIError` with argparse's exit code for usage errors."""
    return CLIError(message, USAGE)


# ----------------------------------------------------------------------------------------
# Argument types: they raise ArgumentTypeError, which argparse reports with the option name.


#: The largest seed: numpy's (and so scikit-learn's) seeds are 32-bit integers.
MAX_SEED = 2**32 - 1
_SEED_WHY = " (numpy's seeds are 32-bit integers)"


def shorten(text, limit=60):
    """``text``, cut to ``limit`` characters with the number left out said: a value quoted
    in a message (a 5,000-digit number) keeps the message one readable line."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit - 20]}... ({len(text):,} characters)"


def int_at_least(minimum, maximum=None, why=""):
    """An argparse type: an int of at least ``minimum`` (and at most ``maximum``; ``why``
    says why, in the message)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an integer, got {shorten(text)!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(
                f"must be at most {maximum}{why}, got {shorten(value)}")
        return value

    parse.__name__ = "int"  # argparse names the type in some messages
    return parse


def metric_name(text):
    """An argparse type: a metric name of the registry (``ndcg@10``, ``map``...)."""
    from ..metrics import parse_metric

    try:
        parse_metric(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def check_distinct(values, option):
    """Refuse a list option that names the same thing twice."""
    seen = set()
    for value in values:
        if value.lower() in seen:
            raise usage_error(f"{option} names {value!r} twice.")
        seen.add(value.lower())
    return list(values)


def add_convention_option(parser, what):
    """``--convention``: a preset of :data:`sklearn_rank.metrics.CONVENTIONS`."""
    from ..metrics import CONVENTION_NAMES  # numpy only: keeps --help fast

    parser.add_argument(
        "--convention", choices=CONVENTION_NAMES, metavar="NAME",
        help=f"preset of metric conventions for {what}, to reproduce another system: "
        f"{', '.join(CONVENTION_NAMES)} (default: sklearn-rank's own: exponential gain, "
        "averaged ties, a query without relevant documents scores 0)",
    )


def add_generated_data_options(parser, n_queries, seeded="the generated data"):
    """``--n-queries`` and ``--seed``: the generated data used when no file is given."""
    parser.add_argument(
        "--n-queries", type=int_at_least(2), default=n_queries, metavar="N",
        help=f"number of queries of the generated data used when no file is given "
        f"(default: {n_queries})",
    )
    parser.add_argument(
        "--seed", type=int_at_least(0, MAX_SEED, _SEED_WHY), default=0, metavar="SEED",
        help=f"random seed of {seeded} (default: 0)",
    )


def grade_scale_options(metric, convention, y):
    """``{"max_grade": ...}`` for a metric that needs a grade scale the name does not fix:
    :func:`sklearn_rank.model_selection.grade_scale`, the largest grade of the whole data
    set, so that every fold of a cross-validation is scored on the same scale (the names are
    not validated here: :func:`metric_keys` reports their errors)."""
    from ..model_selection import grade_scale

    return grade_scale(metric, y, convention=convention)


def describe_grade_scales(scales):
    """One sentence on the max_grade given to metrics, or an empty string."""
    if not scales:
        return ""
    names = ", ".join(scales)
    value = next(iter(scales.values()))["max_grade"]
    return (f"Grade scale: {names} with max_grade={value}, the largest grade of the data, "
            "so that every fold is scored on the same scale.")


def add_quiet_option(parser):
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress display on stderr")


# ----------------------------------------------------------------------------------------
# Data


def generated_data(n_queries, seed):
    """:func:`~sklearn_rank.datasets.make_ranking` data."""
    from ..datasets import RankingDataset

    return RankingDataset.from_make_ranking(n_queries, random_state=seed)


def check_input_file(path, option):
    """The path of an input file (:func:`sklearn_rank.datasets.check_file`), or a
    :class:`CLIError` that names the option."""
    from ..datasets import DataSourceError, check_file

    try:
        return check_file(path)
    except DataSourceError as exc:
        raise data_error(exc, option) from None


def _check_data(data, option, **checks):
    """:func:`sklearn_rank.datasets.check_ranking_data`, its error naming ``option``."""
    from ..datasets import DataSourceError, check_ranking_data

    try:
        check_ranking_data(data, **checks)
    except DataSourceError as exc:
        raise data_error(exc, option) from None


def check_enough_queries(data, n_splits):
    """Each fold needs at least one test query."""
    _check_data(data, "--data", n_splits=n_splits, grades=False)


def check_grades(data, option):
    """Refuse negative grades before the work, naming ``option`` and the row.

    The metrics refuse them too, but at the first fold, in their own words (``judged=``,
    which the command has no option for) and with a row number of that fold.
    """
    if data is not None:
        _check_data(data, option)


def check_output_path(path, option, suffixes, inputs=()):
    """Check an output file before a long computation; returns its lower-case suffix.

    The suffix must be known (it selects the format), the folder must exist, and the file
    must be none of the ``inputs`` (pairs ``(option, path)``), compared after resolving
    symlinks and relative paths, hard links included: results never replace the data they
    come from.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        known = ", ".join(suffixes)
        raise usage_error(
            f"{option} {str(path)!r}: unknown file type {suffix or '(no suffix)'!r}; "
            f"expected one of {known}."
        )
    for other_option, other in inputs:
        if other is not None and same_file(path, other):
            raise usage_error(
                f"{option} {str(path)!r} is the input file of {other_option} ({str(other)!r}); "
                "writing there would replace the data with the results. Choose another "
                "output file."
            )
    folder = path.parent
    if not folder.is_dir():
        raise CLIError(f"{option} {str(path)!r}: the folder {str(folder)!r} does not exist.")
    if path.is_dir():
        raise CLIError(f"{option} {str(path)!r} is a directory; expected a file name.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"{option} {str(path)!r}: permission denied; the folder "
                       f"{str(folder)!r} is not writable.")
    return suffix


def write_atomic(path, write, option):
    """Write a file whole or not at all (:func:`sklearn_rank.utils._paths.write_atomic`: a
    temporary file renamed into place), an error of the file system a :class:`CLIError`
    naming ``option``.

    Parameters
    ----------
    path : str or path-like
        The file to write.
    write : callable
        ``write(temporary_path)`` writes the whole content to the temporary path.
    option : str
        The option that named the file, for messages.
    """
    try:
        _write_atomic(path, write)
    except OSError as exc:
        raise CLIError(f"{option} {str(path)!r}: cannot write: {exc.strerror}.") from None


def write_text(path, text, option):
    """Write ``text`` (UTF-8, ending with a newline) to ``path`` with :func:`write_atomic`."""
    text = text if text.endswith("\n") else text + "\n"
    write_atomic(path, lambda temporary: Path(temporary).write_text(text, encoding="utf-8"),
                 option)


def import_extra(module, extra, purpose):
    """Import an optional dependency, or a :class:`CLIError` naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise CLIError(
            f"{purpose} needs the optional dependency {module!r}, which is not installed. "
            f'Install it with: pip install "sklearn-rank[{extra}]"') from None


def close_matches(name, known):
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f" Did you mean {' or '.join(map(repr, close))}?" if close else ""


# ----------------------------------------------------------------------------------------
# Output


def wrap(lines, width=88):
    """Paragraphs of the output, one per line, wrapped with a hanging indent.

    Names such as ``sklearn-rank[xgboost]`` are never split at their hyphens, nor long
    words broken.
    """
    return "\n".join(line for text in lines for line in wrap_text(text, width, indent="  "))


def format_number(value, digits=4):
    """A metric value or parameter for a table: fixed decimals for floats, ints as they are."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def new_figure(option, ncols=1):
    """A matplotlib figure without pyplot's global state: nothing to close, no GUI backend.

    Raises a :class:`CLIError` naming the ``plot`` extra when matplotlib is missing.
    """
    import_extra("matplotlib", "plot", option)
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4 * ncols, 4.8), layout="constrained")
    axes = figure.subplots(1, ncols, squeeze=False)[0]
    return figure, list(axes)


def save_figure(figure, path, option):
    """Save a figure with :func:`write_atomic`, in the format of the file's suffix."""
    image_format = Path(path).suffix.lower().lstrip(".")
    write_atomic(path, lambda temporary: figure.savefig(temporary, dpi=100, format=image_format),
                 option)


def figure_suffixes():
    """The image types matplotlib writes (checked before the work, not after)."""
    return (".png", ".pdf", ".svg", ".jpg", ".jpeg")


# ----------------------------------------------------------------------------------------
# The data of cv and tune: files, tables, the fetchers' data sets, or generated data

#: Keywords of :func:`~sklearn_rank.datasets.make_ranking`, besides ``n_queries`` and
#: ``random_state``, of the data that ``cv`` and ``tune`` generate without ``--data``: the
#: README's demonstration (``sklearn-rank`` alone runs ``cv``) is a comparison on it. The
#: realistic process (nonlinear interactions, query-level shifts; see make_ranking's Notes)
#: is the one on which listwise training beats a pointwise regressor, as on MSLR.
BENCHMARK_GENERATOR = {"realistic": True}

# Files larger than this (bytes) are announced before they are read.
_LARGE = 50_000_000
#: How the command line names the parameters of the data readers of sklearn_rank.datasets.
DATA_FLAGS = {
    "qid_column": "--qid-column", "label_column": "--label-column",
    "feature_columns": "--feature-columns", "ignore_columns": "--ignore-columns",
    "qid_type=int": "--qid-type int", "qid_type=str": "--qid-type str",
    "download_if_missing=False": "--no-download",
    "with download_if_missing=True": "without --no-download", "n_splits": "--n-splits",
}


def benchmark_data(n_queries, seed):
    """The generated data of ``cv`` and ``tune``: :data:`BENCHMARK_GENERATOR`'s
    :func:`~sklearn_rank.datasets.make_ranking`."""
    from ..datasets import RankingDataset

    return RankingDataset.from_make_ranking(n_queries, random_state=seed, **BENCHMARK_GENERATOR)


def add_benchmark_data_options(parser, defaults, seeded):
    """``--data``, ``--test`` and how to read them; ``--n-queries`` and ``--seed``.

    Their defaults are None, so that a configuration file can set them (``defaults`` gives
    the values shown in the help, which the command applies last).
    """
    group = parser.add_argument_group("data")
    group.add_argument(
        "--data", nargs="+", metavar="SOURCE",
        help="the training data: LETOR / SVMlight file(s) ('<grade> qid:<query> "
        "<feature>:<value> ...', or the query sizes in a side file FILE.query; several are "
        "pooled); a .csv, .tsv or .parquet table with a query-id column; or a data set "
        "NAME[:FOLD][:SUBSET] of sklearn_rank.datasets (mslr-web10k:1 is the training file of "
        "fold 1; mslr-web10k:1:test its test file) (default: generated data)")
    group.add_argument(
        "--test", nargs="+", metavar="SOURCE",
        help="a held-out test set, of the same kind as --data: the model(s) refitted on all "
        "of --data are scored on it")
    group.add_argument("--qid-column", metavar="NAME",
                       help="query-id column of a table (default: qid)")
    group.add_argument("--label-column", metavar="NAME",
                       help="relevance-grade column of a table (default: label)")
    group.add_argument("--qid-type", choices=("str", "int"),
                       help="the type of a table's query ids: str keeps them as written (007 "
                       "and 7 are two queries), int reads integers (default: str for CSV and "
                       "TSV, the column's type for Parquet)")
    group.add_argument("--feature-columns", nargs="+", metavar="NAME",
                       help="the feature columns of a table (default: every column but the "
                       "query ids, the grades and --ignore-columns)")
    group.add_argument("--ignore-columns", nargs="+", metavar="NAME",
                       help="columns of a table that are not features (document ids...)")
    group.add_argument("--data-home", metavar="DIR",
                       help="folder of the data sets' downloads and caches (default: "
                       "$SKLEARN_RANK_DATA, or ~/sklearn_rank_data)")
    group.add_argument("--no-download", dest="download", action="store_false", default=None,
                       help="refuse to download a data set that is not in --data-home")
    group.add_argument(
        "--n-queries", type=int_at_least(2), metavar="N",
        help=f"number of queries of the generated data used without --data "
        f"(default: {defaults['n_queries']})")
    parser.add_argument("--seed", type=int_at_least(0, MAX_SEED, _SEED_WHY), metavar="SEED",
                        help=f"random seed of {seeded} (default: 0)")


def source_inputs(sources, option):
    """The ``(option, path)`` pairs of the files of ``--data`` or ``--test`` and of the
    query-size side files they use (:func:`sklearn_rank.datasets.source_files`: data set
    names read no file of the user's)."""
    from ..datasets import DataSourceError, source_files

    inputs = []
    for source in sources or []:
        try:
            files = source_files(source)
        except DataSourceError as exc:  # a data set name with a fold it lacks
            raise data_error(exc, option) from None
        inputs += [(option, source) if what == "data" else (f"{option} (its query sizes)", path)
                   for path, what in files]
    return inputs


def note_printer(prog):
    """``note(message)``: prints ``PROG: note: MESSAGE`` on stderr, at once."""

    def note(message):
        print(f"{prog}: note: {message}", file=sys.stderr, flush=True)

    return note


def data_error(exc, option, flags=DATA_FLAGS):
    """The :class:`CLIError` of an error of :func:`sklearn_rank.datasets.load_source` (or
    :func:`~sklearn_rank.datasets.parse_dataset_name`) called for ``option``.

    The error's attributes say what failed: its ``parameter`` is mapped to the option that
    sets it (``source`` to ``option``, ``qid_column`` to ``--qid-column``...), and its
    ``cause`` to the exit code: a wrong argument is a usage error, unusable data a data
    error. A table's reading errors (:class:`~sklearn_rank.datasets.TableError`) follow the
    option and a colon, as the SVMlight reader's errors do.
    """
    from ..datasets import DataSourceError, NoQueryIdsError, TableError

    if isinstance(exc, NoQueryIdsError):
        return CLIError(
            f"{option} {str(exc.path)!r} has no query ids: its lines need 'qid:<query>' "
            f"fields, or the query sizes must be in the side file {str(exc.side)!r} next to it "
            "(one number of rows per line, for each consecutive query).")
    if isinstance(exc, TableError):
        return CLIError(f"{option}: {exc.describe(flags)}")
    if isinstance(exc, DataSourceError):
        return CLIError(exc.describe({**flags, "source": option}),
                        USAGE if exc.cause == "parameter" else DATA)
    if isinstance(exc, ImportError):  # the message names the extra to install
        return CLIError(str(exc))
    return CLIError(f"{option}: {exc}")  # the reader's message names the file


def dataset_name(text, option="--data"):
    """The :class:`~sklearn_rank.datasets.DatasetName` (``name, fold, subset``) when
    ``text`` names a data set of the fetchers (``mslr-web10k:1``, ``istella-s:test``...),
    else None. Bad folds and subsets are usage errors naming ``option``; an existing file of
    that name is a file."""
    from ..datasets import DataSourceError, parse_dataset_name

    try:
        return parse_dataset_name(text)
    except DataSourceError as exc:
        raise data_error(exc, option) from None


def load_benchmark_data(sources, option, settings, *, note, quiet, min_queries=2, like=None):
    """The :class:`~sklearn_rank.datasets.RankingDataset` of ``--data`` or ``--test``:
    :func:`~sklearn_rank.datasets.load_source`, with errors naming ``option`` and notes of
    what takes time.

    ``sources`` is the list given to the option: SVMlight files (pooled), one table, or one
    data set name. ``settings`` holds the reading options (``qid_column``...,
    ``data_home``, ``download``); ``like`` is the training data, which a test set must
    match (same kind, same feature columns).
    """
    from ..datasets import load_source

    sources = [str(s) for s in sources]
    names = [dataset_name(s, option) for s in sources]
    name = names[0] if len(sources) == 1 else None
    if name is not None and not quiet:
        note(f"loading {sources[0]} ({name.title})...")
    elif not any(names) and all(os.path.isfile(s) for s in sources):
        size = sum(os.path.getsize(s) for s in sources)
        if size > _LARGE and not quiet:  # a load of minutes: say so before
            note(f"loading {' '.join(sources)} ({size / 1e6:,.0f} MB)...")
    with warnings.catch_warnings(record=name is not None) as caught:
        if name is not None:  # the fetchers' warnings, as notes
            warnings.simplefilter("always")
        try:
            data = load_source(
                sources, qid_column=settings.qid_column or "qid",
                label_column=settings.label_column or "label",
                feature_columns=settings.feature_columns,
                ignore_columns=settings.ignore_columns, qid_type=settings.qid_type,
                like=like, min_queries=min_queries, data_home=settings.data_home,
                download_if_missing=settings.download is not False, progress=not quiet)
        except (OSError, ValueError, ImportError) as exc:
            raise _load_error(exc, option, sources[0] if name is not None else None,
                              like) from None
    for warning in caught or ():
        note(str(warning.message))
    return data


def load_run_datasets(args, named, *, note):
    """The data sets a run of ``cv`` or ``tune`` computes on, and its test set.

    Each ``--dataset NAME`` (``named``, as :func:`~._axes.named_datasets` gives them) keyed
    by its name, else ``--data`` (or generated queries, without it) keyed by None; and
    ``--test``'s data set, checked against the first of them, or None.

    Returns
    -------
    datasets : dict
        Name (None for ``--data``) -> :class:`~sklearn_rank.datasets.RankingDataset`.
    test : RankingDataset or None
    """
    if named is not None:
        datasets = {name: load_benchmark_data(sources, f"--dataset {name}", args, note=note,
                                              quiet=args.quiet)
                    for name, sources in named.items()}
    else:
        datasets = {None: load_benchmark_data(args.data, "--data", args, note=note,
                                              quiet=args.quiet)
                    if args.data is not None else benchmark_data(args.n_queries, args.seed)}
    test = (load_benchmark_data(args.test, "--test", args, note=note, quiet=args.quiet,
                                min_queries=1, like=next(iter(datasets.values())))
            if args.test is not None else None)
    return datasets, test


def _load_error(exc, option, name, like):
    """The :class:`CLIError` of an error of ``load_source`` for ``option``; ``name`` is the
    data set name given, if any."""
    from ..datasets import DataSourceError, FetchError, TableError

    if isinstance(exc, FetchError):  # the fetchers' words, in the options' names
        return CLIError(f"{option} {name}: {exc.describe(DATA_FLAGS)}")
    if name is not None and not isinstance(exc, (DataSourceError, ImportError)):
        return CLIError(f"{option} {name}: {exc}")  # a download that failed...
    error = data_error(exc, option)
    if (isinstance(exc, TableError) and like is None and exc.parameter == "feature_columns"
            and exc.location is not None):  # a cell of a feature column: maybe no feature
        return CLIError(f"{error} If {exc.column!r} is not a feature, leave it out with "
                        f"--ignore-columns {exc.column}.")
    return error



# ----------------------------------------------------------------------------------------
# What the outputs of cv and tune record


def write_json(path, data, option):
    """Write ``data`` as strict JSON (:func:`~sklearn_rank.utils._text.to_json`),
    atomically."""
    write_text(path, to_json(data), option)


def metric_keys(metrics, convention, scales):
    """Metric name -> its canonical key (:meth:`~sklearn_rank.metrics.Metric.key`) with
    the grade scale the command gives it and the convention: what the number is, the key
    of its bound metric."""
    from ..metrics import bind_metric

    return {name: bind_metric(name, options=scales.get(name, {}), convention=convention).key
            for name in metrics}


def checked_metric_keys(metrics, convention, scales, option):
    """:func:`metric_keys`, a metric it cannot bind a usage error naming ``option``
    (``--metrics`` or ``--metric``)."""
    try:
        return metric_keys(metrics, convention, scales)
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"{option}: cannot compute the {option[2:]}: {exc}", USAGE) from None
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{option}: {exc}", USAGE) from None


def describe_metrics(keys, convention):
    """The header line of the metrics, their keys and the convention."""
    shown = ", ".join(name if key == name else f"{name} = {key}" for name, key in keys.items())
    preset = (describe_convention(keys, convention) if convention is not None
              else "sklearn-rank's default conventions")
    line = f"Metrics: {shown}; {preset}."
    if convention == "trec_eval":
        line += (" trec_eval ranks tied scores by document name; the data of cv and tune name "
                 "no documents, so tied predictions keep the row order of the data.")
    return line


@contextlib.contextmanager
def tied_scores_in_row_order(convention):
    """The models' scores, under the trec_eval convention, without the library's warning of
    ties in row order: the data of ``cv`` and ``tune`` name no documents (nothing to pass),
    and the header says what the ties are (:func:`describe_metrics`)."""
    with warnings.catch_warnings():
        if convention == "trec_eval":
            from ..metrics import TiedScoresWarning

            warnings.simplefilter("ignore", TiedScoresWarning)
        yield


def describe_convention(metrics, convention):
    """``convention 'NAME'``, and which of ``metrics`` (names as given) the preset leaves at
    sklearn-rank's defaults (:func:`sklearn_rank.metrics.outside_convention`): a preset sets
    the metrics of its system only, and a header that named it over a metric the system
    lacks would claim that system's number."""
    from ..metrics import outside_convention

    outside = outside_convention(metrics, convention)
    text = f"convention {convention!r}"
    if outside:
        which, them = ("is not a measure", "it") if len(outside) == 1 else ("are not measures",
                                                                          "them")
        text += (f" ({', '.join(outside)} {which} of {convention}: the preset leaves {them} at "
                 "sklearn-rank's default conventions)")
    return text


def describe_run(metadata):
    """The header line of the version and the seed."""
    return (f"sklearn-rank {metadata['sklearn_rank_version']}, seed {metadata['seed']}, data "
            f"sha256:{metadata['data']['sha256'][:12]}")


def check_distinct_outputs(outputs):
    """Refuse two output options naming one file: the second would replace the first."""
    given = [(option, path) for option, path in outputs if path is not None]
    for i, (option, path) in enumerate(given):
        for other_option, other in given[:i]:
            if same_file(path, other) or os.path.abspath(path) == os.path.abspath(other):
                raise usage_error(f"{option} {str(path)!r} is also the file of {other_option}; "
                                  "give each output its own file.")


def write_per_query(path, cv, test, metrics, option="--per-query-output"):
    """Write the per-query values as CSV: ``model, split, fold, qid``, then the metrics.

    ``cv`` maps a model's label to its per-query values of the folds (with ``"fold"``),
    ``test`` to those of the held-out test set (split ``test``, no fold). Every value
    with all its digits.
    """

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["model", "split", "fold", "qid", *metrics])
    for split, systems in (("cv", cv), ("test", test)):
        for label, per_query in systems.items():
            columns = [per_query[m].tolist() for m in metrics]
            folds = (per_query["fold"].tolist() if "fold" in per_query
                     else [""] * len(per_query["qid"]))
            for i, (q, f) in enumerate(zip(per_query["qid"].tolist(), folds)):
                writer.writerow([label, split, f, q, *(column[i] for column in columns)])
    write_text(path, buffer.getvalue(), option)


def check_test_apart(data, test):
    """Refuse a ``--test`` that is (part of) ``--data``: its scores would be training
    scores, not held-out ones (:func:`sklearn_rank.datasets.same_queries`)."""
    from ..datasets import DataSourceError, same_queries

    for source in test or []:
        for other in data or []:
            try:
                same = same_queries(source, other)
            except DataSourceError as exc:  # a data set name with a fold it lacks
                raise data_error(exc, "--test" if exc.path == str(source) else "--data"
                                 ) from None
            if same:
                raise usage_error(f"--test {source!r} holds the queries of --data {other!r}; "
                                  "a held-out test set must hold other queries.")
