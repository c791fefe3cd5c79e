"""A results store of benchmark runs on SQLite: one unit of work per transaction.

A *run* is one :func:`~sklearn_rank.benchmark.run_benchmark` (``sklearn-rank cv`` or
``tune``): its provenance (data fingerprints, library versions, seeds, convention, metrics,
models) and the units it is made of. A *unit* is one model or candidate fitted on one fold
of one data set under one seed (or refitted and scored on a held-out test set): its scores,
per-query values, fit and score times and parameters. Each unit is written in its
own transaction as it ends, so a run that is killed keeps every unit it finished, and a run
is marked finished only when its last unit is written: an unfinished run is never taken for
a whole one (:func:`load_store` refuses it unless asked).

Several processes may write to one store at once: the database is in WAL mode, each
connection waits for the others' locks (``busy_timeout``), and a transaction that still
finds the database busy is retried. After each transaction, the write-ahead log is copied
into the file (a passive checkpoint), so that the file alone holds every finished unit even
when its writer is killed; while a writer runs, the store is the file together with its
``-wal`` and ``-shm`` companions, and a copy must take all three. Readers open the file
read-only and never change its journal mode, so that a store in a read-only folder (or on
a read-only medium) can be read.

The schema (``PRAGMA user_version`` = :data:`SCHEMA_VERSION`):

- ``runs(id, run_key UNIQUE, command, provenance JSON, units JSON, started, finished)``;
- ``units(id, run_id, unit_key, data_sha256, model, candidate, fold, split, params JSON,
  scores JSON, fit_time, score_time, versions JSON, seed, qid_dtype, predictions, rows,
  recorded, dataset)``, one row per ``(run_id, unit_key)``; ``seed`` is the seed of the
  unit's split and model, ``dataset`` the name of its data set (NULL for a run of one data
  set). Stores written before ``dataset`` existed gain the column (NULL in their rows) the
  first time they are opened for writing, and are read as they are;
- ``per_query(unit_id, metric, position, qid, value)``: ``qid`` has no declared type, so
  an integer query id reads back as an int and a string one as a str; ``qid_dtype`` keeps
  the numpy dtype of the unit's query ids (one of :data:`QID_KINDS`). Unsigned 64-bit ids
  are stored as the signed integers of the same bits (SQLite's integers have 64 bits with a
  sign), and read back as the unsigned ids. A NaN value is stored as NULL.
"""

import contextlib
import hashlib
import json
import math
import os
import re
import sqlite3
import time
from datetime import datetime, timezone

import numpy as np

SCHEMA_VERSION = 1
#: The kinds of numpy dtype a run writes as ``qid_dtype``: booleans, integers, unsigned
#: integers, floats, str, objects, datetimes and timedeltas. Any other text is a corrupt
#: store (a byte-string or structured dtype, whose size is not the values').
QID_KINDS = "biufUOMm"
_QID_DTYPE = re.compile(r"[<>|=]?[biufUOMm]\d{0,9}(\[[0-9]{0,4}[a-zA-Z]{1,2}\])?")
_SQLITE_CANTOPEN = 14
# Seconds a connection waits for another's lock before SQLITE_BUSY, then the total time a
# transaction is retried.
BUSY_TIMEOUT = 30.0
RETRY_FOR = 120.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    run_key TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,
    provenance TEXT NOT NULL,
    units TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT
);
CREATE TABLE IF NOT EXISTS units (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    unit_key TEXT NOT NULL,
    data_sha256 TEXT NOT NULL,
    model TEXT NOT NULL,
    candidate INTEGER,
    fold INTEGER,
    split TEXT NOT NULL,
    params TEXT NOT NULL,
    scores TEXT NOT NULL,
    fit_time REAL NOT NULL,
    score_time REAL NOT NULL,
    versions TEXT NOT NULL,
    seed INTEGER,
    qid_dtype TEXT NOT NULL,
    predictions BLOB,
    rows BLOB,
    recorded TEXT NOT NULL,
    dataset TEXT,
    UNIQUE (run_id, unit_key)
);
CREATE INDEX IF NOT EXISTS units_by_key ON units (unit_key);
CREATE TABLE IF NOT EXISTS per_query (
    unit_id INTEGER NOT NULL REFERENCES units(id),
    metric TEXT NOT NULL,
    position INTEGER NOT NULL,
    qid,
    value REAL,
    PRIMARY KEY (unit_id, metric, position)
) WITHOUT ROWID;
"""


# Columns added to the schema after stores were written: {table: columns}. A store without
# them is of the same schema version; opened for writing, it gains them (ALTER TABLE).
_ADDED_COLUMNS = {"units": {"dataset": "TEXT"}}


class StoreError(ValueError):
    """A store that cannot be used: not a results store, of another schema, corrupt,
    unwritable, or full.

    Attributes
    ----------
    path : str or None
        The store's file, as given: a caller names the argument that gave it (the command
        line its ``--store`` option) without reading the message.
    full : bool
        True when the disk (or the database's size limit) is full.
    corrupt : bool
        True when the file cannot be read as a results store (a damaged page, a value no
        run writes).
    """

    def __init__(self, message, full=False, corrupt=False, *, path=None):
        super().__init__(message)
        self.path = path
        self.full = full
        self.corrupt = corrupt


def now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def canonical(value):
    """``value`` as JSON-ready data that tells apart what a computation tells apart.

    Floats keep all their digits (``repr``), ints and floats and bools stay distinct, tuples
    are not lists, dict keys keep their type and are sorted: two parameter sets get the
    same canonical form exactly when they are equal, type for type.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, dict):
        items = sorted((json.dumps(canonical(k)), canonical(v)) for k, v in value.items())
        return {"dict": items}
    if isinstance(value, tuple):
        return {"tuple": [canonical(v) for v in value]}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, np.ndarray):
        return {"ndarray": [value.dtype.str, canonical(value.tolist())]}
    if not isinstance(value, type) and callable(getattr(value, "get_params", None)):
        # an estimator within the parameters (a pipeline's step, a meta-estimator's
        # regressor): its class and every parameter, not its repr, which scikit-learn
        # shortens (past 700 characters, or 30 items of a list) so that two estimators
        # that differ in the part left out print alike
        kind = type(value)
        return {"estimator": [f"{kind.__module__}:{kind.__qualname__}",
                              canonical(dict(value.get_params(deep=False)))]}
    return {type(value).__qualname__: repr(value)}


def fingerprint(value):
    """The SHA-256 of :func:`canonical` ``value``."""
    text = json.dumps(canonical(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _json(value):
    """JSON text of parameters or provenance: numpy scalars as numbers, others as repr."""

    def default(x):
        if isinstance(x, np.generic):
            return x.item()
        if isinstance(x, np.ndarray):
            return x.tolist()
        return repr(x)

    return json.dumps(value, default=default)


def _scalar(x):
    return x.item() if isinstance(x, np.generic) else x


def _is_full(exc):
    return isinstance(exc, sqlite3.Error) and (
        getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
        or "full" in str(exc).lower())


def _is_busy(exc):
    return isinstance(exc, sqlite3.OperationalError) and (
        getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
        or "locked" in str(exc).lower() or "busy" in str(exc).lower())


def connect(path):
    """A connection to the SQLite file ``path``, waiting :data:`BUSY_TIMEOUT` seconds for
    the other writers' locks; transactions are explicit (``isolation_level=None``)."""
    return sqlite3.connect(os.fspath(path), timeout=BUSY_TIMEOUT, isolation_level=None)


def connect_read_only(path):
    """A read-only connection to the SQLite file ``path``: it never writes to the file, nor
    changes its journal mode.

    SQLite reads a WAL database through its ``-shm`` file, which it creates (with an empty
    ``-wal``) when the folder allows. In a folder that does not (read-only), with no
    write-ahead log beside the file (everything is in the file, as a writer leaves it), the
    file is opened as immutable: no writer can change it there.
    """
    from urllib.parse import quote

    path = os.path.abspath(os.fspath(path))
    uri = "file:" + quote(path)
    connection = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT,
                                 isolation_level=None)
    try:
        connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.OperationalError as exc:
        connection.close()
        wal = path + "-wal"
        if ((getattr(exc, "sqlite_errorcode", 0) & 0xFF) != _SQLITE_CANTOPEN
                or os.access(os.path.dirname(path), os.W_OK)
                or (os.path.exists(wal) and os.path.getsize(wal) > 0)):
            raise
    except BaseException:
        connection.close()
        raise
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)


class ResultsStore:
    """A results store: a SQLite file of runs and their units (see the module's notes).

    Parameters
    ----------
    path : str or path-like
        The SQLite file, created with its schema if it does not exist.
    create : bool, default=True
        False refuses a file that does not exist, and opens it read-only (reading): the
        file, its folder and its journal mode are left as they are.
    """

    def __init__(self, path, *, create=True):
        self.path = os.fspath(path)
        if not create and not os.path.isfile(self.path):
            raise StoreError(f"{self.path!r}: no such results store.", path=self.path)
        self.connection = None
        try:
            self.connection = (connect(self.path) if create
                               else connect_read_only(self.path))
            if create:
                self.connection.execute("PRAGMA foreign_keys = ON")
            version = self.connection.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0]: {column[1] for column in self.connection.execute(
                f"PRAGMA table_info({row[0]!r})")} for row in self.connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}
        except sqlite3.DatabaseError as exc:  # e.g. "file is not a database"
            self.close()
            wal = self.path + "-wal"
            if (not create and (getattr(exc, "sqlite_errorcode", 0) & 0xFF) == _SQLITE_CANTOPEN
                    and not os.access(os.path.dirname(os.path.abspath(self.path)), os.W_OK)
                    and os.path.exists(wal) and os.path.getsize(wal) > 0):
                raise StoreError(
                    f"{self.path!r}: SQLite cannot open it ({exc}): its folder is read-only "
                    f"and its write-ahead log {wal!r} holds changes not yet "
                    "in the file. Copy the store with its -wal file to a writable folder, "
                    "and read it there.", path=self.path) from None
            raise StoreError(f"{self.path!r} is not a results store of sklearn-rank: "
                             f"SQLite cannot read it ({exc}).", path=self.path) from None
        expected = _schema_columns()
        required = {table: columns - set(_ADDED_COLUMNS.get(table, ()))
                    for table, columns in expected.items()}
        if version not in (0, SCHEMA_VERSION) or (version == 0 and tables) or (
                version == SCHEMA_VERSION
                and any(not columns <= tables.get(table, set())
                        for table, columns in required.items())):
            self.close()
            raise StoreError(
                f"{self.path!r} is not a results store of sklearn-rank (schema version "
                f"{version}, tables {', '.join(sorted(tables)) or 'none'}; expected schema "
                f"version {SCHEMA_VERSION} with the tables {', '.join(expected)}).",
                path=self.path)
        if version == 0:
            if not create:
                self.close()
                raise StoreError(f"{self.path!r} is an empty database, not a results store.",
                                 path=self.path)
            self._transaction(self._create)
            tables = {table: set(columns) for table, columns in expected.items()}
        self._columns = tables
        if create:
            self._write_ahead_log()
            self._add_columns()

    def _add_columns(self):
        """Give a store written before :data:`_ADDED_COLUMNS` existed those columns."""
        missing = [(table, column, kind) for table, columns in _ADDED_COLUMNS.items()
                   for column, kind in columns.items()
                   if column not in self._columns.get(table, set())]
        if not missing:
            return

        def alter(connection):
            for table, column, kind in missing:
                present = {row[1] for row in connection.execute(
                    f"PRAGMA table_info({table})")}
                if column not in present:  # another process may have added it meanwhile
                    connection.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

        self._transaction(alter, "add the data set column to its units")
        for table, column, _ in missing:
            self._columns.setdefault(table, set()).add(column)

    def _write_ahead_log(self):
        """WAL mode: readers never block the writer, and a killed writer's transaction is
        rolled back. Persistent: set once per file, but harmless to repeat."""
        deadline = time.monotonic() + RETRY_FOR
        while True:
            try:
                self.connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() > deadline:
                    raise self._error(exc, "set up") from None
                time.sleep(0.05)

    def _create(self, connection):
        # executescript would commit the transaction: one statement at a time
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                connection.execute(statement)
        if connection.execute("PRAGMA user_version").fetchone()[0] == 0:
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _error(self, exc, what):
        if _is_full(exc):
            return StoreError(f"{self.path!r}: cannot {what}: the disk is full ({exc}).",
                              full=True, path=self.path)
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(
                exc, sqlite3.OperationalError) or "malformed" in str(exc):
            return self._corrupt(f"SQLite cannot {what}: {exc}")
        return StoreError(f"{self.path!r}: cannot {what}: {exc}.", path=self.path)

    def _corrupt(self, why):
        return StoreError(f"{self.path!r} is a damaged results store ({why}); restore it from "
                          "a copy, or use another store.", corrupt=True, path=self.path)

    def _query(self, sql, parameters=(), what="read the store"):
        """The rows of a read, its SQLite errors as a :class:`StoreError`."""
        try:
            return self.connection.execute(sql, parameters).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc, what) from None

    def _transaction(self, work, what="write"):
        """Run ``work(connection)`` in one ``BEGIN IMMEDIATE`` transaction, retried while
        another writer holds the database (SQLITE_BUSY) for up to :data:`RETRY_FOR`
        seconds; returns what ``work`` returns. Any other error rolls back and raises a
        :class:`StoreError`."""
        deadline = time.monotonic() + RETRY_FOR
        delay = 0.01
        while True:
            try:
                self.connection.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if _is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(2 * delay, 1.0)
                    continue
                raise self._error(exc, what) from None
            try:
                out = work(self.connection)
                self.connection.execute("COMMIT")
            except sqlite3.IntegrityError:
                self.connection.execute("ROLLBACK")
                raise
            except sqlite3.Error as exc:
                if self.connection.in_transaction:
                    self.connection.execute("ROLLBACK")
                if _is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(2 * delay, 1.0)
                    continue
                raise self._error(exc, what) from None
            except BaseException as exc:  # never leave the transaction (and its lock) open
                if self.connection.in_transaction:
                    self.connection.execute("ROLLBACK")
                if isinstance(exc, OverflowError):  # an int beyond SQLite's 64 bits
                    raise StoreError(f"{self.path!r}: cannot {what}: {exc}.",
                                     path=self.path) from None
                raise
            self._checkpoint()
            return out

    def _checkpoint(self):
        """Copy the write-ahead log into the file, without waiting for the other
        connections (passive): a writer killed later (``kill -9``) leaves a file that holds
        every committed transaction by itself. The log keeps them when this cannot run."""
        with contextlib.suppress(sqlite3.OperationalError):
            self.connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def close(self):
        if self.connection is not None:
            self.connection.close()

    # ------------------------------------------------------------------------------------
    # Runs

    def find_run(self, run_key):
        """The run with this key, as a dict (see :meth:`runs`), or None."""
        found = [run for run in self.runs() if run["run_key"] == run_key]
        return found[0] if found else None

    def start_run(self, run_key, command, provenance, units):
        """A new run; returns its id. Raises :class:`sqlite3.IntegrityError` when the store
        already holds a run with this key."""

        def insert(connection):
            cursor = connection.execute(
                "INSERT INTO runs (run_key, command, provenance, units, started) "
                "VALUES (?, ?, ?, ?, ?)",
                (run_key, command, _json(provenance), _json(units), now()))
            return cursor.lastrowid

        return self._transaction(insert, "start the run")

    def finish_run(self, run_id):
        """Mark the run finished: all its units are written."""
        self._transaction(lambda connection: connection.execute(
            "UPDATE runs SET finished = ? WHERE id = ?", (now(), run_id)), "finish the run")

    def runs(self):
        """Every run, oldest first: dicts of ``id``, ``run_key``, ``command``,
        ``provenance``, ``units`` (the units' labels), ``started``, ``finished`` (None
        while unfinished) and ``n_stored`` (the units written)."""
        rows = self._query(
            "SELECT r.id, r.run_key, r.command, r.provenance, r.units, r.started, r.finished, "
            "(SELECT COUNT(*) FROM units u WHERE u.run_id = r.id) FROM runs r ORDER BY r.id",
            what="read its runs")
        try:
            runs = [{"id": row[0], "run_key": row[1], "command": row[2],
                     "provenance": json.loads(row[3]), "units": json.loads(row[4]),
                     "started": row[5], "finished": row[6], "n_stored": row[7]}
                    for row in rows]
        except (TypeError, ValueError) as exc:  # not the JSON a run writes
            raise self._corrupt(f"a run's provenance is not JSON: {exc}") from None
        for run in runs:
            if not isinstance(run["provenance"], dict) or not isinstance(run["units"], list):
                raise self._corrupt(f"run {run['id']}'s provenance is not a JSON object")
            self._check_provenance(run)
        return runs

    def _check_provenance(self, run):
        """Refuse a provenance (edited by hand, or written by another tool) whose fields the
        readers use are missing or of another type, naming the run and the field."""
        provenance = run["provenance"]
        for field, (kind, required, expected) in _PROVENANCE.items():
            value = provenance.get(field)
            if value is None and not required:
                continue
            items = (value.values() if isinstance(value, dict) else value
                     if isinstance(value, list) else ())
            item = _PROVENANCE_ITEMS.get(field)
            if (isinstance(value, kind) and not (field == "seeds" and any(
                    isinstance(v, bool) or not isinstance(v, int) for v in value))
                    and (item is None or all(isinstance(v, item) for v in items))):
                continue
            got = "missing" if field not in provenance else f"{json.dumps(value)[:80]}"
            raise StoreError(
                f"{self.path!r}: run {run['id']}'s provenance field {field!r} is not what a "
                f"run writes: expected {expected}; got {got}. The run's provenance was edited "
                "or written by another tool: restore the field, or the store from a copy.",
                corrupt=True, path=self.path)

    # ------------------------------------------------------------------------------------
    # Units

    def write_unit(self, run_id, record):
        """Write one unit (a dict, see :meth:`read_units`; its ``per_query`` a dict of
        columns or a :class:`~sklearn_rank.metrics.PerQueryResult`) of run ``run_id`` in its
        own transaction; a unit of the same key in that run is replaced."""
        per_query = record["per_query"]
        if hasattr(per_query, "query_ids"):  # a PerQueryResult: its ids and columns
            per_query = {"qid": per_query.query_ids,
                         **{m: per_query[m] for m in per_query.metrics}}
        qid = np.asarray(per_query.get("qid", []))
        # SQLite's integers are signed: unsigned 64-bit ids keep their bits as signed ones
        stored = qid.view(np.int64) if qid.dtype == np.uint64 else qid
        qids = [_scalar(q) for q in stored.tolist()]
        metrics = [m for m in per_query if m != "qid"]

        def insert(connection):
            connection.execute("DELETE FROM per_query WHERE unit_id IN (SELECT id FROM units "
                               "WHERE run_id = ? AND unit_key = ?)", (run_id, record["key"]))
            connection.execute("DELETE FROM units WHERE run_id = ? AND unit_key = ?",
                               (run_id, record["key"]))
            cursor = connection.execute(
                "INSERT INTO units (run_id, unit_key, data_sha256, model, candidate, fold, "
                "split, params, scores, fit_time, score_time, versions, seed, qid_dtype, "
                "predictions, rows, recorded, dataset) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, record["key"], record["data_sha256"], record["model"],
                 record["candidate"], record["fold"], record["split"],
                 _json(record["params"]), json.dumps(record["scores"]),
                 float(record["fit_time"]), float(record["score_time"]),
                 _json(record["versions"]), record["seed"], qid.dtype.str,
                 _blob(record.get("predictions"), np.float64),
                 _blob(record.get("rows"), np.int64), now(), record.get("dataset")))
            unit_id = cursor.lastrowid
            connection.executemany(
                "INSERT INTO per_query (unit_id, metric, position, qid, value) "
                "VALUES (?, ?, ?, ?, ?)",
                ((unit_id, metric, i, q, None if math.isnan(v) else v)
                 for metric in metrics
                 for i, (q, v) in enumerate(zip(qids, np.asarray(per_query[metric],
                                                                 dtype=np.float64).tolist()))))

        self._transaction(insert, f"write the results of {record['describe']}")

    def find_unit(self, unit_key, run_id):
        """The unit of this key, of run ``run_id`` if it has one, else of the latest other
        run; None when no run has it. A dict as :meth:`read_units` gives, with ``run_id``."""
        rows = self._query(
            "SELECT id FROM units WHERE unit_key = ? ORDER BY run_id = ? DESC, id DESC "
            "LIMIT 1", (unit_key, run_id), what="read its units")
        return None if not rows else self._read("u.id = ?", (rows[0][0],))[0]

    def read_units(self, run_id):
        """The units of run ``run_id``, in the order written: dicts of ``key``,
        ``data_sha256``, ``model``, ``candidate``, ``fold``, ``split``, ``params``,
        ``scores``, ``fit_time``, ``score_time``, ``versions``, ``seed``, ``per_query``
        (``"qid"`` and one array per metric), ``predictions`` and ``rows`` (or None) and
        ``dataset`` (None for a run of one data set, and in stores older than the column)."""
        return self._read("u.run_id = ?", (run_id,))

    def _read(self, where, parameters):
        units = self._query(
            "SELECT u.id, u.run_id, u.unit_key, u.data_sha256, u.model, u.candidate, u.fold, "
            "u.split, u.params, u.scores, u.fit_time, u.score_time, u.versions, u.seed, "
            "u.qid_dtype, u.predictions, u.rows, "
            + ("u.dataset" if "dataset" in self._columns.get("units", ()) else "NULL")
            + f" FROM units u WHERE {where} ORDER BY u.id",
            parameters, what="read its units")
        out = []
        for (unit_id, run_id, key, data, model, candidate, fold, split, params, scores,
             fit_time, score_time, versions, seed, qid_dtype, predictions, rows,
             dataset) in units:
            values = {}
            qid = None
            for metric, q, value in self._query(
                    "SELECT metric, qid, value FROM per_query WHERE unit_id = ? "
                    "ORDER BY metric, position", (unit_id,), what="read its per-query values"):
                if metric not in values:
                    values[metric] = ([], [])
                values[metric][0].append(q)
                values[metric][1].append(np.nan if value is None else value)
            try:
                per_query = {}
                for metric, (qids, metric_values) in values.items():
                    if qid is None:
                        qid = _query_ids(qids, qid_dtype)
                        per_query["qid"] = qid
                    per_query[metric] = np.array(metric_values, dtype=np.float64)
                out.append({
                    "id": unit_id, "run_id": run_id, "key": key, "data_sha256": data,
                    "model": model, "candidate": candidate, "fold": fold, "split": split,
                    "params": json.loads(params), "scores": json.loads(scores),
                    "fit_time": fit_time, "score_time": score_time,
                    "versions": json.loads(versions), "seed": seed,
                    "per_query": per_query,
                    "predictions": _unblob(predictions, np.float64),
                    "rows": _unblob(rows, np.int64), "dataset": dataset})
            except (TypeError, ValueError, OverflowError) as exc:
                raise self._corrupt(f"unit {unit_id} holds values no run writes: {exc}"
                                    ) from None
        return out


# The provenance fields the readers use: field -> (type, required, what a run writes).
_PROVENANCE = {
    "metrics": (dict, True, "a JSON object of metric name -> canonical key"),
    "models": (dict, False, "a JSON object of model label -> its class and parameters"),
    "model": (dict, False, "a JSON object of the model's label, class and parameters"),
    "datasets": (dict, False, "a JSON object of data set name -> its fingerprint and keys"),
    "seeds": (list, False, "a JSON list of integer seeds"),
    "versions": (dict, False, "a JSON object of library -> version"),
    "space": (dict, False, "a JSON object of parameter -> its search space"),
}
# ... and what their items are.
_PROVENANCE_ITEMS = {"metrics": str, "models": dict, "datasets": dict}


def _schema_columns():
    """``{table: set of columns}`` of :data:`_SCHEMA`."""
    tables = {}
    for statement in _SCHEMA.split(";"):
        match = re.search(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*)\)", statement, re.S)
        if match:
            tables[match[1]] = {line.split()[0] for line in match[2].split(",\n")
                                if line.split() and line.split()[0].islower()}
    return tables


def _query_ids(qids, text):
    """The array of a unit's query ids, of the dtype ``text`` (``qid_dtype``) that the run
    wrote; a ``ValueError`` for a dtype no run writes.

    The text is the store's, not ours: it is checked before numpy reads it, and a str id's
    width is that of the longest id (a width written larger would make numpy allocate it
    for every id).
    """
    if not isinstance(text, str) or _QID_DTYPE.fullmatch(text) is None:
        raise ValueError(f"the query ids' dtype {text!r} is none a run writes (kinds "
                         f"{', '.join(QID_KINDS)})")
    dtype = np.dtype(text)
    if dtype.kind == "U":
        ids = np.array(qids, dtype=str) if qids else np.array([], dtype=dtype)
        if ids.dtype.itemsize > dtype.itemsize or any(not isinstance(q, str) for q in qids):
            raise ValueError(f"the query ids do not fit their dtype {text!r}")
        return ids
    if dtype == np.uint64:
        return np.array(qids, dtype=np.int64).view(np.uint64)
    return np.array(qids, dtype=dtype)


def _blob(array, dtype):
    return None if array is None else np.ascontiguousarray(array, dtype=dtype).tobytes()


def _unblob(blob, dtype):
    return None if blob is None else np.frombuffer(blob, dtype=dtype).copy()


class StoredRun(dict):
    """The systems of a stored run, as :func:`~sklearn_rank.stats.compare` takes them.

    The analyses across seeds and data sets are those of
    :class:`~sklearn_rank.benchmark.BenchmarkResult`, on the same numbers:
    :meth:`seed_summary`, :meth:`paired_test`, :meth:`query_set_size`,
    :meth:`compare_datasets`.

    A dict: system name -> per-query values (``"qid"``, ``"fold"`` and one array per
    metric; in a run of several data sets or seeds, also ``"dataset"`` and ``"seed"``, one
    entry per query of each data set and seed). The attributes say what the run compared
    them with.

    Attributes
    ----------
    run_id : int
        The run in the store.
    command : str
        ``"sklearn-rank cv"``, ``"sklearn-rank tune"`` or
        ``"sklearn_rank.benchmark.run_benchmark"``.
    provenance : dict
        What the run recorded: data (source, fingerprint), metrics and their canonical
        keys, convention, splitter, seed, models, library versions.
    metrics : list of str
        The metric names of the run.
    baseline : str or None
        The baseline of ``cv`` (None for ``tune``).
    seed : int
        The run's seed, the ``random_state`` of its bootstrap.
    finished : str or None
        When the run finished (UTC, ISO 8601); None for an unfinished run.
    datasets : list
        The data set names of the run; ``[None]`` for a run of one unnamed data set.
    seeds : list
        The seeds of its repeats; ``[None]`` for a run of one seed.
    """

    datasets = (None,)
    seeds = (None,)

    def _per_query_values(self):
        datasets, seeds = list(self.datasets), list(self.seeds)
        out = {}
        for name, values in self.items():
            if "dataset" not in values:  # one data set and one seed, or one selected
                if len(seeds) > 1:
                    raise ValueError(
                        f"these values of run {self.run_id} are averaged over its seeds: "
                        "analyse the whole run (load_store(...)), not a selection.")
                out[datasets[0], name, seeds[0]] = values
                continue
            for dataset in datasets:
                mine = values["dataset"] == (dataset if dataset is not None else "")
                for seed in seeds:
                    rows = mine if seed is None else mine & (values["seed"] == seed)
                    out[dataset, name, seed] = {k: v[rows] for k, v in values.items()
                                                if k not in ("dataset", "seed")}
        return out

    # The analyses are BenchmarkResult's (``_values.Analyses``), on the stored values; this
    # module imports nothing of the package at its top, so that it loads on its own.

    def seed_summary(self, metric=None, **kwargs):
        """:meth:`sklearn_rank.benchmark.BenchmarkResult.seed_summary` of the stored run."""
        from ._values import Analyses

        return Analyses.seed_summary(self, metric, **kwargs)

    def paired_test(self, a, b, *, dataset=None, metric=None, **kwargs):
        """:meth:`sklearn_rank.benchmark.BenchmarkResult.paired_test` of the stored run."""
        from ._values import Analyses

        return Analyses.paired_test(self, a, b, dataset=dataset, metric=metric, **kwargs)

    def query_set_size(self, a, b, *, dataset=None, metric=None, **kwargs):
        """:meth:`sklearn_rank.benchmark.BenchmarkResult.query_set_size` of the stored
        run."""
        from ._values import Analyses

        return Analyses.query_set_size(self, a, b, dataset=dataset, metric=metric, **kwargs)

    def compare_datasets(self, metric=None, **kwargs):
        """:meth:`sklearn_rank.benchmark.BenchmarkResult.compare_datasets` of the stored
        run: the table of the report's section across data sets."""
        from ._values import Analyses

        return Analyses.compare_datasets(self, metric, **kwargs)

    def select(self, dataset=None, seed=None):
        """The systems on one data set, as a :class:`StoredRun` that
        :func:`~sklearn_rank.stats.compare` pairs by query.

        Parameters
        ----------
        dataset : str, default=None
            The data set; None for a run of one.
        seed : int, default=None
            One repeat's values (with their folds); None in a run of several seeds: each
            query's value averaged over the seeds, paired by query (what the tables of
            ``sklearn-rank cv`` compare).

        Returns
        -------
        systems : StoredRun
        """
        from ._values import PerQueryColumns, run_keys, seed_mean

        datasets, seeds = list(self.datasets), list(self.seeds)
        if dataset is None and len(datasets) == 1:
            dataset = datasets[0]
        if dataset not in datasets:
            raise ValueError(f"dataset={dataset!r} is not a data set of run {self.run_id}; its "
                             f"data sets: {', '.join(map(repr, datasets))}.")
        if seed is not None and seed not in seeds:
            raise ValueError(f"seed={seed!r} is not a seed of run {self.run_id}; its seeds: "
                             f"{', '.join(map(repr, seeds))}.")
        out = StoredRun()
        for name, values in self.items():
            if "dataset" not in values:  # a run of one data set and one seed
                out[name] = values
                continue
            mine = values["dataset"] == (dataset if dataset is not None else "")
            if seed is not None:
                mine = mine & (values["seed"] == seed)
            if seed is not None or len(seeds) == 1:
                out[name] = {k: v[mine] for k, v in values.items()
                             if k not in ("dataset", "seed")}
            else:
                out[name] = seed_mean([
                    {k: v[mine & (values["seed"] == s)] for k, v in values.items()}
                    for s in seeds], self.metrics)
            # what each metric computed on this data set, for the statistics to check
            out[name] = PerQueryColumns(out[name], run_keys(getattr(self, "provenance", None),
                                                            dataset))
        out.__dict__.update(self.__dict__)
        out.datasets = [dataset]
        out.seeds = [seed] if seed is not None else seeds
        return out

    def per_query_result(self, system, dataset=None, seed=None):
        """The per-query values of one system as a
        :class:`~sklearn_rank.metrics.PerQueryResult` (of one data set, see
        :meth:`select`).

        Examples
        --------
        See :func:`load_store`.
        """
        from ._values import per_query_result, run_keys

        if system not in self:
            raise ValueError(f"system={system!r} is not a system of run {self.run_id}; its "
                             f"systems: {', '.join(map(repr, self))}.")
        selected = self.select(dataset, seed) if "dataset" in self[system] else self
        # with the metrics' options the run recorded, as BenchmarkResult.per_query gives them
        named = getattr(selected, "datasets", None) or [dataset]
        keys = run_keys(getattr(self, "provenance", None),
                        dataset if dataset is not None or len(named) != 1 else named[0])
        return per_query_result(selected[system], self.metrics, keys)


def _system_name(unit):
    if unit["candidate"] is None:
        return unit["model"]
    params = ", ".join(f"{k}={v!r}" for k, v in unit["params"].items())
    return f"candidate {unit['candidate'] + 1} ({params})"


def load_store(path, run=None, *, split="cv", partial=False):
    """Read the per-query values of a stored run (``run_benchmark(store=...)``,
    ``sklearn-rank cv --store`` or ``tune --store``).

    Parameters
    ----------
    path : str or path-like
        The results store (``--store``), a SQLite file.
    run : int, default=None
        The id of the run (``sklearn-rank report`` lists them); None reads the latest
        finished run.
    split : {"cv", "test"}, default="cv"
        ``"cv"``: the per-query values of the cross-validation folds; ``"test"``: those of
        the models refitted on all the training data, on the held-out test set (``--test``).
    partial : bool, default=False
        Read an unfinished run (a run killed before its end, not yet completed with
        ``--resume``). By default it is refused: its systems may lack folds.

    Returns
    -------
    systems : StoredRun
        A dict, system name -> per-query values (``"qid"``, ``"fold"`` for ``"cv"``, and
        one array per metric), for :func:`~sklearn_rank.stats.compare`; for ``cv`` the
        systems are the models, for ``tune`` the candidates. In a run of several data sets
        or seeds, the values also have ``"dataset"`` and ``"seed"`` columns, and
        :meth:`StoredRun.select` gives one data set's systems to compare.
        :meth:`StoredRun.per_query_result` gives a system's values as a
        :class:`~sklearn_rank.metrics.PerQueryResult`. Its attributes ``metrics``,
        ``baseline`` and ``seed`` give the table the command line printed:
        ``compare(systems, metric=systems.metrics, baseline=systems.baseline,
        random_state=systems.seed)``.

    Raises
    ------
    ValueError
        When the file is not a results store, holds no such run, or the run is
        unfinished and ``partial`` is False; a :class:`StoreError` naming the run and the
        field when the run's provenance was edited (a field the readers use missing or of
        another type, or units of a data set or seed it does not list).

    See Also
    --------
    compare : Means, confidence intervals and corrected tests of the systems.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn.linear_model import LinearRegression, Ridge
    >>> from sklearn_rank.benchmark import load_store, run_benchmark
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.stats import compare
    >>> store = os.path.join(tempfile.mkdtemp(), "results.sqlite")
    >>> _ = run_benchmark({"ridge": Ridge(), "LinearRegression": LinearRegression()},
    ...                   make_ranking(30, random_state=0), metrics=["ndcg@10"],
    ...                   n_splits=3, store=store)
    >>> systems = load_store(store)
    >>> list(systems), systems.metrics, systems.baseline
    (['ridge', 'LinearRegression'], ['ndcg@10'], 'ridge')
    >>> len(systems["ridge"]["qid"])
    30
    >>> table = compare(systems, metric=systems.metrics, baseline=systems.baseline,
    ...                 random_state=systems.seed)
    >>> table.systems
    ['ridge', 'LinearRegression']
    >>> systems.per_query_result("ridge").metrics
    ('ndcg@10',)
    """
    if split not in ("cv", "test"):
        raise ValueError(f"split must be 'cv' or 'test'; got {split!r}.")
    try:
        store = ResultsStore(path, create=False)
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    try:
        runs = store.runs()
        if run is None:
            finished = [r for r in runs if r["finished"]]
            if not finished:
                shown = "; ".join(f"run {r['id']}: {r['n_stored']} of {len(r['units'])} units"
                                  for r in runs)
                raise ValueError(f"{os.fspath(path)!r} holds no finished run"
                                 + (f" ({shown}, unfinished: complete it with --resume, or "
                                    "pass run= and partial=True)" if runs else "") + ".")
            chosen = finished[-1]
        else:
            by_id = {r["id"]: r for r in runs}
            if run not in by_id:
                raise ValueError(f"{os.fspath(path)!r} has no run {run!r}; its runs: "
                                 f"{', '.join(map(str, by_id)) or 'none'}.")
            chosen = by_id[run]
            if not chosen["finished"] and not partial:
                raise ValueError(
                    f"run {run} of {os.fspath(path)!r} is unfinished ({chosen['n_stored']} of "
                    f"{len(chosen['units'])} units stored): its systems may lack folds. "
                    "Complete it with the command's --resume, or pass partial=True.")
        units = store.read_units(chosen["id"])
    finally:
        store.close()
    from ._values import PerQueryColumns, run_keys

    provenance = chosen["provenance"]
    metrics = list(provenance["metrics"])
    systems = StoredRun()
    grouped = {}
    for unit in units:
        if (unit["split"] == "cv") == (split == "cv") and unit["per_query"]:
            grouped.setdefault(_system_name(unit), []).append(unit)
    # the order of the command line: cv's models as given, tune's candidates by index
    order = list(provenance.get("models") or [])
    names = sorted(grouped, key=lambda name: (
        order.index(grouped[name][0]["model"]) if grouped[name][0]["model"] in order
        else len(order), grouped[name][0]["candidate"] or 0))
    datasets = list(provenance.get("datasets") or [None])
    seeds = list(provenance.get("seeds") or [None])
    axes = datasets != [None] or seeds != [None]
    for unit in units:  # a unit outside the run's axes would be filed under another's
        for field, value, known in (
                ("datasets", unit["dataset"], datasets),
                ("seeds", unit["seed"], seeds if seeds != [None] else [unit["seed"]])):
            if value not in known:
                raise StoreError(
                    f"{os.fspath(path)!r}: run {chosen['id']} has a unit of "
                    f"{field[:-1]} {value!r} (of {_system_name(unit)!r}, fold "
                    f"{unit['fold']}), which its provenance field {field!r} "
                    f"({json.dumps(provenance.get(field))[:80]}) lacks. The run's "
                    "provenance was edited or written by another tool: restore the field, "
                    "or the store from a copy.", corrupt=True,
                    path=os.fspath(path))

    def position(unit):  # data sets and seeds in the run's order, then folds
        dataset = datasets.index(unit["dataset"]) if unit["dataset"] in datasets else 0
        seed = seeds.index(unit["seed"]) if axes and unit["seed"] in seeds else 0
        return dataset, seed, -1 if unit["fold"] is None else unit["fold"]

    for name in names:
        mine = sorted(grouped[name], key=position)
        values = {"qid": np.concatenate([u["per_query"]["qid"] for u in mine])}
        if split == "cv":
            values["fold"] = np.concatenate([np.full(len(u["per_query"]["qid"]), u["fold"])
                                             for u in mine])
        if axes:
            values["dataset"] = np.concatenate([
                np.full(len(u["per_query"]["qid"]), u["dataset"] or "", dtype=object)
                for u in mine]).astype(str)
            values["seed"] = np.concatenate([np.full(len(u["per_query"]["qid"]), u["seed"])
                                             for u in mine])
        values.update({m: np.concatenate([u["per_query"][m] for u in mine]) for m in metrics})
        # what each metric computed, for the statistics to check (a run of several data
        # sets keys its metrics per data set: select one)
        systems[name] = (values if len(datasets) != 1
                         else PerQueryColumns(values, run_keys(provenance, datasets[0])))
    systems.run_id = chosen["id"]
    systems.command = chosen["command"]
    systems.provenance = provenance
    systems.metrics = metrics
    systems.baseline = provenance.get("baseline")
    systems.seed = provenance.get("seed")
    systems.finished = chosen["finished"]
    systems.datasets = datasets
    systems.seeds = seeds
    return systems


# ----------------------------------------------------------------------------------------
# The recorder of a benchmark run: each finished unit written as it ends; resuming, the
# units stored are answered instead of run again.

# The libraries whose versions can change a unit's numbers (part of the unit key).
_COMPUTING = ("python", "sklearn-rank", "numpy", "scipy", "scikit-learn", "lightgbm",
              "xgboost", "catboost")


class RunExistsError(StoreError):
    """The store already holds a run of the same settings, and ``resume`` is False.

    Attributes
    ----------
    path : str
        The store.
    run : dict
        The run found (as :meth:`ResultsStore.runs` gives it).
    """

    def __init__(self, path, run):
        state = ("finished " + run["finished"] if run["finished"]
                 else f"unfinished, {run['n_stored']} of {len(run['units'])} units stored")
        super().__init__(
            f"{path!r} already holds this run (run {run['id']}, started {run['started']}, "
            f"{state}); resume it (only the missing units are computed), or use another "
            "store.", path=path)
        self.run = run
        self.state = state


def _versions(provenance):
    versions = provenance.get("versions") or {}
    return {name: versions[name] for name in _COMPUTING if name in versions}


# The packages whose classes need no fingerprint of their code: their versions are in the keys.
_VERSIONED = ("sklearn", "sklearn_rank", "lightgbm", "xgboost", "catboost", "numpy", "scipy")


def _with_code(provenance):
    """``provenance``, each model of a user class (given as an object, which records only
    its ``MODULE:CLASS``) with the fingerprint of its code, as the command line records a
    ``MODULE:CLASS`` model's: a run resumed after the class was edited computes its units
    again instead of taking the stored units of the old code for the new one's."""
    from ._models import ModelImportError, code_fingerprint

    def with_code(model):
        spec = model.get("model") if isinstance(model, dict) else None
        if (not isinstance(spec, str) or model.get("code") is not None
                or spec.partition(":")[0].partition(".")[0] in _VERSIONED):
            return model
        try:
            return {**model, "code": code_fingerprint(spec)}
        except ModelImportError:  # a class defined in a function: its name is all there is
            return model

    provenance = dict(provenance)
    if isinstance(provenance.get("models"), dict):
        provenance["models"] = {label: with_code(model)
                                for label, model in provenance["models"].items()}
    if isinstance(provenance.get("model"), dict):  # a search's one model
        provenance["model"] = with_code(provenance["model"])
    return provenance


def _run_identity(provenance):
    """What makes two runs the same run: their provenance, versions of the computing
    libraries only (the others depend on what a process happened to import)."""
    return {**provenance, "versions": _versions(provenance)}


class StoreRecorder:
    """A :class:`~sklearn_rank.benchmark.Recorder` that writes each finished unit to a
    results store (its methods, without the import of the base class).

    A run is known by its *run key*, the fingerprint of its provenance (command, data sets,
    test set, models and their settings, metrics, convention, splitter, seeds, library
    versions). A unit is known by its *unit key*: the data's SHA-256 (and the test set's,
    for a refit), the data set's name and the seed in a run of several, the model's label,
    specification and parameters (with a candidate's), the fingerprint of a
    ``MODULE:CLASS``'s code, the fold, the splitter and seed, the number of trees, the
    metrics' canonical keys, the convention and the versions of the libraries that compute.
    A resumed run reuses a stored unit only when every one of these is equal: the same
    computation. The key of a unit of a run of one data set and one seed is the one stores
    written before the data set and seed axis hold, so that their runs resume.

    Parameters
    ----------
    path : str or path-like
        The store.
    resume : bool
        Continue the stored run of the same settings (without one, start a run that
        reuses the equal units of the store's other runs). False refuses a store that holds
        a run of the same settings (:class:`RunExistsError`).
    predictions : bool, default=False
        The caller needs the units' predictions: a stored unit without them is run again.
    refit_estimator : bool, default=False
        The caller needs the refitted model: the refit is always run, since the store does
        not keep models.
    note : callable, default=None
        ``note(event, run)`` is called with ``"no run to resume"`` (``run`` None),
        ``"finished"`` or ``"resuming"`` (``run``: the stored run, a dict of
        :meth:`ResultsStore.runs`), to say what is reused.
    """

    def __init__(self, path, *, resume, predictions=False, refit_estimator=False, note=None):
        self.path = os.fspath(path)
        self.resume = resume
        self.predictions = predictions
        self.refit_estimator = refit_estimator
        self.note = note if note is not None else (lambda event, run: None)
        self.store = None
        self.run_id = None

    def start(self, provenance, units):
        provenance = _with_code(provenance)
        self.provenance = provenance
        self.store = ResultsStore(self.path)
        run_key = fingerprint(_run_identity(provenance))
        existing = self.store.find_run(run_key)
        if existing is not None and not self.resume:
            self.store.close()
            raise RunExistsError(self.path, existing)
        if existing is None and self.resume:  # say why nothing is resumed
            self.note("no run to resume", None)
        if existing is None:
            try:
                self.run_id = self.store.start_run(
                    run_key, provenance["command"], provenance,
                    [unit.label() for unit in units])
            except sqlite3.IntegrityError:  # another process started it meanwhile
                existing = self.store.find_run(run_key)
        if existing is not None:
            self.run_id = existing["id"]
            self.note("finished" if existing["finished"] else "resuming", existing)

    def _key(self, unit, params):
        p = self.provenance
        models = p.get("models") or {p["model"]["label"]: p["model"]}
        model = models.get(unit.model, {})
        data = p["data"] if unit.dataset is None else p["datasets"][unit.dataset]
        seed = p["seed"] if unit.seed is None else unit.seed
        identity = {
            "command": p["command"], "data": data["sha256"],
            "test": None if unit.fold is not None or p.get("test") is None
            else p["test"]["sha256"],
            "model": unit.model, "spec": model.get("model"), "params": params,
            "fold": unit.fold, "splitter": p["splitter"], "seed": seed,
            "n_estimators": p.get("n_estimators"),
            # a data set of a run of several has its own keys (its own grade scale)
            "metrics": data.get("metrics", p["metrics"]),
            "convention": p.get("convention"), "versions": _versions(p),
        }
        if unit.dataset is not None:  # keys of a run of one data set stay as they were
            identity["dataset"] = unit.dataset
        if model.get("code") is not None:  # a user class: its code (the keys of others kept)
            identity["code"] = model["code"]
        return fingerprint(identity)

    def known(self, unit, params):
        from ._units import UnitResult

        if not self.resume:
            return None
        if unit.fold is None and self.refit_estimator:
            return None
        stored = self.store.find_unit(self._key(unit, params), self.run_id)
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
        unit = result.unit
        p = self.provenance
        data = p["data"] if unit.dataset is None else p["datasets"][unit.dataset]
        record = {
            "key": self._key(unit, result.params),
            "data_sha256": data["sha256"], "model": unit.model,
            "candidate": unit.candidate, "fold": unit.fold,
            "split": "cv" if unit.fold is not None else "test",
            "params": result.params, "scores": result.scores,
            "per_query": result.per_query, "fit_time": result.fit_time,
            "score_time": result.score_time, "versions": p.get("versions", {}),
            "seed": p["seed"] if unit.seed is None else unit.seed,
            "predictions": result.predictions, "rows": result.rows,
            "describe": unit.label(), "dataset": unit.dataset}
        self.store.write_unit(self.run_id, record)

    def finish(self):
        try:
            self.store.finish_run(self.run_id)
        finally:
            self.store.close()

    def close(self):
        """Close the store without marking the run finished (a run that failed)."""
        if self.store is not None:
            self.store.close()
