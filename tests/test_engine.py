"""The engine's layouts: every path through grouping and sorting gives the same numbers."""

import ast
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rank.metrics import evaluate, parse_metric
from sklearn_rank.metrics._engine import Buckets, RankingInput, at_least
from sklearn_rank.metrics._input import check_ranking_input
from sklearn_rank.metrics._registry import METRICS as REGISTRY
from sklearn_rank.utils._qid import factorize
from sklearn_rank.utils._segments import (
    _lexsort_segments,
    segment_argsort,
    segment_starts,
    stable_argsort_codes,
)

# At least one name of every metric of the registry (test_every_registry_metric_is_run)
METRICS = ["ndcg@3", "dcg", "err@5", "map", "map@2(ap_denominator=found)", "mrr", "p@2",
           "r@3", "success@1", "hits@2", "rprec", "rbp(p=0.7)", "hlu", "kendall_tau",
           "spearman", "pairwise_accuracy",
           # incomplete judgements, retrieved sets and counts
           "bpref", "gm_bpref", "infap", "judged@3", "unj@5", "rbp_resid(p=0.5)", "set_p",
           "set_recall", "set_f(beta=2)", "set_map", "set_relative_p", "relative_p@3",
           "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "num_q",
           "utility(b=-2,d=0.5)", "fallout@3", "f1@2",
           # interpolated precision, R-based and G-based measures, the DCG family's options
           "gm_map", "yaap", "iprec_at_recall(recall=0.5)", "11pt_avg", "rprec_mult(mult=2)", "g",
           "bing", "ndcg_rel", "rndcg", "ndcg@3(discount=rank)", "dcg(gains={1: 3, 2: 9})"]


def test_every_registry_metric_is_run():
    assert {parse_metric(name)[0].name for name in METRICS} == set(REGISTRY)


def sample(rng, n_queries, max_size, n_values):
    sizes = rng.integers(1, max_size + 1, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, 4, len(qid)).astype(float)
    s = rng.integers(0, n_values, len(qid)).astype(float)
    return y, s, qid


@pytest.mark.parametrize("ties", ["average", "stable", "optimistic", "pessimistic"])
@pytest.mark.parametrize("n_values", [3, 1000])
def test_grouped_and_shuffled_inputs_agree(ties, n_values):
    """Grouped and shuffled rows give the same values."""
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


@pytest.mark.parametrize("n_codes", [2, 300, 1 << 16, (1 << 16) + 1, 3 << 16, (4 << 16) + 1,
                                     1 << 20, 1 << 50, 1 << 62])
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


def test_segment_argsort_by_hand():
    codes = np.array([2, 0, 2, 0, 0, 2, 2, 3])
    values = np.array([1.0, 3.0, 3.0, 5.0, 3.0, 2.0, 3.0, 9.0])
    order, ties = segment_argsort(values, codes, 4)
    np.testing.assert_array_equal(order, [3, 1, 4, 2, 6, 5, 0, 7])
    np.testing.assert_array_equal(ties, [2, 4])
    # codes ranked 3, 0, 2 (code 1 has no rows); ties by secondary, then by row
    order, ties = segment_argsort(values, codes, 4, relabel=np.array([1, 3, 2, 0]),
                                  secondary=np.array([0, 0, 1, 0, 0, 0, 0, 0]))
    np.testing.assert_array_equal(order, [7, 3, 1, 4, 6, 2, 5, 0])
    np.testing.assert_array_equal(ties, [3, 5])


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
    np.testing.assert_array_equal(data.all_rows.sizes, [1, 2, 1])


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


def _reference_segment_argsort(values, codes, relabel, secondary):
    """The same order by numpy's lexicographic sort, and the tied positions."""
    segment = relabel[codes]
    descending = -values.astype(np.float64) if values.dtype.kind == "u" else -values
    keys = (descending, segment) if secondary is None else (secondary, descending, segment)
    order = np.lexsort(keys)
    tied = (segment[order][1:] == segment[order][:-1]) & (values[order][1:] == values[order][:-1])
    return order, np.flatnonzero(tied) + 1


VALUE_KINDS = {
    # few distinct values: many true ties, and prefixes shared by different values
    "float-ties": lambda rng, n: rng.choice([-np.inf, -2.5, -0.0, 0.0, 1e-300, 1.0, 1.0 + 2**-52,
                                             7.0, np.inf], n),
    "float-distinct": lambda rng, n: rng.standard_normal(n),
    "float-halves": lambda rng, n: rng.integers(-3, 5, n) * 0.5,  # short mantissas

    "int64": lambda rng, n: rng.integers(-(2**62), 2**62, n) // rng.choice([1, 2**40], n),
    "uint8": lambda rng, n: rng.integers(0, 5, n).astype(np.uint8),
    "huge-int64": lambda rng, n: 2**60 + rng.integers(0, 3, n),  # equal as float64
}


@pytest.mark.parametrize("kind", VALUE_KINDS)
@pytest.mark.parametrize("prefix_bits", [0, 1, 3, 12, None])
@pytest.mark.parametrize("with_secondary", [None, np.int64, np.uint8])  # uint8: in the key
def test_segment_argsort_matches_lexsort(kind, prefix_bits, with_secondary):
    """The packed sort, however few bits of the values it keeps, gives lexsort's order:
    short prefixes send most rows through the exact sort of colliding runs."""
    rng = np.random.default_rng(6)
    n, n_codes = 3000, 40
    values = VALUE_KINDS[kind](rng, n)
    codes = rng.integers(0, n_codes, n).astype(np.int32)
    relabel = rng.permutation(n_codes)
    secondary = None if with_secondary is None else rng.integers(0, 3, n).astype(with_secondary)
    order, ties = segment_argsort(values, codes, n_codes, relabel=relabel,
                                  secondary=secondary, prefix_bits=prefix_bits)
    want_order, want_ties = _reference_segment_argsort(values, codes, relabel, secondary)
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(ties, want_ties)


@pytest.mark.parametrize("kind", VALUE_KINDS)
@pytest.mark.parametrize("batch_rows", [1, 7, 100, 2999])
@pytest.mark.parametrize("with_secondary", [None, np.int64, np.uint8])
def test_batched_segment_argsort_matches_lexsort(kind, batch_rows, with_secondary):
    """Beyond _BATCH_ROWS rows the groups are sorted by batches of whole groups (forced
    here by batch_rows): the same order and ties, whatever the batches' cut, with groups
    without rows, a group larger than a batch, and a prefix too short for one packed key."""
    rng = np.random.default_rng(8)
    n, n_codes = 3000, 50
    values = VALUE_KINDS[kind](rng, n)
    codes = rng.integers(0, n_codes - 10, n).astype(np.int32)  # codes 40-49 have no row
    codes[rng.random(n) < 0.2] = 7  # a large group
    relabel = rng.permutation(n_codes)
    secondary = None if with_secondary is None else rng.integers(0, 3, n).astype(with_secondary)
    want_order, want_ties = _reference_segment_argsort(values, codes, relabel, secondary)
    for prefix_bits in (None, 2):
        order, ties = segment_argsort(values, codes, n_codes, relabel=relabel,
                                      secondary=secondary, prefix_bits=prefix_bits,
                                      batch_rows=batch_rows)
        np.testing.assert_array_equal(order, want_order)
        np.testing.assert_array_equal(ties, want_ties)


def test_batched_sort_is_taken_when_one_key_lacks_bits(monkeypatch):
    """The engine batches by itself beyond _BATCH_ROWS rows when one packed key would leave
    too short a prefix (100M rows in a million queries), and ranks as lexsort does."""
    from sklearn_rank.utils import _segments

    rng = np.random.default_rng(9)
    n, n_codes = 4000, 400
    values, codes = rng.normal(size=n), rng.integers(0, n_codes, n)
    taken = []
    batched = _segments._batched_segment_argsort
    monkeypatch.setattr(_segments, "_batched_segment_argsort",
                        lambda *args: taken.append(args[-1]) or batched(*args))
    monkeypatch.setattr(_segments, "_BATCH_ROWS", 512)
    order, ties = segment_argsort(values, codes, n_codes, prefix_bits=4)
    assert taken == [512]
    want_order, want_ties = _reference_segment_argsort(values, codes, np.arange(n_codes), None)
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(ties, want_ties)


@pytest.mark.parametrize("with_secondary", [False, True])
def test_lexsort_fallback_agrees(with_secondary):
    """Beyond 2**32 rows the key cannot be packed; the fallback sorts the same way."""
    rng = np.random.default_rng(7)
    values = VALUE_KINDS["float-ties"](rng, 500)
    codes = rng.integers(0, 9, 500)
    secondary = rng.integers(0, 2, 500) if with_secondary else None
    got = _lexsort_segments(values, codes, secondary)
    want = _reference_segment_argsort(values, codes, np.arange(9), secondary)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.sampled_from([-np.inf, -1.0, -0.0, 0.0, 0.25,
                                                            0.5, 3.0, np.inf]),
                       st.integers(0, 2)), min_size=1, max_size=60),
    st.integers(0, 8),
)
def test_segment_argsort_property(rows, prefix_bits):
    codes, values, secondary = (np.array(c) for c in zip(*rows))
    relabel = np.array([3, 0, 4, 1, 2])
    for second in (None, secondary, secondary.astype(np.uint8)):
        got = segment_argsort(values, codes, 5, relabel=relabel, secondary=second,
                              prefix_bits=prefix_bits)
        want = _reference_segment_argsort(values, codes, relabel, second)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("ties", ["average", "stable", "optimistic"])
@pytest.mark.parametrize("n_values", [3, 1000])
def test_grade_tables_and_plain_labels_agree(monkeypatch, ties, n_values):
    """Integer grades are read through per-grade tables; plain float labels give the same."""
    rng = np.random.default_rng(8)
    y, s, qid = sample(rng, 200, 12, n_values)
    perm = rng.permutation(len(y))
    y, s, qid = y[perm], s[perm], qid[perm]
    options = {"metrics": METRICS + ["err@3(max_grade=query)", "rbp(graded=true)"],
               "ties": ties, "return_per_query": True}
    tables = evaluate(y, s, qid=qid, **options)
    monkeypatch.setattr(RankingInput, "grades", property(lambda self: None))
    plain = evaluate(y, s, qid=qid, **options)
    for name in tables:
        np.testing.assert_allclose(tables[name], plain[name], rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("width, count", [(3, 50_000), (10, 2000), (16, 1024), (40, 200)])
def test_cumprod_exclusive_by_columns_and_along_rows(width, count):
    """Narrow, tall blocks take products column by column; all agree with a plain loop."""
    rng = np.random.default_rng(9)
    sizes = np.concatenate([np.full(count, width), rng.integers(1, width + 1, 300)])
    starts = segment_starts(sizes)
    x = rng.uniform(0.2, 1.0, int(sizes.sum()))
    for depth in (None, 2, width + 1):
        got = Buckets(sizes, starts).cumprod_exclusive(x, depth)
        want = np.zeros(len(x))
        for start, size in zip(starts, sizes):
            d = size if depth is None else min(size, depth)
            want[start : start + d] = np.cumprod(np.append(1.0, x[start : start + d - 1]))
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("n_values", [3, 1000])
@pytest.mark.parametrize("with_retrieved", [False, True])
def test_pair_counts_by_grades_by_matrices_and_per_long_query_agree(monkeypatch, n_values,
                                                                   with_retrieved):
    """Kendall's tau and the pair accuracies: counted grade by grade from the ranking
    (integer grades), from pair matrices, and one long query at a time: the same counts."""
    from sklearn_rank.metrics import _per_query

    rng = np.random.default_rng(10)
    y, s, qid = sample(rng, 150, 20, n_values)
    perm = rng.permutation(len(y))
    options = {"metrics": ["kendall_tau", "pairwise_accuracy",
                           "pairwise_accuracy(ties_credit=0.5)"], "return_per_query": True}
    if with_retrieved:
        options["retrieved"] = rng.random(len(y)) < 0.8
    args = (y[perm].astype(np.int64), s[perm])
    by_grades = evaluate(*args, qid=qid[perm], **options)
    monkeypatch.setattr(_per_query, "_PAIRWISE_GRADES", 0)
    by_matrices = evaluate(*args, qid=qid[perm], **options)
    monkeypatch.setattr(_per_query, "_PAIRWISE_WIDTH", 8)
    per_query = evaluate(*args, qid=qid[perm], **options)
    for name in by_grades:
        np.testing.assert_allclose(by_grades[name], by_matrices[name], rtol=0, atol=1e-12)
        np.testing.assert_allclose(by_grades[name], per_query[name], rtol=0, atol=1e-12)


QID_KINDS = {
    "str": np.array(["q10", "q9", "Q1", "é", "q10", "q9", "q2"]),
    "bytes": np.array([b"b", b"a", b"b", b"c"]),
    "object-str": np.array(["b", "a", "b", "c", "a"], dtype=object),
    "object-mixed-numbers": np.array([2, 1.0, 1, 2.5], dtype=object),
}


@pytest.mark.parametrize("kind", QID_KINDS)
def test_hash_and_sort_factorize_agree(monkeypatch, kind):
    """Strings and objects are coded through pandas' hash table when pandas is at hand, by
    np.unique otherwise: the same codes, in the order of np.unique(qid)."""
    from sklearn_rank.utils import _qid

    pytest.importorskip("pandas")
    qid = QID_KINDS[kind]
    hashed = factorize(qid, len(qid))
    monkeypatch.setattr(_qid, "_pandas_at_hand", lambda n: None)
    sorted_ = factorize(qid, len(qid))
    uniques, inverse = np.unique(qid, return_inverse=True)
    for codes, ids in (hashed, sorted_):
        np.testing.assert_array_equal(codes, inverse.reshape(-1))
        np.testing.assert_array_equal(ids, uniques)
        assert ids.dtype == uniques.dtype


@pytest.mark.parametrize("use_pandas", [True, False])
def test_unsortable_or_missing_object_qids_raise(monkeypatch, use_pandas):
    from sklearn_rank.utils import _qid

    if use_pandas:
        pytest.importorskip("pandas")
    else:
        monkeypatch.setattr(_qid, "_pandas_at_hand", lambda n: None)
    with pytest.raises(TypeError, match="one sortable type"):
        factorize(np.array([3, "a"], dtype=object), 2)
    with pytest.raises(ValueError, match="must not contain None"):
        factorize(np.array(["a", None], dtype=object), 2)


# --------------------------------------------------------------------------------------
# The packed sort's fallback (issue 10): a prefix too short to tell a query's values apart
# sends the rows to the exact two-key sort; both give lexsort's order.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", VALUE_KINDS)
@pytest.mark.parametrize("prefix_bits", [0, 1, 3, 12])
@pytest.mark.parametrize("with_secondary", [None, np.int64, np.uint8])
def test_packed_sort_with_short_prefixes_matches_lexsort(monkeypatch, kind, prefix_bits,
                                                         with_secondary):
    """With the fallback disabled, the packed sort itself still orders the colliding runs
    of a short prefix exactly (the step that the fallback now spares most short prefixes)."""
    from sklearn_rank.utils import _segments

    monkeypatch.setattr(_segments, "_SPARE_BITS_FLOAT", -64)  # every prefix suffices
    monkeypatch.setattr(_segments, "_SPARE_BITS_INTEGER", -64)
    rng = np.random.default_rng(11)
    n, n_codes = 3000, 40
    values = VALUE_KINDS[kind](rng, n)
    codes = rng.integers(0, n_codes, n).astype(np.int32)
    relabel = rng.permutation(n_codes)
    secondary = None if with_secondary is None else rng.integers(0, 3, n).astype(with_secondary)
    assert _segments._prefix_suffices(values, prefix_bits, n / n_codes)
    order, ties = segment_argsort(values, codes, n_codes, relabel=relabel,
                                  secondary=secondary, prefix_bits=prefix_bits)
    want_order, want_ties = _reference_segment_argsort(values, codes, relabel, secondary)
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(ties, want_ties)


def _first_sufficient_prefix(values, mean_size):
    from sklearn_rank.utils._segments import _prefix_suffices

    return next(bits for bits in range(65) if _prefix_suffices(values, bits, mean_size))


@pytest.mark.parametrize("kind", ["float-distinct", "int64"])
@pytest.mark.parametrize("with_secondary", [None, np.int64, np.uint8])
def test_segment_argsort_on_both_sides_of_the_fallback_threshold(kind, with_secondary):
    """One bit below the shortest sufficient prefix, the exact sort; at it and above, the
    packed sort: the same order and ties."""
    from sklearn_rank.utils._segments import _prefix_suffices

    rng = np.random.default_rng(12)
    n, n_codes = 3000, 40
    values = VALUE_KINDS[kind](rng, n)
    codes = rng.integers(0, n_codes, n).astype(np.int32)
    relabel = rng.permutation(n_codes)
    secondary = None if with_secondary is None else rng.integers(0, 3, n).astype(with_secondary)
    threshold = _first_sufficient_prefix(values, n / n_codes)
    assert 0 < threshold < 30
    assert not _prefix_suffices(values, threshold - 1, n / n_codes)
    want_order, want_ties = _reference_segment_argsort(values, codes, relabel, secondary)
    for bits in (threshold - 2, threshold - 1, threshold, threshold + 1):
        order, ties = segment_argsort(values, codes, n_codes, relabel=relabel,
                                      secondary=secondary, prefix_bits=bits)
        np.testing.assert_array_equal(order, want_order, err_msg=str(bits))
        np.testing.assert_array_equal(ties, want_ties, err_msg=str(bits))


@pytest.mark.parametrize("mean_size, float_bits, int_bits", [(100, 19, 10), (1000, 22, 13),
                                                             (10_000, 26, 17)])
def test_prefix_needed_grows_with_query_size(mean_size, float_bits, int_bits):
    """The rule: log2(mean query size) bits, plus 12 for floats (their sign and exponent
    bits) or 3 for integers (measured crossovers: see _prefix_suffices)."""
    rng = np.random.default_rng(13)
    floats = rng.standard_normal(1000)
    ints = rng.integers(-(2**40), 2**40, 1000)
    assert _first_sufficient_prefix(floats, mean_size) == float_bits
    assert _first_sufficient_prefix(ints, mean_size) == int_bits


def test_exact_prefixes_keep_the_packed_sort_however_short():
    """Values that a short prefix holds whole (float grades, integers of a narrow range)
    have no colliding runs to sort: no fallback."""
    from sklearn_rank.utils._segments import _prefix_suffices

    rng = np.random.default_rng(14)
    halves = rng.integers(0, 9, 1000) * 0.5
    assert _prefix_suffices(halves, 16, 10_000)
    assert not _prefix_suffices(halves + 1e-9, 16, 10_000)
    days = 20_000 + rng.integers(0, 365, 1000)
    assert _prefix_suffices(days, 9, 10_000)
    assert not _prefix_suffices(days * 10, 9, 10_000)


@pytest.mark.parametrize("kind", VALUE_KINDS)
@pytest.mark.parametrize("n_codes", [9, 70_000])  # a radix sort of the codes, and a packed one
@pytest.mark.parametrize("with_secondary", [None, np.int64, np.uint8])
def test_exact_fallback_matches_lexsort(kind, n_codes, with_secondary):
    rng = np.random.default_rng(15)
    values = VALUE_KINDS[kind](rng, 3000)
    codes = rng.integers(0, n_codes, 3000)
    secondary = None if with_secondary is None else rng.integers(0, 3, 3000).astype(with_secondary)
    got = _lexsort_segments(values, codes, secondary, n_codes)
    want = _reference_segment_argsort(values, codes, np.arange(n_codes), secondary)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_derived_values_are_cached_per_argument():
    """Rankings per tie rule, relevant counts per threshold, top rows per cut-off: built
    once, and distinct for distinct arguments."""
    rng = np.random.default_rng(16)
    y, s, qid = sample(rng, 30, 6, 5)
    data = check_ranking_input(y, s, qid)
    assert data.ranking("average") is data.ranking("average")
    assert data.ranking("stable") is not data.ranking("average")
    assert data.n_relevant(1) is data.n_relevant(1)
    np.testing.assert_array_equal(data.n_relevant(2) <= data.n_relevant(1), True)
    assert data.max_label() is data.max_label()
    ranking = data.ranking("stable")
    assert ranking.top(2) is ranking.top(2)
    assert ranking.top_rows(3)[1] is ranking.top_rows(3)[1]
    assert ranking.relevant(1) is ranking.relevant(1)


@pytest.mark.parametrize("top_grade", [4, 300])  # 8-bit grades, and plain labels
def test_ranking_label_is_y_true_in_ranked_order(top_grade):
    rng = np.random.default_rng(17)
    y, s, qid = sample(rng, 40, 7, 1000)
    y = y * (top_grade // 3)
    data = check_ranking_input(y, s, qid)
    ranking = data.ranking("stable")
    assert (ranking.grades is None) == (top_grade > 255)
    want, _ = _reference_segment_argsort(s, qid, data.all_rows.layout_position, None)
    np.testing.assert_array_equal(ranking.label, y[want])


def test_layout_position_inverts_the_layout():
    rng = np.random.default_rng(18)
    y, s, qid = sample(rng, 50, 9, 5)
    group = check_ranking_input(y, s, rng.permutation(50)[qid]).all_rows
    np.testing.assert_array_equal(group.layout[group.layout_position], np.arange(50))
    assert (np.diff(group.sizes[group.layout]) >= 0).all()


def test_integer_scores_with_no_row_retrieved_score_like_float_scores():
    """No retrieved row leaves the sort an empty integer array: no numpy error about a
    zero-size reduction, the same values as with float scores."""
    options = {"qid": [1, 1, 2], "retrieved": [False, False, False], "no_relevant": 0.0,
               "metrics": METRICS, "return_per_query": True}
    got = evaluate([1, 0, 1], np.array([3, 2, 1]), **options)
    want = evaluate([1, 0, 1], np.array([3.0, 2.0, 1.0]), **options)
    for name in METRICS:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    for bits in (None, 0, 3):
        order, ties = segment_argsort(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32),
                                      3, prefix_bits=bits)
        assert len(order) == len(ties) == 0


@pytest.mark.parametrize("chunk_rows", [1, 2, 5, 64])
def test_precision_sums_by_chunks_are_bit_identical(monkeypatch, chunk_rows):
    """AP and precision-based metrics sum the relevant rows by chunks of whole queries (of
    _CHUNK_ROWS rows, 4M): any cut gives the very same values as one chunk."""
    from sklearn_rank.metrics import _per_query

    rng = np.random.default_rng(10)
    n = 2000
    y, s, q = rng.integers(0, 4, n), rng.random(n), rng.integers(0, 60, n)
    y[q % 7 == 0] = 0  # queries without a relevant document
    names = ["map", "map@3", "map@10", "ap@5(ap_denominator=found)",
             "ap@5(ap_denominator=min_k)", "map(relevance_threshold=3)"]
    whole = evaluate(y, s, qid=q, metrics=names, return_per_query=True)
    monkeypatch.setattr(_per_query, "_CHUNK_ROWS", chunk_rows)
    chunked = evaluate(y, s, qid=q, metrics=names, return_per_query=True)
    for name in names:
        np.testing.assert_array_equal(chunked[name], whole[name], err_msg=name)


def test_per_query_modules_do_not_import_scipy_special():
    # scipy.special takes a quarter of a second to import: only the measures that need it
    # (tie-aware hypergeometric terms) import it, so that trec_eval's command does not
    import subprocess
    import sys

    code = ("import sys, sklearn_rank.metrics._per_query_curves, "
            "sklearn_rank.metrics._per_query_judged; "
            "print('scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_sums_in_order_add_as_a_c_loop():
    """trec_eval (and the loops of LightGBM and XGBoost) add in order; numpy pairwise,
    with the first value last. AP of relevant documents at ranks 2, 8, 16, 25 of 10:
    exactly 0.10975, which trec_eval prints 0.1097 and pairwise sums 0.1098."""
    from sklearn_rank.utils._segments import segment_sums_in_order, sum_in_order

    rng = np.random.default_rng(0)
    sizes = rng.integers(0, 40, 300)
    x = rng.random(int(sizes.sum())) * 10.0 ** rng.integers(-8, 8, int(sizes.sum()))
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    expected = []
    for a, size in zip(starts.tolist(), sizes.tolist()):
        total = 0.0
        for value in x[a:a + size].tolist():
            total += value
        expected.append(total)
    assert segment_sums_in_order(x, starts).tolist() == expected
    assert sum_in_order(x) == sum(x.tolist()) and sum_in_order(np.array([-0.0])) == 0.0
    # map under the trec_eval convention; the default convention's sums are unchanged
    y_true = np.r_[np.isin(np.arange(30), [1, 7, 15, 24]), np.ones(6)]
    y_score = np.r_[-np.arange(30.0), np.full(6, -np.inf)]
    retrieved = np.arange(36) < 30
    trec = evaluate(y_true, y_score, qid=np.zeros(36), retrieved=retrieved, metrics=["map"],
                    convention="trec_eval")["map"]
    assert f"{trec:6.4f}" == "0.1097" and trec == 1.0975 / 10
    default = evaluate(y_true, y_score, qid=np.zeros(36), retrieved=retrieved,
                       metrics=["map"])["map"]
    assert default == (0.5 + (0.25 + 0.1875 + 0.16)) / 10  # numpy's reduceat, as before


def _imported_modules(path):
    """Absolute names of the sklearn_rank modules that ``path`` imports (inside functions
    too)."""
    package = Path(path).relative_to(sklearn_rank_root().parent).with_suffix("").parts
    names = set()
    for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level]) if node.level else []
            names.add(".".join([*base, *(node.module or "").split(".")]).strip("."))
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name.startswith("sklearn_rank")}


def sklearn_rank_root():
    import sklearn_rank

    return Path(sklearn_rank.__file__).parent


def test_engine_primitives_sit_below_metrics():
    """The segmented sort and segment sums are utilities: the data readers and the boosters'
    query sets use them without the metrics engine, which in turn checks no input."""
    root = sklearn_rank_root()
    for path in root.rglob("*.py"):
        if path.parent.name == "metrics" or "_cli" in path.parts:
            continue
        assert "sklearn_rank.metrics._engine" not in _imported_modules(path), path
    segments = _imported_modules(root / "utils" / "_segments.py")
    assert not any(name.startswith("sklearn_rank.metrics") for name in segments), segments
    assert "sklearn_rank.metrics._input" not in _imported_modules(root / "metrics" / "_engine.py")


@pytest.mark.parametrize("ties", ["average", "stable", "optimistic"])
@pytest.mark.parametrize("threshold", [-1, 0, 0.5, 1, 2, 3.5, 300])
def test_relevant_rows_from_grade_counts_equal_the_search(monkeypatch, ties, threshold):
    """Ranking.relevant finds where each query's relevant rows begin from the per-query
    grade counts when every row is ranked; the binary search over the rows, its other
    route, gives the same rows, queries and starts (empty queries of the layout included)."""
    from sklearn_rank.metrics import _engine

    rng = np.random.default_rng(3)
    y, s, qid = sample(rng, 80, 12, 5)
    qid = rng.permutation(qid)
    counted = check_ranking_input(y, s, qid).ranking(ties)
    assert counted.data._levels is not None
    got = counted.relevant(threshold)
    monkeypatch.setattr(_engine, "_LEVEL_CELLS_PER_ROW", 0)
    monkeypatch.setattr(_engine, "_LEVEL_CELLS_FREE", 0)
    searched = check_ranking_input(y, s, qid).ranking(ties)
    assert searched.data._levels is None
    for a, b in zip(got, searched.relevant(threshold), strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


def test_positions_count_from_each_query_start():
    """Grouping.position: 0, 1, ... within every laid-out query, whatever the sizes."""
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 30, 50)
    qid = rng.permutation(np.repeat(np.arange(50), sizes))
    group = check_ranking_input(np.zeros(len(qid)), rng.normal(size=len(qid)), qid).all_rows
    want = np.concatenate([np.arange(m) for m in group.layout_sizes])
    np.testing.assert_array_equal(group.position, want)
    assert group.position.dtype == np.int32


@pytest.mark.parametrize("rows_at_once", [1, 7, 1 << 16])
@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic"])
def test_grade_counts_from_a_ranking_equal_those_from_the_rows(monkeypatch, rows_at_once, ties):
    """Once a ranking of every row exists, the per-query grade counts are taken from its
    laid-out grades, a slice of rows at a time (queries cut by a slice's ends included):
    the same counts, of the same type, as the count over the rows in input order."""
    from sklearn_rank.metrics import _engine

    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 25, 70)
    qid = rng.permutation(np.repeat(rng.choice(1000, 70, replace=False), sizes))
    y = rng.choice(6, len(qid), p=[0.4, 0.2, 0.2, 0.1, 0.05, 0.05])
    s = rng.integers(0, 8, len(qid)).astype(float)
    from_rows = check_ranking_input(y, s, qid)._levels
    monkeypatch.setattr(_engine, "_LEVEL_ROWS_AT_ONCE", rows_at_once)
    calls = []
    laid_out = _engine._laid_out_counts
    monkeypatch.setattr(_engine, "_laid_out_counts",
                        lambda *args: calls.append(args) or laid_out(*args))
    data = check_ranking_input(y, s, qid)
    data.ranking(ties)
    from_ranking = data._levels
    assert len(calls) == 1
    for a, b in zip(from_ranking, from_rows, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


@pytest.mark.parametrize("n_codes", [1, 5, 70_000])
@pytest.mark.parametrize("n_rows", [0, 1, 65_536, 200_001])
def test_segment_sizes_is_bincount(n_codes, n_rows):
    """Rows per code, counted a slice at a time, equal np.bincount's counts and type."""
    from sklearn_rank.utils._segments import segment_sizes

    codes = np.random.default_rng(6).integers(0, n_codes, n_rows).astype(np.int32)
    got = segment_sizes(codes, n_codes)
    want = np.bincount(codes, minlength=n_codes)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


@pytest.mark.parametrize("k", [1, 2, 3, 10, 1000, None])
@pytest.mark.parametrize("retrieved", [False, True])
def test_top_position_weights_equal_the_gathered_ones(k, retrieved):
    """The weights of each query's top k rows, tiled run by run of equal length, are bit
    for bit those read through the rows' positions (queries left without a ranked row,
    one-row queries and cut-offs beyond every query included)."""
    from sklearn_rank.metrics._per_query import (
        discount_weight,
        position_weights,
        top_position_weights,
    )

    rng = np.random.default_rng(7)
    sizes = rng.choice([1, 1, 2, 3, 5, 9, 10, 11, 40], 120)
    qid = rng.permutation(np.repeat(np.arange(120), sizes))
    mask = rng.random(len(qid)) < 0.6 if retrieved else None
    data = check_ranking_input(rng.integers(0, 3, len(qid)), rng.normal(size=len(qid)), qid,
                               retrieved=mask)
    ranking = data.ranking("average")
    for weight in (discount_weight("log", 2), discount_weight("log", 10),
                   lambda p: 1.0 / (p + 1.0)):
        want = position_weights(ranking.position[ranking.top(k)], None, weight)
        got = top_position_weights(ranking, k, weight)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


# --------------------------------------------------------------------------------------
# The engine's memory-saving paths (issue 21, item 3): in place, by slices of rows, by
# chunks of whole queries, without every row's position. Each must give, bit for bit, what
# the plain path gives.
# --------------------------------------------------------------------------------------


def small_slices(monkeypatch, rows):
    """Make the engine's slices of rows (512 KiB normally) ``rows`` long, so that small
    inputs cross many slice boundaries."""
    from sklearn_rank.metrics import _engine
    from sklearn_rank.utils import _segments

    monkeypatch.setattr(_segments, "_ROWS_AT_ONCE", rows)
    monkeypatch.setattr(_engine, "_ROWS_AT_ONCE", rows)


def adversarial_input(rng, n_queries=150, *, float_labels=False, retrieved=False):
    """Ragged queries (one-row ones, long ones beyond 64 rows, queries without a relevant
    document), tied scores, grades 0-4 (or non-integer labels), shuffled rows."""
    sizes = rng.choice([1, 1, 2, 3, 5, 9, 10, 11, 17, 40, 70], n_queries)
    qid = rng.permutation(np.repeat(rng.permutation(10 * n_queries)[:n_queries], sizes))
    y = rng.choice(5, len(qid), p=[0.5, 0.25, 0.13, 0.08, 0.04]).astype(float)
    y[qid % 7 == 0] = 0.0  # queries without a relevant document
    if float_labels:
        y = y * 0.75
    s = np.round(rng.normal(size=len(qid)), 1)  # many ties
    mask = rng.random(len(qid)) < 0.7 if retrieved else None
    return y, s, qid, mask


@pytest.mark.parametrize("contiguous", [True, False])
def test_cumprod_exclusive_in_place_is_bit_identical(contiguous):
    """Buckets.cumprod_exclusive(x, in_place=True) writes over x the products that the
    plain call returns: contiguous blocks column by column (short widths, many rows) and
    through numpy's cumprod (wide ones, or few rows), padded blocks of rare lengths, and
    blocks gathered from scattered segments."""
    rng = np.random.default_rng(21)
    sizes = np.concatenate([np.full(300, 3), np.full(40, 8), np.full(20, 30), [1, 2, 5, 7, 13],
                            np.full(5, 70), rng.integers(1, 20, 30)])
    rng.shuffle(sizes)
    order = np.argsort(sizes, kind="stable") if contiguous else rng.permutation(len(sizes))
    starts = np.empty(len(sizes), dtype=np.intp)
    starts[order] = segment_starts(sizes[order])
    buckets = Buckets(sizes, starts)
    assert buckets.padded and any(isinstance(b[2], slice) for b in buckets.blocks) == contiguous
    x = rng.uniform(0.2, 1.0, int(sizes.sum()))
    want = buckets.cumprod_exclusive(x)
    got = x.copy()
    assert buckets.cumprod_exclusive(got, in_place=True) is got
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("k", [0, 1, 2, 3, 10, 64, 10**30])
@pytest.mark.parametrize("retrieved", [False, True])
def test_top_mask_without_positions_is_position_below_k(monkeypatch, k, retrieved):
    """The top-k mask built from the layout alone (no array of every row's position: the
    four target metrics never build it) is ``position < k``, queries left without a ranked
    row, one-row queries and cut-offs beyond every query included."""
    small_slices(monkeypatch, 37)
    y, s, qid, mask = adversarial_input(np.random.default_rng(3), retrieved=retrieved)
    ranking = check_ranking_input(y, s, qid, retrieved=mask).ranking("average")
    top = ranking.top(k)
    assert "position" not in vars(ranking._group)  # no positions built
    np.testing.assert_array_equal(top, ranking.position < k)


@pytest.mark.parametrize("float_labels", [False, True])
@pytest.mark.parametrize("retrieved", [False, True])
@pytest.mark.parametrize("chunk_rows", [1, 2, 7, 1 << 16])
def test_relevant_rows_by_chunks_are_the_kept_rows(monkeypatch, float_labels, retrieved,
                                                   chunk_rows):
    """The relevant rows found a chunk of whole queries at a time (AP and RR alone keep
    none) are those that relevant_rows keeps, chunk after chunk, and so are the chunks cut
    from the kept rows."""
    small_slices(monkeypatch, 29)
    y, s, qid, mask = adversarial_input(np.random.default_rng(5), float_labels=float_labels,
                                        retrieved=retrieved)
    data = check_ranking_input(y, s, qid, retrieved=mask)
    assert (data.grades is None) == float_labels
    ranking = data.ranking("stable")
    for threshold in (0.5, 1, 2.25, 3, 300):
        scanned = list(ranking.relevant_chunks(threshold, chunk_rows))
        rows, first, owner = ranking.relevant_rows(threshold)  # kept from here on
        kept = list(ranking.relevant_chunks(threshold, chunk_rows))
        assert len(rows) == (at_least(ranking.label, threshold)).sum()
        for chunks in (scanned, kept):
            if not len(first):
                assert chunks == []
                continue
            np.testing.assert_array_equal(np.concatenate([c[0] for c in chunks]), rows)
            np.testing.assert_array_equal(np.concatenate([c[2] for c in chunks]), owner)
            offsets = np.cumsum([0] + [len(c[0]) for c in chunks[:-1]])
            np.testing.assert_array_equal(
                np.concatenate([c[1] + at for c, at in zip(chunks, offsets)]), first)


@pytest.mark.parametrize("float_labels", [False, True])
def test_labels_mapped_in_place_by_slices_are_the_plain_product(monkeypatch, float_labels):
    """map_labels(..., times=x) multiplies x, a slice of rows at a time, by the very values
    that map_labels returns, for every row, a mask of rows or a slice of them."""
    small_slices(monkeypatch, 23)
    y, s, qid, _ = adversarial_input(np.random.default_rng(8), float_labels=float_labels)
    ranking = check_ranking_input(y, s, qid).ranking("average")

    def stop(labels):
        return (np.exp2(labels) - 1.0) * np.exp2(-4.0)

    for rows in (slice(None), ranking.top(3), slice(5, 300), slice(0, 0), slice(1, 90, 3)):
        plain = ranking.map_labels(stop, rows)
        x = np.random.default_rng(1).uniform(size=len(plain))
        want = x * plain
        got = ranking.map_labels(stop, rows, times=x)
        assert got is x
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


TARGET_LIKE = ["ndcg@10", "err@10", "map", "mrr@10", "mrr", "success@3", "map@5",
               "ap@5(ap_denominator=found)", "gm_map", "yaap", "err", "ndcg", "err@1",
               "ndcg@1", "err@20(persistence=0.5)", "ndcg@30(gain=linear)", "dcg@64"]


@pytest.mark.parametrize(("ties", "options"), [
    *((ties, {}) for ties in ("average", "stable", "optimistic", "pessimistic")),
    *(("stable", options) for options in ({"no_relevant": np.nan}, {"sample_weight": True},
                                          {"float_labels": True}, {"retrieved": True})),
    ("average", {"retrieved": True, "no_relevant": np.nan}),
    (None, {"convention": "trec_eval"}),  # its own tie rule: by document name
])
def test_chunked_and_in_place_paths_give_the_plain_values(monkeypatch, ties, options):
    """The metrics that read the relevant rows by chunks, and the top rows in place, give
    bit for bit the values of one chunk and whole arrays: with another metric keeping the
    relevant rows first (the chunks are then cut from them), with slices of a few rows and
    chunks of one row, on ties, one-row queries, queries without relevant documents, weights
    and the NaN policy."""
    from sklearn_rank.metrics import _per_query

    options = dict(options)
    rng = np.random.default_rng(12)
    y, s, qid, mask = adversarial_input(rng, float_labels=options.pop("float_labels", False),
                                        retrieved=options.pop("retrieved", False))
    if options.pop("sample_weight", False):
        options["sample_weight"] = rng.uniform(0.5, 2.0, len(y))
    call = {"qid": qid, "retrieved": mask, "return_per_query": True, **options}
    if ties is None:
        call["docno"] = rng.permutation(len(y)).astype(str)
    else:
        call["ties"] = ties
    # the plain path: nDCG@k and ERR@k on a mask of the top rows, not by pieces
    monkeypatch.setattr(_per_query, "_PIECES_MAX_K", 0)
    plain = evaluate(y, s, metrics=TARGET_LIKE, **call)
    monkeypatch.undo()
    # the relevant rows kept by a metric listed first (P@5), then cut into chunks
    kept = evaluate(y, s, metrics=["p@5", *TARGET_LIKE], **call)
    small_slices(monkeypatch, 13)
    for chunk_rows in (1, 5):
        monkeypatch.setattr(_per_query, "_CHUNK_ROWS", chunk_rows)
        chunked = evaluate(y, s, metrics=TARGET_LIKE, **call)
        for name in TARGET_LIKE:
            for got in (chunked[name], kept[name]):
                np.testing.assert_array_equal(got.view(np.int64), plain[name].view(np.int64),
                                              err_msg=name)


@pytest.mark.parametrize("k", [1, 2, 3, 10, 64, 10**30])
@pytest.mark.parametrize("retrieved", [False, True])
@pytest.mark.parametrize("cells", [1, 5, 1 << 16])
def test_top_pieces_are_the_top_rows_query_by_query(k, retrieved, cells):
    """The pieces of top rows (nDCG@k and ERR@k read them, with no mask) are, piece after
    piece, every nonempty query's top rows in ranked order: those of ``position < k``."""
    y, s, qid, mask = adversarial_input(np.random.default_rng(4), retrieved=retrieved)
    ranking = check_ranking_input(y, s, qid, retrieved=mask).ranking("average")
    pieces = list(ranking.top_pieces(k, cells))
    rows = np.concatenate([np.arange(r.start, r.stop) if isinstance(r, slice) else r.ravel()
                           for _, _, r in pieces])
    np.testing.assert_array_equal(rows, np.flatnonzero(ranking.position < k))
    group = ranking._group
    np.testing.assert_array_equal(np.concatenate([codes for codes, _, _ in pieces]),
                                  group.layout[group.layout_sizes > 0])
    for codes, width, _ in pieces:
        np.testing.assert_array_equal(np.minimum(ranking.sizes[codes], min(k, len(y))), width)
        assert len(codes) <= max(cells // width, 1)
