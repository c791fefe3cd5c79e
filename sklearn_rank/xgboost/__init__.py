"""XGBoost, query-aware: a ranker with per-row query ids, and sklearn-rank eval metrics.

Needs the optional dependency XGBoost: ``pip install "sklearn-rank[xgboost]"``.

- :class:`XGBRanker`: :class:`xgboost.XGBRanker` with ``qid=`` in any order (or a query-id
  column), metadata routing, leakage-free early stopping, sklearn-rank metric names as
  ``eval_metric`` and a ranking ``score``.
- :func:`eval_metric`: any sklearn-rank metric (ERR@k above all, which XGBoost lacks) as an
  XGBoost custom metric, equal to :mod:`sklearn_rank.metrics` on the same predictions.
- :class:`DaskXGBRanker`: :class:`xgboost.dask.DaskXGBRanker` with per-row query ids in any
  order and partition, sklearn-rank eval metrics across workers and a ranking ``score``
  (needs the ``dask`` extra; imported on first use, as ``xgboost.dask`` imports Dask).
"""

from ._eval_metric import eval_metric
from ._ranker import XGBRanker

__all__ = ["DaskXGBRanker", "XGBRanker", "eval_metric"]


def __getattr__(name):
    # xgboost.dask imports Dask: only when the Dask ranker is asked for
    if name == "DaskXGBRanker":
        from ._dask import DaskXGBRanker

        return DaskXGBRanker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
