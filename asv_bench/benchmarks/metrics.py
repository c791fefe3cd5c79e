"""Time and peak memory of the metric functions on flat, unsorted, ragged data."""

from sklearn_rank.metrics import err_score, evaluate, map_score, mrr_score, ndcg_score

from .common import make_benchmark_data

FOUR_METRICS = ("ndcg@10", "map", "mrr", "err@10")


class MetricsSuite:
    """One call of each metric on ``n_rows`` rows in ``n_rows // 100`` queries.

    The small size runs in milliseconds for a quick check (``asv run --quick``); the large one
    is the size that ``compare_peers.py`` uses by default.
    """

    params = ([10_000, 1_000_000],)
    param_names = ["n_rows"]
    timeout = 300

    def setup(self, n_rows):
        self.y_true, self.y_score, self.qid = make_benchmark_data(n_rows, n_rows // 100, seed=0)

    def time_ndcg_at_10(self, n_rows):
        ndcg_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def time_map(self, n_rows):
        map_score(self.y_true, self.y_score, qid=self.qid)

    def time_mrr(self, n_rows):
        mrr_score(self.y_true, self.y_score, qid=self.qid)

    def time_err_at_10(self, n_rows):
        err_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def time_evaluate_four(self, n_rows):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=FOUR_METRICS)

    def peakmem_ndcg_at_10(self, n_rows):
        ndcg_score(self.y_true, self.y_score, qid=self.qid, k=10)

    def peakmem_evaluate_four(self, n_rows):
        evaluate(self.y_true, self.y_score, qid=self.qid, metrics=FOUR_METRICS)
