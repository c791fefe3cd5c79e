"""Per-query results, their aggregation and merging, and the judged mask.

:func:`aggregate` of one :func:`evaluate_per_query` result must give :func:`evaluate`'s means
bit for bit; of results on chunks of disjoint queries, the means of one call on all rows.
"""

import pickle
import sys
import warnings
from copy import deepcopy

import numpy as np
import pytest
from _brute_force_judged import READS_JUDGEMENTS
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank.datasets import read_trec
from sklearn_rank.metrics import (
    PerQueryResult,
    aggregate,
    evaluate,
    evaluate_per_query,
)
from sklearn_rank.metrics._input import check_ranking_input
from sklearn_rank.metrics._names import parse_metric
from sklearn_rank.metrics._registry import METRICS
from sklearn_rank.utils._qid import unique_ids

# Every metric of the registry, with a cut-off where it takes one, and the graded variants.
NAMES = [f"{m.name}@5" if "k" in m.options else m.name for m in METRICS.values()]
NAMES += ["rbp(graded=true, max_grade=3)", "err(max_grade=3)", "map", "p@100"]


def _data(seed=0, n=2000, n_queries=200, ties=True):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n)
    y_true = rng.integers(0, 4, n)
    y_true[qid % 17 == 0] = 0  # queries without a relevant document
    y_true[qid % 19 == 0] = 2  # queries whose grades are all equal
    y_score = rng.random(n)
    if ties:
        y_score = np.round(y_score, 1)
    return y_true, y_score, qid, rng.random(n) * 3


def _same(a, b):
    return a == b or (np.isnan(a) and np.isnan(b))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("no_relevant", [0.0, 1.0, np.nan])
@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic"])
def test_aggregate_is_evaluate_bit_for_bit(weighted, no_relevant, ties):
    y_true, y_score, qid, weight = _data()
    weight = weight if weighted else None
    kwargs = dict(qid=qid, metrics=NAMES, sample_weight=weight, no_relevant=no_relevant)
    result = evaluate_per_query(y_true, y_score, ties=ties, **kwargs)
    means = evaluate(y_true, y_score, ties=ties, **kwargs)
    arrays = evaluate(y_true, y_score, ties=ties, return_per_query=True, **kwargs)
    aggregated = aggregate(result)
    assert list(aggregated) == NAMES
    for name in NAMES:
        assert _same(aggregated[name], means[name]), name
        assert np.array_equal(result[name], arrays[name], equal_nan=True), name
    np.testing.assert_array_equal(result.query_ids, unique_ids(qid))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("no_relevant", [0.0, 1.0, np.nan])
@pytest.mark.parametrize("ties", ["average", "stable", "optimistic"])
@pytest.mark.parametrize("n_chunks", [2, 5])
def test_aggregate_of_chunks_is_one_call(weighted, no_relevant, ties, n_chunks):
    y_true, y_score, qid, weight = _data(seed=n_chunks)
    weight = weight if weighted else None
    # chunks of whole queries, in an order unrelated to the ids
    chunk = np.random.default_rng(1).integers(0, n_chunks, qid.max() + 1)[qid]
    # each chunk holds the top grade, by which ERR scales grades: see test_max_grade_...
    y_true[[np.flatnonzero(chunk == c)[0] for c in range(n_chunks)]] = 3
    options = dict(metrics=NAMES, no_relevant=no_relevant, ties=ties)
    whole = evaluate_per_query(y_true, y_score, qid=qid, sample_weight=weight, **options)
    means = evaluate(y_true, y_score, qid=qid, sample_weight=weight, **options)
    parts = []
    for c in range(n_chunks)[::-1]:
        rows = chunk == c
        parts.append(evaluate_per_query(
            y_true[rows], y_score[rows], qid=qid[rows],
            sample_weight=None if weight is None else weight[rows], **options))
    assert PerQueryResult.concat(parts) == whole
    aggregated = aggregate(*parts)
    for name in NAMES:
        assert _same(aggregated[name], means[name]), name


def test_aggregate_of_chunks_with_string_ids():
    y_true, y_score, qid, _ = _data(ties=False)
    qid = np.array([f"q{q}" for q in qid])  # "q10" sorts before "q9"
    first = np.isin(qid, qid[::3])
    a = evaluate_per_query(y_true[first], y_score[first], qid=qid[first], metrics=["ndcg@3"])
    b = evaluate_per_query(y_true[~first], y_score[~first], qid=qid[~first], metrics=["ndcg@3"])
    merged = PerQueryResult.concat([b, a])
    np.testing.assert_array_equal(merged.query_ids, unique_ids(qid))
    assert aggregate(b, a) == evaluate(y_true, y_score, qid=qid, metrics=["ndcg@3"])


def test_extreme_weights_merge_in_one_unit():
    y_true, y_score, qid, weight = _data(ties=False)
    first = qid < 100
    weight = np.where(first, weight * 5e307, weight)  # sums overflow in the first chunk
    kwargs = dict(metrics=["ndcg@5", "map"])
    a = evaluate_per_query(y_true[first], y_score[first], qid=qid[first],
                           sample_weight=weight[first], **kwargs)
    b = evaluate_per_query(y_true[~first], y_score[~first], qid=qid[~first],
                           sample_weight=weight[~first], **kwargs)
    assert a.weight_unit == weight[first].max() and b.weight_unit == 1.0
    whole = evaluate(y_true, y_score, qid=qid, sample_weight=weight, **kwargs)
    merged = aggregate(a, b)
    for name in whole:
        assert merged[name] == pytest.approx(whole[name], rel=1e-12)
    # and the second chunk weighs next to nothing, as in the whole
    alone = evaluate(y_true[first], y_score[first], qid=qid[first],
                     sample_weight=weight[first], **kwargs)
    assert merged["map"] == pytest.approx(alone["map"], rel=1e-9)


def test_all_skipped_warns_as_evaluate():
    kwargs = dict(qid=[1, 1, 2, 2], metrics=["map"], no_relevant=np.nan)
    with pytest.warns(UndefinedMetricWarning, match="every query was skipped") as record:
        mean = aggregate(evaluate_per_query([0, 0, 0, 0], [1, 2, 3, 4], **kwargs))["map"]
    assert np.isnan(mean)
    assert record[0].filename == __file__  # the warning points at the caller of aggregate
    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        assert np.isnan(evaluate([0, 0, 0, 0], [1, 2, 3, 4], **kwargs)["map"])


def test_zero_total_weight_raises_as_evaluate():
    kwargs = dict(qid=[1, 1, 2, 2], metrics=["ndcg"], sample_weight=[0, 0, 0, 0])
    result = evaluate_per_query([1, 0, 1, 0], [1, 2, 3, 4], **kwargs)
    with pytest.raises(ValueError, match="weight of zero"):
        aggregate(result)
    with pytest.raises(ValueError, match="weight of zero"):
        evaluate([1, 0, 1, 0], [1, 2, 3, 4], **kwargs)


def _two_chunks(**options):
    y_true, y_score, qid = [1, 0, 2, 1, 0, 1], [3, 2, 1, 3, 2, 1], [1, 1, 1, 2, 2, 2]
    a = evaluate_per_query(y_true[:3], y_score[:3], qid=qid[:3], **options)
    return a, (y_true[3:], y_score[3:], qid[3:])


@pytest.mark.parametrize(
    "first, second, error, message",
    [({}, {"qid": [1, 1, 1]}, ValueError, r"appear in more than one result \(e.g. 1\).*split"),
     ({}, {"metrics": ["ndcg", "map"]}, ValueError, "different metrics"),
     ({}, {"ties": "stable"}, ValueError, "differ in ties: '(average|stable)' vs"),
     ({}, {"convention": "trec_eval"}, ValueError, "differ in convention.*gain"),
     ({"no_relevant": np.nan}, {"no_relevant": 0.0}, ValueError, "differ in no_relevant"),
     ({}, {"sample_weight": [1, 1, 1]}, ValueError, "weighted and unweighted"),
     ({}, {"qid": ["a", "a", "a"]}, TypeError, "numbers in some and not in others")],
)
def test_what_cannot_be_merged(first, second, error, message):
    a, (y_true, y_score, qid) = _two_chunks(metrics=["ndcg"], **first)
    metrics = second.pop("metrics", ["ndcg"])
    b = evaluate_per_query(y_true, y_score, **{"qid": qid, "metrics": metrics, **second})
    with pytest.raises(error, match=message):
        aggregate(a, b)
    with pytest.raises(error, match=message):
        PerQueryResult.concat([b, a])


def test_nan_options_merge():
    a, (y_true, y_score, qid) = _two_chunks(metrics=["map"], no_relevant=np.nan)
    b = evaluate_per_query(y_true, y_score, qid=qid, metrics=["map"], no_relevant=np.nan)
    assert aggregate(a, b)["map"] == evaluate(
        [1, 0, 2, 1, 0, 1], [3, 2, 1, 3, 2, 1], qid=[1, 1, 1, 2, 2, 2], metrics=["map"],
        no_relevant=np.nan)["map"]


def test_max_grade_from_the_data_is_recorded_and_refuses_to_merge():
    """ERR scales grades by the largest one of the rows given: chunks with different largest
    grades computed different things, and merging them would be a wrong number."""
    a = evaluate_per_query([1, 0], [2, 1], qid=[1, 1], metrics=["err", "rbp"])
    b = evaluate_per_query([4, 0], [2, 1], qid=[2, 2], metrics=["err", "rbp"])
    assert a.options["err"]["max_grade"] == 1 and b.options["err"]["max_grade"] == 4
    assert a.options["rbp"]["max_grade"] is None  # binary RBP does not read it
    with pytest.raises(ValueError, match="max_grade: 1 vs 4.*pass max_grade explicitly"):
        aggregate(a, b)
    fixed = [evaluate_per_query(y, s, qid=q, metrics=["err"], max_grade=4)
             for y, s, q in (([1, 0], [2, 1], [1, 1]), ([4, 0], [2, 1], [2, 2]))]
    assert aggregate(*fixed) == evaluate([1, 0, 4, 0], [2, 1, 2, 1], qid=[1, 1, 2, 2],
                                         metrics=["err"])


def test_options_are_resolved():
    result = evaluate_per_query([1, 0, 2], [3, 2, 1], qid="single_query",
                                metrics=["ndcg@1000", "P@5", "map"],
                                convention="trec_eval", no_relevant=np.nan)
    ndcg = result.options["ndcg@1000"]
    assert ndcg == {"metric": "ndcg", "convention": "trec_eval", "k": 1000, "gain": "linear",
                    "discount": "log", "log_base": 2.0, "ties": "stable",
                    "no_relevant": ndcg["no_relevant"], "unjudged": "nonrelevant"}
    assert np.isnan(ndcg["no_relevant"])
    assert result.options["P@5"]["short_lists"] == "k"
    assert result.options["map"]["metric"] == "map" and result.options["map"]["k"] is None


def test_result_object():
    y_true, y_score, qid = [1, 0, 0, 2, 1], [0.3, 0.9, 0.5, 0.1, 0.2], ["b", "a", "a", "b", "c"]
    result = evaluate_per_query(y_true, y_score, qid=qid, metrics=["ndcg@2", "mrr"],
                                sample_weight=[1, 2, 2, 1, 4])
    assert repr(result) == "PerQueryResult(n_queries=3, metrics=['ndcg@2', 'mrr'], weighted)"
    assert len(result) == 3 and result.metrics == ("ndcg@2", "mrr") and "mrr" in result
    assert result.query_ids.tolist() == ["a", "b", "c"]
    assert result.undefined["mrr"].tolist() == [True, False, False]
    assert result.query_weight.tolist() == [2.0, 1.0, 4.0]
    with pytest.raises(KeyError, match="'map' is not a metric of this result"):
        result["map"]
    with pytest.raises(TypeError, match="not iterable"):
        iter(result)
    for array in (result.query_ids, result["mrr"], result.undefined["mrr"],
                  result.query_weight):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = array[1]
    with pytest.raises(TypeError):
        result.values["mrr"] = np.zeros(3)
    with pytest.raises(TypeError):
        result.options["mrr"]["ties"] = "stable"
    with pytest.raises(AttributeError):
        result.query_weight = None
    copy = PerQueryResult(**result.to_dict())
    assert copy == result and copy is not result
    # Dask ships results between processes; copies are read-only too
    for clone in (pickle.loads(pickle.dumps(result)), deepcopy(result)):
        assert clone == result and not clone["mrr"].flags.writeable
    assert result != evaluate_per_query(y_true, y_score, qid=qid, metrics=["ndcg@2", "mrr"])
    assert (result == "x") is False


def test_to_frame():
    pytest.importorskip("pandas")
    result = evaluate_per_query([1, 0, 0, 2], [0.3, 0.9, 0.5, 0.1], qid=[7, 3, 3, 7],
                                metrics=["ndcg@2", "mrr"])
    frame = result.to_frame()
    assert frame.index.name == "qid" and frame.index.tolist() == [3, 7]
    assert frame.columns.tolist() == ["ndcg@2", "mrr"]
    np.testing.assert_array_equal(frame["mrr"], result["mrr"])
    frame.loc[3, "mrr"] = 5.0  # the frame is the caller's, the result stays as it was
    assert result["mrr"][0] == 0.0


def test_to_frame_without_pandas(monkeypatch):
    result = evaluate_per_query([1, 0], [2, 1], qid="single_query", metrics=["mrr"])
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if not installed
    with pytest.raises(ImportError, match=r'PerQueryResult.to_frame needs .*"sklearn-rank'
                                          r'\[pandas\]"'):
        result.to_frame()


@pytest.mark.parametrize(
    "kwargs, error, message",
    [({"query_ids": [2, 1]}, ValueError, "distinct and in increasing order"),
     ({"query_ids": [1, 1]}, ValueError, "distinct and in increasing order"),
     ({"values": {"mrr": [1.0]}}, ValueError, r"values\['mrr'\] must have one entry per query"),
     ({"values": {}}, TypeError, "non-empty dict"),
     ({"undefined": {"map": [True, False]}}, ValueError, "names metric.*'map'.*values lacks"),
     ({"query_weight": [1.0, -1.0]}, ValueError, "non-negative"),
     ({"weight_unit": 0.0}, ValueError, "finite positive"),
     ({"query_ids": [[1, 2]]}, ValueError, "must be 1-D")],
)
def test_constructor_checks(kwargs, error, message):
    arguments = {"query_ids": [1, 2], "values": {"mrr": [1.0, 0.5]}, **kwargs}
    with pytest.raises(error, match=message):
        PerQueryResult(**arguments)


def test_single_query_without_qid():
    result = evaluate_per_query([1, 0, 2], [3, 2, 1], qid="single_query", metrics="ndcg")
    assert result.query_ids.tolist() == [0] and len(result) == 1


@pytest.mark.parametrize(
    "kwargs, error, message",
    [({"metrics": ["ndgc@10"]}, ValueError, "Unknown metric name 'ndgc@10'. Did you mean"),
     ({"metrics": []}, ValueError, "metrics is empty"),
     ({"metrics": ["map"], "gain": "linear"}, TypeError,
      r"evaluate_per_query\(\) got option\(s\) \['gain'\] that none of the metrics"),
     ({"metrics": ["rbp(p=0.5)"], "persistence": 0.9}, TypeError, "would have no effect"),
     ({"metrics": ["ndcg"], "ties": "random"}, ValueError,
      r"evaluate_per_query \(metric 'ndcg'\)"),
     ({"metrics": ["ndcg"], "convention": "ranx"}, ValueError, "convention"),
     ({"metrics": ["map"], "no_relevant": "raise"}, ValueError, "no_relevant='raise'")],
)
def test_evaluate_per_query_errors_as_evaluate(kwargs, error, message):
    with pytest.raises(error, match=message):
        evaluate_per_query([0, 0, 1, 0], [1, 2, 3, 4], qid=[1, 1, 2, 2], **kwargs)


# --------------------------------------------------------------------------------------
# The judged mask
# --------------------------------------------------------------------------------------


def test_judged_mask_is_kept_and_read_only_by_the_measures_of_judgements():
    y_true, y_score, qid, weight = _data()
    judged = (y_true > 0) | (np.arange(len(y_true)) % 3 == 0)
    data = check_ranking_input(y_true, y_score, qid, judged=judged)
    assert data.judged_mask is not None and data.judged_mask.sum() == judged.sum()
    assert check_ranking_input(y_true, y_score, qid).judged_mask is None
    # a mask that excludes nothing is no mask: nothing to pay for
    everything = np.ones(len(qid), dtype=bool)
    assert check_ranking_input(y_true, y_score, qid, judged=everything).judged_mask is None
    assert set(METRICS) >= READS_JUDGEMENTS
    names = [n for n in NAMES if parse_metric(n)[0].name not in READS_JUDGEMENTS]
    kwargs = dict(qid=qid, metrics=names, sample_weight=weight)
    assert (evaluate_per_query(y_true, y_score, judged=judged, **kwargs)
            == evaluate_per_query(y_true, y_score, **kwargs))
    # the others read the mask: each of them changes when a zero-graded row is unjudged
    for name in sorted(READS_JUDGEMENTS):
        masked = evaluate(y_true, y_score, qid=qid, metrics=[name], judged=judged)[name]
        plain = evaluate(y_true, y_score, qid=qid, metrics=[name])[name]
        assert masked != plain, name


@pytest.mark.parametrize(
    "judged, error, message",
    [([True, False], ValueError, "judged has 2"),
     ([0.0, 1.0, 1.0], TypeError, "judged must be a boolean mask; got dtype float64"),
     ([0, 2, 1], TypeError, "judged must be a boolean mask; got dtype int64"),
     ([[True, True, True]], ValueError, "judged"),
     ([True, False, True], ValueError,
      r"judged=False marks a document without a judgement, but y_true gives 1 such row\(s\) "
      r"a grade, e.g. 2 at row 1")],
)
def test_judged_mask_checks(judged, error, message):
    with pytest.raises(error, match=message):
        evaluate_per_query([1, 2, 0], [3, 2, 1], qid="single_query", metrics=["map"], judged=judged)


def test_judged_mask_of_integers():
    data = check_ranking_input([1, 0, 0], [3, 2, 1], "single_query", judged=[1, 1, 0])
    assert data.judged_mask.dtype == bool and data.judged_mask.tolist() == [True, True, False]


def test_read_trec_fills_the_judged_mask(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b -1\n1 0 z 2\n2 0 x 1\n9 0 q 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 0.5 s\n1 Q0 b 2 0.5 s\n1 Q0 c 3 0.9 s\n"
                                  "2 Q0 y 1 0.1 s\n3 Q0 w 1 0.7 s\n")
    with pytest.warns(UserWarning, match=r"\('9'\)"):
        d = read_trec(tmp_path / "qrels", tmp_path / "run")
    assert list(d) == ["y_true", "y_score", "qid", "retrieved", "docno", "judged",
                       "run_only_queries", "qrels_only_queries"]
    assert d["docno"].tolist() == ["c", "b", "a", "z", "y", "x"]
    assert d["run_only_queries"].tolist() == ["3"]
    assert d["qrels_only_queries"].tolist() == ["9"]
    # c and y are retrieved but not in the qrels (NaN); b is in the pool, judged -1
    assert d["judged"].tolist() == [False, False, True, True, False, True]
    assert d["judged"].dtype == bool
    np.testing.assert_array_equal(d["y_true"], [np.nan, -1, 1, 2, np.nan, 1])
    common = {"qid": d["qid"], "retrieved": d["retrieved"], "docno": d["docno"],
              "metrics": ["map", "P@2", "bpref"],
              "convention": "trec_eval"}
    # y_true read as the mask, and the grades with the mask, are one evaluation
    grades = np.where(d["judged"], d["y_true"], 0.0)
    result = evaluate_per_query(d["y_true"], d["y_score"], judged="y_true", **common)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        masked = evaluate_per_query(grades, d["y_score"], judged=d["judged"], **common)
    assert aggregate(result) == aggregate(masked)
    for metric in common["metrics"]:
        np.testing.assert_array_equal(result[metric], masked[metric])
    # query 1 ranks c, b, a: a (relevant) third; z, relevant, never retrieved
    np.testing.assert_allclose(result["map"], [(1 / 3) / 2, 0.0])
    # NaN never passes without judged="y_true"
    with pytest.raises(ValueError, match="y_true"):
        evaluate(d["y_true"], d["y_score"], qid=d["qid"], metrics=["map"])
