"""PerQueryResult as the one per-query type: its fold column, cross_validate's per-query
output, and the statistics and plots reading it directly (issue 20, item 2)."""

import pickle
from copy import deepcopy

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from sklearn_rank.metrics import PerQueryResult, aggregate, evaluate_per_query


def _folds(n_folds=3, n_queries=12, seed=0, metrics=("ndcg@5", "mrr")):
    """Each fold's result on its own queries (fold k tests ids k, k + n_folds, ...)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), 6)
    y = rng.integers(0, 3, len(qid))
    y[qid == 4] = 0  # a query without a relevant document: undefined for every metric
    score = rng.random(len(qid))
    results = []
    for k in range(n_folds):
        rows = qid % n_folds == k
        results.append(evaluate_per_query(y[rows], score[rows], qid=qid[rows],
                                          metrics=list(metrics)))
    return results, (y, score, qid)


# ----------------------------------------------------------------------------------------
# The fold column
# ----------------------------------------------------------------------------------------


def test_with_fold_and_concat_give_the_fold_column():
    folds, (y, score, qid) = _folds()
    cv = PerQueryResult.concat([r.with_fold(k) for k, r in enumerate(folds)])
    assert repr(cv) == "PerQueryResult(n_queries=12, metrics=['ndcg@5', 'mrr'], n_folds=3)"
    assert_array_equal(cv.query_ids, np.arange(12))
    assert_array_equal(cv.fold, np.arange(12) % 3)
    assert cv.fold.dtype == np.int64
    with pytest.raises(ValueError, match="read-only"):
        cv.fold[0] = 1
    # the values, masks and options are those of one call on all the rows
    whole = evaluate_per_query(y, score, qid=qid, metrics=["ndcg@5", "mrr"])
    for m in whole.metrics:
        assert_array_equal(cv[m], whole[m])
        assert_array_equal(cv.undefined[m], whole.undefined[m])
        assert cv.undefined[m][4]
    assert dict(cv.options) == dict(whole.options)
    assert aggregate(cv) == aggregate(whole)
    # without folds, concat is as it was
    plain = PerQueryResult.concat(folds)
    assert plain.fold is None and plain == whole
    assert cv != plain and plain != cv


def test_fold_column_survives_eq_pickle_to_dict_and_frames():
    folds, _ = _folds()
    cv = PerQueryResult.concat([r.with_fold(k) for k, r in enumerate(folds)])
    for clone in (pickle.loads(pickle.dumps(cv)), deepcopy(cv), PerQueryResult(**cv.to_dict())):
        assert clone == cv
        assert_array_equal(clone.fold, cv.fold)
    assert_array_equal(cv.to_dict()["fold"], cv.fold)
    assert cv.to_dict()["fold"] is not cv.fold  # a copy
    relabelled = PerQueryResult(**{**cv.to_dict(), "fold": (cv.fold + 1) % 3})
    assert relabelled != cv
    pd = pytest.importorskip("pandas")
    frame = cv.to_frame()
    assert list(frame.columns) == ["fold", "ndcg@5", "mrr"]
    assert frame.index.name == "qid"
    assert_array_equal(frame.index, cv.query_ids)
    assert_array_equal(frame["fold"], cv.fold)
    assert "fold" not in folds[0].to_frame().columns
    assert isinstance(frame, pd.DataFrame)


def test_a_query_in_several_folds():
    """Repeated cross-validation: a query has one entry per fold, by id then fold."""
    first, _ = _folds(seed=1)
    second, _ = _folds(seed=2)
    results = [r.with_fold(k) for k, r in enumerate(first + second)]
    cv = PerQueryResult.concat(results[::-1])  # in any order
    assert len(cv) == 24 and repr(cv).endswith("n_folds=6)")
    assert_array_equal(cv.query_ids, np.repeat(np.arange(12), 2))
    assert_array_equal(cv.fold, np.column_stack([np.arange(12) % 3,
                                                 np.arange(12) % 3 + 3]).ravel())
    assert pickle.loads(pickle.dumps(cv)) == cv
    # a query twice in one fold is refused, as a query split across chunks is
    with pytest.raises(ValueError, match="appear in two results of the same fold"):
        PerQueryResult.concat([first[0].with_fold(0), second[0].with_fold(0)])
    with pytest.raises(ValueError, match="would put it twice in fold 0"):
        cv.with_fold(0)


@pytest.mark.parametrize(("fold", "error", "message"), [
    ([0, 1], ValueError, r"fold must have one entry per query \(3\); got 2"),
    ([0.0, 1.0, 2.0], TypeError, "fold must hold integers.*got an array of dtype float64"),
    ([True, False, True], TypeError, "fold must hold integers.*dtype bool"),
    (["a", "b", "c"], TypeError, "fold must hold integers"),
    ([0, -1, 2], ValueError, r"fold must hold non-negative integers \(0, 1, ...\); got -1 at "
                             "position 1"),
    ([[0, 1, 2]], ValueError, "fold must be 1-D"),
])
def test_fold_is_validated(fold, error, message):
    with pytest.raises(error, match=message):
        PerQueryResult([1, 2, 3], {"m": [0.1, 0.2, 0.3]}, fold=fold)


def test_fold_order_and_labels_are_checked():
    # a query twice without folds, or twice in one fold, is refused
    with pytest.raises(ValueError, match="distinct and in increasing order"):
        PerQueryResult([1, 1], {"m": [0.1, 0.2]})
    with pytest.raises(ValueError, match=r"no \(query id, fold\) pair may repeat"):
        PerQueryResult([1, 1], {"m": [0.1, 0.2]}, fold=[0, 0])
    with pytest.raises(ValueError, match="increasing order of query id, then fold"):
        PerQueryResult([1, 1], {"m": [0.1, 0.2]}, fold=[1, 0])
    twice = PerQueryResult([1, 1, 2], {"m": [0.1, 0.2, 0.3]}, fold=np.array([0, 1, 1],
                                                                             dtype=np.uint8))
    assert twice.fold.dtype == np.int64 and twice.fold.tolist() == [0, 1, 1]
    with pytest.raises(ValueError, match="A metric named 'fold'"):
        PerQueryResult([1], {"fold": [0.5]}, fold=[0])
    for bad in (-1, 1.0, True, "0", None):
        with pytest.raises(ValueError, match="fold must be a non-negative integer"):
            PerQueryResult([1], {"m": [0.5]}).with_fold(bad)
    assert PerQueryResult([1], {"m": [0.5]}).with_fold(np.int32(4)).fold.tolist() == [4]


def test_results_with_and_without_folds_are_not_merged():
    folds, _ = _folds()
    with pytest.raises(ValueError, match="Cannot merge results with folds and results without: "
                                         "result 0 has fold column, result 1 has no"):
        PerQueryResult.concat([folds[0].with_fold(0), folds[1]])
    with pytest.raises(ValueError, match="result 0 has no fold column, result 2 has"):
        aggregate(folds[0], folds[1], folds[2].with_fold(2))


# ----------------------------------------------------------------------------------------
# cross_validate(return_per_query=True) returns a PerQueryResult with folds
# ----------------------------------------------------------------------------------------


def _ranking(n_queries=24, seed=0):
    from sklearn_rank.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=n_queries, n_features=6, max_docs=15, random_state=seed)
    y[qid == qid[0]] = 0  # a query without a relevant document: undefined there
    return X, y, qid * 7 + 3  # ids that are not row numbers


def _old_dict(result):
    """cross_validate's per-query output as the dict of columns it was before."""
    return {"qid": result.query_ids, "fold": result.fold, **result.values}


def test_cross_validate_returns_a_per_query_result_with_folds_masks_and_options():
    from sklearn.linear_model import Ridge

    from sklearn_rank.metrics import make_ranking_scorer
    from sklearn_rank.model_selection import QueryKFold, cross_validate

    X, y, qid = _ranking()
    cv = QueryKFold(3, shuffle=True, random_state=0)
    scoring = {"ndcg": "ndcg@10", "linear": make_ranking_scorer("ndcg@10", gain="linear"),
               "err@10": "err@10"}
    result = cross_validate(Ridge(), X, y, qid=qid, scoring=scoring, cv=cv,
                            return_per_query=True, return_predictions=True)
    per_query = result["per_query"]
    assert isinstance(per_query, PerQueryResult)
    assert per_query.metrics == ("ndcg", "linear", "err@10")
    assert_array_equal(per_query.query_ids, np.unique(qid))
    assert per_query.query_weight is None
    predictions = result["predictions"]
    for fold, (_, test) in enumerate(cv.split(X, y, qid=qid)):
        in_fold = per_query.fold == fold
        assert_array_equal(per_query.query_ids[in_fold], np.unique(qid[test]))
        expected = evaluate_per_query(y[test], predictions[test], qid=qid[test],
                                      metrics=["ndcg@10", "ndcg@10(gain=linear)",
                                               "err@10(max_grade=4)"])
        for name, key in zip(per_query.metrics, expected.metrics):
            assert_array_equal(per_query[name][in_fold], expected[key])
            assert_array_equal(per_query.undefined[name][in_fold], expected.undefined[key])
            assert result[f"test_{name}"][fold] == aggregate(expected)[key]
    # the masks and options that the dict of columns dropped
    assert per_query.undefined["ndcg"][per_query.query_ids == qid[0]].all()
    assert per_query.options["linear"]["gain"] == "linear"
    assert per_query.key("err@10") == "err@10(max_grade=4)"
    with pytest.raises(KeyError, match="Its query ids are result.query_ids"):
        per_query["qid"]
    with pytest.raises(KeyError, match="Its folds are result.fold"):
        per_query["fold"]


def test_cross_validate_keeps_query_weights_and_repeated_queries():
    import sklearn
    from sklearn.linear_model import Ridge

    from sklearn_rank.metrics import make_ranking_scorer
    from sklearn_rank.model_selection import QueryKFold, cross_validate

    X, y, qid = _ranking()
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_ranking_scorer("map").set_score_request(qid=True, sample_weight=True)
        ridge = Ridge().set_fit_request(sample_weight=False)
    result = cross_validate(ridge, X, y, qid=qid, scoring={"map": scorer}, cv=3,
                            params={"sample_weight": weight}, return_per_query=True)
    per_query = result["per_query"]
    assert per_query.query_weight is not None
    for k in range(3):
        in_fold = per_query.fold == k
        chunk = PerQueryResult(per_query.query_ids[in_fold], {"map": per_query["map"][in_fold]},
                               query_weight=per_query.query_weight[in_fold],
                               options={"map": dict(per_query.options["map"])})
        assert aggregate(chunk)["map"] == pytest.approx(result["test_map"][k], abs=1e-12)
    with sklearn.config_context(enable_metadata_routing=True):
        plain = make_ranking_scorer("map").set_score_request(qid=True, sample_weight=False)
    with pytest.raises(ValueError, match="scorers 'w' and 'plain' were given different sample "
                                         "weights"):
        cross_validate(ridge, X, y, qid=qid, scoring={"w": scorer, "plain": plain}, cv=3,
                       params={"sample_weight": weight}, return_per_query=True)
    # overlapping test sets (two shuffles of the queries): each query once per fold
    splits = [*QueryKFold(3, shuffle=True, random_state=0).split(X, y, qid=qid),
              *QueryKFold(3, shuffle=True, random_state=1).split(X, y, qid=qid)]
    repeated = cross_validate(Ridge(), X, y, qid=qid, scoring="ndcg@10", cv=splits,
                              return_per_query=True)["per_query"]
    assert len(repeated) == 2 * len(np.unique(qid))
    assert_array_equal(repeated.query_ids, np.repeat(np.unique(qid), 2))
    assert (repeated.fold[0::2] < 3).all() and (repeated.fold[1::2] >= 3).all()
    # the statistics count each query once, with the mean of its folds, in every form
    from sklearn_rank.stats import bootstrap_ci

    pytest.importorskip("pandas")
    forms = [repeated, _old_dict(repeated), repeated.to_frame()]
    intervals = [bootstrap_ci(x, n_resamples=199, random_state=0) for x in forms]
    assert {(ci.n, ci.mean, tuple(ci.confidence_interval)) for ci in intervals} == {
        (intervals[0].n, intervals[0].mean, tuple(intervals[0].confidence_interval))}
    assert intervals[0].n == len(np.unique(qid))
    per_query_mean = (repeated["ndcg@10"][0::2] + repeated["ndcg@10"][1::2]) / 2
    assert intervals[0].mean == pytest.approx(per_query_mean.mean(), rel=1e-12)


# ----------------------------------------------------------------------------------------
# stats and plots read it: the same numbers as the dict of columns
# ----------------------------------------------------------------------------------------


def _two_cv_results():
    from sklearn.linear_model import Ridge

    from sklearn_rank.model_selection import QueryKFold, cross_validate

    X, y, qid = _ranking()
    cv = QueryKFold(3, shuffle=True, random_state=0)
    kwargs = dict(qid=qid, scoring=["ndcg@10", "map"], cv=cv, return_per_query=True)
    return (cross_validate(Ridge(), X, y, **kwargs),
            cross_validate(Ridge(alpha=1e3), X[:, :3], y, **kwargs))


@pytest.mark.parametrize("unit", ["query", "fold"])
def test_stats_on_cross_validate_results_give_the_numbers_of_the_dict_form(unit):
    from sklearn_rank.stats import bootstrap_ci, compare, paired_test

    a, b = _two_cv_results()
    forms = {
        "cv result": (a, b),
        "PerQueryResult": (a["per_query"], b["per_query"]),
        "old dict": (_old_dict(a["per_query"]), _old_dict(b["per_query"])),
        "cv result, old dict": ({**a, "per_query": _old_dict(a["per_query"])},
                                {**b, "per_query": _old_dict(b["per_query"])}),
    }
    pytest.importorskip("pandas")
    forms["frame indexed by qid"] = (a["per_query"].to_frame(), b["per_query"].to_frame())
    expected = None
    for form, (x, y) in forms.items():
        table = compare({"a": x, "b": y}, unit=unit, n_resamples=199, random_state=0)
        test = paired_test(x, y, metric="map", unit=unit, n_resamples=199, random_state=0)
        ci = bootstrap_ci(x, metric="ndcg@10", unit=unit, n_resamples=199, random_state=0)
        got = (str(table), table.pvalues["map"].tolist(), table.fold_means, test.pvalue,
               test.differences.tolist(), tuple(ci.confidence_interval))
        if expected is None:
            expected = got
            assert table.n_folds == 3, form
        np.testing.assert_equal(got, expected, err_msg=form)


def test_undefined_queries_keep_their_values_and_are_named_in_errors():
    """The masks travel: the statistics use the values as the dict form does (an undefined
    query counts with its no_relevant value), and an error names such a query."""
    from sklearn_rank.stats import compare, paired_test

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), 8)
    y = rng.integers(0, 3, len(qid))
    y[qid % 5 == 0] = 0  # 6 queries without a relevant document
    s1, s2 = rng.random(len(qid)), rng.random(len(qid))
    a = evaluate_per_query(y, s1, qid=qid, metrics=["map"])
    b = evaluate_per_query(y, s2, qid=qid, metrics=["map"])
    assert a.undefined["map"].sum() == 6
    as_dicts = ({"qid": a.query_ids, "map": a["map"]}, {"qid": b.query_ids, "map": b["map"]})
    got = paired_test(a, b, random_state=0)
    expected = paired_test(*as_dicts, random_state=0)
    assert got.n == expected.n == 30
    assert got.pvalue == expected.pvalue and got.mean_difference == expected.mean_difference
    assert str(compare({"a": a, "b": b}, random_state=0)) == \
        str(compare(dict(zip("ab", as_dicts)), random_state=0))
    skipped = evaluate_per_query(y, s1, qid=qid, metrics=["map"], no_relevant=np.nan)
    with pytest.raises(ValueError, match=r"e\.g\. NaN at qid 0, a query where 'map' is "
                                         r"undefined\. A metric gives NaN"):
        paired_test(skipped, b)


def test_the_issues_example():
    """Queries 0..29 against 1..30: a clear error naming the unmatched queries; the same
    queries: paired by id, whatever the order of a frame's rows."""
    from sklearn_rank.stats import compare

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), 10)
    y = rng.integers(0, 3, len(qid))
    s1, s2 = rng.random(len(qid)), rng.random(len(qid))
    a = evaluate_per_query(y, s1, qid=qid, metrics=["ndcg@10"])
    b = evaluate_per_query(y, s2, qid=qid + 1, metrics=["ndcg@10"])
    message = r"1 only in 'a' \(0\) and 1 only in 'b' \(30\)"
    with pytest.raises(ValueError, match=message):
        compare({"a": a, "b": b}, metric="ndcg@10")
    pytest.importorskip("pandas")
    with pytest.raises(ValueError, match=message):
        compare({"a": a.to_frame(), "b": b.to_frame()}, metric="ndcg@10")
    same = evaluate_per_query(y, s2, qid=qid, metrics=["ndcg@10"])
    by_id = compare({"a": (a.query_ids, a["ndcg@10"]), "b": (same.query_ids, same["ndcg@10"])},
                    metric="ndcg@10", random_state=0)
    reversed_frame = same.to_frame().iloc[::-1]
    for x, y_ in [(a, same), (a.to_frame(), reversed_frame), (a, reversed_frame)]:
        got = compare({"a": x, "b": y_}, metric="ndcg@10", random_state=0)
        assert got.pvalues["ndcg@10"][0, 1] == by_id.pvalues["ndcg@10"][0, 1]
        assert str(got) == str(by_id)


def test_frames_without_ids_beside_results_with_folds_are_refused():
    from sklearn_rank.stats import compare

    pd = pytest.importorskip("pandas")
    a, b = _two_cv_results()
    unindexed = b["per_query"].to_frame().reset_index(drop=True)
    with pytest.raises(ValueError, match=r"system 'a' comes with query ids and system 'b' "
                                         r"without \('a' is a PerQueryResult, 'b' a pandas "
                                         r"DataFrame with pandas' default index"):
        compare({"a": a["per_query"], "b": unindexed})
    assert isinstance(unindexed.index, pd.RangeIndex)


def test_difference_display_reads_cross_validate_results():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_rank.plot import PerQueryDifferenceDisplay

    a, b = _two_cv_results()
    fast = dict(n_resamples=199, random_state=0)
    try:
        new = PerQueryDifferenceDisplay.from_cv_results(a, b, metric="map", **fast)
        old = PerQueryDifferenceDisplay.from_cv_results(
            _old_dict(a["per_query"]), _old_dict(b["per_query"]), metric="map", **fast)
        frames = PerQueryDifferenceDisplay.from_cv_results(
            a["per_query"].to_frame(), b["per_query"].to_frame(), metric="map", **fast)
    finally:
        plt.close("all")
    for other in (old, frames):
        assert_array_equal(new.differences, other.differences)
        assert_array_equal(new.query_ids, other.query_ids)
        assert new.pvalue == other.pvalue
        assert new.confidence_interval == other.confidence_interval
