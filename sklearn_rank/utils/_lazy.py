"""Public names of a package loaded with their module on first use (PEP 562).

A package lists ``{private module: public names}``; ``package.name`` and ``from package
import name`` then import the module the first time. ``sklearn-rank trec_eval`` reads the
metric registry without importing scikit-learn, which the scorers and the public functions'
validation need, and ``import sklearn_rank.metrics`` costs what numpy costs.
"""

import importlib
import sys

__all__ = ["lazy_exports"]


def lazy_exports(package, exports, more=None):
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict
        Module, relative to ``package`` (``"._engine"``) -> the public names it defines.
    more : callable, default=None
        Returns more public names, as a dict name -> module (absolute, or relative to
        ``package``), when first needed: by a name that ``exports`` lacks, by ``__all__`` or
        by ``dir()``. For names derived from a table that costs an import to read (the metric
        registry: each metric's public function), which ``import package`` then does not pay.

    Returns
    -------
    getattr, dir : callable
        To assign to the package's ``__getattr__`` and ``__dir__``. ``__all__``, when the
        package does not set it, is every public name, sorted, computed on first use.
    """

    module_of = {name: module for module, names in exports.items() for name in names}
    pending = [more] if more is not None else []

    def _everything():
        while pending:
            module_of.update(pending[0]())  # on an error, asked again next time
            pending.pop(0)
        return module_of

    def __getattr__(name):
        if name == "__all__":
            value = sorted(_everything())
        # a private name is never public: `from package import _module` asks for it before
        # it imports the submodule, and must not pay for (or cycle into) ``more``
        elif name in module_of or (not name.startswith("_") and name in _everything()):
            value = getattr(importlib.import_module(module_of[name], package), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # found directly from now on
        return value

    def __dir__():
        return sorted({*vars(sys.modules[package]), *_everything()})

    return __getattr__, __dir__
