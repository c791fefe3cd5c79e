"""Successive-halving searches whose subsamples are whole queries.

scikit-learn's halving searches with ``resource="n_samples"`` draw a random fraction of the
rows of every training and test fold: every query is cut short, so the early rounds train
and score truncated queries. The searches here are scikit-learn's own, with one change: each
round draws whole queries, in a random order, until it has the round's number of rows.
"""

import numpy as np
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV as _SklearnHalvingGridSearchCV
from sklearn.model_selection import HalvingRandomSearchCV as _SklearnHalvingRandomSearchCV
from sklearn.model_selection._search_successive_halving import _SubsampleMetaSplitter
from sklearn.utils import check_random_state

from ..utils._qid import factorize, resolve_qid


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
        """Whole queries of ``rows`` in a random order, until ``fraction`` of the rows."""
        if self.fraction >= 1:
            return rows
        codes, uniques = factorize(np.asarray(qid)[rows], len(rows))
        sizes = np.bincount(codes, minlength=len(uniques))
        order = check_random_state(self.random_state).permutation(len(uniques))
        budget = int(self.fraction * len(rows))
        n_queries = int(np.searchsorted(np.cumsum(sizes[order]), budget)) + 1
        keep = np.zeros(len(uniques), dtype=bool)
        keep[order[:min(n_queries, len(uniques))]] = True
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


class HalvingGridSearchCV(_WholeQueries, _SklearnHalvingGridSearchCV):
    """scikit-learn's :class:`~sklearn.model_selection.HalvingGridSearchCV` over whole queries.

    The same parameters, attributes and results. With ``resource="n_samples"`` (the
    default), each round draws whole queries from every training and test fold, in a random
    order, until it holds the round's number of rows, instead of a random fraction of the
    rows, which would cut every query short. Other resources (``"n_estimators"``...) are
    unchanged. The query ids come as for the splitters: ``groups=`` or a routed ``qid``
    reach the splitter, or a ``qid`` column of a DataFrame ``X``. Importing it enables
    scikit-learn's experimental halving searches.

    ``n_resources_`` and ``cv_results_["n_resources"]`` are scikit-learn's row budgets;
    a round holds that many rows of each fold, plus the rest of the query that crosses
    the budget.

    Examples
    --------
    >>> import sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import get_scorer
    >>> from sklearn_rank.datasets import make_ranking
    >>> from sklearn_rank.model_selection import HalvingGridSearchCV, QueryKFold
    >>> X, y, qid = make_ranking(n_queries=60, random_state=0)
    >>> search = HalvingGridSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0, 100.0]},
    ...                              cv=QueryKFold(3), scoring=get_scorer("ndcg@10"),
    ...                              factor=2, random_state=0)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, qid=qid)
    >>> search.n_candidates_, search.best_params_
    ([4, 2, 1], {'alpha': 10.0})
    """


class HalvingRandomSearchCV(_WholeQueries, _SklearnHalvingRandomSearchCV):
    """scikit-learn's :class:`~sklearn.model_selection.HalvingRandomSearchCV` over whole
    queries.

    The same parameters, attributes and results; with ``resource="n_samples"`` (the
    default), each round draws whole queries instead of rows, as
    :class:`HalvingGridSearchCV` does.
    """
