"""The Dask room: what the Dask rankers and the metrics of Dask collections share.

The Dask rankers (:mod:`sklearn_rank._adapters._dask`, under ``DaskLGBMRanker`` and
``DaskXGBRanker``) and the metrics of Dask collections (:mod:`sklearn_rank.metrics._dask`)
take the same kind of input, per-row columns of one Dask DataFrame, and need the rows of each
query in one partition. What they share is here, once:

- frames: :func:`as_series`, a per-row input (a Dask Series, the frame's index, a 1-D Dask
  array) as a Dask Series; :func:`grouped_by_index`, whether query ids that are the frame's
  index already hold each query in one partition;
- alignment checks, before any computation: :func:`check_same_partitions` (the partitions,
  the divisions and the frame of origin of the inputs), :func:`co_aligned`;
- the shuffle by query: :func:`shuffle_by_query`, Dask's own shuffle on the query ids.

Each side keeps its own words for the fix, since it names its own arguments. Dask is imported
inside the functions: importing this module does not import it.
"""

__all__ = ["as_series", "check_same_partitions", "co_aligned", "grouped_by_index",
           "shuffle_by_query"]


def as_series(x, name=None):
    """A per-row Dask input as a Dask Series: a Series itself, an Index as a Series (the
    index's values, indexed by themselves), a 1-D Dask array as a Series named ``name``."""
    import dask.dataframe as dd

    if isinstance(x, dd.Index):
        return x.to_series()
    if isinstance(x, dd.Series):
        return x
    return dd.from_dask_array(x, columns=name)


def grouped_by_index(qid):
    """Whether the query ids ``qid`` are the index of a Dask DataFrame with known divisions
    (``ddf.set_index("qid")``, or Parquet files partitioned by query): each index value then
    sits in one partition, and the rows of each query need no shuffle."""
    import dask.dataframe as dd

    return isinstance(qid, dd.Index) and qid.known_divisions


def co_aligned(a, b):
    """Whether Dask knows ``a`` and ``b`` to come from one frame (True when it cannot say:
    the lengths and indexes of the partitions are checked on the workers anyway)."""
    try:
        from dask.dataframe.dask_expr._expr import are_co_aligned
    except ImportError:  # pragma: no cover - dask's expressions moved
        return True
    return are_co_aligned(a.expr, b.expr)


def check_same_partitions(first, others, caller, *, fixes):
    """Raise unless the Dask collections ``others`` have the partitions of ``first``.

    Checked on metadata, without computing: the same number of partitions, the same
    divisions, and (:func:`co_aligned`) columns of one frame, whose partitions hold the same
    rows in the same order. Per-row inputs are put side by side partition by partition, as
    numpy arrays are, never joined on their index.

    Parameters
    ----------
    first : tuple of (str, dask collection)
        The input the others are compared with, and its name as the caller knows it.
    others : dict
        Name -> Dask Series (or DataFrame): the other inputs, checked in this order.
    caller : str
        Who asks, to begin each message.
    fixes : dict
        The caller's words for the fix, which name its own arguments: ``"partitions"``, the
        sentence after a different number of partitions; ``"divisions"``, after different
        divisions; ``"example"``, the columns of one frame to pass, e.g.
        ``"ddf['label'], ddf['score'], ddf['qid']..."``.

    Raises
    ------
    ValueError
        Saying which two inputs differ, how, and the fix.
    """
    first_name, a = first
    for name, b in others.items():
        if a.npartitions != b.npartitions:
            raise ValueError(
                f"{caller}: {first_name} has {a.npartitions} partitions and {name} has "
                f"{b.npartitions}. {fixes['partitions']}"
            )
        if a.divisions != b.divisions:
            raise ValueError(
                f"{caller}: {first_name} and {name} have different divisions ({_shown(a)} and "
                f"{_shown(b)}), so their partitions hold different rows. {fixes['divisions']}"
            )
    for name, b in others.items():
        if not co_aligned(a, b):
            raise ValueError(
                f"{caller}: {first_name} and {name} come from different Dask DataFrames, whose "
                "partitions need not hold the same rows in the same order. Pass columns of "
                f"one frame ({fixes['example']}): put the data in one Dask DataFrame first (a "
                "join on a document key, for instance)."
            )


def _shown(collection):
    divisions = collection.divisions
    if len(divisions) > 4:
        divisions = (*divisions[:2], "...", divisions[-1])
    return "(" + ", ".join(map(str, divisions)) + ")"


def shuffle_by_query(frame, on, **options):
    """``frame`` shuffled by Dask on its query-id column ``on``: all rows of a query in one
    partition (not contiguous there, nor in any order).

    Dask's own shuffle (peer to peer on a distributed cluster), with the ``options`` of
    :meth:`dask.dataframe.DataFrame.shuffle`. The scheduler's two routine log records of
    each shuffle are filtered out (:class:`_RoutineShuffleRecords`).
    """
    _quiet_shuffle_log()
    return frame.shuffle(on=on, **options)


class _RoutineShuffleRecords:
    """A logging filter that drops the two records of a shuffle's normal life.

    distributed's scheduler logs each P2P shuffle's start and end at WARNING level ("Shuffle
    ... initialized by task ...", "... deactivated due to stimulus ..."): two lines per
    evaluation, which read as problems. Its other warnings (a restart, a failure) pass.
    """

    routine = ("Shuffle %s initialized by task", "Shuffle %s deactivated due to stimulus")

    def filter(self, record):
        return not (isinstance(record.msg, str) and record.msg.startswith(self.routine))


def _quiet_shuffle_log():
    """Install :class:`_RoutineShuffleRecords` on distributed's shuffle logger, once.

    A filter of those two records only, not a level: the scheduler may run in this process
    (a ``LocalCluster``) and log them while, or just after, the result is computed.
    """
    import logging

    logger = logging.getLogger("distributed.shuffle._scheduler_plugin")
    if not any(isinstance(f, _RoutineShuffleRecords) for f in logger.filters):
        logger.addFilter(_RoutineShuffleRecords())
