"""Plots in scikit-learn's Display idiom: metric-at-k curves, per-query differences, searches,
critical difference diagrams.

Every display is made by a ``from_predictions``, ``from_estimator`` or ``from_cv_results``
class method, draws itself with ``.plot(ax=...)`` and keeps the drawn data as arrays and the
matplotlib objects as ``ax_``, ``figure_`` and the artists. matplotlib is an optional
dependency, imported only when a display draws: ``pip install "sklearn-rank[plot]"``.
"""

from ._critical_difference import CriticalDifferenceDisplay
from ._cutoff import MetricAtKDisplay
from ._differences import PerQueryDifferenceDisplay
from ._search import ParameterSearchDisplay

__all__ = [
    "CriticalDifferenceDisplay",
    "MetricAtKDisplay",
    "ParameterSearchDisplay",
    "PerQueryDifferenceDisplay",
]
