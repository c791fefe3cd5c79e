"""Keep the query-id column of a DataFrame away from a pointwise model."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils._qid import drop_qid_column, has_qid_column, resolve_qid
from ..utils._trained import TrainedQueries


class DropQueryId(TransformerMixin, BaseEstimator):
    """Drop the query-id column of a DataFrame, so that the model never sees it as a feature.

    Without metadata routing, sklearn-rank's scorers and splitters read the query ids from a
    column of ``X`` (see :ref:`qid-routing`). Put this transformer first in a pipeline that
    ends with a pointwise model (any scikit-learn regressor or classifier) so that the column
    reaches the scorers and splitters but not the model. Input without the column passes
    through unchanged, so the same pipeline also works with metadata routing.

    It also remembers the queries it was fitted on (their ids, sizes and grades, read from
    the column, or from ``qid`` routed to its ``fit``), so that a ranking scorer refuses to
    score a pipeline that holds it on the rest of a query it was trained on: what a splitter
    that ignores queries (``cv=5``, ``KFold``) leaves in its test sets (see
    :func:`sklearn_rank.model_selection.reused_query_ids`).

    Parameters
    ----------
    qid_column : str, default="qid"
        Name of the column to drop.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in fit, the query-id column included.

    feature_names_in_ : ndarray of str
        Names of the columns seen in fit, when ``X`` is a DataFrame.

    See Also
    --------
    KeepQueryId : Transform the other columns and carry the query-id column through, in
        front of a ranker.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.ensemble import HistGradientBoostingRegressor
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn_rank.preprocessing import DropQueryId
    >>> X = pd.DataFrame({"qid": [1, 1, 2, 2], "f0": [0.1, 0.4, 0.3, 0.2]})
    >>> DropQueryId().fit_transform(X).columns.tolist()
    ['f0']
    >>> model = make_pipeline(DropQueryId(), HistGradientBoostingRegressor())
    """

    _parameter_constraints = {"qid_column": [str]}

    # Under metadata routing, fit asks for the query ids, to remember the training queries.
    __metadata_request__fit = {"qid": True}

    def __init__(self, qid_column="qid"):
        self.qid_column = qid_column

    def fit(self, X, y=None, qid=None):
        """Record the input's columns, and the training queries.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Input.
        y : array-like of shape (n_samples,), default=None
            Relevance grades: with query ids, they make the record of the training queries.
        qid : array-like of shape (n_samples,), default=None
            Query ids; taken from ``X[qid_column]`` when None. Requested by default under
            metadata routing.

        Returns
        -------
        self : DropQueryId
        """
        self._validate_params()
        if hasattr(X, "columns"):
            self.feature_names_in_ = np.asarray([str(c) for c in X.columns], dtype=object)
        self.n_features_in_ = np.shape(X)[1]
        if qid is None and has_qid_column(X, self.qid_column):
            _, qid = resolve_qid(X, qid_column=self.qid_column, caller="DropQueryId.fit")
        self._trained_queries = (None if y is None or qid is None or isinstance(qid, str)
                                 else TrainedQueries.of(y, qid))
        return self

    def transform(self, X):
        """Return ``X`` without its query-id column.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Input.

        Returns
        -------
        X_out : array-like or DataFrame
            ``X`` without the column; unchanged when it has none.
        """
        check_is_fitted(self, "n_features_in_")
        return drop_qid_column(X, self.qid_column)

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input column names; those seen in fit when None.

        Returns
        -------
        names : ndarray of str
        """
        check_is_fitted(self, "n_features_in_")
        names = input_features if input_features is not None else getattr(
            self, "feature_names_in_", [f"x{i}" for i in range(self.n_features_in_)]
        )
        return np.asarray([n for n in names if n != self.qid_column], dtype=object)
