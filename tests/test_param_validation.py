"""sklearn_rank.utils._param_validation: scikit-learn's validation, imported when needed.

The constraint classes describe scikit-learn's; :func:`validate_parameter_constraints`
accepts plainly valid values itself and hands every other case to scikit-learn. These tests
hold it to scikit-learn's verdicts and messages over every constraint that sklearn-rank
declares, and check that the metric registry, the engine and read_trec load without
scikit-learn.
"""

import importlib
import inspect
import math
import pkgutil
import re
from collections.abc import Mapping
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import pytest
from sklearn import config_context
from sklearn.utils import _param_validation as sk

import sklearn_rank
from sklearn_rank.metrics._registry import ARGUMENT_CONSTRAINTS, METRICS
from sklearn_rank.utils import _param_validation as ours

ROOT = Path(__file__).resolve().parents[1]

VALUES = [
    -1, 0, 1, 2, 10, 2**70, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, math.nan, math.inf, -math.inf,
    np.int64(3), np.int8(0), np.float32(0.5), np.float64(1.0), np.float64(math.nan),
    True, False, np.True_, None, "log", "rank", "exponential", "linear", "query", "raise",
    "nan", "y_true", "mean", "trec_eval", "", "x", {}, {1: 2.0}, [1, 2], (1,),
    np.array([1.0, 2.0]), np.array(1.0), object(), int, lambda: 0,
]


def _declared_constraints():
    """Every list of constraints that sklearn-rank declares with the classes of
    ``sklearn_rank.utils._param_validation``: the registry's options and arguments, and the
    constraint dicts of every module (functions decorated with ``validate_params`` hold
    scikit-learn's objects, and scikit-learn's wrapper checks them)."""
    found = [list(option.constraint) for metric in METRICS.values()
             for option in metric.all_options]
    found += [list(c) for c in ARGUMENT_CONSTRAINTS.values()]
    for module_info in pkgutil.walk_packages(sklearn_rank.__path__, "sklearn_rank."):
        if any(part in module_info.name for part in ("xgboost", "catboost", "_dask")):
            continue  # modules of optional libraries
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if isinstance(value, dict):
                found += [list(c) for c in value.values() if isinstance(c, (list, tuple))
                          and any(isinstance(x, ours._Constraint) for x in c)]
    return found


DECLARED = _declared_constraints()


def _stable_id(value):
    """The test id of a value: its repr without memory addresses and with the items of
    sets sorted, so that the ids are the same in every process (pytest-xdist's workers
    must collect the same tests; string hashing, hence set order, differs between them)."""
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    return re.sub(r"\{([^{}]*)\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", text)


def _sklearn(constraint):
    if isinstance(constraint, ours._Constraint):
        constraint = constraint.to_sklearn()
    return sk.make_constraint(constraint)


def test_every_declared_constraint_is_found_and_converts():
    kinds = {type(c) for constraints in DECLARED for c in constraints}
    assert {ours.Interval, ours.StrOptions, ours.Options, type(None), str} <= kinds
    for constraints in DECLARED:
        for constraint in constraints:
            assert not isinstance(constraint, (sk.Interval, sk.StrOptions, sk.Options))
            _sklearn(constraint)  # scikit-learn accepts the description


@pytest.mark.parametrize("value", VALUES, ids=_stable_id)
def test_plain_verdicts_agree_with_sklearn(value):
    """A value accepted without scikit-learn is one that scikit-learn accepts; for the
    constraint classes, None and types, the verdicts are equal (no needless import)."""
    exact = (ours._Constraint, type(None), type)
    for constraints in DECLARED:
        for constraint in constraints:
            plain = ours._plainly_satisfied(constraint, value)
            with np.errstate(invalid="ignore"):
                expected = _sklearn(constraint).is_satisfied_by(value)
            if plain:
                assert expected, (constraint, value)
            if isinstance(constraint, exact):
                assert plain == expected, (constraint, value)


@pytest.mark.parametrize("value", [*VALUES, 2**32 - 1, 2**32, np.uint32(7), np.int64(-1),
                                   np.random.RandomState(0), np.random.default_rng(0)],
                         ids=_stable_id)
def test_plain_random_state_agrees_with_sklearn(value):
    """A seed, a RandomState or None is accepted without scikit-learn (``compare`` in
    ``sklearn-rank report`` imported it for its seed); bools are left to scikit-learn."""
    plain = ours._plainly_satisfied("random_state", value)
    expected = sk.make_constraint("random_state").is_satisfied_by(value)
    assert plain == (expected and not isinstance(value, (bool, np.bool_)))


@pytest.mark.parametrize("constraints", [
    [ours.Interval(Integral, 1, None, closed="left"), None],
    [ours.Interval(Real, 0, 1, closed="right")],
    [ours.Interval(Real, 0, 1, closed="neither")],
    [ours.Interval(Real, 0, 1, closed="both")],
    [ours.Interval(Real, None, None, closed="neither")],
    [ours.StrOptions({"log", "rank"})],
    [ours.Options(Real, {0.0, 1.0}), "nan", ours.StrOptions({"raise"}), None],
    [ours.StrOptions({"exponential", "linear"}), Mapping, None],
    ["array-like", ours.StrOptions({"y_true"}), None],
    ["boolean"],
    ["random_state", np.random.Generator],
], ids=_stable_id)
@pytest.mark.parametrize("value", VALUES, ids=_stable_id)
def test_validate_parameter_constraints_is_sklearns(constraints, value):
    """Same acceptance, same exception class and message as scikit-learn's function."""
    converted = [c.to_sklearn() if isinstance(c, ours._Constraint) else c
                 for c in constraints]
    try:
        sk.validate_parameter_constraints({"p": converted}, {"p": value}, caller_name="f")
    except sk.InvalidParameterError as exc:
        with pytest.raises(sk.InvalidParameterError) as raised:
            ours.validate_parameter_constraints({"p": constraints}, {"p": value},
                                                caller_name="f")
        assert str(raised.value) == str(exc)
    else:
        ours.validate_parameter_constraints({"p": constraints}, {"p": value}, caller_name="f")


def test_unconstrained_and_no_validation_parameters_are_not_checked():
    ours.validate_parameter_constraints(
        {"a": "no_validation", "b": [ours.StrOptions({"x"})]}, {"a": object(), "c": 1, "b": "x"},
        caller_name="f")


def test_interval_refuses_what_sklearn_cannot_describe():
    with pytest.raises(ValueError, match="closed"):
        ours.Interval(Real, 0, 1, closed="sideways")
    with pytest.raises(ValueError, match="numbers.Integral or numbers.Real"):
        ours.Interval(float, 0, 1, closed="both")
    assert str(ours.Interval(Integral, 1, None, closed="left")) == "an int in the range [1, inf)"
    assert repr(ours.StrOptions({"a"})) == "StrOptions({'a'})"


def test_validate_params_checks_as_sklearns_decorator_does():
    @ours.validate_params({"k": [ours.Interval(Integral, 1, None, closed="left")]},
                          prefer_skip_nested_validation=True)
    def top_k(k):
        """Doc."""
        return k

    assert top_k.__name__ == "top_k" and top_k.__doc__ == "Doc."
    # the constraints kept for introspection, as scikit-learn's decorator keeps them: this
    # module's descriptions, which give scikit-learn's objects
    assert isinstance(top_k._skl_parameter_constraints["k"][0].to_sklearn(), sk.Interval)
    assert list(inspect.signature(top_k).parameters) == ["k"]
    assert top_k(3) == 3
    with pytest.raises(sk.InvalidParameterError,
                       match=r"The 'k' parameter of .*top_k must be an int in the range "
                             r"\[1, inf\). Got 0 instead."):
        top_k(0)
    with config_context(skip_parameter_validation=True):
        assert top_k(0) == 0  # scikit-learn's global switch is honoured
    assert ours.InvalidParameterError is sk.InvalidParameterError
