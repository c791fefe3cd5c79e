"""Tied scores under the trec_eval convention: ranked by document name, as trec_eval ranks them.

trec_eval orders a query's documents by score, descending, then by document name, descending.
Flat arrays used to carry no names, so ``convention="trec_eval"`` kept tied documents in row
order: ``evaluate --table ... --convention trec_eval`` gave nDCG 0.5904 on a tied query where
trec_eval and pytrec_eval give 0.5567. ``docno=`` (``--docno-column``) gives the names; without
them, the convention warns when the row order decides.
"""

import json
import warnings

import numpy as np
import pytest
from _cli import one_line_error, run_cli
from numpy.testing import assert_array_equal

from sklearn_rank.metrics import (
    TiedScoresWarning,
    evaluate,
    evaluate_per_query,
    get_metric_names,
    ndcg_score,
    parse_metric,
)

# One query: d1, d3, d6 and d2 tie at 0.5 with grades 1, 2, 0, 0. trec_eval ranks d4 (0.9),
# then d6, d3, d2, d1 (names descending), then d5.
DOCNO = np.array(["d1", "d2", "d3", "d4", "d5", "d6"])
Y_TRUE = np.array([1, 0, 2, 0, 1, 0])
Y_SCORE = np.array([0.5, 0.5, 0.5, 0.9, 0.1, 0.5])
QID = np.array(["q1"] * 6)
# pytrec_eval 0.5 (trec_eval 9.0.7) on these six lines: ndcg, map, P_5, recip_rank
TREC_EVAL = {"ndcg": 0.5567228048966132, "map": 0.41111111111111115, "P@5": 0.4,
             "mrr": 1 / 3}


def test_docno_ranks_ties_as_trec_eval_does():
    got = evaluate(Y_TRUE, Y_SCORE, qid=QID, docno=DOCNO, metrics=list(TREC_EVAL),
                   convention="trec_eval")
    assert got == pytest.approx(TREC_EVAL, rel=1e-12)
    # whatever the row order
    for seed in range(5):
        order = np.random.default_rng(seed).permutation(len(QID))
        again = evaluate(Y_TRUE[order], Y_SCORE[order], qid=QID[order], docno=DOCNO[order],
                         metrics=list(TREC_EVAL), convention="trec_eval")
        assert again == got


def test_docno_matches_pytrec_eval_on_random_tied_queries():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(3)
    n = 400
    qid = rng.integers(0, 20, n).astype(str)
    docno = np.array([f"doc{i:03d}" for i in rng.permutation(n)])
    y_true = rng.integers(0, 3, n)
    y_score = rng.integers(0, 4, n).astype(float)  # many ties, in a random row order
    qrels, run = {}, {}
    for q, d, y, s in zip(qid, docno, y_true, y_score):
        qrels.setdefault(q, {})[d] = int(y)
        run.setdefault(q, {})[d] = float(s)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut_10", "map", "P_5", "recip_rank"}).evaluate(run)
    got = evaluate_per_query(y_true, y_score, qid=qid, docno=docno, convention="trec_eval",
                             metrics=["ndcg@10", "map", "P@5", "mrr"])
    for name, measure in [("ndcg@10", "ndcg_cut_10"), ("map", "map"), ("P@5", "P_5"),
                          ("mrr", "recip_rank")]:
        want = [expected[str(q)][measure] for q in got.query_ids]
        np.testing.assert_allclose(got[name], want, rtol=0, atol=1e-12, err_msg=name)


def test_trec_eval_convention_warns_when_row_order_decides():
    with pytest.warns(TiedScoresWarning, match=r"1 query \('q1'\).*Pass docno=") as record:
        got = evaluate(Y_TRUE, Y_SCORE, qid=QID, metrics=["ndcg"], convention="trec_eval")
    assert record[0].filename == __file__  # at the caller
    assert record[0].message.query_ids == ("q1",)
    assert got["ndcg"] != pytest.approx(TREC_EVAL["ndcg"])  # the row order's number
    with pytest.warns(TiedScoresWarning):
        ndcg_score(Y_TRUE, Y_SCORE, qid=QID, convention="trec_eval")


@pytest.mark.parametrize("call", [
    # names: the order is trec_eval's
    lambda: evaluate(Y_TRUE, Y_SCORE, qid=QID, docno=DOCNO, convention="trec_eval"),
    # row order asked for
    lambda: evaluate(Y_TRUE, Y_SCORE, qid=QID, ties="stable", convention="trec_eval"),
    # LightGBM and XGBoost do rank ties in row order
    lambda: evaluate(Y_TRUE, Y_SCORE, qid=QID, convention="lightgbm"),
    # ERR is no trec_eval measure: averaged ties under the preset
    lambda: evaluate(Y_TRUE, Y_SCORE, qid=QID, metrics=["err@10"], convention="trec_eval"),
    # ties among documents of one grade change nothing
    lambda: evaluate([1, 1, 0], [0.5, 0.5, 0.1], qid=[1, 1, 1], convention="trec_eval"),
    # ties between a retrieved document and one that is not ranked do not count
    lambda: evaluate([1, 0, 1], [0.5, 0.2, 0.5], qid=[1, 1, 1], convention="trec_eval",
                     retrieved=[True, True, False]),
])
def test_no_warning_where_the_row_order_decides_nothing_or_was_asked_for(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call()


@pytest.mark.parametrize("name", sorted(get_metric_names()))
def test_every_metric_function_takes_docno(name):
    metric, _ = parse_metric(name)
    order = np.array([5, 3, 0, 2, 4, 1])
    kwargs = {"k": 4} if "k" in metric.options else {}
    first = metric.function(Y_TRUE, Y_SCORE, qid=QID, docno=DOCNO, **kwargs,
                            **({"ties": "stable"} if "ties" in metric.options else {}),
                            return_per_query=True)
    second = metric.function(Y_TRUE[order], Y_SCORE[order], qid=QID[order],
                             docno=DOCNO[order], **kwargs,
                             **({"ties": "stable"} if "ties" in metric.options else {}),
                             return_per_query=True)
    assert_array_equal(first, second)


def test_docno_is_compared_as_text():
    # trec_eval's strcmp: "10" < "9", so 9 comes first among tied documents
    y_true, y_score, qid = [0, 1], [0.5, 0.5], [1, 1]
    as_text = ndcg_score(y_true, y_score, qid=qid, docno=["9", "10"], ties="stable")
    assert ndcg_score(y_true, y_score, qid=qid, docno=[9, 10], ties="stable") == as_text
    assert ndcg_score(y_true, y_score, qid=qid, docno=[b"9", b"10"], ties="stable") == as_text
    assert as_text < 1.0  # "9" (grade 0) first
    with pytest.raises(ValueError, match="docno must name every document.*row 1"):
        ndcg_score(y_true, y_score, qid=qid, docno=np.array(["a", None], dtype=object))
    with pytest.raises(ValueError, match="docno has 3"):
        ndcg_score(y_true, y_score, qid=qid, docno=["a", "b", "c"])


def test_docno_with_dask_inputs():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"y": Y_TRUE, "s": Y_SCORE, "q": QID, "d": DOCNO})
    ddf = dd.from_pandas(frame, npartitions=2)
    got = evaluate(ddf["y"], ddf["s"], qid=ddf["q"], docno=ddf["d"], metrics=list(TREC_EVAL),
                   convention="trec_eval")
    assert got == pytest.approx(TREC_EVAL, rel=1e-12)


# ------------------------------------------------------------------------------------------
# The command line


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "scores.csv"
    rows = ["qid,docno,label,score"] + [f"{q},{d},{y},{s}" for q, d, y, s in
                                        zip(QID, DOCNO, Y_TRUE, Y_SCORE)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_cli_docno_column_gives_trec_eval_s_values(capsys, table):
    code, out, err = run_cli(capsys, "evaluate", "--table", table, "--docno-column", "docno",
                             "--convention", "trec_eval", "--metrics", "ndcg", "map", "P@5",
                             "mrr", "--format", "json")
    assert code == 0, err
    assert err == ""
    assert json.loads(out)["metrics"] == pytest.approx(TREC_EVAL, rel=1e-12)


def test_cli_warns_without_docno_column(capsys, table):
    code, out, err = run_cli(capsys, "evaluate", "--table", table, "--convention", "trec_eval",
                             "--metrics", "ndcg")
    assert code == 0
    assert err.startswith("sklearn-rank evaluate: warning: in 1 query ('q1'), documents of "
                          "different grades have equal scores.")
    assert "--docno-column" in err and "Traceback" not in err
    # the default conventions average the ties: nothing to say
    code, out, err = run_cli(capsys, "evaluate", "--table", table, "--metrics", "ndcg")
    assert code == 0 and err == ""


def test_cli_docno_column_errors(capsys, table, tmp_path):
    code, _, err = run_cli(capsys, "evaluate", "--table", table, "--docno-column", "doc")
    assert code == 1
    assert "has no column 'doc'" in one_line_error(err, "evaluate")
    assert "--docno-column" in err
    code, _, err = run_cli(capsys, "evaluate", "--table", table, "--docno-column", "qid")
    assert code == 1 and "--qid-column and --docno-column both name the column 'qid'" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("qid,docno,label,score\nq1,,1,0.5\n")
    code, _, err = run_cli(capsys, "evaluate", "--table", empty, "--docno-column", "docno")
    assert code == 1 and "line 2: column 'docno' is empty; every row needs a document name" in err
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text("q1 Q0 a 1 0.5 s\n")
    qrels.write_text("q1 0 a 1\n")
    code, _, err = run_cli(capsys, "evaluate", "--run", run, "--qrels", qrels,
                           "--docno-column", "docno")
    assert code == 2 and "--docno-column names the document-name column of --table" in err


def test_cli_docno_column_of_a_parquet_directory(capsys, tmp_path):
    pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"qid": QID, "docno": DOCNO, "label": Y_TRUE, "score": Y_SCORE})
    folder = tmp_path / "scores"
    folder.mkdir()
    frame.iloc[:3].to_parquet(folder / "a.parquet")
    frame.iloc[3:].to_parquet(folder / "b.parquet")
    arguments = ["evaluate", "--table", folder, "--convention", "trec_eval", "--metrics",
                 "ndcg", "map", "P@5", "mrr", "--format", "json"]
    code, out, err = run_cli(capsys, *arguments, "--docno-column", "docno")
    assert code == 0 and err == ""
    assert json.loads(out)["metrics"] == pytest.approx(TREC_EVAL, rel=1e-12)
    code, out, err = run_cli(capsys, *arguments)
    assert code == 0
    assert err.count("warning: in 1 query ('q1')") == 1 and "--docno-column" in err
