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

from ._compare import Comparison, ComparisonResult, adjust_pvalues, compare
from ._paired import (
    ConfidenceInterval,
    MeanEstimate,
    PairedTestResult,
    bootstrap_ci,
    paired_test,
)
from ._store import StoredRun, load_store

__all__ = [
    "Comparison",
    "ComparisonResult",
    "ConfidenceInterval",
    "MeanEstimate",
    "PairedTestResult",
    "StoredRun",
    "adjust_pvalues",
    "bootstrap_ci",
    "compare",
    "load_store",
    "paired_test",
]
