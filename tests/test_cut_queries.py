"""A test query cut from a training query is refused, wherever scikit-learn scores (issue 18.1).

``cv=5`` (or no ``cv``, or ``KFold``) in scikit-learn's own searches and helpers splits rows,
not queries: nearly every query trains the model that is then scored on its other rows. The
adapters, the Dask rankers and ``DropQueryId`` keep a fingerprint of their training queries
(id, row count, label hash); the ranking scorers, the adapters' ``score`` and the displays
refuse rows of a trained query other than its trained rows, naming both readings (a cut, or
other queries under reused ids) and both fixes. Training scores (the trained rows) and
held-out queries are scored as before.
"""

import re
import warnings

import numpy as np
import pytest
import sklearn
from _rankers import NAMES, small_ranker
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    learning_curve,
    train_test_split,
    validation_curve,
)
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank import get_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate
from sklearn_rank.model_selection import (
    HalvingRandomSearchCV,
    QueryKFold,
    cross_validate,
    reused_query_ids,
)
from sklearn_rank.preprocessing import DropQueryId, KeepQueryId
from sklearn_rank.utils._trained import TrainedQueries

pd = pytest.importorskip("pandas")
pytest.importorskip("lightgbm")
from sklearn_rank.lightgbm import LGBMRanker  # noqa: E402

CUT = "a splitter cut these queries"
GRID = {"num_leaves": [7, 15]}


def lgbm(**params):
    return LGBMRanker(**{"n_estimators": 10, "verbose": -1, "n_jobs": 1, "random_state": 0,
                         "min_child_samples": 5, **params})


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=60, n_features=6, random_state=0)
    frame = pd.DataFrame(X).add_prefix("f").assign(qid=qid)
    return X, y, qid, frame


def fit_search(search, data, form):
    """Fit ``search`` with the query ids routed (``routed``) or as a column (``column``)."""
    X, y, qid, frame = data
    if form == "routed":
        with sklearn.config_context(enable_metadata_routing=True):
            return search.fit(X, y, qid=qid)
    return search.fit(frame, y)


# ---------------------------------------------------------------------------------------------
# The repro: cv=5 against QueryKFold(5), on make_ranking(100)


@pytest.mark.parametrize("form", ["routed", "column"])
def test_the_repro_cv5_raises_and_a_query_splitter_scores(form):
    X, y, qid = make_ranking(100, random_state=0)
    data = (X, y, qid, pd.DataFrame(X).add_prefix("f").assign(qid=qid))
    search = GridSearchCV(lgbm(n_estimators=50), GRID, cv=5, error_score="raise")
    with pytest.raises(ValueError, match=CUT) as caught:
        fit_search(search, data, form)
    message = str(caught.value)
    for fix in ("QueryKFold(5)", "GroupKFold(5) with groups=qid", "reused_query_ids",
                "distinct ids", "cross_validate"):
        assert fix in message
    search = GridSearchCV(lgbm(n_estimators=50), GRID, cv=QueryKFold(5), error_score="raise")
    assert 0.8 < fit_search(search, data, form).best_score_ <= 1


def test_default_error_score_gives_nan_with_the_message_never_a_number(data):
    # scikit-learn turns a scorer's error into error_score=nan with a warning: no number
    search = GridSearchCV(lgbm(), GRID, cv=KFold(3))
    with pytest.warns(UserWarning) as record:
        fit_search(search, data, "routed")
    assert np.isnan(search.best_score_)
    assert any(CUT in str(w.message) for w in record)
    with warnings.catch_warnings():  # under -W error it raises
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match=CUT):
            fit_search(GridSearchCV(lgbm(), GRID, cv=KFold(3)), data, "routed")


# ---------------------------------------------------------------------------------------------
# Every entry point, every adapter, both forms


SCORINGS = {
    "adapter score": None,
    "scorer": get_scorer("ndcg@10"),
    "multi-metric": {"ndcg@10": get_scorer("ndcg@10"), "map": get_scorer("map")},
}

ENTRY_POINTS = {
    "GridSearchCV": lambda est, sc, cv: GridSearchCV(est, GRID, cv=cv, scoring=sc,
                                                     refit=False, error_score="raise"),
    "RandomizedSearchCV": lambda est, sc, cv: RandomizedSearchCV(
        est, GRID, n_iter=2, cv=cv, scoring=sc, refit=False, error_score="raise",
        random_state=0),
    "HalvingRandomSearchCV": lambda est, sc, cv: HalvingRandomSearchCV(
        est, GRID, cv=cv, scoring=sc if not isinstance(sc, dict) else sc["ndcg@10"],
        n_candidates=2, factor=2, min_resources=30, refit=False, error_score="raise",
        random_state=0),
}


def run_helper(helper, estimator, scoring, cv, data, form):
    X, y, qid, frame = data
    X_in = X if form == "routed" else frame
    params = {"qid": qid} if form == "routed" else None
    kwargs = {"cv": cv, "error_score": "raise", "params": params}
    if isinstance(scoring, dict) and helper is not sk_cross_validate:
        scoring = scoring["ndcg@10"]
    with sklearn.config_context(enable_metadata_routing=form == "routed"):
        if helper is learning_curve:
            return helper(estimator, X_in, y, train_sizes=[0.5, 1.0], scoring=scoring,
                          **kwargs)
        if helper is validation_curve:
            return helper(estimator, X_in, y, param_name="num_leaves", param_range=[7, 15],
                          scoring=scoring, **kwargs)
        return helper(estimator, X_in, y, scoring=scoring, **kwargs)


@pytest.mark.parametrize("form", ["routed", "column"])
@pytest.mark.parametrize("scoring", list(SCORINGS))
@pytest.mark.parametrize("entry", [*ENTRY_POINTS, "cross_val_score", "cross_validate",
                                   "learning_curve", "validation_curve"])
def test_every_entry_point_refuses_a_splitter_that_cuts_queries(data, entry, scoring, form):
    scorer = SCORINGS[scoring]
    if entry == "HalvingRandomSearchCV" and isinstance(scorer, dict):
        pytest.skip("halving searches take one metric")
    match = CUT
    if entry == "HalvingRandomSearchCV" and form == "routed":
        # its whole-query subsampling needs the query ids, which routing gives only to a
        # splitter that asks for them (KFold does not): refused before any fit
        match = f"{CUT}|needs the query id of every row"
    for cv in (5, KFold(3, shuffle=True, random_state=0)):
        with pytest.raises(ValueError, match=match):
            if entry in ENTRY_POINTS:
                fit_search(ENTRY_POINTS[entry](lgbm(), scorer, cv), data, form)
            else:
                helper = {"cross_val_score": cross_val_score,
                          "cross_validate": sk_cross_validate,
                          "learning_curve": learning_curve,
                          "validation_curve": validation_curve}[entry]
                run_helper(helper, lgbm(), scorer, cv, data, form)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("form", ["routed", "column"])
@pytest.mark.parametrize("pipeline", [False, True])
def test_every_adapter_alone_or_ending_a_pipeline(data, name, form, pipeline):
    model = small_ranker(name)
    if pipeline:
        model = make_pipeline(KeepQueryId(StandardScaler()) if form == "column"
                              else StandardScaler(), model)
    for scoring in (None, get_scorer("ndcg@10")):
        search = GridSearchCV(model, {}, cv=KFold(3), scoring=scoring, error_score="raise")
        with pytest.raises(ValueError, match=CUT):
            fit_search(search, data, form)
        # the same search over whole queries, train scores too
        search = GridSearchCV(model, {}, cv=QueryKFold(3), scoring=scoring,
                              error_score="raise", return_train_score=True)
        results = fit_search(search, data, form).cv_results_
        assert np.isfinite(results["mean_test_score"]).all()
        assert np.isfinite(results["mean_train_score"]).all()


# ---------------------------------------------------------------------------------------------
# Pointwise models: DropQueryId remembers the training queries


@pytest.mark.parametrize("form", ["routed", "column"])
def test_a_pointwise_pipeline_with_drop_query_id(data, form):
    model = make_pipeline(DropQueryId(), Ridge())
    with pytest.raises(ValueError, match=CUT):
        fit_search(GridSearchCV(model, {"ridge__alpha": [1.0]}, cv=5,
                                scoring=get_scorer("ndcg@10"), error_score="raise"),
                   data, form)
    search = GridSearchCV(model, {"ridge__alpha": [1.0]}, cv=QueryKFold(5),
                          scoring=get_scorer("ndcg@10"), error_score="raise",
                          return_train_score=True)
    results = fit_search(search, data, form).cv_results_
    assert np.isfinite(results["mean_train_score"]).all()


def test_drop_query_id_requests_qid_and_passes_the_rows_unchanged(data):
    X, y, qid, frame = data
    step = DropQueryId().fit(frame, y)
    assert step.transform(frame).columns.tolist() == [f"f{i}" for i in range(6)]
    assert DropQueryId().get_metadata_routing().fit.requests == {"qid": True}
    assert DropQueryId().fit(frame)._trained_queries is None  # no grades: nothing kept


# ---------------------------------------------------------------------------------------------
# Train scores and held-out queries keep working


def test_train_scores_are_scored_as_before(data):
    X, y, qid, frame = data
    model = lgbm().fit(X, y, qid=qid)
    expected = evaluate(y, model.predict(X), qid=qid, metrics=["ndcg@10"])["ndcg@10"]
    assert model.score(X, y, qid=qid) == expected
    order = np.random.default_rng(0).permutation(len(y))  # any row order
    assert model.score(X[order], y[order], qid=qid[order]) == pytest.approx(expected)
    assert get_scorer("ndcg@10")(model, frame, y) == expected
    # a part of the training queries, whole
    part = np.isin(qid, np.unique(qid)[:10])
    model.score(X[part], y[part], qid=qid[part])
    with sklearn.config_context(enable_metadata_routing=True):
        result = sk_cross_validate(lgbm(), X, y, cv=QueryKFold(3), params={"qid": qid},
                                   scoring=get_scorer("ndcg@10"), return_train_score=True,
                                   error_score="raise")
        sizes, train, test = learning_curve(lgbm(), X, y, cv=QueryKFold(3),
                                            params={"qid": qid}, train_sizes=[0.5, 1.0],
                                            scoring=get_scorer("ndcg@10"), error_score="raise")
    assert np.isfinite(result["train_score"]).all()
    assert np.isfinite(train).all() and np.isfinite(test).all()
    ours = cross_validate(lgbm(), X, y, qid=qid, cv=3, return_train_score=True)
    assert np.isfinite(ours["train_ndcg@10"]).all()


def test_held_out_queries_and_reused_ids(data):
    X, y, qid, frame = data
    train, test = qid < 45, qid >= 45
    model = lgbm().fit(X[train], y[train], qid=qid[train])
    expected = evaluate(y[test], model.predict(X[test]), qid=qid[test],
                        metrics=["ndcg@10"])["ndcg@10"]
    assert model.score(X[test], y[test], qid=qid[test]) == expected
    # the same queries under ids that the training queries have: ambiguous, refused...
    reused = qid[test] - 45
    for score in (lambda: model.score(X[test], y[test], qid=reused),
                  lambda: get_scorer("ndcg@10")(model, X[test], y[test], qid=reused)):
        with pytest.raises(ValueError, match="reuse the training ids") as caught:
            score()
        assert CUT in str(caught.value)
        # ...unless said so
        with reused_query_ids():
            assert score() == expected
    # a fitted search scores its best estimator on held-out queries
    search = GridSearchCV(lgbm(), GRID, cv=QueryKFold(3), scoring=get_scorer("ndcg@10"))
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X[train], y[train], qid=qid[train])
        assert 0 < search.score(X[test], y[test], qid=qid[test]) <= 1
        with pytest.raises(ValueError, match=CUT):
            search.score(X[test], y[test], qid=reused)


def test_train_test_split_of_rows_is_refused(data):
    X, y, qid, frame = data
    X_tr, X_te, y_tr, y_te, q_tr, q_te = train_test_split(X, y, qid, random_state=0)
    model = lgbm().fit(X_tr, y_tr, qid=q_tr)
    with pytest.raises(ValueError, match=CUT):
        model.score(X_te, y_te, qid=q_te)


def test_group_kfold_with_groups_qid_is_the_named_fix(data):
    X, y, qid, frame = data
    search = GridSearchCV(lgbm(), GRID, cv=GroupKFold(3), scoring=get_scorer("ndcg@10"),
                          error_score="raise")
    assert np.isfinite(search.fit(frame, y, groups=qid).best_score_)


def test_displays_refuse_a_cut_query(data):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from sklearn_rank.plot import MetricAtKDisplay

    X, y, qid, frame = data
    X_tr, X_te, y_tr, y_te, q_tr, q_te = train_test_split(X, y, qid, random_state=0)
    model = lgbm().fit(X_tr, y_tr, qid=q_tr)
    with pytest.raises(ValueError, match=CUT):
        MetricAtKDisplay.from_estimator(model, X_te, y_te, qid=q_te, metric="ndcg")


# ---------------------------------------------------------------------------------------------
# The fingerprint


def test_fingerprint_is_order_insensitive_exact_and_merges():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 5, 500).astype(float)
    qid = rng.integers(0, 40, 500)
    whole = TrainedQueries.of(y, qid)
    order = rng.permutation(500)
    shuffled = TrainedQueries.of(y[order], qid[order])
    assert np.array_equal(whole.ids, shuffled.ids)
    assert np.array_equal(whole.hashes, shuffled.hashes)
    parts = TrainedQueries.merge([TrainedQueries.of(y[s], qid[s])
                                  for s in np.array_split(order, 7)])
    assert np.array_equal(parts.sizes, whole.sizes)
    assert np.array_equal(parts.hashes, whole.hashes)
    # one grade changed, or one row dropped: another fingerprint of that query only
    changed = y.copy()
    changed[0] = 4.0 if y[0] != 4.0 else 3.0
    other = TrainedQueries.of(changed, qid)
    assert np.flatnonzero(other.hashes != whole.hashes).tolist() == [
        int(np.searchsorted(whole.ids, qid[0]))]
    whole.check(y[order], qid[order], caller="test")  # the trained rows: fine
    with pytest.raises(ValueError, match=re.escape("e.g. qid")):
        whole.check(y[1:], qid[1:], caller="test")
    # ids of other kinds never match
    whole.check(y, qid.astype(str), caller="test")
