"""What the Dask rankers share (:class:`sklearn_rank.lightgbm.DaskLGBMRanker` and
:class:`sklearn_rank.xgboost.DaskXGBRanker`), the Dask counterpart of the in-memory adapter
plumbing of this package:

- :class:`DaskRankerMixin`: query ids as a column of ``X`` or a Dask Series (or array) of
  the same partitions, checked on the workers partition by partition with the in-memory
  adapter's own rules (:meth:`DaskRankerMixin._query_frame`); whole queries held out for
  early stopping; ``predict`` partition by partition, in the caller's row order, without a
  shuffle; ``score`` with :mod:`sklearn_rank.metrics`;
- :class:`QueryFrame`: a data set on the workers, the rows of each query in one partition
  (brought there by Dask's own shuffle on the query ids) and contiguous in it, with the
  group sizes, or increasing query codes, that the boosters want.

The alignment checks of the inputs and the shuffle by query are those of the metrics of Dask
collections: :mod:`sklearn_rank.utils._dask`, the Dask room both sides share.

Dask is imported inside the functions: importing this module does not import it.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..metrics import aggregate, evaluate_per_query
from ..utils._arrays import check_finite_nonnegative
from ..utils._dask import as_series, check_same_partitions, grouped_by_index, shuffle_by_query
from ..utils._optional import import_optional
from ..utils._qid import group_sizes
from ..utils._trained import TrainedQueries
from ._queries import (
    SINGLE_QUERY,
    as_eval_list,
    check_column_qid,
    check_target,
    held_out_queries,
    per_eval_set,
)

# The columns that carry the label, the query id and the row weight of each row through the
# shuffle, beside the features; and the predictions, in score.
_Y = "__sklearn_rank_y__"
_QID = "__sklearn_rank_qid__"
_WEIGHT = "__sklearn_rank_weight__"
_SCORE = "__sklearn_rank_score__"
_RESERVED = (_Y, _QID, _WEIGHT)
# The fixes that the messages of check_same_partitions say, in the terms of the rankers.
_SAME_FRAME_FIXES = {
    "partitions": "Pass columns of one Dask DataFrame, with the same partitions.",
    "divisions": "Pass columns of one Dask DataFrame.",
    "example": "X=ddf[features], y=ddf['label'], qid=ddf['qid']",
}


def import_dask(purpose):
    """``(dask.dataframe, dask.array)``, or an ImportError naming the ``dask`` extra."""
    dd = import_optional("dask.dataframe", extra="dask", purpose=purpose)
    da = import_optional("dask.array", extra="dask", purpose=purpose)
    import_optional("distributed", extra="dask", purpose=purpose)
    return dd, da


# --------------------------------------------------------------------------------------
# Shared by the Dask rankers (LightGBM and XGBoost)
# --------------------------------------------------------------------------------------


class QueryFrame:
    """A data set on the workers: each query's rows in one partition, contiguous there.

    Built by :meth:`DaskRankerMixin._query_frame`. ``frame`` is persisted and has no empty
    partition; its columns are the features, then the label, the query id and (with row
    weights) the weight of each row.

    Attributes
    ----------
    frame : dask.dataframe.DataFrame
    features : list
        The feature columns, in order.
    kind : {"frame", "array"}
        The kind of the caller's ``X``: the features are given to the booster as a Dask
        DataFrame or as a Dask array.
    rows, queries : tuple of int
        Number of rows and of queries of each partition.
    weighted : bool
        Whether the rows carry weights.
    """

    def __init__(self, frame, features, kind, rows, queries, weighted):
        self.frame = frame
        self.features = features
        self.kind = kind
        self.rows = rows
        self.queries = queries
        self.weighted = weighted

    @property
    def n_rows(self):
        return sum(self.rows)

    @property
    def n_queries(self):
        return sum(self.queries)

    def _column(self, column):
        series = self.frame[column]
        return series if self.kind == "frame" else series.to_dask_array(lengths=self.rows)

    @property
    def X(self):
        """The features, as the caller gave them: a Dask DataFrame or a Dask array."""
        X = self.frame[self.features]
        return X if self.kind == "frame" else X.to_dask_array(lengths=self.rows)

    @property
    def y(self):
        return self._column(_Y)

    @property
    def sample_weight(self):
        return self._column(_WEIGHT) if self.weighted else None

    def sizes(self):
        """The size of each query, partition by partition: LightGBM's ``group``."""
        import pandas as pd

        return self.frame[_QID].map_partitions(_partition_sizes,
                                                meta=pd.Series([], dtype=np.int64))

    def codes(self):
        """A query code per row, dense and increasing along the partitions: XGBoost's ``qid``.

        XGBoost concatenates a worker's partitions in their order and wants the query ids
        of the result non-decreasing; the codes are, so no worker sorts its rows again.
        """
        import pandas as pd

        offsets = np.concatenate([[0], np.cumsum(self.queries)[:-1]]).tolist()
        codes = self.frame[_QID].map_partitions(_partition_codes, offsets,
                                                 meta=pd.Series([], dtype=np.int64))
        return codes if self.kind == "frame" else codes.to_dask_array(lengths=self.rows)

    def trained_queries(self, client):
        """The :class:`~sklearn_rank.utils._trained.TrainedQueries` of the set, computed on
        the workers partition by partition (ids, sizes and label hashes: O(n_queries))."""
        import dask

        parts = [dask.delayed(_partition_fingerprint)(part)
                 for part in self.frame[[_QID, _Y]].to_delayed()]
        return TrainedQueries.merge(client.compute(parts, sync=True))

    def query_ids(self, client):
        """All the distinct query ids, in increasing order (``np.unique``)."""
        ids = self.frame[_QID].map_partitions(lambda s: s.drop_duplicates(),
                                              meta=self.frame._meta[_QID])
        return np.unique(np.asarray(client.compute(ids).result()))

    def select(self, query_ids, client, *, keep):
        """The set restricted to the queries ``query_ids`` (``keep=True``) or to the others."""
        inside = self.frame[_QID].isin(list(query_ids))
        return _finish(self.frame[inside if keep else ~inside], self.features, self.kind,
                       self.weighted, client)


def _partition_fingerprint(part):
    return TrainedQueries.of(part[_Y].to_numpy(), part[_QID].to_numpy())


def _partition_sizes(qid):
    import pandas as pd

    return pd.Series(group_sizes(qid.to_numpy())[1], dtype=np.int64)


def _partition_codes(qid, offsets, partition_info=None):
    import pandas as pd

    sizes = group_sizes(qid.to_numpy())[1]
    codes = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    return pd.Series(codes + offsets[partition_info["number"]], index=qid.index)


def _finish(frame, features, kind, weighted, client):
    """Persist ``frame``, count the rows and queries of its partitions and drop the empty
    ones (a shuffle leaves some when there are few queries)."""
    import pandas as pd

    frame = client.persist(frame)
    stats = client.compute(frame[_QID].map_partitions(
        _partition_stats, meta=pd.DataFrame({"rows": [], "queries": []}, dtype=np.int64),
    )).result()
    rows, queries = stats["rows"].tolist(), stats["queries"].tolist()
    kept = [i for i, n in enumerate(rows) if n]
    if not kept:
        raise ValueError("The data set has no row: there is no query to rank.")
    if len(kept) < len(rows):
        frame = frame.partitions[kept]
        rows = [rows[i] for i in kept]
        queries = [queries[i] for i in kept]
    return QueryFrame(frame, features, kind, tuple(rows), tuple(queries), weighted)


def _partition_stats(qid):
    import pandas as pd

    return pd.DataFrame({"rows": [len(qid)], "queries": [len(group_sizes(qid.to_numpy())[1])]},
                        dtype=np.int64)


class _Rows:
    """What each partition is told when its rows are checked and put together (pickled to
    the workers): who asks, where the query ids are, and the in-memory adapter whose rules
    check the labels and the query sizes."""

    def __init__(self, caller, qid_column, from_column, twin, check_rules, names, features):
        self.caller = caller
        self.features = features  # their names, which the shuffle does not see (see below)
        self.qid_column = qid_column
        self.from_column = from_column
        self.twin = twin
        self.check_rules = check_rules  # the booster's rules on labels and query sizes
        self.names = names  # the arguments as the caller named them: X, y, qid...


def _combine_partition(X, y, qid, weight, rows, partition_info=None):
    """One partition of X, y, qid and sample_weight as one frame, checked."""
    import pandas as pd

    number = partition_info["number"] if partition_info else 0
    caller, names = rows.caller, rows.names
    if not isinstance(X, pd.DataFrame):  # a block of a Dask array
        X = pd.DataFrame(X, columns=list(range(X.shape[1])))
    if rows.qid_column is not None and rows.qid_column in X.columns:
        if rows.from_column:
            qid = X[rows.qid_column]
        X = X.drop(columns=rows.qid_column)
    n = len(X)
    for name, part in (("y", y), ("qid", qid), ("sample_weight", weight)):
        if part is None or (name == "qid" and rows.from_column):
            continue
        if len(part) != n:
            raise ValueError(
                f"{caller}: partition {number} of {names['X']} has {n} rows, and that of "
                f"{names[name]} has {len(part)}. Pass {names[name]} with the partitions of "
                f"{names['X']}: a column of the same Dask DataFrame, e.g. ddf['{name}']."
            )
        index = getattr(part, "index", None)
        if isinstance(part, pd.Series) and not part.index.equals(X.index):
            raise ValueError(
                f"{caller}: partition {number} of {names[name]} holds other rows than that "
                f"of {names['X']} (their indexes differ, e.g. {index[:3].tolist()} and "
                f"{X.index[:3].tolist()}). Pass columns of one Dask DataFrame, e.g. "
                f"X=ddf[features], y=ddf['label'], qid=ddf['qid']."
            )
    qid = pd.Series(np.asarray(qid), index=X.index) if not isinstance(qid, pd.Series) else qid
    missing = qid.isna().to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{caller}: {names['qid']} has missing values ({int(missing.sum())} in partition "
            f"{number}, the first at its row {row}): every row needs a query id. Drop those "
            "rows (ddf.dropna(subset=['qid'])) or give them their query's id."
        )
    if rows.from_column:
        check_column_qid(qid.to_numpy(), rows.qid_column, caller)
    y = check_target(y, n, caller)
    if rows.check_rules:
        try:
            rows.twin._check_labels(y, caller)
        except ValueError as exc:
            raise ValueError(
                f"{exc} (Rows are counted from the start of partition {number} of "
                f"{names['y']}.)"
            ) from None
    columns = {_Y: y.astype(np.float64, copy=False), _QID: qid.to_numpy()}
    if weight is not None:
        weight = check_finite_nonnegative(np.asarray(weight, dtype=np.float64),
                                          f"{names['sample_weight']} for {caller}")
        columns[_WEIGHT] = weight
    # Dask's p2p shuffle takes string column names only: the features travel under
    # positional ones, and get theirs back after the shuffle
    return X.set_axis(_travel_names(len(X.columns)), axis=1).assign(**columns)


def _travel_names(n_features):
    return [f"__sklearn_rank_feature_{i}__" for i in range(n_features)]


def _sort_partition(part, rows):
    """The rows of each query of a partition, contiguous; the query sizes checked; the
    features' names back."""
    order, sizes = group_sizes(part[_QID].to_numpy())
    if rows.check_rules:
        rows.twin._check_sizes(sizes, rows.caller, True)
    part = part.set_axis([*rows.features, *part.columns[len(rows.features):]], axis=1)
    return part if order is None else part.iloc[order]


class DaskRankerMixin:
    """What the Dask rankers share; put it first among the bases, before the booster's.

    A Dask ranker sets ``_local_class``, its in-memory sibling, whose hooks
    (:data:`sklearn_rank._adapters.HOOKS`) check the labels and the query sizes on the
    workers and tell whether early stopping is on, and ``_dask_only``, its parameters that
    the in-memory sibling lacks; it implements ``_dask_client()`` and
    ``_predict_function()``.
    """

    # Under metadata routing, fit and score ask for the query ids without being told.
    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    _local_class = None
    _dask_only = ()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = None  # a ranker: neither a regressor nor a classifier
        tags.target_tags.required = True
        return tags

    def _local_twin(self):
        """The in-memory adapter with the same parameters, whose hooks hold the rules."""
        params = {name: value for name, value in self.get_params(deep=False).items()
                  if name not in self._dask_only}
        return self._local_class(**params)

    # ------------------------------------------------------------------ data

    def _query_frame(self, X, y, qid, sample_weight, *, caller, twin, client, names=None,
                     check_rules=True):
        """One data set as a :class:`QueryFrame`: checked on the workers, then shuffled.

        ``X`` is a Dask DataFrame (its ``qid_column`` holds the query ids unless ``qid`` is
        given; it is dropped either way) or a 2-D Dask array; ``y``, ``qid`` and
        ``sample_weight`` are Dask Series of the same partitions (1-D Dask arrays of the same
        chunks for an array ``X``). Errors that need no data are raised here; those that do
        (lengths, indexes, missing query ids, labels, query sizes) by the workers, in the
        same pass as the shuffle.
        """
        dd, da = import_dask(type(self).__name__)
        names = {"X": "X", "y": "y", "qid": "qid", "sample_weight": "sample_weight",
                 **(names or {})}
        if isinstance(qid, str):
            why = (f"qid={SINGLE_QUERY!r} would make all rows one query, on one worker"
                   if qid == SINGLE_QUERY else f"got the string {qid!r}")
            raise ValueError(
                f"{caller} needs a query id per row, as a Dask Series (or a column of X); "
                f"{why}. Give each row its query's id."
            )
        if isinstance(X, dd.DataFrame):
            kind = "frame"
            from_column = qid is None and self.qid_column is not None and \
                self.qid_column in X.columns
        elif isinstance(X, da.Array) and X.ndim == 2:
            kind, from_column = "array", False
        else:
            raise TypeError(
                f"{caller} takes {names['X']} as a Dask DataFrame or a 2-D Dask array; got "
                f"{_kind(X)}. For data in memory, use {_public_name(self._local_class)}; to "
                "distribute it, dd.from_pandas(X, npartitions=...)."
            )
        if qid is None and not from_column:
            column = self.qid_column or "qid"
            what = (f"{names['X']} is a Dask DataFrame without a {column!r} column"
                    if kind == "frame" else f"{names['X']} is a Dask array")
            raise ValueError(
                f"{caller} needs the query id of every row, and got none: {what}, and no "
                f"{names['qid']}= was given. Pass {names['qid']}=ddf['qid'] (a Dask Series "
                f"of the same DataFrame as {names['X']}), or keep the query ids in the "
                f"{column!r} column of {names['X']}."
            )
        if y is None:
            raise ValueError(f"{caller} requires y to be passed, but the target y is None.")
        inputs = {"y": y, "qid": None if from_column else qid, "sample_weight": sample_weight}
        if kind == "frame":
            clash = [c for c in X.columns if c in _RESERVED]
            if clash:
                raise ValueError(f"{caller}: {names['X']} has columns {clash}, names that "
                                 "sklearn-rank reserves; rename them.")
            grouped = _check_partners(X, inputs, names, caller, dd)
        else:
            grouped = False
            _check_blocks(X, inputs, names, caller, da)
            X = dd.from_dask_array(X.rechunk({1: -1}))
            inputs = {name: None if x is None else as_series(x) for name, x in inputs.items()}
        meta = X._meta
        qid_meta = meta[self.qid_column] if from_column else inputs["qid"]._meta
        features = [c for c in meta.columns if c != self.qid_column or kind == "array"]
        meta = meta[features].assign(**{_Y: np.zeros(0), _QID: qid_meta.to_numpy()})
        if sample_weight is not None:
            meta = meta.assign(**{_WEIGHT: np.zeros(0)})
        rows = _Rows(caller, self.qid_column if kind == "frame" else None, from_column, twin,
                     check_rules, names, features)
        combined = dd.map_partitions(
            _combine_partition, X, inputs["y"], inputs["qid"], inputs["sample_weight"], rows,
            meta=meta.set_axis([*_travel_names(len(features)), *meta.columns[len(features):]],
                               axis=1),
            align_dataframes=False, enforce_metadata=False,
        )
        if not grouped:  # Dask's own shuffle brings the rows of each query into one partition
            combined = shuffle_by_query(combined, _QID, ignore_index=True)
        return _finish(combined.map_partitions(_sort_partition, rows, meta=meta), features,
                       kind, sample_weight is not None, client)

    def _eval_frames(self, eval_set, eval_qid, eval_sample_weight, *, caller, twin, client):
        """The eval sets as :class:`QueryFrame` objects, each with its own query ids."""
        eval_set = as_eval_list(eval_set)
        eval_qid = per_eval_set(eval_qid, len(eval_set), "eval_qid")
        eval_sample_weight = per_eval_set(eval_sample_weight, len(eval_set),
                                          "eval_sample_weight")
        frames = []
        for i, pair in enumerate(eval_set):
            names = {"X": f"eval_set[{i}][0]", "y": f"eval_set[{i}][1]",
                     "qid": f"eval_qid[{i}]", "sample_weight": f"eval_sample_weight[{i}]"}
            frames.append(self._query_frame(
                pair[0], pair[1], eval_qid[i], eval_sample_weight[i],
                caller=f"{caller} (eval_set[{i}])", twin=twin, client=client, names=names))
        return frames

    def _record_training_queries(self, train, client):
        """Keep the fingerprint of the training queries, which ``score`` checks test rows
        against (before any are held out for early stopping: none is trained and tested)."""
        self._trained_queries = train.trained_queries(client)

    def _hold_out(self, train, twin, client):
        """Split whole training queries into (training, validation) for early stopping."""
        ids = train.query_ids(client)
        if len(ids) < 2:
            raise ValueError(
                f"{type(self).__name__}: early stopping holds out validation_fraction="
                f"{self.validation_fraction} of the training queries, but the training data "
                "has a single query. Give more queries, or an eval_set with eval_qid."
            )
        held = held_out_queries(len(ids), self.validation_fraction,
                                twin._holdout_random_state())
        self.validation_queries_ = ids[held]
        return (train.select(ids[held], client, keep=False),
                train.select(ids[held], client, keep=True))

    # ------------------------------------------------------------------ predict, score

    def _features(self, X, caller):
        """``X`` without its query-id column; a Dask DataFrame or a 2-D Dask array."""
        dd, da = import_dask(type(self).__name__)
        if isinstance(X, dd.DataFrame):
            if self.qid_column is not None and self.qid_column in X.columns:
                X = X.drop(columns=self.qid_column)
            return X
        if isinstance(X, da.Array) and X.ndim == 2:
            return X.rechunk({1: -1})
        raise TypeError(
            f"{caller} takes X as a Dask DataFrame or a 2-D Dask array; got {_kind(X)}. For "
            "data in memory, predict with to_local() (or compute X first)."
        )

    def predict(self, X, **kwargs):
        """Predict a ranking score for each row, in the order of the rows of ``X``.

        Partition by partition, on the workers: prediction needs no grouping, so the rows
        are not shuffled.

        Parameters
        ----------
        X : dask.dataframe.DataFrame or dask.array.Array of shape (n_samples, n_features)
            Features; a DataFrame's query-id column (``qid_column``) is dropped first.
        **kwargs
            Passed to the booster's ``predict``.

        Returns
        -------
        y_score : dask.dataframe.Series or dask.array.Array of shape (n_samples,)
            A Dask Series with the index and partitions of a Dask DataFrame ``X``, a Dask
            array with the row chunks of a Dask array ``X``. Higher ranks first, within each
            query.
        """
        import pandas as pd

        check_is_fitted(self)
        X = self._features(X, f"{type(self).__name__}.predict")
        function = self._predict_function(**kwargs)
        if not hasattr(X, "map_partitions"):  # a Dask array
            return X.map_blocks(_predict_block, function, drop_axis=1, dtype=np.float64,
                                meta=np.zeros(0))
        return X.map_partitions(_predict_partition, function,
                                meta=pd.Series([], dtype=np.float64))

    def score(self, X, y, qid=None, sample_weight=None):
        """Compute the ``scoring`` metric of the predictions, averaged over queries.

        The per-query values are computed on the workers by :mod:`sklearn_rank.metrics`,
        after a shuffle on the query ids, and merged with
        :func:`sklearn_rank.metrics.aggregate`: the value is that of
        :func:`sklearn_rank.metrics.evaluate` on the same rows in memory.

        Parameters
        ----------
        X : dask.dataframe.DataFrame or dask.array.Array of shape (n_samples, n_features)
            Features; a DataFrame may hold the query ids in its ``qid_column``.
        y : dask.dataframe.Series or dask.array.Array of shape (n_samples,)
            Graded relevance of each row, with the partitions of ``X``.
        qid : dask.dataframe.Series or dask.array.Array of shape (n_samples,), default=None
            Query id of each row, with the partitions of ``X``; taken from
            ``X[qid_column]`` when None. Requested by default under metadata routing. A
            query id the model was trained on, with rows other than its trained rows (what
            a row-wise ``random_split`` leaves), is an error (see
            :func:`sklearn_rank.model_selection.reused_query_ids`).
        sample_weight : dask.dataframe.Series or dask.array.Array, default=None
            Row weights; a query weighs the mean of its rows' weights.

        Returns
        -------
        score : float
            The ``scoring`` metric, e.g. ``nDCG@10``; higher is better.
        """
        import dask

        dd, _ = import_dask(type(self).__name__)
        caller = f"{type(self).__name__}.score"
        check_is_fitted(self)
        y_score = self.predict(X)
        if isinstance(y_score, dd.Series):
            scores = y_score.to_frame(name=_SCORE)
            if qid is None and self.qid_column is not None and self.qid_column in X.columns:
                qid = X[self.qid_column]
        else:
            scores = y_score[:, None]
        client = self._dask_client()
        # any real label and any query size: the metrics take them
        frame = self._query_frame(scores, y, qid, sample_weight, caller=caller, twin=None,
                                  client=client, check_rules=False)
        partitions = frame.frame.to_delayed()
        parts = [dask.delayed(_evaluate_partition)(part, self.scoring, frame.weighted)
                 for part in partitions]
        # and the fingerprint of each test query, in the same pass: a test query cut from a
        # training query (a row-wise random_split of the queries) is refused, naming the fix
        parts += [dask.delayed(_partition_fingerprint)(part) for part in partitions]
        results = client.compute(parts, sync=True)
        record = getattr(self, "_trained_queries", None)
        if record is not None:
            record.check_against(TrainedQueries.merge(results[len(partitions):]),
                                 caller=caller)
        return aggregate(*results[:len(partitions)])[self.scoring]


def _evaluate_partition(part, scoring, weighted):
    score = part.iloc[:, 0].to_numpy()
    return evaluate_per_query(part[_Y].to_numpy(), score, qid=part[_QID].to_numpy(),
                              metrics=[scoring],
                              sample_weight=part[_WEIGHT].to_numpy() if weighted else None)


def _predict_partition(part, function):
    import pandas as pd

    values = function(part) if len(part) else np.zeros(0)
    return pd.Series(np.asarray(values, dtype=np.float64), index=part.index)


def _predict_block(block, function):
    return np.asarray(function(block) if len(block) else np.zeros(0), dtype=np.float64)


def _public_name(cls):
    return f"{cls.__module__.rsplit('.', 1)[0]}.{cls.__name__}"


def _kind(x):
    kind = type(x)
    return f"a {kind.__module__.split('.')[0]} {kind.__name__}"


def _check_partners(X, inputs, names, caller, dd):
    """Raise unless ``y``, ``qid`` and ``sample_weight`` are Dask Series of the partitions
    of the Dask DataFrame ``X`` (checked on metadata: no computation).

    Returns whether the rows of each query sit in one partition already: ``qid`` is the
    index of ``X``, with known divisions (``ddf.set_index("qid")``, or Parquet files
    partitioned by query), so that no shuffle is needed.
    """
    grouped = False
    for name, x in inputs.items():
        if x is None:
            continue
        if isinstance(x, dd.DataFrame) and len(x.columns) == 1:
            x = inputs[name] = x[x.columns[0]]
        if isinstance(x, dd.Index):
            # the divisions of X are those of x, checked below
            grouped = name == "qid" and grouped_by_index(x)
            x = inputs[name] = as_series(x)
        if not isinstance(x, dd.Series):
            fix = (f"a Dask Series of the same DataFrame as {names['X']}, e.g. "
                   f"{names[name]}=ddf['{name}']")
            what = (" (in memory, its rows could not be matched with the partitions of "
                    f"{names['X']})" if not hasattr(x, "__dask_graph__") else "")
            raise TypeError(
                f"{caller} takes {names[name]} as {fix}; got {_kind(x)}{what}."
            )
        check_same_partitions((names["X"], X), {names[name]: x}, caller,
                              fixes=_SAME_FRAME_FIXES)
    return grouped


def _check_blocks(X, inputs, names, caller, da):
    """Raise unless ``y``, ``qid`` and ``sample_weight`` are 1-D Dask arrays of the row chunks
    of the Dask array ``X``."""
    for name, x in inputs.items():
        if x is None:
            continue
        if not (isinstance(x, da.Array) and x.ndim == 1):
            raise TypeError(
                f"{caller} takes {names[name]} as a 1-D Dask array with the row chunks of "
                f"{names['X']}, a Dask array; got {_kind(x)}"
                f"{f' of {x.ndim} dimensions' if isinstance(x, da.Array) else ''}."
            )
        if x.chunks[0] != X.chunks[0]:
            raise ValueError(
                f"{caller}: {names['X']} has the row chunks {X.chunks[0]} and {names[name]} "
                f"{x.chunks[0]}. Give them the same chunks (e.g. "
                f"{names[name]}.rechunk({names['X']}.chunks[0]))."
            )
