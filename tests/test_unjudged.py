"""Unjudged documents: ``judged=`` (a mask or ``"y_true"``) and the ``unjudged`` option.

A document without a judgement counts as non-relevant by default (trec_eval's rule), or is
taken out of the ranking with ``unjudged="condensed"`` (Sakai's condensed lists, trec_eval
``-J``). The checks here are independent of the engine: condensed lists equal the metric on
the arrays with the unjudged rows deleted, and the default equals the metric with unjudged
grades written as 0.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_rank.datasets import read_trec
from sklearn_rank.metrics import evaluate, evaluate_per_query, ndcg_score, parse_metric
from sklearn_rank.metrics._registry import METRICS

# every ranking metric of the registry that judgements do not enter by definition
PLAIN = ["ndcg@3", "dcg", "err@4", "rbp", "map", "mrr", "P@3", "recall@4", "hit_rate@2",
         "hits@3", "r_precision", "half_life_utility", "kendall_tau", "spearman",
         "pairwise_accuracy"]
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def judged_data(draw):
    n = draw(st.integers(1, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 4, n).astype(float)
    state = rng.integers(0, 3, n)  # 0 judged, 1 outside the pool (NaN), 2 pooled (-1)
    y[state == 1] = np.nan
    y[state == 2] = -1.0
    return y, rng.choice([0.0, 0.5, 1.0, 2.0], n), rng.integers(0, 4, n)


def _assert_same(a, b):
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12, err_msg=name)


@SETTINGS
@given(judged_data())
def test_condensed_equals_deleting_the_unjudged_rows(data):
    y, s, q = data
    judged = np.isfinite(y) & (y >= 0)
    if not judged.any():
        return
    # queries with no judged row have no ranked list in either computation: compare the others
    keep_queries = np.isin(q, q[judged])
    got = evaluate_per_query(y[keep_queries], s[keep_queries], qid=q[keep_queries],
                             metrics=PLAIN, judged="y_true", unjudged="condensed",
                             no_relevant=np.nan)
    want = evaluate_per_query(y[judged], s[judged], qid=q[judged], metrics=PLAIN,
                              no_relevant=np.nan)
    np.testing.assert_array_equal(got.query_ids, want.query_ids)
    _assert_same(got.values, want.values)


@SETTINGS
@given(judged_data())
def test_nonrelevant_equals_grade_zero(data):
    y, s, q = data
    zeros = np.where(np.isfinite(y) & (y >= 0), y, 0.0)
    got = evaluate(y, s, qid=q, metrics=PLAIN, judged="y_true", return_per_query=True)
    want = evaluate(zeros, s, qid=q, metrics=PLAIN, return_per_query=True)
    _assert_same(got, want)
    # a mask says the same as NaN in y_true, and NaN or 0 on its unjudged rows alike
    mask = ~np.isnan(y)
    masked = np.where(y < 0, 0.0, y)  # the mask cannot say "pooled": -1 becomes judged 0
    _assert_same(evaluate(masked, s, qid=q, metrics=PLAIN, judged=mask, return_per_query=True),
                 evaluate(np.nan_to_num(masked), s, qid=q, metrics=PLAIN, judged=mask,
                          return_per_query=True))


def test_hand_worked_condensed_list():
    # ranked: unjudged, relevant, unjudged(-1), non-relevant, relevant; R = 2
    y = [np.nan, 1, -1, 0, 1]
    s = [5, 4, 3, 2, 1]
    assert ndcg_score(y, s, qid="single_query",
                      judged="y_true", unjudged="condensed", gain="linear") == (
        pytest.approx((1 + 1 / np.log2(4)) / (1 + 1 / np.log2(3))))
    # AP: condensed ranks 1, 3 -> (1/1 + 2/3) / 2; in place ranks 2, 5 -> (1/2 + 2/5) / 2
    got = evaluate(y, s, qid="single_query",
                   judged="y_true", metrics=["map", "map(unjudged=condensed)"])
    assert got == {"map": pytest.approx(0.45), "map(unjudged=condensed)": pytest.approx(5 / 6)}


def test_every_metric_takes_unjudged_and_its_key_reads_back():
    for metric in METRICS.values():
        assert "unjudged" in metric.option_names
        key = metric.key({"unjudged": "condensed"})
        assert key.endswith("unjudged=condensed)")
        assert parse_metric(key) == (metric, {"unjudged": "condensed"})
        assert "unjudged=" not in metric.key({"unjudged": "nonrelevant"})


@pytest.mark.parametrize("y, kwargs, message", [
    ([1, np.nan], {}, r"got 1 NaN value\(s\), the first at row 1\. .*judged='y_true'"),
    ([1, -1], {}, r"got -1 at row 1\. .*judged='y_true'"),
    ([1, 2], {"judged": [True, False]}, r"judged=False marks a document without a judgement, "
                                         r"but y_true gives 1 such row\(s\) a grade, e\.g\. 2"),
    ([1, np.inf], {"judged": "y_true"}, r"finite relevance labels or NaN .* got inf at row 1"),
    ([1, 0], {"judged": "yes"}, r"The 'judged' parameter of ndcg_score must be"),
    ([1, 0], {"unjudged": "drop"}, r"The 'unjudged' parameter of ndcg_score must be"),
])
def test_unjudged_input_errors(y, kwargs, message):
    with pytest.raises(ValueError, match=message):
        ndcg_score(y, [2, 1], qid="single_query", **kwargs)


def test_read_trec_judged_mask_gives_what_y_true_gives(tmp_path):
    # read_trec's "judged" key, passed as judged=, was refused when the qrels hold -1
    # judgements (trec_eval's pooled but unjudged): the two now give the same values
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 d 2\n2 0 x 1\n2 0 y -1\n")
    run.write_text("1 Q0 c 1 0.9 s\n1 Q0 e 2 0.8 s\n1 Q0 a 3 0.7 s\n1 Q0 b 4 0.6 s\n"
                   "2 Q0 y 1 0.5 s\n2 Q0 z 2 0.4 s\n2 Q0 x 3 0.3 s\n")
    d = read_trec(qrels, run)
    assert (d["y_true"] < 0).any() and np.isnan(d["y_true"]).any()
    data = {name: d[name] for name in ("y_true", "y_score", "qid", "retrieved")}
    metrics = ["map", "bpref", "infAP", "Judged@5", "unj@5", "ndcg@5", "P@2"]
    for unjudged in ("nonrelevant", "condensed"):
        with_mask = evaluate_per_query(**data, judged=d["judged"], metrics=metrics,
                                       convention="trec_eval", unjudged=unjudged)
        from_y_true = evaluate_per_query(**data, judged="y_true", metrics=metrics,
                                         convention="trec_eval", unjudged=unjudged)
        for name in metrics:
            np.testing.assert_array_equal(with_mask[name], from_y_true[name], err_msg=name)
    # infAP reads the pool: -1 (pooled) and NaN (outside the pool) differ
    assert evaluate(**data, judged=d["judged"], metrics=["infAP"], convention="trec_eval") != \
        evaluate(**{**data, "y_true": np.where(d["judged"], d["y_true"], np.nan)},
                 judged=d["judged"], metrics=["infAP"], convention="trec_eval")


def test_pool_states_reach_the_engine():
    from sklearn_rank.metrics._input import check_ranking_input

    data = check_ranking_input([2, np.nan, -1, 0], [4, 3, 2, 1], "single_query",
                               judged="y_true")
    np.testing.assert_array_equal(data.y_true, [2, 0, 0, 0])
    np.testing.assert_array_equal(data.judged_mask, [True, False, False, True])
    np.testing.assert_array_equal(data.pool_unjudged, [False, False, True, False])
    np.testing.assert_array_equal(data.condensed().retrieved, [True, False, False, True])
    whole = check_ranking_input([2, 0], [1, 0], "single_query", judged="y_true")
    assert whole.judged_mask is None and whole.pool_unjudged is None
    assert whole.condensed() is whole
