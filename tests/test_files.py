"""Readers of LETOR/SVMlight and TREC files."""

from pathlib import Path

import numpy as np
import pytest

from sklearn_rank.datasets import load_svmlight_ranking, load_svmlight_ranking_files, read_trec
from sklearn_rank.metrics import evaluate

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def write(path, text):
    path.write_text(text)
    return path


def test_svmlight_with_qid(tmp_path):
    path = write(tmp_path / "f.txt", "2 qid:5 1:0.5\n0 qid:5 2:0.9\n1 qid:3 1:0.3 2:0.3\n")
    X, y, qid = load_svmlight_ranking(path)
    assert X.shape == (3, 2)
    np.testing.assert_array_equal(qid, [5, 5, 3])
    np.testing.assert_array_equal(y, [2, 0, 1])


def test_svmlight_with_query_side_file(tmp_path):
    path = write(tmp_path / "rank.train", "1 1:0.5\n0 2:0.9\n1 1:0.3\n")
    write(tmp_path / "rank.train.query", "2\n1\n")
    _, _, qid = load_svmlight_ranking(path)
    np.testing.assert_array_equal(qid, [0, 0, 1])
    write(tmp_path / "sizes", "1\n1\n")
    with pytest.raises(ValueError, match="add up to 2 rows, but .* has 3"):
        load_svmlight_ranking(path, query_file=tmp_path / "sizes")


@pytest.mark.parametrize(
    "content, exc, message",
    [(None, FileNotFoundError, "No SVMlight ranking file"),
     ("this is not svmlight\n", ValueError, "is not an SVMlight ranking file"),
     ("1 1:0.5\n0 2:0.9\n", ValueError, "has no query ids: its lines need 'qid:<query>'")],
)
def test_svmlight_errors(tmp_path, content, exc, message):
    path = tmp_path / "f.txt"
    if content is not None:
        write(path, content)
    with pytest.raises(exc, match=message):
        load_svmlight_ranking(path)


def test_svmlight_files_refuse_a_query_id_in_two_files(tmp_path):
    # concatenated, the rows of qid:1 of both files would be one query
    train = write(tmp_path / "train.txt", "2 qid:1 1:0.5\n0 qid:1 1:0.1\n1 qid:2 1:0.3\n")
    test = write(tmp_path / "test.txt", "1 qid:3 1:0.2\n0 qid:1 1:0.4\n")
    with pytest.raises(ValueError) as caught:
        load_svmlight_ranking_files([train, test])
    assert str(caught.value) == (
        f"query 1 is in both {str(train)!r} and {str(test)!r} (1 shared query id); pooling "
        "the files would merge different queries into one. Give each file its own query ids.")
    with pytest.raises(ValueError, match=r"query 1 is in both .* \(2 shared query ids\)"):
        load_svmlight_ranking_files([train, train])
    write(test, "1 qid:3 1:0.2\n0 qid:4 1:0.4\n")
    qids = load_svmlight_ranking_files([train, test])[2::3]
    assert [q.tolist() for q in qids] == [[1, 1, 2], [3, 4]]


def test_lambdarank_example():
    if not SHARED.is_dir():
        pytest.skip("../shared/data is absent")
    X, y, qid = load_svmlight_ranking(SHARED / "lambdarank-example" / "rank.train")
    assert X.shape[0] == 3005 and len(np.unique(qid)) == 201
    assert set(np.unique(y)) <= {0, 1, 2, 3, 4}


def test_read_trec_orders_as_trec_eval(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b -1\n1 0 z 2\n2 0 x 1\n9 0 q 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 0.5 s\n1 Q0 b 2 0.5 s\n1 Q0 c 3 0.9 s\n"
                                  "2 Q0 y 1 0.1 s\n3 Q0 w 1 0.7 s\n")
    d = read_trec(qrels, run)
    # queries 9 (not run) and 3 (not judged) are dropped; ties broken by docno descending;
    # unretrieved documents last
    assert d["qid"].tolist() == ["1", "1", "1", "1", "2", "2"]
    assert d["docno"].tolist() == ["c", "b", "a", "z", "y", "x"]
    assert d["y_true"].tolist() == [0, 0, 1, 2, 0, 1]
    assert d["retrieved"].tolist() == [True, True, True, False, True, False]


def test_read_trec_matches_trec_eval_fixture():
    if not SHARED.is_dir():
        pytest.skip("../shared/data is absent")
    folder = SHARED / "trec_eval-test"
    d = read_trec(folder / "qrels.test", folder / "results.test")
    result = evaluate(d["y_true"], d["y_score"], qid=d["qid"], retrieved=d["retrieved"],
                      metrics=["map", "P@10", "ndcg"], convention="trec_eval")
    expected = {}
    for line in (folder / "out.test.aq").read_text().splitlines():
        measure, query, value = line.split()
        if query == "all" and measure in ("map", "P_10", "ndcg"):
            expected[measure] = float(value)
    assert result["map"] == pytest.approx(expected["map"], abs=5e-5)
    assert result["P@10"] == pytest.approx(expected["P_10"], abs=5e-5)
    assert result["ndcg"] == pytest.approx(expected["ndcg"], abs=5e-5)


@pytest.mark.parametrize(
    "qrels, run, message",
    [("1 0 a\n", "1 Q0 a 1 0.5 s\n", "a TREC qrels line has 4"),
     ("1 0 a 1\n", "1 Q0 a 1\n", "has 4 fields; a TREC run line has 6, 'qid Q0 docno rank "
      "score tag', e.g. '301 Q0 FR940202-2-00150 1 2.129 tag'"),
     ("1 0 a x\n", "1 Q0 a 1 0.5 s\n", "Line 1 of .*: the grade 'x' is not a number"),
     ("", "1 Q0 a 1 0.5 s\n", "holds no TREC qrels line")],
)
def test_read_trec_errors(tmp_path, qrels, run, message):
    with pytest.raises(ValueError, match=message):
        read_trec(write(tmp_path / "q", qrels), write(tmp_path / "r", run))
