"""sklearn-rank against the real implementations that its ``convention=`` presets reproduce.

Each test feeds the same random input to a reference system and to ``sklearn_rank.metrics``
and asks for agreement to 1e-9 (float32 systems: see below). The inputs have ragged queries of
1 to 30 documents, grades 0-4, queries without any relevant document and, where the system
defines how it orders equal scores, many tied scores. sklearn-rank always receives the rows
of the queries interleaved and string query ids in an order unrelated to the rows, while
each system receives the layout it requires (contiguous groups, sorted qids...).

How each system is made to evaluate given scores (the presets in
``sklearn_rank/_conventions.py`` say which conventions each one follows):

- trec_eval (pytrec_eval): scores are float32 and ties are broken by document name,
  descending: documents are named so that this is the input order.
- scikit-learn ``ndcg_score``/``dcg_score``: equal-length queries as 2-D arrays.
- LightGBM: a ``Booster`` built on a ``Dataset`` whose ``init_score`` holds the scores has no
  tree, so ``eval_train()`` evaluates exactly these scores.
- XGBoost: likewise a ``Booster`` with no tree on a ``DMatrix`` whose ``base_margin`` holds the
  scores; predictions are float32, so the scores are rounded to float32 first.
- CatBoost: ``catboost.utils.eval_metric``; live when CatBoost is installed, else against
  ``tests/recorded/catboost.json``.
- torchmetrics: torch is too heavy for the test environment, so its values were recorded by
  ``tests/recorded/record_reference_values.py`` in ``tests/recorded/torchmetrics.json``.
  torchmetrics computes in float32, hence a tolerance of 2e-6 there.
"""

import functools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn import metrics as sk_metrics

metrics = pytest.importorskip("sklearn_rank.metrics")

TOL = 1e-9
SEEDS = (0, 1, 2, 3)
KS = (1, 3, 5, 10, None)
MAX_SIZE = 30
RECORDED = Path(__file__).parent / "recorded"


# --------------------------------------------------------------------------------------
# Random inputs
# --------------------------------------------------------------------------------------
class Case:
    """Ragged queries stored group after group, as the boosters want them.

    ``y_true``, ``y_score``, ``group`` (0, 0, 1, ...) and ``sizes`` describe the grouped
    layout. :meth:`engine_input` gives the same rows interleaved, with string query ids,
    keeping the order of the rows inside each query (that order decides stable ties).
    """

    def __init__(self, y_true, y_score, sizes, seed):
        self.y_true = np.asarray(y_true, dtype=float)
        self.y_score = np.asarray(y_score, dtype=float)
        self.sizes = np.asarray(sizes)
        self.group = np.repeat(np.arange(len(sizes)), sizes)
        self.bounds = np.concatenate([[0], np.cumsum(sizes)])
        rng = np.random.default_rng(seed + 1000)
        # Interleave the queries: random slots, then give each query its slots in row order.
        slots = rng.permutation(len(self.group))
        for g in range(len(sizes)):
            rows = slice(self.bounds[g], self.bounds[g + 1])
            slots[rows] = np.sort(slots[rows])
        self.order = np.argsort(slots)  # engine row j is grouped row order[j]
        # Query names whose sorted order is unrelated to the group order.
        self.names = np.array([f"q{v:03d}" for v in rng.permutation(len(sizes))])

    @property
    def n_queries(self):
        return len(self.sizes)

    @property
    def empty(self):
        """Whether each query lacks a document of grade > 0."""
        return ~np.logical_or.reduceat(self.y_true > 0, self.bounds[:-1])

    def engine_input(self, row_weight=None, retrieved=None):
        """``y_true, y_score`` and the keyword arguments (qid...) for sklearn-rank."""
        kwargs = {"qid": self.names[self.group][self.order]}
        if row_weight is not None:
            kwargs["sample_weight"] = np.asarray(row_weight)[self.order]
        if retrieved is not None:
            kwargs["retrieved"] = np.asarray(retrieved)[self.order]
        return self.y_true[self.order], self.y_score[self.order], kwargs

    def per_query(self, values):
        """Reorder values given in ``np.unique(qid)`` order into group order."""
        return np.asarray(values)[np.searchsorted(np.unique(self.names), self.names)]


def make_case(seed, *, ties=True, float32=False, binary=False, n_queries=25):
    """A :class:`Case` of ``n_queries`` queries of 1 to ``MAX_SIZE`` documents.

    About one query in six has no relevant document. With ``ties``, half of the queries
    draw their scores from five values, so most documents share their score with others.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, MAX_SIZE + 1, n_queries)
    y_true, y_score = [], []
    for n in sizes:
        if rng.random() < 1 / 6:
            labels = np.zeros(n)
        else:
            labels = rng.choice(5, n, p=[0.5, 0.2, 0.15, 0.1, 0.05]).astype(float)
        if ties and rng.random() < 0.5:
            scores = rng.choice([-1.0, 0.0, 0.25, 0.5, 2.0], n)
        else:
            scores = rng.normal(size=n)
        y_true.append(labels)
        y_score.append(scores)
    y_true, y_score = np.concatenate(y_true), np.concatenate(y_score)
    if binary:
        y_true = (y_true >= 1).astype(float)
    if float32:
        y_score = y_score.astype(np.float32).astype(float)
    return Case(y_true, y_score, sizes, seed)


def query_weights(case, seed, *, empty=None):
    """Random query weights, multiples of 1/8 so that float32 holds them exactly.

    The boosters and CatBoost keep weights in float32. ``empty`` sets the weight of the
    queries without a relevant document (see test_booster_ndcg_weights_of_empty_queries).
    """
    weights = np.random.default_rng(seed + 2000).integers(1, 25, case.n_queries) / 8
    if empty is not None:
        weights[case.empty] = empty
    return weights


# --------------------------------------------------------------------------------------
# trec_eval through pytrec_eval
# --------------------------------------------------------------------------------------
TREC_CUTOFFS = ",".join(str(k) for k in KS if k is not None)
TREC_MEASURES = {
    "map", "ndcg", "recip_rank", "Rprec", "set_P", "set_recall",
    f"map_cut.{TREC_CUTOFFS}", f"ndcg_cut.{TREC_CUTOFFS}", f"P.{TREC_CUTOFFS}",
    f"recall.{TREC_CUTOFFS}", f"success.{TREC_CUTOFFS}",
}
# metric -> (sklearn-rank function, trec_eval measure without cut-off, measure at cut-off k)
TREC_METRICS = {
    "map": (metrics.map_score, "map", "map_cut_{k}"),
    "ndcg": (metrics.ndcg_score, "ndcg", "ndcg_cut_{k}"),
    "precision": (metrics.precision_score, "set_P", "P_{k}"),
    "recall": (metrics.recall_score, "set_recall", "recall_{k}"),
    "hit_rate": (metrics.hit_rate_score, None, "success_{k}"),
    "mrr": (metrics.mrr_score, "recip_rank", None),
    "r_precision": (metrics.r_precision_score, "Rprec", None),
}


@functools.cache
def trec_case(seed, relevance_level):
    """A case, its ``retrieved`` mask, its document names and pytrec_eval's per-query
    results."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    case = make_case(seed, float32=True)
    rng = np.random.default_rng(seed + 3000)
    retrieved = rng.random(len(case.y_true)) < 0.85
    retrieved[case.bounds[:-1]] = True  # every query keeps a ranked document
    n_rows = len(case.y_true)
    # trec_eval orders equal scores by document name, descending: name the rows so that
    # this is their input order.
    docno = [f"d{n_rows - 1 - i:06d}" for i in range(n_rows)]
    qrel, run = {}, {}
    for g in range(case.n_queries):
        rows = range(case.bounds[g], case.bounds[g + 1])
        qrel[f"{g}"] = {docno[i]: int(case.y_true[i]) for i in rows}
        run[f"{g}"] = {docno[i]: float(case.y_score[i]) for i in rows if retrieved[i]}
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, TREC_MEASURES,
                                               relevance_level=relevance_level)
    results = evaluator.evaluate(run)
    return case, retrieved, np.asarray(docno), results


TREC_CASES = [
    (metric, k, level)
    for metric, (_, measure_all, measure_at_k) in TREC_METRICS.items()
    for k in KS
    if (measure_all if k is None else measure_at_k) is not None
    # nDCG does not depend on the binary relevance level.
    for level in ([1] if metric == "ndcg" else [1, 2])
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("metric, k, relevance_level", TREC_CASES)
def test_trec_eval(seed, k, metric, relevance_level):
    func, measure_all, measure_at_k = TREC_METRICS[metric]
    measure = measure_all if k is None else measure_at_k
    case, retrieved, docno, results = trec_case(seed, relevance_level)
    expected = np.array([results[f"{g}"][measure.format(k=k)] for g in range(case.n_queries)])

    options = {} if metric == "ndcg" else {"relevance_threshold": relevance_level}
    if metric not in ("mrr", "r_precision"):
        options["k"] = k
    y_true, y_score, kwargs = case.engine_input(retrieved=retrieved)
    kwargs["docno"] = docno[case.order]  # trec_eval ranks tied scores by name
    got = func(y_true, y_score, **kwargs, **options, convention="trec_eval",
               return_per_query=True)
    assert_allclose(case.per_query(got), expected, rtol=0, atol=TOL)
    mean = func(y_true, y_score, **kwargs, **options, convention="trec_eval")
    assert mean == pytest.approx(expected.mean(), rel=0, abs=TOL)


# evaluate() name -> trec_eval measure
TREC_NAMES = {
    "map": "map", "ap@5": "map_cut_5", "ndcg": "ndcg", "ndcg@10": "ndcg_cut_10",
    "P@5": "P_5", "r@10": "recall_10", "success@3": "success_3", "recip_rank": "recip_rank",
    "rprec": "Rprec",
}


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_evaluate(seed):
    """evaluate() with trec_eval's measure names and the trec_eval preset."""
    case, retrieved, docno, results = trec_case(seed, 1)
    y_true, y_score, kwargs = case.engine_input(retrieved=retrieved)
    kwargs["docno"] = docno[case.order]
    got = metrics.evaluate(y_true, y_score, **kwargs, metrics=tuple(TREC_NAMES),
                           convention="trec_eval", return_per_query=True)
    assert set(got) == set(TREC_NAMES)
    for name, measure in TREC_NAMES.items():
        expected = [results[f"{g}"][measure] for g in range(case.n_queries)]
        assert_allclose(case.per_query(got[name]), expected, rtol=0, atol=TOL, err_msg=name)


# --------------------------------------------------------------------------------------
# scikit-learn
# --------------------------------------------------------------------------------------
def sklearn_case(seed, n_docs, ties):
    rng = np.random.default_rng(seed)
    n_queries = 12
    y_true = rng.choice(5, (n_queries, n_docs), p=[0.5, 0.2, 0.15, 0.1, 0.05])
    y_true[rng.random(n_queries) < 0.2] = 0  # queries without a relevant document
    if ties:
        y_score = rng.choice([0.0, 0.5, 1.0, 3.0], (n_queries, n_docs))
    else:
        y_score = rng.normal(size=(n_queries, n_docs))
    weights = rng.uniform(0.2, 3.0, n_queries)
    # Flat layout for sklearn-rank: rows shuffled, query ids as strings.
    qid = np.repeat([f"query {q:02d}" for q in range(n_queries)], n_docs)
    order = rng.permutation(qid.size)
    flat = (y_true.ravel()[order], y_score.ravel()[order])
    return y_true, y_score, weights, flat, {"qid": qid[order]}, np.repeat(weights, n_docs)[order]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("n_docs", [2, 7, 30])
@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric", ["ndcg", "dcg"])
def test_sklearn(seed, k, n_docs, ties, weighted, metric):
    y_true, y_score, weights, (yt, ys), kwargs, row_weight = sklearn_case(seed, n_docs, ties)
    ours = {"ndcg": metrics.ndcg_score, "dcg": metrics.dcg_score}[metric]
    theirs = {"ndcg": sk_metrics.ndcg_score, "dcg": sk_metrics.dcg_score}[metric]
    sample_weight = weights if weighted else None
    expected = theirs(y_true, y_score, k=k, sample_weight=sample_weight)
    got = ours(yt, ys, **kwargs, k=k, sample_weight=row_weight if weighted else None,
               convention="sklearn")
    assert got == pytest.approx(expected, rel=TOL, abs=TOL)
    if not ties:
        # ignore_ties=True sorts with an unstable argsort: only comparable without ties.
        expected = theirs(y_true, y_score, k=k, sample_weight=sample_weight, ignore_ties=True)
        assert got == pytest.approx(expected, rel=TOL, abs=TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("log_base", [2, 10, 1.5])
def test_sklearn_dcg_log_base(seed, k, log_base):
    y_true, y_score, _, (yt, ys), kwargs, _ = sklearn_case(seed, 9, ties=True)
    expected = sk_metrics.dcg_score(y_true, y_score, k=k, log_base=log_base)
    got = metrics.dcg_score(yt, ys, **kwargs, k=k, log_base=log_base, convention="sklearn")
    assert got == pytest.approx(expected, rel=TOL, abs=TOL)


def test_sklearn_per_query():
    """The per-query values of the flat layout are sklearn's rows, in np.unique order."""
    y_true, y_score, _, (yt, ys), kwargs, _ = sklearn_case(0, 6, ties=True)
    got = metrics.ndcg_score(yt, ys, **kwargs, k=3, convention="sklearn",
                             return_per_query=True)
    expected = [sk_metrics.ndcg_score(y_true[[q]], y_score[[q]], k=3)
                for q in range(len(y_true))]
    assert_allclose(got, expected, rtol=0, atol=TOL)


# --------------------------------------------------------------------------------------
# LightGBM
# --------------------------------------------------------------------------------------
def lightgbm_eval(case, metric, k, row_weight=None, label_gain=None):
    """LightGBM's own ``metric@k`` of the case's scores (a booster without trees)."""
    lgb = pytest.importorskip("lightgbm")
    dataset = lgb.Dataset(np.zeros((len(case.y_true), 1)), label=case.y_true,
                          group=case.sizes, init_score=case.y_score, weight=row_weight,
                          params={"verbose": -1})
    params = {"objective": "lambdarank", "metric": [metric], "verbose": -1,
              # k=None: a cut-off beyond every query is the whole list.
              "eval_at": [MAX_SIZE if k is None else k]}
    if label_gain is not None:
        params["label_gain"] = label_gain
    booster = lgb.Booster(params=params, train_set=dataset)
    # (data name, metric name, value, is_higher_better): a tuple before LightGBM 4.7
    ((_, name, value, _),) = booster.eval_train()
    assert name == f"{metric}@{params['eval_at'][0]}"
    return value


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("weights", [None, "query", "rows"])
@pytest.mark.parametrize("metric", ["ndcg", "map"])
def test_lightgbm(seed, k, weights, metric):
    case = make_case(seed)
    tol = TOL
    row_weight = None
    if weights is not None:
        # Queries without a relevant document weigh 1: see the test below.
        row_weight = query_weights(case, seed, empty=1.0)[case.group]
        if weights == "rows":
            # A query weighs the mean of its rows' weights, which LightGBM computes in
            # float32: only 1e-6 agreement.
            row_weight = row_weight * np.random.default_rng(seed).integers(1, 9, row_weight.size)
            row_weight[case.empty[case.group]] = 1.0
            tol = 1e-6
    expected = lightgbm_eval(case, metric, k, row_weight)
    func = {"ndcg": metrics.ndcg_score, "map": metrics.map_score}[metric]
    y_true, y_score, kwargs = case.engine_input(row_weight=row_weight)
    got = func(y_true, y_score, **kwargs, k=k, convention="lightgbm")
    assert got == pytest.approx(expected, rel=tol, abs=tol)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
def test_lightgbm_linear_gain(seed, k):
    case = make_case(seed)
    expected = lightgbm_eval(case, "ndcg", k, label_gain=list(range(31)))
    y_true, y_score, kwargs = case.engine_input()
    got = metrics.ndcg_score(y_true, y_score, **kwargs, k=k, gain="linear",
                             convention="lightgbm")
    assert got == pytest.approx(expected, rel=TOL, abs=TOL)


# --------------------------------------------------------------------------------------
# XGBoost
# --------------------------------------------------------------------------------------
def xgboost_eval(case, metric, group_weight=None, **params):
    """XGBoost's own ``metric`` (e.g. "ndcg@3-") of the case's scores (no tree)."""
    xgb = pytest.importorskip("xgboost")
    dmatrix = xgb.DMatrix(np.zeros((len(case.y_true), 1)), label=case.y_true,
                          qid=case.group, base_margin=case.y_score, weight=group_weight)
    booster = xgb.Booster({"objective": "rank:ndcg", "eval_metric": metric, **params},
                          [dmatrix])
    text = booster.eval(dmatrix)  # "[0]\teval-ndcg@3:0.71256859206269774"
    name, value = text.split("\t")[1].rsplit(":", 1)
    assert name == f"eval-{metric}"
    return float(value)


def xgboost_name(metric, k, minus):
    return metric + ("" if k is None else f"@{k}") + ("-" if minus else "")


XGBOOST_CASES = [
    (metric, k, minus)
    for metric in ("ndcg", "map", "pre")
    for k in KS
    # "ndcg@3-" and "map@3-" score 0 for a query without relevant documents.
    for minus in ([False] if metric == "pre" or k is None else [False, True])
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric, k, minus", XGBOOST_CASES)
def test_xgboost(seed, k, minus, weighted, metric):
    # XGBoost predicts in float32 and accepts only 0/1 labels for map and pre.
    case = make_case(seed, float32=True, binary=metric != "ndcg")
    # In ndcg (not "ndcg-"), queries without a relevant document weigh 1: see
    # test_booster_ndcg_weights_of_empty_queries.
    empty_weight = 1.0 if metric == "ndcg" and not minus else None
    weights = query_weights(case, seed, empty=empty_weight) if weighted else None
    expected = xgboost_eval(case, xgboost_name(metric, k, minus), weights)
    func = {"ndcg": metrics.ndcg_score, "map": metrics.map_score,
            "pre": metrics.precision_score}[metric]
    options = {"no_relevant": 0.0} if minus else {}
    y_true, y_score, kwargs = case.engine_input(
        row_weight=None if weights is None else weights[case.group])
    got = func(y_true, y_score, **kwargs, k=k, convention="xgboost", **options)
    assert got == pytest.approx(expected, rel=TOL, abs=TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
def test_xgboost_linear_gain(seed, k):
    case = make_case(seed, float32=True)
    expected = xgboost_eval(case, xgboost_name("ndcg", k, False), ndcg_exp_gain=False)
    y_true, y_score, kwargs = case.engine_input()
    got = metrics.ndcg_score(y_true, y_score, **kwargs, k=k, gain="linear",
                             convention="xgboost")
    assert got == pytest.approx(expected, rel=TOL, abs=TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("booster", ["lightgbm", "xgboost"])
def test_booster_evaluate(seed, booster):
    """evaluate() with the booster's metric names and preset, weighted."""
    case = make_case(seed, float32=booster == "xgboost", binary=True)
    weights = query_weights(case, seed, empty=1.0)
    names = ["ndcg@3", "ndcg@10", "map@5"] + (["pre@3"] if booster == "xgboost" else [])
    if booster == "lightgbm":
        expected = {name: lightgbm_eval(case, name.split("@")[0], int(name.split("@")[1]),
                                        weights[case.group]) for name in names}
    else:
        expected = {name: xgboost_eval(case, name, weights) for name in names}
    y_true, y_score, kwargs = case.engine_input(row_weight=weights[case.group])
    got = metrics.evaluate(y_true, y_score, **kwargs, metrics=names, convention=booster)
    assert got == pytest.approx(expected, rel=TOL, abs=TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [1, 5, None])
@pytest.mark.parametrize("booster", ["lightgbm", "xgboost"])
def test_booster_ndcg_weights_of_empty_queries(seed, k, booster):
    """LightGBM's and XGBoost's weighted ndcg add 1, not the query's weight, for a query
    without a relevant document, while its weight still counts in the denominator.

    No option of sklearn-rank reproduces that (it would not be a weighted mean): this test
    pins the boosters' behaviour down, from sklearn-rank's per-query values, so that the
    documentation stays true.
    """
    case = make_case(seed, float32=True)
    weights = query_weights(case, seed)
    assert case.empty.any() and (weights[case.empty] != 1).any()
    if booster == "lightgbm":
        expected = lightgbm_eval(case, "ndcg", k, weights[case.group])
    else:
        expected = xgboost_eval(case, xgboost_name("ndcg", k, False), weights)
    y_true, y_score, kwargs = case.engine_input()
    per_query = case.per_query(metrics.ndcg_score(
        y_true, y_score, **kwargs, k=k, convention=booster, no_relevant=np.nan,
        return_per_query=True))
    quirk = (np.nansum(per_query * weights) + case.empty.sum()) / weights.sum()
    assert quirk == pytest.approx(expected, rel=TOL, abs=TOL)
    y_true, y_score, kwargs = case.engine_input(row_weight=weights[case.group])
    weighted_mean = metrics.ndcg_score(y_true, y_score, **kwargs, k=k, convention=booster)
    assert weighted_mean != pytest.approx(expected, rel=TOL, abs=TOL)


# --------------------------------------------------------------------------------------
# CatBoost: live when installed, recorded values otherwise
# --------------------------------------------------------------------------------------
def catboost_metric(name):
    """Parse "NDCG:top=3;type=Exp" into (base name, k, function, options)."""
    base, _, params = name.partition(":")
    params = dict(p.split("=") for p in params.split(";") if p)
    k = int(params["top"]) if "top" in params else None
    # type=Base (linear gain) is CatBoost's default and the preset's; the rest of the
    # conventions, ERR's raw labels as probabilities included, come from the preset.
    options = {"gain": "exponential"} if params.get("type") == "Exp" else {}
    func = {"NDCG": metrics.ndcg_score, "DCG": metrics.dcg_score, "MAP": metrics.map_score,
            "MRR": metrics.mrr_score, "ERR": metrics.err_score,
            "PrecisionAt": metrics.precision_score, "RecallAt": metrics.recall_score}[base]
    return base, k, func, options


# CatBoost weighs queries by group_weight in these metrics and ignores weights in the others.
CATBOOST_WEIGHTED = {"NDCG", "DCG", "MRR", "ERR"}


def check_catboost(name, case_data, weighted, label_scale, expected):
    base, k, func, options = catboost_metric(name)
    y_true = np.asarray(case_data["y_true"]) * label_scale
    y_score = np.asarray(case_data["y_score"])
    qid = np.asarray(case_data["qid"])
    sample_weight = None
    if weighted and base in CATBOOST_WEIGHTED:
        sample_weight = np.asarray(case_data["query_weight"])[qid]
    got = func(y_true, y_score, qid=[f"q{v}" for v in qid], k=k,
               sample_weight=sample_weight, convention="catboost", **options)
    assert got == pytest.approx(expected, rel=TOL, abs=TOL), name


def load_recorded(system):
    path = RECORDED / f"{system}.json"
    return json.loads(path.read_text())


CATBOOST_RECORDS = load_recorded("catboost")["records"]


@pytest.mark.parametrize(
    "record", CATBOOST_RECORDS,
    ids=[f"{r['case']}-{r['metric']}-{'w' if r['weighted'] else 'u'}"
         for r in CATBOOST_RECORDS])
def test_catboost_recorded(record):
    case_data = load_recorded("catboost")["cases"][record["case"]]
    check_catboost(record["metric"], case_data, record["weighted"], record["label_scale"],
                   record["value"])


def catboost_names(k):
    top = [] if k is None else [f"top={k}"]
    names = [f"{base}:" + ";".join(top + [f"type={kind}"])
             for base in ("NDCG", "DCG") for kind in ("Base", "Exp")]
    names += [":".join([m] + top) for m in ("MAP", "MRR", "ERR", "PrecisionAt", "RecallAt")]
    return names


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("weighted", [False, True])
def test_catboost_live(seed, k, weighted):
    catboost_utils = pytest.importorskip("catboost.utils")
    case = make_case(seed)
    weights = query_weights(case, seed)
    y_true, y_score, _ = case.engine_input()
    case_data = {"y_true": y_true, "y_score": y_score, "qid": case.group[case.order],
                 "query_weight": weights}
    group_id = np.array([f"g{g}" for g in case.group])
    for name in catboost_names(k):
        scale = 0.25 if name.startswith("ERR") else 1.0  # ERR wants labels in [0, 1]
        expected = catboost_utils.eval_metric(
            case.y_true * scale, case.y_score, name, group_id=group_id,
            group_weight=weights[case.group] if weighted else None)[0]
        check_catboost(name, case_data, weighted, scale, expected)


# --------------------------------------------------------------------------------------
# torchmetrics (recorded)
# --------------------------------------------------------------------------------------
TORCHMETRICS_TOL = 2e-6  # torchmetrics computes in float32
TORCHMETRICS = load_recorded("torchmetrics")
# torchmetrics zeroes the relevance of documents scored <= 0 in these metrics (1.9.0).
TORCHMETRICS_POSITIVE_ONLY = {"map", "mrr", "precision", "recall"}


def torchmetrics_id(record):
    kwargs = ",".join(f"{key}={value}" for key, value in record["kwargs"].items())
    return f"{record['case']}-{record['metric']}-{kwargs}"


def torchmetrics_divides_by_every_row(record, y_score):
    """Whether the record is a P that divides by the length of the whole list, rows scored
    <= 0 included although they never count as relevant (no top_k, or adaptive_k, and some
    scores <= 0): ``short_lists="rows"`` with ``retrieved=y_score > 0``."""
    kwargs = record["kwargs"]
    return (record["metric"] == "precision" and (y_score <= 0).any()
            and (kwargs.get("top_k") is None or bool(kwargs.get("adaptive_k"))))


TORCHMETRICS_RECORDS = TORCHMETRICS["records"]


@pytest.mark.parametrize("record", TORCHMETRICS_RECORDS,
                         ids=[torchmetrics_id(r) for r in TORCHMETRICS_RECORDS])
def test_torchmetrics_recorded(record):
    case_data = TORCHMETRICS["cases"][record["case"]]
    y_true = np.asarray(case_data["y_true"])
    y_score = np.asarray(case_data["y_score"])
    qid = np.asarray(case_data["qid"])
    kwargs = dict(record["kwargs"])
    options = {"no_relevant": {"neg": 0.0, "pos": 1.0, "skip": np.nan}[
        kwargs.pop("empty_target_action")]}
    metric = record["metric"]
    if metric != "r_precision":
        options["k"] = kwargs.pop("top_k")
    divides_by_every_row = torchmetrics_divides_by_every_row(record, y_score)
    if kwargs.pop("adaptive_k", False):
        options["short_lists"] = "length"
    assert not kwargs
    if metric in TORCHMETRICS_POSITIVE_ONLY and (y_score <= 0).any():
        options["retrieved"] = y_score > 0
    if divides_by_every_row:
        options["short_lists"] = "rows"
    func = {"ndcg": metrics.ndcg_score, "map": metrics.map_score, "mrr": metrics.mrr_score,
            "precision": metrics.precision_score, "recall": metrics.recall_score,
            "hit_rate": metrics.hit_rate_score,
            "r_precision": metrics.r_precision_score}[metric]
    got = func(y_true, y_score, qid=qid, convention="torchmetrics", **options)
    assert got == pytest.approx(record["value"], rel=0, abs=TORCHMETRICS_TOL)


# --------------------------------------------------------------------------------------
# ranx (rank-biased precision) and ir_measures' gdeval (ERR)
# --------------------------------------------------------------------------------------
# ranx's numba kernels warn about an integer cast when they are first compiled.
@pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("persistence", [0.5, 0.8, 0.95])
def test_ranx_rbp(seed, persistence):
    ranx = pytest.importorskip("ranx")
    case = make_case(seed, ties=False)
    qrels, run = {}, {}
    for g in range(case.n_queries):
        rows = range(case.bounds[g], case.bounds[g + 1])
        qrels[f"{g:03d}"] = {f"d{i}": int(case.y_true[i]) for i in rows if case.y_true[i] > 0}
        run[f"{g:03d}"] = {f"d{i}": float(case.y_score[i]) for i in rows}
    # ranx needs a relevant document in every query of its qrels; its results come in the
    # sorted order of the query ids.
    kept = [g for g in range(case.n_queries) if qrels[f"{g:03d}"]]
    expected = ranx.evaluate(ranx.Qrels({f"{g:03d}": qrels[f"{g:03d}"] for g in kept}),
                             ranx.Run({f"{g:03d}": run[f"{g:03d}"] for g in kept}),
                             f"rbp.{round(persistence * 100)}", return_mean=False)
    # ranx weighs a relevant document by its raw grade, not normalised: graded RBP on the
    # 0-4 scale times 4.
    y_true, y_score, kwargs = case.engine_input()
    got = metrics.rbp_score(y_true, y_score, **kwargs, persistence=persistence, graded=True,
                            max_grade=4, return_per_query=True)
    assert_allclose(4 * case.per_query(got)[kept], expected, rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("k", [1, 5, 20])
def test_gdeval_err(seed, k):
    ir_measures = pytest.importorskip("ir_measures")
    if shutil.which("perl") is None:
        pytest.skip("gdeval.pl needs perl")
    case = make_case(seed, ties=False)
    qrels, run = [], []
    for g in range(case.n_queries):
        for i in range(case.bounds[g], case.bounds[g + 1]):
            qrels.append(ir_measures.Qrel(f"{g + 1}", f"d{i}", int(case.y_true[i])))
            run.append(ir_measures.ScoredDoc(f"{g + 1}", f"d{i}", float(case.y_score[i])))
    measure = ir_measures.ERR @ k
    results = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    # gdeval only reports queries with a relevant document, rounded to 5 decimals, with
    # R_i = (2^g - 1) / 2^4.
    y_true, y_score, kwargs = case.engine_input()
    got = case.per_query(metrics.err_score(y_true, y_score, **kwargs, k=k, max_grade=4,
                                           gain="exponential", return_per_query=True))
    for g in range(case.n_queries):
        if f"{g + 1}" in results:
            assert got[g] == pytest.approx(results[f"{g + 1}"], rel=0, abs=6e-6)
        else:
            assert not case.y_true[case.bounds[g]:case.bounds[g + 1]].any()


def _ranx_hits_at_every_depth(ranx, case, kept, retrieved, threshold):
    """ranx's per-query hits@j for j = 0 .. MAX_SIZE, queries ``kept`` (rows: j)."""
    qrels, run = {}, {}
    for g in kept:
        rows = range(case.bounds[g], case.bounds[g + 1])
        qrels[f"{g:03d}"] = {f"d{i}": int(case.y_true[i]) for i in rows if case.y_true[i] > 0}
        run[f"{g:03d}"] = {f"d{i}": float(case.y_score[i]) for i in rows if retrieved[i]}
    names = [f"hits@{j}-l{threshold}" for j in range(1, MAX_SIZE + 1)]
    found = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, return_mean=False)
    # ranx reads hits@0 as "every document": the depth 0 is written here
    return np.vstack([np.zeros(len(kept)), *(found[name] for name in names)])


# ranx's numba kernels warn about an integer cast when they are first compiled.
@pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("threshold", [1, 2])
def test_ranx_hits(seed, threshold):
    """ranx's hits@k (a count), with ties, unretrieved judged documents and -l thresholds.

    ranx leaves tied documents in whatever order its sort gives, so its hits@k depends on
    that order when a tie block straddles rank k. At a block boundary it does not. Across a
    block of m tied documents after s ranked ones, the expected count over the orderings of
    the block is linear in k: hits@s + (k - s) / m (hits@(s + m) - hits@s). So ranx's values
    at the boundaries give the exact expectation that ties="average" computes, at every k.
    """
    ranx = pytest.importorskip("ranx")
    case = make_case(seed)
    rng = np.random.default_rng(seed + 3000)
    retrieved = rng.random(len(case.y_true)) < 0.8
    retrieved[case.bounds[:-1]] = True  # every query keeps a ranked document
    # ranx needs a relevant document in every query of its qrels
    kept = [g for g in range(case.n_queries)
            if case.y_true[case.bounds[g]:case.bounds[g + 1]].any()]
    depth = _ranx_hits_at_every_depth(ranx, case, kept, retrieved, threshold)
    y_true, y_score, kwargs = case.engine_input(retrieved=retrieved)
    for k in KS:
        expected, at_boundary = np.empty(len(kept)), np.zeros(len(kept), dtype=bool)
        for column, g in enumerate(kept):
            rows = np.arange(case.bounds[g], case.bounds[g + 1])
            scores = np.sort(case.y_score[rows[retrieved[rows]]])[::-1]
            cut = len(scores) if k is None else min(k, len(scores))
            start = np.searchsorted(-scores, -scores[cut - 1], side="left")  # block of rank k
            end = np.searchsorted(-scores, -scores[cut - 1], side="right")
            low, high = depth[start, column], depth[end, column]
            expected[column] = low + (cut - start) / (end - start) * (high - low)
            at_boundary[column] = end == cut
        got = metrics.hits_score(y_true, y_score, **kwargs, k=k, relevance_threshold=threshold,
                                 return_per_query=True)
        assert_allclose(case.per_query(got)[kept], expected, rtol=0, atol=TOL, err_msg=str(k))
        # with the ties of the row order: ranx's values where no tie straddles rank k
        stable = case.per_query(metrics.hits_score(
            y_true, y_score, **kwargs, k=k, relevance_threshold=threshold, ties="stable",
            return_per_query=True))[kept]
        assert_allclose(stable[at_boundary], expected[at_boundary], rtol=0, atol=TOL)
