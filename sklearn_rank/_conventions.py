"""Conventions: the defaults of sklearn-rank and the presets that reproduce other systems.

Every option that differs between libraries (gain, tie handling, the value of a query without
relevant documents, the AP@k denominator...) is an explicit keyword of the metric functions,
``None`` by default. ``None`` resolves, in order, to the preset's value when ``convention=`` is
given, then to sklearn-rank's default below. An explicit keyword always wins.

The presets only fix what the named system defines, and only for the metrics it has
(:data:`CONVENTION_METRICS`): a metric that the system does not compute keeps sklearn-rank's
defaults under its preset, as no value of that system exists to reproduce. Each entry says why,
and ``tests/test_reference_implementations.py`` proves each claim against the system itself.
"""

import numpy as np

# sklearn-rank's own defaults, used where neither the caller nor a preset says otherwise. The
# one place where these values are written: the metric registry (metrics/_registry.py) reads
# its options' defaults from here, as this module must stay light (numpy only) for the command
# line. log_base is no convention; it is here because DEFAULTS has always listed it.
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

# Defaults of options that only one metric takes and that a preset may set: the same name
# means another thing elsewhere (ERR's persistence is 1.0 and no convention sets it).
METRIC_DEFAULTS = {
    "rbp": {"persistence": 0.8, "graded": False},
    "rbp_residual": {"persistence": 0.8, "all_judged": "tail"},
}

# Per system: options common to all its metrics under "*", then per-metric overrides
# (keys are the registry's metric names: "ndcg", "map", "precision", ...). Each entry was
# established from the system's source and checked against the system itself by
# tests/test_reference_implementations.py. What a preset cannot set (it would change the
# input) is said in the comment and in the documentation's preset table.
# "label > 0.5" (LightGBM, CatBoost) as the inclusive threshold of relevance_threshold.
_ABOVE_HALF = float(np.nextafter(0.5, 1.0))

CONVENTIONS = {
    # NIST trec_eval (m_ndcg.c, m_map.c, m_P.c...): the judgement is the gain, relevance is
    # judgement >= 1 (-l sets relevance_threshold), AP and recall divide by all relevant
    # documents, unretrieved ones included (pass retrieved=), P@k always divides by k, and a
    # query without relevant documents scores 0. trec_eval breaks score ties by document
    # name, descending: order rows that way and "stable" reproduces it. pytrec_eval stores
    # scores as float32.
    "trec_eval": {
        "*": {
            "gain": "linear",
            "ties": "stable",
            "no_relevant": 0.0,
            "ap_denominator": "all",
            "short_lists": "k",
            "relevance_threshold": 1.0,
        },
        # m_rbp.c: p = 0.9, and each judgement divided by the query's largest judgement
        # (out.test.aql, graded 0-4, shows it; -l does not apply).
        "rbp": {"persistence": 0.9, "graded": True, "max_grade": "query"},
        # m_rbp.c's rbp_resid: p = 0.9, and 0 for a query whose ranked documents are all
        # judged (the residual is only computed where one is not)
        "rbp_residual": {"persistence": 0.9, "all_judged": "zero"},
    },
    # LightGBM ndcg@k and map@k (rank_metric.hpp, map_metric.hpp): label_gain 2^i - 1,
    # std::stable_sort by score, a query without relevant documents scores 1, AP@k divides
    # by min(R, k), relevance is label > 0.5.
    "lightgbm": {
        "*": {"gain": "exponential", "ties": "stable", "no_relevant": 1.0},
        "map": {"ap_denominator": "min_k", "relevance_threshold": _ABOVE_HALF},
    },
    # XGBoost ndcg@k, map@k, pre@k (rank_metric.cc): 2^y - 1 (ndcg_exp_gain=True), stable
    # sort, ndcg and map of a query without relevant documents are 1 (the "ndcg-"/"map-"
    # variants: pass no_relevant=0.0), AP@k divides by min(R, k), pre@k divides short lists
    # by their length and has no special case. XGBoost holds predictions as float32: cast
    # y_score to float32 to see the same ties.
    "xgboost": {
        "*": {"gain": "exponential", "ties": "stable", "no_relevant": 1.0},
        "map": {"ap_denominator": "min_k"},
        "precision": {"short_lists": "length", "no_relevant": 0.0},
    },
    # scikit-learn ndcg_score / dcg_score: linear gain, ties averaged (McSherry & Najork),
    # a query without relevant documents scores 0.
    "sklearn": {
        "*": {"gain": "linear", "ties": "average", "no_relevant": 0.0},
    },
    # CatBoost (dcg.cpp, doc_comparator.h, precision_recall_at_k.cpp): NDCG type=Base is
    # linear gain; equal scores put the LOWER target first; NDCG and RecallAt of a query
    # without relevant documents are 1, the others 0; MAP:top divides by min(R, top) (its
    # documentation says: by the relevant documents found), PrecisionAt by min(top, n);
    # relevance is label > 0.5; ERR takes the raw label as the stopping probability.
    # CatBoost ignores weights in MAP, PrecisionAt and RecallAt.
    "catboost": {
        "*": {
            "gain": "linear",
            "ties": "pessimistic",
            "no_relevant": 0.0,
            "relevance_threshold": _ABOVE_HALF,
        },
        "ndcg": {"no_relevant": 1.0},
        "recall": {"no_relevant": 1.0},
        "map": {"ap_denominator": "min_k"},
        "precision": {"short_lists": "length"},
        "err": {"max_grade": 1.0},
    },
    # torchmetrics retrieval metrics: linear gain, nDCG ties averaged as in scikit-learn,
    # empty_target_action="neg" (0), AP@k divides by the relevant documents found in the
    # top k, P@k by k. AP, RR, P and R count a relevant document with a score <= 0 as not
    # relevant: pass retrieved=y_score > 0 to reproduce that, and for P without top_k (or
    # with adaptive_k) short_lists="rows": torchmetrics divides by the whole list then.
    # torchmetrics computes in float32.
    "torchmetrics": {
        "*": {"gain": "linear", "ties": "average", "no_relevant": 0.0},
        "map": {"ap_denominator": "found"},
        "precision": {"short_lists": "k"},
    },
}

CONVENTION_NAMES = tuple(sorted(CONVENTIONS))

# Per system: the metrics of the registry that it computes, the only ones its preset sets.
# Any other metric keeps sklearn-rank's defaults under the preset: ERR under "trec_eval"
# is the ERR of gdeval and of the default, not ERR with trec_eval's linear gain, which no
# system computes. tests/test_conventions_scope.py checks the trec_eval set against the
# measures of sklearn-rank's trec_eval command (metrics/_trec_names.py).
CONVENTION_METRICS = {
    # every registry metric behind one of trec_eval's measures (m_*.c)
    "trec_eval": frozenset({
        "bing", "bpref", "dcg", "eleven_point_average", "g", "gm_bpref", "gm_map",
        "hit_rate", "infap", "iprec_at_recall", "map", "mrr", "ndcg", "ndcg_rel",
        "num_nonrel_judged_ret", "num_q", "num_rel", "num_rel_ret", "num_ret", "precision",
        "r_precision", "rbp", "rbp_residual", "recall", "relative_p", "rndcg", "rprec_mult",
        "set_f", "set_map", "set_p", "set_recall", "set_relative_p", "unjudged_rate",
        "utility", "yaap",
    }),
    # ndcg@k and map@k
    "lightgbm": frozenset({"ndcg", "map"}),
    # ndcg@k, map@k and pre@k
    "xgboost": frozenset({"ndcg", "map", "precision"}),
    # ndcg_score and dcg_score
    "sklearn": frozenset({"ndcg", "dcg"}),
    # NDCG, DCG, ERR, MRR, MAP, PrecisionAt, RecallAt
    "catboost": frozenset({"ndcg", "dcg", "err", "mrr", "map", "precision", "recall"}),
    # RetrievalNormalizedDCG, RetrievalMAP, RetrievalMRR, RetrievalPrecision, RetrievalRecall,
    # RetrievalHitRate, RetrievalRPrecision, RetrievalFallOut
    "torchmetrics": frozenset({"ndcg", "map", "mrr", "precision", "recall", "hit_rate",
                               "r_precision", "fallout"}),
}


def convention_defines(convention, metric):
    """Whether the system of preset ``convention`` computes ``metric`` (a registry name):
    only then does the preset set its options. True for ``convention=None``."""
    return convention is None or metric in CONVENTION_METRICS[convention]


def resolve(metric, convention, options):
    """Fill the unset (``None``) options of ``metric`` from ``convention`` and the defaults.

    Parameters
    ----------
    metric : str
        Short metric name of the registry ("ndcg", "map", ...).
    convention : str or None
        Preset name, or None for sklearn-rank's defaults. A preset sets the options of the
        metrics of its system only (:data:`CONVENTION_METRICS`); the others keep the
        defaults.
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
        if metric in CONVENTION_METRICS[convention]:
            preset = {**table.get("*", {}), **table.get(metric, {})}
    defaults = {**DEFAULTS, **METRIC_DEFAULTS.get(metric, {})}
    resolved = {}
    for name, value in options.items():
        if value is None:
            value = preset.get(name, defaults.get(name))
        resolved[name] = value
    return resolved


def no_relevant_value(value):
    """Normalise the no_relevant option to a float or the string "raise"."""
    if isinstance(value, str):
        return value
    return float(value) if not np.isnan(value) else float("nan")
