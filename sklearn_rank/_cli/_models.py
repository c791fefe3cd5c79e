"""The one table of the models the command line trains: name -> how to build it.

``cv --models`` and ``tune --model`` choose from :data:`MODELS`; each entry builds an unfitted
estimator and holds the default search space of ``tune``. The boosters are imported only when
a model is built.
"""

import contextlib
import importlib
import inspect
import os
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass

import numpy as np

from ._common import CLIError, close_matches, usage_error

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


# ----------------------------------------------------------------------------------------
# The boosters' own output, and the parameters they refuse


class _Collector:
    """A LightGBM logger that keeps the native log lines instead of printing them."""

    def __init__(self):
        self.messages = []

    def info(self, message):
        self.messages.append(str(message))

    warning = info


@contextlib.contextmanager
def quiet_boosters():
    """Keep LightGBM's native log lines (``[LightGBM] [Fatal] ...``) off the output.

    The error that follows a fatal line is raised as an exception, which the command line
    prints as its one-line error; the line itself would only repeat it, on stdout. Yields
    the list of the lines logged meanwhile. The previous logger is restored on exit.
    """
    collector = _Collector()
    lightgbm = sys.modules.get("lightgbm")
    basic = getattr(lightgbm, "basic", None)
    if basic is None or not hasattr(basic, "_LOGGER"):
        yield collector.messages
        return
    previous = (basic._LOGGER, getattr(basic, "_INFO_METHOD_NAME", "info"),
                getattr(basic, "_WARNING_METHOD_NAME", "warning"))
    lightgbm.register_logger(collector)
    try:
        yield collector.messages
    finally:
        lightgbm.register_logger(*previous)


def silence_lightgbm():
    """Keep LightGBM's native log lines off the output of this process, for good.

    For the worker processes of ``--n-jobs``, which exist only for the command's fits.
    """
    try:
        import lightgbm
    except ImportError:
        return
    lightgbm.register_logger(_Collector())


@contextlib.contextmanager
def native_stderr_hidden():
    """Send what C code writes on the standard error (file descriptor 2) to nowhere.

    LightGBM writes ``[LightGBM] [Fatal] ...`` there itself before it raises the error that
    the command line reports in one line. Python's own ``sys.stderr`` (progress, warnings)
    keeps its destination: when it writes to descriptor 2, it is moved to a copy of it.
    """
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no descriptor 2 (an embedded interpreter)
        yield
        return
    swapped = None
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            try:
                on_fd2 = sys.stderr.fileno() == 2
            except (AttributeError, OSError, ValueError):  # a capture, a StringIO
                on_fd2 = False
            if on_fd2:
                swapped = sys.stderr
                sys.stderr = os.fdopen(os.dup(saved), "w", buffering=1,
                                       encoding=swapped.encoding, errors=swapped.errors)
            yield
        finally:
            if swapped is not None:
                sys.stderr.close()
                sys.stderr = swapped
            os.dup2(saved, 2)
            os.close(saved)


@contextlib.contextmanager
def boosters_quiet():
    """:func:`quiet_boosters` and :func:`native_stderr_hidden` at once."""
    with native_stderr_hidden(), quiet_boosters() as lines:
        yield lines


# What the boosters say of a parameter they ignore instead of refusing it, and why, by name.
_IGNORED = (
    (re.compile(r"Unknown parameter:?\s*(?P<names>\S+)"), "it is not one of its parameters"),
    (re.compile(r"(?P<kept>\S+) is set=\S*, (?P<names>\S+)=\S* will be ignored"),
     "it is an alias of {kept}, which the model sets already: search {kept} instead"),
    (re.compile(r"Parameters: \{(?P<names>.*?)\} (?:are|is) not used", re.DOTALL),
     "it is not one of its parameters"),
)


def _fit_args(estimator, qid):
    return {"qid": qid} if "qid" in inspect.signature(estimator.fit).parameters else {}


def _trial_fit(estimator, X, y, qid):
    """Fit once, quietly; returns {name: why} of the parameters the booster ignored."""
    with boosters_quiet() as lines, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y, **_fit_args(estimator, qid))
    ignored = {}
    for text in [*lines, *(str(w.message) for w in caught)]:
        for pattern, why in _IGNORED:
            for match in pattern.finditer(text):
                for name in match.group("names").split(","):
                    name = name.strip().strip('"').strip()
                    if name:
                        ignored[name] = why.format(**match.groupdict())
    return ignored


def _trial_values(param):
    """The values of a ``--param`` to try: every listed value, or a distribution's bounds."""
    if param.distribution is None:
        return list(param.values)
    low, high = param.distribution.support()
    if param.distribution.dist.name == "randint":
        return [int(low), int(high)]
    return [float(low), float(high)]


def check_params(model, estimator, params, data):
    """Refuse, before the search, a parameter value or name that the model refuses.

    Each value of each ``--param`` (the bounds of a distribution) is fitted alone, with two
    trees, on the first three queries of the data: an error, or a parameter the booster says
    it ignores, is a usage error naming the option. The booster's own log lines stay hidden.
    A fit without any ``--param`` comes first, so that an error of the data is reported as
    one.

    Raises
    ------
    CLIError
        Exit code 2 for a refused parameter, 1 when the data cannot be fitted at all.
    """
    from sklearn.base import clone

    from ..utils._qid import unique_ids

    first = unique_ids(data.qid)[:3]
    rows = np.flatnonzero(np.isin(data.qid, first))
    X, y, qid = data.X[rows], data.y[rows], data.qid[rows]
    base = clone(estimator).set_params(n_estimators=2)
    if "verbose" in base.get_params():
        base.set_params(verbose=0)  # LightGBM names unknown parameters only at this level
    name = type(estimator).__name__
    try:
        _trial_fit(clone(base), X, y, qid)
    except Exception as exc:  # any failure of the plain model is the data's
        raise CLIError(f"{data.source}: {name} cannot fit the first queries of the data: "
                       f"{exc}") from None
    known = set(estimator.get_params())
    for param in params.values():
        for value in _trial_values(param):
            trial = clone(base).set_params(**{param.name: value})
            try:
                ignored = _trial_fit(trial, X, y, qid)
            except Exception as exc:  # the plain model fitted: the value fails
                raise usage_error(f"--param {param.text!r}: {name} refuses {param.name}="
                                  f"{value!r}: {exc}") from None
            if param.name in ignored:
                raise usage_error(
                    f"--param {param.text!r}: {model.library} would ignore {param.name!r} in "
                    f"{name}: {ignored[param.name]}.{close_matches(param.name, sorted(known))}"
                )
