"""The metric registry: one entry per metric holds everything about it.

An entry (:class:`Metric`) holds the metric's name and aliases, its per-query kernel, each of
its options with its default and constraint (:class:`Option`), the inputs it takes, how its
per-query values are aggregated over queries and why it can be undefined on a query. The rest
is derived from the entries: the validation of the public ``*_score`` functions, the defaults,
the names that :func:`parse_metric` reads, :func:`get_scorer_names`, the table of names in the
documentation (``docs/conf.py`` writes it) and the canonical key of :meth:`Metric.key`. The
public functions keep explicit signatures; ``tests/test_metric_spec.py`` checks them, the
test registries and the documentation against the entries.

The grammar of metric names (``"ndcg@10"``, ``"RBP(p=0.8)"``, trec_eval's ``"P_10"``) is in
:mod:`~sklearn_rank.metrics._names`, and a metric bound to its options and convention in
:mod:`~sklearn_rank.metrics._bound`: both read this module, which imports neither.
"""

import importlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .._conventions import (
    CONVENTION_NAMES,
    DEFAULTS,
    METRIC_DEFAULTS,
    no_relevant_value,
    resolve,
)
from ..utils._param_validation import (
    Interval,
    Options,
    StrOptions,
    validate_parameter_constraints,
)
from ..utils._qid import SINGLE_QUERY
from . import _per_query as pq
from . import _per_query_curves as pqc
from . import _per_query_judged as pqj
from ._aggregate import AGGREGATIONS, GEOMETRIC_MEAN_FLOOR, Aggregator  # noqa: F401 (read here)
from ._engine import TIES

# Optional per-row masks that a metric may read, besides y_true, y_score, qid and
# sample_weight (which every metric reads): its public function takes them as keywords.
# retrieved=False: a judged document that the system did not return; judged=False: a
# document without a judgement (grade 0). A kernel that does not read a mask ignores it: the
# engine validates it once per call, and drops a mask that excludes nothing. docno, the
# documents' names, is no mask: ties="stable" ranks equal scores by it (trec_eval's rule).
INPUTS = ("retrieved", "judged", "docno")
# The families of metrics, in the order of the API reference: family -> its heading there. The
# public function of a metric of family F is written in metrics/_F.py; sklearn_rank.metrics
# exports it and docs/conf.py lists it under that heading, both read from the registry.
FAMILIES = {
    "graded": "Graded metrics",
    "binary": "Binary metrics",
    "judged": "Incomplete judgements",
    "sets": "Retrieved sets and counts",
    "correlation": "Correlations and pairs",
}


@dataclass(frozen=True)
class Option:
    """An option of a metric: its name, constraint and default.

    Parameters
    ----------
    name : str
        The keyword of the public function and of the kernel.
    constraint : tuple
        scikit-learn parameter constraints of its values, as ``validate_params`` takes them.
    default : object, default=None
        sklearn-rank's value of the option.
    preset : bool, default=False
        Whether a ``convention`` preset may set the option. The keyword of the public
        function is then ``None`` by default, which resolves to the preset's value, else to
        ``default``; ``default`` is read from :data:`~sklearn_rank.metrics.DEFAULTS`.
    aliases : tuple of str, default=()
        Other spellings accepted inside the parentheses of a metric name: ``"rbp(p=0.5)"``.
    """

    name: str
    constraint: tuple
    default: object = None
    preset: bool = False
    aliases: tuple = ()

    @property
    def keyword_default(self):
        """The default of the public function's keyword (None for a preset option)."""
        return None if self.preset else self.default


def _preset(name, *constraint, aliases=(), metric=None):
    """An option that conventions may set; its default is sklearn-rank's, in DEFAULTS (or,
    for an option of one ``metric`` only, in METRIC_DEFAULTS)."""
    default = DEFAULTS[name] if metric is None else METRIC_DEFAULTS[metric][name]
    return Option(name, constraint, default, preset=True, aliases=aliases)


# Options shared by several metrics. Options of one metric are written in its entry.
K = Option("k", (Interval(Integral, 1, None, closed="left"), None))
# ERR's gain: its stopping probability, 2**y - 1 or y over the top grade's.
GAIN = _preset("gain", StrOptions({"exponential", "linear"}), None)
# The DCG family's gain (ndcg, dcg, g, ndcg_rel, rndcg): ERR's two, or a mapping grade -> gain
# (trec_eval's ndcg.1=3,2=9, ir_measures' nDCG(gains={1: 3, 2: 9})), in which an unlisted
# grade keeps its own value as gain; the kernels check the mapping (_per_query.check_gain).
DCG_GAIN = _preset("gain", StrOptions({"exponential", "linear"}), Mapping, None,
                   aliases=("gains",))
# The DCG family's position discount: 1 / log_b(i + 1) at rank i ("log", with LOG_BASE), or
# 1 / i ("rank": CatBoost's NDCG denominator=Position, TF-Ranking's 1/rank discount).
DISCOUNT = Option("discount", (StrOptions({"log", "rank"}),), "log")
# Interpolated precision (iprec_at_recall, eleven_point_average): how a recall level x becomes
# a number of relevant documents, x * R rounded to the nearest (lround: trec_eval 10.0) or
# floor(x * R + 0.9) (trec_eval up to 9.0.8, which pytrec_eval and ir_measures' IPrec run).
RECALL_ROUNDING = Option("recall_rounding", (StrOptions({"nearest", "legacy"}),), "nearest")
# log_base is no convention: no system's preset sets it. DEFAULTS lists it all the same (it
# always has, and docs/api.rst shows it), so its default is read from there, written once.
LOG_BASE = Option("log_base", (Interval(Real, 1, None, closed="neither"),), DEFAULTS["log_base"])
TIES_OPTION = _preset("ties", StrOptions(set(TIES)), None)
NO_RELEVANT = _preset("no_relevant", Options(Real, {0.0, 1.0}), "nan", StrOptions({"raise"}),
                      None)
RELEVANCE_THRESHOLD = _preset("relevance_threshold", Interval(Real, 0, None, closed="neither"),
                              None, aliases=("rel", "l"))
MAX_GRADE = _preset("max_grade", Interval(Real, 0, None, closed="neither"),
                    StrOptions({"query"}), None)
AP_DENOMINATOR = _preset("ap_denominator", StrOptions({"all", "min_k", "found"}), None)
SHORT_LISTS = _preset("short_lists", StrOptions({"k", "length", "rows"}), None)
# Every metric takes it, as no_relevant: what unjudged documents (judged=False, or NaN and
# negative grades with judged="y_true") are. "nonrelevant": grade 0, in the ranking
# (trec_eval's default); "condensed": taken out of the ranking first (Sakai's condensed
# lists, trec_eval -J). Metric.compute applies it; kernels never see it.
UNJUDGED = Option("unjudged", (StrOptions({"nonrelevant", "condensed"}),), "nonrelevant")

_NO_RELEVANT_REASON = "that have no relevant document"


@dataclass(frozen=True)
class Metric:
    """A metric of the registry: the one place that says everything about it.

    Parameters
    ----------
    name : str
        Registry name, lower case; the public function is ``{name}_score`` in
        :mod:`sklearn_rank.metrics`.
    kernel : callable
        ``kernel(data, **options) -> (values, undefined)``, in ``_per_query.py``: one value
        per query and the mask of the queries where the metric is undefined (or None).
    option_specs : tuple of Option
        The metric's options besides ``no_relevant`` (which every metric takes), in the
        order of the public function's signature.
    aliases : tuple of str, default=()
        Other names of the metric, lower case.
    higher_is_better : bool, default=True
    aggregation : {"mean", "geometric_mean", "sum"}, default="mean"
        How :meth:`aggregate` turns per-query values into one number.
    inputs : tuple of str, default=INPUTS
        The optional per-row masks of :data:`INPUTS` that the metric's public function takes
        (after its options, in this order) and hands to the engine. Every metric takes both
        today; no kernel reads ``judged`` yet (bpref, infAP and Judged@k will), and the
        others ignore it.
    undefined_reason : str, default="that have no relevant document"
        Completes "queries ..." in the messages about the queries where it is undefined.
    clip_k : bool, default=True
        Whether a cut-off beyond the longest list becomes the number of rows before the
        kernel runs; P@k reads ``k`` itself, since it may divide by it.
    family : str
        Its family among :data:`FAMILIES`: the module of its public function
        (``metrics/_{family}.py``) and its heading in the API reference. Required; a
        keyword.
    """

    name: str
    kernel: object
    option_specs: tuple
    aliases: tuple = ()
    higher_is_better: bool = True
    aggregation: str = "mean"
    inputs: tuple = INPUTS
    undefined_reason: str = _NO_RELEVANT_REASON
    clip_k: bool = True
    family: str = None

    def __post_init__(self):
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(
                f"Metric {self.name!r}: aggregation must be one of {AGGREGATIONS}; got "
                f"{self.aggregation!r}."
            )
        unknown = sorted(set(self.inputs) - set(INPUTS))
        if unknown:
            raise ValueError(
                f"Metric {self.name!r}: inputs must be among {INPUTS}; got {unknown}."
            )
        names = [option.name for option in self.option_specs]
        if len(set(names)) < len(names) or {"no_relevant", "unjudged"} & set(names):
            raise ValueError(
                f"Metric {self.name!r}: options must be distinct and leave out no_relevant "
                f"and unjudged, which every metric takes; got {names}."
            )
        if self.family not in FAMILIES:
            raise ValueError(
                f"Metric {self.name!r}: family must be one of {tuple(FAMILIES)}; got "
                f"{self.family!r}."
            )

    @property
    def options(self):
        """Names of the kernel's options, besides ``no_relevant`` and ``unjudged``."""
        return tuple(option.name for option in self.option_specs)

    @property
    def all_options(self):
        """Every option, ``no_relevant`` and ``unjudged`` last (every metric takes them)."""
        return (*self.option_specs, NO_RELEVANT, UNJUDGED)

    @property
    def option_names(self):
        """Names of :attr:`all_options`: those that a name's parentheses may set."""
        return tuple(option.name for option in self.all_options)

    @property
    def constraints(self):
        """Option name -> constraint (``no_relevant`` included), for ``validate_params``."""
        return {option.name: list(option.constraint) for option in self.all_options}

    @property
    def option_aliases(self):
        """Alias -> option name, for the parameters in parentheses."""
        return {alias: option.name for option in self.all_options for alias in option.aliases}

    @property
    def function_name(self):
        return f"{self.name}_score"

    @property
    def module(self):
        """The module of the public function: that of the metric's family."""
        return f"{__package__}._{self.family}"

    @property
    def function(self):
        """The public function, ``sklearn_rank.metrics.{name}_score``."""
        # imported by name, on first use: the family modules import this one (the spec comes
        # before the functions)
        return getattr(importlib.import_module(self.module), self.function_name)

    def compute(self, data, options, *, convention=None, label=None):
        """Per-query values of the metric on ``data``, the ``no_relevant`` policy applied.

        Parameters
        ----------
        data : RankingInput
        options : dict
            Every option of the metric (``no_relevant`` included), ``None`` where unset, as
            :func:`metric_options` gives them.
        convention : str, default=None
        label : str, default=None
            The metric as the caller named it, for messages; the registry name by default.

        Returns
        -------
        values : ndarray of shape (n_queries,)
            In query-code order; NaN for a query skipped by ``no_relevant=np.nan``.
        undefined : ndarray of bool of shape (n_queries,) or None
            The queries where the metric is undefined, to which ``no_relevant`` applied.
        resolved : dict
            The options as computed: conventions and defaults resolved, ``no_relevant``
            normalised (the cut-off as given, before it is clipped to the longest list).
        """
        return self.compute_resolved(data, self.resolved(options, convention), label=label)

    def resolved(self, options, convention=None):
        """``options`` (as :meth:`compute` takes them) with conventions and defaults
        resolved and ``no_relevant`` normalised: what :meth:`compute_resolved` takes."""
        resolved = resolve(self.name, convention, options)
        resolved["no_relevant"] = no_relevant_value(resolved["no_relevant"])
        resolved.setdefault("unjudged", UNJUDGED.default)
        return resolved

    def compute_resolved(self, data, resolved, *, label=None):
        """:meth:`compute` with options resolved already (see :meth:`resolved`); returns
        ``(values, undefined, resolved)``, ``resolved`` as a new dict."""
        kernel_options = dict(resolved)
        no_relevant = kernel_options.pop("no_relevant")
        unjudged = kernel_options.pop("unjudged")
        if unjudged == "condensed":
            data = data.condensed()
        k = kernel_options.get("k")
        if self.clip_k and k is not None and k > len(data.y_true):
            kernel_options["k"] = len(data.y_true)  # a cut-off beyond every list: the list
        # an overflow to inf or NaN is reported by apply_no_relevant, with the metric and the
        # queries, in place of numpy's RuntimeWarning
        with np.errstate(over="ignore", invalid="ignore"):
            values, undefined = self.kernel(data, **kernel_options)
        values = data.apply_no_relevant(values, undefined, no_relevant,
                                        metric=label or self.name,
                                        undefined_reason=self.undefined_reason)
        return values, undefined, dict(resolved)

    def aggregate(self, values, weights=None, *, label=None, stacklevel=2, in_order=False):
        """Aggregate per-query values over queries by the metric's rule.

        ``"mean"`` is the mean of :func:`evaluate` and the public functions, bit for bit:
        NaN values (queries skipped by ``no_relevant=np.nan``) are left out, weights are
        rescaled when their sum overflows or loses precision, and a zero total weight is a
        ``ValueError``. ``"geometric_mean"`` is ``exp`` of that mean of
        ``log(max(value, GEOMETRIC_MEAN_FLOOR))``. ``"sum"`` is the sum of the values, each
        times its weight.

        Parameters
        ----------
        values : array-like of shape (n_queries,)
            Per-query values, NaN for a skipped query.
        weights : array-like of shape (n_queries,), default=None
            Weight of each query, None for equal weights: the mean weight of its rows, in
            ``sample_weight``'s units. For the means, :attr:`RankingInput.query_weight`
            (rescaled, so that extreme weights neither overflow nor underflow) gives the
            same value; a ``"sum"`` depends on the units, so pass ``query_weight`` times
            :attr:`RankingInput.weight_unit`, as :func:`evaluate` does.
        label : str, default=None
            The metric as the caller named it, for messages; the registry name by default.
        stacklevel : int, default=2
            Of the ``UndefinedMetricWarning`` when every query was skipped: 2 points at the
            caller of this method.
        in_order : bool, default=False
            Add the values one at a time in the order given, as trec_eval adds its queries'
            (in query order), rather than pairwise, when ``weights`` is None: exact halves
            at the 4th decimal then round as in trec_eval's output.

        Returns
        -------
        value : float
            NaN, with an ``UndefinedMetricWarning``, when every value is NaN.
        """
        aggregator = Aggregator(self.aggregation, in_order=in_order, label=label or self.name,
                                undefined_reason=self.undefined_reason)
        return aggregator.add(values, weights).result(stacklevel=stacklevel + 1)

    def key(self, options=None, convention=None):
        """The canonical name of the metric computed with ``options`` and ``convention``.

        A key is a name that :func:`parse_metric` reads back into this metric and options
        that compute the same numbers without ``convention``; usable as the column name of
        a results store. Its grammar::

            key    := name ["@" k] ["(" option "=" value {"," option "=" value} ")"]

        ``name`` is the registry name (never an alias), ``k`` the cut-off when there is one.
        The options are those whose value, resolved through ``convention`` and the
        defaults, differs from sklearn-rank's default, in the order of the metric's
        options (that of its public function), ``no_relevant`` last; none, no parentheses.
        Values are written as ``true``/``false``, integers in decimal, floats as Python's
        shortest ``repr`` that reads back to the same float, with a ``.0`` before any
        exponent (``1.0e+16``), ``nan``, ``inf``, and strings as they are.

        Parameters
        ----------
        options : dict, default=None
            Options of the metric (keywords of its public function), unset ones left out.
        convention : str, default=None
            Preset of conventions the options are resolved with.

        Returns
        -------
        key : str

        Examples
        --------
        >>> from sklearn_rank.metrics import parse_metric
        >>> ndcg, _ = parse_metric("ndcg")
        >>> ndcg.key({"k": 10, "gain": "linear", "ties": "stable"})
        'ndcg@10(gain=linear,ties=stable)'
        >>> ndcg.key({"k": 10}, convention="trec_eval")
        'ndcg@10(gain=linear,ties=stable)'
        >>> ndcg.key({"log_base": 2})
        'ndcg'
        """
        options = dict(options or {})
        caller = f"Metric.key of {self.name!r}"
        accepted = [option.name for option in self.all_options]
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise TypeError(f"{caller} got option(s) {unknown} that {self.name} does not take; "
                            f"its options are {sorted(accepted)}.")
        given = {o.name: options.get(o.name, o.keyword_default) for o in self.all_options}
        validate_parameter_constraints(
            {**self.constraints, "convention": CONSTRAINTS["convention"]},
            {**given, "convention": convention}, caller_name=caller,
        )
        return self.key_of_resolved(self.resolved(given, convention))

    def key_of_resolved(self, resolved):
        """:meth:`key` of options resolved already (see :meth:`resolved`), unchecked."""
        parts = [f"{o.name}={_format(resolved[o.name])}" for o in self.all_options
                 if o.name != "k" and not _same(resolved[o.name], o.default)]
        k = resolved.get("k")
        return (self.name + ("" if k is None else f"@{int(k)}")
                + (f"({','.join(parts)})" if parts else ""))


def _same(value, default):
    """Whether a resolved option value is sklearn-rank's default (1 is 1.0, NaN is NaN, a
    list of recall levels is the tuple of the same levels)."""
    if _is_sequence(value) or _is_sequence(default):
        return (_is_sequence(value) and _is_sequence(default) and len(value) == len(default)
                and all(_same(v, d) for v, d in zip(value, default)))
    if isinstance(default, bool) or isinstance(value, (bool, np.bool_)):
        return isinstance(value, (bool, np.bool_)) and bool(value) is default
    if isinstance(value, Real) and isinstance(default, Real):
        return value == default or (math.isnan(value) and math.isnan(default))
    return type(value) is type(default) and value == default


def _is_sequence(value):
    """Whether an option value is a sequence of values (eleven_point_average's levels)."""
    return isinstance(value, (list, tuple, np.ndarray))


def _format(value):
    """A value as :func:`parse_metric` reads it back: same type (bool, int, float, str); a
    sequence as ``[a,b,...]``, which reads back as a list."""
    if _is_sequence(value):
        return "[" + ",".join(_format(v) for v in np.asarray(value).tolist()) + "]"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_format(k)}:{_format(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        text = repr(float(value))  # the shortest text that reads back to the same float
        if "e" in text and "." not in text:
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}.0e{exponent}"  # "1e+16" would read back as an int
        return text
    return str(value)


METRICS = {
    m.name: m
    for m in (
        Metric("ndcg", pq.ndcg, (K, DCG_GAIN, DISCOUNT, LOG_BASE, TIES_OPTION), family="graded"),
        Metric("dcg", pq.dcg, (K, DCG_GAIN, DISCOUNT, LOG_BASE, TIES_OPTION), family="graded"),
        Metric("err", pq.err, (
            K, GAIN, MAX_GRADE,
            Option("persistence", (Interval(Real, 0, 1, closed="right"),), 1.0, aliases=("p",)),
            TIES_OPTION), family="graded"),
        Metric("rbp", pq.rbp, (
            K,
            _preset("persistence", Interval(Real, 0, 1, closed="neither"), None,
                    aliases=("p",), metric="rbp"),
            _preset("graded", "boolean", None, metric="rbp"),
            MAX_GRADE, RELEVANCE_THRESHOLD, TIES_OPTION), family="graded"),
        Metric("map", pq.average_precision,
               (K, RELEVANCE_THRESHOLD, AP_DENOMINATOR, TIES_OPTION),
               aliases=("ap", "average_precision"), family="binary"),
        Metric("mrr", pq.reciprocal_rank, (K, RELEVANCE_THRESHOLD, TIES_OPTION),
               aliases=("rr", "recip_rank", "reciprocal_rank"), family="binary"),
        Metric("precision", pq.precision, (K, RELEVANCE_THRESHOLD, SHORT_LISTS, TIES_OPTION),
               aliases=("p", "prec", "pre"), clip_k=False, family="binary"),
        Metric("recall", pq.recall, (K, RELEVANCE_THRESHOLD, TIES_OPTION), aliases=("r",),
               family="binary"),
        Metric("hit_rate", pq.hit_rate, (K, RELEVANCE_THRESHOLD, TIES_OPTION),
               aliases=("success",), family="binary"),
        # ranx's hits@k: a count, not a rate ("hits" named the hit rate in earlier versions)
        Metric("hits", pq.hits, (K, RELEVANCE_THRESHOLD, TIES_OPTION), family="binary"),
        Metric("r_precision", pq.r_precision, (RELEVANCE_THRESHOLD, TIES_OPTION),
               aliases=("rprec", "r-precision"), family="binary"),
        Metric("kendall_tau", pq.kendall_tau, (), aliases=("tau", "kendall"),
               undefined_reason="whose documents all have the same grade", family="correlation"),
        Metric("spearman", pq.spearman, (), aliases=("rho", "spearman_rho"),
               undefined_reason="whose documents all have the same grade", family="correlation"),
        Metric("pairwise_accuracy", pq.pairwise_accuracy,
               (Option("ties_credit", (Interval(Real, 0, 1, closed="both"),), 0.5),),
               aliases=("pairs", "concordant_pairs"),
               undefined_reason="without a pair of documents of different grades",
               family="correlation"),
        Metric("half_life_utility", pq.half_life_utility, (
            K,
            Option("half_life", (Interval(Real, 1, None, closed="neither"),), 5.0),
            Option("default_rating", (Interval(Real, None, None, closed="neither"),), 0.0),
            TIES_OPTION), aliases=("hlu",),
            undefined_reason="without a document graded above default_rating", family="graded"),
        # Incomplete judgements, retrieved sets and counts (kernels in _per_query_judged).
        # Counts, rates of judgements, the RBP residual and utility are defined on every
        # query (their kernels' undefined is None): no_relevant never replaces them.
        Metric("bpref", pqj.bpref, (RELEVANCE_THRESHOLD, TIES_OPTION), family="judged"),
        # trec_eval's gm_bpref: bpref per query, their geometric mean (floored at 1e-5)
        Metric("gm_bpref", pqj.bpref, (RELEVANCE_THRESHOLD, TIES_OPTION),
               aggregation="geometric_mean", family="judged"),
        Metric("infap", pqj.infap, (RELEVANCE_THRESHOLD, TIES_OPTION), family="judged"),
        Metric("judged", pqj.judged_at_k, (K, TIES_OPTION), family="judged"),
        # trec_eval's unj@k divides by k when fewer documents are ranked
        Metric("unjudged_rate", pqj.unjudged_rate, (K, TIES_OPTION), aliases=("unj",),
               higher_is_better=False, clip_k=False, family="judged"),
        Metric("rbp_residual", pqj.rbp_residual, (
            K,
            _preset("persistence", Interval(Real, 0, 1, closed="neither"), None,
                    aliases=("p",), metric="rbp_residual"),
            _preset("all_judged", StrOptions({"tail", "zero"}), None, metric="rbp_residual"),
            TIES_OPTION), aliases=("rbp_resid",), higher_is_better=False, family="judged"),
        # ir_measures' names are aliases: SetP, SetR, SetAP, SetRelP, NumQ, NumRel,
        # NumRelRet, NumRet (SetF, NumRet(rel=...) and IPrec@x: see _ir_measures_name)
        Metric("set_p", pqj.set_precision, (RELEVANCE_THRESHOLD,), aliases=("setp",),
               family="sets"),
        Metric("set_recall", pqj.set_recall, (RELEVANCE_THRESHOLD,), aliases=("setr",),
               family="sets"),
        Metric("set_f", pqj.set_f, (
            RELEVANCE_THRESHOLD,
            Option("beta", (Interval(Real, 0, None, closed="left"),), 1.0)), aliases=("setf",),
            family="sets"),
        Metric("set_map", pqj.set_map, (RELEVANCE_THRESHOLD,), aliases=("setap",), family="sets"),
        Metric("set_relative_p", pqj.set_relative_precision, (RELEVANCE_THRESHOLD,),
               aliases=("setrelp",), family="sets"),
        Metric("relative_p", pqj.relative_precision, (K, RELEVANCE_THRESHOLD, TIES_OPTION),
               family="binary"),
        Metric("num_ret", pqj.num_ret, (), aggregation="sum", aliases=("numret",), family="sets"),
        Metric("num_rel", pqj.num_rel, (RELEVANCE_THRESHOLD,), aggregation="sum",
               aliases=("numrel",), family="sets"),
        Metric("num_rel_ret", pqj.num_rel_ret, (RELEVANCE_THRESHOLD,), aggregation="sum",
               aliases=("numrelret",), family="sets"),
        Metric("num_nonrel_judged_ret", pqj.num_nonrel_judged_ret, (RELEVANCE_THRESHOLD,),
               aggregation="sum", higher_is_better=False, family="sets"),
        Metric("num_q", pqj.num_q, (), aggregation="sum", aliases=("numq",), family="sets"),
        # trec_eval's utility.a,b,c,d and -N: a per retrieved relevant document, b per
        # retrieved non-relevant one, c per missed relevant one, d per other document
        Metric("utility", pqj.utility, (
            RELEVANCE_THRESHOLD,
            *(Option(name, (Interval(Real, None, None, closed="neither"),), default,
                     aliases=(alias,))
              for name, default, alias in (("relevant_retrieved", 1.0, "a"),
                                           ("nonrelevant_retrieved", -1.0, "b"),
                                           ("relevant_missed", 0.0, "c"),
                                           ("nonrelevant_missed", 0.0, "d"))),
            Option("collection_size", (Interval(Integral, 0, None, closed="left"), None))),
            family="sets"),
        # the judged non-relevant documents in the top k, of all judged non-relevant ones
        Metric("fallout", pqj.fallout, (K, RELEVANCE_THRESHOLD, TIES_OPTION),
               aliases=("fall_out",), higher_is_better=False,
               undefined_reason="without a judged non-relevant document", family="binary"),
        # ranx's f1@k: 2 P@k R@k / (P@k + R@k), P@k dividing by k as trec_eval's P@k
        Metric("f1", pqj.f1, (K, RELEVANCE_THRESHOLD, TIES_OPTION), clip_k=False, family="binary"),
        # Interpolated precision, R-based and G-based measures (kernels in _per_query_curves).
        # trec_eval's gm_map: AP per query, their geometric mean (floored at 1e-5)
        Metric("gm_map", pq.average_precision,
               (K, RELEVANCE_THRESHOLD, AP_DENOMINATOR, TIES_OPTION),
               aliases=("gm_ap",), aggregation="geometric_mean", family="binary"),
        # trec_eval's yaap: log((1 + S) / (1 + R - S)), S the numerator of AP (AP = S / R);
        # defined on every query (0 without relevant documents)
        Metric("yaap", pq.yaap, (RELEVANCE_THRESHOLD, TIES_OPTION), family="binary"),
        Metric("iprec_at_recall", pqc.iprec_at_recall, (
            Option("recall", (Interval(Real, 0, 1, closed="both"),), 0.0),
            RELEVANCE_THRESHOLD, RECALL_ROUNDING, TIES_OPTION), aliases=("iprec",),
            family="binary"),
        Metric("eleven_point_average", pqc.eleven_point_average, (
            Option("recall_levels", ("array-like",), pqc.ELEVEN_POINTS),
            RELEVANCE_THRESHOLD, RECALL_ROUNDING, TIES_OPTION), aliases=("11pt_avg",),
            family="binary"),
        Metric("rprec_mult", pqc.rprec_mult, (
            Option("mult", (Interval(Real, 0, None, closed="neither"),), 1.0),
            RELEVANCE_THRESHOLD, TIES_OPTION), aliases=("r_precision_mult",), family="binary"),
        Metric("g", pqc.g, (DCG_GAIN, TIES_OPTION),
               undefined_reason="without a document of positive gain", family="graded"),
        Metric("bing", pqc.bing, (RELEVANCE_THRESHOLD, TIES_OPTION), family="binary"),
        Metric("ndcg_rel", pqc.ndcg_rel, (DCG_GAIN, DISCOUNT, LOG_BASE, TIES_OPTION),
               undefined_reason="without a document of positive gain", family="graded"),
        Metric("rndcg", pqc.rndcg,
               (DCG_GAIN, DISCOUNT, LOG_BASE, RELEVANCE_THRESHOLD, TIES_OPTION),
               undefined_reason="without a relevant document or one of positive gain",
               family="graded"),
    )
}

# The arguments of the public functions that are not options of a metric.
ARGUMENT_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_score": ["array-like"],
    # None (qid left out) passes validation, to be refused with a message that says both
    # fixes (utils._qid.metric_qid); "single_query": all rows one query, on purpose
    "qid": ["array-like", StrOptions({SINGLE_QUERY}), None],
    "retrieved": ["array-like", None],
    # a mask, or "y_true": NaN and negative grades in y_true mark the unjudged rows
    "judged": ["array-like", StrOptions({"y_true"}), None],
    "docno": ["array-like", None],
    "sample_weight": ["array-like", None],
    "convention": [StrOptions(set(CONVENTION_NAMES)), None],
    "return_per_query": ["boolean"],
}


def _shared_constraints():
    """Option name -> constraint, for the options constrained alike in every metric."""
    found = {}
    for metric in METRICS.values():
        for option in metric.all_options:
            found.setdefault(option.name, set()).add(option.constraint)
    return {name: list(*constraints) for name, constraints in found.items()
            if len(constraints) == 1}


# Argument or option name -> constraint; persistence, constrained differently by ERR and RBP,
# is left out (see Metric.constraints).
CONSTRAINTS = {**ARGUMENT_CONSTRAINTS, **_shared_constraints()}


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
    """The options of ``metric``: name-fixed, then caller's, then the keywords' defaults.

    ``no_relevant`` included; the options that conventions may set are ``None`` when unset.
    """
    return {
        option.name: fixed.get(option.name, options.get(option.name, option.keyword_default))
        for option in metric.all_options
    }
