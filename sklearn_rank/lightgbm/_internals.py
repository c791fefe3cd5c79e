"""The one place that touches LightGBM's private code: :func:`edit_booster_params`.

Checked against LightGBM 4.7.0, the installed version, by ``tests/test_booster_internals.py``
(which fails naming the private method if it changes). Not checked against the floor of
``pyproject.toml`` (``lightgbm>=4.0``) nor any other version.
"""

#: The LightGBM versions on which ``tests/test_booster_internals.py`` passed.
CHECKED_VERSIONS = ("4.7.0",)


def edit_booster_params(edit):
    """Class decorator: LightGBM's booster gets ``edit(estimator, params)`` as parameters.

    LightGBM's scikit-learn API (``LGBMModel.fit`` and ``predict``) turns ``get_params()``
    into the parameters of its booster with the private method ``_process_params(stage)``,
    and passes every parameter it does not know to the booster. Overriding that method is the
    only way to keep the adapter's own parameters (``qid_column``, ``scoring``...) away from
    the booster, or to change its ``metric`` for one fit; this is the only override of it.

    Parameters
    ----------
    edit : callable
        ``edit(estimator, params) -> params``, called with the dict that LightGBM built, in
        ``fit`` and in ``predict``.
    """
    def decorate(cls):
        def _process_params(self, stage):
            return edit(self, super(cls, self)._process_params(stage))

        _process_params.__qualname__ = f"{cls.__qualname__}._process_params"
        _process_params.__doc__ = (f"LightGBM's parameters for its booster, through "
                                   f"{edit.__qualname__}.")
        cls._process_params = _process_params
        return cls

    return decorate
