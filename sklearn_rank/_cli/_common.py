"""What the subcommands share: errors, argument types, data loading, tables and progress.

Only the standard library and numpy are imported at module level, so that
``sklearn-rank --help`` does not wait for LightGBM, XGBoost, matplotlib or pandas.
"""

import argparse
import difflib
import json
import math
import os
import stat
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ..utils._qid import unique_ids  # numpy only: keeps --help fast

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


def int_at_least(minimum):
    """An argparse type: an int of at least ``minimum``."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
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
    from .._conventions import CONVENTION_NAMES  # numpy only: keeps --help fast

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
        "--seed", type=int_at_least(0), default=0, metavar="SEED",
        help=f"random seed of {seeded} (default: 0)",
    )


def add_data_option(parser):
    """``--data FILE [FILE ...]``: LETOR / SVMlight files, pooled."""
    parser.add_argument(
        "--data", nargs="+", metavar="FILE",
        help="LETOR / SVMlight file(s): '<grade> qid:<query> <feature>:<value> ...', or "
        "without qid: fields, the query sizes in a side file FILE.query; several files are "
        "pooled, their queries kept apart")


def grade_scale_options(metric, convention, y):
    """``{"max_grade": ...}`` for a metric that needs a grade scale the name does not fix.

    The largest grade of the whole data set, so that every fold of a cross-validation is
    scored on the same scale: :func:`sklearn_rank.model_selection._validation.grade_scale`,
    the rule ``cross_validate`` applies to metric names.
    """
    from ..model_selection._validation import grade_scale

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


class Dataset:
    """Features, grades and query ids, and where they came from (a path or a generator call)."""

    def __init__(self, X, y, qid, source):
        self.X = X
        self.y = y
        self.qid = qid
        self.source = source

    @property
    def n_queries(self):
        return len(unique_ids(self.qid))

    @property
    def description(self):
        return (f"{self.source}: {self.n_queries:,} queries, {len(self.y):,} documents, "
                f"{self.X.shape[1]} features")


def generated_data(n_queries, seed):
    """:func:`~sklearn_rank.datasets.make_ranking` data."""
    from ..datasets import make_ranking

    X, y, qid = make_ranking(n_queries, random_state=seed)
    return Dataset(X, y, qid, f"make_ranking(n_queries={n_queries}, random_state={seed})")


def check_input_file(path, option):
    """The path of an input file, or a :class:`CLIError` that names the option."""
    if not os.path.exists(path):
        raise CLIError(f"{option} {str(path)!r}: no such file.")
    if os.path.isdir(path):
        raise CLIError(f"{option} {str(path)!r} is a directory; expected a file.")
    if not os.access(path, os.R_OK):
        raise CLIError(f"{option} {str(path)!r}: permission denied; the file cannot be read.")
    return Path(path)


def letor_inputs(paths, option="--data"):
    """The ``(option, path)`` pairs of LETOR files and of the query-size side files they use."""
    from ..datasets._files import default_query_file

    inputs = []
    for path in paths:
        inputs.append((option, path))
        side = default_query_file(path)
        if side.is_file():
            inputs.append((f"{option} (its query sizes)", side))
    return inputs


def load_letor(paths, option="--data", min_queries=2):
    """LETOR / SVMlight files as one :class:`Dataset`, with errors that name the option.

    Several files are pooled: :func:`~sklearn_rank.datasets.load_svmlight_ranking_files`
    gives queries numbered from side files distinct ids across the files, and refuses a
    query id read from ``qid:`` fields of two files, since pooling would merge two queries.
    """
    from ..datasets import load_svmlight_ranking_files
    from ..datasets._files import NoQueryIdsError, default_query_file

    paths = [check_input_file(path, option) for path in paths]
    check_distinct_files(paths, option)
    shown = " ".join(repr(str(p)) for p in paths)
    try:
        loaded = load_svmlight_ranking_files(paths)
    except NoQueryIdsError as exc:
        raise CLIError(
            f"{option} {str(exc.path)!r} has no query ids: its lines need 'qid:<query>' "
            f"fields, or the query sizes must be in the side file {str(exc.side)!r} next to it "
            "(one number of rows per line, for each consecutive query)."
        ) from None
    except (OSError, ValueError) as exc:  # the message names the file
        raise CLIError(f"{option}: {exc}") from None
    Xs, ys, qids = loaded[0::3], loaded[1::3], loaded[2::3]
    if len(paths) == 1:
        X, y, qid = Xs[0], ys[0], qids[0]
    else:
        import scipy.sparse

        X, y, qid = scipy.sparse.vstack(Xs, format="csr"), np.concatenate(ys), np.concatenate(qids)
    expected = ("lines like '<grade> qid:<query> <feature>:<value> ...', or the query sizes "
                f"in a side file {default_query_file(paths[0]).name!r}")
    n_queries = len(unique_ids(qid))
    if n_queries < min_queries:
        raise CLIError(f"{option} {shown} holds {n_queries} "
                       f"{'query' if n_queries == 1 else 'queries'}; expected at least "
                       f"{min_queries}, with {expected}.")
    source = str(paths[0]) if len(paths) == 1 else " + ".join(map(str, paths))
    return Dataset(X, y, qid, source)


def check_enough_queries(data, n_splits):
    """Each fold needs at least one test query."""
    if data.n_queries < n_splits:
        raise CLIError(
            f"{data.source} holds {data.n_queries} queries, fewer than --n-splits "
            f"{n_splits}; each fold needs at least one test query."
        )


def _same_file(a, b):
    """Whether two paths name one file: after symlinks and relative parts, or a hard link."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def check_distinct_files(paths, option):
    """Refuse a file given twice to a list option (as itself, a symlink or a hard link)."""
    for i, path in enumerate(paths):
        for other in paths[:i]:
            if _same_file(path, other):
                raise usage_error(f"{option} names the file {str(other)!r} twice"
                                  + ("" if str(other) == str(path) else f" (as {str(path)!r})")
                                  + "; its queries would count twice.")


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
        if other is not None and _same_file(path, other):
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
    """Write a file through a temporary file in its folder, renamed into place when complete.

    A crash or an error leaves the previous file, if any, as it was, never a half-written
    one. A symlink is followed: its target is replaced. The new file keeps the permissions of
    the file it replaces, or gets the usual ones (those the umask allows).

    Parameters
    ----------
    path : str or path-like
        The file to write.
    write : callable
        ``write(temporary_path)`` writes the whole content to the temporary path.
    option : str
        The option that named the file, for messages.
    """
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    try:
        if os.path.exists(target):
            mode = stat.S_IMODE(os.stat(target).st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        os.close(handle)
    except OSError as exc:
        raise CLIError(f"{option} {str(path)!r}: cannot write: {exc.strerror}.") from None
    try:
        write(temporary)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as exc:
        raise CLIError(f"{option} {str(path)!r}: cannot write: {exc.strerror}.") from None
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_text(path, text, option):
    """Write ``text`` (UTF-8, ending with a newline) to ``path`` with :func:`write_atomic`."""
    text = text if text.endswith("\n") else text + "\n"
    write_atomic(path, lambda temporary: Path(temporary).write_text(text, encoding="utf-8"),
                 option)


def import_extra(module, extra, purpose):
    """Import an optional dependency, or a :class:`CLIError` naming the extra to install."""
    from ..utils._optional import import_optional

    try:
        return import_optional(module, extra=extra, purpose=purpose)
    except ImportError as exc:
        raise CLIError(str(exc)) from None


def close_matches(name, known):
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f" Did you mean {' or '.join(map(repr, close))}?" if close else ""


# ----------------------------------------------------------------------------------------
# Output


def wrap(lines, width=88):
    """Paragraphs of the output, one per line, wrapped with a hanging indent.

    Names such as ``sklearn-rank[xgboost]`` are never split at their hyphens.
    """
    from ..stats._table import wrap as wrap_paragraph  # imported late: keeps --help fast

    return "\n".join(line for text in lines for line in wrap_paragraph(text, width, "  "))


def format_number(value, digits=4):
    """A metric value or parameter for a table: fixed decimals for floats, ints as they are."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def to_json(data):
    """JSON text of ``data``, numpy scalars and arrays included."""

    def default(value):
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray):
            return value.tolist()
        raise TypeError(f"cannot write {type(value).__name__} as JSON")

    return json.dumps(data, indent=2, default=default, allow_nan=True)


class Progress:
    """A progress line on stderr, dependency-free.

    On a terminal, one line redrawn in place with a bar, the count, the elapsed time and an
    estimate of the remaining time. Elsewhere (a log file, a pipe, a test's capture), one
    plain line per step, since carriage returns would only clutter the log.

    Parameters
    ----------
    total : int
        Number of steps.
    what : str
        What is being done, e.g. ``"cross-validation"``.
    enabled : bool, default=True
        False shows nothing (``--quiet``).
    """

    width = 24

    @property
    def stream(self):
        """``sys.stderr`` when written to: the fits hide the native standard error meanwhile
        (:func:`~sklearn_rank._cli._models.native_stderr_hidden`), and move Python's to a
        copy of it, which this follows."""
        return sys.stderr

    def __init__(self, total, what, *, enabled=True):
        self.total = total
        self.what = what
        self.enabled = enabled
        stream = sys.stderr
        self.tty = enabled and hasattr(stream, "isatty") and stream.isatty()
        self.done = 0
        self.start = time.perf_counter()
        self._shown = 0

    def advance(self, detail=""):
        """Count one step done, and show it."""
        self.done += 1
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if not self.tty:
            self.stream.write(f"{self.what}: {self.done}/{self.total} {detail} "
                              f"({elapsed:.1f} s)\n".replace("  ", " "))
            self.stream.flush()
            return
        filled = round(self.width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (self.width - filled)
        left = elapsed / self.done * (self.total - self.done)
        eta = f", {left:.0f} s left" if self.done < self.total else ""
        text = f"{self.what} [{bar}] {self.done}/{self.total} ({elapsed:.0f} s{eta}) {detail}"
        self.stream.write("\r" + text.ljust(self._shown))
        self.stream.flush()
        self._shown = len(text)

    def close(self):
        """End the line on a terminal, so that what follows starts on its own."""
        if self.tty and self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = 0


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
