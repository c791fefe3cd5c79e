"""sklearn_rank.benchmark: runs of models x data sets x seeds x folds, stored, resumed and
reported from Python and from the command line (a real killed process, real SQLite files)."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _cli import one_line_error, run_cli
from sklearn.datasets import dump_svmlight_file
from sklearn.linear_model import Ridge

from sklearn_rank.benchmark import (
    BenchmarkResult,
    RunExistsError,
    StoreError,
    load_store,
    run_benchmark,
    write_report,
)
from sklearn_rank.benchmark._store import ResultsStore
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import PerQueryResult, evaluate_per_query
from sklearn_rank.model_selection import QueryKFold
from sklearn_rank.stats import compare

REPO = Path(__file__).resolve().parents[1]
DATA = {"easy": make_ranking(24, noise=0.2, random_state=0),
        "hard": make_ranking(21, noise=2.0, random_state=1)}


class FlakyRidge(Ridge):
    """A Ridge whose fits fail once ``FlakyRidge.fits_left`` reaches 0: a run that stops
    in the middle, in this process."""

    fits_left = None

    def fit(self, X, y, sample_weight=None):
        if FlakyRidge.fits_left is not None:
            if FlakyRidge.fits_left <= 0:
                raise RuntimeError("stopped on purpose")
            FlakyRidge.fits_left -= 1
        return super().fit(X, y, sample_weight=sample_weight)


def models():
    return {"ridge": FlakyRidge(alpha=1.0), "stiff": FlakyRidge(alpha=1000.0)}


def test_units_are_models_x_datasets_x_seeds_x_folds_with_a_split_per_seed():
    result = run_benchmark(models(), DATA, metrics=["ndcg@5"], n_splits=3, seeds=[3, 7])
    assert isinstance(result, BenchmarkResult)
    assert result.datasets == ["easy", "hard"] and result.seeds == [3, 7]
    assert sorted(result.folds) == [("easy", 3), ("easy", 7), ("hard", 3), ("hard", 7)]
    for (name, seed), systems in result.folds.items():
        X, y, qid = DATA[name]
        # each repeat's folds are QueryKFold's with the repeat's seed
        splits = list(QueryKFold(3, shuffle=True, random_state=seed).split(X, y, qid=qid))
        for label, fold in systems.items():
            per_query = fold["per_query"]
            for k, (train, test) in enumerate(splits):
                model = Ridge(alpha=models()[label].alpha).fit(X[train], y[train])
                expected = evaluate_per_query(y[test], model.predict(X[test]),
                                              qid=qid[test], metrics=["ndcg@5"])
                in_fold = per_query["fold"] == k
                np.testing.assert_array_equal(per_query["qid"][in_fold], expected.query_ids)
                np.testing.assert_allclose(per_query["ndcg@5"][in_fold], expected["ndcg@5"])
    # the two seeds' splits differ, so the seed spread is a real one
    assert not np.array_equal(result.folds["easy", 3]["ridge"]["per_query"]["qid"],
                              result.folds["easy", 7]["ridge"]["per_query"]["qid"])
    # the tables pair each query's value averaged over the seeds
    averaged = result.systems("hard")["ridge"]
    by_seed = [result.folds["hard", s]["ridge"]["per_query"] for s in (3, 7)]
    q = averaged["qid"][4]
    expected = np.mean([v["ndcg@5"][v["qid"] == q][0] for v in by_seed])
    assert averaged["ndcg@5"][4] == pytest.approx(expected)
    rows = [r for r in result.summary() if r["dataset"] == "hard" and r["model"] == "ridge"]
    means = [np.mean(v["ndcg@5"]) for v in by_seed]
    assert rows[0]["mean"] == pytest.approx(np.mean(means))
    assert rows[0]["seed_std"] == pytest.approx(np.std(means, ddof=1))
    per_query = result.per_query("ridge", dataset="easy", seed=3)
    assert isinstance(per_query, PerQueryResult) and len(per_query) == 24
    assert per_query.fold is not None
    assert result.compare("easy").systems == ["ridge", "stiff"]


def test_python_run_store_resume_report(tmp_path):
    """The issue's proof: a run stored, interrupted, resumed and reported from Python; the
    resumed run's values are those of an uninterrupted one."""
    whole = tmp_path / "whole.sqlite"
    reference = run_benchmark(models(), DATA, metrics=["ndcg@5", "map"], n_splits=3,
                              n_repeats=2, store=whole)
    store = tmp_path / "run.sqlite"
    FlakyRidge.fits_left = 9  # of 2 data sets x 2 seeds x 2 models x 3 folds = 24 units
    try:
        with pytest.raises(RuntimeError, match="stopped on purpose"):
            run_benchmark(models(), DATA, metrics=["ndcg@5", "map"], n_splits=3, n_repeats=2,
                          store=store)
    finally:
        FlakyRidge.fits_left = None
    (run,) = ResultsStore(store, create=False).runs()
    assert run["finished"] is None and run["n_stored"] == 9 and len(run["units"]) == 24
    # a second start without resume is refused, with the stored run as an attribute
    with pytest.raises(RunExistsError) as info:
        run_benchmark(models(), DATA, metrics=["ndcg@5", "map"], n_splits=3, n_repeats=2,
                      store=store)
    assert info.value.run["id"] == run["id"] and isinstance(info.value, StoreError)
    FlakyRidge.fits_left = 15  # exactly the 15 missing units: a stored one refitted fails
    try:
        resumed = run_benchmark(models(), DATA, metrics=["ndcg@5", "map"], n_splits=3,
                                n_repeats=2, store=store, resume=True)
    finally:
        FlakyRidge.fits_left = None
    assert resumed.run_id == run["id"]
    for key, systems in reference.folds.items():
        for label, fold in systems.items():
            for column, values in fold["per_query"].items():
                np.testing.assert_array_equal(resumed.folds[key][label]["per_query"][column],
                                              values)
    # the store reads back as the run computed it, one data set and seed at a time
    stored = load_store(store)
    assert stored.datasets == ["easy", "hard"] and stored.seeds == [0, 1]
    for name in ("easy", "hard"):
        for seed in (0, 1):
            one = stored.select(name, seed)
            for label in ("ridge", "stiff"):
                expected = reference.folds[name, seed][label]["per_query"]
                for column in ("qid", "fold", "ndcg@5", "map"):
                    np.testing.assert_array_equal(one[label][column], expected[column])
        table = compare(stored.select(name), metric=stored.metrics, baseline="ridge",
                        random_state=0)
        assert table.to_string() == reference.compare(name, random_state=0).to_string()
    result = stored.per_query_result("stiff", dataset="hard", seed=1)
    assert result == reference.per_query("stiff", dataset="hard", seed=1)
    # the report: a section per data set, the seed spread, from Python
    page = tmp_path / "report.html"
    reported = write_report(store, page)
    text = page.read_text()
    assert [r["id"] for r in reported] == [run["id"]]
    assert "Results on data set easy" in text and "Results on data set hard" in text
    assert "std over seeds" in text and "Data set hard SHA-256" in text


def test_run_of_one_dataset_keeps_the_stored_form(tmp_path):
    store = tmp_path / "one.sqlite"
    X, y, qid = DATA["easy"]
    result = run_benchmark(models(), (X, y, qid), metrics=["ndcg@5"], n_splits=3,
                           store=store)
    assert result.datasets == [None] and result.seeds == [None]
    stored = load_store(store)
    assert sorted(stored["ridge"]) == ["fold", "ndcg@5", "qid"]  # no data set, seed columns
    np.testing.assert_array_equal(stored["ridge"]["ndcg@5"],
                                  result.folds[None, None]["ridge"]["per_query"]["ndcg@5"])
    assert stored.per_query_result("ridge") == result.per_query("ridge")


@pytest.mark.parametrize("kwargs, error, says", [
    ({"n_repeats": 2, "seeds": [1, 2]}, ValueError, "n_repeats or seeds, not both"),
    ({"seeds": [1, 1]}, ValueError, "seeds must be distinct"),
    ({"n_repeats": 0}, ValueError, "n_repeats must be an integer of at least 1"),
    ({"resume": True}, ValueError, "resume=True continues a stored run"),
])
def test_run_benchmark_errors(kwargs, error, says):
    with pytest.raises(error, match=says):
        run_benchmark(models(), DATA, metrics=["ndcg@5"], n_splits=3, **kwargs)


def test_data_without_query_ids_is_refused():
    X, y, _ = DATA["easy"]
    with pytest.raises(ValueError, match="the query ids are None"):
        run_benchmark(models(), {"easy": (X, y, None)}, metrics=["ndcg@5"])


# ----------------------------------------------------------------------------------------
# Stores written before the data set column


def _drop_dataset_column(path):
    """The store as the code before the data set and seed axis wrote it: no ``dataset``
    column in its units."""
    connection = sqlite3.connect(path)
    connection.execute("ALTER TABLE units DROP COLUMN dataset")
    connection.commit()
    connection.close()


CV = ["cv", "--n-queries", "30", "--n-splits", "3", "--metrics", "ndcg@5", "--model",
      "ridge=sklearn.linear_model:Ridge", "--model",
      "ols=sklearn.linear_model:LinearRegression", "-q"]


def test_a_store_without_the_dataset_column_loads_and_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, first, _ = run_cli(capsys, *CV, "--store", "s.sqlite")
    assert code == 0
    # the store of an older sklearn-rank, and its run cut short: 2 of its 6 units lost
    _drop_dataset_column("s.sqlite")
    connection = sqlite3.connect("s.sqlite")
    connection.execute("DELETE FROM per_query WHERE unit_id IN (SELECT id FROM units "
                       "WHERE fold = 2)")
    connection.execute("DELETE FROM units WHERE fold = 2")
    connection.execute("UPDATE runs SET finished = NULL")
    connection.commit()
    connection.close()
    partial = load_store("s.sqlite", run=1, partial=True)  # read-only: no column added
    assert sorted(partial["ridge"]) == ["fold", "ndcg@5", "qid"]
    columns = {row[1] for row in sqlite3.connect("s.sqlite").execute("PRAGMA table_info(units)")}
    assert "dataset" not in columns
    code, resumed, err = run_cli(capsys, *CV, "--store", "s.sqlite", "--resume")
    assert code == 0, err
    assert "resuming run 1" in err and "4 of 6 units stored" in err
    assert [line for line in resumed.splitlines() if not line.startswith("Mean fit")] == [
        line for line in first.splitlines() if not line.startswith("Mean fit")]
    assert load_store("s.sqlite").finished is not None


# ----------------------------------------------------------------------------------------
# The command line: --dataset, --repeats, and a real run killed mid-way


SLOW_MODEL = '''
import time
from sklearn.linear_model import Ridge


class SlowRidge(Ridge):
    def fit(self, X, y, sample_weight=None):
        time.sleep(0.25)
        return super().fit(X, y, sample_weight=sample_weight)
'''


@pytest.fixture
def two_files(tmp_path):
    for i, name in enumerate(("a", "b")):
        X, y, qid = make_ranking(24, noise=0.3 + i, random_state=i)
        dump_svmlight_file(X, y, str(tmp_path / f"{name}.txt"), query_id=qid + 100 * i)
    (tmp_path / "slowmodels.py").write_text(SLOW_MODEL)
    return tmp_path


def several(store, *more):
    return ["cv", "--dataset", "A=a.txt", "--dataset", "B=b.txt", "--repeats", "2",
            "--n-splits", "3", "--metrics", "ndcg@5", "map", "--model", "slowmodels:SlowRidge",
            "--model", "ols=sklearn.linear_model:LinearRegression", "--store", store, *more]


def _command(argv):
    return [sys.executable, "-m", "sklearn_rank", *argv]


def _stored_units(path):
    if not os.path.exists(path):
        return 0
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return connection.execute("SELECT COUNT(*) FROM units").fetchone()[0]
        finally:
            connection.close()
    except sqlite3.OperationalError:  # the schema is not written yet
        return 0


def _tables(out):
    return [line for line in out.splitlines() if not line.startswith("Mean fit")]


@pytest.mark.slow  # three runs of the command in processes of their own, one killed
def test_killed_multi_dataset_run_resumes_to_the_uninterrupted_tables(two_files):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    folder = two_files
    whole = subprocess.run(_command(several("whole.sqlite", "-q")), cwd=folder, env=env,
                           capture_output=True, text=True, timeout=600)
    assert whole.returncode == 0, whole.stderr
    # 2 data sets x 2 seeds x 2 models x 3 folds: 24 units, 12 of them slow ones
    process = subprocess.Popen(_command(several("run.sqlite", "-q")), cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while _stored_units(folder / "run.sqlite") < 5:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate()
    stored = _stored_units(folder / "run.sqlite")
    assert 5 <= stored < 24
    resumed = subprocess.run(_command(several("run.sqlite", "--resume")), cwd=folder,
                             env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{stored} of 24 units stored" in resumed.stderr
    assert resumed.stderr.count("(stored)") == stored
    assert _tables(resumed.stdout) == _tables(whole.stdout)
    assert "Data set A, each query averaged over 2 seeds" in whole.stdout
    # the stored values are the uninterrupted run's, data set by data set and seed by seed
    a, b = load_store(folder / "whole.sqlite"), load_store(folder / "run.sqlite")
    assert a.datasets == b.datasets == ["A", "B"] and a.seeds == b.seeds == [0, 1]
    for name in ("A", "B"):
        for seed in (0, 1):
            for label in ("SlowRidge", "ols"):
                for column, values in a.select(name, seed)[label].items():
                    np.testing.assert_array_equal(b.select(name, seed)[label][column],
                                                  values)


def test_cli_several_datasets_and_seeds(two_files, capsys, monkeypatch):
    monkeypatch.chdir(two_files)
    argv = ["cv", "--dataset", "A=a.txt", "--dataset", "B=b.txt", "--seeds", "4", "9",
            "--n-splits", "3", "--metrics", "ndcg@5", "--model", "r=sklearn.linear_model:Ridge",
            "--model", "ols=sklearn.linear_model:LinearRegression", "-q",
            "--per-query-output", "pq.csv", "--store", "s.sqlite"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert "Data sets (2, each compared on its own): A = a.txt" in out
    assert "repeated with the seeds 4, 9" in out
    assert "Data set B, each query averaged over 2 seeds:" in out
    assert "Spread over the 2 seeds (4, 9)" in out
    # the same numbers as the library's run of the same data sets and seeds
    from sklearn.datasets import load_svmlight_file
    from sklearn.linear_model import LinearRegression

    data = {}
    for name in ("A", "B"):
        X, y, qid = load_svmlight_file(f"{name.lower()}.txt", query_id=True)
        data[name] = (X, y, qid)
    library = run_benchmark({"r": Ridge(), "ols": LinearRegression()}, data,
                            metrics=["ndcg@5"], n_splits=3, seeds=[4, 9])
    stored = load_store("s.sqlite")
    for name in ("A", "B"):
        for seed in (4, 9):
            np.testing.assert_allclose(
                stored.select(name, seed)["r"]["ndcg@5"],
                library.folds[name, seed]["r"]["per_query"]["ndcg@5"])
    lines = Path("pq.csv").read_text().splitlines()
    assert lines[0] == "model,dataset,seed,split,fold,qid,ndcg@5"
    assert len(lines) == 1 + 2 * 2 * 2 * 24
    code, _, err = run_cli(capsys, *argv[:-4], "--output", "out.json")
    assert code == 0, err
    import json

    written = json.loads(Path("out.json").read_text())
    assert sorted(written["datasets"]) == ["A", "B"]
    assert written["metadata"]["seeds"] == [4, 9]
    spread = written["datasets"]["B"]["seed_spread"]["r"]["ndcg@5"]
    means = [np.mean(library.folds["B", seed]["r"]["per_query"]["ndcg@5"]) for seed in (4, 9)]
    assert spread["mean"] == pytest.approx(np.mean(means))
    assert spread["std"] == pytest.approx(np.std(means, ddof=1))


def test_cli_pooled_data_says_so_and_dataset_with_data_is_refused(two_files, capsys,
                                                                   monkeypatch):
    monkeypatch.chdir(two_files)
    base = ["cv", "--n-splits", "3", "--metrics", "ndcg@5", "--model",
            "sklearn.linear_model:Ridge", "--model", "sklearn.linear_model:LinearRegression",
            "-q"]
    code, out, _ = run_cli(capsys, *base, "--data", "a.txt", "b.txt")
    assert code == 0
    assert "The 2 files of --data are pooled into one data set" in " ".join(out.split())
    code, _, err = run_cli(capsys, *base, "--data", "a.txt", "--dataset", "B=b.txt")
    assert code == 2
    assert "not both" in one_line_error(err, "cv")
    code, _, err = run_cli(capsys, *base, "--dataset", "A=a.txt", "--dataset", "A=b.txt")
    assert code == 2 and "given twice" in one_line_error(err, "cv")
    code, _, err = run_cli(capsys, *base, "--dataset", "a.txt")
    assert code == 2 and "expected NAME=SOURCE" in one_line_error(err, "cv")
    # two data sets after one --dataset read as two to a user, as one (pooled) to argparse
    code, _, err = run_cli(capsys, *base, "--dataset", "A=a.txt", "B=b.txt")
    assert code == 2
    assert "'B=b.txt' looks like another data set" in one_line_error(err, "cv")
    assert "--dataset A=a.txt --dataset B=b.txt" in one_line_error(err, "cv")
    code, _, err = run_cli(capsys, *base, "--dataset", "A=a.txt", "--repeats", "2",
                           "--output", "x.csv")
    assert code == 2 and "not .csv" in one_line_error(err, "cv")


def test_store_writes_and_reads_per_query_results(tmp_path):
    from sklearn_rank.benchmark import Unit, UnitResult

    y, score = DATA["easy"][1], DATA["easy"][0][:, 0]
    qid = DATA["easy"][2]
    values = evaluate_per_query(y, score, qid=qid, metrics=["ndcg@5", "map"])
    store = ResultsStore(tmp_path / "s.sqlite")
    run_id = store.start_run("key", "test", {"metrics": {"ndcg@5": "ndcg@5", "map": "map"}},
                             ["m fold 0"])
    store.write_unit(run_id, {"key": "u", "data_sha256": "x", "model": "m", "candidate": None,
                              "fold": 0, "split": "cv", "params": {}, "scores": {},
                              "per_query": values.with_fold(0), "fit_time": 0.0,
                              "score_time": 0.0, "versions": {}, "seed": 0,
                              "describe": "m fold 0"})
    store.finish_run(run_id)
    (unit,) = store.read_units(run_id)
    store.close()
    result = UnitResult(Unit("m", 0), {}, {}, unit["per_query"], 0.0, 0.0).per_query_result()
    stored = load_store(tmp_path / "s.sqlite").per_query_result("m")
    for read in (result, stored):
        assert sorted(read.metrics) == ["map", "ndcg@5"]
        np.testing.assert_array_equal(read.query_ids, values.query_ids)
        np.testing.assert_array_equal(read.fold, np.zeros(len(values)))
        for metric in ("map", "ndcg@5"):
            np.testing.assert_array_equal(read[metric], values[metric])


def test_each_dataset_is_scored_on_its_own_grade_scale(two_files, capsys, monkeypatch):
    """ERR divides the grades by the largest grade: a data set of grades 0-1 beside one of
    grades 0-4 must get the numbers of a run of it alone, not those of a scale of 4."""
    X, y, qid = DATA["easy"]
    binary = (X, (y > 1).astype(float), qid)
    together = run_benchmark(models(), {"graded": DATA["hard"], "binary": binary},
                             metrics=["err@10"], n_splits=3)
    alone = run_benchmark(models(), binary, metrics=["err@10"], n_splits=3)
    np.testing.assert_array_equal(
        together.folds["binary", None]["ridge"]["per_query"]["err@10"],
        alone.folds[None, None]["ridge"]["per_query"]["err@10"])
    assert together.provenance["datasets"]["binary"]["metrics"] == {
        "err@10": "err@10(max_grade=1)"}
    # the command line: the same numbers as --data of the binary file alone
    monkeypatch.chdir(two_files)
    dump_svmlight_file(X, binary[1], "binary.txt", query_id=qid)
    base = ["--n-splits", "3", "--metrics", "err@10", "--model", "sklearn.linear_model:Ridge",
            "--model", "sklearn.linear_model:LinearRegression", "-q"]
    code, _, err = run_cli(capsys, "cv", "--dataset", "graded=a.txt", "--dataset",
                           "binary=binary.txt", *base, "--per-query-output", "both.csv")
    assert code == 0, err
    code, _, err = run_cli(capsys, "cv", "--data", "binary.txt", *base,
                           "--per-query-output", "alone.csv")
    assert code == 0, err
    both = [line.split(",") for line in Path("both.csv").read_text().splitlines()[1:]]
    alone_rows = [line.split(",") for line in Path("alone.csv").read_text().splitlines()[1:]]
    # model, dataset, seed, split, fold, qid, value vs model, split, fold, qid, value
    assert [[r[0], *r[3:]] for r in both if r[1] == "binary"] == alone_rows


def test_tune_repeats_the_split_over_seeds(two_files, capsys, monkeypatch):
    import json

    from sklearn.datasets import load_svmlight_file

    monkeypatch.chdir(two_files)
    argv = ["tune", "--data", "a.txt", "--n-splits", "3", "--model",
            "sklearn.linear_model:Ridge", "--param", "alpha=0.1,1000", "--seeds", "5", "6",
            "--metric", "ndcg@5", "-q", "--store", "t.sqlite"]
    code, out, err = run_cli(capsys, *argv, "--output", "t.json")
    assert code == 0, err
    assert "3 folds x 2 repeats of QueryKFold(shuffle=True) with the seeds 5, 6" in " ".join(
        out.split())
    cv_results = json.loads(Path("t.json").read_text())["cv_results"]
    # split k is fold k % 3 of the repeat of seed 5 (k < 3) or 6: the library's folds
    X, y, qid = load_svmlight_file("a.txt", query_id=True)
    reference = run_benchmark({"small": Ridge(alpha=0.1), "large": Ridge(alpha=1000.0)},
                              (X, y, qid), metrics=["ndcg@5"], n_splits=3, seeds=[5, 6])
    for i, label in enumerate(("small", "large")):
        expected = [np.mean(fold_values)
                    for seed in (5, 6)
                    for fold_values in _fold_values(reference.folds[None, seed][label])]
        got = [cv_results[f"split{k}_test_ndcg@5"][i] for k in range(6)]
        np.testing.assert_allclose(got, expected)
        assert cv_results["mean_test_ndcg@5"][i] == pytest.approx(np.mean(expected))
    # the stored run resumes, every unit read back: the same output
    code, again, err = run_cli(capsys, *argv, "--resume")
    assert code == 0, err
    assert "run 1 is finished; its stored units are read" in err and again == out
    code, _, err = run_cli(capsys, *argv[:-2], "--per-query-output", "pq.csv")
    assert code == 2 and "goes with one split" in one_line_error(err, "tune")


def _fold_values(fold):
    per_query = fold["per_query"]
    return [per_query["ndcg@5"][per_query["fold"] == k] for k in range(3)]


def test_models_keep_their_seed_in_a_run_of_one_seed_and_take_each_repeats():
    from sklearn.ensemble import RandomForestRegressor

    X, y, qid = DATA["easy"]
    forest = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=42)
    one = run_benchmark({"forest": forest}, (X, y, qid), metrics=["ndcg@5"], n_splits=3,
                        random_state=7)
    splits = QueryKFold(3, shuffle=True, random_state=7).split(X, y, qid=qid)
    for k, (train, test) in enumerate(splits):  # the forest of random_state=42, as given
        model = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=42)
        expected = evaluate_per_query(y[test], model.fit(X[train], y[train]).predict(X[test]),
                                      qid=qid[test], metrics=["ndcg@5"])
        per_query = one.folds[None, None]["forest"]["per_query"]
        np.testing.assert_allclose(per_query["ndcg@5"][per_query["fold"] == k],
                                   expected["ndcg@5"])
    repeated = run_benchmark({"forest": forest}, (X, y, qid), metrics=["ndcg@5"], n_splits=3,
                             seeds=[7])
    train, test = next(QueryKFold(3, shuffle=True, random_state=7).split(X, y, qid=qid))
    model = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=7)
    expected = evaluate_per_query(y[test], model.fit(X[train], y[train]).predict(X[test]),
                                  qid=qid[test], metrics=["ndcg@5"])
    per_query = repeated.folds[None, 7]["forest"]["per_query"]
    np.testing.assert_allclose(per_query["ndcg@5"][per_query["fold"] == 0], expected["ndcg@5"])
    assert forest.random_state == 42  # the estimator given is left as it is


def test_tune_searches_each_dataset_on_its_own(two_files, capsys, monkeypatch):
    import json

    monkeypatch.chdir(two_files)
    base = ["--n-splits", "3", "--model", "sklearn.linear_model:Ridge", "--param",
            "alpha=0.1,1000", "--metric", "err@5", "-q"]
    argv = ["tune", "--dataset", "A=a.txt", "--dataset", "B=b.txt", *base, "--store",
            "t.sqlite"]
    code, out, err = run_cli(capsys, *argv, "--output", "both.json")
    assert code == 0, err
    assert "Data sets (2, each searched on its own)" in " ".join(out.split())
    both = json.loads(Path("both.json").read_text())["datasets"]
    for name, path in (("A", "a.txt"), ("B", "b.txt")):  # as a search of it alone
        code, _, err = run_cli(capsys, "tune", "--data", path, *base, "--output", "one.json")
        assert code == 0, err
        alone = json.loads(Path("one.json").read_text())
        assert both[name]["best_params"] == alone["best_params"]
        for key in ("split0_test_err@5", "split2_test_err@5", "mean_test_err@5",
                    "rank_test_err@5"):
            assert both[name]["cv_results"][key] == alone["cv_results"][key]
    code, again, err = run_cli(capsys, *argv, "--resume")
    assert code == 0 and "run 1 is finished" in err and again == out
    assert run_cli(capsys, "report", "t.sqlite", "-o", "r.html")[0] == 0
    page = Path("r.html").read_text()
    assert "Search on data set A" in page and "Search on data set B" in page
    code, _, err = run_cli(capsys, *argv, "--save-model", "m.joblib")
    assert code == 2 and "--save-model goes with one data set" in one_line_error(err, "tune")


def test_ignored_params_names_what_the_booster_ignored():
    """A misspelt LightGBM parameter is fitted without, and only logged: ``ignored_params``
    names it, with the reason, and keeps the booster's log off the output."""
    from sklearn_rank.benchmark import ignored_params
    from sklearn_rank.lightgbm import LGBMRanker

    X, y, qid = make_ranking(5, random_state=0)
    assert ignored_params(LGBMRanker(n_estimators=2, num_leafs=7, verbose=0), X, y, qid) == {
        "num_leafs": "it is not one of its parameters"}
    assert ignored_params(LGBMRanker(n_estimators=2, num_leaves=7, verbose=0), X, y, qid) == {}
    assert ignored_params(Ridge(), X, y, qid) == {}
    with pytest.raises(ValueError):
        ignored_params(LGBMRanker(n_estimators=2, learning_rate=-1.0), X, y[:-1], qid)


_QUIET_RUN = """
import sys
import numpy as np
from sklearn_rank.benchmark import Recorder, Task, Unit, run_units
from sklearn_rank.datasets import RankingDataset
from sklearn_rank.lightgbm import LGBMRanker

class Silent:
    def advance(self, detail):
        pass

# LightGBM refuses num_leaves=1: its C code writes a [Fatal] line itself before it raises
qid = np.repeat([1, 2, 3], 2)
y = np.array([0, 1, 0, 1, 1, 0])
data = RankingDataset(np.arange(6.0).reshape(-1, 1), y, qid, source="six rows")
task = Task(Unit("lambdarank", None), LGBMRanker(n_estimators=2, num_leaves=1), {})
try:
    list(run_units([task], data, scoring={}, n_jobs=1, progress=Silent(),
                   recorder=Recorder(), quiet=sys.argv[1] == "quiet"))
except Exception as exc:
    print("raised", type(exc).__name__)
"""


@pytest.mark.parametrize("quiet", [True, False])
def test_run_units_quiet_keeps_the_booster_lines_off_the_output(tmp_path, quiet):
    """``run_units(quiet=True)`` keeps LightGBM's own [Fatal] line (written by its C code
    before the error is raised) off the output, as the command line needs; the error
    itself still reaches the caller. Without it, the line is there."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", _QUIET_RUN, "quiet" if quiet else "loud"], cwd=tmp_path,
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "raised LightGBMError"
    output = done.stdout + done.stderr
    assert ("[LightGBM]" in output) is not quiet, output


def test_api_page_lists_the_two_tiers_of_the_public_names():
    """docs/api.rst lists exactly the public names of sklearn_rank.benchmark, each in its
    tier: a name made public, or private again, is made so on the page too."""
    import re

    import sklearn_rank.benchmark as benchmark

    page = (Path(__file__).resolve().parents[1] / "docs" / "api.rst").read_text(
        encoding="utf-8")
    section = page.split(".. automodule:: sklearn_rank.benchmark", 1)[1].split(
        ".. _api-", 1)[0]
    user, blocks = section.split("Building blocks of a custom runner", 1)

    def listed(text):
        return ({m.group(1) for m in re.finditer(r"^   (\w+)$", text, re.MULTILINE)}
                | set(re.findall(r"^\.\. data:: (\w+)$", text, re.MULTILINE)))

    assert listed(user) == {n for names in benchmark._USER.values() for n in names}
    assert listed(blocks) == {n for names in benchmark._BUILDING_BLOCKS.values() for n in names}
    assert sorted(listed(user) | listed(blocks)) == benchmark.__all__


# ----------------------------------------------------------------------------------------
# The models' checks of the command line, applied by run_benchmark (check_models)


def _svmlight(tmp_path, n_queries=12):
    from sklearn_rank.datasets import load_source

    X, y, qid = make_ranking(n_queries, random_state=0)
    path = tmp_path / "d.txt"
    dump_svmlight_file(X, y, str(path), query_id=qid)
    return load_source(path)


def test_a_model_without_sparse_input_is_given_dense_features(tmp_path):
    # HistGradientBoostingRegressor on an SVMlight file failed in every fold, deep inside
    # scikit-learn ("Sparse data was passed for X, but dense data is required")
    from sklearn.ensemble import HistGradientBoostingRegressor

    data = _svmlight(tmp_path)
    assert data.sparse
    models = {"hgb": HistGradientBoostingRegressor(max_iter=5, random_state=0)}
    sparse = run_benchmark(models, data, n_splits=2)
    dense = run_benchmark(models, data.densified(), n_splits=2)
    np.testing.assert_array_equal(sparse.per_query("hgb").values["ndcg@10"],
                                  dense.per_query("hgb").values["ndcg@10"])


def test_a_dense_copy_beyond_the_memory_available_is_refused_with_the_model(monkeypatch,
                                                                           tmp_path):
    from sklearn.ensemble import HistGradientBoostingRegressor

    from sklearn_rank.benchmark import ModelCheckError, _models

    monkeypatch.setattr(_models, "_memory_available", lambda: 100)
    data = _svmlight(tmp_path)
    with pytest.raises(ModelCheckError, match="model 'hgb': HistGradientBoostingRegressor "
                       "takes no sparse input") as info:
        run_benchmark({"ridge": Ridge(), "hgb": HistGradientBoostingRegressor()}, data,
                      n_splits=2)
    assert (info.value.label, info.value.reason) == ("hgb", "memory")
    assert info.value.dense.labels == ("hgb",) and info.value.dense.available == 100


def test_a_classifier_that_cannot_rank_the_grades_is_refused_before_any_fit(tmp_path):
    # LinearSVC failed in the scoring of the first fold, after its fit; with a store, the
    # run was recorded as started
    from sklearn.svm import LinearSVC

    from sklearn_rank.benchmark import ModelCheckError

    store = tmp_path / "s.sqlite"
    with pytest.raises(ModelCheckError, match="model 'svc': LinearSVC is a classifier "
                       "without predict_proba, and the grades of easy take") as info:
        run_benchmark({"ridge": Ridge(), "svc": LinearSVC()}, DATA, n_splits=2, store=store)
    assert (info.value.label, info.value.reason, info.value.source) == ("svc", "unrankable",
                                                                        "easy")
    assert info.value.n_grades == len(np.unique(DATA["easy"][1]))
    assert not store.exists()


@pytest.mark.parametrize("model, message", [
    (Ridge(alpha="x"), "model 'bad': The 'alpha' parameter of Ridge must be"),
    # a step of a pipeline: checked too, and named by its own class
    ("pipeline", "model 'bad': The 'with_mean' parameter of StandardScaler must be"),
])
def test_a_refused_parameter_names_the_model_before_any_work(tmp_path, model, message):
    # inside cross_validate, scikit-learn reworded the error of every fold as "The 'alpha'
    # parameter of cross_validate must be...", naming neither the model nor its label, and a
    # store was started
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_rank.benchmark import ModelCheckError

    if model == "pipeline":
        model = make_pipeline(StandardScaler(with_mean="no"), Ridge())
    store = tmp_path / "s.sqlite"
    with pytest.raises(ModelCheckError, match=message) as info:
        run_benchmark({"ridge": Ridge(), "bad": model}, DATA, n_splits=2, store=store)
    assert (info.value.label, info.value.reason) == ("bad", "parameters")
    assert not store.exists()


def test_runs_of_two_conventions_are_not_compared(tmp_path):
    """Two runs' ``ndcg@10`` under trec_eval's and LightGBM's conventions are two metrics:
    their per-query results (from the runs and from the store) say what was computed, so
    that compare refuses them; before, the conventions' difference was compared silently
    as the models'."""
    store = tmp_path / "s.sqlite"
    runs = [run_benchmark({"m": Ridge(alpha=alpha)}, DATA, metrics=["ndcg@10"],
                          convention=convention, n_splits=3, store=store)
            for alpha, convention in ((1.0, "trec_eval"), (50.0, "lightgbm"),
                                      (50.0, "trec_eval"))]
    for trec, lightgbm, trec_too in (
            [run.per_query("m", "hard") for run in runs],
            [load_store(store, run.run_id).per_query_result("m", "hard") for run in runs]):
        assert trec.key("ndcg@10") == "ndcg@10(gain=linear,ties=stable)"
        assert lightgbm.key("ndcg@10") == "ndcg@10(ties=stable,no_relevant=1.0)"
        with pytest.raises(ValueError, match=(
                r"The values of 'ndcg@10' are not one metric: system 'a' computed "
                r"'ndcg@10\(gain=linear,ties=stable\)' and system 'b' "
                r"'ndcg@10\(ties=stable,no_relevant=1.0\)'")):
            compare({"a": trec, "b": lightgbm}, metric="ndcg@10")
        with pytest.raises(ValueError, match="not one metric"):  # their frames too
            compare({"a": trec.to_frame(), "b": lightgbm.to_frame()}, metric="ndcg@10")
        assert compare({"a": trec, "b": trec_too}, metric="ndcg@10").systems == ["a", "b"]
    # the dicts of columns of the runs and of the stored runs, as compare reads them; a
    # run of one data set (no select), its held-out test set
    one = tmp_path / "one.sqlite"
    single = [run_benchmark({"m": Ridge(alpha=alpha)}, DATA["easy"], metrics=["ndcg@10"],
                            convention=convention, n_splits=3, store=one, test=DATA["hard"])
              for alpha, convention in ((1.0, "trec_eval"), (50.0, "lightgbm"),
                                        (50.0, "trec_eval"))]
    for trec, lightgbm, trec_too in (
            [run.systems("hard")["m"] for run in runs],
            [load_store(store, run.run_id).select("hard", seed=None)["m"] for run in runs],
            [load_store(one, run.run_id)["m"] for run in single],
            [run.systems(split="test")["m"] for run in single],
            [load_store(one, run.run_id, split="test")["m"] for run in single]):
        with pytest.raises(ValueError, match="The values of 'ndcg@10' are not one metric"):
            compare({"a": trec, "b": lightgbm}, metric="ndcg@10")
        assert compare({"a": trec, "b": trec_too}, metric="ndcg@10").systems == ["a", "b"]
    # the stored run's result is the run's, options included, under each convention
    for run in runs:
        assert load_store(store, run.run_id).per_query_result("m", "easy", seed=None) == \
            run.per_query("m", "easy")


# ----------------------------------------------------------------------------------------
# The progress line: a factory of progress= for a program, as for the command line


def test_progress_line_shows_a_run_of_the_library(capsys):
    """ProgressLine is public and fits run_benchmark's progress= as it is: a line as the
    work starts, one per unit (stderr is no terminal here), nothing on stdout."""
    import functools

    from sklearn_rank.benchmark import ProgressLine

    data = make_ranking(20, random_state=0)
    run_benchmark({"ridge": Ridge()}, data, n_splits=2, progress=ProgressLine)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 3, err
    assert lines[0].startswith("cross-validation: 0/2 (1 ") and lines[0].endswith(
        " x 2 folds, 1 process)")
    assert lines[1].startswith("cross-validation: 1/2 ") and lines[2].startswith(
        "cross-validation: 2/2 ")
    run_benchmark({"ridge": Ridge()}, data, n_splits=2,
                  progress=functools.partial(ProgressLine, enabled=False))
    assert capsys.readouterr() == ("", "")
