"""Group-aware ranking metrics on flat arrays ``y_true, y_score, qid``.

Every metric returns the mean over queries of a per-query value; conventions (gain, ties,
queries without relevant documents, cut-off denominators...) are explicit keywords, and
``convention=`` presets reproduce trec_eval, LightGBM, XGBoost, scikit-learn, CatBoost and
torchmetrics.
"""

from .._conventions import CONVENTION_NAMES, CONVENTIONS, DEFAULTS
from ._ranking import (
    dcg_score,
    err_score,
    half_life_utility_score,
    hit_rate_score,
    hits_score,
    kendall_tau_score,
    map_score,
    mrr_score,
    ndcg_score,
    pairwise_accuracy_score,
    precision_score,
    r_precision_score,
    rbp_score,
    recall_score,
    spearman_score,
)
from ._registry import get_metric_names, parse_metric
from ._result import PerQueryResult, aggregate, evaluate, evaluate_per_query
from ._scorer import RankingScorer, get_scorer, get_scorer_names, make_ranking_scorer

__all__ = [
    "CONVENTIONS",
    "CONVENTION_NAMES",
    "DEFAULTS",
    "PerQueryResult",
    "RankingScorer",
    "aggregate",
    "dcg_score",
    "err_score",
    "evaluate",
    "evaluate_per_query",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "half_life_utility_score",
    "hit_rate_score",
    "hits_score",
    "kendall_tau_score",
    "make_ranking_scorer",
    "map_score",
    "mrr_score",
    "ndcg_score",
    "pairwise_accuracy_score",
    "parse_metric",
    "precision_score",
    "r_precision_score",
    "rbp_score",
    "recall_score",
    "spearman_score",
]
