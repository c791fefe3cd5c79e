"""Statistics for comparing rankers on per-query values: paired tests, confidence intervals,
multiple comparisons, and results tables.

Inputs are per-query metric values: plain arrays aligned by position, ``(qid, values)``
tuples aligned by query id, dicts or DataFrames of columns, or the output of
:func:`sklearn_rank.model_selection.cross_validate` with ``return_per_query=True``. Every
statistic comes from :mod:`scipy.stats`.
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
