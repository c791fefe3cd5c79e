"""Parameter validation: scikit-learn's machinery, imported when it has something to say.

scikit-learn keeps ``validate_params`` and its constraint classes in a private module, which
:mod:`sklearn_rank.utils._sklearn_internals` fences; every module of sklearn-rank imports them
from here.

Importing scikit-learn costs about a second (it imports SciPy), which the metric registry
and ``sklearn-rank trec_eval`` would pay only to learn that ``k=10`` is an integer. So the
constraint classes here, :class:`Interval`, :class:`StrOptions` and :class:`Options`, take
the arguments of scikit-learn's and only describe the constraint; they become scikit-learn's
objects the first time scikit-learn checks them. :func:`validate_parameter_constraints`
accepts at once the parameters that plainly meet one of their constraints (one of these
three, ``None``, a type, ``"boolean"``, an array, a seed) and hands every other case to
scikit-learn's, which then decides and words each rejection: the accepted values and the
error messages are scikit-learn's. :func:`validate_params` is scikit-learn's decorator
rebuilt on that check: a function it wraps, called with plainly valid arguments, does not
import scikit-learn either.
"""

import functools
import inspect
import math
import re
import sys
from numbers import Integral, Real

import numpy as np

__all__ = [
    "Interval",
    "InvalidParameterError",  # noqa: F822 (module __getattr__: scikit-learn's, on first use)
    "Options",
    "StrOptions",
    "validate_parameter_constraints",
    "validate_params",
]

_CLOSED = ("left", "right", "both", "neither")


class _Constraint:
    """A constraint described by its arguments; :meth:`to_sklearn` builds scikit-learn's."""

    _sklearn_class = None  # the name of scikit-learn's class

    def __init__(self, *args, **kwargs):
        self._args, self._kwargs = args, kwargs
        self._sklearn = None

    def to_sklearn(self):
        """scikit-learn's constraint object (built once; imports scikit-learn)."""
        if self._sklearn is None:
            from ._sklearn_internals import param_validation

            self._sklearn = getattr(param_validation, self._sklearn_class)(
                *self._args, **self._kwargs)
        return self._sklearn

    def __str__(self):  # scikit-learn's wording, as in its error messages
        return str(self.to_sklearn())

    def __repr__(self):
        args = [getattr(a, "__name__", None) or repr(a) for a in self._args]
        args += [f"{key}={value!r}" for key, value in self._kwargs.items()]
        return f"{type(self).__name__}({', '.join(args)})"


class Interval(_Constraint):
    """scikit-learn's ``Interval(type, left, right, *, closed)``: a number of ``type``
    (``numbers.Integral`` or ``numbers.Real``) between ``left`` and ``right`` (``None``:
    unbounded), ``closed`` on ``"left"``, ``"right"``, ``"both"`` or ``"neither"`` side."""

    _sklearn_class = "Interval"

    def __init__(self, type, left, right, *, closed):
        if type not in (Integral, Real) or closed not in _CLOSED:
            raise ValueError(f"Interval takes numbers.Integral or numbers.Real and closed "
                             f"among {_CLOSED}; got {type!r} and {closed!r}.")
        super().__init__(type, left, right, closed=closed)
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def plainly_satisfied_by(self, value):
        if not isinstance(value, self.type):
            return False
        if not isinstance(value, Integral) and math.isnan(value):
            return False
        # an open side excludes infinity even without a bound, as in scikit-learn
        left = -math.inf if self.left is None else self.left
        right = math.inf if self.right is None else self.right
        if value < left or (value == left and self.closed in ("right", "neither")):
            return False
        return not (value > right or (value == right and self.closed in ("left", "neither")))


class StrOptions(_Constraint):
    """scikit-learn's ``StrOptions(options)``: a string among ``options`` (a set)."""

    _sklearn_class = "StrOptions"

    def __init__(self, options, *, deprecated=None):
        super().__init__(options, **({} if deprecated is None else
                                     {"deprecated": deprecated}))
        self.options = options

    def plainly_satisfied_by(self, value):
        return isinstance(value, str) and value in self.options


class Options(_Constraint):
    """scikit-learn's ``Options(type, options)``: an instance of ``type`` among ``options``."""

    _sklearn_class = "Options"

    def __init__(self, type, options, *, deprecated=None):
        super().__init__(type, options, **({} if deprecated is None else
                                           {"deprecated": deprecated}))
        self.type, self.options = type, options

    def plainly_satisfied_by(self, value):
        return isinstance(value, self.type) and value in self.options


def _plainly_satisfied(constraint, value):
    """Whether ``value`` meets ``constraint`` by a check that scikit-learn's makes too;
    False when not, or when only scikit-learn can tell (it then decides)."""
    if isinstance(constraint, _Constraint):
        return constraint.plainly_satisfied_by(value)
    if constraint is None:
        return value is None
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    if isinstance(constraint, str):
        if constraint == "boolean":
            return value is True or value is False
        if constraint == "array-like":
            return isinstance(value, (np.ndarray, list, tuple))
        if constraint == "random_state":  # a seed, a RandomState or None, as scikit-learn's
            return (value is None or isinstance(value, np.random.RandomState)
                    or (isinstance(value, (int, np.integer)) and not isinstance(value, bool)
                        and 0 <= value <= 2**32 - 1))
    return False


def _plainly_valid(parameter_constraints, params):
    for name, value in params.items():
        constraints = parameter_constraints.get(name, "no_validation")
        if constraints == "no_validation":
            continue
        if not any(_plainly_satisfied(constraint, value) for constraint in constraints):
            return False
    return True


def _to_sklearn(parameter_constraints):
    """The constraints with scikit-learn's objects for the classes of this module."""
    return {
        name: constraints if constraints == "no_validation" else [
            c.to_sklearn() if isinstance(c, _Constraint) else c for c in constraints]
        for name, constraints in parameter_constraints.items()
    }


def validate_parameter_constraints(parameter_constraints, params, caller_name):
    """Check ``params`` against ``parameter_constraints``, as scikit-learn's function of
    this name does (same arguments, same accepted values, same
    :class:`InvalidParameterError` and messages).

    Parameters
    ----------
    parameter_constraints : dict
        Parameter name -> list of constraints (or ``"no_validation"``).
    params : dict
        Parameter name -> value; names without constraints are not checked.
    caller_name : str
        The function or estimator named in the error message.
    """
    if _plainly_valid(parameter_constraints, params):
        return
    from ._sklearn_internals import param_validation

    param_validation.validate_parameter_constraints(_to_sklearn(parameter_constraints), params,
                                                    caller_name)


def validate_params(parameter_constraints, *, prefer_skip_nested_validation):
    """scikit-learn's ``validate_params`` decorator, with the constraints of this module,
    importing scikit-learn only when it has something to say.

    The wrapper does what scikit-learn's does, in the same single frame (the ``stacklevel``
    of the metric functions' warnings counts it): it binds the arguments to the signature,
    checks them with :func:`validate_parameter_constraints` (so the values accepted and the
    messages are scikit-learn's), then calls the function, with scikit-learn's nested
    validation skipped as ``prefer_skip_nested_validation`` asks, and the function's name
    in an :class:`InvalidParameterError` raised inside. scikit-learn's global
    ``skip_parameter_validation`` is honoured. What it spares: a caller whose arguments
    are plainly valid, while scikit-learn is not imported yet (``sklearn-rank evaluate``),
    calls the function without importing it; that function's own use of scikit-learn, if
    any, imports it and is then validated as scikit-learn validates it.

    Parameters
    ----------
    parameter_constraints : dict
        Parameter name -> list of constraints, as scikit-learn's decorator takes them.
    prefer_skip_nested_validation : bool
        As in scikit-learn's decorator.

    Returns
    -------
    decorator : callable
    """
    def decorator(func):
        # as scikit-learn's decorator, for introspection; to_sklearn() of each of this
        # module's constraints gives scikit-learn's object
        func._skl_parameter_constraints = parameter_constraints
        signature = inspect.signature(func)
        ignored = {p.name for p in signature.parameters.values()
                   if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)} | {"self", "cls"}

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            sklearn = sys.modules.get("sklearn")
            skip = sklearn is not None and sklearn.get_config()["skip_parameter_validation"]
            if skip:
                return func(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            params = {k: v for k, v in bound.arguments.items() if k not in ignored}
            validate_parameter_constraints(parameter_constraints, params,
                                           caller_name=func.__qualname__)
            if "sklearn" not in sys.modules:  # nothing of scikit-learn's to configure
                return func(*args, **kwargs)
            from sklearn import config_context

            from ._sklearn_internals import param_validation

            try:
                with config_context(skip_parameter_validation=prefer_skip_nested_validation):
                    return func(*args, **kwargs)
            except param_validation.InvalidParameterError as exc:  # scikit-learn's rewording
                message = re.sub(r"parameter of \w+ must be",
                                 f"parameter of {func.__qualname__} must be", str(exc))
                raise param_validation.InvalidParameterError(message) from exc

        return wrapper

    return decorator


def __getattr__(name):
    if name == "InvalidParameterError":
        from ._sklearn_internals import param_validation

        return param_validation.InvalidParameterError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
