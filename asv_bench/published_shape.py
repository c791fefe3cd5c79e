"""The shape of a published learning-to-rank benchmark: LambdaRank, XGBoost and a regressor.

Usage (from the root of a clone, with ``pip install -e ".[test]"`` or ``".[bench]"``, which
bring LightGBM and XGBoost)::

    python asv_bench/published_shape.py                      # generated data, 2,000 queries
    python asv_bench/published_shape.py --quick              # 500 queries: the CI size
    python asv_bench/published_shape.py --data mslr-web10k   # MSLR-WEB10K, for who has it
    python asv_bench/published_shape.py --data mslr-web10k --n-jobs 5

Three models, cross-validated on the same 5 folds of whole queries
(:class:`~sklearn_rank.model_selection.QueryKFold`, shuffled with ``--seed``):

- ``pointwise``: LightGBM's least-squares regression of the grades (``objective="regression"``),
  the baseline. It runs in :class:`sklearn_rank.lightgbm.LGBMRanker` only so that its early
  stopping is the rankers': the loss is pointwise and never looks at the query ids, which only
  serve to hold out whole queries and to monitor nDCG@10 on them. (Without early stopping, a
  ``make_pipeline(DropQueryId(), lightgbm.LGBMRegressor())`` is the same model: see
  ``docs/qid_routing.rst``.)
- ``lambdarank``: LightGBM's LambdaRank (:class:`sklearn_rank.lightgbm.LGBMRanker`), the same
  trees as the baseline: the comparison isolates the loss;
- ``xgboost``: XGBoost's ``rank:ndcg`` (:class:`sklearn_rank.xgboost.XGBRanker`), LambdaMART
  with XGBoost's own default trees (depth 6).

Each fit stops early: ``validation_fraction=0.1`` of its training queries, whole, are held out,
and boosting stops when their nDCG@10 has not improved for 50 rounds (at most 1,000 trees at
a learning rate of 0.1). No test query is ever seen by a fit. The script prints the
per-query comparison of :func:`sklearn_rank.stats.compare` (means with bootstrap intervals,
paired t-tests against the baseline with Holm's correction), the trees each model kept and
its fit time.

The data:

- ``generated`` (default): :func:`sklearn_rank.datasets.make_ranking` with
  ``realistic=True``, a simulation with query-level shifts of relevance, features relative to
  the query and interactions (its docstring states the process). 2,000 queries (about 54,000
  documents) take about a minute on one core; ``--quick`` runs 500 queries with at most 300
  trees, in well under a minute.
- ``mslr-web10k``: the 10,000 queries of MSLR-WEB10K (Microsoft's Bing data, 1.2 million
  documents, 136 features), read by :func:`sklearn_rank.datasets.fetch_mslr_web10k` with
  ``fold=1, subset="all"``: the five parts S1-S5 pooled, so that each of the 5 folds tests
  about 2,000 queries, as the published folds do (ours are drawn at random). The data must
  already be in ``--data-home`` (nothing is downloaded: fetch it once with
  ``fetch_mslr_web10k()``). Expect tens of minutes per model on one core; ``--n-jobs``
  runs the folds in parallel processes.

What to expect on MSLR-WEB10K, from published runs (``docs/why_ranking_metrics.rst`` gives
the sources and protocols): tuned LightGBM LambdaRank reaches an nDCG@10 of about 0.49-0.51,
and XGBoost's LambdaMART and a tuned pointwise GBDT come within about 0.002 of it, or level
with it. On the generated data the pointwise regressor loses by more (about 0.03-0.05): the
simulation exaggerates the effect so that 500 queries are enough to see it.
"""

import argparse
import sys
import time

import numpy as np

from sklearn_rank.datasets import fetch_mslr_web10k, make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.model_selection import QueryKFold, cross_validate
from sklearn_rank.stats import compare
from sklearn_rank.xgboost import XGBRanker

METRICS = ["ndcg@10", "err@10", "map"]
BASELINE = "pointwise"
# (queries of the generated data, most trees, rounds without improvement before stopping)
SIZES = {"full": (2000, 1000, 50), "quick": (500, 300, 20)}
LEARNING_RATE = 0.1


def models(max_trees, patience, seed):
    """The three models: the same early stopping for all, the libraries' default trees."""
    stopping = {"n_estimators": max_trees, "learning_rate": LEARNING_RATE,
                "early_stopping_rounds": patience, "validation_fraction": 0.1,
                "random_state": seed, "n_jobs": 1}
    lightgbm = {"num_leaves": 31, "verbose": -1, **stopping}
    return {
        BASELINE: LGBMRanker(objective="regression", **lightgbm),
        "lambdarank": LGBMRanker(objective="lambdarank", **lightgbm),
        "xgboost": XGBRanker(objective="rank:ndcg", max_depth=6, tree_method="hist",
                             **stopping),
    }


def load(data, n_queries, seed, data_home):
    """``(X, y, qid, description)`` of ``--data``."""
    if data == "generated":
        X, y, qid = make_ranking(n_queries, realistic=True, random_state=seed)
        call = f"make_ranking(n_queries={n_queries}, realistic=True, random_state={seed})"
        return X, y, qid, call
    X, y, qid = fetch_mslr_web10k(fold=1, subset="all", data_home=data_home,
                                  download_if_missing=False, return_X_y_qid=True,
                                  dtype=np.float32)
    return X, y, qid, "MSLR-WEB10K (fetch_mslr_web10k(fold=1, subset='all'))"


def run(data="generated", quick=False, seed=0, n_jobs=1, data_home=None, stream=sys.stdout):
    """Cross-validate the three models and print the comparison; returns its table.

    Returns
    -------
    table : :class:`sklearn_rank.stats.ComparisonResult`
        What :func:`sklearn_rank.stats.compare` returns.

    trees : dict
        Model name -> the number of trees kept in each fold (the best iteration).
    """
    n_queries, max_trees, patience = SIZES["quick" if quick else "full"]
    X, y, qid, description = load(data, n_queries, seed, data_home)
    n_queries = len(np.unique(qid))
    print(f"Data: {description}: {n_queries:,} queries, {len(y):,} documents, "
          f"{X.shape[1]} features.", file=stream)
    print(f"Early stopping: 10% of each training fold's queries held out, stop after "
          f"{patience} rounds without a better nDCG@10, at most {max_trees} trees, learning "
          f"rate {LEARNING_RATE}.", file=stream, flush=True)
    cv = QueryKFold(n_splits=5, shuffle=True, random_state=seed)
    results, trees, seconds = {}, {}, {}
    for name, model in models(max_trees, patience, seed).items():
        start = time.perf_counter()
        result = cross_validate(model, X, y, qid=qid, scoring=METRICS, cv=cv, n_jobs=n_jobs,
                                return_per_query=True, return_estimator=True)
        seconds[name] = time.perf_counter() - start
        results[name] = result
        trees[name] = [_kept_trees(estimator) for estimator in result["estimator"]]
        print(f"  {name}: {seconds[name]:.1f} s, trees kept per fold {trees[name]}",
              file=stream, flush=True)
    table = compare({name: result["per_query"] for name, result in results.items()},
                    baseline=BASELINE, n_resamples=2000, random_state=seed)
    print(file=stream)
    print(table, file=stream)
    return table, trees


def _kept_trees(estimator):
    """The number of boosting rounds early stopping kept."""
    best = getattr(estimator, "best_iteration_", None)  # LightGBM: 1-based
    if best is None:
        best = estimator.best_iteration + 1  # XGBoost: 0-based
    return int(best)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="See the module docstring (asv_bench/published_shape.py) for the details.")
    parser.add_argument("--data", choices=("generated", "mslr-web10k"), default="generated",
                        help="the data set (default: generated)")
    parser.add_argument("--quick", action="store_true",
                        help="500 generated queries and at most 300 trees: the CI size")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the generated data, the folds and the boosters")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="folds fitted in parallel processes (each booster: 1 thread)")
    parser.add_argument("--data-home", help="where fetch_mslr_web10k keeps MSLR-WEB10K "
                        "(default: SKLEARN_RANK_DATA, or ~/sklearn_rank_data)")
    args = parser.parse_args(argv)
    if args.quick and args.data != "generated":
        parser.error("--quick is the size of the generated data; MSLR-WEB10K runs whole.")
    try:
        run(args.data, args.quick, args.seed, args.n_jobs, args.data_home)
    except OSError as error:  # MSLR-WEB10K not in data_home
        print(f"published_shape.py: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
