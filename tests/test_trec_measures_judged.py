"""The measures for incomplete judgements, sets and counts against trec_eval.

trec_eval compiled (pytrec_eval) is the oracle of every measure it has: bpref, gm_bpref, infAP,
set_P, set_recall, set_F, set_map, set_relative_P, relative_P, num_*, utility, on random qrels
and runs built as trec_eval's dicts and turned into flat arrays here (ties, documents outside
the qrels, qrels of -1, queries without relevant documents, relevance levels above 1,
``judged_docs_only_flag``). trec_eval's own test fixtures check rbp_resid and unj, which
pytrec_eval lacks. ir_measures and ranx are the oracles of Judged@k and F1@k. Small cases are
worked by hand, the slow references of ``tests/_brute_force_judged.py`` check
``ties="average"`` on every ordering of tied documents, and hypothesis checks invariances.
"""

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from _brute_force import orderings
from _brute_force_judged import AGGREGATIONS, GRID, RANKED_METRICS, aggregate, defined
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.exceptions import UndefinedMetricWarning
from test_trec_eval_fixtures import read_qrels, read_run

from sklearn_rank.metrics import evaluate, map_score, rbp_score
from sklearn_rank.metrics._names import parse_metric
from sklearn_rank.metrics._registry import METRICS

pytrec_eval = pytest.importorskip("pytrec_eval")

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_eval-test"
TOL = 1e-9
SCORES = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0]  # exact in float32, which pytrec_eval keeps
M1 = ["bpref", "gm_bpref", "infap", "judged", "unjudged_rate", "rbp_residual", "set_p",
      "set_recall", "set_f", "set_map", "set_relative_p", "relative_p", "num_ret", "num_rel",
      "num_rel_ret", "num_nonrel_judged_ret", "num_q", "utility", "fallout", "f1"]


def score(name, *args, **kwargs):
    """The public function of ``name`` (read from the module that defines it), on one query
    (``qid="single_query"``) unless ``qid`` is given: the tests by hand take one query."""
    kwargs.setdefault("qid", "single_query")
    return METRICS[name].function(*args, **kwargs)


# --------------------------------------------------------------------------------------
# trec_eval's dicts and the flat arrays
# --------------------------------------------------------------------------------------
def random_trec(seed, n_queries=8):
    """Random qrels and run as pytrec_eval takes them.

    Per query: documents judged 0-3, judged -1 (in the pool, unjudged) or absent from the
    qrels; a run returning some of the judged documents and some absent ones, with scores
    from a handful of values (ties); some queries without a relevant document; queries only
    in the qrels or only in the run, which trec_eval leaves out.
    """
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        n = int(rng.integers(1, 12))
        docs = [f"d{int(i):03d}" for i in rng.choice(200, n, replace=False)]
        kind = rng.random(n)
        grades = rng.integers(0, 4, n) if rng.random() > 0.2 else np.zeros(n, dtype=int)
        judged = {d: int(g) for d, g, c in zip(docs, grades, kind) if c < 0.6}
        judged.update({d: -1 for d, c in zip(docs, kind) if 0.6 <= c < 0.75})
        retrieved = [d for d in docs if rng.random() < 0.8]
        if rng.random() > 0.1 and judged:
            qrels[qid] = judged
        if rng.random() > 0.1 and retrieved:
            run[qid] = {d: float(rng.choice(SCORES)) for d in retrieved}
    return qrels, run


def flat(qrels, run, *, depth=None, complete=False):
    """The flat arrays of the queries in both (trec_eval without -c), in trec_eval's order.

    Retrieved documents by decreasing score, ties by decreasing docno (so that
    ``ties="stable"`` is trec_eval's order), keeping the first ``depth`` (``-M``); then the
    judged documents not retrieved. ``y_true``: the qrels grade, NaN outside the qrels.
    ``complete`` keeps the queries of the qrels without a run too (``-c``).
    """
    rows = []
    for qid in sorted(set(qrels) if complete else set(qrels) & set(run)):
        ranked = sorted(run.get(qid, {}).items(), key=lambda item: (item[1], item[0]),
                        reverse=True)
        ranked = ranked[:depth]
        for doc, s in ranked:
            rows.append((qid, qrels[qid].get(doc, math.nan), s, True))
        returned = {doc for doc, _ in ranked}
        for doc, grade in sorted(qrels[qid].items()):
            if doc not in returned:
                rows.append((qid, grade, 0.0, False))
    qid, y_true, y_score, retrieved = (np.array(column) for column in zip(*rows))
    return {"y_true": y_true.astype(float), "y_score": y_score.astype(float), "qid": qid,
            "retrieved": retrieved.astype(bool), "judged": "y_true"}


def trec_eval(qrels, run, measures, **flags):
    """pytrec_eval's per-query values: {measure: {qid: value}}."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, **flags)
    out = {}
    for qid, values in evaluator.evaluate(run).items():
        for measure, value in values.items():
            out.setdefault(measure, {})[qid] = value
    return out


def per_query(name, data, **options):
    """Our per-query values as {qid: value}."""
    values = score(name, **data, **options, return_per_query=True)
    return dict(zip(np.unique(data["qid"]).tolist(), values.tolist()))


def assert_close(got, expected, label):
    assert got.keys() == expected.keys(), label
    for qid in expected:
        assert got[qid] == pytest.approx(expected[qid], abs=TOL, rel=TOL), (label, qid)


# name -> (trec_eval measure, our options)
TREC_MEASURES = {
    "bpref": ("bpref", {}),
    "infap": ("infAP", {}),
    "set_p": ("set_P", {}),
    "set_recall": ("set_recall", {}),
    "set_f": ("set_F", {}),
    "set_map": ("set_map", {}),
    "set_relative_p": ("set_relative_P", {}),
    "num_ret": ("num_ret", {}),
    "num_rel": ("num_rel", {}),
    "num_rel_ret": ("num_rel_ret", {}),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", {}),
    "num_q": ("num_q", {}),
    # trec_eval's N (num_docs_in_coll) is 0 without -N
    "utility": ("utility", {"collection_size": 0}),
}
# options that take no relevance level
NO_THRESHOLD = ("num_ret", "num_q")


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_measures_match_trec_eval(seed, judged_only, level):
    qrels, run = random_trec(seed)
    data = flat(qrels, run)
    expected = trec_eval(qrels, run, {m for m, _ in TREC_MEASURES.values()}
                         | {"gm_bpref", "relative_P.1,2,3,5,20"},
                         relevance_level=level, judged_docs_only_flag=judged_only)
    common = {"ties": "stable", "unjudged": "condensed" if judged_only else "nonrelevant"}
    for name, (measure, options) in TREC_MEASURES.items():
        options = {**options, **common}
        if "ties" not in METRICS[name].options:
            del options["ties"]
        if name not in NO_THRESHOLD:
            options["relevance_threshold"] = level
        assert_close(per_query(name, data, **options), expected[measure], (name, options))
    # gm_bpref: trec_eval prints log(max(bpref, 1e-5)) per query, and exp of their mean
    bpref = per_query("gm_bpref", data, relevance_threshold=level, **common)
    assert_close({q: math.log(max(v, 1e-5)) for q, v in bpref.items()}, expected["gm_bpref"],
                 "gm_bpref")
    mean = score("gm_bpref", **data, relevance_threshold=level, **common)
    assert mean == pytest.approx(math.exp(np.mean(list(expected["gm_bpref"].values()))),
                                 rel=1e-12)
    for k in (1, 2, 3, 5, 20):
        got = per_query("relative_p", data, k=k, relevance_threshold=level, **common)
        assert_close(got, expected[f"relative_P_{k}"], ("relative_P", k))


@pytest.mark.parametrize("seed", range(3))
def test_parameters_match_trec_eval(seed):
    # set_F.x weighs recall by x = beta**2; utility.a,b,c,d with -N (pytrec_eval has no -N:
    # its num_docs_in_coll is 0)
    qrels, run = random_trec(seed + 100)
    data = flat(qrels, run)
    for x in (0.25, 2.0):
        expected = trec_eval(qrels, run, {f"set_F.{x}"})["set_F"]
        assert_close(per_query("set_f", data, beta=math.sqrt(x)), expected, x)


# --------------------------------------------------------------------------------------
# trec_eval's test fixtures: rbp_resid and unj (pytrec_eval has neither), and the others
# --------------------------------------------------------------------------------------
def read_output(path):
    """trec_eval -q's lines: {(measure, qid): printed value}."""
    out = {}
    for line in path.read_text().splitlines():
        measure, qid, value = (part.strip() for part in line.split("\t"))
        out[measure, qid] = value
    return out


def printed(value, measure):
    """A value as trec_eval prints it: counts as integers, the others with 4 decimals."""
    if re.fullmatch(r"num_\w+", measure):
        return str(round(value))
    return f"{value:.4f}"


# trec_eval's name -> (our name, options)
FIXTURE_MEASURES = {
    "num_q": ("num_q", {}),
    "num_ret": ("num_ret", {}),
    "num_rel": ("num_rel", {}),
    "num_rel_ret": ("num_rel_ret", {}),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", {}),
    "bpref": ("bpref", {"ties": "stable"}),
    "gm_bpref": ("gm_bpref", {"ties": "stable"}),
    "infAP": ("infap", {"ties": "stable"}),
    "utility": ("utility", {"collection_size": 0}),
    "set_P": ("set_p", {}),
    "set_relative_P": ("set_relative_p", {}),
    "set_recall": ("set_recall", {}),
    "set_map": ("set_map", {}),
    "set_F": ("set_f", {}),
    "rbp_resid": ("rbp_residual", {"persistence": 0.9, "all_judged": "zero", "ties": "stable"}),
    **{f"relative_P_{k}": ("relative_p", {"k": k, "ties": "stable"})
       for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"unj_{k}": ("unjudged_rate", {"k": k, "ties": "stable"}) for k in (5, 10, 20)},
}
# fixture -> (qrels, run, -l, -c, -M)
FIXTURE_RUNS = {
    "out.test.aq": ("qrels.test", "results.test", 1, False, None),
    "out.test.aqc": ("qrels.test", "results.trunc", 1, True, None),
    "out.test.aqcM": ("qrels.test", "results.trunc", 1, True, 100),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, False, None),
}


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="trec_eval's fixtures are not in ../shared")
@pytest.mark.parametrize("fixture", list(FIXTURE_RUNS))
def test_measures_match_trec_eval_fixtures(fixture):
    qrels_file, run_file, level, complete, depth = FIXTURE_RUNS[fixture]
    data = flat(read_qrels(FIXTURES / qrels_file), read_run(FIXTURES / run_file),
                depth=depth, complete=complete)
    expected = read_output(FIXTURES / fixture)
    query_ids = np.unique(data["qid"]).tolist()
    checked = 0
    for measure, (name, options) in FIXTURE_MEASURES.items():
        if "relevance_threshold" in METRICS[name].options:
            options = {**options, "relevance_threshold": level}
        values = score(name, **data, **options, return_per_query=True)
        for qid, value in zip(query_ids, values):
            if (measure, qid) in expected:  # gm_bpref and num_q: "all" only
                assert printed(value, measure) == expected[measure, qid], (measure, qid)
                checked += 1
        total = score(name, **data, **options)
        assert printed(total, measure) == expected[measure, "all"], measure
    assert checked >= 3 * (len(FIXTURE_MEASURES) - 2)


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="trec_eval's fixtures are not in ../shared")
def test_utility_parameters_match_trec_eval_fixture():
    # -mutility.2,-1,0,0 (pytrec_eval cannot pass utility's four parameters)
    data = flat(read_qrels(FIXTURES / "qrels.test"), read_run(FIXTURES / "results.test"))
    expected = read_output(FIXTURES / "out.test.meas_params")
    got = score("utility", **data, relevant_retrieved=2, nonrelevant_retrieved=-1,
                relevant_missed=0, nonrelevant_missed=0, return_per_query=True)
    for qid, value in zip(np.unique(data["qid"]).tolist(), got):
        assert printed(value, "utility") == expected["utility_2,-1,0,0", qid]
    for name in ("utility(a=2,b=-1,c=0,d=0)", "utility(relevant_retrieved=2)"):
        metric, options = parse_metric(name)
        assert metric is METRICS["utility"] and options["relevant_retrieved"] == 2


# --------------------------------------------------------------------------------------
# ir_measures' Judged@k and ranx's f1@k
# --------------------------------------------------------------------------------------
def distinct_scores(run, seed):
    """The run with distinct scores: ir_measures and ranx break ties in orders of their own."""
    rng = np.random.default_rng(seed)
    return {qid: {doc: float(v) for doc, v in zip(docs, rng.permutation(len(docs)))}
            for qid, docs in run.items()}


@pytest.mark.parametrize("seed", range(4))
def test_judged_matches_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_trec(seed + 200)
    run = distinct_scores(run, seed)
    data = flat(qrels, run)
    # ir_measures counts every document of the qrels as judged, a -1 included; here a -1 is
    # in the pool but unjudged: ir_measures' value without the -1 lines is ours
    plain = {q: {d: g for d, g in docs.items() if g >= 0} for q, docs in qrels.items()}
    plain = {q: docs for q, docs in plain.items() if docs}
    for k in (None, 1, 3, 10, 50):
        measure = ir_measures.Judged if k is None else ir_measures.Judged @ k
        expected = {m.query_id: m.value for m in ir_measures.iter_calc([measure], plain, run)}
        got = per_query("judged", data, k=k)
        # queries of the qrels without a run: 0 there (trec_eval's -c), absent here
        assert all(expected.pop(q) == 0 for q in set(expected) - set(got))
        assert_close({q: v for q, v in got.items() if q in expected}, expected, k)
        # the queries that ir_measures leaves out have no judged document: 0 here
        assert all(v == 0 for q, v in got.items() if q not in expected)


# ranx's numba kernels warn about an integer cast when they are first compiled.
@pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")
@pytest.mark.parametrize("level", [1, 2])
def test_f1_matches_ranx(level):
    ranx = pytest.importorskip("ranx")
    qrels, run = random_trec(300)
    run = distinct_scores(run, 0)
    data = flat(qrels, run)
    # ranx needs judgements of 0 or more and a relevant document in every query
    plain = {q: {d: g for d, g in docs.items() if g >= 0} for q, docs in qrels.items()}
    kept = sorted(q for q in set(plain) & set(run) if max(plain[q].values(), default=0) >= level)
    assert len(kept) >= 3
    for k in (None, 1, 2, 5, 30):
        name = ("f1" if k is None else f"f1@{k}") + ("" if level == 1 else f"-l{level}")
        expected = ranx.evaluate(ranx.Qrels({q: plain[q] for q in kept}),
                                 ranx.Run({q: run[q] for q in kept}), name, return_mean=False)
        got = per_query("f1", data, k=k, relevance_threshold=level)
        assert_allclose([got[q] for q in kept], expected, rtol=TOL, atol=TOL, err_msg=name)


# --------------------------------------------------------------------------------------
# Hand-worked cases
# --------------------------------------------------------------------------------------
NAN = math.nan


def test_bpref_by_hand():
    # R = 2 relevant, N = 3 judged non-relevant (one not retrieved), one unjudged row:
    # ranked  N  R  u  N  R; the first R has 1 non-relevant above, the second 2
    y = [0, 1, NAN, 0, 1, 0]
    s = [5, 4, 3, 2, 1, 0]
    retrieved = [True] * 5 + [False]
    got = score("bpref", y, s, judged="y_true", retrieved=retrieved)
    assert got == pytest.approx(((1 - 1 / 2) + (1 - 2 / 2)) / 2, rel=1e-15)
    # N < R: the penalty is n / min(N, R) = n / N
    assert score("bpref", [0, 1, 1, 1], [4, 3, 2, 1]) == pytest.approx(0.0)
    assert score("bpref", [1, 0, 1, 1], [4, 3, 2, 1]) == pytest.approx(1 / 3)
    # ties: the relevant and non-relevant documents of a tied pair, each order with 1/2
    assert score("bpref", [1, 0], [1, 1]) == pytest.approx(0.5)
    assert score("bpref", [1, 0], [1, 1], ties="optimistic") == 1.0
    assert score("bpref", [1, 0], [1, 1], ties="pessimistic") == 0.0


def test_infap_by_hand():
    eps = 1e-5
    # every document judged: AP up to epsilon. R at 1 and 3: 1 + (1 + 2 (1 + e) / (2 + 2e)) / 3
    got = score("infap", [1, 0, 1], [3, 2, 1])
    assert got == pytest.approx((1 + (1 + 2 * (1 + eps) / (2 + 2 * eps)) / 3) / 2, rel=1e-14)
    # a pooled-but-unjudged (-1) and an out-of-pool (NaN) document above the second relevant
    # one: the first counts in the estimate's sample size, the second is non-relevant
    got = score("infap", [1, -1, NAN, 1], [4, 3, 2, 1], judged="y_true")
    assert got == pytest.approx((1 + (1 + 2 * (1 + eps) / (1 + 2 * eps)) / 4) / 2, rel=1e-14)
    # only an out-of-pool document above the relevant one: precision 1/2 at rank 2
    assert score("infap", [NAN, 1], [2, 1], judged="y_true") == pytest.approx(0.5, rel=1e-15)


def test_counts_and_sets_by_hand():
    # query 1: 3 retrieved (R, N, unjudged), a relevant one missed; query 2: nothing relevant
    y = [1, 0, NAN, 1, 0, 0]
    s = [3, 2, 1, 0, 2, 1]
    qid = [1, 1, 1, 1, 2, 2]
    retrieved = [True, True, True, False, True, True]
    data = {"y_true": y, "y_score": s, "qid": qid, "retrieved": retrieved, "judged": "y_true"}

    def both(name, **options):
        return score(name, **data, **options, return_per_query=True).tolist()

    assert both("num_ret") == [3, 2]
    assert both("num_rel") == [2, 0]
    assert both("num_rel_ret") == [1, 0]
    assert both("num_nonrel_judged_ret") == [1, 2]
    assert both("num_q") == [1, 1]
    assert score("num_ret", **data) == 5.0
    assert score("num_q", **data) == 2.0
    assert both("set_p") == [1 / 3, 0.0]
    assert both("set_recall") == [1 / 2, 0.0]
    assert both("set_map") == [1 / 6, 0.0]
    assert both("set_relative_p") == [1 / 2, 0.0]
    assert both("set_f") == pytest.approx([2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2), 0.0])
    assert both("set_f", beta=2.0) == pytest.approx([5 * (1 / 6) / (4 / 3 + 1 / 2), 0.0])
    assert both("set_f", beta=0.0) == pytest.approx([1 / 3, 0.0])  # precision
    # utility: a, b, c, d on (1 relevant retrieved, 2 others retrieved, 1 missed, 0 others)
    assert both("utility") == [1 - 2, -2]
    assert both("utility", relevant_retrieved=3, relevant_missed=-2) == [3 - 2 - 2, -2]
    # d counts the query's other rows (0 and 0 here), or the collection's size minus the rest
    assert both("utility", nonrelevant_missed=1) == [-1, -2]
    assert both("utility", nonrelevant_missed=1, collection_size=10) == [-1 + 6, -2 + 8]
    # a query without relevant documents is "undefined" for the rates of relevant documents
    assert np.isnan(both("set_p", no_relevant=np.nan)[1])
    assert both("num_rel_ret", no_relevant=1.0) == [1, 0]  # counts never are


def test_judgement_rates_by_hand():
    # ranked: judged, out of pool, pooled -1, judged; k beyond the list
    data = {"y_true": [2, NAN, -1, 0], "y_score": [4, 3, 2, 1], "judged": "y_true"}
    for k, judged, unjudged in [(1, 1, 0), (2, 1 / 2, 1 / 2), (3, 1 / 3, 2 / 3),
                                (None, 2 / 4, 2 / 4), (6, 2 / 4, 2 / 6)]:
        assert score("judged", **data, k=k) == pytest.approx(judged)
        assert score("unjudged_rate", **data, k=k) == pytest.approx(unjudged)
    # condensed lists have no unjudged document
    assert score("judged", **data, k=2, unjudged="condensed") == 1.0
    assert score("unjudged_rate", **data, k=2, unjudged="condensed") == 0.0
    # every row judged, or no row ranked
    assert score("judged", [0, 1], [1, 2], k=5) == 1.0
    assert score("unjudged_rate", [0, 1], [1, 2], k=5) == 0.0
    assert score("judged", [1, 0], [1, 2], retrieved=[False, False]) == 0.0


def test_rbp_residual_by_hand():
    p = 0.5
    data = {"y_true": [1, NAN, 0, -1], "y_score": [4, 3, 2, 1], "judged": "y_true"}
    # unjudged at ranks 2 and 4, the tail beyond them
    assert score("rbp_residual", **data, persistence=p) == pytest.approx(
        p**4 + (1 - p) * (p + p**3))
    assert score("rbp_residual", **data, persistence=p, k=2) == pytest.approx(
        p**2 + (1 - p) * p)
    # nothing unjudged in the top 1: the tail, or trec_eval's 0
    assert score("rbp_residual", **data, persistence=p, k=1) == pytest.approx(p)
    assert score("rbp_residual", **data, persistence=p, k=1, all_judged="zero") == 0.0
    assert score("rbp_residual", **data, persistence=p, k=2, all_judged="zero") == (
        pytest.approx(p**2 + (1 - p) * p))
    # ties: the unjudged document shares ranks 1-2 with a judged one
    tied = {"y_true": [1, NAN, 0], "y_score": [2, 2, 1], "judged": "y_true"}
    expected = p**3 + (1 - p) * (1 + p) / 2
    assert score("rbp_residual", **tied, persistence=p) == pytest.approx(expected)
    # all_judged="zero" at k=1: the unjudged member is first with probability 1/2
    assert score("rbp_residual", **tied, persistence=p, k=1, all_judged="zero") == (
        pytest.approx((p + (1 - p)) / 2))


@pytest.mark.parametrize("seed", range(3))
def test_rbp_residual_of_judged_lists_is_rbps(seed):
    # every document judged: the residual is p**depth, as rbp_score(return_residual=True)
    rng = np.random.default_rng(seed)
    y, s = rng.integers(0, 3, 30), rng.choice(SCORES, 30)
    qid = rng.integers(0, 5, 30)
    retrieved = rng.random(30) < 0.8
    for k in (None, 2, 7):
        _, expected = rbp_score(y, s, qid=qid, k=k, persistence=0.7, retrieved=retrieved,
                                return_residual=True, return_per_query=True)
        got = score("rbp_residual", y, s, qid=qid, k=k, persistence=0.7, retrieved=retrieved,
                    return_per_query=True)
        assert_allclose(got, expected, rtol=1e-15, atol=0)


def test_fallout_and_f1_and_relative_p_by_hand():
    # ranked R N u N R, one judged non-relevant and one relevant document not retrieved
    data = {"y_true": [1, 0, NAN, 0, 1, 0, 1], "y_score": [7, 6, 5, 4, 3, 0, 0],
            "retrieved": [True] * 5 + [False] * 2, "judged": "y_true"}
    for k, fallout in [(1, 0), (2, 1 / 3), (3, 1 / 3), (4, 2 / 3), (None, 2 / 3)]:
        assert score("fallout", **data, k=k) == pytest.approx(fallout)
    # condensed: u leaves the top 3 to the second non-relevant document
    assert score("fallout", **data, k=3, unjudged="condensed") == pytest.approx(2 / 3)
    # no judged non-relevant document: undefined
    assert np.isnan(score("fallout", [1, NAN], [2, 1], judged="y_true", no_relevant=np.nan,
                          return_per_query=True)).all()
    with pytest.raises(ValueError, match="without a judged non-relevant document"):
        score("fallout", [1, NAN], [2, 1], judged="y_true", no_relevant="raise")
    # f1@k = 2 hits / (k + R), R = 3
    for k, hits in [(1, 1), (2, 1), (5, 2), (10, 2)]:
        assert score("f1", **data, k=k) == pytest.approx(2 * hits / (k + 3))
    assert score("f1", **data) == pytest.approx(2 * 2 / (5 + 3))
    # relative_P@k = hits / min(k, R)
    for k, hits in [(1, 1), (2, 1), (3, 1), (5, 2), (10, 2)]:
        assert score("relative_p", **data, k=k) == pytest.approx(hits / min(k, 3))
    assert score("relative_p", **data) == score("set_relative_p", **data)


# --------------------------------------------------------------------------------------
# The slow references, on every ordering of tied documents
# --------------------------------------------------------------------------------------
def judged_case(seed, max_queries=4):
    """Small queries with every judgement state and many ties, as flat arrays."""
    rng = np.random.default_rng(seed)
    labels = np.array([0.0, 0.0, 1.0, 2.0, 3.0, NAN, -1.0])
    y, s, q, retrieved = [], [], [], []
    for query in range(int(rng.integers(1, max_queries + 1))):
        n = int(rng.integers(1, 8))
        y.extend(rng.choice(labels, n))
        s.extend(rng.choice([0.0, 1.0, 1.0, 2.0], n))
        q.extend([query * 3 + 1] * n)
        retrieved.extend(rng.random(n) < 0.85)
    order = rng.permutation(len(y))
    return {"y_true": np.array(y)[order], "y_score": np.array(s)[order],
            "qid": np.array(q)[order], "retrieved": np.array(retrieved)[order],
            "sample_weight": rng.uniform(0.5, 2.0, len(y))[order]}


def reference(name, case, *, ties, no_relevant, unjudged="nonrelevant", k=None, **options):
    """Per-query values and their aggregate, from the slow formulas."""
    formula = RANKED_METRICS[name]
    if "k" in METRICS[name].options:
        options = {**options, "k": k}
    values, weights = [], []
    for query in np.unique(case["qid"]):
        rows = np.flatnonzero(case["qid"] == query)
        everything = case["y_true"][rows].tolist()
        ranked_rows = rows[case["retrieved"][rows]]
        labels = case["y_true"][ranked_rows].tolist()
        if unjudged == "condensed":
            keep = [label == label and label >= 0 for label in labels]
            ranked_rows, labels = ranked_rows[keep], [v for v, x in zip(labels, keep) if x]
        scores = case["y_score"][ranked_rows].tolist()
        # the engine breaks optimistic and pessimistic ties by grade, unjudged ones at 0
        grades = [v if v == v and v >= 0 else 0.0 for v in labels]
        value = 0.0
        for order, probability in orderings(grades, scores, ties):
            value += probability * formula([labels[i] for i in order], everything, **options)
        threshold = {"relevance_threshold": options.get("relevance_threshold", 1)}
        values.append(value if defined(name, everything, **threshold) else no_relevant)
        weights.append(case["sample_weight"][rows].mean())
    return np.array(values), aggregate(name, values, weights)


CASES = [judged_case(seed) for seed in range(8)]
# every tie rule for the measures of a ranking; the set measures do not take one
BRUTE_FORCE = [(name, options, ties) for name, options in GRID
               for ties in (("average", "stable", "optimistic", "pessimistic")
                            if "ties" in METRICS[name].options else (None,))]


@pytest.mark.parametrize("unjudged", ["nonrelevant", "condensed"])
@pytest.mark.parametrize("name, options, ties", BRUTE_FORCE,
                         ids=[f"{n}{o}-{t}".replace(" ", "") for n, o, t in BRUTE_FORCE])
def test_measures_match_brute_force(name, options, ties, unjudged):
    ranked = ties is not None
    ks = (None, 1, 2, 3, 5, 9) if "k" in METRICS[name].options else (None,)
    for i, case in enumerate(CASES):
        no_relevant = (0.0, np.nan)[i % 2]  # both policies, on every other case
        for k in ks:
            extra = {"k": k} if k is not None else {}
            if ranked:
                extra["ties"] = ties
            expected, total = reference(name, case, ties=ties or "average",
                                        no_relevant=no_relevant, unjudged=unjudged, k=k,
                                        **options)
            arguments = {**case, **options, **extra, "judged": "y_true", "unjudged": unjudged,
                         "no_relevant": no_relevant}
            got = score(name, **arguments, return_per_query=True)
            assert_allclose(got, expected, rtol=1e-10, atol=1e-12,
                            err_msg=f"{name} {options} {extra} {case}")
            with warnings.catch_warnings():
                # every query skipped: a NaN mean, which the engine announces
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                mean = score(name, **arguments)
            assert_allclose(mean, total, rtol=1e-10, atol=1e-12, err_msg=name)


def test_infap_ties_in_chunks(monkeypatch):
    # the exact sum of infAP with ties runs by chunks of terms: tiny chunks, same numbers
    from sklearn_rank.metrics import _per_query_judged

    expected = [score("infap", **case, judged="y_true", return_per_query=True)
                for case in CASES]
    monkeypatch.setattr(_per_query_judged, "_INFAP_CHUNK", 3)
    for case, values in zip(CASES, expected):
        assert_allclose(score("infap", **case, judged="y_true", return_per_query=True),
                        values, rtol=1e-13, atol=1e-15)


def test_infap_ties_beyond_the_budget_are_refused():
    # one block of 40 000 tied documents, half of them unjudged: about 8e8 terms
    n = 40_000
    y = np.where(np.arange(n) % 2 == 0, 1.0, np.nan)
    with pytest.raises(ValueError, match=r"infAP with ties='average' sums over \d+ .*"
                                         r"Pass ties='stable'"):
        score("infap", y, np.zeros(n), judged="y_true")
    # the other rules have no such cost; nor have blocks of judged documents only
    assert 0 < score("infap", y, np.zeros(n), judged="y_true", ties="stable") <= 1
    # (every document judged: AP's exact expectation, up to infAP's epsilon)
    expected = map_score(np.nan_to_num(y), np.zeros(n), qid="single_query")
    assert score("infap", np.nan_to_num(y), np.zeros(n)) == pytest.approx(expected, abs=2e-5)


# --------------------------------------------------------------------------------------
# Names, evaluate, and what does not matter
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, metric, options", [
    ("bpref", "bpref", {}),
    ("Bpref(rel=2)", "bpref", {"relevance_threshold": 2}),
    ("infAP", "infap", {}),
    ("Judged@10", "judged", {"k": 10}),
    ("unj@5", "unjudged_rate", {"k": 5}),
    ("rbp_resid(p=0.9,all_judged=zero)", "rbp_residual",
     {"persistence": 0.9, "all_judged": "zero"}),
    ("set_F(beta=0.5)", "set_f", {"beta": 0.5}),
    ("relative_P@5", "relative_p", {"k": 5}),
    ("fall_out@10", "fallout", {"k": 10}),
    ("F1@10", "f1", {"k": 10}),
    ("utility(a=3,b=-2,c=-1,d=0.5,collection_size=100)", "utility",
     {"relevant_retrieved": 3, "nonrelevant_retrieved": -2, "relevant_missed": -1,
      "nonrelevant_missed": 0.5, "collection_size": 100}),
])
def test_names(name, metric, options):
    assert parse_metric(name) == (METRICS[metric], options)


def test_references_aggregate_as_the_registry():
    for name in M1:
        assert METRICS[name].aggregation == AGGREGATIONS.get(name, "mean"), name


def test_evaluate_computes_every_measure_as_its_function():
    case = CASES[0]
    names = [f"{name}@3" if "k" in METRICS[name].options else name for name in M1]
    got = evaluate(**case, metrics=names, judged="y_true", return_per_query=True)
    for name, spelled in zip(M1, names):
        options = {"k": 3} if "k" in METRICS[name].options else {}
        expected = score(name, **case, **options, judged="y_true", return_per_query=True)
        assert_allclose(got[spelled], expected, rtol=0, atol=0, err_msg=name)
        total = evaluate(**case, metrics=[spelled], judged="y_true")[spelled]
        assert total == score(name, **case, **options, judged="y_true")


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
KEYWORDS = {name: ({"k": 3} if "k" in METRICS[name].options else {}) for name in M1}


@st.composite
def judged_data(draw):
    """Flat arrays whose grades hold every judgement state, with many ties."""
    n = draw(st.integers(1, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.choice([0.0, 1.0, 2.0, NAN, -1.0], n)
    return {"y_true": y, "y_score": rng.choice([0.0, 0.5, 1.0], n),
            "qid": rng.integers(0, 4, n), "retrieved": rng.random(n) < 0.9}


def per_query_values(data, ties, **options):
    return {name: score(name, **data, **KEYWORDS[name], **options, judged="y_true",
                        **({"ties": ties} if "ties" in METRICS[name].options else {}),
                        return_per_query=True) for name in M1}


@SETTINGS
@given(data=judged_data(), seed=st.integers(0, 2**32 - 1),
       ties=st.sampled_from(["average", "stable", "optimistic", "pessimistic"]),
       shuffle=st.booleans())
def test_row_order_and_query_names_do_not_matter(data, seed, ties, shuffle):
    # Rows of equal score keep their input order with "stable", and those of equal score and
    # grade with "optimistic" and "pessimistic": a judged non-relevant document and an
    # unjudged one (grade 0) among them. Only "average" does not depend on the row order.
    rng = np.random.default_rng(seed)
    shuffle = shuffle and ties == "average"
    order = rng.permutation(len(data["y_true"])) if shuffle else np.arange(len(data["y_true"]))
    shuffled = {key: value[order] for key, value in data.items()}
    names = rng.permutation(100)[:4]  # new ids, in another order
    shuffled["qid"] = names[shuffled["qid"]]
    # the new position of each old query in np.unique order
    position = np.searchsorted(np.unique(shuffled["qid"]), names[np.unique(data["qid"])])
    before, after = per_query_values(data, ties), per_query_values(shuffled, ties)
    for name in M1:
        assert_allclose(after[name][position], before[name], rtol=1e-12, atol=1e-12,
                        err_msg=name)


@SETTINGS
@given(data=judged_data(), ties=st.sampled_from(["average", "stable", "pessimistic"]))
def test_condensed_lists_are_the_lists_without_unjudged_rows(data, ties):
    y = data["y_true"]
    judged = ~np.isnan(y) & (y >= 0)
    # queries with a judged row: a query without one leaves the arrays with its rows
    kept = np.isin(data["qid"], data["qid"][judged])
    if not kept.any():
        return
    condensed = per_query_values({k: v[kept] for k, v in data.items()}, ties,
                                 unjudged="condensed")
    deleted = per_query_values({k: v[judged] for k, v in data.items()}, ties)
    for name in M1:
        # (utility's d would count the deleted rows; it is 0 here)
        assert_allclose(condensed[name], deleted[name], rtol=1e-12, atol=1e-12, err_msg=name)
    # bpref never reads the unjudged documents
    assert_allclose(per_query_values(data, ties)["bpref"],
                    per_query_values(data, ties, unjudged="condensed")["bpref"], rtol=1e-12)


@SETTINGS
@given(data=judged_data())
def test_a_mask_says_what_nan_says(data):
    # a mask cannot say "in the pool but unjudged": with NaN only, the two agree
    y = np.where(data["y_true"] < 0, np.nan, data["y_true"])
    with_nan = {**data, "y_true": y}
    mask = {**data, "y_true": np.nan_to_num(y)}
    for name in M1:
        options = KEYWORDS[name]
        assert_allclose(score(name, **mask, **options, judged=~np.isnan(y),
                              return_per_query=True),
                        score(name, **with_nan, **options, judged="y_true",
                              return_per_query=True),
                        rtol=0, atol=0, err_msg=name)
    # and with every row judged, judged="y_true" is no mask
    plain = {**data, "y_true": np.nan_to_num(y)}
    for name in M1:
        assert_allclose(score(name, **plain, **KEYWORDS[name], judged="y_true",
                              return_per_query=True),
                        score(name, **plain, **KEYWORDS[name], return_per_query=True),
                        rtol=0, atol=0, err_msg=name)
