"""Transformers for ranking pipelines.

- :class:`KeepQueryId`: transform the features of a DataFrame and carry its query-id column
  through, unchanged, for a ranker after it.
- :class:`DropQueryId`: drop the query-id column, for a pointwise model.
"""

from ._drop import DropQueryId
from ._keep import KeepQueryId

__all__ = ["DropQueryId", "KeepQueryId"]
