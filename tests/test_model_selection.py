"""Scorers, query splitters and cross_validate, in both ways query ids travel."""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    validation_curve,
)
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank import get_scorer, get_scorer_names, make_ranking_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate, ndcg_score
from sklearn_rank.metrics._scorer import RankingScorer
from sklearn_rank.model_selection import (
    QueryKFold,
    QueryShuffleSplit,
    StratifiedQueryKFold,
    cross_validate,
)
from sklearn_rank.preprocessing import DropQueryId

pd = pytest.importorskip("pandas")

# ERR's scorer needs the top grade of the scale (make_ranking ranks on grades 0 to 4)
METRICS = ["ndcg@10", "err@10(max_grade=4)", "map"]


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=40, n_features=6, random_state=0)
    return X, y, qid


def frame(X, qid, column="qid"):
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    df.insert(2, column, qid)
    return df


class CountingRidge(RegressorMixin, BaseEstimator):
    """A Ridge that counts its predict calls (class-level, shared across clones)."""

    calls = 0

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        self.model_ = Ridge(alpha=self.alpha).fit(X, y)
        return self

    def predict(self, X):
        type(self).calls += 1
        return self.model_.predict(X)


# ----------------------------------------------------------------------------------------
# Scorers
# ----------------------------------------------------------------------------------------


def test_scorer_equals_metric_and_reads_either_source(data):
    X, y, qid = data
    model = Ridge().fit(X, y)
    expected = ndcg_score(y, model.predict(X), qid=qid, k=10)
    scorer = get_scorer("ndcg@10")
    assert scorer(model, X, y, qid=qid) == expected
    piped = make_pipeline(DropQueryId(), Ridge()).fit(frame(X, qid), y)
    assert scorer(piped, frame(X, qid), y) == pytest.approx(expected, abs=1e-12)


def test_scorer_without_qid_explains_both_ways(data):
    X, y, _ = data
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="enable_metadata_routing=True.*'qid' column"):
        get_scorer("map")(model, X, y)
    with pytest.raises(ValueError, match="has no 'query' column"):
        make_ranking_scorer("map", qid_column="query")(model, frame(X, np.zeros(len(y))), y)


def test_scorer_repr_pickle_and_names():
    scorer = make_ranking_scorer("rbp(p=0.5)", convention="trec_eval")
    assert repr(scorer) == "make_ranking_scorer('rbp(p=0.5)', convention='trec_eval')"
    assert repr(pickle.loads(pickle.dumps(scorer))) == repr(scorer)
    names = get_scorer_names()
    assert {"ndcg@10", "map", "mrr@10", "precision@5"} <= set(names)
    assert "err@10" not in names  # no scale fits every data set
    for name in names:
        get_scorer(name)
    with pytest.raises(ValueError, match="Did you mean 'ndcg'"):
        get_scorer("ndgc@10")


def test_scorer_options_and_response_methods(data):
    X, y, qid = data
    clf = LogisticRegression(max_iter=500).fit(X, y.astype(int))
    proba = clf.predict_proba(X) @ clf.classes_
    scorer = make_ranking_scorer("ndcg@5", response_method="predict_proba", gain="linear")
    assert scorer(clf, X, y, qid=qid) == ndcg_score(y, proba, qid=qid, k=5, gain="linear")
    binary = LogisticRegression(max_iter=500).fit(X, y > 1)
    scorer = make_ranking_scorer("map", response_method="predict_proba")
    expected = evaluate(y, binary.predict_proba(X)[:, 1], qid=qid, metrics=["map"])["map"]
    assert scorer(binary, X, y, qid=qid) == expected
    scorer = make_ranking_scorer("map", response_method="decision_function")
    with pytest.raises(ValueError, match="one score per row"):
        scorer(clf, X, y, qid=qid)


# ----------------------------------------------------------------------------------------
# Splitters
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cv",
    [QueryKFold(4), QueryKFold(4, shuffle=True, random_state=1), StratifiedQueryKFold(4),
     QueryShuffleSplit(3, test_size=0.25, random_state=0)],
    ids=repr,
)
def test_splitters_keep_queries_whole(cv, data):
    X, y, qid = data
    seen = []
    for train, test in cv.split(X, y, qid=qid):
        assert not set(qid[train]) & set(qid[test])
        assert (np.diff(test) > 0).all() and (np.diff(train) > 0).all()  # row order kept
        seen.append(test)
    if not isinstance(cv, QueryShuffleSplit):
        np.testing.assert_array_equal(np.sort(np.concatenate(seen)), np.arange(len(y)))
    # the same folds from groups= and from a DataFrame column
    for other in (cv.split(X, y, groups=qid), cv.split(frame(X, qid), y)):
        for (a, b), (c, d) in zip(cv.split(X, y, qid=qid), other):
            np.testing.assert_array_equal(a, c)
            np.testing.assert_array_equal(b, d)


def test_query_kfold_balances_rows_and_shuffles(data):
    _, y, qid = data
    sizes = np.bincount(np.unique(qid, return_inverse=True)[1])
    for shuffle in (False, True):
        cv = QueryKFold(4, shuffle=shuffle, random_state=0)
        rows = [len(test) for _, test in cv.split(qid=qid)]
        assert max(rows) - min(rows) <= 2 * sizes.max()
    a = [t for _, t in QueryKFold(4, shuffle=True, random_state=0).split(qid=qid)]
    b = [t for _, t in QueryKFold(4, shuffle=True, random_state=1).split(qid=qid)]
    assert any(len(x) != len(z) or (x != z).any() for x, z in zip(a, b))


def test_splitter_errors():
    with pytest.raises(ValueError, match="from 3 queries"):
        list(QueryKFold(5).split(qid=[1, 2, 3]))
    with pytest.raises(ValueError, match="needs the query id of every row"):
        list(QueryKFold(2).split(np.zeros((4, 1))))
    with pytest.raises(ValueError, match="look like group sizes"):
        list(QueryKFold(2).split(np.zeros((6, 1)), qid=[3, 3]))
    with pytest.raises(sklearn.utils._param_validation.InvalidParameterError, match="n_splits"):
        list(QueryKFold(1).split(qid=[1, 2, 3]))


# ----------------------------------------------------------------------------------------
# Searches, both routing modes
# ----------------------------------------------------------------------------------------


def manual_search(make_model, grid, X, y, qid, cv, metrics):
    """cv_results_ means computed by hand, fold by fold, with the metric functions."""
    out = {}
    splits = list(cv.split(X, y, qid=qid))
    for params in grid:
        values = {m: [] for m in metrics}
        for train, test in splits:
            model = make_model().set_params(**params).fit(X[train], y[train])
            result = evaluate(y[test], model.predict(X[test]), qid=qid[test], metrics=metrics)
            for m in metrics:
                values[m].append(result[m])
        out[tuple(sorted(params.items()))] = {m: np.mean(v) for m, v in values.items()}
    return out


GRID = {"histgradientboostingregressor__max_depth": [2, 3],
        "histgradientboostingregressor__max_iter": [10, 20]}


def pointwise():
    return make_pipeline(DropQueryId(), StandardScaler(),
                         HistGradientBoostingRegressor(random_state=0, early_stopping=False))


def check_against_manual(search, X, y, qid):
    grid = search.cv_results_["params"]
    expected = manual_search(pointwise, grid, X, y, qid, QueryKFold(3), METRICS)
    for i, params in enumerate(grid):
        for m in METRICS:
            assert search.cv_results_[f"mean_test_{m}"][i] == pytest.approx(
                expected[tuple(sorted(params.items()))][m], abs=1e-12
            )
    best = max(range(len(grid)), key=lambda i: search.cv_results_["mean_test_ndcg@10"][i])
    assert search.best_params_ == grid[best]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grid_search_routing_off_with_qid_column(data, n_jobs):
    X, y, qid = data
    search = GridSearchCV(pointwise(), GRID, cv=QueryKFold(3),
                          scoring={m: get_scorer(m) for m in METRICS}, refit="ndcg@10",
                          n_jobs=n_jobs)
    search.fit(frame(X, qid), y)
    check_against_manual(search, X, y, qid)
    assert search.score(frame(X, qid), y) == get_scorer("ndcg@10")(search, frame(X, qid), y)


def test_grid_search_routing_on(data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        # scikit-learn only knows its own scorer names: ranking ones go in as scorers
        search = GridSearchCV(pointwise(), GRID, cv=QueryKFold(3),
                              scoring={m: get_scorer(m) for m in METRICS}, refit="ndcg@10")
        search.fit(X, y, qid=qid)
    check_against_manual(search, X, y, qid)


def test_score_request_of_sample_weight_keeps_the_qid_request(data):
    """scikit-learn's set_score_request replaces the whole request: the ranking scorer's
    default request of qid must survive a request of sample_weight, or cross_validate
    fails for want of query ids."""
    X, y, qid = data
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_ranking_scorer("map").set_score_request(sample_weight=True)
        routing = scorer.get_metadata_routing().score.requests
        assert routing["qid"] is True and routing["sample_weight"] is True
        model = Ridge().set_fit_request(sample_weight=False)
        result = sk_cross_validate(model, X, y, cv=QueryKFold(3), scoring=scorer,
                                params={"qid": qid, "sample_weight": weight})
        explicit = make_ranking_scorer("map").set_score_request(qid=True, sample_weight=True)
        expected = sk_cross_validate(model, X, y, cv=QueryKFold(3), scoring=explicit,
                                  params={"qid": qid, "sample_weight": weight})
        np.testing.assert_array_equal(result["test_score"], expected["test_score"])
        # the request can still be withdrawn on purpose
        off = make_ranking_scorer("map").set_score_request(qid=False)
        assert off.get_metadata_routing().score.requests["qid"] is False


def test_multi_metric_search_predicts_once_per_fold(data):
    X, y, qid = data
    CountingRidge.calls = 0
    search = GridSearchCV(CountingRidge(), {"alpha": [0.1, 1.0]}, cv=QueryKFold(3),
                          scoring={m: get_scorer(m) for m in METRICS}, refit=False)
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, qid=qid)
    assert CountingRidge.calls == 2 * 3


def test_randomized_search_validation_curve_and_cross_val_score(data):
    X, y, qid = data
    Xq = frame(X, qid)
    model = make_pipeline(DropQueryId(), Ridge())
    search = RandomizedSearchCV(model, {"ridge__alpha": [0.01, 0.1, 1.0, 10.0]}, n_iter=3,
                                cv=QueryKFold(3), scoring=get_scorer("mrr@10"), random_state=0)
    search.fit(Xq, y)
    assert 0 < search.best_score_ <= 1
    scores = cross_val_score(model, Xq, y, cv=QueryKFold(3), scoring=get_scorer("p@5"))
    assert scores.shape == (3,)
    train, test = validation_curve(model, Xq, y, param_name="ridge__alpha",
                                   param_range=[0.1, 1.0], cv=QueryKFold(3),
                                   scoring=get_scorer("ndcg@10"))
    assert test.shape == (2, 3)


def test_halving_search(data):
    # sklearn-rank's own: scikit-learn's would cut the queries (tests/test_search_slips.py)
    from sklearn_rank.model_selection import HalvingGridSearchCV

    X, y, qid = data
    search = HalvingGridSearchCV(make_pipeline(DropQueryId(), Ridge()),
                                 {"ridge__alpha": [0.01, 0.1, 1.0, 10.0]}, cv=QueryKFold(3),
                                 scoring=get_scorer("ndcg@10"), factor=2, min_resources=20,
                                 random_state=0)
    search.fit(frame(X, qid), y)
    assert search.best_params_["ridge__alpha"] in (0.01, 0.1, 1.0, 10.0)


def test_nested_cross_validation(data):
    X, y, qid = data
    inner = GridSearchCV(make_pipeline(DropQueryId(), Ridge()), {"ridge__alpha": [0.1, 10.0]},
                         cv=QueryKFold(2), scoring=get_scorer("ndcg@10"))
    result = cross_validate(inner, frame(X, qid), y, cv=QueryKFold(3), scoring="ndcg@10")
    assert result["test_ndcg@10"].shape == (3,)
    with sklearn.config_context(enable_metadata_routing=True):
        outer = sk_cross_validate(
            GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=QueryKFold(2),
                         scoring=get_scorer("ndcg@10")),
            X, y, cv=QueryKFold(3), scoring=get_scorer("ndcg@10"), params={"qid": qid},
        )
    assert outer["test_score"].shape == (3,)


def test_string_and_unsorted_qids(data):
    X, y, qid = data
    names = np.array([f"query-{q:03d}" for q in qid])
    a = cross_validate(Ridge(), X, y, qid=names, scoring=METRICS, cv=QueryKFold(3))
    b = cross_validate(Ridge(), X, y, qid=qid, scoring=METRICS, cv=QueryKFold(3))
    for m in METRICS:
        np.testing.assert_allclose(a[f"test_{m}"], b[f"test_{m}"], rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------------------
# cross_validate
# ----------------------------------------------------------------------------------------


def test_cross_validate_per_query_matches_folds(data):
    X, y, qid = data
    result = cross_validate(Ridge(), X, y, qid=qid, scoring=METRICS, cv=QueryKFold(3),
                            return_per_query=True)
    per_query = result["per_query"]  # a PerQueryResult, no longer a dict of columns
    assert per_query.metrics == tuple(METRICS)
    np.testing.assert_array_equal(np.sort(per_query.query_ids), np.unique(qid))
    for m in METRICS:
        means = [per_query[m][per_query.fold == k].mean() for k in range(3)]
        np.testing.assert_allclose(result[f"test_{m}"], means, rtol=0, atol=1e-12)
    assert "estimator" not in result and "indices" not in result


def test_cross_validate_equals_sklearn_with_groups(data):
    X, y, qid = data
    ours = cross_validate(Ridge(), X, y, qid=qid, scoring="ndcg@10", cv=GroupKFold(3))
    with sklearn.config_context(enable_metadata_routing=True):
        theirs = sk_cross_validate(Ridge(), X, y, cv=list(GroupKFold(3).split(X, y, qid)),
                                   scoring=get_scorer("ndcg@10"), params={"qid": qid})
    np.testing.assert_allclose(ours["test_ndcg@10"], theirs["test_score"], rtol=0, atol=1e-12)


def test_cross_validate_rejects_splitters_that_cut_queries(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="puts rows of the same queries in training and test"):
        cross_validate(Ridge(), X, y, qid=qid, cv=KFold(3))


def test_cross_validate_raises_instead_of_nan(data):
    X, y, qid = data

    class Broken(Ridge):
        def fit(self, X, y):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cross_validate(Broken(), X, y, qid=qid, cv=3)


def test_cross_validate_errors(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="needs the query id of every row"):
        cross_validate(Ridge(), X, y)
    with pytest.raises(ValueError, match="got 3 ids for"):
        cross_validate(Ridge(), X, y, qid=[1, 2, 3])
    sizes = np.bincount(np.unique(qid, return_inverse=True)[1])
    with pytest.raises(ValueError, match="look like group sizes"):
        cross_validate(Ridge(), X, y, qid=sizes)
    with pytest.raises(ValueError, match="Found input variables with inconsistent numbers"):
        cross_validate(Ridge(), X, y[:-1], qid=qid)
    with pytest.raises(ValueError, match="distinct metric names"):
        cross_validate(Ridge(), X, y, qid=qid, scoring=["map", "map"])
    with pytest.raises(TypeError, match="return_per_query=True needs ranking scorers"):
        cross_validate(Ridge(), X, y, qid=qid, scoring={"r2": sklearn.metrics.get_scorer("r2")},
                       return_per_query=True)


def test_drop_query_id(data):
    X, y, qid = data
    df = frame(X, qid)
    dropper = DropQueryId().fit(df)
    assert "qid" not in dropper.transform(df).columns
    assert list(dropper.get_feature_names_out()) == [c for c in df.columns if c != "qid"]
    np.testing.assert_array_equal(DropQueryId().fit_transform(X), X)
    assert clone(dropper).get_params() == {"qid_column": "qid"}


class PredictFails(Ridge):
    """A Ridge that fails to predict a set holding the row ``row``: a fold's scoring fails."""

    row = None

    def predict(self, X):
        if np.equal(X, self.row).all(axis=1).any():
            raise RuntimeError("no prediction")
        return super().predict(X)


def test_cross_validate_failed_scoring_with_a_numeric_error_score(data):
    X, y, qid = data
    PredictFails.row = X[0]
    failed = [0 in test for _, test in QueryKFold(3).split(X, y, qid=qid)]
    ticks = []
    with pytest.warns(UserWarning, match="Scoring failed"):
        result = cross_validate(PredictFails(), X, y, qid=qid, scoring=["ndcg@10", "map"],
                                cv=3, error_score=np.nan, callback=lambda: ticks.append(1))
    np.testing.assert_array_equal(np.isnan(result["test_ndcg@10"]), failed)
    np.testing.assert_array_equal(np.isnan(result["test_map"]), failed)
    assert ticks == [1, 1, 1]
    assert "estimator" not in result and "indices" not in result
    message = f"Fold {failed.index(True)} has no test predictions"
    for option in ("return_per_query", "return_predictions"):
        with (pytest.warns(UserWarning, match="Scoring failed"),
              pytest.raises(ValueError, match=message)):
            cross_validate(PredictFails(), X, y, qid=qid, cv=3, error_score=np.nan,
                           **{option: True})


def test_cross_validate_per_query_scores_each_fold_once(data, monkeypatch):
    X, y, qid = data
    calls = []
    evaluate_once = RankingScorer._evaluate

    def counted(self, *args, **kwargs):
        calls.append(self.name)
        return evaluate_once(self, *args, **kwargs)

    monkeypatch.setattr(RankingScorer, "_evaluate", counted)
    cross_validate(Ridge(), X, y, qid=qid, scoring=METRICS, cv=3, return_per_query=True)
    assert sorted(calls) == sorted(METRICS * 3)


def test_cross_validate_refuses_a_test_set_with_part_of_a_query(data):
    X, y, qid = data
    train, test = next(QueryKFold(3).split(X, y, qid=qid))
    with pytest.raises(ValueError, match=r"(?s)Split 0 of cv=.* holds only part of query"):
        cross_validate(Ridge(), X, y, qid=qid, cv=[(train, test[::2])])


def test_cross_validate_one_failing_scorer_among_several(data):
    X, y, qid = data
    # the failing scorer first: the scorers after it are still scored
    scoring = {"bad": make_ranking_scorer("ndcg@10", response_method="predict_proba"),
               "ok": "ndcg@10"}
    with pytest.warns(UserWarning, match="none of the following attributes: predict_proba"):
        result = cross_validate(Ridge(), X, y, qid=qid, scoring=scoring, cv=3,
                                error_score=np.nan, callback=lambda: None,
                                return_estimator=True)
    assert np.isnan(result["test_bad"]).all() and not np.isnan(result["test_ok"]).any()
    assert not any(name.startswith("_sklearn_rank") for name in vars(result["estimator"][0]))
    with (pytest.warns(UserWarning, match="Scoring failed"),
          pytest.raises(ValueError, match="Fold 0 has no test predictions")):
        cross_validate(Ridge(), X, y, qid=qid, scoring=scoring, cv=3, error_score=np.nan,
                       return_per_query=True)
