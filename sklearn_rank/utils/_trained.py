"""What a fitted model remembers of its training queries, to refuse a test query cut from one.

A splitter that ignores queries (``cv=5``, ``KFold``, ``train_test_split``, a Dask
``random_split``) puts rows of one query in training and rows of it in test: the model is
scored on the rest of queries it was trained on, and the score leaks, with nothing to see. So
the adapters (and :class:`~sklearn_rank.preprocessing.DropQueryId`) keep, from ``fit``, a
:class:`TrainedQueries`: per training query, its id, its number of rows and an
order-insensitive hash of its rows' relevance labels (memory O(n_queries)). Scoring then tells
three cases apart, query by query:

- an id never trained on: a held-out query, scored as it is;
- a trained id with the trained rows (same count, same labels): a training score
  (``return_train_score=True``, ``model.score(X_train, ...)``), scored as it is;
- a trained id with other rows: either a splitter cut the query, or the data reuse the id for
  another query (two files whose queries are each numbered from 0). The ids cannot tell the
  two apart, so :meth:`TrainedQueries.check` raises, naming both readings and both fixes;
  :func:`reused_query_ids` is the explicit way to score other queries under reused ids.

The labels, not the features, make the fingerprint: they reach the scorer exactly as the model
got them, whatever the transformers of a pipeline did to the features (a ``PCA``'s
``fit_transform`` and ``transform`` differ in the last bits), so a training score is never
taken for a cut. A cut goes unnoticed only if every shared query were split into two parts of
the same size and the same grades.
"""

import contextlib
import contextvars

import numpy as np

from ._qid import factorize

# splitmix64's constants: a cheap, well-mixing bijection of 64-bit words
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)

_REUSED = contextvars.ContextVar("sklearn_rank_reused_query_ids", default=False)


def _mix(words):
    """splitmix64 of each uint64 word (arrays wrap around modulo 2**64, silently)."""
    z = words + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MUL1
    z = (z ^ (z >> np.uint64(27))) * _MUL2
    return z ^ (z >> np.uint64(31))


def _label_words(y):
    """One uint64 word per label: its float64 bits, -0.0 as 0.0 and one NaN for all."""
    y = np.asarray(y, dtype=np.float64).ravel() + 0.0  # a copy, and -0.0 becomes 0.0
    y[np.isnan(y)] = np.nan
    return y.view(np.uint64)


@contextlib.contextmanager
def reused_query_ids():
    """Score queries whose ids a model was trained on, knowing they are other queries.

    A fitted ranker (and :class:`~sklearn_rank.preprocessing.DropQueryId`) remembers the
    queries it was trained on. Scoring it (``score``, a ranking scorer, ``search.score``) on
    rows whose query id is one of them, but which are not the trained rows of that query, is
    an error: most often a splitter that ignores queries (``cv=5``, ``KFold``,
    ``train_test_split``) cut the query between training and test, and the score leaks. When
    the test data really hold other queries under the same ids (a test file whose queries
    are numbered from 0, as the training file's are), give them distinct ids
    (:func:`~sklearn_rank.datasets.load_svmlight_ranking_files` numbers the files apart), or
    score inside this context manager, which turns that check off in this thread.

    Yields
    ------
    None

    Examples
    --------
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.lightgbm import LGBMRanker
    >>> from sklearn_rank.model_selection import reused_query_ids
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> train, test = qid < 30, qid >= 30
    >>> model = LGBMRanker(n_estimators=10, verbose=-1).fit(X[train], y[train], qid=qid[train])
    >>> qid_other = qid[test] - 30  # other queries, numbered from 0 as the training ones
    >>> with reused_query_ids():
    ...     score = model.score(X[test], y[test], qid=qid_other)
    >>> 0 < score <= 1
    True
    """
    token = _REUSED.set(True)
    try:
        yield
    finally:
        _REUSED.reset(token)


class TrainedQueries:
    """The queries a model was fitted on: the id, row count and label hash of each.

    Built by :meth:`of` (rows in memory) or :meth:`merge` (the parts of a Dask data set).

    Attributes
    ----------
    ids : ndarray
        The distinct query ids, in the order of ``np.unique``.
    sizes : ndarray of int
        Number of rows of each query.
    hashes : ndarray of uint64
        Sum (modulo 2**64) of a hash of each row's label: the same for the same rows in any
        order.
    """

    def __init__(self, ids, sizes, hashes):
        self.ids = ids
        self.sizes = sizes
        self.hashes = hashes

    def __len__(self):
        return len(self.ids)

    @classmethod
    def of(cls, y, qid):
        """The fingerprint of each query of rows with labels ``y`` and query ids ``qid``."""
        qid = np.asarray(qid)
        codes, ids = factorize(qid, len(qid))
        sizes = np.bincount(codes, minlength=len(ids))
        hashes = np.zeros(len(ids), dtype=np.uint64)
        np.add.at(hashes, codes, _mix(_label_words(y)))
        return cls(ids, sizes, hashes)

    @classmethod
    def merge(cls, parts):
        """One fingerprint of the parts of a data set, a query's rows in one part or several."""
        parts = [part for part in parts if len(part)]
        if not parts:
            return cls(np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.uint64))
        ids = np.concatenate([part.ids for part in parts])
        codes, unique = factorize(ids, len(ids))
        sizes = np.bincount(codes, weights=np.concatenate([p.sizes for p in parts]),
                            minlength=len(unique)).astype(np.intp)
        hashes = np.zeros(len(unique), dtype=np.uint64)
        np.add.at(hashes, codes, np.concatenate([part.hashes for part in parts]))
        return cls(unique, sizes, hashes)

    def check(self, y, qid, *, caller):
        """Raise a ``ValueError`` when a test query has a trained id but other rows.

        ``y`` and ``qid`` are the labels and query ids of the rows scored. Nothing is checked
        inside :func:`reused_query_ids`.
        """
        if _REUSED.get() or not len(self):
            return
        self.check_against(TrainedQueries.of(y, qid), caller=caller)

    def check_against(self, test, *, caller):
        """:meth:`check` with the test rows' own :class:`TrainedQueries` already computed."""
        if _REUSED.get() or not len(self) or not len(test):
            return
        try:
            _, in_test, in_train = np.intersect1d(test.ids, self.ids, assume_unique=True,
                                                  return_indices=True)
        except TypeError:  # ids of kinds that do not compare (ints and strings): none shared
            return
        other = ((test.sizes[in_test] != self.sizes[in_train])
                 | (test.hashes[in_test] != self.hashes[in_train]))
        if not other.any():
            return
        first = int(np.flatnonzero(other)[0])
        example = test.ids[in_test[first]]
        example = example.item() if hasattr(example, "item") else example
        trained, scored = int(self.sizes[in_train[first]]), int(test.sizes[in_test[first]])
        grades = " with other grades" if trained == scored else ""
        raise ValueError(
            f"{caller}: {int(other.sum())} of the {len(test)} queries scored have the id of a "
            f"query the model was trained on, but not its trained rows (e.g. qid {example!r}: "
            f"{trained} rows trained on, {scored} rows here{grades}). Either a splitter cut "
            "these queries between training and test: an integer "
            "cv (cv=5, or no cv) or KFold in GridSearchCV, RandomizedSearchCV, "
            "cross_val_score, cross_validate, learning_curve or validation_curve, and "
            "train_test_split, split rows, not queries, and the score leaks (part of each "
            "query trains the model tested on the rest). Use a query splitter: "
            "cv=sklearn_rank.model_selection.QueryKFold(5), or GroupKFold(5) with groups=qid, "
            "or sklearn_rank.model_selection.cross_validate, which refuses such splits. Or "
            "these are other queries that reuse the training ids (e.g. a test file numbered "
            "from 0 like the training file): give them distinct ids "
            "(sklearn_rank.datasets.load_svmlight_ranking_files numbers files apart), or "
            "score within `with sklearn_rank.model_selection.reused_query_ids():`."
        )


def trained_queries_of(estimator):
    """The :class:`TrainedQueries` that ``estimator`` or one of its parts keeps, or None.

    Looked for on the estimator itself (an adapter, a Dask ranker, ``DropQueryId``), on a
    fitted search's ``best_estimator_``, and on the steps of a pipeline. Other
    meta-estimators hide their models: None.
    """
    record = getattr(estimator, "_trained_queries", None)
    if isinstance(record, TrainedQueries):
        return record
    best = getattr(estimator, "best_estimator_", None)
    if best is not None:
        return trained_queries_of(best)
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list):
        for step in steps:
            model = step[1] if isinstance(step, tuple) and len(step) == 2 else None
            if model is None or isinstance(model, str):
                continue
            record = trained_queries_of(model)
            if record is not None:
                return record
    return None


def check_trained_queries(estimator, y, qid, *, caller):
    """:meth:`TrainedQueries.check` with the record of ``estimator``, if it keeps one."""
    if qid is None or isinstance(qid, str):
        return
    record = trained_queries_of(estimator)
    if record is not None:
        record.check(y, qid, caller=caller)
