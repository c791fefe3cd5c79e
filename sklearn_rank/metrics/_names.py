"""The grammar of metric names: a name read into its registry entry and the options it fixes.

Names follow the usual IR spelling, case-insensitive: a base name (a registry name or
alias), an optional cut-off ``@k`` and optional parameters in parentheses, before or after
the cut-off: ``"ndcg@10"``, ``"P@5"``, ``"AP"``, ``"RR@10"``, ``"ERR@20"``, ``"RBP(p=0.8)"``,
``"err@10(max_grade=4)"``, ``"AP(rel=2)@10"``. ir_measures' spellings that need one are
rewritten first (``IPrec@0.5``, ``NumRet(rel=1)``, ``SetF(beta=x)``), and a name that the
registry does not know goes to trec_eval's names (:func:`~sklearn_rank.metrics._trec_names.\
parse_trec_name`: ``"P_10"``, ``"ndcg_cut_10"``). Canonical keys, the names that read back
into the same options, are written by :meth:`Metric.key
<sklearn_rank.metrics._registry.Metric.key>`; :func:`parse_metric` reads them.

This module reads the registry and trec_eval's table of names, neither of which imports it;
:func:`~sklearn_rank.metrics._bound.bind_metric` is its one caller in the library.
"""

import difflib
import math
import re

import numpy as np

from ._registry import METRICS
from ._trec_names import parse_trec_name

__all__ = ["AMBIGUOUS", "parse_metric"]

_LOOKUP = {}
for _m in METRICS.values():
    for _n in (_m.name, *_m.aliases):
        _LOOKUP[_n] = _m

# Names that no metric answers to because they could mean more than one: base name -> the
# names to write instead, with what each means. "hit" is one letter from "hits" (a count,
# as in ranx) and reads as the hit rate (a rate, as "hit@k" in RecBole): either reading
# would give some users another number without a word.
AMBIGUOUS = {
    "hit": {
        "hit_rate": "the fraction of queries with a relevant document in the top k",
        "hits": "the number of relevant documents in the top k, as ranx's hits@k",
    },
}

# base name, then parameters and cut-off in either order: "err@10(max_grade=4)" (the IR
# spelling) or "AP(rel=2)@10" (ir_measures')
_NAME = re.compile(
    r"^\s*([a-z0-9][a-z0-9_\-]*?)\s*(?:\((.*?)\))?\s*(?:@\s*(\d+))?\s*(?:\((.*)\))?\s*$",
    re.ASCII,  # cut-offs of ASCII digits: int() reads "\u0661\u0660" as 10
)


# ir_measures' spellings whose parameters are not the registry's options: IPrec@0.5 (a
# recall level, not a cut-off), NumRet(rel=1) (NumRelRet), SetF(beta=x) (x is trec_eval's
# set_F parameter, the weight of recall: beta**2 of the F-beta measure)
_IR_IPREC = re.compile(r"^\s*iprec\s*(?:\((.*?)\))?\s*@\s*([0-9.]+)\s*(?:\((.*)\))?\s*$",
                       re.ASCII | re.IGNORECASE)
_IR_NAMED = re.compile(r"^\s*(numret|setf)\s*\((.*)\)\s*$", re.IGNORECASE)


def _ir_measures_name(name):
    """The registry's spelling of an ir_measures name that needs one, else None."""
    found = _IR_IPREC.match(name)
    if found:
        before, level, after = found.groups()
        given = ", ".join(p for p in (before, after) if p and p.strip())
        return f"iprec_at_recall(recall={level}{', ' + given if given else ''})"
    found = _IR_NAMED.match(name)
    if not found:
        return None
    base, parameters = found.group(1).lower(), found.group(2)
    items = [item for item in _split_parameters(parameters) if item.strip()]
    keys = [item.partition("=")[0].strip() for item in items]
    if base == "numret":
        return f"num_rel_ret({parameters})" if "rel" in keys else None
    for i, (key, item) in enumerate(zip(keys, items)):
        if key == "beta":
            try:
                weight = float(item.partition("=")[2])
            except ValueError:
                return None  # parse_metric says what is wrong
            if weight >= 0:
                items[i] = f"beta={math.sqrt(weight)!r}"
    return f"set_f({', '.join(items)})"


def _number(text):
    """An int when written as one (``10``, ``-3``), else a float (``1e1``, ``2.5``).

    Raises ValueError when ``text`` is not a number.
    """
    try:
        return int(text)  # exact: float() would round integers beyond 2**53
    except ValueError:
        return float(text)


def _split_parameters(text):
    """The ``key=value`` items of a name's parentheses: split at commas outside braces and
    brackets."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"{": 1, "}": -1, "[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _value(text):
    """A parameter value as written: a number, nan/true/false, a ``{grade: value, ...}``
    mapping, a ``[value, ...]`` list of numbers, else the text itself."""
    if text.startswith("[") and text.endswith("]"):
        return [_number(item.strip()) for item in text[1:-1].split(",") if item.strip()]
    if text.startswith("{") and text.endswith("}"):
        mapping = {}
        for pair in filter(None, (p.strip() for p in text[1:-1].split(","))):
            key, sep, value = (part.strip() for part in pair.partition(":"))
            if not sep:
                raise ValueError(f"expected 'grade: value' pairs in braces; got {pair!r}")
            mapping[_number(key)] = _number(value)
        return mapping
    try:
        return _number(text)
    except ValueError:
        return {"nan": np.nan, "true": True, "false": False}.get(text, text)


def parse_metric(name):
    """Split a metric name into its registry entry and the options it fixes.

    Names are case-insensitive: a registry name or alias, an optional cut-off ``@k`` and
    optional parameters in parentheses, before or after the cut-off (``"err@10(max_grade=4)"``,
    ``"AP(rel=2)@10"``); a mapping is written in braces (``"ndcg(gains={1: 3, 2: 9})"``).
    trec_eval's own measure names (``"P_10"``, ``"ndcg_cut_10"``, ``"iprec_at_recall_0.50"``)
    are read too; see :ref:`trec_eval`.

    Parameters
    ----------
    name : str
        E.g. ``"ndcg@10"``, ``"P@5"``, ``"RBP(p=0.8)"``, or a key of :meth:`Metric.key`.

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
    >>> metric, options = parse_metric("AP(rel=2)@10")
    >>> metric.name, options
    ('map', {'k': 10, 'relevance_threshold': 2})
    """
    if not isinstance(name, str):
        raise TypeError(f"A metric name must be a string such as 'ndcg@10'; got {name!r}.")
    spelled = _ir_measures_name(name)
    if spelled is not None:
        return parse_metric(spelled)
    match = _NAME.match(name.lower())
    if match and match.group(2) is not None and match.group(4) is not None:
        match = None  # parameters on both sides of the cut-off: not a name of ours
    if match and match.group(1) in AMBIGUOUS:
        raise ValueError(_ambiguous(name, match))
    metric = _LOOKUP.get(match.group(1)) if match else None
    if metric is None:
        found = parse_trec_name(name)
        if found is None:
            raise ValueError(_unknown(name))
        return found
    options = {}
    cutoff, parameters = match.group(3), match.group(2) or match.group(4)
    if cutoff is not None:
        if "k" not in metric.options:
            raise ValueError(f"{metric.name} takes no cut-off: {name!r} has '@{cutoff}'.")
        options["k"] = int(cutoff)
    if parameters:
        given = {"k": f"@{cutoff}"} if "k" in options else {}
        aliases = metric.option_aliases
        for item in _split_parameters(parameters):
            key, sep, value = (part.strip() for part in item.partition("="))
            spelled, key = key, aliases.get(key, key)
            if not sep or key not in metric.option_names:
                raise ValueError(
                    f"Cannot read the parameter {item.strip()!r} of metric {name!r}: "
                    f"expected key=value with a key among {sorted(metric.option_names)}."
                )
            if key in given:
                raise ValueError(
                    f"Metric {name!r} sets {key} twice ({given[key]!r} and "
                    f"{item.strip()!r}); which one was meant is not clear. Give it once."
                )
            given[key] = item.strip() if spelled == key else f"{item.strip()} ({key})"
            try:
                options[key] = _value(value)
            except ValueError as exc:
                raise ValueError(
                    f"Cannot read the value of {item.strip()!r} in metric {name!r}: {exc}."
                ) from None
    return metric, options


def _ambiguous(name, match):
    base, rest = match.group(1), name.strip()[len(match.group(1)):]
    meanings = "; ".join(f"{spelled + rest!r} for {meaning}"
                         for spelled, meaning in AMBIGUOUS[base].items())
    return (f"The metric name {name!r} is ambiguous: {base!r} could mean "
            f"{' or '.join(map(repr, AMBIGUOUS[base]))}. Write {meanings}.")


def _unknown(name):
    known = sorted(_LOOKUP)
    base = re.split(r"[@(]", str(name).lower())[0].strip()
    close = difflib.get_close_matches(base, known, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return (
        f"Unknown metric name {name!r}.{hint} Known metrics (add '@k' for a cut-off): "
        f"{', '.join(sorted(METRICS))}."
    )
