"""Benchmark runs: models x data sets x seeds x folds, a results store with resume, a report.

:func:`run_benchmark` cross-validates models on the same folds of whole queries of one or
several data sets, the split repeated over seeds; each unit of work (a model on a fold of a
data set under a seed) can be written to a SQLite results store as it ends, and a killed
run resumed (``resume=True``). :func:`load_store` reads a stored run back, and
:func:`write_report` writes an HTML page of a store's runs. ``sklearn-rank cv``, ``tune``
and ``report`` are shells over these functions, and over the pieces they are made of:
:func:`benchmark_tasks` (the units of work of a run), :func:`run_units` (run them in
parallel processes, each result handed to a :class:`Recorder`, such as a
:class:`StoreRecorder`, as it ends) and :func:`assemble_folds`.
"""

from ..utils._lazy import lazy_exports

# Module -> its public names, loaded on first use: the command line's argument builders
# import the model table (standard library only) without scikit-learn.
_EXPORTS = {
    "._benchmark": ("BenchmarkResult", "assemble_folds", "benchmark_tasks", "repeat_seeds",
                    "run_benchmark"),
    "._models": ("MODELS", "Model", "ModelImportError", "boosters_quiet", "code_fingerprint",
                 "default_models", "fit_errors", "fit_params", "ignored_params",
                 "import_object"),
    "._report": ("RUN_SECTIONS", "report_html", "report_tables", "write_report"),
    "._runner": ("processes", "run_units", "unit_scoring"),
    "._store": ("ResultsStore", "RunExistsError", "StoreError", "StoreRecorder", "StoredRun",
                "load_store"),
    "._values": ("seed_mean", "seed_spread"),
    "._units": ("Recorder", "Task", "Unit", "UnitResult", "library_versions"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
