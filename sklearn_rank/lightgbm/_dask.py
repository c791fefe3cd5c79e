"""LightGBM's LambdaRank on Dask, with per-row query ids: :class:`DaskLGBMRanker`.

What it shares with :class:`sklearn_rank.xgboost.DaskXGBRanker` (query ids per row,
checked and grouped on the workers; predictions in the caller's row order; ``score``) is in
:mod:`sklearn_rank._adapters._dask`.

Dask is imported inside the functions: ``import sklearn_rank.lightgbm`` does not import it
(``lightgbm.dask`` does not either).
"""

import contextlib
import functools

import lightgbm
import lightgbm.dask
import numpy as np
from lightgbm.callback import CallbackEnv, EarlyStopException
from sklearn.utils.validation import check_is_fitted

from .._adapters import (
    OWN_PARAMETERS,
    OWN_PARAMETERS_DOC,
    adapter_signature,
    split_eval_metrics,
)
from .._adapters._dask import (
    _QID,
    _WEIGHT,
    _Y,
    DaskRankerMixin,
)
from .._adapters._params import validate_own_params
from ..metrics import aggregate, evaluate_per_query
from ._eval_metric import LightGBMEvalMetric
from ._ranker import (
    _BOOSTER_METRIC_NAMES,
    _EARLY_STOPPING,
    _EARLY_STOPPING_CALLBACK,
    _METRIC,
    LGBMRanker,
    _merge_eval_xy,
)

# --------------------------------------------------------------------------------------
# LightGBM
# --------------------------------------------------------------------------------------


def _early_stopping_callback(params, callbacks):
    """``(callback, other_callbacks)``: the early-stopping callback to replay on the client
    (the caller's own, or one built from the parameters), and the rest."""
    stoppers = [cb for cb in callbacks if isinstance(cb, _EARLY_STOPPING_CALLBACK)]
    others = [cb for cb in callbacks if not isinstance(cb, _EARLY_STOPPING_CALLBACK)]
    if len(stoppers) > 1:
        raise ValueError("Give at most one lightgbm.early_stopping callback.")
    if stoppers:
        return stoppers[0], others
    rounds = next((params[name] for name in _EARLY_STOPPING if params.get(name)), None)
    if not rounds or rounds <= 0:
        return None, others
    return lightgbm.early_stopping(
        stopping_rounds=rounds, first_metric_only=params.get("first_metric_only", False),
        min_delta=params.get("early_stopping_min_delta", 0.0), verbose=False), others


def _staged_partition(part, booster, n_iter, features, metrics, weighted, average):
    """Per metric, per iteration, the :class:`PerQueryResult` of one eval partition for the
    model of that iteration: LightGBM's raw score sums the trees in order, so adding one
    tree's output at a time gives each iteration's predictions exactly."""
    X = part[features]
    if not any(str(dtype) == "category" for dtype in X.dtypes):
        X = np.ascontiguousarray(X.to_numpy(dtype=np.float64))  # converted once, not per tree
    y, qid = part[_Y].to_numpy(), part[_QID].to_numpy()
    weight = part[_WEIGHT].to_numpy() if weighted else None
    raw = np.zeros(len(part))
    threads = _worker_threads()
    results = [[] for _ in metrics]
    for i in range(n_iter):
        raw += booster.predict(X, start_iteration=i, num_iteration=1, raw_score=True,
                               num_threads=threads)
        score = raw / (i + 1) if average else raw
        for metric, per_iteration in zip(metrics, results, strict=True):
            per_iteration.append(evaluate_per_query(
                y, score, qid=qid, metrics=[metric.name], sample_weight=weight,
                convention=metric.convention, **metric.options))
    return results


def _merge_staged(metrics, n_iter, *parts):
    """Per metric, its value at each iteration over all the eval set's partitions."""
    return [[aggregate(*(part[j][i] for part in parts))[metric.name] for i in range(n_iter)]
            for j, metric in enumerate(metrics)]


# LightGBM's names of the number of threads: lightgbm.dask gives each worker its Dask
# threads, warns that it ignores these, and leaves num_threads among the parameters of the
# fitted estimator (so that fitting it again would warn).
_THREADS = ("num_threads", "num_thread", "nthread", "nthreads", "n_jobs")


def _dask_lightgbm_params(ranker, params):
    """LightGBM's parameters for the workers: without the adapter's own, nor early stopping
    (replayed on the client), nor the number of threads (the Dask workers')."""
    for name in (*OWN_PARAMETERS, *_EARLY_STOPPING, *_THREADS):
        params.pop(name, None)
    return params


class DaskLGBMRanker(DaskRankerMixin, lightgbm.dask.DaskLGBMRanker):
    """LightGBM's LambdaRank on Dask, with one query id per row, in any order and partition.

    A subclass of :class:`lightgbm.dask.DaskLGBMRanker` with every one of its parameters,
    which adds what :class:`sklearn_rank.lightgbm.LGBMRanker` adds in memory:

    - ``fit(X, y, qid=ddf["qid"])`` takes a query id per row, as a Dask Series of the same
      partitions as ``X`` (or the ``qid_column`` of a Dask DataFrame ``X``), in any order
      and in any partition. Dask's own shuffle on the query ids brings each query's rows
      into one partition, where they are sorted; the group sizes that LightGBM wants are
      derived there, on the workers. The labels and query sizes are checked on the workers
      by :class:`~sklearn_rank.lightgbm.LGBMRanker`'s own rules, in the same pass.
    - ``predict`` scores the rows partition by partition, without a shuffle, and returns a
      Dask Series with the index and partitions of a Dask DataFrame ``X`` (a Dask array with
      the chunks of a Dask array ``X``).
    - ``score`` computes ``scoring`` (``nDCG@10`` by default) with
      :mod:`sklearn_rank.metrics`, equal to the in-memory value on the same rows.
    - eval sets and early stopping on any sklearn-rank metric, computed across all the
      workers (see Notes). Without an ``eval_set``, early stopping holds out
      ``validation_fraction`` of the training queries, whole.

    Parameters
    ----------
    client : distributed.Client, default=None
        The Dask client; ``distributed.default_client()`` when None.

    **kwargs
        Every parameter of :class:`lightgbm.LGBMRanker` (``n_estimators``, ``learning_rate``,
        ``num_leaves``, ``objective``, ``random_state``...) and any other LightGBM
        parameter, with LightGBM's meaning and defaults; LightGBM's network parameters
        (``local_listen_port``, ``machines``, ``time_out``) as in
        :class:`lightgbm.dask.DaskLGBMRanker`.

    %(own)s

    early_stopping_rounds : int, default=None
        Keep the trees up to the iteration after which the monitored metric did not improve
        on the eval set for this many rounds (LightGBM's rule); None: no early stopping.

    Attributes
    ----------
    best_iteration_ : int
        The iteration chosen by early stopping; 0 without it (all trees are used).
    evals_result_ : dict
        Eval set name -> metric name -> value after each iteration, computed by
        sklearn-rank on all the eval rows.
    best_score_ : dict
        Eval set name -> metric name -> value at ``best_iteration_`` (the last iteration
        without early stopping).
    validation_queries_ : ndarray or None
        Query ids of the training queries held out for early stopping, or None.
    booster_, feature_importances_, n_features_in_...
        As in :class:`lightgbm.dask.DaskLGBMRanker`.

    See Also
    --------
    sklearn_rank.lightgbm.LGBMRanker : The same ranker in memory.
    sklearn_rank.xgboost.DaskXGBRanker : XGBoost's ranker on Dask.

    Notes
    -----
    **Early stopping.** ``lightgbm.dask`` does not support it: each worker evaluates an eval
    metric on its own share of the eval rows, so workers would stop at different iterations
    and wait for each other until LightGBM's network times out (LightGBM issues #3712,
    #6351). A callable eval metric is run on each worker, on its rows alone. So this
    ranker trains ``n_estimators`` trees and then picks the iteration with LightGBM's own
    rule (its :func:`lightgbm.early_stopping` callback, replayed over the values): each eval
    set's rows are scored, tree after tree, on the workers; sklearn-rank computes the
    per-query values there and merges them exactly (:func:`sklearn_rank.metrics.aggregate`).
    The chosen iteration is the one that early stopping in one process would choose from the
    same values, but the trees after it cost their training time; ``predict`` uses the
    trees up to ``best_iteration_`` (as ``booster_.best_iteration`` says).

    Eval metrics are sklearn-rank's: names of its registry (``"ndcg@10"``, ``"err@10"``...)
    and :func:`sklearn_rank.lightgbm.eval_metric` objects, ``scoring`` when none is named.
    LightGBM's own metrics (the ``metric`` parameter, ``eval_at``) would be per-worker
    values and are refused with eval sets; ``convention="lightgbm"`` reproduces LightGBM's
    definitions. ``boosting="dart"`` rescales trees during training, so its iterations
    cannot be evaluated afterwards: eval sets are refused with it.

    ``init_score`` is not supported. LightGBM's threads per worker are the Dask worker's
    threads.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.lightgbm import DaskLGBMRanker
    >>> X, y, qid = make_ranking(n_queries=60, random_state=0)
    >>> frame = pd.DataFrame(X).add_prefix("f").assign(label=y, qid=qid)
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address="127.0.0.1:0",
    ...                   processes=True) as cluster, Client(cluster):
    ...     ddf = dd.from_pandas(frame, npartitions=4)  # queries spread over partitions
    ...     model = DaskLGBMRanker(n_estimators=20, verbose=-1, random_state=0)
    ...     model = model.fit(ddf.drop(columns="label"), ddf["label"])  # its "qid" column
    ...     y_score = model.predict(ddf.drop(columns="label")).compute()
    ...     ndcg = model.score(ddf.drop(columns="label"), ddf["label"])
    ...     # early stopping on ERR@10, on queries held out from the training data
    ...     stopped = DaskLGBMRanker(n_estimators=100, early_stopping_rounds=5, verbose=-1,
    ...                              scoring="err@10(max_grade=4)", random_state=0)
    ...     stopped = stopped.fit(ddf.drop(columns="label"), ddf["label"])
    Finding random open ports for workers
    Finding random open ports for workers
    >>> y_score.index.equals(frame.index), 0.5 < ndcg <= 1
    (True, True)
    >>> stopped.best_iteration_ < 100, len(stopped.validation_queries_)
    (True, 6)

    (``lightgbm.dask`` prints how it finds the ports of LightGBM's network.)
    """

    _local_class = LGBMRanker
    _dask_only = ("client",)
    _rejected = {
        "group": "the group sizes are derived on the workers, from the query ids.",
        "eval_group": "eval sets take one query id per row (eval_qid), like the training data.",
        "init_score": "init_score is not supported by DaskLGBMRanker.",
        "eval_init_score": "init_score is not supported by DaskLGBMRanker.",
        "eval_at": "eval_at sets the positions of LightGBM's own metrics, which would be "
                   "per-worker values on Dask; name sklearn-rank metrics instead, e.g. "
                   "eval_metric=['ndcg@5', 'ndcg@10'].",
        "eval_class_weight": "it does not apply to ranking.",
    }

    def __init__(self, *, client=None, qid_column="qid", scoring="ndcg@10",
                 validation_fraction=0.1, early_stopping_rounds=None, **kwargs):
        self.qid_column = qid_column
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.early_stopping_rounds = early_stopping_rounds
        super().__init__(client=client, **kwargs)

    __init__.__signature__ = adapter_signature(
        lightgbm.dask.DaskLGBMRanker, {**OWN_PARAMETERS, "early_stopping_rounds": None})

    def _dask_client(self):
        if self.client is not None:
            return self.client
        from distributed import default_client

        return default_client()

    # lightgbm.dask builds a plain lightgbm.LGBMRanker on each worker from get_params(), and
    # so does to_local(): while either reads them, the parameters are LightGBM's alone.
    _for_lightgbm = False

    def get_params(self, deep=True):
        """Get the parameters of this estimator (LightGBM's and the adapter's own).

        Parameters
        ----------
        deep : bool, default=True
            Unused (the estimator holds no sub-estimator); as in scikit-learn.

        Returns
        -------
        params : dict
        """
        params = super().get_params(deep=deep)
        return _dask_lightgbm_params(self, params) if self._for_lightgbm else params

    @contextlib.contextmanager
    def _lightgbm_reads_params(self):
        self._for_lightgbm = True
        try:
            yield
        finally:
            del self._for_lightgbm

    def fit(self, X, y, *, qid=None, sample_weight=None, eval_set=None, eval_qid=None,
            eval_sample_weight=None, eval_names=None, eval_metric=None, callbacks=None,
            **fit_params):
        """Fit the ranker on the rows of Dask collections, one query id each.

        Parameters
        ----------
        X : dask.dataframe.DataFrame or dask.array.Array of shape (n_samples, n_features)
            Features; a Dask DataFrame may hold the query ids in its ``qid_column``.
        y : dask.dataframe.Series or dask.array.Array of shape (n_samples,)
            Relevance grades, with the partitions of ``X``: integers from 0 to 30 with
            LightGBM's default ``label_gain``.
        qid : dask.dataframe.Series or dask.array.Array of shape (n_samples,), default=None
            Query id of each row, in any order and any partition, of any sortable type;
            with the partitions of ``X`` (a column of the same Dask DataFrame, or a Dask
            array of the same row chunks). Taken from ``X[qid_column]`` when None.
            Requested by default under metadata routing.
        sample_weight : dask.dataframe.Series or dask.array.Array, default=None
            Row weights, with the partitions of ``X``.
        eval_set : list of (X, y) pairs, default=None
            Eval sets of Dask collections, each with its own query ids (``eval_qid`` or its
            own column).
        eval_qid : list of dask.dataframe.Series or dask.array.Array, default=None
            One Dask Series of per-row query ids per eval set; required for an eval set
            whose ``X`` has no query-id column.
        eval_sample_weight : list, default=None
            One Dask Series of row weights per eval set.
        eval_names : list of str, default=None
            Names of the eval sets (``"valid_0"``, ``"valid_1"``... by default).
        eval_metric : str, LightGBMEvalMetric or list of them, default=None
            sklearn-rank metrics to compute on the eval sets: registry names or
            :func:`sklearn_rank.lightgbm.eval_metric` objects; ``scoring`` when None.
        callbacks : list of callable, default=None
            LightGBM callbacks, run on the workers; a :func:`lightgbm.early_stopping`
            callback is replayed on the client instead (see Notes).
        **fit_params
            Other parameters of :meth:`lightgbm.dask.DaskLGBMRanker.fit`
            (``feature_name``, ``categorical_feature``...).

        Returns
        -------
        self : DaskLGBMRanker
            Fitted estimator.
        """
        name = type(self).__name__
        caller = f"{name}.fit"
        validate_own_params(self)
        eval_set = _merge_eval_xy(eval_set, fit_params)
        for key, why in self._rejected.items():
            if fit_params.pop(key, None) is not None:
                raise ValueError(f"{caller} takes no {key}=: {why}")
        ours = split_lightgbm_metrics(eval_metric, caller)
        params = self.get_params()
        stopper, callbacks = _early_stopping_callback(params, list(callbacks or ()))
        if eval_set is not None or stopper is not None:
            self._check_monitoring(params, caller)
        twin = self._local_twin()
        client = self._dask_client()

        train = self._query_frame(X, y, qid, sample_weight, caller=caller, twin=twin,
                                  client=client)
        evals = self._eval_frames(eval_set, eval_qid, eval_sample_weight, caller=caller,
                                  twin=twin, client=client)
        self._record_training_queries(train, client)
        self.validation_queries_ = None
        if stopper is not None and not evals:
            train, held_out = self._hold_out(train, twin, client)
            evals = [held_out]
        if evals:
            ours = ours or [LightGBMEvalMetric(self.scoring)]
        if eval_names is None:
            eval_names = [f"valid_{i}" for i in range(len(evals))]
        elif len(eval_names) != len(evals):
            raise ValueError(f"eval_names must name each of the {len(evals)} eval sets; got "
                             f"{len(eval_names)} names.")

        kwargs = {"group": train.sizes(), "sample_weight": train.sample_weight}
        if callbacks:
            kwargs["callbacks"] = callbacks
        with self._lightgbm_reads_params():
            super().fit(train.X, train.y, **kwargs, **fit_params)

        self._monitored = _monitor(self.booster_, evals, eval_names, ours, stopper, params,
                                   client)
        if self._monitored["best_iteration"]:
            # public: Booster.predict's default, as lightgbm.train sets it
            self.booster_.best_iteration = self._monitored["best_iteration"]
        return self

    def _check_monitoring(self, params, caller):
        metric = next((params[name] for name in _METRIC if params.get(name) is not None),
                      None)
        if metric not in (None, "None", "none", "null", "na", "", []):
            raise ValueError(
                f"{caller}: LightGBM's metric={metric!r} would be computed on each worker's "
                "share of the eval rows alone. Name sklearn-rank metrics in eval_metric "
                "instead, computed on all the eval rows (e.g. eval_metric=['ndcg@10'], or "
                "sklearn_rank.lightgbm.eval_metric('ndcg@5', convention='lightgbm') for "
                "LightGBM's definition), and leave metric unset."
            )
        boosting = next((params[name] for name in ("boosting", "boosting_type", "boost")
                         if params.get(name) is not None), "gbdt")
        if boosting == "dart":
            raise ValueError(
                f"{caller}: eval sets and early stopping are evaluated after training, tree "
                "by tree, and boosting='dart' rescales trees as training goes: the values "
                "would not be those of each iteration. Use boosting='gbdt' (or 'goss'), or "
                "no eval set."
            )

    @property
    def best_iteration_(self):
        """The iteration chosen by early stopping (0 without it: all trees are used)."""
        check_is_fitted(self)
        return self._monitored["best_iteration"]

    @property
    def evals_result_(self):
        """Eval set name -> metric name -> value after each iteration (sklearn-rank's)."""
        check_is_fitted(self)
        return self._monitored["evals_result"]

    @property
    def best_score_(self):
        """Eval set name -> metric name -> value at the chosen (or last) iteration."""
        check_is_fitted(self)
        return self._monitored["best_score"]

    def to_local(self):
        """The fitted model as a plain :class:`lightgbm.LGBMRanker`, in memory.

        Returns
        -------
        model : lightgbm.LGBMRanker
            With LightGBM's parameters (not the adapter's own); its booster predicts with
            the trees up to ``best_iteration_``.
        """
        with self._lightgbm_reads_params():
            return super().to_local()

    def _predict_function(self, **kwargs):
        matrix = [name for name in ("pred_leaf", "pred_contrib") if kwargs.get(name)]
        if matrix:
            raise ValueError(
                f"{type(self).__name__}.predict gives one score per row; {matrix[0]}=True "
                "gives a matrix: use lightgbm.dask.DaskLGBMRanker.predict(self, X, "
                f"{matrix[0]}=True), or to_local() in memory."
            )
        return functools.partial(_predict_with, self.to_local(), kwargs)


def _predict_with(model, kwargs, X):
    return model.predict(X, **{"num_threads": _worker_threads(), **kwargs})


def _worker_threads():
    """The threads of the Dask worker running the task (LightGBM would take every core)."""
    from distributed import get_worker

    try:
        return get_worker().state.nthreads
    except ValueError:  # not on a worker
        return 0  # LightGBM's default


DaskLGBMRanker.__doc__ = DaskLGBMRanker.__doc__ % {"own": OWN_PARAMETERS_DOC}


def split_lightgbm_metrics(eval_metric, caller):
    """The sklearn-rank eval metrics of ``eval_metric``; LightGBM's own ones are refused."""
    booster, ours = split_eval_metrics(eval_metric, _BOOSTER_METRIC_NAMES, LightGBMEvalMetric)
    if booster:
        raise ValueError(
            f"{caller} computes eval metrics with sklearn-rank on all the eval rows; "
            f"{booster!r} would be LightGBM's, or a callable that LightGBM runs on each "
            "worker's rows alone. Name sklearn-rank metrics (e.g. 'ndcg@10', 'err@10'), or "
            "pass sklearn_rank.lightgbm.eval_metric('ndcg@5', convention='lightgbm') for "
            "LightGBM's definition."
        )
    return ours


def _monitor(booster, evals, eval_names, metrics, stopper, params, client):
    """The eval sets' values after each iteration, and the iteration early stopping picks.

    Returns a dict: ``evals_result`` (name -> metric -> values), ``best_iteration`` (1-based,
    0 without early stopping) and ``best_score`` (name -> metric -> value).
    """
    import dask

    result = {"evals_result": {}, "best_iteration": 0, "best_score": {}}
    if not evals:
        return result
    n_iter = booster.current_iteration()
    boosting = next((params[name] for name in ("boosting", "boosting_type", "boost")
                     if params.get(name) is not None), "gbdt")
    average = boosting in ("rf", "random_forest")
    booster_future = client.scatter(booster, broadcast=True)
    tasks = []
    for frame in evals:
        parts = [dask.delayed(_staged_partition)(part, booster_future, n_iter, frame.features,
                                                 metrics, frame.weighted, average)
                 for part in frame.frame.to_delayed()]
        tasks.append(dask.delayed(_merge_staged)(metrics, n_iter, *parts))
    values = client.compute(tasks, sync=True)
    history = []  # LightGBM's order: eval set by eval set, metric by metric
    for name, per_metric in zip(eval_names, values, strict=True):
        result["evals_result"][name] = {m.__name__: v
                                        for m, v in zip(metrics, per_metric, strict=True)}
        history += [(name, m.__name__, v, m.maximize)
                    for m, v in zip(metrics, per_metric, strict=True)]
    last = [(name, metric, values[-1], maximize) for name, metric, values, maximize in history]
    best, best_list = 0, last
    if stopper is not None:
        best, best_list = _replay(stopper, history, params, n_iter)
    for name, metric, value, _ in best_list:
        result["best_score"].setdefault(name, {})[metric] = value
    result["best_iteration"] = best
    return result


# What LightGBM's callbacks read: EvalResult from LightGBM 4.7, plain tuples before.
_EVAL_RESULT = getattr(lightgbm, "EvalResult", lambda *fields: fields)


def _replay(stopper, history, params, n_iter):
    """LightGBM's early-stopping callback, run over the values of each iteration.

    Returns ``(best_iteration, best_score_list)``, the 1-based iteration as
    :func:`lightgbm.train` sets ``Booster.best_iteration``.
    """
    for i in range(n_iter):
        env = CallbackEnv(model=None, params=params, iteration=i, begin_iteration=0,
                          end_iteration=n_iter,
                          evaluation_result_list=[_EVAL_RESULT(name, metric, values[i], maximize)
                                                  for name, metric, values, maximize in history])
        try:
            stopper(env)
        except EarlyStopException as stop:
            return stop.best_iteration + 1, [tuple(r)[:4] for r in stop.best_score]
    return 0, [(name, metric, values[-1], maximize)
               for name, metric, values, maximize in history]
