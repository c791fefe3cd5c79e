"""The models of ``cv`` and ``tune``: ``--model``, ``--set`` and their checks.

``--model NAME`` chooses from :data:`sklearn_rank.benchmark.MODELS` (the catalogue lives in
the library) or imports a class, ``--model MODULE:CLASS``; ``--set name=value`` sets a
parameter of the model named before it. :class:`ModelChoice` is one such choice, with its
label in the results. The boosters and user modules are imported only when a model is built,
never for ``--help``.
"""

import argparse
import warnings
from dataclasses import dataclass, field

from ..benchmark import (
    MODELS,
    Model,
    ModelCheckError,
    ModelCheckWarning,
    ModelImportError,
    build_model,
    check_models,
)
from ..benchmark import code_fingerprint as _code_fingerprint
from ..benchmark import import_object as _import_object
from ._common import DATA, USAGE, CLIError, close_matches, usage_error

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
        """The unfitted estimator with the parameters set
        (:func:`sklearn_rank.benchmark.build_model`).

        A built-in model gets ``n_estimators`` trees and the seed; a user class gets the seed
        as its ``random_state`` when it has one that is not set. Raises a usage error, naming
        the model's parameters, for a parameter it does not have.
        """
        try:
            return build_model(self.spec, self.params, n_estimators=n_estimators,
                               random_state=random_state, label=self.label)
        except ModelImportError as exc:  # a built-in model's library is missing: exit 1
            raise CLIError(f"{self.option}: {exc}", USAGE if self.user_class else DATA
                           ) from None
        except ModelCheckError as exc:
            options = {name: text for text, name, _ in self.settings}
            raise _refusal(exc, options, None, _parameters_of(exc.estimator)) from None


def _parameters_of(estimator):
    return sorted(estimator.get_params(deep=True))


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
    # errors now, before any data is read: an unknown name, a class that does not import
    _spec_error(build_model if ":" not in spec else _import_object, spec, where)
    return ModelChoice(label or spec.rpartition(":")[2], spec, option=where)


# ----------------------------------------------------------------------------------------
# The built-in models that cv compares by default, and the errors of a model's fit


def fit_errors(names):
    """The exceptions that fitting the built-in models ``names`` raises on what a user gave
    them (:meth:`sklearn_rank.benchmark.Model.errors`). A name that is not a built-in model
    (a user class) adds :class:`Exception`: the command line cannot tell its bugs from its
    refusals, and reports either in one line."""
    errors = [ValueError, TypeError]
    for name in names:
        model = MODELS.get(name)
        errors += [Exception] if model is None else model.errors()
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


def _spec_error(function, spec, where):
    """``function(spec)``, its :class:`ModelImportError` a usage error naming ``where``."""
    try:
        return function(spec)
    except ModelImportError as exc:
        raise usage_error(f"{where}: {exc}") from None


def import_object(spec, where):
    """:func:`sklearn_rank.benchmark.import_object`, its errors as usage errors that name
    the option ``where``."""
    return _spec_error(_import_object, spec, where)


def code_fingerprint(spec, where):
    """:func:`sklearn_rank.benchmark.code_fingerprint`, its errors as usage errors."""
    return _spec_error(_code_fingerprint, spec, where)


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


def kind_note(choice, estimator):
    """A note for an estimator that is neither a regressor, a classifier nor a ranker by
    scikit-learn's tags (``KMeans``, ``IsolationForest``): the command ranks the documents
    by what it predicts, which is then no relevance (the library's
    :class:`~sklearn_rank.benchmark.ModelCheckWarning`). None for the others."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ModelCheckWarning)
        check_models({choice.label: estimator}, [], params={})
    for warning in (w.message for w in caught if isinstance(w.message, ModelCheckWarning)):
        what = warning.estimator_type.replace("_", " ")
        article = "an" if what[0] in "aeiou" else "a"
        return (f"{choice.option}: {type(estimator).__name__} is {article} {what}, "
                f"neither a regressor, a classifier nor a ranker: the documents are ranked by "
                f"its {warning.predictions}, which are no relevance scores. Expected a "
                "regressor, a classifier or a ranker, such as sklearn.linear_model:Ridge.")
    return None


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
# The parameters the models refuse, or that their boosters ignore: the library's trial fits
# (sklearn_rank.benchmark.check_models), their errors in the options' words


def _check(estimators, datasets, **options):
    """:func:`~sklearn_rank.benchmark.check_models`, its notes of the models' kinds left to
    :func:`kind_note`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelCheckWarning)
        return check_models(estimators, datasets, **options)


def _refusal(exc, options, library, known):
    """The :class:`CLIError` of a :class:`~sklearn_rank.benchmark.ModelCheckError` of the
    trial fits: ``options`` maps each parameter tried to the option that gave it; exit code
    2 for a parameter, 1 when the data cannot be fitted at all."""
    name, class_name = exc.parameter, type(exc.estimator).__name__
    if exc.reason == "data":
        return CLIError(f"{exc.source}: {class_name} cannot fit the first queries of the "
                        f"data: {exc.error}")
    its = f"{close_matches(name, known)} Its parameters: {', '.join(known)}."
    if exc.reason == "unknown":
        return usage_error(f"{options[name]}: {class_name} has no parameter {name!r}.{its}")
    if exc.reason == "ignored":
        return usage_error(f"{options[name]}: {library or class_name} would ignore {name!r} "
                           f"in {class_name}: {exc.why}.{its}")
    if name is None:
        return usage_error(f"{' '.join(options.values())}: {class_name} refuses these "
                           f"parameters: {exc.error}")
    return usage_error(f"{options[name]}: {class_name} refuses {name}={exc.value!r}: "
                       f"{exc.error}")


def check_settings(choice, n_estimators, random_state, data):
    """Refuse, before the work, the parameters set on a model that it refuses or ignores:
    the library's trial fits of ``params`` on the first queries of ``data``, their errors
    as usage errors naming the setting (a data error when the model fails without them).

    Returns
    -------
    passed_on : list of str
        The names set that the estimator does not name but its booster took (LightGBM's
        ``min_data_in_leaf``): the caller notes them.
    """
    if not choice.settings:
        return []
    options = {name: text for text, name, _ in choice.settings}  # the last one wins
    plain = ModelChoice(choice.label, choice.spec, model=choice.model, option=choice.option)
    known = _parameters_of(plain.build(n_estimators, random_state))
    try:
        _check({choice.label: choice.build(n_estimators, random_state)},
               [(data.source, data)], params={choice.label: list(options)})
    except ModelCheckError as exc:
        raise _refusal(exc, options, _library(choice), known) from None
    return [name for name in options if name not in known]


def note_passed_on(choice, estimator, n_estimators, random_state, data, note):
    """:func:`check_settings`, then a note of each name set that the booster takes as it
    is."""
    for name in check_settings(choice, n_estimators, random_state, data):
        note(f"{name!r} is not a named parameter of {type(estimator).__name__}; it is "
             "passed to the booster as it is.")


def _library(choice):
    return choice.model.library if choice.model is not None else None


def check_params(choice, estimator, params, data):
    """Refuse, before the search, a ``--param`` value or name that the model refuses or
    its booster ignores: the library's trial fits of each value (a distribution's bounds)
    alone on ``estimator`` (the model with its settings), their errors as usage errors
    naming the option (a data error when the model fails without them)."""
    options = {name: f"--param {param.text!r}" for name, param in params.items()}
    try:
        _check({choice.label: estimator}, [(data.source, data)], params={},
               search={choice.label: {n: p.search_space for n, p in params.items()}})
    except ModelCheckError as exc:
        raise _refusal(exc, options, _library(choice), _parameters_of(estimator)) from None


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
        dense = _check({c.label: estimators[c.label] for c in choices}, [], test=datasets,
                       params={})
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
        _check({c.label: estimators[c.label] for c in choices}, [(data.source, data)],
               params={})
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
