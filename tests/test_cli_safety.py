"""The command line loses nothing and merges nothing: issue 9's cases, through ``main(argv)``.

Outputs never replace inputs and are written whole or not at all; query ids are kept as
written; every bad file or value is one line on stderr with the README's exit code (2 for a
usage error, 1 for a data error), never a traceback or a booster's own log line.
"""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _cli import one_line_error, run_cli
from sklearn.datasets import dump_svmlight_file

from sklearn_rank._cli import _common, _models
from sklearn_rank.datasets import (
    load_svmlight_ranking,
    load_svmlight_ranking_files,
    make_ranking,
    read_trec,
)

ROOT = Path(__file__).resolve().parents[1]
FAST = ["--n-queries", "30", "--n-splits", "3", "--n-estimators", "3", "-q"]
TABLE = "qid,label,score\n1,2,0.9\n1,0,0.5\n2,1,0.2\n2,0,0.8\n"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 0.9 s\n1 Q0 b 2 0.5 s\n2 Q0 c 1 0.4 s\n"


@pytest.fixture
def letor(tmp_path):
    X, y, qid = make_ranking(12, n_features=6, random_state=0, shuffle=False)
    path = tmp_path / "letor.txt"
    dump_svmlight_file(X, y.astype(int), str(path), query_id=qid)
    return path


def side_file_pair(folder, n_queries=(12, 9)):
    """Two LETOR files without qid: fields, their query sizes in ``.query`` side files."""
    paths = []
    for name, n, seed in zip(("rank.train", "rank.test"), n_queries, (1, 2)):
        X, y, qid = make_ranking(n, n_features=6, random_state=seed, shuffle=False)
        path = folder / name
        dump_svmlight_file(X, y.astype(int), str(path))
        sizes = np.unique(qid, return_counts=True)[1]
        (folder / (name + ".query")).write_text("".join(f"{s}\n" for s in sizes))
        paths.append(path)
    return paths


# ----------------------------------------------------------------------------------------
# Outputs never replace inputs; they are written whole or not at all


@pytest.mark.parametrize("spelling", ["same", "relative", "symlink", "hardlink"])
def test_evaluate_refuses_to_write_over_its_table(capsys, tmp_path, monkeypatch, spelling):
    table = tmp_path / "s.csv"
    table.write_text(TABLE)
    monkeypatch.chdir(tmp_path)
    output = {"same": table, "relative": Path("sub/../s.csv"), "symlink": tmp_path / "l.csv",
              "hardlink": tmp_path / "h.csv"}[spelling]
    (tmp_path / "sub").mkdir()
    if spelling == "symlink":
        output.symlink_to(table)
    if spelling == "hardlink":
        os.link(table, output)
    code, out, err = run_cli(capsys, "evaluate", "--table", table, "--output", output)
    assert code == 2
    line = one_line_error(err, "evaluate")
    assert "is the input file of --table" in line and "Choose another output file" in line
    assert table.read_text() == TABLE
    assert out == ""


@pytest.mark.parametrize("option", ["--run", "--qrels"])
def test_evaluate_refuses_to_write_over_trec_files(capsys, tmp_path, option):
    qrels, run = tmp_path / "qrels.csv", tmp_path / "run.csv"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    target = run if option == "--run" else qrels
    code, _, err = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels,
                           "--output", target)
    assert code == 2
    assert f"is the input file of {option}" in one_line_error(err, "evaluate")
    assert (run.read_text(), qrels.read_text()) == (RUN, QRELS)


@pytest.mark.parametrize("command", ["cv", "tune"])
def test_cv_and_tune_refuse_to_write_over_their_data(capsys, tmp_path, command):
    # an SVMlight file may have any name: letor.csv, letor.png
    for suffix, option in ([(".csv", "--output"), (".png", "--plot")] if command == "cv"
                           else [(".png", "--plot")]):
        data = tmp_path / f"letor{suffix}"
        data.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.2\n1 qid:2 1:0.1\n0 qid:2 1:0.3\n")
        before = data.read_text()
        code, _, err = run_cli(capsys, command, "--data", data, option, data, *FAST)
        assert code == 2
        assert "is the input file of --data" in one_line_error(err, command)
        assert data.read_text() == before


def test_output_write_is_atomic(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("previous\n")
    os.chmod(path, 0o640)

    def crash(temporary):
        Path(temporary).write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(_common.CLIError, match="cannot write: No space left on device"):
        _common.write_atomic(path, crash, "--output")
    assert path.read_text() == "previous\n"
    assert os.listdir(tmp_path) == ["out.csv"]  # no temporary file left behind
    _common.write_text(path, "new", "--output")
    assert path.read_text() == "new\n"
    assert os.stat(path).st_mode & 0o777 == 0o640  # the replaced file's permissions


def test_output_through_a_symlink_replaces_its_target(capsys, tmp_path):
    table = tmp_path / "s.csv"
    table.write_text(TABLE)
    target = tmp_path / "results.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, err = run_cli(capsys, "evaluate", "--table", table, "--output", link,
                           "--metrics", "mrr")
    assert code == 0, err
    assert link.is_symlink()
    assert target.read_text().startswith("qid,mrr\n")


# ----------------------------------------------------------------------------------------
# Query ids are kept as written


def test_csv_query_ids_are_strings(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("qid,label,score\n007,1,0.9\n007,0,0.1\n7,0,0.9\n7,1,0.1\n")
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                             "--per-query", "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    assert result["n_queries"] == 2
    assert {row["qid"]: row["mrr"] for row in result["per_query"]} == {"007": 1.0, "7": 0.5}
    # --qid-type int: the user says they are numbers, hence one query
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                             "--per-query", "--format", "json", "--qid-type", "int")
    assert code == 0, err
    result = json.loads(out)
    assert [row["qid"] for row in result["per_query"]] == [7]


def test_qid_type_errors(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("qid,label,score\nq1,1,0.9\nq1,0,0.1\n")
    code, _, err = run_cli(capsys, "evaluate", "--table", path, "--qid-type", "int")
    assert code == 1
    assert "line 2: the query id 'q1' is not an integer" in one_line_error(err, "evaluate")
    code, _, err = run_cli(capsys, "evaluate", "--qid-type", "str")
    assert code == 2
    assert "--qid-type sets the type of the query ids of --table" in one_line_error(
        err, "evaluate")


def test_parquet_query_ids_keep_their_type(capsys, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "s.parquet"
    pd.DataFrame({"qid": ["007", "007", "7", "7"], "label": [1, 0, 0, 1],
                  "score": [0.9, 0.1, 0.9, 0.1]}).to_parquet(path)
    code, out, _ = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                           "--format", "json")
    assert code == 0 and json.loads(out)["n_queries"] == 2
    pd.DataFrame({"qid": [7, 7, 8, 8], "label": [1, 0, 0, 1],
                  "score": [0.9, 0.1, 0.9, 0.1]}).to_parquet(path)
    code, out, _ = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                           "--per-query", "--format", "json")
    assert code == 0
    assert [row["qid"] for row in json.loads(out)["per_query"]] == [7, 8]


def test_trec_query_ids_and_docnos_are_strings(tmp_path):
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("007 0 d01 1\n7 0 d1 1\n")
    run.write_text("007 Q0 d01 1 0.9 s\n007 Q0 d1 2 0.8 s\n7 Q0 d1 1 0.1 s\n7 Q0 d01 2 0.5 s\n")
    d = read_trec(qrels, run)
    assert sorted(set(d["qid"])) == ["007", "7"]
    assert sorted(d["docno"][d["qid"] == "7"]) == ["d01", "d1"]


def test_svmlight_query_ids_spelled_twice_are_refused(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("1 qid:007 1:0.5\n0 qid:007 1:0.1\n1 qid:7 1:0.3\n0 qid:7 1:0.2\n")
    with pytest.raises(ValueError, match=r"writes 'qid:007' and 'qid:7', which are the same "
                                         r"integer 7"):
        load_svmlight_ranking(path)
    path.write_text("1 qid:007 1:0.5\n0 qid:007 1:0.1\n1 qid:8 1:0.3\n")
    assert load_svmlight_ranking(path)[2].tolist() == [7, 7, 8]  # one spelling: fine


def test_bom_csv_is_read(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"\xef\xbb\xbf" + TABLE.encode())
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                             "--format", "json")
    assert code == 0, err
    assert json.loads(out)["n_queries"] == 2


def test_missing_column_message_shows_the_names_as_they_are(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("qid ,label,score\n1,1,0.5\n".replace("qid ", "query id"))
    code, _, err = run_cli(capsys, "evaluate", "--table", path)
    assert code == 1
    assert "(its columns: 'query id', 'label', 'score')" in one_line_error(err, "evaluate")


def test_duplicate_column_is_refused(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("qid,label,score,score\n1,1,0.5,0.1\n")
    code, _, err = run_cli(capsys, "evaluate", "--table", path)
    assert code == 1
    assert "has 2 columns named 'score'" in one_line_error(err, "evaluate")


def test_long_csv_field_is_read(capsys, tmp_path):
    path = tmp_path / "s.csv"
    text = "x" * 200_000
    path.write_text(f"qid,text,label,score\n1,{text},1,0.9\n1,{text},0,0.1\n")
    code, out, err = run_cli(capsys, "evaluate", "--table", path, "--metrics", "mrr",
                             "--format", "json")
    assert code == 0, err
    assert json.loads(out)["metrics"]["mrr"] == 1.0


# ----------------------------------------------------------------------------------------
# TREC files: duplicates as trec_eval, messages that agree with themselves


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_trec_duplicate_documents_are_refused(tmp_path, which, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS + ("1 0 a 0\n" if which == "qrels" else ""))
    run.write_text(RUN + ("1 Q0 a 3 0.1 s\n" if which == "run" else ""))
    path = run if which == "run" else qrels
    with pytest.raises(ValueError, match=r"lists document 'a' twice for query '1' \(lines 1 "
                                         r"and 4\); trec_eval refuses"):
        read_trec(qrels, run)
    code, _, err = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels)
    assert code == 1
    assert str(path) in one_line_error(err, "evaluate")


def test_trec_duplicates_of_queries_not_evaluated_are_ignored(tmp_path):
    # trec_eval checks the queries it evaluates: query 9 is judged, not in the run
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS + "9 0 z 1\n9 0 z 0\n")
    run.write_text(RUN)
    with pytest.warns(UserWarning, match=r"\('9'\)"):
        assert set(read_trec(qrels, run)["qid"]) == {"1", "2"}


@pytest.mark.parametrize("qrels, run, message", [
    (QRELS, "1 Q0 a 1 0.9\n", "has 5 fields; a TREC run line has 6, 'qid Q0 docno rank score "
                              "tag', e.g. '301 Q0 FR940202-2-00150 1 2.129 tag'"),
    ("1 0 a\n", RUN, "has 3 fields; a TREC qrels line has 4, 'qid iteration docno grade', "
                     "e.g. '301 0 FR940202-2-00150 1'"),
    (QRELS, "1 Q0 a 1 nan s\n", "Line 1 of .*: the score 'nan' is not a number"),
    (QRELS, "1 Q0 a 1 0.5 s\n1 Q0 b 1 high s\n", "Line 2 of .*: the score 'high' is not a"),
    ("# judged\n1 0 a x\n", RUN, "Line 2 of .*: the grade 'x' is not a number"),
    ("", RUN, "holds no TREC qrels line; expected lines of 4 fields"),
])
def test_read_trec_messages(tmp_path, qrels, run, message):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    with pytest.raises(ValueError, match=message):
        read_trec(tmp_path / "q", tmp_path / "r")


def test_read_trec_skips_comments_as_trec_eval(tmp_path):
    (tmp_path / "q").write_text("# qrels\n" + QRELS)
    (tmp_path / "r").write_text("# run\n" + RUN)
    assert len(read_trec(tmp_path / "q", tmp_path / "r")["qid"]) == 3


# ----------------------------------------------------------------------------------------
# Every bad input is one line with the right exit code


GARBAGE = {
    "empty": b"",
    "binary": bytes(range(256)) * 4,
    "header-only": b"qid,label,score\n",
    "text": b"hello world\n",
    "nan-label": b"qid,label,score\n1,nan,0.5\n",
    "nan-score": b"qid,label,score\n1,1,nan\n",
    "inf-label": b"qid,label,score\n1,inf,0.5\n",
    "nul": b"qid,label,score\n1,1\x00,0.5\n",
}


@pytest.mark.parametrize("content", list(GARBAGE))
@pytest.mark.parametrize("option", ["--table", "--run", "--qrels", "--data-cv", "--data-tune"])
def test_garbage_files_give_one_line(capsys, tmp_path, option, content):
    path = tmp_path / "input.csv"
    path.write_bytes(GARBAGE[content])
    good_run, good_qrels = tmp_path / "run", tmp_path / "qrels"
    good_run.write_text(RUN)
    good_qrels.write_text(QRELS)
    argv = {
        "--table": ["evaluate", "--table", path],
        "--run": ["evaluate", "--run", path, "--qrels", good_qrels],
        "--qrels": ["evaluate", "--run", good_run, "--qrels", path],
        "--data-cv": ["cv", "--data", path, *FAST],
        "--data-tune": ["tune", "--data", path, *FAST],
    }[option]
    code, _, err = run_cli(capsys, *argv)
    assert code == 1, err
    one_line_error(err, argv[0])


@pytest.mark.parametrize("argv", [
    ["evaluate", "--table", "{folder}"],
    ["evaluate", "--run", "{folder}", "--qrels", "{folder}"],
    ["cv", "--data", "{folder}"],
    ["tune", "--data", "{missing}"],
    ["evaluate", "--output", "{folder}"],
])
def test_directories_and_missing_files_give_one_line(capsys, tmp_path, argv):
    (tmp_path / "d.csv").mkdir()
    argv = [a.replace("{folder}", str(tmp_path / "d.csv"))
            .replace("{missing}", str(tmp_path / "none.txt")) for a in argv]
    code, _, err = run_cli(capsys, *argv)
    assert code in (1, 2)
    one_line_error(err, argv[0])


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs POSIX permissions, which root ignores")
def test_unreadable_file_gives_one_line(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text(TABLE)
    path.chmod(0)
    code, _, err = run_cli(capsys, "evaluate", "--table", path)
    assert code == 1
    assert "permission denied" in one_line_error(err, "evaluate")


def test_empty_data_file_for_cv_and_tune(capsys, tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("")
    for command in ("cv", "tune"):
        code, _, err = run_cli(capsys, command, "--data", path, *FAST)
        assert code == 1
        assert "is empty; expected SVMlight lines" in one_line_error(err, command)


def test_bad_query_side_file(capsys, tmp_path):
    path = tmp_path / "rank.train"
    path.write_text("1 1:0.5\n0 1:0.1\n1 1:0.3\n0 1:0.2\n")
    for sizes, message in [("", "add up to 0 rows"), ("2\nx\n", "Line 2 of the query-size"),
                           ("2\n0\n2\n", "Line 2 of the query-size")]:
        (tmp_path / "rank.train.query").write_text(sizes)
        code, _, err = run_cli(capsys, "cv", "--data", path, *FAST)
        assert code == 1, err
        assert message in one_line_error(err, "cv")


def test_no_query_ids_names_the_side_file_not_a_parameter(capsys, tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("1 1:0.5\n0 1:0.1\n")
    code, _, err = run_cli(capsys, "cv", "--data", path, *FAST)
    assert code == 1
    line = one_line_error(err, "cv")
    assert "query_file=" not in line
    assert "train.txt.query' next to it" in line


def test_svmlight_non_finite_grade(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("1 qid:1 1:0.5\nnan qid:1 1:0.1\n")
    with pytest.raises(ValueError, match="the grade of row 2 is nan"):
        load_svmlight_ranking(path)


@pytest.mark.parametrize("command, option", [("evaluate", "--metrics"), ("cv", "--metrics"),
                                             ("tune", "--metric")])
def test_huge_cut_off_gives_a_value_or_one_line(capsys, command, option):
    # the chosen behaviour: a cut-off beyond every list is the whole list, a value
    argv = [command, option, "ndcg@99999999999999999999"]
    if command != "evaluate":
        argv += [*FAST, *(["--models", "pointwise", "lambdarank"] if command == "cv" else [])]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert "ndcg@99999999999999999999" in out
    if command == "evaluate":
        code, out, _ = run_cli(capsys, "evaluate", "--metrics", "ndcg@99999999999999999999",
                               "ndcg", "--format", "json")
        means = json.loads(out)["metrics"]
        assert means["ndcg@99999999999999999999"] == means["ndcg"]


@pytest.mark.parametrize("command, option", [("evaluate", "--metrics"), ("cv", "--metrics"),
                                             ("tune", "--metric")])
def test_an_option_beyond_the_floats_range_gives_one_line(capsys, command, option):
    # the OverflowError that the commands turn into a usage error: no longer a huge cut-off
    # (the registry clips k), but an integer option that no float can hold
    argv = [command, option, f"map(rel=1{'0' * 400})"]
    if command != "evaluate":
        argv += [*FAST, *(["--models", "pointwise", "lambdarank"] if command == "cv" else [])]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert "cannot compute the metric" in one_line_error(err, command)


def test_metric_options_in_exponent_notation_are_floats(capsys):
    # "1e20" was read as a 21-digit int, which numpy's log refuses, and "1e1" as the int 10
    code, out, err = run_cli(capsys, "evaluate", "--metrics", "ndcg", "ndcg(log_base=1e20)")
    assert code == 0, err
    row = out.splitlines()[-1].split()
    assert row[0] == "all" and row[1] == row[2]  # nDCG does not depend on the log's base
    code, _, err = run_cli(capsys, "evaluate", "--metrics", "ndcg(k=1e1)")
    assert code == 1
    assert "The 'k' parameter" in one_line_error(err, "evaluate")
    assert "must be an int in the range [1, inf) or None. Got 10.0 instead." in err


# ----------------------------------------------------------------------------------------
# tune: parameter values checked before any fit, without a booster's log line


BAD_PARAMS = [
    ("lambdarank", "num_leaves=abc", "LGBMRanker refuses num_leaves='abc'"),
    ("pointwise", "num_leaves=abc", "LGBMRegressor refuses num_leaves='abc'"),
    ("lambdarank", "learning_rate=-1", "refuses learning_rate=-1"),
    ("lambdarank", "num_leaf=3,7", "an alias of num_leaves, which the model sets already"),
    ("lambdarank", "no_such_param=1", "would ignore 'no_such_param' in LGBMRanker"),
    ("xgboost", "max_depth=abc", "XGBRanker refuses max_depth='abc'"),
    ("xgboost", "max_dept=3", "would ignore 'max_dept' in XGBRanker"),
]


@pytest.mark.parametrize("model, param, message", BAD_PARAMS)
def test_tune_bad_parameter_is_a_usage_error(capsys, model, param, message):
    if not _models.MODELS[model].available():
        pytest.skip(f"needs {model}")
    code, out, err = run_cli(capsys, "tune", *FAST, "--model", model, "--param", param)
    assert code == 2, err
    assert message in one_line_error(err, "tune")
    assert out == ""  # nothing printed, no search started


def test_tune_distribution_bounds_are_checked(capsys):
    code, _, err = run_cli(capsys, "tune", *FAST, "--search", "random",
                           "--param", "num_leaves=randint(1,9)")
    assert code == 2
    assert "refuses num_leaves=1" in one_line_error(err, "tune")


def test_tune_bad_parameter_in_a_subprocess_prints_no_booster_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_rank", "tune", *FAST, "--param", "num_leaves=abc"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "[LightGBM]" not in done.stderr


def test_cv_data_error_prints_no_booster_line(tmp_path):
    # LambdaRank refuses non-integer grades: LightGBM writes a [Fatal] line itself
    path = tmp_path / "train.txt"
    path.write_text("".join(f"{g} qid:{q} 1:{i}\n" for i, (q, g) in
                            enumerate([(1, 0.5), (1, 1), (2, 0), (2, 1), (3, 1), (3, 0)])))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_rank", "cv", "--data", str(path), "--n-splits", "3",
         "--n-estimators", "2", "--models", "pointwise", "lambdarank", "-q"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1
    assert "[LightGBM]" not in done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# ----------------------------------------------------------------------------------------
# load_svmlight_ranking_files: distinct query ids across files


def test_side_file_queries_are_numbered_across_files(tmp_path):
    train, test = side_file_pair(tmp_path)
    X1, y1, q1, X2, y2, q2 = load_svmlight_ranking_files([train, test])
    assert np.unique(q1).tolist() == list(range(12))
    assert np.unique(q2).tolist() == list(range(12, 21))
    assert X1.shape[1] == X2.shape[1]
    # one file alone still numbers from 0, as before
    assert np.unique(load_svmlight_ranking(test)[2]).tolist() == list(range(9))


def test_side_file_queries_come_after_qid_fields(tmp_path):
    first = tmp_path / "a.txt"
    first.write_text("1 qid:40 1:0.5\n0 qid:40 1:0.1\n")
    second = tmp_path / "b.txt"
    second.write_text("1 1:0.5\n0 1:0.1\n1 1:0.3\n")
    (tmp_path / "b.txt.query").write_text("2\n1\n")
    _, _, q1, _, _, q2 = load_svmlight_ranking_files([second, first])
    assert q1.tolist() == [41, 41, 42] and q2.tolist() == [40, 40]


def test_load_svmlight_ranking_files_errors(tmp_path):
    with pytest.raises(ValueError, match="paths is empty"):
        load_svmlight_ranking_files([])
    train, test = side_file_pair(tmp_path)
    with pytest.raises(ValueError, match="query_files has 1 entries for 2 files"):
        load_svmlight_ranking_files([train, test], query_files=[None])


@pytest.mark.parametrize("command", ["cv", "tune"])
def test_cv_and_tune_pool_side_file_data(capsys, tmp_path, command):
    train, test = side_file_pair(tmp_path)
    extra = ["--models", "pointwise", "lambdarank"] if command == "cv" else []
    code, out, err = run_cli(capsys, command, "--data", train, test, *FAST, *extra)
    assert code == 0, err
    assert f"{train} + {test}: 21 queries" in " ".join(out.split())


def test_cv_refuses_files_sharing_query_ids(capsys, tmp_path, letor):
    other = tmp_path / "other.txt"
    other.write_bytes(letor.read_bytes())
    code, _, err = run_cli(capsys, "cv", "--data", letor, other, *FAST)
    assert code == 1
    assert "pooling the files would merge different queries" in one_line_error(err, "cv")
    code, _, err = run_cli(capsys, "cv", "--data", letor, letor, *FAST)
    assert code == 2
    assert "names the file" in one_line_error(err, "cv")


# ----------------------------------------------------------------------------------------
# ERR's grade scale: the data set's, in every fold


def test_cv_err_uses_the_grade_scale_of_the_data(capsys, tmp_path, monkeypatch):
    # one query has grade 4, the others at most 1: scored alone, the folds without it
    # would divide by 1. A model that scores every document alike gives ERR values that
    # depend only on the grades and the scale: their mean must be the one of max_grade=4.
    from sklearn.dummy import DummyRegressor

    from sklearn_rank.metrics import evaluate

    constant = _models.Model("constant", "DummyRegressor", "the same score everywhere",
                             "sklearn", None, lambda n, seed: DummyRegressor(), (), ())
    monkeypatch.setitem(_models.MODELS, "constant", constant)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=(12, 6))
    y[5, 2] = 4
    qid = np.repeat(np.arange(12), 6)
    path = tmp_path / "letor.txt"
    path.write_text("".join(f"{g} qid:{q} 1:{rng.random():.3f}\n"
                            for g, q in zip(y.ravel(), qid)))
    output = tmp_path / "cv.csv"
    code, out, err = run_cli(capsys, "cv", "--data", path, "--n-splits", 3, "--n-estimators",
                             2, "-q", "--models", "constant", "pointwise",
                             "--metrics", "err@5", "--output", output)
    assert code == 0, err
    assert ("Grade scale: err@5 with max_grade=4, the largest grade of the data"
            in " ".join(out.split()))
    row = next(csv.DictReader(io.StringIO(output.read_text())))
    assert row["model"] == "constant"
    expected = evaluate(y.ravel(), np.zeros(y.size), qid=qid,
                        metrics=["err@5(max_grade=4)"])["err@5(max_grade=4)"]
    assert float(row["err@5 mean"]) == pytest.approx(expected, rel=1e-12)


def test_tune_err_states_the_grade_scale(capsys):
    code, out, err = run_cli(capsys, "tune", *FAST, "--metric", "err@10",
                             "--param", "num_leaves=3,7")
    assert code == 0, err
    X, y, qid = make_ranking(30, random_state=0)
    assert f"Grade scale: err@10 with max_grade={int(y.max())}" in " ".join(out.split())


def test_grade_scale_options():
    y = np.array([0, 1, 3])
    assert _common.grade_scale_options("err@10", None, y) == {"max_grade": 3}
    assert _common.grade_scale_options("err@10(max_grade=4)", None, y) == {}
    assert _common.grade_scale_options("rbp(graded=1)", None, y) == {"max_grade": 3}
    assert _common.grade_scale_options("rbp", None, y) == {}
    assert _common.grade_scale_options("ndcg@10", None, y) == {}
    assert _common.grade_scale_options("err", "catboost", y) == {}  # the preset sets it
    assert _common.grade_scale_options("err", None, np.array([0.0, 2.5])) == {"max_grade": 2.5}


def test_csv_output_of_evaluate_is_complete(capsys, tmp_path):
    table = tmp_path / "s.csv"
    table.write_text(TABLE)
    output = tmp_path / "out.csv"
    code, _, err = run_cli(capsys, "evaluate", "--table", table, "--output", output,
                           "--metrics", "mrr")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(output.read_text())))
    assert rows == [["qid", "mrr"], ["1", "1.0"], ["2", "0.5"]]
    assert sorted(os.listdir(tmp_path)) == ["out.csv", "s.csv"]


def test_closed_pipe_ends_quietly():
    # `sklearn-rank tune | head -1`: the reader goes away; no traceback, SIGPIPE's status.
    # The output (6,000 rows of 5 values, about 300 kB) must outgrow the pipe's buffer
    # (64 kB on Linux), so that the command is still writing when the reader goes: with a
    # smaller one, its whole output fits in the pipe before the reader closes it, and the
    # command rightly ends with 0.
    proc = subprocess.Popen(
        [sys.executable, "-m", "sklearn_rank", "evaluate", "--n-queries", "6000", "--metrics",
         "ndcg@10", "err@10", "map", "mrr", "p@10", "--per-query"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with proc:
        proc.stdout.readline()
        proc.stdout.close()  # before the command has written its thousands of lines
        stderr = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 141, stderr
    assert stderr == ""


# every output of cv and tune, through a symlink or a hard link to the --store file or its
# companions: refused before the work, the store left as it was
STORE_OUTPUTS = [("cv", "--output", "out.json"), ("cv", "--per-query-output", "pq.csv"),
                 ("cv", "--plot", "p.png"), ("tune", "--output", "out.json"),
                 ("tune", "--per-query-output", "pq.csv"), ("tune", "--plot", "p.png"),
                 ("tune", "--save-model", "m.pkl"), ("tune", "--save-model", "m.pkl.json")]


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
@pytest.mark.parametrize("command, option, name", STORE_OUTPUTS)
def test_outputs_never_replace_the_store(capsys, tmp_path, monkeypatch, command, option,
                                         name, link):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    argv = [command, *FAST, "--store", "s.sqlite"] + (
        ["--param", "num_leaves=3,7"] if command == "tune" else [])
    assert run_cli(capsys, *argv)[0] == 0
    before = Path("s.sqlite").read_bytes()
    (os.symlink if link == "symlink" else os.link)("s.sqlite", name)
    given = "m.pkl" if name == "m.pkl.json" else name  # the note of --save-model
    code, out, err = run_cli(capsys, *argv, "--resume", option, given)
    shown = "--save-model (its note)" if name == "m.pkl.json" else option
    assert code == 2, err
    assert (f"{shown} {name!r} is also the file of --store;"
            in one_line_error(err, command))
    assert out == ""
    assert Path("s.sqlite").read_bytes() == before


def test_outputs_never_replace_the_write_ahead_log_of_the_store(capsys, tmp_path,
                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.symlink("s.sqlite-wal", "out.json")
    code, _, err = run_cli(capsys, "cv", *FAST, "--store", "s.sqlite", "--output",
                           "out.json")
    assert code == 2
    assert ("--output 'out.json' is also the file of --store (its write-ahead log)"
            in one_line_error(err, "cv"))
    assert not Path("s.sqlite").exists()
    os.symlink("s.sqlite-shm", "r.html")
    Path("s.sqlite").write_bytes(b"")
    code, _, err = run_cli(capsys, "report", "s.sqlite", "-o", "r.html")
    assert code == 2
    assert ("--output 'r.html' is the input file of STORE (its shared memory)"
            in one_line_error(err, "report"))


PLANTED = '''
from pathlib import Path

Path(__file__).with_suffix(".ran").write_text("planted")
raise ImportError("a planted module ran")
'''


@pytest.mark.slow  # two subprocesses, each with worker processes
def test_modules_lying_in_the_working_folder_never_stand_in_for_libraries(tmp_path):
    """``--model MODULE:CLASS`` imports the user's module from the working folder, and
    nothing else from there: a planted ``lightgbm.py`` or ``matplotlib.py`` never runs. The
    command runs as its console script does (``-P``: Python puts no folder on the path)."""
    pytest.importorskip("matplotlib")
    for name in ("lightgbm", "matplotlib", "joblib"):
        (tmp_path / f"{name}.py").write_text(PLANTED)
    (tmp_path / "mymodels.py").write_text(
        "from sklearn.linear_model import Ridge\n\n\nclass MyRidge(Ridge):\n    pass\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for models in (["sklearn.linear_model:Ridge", "pointwise"],
                   ["mymodels:MyRidge", "pointwise"]):
        argv = ["cv", *FAST, "--model", models[0], "--model", models[1], "--plot", "p.png",
                "--n-jobs", "2"]
        got = subprocess.run([sys.executable, "-P", "-m", "sklearn_rank", *argv],
                             cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
        assert got.returncode == 0, got.stderr
        assert sorted(p.name for p in tmp_path.glob("*.ran")) == []
        assert (tmp_path / "p.png").stat().st_size > 0


def test_working_folder_is_on_the_path_only_for_the_users_module(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "mymodels_here", raising=False)
    (tmp_path / "mymodels_here.py").write_text(
        "import sys\nPATH = list(sys.path)\n\n\nclass Model:\n    pass\n")
    _models.import_object("sklearn.linear_model:Ridge", "--model")
    assert str(tmp_path) not in sys.path  # not the user's module: the path is left alone
    found = _models.import_object("mymodels_here:Model", "--model")
    assert found.__name__ == "Model" and found.__module__ == "mymodels_here"
    # the folder comes behind the libraries, for the module's neighbours
    assert sys.modules["mymodels_here"].PATH[-1] == str(tmp_path)
    assert sys.path[-1] == str(tmp_path) and sys.path.count(str(tmp_path)) == 1


# ----------------------------------------------------------------------------------------
# Hostile numbers and nesting, and nonsense that still gave a number: one line and exit
# code 2, before the work (a traceback, or an error blaming "cross-validation" after it)

DEEP = "[" * 3000 + "]" * 3000
DIGITS = "9" * 5000
TEN = ",".join(map(str, range(1, 11)))

HOSTILE = [
    (["cv", *FAST, "--seed", "4294967296"], ["argument --seed: must be at most 4294967295"]),
    (["cv", *FAST, "--seed", DIGITS], ["argument --seed: expected an integer", "characters"]),
    (["cv", *FAST, "--set", f"eval_at={DEEP}"], ["nested more than 32 deep"]),
    (["cv", *FAST, "--set", f"n_estimators={DIGITS}"], ["more digits than Python reads"]),
    (["cv", *FAST, "--set", "n_estimators=99999999999999999999"], ["beyond 64 bits"]),
    (["cv", *FAST, "--set", "n_estimators=0"],
     ["--set 'n_estimators=0': LGBMRegressor refuses n_estimators=0"]),
    (["cv", *FAST, "--models", "pointwise", "catboost", "--set", "n_estimators=0"],
     ["--set 'n_estimators=0': LGBMRegressor refuses n_estimators=0"]),
    (["cv", *FAST, "--set", "learning_rate=inf"], ["--set 'learning_rate=inf': expected a "
                                                   "finite number, got 'inf'"]),
    (["cv", *FAST, "--set", "learning_rate=1e999"], ["expected a finite number, got inf"]),
    (["cv", *FAST, "--set", "learning_rate=NaN"], ["expected a finite number, got 'NaN'"]),
    (["cv", *FAST, "--set", "eval_at=[1, 1e999]"], ["expected a finite number, got inf"]),
    (["tune", *FAST, "--param", "learning_rate=0.1,nan"], ["expected a finite number"]),
    (["tune", *FAST, "--param", f"num_leaves={DIGITS}"], ["more digits than Python reads"]),
    (["tune", *FAST, "--search", "random", "--param", "num_leaves=randint(2,10**20)"],
     ["expected integer bounds"]),
    (["tune", *FAST, "--search", "random", "--param",
      "num_leaves=randint(2,100000000000000000000)"], ["the bound", "is beyond 64 bits"]),
    (["tune", *FAST, "--search", "random", "--param", "learning_rate=uniform(0,1e999)"],
     ["expected finite bounds"]),
    (["tune", *FAST, "--search", "random", "--param",
      "learning_rate=uniform(-1e308,1e308)"], ["too far apart"]),
    (["tune", *FAST, "--search", "random", "--n-iter", "100000000000", "--param",
      "learning_rate=loguniform(0.01,0.3)"], ["argument --n-iter: must be at most 10000"]),
    (["tune", *FAST, *(a for name in ("num_leaves", "min_child_samples", "max_depth",
                                      "subsample", "reg_alpha") for a in ("--param",
                                                                         f"{name}={TEN}"))],
     ["the grid has 100,000 candidates (10 x 10 x 10 x 10 x 10 values)"]),
]


@pytest.mark.parametrize("argv, parts", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_numbers_are_one_line(capsys, argv, parts):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, err
    line = one_line_error(err, argv[0])
    assert all(part in line for part in parts), line
    assert len(line) < 600  # a 5,000-digit value is not quoted whole


HOSTILE_CONFIGS = [
    ("deep.json", '{"seed": ' + DEEP + "}", ["nested too deep to read"]),
    ("deep.toml", "seed = " + "[" * 5000 + "]" * 5000 + "\n", ["nested too deep to read"]),
    ("big.json", '{"seed": ' + DIGITS + "}", ["Python cannot read", "4300 digits"]),
    ("big.toml", "seed = " + DIGITS + "\n", ["Python cannot read", "4300 digits"]),
    ("seed.toml", "seed = 4294967296\n", ["seed: expected an integer from 0 to 4294967295"]),
    ("inf.toml", '[[models]]\nmodel = "pointwise"\nparams = { learning_rate = inf }\n'
     '[[models]]\nmodel = "lambdarank"\n',
     ["models[0]: params.learning_rate: expected a finite number, got inf"]),
    ("nan.json", '{"models": [{"model": "pointwise", "params": {"learning_rate": NaN}}, '
     '{"model": "lambdarank"}]}', ["params.learning_rate: expected a finite number"]),
    ("deep.json", '{"models": [{"model": "pointwise", "params": {"eval_at": '
     + "[" * 40 + "]" * 40 + '}}, {"model": "lambdarank"}]}', ["nested more than 32 deep"]),
]


@pytest.mark.parametrize("name, content, parts", HOSTILE_CONFIGS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(HOSTILE_CONFIGS)])
def test_hostile_configuration_files_are_one_line(capsys, tmp_path, name, content, parts):
    (tmp_path / name).write_text(content)
    code, out, err = run_cli(capsys, "cv", *FAST, "--config", tmp_path / name)
    assert code == 2, err
    line = one_line_error(err, "cv")
    assert all(part in line for part in parts), line


def test_hostile_grids_of_tune_configuration_files(capsys, tmp_path):
    for grid, parts in (("{ learning_rate = [0.1, inf] }", ["expected a finite number"]),
                        ('{ learning_rate = "uniform(0,1e999)" }', ["finite bounds"])):
        path = tmp_path / "tune.toml"
        path.write_text(f'search = "random"\n[[models]]\nmodel = "lightgbm"\ngrid = {grid}\n')
        code, out, err = run_cli(capsys, "tune", *FAST, "--config", path)
        assert code == 2, err
        line = one_line_error(err, "tune")
        assert all(part in line for part in parts), line
    path.write_text("search = \"random\"\nn_iter = 100000000000\n")
    code, out, err = run_cli(capsys, "tune", *FAST, "--config", path, "--param",
                             "learning_rate=loguniform(0.01,0.3)")
    assert code == 2
    assert "n_iter: expected an integer from 1 to 10000" in one_line_error(err, "tune")


def test_estimators_that_rank_by_no_relevance_are_noted(capsys, monkeypatch, tmp_path):
    # KMeans ranks by cluster labels, IsolationForest by inlier/outlier labels: a number,
    # but no ranking; regressors, classifiers and rankers are no such case
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "cv", *FAST, "--metrics", "map", "--model",
                             "sklearn.cluster:KMeans", "--model", "sklearn.linear_model:Ridge")
    assert code == 0, err
    (line,) = [line for line in err.splitlines() if "note:" in line]
    assert line.startswith("sklearn-rank cv: note: --model 'sklearn.cluster:KMeans': KMeans "
                           "is a clusterer, neither a regressor, a classifier nor a ranker")
    code, out, err = run_cli(capsys, "tune", *FAST, "--model",
                             "sklearn.ensemble:IsolationForest", "--param", "n_estimators=5,10")
    assert code == 0, err
    assert "IsolationForest is an outlier detector, neither a regressor" in err
    code, out, err = run_cli(capsys, "cv", *FAST, "--metrics", "map", "--model",
                             "sklearn.linear_model:Ridge", "--model",
                             "sklearn.tree:DecisionTreeRegressor", "--model", "pointwise")
    assert code == 0, err
    assert "note:" not in err
