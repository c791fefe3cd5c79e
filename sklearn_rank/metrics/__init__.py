"""Group-aware ranking metrics on flat arrays ``y_true, y_score, qid``.

Every metric returns the mean over queries of a per-query value; conventions (gain, ties,
queries without relevant documents, cut-off denominators...) are explicit keywords, and
``convention=`` presets reproduce trec_eval, LightGBM, XGBoost, scikit-learn, CatBoost and
torchmetrics.
"""

from ..utils._lazy import lazy_exports

# Module -> its public names, loaded on first use: the registry and the engine need numpy
# only; the public functions' validation and the scorers import scikit-learn. The public
# function of each metric is not listed here: it is read from the registry (_metric_functions).
_EXPORTS = {
    ".._conventions": (
        "CONVENTION_METRICS", "CONVENTION_NAMES", "CONVENTIONS", "DEFAULTS",
    ),
    "._bound": (
        "BoundMetric", "bind_metric", "outside_convention",
    ),
    "._dask": (
        "SplitQueryError",
    ),
    "._input": (
        "GradeError",
    ),
    "._evaluate": (
        "EvaluationSummary", "evaluate", "evaluate_per_query", "evaluate_summary",
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
    "._trec_eval": (
        "TrecEvalError", "TrecEvalResult", "trec_eval",
    ),
    "._scorer": (
        "RankingScorer", "get_scorer", "get_scorer_names", "make_ranking_scorer",
        "needs_grade_scale",
    ),
}


def _metric_functions():
    """The public function of each metric of the registry -> the module of its family.

    Read on first use (``__all__``, ``dir()`` or a name that ``_EXPORTS`` lacks): the registry
    costs numpy, which ``import sklearn_rank.metrics`` does not pay.
    """
    from ._registry import METRICS

    return {metric.function_name: metric.module for metric in METRICS.values()}


# __all__ too: every name of _EXPORTS and of the registry, computed on first use
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, more=_metric_functions)
