"""sklearn-rank against trec_eval itself, on random qrels and runs.

pytrec_eval is trec_eval's C code compiled for Python. Random judgements and runs (ties in the
scores, retrieved documents that the qrels do not list, -1 judgements, queries without
relevant documents, queries in one file only, lists of one document) are written as TREC files,
read by :func:`sklearn_rank.datasets.read_trec` and evaluated by
:func:`sklearn_rank.metrics.evaluate_per_query` under trec_eval's own measure names. Every
per-query value and every value over queries must equal pytrec_eval's to 1e-9, with and
without trec_eval's -c, -M, -l 2 and -J.

pytrec_eval has no -c, -M or aggregation of its own, so this file supplies them from
trec_eval's code:

- -M: the run is cut to each query's first documents, in trec_eval's order (score
  descending, document name descending), before pytrec_eval sees it;
- -c: trec_eval.c evaluates a judged query missing from the run on a ranking of one document
  outside the pool ("ceci_nest_pas_un_docno"), then sets its num_ret, utility, unj and
  rbp_resid to 0; pytrec_eval is given that ranking and the same values are reset;
- the value over queries: ``pytrec_eval.compute_aggregated_measure`` (sum of the counts,
  geometric mean of gm_map and gm_bpref, the mean of the others), over the evaluated queries.

pytrec_eval 0.5 embeds a trec_eval of version 9 or before, which turned a recall level into a
number of relevant documents as ``(long)(level * R + 0.9)``; trec_eval 10 rounds it
(``lround``; m_iprec_at_recall.c and m_11pt_avg.c say so), and its test fixtures print that.
For iprec_at_recall and 11pt_avg the oracle is therefore their definition, computed here from
the judgements of trec_eval's ranked list: with the rule of version 9 it must give
pytrec_eval's values, with that of version 10 it is trec_eval's value.

pytrec_eval holds scores as float32: the random scores are exact in float32, so that both
sides see the same ties. Every measure that pytrec_eval computes and that sklearn-rank names
is compared; :func:`test_every_pytrec_eval_measure_is_compared` lists the others.
"""

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sklearn_rank.datasets import read_trec
from sklearn_rank.metrics import aggregate, evaluate_per_query, parse_metric

pytrec_eval = pytest.importorskip("pytrec_eval")

FIXTURES = Path(__file__).parents[1].parent / "shared" / "data" / "trec_eval-test"

# Every measure of pytrec_eval with trec_eval's default parameters, and the cut-offs, recall
# levels and multipliers that short lists need to tell measures apart (trec_eval's defaults
# start at 5 documents).
MEASURE_REQUESTS = [
    sorted(pytrec_eval.supported_measures - {"runid", "relstring"}),
    ["P.1,2,3", "map_cut.1,2,3", "ndcg_cut.1,2,3", "recall.1,2,3", "success.2,3",
     "relative_P.1,2,3", "iprec_at_recall.0.25,0.33,0.67", "Rprec_mult.0.5,1.5"],
]
# Measures whose one parameter is not in the printed name: requested alone, renamed.
RENAMED_REQUESTS = {"set_F.0.5": ("set_F", "set_F_0.5"), "set_F.2": ("set_F", "set_F_2")}
# trec_eval 10's interpolated precision differs from pytrec_eval's (see above).
RECALL_LEVELS = {f"iprec_at_recall_{level:.2f}": level for level in (
    0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.25, 0.33, 0.67)}
ELEVEN_POINTS = [i / 10 for i in range(11)]
# trec_eval.c sets these to 0 for a judged query missing from the run (-c), after computing
# them on its one-document ranking.
RESET_FOR_MISSING = ("num_ret", "utility", "unj", "rbp_resid")
BOGUS_DOCNO = "ceci_nest_pas_un_docno"
# trec_eval's floor of the geometric mean (gm_map, gm_bpref): pytrec_eval gives per query
# the logarithm of the value, floored.
GEOMETRIC_FLOOR = 1e-5
TOLERANCE = 1e-9

QUERY_IDS = ["1", "2", "3", "10", "q7"]  # "10" sorts before "2", as strcmp sorts
DOC_IDS = [f"d{i}" for i in range(24)] + ["D1", "e"]
SCORES = [-2.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 3.0]  # exact in float32; ties are frequent
GRADES = [-1, 0, 0, 1, 1, 2, 3]


def pytrec_measures(qrels, run, relevance_level=1, judged_docs_only=False):
    """pytrec_eval's values, per query, of every requested measure."""
    values = {}
    requests = [(request, None) for request in MEASURE_REQUESTS]
    requests += [([request], names) for request, names in RENAMED_REQUESTS.items()]
    for request, names in requests:
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, request, relevance_level=relevance_level,
            judged_docs_only_flag=judged_docs_only)
        for query, measures in evaluator.evaluate(run).items():
            if names is not None:
                measures = {names[1]: measures[names[0]]}
            values.setdefault(query, {}).update(measures)
    return values


def ranked_judgements(judged, scores, max_docs, judged_docs_only):
    """trec_eval's ranked list of one query (form_res_rels.c): the judgement of each
    retrieved document by score descending then document name descending, the first
    ``max_docs``; None outside the pool; without the unjudged ones with -J."""
    ranked = sorted(scores, key=lambda docno: (scores[docno], docno), reverse=True)
    judgements = [judged.get(docno) for docno in ranked[:max_docs]]
    if judged_docs_only:
        judgements = [j for j in judgements if j is not None and j >= 0]
    return judgements


def lround(x):
    """C's lround of a non-negative number: halves away from zero."""
    whole = math.floor(x)
    return whole + (x - whole >= 0.5)


def interpolated_precision(judgements, n_relevant, relevance_level, recall, rounding):
    """Interpolated precision at a recall level (trec_eval's iprec_at_recall): the largest
    precision at or after the rank of the relevant document that reaches ``recall`` of the
    ``n_relevant`` ones, ``rounding`` turning the level into a number of documents; 0 when
    the ranking does not reach it; NaN (trec_eval's 0/0) for an empty ranking."""
    relevant = [j is not None and j >= relevance_level for j in judgements]
    needed = rounding(recall * n_relevant)
    if needed > sum(relevant):
        return 0.0
    if not judgements:
        return math.nan
    found = np.cumsum(relevant)
    precision = found / np.arange(1, len(relevant) + 1)
    start = int(np.searchsorted(found, needed)) if needed else 0
    return float(precision[start:].max())


def interpolated_precisions(qrels, run, *, complete, max_docs, relevance_level,
                            judged_docs_only, rounding):
    """Per query, iprec_at_recall at :data:`RECALL_LEVELS` and 11pt_avg."""
    values = {}
    queries = set(qrels) if complete else set(qrels) & set(run)
    for query in queries:
        scores = run.get(query, {BOGUS_DOCNO: 1.0})  # -c: trec_eval's ranking of one
        judgements = ranked_judgements(qrels[query], scores, max_docs, judged_docs_only)
        n_relevant = sum(g >= relevance_level for g in qrels[query].values())
        precision = {level: interpolated_precision(judgements, n_relevant, relevance_level,
                                                   level, rounding)
                     for level in {*RECALL_LEVELS.values(), *ELEVEN_POINTS}}
        values[query] = {name: precision[level] for name, level in RECALL_LEVELS.items()}
        values[query]["11pt_avg"] = sum(precision[level] for level in ELEVEN_POINTS) / 11
    return values


def _measure_names():
    """The names that pytrec_eval prints, and those that sklearn-rank does not know."""
    printed = pytrec_measures({"1": {"a": 1, "b": 0}}, {"1": {"a": 1.0, "c": 0.5}})["1"]
    known, missing = [], []
    for name in sorted(printed):
        try:
            parse_metric(name)
        except ValueError:
            missing.append(name)
        else:
            known.append(name)
    return known, missing


KNOWN, MISSING = _measure_names()


def trec_eval_values(qrels, run, *, complete, max_docs, relevance_level, judged_docs_only,
                     version=10):
    """trec_eval's per-query values, with -c and -M emulated as trec_eval does them.

    ``version=9``: pytrec_eval's own iprec_at_recall and 11pt_avg, those of trec_eval 9.
    """
    full_run = run
    if max_docs is not None:
        run = {query: dict(sorted(docs.items(), key=lambda item: (item[1], item[0]),
                                  reverse=True)[:max_docs])
               for query, docs in run.items()}
    options = {"relevance_level": relevance_level, "judged_docs_only": judged_docs_only}
    values = pytrec_measures(qrels, run, **options)
    if complete:
        missing = {query: {BOGUS_DOCNO: 1.0} for query in qrels if query not in run}
        for query, measures in pytrec_measures(qrels, missing, **options).items():
            for name in measures:
                if name.startswith(RESET_FOR_MISSING):
                    measures[name] = 0.0
            values[query] = measures
    if version == 10:
        precisions = interpolated_precisions(
            qrels, full_run, complete=complete, max_docs=max_docs, rounding=lround,
            relevance_level=relevance_level, judged_docs_only=judged_docs_only)
        for query, measures in precisions.items():
            values[query].update(measures)
    return values


def value_over_queries(name, values):
    """trec_eval's value over queries, as pytrec_eval aggregates it."""
    return pytrec_eval.compute_aggregated_measure(name, values)


def write_files(folder, qrels, run, order):
    """The qrels and the run as TREC files, their lines shuffled by ``order``."""
    qrels_lines = [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()]
    run_lines = [f"{q} Q0 {d} {rank} {s!r} oracle\n" for q, docs in run.items()
                 for rank, (d, s) in enumerate(docs.items(), 1)]
    (folder / "qrels").write_text("".join(qrels_lines[i % len(qrels_lines)]
                                          for i in order(len(qrels_lines))))
    (folder / "run").write_text("".join(run_lines[i % len(run_lines)]
                                        for i in order(len(run_lines))))
    return folder / "qrels", folder / "run"


@st.composite
def collections(draw):
    """Random qrels and run dicts: queries judged, run, or both."""
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))
    qrels, run = {}, {}
    for query in queries:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=16,
                                 unique=True))
            qrels[query] = {d: draw(st.sampled_from(GRADES)) for d in docs}
            if max(qrels[query].values()) < 0:
                # trec_eval reads an unset number of relevance levels (form_res_rels.c) when
                # a query has no judgement >= 0: pytrec_eval crashes or loops
                qrels[query][docs[0]] = 0
        if side != "qrels":
            docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=24,
                                 unique=True))
            run[query] = {d: draw(st.sampled_from(SCORES)) for d in docs}
    assume(set(qrels) & set(run))  # else trec_eval stops: no query to evaluate
    return qrels, run


def check_against_trec_eval(folder, qrels, run, order, *, complete, max_docs,
                            relevance_level, judged_docs_only):
    qrels_path, run_path = write_files(folder, qrels, run, order)
    with warnings.catch_warnings():
        # the warning of the judged queries without a run, which -c leaves out
        warnings.filterwarnings("ignore", ".* judged quer.* have no line in the run",
                                UserWarning)
        d = read_trec(qrels_path, run_path, complete=complete, max_docs=max_docs)
    result = evaluate_per_query(
        d["y_true"], d["y_score"], qid=d["qid"], retrieved=d["retrieved"], judged="y_true",
        docno=d["docno"], metrics=KNOWN, convention="trec_eval",
        relevance_threshold=relevance_level,
        unjudged="condensed" if judged_docs_only else "nonrelevant")
    means = aggregate(result)
    expected = trec_eval_values(qrels, run, complete=complete, max_docs=max_docs,
                                relevance_level=relevance_level,
                                judged_docs_only=judged_docs_only)
    queries = result.query_ids.tolist()
    assert queries == sorted(expected)
    wrong = []
    for name in KNOWN:
        ours = np.asarray(result[name], dtype=float)
        theirs = np.array([expected[q][name] for q in queries])
        if name.startswith("gm_"):  # pytrec_eval's logarithm of the floored value
            ours, theirs = np.maximum(ours, GEOMETRIC_FLOOR), np.exp(theirs)
        # trec_eval's iprec_at_recall divides 0 by 0 on an empty ranking (-J with every
        # retrieved document unjudged): NaN, which sklearn-rank may give as 0
        undefined = np.isnan(theirs) & (np.isnan(ours) | (ours == 0))
        theirs = np.where(undefined, ours, theirs)
        close = np.abs(ours - theirs) <= TOLERANCE * np.maximum(1, np.abs(theirs))
        close |= np.isnan(ours) & np.isnan(theirs)
        for i in np.flatnonzero(~close):
            wrong.append(f"{name} of query {queries[i]!r}: {ours[i]!r}, trec_eval "
                         f"{theirs[i]!r}")
        per_query = [expected[q][name] for q in queries]
        if undefined.any():
            per_query = np.where(undefined, ours, per_query).tolist()
        mean = value_over_queries(name, per_query)
        if not (math.isclose(means[name], mean, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
                or (math.isnan(means[name]) and math.isnan(mean))):
            wrong.append(f"{name} over queries: {means[name]!r}, trec_eval {mean!r}")
    assert not wrong, "\n".join(wrong)


def orders():
    """A permutation of the lines of a file: shuffled, reversed or as written."""
    return st.sampled_from(["as written", "reversed", "shuffled"]).flatmap(
        lambda how: st.randoms(use_true_random=False).map(
            lambda random: (lambda n: _order(how, n, random))))


def _order(how, n, random):
    if how == "as written":
        return range(n)
    if how == "reversed":
        return range(n - 1, -1, -1)
    return random.sample(range(n), n)


SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The folder of the TREC files of every example, which writes both files anew: a folder
    per example (``tmp_path_factory.mktemp``) scans every folder made before it, quadratic
    over the 5,300 examples of this file."""
    return tmp_path_factory.mktemp("oracle")


def _property(collection, order, complete, max_docs, relevance_level, judged_docs_only,
              folder):
    qrels, run = collection
    check_against_trec_eval(folder, qrels, run, order,
                            complete=complete, max_docs=max_docs,
                            relevance_level=relevance_level,
                            judged_docs_only=judged_docs_only)


OPTIONS = {
    "collection": collections(),
    "order": orders(),
    "complete": st.booleans(),
    "max_docs": st.sampled_from([None, None, 1, 2, 3, 5]),
    "relevance_level": st.sampled_from([1, 2]),
    "judged_docs_only": st.booleans(),
}


@settings(max_examples=300, **SETTINGS)
@given(**OPTIONS)
def test_every_measure_as_trec_eval(folder, collection, order, complete, max_docs,
                                    relevance_level, judged_docs_only):
    _property(collection, order, complete, max_docs, relevance_level, judged_docs_only,
              folder)


# The long run: 5,000 examples in 10 parts of 500 (15-20 s of CPU each), so that pytest
# reports its progress part by part instead of minutes of silence. Each part draws its own
# examples (Hypothesis seeds each test afresh), unless --hypothesis-seed gives all one seed.
@pytest.mark.slow
@pytest.mark.parametrize("part", range(10))
@settings(max_examples=500, **SETTINGS)
@given(**OPTIONS)
def test_every_measure_as_trec_eval_long_run(part, folder, collection, order,
                                             complete, max_docs, relevance_level,
                                             judged_docs_only):
    _property(collection, order, complete, max_docs, relevance_level, judged_docs_only,
              folder)


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("max_docs", [None, 2])
@pytest.mark.parametrize("relevance_level", [1, 2])
@pytest.mark.parametrize("judged_docs_only", [False, True])
def test_each_flag_on_a_fixed_collection(tmp_path, complete, max_docs, relevance_level,
                                         judged_docs_only):
    # every case of the random ones at once: ties (d3/d4/d5 of query 1), documents outside
    # the pool (x, y), -1 judgements, a query without relevant documents (2), one judged
    # but absent from the run (3), one run but not judged (4), a one-document ranking (5)
    qrels = {
        "1": {"d1": 2, "d2": 0, "d3": 1, "d4": -1, "d5": 3, "d9": 1},
        "2": {"d1": 0, "d2": 0, "d3": -1},
        "3": {"d1": 1, "d2": 2},
        "5": {"d1": 1, "d2": 1},
    }
    run = {
        "1": {"d1": 0.5, "d2": 1.5, "d3": 1.0, "d4": 1.0, "d5": 1.0, "x": 3.0, "d7": -0.5},
        "2": {"d1": 0.25, "y": 0.25, "d3": 0.0},
        "4": {"d1": 1.0},
        "5": {"d2": 0.0},
    }
    check_against_trec_eval(tmp_path, qrels, run, range, complete=complete,
                            max_docs=max_docs, relevance_level=relevance_level,
                            judged_docs_only=judged_docs_only)


def test_every_pytrec_eval_measure_is_compared():
    """The measures that pytrec_eval computes and sklearn-rank does not name yet."""
    assert len(KNOWN) + len(MISSING) > 100  # trec_eval's measures with their parameters
    assert {"map", "ndcg", "Rprec", "recip_rank"} <= set(KNOWN)
    if MISSING:
        pytest.skip(f"not compared, sklearn-rank does not name them ({len(MISSING)}): "
                    + ", ".join(MISSING))


def test_the_emulation_of_c_and_M_is_trec_eval():
    """The -c and -M of this file, on trec_eval's own fixtures, print what trec_eval
    printed (out.test.aqc: -c; out.test.aqcM: -c -M100; results.trunc misses query 302)."""
    if not FIXTURES.is_dir():
        pytest.skip(f"trec_eval fixtures not found at {FIXTURES}")
    qrels, run = {}, {}
    for line in (FIXTURES / "qrels.test").read_text().splitlines():
        query, _, docno, grade = line.split()
        qrels.setdefault(query, {})[docno] = int(grade)
    for line in (FIXTURES / "results.trunc").read_text().splitlines():
        query, _, docno, _, score = line.split()[:5]
        run.setdefault(query, {})[docno] = float(score)
    for output, max_docs in (("out.test.aqc", None), ("out.test.aqcM", 100)):
        values = trec_eval_values(qrels, run, complete=True, max_docs=max_docs,
                                  relevance_level=1, judged_docs_only=False)
        assert sorted(values) == ["301", "302", "303"]
        n_compared = 0
        for line in (FIXTURES / output).read_text().splitlines():
            name, query, printed = (field.strip() for field in line.split("\t"))
            if name not in values["301"] or name.startswith(("runid", "relstring")):
                continue
            if query == "all":
                value = value_over_queries(name, [values[q][name] for q in sorted(values)])
            else:
                value = values[query][name]
                if name.startswith("gm_"):
                    value = math.exp(value)
            assert abs(value - float(printed)) <= 5e-5 + 1e-12, (output, name, query)
            n_compared += 1
        assert n_compared > 300  # 93 measures, for 3 queries and "all"


@settings(max_examples=200, **SETTINGS)
@given(collection=collections(), complete=st.booleans(),
       max_docs=st.sampled_from([None, 1, 2, 3]), relevance_level=st.sampled_from([1, 2]),
       judged_docs_only=st.booleans())
def test_interpolated_precision_of_version_9_is_pytrec_eval(collection, complete, max_docs,
                                                            relevance_level,
                                                            judged_docs_only):
    """The definition of iprec_at_recall and 11pt_avg used above, with trec_eval 9's
    rounding, gives pytrec_eval's values: what it computes with trec_eval 10's is trec_eval
    10's value (test_the_emulation_of_c_and_M_is_trec_eval checks it on the fixtures)."""
    qrels, run = collection
    options = {"complete": complete, "max_docs": max_docs,
               "relevance_level": relevance_level, "judged_docs_only": judged_docs_only}
    ours = interpolated_precisions(qrels, run, rounding=lambda x: int(x + 0.9), **options)
    theirs = trec_eval_values(qrels, run, version=9, **options)
    assert sorted(ours) == sorted(theirs)
    for query, values in ours.items():
        for name, value in values.items():
            expected = theirs[query][name]
            assert value == pytest.approx(expected, abs=1e-12, nan_ok=True), (query, name)
