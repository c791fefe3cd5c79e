"""Benchmark runs: models x data sets x seeds x folds, a results store with resume, a report.

:func:`run_benchmark` cross-validates models on the same folds of whole queries of one or
several data sets, the split repeated over seeds; each unit of work (a model on a fold of a
data set under a seed) can be written to a SQLite results store as it ends, and a killed
run resumed (``resume=True``). :func:`load_store` reads a stored run back, and
:func:`write_report` writes an HTML page of a store's runs.

The public names come in two tiers (``_USER`` and ``_BUILDING_BLOCKS`` below; the API
reference lists them in the same two groups):

* **Running a benchmark** (most users need nothing else): :func:`run_benchmark` and its
  :class:`BenchmarkResult` (with its :class:`BenchmarkTables`); :func:`run_search` (a
  search of one model's parameters, over :func:`search_candidates`) and its
  :class:`SearchResult`; :func:`load_store`, :class:`StoredRun` and :class:`ResultsStore`
  to read a store back; :func:`write_report` and :func:`report_tables` for the report;
  :class:`StoreError` and :class:`RunExistsError`, what a store raises. ``sklearn-rank
  cv``, ``tune`` and ``report`` are shells over these.
* **Building blocks**, what those functions are made of, for a runner of one's own (another
  split, another search) and for the command line's options: :func:`benchmark_tasks` lays
  out the units of work of a run (:class:`Task`, :class:`Unit`), :func:`run_units` runs
  them in parallel processes and hands each :class:`UnitResult` to a :class:`Recorder`
  (such as a :class:`StoreRecorder`) as it ends, :func:`assemble_folds` gathers the
  results; :func:`unit_scoring`, :func:`processes`, :func:`repeat_seeds`,
  :class:`ProgressLine` (a progress display for ``progress=``), :func:`library_versions`,
  :func:`seed_mean` and :func:`seed_spread` are the pieces around them; :data:`MODELS` (of
  :class:`Model`), :func:`build_model` and :func:`import_object`
  (:class:`ModelImportError`), :func:`code_fingerprint`, :func:`ignored_params` and
  :func:`check_models` (:class:`ModelCheckError`, :class:`ModelCheckWarning`) are the
  models' side; :func:`report_html` is :func:`write_report`'s page as a string.

Everything else in the private modules is internal and may change without notice.
"""

from ..utils._lazy import lazy_exports

# Running a benchmark, and reading and reporting its results.
_USER = {
    "._benchmark": ("BenchmarkResult", "run_benchmark"),
    "._report": ("report_tables", "write_report"),
    "._search": ("SearchResult", "run_search", "search_candidates"),
    "._store": ("ResultsStore", "RunExistsError", "StoreError", "StoredRun", "load_store"),
    "._tables": ("BenchmarkTables",),
}
# What those are made of, for a runner of one's own and the command line's options;
# each documented.
_BUILDING_BLOCKS = {
    "._benchmark": ("assemble_folds", "benchmark_tasks", "repeat_seeds"),
    "._models": ("MODELS", "Model", "ModelCheckError", "ModelCheckWarning", "ModelImportError",
                 "build_model", "check_models", "code_fingerprint", "ignored_params",
                 "import_object"),
    "._progress": ("ProgressLine",),
    "._report": ("report_html",),
    "._runner": ("processes", "run_units", "unit_scoring"),
    "._store": ("StoreRecorder",),
    "._values": ("seed_mean", "seed_spread"),
    "._units": ("Recorder", "Task", "Unit", "UnitResult", "library_versions"),
}
# Module -> its public names, loaded on first use: the command line's argument builders
# import the model table (standard library only) without scikit-learn.
_EXPORTS = {module: _USER.get(module, ()) + _BUILDING_BLOCKS.get(module, ())
            for module in {**_USER, **_BUILDING_BLOCKS}}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
