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

import importlib

from ._version import __version__

# Subpackages load on first use (PEP 562), as scikit-learn's do: `import sklearn_rank` and
# `sklearn-rank --help` then do not pay for scikit-learn, scipy and pandas.
_SUBPACKAGES = {"datasets", "metrics", "model_selection", "plot", "preprocessing", "stats",
                "lightgbm", "xgboost", "catboost", "utils"}
_FROM_METRICS = {"get_scorer", "get_scorer_names", "make_ranking_scorer"}

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


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    if name in _FROM_METRICS:
        return getattr(importlib.import_module(".metrics", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})
