"""Read learning-to-rank and TREC files into the flat arrays of sklearn-rank."""

import mmap
import os
import re
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_files

from ..utils._qid import factorize

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
        if not path.is_file():
            what = "is a directory" if path.is_dir() else "does not exist"
            raise FileNotFoundError(f"No SVMlight ranking file at {str(path)!r}: it {what}.")
        if path.stat().st_size == 0:
            raise ValueError(f"{str(path)!r} is empty; expected SVMlight lines like "
                             "'<grade> qid:<query> <feature>:<value> ...'.")
    try:
        loaded = load_svmlight_files([str(p) for p in paths], n_features=n_features,
                                     dtype=dtype, zero_based=zero_based, query_id=True)
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
        text = side.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"The query-size file {str(side)!r} is not a text file; expected "
                         "one positive number of rows per line.") from None
    sizes = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if not re.fullmatch(r"\+?\d+", line) or int(line) == 0:
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


def _read_columns(path, n_columns, what, layout, example):
    """The fields of the data lines of a TREC file, and the number of each line.

    As trec_eval does, blank lines and lines starting with ``#`` are skipped, and fields
    after the ``n_columns`` first are ignored.
    """
    path = Path(os.fspath(path))
    if not path.is_file():
        what_is = "is a directory" if path.is_dir() else "does not exist"
        raise FileNotFoundError(f"No TREC {what} file at {str(path)!r}: it {what_is}.")
    rows, numbers = [], []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                fields = line.split()
                if not fields or fields[0].startswith("#"):
                    continue
                if len(fields) < n_columns:
                    raise ValueError(
                        f"Line {number} of {str(path)!r} has {len(fields)} field"
                        f"{'s' if len(fields) != 1 else ''}; a TREC {what} line has "
                        f"{n_columns}, {layout}, e.g. {example!r}."
                    )
                rows.append(fields[:n_columns])
                numbers.append(number)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{str(path)!r} is not UTF-8 text (byte {exc.start}); expected TREC "
                         f"{what} lines, {layout}.") from None
    if not rows:
        raise ValueError(f"{str(path)!r} holds no TREC {what} line; expected lines of "
                         f"{n_columns} fields, {layout}, e.g. {example!r}.")
    return np.array(rows, dtype=object), np.array(numbers)


def _numbers(column, lines, path, name):
    """A column of a TREC file as floats; a non-number or NaN is an error naming its line."""
    try:
        values = column.astype(np.float64)
    except ValueError:
        values = None
    if values is not None and not np.isnan(values).any():
        return values
    for value, number in zip(column, lines):
        try:
            bad = np.isnan(float(value))
        except ValueError:
            bad = True
        if bad:
            raise ValueError(f"Line {number} of {str(path)!r}: the {name} {value!r} is not a "
                             "number.")
    raise AssertionError("unreachable")  # pragma: no cover


def _first_duplicate(keys, lines, queries):
    """``(key, first line, second line)`` of the first (query, docno) listed twice, or None."""
    seen = {}
    for key, number in zip(keys, lines):
        if key[0] not in queries:
            continue
        if key in seen:
            return key, seen[key], number
        seen[key] = number
    return None


def read_trec(qrels, run):
    """Flat arrays of a TREC run judged by TREC qrels, ordered as trec_eval ranks them.

    One row per (query, document) pair that is judged, retrieved, or both. Judgements below 0
    count as non-relevant (grade 0); retrieved documents without a judgement have grade 0
    and ``judged=False``; judged documents absent from the run get ``retrieved=False``. Only
    the queries both judged and in the run are kept, as trec_eval does. Rows are sorted by
    query, then score descending, then document name descending: trec_eval's tie-break, so
    that ``ties="stable"`` (the ``"trec_eval"`` convention) reproduces it.

    The files are read as trec_eval reads them. Query ids and document names are strings
    (``"007"`` and ``"7"`` are two queries). Blank lines and lines starting with ``#`` are
    skipped; fields after the fourth of a qrels line and the sixth of a run line are ignored.
    A document listed twice for the same query, in the run or in the qrels, is an error, as
    it is in trec_eval ("duplicate docs"), for the queries that are evaluated: which of two
    scores or grades counts would be a guess.

    Parameters
    ----------
    qrels : str or path-like
        Judgements, lines ``qid iteration docno grade``.
    run : str or path-like
        Run, lines ``qid Q0 docno rank score tag``. The rank is ignored, as trec_eval
        ignores it: the scores rank the documents.

    Returns
    -------
    arrays : dict
        ``y_true``, ``y_score``, ``qid``, ``retrieved`` (arrays), ``docno``, and
        ``judged``: whether the qrels judge the document (``False`` for a retrieved
        document that they do not list), the ``judged=`` mask of
        :func:`~sklearn_rank.metrics.evaluate_per_query`.

    Raises
    ------
    FileNotFoundError
        When a file does not exist.
    ValueError
        When a file is not UTF-8 text or holds no line, when a line has too few fields, when
        a grade or a score is not a number (NaN included), or when a document is listed twice
        for a query that is both judged and in the run. The message names the file and the
        line.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.datasets import read_trec
    >>> from sklearn_rank.metrics import map_score
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    ...     with open(qrels, "w") as f:
    ...         _ = f.write("1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n")
    ...     with open(run, "w") as f:
    ...         _ = f.write("1 Q0 a 1 0.9 sys\\n1 Q0 b 2 0.5 sys\\n")
    ...     d = read_trec(qrels, run)
    >>> d["docno"].tolist(), d["retrieved"].tolist(), d["judged"].tolist()
    (['a', 'b', 'c'], [True, True, False], [True, True, True])
    >>> map_score(d["y_true"], d["y_score"], qid=d["qid"], retrieved=d["retrieved"],
    ...           convention="trec_eval")
    0.5
    """
    judged, judged_lines = _read_columns(qrels, 4, "qrels", "'qid iteration docno grade'",
                                         "301 0 FR940202-2-00150 1")
    ranked, ranked_lines = _read_columns(run, 6, "run", "'qid Q0 docno rank score tag'",
                                         "301 Q0 FR940202-2-00150 1 2.129 tag")
    grades = _numbers(judged[:, 3], judged_lines, qrels, "grade")
    scores = _numbers(ranked[:, 4], ranked_lines, run, "score")
    queries = set(ranked[:, 0]) & set(judged[:, 0])
    for rows, lines, path, what in ((ranked, ranked_lines, run, "run"),
                                    (judged, judged_lines, qrels, "qrels")):
        keys = list(zip(rows[:, 0], rows[:, 2]))
        duplicate = _first_duplicate(keys, lines, queries)
        if duplicate is not None:
            (q, d), first, second = duplicate
            raise ValueError(
                f"{str(os.fspath(path))!r} lists document {d!r} twice for query {q!r} (lines "
                f"{first} and {second}); trec_eval refuses duplicate documents in a {what} "
                "file. Keep one line per document and query."
            )
    grade_of = {(q, d): max(g, 0.0) for q, d, g in zip(judged[:, 0], judged[:, 2], grades)}
    score_of = dict(zip(zip(ranked[:, 0], ranked[:, 2]), scores))
    keys = sorted(key for key in set(score_of) | set(grade_of) if key[0] in queries)
    qid = np.array([q for q, _ in keys], dtype=object)
    docno = np.array([d for _, d in keys], dtype=object)
    retrieved = np.array([key in score_of for key in keys], dtype=bool)
    judged = np.array([key in grade_of for key in keys], dtype=bool)
    y_score = np.array([score_of.get(key, -np.inf) for key in keys], dtype=np.float64)
    y_true = np.array([grade_of.get(key, 0.0) for key in keys], dtype=np.float64)
    # trec_eval's order: query, score descending, document name descending
    docno_rank = factorize(docno, len(docno))[0]
    order = np.lexsort((-docno_rank, -y_score, factorize(qid, len(qid))[0]))
    return {
        "y_true": y_true[order],
        "y_score": y_score[order],
        "qid": qid[order].astype(str),
        "retrieved": retrieved[order],
        "docno": docno[order].astype(str),
        "judged": judged[order],
    }
