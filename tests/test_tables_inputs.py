"""Inputs from elsewhere: a document named twice for one query is refused, as read_trec and
trec_eval refuse it, instead of counting twice in every metric; an SVMlight file's byte-order
mark is named; pandas inputs in two row orders are not paired by position."""

import re

import numpy as np
import pytest

from sklearn_rank.datasets import TableError, read_table

# the fixture ``parser`` (conftest.py) runs each test with pyarrow and the csv module


# qid 1: document b, the relevant one, listed twice (two CSV files concatenated, say)
TWICE = "qid,doc,label,score\n1,a,0,0.9\n1,b,1,0.5\n2,a,1,0.3\n1,b,1,0.5\n"


def test_a_document_twice_in_a_query_is_refused(tmp_path, parser):
    path = tmp_path / "run.csv"
    path.write_text(TWICE)
    with pytest.raises(TableError) as caught:
        read_table(path, docno_column="doc")
    error = caught.value
    assert str(error) == (
        f"{str(path)!r}, line 5: document 'b' is named twice for query '1' (first at line "
        "3); it would count twice in every metric. Keep one row per query and document "
        "(trec_eval refuses such a file: 'duplicate docs').")
    assert (error.parameter, error.column, error.location) == ("docno_column", "doc", "line 5")
    # a judgements table (no scores) as well, and query ids made one by qid_type="int"
    path.write_text("qid,doc,label\n7,a,0\n1,b,1\n007,a,1\n")
    with pytest.raises(TableError, match="document 'a' is named twice for query 7"):
        read_table(path, docno_column="doc", score_column=None, qid_type="int")
    # the same name in two queries, or in two kept apart as written, is two documents
    assert read_table(path, docno_column="doc", score_column=None)["docno"].tolist() == [
        "a", "b", "a"]


def test_a_document_twice_in_a_parquet_table_is_refused(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "run.parquet"
    pd.DataFrame({"qid": [1, 1, 1], "doc": ["a", "b", "a"], "label": [1.0, 0.0, 1.0],
                  "score": [0.1, 0.2, 0.3]}).to_parquet(path)
    with pytest.raises(TableError, match=r"row 3: document 'a' is named twice for query 1 "
                                         r"\(first at row 1\)"):
        read_table(path, docno_column="doc")
    # without document names, equal rows are two documents that look alike
    assert np.array_equal(read_table(path)["y_true"], [1.0, 0.0, 1.0])


@pytest.mark.parametrize("encoding, says", [
    ("utf-8-sig", "a UTF-8 byte-order mark"),
    ("utf-16", "a UTF-16 byte-order mark (UTF-16 text)"),
])
def test_an_svmlight_file_with_a_byte_order_mark_says_so(tmp_path, encoding, says):
    """Before: "could not convert string to float: b'\\xef\\xbb\\xbf2'"."""
    from sklearn_rank.datasets import load_svmlight_ranking

    path = tmp_path / "train.txt"
    path.write_text("2 qid:1 1:0.5\n0 qid:1 1:0.1\n", encoding=encoding)
    with pytest.raises(ValueError) as caught:
        load_svmlight_ranking(path)
    assert str(caught.value) == (
        f"{str(path)!r} begins with {says}, which the SVMlight parser reads as part of the "
        "first grade. Save the file as plain UTF-8 (or ASCII) text without a byte-order mark.")


def test_read_table_dask_refuses_a_document_twice_in_a_partition(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("dask.dataframe")
    from sklearn_rank.datasets import read_table_dask

    folder = tmp_path / "run"
    folder.mkdir()
    pd.DataFrame({"qid": [1, 1, 1], "doc": ["a", "b", "a"], "label": [1.0, 0.0, 1.0],
                  "score": [0.1, 0.2, 0.3]}).to_parquet(folder / "part0.parquet")
    data = read_table_dask(folder, docno_column="doc", partitioned_by_query=True)
    with pytest.raises(TableError, match=r"partition 0, row 3: document 'a' is named twice "
                                         r"for query 1 \(first at partition 0, row 1\)"):
        data["qid"].compute()


# ----------------------------------------------------------------------------------------
# pandas columns of one frame taken before and after it was sorted: paired by position, a
# document's grade met another's score (nDCG@10 0.639 instead of 0.830).

def test_pandas_inputs_in_another_row_order_are_refused():
    pd = pytest.importorskip("pandas")
    from sklearn_rank.metrics import evaluate, ndcg_score

    frame = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2], "y": [3, 0, 1, 2, 0, 1.0],
                          "s": [0.9, 0.1, 0.5, 0.3, 0.8, 0.2]})
    ranked = frame.sort_values("s")
    expected = evaluate(frame["y"], frame["s"], qid=frame["qid"], metrics=["ndcg@10"])
    for y_true, y_score, qid, second in [(frame["y"], ranked["s"], frame["qid"], "y_score"),
                                         (frame["y"], frame["s"], ranked["qid"], "qid"),
                                         (ranked["y"], ranked["s"], frame["qid"], "qid")]:
        with pytest.raises(ValueError, match=re.escape(
                f"evaluate: {'y_true'} and {second} are pandas objects whose indexes do not "
                "list the same rows in the same order")):
            evaluate(y_true, y_score, qid=qid, metrics=["ndcg@10"])
    with pytest.raises(ValueError, match="ndcg_score: y_true and y_score are pandas objects"):
        ndcg_score(frame["y"], ranked["s"], qid=frame["qid"])
    # aligned, or one frame's rows in its order: scored as before
    assert evaluate(ranked["y"], ranked["s"], qid=ranked["qid"],
                    metrics=["ndcg@10"]) == pytest.approx(expected)
    assert evaluate(frame["y"], ranked["s"].loc[frame.index], qid=frame["qid"],
                    metrics=["ndcg@10"]) == expected
    # a test frame cut from a larger one beside pandas' default index: by position
    test = frame.iloc[[0, 2, 3, 5]]
    predictions = pd.Series(test["s"].to_numpy())
    assert evaluate(test["y"], predictions, qid=test["qid"], metrics=["ndcg@10"]) == evaluate(
        test["y"].to_numpy(), test["s"].to_numpy(), qid=test["qid"].to_numpy(),
        metrics=["ndcg@10"])
