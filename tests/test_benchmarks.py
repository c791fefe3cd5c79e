"""The benchmark code runs: the asv suite's methods, and the comparison script end to end.

Timings are not checked here (they live in the benchmarks); what is checked is that the
benchmarks still call the package correctly and that the comparison script's peers agree
with sklearn-rank's values, which the script verifies itself before printing any ratio.
"""

import gc
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ASV_BENCH = Path(__file__).parents[1] / "asv_bench"


@pytest.fixture
def asv_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ASV_BENCH))
    # compare_peers.py collects the garbage before each call it times, some 40 times a run:
    # 0.2-0.4 s each over the heap of a test session, scanned again every time. Frozen, the
    # heap is left out of those collections (the timings are not what is checked here).
    gc.freeze()
    yield
    gc.unfreeze()
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
    assert {"time_argsort_floor", "time_ndcg_at_10", "time_evaluate_four",
            "peakmem_argsort_floor", "peakmem_ndcg_at_10", "peakmem_evaluate_four",
            "track_peak_argsort_floor", "track_peak_ndcg_at_10",
            "track_peak_evaluate_four"} <= set(dir(metrics.TargetLayoutsSuite))
    # the target layouts (issue 21): 1M rows at 100 and at 10 rows per query
    assert metrics.TargetLayoutsSuite.params == ([1_000_000], [100, 10])
    assert metrics.TARGET_METRICS == ("ndcg@10", "err@10", "map", "mrr@10")
    for suite_class, small in [*zip(suites, [None, None]), (metrics.TargetLayoutsSuite, 10_000)]:
        sizes, *others = suite_class.params
        for params in itertools.product([small or min(sizes)], *others):
            suite = suite_class()
            suite.setup(*params)
            for method in dir(suite):
                if method.startswith(("time_", "peakmem_")):
                    getattr(suite, method)(*params)
                elif method.startswith("track_"):
                    # the peak memory beyond the inputs, in arrays of n: the argsort's output
                    # at least (one array of n)
                    assert getattr(suite, method)(*params) >= 1.0, method


def test_benchmark_data_is_as_documented(asv_path):
    import numpy as np
    from benchmarks.common import make_benchmark_data

    y, s, q = make_benchmark_data(5000, 200, seed=1)
    assert len(np.unique(q)) == 200
    assert set(np.unique(y)) <= {0, 1, 2, 3, 4}
    assert len(np.unique(s)) == len(s)  # distinct scores: no ties
    assert np.array_equal(s.astype(np.float32), s)  # exact in float32 (XGBoost)
    assert not np.all(q[1:] >= q[:-1])  # rows not grouped


def test_segment_sort_suite_runs_and_its_capped_prefix_sorts_exactly(asv_path):
    """The engine suite (issue 10's asv case for the short-prefix cliff) runs at the small
    size, and every prefix it times gives lexsort's order."""
    import itertools

    import numpy as np
    from benchmarks.engine import LexsortSuite, SegmentSortSuite

    from sklearn_rank.utils._segments import segment_argsort

    sizes, *others = SegmentSortSuite.params
    assert 17 in SegmentSortSuite.params[1]  # the prefix that 1e8 rows x 1e6 queries leave
    for params in itertools.product([min(sizes)], *others):
        suite = SegmentSortSuite()
        suite.setup(*params)
        for method in dir(suite):
            if method.startswith(("time_", "peakmem_")):
                getattr(suite, method)(*params)
        order, _ = segment_argsort(suite.y_score, suite.codes, suite.n_queries,
                                   prefix_bits=params[1])
        np.testing.assert_array_equal(order, np.lexsort((-suite.y_score, suite.codes)))
    for scores in LexsortSuite.params[1]:
        baseline = LexsortSuite()
        baseline.setup(min(sizes), scores)
        baseline.time_lexsort(min(sizes), scores)


@pytest.mark.slow  # every peer, both boosters: about 20 s of CPU
def test_compare_peers_checks_every_peer_value(asv_path, capsys):
    compare_peers = load_compare_peers()
    peers = ["sklearn-rank", "argsort", "naive", "LightGBM", "XGBoost", "pytrec_eval"]
    # --suite all (the default): both suites, the trec_eval one on small files as in
    # test_compare_peers_trec_eval_suite_checks_every_peer (its default is a 1M-line run)
    status = compare_peers.main(["--n-rows", "3000", "--n-queries", "120", "--repeat", "1",
                                 "--trec-lines", "3000", "--peers", *peers])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "MISMATCH" not in out
    assert "Ratio to one np.argsort(y_score):" in out
    assert "evaluate(all four)" in out
    checked = [line for line in out.splitlines() if line.rstrip().endswith("  ok")]
    assert len(checked) >= 3  # naive and LightGBM at least, whatever else is installed
    assert "The engine's targets: 3,000 rows" in out


def test_compare_peers_prints_the_target_layouts(asv_path, capsys):
    """The engine's two target layouts, as ratios to np.argsort of the same scores, with the
    peak memory in arrays of n (the fast lane's run of the arrays suite: no boosters)."""
    compare_peers = load_compare_peers()
    status = compare_peers.main(["--suite", "arrays", "--n-rows", "3000", "--n-queries", "120",
                                 "--repeat", "1", "--peers", "sklearn-rank", "argsort", "naive"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "The engine's targets: 3,000 rows" in out
    layouts = [line for line in out.splitlines() if " rows per query (" in line]
    assert [line.split(" (")[0] for line in layouts] == ["100 rows per query",
                                                        "10 rows per query"]
    for line in layouts:
        assert re.search(r"\d\.\d+ s +\d+\.\d\dx \(<=0\.\d\) +\d+\.\d\dx \(<=\d\.\d\)", line), line
        assert re.search(r"argsort \d+\.\d, nDCG@10 \d+\.\d, 4 metrics \d+\.\d$", line), line


def test_profile_engine_prints_every_stage_at_both_layouts(asv_path, capsys):
    """The engine's stage profile: each stage, and the end-to-end calls, as ratios to
    np.argsort at the two target layouts."""
    spec = importlib.util.spec_from_file_location("profile_engine",
                                                  ASV_BENCH / "profile_engine.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--n-rows", "3000", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "100 rows per query" in out and "10 rows per query" in out
    for stage in ("check", "grouping", "ranking", "grade counts", "kernel ndcg@10",
                  "kernel err@10", "kernel map", "kernel mrr@10", "of which np.sort",
                  "ndcg_score(k=10), end to end", "evaluate, four metrics, end to end"):
        (line,) = [line for line in out.splitlines() if line.startswith(stage + " ")]
        assert len(re.findall(r"\d+\.\d\dx +\d+\.\d ms", line)) == 2, line
    (line,) = [line for line in out.splitlines() if line.startswith("np.argsort")]
    assert line.count("1.00x") == 2, line


@pytest.mark.slow  # two processes, and numba compiling ranx's kernels
def test_compare_peers_trec_eval_suite_checks_every_peer(asv_path, capsys):
    """The trec_eval suite end to end on small files: sklearn-rank against pytrec_eval,
    ranx and ir_measures, parse + evaluate and evaluate alone, every peer's means checked."""
    pytest.importorskip("pytrec_eval")
    pytest.importorskip("ranx")
    pytest.importorskip("ir_measures")
    compare_peers = load_compare_peers()
    status = compare_peers.main(["--suite", "trec_eval", "--trec-lines", "3000",
                                 "--n-queries", "60", "--repeat", "1",
                                 "--trec-eval", "make=/nonexistent/trec_eval"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "MISMATCH" not in out
    # the command with and without -q, as processes; no trec_eval binary at that path
    assert re.search(r"\n    sklearn-rank trec_eval +\d+\.\d\d s +\d+\.\d\d s\n", out), out
    assert re.search(r"\n    pytrec_eval script +\d+\.\d\dx +- +\(\d+\.\d\d s\)\n", out), out
    assert ("  skipped: trec_eval make (no executable file at '/nonexistent/trec_eval')"
            in out)
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line.startswith("    ") and line.split()[0] in (
                "sklearn-rank", "pytrec_eval", "ranx", "ir_measures")}
    assert list(rows) == ["sklearn-rank", "pytrec_eval", "ranx", "ir_measures"]
    assert int(rows["sklearn-rank"][0]) > 90 and rows["ranx"][0] == "43"
    assert rows["ir_measures"][0] == "54"
    for peer, row in rows.items():  # measures, parse + evaluate, ratio, evaluate, ratio
        assert re.fullmatch(r"\d+ \d+\.\d\d s \d+\.\dx \d+\.\d\d s \d+\.\dx", " ".join(row)), peer
    assert "  values: 43 means of ranx checked against sklearn-rank's: ok" in out
    assert "  values: 54 means of ir_measures checked against sklearn-rank's: ok" in out


def test_compare_peers_finds_trec_eval_binaries(tmp_path, monkeypatch):
    """NIST's trec_eval binaries come from --trec-eval [LABEL=]PATH, else from TREC_EVAL;
    a path without an executable file, or no binary at all, is skipped with a message."""
    compare_peers = load_compare_peers()
    built = tmp_path / "O2" / "trec_eval"
    built.parent.mkdir()
    built.write_text("#!/bin/sh\nexit 0\n")  # an executable file: what is checked
    built.chmod(0o755)
    not_executable = tmp_path / "trec_eval.c"
    not_executable.write_text("int main(void) { return 0; }\n")
    monkeypatch.delenv("TREC_EVAL", raising=False)
    binaries, skipped = compare_peers.trec_eval_binaries(None)
    assert binaries == {} and "no binary: give --trec-eval" in skipped[0]
    binaries, skipped = compare_peers.trec_eval_binaries(
        [f"make={built}", str(built), str(not_executable)])
    assert binaries == {"make": str(built), "O2": str(built)}
    assert skipped == [f"trec_eval {tmp_path.name} (no executable file at "
                       f"{str(not_executable)!r})"]
    monkeypatch.setenv("TREC_EVAL", os.pathsep.join([str(built), str(tmp_path / "none")]))
    binaries, skipped = compare_peers.trec_eval_binaries(None)
    assert binaries == {"O2": str(built)} and len(skipped) == 1


@pytest.mark.slow
def test_readme_asv_command_runs_on_a_fresh_machine(tmp_path):
    """The README's asv command line, on a machine asv has never seen (no ~/.asv-machine.json).

    Each ``asv`` step runs as written, except that ``asv run`` gets ``--quick --dry-run`` and
    one benchmark, which checks the command line and the configuration, not the timings. The
    suites run from a copy of ``asv_bench/``, so that asv writes nothing into the clone.
    """
    pytest.importorskip("asv")
    readme = (ASV_BENCH.parent / "README.md").read_text(encoding="utf-8")
    command = re.search(r"`(cd asv_bench && asv [^`]*)`", readme)[1]
    cd, *steps = command.split(" && ")
    assert cd == "cd asv_bench"
    folder = tmp_path / "asv_bench"
    shutil.copytree(ASV_BENCH, folder, ignore=shutil.ignore_patterns(
        "__pycache__", "env", "results", "html"))
    home = tmp_path / "home"  # where asv keeps the machine's description
    home.mkdir()
    for step in steps:
        program, *args = shlex.split(step)
        assert program == "asv", step
        if args[0] == "run":
            args += ["--quick", "--dry-run", "--bench", "time_argsort_floor"]
        run = subprocess.run([sys.executable, "-m", "asv", *args], cwd=folder,
                             env={**os.environ, "HOME": str(home)}, capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 0, f"{step}:\n{run.stdout}\n{run.stderr}"
    assert "metrics.MetricsSuite.time_argsort_floor" in run.stdout
    assert "failed" not in run.stdout
