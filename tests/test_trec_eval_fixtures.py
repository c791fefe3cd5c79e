"""trec_eval's own test fixtures, reproduced with ``convention="trec_eval"``.

NIST's trec_eval ships a run, its judgements and the output it prints for them. Every
per-query value and every ``all`` value of the measures that sklearn-rank defines (MAP,
MAP@k, P@k, recall@k, nDCG, nDCG@k, reciprocal rank, R-precision, success@k) must agree
with the printed value to its 4 decimals. The fixtures come from
https://github.com/usnistgov/trec_eval (``test/``), courtesy of NIST; they are read from
``../shared/data`` and never copied into this repository.

trec_eval ranks a query's documents by score, descending, then by document name,
descending; the rows are built in that order so that ``ties="stable"`` (set by the preset)
reproduces it. Judged documents that the run did not retrieve are rows with
``retrieved=False``: they count in R and in the ideal DCG.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import metrics

FIXTURES = Path(__file__).parents[1].parent / "shared" / "data" / "trec_eval-test"
if not FIXTURES.is_dir():
    pytest.skip(f"trec_eval fixtures not found at {FIXTURES}", allow_module_level=True)

# Printed to 4 decimals: the exact value is within half a unit of the last place.
TOLERANCE = 5e-5 + 1e-12

# name of the expected output -> (qrels, run, options of the trec_eval command line).
# Commands from trec_eval's Makefile (quicktest):
#   out.test.aq          -m all_trec -q qrels.test results.test
#   out.test.aql         -m all_trec -q -l2 qrels.rel_level results.test
#   out.test.aqc         -m all_trec -q -c qrels.test results.trunc
#   out.test.meas_params -q -m P.5,7,3 -m recall.20,2000 -mndcg_cut.10,20,23.4
#                           -msuccess.2,5,20 ... qrels.test results.test
# The last field is -c: evaluate every judged query, also those absent from the run.
OUTPUTS = {
    "out.test.aq": ("qrels.test", "results.test", {}, False),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_threshold": 2}, False),
    "out.test.aqc": ("qrels.test", "results.trunc", {}, True),
    "out.test.meas_params": ("qrels.test", "results.test", {}, False),
}

# trec_eval measure name -> (sklearn-rank function, whether it takes the cut-off k).
MEASURES = {
    r"map": ("map_score", False),
    r"map_cut_(\d+)": ("map_score", True),
    r"P_(\d+)": ("precision_score", True),
    r"recall_(\d+)": ("recall_score", True),
    r"ndcg": ("ndcg_score", False),
    r"ndcg_cut_(\d+)": ("ndcg_score", True),
    r"recip_rank": ("mrr_score", False),
    r"Rprec": ("r_precision_score", False),
    r"success_(\d+)": ("hit_rate_score", True),
}


def parse_measure(name):
    """The sklearn-rank function name and keywords computing a trec_eval measure."""
    for pattern, (function, has_k) in MEASURES.items():
        match = re.fullmatch(pattern, name)
        if match:
            return function, {"k": int(match.group(1))} if has_k else {}
    return None


def read_qrels(path):
    qrels = {}
    for line in path.read_text().splitlines():
        qid, _, docno, rel = line.split()
        qrels.setdefault(qid, {})[docno] = int(rel)
    return qrels


def read_run(path):
    run = {}
    for line in path.read_text().splitlines():
        # Fields after the run tag are free text, which trec_eval ignores.
        qid, _, docno, _, score = line.split()[:5]
        run.setdefault(qid, {})[docno] = float(score)
    return run


def read_expected(path):
    """{measure: {qid or "all": value}} for the measures that sklearn-rank defines."""
    expected = {}
    for line in path.read_text().splitlines():
        name, qid, value = (field.strip() for field in line.split("\t"))
        if parse_measure(name) is not None:
            expected.setdefault(name, {})[qid] = float(value)
    return expected


def flat_arrays(qrels, run, all_judged_queries=False):
    """One row per judged or retrieved (qid, docno), in trec_eval's ranking order.

    A query's retrieved documents come first, by score descending then document name
    descending (trec_eval's order, which ``ties="stable"`` keeps); its judged but
    unretrieved documents follow with ``retrieved=False``. Negative judgements are 0.
    Like trec_eval, only judged queries are evaluated, and only those of the run unless
    ``all_judged_queries`` (trec_eval -c).
    """
    queries = set(qrels) if all_judged_queries else set(qrels) & set(run)
    y_true, y_score, qid, retrieved = [], [], [], []
    for query in sorted(queries):
        judged = qrels.get(query, {})
        scores = run.get(query, {})
        ranked = sorted(scores, key=lambda docno: (scores[docno], docno), reverse=True)
        unretrieved = sorted(set(judged) - set(scores))
        for docno in ranked + unretrieved:
            y_true.append(max(judged.get(docno, 0), 0))
            y_score.append(scores.get(docno, 0.0))
            qid.append(query)
            retrieved.append(docno in scores)
    return {
        "y_true": np.asarray(y_true, dtype=float),
        "y_score": np.asarray(y_score),
        "qid": np.asarray(qid),
        "retrieved": np.asarray(retrieved),
    }


def _cases():
    cases = []
    for output in OUTPUTS:
        for measure in read_expected(FIXTURES / output):
            cases.append(pytest.param(output, measure, id=f"{output[9:]}-{measure}"))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def inputs():
    """Flat arrays and options for every expected output, built once."""
    built = {}
    for output, (qrels_name, run_name, options, all_judged_queries) in OUTPUTS.items():
        qrels = read_qrels(FIXTURES / qrels_name)
        run = read_run(FIXTURES / run_name)
        data = flat_arrays(qrels, run, all_judged_queries)
        built[output] = (data, options, read_expected(FIXTURES / output))
    return built


@pytest.mark.parametrize("output, measure", CASES)
def test_trec_eval_value(inputs, output, measure):
    data, options, expected = inputs[output]
    function_name, measure_options = parse_measure(measure)
    function = getattr(metrics, function_name)
    if function_name == "ndcg_score":
        # -l does not touch nDCG: its gains are the judgements themselves.
        options = {}
    arguments = dict(data, **options, **measure_options, convention="trec_eval")
    per_query = function(**arguments, return_per_query=True)
    mean = function(**arguments)

    queries = list(np.unique(data["qid"]))
    expected_values = expected[measure]
    assert sorted(expected_values) == sorted(queries + ["all"])
    for query, value in zip(queries, per_query):
        assert abs(value - expected_values[query]) <= TOLERANCE, (query, value)
    assert abs(mean - expected_values["all"]) <= TOLERANCE, ("all", mean)


def test_number_of_compared_values():
    """Every printed value of the measures above is compared: 4 per measure and output."""
    n_values = sum(
        len(values)
        for output in OUTPUTS
        for values in read_expected(FIXTURES / output).values()
    )
    # aq, aql and aqc print 43 of these measures each (map, 9 map_cut, 9 P, 9 recall,
    # ndcg, 9 ndcg_cut, recip_rank, Rprec, 3 success); meas_params 11 (3 P, 2 recall,
    # 3 ndcg_cut, 3 success); each for 3 queries and "all".
    assert len(CASES) == 3 * 43 + 11
    assert n_values == 4 * len(CASES) == 560


def test_fixture_rows_follow_trec_eval_tie_break():
    # results.test has tied scores: within a tie the larger document name comes first.
    data = flat_arrays(
        read_qrels(FIXTURES / "qrels.test"), read_run(FIXTURES / "results.test")
    )
    run = read_run(FIXTURES / "results.test")
    n_ties = 0
    previous = None
    for query, score, is_retrieved in zip(data["qid"], data["y_score"], data["retrieved"]):
        if not is_retrieved:
            continue
        if previous is not None and previous[0] == query:
            assert score <= previous[1]
            n_ties += score == previous[1]
        previous = (query, score)
    assert n_ties > 0
    assert sum(len(docs) for docs in run.values()) == data["retrieved"].sum() == 1500


@pytest.mark.parametrize("output", ["out.test.aq", "out.test.aql", "out.test.aqc"])
def test_rbp_preset_is_trec_eval_rbp(inputs, output):
    # trec_eval's rbp (m_rbp.c) is graded: each judgement divided by the query's largest
    # one, with p = 0.9. out.test.aql's graded judgements (0-4) tell it from binary RBP, and
    # its -l2 does not apply to rbp. convention="trec_eval" sets all three options.
    data, _, _ = inputs[output]
    expected = {}
    for line in (FIXTURES / output).read_text().splitlines():
        name, qid, value = (field.strip() for field in line.split("\t"))
        if name == "rbp":
            expected[qid] = float(value)
    per_query = metrics.rbp_score(**data, convention="trec_eval", return_per_query=True)
    queries = list(np.unique(data["qid"]))
    assert sorted(expected) == sorted(queries + ["all"])
    for query, value in zip(queries, per_query):
        assert abs(value - expected[query]) <= TOLERANCE, (query, value)
    mean = metrics.evaluate(**data, metrics=["rbp"], convention="trec_eval")["rbp"]
    assert abs(mean - expected["all"]) <= TOLERANCE
    # without the preset, sklearn-rank's own defaults (binary, p = 0.8) give another number
    if output == "out.test.aql":
        assert abs(metrics.rbp_score(**data) - expected["all"]) > 0.01
