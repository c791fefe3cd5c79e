"""Synthetic data shared by the benchmarks and by ``compare_peers.py``, and the measure of
peak memory beyond the inputs that both report."""

import gc
import tracemalloc

import numpy as np

#: Frequencies of the grades 0..4, skewed toward 0 like human judgements.
GRADE_PROBABILITIES = (0.5, 0.25, 0.13, 0.08, 0.04)


def make_benchmark_data(n_rows, n_queries, seed=0):
    """Flat ``(y_true, y_score, qid)`` arrays of a ranking problem, in a fixed random state.

    * Query sizes are ragged: shares of the rows drawn from a flat Dirichlet, so sizes follow
      roughly an exponential law (from 1 up to about ``log(n_queries)`` times the mean); every
      query has at least one row.
    * Rows come in random order, so the rows of a query are not contiguous; query ids are
      arbitrary non-negative integers, neither contiguous nor sorted.
    * ``y_true`` holds grades 0 to 4 with :data:`GRADE_PROBABILITIES`.
    * ``y_score`` is a noisy function of the grade, replaced by its rank: distinct integers
      stored as float64, which float32 also represents exactly (for ``n_rows < 2**24``), so
      peers that keep scores in float32 (XGBoost) see the same order and no ties arise.
    """
    if not 1 <= n_queries <= n_rows:
        raise ValueError(f"need 1 <= n_queries <= n_rows, got {n_queries} and {n_rows}")
    if n_rows >= 2**24:
        raise ValueError(
            f"n_rows must be below 2**24 to keep scores exact in float32, got {n_rows}"
        )
    rng = np.random.default_rng(seed)

    shares = rng.dirichlet(np.ones(n_queries))
    sizes = 1 + rng.multinomial(n_rows - n_queries, shares)
    query_ids = rng.choice(10 * n_queries, size=n_queries, replace=False)
    qid = np.repeat(query_ids, sizes)[rng.permutation(n_rows)]

    y_true = rng.choice(len(GRADE_PROBABILITIES), size=n_rows, p=GRADE_PROBABILITIES)
    noisy = y_true + 1.5 * rng.standard_normal(n_rows)
    y_score = np.empty(n_rows)
    y_score[np.argsort(noisy)] = np.arange(n_rows)
    return y_true, y_score, qid


def extra_memory(run):
    """Peak memory that ``run()`` allocates beyond what exists before it, in bytes.

    ``tracemalloc`` traces numpy's arrays (and every Python object), so the figure is what
    the call adds to its inputs, whatever the interpreter and the libraries hold: the
    "arrays of n" of the docs are this divided by ``8 * n_rows``.
    """
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - before
