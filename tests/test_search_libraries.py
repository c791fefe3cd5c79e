"""The search libraries that users reach for besides scikit-learn's own, with sklearn-rank.

* ``optuna_integration.OptunaSearchCV`` (optuna-integration) and scikit-optimize's
  ``skopt.BayesSearchCV``: each candidate that they evaluated must have the fold scores of a
  brute-force evaluation of the same candidate with
  :func:`sklearn_rank.model_selection.cross_validate` on the same folds, and their best
  parameters and score must be the best of those, with metadata routing on and off (a ``qid``
  column of ``X``) where the library supports it.
* Optuna's distributed mode: worker processes sharing one study through a SQLite file give,
  for every trial, the value that a serial run gives for the same parameters.

What the libraries get wrong with scikit-learn 1.9 and numpy 2.4 is pinned by strict xfails,
each with its cause: when a library is fixed, the xfail fails and the docs
(``docs/scaling.rst``) must drop the workaround.
"""

import contextlib
import math
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import get_scorer
from sklearn_rank.model_selection import QueryKFold, cross_validate
from sklearn_rank.preprocessing import DropQueryId

pd = pytest.importorskip("pandas")
pytest.importorskip("lightgbm")
optuna = pytest.importorskip("optuna")
optuna_integration = pytest.importorskip("optuna_integration")
skopt = pytest.importorskip("skopt")

pytestmark = [
    # OptunaSearchCV warns that it is experimental when built, and each of its trials that
    # optuna.terminator, which it reports the fold scores to, is deprecated (Optuna 4.9):
    # warnings of optuna-integration 5.0 with Optuna 5.0, which users cannot act on either
    pytest.mark.filterwarnings(
        "ignore:OptunaSearchCV is experimental:optuna.exceptions.ExperimentalWarning"),
    pytest.mark.filterwarnings(
        "ignore:`optuna.terminator` module has been deprecated:FutureWarning"),
]

from optuna.distributions import FloatDistribution, IntDistribution  # noqa: E402
from skopt.space import Categorical, Integer, Real  # noqa: E402

from sklearn_rank.lightgbm import LGBMRanker  # noqa: E402

SCORER = get_scorer("ndcg@10")
N_SPLITS = 3


def cv():
    return QueryKFold(N_SPLITS, shuffle=True, random_state=0)


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=30, n_features=6, random_state=0)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).assign(qid=qid)
    return X, y, qid, frame


@pytest.fixture(autouse=True)
def quiet_optuna():
    # Optuna logs every trial at INFO level on stderr
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    yield
    optuna.logging.set_verbosity(verbosity)


def lgbm(**params):
    return LGBMRanker(n_estimators=6, n_jobs=1, random_state=0, verbose=-1, **params)


def assert_matches_brute_force(search, candidates, fold_scores, estimator, X, y, qid=None,
                               splitter=None, routing=False):
    """Each candidate's fold scores, and the best, against sklearn-rank's cross_validate.

    ``candidates`` are the parameters the library evaluated, ``fold_scores`` its test score of
    each on each fold (n_candidates, n_splits). The comparisons are exact: the same folds,
    the same fits and the same scorer give the same floats.
    """
    assert len(candidates) == len(fold_scores) > 1
    means = []
    for params, scores in zip(candidates, fold_scores):
        model = clone(estimator).set_params(**params)
        with sklearn.config_context(enable_metadata_routing=routing):
            result = cross_validate(model, X, y, qid=qid, scoring=SCORER,
                                    cv=splitter or cv())
        np.testing.assert_array_equal(np.asarray(scores, dtype=float), result["test_score"],
                                      err_msg=str(params), strict=True)
        means.append(np.mean(result["test_score"]))
    means = np.array(means)
    assert np.isfinite(means).all()
    assert search.best_score_ == means.max()
    assert means[candidates.index(dict(search.best_params_))] == means.max()
    # the refit model: the best parameters, fitted on all the data
    with sklearn.config_context(enable_metadata_routing=routing):
        refit = clone(estimator).set_params(**search.best_params_)
        refit.fit(X, y, **({} if qid is None else {"qid": qid}))
    np.testing.assert_array_equal(search.best_estimator_.predict(X), refit.predict(X),
                                  strict=True)


# ----------------------------------------------------------------------------------------
# optuna_integration.OptunaSearchCV
# ----------------------------------------------------------------------------------------


OPTUNA_SPACE = {
    "num_leaves": IntDistribution(3, 31, log=True),
    "learning_rate": FloatDistribution(0.05, 0.5, log=True),
    "min_child_samples": IntDistribution(2, 20),
}


def optuna_search(estimator, space=None, error_score="raise"):
    return optuna_integration.OptunaSearchCV(
        estimator, space or OPTUNA_SPACE, n_trials=6, cv=cv(), scoring=SCORER,
        random_state=0, error_score=error_score)


def optuna_fold_scores(search):
    # the trials' user attributes hold the fold scores, as cv_results_ would
    return [[trial.user_attrs[f"split{i}_test_score"] for i in range(N_SPLITS)]
            for trial in search.trials_]


@pytest.mark.parametrize("make_model", [
    pytest.param(lgbm, id="LGBMRanker"),
    pytest.param(lambda: make_pipeline(DropQueryId(), Ridge()), id="DropQueryId-Ridge"),
])
def test_optuna_search_cv_with_a_qid_column(data, make_model):
    X, y, qid, frame = data
    model = make_model()
    space = (OPTUNA_SPACE if isinstance(model, LGBMRanker)
             else {"ridge__alpha": FloatDistribution(1e-2, 1e3, log=True)})
    search = optuna_search(model, space).fit(frame, y)
    candidates = [trial.params for trial in search.trials_]
    assert_matches_brute_force(search, candidates, optuna_fold_scores(search), model, frame, y)


@pytest.mark.parametrize("pipeline", [False, True], ids=["LGBMRanker", "scaled-LGBMRanker"])
def test_optuna_search_cv_with_routing(data, pipeline):
    X, y, qid, _ = data
    with sklearn.config_context(enable_metadata_routing=True):
        model = lgbm().set_fit_request(qid=True)
        if pipeline:
            model = make_pipeline(StandardScaler(), model)
        space = ({f"lgbmranker__{name}": dist for name, dist in OPTUNA_SPACE.items()}
                 if pipeline else OPTUNA_SPACE)
        search = optuna_search(model, space).fit(X, y, qid=qid)
    candidates = [trial.params for trial in search.trials_]
    assert_matches_brute_force(search, candidates, optuna_fold_scores(search), model, X, y,
                               qid=qid, routing=True)


# A scorer that fails on every fold (here: no query ids at all) warns, and each trial scores
# NaN, which Optuna counts as a failed trial. With every trial failed, OptunaSearchCV's refit
# logs the ValueError of the missing best trial and fits the estimator with its own
# parameters: fit returns, best_params_ raises, predict answers with an untuned model.
# (Warnings: scikit-learn's for each failed scorer, numpy's for the nanmean and nanstd that
# OptunaSearchCV takes of the all-NaN fold scores.)
@pytest.mark.filterwarnings("ignore:Scoring failed:UserWarning")
@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:Degrees of freedom <= 0:RuntimeWarning")
def test_optuna_search_cv_with_every_trial_failed_refits_the_default_parameters(data):
    X, y, qid, _ = data
    search = optuna_search(Ridge(alpha=123.0), {"alpha": FloatDistribution(0.1, 10.0)},
                           error_score=np.nan)
    search.fit(X, y, groups=qid)  # routing off: the ids reach the splitter only
    assert search.study_.trials
    assert all(trial.state == optuna.trial.TrialState.FAIL for trial in search.study_.trials)
    with pytest.raises(ValueError, match="No trials are completed yet"):
        search.best_params_  # noqa: B018
    assert search.best_estimator_.alpha == 123.0
    np.testing.assert_array_equal(search.predict(X), Ridge(alpha=123.0).fit(X, y).predict(X))


# With error_score=np.nan (OptunaSearchCV's default), a fold whose fit or scorer fails scores
# NaN with scikit-learn's warning, and OptunaSearchCV takes the nanmean of the folds: the
# trial's value is the mean of the folds that did not fail, a plausible number from fewer
# folds. docs/scaling.rst says to pass error_score="raise".
@pytest.mark.filterwarnings("ignore:Scoring failed:UserWarning")
def test_optuna_search_cv_with_a_nan_error_score_averages_the_folds_that_did_not_fail(data):
    X, y, qid, frame = data
    failing_test_set = frame.index[next(cv().split(frame, y))[1]]

    def fails_on_the_first_fold(estimator, X, y):
        if X.index.equals(failing_test_set):
            raise ValueError("this fold's scorer fails")
        return SCORER(estimator, X, y)

    search = optuna_integration.OptunaSearchCV(
        make_pipeline(DropQueryId(), Ridge()), {"ridge__alpha": FloatDistribution(0.1, 10.0)},
        n_trials=1, cv=cv(), scoring=fails_on_the_first_fold, random_state=0,
        error_score=np.nan).fit(frame, y)
    trial = search.trials_[0]
    scores = np.array([trial.user_attrs[f"split{i}_test_score"] for i in range(N_SPLITS)])
    assert np.isnan(scores[0]) and np.isfinite(scores[1:]).all()
    assert trial.value == np.mean(scores[1:])  # not NaN: two folds of three


# optuna-integration's objective catches any ValueError of scikit-learn's cross_validate and
# stores error_score as the fold scores: with error_score="raise", the string "raise", whose
# mean then fails in numpy. The search stops, but with numpy's TypeError instead of the
# scorer's message (here: how to pass the query ids). (Warnings: numpy's, for the nanmean and
# nanstd of the all-NaN fit and score times that it stores with the fold scores.)
@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:Degrees of freedom <= 0:RuntimeWarning")
def test_optuna_search_cv_error_score_raise_hides_the_scorers_message(data):
    X, y, qid, _ = data
    search = optuna_search(Ridge(), {"alpha": FloatDistribution(0.1, 10.0)})
    with pytest.raises(TypeError) as raised:
        search.fit(X, y, groups=qid)
    assert "query id" not in str(raised.value)
    # the message it hides: what the scorer says of the same candidate
    with pytest.raises(ValueError, match="needs the query id of every row"):
        SCORER(Ridge().fit(X, y), X, y)


# ----------------------------------------------------------------------------------------
# Optuna's distributed mode: processes sharing one study through SQLite
# ----------------------------------------------------------------------------------------

GRID = {"num_leaves": [3, 7, 15], "learning_rate": [0.1, 0.3], "min_child_samples": [5, 20]}
GRID_SIZE = math.prod(len(values) for values in GRID.values())
N_PROCESSES = 2


def objective(trial):
    """Mean test nDCG@10 of a LightGBM ranker over three folds, by sklearn-rank."""
    X, y, qid = make_ranking(n_queries=30, n_features=6, random_state=0)
    params = {name: trial.suggest_categorical(name, values) for name, values in GRID.items()}
    result = cross_validate(lgbm(**params), X, y, qid=qid, scoring="ndcg@10", cv=cv())
    trial.set_user_attr("pid", os.getpid())
    return float(np.mean(result["test_ndcg@10"]))


def storage(url):
    # a generous lock timeout: the processes write the same SQLite file
    return optuna.storages.RDBStorage(url, engine_kwargs={"connect_args": {"timeout": 60}})


def optimize_in_this_process(url, study_name, barrier):
    """A worker: load the shared study and run trials until the grid is done.

    Each process waits in its first trial until every process has one, so that all of them
    take part (one could otherwise run the whole grid before the others start).
    """
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # the same seed everywhere: the grid sampler orders the grid by it
    study = optuna.load_study(study_name=study_name, storage=storage(url),
                              sampler=optuna.samplers.GridSampler(GRID, seed=0))
    waiting = [True]

    def first_trial_waits(trial):
        if waiting:
            waiting.clear()
            barrier.wait(timeout=120)
        return objective(trial)

    study.optimize(first_trial_waits, n_trials=GRID_SIZE)  # the sampler stops it earlier


@pytest.mark.slow  # optuna studies in several processes sharing one SQLite file
@pytest.mark.filterwarnings(
    # GridSampler may re-run a configuration that another process is running, at the end of
    # the grid; optuna says so (the comparison below holds for every trial, repeated or not)
    "ignore:.*re-evaluating a configuration:UserWarning")
def test_optuna_processes_sharing_a_sqlite_study_give_the_serial_values(tmp_path):
    url = f"sqlite:///{tmp_path / 'study.db'}"
    study = optuna.create_study(study_name="shared", storage=storage(url),
                                direction="maximize")
    context = multiprocessing.get_context("spawn")  # fresh interpreters, as on other hosts
    with context.Manager() as manager, \
            ProcessPoolExecutor(N_PROCESSES, mp_context=context) as pool:
        barrier = manager.Barrier(N_PROCESSES)
        workers = [pool.submit(optimize_in_this_process, url, "shared", barrier)
                   for _ in range(N_PROCESSES)]
        for worker in workers:
            worker.result()  # re-raises a worker's error

    serial = optuna.create_study(direction="maximize",
                                 sampler=optuna.samplers.GridSampler(GRID, seed=0))
    serial.optimize(objective)  # stops when the grid is done
    expected = {tuple(sorted(t.params.items())): t.value for t in serial.trials}
    assert len(expected) == GRID_SIZE

    trials = optuna.load_study(study_name="shared", storage=storage(url)).trials
    assert {t.state for t in trials} == {optuna.trial.TrialState.COMPLETE}
    assert {tuple(sorted(t.params.items())) for t in trials} == set(expected)
    for trial in trials:
        assert trial.value == expected[tuple(sorted(trial.params.items()))], trial.params
    assert len({trial.user_attrs["pid"] for trial in trials}) == N_PROCESSES
    assert os.getpid() not in {trial.user_attrs["pid"] for trial in trials}
    assert study.best_value == serial.best_value


# ----------------------------------------------------------------------------------------
# skopt.BayesSearchCV
# ----------------------------------------------------------------------------------------

BAYES_SPACE = {
    "num_leaves": Integer(3, 31, prior="log-uniform"),
    "learning_rate": Real(0.05, 0.5, prior="log-uniform"),
    "boosting_type": Categorical(["gbdt", "goss"]),
}


def bayes_search(estimator, space=None, *, splitter=None, **optimizer_kwargs):
    # three random points first, then the surrogate model proposes two
    return skopt.BayesSearchCV(
        estimator, space or BAYES_SPACE, n_iter=5, cv=splitter or cv(), scoring=SCORER,
        random_state=0, error_score="raise",
        optimizer_kwargs={"n_initial_points": 3, **optimizer_kwargs})


def bayes_fold_scores(search):
    results = search.cv_results_
    return np.column_stack([results[f"split{i}_test_score"] for i in range(N_SPLITS)])


def broken(error, cause):
    return pytest.mark.xfail(raises=error, strict=True, reason=cause)


@contextlib.contextmanager
def fails_with(error, match):
    """Let ``error`` through only with the message of the known cause.

    Inside a test marked ``xfail(raises=error, strict=True)``, any other failure, the same
    exception with another message included, fails the test.
    """
    try:
        yield
    except error as exc:
        assert re.search(match, str(exc)), f"another {error.__name__} than the known one: {exc}"
        raise


@pytest.mark.parametrize("base_estimator", ["GP", "RF"])
def test_bayes_search_cv_with_a_qid_column(data, base_estimator):
    X, y, qid, frame = data
    search = bayes_search(lgbm(), base_estimator=base_estimator).fit(frame, y)
    assert len(search.optimizer_results_[0].models) > 0  # the surrogate model was used
    assert_matches_brute_force(search, search.cv_results_["params"], bayes_fold_scores(search),
                               lgbm(), frame, y)


@broken(
    TypeError,
    "BayesSearchCV.fit passes groups=None on to BaseSearchCV.fit, and with metadata "
    "routing on scikit-learn (>= 1.4) refuses a 'groups' that no splitter requests "
    "('got unexpected argument(s) {'groups'}, which are not routed to any object'); "
    "QueryKFold requests qid. Workarounds: a qid column, or GroupKFold with "
    "fit(X, y, groups=qid, qid=qid) (the next test).")
def test_bayes_search_cv_with_routing_and_query_kfold(data):
    X, y, qid, _ = data
    with sklearn.config_context(enable_metadata_routing=True), \
            fails_with(TypeError, r"unexpected argument\(s\) \{'groups'\}"):
        bayes_search(lgbm()).fit(X, y, qid=qid)


def test_bayes_search_cv_with_routing_and_a_group_splitter(data):
    # the workaround: a splitter that requests groups, which BayesSearchCV then passes on
    X, y, qid, _ = data
    with sklearn.config_context(enable_metadata_routing=True):
        model = make_pipeline(StandardScaler(), lgbm().set_fit_request(qid=True))
        space = {f"lgbmranker__{name}": dim for name, dim in BAYES_SPACE.items()}
        # the acquisition function maximised on random points only: quicker than L-BFGS
        search = bayes_search(model, space, splitter=GroupKFold(N_SPLITS),
                              acq_optimizer="sampling")
        search.fit(X, y, groups=qid, qid=qid)
    assert_matches_brute_force(search, search.cv_results_["params"], bayes_fold_scores(search),
                               model, X, y, qid=qid, splitter=GroupKFold(N_SPLITS),
                               routing=True)


@pytest.mark.parametrize("base_estimator", [
    pytest.param("GBRT", id="GBRT", marks=broken(ValueError, (
        "skopt's GradientBoostingQuantileRegressor lists RegressorMixin after BaseEstimator, "
        "so scikit-learn (>= 1.6) does not tag it a regressor and skopt's Optimizer refuses "
        "it ('... has to be a regressor.'); past that check, its predict would call np.in1d, "
        "which numpy 2.4 removed. Use 'GP' (the default), 'RF' or 'ET'."))),
    pytest.param("dummy", id="dummy", marks=broken(AttributeError, (
        "skopt's Optimizer checks is_regressor(None), which raises in scikit-learn 1.9 "
        "(None has no __sklearn_tags__). For a random search use RandomizedSearchCV."))),
])
def test_bayes_search_cv_base_estimators_broken_with_scikit_learn_1_9(data, base_estimator):
    X, y, qid, frame = data
    match = {"GBRT": "has to be a regressor", "dummy": "__sklearn_tags__"}[base_estimator]
    with fails_with(Exception, match):
        bayes_search(lgbm(), base_estimator=base_estimator).fit(frame, y)
