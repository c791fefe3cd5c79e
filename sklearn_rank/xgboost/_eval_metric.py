"""sklearn-rank metrics as XGBoost custom eval metrics."""

import re

import numpy as np

from .._adapters import BoosterEvalMetric, split_eval_metrics

# XGBoost's own ranking metrics: ndcg, map and pre, with an optional @k and "-".
_BOOSTER_METRIC_NAMES = re.compile(r"^(ndcg|map|pre)(@\d+)?-?$")


class XGBoostEvalMetric(BoosterEvalMetric):
    """An sklearn-rank metric as an XGBoost eval metric; build it with :func:`eval_metric`.

    Callable two ways, told apart by the type of the second argument:

    - ``metric(predt, dmatrix)`` with ``dmatrix`` an :class:`xgboost.DMatrix`, as
      :func:`xgboost.train`'s ``custom_metric``: returns ``(name, value)``, the queries being
      the DMatrix's groups;
    - ``metric(y_true, y_score)`` on the rows of one query, as the scikit-learn API of a
      plain :class:`xgboost.XGBRanker` calls a callable ``eval_metric``: returns the value.
    """

    _public_name = "sklearn_rank.xgboost.eval_metric"
    _how_to_group = (
        "give the DMatrix qid= (one query id per row, rows grouped by query) or group= (the "
        "size of each query), or use sklearn_rank.xgboost.XGBRanker, which groups the rows of "
        "its qid= itself"
    )

    def __call__(self, predt, dmatrix):
        import xgboost

        if not isinstance(dmatrix, xgboost.DMatrix):
            # xgboost.XGBRanker(eval_metric=metric) calls metric(y_true, y_score) per query
            # and averages the values itself: here the rows are one query.
            y_true = np.asarray(predt)
            return self._value(y_true, dmatrix, [len(y_true)])
        y_true = dmatrix.get_label()
        group_ptr = dmatrix.get_uint_info("group_ptr").astype(np.int64)
        sizes = np.diff(group_ptr) if len(group_ptr) >= 2 else None
        weight = dmatrix.get_weight()
        if weight.size == 0:
            weight = None
        elif sizes is not None and weight.size == len(sizes):
            # XGBoost weighs ranking groups, one weight per query: every row of a query gets
            # its query's weight, and the metric weighs the query by the mean of those.
            weight = np.repeat(weight, sizes)
        return self.__name__, self._value(y_true, predt, sizes, weight)


class MetricList:
    """Several sklearn-rank eval metrics as XGBoost's one custom metric (a list of values)."""

    def __init__(self, metrics):
        self.metrics = list(metrics)

    def __call__(self, predt, dmatrix):
        return [metric(predt, dmatrix) for metric in self.metrics]


def plan_eval_metrics(estimator, *, has_evals, early_stopping, has_early_stopping_callback):
    """The sklearn-rank eval metrics of one fit of an XGBoost ranker, in memory or on Dask.

    Parameters
    ----------
    estimator : XGBRanker or DaskXGBRanker
        Read for ``eval_metric``, ``scoring``, ``early_stopping_rounds`` and ``callbacks``.
    has_evals : bool
        Whether the fit has eval sets (given, or held out for early stopping).
    early_stopping : bool
        Whether the parameters and the fit ask for early stopping.
    has_early_stopping_callback : bool
        Whether ``callbacks`` already hold an XGBoost ``EarlyStopping``.

    Returns
    -------
    ours : list of XGBoostEvalMetric
        The sklearn-rank metrics of ``eval_metric``; ``scoring`` when early stopping has
        eval sets and no metric to monitor. Empty: XGBoost's own metrics only.
    attributes : dict
        The estimator's attributes that ``fit_with_custom_metric`` overrides for the fit
        when ``ours`` is not empty: ``eval_metric`` (XGBoost's own names), and an
        ``EarlyStopping`` callback that maximises in place of ``early_stopping_rounds``.
    """
    booster_metrics, ours = split_eval_metrics(estimator.eval_metric, _BOOSTER_METRIC_NAMES,
                                               XGBoostEvalMetric)
    if has_evals and early_stopping and not booster_metrics and not ours:
        ours = [XGBoostEvalMetric(estimator.scoring)]
    attributes = {}  # of this fit: see fit_with_custom_metric
    if ours:
        if any(callable(entry) for entry in booster_metrics):
            raise ValueError(
                "XGBoost takes one custom eval metric: sklearn-rank metrics "
                f"{[m.name for m in ours]} cannot be combined with another callable."
            )
        attributes["eval_metric"] = booster_metrics or None
        if estimator.early_stopping_rounds and not has_early_stopping_callback:
            import xgboost

            # XGBoost's early stopping minimises metrics it does not know.
            attributes["early_stopping_rounds"] = None
            attributes["callbacks"] = [
                *(estimator.callbacks or ()),
                xgboost.callback.EarlyStopping(rounds=estimator.early_stopping_rounds,
                                               metric_name=ours[-1].__name__,
                                               maximize=ours[-1].maximize),
            ]
    return ours, attributes


def eval_metric(name, **options):
    """An sklearn-rank metric as an XGBoost custom eval metric, e.g. ``ERR@10``.

    The value is computed by :mod:`sklearn_rank.metrics`, with the query groups that
    XGBoost holds, so that early stopping monitors exactly the metric that
    :func:`sklearn_rank.get_scorer` and :meth:`XGBRanker.score` report afterwards. Use it for
    the metrics XGBoost lacks (ERR, MRR, recall, RBP...) or for sklearn-rank's conventions of
    those it has.

    Parameters
    ----------
    name : str
        Metric name, as in :func:`sklearn_rank.metrics.evaluate`: ``"err@10"``,
        ``"ndcg@10"``, ``"map"``, ``"mrr@10"``, ``"p@5"``, ``"rbp(p=0.8)"``...

    **options
        Options of the metric (``gain="linear"``, ``max_grade=4``, ``no_relevant=1.0``...),
        and ``convention=`` to reproduce another system's definition.

    Returns
    -------
    metric : callable
        ``metric(predt, dmatrix) -> (name, value)``, for :func:`xgboost.train`'s
        ``custom_metric``. Higher is better: XGBoost's early stopping minimises unless told
        otherwise, so pass ``maximize=True`` to :func:`xgboost.train` (``metric.maximize`` says
        so), or use :class:`sklearn_rank.xgboost.XGBRanker`, which does it. Queries are the
        DMatrix's groups (its ``qid`` or ``group``), weighted by the group weights; a DMatrix
        without groups raises (``group=[n_rows]`` makes all rows one query). XGBoost logs the
        values with six decimals (``evals_result``, early stopping). Also accepted as the
        ``eval_metric`` of a plain :class:`xgboost.XGBRanker`, which calls it query by query,
        gives 1 to queries of one row, averages the values weighting each query by its number of
        rows, and whose early stopping needs an ``xgboost.callback.EarlyStopping(...,
        maximize=True)`` callback; :class:`sklearn_rank.xgboost.XGBRanker` has none of these
        differences.

    See Also
    --------
    sklearn_rank.xgboost.XGBRanker : Accepts these, and sklearn-rank metric names, as
        ``eval_metric``, and early-stops on its ``scoring`` by default.
    sklearn_rank.lightgbm.eval_metric : The same for LightGBM.

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.metrics import err_score
    >>> from sklearn_rank.xgboost import eval_metric
    >>> X, y, qid = make_ranking(n_queries=30, shuffle=False, random_state=0)
    >>> train = xgboost.DMatrix(X, y, qid=qid)
    >>> err10 = eval_metric("err@10", max_grade=4)  # grades 0 to 4
    >>> booster = xgboost.train({"objective": "rank:ndcg"}, train, num_boost_round=50,
    ...                         evals=[(train, "train")], custom_metric=err10,
    ...                         maximize=err10.maximize, early_stopping_rounds=5,
    ...                         verbose_eval=False)
    >>> predt = booster.predict(train)
    >>> name, value = err10(predt, train)
    >>> name, bool(np.isclose(value, err_score(y, predt, qid=qid, k=10, max_grade=4)))
    ('err@10', True)
    """
    return XGBoostEvalMetric(name, **options)
