"""Flat per-row arrays from what users pass: lists, numpy arrays, pandas and polars Series."""

import numpy as np

#: Why a 2-D array is refused where one value per row is expected.
FLAT_HINT = (" Ranking metrics take flat arrays: pass the query of each row in qid instead of "
             "one row per query.")


def _describe(x):
    shape = getattr(x, "shape", None)
    if shape is not None:
        return f"an array of shape {tuple(shape)}"
    return f"a {type(x).__name__}"


def column_or_1d(x, name, *, hint=FLAT_HINT):
    """``x`` as a 1-D numpy array, one entry per row, or a ``ValueError`` naming ``name``.

    Series are recognised by duck typing (``to_numpy``), so that neither pandas nor polars
    is imported here. ``hint`` ends the message of an array of another shape.
    """
    if x is None:
        raise ValueError(f"{name} is required; got None.")
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = x.to_numpy()
    try:
        arr = np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} must be a 1-D array-like with one entry per document; got {_describe(x)} "
            f"that numpy cannot read as an array ({exc})."
        ) from None
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array-like with one entry per document; got an array of "
            f"shape {arr.shape}.{hint}"
        )
    return arr


def check_finite_nonnegative(values, name):
    """Raise a ``ValueError`` naming ``name`` unless the float array ``values`` holds finite
    non-negative numbers (weights); return ``values``."""
    finite = np.isfinite(values)
    if not finite.all() or (values < 0).any():
        least = f"min={values[finite].min()}" if finite.any() else "no finite value"
        raise ValueError(
            f"{name} must hold finite non-negative numbers; got {least}, and "
            f"{int((~finite).sum())} NaN or infinite value(s)."
        )
    return values
