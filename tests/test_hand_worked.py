"""Closed forms worked out by hand, each with its arithmetic in a comment.

Scores are written so that the intended ranking is explicit: ``y_score`` decreasing
down the list means the documents are ranked in the order they are written.
"""

import math

import numpy as np
import pytest

from sklearn_rank import metrics

DESC5 = [5.0, 4.0, 3.0, 2.0, 1.0]

# The examples without query ids are one query each, on purpose: the metrics' opt-in.
ONE_QUERY = "single_query"


def exact(value):
    return pytest.approx(value, rel=1e-12, abs=1e-12)


def four_decimals(value):
    """A value printed to 4 decimals in the literature."""
    return pytest.approx(value, abs=5e-5)


# --------------------------------------------------------------------------------------
# DCG and nDCG
# --------------------------------------------------------------------------------------
def test_linear_dcg_of_2_3_3_1_2():
    # 2/log2(2) + 3/log2(3) + 3/log2(4) + 1/log2(5) + 2/log2(6)
    # = 2 + 1.8928 + 1.5 + 0.4307 + 0.7737 = 6.5972.
    # A popular write-up of this example rounds the sum to 6.64; the arithmetic gives 6.5972.
    dcg = metrics.dcg_score([2, 3, 3, 1, 2], DESC5, qid=ONE_QUERY, gain="linear")
    assert dcg == four_decimals(6.5972)
    assert dcg == exact(2 + 3 / math.log2(3) + 1.5 + 1 / math.log2(5) + 2 / math.log2(6))


def test_linear_dcg_of_ideal_3_3_2_2_1_and_ndcg():
    # Ideal order of the same labels: 3 + 3/log2(3) + 2/2 + 2/log2(5) + 1/log2(6)
    # = 3 + 1.8928 + 1 + 0.8614 + 0.3869 = 7.1410, and nDCG = 6.5972 / 7.1410 = 0.9238.
    assert metrics.dcg_score([3, 3, 2, 2, 1], DESC5, qid=ONE_QUERY,
                             gain="linear") == four_decimals(7.1410)
    ndcg = metrics.ndcg_score([2, 3, 3, 1, 2], DESC5, qid=ONE_QUERY, gain="linear")
    assert ndcg == four_decimals(0.9238)


def test_linear_dcg_of_3_2_3_0_1_2():
    # 3 + 2/log2(3) + 3/2 + 0 + 1/log2(6) + 2/log2(7) = 3 + 1.2619 + 1.5 + 0.3869 + 0.7124
    # = 6.8611; ideal [3,3,2,2,1,0]: 7.1410 + 0 = 7.1410; nDCG = 0.9608.
    y_true = [3, 2, 3, 0, 1, 2]
    y_score = [6, 5, 4, 3, 2, 1]
    assert metrics.dcg_score(y_true, y_score, qid=ONE_QUERY, gain="linear") == four_decimals(6.8611)
    assert metrics.ndcg_score(y_true, y_score, qid=ONE_QUERY,
                              gain="linear") == four_decimals(0.9608)


def test_exponential_gain_dcg():
    # (2^3-1)/1 + (2^1-1)/log2(3) + (2^0-1)/2 = 7 + 0.6309 + 0 = 7.6309
    assert metrics.dcg_score([3, 1, 0], [3, 2, 1], qid=ONE_QUERY) == exact(7 + 1 / math.log2(3))


def test_dcg_log_base_and_cut_off():
    # log_base=10, k=2: 1/log10(2) + 1/log10(3) = 3.3219 + 2.0959 = 5.4178
    value = metrics.dcg_score([1, 1, 1], [3, 2, 1], qid=ONE_QUERY, gain="linear", log_base=10, k=2)
    assert value == exact(1 / math.log10(2) + 1 / math.log10(3))


def test_ndcg_ideal_uses_unretrieved_judged_documents():
    # Ranked: labels [0, 1]; an unretrieved document has label 1.
    # DCG = 1/log2(3) = 0.6309; ideal over all judged [1, 1, 0] = 1 + 0.6309 = 1.6309.
    value = metrics.ndcg_score(
        [0, 1, 1], [2.0, 1.0, 0.0], qid=ONE_QUERY, gain="linear", retrieved=[True, True, False]
    )
    assert value == exact((1 / math.log2(3)) / (1 + 1 / math.log2(3)))


def test_ndcg_cut_off_truncates_the_ideal_too():
    # k=1: DCG@1 = 1 (label 1 first), IDCG@1 = 3 (label 3 first): 1/3.
    assert metrics.ndcg_score([1, 3], [2.0, 1.0], qid=ONE_QUERY, gain="linear", k=1) == exact(1 / 3)


# --------------------------------------------------------------------------------------
# Average precision, precision, recall
# --------------------------------------------------------------------------------------
RELEVANT_AT_1_3_4 = [1, 0, 1, 1, 0]
RELEVANT_AT_2_4_5 = [0, 1, 0, 1, 1]


def test_ap_at_5_textbook_values():
    # Relevant at ranks 1, 3, 4: (1/1 + 2/3 + 3/4) / 3 = 2.4167 / 3 = 0.8056
    # Relevant at ranks 2, 4, 5: (1/2 + 2/4 + 3/5) / 3 = 1.6 / 3 = 0.5333
    # With exactly three relevant documents, all three denominators are 3.
    for denominator in ("all", "min_k", "found"):
        ap1 = metrics.map_score(RELEVANT_AT_1_3_4, DESC5, qid=ONE_QUERY,
                                k=5, ap_denominator=denominator)
        ap2 = metrics.map_score(RELEVANT_AT_2_4_5, DESC5, qid=ONE_QUERY,
                                k=5, ap_denominator=denominator)
        assert ap1 == four_decimals(0.8056)
        assert ap2 == four_decimals(0.5333)
    both = metrics.map_score(
        RELEVANT_AT_1_3_4 + RELEVANT_AT_2_4_5, DESC5 + DESC5, qid=[1] * 5 + [2] * 5, k=5
    )
    assert both == exact((29 / 12 / 3 + 1.6 / 3) / 2)


def test_ap_at_5_denominator_with_a_fourth_relevant_document():
    # Add a fourth relevant document at rank 7. The textbook values 0.8056 and 0.5333
    # divide by the number of relevant documents *found in the top 5* (3):
    #   found: 2.4167 / 3 = 0.8056          1.6 / 3 = 0.5333
    # while R = 4 and min(R, k) = min(4, 5) = 4 give
    #   all, min_k: 2.4167 / 4 = 0.6042     1.6 / 4 = 0.4
    tail = [0, 1]
    scores = [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    for labels, found, all_ in [
        (RELEVANT_AT_1_3_4 + tail, 29 / 12 / 3, 29 / 12 / 4),
        (RELEVANT_AT_2_4_5 + tail, 1.6 / 3, 1.6 / 4),
    ]:
        assert metrics.map_score(labels, scores, qid=ONE_QUERY,
                                 k=5, ap_denominator="found") == exact(found)
        assert metrics.map_score(labels, scores, qid=ONE_QUERY,
                                 k=5, ap_denominator="all") == exact(all_)
        assert metrics.map_score(labels, scores, qid=ONE_QUERY,
                                 k=5, ap_denominator="min_k") == exact(all_)


def test_ap_min_k_denominator():
    # R = 4, k = 2, both top documents relevant: (1/1 + 2/2) / min(4, 2) = 1;
    # "all" divides by 4: 0.5; "found" by 2: 1.
    labels, scores = [1, 1, 1, 1], [4.0, 3.0, 2.0, 1.0]
    assert metrics.map_score(labels, scores, qid=ONE_QUERY,
                             k=2, ap_denominator="min_k") == exact(1.0)
    assert metrics.map_score(labels, scores, qid=ONE_QUERY, k=2, ap_denominator="all") == exact(0.5)
    assert metrics.map_score(labels, scores, qid=ONE_QUERY,
                             k=2, ap_denominator="found") == exact(1.0)


def test_ap_counts_unretrieved_relevant_in_r():
    # Ranked [1, 0], plus one unretrieved relevant document: (1/1) / R = 1 / 2
    value = metrics.map_score([1, 0, 1], [2.0, 1.0, 0.0], qid=ONE_QUERY,
                              retrieved=[True, True, False])
    assert value == exact(0.5)


def test_precision_and_recall_at_5_with_3_of_4_relevant_in_top_5():
    # Top 5: [1, 0, 1, 1, 0], then a relevant document at rank 6; R = 4.
    # P@5 = 3/5, R@5 = 3/4.
    labels = [1, 0, 1, 1, 0, 1]
    scores = [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    assert metrics.precision_score(labels, scores, qid=ONE_QUERY, k=5) == exact(3 / 5)
    assert metrics.recall_score(labels, scores, qid=ONE_QUERY, k=5) == exact(3 / 4)


def test_precision_on_a_short_list():
    # 2 documents, 1 relevant, k=5: hits/k = 1/5, hits/min(k, n) = 1/2.
    assert metrics.precision_score([1, 0], [2.0, 1.0], qid=ONE_QUERY,
                                   k=5, short_lists="k") == exact(0.2)
    assert metrics.precision_score([1, 0], [2.0, 1.0], qid=ONE_QUERY,
                                   k=5, short_lists="length") == exact(0.5)
    # "rows": the query's 3 rows, the unretrieved one included (torchmetrics' length)
    args = [1, 0, 1], [2.0, 1.0, 0.0]
    assert metrics.precision_score(*args, qid=ONE_QUERY, retrieved=[True, True, False], k=5,
                                   short_lists="rows") == exact(1 / 3)
    assert metrics.precision_score(*args, qid=ONE_QUERY, retrieved=[True, True, False],
                                   short_lists="rows") == exact(1 / 3)
    assert metrics.precision_score(*args, qid=ONE_QUERY,
                                   retrieved=[True, True, False]) == exact(0.5)


def test_relevance_threshold():
    # Threshold 2: only the label-2 document at rank 2 counts. P@2 = 1/2, MRR = 1/2.
    labels, scores = [1, 2, 0], [3.0, 2.0, 1.0]
    assert metrics.precision_score(labels, scores, qid=ONE_QUERY,
                                   k=2, relevance_threshold=2) == exact(0.5)
    assert metrics.mrr_score(labels, scores, qid=ONE_QUERY, relevance_threshold=2) == exact(0.5)


# --------------------------------------------------------------------------------------
# MRR, hit rate, R-precision
# --------------------------------------------------------------------------------------
def test_mrr_over_two_queries():
    # Query 1: first relevant at rank 3 -> 1/3. Query 2: at rank 1 -> 1. Mean: 2/3.
    y_true = [0, 0, 1, 1, 0]
    y_score = [3.0, 2.0, 1.0, 2.0, 1.0]
    qid = [1, 1, 1, 2, 2]
    assert metrics.mrr_score(y_true, y_score, qid=qid) == exact(2 / 3)
    per_query = metrics.mrr_score(y_true, y_score, qid=qid, return_per_query=True)
    np.testing.assert_allclose(per_query, [1 / 3, 1.0], rtol=1e-12)
    # Cut at 2: the first query's relevant document is out of reach -> (0 + 1) / 2.
    assert metrics.mrr_score(y_true, y_score, qid=qid, k=2) == exact(0.5)


def test_hit_rate():
    # First relevant at rank 3: success@2 = 0, success@3 = 1.
    labels, scores = [0, 0, 1], [3.0, 2.0, 1.0]
    assert metrics.hit_rate_score(labels, scores, qid=ONE_QUERY, k=2) == 0.0
    assert metrics.hit_rate_score(labels, scores, qid=ONE_QUERY, k=3) == 1.0


def test_r_precision():
    # R = 3 relevant; top 3 = [1, 0, 1] holds 2 of them: 2/3.
    labels = [1, 0, 1, 0, 1]
    assert metrics.r_precision_score(labels, DESC5, qid=ONE_QUERY) == exact(2 / 3)


# --------------------------------------------------------------------------------------
# ERR and RBP
# --------------------------------------------------------------------------------------
def test_err_exponential():
    # max_grade 2: R = (2^g - 1) / 2^2 -> R_1 = 3/4, R_2 = 1/4, R_3 = 0.
    # ERR = 3/4 + (1/2)(1/4)(1 - 3/4) = 0.75 + 0.03125 = 0.78125
    assert metrics.err_score([2, 1, 0], [3.0, 2.0, 1.0], qid=ONE_QUERY) == exact(0.78125)
    # persistence 0.5 multiplies the reach of rank 2: 0.75 + (1/2)(1/4)(0.5)(1/4) = 0.765625
    assert metrics.err_score([2, 1, 0], [3.0, 2.0, 1.0], qid=ONE_QUERY,
                             persistence=0.5) == exact(0.765625)
    # An explicit max_grade of 3: R_1 = 3/8, R_2 = 1/8:
    # 3/8 + (1/2)(1/8)(5/8) = 0.375 + 0.0390625 = 0.4140625
    assert metrics.err_score([2, 1, 0], [3.0, 2.0, 1.0], qid=ONE_QUERY,
                             max_grade=3) == exact(0.4140625)


def test_err_linear_and_cut_off():
    # Linear, max_grade 2 (the largest label): ranked [1, 2] gives R_1 = 1/2, R_2 = 1.
    # ERR = 1/2 + (1/2)(1)(1 - 1/2) = 0.75; at k=1 only the first term: 0.5
    assert metrics.err_score([1, 2], [2.0, 1.0], qid=ONE_QUERY, gain="linear") == exact(0.75)
    assert metrics.err_score([1, 2], [2.0, 1.0], qid=ONE_QUERY, gain="linear", k=1) == exact(0.5)


def test_err_max_grade_per_query():
    # max_grade="query": query 1 max 1 -> R_1 = 1/2 -> ERR 0.5;
    # query 2 max 3 -> R_1 = 7/8 -> ERR 0.875. Mean 0.6875.
    # max_grade=None uses the maximum over the call (3): query 1 R_1 = 1/8.
    y_true, y_score, qid = [1, 0, 3], [2.0, 1.0, 1.0], [1, 1, 2]
    per_query = metrics.err_score(
        y_true, y_score, qid=qid, max_grade="query", return_per_query=True
    )
    np.testing.assert_allclose(per_query, [0.5, 0.875], rtol=1e-12)
    assert metrics.err_score(y_true, y_score, qid=qid) == exact((1 / 8 + 7 / 8) / 2)


def test_rbp_binary_and_residual():
    # p = 0.8, ranked [1, 0, 1]: (1 - 0.8)(1 + 0.8^2) = 0.2 * 1.64 = 0.328
    assert metrics.rbp_score([1, 0, 1], [3.0, 2.0, 1.0], qid=ONE_QUERY) == exact(0.328)
    # k=2: 0.2 * 1 = 0.2 (the third document is not looked at)
    assert metrics.rbp_score([1, 0, 1], [3.0, 2.0, 1.0], qid=ONE_QUERY, k=2) == exact(0.2)
    # p = 0.5: 0.5 * (1 + 0.25) = 0.625
    assert metrics.rbp_score([1, 0, 1], [3.0, 2.0, 1.0], qid=ONE_QUERY,
                             persistence=0.5) == exact(0.625)


def test_rbp_graded():
    # graded, max_grade 2: rel = [1, 1/2, 0] -> 0.2 * (1 + 0.8 * 0.5) = 0.28
    assert metrics.rbp_score([2, 1, 0], [3.0, 2.0, 1.0], qid=ONE_QUERY, graded=True) == exact(0.28)
    # max_grade 4: rel = [1/2, 1/4, 0] -> 0.2 * (0.5 + 0.8 * 0.25) = 0.14
    value = metrics.rbp_score([2, 1, 0], [3.0, 2.0, 1.0], qid=ONE_QUERY, graded=True, max_grade=4)
    assert value == exact(0.14)


# --------------------------------------------------------------------------------------
# Half-life utility
# --------------------------------------------------------------------------------------
def test_half_life_utility():
    # half_life 2: discount 2^((i-1)/1) = 1, 2, 4. Ranked [0, 2, 1]:
    # R = 0 + 2/2 + 1/4 = 1.25; ideal [2, 1, 0] = 2 + 1/2 = 2.5; utility 0.5
    labels, scores = [0, 2, 1], [3.0, 2.0, 1.0]
    assert metrics.half_life_utility_score(labels, scores, qid=ONE_QUERY, half_life=2) == exact(0.5)
    # half_life 5: discount 2^((i-1)/4) = 1, 1.1892, 1.4142.
    # R = 2/1.1892 + 1/1.4142 = 1.6818 + 0.7071 = 2.3889; ideal = 2 + 1/1.1892 = 2.8409
    # utility = 0.8409
    expected = (2 / 2**0.25 + 1 / 2**0.5) / (2 + 1 / 2**0.25)
    assert metrics.half_life_utility_score(labels, scores, qid=ONE_QUERY) == exact(expected)
    assert expected == four_decimals(0.8409)


def test_half_life_utility_default_rating():
    # default_rating 1: gains max(y - 1, 0) = [0, 1, 0]; R = 1/2; ideal = 1; utility 0.5
    labels, scores = [0, 2, 1], [3.0, 2.0, 1.0]
    value = metrics.half_life_utility_score(labels, scores, qid=ONE_QUERY,
                                            half_life=2, default_rating=1)
    assert value == exact(0.5)


# --------------------------------------------------------------------------------------
# Correlations and pairwise accuracy
# --------------------------------------------------------------------------------------
def test_kendall_tau_and_spearman_without_ties():
    # y_true [3, 2, 1], y_score [1, 3, 2]. Pairs: (0,1) discordant, (0,2) discordant,
    # (1,2) concordant. tau = (1 - 2) / 3 = -1/3.
    # Ranks: true [3, 2, 1], score [1, 3, 2]; d = [2, -1, -1], sum d^2 = 6;
    # rho = 1 - 6 * 6 / (3 * (9 - 1)) = 1 - 36/24 = -0.5.
    assert metrics.kendall_tau_score([3, 2, 1], [1.0, 3.0, 2.0], qid=ONE_QUERY) == exact(-1 / 3)
    assert metrics.spearman_score([3, 2, 1], [1.0, 3.0, 2.0], qid=ONE_QUERY) == exact(-0.5)


def test_kendall_tau_b_with_tied_labels():
    # y_true [1, 1, 0], y_score [3, 2, 1]: pair (0,1) tied in y_true, (0,2) and (1,2)
    # concordant. n0 = 3 pairs, n1 = 1 tied in y_true, n2 = 0 tied in y_score.
    # tau_b = (2 - 0) / sqrt((3 - 1)(3 - 0)) = 2 / sqrt(6) = 0.8165
    assert metrics.kendall_tau_score([1, 1, 0], [3.0, 2.0, 1.0], qid=ONE_QUERY) == exact(
        2 / math.sqrt(6))
    # Spearman with average ranks: true ranks [2.5, 2.5, 1], score ranks [3, 2, 1]:
    # centred [0.5, 0.5, -1] and [1, 0, -1]: cov 1.5, var 1.5 and 2 -> 1.5/sqrt(3) = 0.8660
    assert metrics.spearman_score([1, 1, 0], [3.0, 2.0, 1.0], qid=ONE_QUERY) == exact(
        math.sqrt(3) / 2)


def test_correlations_of_constant_lists():
    # Constant y_score: 0.0. Constant y_true: the no_relevant value.
    assert metrics.kendall_tau_score([2, 1, 0], [1.0, 1.0, 1.0], qid=ONE_QUERY) == 0.0
    assert metrics.spearman_score([2, 1, 0], [1.0, 1.0, 1.0], qid=ONE_QUERY) == 0.0
    assert metrics.kendall_tau_score([1, 1], [2.0, 1.0], qid=ONE_QUERY, no_relevant=1.0) == 1.0
    assert math.isnan(
        metrics.spearman_score([1, 1], [2.0, 1.0], qid=ONE_QUERY,
                               no_relevant=np.nan, return_per_query=True)[0]
    )


def test_pairwise_accuracy():
    # y_true [2, 1, 0], y_score [1, 1, 0]. Pairs with different labels: (0,1) tied in
    # score, (0,2) and (1,2) correct. Accuracy = (2 + ties_credit) / 3.
    labels, scores = [2, 1, 0], [1.0, 1.0, 0.0]
    assert metrics.pairwise_accuracy_score(labels, scores, qid=ONE_QUERY) == exact(2.5 / 3)
    assert metrics.pairwise_accuracy_score(labels, scores, qid=ONE_QUERY,
                                           ties_credit=0) == exact(2 / 3)
    assert metrics.pairwise_accuracy_score(labels, scores, qid=ONE_QUERY,
                                           ties_credit=1) == exact(1.0)
    # Pairs with equal labels are ignored: [1, 1, 0] with scores [0, 1, 2] -> 0 of 2.
    assert metrics.pairwise_accuracy_score([1, 1, 0], [0.0, 1.0, 2.0], qid=ONE_QUERY) == 0.0


# --------------------------------------------------------------------------------------
# Tied scores
# --------------------------------------------------------------------------------------
def test_tied_pair_dcg_expectation():
    # Gains 3 and 0 tied at positions 1-2. Orderings (3, 0) and (0, 3), each 1/2:
    # E[DCG] = 1/2 (3/1) + 1/2 (3/log2(3)) = 1.5 (1 + 1/log2(3)) = 2.4464
    labels, scores = [0, 3], [1.0, 1.0]
    expected = 1.5 * (1 + 1 / math.log2(3))
    assert metrics.dcg_score(labels, scores, qid=ONE_QUERY, gain="linear") == exact(expected)
    assert expected == four_decimals(2.4464)
    # optimistic puts the 3 first; pessimistic and stable (input order) put it second.
    assert metrics.dcg_score(labels, scores, qid=ONE_QUERY,
                             gain="linear", ties="optimistic") == exact(3.0)
    pessimistic = metrics.dcg_score(labels, scores, qid=ONE_QUERY,
                                    gain="linear", ties="pessimistic")
    assert pessimistic == exact(3 / math.log2(3))
    assert metrics.dcg_score(labels, scores, qid=ONE_QUERY, gain="linear", ties="stable") == exact(
        3 / math.log2(3)
    )
    assert metrics.dcg_score([3, 0], scores, qid=ONE_QUERY,
                             gain="linear", ties="stable") == exact(3.0)


def test_tied_block_reciprocal_rank_expectation():
    # One relevant document among three tied ones: each rank 1, 2, 3 with probability 1/3,
    # E[RR] = (1 + 1/2 + 1/3) / 3 = 11/18 -- not 1 / (mean rank 2) = 1/2.
    assert metrics.mrr_score([0, 1, 0], [1.0, 1.0, 1.0], qid=ONE_QUERY) == exact(11 / 18)


def test_tied_block_precision_and_ap_expectation():
    # 2 relevant among 4 tied documents: E[P@1] = 2/4.
    assert metrics.precision_score([1, 0, 1, 0], [1.0] * 4, qid=ONE_QUERY, k=1) == exact(0.5)
    # One relevant and one non-relevant tied: AP = 1/2 (1/1) + 1/2 (1/2) = 0.75.
    assert metrics.map_score([0, 1], [1.0, 1.0], qid=ONE_QUERY) == exact(0.75)


def test_ties_after_a_cut_off():
    # Labels [0, 3, 0] with scores [2, 1, 1], k=2: the tie straddles the cut-off, and
    # rank 2 holds the 3 half of the time: E[DCG@2] = 1/2 (3/log2(3)) = 0.9464.
    value = metrics.dcg_score([0, 3, 0], [2.0, 1.0, 1.0], qid=ONE_QUERY, gain="linear", k=2)
    assert value == exact(0.5 * 3 / math.log2(3))


# --------------------------------------------------------------------------------------
# Queries without relevant documents, weights, retrieved masks
# --------------------------------------------------------------------------------------
NO_RELEVANT_CASE = {
    "y_true": [1, 0, 0, 0],
    "y_score": [2.0, 1.0, 2.0, 1.0],
    "qid": ["q1", "q1", "q2", "q2"],
}


@pytest.mark.parametrize(
    "no_relevant, mean, second",
    [(0.0, 0.5, 0.0), (1.0, 1.0, 1.0), (np.nan, 1.0, np.nan)],
)
def test_no_relevant_policy(no_relevant, mean, second):
    # q1 has nDCG 1; q2 has no relevant document and gets the policy's value,
    # or is left out of the mean (NaN).
    args = NO_RELEVANT_CASE["y_true"], NO_RELEVANT_CASE["y_score"]
    qid = NO_RELEVANT_CASE["qid"]
    assert metrics.ndcg_score(*args, qid=qid, no_relevant=no_relevant) == exact(mean)
    per_query = metrics.ndcg_score(
        *args, qid=qid, no_relevant=no_relevant, return_per_query=True
    )
    np.testing.assert_allclose(per_query, [1.0, second], rtol=1e-12)


def test_no_relevant_raise():
    args = NO_RELEVANT_CASE["y_true"], NO_RELEVANT_CASE["y_score"]
    with pytest.raises(ValueError):
        metrics.ndcg_score(*args, qid=NO_RELEVANT_CASE["qid"], no_relevant="raise")


def test_sample_weight_is_averaged_per_query():
    # q1: P@1 = 1, rows weighted 1 and 3 -> query weight 2.
    # q2: P@1 = 0, one row weighted 1 -> query weight 1.
    # Weighted mean: (2 * 1 + 1 * 0) / 3 = 2/3.
    value = metrics.precision_score(
        [1, 0, 0, 1], [2.0, 1.0, 2.0, 1.0], qid=[1, 1, 2, 2], k=1, sample_weight=[1, 3, 1, 1]
    )
    assert value == exact(2 / 3)


def test_recall_counts_unretrieved_relevant_documents():
    # Two relevant documents, one not retrieved: R@10 = 1/2, R-precision = 1/2
    # (R = 2, top 2 of the ranked list [1, 0] holds 1).
    labels, scores, retrieved = [1, 1, 0], [2.0, 0.0, 1.0], [True, False, True]
    assert metrics.recall_score(labels, scores, qid=ONE_QUERY,
                                k=10, retrieved=retrieved) == exact(0.5)
    assert metrics.r_precision_score(labels, scores, qid=ONE_QUERY,
                                     retrieved=retrieved) == exact(0.5)
