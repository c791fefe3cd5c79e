"""The one place that touches XGBoost's private code: :func:`fit_with_custom_metric`.

Checked against XGBoost 3.2.0, the installed version, by ``tests/test_booster_internals.py``
(which fails naming the private method or behaviour that changed). Not checked against the
floor of ``pyproject.toml`` (``xgboost>=3.1``) nor any other version.
"""

#: The XGBoost versions on which ``tests/test_booster_internals.py`` passed.
CHECKED_VERSIONS = ("3.2.0",)


def fit_with_custom_metric(estimator, custom_metric, attributes, fit):
    """Run ``fit()``, XGBoost's ``XGBRanker.fit``, with a whole-DMatrix custom metric.

    :class:`xgboost.XGBRanker` wraps a callable ``eval_metric`` into a per-query Python loop;
    sklearn-rank's metrics take the whole DMatrix at once, as :func:`xgboost.train`'s
    ``custom_metric``, which the scikit-learn API has no parameter for. For the duration of
    ``fit()`` only, this

    - overrides, on ``estimator`` alone, the private ``XGBModel._configure_fit(booster,
      params, feature_weights)``, which ``fit`` calls once and whose second return value is
      the ``custom_metric`` that ``fit`` hands to :func:`xgboost.train`; without an
      ``eval_metric`` left for XGBoost, its default metric is disabled
      (``disable_default_eval_metric``);
    - sets the public ``attributes`` (name -> value: ``eval_metric``,
      ``early_stopping_rounds``, ``callbacks``) that ``fit`` reads, so that XGBoost neither
      wraps sklearn-rank's metrics itself nor minimises them when early stopping.

    Both are restored afterwards, whatever happens.

    Parameters
    ----------
    estimator : xgboost.XGBRanker
    custom_metric : callable
        ``custom_metric(predt, dmatrix)``, as :func:`xgboost.train` takes it.
    attributes : dict
        Parameters of ``estimator`` to set during ``fit()``.
    fit : callable
        Runs XGBoost's ``fit`` on ``estimator``, without arguments.

    Returns
    -------
    The return value of ``fit()``.
    """
    configure = estimator._configure_fit

    def _configure_fit(*args, **kwargs):
        model, _, params, *rest = configure(*args, **kwargs)
        if estimator.eval_metric is None:
            params["disable_default_eval_metric"] = True
        return (model, custom_metric, params, *rest)

    saved = {name: getattr(estimator, name) for name in attributes}
    estimator._configure_fit = _configure_fit  # an instance attribute: this estimator only
    try:
        for name, value in attributes.items():
            setattr(estimator, name, value)
        return fit()
    finally:
        del estimator._configure_fit
        for name, value in saved.items():
            setattr(estimator, name, value)
