"""run_benchmark's options for a caller such as the command line: a held-out test set, a
progress display, provenance of its own, a Recorder as the store, skipped model checks and
models built per seed; and ``sklearn-rank cv``, which runs through it."""

import json

import numpy as np
import pytest
from _cli import run_cli
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.datasets import dump_svmlight_file
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression, Ridge

from sklearn_rank.benchmark import Recorder, StoreRecorder, load_store, run_benchmark
from sklearn_rank.datasets import load_source, make_ranking
from sklearn_rank.metrics import evaluate_per_query

TRAIN = make_ranking(30, n_grades=3, random_state=0)
TEST = make_ranking(12, n_grades=5, random_state=1)


def test_held_out_values_are_those_of_each_model_fitted_on_all_the_data():
    models = {"ridge": Ridge(alpha=3.0), "ols": LinearRegression()}
    result = run_benchmark(models, TRAIN, metrics=["ndcg@5", "err@10"], n_splits=3,
                           test=TEST)
    X, y, qid = TRAIN
    X_test, y_test, qid_test = TEST
    # ERR's grade scale: the largest grade of the data and the test set, as in the folds
    top = int(max(y.max(), y_test.max()))
    for label, fresh in (("ridge", Ridge(alpha=3.0)), ("ols", LinearRegression())):
        scores = fresh.fit(X, y).predict(X_test)
        expected = evaluate_per_query(y_test, scores, qid=qid_test,
                                      metrics=["ndcg@5", f"err@10(max_grade={top})"])
        got = result.per_query(label, split="test")
        np.testing.assert_array_equal(got.query_ids, expected.query_ids)
        np.testing.assert_allclose(got["ndcg@5"], expected["ndcg@5"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got["err@10"], expected[f"err@10(max_grade={top})"],
                                   rtol=0, atol=1e-12)
    assert result.provenance["test"]["n_queries"] == 12
    assert result.provenance["metrics"]["err@10"] == f"err@10(max_grade={top})"
    table = result.compare(split="test")
    assert table.systems == ["ridge", "ols"] and table.n["ndcg@5"] == 12
    with pytest.raises(ValueError, match="one data set and one seed"):
        run_benchmark(models, TRAIN, n_splits=3, n_repeats=2, test=TEST)


def test_held_out_values_are_stored_as_the_test_split(tmp_path):
    path = tmp_path / "runs.sqlite"
    result = run_benchmark({"ridge": Ridge(), "ols": LinearRegression()}, TRAIN,
                           metrics=["ndcg@5"], n_splits=3, test=TEST, store=path)
    stored = load_store(path, split="test")
    for label in ("ridge", "ols"):
        np.testing.assert_array_equal(stored[label]["ndcg@5"],
                                      result.per_query(label, split="test")["ndcg@5"])
    with pytest.raises(ValueError, match="no held-out test set"):
        run_benchmark({"a": Ridge()}, TRAIN, n_splits=3).per_query("a", split="test")


class Recording:
    """A progress display that records the calls it receives."""

    made = []

    def __init__(self, total, what):
        self.total, self.what, self.calls = total, what, []
        Recording.made.append(self)

    def begin(self, detail=""):
        self.calls.append(("begin", detail))

    def advance(self, detail=""):
        self.calls.append(("advance", detail))

    def close(self):
        self.calls.append(("close",))


class FailingRegressor(RegressorMixin, BaseEstimator):
    """A regressor whose fit fails: a run that stops on an error."""

    def fit(self, X, y):
        raise RuntimeError("failed on purpose")


def test_progress_is_begun_advanced_per_unit_and_closed_also_on_an_error():
    Recording.made = []
    run_benchmark({"a": Ridge(), "b": LinearRegression()}, TRAIN, n_splits=3, test=TEST,
                  progress=Recording)
    (shown,) = Recording.made
    assert (shown.total, shown.what) == (8, "cross-validation")
    assert shown.calls[0] == ("begin", "(2 models x 3 folds + test, 1 process)")
    assert [c[0] for c in shown.calls[1:]] == ["advance"] * 8 + ["close"]
    assert ("advance", "b, test") in shown.calls
    Recording.made = []
    with pytest.raises(RuntimeError, match="on purpose"):
        run_benchmark({"a": Ridge(), "bad": FailingRegressor()}, TRAIN, n_splits=3,
                      progress=Recording)
    (shown,) = Recording.made
    assert shown.calls[0][0] == "begin" and shown.calls[-1] == ("close",)
    assert [c[0] for c in shown.calls].count("close") == 1
    assert [c[0] for c in shown.calls].count("advance") == 3  # the folds of 'a'


def test_provenance_of_the_caller_is_recorded_and_read_back(tmp_path):
    path = tmp_path / "runs.sqlite"
    mine = {"command": "my-script", "experiment": {"note": "ablation", "id": 7},
            "models": {"a": {"model": "ridge", "params": {"alpha": 2.0}},
                       "b": {"model": "ols", "params": {}}}}
    result = run_benchmark({"a": Ridge(alpha=2.0), "b": LinearRegression()}, TRAIN,
                           n_splits=3, store=path, provenance=mine)
    stored = load_store(path)
    assert stored.command == "my-script"
    assert stored.provenance["experiment"] == {"note": "ablation", "id": 7}
    assert stored.provenance["models"] == mine["models"]
    # what the function records itself is kept beside
    assert stored.provenance["data"] == result.provenance["data"]
    assert stored.provenance["splitter"].startswith("QueryKFold(n_splits=3")
    # the units are stored with the parameters the caller recorded of their model
    params = {unit["model"]: unit["params"]
              for unit in _units(path)}
    assert params == {"a": {"alpha": 2.0}, "b": {}}


def _units(path):
    from sklearn_rank.benchmark import ResultsStore

    store = ResultsStore(path, create=False)
    try:
        (run,) = store.runs()
        return store.read_units(run["id"])
    finally:
        store.close()


class Keeping(Recorder):
    """A Recorder that keeps what it is given."""

    def __init__(self):
        self.started, self.recorded, self.finished = None, [], False

    def start(self, provenance, units):
        self.started = (provenance, units)

    def record(self, result):
        self.recorded.append(result)

    def finish(self):
        self.finished = True


def test_a_recorder_as_the_store_receives_the_run(tmp_path):
    keeping = Keeping()
    run_benchmark({"a": Ridge(), "b": LinearRegression()}, TRAIN, n_splits=3, test=TEST,
                  store=keeping)
    assert keeping.finished and len(keeping.recorded) == 8
    assert keeping.started[0]["test"]["n_queries"] == 12 and len(keeping.started[1]) == 8
    path = tmp_path / "runs.sqlite"
    run_benchmark({"a": Ridge(), "b": LinearRegression()}, TRAIN, n_splits=3,
                  store=StoreRecorder(path, resume=False))
    assert len(load_store(path)["a"]["qid"]) == 30
    with pytest.raises(ValueError, match="resume=True goes with a store's path"):
        run_benchmark({"a": Ridge()}, TRAIN, store=Keeping(), resume=True)


def test_models_built_per_seed_keep_a_seed_of_their_own():
    """A model given as a function of the seed is built under each repeat's seed; one that
    keeps its seed (``--set random_state=3``) fits the same model on every repeat, where a
    clone of an estimator would be reseeded."""
    def fixed(seed):
        return RandomForestRegressor(n_estimators=3, random_state=3)

    def seeded(seed):
        return RandomForestRegressor(n_estimators=3, random_state=seed)

    result = run_benchmark({"fixed": fixed, "seeded": seeded}, TRAIN, n_splits=3,
                           seeds=[1, 2], check_models=False)
    for seed in (1, 2):
        # the same split, the model as given: a run of one seed
        alone = run_benchmark({"fixed": RandomForestRegressor(n_estimators=3, random_state=3),
                               "seeded": RandomForestRegressor(n_estimators=3,
                                                               random_state=seed)},
                              TRAIN, n_splits=3, random_state=seed)
        for label in ("fixed", "seeded"):
            np.testing.assert_array_equal(
                result.per_query(label, seed=seed)["ndcg@10"],
                alone.per_query(label)["ndcg@10"])
    # the default rule for an estimator: reseeded with each repeat's seed
    cloned = run_benchmark({"seeded": RandomForestRegressor(n_estimators=3, random_state=3),
                            "other": Ridge()}, TRAIN, n_splits=3, seeds=[1, 2])
    np.testing.assert_array_equal(cloned.per_query("seeded", seed=2)["ndcg@10"],
                                  result.per_query("seeded", seed=2)["ndcg@10"])


def test_a_run_of_one_listed_seed_compares_without_naming_it():
    result = run_benchmark({"a": Ridge(), "b": LinearRegression()}, TRAIN, n_splits=3,
                           seeds=[5])
    assert result.seeds == [5]
    assert result.compare().systems == ["a", "b"]
    assert result.per_query("a").query_ids.shape == (30,)


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, (X, y, qid) in (("train", TRAIN), ("test", TEST)):
        paths[name] = tmp_path / f"{name}.txt"
        dump_svmlight_file(X, y, str(paths[name]), query_id=qid)
    return paths


def test_cli_and_python_store_the_same_per_query_values(files, tmp_path, capsys):
    cli_store, python_store = tmp_path / "cli.sqlite", tmp_path / "python.sqlite"
    code, _, err = run_cli(capsys, "cv", "--data", files["train"], "--test", files["test"],
                           "--model", "ridge=sklearn.linear_model:Ridge", "--model",
                           "ols=sklearn.linear_model:LinearRegression", "--n-splits", 3,
                           "--seed", 4, "--metrics", "ndcg@5", "err@10", "-q", "--store",
                           cli_store)
    assert code == 0, err
    data, test = load_source([str(files["train"])]), load_source([str(files["test"])])
    run_benchmark({"ridge": Ridge(), "ols": LinearRegression()}, data,
                  metrics=["ndcg@5", "err@10"], n_splits=3, random_state=4, test=test,
                  store=python_store)
    for split in ("cv", "test"):
        by_cli, by_python = load_store(cli_store, split=split), load_store(python_store,
                                                                           split=split)
        assert sorted(by_cli) == sorted(by_python) == ["ols", "ridge"]
        for label in by_cli:
            for column in ("qid", "ndcg@5", "err@10"):
                np.testing.assert_array_equal(by_cli[label][column],
                                              by_python[label][column])
    assert load_store(cli_store).command == "sklearn-rank cv"


def test_cli_latex_tables_of_several_seeds_keep_the_tables(capsys, tmp_path):
    """--format latex of a run of several seeds printed only the title of each data set,
    as a comment: the tables and the spread over the seeds were lost."""
    output = tmp_path / "tables.tex"
    code, out, err = run_cli(capsys, "cv", "--n-queries", 30, "--n-splits", 2, "--model",
                             "ridge=sklearn.linear_model:Ridge", "--model",
                             "ols=sklearn.linear_model:LinearRegression", "--repeats", 2,
                             "--metrics", "ndcg@5", "-q", "--format", "latex", "--output",
                             output)
    assert code == 0, err
    for text in (out, output.read_text()):
        assert text.count("\\begin{tabular}") == 1
        assert "% Spread over the 2 seeds (0, 1)" in text
        assert "%   ridge: ndcg@5 " in text


def test_cli_json_of_a_run_of_several_seeds_has_the_spread_of_the_summary(capsys, tmp_path):
    output = tmp_path / "tables.json"
    code, _, err = run_cli(capsys, "cv", "--n-queries", 30, "--n-splits", 2, "--model",
                           "ridge=sklearn.linear_model:Ridge", "--model",
                           "ols=sklearn.linear_model:LinearRegression", "--seeds", 3, 8,
                           "--metrics", "ndcg@5", "-q", "--output", output)
    assert code == 0, err
    written = json.loads(output.read_text())
    result = run_benchmark({"ridge": Ridge(), "ols": LinearRegression()},
                           make_ranking(30, random_state=0, realistic=True), n_splits=2,
                           metrics=["ndcg@5"], seeds=[3, 8])
    rows = {row["model"]: row for row in result.summary()}
    spread = written["datasets"][""]["seed_spread"]
    assert spread["ridge"]["ndcg@5"] == {"mean": rows["ridge"]["mean"],
                                         "std": rows["ridge"]["seed_std"]}


class AliasSeeded(RegressorMixin, BaseEstimator):
    """A regressor whose seed has two names, as CatBoost's ``random_seed`` and
    ``random_state``, and that refuses both set, as CatBoost does."""

    def __init__(self, random_seed=None, random_state=None):
        self.random_seed = random_seed
        self.random_state = random_state

    def fit(self, X, y):
        if self.random_seed is not None and self.random_state is not None:
            raise ValueError("only one of the parameters random_seed, random_state should "
                             "be initialized.")
        seed = self.random_seed if self.random_seed is not None else self.random_state
        self.model_ = RandomForestRegressor(n_estimators=3, random_state=seed).fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_a_seed_given_as_random_seed_is_the_one_reseeded():
    """CatBoost's seed given as ``random_seed``: each repeat replaces it, where setting
    ``random_state`` beside it made every fit fail."""
    result = run_benchmark({"alias": AliasSeeded(random_seed=0), "ridge": Ridge()}, TRAIN,
                           n_splits=3, seeds=[1, 2])
    by_state = run_benchmark({"alias": AliasSeeded(random_state=0), "ridge": Ridge()}, TRAIN,
                             n_splits=3, seeds=[1, 2])
    for seed in (1, 2):
        np.testing.assert_array_equal(result.per_query("alias", seed=seed)["ndcg@10"],
                                      by_state.per_query("alias", seed=seed)["ndcg@10"])


def test_catboost_built_in_model_is_reseeded_as_the_command_line_builds_it():
    """The built-in models' clone under a repeat's seed is the model the command line
    builds with that seed: CatBoost's random_seed included (it failed every fit)."""
    from sklearn_rank.benchmark import MODELS
    from sklearn_rank.benchmark._benchmark import _reseeded

    for name, model in MODELS.items():
        if not model.available():
            continue
        assert (_reseeded(model.build(10, 0), 5).get_params(deep=False)
                == model.build(10, 5).get_params(deep=False)), name
    pytest.importorskip("catboost")
    result = run_benchmark({"catboost": MODELS["catboost"].build(5, 0), "ridge": Ridge()},
                           make_ranking(20, random_state=0), n_splits=2, n_repeats=2)
    assert result.seeds == [0, 1]


def test_data_forms_a_user_brings():
    """make_ranking's Bunch is a data set as its (X, y, qid) tuple is, with the same numbers;
    an (X, y) pair, the query ids forgotten, is refused saying so; the result's text counts
    one model, one data set and one seed in the singular."""
    bunch = make_ranking(24, random_state=0, return_X_y_qid=False)
    as_tuple = run_benchmark({"ols": LinearRegression()}, (bunch.data, bunch.target, bunch.qid),
                             n_splits=3)
    as_bunch = run_benchmark({"ols": LinearRegression()}, bunch, n_splits=3)
    assert as_bunch.per_query("ols") == as_tuple.per_query("ols")
    assert repr(as_bunch) == "BenchmarkResult(1 model x 1 data set x 1 seed, metrics ['ndcg@10'])"
    with pytest.raises(TypeError, match=r"got a tuple of 2 items \(X and y without the query "
                                        r"ids\?\)"):
        run_benchmark({"ols": LinearRegression()}, (bunch.data, bunch.target), n_splits=3)


def test_seed_summary_of_one_unnamed_data_set_has_no_data_set_column():
    """A run of one data set under several seeds: its spread table named the data set
    "None"; it has no data set column now, in every format."""
    result = run_benchmark({"ols": LinearRegression(), "ridge": Ridge(alpha=100.0)},
                           make_ranking(24, random_state=0), n_splits=3, n_repeats=2)
    summary = result.seed_summary()
    text = summary.to_string()
    assert text.splitlines()[0].split()[:2] == ["Model", "Mean"] and "None" not in text
    assert "None" not in summary.to_markdown() and "None" not in summary.to_html()
    assert summary.to_latex().startswith(r"\begin{tabular}{lrrrrrr}")
