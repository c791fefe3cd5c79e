"""Time sklearn-rank against a sorting floor and its peers, on the same data, in one run.

Usage (in an environment with ``pip install -e ".[bench]"``)::

    python asv_bench/compare_peers.py                      # 1M rows, 10k queries
    python asv_bench/compare_peers.py --n-queries 100000   # 1M rows, 100k queries
    python asv_bench/compare_peers.py --n-rows 100000 --repeat 5
    python asv_bench/compare_peers.py --suite trec_eval    # TREC files: trec_eval vs pytrec_eval
    python asv_bench/compare_peers.py --suite trec_eval --trec-eval make=/opt/te/trec_eval \
        --trec-eval O2=/opt/te-O2/trec_eval                # and against NIST's trec_eval

The data (see ``benchmarks/common.py``): ``n_rows`` rows in ``n_queries`` queries of ragged
sizes, rows in random order (query ids unsorted, not contiguous), grades 0-4, distinct scores.

Every entry is the best of ``--repeat`` runs (``time.perf_counter``) of everything a user
holding the three flat arrays must do to get the metric's mean over queries. The runs are
interleaved, one of every entry per round, so that a slow spell of the machine hits all entries
alike:

sklearn-rank
    one call, e.g. ``ndcg_score(y_true, y_score, qid=qid, k=10)``, default options.
argsort
    ``np.argsort(y_score)``: one sort of the scores, a floor no exact metric can beat by much.
naive
    nDCG@10 with ``np.lexsort`` (by query, then score; and by query, then grade for the ideal)
    and ``np.bincount`` segment sums: a straightforward vectorised implementation.
LightGBM
    stable sort of the rows by query, group sizes, ``lgb.Dataset(X_dummy, label, group,
    init_score=y_score, reference=...)`` and ``booster.eval`` of a booster without trees (so its
    predictions are the init scores). Outside the timed region: ``X_dummy`` (one zero feature,
    built once) and, before each run, the booster (``lgb.Booster`` on a two-row reference set,
    with the metric's ``metric`` and ``eval_at``). MAP is ``map@K`` with K the largest query size.
XGBoost
    the same with ``xgb.DMatrix(X_dummy, label, qid=sorted qid, base_margin=y_score)`` and
    ``booster.eval`` of a booster trained for 0 rounds (built and used once, untimed). MAP
    takes binary labels (``y_true >= 1``), which is part of the timed work, and is asked as
    ``map@K`` with K the largest query size: XGBoost's plain ``map`` stops at rank 32.
pytrec_eval
    building its dict inputs from the arrays (rows grouped by query, document ids from the row
    numbers), ``RelevanceEvaluator(qrel, measures)``, ``evaluate(run)`` and the mean of the
    per-query values.
ranx
    the same dicts, ``Qrels(qrel)``, ``Run(run)`` and ``ranx.evaluate``; numba compiles on a
    small warm-up call outside the timed region.

LightGBM, XGBoost and ranx use both cores where they can; sklearn-rank, numpy and pytrec_eval
use one. A peer without a metric (ERR@10 anywhere but sklearn-rank) shows ``-``.

Every peer's value is checked against sklearn-rank's with the matching convention (absolute
tolerance 1e-6) before any number is printed as comparable; the script exits with status 1 on a
mismatch.

The trec_eval suite (``--suite trec_eval``, part of the default ``all``) writes a TREC run of
``--trec-lines`` lines (the rows of the data above: distinct scores) and its qrels (60% of the
retrieved documents judged, 2% of those -1, and 20% more judged documents never retrieved), then
times every measure of trec_eval's ``all_trec``:

sklearn-rank trec_eval
    the process ``python -m sklearn_rank trec_eval -m all_trec QRELS RUN``: start, imports,
    reading, computing and printing; and with ``-q``, each query's values printed too. Its
    standard output goes to a file, as a user's would. The package's byte code is compiled
    beforehand, as an installed package's is (an environment with
    ``PYTHONDONTWRITEBYTECODE`` would compile it at every start, 0.2 s).
trec_eval
    NIST's trec_eval, the same command lines, for each binary given with ``--trec-eval``
    (or ``TREC_EVAL``): e.g. one built as its Makefile builds it, one with ``-O2``
    (``make CFLAGS=-O2``). Its output with ``-q`` must be sklearn-rank's, byte for byte
    (trec_eval 10.0). Without a binary, these entries are skipped with a message.
pytrec_eval script
    the process a pytrec_eval user runs: ``pytrec_eval.parse_qrel`` and ``parse_run`` of the
    files, ``RelevanceEvaluator(...).evaluate`` of the all_trec measures it has (all but rbp,
    rbp_resid and unj), and the means printed as trec_eval prints them.
read_trec + evaluate
    in process: :func:`~sklearn_rank.datasets.read_trec` of the files and
    :func:`~sklearn_rank.metrics.evaluate` of every measure of all_trec (trec_eval's names,
    ``judged="y_true"``, ``convention="trec_eval"``).
pytrec_eval evaluate
    ``evaluator.evaluate(run)`` alone, on dicts and an evaluator built once, untimed.
ranx parse + evaluate
    ``Qrels.from_file`` and ``Run.from_file`` of the files, then ``ranx.evaluate`` (with
    ``make_comparable=True``, as trec_eval evaluates the queries that the run and the qrels
    share) of the 43 all_trec measures that ranx has (:data:`RANX_ALL_TREC`). ranx uses both
    cores; numba compiles its readers and kernels on a first call, outside the timed region.
ranx evaluate
    ``ranx.evaluate`` alone, on a ``Qrels`` and a ``Run`` read afresh, untimed, before each
    call (ranx sorts a run on first use and stores its scores in it).
ir_measures parse + evaluate
    ``ir_measures.calc_aggregate`` of the all_trec measures that ir_measures has
    (``parse_trec_measure``; 54, computed by its pytrec_eval provider) on
    ``read_trec_qrels`` and ``read_trec_run`` of the files.
ir_measures evaluate
    ``calc_aggregate`` alone, on the qrels and run read once into lists, untimed.

The printed means of both processes, and the means in process, are checked against
pytrec_eval's (but iprec_at_recall and 11pt_avg: pytrec_eval runs trec_eval 9.0.7, which
rounded recall levels to numbers of documents otherwise); ranx's and ir_measures' means are
checked against sklearn-rank's in process on every measure they share (ranx's bpref is left
out: it is NaN for a query without a judged non-relevant document).
"""

import argparse
import gc
import importlib
import importlib.metadata
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks.common import extra_memory, make_benchmark_data

from sklearn_rank.metrics import (
    err_score,
    evaluate,
    map_score,
    mrr_score,
    ndcg_score,
)

METRICS = ("nDCG@10", "MAP", "MRR", "ERR@10")
ALL_FOUR = "all four"
EVALUATE_NAMES = ("ndcg@10", "map", "mrr", "err@10")
TOLERANCE = 1e-6


def best_times(entries, repeat):
    """Best wall time of each entry over ``repeat`` rounds, and its last result.

    ``entries`` maps a key to ``(run, before_each)``. The rounds are interleaved (every entry
    once per round), so that a slow spell of the machine hits all entries alike instead of
    one: the ratios to the argsort floor are what the script reports. ``before_each()``, if
    not None, runs untimed before every call; its result is passed to ``run``.
    """
    best = dict.fromkeys(entries, math.inf)
    result = {}
    for _ in range(repeat):
        for key, (run, before_each) in entries.items():
            state = before_each() if before_each is not None else None
            gc.collect()
            start = time.perf_counter()
            result[key] = run(state) if before_each is not None else run()
            best[key] = min(best[key], time.perf_counter() - start)
    return {key: (best[key], result[key]) for key in entries}


def group_by_query(qid):
    """Stable order of the rows by query, and the offsets of each query in that order."""
    order = np.argsort(qid, kind="stable")
    sorted_qid = qid[order]
    offsets = np.flatnonzero(np.r_[True, sorted_qid[1:] != sorted_qid[:-1], True])
    return order, sorted_qid, offsets


# --------------------------------------------------------------------------------------------
# The peers. Each returns {metric: (run, before_each or None)}, run() -> mean over queries, and
# CONVENTIONS gives the sklearn-rank options that must reproduce its values.
# --------------------------------------------------------------------------------------------


def sklearn_rank_runs(y, s, q):
    return {
        "nDCG@10": (lambda: ndcg_score(y, s, qid=q, k=10), None),
        "MAP": (lambda: map_score(y, s, qid=q), None),
        "MRR": (lambda: mrr_score(y, s, qid=q), None),
        "ERR@10": (lambda: err_score(y, s, qid=q, k=10), None),
        ALL_FOUR: (lambda: evaluate(y, s, qid=q, metrics=EVALUATE_NAMES), None),
    }


def argsort_runs(y, s, q):
    def run():
        np.argsort(s)

    return {name: (run, None) for name in (*METRICS, ALL_FOUR)}


def naive_ndcg_at_10(y, s, q, k=10):
    """nDCG@k, exponential gain, ties in row order, 0 for a query without relevant rows."""
    gain = np.exp2(y) - 1.0

    def dcg(order):
        sorted_qid = q[order]
        is_start = np.r_[True, sorted_qid[1:] != sorted_qid[:-1]]
        group = np.cumsum(is_start) - 1
        rank = np.arange(q.size) - np.flatnonzero(is_start)[group]
        top = rank < k
        return np.bincount(group[top], weights=gain[order][top] / np.log2(rank[top] + 2.0))

    actual = dcg(np.lexsort((-s, q)))
    ideal = dcg(np.lexsort((-y, q)))
    per_query = np.divide(actual, ideal, out=np.zeros_like(actual), where=ideal > 0)
    return per_query.mean()


def naive_runs(y, s, q):
    return {"nDCG@10": (lambda: naive_ndcg_at_10(y, s, q), None)}


def lightgbm_runs(y, s, q):
    import lightgbm as lgb

    x_dummy = np.zeros((q.size, 1))
    largest_query = int(np.unique(q, return_counts=True)[1].max())
    reference = lgb.Dataset(
        np.zeros((2, 1)), label=[0, 1], group=[2], params={"verbose": -1}, free_raw_data=False
    )

    def booster_for(metric, eval_at):
        def make():
            params = {"objective": "lambdarank", "metric": metric, "eval_at": [eval_at]}
            return lgb.Booster(params={**params, "verbose": -1}, train_set=reference)

        return make

    def run(booster):
        order, _, offsets = group_by_query(q)
        dataset = lgb.Dataset(
            x_dummy,
            label=y[order],
            group=np.diff(offsets),
            init_score=s[order],
            reference=reference,
            params={"verbose": -1},
        )
        (result,) = booster.eval(dataset, "eval")
        return result[2]

    return {
        "nDCG@10": (run, booster_for("ndcg", 10)),
        "MAP": (run, booster_for("map", largest_query)),
    }


def xgboost_runs(y, s, q):
    import xgboost as xgb

    x_dummy = np.zeros((q.size, 1))
    tiny = xgb.DMatrix(np.zeros((2, 1)), label=[0, 1], qid=[0, 0])

    largest_query = int(np.unique(q, return_counts=True)[1].max())

    def booster_for(objective, metric):
        booster = xgb.train({"objective": objective, "eval_metric": metric}, tiny, 0)
        booster.eval(tiny)  # XGBoost configures a booster on first use; a user pays that once.
        return lambda: booster

    def run_with(binary_labels):
        def run(booster):
            order, sorted_qid, _ = group_by_query(q)
            label = y[order] >= 1 if binary_labels else y[order]
            dmatrix = xgb.DMatrix(x_dummy, label=label, qid=sorted_qid, base_margin=s[order])
            return float(booster.eval(dmatrix).rsplit(":", 1)[1])

        return run

    return {
        "nDCG@10": (run_with(False), booster_for("rank:ndcg", "ndcg@10")),
        # Plain "map" (like "ndcg" and "pre") stops at the top 32 in XGBoost; ask for all.
        "MAP": (run_with(True), booster_for("rank:map", f"map@{largest_query}")),
    }


def _trec_dicts(y, s, q):
    """pytrec_eval's inputs: {query: {document: grade}} and {query: {document: score}}."""
    order, sorted_qid, offsets = group_by_query(q)
    documents = list(map(str, order.tolist()))
    grades, scores = y[order].tolist(), s[order].tolist()
    queries = list(map(str, sorted_qid[offsets[:-1]].tolist()))
    qrel, run = {}, {}
    for query, start, stop in zip(queries, offsets[:-1].tolist(), offsets[1:].tolist()):
        in_query = documents[start:stop]
        qrel[query] = dict(zip(in_query, grades[start:stop]))
        run[query] = dict(zip(in_query, scores[start:stop]))
    return qrel, run


def pytrec_eval_runs(y, s, q):
    import pytrec_eval

    measures = {"nDCG@10": ("ndcg_cut.10", "ndcg_cut_10"), "MAP": ("map", "map"),
                "MRR": ("recip_rank", "recip_rank")}

    def run_for(names):
        def run():
            qrel, run_dict = _trec_dicts(y, s, q)
            evaluator = pytrec_eval.RelevanceEvaluator(qrel, {measures[n][0] for n in names})
            per_query = evaluator.evaluate(run_dict).values()
            means = [np.mean([values[measures[n][1]] for values in per_query]) for n in names]
            return means[0] if len(names) == 1 else dict(zip(names, means))

        return run

    runs = {name: (run_for([name]), None) for name in measures}
    runs[ALL_FOUR] = (run_for(list(measures)), None)
    return runs


def ranx_runs(y, s, q):
    import ranx

    names = {"nDCG@10": "ndcg@10", "MAP": "map", "MRR": "mrr"}

    def run_for(metrics):
        def run():
            qrel, run_dict = _trec_dicts(y, s, q)
            return ranx.evaluate(ranx.Qrels(qrel), ranx.Run(run_dict), metrics)

        return run

    # numba compiles ranx's kernels on first use; do it outside the timed region.
    small = slice(0, 1000)
    qrel, run_dict = _trec_dicts(y[small], s[small], q[small])
    ranx.evaluate(ranx.Qrels(qrel), ranx.Run(run_dict), list(names.values()))

    runs = {name: (run_for(metric), None) for name, metric in names.items()}
    runs[ALL_FOUR] = (run_for(list(names.values())), None)
    return runs


PEERS = {
    "sklearn-rank": (sklearn_rank_runs, None),
    "argsort": (argsort_runs, None),
    "naive": (naive_runs, "numpy"),
    "LightGBM": (lightgbm_runs, "lightgbm"),
    "XGBoost": (xgboost_runs, "xgboost"),
    "pytrec_eval": (pytrec_eval_runs, "pytrec_eval"),
    "ranx": (ranx_runs, "ranx"),
}

# sklearn-rank options that reproduce each peer's values.
CONVENTIONS = {
    "naive": {"gain": "exponential", "ties": "stable", "no_relevant": 0.0},
    "LightGBM": {"convention": "lightgbm"},
    "XGBoost": {"convention": "xgboost"},
    "pytrec_eval": {"convention": "trec_eval"},
    "ranx": {"convention": "trec_eval"},
}

REFERENCE = {
    "nDCG@10": lambda y, s, q, **kw: ndcg_score(y, s, qid=q, k=10, **kw),
    "MAP": lambda y, s, q, **kw: map_score(y, s, qid=q, **kw),
    "MRR": lambda y, s, q, **kw: mrr_score(y, s, qid=q, **kw),
}


def format_table(title, columns, rows, cell):
    width = max(12, *(len(c) for c in columns))
    lines = [title, "metric".ljust(9) + "".join(c.rjust(width + 1) for c in columns)]
    for row in rows:
        lines.append(row.ljust(9) + "".join(cell(row, c).rjust(width + 1) for c in columns))
    return "\n".join(lines)


def compare_arrays(args):
    """The metrics of flat arrays against the peers; returns the exit status."""
    y, s, q = make_benchmark_data(args.n_rows, args.n_queries, seed=args.seed)
    sizes = np.unique(q, return_counts=True)[1]
    versions = []
    for peer, (_, module) in PEERS.items():
        if peer in args.peers and module is not None:
            try:
                imported = importlib.import_module(module)
            except ImportError:
                continue
            version = getattr(imported, "__version__", None) or importlib.metadata.version(module)
            versions.append(f"{module} {version}")
    print(
        f"{args.n_rows:,} rows, {args.n_queries:,} queries (sizes {sizes.min()} to {sizes.max()},"
        f" median {int(np.median(sizes))}), unsorted qid, grades 0-4; best of {args.repeat}"
    )
    print(f"Python {platform.python_version()}; " + ", ".join(versions))

    entries, metrics_of, skipped = {}, {}, []
    for peer in [peer for peer in args.peers if peer in PEERS]:
        make_runs, module = PEERS[peer]
        try:
            runs = make_runs(y, s, q)
        except ImportError as exc:
            skipped.append(f"{peer} ({exc})")
            continue
        for metric, (run, before_each) in runs.items():
            # a run shared by several metrics (the argsort floor) is timed once
            key = peer, id(run), id(before_each)
            entries.setdefault(key, (run, before_each))
            metrics_of.setdefault(key, []).append(metric)
    seconds, values = {}, {}
    for key, (elapsed, value) in best_times(entries, args.repeat).items():
        for metric in metrics_of[key]:
            seconds[key[0], metric] = elapsed
            values[key[0], metric] = value
            print(f"  {key[0]:>12} {metric:<8} {elapsed:9.4f} s", file=sys.stderr, flush=True)

    # Apples to apples: every peer value against sklearn-rank with the matching options.
    checks, mismatches = [], []
    for (peer, metric), value in values.items():
        if peer not in CONVENTIONS or metric not in REFERENCE:
            continue
        expected = REFERENCE[metric](y, s, q, **CONVENTIONS[peer])
        checks.append((peer, metric, value, expected))
        if not abs(value - expected) <= TOLERANCE:
            mismatches.append((peer, metric, value, expected))

    columns = [peer for peer in args.peers if any(p == peer for p, _ in seconds)]
    rows = [*METRICS, ALL_FOUR]
    print()
    print(
        format_table(
            "Seconds (best of runs):",
            columns,
            rows,
            lambda r, c: f"{seconds[c, r]:.4f}" if (c, r) in seconds else "-",
        )
    )
    print()
    print(
        format_table(
            "Ratio to one np.argsort(y_score):",
            columns,
            rows,
            lambda r, c: (
                f"{seconds[c, r] / seconds['argsort', r]:.2f}"
                if (c, r) in seconds and ("argsort", r) in seconds
                else "-"
            ),
        )
    )
    print(
        f"\n'{ALL_FOUR}': sklearn-rank's evaluate() of {', '.join(EVALUATE_NAMES)}; "
        "pytrec_eval and "
        "ranx compute their three (no ERR) in one call."
    )

    print("\nValues checked against sklearn-rank (|difference| <= 1e-6):")
    for peer, metric, value, expected in checks:
        options = ", ".join(f"{k}={v!r}" for k, v in CONVENTIONS[peer].items())
        status = "ok" if (peer, metric, value, expected) not in mismatches else "MISMATCH"
        print(
            f"  {peer:>12} {metric:<8} {value:.10f}  sklearn-rank({options}) {expected:.10f}"
            f"  {status}"
        )

    if "sklearn-rank" in args.peers:
        print("\nPeak memory beyond the inputs (tracemalloc):")
        runs = {
            "ndcg_score(k=10)": lambda: ndcg_score(y, s, qid=q, k=10),
            "evaluate(all four)": lambda: evaluate(y, s, qid=q, metrics=list(EVALUATE_NAMES)),
        }
        for name, run in runs.items():
            extra = extra_memory(run)
            print(f"  {name:<20} {extra / 2**20:6.1f} MiB = {extra / (8 * args.n_rows):.1f}"
                  " x n_rows x 8 bytes")
    for line in skipped:
        print(f"skipped: {line}")
    if mismatches:
        print(f"\n{len(mismatches)} value(s) differ from sklearn-rank's", file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------------------------
# The engine's targets: two layouts, each against np.argsort of the same scores
# --------------------------------------------------------------------------------------------

#: The four metrics of the engine's targets, in one ``evaluate`` call.
TARGET_METRICS = ("ndcg@10", "err@10", "map", "mrr@10")
#: Rows per query of each target layout, and the targets (ratios to np.argsort) of nDCG@10
#: and of the four metrics.
TARGET_LAYOUTS = {100: (0.5, 0.8), 10: (0.8, 1.2)}


def compare_target_layouts(args):
    """nDCG@10 and :data:`TARGET_METRICS` at 100 and 10 rows per query, as ratios to one
    ``np.argsort`` of the same scores; all six entries interleaved in the same rounds."""
    entries, memory = {}, {}
    for rows_per_query in TARGET_LAYOUTS:
        y, s, q = make_benchmark_data(args.n_rows, args.n_rows // rows_per_query,
                                      seed=args.seed)
        runs = {
            "argsort": lambda s=s: np.argsort(s),
            "nDCG@10": lambda y=y, s=s, q=q: ndcg_score(y, s, qid=q, k=10),
            "4 metrics": lambda y=y, s=s, q=q: evaluate(y, s, qid=q, metrics=TARGET_METRICS),
        }
        for name, run in runs.items():
            entries[rows_per_query, name] = (run, None)
            memory[rows_per_query, name] = extra_memory(run) / (8 * args.n_rows)
    seconds = {key: elapsed for key, (elapsed, _) in best_times(entries, args.repeat).items()}
    print(f"\nThe engine's targets: {args.n_rows:,} rows, unsorted qid; ratio to one "
          f"np.argsort of the same scores (target), interleaved, best of {args.repeat}; "
          f"4 metrics: evaluate() of {', '.join(TARGET_METRICS)}")
    print(f"{'layout':<36}{'argsort':>10}{'nDCG@10':>17}{'4 metrics':>17}"
          f"{'peak memory beyond the inputs, arrays of n':>46}")
    for rows_per_query, targets in TARGET_LAYOUTS.items():
        floor = seconds[rows_per_query, "argsort"]
        layout = (f"{rows_per_query} rows per query "
                  f"({args.n_rows // rows_per_query:,} queries)")
        ratios = "".join(
            f"{seconds[rows_per_query, name] / floor:>8.2f}x (<={target})"
            for name, target in zip(("nDCG@10", "4 metrics"), targets))
        peaks = ", ".join(f"{name} {memory[rows_per_query, name]:.1f}"
                          for name in ("argsort", "nDCG@10", "4 metrics"))
        print(f"{layout:<36}{floor:>8.4f} s{ratios}{peaks:>46}")


# --------------------------------------------------------------------------------------------
# trec_eval: every measure, from TREC files
# --------------------------------------------------------------------------------------------

# trec_eval's all_trec measures that pytrec_eval computes (it lacks rbp, rbp_resid and unj).
PYTREC_ALL_TREC = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
    "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
    "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
    "set_F", "num_nonrel_judged_ret",
)
# pytrec_eval runs trec_eval 9.0.7, which turns a recall level x into floor(x * R + 0.9)
# relevant documents; trec_eval 9.0.8 and sklearn-rank round x * R to the nearest.
ROUNDING_CHANGED = ("iprec_at_recall", "11pt_avg")
# trec_eval's cut-offs, as all_trec asks them.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# ranx's names of the all_trec measures it has, and trec_eval's. Not bpref: ranx divides by
# min(R, N) and gives NaN for a query without judged non-relevant documents.
RANX_ALL_TREC = {
    "map": "map", "mrr": "recip_rank", "ndcg": "ndcg", "r-precision": "Rprec",
    **{f"hit_rate@{k}": f"success_{k}" for k in (1, 5, 10)},
    **{f"{name}@{k}": f"{trec}_{k}" for k in TREC_CUTOFFS for name, trec in (
        ("precision", "P"), ("recall", "recall"), ("ndcg", "ndcg_cut"), ("map", "map_cut"))},
}
# trec_eval's names of the all_trec measures that ir_measures has (with trec_eval's
# parameters: ``parse_trec_measure`` reads them); iprec_at_recall aside, since ir_measures
# computes it with pytrec_eval (see ROUNDING_CHANGED).
IR_MEASURES_ALL_TREC = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    "infAP", "ndcg", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
    *(f"{name}_{k}" for name in ("P", "recall", "ndcg_cut", "map_cut") for k in TREC_CUTOFFS),
    *(f"success_{k}" for k in (1, 5, 10)),
)

# What a pytrec_eval user runs: its own readers, every measure, the means printed as trec_eval
# prints them.
PYTREC_EVAL_SCRIPT = """\
import sys
import pytrec_eval
with open(sys.argv[1]) as f:
    qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
per_query = pytrec_eval.RelevanceEvaluator(qrel, set(sys.argv[3:])).evaluate(run)
names = sorted(set(next(iter(per_query.values()))) - {"runid", "relstring"})
for name in names:
    value = pytrec_eval.compute_aggregated_measure(
        name, [values[name] for values in per_query.values()])
    text = str(int(value)) if name.startswith("num_") else f"{value:6.4f}"
    print(f"{name:<22}\\tall\\t{text}")
"""


def write_trec_files(folder, n_lines, n_queries, seed):
    """A run of ``n_lines`` lines and its qrels, from :func:`make_benchmark_data`.

    Every row is a run line (distinct integer scores); the qrels judge 60% of the retrieved
    documents with their grade (2% of them -1: in the pool, unjudged), the other 40% are
    unjudged, outside the pool, and 20% more judged documents are never retrieved.
    """
    y, s, q = make_benchmark_data(n_lines, n_queries, seed=seed)
    rng = np.random.default_rng(seed + 1)
    queries = q.astype(str).tolist()
    documents = [f"D{i}" for i in range(n_lines)]
    grades = y.astype(np.int64)
    grades[rng.random(n_lines) < 0.02] = -1
    judged = np.flatnonzero(rng.random(n_lines) < 0.6).tolist()
    extra = rng.integers(0, n_lines, n_lines // 5).tolist()
    extra_grades = y[rng.integers(0, n_lines, len(extra))].tolist()
    run = Path(folder) / "run.txt"
    qrels = Path(folder) / "qrels.txt"
    scores = s.astype(np.int64).tolist()
    run.write_text("".join(f"{q_} Q0 {d} 0 {v} sys\n"
                           for q_, d, v in zip(queries, documents, scores)))
    grade_list = grades.tolist()
    qrels.write_text(
        "".join(f"{queries[i]} 0 {documents[i]} {grade_list[i]}\n" for i in judged)
        + "".join(f"{queries[i]} 0 X{j} {g}\n" for j, (i, g) in
                  enumerate(zip(extra, extra_grades))))
    return qrels, run, len(judged) + len(extra)


def _all_lines(text):
    """{measure: printed value} of trec_eval's 'all' lines."""
    lines = (line.split("\t") for line in text.splitlines())
    return {name.rstrip(): value for name, qid, value in lines if qid == "all"}


def ranx_trec_runs(qrels, run):
    """ranx's entries of the trec_eval suite, and its means under trec_eval's names."""
    import ranx

    metrics = list(RANX_ALL_TREC)

    def read():
        return (ranx.Qrels.from_file(str(qrels), kind="trec"),
                ranx.Run.from_file(str(run), kind="trec"))

    def evaluate_read(files):
        return ranx.evaluate(*files, metrics, make_comparable=True)

    # numba compiles ranx's readers and kernels on first use, some of them again for large
    # inputs (its parallel paths): one call on the same files, outside the timed region.
    with warnings.catch_warnings():
        # numba's note on an integer cast in ranx's kernels, as it compiles them
        warnings.filterwarnings("ignore", "unsafe cast from uint64 to int64")
        evaluate_read(read())

    entries = {
        "ranx parse + evaluate": (lambda: evaluate_read(read()), None),
        "ranx evaluate": (evaluate_read, read),
    }
    return entries, lambda means: {RANX_ALL_TREC[name]: v for name, v in means.items()}


def ir_measures_trec_runs(qrels, run):
    """ir_measures' entries of the trec_eval suite, and its means under trec_eval's names."""
    import ir_measures

    measures = {}
    for name in IR_MEASURES_ALL_TREC:
        base, _, parameter = name.rpartition("_") if name[-1].isdigit() else (name, "", "")
        (measure,) = ir_measures.parse_trec_measure(f"{base}.{parameter}" if parameter
                                                    else name)
        measures[measure] = name
    read_once = []

    def read():  # untimed, once: the qrels and run as ir_measures' records
        if not read_once:
            read_once.append((list(ir_measures.read_trec_qrels(str(qrels))),
                              list(ir_measures.read_trec_run(str(run)))))
        return read_once[0]

    def parse_and_evaluate():
        return ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(str(qrels)),
                                          ir_measures.read_trec_run(str(run)))

    entries = {
        "ir_measures parse + evaluate": (parse_and_evaluate, None),
        "ir_measures evaluate": (lambda records: ir_measures.calc_aggregate(measures, *records),
                                 read),
    }
    return entries, lambda means: {measures[measure]: v for measure, v in means.items()}


TREC_PEERS = {"ranx": ranx_trec_runs, "ir_measures": ir_measures_trec_runs}


def trec_eval_binaries(given):
    """{label: path} of the trec_eval binaries of ``--trec-eval [LABEL=]PATH`` (or of
    ``TREC_EVAL``, paths separated by ``os.pathsep``), and the messages of those skipped."""
    if not given:
        given = [path for path in os.environ.get("TREC_EVAL", "").split(os.pathsep) if path]
    binaries, skipped = {}, []
    for spec in given:
        label, _, path = spec.rpartition("=")
        label = label or Path(path).parent.name or path
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            skipped.append(f"trec_eval {label} (no executable file at {path!r})")
            continue
        binaries[label] = path
    if not given:
        skipped.append("NIST's trec_eval (no binary: give --trec-eval [LABEL=]PATH, or "
                       "TREC_EVAL=PATH, e.g. one built by its Makefile and one with "
                       "'make CFLAGS=-O2')")
    return binaries, skipped


def values_of(per_query):
    """{measure: [value of each query]} of pytrec_eval's {query: {measure: value}}."""
    values = {}
    for query_values in per_query.values():
        for name, value in query_values.items():
            values.setdefault(name, []).append(value)
    return values


def compare_trec_eval(args):
    """``sklearn-rank trec_eval -m all_trec`` against pytrec_eval on the same TREC files, as
    processes (start, reading, computing, printing) and in process; returns the exit status.
    """
    import compileall
    import subprocess
    import tempfile

    import sklearn_rank
    from sklearn_rank.datasets import read_trec
    from sklearn_rank.metrics._trec_names import expand_measures

    try:
        import pytrec_eval
    except ImportError as exc:
        print(f"skipped: trec_eval suite ({exc})")
        return 0
    names = [item.name for item in expand_measures(["all_trec"])
             if item.measure.entry is not None]
    with tempfile.TemporaryDirectory() as folder:
        qrels, run, n_judgements = write_trec_files(folder, args.trec_lines, args.n_queries,
                                                    args.seed)
        print(f"\ntrec_eval -m all_trec: a run of {args.trec_lines:,} lines in "
              f"{args.n_queries:,} queries, qrels of {n_judgements:,} lines; "
              f"best of {args.repeat}")
        command = [sys.executable, "-m", "sklearn_rank", "trec_eval", "-m", "all_trec",
                   str(qrels), str(run)]
        script = [sys.executable, "-c", PYTREC_EVAL_SCRIPT, str(qrels), str(run),
                  *PYTREC_ALL_TREC]
        binaries, skipped = trec_eval_binaries(args.trec_eval)
        # the byte code of an installed package: not compiled again at every start
        compileall.compile_dir(Path(sklearn_rank.__file__).parent, quiet=1)

        def process(argv):
            output = Path(folder) / f"out{len(outputs)}.txt"
            outputs.append(output)

            def run_process():
                with open(output, "wb") as out:
                    done = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE)
                if done.returncode:
                    raise RuntimeError(f"{argv[:5]} failed: {done.stderr.decode().strip()}")
                return output
            return run_process

        outputs = []
        processes = {"sklearn-rank trec_eval": command,
                     "sklearn-rank trec_eval -q": [*command[:4], "-q", *command[4:]]}
        for label, path in binaries.items():
            processes[f"trec_eval {label}"] = [path, *command[4:]]
            processes[f"trec_eval {label} -q"] = [path, "-q", *command[4:]]

        prepared = []

        def read():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # queries without run lines
                return read_trec(qrels, run)

        def evaluate_all(data):
            return evaluate(data["y_true"], data["y_score"], qid=data["qid"],
                            retrieved=data["retrieved"], judged="y_true", metrics=names,
                            convention="trec_eval")

        def pytrec_eval_read():
            with open(qrels) as f:
                qrel = pytrec_eval.parse_qrel(f)
            with open(run) as f:
                run_dict = pytrec_eval.parse_run(f)
            return qrel, run_dict

        def pytrec_eval_prepare():  # untimed, once: its dicts and its evaluator
            if not prepared:
                qrel, run_dict = pytrec_eval_read()
                prepared.append(
                    (pytrec_eval.RelevanceEvaluator(qrel, set(PYTREC_ALL_TREC)), run_dict))
            return prepared[0]

        def pytrec_eval_in_process():
            qrel, run_dict = pytrec_eval_read()
            return pytrec_eval.RelevanceEvaluator(qrel, set(PYTREC_ALL_TREC)).evaluate(run_dict)

        data_read = []

        def read_once():  # untimed, once: the arrays that evaluate alone takes
            if not data_read:
                data_read.append(read())
            return data_read[0]

        entries = {
            **{key: (process(argv), None) for key, argv in processes.items()},
            "pytrec_eval script": (process(script), None),
            "read_trec + evaluate": (lambda: evaluate_all(read()), None),
            "pytrec_eval evaluate": (lambda prepared: prepared[0].evaluate(prepared[1]),
                                     pytrec_eval_prepare),
            "read_trec": (read, None),
            "evaluate": (evaluate_all, read_once),
            "pytrec_eval read + evaluate": (pytrec_eval_in_process, None),
        }
        names_of = {}
        for peer, make_runs in TREC_PEERS.items():
            if peer not in args.peers:
                continue
            try:
                peer_entries, names_of[peer] = make_runs(qrels, run)
            except ImportError as exc:
                skipped.append(f"{peer} ({exc})")
                continue
            entries.update(peer_entries)
        timed = best_times(entries, args.repeat)
        printed = {key: timed[key][1].read_bytes() for key in [*processes, "pytrec_eval script"]}

    seconds = {key: elapsed for key, (elapsed, _) in timed.items()}
    ours, theirs = (_all_lines(printed[key].decode()) for key in ("sklearn-rank trec_eval",
                                                                   "pytrec_eval script"))
    means = timed["read_trec + evaluate"][1]
    per_query = timed["pytrec_eval evaluate"][1]
    print(f"  processes: sklearn-rank trec_eval {seconds['sklearn-rank trec_eval']:.2f} s, "
          f"pytrec_eval (parse_qrel, parse_run, evaluate) "
          f"{seconds['pytrec_eval script']:.2f} s: "
          f"{seconds['pytrec_eval script'] / seconds['sklearn-rank trec_eval']:.1f}x "
          "(target: 3x)")
    print("  processes, sklearn-rank trec_eval's time / the other's (below 1: sklearn-rank "
          "is faster):")
    print(f"    {'':<24}{'-m all_trec':>14}{'-q -m all_trec':>17}")
    ours_q = seconds["sklearn-rank trec_eval -q"]
    print(f"    {'sklearn-rank trec_eval':<24}{seconds['sklearn-rank trec_eval']:>12.2f} s"
          f"{ours_q:>15.2f} s")
    for label in binaries:
        alone, with_q = seconds[f"trec_eval {label}"], seconds[f"trec_eval {label} -q"]
        print(f"    {'trec_eval ' + label:<24}"
              f"{seconds['sklearn-rank trec_eval'] / alone:>13.2f}x{ours_q / with_q:>16.2f}x"
              f"   ({alone:.2f} s, {with_q:.2f} s)")
    print(f"    {'pytrec_eval script':<24}"
          f"{seconds['sklearn-rank trec_eval'] / seconds['pytrec_eval script']:>13.2f}x"
          f"{'-':>17}   ({seconds['pytrec_eval script']:.2f} s)")
    print(f"  in process: read_trec + evaluate of {len(names)} measures "
          f"{seconds['read_trec + evaluate']:.2f} s, pytrec_eval's evaluate alone "
          f"{seconds['pytrec_eval evaluate']:.2f} s: "
          f"{seconds['pytrec_eval evaluate'] / seconds['read_trec + evaluate']:.1f}x "
          "(target: 10x)")
    print(f"  in process, the parts: read_trec {seconds['read_trec']:.2f} s, evaluate "
          f"{seconds['evaluate']:.2f} s; pytrec_eval's parse_qrel + parse_run + evaluate "
          f"{seconds['pytrec_eval read + evaluate']:.2f} s: "
          f"{seconds['pytrec_eval read + evaluate'] / seconds['read_trec + evaluate']:.1f}x")

    n_measures = {"sklearn-rank": len(names), "pytrec_eval": len(values_of(per_query))}
    peer_means = {}
    for peer, trec_names in names_of.items():
        peer_means[peer] = trec_names(timed[f"{peer} evaluate"][1])
        n_measures[peer] = len(peer_means[peer])
    pairs = {"sklearn-rank": ("read_trec + evaluate", "evaluate"),
             "pytrec_eval": ("pytrec_eval read + evaluate", "pytrec_eval evaluate"),
             **{peer: (f"{peer} parse + evaluate", f"{peer} evaluate") for peer in names_of}}
    print("  in process, from the files (parse + evaluate) and from each one's own inputs "
          "(evaluate), x sklearn-rank's time:")
    print(f"    {'':<14}{'measures':>9}{'parse + evaluate':>18}{'ratio':>8}{'evaluate':>11}"
          f"{'ratio':>8}")
    ours_both = [seconds[key] for key in pairs["sklearn-rank"]]
    for peer, keys in pairs.items():
        both = [seconds[key] for key in keys]
        print(f"    {peer:<14}{n_measures[peer]:>9}"
              f"{both[0]:>16.2f} s{both[0] / ours_both[0]:>7.1f}x"
              f"{both[1]:>9.2f} s{both[1] / ours_both[1]:>7.1f}x")
    for line in skipped:
        print(f"  skipped: {line}")

    # Apples to apples: the printed means, and the in-process means against pytrec_eval's.
    mismatches = []
    for label in binaries:
        for flag in ("", " -q"):
            mine = printed[f"sklearn-rank trec_eval{flag}"]
            nist = printed[f"trec_eval {label}{flag}"]
            same = mine == nist
            print(f"  output of trec_eval{flag}: {len(mine.splitlines()):,} lines, "
                  f"{'byte for byte' if same else 'NOT'} those of trec_eval {label}")
            if not same:
                lines = [pair for pair in zip(mine.splitlines(), nist.splitlines())
                         if pair[0] != pair[1]]
                first = lines[0] if lines else ("(lengths differ)", "")
                mismatches.append(f"printed{flag}: {len(lines)} lines differ from trec_eval "
                                  f"{label}'s, e.g. {first[0]!r} and {first[1]!r}")
    compared = sorted(set(ours) & set(theirs))
    for name in compared:
        if not name.startswith(ROUNDING_CHANGED) and ours[name] != theirs[name]:
            mismatches.append(f"printed {name}: sklearn-rank {ours[name]}, pytrec_eval "
                              f"{theirs[name]}")
    values = values_of(per_query)
    for name in sorted(set(means) & set(values)):
        if name.startswith(ROUNDING_CHANGED):
            continue
        expected = pytrec_eval.compute_aggregated_measure(name, values[name])
        if not abs(means[name] - expected) <= 1e-9:
            mismatches.append(f"in process {name}: sklearn-rank {means[name]!r}, pytrec_eval "
                              f"{expected!r}")
    print(f"  values: {len(compared)} printed means and {len(set(means) & set(values))} "
          f"means in process checked against pytrec_eval (all but {', '.join(ROUNDING_CHANGED)}"
          f", whose rounding changed in trec_eval 9.0.8): "
          f"{'MISMATCH' if mismatches else 'ok'}")
    for peer, peer_values in peer_means.items():
        wrong = [f"in process {name}: sklearn-rank {means[name]!r}, {peer} {value!r}"
                 for name, value in sorted(peer_values.items())
                 if not abs(means[name] - value) <= 1e-9]
        print(f"  values: {len(peer_values)} means of {peer} checked against sklearn-rank's: "
              f"{'MISMATCH' if wrong else 'ok'}")
        mismatches += wrong
    for line in mismatches:
        print(f"    {line}", file=sys.stderr)
    return 1 if mismatches else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-rows", type=int, default=1_000_000)
    parser.add_argument("--n-queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per entry; the best counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--peers", nargs="+", choices=[*PEERS, *TREC_PEERS], default=[*PEERS, *TREC_PEERS],
        help="peers to run (ir_measures: in the trec_eval suite only)"
    )
    parser.add_argument("--suite", choices=("arrays", "trec_eval", "all"), default="all",
                        help="the metrics of flat arrays against the peers, sklearn-rank "
                        "trec_eval against pytrec_eval on TREC files, or both (default)")
    parser.add_argument("--trec-lines", type=int, default=1_000_000,
                        help="lines of the run of the trec_eval suite")
    parser.add_argument("--trec-eval", action="append", metavar="[LABEL=]PATH",
                        help="a binary of NIST's trec_eval (10.0) that the trec_eval suite "
                        "times too, repeatable (e.g. make=PATH O2=PATH); default: the "
                        "paths of $TREC_EVAL, separated by ':'")
    args = parser.parse_args(argv)
    status = 0
    if args.suite in ("arrays", "all"):
        status |= compare_arrays(args)
        if "sklearn-rank" in args.peers:
            compare_target_layouts(args)
    if args.suite in ("trec_eval", "all"):
        status |= compare_trec_eval(args)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
