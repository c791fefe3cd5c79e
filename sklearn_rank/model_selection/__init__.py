"""Cross-validation over whole queries, with the query ids routed for the user."""

from ..utils._trained import reused_query_ids
from ._search import HalvingGridSearchCV, HalvingRandomSearchCV
from ._split import QueryKFold, QueryShuffleSplit, StratifiedQueryKFold
from ._validation import cross_validate, grade_scale

__all__ = [
    "HalvingGridSearchCV",
    "HalvingRandomSearchCV",
    "QueryKFold",
    "QueryShuffleSplit",
    "StratifiedQueryKFold",
    "cross_validate",
    "grade_scale",
    "reused_query_ids",
]
