"""LightGBM's LambdaRank with per-row query ids, routing, early stopping and ranking scores."""

import inspect
import re

import lightgbm

from .._adapters import (
    OWN_PARAMETERS,
    OWN_PARAMETERS_DOC,
    RankerAdapter,
    adapter_signature,
    check_grades,
    split_eval_metrics,
)
from ._eval_metric import LightGBMEvalMetric
from ._internals import edit_booster_params

# LightGBM's names (and aliases) of the parameters the adapter reads.
_OBJECTIVE = ("objective", "objective_type", "app", "application", "loss")
_METRIC = ("metric", "metrics", "metric_types")
_EARLY_STOPPING = ("early_stopping_round", "early_stopping_rounds", "early_stopping",
                   "n_iter_no_change")
# Objectives that read the labels as graded relevance through label_gain (LightGBM's
# DCGCalculator), and their aliases.
_GRADED_OBJECTIVES = {"lambdarank", "rank_xendcg", "xendcg", "xe_ndcg", "xe_ndcg_mart",
                      "xendcg_mart"}
_DEFAULT_LABEL_GAIN_SIZE = 31  # 2**i - 1 for i = 0..30
_MAX_QUERY_ROWS = 10000  # LightGBM's limit on the rows of one query of a ranking objective
# LightGBM 4.7 deprecates fit(eval_set=) for fit(eval_X=, eval_y=).
_HAS_EVAL_XY = "eval_X" in inspect.signature(lightgbm.LGBMRanker.fit).parameters
# The class of lightgbm.early_stopping's callbacks, from the public function (the class itself
# is private).
_EARLY_STOPPING_CALLBACK = type(lightgbm.early_stopping(stopping_rounds=1))
# LightGBM's own ranking metrics, which keep LightGBM's meaning as eval_metric names.
_BOOSTER_METRIC_NAMES = re.compile(r"^(ndcg|map|average_precision)$")


def _booster_params(ranker, params):
    """LightGBM's parameters for the booster, without the adapter's own."""
    for name in OWN_PARAMETERS:
        params.pop(name, None)
    if params.get("early_stopping_rounds", 0) is None:
        params.pop("early_stopping_rounds")
    if getattr(ranker, "_monitor_scoring_only", False):
        params["metric"] = "None"
    return params


@edit_booster_params(_booster_params)
class LGBMRanker(RankerAdapter, lightgbm.LGBMRanker):
    """LightGBM's ranker that takes one query id per row, in any order.

    A subclass of :class:`lightgbm.LGBMRanker` with every one of its parameters (and any
    LightGBM parameter through ``**kwargs``), which adds what ranking in scikit-learn needs:

    - ``fit(X, y, qid=qid)`` takes a query id per row, in any order and of any sortable type
      (ints, strings...), instead of group sizes: rows are sorted stably by query when the
      queries are not contiguous; ``predict`` scores rows in the caller's order. With
      metadata routing off, the query ids may be a ``qid_column`` of a pandas or polars
      DataFrame ``X``, which the model never sees as a feature.
    - metadata routing: ``fit`` and ``score`` request ``qid`` by default, so
      ``GridSearchCV(...).fit(X, y, qid=qid)`` with
      ``sklearn.set_config(enable_metadata_routing=True)`` hands each fold its query ids.
    - ``score`` computes ``scoring`` (``nDCG@10`` by default) with :mod:`sklearn_rank.metrics`.
    - early stopping without leakage: with ``early_stopping_rounds`` set (or LightGBM's
      ``early_stopping_round``, or an :func:`lightgbm.early_stopping` callback) and no
      ``eval_set``, ``fit`` holds out ``validation_fraction`` of the training queries, whole,
      as the eval set. Unless a ``metric`` parameter or an ``eval_metric`` says otherwise,
      early stopping then monitors ``scoring`` alone, computed by sklearn-rank, so the number
      of trees is chosen by the metric that ``score`` and the scorers report.
    - labels LightGBM would reject (non-integer grades, grades beyond ``label_gain``) and
      queries over LightGBM's 10000 rows raise a ``ValueError`` that names the row and the fix.

    Parameters
    ----------
    **kwargs
        Every parameter of :class:`lightgbm.LGBMRanker` (``n_estimators``, ``learning_rate``,
        ``num_leaves``, ``objective``, ``random_state``, ``n_jobs``...) and any other LightGBM
        parameter, with LightGBM's meaning and defaults.

    %(own)s

    early_stopping_rounds : int, default=None
        Stop when the monitored metric has not improved on the eval set for this many
        rounds (LightGBM's ``early_stopping_round``); None disables early stopping.

    Attributes
    ----------
    validation_queries_ : ndarray or None
        Query ids of the training queries held out for early stopping, or None.

    booster_, best_iteration_, evals_result_, feature_importances_...
        As in :class:`lightgbm.LGBMRanker`.

    See Also
    --------
    sklearn_rank.lightgbm.eval_metric : Any sklearn-rank metric as a LightGBM eval metric.
    sklearn_rank.xgboost.XGBRanker, sklearn_rank.catboost.CatBoostRanker : The same for
        XGBoost and CatBoost.

    Notes
    -----
    Weights are per row, as LightGBM takes them; :meth:`score` weighs a query by the mean of its
    rows' weights. ``fit`` and :meth:`score` without query ids raise, naming both ways to pass
    them: all rows as one giant query is never what a search means, and the commonest cause is a
    transformer of a pipeline that lost the query-id column (see
    :class:`sklearn_rank.preprocessing.KeepQueryId`). ``qid="single_query"`` makes all rows one
    query on purpose. Eval metric names LightGBM knows (``"ndcg"``, ``"map"``,
    ``"average_precision"``) keep LightGBM's meaning; every other name of sklearn-rank's
    registry given to ``fit``'s ``eval_metric`` (``"err@10"``, ``"ndcg@10"``, ``"mrr"``...) is
    computed by sklearn-rank. With an ``eval_metric``, LightGBM also evaluates its own metric
    (the ``metric`` parameter, nDCG at ``eval_at`` by default) and early stopping stops on
    whichever metric stalls first, as in LightGBM: pass ``metric="None"`` to monitor the
    ``eval_metric`` alone.

    Examples
    --------
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.lightgbm import LGBMRanker
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> model = LGBMRanker(n_estimators=20, verbose=-1).fit(X, y, qid=qid)
    >>> model.predict(X).shape == y.shape
    True
    >>> 0.5 < model.score(X, y, qid=qid) <= 1
    True

    Early stopping on ``ERR@10``, on queries held out from the training data:

    >>> model = LGBMRanker(n_estimators=200, early_stopping_rounds=5, scoring="err@10(max_grade=4)",
    ...                    random_state=0, verbose=-1).fit(X, y, qid=qid)
    >>> model.best_iteration_ < 200, len(model.validation_queries_)
    (True, 4)
    """

    _rejected = {
        "group": "LightGBM's group sizes require rows sorted by query and break when a "
                 "cross-validation fold or a pipeline reorders them.",
        "eval_group": "eval sets take one query id per row, like the training data.",
    }
    def __init__(self, *, qid_column="qid", scoring="ndcg@10", validation_fraction=0.1,
                 early_stopping_rounds=None, **kwargs):
        self.qid_column = qid_column
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.early_stopping_rounds = early_stopping_rounds
        super().__init__(**kwargs)

    __init__.__signature__ = adapter_signature(
        lightgbm.LGBMRanker, {**OWN_PARAMETERS, "early_stopping_rounds": None})

    def fit(self, X, y, *, qid=None, sample_weight=None, eval_set=None, eval_qid=None,
            eval_sample_weight=None, **fit_params):
        """Fit the ranker on rows with one query id each, in any order.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame may hold the query ids in its ``qid_column``.
        y : array-like of shape (n_samples,)
            Relevance grades: integers from 0 to 30 with LightGBM's default ``label_gain``.
        qid : array-like of shape (n_samples,) or "single_query", default=None
            Query id of each row, in any order, of any sortable type. Taken from
            ``X[qid_column]`` when None; without either, ``fit`` raises. Requested by default
            under metadata routing. ``"single_query"`` trains on all rows as one query, on
            purpose (a DataFrame's query-id column is then dropped unread).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights.
        eval_set : list of (X, y) pairs, default=None
            Eval sets, each with its own query ids (``eval_qid`` or its own column).
            LightGBM's ``eval_X`` and ``eval_y`` are accepted too.
        eval_qid : list of array-like, default=None
            One array of per-row query ids per eval set (or ``"single_query"``); required for
            an eval set whose ``X`` has no query-id column.
        eval_sample_weight : list of array-like, default=None
            One array of row weights per eval set.
        **fit_params
            Other parameters of :meth:`lightgbm.LGBMRanker.fit` (``eval_metric``,
            ``eval_names``, ``eval_at``, ``init_score``, ``eval_init_score``, ``callbacks``,
            ``categorical_feature``...). ``eval_metric`` also takes names of sklearn-rank
            metrics. ``group`` and ``eval_group`` are replaced by ``qid`` and ``eval_qid``.

        Returns
        -------
        self : LGBMRanker
            Fitted estimator.
        """
        eval_set = _merge_eval_xy(eval_set, fit_params)
        train, evals = self._prepare_fit(
            X, y, qid, sample_weight, eval_set, eval_qid, eval_sample_weight, fit_params,
            extras=("init_score",), eval_extras=("eval_init_score",),
        )
        booster_metrics, ours = split_eval_metrics(
            fit_params.pop("eval_metric", None), _BOOSTER_METRIC_NAMES, LightGBMEvalMetric)
        monitor_scoring = bool(
            evals and not booster_metrics and not ours
            and self._early_stopping_requested(fit_params)
            and all(self.get_params().get(name) is None for name in _METRIC)
        )
        if monitor_scoring:
            ours = [LightGBMEvalMetric(self.scoring)]
        kwargs = {"sample_weight": train.sample_weight, "group": train.sizes,
                  "eval_metric": (booster_metrics + ours) or None}
        if "init_score" in train.extras:
            kwargs["init_score"] = train.extras["init_score"]
        if evals:
            kwargs["eval_group"] = [e.sizes for e in evals]
            if any(e.sample_weight is not None for e in evals):
                kwargs["eval_sample_weight"] = [e.sample_weight for e in evals]
            # held-out validation queries keep the init_score of their training rows
            eval_init = [e.extras.get("eval_init_score", e.extras.get("init_score"))
                         for e in evals]
            if any(init is not None for init in eval_init):
                kwargs["eval_init_score"] = eval_init
            if _HAS_EVAL_XY:
                kwargs["eval_X"] = tuple(e.X for e in evals)
                kwargs["eval_y"] = tuple(e.y for e in evals)
            else:
                kwargs["eval_set"] = [(e.X, e.y) for e in evals]
        # Read by _booster_params during this fit only: LightGBM's own metric would otherwise
        # be monitored too, and early stopping stops on whichever metric stalls first.
        self._monitor_scoring_only = monitor_scoring
        try:
            super().fit(train.X, train.y, **kwargs, **fit_params)
        finally:
            self._monitor_scoring_only = False
        return self

    # ------------------------------------------------------------------ hooks

    def _ranking_objective(self):
        params = self.get_params()
        for name in _OBJECTIVE:
            if params.get(name) is not None:
                return params[name]
        return "lambdarank"

    def _check_labels(self, y, caller):
        objective = self._ranking_objective()
        if not (isinstance(objective, str) and objective in _GRADED_OBJECTIVES):
            return
        label_gain = self.get_params().get("label_gain")
        if isinstance(label_gain, str):
            label_gain = label_gain.split(",")
        size = _DEFAULT_LABEL_GAIN_SIZE if label_gain is None else len(label_gain)
        check_grades(
            y, caller, max_grade=size - 1, objective=f"LightGBM {objective}",
            fix="Map the labels to grades 0, 1, 2..., or give label_gain= one gain per grade "
                "(LightGBM's default has 31: 2**i - 1 for i = 0 to 30).",
        )

    def _check_sizes(self, sizes, caller, has_qid):
        objective = self._ranking_objective()
        if not (isinstance(objective, str) and objective in _GRADED_OBJECTIVES):
            return
        if len(sizes) and sizes.max() > _MAX_QUERY_ROWS:
            why = ("" if has_qid else " qid='single_query' makes all rows one query: pass "
                   "one query id per row instead (qid=, or a DataFrame X with a query-id "
                   "column).")
            raise ValueError(
                f"{caller}: LightGBM's {objective} objective takes at most {_MAX_QUERY_ROWS} "
                f"rows per query; got a query of {int(sizes.max())} rows.{why}"
            )

    def _early_stopping_requested(self, fit_params):
        params = self.get_params()
        if any((params.get(name) or 0) > 0 for name in _EARLY_STOPPING):
            return True
        callbacks = fit_params.get("callbacks") or ()
        return any(isinstance(cb, _EARLY_STOPPING_CALLBACK) for cb in callbacks)

    def _holdout_random_state(self):
        return self.random_state


LGBMRanker.__doc__ = LGBMRanker.__doc__ % {"own": OWN_PARAMETERS_DOC}


def _merge_eval_xy(eval_set, fit_params):
    """LightGBM's ``eval_X``/``eval_y`` as ``eval_set`` pairs."""
    eval_X = fit_params.pop("eval_X", None)
    eval_y = fit_params.pop("eval_y", None)
    if eval_X is None and eval_y is None:
        return eval_set
    if eval_set is not None:
        raise ValueError("Give eval_set or eval_X and eval_y, not both.")
    if not isinstance(eval_X, tuple):
        eval_X, eval_y = (eval_X,), (eval_y,)
    if eval_y is None or len(eval_X) != len(eval_y):
        raise ValueError("eval_X and eval_y must hold as many data sets as each other.")
    return list(zip(eval_X, eval_y, strict=True))
