"""``sklearn_rank.datasets.load_source``: data by name, path or table, as a RankingDataset.

What the command line's ``--data`` and ``--test`` read, as a library function: its errors say
which path and which parameter failed in attributes, and the command line maps those to its
own options (``data_error``), never by reading the message.
"""

import pickle

import numpy as np
import pytest
from _cli import one_line_error, run_cli
from sklearn.datasets import dump_svmlight_file
from test_fetch import mslr, server  # noqa: F401 (the loopback mirror's fixtures)

from sklearn_rank.datasets import (
    DatasetName,
    DataSourceError,
    FetchError,
    NoQueryIdsError,
    RankingDataset,
    TableError,
    fetch_mslr_web10k,
    load_source,
    load_svmlight_ranking,
    make_ranking,
    parse_dataset_name,
    read_table,
    same_queries,
    source_files,
)

TABLE = ("qid,doc,label,bm25,length\n"
         "1,a,2,11.5,300\n1,b,0,3.0,120\n2,c,1,7.25,80\n2,d,0,1.0,95\n3,e,0,0.5,10\n")


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "train.csv"
    path.write_text(TABLE)
    return path


@pytest.fixture
def letor(tmp_path):
    """Two SVMlight files of LightGBM's layout: the query sizes in side files."""
    paths = []
    for name, seed in (("a.txt", 0), ("b.txt", 1)):
        X, y, qid = make_ranking(4, n_features=3, n_informative=2, random_state=seed,
                                 shuffle=False)
        path = tmp_path / name
        dump_svmlight_file(X, y.astype(int), str(path))
        (tmp_path / f"{name}.query").write_text(
            "".join(f"{n}\n" for n in np.unique(qid, return_counts=True)[1]))
        paths.append(path)
    return paths


# -- Sources ------------------------------------------------------------------------------

def test_table_source(table):
    data = load_source(table, ignore_columns=["doc"])
    assert isinstance(data, RankingDataset)
    assert (data.kind, data.source, data.feature_names) == ("table", str(table),
                                                             ["bm25", "length"])
    np.testing.assert_array_equal(data.X, [[11.5, 300], [3, 120], [7.25, 80], [1, 95],
                                           [0.5, 10]])
    np.testing.assert_array_equal(data.y, [2, 0, 1, 0, 0])
    np.testing.assert_array_equal(data.qid, ["1", "1", "2", "2", "3"])
    assert data.inputs == [table] and data.n_queries == 3
    # chosen features, and integer query ids
    data = load_source(table, feature_columns=["length"], qid_type="int")
    np.testing.assert_array_equal(data.X, [[300], [120], [80], [95], [10]])
    np.testing.assert_array_equal(data.qid, [1, 1, 2, 2, 3])


def test_table_source_is_read_table(table):
    """load_source and read_table(feature_columns=...) read the same arrays."""
    data = load_source(table, ignore_columns=["doc"])
    read = read_table(table, score_column=None, feature_columns="all", ignore_columns=["doc"])
    assert read["feature_names"] == data.feature_names
    for key, value in (("X", data.X), ("y_true", data.y), ("qid", data.qid)):
        np.testing.assert_array_equal(read[key], value)
        assert read[key].dtype == value.dtype


def test_svmlight_sources_are_pooled(letor):
    data = load_source(letor)
    parts = [load_svmlight_ranking(p) for p in letor]
    assert data.source == " + ".join(map(str, letor))
    np.testing.assert_array_equal(data.X.toarray(),
                                  np.vstack([X.toarray() for X, _, _ in parts]))
    assert data.n_queries == 8  # the side files' queries kept apart across the files
    side = [p.with_name(p.name + ".query") for p in letor]
    assert data.inputs == [letor[0], side[0], letor[1], side[1]]
    assert source_files(letor) == [(letor[0], "data"), (side[0], "query sizes"),
                                   (letor[1], "data"), (side[1], "query sizes")]
    assert source_files(letor[0]) == [(letor[0], "data"), (side[0], "query sizes")]


def test_test_set_takes_the_training_width(tmp_path):
    """SVMlight features are numbered: a narrower file gets the wider one's width."""
    wide, narrow = tmp_path / "wide.txt", tmp_path / "narrow.txt"
    wide.write_text("1 qid:1 1:1 5:2\n0 qid:1 2:1\n1 qid:2 1:3\n0 qid:2 3:1\n")
    narrow.write_text("1 qid:7 1:1\n0 qid:7 2:1\n1 qid:8 1:2\n0 qid:8 1:1\n")
    train = load_source(narrow)
    test = load_source(wide, like=train)
    assert train.X.shape[1] == test.X.shape[1] == 5


def test_data_set_by_name(tmp_path, server, mslr, monkeypatch):  # noqa: F811
    """A name is its fetcher's data, read from a mirror (a loopback server) once, then from
    the data home; with download_if_missing=False and nothing there, a FetchError."""
    monkeypatch.setenv("SKLEARN_RANK_MIRROR", server.url)
    data = load_source("mslr-web10k:2:test", data_home=tmp_path)
    assert data.source == "mslr-web10k:2:test (MSLR-WEB10K fold 2, test)"
    assert [entry[:3] for entry in server.log] == [("MSLR-WEB10K.zip", None, 200)]
    X, y, qid = fetch_mslr_web10k(fold=2, subset="test", data_home=tmp_path,
                                  download_if_missing=False, return_X_y_qid=True)
    np.testing.assert_array_equal(data.X.toarray(), X.toarray())
    np.testing.assert_array_equal(data.qid, qid)
    assert data.inputs == [] and source_files("mslr-web10k:2:test") == []

    with pytest.raises(FetchError) as info:
        load_source("istella-s:test", data_home=tmp_path / "empty", download_if_missing=False)
    error = info.value
    assert isinstance(error, OSError) and isinstance(error, ValueError)
    assert error.parameter == "download_if_missing"
    assert error.path == str(tmp_path / "empty" / "istella_s")
    assert "and download_if_missing=False: call again with download_if_missing=True" in str(
        error)
    assert "and --no-download: call again without --no-download" in error.describe(
        {"download_if_missing=False": "--no-download",
         "with download_if_missing=True": "without --no-download"})


def test_parse_dataset_name(tmp_path):
    assert parse_dataset_name("MSLR-WEB10K") == DatasetName("mslr-web10k", 1, "train")
    assert parse_dataset_name("istella-s:vali") == ("istella-s", None, "vali")
    assert parse_dataset_name("letor4-mq2008:3:all").title == "LETOR 4.0 MQ2008 fold 3, all"
    assert parse_dataset_name(tmp_path / "train.txt") is None
    existing = tmp_path / "mslr-web10k:1"  # a file of that name is a file
    existing.write_text("")
    assert parse_dataset_name(existing) is None


@pytest.mark.parametrize("source, other, expected", [
    ("mslr-web10k:1:test", "mslr-web10k:1:test", True),
    ("mslr-web10k:1:test", "MSLR-WEB10K:1:all", True),  # "all" holds every subset
    ("mslr-web10k:1:all", "mslr-web10k:1", True),  # the default subset is train
    ("mslr-web10k:1:test", "mslr-web10k:1:train", False),
    ("mslr-web10k:1:test", "mslr-web10k:2:test", False),
    ("mslr-web10k:1:test", "mslr-web30k:1:test", False),
    ("istella-s:test", "istella-s:all", True),  # no folds
    ("istella-s:test", "TRAIN", False),  # a name and a file
])
def test_same_queries(tmp_path, source, other, expected):
    """A held-out test set must share no query with the training data: one data set's split
    (or its "all") under one fold, or one file however it is named."""
    other = tmp_path / "train.txt" if other == "TRAIN" else other
    assert same_queries(source, other) is expected
    assert same_queries(other, source) is expected


def test_same_queries_of_files(tmp_path, monkeypatch):
    path = tmp_path / "train.txt"
    path.write_text("0 qid:1 1:0\n")
    (tmp_path / "link.txt").symlink_to(path)
    monkeypatch.chdir(tmp_path)
    assert same_queries("train.txt", tmp_path / "link.txt")
    assert same_queries(tmp_path / "sub" / ".." / "train.txt", "train.txt")
    assert not same_queries(path, tmp_path / "other.txt")


def test_same_queries_names_the_bad_source():
    with pytest.raises(DataSourceError, match="folds 1 to 5, not 7") as caught:
        same_queries("mslr-web10k:1:test", "mslr-web10k:7")
    assert (caught.value.path, caught.value.cause) == ("mslr-web10k:7", "parameter")


# -- Errors: attributes ---------------------------------------------------------------------

ERRORS = [
    # (source, keywords, error class, parameter, cause, column, message)
    ("mslr-web10k:6", {}, DataSourceError, "source", "parameter", None,
     "source 'mslr-web10k:6': mslr-web10k has folds 1 to 5, not 6; expected "
     "mslr-web10k[:FOLD][:SUBSET]"),
    # a digit that is not ASCII is no fold: str.isdigit() is True of it, int() refuses it
    ("mslr-web10k:\u00b2", {}, DataSourceError, "source", "parameter", None,
     "source 'mslr-web10k:\u00b2': expected mslr-web10k[:FOLD][:SUBSET]"),
    ("istella-s:1", {}, DataSourceError, "source", "parameter", None,
     "source 'istella-s:1': expected istella-s[:SUBSET], SUBSET one of train, vali, test"),
    ("mslr-web1Ok:1", {}, DataSourceError, "source", "parameter", None,
     "source 'mslr-web1Ok:1': no such file, and 'mslr-web1ok' is no data set. Did you mean "
     "'mslr-web10k'?"),
    ("missing.txt", {}, DataSourceError, "source", "data", None,
     "source 'missing.txt': no such file."),
    ("TABLE", {"label_column": "grade"}, DataSourceError, "label_column", "data", "grade",
     "has no column 'grade' (its columns: 'qid', 'doc', 'label', 'bm25', 'length'); name "
     "the column with label_column."),
    ("TABLE", {"ignore_columns": ["docs"]}, DataSourceError, "ignore_columns", "parameter",
     "docs", "ignore_columns 'docs': "),
    ("TABLE", {"feature_columns": ["bm25", "qid"]}, DataSourceError, "feature_columns",
     "parameter", "qid", "feature_columns names 'qid', the query ids."),
    ("TABLE", {"feature_columns": ["bm25", "tf"]}, DataSourceError, "feature_columns",
     "data", "tf", "has no column 'tf', one of feature_columns (its columns: "),
    ("TABLE", {}, TableError, "feature_columns", "data", "doc",
     "line 2: column 'doc' holds 'a'; expected a number."),
    ("TABLE", {"ignore_columns": ["doc"], "qid_type": "int", "min_queries": 4},
     DataSourceError, "min_queries", "data", None, "holds 3 queries; expected at least 4."),
]


@pytest.mark.parametrize("source, keywords, kind, parameter, cause, column, message", ERRORS)
def test_errors_say_which_parameter(tmp_path, table, monkeypatch, source, keywords, kind,
                                    parameter, cause, column, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(kind) as info:
        load_source(table if source == "TABLE" else source, **keywords)
    error = info.value
    assert type(error) is kind and isinstance(error, ValueError)
    assert (error.parameter, error.cause, error.column) == (parameter, cause, column)
    assert message in str(error)
    if source == "TABLE":
        assert error.path == str(table)


def test_test_set_of_another_kind(table, letor):
    with pytest.raises(DataSourceError) as info:
        load_source(letor[0], like=load_source(table, ignore_columns=["doc"]))
    assert (info.value.parameter, info.value.cause, info.value.path) == (
        "like", "parameter", str(letor[0]))
    # a table after SVMlight training data: refused before reading it (it used to read the
    # training data's feature names, which SVMlight data has none of: a TypeError)
    with pytest.raises(DataSourceError) as info:
        load_source(table, like=load_source(letor[0]))
    assert (info.value.parameter, info.value.path) == ("like", str(table))
    assert "is a table (features by column name), but the training data" in str(info.value)


def test_cli_table_test_set_after_svmlight_data(capsys, tmp_path, letor):
    test = tmp_path / "test.csv"
    test.write_text("qid,label,f1\n1,1,0.5\n1,0,0.2\n2,1,0.3\n2,0,0.1\n")
    code, _, err = run_cli(capsys, "cv", "--data", letor[0], "--test", test, "--n-splits", 2,
                           "-q")
    assert code == 2
    assert (f"--test {test} is a table (features by column name), but the training data "
            f"{letor[0]} is SVMlight data (features by number).") in one_line_error(err, "cv")


def test_no_query_ids(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text("1 1:0.5\n0 1:0.2\n")
    with pytest.raises(NoQueryIdsError) as info:
        load_source(path)
    assert info.value.path == path


def test_errors_are_worded_with_a_callers_names(table):
    with pytest.raises(DataSourceError) as info:
        load_source(table, qid_column="query")
    assert info.value.describe({"source": "--data", "qid_column": "--qid-column"}) == (
        f"--data {str(table)!r} has no column 'query' (its columns: 'qid', 'doc', 'label', "
        "'bm25', 'length'); name the column with --qid-column.")


def test_errors_travel_between_processes(tmp_path):
    """Pickled (as a Dask worker's error travels to its client), an error keeps its
    attributes and message, braces in paths and cells included."""
    path = tmp_path / "{odd}.csv"
    path.write_text("qid,label,score\n1,{x},0.5\n")
    with pytest.raises(TableError) as info:
        read_table(path)
    error = pickle.loads(pickle.dumps(info.value))
    assert type(error) is TableError
    assert str(error) == str(info.value) == (
        f"{str(path)!r}, line 2: column 'label' holds '{{x}}'; expected a finite number.")
    assert (error.path, error.parameter, error.column, error.location) == (
        str(path), "label_column", "label", "line 2")
    fetch = FetchError("{title} is not in {path!r} and {name[download_if_missing=False]}.",
                       path="/home", title="MSLR")
    copy = pickle.loads(pickle.dumps(fetch))
    assert isinstance(copy, OSError) and str(copy) == str(fetch)


# -- read_table's feature columns -------------------------------------------------------------

def test_read_table_features(table):
    data = read_table(table, score_column=None, feature_columns=["length", "bm25"],
                      docno_column="doc")
    assert data["feature_names"] == ["length", "bm25"]
    np.testing.assert_array_equal(data["X"][:, 0], [300, 120, 80, 95, 10])
    np.testing.assert_array_equal(data["docno"], list("abcde"))
    assert data["X"].dtype == np.float64 and "y_score" not in data
    # "all": every column but the ids, grades, scores and document names
    data = read_table(table, score_column="bm25", feature_columns="all", docno_column="doc")
    assert data["feature_names"] == ["length"]


@pytest.mark.parametrize("keywords, parameter, message", [
    ({"feature_columns": ["bm25", "tf"]}, "feature_columns",
     "has no column 'tf' (its columns: 'qid', 'doc', 'label', 'bm25', 'length'); name the "
     "column with feature_columns."),
    ({"feature_columns": ["bm25", "bm25"]}, "feature_columns",
     "feature_columns names the column 'bm25' twice"),
    ({"feature_columns": ["label"]}, "feature_columns",
     "label_column and feature_columns both name the column 'label'"),
    ({"feature_columns": "all"}, "feature_columns", "line 2: column 'doc' holds 'a'"),
    ({"feature_columns": "all", "ignore_columns": ["x"]}, "ignore_columns",
     "ignore_columns 'x': "),
])
def test_read_table_feature_errors(table, keywords, parameter, message):
    with pytest.raises(TableError) as info:
        read_table(table, score_column=None, **keywords)
    assert info.value.parameter == parameter
    assert message in str(info.value)


def test_read_table_refuses_a_feature_name_string(table):
    with pytest.raises(ValueError, match="feature_columns must be a list of column names"):
        read_table(table, feature_columns="bm25")


# -- RankingDataset ------------------------------------------------------------------------

def test_ranking_dataset(letor):
    data = load_source(letor[0])
    dense = data.densified()
    assert dense is data.densified() and not dense.sparse and data.sparse
    assert dense.fingerprint() == data.fingerprint()
    assert data.metadata() == {"source": str(letor[0]), "n_queries": 4,
                               "n_documents": len(data.y), "n_features": 3,
                               "sha256": data.fingerprint()}
    generated = RankingDataset.from_make_ranking(5, random_state=3, realistic=True)
    assert generated.source == "make_ranking(n_queries=5, random_state=3, realistic=True)"
    assert generated.kind == "generated" and generated.n_queries == 5


# -- The command line maps the attributes to its options ---------------------------------------

@pytest.mark.parametrize("cell, shown", [
    ("abc", "'abc'"),
    # the cell quotes "column 'f1' holds": reading the message for it named 'f1'
    ("x column 'f1' holds", "\"x column 'f1' holds\""),
])
def test_cli_names_the_bad_feature_column_from_the_error(capsys, tmp_path, cell, shown):
    """The bad cell of the second feature column is named as its own, in the message and
    in the hint (the error's ``column``): before, every feature column's bad cell was
    reported as the first feature column's, and the hint read the column from the
    message."""
    path = tmp_path / "train.csv"
    path.write_text(f"qid,label,f1,f2\n1,1,0.5,{cell}\n1,0,0.2,0.1\n"
                    "2,1,0.1,0.3\n2,0,0.4,0.2\n")
    code, _, err = run_cli(capsys, "cv", "--data", path, "--n-splits", 2, "-q")
    assert code == 1
    line = one_line_error(err, "cv")
    assert (f"line 2: column 'f2' holds {shown}; expected a number. If 'f2' is not a "
            "feature, leave it out with --ignore-columns f2.") in line


@pytest.mark.parametrize("argv, expected", [
    (["--qid-column", "query"], "name the column with --qid-column."),
    (["--label-column", "grade"], "name the column with --label-column."),
    (["--feature-columns", "f1", "f1"],
     "--data: {path!r}: --feature-columns names the column 'f1' twice"),
    (["--feature-columns", "f1", "f9"], "has no column 'f9', one of --feature-columns"),
    (["--qid-type", "int"], "the query id 'q1' is not an integer; --qid-type int reads "
     "integers (use --qid-type str to keep the ids as written)."),
])
def test_cli_maps_parameters_to_options(capsys, tmp_path, argv, expected):
    path = tmp_path / "train.csv"
    path.write_text("qid,label,f1,f2\nq1,1,0.5,0.3\nq1,0,0.2,0.1\nq2,1,0.1,0.3\n")
    code, _, err = run_cli(capsys, "cv", "--data", path, "--n-splits", 2, "-q", *argv)
    assert code == 1, err
    assert expected.format(path=str(path)) in one_line_error(err, "cv")


def test_cli_names_the_trec_file_from_the_error(capsys, tmp_path):
    """evaluate --run/--qrels says which file failed from the error's ``parameter``: here
    the qrels' bad grade is the run's path, which reading the message took for the run."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("1 Q0 d1 1 0.5 tag\n")
    qrels.write_text(f"1 0 d1 {run}\n")
    code, _, err = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels)
    assert code == 1
    line = one_line_error(err, "evaluate")
    assert line.startswith(f"sklearn-rank evaluate: error: --qrels: Line 1 of {str(qrels)!r}")
    # and the run's own errors name --run
    run.write_text("1 Q0 d1 1 high tag\n")
    qrels.write_text("1 0 d1 1\n")
    code, _, err = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels)
    assert one_line_error(err, "evaluate").startswith(
        f"sklearn-rank evaluate: error: --run: Line 1 of {str(run)!r}")


def test_read_trec_errors_name_the_file(tmp_path):
    from sklearn_rank.datasets import read_trec

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("1 Q0 d1 1 0.5 tag\n1 Q0 d1 2 0.4 tag\n")
    qrels.write_text("1 0 d1 1\n")
    with pytest.raises(ValueError) as info:  # a document twice in the run
        read_trec(qrels, run)
    assert (info.value.path, info.value.parameter) == (str(run), "run")
    qrels.write_text("1 0 d1\n")
    with pytest.raises(ValueError) as info:  # too few fields
        read_trec(qrels, run)
    assert (info.value.path, info.value.parameter) == (str(qrels), "qrels")
