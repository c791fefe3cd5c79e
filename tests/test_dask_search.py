"""Searches and cross-validation on a Dask cluster give the numbers of one process.

scikit-learn's searches and :func:`sklearn_rank.model_selection.cross_validate` dispatch their
fits through joblib. Under ``joblib.parallel_backend("dask")`` the fits run on the workers of a
real ``distributed.LocalCluster`` (two worker processes on loopback, shared by the module),
which unpickle the adapters, scorers and splitters, fit and score there, and send the results
back. Everything but the timings must then be identical to ``n_jobs=1``, bit for bit: every key
of ``cv_results_``, ``best_params_``, ``best_score_``, the refit model's predictions, and every
key that ``cross_validate`` returns (per-query values and out-of-fold predictions included).

Both ways the query ids travel are covered: metadata routing on (``qid=`` routed to the
adapters, the splitters and the scorers; the configuration must reach the workers too) and
off (a ``qid`` column of a DataFrame ``X``).

The boosters run on one thread (``n_jobs=1``), as a search in parallel should run them. They
give bit-identical models on 1 and 2 threads as well (the last test), which matters because
the Dask workers run with ``OMP_NUM_THREADS=1`` (``distributed``'s ``pre-spawn-environ``) and
the client does not: a booster left at its default thread count fits on one thread on the
workers and on all the cores in the client.
"""

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import PerQueryResult, get_scorer, make_ranking_scorer
from sklearn_rank.model_selection import (
    HalvingRandomSearchCV,
    QueryKFold,
    QueryShuffleSplit,
    StratifiedQueryKFold,
    cross_validate,
)
from sklearn_rank.preprocessing import DropQueryId, KeepQueryId

distributed = pytest.importorskip("distributed")
joblib = pytest.importorskip("joblib")
pd = pytest.importorskip("pandas")
pytest.importorskip("lightgbm")
pytest.importorskip("xgboost")

from sklearn_rank.lightgbm import LGBMRanker  # noqa: E402
from sklearn_rank.xgboost import XGBRanker  # noqa: E402

#: What may differ between two runs of the same search: wall-clock times.
TIMING_KEYS = {"mean_fit_time", "std_fit_time", "mean_score_time", "std_score_time",
               "fit_time", "score_time"}

# make_ranking grades 0 to 4: ERR's scorers get that scale, the same for every fold
SCORING = {
    "ndcg@10": get_scorer("ndcg@10"),
    "err@10": make_ranking_scorer("err@10", max_grade=4),
    "map": get_scorer("map"),
}


@pytest.fixture(scope="module")
def client():
    """A client of a cluster of two worker processes, one thread each, on loopback.

    The scheduler's HTTP server on any free port: with ``dashboard_address=None`` it still
    starts, on port 8787, and warns (an error here) when another cluster holds that port.
    """
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address="127.0.0.1:0",
                                  host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=40, n_features=6, random_state=0)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame.insert(3, "qid", qid)  # not last: nothing may rely on where the column is
    return X, y, qid, frame


def lgbm(**params):
    return LGBMRanker(n_estimators=8, n_jobs=1, random_state=0, verbose=-1, **params)


def xgb(**params):
    return XGBRanker(n_estimators=8, n_jobs=1, random_state=0, **params)


def on_cluster(client, run):
    """``run()`` under joblib's Dask backend; fails unless its work ran on the workers."""
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        result = run()
    ran_on = {task["worker"] for task in stream.data}
    assert ran_on, "nothing ran on the cluster: the Dask backend was not used"
    # the workers' own addresses: client.scheduler_info()'s cache is refreshed in the
    # background with totals only, so that its "workers" may read empty under load
    assert ran_on <= set(client.run(lambda dask_worker: dask_worker.address))
    return result


def assert_same(actual, expected, where):
    """Exact equality of nested results: dicts, lists, arrays (masks included), scalars."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), where
        assert sorted(actual) == sorted(expected), where
        for key in expected:
            assert_same(actual[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, PerQueryResult):  # cross_validate's per-query values
        # ids, folds, values, masks, weights and options, bit for bit
        assert isinstance(actual, PerQueryResult) and actual == expected, where
    elif isinstance(expected, np.ma.MaskedArray):
        np.testing.assert_array_equal(np.ma.getmaskarray(actual), np.ma.getmaskarray(expected),
                                      err_msg=f"{where}: mask")
        np.testing.assert_array_equal(np.ma.getdata(actual), np.ma.getdata(expected),
                                      err_msg=where)
    elif isinstance(expected, np.ndarray) and expected.dtype != object:
        np.testing.assert_array_equal(actual, expected, err_msg=where, strict=True)
    else:
        # lists of dicts (params), of arrays (indices, predictions of the folds' models)
        assert len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            if isinstance(e, dict):
                assert a == e, f"{where}[{i}]"
            else:
                np.testing.assert_array_equal(a, e, err_msg=f"{where}[{i}]", strict=True)


def without_timings(results):
    return {key: value for key, value in results.items() if key not in TIMING_KEYS}


def assert_scores_finite(results):
    # assert_array_equal takes NaN for equal to NaN: two runs where every scorer failed
    # would compare equal
    scores = [key for key in results if "_test_" in key or key.startswith(("test_", "train_"))]
    assert scores
    for key in scores:
        if np.asarray(results[key]).dtype.kind == "f":
            assert np.isfinite(results[key]).all(), key


# ----------------------------------------------------------------------------------------
# Searches: each case builds an unfitted search; routing tells how the query ids travel
# ----------------------------------------------------------------------------------------

def lgbm_grid_routed():
    # the ranker is asked for the routed ids explicitly (the adapters request them anyway)
    ranker = lgbm().set_fit_request(qid=True).set_score_request(qid=True)
    return GridSearchCV(ranker, {"num_leaves": [3, 7], "learning_rate": [0.1, 0.3]},
                        scoring=SCORING, refit="ndcg@10", return_train_score=True,
                        cv=QueryKFold(3, shuffle=True, random_state=0), error_score="raise")


def lgbm_grid_column():
    return GridSearchCV(lgbm(), {"num_leaves": [3, 7], "min_child_samples": [5, 20]},
                        scoring=SCORING, refit="ndcg@10", return_train_score=True,
                        cv=StratifiedQueryKFold(3, shuffle=True, random_state=0),
                        error_score="raise")


def keep_query_id_grid_column():
    # a transformer in front of the ranker, which keeps the query-id column out of its reach
    model = make_pipeline(KeepQueryId(StandardScaler()), lgbm())
    return GridSearchCV(model, {"lgbmranker__num_leaves": [3, 7]}, scoring=SCORING,
                        refit="map", cv=QueryKFold(3), error_score="raise")


def scaled_lgbm_grid_routed():
    # Pipeline.fit(X, y, qid=qid) works only with routing on: this fails unless the workers
    # see the configuration that the client set
    model = make_pipeline(StandardScaler(), lgbm().set_fit_request(qid=True))
    return GridSearchCV(model, {"lgbmranker__num_leaves": [3, 7]}, scoring=SCORING,
                        refit="map", cv=QueryKFold(3), error_score="raise")


def xgb_randomized_routed():
    return RandomizedSearchCV(
        xgb(), {"max_depth": [2, 3, 4], "learning_rate": [0.1, 0.2, 0.3],
                "subsample": [0.7, 1.0]},
        n_iter=4, random_state=0, scoring=SCORING, refit="ndcg@10",
        cv=QueryShuffleSplit(3, test_size=0.25, random_state=0), error_score="raise")


def xgb_randomized_column():
    return RandomizedSearchCV(
        xgb(), {"max_depth": [2, 3, 4], "learning_rate": [0.1, 0.2, 0.3]},
        n_iter=4, random_state=1, scoring=get_scorer("ndcg@5"),
        cv=QueryKFold(3, shuffle=True, random_state=1), error_score="raise")


def pointwise_grid_column():
    model = make_pipeline(DropQueryId(), HistGradientBoostingRegressor(max_iter=10,
                                                                       random_state=0))
    return GridSearchCV(model, {"histgradientboostingregressor__max_leaf_nodes": [3, 15]},
                        scoring=SCORING, refit="ndcg@10", return_train_score=True,
                        cv=QueryKFold(3), error_score="raise")


def pointwise_randomized_routed():
    # a pointwise model requests nothing: the ids reach the splitter and the scorers only
    model = make_pipeline(StandardScaler(), Ridge())
    return RandomizedSearchCV(model, {"ridge__alpha": [0.01, 0.1, 1.0, 10.0, 100.0]},
                              n_iter=3, random_state=0, scoring=SCORING, refit="ndcg@10",
                              cv=QueryKFold(3, shuffle=True, random_state=2),
                              error_score="raise")


def halving_column():
    # sklearn-rank's halving search draws whole queries in its early rounds
    return HalvingRandomSearchCV(lgbm(), {"num_leaves": [3, 5, 7, 15]}, n_candidates=4,
                                 factor=2, min_resources="exhaust", random_state=0,
                                 scoring=get_scorer("ndcg@10"), cv=QueryKFold(3),
                                 error_score="raise")


SEARCHES = [
    pytest.param(lgbm_grid_routed, True, id="LGBMRanker-grid-routing"),
    pytest.param(lgbm_grid_column, False, id="LGBMRanker-grid-column"),
    pytest.param(keep_query_id_grid_column, False, id="KeepQueryId-LGBMRanker-grid-column"),
    pytest.param(scaled_lgbm_grid_routed, True, id="scaled-LGBMRanker-grid-routing"),
    pytest.param(xgb_randomized_routed, True, id="XGBRanker-randomized-routing"),
    pytest.param(xgb_randomized_column, False, id="XGBRanker-randomized-column"),
    pytest.param(pointwise_grid_column, False, id="DropQueryId-HGBR-grid-column"),
    pytest.param(pointwise_randomized_routed, True, id="Ridge-randomized-routing"),
    pytest.param(halving_column, False, id="halving-LGBMRanker-column"),
]


def fit_search(make_search, data, routing, n_jobs):
    X, y, qid, frame = data
    if routing:  # set_fit_request too needs routing on
        with sklearn.config_context(enable_metadata_routing=True):
            return make_search().set_params(n_jobs=n_jobs).fit(X, y, qid=qid)
    return make_search().set_params(n_jobs=n_jobs).fit(frame, y)


@pytest.mark.slow  # every search twice, on the cluster's worker processes and in one
@pytest.mark.parametrize(("make_search", "routing"), SEARCHES)
def test_search_on_a_dask_cluster_equals_one_process(client, data, make_search, routing):
    X, y, qid, frame = data
    serial = fit_search(make_search, data, routing, n_jobs=1)
    spread = on_cluster(client, lambda: fit_search(make_search, data, routing, n_jobs=-1))

    expected = without_timings(serial.cv_results_)
    assert_scores_finite(expected)
    assert_same(without_timings(spread.cv_results_), expected, "cv_results_")
    assert spread.best_params_ == serial.best_params_
    assert spread.best_score_ == serial.best_score_
    assert spread.best_index_ == serial.best_index_
    X_predict = X if routing else frame
    np.testing.assert_array_equal(spread.predict(X_predict), serial.predict(X_predict),
                                  strict=True)


def test_a_fit_failing_on_a_worker_raises_in_the_client(client, data):
    # routing off and an array X: the ids reach the splitter only, and every fit of the
    # ranker, on the workers, refuses to train without them; the error comes back, no NaN
    X, y, qid, _ = data
    search = GridSearchCV(lgbm(), {"num_leaves": [3, 7]}, scoring=SCORING, refit="ndcg@10",
                          cv=QueryKFold(3), error_score="raise", n_jobs=-1)
    with pytest.raises(ValueError, match="query id"):
        on_cluster(client, lambda: search.fit(X, y, groups=qid))


# ----------------------------------------------------------------------------------------
# sklearn_rank.model_selection.cross_validate
# ----------------------------------------------------------------------------------------

CROSS_VALIDATIONS = [
    pytest.param(lambda: lgbm(num_leaves=7), "argument", id="LGBMRanker-qid-argument"),
    pytest.param(lambda: make_pipeline(StandardScaler(), lgbm().set_fit_request(qid=True)),
                 "routing", id="scaled-LGBMRanker-routing"),
    pytest.param(lambda: xgb(max_depth=3), "column", id="XGBRanker-column"),
    pytest.param(lambda: make_pipeline(KeepQueryId(StandardScaler()), xgb()), "column",
                 id="KeepQueryId-XGBRanker-column"),
    pytest.param(lambda: make_pipeline(DropQueryId(), Ridge()), "column",
                 id="DropQueryId-Ridge-column"),
]


def run_cross_validate(make_estimator, data, how, n_jobs):
    X, y, qid, frame = data
    calls = []
    kwargs = dict(scoring=["ndcg@10", "err@10", "map"],
                  cv=QueryKFold(4, shuffle=True, random_state=0), n_jobs=n_jobs,
                  return_train_score=True, return_estimator=True, return_indices=True,
                  return_per_query=True, return_predictions=True,
                  callback=lambda: calls.append(1))
    if how == "column":
        result = cross_validate(make_estimator(), frame, y, **kwargs)
    elif how == "routing":
        with sklearn.config_context(enable_metadata_routing=True):
            result = cross_validate(make_estimator(), X, y, qid=qid, **kwargs)
    else:
        result = cross_validate(make_estimator(), X, y, qid=qid, **kwargs)
    result["callback_calls"] = [len(calls)]
    return result


@pytest.mark.parametrize(("make_estimator", "how"), CROSS_VALIDATIONS)
def test_cross_validate_on_a_dask_cluster_equals_one_process(client, data, make_estimator,
                                                             how):
    X, y, qid, frame = data
    serial = run_cross_validate(make_estimator, data, how, n_jobs=1)
    spread = on_cluster(client, lambda: run_cross_validate(make_estimator, data, how,
                                                           n_jobs=-1))

    assert {"per_query", "predictions", "indices", "train_ndcg@10"} <= set(serial)
    assert_scores_finite(serial)
    assert np.isfinite(serial["predictions"]).all()
    # the fitted models of the folds: compared by what they predict
    X_predict = frame if how == "column" else X
    models = {key: [model.predict(X_predict) for model in result.pop("estimator")]
              for key, result in (("serial", serial), ("spread", spread))}
    assert_same(models["spread"], models["serial"], "estimator predictions")
    assert_same(without_timings(spread), without_timings(serial), "cross_validate")
    assert serial["callback_calls"] == [4]


@pytest.mark.slow  # trains the boosters with one thread and with several
def test_the_boosters_do_not_depend_on_the_number_of_threads(data):
    # Why the comparisons above may be exact: the workers run one OpenMP thread each
    # (distributed sets OMP_NUM_THREADS=1 in them), the client any number. The boosters
    # used here give the same model on 1 and 2 threads; should one stop doing so, this says
    # why a comparison with the cluster broke.
    X, y, qid, _ = data
    for make in (lgbm, xgb):
        one, two = (clone(make()).set_params(n_jobs=n).fit(X, y, qid=qid).predict(X)
                    for n in (1, 2))
        np.testing.assert_array_equal(one, two, strict=True)
