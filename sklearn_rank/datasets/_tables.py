"""A reader of tables of (query, document) rows: CSV, TSV and Parquet.

The CSV/TSV reader needs nothing beyond the standard library and numpy, and has no Python
loop over cells: the ``csv`` module splits the rows in C, ``map`` and ``operator.itemgetter``
pull the columns out of them in C, and numpy converts each column at once. Only on an error
does a loop look for the first bad cell, to name its line. Parquet is read with pandas (and
pyarrow or fastparquet) or else polars.
"""

import codecs
import csv
import importlib.util
import os
import re
import sys
from operator import itemgetter
from pathlib import Path

import numpy as np

__all__ = ["read_table"]

# How the messages of read_table name its parameters; the command line names its options.
_PARAMETERS = {
    "qid_column": "qid_column", "label_column": "label_column",
    "score_column": "score_column", "docno_column": "docno_column",
    "qid_type=int": "qid_type='int'", "qid_type=str": "qid_type='str'",
}
# ASCII digits only: int() reads "١" (an Arabic-Indic one) as 1, which merged query ids
_INTEGER = re.compile(r"[+-]?[0-9]+")


def read_table(path, *, qid_column="qid", label_column="label", score_column="score",
               qid_type=None):
    """Read query ids, relevance grades and scores from a CSV, TSV or Parquet table.

    One row per (query, document), with a header line naming the columns; other columns
    are ignored. The file type comes from the suffix: ``.csv``, ``.tsv``, ``.parquet`` or
    ``.pq``. Text files are read as UTF-8 (a byte-order mark is skipped), and fields may be
    of any length. Reading Parquet needs pandas with pyarrow (or fastparquet), or polars.

    Parameters
    ----------
    path : str or path-like
        The table.

    qid_column : str, default="qid"
        The column of query ids. Every row needs one.

    label_column : str, default="label"
        The column of graded relevance: finite numbers.

    score_column : str or None, default="score"
        The column of scores, higher ranks first: numbers, infinite ones included. None
        reads no scores (a table of judgements only).

    qid_type : {"str", "int"} or None, default=None
        The type of the query ids: ``"str"`` keeps them as written (``"007"`` and ``"7"``
        are two queries), ``"int"`` reads them as integers (one query). None means
        ``"str"`` for CSV and TSV, and the column's own type for Parquet.

    Returns
    -------
    data : dict
        ``"qid"`` of shape (n_rows,), ``"y_true"`` (float64) and, unless ``score_column``
        is None, ``"y_score"`` (float64), in the rows' order: the flat arrays that
        :func:`sklearn_rank.metrics.evaluate` takes.

    Raises
    ------
    ValueError
        For an unknown file type, a missing or repeated column, a row with the wrong number
        of fields, an empty query id, or a grade or score that is not a number. The message
        names the file, and the line (CSV, TSV) or row (Parquet) of the first bad cell.
    ImportError
        For a Parquet file when no Parquet reader is installed.
    OSError
        When the file cannot be read.

    See Also
    --------
    read_trec : Read a TREC run and its qrels.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.datasets import read_table
    >>> from sklearn_rank.metrics import ndcg_score
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "scores.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("qid,doc,label,score\\n"
    ...                 "q1,a,2,0.9\\nq1,b,0,0.4\\nq2,c,1,0.2\\nq2,d,0,0.7\\n")
    >>> data = read_table(path)
    >>> data["qid"]
    array(['q1', 'q1', 'q2', 'q2'], dtype='<U2')
    >>> float(ndcg_score(data["y_true"], data["y_score"], qid=data["qid"]))
    0.8154648767857288
    """
    if qid_type not in (None, "str", "int"):
        raise ValueError(f"qid_type must be 'str', 'int' or None; got {qid_type!r}.")
    names = [qid_column, label_column] + ([] if score_column is None else [score_column])
    qid, y_true, *y_score = _read_table(path, names, qid_type, _PARAMETERS)
    data = {"qid": qid, "y_true": y_true}
    if y_score:
        data["y_score"] = y_score[0]
    return data


def _read_table(path, names, qid_type, spelled, docno_column=None):
    """``[qid, label(, score)]`` columns of a table; messages name parameters as ``spelled``.

    ``spelled`` maps ``"qid_column"``, ``"label_column"``, ``"score_column"``,
    ``"docno_column"``, ``"qid_type=int"`` and ``"qid_type=str"`` to how the caller names
    them (the command line's ``--qid-column``...). With ``docno_column``, the document names
    of that column come last, as text (trec_eval's tie-break reads them).
    """
    path = Path(os.fspath(path))
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise ValueError(f"{str(path)!r}: unknown table type {path.suffix or '(none)'!r}; "
                         f"expected one of {', '.join(_READERS)}.")
    if docno_column is not None:
        names = [*names, docno_column]
        spelled = {**spelled, "options": [*_column_options(names[:-1], spelled),
                                          spelled["docno_column"]]}
    columns, where, default_type = reader(path, names, spelled)
    docno = None
    if docno_column is not None:
        *columns, docno = columns
        docno = _document_names(path, docno_column, docno, where)
        names = names[:-1]
    qid = _query_ids(path, names[0], columns[0], where, qid_type or default_type, spelled)
    label = _numbers(path, names[1], columns[1], where, finite=True)
    scores = [_numbers(path, names[2], column, where) for column in columns[2:]]
    return [qid, label, *scores, *([] if docno is None else [docno])]


def _options(spelled):
    return (spelled["qid_column"], spelled["label_column"], spelled["score_column"])


def _column_options(names, spelled):
    """The option that names each of ``names``: the query ids, the grades, then scores or
    features (or, as ``spelled["options"]`` says, the options of the caller)."""
    if "options" in spelled:
        return spelled["options"]
    return [*_options(spelled), *[spelled["score_column"]] * (len(names) - 3)]


def _document_names(path, name, values, where):
    """The document-name column as text (numbers as written); an empty name is an error."""
    values = np.asarray(values)
    _missing_ids(path, name, values, where, "a document name")
    return values if values.dtype.kind == "U" else np.array([str(v) for v in values.tolist()])


def _check_columns(path, header, names, spelled):
    # the options in the order of names: every name after the third is another score or
    # feature column, unless spelled lists them
    options = _column_options(names, spelled)
    named = {}
    for option, name in zip(options, names):
        if name in named:  # one column read as two: query ids taken from the grades...
            if named[name] == option:
                raise ValueError(f"{str(path)!r}: {option} names the column {name!r} twice; "
                                 "name each column once.")
            raise ValueError(f"{str(path)!r}: {named[name]} and {option} both name the column "
                             f"{name!r}; give each its own column (query ids, grades, "
                             "scores).")
        named[name] = option
    for option, name in zip(options if "options" in spelled else _options(spelled), names):
        count = list(header).count(name)
        if count == 0:
            raise ValueError(
                f"{str(path)!r} has no column {name!r} (its columns: "
                f"{', '.join(repr(str(c)) for c in header)}); name the column with {option}."
            )
        if count > 1:
            raise ValueError(f"{str(path)!r} has {count} columns named {name!r}; "
                             f"rename them so that {option} names one column.")


def _shown(value):
    """A cell for a message: its repr, cut short."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def _numbers(path, name, values, where, finite=False):
    """A column as floats; a missing, non-numeric or NaN cell is an error naming its row.

    With ``finite``, infinite values are errors too (grades; a score may be infinite).
    """
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        out = None
    if out is not None and out.ndim == 1:
        bad = ~np.isfinite(out) if finite else np.isnan(out)
        if not bad.any():
            odd = _odd_spelling(values)
            if odd is None:
                return out
            raise ValueError(f"{str(path)!r}, {where(odd)}: column {name!r} holds "
                             f"{_shown(values[odd])}; expected a number written with the "
                             "ASCII digits 0-9 and no '_' (Python's float() reads '\u0661\u0662' "
                             "and '1_0' as 12 and 10, which no other reader does).")
    for i, value in enumerate(values):  # an error: find the first bad cell, to name it
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = np.nan
        if np.isnan(number) or (finite and np.isinf(number)):
            expected = "a finite number" if finite else "a number"
            raise ValueError(f"{str(path)!r}, {where(i)}: column {name!r} holds "
                             f"{_shown(value)}; expected {expected}.")
    raise AssertionError("unreachable")  # pragma: no cover


def _odd_spelling(values):
    """The index of the first text cell that Python's ``float()`` reads as a number but C's
    ``strtod`` (and so trec_eval, pandas, spreadsheets) does not: non-ASCII digits
    (``"\u0661\u0662"``, ``"\uff15"``) or ``_`` between digits (``"1_0"``); None if none.
    One scan of all the cells' text in the usual case of none."""
    if isinstance(values, np.ndarray) and values.dtype.kind not in "OU":
        return None
    try:
        text = "".join(values)  # every cell a str
    except TypeError:
        values = ["" if not isinstance(value, str) else value for value in values]
        text = "".join(values)
    if text.isascii() and "_" not in text:
        return None
    return next(i for i, value in enumerate(values)
                if not value.isascii() or "_" in value)


def _is_missing(value):
    if value is None or (isinstance(value, str) and not value.strip()):
        return True
    try:  # NaN, NaT (numpy's and pandas'), Decimal("NaN"): the values unequal to themselves
        return bool(value != value)
    except (TypeError, ValueError):
        return False


def _missing_ids(path, name, values, where, what="a query id"):
    """Refuse an empty query id (or ``what``): ``""``, blanks, None, NaN or NaT."""
    kind = values.dtype.kind
    if kind == "U":  # text columns only, stripped when read; Parquet strings are objects
        empty = values == ""
    elif kind in "fc":
        empty = np.isnan(values)
    elif kind in "mM":  # a timestamp column with nulls
        empty = np.isnat(values)
    elif kind == "O":
        empty = np.fromiter(map(_is_missing, values), dtype=bool, count=len(values))
    else:
        return
    if empty.any():
        i = int(np.argmax(empty))
        raise ValueError(f"{str(path)!r}, {where(i)}: column {name!r} is empty; "
                         f"every row needs {what}.")


def _is_integer(value):
    if isinstance(value, float):
        return value.is_integer()
    return _INTEGER.fullmatch(str(value).strip()) is not None


def _as_integer(value):
    return int(float(value)) if isinstance(value, float) else int(str(value))


def _query_ids(path, name, values, where, qid_type, spelled):
    """The query-id column: strings, integers, or (``qid_type=None``) the column's type.

    Strings are kept as written, so that ``"007"`` and ``"7"`` stay two queries; ``int``
    reads each id as an integer, which makes them one, as the user asked.
    """
    values = np.asarray(values)
    _missing_ids(path, name, values, where)
    if qid_type == "str":
        return values.astype(str)
    if qid_type != "int" or values.dtype.kind in "iu":
        return values
    cells = values.tolist()
    valid = np.fromiter(map(_is_integer, cells), dtype=bool, count=len(cells))
    if not valid.all():
        i = int(np.argmin(valid))
        raise ValueError(f"{str(path)!r}, {where(i)}: the query id {_shown(cells[i])} is not an "
                         f"integer; {spelled['qid_type=int']} reads integers (use "
                         f"{spelled['qid_type=str']} to keep the ids as written).")
    try:
        return np.array(list(map(_as_integer, cells)), dtype=np.int64)
    except OverflowError:
        raise ValueError(f"{str(path)!r}: column {name!r} holds an integer beyond 64 bits; "
                         f"use {spelled['qid_type=str']}.") from None


# ----------------------------------------------------------------------------------------
# Text tables


def _rows(path, delimiter, names):
    """The non-empty rows of a delimited UTF-8 file (a byte-order mark is skipped)."""
    kind = "CSV" if delimiter == "," else "TSV"
    limit = csv.field_size_limit()
    # a field of any length (a document's text, say): the csv module caps them at 128 KiB
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    reader = None
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            return list(filter(None, reader))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{str(path)!r} is not UTF-8 text (byte {exc.start} cannot be "
                         f"decoded); expected a {kind} table with the columns "
                         f"{', '.join(map(repr, names))}. Save it as UTF-8.") from None
    except csv.Error as exc:
        line = f", line {reader.line_num}" if reader is not None else ""
        raise ValueError(f"{str(path)!r}{line}: cannot read it as {kind}: {exc}.") from None
    finally:
        csv.field_size_limit(limit)


def _header(path, delimiter, names):
    """The first non-empty row, and the line it ends on; ``(None, None)`` for an empty file.

    On an error of the first lines (text that is not UTF-8, a field beyond the ``csv``
    module's size limit), the whole reading by :func:`_rows` raises the error or returns the
    rows, and the line is None.
    """
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            return next(filter(None, reader), None), reader.line_num
    except (UnicodeDecodeError, csv.Error):
        rows = _rows(path, delimiter, names)
        return (rows[0] if rows else None), None


# Below this size the csv module reads the file sooner than pyarrow is ready: pyarrow's
# conversion of text columns to numpy imports pandas (0.2 s), the time the csv module takes
# for some 60k rows. The two readers give the same arrays (tests/test_tables.py).
_ARROW_MIN_BYTES = 1 << 20


def _arrow_columns(path, delimiter, header, names):
    """The ``names`` columns, unstripped, read by pyarrow; None if the file is small, or
    pyarrow is missing or fails.

    pyarrow's parser splits and unquotes fields as the ``csv`` module does, and refuses
    what would be an error of the ``csv`` reading (a row with another number of fields than
    the header, text that is not UTF-8): the caller then reads the file with the ``csv``
    module, whose messages name the line.
    """
    if (os.path.getsize(path) < _ARROW_MIN_BYTES or not _have("pyarrow")
            or not _is_utf8(path)):  # pyarrow checks only the columns read
        return None
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    generated = [f"f{i}" for i in range(len(header))]
    wanted = [generated[header.index(name)] for name in names]
    try:
        table = pa_csv.read_csv(
            path,
            read_options=pa_csv.ReadOptions(skip_rows=1, column_names=generated,
                                            encoding="utf8"),
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, quote_char='"',
                                              double_quote=True, escape_char=False,
                                              newlines_in_values=True,
                                              ignore_empty_lines=True),
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(wanted, pa.string()), include_columns=wanted,
                strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowException, OSError, ValueError):
        return None
    return [table.column(name).to_numpy(zero_copy_only=False) for name in wanted]


def _is_utf8(path, chunk=1 << 20):
    """Whether the whole file is UTF-8 text, read a chunk at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with open(path, "rb") as handle:
            while block := handle.read(chunk):
                decoder.decode(block)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _delimited(delimiter):
    def read(path, names, spelled):
        header, header_line = _header(path, delimiter, names)
        if header is None:
            raise ValueError(f"{str(path)!r} is empty; expected a header line naming "
                             f"the columns {', '.join(names)}.")
        header = [cell.strip() for cell in header]
        _check_columns(path, header, names, spelled)
        # pyarrow when the header is the file's first line, else (and on any error) csv
        fast = _arrow_columns(path, delimiter, header, names) if header_line == 1 else None
        if fast is not None:
            return [list(map(str.strip, column)) for column in fast], _line, "str"
        body = _rows(path, delimiter, names)[1:]
        lengths = np.fromiter(map(len, body), dtype=np.intp, count=len(body))
        wrong = np.flatnonzero(lengths != len(header))
        if len(wrong):
            i = int(wrong[0])
            raise ValueError(f"{str(path)!r}, line {i + 2}: {lengths[i]} fields, but "
                             f"the header has {len(header)}.")
        columns = [list(map(str.strip, map(itemgetter(header.index(name)), body)))
                   for name in names]
        return columns, _line, "str"

    return read


def _line(i):
    return f"line {i + 2}"


# ----------------------------------------------------------------------------------------
# Parquet


def _row(i):
    return f"row {i + 1}"


def _read_parquet(path, names, spelled):
    frame_columns = _parquet_columns(path)
    _check_columns(path, list(frame_columns), names, spelled)
    return [frame_columns[name] for name in names], _row, None


def _have(*modules):
    return all(importlib.util.find_spec(m) is not None for m in modules)


def _parquet_columns(path):
    """Column name -> numpy array, read with pandas (and pyarrow) or else polars."""
    if _have("pandas") and (_have("pyarrow") or _have("fastparquet")):
        import pandas as pd

        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:  # pyarrow's errors on a bad file
            raise ValueError(f"{str(path)!r}: cannot read it as Parquet: {exc}") from None
        return {str(c): _pandas_values(frame[c]) for c in frame.columns}
    if _have("polars"):
        import polars as pl

        try:
            frame = pl.read_parquet(path)
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise ValueError(f"{str(path)!r}: cannot read it as Parquet: {exc}") from None
        return {c: frame[c].to_numpy() for c in frame.columns}
    raise ImportError(
        f"{str(path)!r}: reading Parquet needs pandas with pyarrow, or polars, which are not "
        'installed. Install one: pip install "sklearn-rank[pandas]" pyarrow, or pip install '
        '"sklearn-rank[polars]"'
    )


def _pandas_values(series):
    """A pandas column as a numpy array, its missing cells None or NaN as polars gives them.

    pandas' own missing value, ``pd.NA`` (of the nullable dtypes: ``string``, ``boolean``...),
    is neither: kept, it would be read as the query id ``'<NA>'``.
    """
    values = series.to_numpy()
    if values.dtype == object:
        return np.where(series.isna().to_numpy(), None, values)
    return values


# Table type (file suffix) -> read(path, names, spelled) -> (columns, where, qid_type).
_READERS = {
    ".csv": _delimited(","),
    ".tsv": _delimited("\t"),
    ".parquet": _read_parquet,
    ".pq": _read_parquet,
}
