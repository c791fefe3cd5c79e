"""The scorers of ``sklearn-rank cv`` and ``tune``: quiet in worker processes, and progress.

In a module of its own, imported when the work starts, so that the command line's other
modules (and ``sklearn-rank --help``) do not load scikit-learn.
"""

from ..metrics._scorer import RankingScorer


class QuietScorer(RankingScorer):
    """A ranking scorer that, unpickled in a worker process of ``--n-jobs``, keeps
    LightGBM's native log lines off that process's output, as the command line does in its
    own process. It scores as :func:`~sklearn_rank.metrics.make_ranking_scorer` does."""

    def __setstate__(self, state):
        from ._models import silence_lightgbm

        self.__dict__.update(state)
        silence_lightgbm()


class ProgressScorer:
    """A scorer that calls ``callback()`` after each score of ``scorer``.

    A plain scorer callable, ``scorer(estimator, X, y, **metadata)``, that routes the
    metadata ``scorer`` asks for: scikit-learn's searches call it once per fit. The
    callback is passed explicitly: for one process only (``--n-jobs 1``), since a worker
    process would advance its own copy.
    """

    def __init__(self, scorer, callback):
        self.scorer = scorer
        self.callback = callback

    def __call__(self, estimator, X, y_true, **kwargs):
        score = self.scorer(estimator, X, y_true, **kwargs)
        self.callback()
        return score

    def get_metadata_routing(self):
        return self.scorer.get_metadata_routing()
