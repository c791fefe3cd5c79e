"""trec_eval's own test fixtures, reproduced with ``convention="trec_eval"``.

NIST's trec_eval ships a run, its judgements and the output it prints for them. Every
per-query value and every ``all`` value of every measure that sklearn-rank names (the
registry's names and trec_eval's, see :func:`sklearn_rank.metrics.parse_metric`) must agree
with the printed value to its 4 decimals; the measures it does not name yet are listed by
:func:`test_every_printed_measure_is_compared`. The fixtures come from
https://github.com/usnistgov/trec_eval (``test/``), courtesy of NIST; they are read from
``../shared/data`` and never copied into this repository.

trec_eval ranks a query's documents by score, descending, then by document name,
descending; the rows are built in that order so that ``ties="stable"`` (set by the preset)
reproduces it. Judged documents that the run did not retrieve are rows with
``retrieved=False``: they count in R and in the ideal DCG. ``y_true`` is NaN for a retrieved
document that the qrels do not list and the qrels' -1 for a document in the pool left
unjudged, which ``judged="y_true"`` reads. The rows are built here from the files with
dicts, independently of :func:`sklearn_rank.datasets.read_trec`, which must build the same.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import metrics
from sklearn_rank.datasets import read_trec
from sklearn_rank.metrics import parse_metric

FIXTURES = Path(__file__).parents[1].parent / "shared" / "data" / "trec_eval-test"
if not FIXTURES.is_dir():
    pytest.skip(f"trec_eval fixtures not found at {FIXTURES}", allow_module_level=True)

# Printed to 4 decimals: the exact value is within half a unit of the last place.
TOLERANCE = 5e-5 + 1e-12

# name of the expected output -> (qrels, run, relevance level -l, -c, -M).
# Commands from trec_eval's Makefile (quicktest):
#   out.test.aq          -m all_trec -q qrels.test results.test
#   out.test.aql         -m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test
#   out.test.aqc         -m all_trec -q -c qrels.test results.trunc
#   out.test.aqcM        -m all_trec -q -c -M100 qrels.test results.trunc
#   out.test.meas_params -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3
#                           -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0
#                           -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5
#                           -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test
# -c evaluates every judged query, also those absent from the run; -M keeps the first
# documents of each query.
OUTPUTS = {
    "out.test.aq": ("qrels.test", "results.test", None, False, None),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, False, None),
    "out.test.aqc": ("qrels.test", "results.trunc", None, True, None),
    "out.test.aqcM": ("qrels.test", "results.trunc", None, True, 100),
    "out.test.meas_params": ("qrels.test", "results.test", None, False, None),
}

# Printed lines that are not numbers.
NOT_NUMBERS = {"runid", "relstring"}

# The measures compared since before trec_eval's names came: they must stay compared.
# trec_eval name -> sklearn-rank function and whether it takes the cut-off k.
LEGACY = {
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


def legacy_measure(name):
    """The sklearn-rank function name and keywords of a legacy trec_eval measure, or None."""
    for pattern, (function, has_k) in LEGACY.items():
        match = re.fullmatch(pattern, name)
        if match:
            return function, {"k": int(match.group(1))} if has_k else {}
    return None


def metric_name(printed):
    """The printed name of a measure (trec_eval prints its parameters: ``P_10``,
    ``ndcg_1=3,2=9,4=4.5``), or None when sklearn-rank does not know it."""
    try:
        parse_metric(printed)
    except ValueError:
        return None
    return printed


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
    """{measure: {qid or "all": value}} of the numeric lines of a trec_eval output."""
    expected = {}
    for line in path.read_text().splitlines():
        name, qid, value = (field.strip() for field in line.split("\t"))
        if name.split("_")[0] not in NOT_NUMBERS:
            expected.setdefault(name, {})[qid] = float(value)
    return expected


def flat_arrays(qrels, run, complete=False, max_docs=None):
    """One row per judged or retrieved (qid, docno), in trec_eval's ranking order.

    A query's retrieved documents come first, by score descending then document name
    descending (trec_eval's order, which ``ties="stable"`` keeps), the first ``max_docs``
    of them (trec_eval -M); its judged but unretrieved documents follow with
    ``retrieved=False``. ``y_true`` is the judgement, NaN for a retrieved document without
    one. Like trec_eval, only judged queries are evaluated, and only those of the run
    unless ``complete`` (trec_eval -c).
    """
    queries = set(qrels) if complete else set(qrels) & set(run)
    y_true, y_score, qid, retrieved, docnos = [], [], [], [], []
    for query in sorted(queries):
        judged = qrels.get(query, {})
        scores = run.get(query, {})
        ranked = sorted(scores, key=lambda docno: (scores[docno], docno), reverse=True)
        ranked = ranked[:max_docs]
        unretrieved = sorted(set(judged) - set(ranked), reverse=True)
        for docno in ranked + unretrieved:
            y_true.append(judged.get(docno, np.nan))
            y_score.append(scores[docno] if docno in ranked else -np.inf)
            qid.append(query)
            retrieved.append(docno in ranked)
            docnos.append(docno)
    return {
        "y_true": np.asarray(y_true, dtype=float),
        "y_score": np.asarray(y_score),
        "qid": np.asarray(qid),
        "retrieved": np.asarray(retrieved),
        "docno": np.asarray(docnos),
    }


def _cases():
    cases, missing = [], {}
    for output in OUTPUTS:
        for measure in read_expected(FIXTURES / output):
            if metric_name(measure) is None and legacy_measure(measure) is None:
                missing.setdefault(measure, []).append(output)
                continue
            cases.append(pytest.param(output, measure, id=f"{output[9:]}-{measure}"))
    return cases, missing


CASES, MISSING = _cases()


@pytest.fixture(scope="module")
def inputs():
    """Flat arrays and options for every expected output, built once."""
    built = {}
    for output, (qrels_name, run_name, level, complete, max_docs) in OUTPUTS.items():
        qrels = read_qrels(FIXTURES / qrels_name)
        run = read_run(FIXTURES / run_name)
        data = flat_arrays(qrels, run, complete, max_docs)
        built[output] = (data, level, read_expected(FIXTURES / output))
    return built


def compute(data, output, measure, level):
    """Per-query values and the value over queries of a printed measure."""
    name = metric_name(measure)
    if name is None:  # not named yet by the registry: the function of before
        function_name, options = legacy_measure(measure)
        function = getattr(metrics, function_name)
        if level is not None and "relevance_threshold" in parse_metric(
                function_name.removesuffix("_score"))[0].option_names:
            options["relevance_threshold"] = level
        arguments = dict(data, judged="y_true", **options, convention="trec_eval")
        return function(**arguments, return_per_query=True), function(**arguments)
    metric, fixed = parse_metric(name)
    options = {}
    if (level is not None and "relevance_threshold" in metric.option_names
            and "relevance_threshold" not in fixed):
        options["relevance_threshold"] = level  # trec_eval -l
    arguments = dict(data, judged="y_true", metrics=[name], convention="trec_eval", **options)
    per_query = metrics.evaluate(**arguments, return_per_query=True)[name]
    return per_query, metrics.evaluate(**arguments)[name]


@pytest.mark.parametrize("output, measure", CASES)
def test_trec_eval_value(inputs, output, measure):
    data, level, expected = inputs[output]
    per_query, mean = compute(data, output, measure, level)
    queries = list(np.unique(data["qid"]))
    expected_values = expected[measure]
    printed = sorted(q for q in expected_values if q != "all")
    # trec_eval prints some measures (gm_map, num_q...) for "all" only
    assert printed in ([], queries), printed
    for query, value in zip(queries, per_query):
        if query in expected_values:
            assert abs(value - expected_values[query]) <= TOLERANCE, (query, value)
    assert abs(mean - expected_values["all"]) <= TOLERANCE, ("all", mean)


def test_every_printed_measure_is_compared():
    """The measures that trec_eval prints and sklearn-rank does not name yet."""
    if MISSING:
        pytest.skip("not compared, sklearn-rank does not name them: " + ", ".join(
            f"{measure} ({', '.join(outputs)})" for measure, outputs in sorted(MISSING.items())))


def test_number_of_compared_values():
    """Every printed value of the legacy measures is compared, and every case compares
    a value for each query and "all"."""
    compared = {(output, measure) for output, measure in (case.values for case in CASES)}
    legacy = {(output, measure) for output in OUTPUTS for measure in read_expected(
        FIXTURES / output) if legacy_measure(measure) is not None}
    assert legacy <= compared
    # aq, aql, aqc and aqcM print 43 legacy measures each (map, 9 map_cut, 9 P, 9 recall,
    # ndcg, 9 ndcg_cut, recip_rank, Rprec, 3 success); meas_params 11 (3 P, 2 recall,
    # 3 ndcg_cut, 3 success); each for 3 queries and "all".
    assert len(legacy) == 4 * 43 + 11
    n_values = sum(len(read_expected(FIXTURES / output)[measure])
                   for output, measure in legacy)
    assert n_values == 4 * len(legacy)


def test_read_trec_builds_the_same_rows():
    # the reader of the package and the dict-based construction above agree row for row
    for qrels_name, run_name, _, complete, max_docs in OUTPUTS.values():
        expected = flat_arrays(read_qrels(FIXTURES / qrels_name),
                               read_run(FIXTURES / run_name), complete, max_docs)
        d = read_trec(FIXTURES / qrels_name, FIXTURES / run_name, complete=complete,
                      max_docs=max_docs)
        for key, values in expected.items():
            np.testing.assert_array_equal(d[key], values, err_msg=key)


def test_fixture_rows_follow_trec_eval_tie_break():
    # results.test has tied scores: within a tie the larger document name comes first.
    data = flat_arrays(
        read_qrels(FIXTURES / "qrels.test"), read_run(FIXTURES / "results.test")
    )
    run = read_run(FIXTURES / "results.test")
    n_ties = 0
    previous = None
    for query, score, docno, is_retrieved in zip(data["qid"], data["y_score"],
                                                 data["docno"], data["retrieved"]):
        if not is_retrieved:
            continue
        if previous is not None and previous[0] == query:
            assert score <= previous[1]
            if score == previous[1]:
                n_ties += 1
                assert docno < previous[2]
        previous = (query, score, docno)
    assert n_ties > 0
    assert sum(len(docs) for docs in run.values()) == data["retrieved"].sum() == 1500


@pytest.mark.parametrize("output", ["out.test.aq", "out.test.aql", "out.test.aqc"])
def test_rbp_preset_is_trec_eval_rbp(inputs, output):
    # trec_eval's rbp (m_rbp.c) is graded: each judgement divided by the query's largest
    # one, with p = 0.9. out.test.aql's graded judgements (0-4) tell it from binary RBP, and
    # its -l2 does not apply to rbp. convention="trec_eval" sets all three options.
    data, _, expected = inputs[output]
    expected = expected["rbp"]
    per_query = metrics.rbp_score(**data, judged="y_true", convention="trec_eval",
                                  return_per_query=True)
    queries = list(np.unique(data["qid"]))
    assert sorted(expected) == sorted(queries + ["all"])
    for query, value in zip(queries, per_query):
        assert abs(value - expected[query]) <= TOLERANCE, (query, value)
    mean = metrics.evaluate(**data, judged="y_true", metrics=["rbp"],
                            convention="trec_eval")["rbp"]
    assert abs(mean - expected["all"]) <= TOLERANCE
    # without the preset, sklearn-rank's own defaults (binary, p = 0.8) give another number
    if output == "out.test.aql":
        assert abs(metrics.rbp_score(**data, judged="y_true") - expected["all"]) > 0.01
