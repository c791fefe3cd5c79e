"""The statistics across seeds and data sets name a system by its model, data set and seed in
every refusal (never as a Python tuple)."""

import re

import numpy as np
import pytest

from sklearn_rank.stats import seed_summary

Q = np.arange(6)


def _values(last):
    """Two models under two seeds on data set 'a'; model 'q' under seed 1 given ``last``."""
    values = {("a", model, seed): (Q, np.linspace(0, 1, 6)) for model in "rq" for seed in (0, 1)}
    values["a", "q", 1] = last
    return values


@pytest.mark.parametrize("value, says", [
    ((Q, np.r_[np.nan, np.ones(5)]),
     "The per-query values of model 'q' on data set 'a' under seed 1 for 'm' contain 1 NaN"),
    (np.ones(6), "model 'r' on data set 'a' under seed 0 comes with query ids and model 'q' on "
     "data set 'a' under seed 1 without (model 'r' on data set 'a' under seed 0 is a tuple"),
    ((Q[:4], np.ones(4)), "Systems model 'r' on data set 'a' under seed 0 and model 'q' on data "
     "set 'a' under seed 1 were not evaluated on the same queries (for 'm'): 2 only in model "
     "'r' on data set 'a' under seed 0 (4, 5)"),
    ((Q.astype(str), np.ones(6)), "The query ids of model 'r' on data set 'a' under seed 0 are "
     "numbers and those of model 'q' on data set 'a' under seed 1 are strings"),
    ((np.r_[0, 0, 1, 2, 3, 4], np.ones(6)),
     "qid of model 'q' on data set 'a' under seed 1 holds repeated query ids (0)"),
])
def test_seed_summary_names_the_model_data_set_and_seed(value, says):
    with pytest.raises((ValueError, TypeError)) as caught:
        seed_summary(_values(value), metric="m")
    assert says in str(caught.value)
    assert "('a'," not in str(caught.value)


def test_a_run_of_one_data_set_names_no_data_set():
    values = {(None, "r", 0): (Q, np.ones(6)), (None, "r", 1): (Q, np.r_[np.inf, np.ones(5)])}
    with pytest.raises(ValueError, match=r"The per-query values of model 'r' under seed 1 "):
        seed_summary(values, metric="m")


# ----------------------------------------------------------------------------------------
# One metric name, two definitions: ndcg@10 under trec_eval's convention and LightGBM's.

def _two_conventions():
    from sklearn_rank.metrics import evaluate_per_query

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), 8)
    y = rng.integers(0, 4, len(qid)).astype(float)
    a, b = (y + rng.normal(0, 2, len(qid)) for _ in range(2))
    return (evaluate_per_query(y, a, qid=qid, metrics=["ndcg@10"], convention="trec_eval"),
            evaluate_per_query(y, b, qid=qid, metrics=["ndcg@10"], convention="lightgbm"),
            evaluate_per_query(y, b, qid=qid, metrics=["ndcg@10"], convention="trec_eval"))


SAYS = ("The values of 'ndcg@10' are not one metric: system 'a' computed "
        "'ndcg@10(gain=linear,ties=stable)' and system 'b' "
        "'ndcg@10(ties=stable,no_relevant=1.0)' (other conventions or options)")


@pytest.mark.parametrize("form", ["result", "frame", "frame without index", "series"])
def test_one_name_under_two_conventions_is_not_compared(form):
    """Before, compare called LightGBM's nDCG significantly lower than trec_eval's of other
    scores: the conventions' difference reported as the systems'."""
    from sklearn_rank.stats import compare, paired_test, query_set_size

    a, b, b_alike = _two_conventions()
    convert = {"result": lambda r: r, "frame": lambda r: r.to_frame(),
               "frame without index": lambda r: r.to_frame().reset_index(),
               "series": lambda r: r.to_frame()["ndcg@10"]}[form]
    for call in (lambda x, y: compare({"a": x, "b": y}, metric="ndcg@10"),
                 lambda x, y: paired_test(x, y, metric="ndcg@10"),
                 lambda x, y: query_set_size(x, y, metric="ndcg@10")):
        with pytest.raises(ValueError, match=re.escape(SAYS)):
            call(convert(a), convert(b))
        call(convert(a), convert(b_alike))  # one definition: compared


def test_seed_summary_compares_definitions_within_a_data_set():
    a, b, b_alike = _two_conventions()
    with pytest.raises(ValueError, match="The values of 'ndcg@10' are not one metric: model "
                                         "'a' on data set 'd' under seed 0 computed"):
        seed_summary({("d", "a", 0): a, ("d", "b", 0): b}, metric="ndcg@10")
    # two data sets may differ (each its own grade scale): not refused
    summary = seed_summary({("d", "a", 0): a, ("d", "b", 0): b_alike,
                            ("e", "a", 0): b, ("e", "b", 0): b}, metric="ndcg@10")
    assert [row.dataset for row in summary.rows] == ["d", "d", "e", "e"]


def test_bayesian_tests_pair_labelled_series_by_label():
    """Two Series of per-data-set scores listed in two orders: before, paired by position
    (P(B better) 0.608 instead of 1.0)."""
    pd = pytest.importorskip("pandas")
    from sklearn_rank.stats import bayesian_correlated_ttest, bayesian_signed_rank_test

    names = [f"d{i}" for i in range(8)]
    a = pd.Series(np.linspace(0.5, 0.9, 8), index=names)
    b = a + 0.02
    same = bayesian_signed_rank_test(a, b, random_state=0)
    reordered = bayesian_signed_rank_test(a, b.iloc[::-1], random_state=0)
    assert ((reordered.p_a_better, reordered.p_equivalent, reordered.p_b_better)
            == (same.p_a_better, same.p_equivalent, same.p_b_better))
    assert same.p_b_better == 1.0
    folds = pd.Series([0.50, 0.61, 0.42, 0.58, 0.47], index=[f"fold {i}" for i in range(5)])
    other = folds + np.array([0.01, 0.03, 0.02, 0.015, 0.025])
    paired = bayesian_correlated_ttest(folds, other, test_fraction=0.2)
    assert bayesian_correlated_ttest(folds, other.iloc[::-1],
                                     test_fraction=0.2).p_b_better == paired.p_b_better
    with pytest.raises(ValueError, match="a and b must hold the same data sets"):
        bayesian_signed_rank_test(a, b.rename(lambda name: name.upper()))
    # pandas' default index numbers the values: paired by position, as arrays
    assert bayesian_signed_rank_test(a.reset_index(drop=True), b.to_numpy(),
                                     random_state=0).p_b_better == 1.0


def test_pandas_ids_and_values_in_another_row_order_are_refused():
    """(qid, values) or {'qid': ..., metric: ...} taken from one frame before and after it
    was sorted: before, paired by position, each query's id met another's value."""
    pd = pytest.importorskip("pandas")
    from sklearn_rank.stats import compare

    frame = pd.DataFrame({"qid": range(6), "a": np.linspace(0, 1, 6),
                          "b": np.linspace(0.1, 0.9, 6)})
    ranked = frame.sort_values("b", ascending=False)
    for b in ((frame["qid"], ranked["b"]), {"qid": frame["qid"], "m": ranked["b"]}):
        with pytest.raises(ValueError, match=re.escape(
                "system 'b': qid and ") + r"(values|m)" + re.escape(
                " are pandas objects whose indexes do not list the same rows in the same "
                "order")):
            compare({"a": (frame["qid"], frame["a"]), "b": b}, metric="m")
    # aligned, or a whole frame (its columns share its index): compared
    table = compare({"a": (frame["qid"], frame["a"]), "b": (ranked["qid"], ranked["b"])},
                    metric="m")
    assert table.systems == ["a", "b"]
    assert compare({"a": frame[["qid", "a"]].rename(columns={"a": "m"}),
                    "b": ranked[["qid", "b"]].rename(columns={"b": "m"})},
                   metric="m").systems == ["a", "b"]
