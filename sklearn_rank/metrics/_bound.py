"""A metric bound to its options and convention: the value that every caller holds.

A metric name travels from a caller to a kernel in five steps: its name is parsed
(:mod:`~sklearn_rank.metrics._names`), the options fixed in the name are merged with the
caller's, they are validated against the registry entry's constraints, the convention is
resolved into them, and the grade-scale rule (graded ERR and RBP divide the grades by
``max_grade``, which may be left to the data) is read off. :func:`bind_metric` does the
five once and returns a :class:`BoundMetric`: immutable and hashable, equal for equal
computations, its canonical key (:meth:`Metric.key <sklearn_rank.metrics._registry.Metric.key>`)
as its name, as ir_measures' measures are values. :func:`bind_metrics` binds the names of one
:func:`~sklearn_rank.metrics.evaluate` call, which share their options.

Every caller binds once and keeps the bound metrics: the scorers and the booster eval
metrics when they are built, :func:`~sklearn_rank.metrics.evaluate` and the Dask plan before
reading the data, each Dask partition through the job it is sent, and the trec_eval command.
:func:`~sklearn_rank.metrics._result.result_of` computes bound metrics on validated data into a
:class:`~sklearn_rank.metrics.PerQueryResult`, and :meth:`BoundMetric.aggregator` gives the
one aggregation rule (:mod:`~sklearn_rank.metrics._aggregate`).
"""

import difflib
import functools
from types import MappingProxyType

from ..utils._param_validation import validate_parameter_constraints
from ._aggregate import Aggregator, in_query_order
from ._names import parse_metric
from ._registry import CONSTRAINTS, METRICS, Metric, metric_options

__all__ = ["BoundMetric", "bind_metric", "bind_metrics", "outside_convention",
           "scale_left_to_data", "scale_unset"]


def scale_unset(options):
    """The grade-scale rule: whether resolved ``options`` leave the top grade to the data.

    Graded ERR and RBP divide every grade by ``max_grade``; ``None`` (not declared) is the
    largest grade of the rows of each call, so that the value of a query depends on the
    other queries of the call. Binary RBP (``graded=False``) has no grade scale.
    """
    return options.get("max_grade", 0) is None and bool(options.get("graded", True))


def scale_left_to_data(name, *, options=None, convention=None):
    """:func:`scale_unset` of a metric name with ``options`` and ``convention``, unchecked
    (see :func:`~sklearn_rank.metrics._scorer.needs_grade_scale`)."""
    entry, fixed = parse_metric(name)
    if "max_grade" not in entry.options:
        return False
    return scale_unset(entry.resolved(metric_options(entry, fixed, options or {}), convention))


class BoundMetric:
    """A registry metric with its options resolved: what is computed, as a value.

    Build it with :func:`bind_metric`, and pass it wherever a metric name is accepted
    (:func:`~sklearn_rank.metrics.evaluate`,
    :func:`~sklearn_rank.metrics.evaluate_per_query`,
    :func:`~sklearn_rank.metrics.make_ranking_scorer`). Two bound metrics are equal (and
    hash alike) when they compute the same numbers: the same registry entry, the same
    resolved options (the same canonical :attr:`key`) and the same convention (which orders
    the sum over queries as trec_eval does, and is recorded in the results).

    Attributes
    ----------
    metric : Metric
        The registry entry.
    options : mapping
        Every option of the metric, conventions and defaults resolved, ``no_relevant``
        normalised; read-only.
    convention : str or None
    key : str
        The canonical key: a name that :func:`bind_metric` reads back into the same
        resolved options without a convention, and into an equal bound metric with the
        same convention, unless the name set an option to sklearn-rank's default against
        the preset (the key leaves defaults out). ``str(bound)`` and ``bound.name`` are the
        key.

    Examples
    --------
    >>> from sklearn_rank.metrics import bind_metric
    >>> bound = bind_metric("err@10", options={"max_grade": 4})
    >>> bound.key
    'err@10(max_grade=4)'
    >>> bound.metric.name, bound.options["k"]
    ('err', 10)
    >>> {bound: "hashable"}[bind_metric("ERR(max_grade=4)@10")]
    'hashable'
    """

    __slots__ = ("metric", "options", "convention", "preset_ties", "_key")

    def __init__(self, metric, options, convention=None, *, preset_ties=False):
        if not isinstance(metric, Metric):
            raise TypeError(f"metric must be a registry entry (Metric); got {metric!r}.")
        for name, value in (("metric", metric), ("options", MappingProxyType(dict(options))),
                            ("convention", convention), ("preset_ties", bool(preset_ties)),
                            ("_key", None)):
            object.__setattr__(self, name, value)

    @property
    def key(self):
        """The canonical key (written when first read: the public functions bind and
        compute without it)."""
        if self._key is None:
            object.__setattr__(self, "_key", self.metric.key_of_resolved(self.options))
        return self._key

    def __setattr__(self, name, value):
        raise AttributeError(f"A BoundMetric is immutable: cannot set {name!r}.")

    __delattr__ = __setattr__

    def __reduce__(self):  # a mapping proxy does not pickle: rebuild from the arguments
        # a registry entry by its name: the worker's registry holds the same entry
        metric = self.metric.name if METRICS.get(self.metric.name) is self.metric else self.metric
        return _rebuild, (metric, dict(self.options), self.convention, self.preset_ties)

    @property
    def name(self):
        """The canonical key (see :attr:`key`)."""
        return self.key

    def __str__(self):
        return self.key

    def __repr__(self):
        extra = "" if self.convention is None else f", convention={self.convention!r}"
        return f"BoundMetric({self.key!r}{extra})"

    def __hash__(self):
        return hash((self.key, self.convention))

    def __eq__(self, other):
        if not isinstance(other, BoundMetric):
            return NotImplemented
        return (self.key == other.key and self.convention == other.convention
                and (self.metric is other.metric or self.metric == other.metric))

    @property
    def needs_top_label(self):
        """Whether the grade scale is left to the data (:func:`scale_unset`)."""
        return scale_unset(self.options)

    @property
    def in_order(self):
        """Whether the queries' values are added one at a time in query order, as trec_eval
        adds them: the rows' order is the ranking (``ties="stable"``, trec_eval's ties and
        its convention)."""
        return in_query_order(self.options, self.convention)

    def replace(self, **options):
        """A bound metric with some resolved options replaced (unchecked): the grade scale
        of all rows given to a Dask partition, trec_eval's gains for ``-l 0``."""
        return BoundMetric(self.metric, {**self.options, **options}, self.convention,
                           preset_ties=self.preset_ties)

    def compute(self, data, *, label=None):
        """Per-query values on ``data`` (a validated :class:`RankingInput`).

        Returns ``(values, undefined, recorded)``: the values after the ``no_relevant``
        policy, the mask of the queries where the metric is undefined (never None), and the
        options as :attr:`PerQueryResult.options <sklearn_rank.metrics.PerQueryResult>`
        records them: ``"metric"``, ``"convention"`` and the resolved options, a scale left
        to the data recorded as the largest grade that it stood for.
        """
        import numpy as np

        values, undefined, resolved = self.metric.compute_resolved(
            data, self.options, label=label or self.key)
        recorded = {"metric": self.metric.name, "convention": self.convention, **resolved}
        if scale_unset(recorded):
            # graded ERR and RBP scale grades by the largest one: a property of all the rows
            recorded["max_grade"] = data.top_label.item()
        if not values.flags.owndata:
            values = values.copy()  # not a view of an array that the caller keeps
        undefined = (np.zeros(data.n_queries, dtype=bool) if undefined is None
                     else np.array(undefined, dtype=bool))
        return values, undefined, recorded

    def aggregator(self, label=None):
        """An empty :class:`~sklearn_rank.metrics._aggregate.Aggregator` of the metric's
        rule; ``label`` names it in messages (the key by default)."""
        return Aggregator(self.metric.aggregation, in_order=self.in_order,
                          label=label or self.key, undefined_reason=self.metric.undefined_reason)

    def check_declared_scale(self, name=None, caller=None):
        """Raise the ``ValueError`` of :func:`~sklearn_rank.metrics._scorer.check_grade_scale`
        when the grade scale is left to the data: the rule of whatever scores subsets of the
        data (folds, partitions, validation sets). ``name`` is the metric as the caller
        wrote it (the key by default)."""
        if self.needs_top_label:
            raise ValueError(grade_scale_message(name or self.key, caller))


def outside_convention(metrics, convention):
    """The metrics that the preset ``convention`` leaves at sklearn-rank's defaults.

    A preset sets the options of the metrics of its system only
    (:data:`~sklearn_rank.metrics.CONVENTION_METRICS`): under ``convention="trec_eval"``,
    ERR, which trec_eval does not compute, keeps sklearn-rank's default conventions. A
    header or a report that named the preset over such a metric would claim that system's
    number: these are the metrics to say apart.

    Parameters
    ----------
    metrics : list of str
        Metric names, such as ``"ndcg@10"`` or ``"err@10"``.
    convention : str
        A preset of :data:`~sklearn_rank.metrics.CONVENTION_NAMES`.

    Returns
    -------
    outside : list of str
        The names of ``metrics``, as given and in their order, that the system of
        ``convention`` does not compute.

    Raises
    ------
    ValueError
        For an unknown convention or metric name.

    Examples
    --------
    >>> from sklearn_rank.metrics import outside_convention
    >>> outside_convention(["ndcg@10", "err@10", "map"], "trec_eval")
    ['err@10']
    >>> outside_convention(["ndcg@10", "map"], "lightgbm")
    []
    """
    from .._conventions import CONVENTION_METRICS, CONVENTION_NAMES

    if convention not in CONVENTION_METRICS:
        raise ValueError(f"Unknown convention {convention!r}. Valid conventions are: "
                         f"{', '.join(map(repr, CONVENTION_NAMES))}.")
    return [name for name in metrics
            if bind_metric(name).metric.name not in CONVENTION_METRICS[convention]]


def _rebuild(metric, options, convention, preset_ties):
    metric = METRICS[metric] if isinstance(metric, str) else metric
    return BoundMetric(metric, options, convention, preset_ties=preset_ties)


def grade_scale_message(metric, caller=None):
    """The message of a metric name whose grade scale is not declared (see
    :meth:`BoundMetric.check_declared_scale`)."""
    name = metric.strip()
    fixed_name = (f"{name[:-1]}, max_grade=4)" if name.endswith(")")
                  else f"{name}(max_grade=4)")
    if caller is None or caller.startswith("make_ranking_scorer"):
        declare = f"get_scorer({fixed_name!r}) or make_ranking_scorer({metric!r}, max_grade=4)"
    else:
        declare = f"{fixed_name!r}"
    return (
        f"{caller or repr(metric)}: {metric!r} divides the grades by the top grade of the "
        "relevance scale (max_grade), and none is declared. Left unset, it would be the "
        "largest grade of each cross-validation fold, so a fold's score would depend on which "
        "queries landed in it. Declare the top grade of your scale, e.g. for grades 0 to 4: "
        f"{declare}; or max_grade='query' to use each query's own top grade."
    )


# --------------------------------------------------------------------------------------
# Binding
# --------------------------------------------------------------------------------------


def bind_metric(metric, *, options=None, convention=None, caller=None, declared_scale=False):
    """Bind one metric to its options and convention: parse, merge, validate, resolve.

    Parameters
    ----------
    metric : str, Metric or BoundMetric
        A metric name (``"ndcg@10"``, ``"err@10(max_grade=4)"``, trec_eval's ``"P_10"``, a
        canonical key), a registry entry, or a bound metric, returned as it is.
    options : dict, default=None
        Options given besides the name; an option that the metric does not take, or one
        that the name fixes too, is an error.
    convention : str, default=None
        Preset of conventions.
    caller : str, default=None
        Who binds, for messages: ``"make_ranking_scorer('ndcg@10')"``...
    declared_scale : bool, default=False
        Refuse a metric whose grade scale is left to the data (see
        :meth:`BoundMetric.check_declared_scale`): scorers and eval metrics score subsets.

    Returns
    -------
    bound : BoundMetric

    See Also
    --------
    parse_metric : The registry entry and the options that a name fixes, unchecked.
    evaluate, evaluate_per_query, make_ranking_scorer : Accept bound metrics where they
        accept names.

    Examples
    --------
    A metric is bound once, and the value is passed wherever a metric name is accepted:

    >>> import numpy as np
    >>> from sklearn_rank.metrics import bind_metric, evaluate, make_ranking_scorer
    >>> bound = bind_metric("nDCG@10", convention="trec_eval")
    >>> bound
    BoundMetric('ndcg@10(gain=linear,ties=stable)', convention='trec_eval')
    >>> bind_metric(bound.key, convention="trec_eval") == bound
    True
    >>> y_true = np.array([2, 0, 1, 1, 0])
    >>> y_score = np.array([0.9, 0.8, 0.1, 0.7, 0.2])
    >>> evaluate(y_true, y_score, qid=[1, 1, 1, 2, 2], metrics=[bound])
    {'ndcg@10(gain=linear,ties=stable)': 0.9...}
    >>> scorer = make_ranking_scorer(bound)
    """
    options = {} if options is None else options
    if isinstance(metric, BoundMetric):
        return _rebound(metric, options, convention, caller, declared_scale)
    cached = _cache_key(options, convention)
    if isinstance(metric, str) and cached is not None:
        return _bind_cached(metric, cached, convention, caller, declared_scale)
    return _bind(metric, options, convention, caller, declared_scale)


# The option values whose bindings are cached: 1, 1.0 and True are equal keys of a dict, so
# that a key holds each value's type too; mappings and lists are bound each time.
_CACHED_TYPES = (type(None), bool, int, float, str)


def _cache_key(options, convention):
    """``options`` as a cache key, or None when a value (or the convention, to be refused
    by the validation) is not of :data:`_CACHED_TYPES`."""
    if type(convention) not in _CACHED_TYPES or any(
            type(value) not in _CACHED_TYPES for value in options.values()):
        return None
    return tuple((name, type(value), value) for name, value in options.items())


@functools.lru_cache(maxsize=1024)
def _bind_cached(name, options, convention, caller, declared_scale):
    # a plain name with simple options: tests and searches bind the same names many times
    return _bind(name, {k: v for k, _, v in options}, convention, caller, declared_scale)


def _bind(metric, options, convention, caller, declared_scale):
    if isinstance(metric, Metric):
        entry, fixed, name = metric, {}, metric.name
    else:
        entry, fixed = parse_metric(metric)
        name = metric
    caller = caller or f"bind_metric({name!r})"
    check_options(entry, fixed, options, caller)
    kernel_options = metric_options(entry, fixed, options)
    validate_parameter_constraints(
        {**entry.constraints, "convention": CONSTRAINTS["convention"]},
        {**kernel_options, "convention": convention}, caller_name=caller,
    )
    bound = _bound(entry, kernel_options, convention)
    if declared_scale:
        bound.check_declared_scale(name, caller)
    return bound


def _bound(entry, kernel_options, convention):
    """The bound metric of merged options (:func:`metric_options`), unchecked."""
    return BoundMetric(entry, entry.resolved(kernel_options, convention), convention,
                       preset_ties=kernel_options.get("ties", "stable") is None)


def _rebound(bound, options, convention, caller, declared_scale):
    """A bound metric given where a name is expected: itself, as it is."""
    if options:
        raise TypeError(
            f"{caller or 'bind_metric'} got option(s) {sorted(options)} for {bound!r}, whose "
            "options are bound already. Bind the name with them instead."
        )
    if convention is not None and convention != bound.convention:
        raise ValueError(
            f"{caller or 'bind_metric'} got convention={convention!r} for {bound!r}, which "
            f"is bound with convention={bound.convention!r}. Bind the name with the "
            "convention instead."
        )
    if declared_scale:
        bound.check_declared_scale(caller=caller)
    return bound


def check_options(metric, fixed, options, caller):
    """Refuse options the metric does not take, and options the name already fixes."""
    accepted = sorted(metric.option_names)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        close = [m for key in unknown for m in difflib.get_close_matches(key, accepted, n=1)]
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise TypeError(
            f"{caller} got option(s) {unknown} that {metric.name} does not take.{hint} "
            f"Its options are {accepted}."
        )
    repeated = sorted(set(options) & set(fixed))
    if repeated:
        raise ValueError(
            f"{caller} got option(s) {repeated} both in the metric name and as keywords "
            f"({', '.join(f'{k}={options[k]!r}' for k in repeated)}); give each option once."
        )


def bind_metrics(metrics, options=None, convention=None, *, caller):
    """Bind the metrics of one call, which share ``options``, as :func:`evaluate` does.

    Parameters
    ----------
    metrics : str, BoundMetric, or list of them
    options : dict, default=None
        Options applied to every named metric that takes them. An option that none takes,
        or that every metric taking it fixes in its name, is an error; bound metrics keep
        their own.
    convention : str, default=None
    caller : str
        The function, for messages: ``"evaluate"``.

    Returns
    -------
    plan : list of (str, BoundMetric)
        Each metric as the caller named it (a bound metric by its key), and its binding.
    """
    options = {} if options is None else options
    names = [metrics] if isinstance(metrics, (str, BoundMetric)) else list(metrics)
    cached = _cache_key(options, convention)
    if cached is None or not all(isinstance(n, (str, BoundMetric)) for n in names):
        return _bind_all(names, options, convention, caller)
    return list(_bind_all_cached(tuple(names), cached, convention, caller))


@functools.lru_cache(maxsize=1024)
def _bind_all_cached(names, options, convention, caller):
    return tuple(_bind_all(list(names), {k: v for k, _, v in options}, convention, caller))


def _bind_all(names, options, convention, caller):
    if not names:
        raise ValueError("metrics is empty: name at least one metric, e.g. ['ndcg@10'].")
    parsed = [(name, None, None) if isinstance(name, BoundMetric) else (name, *parse_metric(name))
              for name in names]
    named = [(name, m, fixed) for name, m, fixed in parsed if m is not None]
    accepted = {o for _, m, _ in named for o in m.option_names}
    unused = sorted(set(options) - accepted)
    if unused:
        raise TypeError(
            f"{caller}() got option(s) {unused} that none of the metrics {names} takes."
        )
    check_overridden([(m, fixed) for _, m, fixed in named], options, names, f"{caller}()")
    plan = []
    for name, metric, fixed in parsed:
        if metric is None:
            plan.append((name.key, _rebound(name, {}, convention, caller, False)))
            continue
        kernel_options = metric_options(metric, fixed, options)
        validate_parameter_constraints(metric.constraints, kernel_options,
                                       caller_name=f"{caller} (metric {name!r})")
        plan.append((name, _bound(metric, kernel_options, convention)))
    return plan


def check_overridden(parsed, options, names, caller):
    """Raise if an option would have no effect: every metric taking it fixes it in its name.

    ``parsed`` holds ``(metric, fixed)`` pairs from :func:`parse_metric`; options fixed in a
    name win over ``options``, and an option that they all override is a mistake.
    """
    overridden = sorted(
        key for key in options
        if all(key in fixed for m, fixed in parsed if key in m.option_names)
    )
    if overridden:
        raise TypeError(
            f"{caller} got option(s) {overridden}, but every metric of {names} that takes "
            "them fixes them in its name, and options fixed in a name win: they would have "
            "no effect. Drop them, or drop them from the names."
        )


def as_plan(plan, convention=None):
    """``[(label, BoundMetric)]`` of a plan of bound metrics, or of the older
    ``(label, metric, kernel_options)`` items (merged options, as :func:`metric_options`
    gives them, validated or not), bound to ``convention``."""
    return [item if len(item) == 2 else (item[0], _bound(item[1], item[2], convention))
            for item in plan]
