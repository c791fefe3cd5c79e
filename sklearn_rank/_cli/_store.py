"""``--store`` and ``--resume`` of ``cv`` and ``tune``: the results store as a Recorder.

:class:`StoreRecorder` writes each finished unit of work to a
:class:`~sklearn_rank.stats._store.ResultsStore` as it ends, and, resuming, answers the
units the store holds, which are then not run again.

A run is known by its *run key*, the fingerprint of its provenance (command, data, test set,
models and their settings, metrics, convention, splitter, seed, library versions). A unit
is known by its *unit key*: the data's SHA-256 (and the test set's, for a refit), the
model's label, specification and parameters (with a candidate's), the fingerprint of a
``MODULE:CLASS``'s code, the fold, the splitter and seed, the number of trees, the metrics'
canonical keys, the convention and the versions of the libraries that compute. A resumed
run reuses a stored unit only when every one of these is equal: the same computation.

- ``--store PATH`` alone starts a new run in the store (creating the file if needed); it is
  refused when the store already holds a run of the same settings, with a message naming
  ``--resume``.
- ``--store PATH --resume`` continues the run of the same settings, computing only the units
  it lacks; without one, it starts a run that reuses the equal units of the store's other
  runs.
- ``--resume`` without ``--store`` is a usage error.

The standard library only at module level: imported by the argument builders.
"""

import sqlite3
import sys

from ._common import USAGE, CLIError, check_output_path, usage_error

#: File suffixes of a results store.
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
# The libraries whose versions can change a unit's numbers (part of the unit key).
_COMPUTING = ("python", "sklearn-rank", "numpy", "scipy", "scikit-learn", "lightgbm",
              "xgboost", "catboost")


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


def _open(path):
    from ..stats._store import ResultsStore, StoreError

    try:
        return ResultsStore(path)
    except StoreError as exc:
        raise CLIError(f"--store {exc}") from None


def _versions(provenance):
    versions = provenance.get("versions", {})
    return {name: versions[name] for name in _COMPUTING if name in versions}


def _run_identity(provenance):
    """What makes two runs the same run: their provenance, versions of the computing
    libraries only (the others depend on what a process happened to import)."""
    return {**provenance, "versions": _versions(provenance)}


class StoreRecorder:
    """A :class:`~sklearn_rank._cli._scoring.Recorder` that writes to a results store (its
    methods, without the import of the base class: this module stays light).

    Parameters
    ----------
    path : str
        The store (``--store``).
    resume : bool
        ``--resume``: continue the stored run of the same settings.
    prog : str
        The command, for notes on stderr.
    predictions : bool
        The command needs the units' predictions (``cv --plot``): a stored unit without
        them is run again.
    refit_estimator : bool
        The command needs the refitted model (``tune --save-model``): the refit is always
        run, since the store does not keep models.
    """

    def __init__(self, path, *, resume, prog, predictions=False, refit_estimator=False):
        self.path = path
        self.resume = resume
        self.prog = prog
        self.predictions = predictions
        self.refit_estimator = refit_estimator
        self.store = None
        self.run_id = None

    def _note(self, message):
        print(f"{self.prog}: note: {message}", file=sys.stderr, flush=True)

    def start(self, provenance, units):
        from ..stats._store import StoreError, fingerprint

        self.provenance = provenance
        self.store = _open(self.path)
        run_key = fingerprint(_run_identity(provenance))
        try:
            existing = self.store.find_run(run_key)
        except StoreError as exc:
            raise self._failure(exc) from None
        if existing is not None and not self.resume:
            state = ("finished " + existing["finished"] if existing["finished"]
                     else f"unfinished, {existing['n_stored']} of {len(existing['units'])} "
                     "units stored")
            raise CLIError(
                f"--store {self.path!r} already holds this run (run {existing['id']}, started "
                f"{existing['started']}, {state}); add --resume to continue it (only the "
                "missing units are computed), or give another --store.", USAGE)
        if existing is None and self.resume:  # say why nothing is resumed
            self._note(f"--store {self.path!r} holds no run of these settings to resume: the "
                       "data, models (their code included), metrics, seed or library versions "
                       "differ. A new run starts, reusing only the stored units that are the "
                       "same computation.")
        try:
            if existing is None:
                try:
                    self.run_id = self.store.start_run(
                        run_key, provenance["command"], provenance,
                        [_label(unit) for unit in units])
                except sqlite3.IntegrityError:  # another process started it meanwhile
                    existing = self.store.find_run(run_key)
            if existing is not None:
                self.run_id = existing["id"]
                if existing["finished"]:
                    self._note(f"--store {self.path!r}: run {existing['id']} is finished; "
                               "its stored units are read, not run again.")
                else:
                    self._note(f"--store {self.path!r}: resuming run {existing['id']} "
                               f"(started {existing['started']}): {existing['n_stored']} of "
                               f"{len(existing['units'])} units stored.")
        except StoreError as exc:
            raise self._failure(exc) from None

    def _failure(self, exc):
        if exc.corrupt:  # --resume cannot help: the store itself is damaged
            return CLIError(f"--store {exc}")
        advice = "make room, then" if exc.full else "then"
        return CLIError(f"--store {exc} The run is not marked finished: {advice} rerun with "
                        "--resume to complete it.")

    def _key(self, unit, params):
        from ..stats._store import fingerprint

        p = self.provenance
        models = p.get("models") or {p["model"]["label"]: p["model"]}
        model = models.get(unit.model, {})
        identity = {
            "command": p["command"], "data": p["data"]["sha256"],
            "test": None if unit.fold is not None or p.get("test") is None
            else p["test"]["sha256"],
            "model": unit.model, "spec": model.get("model"), "params": params,
            "fold": unit.fold, "splitter": p["splitter"], "seed": p["seed"],
            "n_estimators": p.get("n_estimators"), "metrics": p["metrics"],
            "convention": p.get("convention"), "versions": _versions(p),
        }
        if model.get("code") is not None:  # a user class: its code (the keys of others kept)
            identity["code"] = model["code"]
        return fingerprint(identity)

    def known(self, unit, params):
        from ..stats._store import StoreError
        from ._scoring import UnitResult

        if not self.resume:
            return None
        if unit.fold is None and self.refit_estimator:
            return None
        try:
            stored = self.store.find_unit(self._key(unit, params), self.run_id)
        except StoreError as exc:
            raise self._failure(exc) from None
        if stored is None or (self.predictions and unit.fold is not None
                              and stored["predictions"] is None):
            return None
        result = UnitResult(
            unit=unit, params=params, scores=stored["scores"], per_query=stored["per_query"],
            fit_time=stored["fit_time"], score_time=stored["score_time"],
            predictions=stored["predictions"] if self.predictions else None,
            rows=stored["rows"])
        if stored["run_id"] != self.run_id:  # an equal unit of another run: this run's too
            self.record(result)
        return result

    def record(self, result):
        from ..stats._store import StoreError

        unit = result.unit
        p = self.provenance
        record = {
            "key": self._key(unit, result.params),
            "data_sha256": p["data"]["sha256"], "model": unit.model,
            "candidate": unit.candidate, "fold": unit.fold,
            "split": "cv" if unit.fold is not None else "test",
            "params": result.params, "scores": result.scores,
            "per_query": result.per_query, "fit_time": result.fit_time,
            "score_time": result.score_time, "versions": p.get("versions", {}),
            "seed": p["seed"], "predictions": result.predictions, "rows": result.rows,
            "describe": _label(unit)}
        try:
            self.store.write_unit(self.run_id, record)
        except StoreError as exc:
            raise self._failure(exc) from None

    def finish(self):
        from ..stats._store import StoreError

        try:
            self.store.finish_run(self.run_id)
        except StoreError as exc:
            raise self._failure(exc) from None
        finally:
            self.store.close()


def _label(unit):
    """``"lambdarank fold 2"``, ``"lambdarank candidate 3 fold 0"``, ``"lambdarank test"``."""
    where = "test" if unit.fold is None else f"fold {unit.fold}"
    who = unit.model if unit.candidate is None else f"{unit.model} candidate {unit.candidate}"
    return f"{who} {where}"


def store_recorder(args, provenance, units):
    """The recorder of ``--store``, started; or None without ``--store``."""
    path = getattr(args, "store", None)
    if path is None:
        return None
    recorder = StoreRecorder(
        path, resume=args.resume, prog=getattr(args, "prog", provenance["command"]),
        predictions=provenance["command"].endswith(" cv") and args.plot is not None,
        refit_estimator=getattr(args, "save_model", None) is not None)
    recorder.start(provenance, units)
    return recorder
