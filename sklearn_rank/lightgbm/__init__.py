"""LightGBM, query-aware: a ranker with per-row query ids, and sklearn-rank eval metrics.

- :class:`LGBMRanker`: :class:`lightgbm.LGBMRanker` with ``qid=`` (or a query-id column),
  metadata routing, leakage-free early stopping and a ranking ``score``.
- :func:`eval_metric`: any sklearn-rank metric (ERR@k above all, which LightGBM lacks) as a
  LightGBM eval metric, equal to :mod:`sklearn_rank.metrics` on the same predictions.
- :class:`DaskLGBMRanker`: :class:`lightgbm.dask.DaskLGBMRanker` with per-row query ids in
  any order and partition, early stopping on sklearn-rank metrics and a ranking ``score``
  (needs the ``dask`` extra; importing this module does not import Dask).
"""

from ._dask import DaskLGBMRanker
from ._eval_metric import eval_metric
from ._ranker import LGBMRanker

__all__ = ["DaskLGBMRanker", "LGBMRanker", "eval_metric"]
