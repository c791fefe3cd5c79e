"""Demonstration run: ``python -m sklearn_rank``.

Generates a LETOR-like data set, trains a LightGBM LambdaRank model and a pointwise regressor on
part of the queries, and prints their test metrics next to a random ranking.
"""

import argparse

import numpy as np

METRICS = ("ndcg@10", "err@10", "map", "mrr@10", "p@5")

# The models train on one thread: on data this small it is as fast, and it does not slow down
# tenfold when other processes keep the cores busy (OpenMP threads spin while they wait).
N_THREADS = 1


def _at_least(minimum):
    def parse(text):
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _train_lambdarank(X, y, qid, seed):
    from lightgbm import LGBMRanker

    # LightGBM takes group sizes of contiguous rows, so the rows are sorted by query first.
    order = np.argsort(qid, kind="stable")
    _, group = np.unique(qid[order], return_counts=True)
    ranker = LGBMRanker(
        objective="lambdarank",
        n_estimators=50,
        learning_rate=0.1,
        num_leaves=15,
        random_state=seed,
        n_jobs=N_THREADS,
        verbose=-1,
    )
    return ranker.fit(X[order], y[order], group=group)


def _train_pointwise(X, y, seed):
    from sklearn.ensemble import HistGradientBoostingRegressor
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=N_THREADS, user_api="openmp"):
        return HistGradientBoostingRegressor(max_iter=50, random_state=seed).fit(X, y)


def _format_table(rows, metric_names):
    label_width = max(len("model"), *(len(label) for label in rows))
    column_width = max(8, *(len(name) for name in metric_names))
    header = "model".ljust(label_width) + "".join(n.rjust(column_width + 2) for n in metric_names)
    lines = [header, "-" * len(header)]
    for label, values in rows.items():
        cells = "".join(f"{values[name]:.4f}".rjust(column_width + 2) for name in metric_names)
        lines.append(label.ljust(label_width) + cells)
    return "\n".join(lines)


def main(argv=None):
    """Train two models on synthetic ranking data and print their test metrics.

    Parameters
    ----------
    argv : list of str, default=None
        Command-line arguments; ``None`` reads ``sys.argv``.

    Returns
    -------
    exit_code : int
        0 on success.
    """
    parser = argparse.ArgumentParser(
        prog="sklearn-rank",
        description="Compare a LambdaRank model, a pointwise regressor and a random ranking "
        "on synthetic learning-to-rank data.",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--n-queries", type=_at_least(2), default=500, help="number of queries (default: 500)"
    )
    args = parser.parse_args(argv)

    from sklearn.model_selection import GroupShuffleSplit

    from sklearn_rank.datasets import make_ranking
    from sklearn_rank.metrics import evaluate

    X, y, qid = make_ranking(args.n_queries, random_state=args.seed)
    splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=args.seed)
    train, test = next(splitter.split(X, y, groups=qid))

    ranker = _train_lambdarank(X[train], y[train], qid[train], args.seed)
    regressor = _train_pointwise(X[train], y[train], args.seed)
    random_scores = np.random.default_rng(args.seed).standard_normal(test.size)

    scores = {
        "LGBMRanker (lambdarank)": ranker.predict(X[test]),
        "HistGradientBoostingRegressor": regressor.predict(X[test]),
        "random scores": random_scores,
    }
    rows = {
        label: evaluate(y[test], score, qid=qid[test], metrics=METRICS)
        for label, score in scores.items()
    }

    n_test_queries = np.unique(qid[test]).size
    print(
        f"make_ranking(n_queries={args.n_queries}, random_state={args.seed}): "
        f"{y.size:,} documents; {args.n_queries - n_test_queries} train and "
        f"{n_test_queries} test queries ({test.size:,} test documents)"
    )
    print()
    print(_format_table(rows, METRICS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
