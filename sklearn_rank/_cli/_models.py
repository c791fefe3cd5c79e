"""The models of ``cv`` and ``tune``: ``--model``, ``--set`` and their checks.

``--model NAME`` chooses from :data:`sklearn_rank.benchmark.MODELS` (the catalogue lives in
the library) or imports a class, ``--model MODULE:CLASS``; ``--set name=value`` sets a
parameter of the model named before it. :class:`ModelChoice` is one such choice, with its
label in the results. The boosters and user modules are imported only when a model is built,
never for ``--help``.
"""

import argparse
import importlib
import inspect
import numbers
from dataclasses import dataclass, field

import numpy as np

from ..benchmark import (
    MODELS,
    Model,
    ModelCheckError,
    ModelImportError,
    check_models,
    ignored_params,
)
from ..benchmark import code_fingerprint as _code_fingerprint
from ..benchmark import import_object as _import_object
from ._common import CLIError, close_matches, usage_error

__all__ = ["MODELS", "Model", "default_models", "fit_errors"]

# ----------------------------------------------------------------------------------------
# --model and --set on the command line: the order says which model a --set belongs to


class ModelAction(argparse.Action):
    """``--model SPEC``: a new model, which the ``--set`` options after it configure.

    Appends ``[SPEC, []]`` to ``namespace.model``; :class:`SetAction` adds to the list.
    """

    def __call__(self, parser, namespace, value, option_string=None):
        models = list(getattr(namespace, self.dest, None) or [])
        models.append([value, []])
        setattr(namespace, self.dest, models)


class SetAction(argparse.Action):
    """``--set NAME=VALUE``: a parameter of the last ``--model`` given, or, before any, of
    every model (``namespace.set``)."""

    def __call__(self, parser, namespace, value, option_string=None):
        models = getattr(namespace, "model", None)
        if models:
            models[-1][1].append(value)
        else:
            setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), value])


def add_model_options(parser, *, several):
    """``--model [LABEL=]NAME`` and ``--set NAME=VALUE`` (repeatable, order matters)."""
    names = ", ".join(MODELS)
    what = ("a model to compare; repeat it for each model" if several
            else "the model to search")
    parser.add_argument(
        "--model", action=ModelAction, metavar="[LABEL=]MODEL",
        help=f"{what}: {names}, or MODULE:CLASS, a scikit-learn estimator class to import; "
        "LABEL= names it in the results (two configurations of one model need two labels)")
    parser.add_argument(
        "--set", action=SetAction, metavar="NAME=VALUE",
        help="a parameter of the model named by the --model before it (of every model "
        "when it comes before any --model), e.g. n_estimators=200; repeatable; VALUE is "
        "read as a number, true/false, none, a [list] or {dict}, else a string")


@dataclass
class ModelChoice:
    """A model as the user chose it: its label, what builds it and the parameters set.

    Attributes
    ----------
    label : str
        Its name in the results.
    spec : str
        The name of a built-in model or ``MODULE:CLASS``, as given.
    settings : list of (str, str, object)
        ``(option text, name, value)`` of each parameter set (``--set``, or the ``params``
        of a configuration file); later ones win.
    model : Model or None
        The built-in model, None for a user class.
    option : str
        How the user named it, for messages: ``"--model 'x'"``, ``"models[0] of cv.toml"``.
    grid : dict or None
        A configuration file's search space of ``tune``: name -> list or distribution text.
    """

    label: str
    spec: str
    settings: list = field(default_factory=list)
    model: object = None
    option: str = "--model"
    grid: object = None

    @property
    def params(self):
        """The parameters set, name -> value (the last setting of a name wins)."""
        return {name: value for _, name, value in self.settings}

    @property
    def user_class(self):
        return self.model is None

    def provenance(self):
        """What a run records of the model: its specification, the parameters set and, for a
        user class, the fingerprint of its code (:func:`code_fingerprint`)."""
        recorded = {"model": self.spec, "params": self.params}
        if self.user_class:
            recorded["code"] = code_fingerprint(self.spec, self.option)
        return recorded

    def describe(self):
        """``"label = Class, summary"`` for the output."""
        if self.model is not None:
            text = f"{self.label} = {self.model.estimator}, {self.model.summary}"
        else:
            text = f"{self.label} = {self.spec}"
        sets = ", ".join(f"{n}={v!r}" for n, v in self.params.items())
        return text + (f" ({sets})" if sets else "")

    def build(self, n_estimators, random_state):
        """The unfitted estimator with the parameters set.

        A built-in model gets ``n_estimators`` trees and the seed; a user class gets the seed
        as its ``random_state`` when it has one that is not set. Raises a usage error, naming
        the model's parameters, for a parameter it does not have.
        """
        if self.model is not None:
            if not self.model.available():
                extra = self.model.extra
                how = (f'pip install "sklearn-rank[{extra}]"' if extra
                       else "pip install sklearn-rank (a core dependency is missing)")
                raise CLIError(f"{self.option}: {self.model.name} needs {self.model.library}, "
                               f"which is not installed. Install it with: {how}")
            estimator = self.model.build(n_estimators, random_state)
        else:
            estimator = _instantiate(self.spec, self.option)
            if ("random_state" in estimator.get_params(deep=False)
                    and "random_state" not in self.params):
                estimator.set_params(random_state=random_state)
        params = self.params
        if self.model is not None:  # a --set of an alias unsets what the model set
            for group in self.model.aliases:
                if any(name in params for name in group):
                    built = estimator.get_params(deep=False)
                    reset = {n: None for n in group if n not in params and built.get(n) is not None}
                    if reset:
                        estimator.set_params(**reset)
        for text, name, value in self.settings:
            _set(estimator, text, name, value)
        return estimator


def _parameters_of(estimator):
    return sorted(estimator.get_params(deep=True))


def _set(estimator, text, name, value):
    """Set one parameter; a name the estimator does not have is a usage error naming its
    parameters. Boosters that take any name (LightGBM's and XGBoost's ``**kwargs``) accept
    it here; the trial fit of :func:`check_settings` finds whether they use it."""
    name_of = type(estimator).__name__
    known = _parameters_of(estimator)
    try:
        estimator.set_params(**{name: value})
    except (ValueError, TypeError) as exc:
        if name not in known:
            raise usage_error(
                f"{text}: {name_of} has no parameter {name!r}.{close_matches(name, known)} "
                f"Its parameters: {', '.join(known)}.") from None
        raise usage_error(f"{text}: {name_of} refuses {name}={value!r}: {exc}") from None


def parse_label(spec, where):
    """``"fast=lightgbm"`` -> ``("fast", "lightgbm")``; ``"lightgbm"`` -> ``(None, ...)``."""
    label, sep, rest = spec.partition("=")
    if not sep:
        return None, spec.strip()
    label, rest = label.strip(), rest.strip()
    if not label or not rest:
        raise usage_error(f"{where}: expected LABEL=MODEL, e.g. fast=lightgbm.")
    return label, rest


def resolve_model(spec, where, label=None):
    """A :class:`ModelChoice` for a model name or ``MODULE:CLASS`` (imported now).

    ``where`` names the option in messages: ``"--model 'x'"``.
    """
    if spec in MODELS:
        return ModelChoice(label or spec, spec, model=MODELS[spec], option=where)
    if ":" not in spec:
        raise usage_error(
            f"{where}: unknown model {spec!r}.{close_matches(spec, list(MODELS))} Expected "
            f"one of {', '.join(MODELS)}, or MODULE:CLASS to import a scikit-learn estimator "
            "class (e.g. sklearn.linear_model:Ridge).")
    import_object(spec, where)  # errors now, before any data is read
    return ModelChoice(label or spec.rpartition(":")[2], spec, option=where)


# ----------------------------------------------------------------------------------------
# The built-in models that cv compares by default, and the errors of a model's fit


def _error_class(path):
    module, _, cls = path.rpartition(".")
    return getattr(importlib.import_module(module), cls) if module else None


def fit_errors(names):
    """The exceptions that fitting the built-in models ``names`` raises on what a user gave
    them. A name that is not a built-in model (a user class) adds :class:`Exception`: the
    command line cannot tell its bugs from its refusals, and reports either in one line."""
    errors = [ValueError, TypeError]
    for name in names:
        model = MODELS.get(name)
        if model is None:
            errors.append(Exception)
        elif model.error:
            errors.append(_error_class(model.error))
    return tuple(errors)


def default_models():
    """The models ``cv`` compares by default: all whose library imports, and those left out.

    The pointwise regressor comes first: it is the baseline the ranking objectives are
    tested against. XGBoost is an optional dependency, compared when installed.
    """
    defaults = [m for m in MODELS.values() if m.default]
    chosen = [m.name for m in defaults if m.available()]
    missing = [m for m in defaults if not m.available()]
    return chosen, missing


def import_object(spec, where):
    """:func:`sklearn_rank.benchmark.import_object`, its errors as usage errors that name
    the option ``where``."""
    try:
        return _import_object(spec)
    except ModelImportError as exc:
        raise usage_error(f"{where}: {exc}") from None


def code_fingerprint(spec, where):
    """:func:`sklearn_rank.benchmark.code_fingerprint`, its errors as usage errors."""
    try:
        return _code_fingerprint(spec)
    except ModelImportError as exc:
        raise usage_error(f"{where}: {exc}") from None


def _instantiate(spec, where):
    """``CLASS()`` of a ``MODULE:CLASS``, checked to be a scikit-learn estimator."""
    factory = import_object(spec, where)
    try:
        estimator = factory()
    except Exception as exc:
        raise usage_error(f"{where}: {spec.rpartition(':')[2]}() failed: "
                          f"{type(exc).__name__}: {exc}") from None
    missing = [m for m in ("fit", "get_params", "set_params") if not hasattr(estimator, m)]
    if missing:
        raise usage_error(
            f"{where}: {type(estimator).__name__} is not a scikit-learn estimator: it has no "
            f"{', '.join(missing)} (derive it from sklearn.base.BaseEstimator).")
    if not any(hasattr(estimator, m) for m in ("predict", "predict_proba",
                                               "decision_function")):
        raise usage_error(f"{where}: {type(estimator).__name__} has no predict, "
                          "predict_proba or decision_function to rank documents by.")
    _request_qid(estimator)
    return estimator


def _request_qid(estimator):
    """Ask for the query ids in ``fit`` when its signature takes them and the request is
    unset: otherwise scikit-learn's routing would refuse to pass them (or drop them)."""
    import sklearn

    if "qid" not in inspect.signature(estimator.fit).parameters:
        return
    if not hasattr(estimator, "set_fit_request"):
        return
    with sklearn.config_context(enable_metadata_routing=True):
        request = estimator.get_metadata_routing().fit.requests.get("qid")
        if request is None:
            estimator.set_fit_request(qid=True)


def choices_from_args(args):
    """The :class:`ModelChoice` list of ``--model``/``--set`` (empty when none is given)."""
    from ._params import parse_setting

    choices = []
    for spec, sets in args.model or []:
        where = f"--model {spec!r}"
        label, name = parse_label(spec, where)
        choice = resolve_model(name, where, label)
        choice.settings = [(f"--set {s!r}", *parse_setting(s)) for s in sets]
        choices.append(choice)
    return choices


def global_settings(args):
    """The ``--set`` options given before any ``--model``: ``(text, name, value)``."""
    from ._params import parse_setting

    return [(f"--set {s!r}", *parse_setting(s)) for s in args.set or []]


def model_choices(args, config_models, names=None):
    """The models of a run, each with its settings.

    ``--model`` options (each with its ``--set``), else ``names`` (``cv --models``, or the
    default models), else the configuration file's models. The ``--set`` options before
    any ``--model`` apply to every model: after the file's ``params``, which they override,
    and before a ``--model``'s own ``--set``, which override them.
    """
    shared = global_settings(args)
    choices = choices_from_args(args)
    if choices:
        for choice in choices:
            choice.settings = [*shared, *choice.settings]
        return choices
    if names is not None:
        choices = [resolve_model(name, f"--models {name}") for name in names]
        for choice in choices:
            choice.settings = list(shared)
        return choices
    from ._params import check_value

    for entry in config_models:
        where = entry["where"]
        choice = resolve_model(entry["model"], f"{where}: model {entry['model']!r}",
                               entry["label"])
        choice.settings = [*((f"{where}: params.{name}", name,
                              check_value(value, f"{where}: params.{name}"))
                             for name, value in entry["params"].items()), *shared]
        choice.grid = entry["grid"]
        choices.append(choice)
    return choices


# scikit-learn's estimator types whose predictions are no relevance: cluster labels,
# inlier/outlier labels, densities.
_NOT_RANKING = {"clusterer": "cluster labels", "outlier_detector": "inlier/outlier labels",
                "density_estimator": "densities", "transformer": "transformed features"}


def kind_note(choice, estimator):
    """A note for a ``MODULE:CLASS`` estimator that is neither a regressor, a classifier
    nor a ranker by scikit-learn's tags (``KMeans``, ``IsolationForest``): the command ranks
    the documents by what it predicts, which is then no relevance. None for the others
    (and for classes without a type, as most rankers are)."""
    if not choice.user_class:
        return None
    try:
        kind = estimator.__sklearn_tags__().estimator_type
    except Exception:  # an estimator outside scikit-learn's tags: say nothing
        kind = getattr(estimator, "_estimator_type", None)
    if kind not in _NOT_RANKING:
        return None
    what = kind.replace("_", " ")
    article = "an" if what[0] in "aeiou" else "a"
    return (f"{choice.option}: {type(estimator).__name__} is {article} {what}, "
            f"neither a regressor, a classifier nor a ranker: the documents are ranked by "
            f"its {_NOT_RANKING[kind]}, which are no relevance scores. Expected a "
            "regressor, a classifier or a ranker, such as sklearn.linear_model:Ridge.")


def check_labels(choices, option="--model"):
    """Refuse two models with one label: their rows would merge in the results."""
    seen = {}
    for choice in choices:
        if choice.label in seen:
            raise usage_error(
                f"{option}: two models are labelled {choice.label!r} ({seen[choice.label]} and "
                f"{choice.spec}); name them with LABEL=, e.g. --model a={choice.spec} "
                f"--model b={choice.spec}.")
        seen[choice.label] = choice.spec
    return choices


# ----------------------------------------------------------------------------------------
# The parameters the models refuse, or that their boosters ignore (ignored_params)


def _trial_values(param):
    """The values of a ``--param`` to try: every listed value, or a distribution's bounds."""
    if param.distribution is None:
        return list(param.values)
    low, high = param.distribution.support()
    if param.distribution.dist.name == "randint":
        return [int(low), int(high)]
    return [float(low), float(high)]


def _first_queries(data, n=3):
    first = np.unique(data.qid)[:n]
    rows = np.flatnonzero(np.isin(data.qid, first))
    return data.X[rows], data.y[rows], data.qid[rows]


def _small(choice, estimator):
    """A clone with 2 trees (a built-in model), quiet: the estimator of the trial fits."""
    from sklearn.base import clone

    small = clone(estimator)
    trees = choice.model.trees if choice.model is not None else None
    if trees is not None:
        group = next((g for g in choice.model.aliases if trees in g), (trees,))
        params = small.get_params(deep=False)
        given = [params[n] for n in group if params.get(n) is not None]
        # a number of trees that the model refuses (0, -1, 2**40, "ten") is kept: the
        # trial fit refuses it, naming its --set, before the work starts
        if not given or (len(given) == 1 and isinstance(given[0], numbers.Integral)
                         and not isinstance(given[0], bool) and 2 < given[0] < 2**31):
            small.set_params(**{n: None for n in group if n != trees and n in params})
            small.set_params(**{trees: 2})
    if choice.model is not None and "verbose" in small.get_params():
        # LightGBM names unknown parameters only at this level; CatBoost stays quiet at 0
        small.set_params(verbose=0)
    return small


def _check_trial(choice, estimator, trial, X, y, qid, option, name, value):
    """Fit ``trial``: an error or an ignored parameter ``name`` is a usage error of
    ``option``."""
    from sklearn.base import clone

    class_name = type(estimator).__name__
    try:
        ignored = ignored_params(clone(trial), X, y, qid)
    except Exception as exc:  # the plain model fitted: the value fails
        shown = f"{name}={value!r}" if name is not None else "these parameters"
        raise usage_error(f"{option}: {class_name} refuses {shown}: {exc}") from None
    if name is not None and name in ignored:
        library = choice.model.library if choice.model is not None else class_name
        known = _parameters_of(estimator)
        raise usage_error(
            f"{option}: {library} would ignore {name!r} in {class_name}: {ignored[name]}."
            f"{close_matches(name, known)} Its parameters: {', '.join(known)}.")


def check_settings(choice, n_estimators, random_state, data):
    """Refuse, before the work, the parameters set on a model that it refuses or ignores.

    The model without its settings is fitted on the first three queries of the data (two
    trees for a built-in model): a failure there is a data error. Then each setting alone,
    then all together: an error, or a parameter that the booster says it ignores, is a
    usage error naming the setting. The booster's own log lines stay hidden.

    Returns
    -------
    passed_on : list of str
        The names set that the estimator does not name but its booster took (LightGBM's
        ``min_data_in_leaf``): the caller notes them.
    """
    if not choice.settings:
        return []
    X, y, qid = _first_queries(data)
    plain = ModelChoice(choice.label, choice.spec, model=choice.model, option=choice.option)
    base = plain.build(n_estimators, random_state)
    _check_base(base, plain, X, y, qid, data)
    for text, name, value in choice.settings:
        alone = ModelChoice(choice.label, choice.spec, [(text, name, value)], choice.model,
                            choice.option)
        trial = _small(choice, alone.build(n_estimators, random_state))
        _check_trial(choice, base, trial, X, y, qid, text, name, value)
    if len(choice.settings) > 1:
        everything = _small(choice, choice.build(n_estimators, random_state))
        texts = " ".join(text for text, _, _ in choice.settings)
        _check_trial(choice, base, everything, X, y, qid, texts, None, None)
    known = set(base.get_params(deep=True))
    return [name for _, name, _ in choice.settings if name not in known]


def _check_base(base, choice, X, y, qid, data):
    small = _small(choice, base)
    try:
        ignored_params(small, X, y, qid)
    except Exception as exc:  # any failure of the plain model is the data's
        raise CLIError(f"{data.source}: {type(base).__name__} cannot fit the first queries "
                       f"of the data: {exc}") from None


def check_params(choice, estimator, params, data):
    """Refuse, before the search, a ``--param`` value or name that the model refuses.

    Each value of each ``--param`` (the bounds of a distribution) is fitted alone, on top of
    ``estimator`` (the model with its settings, which :func:`check_settings` checked), with
    two trees on the first three queries of the data: an error, or a parameter the booster
    says it ignores, is a usage error naming the option. The booster's own log lines stay
    hidden. A fit without any ``--param`` comes first, so that an error of the data is
    reported as one.

    Raises
    ------
    CLIError
        Exit code 2 for a refused parameter, 1 when the data cannot be fitted at all.
    """
    X, y, qid = _first_queries(data)
    _check_base(estimator, choice, X, y, qid, data)
    for param in params.values():
        for value in _trial_values(param):
            trial = _small(choice, estimator)
            try:
                trial.set_params(**{param.name: value})
            except (ValueError, TypeError) as exc:
                known = _parameters_of(estimator)
                if param.name not in known:
                    raise usage_error(
                        f"--param {param.text!r}: {type(estimator).__name__} has no parameter "
                        f"{param.name!r}.{close_matches(param.name, known)} Its parameters: "
                        f"{', '.join(known)}.") from None
                raise usage_error(f"--param {param.text!r}: {type(estimator).__name__} "
                                  f"refuses {param.name}={value!r}: {exc}") from None
            _check_trial(choice, estimator, trial, X, y, qid, f"--param {param.text!r}",
                         param.name, value)


# ----------------------------------------------------------------------------------------
# The library's checks of a run's models (sklearn_rank.benchmark), in the command's words


def dense_models(choices, estimators, datasets, note):
    """The labels of the models that need the sparse features of ``datasets`` made dense.

    The library's check (:func:`sklearn_rank.benchmark.check_models`), with the command
    line's note of what the dense copy costs, and its message when the copy would not fit
    in the memory available.

    Parameters
    ----------
    choices : list of ModelChoice
    estimators : dict
        Label -> unfitted estimator.
    datasets : list of (str, Dataset or None)
        ``(option, data)`` of the data the models are fitted and scored on.
    note : callable
        Prints a note on stderr.
    """
    try:
        dense = check_models({c.label: estimators[c.label] for c in choices}, [],
                             test=datasets)
    except ModelCheckError as exc:
        dense = exc.dense
        raise CLIError(
            f"{_option(choices, exc)}: {dense.classes} takes no sparse input (scikit-learn's "
            f"tags say so), and the SVMlight features ({_shapes(dense)}) would take "
            f"{dense.sizes['dense']} as a dense array, more than the "
            f"{dense.sizes['available']} of memory available ({dense.sizes['sparse']} "
            "sparse). Use a model that takes sparse input (the built-in models, or e.g. "
            "sklearn.linear_model:Ridge), or fewer features (a table with "
            "--feature-columns).") from None
    if dense is None:
        return set()
    note(f"{dense.classes} takes no sparse input: the SVMlight features ({_shapes(dense)}) "
         f"are made dense for it, {dense.sizes['dense']} in memory "
         f"({dense.sizes['sparse']} sparse).")
    return set(dense.labels)


def _option(choices, error):
    return next(c.option for c in choices if c.label == error.label)


def _shapes(dense):
    return " and ".join(f"{option} {rows:,} x {columns:,}"
                        for option, rows, columns in dense.shapes)


def check_rankable(choices, estimators, data):
    """Refuse, before the work, a classifier of several grades without ``predict_proba``:
    the library's check (:func:`sklearn_rank.benchmark.check_models`), its error as a
    usage error naming the option."""
    try:
        check_models({c.label: estimators[c.label] for c in choices}, [(data.source, data)])
    except ModelCheckError as exc:
        if exc.reason != "unrankable":  # the dense copy: dense_models refuses it next
            return
        raise usage_error(
            f"{_option(choices, exc)}: {type(exc.estimator).__name__} is a classifier "
            f"without predict_proba, and the grades of {exc.source} take {exc.n_grades} "
            "values: a classifier of several grades is ranked by its expected grade, which "
            "needs predict_proba. Use a regressor of the grades (e.g. sklearn.svm:LinearSVR), "
            "a classifier with predict_proba (e.g. sklearn.linear_model:LogisticRegression), "
            "or a ranker (lambdarank).") from None
