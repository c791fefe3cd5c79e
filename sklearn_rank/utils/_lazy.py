"""Public names of a package loaded with their module on first use (PEP 562).

A package lists ``{private module: public names}``; ``package.name`` and ``from package
import name`` then import the module the first time. ``sklearn-rank trec_eval`` reads the
metric registry without importing scikit-learn, which the scorers and the public functions'
validation need, and ``import sklearn_rank.metrics`` costs what numpy costs.
"""

import importlib
import sys

__all__ = ["lazy_exports"]


def lazy_exports(package, exports):
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict
        Module, relative to ``package`` (``"._ranking"``) -> the public names it defines.

    Returns
    -------
    getattr, dir : callable
        To assign to the package's ``__getattr__`` and ``__dir__``.
    """

    module_of = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name):
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_of[name], package), name)
        setattr(sys.modules[package], name, value)  # found directly from now on
        return value

    def __dir__():
        return sorted({*vars(sys.modules[package]), *module_of})

    return __getattr__, __dir__
