"""What the displays share: matplotlib imported on demand, an estimator's scores, labels."""

import importlib

from ..utils._optional import import_optional
from ..utils._trained import check_trained_queries

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


def estimator_scores(estimator, X, y, qid, *, response_method, qid_column, caller):
    """``(y_score, qid)`` of a fitted estimator on ``X``, as the ranking scorers get them.

    The checked sequence of :func:`sklearn_rank.metrics._scorer.estimator_scores`
    (no query ids, or a model fitted on the query-id column, is an error), after a check of
    ``response_method``, and the scorers' refusal of rows ``X, y`` of a query the model was
    trained on other than its trained rows (a query cut by the split).
    ``response_method="auto"`` ranks a classifier by a continuous score, as the scorers do.
    """
    # the scorers import scikit-learn: only the from_estimator constructors need them, not
    # the figures of stored values (sklearn-rank report)
    from ..metrics import _scorer

    _scorer._check_response_method_param(response_method, caller)
    y_score, qid = _scorer.estimator_scores(estimator, X, qid, response_method=response_method,
                                            qid_column=qid_column, caller=caller)
    check_trained_queries(estimator, y, qid, caller=caller)
    return y_score, qid


def literal(text):
    """``text`` (a model's or a metric's name, a parameter's value) drawn as written:
    matplotlib reads the text between two ``$`` as mathematics, so that a model named
    ``"a$b$"`` would be labelled in italics without its dollars; a figure's labels must
    show the names the results have."""
    return str(text).replace("$", r"\$")


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
