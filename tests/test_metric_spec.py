"""Each metric is described once, by its entry in the registry; the rest is checked against it.

An entry of ``sklearn_rank/metrics/_registry.py`` holds a metric's name and aliases, its kernel,
its options with their defaults and constraints, the inputs it reads and how its per-query
values are aggregated. The public functions keep explicit signatures (IDEs and numpydoc read
them), and the test registries and the documentation keep lists of their own: these tests fail
when one of them is out of step with the registry, and say what to add.
"""

import dataclasses
import importlib
import importlib.util
import inspect
import math
import os
import subprocess
import sys
from collections import defaultdict
from numbers import Real
from pathlib import Path

import _brute_force
import numpy as np
import pytest
import test_brute_force
import test_invariance
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank import metrics
from sklearn_rank._conventions import METRIC_DEFAULTS
from sklearn_rank.metrics import (
    CONVENTION_NAMES,
    DEFAULTS,
    evaluate,
    get_metric_names,
    get_scorer_names,
    parse_metric,
)
from sklearn_rank.metrics import _per_query as pq
from sklearn_rank.metrics._input import check_ranking_input
from sklearn_rank.metrics._registry import (
    FAMILIES,
    GEOMETRIC_MEAN_FLOOR,
    METRICS,
    Metric,
    Option,
)
from sklearn_rank.metrics._scorer import needs_grade_scale
from sklearn_rank.utils._param_validation import (
    InvalidParameterError,
    validate_parameter_constraints,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"
NAMES = list(METRICS)

# Arguments of a public function of its own, after return_per_query: not options of the metric.
OWN_ARGUMENTS = {"rbp": ("return_residual",)}

# A value other than the default for every option of the registry.
SAMPLES = {
    "k": 3,
    "gain": "linear",
    "log_base": 10.0,
    "ties": "stable",
    "no_relevant": np.nan,
    "relevance_threshold": 2,
    "ap_denominator": "min_k",
    "short_lists": "length",
    "max_grade": 4,
    "persistence": 0.5,
    "graded": True,
    "ties_credit": 1.0,
    "half_life": 2.0,
    "default_rating": 1.0,
    "unjudged": "condensed",
    # incomplete judgements, retrieved sets and counts
    "all_judged": "zero",
    "beta": 0.5,
    "relevant_retrieved": 2.0,
    "nonrelevant_retrieved": -0.5,
    "relevant_missed": -1.0,
    "nonrelevant_missed": 0.25,
    "collection_size": 1000,
    # interpolated precision, R-based and G-based measures, the DCG family's gains
    "discount": "rank",
    "recall": 0.5,
    "recall_levels": [0.25, 0.5, 0.75],
    "recall_rounding": "legacy",
    "mult": 2.0,
}




def _same_value(a, b):
    """Equal, and of the same kind: 2 is 2.0, but False is not 0 and None is not 0."""
    if isinstance(a, Real) and isinstance(b, Real) and not isinstance(a, bool) and not isinstance(
            b, bool):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def _data(n_queries=6, seed=0, weights=False):
    """Small flat arrays with ties, graded labels and, optionally, row weights."""
    rng = np.random.default_rng(seed)
    n = 8 * n_queries
    data = {
        "y_true": rng.integers(0, 4, n).astype(float),
        "y_score": rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], n),
        "qid": rng.permutation(np.repeat(np.arange(n_queries) * 7 + 2, 8)),
    }
    if weights:
        data["sample_weight"] = rng.uniform(0.1, 3.0, n)
    return data


# --------------------------------------------------------------------------------------
# The public functions and the kernels
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_public_function_signature_follows_the_spec(name):
    metric = METRICS[name]
    assert metric.function_name in metrics.__all__, (
        f"add {metric.function_name} to sklearn_rank.metrics and its __all__")
    assert metric.function is getattr(metrics, metric.function_name)
    parameters = list(inspect.signature(metric.function).parameters.values())
    plain = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty)
    assert [(p.name, p.kind, p.default) for p in parameters[:2]] == [
        ("y_true", *plain), ("y_score", *plain)]
    expected = [
        ("qid", None),
        *((option.name, option.keyword_default) for option in metric.option_specs),
        ("no_relevant", None),
        ("unjudged", "nonrelevant"),
        *((name, None) for name in metric.inputs),
        ("sample_weight", None),
        ("convention", None),
        ("return_per_query", False),
    ]
    keyword = parameters[2:]
    assert all(p.kind is p.KEYWORD_ONLY for p in keyword), (
        f"{metric.function_name}: everything after y_score is keyword-only")
    got = [(p.name, p.default) for p in keyword[:len(expected)]]
    assert [n for n, _ in got] == [n for n, _ in expected], (
        f"{metric.function_name}'s keywords are not the registry's, in its order")
    for (parameter, default), (_, spec_default) in zip(got, expected):
        assert _same_value(default, spec_default), (
            f"{metric.function_name}({parameter}={default!r}): the registry says "
            f"{spec_default!r}")
    own = tuple(p.name for p in keyword[len(expected):])
    assert own == OWN_ARGUMENTS.get(name, ())


@pytest.mark.parametrize("name", NAMES)
def test_public_function_is_written_in_the_module_of_its_family(name):
    metric = METRICS[name]
    module = importlib.import_module(metric.module)
    assert module.__name__ == f"sklearn_rank.metrics._{metric.family}"
    function = vars(module).get(metric.function_name)
    assert function is not None, (
        f"write {metric.function_name} in sklearn_rank/metrics/_{metric.family}.py (the "
        f"registry puts {name} in family {metric.family!r})")
    assert function.__module__ == module.__name__, (
        f"{metric.function_name} is imported into _{metric.family}.py, not written there")
    assert metric.function is function


@pytest.mark.parametrize("family", FAMILIES)
def test_family_modules_hold_the_functions_of_the_registry_only(family):
    # a public function without a registry entry (or with an entry of another family) would
    # be neither exported nor listed in the API reference
    module = importlib.import_module(f"sklearn_rank.metrics._{family}")
    written = {name for name, value in vars(module).items()
               if inspect.isfunction(value) and value.__module__ == module.__name__
               and not name.startswith("_")}
    expected = {m.function_name for m in METRICS.values() if m.family == family}
    assert written == expected, (
        f"sklearn_rank/metrics/_{family}.py: add a registry entry of family {family!r} for "
        f"{sorted(written - expected)}; write the functions {sorted(expected - written)}")


def test_every_family_has_its_module_and_every_module_its_family():
    folder = Path(metrics.__file__).parent
    assert {m.family for m in METRICS.values()} == set(FAMILIES)
    assert all((folder / f"_{family}.py").is_file() for family in FAMILIES)


def test_metrics_exports_the_function_of_every_registry_entry():
    functions = {m.function_name for m in METRICS.values()}
    others = {name for names in metrics._EXPORTS.values() for name in names}
    assert not functions & others, "a metric's function is listed by hand in _EXPORTS"
    assert metrics.__all__ == sorted(functions | others)
    assert functions <= set(dir(metrics))
    namespace = {}
    exec("from sklearn_rank.metrics import *", namespace)
    assert all(namespace[m.function_name] is m.function for m in METRICS.values())


def test_import_of_metrics_reads_the_registry_on_first_use_only():
    # the export list comes from the registry, which imports numpy and the kernels: `import
    # sklearn_rank.metrics` stays as cheap as it was (the CLI's quick paths rely on it)
    code = ("import sys\n"
            "import sklearn_rank.metrics as metrics\n"
            "print(sorted(m for m in ('numpy', 'sklearn', 'sklearn_rank.metrics._registry')"
            " if m in sys.modules))\n"
            "metrics.ndcg_score\n"
            "print(sorted(m for m in sys.modules if m.startswith('sklearn_rank.metrics._')"
            " and m.removeprefix('sklearn_rank.metrics._') in metrics._registry.FAMILIES))\n")
    root = Path(metrics.__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    assert out.stdout.splitlines() == ["[]", "['sklearn_rank.metrics._graded']"]


def test_an_entry_without_a_known_family_is_refused():
    entry = {"name": "x", "kernel": pq.ndcg, "option_specs": ()}
    for family in (None, "rates"):
        with pytest.raises(ValueError, match="family must be one of"):
            Metric(**entry, **({} if family is None else {"family": family}))


@pytest.mark.parametrize("name", NAMES)
def test_public_function_documents_every_parameter(name):
    docscrape = pytest.importorskip("numpydoc.docscrape")
    function = METRICS[name].function
    documented = [
        part.strip()
        for parameter in docscrape.FunctionDoc(function)["Parameters"]
        for part in parameter.name.split(",")
    ]
    assert documented == list(inspect.signature(function).parameters)


@pytest.mark.parametrize("name", NAMES)
def test_public_function_validates_every_option(name):
    metric = METRICS[name]
    for option in metric.all_options:
        with pytest.raises(InvalidParameterError,
                           match=f"The '{option.name}' parameter of {metric.function_name}"):
            metric.function([1, 0], [0.5, 0.2], **{option.name: object()})


@pytest.mark.parametrize("name", NAMES)
def test_defaults_meet_their_constraints(name):
    metric = METRICS[name]
    validate_parameter_constraints(
        metric.constraints, {o.name: o.default for o in metric.all_options}, caller_name=name)
    validate_parameter_constraints(
        metric.constraints, {o.name: o.keyword_default for o in metric.all_options},
        caller_name=name)


@pytest.mark.parametrize("name", NAMES)
def test_kernel_takes_the_spec_options(name):
    metric = METRICS[name]
    parameters = list(inspect.signature(metric.kernel).parameters.values())
    assert parameters[0].name == "data"
    assert all(p.kind is p.KEYWORD_ONLY for p in parameters[1:])
    assert {p.name for p in parameters[1:]} == set(metric.options), (
        f"the kernel of {name} takes {[p.name for p in parameters[1:]]}; the registry says "
        f"{list(metric.options)}")


def test_defaults_of_the_conventions_are_the_registry_defaults():
    # A preset option of one metric only (RBP's persistence, whose name means another thing
    # for ERR) has its default in METRIC_DEFAULTS; every other one in DEFAULTS.
    own = {(metric, name) for metric, table in METRIC_DEFAULTS.items() for name in table}
    shared = {o.name for m in METRICS.values() for o in m.all_options
              if o.preset and (m.name, o.name) not in own}
    # log_base is no convention, and DEFAULTS has always listed it
    assert set(DEFAULTS) == shared | {"log_base"}
    for metric in METRICS.values():
        for option in metric.all_options:
            if (metric.name, option.name) in own:
                assert option.preset, option.name
                expected = METRIC_DEFAULTS[metric.name][option.name]
                assert _same_value(option.default, expected), option.name
            elif option.name in DEFAULTS:
                assert _same_value(option.default, DEFAULTS[option.name]), option.name
            if option.preset:
                assert option.keyword_default is None


def test_every_option_has_a_sample():
    names = {o.name for m in METRICS.values() for o in m.all_options}
    assert names <= set(SAMPLES), f"give SAMPLES a value of {sorted(names - set(SAMPLES))}"
    for metric in METRICS.values():
        for option in metric.all_options:
            assert not _same_value(SAMPLES[option.name], option.default), option.name


# --------------------------------------------------------------------------------------
# The test registries
# --------------------------------------------------------------------------------------
def test_test_registries_cover_every_metric():
    functions = {m.function_name for m in METRICS.values()}
    unranked = [m for m in METRICS.values() if "ties" not in m.options]
    invariance = {function for _, function, _, _ in test_invariance.REGISTRY}
    assert invariance == functions, "tests/test_invariance.py REGISTRY"
    # the functions to which test_invariance passes no `ties`: those without the option
    assert set(test_invariance.UNRANKED) == {m.function_name for m in unranked}
    for _, function, options, _ in test_invariance.REGISTRY:
        metric = METRICS[function.removesuffix("_score")]
        assert set(options) <= set(metric.options), function
    expected = {m.name: m.function_name for m in METRICS.values()}
    assert expected == _brute_force.METRIC_FUNCTIONS
    # the brute force's own lists, written from the formulas, agree with the registry: the
    # metrics whose value does not depend on the order (no `ties`), the correlations among
    # them, and how each metric's per-query values are aggregated
    assert set(_brute_force.UNRANKED_METRICS) == {m.name for m in unranked}
    assert set(_brute_force.CORRELATION_METRICS) <= {m.name for m in unranked}
    aggregations = {m.name: m.aggregation for m in METRICS.values() if m.aggregation != "mean"}
    assert aggregations == _brute_force.AGGREGATIONS


def test_brute_force_grids_cover_every_option():
    covered = defaultdict(set)
    for metric, options in test_brute_force.RANKED_GRID:  # run over every k and ties
        covered[metric] |= {*options, "k", "ties"}
    for metric, options in test_brute_force.CORRELATION_GRID:
        covered[metric] |= set(options)
    # test_r_precision_matches_brute_force: every threshold and ties
    covered["r_precision"] |= {"relevance_threshold", "ties"}
    for metric in METRICS.values():
        missing = set(metric.options) - covered[metric.name]
        assert not missing, f"tests/test_brute_force.py never sets {metric.name}'s {missing}"


# --------------------------------------------------------------------------------------
# Names, scorers and the documentation
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_names_aliases_and_option_aliases_parse(name):
    metric = METRICS[name]
    assert get_metric_names()[name] == metric.aliases
    for spelled in (name, name.upper(), *metric.aliases):
        assert parse_metric(spelled)[0] is metric
    for option in metric.all_options:
        for alias in (option.name, *option.aliases):
            value = 0.5 if option.name == "persistence" else SAMPLES[option.name]
            _, options = parse_metric(f"{name}({alias}={value})")
            assert list(options) == [option.name]
            assert _same_value(options[option.name], value)


def test_hits_is_the_count_and_hit_is_refused():
    # "hits" named the hit rate up to issue 12; it is now ranx's hits@k, a count. "hit",
    # which reads as either, is refused with both spellings to choose from.
    from sklearn_rank.metrics._names import AMBIGUOUS

    metric, options = parse_metric("Hits@10")
    assert metric is METRICS["hits"] and options == {"k": 10}
    assert "hits" not in METRICS["hit_rate"].aliases
    assert parse_metric("success@10")[0] is parse_metric("hit_rate@10")[0] is METRICS["hit_rate"]
    data = {"y_true": [1, 0, 1, 1, 0, 0], "y_score": [5, 4, 3, 2, 1, 0],
            "qid": [1, 1, 1, 2, 2, 2]}
    result = evaluate(**data, metrics=["hits@3", "hit_rate@3", "success@3"],
                      return_per_query=True)
    np.testing.assert_array_equal(result["hits@3"], [2.0, 1.0])
    np.testing.assert_array_equal(result["hit_rate@3"], [1.0, 1.0])
    assert "hits@10" in get_scorer_names()
    for name, spelled in [("hit", "'hit_rate' for the fraction"),
                          ("HIT@5", "'hit_rate@5' for the fraction"),
                          ("hit@5(rel=2)", "'hits@5(rel=2)' for the number")]:
        with pytest.raises(ValueError, match=r"'hit' could mean 'hit_rate' or 'hits'"):
            parse_metric(name)
        with pytest.raises(ValueError, match=spelled.replace("(", r"\(").replace(")", r"\)")):
            evaluate(**data, metrics=[name])
    # an ambiguous name is no metric's name, and each name it suggests is one
    names = {n for m in METRICS.values() for n in (m.name, *m.aliases)}
    assert not set(AMBIGUOUS) & names
    assert all(set(choices) <= names for choices in AMBIGUOUS.values())


def test_scorer_names_are_the_registry_names():
    names = set(get_scorer_names())
    for metric in METRICS.values():
        listed = {n for n in names if n.split("@")[0] == metric.name}
        if needs_grade_scale(metric.name):  # ERR: no grade scale fits every data set
            assert not listed
        elif "k" in metric.options:
            assert {metric.name, f"{metric.name}@10"} <= listed
        else:
            assert listed == {metric.name}
    assert all(parse_metric(name) for name in names)


@pytest.fixture
def docs_conf(monkeypatch):
    """docs/conf.py as a module, with what it sets in the process restored afterwards."""
    pytest.importorskip("sphinx")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("MPLBACKEND", os.environ.get("MPLBACKEND", "Agg"))
    spec = importlib.util.spec_from_file_location("sklearn_rank_docs_conf", DOCS / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_table_lists_every_metric_with_its_aliases_and_options(docs_conf):
    table = docs_conf.metric_names_table()
    rows = []
    for line in table.splitlines():
        if line.startswith("   * - "):
            rows.append([line[len("   * - "):]])
        elif line.startswith("     - ") or line == "     -":
            rows[-1].append(line[len("     - "):])
    header, *rows = rows
    assert header[0] == "name"
    assert len(rows) == len(METRICS)
    for metric, (name, aliases, options) in zip(METRICS.values(), rows):
        assert name.startswith(f"``{metric.name}``")
        assert ("(no ``@k``)" in name) == ("k" not in metric.options)
        assert aliases == ", ".join(f"``{alias}``" for alias in metric.aliases)
        for option in metric.option_specs:
            if option.name != "k":
                spelled = [f"``{option.name}``", *(f"``{a}``" for a in option.aliases)]
                assert all(s in options for s in spelled), (metric.name, option.name)

    # metrics.rst holds the place of the table, and no copy of it by hand
    page = (DOCS / "metrics.rst").read_text(encoding="utf-8")
    assert docs_conf.METRIC_NAMES_TABLE in page.splitlines()
    assert "list-table:: The metric names" not in page


def test_docs_lists_every_metric_function_under_its_family(docs_conf):
    lines = docs_conf.metric_function_lists().splitlines()
    listed, heading = {}, None
    for line, next_line in zip(lines, [*lines[1:], ""]):
        if next_line and set(next_line) == {"-"} and len(next_line) == len(line):
            heading = line
            listed[heading] = []
        elif line.startswith("   ") and not line.strip().startswith(":"):
            listed[heading].append(line.strip())
    assert listed == {
        title: [m.function_name for m in METRICS.values() if m.family == family]
        for family, title in FAMILIES.items()
    }
    # api.rst holds the place of the lists, and no list of metric functions by hand
    page = (DOCS / "api.rst").read_text(encoding="utf-8")
    assert docs_conf.METRIC_FUNCTIONS_LISTS in page.splitlines()
    by_hand = {line.strip() for line in page.splitlines()} & {
        m.function_name for m in METRICS.values()}
    assert not by_hand
    assert docs_conf.GENERATED_TABLES["api"] == (docs_conf.METRIC_FUNCTIONS_LISTS,
                                                 docs_conf.metric_function_lists)


def test_docs_table_is_valid_rst(docs_conf):
    from docutils import nodes
    from docutils.core import publish_doctree

    document = publish_doctree(docs_conf.metric_names_table(),
                               settings_overrides={"report_level": 5, "halt_level": 5})
    assert not list(document.findall(nodes.system_message))
    (table,) = document.findall(nodes.table)
    assert len(list(table.findall(nodes.row))) == len(METRICS) + 1


# --------------------------------------------------------------------------------------
# Canonical keys
# --------------------------------------------------------------------------------------
def test_key_examples():
    ndcg, rbp, mapk = METRICS["ndcg"], METRICS["rbp"], METRICS["map"]
    assert ndcg.key() == "ndcg"
    assert ndcg.key({"k": 10, "gain": "linear", "ties": "stable"}) == (
        "ndcg@10(gain=linear,ties=stable)")
    assert ndcg.key({"k": 10}, convention="trec_eval") == "ndcg@10(gain=linear,ties=stable)"
    # defaults are left out, however they are spelled
    assert ndcg.key({"log_base": 2, "gain": "exponential", "no_relevant": 0}) == "ndcg"
    # options in the order of the signature, no_relevant last, whatever the order given
    assert rbp.key({"no_relevant": "raise", "graded": True, "persistence": 0.5, "k": 5}) == (
        "rbp@5(persistence=0.5,graded=true,no_relevant=raise)")
    assert mapk.key(convention="lightgbm") == (
        "map(relevance_threshold=0.5000000000000001,ap_denominator=min_k,ties=stable,"
        "no_relevant=1.0)")


@pytest.mark.parametrize("value, text", [
    (2, "2"), (2.5, "2.5"), (1e16, "1.0e+16"), (1e-7, "1.0e-07"), (1.5e300, "1.5e+300"),
    (0.5000000000000001, "0.5000000000000001"), (np.float64(3.0), "3.0"), (np.int64(7), "7"),
])
def test_key_values_read_back_as_the_same_values(value, text):
    key = METRICS["map"].key({"relevance_threshold": value, "k": np.int64(5)})
    assert key == f"map@5(relevance_threshold={text})"
    _, options = parse_metric(key)
    assert options["k"] == 5
    assert _same_value(options["relevance_threshold"], value)
    assert type(options["relevance_threshold"]) is (float if isinstance(value, float) else int)


def test_key_refuses_what_the_metric_does_not_take():
    with pytest.raises(TypeError, match=r"got option\(s\) \['gain'\] that map does not take"):
        METRICS["map"].key({"gain": "linear"})
    with pytest.raises(InvalidParameterError, match="'gain' parameter"):
        METRICS["ndcg"].key({"gain": "cubic"})
    with pytest.raises(InvalidParameterError, match="'convention' parameter"):
        METRICS["ndcg"].key(convention="trec")


@pytest.mark.parametrize("convention", [None, *CONVENTION_NAMES])
@pytest.mark.parametrize("name", NAMES)
def test_key_names_the_same_numbers(name, convention):
    metric = METRICS[name]
    data = _data(weights=True)
    # named documents: the trec_eval preset ranks ties by name, and warns without names
    data["docno"] = np.array([f"d{i}" for i in range(len(data["y_true"]))])
    if convention == "catboost":  # its ERR reads grades as probabilities: at most 1
        data["y_true"] = np.minimum(data["y_true"], 1.0)
    option_sets = [{}, *({o.name: SAMPLES[o.name]} for o in metric.all_options),
                   {o.name: SAMPLES[o.name] for o in metric.all_options}]
    for options in option_sets:
        key = metric.key(options, convention)
        parsed, fixed = parse_metric(key)
        assert parsed is metric
        assert metric.key(fixed) == key
        assert fixed.get("k") == options.get("k")
        expected = evaluate(**data, metrics=[name], convention=convention, **options,
                            return_per_query=True)[name]
        got = evaluate(**data, metrics=[key], return_per_query=True)[key]
        np.testing.assert_array_equal(got, expected, err_msg=f"{key} for {options}")


# --------------------------------------------------------------------------------------
# Aggregation over queries
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1.0, 1e-310, 1e300])
@pytest.mark.parametrize("name", NAMES)
def test_aggregate_is_the_value_of_evaluate_bit_for_bit(name, scale):
    metric = METRICS[name]
    data = _data(n_queries=9, seed=3, weights=True)
    data["sample_weight"] *= scale
    data["y_true"][data["qid"] == 2] = 0  # a query without relevant documents: skipped
    checked = check_ranking_input(**data)
    weights = checked.query_weight
    if metric.aggregation == "sum":
        # a mean reads ratios of weights only, and query_weight is scaled when the weights
        # are extreme; a sum (the counts) reads the weights in the units of sample_weight
        weights = weights * checked.weight_unit
    for no_relevant in (0.0, np.nan):
        per_query = evaluate(**data, metrics=[name], no_relevant=no_relevant,
                             return_per_query=True)[name]
        mean = evaluate(**data, metrics=[name], no_relevant=no_relevant)[name]
        assert metric.aggregate(per_query, weights) == mean
        unweighted = {k: v for k, v in data.items() if k != "sample_weight"}
        assert metric.aggregate(per_query) == evaluate(**unweighted, metrics=[name],
                                                       no_relevant=no_relevant)[name]


def test_aggregate_of_skipped_queries_warns_and_is_nan():
    with pytest.warns(UndefinedMetricWarning,
                      match="every query was skipped.*whose documents all have the same grade"):
        assert math.isnan(METRICS["kendall_tau"].aggregate([np.nan, np.nan]))
    with pytest.raises(ValueError, match="weight of zero"):
        METRICS["ndcg"].aggregate([0.5, np.nan], [0.0, 1.0])


def test_geometric_mean_and_sum():
    gm = dataclasses.replace(METRICS["map"], name="gm_map", aggregation="geometric_mean")
    assert gm.aggregate([0.25, 1.0]) == pytest.approx(0.5, rel=1e-15)
    assert gm.aggregate([0.25, 1.0, np.nan]) == pytest.approx(0.5, rel=1e-15)
    assert gm.aggregate([0.25, 1.0], [3.0, 1.0]) == pytest.approx(0.25 ** 0.75, rel=1e-15)
    # a query at 0 counts as trec_eval's floor, not as a zero that wipes out the others
    assert gm.aggregate([0.0, 1.0]) == pytest.approx(math.sqrt(GEOMETRIC_MEAN_FLOOR), rel=1e-12)
    with pytest.warns(UndefinedMetricWarning, match="gm_map is undefined"):
        assert math.isnan(gm.aggregate([np.nan]))

    total = dataclasses.replace(METRICS["recall"], name="num_rel_ret", aggregation="sum")
    assert total.aggregate([1.0, 2.0, np.nan]) == 3.0
    assert total.aggregate([1.0, 2.0, np.nan], [2.0, 1.0, 5.0]) == 4.0


@pytest.mark.parametrize("fields, message", [
    ({"aggregation": "median"}, "aggregation must be one of"),
    ({"inputs": ("judgement",)}, "inputs must be among"),
    ({"option_specs": (Option("k", (None,)), Option("k", (None,)))}, "must be distinct"),
    ({"option_specs": (Option("no_relevant", (None,)),)}, "leave out no_relevant"),
])
def test_an_entry_that_cannot_be_right_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        Metric(**{"name": "x", "kernel": pq.ndcg, "option_specs": (), **fields})


def test_hits_of_a_query_without_relevant_documents_is_zero_under_every_preset():
    # A count is 0 there, not the 1 that LightGBM's and XGBoost's presets give nDCG and MAP.
    y_true, y_score, qid = [0, 0, 1, 0], [0.9, 0.8, 0.7, 0.1], [1, 1, 2, 2]
    for convention in (None, *CONVENTION_NAMES):
        per_query = metrics.hits_score(y_true, y_score, qid=qid, k=2, convention=convention,
                                       return_per_query=True)
        assert per_query.tolist() == [0.0, 1.0], convention
