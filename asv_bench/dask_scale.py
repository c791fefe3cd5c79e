"""How far does evaluation on Dask scale? Rows against seconds, 1 and 2 workers.

Usage (in an environment with ``pip install -e ".[bench,dask]"``)::

    python asv_bench/dask_scale.py --rows 1e6                       # quick
    python asv_bench/dask_scale.py --rows 1e7 1e8 --layout shuffled  # issue 11: 100M, shuffle
    python asv_bench/dask_scale.py --rows 1e9 --layout partitioned --memory-limit 6GiB \\
        --no-reference --plot scaling.png                           # 1B, no shuffle

For each size and layout, the script writes (once; kept in ``--folder`` for later runs)
Parquet files of generated rows: ``qid`` (int64), ``label`` (grades 0-4, int8) and ``score``
(float64, distinct), 100 rows per query on average, ``--rows-per-file`` rows per file.

``shuffled``
    query ids drawn at random for every row: the rows of a query are spread over all files,
    so the evaluation shuffles them by query (Dask's shuffle, P2P on a cluster).
``partitioned``
    each file holds a range of queries, its rows in random order: the evaluation passes
    ``partitioned_by_query=True`` (no shuffle; the claim is checked from the files' ranges
    of ids).

Then, for each number of ``--workers``, a ``distributed.LocalCluster`` of that many worker
processes (one thread each, ``--memory-limit`` each; Dask spills to disk beyond it) evaluates
``ndcg@10``, ``map``, ``mrr`` and ``err@10`` of the directory with
:func:`sklearn_rank.metrics.evaluate` (the means only: no per-query value reaches the client).
Measured in the same run:

* the wall time of the evaluation, reading the files included (the cluster is started,
  and its workers have imported sklearn-rank, before the clock starts);
* the peak resident memory of each worker process, sampled every 0.2 s (``psutil``);
* with ``--reference`` (the default up to 2e8 rows), the in-memory ``evaluate`` of the same
  rows in this process (read first, untimed), its time, the ratio of the Dask time to it,
  and the largest difference between the means (expected below 1e-12).

``--in-memory`` measures, before the Dask runs and on the same rows of each size (the
``shuffled`` files: unsorted query ids), the in-memory limits of issue 11: in this process,
grades as float64, the best of ``--repeat`` interleaved rounds of one ``np.argsort`` of the
scores (the yardstick), ``ndcg_score(k=10)`` and ``evaluate`` of the four metrics, their
ratios to the argsort, and the peak memory of each call beyond its inputs (``tracemalloc``,
which numpy reports to), in float64 arrays of one value per row. It reuses the timing and
memory helpers of ``compare_peers.py``.

``--plot FILE`` draws rows against seconds, one line per layout and number of workers;
``--json FILE`` writes every figure.
"""

import argparse
import json
import logging
import math
import os
import platform
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

METRICS = ["ndcg@10", "map", "mrr", "err@10"]
ROWS_PER_QUERY = 100


# ----------------------------------------------------------------------------------------
# Data


def write_data(folder, n_rows, layout, rows_per_file, seed=0):
    """Parquet files of ``n_rows`` generated rows in ``folder`` (kept when complete)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    done = folder / "_COMPLETE"
    if done.exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.parquet"):
        old.unlink()
    rng = np.random.default_rng(seed)
    n_queries = max(1, n_rows // ROWS_PER_QUERY)
    n_files = max(1, math.ceil(n_rows / rows_per_file))
    first_query = 0
    for i in range(n_files):
        size = min(rows_per_file, n_rows - i * rows_per_file)
        if layout == "shuffled":
            qid = rng.integers(0, n_queries, size)
        else:  # a range of queries, sizes 1..199 (100 on average), rows in random order
            sizes = rng.integers(1, 2 * ROWS_PER_QUERY, size // ROWS_PER_QUERY * 2 + 2)
            sizes = sizes[:np.searchsorted(np.cumsum(sizes), size) + 1]
            sizes[-1] -= sizes.sum() - size
            qid = np.repeat(np.arange(first_query, first_query + len(sizes)), sizes)
            first_query += len(sizes)
            rng.shuffle(qid)
        table = pa.table({
            "qid": qid.astype(np.int64),
            "label": rng.choice(np.arange(5, dtype=np.int8), size, p=[.5, .2, .15, .1, .05]),
            "score": rng.random(size),
        })
        pq.write_table(table, folder / f"part-{i:05d}.parquet")
    done.write_text(json.dumps({"rows": n_rows, "layout": layout, "files": n_files}))


# ----------------------------------------------------------------------------------------
# Measurements


class PeakMemory:
    """The peak resident memory of each worker process, sampled in a thread."""

    def __init__(self, client, every=0.2):
        self.client, self.every = client, every
        self.peak = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            try:
                for worker, rss in self.client.run(_rss).items():
                    self.peak[worker] = max(self.peak.get(worker, 0), rss)
            except Exception:  # a worker restarting: the next sample sees it
                pass
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def _warm_up():
    import dask.dataframe  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import sklearn_rank.metrics._dask  # noqa: F401

    # dask's Parquet reader calls reset_index(inplace=True), which pandas 3.1 deprecates
    warnings.filterwarnings("ignore", message="The inplace keyword")


def on_dask(folder, layout, n_workers, memory_limit):
    """Seconds, means and per-worker peak memory of the evaluation on a LocalCluster."""
    import dask.dataframe as dd
    import distributed

    from sklearn_rank.metrics import evaluate

    with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                  memory_limit=memory_limit, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        client.run(_warm_up)  # imports, outside the clock
        partitioned = layout == "partitioned"
        with PeakMemory(client) as memory:
            start = time.perf_counter()
            # one partition per file, in the order of the names: whole queries each
            ddf = dd.read_parquet(folder, split_row_groups=False)
            means = evaluate(ddf["label"], ddf["score"], qid=ddf["qid"], metrics=METRICS,
                             partitioned_by_query=partitioned)
            seconds = time.perf_counter() - start
        return seconds, means, sorted(memory.peak.values(), reverse=True)


def in_memory(folder):
    """Seconds and means of ``evaluate`` on the rows of ``folder``, read first (untimed)."""
    import pyarrow.parquet as pq

    from sklearn_rank.metrics import evaluate

    table = pq.read_table(folder)
    qid, label, score = (table[c].to_numpy() for c in ("qid", "label", "score"))
    del table
    start = time.perf_counter()
    means = evaluate(label, score, qid=qid, metrics=METRICS)
    return time.perf_counter() - start, means


def in_memory_limits(folder, repeat):
    """Seconds (best of ``repeat``), ratios to one argsort and peak memory beyond the inputs
    of ``ndcg_score(k=10)`` and ``evaluate`` of the four metrics, on the rows of ``folder``."""
    import pyarrow.parquet as pq
    from compare_peers import best_times, extra_memory

    from sklearn_rank.metrics import evaluate, ndcg_score

    table = pq.read_table(folder)
    qid = table["qid"].to_numpy()
    score = table["score"].to_numpy()
    label = table["label"].to_numpy().astype(np.float64)
    del table
    runs = {
        "argsort": lambda: np.argsort(score),
        "ndcg_score(k=10)": lambda: ndcg_score(label, score, qid=qid, k=10),
        "evaluate(four)": lambda: evaluate(label, score, qid=qid, metrics=METRICS),
    }
    times = best_times({name: (run, None) for name, run in runs.items()}, repeat)
    seconds = {name: elapsed for name, (elapsed, _) in times.items()}
    arrays = {name: extra_memory(runs[name]) / (8 * len(score)) for name in list(runs)[1:]}
    return {"seconds": seconds, "extra_arrays": arrays,
            "ratios": {name: seconds[name] / seconds["argsort"] for name in list(runs)[1:]}}


# ----------------------------------------------------------------------------------------


def gib(n):
    return f"{n / 2**30:.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, nargs="+", default=[1e6],
                        help="numbers of rows (default: 1e6)")
    parser.add_argument("--layout", nargs="+", choices=("shuffled", "partitioned"),
                        default=["shuffled", "partitioned"])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--memory-limit", default="4GiB",
                        help="memory limit of each worker (default: 4GiB)")
    parser.add_argument("--rows-per-file", type=float, default=5e6)
    parser.add_argument("--folder", type=Path, default=Path("dask_scale_data"),
                        help="where the generated Parquet files are kept")
    reference = parser.add_mutually_exclusive_group()
    reference.add_argument("--reference", action="store_true", default=None,
                           help="also time evaluate in memory (default: up to 2e8 rows)")
    reference.add_argument("--no-reference", dest="reference", action="store_false")
    parser.add_argument("--in-memory", action="store_true",
                        help="first measure the in-memory limits on the shuffled rows")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds of the --in-memory timings; the best counts (default: 3)")
    parser.add_argument("--no-dask", dest="dask", action="store_false",
                        help="skip the Dask runs (with --in-memory)")
    parser.add_argument("--plot", type=Path, help="rows against seconds, as an image")
    parser.add_argument("--json", type=Path, help="every figure, as JSON")
    args = parser.parse_args(argv)

    import dask
    import psutil

    import sklearn_rank

    print(f"{os.cpu_count()} CPUs, {gib(psutil.virtual_memory().total)} GiB; Python "
          f"{platform.python_version()}, numpy {np.__version__}, dask {dask.__version__}, "
          f"sklearn-rank {sklearn_rank.__version__}")
    figures = []
    if args.in_memory:
        print(f"\nIn memory, one process (best of {args.repeat}; x = ratio to the argsort; "
              "memory in float64 arrays of n rows beyond the inputs)")
        print(f"{'rows':>13} {'argsort s':>10} {'ndcg_score(k=10) s':>19} {'x':>5} "
              f"{'evaluate(4) s':>14} {'x':>5} {'ndcg mem':>9} {'evaluate mem':>13}")
        for rows in sorted({int(r) for r in args.rows}):
            folder = args.folder / f"shuffled-{rows}"
            write_data(folder, rows, "shuffled", int(args.rows_per_file))
            limits = in_memory_limits(folder, args.repeat)
            figures.append({"in_memory": True, "rows": rows, **limits})
            t, x, m = limits["seconds"], limits["ratios"], limits["extra_arrays"]
            print(f"{rows:>13,} {t['argsort']:>10.3f} {t['ndcg_score(k=10)']:>19.3f} "
                  f"{x['ndcg_score(k=10)']:>5.2f} {t['evaluate(four)']:>14.3f} "
                  f"{x['evaluate(four)']:>5.2f} {m['ndcg_score(k=10)']:>9.2f} "
                  f"{m['evaluate(four)']:>13.2f}", flush=True)
        print()
    if not args.dask:
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
        return
    print(f"Dask: workers of one thread and {args.memory_limit} each; "
          f"metrics {', '.join(METRICS)}")
    header = (f"{'layout':<12} {'rows':>13} {'workers':>7} {'seconds':>9} {'rows/s':>12} "
              f"{'peak GiB/worker':>16} {'in memory s':>11} {'ratio':>6} {'max |diff|':>10}")
    print(header)
    print("-" * len(header))
    for layout in args.layout:
        for rows in sorted({int(r) for r in args.rows}):
            folder = args.folder / f"{layout}-{rows}"
            write_data(folder, rows, layout, int(args.rows_per_file))
            reference = args.reference if args.reference is not None else rows <= 2e8
            memory_seconds, memory_means = in_memory(folder) if reference else (None, None)
            for n_workers in args.workers:
                seconds, means, peaks = on_dask(folder, layout, n_workers, args.memory_limit)
                diff = (max(abs(means[m] - memory_means[m]) for m in METRICS)
                        if reference else None)
                figures.append({"layout": layout, "rows": rows, "workers": n_workers,
                                "seconds": seconds, "peak_worker_bytes": peaks,
                                "memory_limit": args.memory_limit,
                                "in_memory_seconds": memory_seconds, "max_difference": diff,
                                "means": means})
                ratio = f"{seconds / memory_seconds:6.2f}" if reference else "     -"
                print(f"{layout:<12} {rows:>13,} {n_workers:>7} {seconds:>9.2f} "
                      f"{rows / seconds:>12,.0f} {gib(max(peaks)):>16} "
                      f"{memory_seconds if reference else float('nan'):>11.2f} {ratio} "
                      f"{diff if reference else float('nan'):>10.1e}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if args.plot:
        plot(figures, args.plot)


def plot(figures, path):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = figure.subplots()
    figures = [f for f in figures if not f.get("in_memory")]
    for layout in sorted({f["layout"] for f in figures}):
        for n_workers in sorted({f["workers"] for f in figures}):
            points = sorted((f["rows"], f["seconds"]) for f in figures
                            if f["layout"] == layout and f["workers"] == n_workers)
            if points:
                ax.plot(*zip(*points), marker="o",
                        label=f"{layout}, {n_workers} worker{'s' if n_workers > 1 else ''}")
    memory = sorted({(f["rows"], f["in_memory_seconds"]) for f in figures
                     if f["in_memory_seconds"] is not None and f["layout"] == "shuffled"})
    if memory:
        ax.plot(*zip(*memory), marker="s", linestyle="--", color="gray",
                label="in memory, one process")
    limits = sorted({f["memory_limit"] for f in figures})
    ax.set(xscale="log", yscale="log", xlabel="rows", ylabel="seconds",
           title="evaluate(ndcg@10, map, mrr, err@10) on Dask\n"
                 f"{os.cpu_count()} cores; workers of 1 thread, {', '.join(limits)} each")
    ax.legend()
    figure.savefig(path, dpi=100)


if __name__ == "__main__":
    main()
