"""The engine's layouts: every path through grouping and sorting gives the same numbers."""

import numpy as np
import pytest

from sklearn_rank.metrics import evaluate
from sklearn_rank.metrics._engine import Buckets, check_ranking_input, stable_argsort_codes

METRICS = ["ndcg@3", "dcg", "err@5", "map", "map@2(ap_denominator=found)", "mrr", "p@2",
           "r@3", "success@1", "rprec", "rbp(p=0.7)", "hlu", "kendall_tau", "spearman",
           "pairwise_accuracy"]


def sample(rng, n_queries, max_size, n_values):
    sizes = rng.integers(1, max_size + 1, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, 4, len(qid)).astype(float)
    s = rng.integers(0, n_values, len(qid)).astype(float)
    return y, s, qid


@pytest.mark.parametrize("ties", ["average", "stable", "optimistic", "pessimistic"])
@pytest.mark.parametrize("n_values", [3, 1000])
def test_grouped_and_shuffled_inputs_agree(ties, n_values):
    """Grouped input is not moved (identity layout); shuffled input is laid out by length."""
    rng = np.random.default_rng(0)
    y, s, qid = sample(rng, 60, 9, n_values)
    grouped = evaluate(y, s, qid=qid, metrics=METRICS, ties=ties, return_per_query=True)
    perm = rng.permutation(len(y))
    if ties != "average":  # stable tie rules depend on row order: move whole queries only
        perm = np.argsort(rng.permutation(qid.max() + 1)[qid], kind="stable")
    shuffled = evaluate(y[perm], s[perm], qid=qid[perm], metrics=METRICS, ties=ties,
                        return_per_query=True)
    for name in METRICS:
        np.testing.assert_allclose(grouped[name], shuffled[name], rtol=0, atol=1e-12,
                                   err_msg=name)


def test_single_document_queries_in_grouped_input():
    # width-1 segments that are not contiguous in the identity layout
    y = np.zeros(7)
    s = np.full(7, -np.inf)
    qid = np.array([0, 1, 1, 1, 1, 1, 2])
    assert evaluate(y, s, qid=qid, metrics=["ndcg"])["ndcg"] == 0.0


@pytest.mark.parametrize("n_codes", [2, 300, 1 << 16, (1 << 16) + 1, 3 << 16, (4 << 16) + 1, 1 << 20, 1 << 50, 1 << 62])
def test_stable_argsort_codes(n_codes):
    codes = np.random.default_rng(1).integers(0, n_codes, 5000)
    np.testing.assert_array_equal(stable_argsort_codes(codes, n_codes),
                                  np.argsort(codes, kind="stable"))


def test_many_queries_take_the_two_pass_radix_path():
    rng = np.random.default_rng(2)
    y, s, qid = sample(rng, 70_000, 3, 50)
    perm = rng.permutation(len(y))
    a = evaluate(y, s, qid=qid, metrics=["ndcg@2", "map"], return_per_query=True)
    b = evaluate(y[perm], s[perm], qid=qid[perm], metrics=["ndcg@2", "map"],
                 return_per_query=True)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=0, atol=1e-12)


def test_buckets_sort_and_ties():
    sizes = np.array([3, 0, 2, 3])
    starts = np.array([0, 3, 3, 5])
    key = np.array([1.0, 3.0, 3.0, 5.0, 4.0, 2.0, 2.0, 9.0])
    order, tied = Buckets(sizes, starts).sort_descending(key.copy(), stable=True)
    np.testing.assert_array_equal(order, [1, 2, 0, 3, 4, 7, 5, 6])
    np.testing.assert_array_equal(tied, [False, True, False, False, False, False, False, True])


def test_input_arrays_are_never_overwritten():
    rng = np.random.default_rng(3)
    y, s, qid = sample(rng, 30, 6, 5)
    perm = rng.permutation(len(y))
    y, s, qid = y[perm], s[perm], qid[perm]
    copies = y.copy(), s.copy(), qid.copy()
    for ties in ("average", "stable", "optimistic"):
        evaluate(y, s, qid=qid, metrics=METRICS, ties=ties)
    for a, b in zip((y, s, qid), copies):
        np.testing.assert_array_equal(a, b)


def test_layout_reports_query_order_of_np_unique():
    data = check_ranking_input([1, 0, 2, 1], [0.1, 0.2, 0.3, 0.4], qid=["b", "a", "b", "c"])
    np.testing.assert_array_equal(data.query_ids, ["a", "b", "c"])
    np.testing.assert_array_equal(data.judged.sizes, [1, 2, 1])


@pytest.mark.parametrize("min_cells", [0, 256, 10**9])
def test_padded_and_exact_blocks_agree(monkeypatch, min_cells):
    """Rare lengths share padded blocks; frequent ones get exact blocks: same results."""
    monkeypatch.setattr(Buckets, "_MIN_CELLS", min_cells)
    rng = np.random.default_rng(4)
    y, s, qid = sample(rng, 400, 40, 6)
    perm = rng.permutation(len(y))
    got = evaluate(y[perm], s[perm], qid=qid[perm], metrics=METRICS, return_per_query=True)
    monkeypatch.setattr(Buckets, "_MIN_CELLS", 0)
    want = evaluate(y, s, qid=qid, metrics=METRICS, return_per_query=True)
    for name in METRICS:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("top_grade", [4, 300])  # 8-bit grade gathers, and plain labels
def test_integer_labels_are_not_copied_to_float_and_agree(top_grade):
    """Integer y_true is used as it comes (no float copy); every metric agrees with floats."""
    rng = np.random.default_rng(5)
    y, s, qid = sample(rng, 300, 30, 4)
    y = (y * top_grade // 3).astype(np.int64)
    perm = rng.permutation(len(y))
    options = {"gain": "linear", "return_per_query": True}  # 2**300 would overflow
    got = evaluate(y[perm], s[perm], qid=qid[perm], metrics=METRICS, **options)
    want = evaluate(y[perm].astype(np.float64), s[perm], qid=qid[perm], metrics=METRICS,
                    **options)
    assert check_ranking_input(y, s, qid).y_true is y
    for name in METRICS:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
