"""The models' checks of a run, in the library (issue 20, item 3): trial fits of the
parameters set or searched, a parameter a booster ignores or refuses refused before any work
with structured attributes, and the data checks of ``sklearn_rank.datasets``.

The command line maps these attributes to its options (``--set``, ``--param``, ``--data``);
a Python user of :func:`sklearn_rank.benchmark.run_benchmark` gets the same checks.
"""

import warnings

import numpy as np
import pytest
from _cli import run_cli
from scipy.stats import randint
from sklearn.linear_model import Ridge

from sklearn_rank.benchmark import (
    ModelCheckError,
    ModelCheckWarning,
    ModelImportError,
    build_model,
    check_models,
    run_benchmark,
)
from sklearn_rank.datasets import (
    DataSourceError,
    RankingDataset,
    check_file,
    check_ranking_data,
    make_ranking,
)

DATA = make_ranking(12, random_state=0)
lightgbm = pytest.importorskip("lightgbm")
from sklearn_rank.lightgbm import LGBMRanker  # noqa: E402


@pytest.mark.parametrize("model, reason, parameter, value, why", [
    # misspelt: LightGBM logs that it ignores it, and fits without it
    (LGBMRanker(n_estimators=5, num_leafs=7), "ignored", "num_leafs", 7,
     "it is not one of its parameters"),
    # an alias of a parameter the model sets: ignored as well
    (LGBMRanker(n_estimators=5, num_leaf=3), "ignored", "num_leaf", 3,
     "it is an alias of num_leaves, which the model sets already: use num_leaves instead"),
    # a value LightGBM refuses: its error, with the parameter that causes it
    (LGBMRanker(n_estimators=5, learning_rate=0.1, num_leaves=1), "refused", "num_leaves", 1,
     None),
])
def test_run_benchmark_refuses_a_parameter_the_booster_ignores_or_refuses(
        tmp_path, model, reason, parameter, value, why):
    # run_benchmark fitted every fold of a model whose misspelt parameter LightGBM ignored
    # (a silently different model), or failed in every fold on a refused one; the store
    # was started either way
    store = tmp_path / "s.sqlite"
    with pytest.raises(ModelCheckError, match=f"model 'lgbm': .*{parameter}") as info:
        run_benchmark({"ridge": Ridge(), "lgbm": model}, DATA, n_splits=2, store=store)
    error = info.value
    assert (error.label, error.reason, error.parameter, error.value) == ("lgbm", reason,
                                                                        parameter, value)
    assert error.why == why and error.searched is False
    assert (error.error is not None) is (reason == "refused")
    assert not store.exists()  # before any work


def test_run_benchmark_fits_a_booster_with_valid_parameters_as_before():
    # the trial fits change nothing: the same numbers as the model's own cross-validation
    model = LGBMRanker(n_estimators=3, num_leaves=7, min_data_in_leaf=2, verbose=-1)
    result = run_benchmark({"lgbm": model}, DATA, n_splits=2)
    again = run_benchmark({"lgbm": LGBMRanker(n_estimators=3, num_leaves=7, min_data_in_leaf=2,
                                              verbose=-1)}, DATA, n_splits=2)
    np.testing.assert_array_equal(result.per_query("lgbm").values["ndcg@10"],
                                  again.per_query("lgbm").values["ndcg@10"])


def test_parameters_valid_only_together_pass():
    # random forests need bagging: boosting_type='rf' alone is refused, with bagging it
    # works; the command line tried each --set alone first and refused the valid trio
    model = LGBMRanker(n_estimators=3, boosting_type="rf", subsample=0.5, subsample_freq=1)
    params = {"rf": ["boosting_type", "subsample", "subsample_freq"]}
    assert check_models({"rf": model}, [("d", DATA)], params=params) is None
    with pytest.raises(ModelCheckError) as info:
        check_models({"rf": LGBMRanker(boosting_type="rf")}, [("d", DATA)],
                     params={"rf": ["boosting_type"]})
    assert (info.value.reason, info.value.parameter) == ("refused", "boosting_type")
    # and the reverse: GOSS with bagging, each fine alone, fails together
    goss = LGBMRanker(n_estimators=3, boosting_type="goss", subsample=0.5, subsample_freq=1)
    with pytest.raises(ModelCheckError, match="refuses the parameters boosting_type, "
                       "subsample, subsample_freq together: Cannot use bagging in GOSS") as info:
        check_models({"goss": goss}, [("d", DATA)],
                     params={"goss": ["boosting_type", "subsample", "subsample_freq"]})
    assert (info.value.reason, info.value.parameter, info.value.value) == ("refused", None,
                                                                          None)


def test_a_model_that_cannot_fit_the_data_is_the_data_s_fault():
    # non-integer grades: LambdaRank refuses them whatever the parameters
    X, y, qid = DATA
    y = y + 0.5
    with pytest.raises(ModelCheckError, match="cannot fit the first queries of halves") as info:
        check_models({"lgbm": LGBMRanker(n_estimators=3, num_leaves=7)}, [("halves", (X, y, qid))])
    assert (info.value.reason, info.value.source, info.value.parameter) == ("data", "halves",
                                                                           None)


def test_searched_values_are_tried_alone_with_a_distribution_s_bounds():
    model = LGBMRanker(n_estimators=3)
    assert check_models({"m": model}, [("d", DATA)], params={},
                        search={"m": {"num_leaves": [3, 7], "learning_rate": [0.1]}}) is None
    with pytest.raises(ModelCheckError) as info:
        check_models({"m": model}, [("d", DATA)], params={},
                     search={"m": {"num_leaves": randint(1, 9)}})
    assert (info.value.reason, info.value.parameter, info.value.value,
            info.value.searched) == ("refused", "num_leaves", 1, True)
    with pytest.raises(ModelCheckError) as info:
        check_models({"m": model}, [("d", DATA)], params={},
                     search={"m": {"max_leafs": [4]}})
    assert (info.value.reason, info.value.parameter) == ("ignored", "max_leafs")
    with pytest.raises(ModelCheckError, match="Ridge has no parameter 'alpah'. Did you mean "
                       "'alpha'") as info:
        check_models({"r": Ridge()}, [("d", DATA)], search={"r": {"alpah": [1.0]}})
    assert (info.value.reason, info.value.parameter) == ("unknown", "alpah")


def test_scikit_learn_estimators_are_not_trial_fitted_by_default():
    class Counting(Ridge):
        fits = 0

        def fit(self, X, y, sample_weight=None):
            type(self).fits += 1
            return super().fit(X, y, sample_weight=sample_weight)

    assert check_models({"r": Counting(alpha=5.0)}, [("d", DATA)]) is None
    assert Counting.fits == 0
    check_models({"r": Counting(alpha=5.0)}, [("d", DATA)], params={"r": ["alpha"]})
    assert Counting.fits == 1  # asked for: the two together, which pass


def test_a_model_that_ranks_by_no_relevance_is_warned_of():
    from sklearn.cluster import KMeans

    with pytest.warns(ModelCheckWarning, match="model 'km': KMeans is a clusterer") as caught:
        check_models({"km": KMeans(n_clusters=2, n_init=1), "r": Ridge()}, [("d", DATA)])
    (warning,) = [w.message for w in caught]
    assert (warning.label, warning.reason, warning.estimator_type,
            warning.predictions) == ("km", "kind", "clusterer", "cluster labels")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_models({"r": Ridge()}, [("d", DATA)])


def test_build_model_checks_and_requests_the_query_ids():
    import sklearn

    ranker = build_model("sklearn_rank.lightgbm:LGBMRanker", {"num_leaves": 7})
    assert ranker.get_params()["num_leaves"] == 7
    with sklearn.config_context(enable_metadata_routing=True):
        assert ranker.get_metadata_routing().fit.requests["qid"] is True
    with pytest.raises(ModelImportError, match="StandardScaler has no predict") as info:
        build_model("sklearn.preprocessing:StandardScaler")
    assert info.value.spec == "sklearn.preprocessing:StandardScaler"
    with pytest.raises(ModelImportError, match="unknown model 'lamdarank'. Did you mean "
                       "'lambdarank'"):
        build_model("lamdarank")
    with pytest.raises(ModelCheckError, match="model 'r': Ridge has no parameter 'alpah'. "
                       "Did you mean 'alpha'") as info:
        build_model("sklearn.linear_model:Ridge", {"alpha": 2.0, "alpah": 1.0}, label="r")
    assert (info.value.reason, info.value.parameter, info.value.value) == ("unknown", "alpah",
                                                                          1.0)
    assert info.value.estimator.get_params()["alpha"] == 2.0  # as built before it
    # the seed goes to a random_state left unset; the catalogue's models get it too
    assert build_model("sklearn.linear_model:Ridge", random_state=3).random_state == 3
    assert build_model("lambdarank", n_estimators=7, random_state=3).get_params()[
        "n_estimators"] == 7


def test_a_model_s_errors_are_its_library_s_refusals():
    """What fitting a built-in model raises on what a user gave it: ValueError, TypeError and
    its library's own error, imported; a model without one has the first two."""
    from sklearn_rank.benchmark import MODELS

    assert MODELS["lambdarank"].errors() == (ValueError, TypeError,
                                             lightgbm.basic.LightGBMError)
    assert MODELS["pointwise"].errors()[2] is lightgbm.basic.LightGBMError
    xgboost = pytest.importorskip("xgboost")
    assert MODELS["xgboost"].errors()[2] is xgboost.core.XGBoostError


def test_check_ranking_data_names_the_data_and_the_parameter():
    X, y, qid = DATA
    data = RankingDataset(X, y - 1.0, qid, source="train.txt")
    with pytest.raises(DataSourceError) as info:
        check_ranking_data(data, n_splits=3)
    error = info.value
    assert (error.path, error.parameter, error.cause) == ("train.txt", "source", "data")
    row = int(np.argmax(y - 1.0 < 0)) + 1
    assert error.location == f"row {row}"
    assert error.describe({"source": "--test"}).startswith(
        f"--test train.txt: the grade of data row {row} is -1")
    with pytest.raises(DataSourceError) as info:
        check_ranking_data(data, n_splits=20, grades=False)
    assert (info.value.parameter, info.value.path) == ("n_splits", "train.txt")
    assert info.value.describe({"n_splits": "--n-splits"}) == (
        "train.txt holds 12 queries, fewer than --n-splits 20; each fold needs at least one "
        "test query.")
    check_ranking_data(data, n_splits=12, grades=False)


def test_check_file_says_why_a_file_cannot_be_read(tmp_path):
    with pytest.raises(DataSourceError) as info:
        check_file(tmp_path)
    assert (info.value.path, info.value.parameter) == (str(tmp_path), "source")
    assert "is a directory; expected a file" in str(info.value)
    (tmp_path / "f.txt").write_text("x")
    assert check_file(tmp_path / "f.txt") == tmp_path / "f.txt"


def test_cli_refuses_an_ignored_parameter_of_a_booster_class_of_one_s_own(capsys):
    # --model MODULE:CLASS of a booster: its --set goes through the library's trial fits
    # as a built-in model's does, and the message keeps the command line's words
    code, out, err = run_cli(capsys, "cv", "--n-queries", 12, "--n-splits", 2,
                             "--n-estimators", 2, "--model", "pointwise", "--model",
                             "sklearn_rank.lightgbm:LGBMRanker", "--set", "num_leafs=7", "-q")
    assert code == 2, err
    assert ("--set 'num_leafs=7': LGBMRanker would ignore 'num_leafs' in LGBMRanker: it is "
            "not one of its parameters. Did you mean 'num_leaves'?") in err
    assert out == ""


def test_cli_runs_settings_that_are_valid_only_together(capsys):
    # main refused this trio: "--set 'boosting_type=rf': LGBMRanker refuses
    # boosting_type='rf'", since each --set was tried alone first
    code, out, err = run_cli(capsys, "cv", "--n-queries", 12, "--n-splits", 2,
                             "--n-estimators", 2, "--model", "pointwise", "--model",
                             "lambdarank", "--set", "boosting_type=rf", "--set",
                             "subsample=0.5", "--set", "subsample_freq=1", "-q")
    assert code == 0, err
    assert "boosting_type='rf'" in out
