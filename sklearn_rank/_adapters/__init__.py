"""What the booster adapters share: query ids in, the boosters' grouping out, scores back.

The adapters :class:`sklearn_rank.lightgbm.LGBMRanker`, :class:`sklearn_rank.xgboost.XGBRanker`
and :class:`sklearn_rank.catboost.CatBoostRanker` subclass the boosters' own rankers. Everything
they have in common is here, written once, in three layers:

- :mod:`._queries`, the query-set plumbing, functions on arrays that the Dask rankers run per
  partition too: query ids come per row, as ``qid=`` (routed metadata, requested by default)
  or as a column of a DataFrame ``X`` (read, then dropped so the model never sees it as a
  feature); without either, ``fit`` and ``score`` raise, naming both ways and the
  transformer in a pipeline that most often loses the column: all rows form one query only
  when asked for, with ``qid="single_query"``. Rows are sorted stably by query when the
  queries are not contiguous, and the boosters get the grouping they want (group sizes,
  group ids, one weight per query as the metrics compute it). Eval sets carry their own
  query ids (``eval_qid``, or their own column). With early stopping and no eval set, a
  ``validation_fraction`` of the training queries, whole queries drawn with the estimator's
  random state, is held out as the eval set, so that no query is both trained and monitored
  on;
- :mod:`._params` and :mod:`._base`: the adapters' own parameters and ``__init__``
  signature, and :class:`RankerAdapter`, whose hooks (:data:`HOOKS`) each adapter implements;
  ``predict`` works row by row, so scores come back in the caller's row order, and ``score``
  computes the ``scoring`` metric with :mod:`sklearn_rank.metrics`;
- :mod:`._eval_metric`, the eval-metric bridge: the booster eval metrics of
  :func:`sklearn_rank.lightgbm.eval_metric` and :func:`sklearn_rank.xgboost.eval_metric` share
  :class:`BoosterEvalMetric`, and :func:`split_eval_metrics` parts an ``eval_metric`` between
  the booster and sklearn-rank.

What each booster's private code is used for sits in one function per booster, in
``sklearn_rank/{lightgbm,xgboost,catboost}/_internals.py``.
"""

from ._base import HOOKS, RankerAdapter
from ._eval_metric import BoosterEvalMetric, split_eval_metrics
from ._params import OWN_PARAMETERS, OWN_PARAMETERS_DOC, adapter_signature
from ._queries import (
    SINGLE_QUERY,
    QuerySet,
    check_grades,
    group_queries,
    held_out_queries,
    query_weight,
)

__all__ = [
    "HOOKS",
    "OWN_PARAMETERS",
    "OWN_PARAMETERS_DOC",
    "SINGLE_QUERY",
    "BoosterEvalMetric",
    "QuerySet",
    "RankerAdapter",
    "adapter_signature",
    "check_grades",
    "group_queries",
    "held_out_queries",
    "query_weight",
    "split_eval_metrics",
]
