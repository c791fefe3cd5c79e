"""Where ``cv`` and ``tune`` send their units of work: the recorder of a run.

The runner, the units and their results live in :mod:`sklearn_rank.benchmark`; the command
line chooses the :class:`~sklearn_rank.benchmark.Recorder` from its options.
"""

from ..benchmark import Recorder

__all__ = ["Recorder", "recorder_for"]


def recorder_for(args, provenance, units):
    """The :class:`~sklearn_rank.benchmark.Recorder` of a run of ``cv`` or ``tune``: one
    that keeps nothing, or that of the results store.

    With ``--store``, a :class:`~sklearn_rank._cli._store.CLIStoreRecorder`: each unit is
    written to the results store as it ends and, with ``--resume``, the units stored are
    not run again.
    """
    from ._store import store_recorder

    recorder = store_recorder(args, provenance, units)
    if recorder is None:
        recorder = Recorder()
        recorder.start(provenance, units)
    return recorder
