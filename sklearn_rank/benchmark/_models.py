"""The model catalogue of benchmark runs, and ``MODULE:CLASS`` loading.

:data:`MODELS` is the table of built-in models (each entry builds an unfitted estimator and
holds the default search space of a search); :func:`import_object` imports a
``MODULE:CLASS``, and :func:`code_fingerprint` fingerprints its code for a results store's
unit keys. :func:`boosters_quiet` keeps the boosters' native log lines off the output. The
boosters and user modules are imported only when a model is built.
"""

import contextlib
import difflib
import importlib
import inspect
import os
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass

__all__ = ["MODELS", "Model", "ModelCheckError", "ModelImportError", "boosters_quiet",
           "check_models", "code_fingerprint", "fit_params", "ignored_params", "import_object",
           "quiet_boosters", "silence_lightgbm"]

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


def code_fingerprint(spec):
    """The qualified name of a ``MODULE:CLASS`` and the SHA-256 of the source files of its
    class and base classes.

    Part of the units' keys in a results store: a run resumed after the class's code
    changed computes its units again, instead of mixing the folds of two versions. The
    library classes among the bases are hashed as well: editing an installed library
    changes no version number.

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
    reason : {"unrankable", "memory", "parameters"}
        ``"unrankable"``: a classifier without ``predict_proba`` on more than two grades;
        ``"memory"``: a model without sparse input whose dense copy of the sparse features
        would not fit in the memory available; ``"parameters"``: a parameter that
        scikit-learn's validation refuses (:func:`run_benchmark`).
    source : str or None
        The data set whose grades the classifier cannot rank (``"unrankable"``).
    n_grades : int or None
        Its number of distinct grades (``"unrankable"``).
    dense : object or None
        What :func:`check_models` returns, the dense copy refused (``"memory"``).
    """

    def __init__(self, message, label, estimator, reason, *, source=None, n_grades=None,
                 dense=None):
        super().__init__(message)
        self.label, self.estimator, self.reason = label, estimator, reason
        self.source, self.n_grades, self.dense = source, n_grades, dense


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


def check_models(models, datasets, *, test=None):
    """Check the models of a run against its data before the work, and say which need
    dense features.

    A classifier without ``predict_proba`` (``LinearSVC``) cannot rank more than two
    grades: it is ranked by its expected grade, and every fold would fail. A model that
    takes no sparse input by scikit-learn's tags (``HistGradientBoostingRegressor``, a
    pipeline starting with ``StandardScaler()``) fails deep inside scikit-learn on the
    sparse matrix of an SVMlight file: it is given a dense copy of the features instead
    (the data set's ``densified()``, made once for all such models), unless the copy would
    not fit in the memory available. :func:`run_benchmark` applies it.

    Parameters
    ----------
    models : dict of str to estimator
        Model label -> unfitted estimator.
    datasets : list of (str, data set)
        ``(name, data)`` of the data sets the models are fitted on, data sets as
        :func:`run_benchmark` takes them (with ``X``, ``y`` and, for messages, ``source``).
    test : list of (str, data set), default=None
        Further data sets the models are only scored on: checked for the dense copy.

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
        For the first model that cannot work, with its label and the reason.

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
    features = [(name, data[0] if isinstance(data, tuple) else data.X)
                for name, data in [*datasets, *(test or [])] if data is not None]
    sparse = [(name, X) for name, X in features if hasattr(X, "toarray")]
    needing = [label for label, estimator in models.items()
               if _takes_sparse(estimator) is False]
    if not sparse or not needing:
        return None
    dense = _DenseCopy(
        labels=tuple(needing),
        classes=", ".join(dict.fromkeys(type(models[label]).__name__ for label in needing)),
        shapes=tuple((name, int(X.shape[0]), int(X.shape[1])) for name, X in sparse),
        nbytes=sum(int(X.shape[0]) * int(X.shape[1]) * X.dtype.itemsize for _, X in sparse),
        sparse_nbytes=sum(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
                          for _, X in sparse),
        available=_memory_available())
    if dense.available is not None and dense.nbytes > dense.available:
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
    return dense
