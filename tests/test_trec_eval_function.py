"""sklearn_rank.metrics.trec_eval: trec_eval's numbers without the command line.

The function computes what ``sklearn-rank trec_eval`` prints: on NIST's fixtures, its
numbers printed as trec_eval prints them are trec_eval's lines; on generated files, they are
the command's lines, flag for flag, and the metric functions' values on read_trec's arrays.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest
from _cli import run_cli

from sklearn_rank.datasets import read_trec
from sklearn_rank.metrics import TrecEvalResult, evaluate_per_query, trec_eval

FIXTURES = Path(__file__).parents[1].parent / "shared" / "data" / "trec_eval-test"

# trec_eval's expected output -> (qrels, run, -m arguments, keywords), from its Makefile
OUTPUTS = {
    "out.test.aq": ("qrels.test", "results.test", ["all_trec"], {}),
    "out.test.aql": ("qrels.rel_level", "results.test", ["all_trec", "relstring.20"],
                     {"relevance_level": 2}),
    "out.test.aqc": ("qrels.test", "results.trunc", ["all_trec"], {"complete": True}),
    "out.test.aqcM": ("qrels.test", "results.trunc", ["all_trec"],
                      {"complete": True, "max_docs": 100}),
    "out.test.meas_params": ("qrels.test", "results.test", [
        "iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
        "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
        "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"], {}),
}


def printed(value):
    """A value as trec_eval prints it."""
    if isinstance(value, float):
        return f"{value:6.4f}"
    if isinstance(value, str):
        return value
    return str(value)


def lines_of(result, per_query=True):
    """``[(measure, query, printed value)]`` of a result, in trec_eval's order."""
    lines = []
    if per_query:
        for i, query in enumerate(result.query_ids.tolist()):
            for name, values in result.per_query.items():
                value = values[i].item()
                lines.append((name, query, f"'{value}'" if name.startswith("relstring")
                              else printed(value)))
    lines += [(name, "all", printed(value)) for name, value in result.summary.items()]
    return lines


@pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"trec_eval fixtures not at {FIXTURES}")
@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_trec_evals_own_fixtures(output):
    qrels, run, measures, keywords = OUTPUTS[output]
    result = trec_eval(FIXTURES / qrels, FIXTURES / run, measures=measures, **keywords)
    expected = [tuple(field.strip() for field in line.split("\t"))
                for line in (FIXTURES / output).read_text().splitlines()]
    assert lines_of(result) == expected


def write_files(folder, seed):
    """A qrels and a run with what trec_eval treats specially: ties of scores, documents
    outside the pool, in the pool unjudged (-1), grades 0 to 3, a judged query without
    run lines, a run query without judgements, one without relevant documents."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(12):
        qid = f"{q:03d}" if q != 5 else "7"
        docs = [f"d{d}" for d in rng.choice(60, size=rng.integers(5, 30), replace=False)]
        for doc in docs:
            grade = 0 if q == 3 else int(rng.choice([-1, 0, 0, 1, 2, 3]))
            qrels.append(f"{qid} 0 {doc} {grade}")
        if q == 9:
            continue
        for rank, d in enumerate(rng.choice(60, size=rng.integers(1, 40), replace=False)):
            run.append(f"{qid} Q0 d{d} {rank + 1} {rng.integers(0, 8) / 4} tag{seed}")
    run.append(f"999 Q0 d1 1 1.0 tag{seed}")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    return folder / "qrels", folder / "run"


FLAGS = [
    ([], {}),
    (["-c"], {"complete": True}),
    (["-l", "0"], {"relevance_level": 0}),
    (["-l", "2", "-J"], {"relevance_level": 2, "judged_only": True}),
    (["-c", "-M", "5", "-N", "100"], {"complete": True, "max_docs": 5,
                                     "collection_size": 100}),
    (["--recall-rounding", "legacy"], {"recall_rounding": "legacy"}),
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("flags, keywords", FLAGS, ids=[" ".join(f[0]) or "-" for f in FLAGS])
def test_the_commands_numbers(tmp_path, capsys, seed, flags, keywords):
    qrels, run = write_files(tmp_path, seed)
    measures = ["all_trec", "relstring.7", "yaap"]
    code, out, _ = run_cli(capsys, "trec_eval", "-q", *[a for m in measures for a in ("-m", m)],
                           *flags, qrels, run)
    assert code == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # judged query 009 has no run line
        result = trec_eval(qrels, run, measures=measures, **keywords)
    got = [tuple(field.strip() for field in line.split("\t")) for line in out.splitlines()]
    assert lines_of(result) == got
    assert result.summary["runid"] == f"tag{seed}"
    assert result.run_only_queries.tolist() == ["999"]
    assert result.qrels_only_queries.tolist() == ["009"]
    assert ("009" in result.query_ids) == keywords.get("complete", False)


def test_values_are_the_metric_functions(tmp_path):
    qrels, run = write_files(tmp_path, 2)
    with pytest.warns(UserWarning, match="have no line in the run") as record:
        result = trec_eval(str(qrels), str(run), measures=["map", "P.5", "ndcg_cut.10"])
    assert record[0].filename == __file__  # the warning points at the call
    with pytest.warns(UserWarning, match="have no line in the run"):
        data = read_trec(qrels, run)
    assert isinstance(result, TrecEvalResult) and list(result.summary) == [
        "map", "P_5", "ndcg_cut_10"]
    expected = evaluate_per_query(data["y_true"], data["y_score"], qid=data["qid"],
                                  retrieved=data["retrieved"], judged="y_true",
                                  docno=data["docno"], metrics=["map", "P_5", "ndcg_cut_10"],
                                  convention="trec_eval")
    for name in ["map", "P_5", "ndcg_cut_10"]:
        np.testing.assert_allclose(result.per_query[name], np.asarray(expected[name]),
                                   rtol=0, atol=1e-12)
        assert result.summary[name] == pytest.approx(np.mean(result.per_query[name]))


def test_measures_as_one_string_and_default(tmp_path):
    qrels, run = write_files(tmp_path, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert list(trec_eval(qrels, run, measures="P.5").summary) == ["P_5"]
        official = trec_eval(qrels, run)
    assert list(official.summary)[:3] == ["runid", "num_q", "num_ret"]
    assert "gm_map" in official.summary and "gm_map" not in official.per_query


@pytest.mark.parametrize("keywords, parameter, message", [
    ({"measures": ["P.0"]}, "measures", "cut-offs must be positive"),
    ({"measures": ["ideal_dcg"]}, "measures", "ideal_dcg"),
    ({"measures": ["utility.1,-1,0,0.5"]}, "collection_size",
     "give collection_size"),
    ({"measures": [5]}, "measures", "measures: expected trec_eval measure names"),
])
def test_wrong_measures_name_the_parameter(tmp_path, keywords, parameter, message):
    qrels, run = write_files(tmp_path, 0)
    with pytest.raises(ValueError, match=message) as info:
        trec_eval(qrels, run, **keywords)
    assert info.value.parameter == parameter


@pytest.mark.parametrize("keywords, message", [
    ({"relevance_level": -1}, "'relevance_level' parameter of trec_eval must be"),
    ({"max_docs": 1.5}, "'max_docs' parameter of trec_eval must be"),
    ({"judged_only": "yes"}, "'judged_only' parameter of trec_eval must be"),
    ({"recall_rounding": "floor"}, "'recall_rounding' parameter of trec_eval must be"),
    ({"measures": None}, "'measures' parameter of trec_eval must be"),
])
def test_wrong_options_name_the_parameter(tmp_path, keywords, message):
    qrels, run = write_files(tmp_path, 0)
    with pytest.raises(ValueError, match=message):
        trec_eval(qrels, run, **keywords)


def test_wrong_files_name_the_parameter(tmp_path):
    qrels, run = write_files(tmp_path, 0)
    (tmp_path / "other").write_text("555 Q0 d1 1 1.0 t\n")
    with pytest.raises(ValueError, match="no query of run .* is judged in qrels") as info, \
            pytest.warns(UserWarning, match="have no line in the run"):
        trec_eval(qrels, tmp_path / "other")
    assert info.value.parameter == "run"
    (tmp_path / "half").write_text("1 0 a 1.5\n")
    (tmp_path / "one").write_text("1 Q0 a 1 1.0 t\n")
    with pytest.raises(ValueError, match="gives document 'a' of query '1' the grade 1.5") as info:
        trec_eval(tmp_path / "half", tmp_path / "one")
    assert info.value.parameter == "qrels"
    with pytest.raises(FileNotFoundError):
        trec_eval(tmp_path / "absent", run)


def test_errors_are_worded_with_a_callers_names(tmp_path):
    """A TrecEvalError says which parameter failed in attributes, and words its message with
    a caller's names of the parameters (the command line's flags), from the structure, not
    by rewriting the text; pickled, it keeps them."""
    import pickle

    from sklearn_rank.metrics import TrecEvalError

    flags = {"measures": "-m", "collection_size": "-N", "run": "RUN", "qrels": "QRELS"}
    qrels, run = write_files(tmp_path, 0)
    (tmp_path / "other").write_text("555 Q0 d1 1 1.0 t\n")
    (tmp_path / "half").write_text("1 0 a 1.5\n")
    (tmp_path / "one").write_text("1 Q0 a 1 1.0 t\n")
    cases = [
        ((qrels, run), {"measures": ["utility.1,-1,0,0.5"]}, "collection_size",
         "measures: utility_1,-1,0,0.5 counts the non-relevant documents not retrieved, which "
         "needs the number of documents in the collection: give collection_size (trec_eval "
         "counts a collection of 0 documents without it).",
         "-m: utility_1,-1,0,0.5 counts the non-relevant documents not retrieved, which "
         "needs the number of documents in the collection: give -N (trec_eval "
         "counts a collection of 0 documents without it)."),
        ((qrels, tmp_path / "other"), {}, "run",
         f"no query of run {str(tmp_path / 'other')!r} is judged in qrels {str(qrels)!r}: ",
         f"no query of RUN {str(tmp_path / 'other')!r} is judged in QRELS {str(qrels)!r}: "),
        ((tmp_path / "half", tmp_path / "one"), {}, "qrels",
         f"qrels {str(tmp_path / 'half')!r} gives document 'a' of query '1' the grade 1.5, "
         "and 0 other",
         f"QRELS {str(tmp_path / 'half')!r} gives document 'a' of query '1' the grade 1.5, "
         "and 0 other"),
        ((qrels, run), {"measures": [5]}, "measures",
         "measures: expected trec_eval measure names (str), got 5 of type int.",
         "-m: expected trec_eval measure names (str), got 5 of type int."),
    ]
    for files, keywords, parameter, python, command in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # judged queries the run lacks
            with pytest.raises(TrecEvalError) as info:
                trec_eval(*files, **keywords)
        error = info.value
        assert isinstance(error, ValueError) and error.parameter == parameter
        assert str(error).startswith(python) and error.describe().startswith(python)
        assert error.describe(flags).startswith(command)
        copy = pickle.loads(pickle.dumps(error))
        assert (type(copy), str(copy), copy.parameter) == (TrecEvalError, str(error), parameter)
        assert copy.describe(flags) == error.describe(flags)
