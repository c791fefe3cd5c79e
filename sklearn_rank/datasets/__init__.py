"""Synthetic learning-to-rank data sets.

Generators return flat arrays ``(X, y, qid)``, the layout every function in
:mod:`sklearn_rank.metrics` takes.
"""

from ._generator import make_ranking

__all__ = ["make_ranking"]
