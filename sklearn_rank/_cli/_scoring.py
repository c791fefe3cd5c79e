"""Where ``cv`` and ``tune`` send their units of work: the recorder of a run.

The runner, the units and their results live in :mod:`sklearn_rank.benchmark`; the command
line chooses the :class:`~sklearn_rank.benchmark.Recorder` from its options.
"""

from ..benchmark import Recorder

__all__ = ["CommandRecorder", "Recorder", "recorder_for"]


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


class CommandRecorder(Recorder):
    """The recorder of a command's options, for ``run_benchmark(store=...)``: chosen by
    :func:`recorder_for` when the run starts, from the run's provenance and units (the
    store records what the command ran; ``--plot`` needs the stored predictions)."""

    def __init__(self, args):
        self.args = args
        self.chosen = None

    def start(self, provenance, units):
        self.chosen = recorder_for(self.args, provenance, units)

    def known(self, unit, params):
        return self.chosen.known(unit, params)

    def record(self, result):
        self.chosen.record(result)

    def finish(self):
        self.chosen.finish()

    def close(self):
        """Close the store of a run that failed, without marking it finished."""
        if callable(getattr(self.chosen, "close", None)):
            self.chosen.close()
