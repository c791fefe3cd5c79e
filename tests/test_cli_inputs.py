"""The command line on inputs that scikit-learn's habits or other tools produce: sparse
SVMlight features for dense-only estimators, multiclass classifiers, labels with ``$``,
pipes, and the messages that name the command's own options.

Run in-process through ``main(argv)``, on real files written to ``tmp_path``.
"""

import json

import numpy as np
import pytest
from _cli import one_line_error, run_cli
from _fifo import fifo_with
from sklearn.datasets import dump_svmlight_file

from sklearn_rank.datasets import make_ranking

SMALL = ["--n-splits", "3", "-q"]


def flat(text):
    return " ".join(text.split())


@pytest.fixture
def letor(tmp_path):
    """An SVMlight file of 30 queries, and the same data as a CSV table."""
    X, y, qid = make_ranking(30, n_features=5, random_state=1, shuffle=False)
    path = tmp_path / "train.txt"
    dump_svmlight_file(X, y.astype(int), str(path), query_id=qid)
    table = tmp_path / "train.csv"
    header = ",".join(["qid", "grade", *(f"f{i}" for i in range(X.shape[1]))])
    rows = np.column_stack([qid, y, X])
    np.savetxt(table, rows, delimiter=",", header=header, comments="", fmt="%.17g")
    return path, table


# ----------------------------------------------------------------------------------------
# Sparse SVMlight features and estimators that take only dense input


def test_cv_densifies_svmlight_features_for_a_dense_only_estimator(capsys, tmp_path, letor):
    # BayesianRidge takes no sparse input (its tags say so): scikit-learn's "Use
    # '.toarray()'" is advice a command-line user cannot follow
    svmlight, table = letor
    models = ["--model", "sklearn.linear_model:BayesianRidge",
              "--model", "sklearn.linear_model:Ridge"]
    out_svm, out_csv = tmp_path / "svm.json", tmp_path / "csv.json"
    code, _, err = run_cli(capsys, "cv", "--data", svmlight, *models, *SMALL,
                           "--output", out_svm)
    assert code == 0, err
    # the cost is said, for the one model that needs it
    assert "BayesianRidge takes no sparse input" in err and "made dense" in err
    assert "Ridge," not in err and "in memory" in err
    # the numbers are those of the same data read as a (dense) table
    code, _, err = run_cli(capsys, "cv", "--data", table, "--qid-column", "qid",
                           "--label-column", "grade", "--qid-type", "int", *models, *SMALL,
                           "--output", out_csv)
    assert code == 0, err
    from_svm, from_csv = (json.loads(p.read_text())["cv"][0] for p in (out_svm, out_csv))
    assert from_svm["model"] == "BayesianRidge"
    for key in ("ndcg@10 mean", "err@10 mean", "map mean"):
        assert from_svm[key] == pytest.approx(from_csv[key], rel=1e-9)


def test_tune_densifies_svmlight_features_with_a_test_set(capsys, tmp_path, letor):
    svmlight, _ = letor
    X, y, qid = make_ranking(10, n_features=3, n_informative=3, random_state=2)  # padded
    test = tmp_path / "test.txt"
    dump_svmlight_file(X, y.astype(int), str(test), query_id=qid)
    code, out, err = run_cli(capsys, "tune", "--data", svmlight, "--test", test,
                             "--model", "sklearn.linear_model:BayesianRidge",
                             "--param", "alpha_1=1e-6,1e-3", "--set", "max_iter=50", *SMALL)
    assert code == 0, err
    assert "made dense" in err and "--data 600" not in err
    assert "Best parameters: alpha_1=" in out


def test_densifying_beyond_the_memory_available_is_refused(capsys, tmp_path):
    # one feature numbered two billion: a few kB sparse, 24 TB dense
    X, y, qid = make_ranking(30, n_features=2, n_informative=2, random_state=1)
    lines = [f"{int(g)} qid:{q} 1:{a:.6f} 2000000000:{b:.6f}" for g, q, (a, b)
             in zip(y, qid, X)]
    path = tmp_path / "wide.txt"
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(capsys, "cv", "--data", path,
                           "--model", "sklearn.linear_model:BayesianRidge",
                           "--model", "sklearn.linear_model:Ridge", *SMALL)
    line = one_line_error(err, "cv")
    assert code == 1
    assert "--model 'sklearn.linear_model:BayesianRidge': BayesianRidge takes no sparse input" \
        in line
    assert "TB as a dense array, more than the" in line and "of memory available" in line
    assert "Use a model that takes sparse input" in line


# ----------------------------------------------------------------------------------------
# A classifier of several grades without predict_proba


@pytest.mark.parametrize("command", ["cv", "tune"])
def test_multiclass_classifier_without_predict_proba_names_what_fits(capsys, command):
    # LinearSVC failed every fold with "AttributeError ... predict_proba"
    more = (["--model", "sklearn.linear_model:Ridge"] if command == "cv"
            else ["--param", "C=0.1,1"])
    code, _, err = run_cli(capsys, command, "--model", "sklearn.svm:LinearSVC", *more,
                           "--n-queries", "20", *SMALL)
    line = one_line_error(err, command)
    assert code == 2
    assert ("--model 'sklearn.svm:LinearSVC': LinearSVC is a classifier without "
            "predict_proba, and the grades of make_ranking") in line
    assert "take 5 values" in line
    assert "Use a regressor of the grades (e.g. sklearn.svm:LinearSVR)" in line


def test_scorer_of_a_multiclass_classifier_without_predict_proba():
    # the library's scorer says the same, instead of scikit-learn's AttributeError
    from sklearn.svm import LinearSVC

    from sklearn_rank import get_scorer

    X, y, qid = make_ranking(20, random_state=0)
    model = LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match="LinearSVC is a classifier of 5 grades without "
                                         "predict_proba.*Use a regressor"):
        get_scorer("ndcg@10")(model, X, y, qid=qid)


# ----------------------------------------------------------------------------------------
# Labels drawn in figures: '$' is no formula, a long label does not crowd the axes out

LABELS = {
    "dollar": (r"a$\foo$", "c$^$"),  # matplotlib's mathtext failed to parse them
    "long": ("x" * 300, "b"),  # constrained_layout's UserWarnings, the axes collapsed
}


@pytest.mark.parametrize("labels", LABELS.values(), ids=LABELS.keys())
def test_cv_plot_and_report_draw_labels_as_written(capsys, tmp_path, labels):
    pytest.importorskip("matplotlib")
    store, plot, page = tmp_path / "s.sqlite", tmp_path / "p.png", tmp_path / "r.html"
    first, second = labels
    code, out, err = run_cli(capsys, "cv", "--n-queries", "20", *SMALL,
                             "--model", f"{first}=sklearn.linear_model:Ridge",
                             "--model", f"{second}=sklearn.linear_model:BayesianRidge",
                             "--metrics", "ndcg@5", "ndcg@10", "--plot", plot,
                             "--store", store)
    assert code == 0, err
    assert err == "" and plot.stat().st_size > 0
    code, out, err = run_cli(capsys, "report", store, "--output", page)
    assert code == 0, err
    assert err == ""
    assert first in page.read_text()


# ----------------------------------------------------------------------------------------
# Pipes: /dev/stdin, a named pipe


QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n"
RUN = "1 Q0 b 1 2.0 s\n1 Q0 a 2 1.0 s\n2 Q0 d 1 2.0 s\n2 Q0 c 2 1.0 s\n"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes")
@pytest.mark.parametrize("piped", ["run", "qrels"])
def test_trec_files_read_from_a_pipe(capsys, tmp_path, piped):
    # a pipe was "No TREC run file at '/dev/stdin': it does not exist"
    files = {}
    for name, text in (("run", RUN), ("qrels", QRELS)):
        if name == piped:
            files[name] = fifo_with(tmp_path, name, text)
        else:
            files[name] = tmp_path / name
            files[name].write_text(text)
    code, out, err = run_cli(capsys, "evaluate", "--run", files["run"], "--qrels",
                             files["qrels"], "--metrics", "map", "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[-1] == "all,0.75"  # (1/2 + 1) / 2


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes")
def test_svmlight_from_a_pipe_says_why_it_cannot_be_read(capsys, tmp_path):
    X, y, qid = make_ranking(10, n_features=3, n_informative=3, random_state=0)
    lines = "".join(f"{int(g)} qid:{q} 1:{a} 2:{b} 3:{c}\n" for g, q, (a, b, c) in
                    zip(y, qid, X))
    path = fifo_with(tmp_path, "train.txt", lines)
    code, _, err = run_cli(capsys, "cv", "--data", path, *SMALL)
    line = one_line_error(err, "cv")
    assert "is not a regular file (a pipe or a device)" in line
    assert "Save it to a file first" in line
    with open(path) as pipe:  # let the writer thread end
        pipe.read()


# ----------------------------------------------------------------------------------------
# evaluate --format json is strict JSON


def test_evaluate_json_writes_null_for_nan(capsys, tmp_path):
    # query 2 has no relevant document: map(no_relevant=nan) is NaN there, and in the mean
    table = tmp_path / "t.csv"
    table.write_text("qid,label,score\n1,1,0.5\n1,0,0.2\n2,0,0.5\n2,0,0.1\n")
    code, out, err = run_cli(capsys, "evaluate", "--table", table, "--format", "json",
                             "--per-query", "--metrics", "ndcg@10", "map(no_relevant=nan)")
    assert code == 0, err
    assert "NaN" not in out

    def refuse(token):
        raise ValueError(f"{token} is no JSON")

    result = json.loads(out, parse_constant=refuse)
    assert [q["map(no_relevant=nan)"] for q in result["per_query"]] == [1.0, None]
    assert result["metrics"]["ndcg@10"] == 0.5


# ----------------------------------------------------------------------------------------
# A directory of Parquet files with one unreadable file


def test_unreadable_parquet_file_in_a_directory_is_named(capsys, tmp_path):
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    import pandas as pd

    folder = tmp_path / "scores"
    folder.mkdir()
    for i, name in enumerate(["a.parquet", "b.parquet"]):
        pd.DataFrame({"qid": [i, i], "label": [1, 0], "score": [0.5, 0.1]}).to_parquet(
            folder / name)
    (folder / "c.parquet").write_bytes(b"not parquet at all\n")
    code, _, err = run_cli(capsys, "evaluate", "--table", folder)
    line = one_line_error(err, "evaluate")
    assert code == 1
    assert f"--table {str(folder)!r}: its file 'c.parquet' cannot be read as Parquet" in line
    (folder / "c.parquet").unlink()
    code, out, err = run_cli(capsys, "evaluate", "--table", folder, "--format", "csv",
                             "--metrics", "map")
    assert code == 0, err
    assert out.splitlines()[-1] == "all,1.0"


# ----------------------------------------------------------------------------------------
# Errors in the command's words, not the library's (judged=, partitioned_by_query=)


def test_evaluate_table_negative_grade_names_the_options(capsys, tmp_path):
    # it was "... or pass judged='y_true'", which is no option of the command
    table = tmp_path / "t.csv"
    table.write_text("q,grade,score\n1,1,0.5\n1,0,0.2\n2,-1,0.5\n2,-1,0.1\n")
    code, _, err = run_cli(capsys, "evaluate", "--table", table, "--qid-column", "q",
                           "--label-column", "grade")
    line = one_line_error(err, "evaluate")
    assert code == 1
    assert "judged=" not in line and "judged'" not in line
    assert (f"--table {str(table)!r}: the grades (--label-column 'grade') hold -1 in data "
            "row 3 (and 1 more); expected grades of 0 or more") in line
    assert "--run and --qrels" in line


@pytest.mark.parametrize("command", ["cv", "tune"])
def test_cv_and_tune_refuse_negative_grades_before_the_work(capsys, tmp_path, command):
    # the scorer refused them at the first fold, with a row of that fold and judged=
    X, y, qid = make_ranking(20, n_features=3, n_informative=3, random_state=0)
    y = y.astype(int)
    y[5] = -1
    path = tmp_path / "train.txt"
    dump_svmlight_file(X, y, str(path), query_id=qid)
    more = ["--param", "alpha=0.1,1"] if command == "tune" else []
    code, _, err = run_cli(capsys, command, "--data", path,
                           "--model", "sklearn.linear_model:Ridge", *more,
                           *(["--model", "sklearn.linear_model:BayesianRidge"]
                             if command == "cv" else []), *SMALL)
    line = one_line_error(err, command)
    assert code == 1
    assert "judged=" not in line and "judged'" not in line
    assert f"--data {path}: the grade of data row 6 is -1; expected grades of 0 or more" in line


def test_partitioned_by_query_error_names_the_flag(capsys, tmp_path):
    # it was "partitioned_by_query=True says ...", the library's keyword
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    import pandas as pd

    folder = tmp_path / "scores"
    folder.mkdir()
    pd.DataFrame({"qid": [1, 1, 2], "label": [1, 0, 1], "score": [0.5, 0.1, 0.3]}).to_parquet(
        folder / "a.parquet")
    pd.DataFrame({"qid": [2, 2], "label": [1, 0], "score": [0.5, 0.1]}).to_parquet(
        folder / "b.parquet")
    code, _, err = run_cli(capsys, "evaluate", "--table", folder, "--partitioned-by-query")
    line = one_line_error(err, "evaluate")
    assert code == 1
    assert "partitioned_by_query=" not in line
    assert ("--partitioned-by-query says that the rows of each query sit in one file of "
            f"--table {str(folder)!r}, but query 2 has rows in 2 files") in line
    assert "Drop --partitioned-by-query" in line


def test_library_errors_carry_what_the_command_line_maps():
    # the structured attributes, in place of a message to parse
    import pickle

    from sklearn_rank.metrics import evaluate
    from sklearn_rank.metrics._input import GradeError

    with pytest.raises(GradeError) as caught:
        evaluate([1, 0, -1, -1], [0.4, 0.3, 0.2, 0.1], qid=[1, 1, 2, 2], metrics=["map"])
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.parameter, error.row, error.value, error.count) == ("y_true", 2, -1, 2)
    copy = pickle.loads(pickle.dumps(error))  # raised in a Dask worker, it crosses over
    assert (str(copy), copy.row, copy.count) == (str(error), 2, 2)


# ----------------------------------------------------------------------------------------
# The report's provenance of a tune run


def test_report_provenance_of_a_tune_run_names_each_parameter_once(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    store, page = tmp_path / "s.sqlite", tmp_path / "r.html"
    code, _, err = run_cli(capsys, "tune", "--n-queries", "20", *SMALL,
                           "--model", "sklearn.linear_model:Ridge", "--param", "alpha=0.1,1",
                           "--param", "fit_intercept=true,false", "--store", store)
    assert code == 0, err
    code, _, err = run_cli(capsys, "report", store, "--output", page)
    assert code == 0, err
    html = page.read_text()
    # it was "alpha=alpha=0.1,1"
    assert "grid over alpha=0.1,1, fit_intercept=true,false</td>" in html
    assert "alpha=alpha" not in html


# ----------------------------------------------------------------------------------------
# evaluate --table from a pipe: standard input, its type from --table-format or its bytes

TABLE = "qid,label,score\n1,1,0.5\n1,0,0.2\n2,2,0.1\n2,0,0.9\n"


def _evaluate_piped(data, *argv):
    """``sklearn-rank evaluate ARGV`` in a real process, ``data`` (bytes) on its stdin."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    return subprocess.run(
        [sys.executable, "-m", "sklearn_rank", "evaluate", *argv], input=data,
        capture_output=True, cwd=root, check=False,
        env={**os.environ, "PYTHONPATH": str(root)})


@pytest.mark.skipif(not __import__("os").path.exists("/dev/stdin"), reason="no /dev/stdin")
@pytest.mark.parametrize("table", ["/dev/stdin", "-"])
@pytest.mark.parametrize("text, given", [
    (TABLE, ()), (TABLE.replace(",", "\t"), ()), (TABLE, ("--table-format", "csv")),
    (TABLE.replace(",", "\t"), ("--table-format", "tsv")),
])
def test_evaluate_table_from_standard_input(tmp_path, table, text, given):
    """A table piped to the command is read: it was "unknown table type '(none)'"."""
    path = tmp_path / "scores.csv"
    path.write_text(TABLE)
    expected = _evaluate_piped(b"", "--table", str(path), "--per-query", "--format", "csv")
    assert expected.returncode == 0, expected.stderr
    result = _evaluate_piped(text.encode(), "--table", table, *given, "--per-query",
                             "--format", "csv")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == expected.stdout
    assert result.stdout.decode().splitlines()[-1].startswith("all,0.815")


@pytest.mark.skipif(not __import__("os").path.exists("/dev/stdin"), reason="no /dev/stdin")
def test_evaluate_parquet_from_standard_input(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "scores.parquet"
    pd.DataFrame({"qid": [1, 1, 2, 2], "label": [1, 0, 2, 0],
                  "score": [0.5, 0.2, 0.1, 0.9]}).to_parquet(path)
    expected = _evaluate_piped(b"", "--table", str(path), "--format", "csv")
    for given in ((), ("--table-format", "parquet")):  # its magic number, or said
        result = _evaluate_piped(path.read_bytes(), "--table", "-", *given, "--format", "csv")
        assert (result.returncode, result.stderr) == (0, b"")
        assert result.stdout == expected.stdout


@pytest.mark.skipif(not __import__("os").path.exists("/dev/stdin"), reason="no /dev/stdin")
@pytest.mark.parametrize("text, seen", [
    ("qid;label;score\n1;1;0.5\n", "no comma and no tab"),
    ("qid,label\tscore\n1,1\t0.5\n", "both commas and tabs"),
])
def test_evaluate_table_of_unknown_type_from_standard_input_is_refused(text, seen):
    result = _evaluate_piped(text.encode(), "--table", "-")
    assert result.returncode != 0 and result.stdout == b""
    line = result.stderr.decode().strip()
    assert line.startswith("sklearn-rank evaluate: error: --table '/dev/stdin' is a stream")
    assert seen in line and "give its type as --table-format (csv, tsv or parquet)" in line


@pytest.mark.skipif(not __import__("os").path.exists("/dev/stdin"), reason="no /dev/stdin")
def test_evaluate_table_errors_from_standard_input_name_the_stream():
    """An error in the piped table names the stream and the line, never the temporary copy
    that the reader made of it."""
    result = _evaluate_piped(b"qid,label,score\n1,x,0.5\n", "--table", "-")
    line = result.stderr.decode().strip()
    assert result.returncode != 0
    assert line == ("sklearn-rank evaluate: error: --table '/dev/stdin', line 2: column "
                    "'label' holds 'x'; expected a finite number.")


def test_evaluate_table_format_reads_a_file_of_another_suffix(capsys, tmp_path):
    path = tmp_path / "scores.txt"
    path.write_text(TABLE.replace(",", "\t"))
    code, _, err = run_cli(capsys, "evaluate", "--table", path)
    assert code != 0
    assert "unknown table type '.txt'" in err and "--table-format" in err
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--table-format", "tsv",
                             "--metrics", "map", "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[-1] == "all,0.75"


def test_evaluate_table_format_needs_a_table_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "evaluate", "--table-format", "csv")
    assert code == 2 and "--table-format sets the type of a --table file" in err
    code, _, err = run_cli(capsys, "evaluate", "--table", tmp_path, "--table-format", "csv")
    assert code == 2 and "a directory holds Parquet files" in err
