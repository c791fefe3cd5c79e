"""The one table of the models the command line trains: name -> how to build it.

``cv --models`` and ``tune --model`` choose from :data:`MODELS`; each entry builds an unfitted
estimator and holds the default search space of ``tune``. The boosters are imported only when
a model is built.
"""

import importlib
from dataclasses import dataclass

from ._common import CLIError

# Every model trains on one thread: on data of this size it is about as fast, and it does not
# slow down tenfold when other processes keep the cores busy (OpenMP threads spin while they
# wait). --n-jobs parallelises over folds or candidates instead, in separate processes.
N_THREADS = 1
# Comparable capacity: at most 15 leaves for LightGBM, depth 4 (at most 16 leaves) for XGBoost.
_NUM_LEAVES = 15
_MAX_DEPTH = 4
_LEARNING_RATE = 0.1


@dataclass(frozen=True)
class Model:
    """A model of the command line.

    Attributes
    ----------
    name : str
        Its name in ``--models`` and the results tables.
    estimator : str
        The class it builds, for the output.
    summary : str
        What it optimises, for ``--help`` and the output.
    library : str
        The module it needs.
    extra : str or None
        The sklearn-rank extra that installs ``library``; None for a core dependency.
    build : callable
        ``build(n_estimators, random_state)`` -> an unfitted estimator.
    grid : tuple of str
        Default ``--param`` options of ``tune --search grid``.
    distributions : tuple of str
        Default ``--param`` options of ``tune --search random``.
    error : str, default=""
        ``"module.Class"`` of the exception the library raises on parameters or data it
        refuses, besides ``ValueError``: a user error, reported in one line.
    """

    name: str
    estimator: str
    summary: str
    library: str
    extra: object
    build: object
    grid: tuple
    distributions: tuple
    error: str = ""

    def available(self):
        """Whether its library imports."""
        try:
            importlib.import_module(self.library)
        except ImportError:
            return False
        return True

    def make(self, n_estimators, random_state, option):
        """The unfitted estimator, or a :class:`CLIError` naming the extra to install."""
        if not self.available():
            how = (f'pip install "sklearn-rank[{self.extra}]"' if self.extra
                   else "pip install sklearn-rank (a core dependency is missing)")
            raise CLIError(f"{option} {self.name} needs {self.library}, which is not "
                           f"installed. Install it with: {how}")
        return self.build(n_estimators, random_state)


def _pointwise(n_estimators, random_state):
    from lightgbm import LGBMRegressor

    # The same trees as lambdarank, fitted to the grades by least squares: the comparison
    # isolates the objective. LightGBM also takes the sparse matrices of SVMlight files.
    return LGBMRegressor(n_estimators=n_estimators, learning_rate=_LEARNING_RATE,
                         num_leaves=_NUM_LEAVES, random_state=random_state,
                         n_jobs=N_THREADS, verbose=-1)


def _lambdarank(n_estimators, random_state):
    from ..lightgbm import LGBMRanker

    return LGBMRanker(objective="lambdarank", n_estimators=n_estimators,
                      learning_rate=_LEARNING_RATE, num_leaves=_NUM_LEAVES,
                      random_state=random_state, n_jobs=N_THREADS, verbose=-1)


def _xgboost(n_estimators, random_state):
    from ..xgboost import XGBRanker

    return XGBRanker(objective="rank:ndcg", n_estimators=n_estimators,
                     learning_rate=_LEARNING_RATE, max_depth=_MAX_DEPTH, tree_method="hist",
                     random_state=random_state, n_jobs=N_THREADS)


_LIGHTGBM_GRID = ("num_leaves=7,15,31", "learning_rate=0.05,0.1")
_LIGHTGBM_DISTRIBUTIONS = ("num_leaves=randint(7,63)", "learning_rate=loguniform(0.01,0.3)",
                           "min_child_samples=randint(5,50)")

MODELS = {
    model.name: model
    for model in (
        Model("pointwise", "LGBMRegressor", "least-squares regression on the grades",
              "lightgbm", None, _pointwise, _LIGHTGBM_GRID, _LIGHTGBM_DISTRIBUTIONS,
              "lightgbm.basic.LightGBMError"),
        Model("lambdarank", "LGBMRanker", "LightGBM LambdaRank (nDCG)",
              "lightgbm", None, _lambdarank, _LIGHTGBM_GRID, _LIGHTGBM_DISTRIBUTIONS,
              "lightgbm.basic.LightGBMError"),
        Model("xgboost", "XGBRanker", "XGBoost rank:ndcg",
              "xgboost", "xgboost", _xgboost,
              ("max_depth=3,4,6", "learning_rate=0.05,0.1"),
              ("max_depth=randint(2,8)", "learning_rate=loguniform(0.01,0.3)",
               "min_child_weight=loguniform(0.1,10)"),
              "xgboost.core.XGBoostError"),
    )
}


def fit_errors(names):
    """The exceptions that fitting the models ``names`` raises on what a user gave them."""
    errors = [ValueError, TypeError]
    for name in names:
        module, _, cls = MODELS[name].error.rpartition(".")
        if module:
            errors.append(getattr(importlib.import_module(module), cls))
    return tuple(errors)


def default_models():
    """The models ``cv`` compares by default: all whose library imports, and those left out.

    The pointwise regressor comes first: it is the baseline the ranking objectives are
    tested against. XGBoost is an optional dependency, compared when installed.
    """
    chosen = [m.name for m in MODELS.values() if m.available()]
    missing = [m for m in MODELS.values() if not m.available()]
    return chosen, missing


def describe(name):
    """``"lambdarank = LGBMRanker, LightGBM LambdaRank (nDCG)"``, for the output."""
    model = MODELS[name]
    return f"{name} = {model.estimator}, {model.summary}"
