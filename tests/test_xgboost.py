"""sklearn_rank.xgboost: the XGBoost adapter's own behaviour and the XGBoost eval metrics.

What all adapters share (estimator checks, parameters, routing, query-id handling) is in
test_adapters_common.py.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate

xgboost = pytest.importorskip("xgboost")
pd = pytest.importorskip("pandas")

from sklearn_rank.xgboost import XGBRanker, eval_metric  # noqa: E402

# XGBoost logs custom metric values with "%f": its evals_result() (and the values its early
# stopping compares) are rounded to 6 decimals, so recorded values are compared to 1e-6 and
# the callables' own values to 1e-12.
LOGGED = 5e-7
PARAMS = {"n_estimators": 8, "n_jobs": 1, "max_depth": 3, "random_state": 0}
METRICS = ["err@10(max_grade=4)", "ndcg@10", "map", "mrr@10", "p@5", "rbp(p=0.8)", "recall@5"]


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=40, n_features=5, max_docs=30, random_state=0)
    X_val, y_val, qid_val = make_ranking(n_queries=12, n_features=5, max_docs=30,
                                         random_state=1)
    return X, y, qid, X_val, y_val, qid_val * 7 + 3  # unsorted, non-consecutive ids


def grouped(qid):
    order = np.argsort(qid, kind="stable")
    _, sizes = np.unique(qid[order], return_counts=True)
    return order, sizes


# --------------------------------------------------------------------------------------
# eval_metric equals sklearn_rank.metrics
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRICS)
def test_eval_metric_equals_metrics_on_a_dmatrix(name, data):
    _, _, _, X, y, qid = data
    rng = np.random.default_rng(0)
    y_score = rng.normal(size=len(y)).astype(np.float32)  # XGBoost predicts float32
    codes = np.unique(qid, return_inverse=True)[1]
    query_weight = rng.uniform(0.5, 2, codes.max() + 1).astype(np.float32)
    order, sizes = grouped(qid)
    dmatrix = xgboost.DMatrix(X[order], y[order], qid=qid[order], weight=query_weight)
    label, value = eval_metric(name)(y_score[order], dmatrix)
    expected = evaluate(y, y_score, qid=qid, metrics=[name],
                        sample_weight=query_weight[codes])[name]
    assert label == name
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # without weights, and without groups (one query)
    plain = xgboost.DMatrix(X[order], y[order], group=sizes)
    assert eval_metric(name)(y_score[order], plain)[1] == pytest.approx(
        evaluate(y, y_score, qid=qid, metrics=[name])[name], rel=1e-12, abs=1e-12)
    # one query when asked for: one group of all rows
    single = xgboost.DMatrix(X, y, group=[len(y)])
    assert eval_metric(name)(y_score, single)[1] == pytest.approx(
        evaluate(y, y_score, qid=np.zeros(len(y)), metrics=[name])[name], rel=1e-12, abs=1e-12)


def test_eval_metric_with_xgboost_train_and_maximize(data):
    X, y, qid, X_val, y_val, qid_val = data
    order, _ = grouped(qid)
    order_val, _ = grouped(qid_val)
    train = xgboost.DMatrix(X[order], y[order], qid=qid[order])
    valid = xgboost.DMatrix(X_val[order_val], y_val[order_val], qid=qid_val[order_val])
    err10 = eval_metric("err@10(max_grade=4)")
    assert err10.maximize is True
    log = {}
    booster = xgboost.train({"objective": "rank:ndcg", "max_depth": 3, "nthread": 1},
                            train, num_boost_round=100, evals=[(valid, "valid")],
                            custom_metric=err10, maximize=err10.maximize,
                            early_stopping_rounds=5, evals_result=log, verbose_eval=False)
    curve = np.array(log["valid"]["err@10(max_grade=4)"])
    assert booster.best_iteration == np.argmax(curve)
    for iteration in (0, booster.best_iteration):
        y_score = booster.predict(valid, iteration_range=(0, iteration + 1))
        expected = evaluate(y_val[order_val], y_score, qid=qid_val[order_val],
                            metrics=["err@10(max_grade=4)"])["err@10(max_grade=4)"]
        assert err10(y_score, valid)[1] == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert curve[iteration] == pytest.approx(expected, abs=LOGGED)


def test_plain_xgboost_ranker_takes_the_eval_metric_per_query(data):
    X, y, qid, X_val, y_val, qid_val = data
    order, _ = grouped(qid)
    order_val, _ = grouped(qid_val)
    model = xgboost.XGBRanker(**PARAMS, eval_metric=eval_metric("mrr@10"))
    model.fit(X[order], y[order], qid=qid[order],
              eval_set=[(X_val[order_val], y_val[order_val])], eval_qid=[qid_val[order_val]])
    recorded = model.evals_result()["validation_0"]["mrr@10"][-1]
    per_query = evaluate(y_val, model.predict(X_val), qid=qid_val, metrics=["mrr@10"],
                         return_per_query=True)["mrr@10"]
    # XGBoost's scikit-learn wrapper weighs each query's value by the query's size
    sizes = np.unique(qid_val, return_counts=True)[1]
    assert recorded == pytest.approx(np.average(per_query, weights=sizes), abs=LOGGED)


def test_eval_metric_repr_and_errors():
    assert repr(eval_metric("err@10", max_grade=4)) == (
        "sklearn_rank.xgboost.eval_metric('err@10', max_grade=4)")
    with pytest.raises(ValueError, match="Unknown metric name 'er@10'"):
        eval_metric("er@10")
    with pytest.raises(TypeError, match=r"got option\(s\) \['k'\] that map does not take"
                                        r"|that .* does not take"):
        eval_metric("kendall_tau", k=3)


# --------------------------------------------------------------------------------------
# The adapter: sklearn-rank names as eval_metric, early stopping that maximises
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("as_name", [True, False])
def test_recorded_eval_values_equal_metrics_on_unsorted_eval_queries(as_name, data):
    X, y, qid, X_val, y_val, qid_val = data
    names = ["err@10(max_grade=4)", "mrr@10", "p@5"]
    metric = names if as_name else [eval_metric(n) for n in names]
    model = XGBRanker(**PARAMS, eval_metric=metric).fit(
        X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
    recorded = model.evals_result()["validation_0"]
    assert list(recorded) == names  # XGBoost's default metric is switched off
    for iteration in (0, 3, PARAMS["n_estimators"] - 1):
        y_score = model.predict(X_val, iteration_range=(0, iteration + 1))
        expected = evaluate(y_val, y_score, qid=qid_val, metrics=names)
        for name in names:
            assert recorded[name][iteration] == pytest.approx(expected[name], abs=LOGGED)
    assert model.eval_metric == metric  # restored after fit


@pytest.mark.parametrize("eval_metric_param",
                         [None, "err@10(max_grade=4)", ["ndcg@5", "err@10(max_grade=4)"]])
def test_early_stopping_on_err_end_to_end(eval_metric_param, data):
    X, y, qid, *_ = data
    model = XGBRanker(**{**PARAMS, "n_estimators": 300}, early_stopping_rounds=5,
                      eval_metric=eval_metric_param, scoring="err@10(max_grade=4)",
                      validation_fraction=0.25).fit(X, y, qid=qid)
    log = model.evals_result()["validation_0"]
    curve = np.array(log["err@10(max_grade=4)"])
    # maximised: the best iteration is the first maximum, and training went 5 rounds past it
    assert model.best_iteration == np.argmax(curve) < 299
    assert len(curve) == model.best_iteration + 6
    held = np.isin(qid, model.validation_queries_)
    assert model.score(X[held], y[held], qid=qid[held]) == pytest.approx(curve.max(), abs=LOGGED)
    assert model.early_stopping_rounds == 5 and model.callbacks is None  # restored
    if eval_metric_param is None:
        assert list(log) == ["err@10(max_grade=4)"]  # scoring, alone


def test_xgboost_metric_names_keep_xgboost_meaning(data):
    X, y, qid, X_val, y_val, qid_val = data
    model = XGBRanker(**PARAMS, eval_metric=["ndcg@10", "err@10(max_grade=4)"]).fit(
        X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
    recorded = model.evals_result()["validation_0"]
    assert list(recorded) == ["ndcg@10", "err@10(max_grade=4)"]
    # XGBoost's ndcg@10 is XGBoost's: sklearn-rank reproduces it with convention="xgboost"
    order, _ = grouped(qid_val)
    y_score = model.predict(X_val[order])
    expected = evaluate(y_val[order], y_score, qid=qid_val[order], metrics=["ndcg@10"],
                        convention="xgboost")
    assert recorded["ndcg@10"][-1] == pytest.approx(expected["ndcg@10"], rel=1e-5)


def test_user_early_stopping_callback_is_respected(data):
    X, y, qid, *_ = data
    callback = xgboost.callback.EarlyStopping(rounds=3, maximize=True)
    model = XGBRanker(**{**PARAMS, "n_estimators": 200}, eval_metric="err@10(max_grade=4)",
                      callbacks=[callback]).fit(X, y, qid=qid)
    assert len(model.validation_queries_) == 4
    curve = np.array(model.evals_result()["validation_0"]["err@10(max_grade=4)"])
    assert model.best_iteration == np.argmax(curve)


# --------------------------------------------------------------------------------------
# Weights, XGBoost's own qid column, objectives and labels
# --------------------------------------------------------------------------------------


def test_row_weights_become_query_weights(data):
    X, y, qid, *_ = data
    codes = np.unique(qid, return_inverse=True)[1]
    rng = np.random.default_rng(0)
    query_weight = rng.uniform(0.5, 2, codes.max() + 1)
    jitter = rng.uniform(0.8, 1.2, len(y))
    row_weight = query_weight[codes] * jitter
    model = XGBRanker(**PARAMS).fit(X, y, qid=qid, sample_weight=row_weight)
    order, sizes = grouped(qid)
    mean_weight = np.bincount(codes, weights=row_weight) / np.bincount(codes)
    plain = xgboost.XGBRanker(**PARAMS).fit(X[order], y[order], group=sizes,
                                            sample_weight=mean_weight)
    assert_allclose(model.predict(X), plain.predict(X), rtol=1e-6)


def test_xgboost_qid_column_convention_is_kept(data):
    X, y, qid, *_ = data
    order, _ = grouped(qid)
    df = pd.DataFrame(X[order], columns=[f"f{i}" for i in range(X.shape[1])])
    df.insert(0, "qid", qid[order])
    ours = XGBRanker(**PARAMS).fit(df, y[order])
    plain = xgboost.XGBRanker(**PARAMS).fit(df, y[order])  # XGBoost reads the column itself
    assert_array_equal(ours.predict(df), plain.predict(df))
    with pytest.raises(ValueError, match=r"X has a 'qid' column, which XGBoost would read"):
        XGBRanker(**PARAMS, qid_column="query").fit(df, y[order], qid=qid[order])


@pytest.mark.parametrize("params, labels, match", [
    ({}, lambda y: y + 0.5, r"XGBoost rank:ndcg objective needs integer relevance grades "
                            r"from 0 to 31; got 0\.5 at row 0"),
    ({}, lambda y: y * 10, r"from 0 to 31; got 40\.0 at row \d+.*ndcg_exp_gain=False"),
    ({"ndcg_exp_gain": False}, lambda y: y - 1.0, r"integer relevance grades from 0; got -1\.0"),
    ({"objective": "rank:map"}, lambda y: y, r"rank:map objective needs binary relevance "
                                            r"labels, 0 or 1; got [234]\.0"),
    ({"objective": "reg:squarederror"}, lambda y: y, r"XGBRanker needs a ranking objective"),
])
def test_labels_and_objectives_xgboost_rejects(params, labels, match, data):
    X, y, qid, *_ = data
    with pytest.raises(ValueError, match=match):
        XGBRanker(**PARAMS, **params).fit(X, labels(y), qid=qid)


def test_labels_other_objectives_accept(data):
    X, y, qid, *_ = data
    XGBRanker(**PARAMS, objective="rank:pairwise").fit(X, y + 0.5, qid=qid)
    XGBRanker(**PARAMS, ndcg_exp_gain=False).fit(X, y * 10, qid=qid)
    XGBRanker(**PARAMS, objective="rank:map").fit(X, (y > 1).astype(int), qid=qid)


def test_one_custom_metric_only(data):
    X, y, qid, *_ = data
    with pytest.raises(ValueError, match="XGBoost takes one custom eval metric"):
        XGBRanker(**PARAMS, eval_metric=["err@10(max_grade=4)", lambda y_true, y_score: 0.0],
                  early_stopping_rounds=2).fit(X, y, qid=qid)


def test_group_argument_is_rejected(data):
    X, y, qid, *_ = data
    with pytest.raises(ValueError, match=r"takes query ids, not eval_group="):
        XGBRanker(**PARAMS).fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[qid],
                                eval_group=[[len(y)]])
