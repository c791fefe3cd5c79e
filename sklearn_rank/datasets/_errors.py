"""The errors of the readers and loaders: which path, which parameter, in attributes.

A library function never learns how a caller (the command line, say) names its parameters:
its messages name them as the Python signature does, and an error's :meth:`describe` words
the same message with the caller's names.
"""

__all__ = ["DataSourceError", "FetchError", "TableError"]


class _Names(dict):
    """Parameter -> how a message names it; a parameter not given is named as in Python."""

    def __missing__(self, key):
        return _PYTHON_NAMES.get(key, key)


# How the messages name a parameter with its value, in the Python spelling.
_PYTHON_NAMES = {
    "qid_type=int": "qid_type='int'",
    "qid_type=str": "qid_type='str'",
}


def _rebuilt(cls, args):
    # the constructor of the class's layout: an OSError's for FetchError
    error = (OSError if issubclass(cls, OSError) else ValueError).__new__(cls)
    error.args = args
    return error


class DataSourceError(ValueError):
    """Data that a reader or loader of :mod:`sklearn_rank.datasets` cannot use.

    A :class:`ValueError` whose attributes say what failed, so that a caller can word the
    fix in its own terms without reading the message:

    Attributes
    ----------
    path : str or None
        The file (or data set name) at fault, None when the error is in the arguments alone.
    parameter : str
        The parameter of the function whose value is at fault: ``"source"``, ``"path"``,
        ``"qid_column"``, ``"feature_columns"``...
    cause : {"data", "parameter"}
        ``"data"`` when the file or data set holds what cannot be used (a missing column, a
        cell that is no number, too few queries), ``"parameter"`` when the argument is wrong
        whatever the data (a misspelled data set name, a fold out of range).
    column : str or None
        The column of a table at fault, when there is one.
    location : str or None
        Where in the file the first bad cell is (``"line 3"``, ``"row 3"``), when the error
        is a cell's.

    Examples
    --------
    >>> from sklearn_rank.datasets import DataSourceError, load_source
    >>> try:
    ...     load_source("mslr-web10k:7")
    ... except DataSourceError as exc:
    ...     error = exc
    >>> error.path, error.parameter, error.cause
    ('mslr-web10k:7', 'source', 'parameter')
    >>> print(str(error)[:59])
    source 'mslr-web10k:7': mslr-web10k has folds 1 to 5, not 7
    >>> print(error.describe({"source": "--data"})[:59])
    --data 'mslr-web10k:7': mslr-web10k has folds 1 to 5, not 7
    """

    def __init__(self, template, *, path=None, parameter="source", cause="data", column=None,
                 **fields):
        self.template = template
        self.path = None if path is None else str(path)
        self.parameter = parameter
        self.cause = cause
        self.column = column
        self.location = fields.get("where")
        self.fields = {"path": self.path, "column": column, **fields}
        super().__init__(self.describe())

    def __reduce__(self):
        # pickled by its attributes, not by re-running __init__ on the message (a Dask
        # worker's error travels to the client so)
        return _rebuilt, (type(self), self.args), self.__dict__

    def describe(self, names=None):
        """The message, with the parameters it mentions named as ``names`` says.

        Parameters
        ----------
        names : dict, default=None
            Parameter -> its name in the caller's terms, e.g. ``{"qid_column":
            "--qid-column"}``; the parameters it leaves out keep their Python names
            (``qid_type='int'`` for ``"qid_type=int"``).

        Returns
        -------
        message : str
        """
        names = _Names(names or {})
        spelled = {f"{key}_name": names[value] for key, value in self.fields.items()
                   if key.endswith("_parameter")}
        return self.template.format_map({**self.fields, **spelled, "name": names,
                                         "parameter_name": names[self.parameter]})


class TableError(DataSourceError):
    """A table that :func:`~sklearn_rank.datasets.read_table` cannot read: a missing or
    repeated column, a row of another length, a cell that is no number, an empty query id.

    A :class:`DataSourceError` (so a :class:`ValueError`); ``path`` is the table,
    ``parameter`` the parameter naming the column at fault (``"qid_column"``,
    ``"label_column"``, ``"feature_columns"``...) or ``"path"`` for the file as a whole, and
    ``column`` the column.
    """


class FetchError(DataSourceError, OSError):
    """A data set that a fetcher cannot give without a download it was told not to make:
    not in the data home with ``download_if_missing=False``, or a corrupt cache whose source
    is not there to rebuild it from.

    An :class:`OSError`, as the fetchers' other errors, and a :class:`DataSourceError`:
    ``path`` is the folder or file at fault, ``parameter`` is ``"download_if_missing"``,
    and :meth:`~DataSourceError.describe` words ``download_if_missing=False`` (and ``with
    download_if_missing=True``) as a caller names that choice.
    """

    def __init__(self, template, *, path=None, parameter="download_if_missing", **fields):
        super().__init__(template, path=path, parameter=parameter, **fields)


# Tracebacks and pickles name the public module, where users import the classes from.
for _error in (DataSourceError, TableError, FetchError):
    _error.__module__ = "sklearn_rank.datasets"
