"""``--param name=values`` and ``--set name=value``: the small, strict language of
``sklearn-rank cv`` and ``tune``.

- ``num_leaves=7,15,31``: a list of values, each typed as an int (``15``), a float
  (``0.05``, ``1e-3``), a boolean (``true``, ``false``), ``none``, or else a string
  (``gbdt``).
- ``learning_rate=loguniform(0.01,0.3)``: a distribution, for ``--search random`` only.
  ``uniform(low,high)`` and ``loguniform(low,high)`` draw floats between the bounds;
  ``randint(low,high)`` draws integers from ``low`` to ``high``, both included.

Anything else is an error that says what was expected. ``--set name=value`` fixes one value
(:func:`parse_setting`), read as JSON or a Python literal where it looks like one.
"""

import math
import re
from dataclasses import dataclass

from ._common import shorten, usage_error

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CALL = re.compile(r"^([A-Za-z_]\w*)\s*\((.*)\)$")
# ASCII digits only (re.ASCII): int() and float() read "١٢" as 12
_INT = re.compile(r"^[+-]?\d+$", re.ASCII)
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$", re.ASCII)
_WORDS = {"true": True, "false": False, "none": None}


def _uniform(low, high):
    from scipy.stats import uniform

    return uniform(loc=low, scale=high - low)  # scipy's uniform takes (loc, scale)


def _loguniform(low, high):
    from scipy.stats import loguniform

    return loguniform(low, high)


def _randint(low, high):
    from scipy.stats import randint

    return randint(low, high + 1)  # scipy's upper bound is excluded; ours is included


# name -> (type of the bounds, smallest allowed low bound or None, factory)
DISTRIBUTIONS = {
    "uniform": (float, None, _uniform),
    "loguniform": (float, 0.0, _loguniform),
    "randint": (int, None, _randint),
}


@dataclass(frozen=True)
class Param:
    """One ``--param``: a list of values or a scipy distribution.

    Attributes
    ----------
    name : str
        The estimator parameter.
    values : list or None
        The values of a list.
    distribution : object or None
        A frozen scipy distribution, for a randomized search.
    text : str
        The option as given, for messages.
    """

    name: str
    values: list = None
    distribution: object = None
    text: str = ""

    @property
    def search_space(self):
        return self.values if self.distribution is None else self.distribution


# Parameter values nested deeper than this are refused: no estimator takes them, and the
# outputs and the store's fingerprints walk them recursively.
MAX_DEPTH = 32
# The integers of a parameter: 64 bits, as numpy and the boosters hold them.
_INT64 = (-2**63, 2**63 - 1)
# The texts that Python, numpy and the boosters read as an infinite or NaN float.
_NON_FINITE = re.compile(r"^[+-]?(inf|infinity|nan)$", re.IGNORECASE)


def check_value(value, where):
    """Refuse a parameter value that gives a number where none is meant: an infinite or
    NaN float (``1e999``, or the text ``inf`` that a booster reads as one), an integer
    beyond 64 bits, or values nested more than :data:`MAX_DEPTH` deep. ``where`` names the
    option in the usage error. Returns ``value``."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, set, frozenset, dict)):
            if depth >= MAX_DEPTH:
                raise usage_error(f"{where}: the value is nested more than {MAX_DEPTH} deep; "
                                  "expected a number, a string, or a flat list or table.")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, float) and not math.isfinite(item):
            raise usage_error(f"{where}: expected a finite number, got {item!r}; no "
                              "parameter of a model is meant to be infinite or NaN.")
        elif isinstance(item, str) and _NON_FINITE.match(item.strip()):
            raise usage_error(f"{where}: expected a finite number, got {item!r}, which the "
                              "models read as an infinite or NaN float.")
        elif (isinstance(item, int) and not isinstance(item, bool)
              and not _INT64[0] <= item <= _INT64[1]):
            raise usage_error(f"{where}: the integer {shorten(item)} is beyond 64 bits; "
                              "expected an integer from -2**63 to 2**63 - 1.")
    return value


def _number(text, where):
    """``int(text)`` or ``float(text)`` of a number's text; a usage error for one beyond
    what Python reads (more than 4,300 digits)."""
    try:
        return int(text) if _INT.match(text) else float(text)
    except ValueError:
        raise usage_error(f"{where}: the number {shorten(text)!r} has more digits than "
                          "Python reads; expected a number such as 31 or 0.05.") from None


def _scalar(text, spec):
    if _INT.match(text) or _FLOAT.match(text):
        return check_value(_number(text, f"--param {shorten(spec)!r}"),
                           f"--param {shorten(spec)!r}")
    return check_value(_WORDS.get(text.lower(), text), f"--param {shorten(spec)!r}")


def _bound(text, kind, spec):
    text = text.strip()
    if kind is int and not _INT.match(text):
        raise usage_error(f"--param {spec!r}: expected integer bounds, got {shorten(text)!r}.")
    if not _FLOAT.match(text):
        raise usage_error(f"--param {spec!r}: expected numbers as bounds, got "
                          f"{shorten(text)!r}.")
    value = _number(text, f"--param {shorten(spec)!r}")
    if kind is int:
        if not _INT64[0] <= value < _INT64[1]:  # scipy's randint draws below high + 1
            raise usage_error(f"--param {shorten(spec)!r}: the bound {shorten(value)} is beyond 64 "
                              "bits; expected integer bounds from -2**63 to 2**63 - 2.")
        return value
    try:
        value = float(value)
    except OverflowError:  # an integer beyond the floats' range
        value = math.inf
    if not math.isfinite(value):
        raise usage_error(f"--param {shorten(spec)!r}: expected finite bounds, got "
                          f"{shorten(text)!r}.")
    return value


def _distribution(spec, function, arguments):
    if function not in DISTRIBUTIONS:
        known = ", ".join(f"{n}(low,high)" for n in DISTRIBUTIONS)
        raise usage_error(f"--param {spec!r}: unknown distribution {function!r}; "
                          f"expected one of {known}.")
    kind, floor, factory = DISTRIBUTIONS[function]
    bounds = arguments.split(",")
    if len(bounds) != 2:
        raise usage_error(f"--param {spec!r}: {function} takes two bounds, "
                          f"{function}(low,high); got {len(bounds)}.")
    low, high = (_bound(b, kind, spec) for b in bounds)
    if not low < high:
        raise usage_error(f"--param {spec!r}: expected low < high, got {low} and {high}.")
    if kind is float and not math.isfinite(high - low):
        raise usage_error(f"--param {spec!r}: the bounds {low} and {high} are too far apart: "
                          "their difference is beyond the floats' range.")
    if floor is not None and low <= floor:
        raise usage_error(f"--param {spec!r}: {function} needs bounds above {floor:g}, "
                          f"got {low}.")
    return factory(low, high)


def parse_param(spec):
    """Read one ``--param`` option.

    Parameters
    ----------
    spec : str
        ``name=v1,v2,...`` or ``name=distribution(low,high)``.

    Returns
    -------
    param : Param

    Raises
    ------
    CLIError
        With exit code 2, saying what was expected and what was got.
    """
    name, sep, values = (part.strip() for part in spec.partition("="))
    if not sep or not values:
        raise usage_error(f"--param {spec!r}: expected name=values, e.g. "
                          "num_leaves=7,15,31 or learning_rate=loguniform(0.01,0.3).")
    if not _NAME.match(name):
        raise usage_error(f"--param {spec!r}: {name!r} is not a parameter name.")
    call = _CALL.match(values)
    if call:
        return Param(name, distribution=_distribution(spec, call.group(1), call.group(2)),
                     text=spec)
    items = [item.strip() for item in values.split(",")]
    if "" in items:
        raise usage_error(f"--param {spec!r}: empty value in the list; expected "
                          "comma-separated values such as 7,15,31.")
    parsed = [_scalar(item, spec) for item in items]
    # repr tells 1 from 1.0 and True, which compare equal
    shown = [repr(value) for value in parsed]
    for i, text in enumerate(shown):
        if text in shown[:i]:
            raise usage_error(f"--param {spec!r}: the value {items[i]!r} is listed twice.")
    return Param(name, values=parsed, text=spec)


def parse_params(specs, *, search):
    """Read every ``--param`` of a search; refuse repeated names and misplaced distributions.

    Returns
    -------
    params : dict
        Name -> :class:`Param`, in the order given.
    """
    params = {}
    for spec in specs:
        param = parse_param(spec)
        if param.name in params:
            raise usage_error(f"--param {param.name} is given twice ({params[param.name].text!r} "
                              f"and {spec!r}); list all values in one option.")
        if param.distribution is not None and search == "grid":
            raise usage_error(f"--param {spec!r}: a distribution needs --search random; a grid "
                              "search takes lists of values such as 7,15,31.")
        params[param.name] = param
    return params


# ----------------------------------------------------------------------------------------
# --set name=value: one value of a parameter, fixed rather than searched

_BRACKETS = ("[", "{", "(", '"', "'")


def parse_value(text, spec, option="--set"):
    """The value of a ``--set``: a number, a boolean, None, a list..., or else a string.

    ``15`` is an int, ``0.05`` and ``1e-3`` are floats (numbers as Python writes them),
    ``true``/``false``/``none`` (any case) are booleans and None, a value in brackets or
    quotes is read as JSON or, failing that, as a Python literal (``[1, 3, 5]``,
    ``{"1": 3}``, ``(1, 2)``, ``'gbdt'``); anything else is a string (``gbdt``,
    ``rank:ndcg``, ``007``).

    Raises
    ------
    CLIError
        With exit code 2, for a value in brackets or quotes that reads as neither.
    """
    import ast
    import json

    text = text.strip()
    where = f"{option} {shorten(spec)!r}"
    if not text.startswith(_BRACKETS):
        if _FLOAT.match(text):  # a number as Python writes it: 007 is no number, but text
            try:
                return check_value(ast.literal_eval(text), where)
            except (SyntaxError, ValueError):
                if _INT.match(text) or _FLOAT.match(text):
                    _number(text, where)  # more digits than Python reads: an error
                return text
        return check_value(_WORDS.get(text.lower(), text), where)
    if _depth(text) > MAX_DEPTH:  # before a parser recurses as deep
        raise usage_error(f"{where}: the value is nested more than {MAX_DEPTH} deep; "
                          "expected a number, a string, or a flat list or table.")
    try:
        return check_value(json.loads(text), where)
    except ValueError:
        pass
    try:
        return check_value(ast.literal_eval(text), where)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise usage_error(
            f"{where}: cannot read the value {shorten(text)!r}; a value in brackets or "
            "quotes must be a JSON or Python literal, e.g. [1, 3, 5] or '007'."
        ) from None


def _depth(text):
    """An upper bound of the nesting of the brackets in ``text`` (those within strings
    counted too): in one pass, with no recursion."""
    depth = deepest = 0
    for char in text:
        if char in "[{(":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]})":
            depth -= 1
    return deepest


def parse_setting(spec, option="--set"):
    """Read one ``--set name=value``: returns ``(name, value)``.

    The name may be nested, ``step__param``, as scikit-learn's ``set_params`` takes it;
    the value is read by :func:`parse_value`.

    Examples
    --------
    >>> from sklearn_rank._cli._params import parse_setting
    >>> parse_setting("num_leaves=31")
    ('num_leaves', 31)
    >>> parse_setting("eval_at=[1, 3, 5]")
    ('eval_at', [1, 3, 5])
    >>> parse_setting("objective=rank:ndcg")
    ('objective', 'rank:ndcg')
    """
    name, sep, value = (part.strip() for part in spec.partition("="))
    if not sep or not value or not name:
        raise usage_error(f"{option} {spec!r}: expected name=value, e.g. n_estimators=200 or "
                          "objective=rank:ndcg.")
    if not all(_NAME.match(part) for part in name.split("__")):
        raise usage_error(f"{option} {spec!r}: {name!r} is not a parameter name.")
    return name, parse_value(value, spec, option)


def param_from_value(name, value, where, *, search):
    """A :class:`Param` from a value of a configuration file's ``grid``.

    A list is the values to try, a string ``"loguniform(0.01,0.3)"`` (any text with
    ``--param``'s syntax) is read as ``--param`` reads it, and any other value is a list of
    one value.
    """
    if isinstance(value, str):
        param = parse_param(f"{name}={value}")
        if param.distribution is not None and search == "grid":
            raise usage_error(f"{where}: the distribution {value!r} needs search = \"random\"; "
                              "a grid search takes lists of values such as [7, 15, 31].")
        return Param(name, values=param.values, distribution=param.distribution,
                     text=f"{name}={value}")
    check_value(value, where)
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values:
        raise usage_error(f"{where}: the list of values of {name!r} is empty.")
    shown = [repr(v) for v in values]
    for i, text in enumerate(shown):
        if text in shown[:i]:
            raise usage_error(f"{where}: the value {text} of {name!r} is listed twice.")
    return Param(name, values=values, text=f"{name}={','.join(map(str, values))}")
