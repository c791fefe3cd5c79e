"""Transformers for ranking pipelines."""

from ._drop import DropQueryId

__all__ = ["DropQueryId"]
