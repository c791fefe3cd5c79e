"""What the displays share: matplotlib imported on demand, an estimator's scores, labels."""

import importlib

from sklearn.metrics._scorer import _cached_call

from ..metrics._scorer import (
    _check_response_method_param,
    _one_score_per_row,
    _response_method_for,
)
from ..utils._optional import import_optional
from ..utils._qid import resolve_qid

#: The extra of sklearn-rank that installs matplotlib.
EXTRA = "plot"


def pyplot(caller):
    """``matplotlib.pyplot``, or an ImportError that names the extra to install.

    Called first thing by every ``from_*`` and ``plot`` method, so that a missing
    matplotlib fails before any computation, and importing :mod:`sklearn_rank.plot` never
    needs it.
    """
    import_optional("matplotlib", extra=EXTRA, purpose=caller)
    return importlib.import_module("matplotlib.pyplot")


def new_or_given_axes(ax, caller):
    """``(ax, figure)``: ``ax`` itself, or the axes of a new figure when None."""
    plt = pyplot(caller)
    if ax is None:
        _, ax = plt.subplots()
    return ax, ax.figure


def estimator_scores(estimator, X, qid, *, response_method, qid_column, caller):
    """``(y_score, qid)`` of a fitted estimator on ``X``, as the ranking scorers get them.

    The query ids come from ``qid`` or from ``X[qid_column]``. The estimator gets ``X`` as
    it was fitted on, query-id column included: the adapters and
    :class:`~sklearn_rank.preprocessing.DropQueryId` drop that column themselves.
    ``response_method="auto"`` ranks a classifier by a continuous score, as the scorers do.
    """
    _check_response_method_param(response_method, caller)
    _, qid = resolve_qid(X, qid, qid_column=qid_column, caller=caller)
    response_method = _response_method_for(estimator, response_method)
    y_score = _cached_call(None, estimator, response_method, X)
    return _one_score_per_row(y_score, estimator, response_method), qid


def estimator_name(estimator):
    """The name of an estimator in a legend: its class, or its last step's in a pipeline."""
    steps = getattr(estimator, "steps", None)
    if steps:
        estimator = steps[-1][1]
    return type(estimator).__name__


def check_sample_weight(options, caller):
    """Refuse ``sample_weight``: the displays weigh every query equally, as the bootstrap."""
    if "sample_weight" in options:
        raise TypeError(
            f"{caller} does not take sample_weight: its means and bootstrap intervals weigh "
            "every query equally. Compute weighted means with sklearn_rank.metrics.evaluate."
        )
