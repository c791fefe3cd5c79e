"""What a cross-validation needs of its data, checked before the work.

:func:`check_ranking_data` refuses, in one :class:`~sklearn_rank.datasets.DataSourceError`
naming the data and the parameter at fault, what would otherwise fail at the first fold in
the words of a metric or a splitter: negative grades, fewer queries than folds.
:func:`check_file` says why an input file cannot be read, as :func:`load_source` does.

Only the standard library and numpy are imported at module level.
"""

import numpy as np

from ..utils._qid import unique_ids
from ._errors import DataSourceError
from ._sources import _check_file

__all__ = ["check_file", "check_ranking_data"]


def check_file(path):
    """The path of an input file, or a :class:`DataSourceError` saying why it cannot be
    read: missing, a directory, or unreadable.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    path : Path

    Raises
    ------
    DataSourceError
        ``path`` is the file, ``parameter`` is ``"source"``, ``cause`` is ``"data"``.

    Examples
    --------
    >>> from sklearn_rank.datasets import DataSourceError, check_file
    >>> try:
    ...     check_file("no_such_file.txt")
    ... except DataSourceError as exc:
    ...     print(exc.describe({"source": "--data"}))
    --data 'no_such_file.txt': no such file.
    """
    return _check_file(path)


def check_ranking_data(data, *, n_splits=None, grades=True, name="data"):
    """Refuse, before the work, ranking data that a cross-validation cannot use.

    With ``n_splits``, data of fewer queries than folds (each fold needs at least one test
    query); with ``grades``, negative grades, which the ranking metrics would refuse at the
    first fold, in their own words (``judged=``) and with a row number of that fold.

    Parameters
    ----------
    data : RankingDataset or tuple
        A data set with ``y``, ``qid`` (and ``source``, which the messages name), or an
        ``(X, y, qid)`` tuple, named ``name``.
    n_splits : int, default=None
        The folds of the cross-validation; None checks no number of queries.
    grades : bool, default=True
        Whether to refuse negative grades.
    name : str, default="data"
        How the messages name a tuple (a data set has its ``source``).

    Raises
    ------
    DataSourceError
        ``path`` is the data's source, ``cause`` is ``"data"``, and ``parameter`` is
        ``"n_splits"`` (too few queries) or ``"source"`` (a negative grade, whose row is
        the error's ``location``, ``"row 6"``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.datasets import DataSourceError, check_ranking_data
    >>> y, qid = np.array([1, 0, -1, 2]), np.array([1, 1, 2, 2])
    >>> check_ranking_data((None, np.abs(y), qid), n_splits=2)
    >>> try:
    ...     check_ranking_data((None, y, qid), name="mine")
    ... except DataSourceError as exc:
    ...     error = exc
    >>> error.path, error.parameter, error.location
    ('mine', 'source', 'row 3')
    """
    source, y, qid = ((name, data[1], data[2]) if isinstance(data, tuple)
                      else (data.source, data.y, data.qid))
    n_queries = len(unique_ids(np.asarray(qid)))
    if n_splits is not None and n_queries < n_splits:
        raise DataSourceError(
            "{path} holds {n_queries} queries, fewer than {name[n_splits]} {n_splits}; each "
            "fold needs at least one test query.", path=source, parameter="n_splits",
            n_queries=n_queries, n_splits=n_splits)
    negative = np.asarray(y) < 0
    if grades and negative.any():
        i = int(np.argmax(negative))
        more = f" (and {int(negative.sum()) - 1:,} more)" if negative.sum() > 1 else ""
        raise DataSourceError(
            "{name[source]} {path}: the grade of data row {row:,} is {grade:g}{more}; expected "
            "grades of 0 or more, which the ranking metrics read as levels of relevance. Map "
            "negative grades (such as -1 for non-relevant) to 0 first.", path=source,
            row=i + 1, grade=float(np.asarray(y)[i]), more=more, where=f"row {i + 1}")
