"""The fences around the boosters' private code, the adapters' hooks, and the one version.

Each booster's private code is used in one function, in ``sklearn_rank/<booster>/_internals.py``:

=========  ===============================  ===========================================  =======
booster    function                         private code it relies on                    checked
=========  ===============================  ===========================================  =======
LightGBM   ``edit_booster_params``          ``LGBMModel._process_params(self, stage)``,  4.7.0
                                            called by ``fit`` and ``predict``
XGBoost    ``fit_with_custom_metric``       ``XGBModel._configure_fit(self, booster,     3.2.0
                                            params, feature_weights)``, its 2nd return
                                            value as ``train``'s ``custom_metric``
CatBoost   ``set_booster_params``           ``_init_params`` (dict of the set            1.2.10
                                            parameters), ``_canonized_params`` (cache)
=========  ===============================  ===========================================  =======

"checked" lists the versions on which these tests passed (each module's ``CHECKED_VERSIONS``):
the installed ones. The floors of ``pyproject.toml`` (lightgbm 4.0, xgboost 3.1, catboost 1.2)
were not checked. When a test here fails, the message names the private method or attribute
that changed; mend the one function, run this file, and add the version to the table.

scikit-learn's private names (nine, and the private module of ``validate_params``) are all
imported through ``sklearn_rank/utils/_sklearn_internals.py``, checked against its
``CHECKED_VERSIONS`` (1.9.1) here: a release that moves or changes one fails naming it, and
no other module may import a private scikit-learn name.
"""

import ast
import importlib.metadata
import inspect
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

import sklearn_rank
from sklearn_rank._adapters import (
    HOOKS,
    RankerAdapter,
    group_queries,
    held_out_queries,
    query_weight,
)
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=20, random_state=0)


def _changed(booster, module, what):
    """The failure message: which private API changed, in which version, where to mend it."""
    return (
        f"{booster.__name__} {booster.__version__} changed {what}, which "
        f"sklearn_rank/{booster.__name__}/_internals.py relies on (checked against "
        f"{booster.__name__} {', '.join(module.CHECKED_VERSIONS)}). Mend the function there."
    )


def _parameters(function):
    return list(inspect.signature(function).parameters)


# --------------------------------------------------------------------------------------
# LightGBM: edit_booster_params overrides LGBMModel._process_params
# --------------------------------------------------------------------------------------


def test_lightgbm_process_params_is_still_there():
    import lightgbm

    from sklearn_rank.lightgbm import _internals

    method = getattr(lightgbm.LGBMModel, "_process_params", None)
    assert callable(method), _changed(lightgbm, _internals,
                                      "LGBMModel._process_params (it is gone)")
    assert _parameters(method) == ["self", "stage"], _changed(
        lightgbm, _internals,
        f"the signature of LGBMModel._process_params: {inspect.signature(method)}")


def test_lightgbm_calls_process_params_in_fit_and_predict(data):
    import lightgbm

    from sklearn_rank.lightgbm import LGBMRanker, _internals

    X, y, qid = data
    seen = []

    def record(ranker, params):
        seen.append(dict(params))
        return params

    @_internals.edit_booster_params(record)
    class Recording(LGBMRanker):
        pass

    model = Recording(n_estimators=3, verbose=-1).fit(X, y, qid=qid)
    assert seen, _changed(lightgbm, _internals, "LGBMModel.fit: it no longer calls "
                          "self._process_params, so the adapter's parameters reach the booster")
    n_fit = len(seen)
    model.predict(X)
    assert len(seen) > n_fit, _changed(lightgbm, _internals, "LGBMModel.predict: it no longer "
                                       "calls self._process_params")
    # what the booster got: none of the adapter's own parameters
    own = {"qid_column", "scoring", "validation_fraction", "early_stopping_rounds"}
    assert not own & set(model.booster_.params), _changed(
        lightgbm, _internals, "how LGBMModel.fit passes _process_params' result to the booster")


def test_lightgbm_booster_monitors_scoring_only(data):
    """Early stopping on ``scoring`` sets the booster's metric to "None" for that fit."""
    import lightgbm

    from sklearn_rank.lightgbm import LGBMRanker, _internals

    X, y, qid = data
    model = LGBMRanker(n_estimators=5, early_stopping_rounds=2, random_state=0,
                       verbose=-1).fit(X, y, qid=qid)
    assert model.booster_.params["metric"] == ["None"], _changed(
        lightgbm, _internals, "the metric parameter that _process_params gives the booster")
    assert list(model.evals_result_["valid_0"]) == ["ndcg@10"]
    assert model._monitor_scoring_only is False  # for this fit only


# --------------------------------------------------------------------------------------
# XGBoost: fit_with_custom_metric overrides XGBModel._configure_fit for one fit
# --------------------------------------------------------------------------------------


def test_xgboost_configure_fit_is_still_there():
    xgboost = pytest.importorskip("xgboost")
    from sklearn_rank.xgboost import _internals

    method = getattr(xgboost.XGBModel, "_configure_fit", None)
    assert callable(method), _changed(xgboost, _internals, "XGBModel._configure_fit (gone)")
    assert _parameters(method) == ["self", "booster", "params", "feature_weights"], _changed(
        xgboost, _internals,
        f"the signature of XGBModel._configure_fit: {inspect.signature(method)}")


def test_xgboost_fit_takes_the_custom_metric_and_the_attributes(data):
    """On XGBoost's own ranker: the metric computed on the whole DMatrix, early stopping
    maximising it, and the estimator as it was afterwards."""
    xgboost = pytest.importorskip("xgboost")
    from sklearn_rank.xgboost import _internals, eval_metric

    X, y, qid = data
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    metric = eval_metric("ndcg@5")
    model = xgboost.XGBRanker(n_estimators=40, max_depth=3, early_stopping_rounds=2)
    callbacks = [xgboost.callback.EarlyStopping(rounds=2, metric_name=metric.__name__,
                                                maximize=True)]
    attributes = {"eval_metric": None, "early_stopping_rounds": None, "callbacks": callbacks}
    _internals.fit_with_custom_metric(
        model, metric, attributes,
        lambda: model.fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[qid], verbose=False))
    history = model.evals_result()["validation_0"]
    assert list(history) == ["ndcg@5"], _changed(
        xgboost, _internals, "XGBModel.fit: the custom_metric returned by _configure_fit does "
        f"not reach xgboost.train alone (metrics logged: {list(history)})")
    # XGBoost logs six decimals
    best = model.best_iteration
    expected = evaluate(y, model.predict(X, iteration_range=(0, best + 1)), qid=qid,
                        metrics=["ndcg@5"])["ndcg@5"]
    assert_allclose(history["ndcg@5"][best], expected, atol=1e-6)
    assert best == int(np.argmax(history["ndcg@5"])), _changed(
        xgboost, _internals, "XGBModel.fit: the callbacks attribute is not read during fit")
    assert "_configure_fit" not in vars(model)
    assert (model.eval_metric, model.early_stopping_rounds, model.callbacks) == (None, 2, None)


def test_xgboost_restores_the_estimator_when_fit_raises():
    xgboost = pytest.importorskip("xgboost")
    from sklearn_rank.xgboost import _internals, eval_metric

    model = xgboost.XGBRanker(n_estimators=3, eval_metric="ndcg")

    def fit():
        assert model.eval_metric is None and "_configure_fit" in vars(model)
        raise RuntimeError("the booster failed")

    with pytest.raises(RuntimeError, match="the booster failed"):
        _internals.fit_with_custom_metric(model, eval_metric("ndcg@5"), {"eval_metric": None},
                                          fit)
    assert "_configure_fit" not in vars(model) and model.eval_metric == "ndcg"


# --------------------------------------------------------------------------------------
# CatBoost: set_booster_params writes _init_params and empties _canonized_params
# --------------------------------------------------------------------------------------


def test_catboost_private_parameters_are_still_there():
    catboost = pytest.importorskip("catboost")
    from sklearn_rank.catboost import _internals

    model = catboost.CatBoostRanker(iterations=3, depth=None)
    assert isinstance(getattr(model, "_init_params", None), dict), _changed(
        catboost, _internals, "_init_params, the dict of the parameters set")
    assert model._init_params.get("iterations") == 3 and "depth" not in model._init_params, (
        _changed(catboost, _internals,
                 f"what __init__ keeps in _init_params: {model._init_params}"))
    assert hasattr(model, "_canonized_params"), _changed(
        catboost, _internals, "_canonized_params, the cache of the canonical parameters")


def test_catboost_next_fit_uses_the_parameters_set_on_a_fitted_model(data):
    catboost = pytest.importorskip("catboost")
    from sklearn_rank.catboost import _internals

    X, y, qid = data
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    model = catboost.CatBoostRanker(iterations=3, depth=2, verbose=0, allow_writing_files=False,
                                    thread_count=1).fit(X, y, group_id=qid)
    _internals.set_booster_params(model, {"iterations": 5, "depth": None, "thread_count": -1})
    assert model.get_params() == {"iterations": 5, "verbose": 0, "allow_writing_files": False,
                                  "loss_function": "YetiRank"}
    model.fit(X, y, group_id=qid)
    params = model.get_all_params()
    assert (model.tree_count_, params["depth"]) == (5, 6), _changed(
        catboost, _internals, "how fit reads the parameters: _canonized_params=None no "
        "longer makes it rebuild them from _init_params")


# --------------------------------------------------------------------------------------
# The adapters' hooks
# --------------------------------------------------------------------------------------


def _adapters():
    from sklearn_rank.lightgbm import LGBMRanker

    pytest.importorskip("xgboost")
    pytest.importorskip("catboost")
    from sklearn_rank.catboost import CatBoostRanker
    from sklearn_rank.xgboost import XGBRanker

    return [LGBMRanker, XGBRanker, CatBoostRanker]


def test_every_adapter_implements_exactly_the_declared_hooks():
    assert set(HOOKS) == {"_check_labels", "_check_sizes", "_early_stopping_requested",
                          "_holdout_random_state"}
    for adapter in _adapters():
        missing = [hook for hook in HOOKS if getattr(adapter, hook) is getattr(RankerAdapter, hook)]
        assert not missing, f"{adapter.__name__} lacks {missing}"


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_a_hook_of_the_base_says_what_it_must_return(hook):
    from sklearn_rank.lightgbm import LGBMRanker

    base_hook = getattr(RankerAdapter, hook)
    n_args = len(inspect.signature(base_hook).parameters) - 1
    with pytest.raises(NotImplementedError,
                       match=rf"LGBMRanker does not implement {hook}.*it must return"):
        base_hook(LGBMRanker(), *[None] * n_args)


def test_an_adapter_missing_a_hook_is_refused_before_fitting(data):
    """Even when nothing would call the hook in this fit (no early stopping here)."""
    from sklearn_rank.lightgbm import LGBMRanker

    class Forgetful(LGBMRanker):
        _holdout_random_state = RankerAdapter._holdout_random_state
        _check_sizes = RankerAdapter._check_sizes

    X, y, qid = data
    message = (r"Forgetful does not implement the hook\(s\) \['_check_sizes', "
               r"'_holdout_random_state'\].*_holdout_random_state: return the seed")
    with pytest.raises(NotImplementedError, match=message):
        Forgetful(n_estimators=2, verbose=-1).fit(X, y, qid=qid)


# --------------------------------------------------------------------------------------
# The query-set plumbing
# --------------------------------------------------------------------------------------


def test_group_queries_keeps_grouped_rows_and_sorts_the_others_stably():
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 2, 0, 1, 2])
    grouped = group_queries(X, y, np.array([5, 5, 1, 1, 1, 3]))
    assert not grouped.reordered and grouped.X is X
    assert grouped.sizes.tolist() == [2, 3, 1] and grouped.query_ids.tolist() == [5, 1, 3]
    mixed = group_queries(X, y, np.array(["b", "a", "b", "a", "c", "a"]),
                          sample_weight=np.arange(6.0), extras={"margin": np.arange(6),
                                                                "unused": None})
    assert mixed.reordered and mixed.qid.tolist() == ["a", "a", "a", "b", "b", "c"]
    assert mixed.sizes.tolist() == [3, 2, 1]
    assert mixed.extras["margin"].tolist() == [1, 3, 5, 0, 2, 4]
    assert mixed.sample_weight.tolist() == [1, 3, 5, 0, 2, 4] and "unused" not in mixed.extras


def test_a_query_set_without_rows_has_no_queries():
    query_set = group_queries(np.zeros((3, 1)), np.arange(3), np.array([7, 7, 8]))
    assert query_set.codes.tolist() == [0, 0, 1] and query_set.query_ids.tolist() == [7, 8]
    empty = query_set.take(np.array([], dtype=np.intp))
    assert empty.n_queries == 0 and empty.codes.size == 0 and empty.query_ids.size == 0


def test_held_out_queries_are_whole_and_leave_one_to_train():
    held = held_out_queries(10, 0.25, 0)
    assert held.sum() == 3  # ceil(2.5)
    assert held_out_queries(2, 0.99, 0).sum() == 1  # at least one kept
    assert held_out_queries(50, 0.01, 0).sum() == 1  # at least one held
    assert (held_out_queries(10, 0.25, np.random.default_rng(3))
            == held_out_queries(10, 0.25, np.random.default_rng(3))).all()
    query_set = group_queries(np.zeros((6, 1)), np.arange(6), np.array([0, 0, 1, 1, 1, 2]))
    kept, out = query_set.split(np.array([False, True, False]))
    assert kept.qid.tolist() == [0, 0, 2] and out.qid.tolist() == [1, 1, 1]


def test_query_weight_is_the_engines_mean_weight_of_each_query():
    sizes = np.array([2, 3, 1])
    weight = np.array([1.0, 3.0, 2.0, 2.0, 5.0, 0.5])
    assert_allclose(query_weight(sizes, weight), [2.0, 3.0, 0.5], rtol=0, atol=0)
    assert query_weight(sizes, None) is None
    # sums that overflow float64 are rescaled, as the metrics rescale them: never inf
    huge = query_weight(sizes, np.full(6, 1e308))
    assert np.isfinite(huge).all() and np.ptp(huge) == 0


def test_row_weights_are_checked_with_the_callers_name(data):
    from sklearn_rank.lightgbm import LGBMRanker

    X, y, qid = data
    weight = np.ones(len(y))
    weight[3] = np.nan
    with pytest.raises(ValueError, match=r"sample_weight for LGBMRanker\.fit must hold finite "
                                         r"non-negative numbers; got min=1\.0, and 1 NaN"):
        LGBMRanker().fit(X, y, qid=qid, sample_weight=weight)
    # all NaN: no minimum to show, and the same ValueError (not numpy's All-NaN warning)
    with pytest.raises(ValueError, match=r"sample_weight for LGBMRanker\.fit must hold finite "
                                         r"non-negative numbers; got no finite value, and "):
        LGBMRanker().fit(X, y, qid=qid, sample_weight=np.full(len(y), np.nan))


# --------------------------------------------------------------------------------------
# scikit-learn: its private names, all imported through utils/_sklearn_internals.py
# --------------------------------------------------------------------------------------

# The signature each private function or class is called with (None: only its presence).
SKLEARN_SIGNATURES = {
    "_BaseScorer": None,
    "_cached_call": ["cache", "estimator", "response_method", "args", "kwargs"],
    "_MultimetricScorer": ["scorers", "raise_exc"],
    "_raise_for_params": ["params", "owner", "method", "allow"],
    "_check_response_method": ["estimator", "response_method"],
    "_MetadataRequester": None,
    "_safe_indexing": ["X", "indices", "axis"],
    "_SubsampleMetaSplitter": ["base_cv", "fraction", "subsample_test", "random_state"],
    "_validate_shuffle_split": ["n_samples", "test_size", "train_size", "default_test_size"],
}


def _sklearn_changed(what):
    import sklearn

    from sklearn_rank.utils import _sklearn_internals

    return (f"scikit-learn {sklearn.__version__} changed {what}, which "
            f"sklearn_rank/utils/_sklearn_internals.py relies on (checked against scikit-learn "
            f"{', '.join(_sklearn_internals.CHECKED_VERSIONS)}). Mend it there.")


def test_every_sklearn_private_name_is_checked():
    from sklearn_rank.utils import _sklearn_internals

    assert set(SKLEARN_SIGNATURES) == set(_sklearn_internals.PRIVATE_NAMES)


@pytest.mark.parametrize("name", sorted(SKLEARN_SIGNATURES))
def test_sklearn_private_name_is_still_there(name):
    from sklearn_rank.utils import _sklearn_internals

    where = f"{_sklearn_internals.PRIVATE_NAMES[name]}.{name}"
    try:
        value = getattr(_sklearn_internals, name)
    except (ImportError, AttributeError):
        pytest.fail(_sklearn_changed(f"{where} (it is gone)"))
    expected = SKLEARN_SIGNATURES[name]
    if expected is not None:
        assert _parameters(value) == expected, _sklearn_changed(
            f"the signature of {where}: {inspect.signature(value)}")


def test_sklearn_private_scorer_methods_are_still_there():
    # RankingScorer overrides _score, which _FoldScorer calls on every _BaseScorer
    from sklearn.metrics import get_scorer

    scorer = get_scorer("r2")
    from sklearn_rank.utils._sklearn_internals import _BaseScorer

    assert isinstance(scorer, _BaseScorer), _sklearn_changed("the base of its scorers")
    assert _parameters(type(scorer)._score)[:5] == [
        "self", "method_caller", "estimator", "X", "y_true"], _sklearn_changed(
        f"the signature of _Scorer._score: {inspect.signature(type(scorer)._score)}")


@pytest.mark.parametrize("name", ["validate_params", "validate_parameter_constraints",
                                  "InvalidParameterError", "Interval", "StrOptions", "Options"])
def test_sklearn_param_validation_name_is_still_there(name):
    from sklearn_rank.utils import _sklearn_internals

    assert name in _sklearn_internals.PARAM_VALIDATION_NAMES
    module = _sklearn_internals.param_validation
    assert module.__name__ == _sklearn_internals.PARAM_VALIDATION_MODULE
    assert hasattr(module, name), _sklearn_changed(
        f"{_sklearn_internals.PARAM_VALIDATION_MODULE}.{name} (it is gone)")


def test_the_subsample_meta_splitter_is_recognised_by_name():
    from sklearn.model_selection import KFold

    from sklearn_rank.utils._sklearn_internals import (
        _SubsampleMetaSplitter,
        is_subsample_meta_splitter,
    )

    meta = _SubsampleMetaSplitter(base_cv=KFold(2), fraction=0.5, subsample_test=True,
                                  random_state=0)
    assert is_subsample_meta_splitter(meta), _sklearn_changed(
        "the name or module of _SubsampleMetaSplitter")
    assert meta.fraction == 0.5
    assert not is_subsample_meta_splitter(KFold(2))


def _sklearn_private_uses(source):
    """The private scikit-learn modules and names a module's source imports or names."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (
                node.module == "sklearn" or node.module.startswith("sklearn.")):
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            yield from (name for name in names if re.search(r"\._", name))
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if re.match(r"sklearn\..*\._", a.name))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield from re.findall(r"^sklearn(?:\.\w+)*\._\w+$", node.value)


def test_no_other_module_imports_sklearns_private_names():
    offenders = [f"{path.relative_to(ROOT)}: {name}"
                 for path in sorted((ROOT / "sklearn_rank").rglob("*.py"))
                 if path.name != "_sklearn_internals.py"
                 for name in _sklearn_private_uses(path.read_text())]
    assert not offenders, "import them through sklearn_rank/utils/_sklearn_internals.py:\n" + (
        "\n".join(offenders))


def test_the_fence_imports_no_sklearn():
    # the light modules (registry, command line, parameter validation) import the fence
    code = ("import sys; import sklearn_rank.utils._sklearn_internals, "
            "sklearn_rank.utils._param_validation; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------------------
# One version
# --------------------------------------------------------------------------------------


def test_the_installed_version_is_the_packages():
    assert sklearn_rank.__version__ == importlib.metadata.version("sklearn-rank"), (
        "The installed metadata is stale: reinstall with pip install -e .")


def test_the_version_is_written_once():
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"] and "version" in config["project"]["dynamic"]
    dynamic = config["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "sklearn_rank._version.__version__"}
    # a literal in a leaf module, which setuptools reads without importing the package
    source = (ROOT / "sklearn_rank" / "_version.py").read_text()
    assert re.search(r'^__version__ = "[^"]+"$', source, flags=re.M)
    assert not re.search(r"^\s*(import|from) ", source, flags=re.M), "_version.py is a leaf"
    # and nowhere else: the package re-exports it, every reader imports it
    for path in (ROOT / "sklearn_rank").rglob("*.py"):
        if path.name != "_version.py":
            assert not re.search(r"^\s*__version__ = ", path.read_text(), flags=re.M), path
