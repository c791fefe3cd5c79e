"""sklearn-rank: evaluate and tune learning-to-rank models in the scikit-learn ecosystem.

Subpackages
-----------
metrics
    Group-aware ranking metrics on flat arrays ``y_true, y_score, qid``.
model_selection
    Splitters over whole queries and a cross-validation helper that routes query ids.
preprocessing
    Transformers for ranking pipelines.
plot
    Display classes: metric at k, per-query differences, a search against a parameter.
stats
    Paired significance tests, confidence intervals and results tables over queries.
datasets
    Generated learning-to-rank data sets.
lightgbm, xgboost, catboost
    Adapters of the boosters' rankers taking per-row query ids (imported on demand).
"""

__version__ = "0.1.0.dev0"

from . import datasets, metrics, model_selection, plot, preprocessing, stats
from .metrics import get_scorer, get_scorer_names, make_ranking_scorer

__all__ = [
    "__version__",
    "datasets",
    "get_scorer",
    "get_scorer_names",
    "make_ranking_scorer",
    "metrics",
    "model_selection",
    "plot",
    "preprocessing",
    "stats",
]
