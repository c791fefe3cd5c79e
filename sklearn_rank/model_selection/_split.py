"""Cross-validation splitters that keep every query whole.

They refuse to serve scikit-learn's halving searches over ``resource="n_samples"``, which
would subsample the rows of each fold and cut the queries: sklearn-rank's
:class:`~sklearn_rank.model_selection.HalvingGridSearchCV` draws whole queries instead.
"""

import sys
from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import BaseCrossValidator, GroupShuffleSplit, StratifiedGroupKFold
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target

from ..utils._param_validation import Interval, validate_parameter_constraints
from ..utils._qid import _num_rows, factorize, resolve_qid
from ..utils._sklearn_internals import _validate_shuffle_split, is_subsample_meta_splitter


class _QuerySplitter(BaseCrossValidator):
    """Shared logic: find the query ids (argument, ``groups`` or a DataFrame column).

    ``split`` is written once here, as scikit-learn's ``BaseCrossValidator.split`` over its
    ``_iter_test_indices``: it checks the parameters and the query ids, then hands them to
    the subclass's ``_split_queries(qid, y)``, which yields the (train, test) row indices.
    """

    # Under metadata routing the splitter asks for the query ids without being told.
    __metadata_request__split = {"qid": True}

    # Whether split() refuses y=None (before reading the query ids): the stratified splitter.
    _needs_y = False

    _parameter_constraints = {
        "n_splits": [Interval(Integral, 2, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "qid_column": [str, None],
    }

    def _query_ids(self, X, groups, qid):
        """The query ids, checked; also refuses a caller that would cut the queries."""
        _refuse_row_subsampling(sys._getframe(2), type(self).__name__)
        if qid is None:
            qid = groups
        n = None if X is None else _num_rows(X)
        _, qid = resolve_qid(X, qid, qid_column=self.qid_column, n_samples=n,
                             caller=type(self).__name__)
        if len(qid) == 0:
            raise ValueError(f"{type(self).__name__} got no rows to split: qid is empty.")
        return qid

    def _codes(self, qid):
        """Integer query codes and the number of queries, at least ``n_splits`` of them."""
        codes, uniques = factorize(np.asarray(qid), len(qid))
        if len(uniques) < self.n_splits:
            raise ValueError(
                f"{type(self).__name__} cannot make n_splits={self.n_splits} folds of whole "
                f"queries from {len(uniques)} queries: lower n_splits to at most "
                f"{len(uniques)}, or check that qid holds one query id per row."
            )
        return codes, len(uniques)

    def _validate(self):
        params = {k: getattr(self, k) for k in self._parameter_constraints}
        validate_parameter_constraints(self._parameter_constraints, params, type(self).__name__)

    def split(self, X=None, y=None, groups=None, qid=None):
        """Generate indices to split data into training and test sets.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features), default=None
            Training data; only read for its query-id column.
        y : array-like of shape (n_samples,), default=None
            Grades: :class:`StratifiedQueryKFold` stratifies on them (and needs them); the
            other splitters ignore them.
        groups : array-like of shape (n_samples,), default=None
            Query ids, as passed by scikit-learn without metadata routing.
        qid : array-like of shape (n_samples,), default=None
            Query ids.

        Yields
        ------
        train : ndarray
            Training row indices.
        test : ndarray
            Test row indices.
        """
        self._validate()
        if self._needs_y and y is None:
            raise ValueError(f"{type(self).__name__} needs the grades y to stratify on; got None.")
        # called from split() itself: _query_ids looks two frames up, at who iterates split
        qid = self._query_ids(X, groups, qid)
        yield from self._split_queries(qid, y)

    def _split_queries(self, qid, y):
        """Yield the (train, test) row indices of the checked query ids ``qid``."""
        raise NotImplementedError

    def get_n_splits(self, X=None, y=None, groups=None, qid=None):
        """Number of splitting iterations.

        Parameters
        ----------
        X, y, groups, qid : object
            Ignored, for API compatibility.

        Returns
        -------
        n_splits : int
        """
        return self.n_splits


def _refuse_row_subsampling(frame, splitter):
    """Refuse to serve scikit-learn's successive halving over ``resource="n_samples"``.

    Its meta-splitter draws a random fraction of the rows of every training and test fold,
    which cuts every query short: the searches would train and score truncated queries.
    It calls our ``split`` from its own, outside the fit's try/except, so raising here stops
    the search. ``frame`` is the frame of whoever iterates our ``split``.
    """
    caller = frame.f_locals.get("self") if frame is not None else None
    if is_subsample_meta_splitter(caller) and getattr(caller, "fraction", 1) < 1:
        raise ValueError(
            f"scikit-learn's halving search with resource='n_samples' draws a random "
            f"fraction of the rows of every fold of {splitter}, cutting every query short: "
            "its models would train and be scored on truncated queries. Use "
            "sklearn_rank.model_selection.HalvingGridSearchCV (or HalvingRandomSearchCV), "
            "which draws whole queries, or halve another resource, e.g. "
            "resource='n_estimators' with max_resources set."
        )


class QueryKFold(_QuerySplitter):
    """K-fold cross-validation over whole queries, folds balanced by rows.

    Every query lands in exactly one test fold with all its rows, so no query is split
    between training and test. Queries are cut into ``n_splits`` consecutive runs holding
    about the same number of rows (to within one query): in the order of their ids, or in a
    random order with ``shuffle=True``. Rows keep their original order inside each fold.

    The query ids come from the ``qid`` argument (requested by default under metadata
    routing), from ``groups`` (what ``GridSearchCV(...).fit(X, y, groups=qid)`` passes
    without routing), or from the ``qid_column`` of a DataFrame ``X``.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2.

    shuffle : bool, default=False
        Order the queries randomly before cutting them into folds.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffle; only used when ``shuffle=True``.

    qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids.

    See Also
    --------
    sklearn.model_selection.GroupKFold : The same idea, balanced by greedy assignment.
    StratifiedQueryKFold : Folds that also keep the distribution of grades.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.model_selection import QueryKFold
    >>> qid = np.array([3, 1, 1, 2, 3, 2, 1, 4])
    >>> for train, test in QueryKFold(n_splits=2).split(qid=qid):
    ...     print(np.unique(qid[test]), test)
    [1] [1 2 6]
    [2 3 4] [0 3 4 5 7]
    """

    def __init__(self, n_splits=5, *, shuffle=False, random_state=None, qid_column="qid"):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.qid_column = qid_column

    def _split_queries(self, qid, y):
        codes, _ = self._codes(qid)
        sizes = np.bincount(codes)
        order = np.arange(len(sizes))
        if self.shuffle:
            order = check_random_state(self.random_state).permutation(len(sizes))
        # cut the ordered queries where the running row count crosses k/n_splits of the rows
        middle = np.cumsum(sizes[order]) - sizes[order] / 2.0
        fold = np.minimum((middle * self.n_splits / len(codes)).astype(np.intp), self.n_splits - 1)
        if len(np.unique(fold)) < self.n_splits:  # a few huge queries: balance by count
            fold = np.arange(len(sizes)) * self.n_splits // len(sizes)
        query_fold = np.empty(len(sizes), dtype=np.intp)
        query_fold[order] = fold
        row_fold = query_fold[codes]
        for k in range(self.n_splits):
            yield np.flatnonzero(row_fold != k), np.flatnonzero(row_fold == k)


class StratifiedQueryKFold(_QuerySplitter):
    """K-fold over whole queries that keeps the distribution of grades in every fold.

    scikit-learn's :class:`~sklearn.model_selection.StratifiedGroupKFold` with the queries
    as groups and the grades as classes, taking the query ids the way every sklearn-rank
    splitter does.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2.

    shuffle : bool, default=False
        Shuffle the queries before splitting.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffle.

    qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids.

    Examples
    --------
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.model_selection import StratifiedQueryKFold
    >>> X, y, qid = make_ranking(n_queries=20, random_state=0)
    >>> cv = StratifiedQueryKFold(n_splits=4)
    >>> len(list(cv.split(X, y, qid=qid)))
    4
    """

    _needs_y = True

    def __init__(self, n_splits=5, *, shuffle=False, random_state=None, qid_column="qid"):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.qid_column = qid_column

    def _split_queries(self, qid, y):
        y = np.asarray(y)
        if y.shape != qid.shape:
            raise ValueError(
                f"StratifiedQueryKFold needs one grade per row: got y of shape {y.shape} "
                f"for {len(qid)} query ids."
            )
        kind = type_of_target(y)
        if kind not in ("binary", "multiclass"):
            raise ValueError(
                "StratifiedQueryKFold stratifies on the grades as classes, so it needs a few "
                f"distinct grades (integers, say); got y of type {kind!r}. Use QueryKFold "
                "for continuous relevance."
            )
        self._codes(qid)
        splitter = StratifiedGroupKFold(self.n_splits, shuffle=self.shuffle,
                                        random_state=self.random_state if self.shuffle else None)
        yield from splitter.split(np.zeros((len(qid), 1)), y, groups=qid)


class QueryShuffleSplit(_QuerySplitter):
    """Random train/test splits of whole queries.

    scikit-learn's :class:`~sklearn.model_selection.GroupShuffleSplit` with the queries as
    groups; ``test_size`` and ``train_size`` count queries, not rows.

    Parameters
    ----------
    n_splits : int, default=5
        Number of re-shuffling and splitting iterations.

    test_size : float or int, default=None
        Fraction (float) or number (int) of queries in the test set; 0.2 when both sizes
        are None.

    train_size : float or int, default=None
        Fraction or number of queries in the training set; the complement of test_size
        when None.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffles.

    qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.model_selection import QueryShuffleSplit
    >>> qid = np.repeat(np.arange(10), 3)
    >>> splitter = QueryShuffleSplit(n_splits=1, test_size=0.2, random_state=0)
    >>> train, test = next(splitter.split(qid=qid))
    >>> len(np.unique(qid[test]))
    2
    """

    _parameter_constraints = {
        "n_splits": [Interval(Integral, 1, None, closed="left")],
        "test_size": [Interval(Real, 0, 1, closed="neither"),
                      Interval(Integral, 1, None, closed="left"), None],
        "train_size": [Interval(Real, 0, 1, closed="neither"),
                       Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "qid_column": [str, None],
    }

    def __init__(self, n_splits=5, *, test_size=None, train_size=None, random_state=None,
                 qid_column="qid"):
        self.n_splits = n_splits
        self.test_size = test_size
        self.train_size = train_size
        self.random_state = random_state
        self.qid_column = qid_column

    def _split_queries(self, qid, y):
        n_queries = len(factorize(np.asarray(qid), len(qid))[1])
        try:
            _validate_shuffle_split(n_queries, self.test_size, self.train_size, 0.2)
        except ValueError as exc:
            raise ValueError(
                f"QueryShuffleSplit cannot split {n_queries} queries with "
                f"test_size={self.test_size!r} and train_size={self.train_size!r}; both count "
                f"queries, not rows ({exc})"
            ) from None
        splitter = GroupShuffleSplit(self.n_splits, test_size=self.test_size,
                                     train_size=self.train_size, random_state=self.random_state)
        yield from splitter.split(np.zeros((len(qid), 1)), groups=qid)
