"""trec_eval's and ir_measures' measure names: what each one means in sklearn-rank.

* trec_eval's names with parameters (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.50``...)
  give trec_eval's value whatever ``convention=``, and its names that the registry has too
  (``map``, ``gm_map``, ``set_F``...) with ``convention="trec_eval"``: checked against
  pytrec_eval (trec_eval compiled), per query and on average;
* the printed names, the ``-m`` forms and the table of roots agree with each other and with
  the registry;
* ir_measures' spellings (``AP(rel=2)@10``, ``nDCG@10``, ``P(rel=2)@5``, ``Judged@10``,
  ``RBP(p=0.8)``) mean what ir_measures means: its parameters, and its values where an
  installed provider computes them (ir_measures computes RBP with cwl-eval or trectools,
  which are not installed: the spelling's parameters are checked).
"""

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_cli_trec_eval import random_trec, write_trec

from sklearn_rank.datasets import read_trec
from sklearn_rank.metrics import CONVENTION_NAMES, aggregate, evaluate_per_query, parse_metric
from sklearn_rank.metrics._registry import METRICS
from sklearn_rank.metrics._trec_names import (
    NICKNAMES,
    TREC_MEASURES,
    expand_measures,
    parse_trec_name,
    trec_conventions,
)

# The parameterised -m arguments of trec_eval's test (out.test.meas_params), and more.
PARAMETERISED = [
    "iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000", "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0", "11pt_avg..25,.5,.75", "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4",
    "success.2,5,20", "set_F.0.25", "relative_P.3", "unj.2", "map_cut.7", "G.1=2",
    "ndcg_rel.2=5", "Rndcg.0=1,1=2",
]


def _computable(items):
    """The items whose metric the registry has (the others are listed by
    test_every_measure_of_the_table_is_in_the_registry)."""
    return [item for item in items if item.measure.entry is not None]


ALL_ITEMS = expand_measures(["all_trec", *PARAMETERISED])


@pytest.mark.parametrize("item", ALL_ITEMS, ids=[item.name for item in ALL_ITEMS])
def test_a_printed_name_reads_back_as_its_measure(item):
    """A name with parameters is trec_eval's measure, through parse_metric too (which
    evaluate and the scorers call); a name of the registry (map, set_F, gm_map...) is the
    registry's metric."""
    measure = item.measure
    if measure.metric is None:
        with pytest.raises(ValueError, match="printed by 'sklearn-rank trec_eval' only"):
            parse_trec_name(item.name)
    elif measure.entry is None:
        with pytest.raises(ValueError, match="which this version does not have"):
            parse_trec_name(item.name)
    elif measure.shared and item.name == measure.name:
        assert parse_trec_name(item.name) is None
        assert parse_metric(item.name)[0] is measure.entry
    else:
        assert parse_trec_name(item.name) == (measure.entry, item.options)
        assert parse_trec_name(item.name.upper()) == (measure.entry, item.options)
        assert parse_metric(item.name) == (measure.entry, item.options)


@pytest.mark.parametrize("m_form, printed", [
    ("P.10", "P_10"), ("ndcg_cut.10", "ndcg_cut_10"), ("recall.20", "recall_20"),
    ("iprec_at_recall..5", "iprec_at_recall_0.50"), ("Rprec_mult.0.2", "Rprec_mult_0.20"),
    ("ndcg.1=3,2=9", "ndcg_1=3,2=9"), ("utility.2,-1,0,0", "utility_2,-1,0,0"),
    ("set_F.0.5", "set_F_0.5"), ("ndcg_cut.23.4", "ndcg_cut_23"),
])
def test_an_m_form_naming_one_measure_is_its_printed_name(m_form, printed):
    (item,) = expand_measures([m_form])
    assert item.name == printed
    if item.measure.entry is None:
        pytest.skip(f"{item.measure.metric} is not in the registry yet")
    assert parse_trec_name(m_form) == parse_trec_name(printed) == (item.measure.entry,
                                                                    item.options)


def test_names_fix_trec_eval_s_conventions_but_not_the_command_line_s():
    metric, options = parse_trec_name("map_cut_10")
    assert options == {**trec_conventions(metric), "k": 10}
    assert options["ap_denominator"] == "all" and options["ties"] == "stable"
    assert "relevance_threshold" not in options and "unjudged" not in options
    assert parse_trec_name("ndcg_cut_5")[1]["gain"] == "linear"
    # the registry's own names stay the registry's: convention= decides
    for shared in ("map", "ndcg", "dcg", "recip_rank", "Rprec", "bpref", "infAP", "rbp",
                   "set_F", "gm_map", "num_ret", "binG", "G", "11pt_avg", "rbp_resid"):
        assert parse_trec_name(shared) is None
        assert parse_trec_name(shared.upper()) is None


@pytest.mark.parametrize("name", ["ndcg@10", "P@5", "map", "foo", "ndcg_cutoff", "P_ten",
                                  "AP(rel=2)@10", "", "recall", "unj", "relative_P",
                                  "iprec_at_recall", "Rprec_mult(mult=0.2)", "set_F(beta=2)"])
def test_names_that_are_not_trec_eval_s_are_left_to_the_registry(name):
    """Other spellings, and the roots of trec_eval's families that the registry knows (its
    metric at every cut-off or level: "recall", "unj")."""
    assert parse_trec_name(name) is None


def test_registry_names_are_left_to_the_registry():
    """Every name and alias of the registry, trec_eval's among them (set_f, gm_map, num_ret,
    rbp_resid...), means the registry's metric, as its function computes it."""
    for metric in METRICS.values():
        for name in (metric.name, *metric.aliases):
            assert parse_trec_name(name) is None, name
            assert parse_trec_name(name.upper()) is None, name


@pytest.mark.parametrize("name, message", [
    ("ndcg_cut", r"family of measures, .* e\.g\. 'ndcg_cut_10'"),
    ("map_cut", "family of measures"),
    ("P.5,10", r"names several trec_eval measures \(P_5, P_10\)"),
    ("P_0", "cut-offs must be positive"),
    ("P_-3", "cut-offs must be positive"),
    ("P_2.5", "cut-offs must be integers"),
    ("ndcg_1=x", "gains must be numbers"),
    ("ndcg_a=1", "integer levels"),
    ("ndcg_1=2,1=3", "gives level 1 twice"),
    ("utility_1,2,3", "takes 4 coefficients"),
    ("utility_1,-1,0,1", r"needs the size of the collection \(trec_eval -N\)"),
    ("11pt_avg_.5,.25", "ascending"),
    ("set_F_0", "positive relative weight"),
    ("set_F_1,2", "takes one parameter"),
    ("map_5", "map takes no parameters"),
    ("rbp_p=1.5", "persistence p between 0 and 1"),
    ("rbp_resid_x=0.5", "takes one parameter, the persistence p"),
    ("yaap_5", "yaap takes no parameters"),
    # int() and float() read other digits and '_': trec_eval's atol and atof do not
    ("P_\u0661\u0660", "cut-offs must be integers"),
    ("iprec_at_recall_0_5", "must be numbers"),
    ("relstring", "printed by 'sklearn-rank trec_eval' only"),
    ("runid", "printed by 'sklearn-rank trec_eval' only"),
    ("ideal_dcg", "normaliser of ndcg"),
    ("prefs_simp", "preferences"),
    ("P_avgjg_10", "several groups of judgements"),
    ("P.", "no parameters after the '.'"),
])
def test_names_that_cannot_be_computed_are_refused_with_the_reason(name, message):
    with pytest.raises(ValueError, match=message):
        parse_trec_name(name)
    with pytest.raises(ValueError, match=message):
        parse_metric(name)


def test_every_measure_of_the_table_is_in_the_registry():
    missing = sorted({m.metric for m in TREC_MEASURES
                      if m.metric is not None and m.metric not in METRICS})
    if missing:
        pytest.skip(f"metrics of trec_eval measures not in the registry yet: {missing}")


@pytest.mark.parametrize("measure", [m for m in TREC_MEASURES if m.metric is not None],
                         ids=[m.name for m in TREC_MEASURES if m.metric is not None])
def test_the_table_names_options_of_its_metric(measure):
    metric = measure.entry
    if metric is None:
        pytest.skip(f"{measure.metric} is not in the registry yet")
    if measure.option is not None:
        assert measure.option in metric.option_names
    assert set(measure.fixed or {}) <= set(metric.option_names)
    # the default parameters give the metric's options, and read back
    items = expand_measures([measure.name])
    assert items and all(set(item.options) <= set(metric.option_names) for item in items)


def test_nicknames_name_roots_of_the_table():
    roots = [m.name for m in TREC_MEASURES]
    for nickname, names in NICKNAMES.items():
        assert set(names) <= set(roots), nickname
        assert len(set(names)) == len(names), nickname
    assert set(NICKNAMES["official"]) <= set(NICKNAMES["all_trec"])
    assert set(NICKNAMES["set"]) <= set(NICKNAMES["all_trec"])


# ------------------------------------------------------------------------------------------
# trec_eval's names give trec_eval's values, whatever convention= says


@pytest.fixture(scope="module")
def trec_data(tmp_path_factory):
    qrels, run = random_trec(np.random.default_rng(11), n_queries=21)
    folder = tmp_path_factory.mktemp("trec")
    with pytest.warns(UserWarning, match="no line in the run"):  # queries left out, as trec_eval
        data = read_trec(*write_trec(folder, qrels, run))
    return qrels, run, data


# -m arguments that pytrec_eval reads as trec_eval does (it cannot read levels without a
# leading 0, and it misreads or aborts on the parameters of utility, 11pt_avg and the gains)
PYTREC_PARAMETERISED = ["P.5,7,3", "recall.20,2000", "ndcg_cut.10,20,23", "success.2,5,20",
                        "relative_P.3", "map_cut.7", "iprec_at_recall.0.10,0.25,0.5",
                        "Rprec_mult.0.2,5.0,0.35"]


def _pytrec_items(pinned_only):
    """Items of trec_eval's names that pytrec_eval computes, with the -m argument that asks
    pytrec_eval for each: those whose name fixes trec_eval's conventions, or all of them."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    items = {}
    for argument in ["all_trec", *PYTREC_PARAMETERISED]:
        for item in _computable(expand_measures([argument])):
            registry_name = item.measure.shared and item.name == item.measure.name
            if item.measure.name in pytrec_eval.supported_measures and not (
                    pinned_only and registry_name) and item.measure.name != "relstring":
                items[item.name] = (item, argument if argument != "all_trec"
                                    else item.measure.name)
    return items


@pytest.mark.parametrize("convention", [None, *CONVENTION_NAMES])
def test_trec_eval_names_give_pytrec_eval_s_values(trec_data, convention):
    """Under every convention for the names that fix trec_eval's conventions (P_10...);
    with convention="trec_eval", trec_eval's names that the registry has too (map, gm_map,
    set_F, num_ret...) as well. pytrec_eval runs trec_eval 9.0.7, which rounds x * R to a
    number of relevant documents as floor(x * R + 0.9): recall_rounding="legacy" (9.0.8
    and the fixtures: "nearest")."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run, data = trec_data
    items = _pytrec_items(pinned_only=convention != "trec_eval")
    items.pop("rbp_resid", None)  # not in pytrec_eval
    names = list(items)
    result = evaluate_per_query(data["y_true"], data["y_score"], qid=data["qid"],
                                retrieved=data["retrieved"], judged="y_true",
                                docno=data["docno"], metrics=names, convention=convention,
                                recall_rounding="legacy")
    means = aggregate(result)
    expected = {}
    for argument in {argument for _, argument in items.values()}:
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {argument})
        for q, values in evaluator.evaluate({q: d for q, d in run.items()
                                             if q in qrels}).items():
            expected.setdefault(q, {}).update(values)
    queries = [str(q) for q in result.query_ids]
    assert sorted(queries) == sorted(expected)
    for name, (item, _) in items.items():
        metric = item.measure.entry
        values = [expected[q][name] for q in queries]
        if metric.aggregation == "geometric_mean":  # pytrec_eval holds the logarithm
            np.testing.assert_allclose(np.log(np.maximum(result[name], 1e-5)), values,
                                       rtol=1e-12, atol=1e-12, err_msg=name)
            assert means[name] == pytest.approx(math.exp(np.mean(values)), rel=1e-12), name
        else:
            np.testing.assert_allclose(result[name], values, rtol=1e-12, atol=1e-12,
                                       err_msg=name)
            total = np.sum(values) if metric.aggregation == "sum" else np.mean(values)
            assert means[name] == pytest.approx(total, rel=1e-12, abs=1e-12), name


# ------------------------------------------------------------------------------------------
# ir_measures' spellings

IR_MEASURES = {
    # spelling: sklearn-rank metric, the options its parameters give
    "AP(rel=2)@10": ("map", {"k": 10, "relevance_threshold": 2}),
    "nDCG@10": ("ndcg", {"k": 10}),
    "P(rel=2)@5": ("precision", {"k": 5, "relevance_threshold": 2}),
    "Judged@10": ("judged", {"k": 10}),
    "RBP(p=0.8)": ("rbp", {"persistence": 0.8}),
}
# ir_measures' parameter -> sklearn-rank's option
IR_PARAMETERS = {"cutoff": "k", "rel": "relevance_threshold", "p": "persistence"}


@pytest.mark.parametrize("spelling", list(IR_MEASURES))
def test_ir_measures_spellings_set_ir_measures_parameters(spelling):
    ir_measures = pytest.importorskip("ir_measures")
    name, options = IR_MEASURES[spelling]
    if name not in METRICS:
        pytest.skip(f"{name} is not in the registry yet")
    metric, parsed = parse_metric(spelling)
    assert (metric.name, parsed) == (name, options)
    params = ir_measures.parse_measure(spelling).params
    assert {IR_PARAMETERS[key]: value for key, value in params.items()} == options


def _ir_measures_data(rng):
    """Qrels and a run without ties (ir_measures' Judged breaks them by document name,
    ascending; trec_eval, descending) and with the lists longer than 10."""
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{j}" for j in rng.permutation(40)[:25]]
        qrels[str(q)] = {d: int(rng.integers(-1 if q % 3 else 0, 4)) for d in docs[:18]}
        if q % 4 == 1:  # no relevant document
            qrels[str(q)] = dict.fromkeys(qrels[str(q)], 0)
        run[str(q)] = {d: float(s) for d, s in zip(docs[5:], rng.permutation(20) + 1)}
    return qrels, run


@pytest.mark.parametrize("spelling", [s for s in IR_MEASURES if s != "RBP(p=0.8)"])
def test_ir_measures_spellings_give_ir_measures_values(tmp_path, spelling):
    """AP, nDCG and P: ir_measures computes them with pytrec_eval, the "trec_eval" preset;
    Judged with its own code, which counts a qrels -1 as a judgement (judged= the rows of
    the qrels, -1 as grade 0)."""
    ir_measures = pytest.importorskip("ir_measures")
    name, _ = IR_MEASURES[spelling]
    if name not in METRICS:
        pytest.skip(f"{name} is not in the registry yet")
    qrels, run = _ir_measures_data(np.random.default_rng(7))
    (value,) = ir_measures.calc_aggregate([ir_measures.parse_measure(spelling)], qrels,
                                          run).values()
    data = read_trec(*write_trec(tmp_path, qrels, run))
    y_true, judged = data["y_true"], "y_true"
    if name == "judged":
        judged = ~np.isnan(y_true)
        y_true = np.where(judged, np.maximum(y_true, 0), 0.0)
    result = evaluate_per_query(y_true, data["y_score"], qid=data["qid"],
                                retrieved=data["retrieved"], judged=judged,
                                docno=data["docno"], metrics=[spelling], convention="trec_eval")
    assert aggregate(result)[spelling] == pytest.approx(value, rel=1e-12, abs=1e-12)


def test_the_docs_table_lists_every_measure_and_the_page_has_its_place():
    from sklearn_rank.metrics._trec_names import trec_measures_table

    table = trec_measures_table()
    rows = table.split("\n   * - ")[2:]  # after the directive and the header
    for measure in TREC_MEASURES:
        (row,) = [row for row in rows if f"``{measure.name}``" in row.split("\n")[0]
                  or f"``{measure.name}." in row.split("\n")[0]]
        if measure.refused is not None:
            assert "refused" in row
        elif measure.metric is not None:
            assert f"metrics.{measure.metric}_score`" in row
    page = (Path(__file__).resolve().parents[1] / "docs" / "trec_eval.rst").read_text()
    assert (".. The table of trec_eval's measures: docs/conf.py writes it here from "
            "sklearn_rank.metrics._trec_names.") in page


def test_cut_offs_are_ascii_digits():
    # int() reads the Arabic-Indic "\u0661\u0660" as 10: "ndcg@\u0661\u0660" was ndcg@10
    with pytest.raises(ValueError, match="Unknown metric name 'ndcg@\u0661\u0660'"):
        parse_metric("ndcg@\u0661\u0660")
    assert parse_metric("ndcg@10")[1] == {"k": 10}


# ir_measures' set measures and counts, and IPrec@x: (spelling, registry metric, options)
IR_MEASURES_MORE = [
    ("SetP", "set_p", {}),
    ("SetP(rel=2)", "set_p", {"relevance_threshold": 2}),
    ("SetR", "set_recall", {}),
    ("SetAP", "set_map", {}),
    ("SetRelP", "set_relative_p", {}),
    ("SetF", "set_f", {}),
    ("SetF(beta=4.0)", "set_f", {"beta": 2.0}),  # trec_eval's set_F.4: F with beta 2
    ("SetF(rel=2,beta=0.25)", "set_f", {"relevance_threshold": 2, "beta": 0.5}),
    ("NumQ", "num_q", {}),
    ("NumRel", "num_rel", {}),
    ("NumRelRet", "num_rel_ret", {}),
    ("NumRet", "num_ret", {}),
    ("NumRet(rel=1)", "num_rel_ret", {"relevance_threshold": 1}),
    ("NumRet(rel=2)", "num_rel_ret", {"relevance_threshold": 2}),
    ("IPrec@0.5", "iprec_at_recall", {"recall": 0.5}),
    ("IPrec(rel=2)@0.3", "iprec_at_recall", {"recall": 0.3, "relevance_threshold": 2}),
]


@pytest.mark.parametrize("spelling, name, options", IR_MEASURES_MORE,
                         ids=[s for s, _, _ in IR_MEASURES_MORE])
def test_ir_measures_set_measures_and_counts(tmp_path, spelling, name, options):
    """Each ir_measures name of a measure that sklearn-rank computes reads as that metric,
    and gives ir_measures' value (which pytrec_eval computes: trec_eval 9's recall
    rounding for IPrec). SetF, NumRet(rel=1) and IPrec@0.5 were refused."""
    ir_measures = pytest.importorskip("ir_measures")
    metric, parsed = parse_metric(spelling)
    assert (metric.name, parsed) == (name, options)
    qrels, run = _ir_measures_data(np.random.default_rng(11))
    (value,) = ir_measures.calc_aggregate([ir_measures.parse_measure(spelling)], qrels,
                                          run).values()
    with pytest.warns(UserWarning, match="have no line in the run") if set(qrels) - set(
            run) else warnings.catch_warnings():
        data = read_trec(*write_trec(tmp_path, qrels, run))
    extra = {"recall_rounding": "legacy"} if name == "iprec_at_recall" else {}
    metric_name = spelling if not extra else f"iprec_at_recall(recall={options['recall']}, " \
        f"rel={options.get('relevance_threshold', 1)}, recall_rounding=legacy)"
    result = evaluate_per_query(data["y_true"], data["y_score"], qid=data["qid"],
                                retrieved=data["retrieved"], judged="y_true",
                                metrics=[metric_name], convention="trec_eval")
    assert aggregate(result)[metric_name] == pytest.approx(value, rel=1e-12, abs=1e-12)
