"""trec_eval's measure names: the metric each one is, in trec_eval's order.

NIST's trec_eval names a measure by a root (``P``, ``ndcg_cut``, ``iprec_at_recall``...) and
its parameters: ``P_10`` in its output, ``-m P.5,10`` on its command line (two measures,
``P_5`` and ``P_10``). :data:`TREC_MEASURES` is the one table of the roots. Per root it gives
the metric of the registry that computes it, the option its parameters set, trec_eval's default
parameters and how trec_eval prints it; its order is trec_eval's (``measures.c``), the order of
its output lines. :data:`NICKNAMES` holds the sets of measures that ``-m`` names:
``official`` (trec_eval's default), ``set`` and ``all_trec``.

* :func:`parse_trec_name` reads one measure name, printed (``"P_10"``, ``"ndcg_cut_10"``,
  ``"iprec_at_recall_0.50"``, ``"utility_2,-1,0,0"``, ``"ndcg_1=3,2=9,4=4.5"``) or in the form
  of ``-m`` (``"P.10"``). :func:`~sklearn_rank.metrics.parse_metric` calls it for the names
  that the registry does not know.
* :func:`expand_measures` reads the ``-m`` arguments of ``sklearn-rank trec_eval`` into the
  lines that trec_eval prints per query, in its order.

A name that only trec_eval spells, a root with its parameters (``P_10``, ``ndcg_cut_10``,
``map_cut_100``, ``recall_20``, ``success_5``, ``relative_P_10``, ``unj_5``,
``iprec_at_recall_0.50``, ``Rprec_mult_0.20``, ``set_F_0.5``, ``utility_2,-1,0,0``,
``11pt_avg_.25,.5,.75``, ``ndcg_1=3,2=9,4=4.5``), means trec_eval's value whatever
``convention=``: its options fix what the ``"trec_eval"`` preset sets (linear gain, ties in
row order, 0 for a query without relevant documents...). Two exceptions, which trec_eval takes
from its command line and not from the measure, and the call sets as any option:
``relevance_threshold`` (``-l``; 1 by default, as in trec_eval) and ``unjudged`` (``-J``).
A name of trec_eval's that is a name of the registry too (``map``, ``ndcg``, ``recip_rank``,
``Rprec``, ``bpref``, ``infAP``, ``rbp``, and ``gm_map``, ``set_F``, ``num_ret``, ``G``,
``binG``... which the registry took from trec_eval) is the registry's metric and follows
``convention=``, as every registry name does, so that a name and its ``*_score`` function
agree: ``convention="trec_eval"`` gives trec_eval's value. This module returns None for them.
trec_eval breaks ties by document name, descending; :func:`~sklearn_rank.datasets.read_trec`
orders the rows that way, so that ``ties="stable"`` reproduces it.
"""

import difflib
import functools
import math
import re
from dataclasses import dataclass, field

from .._conventions import CONVENTIONS

__all__ = [
    "NICKNAMES",
    "TREC_MEASURES",
    "TrecItem",
    "TrecMeasure",
    "expand_measures",
    "needs_collection_size",
    "parse_trec_name",
    "trec_conventions",
]

#: How trec_eval reads the parameters of a measure (meas_init.c):
#: ``"none"``: it takes none (trec_eval ignores any given: sklearn-rank refuses them);
#: ``"cutoffs"``: integer cut-offs, each a measure printed ``{root}_{k}``, sorted;
#: ``"levels"``: numbers, each a measure printed ``{root}_{x:3.2f}``, sorted;
#: ``"numbers"``: numbers, one measure printed ``{root}_{parameters as given}``;
#: ``"gains"``: ``level=gain`` pairs, one measure printed ``{root}_{parameters as given}``;
#: ``"pairs"``: ``name=value`` pairs, one measure printed ``{root}_{parameters as given}``.
PARAMETER_KINDS = ("none", "cutoffs", "levels", "numbers", "gains", "pairs")

# The options that trec_eval takes from its command line, not from a measure: the call sets them.
_COMMAND_LINE_OPTIONS = ("relevance_threshold", "unjudged")


@dataclass(frozen=True)
class TrecMeasure:
    """A root of trec_eval's measure names and the metric of the registry that computes it.

    Parameters
    ----------
    name : str
        trec_eval's name of the root, as it prints it: ``"P"``, ``"ndcg_cut"``, ``"set_F"``.
    metric : str or None
        The registry name of the metric; None for what ``sklearn-rank trec_eval`` prints
        itself (``runid``, ``relstring``) and for the refused measures.
    parameters : str, default="none"
        How trec_eval reads its parameters: one of :data:`PARAMETER_KINDS`.
    option : str, default=None
        The option of the metric that a parameter sets (``"k"``, ``"recall"``...); for
        ``"numbers"`` and ``"gains"``, :attr:`to_options` converts them instead.
    defaults : str, default=""
        trec_eval's default parameters, as ``-m`` writes them (``"5,10,15,20,30,100,200,500,
        1000"`` for ``P``); empty for none.
    per_query : bool, default=True
        Whether trec_eval prints it for each query (``-q``).
    summary : bool, default=True
        Whether trec_eval prints it on the ``all`` lines.
    count : bool, default=False
        Whether trec_eval prints it as an integer.
    refused : str, default=None
        Why sklearn-rank does not compute it, for the message that refuses it.
    to_options : callable, default=None
        For ``"numbers"``, ``"gains"`` and ``"pairs"``: the parameters (a tuple of floats, or a
        dict level or name -> value) -> options of the metric; raises ValueError for
        parameters it cannot take.
    fixed : dict, default=None
        Options of the metric that trec_eval fixes and no preset sets (``rbp_resid``'s
        persistence 0.9).
    """

    name: str
    metric: object
    parameters: str = "none"
    option: object = None
    defaults: str = ""
    per_query: bool = True
    summary: bool = True
    count: bool = False
    refused: object = None
    to_options: object = field(default=None, compare=False)
    fixed: object = None

    def __post_init__(self):
        if self.parameters not in PARAMETER_KINDS:
            raise ValueError(f"TrecMeasure {self.name!r}: parameters must be one of "
                             f"{PARAMETER_KINDS}; got {self.parameters!r}.")

    @property
    def shared(self):
        """Whether its name is a name of the registry too (``map``, ``ndcg``, ``gm_map``,
        ``set_F``, ``num_ret``...): that metric, which follows ``convention=``;
        :func:`parse_trec_name` leaves the name to the registry."""
        return self.name.lower() in _registry_names()

    @property
    def entry(self):
        """The :class:`~sklearn_rank.metrics._registry.Metric` of the registry, or None when
        the registry does not have it (yet)."""
        from ._registry import METRICS

        return METRICS.get(self.metric)


@dataclass(frozen=True)
class TrecItem:
    """One measure of trec_eval's output, with its parameters: one line per query.

    Parameters
    ----------
    name : str
        As trec_eval prints it: ``"P_10"``, ``"ndcg_1=3,2=9"``, ``"runid"``.
    measure : TrecMeasure
    options : dict
        The options of the metric: those that the parameters set, then trec_eval's
        conventions (:func:`trec_conventions`).
    """

    name: str
    measure: TrecMeasure
    options: dict


# ------------------------------------------------------------------------------------------
# Parameters of the "numbers" and "gains" measures


def _utility(values):
    # m_utility.c: p1 * rel_ret + p2 * nonrel_ret + p3 * rel_not_ret + p4 * nonrel_not_ret,
    # the last count from the collection's size (trec_eval -N, 0 by default)
    if len(values) != 4:
        raise ValueError(f"takes 4 coefficients (relevant retrieved, non-relevant retrieved, "
                         f"relevant not retrieved, non-relevant not retrieved); got {len(values)}")
    return dict(zip(("relevant_retrieved", "nonrelevant_retrieved", "relevant_missed",
                     "nonrelevant_missed"), values))


def _eleven_point(values):
    # m_11pt_avg.c walks the levels from the last one down, assuming they ascend: with
    # others, its value is not the average of the interpolated precisions at the levels.
    if list(values) != sorted(values):
        raise ValueError("takes recall levels in ascending order (trec_eval's value for "
                         "others is not the average at the levels)")
    return {"recall_levels": tuple(values)}


def _set_f(values):
    # m_set_F.c: (x + 1) P R / (x P + R), x "the relative importance of R to P": beta**2 of
    # the F-beta measure, (1 + beta**2) P R / (beta**2 P + R).
    if len(values) != 1:
        raise ValueError(f"takes one parameter, the relative weight of recall; got {len(values)}"
                         " (trec_eval reads the first only)")
    if not values[0] > 0 or math.isinf(values[0]):
        raise ValueError(f"takes a positive relative weight of recall; got {values[0]}")
    return {"beta": math.sqrt(values[0])}


def _relstring(values):
    if len(values) != 1 or values[0] != int(values[0]) or values[0] < 0:
        raise ValueError("takes one parameter, the number of documents shown")
    return {"length": int(values[0])}


def _gains(levels):
    # m_ndcg.c's setup_gains: a grade that the pairs do not list keeps its own value as gain
    return {"gain": dict(levels)}


def _persistence(pairs):
    # m_rbp.c and m_rbp_resid.c of trec_eval 10.0 read one parameter, p, the persistence
    unknown = sorted(set(pairs) - {"p"})
    if unknown:
        raise ValueError(f"takes one parameter, the persistence p (e.g. p=0.8); got "
                         f"{', '.join(map(repr, unknown))}")
    if not 0 < pairs["p"] < 1:
        raise ValueError(f"takes a persistence p between 0 and 1, exclusive; got {pairs['p']:g}")
    return {"persistence": pairs["p"]}


# ------------------------------------------------------------------------------------------
# The table

_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
_RECALLS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
_PREFERENCES = ("needs judgements of preferences between documents (trec_eval -R prefs), "
                "which sklearn-rank does not read")
_JUDGEMENT_GROUPS = ("needs several groups of judgements (trec_eval -R qrels_jg), which "
                     "sklearn-rank does not read")


def _measure(name, metric, parameters="none", option=None, defaults="", **kwargs):
    return TrecMeasure(name, metric, parameters, option, defaults, **kwargs)


#: trec_eval's measures, in its order (te_trec_measures of measures.c): the order of its output.
TREC_MEASURES = (
    _measure("runid", None, per_query=False),
    _measure("num_q", "num_q", per_query=False, count=True),
    _measure("num_ret", "num_ret", count=True),
    _measure("num_rel", "num_rel", count=True),
    _measure("num_rel_ret", "num_rel_ret", count=True),
    _measure("map", "map"),
    _measure("gm_map", "gm_map", per_query=False),
    _measure("Rprec", "r_precision"),
    _measure("bpref", "bpref"),
    _measure("recip_rank", "mrr"),
    _measure("iprec_at_recall", "iprec_at_recall", "levels", "recall", _RECALLS),
    _measure("P", "precision", "cutoffs", "k", _CUTOFFS),
    _measure("relstring", None, "numbers", defaults="10", summary=False, to_options=_relstring),
    _measure("recall", "recall", "cutoffs", "k", _CUTOFFS),
    _measure("infAP", "infap"),
    _measure("gm_bpref", "gm_bpref", per_query=False),
    _measure("Rprec_mult", "rprec_mult", "levels", "mult",
             "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"),
    _measure("utility", "utility", "numbers", defaults="1,-1,0,0", to_options=_utility),
    _measure("11pt_avg", "eleven_point_average", "numbers", defaults=_RECALLS,
             to_options=_eleven_point),
    _measure("binG", "bing"),
    _measure("G", "g", "gains", to_options=_gains),
    _measure("dcg", "dcg", "gains", to_options=_gains),
    _measure("ideal_dcg", None, "gains",
             refused="is the normaliser of ndcg, no metric of sklearn-rank"),
    _measure("ndcg", "ndcg", "gains", to_options=_gains),
    _measure("ndcg_rel", "ndcg_rel", "gains", to_options=_gains),
    _measure("Rndcg", "rndcg", "gains", to_options=_gains),
    _measure("ndcg_cut", "ndcg", "cutoffs", "k", _CUTOFFS),
    _measure("map_cut", "map", "cutoffs", "k", _CUTOFFS),
    _measure("relative_P", "relative_p", "cutoffs", "k", _CUTOFFS),
    _measure("success", "hit_rate", "cutoffs", "k", "1,5,10"),
    _measure("set_P", "set_p"),
    _measure("set_relative_P", "set_relative_p"),
    _measure("set_recall", "set_recall"),
    _measure("set_map", "set_map"),
    _measure("set_F", "set_f", "numbers", defaults="1.0", to_options=_set_f),
    _measure("num_nonrel_judged_ret", "num_nonrel_judged_ret", count=True),
    *(_measure(name, None, refused=_PREFERENCES) for name in (
        "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
        "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
        "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
        "prefs_avgjg_imp")),
    *(_measure(name, None, refused=_JUDGEMENT_GROUPS)
      for name in ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")),
    # m_yaap.c: computed from plain qrels; not in all_trec (trec_eval 10.0's outputs of
    # -m all_trec have no yaap line)
    _measure("yaap", "yaap"),
    _measure("rbp", "rbp", "pairs", to_options=_persistence),
    # m_rbp_resid.c: p = 0.9 unless given, no cut-off, 0 where no unjudged document is ranked
    _measure("rbp_resid", "rbp_residual", "pairs", fixed={"all_judged": "zero"},
             to_options=_persistence),
    _measure("unj", "unjudged_rate", "cutoffs", "k", "5,10,20"),
)

_BY_NAME = {measure.name: measure for measure in TREC_MEASURES}
_BY_LOWER = {measure.name.lower(): measure for measure in TREC_MEASURES}

#: The sets of measures that ``-m`` names (measures.c), in trec_eval's order.
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
}
_REFUSED_NICKNAMES = {"all_prefs": _PREFERENCES, "prefs": _PREFERENCES,
                      "qrels_jg": _JUDGEMENT_GROUPS}


def trec_conventions(metric):
    """The options of ``metric`` that the ``"trec_eval"`` preset sets, as a trec_eval name
    fixes them (all but ``relevance_threshold`` and ``unjudged``).

    Parameters
    ----------
    metric : Metric

    Returns
    -------
    options : dict

    Examples
    --------
    >>> from sklearn_rank.metrics import parse_metric
    >>> from sklearn_rank.metrics._trec_names import trec_conventions
    >>> trec_conventions(parse_metric("ndcg")[0])
    {'gain': 'linear', 'ties': 'stable', 'no_relevant': 0.0}
    """
    preset = CONVENTIONS["trec_eval"]
    values = {**preset["*"], **preset.get(metric.name, {})}
    return {name: values[name] for name in metric.option_names
            if name in values and name not in _COMMAND_LINE_OPTIONS}


# ------------------------------------------------------------------------------------------
# Reading parameters


def _number(text, what):
    try:
        # trec_eval's atof reads ASCII numbers: neither "1_0" nor other digits ("\u0661")
        if not text.isascii() or "_" in text:
            raise ValueError
        value = float(text)
    except ValueError:
        raise ValueError(f"{what} must be numbers; got {text.strip()!r}") from None
    if math.isnan(value):
        raise ValueError(f"{what} must be numbers; got {text.strip()!r}")
    return value


def _read_cutoffs(text, strict):
    """trec_eval's get_long_cutoffs: integers, sorted, positive and distinct. Reading a
    ``-m`` argument (``strict=False``), a cut-off is read as trec_eval's strtol reads it: its
    leading integer (``23.4`` is 23, which the printed name ``ndcg_cut_23`` then shows)."""
    values = []
    for item in text.split(","):
        found = re.fullmatch(r"\s*([+-]?[0-9]+)\s*", item) if strict else re.match(
            r"\s*([+-]?[0-9]+)", item)
        if found is None:
            raise ValueError(f"cut-offs must be integers; got {item.strip()!r}")
        values.append(int(found.group(1)))
    values.sort()
    if values[0] <= 0:
        raise ValueError(f"cut-offs must be positive; got {values[0]}")
    _check_distinct(values, "cut-offs")
    return values


def _read_levels(text):
    """trec_eval's get_double_cutoffs: numbers, sorted and distinct."""
    values = sorted(_number(item, "the parameters") for item in text.split(","))
    _check_distinct(values, "parameters")
    return values


def _check_distinct(values, what):
    for before, after in zip(values, values[1:]):
        if before == after:
            raise ValueError(f"{what} must be distinct; {before:g} is given twice")


def _read_gains(text):
    """trec_eval's get_param_pairs: ``level=gain`` pairs, levels integers (grades)."""
    gains = {}
    for item in text.split(","):
        level, sep, gain = item.partition("=")
        if not sep or not re.fullmatch(r"\s*[+-]?[0-9]+\s*", level):
            raise ValueError(f"parameters must be level=gain pairs with integer levels "
                             f"(grades), e.g. '1=3,2=9'; got {item.strip()!r}")
        if int(level) in gains:
            raise ValueError(f"gives level {int(level)} twice")
        gains[int(level)] = _number(gain, "gains")
    return gains


def _read_pairs(text):
    """trec_eval's get_param_pairs: ``name=value`` pairs."""
    pairs = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"parameters must be name=value pairs; got {item.strip()!r}")
        pairs[name.strip()] = _number(value, "values")
    return pairs


def _items(measure, text, strict):
    """The (printed name, options) of ``measure`` with the parameters ``text`` (None for
    trec_eval's defaults)."""
    kind = measure.parameters
    given = text if text is not None else measure.defaults
    if kind == "none":
        if text is not None:
            raise ValueError("takes no parameters (trec_eval would ignore them)")
        return [(measure.name, {})]
    if kind == "cutoffs":
        return [(f"{measure.name}_{k}", {measure.option: k})
                for k in _read_cutoffs(given, strict)]
    if kind == "levels":
        return [(f"{measure.name}_{x:3.2f}", {measure.option: x}) for x in _read_levels(given)]
    if kind == "numbers":
        values = tuple(_number(item, "the parameters") for item in given.split(","))
    elif text is None:  # gains and pairs: trec_eval's default is none (each grade its gain)
        values = None
    else:
        values = _read_gains(given) if kind == "gains" else _read_pairs(given)
    options = measure.to_options(values) if values is not None else {}
    return [(measure.name if text is None else f"{measure.name}_{text}", options)]


def _options(measure, parameters):
    """The options of an item: trec_eval's conventions and fixed values, then its
    parameters'."""
    metric = measure.entry
    if metric is None:
        return dict(parameters)
    options = {**trec_conventions(metric), **(measure.fixed or {}), **parameters}
    unknown = sorted(set(options) - set(metric.option_names))
    if unknown:  # the table and the registry disagree: never drop an option silently
        raise ValueError(f"is computed by {metric.name}, which has no option {unknown}")
    return options


# ------------------------------------------------------------------------------------------
# Names


def _split_printed(name):
    """(measure, parameters text or None) of a printed name such as ``P_10``, else None.

    The longest root wins: ``ndcg_cut_10`` is ``ndcg_cut`` at 10, not ``ndcg`` with the
    parameters ``cut_10``; a root alone (``num_rel_ret``) is itself.
    """
    lower = name.lower()
    if lower in _BY_LOWER:
        return _BY_LOWER[lower], None
    roots = [m for root, m in _BY_LOWER.items() if lower.startswith(root + "_")]
    if not roots:
        return None
    measure = max(roots, key=lambda m: len(m.name))
    return measure, name[len(measure.name) + 1:]


def _looks_like_parameters(text):
    return bool(re.match(r"[\d.+\-]", text)) or "=" in text or "," in text


def parse_trec_name(name):
    """The metric and options of one trec_eval measure name, or None if it is none.

    Reads the names with parameters that trec_eval prints (``"P_10"``, ``"ndcg_cut_10"``,
    ``"map_cut_100"``, ``"recall_20"``, ``"success_5"``, ``"relative_P_10"``, ``"unj_5"``,
    ``"iprec_at_recall_0.50"``, ``"Rprec_mult_0.20"``, ``"set_F_0.5"``,
    ``"11pt_avg_.25,.5,.75"``, ``"utility_2,-1,0,0"``, ``"ndcg_1=3,2=9,4=4.5"``) and the
    ``-m`` forms that name one measure (``"P.10"``, ``"ndcg.1=3,2=9"``), case-insensitive.
    The options fix trec_eval's conventions (see the module's documentation), so that the
    value is trec_eval's whatever ``convention=``.

    Parameters
    ----------
    name : str

    Returns
    -------
    found : (Metric, dict) or None
        None for a name that is not trec_eval's, and for trec_eval's names that are names of
        the registry too (``"map"``, ``"recip_rank"``, ``"set_F"``, ``"gm_map"``,
        ``"recall"``...), which the registry reads.

    Raises
    ------
    ValueError
        For a trec_eval name that sklearn-rank does not compute (``relstring``,
        ``ideal_dcg``, the preference measures), a family of several measures
        (``"ndcg_cut"``, ``"P.5,10"``), malformed parameters (``"P_0"``), or a measure
        that the registry does not have.

    Examples
    --------
    >>> from sklearn_rank.metrics._trec_names import parse_trec_name
    >>> metric, options = parse_trec_name("ndcg_cut_10")
    >>> metric.name, options
    ('ndcg', {'gain': 'linear', 'ties': 'stable', 'no_relevant': 0.0, 'k': 10})
    >>> parse_trec_name("P.5")[1]
    {'short_lists': 'k', 'ties': 'stable', 'no_relevant': 0.0, 'k': 5}
    >>> parse_trec_name("iprec_at_recall_0.50")[1]
    {'ties': 'stable', 'no_relevant': 0.0, 'recall': 0.5}
    >>> parse_trec_name("ndcg@10") is None  # the registry's
    True
    """
    if not isinstance(name, str) or re.search(r"[@()]", name):
        return None  # trec_eval's names have neither cut-offs nor parentheses
    text = name.strip()
    root, dot, parameters = text.partition(".")
    if dot and root.lower() in _BY_LOWER:  # the -m form: P.10
        measure, strict = _BY_LOWER[root.lower()], False
        if not parameters:
            raise ValueError(f"{name!r} has no parameters after the '.'; write e.g. "
                             f"{measure.name + '.' + (measure.defaults or '...')!r}.")
    else:
        found = _split_printed(text)
        if found is None:
            return None
        (measure, parameters), strict = found, True
        if parameters is not None and not _looks_like_parameters(parameters):
            return None  # "ndcg_cutoff": not a spelling of trec_eval's; the registry says so
    if parameters is None:
        if measure.shared:  # "map", "set_F", "gm_map", "recall": the registry's metric
            return None
        if measure.parameters in ("cutoffs", "levels"):
            example = _items(measure, None, True)[1][0]
            raise ValueError(
                f"trec_eval's {measure.name} is a family of measures, one per parameter "
                f"({measure.name}.{measure.defaults} by default); name one, e.g. {example!r}."
            )
    if measure.refused is not None:
        raise ValueError(f"trec_eval's {measure.name} {measure.refused}: sklearn-rank does not "
                         "compute it.")
    if measure.metric is None:
        raise ValueError(f"trec_eval's {measure.name} is no metric: it is printed by "
                         f"'sklearn-rank trec_eval' only.")
    try:
        items = _items(measure, parameters, strict)
    except ValueError as exc:
        raise ValueError(f"Cannot read the trec_eval measure {name!r}: "
                         f"{measure.name} {exc}.") from None
    if len(items) > 1:
        names = ", ".join(printed for printed, _ in items)
        raise ValueError(f"{name!r} names several trec_eval measures ({names}); name one.")
    metric = measure.entry
    if metric is None:
        raise ValueError(f"trec_eval's {measure.name} is sklearn-rank's metric "
                         f"{measure.metric!r}, which this version does not have.")
    try:
        options = _options(measure, items[0][1])
        if needs_collection_size(options):
            raise ValueError(
                "counts the non-relevant documents not retrieved, which needs the size of the "
                "collection (trec_eval -N): write utility(d=...,collection_size=...)")
    except ValueError as exc:
        raise ValueError(f"Cannot read the trec_eval measure {name!r}: "
                         f"{measure.name} {exc}.") from None
    return metric, options


@functools.lru_cache(maxsize=1)
def _registry_names():
    from ._registry import METRICS

    return {name for metric in METRICS.values() for name in (metric.name, *metric.aliases)}


def needs_collection_size(options):
    """Whether utility's options count the non-relevant documents not retrieved: trec_eval
    needs -N, the collection's size, for them (without it, it counts a collection of 0)."""
    return options.get("nonrelevant_missed", 0) != 0 and options.get("collection_size") is None


# ------------------------------------------------------------------------------------------
# The -m arguments of the command line


def expand_measures(arguments=()):
    """The measures that trec_eval's ``-m`` arguments name, as trec_eval prints them.

    Parameters
    ----------
    arguments : sequence of str
        The ``-m`` arguments: a measure (``"map"``), a measure with parameters after a
        ``.`` (``"P.5,10"``, ``"ndcg.1=3,2=9"``), or a nickname (``"official"``,
        ``"set"``, ``"all_trec"``); none means ``"official"``, as in trec_eval. Names are
        case-sensitive, as in trec_eval.

    Returns
    -------
    items : list of TrecItem
        In trec_eval's order (that of :data:`TREC_MEASURES`, then of the parameters).
        ``item.measure.entry`` is None when the registry does not have the metric.

    Raises
    ------
    ValueError
        For an unknown or refused measure or nickname, and for parameters that trec_eval
        would refuse or silently ignore: parameters of a measure that takes none, or two
        ``-m`` of one measure with different parameters (trec_eval keeps the first).

    Examples
    --------
    >>> from sklearn_rank.metrics._trec_names import expand_measures
    >>> [item.name for item in expand_measures(["P.5,10", "map", "ndcg_cut.10"])]
    ['map', 'P_5', 'P_10', 'ndcg_cut_10']
    """
    arguments = list(arguments) or ["official"]
    marked, given = set(), {}
    for argument in arguments:
        root, dot, parameters = argument.partition(".")
        if root in _REFUSED_NICKNAMES:
            raise ValueError(f"-m {argument}: trec_eval's {root} {_REFUSED_NICKNAMES[root]}.")
        if root in NICKNAMES:
            if dot:
                raise ValueError(f"-m {argument}: {root} names a set of measures; it takes no "
                                 "parameters (trec_eval would ignore them).")
            marked.update(NICKNAMES[root])
            continue
        measure = _BY_NAME.get(root)
        if measure is None:
            raise ValueError(f"-m {argument}: unknown trec_eval measure {root!r}."
                             + _suggest(root))
        if measure.refused is not None:
            raise ValueError(f"-m {argument}: trec_eval's {root} {measure.refused}.")
        if dot:
            if not parameters:
                raise ValueError(f"-m {argument}: no parameters after the '.'; write e.g. "
                                 f"-m {root}.{measure.defaults or '...'}.")
            if measure.parameters == "none":
                raise ValueError(f"-m {argument}: {root} takes no parameters (trec_eval "
                                 "would ignore them).")
            if given.setdefault(root, parameters) != parameters:
                raise ValueError(
                    f"-m {root}.{given[root]} and -m {argument} give {root} two sets of "
                    "parameters; trec_eval would keep the first only. Give them in one -m, "
                    f"e.g. -m {root}.{given[root]},{parameters}."
                )
        marked.add(root)
    items = []
    for measure in TREC_MEASURES:
        if measure.name not in marked:
            continue
        try:
            items += [TrecItem(printed, measure, _options(measure, parameters))
                      for printed, parameters in _items(measure, given.get(measure.name),
                                                        strict=False)]
        except ValueError as exc:
            shown = f"{measure.name}.{given[measure.name]}" if measure.name in given else (
                measure.name)
            raise ValueError(f"-m {shown}: {measure.name} {exc}.") from None
    return items


def _suggest(root):
    known = [*NICKNAMES, *_BY_NAME]
    lower = {name.lower(): name for name in known}
    if root.lower() in lower:
        return f" trec_eval's names are case-sensitive: {lower[root.lower()]!r}."
    close = difflib.get_close_matches(root, known, n=3, cutoff=0.6)
    return f" Did you mean {' or '.join(map(repr, close))}?" if close else ""


# ------------------------------------------------------------------------------------------
# Documentation


def trec_measures_table():
    """The rST table of :data:`TREC_MEASURES` for ``docs/trec_eval.rst`` (``docs/conf.py``
    writes it there), so that the page cannot drift from the table.

    Returns
    -------
    table : str
    """
    def literal(text):
        return f"``{text}``"

    lines = [
        ".. list-table:: trec_eval's measures in sklearn-rank, in trec_eval's order",
        "   :header-rows: 1",
        "   :widths: 22 30 30 18",
        "",
        "   * - trec_eval measure (``-m``)",
        "     - printed as (trec_eval's defaults)",
        "     - sklearn-rank",
        "     - in the sets",
    ]
    refused = {}
    for measure in TREC_MEASURES:
        if measure.refused is not None:
            refused.setdefault(measure.refused, []).append(measure.name)
            continue
        sets = ", ".join(name for name, roots in NICKNAMES.items() if measure.name in roots)
        if measure.parameters == "none":
            usage = literal(measure.name)
        elif measure.parameters in ("gains", "pairs"):
            usage = f"{literal(measure.name)}, {literal(measure.name + '.1=3,2=9')}"
        else:
            usage = literal(f"{measure.name}.{measure.defaults}")
        if measure.metric is None:
            printed = literal(measure.name)
            computed = "printed by ``sklearn-rank trec_eval`` (no metric)"
        else:
            names = [item.name for item in _default_items(measure)]
            printed = ", ".join(map(literal, names if len(names) <= 3
                                    else [names[0], "...", names[-1]]))
            computed = f":func:`~sklearn_rank.metrics.{measure.metric}_score`"
            if measure.option is not None:
                computed += f" with {literal(measure.option)}"
            elif measure.parameters == "numbers":
                options = _items(measure, None, True)[0][1]
                computed += f" ({', '.join(map(literal, options))})"
            elif measure.parameters == "gains":
                computed += " (``gain``: a mapping grade -> gain)"
            if measure.fixed:
                computed += ", " + ", ".join(literal(f"{key}={value!r}")
                                             for key, value in measure.fixed.items())
            if measure.shared:
                computed += "; sklearn-rank's name too, which follows ``convention=``"
        lines += [f"   * - {usage}", f"     - {printed}", f"     - {computed}",
                  f"     - {sets}".rstrip()]
    for reason, names in refused.items():
        lines += [f"   * - {', '.join(map(literal, names))}", "     -",
                  f"     - refused: {reason.split(' (')[0].replace('is the', 'the')}", "     -"]
    return "\n".join(lines)


def _default_items(measure):
    return [TrecItem(printed, measure, options)
            for printed, options in _items(measure, None, True)]
