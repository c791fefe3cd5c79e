"""The adapters' own parameters, and the ``__init__`` signature: the booster's, then theirs."""

import inspect
from numbers import Real

from ..metrics._scorer import check_grade_scale
from ..utils._param_validation import Interval, validate_parameter_constraints

#: The parameters every adapter adds to its booster's, with their defaults.
OWN_PARAMETERS = {"qid_column": "qid", "scoring": "ndcg@10", "validation_fraction": 0.1}

OWN_CONSTRAINTS = {
    "qid_column": [str, None],
    "scoring": [str],
    "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
}

# The adapters' own parameters, as their docstrings describe them.
OWN_PARAMETERS_DOC = """qid_column : str or None, default="qid"
        Column of a DataFrame ``X`` holding the query id of each row, read when no ``qid`` is
        given and dropped before the data reach the booster, in ``fit``, ``predict`` and
        ``score``. ``None`` disables the column.

    scoring : str, default: ``"ndcg@10"``
        Metric that :meth:`score` computes with :mod:`sklearn_rank.metrics`, by name
        (``"ndcg@10"``, ``"err@10"``, ``"map"``, ``"mrr@10"``, ``"p@5"``...), and that early
        stopping monitors when no other eval metric is named.

    validation_fraction : float, default=0.1
        Fraction of the training queries held out, whole, as the eval set of early stopping
        when early stopping is on and ``fit`` gets no ``eval_set``. At least one query is held
        out and at least one kept. The queries are drawn with the estimator's random state."""


def validate_own_params(estimator):
    """Check the adapter's own parameters (:data:`OWN_PARAMETERS`) of ``estimator``."""
    params = {name: getattr(estimator, name) for name in OWN_CONSTRAINTS}
    name = type(estimator).__name__
    validate_parameter_constraints(OWN_CONSTRAINTS, params, caller_name=name)
    # score() is called on each fold of a search: a metric that needs the grade scale
    # must declare it, or each fold would be scored on its own scale
    check_grade_scale(estimator.scoring, caller=f"{name}(scoring={estimator.scoring!r})")


def adapter_signature(booster_class, own, *, var_keyword=True):
    """The signature of an adapter's ``__init__``: the booster's parameters, then its own.

    The parameters of the ``__init__`` methods along ``booster_class``'s MRO are collected
    as long as each passes ``**kwargs`` on to its parent (the first definition of a name
    wins, so a subclass's default beats its parent's) and made keyword-only; ``own`` (name ->
    default) come after them, then ``**kwargs`` when the booster takes arbitrary parameters.
    scikit-learn's ``get_params`` reads parameter names from this signature, so ``clone``
    and ``set_params`` keep every one of them.
    """
    collected = {}
    for klass in booster_class.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]
        for param in params:
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            collected.setdefault(param.name, param.replace(kind=param.KEYWORD_ONLY))
        if not any(param.kind == param.VAR_KEYWORD for param in params):
            break  # the parents' parameters are not this class's
    for name, default in own.items():
        collected.setdefault(name, inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                                     default=default))
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
              *collected.values()]
    if var_keyword:
        params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)
