"""sklearn_rank.lightgbm: the LightGBM adapter's own behaviour and the LightGBM eval metrics.

What all adapters share (estimator checks, parameters, routing, query-id handling) is in
test_adapters_common.py.
"""

import inspect

import lightgbm
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_rank.datasets import make_ranking
from sklearn_rank.lightgbm import LGBMRanker, eval_metric
from sklearn_rank.metrics import evaluate

PARAMS = {"n_estimators": 8, "n_jobs": 1, "verbose": -1, "min_child_samples": 2,
          "random_state": 0}
METRICS = ["err@10(max_grade=4)", "ndcg@10", "map", "mrr@10", "p@5", "rbp(p=0.8)", "recall@5"]


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=40, n_features=5, max_docs=30, random_state=0)
    X_val, y_val, qid_val = make_ranking(n_queries=12, n_features=5, max_docs=30,
                                         random_state=1)
    return X, y, qid, X_val, y_val, qid_val * 7 + 3  # unsorted, non-consecutive ids


def eval_sets(*pairs):
    """LightGBM's fit arguments for eval sets: eval_X/eval_y where eval_set is deprecated."""
    if "eval_X" in inspect.signature(lightgbm.LGBMRanker.fit).parameters:
        return {"eval_X": tuple(X for X, _ in pairs), "eval_y": tuple(y for _, y in pairs)}
    return {"eval_set": list(pairs)}


def grouped(qid):
    """Stable order grouping the rows by query, and the group sizes."""
    order = np.argsort(qid, kind="stable")
    _, sizes = np.unique(qid[order], return_counts=True)
    return order, sizes


# --------------------------------------------------------------------------------------
# eval_metric equals sklearn_rank.metrics
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRICS)
def test_eval_metric_equals_metrics_in_both_call_forms(name, data):
    _, _, _, X, y, qid = data
    rng = np.random.default_rng(0)
    y_score = rng.normal(size=len(y))
    codes = np.unique(qid, return_inverse=True)[1]
    weight = rng.uniform(0.5, 2, codes.max() + 1)[codes] * rng.uniform(0.9, 1.1, len(y))
    expected = evaluate(y, y_score, qid=qid, metrics=[name], sample_weight=weight)[name]
    order, sizes = grouped(qid)
    metric = eval_metric(name)
    # the scikit-learn API's form, on rows grouped by query as LightGBM holds them
    label, value, higher_is_better = metric(y[order], y_score[order], weight[order], sizes)
    assert (label, higher_is_better) == (name, True)
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # lightgbm.train's feval form, on a Dataset, which holds the weights as float32
    dataset = lightgbm.Dataset(X[order], y[order], weight=weight[order], group=sizes,
                               params={"verbose": -1}).construct()
    expected = evaluate(y, y_score, qid=qid, metrics=[name],
                        sample_weight=weight.astype(np.float32))[name]
    assert metric(y_score[order], dataset)[1] == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_eval_metric_one_group_is_one_query_and_repr():
    y, s = np.array([2, 0, 1, 0]), np.array([0.1, 0.4, 0.3, 0.2])
    assert eval_metric("err@3(max_grade=2)")(y, s, None, [4])[1] == evaluate(
        y, s, qid=np.zeros(4), metrics=["err@3(max_grade=2)"])["err@3(max_grade=2)"]
    metric = eval_metric("ndcg@5", gain="linear", convention="trec_eval")
    assert repr(metric) == ("sklearn_rank.lightgbm.eval_metric('ndcg@5', gain='linear', "
                            "convention='trec_eval')")
    assert metric(y, s, None, [4])[1] == evaluate(
        y, s, qid=np.zeros(4), metrics=["ndcg@5"], gain="linear",
        convention="trec_eval")["ndcg@5"]


@pytest.mark.parametrize("name, options, exception, match", [
    ("ndgc@10", {}, ValueError, r"Unknown metric name 'ndgc@10'"),
    ("err@10", {"gian": "linear"}, TypeError, r"got option\(s\) \['gian'\]"),
    ("err@10", {"max_grade": -1}, ValueError, r"max_grade"),
    ("ndcg@10", {"convention": "lgbm"}, ValueError, r"convention"),
    (10, {}, TypeError, r"must be a string"),
])
def test_eval_metric_errors(name, options, exception, match):
    with pytest.raises(exception, match=match):
        eval_metric(name, **options)


@pytest.mark.parametrize("eval_metric_arg", ["names", "callables"])
def test_recorded_eval_values_equal_metrics_on_unsorted_eval_queries(eval_metric_arg, data):
    X, y, qid, X_val, y_val, qid_val = data
    names = ["err@10(max_grade=4)", "mrr@10", "p@5"]
    metrics = names if eval_metric_arg == "names" else [eval_metric(n) for n in names]
    model = LGBMRanker(**PARAMS).fit(X, y, qid=qid, eval_set=[(X_val, y_val)],
                                     eval_qid=[qid_val], eval_metric=metrics)
    recorded = model.evals_result_["valid_0"]
    # LightGBM's own metric is kept
    assert {"err@10(max_grade=4)", "mrr@10", "p@5", "ndcg@1"} <= set(recorded)
    for iteration in (1, 4, PARAMS["n_estimators"]):
        y_score = model.predict(X_val, num_iteration=iteration)
        expected = evaluate(y_val, y_score, qid=qid_val, metrics=names)
        for name in names:
            assert recorded[name][iteration - 1] == pytest.approx(expected[name], rel=1e-12,
                                                                  abs=1e-12)


def test_plain_lightgbm_ranker_takes_the_eval_metric(data):
    X, y, qid, X_val, y_val, qid_val = data
    order, sizes = grouped(qid)
    order_val, sizes_val = grouped(qid_val)
    model = lightgbm.LGBMRanker(**PARAMS).fit(
        X[order], y[order], group=sizes, **eval_sets((X_val[order_val], y_val[order_val])),
        eval_group=[sizes_val], eval_metric=eval_metric("err@10(max_grade=4)"))
    recorded = model.evals_result_["valid_0"]["err@10(max_grade=4)"][-1]
    expected = evaluate(y_val, model.predict(X_val), qid=qid_val, metrics=["err@10(max_grade=4)"])
    assert recorded == pytest.approx(expected["err@10(max_grade=4)"], rel=1e-12)


# --------------------------------------------------------------------------------------
# Early stopping
# --------------------------------------------------------------------------------------


def test_early_stopping_on_err_end_to_end(data):
    X, y, qid, *_ = data
    model = LGBMRanker(**{**PARAMS, "n_estimators": 300}, early_stopping_rounds=5,
                       scoring="err@10(max_grade=4)", validation_fraction=0.25).fit(X, y, qid=qid)
    curve = model.evals_result_["valid_0"]
    # only the scoring metric is monitored: LightGBM's own ndcg@1..5 are switched off
    assert list(curve) == ["err@10(max_grade=4)"]
    curve = np.array(curve["err@10(max_grade=4)"])
    assert model.best_iteration_ == np.argmax(curve) + 1 < 300
    assert len(curve) == model.best_iteration_ + 5
    # the monitored value is the metric of the held-out queries, as score() computes it
    held = np.isin(qid, model.validation_queries_)
    assert model.score(X[held], y[held], qid=qid[held]) == pytest.approx(curve.max(), rel=1e-12)
    # predict uses the best iteration
    assert_array_equal(model.predict(X), model.predict(X, num_iteration=model.best_iteration_))


def test_early_stopping_equals_plain_lightgbm_on_the_same_split(data):
    X, y, qid, *_ = data
    model = LGBMRanker(**{**PARAMS, "n_estimators": 100}, early_stopping_rounds=3,
                       scoring="ndcg@5").fit(X, y, qid=qid)
    held = np.isin(qid, model.validation_queries_)
    order, sizes = grouped(qid[~held])
    order_val, sizes_val = grouped(qid[held])
    plain = lightgbm.LGBMRanker(**{**PARAMS, "n_estimators": 100}, metric="None",
                                early_stopping_round=3)
    plain.fit(X[~held][order], y[~held][order], group=sizes,
              **eval_sets((X[held][order_val], y[held][order_val])), eval_group=[sizes_val],
              eval_metric=eval_metric("ndcg@5"))
    assert model.best_iteration_ == plain.best_iteration_
    assert_allclose(model.predict(X), plain.predict(X), rtol=1e-12)


@pytest.mark.parametrize("how", ["early_stopping_round", "n_iter_no_change", "callback"])
def test_every_way_of_asking_for_early_stopping_holds_out_queries(how, data):
    X, y, qid, *_ = data
    if how == "callback":
        model = LGBMRanker(**PARAMS).fit(X, y, qid=qid,
                                         callbacks=[lightgbm.early_stopping(2, verbose=False)])
    else:
        model = LGBMRanker(**PARAMS, **{how: 2}).fit(X, y, qid=qid)
    assert len(model.validation_queries_) == 4
    assert list(model.evals_result_["valid_0"]) == ["ndcg@10"]


def test_lightgbm_metric_names_and_params_keep_lightgbm_meaning(data):
    X, y, qid, *_ = data
    # a metric parameter: LightGBM's metric is monitored, not scoring
    model = LGBMRanker(**PARAMS, metric="map", early_stopping_rounds=2)
    assert list(model.fit(X, y, qid=qid, eval_at=[3]).evals_result_["valid_0"]) == ["map@3"]
    # LightGBM's names in eval_metric are LightGBM's; other names are sklearn-rank's
    model = LGBMRanker(**PARAMS, early_stopping_rounds=2).fit(
        X, y, qid=qid, eval_metric=["map", "err@10(max_grade=4)"], eval_at=[3])
    recorded = model.evals_result_["valid_0"]
    assert set(recorded) == {"map@3", "ndcg@3", "err@10(max_grade=4)"}


# --------------------------------------------------------------------------------------
# Parameters moved with the rows; eval_X / eval_y
# --------------------------------------------------------------------------------------


def test_init_score_moves_with_the_rows(data):
    X, y, qid, X_val, y_val, qid_val = data
    init = np.random.default_rng(0).normal(size=len(y))
    init_val = np.random.default_rng(1).normal(size=len(y_val))
    model = LGBMRanker(**PARAMS).fit(X, y, qid=qid, init_score=init,
                                     eval_set=[(X_val, y_val)], eval_qid=[qid_val],
                                     eval_init_score=[init_val], eval_metric="err@5(max_grade=4)")
    order, sizes = grouped(qid)
    order_val, sizes_val = grouped(qid_val)
    plain = lightgbm.LGBMRanker(**PARAMS).fit(
        X[order], y[order], group=sizes, init_score=init[order],
        **eval_sets((X_val[order_val], y_val[order_val])), eval_group=[sizes_val],
        eval_init_score=[init_val[order_val]], eval_metric=eval_metric("err@5(max_grade=4)"))
    assert_allclose(model.predict(X), plain.predict(X), rtol=1e-12)
    assert_allclose(model.evals_result_["valid_0"]["err@5(max_grade=4)"],
                    plain.evals_result_["valid_0"]["err@5(max_grade=4)"], rtol=1e-12)


def test_held_out_queries_keep_their_init_score(data):
    X, y, qid, *_ = data
    init = np.random.default_rng(0).normal(size=len(y))
    params = {**PARAMS, "n_estimators": 50, "early_stopping_rounds": 2}
    model = LGBMRanker(**params).fit(X, y, qid=qid, init_score=init)
    held = np.isin(qid, model.validation_queries_)
    explicit = LGBMRanker(**params).fit(
        X[~held], y[~held], qid=qid[~held], init_score=init[~held],
        eval_set=[(X[held], y[held])], eval_qid=[qid[held]], eval_init_score=[init[held]])
    assert model.evals_result_ == explicit.evals_result_
    assert_allclose(model.predict(X), explicit.predict(X), rtol=1e-12)


def test_eval_x_eval_y_are_accepted(data):
    X, y, qid, X_val, y_val, qid_val = data
    a = LGBMRanker(**PARAMS).fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
    b = LGBMRanker(**PARAMS).fit(X, y, qid=qid, eval_X=X_val, eval_y=y_val, eval_qid=[qid_val])
    assert a.evals_result_ == b.evals_result_
    with pytest.raises(ValueError, match="Give eval_set or eval_X and eval_y, not both"):
        LGBMRanker(**PARAMS).fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_X=X_val,
                                 eval_y=y_val, eval_qid=[qid_val])


def test_own_parameters_do_not_reach_lightgbm(data, capfd):
    X, y, qid, *_ = data
    LGBMRanker(n_estimators=2, n_jobs=1, qid_column="q", scoring="map",
               validation_fraction=0.5).fit(X, y, qid=qid)
    assert "Unknown parameter" not in capfd.readouterr().out


# --------------------------------------------------------------------------------------
# Labels and queries LightGBM would reject, as (labels/params, exception, message)
# --------------------------------------------------------------------------------------

LABEL_CASES = [
    ("non-integer grade", lambda y: y + 0.5, {}, r"integer relevance grades from 0 to 30; "
     r"got 0\.5 at row 0\. Map the labels to grades"),
    ("grade above 30", lambda y: np.where(np.arange(len(y)) == 3, 31, y), {},
     r"from 0 to 30; got 31\.0 at row 3.*label_gain"),
    ("negative grade", lambda y: np.where(np.arange(len(y)) == 2, -1, y), {},
     r"got -1\.0 at row 2"),
    ("grade beyond a short label_gain", lambda y: y, {"label_gain": [0, 1, 3]},
     r"from 0 to 2; got"),
    ("rank_xendcg checks too", lambda y: y + 0.25, {"objective": "rank_xendcg"},
     r"LightGBM rank_xendcg objective needs integer"),
    ("strings", lambda y: y.astype(str), {}, r"needs numeric relevance labels"),
]


@pytest.mark.parametrize("labels, params, match", [c[1:] for c in LABEL_CASES],
                         ids=[c[0] for c in LABEL_CASES])
def test_labels_lightgbm_rejects_are_caught_first(labels, params, match, data):
    X, y, qid, *_ = data
    with pytest.raises(ValueError, match=match):
        LGBMRanker(**PARAMS, **params).fit(X, labels(y), qid=qid)


def test_labels_other_objectives_and_label_gain_accept(data):
    X, y, qid, *_ = data
    LGBMRanker(**PARAMS, objective="regression").fit(X, y + 0.5, qid=qid)
    LGBMRanker(**PARAMS, label_gain=list(range(41))).fit(X, y * 10, qid=qid)


def test_query_over_lightgbm_limit_is_explained():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(10001, 2)), rng.integers(0, 2, 10001)
    with pytest.raises(ValueError, match=r"at most 10000 rows per query; got a query of 10001 "
                                         r"rows\. qid='single_query' makes all rows one query: "
                                         r"pass one query id per row instead"):
        LGBMRanker(**PARAMS).fit(X, y, qid="single_query")
