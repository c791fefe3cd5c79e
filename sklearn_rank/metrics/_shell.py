"""The shell of the public metric functions: what each of them does, written once.

Each public function (in the module of its family: ``_graded.py``, ``_binary.py``,
``_judged.py``, ``_sets.py``, ``_correlation.py``) has an explicit signature, for IDEs and
numpydoc; everything else about its metric (options, defaults, constraints, kernel,
aggregation) comes from its entry in :data:`~sklearn_rank.metrics._registry.METRICS`, through
the helpers here, and its docstring is filled from the shared parameter descriptions here.
``tests/test_metric_spec.py`` checks the signature against that entry.
"""

import numpy as np

from ._dask import dask_score, is_dask_collection
from ._input import check_ranking_input
from ._registry import CONSTRAINTS, METRICS
from ._result import means_of, result_of


def _constraints(metric, **extra):
    """The ``validate_params`` constraints of the public function of ``metric``: its data
    arguments, its options (from the registry) and ``extra`` arguments of its own."""
    spec = METRICS[metric]
    data = ("y_true", "y_score", "qid", *spec.inputs, "sample_weight", "convention",
            "return_per_query")
    return {**{name: CONSTRAINTS[name] for name in data}, **spec.constraints, **extra}


def _data(metric, arguments):
    """The validated arrays of a call of the public function of ``metric``."""
    spec = METRICS[metric]
    inputs = {name: arguments[name] for name in spec.inputs}
    return check_ranking_input(arguments["y_true"], arguments["y_score"], arguments["qid"],
                               arguments["sample_weight"], caller=spec.function_name,
                               **inputs)


def _options(metric, arguments):
    """The options of ``metric`` among ``arguments``, no_relevant included."""
    return {option.name: arguments[option.name] for option in METRICS[metric].all_options}


def _result(metric, arguments, data=None):
    """The :class:`PerQueryResult` of the public function of ``metric`` called with
    ``arguments``: one metric, named as the function is (``"ndcg_score"``, in messages)."""
    spec = METRICS[metric]
    data = _data(metric, arguments) if data is None else data
    return result_of(data, [(spec.function_name, spec, _options(metric, arguments))],
                     arguments["convention"])


def _score(metric, arguments):
    """The value of the public function of ``metric`` called with ``arguments``.

    ``arguments`` is the function's ``locals()`` on entry: its parameters by name, so that
    no function copies its option list by hand. Dask inputs go to
    :func:`~sklearn_rank.metrics._dask.dask_score`.
    """
    data = ("y_true", "y_score", "qid", "sample_weight", *METRICS[metric].inputs)
    if any(is_dask_collection(arguments[name]) for name in data):
        return dask_score(metric, arguments)
    result = _result(metric, arguments)
    name = METRICS[metric].function_name
    if arguments["return_per_query"]:
        return np.array(result[name])  # bare and writable, as always
    # the warning of a metric whose every query was skipped: at the caller of the public
    # function, past this frame, the function's and that of validate_params
    return means_of(result, stacklevel=5)[name]


# The judged mask, described in both tails of the parameters.
_JUDGED_DOC = """judged : array-like of bool of shape (n_samples,) or "y_true", default=None
        Which documents have a judgement. ``False`` marks those without one (in a TREC
        run, those that the qrels do not list); their ``y_true`` must be 0, NaN (outside
        the judgement pool) or negative (trec_eval's -1: in the pool, left unjudged), so
        that the ``judged`` mask of :func:`~sklearn_rank.datasets.read_trec` gives what
        ``"y_true"`` gives.
        ``"y_true"`` reads it from ``y_true`` as trec_eval reads qrels: NaN marks a
        document without a judgement, a negative grade (trec_eval's -1) one in the
        judgement pool left unjudged (see :func:`sklearn_rank.datasets.read_trec`).
        ``None`` means that every row is judged; NaN and negative grades are then
        refused. Unjudged documents count as non-relevant (see ``unjudged``); bpref,
        infAP and Judged@k read the mask."""


# The document names, described in the tails of the parameters.
_DOCNO_DOC = """docno : array-like of shape (n_samples,), default=None
        Name of each document (strings, as in a TREC run; other values are written as
        text). With ``ties="stable"``, equal scores are ranked by name, descending (compared
        byte by byte), as trec_eval ranks them, instead of by row order:
        ``convention="trec_eval"`` reproduces trec_eval whatever the row order. Without
        names, that convention warns when tied documents of different grades keep their row
        order (:class:`~sklearn_rank.metrics.TiedScoresWarning`)."""


_DOCS = {
    "data": """y_true : array-like of shape (n_samples,)
        Graded relevance of each document: non-negative finite numbers (ints or floats).
        Lists, numpy arrays, pandas and polars Series are accepted.

    y_score : array-like of shape (n_samples,)
        Score of each document; higher ranks first. Infinite scores are allowed, NaN is
        not. Scores are ranked exactly as given: integers (beyond 2**53 too, e.g.
        nanosecond timestamps), ``datetime64`` and long doubles are never rounded to
        float64 into false ties.""",
    "qid": """qid : array-like of shape (n_samples,) or "single_query", default=None
        Query id of each document, of any sortable dtype (ints, strings...). Rows may come
        in any order and the documents of a query need not be contiguous. Required: the
        default ``None`` (qid left out) raises a ``ValueError``, since the rows of several
        queries scored as one give a wrong number. ``"single_query"`` scores all rows as
        one query, on purpose (the opt-in that the rankers take too).""",
    "k": """k : int, default=None
        Only the top ``k`` ranked documents of each query count. ``None`` means the whole
        list, as does any ``k`` beyond the longest list (P@k, though, still divides by
        ``k`` with ``short_lists="k"``).""",
    "gain": """gain : {"exponential", "linear"}, default=None
        Gain of a document of grade ``y``: ``2**y - 1`` (Burges et al., LightGBM, XGBoost)
        or ``y`` (Järvelin & Kekäläinen, trec_eval, scikit-learn). ``None`` means
        ``"exponential"``, or the value of ``convention``.""",
    "dcg_gain": """gain : {"exponential", "linear"} or dict, default=None
        Gain of a document of grade ``y``: ``2**y - 1`` (Burges et al., LightGBM, XGBoost)
        or ``y`` (Järvelin & Kekäläinen, trec_eval, scikit-learn), or a mapping grade ->
        gain such as ``{1: 3, 2: 9, 4: 4.5}`` (trec_eval's ``ndcg.1=3,2=9,4=4.5``,
        ir_measures' ``nDCG(gains=...)``; the name ``"ndcg(gains={1: 3, 2: 9})"``), in
        which a grade that the mapping does not list keeps its own value as gain (grade 3
        above has gain 3, trec_eval's rule) and a document without a judgement has gain 0
        whatever grade 0's gain. Grades are non-negative numbers, gains finite ones
        (negative gains are allowed, as in trec_eval). The ideal ordering sorts the
        judged documents by decreasing gain and counts the positive gains only.
        ``None`` means ``"exponential"``, or the value of ``convention``.""",
    "discount": """discount : {"log", "rank"}, default="log"
        Discount of the document at rank ``i``: ``1 / log_b(i + 1)`` with ``log_b`` of
        base ``log_base`` (Järvelin & Kekäläinen, and every system's default), or ``1 / i``
        (CatBoost's ``denominator=Position``, TF-Ranking's reciprocal-rank discount), for
        which ``log_base`` is not used.""",
    "log_base": """log_base : float, default=2
        Base of the logarithm of the position discount ``1 / log_b(i + 1)`` (with
        ``discount="log"``).""",
    "ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered. ``"average"``: the exact
        expectation of the metric over all orderings of each run of tied scores;
        ``"stable"``: input row order; ``"optimistic"`` / ``"pessimistic"``: more / less
        relevant documents first, then input order. ``None`` means ``"average"``, or the
        value of ``convention``.""",
    "no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query that has no relevant document, for which the metric is
        undefined. ``np.nan`` skips such queries: they leave the mean. ``"raise"`` raises a
        ``ValueError``. ``None`` means ``0.0``, or the value of ``convention``.""",
    "unjudged": """unjudged : {"nonrelevant", "condensed"}, default="nonrelevant"
        What the documents without a judgement are (``judged=False``; NaN and negative
        grades with ``judged="y_true"``): non-relevant documents in the ranking, as
        trec_eval counts them by default, or ``"condensed"``: taken out of the ranking
        before the metric is computed (Sakai's condensed lists; trec_eval's ``-J``).""",
    "relevance_threshold": """relevance_threshold : float, default=None
        A document is relevant when ``y_true >= relevance_threshold``. ``None`` means 1
        (trec_eval's rule), or the value of ``convention``.""",
    "tail": """retrieved : array-like of bool of shape (n_samples,), default=None
        ``False`` marks judged documents that the system did not return: they are never
        ranked, but they count as relevant documents of their query (in the denominators
        of recall, AP and R-precision and in the ideal DCG), as in trec_eval. ``None``
        means that every row was retrieved.

    """ + _JUDGED_DOC + """

    """ + _DOCNO_DOC + """

    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. A query weighs the mean of its rows' weights (LightGBM's
        rule) and the result is the weighted mean over queries.

    convention : {"catboost", "lightgbm", "sklearn", "torchmetrics", "trec_eval", \
            "xgboost"}, default=None
        Preset that sets every convention option left to ``None`` so that the result
        equals what that system computes on the same input. Explicit keywords override
        the preset. A preset sets only the metrics that its system computes
        (:data:`~sklearn_rank.metrics.CONVENTION_METRICS`): any other keeps sklearn-rank's
        defaults. See :ref:`conventions`.

    return_per_query : bool, default=False
        Return the per-query values instead of their mean.""",
    "correlation_no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query whose grades are all equal (a single document included): the
        correlation is undefined there. ``None`` means 0.0.""",
    "pairs_tail": """retrieved : array-like of bool of shape (n_samples,), default=None
        ``False`` marks judged documents that the system did not return: they have no
        meaningful score and form no pair. ``None`` means that every row was retrieved.

    """ + _JUDGED_DOC + """

    """ + _DOCNO_DOC + """

    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row; a query weighs the mean of its rows' weights.

    convention : str, default=None
        Preset name; see :func:`ndcg_score`.

    return_per_query : bool, default=False
        Return the per-query values instead of their mean.""",
    "returns": """Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean of the per-query values, weighted by ``sample_weight`` when given. With
        ``return_per_query=True``, the value of each query in the order of
        ``np.unique(qid)``, NaN for a query skipped by ``no_relevant=np.nan``.""",
}


def _fill_doc(func):
    func.__doc__ = func.__doc__ % _DOCS
    return func


_DOCS.update({
    "defined_no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Accepted as every metric accepts it, but never applied: this measure is defined on
        every query, those without a relevant document included.""",
    "set_data": _DOCS["data"] + """ Not read by this measure, whose value depends on the
        set of retrieved documents (``retrieved``) only; accepted for a uniform signature.""",
    "count_tail": """retrieved : array-like of bool of shape (n_samples,), default=None
        ``False`` marks judged documents that the system did not return: they are not
        retrieved, but they are documents of their query (and count in ``num_rel``), as in
        trec_eval. ``None`` means that every row was retrieved.

    """ + _JUDGED_DOC + """

    """ + _DOCNO_DOC + """

    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. A query weighs the mean of its rows' weights (LightGBM's
        rule), and the total is the sum of each query's count times its weight.

    convention : str, default=None
        Preset name; see :func:`ndcg_score`.

    return_per_query : bool, default=False
        Return the per-query counts instead of their sum.""",
    "count_returns": """Returns
    -------
    total : float or ndarray of shape (n_queries,)
        Sum of the per-query counts, each times its query's weight when ``sample_weight``
        is given (as trec_eval sums ``num_*``). With ``return_per_query=True``, the count of
        each query in the order of ``np.unique(qid)``.""",
    "gm_returns": """Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Geometric mean of the per-query values, each floored at 1e-5 (trec_eval's floor),
        weighted by ``sample_weight`` when given. With ``return_per_query=True``, the value
        of each query (not floored, not its logarithm) in the order of ``np.unique(qid)``,
        NaN for a query skipped by ``no_relevant=np.nan``.""",
    "bpref_ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered, as for every ranking
        metric; ``"average"`` gives the exact expectation over the orderings of tied
        documents. ``None`` means ``"average"``, or the value of ``convention``
        (trec_eval: ``"stable"``, with the rows in :func:`~sklearn_rank.datasets.read_trec`'s
        order).""",
})


_DOCS.update({
    "recall_rounding": """recall_rounding : {"nearest", "legacy"}, default="nearest"
        How a recall level ``x`` becomes a number of relevant documents ``c`` out of the
        query's ``R``: ``x * R`` rounded to the nearest integer, halves up (trec_eval 10.0's
        ``lround``), or ``floor(x * R + 0.9)`` (trec_eval up to 9.0.8, hence pytrec_eval and
        ir_measures' ``IPrec``). They differ when the fractional part of ``x * R`` is
        from 0.1 to 0.5 (excluded), which the legacy rule rounds up: ``0.1 * 474 = 47.4``
        is 47 documents for the one, 48 for the other.""",
    "curve_ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered. ``"average"``: every
        tied document takes its tie block's mean relevance, and the measure is computed on
        that tie-averaged list (McSherry & Najork's tie-aware precision and recall at each
        cut-off): the mean over the orderings of a maximum has no tractable form, and this
        is not it; without ties it is the measure itself. ``"stable"``: input row order
        (trec_eval's, with the rows in :func:`~sklearn_rank.datasets.read_trec`'s order);
        ``"optimistic"`` / ``"pessimistic"``: more / less relevant documents first, which
        bound every ordering's value. ``None`` means ``"average"``, or the value of
        ``convention``.""",
    "g_ties": """ties : {"average", "stable", "optimistic", "pessimistic"}, default=None
        How documents of one query with equal scores are ordered. ``"average"``: every
        tied document takes its tie block's mean gain and G is computed on that list (the
        mean of G over the orderings has no tractable form, and this is not it; without
        ties it is G itself). ``"stable"``: input row order (trec_eval's, with the rows in
        :func:`~sklearn_rank.datasets.read_trec`'s order); ``"optimistic"`` /
        ``"pessimistic"``: more / less relevant documents first. ``None`` means
        ``"average"``, or the value of ``convention``.""",
    "gain_no_relevant": """no_relevant : {0.0, 1.0, np.nan, "raise"}, default=None
        Value of a query without a document of positive gain (none judged relevant, with
        the named gains), for which the measure is undefined. ``np.nan`` skips such queries;
        ``"raise"`` raises a ``ValueError``. ``None`` means ``0.0``, or the value of
        ``convention``.""",
})
