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
