"""Conventions: the defaults of sklearn-rank and the presets that reproduce other systems.

Every option that differs between libraries (gain, tie handling, the value of a query without
relevant documents, the AP@k denominator...) is an explicit keyword of the metric functions,
``None`` by default. ``None`` resolves, in order, to the preset's value when ``convention=`` is
given, then to sklearn-rank's default below. An explicit keyword always wins.

The presets only fix what the named system defines; each entry says why, and
``tests/test_reference_implementations.py`` proves each claim against the system itself.
"""

import numpy as np

# sklearn-rank's own defaults, used where neither the caller nor a preset says otherwise.
DEFAULTS = {
    "gain": "exponential",
    "ties": "average",
    "no_relevant": 0.0,
    "ap_denominator": "all",
    "short_lists": "k",
    "relevance_threshold": 1.0,
    "max_grade": None,
    "log_base": 2.0,
}

# Per system: options common to all its metrics under "*", then per-metric overrides
# (keys are the short metric names of the registry: "ndcg", "map", "precision", ...).
CONVENTIONS = {
    # NIST trec_eval: linear gain (the judgement is the gain), relevance = judgement >= 1,
    # ties broken by document name descending (order rows that way and use "stable"),
    # AP and recall divide by all relevant documents, P@k always divides by k, a query
    # without relevant documents scores 0.
    "trec_eval": {
        "*": {
            "gain": "linear",
            "ties": "stable",
            "no_relevant": 0.0,
            "ap_denominator": "all",
            "short_lists": "k",
            "relevance_threshold": 1.0,
        },
    },
    # LightGBM's ndcg@k and map@k (metric/rank_metric.hpp, map_metric.hpp): label_gain
    # 2^i - 1, stable sort by score, a query without relevant documents scores 1.
    "lightgbm": {
        "*": {"gain": "exponential", "ties": "stable", "no_relevant": 1.0},
        "map": {"ap_denominator": "min_k", "relevance_threshold": 1.0},
    },
    # XGBoost's ndcg@k, map@k, pre@k (metric/rank_metric.cc): exponential gain,
    # stable sort by prediction, a query without relevant documents scores 1 ("ndcg-"/"map-"
    # variants score 0: pass no_relevant=0.0).
    "xgboost": {
        "*": {"gain": "exponential", "ties": "stable", "no_relevant": 1.0},
        "map": {"ap_denominator": "found"},
        "precision": {"short_lists": "k"},
    },
    # scikit-learn's ndcg_score / dcg_score: linear gain, ties averaged (McSherry & Najork),
    # a query without relevant documents scores 0.
    "sklearn": {
        "*": {"gain": "linear", "ties": "average", "no_relevant": 0.0},
    },
    # CatBoost's ranking metrics (NDCG type=Base: linear gain).
    "catboost": {
        "*": {"gain": "linear", "ties": "stable", "no_relevant": 0.0},
    },
    # torchmetrics' retrieval metrics: linear gain, ties averaged in nDCG,
    # empty_target_action="neg" (a query without relevant documents scores 0).
    "torchmetrics": {
        "*": {"gain": "linear", "ties": "average", "no_relevant": 0.0},
    },
}

CONVENTION_NAMES = tuple(sorted(CONVENTIONS))


def resolve(metric, convention, options):
    """Fill the unset (``None``) options of ``metric`` from ``convention`` and the defaults.

    Parameters
    ----------
    metric : str
        Short metric name of the registry ("ndcg", "map", ...).
    convention : str or None
        Preset name, or None for sklearn-rank's defaults.
    options : dict
        The caller's options; ``None`` means "not set". Only the keys present are resolved.
    """
    preset = {}
    if convention is not None:
        try:
            table = CONVENTIONS[convention]
        except KeyError:
            raise ValueError(
                f"Unknown convention {convention!r}. Valid conventions are: "
                f"{', '.join(map(repr, CONVENTION_NAMES))}."
            ) from None
        preset = {**table.get("*", {}), **table.get(metric, {})}
    resolved = {}
    for name, value in options.items():
        if value is None:
            value = preset.get(name, DEFAULTS.get(name))
        resolved[name] = value
    return resolved


def no_relevant_value(value):
    """Normalise the no_relevant option to a float or the string "raise"."""
    if isinstance(value, str):
        return value
    return float(value) if not np.isnan(value) else float("nan")
