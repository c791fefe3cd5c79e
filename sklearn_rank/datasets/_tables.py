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
import shutil
import stat
import sys
import tempfile
from operator import itemgetter
from pathlib import Path

import numpy as np

from ._errors import TableError

__all__ = ["read_table", "read_table_dask", "table_columns"]

# ASCII digits only: int() reads "١" (an Arabic-Indic one) as 1, which merged query ids
_INTEGER = re.compile(r"[+-]?[0-9]+")


def read_table(path, *, qid_column="qid", label_column="label", score_column="score",
               feature_columns=None, ignore_columns=None, docno_column=None, qid_type=None,
               table_format=None):
    """Read query ids, relevance grades, scores or features from a CSV, TSV or Parquet table.

    One row per (query, document), with a header line naming the columns; the columns not
    asked for are ignored. The file type comes from ``table_format``, or else from the
    suffix: ``.csv``, ``.tsv``, ``.parquet`` or ``.pq``. Text files are read as UTF-8 (a
    byte-order mark is skipped), and fields may be of any length. Reading Parquet needs
    pandas with pyarrow (or fastparquet), or polars. A CSV or TSV file under 1 MiB is read
    with the standard library alone.

    Parameters
    ----------
    path : str or path-like
        The table: a file, or a stream that can be read once, such as a pipe
        (``/dev/stdin``, a named pipe), copied to a temporary file first. A stream's
        type is ``table_format``, or else what its first bytes say: Parquet's magic
        number, or a first line (the header) of fields separated by commas (CSV) or by
        tabs (TSV), not both.

    qid_column : str, default="qid"
        The column of query ids. Every row needs one.

    label_column : str, default="label"
        The column of graded relevance: finite numbers.

    score_column : str or None, default="score"
        The column of scores, higher ranks first: numbers, infinite ones included. None
        reads no scores (a table of judgements, or of features).

    feature_columns : list of str, "all" or None, default=None
        The feature columns, read as the columns of ``X``: numbers, infinite ones included.
        ``"all"`` reads every column but the query ids, the grades, the scores, the
        document names and ``ignore_columns``, in the table's order. None reads no features.

    ignore_columns : list of str, default=None
        With ``feature_columns="all"``, the columns that are not features (document ids,
        text...). Each must be a column of the table.

    docno_column : str, default=None
        The column of document names, read as text (numbers as written): trec_eval ranks
        tied scores by them. A document named on two rows of one query is an error, as in
        trec_eval ("duplicate docs"). None reads none.

    qid_type : {"str", "int"} or None, default=None
        The type of the query ids: ``"str"`` keeps them as written (``"007"`` and ``"7"``
        are two queries), ``"int"`` reads them as integers (one query). None means
        ``"str"`` for CSV and TSV, and the column's own type for Parquet.

    table_format : {"csv", "tsv", "parquet"} or None, default=None
        The type of the table, whatever its name says. None: from the file's suffix (or,
        for a stream, from its first bytes).

    Returns
    -------
    data : dict
        ``"qid"`` of shape (n_rows,), ``"y_true"`` (float64); unless ``score_column`` is
        None, ``"y_score"`` (float64); with ``feature_columns``, ``"X"`` of shape (n_rows,
        n_features) (float64) and ``"feature_names"``, the columns of ``X``; with
        ``docno_column``, ``"docno"`` (text). In the rows' order: the flat arrays that
        :func:`sklearn_rank.metrics.evaluate` and the rankers take.

    Raises
    ------
    TableError
        A :class:`ValueError` for an unknown file type, a missing or repeated column, a row
        with the wrong number of fields, an empty query id, or a grade, score or feature
        that is not a number. The message names the file, and the line (CSV, TSV) or row
        (Parquet) of the first bad cell; the attributes ``path``, ``parameter`` (the
        parameter naming the column at fault) and ``column`` say the same.
    ImportError
        For a Parquet file when no Parquet reader is installed.
    OSError
        When the file cannot be read.

    See Also
    --------
    read_trec : Read a TREC run and its qrels.
    load_source : Read a table (or SVMlight files, or a data set by name) as a
        :class:`RankingDataset` to train on.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.datasets import read_table
    >>> from sklearn_rank.metrics import ndcg_score
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "scores.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("qid,doc,label,score,bm25\\n"
    ...                 "q1,a,2,0.9,11.5\\nq1,b,0,0.4,3.0\\nq2,c,1,0.2,7.25\\nq2,d,0,0.7,1.0\\n")
    >>> data = read_table(path)
    >>> data["qid"]
    array(['q1', 'q1', 'q2', 'q2'], dtype='<U2')
    >>> float(ndcg_score(data["y_true"], data["y_score"], qid=data["qid"]))
    0.8154648767857288

    The features of a training table: every column but the ids, the grades and the
    columns said to be no features.

    >>> data = read_table(path, score_column=None, feature_columns="all",
    ...                   ignore_columns=["doc"])
    >>> data["feature_names"], data["X"].shape
    (['score', 'bm25'], (4, 2))

    A missing column is an error that names it, and the parameter to fix:

    >>> from sklearn_rank.datasets import TableError
    >>> try:
    ...     read_table(path, label_column="grade")
    ... except TableError as exc:
    ...     print(exc.parameter, exc.column)
    label_column grade
    """
    if qid_type not in (None, "str", "int"):
        raise ValueError(f"qid_type must be 'str', 'int' or None; got {qid_type!r}.")
    if table_format not in (None, *_FORMATS):
        raise ValueError("table_format must be 'csv', 'tsv', 'parquet' or None; got "
                         f"{table_format!r}.")
    if _is_stream(path):  # read once: from a copy, its errors naming the stream
        with tempfile.TemporaryDirectory(prefix="sklearn-rank-") as folder:
            copy = _copy_stream(path, Path(folder), table_format)
            try:
                return read_table(copy, qid_column=qid_column, label_column=label_column,
                                  score_column=score_column, feature_columns=feature_columns,
                                  ignore_columns=ignore_columns, docno_column=docno_column,
                                  qid_type=qid_type)
            except TableError as exc:
                raise _renamed(exc, path) from None
    names = [qid_column, label_column] + ([] if score_column is None else [score_column])
    parameters = ["qid_column", "label_column", "score_column"][:len(names)]
    features = None
    if feature_columns is not None:
        if isinstance(feature_columns, str) and feature_columns == "all":
            header = table_columns(path, table_format=table_format)
            taken = {*names, docno_column}
            for name in ignore_columns or ():
                if name not in header:
                    raise TableError("{name[ignore_columns]} {column!r}: {path!r} has no such "
                                     "column (its columns: {columns}).",
                                     path=path, parameter="ignore_columns",
                                     cause="parameter", column=name,
                                     columns=_listed(header))
            features = [c for c in header if c not in taken and c not in (ignore_columns or ())]
            if not features:
                raise TableError("{path!r} has no feature column besides the columns "
                                 "{taken} (its columns: {columns}).", path=path,
                                 parameter="feature_columns", taken=_listed(
                                     [c for c in header if c in taken]),
                                 columns=_listed(header))
        elif isinstance(feature_columns, str):
            raise ValueError("feature_columns must be a list of column names, 'all' or None; "
                             f"got {feature_columns!r}.")
        else:
            features = [str(c) for c in feature_columns]
        names += features
        parameters += ["feature_columns"] * len(features)
    columns = _read_table(path, names, qid_type, parameters, docno_column, table_format,
                          takes_format=True)
    data = {"qid": columns[0], "y_true": columns[1]}
    if score_column is not None:
        data["y_score"] = columns[2]
    if features is not None:
        start = len(names) - len(features)
        data["X"] = (np.column_stack(columns[start:len(names)]) if features
                     else np.empty((len(data["qid"]), 0)))
        data["feature_names"] = features
    if docno_column is not None:
        data["docno"] = columns[-1]
    return data


def table_columns(path, *, table_format=None):
    """The column names of a table, as its header writes them (stripped).

    Parameters
    ----------
    path : str or path-like
        A CSV, TSV or Parquet table, as :func:`read_table` takes (a file: a stream would
        be read up).

    table_format : {"csv", "tsv", "parquet"} or None, default=None
        The type of the table, as in :func:`read_table`.

    Returns
    -------
    columns : list of str

    Raises
    ------
    TableError
        For an unknown file type, an empty file (no header line), or a file that cannot be
        read as its type.
    ImportError
        For a Parquet file when no Parquet reader is installed.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.datasets import table_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "scores.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("qid, label ,score\\nq1,1,0.5\\n")
    >>> table_columns(path)
    ['qid', 'label', 'score']
    """
    if table_format not in (None, *_FORMATS):
        raise ValueError("table_format must be 'csv', 'tsv', 'parquet' or None; got "
                         f"{table_format!r}.")
    path = Path(os.fspath(path))
    header = _header_of(path, table_format, takes_format=True)
    if header is None:
        raise TableError("{path!r} is empty; expected a header line naming its columns.",
                         path=path, parameter="path")
    return header


def _header_of(path, table_format=None, *, takes_format=False):
    """The column names of a table (stripped), or None for an empty text file."""
    path = Path(os.fspath(path))
    suffix = _suffix_of(path, table_format, takes_format=takes_format)
    if suffix in (".parquet", ".pq"):
        return [str(c) for c in _parquet_columns(path)]
    header, _ = _header(path, "," if suffix == ".csv" else "\t", ["qid", "label"])
    return None if header is None else [cell.strip() for cell in header]


def _listed(names):
    return ", ".join(repr(str(c)) for c in names)


def _suffix_of(path, table_format=None, *, takes_format=False):
    """The suffix of :data:`_READERS` that reads ``path``: ``table_format``'s, or the
    file's own. ``takes_format``: the caller takes ``table_format``, which the message of
    an unknown suffix then names."""
    if table_format is not None:
        return _FORMATS[table_format]
    suffix = path.suffix.lower()
    if suffix not in _READERS:
        given = (", or the type given as {name[table_format]} (csv, tsv or parquet)"
                 if takes_format else "")
        raise TableError("{path!r}: unknown table type {suffix!r}; expected one of {known}"
                         + given + ".", path=path, parameter="path",
                         suffix=path.suffix or "(none)", known=", ".join(_READERS))
    return suffix


def _reader(path, table_format=None, *, takes_format=False):
    return _READERS[_suffix_of(path, table_format, takes_format=takes_format)]


def _is_stream(path):
    """Whether ``path`` is a stream that can be read once (a pipe, a terminal, a socket):
    not a file, a folder or nothing."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, TypeError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def _copy_stream(path, folder, table_format):
    """A copy of the stream ``path`` in ``folder``, named with the suffix of its type:
    ``table_format``, or what its first bytes say (see :func:`read_table`)."""
    copy = folder / "table"
    with open(path, "rb") as source, open(copy, "wb") as target:
        shutil.copyfileobj(source, target)
    if table_format is None:
        with open(copy, "rb") as handle:
            start = handle.read(1 << 16)
        first = start.split(b"\n", 1)[0]
        if start.startswith(b"PAR1"):
            table_format = "parquet"
        elif not start:  # empty: read as text, whose message says so
            table_format = "csv"
        elif (b"\t" in first) != (b"," in first):
            table_format = "tsv" if b"\t" in first else "csv"
        else:
            raise TableError(
                "{path!r} is a stream (a pipe) whose type cannot be told from its first "
                "line ({seen}); give its type as {name[table_format]} (csv, tsv or "
                "parquet).", path=path, parameter="table_format", cause="parameter",
                seen="fields separated by both commas and tabs" if b"\t" in first
                else "no comma and no tab")
    return copy.rename(copy.with_suffix(_FORMATS[table_format]))


def _renamed(exc, path):
    """``exc``, an error of the copy of the stream ``path``, naming the stream."""
    exc.path = exc.fields["path"] = str(path)
    exc.args = (exc.describe(),)
    return exc


def _read_table(path, names, qid_type, parameters, docno_column=None, table_format=None, *,
                takes_format=False):
    """``[qid, label, *numbers(, docno)]`` columns of a table, in the order of ``names``.

    ``parameters`` names the parameter of each of ``names`` (``"qid_column"``,
    ``"label_column"``, then ``"score_column"`` or ``"feature_columns"``): the errors say
    which one names the column at fault. With ``docno_column``, the document names of that
    column come last, as text (trec_eval's tie-break reads them).
    """
    path = Path(os.fspath(path))
    reader = _reader(path, table_format, takes_format=takes_format)
    parameters = list(parameters)
    if docno_column is not None:
        names = [*names, docno_column]
        parameters = [*parameters, "docno_column"]
    columns, where, default_type = reader(path, names, parameters)
    docno = None
    if docno_column is not None:
        *columns, docno = columns
        docno = _document_names(path, docno_column, docno, where)
        names = names[:-1]
    qid = _query_ids(path, names[0], columns[0], where, qid_type)
    if docno is not None:
        _refuse_repeated_documents(path, qid, docno, where, docno_column)
    label = _numbers(path, names[1], columns[1], where, finite=True, parameter=parameters[1])
    numbers = [_numbers(path, name, column, where, parameter=parameter)
               for name, column, parameter in zip(names[2:], columns[2:], parameters[2:])]
    return [qid, label, *numbers, *([] if docno is None else [docno])]


def _refuse_repeated_documents(path, qid, docno, where, column):
    """Refuse a document named on two rows of one query: its grade (and score) would count
    twice in every metric. trec_eval refuses such a file ("duplicate docs"), and so does
    :func:`~sklearn_rank.datasets.read_trec`."""
    if len(qid) < 2:
        return
    _, query = np.unique(qid, return_inverse=True)
    names, doc = np.unique(docno, return_inverse=True)
    key = query.astype(np.int64).ravel() * len(names) + doc.ravel()
    order = np.argsort(key, kind="stable")  # rows of a key in the file's order
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if not len(repeated):
        return
    i = repeated[np.argmin(order[repeated + 1])]  # the earliest row that repeats one
    first, again = int(order[i]), int(order[i + 1])
    raise TableError("{path!r}, {where}: document {doc} is named twice for query {query} "
                     "(first at {first}); it would count twice in every metric. Keep one row "
                     "per query and document (trec_eval refuses such a file: 'duplicate "
                     "docs').", path=path, parameter="docno_column", column=column,
                     where=where(again), first=where(first), doc=_shown(docno[again]),
                     query=_shown(qid[again]))


def _document_names(path, name, values, where):
    """The document-name column as text (numbers as written); an empty name is an error."""
    values = np.asarray(values)
    _missing_ids(path, name, values, where, "a document name", "docno_column")
    return values if values.dtype.kind == "U" else np.array([str(v) for v in values.tolist()])


def _check_columns(path, header, names, parameters):
    """Each of ``names`` once in ``header``, each named by one parameter (``parameters``
    names the parameter of each)."""
    named = {}
    for parameter, name in zip(parameters, names):
        if name in named:  # one column read as two: query ids taken from the grades...
            if named[name] == parameter:
                raise TableError("{path!r}: {parameter_name} names the column {column!r} "
                                 "twice; name each column once.", path=path,
                                 parameter=parameter, cause="parameter", column=name)
            raise TableError("{path!r}: {other_parameter_name} and {parameter_name} both name "
                             "the column {column!r}; give each its own column (query ids, "
                             "grades, scores).", path=path, parameter=parameter,
                             other_parameter=named[name], cause="parameter", column=name)
        named[name] = parameter
    for parameter, name in zip(parameters, names):
        count = list(header).count(name)
        if count == 0:
            raise TableError("{path!r} has no column {column!r} (its columns: {columns}); "
                             "name the column with {parameter_name}.", path=path,
                             parameter=parameter, column=name, columns=_listed(header))
        if count > 1:
            raise TableError("{path!r} has {count} columns named {column!r}; rename them so "
                             "that {parameter_name} names one column.", path=path,
                             parameter=parameter, column=name, count=count)


def _shown(value):
    """A cell for a message: its repr, cut short."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def _numbers(path, name, values, where, finite=False, parameter="score_column"):
    """A column as floats; a missing, non-numeric or NaN cell is an error naming its row.

    With ``finite``, infinite values are errors too (grades; a score may be infinite).
    ``parameter`` is the parameter that names the column, for the error.
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
            raise TableError("{path!r}, {where}: column {column!r} holds {value}; expected a "
                             "number written with the ASCII digits 0-9 and no '_' (Python's "
                             "float() reads '\u0661\u0662' and '1_0' as 12 and 10, which no "
                             "other reader does).", path=path, parameter=parameter,
                             column=name, where=where(odd), value=_shown(values[odd]))
    for i, value in enumerate(values):  # an error: find the first bad cell, to name it
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = np.nan
        if np.isnan(number) or (finite and np.isinf(number)):
            raise TableError("{path!r}, {where}: column {column!r} holds {value}; expected "
                             "{expected}.", path=path, parameter=parameter, column=name,
                             where=where(i), value=_shown(value),
                             expected="a finite number" if finite else "a number")
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


def _missing_ids(path, name, values, where, what="a query id", parameter="qid_column"):
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
        raise TableError("{path!r}, {where}: column {column!r} is empty; every row needs "
                         "{what}.", path=path, parameter=parameter, column=name,
                         where=where(i), what=what)


def _is_integer(value):
    if isinstance(value, float):
        return value.is_integer()
    return _INTEGER.fullmatch(str(value).strip()) is not None


def _as_integer(value):
    return int(float(value)) if isinstance(value, float) else int(str(value))


def _query_ids(path, name, values, where, qid_type):
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
        raise TableError("{path!r}, {where}: the query id {value} is not an integer; "
                         "{name[qid_type=int]} reads integers (use {name[qid_type=str]} to "
                         "keep the ids as written).", path=path, parameter="qid_type",
                         column=name, where=where(i), value=_shown(cells[i]))
    try:
        return np.array(list(map(_as_integer, cells)), dtype=np.int64)
    except OverflowError:
        raise TableError("{path!r}: column {column!r} holds an integer beyond 64 bits; use "
                         "{name[qid_type=str]}.", path=path, parameter="qid_type",
                         column=name) from None


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
        raise TableError("{path!r} is not UTF-8 text (byte {start} cannot be decoded); "
                         "expected a {kind} table with the columns {columns}. Save it as "
                         "UTF-8.", path=path, parameter="path", start=exc.start, kind=kind,
                         columns=", ".join(map(repr, names))) from None
    except csv.Error as exc:
        line = f", line {reader.line_num}" if reader is not None else ""
        raise TableError("{path!r}{line}: cannot read it as {kind}: {error}.", path=path,
                         parameter="path", line=line, kind=kind, error=str(exc)) from None
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
    def read(path, names, parameters):
        header, header_line = _header(path, delimiter, names)
        if header is None:
            raise TableError("{path!r} is empty; expected a header line naming the columns "
                             "{columns}.", path=path, parameter="path",
                             columns=", ".join(names))
        header = [cell.strip() for cell in header]
        _check_columns(path, header, names, parameters)
        # pyarrow when the header is the file's first line, else (and on any error) csv
        fast = _arrow_columns(path, delimiter, header, names) if header_line == 1 else None
        if fast is not None:
            return [list(map(str.strip, column)) for column in fast], _line, "str"
        body = _rows(path, delimiter, names)[1:]
        lengths = np.fromiter(map(len, body), dtype=np.intp, count=len(body))
        wrong = np.flatnonzero(lengths != len(header))
        if len(wrong):
            i = int(wrong[0])
            raise TableError("{path!r}, line {line}: {n} fields, but the header has "
                             "{expected}.", path=path, parameter="path", line=i + 2,
                             n=lengths[i], expected=len(header))
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


def _read_parquet(path, names, parameters):
    frame_columns = _parquet_columns(path)
    _check_columns(path, list(frame_columns), names, parameters)
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
            raise TableError("{path!r}: cannot read it as Parquet: {error}", path=path,
                             parameter="path", error=str(exc)) from None
        return {str(c): _pandas_values(frame[c]) for c in frame.columns}
    if _have("polars"):
        import polars as pl

        try:
            frame = pl.read_parquet(path)
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise TableError("{path!r}: cannot read it as Parquet: {error}", path=path,
                             parameter="path", error=str(exc)) from None
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


# Table type (file suffix) -> read(path, names, parameters) -> (columns, where, qid_type).
_READERS = {
    ".csv": _delimited(","),
    ".tsv": _delimited("\t"),
    ".parquet": _read_parquet,
    ".pq": _read_parquet,
}
# The table types that table_format names -> their suffix.
_FORMATS = {"csv": ".csv", "tsv": ".tsv", "parquet": ".parquet"}


# ----------------------------------------------------------------------------------------
# A directory of Parquet files, larger than memory: Dask

#: The suffixes of the Parquet files of a directory.
_PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")


def read_table_dask(path, *, qid_column="qid", label_column="label", score_column="score",
                    docno_column=None, qid_type=None, partitioned_by_query=False):
    """Read a directory of Parquet files as Dask Series, each partition checked as
    :func:`read_table` checks a file.

    The columns are checked now (present, each named once); the cells when Dask computes
    each partition (a missing query id, a grade or score that is no number: an error naming
    the partition and row). The result goes to :func:`sklearn_rank.metrics.evaluate`,
    which evaluates Dask inputs partition by partition. Needs the ``dask`` extra.

    Parameters
    ----------
    path : str or path-like
        A directory of Parquet files (``.parquet``, ``.parq``, ``.pq``), read in the order
        of their names; the files whose name, or a folder's, starts with ``_`` or ``.`` are
        skipped, as Parquet readers skip them.

    qid_column, label_column, score_column, docno_column, qid_type
        As in :func:`read_table`; ``qid_type=None`` keeps the column's type.

    partitioned_by_query : bool, default=False
        The rows of each query sit in one file: each file is read as one partition (its row
        groups kept together), so that ``evaluate(..., partitioned_by_query=True)`` needs no
        shuffle.

    Returns
    -------
    data : dict
        ``"qid"``, ``"y_true"``, ``"y_score"`` (and ``"docno"`` with ``docno_column``):
        Dask Series of one Dask DataFrame; ``"files"``, the Parquet files found; and
        ``"rows"``, the Dask DataFrame of the columns as stored, whose ``len`` Dask counts
        from the files' metadata.

    Raises
    ------
    TableError
        For a directory without Parquet files, a file whose Parquet footer cannot be read
        (named), or a missing or repeated column; when computed, for a bad cell.

    See Also
    --------
    read_table : Read one table into memory.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from sklearn_rank.datasets import read_table_dask
    >>> from sklearn_rank.metrics import evaluate
    >>> folder = tempfile.mkdtemp()
    >>> for i, part in enumerate([{"qid": [1, 1], "label": [2, 0], "score": [0.9, 0.4]},
    ...                           {"qid": [2, 2], "label": [1, 0], "score": [0.2, 0.7]}]):
    ...     pd.DataFrame(part).to_parquet(os.path.join(folder, f"part{i}.parquet"))
    >>> data = read_table_dask(folder, partitioned_by_query=True)
    >>> len(data["files"]), len(data["rows"])
    (2, 4)
    >>> result = evaluate(data["y_true"], data["y_score"], qid=data["qid"],
    ...                   metrics=["ndcg@10"], partitioned_by_query=True)
    >>> round(result["ndcg@10"], 4)
    0.8155
    """
    import dask.dataframe as dd

    path = os.fspath(path)
    files = [p for p in _files_under(path) if p.lower().endswith(_PARQUET_SUFFIXES)]
    if not files:
        raise TableError("{path!r} is a directory without Parquet files ({suffixes}); "
                         "expected a directory of Parquet files, or a .csv, .tsv or .parquet "
                         "file.", path=path, parameter="path",
                         suffixes=", ".join(_PARQUET_SUFFIXES))
    names = [qid_column, label_column, score_column]
    parameters = ["qid_column", "label_column", "score_column"]
    if docno_column is not None:
        names.append(docno_column)
        parameters.append("docno_column")
    _check_parquet_files(path)
    try:
        # files in the order of their names, and, when they hold whole queries, one
        # partition each: a file's row groups read as several partitions would split them
        frame = dd.read_parquet(path, split_row_groups=False if partitioned_by_query
                                else "infer")
    except (OSError, ValueError, TypeError) as exc:
        raise TableError("{path!r}: cannot read it as a directory of Parquet files: {error}",
                         path=path, parameter="path", error=str(exc)) from None
    _check_columns(path, [str(c) for c in frame.columns], names, parameters)
    frame = frame[names]
    checked = frame.map_partitions(_table_partition, str(path), names, qid_type,
                                   meta=_table_partition(frame._meta, str(path), names,
                                                         qid_type),
                                   enforce_metadata=False, align_dataframes=False)
    data = {"qid": checked["qid"], "y_true": checked["label"], "y_score": checked["score"]}
    if docno_column is not None:
        data["docno"] = checked["docno"]
    data.update(files=files, rows=frame)
    return data


def _files_under(path):
    for folder, _, names in os.walk(path):
        yield from (os.path.join(folder, name) for name in names)


def _check_parquet_files(path):
    """Name the first file under ``path`` whose Parquet footer cannot be read.

    Dask reads the files when it computes, and pyarrow's error then names no file. The
    footers are read here first (a few bytes each), in the order of the names, skipping
    what Parquet readers skip (names starting with ``_`` or ``.``).
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:  # another engine: its own errors
        return
    for name in sorted(_files_under(path)):
        relative = os.path.relpath(name, path)
        if any(part.startswith(("_", ".")) for part in Path(relative).parts):
            continue
        try:
            pq.read_metadata(name)
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise TableError("{path!r}: its file {file!r} cannot be read as Parquet: {error}",
                             path=path, parameter="path", file=relative,
                             error=str(exc)) from None


def _table_partition(part, path, names, qid_type, partition_info=None):
    """One partition's ``qid``, ``label`` and ``score``, read as ``read_table`` reads them:
    grades and scores as floats, query ids as ``qid_type`` says (the column's type by
    default); a missing id, or a cell that is not a number, is an error naming its row."""
    import pandas as pd

    number = partition_info["number"] if partition_info else 0

    def where(i):
        return f"partition {number}, row {i + 1}"

    qid, label, score, *docno = (_pandas_values(part[name]) for name in names)
    columns = {
        "qid": _query_ids(path, names[0], qid, where, qid_type),
        "label": _numbers(path, names[1], label, where, finite=True,
                          parameter="label_column"),
        "score": _numbers(path, names[2], score, where),
    }
    if docno:  # docno_column: the names as text
        columns["docno"] = _document_names(path, names[3], docno[0], where)
        # within the partition: all of a query's rows when partitioned by query
        _refuse_repeated_documents(path, columns["qid"], columns["docno"], where, names[3])
    return pd.DataFrame(columns, index=part.index)
