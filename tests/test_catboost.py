"""sklearn_rank.catboost: the CatBoost adapter's own behaviour.

CatBoost departs most from scikit-learn (get_params lists only the parameters set and copies
them, set_params refuses fitted models, pickling keeps only CatBoost's parameters, no
metadata routing, group ids must be contiguous): each difference the adapter mends is
checked here. What all adapters share is in test_adapters_common.py.
"""

import copy
import pickle

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from sklearn_rank.datasets import make_ranking

catboost = pytest.importorskip("catboost")
pd = pytest.importorskip("pandas")

from sklearn_rank.catboost import CatBoostRanker  # noqa: E402

PARAMS = {"iterations": 8, "thread_count": 1, "verbose": 0, "depth": 3,
          "allow_writing_files": False}


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=30, n_features=5, max_docs=30, random_state=0)


def grouped(qid):
    order = np.argsort(qid, kind="stable")
    return order, np.unique(qid[order], return_inverse=True)[1]


def test_get_params_lists_every_parameter_as_given():
    cat_features = []
    model = CatBoostRanker(iterations=5, cat_features=cat_features, thread_count=-1)
    params = model.get_params()
    # CatBoost's own lists only the parameters set, copied, and drops thread_count=-1
    assert set(catboost.CatBoostRanker(iterations=5).get_params()) == {"iterations",
                                                                       "loss_function"}
    assert len(params) == 115 and params["depth"] is None
    assert params["cat_features"] is cat_features and params["thread_count"] == -1
    assert params["loss_function"] == "YetiRank" and params["scoring"] == "ndcg@10"
    clone(model)  # scikit-learn's identity check passes with a list-valued parameter
    assert repr(model) == "CatBoostRanker(cat_features=[], iterations=5, thread_count=-1)"


def test_set_params():
    model = CatBoostRanker(**PARAMS)
    with pytest.raises(ValueError, match=r"Invalid parameter\(s\) \['dept'\]"):
        model.set_params(dept=3)
    with pytest.raises(TypeError, match=r"unexpected parameter\(s\) \['dept'\]"):
        CatBoostRanker(dept=3)
    model.set_params(depth=None, l2_leaf_reg=2.0, scoring="map")
    assert model.get_params()["depth"] is None
    assert model.get_param("l2_leaf_reg") == 2.0 and model.get_param("depth") is None
    assert model.scoring == "map"


def test_set_params_on_a_fitted_model_applies_to_the_next_fit(data):
    X, y, qid = data
    model = CatBoostRanker(**PARAMS).fit(X, y, qid=qid)
    model.set_params(depth=2)  # CatBoost's own set_params raises here
    assert_allclose(model.fit(X, y, qid=qid).predict(X),
                    CatBoostRanker(**{**PARAMS, "depth": 2}).fit(X, y, qid=qid).predict(X))


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_pickle_and_deepcopy_keep_the_adapter(how, data):
    X, y, qid = data
    model = CatBoostRanker(**PARAMS, scoring="err@5(max_grade=4)", qid_column="query",
                           early_stopping_rounds=2)
    with sklearn.config_context(enable_metadata_routing=True):
        model.set_fit_request(sample_weight=True)
    model.fit(X, y, qid=qid)
    copied = pickle.loads(pickle.dumps(model)) if how == "pickle" else copy.deepcopy(model)
    assert copied.get_params() == model.get_params()
    assert copied.scoring == "err@5(max_grade=4)" and copied.qid_column == "query"
    assert_array_equal(copied.validation_queries_, model.validation_queries_)
    assert copied.get_metadata_routing().fit.requests["sample_weight"] is True
    assert_array_equal(copied.predict(X), model.predict(X))
    assert copied.n_features_in_ == 5  # CatBoost's own is 0 after unpickling


def test_metadata_routing_which_catboost_lacks():
    assert not hasattr(catboost.CatBoostRanker(), "get_metadata_routing")
    routing = CatBoostRanker().get_metadata_routing()
    assert routing.fit.requests["qid"] is True and routing.score.requests["qid"] is True


def test_row_weights_become_group_weights(data):
    X, y, qid = data
    rng = np.random.default_rng(0)
    row_weight = rng.uniform(0.5, 2, len(y))
    model = CatBoostRanker(**PARAMS).fit(X, y, qid=qid, sample_weight=row_weight)
    order, codes = grouped(qid)
    mean = np.bincount(codes, weights=row_weight[order]) / np.bincount(codes)
    plain = catboost.CatBoostRanker(**PARAMS).fit(X[order], y[order], group_id=codes,
                                                  group_weight=mean[codes])
    assert_allclose(model.predict(X), plain.predict(X), rtol=1e-12)


def test_categorical_features_reach_the_eval_set(data):
    X, y, qid = data
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)])
    df["colour"] = np.where(X[:, 0] > 0, "red", "blue")
    df["qid"] = qid
    model = CatBoostRanker(**PARAMS, cat_features=["colour"], early_stopping_rounds=2)
    model.fit(df, y)  # the held-out eval Pool carries cat_features too
    assert len(model.validation_queries_) == 3
    assert model.predict(df).shape == y.shape
    assert "colour" in model.feature_names_ and "qid" not in model.feature_names_


def test_categorical_features_in_an_object_array_given_to_fit(data):
    X, y, qid = data
    X_object = X.astype(object)
    X_object[:, 0] = np.where(X[:, 0] > 0, "red", "blue")
    model = CatBoostRanker(**PARAMS).fit(X_object, y, qid=qid, cat_features=[0])
    assert list(model.get_cat_feature_indices()) == [0]
    assert model.predict(X_object).shape == y.shape
    with pytest.raises(ValueError, match="could not convert string to float"):
        CatBoostRanker(**PARAMS).fit(X_object, y, qid=qid)  # no categorical features named


def test_grid_search_in_parallel_workers(data):
    from sklearn.model_selection import GridSearchCV

    from sklearn_rank import get_scorer
    from sklearn_rank.model_selection import QueryKFold

    X, y, qid = data
    grid = {"depth": [2, 3]}
    with sklearn.config_context(enable_metadata_routing=True):
        parallel = GridSearchCV(CatBoostRanker(**PARAMS), grid, cv=QueryKFold(3), n_jobs=2,
                                scoring=get_scorer("err@10(max_grade=4)")).fit(X, y, qid=qid)
        serial = GridSearchCV(CatBoostRanker(**PARAMS), grid, cv=QueryKFold(3),
                              scoring=get_scorer("err@10(max_grade=4)")).fit(X, y, qid=qid)
    assert_allclose(parallel.cv_results_["mean_test_score"],
                    serial.cv_results_["mean_test_score"], rtol=1e-12)


def test_early_stopping_uses_the_best_model(data):
    X, y, qid = data
    model = CatBoostRanker(**{**PARAMS, "iterations": 300, "learning_rate": 0.3},
                           early_stopping_rounds=3, eval_metric="NDCG:top=10;type=Exp")
    model.fit(X, y, qid=qid)
    assert model.tree_count_ == model.best_iteration_ + 1 < 300
    # CatBoost's own hold-out (eval_fraction) is left to CatBoost
    own = CatBoostRanker(**PARAMS, early_stopping_rounds=3, eval_fraction=0.2)
    assert own.fit(X, y, qid=qid).validation_queries_ is None


def test_pool_passes_through(data):
    X, y, qid = data
    order, codes = grouped(qid)
    pool = catboost.Pool(X[order], y[order], group_id=codes)
    model = CatBoostRanker(**PARAMS).fit(pool)
    plain = catboost.CatBoostRanker(**PARAMS).fit(pool)
    assert_array_equal(model.predict(X), plain.predict(X))
    with pytest.raises(ValueError, match="A catboost.Pool X carries its labels and group ids"):
        CatBoostRanker(**PARAMS).fit(pool, qid=qid)


@pytest.mark.parametrize("kwargs, match", [
    ({"group_id": [0]}, r"takes query ids, not group_id="),
    ({"group_weight": [1.0]}, r"takes query ids, not group_weight=.*sample_weight"),
    ({"pairs": [[0, 1]]}, r"pairs indexes rows, which the adapter had to reorder"),
])
def test_errors(kwargs, match, data):
    X, y, qid = data
    with pytest.raises(ValueError, match=match):
        CatBoostRanker(**PARAMS).fit(X, y, qid=qid, **kwargs)


def test_pairs_with_grouped_rows_are_accepted(data):
    X, y, qid = data
    order, codes = grouped(qid)
    CatBoostRanker(**{**PARAMS, "loss_function": "PairLogit"}).fit(
        X[order], y[order], qid=qid[order], pairs=[[0, 1]])
