"""``sklearn_rank.datasets.read_table``: CSV, TSV and Parquet tables of (query, document) rows.

The reader has two CSV paths: pyarrow's parser when pyarrow is installed, and the ``csv``
module otherwise (or when pyarrow refuses a file, to name the bad line). Both must give the
same arrays, and the same errors, on every file: the tests run each case both ways.
"""

import re
import sys

import numpy as np
import pytest
from _fifo import fifo_with

from sklearn_rank.datasets import _tables, read_table

# Files on which the two CSV paths could disagree: quoting, blank lines, line endings,
# spaces around the fields, a byte-order mark, long fields, special number spellings.
TRICKY = {
    "plain": "qid,label,score\n1,2,0.9\n1,0,0.5\n2,1,0.2\n",
    "blank lines": "qid,label,score\n\n1,2,0.9\n\n\n1,0,0.5\n2,1,0.2\n\n",
    "blank line first": "\nqid,label,score\n1,2,0.9\n2,1,0.2\n",
    "crlf": "qid,label,score\r\n1,2,0.9\r\n1,0,0.5\r\n",
    "cr only": "qid,label,score\r1,2,0.9\r1,0,0.5\r",
    "no final newline": "qid,label,score\n1,2,0.9\n1,0,0.5",
    "quoted": 'qid,label,score\n"q,1","2","0.9"\n"q,1",0,"0.5"\n',
    "quote inside": 'qid,text,label,score\n1,a"b,2,0.9\n1,"x""y",0,0.5\n',
    "newline in quotes": 'qid,text,label,score\n1,"two\nlines",2,0.9\n1,x,0,0.5\n',
    "spaces": "qid , label ,score\n 007 , 2 , 0.9\n7,0, -inf \n",
    "bom": "\ufeffqid,label,score\n1,2,0.9\n",
    "numbers": "qid,label,score\n1,1e0,1e3\n1,+2,.5\n1,0,infinity\n",
    "other columns": "doc,qid,x,label,score,y\nd1,1,,2,0.9,\nd2,1,z,0,0.5,w\n",
    "long field": "qid,text,label,score\n1," + "x" * 200_000 + ",1,0.9\n",
    "unicode ids": "qid,label,score\nrequête,1,0.9\nrequête,0,0.1\n名前,1,0.3\n",
    "empty trailing field": "qid,label,score,note\n1,2,0.9,\n1,0,0.5,\n",
}

# (file content, qid_type, expected message): the messages name the line of the first bad
# cell, and the parameter to change.
ERRORS = [
    ("qid,label,pred\n1,1,0.5\n", None,
     "has no column 'score' (its columns: 'qid', 'label', 'pred'); name the column with "
     "score_column."),
    ("qid,label,score,score\n1,1,0.5,0.1\n", None,
     "has 2 columns named 'score'; rename them so that score_column names one column."),
    ("qid,label,score\n1,1,0.5\n1,high,0.1\n", None,
     "line 3: column 'label' holds 'high'; expected a finite number."),
    ("qid,label,score\n1,1,0.5\n1,inf,0.1\n", None,
     "line 3: column 'label' holds 'inf'; expected a finite number."),
    ("qid,label,score\n1,1,0.5\n1,1,nan\n", None,
     "line 3: column 'score' holds 'nan'; expected a number."),
    ("qid,label,score\n1,1,0.5\n1,0\n", None, "line 3: 2 fields, but the header has 3."),
    ("qid,label,score\n1,1,0.5\n\n1,0,1,2\n", None, "line 3: 4 fields, but the header has 3."),
    ("qid,label,score\n1,1,0.5\n   \n", None, "line 3: 1 fields, but the header has 3."),
    ("qid,label,score\n1,1,0.5\n ,1,0.5\n", None,
     "line 3: column 'qid' is empty; every row needs a query id."),
    ("", None, "is empty; expected a header line naming the columns qid, label, score."),
    ("qid,label,score\nq1,1,0.9\n", "int",
     "line 2: the query id 'q1' is not an integer; qid_type='int' reads integers (use "
     "qid_type='str' to keep the ids as written)."),
    ("qid,label,score\n99999999999999999999,1,0.9\n", "int",
     "column 'qid' holds an integer beyond 64 bits; use qid_type='str'."),
    # what Python's float() and int() read, and no other reader: never a number
    ("qid,label,score\n1,1,0.5\n1,0,\uff15\n", None,
     "line 3: column 'score' holds '\uff15'; expected a number written with the ASCII digits "
     "0-9 and no '_'"),
    ("qid,label,score\n1,\u0661,0.5\n", None, "line 2: column 'label' holds '\u0661'; "
     "expected a number written with the ASCII digits"),
    ("qid,label,score\n1,1,0.5\n1,0,1_0\n", None, "line 3: column 'score' holds '1_0'"),
    # with qid_type='int', the query id '١' was the integer 1: two queries merged
    ("qid,label,score\n1,1,0.9\n\u0661,0,0.5\n", "int",
     "line 3: the query id '\u0661' is not an integer"),
]


@pytest.fixture(autouse=True)
def _pyarrow_reads_small_files(monkeypatch):
    """pyarrow reads only files of 1 MiB and more: here it reads the small files too, so
    that both parsers are compared on every case."""
    monkeypatch.setattr(_tables, "_ARROW_MIN_BYTES", 0)


# the fixture ``parser`` (conftest.py) runs each test with pyarrow and the csv module


def _write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def _read_with_csv_module(path, monkeypatch, **kwargs):
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "pyarrow", None)
        return read_table(path, **kwargs)


@pytest.mark.parametrize("name", list(TRICKY))
def test_both_parsers_read_the_same_arrays(tmp_path, monkeypatch, name):
    pytest.importorskip("pyarrow")
    path = _write(tmp_path, TRICKY[name])
    fast = read_table(path)
    reference = _read_with_csv_module(path, monkeypatch)
    assert fast.keys() == reference.keys() == {"qid", "y_true", "y_score"}
    for key in fast:
        assert fast[key].dtype == reference[key].dtype
        np.testing.assert_array_equal(fast[key], reference[key])


def test_values_as_written(tmp_path, parser):
    data = read_table(_write(tmp_path, TRICKY["spaces"]))
    assert data["qid"].tolist() == ["007", "7"]  # stripped, kept as written
    assert data["y_true"].tolist() == [2.0, 0.0]
    assert data["y_score"].tolist() == [0.9, -np.inf]  # a score may be infinite
    data = read_table(_write(tmp_path, TRICKY["numbers"]))
    assert data["y_true"].tolist() == [1.0, 2.0, 0.0]
    assert data["y_score"].tolist() == [1000.0, 0.5, np.inf]
    # an id of ASCII digits is not one of other digits: two queries, kept as written
    data = read_table(_write(tmp_path, "qid,label,score\n1,1,0.9\n\u0661,0,0.5\n"))
    assert data["qid"].tolist() == ["1", "\u0661"]
    data = read_table(_write(tmp_path, TRICKY["newline in quotes"]))
    assert data["y_true"].tolist() == [2.0, 0.0]


def test_qid_type(tmp_path, parser):
    path = _write(tmp_path, "qid,label,score\n007,1,0.9\n7,0,0.1\n+8,1,0.5\n")
    assert read_table(path)["qid"].tolist() == ["007", "7", "+8"]
    ids = read_table(path, qid_type="int")["qid"]
    assert ids.dtype == np.int64 and ids.tolist() == [7, 7, 8]
    with pytest.raises(ValueError, match="qid_type must be 'str', 'int' or None; got 'float'"):
        read_table(path, qid_type="float")


def test_other_column_names_and_no_scores(tmp_path, parser):
    path = _write(tmp_path, "query,grade,prediction\nq1,1,0.9\nq1,0,0.1\n")
    data = read_table(path, qid_column="query", label_column="grade", score_column=None)
    assert sorted(data) == ["qid", "y_true"]
    data = read_table(path, qid_column="query", label_column="grade",
                      score_column="prediction")
    assert data["y_score"].tolist() == [0.9, 0.1]


def test_tsv(tmp_path, parser):
    path = _write(tmp_path, "qid\tlabel\tscore\nq 1\t1\t0.9\nq 1\t0\t0.1\n", "t.tsv")
    data = read_table(path)
    assert data["qid"].tolist() == ["q 1", "q 1"]
    assert data["y_score"].tolist() == [0.9, 0.1]


@pytest.mark.parametrize("text, qid_type, message", ERRORS)
def test_errors_name_the_line_and_the_parameter(tmp_path, parser, text, qid_type, message):
    path = _write(tmp_path, text)
    with pytest.raises(ValueError) as caught:
        read_table(path, qid_type=qid_type)
    assert str(caught.value).startswith(repr(str(path)))
    assert message in str(caught.value)


@pytest.mark.parametrize("text, byte", [
    (b"qid,label,score\n1,1,\xff\n", 20),
    (b"qid,label,score,note\n1,1,0.5,caf\xe9\n", 32),  # in a column not read: refused too
])
def test_not_utf8(tmp_path, parser, text, byte):
    path = tmp_path / "t.csv"
    path.write_bytes(text)
    with pytest.raises(ValueError, match=rf"is not UTF-8 text \(byte {byte} cannot be decoded\)"):
        read_table(path)


@pytest.mark.parametrize("kwargs, message", [
    ({"qid_column": "label"}, "qid_column and label_column both name the column 'label'"),
    ({"score_column": "label"}, "label_column and score_column both name the column 'label'"),
    ({"qid_column": "score"}, "qid_column and score_column both name the column 'score'"),
])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_one_column_named_twice(tmp_path, kwargs, message, suffix):
    """One column read as two (query ids taken from the grades) is refused, never read:
    the CSV parser raised pyarrow's KeyError and Parquet gave grades as query ids."""
    path = _write(tmp_path, "qid,label,score\n1,2,0.5\n1,0,0.1\n2,1,0.3\n")
    if suffix == ".parquet":
        pd = pytest.importorskip("pandas")
        pytest.importorskip("pyarrow")
        pd.read_csv(path).to_parquet(path := tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=re.escape(message)):
        read_table(path, **kwargs)


def test_unknown_type_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"unknown table type '\.xlsx'; expected one of "
                                         r"\.csv, \.tsv, \.parquet, \.pq"):
        read_table(_write(tmp_path, "x", "t.xlsx"))
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "missing.csv")


def test_parquet(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": [3, 3, 1], "label": [1, 0, 2], "score": [0.5, 0.1, 0.7]}).to_parquet(
        path)
    data = read_table(path)
    assert data["qid"].dtype.kind == "i" and data["qid"].tolist() == [3, 3, 1]  # its own type
    assert data["y_true"].tolist() == [1.0, 0.0, 2.0]
    assert read_table(path, qid_type="str")["qid"].tolist() == ["3", "3", "1"]
    pd.DataFrame({"qid": ["a", None], "label": [1, 0], "score": [0.5, 0.1]}).to_parquet(path)
    with pytest.raises(ValueError, match="row 2: column 'qid' is empty"):
        read_table(path)


@pytest.mark.parametrize("writer", ["pandas", "polars"])
@pytest.mark.parametrize("reader", ["pandas", "polars"])
@pytest.mark.parametrize("qid_type", [None, "str"])
def test_parquet_timestamp_ids_with_nulls_are_refused(tmp_path, monkeypatch, writer, reader,
                                                      qid_type):
    # a timestamp column's nulls (NaT) were read as one query, where None and NaN are refused
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    import datetime

    day = datetime.datetime(2026, 1, 1)
    data = {"qid": [day, None, None, day], "label": [1, 0, 1, 0],
            "score": [0.5, 0.1, 0.2, 0.3]}
    path = tmp_path / "t.parquet"
    if writer == "pandas":
        pd.DataFrame(data).to_parquet(path)
    else:
        pl.DataFrame(data).write_parquet(path)
    if reader == "polars":
        monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ValueError, match=re.escape(
            "row 2: column 'qid' is empty; every row needs a query id.")):
        read_table(path, qid_type=qid_type)


# column -> (its row-2 cell missing: pandas' nullable dtype, the message naming row 2)
MISSING = {
    "qid": ("string", "row 2: column 'qid' is empty; every row needs a query id."),
    "label": ("Int64", "row 2: column 'label' holds "),
    "score": ("Float64", "row 2: column 'score' holds "),
}


@pytest.mark.parametrize("writer", ["pandas", "polars"])
@pytest.mark.parametrize("reader", ["pandas", "polars"])
@pytest.mark.parametrize("column", list(MISSING))
@pytest.mark.parametrize("qid_type", [None, "str"])
def test_parquet_missing_cells_name_their_row(tmp_path, monkeypatch, writer, reader, column,
                                              qid_type):
    # pandas' NA (of its nullable dtypes) was kept as the query id '<NA>'
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    data = {"qid": ["a", "b"], "label": [1, 0], "score": [0.5, 0.1]}
    data[column] = [data[column][0], None]
    path = tmp_path / "t.parquet"
    if writer == "pandas":
        dtype = MISSING[column][0]
        pd.DataFrame({name: pd.array(values, dtype=dtype if name == column else None)
                      for name, values in data.items()}).to_parquet(path)
    else:
        pl.DataFrame(data).write_parquet(path)
    if reader == "polars":
        monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ValueError, match=re.escape(MISSING[column][1])):
        read_table(path, qid_type=qid_type)


def test_matches_the_metrics_of_the_same_arrays(tmp_path, parser):
    from sklearn_rank.metrics import evaluate

    rng = np.random.default_rng(0)
    qid = rng.integers(0, 30, 400)
    y = rng.integers(0, 4, 400)
    score = rng.normal(size=400)
    lines = "".join(f"{q},{g},{s!r}\n" for q, g, s in zip(qid.tolist(), y.tolist(),
                                                            score.tolist()))
    data = read_table(_write(tmp_path, "qid,label,score\n" + lines), qid_type="int")
    np.testing.assert_array_equal(data["y_score"], score)  # every digit kept
    assert (evaluate(data["y_true"], data["y_score"], qid=data["qid"], metrics=["ndcg@10"])
            == evaluate(y, score, qid=qid, metrics=["ndcg@10"]))


# ----------------------------------------------------------------------------------------
# A stream (a pipe) and table_format


TEXT = "qid,doc,label,score,bm25\nq1,a,2,0.9,1.5\nq1,b,0,0.4,2\nq2,c,1,0.2,3\n"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes")
@pytest.mark.parametrize("text, table_format", [
    (TEXT, None), (TEXT, "csv"), (TEXT.replace(",", "\t"), None),
    (TEXT.replace(",", "\t"), "tsv"),
])
def test_read_table_reads_a_pipe_once(tmp_path, text, table_format):
    expected = read_table(_write(tmp_path, TEXT), feature_columns="all", docno_column="doc")
    got = read_table(fifo_with(tmp_path, "table", text.encode()), table_format=table_format,
                     feature_columns="all", docno_column="doc")
    assert got["feature_names"] == ["bm25"]
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        np.testing.assert_array_equal(got[key], value)


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes")
def test_a_pipe_of_unknown_type_is_refused_naming_table_format(tmp_path):
    path = fifo_with(tmp_path, "table", b"qid;label\n1;0\n")
    with pytest.raises(_tables.TableError, match="give its type as table_format") as info:
        read_table(path)
    assert (info.value.path, info.value.parameter) == (str(path), "table_format")


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes")
def test_errors_of_a_pipe_name_the_pipe(tmp_path):
    path = fifo_with(tmp_path, "table", b"qid,label,score\nq1,1,x\n")
    with pytest.raises(_tables.TableError) as info:
        read_table(path)
    assert str(info.value) == f"{str(path)!r}, line 2: column 'score' holds 'x'; expected a number."
    assert info.value.path == str(path) and info.value.location == "line 2"


def test_table_format_reads_a_file_whatever_its_suffix(tmp_path):
    path = _write(tmp_path, TEXT.replace(",", "\t"), name="scores.txt")
    with pytest.raises(_tables.TableError, match=r"unknown table type '\.txt'.*table_format"):
        read_table(path)
    np.testing.assert_array_equal(read_table(path, table_format="tsv")["y_score"],
                                  [0.9, 0.4, 0.2])
    assert _tables.table_columns(path, table_format="tsv") == ["qid", "doc", "label", "score",
                                                               "bm25"]
    with pytest.raises(ValueError, match="table_format must be"):
        read_table(path, table_format="txt")
