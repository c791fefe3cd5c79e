"""Generator of synthetic, LETOR-like learning-to-rank data."""

from numbers import Integral, Real

import numpy as np
from scipy.special import ndtri
from sklearn.utils import Bunch, check_random_state

from ..utils._param_validation import Interval, validate_params

# Standard deviation of the per-query shift of the latent relevance. It makes queries differ in
# how many relevant documents they have (some have none, as in MSLR-WEB and Yahoo! LTR), and it is
# invisible in the features, so only the order within a query can be learnt reliably.
_QUERY_EFFECT_STD = 0.5

# Each grade is this many times as frequent as the grade below it, so labels are skewed toward 0
# the way human judgements are: with 5 grades, about 52%, 26%, 13%, 6% and 3%.
_GRADE_RATIO = 0.5


@validate_params(
    {
        "n_queries": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_informative": [Interval(Integral, 0, None, closed="left")],
        "min_docs": [Interval(Integral, 1, None, closed="left")],
        "max_docs": [Interval(Integral, 1, None, closed="left")],
        "n_grades": [Interval(Integral, 2, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "return_X_y_qid": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_ranking(
    n_queries=100,
    *,
    n_features=20,
    n_informative=5,
    min_docs=5,
    max_docs=50,
    n_grades=5,
    noise=0.5,
    shuffle=True,
    random_state=None,
    return_X_y_qid=True,
):
    """Generate a random learning-to-rank problem with graded labels.

    Each query gets a number of documents drawn uniformly from ``[min_docs, max_docs]``. Every
    document has ``n_features`` standard normal features, of which the first ``n_informative``
    drive a latent relevance; the latent relevance is cut into ``n_grades`` grades with
    thresholds that make high grades rare, as in human-judged collections such as MSLR-WEB or
    Yahoo! LTR.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries.

    n_features : int, default=20
        Number of features per document.

    n_informative : int, default=5
        Number of features that carry signal: columns ``0`` to ``n_informative - 1`` of ``X``.
        The others are noise. Must not exceed ``n_features``.

    min_docs : int, default=5
        Smallest number of documents of a query.

    max_docs : int, default=50
        Largest number of documents of a query. Must be at least ``min_docs``.

    n_grades : int, default=5
        Number of relevance grades; labels are ``0, 1, ..., n_grades - 1``, each grade about half
        as frequent as the grade below it.

    noise : float, default=0.5
        Standard deviation of the Gaussian noise added to the latent relevance of each document,
        relative to the signal's standard deviation of 1. ``0`` makes the grades a deterministic
        function of the informative features and the query.

    shuffle : bool, default=True
        Whether to shuffle the rows, so that the documents of a query are not contiguous. With
        ``False``, rows are grouped by query in increasing ``qid``.

    random_state : int, RandomState instance or None, default=None
        Determines the random numbers. Pass an int for reproducible output across calls.

    return_X_y_qid : bool, default=True
        If True, return the tuple ``(X, y, qid)``. If False, return a
        :class:`~sklearn.utils.Bunch` that also holds the generating coefficients.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        The features. ``n_samples`` is the sum of the queries' sizes.

    y : ndarray of shape (n_samples,), dtype int64
        The relevance grades, in ``0, ..., n_grades - 1``.

    qid : ndarray of shape (n_samples,), dtype int64
        The query of each row, in ``0, ..., n_queries - 1``.

    data : :class:`~sklearn.utils.Bunch`
        Only when ``return_X_y_qid=False``, instead of the tuple: a Bunch with attributes
        ``data`` (``X``), ``target`` (``y``), ``qid`` and ``coef`` (ndarray of shape
        (n_features,), the weights of the features in the latent relevance, zero for the
        uninformative ones).

    See Also
    --------
    sklearn.datasets.make_regression : Random linear regression problem.

    Notes
    -----
    For document :math:`i` of query :math:`q`, the latent relevance is

    .. math:: z_i = x_i^\\top w + u_q + \\sigma \\varepsilon_i,

    with :math:`x_i` standard normal features, :math:`w` random weights on the informative
    features scaled to :math:`\\lVert w \\rVert = 1`, a query effect
    :math:`u_q \\sim \\mathcal{N}(0, 0.5^2)` that no feature reveals (queries differ in how many
    relevant documents they have, and some have none), and noise
    :math:`\\varepsilon_i \\sim \\mathcal{N}(0, 1)` scaled by ``noise``. The grade is the number
    of thresholds below :math:`z_i`; the thresholds are quantiles of the marginal distribution of
    :math:`z` chosen so that grade :math:`g` has probability proportional to :math:`2^{-g}`.

    Everything is drawn in a fixed order from one random state, without Python loops over
    queries or documents.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=4, min_docs=2, max_docs=6, random_state=0)
    >>> X.shape, y.shape, qid.shape
    ((18, 20), (18,), (18,))
    >>> np.unique(qid, return_counts=True)[1]
    array([6, 2, 5, 5])
    >>> np.bincount(y, minlength=5)
    array([7, 4, 4, 2, 1])
    """
    if n_informative > n_features:
        raise ValueError(
            f"n_informative must be at most n_features={n_features}. "
            f"Got n_informative={n_informative} instead."
        )
    if min_docs > max_docs:
        raise ValueError(
            f"min_docs must be at most max_docs={max_docs}. Got min_docs={min_docs} instead."
        )

    rng = check_random_state(random_state)

    sizes = rng.randint(min_docs, max_docs + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    n_samples = qid.shape[0]

    X = rng.standard_normal(size=(n_samples, n_features))

    coef = np.zeros(n_features)
    if n_informative > 0:
        magnitude = rng.uniform(0.5, 1.5, size=n_informative)
        sign = rng.choice([-1.0, 1.0], size=n_informative)
        weights = magnitude * sign
        coef[:n_informative] = weights / np.linalg.norm(weights)
    signal_var = 1.0 if n_informative > 0 else 0.0

    query_effect = rng.normal(scale=_QUERY_EFFECT_STD, size=n_queries)
    latent = X @ coef + query_effect[qid] + noise * rng.standard_normal(size=n_samples)

    # Quantiles of the marginal law of the latent relevance, which is N(0, total_var), so the
    # grade frequencies follow _GRADE_RATIO whatever n_informative and noise are.
    total_std = np.sqrt(signal_var + _QUERY_EFFECT_STD**2 + noise**2)
    grade_prob = _GRADE_RATIO ** np.arange(n_grades)
    grade_prob /= grade_prob.sum()
    thresholds = total_std * ndtri(np.cumsum(grade_prob)[:-1])
    y = np.searchsorted(thresholds, latent, side="right").astype(np.int64)

    if shuffle:
        permutation = rng.permutation(n_samples)
        X, y, qid = X[permutation], y[permutation], qid[permutation]

    if return_X_y_qid:
        return X, y, qid
    return Bunch(data=X, target=y, qid=qid, coef=coef)
