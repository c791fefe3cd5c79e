"""Tests of sklearn_rank.datasets."""

import re

import numpy as np
import pytest
from sklearn.utils import Bunch
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.datasets import make_ranking


def _sizes(qid):
    return np.unique(qid, return_counts=True)[1]


@pytest.mark.parametrize(
    "n_queries, n_features, min_docs, max_docs", [(1, 1, 1, 1), (7, 3, 2, 9), (50, 20, 5, 50)]
)
def test_shapes_and_dtypes(n_queries, n_features, min_docs, max_docs):
    X, y, qid = make_ranking(
        n_queries,
        n_features=n_features,
        n_informative=1,
        min_docs=min_docs,
        max_docs=max_docs,
        random_state=0,
    )
    n_samples = X.shape[0]
    assert X.shape == (n_samples, n_features)
    assert y.shape == qid.shape == (n_samples,)
    assert X.dtype == np.float64
    assert y.dtype == np.int64
    assert qid.dtype == np.int64
    assert np.isfinite(X).all()
    assert np.array_equal(np.unique(qid), np.arange(n_queries))
    assert n_queries * min_docs <= n_samples <= n_queries * max_docs


def test_same_seed_same_data_and_other_seed_other_data():
    first = make_ranking(20, random_state=42)
    second = make_ranking(20, random_state=42)
    other = make_ranking(20, random_state=43)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert first[0].shape != other[0].shape or not np.array_equal(first[0], other[0])


def test_random_state_instance_is_accepted_and_advanced():
    rng = np.random.RandomState(0)
    X_first, _, _ = make_ranking(5, random_state=rng)
    X_second, _, _ = make_ranking(5, random_state=rng)
    X_seeded, _, _ = make_ranking(5, random_state=0)
    np.testing.assert_array_equal(X_first, X_seeded)
    assert X_first.shape != X_second.shape or not np.array_equal(X_first, X_second)


@pytest.mark.parametrize("min_docs, max_docs", [(1, 3), (5, 50), (10, 12)])
def test_query_sizes_are_ragged_within_bounds(min_docs, max_docs):
    _, _, qid = make_ranking(500, min_docs=min_docs, max_docs=max_docs, random_state=0)
    sizes = _sizes(qid)
    assert sizes.min() >= min_docs
    assert sizes.max() <= max_docs
    # Uniform sizes: with 500 queries every size in the range is drawn.
    assert np.array_equal(np.unique(sizes), np.arange(min_docs, max_docs + 1))


def test_equal_bounds_give_equal_sizes():
    _, _, qid = make_ranking(30, min_docs=8, max_docs=8, random_state=0)
    assert (_sizes(qid) == 8).all()


def test_shuffle_only_permutes_rows():
    X_grouped, y_grouped, qid_grouped = make_ranking(40, shuffle=False, random_state=3)
    X_shuffled, y_shuffled, qid_shuffled = make_ranking(40, shuffle=True, random_state=3)

    assert (np.diff(qid_grouped) >= 0).all()
    assert (np.diff(qid_shuffled) < 0).any()

    # The same rows in another order: sort both by (qid, first feature) and compare.
    order_grouped = np.lexsort((X_grouped[:, 0], qid_grouped))
    order_shuffled = np.lexsort((X_shuffled[:, 0], qid_shuffled))
    np.testing.assert_array_equal(X_grouped[order_grouped], X_shuffled[order_shuffled])
    np.testing.assert_array_equal(y_grouped[order_grouped], y_shuffled[order_shuffled])
    np.testing.assert_array_equal(qid_grouped[order_grouped], qid_shuffled[order_shuffled])


@pytest.mark.parametrize("n_grades", [2, 5, 7])
def test_every_grade_occurs_and_low_grades_dominate(n_grades):
    _, y, _ = make_ranking(3000, n_grades=n_grades, random_state=0)
    assert y.min() == 0
    assert y.max() == n_grades - 1
    frequency = np.bincount(y, minlength=n_grades) / y.size
    assert (frequency > 0).all()
    # Each grade about half as frequent as the grade below it.
    assert (np.diff(frequency) < 0).all()
    expected = 0.5 ** np.arange(n_grades) / (0.5 ** np.arange(n_grades)).sum()
    np.testing.assert_allclose(frequency, expected, atol=0.01)


def test_some_queries_have_no_relevant_document():
    _, y, qid = make_ranking(2000, min_docs=2, max_docs=10, random_state=0)
    has_relevant = np.bincount(qid, weights=y > 0) > 0
    assert 0 < (~has_relevant).sum() < 0.5 * has_relevant.size


def test_informative_features_are_informative():
    n_informative = 5
    data = make_ranking(
        2000, n_features=12, n_informative=n_informative, random_state=0, return_X_y_qid=False
    )
    X, y = data.data, data.target

    assert np.count_nonzero(data.coef) == n_informative
    assert np.count_nonzero(data.coef[:n_informative]) == n_informative
    np.testing.assert_allclose(np.linalg.norm(data.coef), 1.0)

    correlation = np.array([np.corrcoef(X[:, j], y)[0, 1] for j in range(X.shape[1])])
    informative = np.abs(correlation[:n_informative])
    uninformative = np.abs(correlation[n_informative:])
    assert informative.min() > 0.08
    assert uninformative.max() < 0.03
    # The sign of each weight shows in the correlation.
    np.testing.assert_array_equal(np.sign(correlation[:n_informative]), np.sign(data.coef[:5]))


def test_without_noise_grades_are_monotone_in_the_signal_within_each_query():
    data = make_ranking(200, noise=0.0, random_state=0, return_X_y_qid=False)
    signal = data.data @ data.coef
    order = np.lexsort((signal, data.qid))
    y_sorted, qid_sorted = data.target[order], data.qid[order]
    same_query = qid_sorted[1:] == qid_sorted[:-1]
    assert (np.diff(y_sorted)[same_query] >= 0).all()


def test_no_informative_feature_gives_labels_unrelated_to_features():
    data = make_ranking(1000, n_informative=0, random_state=0, return_X_y_qid=False)
    assert not data.coef.any()
    correlation = [np.corrcoef(column, data.target)[0, 1] for column in data.data.T]
    assert np.max(np.abs(correlation)) < 0.03


def test_bunch_holds_the_same_arrays_as_the_tuple():
    X, y, qid = make_ranking(10, random_state=0)
    data = make_ranking(10, random_state=0, return_X_y_qid=False)
    assert isinstance(data, Bunch)
    np.testing.assert_array_equal(data.data, X)
    np.testing.assert_array_equal(data.target, y)
    np.testing.assert_array_equal(data.qid, qid)
    assert data.coef.shape == (X.shape[1],)


def test_signal_ranks_better_than_chance():
    from sklearn_rank.metrics import ndcg_score

    data = make_ranking(300, random_state=0, return_X_y_qid=False)
    signal = data.data @ data.coef
    chance = np.random.RandomState(0).standard_normal(signal.shape)
    signal_ndcg = ndcg_score(data.target, signal, qid=data.qid, k=10)
    chance_ndcg = ndcg_score(data.target, chance, qid=data.qid, k=10)
    assert signal_ndcg > chance_ndcg + 0.2


@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"n_queries": 0}, InvalidParameterError, "'n_queries' parameter"),
        ({"n_queries": 2.5}, InvalidParameterError, "'n_queries' parameter"),
        ({"n_features": 0}, InvalidParameterError, "'n_features' parameter"),
        ({"n_informative": -1}, InvalidParameterError, "'n_informative' parameter"),
        ({"min_docs": 0}, InvalidParameterError, "'min_docs' parameter"),
        ({"max_docs": 0}, InvalidParameterError, "'max_docs' parameter"),
        ({"n_grades": 1}, InvalidParameterError, "'n_grades' parameter"),
        ({"noise": -0.1}, InvalidParameterError, "'noise' parameter"),
        ({"noise": "high"}, InvalidParameterError, "'noise' parameter"),
        ({"shuffle": "yes"}, InvalidParameterError, "'shuffle' parameter"),
        ({"random_state": "seed"}, InvalidParameterError, "'random_state' parameter"),
        ({"return_X_y_qid": None}, InvalidParameterError, "'return_X_y_qid' parameter"),
        (
            {"n_features": 3, "n_informative": 4},
            ValueError,
            "n_informative must be at most n_features=3. Got n_informative=4 instead.",
        ),
        (
            {"min_docs": 6, "max_docs": 5},
            ValueError,
            "min_docs must be at most max_docs=5. Got min_docs=6 instead.",
        ),
    ],
)
def test_invalid_parameters_raise(params, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make_ranking(**params)
