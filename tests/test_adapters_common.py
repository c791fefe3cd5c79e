"""What every booster adapter promises, checked on each: LightGBM, XGBoost and CatBoost.

scikit-learn's estimator checks, the parameter contract (get_params lists every booster
parameter; clone, set_params and pickling keep them), query ids in any order and of any type
giving the plain booster's model on sorted data, both ways query ids travel (routed metadata
and a DataFrame column) through GridSearchCV and cross_validate, leakage-free early stopping,
and bad input as a table of (input, exception, message).
"""

import contextlib
import inspect
import pickle
from pathlib import Path

import numpy as np
import pytest
import sklearn
from _rankers import NAMES, adapter_class
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_rank import get_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate, ndcg_score
from sklearn_rank.model_selection import QueryKFold

pd = pytest.importorskip("pandas")


# Small, fast, single-threaded models (parameters the plain boosters share with the adapters).
PARAMS = {
    "lightgbm": {"n_estimators": 5, "n_jobs": 1, "verbose": -1, "min_child_samples": 2},
    "xgboost": {"n_estimators": 5, "n_jobs": 1, "max_depth": 3},
    "catboost": {"iterations": 5, "thread_count": 1, "verbose": 0, "depth": 3,
                 "allow_writing_files": False},
}
# A parameter grid of each booster.
GRID = {
    "lightgbm": {"num_leaves": [3, 7]},
    "xgboost": {"max_depth": [2, 3]},
    "catboost": {"depth": [2, 3]},
}


def make(name, **params):
    return adapter_class(name)(**{**PARAMS[name], **params})


def plain_predict(name, X_sorted, y_sorted, qid_sorted, X_new):
    """The plain booster's predictions, fitted on rows already grouped by query."""
    # group sizes in order of appearance (rows are grouped, queries in any order)
    starts = np.flatnonzero(np.r_[True, qid_sorted[1:] != qid_sorted[:-1]])
    sizes = np.diff(np.append(starts, len(qid_sorted)))
    if name == "lightgbm":
        import lightgbm
        model = lightgbm.LGBMRanker(**PARAMS[name]).fit(X_sorted, y_sorted, group=sizes)
    elif name == "xgboost":
        import xgboost
        model = xgboost.XGBRanker(**PARAMS[name]).fit(X_sorted, y_sorted, group=sizes)
    else:
        import catboost
        model = catboost.CatBoostRanker(**PARAMS[name]).fit(
            X_sorted, y_sorted, group_id=np.repeat(np.arange(len(sizes)), sizes))
    return model.predict(X_new)


def frame(X, qid, column="qid"):
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    df.insert(1, column, qid)
    return df


@pytest.fixture(scope="module")
def data():
    # rows shuffled: the queries are not contiguous
    return make_ranking(n_queries=30, n_features=5, max_docs=30, random_state=0)


# --------------------------------------------------------------------------------------
# scikit-learn's estimator checks
# --------------------------------------------------------------------------------------

WEIGHTS_ARE_NOT_REPEATS = (
    "For a learning-to-rank booster a row's weight is not a repeat count: a repeated "
    "document enters every pair of its query twice and changes the ranking gradients, "
    "LightGBM's count-based parameters (min_child_samples) and binning see rows, and XGBoost "
    "and CatBoost weigh whole queries (each gets the mean weight of its rows)."
)
COMMON_EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": WEIGHTS_ARE_NOT_REPEATS,
    "check_sample_weight_equivalence_on_sparse_data": WEIGHTS_ARE_NOT_REPEATS,
}
#: Checks each adapter cannot pass, with the reason; every other check must pass (and these
#: must fail: xfail is strict in this test suite).
EXPECTED_FAILED_CHECKS = {
    "SingleQueryLGBMRanker": COMMON_EXPECTED_FAILURES,
    "SingleQueryXGBRanker": COMMON_EXPECTED_FAILURES,
    "SingleQueryCatBoostRanker": {
        **COMMON_EXPECTED_FAILURES,
        "check_do_not_raise_errors_in_init_or_set_params": (
            "CatBoost's own __init__ compares thread_count with -1 and fails on an array "
            "value (https://github.com/catboost/catboost/issues/2997); the adapter cannot "
            "skip CatBoost's __init__."
        ),
    },
}


def _single_query_class(adapter):
    """A test-only subclass of ``adapter`` whose ``fit`` and ``score`` default to one query.

    scikit-learn's estimator checks call ``fit(X, y)`` and ``score(X, y)`` without query ids,
    which the adapters refuse by design (test_query_ids_required.py checks that they do).
    Defaulting ``qid`` to the documented opt-in ``"single_query"`` here, and only here, lets
    every other check run on the adapter's own code: the subclass changes nothing else.
    """

    def fit(self, X, y=None, *, qid="single_query", sample_weight=None, **fit_params):
        return adapter.fit(self, X, y, qid=qid, sample_weight=sample_weight, **fit_params)

    def score(self, X, y, qid="single_query", sample_weight=None):
        return adapter.score(self, X, y, qid=qid, sample_weight=sample_weight)

    name = f"SingleQuery{adapter.__name__}"
    # at module level, so that the checks can pickle instances
    cls = type(name, (adapter,), {"fit": fit, "score": score, "__module__": __name__,
                                  "__qualname__": name, "__doc__": adapter.__doc__})
    globals()[name] = cls
    return cls


def _check_instances():
    # No booster parameter through **kwargs here: LightGBM and XGBoost store those as
    # attributes, which check_no_attributes_set_in_init rejects.
    instances = []
    for name, params in [
        ("lightgbm", {"n_estimators": 5, "n_jobs": 1, "min_child_samples": 1}),
        ("xgboost", {"n_estimators": 5, "n_jobs": 1}),
        ("catboost", {"iterations": 5, "thread_count": 1, "verbose": 0,
                      "allow_writing_files": False}),
    ]:
        with contextlib.suppress(pytest.skip.Exception):  # booster not installed
            instances.append(_single_query_class(adapter_class(name))(**params))
    return instances


_HAS_EXPECTED_FAILED = "expected_failed_checks" in inspect.signature(
    parametrize_with_checks).parameters


if _HAS_EXPECTED_FAILED:
    @parametrize_with_checks(
        _check_instances(),
        expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS[type(est).__name__],
    )
    def test_sklearn_estimator_checks(estimator, check):
        check(estimator)
else:  # scikit-learn < 1.6
    def test_sklearn_estimator_checks():
        pytest.skip("expected_failed_checks needs scikit-learn >= 1.6")


# --------------------------------------------------------------------------------------
# Parameters: get_params, clone, set_params, pickle
# --------------------------------------------------------------------------------------


def booster_parameter_names(name):
    """Names of the plain booster's parameters, as scikit-learn's get_params sees them."""
    pytest.importorskip(name)
    if name == "lightgbm":
        import lightgbm
        return set(lightgbm.LGBMRanker().get_params())
    if name == "xgboost":
        import xgboost
        return set(xgboost.XGBRanker().get_params())
    import catboost
    return set(inspect.signature(catboost.CatBoostRanker.__init__).parameters) - {"self"}


@pytest.mark.parametrize("name", NAMES)
def test_get_params_lists_every_booster_parameter(name):
    params = adapter_class(name)().get_params()
    missing = booster_parameter_names(name) - set(params)
    assert not missing
    assert {"qid_column", "scoring", "validation_fraction"} <= set(params)
    assert params["qid_column"] == "qid" and params["scoring"] == "ndcg@10"
    # the signature shows them all too (help(), tab completion, scikit-learn's repr)
    signature = inspect.signature(adapter_class(name))
    assert booster_parameter_names(name) <= set(signature.parameters)


# A booster parameter outside the named ones (through **kwargs), or a list-valued one.
EXTRA = {
    "lightgbm": {"min_data_in_bin": 5, "label_gain": [0, 1, 3, 7, 15]},
    "xgboost": {"lambdarank_num_pair_per_sample": 2, "interaction_constraints": [[0, 1]]},
    "catboost": {"cat_features": [], "random_strength": 0.5},
}


@pytest.mark.parametrize("name", NAMES)
def test_clone_and_set_params_round_trip(name):
    model = make(name, scoring="err@5(max_grade=4)", qid_column="query", validation_fraction=0.25,
                 **EXTRA[name])
    params = model.get_params()
    copy = clone(model)
    copied = copy.get_params()
    assert copied.keys() == params.keys()
    for key, value in params.items():
        assert copied[key] is value or copied[key] == value, key
    assert copied["scoring"] == "err@5(max_grade=4)" and copied["qid_column"] == "query"
    for key, value in EXTRA[name].items():
        assert copied[key] == value

    other = make(name).set_params(**params)
    assert other.get_params().keys() == params.keys()
    assert all(other.get_params()[key] is value for key, value in params.items())
    assert "scoring='err@5(max_grade=4)'" in repr(other)


@pytest.mark.parametrize("name", NAMES)
def test_set_params_then_fit_uses_new_values(name, data):
    X, y, qid = data
    key, (small, large) = next(iter(GRID[name].items()))
    model = make(name, **{key: small}).fit(X, y, qid=qid)
    refit = model.set_params(**{key: large}, scoring="map").fit(X, y, qid=qid)
    expected = make(name, **{key: large}).fit(X, y, qid=qid)
    assert_allclose(refit.predict(X), expected.predict(X))
    assert refit.scoring == "map"


@pytest.mark.parametrize("name", NAMES)
def test_pickle_keeps_model_params_and_routing(name, data):
    X, y, qid = data
    model = make(name, scoring="err@10(max_grade=4)", early_stopping_rounds=2, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        model.set_score_request(sample_weight=True)
    model.fit(X, y, qid=qid)
    restored = pickle.loads(pickle.dumps(model))
    assert_array_equal(restored.predict(X), model.predict(X))
    assert restored.get_params().keys() == model.get_params().keys()
    assert restored.scoring == "err@10(max_grade=4)"
    assert_array_equal(restored.validation_queries_, model.validation_queries_)
    routing = restored.get_metadata_routing()
    assert routing.score.requests == {"qid": True, "sample_weight": True}
    assert restored.score(X, y, qid=qid) == model.score(X, y, qid=qid)


# --------------------------------------------------------------------------------------
# Query ids in any order, of any type, as an argument or a column
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["unsorted ints", "strings", "contiguous"])
def test_predictions_equal_plain_booster_on_sorted_rows(name, kind, data):
    X, y, qid = data
    if kind == "strings":
        qid = np.array([f"q{q:03d}" for q in qid])
    elif kind == "contiguous":
        order = np.argsort(qid, kind="stable")[::-1]
        X, y, qid = X[order], y[order], qid[order]
    model = make(name).fit(X, y, qid=qid)
    # the reference: rows sorted stably by query, as the adapter sorts them when it must
    if kind == "contiguous":
        order = np.arange(len(qid))
    else:
        order = np.argsort(np.unique(qid, return_inverse=True)[1], kind="stable")
    expected = plain_predict(name, X[order], y[order], qid[order], X)
    # predictions come in the caller's row order
    assert_allclose(model.predict(X), expected, rtol=1e-12, atol=1e-12)
    assert model.score(X, y, qid=qid) == ndcg_score(y, expected, qid=qid, k=10)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_query_id_column_is_read_and_dropped(name, library, data):
    X, y, qid = data
    df = frame(X, qid, column="query")
    if library == "polars":
        pl = pytest.importorskip("polars")
        df = pl.from_pandas(df)
    model = make(name, qid_column="query").fit(df, y)
    features = frame(X, qid).drop(columns="qid")
    reference = make(name).fit(features, y, qid=qid)
    assert_allclose(model.predict(df), reference.predict(features), rtol=1e-12)
    assert model.n_features_in_ == X.shape[1]
    assert model.score(df, y) == reference.score(features, y, qid=qid)
    # the argument wins over the column (an id never trained on: all rows as one query
    # under a trained id would be the rest of a trained query, refused since issue 18)
    one_query = np.full_like(qid, qid.max() + 1)
    assert model.score(df, y, qid=one_query) == pytest.approx(
        ndcg_score(y, model.predict(df), qid=one_query, k=10))


@pytest.mark.parametrize("name", NAMES)
def test_eval_sets_carry_their_own_query_ids(name, data):
    X, y, qid = data
    X_val, y_val, qid_val = make_ranking(n_queries=8, n_features=5, random_state=1)
    model = make(name).fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
    column = make(name).fit(frame(X, qid), y, eval_set=[(frame(X_val, qid_val), y_val)])
    assert_allclose(model.predict(X), column.predict(frame(X, qid)), rtol=1e-12)
    assert model.validation_queries_ is None


@pytest.mark.parametrize("name", NAMES)
def test_score_computes_scoring_with_weights(name, data):
    X, y, qid = data
    model = make(name, scoring="err@5(max_grade=4)").fit(X, y, qid=qid)
    weight = np.random.default_rng(0).uniform(0.5, 2, len(y))
    expected = evaluate(y, model.predict(X), qid=qid, metrics=["err@5(max_grade=4)"],
                        sample_weight=weight)
    assert model.score(X, y, qid=qid, sample_weight=weight) == expected["err@5(max_grade=4)"]


# --------------------------------------------------------------------------------------
# Both ways query ids travel, through scikit-learn's own tools
# --------------------------------------------------------------------------------------


def manual_cv_results(estimator, grid, X, y, qid, cv, metric):
    """What a search should report: a loop over folds and candidates with the metric."""
    (key, values), = grid.items()
    means = []
    for value in values:
        scores = []
        for train, test in cv.split(X, y, groups=qid):
            model = clone(estimator).set_params(**{key: value})
            model.fit(X[train], y[train], qid=qid[train])
            scores.append(evaluate(y[test], model.predict(X[test]), qid=qid[test],
                                   metrics=[metric])[metric])
        means.append(np.mean(scores))
    return np.array(means)


@pytest.mark.parametrize("name", NAMES)
def test_grid_search_both_routing_modes(name, data):
    X, y, qid = data
    estimator, grid, cv = make(name), GRID[name], GroupKFold(n_splits=3)
    scoring = {"ndcg": get_scorer("ndcg@10"), "err": get_scorer("err@10(max_grade=4)")}
    with sklearn.config_context(enable_metadata_routing=True):
        routed = GridSearchCV(estimator, grid, cv=cv, scoring=scoring, refit="ndcg")
        routed.fit(X, y, qid=qid, groups=qid)
        # scoring=None: the adapter's own score, which requests qid too
        own_score = GridSearchCV(estimator, grid, cv=QueryKFold(3)).fit(X, y, qid=qid)
    column = GridSearchCV(estimator, grid, cv=cv, scoring=scoring, refit="ndcg")
    column.fit(frame(X, qid), y, groups=qid)
    expected = manual_cv_results(estimator, grid, X, y, qid, cv, "ndcg@10")
    assert_allclose(routed.cv_results_["mean_test_ndcg"], expected, rtol=1e-12, atol=1e-12)
    for key in ("mean_test_ndcg", "mean_test_err"):
        assert_allclose(column.cv_results_[key], routed.cv_results_[key], rtol=1e-12)
    assert column.best_params_ == routed.best_params_
    with sklearn.config_context(enable_metadata_routing=False):
        column_own = GridSearchCV(estimator, grid, cv=QueryKFold(3)).fit(frame(X, qid), y)
    assert_allclose(column_own.cv_results_["mean_test_score"],
                    own_score.cv_results_["mean_test_score"], rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_cross_validate_both_routing_modes(name, data):
    X, y, qid = data
    estimator = make(name, early_stopping_rounds=2, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_validate(estimator, X, y, params={"qid": qid}, cv=QueryKFold(3),
                                scoring=get_scorer("map"))
    column = cross_validate(estimator, frame(X, qid), y, cv=QueryKFold(3),
                            scoring=get_scorer("map"))
    assert_allclose(routed["test_score"], column["test_score"], rtol=1e-12)
    assert np.isfinite(routed["test_score"]).all()


@pytest.mark.parametrize("name", NAMES)
def test_pipeline_routes_qid_to_the_adapter(name, data):
    X, y, qid = data
    pipeline = make_pipeline(StandardScaler(), make(name))
    with sklearn.config_context(enable_metadata_routing=True):
        pipeline.fit(X, y, qid=qid)
        score = pipeline.score(X, y, qid=qid)
        grid = {f"{pipeline.steps[-1][0]}__scoring": ["map", "err@5(max_grade=4)"]}
        search = GridSearchCV(pipeline, grid, cv=QueryKFold(3)).fit(X, y, qid=qid)
    model = make(name).fit(StandardScaler().fit_transform(X), y, qid=qid)
    assert score == model.score(StandardScaler().fit_transform(X), y, qid=qid)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_routing_requests_qid_by_default():
    for name in NAMES:
        try:
            model = adapter_class(name)()
        except pytest.skip.Exception:
            continue
        routing = model.get_metadata_routing()
        assert routing.fit.requests["qid"] is True
        assert routing.score.requests["qid"] is True
        assert routing.fit.requests["sample_weight"] is None


# --------------------------------------------------------------------------------------
# Early stopping without leakage
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_early_stopping_holds_out_whole_training_queries(name, data):
    X, y, qid = data
    model = make(name, early_stopping_rounds=3, validation_fraction=0.2, random_state=1)
    model.fit(X, y, qid=qid)
    held = model.validation_queries_
    assert len(held) == 6 and len(set(held)) == 6 and set(held) <= set(qid)
    again = make(name, early_stopping_rounds=3, validation_fraction=0.2, random_state=1)
    assert_array_equal(again.fit(X, y, qid=qid).validation_queries_, held)
    # no held-out query is trained on: the model equals the plain adapter fitted on the
    # other queries with the held-out ones as its eval set
    train, val = ~np.isin(qid, held), np.isin(qid, held)
    explicit = make(name, early_stopping_rounds=3, random_state=1)
    explicit.fit(X[train], y[train], qid=qid[train], eval_set=[(X[val], y[val])],
                 eval_qid=[qid[val]])
    assert_allclose(model.predict(X), explicit.predict(X), rtol=1e-12, atol=1e-12)
    # without early stopping nothing is held out
    assert make(name, random_state=1).fit(X, y, qid=qid).validation_queries_ is None


# --------------------------------------------------------------------------------------
# Bad input: (id, call, exception, message)
# --------------------------------------------------------------------------------------


def _fit(name, X, y, qid, **kwargs):
    params = {k: kwargs.pop(k) for k in list(kwargs) if k.startswith("init:")}
    params = {k[5:]: v for k, v in params.items()}
    return make(name, **params).fit(X, y, qid=qid, **kwargs)


def _score(name, X, y, qid, *, score_qid=None, X_score=None):
    model = make(name).fit(X, y, qid=qid)
    return model.score(X if X_score is None else X_score, y, qid=score_qid)


GROUP_PARAM = {"lightgbm": "group", "xgboost": "group", "catboost": "group_id"}

ERROR_CASES = [
    ("score without qid", lambda n, X, y, q: _score(n, X, y, q), ValueError,
     r"score needs the query id of every row, and got none.*metadata routing.*'qid' column"),
    ("score on a DataFrame without the column",
     lambda n, X, y, q: _score(n, X, y, q, X_score=frame(X, q, column="query")), ValueError,
     r"X is a DataFrame with no 'qid' column \(its columns: 'f0', 'query'"),
    ("group sizes instead of qid",
     lambda n, X, y, q: _fit(n, X, y, np.unique(q, return_counts=True)[1]), ValueError,
     r"These look like group sizes.*np\.repeat"),
    ("booster grouping argument",
     lambda n, X, y, q: _fit(n, X, y, None,
                             **{GROUP_PARAM[n]: np.unique(q, return_counts=True)[1]}),
     ValueError, r"takes query ids, not (group|group_id)=.*Pass qid="),
    ("qid of the wrong length", lambda n, X, y, q: _fit(n, X, y, q[:-1]), ValueError,
     r"must have one query id per row: got \d+ ids for \d+ rows"),
    ("y of the wrong length", lambda n, X, y, q: _fit(n, X, y[:-2], q), ValueError,
     r"X has \d+ rows but y has \d+ labels"),
    ("sample_weight of the wrong length",
     lambda n, X, y, q: _fit(n, X, y, q, sample_weight=np.ones(3)), ValueError,
     r"sample_weight .* must hold one weight per row"),
    ("eval_qid missing while training has qid",
     lambda n, X, y, q: _fit(n, X, y, q, eval_set=[(X, y)]), ValueError,
     r"fit \(eval_set\[0\]\) needs the query id of every row"),
    ("one eval_qid for two eval sets",
     lambda n, X, y, q: _fit(n, X, y, q, eval_set=[(X, y), (X, y)], eval_qid=[q]), ValueError,
     r"eval_qid must be a list with one entry per eval set \(2\)"),
    ("early stopping on one query",
     lambda n, X, y, q: _fit(n, X, y, "single_query", **{"init:early_stopping_rounds": 2}),
     ValueError, r"early stopping holds out validation_fraction=0\.1 of the training queries, "
     r"but the training data is one query \(qid='single_query'\)"),
    ("unknown scoring", lambda n, X, y, q: _fit(n, X, y, q, **{"init:scoring": "ndgc@10"}),
     ValueError, r"Unknown metric name 'ndgc@10'\. Did you mean 'ndcg'"),
    ("validation_fraction out of range",
     lambda n, X, y, q: _fit(n, X, y, q, **{"init:validation_fraction": 1.0}), ValueError,
     r"validation_fraction.*must be a float in the range \(0\.0, 1\.0\)"),
    ("qid_column of the wrong type",
     lambda n, X, y, q: _fit(n, X, y, q, **{"init:qid_column": 3}), ValueError,
     r"qid_column.*must be an instance of 'str' or None"),
    ("predict before fit", lambda n, X, y, q: make(n).predict(X),
     sklearn.exceptions.NotFittedError, r"not fitted"),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("call, exception, match",
                         [case[1:] for case in ERROR_CASES], ids=[case[0] for case in ERROR_CASES])
def test_errors(name, call, exception, match, data):
    X, y, qid = data
    adapter_class(name)
    with pytest.raises(exception, match=match):
        call(name, X, y, qid)


def test_optional_boosters_are_imported_lazily_with_a_helpful_error():
    import subprocess
    import sys

    code = """
import sys
import sklearn_rank, sklearn_rank.metrics
print(any(m in sys.modules for m in ("xgboost", "catboost")))
sys.modules["xgboost"] = sys.modules["catboost"] = None  # as if not installed
for name in ("xgboost", "catboost"):
    try:
        __import__(f"sklearn_rank.{name}")
    except ImportError as exc:
        print(exc)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parents[1]).stdout.splitlines()
    assert out[0] == "False"
    assert out[1:] == [
        f"sklearn_rank.{name} needs the optional dependency '{name}', which is not installed. "
        f'Install it with: pip install "sklearn-rank[{name}]"' for name in ("xgboost", "catboost")
    ]

