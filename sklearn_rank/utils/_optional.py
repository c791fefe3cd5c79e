"""Lazy import of optional dependencies, with an error naming the extra to install."""

import importlib


def import_optional(module, *, extra, purpose):
    """Import ``module`` or raise an ``ImportError`` that says how to get it.

    Parameters
    ----------
    module : str
        Name of the module to import, e.g. ``"xgboost"``.
    extra : str
        Name of the sklearn-rank extra that installs it, e.g. ``"xgboost"``.
    purpose : str
        What needs it, for the message, e.g. ``"XGBRanker"``.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{purpose} needs the optional dependency {module!r}, which is not installed. "
            f'Install it with: pip install "sklearn-rank[{extra}]"'
        ) from exc
