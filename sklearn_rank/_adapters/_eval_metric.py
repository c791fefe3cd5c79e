"""The eval-metric bridge: sklearn-rank metrics as a booster's eval metrics, and routing.

- :class:`BoosterEvalMetric`: a registry metric, bound once
  (:func:`~sklearn_rank.metrics._bound.bind_metric`), whose value on rows grouped by query
  is computed as :func:`sklearn_rank.metrics.evaluate` computes it; the boosters' subclasses
  (``sklearn_rank.lightgbm``, ``sklearn_rank.xgboost``) only read their booster's data
  structures and call :meth:`BoosterEvalMetric._value`;
- :func:`split_eval_metrics`: an adapter's ``eval_metric`` entries, parted between the
  booster (its own metric names, its callables) and sklearn-rank.
"""

import numpy as np

from ..metrics._bound import bind_metric
from ..metrics._input import check_ranking_input
from ..metrics._names import parse_metric
from ..metrics._result import means_of, result_of
from ._queries import query_codes


def split_eval_metrics(eval_metric, booster_metric_names, metric_class):
    """Booster metrics (names and foreign callables) apart from sklearn-rank's.

    Parameters
    ----------
    eval_metric : str, callable, list of them or None
        An adapter's ``eval_metric``.
    booster_metric_names : re.Pattern
        The metric names the booster computes itself, which keep the booster's meaning; any
        other name of sklearn-rank's registry is computed by sklearn-rank.
    metric_class : type
        The booster's subclass of :class:`BoosterEvalMetric`.

    Returns
    -------
    booster, ours : list, list
        The entries for the booster, and sklearn-rank eval metric objects.
    """
    entries = [] if eval_metric is None else (
        list(eval_metric) if isinstance(eval_metric, (list, tuple)) else [eval_metric])
    booster, ours = [], []
    for entry in entries:
        if isinstance(entry, metric_class):
            ours.append(entry)
        elif isinstance(entry, str) and not booster_metric_names.match(entry):
            try:
                parse_metric(entry)
            except ValueError:
                booster.append(entry)  # the booster's to accept or reject
            else:
                ours.append(metric_class(entry))
        else:
            booster.append(entry)
    return booster, ours


class BoosterEvalMetric:
    """An sklearn-rank metric as a booster's custom eval metric (base of the booster ones).

    A subclass sets ``_public_name`` (the function that builds it, for ``repr``) and
    ``_how_to_group`` (how to give the booster's data query groups, for the error on data
    without), and implements ``__call__`` in the booster's calling convention, reading the
    labels, predictions, group sizes and weights from the booster's data and returning what
    the booster expects around :meth:`_value`.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"err@10"``.
    convention : str or None
        Preset of conventions.
    **options
        Options of the metric.
    """

    #: Whether the booster should maximise the value (all registry metrics: higher is better).
    maximize = True

    #: The public function that builds the metric, as ``repr`` shows it.
    _public_name = "eval_metric"

    #: How to give the booster's data its query groups (the booster adapters set it).
    _how_to_group = "give the data its query groups"

    def __init__(self, name, *, convention=None, **options):
        # bound once; every fit of a search monitors its own validation queries: one
        # declared scale
        self.bound = bind_metric(name, options=options, convention=convention,
                                 caller=f"eval_metric({name!r})", declared_scale=True)
        self.name = name
        self.convention = convention
        self.options = options
        self.maximize = self.bound.metric.higher_is_better
        # The booster's name of the metric, in its logs and evals_result_: no spaces, which
        # XGBoost's log parser would split on.
        self.__name__ = "".join(name.split())

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in self.options.items())
        if self.convention is not None:
            extra += f", convention={self.convention!r}"
        return f"{self._public_name}({self.name!r}{extra})"

    def __eq__(self, other):
        return (type(self) is type(other) and self.name == other.name
                and self.convention == other.convention and self.options == other.options)

    def __hash__(self):
        return hash((type(self), self.name, self.convention, tuple(sorted(self.options))))

    def _value(self, y_true, y_score, sizes, sample_weight=None):
        """The metric of rows grouped by query, ``sizes`` rows per query.

        ``sizes=None`` (the booster holds no groups) raises: a ranking metric over all rows
        as one query is never meant silently; ``sizes=[n_rows]`` asks for it.
        """
        y_score = np.asarray(y_score)
        if y_score.ndim != 1:
            raise ValueError(
                f"{self!r} needs one score per row; got predictions of shape {y_score.shape}."
            )
        if sizes is None:
            raise ValueError(
                f"{self!r} needs the query groups of the data it evaluates, and the data has "
                f"none: {self._how_to_group}. For all rows as one query, on purpose, give "
                "one group of all rows (group=[n_rows])."
            )
        qid = query_codes(np.asarray(sizes, dtype=np.intp))
        # the bound metric on the rows, as evaluate computes it (its messages name evaluate)
        data = check_ranking_input(y_true, y_score, qid, sample_weight, caller="evaluate")
        return means_of(result_of(data, [(self.name, self.bound)]), stacklevel=2)[self.name]
