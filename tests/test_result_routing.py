"""Every caller computes through the per-query result, and takes its query ids from it.

:func:`evaluate`, the ``*_score`` functions, the scorers, ``cross_validate``, the plots and the
command line build a :class:`PerQueryResult` and aggregate it: the query ids of what they
return are the result's, never worked out again. The judged mask reaches every public
function, and :meth:`PerQueryResult.key` names what each metric computed.
"""

import dataclasses
import inspect
from functools import partial

import numpy as np
import pytest
from _brute_force_judged import READS_JUDGEMENTS
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import Ridge
from sklearn.metrics._scorer import _cached_call

from sklearn_rank.metrics import (
    PerQueryResult,
    aggregate,
    evaluate,
    evaluate_per_query,
    make_ranking_scorer,
    parse_metric,
    rbp_score,
)
from sklearn_rank.metrics._registry import METRICS
from sklearn_rank.model_selection import cross_validate

NAMES = list(METRICS)


def _data(seed=0, n=600, n_queries=40):
    rng = np.random.default_rng(seed)
    qid = rng.permutation(np.repeat(np.arange(n_queries) * 3 + 5, n // n_queries))
    y_true = rng.integers(0, 4, n)
    y_true[qid % 7 == 0] = 0  # queries without a relevant document
    y_score = np.round(rng.random(n), 1)  # ties
    return y_true, y_score, qid


# --------------------------------------------------------------------------------------
# The judged mask, in every public function
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_public_function_takes_the_judged_mask(name):
    function = METRICS[name].function
    parameter = inspect.signature(function).parameters["judged"]
    assert parameter.kind is parameter.KEYWORD_ONLY and parameter.default is None
    y_true, y_score, qid = _data()
    judged = (y_true > 0) | (np.arange(len(y_true)) % 2 == 0)  # half the zeros unjudged
    options = {"max_grade": 3} if "max_grade" in METRICS[name].options else {}
    for per_query in (False, True):
        with_mask = function(y_true, y_score, qid=qid, judged=judged,
                             return_per_query=per_query, **options)
        without = function(y_true, y_score, qid=qid, return_per_query=per_query, **options)
        if name in READS_JUDGEMENTS:  # the unjudged zeros are no judged non-relevant ones
            assert not np.array_equal(with_mask, without, equal_nan=True)
        else:  # an unjudged document counts as non-relevant
            np.testing.assert_array_equal(with_mask, without)
        # the function and evaluate agree, with the mask as without
        np.testing.assert_array_equal(
            evaluate(y_true, y_score, qid=qid, metrics=[name], judged=judged,
                     return_per_query=per_query, **options)[name], with_mask)


@pytest.mark.parametrize("name", NAMES)
def test_every_public_function_checks_the_judged_mask(name):
    function = METRICS[name].function
    with pytest.raises(ValueError, match="judged=False marks a document without a judgement, "
                                         r"but y_true gives 1 such row\(s\) a grade"):
        function([1, 2, 0], [3, 2, 1], qid="single_query", judged=[True, False, True])
    with pytest.raises(ValueError, match="judged has 2"):
        function([1, 2, 0], [3, 2, 1], qid="single_query", judged=[True, False])
    with pytest.raises(TypeError, match="judged must be a boolean mask"):
        function([1, 2, 0], [3, 2, 1], qid="single_query", judged=[0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="judged=False marks a document"):
        evaluate([1, 2, 0], [3, 2, 1], qid="single_query",
                 metrics=[name], judged=[True, False, True])


# --------------------------------------------------------------------------------------
# evaluate and the public functions: one path, arrays as before
# --------------------------------------------------------------------------------------
def test_return_per_query_gives_fresh_writable_arrays():
    y_true, y_score, qid = _data()
    result = evaluate_per_query(y_true, y_score, qid=qid, metrics=["ndcg@5", "map"])
    arrays = evaluate(y_true, y_score, qid=qid, metrics=["ndcg@5", "map"],
                      return_per_query=True)
    for name, values in arrays.items():
        assert values.flags.writeable and values.flags.owndata
        np.testing.assert_array_equal(values, result[name])
    per_query = METRICS["ndcg"].function(y_true, y_score, qid=qid, k=5, return_per_query=True)
    assert per_query.flags.writeable
    per_query[0] = -1.0  # the caller's to change
    score, residual = rbp_score(y_true, y_score, qid=qid, return_residual=True,
                                return_per_query=True)
    assert score.flags.writeable and residual.flags.writeable


def test_all_skipped_warning_points_at_the_callers_line():
    kwargs = dict(qid=[1, 1, 2, 2], no_relevant=np.nan)
    calls = [
        lambda: evaluate([0, 0, 0, 0], [1, 2, 3, 4], metrics=["map"], **kwargs),
        lambda: METRICS["ndcg"].function([0, 0, 0, 0], [1, 2, 3, 4], **kwargs),
        lambda: rbp_score([0, 0, 0, 0], [1, 2, 3, 4], **kwargs),
        lambda: rbp_score([0, 0, 0, 0], [1, 2, 3, 4], return_residual=True, **kwargs),
        lambda: aggregate(evaluate_per_query([0, 0, 0, 0], [1, 2, 3, 4], metrics=["map"],
                                             **kwargs)),
    ]
    for call in calls:
        with pytest.warns(UndefinedMetricWarning, match="every query was skipped") as record:
            call()
        assert [w.filename for w in record] == [__file__]


def test_sum_aggregation_reads_the_weights_in_their_units(monkeypatch):
    """A sum, unlike a mean, depends on the weights themselves: results whose weights are
    kept scaled (extreme weights) are summed in the units of sample_weight."""
    counts = dataclasses.replace(METRICS["recall"], name="num_rel_ret", aggregation="sum")
    monkeypatch.setitem(METRICS, "num_rel_ret", counts)
    options = {"m": {"metric": "num_rel_ret"}}
    scaled = PerQueryResult([1, 2], {"m": [1.0, 2.0]}, query_weight=[0.5, 1.0],
                            weight_unit=4.0, options=options)
    plain = PerQueryResult([1, 2], {"m": [1.0, 2.0]}, query_weight=[2.0, 4.0], options=options)
    assert aggregate(scaled) == aggregate(plain) == {"m": 10.0}
    # the mean reads ratios only: the same either way
    means = {"m": {"metric": "recall"}}
    assert aggregate(PerQueryResult([1, 2], {"m": [1.0, 2.0]}, query_weight=[0.5, 1.0],
                                    weight_unit=4.0, options=means)) == {"m": 5 / 3}


# --------------------------------------------------------------------------------------
# Canonical keys of a result
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("convention", [None, "trec_eval", "lightgbm"])
def test_result_key_names_the_same_numbers(convention):
    y_true, y_score, qid = _data()
    names = ["ndcg@5", "AP", "P@100", "rbp(p=0.5, graded=true)", "err@3", "kendall_tau"]
    # named documents: the trec_eval preset ranks ties by name, and warns without names
    docno = np.array([f"d{i}" for i in range(len(y_true))])
    result = evaluate_per_query(y_true, y_score, qid=qid, metrics=names, docno=docno,
                                convention=convention, no_relevant=np.nan)
    keys = [result.key(name) for name in names]
    again = evaluate_per_query(y_true, y_score, qid=qid, metrics=keys, docno=docno)
    for name, key in zip(names, keys):
        metric, fixed = parse_metric(key)
        assert metric.name == result.options[name]["metric"]
        assert metric.key(fixed) == key
        np.testing.assert_array_equal(again[key], result[name], err_msg=key)
    # max_grade=None stood for the largest grade of the rows: the key says which
    assert "max_grade=3" in result.key("err@3")


def test_result_key_errors():
    result = evaluate_per_query([1, 0], [2, 1], qid="single_query", metrics=["mrr"])
    assert result.key("mrr") == "mrr"
    with pytest.raises(KeyError, match="'map' is not a metric of this result"):
        result.key("map")
    by_hand = PerQueryResult([1, 2], {"m": [1.0, 0.5]})
    with pytest.raises(ValueError, match="do not name a metric of the registry"):
        by_hand.key("m")


# --------------------------------------------------------------------------------------
# The scorer and cross_validate
# --------------------------------------------------------------------------------------
def test_scorer_evaluates_to_a_result():
    rng = np.random.default_rng(0)
    y_true, _, qid = _data()
    qid = np.array([f"q{q}" for q in qid])  # "q11" sorts before "q5"
    X = rng.normal(size=(len(qid), 3)) + y_true[:, None]
    model = Ridge().fit(X, y_true)
    scorer = make_ranking_scorer("ndcg@5", ties="stable")
    result = scorer._evaluate(partial(_cached_call, None), model, X, y_true, qid=qid)
    assert isinstance(result, PerQueryResult) and result.metrics == ("ndcg@5",)
    np.testing.assert_array_equal(result.query_ids, np.unique(qid))
    expected = evaluate_per_query(y_true, model.predict(X), qid=qid, metrics=["ndcg@5"],
                                  ties="stable")
    assert result == expected
    assert scorer(model, X, y_true, qid=qid) == aggregate(result)["ndcg@5"]


def test_cross_validate_per_query_ids_are_the_results():
    rng = np.random.default_rng(1)
    y_true, _, qid = _data(seed=1)
    qid = np.array([f"q{q}" for q in qid])
    X = rng.normal(size=(len(qid), 3)) + y_true[:, None]
    scoring = {"a": make_ranking_scorer("map"), "b": make_ranking_scorer("mrr@3")}
    cv = cross_validate(Ridge(), X, y_true, qid=qid, scoring=scoring, cv=3,
                        return_per_query=True, return_predictions=True, return_indices=True)
    per_query = cv["per_query"]  # a PerQueryResult with a fold column (was a dict)
    assert per_query.metrics == ("a", "b")
    for fold, test in enumerate(cv["indices"]["test"]):
        rows = per_query.fold == fold
        result = evaluate_per_query(y_true[test], cv["predictions"][test], qid=qid[test],
                                    metrics=["map", "mrr@3"])
        np.testing.assert_array_equal(per_query.query_ids[rows], result.query_ids)
        np.testing.assert_array_equal(per_query["a"][rows], result["map"])
        np.testing.assert_array_equal(per_query["b"][rows], result["mrr@3"])
        assert per_query["a"][rows].mean() == pytest.approx(cv["test_a"][fold], rel=1e-12)


# --------------------------------------------------------------------------------------
# The plots
# --------------------------------------------------------------------------------------
def test_metric_at_k_display_takes_ids_and_means_from_the_result():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from sklearn_rank.plot import MetricAtKDisplay, PerQueryDifferenceDisplay

    y_true, y_score, qid = _data()
    qid = np.array([f"q{q}" for q in qid])
    display = MetricAtKDisplay.from_predictions(y_true, y_score, qid=qid, metric="ndcg",
                                                ks=[1, 5], no_relevant=np.nan)
    result = evaluate_per_query(y_true, y_score, qid=qid, metrics=["ndcg@1", "ndcg@5"],
                                no_relevant=np.nan)
    np.testing.assert_array_equal(display.query_ids, result.query_ids)
    assert display.values.tolist() == list(aggregate(result).values())
    assert MetricAtKDisplay.from_predictions(y_true, y_score, qid="single_query", metric="ndcg",
                                             ks=2).query_ids is None

    other = y_score[::-1].copy()
    diff = PerQueryDifferenceDisplay.from_predictions(y_true, y_score, other, qid=qid,
                                                      metric="map", no_relevant=np.nan,
                                                      n_resamples=99, random_state=0)
    a = evaluate_per_query(y_true, y_score, qid=qid, metrics=["map"], no_relevant=np.nan)
    b = evaluate_per_query(y_true, other, qid=qid, metrics=["map"], no_relevant=np.nan)
    kept = ~np.isnan(a["map"])
    by_id = dict(zip(a.query_ids[kept], a["map"][kept] - b["map"][kept]))
    assert sorted(diff.query_ids) == sorted(by_id)
    assert [by_id[q] for q in diff.query_ids] == diff.differences.tolist()
    plt.close("all")


def test_metric_at_k_display_says_when_every_query_was_skipped():
    """The curve's means are aggregate's: NaN with a warning, never a silent NaN."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from sklearn_rank.plot import MetricAtKDisplay

    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        display = MetricAtKDisplay.from_predictions([0, 0, 0, 0], [1, 2, 3, 4],
                                                    qid=[1, 1, 2, 2], ks=2,
                                                    no_relevant=np.nan)
    assert np.isnan(display.values).all()
    plt.close("all")
