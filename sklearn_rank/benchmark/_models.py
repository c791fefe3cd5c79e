"""The model catalogue of benchmark runs, and ``MODULE:CLASS`` loading.

:data:`MODELS` is the table of built-in models (each entry builds an unfitted estimator and
holds the default search space of a search); :func:`import_object` imports a
``MODULE:CLASS``, :func:`build_model` builds a built-in model or a ``MODULE:CLASS`` with
parameters, and :func:`code_fingerprint` fingerprints its code for a results store's unit
keys. :func:`check_models` checks the models of a run against its data before the work, with
trial fits of their parameters. :func:`boosters_quiet` keeps the boosters' native log lines
off the output. The boosters and user modules are imported only when a model is built.
"""

import contextlib
import difflib
import importlib
import inspect
import numbers
import os
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass

__all__ = ["MODELS", "Model", "ModelCheckError", "ModelCheckWarning", "ModelImportError",
           "boosters_quiet", "build_model", "check_models", "code_fingerprint", "fit_params",
           "ignored_params", "import_object", "quiet_boosters", "silence_lightgbm"]

# Every model trains on one thread: on data of this size it is about as fast, and it does not
# slow down tenfold when other processes keep the cores busy (OpenMP threads spin while they
# wait). --n-jobs parallelises over folds or candidates instead, in separate processes.
N_THREADS = 1
# Comparable capacity: at most 15 leaves for LightGBM, depth 4 (at most 16 leaves) for XGBoost
# and CatBoost.
_NUM_LEAVES = 15
_MAX_DEPTH = 4
_LEARNING_RATE = 0.1


@dataclass(frozen=True)
class Model:
    """A built-in model of a benchmark run (and of the command line's ``--model``).

    Attributes
    ----------
    name : str
        Its name in ``--model``, ``--models`` and the results tables.
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
    default : bool, default=True
        Whether ``cv`` compares it when no model is named.
    aliases : tuple of tuple of str, default=()
        Groups of parameter names that set the same thing (CatBoost's ``iterations`` and
        ``n_estimators``): a ``--set`` of one unsets the others that ``build`` set.
    trees : str or None, default="n_estimators"
        The parameter of the number of trees, which the trial fits set to 2.
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
    default: bool = True
    aliases: tuple = ()
    trees: object = "n_estimators"

    def available(self):
        """Whether its library imports."""
        try:
            importlib.import_module(self.library)
        except ImportError:
            return False
        return True

    def errors(self):
        """The exceptions that fitting it raises on parameters or data it refuses.

        :class:`ValueError`, :class:`TypeError` and the library's own exception class
        (:attr:`error`, imported now): a runner reports them as the user's error, in one
        line, and lets any other exception (a bug) travel with its traceback.

        Returns
        -------
        errors : tuple of type

        Raises
        ------
        ImportError
            When its library is not installed (see :meth:`available`).

        Examples
        --------
        >>> from sklearn_rank.benchmark import MODELS
        >>> [error.__name__ for error in MODELS["lambdarank"].errors()]
        ['ValueError', 'TypeError', 'LightGBMError']
        """
        errors = [ValueError, TypeError]
        if self.error:
            module, _, name = self.error.rpartition(".")
            errors.append(getattr(importlib.import_module(module), name))
        return tuple(errors)


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


def _catboost(n_estimators, random_state):
    from ..catboost import CatBoostRanker

    # no catboost_info/ folder in the working directory, no log lines
    return CatBoostRanker(iterations=n_estimators, learning_rate=_LEARNING_RATE,
                          depth=_MAX_DEPTH, random_seed=random_state, thread_count=N_THREADS,
                          verbose=0, allow_writing_files=False)


_LIGHTGBM_GRID = ("num_leaves=7,15,31", "learning_rate=0.05,0.1")
_LIGHTGBM_DISTRIBUTIONS = ("num_leaves=randint(7,63)", "learning_rate=loguniform(0.01,0.3)",
                           "min_child_samples=randint(5,50)")
_LIGHTGBM_ERROR = "lightgbm.basic.LightGBMError"

MODELS = {
    model.name: model
    for model in (
        Model("pointwise", "LGBMRegressor", "least-squares regression on the grades",
              "lightgbm", None, _pointwise, _LIGHTGBM_GRID, _LIGHTGBM_DISTRIBUTIONS,
              _LIGHTGBM_ERROR),
        Model("lambdarank", "LGBMRanker", "LightGBM LambdaRank (nDCG)",
              "lightgbm", None, _lambdarank, _LIGHTGBM_GRID, _LIGHTGBM_DISTRIBUTIONS,
              _LIGHTGBM_ERROR),
        Model("lightgbm", "LGBMRanker", "LightGBM LambdaRank (nDCG)",
              "lightgbm", None, _lambdarank, _LIGHTGBM_GRID, _LIGHTGBM_DISTRIBUTIONS,
              _LIGHTGBM_ERROR, default=False),
        Model("xgboost", "XGBRanker", "XGBoost rank:ndcg",
              "xgboost", "xgboost", _xgboost,
              ("max_depth=3,4,6", "learning_rate=0.05,0.1"),
              ("max_depth=randint(2,8)", "learning_rate=loguniform(0.01,0.3)",
               "min_child_weight=loguniform(0.1,10)"),
              "xgboost.core.XGBoostError"),
        Model("catboost", "CatBoostRanker", "CatBoost YetiRank",
              "catboost", "catboost", _catboost,
              ("depth=4,6", "learning_rate=0.05,0.1"),
              ("depth=randint(2,8)", "learning_rate=loguniform(0.01,0.3)",
               "l2_leaf_reg=loguniform(1,10)"),
              "_catboost.CatBoostError", default=False,
              aliases=(("iterations", "n_estimators", "num_boost_round", "num_trees"),
                       ("random_seed", "random_state"), ("learning_rate", "eta"),
                       ("depth", "max_depth")),
              trees="iterations"),
    )
}


class ModelImportError(ValueError):
    """A ``MODULE:CLASS`` that cannot be imported: its message says what is missing.

    Attributes
    ----------
    spec : str
        The ``MODULE:CLASS`` given.
    """

    def __init__(self, message, spec):
        super().__init__(message)
        self.spec = spec


def _close_matches(name, known):
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f" Did you mean {' or '.join(map(repr, close))}?" if close else ""


def import_object(spec):
    """Import ``MODULE:NAME`` (``NAME`` may be dotted); a :class:`ModelImportError` names
    what is missing.

    A module of the current folder comes first, as ``python -m`` finds it, so that
    ``--model mymodels:Ranker`` finds ``mymodels.py`` where the command runs. Only that
    module is taken from there: the folder goes behind the installed libraries on the
    Python path, so that a ``lightgbm.py`` lying there never stands in for the library.

    Parameters
    ----------
    spec : str
        ``MODULE:NAME``, e.g. ``"sklearn.linear_model:Ridge"``.

    Returns
    -------
    obj : callable
        The class (or other callable) named.

    Raises
    ------
    ModelImportError
        The module is missing or fails as it is imported, or has no such name, or the name
        is not callable.

    Examples
    --------
    >>> from sklearn_rank.benchmark import import_object
    >>> import_object("sklearn.linear_model:Ridge")
    <class 'sklearn.linear_model._ridge.Ridge'>
    """
    module_name, _, attribute = (part.strip() for part in spec.partition(":"))
    if not module_name or not attribute:
        raise ModelImportError("expected MODULE:CLASS, e.g. sklearn.linear_model:Ridge.", spec)
    here = os.getcwd()
    try:
        module = _import_module(module_name, here)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            raise ModelImportError(
                f"no module named {missing!r} (searched in the current folder "
                f"{here!r} and on the Python path).", spec) from None
        raise ModelImportError(f"importing {module_name!r} failed: it needs the module "
                               f"{missing!r}, which is not installed.", spec) from None
    except Exception as exc:  # the user's module fails as it runs: say how
        raise ModelImportError(f"importing {module_name!r} failed: "
                               f"{type(exc).__name__}: {exc}", spec) from None
    found = module
    for i, part in enumerate(attribute.split(".")):
        if not hasattr(found, part):
            owner = ".".join([module_name, *attribute.split(".")[:i]])
            names = sorted(n for n in dir(found) if not n.startswith("_")
                           and isinstance(getattr(found, n, None), type))
            listed = f" Its classes: {', '.join(names)}." if 0 < len(names) <= 40 else ""
            raise ModelImportError(f"the module {owner!r} has no attribute {part!r}."
                                   f"{_close_matches(part, names)}{listed}", spec)
        found = getattr(found, part)
    if not callable(found):
        raise ModelImportError(f"{attribute!r} is a {type(found).__name__}, not a class.",
                               spec)
    return found


def _import_module(name, folder):
    """``importlib.import_module(name)``, where a top-level module of ``folder`` comes
    first, as ``python -m`` would find it. Only that module is taken from the folder: it is
    loaded from there directly, and the folder goes at the end of ``sys.path`` (for that
    module's own imports of its neighbours, and for the worker processes), behind the
    installed libraries."""
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    top = name.partition(".")[0]
    spec = None if top in sys.modules else PathFinder.find_spec(top, [folder])
    if spec is not None:
        if folder not in sys.path:
            sys.path.append(folder)
        module = module_from_spec(spec)
        sys.modules[top] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[top]
            raise
    return importlib.import_module(name)


def build_model(spec, params=None, *, n_estimators=100, random_state=0, label=None):
    """An unfitted estimator: a built-in model of :data:`MODELS` by name, or a
    ``MODULE:CLASS``, with the parameters ``params`` set.

    A built-in model gets ``n_estimators`` trees and the seed ``random_state``; a parameter
    of a group of aliases (CatBoost's ``iterations`` and ``n_estimators``) unsets the others
    of the group that the model sets. A ``MODULE:CLASS`` is imported (:func:`import_object`),
    called without arguments, checked to be a scikit-learn estimator with something to rank
    by, asked for the query ids in ``fit`` when its ``fit`` takes ``qid`` and its request is
    unset (scikit-learn's metadata routing would otherwise refuse them, or drop them), and
    given the seed as its ``random_state`` when it has one that ``params`` does not set.

    Parameters
    ----------
    spec : str
        A name of :data:`MODELS` (``"lambdarank"``), or ``MODULE:CLASS``
        (``"sklearn.linear_model:Ridge"``).
    params : dict, default=None
        Parameter name -> value, set in order with ``set_params`` (nested names such as
        ``"step__alpha"`` too).
    n_estimators : int, default=100
        The trees of a built-in model.
    random_state : int, default=0
        The seed.
    label : str, default=None
        The model's label in the errors (by default ``spec``).

    Returns
    -------
    estimator : estimator

    Raises
    ------
    ModelImportError
        An unknown name; a built-in model whose library is not installed (the message says
        how to install it); a ``MODULE:CLASS`` that cannot be imported or called, or that is
        no estimator.
    ModelCheckError
        A parameter the estimator does not have (``reason="unknown"``), or a value its
        ``set_params`` refuses (``reason="refused"``), with ``parameter`` and ``value``;
        its ``estimator`` is the estimator before that parameter.

    Examples
    --------
    >>> from sklearn_rank.benchmark import build_model
    >>> build_model("sklearn.linear_model:Ridge", {"alpha": 10.0}, random_state=3)
    Ridge(alpha=10.0, random_state=3)
    >>> build_model("catboost", {"n_estimators": 50}).get_params()["iterations"] is None
    True
    """
    params = dict(params or {})
    label = spec if label is None else label
    model = MODELS.get(spec)
    if model is not None:
        if not model.available():
            how = (f'pip install "sklearn-rank[{model.extra}]"' if model.extra
                   else "pip install sklearn-rank (a core dependency is missing)")
            raise ModelImportError(f"{model.name} needs {model.library}, which is not "
                                   f"installed. Install it with: {how}", spec)
        estimator = model.build(n_estimators, random_state)
        built = estimator.get_params(deep=False)
        for group in model.aliases:  # a parameter of an alias unsets what the model set
            if any(name in params for name in group):
                reset = {n: None for n in group if n not in params and built.get(n) is not None}
                estimator.set_params(**reset)
    elif ":" not in spec:
        raise ModelImportError(
            f"unknown model {spec!r}.{_close_matches(spec, list(MODELS))} Expected one of "
            f"{', '.join(MODELS)}, or MODULE:CLASS to import a scikit-learn estimator class "
            "(e.g. sklearn.linear_model:Ridge).", spec)
    else:
        estimator = _load_estimator(spec)
        if "random_state" in estimator.get_params(deep=False) and "random_state" not in params:
            estimator.set_params(random_state=random_state)
    for name, value in params.items():
        known = estimator.get_params(deep=True)
        try:
            estimator.set_params(**{name: value})
        except (ValueError, TypeError) as exc:
            if name not in known:
                raise ModelCheckError(
                    f"model {label!r}: {type(estimator).__name__} has no parameter {name!r}."
                    f"{_close_matches(name, sorted(known))}", label, estimator, "unknown",
                    parameter=name, value=value, error=exc) from None
            raise ModelCheckError(f"model {label!r}: {type(estimator).__name__} refuses "
                                  f"{name}={value!r}: {exc}", label, estimator, "refused",
                                  parameter=name, value=value, error=exc) from None
    return estimator


def _load_estimator(spec):
    """An unfitted estimator of a ``MODULE:CLASS``: the class imported
    (:func:`import_object`), called without arguments, and checked to be a scikit-learn
    estimator that can rank documents.

    When its ``fit`` takes ``qid`` and its request of the query ids is unset, the query ids
    are requested (``set_fit_request(qid=True)``): otherwise scikit-learn's metadata routing
    would refuse to pass them, or drop them.

    Parameters
    ----------
    spec : str
        ``MODULE:CLASS``, e.g. ``"sklearn.linear_model:Ridge"``.

    Returns
    -------
    estimator : estimator

    Raises
    ------
    ModelImportError
        As :func:`import_object`; and when the call fails, or its result has no ``fit``,
        ``get_params`` or ``set_params``, or nothing to rank by (``predict``,
        ``predict_proba``, ``decision_function``).
    """
    factory = import_object(spec)
    try:
        estimator = factory()
    except Exception as exc:  # the user's class fails as it is built: say how
        raise ModelImportError(f"{spec.rpartition(':')[2]}() failed: "
                               f"{type(exc).__name__}: {exc}", spec) from None
    missing = [m for m in ("fit", "get_params", "set_params") if not hasattr(estimator, m)]
    if missing:
        raise ModelImportError(
            f"{type(estimator).__name__} is not a scikit-learn estimator: it has no "
            f"{', '.join(missing)} (derive it from sklearn.base.BaseEstimator).", spec)
    if not any(hasattr(estimator, m) for m in ("predict", "predict_proba",
                                               "decision_function")):
        raise ModelImportError(f"{type(estimator).__name__} has no predict, predict_proba or "
                               "decision_function to rank documents by.", spec)
    if "qid" in inspect.signature(estimator.fit).parameters and hasattr(estimator,
                                                                        "set_fit_request"):
        import sklearn

        with sklearn.config_context(enable_metadata_routing=True):
            if estimator.get_metadata_routing().fit.requests.get("qid") is None:
                estimator.set_fit_request(qid=True)
    return estimator


def code_fingerprint(spec):
    """The qualified name of a ``MODULE:CLASS`` and the SHA-256 of the source files of its
    class and base classes.

    Part of the units' keys in a results store: a run resumed after the class's code
    changed computes its units again, instead of mixing the folds of two versions. The
    library classes among the bases are hashed as well: editing an installed library
    changes no version number. A class whose module has no file (defined in a Jupyter
    notebook's cell, or by ``exec``) is hashed by its own code: its source when
    :func:`inspect.getsource` finds it, else its functions' bytecode and constants.

    Parameters
    ----------
    spec : str
        ``MODULE:CLASS``, imported with :func:`import_object`.

    Returns
    -------
    fingerprint : dict
        ``{"class": qualified name, "sha256": hex digest}``.

    Raises
    ------
    ModelImportError
        As :func:`import_object`.
    """
    import hashlib

    factory = import_object(spec)
    owners = inspect.getmro(factory) if isinstance(factory, type) else (factory,)
    digest = hashlib.sha256()
    files = []
    for owner in owners:
        module = sys.modules.get(getattr(owner, "__module__", None) or "")
        path = getattr(module, "__file__", None)
        if path is None and module is not None and module.__name__ != "builtins":
            # a class of a notebook cell or of code run by exec: no file to hash, so its
            # own code stands for it (else an edit to it would go unnoticed)
            digest.update(_own_code(owner))
            continue
        if path is None or path in files:  # builtins; a module met already
            continue
        files.append(path)
        try:
            with open(path, "rb") as handle:
                digest.update(handle.read())
        except OSError:  # a module loaded from an archive: its name stands for it
            digest.update(path.encode())
    name = f"{getattr(factory, '__module__', '')}.{getattr(factory, '__qualname__', spec)}"
    return {"class": name, "sha256": digest.hexdigest()}


def _own_code(owner):
    """The bytes that stand for the code of a class (or function) whose module has no file:
    its source when :func:`inspect.getsource` finds it (IPython keeps its cells'), else its
    attributes, each function by its bytecode, constants, names and defaults."""
    try:
        return inspect.getsource(owner).encode()
    except (OSError, TypeError):  # code run by exec, or a cell Python cannot find
        pass
    return repr(_code_of(owner, set())).encode()


def _code_of(value, seen):
    """A picture of ``value`` without memory addresses: what a change to the code changes."""
    import types

    if isinstance(value, (staticmethod, classmethod)):
        return (type(value).__name__, _code_of(value.__func__, seen))
    if isinstance(value, property):
        return ("property", *(_code_of(f, seen) for f in (value.fget, value.fset, value.fdel)))
    if isinstance(value, types.CodeType):
        return ("code", value.co_name, value.co_code, value.co_names, value.co_varnames,
                value.co_freevars, tuple(_code_of(c, seen) for c in value.co_consts))
    if isinstance(value, types.FunctionType):
        return ("function", _code_of(value.__code__, seen),
                _code_of(value.__defaults__, seen), _code_of(value.__kwdefaults__, seen))
    if isinstance(value, type):
        if id(value) in seen:  # a class met already (an attribute naming its own class)
            return ("class", value.__qualname__)
        seen.add(id(value))
        return ("class", value.__qualname__, tuple(b.__qualname__ for b in value.__bases__),
                tuple((name, _code_of(item, seen)) for name, item in sorted(vars(value).items())
                      if name not in ("__dict__", "__weakref__")))
    if isinstance(value, (tuple, list, frozenset, set)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return (type(value).__name__, tuple(_code_of(v, seen) for v in items))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), _code_of(v, seen)) for k, v in value.items()))
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    return type(value).__qualname__  # an object whose repr may hold its address


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
     "it is an alias of {kept}, which the model sets already: use {kept} instead"),
    (re.compile(r"Parameters: \{(?P<names>.*?)\} (?:are|is) not used", re.DOTALL),
     "it is not one of its parameters"),
)


def ignored_params(estimator, X, y, qid):
    """Fit ``estimator`` once, quietly, and name the parameters its booster ignored.

    LightGBM and XGBoost accept a parameter they do not know (``num_leafs=7``), or an alias
    of one set already, and only log that they ignore it: the model is then fitted without
    it, and nothing fails. This fit reads their log lines and warnings instead of showing
    them. Fit a small copy on a few queries (two trees) to check parameters before a run;
    LightGBM names unknown parameters only with ``verbose=0`` or more.

    Parameters
    ----------
    estimator : estimator
        Unfitted; fitted in place, with the query ids when it takes them (asked of
        scikit-learn's metadata routing).
    X, y, qid : array-like
        The training data.

    Returns
    -------
    ignored : dict
        Parameter name -> why its booster ignored it; empty when none was.

    Raises
    ------
    Exception
        Whatever ``fit`` raises: the estimator refused its parameters or the data.

    Examples
    --------
    >>> from sklearn_rank.benchmark import ignored_params
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.lightgbm import LGBMRanker
    >>> X, y, qid = make_ranking(5, random_state=0)
    >>> ignored_params(LGBMRanker(n_estimators=2, num_leafs=7, verbose=0), X, y, qid)
    {'num_leafs': 'it is not one of its parameters'}
    """
    import sklearn

    with boosters_quiet() as lines, warnings.catch_warnings(record=True) as caught, \
            sklearn.config_context(enable_metadata_routing=True):
        warnings.simplefilter("always")
        estimator.fit(X, y, **fit_params(estimator, qid))
    ignored = {}
    for text in [*lines, *(str(w.message) for w in caught)]:
        for pattern, why in _IGNORED:
            for match in pattern.finditer(text):
                for name in match.group("names").split(","):
                    name = name.strip().strip('"').strip()
                    if name:
                        ignored[name] = why.format(**match.groupdict())
    return ignored


def fit_params(estimator, qid):
    """``{"qid": qid}`` when the estimator takes the query ids in ``fit``, else ``{}``.

    Asked of scikit-learn's metadata routing, so that a pipeline whose steps request the
    query ids gets them as well as a ranker does. Call ``fit`` with routing enabled.
    """
    import sklearn
    from sklearn.utils.metadata_routing import get_routing_for_object

    with sklearn.config_context(enable_metadata_routing=True):
        wants = get_routing_for_object(estimator).consumes("fit", ["qid"])
    return {"qid": qid} if wants else {}




# ----------------------------------------------------------------------------------------
# What a run checks of its models before the work: sparse input, rankability


def _takes_sparse(estimator):
    """Whether scikit-learn's tags say ``estimator`` takes sparse input; None when it has
    no tags (not derived from ``BaseEstimator``): it is then given the data as read."""
    from sklearn.utils import get_tags

    try:
        return get_tags(estimator).input_tags.sparse
    except AttributeError:
        return None


def _memory_available():
    """Bytes of memory this machine can give now without swapping; None if unknown."""
    try:
        with open("/proc/meminfo") as lines:
            for line in lines:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def _size(nbytes):
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:,.1f} {unit}"
    return f"{nbytes} bytes"


@dataclass(frozen=True)
class _DenseCopy:
    """The dense copy of sparse features that the models without sparse input need: the
    attributes are those :func:`check_models` documents of what it returns."""

    @property
    def sizes(self):
        """``{"dense": "24.0 TB", "sparse": "3.1 kB", "available": "8.2 GB"}``: the sizes
        as the messages print them (``available`` None when unknown)."""
        return {"dense": _size(self.nbytes), "sparse": _size(self.sparse_nbytes),
                "available": None if self.available is None else _size(self.available)}

    labels: tuple
    classes: str
    shapes: tuple
    nbytes: int
    sparse_nbytes: int
    available: object


class ModelCheckError(ValueError):
    """A model of a run that cannot work on its data, found before the work starts
    (:func:`check_models`).

    Attributes
    ----------
    label : str
        The model's label.
    estimator : estimator
        The model.
    reason : {"unrankable", "memory", "parameters", "refused", "ignored", "unknown", "data"}
        ``"unrankable"``: a classifier without ``predict_proba`` on more than two grades;
        ``"memory"``: a model without sparse input whose dense copy of the sparse features
        would not fit in the memory available; ``"parameters"``: a parameter that
        scikit-learn's validation refuses (:func:`run_benchmark`). Found by the trial fits
        of :func:`check_models`: ``"refused"``, a parameter value the model refuses (its
        ``set_params`` or ``fit`` fails); ``"ignored"``, a parameter its booster says it
        ignores (:func:`ignored_params`); ``"unknown"``, a searched parameter the model does
        not have; ``"data"``, the model fails on the first queries of the data even
        without the parameters tried: the data, not a parameter, is at fault.
    parameter : str or None
        The parameter at fault (``"refused"``, ``"ignored"``, ``"unknown"``); None when the
        parameters tried fail only together.
    value : object
        Its value (None when ``parameter`` is None).
    searched : bool
        Whether ``parameter`` is one of the searched parameters (``search``) rather than
        one set on the model (``params``).
    why : str or None
        Why the booster ignores the parameter (``"ignored"``): ``"it is not one of its
        parameters"``...
    error : Exception or None
        What the trial fit raised (``"refused"``, ``"data"``).
    source : str or None
        The data set whose grades the classifier cannot rank (``"unrankable"``), or whose
        first queries the model cannot fit (``"data"``).
    n_grades : int or None
        Its number of distinct grades (``"unrankable"``).
    dense : object or None
        What :func:`check_models` returns, the dense copy refused (``"memory"``).
    """

    def __init__(self, message, label, estimator, reason, *, source=None, n_grades=None,
                 dense=None, parameter=None, value=None, searched=False, why=None,
                 error=None):
        super().__init__(message)
        self.label, self.estimator, self.reason = label, estimator, reason
        self.source, self.n_grades, self.dense = source, n_grades, dense
        self.parameter, self.value, self.searched = parameter, value, searched
        self.why, self.error = why, error


class ModelCheckWarning(UserWarning):
    """A model of a run that works, but ranks by what is no relevance (:func:`check_models`).

    Attributes
    ----------
    label : str
        The model's label.
    estimator : estimator
        The model.
    reason : {"kind"}
        ``"kind"``: by scikit-learn's tags, the model is neither a regressor, a classifier
        nor a ranker (``KMeans``, ``IsolationForest``): the documents are ranked by what it
        predicts, which is no relevance score.
    estimator_type : str
        Its type by the tags: ``"clusterer"``, ``"outlier_detector"``,
        ``"density_estimator"`` or ``"transformer"``.
    predictions : str
        What it predicts: ``"cluster labels"``...
    """

    def __init__(self, message, label, estimator, reason, *, estimator_type, predictions):
        super().__init__(message)
        self.label, self.estimator, self.reason = label, estimator, reason
        self.estimator_type, self.predictions = estimator_type, predictions


# scikit-learn's estimator types whose predictions are no relevance: cluster labels,
# inlier/outlier labels, densities.
_NOT_RANKING = {"clusterer": "cluster labels", "outlier_detector": "inlier/outlier labels",
                "density_estimator": "densities", "transformer": "transformed features"}


def _warn_kinds(models):
    """A :class:`ModelCheckWarning` for each model that is neither a regressor, a classifier
    nor a ranker by scikit-learn's tags (classes without a type, as most rankers are, pass)."""
    for label, estimator in models.items():
        try:
            kind = estimator.__sklearn_tags__().estimator_type
        except Exception:  # an estimator outside scikit-learn's tags
            kind = getattr(estimator, "_estimator_type", None)
        if kind not in _NOT_RANKING:
            continue
        what = kind.replace("_", " ")
        article = "an" if what[0] in "aeiou" else "a"
        warnings.warn(ModelCheckWarning(
            f"model {label!r}: {type(estimator).__name__} is {article} {what}, neither a "
            f"regressor, a classifier nor a ranker: the documents are ranked by its "
            f"{_NOT_RANKING[kind]}, which are no relevance scores. Use a regressor, a "
            "classifier or a ranker, such as sklearn.linear_model.Ridge.", label, estimator,
            "kind", estimator_type=kind, predictions=_NOT_RANKING[kind]), stacklevel=3)


def check_parameters(models):
    """Refuse, before any work, a model whose parameters scikit-learn's validation refuses.

    Each model and every estimator among its parameters (the steps of a pipeline...) that
    declares scikit-learn's parameter constraints is checked as its ``fit`` would check it.
    Inside ``cross_validate`` the error would come from every fold, worded with the name
    ``cross_validate`` and not the model's.

    Raises
    ------
    ModelCheckError
        ``reason="parameters"``, naming the model's label and scikit-learn's message.
    """
    from ..utils._sklearn_internals import param_validation, validate_estimator_params

    for label, estimator in models.items():
        params = estimator.get_params(deep=True) if hasattr(estimator, "get_params") else {}
        parts = [estimator, *(value for value in params.values()
                              if hasattr(value, "get_params") and not isinstance(value, type))]
        for part in parts:
            try:
                validate_estimator_params(part)
            except param_validation.InvalidParameterError as exc:
                raise ModelCheckError(f"model {label!r}: {exc}", label, estimator,
                                      "parameters") from None


def check_models(models, datasets, *, test=None, params=None, search=None):
    """Check the models of a run against its data before the work, and say which need
    dense features.

    A classifier without ``predict_proba`` (``LinearSVC``) cannot rank more than two
    grades: it is ranked by its expected grade, and every fold would fail. A model that
    takes no sparse input by scikit-learn's tags (``HistGradientBoostingRegressor``, a
    pipeline starting with ``StandardScaler()``) fails deep inside scikit-learn on the
    sparse matrix of an SVMlight file: it is given a dense copy of the features instead
    (the data set's ``densified()``, made once for all such models), unless the copy would
    not fit in the memory available. :func:`run_benchmark` applies it.

    Then the parameters are tried in small fits (two trees of a booster, on the first three
    queries of the first data set), the boosters' log lines kept off the output: a value
    the model refuses fails in every fold, and a parameter that LightGBM or XGBoost ignore
    (``num_leafs=7``, an alias of a parameter set already) leaves a model that is not the
    one asked for, with no error at all (:func:`ignored_params`). The parameters set on a
    model (``params``) are fitted together; when that fails or one is ignored, each alone,
    so that the error names the one at fault, after a fit without them that tells a fault
    of the data from one of the parameters. Each searched value (``search``) is fitted
    alone on the model as it is.

    Parameters
    ----------
    models : dict of str to estimator
        Model label -> unfitted estimator.
    datasets : list of (str, data set)
        ``(name, data)`` of the data sets the models are fitted on, data sets as
        :func:`run_benchmark` takes them (with ``X``, ``y`` and, for messages, ``source``).
    test : list of (str, data set), default=None
        Further data sets the models are only scored on: checked for the dense copy.
    params : dict of str to list of str, default=None
        Model label -> the names of the parameters set on it, to try (a label left out
        tries none). None tries, for each model of a booster library (LightGBM, XGBoost,
        CatBoost, or a class derived from theirs), the parameters that differ from its
        class's defaults and those its class does not name (its keyword arguments): what
        :func:`run_benchmark` checks. The boosters take any parameter when built and only
        log what they ignore; scikit-learn's estimators refuse a wrong one as they are fitted
        (:func:`run_benchmark` validates them without a fit), and their fits are not made
        small here. A parameter tried is taken away by setting it back to its class's
        default, or leaving it out when the class does not name it.
    search : dict of str to dict, default=None
        Model label -> the space of a search of its parameters, as scikit-learn's
        ``GridSearchCV`` and ``RandomizedSearchCV`` take it (name -> list of values, or a
        scipy distribution): each value of a list, or the finite bounds of a distribution,
        is tried.

    Returns
    -------
    dense : object or None
        None when no model needs a dense copy; else an object with the attributes
        ``labels`` (the models that take no sparse input, in order), ``classes`` (their
        classes, one string), ``shapes`` (``(name, rows, features)`` of each sparse data
        set), ``nbytes`` and ``sparse_nbytes`` (the sizes of the dense copy and of the
        sparse features) and ``available`` (the bytes of memory available, None if
        unknown), and ``sizes``, the three as text (``{"dense": "24.0 TB", ...}``).

    Raises
    ------
    ModelCheckError
        For the first model that cannot work, with its label, the reason and, for a
        parameter, its name and value.

    Warns
    -----
    ModelCheckWarning
        For a model that is neither a regressor, a classifier nor a ranker
        (``reason="kind"``).

    Examples
    --------
    A model without sparse input, on sparse features:

    >>> from scipy.sparse import csr_matrix
    >>> from sklearn.ensemble import HistGradientBoostingRegressor
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank.benchmark import check_models
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, qid = make_ranking(10, random_state=0)
    >>> models = {"ridge": Ridge(), "hgb": HistGradientBoostingRegressor()}
    >>> check_models(models, [("data", (csr_matrix(X), y, qid))]).labels
    ('hgb',)
    >>> print(check_models(models, [("data", (X, y, qid))]))
    None

    A parameter that LightGBM would ignore, misspelt:

    >>> from sklearn_rank.benchmark import ModelCheckError
    >>> from sklearn_rank.lightgbm import LGBMRanker
    >>> try:
    ...     check_models({"lgbm": LGBMRanker(num_leafs=7)}, [("data", (X, y, qid))])
    ... except ModelCheckError as exc:
    ...     error = exc
    >>> error.label, error.reason, error.parameter, error.value
    ('lgbm', 'ignored', 'num_leafs', 7)
    >>> error.why
    'it is not one of its parameters'
    """
    import numpy as np
    from sklearn.base import is_classifier

    def source_of(name, data):
        return str(getattr(data, "source", name))

    for name, data in datasets:
        n_grades = len(np.unique(data[1] if isinstance(data, tuple) else data.y))
        if n_grades <= 2:
            continue
        for label, estimator in models.items():
            if is_classifier(estimator) and not hasattr(estimator, "predict_proba"):
                source = source_of(name, data)
                raise ModelCheckError(
                    f"model {label!r}: {type(estimator).__name__} is a classifier without "
                    f"predict_proba, and the grades of {source} take {n_grades} values: a "
                    "classifier of several grades is ranked by its expected grade, which "
                    "needs predict_proba. Use a regressor of the grades (e.g. "
                    "sklearn.svm.LinearSVR), a classifier with predict_proba (e.g. "
                    "sklearn.linear_model.LogisticRegression), or a ranker.",
                    label, estimator, "unrankable", source=source, n_grades=n_grades)
    _warn_kinds(models)
    features = [(name, data[0] if isinstance(data, tuple) else data.X)
                for name, data in [*datasets, *(test or [])] if data is not None]
    sparse = [(name, X) for name, X in features if hasattr(X, "toarray")]
    needing = [label for label, estimator in models.items()
               if _takes_sparse(estimator) is False]
    dense = None if not sparse or not needing else _DenseCopy(
        labels=tuple(needing),
        classes=", ".join(dict.fromkeys(type(models[label]).__name__ for label in needing)),
        shapes=tuple((name, int(X.shape[0]), int(X.shape[1])) for name, X in sparse),
        nbytes=sum(int(X.shape[0]) * int(X.shape[1]) * X.dtype.itemsize for _, X in sparse),
        sparse_nbytes=sum(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
                          for _, X in sparse),
        available=_memory_available())
    if dense is not None and dense.available is not None and dense.nbytes > dense.available:
        label = needing[0]
        shapes = " and ".join(f"{name!r} {rows:,} x {columns:,}"
                              for name, rows, columns in dense.shapes)
        raise ModelCheckError(
            f"model {label!r}: {dense.classes} takes no sparse input (scikit-learn's tags "
            f"say so), and the sparse features of {shapes} would take "
            f"{dense.sizes['dense']} as a dense array, more than the "
            f"{dense.sizes['available']} of memory available ({dense.sizes['sparse']} "
            "sparse). Use a model that takes sparse input (e.g. "
            "sklearn.linear_model.Ridge), or fewer features.",
            label, models[label], "memory", dense=dense)
    name, fitted = next(((n, d) for n, d in datasets if d is not None), (None, None))
    if fitted is not None and (params is None or params or search):
        X, y, qid = _first_queries(fitted)
        source = source_of(name, fitted)
        for label, estimator in models.items():
            if params is None:  # a booster's: scikit-learn's own estimators validate theirs
                names = _changed_params(estimator) if _booster(estimator) else []
            else:
                names = list(dict.fromkeys(params.get(label, ())))
            space = (search or {}).get(label, {})
            if names or space:
                trial = _Trial(label, estimator, source,
                               X.toarray() if dense and label in dense.labels and
                               hasattr(X, "toarray") else X, y, qid)
                trial.check_params(names)
                trial.check_search(space)
    return dense


def _first_queries(data, n=3):
    """``(X, y, qid)`` of the first ``n`` queries (by sorted id) of a data set."""
    import numpy as np

    X, y, qid = data if isinstance(data, tuple) else (data.X, data.y, data.qid)
    qid = np.asarray(qid)
    rows = np.flatnonzero(np.isin(qid, np.unique(qid)[:n]))
    return X[rows], np.asarray(y)[rows], qid[rows]


def _booster(estimator):
    """The catalogue's entry of the booster library (LightGBM, XGBoost, CatBoost) that
    ``estimator``'s class derives from, or None."""
    roots = {str(getattr(cls, "__module__", "")).partition(".")[0]
             for cls in type(estimator).__mro__}
    return next((model for model in MODELS.values() if model.library in roots), None)


def _signature(cls):
    """``(named, defaults)``: the parameters ``cls.__init__`` names, and their defaults."""
    try:
        parameters = inspect.signature(cls.__init__).parameters.values()
    except (TypeError, ValueError):
        return set(), {}
    named = [p for p in parameters if p.name != "self"
             and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    return ({p.name for p in named},
            {p.name: p.default for p in named if p.default is not p.empty})


def _same(a, b):
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # arrays, objects without a truth value: count them as set
        return False


def _changed_params(estimator):
    """The parameters of ``estimator`` that differ from its class's defaults, and those its
    class does not name (a booster's keyword arguments); not those without a default (a
    pipeline's steps), which cannot be taken away."""
    if not hasattr(estimator, "get_params"):
        return []
    named, defaults = _signature(type(estimator))
    return [name for name, value in estimator.get_params(deep=False).items()
            if name not in named or (name in defaults and not _same(value, defaults[name]))]


def _without(estimator, names):
    """A clone of ``estimator`` with the parameters ``names`` taken away: each set back to
    its class's default, or left out when its class does not name it. A parameter without
    a default, or a nested one without, stays as it is."""
    from sklearn.base import clone

    estimator = clone(estimator)
    top = estimator.get_params(deep=False)
    named, _ = _signature(type(estimator))
    dropped = {name for name in names if name in top and name not in named}
    if dropped:  # set_params cannot take a keyword argument away: build the class again
        estimator = type(estimator)(**{k: v for k, v in top.items() if k not in dropped})
    everything = estimator.get_params(deep=True)
    reset = {}
    for name in names:
        owner, _, leaf = name.rpartition("__")
        holder = everything.get(owner) if owner else estimator
        defaults = _signature(type(holder))[1] if holder is not None else {}
        if name not in dropped and leaf in defaults and name in everything:
            reset[name] = defaults[leaf]
    return estimator.set_params(**reset) if reset else estimator


def _small(estimator):
    """A clone for the trial fits: two trees for a booster (unless its number of trees is
    one it would refuse, which the trial must meet), its log at the level where LightGBM
    names the parameters it ignores."""
    from sklearn.base import clone

    small = clone(estimator)
    model = _booster(small)
    if model is None:
        return small
    params = small.get_params(deep=False)
    if model.trees is not None:
        group = next((g for g in model.aliases if model.trees in g), (model.trees,))
        given = [params[n] for n in group if params.get(n) is not None]
        if not given or (len(given) == 1 and isinstance(given[0], numbers.Integral)
                         and not isinstance(given[0], bool) and 2 < given[0] < 2**31):
            small.set_params(**{n: None for n in group if n != model.trees and n in params})
            small.set_params(**{model.trees: 2})
    # LightGBM names unknown parameters at 0 (sklearn-rank's rankers take verbose as a
    # keyword argument, and default to -1); CatBoost stays quiet at 0
    if "verbose" in params or model.library == "lightgbm":
        small.set_params(verbose=0)
    if "allow_writing_files" in params:  # no catboost_info/ folder from a trial
        small.set_params(allow_writing_files=False)
    return small


def _trial_values(space):
    """The values of a search space to try: a list's values, a distribution's finite
    bounds (integers for a discrete one)."""
    import math

    if not hasattr(space, "support"):
        return list(space)
    low, high = space.support()
    discrete = hasattr(getattr(space, "dist", None), "pmf")
    cast = int if discrete else float
    return [cast(bound) for bound in (low, high) if math.isfinite(bound)]


class _Trial:
    """The trial fits of one model on the first queries of the data (:func:`check_models`)."""

    def __init__(self, label, estimator, source, X, y, qid):
        self.label, self.estimator, self.source = label, estimator, source
        self.X, self.y, self.qid = X, y, qid
        self.name = type(estimator).__name__

    def fit(self, estimator):
        """``(ignored, error)``: what the booster ignored, or what the fit raised."""
        try:
            return ignored_params(estimator, self.X, self.y, self.qid), None
        except Exception as exc:  # the model refuses: the callers say whose fault it is
            return {}, exc

    def check_base(self, estimator):
        """Refuse data that the model cannot fit without the parameters tried."""
        _, error = self.fit(_small(estimator))
        if error is not None:
            raise ModelCheckError(
                f"model {self.label!r}: {self.name} cannot fit the first queries of "
                f"{self.source}: {error}", self.label, self.estimator, "data",
                source=self.source, error=error) from error

    def refuse(self, name, value, ignored, error, *, searched=False, names=()):
        """Raise the error of a trial whose fit failed, or whose booster ignored ``name``."""
        if error is not None:
            shown = (f"{name}={value!r}" if name is not None
                     else f"the parameters {', '.join(names)} together")
            raise ModelCheckError(
                f"model {self.label!r}: {self.name} refuses {shown}: {error}", self.label,
                self.estimator, "refused", parameter=name, value=value, searched=searched,
                error=error) from error
        if name is not None and name in ignored:
            booster = _booster(self.estimator)
            known = sorted(_without(self.estimator, [name]).get_params(deep=True))
            raise ModelCheckError(
                f"model {self.label!r}: {booster.library if booster else self.name} ignores "
                f"{name!r} in {self.name}: {ignored[name]}.{_close_matches(name, known)}",
                self.label, self.estimator, "ignored", parameter=name, value=value,
                searched=searched, why=ignored[name])

    def check_params(self, names):
        """The parameters ``names`` together; when they fail or one is ignored, a fit
        without them (the data's fault?), then each alone, then together again."""
        if not names:
            return
        ignored, error = self.fit(_small(self.estimator))
        if error is None and not set(ignored) & set(names):
            return
        self.check_base(_without(self.estimator, names))
        values = self.estimator.get_params(deep=True)
        for name in names:
            alone = _small(_without(self.estimator, [n for n in names if n != name]))
            self.refuse(name, values.get(name), *self.fit(alone))
        # each passed alone: the fit of them all fails, or ignores one, only together
        first = None if error is not None else next(n for n in names if n in ignored)
        self.refuse(first, values.get(first), ignored, error, names=names)

    def check_search(self, space):
        """Each value of each searched parameter, alone, on the model as it is."""
        if not space:
            return
        self.check_base(self.estimator)
        known = self.estimator.get_params(deep=True)
        for name, values in space.items():
            for value in _trial_values(values):
                trial = _small(self.estimator)
                try:
                    trial.set_params(**{name: value})
                except (ValueError, TypeError) as exc:
                    if name not in known:
                        raise ModelCheckError(
                            f"model {self.label!r}: {self.name} has no parameter {name!r}."
                            f"{_close_matches(name, sorted(known))}", self.label,
                            self.estimator, "unknown", parameter=name, value=value,
                            searched=True, error=exc) from None
                    ignored, error = {}, exc
                else:
                    ignored, error = self.fit(trial)
                self.refuse(name, value, ignored, error, searched=True)

