"""XGBoost, query-aware: a ranker with per-row query ids, and sklearn-rank eval metrics.

Needs the optional dependency XGBoost: ``pip install "sklearn-rank[xgboost]"``.

- :class:`XGBRanker`: :class:`xgboost.XGBRanker` with ``qid=`` in any order (or a query-id
  column), metadata routing, leakage-free early stopping, sklearn-rank metric names as
  ``eval_metric`` and a ranking ``score``.
- :func:`eval_metric`: any sklearn-rank metric (ERR@k above all, which XGBoost lacks) as an
  XGBoost custom metric, equal to :mod:`sklearn_rank.metrics` on the same predictions.
"""

from ._eval_metric import eval_metric
from ._ranker import XGBRanker

__all__ = ["XGBRanker", "eval_metric"]
