"""The results store of ``cv`` and ``tune`` (``--store``, ``--resume``) and its reader.

A killed run is a real process ended by ``os._exit`` in a model's ``fit`` (as a crash or an
out-of-memory kill ends it), resumed by a new process; the concurrent writers are two real
processes; the full disk is SQLite's own SQLITE_FULL, from ``PRAGMA max_page_count`` on the
connections the command opens. Every result is compared with an uninterrupted run of the same
command, never with numbers written here.
"""

import csv
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _cli import one_line_error

from sklearn_rank._cli import main
from sklearn_rank.benchmark import _store
from sklearn_rank.benchmark._store import ResultsStore, load_store
from sklearn_rank.stats import compare

ROOT = Path(__file__).resolve().parents[1]

KILLER = '''
import os
from pathlib import Path

import numpy as np
from sklearn.linear_model import Ridge


class Killer(Ridge):
    """A ridge regression that counts its fits, one line each in the file $FITS, and kills
    its process at the fit numbered $KILL_AT (from 1), as a crash would. The command's
    trial fit on three queries (a check of the settings, before the work) is not counted."""

    def fit(self, X, y, qid=None, sample_weight=None):
        if qid is not None and len(np.unique(qid)) <= 3:
            return super().fit(X, y, sample_weight=sample_weight)
        log = Path(os.environ["FITS"])
        with open(log, "a") as handle:
            handle.write("fit\\n")
        if os.environ.get("KILL_AT") == str(len(log.read_text().splitlines())):
            os._exit(137)
        return super().fit(X, y, sample_weight=sample_weight)
'''

CV = ["cv", "--n-queries", "30", "--n-splits", "3", "--metrics", "ndcg@5", "map",
      "--model", "a=killer:Killer", "--model", "b=killer:Killer", "--set", "alpha=10", "-q"]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working folder with ``killer.py``, where ``--model killer:Killer`` finds it."""
    (tmp_path / "killer.py").write_text(KILLER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command adds the folder to it
    monkeypatch.delitem(sys.modules, "killer", raising=False)
    monkeypatch.delenv("KILL_AT", raising=False)
    return tmp_path


def fits(path):
    return len(Path(path).read_text().splitlines()) if Path(path).exists() else 0


def run_process(folder, argv, fits_file, kill_at=None):
    """``sklearn-rank ARGV`` in a process of its own."""
    env = {**os.environ, "FITS": str(fits_file), "PYTHONPATH": str(ROOT)}
    env.pop("KILL_AT", None)
    if kill_at is not None:
        env["KILL_AT"] = str(kill_at)
    return subprocess.run([sys.executable, "-m", "sklearn_rank", *map(str, argv)], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=120)


def run_here(capsys, monkeypatch, fits_file, *argv):
    """``(exit code, stdout, stderr, fits)`` of ``main(argv)`` in this process."""
    monkeypatch.setenv("FITS", str(fits_file))
    before = fits(fits_file)
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err, fits(fits_file) - before


def without_times(text):
    """The output but its times (cv's line of fit times, tune's column): they differ between
    any two runs."""
    return re.sub(r"\d+\.\d+ s\b", "(time)", "\n".join(
        line for line in text.splitlines() if "Mean fit time" not in line))


def integrity(path):
    with sqlite3.connect(path) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


# ----------------------------------------------------------------------------------------
# A killed run, resumed


@pytest.mark.slow  # a subprocess killed mid-run, then resumed
def test_killed_cv_resumed_computes_only_the_missing_units(capsys, monkeypatch, folder):
    outputs = ["--output", "cv.json", "--per-query-output", "per_query.csv"]
    (folder / "ref").mkdir()
    # the uninterrupted run (in this process)
    code, reference, err, n = run_here(
        capsys, monkeypatch, folder / "ref.fits", *CV, "--store", "ref/ref.sqlite",
        "--output", "ref/cv.json", "--per-query-output", "ref/per_query.csv")
    assert (code, n) == (0, 6), err  # 2 models x 3 folds

    killed = run_process(folder, [*CV, "--store", "run.sqlite", *outputs], folder / "a.fits",
                         kill_at=4)
    assert killed.returncode == 137
    assert not (folder / "cv.json").exists()
    (run,) = ResultsStore(folder / "run.sqlite").runs()
    assert run["finished"] is None and run["n_stored"] == 3 and len(run["units"]) == 6
    assert integrity(folder / "run.sqlite") == "ok"
    with pytest.raises(ValueError, match="holds no finished run .*3 of 6 units"):
        load_store(folder / "run.sqlite")

    resumed = run_process(folder, [*CV, "--store", "run.sqlite", "--resume", *outputs],
                          folder / "b.fits")
    assert resumed.returncode == 0, resumed.stderr
    assert fits(folder / "b.fits") == 3  # the unit killed and the two never started
    assert "resuming run 1" in resumed.stderr and "3 of 6 units stored" in resumed.stderr
    assert without_times(resumed.stdout) == without_times(reference)
    got, expected = (json.loads(Path(p).read_text())
                     for p in (folder / "cv.json", folder / "ref" / "cv.json"))
    assert got["cv"] == expected["cv"]
    for part in (got, expected):  # what this process has imported besides is no matter
        part["metadata"].pop("versions")
    assert got["metadata"] == expected["metadata"]
    assert got["folds"]["a"]["scores_by_fold"] == expected["folds"]["a"]["scores_by_fold"]
    assert (read_csv(folder / "per_query.csv")
            == read_csv(folder / "ref" / "per_query.csv"))
    (run,) = ResultsStore(folder / "run.sqlite").runs()
    assert run["finished"] is not None and run["n_stored"] == 6

    # the reader gives notebooks the table the command printed
    systems = load_store(folder / "run.sqlite")
    table = compare(systems, metric=systems.metrics, baseline=systems.baseline,
                    random_state=systems.seed)
    assert table.to_string() in reference
    assert list(systems) == ["a", "b"] and systems.metrics == ["ndcg@5", "map"]
    # the store's run brings its metrics, baseline and seed: the same table by default,
    # from the run or from the store's path
    assert compare(systems).to_string() == table.to_string()
    assert compare(folder / "run.sqlite").to_string() == table.to_string()
    assert compare(str(folder / "run.sqlite"), metric="map").metrics == ["map"]


def test_resume_after_the_model_code_changed_computes_every_unit(capsys, monkeypatch,
                                                                  folder):
    # version 2 of the class ranks by the opposite of version 1's predictions: a resumed
    # run that kept version 1's units would mix folds of the two
    outputs = ["--output", "cv.json"]
    killed = run_process(folder, [*CV, "--store", "run.sqlite", *outputs], folder / "a.fits",
                         kill_at=4)
    assert killed.returncode == 137
    (folder / "killer.py").write_text(KILLER.replace(
        "class Killer(Ridge):", "class Killer(Ridge):\n    def predict(self, X):\n"
        "        return -super().predict(X)\n"))
    resumed = run_process(folder, [*CV, "--store", "run.sqlite", "--resume", *outputs],
                          folder / "b.fits")
    assert resumed.returncode == 0, resumed.stderr
    assert fits(folder / "b.fits") == 6  # none of version 1's units is reused
    assert "holds no run of these settings to resume" in resumed.stderr
    (folder / "ref").mkdir()
    reference = run_process(folder, [*CV, "--store", "ref/ref.sqlite",
                                     "--output", "ref/cv.json"], folder / "c.fits")
    assert reference.returncode == 0, reference.stderr
    assert without_times(resumed.stdout) == without_times(reference.stdout)
    got, expected = (json.loads(Path(p).read_text())
                     for p in (folder / "cv.json", folder / "ref" / "cv.json"))
    assert got["cv"] == expected["cv"]
    code = got["metadata"]["models"]["a"]["code"]
    assert code["class"] == "killer.Killer" and len(code["sha256"]) == 64
    # the store holds the killed run of version 1, unfinished, and the run of version 2
    runs = ResultsStore(folder / "run.sqlite").runs()
    assert [(r["n_stored"], r["finished"] is not None) for r in runs] == [(3, False),
                                                                         (6, True)]


# ----------------------------------------------------------------------------------------
# Which units a resumed run reuses


def test_resume_reuses_only_the_same_computation(capsys, monkeypatch, folder):
    count = folder / "fits"
    store = ["--store", "s.sqlite"]
    code, first, err, n = run_here(capsys, monkeypatch, count, *CV, *store)
    assert (code, n) == (0, 6), err

    # the same run again: refused without --resume, read back with it
    code, out, err, n = run_here(capsys, monkeypatch, count, *CV, *store)
    assert code == 2 and n == 0
    assert "already holds this run (run 1" in one_line_error(err, "cv")
    assert "add --resume" in err
    code, out, err, n = run_here(capsys, monkeypatch, count, *CV, *store, "--resume")
    assert (code, n) == (0, 0), err
    assert out == first

    # b's parameter changes: a's units are reused, b's computed
    changed = [*CV[:-3], "--set", "alpha=5", "-q"]
    code, out, err, n = run_here(capsys, monkeypatch, count, *changed, *store, "--resume")
    assert (code, n) == (0, 3), err
    # other metrics, another seed (other data and folds), other folds: all computed again
    for argv in ([*CV, "--metrics", "ndcg@10"], [*CV, "--seed", "1"],
                 [*CV, "--n-splits", "4"], [*CV, "--convention", "trec_eval"]):
        code, out, err, n = run_here(capsys, monkeypatch, count, *argv, *store, "--resume")
        assert code == 0, err
        assert n == 2 * (4 if "4" in argv else 3), argv
    runs = ResultsStore(folder / "s.sqlite").runs()
    assert len(runs) == 6 and all(r["finished"] for r in runs)
    # a run that reused units holds them: it reads back whole
    assert runs[1]["n_stored"] == 6
    systems = load_store(folder / "s.sqlite", run=runs[1]["id"])
    reference = load_store(folder / "s.sqlite", run=runs[0]["id"])
    np.testing.assert_array_equal(systems["a"]["ndcg@5"], reference["a"]["ndcg@5"])
    store = ResultsStore(folder / "s.sqlite")
    params = {(u["model"], u["fold"]): u["params"] for u in store.read_units(runs[1]["id"])}
    assert params == {**{("a", f): {} for f in range(3)},
                      **{("b", f): {"alpha": 5} for f in range(3)}}


def test_configuration_file_names_the_store(capsys, monkeypatch, folder):
    (folder / "bench").mkdir()
    (folder / "bench" / "cv.toml").write_text('store = "results.sqlite"\n')
    config = ["--config", "bench/cv.toml"]
    code, first, err, n = run_here(capsys, monkeypatch, folder / "fits", *CV, *config)
    assert (code, n) == (0, 6), err
    (run,) = ResultsStore(folder / "bench" / "results.sqlite").runs()  # beside the file
    assert run["finished"] and run["n_stored"] == 6
    code, out, err, n = run_here(capsys, monkeypatch, folder / "fits", *CV, *config,
                                 "--resume")
    assert (code, n) == (0, 0), err
    assert out == first


def test_plot_needs_predictions_the_stored_units_lack(capsys, monkeypatch, folder):
    count = folder / "fits"
    store = ["--store", "s.sqlite"]
    assert run_here(capsys, monkeypatch, count, *CV, *store)[0] == 0
    # a run with --plot is another run; the stored units have no predictions: recomputed
    code, out, err, n = run_here(capsys, monkeypatch, count, *CV, *store, "--resume",
                                 "--plot", "cv.png")
    assert (code, n) == (0, 6), err
    assert (folder / "cv.png").stat().st_size > 0
    # once stored with their predictions, they are read back
    os.remove(folder / "cv.png")
    code, out, err, n = run_here(capsys, monkeypatch, count, *CV, *store, "--resume",
                                 "--plot", "cv.png")
    assert (code, n) == (0, 0), err
    assert (folder / "cv.png").stat().st_size > 0


# ----------------------------------------------------------------------------------------
# Faults


def full_disk(monkeypatch):
    """Every store the command opens gets SQLite's own limit on its pages: two more than
    it has, past which writes fail with SQLITE_FULL, as on a full disk."""
    connect = _store.connect

    def limited(path):
        connection = connect(path)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {pages + 2}")
        return connection

    monkeypatch.setattr(_store, "connect", limited)
    return lambda: monkeypatch.setattr(_store, "connect", connect)


TUNE = ["tune", "--n-queries", "30", "--n-splits", "3", "--model", "killer:Killer",
        "--param", "alpha=0.1,1,10", "-q"]


@pytest.mark.parametrize("command", ["cv", "tune"])
def test_full_disk_is_one_line_and_the_run_stays_unfinished(capsys, monkeypatch, folder,
                                                            command):
    argv, n_units = {"cv": (CV, 6), "tune": (TUNE, 9)}[command]
    count = folder / "fits"
    # the uninterrupted run, in a store of its own
    code, reference, err, _ = run_here(capsys, monkeypatch, count, *argv, "--store", "ref.db",
                                       "--output", "ref.json")
    assert code == 0, err
    ResultsStore(folder / "full.db").close()  # an empty store: its schema's pages only
    disk_freed = full_disk(monkeypatch)
    code, out, err, n = run_here(capsys, monkeypatch, count, *argv, "--store", "full.db",
                                 "--output", "out.json")
    assert code == 1
    line = one_line_error(err, command)
    assert "--store 'full.db': cannot write the results of" in line
    assert "the disk is full" in line and "rerun with --resume" in line
    assert "Traceback" not in err
    assert not (folder / "out.json").exists()
    disk_freed()
    (run,) = ResultsStore(folder / "full.db").runs()
    # no partial run taken for whole
    assert run["finished"] is None and 0 < run["n_stored"] < n_units
    assert integrity(folder / "full.db") == "ok"
    with pytest.raises(ValueError, match="unfinished"):
        load_store(folder / "full.db", run=run["id"])

    code, out, err, n = run_here(capsys, monkeypatch, count, *argv, "--store", "full.db",
                                 "--resume", "--output", "out.json")
    assert code == 0, err
    assert n == n_units - run["n_stored"]
    assert without_times(out) == without_times(reference)
    got, expected = (json.loads((folder / name).read_text())
                     for name in ("out.json", "ref.json"))
    if command == "cv":
        assert got["cv"] == expected["cv"]
    else:
        for key in ("best_params", "best_score", "best_score_std", "best_index"):
            assert got[key] == expected[key]
        for key, values in expected["cv_results"].items():
            if "time" not in key:
                assert got["cv_results"][key] == values, key


@pytest.mark.parametrize("argv, code, parts", [
    (["--resume"], 2, ["--resume continues a run stored with --store, which is not given"]),
    (["--store", "results.txt"], 2, ["--store 'results.txt': unknown file type '.txt'",
                                     ".sqlite, .sqlite3, .db"]),
    (["--store", "missing/r.sqlite"], 1, ["the folder 'missing' does not exist"]),
    (["--store", "text.sqlite"], 1, ["--store 'text.sqlite' is not a results store of "
                                     "sklearn-rank"]),
    (["--store", "other.db"], 1, ["'other.db' is not a results store of sklearn-rank",
                                  "tables t"]),
])
def test_store_option_errors(capsys, folder, argv, code, parts):
    (folder / "text.sqlite").write_text("not a database\n" * 100)
    with sqlite3.connect(folder / "other.db") as connection:
        connection.execute("CREATE TABLE t (x)")
    for command in (CV, ["tune", "--n-queries", "30", "--param", "num_leaves=3,7", "-q"]):
        got = main([*command, *argv])
        out, err = capsys.readouterr()
        assert got == code, err
        line = one_line_error(err, command[0])
        for part in parts:
            assert part in line
        assert out == ""  # refused before any work
    assert (folder / "text.sqlite").read_text() == "not a database\n" * 100


def test_load_store_errors(tmp_path):
    with pytest.raises(ValueError, match="no such results store"):
        load_store(tmp_path / "missing.sqlite")
    ResultsStore(tmp_path / "empty.sqlite").close()
    with pytest.raises(ValueError, match="holds no finished run"):
        load_store(tmp_path / "empty.sqlite")
    with pytest.raises(ValueError, match="has no run 3; its runs: none"):
        load_store(tmp_path / "empty.sqlite", run=3)
    with pytest.raises(ValueError, match="split must be 'cv' or 'test'; got 'train'"):
        load_store(tmp_path / "empty.sqlite", split="train")


# ----------------------------------------------------------------------------------------
# The store itself


def unit(key, qid, values, fold=0):
    return {"key": key, "data_sha256": "0" * 64, "model": "m", "candidate": None,
            "fold": fold, "split": "cv", "params": {"alpha": 0.1}, "scores": {"x": 0.5},
            "per_query": {"qid": qid, "x": values}, "fit_time": 0.25, "score_time": 0.125,
            "versions": {"numpy": np.__version__}, "seed": 0, "describe": key}


@pytest.mark.parametrize("qid", [
    np.array(["007", "7", "b", "10"]),
    np.array([7, 10, 123456789012, -1], dtype=np.int64),
    np.array([7, 10, 12, 1], dtype=np.int32),
    np.array(["q1", 2, "3", 4], dtype=object),
    np.array([2**63, 2**64 - 1, 7, 0], dtype=np.uint64),
], ids=["str", "int64", "int32", "object", "uint64"])
def test_query_ids_and_values_round_trip(tmp_path, qid):
    values = np.array([0.1, np.nan, 1 / 3, 0.0])
    store = ResultsStore(tmp_path / "s.sqlite")
    run_id = store.start_run("k", "sklearn-rank cv", {"metrics": {"x": "x"}}, ["u"])
    store.write_unit(run_id, unit("u", qid, values))
    (got,) = store.read_units(run_id)
    assert got["per_query"]["qid"].dtype == qid.dtype
    assert [type(q) for q in got["per_query"]["qid"].tolist()] == [type(q)
                                                                  for q in qid.tolist()]
    np.testing.assert_array_equal(got["per_query"]["qid"], qid)
    np.testing.assert_array_equal(got["per_query"]["x"], values)  # NaN where NaN
    assert got["per_query"]["x"][2] == 1 / 3  # every digit
    kinds = {row[0] for row in store.connection.execute("SELECT typeof(qid) FROM per_query")}
    assert kinds == {{"U": "text", "i": "integer", "u": "integer", "O": None}[qid.dtype.kind]} or (
        qid.dtype.kind == "O" and kinds == {"text", "integer"})


WRITER = '''
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

spec = importlib.util.spec_from_file_location("store", sys.argv[4])
store_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(store_module)
ResultsStore = store_module.ResultsStore

path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = ResultsStore(path)
run_id = store.start_run(name, "test", {"metrics": {"x": "x"}}, [])
Path(path + "." + name + ".ready").touch()
while not Path(path + ".go").exists():  # both writers start together
    time.sleep(0.005)
for i in range(n):
    qid = np.arange(40) + 1000 * i
    store.write_unit(run_id, {
        "key": f"{name}-{i}", "data_sha256": "0" * 64, "model": name, "candidate": None,
        "fold": i, "split": "cv", "params": {}, "scores": {"x": float(i)},
        "per_query": {"qid": qid, "x": qid / 7.0}, "fit_time": 0.0, "score_time": 0.0,
        "versions": {}, "seed": 0, "describe": f"{name} unit {i}"})
    time.sleep(0.003)  # a benchmark's units end apart: the other writer's turn
store.finish_run(run_id)
'''


def test_two_processes_write_one_store_at_once(tmp_path):
    """Two real writers, each committing units as fast as it can, into one file."""
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    path = tmp_path / "s.sqlite"
    ResultsStore(path).close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    n = 100
    writers = [subprocess.Popen([sys.executable, str(script), str(path), name, str(n),
                                 _store.__file__], env=env, stderr=subprocess.PIPE, text=True)
               for name in ("one", "two")]
    for name in ("one", "two"):
        ready = Path(f"{path}.{name}.ready")
        for _ in range(6000):
            if ready.exists() or any(w.poll() is not None for w in writers):
                break
            time.sleep(0.01)
    Path(f"{path}.go").touch()
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    assert integrity(path) == "ok"
    store = ResultsStore(path)
    runs = store.runs()
    assert sorted(r["run_key"] for r in runs) == ["one", "two"]
    # the writers did write at once: their units alternate in the order committed
    order = [row[0] for row in store.connection.execute("SELECT run_id FROM units ORDER BY id")]
    assert sum(a != b for a, b in zip(order, order[1:])) > 2
    assert all(r["finished"] for r in runs) and [r["n_stored"] for r in runs] == [n, n]
    for r in runs:
        units = store.read_units(r["id"])
        assert sorted(u["fold"] for u in units) == list(range(n))
        for u in units:
            qid = np.arange(40) + 1000 * u["fold"]
            np.testing.assert_array_equal(u["per_query"]["qid"], qid)
            np.testing.assert_array_equal(u["per_query"]["x"], qid / 7.0)


def test_store_schema_is_documented():
    """The module's notes list every column of every table of the schema."""
    with sqlite3.connect(":memory:") as connection:
        for statement in _store._SCHEMA.split(";"):
            connection.execute(statement)
        for table in ("runs", "units", "per_query"):
            columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
            documented = _store.__doc__.split(f"``{table}(")[1].split(")``")[0]
            names = [c.split()[0] for c in documented.replace("\n", " ").split(",")]
            assert names == columns, table



# ----------------------------------------------------------------------------------------
# Damaged, hostile and read-only stores

SMALL = ["cv", "--n-queries", "30", "--n-splits", "3", "--metrics", "ndcg@5", "--model",
         "pointwise", "--model", "sklearn.linear_model:Ridge", "--n-estimators", "3", "-q"]


@pytest.fixture
def finished_store(tmp_path, capsys):
    """A store holding one finished ``cv`` run (of 6 units), every page in the file."""
    path = tmp_path / "s.sqlite"
    assert main([*SMALL, "--store", str(path)]) == 0
    capsys.readouterr()
    return path


def set_query_ids_dtype(path, text):
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE units SET qid_dtype = ?", (text,))
    connection.close()


def test_str_query_ids_of_a_huge_dtype_take_their_own_width(tmp_path):
    # '<U20000000' for 4 ids would be 320 MB: the width is that of the longest id
    store = ResultsStore(tmp_path / "s.sqlite")
    run_id = store.start_run("k", "sklearn-rank cv", {"metrics": {"x": "x"}}, ["u"])
    store.write_unit(run_id, unit("u", np.array(["007", "7", "b", "10"]), np.zeros(4)))
    store.close()
    set_query_ids_dtype(tmp_path / "s.sqlite", "<U20000000")
    (got,) = ResultsStore(tmp_path / "s.sqlite", create=False).read_units(run_id)
    assert got["per_query"]["qid"].dtype == np.dtype("<U3")
    assert got["per_query"]["qid"].tolist() == ["007", "7", "b", "10"]


@pytest.mark.parametrize("text", ["<U20000000", "|S20000000", "|V80000000", "<i20000000",
                                  "[('a', '<f8', (100000000,))]", "<U2"])
def test_query_ids_dtype_no_run_writes_is_one_line(finished_store, capsys, text):
    # the generated data's ids are ints: no str dtype fits them, and the others are no
    # dtype of query ids; "<U2" would truncate str ids
    set_query_ids_dtype(finished_store, text)
    with pytest.raises(ValueError, match=r"is a damaged results store \(unit 1 holds values "
                                         r"no run writes: .*\); restore it from a copy"):
        load_store(finished_store)
    code = main(["report", str(finished_store), "-o", str(finished_store.parent / "r.html")])
    line = one_line_error(capsys.readouterr().err, "report")
    assert code == 1 and "STORE" in line and "damaged results store" in line
    assert not (finished_store.parent / "r.html").exists()


def wrong_tables(path):
    """A SQLite file of the store's schema version whose tables are others."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, x)")
    connection.execute("PRAGMA user_version = 1")
    connection.close()


def damaged_pages(path):
    """The root page of the per-query values overwritten: the runs and units read, the
    values do not (SQLite: "database disk image is malformed")."""
    connection = sqlite3.connect(path)
    page = connection.execute("PRAGMA page_size").fetchone()[0]
    (root,) = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = "
                                 "'per_query'").fetchone()
    connection.close()
    assert not Path(f"{path}-wal").exists()  # every page is in the file
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * page)
        handle.write(b"\xa5" * page)


@pytest.mark.parametrize("damage, says", [
    (wrong_tables, "is not a results store of sklearn-rank (schema version 1, tables runs; "
                   "expected schema version 1 with the tables runs, units, per_query)"),
    (damaged_pages, "is a damaged results store (SQLite cannot read its per-query values: "
                    "database disk image is malformed); restore it from a copy"),
], ids=["wrong tables", "damaged page"])
def test_damaged_store_is_one_line_for_every_reader(tmp_path, capsys, monkeypatch, damage,
                                                    says):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "s.sqlite"
    if damage is damaged_pages:
        assert main([*SMALL, "--store", "s.sqlite"]) == 0
    damage(path)
    capsys.readouterr()
    with pytest.raises(ValueError) as info:
        load_store(path)
    assert says in str(info.value)
    commands = [["report", "s.sqlite", "-o", "r.html"],
                [*SMALL, "--store", "s.sqlite", "--resume"]]
    if damage is wrong_tables:  # the run of the damaged store is found: a new one is refused
        commands.append([*SMALL, "--store", "s.sqlite"])
    for argv in commands:
        code = main(argv)
        err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                      if ": note: " not in line)
        line = one_line_error(err, argv[0])
        assert code == 1 and says in line, line
        assert "cross-validation failed" not in line and "--resume to complete" not in line
    assert not (tmp_path / "r.html").exists()


def test_store_in_a_read_only_folder_is_read(finished_store, capsys):
    """``chattr +i``: no file can be created in the folder, not even by root."""
    folder = finished_store.parent
    for name in ("a.txt", "r.html"):
        (folder / name).unlink(missing_ok=True)
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        with pytest.raises(OSError):
            (folder / "a.txt").write_text("")
        systems = load_store(finished_store)
        assert list(systems) == ["pointwise", "Ridge"] and systems.finished
        out = folder.parent / f"{folder.name}-report.html"
        assert main(["report", str(finished_store), "-o", str(out)]) == 0, (
            capsys.readouterr().err)
        assert "Run 1" in out.read_text()
        # read-only: nothing beside the file, no journal mode set
        assert sorted(p.name for p in folder.iterdir()) == ["s.sqlite"]
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_store_in_a_read_only_folder_with_changes_in_its_log(finished_store, tmp_path):
    """A copy of a store taken while its writer ran (the file and its -wal, the log not yet
    copied into the file), in a read-only folder: SQLite cannot read it; the error says why
    and what to do."""
    writer = sqlite3.connect(finished_store, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE runs SET started = started || ' '")
    folder = tmp_path / "copy"
    folder.mkdir()
    for name in ("s.sqlite", "s.sqlite-wal"):
        shutil.copy(finished_store.parent / name, folder / name)
    writer.close()
    assert (folder / "s.sqlite-wal").stat().st_size > 0
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        with pytest.raises(ValueError, match=r"s.sqlite': SQLite cannot open it \(.*\): its "
                                             r"folder is read-only and its write-ahead log "
                                             r".*s.sqlite-wal' holds changes not yet in the "
                                             r"file. Copy the store with its -wal file"):
            load_store(folder / "s.sqlite")
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


SELF_KILLER = '''
import os
import signal
from pathlib import Path

import numpy as np
from sklearn.linear_model import Ridge


class SelfKiller(Ridge):
    """A ridge regression sent SIGKILL (kill -9) at its fit numbered $KILL_AT (from 1): no
    handler, no close of the store. The trial fit on three queries is not counted."""

    def fit(self, X, y, qid=None, sample_weight=None):
        if qid is not None and len(np.unique(qid)) > 3:
            log = Path(os.environ["FITS"])
            with open(log, "a") as handle:
                handle.write("fit\\n")
            if os.environ["KILL_AT"] == str(len(log.read_text().splitlines())):
                os.kill(os.getpid(), signal.SIGKILL)
        return super().fit(X, y, sample_weight=sample_weight)
'''


def test_killed_run_leaves_its_units_in_the_file_itself(tmp_path):
    (tmp_path / "selfkiller.py").write_text(SELF_KILLER)
    env = {**os.environ, "FITS": str(tmp_path / "fits"), "KILL_AT": "4",
           "PYTHONPATH": str(ROOT)}
    argv = ["cv", "--n-queries", "30", "--n-splits", "3", "--metrics", "ndcg@5", "--model",
            "a=selfkiller:SelfKiller", "--model", "b=selfkiller:SelfKiller", "-q",
            "--store", "s.sqlite"]
    got = subprocess.run([sys.executable, "-m", "sklearn_rank", *argv], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == -9, got.stderr
    # the file alone, copied without its -wal and -shm companions, holds the 3 units
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(tmp_path / "s.sqlite", copy / "s.sqlite")
    store = ResultsStore(copy / "s.sqlite", create=False)
    (run,) = store.runs()
    assert (run["finished"], run["n_stored"], len(run["units"])) == (None, 3, 6)
    assert len(store.read_units(run["id"])) == 3
    store.close()


def test_unsigned_64_bit_query_ids_are_stored_losslessly(tmp_path, capsys, monkeypatch):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    qid = np.repeat(np.uint64(2**63) + np.arange(12, dtype=np.uint64) * np.uint64(2**59), 5)
    assert qid.max() == 2**63 + 11 * 2**59 and qid.dtype == np.uint64
    pd.DataFrame({"qid": qid, "label": rng.integers(0, 3, 60), "f1": rng.random(60),
                  "f2": rng.random(60)}).to_parquet("d.parquet")
    argv = ["cv", "--data", "d.parquet", "--n-splits", "3", "--metrics", "ndcg@5", "--model",
            "pointwise", "--model", "sklearn.linear_model:Ridge", "--n-estimators", "3", "-q",
            "--per-query-output", "plain.csv"]
    assert main(argv) == 0
    plain = without_times(capsys.readouterr().out)
    assert main([*argv, "--store", "s.sqlite"]) == 0, capsys.readouterr().err
    assert without_times(capsys.readouterr().out) == plain
    assert main([*argv, "--store", "s.sqlite", "--resume"]) == 0  # read back
    assert without_times(capsys.readouterr().out) == plain
    systems = load_store("s.sqlite")
    assert systems["Ridge"]["qid"].dtype == np.uint64
    np.testing.assert_array_equal(np.sort(systems["Ridge"]["qid"]), np.unique(qid))
    by_qid = {row["qid"]: row["ndcg@5"] for row in read_csv("plain.csv")
              if row["model"] == "Ridge"}
    assert {str(q): repr(v) for q, v in zip(systems["Ridge"]["qid"].tolist(),
                                            systems["Ridge"]["ndcg@5"].tolist())} == by_qid


def test_a_value_beyond_sqlites_integers_is_a_store_error_and_rolled_back(tmp_path):
    store = ResultsStore(tmp_path / "s.sqlite")
    run_id = store.start_run("k", "sklearn-rank cv", {"metrics": {"x": "x"}}, ["u"])
    huge = np.array([2**70, 1], dtype=object)
    with pytest.raises(_store.StoreError, match=r"cannot write the results of u: Python int "
                                                r"too large to convert to SQLite INTEGER"):
        store.write_unit(run_id, unit("u", huge, np.zeros(2)))
    assert not store.connection.in_transaction  # the lock is released
    assert store.read_units(run_id) == []
    store.write_unit(run_id, unit("u", np.array([1, 2]), np.zeros(2)))  # the store goes on
    assert len(store.read_units(run_id)) == 1


# ----------------------------------------------------------------------------------------
# StoreError.path: which file failed, without reading the message


def _not_a_database(path):
    path.write_text("not a database\n" * 100)


def _other_tables(path):
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (x)")
    connection.close()


@pytest.mark.parametrize("make, create, says", [
    (None, False, "no such results store"),
    (_not_a_database, True, "is not a results store of sklearn-rank: SQLite cannot read"),
    (_other_tables, True, "is not a results store of sklearn-rank (schema version"),
    (wrong_tables, False, "is not a results store of sklearn-rank (schema version 1"),
], ids=["missing", "not a database", "other tables", "wrong tables"])
def test_store_error_carries_the_path_of_the_store(tmp_path, make, create, says):
    from sklearn_rank.benchmark import StoreError

    path = tmp_path / "s.sqlite"
    if make is not None:
        make(path)
    with pytest.raises(StoreError) as caught:
        ResultsStore(path, create=create)
    assert says in str(caught.value)
    assert caught.value.path == os.fspath(path)


def test_run_exists_error_and_damaged_store_carry_the_path(tmp_path, capsys, monkeypatch):
    from sklearn_rank.benchmark import RunExistsError, StoreError

    monkeypatch.chdir(tmp_path)
    assert main([*SMALL, "--store", "s.sqlite"]) == 0
    capsys.readouterr()
    store = ResultsStore("s.sqlite")
    run = store.runs()[0]
    store.close()
    error = RunExistsError("s.sqlite", {**run, "n_stored": 0})
    assert isinstance(error, StoreError) and error.path == "s.sqlite"
    damaged_pages(tmp_path / "s.sqlite")
    with pytest.raises(StoreError) as caught:
        load_store("s.sqlite")
    assert caught.value.corrupt and caught.value.path == "s.sqlite"


def test_the_command_line_names_the_option_from_the_error_path():
    """The CLI names the option that gave the failing store from ``StoreError.path``, not
    from its message: a store it did not give is named by no option."""
    from sklearn_rank._cli._store import store_message
    from sklearn_rank.benchmark import StoreError

    error = StoreError("'a.sqlite' is not a results store.", path="a.sqlite")
    assert store_message(error, {Path("a.sqlite"): "--store"}) == (
        "--store 'a.sqlite' is not a results store.")
    assert store_message(error, {"b.sqlite": "--store"}) == "'a.sqlite' is not a results store."
