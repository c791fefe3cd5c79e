"""A preset sets the metrics of its system, and no other.

``convention="trec_eval"`` once gave ERR, which trec_eval does not compute, trec_eval's linear
gain and row-order ties: a number that neither trec_eval nor gdeval computes, under a name that
claims trec_eval's. Each metric that a preset's system lacks must give sklearn-rank's default
values under that preset, and the command line must say which metrics the preset left alone.
"""

import json

import numpy as np
import pytest
from _cli import run_cli
from numpy.testing import assert_array_equal

from sklearn_rank.metrics import (
    CONVENTION_METRICS,
    CONVENTION_NAMES,
    CONVENTIONS,
    evaluate_per_query,
    get_metric_names,
)
from sklearn_rank.metrics._trec_names import TREC_MEASURES


def _case():
    """Graded labels 0-4, many tied scores, queries without a relevant document: the data
    on which gain, tie and no_relevant rules all show."""
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 8)
    y_true = rng.choice(5, size=len(qid), p=[0.5, 0.2, 0.15, 0.1, 0.05])
    y_true[qid < 2] = 0  # two queries without a relevant document
    y_score = rng.integers(0, 3, size=len(qid)).astype(float)  # ties in every query
    return y_true, y_score, qid


OUTSIDE = [(convention, metric) for convention in CONVENTION_NAMES
           for metric in sorted(get_metric_names())
           if metric not in CONVENTION_METRICS[convention]]


@pytest.mark.parametrize("convention, metric", OUTSIDE)
def test_a_metric_outside_the_system_keeps_the_defaults_under_its_preset(convention, metric):
    y_true, y_score, qid = _case()
    name = f"{metric}@5" if metric in ("err", "hits", "judged", "f1") else metric
    default = evaluate_per_query(y_true, y_score, qid=qid, metrics=[name])
    preset = evaluate_per_query(y_true, y_score, qid=qid, metrics=[name],
                                convention=convention)
    assert_array_equal(preset[name], default[name])


@pytest.mark.parametrize("convention, metric", [("trec_eval", "err"), ("lightgbm", "err"),
                                                ("sklearn", "err"), ("lightgbm", "hits"),
                                                ("xgboost", "hits")])
def test_the_metrics_that_presets_used_to_change(convention, metric):
    """These differed from the defaults under the preset: the case exposes the rules."""
    y_true, y_score, qid = _case()
    name = f"{metric}@5"
    default = evaluate_per_query(y_true, y_score, qid=qid, metrics=[name])
    # the preset's options, given by hand, still change the value: the test's data sees them
    table = CONVENTIONS[convention]
    options = {k: v for k, v in {**table["*"], **table.get(metric, {})}.items()
               if k in ("gain", "ties", "no_relevant")}
    if metric == "hits":
        options.pop("gain")
    by_hand = evaluate_per_query(y_true, y_score, qid=qid, metrics=[name], **options)
    assert not np.array_equal(by_hand[name], default[name])
    preset = evaluate_per_query(y_true, y_score, qid=qid, metrics=[name],
                                convention=convention)
    assert_array_equal(preset[name], default[name])


def test_a_metric_of_the_system_still_follows_its_preset():
    y_true, y_score, qid = _case()
    docno = np.array([f"d{i:03d}" for i in range(len(qid))])  # trec_eval's tie-break
    for convention, metric in [("trec_eval", "ndcg@5"), ("catboost", "ndcg@5"),
                               ("lightgbm", "map@5"), ("xgboost", "p@5")]:
        default = evaluate_per_query(y_true, y_score, qid=qid, metrics=[metric])
        preset = evaluate_per_query(y_true, y_score, qid=qid, metrics=[metric], docno=docno,
                                    convention=convention)
        assert not np.array_equal(preset[metric], default[metric]), (convention, metric)


def test_trec_eval_metrics_are_those_of_its_measures():
    assert CONVENTION_METRICS["trec_eval"] == {m.metric for m in TREC_MEASURES if m.metric}


def test_every_preset_lists_its_metrics_and_overrides_none_it_lacks():
    assert set(CONVENTION_METRICS) == set(CONVENTIONS)
    known = set(get_metric_names())
    for convention, table in CONVENTIONS.items():
        assert CONVENTION_METRICS[convention] <= known, convention
        assert set(table) - {"*"} <= CONVENTION_METRICS[convention], convention


def test_key_of_a_metric_outside_the_system_is_its_default_key():
    from sklearn_rank.metrics import parse_metric

    err, options = parse_metric("err@10")
    assert err.key(options, convention="trec_eval") == "err@10"
    assert err.key(options, convention="catboost") == (
        "err@10(gain=linear,max_grade=1.0,ties=pessimistic)")


@pytest.fixture
def table(tmp_path):
    y_true, y_score, qid = _case()
    path = tmp_path / "scores.csv"
    lines = ["qid,label,score", *(f"{q},{y},{s}" for q, y, s in zip(qid, y_true, y_score))]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_evaluate_header_names_the_metrics_a_preset_leaves_alone(capsys, table):
    code, out, err = run_cli(capsys, "evaluate", "--table", table, "--metrics", "ndcg@10",
                             "err@10", "--convention", "trec_eval")
    assert code == 0, err
    header = " ".join(out.split("\n\n")[0].split())
    assert ("convention 'trec_eval' (err@10 is not a measure of trec_eval: the preset leaves "
            "it at sklearn-rank's default conventions)") in header
    code, default, _ = run_cli(capsys, "evaluate", "--table", table, "--metrics", "ndcg@10",
                               "err@10")
    assert out.splitlines()[-1].split()[2] == default.splitlines()[-1].split()[2]  # err@10

    code, out, _ = run_cli(capsys, "evaluate", "--table", table, "--metrics", "ndcg@10",
                           "err@10", "hits@3", "--convention", "lightgbm", "--format", "json")
    assert json.loads(out)["outside_convention"] == ["err@10", "hits@3"]
    code, out, _ = run_cli(capsys, "evaluate", "--table", table, "--metrics", "ndcg@10",
                           "--convention", "lightgbm")
    assert "convention 'lightgbm'." in " ".join(out.split())
