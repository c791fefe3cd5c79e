"""Bad input gets a clear error naming the argument, what was expected and what was got."""

import re

import _brute_force
import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.metrics import (
    dcg_score,
    err_score,
    evaluate,
    kendall_tau_score,
    map_score,
    ndcg_score,
    parse_metric,
    precision_score,
    rbp_score,
)
from sklearn_rank.metrics._registry import METRICS

Y = [2, 1, 0, 0]
S = [0.4, 0.3, 0.2, 0.1]

# (function, args, kwargs, exception, regex the message must match)
CASES = [
    # shapes and lengths
    (ndcg_score, ([1, 0, 2], [0.1, 0.2]), {}, ValueError,
     r"lengths differ: y_true has 3, y_score has 2"),
    (ndcg_score, (Y, S), {"qid": [1, 1, 3]}, ValueError,
     r"qid for ndcg_score must have one query id per row: got 3 ids for 4 rows\.$"),
    (ndcg_score, (Y, S), {"sample_weight": [1, 1]}, ValueError, r"sample_weight has 2"),
    (ndcg_score, (Y, S), {"retrieved": [True] * 3}, ValueError, r"retrieved has 3"),
    (ndcg_score, ([[1, 0], [2, 1]], [[0.1, 0.2], [0.3, 0.4]]), {}, ValueError,
     r"y_true must be a 1-D array-like .* got an array of shape \(2, 2\)"),
    (ndcg_score, (Y, np.ones((4, 1))), {}, ValueError,
     r"y_score must be a 1-D array-like .* shape \(4, 1\)"),
    (ndcg_score, ([], []), {}, ValueError, r"empty"),
    # values
    (ndcg_score, ([1, np.nan, 0, 0], S), {}, ValueError,
     r"y_true must hold finite relevance labels; got 1 NaN value\(s\), the first "
     r"at row 1"),
    (ndcg_score, ([1, np.inf, 0, 0], S), {}, ValueError, r"y_true must hold finite"),
    (ndcg_score, (Y, [0.1, np.nan, 0.3, 0.2]), {}, ValueError,
     r"y_score must not contain NaN \(infinite scores are allowed\).*row 1"),
    (ndcg_score, ([1, -1, 0, 0], S), {}, ValueError,
     r"y_true must hold non-negative relevance labels; got -1 at row 1"),
    (ndcg_score, (["a", "b", "c", "d"], S), {}, TypeError, r"y_true must hold numbers"),
    (ndcg_score, ([1100, 0, 0, 0], S), {}, ValueError,
     r"gain='exponential' computes 2\*\*y_true - 1, which overflows for the grade 1100"),
    (ndcg_score, (Y, S), {"sample_weight": [1, -1, 1, 1]}, ValueError,
     r"sample_weight must hold finite non-negative numbers"),
    (ndcg_score, (Y, S), {"qid": [1.0, np.nan, 1.0, 2.0]}, ValueError, r"qid must not contain NaN"),
    (ndcg_score, (Y, S), {"qid": np.array([1, None, 1, 2], dtype=object)}, ValueError,
     r"qid must not contain None"),
    # missing ids of other types: each formed one query (NaT, complex NaN) or one query per
    # row (NaN in an object array), where NaN and None are refused
    (ndcg_score, (Y, S), {"qid": np.array(["2026-01-01", "NaT", "NaT", "2026-01-02"],
                                          dtype="datetime64[ns]")}, ValueError,
     r"qid must not contain NaT"),
    (ndcg_score, (Y, S), {"qid": np.array([1, "NaT", "NaT", 2], dtype="timedelta64[s]")},
     ValueError, r"qid must not contain NaT"),
    (ndcg_score, (Y, S), {"qid": np.array([1, np.nan, np.nan, 2], dtype=complex)}, ValueError,
     r"qid must not contain NaN"),
    (ndcg_score, (Y, S), {"qid": np.array([1.0, np.nan, np.nan, 2.0], dtype=object)},
     ValueError, r"qid must not contain (None or )?NaN"),
    (ndcg_score, (Y, S), {"qid": np.array([1, "a", 1, 2], dtype=object)}, TypeError,
     r"qid values must be of one sortable type"),
    (ndcg_score, (Y, S), {"retrieved": [0.5, 1, 1, 1]}, TypeError,
     r"retrieved must be a boolean mask; got dtype float64"),
    (err_score, (Y, S), {"max_grade": 1}, ValueError,
     r"max_grade=1 is below the largest grade in y_true \(2\)"),
    # parameters (scikit-learn's InvalidParameterError, a ValueError subclass)
    (ndcg_score, (Y, S), {"k": 0}, InvalidParameterError,
     r"The 'k' parameter of ndcg_score must be an int in the range \[1, inf\) or None\. Got 0"),
    (ndcg_score, (Y, S), {"k": 2.5}, InvalidParameterError, r"'k' parameter"),
    (ndcg_score, (Y, S), {"gain": "exp"}, InvalidParameterError, r"'gain' parameter"),
    (ndcg_score, (Y, S), {"ties": "random"}, InvalidParameterError, r"'ties' parameter"),
    (ndcg_score, (Y, S), {"no_relevant": 0.5}, InvalidParameterError, r"'no_relevant' parameter"),
    (ndcg_score, (Y, S), {"convention": "trec"}, InvalidParameterError,
     r"'convention' parameter of ndcg_score must be a str among .*'trec_eval'.* or None"),
    (map_score, (Y, S), {"relevance_threshold": 0}, InvalidParameterError,
     r"'relevance_threshold' parameter of map_score must be a float in the range \(0(\.0)?, inf\)"),
    (map_score, (Y, S), {"ap_denominator": "R"}, InvalidParameterError, r"'ap_denominator'"),
    (precision_score, (Y, S), {"short_lists": "n"}, InvalidParameterError, r"'short_lists'"),
    (rbp_score, (Y, S), {"persistence": 1.0}, InvalidParameterError,
     r"'persistence' parameter of rbp_score must be a float in the range \(0\.0, 1\.0\)"),
    (rbp_score, (Y, S), {"persistence": 0}, InvalidParameterError, r"'persistence'"),
    (err_score, (Y, S), {"persistence": 1.5}, InvalidParameterError,
     r"'persistence' parameter of err_score must be a float in the range \(0\.0, 1\.0\]"),
    (dcg_score, (Y, S), {"log_base": 1}, InvalidParameterError, r"'log_base'"),
    # the no_relevant policy
    (ndcg_score, ([0, 0, 1, 0], S), {"qid": [1, 1, 2, 2], "no_relevant": "raise"}, ValueError,
     r"ndcg_score is undefined for 1 of 2 queries that have no relevant document \(e.g. qid 1\)"),
    (kendall_tau_score, ([1, 1, 1, 0], S), {"qid": [7, 7, 8, 8], "no_relevant": "raise"},
     ValueError, r"undefined for 1 of 2 queries .* qid 7"),
    (ndcg_score, (Y, S), {"sample_weight": [0, 0, 0, 0]}, ValueError,
     r"sample_weight gives every evaluated query a weight of zero"),
    # evaluate and metric names
    (evaluate, (Y, S), {"metrics": ["ndgc@10"]}, ValueError,
     r"Unknown metric name 'ndgc@10'\. Did you mean 'ndcg'"),
    (evaluate, (Y, S), {"metrics": ["mapp"]}, ValueError, r"Did you mean 'map'"),
    (evaluate, (Y, S), {"metrics": []}, ValueError, r"metrics is empty"),
    (evaluate, (Y, S), {"metrics": ["ndcg@10"], "persistence": 0.5}, TypeError,
     r"option\(s\) \['persistence'\] that none of the metrics \['ndcg@10'\] takes"),
    (evaluate, (Y, S), {"metrics": ["ndcg@0"]}, InvalidParameterError,
     r"'k' parameter of evaluate"),
    (evaluate, (Y, S), {"metrics": ["rbp(p=2)"]}, InvalidParameterError, r"'persistence'"),
    (evaluate, (Y, S), {"metrics": ["rprec@5"]}, ValueError, r"r_precision takes no cut-off"),
    (evaluate, (Y, S), {"metrics": ["rbp(q=2)"]}, ValueError, r"Cannot read the parameter 'q=2'"),
    (evaluate, (Y, S), {"metrics": ["ndcg@10"], "convention": "nope"}, InvalidParameterError,
     r"'convention' parameter of evaluate"),
    (parse_metric, (10,), {}, TypeError, r"A metric name must be a string"),
    # all-NaN weights: this ValueError, not numpy's All-NaN RuntimeWarning
    (evaluate, (Y, S), {"metrics": ["ndcg"], "sample_weight": [np.nan] * 4}, ValueError,
     r"sample_weight must hold finite non-negative numbers; got no finite value, and 4 NaN"),
]


@pytest.mark.parametrize(
    "func, args, kwargs, exc, message",
    CASES,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)],
)
def test_bad_input_raises_clear_error(func, args, kwargs, exc, message):
    if func is not parse_metric:  # one query unless the case says otherwise
        kwargs = {"qid": "single_query", **kwargs}
    with pytest.raises(exc, match=message):
        func(*args, **kwargs)


# The checks of the data, the same for every metric of the registry: (args, kwargs,
# exception, regex of the message, in which {function} is the public function's name).
DATA_CASES = [
    (([1, 0, 2], [0.1, 0.2]), {}, ValueError, r"lengths differ: y_true has 3, y_score has 2"),
    ((Y, S), {"qid": [1, 1, 3]}, ValueError,
     r"qid for {function} must have one query id per row: got 3 ids for 4 rows\.$"),
    ((Y, S), {"judged": [True] * 3}, ValueError, r"judged has 3"),
    ((Y, S), {"retrieved": [0.5, 1, 1, 1]}, TypeError,
     r"retrieved must be a boolean mask; got dtype float64"),
    ((Y, S), {"judged": [1, 0.5, 1, 1]}, TypeError,
     r"judged must be a boolean mask; got dtype float64"),
    # NaN and negative grades mean "unjudged" only when asked for (judged="y_true")
    (([1, np.nan, 0, 0], S), {}, ValueError,
     r"y_true must hold finite relevance labels; got 1 NaN value\(s\), the first at row 1"),
    (([1, -1, 0, 0], S), {}, ValueError,
     r"y_true must hold non-negative relevance labels; got -1 at row 1"),
    ((Y, [0.1, np.nan, 0.3, 0.2]), {}, ValueError,
     r"y_score must not contain NaN \(infinite scores are allowed\).*row 1"),
    ((Y, S), {"sample_weight": [1, -1, 1, 1]}, ValueError,
     r"sample_weight must hold finite non-negative numbers"),
    ((Y, S), {"convention": "trec"}, InvalidParameterError,
     r"'convention' parameter of {function} must be a str among"),
    # qid left out: never all rows as one query without a word
    ((Y, S), {"qid": None}, ValueError,
     r"^{function} needs the query id of every row, and got none: qid was not given\. .*"
     r"Pass qid= .*or qid='single_query' to score all rows as one query on purpose\.$"),
    ((Y, S), {"qid": "one_query"}, InvalidParameterError,
     r"'qid' parameter of {function} must be an array-like, a str among \{'single_query'\}"),
]


@pytest.mark.parametrize("args, kwargs, exc, message", DATA_CASES,
                         ids=[str(i) for i in range(len(DATA_CASES))])
@pytest.mark.parametrize("name", list(METRICS))
def test_every_metric_checks_its_data(name, args, kwargs, exc, message):
    function = METRICS[name].function
    with pytest.raises(exc, match=message.replace("{function}", function.__name__)):
        function(*args, **{"qid": "single_query", **kwargs})


@pytest.mark.parametrize("name", list(METRICS))
def test_no_relevant_raise_names_the_function_and_why(name):
    # Query 1 holds only non-relevant documents, query 2 only relevant ones of one grade:
    # every metric is undefined on at least one of them, or defined on both (counts,
    # utility, rates of judgements): the slow reference says which, independently.
    y_true, y_score, qid = [0, 0, 2, 2], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
    metric = METRICS[name]
    _, reference = _brute_force.brute_force(name, y_true, y_score, qid, no_relevant=np.nan)
    undefined = [q for q, value in zip((1, 2), reference) if np.isnan(value)]
    if not undefined:
        values = metric.function(y_true, y_score, qid=qid, no_relevant="raise",
                                 return_per_query=True)
        assert np.isfinite(values).all()
        return
    message = (f"{metric.function_name} is undefined for {len(undefined)} of 2 queries "
               f"{metric.undefined_reason} \\(e.g. qid {', '.join(map(str, undefined))}\\), and "
               "no_relevant='raise'")
    with pytest.raises(ValueError, match=message):
        metric.function(y_true, y_score, qid=qid, no_relevant="raise")


def test_unknown_convention_lists_the_valid_ones():
    from sklearn_rank._conventions import resolve

    with pytest.raises(ValueError, match=re.escape("'catboost', 'lightgbm', 'sklearn'")):
        resolve("ndcg", "trec", {"gain": None})


def test_all_queries_skipped_warns_and_returns_nan():
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning, match="every query was skipped"):
        assert np.isnan(ndcg_score([0, 0], [1, 2], qid="single_query", no_relevant=np.nan))


def test_single_document_queries_are_valid():
    assert ndcg_score([1, 0, 2], [0.3, 0.2, 0.1], qid=[1, 2, 3], no_relevant=np.nan) == 1.0
    assert map_score([1, 0, 2], [0.3, 0.2, 0.1], qid=[1, 2, 3], no_relevant=np.nan) == 1.0


def test_inputs_are_not_modified():
    y = np.array([2.0, 1.0, 0.0, 0.0])
    s = np.array([0.4, 0.4, 0.2, 0.1])
    q = np.array([2, 1, 2, 1])
    copies = y.copy(), s.copy(), q.copy()
    evaluate(y, s, qid=q, metrics=["ndcg@2", "map", "err", "kendall_tau", "spearman"])
    for original, copy in zip((y, s, q), copies):
        np.testing.assert_array_equal(original, copy)
