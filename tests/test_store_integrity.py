"""A results store never mixes or mislabels numbers: a resumed benchmark run reuses a stored
unit only for the same computation (a model whose nested estimator or whose class code
changed is computed again), and a run whose provenance was edited by hand is refused with
the store, the run and the field named (real SQLite stores, real module files)."""

import importlib
import json
import os
import shutil
import sqlite3
import sys
import textwrap
import types

import pytest
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

from sklearn_rank.benchmark import (
    StoreError,
    load_store,
    report_tables,
    run_benchmark,
    write_report,
)
from sklearn_rank.datasets import make_ranking

DATA = make_ranking(30, noise=1.0, random_state=0)


def _mean(result):
    return result.summary()[0]["mean"]


def _long_pipeline(degree):
    # a repr past scikit-learn's 700 characters: the middle step is left out of it
    scalers = [StandardScaler(with_mean=False, copy=False) for _ in range(6)]
    return make_pipeline(*scalers, PolynomialFeatures(degree=degree, include_bias=False),
                         *scalers, Ridge(alpha=10.0))


def test_a_nested_estimator_that_prints_alike_is_not_taken_for_the_same(tmp_path):
    """Two meta-estimators whose regressors differ only where scikit-learn's repr elides:
    the resumed run must compute the new model, not read the old one's folds."""
    before, after = (TransformedTargetRegressor(regressor=_long_pipeline(d)) for d in (1, 2))
    assert repr(before) == repr(after)  # what made the keys equal
    store = tmp_path / "s.sqlite"
    old = run_benchmark({"m": before}, DATA, n_splits=3, store=store)
    resumed = run_benchmark({"m": after}, DATA, n_splits=3, store=store, resume=True)
    fresh = run_benchmark({"m": after}, DATA, n_splits=3)
    assert _mean(old) != _mean(fresh)
    assert _mean(resumed) == _mean(fresh)


@pytest.fixture
def module_folder(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("edited_ranker", None)


def test_a_user_class_edited_between_runs_is_computed_again(module_folder):
    """A model of the user's class (given as an object) edited between a run and its
    resumption: the command line fingerprints a MODULE:CLASS's code; a Python run must too."""
    source = textwrap.dedent("""
        from sklearn.linear_model import Ridge

        class EditedRanker(Ridge):
            def predict(self, X):
                return SIGN super().predict(X)
        """)
    path = module_folder / "edited_ranker.py"
    path.write_text(source.replace("SIGN", ""))
    import edited_ranker

    store = module_folder / "s.sqlite"
    old = run_benchmark({"m": edited_ranker.EditedRanker()}, DATA, n_splits=3, store=store)
    path.write_text(source.replace("SIGN", "-"))
    importlib.reload(edited_ranker)
    resumed = run_benchmark({"m": edited_ranker.EditedRanker()}, DATA, n_splits=3,
                            store=store, resume=True)
    fresh = run_benchmark({"m": edited_ranker.EditedRanker()}, DATA, n_splits=3)
    assert _mean(old) != _mean(fresh)
    assert _mean(resumed) == _mean(fresh)
    # unchanged code resumes: the stored units are taken, nothing is added
    again = run_benchmark({"m": edited_ranker.EditedRanker()}, DATA, n_splits=3,
                          store=store, resume=True)
    assert again.run_id == resumed.run_id
    assert _mean(again) == _mean(fresh)


@pytest.fixture
def notebook_module():
    """A module without ``__file__``, as a Jupyter notebook's ``__main__``: its classes are
    made by ``exec`` of a cell's text."""
    module = types.ModuleType("notebook_cells")
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def test_a_notebook_class_edited_between_runs_is_computed_again(notebook_module, tmp_path):
    """A class of a module without a file (a notebook cell) edited between a run and its
    resumption: before, only its base classes' files were hashed, so the resumed run
    reused the old code's folds (a silent wrong number)."""
    cell = textwrap.dedent("""
        from sklearn.linear_model import Ridge

        class CellRanker(Ridge):
            def predict(self, X):
                return SIGN super().predict(X)
        """)

    def run(sign, **kwargs):
        exec(cell.replace("SIGN", sign), notebook_module.__dict__)
        return run_benchmark({"m": notebook_module.CellRanker()}, DATA, n_splits=3, **kwargs)

    assert not hasattr(notebook_module, "__file__")
    store = tmp_path / "s.sqlite"
    old = run("", store=store)
    resumed = run("-", store=store, resume=True)
    fresh = run("-")
    assert _mean(old) != _mean(fresh)
    assert _mean(resumed) == _mean(fresh)
    # the same code run again in the cell resumes: the stored units are taken
    again = run("-", store=store, resume=True)
    assert again.run_id == resumed.run_id and _mean(again) == _mean(fresh)


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    store = tmp_path_factory.mktemp("stored") / "s.sqlite"
    data = {"a": make_ranking(12, random_state=0), "b": make_ranking(12, random_state=1)}
    run_benchmark({"r": Ridge(), "q": Ridge(alpha=5.0)}, data, n_splits=2, n_repeats=2,
                  store=store)
    return store


def _edited(stored_run, tmp_path, edit):
    store = tmp_path / "edited.sqlite"
    shutil.copy(stored_run, store)
    with sqlite3.connect(store) as connection:
        provenance = json.loads(connection.execute("SELECT provenance FROM runs").fetchone()[0])
        edit(provenance)
        connection.execute("UPDATE runs SET provenance = ?", (json.dumps(provenance),))
    connection.close()
    return store


@pytest.mark.parametrize("edit, says", [
    (lambda p: p.pop("metrics"), "field 'metrics' is not what a run writes: expected a JSON "
     "object of metric name -> canonical key; got missing"),
    (lambda p: p.update(metrics=["ndcg@10"]), "field 'metrics' is not what a run writes: "
     'expected a JSON object of metric name -> canonical key; got ["ndcg@10"]'),
    (lambda p: p.update(models=["r", "q"]), "field 'models'"),
    (lambda p: p.update(seeds="0,1"), "field 'seeds'"),
    (lambda p: p.update(versions=["numpy"]), "field 'versions'"),
    # the units' axes no longer in the provenance: each unit would be filed under another
    (lambda p: p.pop("datasets"), "has a unit of dataset 'a' (of 'r', fold 0), which its "
     "provenance field 'datasets' (null) lacks"),
    (lambda p: p["datasets"].pop("b"), "has a unit of dataset 'b'"),
    (lambda p: p.update(seeds=[5, 6]), "has a unit of seed 0 (of 'r', fold 0), which its "
     "provenance field 'seeds' ([5, 6]) lacks"),
])
def test_a_hand_edited_provenance_is_refused_naming_the_store_and_the_field(
        stored_run, tmp_path, edit, says):
    store = _edited(stored_run, tmp_path, edit)
    for read in (lambda: load_store(store), lambda: report_tables(store),
                 lambda: write_report(store, tmp_path / "report.html")):
        with pytest.raises(StoreError) as caught:
            read()
        message = str(caught.value)
        assert message.startswith(f"{str(store)!r}: run 1") and says in message, message
        assert "restore the field, or the store from a copy" in message


def test_a_provenance_without_versions_still_reports(stored_run, tmp_path):
    store = _edited(stored_run, tmp_path, lambda p: p.update(versions=None))
    reported = write_report(store, tmp_path / "report.html")
    assert [run["id"] for run in reported] == [1]
    assert "Versions" in (tmp_path / "report.html").read_text()


@pytest.mark.parametrize("link", ["itself", "symlink", "hardlink", "relative"])
def test_a_report_written_over_its_store_is_refused(stored_run, tmp_path, link, monkeypatch):
    """write_report(store, path) with path the store itself, or a link to it: before, the
    page replaced every stored run."""
    store = tmp_path / "s.sqlite"
    shutil.copy(stored_run, store)
    before = store.read_bytes()
    path = {"itself": store, "symlink": tmp_path / "page.html",
            "hardlink": tmp_path / "page.html", "relative": "s.sqlite"}[link]
    if link == "symlink":
        path.symlink_to(store)
    elif link == "hardlink":
        os.link(store, path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"is the results store .*; writing the report there "
                                         r"would replace the stored runs"):
        write_report(store, path)
    assert store.read_bytes() == before
    assert load_store(store).metrics == ["ndcg@10"]
