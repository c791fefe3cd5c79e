"""The one place that touches CatBoost's private code: :func:`set_booster_params`.

Checked against CatBoost 1.2.10, the installed version, by ``tests/test_booster_internals.py``
(which fails naming the private attribute or behaviour that changed). Not checked against the
floor of ``pyproject.toml`` (``catboost>=1.2``) nor any other version.
"""

#: The CatBoost versions on which ``tests/test_booster_internals.py`` passed.
CHECKED_VERSIONS = ("1.2.10",)


def set_booster_params(estimator, params):
    """Set CatBoost parameters of ``estimator``, fitted or not, for its next fit.

    CatBoost's public ``set_params`` refuses a fitted model and keeps ``None`` as a value;
    scikit-learn's contract is that ``set_params`` works on a fitted estimator, the new values
    applying to the next fit. This does what CatBoost's ``__init__`` does with the values
    instead, on its private state: the dict ``_init_params`` of the parameters set (``None``,
    and ``thread_count=-1``, mean "not set"), and the cache ``_canonized_params`` of their
    canonical form, emptied so that the next fit rebuilds it from ``_init_params``.

    Parameters
    ----------
    estimator : catboost.CatBoost
    params : dict
        CatBoost parameter names and values.
    """
    for name, value in params.items():
        if value is None or (name == "thread_count" and isinstance(value, int)
                             and value == -1):
            estimator._init_params.pop(name, None)
        else:
            estimator._init_params[name] = value
    estimator._canonized_params = None
