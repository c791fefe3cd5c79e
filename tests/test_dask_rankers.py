"""The Dask rankers, DaskLGBMRanker and DaskXGBRanker, on a real cluster of worker processes.

Query ids come per row, in any order and any partition (the rows of make_ranking are shuffled,
so each query's rows are spread over the partitions); predictions come back in the caller's
row order; ``score`` and the eval metrics equal sklearn-rank's in-memory computation on the
same rows; early stopping picks the iteration that the boosters' own rule picks from those
values; mistakes raise clear errors. The expected values come from the in-memory engine
(:func:`sklearn_rank.metrics.evaluate`) and from the boosters' own in-memory predictions of the
fitted model.
"""

import logging
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone

dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
xgboost = pytest.importorskip("xgboost")

import lightgbm  # noqa: E402

from sklearn_rank.datasets import make_ranking  # noqa: E402
from sklearn_rank.lightgbm import DaskLGBMRanker, LGBMRanker  # noqa: E402
from sklearn_rank.metrics import evaluate, ndcg_score  # noqa: E402
from sklearn_rank.model_selection import reused_query_ids  # noqa: E402
from sklearn_rank.xgboost import DaskXGBRanker, XGBRanker  # noqa: E402

ERR = "err@10(max_grade=4)"  # make_ranking grades 0 to 4
OWN = {"qid_column", "scoring", "validation_fraction", "early_stopping_rounds"}


@pytest.fixture(scope="module")
def client():
    """A client of a cluster of two worker processes, one thread each, on loopback.

    The scheduler's HTTP server on any free port: with ``dashboard_address=None`` it still
    starts, on port 8787, and warns (an error here) when another cluster holds that port.
    LightGBM's network takes free ports that its Dask interface finds on each worker.
    """
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address="127.0.0.1:0",
                                  host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as client:
        yield client


def as_frame(X, y, qid):
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame.insert(2, "qid", qid)  # not last: nothing may rely on where the column is
    return frame.assign(label=y)


@pytest.fixture(scope="module")
def data():
    """Training rows in random order (make_ranking shuffles them), in 4 partitions."""
    X, y, qid = make_ranking(n_queries=80, n_features=6, random_state=0)
    frame = as_frame(X, y, qid)
    return X, y, qid, frame, dd.from_pandas(frame, npartitions=4)


@pytest.fixture(scope="module")
def eval_data():
    """An eval set of other queries, in 3 partitions."""
    X, y, qid = make_ranking(n_queries=40, n_features=6, random_state=1)
    qid = qid + 1000
    frame = as_frame(X, y, qid)
    return X, y, qid, frame, dd.from_pandas(frame, npartitions=3)


def features(ddf):
    return ddf.drop(columns="label")


def lgbm(**params):
    return DaskLGBMRanker(**{"n_estimators": 10, "verbose": -1, "random_state": 0,
                             "min_child_samples": 5, **params})


def xgb(**params):
    return DaskXGBRanker(**{"n_estimators": 10, "max_depth": 3, "random_state": 0, **params})


def patience_rule(curve, rounds):
    """The 1-based iteration early stopping keeps: the first best value, once ``rounds``
    iterations have not improved on it (or at the end)."""
    best, best_at = -math.inf, 0
    for i, value in enumerate(curve):
        if value > best:
            best, best_at = value, i
        elif i - best_at >= rounds:
            break
    return best_at + 1


def test_queries_are_spread_over_partitions(data):
    # the premise of the tests: the shuffle has something to do
    _, _, qid, frame, ddf = data
    partition = np.repeat(np.arange(ddf.npartitions), ddf.map_partitions(len).compute())
    spread = pd.Series(partition).groupby(frame["qid"].to_numpy()).nunique()
    assert (spread > 1).mean() > 0.5


@pytest.mark.parametrize("Ranker", [DaskLGBMRanker, DaskXGBRanker])
@pytest.mark.parametrize("layout", ["column", "index"])
def test_queries_whole_and_contiguous_on_the_workers(client, data, Ranker, layout):
    _, _, qid, frame, ddf = data
    model = Ranker()
    if layout == "column":  # rows of a query in several partitions: shuffled
        X, y, qid_arg = features(ddf), ddf["label"], None
    else:  # the index, with known divisions: each query in one partition already
        indexed = ddf.set_index("qid")
        X, y, qid_arg = indexed.drop(columns="label"), indexed["label"], indexed.index
    query_frame = model._query_frame(X, y, qid_arg, None, caller="test",
                                     twin=model._local_twin(), client=client)
    if layout == "index":  # not shuffled: the partitions keep their rows
        assert query_frame.rows == tuple(indexed.map_partitions(len).compute())
    ids = [query_frame.frame.partitions[i].compute()["__sklearn_rank_qid__"].to_numpy()
           for i in range(query_frame.frame.npartitions)]
    # each query in one partition, its rows contiguous there, with all its rows
    runs = [q[np.r_[True, q[1:] != q[:-1]]] for q in ids]
    assert sum(len(r) for r in runs) == len(np.unique(qid)) == query_frame.n_queries
    assert np.array_equal(np.sort(np.concatenate(runs)), np.unique(qid))
    _, expected_sizes = np.unique(qid, return_counts=True)
    sizes = query_frame.sizes().compute().to_numpy()
    order = np.argsort(np.concatenate(runs))
    assert np.array_equal(sizes[order], expected_sizes)
    # XGBoost's query codes: dense and non-decreasing along the partitions
    codes = query_frame.codes().compute().to_numpy()
    assert np.array_equal(np.unique(codes), np.arange(len(expected_sizes)))
    assert np.all(np.diff(codes) >= 0)


def test_lightgbm_fit_predict_score(client, data):
    X, y, qid, frame, ddf = data
    weight = np.random.default_rng(0).uniform(0.5, 2, len(y))
    ddf_w = dd.from_pandas(frame.assign(w=weight), npartitions=4)
    model = lgbm().fit(features(ddf), ddf["label"])  # query ids: the "qid" column
    assert OWN.isdisjoint(model.booster_.params)  # the adapter's own stay home
    y_score = model.predict(features(ddf))
    assert isinstance(y_score, dd.Series) and y_score.divisions == ddf.divisions
    computed = y_score.compute()
    assert computed.index.equals(frame.index)  # the caller's row order
    expected = model.to_local().predict(frame.drop(columns=["label", "qid"]))
    np.testing.assert_array_equal(computed.to_numpy(), expected)
    assert model.score(features(ddf), ddf["label"]) == pytest.approx(
        evaluate(y, expected, qid=qid, metrics=["ndcg@10"])["ndcg@10"], abs=1e-12)
    weighted = model.score(features(ddf_w).drop(columns="w"), ddf_w["label"],
                           sample_weight=ddf_w["w"])
    assert weighted == pytest.approx(evaluate(y, expected, qid=qid, metrics=["ndcg@10"],
                                              sample_weight=weight)["ndcg@10"], abs=1e-12)


def test_xgboost_fit_predict_score_with_routed_qid(client, data):
    X, y, qid, frame, ddf = data
    model = xgb(scoring="map").fit(ddf.drop(columns=["label", "qid"]), ddf["label"],
                                   qid=ddf["qid"])
    assert OWN.isdisjoint(model.get_xgb_params())
    y_score = model.predict(features(ddf))  # the "qid" column is dropped first
    assert isinstance(y_score, dd.Series) and y_score.divisions == ddf.divisions
    computed = y_score.compute()
    assert computed.index.equals(frame.index)
    expected = model.get_booster().inplace_predict(frame.drop(columns=["label", "qid"]))
    np.testing.assert_array_equal(computed.to_numpy(), expected)
    assert model.score(ddf.drop(columns=["label", "qid"]), ddf["label"],
                       qid=ddf["qid"]) == pytest.approx(
        evaluate(y, expected, qid=qid, metrics=["map"])["map"], abs=1e-12)


@pytest.mark.parametrize("make", [lgbm, xgb])
def test_score_refuses_a_query_cut_by_a_row_split(client, data, make):
    # issue 18.1: a row-wise random_split cuts the queries; score refuses the rest of a
    # trained query, and scores the trained rows and held-out queries as before
    X, y, qid, frame, ddf = data
    train, test = ddf.random_split([0.7, 0.3], random_state=0)
    model = make().fit(features(train), train["label"])
    with pytest.raises(ValueError, match="a splitter cut these queries"):
        model.score(features(test), test["label"])
    trained = train.compute()
    expected = evaluate(trained["label"].to_numpy(),
                        model.predict(features(train)).compute().to_numpy(),
                        qid=trained["qid"].to_numpy(), metrics=["ndcg@10"])["ndcg@10"]
    assert model.score(features(train), train["label"]) == pytest.approx(expected, abs=1e-12)
    kept, held = ddf[ddf["qid"] < 60], ddf[ddf["qid"] >= 60]
    model = make().fit(features(kept), kept["label"])
    held_out = model.score(features(held), held["label"])
    reused = held.assign(qid=held["qid"] - 60)  # other queries under trained ids
    with pytest.raises(ValueError, match="reuse the training ids"):
        model.score(features(reused), reused["label"])
    with reused_query_ids():
        assert model.score(features(reused), reused["label"]) == held_out


def test_dask_arrays_in_arrays_out(client, data):
    X, y, qid, _, _ = data
    X_d = da.from_array(X, chunks=(500, -1))
    y_d, qid_d = da.from_array(y, chunks=500), da.from_array(qid.astype(str), chunks=500)
    model = lgbm().fit(X_d, y_d, qid=qid_d)  # string query ids
    y_score = model.predict(X_d)
    assert isinstance(y_score, da.Array) and y_score.chunks == (X_d.chunks[0],)
    expected = model.to_local().predict(X)
    np.testing.assert_array_equal(y_score.compute(), expected)
    assert model.score(X_d, y_d, qid=qid_d) == pytest.approx(
        evaluate(y, expected, qid=qid, metrics=["ndcg@10"])["ndcg@10"], abs=1e-12)


@pytest.mark.parametrize("how", ["early_stopping_rounds", "callback"])
def test_lightgbm_early_stopping_on_an_eval_set(client, data, eval_data, how):
    _, _, _, _, ddf = data
    X_e, y_e, qid_e, frame_e, ddf_e = eval_data
    rounds, n_estimators = 3, 30
    params = {"early_stopping_rounds": rounds} if how == "early_stopping_rounds" else {}
    callbacks = [lightgbm.early_stopping(rounds, verbose=False)] if how == "callback" else None
    model = lgbm(n_estimators=n_estimators, learning_rate=0.3, **params).fit(
        features(ddf), ddf["label"], eval_set=[(features(ddf_e), ddf_e["label"])],
        eval_metric=ERR, callbacks=callbacks)
    curve = model.evals_result_["valid_0"][ERR]
    assert len(curve) == n_estimators  # every iteration evaluated, after training
    X_eval = frame_e.drop(columns=["label", "qid"])
    for k in range(1, n_estimators + 1):  # sklearn-rank's value on all the eval rows
        assert curve[k - 1] == pytest.approx(evaluate(
            y_e, model.booster_.predict(X_eval, num_iteration=k), qid=qid_e,
            metrics=[ERR])[ERR], abs=1e-12)
    best = model.best_iteration_
    assert best == patience_rule(curve, rounds) and 0 < best <= n_estimators
    assert model.best_score_ == {"valid_0": {ERR: curve[best - 1]}}
    np.testing.assert_array_equal(model.predict(features(ddf_e)).compute().to_numpy(),
                                  model.booster_.predict(X_eval, num_iteration=best))


def test_lightgbm_early_stopping_holds_out_whole_queries(client, data):
    X, y, qid, frame, ddf = data
    model = lgbm(n_estimators=20, learning_rate=0.3, early_stopping_rounds=3,
                 validation_fraction=0.25).fit(features(ddf), ddf["label"])
    held = model.validation_queries_
    assert len(held) == len(set(held)) == math.ceil(0.25 * len(np.unique(qid)))
    assert set(held) <= set(qid)
    rows = np.isin(qid, held)
    curve = model.evals_result_["valid_0"]["ndcg@10"]  # scoring, by default
    for k in (1, len(curve)):
        assert curve[k - 1] == pytest.approx(evaluate(
            y[rows], model.booster_.predict(X[rows], num_iteration=k), qid=qid[rows],
            metrics=["ndcg@10"])["ndcg@10"], abs=1e-12)
    assert model.best_iteration_ == patience_rule(curve, 3)


def test_xgboost_early_stopping_on_all_the_workers_eval_rows(client, data, eval_data):
    # XGBoost alone averages the workers' values whatever their numbers of queries; the
    # values must be those of all the eval rows
    _, _, _, _, ddf = data
    X_e, y_e, qid_e, frame_e, ddf_e = eval_data
    model = xgb(n_estimators=40, learning_rate=0.5, eval_metric=ERR,
                early_stopping_rounds=3).fit(
        features(ddf), ddf["label"], eval_set=[(features(ddf_e), ddf_e["label"])])
    curve = model.evals_result()["validation_0"][ERR]
    booster = model.get_booster()
    X_eval = frame_e.drop(columns=["label", "qid"])
    for k in range(1, len(curve) + 1):  # XGBoost logs six decimals
        assert curve[k - 1] == pytest.approx(evaluate(
            y_e, booster.inplace_predict(X_eval, iteration_range=(0, k)), qid=qid_e,
            metrics=[ERR])[ERR], abs=5e-7)
    assert model.best_iteration + 1 == patience_rule(curve, 3)
    assert len(curve) in (model.best_iteration + 1 + 3, 40)
    np.testing.assert_array_equal(
        model.predict(features(ddf_e)).compute().to_numpy(),
        booster.inplace_predict(X_eval, iteration_range=(0, model.best_iteration + 1)))


def test_xgboost_early_stopping_holds_out_whole_queries(client, data):
    X, y, qid, frame, ddf = data
    model = xgb(n_estimators=20, learning_rate=0.5, early_stopping_rounds=3,
                validation_fraction=0.25).fit(features(ddf), ddf["label"])
    held = model.validation_queries_
    assert len(held) == math.ceil(0.25 * len(np.unique(qid)))
    rows = np.isin(qid, held)
    curve = model.evals_result()["validation_0"]["ndcg@10"]  # scoring, by default
    k = len(curve)
    assert curve[k - 1] == pytest.approx(evaluate(
        y[rows], model.get_booster().inplace_predict(X[rows], iteration_range=(0, k)),
        qid=qid[rows], metrics=["ndcg@10"])["ndcg@10"], abs=5e-7)


def test_parameters_clone_pickle_and_refit(client, data):
    _, _, _, frame, ddf = data
    for model in (lgbm(scoring="map", min_data_in_leaf=4), xgb(scoring="map")):
        copy = clone(model)
        assert copy.get_params() == model.get_params()
        assert copy.set_params(scoring="mrr").get_params()["scoring"] == "mrr"
        routing = model.get_metadata_routing()
        assert routing.fit.requests["qid"] is True and routing.score.requests["qid"] is True
    model = lgbm().fit(features(ddf), ddf["label"])
    # a second fit of the same estimator: lightgbm.dask left num_threads among its parameters,
    # which would warn (an error here) that it is ignored
    model.fit(features(ddf), ddf["label"])
    expected = model.predict(features(ddf)).compute()
    restored = pickle.loads(pickle.dumps(model))
    pd.testing.assert_series_equal(restored.predict(features(ddf)).compute(), expected)


@pytest.mark.slow  # a subprocess importing the package and the boosters
def test_import_does_not_import_dask():
    code = ("import sys, sklearn_rank.lightgbm, sklearn_rank.xgboost; "
            "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def _fit_on(ddf, model=None):
    """(model, X, y, fit parameters) of a Dask DataFrame with a "qid" column."""
    return model or lgbm(), features(ddf), ddf["label"], {}


def _bad_qid(data):
    frame = data[3].assign(qid=data[3]["qid"].astype(float))
    frame.loc[frame.index[5], "qid"] = np.nan
    return _fit_on(dd.from_pandas(frame, npartitions=4))


def _bad_labels(data):
    return _fit_on(dd.from_pandas(data[3].assign(label=data[3]["label"] + 0.5),
                                  npartitions=4))


def _shuffled(data):
    frame = data[3].sample(frac=1, random_state=1).reset_index(drop=True)
    return dd.from_pandas(frame, npartitions=4)


def _big_query(data):
    X, y, _ = make_ranking(n_queries=400, n_features=6, min_docs=30, max_docs=50,
                           random_state=2)
    frame = as_frame(X[:10001], y[:10001], np.zeros(10001, dtype=int))
    return _fit_on(dd.from_pandas(frame, npartitions=2))


BAD_FITS = [
    ("no query ids",
     lambda d: (lgbm(), d[4].drop(columns=["label", "qid"]), d[4]["label"], {}),
     ValueError, "needs the query id of every row, and got none"),
    ("query ids in memory",
     lambda d: (lgbm(), features(d[4]), d[4]["label"], {"qid": d[2]}),
     TypeError, "qid as a Dask Series of the same DataFrame as X.*numpy ndarray"),
    ("data in memory",
     lambda d: (lgbm(), d[3].drop(columns="label"), d[3]["label"], {}),
     TypeError, "takes X as a Dask DataFrame or a 2-D Dask array; got a pandas DataFrame"),
    ("missing query ids", _bad_qid, ValueError, "qid has missing values"),
    ("other partitions",
     lambda d: (lgbm(), features(d[4]), d[4]["label"],
                {"qid": dd.from_pandas(d[3], npartitions=3)["qid"]}),
     ValueError, "X has 4 partitions and qid has 3"),
    ("rows of another frame",
     lambda d: (lgbm(), features(d[4]), d[4]["label"], {"qid": _shuffled(d)["qid"]}),
     ValueError, "come from different Dask DataFrames"),
    ("fewer rows",
     lambda d: (lgbm(), features(d[4]), d[4]["label"],
                {"qid": d[4][d[4]["f0"] > 0]["qid"]}),
     ValueError, r"partition \d of X has \d+ rows, and that of qid has \d+"),
    ("labels that are not grades", _bad_labels,
     ValueError, "integer relevance grades.*counted from the start of partition"),
    ("one query on purpose",
     lambda d: (lgbm(), d[4].drop(columns=["label", "qid"]), d[4]["label"],
                {"qid": "single_query"}),
     ValueError, "single_query' would make all rows one query"),
    ("a query too long for LightGBM", _big_query, ValueError, "at most 10000 rows per query"),
    ("array chunks",
     lambda d: (lgbm(), da.from_array(d[0], chunks=(300, -1)), da.from_array(d[1], chunks=300),
                {"qid": da.from_array(d[2], chunks=200)}),
     ValueError, "row chunks"),
    ("LightGBM's own metric",
     lambda d: (lgbm(), features(d[4]), d[4]["label"],
                {"eval_set": [(features(d[4]), d[4]["label"])], "eval_metric": "ndcg"}),
     ValueError, "would be LightGBM's"),
    ("LightGBM's metric parameter",
     lambda d: (lgbm(metric="map"), features(d[4]), d[4]["label"],
                {"eval_set": [(features(d[4]), d[4]["label"])]}),
     ValueError, "each worker's share of the eval rows"),
    ("group sizes",
     lambda d: (lgbm(), features(d[4]), d[4]["label"], {"group": d[4]["qid"]}),
     ValueError, "takes no group="),
    ("XGBoost's query weights",
     lambda d: (xgb(), features(d[4]), d[4]["label"], {"sample_weight": d[4]["label"]}),
     ValueError, "does not implement query weights"),
    ("XGBoost's own query split",
     lambda d: (xgb(allow_group_split=False), features(d[4]), d[4]["label"], {}),
     ValueError, "leave allow_group_split=True"),
]


@pytest.mark.parametrize("case", BAD_FITS, ids=[case[0] for case in BAD_FITS])
def test_bad_input_raises_a_clear_error(client, data, case):
    _, build, exception, message = case
    model, X, y, kwargs = build(data)
    with pytest.raises(exception, match=message):
        model.fit(X, y, **kwargs)


@pytest.mark.parametrize("Ranker", [DaskLGBMRanker, DaskXGBRanker])
def test_other_divisions_are_refused_in_the_words_of_the_metrics(client, data, Ranker):
    # one check of the partitions serves the rankers and the metrics (utils/_dask.py): the
    # same misalignment gets the same diagnosis, with the divisions that differ
    ddf = data[4]
    moved = ddf.repartition(divisions=[0, 9, 150, 200, ddf.divisions[-1]])
    assert moved.npartitions == ddf.npartitions and moved.divisions != ddf.divisions
    head = r"have different divisions \(\(0, \d+, \.\.\., \d+\) and \(0, 9, \.\.\., \d+\)\)"
    with pytest.raises(ValueError, match=rf"X and qid {head}, so their partitions hold "
                                         r"different rows\. Pass columns of one Dask DataFrame"):
        Ranker(n_estimators=2).fit(features(ddf), ddf["label"], qid=moved["qid"])
    with pytest.raises(ValueError, match=rf"y_true and qid {head}"):
        evaluate(ddf["label"], ddf["f0"], qid=moved["qid"], metrics=["ndcg@10"])


@pytest.mark.parametrize("Ranker", [DaskLGBMRanker, DaskXGBRanker])
def test_no_shuffle_warnings_when_fitting(client, data, Ranker, caplog, monkeypatch):
    # distributed's scheduler (in this process with a LocalCluster) logs two WARNING lines per
    # shuffle, its start and its end, which users read as problems; the rankers shuffle as
    # the metrics do, without them. The filter is set once per process: start without it.
    logger = logging.getLogger("distributed.shuffle._scheduler_plugin")
    monkeypatch.setattr(logger, "filters", [])
    ddf = data[4]
    with caplog.at_level(logging.WARNING, logger="distributed"):
        Ranker(n_estimators=2).fit(features(ddf), ddf["label"])
    shuffle = [r.getMessage() for r in caplog.records if "Shuffle" in r.getMessage()]
    assert shuffle == []


def test_predict_refuses_data_in_memory(client, data):
    model = lgbm().fit(features(data[4]), data[4]["label"])
    with pytest.raises(TypeError, match="got a pandas DataFrame.*to_local"):
        model.predict(data[3].drop(columns="label"))


@pytest.mark.slow  # trains each booster on the cluster and in memory: the slowest Dask test
@pytest.mark.parametrize("kind", ["lightgbm", "xgboost"])
def test_test_ndcg_within_the_noise_of_the_in_memory_ranker(client, kind):
    # The noise: the seed-to-seed spread of the in-memory ranker's test nDCG@10, the seed
    # drawing its row and feature subsamples. The Dask ranker's mean over its seeds must be
    # within 4 standard errors of the difference of the two means (a Dask ranker that lost
    # the query grouping scores far below).
    X, y, qid = make_ranking(n_queries=300, n_features=10, noise=1.0, random_state=3)
    test = qid >= np.quantile(np.unique(qid), 0.75)
    frame = as_frame(X[~test], y[~test], qid[~test])
    ddf = dd.from_pandas(frame, npartitions=4)
    X_test = as_frame(X[test], y[test], qid[test]).drop(columns=["label", "qid"])
    X_test_dask = dd.from_pandas(X_test, npartitions=2)
    common = {"n_estimators": 30, "random_state": None, "subsample": 0.8,
              "colsample_bytree": 0.8}
    if kind == "lightgbm":
        common.update(subsample_freq=1, verbose=-1, min_child_samples=10)
        local, distributed_ = LGBMRanker, DaskLGBMRanker
    else:
        common.update(max_depth=4)
        local, distributed_ = XGBRanker, DaskXGBRanker

    def test_ndcg(model):
        if isinstance(model, distributed_):
            y_score = model.predict(X_test_dask).compute().to_numpy()
        else:
            y_score = model.predict(X_test)
        return ndcg_score(y[test], y_score, qid=qid[test], k=10)

    in_memory = [test_ndcg(local(**{**common, "random_state": seed, "n_jobs": 1}).fit(
        X[~test], y[~test], qid=qid[~test])) for seed in range(6)]
    on_dask = [test_ndcg(distributed_(**{**common, "random_state": seed}).fit(
        features(ddf), ddf["label"])) for seed in range(2)]
    spread = np.std(in_memory, ddof=1)
    assert spread > 0  # else the tolerance below would mean nothing
    tolerance = 4 * spread * math.sqrt(1 / len(in_memory) + 1 / len(on_dask))
    assert abs(np.mean(on_dask) - np.mean(in_memory)) <= tolerance
