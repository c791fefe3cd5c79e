"""The slips a new user makes in a search end in the right number or a clear error.

Issue 9: routing forgotten (groups= reaches only the splitter), classifiers ranked by hard
labels, halving searches that cut queries, ERR scored on each fold's own scale, scorer options
ignored, the query-id column used as a feature, and splitter errors that name the wrong thing.
"""

import re

import numpy as np
import pytest
import sklearn
from _rankers import small_ranker
from scipy.stats import loguniform
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.compose import TransformedTargetRegressor, make_column_transformer
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestClassifier
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_val_score,
    validation_curve,
)
from sklearn.model_selection import HalvingGridSearchCV as SklearnHalvingGridSearchCV
from sklearn.model_selection import HalvingRandomSearchCV as SklearnHalvingRandomSearchCV
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank import get_scorer, make_ranking_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import err_score, evaluate, ndcg_score, rbp_score
from sklearn_rank.metrics._scorer import check_grade_scale, needs_grade_scale
from sklearn_rank.model_selection import (
    HalvingGridSearchCV,
    HalvingRandomSearchCV,
    QueryKFold,
    QueryShuffleSplit,
    StratifiedQueryKFold,
    cross_validate,
)
from sklearn_rank.model_selection._search import MIN_TRAIN_QUERIES
from sklearn_rank.preprocessing import DropQueryId, KeepQueryId

pd = pytest.importorskip("pandas")

FORGOTTEN = "groups=qid .* reaches only the splitter"


def warns_with(match, run):
    """Run ``run`` and check that one of its UserWarnings matches (others may come too)."""
    with pytest.warns(UserWarning) as record:
        result = run()
    assert any(re.search(match, str(w.message)) for w in record), [str(w.message) for w in record]
    return result


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=30, n_features=5, random_state=0)


def frame(X, qid):
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    df["qid"] = qid
    return df


# ----------------------------------------------------------------------------------------
# Item 2: routing forgotten, groups=qid reaches only the splitter
# ----------------------------------------------------------------------------------------

GRID = {"alpha": [0.1, 10.0]}
SCORER = get_scorer("ndcg@10")
FORGETFUL_RUNS = {
    "GridSearchCV": lambda X, y, g, **kw: GridSearchCV(
        Ridge(), GRID, cv=QueryKFold(3), scoring=SCORER, **kw).fit(X, y, groups=g),
    "RandomizedSearchCV": lambda X, y, g, **kw: RandomizedSearchCV(
        Ridge(), GRID, n_iter=2, cv=QueryKFold(3), scoring=SCORER, random_state=0,
        **kw).fit(X, y, groups=g),
    "HalvingGridSearchCV": lambda X, y, g, **kw: HalvingGridSearchCV(
        Ridge(), GRID, cv=QueryKFold(3), scoring=SCORER, factor=2, random_state=0,
        **kw).fit(X, y, groups=g),
    "cross_val_score": lambda X, y, g, **kw: cross_val_score(
        Ridge(), X, y, groups=g, cv=QueryKFold(3), scoring=SCORER, **kw),
    "sklearn cross_validate": lambda X, y, g, **kw: sk_cross_validate(
        Ridge(), X, y, groups=g, cv=QueryKFold(3), scoring={"ndcg": SCORER}, **kw),
    "validation_curve": lambda X, y, g, **kw: validation_curve(
        Ridge(), X, y, groups=g, param_name="alpha", param_range=[0.1, 1.0],
        cv=QueryKFold(3), scoring=SCORER, **kw),
}


@pytest.mark.parametrize("run", FORGETFUL_RUNS.values(), ids=FORGETFUL_RUNS.keys())
def test_forgotten_routing_names_the_fix(run, data):
    X, y, qid = data
    # scikit-learn's error_score=np.nan makes the scorer's error a warning per fold: the
    # warning says what reaches whom and how to fix it
    warns_with(FORGOTTEN, lambda: run(X, y, qid))
    # with error_score="raise", the same message as an error
    with pytest.raises(ValueError, match=f"{FORGOTTEN}.*enable_metadata_routing=True"):
        run(X, y, qid, error_score="raise")


def test_our_cross_validate_routes_and_never_gives_nan(data):
    X, y, qid = data
    result = cross_validate(Ridge(), X, y, qid=qid, scoring=["ndcg@10", "err@10", "map"], cv=3)
    for name in ("ndcg@10", "err@10", "map"):
        assert np.isfinite(result[f"test_{name}"]).all()
    # a scorer that fails raises, by default, instead of scoring NaN
    with pytest.raises(ValueError, match="no relevant"):
        cross_validate(Ridge(), X, np.zeros_like(y), qid=qid, cv=3,
                       scoring={"map": make_ranking_scorer("map", no_relevant="raise")})


@pytest.mark.parametrize("name", ["lightgbm", "xgboost", "catboost"])
def test_forgotten_routing_with_an_adapter_fails_every_fit(name, data):
    model = small_ranker(name)
    grid = {"lightgbm": {"num_leaves": [3, 7]}, "xgboost": {"max_depth": [2, 3]},
            "catboost": {"depth": [2, 3]}}[name]
    X, y, qid = data
    # every fit refuses the missing query ids, and scikit-learn raises when all fits fail
    with pytest.raises(ValueError, match="All the 6 fits failed(.|\n)*needs the query id"):
        GridSearchCV(model, grid, cv=QueryKFold(3), scoring=SCORER).fit(X, y, groups=qid)


# ----------------------------------------------------------------------------------------
# The query-id column used as a feature
# ----------------------------------------------------------------------------------------

AS_FEATURE = "fitted with that column as one of its features"


@pytest.mark.parametrize(
    "model",
    [Ridge(), make_pipeline(StandardScaler(), Ridge()),
     make_pipeline(make_column_transformer(("passthrough", ["qid", "f0"])), Ridge())],
    ids=["Ridge", "StandardScaler+Ridge", "ColumnTransformer keeping qid"],
)
def test_qid_column_as_a_feature_is_refused(model, data):
    X, y, qid = data
    df = frame(X, qid)
    model.fit(df, y)
    with pytest.raises(ValueError, match=f"{AS_FEATURE}.*DropQueryId"):
        SCORER(model, df, y)
    # in a search, scikit-learn's warning carries the message
    warns_with(AS_FEATURE,
               lambda: GridSearchCV(model, {}, cv=QueryKFold(3), scoring=SCORER).fit(df, y))
    with pytest.raises(ValueError, match=AS_FEATURE):
        cross_validate(model, df, y, cv=3)


@pytest.mark.parametrize(
    "model",
    [make_pipeline(DropQueryId(), Ridge()),
     make_pipeline(DropQueryId(), StandardScaler(), Ridge()),
     make_pipeline(make_column_transformer(("drop", ["qid"]), remainder="passthrough"),
                   Ridge()),
     TransformedTargetRegressor(make_pipeline(DropQueryId(), Ridge())),
     GridSearchCV(make_pipeline(DropQueryId(), Ridge()), {"ridge__alpha": [1.0]},
                  cv=QueryKFold(2), scoring=SCORER)],
    ids=["DropQueryId", "DropQueryId+scaler", "ColumnTransformer dropping qid",
         "meta-estimator", "search"],
)
def test_qid_column_dropped_first_is_scored(model, data):
    X, y, qid = data
    df = frame(X, qid)
    model.fit(df, y)
    expected = ndcg_score(y, model.predict(df), qid=qid, k=10)
    assert SCORER(model, df, y) == pytest.approx(expected, abs=1e-12)


def test_qid_column_as_a_feature_on_purpose(data):
    X, y, qid = data
    df = frame(X, qid)
    model = Ridge().fit(df, y)  # a genuine feature named "qid", ids passed apart
    expected = ndcg_score(y, model.predict(df), qid=qid, k=10)
    with pytest.raises(ValueError, match=AS_FEATURE):
        SCORER(model, df, y, qid=qid)
    scorer = make_ranking_scorer("ndcg@10", qid_column=None)
    assert scorer(model, df, y, qid=qid) == expected


@pytest.mark.parametrize("name", ["lightgbm", "xgboost", "catboost"])
def test_adapters_read_the_qid_column_without_using_it(name, data):
    model = small_ranker(name)
    X, y, qid = data
    df = frame(X, qid)
    for piped in (model, make_pipeline(KeepQueryId(StandardScaler()), model)):
        piped.fit(df, y)
        assert SCORER(piped, df, y) == ndcg_score(y, piped.predict(df), qid=qid, k=10)


@pytest.mark.parametrize("name", ["lightgbm", "xgboost", "catboost"])
def test_routed_ids_and_a_transformed_qid_column_are_refused(name, data):
    # With routing on (or in sklearn-rank's cross_validate, which routes), a frame that still
    # holds the query-id column sends it through StandardScaler, which hands the ranker an
    # array: the ranker trains on the scaled ids as a feature, silently. The scorer sees it.
    model = small_ranker(name)
    X, y, qid = data
    df = frame(X, qid)
    naive = make_pipeline(StandardScaler(), model)
    with pytest.raises(ValueError, match=AS_FEATURE):
        cross_validate(naive, df, y, cv=3)
    with sklearn.config_context(enable_metadata_routing=True):
        naive.fit(df, y, qid=qid)
        with pytest.raises(ValueError, match=AS_FEATURE):
            SCORER(naive, df, y, qid=qid)
    kept = make_pipeline(KeepQueryId(StandardScaler()), model)
    result = cross_validate(kept, df, y, cv=3)
    assert np.isfinite(result["test_ndcg@10"]).all()


# ----------------------------------------------------------------------------------------
# Item 4: a classifier is ranked by a continuous score, not its hard labels
# ----------------------------------------------------------------------------------------


def test_binary_classifier_ranked_by_decision_function(data):
    X, y, qid = data
    relevant = (y >= 2).astype(int)
    for model in (LogisticRegression(), make_pipeline(StandardScaler(), LogisticRegression())):
        model.fit(X, relevant)
        expected = evaluate(relevant, model.decision_function(X), qid=qid, metrics="map")
        labels = evaluate(relevant, model.predict(X), qid=qid, metrics="map")
        assert expected["map"] != labels["map"]
        assert get_scorer("map")(model, X, relevant, qid=qid) == expected["map"]


def test_multiclass_classifier_ranked_by_expected_grade(data):
    X, y, qid = data
    model = LogisticRegression(max_iter=1000).fit(X, y.astype(int))
    expected = ndcg_score(y, model.predict_proba(X) @ model.classes_, qid=qid, k=10)
    assert get_scorer("ndcg@10")(model, X, y, qid=qid) == expected
    # a forest has no decision_function: the expected grade, also from a tuple
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y.astype(int))
    expected = ndcg_score(y, forest.predict_proba(X) @ forest.classes_, qid=qid, k=10)
    for method in ("auto", ("decision_function", "predict_proba")):
        scorer = make_ranking_scorer("ndcg@10", response_method=method)
        assert scorer(forest, X, y, qid=qid) == expected
    # log-probabilities are no distribution to take an expectation over
    scorer = make_ranking_scorer("ndcg@10", response_method="predict_log_proba")
    with pytest.raises(ValueError, match="one score per row"):
        scorer(model, X, y, qid=qid)


def test_regressors_and_rankers_keep_predict(data):
    X, y, qid = data
    model = Ridge().fit(X, y)
    assert get_scorer("ndcg@10")(model, X, y, qid=qid) == ndcg_score(
        y, model.predict(X), qid=qid, k=10)
    pytest.importorskip("lightgbm")
    from sklearn_rank.lightgbm import LGBMRanker

    ranker = LGBMRanker(n_estimators=3, verbose=-1).fit(X, y, qid=qid)
    assert get_scorer("ndcg@10")(ranker, X, y, qid=qid) == ndcg_score(
        y, ranker.predict(X), qid=qid, k=10)


def test_response_method_repr():
    assert repr(get_scorer("map")) == "make_ranking_scorer('map')"
    assert repr(make_ranking_scorer("map", response_method="predict")) == (
        "make_ranking_scorer('map', response_method='predict')")


def test_auto_scorers_predict_once_per_fold(data):
    X, y, qid = data

    class Counting(LogisticRegression):
        calls = 0

        def decision_function(self, X):
            type(self).calls += 1
            return super().decision_function(X)

    relevant = (y >= 2).astype(int)
    scoring = {m: get_scorer(m) for m in ("ndcg@10", "map", "mrr")}
    with sklearn.config_context(enable_metadata_routing=True):
        GridSearchCV(Counting(), {"C": [1.0]}, cv=QueryKFold(3), scoring=scoring,
                     refit=False).fit(X, relevant, qid=qid)
    assert Counting.calls == 3


# ----------------------------------------------------------------------------------------
# Item 5: halving searches over whole queries
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("cv", [QueryKFold(3), StratifiedQueryKFold(3),
                                QueryShuffleSplit(3, random_state=0)], ids=repr)
@pytest.mark.parametrize("search", [SklearnHalvingGridSearchCV, SklearnHalvingRandomSearchCV])
def test_sklearn_halving_over_rows_is_refused(search, cv, data):
    X, y, qid = data
    halving = search(make_pipeline(DropQueryId(), Ridge()),
                     {"ridge__alpha": loguniform(0.01, 100.0)}, cv=cv, scoring=SCORER,
                     factor=2, random_state=0)
    if search is SklearnHalvingGridSearchCV:
        halving.set_params(param_grid={"ridge__alpha": [0.1, 1.0, 10.0]})
    with pytest.raises(ValueError, match="cutting every query short.*HalvingGridSearchCV.*"
                                         "resource='n_estimators'"):
        halving.fit(frame(X, qid), y)


def test_sklearn_halving_over_another_resource_is_served(data):
    X, y, qid = data
    model = make_pipeline(DropQueryId(), HistGradientBoostingRegressor(
        early_stopping=False, random_state=0))
    search = SklearnHalvingGridSearchCV(
        model, {"histgradientboostingregressor__max_depth": [2, 3]}, cv=QueryKFold(3),
        scoring=SCORER, resource="histgradientboostingregressor__max_iter",
        min_resources=5, max_resources=10, factor=2, random_state=0,
    ).fit(frame(X, qid), y)
    assert np.isfinite(search.best_score_)


class WholeQueriesOnly(RegressorMixin, BaseEstimator):
    """A Ridge on a qid-column frame that checks every query it sees is whole."""

    full = None  # query id -> row count in the whole data

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        self._check(X)
        self.model_ = Ridge(alpha=self.alpha).fit(X.drop(columns="qid"), y)
        return self

    def predict(self, X):
        self._check(X)
        return self.model_.predict(X.drop(columns="qid"))

    def _check(self, X):
        ids, counts = np.unique(X["qid"].to_numpy(), return_counts=True)
        assert all(self.full[i] == c for i, c in zip(ids, counts)), "a query was cut"


@pytest.mark.parametrize("search", [HalvingGridSearchCV, HalvingRandomSearchCV])
def test_our_halving_draws_whole_queries(search):
    # 60 queries: room for rounds of at least 10 training queries each
    X, y, qid = make_ranking(n_queries=60, n_features=5, random_state=0)
    WholeQueriesOnly.full = dict(zip(*np.unique(qid, return_counts=True)))
    halving = search(WholeQueriesOnly(), {"alpha": [0.1, 1.0, 10.0, 100.0]},
                     cv=QueryKFold(3), scoring=SCORER, factor=2, random_state=0)
    # more than one round, each on whole queries (the estimator asserts it)
    halving.fit(frame(X, qid), y)
    assert len(halving.n_resources_) >= 2
    assert np.isfinite(halving.cv_results_["mean_test_score"]).all()


def recording_ridge(seen):
    """A Ridge on a qid-column frame that appends the ids of each training set to ``seen``."""

    class Recording(Ridge):
        def fit(self, X, y):
            seen.append(np.unique(X["qid"].to_numpy()))
            return super().fit(X.drop(columns="qid"), y)

        def predict(self, X):
            return super().predict(X.drop(columns="qid"))

    return Recording()


def test_our_halving_rounds_hold_their_query_budget():
    # the resource is counted in queries: each fit trains on the round's fraction of its
    # training fold's queries, n_resources / n_queries
    X, y, qid = make_ranking(n_queries=60, n_features=5, random_state=0)
    seen = []
    search = HalvingGridSearchCV(recording_ridge(seen), {"alpha": [0.1, 1.0, 10.0, 100.0]},
                                 cv=QueryKFold(3), scoring=SCORER, factor=2,
                                 min_resources=16, random_state=0,
                                 refit=False).fit(frame(X, qid), y)
    assert search.n_resources_ == [16, 32] and search.max_resources_ == 60
    assert list(search.cv_results_["n_resources"]) == [16] * 4 + [32] * 2
    folds = [len(np.unique(qid[train])) for train, _ in QueryKFold(3).split(X, y, qid=qid)]
    # candidates outside, folds inside, as scikit-learn's evaluate_candidates runs them
    expected = [int(n / 60 * f) for n, c in zip(search.n_resources_, search.n_candidates_)
                for _ in range(c) for f in folds]
    assert [len(ids) for ids in seen] == expected


@pytest.mark.parametrize("search, settings", [
    (HalvingRandomSearchCV, {"n_candidates": 8, "factor": 2}),  # the rounds
    (HalvingRandomSearchCV, {}),  # all defaults
    (HalvingGridSearchCV, {"factor": 2}),
])
def test_our_halving_first_round_trains_on_enough_queries(search, settings):
    # on 200 queries, scikit-learn's row budgets [6, 12, 24, 48] trained 41 of 45 fits on
    # one query, and with all defaults over half of them
    X, y, qid = make_ranking(n_queries=200, n_features=5, random_state=0)
    seen = []
    space = ({"alpha": loguniform(1e-3, 1e3)} if search is HalvingRandomSearchCV
             else {"alpha": list(np.logspace(-3, 3, 8))})
    halving = search(recording_ridge(seen), space, cv=QueryKFold(3), scoring=SCORER,
                     random_state=0, refit=False, **settings).fit(frame(X, qid), y)
    assert min(len(ids) for ids in seen) >= MIN_TRAIN_QUERIES == 10
    assert halving.max_resources_ == 200
    assert halving.n_resources_[0] >= MIN_TRAIN_QUERIES
    if settings == {"n_candidates": 8, "factor": 2}:
        assert halving.n_resources_ == [16, 32, 64, 128]
    assert np.isfinite(halving.cv_results_["mean_test_score"]).all()


@pytest.mark.parametrize("search", [HalvingGridSearchCV, HalvingRandomSearchCV])
@pytest.mark.parametrize("settings, message", [
    ({"min_resources": 6}, r"min_resources=6 would train the first round's fits on 3 "
                           r"queries.*Pass min_resources>=16 .*or 'smallest'"),
    # a number of rows, from before the resource was counted in queries
    ({"min_resources": 175}, r"counts resource='n_samples' in queries, and "
                             r"min_resources=175 is more than the 30 queries"),
    ({"max_resources": 400}, r"max_resources=400 is more than the 30 queries"),
    ({"max_resources": 12}, r"at least 10 queries, but its largest round holds "
                            r"max_resources_=12 .*no room to halve"),
])
def test_our_halving_refuses_too_few_queries(search, settings, message, data):
    X, y, qid = data
    halving = search(Ridge(), {"alpha": [0.1, 1.0, 10.0, 100.0]}, cv=QueryKFold(3),
                     scoring=SCORER, factor=2, random_state=0, **settings)
    if search is HalvingRandomSearchCV:
        halving.set_params(n_candidates=4)
    with pytest.raises(ValueError, match=message):
        halving.fit(frame(X, qid), y)


def test_our_halving_refuses_data_too_small_to_halve():
    X, y, qid = make_ranking(n_queries=12, n_features=5, random_state=0)
    halving = HalvingGridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=QueryKFold(3),
                                  scoring=SCORER, factor=2)
    with pytest.raises(ValueError, match="fewest|no room to halve.*GridSearchCV"):
        halving.fit(frame(X, qid), y)


def test_our_halving_needs_query_ids(data):
    X, y, _ = data
    search = HalvingGridSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0]}, factor=2,
                                 cv=QueryKFold(3), scoring=SCORER)
    with pytest.raises(ValueError, match="needs the query id of every row"):
        search.fit(X, y)


# ----------------------------------------------------------------------------------------
# Item 6: ERR on one grade scale for every fold
# ----------------------------------------------------------------------------------------

SCALE = "divides the grades by the top grade"


@pytest.mark.parametrize("make", [
    lambda: get_scorer("err@10"),
    lambda: make_ranking_scorer("err@10"),
    lambda: make_ranking_scorer("rbp(graded=true)"),
    lambda: make_ranking_scorer("rbp", graded=True),
    lambda: make_ranking_scorer("err", convention="trec_eval"),
])
def test_scorer_without_grade_scale_is_refused(make):
    with pytest.raises(ValueError, match=f"{SCALE}.*max_grade=4.*max_grade='query'"):
        make()


@pytest.mark.parametrize("make, expected, top", [
    (lambda: get_scorer("err@10(max_grade=4)"),
     lambda y, s, q: err_score(y, s, qid=q, k=10, max_grade=4), 4),
    (lambda: make_ranking_scorer("err@10", max_grade=4),
     lambda y, s, q: err_score(y, s, qid=q, k=10, max_grade=4), 4),
    (lambda: make_ranking_scorer("err@10", max_grade="query"),
     lambda y, s, q: err_score(y, s, qid=q, k=10, max_grade="query"), 4),
    (lambda: make_ranking_scorer("err@10", convention="catboost"),  # sets max_grade=1
     lambda y, s, q: err_score(y, s, qid=q, k=10, convention="catboost"), 1),
    (lambda: make_ranking_scorer("rbp"), lambda y, s, q: rbp_score(y, s, qid=q), 4),
    (lambda: make_ranking_scorer("rbp(graded=true, max_grade=3)"),
     lambda y, s, q: rbp_score(y, s, qid=q, graded=True, max_grade=3), 3),
])
def test_scorer_with_grade_scale_is_built(make, expected, top, data):
    # built, and scoring on the declared scale (grades 0 to top): the function's value
    X, y, qid = data
    y = np.minimum(y, top)
    model = Ridge().fit(X, y)
    assert make()(model, X, y, qid=qid) == expected(y, model.predict(X), qid)


def test_grade_scale_helpers():
    assert needs_grade_scale("err@10")
    assert needs_grade_scale("rbp", options={"graded": True})
    assert not needs_grade_scale("rbp")
    assert not needs_grade_scale("ndcg@10")
    assert not needs_grade_scale("err@10", convention="catboost")
    assert not needs_grade_scale("err@10(max_grade=query)")
    with pytest.raises(ValueError, match="LGBMRanker.*'err@10\\(max_grade=4\\)'"):
        check_grade_scale("err@10", caller="LGBMRanker(scoring='err@10')")
    check_grade_scale("ndcg@10", caller="LGBMRanker")


def test_err_of_a_fold_does_not_depend_on_its_queries():
    X, y, qid = make_ranking(n_queries=30, n_features=5, random_state=0)
    splits = list(QueryKFold(3).split(qid=qid))
    y = y.copy()
    y[splits[0][1]] = np.minimum(y[splits[0][1]], 2)  # the first test fold lacks grade 3, 4
    assert y.max() == 4 and y[splits[0][1]].max() == 2
    result = cross_validate(Ridge(), X, y, qid=qid, scoring=["err@10", "rbp(graded=true)"],
                            cv=splits, return_estimator=True)
    for fold, (model, (_, test)) in enumerate(zip(result["estimator"], splits)):
        y_score = model.predict(X[test])
        assert result["test_err@10"][fold] == pytest.approx(
            err_score(y[test], y_score, qid=qid[test], k=10, max_grade=4), abs=1e-12)
        assert result["test_rbp(graded=true)"][fold] == pytest.approx(
            rbp_score(y[test], y_score, qid=qid[test], graded=True, max_grade=4), abs=1e-12)
    model = result["estimator"][0]
    test = splits[0][1]
    assert result["test_err@10"][0] != pytest.approx(
        err_score(y[test], model.predict(X[test]), qid=qid[test], k=10))
    # a scorer given as an object keeps its own scale; direct calls keep the call's
    result = cross_validate(Ridge(), X, y, qid=qid, cv=splits,
                            scoring={"err": make_ranking_scorer("err@10", max_grade=8)})
    assert result["test_err"][0] == pytest.approx(
        err_score(y[test], model.predict(X[test]), qid=qid[test], k=10, max_grade=8))


# ----------------------------------------------------------------------------------------
# make_ranking_scorer validates at construction
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, kwargs, error, match", [
    (("ndcg@10",), {"gian": "linear"}, TypeError, "\\['gian'\\].*Did you mean 'gain'"),
    (("tau",), {"k": 5}, TypeError, "\\['k'\\] that kendall_tau does not take"),
    (("ndcg@10",), {"convention": "trec-eval"}, ValueError, "'convention' parameter"),
    (("ndcg@10",), {"k": 5}, ValueError, "both in the metric name and as keywords"),
    (("rbp(p=0.5)",), {"persistence": 0.8}, ValueError, "both in the metric name"),
    (("ndcg@10",), {"response_method": "predict_probas"}, ValueError,
     "response_method must be 'auto'"),
    (("ndcg@10",), {"response_method": ()}, ValueError, "response_method must be"),
    (("ndcg@10",), {"qid_column": 0}, ValueError, "'qid_column' parameter"),
    (("ndcg@10",), {"gain": "linaer"}, ValueError, "'gain' parameter"),
])
def test_make_ranking_scorer_validates(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        make_ranking_scorer(*args, **kwargs)


# ----------------------------------------------------------------------------------------
# Splitters and cross_validate: errors that name the right thing
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("split, match", [
    (lambda: StratifiedQueryKFold(5).split(None, [0, 1, 2, 1], qid=[1, 1, 2, 2]),
     "n_splits=5 folds of whole queries from 2 queries"),
    (lambda: StratifiedQueryKFold(4, shuffle=True, random_state=0).split(
        None, [0, 1, 0, 1, 1, 0], qid=[1, 1, 2, 2, 3, 3]),
     "from 3 queries"),
    (lambda: QueryKFold(2).split(qid=np.array([], dtype=np.int64)), "qid is empty"),
    (lambda: QueryKFold(2).split(qid=[]), "qid is empty"),
    (lambda: StratifiedQueryKFold(2).split(None, [], qid=[]), "qid is empty"),
    (lambda: QueryShuffleSplit(2).split(qid=np.array([], dtype=np.int64)), "qid is empty"),
    (lambda: QueryShuffleSplit(2).split(qid=[1, 1, 1]),
     "cannot split 1 queries.*count queries, not rows"),
    (lambda: QueryShuffleSplit(2, test_size=5).split(qid=[1, 1, 2, 2, 3]),
     "cannot split 3 queries with test_size=5"),
    (lambda: StratifiedQueryKFold(2).split(None, [0.5, 1.5, 0.2, 1], qid=[1, 1, 2, 2]),
     "grades as classes.*'continuous'.*QueryKFold"),
    (lambda: StratifiedQueryKFold(2).split(None, [0, 1, 0], qid=[1, 1, 2, 2]),
     "one grade per row: got y of shape \\(3,\\) for 4 query ids"),
])
def test_splitter_errors_name_the_queries(split, match):
    with pytest.raises(ValueError, match=match):
        list(split())


def test_cross_validate_errors_name_the_queries(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="n_splits=50 folds of whole queries from 30 queries"):
        cross_validate(Ridge(), X, y, qid=qid, cv=50)
    with pytest.raises(ValueError, match="qid is empty|no rows"):
        cross_validate(Ridge(), X[:0], y[:0], qid=qid[:0], cv=3)
