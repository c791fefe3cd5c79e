"""CatBoost's ranker with per-row query ids in any order, routing and scikit-learn params."""

import inspect

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from .._adapters import OWN_PARAMETERS, OWN_PARAMETERS_DOC, RankerAdapter, adapter_signature
from ..utils._optional import import_optional
from ._internals import set_booster_params

catboost = import_optional("catboost", extra="catboost", purpose="sklearn_rank.catboost")

# CatBoost's parameters and their defaults, as its CatBoostRanker.__init__ declares them.
_BOOSTER_DEFAULTS = {
    name: param.default
    for name, param in inspect.signature(catboost.CatBoostRanker.__init__).parameters.items()
    if name != "self"
}
# CatBoost's names of the parameters that turn early stopping (its overfitting detector) on.
_EARLY_STOPPING = ("early_stopping_rounds", "od_wait", "od_type")
_SPECIAL_FEATURES = ("cat_features", "text_features", "embedding_features")
# Attributes of the adapter that CatBoost's pickling (which keeps only its own parameters and
# the model) would lose.
_KEPT_ATTRIBUTES = ("validation_queries_", "_metadata_request", "_trained_queries")


class CatBoostRanker(RankerAdapter, catboost.CatBoostRanker, BaseEstimator):
    """CatBoost's ranker that takes one query id per row, in any order.

    A subclass of :class:`catboost.CatBoostRanker` with every one of its parameters, which
    adds what ranking in scikit-learn needs:

    - ``fit(X, y, qid=qid)`` takes query ids in any order and of any sortable type, where
      CatBoost needs the rows of each ``group_id`` contiguous: rows are sorted stably by
      query, and ``predict`` scores rows in the caller's order. With metadata routing off,
      the query ids may be a ``qid_column`` of a pandas or polars DataFrame ``X``, which the
      model never sees as a feature.
    - metadata routing, which CatBoost lacks: ``fit`` and ``score`` request ``qid`` by
      default, so ``GridSearchCV(...).fit(X, y, qid=qid)`` with
      ``sklearn.set_config(enable_metadata_routing=True)`` hands each fold its query ids.
    - scikit-learn's estimator contract, which CatBoost's differs from (it does not derive
      from :class:`sklearn.base.BaseEstimator`; the adapter does): ``get_params`` lists
      every parameter (CatBoost's lists only those set) and returns the values as given (not
      copies), so ``clone`` works with list-valued parameters such as ``cat_features``;
      ``set_params`` rejects unknown names and, on a fitted model, sets the parameters of the
      next fit (CatBoost's refuses); pickling and ``copy.deepcopy`` keep the adapter's own
      parameters and attributes.
    - ``score`` computes ``scoring`` (``nDCG@10`` by default) with :mod:`sklearn_rank.metrics`,
      instead of CatBoost's NDCG.
    - early stopping without leakage: with ``early_stopping_rounds`` (or ``od_wait`` /
      ``od_type``) and no ``eval_set`` nor ``eval_fraction``, ``fit`` holds out
      ``validation_fraction`` of the training queries, whole, as the eval set.

    Parameters
    ----------
    **kwargs
        Every parameter of :class:`catboost.CatBoostRanker` (``iterations``,
        ``learning_rate``, ``depth``, ``loss_function``, ``eval_metric``, ``random_seed``,
        ``thread_count``, ``cat_features``...), with CatBoost's meaning and defaults.

    %(own)s

    Attributes
    ----------
    validation_queries_ : ndarray or None
        Query ids of the training queries held out for early stopping, or None.

    best_iteration_, evals_result_, feature_importances_...
        As in :class:`catboost.CatBoostRanker`.

    See Also
    --------
    sklearn_rank.lightgbm.LGBMRanker, sklearn_rank.xgboost.XGBRanker : The same for LightGBM
        and XGBoost.

    Notes
    -----
    CatBoost's pairwise losses (the default ``YetiRank`` among them) ignore per-object weights;
    the adapter passes ``sample_weight`` as CatBoost's ``group_weight``, each query getting the
    mean of its rows' weights, which is also how :mod:`sklearn_rank.metrics` weighs queries.
    ``fit`` and :meth:`score` without query ids raise (see
    :class:`sklearn_rank.preprocessing.KeepQueryId` for a pipeline that loses the query-id
    column); ``qid="single_query"`` makes all rows one query on purpose. Early stopping monitors
    CatBoost's ``eval_metric``: CatBoost's interface for Python metrics (``evaluate(approxes,
    target, weight)``) passes no group ids, so sklearn-rank's metrics cannot replace it; name
    the CatBoost metric closest to ``scoring``, e.g. ``eval_metric="NDCG:top=10;type=Exp"`` for
    ``nDCG@10``. A 1-D ``X`` is an error, as in scikit-learn, where CatBoost reads it as a single
    row.

    What could not be made scikit-learn-like: CatBoost's ``__init__`` inspects some values
    (``thread_count``, ``fixed_binary_splits``, metric objects) and fails on odd ones, where
    scikit-learn defers all validation to ``fit``; ``repr`` and ``get_params`` show the
    values as given, while CatBoost's ``get_param`` shows its normalised copy; ``pairs``
    and ``graph``, which index rows, are only accepted when the rows need no reordering and
    no validation queries are held out; a :class:`catboost.Pool` ``X`` is passed to
    CatBoost as it is, without query-id handling.

    Examples
    --------
    >>> from sklearn_rank.catboost import CatBoostRanker
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> model = CatBoostRanker(iterations=20, verbose=0, allow_writing_files=False)
    >>> model = model.fit(X, y, qid=qid)
    >>> model.predict(X).shape == y.shape
    True
    >>> 0.5 < model.score(X, y, qid=qid) <= 1
    True
    >>> model.get_params()["depth"] is None, model.get_params()["iterations"]
    (True, 20)
    """

    _rejected = {
        "group_id": "CatBoost's group ids must keep the rows of each query contiguous, which "
                    "cross-validation folds and pipelines do not guarantee.",
        "group_weight": "pass row weights as sample_weight; each query gets the mean of its "
                        "rows' weights.",
    }

    def __init__(self, *, qid_column="qid", scoring="ndcg@10", validation_fraction=0.1,
                 **params):
        unknown = sorted(set(params) - set(_BOOSTER_DEFAULTS))
        if unknown:
            raise TypeError(
                f"CatBoostRanker got unexpected parameter(s) {unknown}; see "
                "catboost.CatBoostRanker for the valid ones."
            )
        self.qid_column = qid_column
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        # The parameters as given, scikit-learn's contract; CatBoost keeps its own copy of
        # the set ones, which it may normalise.
        self._sklearn_params = {**_BOOSTER_DEFAULTS, **params}
        super().__init__(**params)

    __init__.__signature__ = adapter_signature(catboost.CatBoostRanker, OWN_PARAMETERS,
                                               var_keyword=False)

    # ------------------------------------------------------------------ parameters

    def get_params(self, deep=True):
        """Get the parameters of this estimator: all of them, as given.

        Parameters
        ----------
        deep : bool, default=True
            Ignored: no parameter is an estimator.

        Returns
        -------
        params : dict
            Every parameter of :class:`catboost.CatBoostRanker` (None for those not set)
            and the adapter's own.
        """
        return {**self._sklearn_params, **{name: getattr(self, name) for name in OWN_PARAMETERS}}

    def set_params(self, **params):
        """Set the parameters of this estimator.

        Parameters
        ----------
        **params : dict
            Parameter names and their new values; on a fitted model, they apply to the next
            fit (CatBoost's own ``set_params`` refuses a fitted model).

        Returns
        -------
        self : CatBoostRanker
        """
        unknown = sorted(set(params) - set(_BOOSTER_DEFAULTS) - set(OWN_PARAMETERS))
        if unknown:
            raise ValueError(
                f"Invalid parameter(s) {unknown} for estimator {type(self).__name__}. Valid "
                f"parameters are: {sorted(self.get_params())!r}."
            )
        booster = {k: v for k, v in params.items() if k not in OWN_PARAMETERS}
        # as in scikit-learn, the new values apply to the next fit, fitted or not
        set_booster_params(self, booster)
        self._sklearn_params.update(booster)
        for name in OWN_PARAMETERS:
            if name in params:
                setattr(self, name, params[name])
        return self

    def __getstate__(self):
        state = super().__getstate__()
        state["_sklearn_rank"] = {
            "params": self._sklearn_params,
            "own": {name: getattr(self, name) for name in OWN_PARAMETERS},
            "attributes": {name: getattr(self, name) for name in _KEPT_ATTRIBUTES
                           if hasattr(self, name)},
        }
        return state

    def __setstate__(self, state):
        state = dict(state)
        ours = state.pop("_sklearn_rank", None)
        super().__setstate__(state)
        if ours is None:
            # a pickle of CatBoost's own: its parameters, as CatBoost keeps them
            self._sklearn_params = {**_BOOSTER_DEFAULTS,
                                    **catboost.CatBoostRanker.get_params(self)}
            ours = {"own": OWN_PARAMETERS, "attributes": {}}
        else:
            self._sklearn_params = dict(ours["params"])
        for name, value in {**ours["own"], **ours["attributes"]}.items():
            setattr(self, name, value)

    # scikit-learn's repr (parameters that differ from their defaults), not CatBoost's.
    __repr__ = BaseEstimator.__repr__

    def __sklearn_is_fitted__(self):
        return self.is_fitted()

    @property
    def n_features_in_(self):
        """Number of features seen in fit (the query-id column excluded)."""
        if not self.is_fitted():
            raise AttributeError(f"This {type(self).__name__} is not fitted yet.")
        # Not CatBoost's n_features_in_, which is 0 after unpickling (CatBoost 1.2.10).
        return len(self.feature_names_)

    # ------------------------------------------------------------------ input

    def _features(self, X, *, fit):
        """What CatBoost reads of ``X``, with scikit-learn's input errors.

        Sparse input becomes a CSR matrix with 32-bit indices (CatBoost reads scipy matrices,
        not arrays, and not 64-bit indices); a
        numeric ndarray (no categorical, text or embedding features declared) is checked as
        scikit-learn estimators check it: 2-D, non-empty, of numbers.
        """
        if sparse.issparse(X):
            X = sparse.csr_matrix(X)
            if X.indices.dtype != np.int32 and X.nnz < np.iinfo(np.int32).max:
                X.indices = X.indices.astype(np.int32)
                X.indptr = X.indptr.astype(np.int32)
            return X
        if not isinstance(X, np.ndarray):
            return X
        if fit:
            special = getattr(self, "_fit_special_features", False)
        else:
            special = any(len(indices) for indices in (
                self.get_cat_feature_indices(), self.get_text_feature_indices(),
                self.get_embedding_feature_indices()))
        if special:
            return X
        X = check_array(X, dtype="numeric", ensure_all_finite=False,
                        ensure_min_samples=2 if fit else 1, input_name="X")
        if not fit and X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return X

    def _query_set(self, X, *args, **kwargs):
        return super()._query_set(self._features(X, fit=True), *args, **kwargs)

    def predict(self, X, **kwargs):
        check_is_fitted(self)
        return super().predict(self._features(X, fit=False), **kwargs)

    predict.__doc__ = RankerAdapter.predict.__doc__

    # ------------------------------------------------------------------ fit

    def fit(self, X, y=None, *, qid=None, sample_weight=None, eval_set=None, eval_qid=None,
            eval_sample_weight=None, **fit_params):
        """Fit the ranker on rows with one query id each, in any order.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame may hold the query ids in its ``qid_column``. A
            :class:`catboost.Pool` goes to CatBoost unchanged.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,) or "single_query", default=None
            Query id of each row, in any order, of any sortable type. Taken from
            ``X[qid_column]`` when None; without either, ``fit`` raises. Requested by default
            under metadata routing. ``"single_query"`` trains on all rows as one query, on
            purpose (a DataFrame's query-id column is then dropped unread).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; each query gets the mean of its rows' weights, as CatBoost's
            ``group_weight``.
        eval_set : list of (X, y) pairs, default=None
            Eval sets, each with its own query ids (``eval_qid`` or its own column).
        eval_qid : list of array-like, default=None
            One array of per-row query ids per eval set (or ``"single_query"``); required for
            an eval set whose ``X`` has no query-id column.
        eval_sample_weight : list of array-like, default=None
            One array of row weights per eval set.
        **fit_params
            Other parameters of :meth:`catboost.CatBoostRanker.fit` (``cat_features``,
            ``baseline``, ``subgroup_id``, ``early_stopping_rounds``, ``verbose``...).
            ``group_id`` and ``group_weight`` are replaced by ``qid`` and ``sample_weight``.

        Returns
        -------
        self : CatBoostRanker
            Fitted estimator.
        """
        pools = eval_set if isinstance(eval_set, (list, tuple)) else [eval_set]
        if isinstance(X, catboost.Pool):
            if qid is not None or y is not None or eval_qid is not None:
                raise ValueError(
                    "A catboost.Pool X carries its labels and group ids: pass y, qid and "
                    "eval_qid only with an array or DataFrame X."
                )
            _check_pool_groups(X, "X")
            for i, pool in enumerate(pools):
                if isinstance(pool, catboost.Pool):
                    _check_pool_groups(pool, f"eval_set[{i}]")
            super().fit(X, sample_weight=sample_weight, eval_set=eval_set, **fit_params)
            self.validation_queries_ = None
            # a Pool keeps hashes of its group ids, not the ids: nothing to check scores by
            self._trained_queries = None
            return self
        if any(isinstance(pool, catboost.Pool) for pool in pools):
            raise ValueError(
                "A catboost.Pool eval set goes with a catboost.Pool X only. With an array or "
                "DataFrame X, give eval_set=[(X_val, y_val)] and eval_qid=[qid_val] (or a "
                f"{self.qid_column or 'qid'!r} column in X_val)."
            )
        # Read by _features during this fit: categorical, text or embedding columns keep an
        # ndarray X as it is, instead of checking it as numbers.
        self._fit_special_features = any(
            _given(fit_params.get(key)) or _given(self._sklearn_params.get(key))
            for key in _SPECIAL_FEATURES)
        try:
            train, evals = self._prepare_fit(
                X, y, qid, sample_weight, eval_set, eval_qid, eval_sample_weight, fit_params,
                extras=("baseline", "subgroup_id"),
            )
        finally:
            self._fit_special_features = False
        for name in ("pairs", "graph"):
            if fit_params.get(name) is not None and (train.reordered or evals and not eval_set):
                raise ValueError(
                    f"{name} indexes rows, which the adapter had to reorder (queries not "
                    "contiguous) or split (validation queries held out for early stopping). "
                    "Give the rows grouped by query, and an eval_set, to use it."
                )
        features = {key: fit_params.get(key, self._sklearn_params.get(key))
                    for key in _SPECIAL_FEATURES}
        kwargs = {"group_id": train.codes, **_group_weight(train)}
        for key in ("baseline", "subgroup_id"):
            if key in train.extras:
                kwargs[key] = train.extras[key]
        if evals:
            # held-out validation queries keep the baseline of their training rows
            kwargs["eval_set"] = [
                catboost.Pool(e.X, label=e.y, group_id=e.codes, baseline=e.extras.get("baseline"),
                              **_group_weight(e),
                              **{k: v for k, v in features.items() if v is not None})
                for e in evals
            ]
        super().fit(train.X, train.y, **kwargs, **fit_params)
        return self

    # ------------------------------------------------------------------ hooks

    def _check_labels(self, y, caller):
        """Left to CatBoost, whose errors on labels name the loss function."""

    def _check_sizes(self, sizes, caller, has_qid):
        """Left to CatBoost, which reports its own limits."""

    def _early_stopping_requested(self, fit_params):
        if self._sklearn_params.get("eval_fraction"):
            return False  # CatBoost holds out its own eval set
        return (fit_params.get("early_stopping_rounds") is not None
                or any(self._sklearn_params.get(name) is not None for name in _EARLY_STOPPING))

    def _holdout_random_state(self):
        seed = self._sklearn_params.get("random_seed")
        if seed is None:
            seed = self._sklearn_params.get("random_state")
        return 0 if seed is None else seed  # CatBoost's default seed is 0


CatBoostRanker.__doc__ = CatBoostRanker.__doc__ % {"own": OWN_PARAMETERS_DOC}


def _check_pool_groups(pool, name):
    """A Pool without group ids would be trained or evaluated as one query: refuse it."""
    if pool.get_group_id_hash() is None:
        raise ValueError(
            f"CatBoostRanker.fit: the catboost.Pool {name} has no group ids, so all its rows "
            "would form one query. Build it with catboost.Pool(X, y, group_id=qid), rows "
            "grouped by query, or pass an array or DataFrame X with qid= (or a query-id "
            "column), in any row order. For all rows as one query on purpose, give "
            "group_id=np.zeros(n_rows)."
        )


def _given(features):
    """Whether a cat/text/embedding features argument names any column."""
    return features is not None and len(features) > 0


def _group_weight(query_set):
    """CatBoost's per-row ``group_weight`` (each query's mean row weight), if weighted."""
    weight = query_set.query_weight()
    if weight is None:
        return {}
    return {"group_weight": np.repeat(weight, query_set.sizes)}
