"""The one place where scikit-learn's parameter-validation machinery is imported.

scikit-learn keeps ``validate_params`` and its constraint classes in a private module; every
module of sklearn-rank imports them from here, so a change on scikit-learn's side is mended in
one place.
"""

from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)

__all__ = [
    "Interval",
    "InvalidParameterError",
    "Options",
    "StrOptions",
    "validate_parameter_constraints",
    "validate_params",
]
