"""Plain-text output shared by every layer: paragraphs wrapped, tables aligned, strict JSON.

The results tables of :mod:`sklearn_rank.stats`, the benchmark report's text tables and the
command line's output all print through these functions, so that a table or a paragraph
looks the same wherever it comes from. Standard library and numpy only (numpy imported when
JSON is written).
"""

import csv
import io
import json
import math
import textwrap


def wrap(text, width=88, indent=""):
    """The lines of a paragraph, at most ``width`` characters each where words allow.

    Lines break at spaces only: never inside a word, nor at the hyphens of names such as
    ``sklearn-rank[xgboost]``. Every line but the first starts with ``indent``.

    Returns
    -------
    lines : list of str
        At least one line (an empty one for an empty text).
    """
    return textwrap.wrap(text, width=width, subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=False) or [""]


def format_table(header, rows, fmt="text", align=None):
    """A table as aligned text, a Markdown pipe table or CSV.

    Parameters
    ----------
    header : list of str
    rows : list of list of str
        Cells already formatted.
    fmt : {"text", "markdown", "csv"}
        ``"text"``: columns two spaces apart under a rule of dashes, trailing spaces
        removed.
    align : str, default=None
        One of ``"l"``/``"r"`` per column; the first column left, the others right when
        None.

    Returns
    -------
    table : str
        Without a final newline.
    """
    align = align or "l" + "r" * (len(header) - 1)
    if fmt == "csv":
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows([header, *rows])
        return buffer.getvalue().rstrip("\n")
    if fmt == "markdown":
        rule = "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"
        return "\n".join(["| " + " | ".join(header) + " |", rule,
                          *("| " + " | ".join(row) + " |" for row in rows)])
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

    def line(cells):
        return "  ".join(cell.ljust(w) if a == "l" else cell.rjust(w)
                         for cell, w, a in zip(cells, widths, align)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]),
                      *(line(row) for row in rows)])


def to_json(data):
    """Strict JSON text of ``data`` (:func:`json_safe`): a NaN or infinite value is
    ``null``, since ``NaN`` is no JSON token and strict readers refuse it."""
    return json.dumps(json_safe(data), indent=2, allow_nan=False)


def json_safe(value):
    """``value`` with only what JSON writes: numpy scalars and arrays as Python numbers and
    lists, masked entries and non-finite floats as None, tuples as lists, other objects as
    their ``repr``. Floats keep every digit (JSON floats round-trip)."""
    import numpy as np

    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, np.ma.MaskedArray):
        return [json_safe(v) for v in value.tolist()]  # masked -> None
    if isinstance(value, np.ndarray):
        return [json_safe(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        return json_safe(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return repr(value)
