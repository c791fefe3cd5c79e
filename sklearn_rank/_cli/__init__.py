"""The ``sklearn-rank`` command line: ``evaluate``, ``cv``, ``tune``, ``trec_eval`` and ``report``.

Each subcommand is a module with ``NAME``, ``SUMMARY``, ``add_arguments(parser)`` and
``run(args)``; :data:`COMMANDS` lists them. The modules import only the standard library
and numpy at the top, so ``sklearn-rank --help`` answers without loading the boosters,
matplotlib or pandas.
"""

import contextlib
import os
import sys

from . import _cv, _evaluate, _report, _trec_eval, _tune
from ._common import USAGE, ArgumentParser, CLIError

__all__ = ["main"]

PROG = "sklearn-rank"
COMMANDS = {module.NAME: module for module in (_evaluate, _cv, _tune, _trec_eval, _report)}
# The subcommand run when none is named: the demonstration of ``python -m sklearn_rank``.
DEFAULT_COMMAND = "cv"
_TOP_LEVEL_OPTIONS = ("-h", "--help", "--version")

_EPILOG = f"""\
Without a subcommand, '{PROG}' runs the demonstration: '{PROG} {DEFAULT_COMMAND}' with its
defaults (options of '{DEFAULT_COMMAND}' may follow, e.g. '{PROG} --n-queries 200').
'{PROG} COMMAND --help' describes each subcommand.
"""


def build_parser():
    """The argument parser of ``sklearn-rank`` and its subcommands.

    Returns
    -------
    parser : argparse.ArgumentParser
    """
    import argparse

    from .. import __version__

    parser = ArgumentParser(
        prog=PROG, allow_abbrev=False, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Evaluate, compare and tune learning-to-rank models.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subcommands = parser.add_subparsers(title="subcommands", dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        # a module may build its description (cv lists the models of its table)
        describe = getattr(module, "description", None)
        description = describe() if describe is not None else module.DESCRIPTION
        sub = subcommands.add_parser(
            name, help=module.SUMMARY, description=description, epilog=module.EPILOG,
            allow_abbrev=False, formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub)
        sub.set_defaults(prog=sub.prog)
    return parser


@contextlib.contextmanager
def _workers_start_without_the_folder():
    """``PYTHONSAFEPATH=1`` for the processes the command starts (``--n-jobs``): joblib
    starts its workers with ``python -m``, which would put the working folder first on
    their path, where a ``joblib.py`` or ``lightgbm.py`` lying there would run. The workers
    get the command's path (see ``import_object``) from joblib instead."""
    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = before


def main(argv=None):
    """Run the ``sklearn-rank`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments after the program name; ``None`` reads ``sys.argv``. Empty, or
        starting with an option other than ``--help`` and ``--version``, runs the
        demonstration: ``sklearn-rank cv`` with those options.

    Returns
    -------
    exit_code : int
        0 on success, 1 for a data error (a missing, unreadable or malformed file, data a
        model cannot fit), 2 for a usage error (an unknown option, metric or convention, a
        parameter value a model refuses, an output file that is one of the inputs), 130 when
        interrupted, 141 when the reader of its output went away (``| head``), as a shell
        reports a process ended by SIGPIPE. Errors are printed on stderr as one line,
        ``sklearn-rank <command>: error: ...``.

    Examples
    --------
    >>> from sklearn_rank._cli import main
    >>> main(["evaluate", "--n-queries", "20", "--metrics", "ndcg@10"])  # doctest: +ELLIPSIS
    make_ranking(n_queries=20, random_state=0): 20 queries, ...
    0
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    demo = not argv or (argv[0].startswith("-") and argv[0] not in _TOP_LEVEL_OPTIONS)
    if demo:
        argv = [DEFAULT_COMMAND, *argv]
    prog = PROG
    try:
        args, unknown = build_parser().parse_known_args(argv)
        if args.command is None:  # only top-level options, handled by argparse above
            return 0
        prog = args.prog
        if unknown:  # reported here, under the subcommand's name, not the top level's
            raise CLIError(f"unrecognized arguments: {' '.join(unknown)} "
                           f"(see '{prog} --help')", USAGE)
        run = COMMANDS[args.command].run
        with _workers_start_without_the_folder():
            # the demonstration lists the subcommands: given here, where they are known
            return run(args, demo=tuple(COMMANDS)) if demo else run(args)
    except CLIError as exc:
        message = " ".join(str(exc).split())  # one line, even from a booster's message
        print(f"{exc.prog or prog}: error: {message}", file=sys.stderr)
        return exc.code
    except SystemExit as exc:  # --help and --version print, then exit
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader closed the pipe (``| head``): nothing more to say to anyone, and
        # Python's flush of stdout at exit must not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
