"""Read learning-to-rank and TREC files into the flat arrays of sklearn-rank."""

import codecs
import contextlib
import mmap
import numbers
import os
import re
import warnings
from pathlib import Path

import numpy as np

from ..utils._qid import factorize
from ..utils._segments import segment_argsort, stable_argsort_codes

# The start of sklearn's message on a file it cannot parse can hold hundreds of raw bytes.
_MAX_QUOTED = 160


class NoQueryIdsError(ValueError):
    """An SVMlight file without ``qid:`` fields and without a query-size side file.

    A :class:`ValueError`; its own class lets the command line word the fix in its options.
    """

    def __init__(self, message, path, side):
        super().__init__(message)
        self.path = path
        self.side = side


def load_svmlight_ranking(path, *, query_file=None, n_features=None, zero_based="auto",
                          dtype=np.float64):
    """Load a LETOR / SVMlight ranking file as ``X, y, qid``.

    Lines look like ``<grade> qid:<query> <feature>:<value> ...`` (LETOR, MSLR, Yahoo!) or,
    without ``qid:``, like LightGBM's examples, whose query sizes come in a side file
    ``<path>.query`` holding the number of rows of each consecutive query.

    To load a train and a test file, use :func:`load_svmlight_ranking_files`: it gives them
    the same number of features and, when the query ids come from side files, distinct
    ones. Two calls of this function both number the queries of a side file from 0.

    Parameters
    ----------
    path : str or path-like
        The SVMlight file.

    query_file : str or path-like, default=None
        File of consecutive query sizes, one per line. By default ``<path>.query`` is used when
        the file has no ``qid:`` fields and that side file exists.

    n_features : int, default=None
        Number of features; inferred from the file when None.

    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0, as in :func:`sklearn.datasets.load_svmlight_file`.

    dtype : numpy dtype, default=np.float64
        Dtype of ``X``.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Grades.
    qid : ndarray of shape (n_samples,)
        Query id of each row: the integers of the ``qid:`` fields, or ``0, 1, ...`` in the
        order of the side file's query sizes.

    Raises
    ------
    FileNotFoundError
        When ``path`` (or a given ``query_file``) does not exist.
    ValueError
        When the file is empty or not SVMlight, when a grade is not a finite number, when two
        spellings of a query id are the same integer (``qid:007`` and ``qid:7``), or when the
        query sizes do not add up to the number of rows.

    See Also
    --------
    load_svmlight_ranking_files : Several files, with distinct query ids and one feature count.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.datasets import load_svmlight_ranking
    >>> text = "2 qid:1 1:0.5 2:0.1\\n0 qid:1 1:0.1 2:0.9\\n1 qid:7 1:0.3 2:0.3\\n"
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "train.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write(text)
    ...     X, y, qid = load_svmlight_ranking(path)
    >>> X.shape, y.tolist(), qid.tolist()
    ((3, 2), [2.0, 0.0, 1.0], [1, 1, 7])
    """
    return load_svmlight_ranking_files(
        [path], query_files=None if query_file is None else [query_file],
        n_features=n_features, zero_based=zero_based, dtype=dtype)


def load_svmlight_ranking_files(paths, *, query_files=None, n_features=None,
                                zero_based="auto", dtype=np.float64):
    """Load several LETOR / SVMlight ranking files, such as a train and a test file.

    Like :func:`sklearn.datasets.load_svmlight_files`, the files get the same number of
    features, so that a model fitted on one predicts on the others. Their query ids never
    collide, so that concatenating the files keeps every query apart:

    - ids read from ``qid:`` fields are kept as they are (data sets such as LETOR, MSLR and
      Yahoo! give each query one id across their files), and an id in two files is an
      error;
    - ids of files whose query sizes come from a side file (``<path>.query``, as in
      LightGBM's examples) are numbered across the files, in order, after the largest id
      read from ``qid:`` fields: with two such files of 50 queries each, the first holds
      queries 0 to 49 and the second 50 to 99.

    Parameters
    ----------
    paths : list of str or path-like
        The SVMlight files.

    query_files : list of (str, path-like or None), default=None
        For each file, its file of consecutive query sizes; None (for all, or for one file)
        uses ``<path>.query`` when the file has no ``qid:`` fields and that side file exists.

    n_features : int, default=None
        Number of features; the largest of the files when None.

    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0, as in :func:`sklearn.datasets.load_svmlight_file`.

    dtype : numpy dtype, default=np.float64
        Dtype of the ``X`` matrices.

    Returns
    -------
    [X1, y1, qid1, X2, y2, qid2, ...] : list
        ``X, y, qid`` of each file, in order, as :func:`load_svmlight_ranking` returns them.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`load_svmlight_ranking`; ValueError too when a query id read from
        ``qid:`` fields is in two files.

    Examples
    --------
    Two files of LightGBM's layout, whose query sizes are in side files:

    >>> import tempfile, os
    >>> from sklearn_rank.datasets import load_svmlight_ranking_files
    >>> files = {"rank.train": ("1 1:0.5\\n0 2:0.9\\n1 1:0.3\\n", "2\\n1\\n"),
    ...          "rank.test": ("0 1:0.2\\n1 2:0.4\\n", "1\\n1\\n")}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for name, (rows, sizes) in files.items():
    ...         with open(os.path.join(folder, name), "w") as f:
    ...             _ = f.write(rows)
    ...         with open(os.path.join(folder, name + ".query"), "w") as f:
    ...             _ = f.write(sizes)
    ...     paths = [os.path.join(folder, name) for name in files]
    ...     X_train, y_train, qid_train, X_test, y_test, qid_test = (
    ...         load_svmlight_ranking_files(paths))
    >>> qid_train.tolist(), qid_test.tolist()
    ([0, 0, 1], [2, 3])
    """
    paths = [Path(os.fspath(p)) for p in paths]
    if not paths:
        raise ValueError("paths is empty; expected at least one SVMlight file.")
    if query_files is None:
        query_files = [None] * len(paths)
    elif len(query_files) != len(paths):
        raise ValueError(f"query_files has {len(query_files)} entries for {len(paths)} files; "
                         "expected one per file (None for the default side file).")
    for path in paths:
        _check_readable(path, "SVMlight ranking")
        if not path.is_file():
            raise ValueError(f"{str(path)!r} is not a regular file (a pipe or a device): an "
                             "SVMlight file is read more than once (its lines, then its "
                             "query ids), which a pipe cannot give. Save it to a file first.")
        if path.stat().st_size == 0:
            raise ValueError(f"{str(path)!r} is empty; expected SVMlight lines like "
                             "'<grade> qid:<query> <feature>:<value> ...'.")
        _refuse_byte_order_mark(path)
    from sklearn.datasets import load_svmlight_files  # scikit-learn: imported when used

    try:
        # scikit-learn's parser reads the qid: fields with an np.append per row, a time
        # quadratic in the rows (400,000 rows: minutes): it reads the rest, and
        # _svmlight_query_ids the ids, in one pass, as it would
        loaded = load_svmlight_files([str(p) for p in paths], n_features=n_features,
                                     dtype=dtype, zero_based=zero_based, query_id=False)
        loaded = [part for i, path in enumerate(paths)
                  for part in (*loaded[2 * i:2 * i + 2], _svmlight_query_ids(path))]
    except (ValueError, OverflowError) as exc:
        where = str(paths[0]) if len(paths) == 1 else ", ".join(map(str, paths))
        text = str(exc)
        text = text if len(text) <= _MAX_QUOTED else text[:_MAX_QUOTED] + "..."
        raise ValueError(
            f"{where!r} is not an SVMlight ranking file (lines like "
            f"'<grade> qid:<query> <feature>:<value> ...'): {text}"
        ) from None

    triples = [loaded[i:i + 3] for i in range(0, len(loaded), 3)]
    sides = []
    for path, query_file, (_, y, qid) in zip(paths, query_files, triples):
        _check_grades(path, y)
        side = _side_file(path, query_file, y, qid)
        if side is None:
            _check_query_spellings(path)
        sides.append(side)
    # side-file queries are numbered after every id read from qid: fields, across the files
    field_ids = [(path, t[2]) for path, t, side in zip(paths, triples, sides)
                 if side is None and len(t[2])]
    _check_disjoint_queries(field_ids)
    next_id = max((int(q.max()) for _, q in field_ids), default=-1) + 1
    out = []
    for (X, y, qid), side, path in zip(triples, sides, paths):
        if side is not None:
            sizes = _query_sizes(side, path, len(y))
            qid = np.repeat(np.arange(next_id, next_id + len(sizes), dtype=np.int64), sizes)
            next_id += len(sizes)
        out += [X, y, qid]
    return out


# Byte-order marks that an editor or a spreadsheet writes at the start of a text file.
_BYTE_ORDER_MARKS = ((codecs.BOM_UTF8, "a UTF-8 byte-order mark"),
                     (codecs.BOM_UTF32_LE, "a UTF-32 byte-order mark (UTF-32 text)"),
                     (codecs.BOM_UTF32_BE, "a UTF-32 byte-order mark (UTF-32 text)"),
                     (codecs.BOM_UTF16_LE, "a UTF-16 byte-order mark (UTF-16 text)"),
                     (codecs.BOM_UTF16_BE, "a UTF-16 byte-order mark (UTF-16 text)"))


def _refuse_byte_order_mark(path):
    """Name the byte-order mark that scikit-learn's SVMlight parser would report as a
    grade it cannot read (``b'\\xef\\xbb\\xbf2'``)."""
    if os.path.splitext(str(path))[1] in (".gz", ".bz2"):
        return
    with open(path, "rb") as handle:
        start = handle.read(4)
    for mark, what in _BYTE_ORDER_MARKS:
        if start.startswith(mark):
            raise ValueError(
                f"{str(path)!r} begins with {what}, which the SVMlight parser reads as part "
                "of the first grade. Save the file as plain UTF-8 (or ASCII) text without a "
                "byte-order mark.")


def _svmlight_query_ids(path):
    """The ``qid:`` fields of an SVMlight file, as ``load_svmlight_files(query_id=True)``
    returns them (scikit-learn 1.x's ``_load_svmlight_file``), in time linear in the rows.

    Each line, cut at its first ``#`` (before a NUL byte, as the C ``strchr`` does), that
    holds a field: its second field, when that starts with ``qid``, gives the id after its
    first colon, read by ``np.int64``. A line without one gives none, so that a file
    without ``qid:`` fields gives an empty array.
    """
    from bz2 import BZ2File
    from gzip import GzipFile

    suffix = os.path.splitext(str(path))[1]
    opener = {".gz": GzipFile, ".bz2": BZ2File}.get(suffix, open)  # as scikit-learn opens it
    values = []
    with opener(str(path), "rb") as handle:
        for line in handle:
            end = line.find(b"\0")
            comment = line.find(b"#", 0, end if end >= 0 else len(line))
            if comment >= 0:
                line = line[:comment]
            fields = line.split(None, 2)
            if len(fields) > 1 and fields[1].startswith(b"qid"):
                values.append(fields[1].partition(b":")[2])  # no colon: scikit-learn refused
    return np.fromiter(map(np.int64, values), dtype=np.int64, count=len(values))


def _check_disjoint_queries(field_ids):
    """Refuse a query id in two files (pairs ``(path, ids)``): pooled, two queries would merge."""
    seen = []
    for path, qid in field_ids:
        ids = np.unique(qid)
        for other, other_ids in seen:
            shared = np.intersect1d(ids, other_ids, assume_unique=True)
            if len(shared):
                raise ValueError(
                    f"query {shared[0].item()!r} is in both {str(other)!r} and "
                    f"{str(path)!r} ({len(shared)} shared query id"
                    f"{'s' if len(shared) > 1 else ''}); pooling the files would merge "
                    "different queries into one. Give each file its own query ids."
                )
        seen.append((path, ids))


def default_query_file(path):
    """The query-size side file of ``path`` when none is given: ``<path>.query``."""
    return Path(str(path) + ".query")


def _side_file(path, query_file, y, qid):
    """The query-size file to read for ``path``, or None when its ``qid:`` fields count."""
    side = Path(os.fspath(query_file)) if query_file is not None else default_query_file(path)
    if query_file is not None and not side.is_file():
        raise FileNotFoundError(f"No query-size file at {str(side)!r}.")
    # scikit-learn returns no query ids (an empty array) for a file without qid: fields
    no_ids = len(qid) != len(y)
    if no_ids and query_file is None and not side.is_file():
        raise NoQueryIdsError(
            f"{str(path)!r} has no query ids: its lines need 'qid:<query>' fields, or the "
            f"query sizes must be in a side file ({str(side)!r} or query_file=).",
            path, side,
        )
    if query_file is not None or ((no_ids or (qid == 0).all()) and side.is_file()):
        return side
    return None


def _query_sizes(side, path, n_rows):
    """The positive integers of a query-size file, which must add up to ``n_rows``."""
    try:
        text = side.read_text(encoding="utf-8-sig")  # a byte order mark is no digit
    except UnicodeDecodeError:
        raise ValueError(f"The query-size file {str(side)!r} is not a text file; expected "
                         "one positive number of rows per line.") from None
    sizes = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if not re.fullmatch(r"\+?[0-9]+", line) or int(line) == 0:
            raise ValueError(f"Line {number} of the query-size file {str(side)!r} holds "
                             f"{line[:40]!r}; expected the positive number of rows of one "
                             "consecutive query.")
        sizes.append(int(line))
    sizes = np.array(sizes, dtype=np.int64)
    if sizes.sum() != n_rows:
        raise ValueError(
            f"The query sizes in {str(side)!r} add up to {int(sizes.sum())} rows, but "
            f"{str(path)!r} has {n_rows}; each line must be the positive number of rows "
            "of one consecutive query."
        )
    return sizes


def _check_grades(path, y):
    bad = ~np.isfinite(y)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"{str(path)!r}: the grade of row {row + 1} is {y[row]}; expected a "
                         "finite number.")


# A qid: field that is not an integer's plain spelling: leading zeros or a sign.
_ODD_QID = re.compile(rb"qid:(?:[+-]?0\d|\+)")
_QID_FIELD = re.compile(rb"qid:(\S+)")


def _check_query_spellings(path):
    """Refuse ``qid:007`` beside ``qid:7``, which scikit-learn reads as the same query 7.

    One scan of the file for an unusual spelling, at the speed of the regex engine; the ids
    are collected only when one is found.
    """
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0,
                                               access=mmap.ACCESS_READ) as data:
        if _ODD_QID.search(data) is None:
            return
        spellings = {}
        for token in set(_QID_FIELD.findall(data)):
            spellings.setdefault(int(token), []).append(token.decode())
    for number, tokens in spellings.items():
        if len(tokens) > 1:
            shown = " and ".join(f"'qid:{t}'" for t in sorted(tokens))
            raise ValueError(
                f"{str(path)!r} writes {shown}, which are the same integer {number}: SVMlight "
                "query ids are integers, so their rows would merge into one query. Give each "
                "query its own number."
            )


# ----------------------------------------------------------------------------------------
# TREC runs and qrels, read as trec_eval reads them (get_qrels.c, get_trec_results.c,
# form_res_rels.c), with numpy: no Python loop over lines.

# bytes.translate table: 1 for C's isspace in the "C" locale, on which trec_eval splits its
# fields (\t \n \v \f \r and space), 0 for the other bytes
_C_SPACE = bytes(int(byte in b"\t\n\v\f\r ") for byte in range(256))
# Fixed-width byte strings hold a column at most this many times the file's size; a column
# with a few very long fields is held as Python bytes objects instead.
_MAX_WIDTH_RATIO = 4

_UTF8_BOM = b"\xef\xbb\xbf"
_QRELS = ("qrels", "'qid iteration docno grade'", "301 0 FR940202-2-00150 1")
_RUN = ("run", "'qid Q0 docno rank score tag'", "301 Q0 FR940202-2-00150 1 2.129 tag")


def _check_readable(path, what):
    """Refuse a path that does not exist, or a directory. A pipe (``/dev/stdin``) or another
    special file is read as it is, as ``cat`` reads it."""
    if path.is_dir():
        raise FileNotFoundError(f"No {what} file at {str(path)!r}: it is a directory.")
    if not path.exists():
        raise FileNotFoundError(f"No {what} file at {str(path)!r}: it does not exist.")


def _fields_of_first_line(path, limit=1 << 16):
    """The number of fields of the first data line of a regular file, None if unknown."""
    if not os.path.isfile(path):  # a pipe read here would be lost to the reader
        return None
    with open(path, "rb") as handle:
        head = handle.read(limit)
    for line in head.splitlines():
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            return len(fields)
    return None


def _of_file(exc, path, parameter):
    """``exc`` with the attributes ``path`` and ``parameter`` that say which file failed."""
    exc.path, exc.parameter = str(os.fspath(path)), parameter
    return exc


@contextlib.contextmanager
def _file_errors(path, parameter):
    """Give the errors raised inside the file they are about: ``path`` and ``parameter``."""
    try:
        yield
    except (OSError, ValueError) as exc:
        _of_file(exc, path, parameter)
        raise


def _swap_hint(qrels, run):
    """A sentence when the qrels and the run look given in each other's place: the run's
    lines have the 4 fields of qrels lines, and the qrels' the 6 of run lines."""
    if _fields_of_first_line(run) == 4 and _fields_of_first_line(qrels) == 6:
        return (f"The qrels and the run seem swapped: {str(os.fspath(run))!r}, given as the "
                f"run, has qrels lines ({_QRELS[1]}), and {str(os.fspath(qrels))!r}, given "
                f"as the qrels, has run lines ({_RUN[1]}).")
    return None


class _TrecLines:
    """The data lines of a TREC file, split into fields as trec_eval splits them.

    Fields are separated by C whitespace; blank lines and lines whose first field starts
    with ``#`` are skipped; fields after the ``n_columns`` first are ignored. A lone ``\\r``
    ends a line, as in Python's text files. :meth:`text` and :meth:`numbers` give a column;
    :meth:`line_numbers`, for error messages, the number in the file of data lines.
    """

    def __init__(self, path, n_columns, what, layout, example, strict=False):
        path = Path(os.fspath(path))
        _check_readable(path, f"TREC {what}")
        data = path.read_bytes()
        # a byte order mark, which editors on Windows write, is no part of the first query
        # id: skipped, as read_table skips it
        bom = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
        if bom:
            data = data[bom:]
        if not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{str(path)!r} is not UTF-8 text (byte {bom + exc.start}); "
                                 f"expected TREC {what} lines, {layout}.") from None
        nul = data.find(b"\0")
        if nul >= 0:
            raise ValueError(f"{str(path)!r} holds a NUL byte (byte {bom + nul}); expected TREC "
                             f"{what} text lines, {layout}.")
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buf = np.frombuffer(data, dtype=np.uint8)
        begins, ends = _field_edges(data)
        newlines = np.flatnonzero(buf == ord("\n")).astype(begins.dtype, copy=False)
        first, n_fields, stride = _first_fields(begins, newlines, len(data))
        if strict and stride is None:
            _refuse_blank_lines(path, begins[first], newlines, data, what, layout)
        data_line = buf[begins[first]] != ord("#")
        if not data_line.all():
            first, n_fields, stride = first[data_line], n_fields[data_line], None
        self.path, self._newlines = path, newlines
        # zero bytes after the end, for the words read at the last fields' starts
        self._data = data + bytes(_PADDING)
        self._begins, self._ends, self._first, self._stride = begins, ends, first, stride
        if not len(first):
            raise ValueError(f"{str(path)!r} holds no TREC {what} line; expected lines of "
                             f"{n_columns} fields, {layout}, e.g. {example!r}.")
        short = (n_fields != n_columns) if strict else (n_fields < n_columns)
        if short.any():
            i = int(np.argmax(short))
            raise ValueError(
                f"Line {self.line_numbers(i)} of {str(path)!r} has {n_fields[i]} field"
                f"{'s' if n_fields[i] != 1 else ''}; a TREC {what} line has {n_columns}, "
                f"{layout}, e.g. {example!r}"
                + (" (trec_eval refuses the line: 'Malformed line')." if strict else ".")
            )

    def __len__(self):
        return len(self._first)

    def line_numbers(self, rows):
        """The numbers in the file of data lines ``rows``: counted only for an error
        message, as they cost a search per line."""
        return np.searchsorted(self._newlines, self._begins[self._first[rows]]) + 1

    def text(self, column):
        """The fields of a column as byte strings (see :func:`_text_field`)."""
        if self._stride is not None:  # every line a data line of the same number of fields
            start = self._begins[column::self._stride].copy()  # contiguous: faster passes
            end = self._ends[column::self._stride].copy()
        else:
            start, end = self._begins[self._first + column], self._ends[self._first + column]
        return _text_field(self._data, start, end)

    def numbers(self, column, name, exponent=True):
        """The fields of a column as floats; one that is not a whole number (see
        :func:`_number_field`) is an error naming its line."""
        return _number_field(self.text(column), self.line_numbers, self.path, name, exponent)


# Bytes of a file tokenised at a time: the passes over a block stay in the processor's cache
_TOKEN_BLOCK = 1 << 20


def _field_edges(data):
    """Where each field of ``data`` begins and ends (the byte after it): fields are runs of
    bytes other than C's spaces. 32-bit positions below 2 GiB.

    A field begins where a space is followed by a non-space, and ends at the next space;
    the file is taken between two spaces. Found a block at a time, which keeps the
    temporaries small: the positions, 8 bytes each at full width, were the largest arrays
    of the reader.
    """
    dtype = np.int32 if len(data) < 2**31 - 1 else np.int64
    edges, before = [], True  # the space before the file
    for start in range(0, len(data), _TOKEN_BLOCK):
        space = np.frombuffer(data[start:start + _TOKEN_BLOCK].translate(_C_SPACE),
                              dtype=bool)
        flips = np.empty(len(space), dtype=bool)
        flips[0] = space[0] != before
        np.not_equal(space[1:], space[:-1], out=flips[1:])
        at = np.flatnonzero(flips)
        at += start
        edges.append(at.astype(dtype))
        before = space[-1]
    if not before:  # the space after the file ends its last field
        edges.append(np.array([len(data)], dtype=dtype))
    edges = np.concatenate(edges) if edges else np.zeros(0, dtype=dtype)
    return edges[0::2], edges[1::2]


def _refuse_blank_lines(path, first_begins, newlines, data, what, layout):
    """Raise on a line without a field, which trec_eval refuses ("Malformed line");
    ``first_begins``: where each line's first field begins."""
    n_lines = len(newlines) + (len(data) > 0 and not data.endswith(b"\n"))
    has_field = np.zeros(n_lines, dtype=bool)
    has_field[np.searchsorted(newlines, first_begins)] = True
    if not has_field.all():
        raise ValueError(f"Line {int(np.argmin(has_field)) + 1} of {str(path)!r} is blank; "
                         f"trec_eval refuses it ('Malformed line'): expected TREC {what} "
                         f"lines, {layout}. Remove the blank lines.")


def _first_fields(begins, newlines, size):
    """The index in ``begins`` of each line's first field (the first one after a newline or
    the file's start), each line's number of fields, and that number if all lines have it
    and none is blank (else None).

    Most files have as many fields on every line, no blank line and no space before a
    line's first field: their first fields are every n-th field, which one comparison with
    the lines' starts checks, with no search per line.
    """
    starts = np.r_[0, newlines + 1]
    if starts[-1] == size:  # a line ends where the file ends
        starts = starts[:-1]
    stride = len(begins) // len(starts) if len(starts) else 0
    if stride and stride * len(starts) == len(begins) and (begins[::stride] == starts).all():
        return (np.arange(0, len(begins), stride), np.full(len(starts), stride), stride)
    starts_line = np.zeros(len(begins) + 1, dtype=bool)
    starts_line[0] = True
    starts_line[np.searchsorted(begins, newlines)] = True
    first = np.flatnonzero(starts_line[:-1])
    return first, np.diff(np.r_[first, len(begins)]), None


_WORD = 8
# Fields of at most this many 64-bit words are read and coded as words, not byte by byte
_MAX_WORDS = 8
_PADDING = _MAX_WORDS * _WORD
# Masks of the first 0 to 8 bytes of a little-endian 64-bit word
_BYTE_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


def _text_field(data, start, end):
    """Fields as byte strings, compared and sorted byte by byte as C's ``strcmp`` compares
    them: a numpy ``S`` array (``object`` when a few fields are very long). ``data``: the
    file's bytes, then ``_PADDING`` zero bytes."""
    length = end - start
    width = int(length.max())
    if width * len(start) > _MAX_WIDTH_RATIO * (len(data) - _PADDING) + 2**16:
        return np.array([data[b:e] for b, e in zip(start.tolist(), end.tolist())], dtype=object)
    if width <= _MAX_WORDS * _WORD:
        return _short_text_field(data, start, length, width)
    buf = np.frombuffer(data, dtype=np.uint8)
    chars = np.zeros((len(start), width), dtype=np.uint8)
    shortest = int(length.min())
    for j in range(width):  # one pass per byte position, over every line at once
        if j < shortest:
            chars[:, j] = buf[start + j]
        else:
            rows = np.flatnonzero(length > j)
            chars[rows, j] = buf[start[rows] + j]
    return chars.view(f"S{width}").ravel()


def _short_text_field(data, start, length, width):
    """:func:`_text_field` of fields of at most ``_MAX_WORDS`` words: each field's bytes
    read 8 at a time as words (an unaligned view of the file), those beyond its end
    masked."""
    words = np.ndarray((len(data) - _WORD + 1,), dtype="<u8", buffer=data, strides=(1,))
    if width <= _WORD:
        out = words[start]
        out &= _BYTE_MASKS[length]
    else:
        out = np.empty((len(start), -(-width // _WORD)), dtype="<u8")
        for k in range(out.shape[1]):
            out[:, k] = words[start + _WORD * k]
            out[:, k] &= _BYTE_MASKS[np.clip(length - _WORD * k, 0, _WORD)]
    chars = out.view(np.uint8).reshape(len(start), -1)
    if width < chars.shape[1]:
        chars = np.ascontiguousarray(chars[:, :width])
    return chars.view(f"S{width}").ravel()


def _byte_positions(text):
    """The bytes of an ``S`` array by position: row ``j`` holds the ``j``-th byte of every
    string, contiguous for the passes that read one position at a time."""
    return np.ascontiguousarray(text.view(np.uint8).reshape(len(text), -1).T)


# Plain decimals of at most this many digits are parsed by _decimal_values: below 2**53, the
# integer of their digits and the power of ten that scales it are exact doubles.
_EXACT_DIGITS = 15
_POWERS_OF_TEN = 10.0 ** np.arange(_EXACT_DIGITS + 1)


def _decimal_values(text):
    """Floats of byte-string fields written ``[+-]digits[.digits]`` (15 digits at most),
    NaN for the others, parsed a byte position at a time over all fields at once.

    The integer of the digits divided by the power of ten of the decimals, both exact
    doubles, is rounded once by the division: the correctly rounded value that ``strtod``
    and ``float`` give (Clinger's fast path), at a fraction of the cost of numpy's cast.
    """
    if text.dtype.kind != "S" or not len(text) or text.dtype.itemsize > _EXACT_DIGITS + 2:
        return np.full(len(text), np.nan)
    n, width = len(text), text.dtype.itemsize
    chars = _byte_positions(text)
    value = np.zeros(n)
    digits = np.zeros(n, dtype=np.uint8)  # counts to 17 at most: 8 bits, less to move
    decimals = np.zeros(n, dtype=np.uint8)
    dot = np.zeros(n, dtype=bool)
    sign = (chars[0] == ord("-")) | (chars[0] == ord("+"))
    plain = np.ones(n, dtype=bool)
    for j in range(width):
        byte = chars[j]
        digit = byte - np.uint8(ord("0"))
        is_digit = digit < 10
        is_dot = byte == ord(".")
        # a field ends at its first NUL (the files hold none); a sign comes first only
        plain &= is_digit | is_dot | (byte == 0) | (sign if j == 0 else False)
        plain &= ~(is_dot & dot)
        dot |= is_dot
        value = np.where(is_digit, value * 10.0 + digit, value)
        digits += is_digit
        decimals += is_digit & dot
    plain &= (digits > 0) & (digits <= _EXACT_DIGITS)
    value /= _POWERS_OF_TEN[np.minimum(decimals, _EXACT_DIGITS)]
    np.negative(value, out=value, where=chars[0] == ord("-"))
    value[~plain] = np.nan
    return value


# The numbers of TREC files, as trec_eval reads them: a score with C's atof (strtod), a
# grade with atol. Both read the longest prefix that is a number and ignore the rest ("1_0"
# is 1, a grade "1e1" is 1): sklearn-rank reads a field only when the whole of it is a
# number of that grammar, and refuses the others with their line, never a prefix.
# Of ASCII byte strings without spaces, float() reads as a number those that strtod reads
# whole, and "1_0" and "nan" besides: a score is refused if it holds "_" or reads as NaN
# (numpy's cast fails on non-ASCII bytes). A grade is refused if it holds another byte
# than those of a plain decimal.
_UNDERSCORE = ord("_")
_FOREIGN_TO_GRADES = np.ones(256, dtype=bool)
_FOREIGN_TO_GRADES[np.frombuffer(b"0123456789+-.\0", dtype=np.uint8)] = False  # NUL: padding


def _number_field(text, line_numbers, path, name, exponent=True):
    """Byte-string fields as floats; one that is not a whole number of trec_eval's grammar
    (a decimal, and with ``exponent`` a power of ten after it or an infinity), or NaN, is an
    error naming its line (``line_numbers(rows)``: the line numbers of rows)."""
    values = _decimal_values(text)
    other = np.flatnonzero(np.isnan(values))
    if not len(other):
        return values
    text = text[other]
    valid = _whole_number_bytes(text, exponent)
    if valid is None:
        try:
            # float() and strtod round a decimal alike: to the nearest double
            values[other] = text.astype(np.float64)
        except ValueError:
            pass
        else:
            if not np.isnan(values[other]).any():
                return values
        valid = np.ones(len(text), dtype=bool)
    for row, (field, ok) in enumerate(zip(text, valid.tolist())):
        if ok:
            try:
                if not np.isnan(float(field)):
                    continue
            except ValueError:
                pass
        _refuse_number(field, line_numbers(other[row:row + 1])[0], path, name, exponent)
    raise AssertionError("unreachable")  # pragma: no cover


def _whole_number_bytes(text, exponent):
    """None when no field holds a byte that float() reads and C does not (one pass over
    the bytes, the usual case), else whether each field is free of them."""
    if text.dtype.kind == "S":
        raw = text.view(np.uint8)
        suspect = (raw == _UNDERSCORE).any() if exponent else _FOREIGN_TO_GRADES[raw].any()
        if not suspect:
            return None
        rows = raw.reshape(len(text), -1)
        foreign = (rows == _UNDERSCORE) if exponent else _FOREIGN_TO_GRADES[rows]
        return ~foreign.any(axis=1)
    # object: a few very long fields
    return np.array([(b"_" not in t) if exponent
                     else not _FOREIGN_TO_GRADES[np.frombuffer(t, dtype=np.uint8)].any()
                     for t in text], dtype=bool)


def _refuse_number(field, number, path, name, exponent):
    value = field.decode("utf-8", "replace")
    if value.strip("+-").lower() == "nan":
        expected = "a number, which NaN is not: it has no place in a ranking"
    elif exponent:
        expected = ("a decimal number such as 2.129, -3, 5e-1 or -inf, written in full "
                    "(trec_eval's atof would read the number at its start only)")
    else:
        expected = ("an integer such as 2 or -1, or a decimal such as 1.5, written in full "
                    "(trec_eval's atol would read the integer at its start only)")
    raise ValueError(f"Line {number} of {str(os.fspath(path))!r}: the {name} {value!r} is not "
                     f"a number; expected {expected}.")


def _codes(*columns, runs=False):
    """Integer codes of the byte strings of ``columns`` (concatenated), in byte order, and
    the distinct strings. ``runs``: code each run of equal strings once (query ids, which
    come in blocks)."""
    text = np.concatenate(columns)
    head = None
    if runs and len(text):
        head = np.flatnonzero(np.r_[True, text[1:] != text[:-1]])
        if len(head) <= len(text) // 2:
            text, n_rows = text[head], len(text)
        else:  # mostly runs of one row (a run file shuffled): coding the rows costs less
            head = None
    numbers = _digit_ids(text) if runs else None
    if numbers is not None:
        codes, uniques = _number_codes(numbers, text.dtype)
    elif len(text) and text.dtype.kind == "S" and text.dtype.itemsize <= _MAX_WORDS * _WORD:
        codes, uniques = _word_codes(text)
    else:
        codes, uniques = factorize(text, len(text))
    if head is not None:
        codes = np.repeat(codes, np.diff(np.r_[head, n_rows]))
    return codes.astype(np.intp, copy=False), uniques


def _digit_ids(text):
    """The integers that byte strings of decimal digits write, or None if a string is
    another, has a leading zero (``"007"`` and ``"7"`` are two queries) or more than 18
    digits. TREC's query ids are mostly such numbers: the integers, coded with no sort
    of the rows, are then one-to-one with the strings."""
    if text.dtype.kind != "S" or not len(text) or text.dtype.itemsize > 18:
        return None
    n, width = len(text), text.dtype.itemsize
    chars = _byte_positions(text)
    if width > 1 and ((chars[0] == ord("0")) & (chars[1] != 0)).any():
        return None
    value = np.zeros(n, dtype=np.int32 if width <= 9 else np.int64)  # below 2**31: int32
    for j in range(width):
        byte = chars[j]
        digit = byte - np.uint8(ord("0"))
        end = byte == 0  # the padding after a string (the files hold no NUL)
        if not (end | (digit < 10)).all() or (j == 0 and end.any()):
            return None
        value = np.where(end, value, value * 10 + digit)
    return value


def _number_codes(numbers, dtype):
    """:func:`_codes` of strings of digits from their integers (see :func:`_digit_ids`):
    the integers' codes, relabelled in the byte order of their strings."""
    codes, distinct = factorize(numbers, len(numbers))
    strings = distinct.astype(dtype)  # as written: digits without a leading zero
    by_bytes = np.argsort(strings, kind="stable")
    rank = np.empty(len(strings), dtype=np.intp)
    rank[by_bytes] = np.arange(len(strings))
    return rank[codes], strings[by_bytes]


def _word_codes(text):
    """:func:`_codes` of short byte strings (``S`` of at most ``_MAX_WORDS`` words): their
    bytes read as big-endian 64-bit integers, which compare as the strings do, are sorted
    (faster than hashing or comparing strings)."""
    n, width = len(text), text.dtype.itemsize
    n_words = -(-width // _WORD)
    chars = np.zeros((n, n_words * _WORD), dtype=np.uint8)
    chars[:, :width] = text.view(np.uint8).reshape(n, width)
    words = chars.view(">u8").astype(np.uint64)
    if n_words == 1:
        _, first, codes = np.unique(words[:, 0], return_index=True, return_inverse=True)
        return codes, text[first]
    order = np.lexsort(words.T[::-1])
    words = words[order]
    new = np.r_[True, (words[1:] != words[:-1]).any(axis=1)]
    codes = np.empty(n, dtype=np.intp)
    codes[order] = np.cumsum(new) - 1
    return codes, text[order[new]]


def _as_str(text, rows=None):
    """Byte strings (``S`` or ``object``) as a numpy ``str`` array; ``rows``: of those rows
    (indices), as ``_as_str(text)[rows]``."""
    if text.dtype == object:
        strings = np.array([t.decode() for t in text], dtype=str)
        return strings if rows is None else strings[rows]
    if not len(text):
        return text.astype(str)
    chars = np.ascontiguousarray(text).view(np.uint8)
    if chars.max() < 128:  # ASCII: the bytes widened to UCS-4, faster than numpy's cast
        if rows is not None:
            chars = text[rows].view(np.uint8)
        return chars.astype(np.uint32).view(np.dtype(("U", text.dtype.itemsize)))
    strings = np.char.decode(text, "utf-8")
    return strings if rows is None else strings[rows]


def _ranking_order(query, score, doc):
    """The order of trec_eval's ranking: by query, score descending, then document code
    descending. Runs are mostly written query by query in score order: then only the
    tied scores are sorted; others by the engine's one packed sort of all rows."""
    n_queries = int(query.max()) + 1 if len(query) else 0
    order = stable_argsort_codes(query, n_queries)  # linear on blocks of queries
    q, s = query[order], score[order]
    same_query = q[1:] == q[:-1]
    if (same_query & (s[1:] > s[:-1])).any():
        # the document codes, descending, break the ties
        order, _ = segment_argsort(score, query, n_queries, secondary=int(doc.max()) - doc)
        return order
    d = doc[order]
    tie = same_query & (s[1:] == s[:-1])
    if (tie & (d[1:] > d[:-1])).any():
        group = np.cumsum(np.r_[True, ~tie])
        rows = np.flatnonzero(np.r_[tie, False] | np.r_[False, tie])
        order[rows] = order[rows[np.lexsort((-d[rows], group[rows]))]]
    return order


def _refuse_duplicates(query, doc, lines, path, what, queries, docnos):
    """Raise on a (query, document) listed twice: trec_eval's "duplicate docs" error.

    The error names the earliest line that repeats an earlier one, and that earlier line.
    """
    key = query.astype(np.int64) * len(docnos) + doc
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.lexsort((lines, key))
    key, lines = key[order], lines[order]
    repeated = np.flatnonzero(key[1:] == key[:-1])
    if not len(repeated):
        return
    i = repeated[np.argmin(lines[repeated + 1])]
    row = order[i]
    raise ValueError(
        f"{str(os.fspath(path))!r} lists document {_as_str(docnos[[doc[row]]]).item()!r} "
        f"twice for query {_as_str(queries[[query[row]]]).item()!r} (lines {lines[i]} and "
        f"{lines[i + 1]}); trec_eval refuses duplicate documents in a {what} file "
        "('duplicate docs'). Keep one line per document and query."
    )


def _check_read_trec_options(complete, max_docs, strict):
    if not isinstance(complete, (bool, np.bool_)):
        raise TypeError(f"complete must be True or False (trec_eval -c); got {complete!r}.")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}.")
    if max_docs is not None and (isinstance(max_docs, (bool, np.bool_))
                                 or not isinstance(max_docs, numbers.Integral)
                                 or max_docs < 0):
        raise ValueError(f"max_docs must be an integer >= 0 (trec_eval -M: the number of "
                         f"documents of each query kept, in ranking order) or None (all); "
                         f"got {max_docs!r}.")


def _query_list(ids, limit=3):
    shown = ", ".join(repr(q) for q in ids[:limit].tolist())
    return shown + (", ..." if len(ids) > limit else "")


def read_trec(qrels, run, *, complete=False, max_docs=None, strict=False):
    """Flat arrays of a TREC run judged by TREC qrels, ordered as trec_eval ranks them.

    One row per (query, document) pair of an evaluated query that the run retrieves, the
    qrels list, or both. Rows are sorted by query, then retrieved documents by score
    descending and document name descending (trec_eval's tie-break, which ``ties="stable"``
    of the ``"trec_eval"`` convention keeps), then the documents that the qrels list and
    the run did not retrieve (``retrieved=False``): they count in the number of relevant
    documents and the ideal DCG, as in trec_eval.

    ``y_true`` holds trec_eval's three kinds of judgement, which
    ``judged="y_true"`` of the metrics reads: a grade (>= 0); NaN for a retrieved document
    that the qrels do not list (outside the judgement pool: trec_eval's RELVALUE_NONPOOL);
    the negative grade of the qrels (trec_eval's -1) for a document in the pool left
    unjudged (RELVALUE_UNJUDGED). Metrics count both kinds of unjudged documents as
    non-relevant, as trec_eval does, unless ``unjudged="condensed"`` (trec_eval ``-J``)
    takes them out of the ranking; bpref, infAP and Judged@k tell them apart.

    The files are read as trec_eval reads them. Query ids and document names are strings
    (``"007"`` and ``"7"`` are two queries), compared byte by byte. Blank lines and lines
    starting with ``#`` are skipped; fields after the fourth of a qrels line and the sixth
    of a run line are ignored. The rank field of the run is ignored: the scores rank the
    documents.

    Which queries are evaluated, as in trec_eval: those of the qrels that the run
    retrieves for, or with ``complete=True`` (trec_eval ``-c``) every query of the qrels.
    Queries of the run that the qrels do not judge are always left out, as trec_eval
    ignores them; both lists are returned (``run_only_queries``, ``qrels_only_queries``),
    and judged queries left out because the run has no line for them raise a warning.

    Duplicates, as trec_eval treats them (form_res_rels.c): a document listed twice for an
    evaluated query in the qrels, or twice among the first ``max_docs`` documents of an
    evaluated query of the run, is an error, where trec_eval stops with "duplicate docs".
    trec_eval never looks at the others: duplicates of queries that are not evaluated are
    ignored, and a copy ranked beyond the first ``max_docs`` documents is dropped with
    them (the copy with the higher score counts).

    Numbers are read whole, never a prefix. trec_eval reads a score with C's ``atof`` and a
    grade with ``atol``, which read the number at the start of a field and ignore the rest
    (``1_0`` is 1, a grade ``1e1`` is 1, a score ``0.5abc`` is 0.5); sklearn-rank refuses
    such fields, naming the line. A score is a decimal number written in full, with or
    without a power of ten (``2.129``, ``-3``, ``.5``, ``5e-1``), or an infinity (``inf``,
    ``-Infinity``); NaN, hexadecimal (``0x10``), ``1_0`` and non-ASCII digits are refused. A
    grade is an integer (``2``, ``-1``) or a plain decimal (``1.5``), with no exponent. Plain
    decimal grades are kept as written, where trec_eval truncates them to integers (``1.5``
    is 1 for trec_eval): give integer grades to compare with it. A UTF-8 byte order mark at
    the start of a file is skipped.

    Parameters
    ----------
    qrels : str or path-like
        Judgements, lines ``qid iteration docno grade``. A negative grade marks a document
        in the pool left unjudged.

    run : str or path-like
        Run, lines ``qid Q0 docno rank score tag``.

    complete : bool, default=False
        Evaluate every query of the qrels (trec_eval ``-c``): a judged query that the run
        has no line for gets its judged documents as rows with ``retrieved=False``, so
        that it scores 0 and counts in the mean. With ``False``, it is left out, as
        trec_eval leaves it out without ``-c`` (which raises the mean of a run that
        returns nothing for some queries): a warning names such queries.

    max_docs : int, default=None
        Keep only the first ``max_docs`` documents of each query of the run, in trec_eval's
        ranking order (trec_eval ``-M``). Judged documents beyond them stay as rows with
        ``retrieved=False``; unjudged ones are dropped. ``None`` keeps all; 0 none, as
        trec_eval ``-M0``: the queries of the run are evaluated, with nothing retrieved.

    strict : bool, default=False
        Refuse what trec_eval refuses as a "Malformed line" of the qrels: a blank line, and
        a line of more than 4 fields. By default, they are read as the run's lines always
        are: blank lines skipped, and the fields after the first 4 (6 in the run) ignored.

    Returns
    -------
    arrays : dict
        Per row (arrays of one length): ``y_true`` (float: grade, NaN or a negative
        grade, as above), ``y_score`` (``-inf`` where not retrieved), ``qid`` and
        ``docno`` (str: pass it as ``docno=`` to the metrics, which then rank tied scores
        as trec_eval does whatever the row order), ``retrieved`` (bool) and ``judged``
        (bool: the qrels give the document a grade >= 0, the ``judged=`` mask of
        :func:`~sklearn_rank.metrics.evaluate_per_query`, which gives the same values as
        ``judged="y_true"``). Per query (sorted arrays of
        str): ``run_only_queries``, the queries of the run that the qrels do not judge
        (left out), and ``qrels_only_queries``, the judged queries that the run has no
        line for (left out, or evaluated with ``complete=True``).

    Raises
    ------
    FileNotFoundError
        When a file does not exist.
    ValueError
        When ``qrels`` and ``run`` are one file, when a file is not UTF-8 text or holds no
        line, when a line has too few fields, when a grade or a score is not a whole number
        of the grammar above (NaN included), or when a document is listed twice for an
        evaluated query, as above. The message names the file and the line; the attributes
        ``path`` and ``parameter`` (``"qrels"`` or ``"run"``) name the file too (these
        errors and a missing file's ``FileNotFoundError``).

    Warns
    -----
    UserWarning
        With ``complete=False``, when judged queries have no line in the run.

    See Also
    --------
    sklearn_rank.metrics.evaluate : Every metric at once; ``judged="y_true"`` reads the
        judgements of ``y_true``.

    Examples
    --------
    Query 1 retrieves ``e``, which the qrels do not list (NaN), and ``d``, in the pool but
    left unjudged (-1); the relevant ``f`` is not retrieved. The run has no line for the
    judged query 2:

    >>> import os, tempfile
    >>> from sklearn_rank.datasets import read_trec
    >>> from sklearn_rank.metrics import evaluate
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    ...     with open(qrels, "w") as f:
    ...         _ = f.write("1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n1 0 d -1\\n1 0 f 1\\n2 0 x 1\\n")
    ...     with open(run, "w") as f:
    ...         _ = f.write("1 Q0 a 1 0.9 sys\\n1 Q0 e 2 0.5 sys\\n1 Q0 d 3 0.4 sys\\n"
    ...                     "1 Q0 c 4 0.3 sys\\n1 Q0 b 5 0.1 sys\\n")
    ...     d = read_trec(qrels, run, complete=True)
    >>> d["qid"].tolist()
    ['1', '1', '1', '1', '1', '1', '2']
    >>> d["docno"].tolist()
    ['a', 'e', 'd', 'c', 'b', 'f', 'x']
    >>> d["y_true"].tolist()
    [1.0, nan, -1.0, 1.0, 0.0, 1.0, 1.0]
    >>> d["retrieved"].tolist()
    [True, True, True, True, True, False, False]
    >>> d["judged"].tolist()
    [True, False, False, True, True, True, True]
    >>> d["qrels_only_queries"].tolist()
    ['2']

    ``judged="y_true"`` reads the judgements. As trec_eval ``-c``, the mean is over both
    judged queries, query 2 scoring 0; ``unjudged="condensed"`` (trec_eval ``-J``) takes
    ``e`` and ``d`` out of the ranking, which moves ``c`` up to rank 2:

    >>> data = {name: d[name] for name in ("y_true", "y_score", "qid", "retrieved")}
    >>> evaluate(**data, judged="y_true", metrics=["map", "P@2"], convention="trec_eval")
    {'map': 0.25, 'P@2': 0.25}
    >>> evaluate(**data, judged="y_true", metrics=["map", "P@2"], convention="trec_eval",
    ...          unjudged="condensed")
    {'map': 0.3333333333333333, 'P@2': 0.5}
    """
    _check_read_trec_options(complete, max_docs, strict)
    if os.path.isfile(qrels) and os.path.isfile(run) and os.path.samefile(qrels, run):
        # the run read as its own judgements: every retrieved document relevant, a
        # perfect and plausible score
        raise _of_file(ValueError(
            f"{str(os.fspath(run))!r} (the run) and {str(os.fspath(qrels))!r} (the qrels) are "
            "the same file; expected the judgements ('qid iteration docno grade') and the "
            "system's ranking ('qid Q0 docno rank score tag') in two files."), run, "run")
    # trec_eval's results reader ignores what follows the tag (its own test run holds text
    # there): strict reads the qrels only as trec_eval does
    try:
        with _file_errors(qrels, "qrels"):
            judged_lines = _TrecLines(qrels, 4, *_QRELS, strict=strict)
        with _file_errors(run, "run"):
            run_lines = _TrecLines(run, 6, *_RUN)
        # grades without an exponent: trec_eval reads them with atol, which reads "1e1" as 1
        with _file_errors(qrels, "qrels"):
            grades = judged_lines.numbers(3, "grade", exponent=False)
        with _file_errors(run, "run"):
            scores = run_lines.numbers(4, "score")
    except ValueError as exc:
        hint = _swap_hint(qrels, run)
        if hint is None:
            raise
        raise _of_file(ValueError(f"{exc} {hint}"), exc.path, exc.parameter) from None
    # query and document codes shared by both files, in byte order (strcmp's)
    n_judgements = len(judged_lines)
    query, queries = _codes(judged_lines.text(0), run_lines.text(0), runs=True)
    doc, docnos = _codes(judged_lines.text(2), run_lines.text(2))
    j_query, r_query = query[:n_judgements], query[n_judgements:]
    j_doc, r_doc = doc[:n_judgements], doc[n_judgements:]
    judged_query = np.zeros(len(queries), dtype=bool)
    judged_query[j_query] = True
    run_query = np.zeros(len(queries), dtype=bool)
    run_query[r_query] = True
    evaluated = judged_query & (run_query | complete)

    # the run: its judged queries, ranked as trec_eval ranks them, cut at max_docs
    rows = np.flatnonzero(judged_query[r_query])
    ranked = rows[_ranking_order(r_query[rows], scores[rows], r_doc[rows])]
    if max_docs is not None and len(ranked):
        q = r_query[ranked]
        first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        rank = np.arange(len(q)) - np.repeat(first, np.diff(np.r_[first, len(q)]))
        ranked = ranked[rank < max_docs]
    judgements = np.flatnonzero(evaluated[j_query])

    # One sort of the (query, document) pairs of both files, the judgements' before the
    # run's among equal pairs, finds the duplicates and joins the judgements to the run.
    # Documents descending within a query: the judged documents not retrieved come out in
    # the order of their rows.
    width = len(docnos)
    key = np.concatenate([j_query[judgements], r_query[ranked]]).astype(np.int64) * width
    key += width - 1 - np.concatenate([j_doc[judgements], r_doc[ranked]])
    by_key = stable_argsort_codes(key, len(queries) * width, in_runs=True)
    key = key[by_key]
    is_judgement = by_key < len(judgements)
    same = key[1:] == key[:-1]
    if (same & (is_judgement[1:] == is_judgement[:-1])).any():
        with _file_errors(run, "run"):
            _refuse_duplicates(r_query[ranked], r_doc[ranked], run_lines.line_numbers(ranked),
                               run, "run", queries, docnos)
        with _file_errors(qrels, "qrels"):
            _refuse_duplicates(j_query[judgements], j_doc[judgements],
                               judged_lines.line_numbers(judgements), qrels, "qrels", queries,
                               docnos)
        raise AssertionError("unreachable")  # pragma: no cover
    del judged_lines, run_lines, key
    # without duplicates, equal pairs are a judgement followed by its retrieved document
    found = np.flatnonzero(same)
    grade_of_retrieved = np.full(len(ranked), np.nan)
    grade_of_retrieved[by_key[found + 1] - len(judgements)] = grades[judgements[by_key[found]]]
    is_judgement[found] = False
    unretrieved = judgements[by_key[is_judgement]]

    # retrieved rows first in each query: both parts are sorted, the sort is stable
    row_query = np.concatenate([r_query[ranked], j_query[unretrieved]])
    order = stable_argsort_codes(row_query, int(row_query.max()) + 1 if len(row_query) else 0)
    y_true = np.concatenate([grade_of_retrieved, grades[unretrieved]])[order]
    y_score = np.concatenate([scores[ranked], np.full(len(unretrieved), -np.inf)])[order]
    retrieved = np.arange(len(order)) < len(ranked)
    row_doc = np.concatenate([r_doc[ranked], j_doc[unretrieved]])[order]
    queries = _as_str(queries)
    result = {
        "y_true": y_true,
        "y_score": y_score,
        "qid": queries[row_query[order]],
        "retrieved": retrieved[order],
        "docno": _as_str(docnos, row_doc),
        "judged": y_true >= 0,
        "run_only_queries": queries[run_query & ~judged_query],
        "qrels_only_queries": queries[judged_query & ~run_query],
    }
    missing = result["qrels_only_queries"]
    if len(missing) and not complete:
        warnings.warn(
            f"{len(missing)} of the {int(judged_query.sum())} judged queries of "
            f"{str(os.fspath(qrels))!r} have no line in the run {str(os.fspath(run))!r} "
            f"({_query_list(missing)}): they are left out, as trec_eval leaves them out "
            "without -c, which raises the mean of a run that retrieves nothing for them. "
            "Pass complete=True to count them (trec_eval -c: they score 0); "
            "'qrels_only_queries' lists them.",
            UserWarning,
            stacklevel=2,
        )
    return result
