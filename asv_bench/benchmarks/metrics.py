"""Time and peak memory of the metric functions on flat, unsorted, ragged data."""

import numpy as np

from sklearn_rank.metrics import err_score, evaluate, map_score, mrr_score, ndcg_score

from .common import extra_memory, make_benchmark_data

FOUR_METRICS = ("ndcg@10", "map", "mrr", "err@10")


class MetricsSuite:
    """One call of each metric on ``n_rows`` rows in queries of ``mean_query_size`` rows.

    The small size runs in milliseconds for a quick check (``asv run --quick``); the large one
    is the size that ``compare_peers.py`` uses, with 10k queries (its default) or 100k
    queries (``--n-queries 100000``).
    """

    params = ([10_000, 1_000_000], [100, 10])
    param_names = ["n_rows", "mean_query_size"]
    timeout = 300

    def setup(self, n_rows, mean_query_size):
        self.y_true, self.y_score, self.qid = make_benchmark_data(
            n_rows, n_rows // mean_query_size, seed=0
        )

    def time_argsort_floor(self, n_rows, mean_query_size):
        """One sort of the scores: the floor that the ratios in the docs refer to."""
        np.argsort(self.y_score)

    def time_ndcg_at_10(self, n_rows, mean_query_size):
        ndcg_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def time_map(self, n_rows, mean_query_size):
        map_score(self.y_true, self.y_score, qid=self.qid)

    def time_mrr(self, n_rows, mean_query_size):
        mrr_score(self.y_true, self.y_score, qid=self.qid)

    def time_err_at_10(self, n_rows, mean_query_size):
        err_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def time_evaluate_four(self, n_rows, mean_query_size):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=FOUR_METRICS)

    def peakmem_ndcg_at_10(self, n_rows, mean_query_size):
        ndcg_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def peakmem_evaluate_four(self, n_rows, mean_query_size):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=FOUR_METRICS)


class TiedScoresSuite:
    """The same data with scores taking three values, so that most documents are tied.

    ``ties="average"`` computes exact expectations over the orders of every tie block (the
    tie blocks of ERR included); ``"optimistic"`` breaks ties by grade.
    """

    params = ([10_000, 1_000_000], ["average", "stable", "optimistic"])
    param_names = ["n_rows", "ties"]
    timeout = 300

    def setup(self, n_rows, ties):
        self.y_true, y_score, self.qid = make_benchmark_data(n_rows, n_rows // 100, seed=0)
        self.y_score = np.floor(3 * y_score / n_rows)

    def time_evaluate_four(self, n_rows, ties):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=FOUR_METRICS, ties=ties)

    def peakmem_evaluate_four(self, n_rows, ties):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=FOUR_METRICS, ties=ties)


#: The four metrics of the engine's speed targets (issue 21), computed in one call.
TARGET_METRICS = ("ndcg@10", "err@10", "map", "mrr@10")


class TargetLayoutsSuite:
    """The engine's speed targets, each beside the ``np.argsort`` of the same scores.

    1M rows, unsorted qid, in queries of 100 rows (10k queries) or of 10 rows (100k
    queries): nDCG@10 alone and :data:`TARGET_METRICS` through ``evaluate``. The targets are
    ratios to :meth:`time_argsort_floor` of the same layout (at 10k queries nDCG@10 <= 0.5x
    and the four metrics <= 0.8x; at 100k queries <= 0.8x and <= 1.2x), and a peak memory
    beyond the inputs of at most 3 arrays of ``n_rows`` (compare each ``peakmem_`` with
    :meth:`peakmem_argsort_floor`, which holds the inputs and one array of ``n_rows``; the
    ``track_peak_*`` cases give it directly, in float64 arrays of ``n_rows``, as the docs
    and ``compare_peers.py`` do). ``compare_peers.py --suite arrays`` prints the same
    ratios from interleaved runs.
    """

    params = ([1_000_000], [100, 10])
    param_names = ["n_rows", "rows_per_query"]
    timeout = 600

    def setup(self, n_rows, rows_per_query):
        self.y_true, self.y_score, self.qid = make_benchmark_data(
            n_rows, n_rows // rows_per_query, seed=0
        )

    def time_argsort_floor(self, n_rows, rows_per_query):
        np.argsort(self.y_score)

    def time_ndcg_at_10(self, n_rows, rows_per_query):
        ndcg_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def time_evaluate_four(self, n_rows, rows_per_query):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=TARGET_METRICS)

    def peakmem_argsort_floor(self, n_rows, rows_per_query):
        np.argsort(self.y_score)

    def peakmem_ndcg_at_10(self, n_rows, rows_per_query):
        ndcg_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def peakmem_evaluate_four(self, n_rows, rows_per_query):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=TARGET_METRICS)

    def track_peak_argsort_floor(self, n_rows, rows_per_query):
        return extra_memory(lambda: np.argsort(self.y_score)) / (8 * n_rows)

    def track_peak_ndcg_at_10(self, n_rows, rows_per_query):
        return extra_memory(
            lambda: ndcg_score(self.y_true, self.y_score, qid=self.qid, k=10)) / (8 * n_rows)

    def track_peak_evaluate_four(self, n_rows, rows_per_query):
        return extra_memory(
            lambda: evaluate(self.y_true, self.y_score, qid=self.qid, metrics=TARGET_METRICS)
        ) / (8 * n_rows)

    # the peak memory beyond the inputs, in float64 arrays of n_rows (target: at most 3)
    track_peak_argsort_floor.unit = "arrays of n"
    track_peak_ndcg_at_10.unit = "arrays of n"
    track_peak_evaluate_four.unit = "arrays of n"
