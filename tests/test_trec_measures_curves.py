"""trec_eval's curve and gain measures, and the DCG family's gain mappings and discounts.

``iprec_at_recall``, ``eleven_point_average`` (``11pt_avg``), ``rprec_mult``, ``bing``, ``g``,
``ndcg_rel``, ``rndcg`` and ``gm_map``, and ``ndcg``/``dcg`` with ``gain={grade: gain}`` and
``discount``, against:

* pytrec_eval (trec_eval compiled) on random qrels and runs: ties (trec_eval's order,
  reproduced by ``ties="stable"`` on rows by decreasing score then docno), documents outside
  the qrels, -1 judgements, judged documents not retrieved, queries without relevant
  documents, ``-l`` (``relevance_level``) and ``-J`` (``judged_docs_only_flag``, i.e.
  ``unjudged="condensed"``); every per-query value to 1e-9;
* trec_eval's test fixtures (4 decimals), when ``../shared/data/trec_eval-test`` is there;
* the slow references of ``tests/_brute_force_curves.py`` for every tie rule, the exact
  mean over the orderings of tied documents included;
* ir_measures for its ``nDCG(gains=...)`` and ``IPrec@x``, CatBoost for its NDCG with
  ``denominator=Position``, and closed forms worked by hand.
"""

import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from _brute_force_curves import AVERAGED_LIST
from _brute_force_curves import brute_force as curves_brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose
from test_trec_eval_fixtures import read_qrels, read_run

from sklearn_rank.metrics import (
    bing_score,
    dcg_score,
    eleven_point_average_score,
    evaluate,
    evaluate_per_query,
    g_score,
    gm_map_score,
    iprec_at_recall_score,
    ndcg_rel_score,
    ndcg_score,
    parse_metric,
    rndcg_score,
    rprec_mult_score,
    yaap_score,
)
from sklearn_rank.metrics._registry import METRICS
from sklearn_rank.utils._param_validation import InvalidParameterError

# The examples without query ids are one query each, on purpose: the metrics' opt-in.
ONE_QUERY = "single_query"

pytrec_eval = pytest.importorskip("pytrec_eval")

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_eval-test"
LOG2 = math.log2


# --------------------------------------------------------------------------------------
# Runs and qrels as trec_eval reads them, and as flat arrays
# --------------------------------------------------------------------------------------
def flat_arrays(qrels, run, *, complete=False, depth=None):
    """Rows of the queries in both (or, ``complete``, in the qrels: trec_eval ``-c``) in
    trec_eval's order: each query's run by decreasing score then docno (descending), cut
    at ``depth`` (``-M``), then its judged documents that the run does not hold. ``y_true``
    has NaN for a document outside the qrels and the qrels' -1 as is (``judged="y_true"``).
    """
    queries = sorted(qrels if complete else set(qrels) & set(run))
    y_true, y_score, qid, retrieved = [], [], [], []
    for query in queries:
        ranked = sorted(run.get(query, {}).items(), key=lambda item: item[0], reverse=True)
        ranked.sort(key=lambda item: -item[1])  # stable: docno descending within a score
        ranked = ranked[:depth]
        seen = {doc for doc, _ in ranked}
        rows = [(qrels[query].get(doc, np.nan), score, True) for doc, score in ranked]
        rows += [(grade, 0.0, False) for doc, grade in qrels[query].items() if doc not in seen]
        for grade, score, is_ranked in rows:
            y_true.append(float(grade))
            y_score.append(score)
            qid.append(query)
            retrieved.append(is_ranked)
    return {"y_true": np.array(y_true), "y_score": np.array(y_score), "qid": np.array(qid),
            "retrieved": np.array(retrieved), "judged": "y_true"}


_PREFIX = itertools.count()


def trec_eval(qrels, run, measures, **flags):
    """pytrec_eval's per-query values. trec_eval caches a query's ranking under its id
    across evaluations (form_res_rels.c), so every call gets query ids of its own."""
    prefix = f"c{next(_PREFIX)}-"
    evaluator = pytrec_eval.RelevanceEvaluator(
        {prefix + q: judgements for q, judgements in qrels.items()}, set(measures), **flags)
    values = evaluator.evaluate({prefix + q: docs for q, docs in run.items()})
    return {q[len(prefix):]: measures for q, measures in values.items()}


def random_trec(seed, *, max_grade=3):
    """Random qrels and run: scores from a few values (ties), documents outside the qrels,
    -1 judgements, judged documents not retrieved, queries without relevant documents,
    queries on one side only."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 7))):
        query = f"q{q}"
        docs = [f"d{i:03d}" for i in rng.choice(80, int(rng.integers(1, 16)), replace=False)]
        judgements, scores = {}, {}
        grades = rng.integers(0, max_grade + 1, len(docs)) * (rng.random() < 0.85)
        for doc, grade in zip(docs, grades):
            state = rng.random()
            if state < 0.7:
                judgements[doc] = int(grade)
            elif state < 0.85:
                judgements[doc] = -1  # in the pool, left unjudged
            if rng.random() < 0.8:
                scores[doc] = float(rng.choice([0.5, 1.0, 1.5, 2.0, 3.0]))
        if not any(v >= 0 for v in judgements.values()):
            judgements["zz"] = 0  # trec_eval needs one judgement >= 0 per query of the qrels
        if q == 0 or rng.random() < 0.9:  # q0 on both sides: something to evaluate
            qrels[query] = judgements
        if q == 0 and not scores:
            scores[docs[0]] = 1.0
        if scores and (q == 0 or rng.random() < 0.9):
            run[query] = scores
    run.setdefault("extra", {"d001": 1.0})  # a query of the run only
    return qrels, run


def ours(data, name, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return np.asarray(evaluate(**data, metrics=[name], ties="stable",
                                   return_per_query=True, **options)[name])


def assert_matches(data, trec, key, name, **options):
    queries = list(np.unique(data["qid"]))
    values = ours(data, name, **options)
    expected = np.array([trec[q][key] for q in queries])
    # With -J, a query whose retrieved documents are all unjudged has no ranked document:
    # trec_eval's interpolated precision at a level of 0 relevant documents is then 0 / 0
    # (NaN, m_iprec_at_recall.c's num_rel_ret / num_ret), sklearn-rank's 0.
    undefined = np.isnan(expected)
    if undefined.any():
        assert key.startswith(("iprec_at_recall", "11pt_avg")), key
        judged = data["y_true"] >= 0  # NaN and -1 are unjudged
        nothing_ranked = np.array([not (data["retrieved"] & judged)[data["qid"] == q].any()
                                   for q in queries])
        assert nothing_ranked[undefined].all() and (values[undefined] == 0).all()
        expected = np.where(undefined, 0.0, expected)
    assert_allclose(values, expected, rtol=1e-9, atol=1e-12, err_msg=f"{key} vs {name}")


# --------------------------------------------------------------------------------------
# pytrec_eval
# --------------------------------------------------------------------------------------
LEVELS = (0.0, 0.1, 0.2, 0.25, 0.3, 1 / 3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0)
MULTS = (0.05, 0.2, 0.35, 0.5, 1.0, 1.4, 2.0, 5.0)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_every_measure_matches_pytrec_eval(level, judged_only):
    flags = {"relevance_level": level, "judged_docs_only_flag": judged_only}
    common = {"relevance_threshold": level,
              "unjudged": "condensed" if judged_only else "nonrelevant"}
    for seed in range(40):
        qrels, run = random_trec(seed)
        data = flat_arrays(qrels, run)
        trec = trec_eval(qrels, run, [
            "iprec_at_recall." + ",".join(map(str, LEVELS)),
            "Rprec_mult." + ",".join(map(str, MULTS)),
            "11pt_avg", "binG", "G", "ndcg_rel", "Rndcg", "gm_map", "ndcg"], **flags)
        for x in LEVELS:
            assert_matches(data, trec, f"iprec_at_recall_{x:3.2f}", "iprec_at_recall",
                           recall=x, recall_rounding="legacy", **common)
        for x in MULTS:
            assert_matches(data, trec, f"Rprec_mult_{x:3.2f}", "rprec_mult", mult=x, **common)
        assert_matches(data, trec, "11pt_avg", "11pt_avg", recall_rounding="legacy", **common)
        assert_matches(data, trec, "binG", "bing", **common)
        linear = {"gain": "linear", "unjudged": common["unjudged"]}
        assert_matches(data, trec, "G", "g", **linear)
        assert_matches(data, trec, "ndcg_rel", "ndcg_rel", **linear)
        assert_matches(data, trec, "Rndcg", "rndcg", **linear, relevance_threshold=level)
        assert_matches(data, trec, "ndcg", "ndcg", **linear)
        # trec_eval keeps log(max(AP, 1e-5)) per query: gm_map's floor
        queries = list(np.unique(data["qid"]))
        ap = ours(data, "gm_map", **common)
        assert_allclose(np.log(np.maximum(ap, 1e-5)),
                        [trec[q]["gm_map"] for q in queries], rtol=1e-9, atol=1e-12)


def test_eleven_point_average_at_given_levels_matches_pytrec_eval():
    for seed in range(40):
        qrels, run = random_trec(seed)
        data = flat_arrays(qrels, run)
        for levels in ([0.25, 0.5, 0.75], [0.2, 0.5, 0.8], [0.0, 1 / 3, 2 / 3, 1.0], [0.5]):
            trec = trec_eval(qrels, run, ["11pt_avg." + ",".join(map(str, levels))])
            assert_matches(data, trec, "11pt_avg", "eleven_point_average",
                           recall_levels=levels, recall_rounding="legacy")


@pytest.mark.parametrize("gains", [
    {1: 3, 2: 9, 3: 4},  # not monotone: grade 2 first in the ideal ordering
    {0: 2, 1: 5, 3: 1},  # judged non-relevant documents have a gain; unjudged ones 0
    {2: 0, 3: 7},  # a grade of gain 0 among positive ones
])
def test_gain_mappings_match_pytrec_eval_on_mapped_qrels(gains):
    # pytrec_eval takes no gain parameters; ir_measures passes nDCG(gains=...) to it as
    # qrels whose grades are the gains, which trec_eval's rule (an unlisted grade is its own
    # gain) makes the same measure. Integer gains: trec_eval's ideal ordering compares gains
    # truncated to integers.
    for seed in range(40):
        qrels, run = random_trec(seed)
        mapped = {q: {doc: gains.get(grade, grade) if grade >= 0 else grade
                      for doc, grade in judgements.items()} for q, judgements in qrels.items()}
        data = flat_arrays(qrels, run)
        for judged_only in (False, True):
            trec = trec_eval(mapped, run, ["ndcg", "G", "ndcg_rel"],
                             judged_docs_only_flag=judged_only)
            options = {"gain": gains, "unjudged": "condensed" if judged_only else "nonrelevant"}
            assert_matches(data, trec, "ndcg", "ndcg", **options)
            assert_matches(data, trec, "G", "g", **options)
            assert_matches(data, trec, "ndcg_rel", "ndcg_rel", **options)
        if gains.get(0, 0) == 0:  # Rndcg's R counts mapped grades: the same relevant set
            trec = trec_eval(mapped, run, ["Rndcg"])
            assert_matches(data, trec, "Rndcg", "rndcg", gain=gains)


def test_queries_without_a_run_count_zero_as_with_trec_eval_c():
    # trec_eval -c: a judged query that the run lacks scores 0 in the average
    for seed in range(10):
        qrels, run = random_trec(seed)
        data = flat_arrays(qrels, run, complete=True)
        missing = sorted(set(qrels) - set(run))
        queries = list(np.unique(data["qid"]))
        for name in ("iprec_at_recall", "11pt_avg", "rprec_mult", "bing", "g", "ndcg_rel",
                     "rndcg", "gm_map"):
            values = ours(data, name)
            for query in missing:
                assert values[queries.index(query)] == 0.0, (name, query)


# --------------------------------------------------------------------------------------
# trec_eval's fixtures
# --------------------------------------------------------------------------------------
def _read_output(path):
    """{(measure, query): printed value}."""
    printed = {}
    for line in path.read_text().splitlines():
        measure, query, value = line.split("\t")
        printed[measure.strip(), query] = value
    return printed


def _fixture(name):
    if not (FIXTURES / name).exists():
        pytest.skip(f"trec_eval's test fixtures are not in {FIXTURES}")
    return FIXTURES


# trec_eval's printed name -> (sklearn-rank's name, options); ties="stable" on trec_eval's
# order, linear gains
_TREC_NAMES = {
    **{f"iprec_at_recall_{x:3.2f}": ("iprec_at_recall", {"recall": x})
       for x in (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0)},
    **{f"Rprec_mult_{x:3.2f}": ("rprec_mult", {"mult": x})
       for x in (0.2, 0.35, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 5.0)},
    "11pt_avg": ("eleven_point_average", {}),
    "11pt_avg_.25,.5,.75": ("eleven_point_average", {"recall_levels": (0.25, 0.5, 0.75)}),
    "binG": ("bing", {}),
    "G": ("g", {"gain": "linear"}),
    "ndcg": ("ndcg", {"gain": "linear"}),
    "ndcg_1=3,2=9,4=4.5": ("ndcg", {"gain": {1: 3, 2: 9, 4: 4.5}}),
    "ndcg_rel": ("ndcg_rel", {"gain": "linear"}),
    "Rndcg": ("rndcg", {"gain": "linear"}),
    "gm_map": ("gm_map", {}),
}


@pytest.mark.parametrize("output, qrels_file, run_file, flags", [
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "depth": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"level": 2}),
    ("out.test.meas_params", "qrels.test", "results.test", {}),
])
def test_trec_eval_fixtures(output, qrels_file, run_file, flags):
    folder = _fixture(output)
    printed = _read_output(folder / output)
    level = flags.pop("level", 1)
    data = flat_arrays(read_qrels(folder / qrels_file), read_run(folder / run_file), **flags)
    queries = list(np.unique(data["qid"]))
    checked = 0
    for trec_name, (name, options) in _TREC_NAMES.items():
        if (trec_name, "all") not in printed:
            continue
        if "relevance_threshold" in METRICS[name].options:
            options = {**options, "relevance_threshold": level}
        result = evaluate(**data, metrics=[name], ties="stable", return_per_query=True,
                          **options)[name]
        for query, value in zip(queries, result):
            if (trec_name, query) in printed:  # gm_map: trec_eval prints the mean only
                assert f"{value:.4f}" == printed[trec_name, query], (trec_name, query)
        mean = evaluate(**data, metrics=[name], ties="stable", **options)[name]
        assert f"{mean:.4f}" == printed[trec_name, "all"], trec_name
        checked += 1
    assert checked >= 4


# --------------------------------------------------------------------------------------
# Closed forms worked by hand
# --------------------------------------------------------------------------------------
# relevant documents at ranks 1, 3 and 4 of five: precisions 1, 2/3 and 3/4
BINARY = ([1, 0, 1, 1, 0], [5, 4, 3, 2, 1])
# grades 2, 0, 1, 3, 0 down the ranking; the ideal gains (linear) are 3, 2, 1
GRADED = ([2, 0, 1, 3, 0], [5, 4, 3, 2, 1])


def test_interpolated_precision_by_hand():
    for recall, expected in [(0.0, 1.0), (0.2, 1.0), (0.4, 1.0), (0.5, 0.75), (1.0, 0.75)]:
        # c = round(3 x): 0, 1, 1, 2 (1.5 rounds up), 3
        assert iprec_at_recall_score(*BINARY, qid=ONE_QUERY, recall=recall) == expected
    # legacy: floor(3 x + 0.9): x = 0.4 needs floor(2.1) = 2 documents, and 0.75 is the best
    # precision from the second on
    assert iprec_at_recall_score(*BINARY, qid=ONE_QUERY,
                                 recall=0.4, recall_rounding="legacy") == 0.75
    # two relevant documents missing: recall 1 is out of reach
    assert iprec_at_recall_score([1, 0, 1, 1, 0, 1, 1], [5, 4, 3, 2, 1, 0, 0], qid=ONE_QUERY,
                                 recall=1.0,
                                 retrieved=[1, 1, 1, 1, 1, 0, 0]) == 0.0
    # 11 points: 1 at levels 0 to 0.4 (c <= 1), 0.75 at the 6 others
    assert eleven_point_average_score(*BINARY, qid=ONE_QUERY) == pytest.approx(9.5 / 11, rel=1e-15)
    assert eleven_point_average_score(*BINARY, qid=ONE_QUERY, recall_levels=[0.5, 0.5, 0.0]) == (
        pytest.approx(2.5 / 3, rel=1e-15))


def test_rprec_mult_by_hand():
    # R = 3: the cut-off floor(3 mult + 0.9)
    assert rprec_mult_score(*BINARY, qid=ONE_QUERY, mult=1.0) == 2 / 3
    assert rprec_mult_score(*BINARY, qid=ONE_QUERY, mult=0.2) == 1.0  # floor(1.5) = 1: P@1
    assert rprec_mult_score(*BINARY, qid=ONE_QUERY, mult=0.03) == 0.0  # floor(0.99) = 0
    assert rprec_mult_score(*BINARY, qid=ONE_QUERY,
                            mult=2.0) == 0.5  # 3 hits over 6, beyond the list
    assert rprec_mult_score(*BINARY, qid=ONE_QUERY,
                            mult=1.0) == METRICS["r_precision"].function(*BINARY, qid=ONE_QUERY)


def test_bing_and_g_by_hand():
    # 0, 1 and 1 non-relevant documents above the relevant ones
    assert bing_score(*BINARY, qid=ONE_QUERY) == pytest.approx((1 + 2 / LOG2(3)) / 3, rel=1e-15)
    # G: costs max(ideal, 1) = 3, 2, 1, 1, 1 add up to 3, 5, 6, 7, 8; the gains so far to
    # 2, 2, 3, 6, 6; over the ideal sum 6
    expected = (2 / LOG2(2 + 3 - 2) + 1 / LOG2(2 + 6 - 3) + 3 / LOG2(2 + 7 - 6)) / 6
    assert g_score(*GRADED, qid=ONE_QUERY, gain="linear") == pytest.approx(expected, rel=1e-15)
    # binary gains: G is binG
    assert g_score(*BINARY, qid=ONE_QUERY,
                   gain="linear") == pytest.approx(bing_score(*BINARY, qid=ONE_QUERY), rel=1e-15)


def test_ndcg_rel_and_rndcg_by_hand():
    dcg = [2, 2, 2.5, 2.5 + 3 / LOG2(5), 2.5 + 3 / LOG2(5)]  # DCG@1..5
    ideal = [3, 3 + 2 / LOG2(3), 3 + 2 / LOG2(3) + 0.5]  # ideal DCG@1..3, then constant
    # the documents of positive gain are at ranks 1, 3 and 4
    expected = (dcg[0] / ideal[0] + dcg[2] / ideal[2] + dcg[3] / ideal[2]) / 3
    assert ndcg_rel_score(*GRADED, qid=ONE_QUERY,
                          gain="linear") == pytest.approx(expected, rel=1e-14)
    # R levels at 1, 2 and 3 (gains 3, 2, 1), and the end of the list (5 >= 3 + 2)
    expected = (dcg[0] / ideal[0] + dcg[1] / ideal[1] + dcg[2] / ideal[2]
                + dcg[4] / ideal[2]) / 4
    assert rndcg_score(*GRADED, qid=ONE_QUERY, gain="linear") == pytest.approx(expected, rel=1e-14)
    # one document fewer: 4 < 3 + 2, no term at the end of the list (trec_eval's rule)
    expected = (dcg[0] / ideal[0] + dcg[1] / ideal[1] + dcg[2] / ideal[2]) / 3
    assert rndcg_score(*GRADED, qid=ONE_QUERY,
                       gain="linear", retrieved=[1, 1, 1, 1, 0]) == pytest.approx(
        expected, rel=1e-14)


def test_gm_map_is_the_floored_geometric_mean_of_ap():
    y_score, qid = [3, 2, 1, 3, 2, 1], [1, 1, 1, 2, 2, 2]
    y_true = [1, 0, 0, 0, 1, 0]  # AP 1 and 0.5
    assert gm_map_score(y_true, y_score, qid=qid) == pytest.approx(math.sqrt(0.5), rel=1e-15)
    # a query at AP 0 counts as 1e-5, and its per-query value stays 0
    y_true = [1, 0, 0, 0, 0, 1]
    retrieved = [1, 1, 1, 1, 1, 0]
    assert gm_map_score(y_true, y_score, qid=qid, retrieved=retrieved) == pytest.approx(
        math.sqrt(1e-5), rel=1e-12)
    per_query = gm_map_score(y_true, y_score, qid=qid, retrieved=retrieved,
                             return_per_query=True)
    assert per_query.tolist() == [1.0, 0.0]


def test_gain_mapping_by_hand():
    # grade 3 is not listed: its gain is 3 (trec_eval's rule); the ideal ordering is by gain
    gains = {1: 3, 2: 9}
    dcg = 9 + 3 / LOG2(4) + 3 / LOG2(5)  # gains 9, 0, 3, 3, 0
    ideal = 9 + 3 / LOG2(3) + 3 / LOG2(4)
    assert dcg_score(*GRADED, qid=ONE_QUERY, gain=gains) == pytest.approx(dcg, rel=1e-15)
    assert ndcg_score(*GRADED, qid=ONE_QUERY, gain=gains) == pytest.approx(dcg / ideal, rel=1e-15)
    # the mapping of every grade to itself is the linear gain
    identity = {0: 0, 1: 1, 2: 2, 3: 3}
    assert ndcg_score(*GRADED, qid=ONE_QUERY,
                      gain=identity) == ndcg_score(*GRADED, qid=ONE_QUERY, gain="linear")
    # grade 0 with a gain: judged non-relevant documents have it, unjudged ones (NaN) not,
    # in the ranking as in the ideal ordering
    y_true = [np.nan, 0, 1, 0]
    value = dcg_score(y_true, [4, 3, 2, 1], qid=ONE_QUERY, gain={0: 1}, judged="y_true")
    assert value == pytest.approx(1 / LOG2(3) + 1 / LOG2(4) + 1 / LOG2(5), rel=1e-15)
    assert ndcg_score(y_true, [4, 3, 2, 1], qid=ONE_QUERY,
                      gain={0: 1}, judged="y_true") == pytest.approx(
        value / (1 + 1 / LOG2(3) + 1 / LOG2(4)), rel=1e-15)
    # negative gains count in the DCG, not in the ideal one
    assert ndcg_score([1, 2], [2, 1], qid=ONE_QUERY, gain={1: -1, 2: 2}) == pytest.approx(
        (-1 + 2 / LOG2(3)) / 2, rel=1e-15)


def test_rank_discount_by_hand():
    # 1 / i: CatBoost's denominator=Position, TF-Ranking's reciprocal rank discount
    assert dcg_score(*GRADED, qid=ONE_QUERY, gain="linear", discount="rank") == pytest.approx(
        2 + 1 / 3 + 3 / 4, rel=1e-15)
    assert ndcg_score(*GRADED, qid=ONE_QUERY, gain="linear", discount="rank", k=2) == pytest.approx(
        2 / (3 + 2 / 2), rel=1e-15)
    # log_base has no effect on it
    assert dcg_score(*GRADED, qid=ONE_QUERY,
                     discount="rank", log_base=10) == dcg_score(*GRADED, qid=ONE_QUERY,
                                                                          discount="rank")


@pytest.mark.parametrize("type_, gain", [("Base", "linear"), ("Exp", "exponential")])
@pytest.mark.parametrize("top", [None, 3])
def test_rank_discount_matches_catboost(type_, gain, top):
    catboost_utils = pytest.importorskip("catboost.utils")
    rng = np.random.default_rng(0)
    n = 60
    y_true = rng.integers(0, 4, n).astype(float)
    y_score = rng.permutation(n) / n  # no ties: CatBoost orders ties its own way
    qid = np.sort(rng.integers(0, 8, n))
    description = f"NDCG:type={type_};denominator=Position"
    if top is not None:
        description += f";top={top}"
    expected = catboost_utils.eval_metric(y_true, y_score, description, group_id=qid)[0]
    got = ndcg_score(y_true, y_score, qid=qid, k=top, gain=gain, discount="rank",
                     no_relevant=1.0)
    assert got == pytest.approx(expected, rel=1e-12)


def test_ir_measures_gains_and_iprec():
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import IPrec, Qrel, ScoredDoc, nDCG

    qrels, run = random_trec(3)
    data = flat_arrays(qrels, run)
    both = set(qrels) & set(run)
    qrels_list = [Qrel(q, d, g) for q in both for d, g in qrels[q].items()]
    run_list = [ScoredDoc(q, d, s) for q in both for d, s in run[q].items()]
    gains = {1: 3, 2: 9}
    for measure, name, options in [
        (nDCG(gains=gains), "ndcg", {"gain": gains}),
        (IPrec @ 0.5, "iprec_at_recall", {"recall": 0.5, "recall_rounding": "legacy"}),
        (IPrec @ 0.3, "iprec_at_recall", {"recall": 0.3, "recall_rounding": "legacy"}),
    ]:
        expected = {m.query_id: m.value
                    for m in ir_measures.iter_calc([measure], qrels_list, run_list)}
        values = ours(data, name, **options)
        queries = list(np.unique(data["qid"]))
        assert_allclose([values[queries.index(q)] for q in sorted(expected)],
                        [expected[q] for q in sorted(expected)], rtol=1e-9)


# --------------------------------------------------------------------------------------
# Ties: the brute force of every tie rule
# --------------------------------------------------------------------------------------
def _small_case(seed):
    rng = np.random.default_rng(seed)
    y_true, y_score, qid, retrieved = [], [], [], []
    for query in range(int(rng.integers(1, 5))):
        n = int(rng.integers(1, 7))
        y_true += list(rng.choice([0, 1, 2, 3, np.nan, -1.0], n,
                                  p=[0.3, 0.2, 0.15, 0.15, 0.1, 0.1]))
        y_score += list(rng.choice([-np.inf, 0.0, 0.5, 1.0, 2.0], n))
        qid += [query * 7 % 5] * n
        mask = rng.random(n) < 0.8
        mask[rng.integers(n)] = True
        retrieved += list(mask)
    order = rng.permutation(len(y_true))
    return {"y_true": np.array(y_true)[order], "y_score": np.array(y_score)[order],
            "qid": np.array(qid)[order], "retrieved": np.array(retrieved)[order]}


CONFIGS = [
    ("iprec_at_recall", {"recall": 0.5}),
    ("iprec_at_recall", {"recall": 0.0, "recall_rounding": "legacy"}),
    ("iprec_at_recall", {"recall": 1.0, "relevance_threshold": 2}),
    ("eleven_point_average", {}),
    ("eleven_point_average", {"recall_levels": (0.25, 0.5, 0.75), "recall_rounding": "legacy",
                              "relevance_threshold": 2}),
    ("rprec_mult", {"mult": 0.5}),
    ("rprec_mult", {"mult": 2.0, "relevance_threshold": 2}),
    ("bing", {}),
    ("bing", {"relevance_threshold": 2}),
    ("g", {}),
    ("g", {"gain": {0: 0.5, 1: 3, 2: 9}}),
    ("ndcg_rel", {"gain": "linear"}),
    ("ndcg_rel", {"discount": "rank"}),
    ("ndcg_rel", {"gain": {1: 3, 2: 9, 3: 0.5}, "log_base": 10}),
    ("rndcg", {"gain": "linear"}),
    ("rndcg", {"gain": {0: 1, 1: 2, 2: 2}, "discount": "rank"}),
    ("rndcg", {"relevance_threshold": 3, "log_base": 10}),
    ("ndcg", {"gain": {0: 1.5, 1: 3, 2: 9}, "k": 3}),
    ("ndcg", {"discount": "rank"}),
    ("dcg", {"gain": {2: -1.0}, "discount": "rank", "k": 2}),
    ("gm_map", {}),
    ("gm_map", {"k": 2, "ap_denominator": "found", "relevance_threshold": 2}),
]


@pytest.mark.parametrize("ties", ["average", "stable", "optimistic", "pessimistic"])
@pytest.mark.parametrize("metric, options", CONFIGS,
                         ids=[f"{m}-{i}" for i, (m, _) in enumerate(CONFIGS)])
def test_every_tie_rule_matches_the_brute_force(metric, options, ties):
    # ties="average": the exact mean over the orderings of tied documents, except for
    # AVERAGED_LIST (the measure of the tie-averaged list)
    for seed in range(25):
        case = _small_case(seed)
        expected = curves_brute_force(metric, **case, ties=ties, no_relevant=np.nan, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # every query skipped
            got = evaluate(**case, judged="y_true", metrics=[metric], ties=ties,
                           no_relevant=np.nan, return_per_query=True, **options)[metric]
        assert_allclose(got, expected, rtol=1e-12, atol=1e-12,
                        err_msg=f"{metric} {options} {ties} {case}")


def test_the_averaged_list_measures_are_those_of_the_brute_force_list():
    assert set(AVERAGED_LIST) == {"iprec_at_recall", "eleven_point_average", "g"}


def test_ndcg_rel_refuses_average_ties_with_negative_gains():
    with pytest.raises(ValueError, match="negative gains has no exact expectation.*"
                                         "ties='stable'"):
        ndcg_rel_score([1, 2, 0], [1, 1, 0], qid=ONE_QUERY, gain={1: -1})
    # without ties there is nothing to average
    assert ndcg_rel_score([1, 2, 0], [2, 1, 0], qid=ONE_QUERY, gain={1: -1}) == ndcg_rel_score(
        [1, 2, 0], [2, 1, 0], qid=ONE_QUERY, gain={1: -1}, ties="stable")


SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(
    y_true=arrays(np.float64, 12, elements=st.sampled_from([0.0, 1.0, 2.0])),
    y_score=arrays(np.float64, 12, elements=st.sampled_from([0.0, 1.0, 2.0, 3.0])),
    recall=st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 1.0]),
)
def test_averaged_interpolated_precision_lies_between_the_bounds(y_true, y_score, recall):
    # the pessimistic and optimistic orderings bound every ordering's value, and the
    # tie-averaged list's value
    qid = np.repeat([0, 1, 2], 4)
    values = {ties: iprec_at_recall_score(y_true, y_score, qid=qid, recall=recall, ties=ties,
                                          return_per_query=True)
              for ties in ("pessimistic", "average", "optimistic")}
    assert np.all(values["pessimistic"] <= values["average"] + 1e-12)
    assert np.all(values["average"] <= values["optimistic"] + 1e-12)


@SETTINGS
@given(
    y_true=arrays(np.float64, 12, elements=st.sampled_from([0.0, 1.0, 2.0, 3.0])),
    y_score=arrays(np.float64, 12, elements=st.sampled_from([0.0, 1.0, 2.0])),
    ties=st.sampled_from(["average", "stable", "optimistic", "pessimistic"]),
)
def test_identities_between_measures(y_true, y_score, ties):
    qid = np.repeat([0, 1, 2], 4)
    data = {"y_true": y_true, "y_score": y_score, "qid": qid, "ties": ties,
            "return_per_query": True}
    metrics = METRICS
    # R-precision is Rprec_mult at 1; AP per query is gm_map's per-query value
    assert_allclose(rprec_mult_score(**data), metrics["r_precision"].function(**data),
                    rtol=1e-12, atol=1e-12)
    assert_allclose(gm_map_score(**data), metrics["map"].function(**data), rtol=0, atol=0)
    # a gain mapping of every grade to its exponential gain is the exponential gain
    exponential = {grade: 2.0**grade - 1 for grade in range(4)}
    assert_allclose(ndcg_score(**data, gain=exponential), ndcg_score(**data), rtol=1e-12)
    # binary gains: G is binG
    binary = {0: 0, 1: 1, 2: 1, 3: 1}
    if ties != "average":  # G's average is that of the averaged list, binG's exact
        assert_allclose(g_score(**data, gain=binary), bing_score(**data), rtol=1e-12,
                        atol=1e-15)


# --------------------------------------------------------------------------------------
# Options, names and errors
# --------------------------------------------------------------------------------------
def test_gain_mapping_names_and_keys():
    metric, options = parse_metric("ndcg(gains={1: 3, 2: 9, 4: 4.5})@10")
    assert metric.name == "ndcg" and options == {"k": 10, "gain": {1: 3, 2: 9, 4: 4.5}}
    key = metric.key(options)
    assert key == "ndcg@10(gain={1:3,2:9,4:4.5})"
    data = {"y_true": [2, 0, 4, 1, 3], "y_score": [5, 4, 3, 2, 1], "qid": ONE_QUERY}
    assert evaluate(**data, metrics=[key])[key] == ndcg_score(**data, k=10, gain=options["gain"])
    # a preset leaves an explicit mapping alone
    assert ndcg_score(**data, gain={1: 3}, convention="trec_eval") == ndcg_score(
        **data, gain={1: 3}, ties="stable")
    # ERR's gain is a stopping probability: no mapping
    with pytest.raises(InvalidParameterError, match="'gain' parameter of err_score"):
        METRICS["err"].function(**data, gain={1: 3})
    with pytest.raises(ValueError, match="Cannot read the parameter 'gains"):
        parse_metric("err(gains={1: 3})")


@pytest.mark.parametrize("gain, message", [
    ({-1: 3}, r"a grade is a non-negative finite number.*got the grade -1"),
    ({np.inf: 3}, r"non-negative finite number.*got the grade inf"),
    ({"1": 3}, r"non-negative finite number.*got the grade '1'"),
    ({True: 3}, r"non-negative finite number.*got the grade True"),
    ({1: np.nan}, r"a gain is a finite number; got nan for the grade 1"),
    ({1: "3"}, r"a gain is a finite number; got '3' for the grade 1"),
])
def test_bad_gain_mappings_are_refused(gain, message):
    for function in (ndcg_score, dcg_score, g_score, ndcg_rel_score, rndcg_score):
        with pytest.raises(ValueError, match=message):
            function([1, 0], [1, 0], qid=ONE_QUERY, gain=gain)


@pytest.mark.parametrize("levels", [[], [0.5, 1.5], [[0.5]], [-0.1], ["a"], [np.nan]])
def test_bad_recall_levels_are_refused(levels):
    with pytest.raises(ValueError, match="recall_levels must be a"):
        eleven_point_average_score([1, 0], [1, 0], qid=ONE_QUERY, recall_levels=levels)


@pytest.mark.parametrize("function, option, value", [
    (iprec_at_recall_score, "recall", 1.5),
    (iprec_at_recall_score, "recall_rounding", "round"),
    (rprec_mult_score, "mult", 0.0),
    (ndcg_score, "discount", "linear"),
    (ndcg_rel_score, "gain", 2),
])
def test_option_constraints(function, option, value):
    with pytest.raises(InvalidParameterError, match=f"'{option}' parameter"):
        function([1, 0], [1, 0], **{option: value})


def test_names_of_the_new_measures():
    assert parse_metric("11pt_avg")[0].name == "eleven_point_average"
    assert parse_metric("IPREC(recall=0.25)")[1] == {"recall": 0.25}
    assert parse_metric("gm_ap")[0].name == "gm_map"
    assert parse_metric("rprec_mult(mult=0.2)")[1] == {"mult": 0.2}
    for name in ("g", "bing", "ndcg_rel", "rndcg"):
        assert parse_metric(name)[0].name == name


def test_queries_do_not_leak_into_each_other():
    # the kernels work on all queries at once (segmented running sums and maxima, searches
    # over all blocks): each query's value must not depend on the other queries
    rng = np.random.default_rng(1)
    n = 6_000
    data = {"y_true": rng.integers(0, 4, n).astype(float), "y_score": rng.integers(0, 6, n),
            "qid": rng.integers(0, 600, n)}
    data["y_true"][rng.random(n) < 0.1] = np.nan
    names = ["iprec_at_recall(recall=0.5)", "11pt_avg", "rprec_mult(mult=2)", "bing", "g",
             "ndcg_rel", "rndcg", "gm_map", "ndcg(gain={0:1,1:3,2:9})"]
    odd = data["qid"] % 2 == 1
    for ties in ("average", "stable"):
        whole = evaluate(**data, judged="y_true", metrics=names, ties=ties,
                         return_per_query=True)
        parts = [evaluate(**{key: value[mask] for key, value in data.items()},
                          judged="y_true", metrics=names, ties=ties, return_per_query=True)
                 for mask in (~odd, odd)]
        queries = np.unique(data["qid"])
        for name in names:
            merged = np.empty(len(queries))
            merged[queries % 2 == 0] = parts[0][name]
            merged[queries % 2 == 1] = parts[1][name]
            assert_allclose(whole[name], merged, rtol=1e-13, atol=1e-15, err_msg=name)


# Measures that share per-call caches (the eleven interpolated precisions and 11pt_avg;
# map and gm_map; bpref and gm_bpref; the set measures; the cut-offs of P, recall and
# relative_P; ndcg_rel and Rndcg; unj): each must equal its value computed alone.
_SHARING = [
    *(f"iprec_at_recall_{level:.2f}" for level in (0.0, 0.1, 0.3, 0.5, 1.0)),
    "iprec_at_recall_0.25", "11pt_avg", "map", "gm_map", "map(relevance_threshold=2)",
    "map_cut_5", "bpref", "gm_bpref", "bpref(relevance_threshold=2)", "set_P", "set_recall",
    "set_F", "set_map", "set_relative_P", "num_rel_ret", "utility", "P_5", "P_1000",
    "recall_5", "recall_1000", "relative_P_5", "Rprec", "Rprec_mult_0.20", "Rprec_mult_2.00",
    "success_5", "ndcg_rel", "Rndcg", "G", "unj_5", "unj_20", "rbp_resid",
]


def test_measures_sharing_caches_equal_each_measure_alone():
    rng = np.random.default_rng(7)
    n = 3000
    qid = rng.integers(0, 60, n)
    y_true = rng.integers(0, 4, n).astype(np.float64)
    y_score = rng.integers(0, 40, n).astype(np.float64)  # ties within queries
    retrieved = rng.random(n) < 0.8
    judged = rng.random(n) < 0.7
    y_true[~judged] = 0.0  # an unjudged document has no grade
    # named documents: the trec_eval preset ranks ties by name, and warns without names
    options = dict(qid=qid, retrieved=retrieved, judged=judged, convention="trec_eval",
                   docno=np.arange(n).astype(str))
    together = evaluate_per_query(y_true, y_score, metrics=_SHARING, **options)
    for name in _SHARING:
        alone = evaluate_per_query(y_true, y_score, metrics=[name], **options)
        np.testing.assert_array_equal(together[name], alone[name], err_msg=name)
    for first, second in itertools.combinations(_SHARING, 2):
        assert not np.shares_memory(together[first], together[second]), (first, second)


# --------------------------------------------------------------------------------------
# yaap (m_yaap.c): log((1 + S) / (1 + R - S)), S = AP * R
# --------------------------------------------------------------------------------------
def test_yaap_worked_by_hand():
    # q1: relevant at ranks 1 and 3, one relevant document not retrieved: S = 5/3, R = 3.
    # q2: no relevant document: S = R = 0, log 1 = 0 (defined: no_relevant never applies).
    # q3: relevant at rank 2 of 2, grade 2 (relevant at threshold 2 too): S = 1/2, R = 1.
    y_true = [1, 0, 1, 1, 0, 0, 0, 2]
    y_score = [3.0, 2.0, 1.0, -np.inf, 2.0, 1.0, 2.0, 1.0]
    qid = [1, 1, 1, 1, 2, 2, 3, 3]
    retrieved = np.isfinite(y_score)
    per_query = yaap_score(y_true, y_score, qid=qid, retrieved=retrieved,
                           no_relevant=np.nan, return_per_query=True)
    assert_allclose(per_query, [math.log(8 / 7), 0.0, 0.0], atol=1e-15)
    assert yaap_score(y_true, y_score, qid=qid, retrieved=retrieved) == pytest.approx(
        math.log(8 / 7) / 3, abs=1e-15)
    # threshold 2: q1 and q2 have no relevant document, q3 S = 1/2, R = 1
    assert_allclose(yaap_score(y_true, y_score, qid=qid, retrieved=retrieved,
                               relevance_threshold=2, return_per_query=True), [0.0, 0.0, 0.0])
    # nothing of q1 retrieved (trec_eval -c): S = 0, log(1 / (1 + R))
    assert_allclose(yaap_score(y_true, y_score, qid=qid, retrieved=[False] * 4 + [True] * 4,
                               return_per_query=True)[0], math.log(1 / 4), atol=1e-15)


@pytest.mark.parametrize("ties", ["stable", "average", "optimistic", "pessimistic"])
@pytest.mark.parametrize("threshold", [1, 2])
def test_yaap_is_ap_numerator_transformed(ties, threshold):
    rng = np.random.default_rng(11)
    n = 400
    y_true = rng.integers(0, 4, n)
    y_score = rng.integers(0, 6, n).astype(float)  # many ties
    qid = rng.integers(0, 30, n)
    retrieved = rng.random(n) < 0.8
    common = dict(qid=qid, retrieved=retrieved, relevance_threshold=threshold, ties=ties)
    ap = evaluate_per_query(y_true, y_score, metrics=["map", "num_rel"], no_relevant=0.0,
                            **common)
    numerator = ap["map"] * ap["num_rel"]
    n_relevant = ap["num_rel"]
    assert_allclose(yaap_score(y_true, y_score, return_per_query=True, **common),
                    np.log((1 + numerator) / (1 + n_relevant - numerator)), rtol=1e-12,
                    atol=1e-12)
