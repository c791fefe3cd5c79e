"""Where the engine's time goes: each stage of nDCG@10 and of the four target metrics, as
a ratio to one ``np.argsort`` of the same scores, at the engine's two target layouts.

    python asv_bench/profile_engine.py                 # 1M rows, 100 and 10 rows per query
    python asv_bench/profile_engine.py --n-rows 100000 --repeat 5

Every stage is timed in CPU time of this process (``time.process_time``), which other jobs
on a shared machine disturb less than wall time, in rounds that interleave every stage with
the argsort; the median of the per-round ratios is printed. Each round times the two calls
end to end, then their stages, in the order a call runs them, on a fresh input (nothing
cached from the round before). A stage's time is that of a cold input, as in a call: its
arrays are new, and caches hold what the stage before left; the stages' sum is about the
call's time. The stages:

* ``check``: :func:`~sklearn_rank.metrics._input.check_ranking_input` (validation, and the
  query ids coded 0..n_queries-1);
* ``grouping``: the queries' sizes and their layout by size;
* ``ranking``: every query's rows by decreasing score (the packed-key sort, its ties, the
  grades gathered in ranked order, the positions); ``of which np.sort`` is numpy's sort of
  as many 64-bit keys, the part that no pass over the rows can shrink;
* ``grade counts``: the per-query count of each grade (the ideal DCG, the number of
  relevant documents, the top grade);
* one line per metric: its kernel, on the input that the stages above built.

``compare_peers.py`` times the same calls end to end against the same argsort.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks.common import make_benchmark_data

from sklearn_rank.metrics import evaluate, ndcg_score, parse_metric
from sklearn_rank.metrics._input import check_ranking_input
from sklearn_rank.metrics._registry import metric_options

#: The four metrics of the engine's targets (as in ``compare_peers.TARGET_METRICS``).
METRICS = ("ndcg@10", "err@10", "map", "mrr@10")
#: Rows per query of the two target layouts.
LAYOUTS = (100, 10)
YARDSTICK = "np.argsort (the yardstick)"


def end_to_end(y, s, q):
    """``{call: callable}``: the calls whose ratios ``compare_peers.py`` reports."""
    return {
        "ndcg_score(k=10), end to end": lambda: ndcg_score(y, s, qid=q, k=10),
        "evaluate, four metrics, end to end": lambda: evaluate(y, s, qid=q, metrics=METRICS),
    }


def stages(y, s, q):
    """``{stage: callable}`` in the order a call runs them, on one fresh input."""
    state = {}

    def check():
        state["data"] = check_ranking_input(y, s, q)

    def keys():  # as many 64-bit keys as the ranking sorts, in random order
        state["keys"] = np.random.default_rng(0).integers(0, 2**63, len(s)).astype(np.uint64)

    def kernel(name):
        metric, fixed = parse_metric(name)
        return lambda: metric.compute(state["data"], metric_options(metric, fixed, {}))

    return {
        "check": check,
        "grouping": lambda: state["data"].all_rows,
        "ranking": lambda: state["data"].ranking("average"),
        "grade counts": lambda: state["data"]._levels,
        **{f"kernel {name}": kernel(name) for name in METRICS},
        "(untimed: keys)": keys,
        "of which np.sort": lambda: state["keys"].sort(),
        "(untimed: release)": state.clear,
    }


def profile(n_rows, rows_per_query, repeat, seed=0):
    """Median over ``repeat`` rounds of each stage's CPU time over the argsort's."""
    y, s, q = make_benchmark_data(n_rows, n_rows // rows_per_query, seed=seed)
    ratios, seconds = {}, {}
    for _ in range(repeat):
        # the calls end to end, then their stages, each group after an argsort of its own:
        # a call's arrays, freed, leave caches and allocator in a state that the stages
        # that follow would pay for otherwise
        for group in (end_to_end(y, s, q), stages(y, s, q)):
            elapsed = {}
            for name, run in {YARDSTICK: lambda: np.argsort(s), **group}.items():
                start = time.process_time()
                run()
                elapsed[name] = time.process_time() - start
            floor = elapsed[YARDSTICK]
            for name, value in elapsed.items():
                if not name.startswith("(untimed"):
                    ratios.setdefault(name, []).append(value / floor if floor > 0 else np.nan)
                    seconds.setdefault(name, []).append(value)
    return {name: (float(np.median(ratios[name])), float(np.median(seconds[name])))
            for name in ratios}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7, help="rounds; the median counts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results = {layout: profile(args.n_rows, layout, args.repeat, args.seed)
               for layout in LAYOUTS}
    print(f"CPU time of each stage over one np.argsort of the same scores, {args.n_rows:,} "
          f"rows, unsorted qid, median of {args.repeat} interleaved rounds (milliseconds)")
    header = "".join(f"{f'{layout} rows per query':>28}" for layout in LAYOUTS)
    print(f"{'stage':<38}{header}")
    for name in results[LAYOUTS[0]]:
        cells = "".join(f"{results[layout][name][0]:>16.2f}x"
                        f" {results[layout][name][1] * 1e3:>7.1f} ms"
                        for layout in LAYOUTS)
        print(f"{name:<38}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
