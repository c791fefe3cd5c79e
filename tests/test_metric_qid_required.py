"""No silent one-query score: the metrics refuse a call without ``qid``, as the rankers do.

A metric called without query ids used to score every row as one query: a number, without a
word, and a wrong one whenever the rows hold several queries (nDCG@10 0.603 instead of 0.736
on LightGBM's LambdaRank example). Here: every public entry point (``evaluate``,
``evaluate_per_query``, every ``*_score``, the Dask path, the plots' ``from_predictions``)
raises, naming ``qid=`` and the opt-in ``qid="single_query"``; the opt-in gives the number
that a missing ``qid`` used to give; the refusal says what the rankers' and the scorers' say.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics import evaluate, evaluate_per_query, ndcg_score
from sklearn_rank.metrics._registry import METRICS

# The refusal: who refuses, that qid is missing, and both fixes.
MISSING = (r"^{caller} needs the query id of every row, and got none: qid was not given\. "
           r"Without query ids every row would be scored as one query, a wrong number "
           r"whenever the rows hold several queries\. Pass qid= with the query id of each row "
           r"\(in any order\), or qid='single_query' to score all rows as one query on "
           r"purpose\.$")


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=12, n_features=6, max_docs=15, random_state=0)
    rng = np.random.default_rng(0)
    return y, X[:, 0] + rng.normal(0, 1, len(y)), qid


def _missing(caller):
    return MISSING.format(caller=caller)


# (entry point, caller named in the message, keywords besides the data)
IN_MEMORY = [
    (evaluate, "evaluate", {"metrics": ["ndcg@10", "map"]}),
    (evaluate, "evaluate", {"metrics": ["ndcg@10"], "return_per_query": True}),
    (evaluate_per_query, "evaluate_per_query", {"metrics": ["ndcg@10", "map"]}),
    *((METRICS[name].function, METRICS[name].function_name, {}) for name in METRICS),
    *((METRICS[name].function, METRICS[name].function_name, {"return_per_query": True})
      for name in ("ndcg", "map", "bpref", "iprec_at_recall")),
]


@pytest.mark.parametrize("function, caller, kwargs", IN_MEMORY,
                         ids=[f"{c}-{i}" for i, (_, c, _) in enumerate(IN_MEMORY)])
def test_every_metric_without_qid_raises(function, caller, kwargs, data):
    y, score, qid = data
    with pytest.raises(ValueError, match=_missing(caller)):
        function(y, score, **kwargs)
    with pytest.raises(ValueError, match=_missing(caller)):
        function(y, score, qid=None, **kwargs)  # the default, written out


@pytest.mark.parametrize("function, caller, kwargs", IN_MEMORY,
                         ids=[f"{c}-{i}" for i, (_, c, _) in enumerate(IN_MEMORY)])
def test_single_query_is_the_explicit_one_query_number(function, caller, kwargs, data):
    # what a missing qid used to give: all rows as one query, here asked for by name,
    # equal to one query id shared by every row
    y, score, qid = data
    one = function(y, score, qid="single_query", **kwargs)
    same = function(y, score, qid=np.zeros(len(y), dtype=int), **kwargs)
    if caller == "evaluate_per_query":
        assert_array_equal(one.query_ids, [0])
        one, same = dict(one.values), dict(same.values)
    if isinstance(one, dict):
        assert list(one) == list(same)
        for name in one:
            assert_array_equal(one[name], same[name])
    else:
        assert_array_equal(one, same)


def test_single_query_and_the_query_ids_give_different_numbers(data):
    # the slip the refusal closes: on several queries the one-query number is another number
    y, score, qid = data
    per_query = ndcg_score(y, score, qid=qid, k=10)
    one_query = ndcg_score(y, score, qid="single_query", k=10)
    assert abs(per_query - one_query) > 0.05


@pytest.mark.parametrize("function", [evaluate, evaluate_per_query, ndcg_score])
def test_other_strings_are_no_query_ids(function, data):
    y, score, _ = data
    with pytest.raises(InvalidParameterError,
                       match=r"The 'qid' parameter of .* must be an array-like, a str among "
                             r"\{'single_query'\} or None\. Got 'single' instead\."):
        function(y, score, qid="single")


def test_the_engine_refuses_a_missing_qid():
    # the one validator that every path goes through (the public functions, evaluate, the
    # Dask partitions, the scorers, the trec_eval command)
    from sklearn_rank.metrics._input import check_ranking_input

    with pytest.raises(ValueError, match=_missing("this metric")):
        check_ranking_input([1, 0], [2, 1])
    assert check_ranking_input([1, 0], [2, 1], "single_query").n_queries == 1


def test_the_refusal_shares_the_scorers_and_rankers_wording(data):
    # one rule, one wording: "<who> needs the query id of every row, and got none"
    from sklearn.linear_model import Ridge

    from sklearn_rank import get_scorer
    from sklearn_rank.lightgbm import LGBMRanker

    X, y, qid = make_ranking(n_queries=6, n_features=6, max_docs=8, random_state=1)
    head = r"needs the query id of every row, and got none"
    with pytest.raises(ValueError, match=r"^make_ranking_scorer\('ndcg@10'\) " + head):
        get_scorer("ndcg@10")(Ridge().fit(X, y), X, y)
    with pytest.raises(ValueError, match=r"^LGBMRanker\.fit " + head):
        LGBMRanker(n_estimators=2, verbose=-1).fit(X, y)
    with pytest.raises(ValueError, match=r"^ndcg_score " + head):
        ndcg_score(y, X[:, 0])
    # and the opt-in is the rankers' own: the score of a one-query ranker is the metric's
    ranker = LGBMRanker(n_estimators=2, verbose=-1, n_jobs=1).fit(X, y, qid="single_query")
    assert ranker.score(X, y, qid="single_query") == ndcg_score(
        y, ranker.predict(X), qid="single_query", k=10)


# --------------------------------------------------------------------------------------
# Dask
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def frame(data):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    y, score, qid = data
    rows = pd.DataFrame({"label": y, "score": score, "qid": qid})
    return dd.from_pandas(rows, npartitions=3, sort=False)


DASK = [
    (evaluate, "evaluate", {"metrics": ["ndcg@10", "map"]}),
    (evaluate, "evaluate", {"metrics": ["ndcg@10"], "return_per_query": True}),
    (evaluate_per_query, "evaluate_per_query", {"metrics": ["ndcg@10"]}),
    (ndcg_score, "ndcg_score", {"k": 10}),
    (METRICS["err"].function, "err_score", {"max_grade": 4}),
]


@pytest.mark.parametrize("function, caller, kwargs", DASK,
                         ids=[f"{c}-{i}" for i, (_, c, _) in enumerate(DASK)])
def test_dask_metrics_without_qid_raise(function, caller, kwargs, frame):
    with pytest.raises(ValueError, match=_missing(caller)):
        function(frame["label"], frame["score"], **kwargs)


def test_dask_single_query_is_the_in_memory_one_query_number(frame, data):
    y, score, _ = data
    names = ["ndcg@10", "map", "err@5(max_grade=4)"]
    got = evaluate(frame["label"], frame["score"], qid="single_query", metrics=names)
    expected = evaluate(y, score, qid="single_query", metrics=names)
    assert list(got) == names
    assert_allclose([got[m] for m in names], [expected[m] for m in names], rtol=1e-12)
    assert ndcg_score(frame["label"], frame["score"], qid="single_query", k=10) == \
        pytest.approx(ndcg_score(y, score, qid="single_query", k=10), rel=1e-12)
    per_query = evaluate_per_query(frame["label"], frame["score"], qid="single_query",
                                   metrics=["ndcg@10"]).compute()
    assert per_query["qid"].tolist() == [0]
    assert per_query["ndcg@10"].tolist() == pytest.approx([expected["ndcg@10"]], rel=1e-12)


# --------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------



def test_metric_at_k_from_predictions_without_qid_raises(plt, data):
    from sklearn_rank.plot import MetricAtKDisplay

    y, score, _ = data
    with pytest.raises(ValueError, match=_missing("MetricAtKDisplay.from_predictions")):
        MetricAtKDisplay.from_predictions(y, score, metric="ndcg", ks=3)
    display = MetricAtKDisplay.from_predictions(y, score, qid="single_query", metric="ndcg",
                                                ks=3)
    assert display.query_ids is None and display.per_query_values.shape == (1, 3)
    expected = [ndcg_score(y, score, qid="single_query", k=k) for k in (1, 2, 3)]
    assert_allclose(display.values, expected, rtol=1e-12)


def test_differences_from_predictions_without_qid_raises(plt, data):
    from sklearn_rank.plot import PerQueryDifferenceDisplay

    y, score, qid = data
    other = score[::-1].copy()
    with pytest.raises(ValueError,
                       match=_missing("PerQueryDifferenceDisplay.from_predictions")):
        PerQueryDifferenceDisplay.from_predictions(y, score, other, metric="ndcg@10")
    display = PerQueryDifferenceDisplay.from_predictions(y, score, other, qid=qid,
                                                         metric="ndcg@10", test="wilcoxon")
    assert len(display.differences) == len(np.unique(qid))


# --------------------------------------------------------------------------------------
# The wrong turn of the issue, on real data
# --------------------------------------------------------------------------------------


def test_lambdarank_example_scores_its_queries_or_refuses(shared_data):
    from sklearn_rank.datasets import load_svmlight_ranking
    from sklearn_rank.lightgbm import LGBMRanker

    folder = shared_data / "lambdarank-example"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    X, y, qid = load_svmlight_ranking(folder / "rank.train")
    X_test, y_test, qid_test = load_svmlight_ranking(folder / "rank.test")
    ranker = LGBMRanker(n_jobs=1, verbose=-1, random_state=0, deterministic=True,
                        force_row_wise=True).fit(X, y, qid=qid)
    y_score = ranker.predict(X_test)
    # 50 test queries: nDCG@10 is their mean
    assert round(ndcg_score(y_test, y_score, qid=qid_test, k=10), 3) == 0.736
    # qid forgotten: an error, where 0.603 (the 768 rows as one query) came out silently
    with pytest.raises(ValueError, match=_missing("ndcg_score")):
        ndcg_score(y_test, y_score, k=10)
    with pytest.raises(ValueError, match=_missing("evaluate")):
        evaluate(y_test, y_score, metrics=["ndcg@10"])
    assert round(ndcg_score(y_test, y_score, qid="single_query", k=10), 3) == 0.603


def test_scorers_and_from_estimator_take_the_single_query_opt_in(plt, data):
    """The scorers and the displays' from_estimator take qid="single_query" as the metric
    functions do (they refused it with a shape error), and refuse other strings."""
    from sklearn.linear_model import Ridge

    from sklearn_rank import get_scorer
    from sklearn_rank.plot import MetricAtKDisplay

    y, _, qid = data
    X, _, _ = make_ranking(n_queries=12, n_features=6, max_docs=15, random_state=0)
    model = Ridge().fit(X, y)
    expected = ndcg_score(y, model.predict(X), qid="single_query", k=10)
    assert get_scorer("ndcg@10")(model, X, y, qid="single_query") == expected
    assert get_scorer("ndcg@10")(model, X, y, qid=qid) != expected
    display = MetricAtKDisplay.from_estimator(model, X, y, qid="single_query", metric="ndcg",
                                              ks=[10])
    assert display.query_ids is None
    assert_allclose(display.values, [expected], rtol=1e-12)
    with pytest.raises(ValueError, match="or be the string 'single_query'"):
        get_scorer("ndcg@10")(model, X, y, qid="one query")
