"""``--store`` and ``--resume`` of ``cv`` and ``tune``: the results store as a Recorder.

:class:`CLIStoreRecorder` is the library's :class:`sklearn_rank.benchmark.StoreRecorder`
(each finished unit of work written to the store as it ends; resuming, the units the store
holds are answered, not run again), with its notes printed on stderr and its errors as the
command line's, which name ``--store`` and ``--resume``. The run key and the unit keys are
the library's (see :class:`~sklearn_rank.benchmark.StoreRecorder`).

- ``--store PATH`` alone starts a new run in the store (creating the file if needed); it is
  refused when the store already holds a run of the same settings, with a message naming
  ``--resume``.
- ``--store PATH --resume`` continues the run of the same settings, computing only the units
  it lacks; without one, it starts a run that reuses the equal units of the store's other
  runs.
- ``--resume`` without ``--store`` is a usage error.

The standard library only at module level: imported by the argument builders.
"""

import os
import sys

from ._common import USAGE, CLIError, check_output_path, usage_error

#: File suffixes of a results store.
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
def add_store_options(parser):
    """``--store PATH`` and ``--resume``."""
    group = parser.add_argument_group("results store")
    group.add_argument(
        "--store", metavar="FILE.sqlite",
        help="write every finished unit of work (a model or candidate on a fold) to this "
        "SQLite results store as it ends: scores, per-query values, times, parameters, "
        "versions, data hash, seed ('sklearn-rank report' reads it). A new run is refused "
        "when the store holds one of the same settings: add --resume")
    group.add_argument(
        "--resume", action="store_true",
        help="with --store: continue the run of the same settings that the store holds, "
        "computing only the units it lacks (those of a killed run); output as an "
        "uninterrupted run's")


def store_files(path, option="--store"):
    """``(option, path)`` of the store and of its companions, which SQLite writes beside
    it while a connection is open: no output may be one of them (writing there would
    replace the stored units)."""
    if path is None:
        return []
    return [(option, path), (f"{option} (its write-ahead log)", f"{path}-wal"),
            (f"{option} (its shared memory)", f"{path}-shm")]


def check_store_options(args, inputs=()):
    """Check ``--store`` and ``--resume`` before the work: a usage error for ``--resume``
    alone, a bad suffix or path, or a file that is no results store."""
    store = getattr(args, "store", None)
    if getattr(args, "resume", False) and store is None:
        raise usage_error("--resume continues a run stored with --store, which is not given; "
                          "add --store FILE.sqlite.")
    if store is None:
        return
    check_output_path(store, "--store", STORE_SUFFIXES, inputs)
    _open(store).close()  # refuse a file that is not a store now, not after the work


def store_message(exc, options):
    """The text of a :class:`~sklearn_rank.benchmark.StoreError`, after the option of the
    command that gave its store: ``options`` maps the paths given to their options, and
    the error's ``path`` says which (the message is not read)."""
    option = {os.fspath(path): name for path, name in options.items()}.get(exc.path)
    return f"{option} {exc}" if option is not None else str(exc)


def _open(path):
    from ..benchmark import ResultsStore, StoreError

    try:
        return ResultsStore(path)
    except StoreError as exc:
        raise CLIError(store_message(exc, {path: "--store"})) from None


def _failure(exc, path):
    """The command line's error for a :class:`~sklearn_rank.benchmark.StoreError` met
    during the run of the store ``path`` (``--store``)."""
    message = store_message(exc, {path: "--store"})
    if exc.corrupt:  # --resume cannot help: the store itself is damaged
        return CLIError(message)
    advice = "make room, then" if exc.full else "then"
    return CLIError(f"{message} The run is not marked finished: {advice} rerun with "
                    "--resume to complete it.")


class CLIStoreRecorder:
    """:class:`sklearn_rank.benchmark.StoreRecorder` for ``--store``: notes on stderr
    under ``prog``, errors as :class:`CLIError` naming the options."""

    def __init__(self, path, *, resume, prog, predictions=False, refit_estimator=False):
        from ..benchmark import StoreRecorder

        self.path = path
        self.prog = prog
        self.recorder = StoreRecorder(path, resume=resume, predictions=predictions,
                                      refit_estimator=refit_estimator, note=self._note)

    def _note(self, event, run):
        if event == "no run to resume":
            message = (f"--store {self.path!r} holds no run of these settings to resume: the "
                       "data, models (their code included), metrics, seed or library versions "
                       "differ. A new run starts, reusing only the stored units that are the "
                       "same computation.")
        elif event == "finished":
            message = (f"--store {self.path!r}: run {run['id']} is finished; its stored units "
                       "are read, not run again.")
        else:
            message = (f"--store {self.path!r}: resuming run {run['id']} (started "
                       f"{run['started']}): {run['n_stored']} of {len(run['units'])} units "
                       "stored.")
        print(f"{self.prog}: note: {message}", file=sys.stderr, flush=True)

    def start(self, provenance, units):
        from ..benchmark import RunExistsError, StoreError

        try:
            self.recorder.start(provenance, units)
        except RunExistsError as exc:
            run = exc.run
            raise CLIError(
                f"--store {self.path!r} already holds this run (run {run['id']}, started "
                f"{run['started']}, {exc.state}); add --resume to continue it (only the "
                "missing units are computed), or give another --store.", USAGE) from None
        except StoreError as exc:
            if self.recorder.store is None:  # the store did not open
                raise CLIError(store_message(exc, {self.path: "--store"})) from None
            raise _failure(exc, self.path) from None

    def _call(self, method, *args):
        from ..benchmark import StoreError

        try:
            return method(*args)
        except StoreError as exc:
            raise _failure(exc, self.path) from None

    def known(self, unit, params):
        return self._call(self.recorder.known, unit, params)

    def record(self, result):
        return self._call(self.recorder.record, result)

    def finish(self):
        return self._call(self.recorder.finish)

    def close(self):
        """Close the store without marking the run finished (a run that failed)."""
        self.recorder.close()


def store_recorder(args, provenance, units):
    """The recorder of ``--store``, started; or None without ``--store``."""
    path = getattr(args, "store", None)
    if path is None:
        return None
    recorder = CLIStoreRecorder(
        path, resume=args.resume, prog=getattr(args, "prog", provenance["command"]),
        predictions=provenance["command"].endswith(" cv") and getattr(args, "plot", None)
        is not None,
        refit_estimator=getattr(args, "save_model", None) is not None)
    recorder.start(provenance, units)
    return recorder
