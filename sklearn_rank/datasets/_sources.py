"""Ranking data by source: SVMlight files, a table, or a public data set by name.

:func:`load_source` reads any of them into a :class:`RankingDataset`, the features, grades
and query ids together with where they came from. Its errors are
:class:`~sklearn_rank.datasets.DataSourceError` with attributes (``path``, ``parameter``,
``cause``) that a caller maps to its own terms; the command line's ``--data`` and ``--test``
are this function.

Only the standard library and numpy are imported at module level: SciPy comes with
SVMlight files, pandas with Parquet tables.
"""

import difflib
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..utils._paths import same_file
from ..utils._qid import unique_ids
from ._errors import DataSourceError

__all__ = ["DatasetName", "RankingDataset", "load_source", "parse_dataset_name",
           "same_queries", "source_files"]

#: The suffixes of the tables :func:`load_source` reads (anything else is an SVMlight file).
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")
#: The subsets of the fetchers' data sets.
SUBSETS = ("train", "vali", "test", "all")


class RankingDataset:
    """Features, grades and query ids, and where they came from (a path, a data set name or
    a generator call).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The features.
    y : ndarray of shape (n_samples,)
        The relevance grades.
    qid : ndarray of shape (n_samples,)
        The query id of each row.
    source : str
        Where the data came from, as outputs say it: a path, ``"mslr-web10k:1 (MSLR-WEB10K
        fold 1, train)"``, a generator call.
    kind : {"svmlight", "table", "generated"}, default="svmlight"
        How the features are named: by number (``"svmlight"``: SVMlight files and the
        fetchers' data sets), by column (``"table"``, see ``feature_names``), or generated.
    feature_names : list of str, default=None
        The feature columns of a table.
    inputs : sequence of path, default=()
        The files read (query-size side files included): the files no output of the data
        should replace.

    Attributes
    ----------
    n_queries : int
        The number of distinct query ids.
    sparse : bool
        Whether ``X`` is a sparse matrix.
    description : str
        One line: the source, the numbers of queries, documents and features.

    See Also
    --------
    load_source : Load a data set by name, SVMlight files or a table.

    Examples
    --------
    >>> from sklearn_rank.datasets import RankingDataset, make_ranking
    >>> X, y, qid = make_ranking(n_queries=5, random_state=0)
    >>> data = RankingDataset(X, y, qid, source="make_ranking(n_queries=5)")
    >>> data.n_queries
    5
    >>> sorted(data.metadata())
    ['n_documents', 'n_features', 'n_queries', 'sha256', 'source']
    >>> data.fingerprint() == RankingDataset(X, y, qid, source="again").fingerprint()
    True
    """

    def __init__(self, X, y, qid, source, kind="svmlight", feature_names=None, inputs=()):
        self.X = X
        self.y = y
        self.qid = qid
        self.source = source
        self.kind = kind
        self.feature_names = feature_names
        self.inputs = list(inputs)
        self._fingerprint = None
        self._dense = None

    def __repr__(self):
        return f"RankingDataset({self.description})"

    @classmethod
    def from_make_ranking(cls, n_queries, *, random_state, **options):
        """The data of :func:`~sklearn_rank.datasets.make_ranking`, its call as its source.

        Parameters
        ----------
        n_queries : int
            The number of queries.
        random_state : int
            The seed.
        **options
            The other keywords of ``make_ranking`` (``realistic=True``...).

        Returns
        -------
        data : RankingDataset
            Of kind ``"generated"``.

        Examples
        --------
        >>> from sklearn_rank.datasets import RankingDataset
        >>> RankingDataset.from_make_ranking(3, random_state=0).source
        'make_ranking(n_queries=3, random_state=0)'
        """
        from ._generator import make_ranking

        X, y, qid = make_ranking(n_queries, random_state=random_state, **options)
        shown = "".join(f", {k}={v!r}" for k, v in options.items())
        return cls(X, y, qid, f"make_ranking(n_queries={n_queries}, random_state="
                   f"{random_state}{shown})", kind="generated")

    @property
    def sparse(self):
        return hasattr(self.X, "toarray")

    def dense_nbytes(self):
        """The bytes of the features as a dense array."""
        return int(self.X.shape[0]) * int(self.X.shape[1]) * self.X.dtype.itemsize

    def densified(self):
        """This data with dense features, for a model that takes no sparse input.

        The dense copy is made once and shared by every model that needs it; it keeps the
        fingerprint of the sparse data, which is the data read.
        """
        if not self.sparse:
            return self
        if self._dense is None:
            dense = RankingDataset(self.X.toarray(), self.y, self.qid, self.source, self.kind,
                                   self.feature_names, self.inputs)
            dense._fingerprint = self.fingerprint()
            self._dense = dense
        return self._dense

    @property
    def n_queries(self):
        return len(unique_ids(self.qid))

    def fingerprint(self):
        """The SHA-256 of the features, grades and query ids (computed once): two runs
        report the same one exactly when they read the same data."""
        if self._fingerprint is None:
            import hashlib

            digest = hashlib.sha256()
            X = self.X
            if hasattr(X, "tocsr"):  # a sparse matrix: its CSR arrays
                X = X.tocsr()
                digest.update(f"csr{X.shape}{X.dtype}".encode())
                parts = [X.data, X.indices, X.indptr]
            else:
                X = np.asarray(X)
                digest.update(f"dense{X.shape}{X.dtype}".encode())
                parts = [X]
            parts.append(np.asarray(self.y, dtype=np.float64))
            qid = np.asarray(self.qid)
            digest.update(f"qid{qid.dtype.kind}".encode())
            for part in parts + ([] if qid.dtype == object else [qid]):
                digest.update(memoryview(np.ascontiguousarray(part)).cast("B"))
            if qid.dtype == object:
                digest.update("\x00".join(map(str, qid)).encode())
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

    def metadata(self):
        """What the outputs record of the data: source, size and fingerprint."""
        return {"source": self.source, "n_queries": self.n_queries,
                "n_documents": len(self.y), "n_features": int(self.X.shape[1]),
                "sha256": self.fingerprint()}

    @property
    def description(self):
        return (f"{self.source}: {self.n_queries:,} queries, {len(self.y):,} documents, "
                f"{self.X.shape[1]} features")


class DatasetName(NamedTuple):
    """A data set of the fetchers, by name: ``mslr-web10k:1:test`` is
    ``DatasetName("mslr-web10k", 1, "test")``; ``fold`` is None for a data set without
    folds (Istella-S)."""

    name: str
    fold: object
    subset: str

    @property
    def title(self):
        """The data set's title, fold and subset: ``"MSLR-WEB10K fold 1, test"``."""
        from ._fetch import DATASETS

        fold = "" if self.fold is None else f" fold {self.fold}"
        return f"{DATASETS[self.name].title}{fold}, {self.subset}"


def parse_dataset_name(source):
    """The :class:`DatasetName` of ``source`` when it names a data set of the fetchers,
    else None.

    A name is ``NAME[:FOLD][:SUBSET]``: ``mslr-web10k`` is the training subset of fold 1,
    ``mslr-web10k:1:test`` its test subset, ``istella-s:vali`` (no folds) Istella-S's
    validation subset. An existing file of that name is a file, not a data set.

    Parameters
    ----------
    source : str or path-like
        A data set name, or anything else (a path...).

    Returns
    -------
    name : DatasetName or None

    Raises
    ------
    DataSourceError
        For a known data set with a fold or subset it lacks (``cause="parameter"``).

    Examples
    --------
    >>> from sklearn_rank.datasets import parse_dataset_name
    >>> parse_dataset_name("mslr-web10k:2:test")
    DatasetName(name='mslr-web10k', fold=2, subset='test')
    >>> parse_dataset_name("train.txt") is None
    True
    """
    from ._fetch import FETCHERS

    text = str(source)
    parts = text.split(":")
    name = parts[0].strip().lower()
    if name not in FETCHERS or os.path.exists(text):
        return None
    takes_fold = "fold" in _parameters(FETCHERS[name])
    grammar = (f"{name}[:FOLD][:SUBSET], FOLD from 1 to 5" if takes_fold
               else f"{name}[:SUBSET]") + f", SUBSET one of {', '.join(SUBSETS)}"
    fold, subset = (1 if takes_fold else None), "train"
    rest = [p.strip().lower() for p in parts[1:]]
    # ASCII digits only: str.isdigit() is True of '²' or '٣', which int() refuses or reads
    if takes_fold and rest and rest[0].isascii() and rest[0].isdigit():
        fold = int(rest.pop(0))
        if not 1 <= fold <= 5:
            raise DataSourceError("{name[source]} {path!r}: {dataset} has folds 1 to 5, not "
                                  "{fold}; expected {grammar}.", path=text, cause="parameter",
                                  dataset=name, fold=fold, grammar=grammar)
    if rest:
        subset = rest.pop(0)
    if rest or subset not in SUBSETS:
        raise DataSourceError("{name[source]} {path!r}: expected {grammar}.", path=text,
                              cause="parameter", grammar=grammar)
    return DatasetName(name, fold, subset)


def _parameters(function):
    import inspect

    return inspect.signature(function).parameters


def _sources(source):
    """``source`` as a list of strings (one name or table, or SVMlight files)."""
    if isinstance(source, (str, os.PathLike)):
        return [os.fspath(source)]
    return [os.fspath(s) for s in source]


def source_files(source):
    """The files of the user's that :func:`load_source` reads for ``source``.

    The SVMlight files with the query-size side files beside them (``FILE.query``), or the
    table; none for a data set name, whose files live in the data home.

    Parameters
    ----------
    source : str, path-like or list of them
        As :func:`load_source` takes it.

    Returns
    -------
    files : list of (Path, str)
        Each file and what it is: ``"data"`` or ``"query sizes"``.

    Examples
    --------
    >>> from sklearn_rank.datasets import source_files
    >>> source_files("mslr-web10k:1")
    []
    """
    files = []
    for text in _sources(source):
        if parse_dataset_name(text) is not None:
            continue
        files.append((Path(text), "data"))
        if Path(text).suffix.lower() not in TABLE_SUFFIXES:
            side = _query_file(text)
            if side.is_file():
                files.append((side, "query sizes"))
    return files


def same_queries(source, other):
    """Whether two sources of :func:`load_source` hold queries in common.

    A held-out test set that shares queries with the training data scores the models on
    queries they were trained on: its numbers are training scores, not held-out ones. Two
    names of one data set share queries when they name the same fold (or the data set has
    no folds) and the same subset, or one of them its ``"all"`` subset; two files when they
    are one file, after symlinks and relative parts, or a hard link. A data set name and a
    file share none.

    Parameters
    ----------
    source, other : str or path-like
        A data set name (see :func:`parse_dataset_name`) or the path of a file, each as
        :func:`load_source` takes it.

    Returns
    -------
    same : bool

    Raises
    ------
    DataSourceError
        For a known data set with a fold or subset it lacks (``cause="parameter"``), its
        ``path`` the source at fault; ``source`` is parsed first.

    See Also
    --------
    source_files : The files of the user's that a source reads.

    Examples
    --------
    >>> from sklearn_rank.datasets import same_queries
    >>> same_queries("mslr-web10k:1:test", "mslr-web10k:1:all")
    True
    >>> same_queries("mslr-web10k:1:test", "mslr-web10k:2:test")
    False
    >>> same_queries("mslr-web10k:1:test", "mslr-web10k:1:train")
    False
    """
    name, other_name = parse_dataset_name(source), parse_dataset_name(other)
    if name is None and other_name is None:
        return same_file(source, other)
    if name is None or other_name is None:
        return False
    return name[:2] == other_name[:2] and (
        name.subset == other_name.subset or "all" in (name.subset, other_name.subset))


def _query_file(path):
    from ._files import default_query_file

    return default_query_file(path)


def load_source(source, *, qid_column="qid", label_column="label", feature_columns=None,
                ignore_columns=None, qid_type=None, like=None, min_queries=1, data_home=None,
                download_if_missing=True, progress=None):
    """Load ranking data from a data set name, SVMlight files or a table.

    Parameters
    ----------
    source : str, path-like or list of them
        One of:

        - a data set of the fetchers by name, ``NAME[:FOLD][:SUBSET]`` (see
          :func:`parse_dataset_name`): ``"mslr-web10k:1"`` is the training subset of
          fold 1 of :func:`fetch_mslr_web10k`, ``"mslr-web10k:1:test"`` its test subset,
          ``"istella-s:vali"``, ``"letor4-mq2007:3:all"``;
        - a ``.csv``, ``.tsv``, ``.parquet`` or ``.pq`` table with a query-id column, a grade
          column and feature columns (read by :func:`read_table`);
        - LETOR / SVMlight file(s) (``<grade> qid:<query> <feature>:<value> ...``, or the
          query sizes in a side file ``FILE.query``). Several files are pooled, their queries
          kept apart (:func:`load_svmlight_ranking_files`).

        A name or a table stands alone.
    qid_column, label_column : str, default="qid", "label"
        A table's columns of query ids and grades.
    feature_columns : list of str, default=None
        A table's feature columns; None takes every column but the query ids, the grades
        and ``ignore_columns``.
    ignore_columns : list of str, default=None
        A table's columns that are not features (document ids...).
    qid_type : {"str", "int"} or None, default=None
        The type of a table's query ids, as :func:`read_table` reads them.
    like : RankingDataset, default=None
        The training data, for a held-out test set: the test set must be of its kind (a
        table, or SVMlight data), a table is read with its feature columns, and SVMlight
        features are given the larger of the two widths (``like``'s too: the features
        absent from the narrower file are zeros).
    min_queries : int, default=1
        The fewest queries the data may hold.
    data_home : str or path-like, default=None
        For a data set name: the folder of the downloads and caches, as its fetcher
        (:func:`fetch_mslr_web10k`...) takes it. The fetchers' warnings (a cache rebuilt...)
        are issued as warnings.
    download_if_missing : bool, default=True
        For a data set name: whether to download it when it is not in ``data_home``; False
        makes that a :class:`FetchError`.
    progress : bool or None, default=None
        For a data set name: the progress of a download and of the parsing on stderr, as
        the fetchers show it (None: when stderr is a terminal).

    Returns
    -------
    data : RankingDataset
        Its ``source`` says where the data came from; ``inputs`` are the files read.

    Raises
    ------
    DataSourceError
        A :class:`ValueError` whose ``path`` is the file (or name) at fault and
        ``parameter`` the parameter to fix: a misspelled name, a fold the data set lacks, a
        missing file or column, too few queries, a test set of another kind than ``like``...
        A table's reading errors are :class:`TableError`, a subclass.
    NoQueryIdsError
        For an SVMlight file with neither ``qid:`` fields nor a query-size side file.
    ValueError, OSError
        From the SVMlight reader and the fetchers, their messages naming the file.

    See Also
    --------
    read_table : Read a table's columns as arrays.
    load_svmlight_ranking_files : Read SVMlight files as arrays.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.datasets import load_source
    >>> path = os.path.join(tempfile.mkdtemp(), "train.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("qid,doc,label,bm25,length\\n"
    ...                 "1,a,2,11.5,300\\n1,b,0,3.0,120\\n2,c,1,7.25,80\\n2,d,0,1.0,95\\n")
    >>> data = load_source(path, ignore_columns=["doc"])
    >>> data.feature_names, data.n_queries, data.kind
    (['bm25', 'length'], 2, 'table')
    >>> data.X.shape
    (4, 2)
    """
    sources = _sources(source)
    if not sources:
        raise DataSourceError("no source given; expected a data set name, SVMlight files or "
                              "a table.", cause="parameter")
    names = [parse_dataset_name(s) for s in sources]
    tables = [s for s in sources if Path(s).suffix.lower() in TABLE_SUFFIXES]
    if any(names) or tables:
        if len(sources) > 1:
            what = "a data set name" if any(names) else "a table"
            raise DataSourceError("{name[source]} {path}: {what} stands alone; pool SVMlight "
                                  "files only.", path=" ".join(sources), cause="parameter",
                                  what=what)
        if any(names):
            data = _fetch(sources[0], names[0], data_home=data_home,
                          download_if_missing=download_if_missing, progress=progress)
        else:
            if like is not None:  # before reading: a table reads the training columns
                _check_kind(like, str(Path(sources[0])), table=True)
            data = _load_table(sources[0], like, qid_column=qid_column,
                               label_column=label_column, feature_columns=feature_columns,
                               ignore_columns=ignore_columns, qid_type=qid_type)
    else:
        _refuse_misspelled_names(sources)
        data = _load_svmlight(sources, min_queries=min_queries)
    if data.n_queries < min_queries:
        raise DataSourceError("{name[source]} {path} holds {n} {queries}; expected at least "
                              "{min_queries}.",
                              path=data.source, parameter="min_queries", n=data.n_queries,
                              queries="query" if data.n_queries == 1 else "queries",
                              min_queries=min_queries)
    if like is not None:
        _match(like, data)
    return data


def _refuse_misspelled_names(sources):
    """``mslr-web1Ok:1``, not a file: an error that names the data sets."""
    from ._fetch import FETCHERS

    for source in sources:
        head = source.split(":")[0].lower()
        if ":" in source and not os.path.exists(source):
            close = difflib.get_close_matches(head, list(FETCHERS), n=1, cutoff=0.6)
            if close:
                raise DataSourceError(
                    "{name[source]} {path!r}: no such file, and {head!r} is no data set. Did "
                    "you mean {close!r}? The data sets: {known}.", path=source, cause="parameter",
                    head=head, close=close[0], known=", ".join(FETCHERS))


def _check_file(path):
    """The path of an input file, or a :class:`DataSourceError` saying why it cannot be
    read."""
    if not os.path.exists(path):
        raise DataSourceError("{name[source]} {path!r}: no such file.", path=path)
    if os.path.isdir(path):
        raise DataSourceError("{name[source]} {path!r} is a directory; expected a file.",
                              path=path)
    if not os.access(path, os.R_OK):
        raise DataSourceError("{name[source]} {path!r}: permission denied; the file cannot "
                              "be read.", path=path)
    return Path(path)


def _load_svmlight(paths, min_queries):
    """LETOR / SVMlight files as one :class:`RankingDataset`.

    Several files are pooled: :func:`~sklearn_rank.datasets.load_svmlight_ranking_files`
    gives queries numbered from side files distinct ids across the files, and refuses a
    query id read from ``qid:`` fields of two files, since pooling would merge two queries.
    """
    from ._files import load_svmlight_ranking_files

    paths = [_check_file(path) for path in paths]
    for i, path in enumerate(paths):
        for other in paths[:i]:
            if same_file(path, other):
                raise DataSourceError(
                    "{name[source]} names the file {other!r} twice{alias}; its queries would "
                    "count twice.",
                    path=path, cause="parameter", other=str(other),
                    alias="" if str(other) == str(path) else f" (as {str(path)!r})")
    shown = " ".join(repr(str(p)) for p in paths)
    loaded = load_svmlight_ranking_files(paths)
    Xs, ys, qids = loaded[0::3], loaded[1::3], loaded[2::3]
    if len(paths) == 1:
        X, y, qid = Xs[0], ys[0], qids[0]
    else:
        import scipy.sparse

        X, y, qid = scipy.sparse.vstack(Xs, format="csr"), np.concatenate(ys), np.concatenate(qids)
    n_queries = len(unique_ids(qid))
    if n_queries < min_queries:
        raise DataSourceError(
            "{name[source]} {path} holds {n} {queries}; expected at least {min_queries}, with "
            "lines like '<grade> qid:<query> <feature>:<value> ...', or the query sizes in a "
            "side file {side!r}.", path=shown, parameter="min_queries", n=n_queries,
            queries="query" if n_queries == 1 else "queries", min_queries=min_queries,
            side=_query_file(paths[0]).name)
    source = str(paths[0]) if len(paths) == 1 else " + ".join(map(str, paths))
    inputs = [file for file, _ in source_files(paths)]
    return RankingDataset(X, y, qid, source, inputs=inputs)


def _fetch(text, parsed, *, data_home, download_if_missing, progress):
    """A data set of :data:`sklearn_rank.datasets._fetch.FETCHERS`."""
    from ._fetch import FETCHERS

    fetcher = FETCHERS[parsed.name]
    kwargs = {"subset": parsed.subset, "data_home": data_home, "return_X_y_qid": True,
              "download_if_missing": download_if_missing, "progress": progress}
    if parsed.fold is not None:
        kwargs["fold"] = parsed.fold
    X, y, qid = fetcher(**kwargs)
    return RankingDataset(X, y, qid, f"{text} ({parsed.title})")


def _load_table(source, like, *, qid_column, label_column, feature_columns, ignore_columns,
                qid_type):
    """A CSV, TSV or Parquet table: a query-id column, a grade column and features."""
    from ._tables import _header_of, _read_table

    path = _check_file(source)
    header = _header_of(path)
    if header is None:
        raise DataSourceError("{name[source]} {path!r} is empty; expected a header line "
                              "naming its columns.", path=path)
    shown = ", ".join(repr(c) for c in header)
    for parameter, name in (("qid_column", qid_column), ("label_column", label_column)):
        if name not in header:
            raise DataSourceError("{name[source]} {path!r} has no column {column!r} (its "
                                  "columns: {columns}); name the column with {parameter_name}.",
                                  path=path, parameter=parameter, column=name, columns=shown)
    ignored = list(ignore_columns or [])
    if like is not None:
        features = list(like.feature_names)
        parameter, training = "like", f"the feature columns of {like.source}"
    else:
        features = ([str(c) for c in feature_columns] if feature_columns else
                    [c for c in header if c not in (qid_column, label_column, *ignored)])
        parameter, training = "feature_columns", None
    for name in ignored if like is None else ():  # a test set reads the training features
        if name not in header:
            raise DataSourceError("{name[ignore_columns]} {column!r}: {path!r} has no such "
                                  "column (its columns: {columns}).", path=path,
                                  parameter="ignore_columns", cause="parameter", column=name,
                                  columns=shown)
    for name in features:
        if name not in header:
            one_of = "{parameter_name}" if like is None else "{training}"
            raise DataSourceError("{name[source]} {path!r} has no column {column!r}, one of "
                                  + one_of + " (its columns: {columns}).", path=path,
                                  parameter=parameter, column=name, columns=shown,
                                  training=training)
        if name in (qid_column, label_column):
            raise DataSourceError("{name[feature_columns]} names {column!r}, the {what}.",
                                  path=path, parameter="feature_columns", cause="parameter",
                                  column=name, what=("query ids" if name == qid_column
                                                     else "grades"))
    for name in (qid_column, label_column, *features):
        if header.count(name) > 1:
            raise DataSourceError("{name[source]} {path!r} has {count} columns named "
                                  "{column!r}; rename them.", path=path, parameter="path",
                                  column=name, count=header.count(name))
    if not features:
        raise DataSourceError("{name[source]} {path!r} has no feature column besides "
                              "{qid_column!r} and {label_column!r} (its columns: {columns}).",
                              path=path, parameter="feature_columns", qid_column=qid_column,
                              label_column=label_column, columns=shown)
    qid, y, *columns = _read_table(path, [qid_column, label_column, *features], qid_type,
                                   ["qid_column", "label_column",
                                    *["feature_columns"] * len(features)])
    X = np.column_stack(columns)
    return RankingDataset(X, y, qid, str(path), kind="table", feature_names=features,
                          inputs=[path])


def _check_kind(train, source, table):
    """Refuse a test set (``source``, a table or not) of another kind than ``train``."""
    if (train.kind == "table") != table:
        kinds = {"table": "a table (features by column name)",
                 "svmlight": "SVMlight data (features by number)",
                 "generated": "generated data (features by number)"}
        raise DataSourceError("{name[source]} {path} is {kind}, but the training data {train} is "
                              "{train_kind}.", path=source, parameter="like",
                              cause="parameter", kind=kinds["table" if table else "svmlight"],
                              train=train.source, train_kind=kinds.get(train.kind,
                                                                       kinds["svmlight"]))


def _match(train, test):
    """Make a test set's features those of the training data, or refuse it.

    SVMlight features are numbered: a file whose largest feature number is lower has
    fewer columns, which are the absent (zero) features; both get the larger width.
    """
    _check_kind(train, test.source, test.kind == "table")
    if train.kind == "table":
        return
    import scipy.sparse

    width = max(train.X.shape[1], test.X.shape[1])
    for data in (train, test):
        if data.X.shape[1] < width:
            X = scipy.sparse.csr_matrix(data.X)
            data.X = scipy.sparse.csr_matrix((X.data, X.indices, X.indptr),
                                             shape=(X.shape[0], width))
