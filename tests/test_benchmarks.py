"""The benchmark code runs: the asv suite's methods, and the comparison script end to end.

Timings are not checked here (they live in the benchmarks); what is checked is that the
benchmarks still call the package correctly and that the comparison script's peers agree
with sklearn-rank's values, which the script verifies itself before printing any ratio.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

ASV_BENCH = Path(__file__).parents[1] / "asv_bench"


@pytest.fixture
def asv_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ASV_BENCH))
    yield
    for name in [m for m in sys.modules if m == "benchmarks" or m.startswith("benchmarks.")]:
        del sys.modules[name]


def load_compare_peers():
    spec = importlib.util.spec_from_file_location("compare_peers", ASV_BENCH / "compare_peers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_asv_suites_run_on_the_small_size(asv_path):
    import itertools

    from benchmarks import metrics

    suites = [metrics.MetricsSuite, metrics.TiedScoresSuite]
    assert {"time_argsort_floor", "time_ndcg_at_10", "time_evaluate_four"} <= set(
        dir(metrics.MetricsSuite))
    for suite_class in suites:
        sizes, *others = suite_class.params
        for params in itertools.product([min(sizes)], *others):
            suite = suite_class()
            suite.setup(*params)
            for method in dir(suite):
                if method.startswith(("time_", "peakmem_")):
                    getattr(suite, method)(*params)


def test_benchmark_data_is_as_documented(asv_path):
    import numpy as np
    from benchmarks.common import make_benchmark_data

    y, s, q = make_benchmark_data(5000, 200, seed=1)
    assert len(np.unique(q)) == 200
    assert set(np.unique(y)) <= {0, 1, 2, 3, 4}
    assert len(np.unique(s)) == len(s)  # distinct scores: no ties
    assert np.array_equal(s.astype(np.float32), s)  # exact in float32 (XGBoost)
    assert not np.all(q[1:] >= q[:-1])  # rows not grouped


def test_compare_peers_checks_every_peer_value(asv_path, capsys):
    compare_peers = load_compare_peers()
    peers = ["sklearn-rank", "argsort", "naive", "LightGBM", "XGBoost", "pytrec_eval"]
    status = compare_peers.main(["--n-rows", "3000", "--n-queries", "120", "--repeat", "1",
                                 "--peers", *peers])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "MISMATCH" not in out
    assert "Ratio to one np.argsort(y_score):" in out
    assert "evaluate(all four)" in out
    checked = [line for line in out.splitlines() if line.rstrip().endswith("  ok")]
    assert len(checked) >= 3  # naive and LightGBM at least, whatever else is installed
