"""The bound metric: one value built once from a name, held by every caller.

A metric name reaches a kernel through :func:`~sklearn_rank.metrics._bound.bind_metric`
(parse, merge, validate, resolve, grade-scale rule) into an immutable, hashable
:class:`~sklearn_rank.metrics._bound.BoundMetric`; its aggregation over queries is one
:class:`~sklearn_rank.metrics._aggregate.Aggregator` for memory, chunks and Dask. The import
graph of ``sklearn_rank.metrics`` has no cycle.
"""

import ast
import math
import pickle
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import make_ranking_scorer
from sklearn_rank.metrics import (
    CONVENTION_NAMES,
    aggregate,
    evaluate,
    evaluate_per_query,
)
from sklearn_rank.metrics._aggregate import Aggregator
from sklearn_rank.metrics._bound import bind_metric, bind_metrics
from sklearn_rank.metrics._registry import METRICS

# a sample of trec_eval's own names (not names of the registry)
TREC_NAMES = ["P_10", "ndcg_cut_10", "recall_100", "map_cut_5", "success_1",
              "iprec_at_recall_0.50", "Rprec_mult_0.20", "set_F_0.5", "utility_2,-1,0,0",
              "11pt_avg_.25,.5,.75", "ndcg_1=3,2=9,4=4.5", "relative_P_10", "unj_5"]


def _same_number(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


# --------------------------------------------------------------------------------------
# The value


def test_bound_metrics_are_equal_hashable_immutable_values():
    a = bind_metric("nDCG@10")
    b = bind_metric("ndcg@10(log_base=2)")  # the default, written out: the same computation
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert str(a) == a.key == a.name == "ndcg@10"
    assert a != bind_metric("ndcg@5") and a != bind_metric("ndcg@10", convention="trec_eval")
    assert bind_metric("ndcg@10", options={"gain": "linear"}) != a
    with pytest.raises(AttributeError, match="immutable"):
        a.options = {}
    with pytest.raises(TypeError):
        a.options["k"] = 3  # a read-only mapping
    c = bind_metric("rbp(p=0.5)", convention="trec_eval")
    assert pickle.loads(pickle.dumps(c)) == c
    assert repr(c) == f"BoundMetric({c.key!r}, convention='trec_eval')"


def test_binding_a_bound_metric_returns_it():
    bound = bind_metric("err@10(max_grade=4)", convention="lightgbm")
    assert bind_metric(bound) is bound
    assert bind_metric(bound, convention="lightgbm") is bound
    with pytest.raises(TypeError, match="bound already"):
        bind_metric(bound, options={"k": 5})
    with pytest.raises(ValueError, match="bound with convention='lightgbm'"):
        bind_metric(bound, convention="trec_eval")


@pytest.mark.parametrize("convention", [None, *CONVENTION_NAMES])
@pytest.mark.parametrize("name", sorted(METRICS) + TREC_NAMES)
def test_key_round_trip(name, convention):
    """A bound metric's key binds back to the same resolved options without a convention,
    and to an equal value with its convention, unless the name sets an option to
    sklearn-rank's default against the preset (trec_eval's P_10 fixes short_lists="k",
    which the key leaves out, and catboost's preset would set to "length")."""
    bound = bind_metric(name, convention=convention)
    if name in METRICS or convention in (None, "trec_eval"):
        assert bind_metric(bound.key, convention=convention) == bound
    plain = bind_metric(bound.key)
    assert plain.key == bound.key
    assert plain.metric is bound.metric
    assert set(plain.options) == set(bound.options)


def test_errors_keep_their_messages():
    with pytest.raises(ValueError, match="Unknown metric name 'ndgc@10'"):
        bind_metric("ndgc@10")
    with pytest.raises(TypeError, match=r"got option\(s\) \['gian'\] that ndcg does not take"):
        bind_metric("ndcg@10", options={"gian": "linear"})
    with pytest.raises(ValueError, match="both in the metric name and as keywords"):
        bind_metric("ndcg@10", options={"k": 5})
    with pytest.raises(ValueError, match="divides the grades by the top grade"):
        bind_metric("err@10", declared_scale=True, caller="eval_metric('err@10')")
    with pytest.raises(TypeError, match=r"got option\(s\) \['p'\] that none of the metrics"):
        bind_metrics(["ndcg@10"], {"p": 0.5}, caller="evaluate")


def test_repeated_bindings_are_cached():
    first = bind_metrics(["ndcg@10", "map", "P@5"], {"ties": "stable"}, caller="evaluate")
    again = bind_metrics(["ndcg@10", "map", "P@5"], {"ties": "stable"}, caller="evaluate")
    assert all(a is b for (_, a), (_, b) in zip(first, again, strict=True))
    # 1, 1.0 and True are equal keys of a dict: each binds to its own options
    assert bind_metric("pairs", options={"ties_credit": 1}).options["ties_credit"] == 1
    assert isinstance(bind_metric("pairs", options={"ties_credit": 1.0})
                      .options["ties_credit"], float)


# --------------------------------------------------------------------------------------
# Every caller holds the same value


@pytest.mark.parametrize(("name", "convention", "trec_name"), [
    ("ndcg@10", "trec_eval", "ndcg_cut_10"),
    ("P@10", "trec_eval", "P_10"),
    ("map", "trec_eval", "map"),
    ("err@10(max_grade=4)", "lightgbm", None),
    ("rbp(p=0.5)", None, None),
])
def test_every_caller_builds_the_same_value(name, convention, trec_name):
    from sklearn_rank._adapters._eval_metric import BoosterEvalMetric
    from sklearn_rank.metrics._dask import _plan as dask_plan
    from sklearn_rank.metrics._trec_eval import _plan as trec_plan

    bound = bind_metric(name, convention=convention)
    assert make_ranking_scorer(name, convention=convention)._bound == bound
    assert BoosterEvalMetric(name, convention=convention).bound == bound
    ((label, planned),) = bind_metrics([name], {}, convention, caller="evaluate")
    assert label == name and planned == bound
    ((_, partitioned),) = dask_plan([name], {}, "evaluate", convention)
    assert partitioned == bound
    if trec_name is not None:
        root, _, cutoff = trec_name.rpartition("_")  # -m's spelling: ndcg_cut.10
        ((item, command),) = trec_plan([f"{root}.{cutoff}" if root else trec_name],
                                       relevance_level=1, judged_only=False,
                                       collection_size=None, recall_rounding="nearest")
        assert item.name == trec_name
        assert command == bound


def test_scorer_and_evaluate_compute_with_their_bound_metric():
    from sklearn.linear_model import Ridge

    from sklearn_rank.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=15, random_state=0)
    scorer = make_ranking_scorer("ndcg@5", gain="linear")
    model = Ridge().fit(X, y)
    assert scorer(model, X, y, qid=qid) == evaluate(y, model.predict(X), qid=qid,
                                                    metrics=[scorer._bound])[scorer._bound.key]


# --------------------------------------------------------------------------------------
# One aggregation: memory = chunks = Dask, bit for bit


def _rows(seed=0, n_queries=40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    qid = np.repeat(np.arange(n_queries) * 3 + 7, sizes)
    n = len(qid)
    y = rng.integers(0, 5, n).astype(float)
    y[qid % 5 == 0] = 0  # queries without a relevant document: skipped by no_relevant=nan
    return {"y_true": y, "y_score": np.round(rng.normal(size=n), 1), "qid": qid,
            "sample_weight": np.repeat(rng.uniform(0.1, 3.0, n_queries), sizes)}


# sums one at a time (ties="stable", trec_eval), pairwise, a sum and a geometric mean
METRICS_SAMPLE = ["ndcg@10(ties=stable)", "map", "err@10", "num_rel_ret", "gm_map",
                  "P@5(no_relevant=nan)", "rr(ties=stable, no_relevant=nan)"]


@pytest.mark.parametrize("weighted", [False, True])
def test_aggregator_memory_equals_chunks_bit_for_bit(weighted):
    rows = _rows()
    if not weighted:
        rows.pop("sample_weight")
    expected = evaluate(**rows, metrics=METRICS_SAMPLE)
    whole = evaluate_per_query(**rows, metrics=METRICS_SAMPLE)
    bounds = dict(bind_metrics(METRICS_SAMPLE, caller="evaluate"))
    edges = [0, 10, 60, 200]
    chunks = []
    for low, high in zip(edges, edges[1:]):
        keep = (rows["qid"] >= low) & (rows["qid"] < high)
        chunks.append(evaluate_per_query(**{k: v[keep] for k, v in rows.items()},
                                         metrics=METRICS_SAMPLE,
                                         max_grade=whole.options["err@10"]["max_grade"]))
    stored = aggregate(*chunks)  # stored folds
    for name in METRICS_SAMPLE:
        merged = None
        for chunk in reversed(chunks):  # merged in any order: the query ids order them
            one = bounds[name].aggregator(name).add(
                chunk[name], chunk.query_weight, query_ids=chunk.query_ids,
                weight_unit=chunk.weight_unit)
            merged = one if merged is None else merged.merge(one)
        assert _same_number(merged.result(), expected[name]), name
        assert _same_number(stored[name], expected[name]), name
        assert _same_number(METRICS[whole.options[name]["metric"]].aggregate(
            whole[name], whole.query_weight, in_order=bounds[name].in_order),
            expected[name]), name


def test_aggregator_refuses_a_query_in_two_chunks():
    a = Aggregator(label="map").add([0.5, 1.0], query_ids=[1, 2])
    b = Aggregator(label="map").add([0.25], query_ids=[2])
    with pytest.raises(ValueError, match="appears in two chunks"):
        a.merge(b).result()


@pytest.mark.parametrize("scheduler", ["threads", "distributed"])
def test_aggregator_memory_equals_dask_bit_for_bit(scheduler):
    """The means of a Dask collection, each query in one partition, are those of the same
    call in memory, bit for bit: the partitions' aggregators merge into the same sums."""
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    rows = _rows(seed=1, n_queries=60)
    frame = dd.from_pandas(pd.DataFrame(rows), npartitions=7, sort=False)
    # partitions cut between queries: each query's rows in one partition, in input order
    frame = frame.repartition(divisions=_query_divisions(rows["qid"], 7))
    lazy = {"y_true": frame["y_true"], "y_score": frame["y_score"], "qid": frame["qid"]}
    for weighted in (False, True):
        memory = {k: v for k, v in rows.items() if weighted or k != "sample_weight"}
        inputs = {**lazy, "sample_weight": frame["sample_weight"]} if weighted else lazy
        expected = evaluate(**memory, metrics=METRICS_SAMPLE)
        if scheduler == "distributed":
            distributed = pytest.importorskip("distributed")
            with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                          dashboard_address=None) as cluster, \
                    distributed.Client(cluster):
                got = evaluate(**inputs, metrics=METRICS_SAMPLE, partitioned_by_query=True)
        else:
            import dask

            with dask.config.set(scheduler="threads"):
                got = evaluate(**inputs, metrics=METRICS_SAMPLE, partitioned_by_query=True)
        for name in METRICS_SAMPLE:
            assert _same_number(got[name], expected[name]), (name, got[name], expected[name])


def _query_divisions(qid, n):
    """Row positions that cut ``qid`` (rows grouped by query) into ``n`` parts between
    queries, as divisions of the default RangeIndex."""
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    cuts = starts[np.linspace(0, len(starts) - 1, n, endpoint=False).astype(int)]
    return (*cuts.tolist(), len(qid) - 1)


# --------------------------------------------------------------------------------------
# No import cycle in sklearn_rank.metrics


def _import_graph(root):
    """Module -> modules of sklearn_rank that it imports, at module level or inside
    functions (``import`` and ``from ... import`` statements, relative or absolute)."""
    package = root / "sklearn_rank"
    modules = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    module = ".".join(base[:len(base) - node.level + 1]
                                      + ([node.module] if node.module else []))
                # ``from package import submodule`` depends on the submodule (the package
                # itself is loaded first in any case); ``from package import name``, on the
                # package's __init__
                targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules
                           else module for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            found.update(t for t in targets if t in modules and t != name)
        graph[name] = found
    return graph


def _cycles(graph):
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return groups


def test_no_import_cycle_in_metrics():
    graph = _import_graph(Path(__file__).parents[1])
    metrics = {m: {t for t in targets if t.startswith("sklearn_rank.metrics")}
               for m, targets in graph.items() if m.startswith("sklearn_rank.metrics")}
    assert _cycles(metrics) == []
    # the graph sees function-level imports: the registry reads the public functions through
    # the package, and the grammar reads the registry
    assert "sklearn_rank.metrics._registry" in graph["sklearn_rank.metrics._names"]


def test_bound_metric_is_public_and_accepted_where_names_are():
    """``sklearn_rank.metrics.bind_metric`` builds the value once; ``evaluate``,
    ``evaluate_per_query`` and ``make_ranking_scorer`` take it in place of the name and
    compute the same numbers, labelled by its key."""
    import sklearn_rank.metrics as metrics
    from sklearn_rank.datasets import make_ranking

    assert {"BoundMetric", "bind_metric", "needs_grade_scale"} <= set(metrics.__all__)
    assert metrics.bind_metric is bind_metric
    X, y, qid = make_ranking(20, random_state=0)
    score = X[:, 0]
    bound = metrics.bind_metric("nDCG@5", convention="trec_eval")
    assert isinstance(bound, metrics.BoundMetric)
    by_name = evaluate(y, score, qid=qid, metrics=["ndcg@5"], convention="trec_eval")
    assert evaluate(y, score, qid=qid, metrics=[bound]) == {bound.key: by_name["ndcg@5"]}
    per_query = evaluate_per_query(y, score, qid=qid, metrics=[bound])
    np.testing.assert_array_equal(
        per_query[bound.key],
        evaluate_per_query(y, score, qid=qid, metrics=["ndcg@5"],
                           convention="trec_eval")["ndcg@5"])

    from sklearn.linear_model import LinearRegression

    model = LinearRegression().fit(X, y)
    by_scorer = make_ranking_scorer("ndcg@5", convention="trec_eval")(model, X, y, qid=qid)
    assert make_ranking_scorer(bound)(model, X, y, qid=qid) == by_scorer
    # the grade-scale rule, public both ways
    assert metrics.needs_grade_scale("err@10") and bind_metric("err@10").needs_top_label
    assert not metrics.needs_grade_scale("err@10", convention="catboost")
