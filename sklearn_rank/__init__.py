"""sklearn-rank: evaluate and tune learning-to-rank models in the scikit-learn ecosystem.

Subpackages
-----------
metrics
    Group-aware ranking metrics on flat arrays ``y_true, y_score, qid``.
datasets
    Generated learning-to-rank data sets.
"""

__version__ = "0.1.0.dev0"

from . import datasets, metrics
from .metrics import get_scorer, get_scorer_names, make_ranking_scorer

__all__ = [
    "__version__",
    "datasets",
    "get_scorer",
    "get_scorer_names",
    "make_ranking_scorer",
    "metrics",
]
