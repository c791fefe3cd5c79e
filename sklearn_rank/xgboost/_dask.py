"""XGBoost's ranker on Dask, with per-row query ids: :class:`DaskXGBRanker`.

Imports ``xgboost.dask``, and so Dask: :mod:`sklearn_rank.xgboost` exports the class lazily.
What it shares with :class:`sklearn_rank.lightgbm.DaskLGBMRanker` is
:class:`sklearn_rank.lightgbm._dask.DaskRankerMixin`.
"""

import functools

import numpy as np

from .._adapters import OWN_PARAMETERS, OWN_PARAMETERS_DOC, adapter_signature
from .._adapters._dask import DaskRankerMixin, import_dask
from .._adapters._params import validate_own_params
from ..metrics import evaluate
from ._eval_metric import plan_eval_metrics
from ._internals import fit_with_custom_metric
from ._ranker import XGBRanker

# The package imported xgboost, or said which extra installs it; Dask, or the same here.
import_dask("sklearn_rank.xgboost.DaskXGBRanker")
import xgboost.dask  # noqa: E402


class AllWorkersEvalMetric:
    """sklearn-rank eval metrics of the eval rows of every worker, as XGBoost's custom metric.

    XGBoost on Dask calls a custom metric on each worker's own eval rows, and averages the
    workers' values, whatever their numbers of queries. This one gathers the per-query values
    of all workers with XGBoost's collective (every worker calls it with each eval set, in
    step) and aggregates them by the metric's rule, so that every worker returns the value of
    all the eval rows: that of :func:`sklearn_rank.metrics.evaluate` on them, up to the order
    in which the queries are summed (and XGBoost's six decimals).

    Parameters
    ----------
    metrics : list of XGBoostEvalMetric
    """

    def __init__(self, metrics):
        self.metrics = list(metrics)

    def __call__(self, predt, dmatrix):
        from xgboost import collective

        y_true = dmatrix.get_label()
        group_ptr = dmatrix.get_uint_info("group_ptr").astype(np.int64)
        sizes = np.diff(group_ptr) if len(group_ptr) >= 2 else np.zeros(0, dtype=np.int64)
        local = []
        for metric in self.metrics:
            if len(y_true):
                values = evaluate(y_true, predt, qid=np.repeat(np.arange(len(sizes)), sizes),
                                  metrics=[metric.name], convention=metric.convention,
                                  return_per_query=True, **metric.options)[metric.name]
            else:
                values = np.zeros(0)
            local.append(values)
        world, rank = collective.get_world_size(), collective.get_rank()
        counts = np.zeros(max(world, 1))
        counts[rank] = len(sizes)
        if world > 1:
            counts = collective.allreduce(counts, collective.Op.SUM)
        n_queries = int(counts.sum())
        start = int(counts[:rank].sum())
        # each query's value at its place, zeros elsewhere: the sum gathers them exactly
        gathered = np.zeros((len(self.metrics), n_queries))
        for row, values in zip(gathered, local, strict=True):
            row[start:start + len(values)] = values
        if world > 1:
            gathered = collective.allreduce(gathered.ravel(), collective.Op.SUM).reshape(
                len(self.metrics), n_queries)
        # each metric's one aggregation rule (its bound metric's), as in memory
        results = [(metric.__name__, metric.bound.aggregator(metric.name).add(values).result())
                   for metric, values in zip(self.metrics, gathered, strict=True)]
        return results[0] if len(results) == 1 else results


class DaskXGBRanker(DaskRankerMixin, xgboost.dask.DaskXGBRanker):
    """XGBoost's ranker on Dask, with one query id per row, in any order and partition.

    A subclass of :class:`xgboost.dask.DaskXGBRanker` with every one of its parameters,
    which adds what :class:`sklearn_rank.xgboost.XGBRanker` adds in memory:

    - ``fit(X, y, qid=ddf["qid"])`` takes a query id per row, of any sortable type, as a
      Dask Series of the same partitions as ``X`` (or the ``qid_column`` of a Dask DataFrame
      ``X``), in any order and in any partition. Dask's own shuffle on the query ids brings
      each query's rows into one partition, where they are sorted; XGBoost gets dense query
      codes that increase along the partitions, so that no worker sorts its rows again and
      no query is split between workers. The labels are checked on the workers by
      :class:`~sklearn_rank.xgboost.XGBRanker`'s rules, in the same pass.
    - ``predict`` scores the rows partition by partition, without a shuffle, and returns a
      Dask Series with the index and partitions of a Dask DataFrame ``X`` (a Dask array with
      the chunks of a Dask array ``X``).
    - ``score`` computes ``scoring`` (``nDCG@10`` by default) with
      :mod:`sklearn_rank.metrics`, equal to the in-memory value on the same rows.
    - ``eval_metric`` also takes sklearn-rank metrics, computed on the eval rows of all
      the workers (see Notes), and early stopping maximises them; with early stopping and no
      ``eval_metric``, it monitors ``scoring``. Without an ``eval_set``, early stopping holds
      out ``validation_fraction`` of the training queries, whole.

    Parameters
    ----------
    **kwargs
        Every parameter of :class:`xgboost.dask.DaskXGBRanker` (``n_estimators``,
        ``learning_rate``, ``max_depth``, ``objective``, ``eval_metric``,
        ``early_stopping_rounds``, ``random_state``...) and any other XGBoost parameter,
        with XGBoost's meaning and defaults. ``allow_group_split`` must stay True: the
        queries are kept whole by sklearn-rank's shuffle.

    %(own)s

    Attributes
    ----------
    validation_queries_ : ndarray or None
        Query ids of the training queries held out for early stopping, or None.

    best_iteration, evals_result(), feature_importances_...
        As in :class:`xgboost.dask.DaskXGBRanker`.

    See Also
    --------
    sklearn_rank.xgboost.XGBRanker : The same ranker in memory.
    sklearn_rank.lightgbm.DaskLGBMRanker : LightGBM's LambdaRank on Dask.

    Notes
    -----
    XGBoost on Dask runs a custom eval metric on each worker's own eval rows and averages
    the workers' values with equal weights, whatever their numbers of queries. sklearn-rank's
    metrics are gathered instead (:class:`AllWorkersEvalMetric`): every worker computes the
    per-query values of its rows with :mod:`sklearn_rank.metrics`, XGBoost's collective
    gathers them, and each worker aggregates them all, so early stopping sees the value of
    all the eval rows, the same on every worker. XGBoost's own metric names (``"ndcg@10"``,
    ``"map@5"``...) keep XGBoost's meaning, which XGBoost computes across workers itself.

    ``sample_weight`` is refused: XGBoost weighs queries, and ``xgboost.dask`` does not
    implement query weights. ``base_margin`` is not supported.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.xgboost import DaskXGBRanker
    >>> X, y, qid = make_ranking(n_queries=60, random_state=0)
    >>> frame = pd.DataFrame(X).add_prefix("f").assign(label=y, qid=qid)
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address="127.0.0.1:0",
    ...                   processes=True) as cluster, Client(cluster):
    ...     ddf = dd.from_pandas(frame, npartitions=4)  # queries spread over partitions
    ...     model = DaskXGBRanker(n_estimators=20, max_depth=3, random_state=0)
    ...     model = model.fit(ddf.drop(columns=["label", "qid"]), ddf["label"],
    ...                       qid=ddf["qid"])
    ...     y_score = model.predict(ddf.drop(columns="label")).compute()
    ...     ndcg = model.score(ddf.drop(columns="label"), ddf["label"])
    ...     # early stopping on ERR@10, computed on the eval rows of both workers
    ...     stopped = DaskXGBRanker(n_estimators=100, max_depth=3, early_stopping_rounds=5,
    ...                             eval_metric="err@10(max_grade=4)", random_state=0)
    ...     stopped = stopped.fit(ddf.drop(columns="label"), ddf["label"])
    >>> y_score.index.equals(frame.index), 0.5 < ndcg <= 1
    (True, True)
    >>> stopped.best_iteration < 99, list(stopped.evals_result()["validation_0"])
    (True, ['err@10(max_grade=4)'])
    """

    _local_class = XGBRanker
    _dask_only = ("allow_group_split", "coll_cfg")
    _rejected = {
        "group": "the query sizes are derived on the workers, from the query ids.",
        "eval_group": "eval sets take one query id per row (eval_qid), like the training data.",
        "base_margin": "base_margin is not supported by DaskXGBRanker.",
        "base_margin_eval_set": "base_margin is not supported by DaskXGBRanker.",
        "sample_weight_eval_set": "xgboost.dask does not implement query weights.",
        "eval_sample_weight": "xgboost.dask does not implement query weights.",
    }

    def __init__(self, *, qid_column="qid", scoring="ndcg@10", validation_fraction=0.1,
                 objective="rank:ndcg", allow_group_split=True, coll_cfg=None, **kwargs):
        self.qid_column = qid_column
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        # Past xgboost.dask.DaskXGBRanker.__init__, which rejects a callable objective at
        # construction; fit validates it, as scikit-learn does.
        self.allow_group_split = allow_group_split
        super(xgboost.dask.DaskXGBRanker, self).__init__(objective=objective,
                                                         coll_cfg=coll_cfg, **kwargs)

    __init__.__signature__ = adapter_signature(xgboost.dask.DaskXGBRanker, OWN_PARAMETERS)
    __init__.__signature__ = __init__.__signature__.replace(parameters=[
        p.replace(default=True) if p.name == "allow_group_split" else p
        for p in __init__.__signature__.parameters.values()])

    def _dask_client(self):
        return self.client

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

    def fit(self, X, y, *, qid=None, sample_weight=None, eval_set=None, eval_qid=None,
            **fit_params):
        """Fit the ranker on the rows of Dask collections, one query id each.

        Parameters
        ----------
        X : dask.dataframe.DataFrame or dask.array.Array of shape (n_samples, n_features)
            Features; a Dask DataFrame may hold the query ids in its ``qid_column``.
        y : dask.dataframe.Series or dask.array.Array of shape (n_samples,)
            Relevance grades, with the partitions of ``X``: integers from 0 to 31 with
            ``rank:ndcg``, 0 or 1 with ``rank:map``.
        qid : dask.dataframe.Series or dask.array.Array of shape (n_samples,), default=None
            Query id of each row, in any order and any partition, of any sortable type;
            with the partitions of ``X`` (a column of the same Dask DataFrame, or a Dask
            array of the same row chunks). Taken from ``X[qid_column]`` when None.
            Requested by default under metadata routing.
        sample_weight : None
            Refused: ``xgboost.dask`` does not implement query weights.
        eval_set : list of (X, y) pairs, default=None
            Eval sets of Dask collections, each with its own query ids (``eval_qid`` or its
            own column).
        eval_qid : list of dask.dataframe.Series or dask.array.Array, default=None
            One Dask Series of per-row query ids per eval set; required for an eval set
            whose ``X`` has no query-id column.
        **fit_params
            Other parameters of :meth:`xgboost.dask.DaskXGBRanker.fit` (``verbose``,
            ``xgb_model``...).

        Returns
        -------
        self : DaskXGBRanker
            Fitted estimator.
        """
        caller = f"{type(self).__name__}.fit"
        validate_own_params(self)
        for key, why in self._rejected.items():
            if fit_params.pop(key, None) is not None:
                raise ValueError(f"{caller} takes no {key}=: {why}")
        if sample_weight is not None:
            raise ValueError(
                f"{caller} takes no sample_weight: XGBoost weighs queries, and xgboost.dask "
                "does not implement query weights (NotImplementedError). Train in memory with "
                "sklearn_rank.xgboost.XGBRanker, or on Dask with "
                "sklearn_rank.lightgbm.DaskLGBMRanker, which takes row weights."
            )
        if self.allow_group_split is not True:
            raise ValueError(
                f"{caller}: allow_group_split={self.allow_group_split!r}: sklearn-rank keeps "
                "each query's rows in one partition with Dask's shuffle, so that XGBoost "
                "never splits a query; leave allow_group_split=True."
            )
        twin = self._local_twin()
        twin._check_objective()
        client = self._dask_client()
        train = self._query_frame(X, y, qid, None, caller=caller, twin=twin, client=client)
        evals = self._eval_frames(eval_set, eval_qid, None, caller=caller, twin=twin,
                                  client=client)
        self._record_training_queries(train, client)
        self.validation_queries_ = None
        early_stopping = twin._early_stopping_requested(fit_params)
        if early_stopping and not evals:
            train, held_out = self._hold_out(train, twin, client)
            evals = [held_out]

        ours, attributes = plan_eval_metrics(
            self, has_evals=bool(evals), early_stopping=early_stopping,
            has_early_stopping_callback=twin._has_early_stopping_callback())
        kwargs = {"qid": train.codes()}
        if evals:
            kwargs["eval_set"] = [(e.X, e.y) for e in evals]
            kwargs["eval_qid"] = [e.codes() for e in evals]
        booster_fit = functools.partial(super().fit, train.X, train.y, **kwargs, **fit_params)
        if ours:
            fit_with_custom_metric(self, AllWorkersEvalMetric(ours), attributes, booster_fit)
        else:
            booster_fit()
        return self

    def _predict_function(self, *, output_margin=False, iteration_range=None,
                          validate_features=True):
        if iteration_range is None:
            try:
                iteration_range = (0, self.best_iteration + 1)
            except AttributeError:  # no early stopping: all the trees
                iteration_range = (0, 0)
        return functools.partial(
            _predict_with, self.get_booster(), iteration_range=iteration_range,
            predict_type="margin" if output_margin else "value", missing=self.missing,
            validate_features=validate_features)


def _predict_with(booster, X, **kwargs):
    return booster.inplace_predict(X, **kwargs)


DaskXGBRanker.__doc__ = DaskXGBRanker.__doc__ % {"own": OWN_PARAMETERS_DOC}
