"""CatBoost, query-aware: a ranker with per-row query ids in any order.

Needs the optional dependency CatBoost: ``pip install "sklearn-rank[catboost]"``.

- :class:`CatBoostRanker`: :class:`catboost.CatBoostRanker` with ``qid=`` in any order (or a
  query-id column), metadata routing, scikit-learn's ``get_params``/``set_params``/``clone``
  contract, leakage-free early stopping and a ranking ``score``.
"""

from ._ranker import CatBoostRanker

__all__ = ["CatBoostRanker"]
