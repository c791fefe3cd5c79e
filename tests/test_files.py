"""Readers of LETOR/SVMlight and TREC files."""

import re
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# Files on which the query ids read apart from scikit-learn's parser could differ from
# those it reads itself: comments (whole lines, after the fields, before the qid: field),
# blank lines, CRLF, tabs, rows without features, qid:0, negative and large ids, ids written
# with underscores, features beyond the last one read, and compressed files.
SVMLIGHT_CASES = {
    "plain": "2 qid:5 1:0.5\n0 qid:5 2:0.9\n1 qid:3 1:0.3 2:0.3\n",
    "comments": "# header\n2 qid:5 1:0.5 # a comment: qid:9\n0 qid:5 2:0.9#x\n"
                "\n   \n# qid:8 1:1\n1 qid:3 1:0.3 2:0.3 #\n",
    "crlf and tabs": "2\tqid:5\t1:0.5\r\n0 qid:5  2:0.9\r\n\r\n1\tqid:3 3:1\r\n",
    "no features": "2 qid:5\n0 qid:5 1:1\n1 qid:3\n",
    "qid 0": "1 qid:0 1:1\n0 qid:0 2:1\n1 qid:1 1:2\n",
    "ids": "1 qid:-4 1:1\n0 qid:9223372036854775807 1:1\n2 qid:1_000 2:1\n",
    "zero based": "1 qid:2 0:1 3:2\n0 qid:2 0:3\n",
}


def _reference(paths, **options):
    """What scikit-learn's parser reads, query ids included: the loader's result before it
    read the ids itself."""
    from sklearn.datasets import load_svmlight_files

    return load_svmlight_files([str(p) for p in paths], query_id=True, **options)


@pytest.mark.parametrize("case", list(SVMLIGHT_CASES))
@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
@pytest.mark.parametrize("options", [{}, {"zero_based": True}, {"zero_based": False},
                                     {"n_features": 12}, {"dtype": np.float32}])
def test_svmlight_query_ids_are_those_of_scikit_learn(tmp_path, case, suffix, options):
    import bz2
    import gzip

    text = SVMLIGHT_CASES[case].encode()
    if case == "zero based" and options.get("zero_based") is False:
        pytest.skip("index 0 is refused one-based, by both")
    path = tmp_path / f"f.txt{suffix}"
    opener = {"": open, ".gz": gzip.open, ".bz2": bz2.open}[suffix]
    with opener(path, "wb") as handle:
        handle.write(text)
    got = load_svmlight_ranking_files([path], **options)
    expected = _reference([path], **options)
    for a, b in zip(got, expected, strict=True):
        assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
        if hasattr(a, "indptr"):
            for name in ("data", "indices", "indptr"):
                np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        else:
            np.testing.assert_array_equal(a, b)


def test_svmlight_query_ids_in_time_linear_in_the_rows(tmp_path):
    # scikit-learn's parser np.appends each qid: id, a copy of all the ids before it: 100k
    # rows took 6-12 s, 400k 158 s, against 1.9 s with the ids in a .query side file
    import time

    rng = np.random.default_rng(0)
    n = 150_000
    sizes = np.full(n // 50, 50)
    features = " ".join(f"{j}:{j / 7:.3f}" for j in range(1, 6))
    lines = [f"{g} qid:{q} {features}\n" for q, g in zip(np.repeat(np.arange(len(sizes)), sizes),
                                                        rng.integers(0, 3, n))]
    with_ids = write(tmp_path / "ids.txt", "".join(lines))
    side = write(tmp_path / "side.txt", "".join(f"{line.split(' ', 2)[0]} {features}\n"
                                               for line in lines))
    write(tmp_path / "side.txt.query", "\n".join(map(str, sizes)) + "\n")

    def seconds(path):
        start = time.perf_counter()
        load_svmlight_ranking(path)
        return time.perf_counter() - start

    seconds(side)  # scikit-learn's parser imported and warm
    ratio = min(seconds(with_ids) for _ in range(2)) / min(seconds(side) for _ in range(2))
    assert ratio < 3, ratio


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


def test_svmlight_query_sizes_of_ascii_digits(tmp_path):
    # int() reads "\u0662" (an Arabic-Indic 2) as 2; a byte order mark is no digit
    path = tmp_path / "train.txt"
    write(path, "1 1:0.5\n0 2:0.9\n1 1:0.3\n")
    (tmp_path / "train.txt.query").write_bytes(b"\xef\xbb\xbf2\n1\n")
    np.testing.assert_array_equal(load_svmlight_ranking(path)[2], [0, 0, 1])
    write(tmp_path / "train.txt.query", "\u0662\n1\n")
    with pytest.raises(ValueError, match="Line 1 of the query-size file .* holds '\u0662'"):
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


# ----------------------------------------------------------------------------------------
# TREC runs and qrels


def reference_read_trec(qrels, run, complete=False, max_docs=None):
    """trec_eval's reading of a qrels and a run (bytes), line by line and with dicts, as
    get_qrels.c, get_trec_results.c and form_res_rels.c describe it: the rows that
    read_trec returns, or ValueError("duplicate") where trec_eval stops on duplicate docs.
    """
    def fields(data, n):
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        found = [line.split() for line in data.split(b"\n")]
        return [f[:n] for f in found if f and not f[0].startswith(b"#")]

    judged, ranked = {}, {}
    if not fields(qrels, 4) or not fields(run, 6):
        raise ValueError("no line")
    for query, _, docno, grade in fields(qrels, 4):
        judged.setdefault(query, []).append((docno, float(grade)))
    for query, _, docno, _, score, _ in fields(run, 6):
        ranked.setdefault(query, []).append((docno, float(score)))
    rows = []
    for query in sorted(q for q in judged if complete or q in ranked):
        # score descending, then document name descending; the first max_docs
        docs = sorted(ranked.get(query, []), key=lambda ds: (ds[1], ds[0]), reverse=True)
        docs = docs[:max_docs]
        grades = dict(judged[query])
        if len({d for d, _ in docs}) < len(docs) or len(grades) < len(judged[query]):
            raise ValueError("duplicate")
        rows += [(query, d, grades.get(d, np.nan), s, True) for d, s in docs]
        rows += [(query, d, grades[d], -np.inf, False)
                 for d in sorted(set(grades) - {d for d, _ in docs}, reverse=True)]
    columns = list(zip(*rows)) if rows else [()] * 5
    return {
        "qid": [q.decode() for q in columns[0]],
        "docno": [d.decode() for d in columns[1]],
        "y_true": np.array(columns[2], dtype=float),
        "y_score": np.array(columns[3], dtype=float),
        "retrieved": list(columns[4]),
        "run_only_queries": sorted(q.decode() for q in set(ranked) - set(judged)),
        "qrels_only_queries": sorted(q.decode() for q in set(judged) - set(ranked)),
    }


def assert_same_rows(d, expected):
    for key in ("qid", "docno", "retrieved", "run_only_queries", "qrels_only_queries"):
        assert d[key].tolist() == expected[key], key
    np.testing.assert_array_equal(d["y_true"], expected["y_true"])  # NaN equals NaN
    np.testing.assert_array_equal(d["y_score"], expected["y_score"])
    np.testing.assert_array_equal(d["judged"], expected["y_true"] >= 0)
    assert d["y_true"].dtype == d["y_score"].dtype == np.float64
    assert d["retrieved"].dtype == d["judged"].dtype == bool
    assert d["qid"].dtype.kind == d["docno"].dtype.kind == "U"


QRELS_TEXT = "1 0 a 1\n1 0 b -1\n1 0 z 2\n2 0 x 1\n9 0 q 1\n"
RUN_TEXT = "1 Q0 a 1 0.5 s\n1 Q0 b 2 0.5 s\n1 Q0 c 3 0.9 s\n2 Q0 y 1 0.1 s\n3 Q0 w 1 0.7 s\n"


def test_read_trec_orders_as_trec_eval(tmp_path):
    qrels, run = write(tmp_path / "qrels", QRELS_TEXT), write(tmp_path / "run", RUN_TEXT)
    with pytest.warns(UserWarning, match=r"^1 of the 3 judged queries of .* have no line in "
                                         r"the run .* \('9'\): they are left out"):
        d = read_trec(qrels, run)
    # query 3 (not judged) is left out, 9 (judged, not in the run) too; ties are broken
    # by docno descending; unretrieved documents come last
    assert d["qid"].tolist() == ["1", "1", "1", "1", "2", "2"]
    assert d["docno"].tolist() == ["c", "b", "a", "z", "y", "x"]
    # c and y are retrieved and not in the qrels: NaN; b is in the pool, unjudged: -1
    np.testing.assert_array_equal(d["y_true"], [np.nan, -1, 1, 2, np.nan, 1])
    assert d["judged"].tolist() == [False, False, True, True, False, True]
    assert d["retrieved"].tolist() == [True, True, True, False, True, False]
    assert d["run_only_queries"].tolist() == ["3"]
    assert d["qrels_only_queries"].tolist() == ["9"]
    assert list(d) == ["y_true", "y_score", "qid", "retrieved", "docno", "judged",
                       "run_only_queries", "qrels_only_queries"]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 20])
def test_read_trec_splits_fields_across_blocks(tmp_path, monkeypatch, block):
    """The fields are found a block of bytes at a time: a field, a run of spaces or a line
    cut by a block's end reads as whole, whatever the block's size, in regular files and
    irregular ones (tabs, runs of spaces, CR LF, comments, blank lines, text after the tag,
    no newline at the end), as trec_eval reads them."""
    from sklearn_rank.datasets import _files

    monkeypatch.setattr(_files, "_TOKEN_BLOCK", block)
    irregular_qrels = ("# judged\n 1 0   a\t1\r\n1 0 b -1\n\n\t1 0 z 2  \n2\v0 x 1\n"
                       "9 0 q 1")
    irregular_run = ("1 Q0 a 1 0.5 s text after the tag\n\n1\tQ0 b 2 0.5 s\r\n"
                     "  1 Q0 c 3 .9 s\n#2 Q0 y 1 0.1 s\n2 Q0 y 1 1e-1 s\n3 Q0 w 1 0.7 s")
    for qrels_text, run_text in [(QRELS_TEXT, RUN_TEXT), (irregular_qrels, irregular_run)]:
        qrels = write(tmp_path / "qrels", qrels_text)
        run = write(tmp_path / "run", run_text)
        with pytest.warns(UserWarning, match="have no line in the run"):
            d = read_trec(qrels, run)
        assert_same_rows(d, reference_read_trec(qrels_text.encode(), run_text.encode()))
    if SHARED.is_dir():  # trec_eval's fixtures: text after the tag, 3 x 500 lines
        folder = SHARED / "trec_eval-test"
        d = read_trec(folder / "qrels.test", folder / "results.trunc", complete=True)
        assert_same_rows(d, reference_read_trec((folder / "qrels.test").read_bytes(),
                                                (folder / "results.trunc").read_bytes(),
                                                complete=True))


def test_read_trec_complete_keeps_the_judged_queries_without_a_run(tmp_path):
    qrels, run = write(tmp_path / "qrels", QRELS_TEXT), write(tmp_path / "run", RUN_TEXT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # -c asked for: nothing to warn about
        d = read_trec(qrels, run, complete=True)
    assert d["qid"].tolist() == ["1", "1", "1", "1", "2", "2", "9"]
    assert d["docno"][-1] == "q" and not d["retrieved"][-1] and d["y_true"][-1] == 1
    assert d["y_score"][-1] == -np.inf
    # what trec_eval -c prints: query 9 scores 0 and counts in the mean. Query 1 ranks
    # c, b, a and misses z: a relevant at rank 3 of R = 2 relevant documents
    per_query = evaluate(d["y_true"], d["y_score"], qid=d["qid"], retrieved=d["retrieved"],
                         judged="y_true", docno=d["docno"], metrics=["map"],
                         convention="trec_eval", return_per_query=True)["map"]
    assert per_query.tolist() == [(1 / 3) / 2, 0.0, 0.0]


def test_read_trec_without_a_query_in_both_files(tmp_path):
    # trec_eval stops ("No queries with both results and relevance info"); the arrays are
    # empty, which the metrics refuse, and the warning and the two lists say why
    qrels, run = write(tmp_path / "qrels", "1 0 a 1\n"), write(tmp_path / "run", RUN_TEXT)
    write(run, "7 Q0 a 1 0.5 s\n")
    with pytest.warns(UserWarning, match=r"^1 of the 1 judged queries .* \('1'\)"):
        d = read_trec(qrels, run)
    assert all(len(d[key]) == 0 for key in ("y_true", "y_score", "qid", "docno", "judged"))
    assert d["run_only_queries"].tolist() == ["7"]
    assert d["qrels_only_queries"].tolist() == ["1"]
    # trec_eval -c scores the judged query 0
    d = read_trec(qrels, run, complete=True)
    assert d["docno"].tolist() == ["a"] and d["retrieved"].tolist() == [False]


def test_read_trec_max_docs_is_trec_eval_M(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d -1\n")
    # ranked as trec_eval ranks: e (0.9), then the ties at 0.5 by docno descending: d, c,
    # b; then a (0.1)
    run = write(tmp_path / "run", "1 Q0 a 1 0.1 s\n1 Q0 b 2 0.5 s\n1 Q0 c 3 0.5 s\n"
                                  "1 Q0 d 4 0.5 s\n1 Q0 e 5 0.9 s\n")
    d = read_trec(qrels, run, max_docs=3)
    # the first 3 stay retrieved; the judged b and a become unretrieved rows (docno
    # descending), the pool's d stays (ranked), nothing unjudged is beyond the cut
    assert d["docno"].tolist() == ["e", "d", "c", "b", "a"]
    assert d["retrieved"].tolist() == [True, True, True, False, False]
    np.testing.assert_array_equal(d["y_true"], [np.nan, -1, 1, 0, 1])
    d = read_trec(qrels, run, max_docs=1)
    assert d["docno"].tolist() == ["e", "d", "c", "b", "a"]
    assert d["retrieved"].tolist() == [True, False, False, False, False]
    # the unjudged e beyond the cut leaves the rows
    run = write(tmp_path / "run", "1 Q0 a 1 0.95 s\n1 Q0 e 5 0.9 s\n")
    assert read_trec(qrels, run, max_docs=1)["docno"].tolist() == ["a", "d", "c", "b"]
    d = read_trec(qrels, run, max_docs=1_000_000)
    assert d["docno"].tolist() == read_trec(qrels, run)["docno"].tolist()


@pytest.mark.parametrize("qrels, run, options, which, where", [
    # twice in the run: trec_eval stops ("duplicate docs"), with the same score too
    ("1 0 a 1\n", "1 Q0 a 1 0.9 s\n1 Q0 b 2 0.5 s\n1 Q0 a 3 0.1 s\n", {}, "run",
     "'a' twice for query '1' (lines 1 and 3)"),
    ("1 0 a 1\n", "1 Q0 a 1 0.9 s\n1 Q0 a 3 0.9 s\n", {}, "run",
     "'a' twice for query '1' (lines 1 and 2)"),
    # three times: the earliest line that repeats an earlier one, and that one
    ("1 0 a 1\n", "1 Q0 b 1 0.9 s\n1 Q0 a 1 0.3 s\n1 Q0 a 3 0.8 s\n1 Q0 a 3 0.1 s\n", {},
     "run", "'a' twice for query '1' (lines 2 and 3)"),
    # both within the first max_docs
    ("1 0 a 1\n", "1 Q0 a 1 0.9 s\n1 Q0 b 2 0.5 s\n1 Q0 a 3 0.4 s\n", {"max_docs": 3}, "run",
     "'a' twice for query '1' (lines 1 and 3)"),
    # twice in the qrels, even with one grade
    ("1 0 a 1\n1 0 b 0\n1 0 a 1\n", "1 Q0 a 1 0.9 s\n", {}, "qrels",
     "'a' twice for query '1' (lines 1 and 3)"),
    # a judged query without a run is evaluated with -c: its qrels are checked
    ("1 0 a 1\n2 0 x 1\n2 0 x 0\n", "1 Q0 a 1 0.9 s\n", {"complete": True}, "qrels",
     "'x' twice for query '2' (lines 2 and 3)"),
])
def test_read_trec_refuses_duplicates_as_trec_eval(tmp_path, qrels, run, options, which,
                                                   where):
    qrels, run = write(tmp_path / "qrels", qrels), write(tmp_path / "run", run)
    path = run if which == "run" else qrels
    with pytest.raises(ValueError) as caught:
        read_trec(qrels, run, **options)
    assert str(caught.value) == (
        f"{str(path)!r} lists document {where}; trec_eval refuses duplicate documents in a "
        f"{which} file ('duplicate docs'). Keep one line per document and query.")


@pytest.mark.parametrize("qrels, run, options, docno, retrieved", [
    # beyond the first max_docs: trec_eval never looks at it; the first copy counts
    ("1 0 a 1\n", "1 Q0 a 1 0.9 s\n1 Q0 b 2 0.5 s\n1 Q0 a 3 0.1 s\n", {"max_docs": 2},
     ["a", "b"], [True, True]),
    ("1 0 a 1\n", "1 Q0 a 1 0.9 s\n1 Q0 a 3 0.9 s\n", {"max_docs": 1}, ["a"], [True]),
    ("1 0 a 1\n", "1 Q0 b 1 0.9 s\n1 Q0 a 3 0.5 s\n1 Q0 a 3 0.1 s\n", {"max_docs": 1},
     ["b", "a"], [True, False]),
    # queries that are not evaluated: not judged, or judged without a run and no -c
    ("1 0 a 1\n", "1 Q0 a 1 0.9 s\n2 Q0 a 1 0.9 s\n2 Q0 a 2 0.8 s\n", {}, ["a"], [True]),
    ("1 0 a 1\n2 0 x 1\n2 0 x 0\n", "1 Q0 a 1 0.9 s\n", {}, ["a"], [True]),
])
def test_read_trec_ignores_duplicates_trec_eval_never_reads(tmp_path, qrels, run, options,
                                                            docno, retrieved):
    qrels, run = write(tmp_path / "qrels", qrels), write(tmp_path / "run", run)
    with warnings.catch_warnings():
        # the judged query 2 without a run of the last case
        warnings.filterwarnings("ignore", "1 of the 2 judged queries", UserWarning)
        d = read_trec(qrels, run, **options)
    assert d["qid"].tolist() == ["1"] * len(docno)
    assert d["docno"].tolist() == docno
    assert d["retrieved"].tolist() == retrieved
    assert d["y_score"][0] == 0.9


@pytest.mark.parametrize("options, exc, message", [
    ({"complete": "yes"}, TypeError, r"complete must be True or False \(trec_eval -c\); got "
                                     r"'yes'"),
    ({"complete": 1}, TypeError, "complete must be True or False"),
    ({"max_docs": -1}, ValueError, r"max_docs must be an integer >= 0 \(trec_eval -M"),
    ({"strict": "yes"}, TypeError, "strict must be True or False"),
    ({"max_docs": -5}, ValueError, "got -5"),
    ({"max_docs": 2.0}, ValueError, "got 2.0"),
    ({"max_docs": True}, ValueError, "got True"),
])
def test_read_trec_option_errors(tmp_path, options, exc, message):
    qrels, run = write(tmp_path / "qrels", QRELS_TEXT), write(tmp_path / "run", RUN_TEXT)
    with pytest.raises(exc, match=message):
        read_trec(qrels, run, **options)


def test_read_trec_max_docs_numpy_integer(tmp_path):
    qrels, run = write(tmp_path / "qrels", "1 0 a 1\n"), write(tmp_path / "run", RUN_TEXT)
    assert read_trec(qrels, run, max_docs=np.int64(1))["retrieved"].sum() == 1


def test_read_trec_matches_trec_eval_fixture():
    if not SHARED.is_dir():
        pytest.skip("../shared/data is absent")
    folder = SHARED / "trec_eval-test"
    d = read_trec(folder / "qrels.test", folder / "results.test")
    result = evaluate(d["y_true"], d["y_score"], qid=d["qid"], retrieved=d["retrieved"],
                      judged="y_true", docno=d["docno"], metrics=["map", "P@10", "ndcg"],
                      convention="trec_eval")
    expected = read_all_values(folder / "out.test.aq")
    assert result["map"] == pytest.approx(expected["map"], abs=5e-5)
    assert result["P@10"] == pytest.approx(expected["P_10"], abs=5e-5)
    assert result["ndcg"] == pytest.approx(expected["ndcg"], abs=5e-5)


def read_all_values(path):
    """{measure: value} of the ``all`` lines of a trec_eval output."""
    values = {}
    for line in path.read_text().splitlines():
        measure, query, value = line.split()
        if query == "all" and measure not in ("runid", "relstring"):
            values[measure] = float(value)
    return values


@pytest.mark.parametrize("output, options", [
    ("out.test.aqc", {"complete": True}),
    ("out.test.aqcM", {"complete": True, "max_docs": 100}),
])
def test_read_trec_complete_and_max_docs_match_trec_eval_fixtures(output, options):
    # results.trunc has no line for the judged query 302: the MAP of 0.1016 with
    # -c, 0.1523 without
    if not SHARED.is_dir():
        pytest.skip("../shared/data is absent")
    folder = SHARED / "trec_eval-test"
    d = read_trec(folder / "qrels.test", folder / "results.trunc", **options)
    assert d["qrels_only_queries"].tolist() == ["302"]
    data = {name: d[name] for name in ("y_true", "y_score", "qid", "retrieved", "docno")}
    result = evaluate(**data, judged="y_true", metrics=["map", "P@100", "recall@1000"],
                      convention="trec_eval")
    expected = read_all_values(folder / output)
    assert result["map"] == pytest.approx(expected["map"], abs=5e-5)
    assert result["P@100"] == pytest.approx(expected["P_100"], abs=5e-5)
    assert result["recall@1000"] == pytest.approx(expected["recall_1000"], abs=5e-5)
    if "max_docs" in options:
        # 100 of query 301's 500 documents, the 84 of 303
        assert d["retrieved"].sum() == expected["num_ret"] == 184
        return
    assert result["map"] == pytest.approx(0.1016, abs=5e-5)
    with pytest.warns(UserWarning, match=r"1 of the 3 judged queries .* \('302'\)"):
        d = read_trec(folder / "qrels.test", folder / "results.trunc")
    data = {name: d[name] for name in ("y_true", "y_score", "qid", "retrieved", "docno")}
    per_query = {}
    for line in (folder / output).read_text().splitlines():
        measure, query, value = line.split()
        if measure == "map" and query != "all":
            per_query[query] = float(value)
    mean = evaluate(**data, judged="y_true", metrics=["map"], convention="trec_eval")["map"]
    assert mean == pytest.approx((per_query["301"] + per_query["303"]) / 2, abs=5e-5)
    assert mean == pytest.approx(0.1523, abs=5e-5)


@pytest.mark.parametrize(
    "qrels, run, message",
    [("1 0 a\n", "1 Q0 a 1 0.5 s\n", "a TREC qrels line has 4"),
     ("1 0 a 1\n", "1 Q0 a 1\n", "has 4 fields; a TREC run line has 6, 'qid Q0 docno rank "
      "score tag', e.g. '301 Q0 FR940202-2-00150 1 2.129 tag'"),
     ("1 0 a x\n", "1 Q0 a 1 0.5 s\n", "Line 1 of .*: the grade 'x' is not a number"),
     ("1 0 a 1\n", "\n# c\n\n1 Q0 a 1 0.5 s\n1 Q0 b 2 nan s\n",
      "Line 5 of .*: the score 'nan' is not a number"),
     ("1 0 a 1\n", "1 Q0 a 1 0x10 s\n", "the score '0x10' is not a number"),
     # trec_eval's atof reads "1_0" as 1 and atol a grade "1e1" as 1: never a prefix
     ("1 0 a 1\n", "1 Q0 a 1 0.5 s\n1 Q0 b 2 1_0 s\n",
      r"Line 2 of .*r': the score '1_0' is not a number; expected a decimal number .* "
      r"written in full \(trec_eval's atof would read the number at its start only\)"),
     ("1 0 b 0\n1 0 a 1e1\n", "1 Q0 a 1 0.5 s\n",
      r"Line 2 of .*q': the grade '1e1' is not a number; expected an integer such as 2 or "
      r"-1, or a decimal such as 1.5, written in full \(trec_eval's atol"),
     ("1 0 a inf\n", "1 Q0 a 1 0.5 s\n", r"Line 1 of .*q': the grade 'inf' is not a number"),
     ("1 0 a -\n", "1 Q0 a 1 0.5 s\n", r"Line 1 of .*q': the grade '-' is not a number"),
     ("1 0 a \u0661\n", "1 Q0 a 1 0.5 s\n", r"Line 1 of .*: the grade '\u0661' is not a"),
     ("1 0 a 1\n", "1 Q0 a 1 \uff15 s\n", r"Line 1 of .*: the score '\uff15' is not a"),
     ("1 0 a 1\n", "1 Q0 a 1 infinit s\n", r"the score 'infinit' is not a number"),
     ("1 0 a 1\n", "1 Q0 a 1 NaN s\n", r"the score 'NaN' is not a number; expected a "
      "number, which NaN is not"),
     ("", "1 Q0 a 1 0.5 s\n", "holds no TREC qrels line"),
     ("# only a comment\n\n  \n", "1 Q0 a 1 0.5 s\n", "holds no TREC qrels line"),
     ("1 0 a 1\n", "1 Q0 a 1 0.5 s\n\n1\n", "Line 3 of .* has 1 field; a TREC run line"),
     ("1 0 a 1\n", "1 Q0 a\x00 1 0.5 s\n", r"holds a NUL byte \(byte 6\)"),
     (b"1 0 caf\xe9 1\n", "1 Q0 a 1 0.5 s\n", r"is not UTF-8 text \(byte 7\)")],
)
def test_read_trec_errors(tmp_path, qrels, run, message):
    for path, text in ((tmp_path / "q", qrels), (tmp_path / "r", run)):
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ValueError, match=message):
        read_trec(tmp_path / "q", tmp_path / "r")


def test_read_trec_reads_whole_numbers_only():
    """Scores of strtod's grammar, written whole, read to the nearest double; grades of
    atol's, or plain decimals (sklearn-rank's own: trec_eval's command refuses them)."""
    from sklearn_rank.datasets._files import _number_field

    def read(fields, exponent):
        return _number_field(np.array(fields, dtype="S"), None, "f", "x", exponent).tolist()

    scores = [b"1e1", b"-2.5E-1", b"1.e2", b"+.5", b"inf", b"-Infinity", b"0.30000000000000004"]
    assert read(scores, True) == [10.0, -0.25, 100.0, 0.5, np.inf, -np.inf,
                                  0.30000000000000004]
    assert read([b"-1", b"+2", b"1.5", b"1.", b"12345678901234567890"], False) == [
        -1.0, 2.0, 1.5, 1.0, 12345678901234567890.0]


def test_read_trec_skips_a_byte_order_mark(tmp_path):
    """A UTF-8 byte order mark was part of the first query id: with it, the run's first
    line was a query of its own, and map silently 1.0 instead of 0.5833."""
    (tmp_path / "q").write_bytes(b"\xef\xbb\xbf1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    (tmp_path / "r").write_bytes(b"\xef\xbb\xbf1 Q0 b 1 0.9 s\n1 Q0 a 2 0.8 s\n"
                                 b"1 Q0 c 3 0.7 s\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no query without a line in the run
        d = read_trec(tmp_path / "q", tmp_path / "r")
    assert d["qid"].tolist() == ["1", "1", "1"]
    assert d["docno"].tolist() == ["b", "a", "c"]
    assert d["y_true"].tolist() == [0.0, 1.0, 1.0]
    data = {name: d[name] for name in ("y_true", "y_score", "qid", "retrieved")}
    value = evaluate(**data, judged="y_true", metrics=["map"], convention="trec_eval")["map"]
    assert value == pytest.approx((1 / 2 + 2 / 3) / 2)
    # the byte offsets of errors count the mark's bytes, as the file holds them
    (tmp_path / "q").write_bytes(b"\xef\xbb\xbf1 0 caf\xe9 1\n")
    with pytest.raises(ValueError, match=r"is not UTF-8 text \(byte 10\)"):
        read_trec(tmp_path / "q", tmp_path / "r")


def test_read_trec_missing_file(tmp_path):
    write(tmp_path / "r", RUN_TEXT)
    with pytest.raises(FileNotFoundError, match="No TREC qrels file at .*: it does not exist"):
        read_trec(tmp_path / "q", tmp_path / "r")
    with pytest.raises(FileNotFoundError, match="No TREC run file at .*: it is a directory"):
        read_trec(tmp_path / "r", tmp_path)


def test_read_trec_refuses_one_file_as_qrels_and_run(tmp_path):
    """A run given as its own qrels scored every retrieved document relevant: a perfect
    and plausible MAP of 1.0, from the same path or through a link."""
    write(tmp_path / "r", RUN_TEXT)
    (tmp_path / "link").symlink_to(tmp_path / "r")
    for qrels in (tmp_path / "r", tmp_path / "link"):
        with pytest.raises(ValueError, match=r"\(the run\) and .* \(the qrels\) are the same "
                                             r"file"):
            read_trec(qrels, tmp_path / "r")


def test_read_trec_suggests_the_swap_of_qrels_and_run(tmp_path):
    # read_trec(run, qrels): the run's 6 fields read as qrels, then the qrels' 4 refused as
    # run lines, with nothing to say that the two were given in each other's place
    write(tmp_path / "r", RUN_TEXT)
    write(tmp_path / "q", QRELS_TEXT)
    with pytest.raises(ValueError, match=r"a TREC run line has 6.* The qrels and the run seem "
                                         r"swapped: '.*q', given as the run, has qrels lines"):
        read_trec(tmp_path / "r", tmp_path / "q")
    # a short run line alone is not taken for a swap
    write(tmp_path / "short", "1 Q0 a 1\n")
    with pytest.raises(ValueError, match="a TREC run line has 6") as caught:
        read_trec(tmp_path / "q", tmp_path / "short")
    assert "swapped" not in str(caught.value)


def test_read_trec_reads_bytes_as_trec_eval(tmp_path):
    # tabs, CRLF and lone CR line ends, comments, text after the tag, the 5th field of a
    # qrels line; docnos compared byte by byte (UTF-8 'é' after 'z'), scores as C reads them
    qrels = "1\t0\tz\t1\r\n# note\r\n1 0 \u00e9 1 extra\r1 0 Z 0\n\n"
    run = ("  1 Q0 z 1 +5e-1 tag\tfree text\r\n1 Q0 \u00e9 2 0.5 tag\n#x\n"
           "1 Q0 Z 3 .5 tag\n")
    (tmp_path / "q").write_bytes(qrels.encode())
    (tmp_path / "r").write_bytes(run.encode())
    d = read_trec(tmp_path / "q", tmp_path / "r")
    assert d["docno"].tolist() == ["\u00e9", "z", "Z"]
    assert d["y_score"].tolist() == [0.5, 0.5, 0.5]
    np.testing.assert_array_equal(d["y_true"], [1, 1, 0])
    assert_same_rows(d, reference_read_trec(qrels.encode(), run.encode()))


def test_read_trec_long_document_names(tmp_path):
    # one very long docno among many short ones: the names are held as Python bytes
    long_name = "x" * 3000
    run = "".join(f"7 Q0 d{i:03d} {i} {i % 7} s\n" for i in range(300))
    run += f"7 Q0 {long_name} 301 3 s\n"
    qrels = f"7 0 d005 1\n7 0 {long_name} 2\n7 0 unretrieved 1\n"
    write(tmp_path / "q", qrels)
    write(tmp_path / "r", run)
    d = read_trec(tmp_path / "q", tmp_path / "r")
    assert_same_rows(d, reference_read_trec(qrels.encode(), run.encode()))
    assert long_name in d["docno"].tolist()


QUERIES = [b"1", b"2", b"10", b"q\xc3\xa9"]
DOCNOS = [b"a", b"b", b"B", b"d01", b"d1", b"\xc3\xa9", b"z", b"Z9",
          # 2 words of 8 bytes; 17 bytes: 3 words; beyond 8 words: read byte by byte, hashed
          b"LA010189-0001", b"FR940202-2-00150", b"FR940202-2-00151", b"FR940202-2-001500",
          b"clueweb12-" + b"0" * 56, b"clueweb12-" + b"0" * 55 + b"1"]
SPACE = st.sampled_from([b" ", b"\t", b"  ", b" \t "])
END = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def trec_file(draw, n_fields, value):
    """A TREC file's bytes: lines of random (query, docno, value), fields separated by C
    whitespace, with blank lines, comments and extra fields, and any line end. A run may be
    written as runs usually are: by query, then score descending (ties in any order)."""
    lines, keys = [], {}
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["line"] * 6 + ["blank", "comment"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from([b"", b"  ", b"\t"])))
            continue
        if kind == "comment":
            lines.append(b"#" + draw(SPACE) + b"1 Q0 a 1 2 comment")
            continue
        query, docno = draw(st.sampled_from(QUERIES)), draw(st.sampled_from(DOCNOS))
        fields = [query, b"0" if n_fields == 4 else b"Q0", docno]
        fields += [b"1", draw(value), b"tag"] if n_fields == 6 else [draw(value)]
        fields += draw(st.lists(st.sampled_from([b"x", b"7"]), max_size=2))
        separators = [draw(SPACE) for _ in fields]
        lead = draw(st.sampled_from([b"", b" "])) if n_fields == 6 else b""
        keys[len(lines)] = (query, -float(fields[4 if n_fields == 6 else 3]))
        lines.append(lead + b"".join(f + s for f, s in zip(fields, separators)).rstrip())
    if n_fields == 6 and draw(st.booleans()):
        data = sorted(keys, key=keys.get)
        ranked = [lines[i] for i in data]
        for i, line in zip(sorted(keys), ranked):
            lines[i] = line
    return b"".join(line + draw(END) for line in lines)


GRADE = st.sampled_from([b"-2", b"-1", b"0", b"1", b"2", b"3", b"1.5"])
SCORE = st.sampled_from([b"0", b"-0", b"0.5", b"+0.5", b"5e-1", b"1", b"-1.25", b"2", b"1e300"])


@settings(max_examples=300, deadline=None)
@given(qrels=trec_file(4, GRADE), run=trec_file(6, SCORE), complete=st.booleans(),
       max_docs=st.sampled_from([None, 1, 2, 3, 5]))
def test_read_trec_against_a_line_by_line_reading(tmp_path_factory, qrels, run, complete,
                                                  max_docs):
    folder = tmp_path_factory.mktemp("trec")
    (folder / "q").write_bytes(qrels)
    (folder / "r").write_bytes(run)
    try:
        expected = reference_read_trec(qrels, run, complete, max_docs)
    except ValueError as exc:
        expected = str(exc)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if isinstance(expected, str):
            message = "twice for query" if expected == "duplicate" else "holds no TREC"
            with pytest.raises(ValueError, match=message):
                read_trec(folder / "q", folder / "r", complete=complete, max_docs=max_docs)
            return
        d = read_trec(folder / "q", folder / "r", complete=complete, max_docs=max_docs)
    assert_same_rows(d, expected)
    warned = bool(expected["qrels_only_queries"]) and not complete
    assert [w.category for w in caught] == [UserWarning] * warned
    assert all("have no line in the run" in str(w.message) for w in caught)


@pytest.mark.parametrize("fields", [
    [b"0", b"-0", b"+3", b"1.", b".5", b"-.25", b"007", b"2.129", b"-13.75"],
    [b"123456789012345", b"0.000000000000001", b"99999999999999.9", b"-1.00000000000001"],
    # not plain decimals: left to float() (NaN here), errors included
    [b"1e3", b"inf", b"nan", b"1234567890123456", b"1.2.3", b"--1", b"1-", b".", b"", b"+"],
])
def test_decimal_fields_read_exactly_as_float_reads_them(fields):
    from sklearn_rank.datasets._files import _decimal_values

    values = _decimal_values(np.array(fields, dtype="S"))
    for field, value in zip(fields, values.tolist()):
        plain = re.fullmatch(rb"[+-]?(\d+\.?\d*|\.\d+)", field) is not None and sum(
            c.isdigit() for c in field.decode()) <= 15
        if plain:  # bit for bit, the sign of -0 included
            assert struct.pack("<d", value) == struct.pack("<d", float(field)), field
        else:
            assert np.isnan(value), field


def test_decimal_fields_match_float_on_random_decimals():
    from sklearn_rank.datasets._files import _decimal_values

    rng = np.random.default_rng(0)
    integers = rng.integers(0, 10**15, 20_000)
    places = rng.integers(0, 16, 20_000)
    fields = [(f"{i:d}"[:-p] + "." + f"{i:d}"[-p:] if 0 < p < len(str(i)) else f"{i:d}")
              for i, p in zip(integers.tolist(), places.tolist())]
    fields = [("-" if k % 3 == 0 else "") + f for k, f in enumerate(fields)]
    values = _decimal_values(np.array(fields, dtype="S"))
    np.testing.assert_array_equal(values, [float(f) for f in fields])
