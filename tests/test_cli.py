"""The ``sklearn-rank`` command line, run in-process through ``main(argv)``.

Every subcommand on generated data and on files written to ``tmp_path``; the numbers that
``evaluate`` prints against :mod:`sklearn_rank.metrics` computed directly; the tables of
``cv`` and ``tune``; and every user error as one line on stderr with its exit code.
"""

import csv
import doctest
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _cli import one_line_error, run_cli
from sklearn.datasets import dump_svmlight_file
from sklearn.linear_model import Ridge

from sklearn_rank import _cli
from sklearn_rank._cli import _models, _params
from sklearn_rank._cli._common import Progress
from sklearn_rank.datasets import make_ranking, read_trec
from sklearn_rank.metrics import evaluate

ROOT = Path(__file__).resolve().parents[1]
# Small and fast: every cv / tune test fits a handful of tiny models.
FAST = ["--n-queries", "30", "--n-splits", "3", "--n-estimators", "5", "-q"]

QRELS = """\
1 0 a 2
1 0 b 0
1 0 c 1
1 0 d 1
2 0 a 0
2 0 e 1
2 0 f 3
3 0 x 1
"""
# Query 1: c and d are relevant but not retrieved; query 3 is judged, not in the run;
# query 4 is in the run, not judged; b and e tie on score.
RUN = """\
1 Q0 a 1 2.5 sys
1 Q0 b 2 1.5 sys
1 Q0 c 3 0.5 sys
1 Q0 z 4 0.1 sys
2 Q0 e 1 3.0 sys
2 Q0 f 2 3.0 sys
2 Q0 a 3 1.0 sys
4 Q0 q 1 1.0 sys
"""


@pytest.fixture
def trec_files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return run, qrels


@pytest.fixture
def table_data():
    X, y, qid = make_ranking(12, random_state=3)
    return y, X[:, 1], qid


@pytest.fixture
def csv_table(tmp_path, table_data):
    y, score, qid = table_data
    path = tmp_path / "scores.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["doc", "query", "grade", "prediction"])
        writer.writerows([f"d{i}", q, g, s] for i, (q, g, s) in enumerate(zip(qid, y, score)))
    return path


@pytest.fixture
def letor_file(tmp_path):
    X, y, qid = make_ranking(20, n_features=5, random_state=1, shuffle=False)
    path = tmp_path / "train.txt"
    dump_svmlight_file(X, y.astype(int), str(path), query_id=qid)
    return path


def flat(text):
    """``text`` with every run of white space as one space: wrapped lines joined."""
    return " ".join(text.split())


def without_times(out):
    return [line for line in out.splitlines() if not line.startswith("Mean fit time")]


def table_values(out, metrics):
    """The rows of a text table: qid -> values of ``metrics``."""
    rows = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) == len(metrics) + 1:
            try:
                rows[cells[0]] = [float(c) for c in cells[1:]]
            except ValueError:
                continue
    return rows


# ----------------------------------------------------------------------------------------
# Help, version, the demonstration


def test_python_m_help_in_a_subprocess():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "sklearn_rank", "--help"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: sklearn-rank")
    for command in ("evaluate", "cv", "tune"):
        assert command in done.stdout
    # no help text loads scikit-learn, scipy, the boosters or the plotting and table
    # libraries: help is instant
    probe = (
        "import sys\n"
        "from sklearn_rank._cli import COMMANDS, main\n"
        "for args in (['--help'], *([c, '--help'] for c in COMMANDS)):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ('sklearn', 'scipy', 'lightgbm', 'xgboost', 'matplotlib', 'polars', 'pandas')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr


def test_evaluate_of_small_files_stays_light(tmp_path):
    """evaluate of a small table and of a small TREC pair imports neither scikit-learn, SciPy
    nor pandas: they took 2 of the 2.5 s of CPU of a 4-row table (issue 21)."""
    table = tmp_path / "small.csv"
    table.write_text("qid,label,score\nq1,1,0.5\nq1,0,0.2\nq2,2,0.9\nq2,0,0.1\n")
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    run.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.2 r\nq2 Q0 d3 1 0.9 r\n")
    for args in (["--table", str(table), "--per-query"],
                 ["--run", str(run), "--qrels", str(qrels), "--convention", "trec_eval"]):
        probe = ("import sys\n"
                 "from sklearn_rank._cli import main\n"
                 "assert main(['evaluate', *sys.argv[1:]]) == 0\n"
                 "print(sorted(m for m in ('sklearn', 'pandas', 'scipy') if m in sys.modules))\n")
        done = subprocess.run([sys.executable, "-c", probe, *args], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT),
                                   "PYTHONWARNINGS": "error"},
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert "ndcg@10" in done.stdout
        assert done.stdout.splitlines()[-1] == "[]", (args, done.stdout)


@pytest.mark.parametrize("command", ["evaluate", "cv", "tune"])
def test_subcommand_help(capsys, command):
    code, out, err = run_cli(capsys, command, "--help")
    assert code == 0 and err == ""
    assert out.startswith(f"usage: sklearn-rank {command}")
    assert "examples:" in out


def test_version(capsys):
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0
    assert out.startswith("sklearn-rank ")


def test_no_subcommand_runs_the_cv_demonstration(capsys):
    code, out, err = run_cli(capsys, *FAST, "--models", "pointwise", "lambdarank")
    assert code == 0, err
    assert out.startswith("sklearn-rank without a subcommand runs this demonstration")
    assert "'sklearn-rank --help' lists the subcommands" in flat(out)
    assert "pointwise (baseline)" in out
    # deterministic with the seed
    again = run_cli(capsys, *FAST, "--models", "pointwise", "lambdarank")[1]
    assert without_times(again) == without_times(out)


def test_main_docstring_example():
    result = doctest.testmod(_cli, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------------------
# evaluate


def test_evaluate_generated_data(capsys):
    metrics = ["ndcg@10", "err@10", "map"]
    code, out, _ = run_cli(capsys, "evaluate", "--n-queries", 15, "--seed", 2,
                           "--metrics", *metrics)
    assert code == 0
    X, y, qid = make_ranking(15, random_state=2)
    expected = evaluate(y, X[:, 0], qid=qid, metrics=metrics)
    np.testing.assert_allclose(table_values(out, metrics)["all"],
                               [expected[m] for m in metrics], atol=5e-5)
    assert "scored by feature 0" in out


@pytest.mark.parametrize("convention", [None, "trec_eval"])
def test_evaluate_trec_files(capsys, trec_files, convention):
    run, qrels = trec_files
    metrics = ["map", "ndcg", "p@2", "recall@3", "mrr"]
    options = [] if convention is None else ["--convention", convention]
    code, out, err = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels, "--metrics",
                             *metrics, "--format", "json", "--per-query", *options)
    assert code == 0, err
    result = json.loads(out)
    with pytest.warns(UserWarning, match=r"\('3'\)"):  # judged, but not in the run
        d = read_trec(qrels, run)
    common = {"qid": d["qid"], "metrics": metrics, "retrieved": d["retrieved"],
              "judged": "y_true", "docno": d["docno"], "convention": convention}
    expected = evaluate(d["y_true"], d["y_score"], **common)
    per_query = evaluate(d["y_true"], d["y_score"], return_per_query=True, **common)
    assert result["convention"] == convention
    assert result["n_queries"] == 2  # query 3 is not in the run, query 4 not judged
    for m in metrics:
        assert result["metrics"][m] == pytest.approx(expected[m])
        assert [row[m] for row in result["per_query"]] == pytest.approx(per_query[m])
    assert [row["qid"] for row in result["per_query"]] == ["1", "2"]
    if convention == "trec_eval":
        # trec_eval's AP of query 1: a and c are found at ranks 1 and 3, d is never
        # retrieved but counts among the 3 relevant documents: (1/1 + 2/3) / 3
        assert result["per_query"][0]["map"] == pytest.approx(5 / 9)
        # recall@3 of query 1: 2 of its 3 relevant documents
        assert result["per_query"][0]["recall@3"] == pytest.approx(2 / 3)


def test_evaluate_trec_text_output_names_the_files(capsys, trec_files):
    run, qrels = trec_files
    code, out, _ = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels,
                           "--convention", "trec_eval")
    assert code == 0
    assert "2 queries in both" in flat(out)
    # d of query 1; z of query 1 is not in the qrels
    assert "(1 judged but not retrieved, 1 retrieved but unjudged (non-relevant);" in flat(out)
    # query 3 is judged, but the run has no line for it: said, never dropped silently
    assert "1 judged query left out, the run having no line for it ('3')" in flat(out)
    assert "convention 'trec_eval'" in flat(out)


def test_evaluate_trec_complete_scores_the_missing_queries_zero(capsys, trec_files):
    run, qrels = trec_files
    metrics = ["map", "ndcg@10", "bpref"]
    code, out, err = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels, "--complete",
                             "--metrics", *metrics, "--format", "json", "--per-query",
                             "--convention", "trec_eval")
    assert code == 0, err
    result = json.loads(out)
    assert result["n_queries"] == 3
    assert [row["qid"] for row in result["per_query"]] == ["1", "2", "3"]
    assert [result["per_query"][2][m] for m in metrics] == [0.0, 0.0, 0.0]
    d = read_trec(qrels, run, complete=True)
    expected = evaluate(d["y_true"], d["y_score"], qid=d["qid"], retrieved=d["retrieved"],
                        judged="y_true", docno=d["docno"], metrics=metrics,
                        convention="trec_eval")
    for m in metrics:
        assert result["metrics"][m] == pytest.approx(expected[m])
    code, out, err = run_cli(capsys, "evaluate", "--table", run, "--complete")
    assert code == 2 and "--complete is an option of --run/--qrels" in err


def test_evaluate_csv_table_per_query(capsys, tmp_path, csv_table, table_data):
    y, score, qid = table_data
    metrics = ["ndcg@5", "map", "p@3"]
    output = tmp_path / "per_query.csv"
    code, out, err = run_cli(
        capsys, "evaluate", "--table", csv_table, "--qid-column", "query", "--label-column",
        "grade", "--score-column", "prediction", "--metrics", *metrics, "--per-query",
        "--output", output)
    assert code == 0, err
    expected = evaluate(y, score, qid=qid, metrics=metrics, return_per_query=True)
    means = evaluate(y, score, qid=qid, metrics=metrics)
    rows = table_values(out, metrics)
    assert list(rows) == [str(q) for q in np.unique(qid)] + ["all"]
    for i, q in enumerate(np.unique(qid)):
        np.testing.assert_allclose(rows[str(q)], [expected[m][i] for m in metrics], atol=5e-5)
    np.testing.assert_allclose(rows["all"], [means[m] for m in metrics], atol=5e-5)
    # the file holds the per-query values at full precision, without the row of means
    with open(output, newline="") as handle:
        written = list(csv.DictReader(handle))
    assert [row["qid"] for row in written] == [str(q) for q in np.unique(qid)]
    for m in metrics:
        np.testing.assert_allclose([float(row[m]) for row in written], expected[m], rtol=1e-12)


def test_evaluate_per_query_order_reads_ascii_digits_only(capsys, tmp_path, monkeypatch):
    """Query ids of ASCII digits are listed as numbers (9 before 10); an id of other digits
    ('\u0663', Arabic-Indic three, which int() reads as 3) is a name, so the ids keep the
    order evaluate gives them instead of a numeric order that would tie '3' with it."""
    # a relative path: a long one (a deep temporary folder, as under pytest-xdist) is wrapped
    # onto a line of its own, which table_values would read as a row
    monkeypatch.chdir(tmp_path)
    path = Path("scores.csv")
    path.write_text("qid,label,score\n9,1,0.5\n9,0,0.2\n10,1,0.1\n10,0,0.9\n"
                    "3,1,0.3\n3,0,0.1\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "map",
                             "--per-query")
    assert code == 0, err
    assert list(table_values(out, ["map"])) == ["3", "9", "10", "all"]
    path.write_text(path.read_text(encoding="utf-8") + "\u0663,1,0.3\n\u0663,0,0.1\n",
                    encoding="utf-8")
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "map",
                             "--per-query")
    assert code == 0, err
    listed = list(table_values(out, ["map"]))
    assert listed[:-1] == sorted(listed[:-1]) and "\u0663" in listed


def test_evaluate_tsv_and_string_query_ids(capsys, tmp_path):
    path = tmp_path / "scores.tsv"
    path.write_text("qid\tlabel\tscore\nq10\t1\t0.3\nq10\t0\t0.9\nq9\t2\t0.1\nq9\t0\t0.2\n")
    code, out, _ = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                           "--per-query", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows == [["qid", "mrr"], ["q10", "0.5"], ["q9", "0.5"], ["all", "0.5"]]


def test_evaluate_numeric_query_ids_sort_as_numbers(capsys, tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("qid,label,score\n10,1,0.3\n10,0,0.9\n9,2,0.1\n9,0,0.2\n")
    code, out, _ = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                           "--per-query", "--format", "csv")
    assert code == 0
    assert [row[0] for row in csv.reader(io.StringIO(out))] == ["qid", "9", "10", "all"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "csv"])
def test_evaluate_refuses_a_query_named_as_the_row_of_means(capsys, tmp_path, fmt):
    # its row and the row of means were both 'all': 1.0 and 0.75, no telling which is which
    path = tmp_path / "scores.csv"
    path.write_text("qid,label,score\nall,1,0.9\nall,0,0.1\nb,0,0.9\nb,1,0.1\n")
    output = tmp_path / "per_query.csv"
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "map",
                             "--per-query", "--format", fmt, "--output", output)
    assert code == 2 and out == ""
    line = one_line_error(err, "evaluate")
    assert f"--per-query --format {fmt}: a query is named 'all'" in line
    assert "--format json" in line
    assert not output.exists()
    # where the means stand apart, the query is kept: JSON, the --output file, the means alone
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "map",
                             "--per-query", "--format", "json", "--output", output)
    assert code == 0, err
    result = json.loads(out)
    assert result["metrics"] == {"map": 0.75}
    assert result["per_query"] == [{"qid": "all", "map": 1.0}, {"qid": "b", "map": 0.5}]
    assert output.read_text().splitlines() == ["qid,map", "all,1.0", "b,0.5"]
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "map",
                             "--format", "csv")
    assert code == 0 and out.splitlines() == ["qid,map", "all,0.75"]


def test_evaluate_markdown(capsys):
    code, out, _ = run_cli(capsys, "evaluate", "--n-queries", 5, "--metrics", "ndcg@10",
                           "map", "--format", "markdown")
    assert code == 0
    assert "| qid | ndcg@10 | map |" in out
    assert "|:---|---:|---:|" in out


@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_evaluate_parquet_table(capsys, tmp_path, table_data, engine, monkeypatch):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    y, score, qid = table_data
    path = tmp_path / "scores.parquet"
    pd.DataFrame({"qid": qid, "label": y, "score": score}).to_parquet(path)
    if engine == "polars":
        pytest.importorskip("polars")
        monkeypatch.setitem(sys.modules, "pandas", None)  # the reader falls back on polars
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "ndcg@10",
                             "--format", "json")
    assert code == 0, err
    expected = evaluate(y, score, qid=qid, metrics=["ndcg@10"])
    assert json.loads(out)["metrics"]["ndcg@10"] == pytest.approx(expected["ndcg@10"])


# ----------------------------------------------------------------------------------------
# cv


def test_cv_generated_data(capsys):
    code, out, err = run_cli(capsys, "cv", *FAST, "--models", "pointwise", "lambdarank",
                             "--metrics", "ndcg@10", "map")
    assert code == 0, err
    assert "make_ranking(n_queries=30, random_state=0, realistic=True)" in flat(out)
    assert "pointwise (baseline)" in out and "\nlambdarank " in out
    header = next(line for line in out.splitlines() if line.startswith("System"))
    assert header.split() == ["System", "ndcg@10", "map"]
    row = next(line for line in out.splitlines() if line.startswith("lambdarank"))
    assert row.count("[") == 2 and row.count("]") == 2  # a CI per metric
    assert "Mean over 30 queries, pooled over 3 cross-validation folds" in flat(out)
    assert "Mean fit time per fold:" in out
    assert err == ""  # --quiet


def test_cv_progress_and_baseline(capsys):
    code, out, err = run_cli(capsys, "cv", *FAST[:-1], "--models", "pointwise", "lambdarank",
                             "--baseline", "lambdarank", "--metrics", "ndcg@10")
    assert code == 0
    assert "lambdarank (baseline)" in out
    lines = err.splitlines()
    # a line as the work starts, then one as each (model, fold) ends
    assert lines[0] == "cross-validation: 0/6 (2 models x 3 folds, 1 process)"
    assert len(lines) == 7 and lines[-1].startswith("cross-validation: 6/6 lambdarank, fold 3/3")


def test_cv_marks_significant_differences(capsys, monkeypatch):
    # A model that scores every document alike is significantly worse than a booster.
    from sklearn.dummy import DummyRegressor

    constant = _models.Model("constant", "DummyRegressor", "the same score everywhere",
                             "sklearn", None, lambda n, seed: DummyRegressor(), (), ())
    monkeypatch.setitem(_models.MODELS, "constant", constant)
    code, out, err = run_cli(capsys, "cv", *FAST, "--n-queries", 60, "--models", "constant",
                             "pointwise", "--metrics", "ndcg@10", "map")
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("pointwise"))
    assert row.count("†") == 2
    assert "† / ‡: significantly higher / lower than the baseline (constant)" in out


def test_cv_svmlight_file_and_output_files(capsys, tmp_path, letor_file, monkeypatch):
    # relative paths: a long one (a deep temporary folder, as under pytest-xdist) is wrapped
    # onto a line of its own, away from "Data:"
    monkeypatch.chdir(tmp_path)
    letor_file = Path(letor_file.name)
    files = {suffix: Path(f"table{suffix}") for suffix in (".md", ".tex", ".csv", ".txt")}
    for path in files.values():
        code, out, err = run_cli(capsys, "cv", "--data", letor_file, *FAST,
                                 "--models", "lambdarank", "pointwise", "--metrics", "ndcg@5",
                                 "--output", path)
        assert code == 0, err
    assert f"Data: {letor_file}: 20 queries" in flat(out)
    # the table after a header of provenance, a comment in Markdown and LaTeX
    markdown = files[".md"].read_text()
    assert markdown.startswith("<!--\nData: ") and "\n-->\n\n| System | ndcg@5 |" in markdown
    latex = files[".tex"].read_text()
    assert latex.startswith("% Data: ") and "\n\n\\begin{tabular}" in latex
    assert flat(files[".txt"].read_text()).startswith(f"Data: {letor_file}: 20 queries")
    assert "\n\nSystem " in files[".txt"].read_text()
    with open(files[".csv"], newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["model"] for row in rows] == ["lambdarank", "pointwise"]
    assert rows[0]["ndcg@5 vs baseline"] == "baseline"
    assert rows[1]["ndcg@5 vs baseline"] in ("higher", "lower", "same")
    low, mean, high = (float(rows[1][f"ndcg@5 {k}"]) for k in ("ci_low", "mean", "ci_high"))
    assert low <= mean <= high


@pytest.mark.parametrize("fmt, start", [("markdown", "| System |"), ("latex", r"\begin")])
def test_cv_formats(capsys, fmt, start):
    code, out, _ = run_cli(capsys, "cv", *FAST, "--models", "pointwise", "lambdarank",
                           "--metrics", "map", "--format", fmt)
    assert code == 0
    assert out.startswith(start)  # only the table: ready to paste


@pytest.mark.slow  # starts worker processes, which import the boosters
def test_cv_same_results_in_parallel(capsys):
    argv = ["cv", *FAST, "--models", "pointwise", "lambdarank", "--metrics", "ndcg@10"]
    _, one, _ = run_cli(capsys, *argv)
    code, two, err = run_cli(capsys, *argv, "--n-jobs", 2)
    assert code == 0, err
    assert without_times(two) == without_times(one)


COUNTER = """
import os
from pathlib import Path

from sklearn.linear_model import Ridge


class Counter(Ridge):
    \"\"\"A ridge regression that writes, as it fits, how many loky worker processes its
    own parent (the command) has started.\"\"\"

    def fit(self, X, y, qid=None, sample_weight=None):
        parent, workers = os.getppid(), 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():  # /proc/self, /proc/thread-self: this process again
                continue
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:  # not a process, or one that ended
                continue
            if (int(stat.rpartition(")")[2].split()[1]) == parent
                    and b"popen_loky" in cmdline):
                workers += 1
        with open(os.environ["WORKERS"], "a") as handle:
            handle.write(f"{workers}\\n")
        return super().fit(X, y, sample_weight=sample_weight)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="counts processes in /proc")
@pytest.mark.parametrize("where", ["option", "config"])
def test_n_jobs_starts_no_more_processes_than_units_and_cpus(tmp_path, where):
    # --n-jobs 8 for 6 units started 8 worker processes, each holding the data (n_jobs =
    # 100000 in a configuration file started hundreds before it was killed)
    from joblib import cpu_count

    (tmp_path / "counter.py").write_text(COUNTER)
    jobs = ["--n-jobs", "8"]
    if where == "config":
        (tmp_path / "cv.toml").write_text("n_jobs = 100000\n")
        jobs = ["--config", "cv.toml"]
    counts = tmp_path / "workers"
    env = {**os.environ, "WORKERS": str(counts),
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_rank", "cv", "--n-queries", "30", "--n-splits", "3",
         "--metrics", "map", "--model", "a=counter:Counter", "--model", "b=counter:Counter",
         *jobs], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"(2 models x 3 folds, {min(6, cpu_count())} processes)" in done.stderr
    workers = [int(line) for line in counts.read_text().split()]
    assert len(workers) == 6 and 1 <= max(workers) <= min(6, cpu_count())


def test_cv_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "cv.png"
    code, _, err = run_cli(capsys, "cv", *FAST, "--models", "pointwise", "lambdarank",
                           "--metrics", "ndcg@10", "--plot", path)
    assert code == 0, err
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cv_default_models_without_xgboost(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "xgboost", None)
    code, out, err = run_cli(capsys, "cv", *FAST, "--metrics", "map")
    assert code == 0, err
    assert ('xgboost left out: xgboost is not installed (pip install "sklearn-rank[xgboost]")'
            in flat(out))
    systems = [line.split()[0] for line in out.splitlines()
               if re.match(r"^\S+( \(baseline\))?\s+\d\.\d+ \[", line)]
    assert systems == ["pointwise", "lambdarank"]


@pytest.mark.skipif(not _models.MODELS["xgboost"].available(), reason="needs xgboost")
def test_cv_xgboost(capsys):
    code, out, err = run_cli(capsys, "cv", *FAST, "--models", "lambdarank", "xgboost",
                             "--metrics", "ndcg@10")
    assert code == 0, err
    assert "\nxgboost " in out


# ----------------------------------------------------------------------------------------
# tune


def test_tune_grid(capsys):
    code, out, err = run_cli(capsys, "tune", *FAST[:-1], "--param", "num_leaves=3,7",
                             "--param", "learning_rate=0.1,0.3")
    assert code == 0, err
    assert "grid (ParameterGrid), 4 candidates x 3 folds" in flat(out)
    best = next(line for line in out.splitlines() if line.startswith("Best parameters:"))
    table = out[out.index("\nrank ") + 1:].splitlines()
    first = table[2].split()
    assert first[0] == "1"
    assert best == f"Best parameters: num_leaves={first[4]}, learning_rate={first[5]}"
    assert int(first[4]) in (3, 7) and float(first[5]) in (0.1, 0.3)
    score = next(line for line in out.splitlines() if line.startswith("Best ndcg@10:"))
    assert f"{first[1]} ± {first[3]}" in score
    assert len(err.splitlines()) == 13  # a line as the search starts, then one per fit
    assert err.splitlines()[-1].startswith("grid search: 12/12")


def test_tune_default_grid_and_top(capsys):
    code, out, _ = run_cli(capsys, "tune", *FAST, "--top", 2)
    assert code == 0
    assert "(the default grid of lambdarank)" in flat(out)
    assert "(4 more candidates; --top shows more.)" in out


def test_tune_random_with_distributions_and_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "search.png"
    code, out, err = run_cli(capsys, "tune", *FAST, "--search", "random", "--n-iter", 3,
                             "--param", "learning_rate=loguniform(0.05,0.3)",
                             "--param", "num_leaves=randint(3,9)", "--plot", path)
    assert code == 0, err
    assert "random (ParameterSampler, random_state=0), 3 candidates" in flat(out)
    best = next(line for line in out.splitlines() if line.startswith("Best parameters:"))
    leaves = int(best.split("num_leaves=")[1])
    assert 3 <= leaves <= 9
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_tune_plot_of_a_grid_of_many_lines_shows_the_slice_through_the_best(capsys, tmp_path):
    # 11 values of the other parameter: more lines than the plot draws, so the command
    # plots the candidates that share the best one's other parameters
    pytest.importorskip("matplotlib")
    path = tmp_path / "search.png"
    code, _, err = run_cli(capsys, "tune", *FAST, "--param", "learning_rate=0.1,0.2",
                           "--param", "num_leaves=" + ",".join(map(str, range(3, 14))),
                           "--plot", path, "--plot-param", "learning_rate")
    assert code == 0, err
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_tune_random_over_a_small_grid_samples_it_once(capsys):
    # scikit-learn would warn that the grid is smaller than n_iter (an error in the tests)
    code, out, _ = run_cli(capsys, "tune", *FAST, "--search", "random", "--n-iter", 10,
                           "--param", "num_leaves=3,7")
    assert code == 0
    assert "random (ParameterSampler, random_state=0), 2 candidates" in flat(out)


def test_tune_notes_parameters_passed_to_the_booster(capsys):
    # a LightGBM parameter that LGBMRanker does not name: passed on, with a note
    code, _, err = run_cli(capsys, "tune", *FAST, "--param", "min_data_in_leaf=3,7")
    assert code == 0
    assert "note: 'min_data_in_leaf' is not a named parameter of LGBMRanker" in err


# ----------------------------------------------------------------------------------------
# The --param language and the progress line


@pytest.mark.parametrize("spec, name, values", [
    ("num_leaves=7,15,31", "num_leaves", [7, 15, 31]),
    ("learning_rate=0.05, 1e-1,.2", "learning_rate", [0.05, 0.1, 0.2]),
    ("boosting_type=gbdt,dart", "boosting_type", ["gbdt", "dart"]),
    ("flag=true,False,none", "flag", [True, False, None]),
    ("x=-3", "x", [-3]),
])
def test_parse_param_lists(spec, name, values):
    param = _params.parse_param(spec)
    assert param.name == name and param.distribution is None
    assert param.values == values
    assert [type(v) for v in param.values] == [type(v) for v in values]


def test_parse_param_distributions():
    assert _params.parse_param("n=randint(7,63)").distribution.support() == (7, 63)
    low, high = _params.parse_param("lr=loguniform(0.01, 0.3)").distribution.support()
    assert (low, high) == pytest.approx((0.01, 0.3))
    low, high = _params.parse_param("f=uniform(0.2,0.9)").distribution.support()
    assert (low, high) == pytest.approx((0.2, 0.9))


def test_progress_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    progress = Progress(4, "work")
    for _ in range(4):
        progress.advance("step")
    progress.close()
    text = stream.getvalue()
    assert text.count("\r") == 4 and text.endswith("\n")
    assert "work [" + "#" * 24 + "] 4/4" in text
    assert "work [" + "#" * 6 + "." * 18 + "] 1/4" in text


def test_progress_quiet(capsys):
    progress = Progress(2, "work", enabled=False)
    progress.advance()
    progress.close()
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------------------
# Errors: one line on stderr, no traceback, exit code 2 for usage and 1 for data errors


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


ERRORS = [
    # (command line, {placeholder: file name, content}, exit code, expected message parts)
    (["frobnicate"], {}, 2, ["sklearn-rank: error:", "invalid choice: 'frobnicate'"]),
    (["--bogus"], {}, 2, ["sklearn-rank cv: error:", "unrecognized arguments: --bogus"]),
    (["evaluate", "--bogus", "1"], {}, 2, ["unrecognized arguments: --bogus 1"]),
    (["evaluate", "--run", "{missing}", "--qrels", "{missing}"], {}, 1,
     ["--run", "no such file"]),
    (["evaluate", "--run", "{run}"], {"run": RUN}, 2, ["--run needs --qrels"]),
    (["evaluate", "--qrels", "{qrels}"], {"qrels": QRELS}, 2, ["--qrels needs --run"]),
    (["evaluate", "--table", "{t.csv}", "--run", "{run}", "--qrels", "{qrels}"],
     {"t.csv": "qid,label,score\n", "run": RUN, "qrels": QRELS}, 2, ["give one of them"]),
    (["evaluate", "--run", "{qrels}", "--qrels", "{run}"], {"qrels": QRELS, "run": RUN}, 1,
     ["has 4 fields; a TREC run line has 6"]),
    (["evaluate", "--run", "{run}", "--qrels", "{qrels}"],
     {"run": "7 Q0 a 1 1.0 s\n", "qrels": QRELS}, 1, ["no query of --run", "is judged"]),
    (["evaluate", "--table", "{t.xlsx}"], {"t.xlsx": "x"}, 1,
     ["unknown table type '.xlsx'", ".csv, .tsv, .parquet"]),
    (["evaluate", "--table", "{t.csv}"], {"t.csv": "qid,label,pred\n1,1,0.5\n"}, 1,
     ["has no column 'score' (its columns: 'qid', 'label', 'pred')", "--score-column"]),
    (["evaluate", "--table", "{t.csv}", "--qid-column", "label"],
     {"t.csv": "qid,label,score\n1,1,0.5\n"}, 1,
     ["--qid-column and --label-column both name the column 'label'"]),
    (["cv", "--data", "{t.csv}", "--label-column", "qid"],
     {"t.csv": "qid,label,f1\n1,1,0.5\n1,0,0.2\n"}, 1,
     ["--qid-column and --label-column both name the column 'qid'"]),
    (["cv", "--data", "{t.csv}", "--feature-columns", "f1", "f1"],
     {"t.csv": "qid,label,f1\n1,1,0.5\n1,0,0.2\n"}, 1,
     ["--feature-columns names the column 'f1' twice"]),
    (["evaluate", "--table", "{t.csv}", "--label-column", "grade"],
     {"t.csv": "qid,label,score\n1,1,0.5\n"}, 1, ["no column 'grade'", "--label-column"]),
    (["evaluate", "--table", "{t.csv}"], {"t.csv": "qid,label,score\n1,1,0.5\n1,high,0.1\n"},
     1, ["line 3: column 'label' holds 'high'; expected a finite number"]),
    (["evaluate", "--table", "{t.csv}"], {"t.csv": "qid,label,score\n1,1,0.5\n1,0\n"}, 1,
     ["line 3: 2 fields, but the header has 3"]),
    (["evaluate", "--table", "{t.csv}"], {"t.csv": "qid,label,score\n,1,0.5\n"}, 1,
     ["line 2: column 'qid' is empty"]),
    (["evaluate", "--table", "{t.csv}"], {"t.csv": ""}, 1, ["is empty; expected a header"]),
    (["evaluate", "--table", "{t.csv}"], {"t.csv": "qid,label,score\n"}, 1, ["has no rows"]),
    (["evaluate", "--metrics", "ndgc@10"], {}, 2,
     ["argument --metrics", "Unknown metric name 'ndgc@10'", "Did you mean 'ndcg'"]),
    (["evaluate", "--metrics", "map@10", "MAP@10"], {}, 2, ["--metrics names 'MAP@10' twice"]),
    (["evaluate", "--convention", "trec"], {}, 2,
     ["argument --convention: invalid choice: 'trec'", "trec_eval"]),
    (["evaluate", "--output", "{folder}/out.txt"], {}, 2, ["unknown file type '.txt'", ".csv"]),
    (["evaluate", "--output", "{missing}/out.csv"], {}, 1, ["does not exist"]),
    (["cv", "--data", "{missing}"], {}, 1, ["--data", "no such file"]),
    (["cv", "--data", "{folder}"], {}, 1, ["is a directory"]),
    (["cv", "--data", "{t.txt}"], {"t.txt": "this is not svmlight\n"}, 1,
     ["is not an SVMlight ranking file"]),
    (["cv", "--data", "{t.txt}"], {"t.txt": "1 1:0.5 2:0.1\n0 1:0.1 2:0.9\n"}, 1,
     ["has no query ids: its lines need 'qid:<query>' fields", "t.txt.query"]),
    (["cv", "--data", "{t.txt}"], {"t.txt": "1 qid:3 1:0.5 2:0.1\n0 qid:3 1:0.1 2:0.9\n"}, 1,
     ["holds 1 query; expected at least 2"]),
    (["cv", "--data", "{t.txt}"], {"t.txt": "1 qid:1 1:0.5\n0 qid:2 1:0.1\n"}, 1,
     ["holds 2 queries, fewer than --n-splits 5"]),
    (["cv", "--models", "ranknet"], {}, 2, ["argument --models: invalid choice: 'ranknet'"]),
    (["cv", "--models", "lambdarank"], {}, 2, ["a comparison needs at least 2"]),
    (["cv", "--models", "lambdarank", "lambdarank"], {}, 2, ["names 'lambdarank' twice"]),
    (["cv", "--models", "lambdarank", "pointwise", "--baseline", "xgboost"], {}, 2,
     ["--baseline 'xgboost' is not one of the models compared"]),
    (["cv", "--n-splits", "1"], {}, 2, ["argument --n-splits: must be at least 2, got 1"]),
    (["cv", "--n-queries", "many"], {}, 2, ["argument --n-queries: expected an integer"]),
    (["cv", "--output", "{folder}/table.docx"], {}, 2, ["unknown file type '.docx'"]),
    (["cv", "--plot", "{folder}/plot.bmpx"], {}, 2, ["unknown file type '.bmpx'"]),
    (["cv", "--plot", "{missing}/plot.png"], {}, 1, ["does not exist"]),
    (["tune", "--param", "num_leaves"], {}, 2, ["expected name=values"]),
    (["tune", "--param", "1x=3"], {}, 2, ["'1x' is not a parameter name"]),
    (["tune", "--param", "num_leaves=7,,31"], {}, 2, ["empty value in the list"]),
    (["tune", "--param", "num_leaves=7,7"], {}, 2, ["the value '7' is listed twice"]),
    (["tune", "--param", "a=1", "--param", "a=2"], {}, 2, ["--param a is given twice"]),
    (["tune", "--param", "num_leaves=randint(7,63)"], {}, 2,
     ["a distribution needs --search random"]),
    (["tune", "--search", "random", "--param", "n=randint(1.5,3)"], {}, 2,
     ["expected integer bounds, got '1.5'"]),
    (["tune", "--search", "random", "--param", "lr=loguniform(0,1)"], {}, 2,
     ["loguniform needs bounds above 0"]),
    (["tune", "--search", "random", "--param", "lr=uniform(0.3,0.1)"], {}, 2,
     ["expected low < high"]),
    (["tune", "--search", "random", "--param", "lr=uniform(0.1)"], {}, 2,
     ["uniform takes two bounds"]),
    (["tune", "--search", "random", "--param", "lr=normal(0,1)"], {}, 2,
     ["unknown distribution 'normal'", "loguniform(low,high)"]),
    (["tune", "--search", "random", "--param", "lr=uniform(a,1)"], {}, 2,
     ["expected numbers as bounds, got 'a'"]),
    (["tune", "--plot", "{folder}/p.png", "--plot-param", "depth"], {}, 2,
     ["--plot-param 'depth' is not a searched parameter"]),
    (["tune", "--model", "ranknet"], {}, 2,
     ["--model 'ranknet': unknown model 'ranknet'", "lightgbm", "MODULE:CLASS"]),
    (["tune", "--n-iter", "5"], {}, 2, ["--n-iter sets the candidates of --search random"]),
    (["tune", "--plot-param", "num_leaves"], {}, 2, ["--plot-param", "--plot, which is not"]),
]


@pytest.mark.parametrize("argv, files, code, parts", ERRORS,
                         ids=[" ".join(e[0])[:60] for e in ERRORS])
def test_errors(capsys, tmp_path, argv, files, code, parts):
    names = {"missing": str(tmp_path / "missing"), "folder": str(tmp_path)}
    names.update({name: _write(tmp_path, name, text) for name, text in files.items()})
    for name, value in names.items():
        argv = [arg.replace("{" + name + "}", value) for arg in argv]
    got, _, err = run_cli(capsys, *argv)
    assert got == code, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    command = argv[0] if argv[0] in ("evaluate", "cv", "tune") else None
    if command is not None:
        assert lines[0].startswith(f"sklearn-rank {command}: error: ")
    for part in parts:
        assert part in lines[0]


@pytest.mark.parametrize("argv", [["cv", "--models", "pointwise", "xgboost"],
                                  ["tune", "--model", "xgboost"]])
def test_error_missing_xgboost(capsys, monkeypatch, argv):
    monkeypatch.setitem(sys.modules, "xgboost", None)
    code, _, err = run_cli(capsys, *argv)
    assert code == 1
    assert err.startswith(f"sklearn-rank {argv[0]}: error: ")
    assert 'xgboost, which is not installed. Install it with: pip install ' \
           '"sklearn-rank[xgboost]"' in err


def test_error_missing_matplotlib(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run_cli(capsys, "cv", "--plot", tmp_path / "cv.png")
    assert code == 1
    assert 'matplotlib' in err and 'pip install "sklearn-rank[plot]"' in err


def test_error_parquet_without_a_reader(capsys, monkeypatch, tmp_path):
    for module in ("pandas", "polars", "pyarrow", "fastparquet"):
        monkeypatch.setitem(sys.modules, module, None)
    path = tmp_path / "t.parquet"
    path.write_bytes(b"PAR1")
    code, _, err = run_cli(capsys, "evaluate", "--table", path)
    assert code == 1
    assert '"sklearn-rank[pandas]" pyarrow' in err and '"sklearn-rank[polars]"' in err


def test_error_bad_parquet_file(capsys, tmp_path):
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    path.write_text("not parquet")
    code, _, err = run_cli(capsys, "evaluate", "--table", path)
    assert code == 1
    assert "cannot read it as Parquet" in err and len(err.strip().splitlines()) == 1


def test_error_grades_the_ranker_refuses(capsys, tmp_path):
    # LightGBM's LambdaRank takes integer grades: a data error, reported in one line
    path = tmp_path / "train.txt"
    path.write_text("".join(f"{g} qid:{q} 1:{i}\n" for i, (q, g) in
                            enumerate([(1, 0.5), (1, 1), (2, 0), (2, 1), (3, 1), (3, 0)])))
    code, _, err = run_cli(capsys, "cv", "--data", path, "--n-splits", 3, "--n-estimators", 2,
                           "--models", "pointwise", "lambdarank", "-q")
    assert code == 1
    assert err.startswith("sklearn-rank cv: error: cross-validation failed:")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("model, param, message", [
    ("lambdarank", "num_leaves=1", "Check failed: (num_leaves) > (1)"),
    ("xgboost", "max_depth=-3", "max_depth should be greater equal to 0"),
])
def test_error_parameters_the_booster_refuses(capsys, model, param, message):
    # checked before the search: a usage error naming the option (it was exit 1, mid-search)
    if not _models.MODELS[model].available():
        pytest.skip(f"needs {model}")
    code, _, err = run_cli(capsys, "tune", *FAST, "--model", model, "--param", param)
    assert code == 2
    assert err.startswith(f"sklearn-rank tune: error: --param {param!r}: ")
    assert message in err
    assert len(err.strip().splitlines()) == 1  # XGBoost's message spans two lines


# ----------------------------------------------------------------------------------------
# What cv stands on: cross_validate predicts once per fold, and reports each fold


class CountingRidge(Ridge):
    """A Ridge regression that counts the calls of its predict, across clones."""

    calls = []

    def predict(self, X):
        CountingRidge.calls.append(len(X))
        return super().predict(X)


def test_cross_validate_predicts_once_per_fold():
    from sklearn.base import clone

    from sklearn_rank.model_selection import QueryKFold, cross_validate

    X, y, qid = make_ranking(n_queries=30, random_state=0)
    cv = QueryKFold(3, shuffle=True, random_state=0)
    estimator = CountingRidge()
    CountingRidge.calls.clear()
    ticks = []
    result = cross_validate(estimator, X, y, qid=qid, scoring=["ndcg@10", "err@10", "map"],
                            cv=cv, return_per_query=True, return_predictions=True,
                            callback=lambda: ticks.append(len(CountingRidge.calls)))
    splits = list(cv.split(X, y, qid=qid))
    assert CountingRidge.calls == [len(test) for _, test in splits]  # one predict per fold
    assert ticks == [1, 2, 3]  # called as each fold is scored
    assert "estimator" not in result and "indices" not in result
    predictions = result["predictions"]
    assert predictions.shape == y.shape and not np.isnan(predictions).any()
    for fold, (train, test) in enumerate(splits):
        model = clone(estimator).fit(X[train], y[train])
        np.testing.assert_array_equal(predictions[test], model.predict(X[test]))
        # the per-query values are the metrics of those predictions
        in_fold = result["per_query"].fold == fold
        expected = evaluate(y[test], predictions[test], qid=qid[test], metrics=["map"],
                            return_per_query=True)["map"]
        np.testing.assert_array_equal(result["per_query"]["map"][in_fold], expected)
    # and the same numbers as without the predictions
    plain = cross_validate(estimator, X, y, qid=qid, scoring=["ndcg@10", "err@10", "map"],
                           cv=cv, return_per_query=True)
    for key in ("test_ndcg@10", "test_err@10", "test_map"):
        np.testing.assert_array_equal(plain[key], result[key])
    assert plain["per_query"] == result["per_query"]


def test_cross_validate_predictions_with_train_scores_and_estimators():
    from sklearn.linear_model import Ridge

    from sklearn_rank.model_selection import cross_validate

    X, y, qid = make_ranking(n_queries=20, random_state=1)
    result = cross_validate(Ridge(), X, y, qid=qid, cv=4, return_train_score=True,
                            return_estimator=True, return_indices=True,
                            return_predictions=True)
    for model, test in zip(result["estimator"], result["indices"]["test"]):
        # the test rows' predictions, not the training rows' scored after them
        np.testing.assert_array_equal(result["predictions"][test], model.predict(X[test]))
        assert not any(name.startswith("_sklearn_rank") for name in vars(model))


def test_cross_validate_predictions_of_rows_in_no_test_fold_are_nan():
    from sklearn.linear_model import Ridge

    from sklearn_rank.model_selection import cross_validate

    X, y, qid = make_ranking(n_queries=6, random_state=2)
    queries = np.unique(qid)
    first, second, rest = (np.flatnonzero(np.isin(qid, q)) for q in (
        queries[:2], queries[2:4], queries[4:]))
    cv = [(np.concatenate([second, rest]), first), (np.concatenate([first, rest]), second)]
    predictions = cross_validate(Ridge(), X, y, qid=qid, cv=cv,
                                 return_predictions=True)["predictions"]
    assert np.isnan(predictions[rest]).all()
    assert not np.isnan(predictions[np.concatenate([first, second])]).any()


def test_cross_validate_predictions_refuse_overlapping_tests_and_other_scorers():
    from sklearn.linear_model import Ridge
    from sklearn.metrics import get_scorer
    from sklearn.model_selection import GroupShuffleSplit

    from sklearn_rank.model_selection import cross_validate

    X, y, qid = make_ranking(n_queries=20, random_state=3)
    overlapping = GroupShuffleSplit(n_splits=4, test_size=0.5, random_state=0)
    with pytest.raises(ValueError, match="return_predictions=True needs test sets that do "
                                         "not overlap, one prediction per row; row"):
        cross_validate(Ridge(), X, y, qid=qid, cv=overlapping, return_predictions=True)
    with pytest.raises(TypeError, match="return_predictions=True needs ranking scorers; 'r2'"):
        cross_validate(Ridge(), X, y, qid=qid, scoring={"r2": get_scorer("r2")},
                       return_predictions=True)


@pytest.mark.slow  # starts worker processes
def test_cross_validate_callback_with_several_jobs():
    from sklearn.linear_model import Ridge

    from sklearn_rank.model_selection import cross_validate

    X, y, qid = make_ranking(n_queries=20, random_state=4)
    ticks = []
    one = cross_validate(Ridge(), X, y, qid=qid, cv=3, return_predictions=True)
    two = cross_validate(Ridge(), X, y, qid=qid, cv=3, n_jobs=2, return_predictions=True,
                         callback=lambda: ticks.append(1))
    assert len(ticks) == 3  # one per fold, in this process, when all are done
    np.testing.assert_array_equal(one["predictions"], two["predictions"])
    np.testing.assert_array_equal(one["test_ndcg@10"], two["test_ndcg@10"])


def test_tune_progress_is_passed_to_the_scorer(capsys):
    code, _, err = run_cli(capsys, "tune", *FAST[:-1], "--param", "num_leaves=7,15")
    assert code == 0
    lines = err.splitlines()
    assert lines[-1].startswith("grid search: 6/6 ")  # 2 candidates x 3 folds, one by one
    assert len(lines) == 7 and lines[0].startswith("grid search: 0/6 ")


def test_set_values_read_ascii_digits_only():
    """int() reads the Arabic-Indic digits '\u0661\u0662' as 12: --set n=\u0661\u0662 was 12."""
    assert _params._scalar("12", "n") == 12 and _params._scalar("-1.5e2", "n") == -150.0
    assert _params._scalar("\u0661\u0662", "n") == "\u0661\u0662"  # text, which the model refuses
    assert _params._scalar("\uff15.0", "n") == "\uff15.0"
