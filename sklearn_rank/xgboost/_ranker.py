"""XGBoost's ranker with per-row query ids in any order, routing and sklearn-rank metrics."""

from .._adapters import (
    OWN_PARAMETERS,
    OWN_PARAMETERS_DOC,
    RankerAdapter,
    adapter_signature,
    check_grades,
)
from ..utils._optional import import_optional
from ..utils._qid import _is_dataframe, drop_qid_column
from ._eval_metric import MetricList, plan_eval_metrics
from ._internals import fit_with_custom_metric

xgboost = import_optional("xgboost", extra="xgboost", purpose="sklearn_rank.xgboost")

_MAX_EXP_GAIN_GRADE = 31  # XGBoost's limit with ndcg_exp_gain=True (its default)


class XGBRanker(RankerAdapter, xgboost.XGBRanker):
    """XGBoost's ranker that takes one query id per row, in any order.

    A subclass of :class:`xgboost.XGBRanker` with every one of its parameters (and any
    XGBoost parameter through ``**kwargs``), which adds what ranking in scikit-learn needs:

    - ``fit(X, y, qid=qid)`` takes query ids in any order and of any sortable type (ints,
      strings...), where XGBoost needs sorted numeric ids: rows are sorted stably by query,
      and ``predict`` scores rows in the caller's order. With metadata routing off, the
      query ids may be a ``qid_column`` of a pandas or polars DataFrame ``X`` (``"qid"`` by
      default, the column XGBoost itself reads), which the model never sees as a feature.
    - metadata routing: ``fit`` and ``score`` request ``qid`` by default, so
      ``GridSearchCV(...).fit(X, y, qid=qid)`` with
      ``sklearn.set_config(enable_metadata_routing=True)`` hands each fold its query ids.
    - ``score`` computes ``scoring`` (``nDCG@10`` by default) with :mod:`sklearn_rank.metrics`,
      whatever ``eval_metric`` says.
    - ``eval_metric`` also takes names of sklearn-rank metrics XGBoost lacks (``"err@10"``,
      ``"mrr@10"``, ``"p@5"``...) and the callables of :func:`sklearn_rank.xgboost.eval_metric`;
      early stopping maximises them, as it should.
    - early stopping without leakage: with ``early_stopping_rounds`` and no ``eval_set``,
      ``fit`` holds out ``validation_fraction`` of the training queries, whole, as the eval
      set; with no ``eval_metric``, early stopping monitors ``scoring``, computed by
      sklearn-rank, so the number of trees is chosen by the metric that ``score`` reports.
    - labels XGBoost would reject (non-integer grades, grades above 31 with ``rank:ndcg``,
      non-binary labels with ``rank:map``) raise a ``ValueError`` naming the row and the fix.

    Parameters
    ----------
    **kwargs
        Every parameter of :class:`xgboost.XGBRanker` (``n_estimators``, ``learning_rate``,
        ``max_depth``, ``objective``, ``eval_metric``, ``early_stopping_rounds``,
        ``random_state``, ``n_jobs``...) and any other XGBoost parameter, with XGBoost's
        meaning and defaults.

    %(own)s

    Attributes
    ----------
    validation_queries_ : ndarray or None
        Query ids of the training queries held out for early stopping, or None.

    best_iteration, evals_result(), feature_importances_...
        As in :class:`xgboost.XGBRanker`.

    See Also
    --------
    sklearn_rank.xgboost.eval_metric : Any sklearn-rank metric as an XGBoost eval metric.
    sklearn_rank.lightgbm.LGBMRanker, sklearn_rank.catboost.CatBoostRanker : The same for
        LightGBM and CatBoost.

    Notes
    -----
    XGBoost weighs queries, not rows: ``sample_weight`` is per row, as everywhere in
    scikit-learn, and each query gets the mean of its rows' weights, which is also how
    :mod:`sklearn_rank.metrics` weighs queries. ``fit`` and :meth:`score` without query ids
    raise (see :class:`sklearn_rank.preprocessing.KeepQueryId` for a pipeline that loses the
    query-id column); ``qid="single_query"`` makes all rows one query on purpose. Eval metric
    names XGBoost knows (``"ndcg"``, ``"ndcg@10"``, ``"map@5"``, ``"pre@5"``...) keep XGBoost's
    meaning; for sklearn-rank's definition of those, pass ``eval_metric("ndcg@10")``. XGBoost
    takes at most one custom metric, so sklearn-rank metrics cannot be mixed with another
    callable. Early stopping monitors the last eval metric on the last eval set, as in XGBoost.

    Examples
    --------
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.xgboost import XGBRanker
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> model = XGBRanker(n_estimators=20, max_depth=3).fit(X, y, qid=qid)
    >>> model.predict(X).shape == y.shape
    True
    >>> 0.5 < model.score(X, y, qid=qid) <= 1
    True

    Early stopping on ``ERR@10``, on queries held out from the training data:

    >>> model = XGBRanker(n_estimators=200, max_depth=3, early_stopping_rounds=5,
    ...                   eval_metric="err@10(max_grade=4)", random_state=0).fit(X, y, qid=qid)
    >>> model.best_iteration < 199, list(model.evals_result()["validation_0"])
    (True, ['err@10(max_grade=4)'])
    """

    _rejected = {
        "group": "XGBoost's group sizes require rows sorted by query and break when a "
                 "cross-validation fold or a pipeline reorders them.",
        "eval_group": "eval sets take one query id per row, like the training data.",
    }
    def __init__(self, *, qid_column="qid", scoring="ndcg@10", validation_fraction=0.1,
                 objective="rank:ndcg", **kwargs):
        self.qid_column = qid_column
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        # Past xgboost.XGBRanker.__init__, which rejects non-ranking objectives at
        # construction; scikit-learn validates parameters in fit, which _check_objective does.
        super(xgboost.XGBRanker, self).__init__(objective=objective, **kwargs)

    __init__.__signature__ = adapter_signature(xgboost.XGBRanker, OWN_PARAMETERS)

    def fit(self, X, y, *, qid=None, sample_weight=None, eval_set=None, eval_qid=None,
            eval_sample_weight=None, **fit_params):
        """Fit the ranker on rows with one query id each, in any order.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame may hold the query ids in its ``qid_column``.
        y : array-like of shape (n_samples,)
            Relevance grades: integers from 0 to 31 with ``rank:ndcg``, 0 or 1 with
            ``rank:map``.
        qid : array-like of shape (n_samples,) or "single_query", default=None
            Query id of each row, in any order, of any sortable type. Taken from
            ``X[qid_column]`` when None; without either, ``fit`` raises. Requested by default
            under metadata routing. ``"single_query"`` trains on all rows as one query, on
            purpose (a DataFrame's query-id column is then dropped unread).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; each query gets the mean of its rows' weights (XGBoost weighs
            queries).
        eval_set : list of (X, y) pairs, default=None
            Eval sets, each with its own query ids (``eval_qid`` or its own column).
        eval_qid : list of array-like, default=None
            One array of per-row query ids per eval set (or ``"single_query"``); required for
            an eval set whose ``X`` has no query-id column.
        eval_sample_weight : list of array-like, default=None
            One array of row weights per eval set (XGBoost's ``sample_weight_eval_set`` is
            accepted too).
        **fit_params
            Other parameters of :meth:`xgboost.XGBRanker.fit` (``verbose``, ``xgb_model``,
            ``base_margin``, ``base_margin_eval_set``...). ``group`` and ``eval_group`` are
            replaced by ``qid`` and ``eval_qid``.

        Returns
        -------
        self : XGBRanker
            Fitted estimator.
        """
        if "sample_weight_eval_set" in fit_params:
            if eval_sample_weight is not None:
                raise ValueError("Give eval_sample_weight or sample_weight_eval_set, not both.")
            eval_sample_weight = fit_params.pop("sample_weight_eval_set")
        self._check_objective()
        train, evals = self._prepare_fit(
            X, y, qid, sample_weight, eval_set, eval_qid, eval_sample_weight, fit_params,
            extras=("base_margin",), eval_extras=("base_margin_eval_set",),
        )
        ours, attributes = plan_eval_metrics(
            self, has_evals=bool(evals), early_stopping=self._early_stopping_requested(fit_params),
            has_early_stopping_callback=self._has_early_stopping_callback())
        kwargs = {"group": train.sizes, "sample_weight": train.query_weight()}
        if "base_margin" in train.extras:
            kwargs["base_margin"] = train.extras["base_margin"]
        if evals:
            kwargs["eval_set"] = [(e.X, e.y) for e in evals]
            kwargs["eval_group"] = [e.sizes for e in evals]
            if any(e.sample_weight is not None for e in evals):
                kwargs["sample_weight_eval_set"] = [e.query_weight() for e in evals]
            # held-out validation queries keep the base_margin of their training rows
            eval_margin = [e.extras.get("base_margin_eval_set", e.extras.get("base_margin"))
                           for e in evals]
            if any(margin is not None for margin in eval_margin):
                kwargs["base_margin_eval_set"] = eval_margin
        booster_fit = super().fit
        if ours:
            fit_with_custom_metric(self, ours[0] if len(ours) == 1 else MetricList(ours),
                                   attributes,
                                   lambda: booster_fit(train.X, train.y, **kwargs, **fit_params))
        else:
            booster_fit(train.X, train.y, **kwargs, **fit_params)
        return self

    def apply(self, X, iteration_range=None):
        """Leaf index of each row in each tree (the query-id column dropped first).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame's query-id column (``qid_column``) is dropped first.
        iteration_range : tuple of int, default=None
            As in :meth:`xgboost.XGBRanker.apply`.

        Returns
        -------
        X_leaves : ndarray of shape (n_samples, n_trees)
        """
        return super().apply(drop_qid_column(X, self.qid_column), iteration_range)

    def get_xgb_params(self):
        """XGBoost's parameters, without the adapter's own ones.

        Returns
        -------
        params : dict
        """
        params = super().get_xgb_params()
        for name in OWN_PARAMETERS:
            params.pop(name, None)
        return params

    # ------------------------------------------------------------------ hooks

    def _query_set(self, X, *args, **kwargs):
        if (self.qid_column != "qid" and _is_dataframe(X)
                and "qid" in list(X.columns)):
            raise ValueError(
                f"X has a 'qid' column, which XGBoost would read as the query ids, while "
                f"qid_column={self.qid_column!r}. Rename the column, or set qid_column='qid'."
            )
        return super()._query_set(X, *args, **kwargs)

    def _check_objective(self):
        if callable(self.objective):
            raise ValueError("custom objective function not supported by XGBRanker")
        if not isinstance(self.objective, str) or not self.objective.startswith("rank:"):
            raise ValueError(
                f"XGBRanker needs a ranking objective ('rank:ndcg', 'rank:pairwise' or "
                f"'rank:map'); got objective={self.objective!r}."
            )

    def _check_labels(self, y, caller):
        objective = self.objective
        if objective == "rank:map":
            check_grades(y, caller, binary=True, objective="XGBoost rank:map",
                         fix="Binarise the labels, or use objective='rank:ndcg'.")
        elif objective == "rank:ndcg":
            exp_gain = self.get_params().get("ndcg_exp_gain", True)
            exp_gain = str(exp_gain).lower() not in ("false", "0")
            check_grades(
                y, caller, max_grade=_MAX_EXP_GAIN_GRADE if exp_gain else None,
                objective="XGBoost rank:ndcg",
                fix=("Map the labels to grades 0, 1, 2..." + (
                    ", or set ndcg_exp_gain=False (linear gain) for grades above 31."
                    if exp_gain else ".")),
            )

    def _check_sizes(self, sizes, caller, has_qid):
        """Left to XGBoost, which reports its own limits."""

    def _has_early_stopping_callback(self):
        return any(isinstance(cb, xgboost.callback.EarlyStopping)
                   for cb in (self.callbacks or ()))

    def _early_stopping_requested(self, fit_params):
        return bool(self.early_stopping_rounds) or self._has_early_stopping_callback()

    def _holdout_random_state(self):
        return self.random_state


XGBRanker.__doc__ = XGBRanker.__doc__ % {"own": OWN_PARAMETERS_DOC}

