"""Statistics for comparing rankers on per-query values: paired tests, confidence intervals,
multiple comparisons, and results tables.

Inputs are per-query metric values, aligned by query id: the
:class:`~sklearn_rank.metrics.PerQueryResult` of
:func:`~sklearn_rank.metrics.evaluate_per_query`, ``(qid, values)`` tuples, dicts or
DataFrames with a ``"qid"`` column or indexed by query id, or the output of
:func:`sklearn_rank.model_selection.cross_validate` with ``return_per_query=True``; plain
arrays without ids are aligned by position, and only with other arrays. Every statistic
comes from :mod:`scipy.stats`.
"""

from ..utils._lazy import lazy_exports

# Module -> its public names, loaded on first use: the results table that the command line
# prints (``._table``) needs numpy only, the statistics import SciPy.
_EXPORTS = {
    "._across": (
        "AcrossDatasetsResult", "FriedmanResult", "PairwiseTest", "compare_datasets",
    ),
    "._bayes": ("BayesianComparison", "bayesian_correlated_ttest", "bayesian_signed_rank_test"),
    "._compare": ("Comparison", "ComparisonResult", "adjust_pvalues", "compare"),
    "._paired": (
        "ConfidenceInterval", "MeanEstimate", "PairedTestResult", "bootstrap_ci", "paired_test",
    ),
    "._power": ("QuerySetSize", "query_set_size"),
    "._seeds": ("SeedSpread", "SeedSummary", "seed_summary"),
    # the results store lives in sklearn_rank.benchmark; its reader stays importable here
    "..benchmark._store": ("StoredRun", "load_store"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
