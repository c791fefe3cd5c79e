"""The scorer of ``sklearn-rank tune`` that reports the search's progress.

In a module of its own, imported when the search runs, so that the command line's other
modules (and ``sklearn-rank --help``) do not load scikit-learn.
"""

from ..metrics._scorer import RankingScorer

# Called by the scorer after each fit's test score, when set: the progress of the search.
# A module attribute, not a scorer attribute, so that the scorer stays picklable for the
# worker processes of --n-jobs (where it is unset: progress is shown with one process only).
on_score = None


class ProgressScorer(RankingScorer):
    """A ranking scorer that reports each score it computes to :data:`on_score`.

    Unpickled in a worker process of ``--n-jobs``, it also keeps LightGBM's native log lines
    off that process's output, as the command line does in its own process.
    """

    def __setstate__(self, state):
        from ._models import silence_lightgbm

        self.__dict__.update(state)
        silence_lightgbm()

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        score = super()._score(method_caller, estimator, X, y_true, **kwargs)
        if on_score is not None:
            on_score()
        return score
