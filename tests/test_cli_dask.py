"""``sklearn-rank evaluate --table DIR``: a directory of Parquet files, evaluated with Dask.

The numbers printed against ``evaluate`` on the same rows in memory, and against the
in-memory path of the command (one Parquet file of the same rows); on Dask's threaded
scheduler, on a LocalCluster that the command starts (``--scheduler local``) and on a
running one (``--scheduler ADDRESS``); with ``--partitioned-by-query``; and every user
error as one line on stderr with its exit code.
"""

import csv
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from _cli import run_cli

from sklearn_rank.metrics import evaluate, evaluate_per_query

pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

METRICS = ["ndcg@10", "err@10", "map", "p@5"]


def make_rows(seed=0, n=900, n_queries=40):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "qid": rng.integers(1, n_queries + 1, n),
        "doc": np.arange(n),
        "label": rng.choice([0, 0, 1, 2, 3], n),
        "score": rng.integers(0, 8, n).astype(np.float64),  # ties
    })


def cut(rows, n):
    """``rows`` in ``n`` consecutive chunks."""
    return [rows.iloc[part] for part in np.array_split(np.arange(len(rows)), n)]


def write_directory(folder, chunks):
    """One Parquet file per chunk, read back in this order (the names sort so)."""
    folder.mkdir()
    for i, chunk in enumerate(chunks):
        chunk.to_parquet(folder / f"part-{i:03d}.parquet", index=False)
    return folder


@pytest.fixture
def scattered(tmp_path):
    """A directory whose files each hold rows of most queries, and the rows in memory."""
    rows = make_rows()
    return write_directory(tmp_path / "scores", cut(rows, 3)), rows


def means_of_json(out):
    result = json.loads(out)
    return result, result["metrics"]


def assert_close(got, expected):
    assert list(got) == list(expected)
    np.testing.assert_allclose([got[m] for m in got], [expected[m] for m in expected],
                               rtol=1e-12, atol=1e-12)


# scores tie in the generated rows, which the trec_eval preset ranks in row order without
# document names, warning: both paths see the same row order
@pytest.mark.filterwarnings("ignore::sklearn_rank.metrics.TiedScoresWarning")
def test_directory_on_the_threaded_scheduler(capsys, scattered):
    folder, rows = scattered
    code, out, err = run_cli(capsys, "evaluate", "--table", folder, "--metrics", *METRICS,
                             "--convention", "trec_eval", "--format", "json")
    assert code == 0, err
    result, means = means_of_json(out)
    assert_close(means, evaluate(rows["label"], rows["score"], qid=rows["qid"],
                                 metrics=METRICS, convention="trec_eval"))
    assert result["n_queries"] == rows["qid"].nunique()
    assert f"{len(rows):,} rows in 3 Parquet files" in result["input"]
    assert "threaded scheduler" in result["input"]


def test_directory_as_the_same_rows_in_one_file(capsys, scattered, tmp_path):
    """The per-query table and the means of the Dask path are those of the in-memory path
    of the command on one file of the same rows."""
    folder, rows = scattered
    single = tmp_path / "all.parquet"
    rows.to_parquet(single, index=False)
    outputs = {}
    for name, table in (("dask", folder), ("memory", single)):
        target = tmp_path / f"{name}.csv"
        code, out, err = run_cli(capsys, "evaluate", "--table", table, "--metrics", *METRICS,
                                 "--per-query", "--format", "csv", "--output", target)
        assert code == 0, err
        with open(target, newline="") as f:
            outputs[name] = (list(csv.reader(out.splitlines())), list(csv.reader(f)))
    for dask_table, memory_table in zip(outputs["dask"], outputs["memory"], strict=True):
        assert [row[0] for row in dask_table] == [row[0] for row in memory_table]  # qid order
        np.testing.assert_allclose(np.array([row[1:] for row in dask_table[1:]], dtype=float),
                                   np.array([row[1:] for row in memory_table[1:]], dtype=float),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # starts a LocalCluster of worker processes
def test_scheduler_local(capsys, scattered):
    folder, rows = scattered
    code, out, err = run_cli(capsys, "evaluate", "--table", folder, "--metrics", *METRICS,
                             "--scheduler", "local", "--workers", "2", "--format", "json")
    assert code == 0, err
    result, means = means_of_json(out)
    assert "a local cluster of 2 worker processes" in result["input"]
    assert_close(means, evaluate(rows["label"], rows["score"], qid=rows["qid"],
                                 metrics=METRICS))


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        yield cluster


@pytest.mark.filterwarnings("ignore::sklearn_rank.metrics.TiedScoresWarning")
def test_scheduler_address_and_partitioned_by_query(capsys, tmp_path, cluster):
    rows = make_rows(seed=1)
    # one file per range of queries: the claim holds
    bounds = [1, 9, 22, 30, 41]
    chunks = [rows[(rows["qid"] >= lo) & (rows["qid"] < hi)] for lo, hi in zip(bounds, bounds[1:])]
    folder = write_directory(tmp_path / "by_query", chunks)
    same = pd.concat(chunks)  # the rows in the order of the files
    address = cluster.scheduler_address
    code, out, err = run_cli(capsys, "evaluate", "--table", folder, "--metrics", *METRICS,
                             "--convention", "trec_eval", "--scheduler", address,
                             "--partitioned-by-query", "--per-query", "--format", "json")
    assert code == 0, err
    result, means = means_of_json(out)
    assert f"the scheduler at {address}" in result["input"]
    assert_close(means, evaluate(same["label"], same["score"], qid=same["qid"],
                                 metrics=METRICS, convention="trec_eval"))
    expected = evaluate_per_query(same["label"], same["score"], qid=same["qid"],
                                  metrics=METRICS, convention="trec_eval")
    assert [q["qid"] for q in result["per_query"]] == expected.query_ids.tolist()
    np.testing.assert_allclose([q["map"] for q in result["per_query"]], expected["map"],
                               rtol=1e-12)


def test_partitioned_by_query_refused(capsys, tmp_path):
    rows = make_rows(seed=2).sort_values("qid", kind="stable")
    chunks = cut(rows, 3)  # cut by rows: a query straddles the cut
    split = sorted(set(chunks[0]["qid"]) & set(chunks[1]["qid"]))
    assert split
    folder = write_directory(tmp_path / "cut", chunks)
    code, _, err = run_cli(capsys, "evaluate", "--table", folder, "--partitioned-by-query")
    assert code == 1
    assert f"query {split[0]} has rows in 2 files (the files 0 and 1, counted" in err
    assert len(err.strip().splitlines()) == 1


def test_qid_type(capsys, scattered):
    folder, rows = scattered
    code, out, err = run_cli(capsys, "evaluate", "--table", folder, "--metrics", "map",
                             "--qid-type", "str", "--per-query", "--format", "json")
    assert code == 0, err
    result, means = means_of_json(out)
    assert all(isinstance(q["qid"], str) for q in result["per_query"])
    # numeric ids are listed as numbers, as the in-memory path lists them
    assert [int(q["qid"]) for q in result["per_query"]] == sorted(rows["qid"].unique())


def _write_rows(folder, rows):
    folder.mkdir()
    rows.to_parquet(folder / "part.parquet", index=False)
    return folder


ERRORS = [
    # (arguments after "evaluate", what the directory holds, exit code, message parts)
    (["--qid-column", "query"], "rows", 1,
     ["has no column 'query' (its columns: 'qid', 'doc', 'label', 'score')",
      "--qid-column"]),
    (["--score-column", "prediction"], "rows", 1, ["no column 'prediction'", "--score-column"]),
    (["--qid-column", "label"], "rows", 1,
     ["--qid-column and --label-column both name the column 'label'"]),
    ([], "nulls", 1, ["--table", "partition 0, row 8: column 'qid' is empty; every row needs "
                      "a query id"]),
    (["--qid-type", "int"], "decimals", 1,
     ["partition 0, row 3: the query id", "is not an integer; --qid-type int reads integers"]),
    ([], "text grades", 1, ["row 2: column 'label' holds 'high'; expected a finite number"]),
    ([], "empty", 1, ["is a directory without Parquet files (.parquet, .parq, .pq)"]),
    (["--workers", "2"], "rows", 2, ["--workers sets the worker processes of --scheduler local"]),
    (["--scheduler", "tcp://10.0.0.1:8786", "--workers", "2"], "rows", 2,
     ["--workers sets the worker processes of --scheduler local"]),
    (["--scheduler", "locl"], "rows", 1,
     ["--scheduler 'locl': cannot connect to a Dask scheduler there", "'local'"]),
]


@pytest.mark.parametrize("argv, holds, code, parts", ERRORS, ids=[" ".join(e[0]) or e[1]
                                                                    for e in ERRORS])
def test_errors(capsys, tmp_path, argv, holds, code, parts):
    folder = tmp_path / "data"
    rows = make_rows(n=100)
    if holds == "rows":
        _write_rows(folder, rows)
    elif holds == "nulls":
        _write_rows(folder, rows.assign(qid=rows["qid"].astype(float).where(rows.index != 7)))
    elif holds == "decimals":
        _write_rows(folder, rows.assign(qid=rows["qid"] + np.where(rows.index == 2, 0.5, 0.0)))
    elif holds == "text grades":
        _write_rows(folder, rows.assign(label=rows["label"].astype(str).where(rows.index != 1,
                                                                               "high")))
    else:
        folder.mkdir()
        (folder / "notes.txt").write_text("no table here")
    got, out, err = run_cli(capsys, "evaluate", "--table", folder, *argv)
    assert got == code, err
    assert out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for part in parts:
        assert part in err


def test_a_failed_connection_leaves_nothing_behind(capsys, scattered):
    """After an address that no scheduler can have, Dask computes here as before."""
    folder, rows = scattered
    code, _, err = run_cli(capsys, "evaluate", "--table", folder, "--scheduler", "tcp://host")
    assert code == 1 and "missing port number" in err
    code, out, err = run_cli(capsys, "evaluate", "--table", folder, "--metrics", "map",
                             "--format", "json")
    assert code == 0, err
    assert "threaded scheduler" in json.loads(out)["input"]


def test_dask_options_need_a_directory(capsys, tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("qid,label,score\n1,1,0.5\n1,0,0.2\n")
    code, _, err = run_cli(capsys, "evaluate", "--table", table, "--scheduler", "local")
    assert code == 2
    assert "--scheduler applies to a directory of Parquet files" in err
    assert "is a file" in err


def test_help_does_not_import_dask():
    code = (
        "import sys\n"
        "from sklearn_rank._cli import main\n"
        "assert main(['evaluate', '--help']) == 0\n"
        "assert not [m for m in sys.modules if m == 'dask' or m.startswith('dask.')]\n"
        "assert not [m for m in sys.modules if m == 'distributed']\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert "--scheduler local|ADDRESS" in out and "--table DIR" in out


def test_per_query_means_under_trec_eval_are_the_summary_s_to_the_last_digit(capsys,
                                                                             tmp_path):
    """Under the trec_eval convention the means add the queries one at a time in query
    order, as trec_eval does: the means printed with --per-query (aggregated from the
    collected per-query values) equal, to the last digit, those without it and those of
    the same rows in one file. The per-query path used to drop the convention from the
    values' options and sum them otherwise: map differed in its last digit."""
    rng = np.random.default_rng(0)
    n = 20_000
    rows = pd.DataFrame({"qid": rng.integers(0, 3000, n), "label": rng.integers(0, 3, n),
                         "score": rng.random(n), "docno": [f"d{i}" for i in range(n)]})
    folder = write_directory(tmp_path / "scores", cut(rows, 4))
    single = tmp_path / "all.parquet"
    rows.to_parquet(single, index=False)
    found = []
    for table, more in ((folder, ["--per-query"]), (folder, []), (single, ["--per-query"])):
        code, out, err = run_cli(capsys, "evaluate", "--table", table, "--metrics", "map",
                                 "ndcg@10", "--convention", "trec_eval", "--docno-column",
                                 "docno", "--format", "json", *more)
        assert code == 0, err
        found.append(json.loads(out)["metrics"])
    assert found[0] == found[1] == found[2]
