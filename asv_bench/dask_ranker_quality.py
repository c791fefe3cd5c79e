"""Is a ranker trained on Dask as good as the same ranker trained in memory?

Usage (in an environment with ``pip install -e ".[bench,dask]"``)::

    python asv_bench/dask_ranker_quality.py               # 5 seeds, 2 workers
    python asv_bench/dask_ranker_quality.py --seeds 3     # quicker

For each data set, it trains, for each seed, the in-memory ranker
(:class:`sklearn_rank.lightgbm.LGBMRanker`, :class:`sklearn_rank.xgboost.XGBRanker`) and
the Dask one (:class:`sklearn_rank.lightgbm.DaskLGBMRanker`,
:class:`sklearn_rank.xgboost.DaskXGBRanker`) on a ``distributed.LocalCluster`` of two worker
processes, with the same parameters, and prints the test nDCG@10 of each as mean ± sd over
the seeds. The seed drives the booster's row and feature subsampling (0.8 each), so the sd is
the seed-to-seed noise of a model. The Dask model is within the noise when the difference of
the two means is within two standard errors of that difference.

The seed fixes the in-memory models and the XGBoost ones on Dask, but not the LightGBM ones on
Dask: two runs of this script gave ``DaskLGBMRanker`` 0.7424 ± 0.0024 and then 0.7470 ± 0.0022
on ``make_ranking`` (``LGBMRanker``: 0.7419 ± 0.0026 both times), the second outside the noise,
in the Dask model's favour. Which rows each worker holds depends on Dask's scheduling, and
LightGBM's data-parallel training subsamples the rows of each worker: compare several runs.

The data sets: ``sklearn_rank.datasets.make_ranking`` (2,000 queries, about 55,000 rows,
80 % of the queries for training), and LightGBM's LambdaRank example from
``../shared/data/lambdarank-example`` (its own train and test files), skipped when absent.
The Dask training data is split into 4 partitions with the rows in random order, so that
queries are spread over partitions and workers.
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from sklearn_rank.datasets import load_svmlight_ranking, make_ranking
from sklearn_rank.metrics import ndcg_score

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "lambdarank-example"

LIGHTGBM = {"n_estimators": 100, "learning_rate": 0.1, "num_leaves": 31, "subsample": 0.8,
            "subsample_freq": 1, "colsample_bytree": 0.8, "verbose": -1}
XGBOOST = {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 6, "subsample": 0.8,
           "colsample_bytree": 0.8, "tree_method": "hist"}


def synthetic():
    X, y, qid = make_ranking(n_queries=2000, n_features=30, n_informative=10, max_docs=50,
                             noise=1.0, random_state=0)
    test = qid >= np.quantile(np.unique(qid), 0.8)
    return (X[~test], y[~test], qid[~test]), (X[test], y[test], qid[test])


def lambdarank_example():
    if not SHARED.is_dir():
        return None
    train = load_svmlight_ranking(SHARED / "rank.train")
    n_features = train[0].shape[1]
    test = load_svmlight_ranking(SHARED / "rank.test", n_features=n_features)
    return tuple((X.toarray(), y, qid) for X, y, qid in (train, test))


def as_dask(X, y=None, qid=None, seed=0):
    import dask.dataframe as dd
    import pandas as pd

    if y is None:
        return dd.from_pandas(pd.DataFrame(X).add_prefix("f"), npartitions=2)
    order = np.random.default_rng(seed).permutation(len(y))  # queries across partitions
    frame = pd.DataFrame(X[order]).add_prefix("f").assign(label=y[order], qid=qid[order])
    ddf = dd.from_pandas(frame, npartitions=4)
    return ddf.drop(columns="label"), ddf["label"]


def run(models, data, seeds):
    """Test nDCG@10 of each model and seed: {model name: [values]}, and the fit times."""
    (X, y, qid), (X_test, y_test, qid_test) = data
    scores = {name: [] for name in models}
    seconds = {name: 0.0 for name in models}
    test_dask = as_dask(X_test)
    for seed in seeds:
        X_dask, y_dask = as_dask(X, y, qid, seed)
        for name, make in models.items():
            model = make(seed)
            start = time.perf_counter()
            if name.startswith("Dask"):
                model.fit(X_dask, y_dask)  # the query ids: the "qid" column
                y_score = model.predict(test_dask).compute().to_numpy()
            else:
                model.fit(X, y, qid=qid)
                y_score = model.predict(X_test)
            seconds[name] += time.perf_counter() - start
            scores[name].append(ndcg_score(y_test, y_score, qid=qid_test, k=10))
    return scores, seconds


def report(title, scores, seconds, pairs):
    print(f"\n{title}")
    for name, values in scores.items():
        print(f"  {name:15s} nDCG@10 {np.mean(values):.4f} ± {np.std(values, ddof=1):.4f}   "
              f"(fit+predict {seconds[name] / len(values):.1f} s per seed)")
    for memory, dask in pairs:
        a, b = np.array(scores[memory]), np.array(scores[dask])
        diff = b.mean() - a.mean()
        se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        verdict = "within the noise" if abs(diff) <= 2 * se else "OUTSIDE the noise"
        print(f"  {dask} - {memory}: {diff:+.4f} (standard error {se:.4f}): {verdict}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    from sklearn_rank.lightgbm import DaskLGBMRanker, LGBMRanker
    from sklearn_rank.xgboost import DaskXGBRanker, XGBRanker

    models = {
        "LGBMRanker": lambda s: LGBMRanker(random_state=s, n_jobs=2, **LIGHTGBM),
        "DaskLGBMRanker": lambda s: DaskLGBMRanker(random_state=s, **LIGHTGBM),
        "XGBRanker": lambda s: XGBRanker(random_state=s, n_jobs=2, **XGBOOST),
        "DaskXGBRanker": lambda s: DaskXGBRanker(random_state=s, **XGBOOST),
    }
    pairs = [("LGBMRanker", "DaskLGBMRanker"), ("XGBRanker", "DaskXGBRanker")]
    seeds = range(args.seeds)
    # The data are built in memory here and sent with the graph (dd.from_pandas), which
    # distributed warns about beyond 10 MiB; real data are read by the workers from files.
    warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", host="127.0.0.1") as cluster, \
            Client(cluster):
        print(f"Dask: LocalCluster of 2 worker processes, 1 thread each; {args.seeds} seeds")
        data = synthetic()
        title = (f"make_ranking: {len(data[0][1])} training rows "
                 f"({len(np.unique(data[0][2]))} queries), {len(data[1][1])} test rows "
                 f"({len(np.unique(data[1][2]))} queries)")
        report(title, *run(models, data, seeds), pairs)
        data = lambdarank_example()
        if data is None:
            print("\nLightGBM's LambdaRank example: skipped, ../shared/data is absent")
        else:
            title = (f"LightGBM's LambdaRank example: {len(data[0][1])} training rows, "
                     f"{len(data[1][1])} test rows ({len(np.unique(data[1][2]))} queries)")
            report(title, *run(models, data, seeds), pairs)


if __name__ == "__main__":
    main()
