"""sklearn_rank.benchmark.run_search: the search of ``sklearn-rank tune`` from Python, checked
against the command line (real SQLite stores), against scikit-learn's GridSearchCV on the
same folds, and resumed after a search that stopped in the middle."""

import json

import numpy as np
import pytest
import sklearn
from _cli import run_cli
from scipy.stats import loguniform
from sklearn.datasets import dump_svmlight_file
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV

from sklearn_rank.benchmark import (
    Recorder,
    ResultsStore,
    RunExistsError,
    SearchResult,
    run_search,
    search_candidates,
)
from sklearn_rank.datasets import load_source, make_ranking
from sklearn_rank.metrics import PerQueryResult, get_scorer
from sklearn_rank.model_selection import QueryKFold

DATA = make_ranking(40, random_state=0)
GRID = {"alpha": [0.1, 10.0, 1000.0]}


class FlakyRidge(Ridge):
    """A Ridge whose fits fail once ``FlakyRidge.fits_left`` reaches 0 (a search that stops
    in the middle), and that counts its fits."""

    fits_left = None
    fits = 0

    def fit(self, X, y, sample_weight=None):
        if FlakyRidge.fits_left is not None:
            if FlakyRidge.fits_left <= 0:
                raise RuntimeError("stopped on purpose")
            FlakyRidge.fits_left -= 1
        FlakyRidge.fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def _units(path):
    """The units of the one run of a store, by (data set, seed, candidate, fold)."""
    store = ResultsStore(path, create=False)
    try:
        (run,) = store.runs()
        units = store.read_units(run["id"])
    finally:
        store.close()
    return {(u["dataset"], u["seed"], u["candidate"], u["fold"]): u for u in units}


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, seed, n in (("a", 0, 30), ("b", 1, 24), ("t", 2, 12)):
        X, y, qid = make_ranking(n, random_state=seed)
        dump_svmlight_file(X, y, f"{name}.txt", query_id=qid)
    return tmp_path


@pytest.mark.parametrize("axes, kwargs", [
    (["--data", "a.txt", "--test", "t.txt"], {"test": "t.txt"}),
    (["--data", "a.txt", "--repeats", "2"], {"n_repeats": 2, "refit": False}),
    (["--dataset", "A=a.txt", "--dataset", "B=b.txt"], {"refit": False}),
], ids=["test", "repeats", "datasets"])
def test_python_search_equals_the_command_lines(files, capsys, axes, kwargs):
    argv = ["tune", *axes, "--model", "sklearn.linear_model:Ridge", "--param",
            "alpha=0.1,1,1000", "--n-splits", "3", "--metric", "err@5", "-q"]
    code, _, err = run_cli(capsys, *argv, "--store", "cli.sqlite", "--output", "cli.json")
    assert code == 0, err
    written = json.loads((files / "cli.json").read_text())
    if "test" in kwargs:
        kwargs["test"] = load_source(kwargs["test"])
    data = ({"A": load_source("a.txt"), "B": load_source("b.txt")} if "--dataset" in axes
            else load_source("a.txt"))
    found = run_search(Ridge(random_state=0), {"alpha": [0.1, 1, 1000]}, data, metric="err@5",
                       n_splits=3, store="py.sqlite", **kwargs)
    pairs = ([(found, written)] if isinstance(found, SearchResult) else
             [(found[name], written["datasets"][name]) for name in ("A", "B")])
    for result, cli in pairs:
        assert result.best_params_ == cli["best_params"]
        assert result.best_index_ == cli["best_index"]
        for key in ("mean_test_err@5", "std_test_err@5", "rank_test_err@5",
                    "split0_test_err@5", "split2_test_err@5"):
            np.testing.assert_array_equal(result.cv_results_[key], cli["cv_results"][key])
        if "test" in kwargs:
            assert result.test_score_.mean == cli["test"]["mean"]
            low, high = result.test_score_.confidence_interval
            assert (low, high) == (cli["test"]["ci_low"], cli["test"]["ci_high"])
    stored_cli, stored_py = _units("cli.sqlite"), _units("py.sqlite")
    assert stored_cli.keys() == stored_py.keys()
    assert len(stored_cli) == {"test": 10, "repeats": 18, "datasets": 18}[
        "test" if "test" in kwargs else "repeats" if "n_repeats" in kwargs else "datasets"]
    for key, unit in stored_cli.items():
        mine = stored_py[key]
        assert (mine["split"], mine["data_sha256"], mine["scores"]) == (
            unit["split"], unit["data_sha256"], unit["scores"])
        # the command line records the parameters it set, Python the estimator's: the
        # candidate's are the same
        assert {k: mine["params"][k] for k in unit["params"]} == unit["params"]
        for name, values in unit["per_query"].items():
            np.testing.assert_array_equal(mine["per_query"][name], values)


def test_cv_results_are_grid_search_cvs_on_the_same_folds():
    X, y, qid = DATA
    folds = list(QueryKFold(3, shuffle=True, random_state=0).split(X, y, qid=qid))
    with sklearn.config_context(enable_metadata_routing=True):
        reference = GridSearchCV(Ridge(), GRID, cv=folds,
                                 scoring={"ndcg@10": get_scorer("ndcg@10")}, refit=False)
        reference.fit(X, y, qid=qid)
    result = run_search(Ridge(), GRID, DATA, n_splits=3, refit=False)
    ours, theirs = result.cv_results_, reference.cv_results_
    for key in ("mean_test_ndcg@10", "std_test_ndcg@10", "split0_test_ndcg@10",
                "split1_test_ndcg@10", "split2_test_ndcg@10"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12, atol=0)
    np.testing.assert_array_equal(ours["rank_test_ndcg@10"], theirs["rank_test_ndcg@10"])
    assert ours["params"] == theirs["params"]
    assert ours["param_alpha"].tolist() == theirs["param_alpha"].tolist()
    best = int(np.argmin(theirs["rank_test_ndcg@10"]))
    assert (result.best_index_, result.best_params_) == (best, theirs["params"][best])
    assert result.best_score_ == theirs["mean_test_ndcg@10"][best]
    assert result.best_estimator_ is None  # refit=False


def test_per_query_values_of_the_best_candidate_and_the_refit():
    X, y, qid = DATA
    test = make_ranking(15, random_state=3)
    result = run_search(Ridge(), GRID, DATA, n_splits=3, test=test)
    per_query = result.per_query()
    assert isinstance(per_query, PerQueryResult)
    folds = list(QueryKFold(3, shuffle=True, random_state=0).split(X, y, qid=qid))
    expected_fold = {q: k for k, (_, rows) in enumerate(folds) for q in np.unique(qid[rows])}
    assert per_query.fold.tolist() == [expected_fold[q] for q in per_query.query_ids]
    assert np.mean(per_query["ndcg@10"]) == pytest.approx(result.best_score_, abs=0.05)
    refit = Ridge(**result.best_params_).fit(X, y)
    assert np.array_equal(result.best_estimator_.coef_, refit.coef_)
    assert result.test_per_query_.metrics == ("ndcg@10",)
    assert result.test_score_.mean == pytest.approx(np.mean(result.test_per_query_["ndcg@10"]))
    assert "best ndcg@10" in repr(result) and "test ndcg@10" in repr(result)
    assert "Best parameters: alpha=" in result.summary(top=2)
    written = result.to_dict(cv_results=False)
    assert written["best_params"] == result.best_params_ and written["test"]["n_queries"] == 15


def test_stopped_search_resumed_from_python_is_the_uninterrupted_one(tmp_path):
    whole = run_search(FlakyRidge(), GRID, DATA, n_splits=3, store=tmp_path / "whole.sqlite")
    FlakyRidge.fits, FlakyRidge.fits_left = 0, 4
    try:
        with pytest.raises(RuntimeError, match="stopped on purpose"):
            run_search(FlakyRidge(), GRID, DATA, n_splits=3, store=tmp_path / "s.sqlite")
    finally:
        FlakyRidge.fits_left = None
    assert len(_units(tmp_path / "s.sqlite")) == 4  # what it finished is kept
    with pytest.raises(RunExistsError):  # the same search again is refused without resume
        run_search(FlakyRidge(), GRID, DATA, n_splits=3, store=tmp_path / "s.sqlite")
    FlakyRidge.fits = 0
    resumed = run_search(FlakyRidge(), GRID, DATA, n_splits=3, store=tmp_path / "s.sqlite",
                         resume=True)
    assert FlakyRidge.fits == 9 - 4 + 1  # the missing units, and the refit
    for key in ("mean_test_ndcg@10", "std_test_ndcg@10", "rank_test_ndcg@10"):
        np.testing.assert_array_equal(resumed.cv_results_[key], whole.cv_results_[key])
    assert resumed.best_params_ == whole.best_params_
    np.testing.assert_array_equal(resumed.per_query()["ndcg@10"], whole.per_query()["ndcg@10"])
    assert np.array_equal(resumed.best_estimator_.coef_, whole.best_estimator_.coef_)
    assert resumed.run_id == 1 and len(_units(tmp_path / "s.sqlite")) == 10


def test_a_recorder_of_ones_own_receives_the_provenance_and_every_unit():
    class Keeping(Recorder):
        def start(self, provenance, units):
            self.provenance, self.units, self.results = provenance, units, []

        def record(self, result):
            self.results.append(result)

    keeping = Keeping()
    shown = []

    class Shown:
        def __init__(self, total, what):
            shown.append((total, what))

        def begin(self, detail=""):
            shown.append(detail)

        def advance(self, detail=""):
            shown.append(detail)

        def close(self):
            shown.append("closed")

    run_search(Ridge(), {"alpha": loguniform(0.01, 10)}, DATA, search="random", n_iter=2,
               n_splits=3, store=keeping, progress=Shown, provenance={"command": "mine"})
    assert keeping.provenance["command"] == "mine"
    assert keeping.provenance["space"] == {"alpha": "loguniform(0.01, 10)"}
    assert len(keeping.units) == len(keeping.results) == 2 * 3 + 1
    assert shown[:2] == [(7, "random search"), "(2 candidates x 3 folds + refit, 1 process)"]
    assert shown[2] == "candidate 1/2, fold 1/3" and shown[-1] == "closed"


@pytest.mark.parametrize("kwargs, error, says", [
    ({"params": {}}, ValueError, "params must be a non-empty dict"),
    ({"params": {"alpha": []}}, ValueError, "params['alpha'] is an empty list"),
    ({"params": {"alpha": 1.0}}, ValueError, "params['alpha'] must be a list of values"),
    ({"params": {"alpha": loguniform(0.1, 1)}}, ValueError, "goes with search='random'"),
    ({"search": "bayes"}, ValueError, "search must be 'grid' or 'random'; got 'bayes'"),
    ({"n_iter": 3}, ValueError, "n_iter=3 sets the candidates of search='random'"),
    ({"search": "random", "n_iter": 0}, ValueError, "n_iter must be an integer from 1"),
    ({"params": {f"p{i}": list(range(10)) for i in range(5)}}, ValueError,
     "the grid has 100,000 candidates (10 x 10 x 10 x 10 x 10 values)"),
    ({"metric": ["ndcg@10"]}, TypeError, "metric must be one metric name"),
    ({"model": "Ridge"}, TypeError, "model must be an unfitted estimator"),
    ({"data": {}}, ValueError, "data is an empty dict"),
    ({"data": {"a": DATA}, "test": DATA}, ValueError, "test goes with one data set"),
    ({"test": DATA, "refit": False}, ValueError, "it needs refit=True"),
    ({"resume": True}, ValueError, "resume=True continues a stored search"),
    ({"params": {"alpha": [1.0], "nonsense": [1]}}, ValueError,
     "params: Invalid parameter 'nonsense'"),
    ({"n_repeats": 2, "seeds": [1, 2]}, ValueError, "give n_repeats or seeds, not both"),
])
def test_bad_arguments_are_refused_naming_the_argument(kwargs, error, says):
    arguments = {"model": Ridge(), "params": GRID, "data": DATA, "n_splits": 3, **kwargs}
    with pytest.raises(error) as caught:
        run_search(arguments.pop("model"), arguments.pop("params"), arguments.pop("data"),
                   **arguments)
    assert says in str(caught.value)


def test_search_candidates_are_scikit_learns():
    from sklearn.model_selection import ParameterGrid, ParameterSampler

    space = {"alpha": [0.1, 1.0], "fit_intercept": [True, False]}
    assert search_candidates(space) == list(ParameterGrid(space))
    drawn = {"alpha": loguniform(0.01, 1.0)}
    assert search_candidates(drawn, search="random", n_iter=3, random_state=5) == list(
        ParameterSampler(drawn, 3, random_state=5))
    # a space of lists is sampled without repetition: at most its combinations
    assert len(search_candidates(space, search="random", n_iter=50)) == 4


def test_each_repeat_fits_the_model_under_its_seed():
    from sklearn.ensemble import RandomForestRegressor

    model = RandomForestRegressor(n_estimators=3, max_depth=2)  # random_state None
    found = run_search(model, {"min_samples_leaf": [1, 5]}, DATA, n_splits=3, seeds=[0, 7],
                       refit=False)
    by_hand = run_search(lambda seed: RandomForestRegressor(n_estimators=3, max_depth=2,
                                                            random_state=seed),
                         {"min_samples_leaf": [1, 5]}, DATA, n_splits=3, seeds=[0, 7],
                         refit=False)
    for key in ("split0_test_ndcg@10", "split5_test_ndcg@10", "mean_test_ndcg@10"):
        np.testing.assert_array_equal(found.cv_results_[key], by_hand.cv_results_[key])


def test_searches_of_two_conventions_are_not_compared():
    """A search's per-query results (out of fold, over seeds, on the held-out test set)
    say what its metric computed: ``ndcg@10`` under trec_eval's and LightGBM's conventions
    are refused by compare; before, they were compared silently."""
    from sklearn_rank.stats import compare

    test = make_ranking(15, random_state=3)
    trec, lightgbm = (run_search(Ridge(), {"alpha": [1.0]}, DATA, n_splits=3, n_repeats=2,
                                 convention=convention, test=test)
                      for convention in ("trec_eval", "lightgbm"))
    for a, b in ((trec.per_query(), lightgbm.per_query()),
                 (trec.per_query(seed=trec.seeds[0]), lightgbm.per_query(lightgbm.seeds[0])),
                 (trec.test_per_query_, lightgbm.test_per_query_)):
        assert a.key("ndcg@10") == "ndcg@10(gain=linear,ties=stable)"
        assert b.key("ndcg@10") == "ndcg@10(ties=stable,no_relevant=1.0)"
        with pytest.raises(ValueError, match="The values of 'ndcg@10' are not one metric"):
            compare({"a": a, "b": b}, metric="ndcg@10")
        assert compare({"a": a, "b": a}, metric="ndcg@10").systems == ["a", "b"]


def test_the_command_line_limit_of_candidates_is_run_search_s():
    """``tune`` keeps its own copy of the limit (its argument builders import no numpy, for
    a quick ``--help``): the copy must be run_search's, or ``--n-iter`` would accept what
    the search refuses, or refuse what it takes."""
    from sklearn_rank._cli import _tune
    from sklearn_rank.benchmark import _search

    assert _tune.MAX_CANDIDATES == _search.MAX_CANDIDATES
