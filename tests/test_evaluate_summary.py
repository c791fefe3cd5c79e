"""evaluate_summary: evaluate's means with the numbers of queries and rows, in memory and, in
one pass, on Dask inputs (what ``sklearn-rank evaluate --table DIR`` prints)."""

import numpy as np
import pandas as pd
import pytest

from sklearn_rank.metrics import (
    EvaluationSummary,
    aggregate,
    evaluate,
    evaluate_per_query,
    evaluate_summary,
)

METRICS = ["ndcg@10", "err@5", "map", "mrr", "p@3", "rbp(graded=true)"]


def make_rows(seed=0, n=1200, n_queries=50):
    """Tied scores, queries without a relevant document, rows of a query scattered."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, n_queries, n)
    label = rng.choice([0, 0, 0, 1, 2, 3, 4], n)
    label[ids % 7 == 0] = 0
    return pd.DataFrame({
        "qid": ids, "label": label.astype(np.float64),
        "score": rng.integers(0, 6, n).astype(np.float64),
        "weight": rng.random(n) + 0.05, "retrieved": rng.random(n) > 0.15,
    })


@pytest.mark.parametrize("options", [
    {}, {"sample_weight": "weight"}, {"retrieved": "retrieved"},
    {"ties": "stable", "gain": "linear"},
])
def test_in_memory_summary_is_evaluate_s_means_and_the_counts(options):
    rows = make_rows()
    kwargs = {k: (rows[v] if k in ("sample_weight", "retrieved") else v)
              for k, v in options.items()}
    summary = evaluate_summary(rows["label"], rows["score"], qid=rows["qid"],
                               metrics=METRICS, **kwargs)
    result = evaluate_per_query(rows["label"], rows["score"], qid=rows["qid"],
                                metrics=METRICS, **kwargs)
    assert isinstance(summary, EvaluationSummary)
    assert summary.means == evaluate(rows["label"], rows["score"], qid=rows["qid"],
                                     metrics=METRICS, **kwargs)
    assert summary.means == aggregate(result)
    assert (summary.n_queries, summary.n_rows) == (len(result), len(rows))


@pytest.fixture(scope="module")
def dask_dataframe():
    pytest.importorskip("dask")
    return pytest.importorskip("dask.dataframe")


@pytest.mark.parametrize("options", [{}, {"sample_weight": "weight"},
                                     {"retrieved": "retrieved", "ties": "stable"}])
@pytest.mark.parametrize("npartitions", [1, 4])
def test_dask_summary_counts_are_those_of_evaluate_per_query_in_memory(
        dask_dataframe, options, npartitions):
    """The public form of the Dask counts: the means, the queries and the rows of one
    pass over a Dask frame are those of evaluate_per_query on the same rows in memory."""
    rows = make_rows(seed=npartitions)
    frame = dask_dataframe.from_pandas(rows, npartitions=npartitions, sort=False)
    columns = {k: v for k, v in options.items() if k != "ties"}
    more = {k: v for k, v in options.items() if k == "ties"}
    summary = evaluate_summary(frame["label"], frame["score"], qid=frame["qid"],
                               metrics=METRICS, **{k: frame[v] for k, v in columns.items()},
                               **more)
    result = evaluate_per_query(rows["label"], rows["score"], qid=rows["qid"],
                                metrics=METRICS, **{k: rows[v] for k, v in columns.items()},
                                **more)
    assert (summary.n_queries, summary.n_rows) == (len(result), len(rows))
    assert list(summary.means) == METRICS
    for name, mean in aggregate(result).items():
        assert isinstance(summary.means[name], float)
        np.testing.assert_allclose(summary.means[name], mean, rtol=1e-12, atol=1e-12,
                                   err_msg=name)


def test_dask_summary_checks_partitioned_by_query(dask_dataframe):
    from sklearn_rank.metrics import SplitQueryError

    rows = make_rows().sort_values("qid", kind="stable").reset_index(drop=True)
    whole = dask_dataframe.from_pandas(rows, npartitions=1)
    summary = evaluate_summary(whole["label"], whole["score"], qid=whole["qid"],
                               metrics=["map"], partitioned_by_query=True)
    assert (summary.n_queries, summary.n_rows) == (rows["qid"].nunique(), len(rows))
    # the last row of the first query moved to the end: the query is in two partitions
    first = rows.index[rows["qid"] == rows["qid"].iloc[0]]
    split = pd.concat([rows.drop(first[-1:]), rows.loc[first[-1:]]], ignore_index=True)
    frame = dask_dataframe.from_pandas(split, npartitions=2, sort=False)
    with pytest.raises(SplitQueryError):
        evaluate_summary(frame["label"], frame["score"], qid=frame["qid"], metrics=["map"],
                         partitioned_by_query=True)
    summary = evaluate_summary(frame["label"], frame["score"], qid=frame["qid"],
                               metrics=["map"])  # shuffled by query: the same counts
    assert (summary.n_queries, summary.n_rows) == (rows["qid"].nunique(), len(rows))


def test_summary_refuses_what_evaluate_refuses():
    with pytest.raises(ValueError, match="evaluate_summary"):
        evaluate_summary([1, 0], [0.5, 0.2], metrics=["map"])  # no qid
    with pytest.raises(ValueError, match="Unknown metric name 'nope@3'"):
        evaluate_summary([1, 0], [0.5, 0.2], qid="single_query", metrics=["nope@3"])
