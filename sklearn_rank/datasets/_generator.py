"""Generator of synthetic, LETOR-like learning-to-rank data.

Two generating processes, both stated exactly in the Notes of :func:`make_ranking`: the
default, a latent relevance linear in the features; and ``realistic=True``, a simulation of what
makes web-search collections such as MSLR-WEB hard for a pointwise regressor (query-level
shifts of the relevance, features relative to the query, interactions), on which a ranking loss
beats least squares, as it does there.
"""

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

# The realistic mode; the Notes of make_ranking state the process these constants enter.
# Query-level features (in MSLR-WEB: the query's length, the IDF of its terms...), the last
# columns of X.
_N_QUERY_FEATURES = 3
# The query offset of the latent relevance has variance 1, as the relevance within the query
# has: _OBSERVED_OFFSET ** 2 of it is a nonlinear function of the query features, the rest
# (_HIDDEN_OFFSET times a standard normal) no query feature reveals.
_OBSERVED_OFFSET = 0.8
_HIDDEN_OFFSET = 0.6
# The norm of the shift, per unit of the hidden offset's standard normal, of the location of the
# uninformative document features: their level reveals part of the hidden offset, their
# variation within a query says nothing.
_HIDDEN_SHIFT = 1.0
# Mean and variance of sin(2a) b + |c| for independent standard normal a, b and c.
_OFFSET_MEAN = np.sqrt(2.0 / np.pi)
_OFFSET_VAR = (1.0 - np.exp(-8.0)) / 2.0 + 1.0 - 2.0 / np.pi


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
        "realistic": ["boolean"],
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
    realistic=False,
    random_state=None,
    return_X_y_qid=True,
):
    """Generate a random learning-to-rank problem with graded labels.

    Each query gets a number of documents drawn uniformly from ``[min_docs, max_docs]``. Every
    document has ``n_features`` standard normal features, of which the first ``n_informative``
    drive a latent relevance; the latent relevance is cut into ``n_grades`` grades with
    thresholds that make high grades rare, as in human-judged collections such as MSLR-WEB or
    Yahoo! LTR.

    With ``realistic=True``, the simulation adds what makes web-search data hard for a pointwise
    model: the relevance of a query's documents shifts with the query, nonlinearly in three
    query-level features and in part invisibly; the document features are relative to the
    query (their scale and location change from one query to the next, and some of them reveal
    the invisible shift without telling the relevant documents of a query apart); which
    features matter depends on the query; and features interact. There a listwise ranker such
    as LambdaRank beats a least-squares regressor of the grades clearly; on MSLR-WEB, the
    published margins between tuned models are much smaller (see :ref:`why-ranking-metrics`).

    ``random_state`` draws the problem (the weights of the features in the relevance, and
    with ``realistic=True`` the other terms of the process) together with the queries: two
    seeds are two different problems, and a model trained on the queries of one seed says
    nothing of how it ranks those of another. Draw training, validation and test queries in
    one call and split them by whole queries (see Examples): the queries of a call are
    independent draws of one process, so the queries of any set of ids fixed in advance (the
    first 120, the next 30...) are a random sample of it, and so are those that
    :class:`~sklearn_rank.model_selection.QueryShuffleSplit` draws.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries.

    n_features : int, default=20
        Number of features per document. With ``realistic=True``, the last 3 are query-level
        features (the same for every document of a query), and ``n_features`` must be at least
        ``n_informative + 3``.

    n_informative : int, default=5
        Number of features that carry signal: columns ``0`` to ``n_informative - 1`` of ``X``.
        The others are noise (with ``realistic=True``, but for the query-level features). Must
        not exceed ``n_features``.

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

    realistic : bool, default=False
        Whether to simulate the query-level shifts, query-relative features and interactions of
        web-search data (see Notes), instead of a relevance linear in the features. The default
        process is unchanged by this option.

    random_state : int, RandomState instance or None, default=None
        Determines the random numbers, the problem's as well as the queries': each seed is
        another problem. Pass an int for reproducible output across calls.

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
        uninformative ones: :math:`w` in the Notes). With ``realistic=True``, also the other
        terms of the process, in the notation of the Notes: ``query_columns`` (the indices of
        the query-level columns of ``X``), ``query_coef`` (:math:`B`, of shape (3,
        n_features), zero but on the informative columns), ``feature_shift`` (:math:`C`, of
        shape (3, n_features), zero on the query-level columns), ``query_offset`` (:math:`b`,
        of shape (n_queries,), indexed by query id), ``latent`` (:math:`z`, of shape
        (n_samples,)) and ``thresholds`` (of shape (n_grades - 1,)).

    See Also
    --------
    sklearn.datasets.make_regression : Random linear regression problem.
    sklearn_rank.model_selection.QueryShuffleSplit : Random splits of whole queries.

    Notes
    -----
    **Default process.** For document :math:`i` of query :math:`q`, the latent relevance is

    .. math:: z_i = x_i^\\top w + u_q + \\sigma \\varepsilon_i,

    with :math:`x_i` standard normal features, :math:`w` random weights on the informative
    features scaled to :math:`\\lVert w \\rVert = 1`, a query effect
    :math:`u_q \\sim \\mathcal{N}(0, 0.5^2)` that no feature reveals (queries differ in how many
    relevant documents they have, and some have none), and noise
    :math:`\\varepsilon_i \\sim \\mathcal{N}(0, 1)` scaled by ``noise``. The grade is the number
    of thresholds below :math:`z_i`; the thresholds are quantiles of the marginal distribution of
    :math:`z` chosen so that grade :math:`g` has probability proportional to :math:`2^{-g}`.

    **Realistic process** (``realistic=True``), a simulation: its terms are chosen to mimic the
    structure of web-search collections, not fitted to any of them. Query :math:`q` has three
    query-level features :math:`v_q \\sim \\mathcal{N}(0, I_3)`, the last columns of ``X``.
    Document :math:`i` of query :math:`q` has latent features
    :math:`t_i \\sim \\mathcal{N}(0, I_p)`, :math:`p` = ``n_features - 3``, of which the first
    :math:`r` = ``n_informative`` are informative. With :math:`m = \\lfloor r/2 \\rfloor`
    pairs of informative features, the relevance within the query is

    .. math::

        h_i = \\frac{1}{s} \\Big( \\sum_{j=1}^{r} t_{ij} \\big(w_j + (v_q^\\top B)_j\\big)
        + \\frac{1}{\\sqrt{m}} \\sum_{j=1}^{m} t_{i,2j-1} \\, t_{i,2j} \\Big),
        \\qquad s^2 = 1 + \\lVert B \\rVert_F^2 + [m \\geq 1],

    with :math:`w` as in the default process, :math:`B \\in \\mathbb{R}^{3 \\times r}` with
    independent :math:`\\mathcal{N}(0, 1/(3r))` entries (the query decides which features
    matter most), products of pairs of features (interactions), and :math:`s` making the
    variance of :math:`h` 1. The latent relevance adds a query offset and noise,

    .. math::

        z_i = h_i + b_q + \\sigma \\varepsilon_i, \\qquad
        b_q = 0.8 \\, \\frac{\\sin(2 v_{q1}) \\, v_{q2} + |v_{q3}| - \\sqrt{2/\\pi}}
        {\\sqrt{(1 - e^{-8})/2 + 1 - 2/\\pi}} + 0.6 \\, u_q,

    with :math:`u_q, \\varepsilon_i \\sim \\mathcal{N}(0, 1)`: the offset has mean 0 and
    variance 1, 64% of it a nonlinear function of the query features, the rest (:math:`u_q`)
    invisible in them. The observed features of the document are relative to the query, as
    term counts and BM25 scores are (they grow with the query's length):

    .. math:: x_i = e^{v_{q1}/2} \\, t_i + C^\\top v_q + u_q \\, a,

    with :math:`C \\in \\mathbb{R}^{3 \\times p}` with independent :math:`\\mathcal{N}(0, 1/3)`
    entries, and :math:`a_j = 0` for the informative features (:math:`j \\leq r`),
    :math:`a_j = 1 / \\sqrt{p - r}` for the others: the level of the uninformative features
    moves with the hidden part of the offset, as the click and popularity features of a popular
    query are high for all its documents, while their variation within a query says nothing
    of relevance. A row of ``X`` is :math:`(x_i, v_q)`. The grade is the number of thresholds
    below :math:`z_i`, at the quantiles :math:`\\sqrt{2 + \\sigma^2} \\, \\Phi^{-1}(\\cdot)` of the
    normal law of :math:`z`'s mean and variance; :math:`z` is not exactly normal, so the grade
    frequencies are only close to :math:`2^{-g}`.

    The offset :math:`b_q` moves every document of a query alike: it cancels from every
    comparison of two documents of a query, which is all that a ranking loss looks at, and so
    do :math:`C^\\top v_q` and :math:`u_q a` from the difference of their features. A
    least-squares fit of the grades has to model them all: it spends its capacity on the
    offset, and it learns to read the hidden part of the offset from the level of the
    uninformative features, a signal between queries that is noise within a query. With the
    same trees, LambdaRank's ``nDCG@10`` beats a least-squares regressor's by about 0.03 to 0.06
    on 500 queries, at every seed tried; on the default process the two tie.

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

    Training, validation and test queries of one problem: one call, split by query.

    >>> X, y, qid = make_ranking(n_queries=180, random_state=0)
    >>> train, valid, test = qid < 120, (qid >= 120) & (qid < 150), qid >= 150
    >>> X_train, y_train, qid_train = X[train], y[train], qid[train]
    >>> [len(np.unique(qid[rows])) for rows in (train, valid, test)]
    [120, 30, 30]

    The realistic simulation: the last 3 columns are the same for every document of a query.

    >>> data = make_ranking(n_queries=4, min_docs=2, max_docs=6, realistic=True,
    ...                     random_state=0, return_X_y_qid=False)
    >>> data.query_columns
    array([17, 18, 19])
    >>> first_query = data.data[data.qid == 0]
    >>> bool((first_query[:, 17:] == first_query[0, 17:]).all())
    True
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
    if realistic and n_informative + _N_QUERY_FEATURES > n_features:
        raise ValueError(
            f"With realistic=True, n_features must be at least n_informative + "
            f"{_N_QUERY_FEATURES}={n_informative + _N_QUERY_FEATURES}: the last "
            f"{_N_QUERY_FEATURES} columns are query-level features. Got "
            f"n_features={n_features} instead."
        )

    rng = check_random_state(random_state)

    sizes = rng.randint(min_docs, max_docs + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    n_samples = qid.shape[0]

    grade_prob = _GRADE_RATIO ** np.arange(n_grades)
    grade_prob /= grade_prob.sum()
    # Standard normal quantiles that give grade g the probability grade_prob[g].
    standard_thresholds = ndtri(np.cumsum(grade_prob)[:-1])

    if realistic:
        X, latent, generator = _realistic(rng, qid, n_queries, n_features, n_informative,
                                          noise)
        coef = generator["coef"]
        # Mean 0 and variance 1 + 1 + noise**2 (signal, query offset, noise).
        total_var = 1.0 + _OBSERVED_OFFSET**2 + _HIDDEN_OFFSET**2 + noise**2
        thresholds = np.sqrt(total_var) * standard_thresholds
    else:
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

        # Quantiles of the marginal law of the latent relevance, which is N(0, total_var), so
        # the grade frequencies follow _GRADE_RATIO whatever n_informative and noise are.
        total_std = np.sqrt(signal_var + _QUERY_EFFECT_STD**2 + noise**2)
        thresholds = total_std * standard_thresholds
    y = np.searchsorted(thresholds, latent, side="right").astype(np.int64)

    if shuffle:
        permutation = rng.permutation(n_samples)
        X, y, qid, latent = X[permutation], y[permutation], qid[permutation], latent[permutation]

    if return_X_y_qid:
        return X, y, qid
    if realistic:
        return Bunch(data=X, target=y, qid=qid, latent=latent, thresholds=thresholds,
                     **generator)
    return Bunch(data=X, target=y, qid=qid, coef=coef)


def _realistic(rng, qid, n_queries, n_features, n_informative, noise):
    """The features and latent relevance of the realistic process (``make_ranking``'s Notes).

    Returns ``X`` and the latent relevance ``z`` of each row (grouped by query), and the terms
    of the process for the Bunch, in ``n_features`` columns.
    """
    n_samples = qid.shape[0]
    n_query = _N_QUERY_FEATURES
    n_document = n_features - n_query
    query_features = rng.standard_normal(size=(n_queries, n_query))  # v
    latent_features = rng.standard_normal(size=(n_samples, n_document))  # t

    # The relevance within the query, h, of variance 1.
    coef = np.zeros(n_features)  # w
    query_coef = np.zeros((n_query, n_features))  # B
    signal = np.zeros(n_samples)
    if n_informative > 0:
        magnitude = rng.uniform(0.5, 1.5, size=n_informative)
        sign = rng.choice([-1.0, 1.0], size=n_informative)
        weights = magnitude * sign
        coef[:n_informative] = weights / np.linalg.norm(weights)
        query_coef[:, :n_informative] = rng.normal(
            scale=1.0 / np.sqrt(n_query * n_informative), size=(n_query, n_informative))
        informative = latent_features[:, :n_informative]
        query_weights = coef[:n_informative] + query_features @ query_coef[:, :n_informative]
        signal = np.einsum("ij,ij->i", informative, query_weights[qid])
        n_pairs = n_informative // 2
        if n_pairs > 0:
            products = informative[:, 0:2 * n_pairs:2] * informative[:, 1:2 * n_pairs:2]
            signal += products.sum(axis=1) / np.sqrt(n_pairs)
        signal /= np.sqrt(1.0 + np.sum(query_coef**2) + (n_pairs > 0))

    # The query offset b, of variance 1: part a nonlinear function of v, part hidden (u).
    first, second, third = query_features.T
    observed = (np.sin(2.0 * first) * second + np.abs(third) - _OFFSET_MEAN) / np.sqrt(_OFFSET_VAR)
    hidden = rng.standard_normal(n_queries)
    query_offset = _OBSERVED_OFFSET * observed + _HIDDEN_OFFSET * hidden
    latent = signal + query_offset[qid] + noise * rng.standard_normal(size=n_samples)

    # The document features relative to the query: a scale and a location per query, the
    # location of the uninformative features moving with the hidden offset.
    feature_shift = np.zeros((n_query, n_features))  # C
    feature_shift[:, :n_document] = rng.normal(scale=1.0 / np.sqrt(n_query),
                                               size=(n_query, n_document))
    loading = np.zeros(n_document)  # a
    if n_document > n_informative:
        loading[n_informative:] = _HIDDEN_SHIFT / np.sqrt(n_document - n_informative)
    scale = np.exp(first / 2.0)
    location = query_features @ feature_shift[:, :n_document] + hidden[:, None] * loading
    X = np.empty((n_samples, n_features))
    X[:, :n_document] = scale[qid, None] * latent_features + location[qid]
    X[:, n_document:] = query_features[qid]

    generator = {"coef": coef, "query_columns": np.arange(n_document, n_features),
                 "query_coef": query_coef, "feature_shift": feature_shift,
                 "query_offset": query_offset}
    return X, latent, generator
