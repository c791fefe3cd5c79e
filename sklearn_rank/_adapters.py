"""What the booster adapters share: query ids in, the boosters' grouping out, scores back.

The adapters :class:`sklearn_rank.lightgbm.LGBMRanker`, :class:`sklearn_rank.xgboost.XGBRanker`
and :class:`sklearn_rank.catboost.CatBoostRanker` subclass the boosters' own rankers. Everything
they have in common is here, written once:

- query ids come per row, as ``qid=`` (routed metadata, requested by default) or as a column of
  a DataFrame ``X`` (read, then dropped so the model never sees it as a feature); without
  either, ``fit`` and ``score`` raise, naming both ways and the transformer in a pipeline that
  most often loses the column: all rows form one query only when asked for, with
  ``qid="single_query"``;
- rows are sorted stably by query when the queries are not contiguous, and the boosters get
  the grouping they want (group sizes, group ids); ``predict`` works row by row, so scores come
  back in the caller's row order;
- eval sets carry their own query ids (``eval_qid``, or their own column);
- with early stopping and no eval set, a ``validation_fraction`` of the training queries,
  whole queries drawn with the estimator's random state, is held out as the eval set, so that
  no query is both trained and monitored on;
- ``score`` computes the ``scoring`` metric with :mod:`sklearn_rank.metrics`;
- the booster eval metrics of :func:`sklearn_rank.lightgbm.eval_metric` and
  :func:`sklearn_rank.xgboost.eval_metric` share :class:`BoosterEvalMetric`.
"""

import contextlib
import inspect
import math
from numbers import Real

import numpy as np
from scipy import sparse
from sklearn import get_config
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._metadata_requests import _MetadataRequester
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .metrics import evaluate, parse_metric
from .metrics._ranking import CONSTRAINTS
from .metrics._registry import metric_options
from .metrics._scorer import _check_options, check_grade_scale
from .utils._param_validation import Interval, validate_parameter_constraints
from .utils._qid import (
    QID_HELP,
    _is_dataframe,
    _num_rows,
    drop_qid_column,
    group_sizes,
    has_qid_column,
    resolve_qid,
)

#: The ``qid`` value that makes all rows one query, on purpose: the explicit opt-in that
#: replaces the silent default (no query ids) that the adapters refuse.
SINGLE_QUERY = "single_query"

#: The parameters every adapter adds to its booster's, with their defaults.
OWN_PARAMETERS = {"qid_column": "qid", "scoring": "ndcg@10", "validation_fraction": 0.1}

_OWN_CONSTRAINTS = {
    "qid_column": [str, None],
    "scoring": [str],
    "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
}

# The adapters' own parameters, as their docstrings describe them.
OWN_PARAMETERS_DOC = """qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query id of each row, read when no ``qid`` is
        given and dropped before the data reach the booster, in ``fit``, ``predict`` and
        ``score``. ``None`` disables the column.

    scoring : str, default: ``"ndcg@10"``
        Metric that :meth:`score` computes with :mod:`sklearn_rank.metrics`, by name
        (``"ndcg@10"``, ``"err@10"``, ``"map"``, ``"mrr@10"``, ``"p@5"``...), and that early
        stopping monitors when no other eval metric is named.

    validation_fraction : float, default=0.1
        Fraction of the training queries held out, whole, as the eval set of early stopping
        when early stopping is on and ``fit`` gets no ``eval_set``. At least one query is held
        out and at least one kept. The queries are drawn with the estimator's random state."""


def adapter_signature(booster_class, own, *, var_keyword=True):
    """The signature of an adapter's ``__init__``: the booster's parameters, then its own.

    The parameters of the ``__init__`` methods along ``booster_class``'s MRO are collected
    as long as each passes ``**kwargs`` on to its parent (the first definition of a name
    wins, so a subclass's default beats its parent's) and made keyword-only; ``own`` (name ->
    default) come after them, then ``**kwargs`` when the booster takes arbitrary parameters.
    scikit-learn's ``get_params`` reads parameter names from this signature, so ``clone``
    and ``set_params`` keep every one of them.
    """
    collected = {}
    for klass in booster_class.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]
        for param in params:
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            collected.setdefault(param.name, param.replace(kind=param.KEYWORD_ONLY))
        if not any(param.kind == param.VAR_KEYWORD for param in params):
            break  # the parents' parameters are not this class's
    for name, default in own.items():
        collected.setdefault(name, inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                                     default=default))
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
              *collected.values()]
    if var_keyword:
        params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


class QuerySet:
    """One data set with the rows of each query contiguous, as the boosters want it.

    Attributes
    ----------
    X, y : the rows, grouped by query.
    qid : ndarray
        The caller's query ids, in the grouped row order.
    sizes : ndarray of int
        Number of rows of each query, in order.
    sample_weight : ndarray or None
        Per-row weights, grouped.
    extras : dict
        Other per-row arrays (init scores, base margins...), grouped.
    has_qid : bool
        Whether query ids were given (False: ``qid="single_query"``, all rows form one
        query).
    reordered : bool
        Whether the rows are not in the caller's order (sorted by query, or a subset).
    """

    def __init__(self, X, y, qid, sizes, sample_weight, extras, has_qid, reordered=False):
        self.X = X
        self.y = y
        self.qid = qid
        self.sizes = sizes
        self.sample_weight = sample_weight
        self.extras = extras
        self.has_qid = has_qid
        self.reordered = reordered

    @property
    def n_queries(self):
        return len(self.sizes)

    @property
    def codes(self):
        """Query number of each row, 0 to ``n_queries - 1``, non-decreasing."""
        return np.repeat(np.arange(len(self.sizes)), self.sizes)

    def query_weight(self):
        """Weight of each query: the mean of its rows' weights, as the metrics weigh queries."""
        if self.sample_weight is None:
            return None
        return np.bincount(self.codes, weights=self.sample_weight) / self.sizes

    def take(self, rows):
        """The set restricted to ``rows``, increasing positions: queries stay contiguous."""
        qid = self.qid[rows]
        _, sizes = group_sizes(qid)
        return QuerySet(
            _safe_indexing(self.X, rows), self.y[rows], qid, sizes,
            None if self.sample_weight is None else self.sample_weight[rows],
            {key: _safe_indexing(value, rows) for key, value in self.extras.items()},
            self.has_qid, reordered=True,
        )


def check_target(y, n_samples, caller):
    """1-D numeric labels, one per row (a column vector is raveled with a warning)."""
    if y is None:
        raise ValueError(
            f"{caller} requires y to be passed, but the target y is None: give the relevance "
            "label of every row."
        )
    if hasattr(y, "to_numpy") and not isinstance(y, np.ndarray):
        y = y.to_numpy()
    y = column_or_1d(np.asarray(y), warn=True)
    if y.dtype.kind == "O":
        with contextlib.suppress(TypeError, ValueError):  # the dtype check below says why
            y = y.astype(np.float64)
    if y.dtype.kind not in "biuf":
        raise ValueError(
            f"{caller} needs numeric relevance labels; got y of dtype {y.dtype}."
        )
    if len(y) != n_samples:
        raise ValueError(
            f"{caller}: X has {n_samples} rows but y has {len(y)} labels; give one label per "
            "row."
        )
    return y


def check_row_weight(sample_weight, n_samples, caller, name="sample_weight"):
    """Per-row weights: finite, non-negative, not all zero; None passes through."""
    if sample_weight is None:
        return None
    if hasattr(sample_weight, "to_numpy") and not isinstance(sample_weight, np.ndarray):
        sample_weight = sample_weight.to_numpy()
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.ndim != 1 or len(weight) != n_samples:
        raise ValueError(
            f"{name} for {caller} must hold one weight per row: shape ({n_samples},); got "
            f"shape {weight.shape}."
        )
    if not np.isfinite(weight).all() or (weight < 0).any():
        raise ValueError(f"{name} for {caller} must hold finite non-negative numbers.")
    if n_samples and not weight.any():
        raise ValueError(f"{name} for {caller} is all zeros: no row would count.")
    return weight


def check_grades(y, caller, *, max_grade=None, binary=False, objective, fix):
    """Labels a booster's ranking objective accepts: integer grades within its range.

    Raised before the data reach the booster, so that the user sees which row is wrong and
    how to fix it instead of a C++ error.
    """
    y = np.asarray(y, dtype=np.float64)
    if binary:
        bad = (y != 0) & (y != 1)
        need = "binary relevance labels, 0 or 1"
    else:
        bad = ~np.isfinite(y) | (y < 0) | (y != np.round(y))
        if max_grade is not None:
            bad |= y > max_grade
        need = ("integer relevance grades from 0" if max_grade is None
                else f"integer relevance grades from 0 to {max_grade}")
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{caller}: the {objective} objective needs {need}; got {float(y[row])!r} at row "
            f"{row}. "
            f"{fix}"
        )


def is_single_query(qid, caller):
    """Whether ``qid`` is the opt-in ``"single_query"``; other strings are refused."""
    if isinstance(qid, str):
        if qid == SINGLE_QUERY:
            return True
        raise ValueError(
            f"qid for {caller} must hold one query id per row, or be the string "
            f"{SINGLE_QUERY!r} to make all rows one query; got the string {qid!r}."
        )
    return False


def missing_qid_message(X, qid_column, caller, *, action="train on", eval_index=None):
    """Why no query ids reached ``caller``, both ways to pass them, and the usual culprit.

    The commonest way to get here is a transformer in a Pipeline that turned a DataFrame
    with a query-id column into an array (or renamed the column), with routing off; the
    message says so, and names the wrapper that carries the column through.
    """
    column = qid_column or "qid"
    if _is_dataframe(X):
        names = [str(name) for name in X.columns]
        shown = ", ".join(repr(name) for name in names[:5]) + (", ..." if len(names) > 5 else "")
        what = f"X is a DataFrame with no {column!r} column (its columns: {shown})"
    else:
        kind = ("a numpy array" if isinstance(X, np.ndarray)
                else "a sparse matrix" if sparse.issparse(X) else f"a {type(X).__name__}")
        what = f"X is {kind}, which has no query-id column"
    routing = "on" if get_config().get("enable_metadata_routing") else "off"
    if eval_index is not None:
        return (
            f"{caller} needs the query id of every row, and got none: {what}, and eval_qid "
            "has no entry for it. Pass eval_qid=[qid_val, ...] "
            "(one array of per-row query ids per eval set, as qid= for the training rows), or "
            f"make that eval set's X a pandas or polars DataFrame with a {column!r} column. "
            f"An entry {SINGLE_QUERY!r} in eval_qid makes that eval set one query, on purpose."
        )
    return (
        f"{caller} needs the query id of every row, and got none: {what}, and no qid= was "
        f"given (metadata routing is {routing}). "
        + QID_HELP.format(column=column)
        + " In a search or cross-validation without routing, groups=qid reaches the splitter "
        "only. If X came through a transformer of a Pipeline (StandardScaler, ...), that "
        f"transformer turned the DataFrame into an array or dropped its {column!r} column: "
        "wrap it as sklearn_rank.preprocessing.KeepQueryId(StandardScaler()), which "
        "transforms the other columns and carries the query ids through, or route qid=. "
        f"To {action} all rows as one query on purpose, pass qid={SINGLE_QUERY!r}."
    )


def check_column_qid(qid, qid_column, caller):
    """Refuse query ids read from a column that a transformer has visibly changed.

    Query ids are labels (integers or strings); a column of non-integer numbers is what
    ``StandardScaler().set_output(transform="pandas")`` or a ``QuantileTransformer`` leaves
    of them, and reading those as query ids may merge queries (or fit on ids turned
    features).
    """
    if qid.dtype.kind != "f":
        return
    fraction = np.isfinite(qid) & (qid != np.round(qid))
    if fraction.any():
        row = int(np.flatnonzero(fraction)[0])
        raise ValueError(
            f"{caller}: the {qid_column!r} column of X holds non-integer numbers (e.g. "
            f"{float(qid[row])!r} at row {row}), not query ids: a transformer before the "
            "ranker probably transformed it, e.g. StandardScaler().set_output("
            "transform='pandas') or a QuantileTransformer, which can merge queries. Wrap the "
            "transformer as sklearn_rank.preprocessing.KeepQueryId(...), which leaves the "
            "column alone, or route qid= with metadata routing. If these numbers really are "
            "your query ids, make them integers or strings."
        )


def per_eval_set(values, n_sets, name):
    """One entry per eval set (None for none)."""
    if values is None:
        return [None] * n_sets
    if not isinstance(values, (list, tuple)) or len(values) != n_sets:
        got = f"{len(values)} entries" if isinstance(values, (list, tuple)) else type(values)
        raise ValueError(
            f"{name} must be a list with one entry per eval set ({n_sets}), e.g. "
            f"{name}=[qid_val] for eval_set=[(X_val, y_val)]; got {got}."
        )
    return list(values)


def as_eval_list(eval_set):
    """``eval_set`` as a list of ``(X, y)`` pairs; a single pair is accepted."""
    if eval_set is None:
        return []
    if not isinstance(eval_set, (list, tuple)):
        raise ValueError(
            "eval_set must be a list of (X, y) pairs, e.g. eval_set=[(X_val, y_val)] with "
            f"eval_qid=[qid_val]; got {type(eval_set).__name__}."
        )
    if isinstance(eval_set, tuple) and len(eval_set) == 2 and not isinstance(eval_set[0], tuple):
        return [eval_set]
    eval_set = list(eval_set)
    for i, pair in enumerate(eval_set):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(
                f"eval_set must be a list of (X, y) pairs; eval_set[{i}] is not a pair."
            )
    return eval_set


def _as_rows(X):
    """``X`` in a form every booster reads, with rows.

    Lists and array-likes without ``shape`` become arrays; sparse input other than CSR and
    CSC matrices (scipy's sparse arrays, COO, DOK...) becomes a CSR matrix, which the boosters
    read without a warning (LightGBM 4.7 cannot predict on sparse arrays at all).
    """
    if isinstance(X, (list, tuple)) or (hasattr(X, "__array__") and not hasattr(X, "shape")):
        return np.asarray(X)
    if sparse.issparse(X) and not isinstance(X, (sparse.csr_matrix, sparse.csc_matrix)):
        return sparse.csr_matrix(X)
    return X


class RankerAdapter(_MetadataRequester):
    """Mixin of the booster adapters; put it first among the bases.

    An adapter sets ``_rejected`` (fit parameters replaced by ``qid``, with the reason),
    ``_booster_metric_names`` and ``_eval_metric_class`` (when it takes sklearn-rank eval
    metrics), and implements ``_early_stopping_requested`` and ``_holdout_random_state``,
    and, where the booster has limits, ``_check_labels`` and ``_check_sizes``.
    """

    # Under metadata routing, fit and score ask for the query ids without being told.
    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    _rejected = {}

    # ------------------------------------------------------------------ parameters

    def _validate_own_params(self):
        params = {name: getattr(self, name) for name in _OWN_CONSTRAINTS}
        validate_parameter_constraints(_OWN_CONSTRAINTS, params, caller_name=type(self).__name__)
        # score() is called on each fold of a search: a metric that needs the grade scale
        # must declare it, or each fold would be scored on its own scale
        check_grade_scale(self.scoring, caller=f"{type(self).__name__}(scoring={self.scoring!r})")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Neither a regressor (score is not R^2) nor a classifier: scikit-learn has no ranker
        # type, so the adapters declare none, whatever the booster says.
        tags.estimator_type = None
        tags.target_tags.required = True
        return tags

    # ------------------------------------------------------------------ data

    def _reject(self, fit_params):
        for name, why in self._rejected.items():
            if fit_params.pop(name, None) is not None:
                raise ValueError(
                    f"{type(self).__name__}.fit takes query ids, not {name}=: {why} "
                    "Pass qid= (one query id per row, in any order) or a DataFrame X with a "
                    f"{self.qid_column or 'qid'!r} column; eval sets take eval_qid=[...]."
                )

    def _resolve_qid(self, X, qid, caller, *, action="train on", eval_index=None):
        """``(X without its query-id column, qid)``; ``qid`` is None for ``"single_query"``.

        Raises when neither ``qid`` nor the column gives query ids, and when the column's
        ids were visibly transformed.
        """
        if is_single_query(qid, caller):
            return drop_qid_column(X, self.qid_column), None
        from_column = qid is None and has_qid_column(X, self.qid_column)
        X_features, qid = resolve_qid(X, qid, qid_column=self.qid_column, caller=caller,
                                      required=False)
        if qid is None:
            raise ValueError(missing_qid_message(X, self.qid_column, caller, action=action,
                                                 eval_index=eval_index))
        if from_column:
            check_column_qid(qid, self.qid_column, caller)
        return X_features, qid

    def _query_set(self, X, y, qid, sample_weight, extras, *, caller, eval_index=None):
        """Resolve the query ids of one data set, check it and group its rows by query."""
        X, qid = self._resolve_qid(_as_rows(X), qid, caller, eval_index=eval_index)
        n_samples = _num_rows(X)
        y = check_target(y, n_samples, caller)
        has_qid = qid is not None
        if not has_qid:
            qid = np.zeros(n_samples, dtype=np.intp)
        sample_weight = check_row_weight(sample_weight, n_samples, caller)
        self._check_labels(y, caller)
        extras = {key: value for key, value in extras.items() if value is not None}
        order, sizes = group_sizes(qid)
        if order is not None:
            X = _safe_indexing(X, order)
            y, qid = y[order], qid[order]
            if sample_weight is not None:
                sample_weight = sample_weight[order]
            extras = {key: _safe_indexing(value, order) for key, value in extras.items()}
        self._check_sizes(sizes, caller, has_qid)
        return QuerySet(X, y, qid, sizes, sample_weight, extras, has_qid,
                        reordered=order is not None)

    def _check_labels(self, y, caller):
        """Raise on labels the booster's objective would reject (adapters override)."""

    def _check_sizes(self, sizes, caller, has_qid):
        """Raise on query sizes the booster would reject (adapters override)."""

    def _prepare_fit(self, X, y, qid, sample_weight, eval_set, eval_qid, eval_sample_weight,
                     fit_params, *, extras=(), eval_extras=()):
        """Validate, group by query, and hold out validation queries for early stopping.

        ``extras`` and ``eval_extras`` name the per-row fit parameters (and per-eval-set lists
        of per-row arrays) that move with the rows; they are taken out of ``fit_params``.

        Returns ``(train, evals)``: a :class:`QuerySet` and a list of them.
        """
        self._validate_own_params()
        self._reject(fit_params)
        name = type(self).__name__
        train = self._query_set(
            X, y, qid, sample_weight, {key: fit_params.pop(key, None) for key in extras},
            caller=f"{name}.fit",
        )
        eval_set = as_eval_list(eval_set)
        n_sets = len(eval_set)
        eval_qid = per_eval_set(eval_qid, n_sets, "eval_qid")
        eval_sample_weight = per_eval_set(eval_sample_weight, n_sets, "eval_sample_weight")
        eval_rows = {key: per_eval_set(fit_params.pop(key, None), n_sets, key)
                     for key in eval_extras}
        evals = [
            self._query_set(
                X_eval, y_eval, eval_qid[i], eval_sample_weight[i],
                {key: value[i] for key, value in eval_rows.items()},
                caller=f"{name}.fit (eval_set[{i}])", eval_index=i,
            )
            for i, (X_eval, y_eval) in enumerate(eval_set)
        ]
        self.validation_queries_ = None
        if not evals and self._early_stopping_requested(fit_params):
            train, held_out = self._hold_out(train)
            evals = [held_out]
        return train, evals

    def _hold_out(self, train):
        """Split whole training queries into (training, validation) for early stopping."""
        if train.n_queries < 2:
            what = ("has a single query" if train.has_qid
                    else f"is one query (qid={SINGLE_QUERY!r})")
            raise ValueError(
                f"{type(self).__name__}: early stopping holds out validation_fraction="
                f"{self.validation_fraction} of the training queries, but the training data "
                f"{what}. Pass qid= (or a {self.qid_column or 'qid'!r} column), or an "
                "eval_set with eval_qid."
            )
        n_held = math.ceil(self.validation_fraction * train.n_queries)
        n_held = min(max(n_held, 1), train.n_queries - 1)
        random_state = self._holdout_random_state()
        if not isinstance(random_state, np.random.Generator):
            random_state = check_random_state(random_state)
        held = np.zeros(train.n_queries, dtype=bool)
        held[random_state.choice(train.n_queries, n_held, replace=False)] = True
        held_rows = np.repeat(held, train.sizes)
        validation = train.take(np.flatnonzero(held_rows))
        self.validation_queries_ = validation.qid[np.r_[0, np.cumsum(validation.sizes)[:-1]]]
        return train.take(np.flatnonzero(~held_rows)), validation

    # ------------------------------------------------------------------ eval metrics

    #: Regular expression of the metric names the booster computes itself, which keep the
    #: booster's meaning; any other name of sklearn-rank's registry is computed by sklearn-rank.
    _booster_metric_names = None
    _eval_metric_class = None

    def _split_eval_metrics(self, eval_metric):
        """Booster metrics (names and foreign callables) apart from sklearn-rank's.

        Returns ``(booster, ours)``: a list of entries for the booster, and a list of
        sklearn-rank eval metric objects.
        """
        entries = [] if eval_metric is None else (
            list(eval_metric) if isinstance(eval_metric, (list, tuple)) else [eval_metric])
        booster, ours = [], []
        for entry in entries:
            if isinstance(entry, self._eval_metric_class):
                ours.append(entry)
            elif isinstance(entry, str) and not self._booster_metric_names.match(entry):
                try:
                    parse_metric(entry)
                except ValueError:
                    booster.append(entry)  # the booster's to accept or reject
                else:
                    ours.append(self._eval_metric_class(entry))
            else:
                booster.append(entry)
        return booster, ours

    # ------------------------------------------------------------------ predict, score

    def predict(self, X, **kwargs):
        """Predict a ranking score for each row, in the order of the rows of ``X``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame's query-id column (``qid_column``) is dropped first.
        **kwargs
            Passed to the booster's ``predict``.

        Returns
        -------
        y_score : ndarray of shape (n_samples,)
            Higher ranks first, within each query.
        """
        check_is_fitted(self)
        return super().predict(drop_qid_column(_as_rows(X), self.qid_column), **kwargs)

    def score(self, X, y, qid=None, sample_weight=None):
        """Compute the ``scoring`` metric of the predictions, averaged over queries.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame may hold the query ids in its ``qid_column``.
        y : array-like of shape (n_samples,)
            Graded relevance of each row.
        qid : array-like of shape (n_samples,) or "single_query", default=None
            Query id of each row, in any order; taken from ``X[qid_column]`` when None.
            Requested by default under metadata routing. Without query ids ``score`` raises;
            ``"single_query"`` scores all rows as one query, on purpose.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; a query weighs the mean of its rows' weights.

        Returns
        -------
        score : float
            The ``scoring`` metric, e.g. ``nDCG@10``; higher is better.
        """
        X = _as_rows(X)
        caller = f"{type(self).__name__}.score"
        single = is_single_query(qid, caller)
        found = single or qid is not None or has_qid_column(X, self.qid_column)
        # A DataFrame without its query-id column is reported at once; other input without
        # query ids only after predict, which reports a wrong number of features first.
        if found or _is_dataframe(X):
            _, qid = self._resolve_qid(X, qid, caller, action="score")
        y_score = self.predict(X)
        if not found:
            self._resolve_qid(X, None, caller, action="score")  # raises
        if single:
            qid = np.zeros(len(y_score), dtype=np.intp)
        return evaluate(y, y_score, qid=qid, metrics=[self.scoring],
                        sample_weight=sample_weight)[self.scoring]


class BoosterEvalMetric:
    """An sklearn-rank metric as a booster's custom eval metric (base of the booster ones).

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"err@10"``.
    convention : str or None
        Preset of conventions.
    **options
        Options of the metric.
    """

    #: Whether the booster should maximise the value (all registry metrics: higher is better).
    maximize = True

    def __init__(self, name, *, convention=None, **options):
        metric, fixed = parse_metric(name)
        caller = f"eval_metric({name!r})"
        _check_options(metric, name, fixed, options, caller)
        # every fit of a search monitors its own validation queries: one declared scale
        check_grade_scale(name, options=options, convention=convention, caller=caller)
        validate_parameter_constraints(
            {**metric.constraints, "convention": CONSTRAINTS["convention"]},
            {**metric_options(metric, fixed, options), "convention": convention},
            caller_name=caller,
        )
        self.name = name
        self.convention = convention
        self.options = options
        self.maximize = metric.higher_is_better
        # The booster's name of the metric, in its logs and evals_result_: no spaces, which
        # XGBoost's log parser would split on.
        self.__name__ = "".join(name.split())

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in self.options.items())
        if self.convention is not None:
            extra += f", convention={self.convention!r}"
        return f"{self._public_name}({self.name!r}{extra})"

    def __eq__(self, other):
        return (type(self) is type(other) and self.name == other.name
                and self.convention == other.convention and self.options == other.options)

    def __hash__(self):
        return hash((type(self), self.name, self.convention, tuple(sorted(self.options))))

    #: How to give the booster's data its query groups (the booster adapters set it).
    _how_to_group = "give the data its query groups"

    def _value(self, y_true, y_score, sizes, sample_weight=None):
        """The metric of rows grouped by query, ``sizes`` rows per query.

        ``sizes=None`` (the booster holds no groups) raises: a ranking metric over all rows
        as one query is never meant silently; ``sizes=[n_rows]`` asks for it.
        """
        y_score = np.asarray(y_score)
        if y_score.ndim != 1:
            raise ValueError(
                f"{self!r} needs one score per row; got predictions of shape {y_score.shape}."
            )
        if sizes is None:
            raise ValueError(
                f"{self!r} needs the query groups of the data it evaluates, and the data has "
                f"none: {self._how_to_group}. For all rows as one query, on purpose, give "
                "one group of all rows (group=[n_rows])."
            )
        sizes = np.asarray(sizes, dtype=np.intp)
        qid = np.repeat(np.arange(len(sizes)), sizes)
        return evaluate(y_true, y_score, qid=qid, metrics=[self.name],
                        sample_weight=sample_weight, convention=self.convention,
                        **self.options)[self.name]
