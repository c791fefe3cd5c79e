"""The base class of the booster adapters: query ids in, fit data out, predict and score."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..metrics import evaluate
from ..utils._qid import _is_dataframe, _num_rows, drop_qid_column, has_qid_column, resolve_qid
from ..utils._sklearn_internals import _MetadataRequester
from ..utils._trained import TrainedQueries
from ._params import validate_own_params
from ._queries import (
    SINGLE_QUERY,
    as_eval_list,
    as_rows,
    check_column_qid,
    check_row_weight,
    check_target,
    group_queries,
    held_out_queries,
    is_single_query,
    missing_qid_message,
    per_eval_set,
)

#: The hooks an adapter implements, and what each must do or return. The base class declares
#: each one; an adapter that lacks one is refused at the start of ``fit``, naming them all.
HOOKS = {
    "_check_labels": "return None, after raising a ValueError on labels y that the booster's "
                     "objective rejects (naming the row and the fix); do nothing if it takes "
                     "any real label",
    "_check_sizes": "return None, after raising a ValueError on query sizes (rows per query) "
                    "that the booster rejects; do nothing if it takes any",
    "_early_stopping_requested": "return a bool: whether the parameters and the fit "
                                 "parameters turn the booster's early stopping on",
    "_holdout_random_state": "return the seed (int, None, RandomState or Generator) that draws "
                             "the queries held out for early stopping",
}


def _not_implemented(estimator, hook):
    return NotImplementedError(
        f"{type(estimator).__name__} does not implement {hook}, a hook of "
        f"sklearn_rank's RankerAdapter: it must {HOOKS[hook]}."
    )


class RankerAdapter(_MetadataRequester):
    """Base of the booster adapters; put it first among the bases, before the booster's ranker.

    It resolves the query ids (``qid=``, routed, or a ``qid_column`` of a DataFrame), checks
    and groups each data set by query (:func:`group_queries`), holds whole queries out for
    early stopping, and computes :meth:`score` with :mod:`sklearn_rank.metrics`. It keeps
    the fingerprint of its training queries (:class:`~sklearn_rank.utils._trained.TrainedQueries`),
    so that :meth:`score` and the ranking scorers refuse the rest of a query cut by the split
    (``cv=5``, ``KFold``). An adapter:

    - implements every hook of :data:`HOOKS` (``_check_labels``, ``_check_sizes``,
      ``_early_stopping_requested``, ``_holdout_random_state``): the base's raise
      ``NotImplementedError``, and ``fit`` refuses an adapter that lacks any before it reads
      the data;
    - sets ``_rejected``, the booster's fit parameters that ``qid`` replaces (name -> why);
    - calls :meth:`_prepare_fit` at the start of ``fit``, and gives the booster what it returns;
    - parts its ``eval_metric`` with :func:`~sklearn_rank._adapters.split_eval_metrics`, if it
      takes sklearn-rank eval metrics.
    """

    # Under metadata routing, fit and score ask for the query ids without being told.
    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    #: The booster's fit parameters replaced by ``qid``, with the reason (name -> why).
    _rejected = {}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Neither a regressor (score is not R^2) nor a classifier: scikit-learn has no ranker
        # type, so the adapters declare none, whatever the booster says.
        tags.estimator_type = None
        tags.target_tags.required = True
        return tags

    # ------------------------------------------------------------------ hooks

    def _check_labels(self, y, caller):
        """Raise a ``ValueError`` on labels the booster's objective rejects (see HOOKS)."""
        raise _not_implemented(self, "_check_labels")

    def _check_sizes(self, sizes, caller, has_qid):
        """Raise a ``ValueError`` on query sizes the booster rejects (see HOOKS)."""
        raise _not_implemented(self, "_check_sizes")

    def _early_stopping_requested(self, fit_params):
        """Whether early stopping is on, from the parameters and ``fit_params`` (see HOOKS)."""
        raise _not_implemented(self, "_early_stopping_requested")

    def _holdout_random_state(self):
        """The seed that draws the queries held out for early stopping (see HOOKS)."""
        raise _not_implemented(self, "_holdout_random_state")

    def _check_hooks(self):
        missing = [hook for hook in HOOKS
                   if getattr(type(self), hook) is getattr(RankerAdapter, hook)]
        if missing:
            raise NotImplementedError(
                f"{type(self).__name__} does not implement the hook(s) {missing} of "
                "sklearn_rank's RankerAdapter. Each must: "
                + "; ".join(f"{hook}: {HOOKS[hook]}" for hook in missing) + "."
            )

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
        X, qid = self._resolve_qid(as_rows(X), qid, caller, eval_index=eval_index)
        n_samples = _num_rows(X)
        y = check_target(y, n_samples, caller)
        has_qid = qid is not None
        if not has_qid:
            qid = np.zeros(n_samples, dtype=np.intp)
        sample_weight = check_row_weight(sample_weight, n_samples, caller)
        self._check_labels(y, caller)
        query_set = group_queries(X, y, qid, sample_weight, extras, has_qid=has_qid)
        self._check_sizes(query_set.sizes, caller, has_qid)
        return query_set

    def _prepare_fit(self, X, y, qid, sample_weight, eval_set, eval_qid, eval_sample_weight,
                     fit_params, *, extras=(), eval_extras=()):
        """Validate, group by query, and hold out validation queries for early stopping.

        ``extras`` and ``eval_extras`` name the per-row fit parameters (and per-eval-set lists
        of per-row arrays) that move with the rows; they are taken out of ``fit_params``.

        Returns ``(train, evals)``: a :class:`QuerySet` and a list of them.
        """
        self._check_hooks()
        validate_own_params(self)
        self._reject(fit_params)
        name = type(self).__name__
        train = self._query_set(
            X, y, qid, sample_weight, {key: fit_params.pop(key, None) for key in extras},
            caller=f"{name}.fit",
        )
        # Kept so that scoring refuses rows of a training query other than its trained rows:
        # what a splitter that cuts queries (cv=5, KFold) leaves in the test set.
        self._trained_queries = TrainedQueries.of(train.y, train.qid) if train.has_qid else None
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
        held = held_out_queries(train.n_queries, self.validation_fraction,
                                self._holdout_random_state())
        train, validation = train.split(held)
        self.validation_queries_ = validation.query_ids
        return train, validation

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
        return super().predict(drop_qid_column(as_rows(X), self.qid_column), **kwargs)

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
            ``"single_query"`` scores all rows as one query, on purpose. A query id the model
            was trained on, with rows other than its trained rows, is an error: a splitter
            cut that query (see :func:`sklearn_rank.model_selection.reused_query_ids`).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; a query weighs the mean of its rows' weights.

        Returns
        -------
        score : float
            The ``scoring`` metric, e.g. ``nDCG@10``; higher is better.
        """
        X = as_rows(X)
        caller = f"{type(self).__name__}.score"
        if qid is None and not _is_dataframe(X):
            # No query ids is reported after predict, which reports a wrong number of
            # features first; a DataFrame without its query-id column is reported at once.
            self.predict(X)
            raise ValueError(missing_qid_message(X, self.qid_column, caller, action="score"))
        # qid is None for "single_query": evaluate is asked for all rows as one query
        _, qid = self._resolve_qid(X, qid, caller, action="score")
        if qid is not None and getattr(self, "_trained_queries", None) is not None:
            self._trained_queries.check(y, qid, caller=caller)
        return evaluate(y, self.predict(X), qid=SINGLE_QUERY if qid is None else qid,
                        metrics=[self.scoring],
                        sample_weight=sample_weight)[self.scoring]
