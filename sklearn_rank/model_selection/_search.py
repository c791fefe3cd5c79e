"""Successive-halving searches whose subsamples are whole queries.

scikit-learn's halving searches with ``resource="n_samples"`` draw a random fraction of the
rows of every training and test fold: every query is cut short, so the early rounds train
and score truncated queries. The searches here are scikit-learn's own, with two changes:
the resource is counted in queries, and each round draws that many whole queries, in a
random order; the first round's fits train on at least ``MIN_TRAIN_QUERIES`` queries.
"""

from numbers import Integral

import numpy as np
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV as _SklearnHalvingGridSearchCV
from sklearn.model_selection import HalvingRandomSearchCV as _SklearnHalvingRandomSearchCV
from sklearn.utils import check_random_state

from ..utils._qid import factorize, resolve_qid
from ..utils._sklearn_internals import _SubsampleMetaSplitter

#: The fewest queries a fit of a halving search's first round trains on. A ranker trained on
#: one or two queries scores far below its worth (nDCG@10 0.67 where the full data gives
#: 0.89), so the first round would discard candidates on noise.
MIN_TRAIN_QUERIES = 10


def _n_drawn(fraction, n_queries):
    """How many of a fold's ``n_queries`` queries a round with ``fraction`` draws."""
    return max(1, int(fraction * n_queries))


class _QuerySubsampleSplitter:
    """scikit-learn's subsampling meta-splitter, drawing whole queries instead of rows."""

    def __init__(self, rows, caller):
        self.base_cv = rows.base_cv
        self.fraction = rows.fraction
        self.subsample_test = rows.subsample_test
        self.random_state = rows.random_state
        self.caller = caller

    def split(self, X, y, **kwargs):
        # what the search routes to its splitter: groups= without routing, qid= with it
        qid = kwargs.get("qid", kwargs.get("groups"))
        qid_column = getattr(self.base_cv, "qid_column", "qid")
        _, qid = resolve_qid(X, qid, qid_column=qid_column, caller=self.caller)
        for train, test in self.base_cv.split(X, y, **kwargs):
            train = self._whole_queries(train, qid)
            if self.subsample_test:
                test = self._whole_queries(test, qid)
            yield train, test

    def _whole_queries(self, rows, qid):
        """``fraction`` of the queries of ``rows``, whole, drawn in a random order."""
        if self.fraction >= 1:
            return rows
        codes, uniques = factorize(np.asarray(qid)[rows], len(rows))
        order = check_random_state(self.random_state).permutation(len(uniques))
        keep = np.zeros(len(uniques), dtype=bool)
        keep[order[:_n_drawn(self.fraction, len(uniques))]] = True
        return rows[keep[codes]]  # in the rows' own order


class _WholeQueries:
    """Swap scikit-learn's row-subsampling meta-splitter for the whole-query one."""

    def _run_search(self, evaluate_candidates, *, callback_ctx=None):
        caller = type(self).__name__
        # scikit-learn >= 1.9 passes its callback context to searches that take one
        kwargs = {} if callback_ctx is None else {"callback_ctx": callback_ctx}

        def evaluate_whole_queries(candidate_params, cv=None, *args, **more):
            if isinstance(cv, _SubsampleMetaSplitter):
                cv = _QuerySubsampleSplitter(cv, caller)
            return evaluate_candidates(candidate_params, cv, *args, **more)

        return super()._run_search(evaluate_whole_queries, **kwargs)

    def _check_input_parameters(self, X, y, split_params):
        """scikit-learn's checks, then ``min_resources_`` and ``max_resources_`` in queries."""
        if self.resource != "n_samples":
            return super()._check_input_parameters(X, y, split_params)
        caller = type(self).__name__
        qid_column = getattr(self._checked_cv_orig, "qid_column", "qid")
        _, qid = resolve_qid(X, split_params.get("qid", split_params.get("groups")),
                             qid_column=qid_column, caller=caller)
        qid = np.asarray(qid)
        n_queries = len(factorize(qid, len(qid))[1])
        for name in ("min_resources", "max_resources"):
            value = getattr(self, name)
            if isinstance(value, Integral) and value > n_queries:
                raise ValueError(
                    f"{caller} counts resource='n_samples' in queries, and {name}={value} "
                    f"is more than the {n_queries} queries of the data. Pass {name} as a "
                    "number of queries."
                )
        super()._check_input_parameters(X, y, split_params)
        if self.max_resources == "auto":
            self.max_resources_ = n_queries
        # scikit-learn's rounds draw n_resources / _n_samples_orig of each fold: of its queries
        self._n_samples_orig = n_queries

        # the fewest queries of a training fold, and the smallest round that draws
        # MIN_TRAIN_QUERIES of them
        fewest = min(len(np.unique(qid[train]))
                     for train, _ in self._checked_cv_orig.split(X, y, **split_params))
        floor = self.min_resources_
        while floor <= n_queries and _n_drawn(floor / n_queries, fewest) < MIN_TRAIN_QUERIES:
            floor += 1
        if floor > self.max_resources_:
            raise ValueError(
                f"{caller} needs its first round to train on at least {MIN_TRAIN_QUERIES} "
                f"queries, but its largest round holds max_resources_={self.max_resources_} "
                f"of the {n_queries} queries, whose smallest training fold has {fewest}: "
                "there is no room to halve. Use GridSearchCV or RandomizedSearchCV with "
                "a query splitter, more queries, or halve another resource, e.g. "
                "resource='n_estimators' with max_resources set."
            )
        if isinstance(self.min_resources, Integral) and floor > self.min_resources:
            drawn = _n_drawn(self.min_resources / n_queries, fewest)
            raise ValueError(
                f"{caller} counts resource='n_samples' in queries: min_resources="
                f"{self.min_resources} would train the first round's fits on {drawn} "
                f"quer{'y' if drawn == 1 else 'ies'}, whose scores say little of a "
                f"candidate's worth. Pass min_resources>={floor} (its first round then "
                f"trains on at least {MIN_TRAIN_QUERIES} queries), or 'smallest'."
            )
        # 'smallest' and 'exhaust' start from scikit-learn's floor, raised to ours
        self.min_resources_ = floor


class HalvingGridSearchCV(_WholeQueries, _SklearnHalvingGridSearchCV):
    """scikit-learn's :class:`~sklearn.model_selection.HalvingGridSearchCV` over whole queries.

    The same parameters, attributes and results. With ``resource="n_samples"`` (the
    default), the resource is counted in *queries*: a round with ``n_resources`` of the
    data's ``n_queries`` queries draws that fraction of the queries of every training and
    test fold, whole, in a random order, instead of a random fraction of the rows, which
    would cut every query short. ``min_resources``, ``max_resources`` (``"auto"``: every
    query), ``n_resources_`` and ``cv_results_["n_resources"]`` are numbers of queries.
    Other resources (``"n_estimators"``...) are unchanged.

    The first round's fits train on at least
    10 queries: a
    ranker trained on one or two queries scores far below its worth, and the round would
    discard candidates on noise. ``min_resources="smallest"`` and ``"exhaust"`` start at
    least there; a smaller integer ``min_resources`` is refused with the smallest one
    accepted, and so is data too small to halve.

    The query ids come as for the splitters: ``groups=`` or a routed ``qid`` reach the
    splitter, or a ``qid`` column of a DataFrame ``X``. Importing it enables
    scikit-learn's experimental halving searches.

    Examples
    --------
    >>> import sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import get_scorer
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.model_selection import HalvingGridSearchCV, QueryKFold
    >>> X, y, qid = make_ranking(n_queries=90, random_state=0)
    >>> search = HalvingGridSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0, 100.0]},
    ...                              cv=QueryKFold(3), scoring=get_scorer("ndcg@10"),
    ...                              factor=2, random_state=0)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, qid=qid)
    >>> search.n_resources_, search.n_candidates_  # queries, and candidates, per round
    ([22, 44, 88], [4, 2, 1])
    >>> search.best_params_
    {'alpha': 100.0}
    """


class HalvingRandomSearchCV(_WholeQueries, _SklearnHalvingRandomSearchCV):
    """scikit-learn's :class:`~sklearn.model_selection.HalvingRandomSearchCV` over whole
    queries.

    The same parameters, attributes and results; with ``resource="n_samples"`` (the
    default), the resource is counted in queries and each round draws whole queries, as
    :class:`HalvingGridSearchCV` does, its first round training on at least
    10 queries. With
    ``n_candidates="exhaust"``, the first round samples ``max_resources_ // min_resources_``
    candidates, both in queries.
    """
