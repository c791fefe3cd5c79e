"""``--param name=values``: the small, strict language of ``sklearn-rank tune``.

- ``num_leaves=7,15,31``: a list of values, each typed as an int (``15``), a float
  (``0.05``, ``1e-3``), a boolean (``true``, ``false``), ``none``, or else a string
  (``gbdt``).
- ``learning_rate=loguniform(0.01,0.3)``: a distribution, for ``--search random`` only.
  ``uniform(low,high)`` and ``loguniform(low,high)`` draw floats between the bounds;
  ``randint(low,high)`` draws integers from ``low`` to ``high``, both included.

Anything else is an error that says what was expected.
"""

import re
from dataclasses import dataclass

from ._common import usage_error

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CALL = re.compile(r"^([A-Za-z_]\w*)\s*\((.*)\)$")
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
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


def _scalar(text):
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return _WORDS.get(text.lower(), text)


def _bound(text, kind, spec):
    text = text.strip()
    if kind is int and not _INT.match(text):
        raise usage_error(f"--param {spec!r}: expected integer bounds, got {text!r}.")
    if not _FLOAT.match(text):
        raise usage_error(f"--param {spec!r}: expected numbers as bounds, got {text!r}.")
    return int(text) if kind is int else float(text)


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
    parsed = [_scalar(item) for item in items]
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
