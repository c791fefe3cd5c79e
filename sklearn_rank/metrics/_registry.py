"""The one table of metric names, and :func:`evaluate`, which computes many from one sort.

Names follow the usual IR spelling, case-insensitive: a base name, an optional cut-off
``@k`` and optional parameters in parentheses, e.g. ``"ndcg@10"``, ``"P@5"``, ``"AP"``,
``"RR@10"``, ``"ERR@20"``, ``"RBP(p=0.8)"``, ``"err@10(max_grade=4)"``. The same table drives
the scorers, the command line and the documentation.
"""

import difflib
import re
from dataclasses import dataclass, field

import numpy as np

from ..utils._param_validation import validate_parameter_constraints, validate_params
from . import _per_query as pq
from . import _ranking
from ._engine import check_ranking_input
from ._ranking import CONSTRAINTS, score_data


@dataclass(frozen=True)
class Metric:
    """A metric of the registry: its public function, per-query kernel and options."""

    name: str
    function: object
    kernel: object
    options: tuple  # options of the kernel, besides no_relevant
    aliases: tuple = ()
    higher_is_better: bool = True
    fixed: dict = field(default_factory=dict)  # options the function sets that are not kernel's

    @property
    def constraints(self):
        keys = {"persistence": "err_persistence" if self.name == "err" else "rbp_persistence"}
        return {o: CONSTRAINTS[keys.get(o, o)] for o in (*self.options, "no_relevant")}


_POSITION = ("k", "ties")
_BINARY = ("k", "relevance_threshold", "ties")

METRICS = {
    m.name: m
    for m in (
        Metric("ndcg", _ranking.ndcg_score, pq.ndcg, ("k", "gain", "log_base", "ties")),
        Metric("dcg", _ranking.dcg_score, pq.dcg, ("k", "gain", "log_base", "ties")),
        Metric("err", _ranking.err_score, pq.err,
               ("k", "gain", "max_grade", "persistence", "ties")),
        Metric("rbp", _ranking.rbp_score, pq.rbp,
               ("k", "persistence", "graded", "max_grade", "relevance_threshold", "ties")),
        Metric("map", _ranking.map_score, pq.average_precision,
               (*_BINARY, "ap_denominator"), aliases=("ap", "average_precision")),
        Metric("mrr", _ranking.mrr_score, pq.reciprocal_rank, _BINARY,
               aliases=("rr", "recip_rank", "reciprocal_rank")),
        Metric("precision", _ranking.precision_score, pq.precision,
               (*_BINARY, "short_lists"), aliases=("p", "prec", "pre")),
        Metric("recall", _ranking.recall_score, pq.recall, _BINARY, aliases=("r",)),
        Metric("hit_rate", _ranking.hit_rate_score, pq.hit_rate, _BINARY,
               aliases=("success", "hits", "hit")),
        Metric("r_precision", _ranking.r_precision_score, pq.r_precision,
               ("relevance_threshold", "ties"), aliases=("rprec", "r-precision")),
        Metric("kendall_tau", _ranking.kendall_tau_score, pq.kendall_tau, (),
               aliases=("tau", "kendall")),
        Metric("spearman", _ranking.spearman_score, pq.spearman, (),
               aliases=("rho", "spearman_rho")),
        Metric("pairwise_accuracy", _ranking.pairwise_accuracy_score, pq.pairwise_accuracy,
               ("ties_credit",), aliases=("pairs", "concordant_pairs")),
        Metric("half_life_utility", _ranking.half_life_utility_score, pq.half_life_utility,
               ("k", "half_life", "default_rating", "ties"), aliases=("hlu",)),
    )
}

# Defaults of the options that are not conventions (not resolved through presets).
_PLAIN_DEFAULTS = {
    "log_base": 2.0,
    "persistence": None,  # metric-specific: filled per metric below
    "graded": False,
    "ties_credit": 0.5,
    "half_life": 5.0,
    "default_rating": 0.0,
}
_PERSISTENCE = {"err": 1.0, "rbp": 0.8}
# Parameter aliases accepted inside parentheses: "rbp(p=0.8)".
_PARAM_ALIASES = {"p": "persistence", "rel": "relevance_threshold", "l": "relevance_threshold"}

_LOOKUP = {}
for _m in METRICS.values():
    for _n in (_m.name, *_m.aliases):
        _LOOKUP[_n] = _m
_NAME = re.compile(r"^\s*([a-z_\-]+?)\s*(?:@\s*(\d+))?\s*(?:\((.*)\))?\s*$")


def _number(text):
    try:
        return int(text)  # exact: float() would round integers beyond 2**53
    except ValueError:
        value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def parse_metric(name):
    """Split a metric name into its registry entry and the options it fixes.

    Parameters
    ----------
    name : str
        E.g. ``"ndcg@10"``, ``"P@5"``, ``"RBP(p=0.8)"``.

    Returns
    -------
    metric : Metric
    options : dict

    Examples
    --------
    >>> from sklearn_rank.metrics import parse_metric
    >>> metric, options = parse_metric("nDCG@10")
    >>> metric.name, options
    ('ndcg', {'k': 10})
    """
    if not isinstance(name, str):
        raise TypeError(f"A metric name must be a string such as 'ndcg@10'; got {name!r}.")
    match = _NAME.match(name.lower())
    metric = _LOOKUP.get(match.group(1)) if match else None
    if metric is None:
        raise ValueError(_unknown(name))
    options = {}
    if match.group(2) is not None:
        if "k" not in metric.options:
            raise ValueError(f"{metric.name} takes no cut-off: {name!r} has '@{match.group(2)}'.")
        options["k"] = int(match.group(2))
    if match.group(3):
        given = {"k": f"@{match.group(2)}"} if "k" in options else {}
        for item in match.group(3).split(","):
            key, sep, value = (part.strip() for part in item.partition("="))
            spelled, key = key, _PARAM_ALIASES.get(key, key)
            if not sep or key not in (*metric.options, "no_relevant"):
                raise ValueError(
                    f"Cannot read the parameter {item.strip()!r} of metric {name!r}: "
                    f"expected key=value with a key among {sorted(metric.options)}."
                )
            if key in given:
                raise ValueError(
                    f"Metric {name!r} sets {key} twice ({given[key]!r} and "
                    f"{item.strip()!r}); which one was meant is not clear. Give it once."
                )
            given[key] = item.strip() if spelled == key else f"{item.strip()} ({key})"
            try:
                options[key] = _number(value)
            except ValueError:
                options[key] = {"nan": np.nan, "true": True, "false": False}.get(value, value)
    return metric, options


def _unknown(name):
    known = sorted(_LOOKUP)
    base = re.split(r"[@(]", str(name).lower())[0].strip()
    close = difflib.get_close_matches(base, known, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return (
        f"Unknown metric name {name!r}.{hint} Known metrics (add '@k' for a cut-off): "
        f"{', '.join(sorted(METRICS))}."
    )


def get_metric_names():
    """Names of the metrics of the registry, with their aliases.

    Returns
    -------
    names : dict
        Registry name -> tuple of aliases.

    Examples
    --------
    >>> from sklearn_rank.metrics import get_metric_names
    >>> get_metric_names()["map"]
    ('ap', 'average_precision')
    """
    return {m.name: m.aliases for m in METRICS.values()}


def metric_options(metric, fixed, options):
    """The kernel options of ``metric``: name-fixed, then caller's, then plain defaults."""
    out = {}
    for key in metric.options:
        if key in fixed:
            out[key] = fixed[key]
        elif key in options:
            out[key] = options[key]
        elif key == "persistence":
            out[key] = _PERSISTENCE[metric.name]
        else:
            out[key] = _PLAIN_DEFAULTS.get(key)
    out["no_relevant"] = fixed.get("no_relevant", options.get("no_relevant"))
    return out


def check_overridden(parsed, options, names, caller):
    """Raise if an option would have no effect: every metric taking it fixes it in its name.

    ``parsed`` holds ``(metric, fixed)`` pairs from :func:`parse_metric`; options fixed in a
    name win over ``options``, and an option that they all override is a mistake.
    """
    overridden = sorted(
        key for key in options
        if all(key in fixed for m, fixed in parsed if key in (*m.options, "no_relevant"))
    )
    if overridden:
        raise TypeError(
            f"{caller} got option(s) {overridden}, but every metric of {names} that takes "
            "them fixes them in its name, and options fixed in a name win: they would have "
            "no effect. Drop them, or drop them from the names."
        )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "qid": ["array-like", None],
        "metrics": [list, tuple, str],
        "sample_weight": ["array-like", None],
        "retrieved": ["array-like", None],
        "convention": CONSTRAINTS["convention"],
        "return_per_query": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def evaluate(y_true, y_score, *, qid=None, metrics=("ndcg@10", "map", "mrr"), sample_weight=None,
             retrieved=None, convention=None, return_per_query=False, **options):
    """Compute several ranking metrics at once, grouping and sorting the data once.

    Parameters
    ----------
    y_true, y_score, qid, sample_weight, retrieved, convention, return_per_query
        As in :func:`ndcg_score`.

    metrics : list of str or str, default: ``("ndcg@10", "map", "mrr")``
        Metric names, case-insensitive: ``"ndcg@10"``, ``"dcg@5"``, ``"err@20"``,
        ``"map"``/``"ap@10"``, ``"mrr"``/``"rr@10"``, ``"p@5"``, ``"r@100"``,
        ``"success@10"``/``"hit_rate@10"``, ``"rprec"``, ``"rbp(p=0.8)"``,
        ``"kendall_tau"``, ``"spearman"``, ``"pairwise_accuracy"``,
        ``"half_life_utility"``. See :func:`get_metric_names`.

    **options
        Options applied to every metric that takes them (``ties="stable"``,
        ``gain="linear"``, ``no_relevant=1.0``, ``max_grade=4``...). An option that no
        requested metric takes is an error. Options fixed in a name (``"rbp(p=0.5)"``) win;
        an option that every metric taking it fixes in its name would have no effect, and
        is an error too.

    Returns
    -------
    results : dict
        Metric name (as given) -> mean value, or per-query array with
        ``return_per_query=True``.

    Examples
    --------
    >>> from sklearn_rank.metrics import evaluate
    >>> y_true = [3, 0, 2, 1, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.4, 0.3, 0.6]
    >>> qid = [1, 2, 1, 2, 1, 2]
    >>> result = evaluate(y_true, y_score, qid=qid, metrics=["ndcg@2", "mrr", "P@1"])
    >>> {name: round(value, 4) for name, value in result.items()}
    {'ndcg@2': 0.587, 'mrr': 0.75, 'P@1': 0.5}
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics is empty: name at least one metric, e.g. ['ndcg@10'].")
    parsed = [(name, *parse_metric(name)) for name in names]
    accepted = {o for _, m, _ in parsed for o in (*m.options, "no_relevant")}
    unused = sorted(set(options) - accepted)
    if unused:
        raise TypeError(
            f"evaluate() got option(s) {unused} that none of the metrics {names} takes."
        )
    check_overridden([(m, fixed) for _, m, fixed in parsed], options, names, "evaluate()")
    data = check_ranking_input(y_true, y_score, qid, sample_weight, retrieved,
                               caller="evaluate")
    results = {}
    for name, metric, fixed in parsed:
        kernel_options = metric_options(metric, fixed, options)
        validate_parameter_constraints(
            metric.constraints, kernel_options, caller_name=f"evaluate (metric {name!r})"
        )
        results[name] = score_data(data, metric.name, metric.kernel, convention,
                                   kernel_options, return_per_query, name)
    return results

