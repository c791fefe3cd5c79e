"""No silent one-query fit: the adapters refuse data without query ids, and say how to fix it.

A ranker fitted without query ids would train every row as one query; the commonest way to
get there is a transformer of a pipeline that turned a DataFrame with a query-id column into an
array, or a search given ``groups=qid`` with routing off. Here: the refusal (and its message)
in every adapter, eval set, hold-out, ``score``, eval metric and CatBoost Pool; the explicit
opt-in ``qid="single_query"``; scikit-learn's searches and CV helpers failing loudly on an
adapter whose query ids were forgotten; and :class:`~sklearn_rank.preprocessing.KeepQueryId`,
the pattern that makes a preprocessing pipeline without routing equal the routed one.
"""

import numpy as np
import pytest
import sklearn
from _rankers import adapter_class
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    learning_curve,
    validation_curve,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    OneHotEncoder,
    QuantileTransformer,
    StandardScaler,
    TargetEncoder,
)
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_rank import get_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate
from sklearn_rank.model_selection import QueryKFold
from sklearn_rank.preprocessing import KeepQueryId

pd = pytest.importorskip("pandas")

NAMES = ["lightgbm", "xgboost", "catboost"]
PARAMS = {
    "lightgbm": {"n_estimators": 5, "n_jobs": 1, "verbose": -1, "min_child_samples": 2},
    "xgboost": {"n_estimators": 5, "n_jobs": 1, "max_depth": 3},
    "catboost": {"n_estimators": 5, "thread_count": 1, "verbose": 0, "depth": 3,
                 "allow_writing_files": False},
}
GRID = {"lightgbm": {"num_leaves": [3, 7]}, "xgboost": {"max_depth": [2, 3]},
        "catboost": {"depth": [2, 3]}}

# What the refusal must say: the two ways, the pipeline culprit and its cure, the opt-in.
MISSING = (r"fit needs the query id of every row, and got none: X is a numpy array.*"
           r"metadata routing is off.*sklearn\.set_config\(enable_metadata_routing=True\).*"
           r"DataFrame with a 'qid' column.*groups=qid reaches the splitter only.*Pipeline.*"
           r"KeepQueryId\(StandardScaler\(\)\).*qid='single_query'")


def make(name, **params):
    return adapter_class(name)(**{**PARAMS[name], **params})


def frame(X, qid, column="qid"):
    return pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).assign(
        **{column: qid})


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=15, n_features=5, max_docs=20, random_state=0)


# --------------------------------------------------------------------------------------
# fit, eval sets, hold-out and score refuse data without query ids
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["array", "sparse"])
def test_fit_without_query_ids_raises_naming_both_ways(name, kind, data):
    X, y, _ = data
    X = sparse.csr_matrix(X) if kind == "sparse" else X
    match = MISSING if kind == "array" else MISSING.replace("a numpy array", "a sparse matrix")
    with pytest.raises(ValueError, match=match):
        make(name).fit(X, y)


@pytest.mark.parametrize("name", NAMES)
def test_fit_on_a_dataframe_without_the_column_names_its_columns(name, data):
    X, y, qid = data
    with pytest.raises(ValueError, match=r"X is a DataFrame with no 'qid' column \(its columns: "
                                         r"'f0', 'f1', 'f2', 'f3', 'f4', \.\.\.\).*KeepQueryId"):
        make(name).fit(frame(X, qid, column="query"), y)


@pytest.mark.parametrize("name", NAMES)
def test_search_with_routing_on_but_no_qid_says_routing_is_on(name, data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True), \
            pytest.raises(ValueError, match=r"metadata routing is on"):
        make(name).fit(X, y)


@pytest.mark.parametrize("name", NAMES)
def test_single_query_is_an_explicit_opt_in(name, data):
    X, y, qid = data
    single = make(name).fit(X, y, qid="single_query")
    zeros = make(name).fit(X, y, qid=np.zeros(len(y), dtype=int))
    assert_allclose(single.predict(X), zeros.predict(X), rtol=1e-12, atol=1e-12)
    # the query-id column of a DataFrame is dropped unread, never used as a feature
    column = make(name).fit(frame(X, qid), y, qid="single_query")
    assert column.n_features_in_ == X.shape[1]
    assert_allclose(column.predict(frame(X, qid)), single.predict(X), rtol=1e-12, atol=1e-12)
    # score: the same opt-in; one query over all rows
    expected = evaluate(y, single.predict(X), qid=np.zeros(len(y)), metrics=["ndcg@10"])
    assert single.score(X, y, qid="single_query") == expected["ndcg@10"]


@pytest.mark.parametrize("name", NAMES)
def test_other_strings_are_not_query_ids(name, data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"qid for \w+\.fit must hold one query id per row, or "
                                         r"be the string 'single_query'.*got the string "
                                         r"'single-query'"):
        make(name).fit(X, y, qid="single-query")


@pytest.mark.parametrize("name", NAMES)
def test_eval_sets_need_their_own_query_ids(name, data):
    X, y, qid = data
    eval_missing = (r"fit \(eval_set\[0\]\) needs the query id of every row, and got none: X "
                    r"is a numpy array.*eval_qid=\[qid_val, \.\.\.\].*'single_query'")
    with pytest.raises(ValueError, match=eval_missing):
        make(name).fit(X, y, qid=qid, eval_set=[(X, y)])
    # training on one query does not make the eval sets one query silently
    with pytest.raises(ValueError, match=eval_missing):
        make(name).fit(X, y, qid="single_query", eval_set=[(X, y)])
    single = make(name).fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=["single_query"])
    zeros = make(name).fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[np.zeros(len(y))])
    assert_allclose(single.predict(X), zeros.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_early_stopping_hold_out_of_a_single_query_is_explained(name, data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"holds out validation_fraction=0\.1 of the training "
                                         r"queries, but the training data is one query "
                                         r"\(qid='single_query'\)"):
        make(name, early_stopping_rounds=2).fit(X, y, qid="single_query")


@pytest.mark.parametrize("name", NAMES)
def test_score_without_query_ids_raises_with_the_pipeline_hint(name, data):
    X, y, qid = data
    model = make(name).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"score needs the query id of every row.*KeepQueryId.*"
                                         r"To score all rows as one query on purpose, pass "
                                         r"qid='single_query'"):
        model.score(X, y)


def test_eval_set_that_is_not_a_list_is_explained(data):
    X, y, qid = data
    with pytest.raises(ValueError, match=r"eval_set must be a list of \(X, y\) pairs.*got dict"):
        make("lightgbm").fit(X, y, qid=qid, eval_set={"val": (X, y)})


# --------------------------------------------------------------------------------------
# A query-id column that a transformer changed is not read as query ids
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_scaled_query_id_column_is_refused(name, data):
    X, y, qid = data
    df = frame(X, qid)
    scaled = make_pipeline(StandardScaler().set_output(transform="pandas"), make(name))
    message = (r"the 'qid' column of X holds non-integer numbers \(e\.g\. -?\d\.\d+ at row 0\)"
               r".*KeepQueryId")
    with pytest.raises(ValueError, match=message):
        scaled.fit(df, y)
    # a QuantileTransformer maps many ids to one value: merged queries, refused the same way
    quantiles = make_pipeline(QuantileTransformer(n_quantiles=5).set_output(transform="pandas"),
                              make(name))
    with pytest.raises(ValueError, match=message.replace("row 0", r"row \d+")):
        quantiles.fit(df, y)
    # score reads the column too
    model = make(name).fit(df, y)
    with pytest.raises(ValueError, match=r"score: the 'qid' column of X holds non-integer"):
        model.score(df.assign(qid=qid + 0.5), y)
    # whole numbers in a float column are query ids
    model = make(name).fit(df.assign(qid=qid.astype(float)), y)
    assert_allclose(model.predict(df), make(name).fit(df, y).predict(df), rtol=1e-12,
                    atol=1e-12)


# --------------------------------------------------------------------------------------
# Eval metrics and CatBoost Pools: no groups is no silent one query
# --------------------------------------------------------------------------------------


def test_lightgbm_eval_metric_on_a_dataset_without_groups_raises(data):
    import lightgbm

    from sklearn_rank.lightgbm import eval_metric

    X, y, _ = data
    metric = eval_metric("ndcg@10")
    scores = np.linspace(0, 1, len(y))
    with pytest.raises(ValueError, match=r"needs the query groups of the data it evaluates, and "
                                         r"the data has none: give the lightgbm\.Dataset group="):
        metric(scores, lightgbm.Dataset(X, y).construct())
    with pytest.raises(ValueError, match=r"query groups"):
        metric(y, scores, None, None)
    one = lightgbm.Dataset(X, y, group=[len(y)]).construct()
    assert metric(scores, one)[1] == evaluate(y, scores, qid=np.zeros(len(y)),
                                              metrics=["ndcg@10"])["ndcg@10"]


def test_xgboost_eval_metric_on_a_dmatrix_without_groups_raises(data):
    xgboost = pytest.importorskip("xgboost")
    from sklearn_rank.xgboost import eval_metric

    X, y, _ = data
    scores = np.linspace(0, 1, len(y)).astype(np.float32)
    with pytest.raises(ValueError, match=r"the data has none: give the DMatrix qid="):
        eval_metric("ndcg@10")(scores, xgboost.DMatrix(X, y))


def test_catboost_pools_without_group_ids_are_refused(data):
    catboost = pytest.importorskip("catboost")
    X, y, qid = data
    order = np.argsort(qid, kind="stable")
    grouped = catboost.Pool(X[order], y[order], group_id=qid[order])
    with pytest.raises(ValueError, match=r"the catboost\.Pool X has no group ids, so all its "
                                         r"rows would form one query.*group_id=qid"):
        make("catboost").fit(catboost.Pool(X, y))
    with pytest.raises(ValueError, match=r"the catboost\.Pool eval_set\[0\] has no group ids"):
        make("catboost").fit(grouped, eval_set=[catboost.Pool(X, y)])
    with pytest.raises(ValueError, match=r"A catboost\.Pool eval set goes with a catboost\.Pool "
                                         r"X only.*eval_qid=\[qid_val\]"):
        make("catboost").fit(X, y, qid=qid, eval_set=grouped)
    make("catboost").fit(grouped, eval_set=[grouped])


# --------------------------------------------------------------------------------------
# scikit-learn's searches and CV helpers, routing forgotten: loud, with the hint
# --------------------------------------------------------------------------------------


def _sklearn_rank_halving(est, grid, cv):
    """sklearn-rank's HalvingGridSearchCV, which halves over whole queries."""
    from sklearn_rank.model_selection import HalvingGridSearchCV

    return HalvingGridSearchCV(est, grid, cv=cv, scoring=get_scorer("ndcg@10"), random_state=0)


SEARCHES = {
    "GridSearchCV": lambda est, grid, cv: GridSearchCV(est, grid, cv=cv,
                                                       scoring=get_scorer("ndcg@10")),
    "RandomizedSearchCV": lambda est, grid, cv: RandomizedSearchCV(
        est, grid, n_iter=2, cv=cv, random_state=0),
    "HalvingGridSearchCV": lambda est, grid, cv: HalvingGridSearchCV(
        est, grid, cv=cv, resource="n_estimators", min_resources=2, max_resources=8,
        scoring=get_scorer("ndcg@10")),
    "sklearn_rank.HalvingGridSearchCV": _sklearn_rank_halving,
}


def _all_fits_failed_with_the_hint(excinfo):
    message = str(excinfo.value)
    assert "fits failed" in message
    assert "KeepQueryId(StandardScaler())" in message
    assert "groups=qid reaches the splitter only" in message
    assert "qid='single_query'" in message


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("search", list(SEARCHES))
def test_search_with_routing_forgotten_fails_loudly(name, search, data):
    X, y, qid = data
    if search == "sklearn_rank.HalvingGridSearchCV":
        # its first round trains on 10 queries or more: 15 queries leave no room to halve
        X, y, qid = make_ranking(n_queries=45, n_features=5, max_docs=20, random_state=0)
    estimator = make(name)
    with pytest.raises(ValueError, match=r"All the \d+ fits failed") as excinfo:
        SEARCHES[search](estimator, GRID[name], GroupKFold(3)).fit(X, y, groups=qid)
    _all_fits_failed_with_the_hint(excinfo)
    # the same search with the query ids routed runs
    with sklearn.config_context(enable_metadata_routing=True):
        search_ = SEARCHES[search](estimator, GRID[name], QueryKFold(3)).fit(X, y, qid=qid)
    assert np.isfinite(search_.best_score_)


@pytest.mark.parametrize("name", NAMES)
def test_cv_helpers_with_routing_forgotten_fail_loudly(name, data):
    X, y, qid = data
    estimator, cv = make(name), GroupKFold(3)
    for run in (
        lambda: cross_val_score(estimator, X, y, groups=qid, cv=cv),
        lambda: cross_validate(estimator, X, y, groups=qid, cv=cv,
                               scoring=get_scorer("ndcg@10")),
        lambda: learning_curve(estimator, X, y, groups=qid, cv=cv, train_sizes=[0.5, 1.0]),
    ):
        with pytest.raises(ValueError, match=r"All the \d+ fits failed") as excinfo:
            run()
        _all_fits_failed_with_the_hint(excinfo)


@pytest.mark.parametrize("name", NAMES)
def test_validation_curve_needs_error_score_raise(name, data):
    # scikit-learn's validation_curve, unlike its other helpers, neither raises nor warns when
    # every fit fails: it returns NaN (docs/qid_routing.rst says so, and to pass
    # error_score="raise"). If this starts raising, update the docs.
    X, y, qid = data
    (param, values), = GRID[name].items()
    _, test_scores = validation_curve(make(name), X, y, param_name=param, param_range=values,
                                      groups=qid, cv=GroupKFold(3))
    assert np.isnan(test_scores).all()
    with pytest.raises(ValueError, match=MISSING):
        validation_curve(make(name), X, y, param_name=param, param_range=values, groups=qid,
                         cv=GroupKFold(3), error_score="raise")


# --------------------------------------------------------------------------------------
# A transformer before the ranker: refused, and KeepQueryId makes it equal the routed one
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_naive_preprocessing_pipeline_is_refused(name, data):
    X, y, qid = data
    with pytest.raises(ValueError, match=MISSING):
        make_pipeline(StandardScaler(), make(name)).fit(frame(X, qid), y)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_keep_query_id_pipeline_equals_the_routed_pipeline(name, library, data):
    X, y, qid = data
    df = frame(X, qid)
    if library == "polars":
        pl = pytest.importorskip("polars")
        df = pl.from_pandas(df)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = make_pipeline(StandardScaler(), make(name)).fit(X, y, qid=qid)
        routed_score = routed.score(X, y, qid=qid)
        routed_search = GridSearchCV(make_pipeline(StandardScaler(), make(name)),
                                     {"standardscaler__with_mean": [True, False]},
                                     cv=QueryKFold(3), scoring=get_scorer("ndcg@10"))
        routed_search.fit(X, y, qid=qid)
    kept = make_pipeline(KeepQueryId(StandardScaler()), make(name)).fit(df, y)
    assert_array_equal(kept.predict(df), routed.predict(X))
    assert kept.score(df, y) == routed_score
    search = GridSearchCV(make_pipeline(KeepQueryId(StandardScaler()), make(name)),
                          {"keepqueryid__transformer__with_mean": [True, False]},
                          cv=QueryKFold(3), scoring=get_scorer("ndcg@10")).fit(df, y)
    assert_array_equal(search.cv_results_["mean_test_score"],
                       routed_search.cv_results_["mean_test_score"])
    # the same pipeline works with routing on, on an array
    with sklearn.config_context(enable_metadata_routing=True):
        both = make_pipeline(KeepQueryId(StandardScaler()), make(name)).fit(X, y, qid=qid)
    assert_array_equal(both.predict(X), routed.predict(X))


def test_keep_query_id_on_lightgbm_lambdarank_example(shared_data):
    from sklearn_rank.datasets import load_svmlight_ranking
    from sklearn_rank.lightgbm import LGBMRanker
    from sklearn_rank.metrics import ndcg_score

    folder = shared_data / "lambdarank-example"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    X, y, qid = load_svmlight_ranking(folder / "rank.train")
    X_test, y_test, qid_test = load_svmlight_ranking(folder / "rank.test")
    X, X_test = X.toarray(), X_test.toarray()
    df, df_test = frame(X, qid), frame(X_test, qid_test)
    ranker = LGBMRanker(n_jobs=1, verbose=-1, random_state=0, deterministic=True,
                        force_row_wise=True)
    with pytest.raises(ValueError, match=MISSING):
        make_pipeline(StandardScaler(), clone(ranker)).fit(df, y)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = make_pipeline(StandardScaler(), clone(ranker)).fit(X, y, qid=qid)
    kept = make_pipeline(KeepQueryId(StandardScaler()), clone(ranker)).fit(df, y)
    assert_array_equal(kept.predict(df_test), routed.predict(X_test))
    score = ndcg_score(y_test, kept.predict(df_test), qid=qid_test, k=10)
    assert score == ndcg_score(y_test, routed.predict(X_test), qid=qid_test, k=10)
    # the scaler changes no split of the trees: the plain ranker scores the same
    plain = clone(ranker).fit(df, y)
    assert score == pytest.approx(ndcg_score(y_test, plain.predict(df_test), qid=qid_test,
                                             k=10))


# --------------------------------------------------------------------------------------
# KeepQueryId itself
# --------------------------------------------------------------------------------------


def test_keep_query_id_output_index_dtype_and_names():
    X = pd.DataFrame({"f0": [0.0, 1.0, 2.0, 3.0], "qid": ["q7", "q7", "q9", "q9"],
                      "f1": [1.0, 1.0, 3.0, 3.0]}, index=[10, 11, 3, 4])
    keep = KeepQueryId(StandardScaler())
    out = keep.fit_transform(X)
    expected = StandardScaler().fit_transform(X[["f0", "f1"]])
    assert list(out.columns) == ["f0", "f1", "qid"]
    assert_array_equal(out.index, X.index)
    assert out["qid"].dtype == X["qid"].dtype
    assert_array_equal(out["qid"], X["qid"])
    assert_allclose(out[["f0", "f1"]].to_numpy(), expected)
    assert_array_equal(keep.get_feature_names_out(), ["f0", "f1", "qid"])
    assert keep.n_features_in_ == 3
    assert_array_equal(keep.feature_names_in_, ["f0", "qid", "f1"])
    # a later transform without the column (a predict) gives the features only
    features = keep.transform(X.drop(columns="qid"))
    assert list(features.columns) == ["f0", "f1"]
    assert_allclose(features.to_numpy(), expected)


def test_keep_query_id_on_a_frame_with_integer_column_names():
    # pd.DataFrame(X).assign(qid=qid): integer feature names beside "qid", which scikit-learn
    # refuses as feature names; the transformer sees the integer-named features alone
    X = pd.DataFrame(np.arange(12.0).reshape(4, 3)).assign(qid=[1, 1, 2, 2])
    keep = KeepQueryId(StandardScaler())
    out = keep.fit_transform(X)
    assert list(out.columns) == ["x0", "x1", "x2", "qid"]
    assert_allclose(out.drop(columns="qid").to_numpy(),
                    StandardScaler().fit_transform(X[[0, 1, 2]].to_numpy()))
    assert not hasattr(keep, "feature_names_in_") and keep.n_features_in_ == 4
    assert_array_equal(keep.get_feature_names_out(), out.columns)


def test_keep_query_id_polars_and_set_output():
    pl = pytest.importorskip("polars")
    X = pd.DataFrame({"f0": [0.0, 1.0, 2.0, 3.0], "qid": [7, 7, 9, 9]})
    out = KeepQueryId(StandardScaler()).fit_transform(pl.from_pandas(X))
    assert isinstance(out, pl.DataFrame) and out.columns == ["f0", "qid"]
    assert out["qid"].to_list() == [7, 7, 9, 9]
    # set_output names the library, and reaches the transformer
    keep = KeepQueryId(StandardScaler()).set_output(transform="polars")
    assert isinstance(keep.fit_transform(X), pl.DataFrame)
    assert keep.transformer.get_params() == StandardScaler().get_params()
    assert isinstance(keep.transformer_.transform(X[["f0"]]), pl.DataFrame)
    pandas_out = KeepQueryId(StandardScaler()).set_output(transform="pandas").fit_transform(
        pl.from_pandas(X))
    assert isinstance(pandas_out, pd.DataFrame) and list(pandas_out.columns) == ["f0", "qid"]
    # without the column, the transformer's own output
    assert isinstance(KeepQueryId(StandardScaler()).fit_transform(X[["f0"]].to_numpy()),
                      np.ndarray)


def test_keep_query_id_is_a_scikit_learn_meta_estimator():
    keep = KeepQueryId(StandardScaler(with_mean=False), qid_column="query")
    params = keep.get_params()
    assert params["transformer__with_mean"] is False and params["qid_column"] == "query"
    copy = clone(keep.set_params(transformer__with_std=False))
    assert copy.transformer.with_std is False and copy.transformer is not keep.transformer
    assert copy.get_params()["transformer__with_mean"] is False
    assert copy.get_params()["qid_column"] == "query"


def test_keep_query_id_calls_the_transformers_fit_transform():
    # TargetEncoder cross-fits in fit_transform: it differs from fit then transform
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"cat": rng.choice(["a", "b", "c"], 60), "qid": np.repeat(np.arange(6), 10)})
    y = rng.normal(size=60)
    out = KeepQueryId(TargetEncoder(cv=KFold(3))).fit_transform(X, y)
    expected = TargetEncoder(cv=KFold(3)).fit_transform(X[["cat"]], y)
    assert not np.allclose(expected, TargetEncoder(cv=KFold(3)).fit(X[["cat"]], y).transform(
        X[["cat"]]))
    assert_allclose(out.drop(columns="qid").to_numpy(), expected)
    assert_array_equal(out["qid"], X["qid"])


def test_keep_query_id_wraps_a_column_transformer_by_name():
    X = pd.DataFrame({"f0": [0.0, 1.0, 2.0, 3.0], "cat": ["a", "b", "a", "b"],
                      "qid": [1, 1, 2, 2]})
    inner = ColumnTransformer([("num", StandardScaler(), ["f0"]),
                               ("cat", OneHotEncoder(sparse_output=False), ["cat"])])
    out = KeepQueryId(inner).fit_transform(X)
    assert list(out.columns) == ["num__f0", "cat__cat_a", "cat__cat_b", "qid"]
    assert_array_equal(out["qid"], X["qid"])


def test_keep_query_id_refuses_what_a_dataframe_cannot_carry():
    X = pd.DataFrame({"cat": ["a", "b", "a", "b"], "qid": [1, 1, 2, 2]})
    with pytest.raises(ValueError, match=r"OneHotEncoder returned a sparse matrix.*"
                                         r"sparse_output=False"):
        KeepQueryId(OneHotEncoder()).fit_transform(X)
    renaming = FunctionTransformer(lambda features: features.rename(columns={"cat": "qid"}))
    with pytest.raises(ValueError, match=r"FunctionTransformer returned a column named 'qid', "
                                         r"the query-id column that KeepQueryId appends"):
        KeepQueryId(renaming).fit_transform(X)
    with pytest.raises(TypeError, match=r"KeepQueryId needs a transformer"):
        KeepQueryId("scale").fit(X)


def test_keep_query_id_routes_fit_metadata_to_the_transformer():
    X = pd.DataFrame({"f0": [0.0, 1.0, 2.0, 3.0], "qid": [1, 1, 2, 2]})
    weight = np.array([1.0, 1.0, 1.0, 5.0])
    with sklearn.config_context(enable_metadata_routing=True):
        keep = KeepQueryId(StandardScaler().set_fit_request(sample_weight=True))
        out = make_pipeline(keep).fit_transform(X, sample_weight=weight)
    expected = StandardScaler().fit_transform(X[["f0"]], sample_weight=weight)
    assert_allclose(out[["f0"]].to_numpy(), expected)


# scikit-learn's estimator checks: they give arrays (no query-id column), which KeepQueryId
# passes to its transformer whole, so these check it as a meta-estimator.
@parametrize_with_checks([KeepQueryId(StandardScaler()),
                          KeepQueryId(QuantileTransformer(n_quantiles=10))])
def test_keep_query_id_estimator_checks(estimator, check):
    check(estimator)
