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


def _pandas_index(x):
    """``(index, labels)`` of a pandas Series or DataFrame: ``labels`` is False for pandas'
    default index (0, 1, 2...), which numbers the rows rather than labelling them."""
    if type(x).__module__.partition(".")[0] != "pandas":
        return None, False
    index = getattr(x, "index", None)
    if index is None:
        return None, False
    default = (type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1)
    return index, not default


def check_same_rows(named, caller):
    """Refuse pandas inputs whose indexes list the rows in another order: the metrics pair
    the inputs by position (as scikit-learn's do), so that a ``y_score`` of a sorted frame
    would give each document another one's score. Two labelled indexes must be equal; a
    default index (0, 1, 2...) beside a labelled one is refused only when the labelled one
    holds the same labels in another order (a frame sorted or shuffled after the other
    column was taken): ``pd.Series(model.predict(X))`` beside the columns of a test frame
    cut from a larger one is paired by position, as it should."""
    indexes = [(name, *_pandas_index(x)) for name, x in named.items() if x is not None]
    indexes = [(name, index, labels) for name, index, labels in indexes if index is not None]
    for i, (first, reference, labelled) in enumerate(indexes):
        for name, index, other_labelled in indexes[i + 1:]:
            if (not (labelled or other_labelled) or len(index) != len(reference)
                    or index.equals(reference)):
                continue
            if labelled and other_labelled or reference.sort_values().equals(
                    index.sort_values()):
                raise ValueError(
                    f"{caller}: {first} and {name} are pandas objects whose indexes do not "
                    "list the same rows in the same order. The values are paired by "
                    "position, not by index label, so the values of one row would be paired "
                    f"with another row's. Align them first (e.g. {name} = "
                    f"{name}.loc[{first}.index]), or pass arrays (.to_numpy()) when their "
                    "positions already match."
                )
