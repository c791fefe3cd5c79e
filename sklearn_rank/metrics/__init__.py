"""Group-aware ranking metrics on flat arrays ``y_true, y_score, qid``.

Every metric returns the mean over queries of a per-query value; conventions (gain, ties,
queries without relevant documents, cut-off denominators...) are explicit keywords, and
``convention=`` presets reproduce trec_eval, LightGBM, XGBoost, scikit-learn, CatBoost and
torchmetrics.
"""

from ..utils._lazy import lazy_exports

# Module -> its public names, loaded on first use: the registry and the engine need numpy
# only; the public functions' validation and the scorers import scikit-learn.
_EXPORTS = {
    ".._conventions": (
        "CONVENTION_METRICS", "CONVENTION_NAMES", "CONVENTIONS", "DEFAULTS",
    ),
    "._ranking": (
        "bing_score", "bpref_score", "dcg_score", "eleven_point_average_score",
        "err_score", "f1_score", "fallout_score", "g_score", "gm_bpref_score",
        "gm_map_score", "half_life_utility_score", "hit_rate_score", "hits_score",
        "infap_score", "iprec_at_recall_score", "judged_score", "kendall_tau_score",
        "map_score", "mrr_score", "ndcg_rel_score", "ndcg_score",
        "num_nonrel_judged_ret_score", "num_q_score", "num_rel_ret_score", "num_rel_score",
        "num_ret_score", "pairwise_accuracy_score", "precision_score", "r_precision_score",
        "rbp_residual_score", "rbp_score", "recall_score", "relative_p_score",
        "rndcg_score", "rprec_mult_score", "set_f_score", "set_map_score", "set_p_score",
        "set_recall_score", "set_relative_p_score", "spearman_score",
        "unjudged_rate_score", "utility_score", "yaap_score",
    ),
    "._dask": (
        "SplitQueryError",
    ),
    "._engine": (
        "GradeError",
    ),
    "._evaluate": (
        "evaluate", "evaluate_per_query",
    ),
    "._names": (
        "parse_metric",
    ),
    "._registry": (
        "get_metric_names",
    ),
    "._result": (
        "PerQueryResult", "TiedScoresWarning", "aggregate",
    ),
    "._scorer": (
        "RankingScorer", "get_scorer", "get_scorer_names", "make_ranking_scorer",
    ),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
