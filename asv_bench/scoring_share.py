"""How much of a LightGBM LambdaRank grid search goes into scoring?

Usage (in an environment with ``pip install -e ".[bench]"``)::

    python asv_bench/scoring_share.py                 # 100k rows, 5 folds, 100 trees
    python asv_bench/scoring_share.py --n-rows 20000  # quicker

It runs a 5-fold ``GridSearchCV`` of ``sklearn_rank.lightgbm.LGBMRanker`` (100 trees) on
generated data (``sklearn_rank.datasets.make_ranking``) scored by nDCG@10, ERR@10 and MAP in one
multi-metric search, with metadata routing, and measures inside the same run:

* the search's wall time;
* the time spent in the three scorers minus the model's ``predict`` calls they make (the
  predictions are computed once per fold and shared by the three scorers);
* the time of the model's ``predict`` calls, for reference.

It prints the share of the search spent in scoring. Target: at most 5 %.
"""

import argparse
import time

import numpy as np
import sklearn
from sklearn.model_selection import GridSearchCV

from sklearn_rank import get_scorer
from sklearn_rank.datasets import make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.metrics._scorer import RankingScorer
from sklearn_rank.model_selection import QueryKFold


class Clock:
    """Time spent in the scorers, and in the predict calls they make."""

    def __init__(self):
        self.scorers = 0.0
        self.predict = 0.0


def instrument(clock):
    """Time every ranking scorer call and every predict of the ranker, in this process."""
    evaluate, predict = RankingScorer._evaluate, LGBMRanker.predict

    def timed_evaluate(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return evaluate(self, *args, **kwargs)
        finally:
            clock.scorers += time.perf_counter() - start

    def timed_predict(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return predict(self, *args, **kwargs)
        finally:
            clock.predict += time.perf_counter() - start

    RankingScorer._evaluate = timed_evaluate
    LGBMRanker.predict = timed_predict


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-rows", type=int, default=100_000)
    parser.add_argument("--n-trees", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    mean_docs = 50
    X, y, qid = make_ranking(n_queries=args.n_rows // mean_docs, n_features=40, min_docs=10,
                             max_docs=2 * mean_docs - 10, random_state=args.seed)
    print(f"data: {len(y)} rows, {len(np.unique(qid))} queries, {X.shape[1]} features")
    clock = Clock()
    instrument(clock)
    scoring = {name: get_scorer(name) for name in ("ndcg@10", "err@10(max_grade=4)", "map")}
    assert all(isinstance(s, RankingScorer) for s in scoring.values())
    grid = {"num_leaves": [15, 31], "learning_rate": [0.05, 0.1]}
    search = GridSearchCV(
        LGBMRanker(n_estimators=args.n_trees, n_jobs=2, verbose=-1, random_state=0),
        grid, cv=QueryKFold(5), scoring=scoring, refit=False, n_jobs=1,
    )
    with sklearn.config_context(enable_metadata_routing=True):
        start = time.perf_counter()
        search.fit(X, y, qid=qid)
        total = time.perf_counter() - start
    n_fits = 5 * len(search.cv_results_["params"])
    print(f"search: {n_fits} fits, {total:.2f} s")
    # with refit=False every predict happens inside a scorer (once per fold, cached)
    scoring = clock.scorers - clock.predict
    print(f"predict (for reference): {clock.predict:.3f} s ({100 * clock.predict / total:.2f} %)")
    print(f"scoring, 3 metrics, predictions given: {scoring:.3f} s "
          f"({100 * scoring / total:.2f} % of the search; target <= 5 %)")


if __name__ == "__main__":
    main()
