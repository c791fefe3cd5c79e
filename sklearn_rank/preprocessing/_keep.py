"""Transform the features of a DataFrame and carry its query-id column through, unchanged."""

import numpy as np
from scipy import sparse
from sklearn import get_config
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..utils._param_validation import validate_parameter_constraints
from ..utils._qid import _is_dataframe, drop_qid_column, has_qid_column


def _transformer_has(method):
    return lambda self: hasattr(self.transformer, method)


class KeepQueryId(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """Transform every column but the query ids, and carry the query-id column through.

    A transformer in front of a ranker, such as ``make_pipeline(StandardScaler(),
    LGBMRanker())`` on a DataFrame with a ``qid`` column and metadata routing off, loses the
    query ids: it returns an array, so the ranker never sees them, and it transforms the
    query-id column as if it were a feature. Wrapped as ``KeepQueryId(StandardScaler())``, the
    transformer fits and transforms the other columns only, and the output is a DataFrame of
    the transformed features with the query-id column appended, unchanged, for the ranker to
    read (and drop) as it reads it from any DataFrame: ``make_pipeline(KeepQueryId(
    StandardScaler()), LGBMRanker())`` fits and predicts exactly as ``make_pipeline(
    StandardScaler(), LGBMRanker())`` does with ``qid`` routed. See :ref:`qid-routing`.

    Input without the query-id column goes to the transformer whole: an array (as with
    metadata routing) comes back as the transformer returns it, so the same pipeline also
    works with routing on; a DataFrame (as ``predict`` may get) comes back a DataFrame of the
    transformed features.

    Parameters
    ----------
    transformer : estimator object
        The transformer of the features: any scikit-learn transformer (a
        :class:`~sklearn.compose.ColumnTransformer` too, which sees a DataFrame without the
        query-id column and may select columns by name). It is cloned in ``fit``.

    qid_column : str, default="qid"
        Name of the query-id column, as the ranker's ``qid_column``.

    Attributes
    ----------
    transformer_ : estimator object
        The fitted clone of ``transformer``.

    n_features_in_ : int
        Number of columns seen in fit, the query-id column included.

    feature_names_in_ : ndarray of str
        Names of the columns seen in fit, when ``X`` is a DataFrame with string column names.

    See Also
    --------
    DropQueryId : Drop the query-id column, before a pointwise model.

    Notes
    -----
    A DataFrame input gives a DataFrame of the same library (pandas or polars), or of the
    library that ``set_output(transform=...)`` names; ``set_output`` is passed on to
    ``transformer``. A pandas output keeps the input's
    index, and the query-id column keeps its dtype. A transformer whose output is sparse
    (``OneHotEncoder`` by default) cannot be carried into a DataFrame: set its
    ``sparse_output=False``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_rank.preprocessing import KeepQueryId
    >>> X = pd.DataFrame({"f0": [0.0, 1.0, 2.0, 3.0], "qid": [7, 7, 9, 9]})
    >>> KeepQueryId(StandardScaler()).fit_transform(X)
             f0  qid
    0 -1.341641    7
    1 -0.447214    7
    2  0.447214    9
    3  1.341641    9

    In front of a ranker, with metadata routing off:

    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn_rank.lightgbm import LGBMRanker
    >>> model = make_pipeline(KeepQueryId(StandardScaler()), LGBMRanker())
    """

    _parameter_constraints = {"qid_column": [str]}

    def __init__(self, transformer, *, qid_column="qid"):
        self.transformer = transformer
        self.qid_column = qid_column

    # ------------------------------------------------------------------ fit, transform

    def _validate(self):
        validate_parameter_constraints(self._parameter_constraints,
                                       {"qid_column": self.qid_column},
                                       caller_name=type(self).__name__)
        if not hasattr(self.transformer, "transform") or not (
                hasattr(self.transformer, "fit") or hasattr(self.transformer, "fit_transform")):
            raise TypeError(
                f"KeepQueryId needs a transformer (with fit and transform); got "
                f"transformer={self.transformer!r}."
            )

    def _record_input(self, X):
        """``n_features_in_`` and ``feature_names_in_``, once the transformer took ``X``."""
        carried = self._carries_qid = has_qid_column(X, self.qid_column)
        n_features = getattr(self.transformer_, "n_features_in_", None)
        self.n_features_in_ = np.shape(X)[1] if n_features is None else n_features + carried
        columns = getattr(X, "columns", None)
        if columns is not None and all(isinstance(name, str) for name in columns):
            self.feature_names_in_ = np.asarray(list(columns), dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _fit_params(self, method, params):
        if get_config().get("enable_metadata_routing"):
            return getattr(process_routing(self, method, **params).transformer, method)
        return params

    def fit(self, X, y=None, **fit_params):
        """Fit the transformer on the columns of ``X`` other than the query ids.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features and, in a pandas or polars DataFrame, the query-id column.
        y : array-like of shape (n_samples,), default=None
            Passed to the transformer's ``fit``.
        **fit_params
            Passed to the transformer's ``fit`` (routed to it with metadata routing on).

        Returns
        -------
        self : KeepQueryId
        """
        self._validate()
        self.transformer_ = clone(self.transformer)
        self.transformer_.fit(drop_qid_column(X, self.qid_column), y,
                              **self._fit_params("fit", fit_params))
        self._record_input(X)
        return self

    def fit_transform(self, X, y=None, **fit_params):
        """Fit the transformer on the features, and transform them; the query ids pass.

        The transformer's own ``fit_transform`` is called, which may differ from ``fit``
        then ``transform`` (a :class:`~sklearn.preprocessing.TargetEncoder` cross-fits).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features and, in a pandas or polars DataFrame, the query-id column.
        y : array-like of shape (n_samples,), default=None
            Passed to the transformer.
        **fit_params
            Passed to the transformer (routed to it with metadata routing on).

        Returns
        -------
        X_out : DataFrame or array-like
            As :meth:`transform` returns.
        """
        self._validate()
        self.transformer_ = clone(self.transformer)
        features = drop_qid_column(X, self.qid_column)
        if hasattr(self.transformer_, "fit_transform"):
            transformed = self.transformer_.fit_transform(
                features, y, **self._fit_params("fit_transform", fit_params))
        else:
            transformed = self.transformer_.fit(
                features, y, **self._fit_params("fit", fit_params)).transform(features)
        self._record_input(X)
        return self._with_qid(transformed, X)

    def transform(self, X):
        """Transform the columns other than the query ids, and append the query-id column.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features and, in a pandas or polars DataFrame, the query-id column.

        Returns
        -------
        X_out : DataFrame or array-like
            For a DataFrame ``X``, a DataFrame (pandas or polars, as ``X``, or as
            ``set_output`` says) of the transformed features, then the query-id column as it
            was, if ``X`` has it. For an array, the transformer's output.
        """
        check_is_fitted(self, "transformer_")
        return self._with_qid(self.transformer_.transform(drop_qid_column(X, self.qid_column)),
                              X)

    def _with_qid(self, transformed, X):
        """``transformed`` as a DataFrame with the query-id column of ``X`` appended.

        A DataFrame ``X`` without the column (as ``predict`` may get) gives a DataFrame of
        the transformed features, so that the next step sees the feature names it was fitted
        on; an array ``X`` gives the transformer's output as it is.
        """
        carried = has_qid_column(X, self.qid_column)
        if not (carried or _is_dataframe(X)):
            return transformed
        if sparse.issparse(transformed):
            raise ValueError(
                f"KeepQueryId returns a DataFrame of the transformed features and the "
                f"{self.qid_column!r} column, but {type(self.transformer_).__name__} returned "
                "a sparse matrix, which a DataFrame cannot hold: set the transformer's "
                "sparse_output=False (sparse=False), or pass the query ids with metadata "
                "routing instead."
            )
        output = self._output_library(X)
        names = self._transformed_names(transformed)
        if carried and self.qid_column in names:
            raise ValueError(
                f"{type(self.transformer_).__name__} returned a column named "
                f"{self.qid_column!r}, the query-id column that KeepQueryId appends: rename "
                "that feature, or give the query ids another qid_column."
            )
        qid = X[self.qid_column] if carried else None
        if output == "polars":
            import polars as pl

            if not isinstance(transformed, pl.DataFrame):
                if hasattr(transformed, "iloc"):  # pandas
                    transformed = pl.from_pandas(transformed)
                else:
                    transformed = pl.DataFrame(np.asarray(transformed), schema=names,
                                               orient="row")
            if qid is None:
                return transformed
            if not isinstance(qid, pl.Series):
                qid = pl.from_pandas(qid)
            return transformed.with_columns(qid.alias(self.qid_column))
        import pandas as pd

        index = X.index if isinstance(X, pd.DataFrame) else None
        if hasattr(transformed, "to_pandas"):  # polars
            transformed = transformed.to_pandas()
        if not isinstance(transformed, pd.DataFrame):
            transformed = pd.DataFrame(np.asarray(transformed), columns=names, index=index)
        elif index is not None:
            transformed = transformed.set_axis(index, axis=0)
        if qid is None:
            return transformed
        qid = qid.to_pandas() if not isinstance(qid, pd.Series) else qid
        return transformed.assign(**{self.qid_column: qid.set_axis(transformed.index)})

    def _output_library(self, X):
        """The library of the output DataFrame: set_output's, else that of ``X``."""
        config = getattr(self, "_sklearn_output_config", {}).get(
            "transform", get_config()["transform_output"])
        if config in ("pandas", "polars"):
            return config
        return "polars" if type(X).__module__.startswith("polars") else "pandas"

    def _transformed_names(self, transformed):
        columns = getattr(transformed, "columns", None)
        if columns is not None:
            return [str(name) for name in columns]
        if hasattr(self.transformer_, "get_feature_names_out"):
            return [str(name) for name in self.transformer_.get_feature_names_out()]
        return [f"x{i}" for i in range(np.shape(transformed)[1])]

    # ------------------------------------------------------------------ scikit-learn API

    @available_if(_transformer_has("get_feature_names_out"))
    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: the transformer's, then the query-id column.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input column names, the query-id column included or not; those seen in fit
            when None.

        Returns
        -------
        names : ndarray of str
        """
        check_is_fitted(self, "transformer_")
        if input_features is None:
            carried = self._carries_qid
            input_features = getattr(self, "feature_names_in_", None)
        else:
            carried = self.qid_column in list(input_features)
        if input_features is not None:
            input_features = [name for name in input_features if name != self.qid_column]
        names = list(self.transformer_.get_feature_names_out(input_features))
        if carried:
            names.append(self.qid_column)
        return np.asarray(names, dtype=object)

    def set_output(self, *, transform=None):
        """Set the output container of ``transform`` and ``fit_transform``, here and inside.

        The setting is passed on to ``transformer`` (and to the fitted ``transformer_``).

        Parameters
        ----------
        transform : {"default", "pandas", "polars"}, default=None
            With the query-id column in the input, the output is a DataFrame of this library
            (of the input's for ``"default"``); without it, the transformer's output, which
            this configures. None leaves the configuration unchanged.

        Returns
        -------
        self : KeepQueryId
        """
        if transform is None:
            return self
        if not hasattr(self, "_sklearn_output_config"):
            self._sklearn_output_config = {}
        self._sklearn_output_config["transform"] = transform
        for transformer in (self.transformer, getattr(self, "transformer_", None)):
            if transformer is not None and hasattr(transformer, "set_output"):
                transformer.set_output(transform=transform)
        return self

    def get_metadata_routing(self):
        """Get the metadata routing of this object: ``fit`` routes to the transformer's.

        Returns
        -------
        routing : MetadataRouter
        """
        return MetadataRouter(owner=self).add(
            transformer=self.transformer,
            method_mapping=MethodMapping()
            .add(caller="fit", callee="fit")
            .add(caller="fit_transform", callee="fit_transform")
            .add(caller="fit_transform", callee="fit"),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if not hasattr(self.transformer, "__sklearn_tags__"):
            return tags  # not a scikit-learn estimator: fit says so
        inner = get_tags(self.transformer)
        for name in ("sparse", "allow_nan", "categorical", "string", "positive_only"):
            setattr(tags.input_tags, name, getattr(inner.input_tags, name))
        if inner.transformer_tags is not None:
            tags.transformer_tags.preserves_dtype = inner.transformer_tags.preserves_dtype
        tags.requires_fit = inner.requires_fit
        return tags
