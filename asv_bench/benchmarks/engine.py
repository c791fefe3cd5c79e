"""Time the engine's one sort: rows by query, each query's rows by decreasing score."""

import numpy as np

from sklearn_rank.metrics._input import check_ranking_input
from sklearn_rank.utils._segments import segment_argsort

from .common import make_benchmark_data


class SegmentSortSuite:
    """:func:`~sklearn_rank.utils._segments.segment_argsort` with its score prefix capped.

    The packed key holds a query code, a score prefix and a row number in 64 bits, so the
    prefix shrinks as the rows and queries grow: 1e8 rows in 1e6 queries leave it 17 bits.
    ``prefix_bits=17`` emulates that on data that fits in memory; ``None`` is the prefix
    these sizes leave (30 bits at 1M rows in 10k queries). A prefix too short to tell a
    query's scores apart sends the rows to the exact two-key sort, so the capped case must
    stay near :class:`LexsortSuite` and never several times above it (the cliff that the
    fallback guards). ``"tied"`` scores take three values: their prefix is exact at any
    length, and the packed sort keeps them.
    """

    params = ([10_000, 1_000_000], [None, 24, 17], ["distinct", "tied"])
    param_names = ["n_rows", "prefix_bits", "scores"]
    timeout = 300

    def setup(self, n_rows, prefix_bits, scores):
        self.y_score, self.codes, self.n_queries = _sort_inputs(n_rows, scores)

    def time_segment_argsort(self, n_rows, prefix_bits, scores):
        segment_argsort(self.y_score, self.codes, self.n_queries, prefix_bits=prefix_bits)

    def peakmem_segment_argsort(self, n_rows, prefix_bits, scores):
        segment_argsort(self.y_score, self.codes, self.n_queries, prefix_bits=prefix_bits)


class LexsortSuite:
    """``np.lexsort`` by query, then decreasing score: the plain exact sort, the baseline of
    :class:`SegmentSortSuite` on the same data (it does not depend on the prefix)."""

    params = (SegmentSortSuite.params[0], SegmentSortSuite.params[2])
    param_names = ["n_rows", "scores"]
    timeout = 300

    def setup(self, n_rows, scores):
        self.y_score, self.codes, _ = _sort_inputs(n_rows, scores)

    def time_lexsort(self, n_rows, scores):
        np.lexsort((-self.y_score, self.codes))


def _sort_inputs(n_rows, scores):
    """Scores, query codes and the number of queries of the benchmark data (100 rows per
    query); ``"tied"`` scores take three values."""
    y_true, y_score, qid = make_benchmark_data(n_rows, n_rows // 100, seed=0)
    if scores == "tied":
        y_score = np.floor(3 * y_score / n_rows)
    data = check_ranking_input(y_true, y_score, qid)
    return data.y_score, data.codes, data.n_queries
