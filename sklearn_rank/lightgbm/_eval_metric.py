"""sklearn-rank metrics as LightGBM custom eval metrics."""

import numpy as np

from .._adapters import BoosterEvalMetric


class LightGBMEvalMetric(BoosterEvalMetric):
    """An sklearn-rank metric as a LightGBM eval metric; build it with :func:`eval_metric`.

    Callable two ways, told apart by the type of the second argument:

    - ``metric(y_true, y_pred, weight, group)``, as the scikit-learn API's ``eval_metric``
      (``LGBMRanker.fit(..., eval_metric=metric)``);
    - ``metric(preds, eval_data)`` with ``eval_data`` a :class:`lightgbm.Dataset`, as
      ``lightgbm.train(..., feval=metric)``.

    Both return ``(name, value, is_higher_better)``.
    """

    _public_name = "sklearn_rank.lightgbm.eval_metric"
    _how_to_group = (
        "give the lightgbm.Dataset group= (the size of each query, rows grouped by query), or "
        "use sklearn_rank.lightgbm.LGBMRanker, which takes qid= and passes the groups of its "
        "eval sets"
    )

    def __call__(self, y_true, y_pred, weight=None, group=None):
        import lightgbm

        if isinstance(y_pred, lightgbm.Dataset):
            # lightgbm.train's feval(preds, eval_data)
            y_pred, dataset = y_true, y_pred
            y_true = dataset.get_label()
            weight = dataset.get_weight()
            group = dataset.get_group()
        if weight is not None and len(weight) == 0:
            weight = None
        if group is not None and len(group) == 0:
            group = None
        value = self._value(np.asarray(y_true), y_pred, group, weight)
        return self.__name__, value, self.maximize


def eval_metric(name, **options):
    """An sklearn-rank metric as a LightGBM custom eval metric, e.g. ``ERR@10``.

    The value is computed by :mod:`sklearn_rank.metrics`, with the query grouping that
    LightGBM holds, so that early stopping monitors exactly the metric that
    :func:`sklearn_rank.get_scorer` and :meth:`LGBMRanker.score` report afterwards. Use it for
    the metrics LightGBM lacks (ERR, MRR, precision, recall, RBP...) or for sklearn-rank's
    conventions of those it has.

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
        Usable as the scikit-learn API's ``eval_metric`` (called as
        ``metric(y_true, y_pred, weight, group)``) and as :func:`lightgbm.train`'s ``feval``
        (called as ``metric(preds, eval_data)``); returns ``(name, value, True)``, higher
        being better. Queries are LightGBM's groups; a data set without groups raises
        (``group=[n_rows]`` makes all rows one query); row weights weigh each query by the
        mean of its rows' weights.

    See Also
    --------
    sklearn_rank.lightgbm.LGBMRanker : Uses these for early stopping on its ``scoring``.
    sklearn_rank.xgboost.eval_metric : The same for XGBoost.

    Examples
    --------
    >>> import lightgbm
    >>> import numpy as np
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.lightgbm import eval_metric
    >>> from sklearn_rank.metrics import err_score
    >>> X, y, qid = make_ranking(n_queries=30, shuffle=False, random_state=0)
    >>> _, group = np.unique(qid, return_counts=True)
    >>> train = lightgbm.Dataset(X, y, group=group)
    >>> err10 = eval_metric("err@10", max_grade=4)  # grades 0 to 4
    >>> booster = lightgbm.train({"objective": "lambdarank", "metric": "None", "verbose": -1},
    ...                          train, num_boost_round=5, valid_sets=[train], feval=err10)
    >>> name, value, higher_is_better = err10(booster.predict(X), train)
    >>> name, higher_is_better, bool(np.isclose(value, err_score(y, booster.predict(X),
    ...                                                          qid=qid, k=10, max_grade=4)))
    ('err@10', True, True)
    """
    return LightGBMEvalMetric(name, **options)
