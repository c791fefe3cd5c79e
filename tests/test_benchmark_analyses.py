"""The analyses of a benchmark run across seeds and data sets (issue 22, items 2, 3, 5, 6):
from :class:`~sklearn_rank.benchmark.BenchmarkResult` and from the stored run alike, paired
by query and seed, and in the report and its tables."""

import re

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats as scipy_stats
from sklearn.linear_model import LinearRegression, Ridge

from sklearn_rank._cli import main
from sklearn_rank.benchmark import load_store, report_tables, run_benchmark, write_report
from sklearn_rank.datasets import make_ranking
from sklearn_rank.stats import compare_datasets, query_set_size, seed_summary

MODELS = {"ols": LinearRegression(), "ridge": Ridge(alpha=30.0), "stiff": Ridge(alpha=3000.0)}
SEEDS = (3, 7)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A stored run of 3 models x 3 data sets x 2 seeds x 3 folds, and its result."""
    store = tmp_path_factory.mktemp("analyses") / "results.sqlite"
    data = {"easy": make_ranking(24, noise=0.1, random_state=0),
            "mid": make_ranking(24, noise=1.0, random_state=1),
            "hard": make_ranking(24, noise=2.5, random_state=2)}
    result = run_benchmark(MODELS, data, metrics=["ndcg@5", "map"], n_splits=3,
                           seeds=list(SEEDS), store=store)
    return {"result": result, "stored": load_store(store), "store": store}


def by_hand(result, dataset, model, metric):
    """``(n_queries, n_seeds)`` values of a model, rows sorted by query id."""
    columns = []
    for seed in SEEDS:
        values = result.folds[dataset, seed][model]["per_query"]
        order = np.argsort(values["qid"], kind="stable")
        columns.append(np.asarray(values[metric])[order])
    return np.column_stack(columns)


def test_seed_summary_from_python_and_from_the_store_agree(run):
    python, stored = run["result"].seed_summary(), run["stored"].seed_summary()
    assert python.datasets == stored.datasets == ["easy", "mid", "hard"]
    assert len(python.rows) == len(stored.rows) == 3 * 3 * 2
    for a, b in zip(python.rows, stored.rows):
        assert (a.dataset, a.model, a.metric) == (b.dataset, b.model, b.metric)
        assert a.mean == pytest.approx(b.mean) and a.seed_std == pytest.approx(b.seed_std)
        assert tuple(a.confidence_interval) == pytest.approx(tuple(b.confidence_interval))
    # the numbers themselves: the mean of the per-seed means and their spread
    values = by_hand(run["result"], "mid", "ridge", "map")
    row = next(r for r in python.rows if (r.dataset, r.model, r.metric) == ("mid", "ridge",
                                                                             "map"))
    assert row.mean == pytest.approx(values.mean(axis=0).mean())
    assert row.seed_std == pytest.approx(np.std(values.mean(axis=0), ddof=1))


@pytest.mark.parametrize("posthoc", ["wilcoxon", "sign", "nemenyi"])
def test_compare_datasets_from_python_and_from_the_store_agree(run, posthoc):
    python = run["result"].compare_datasets("ndcg@5", posthoc=posthoc, delta=0.02)
    stored = run["stored"].compare_datasets("ndcg@5", posthoc=posthoc, delta=0.02)
    assert python.datasets == stored.datasets == ["easy", "mid", "hard"]
    assert python.models == stored.models == list(MODELS)
    assert_allclose(python.scores, stored.scores)
    assert_allclose(python.pvalues, stored.pvalues)
    assert python.groups == stored.groups and str(python) == str(stored)
    # each data set's score is each model's mean over queries and seeds
    for i, dataset in enumerate(python.datasets):
        for j, model in enumerate(python.models):
            expected = by_hand(run["result"], dataset, model, "ndcg@5").mean()
            assert python.scores[i, j] == pytest.approx(expected)
    # the same as stats.compare_datasets on those scores
    reference = compare_datasets({d: dict(zip(python.models, row))
                                  for d, row in zip(python.datasets, python.scores)},
                                 posthoc=posthoc)
    assert_allclose(python.average_ranks, reference.average_ranks)
    assert python.groups == reference.groups


def test_compare_datasets_power_lines_are_the_best_against_the_runner_up(run):
    result = run["result"].compare_datasets("map", delta=0.02)
    best, runner_up = (result.models[i] for i in np.argsort(result.average_ranks,
                                                            kind="stable")[:2])
    assert set(result.power) == {"easy", "mid", "hard"}
    for dataset, size in result.power.items():
        differences = (by_hand(run["result"], dataset, best, "map")
                       - by_hand(run["result"], dataset, runner_up, "map")).mean(axis=1)
        expected = query_set_size(differences, delta=0.02)
        assert size.n_needed == expected.n_needed and size.n_queries == 24
        assert size.minimum_detectable_difference == pytest.approx(
            expected.minimum_detectable_difference)
        assert f"Queries, {dataset}: {size.summary()}" in result.to_markdown()
    assert run["stored"].query_set_size(best, runner_up, dataset="mid", metric="map",
                                        delta=0.02) == result.power["mid"]


def test_paired_tests_pair_the_same_query_under_the_same_seed(run):
    """Items 2 and 3: one unit per query, its difference the mean over the seeds of the
    differences under the same seed; never n_queries * n_seeds units."""
    result = run["result"]
    a, b = by_hand(result, "hard", "ols", "ndcg@5"), by_hand(result, "hard", "stiff",
                                                             "ndcg@5")
    differences = (a - b).mean(axis=1)
    reference = scipy_stats.ttest_1samp(differences, 0.0)
    for test in (result.paired_test("ols", "stiff", dataset="hard", metric="ndcg@5"),
                 run["stored"].paired_test("ols", "stiff", dataset="hard", metric="ndcg@5")):
        assert test.n == 24
        assert test.mean_difference == pytest.approx(differences.mean())
        assert test.pvalue == pytest.approx(reference.pvalue)
    # BenchmarkResult.compare, the tables of cv and the report, pair them the same way
    table = result.compare("hard", metric="ndcg@5", baseline="stiff")
    comparison = next(c for c in table.comparisons if c.system_a == "ols")
    assert comparison.result.n == 24
    assert comparison.result.mean_difference == pytest.approx(differences.mean())
    assert comparison.result.pvalue == pytest.approx(reference.pvalue)
    # pooling (query, seed) as 48 units would give another, smaller p-value here
    pooled = scipy_stats.ttest_1samp((a - b).ravel(), 0.0)
    assert pooled.pvalue != pytest.approx(reference.pvalue)


def test_summary_refuses_nan_per_query_values_instead_of_skipping_them():
    """A metric with no_relevant=nan gives NaN to a query without relevant documents; the
    summary's mean skipped those queries (np.nanmean) while the comparison refused them:
    two numbers for one run. Now the summary refuses them too, with the fix."""
    X, y, qid = make_ranking(30, random_state=0)
    y = np.where(qid == qid[0], 0, y)  # a query without relevant documents
    result = run_benchmark({"ols": LinearRegression(), "ridge": Ridge()}, (X, y, qid),
                           metrics=["ndcg@10(no_relevant=nan)"], n_splits=3, n_repeats=2)
    with pytest.raises(ValueError, match="NaN.*no_relevant=0.0"):
        result.summary()
    with pytest.raises(ValueError, match="NaN.*no_relevant=0.0"):
        result.compare()


def test_summary_keeps_its_numbers(run):
    rows = run["result"].summary()
    assert [(r["dataset"], r["model"], r["metric"]) for r in rows[:3]] == [
        ("easy", "ols", "ndcg@5"), ("easy", "ols", "map"), ("easy", "ridge", "ndcg@5")]
    for r in rows:
        values = by_hand(run["result"], r["dataset"], r["model"], r["metric"])
        assert r["mean"] == pytest.approx(np.mean(values.mean(axis=0)))
        assert r["seed_std"] == pytest.approx(np.std(values.mean(axis=0), ddof=1))


def test_report_section_across_data_sets(run, tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "report.html"
    write_report(run["store"], page)
    text = page.read_text(encoding="utf-8")
    assert "<h3>Across the 3 data sets</h3>" in text
    for metric in ("ndcg@5", "map"):
        result = run["stored"].compare_datasets(metric, delta=0.01)
        start = text.index(f"<h4>{metric}</h4>")
        section = text[start:text.index("</section>", start)]
        # the groups the tests give are the ones the page lists, beside its diagram
        groups = "; ".join("{" + ", ".join(g) + "}" for g in result.groups)
        assert (f"Not told apart: {groups}." in section) == bool(result.groups)
        assert "cannot reach alpha = 0.05" in section  # 3 data sets: too few for Wilcoxon
        assert section.count("Queries, ") == 3
        assert re.search(r'<img alt="Critical difference diagram[^"]*" '
                         r'src="data:image/png;base64,[A-Za-z0-9+/=]{1000,}">', section)
    # the seed spread reads the same summary
    summary = run["stored"].seed_summary()
    row = next(r for r in summary.rows if (r.dataset, r.model, r.metric) == ("hard", "ridge",
                                                                             "map"))
    hard = text[text.index("Results on data set hard"):]
    assert f"{row.seed_std:.4f}" in hard[:hard.index("</table>")]


def test_report_has_no_section_across_one_data_set(tmp_path):
    pytest.importorskip("matplotlib")
    store = tmp_path / "one.sqlite"
    run_benchmark(MODELS, make_ranking(24, random_state=0), metrics=["ndcg@5"], n_splits=3,
                  n_repeats=2, store=store)
    write_report(store, tmp_path / "report.html")
    assert "Across the" not in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "spread over seeds" in report_tables(store)
    assert "across data sets" not in report_tables(store)


def test_report_tables_latex(run):
    latex = report_tables(run["store"], format="latex")
    result = run["stored"].compare_datasets("ndcg@5", delta=0.01)
    assert latex.count(r"\begin{table}") == 2 and latex.count(r"\toprule") == 3
    assert latex.count(r"\begin{tabular}") == latex.count(r"\end{tabular}") == 3
    assert latex.count(r"\midrule") == 1 + 2 * 2 and latex.count(r"\bottomrule") == 3
    table = latex[latex.index(r"\caption{ndcg@5"):]
    table = table[:table.index(r"\end{table}")]
    # the best score of each data set, and the best average rank, in bold
    for i, dataset in enumerate(result.datasets):
        line = next(x for x in table.splitlines() if x.startswith(f"{dataset} & "))
        best = result.scores[i].argmax()
        cells = line.removesuffix(r" \\").split(" & ")[1:]
        assert cells[best].startswith(r"\textbf{") and sum("textbf" in c for c in cells) == 1
    assert r"95\% CI (queries)" in latex and r"\{" in latex  # escaped
    assert "% Run 1: sklearn_rank.benchmark.run_benchmark, ndcg@5 across data sets" in latex


def test_report_tables_escape_names_in_latex(tmp_path):
    store = tmp_path / "names.sqlite"
    data = {"web_30k & co": make_ranking(20, random_state=0),
            "100%": make_ranking(20, noise=2.0, random_state=1)}
    run_benchmark({"lambda_mart": LinearRegression(), "ridge#2": Ridge(alpha=100.0)}, data,
                  metrics=["ndcg@5"], n_splits=2, store=store)
    latex = report_tables(store, format="latex")
    assert r"web\_30k \& co" in latex and r"100\%" in latex
    assert r"lambda\_mart" in latex and r"ridge\#2" in latex
    assert "web_30k &" not in latex


@pytest.mark.parametrize("suffix, first", [(".tex", "% Run 1"), (".md", "## Run 1"),
                                           (".txt", "Run 1")])
def test_cli_report_writes_the_tables(run, tmp_path, capsys, suffix, first):
    output = tmp_path / f"tables{suffix}"
    assert main(["report", str(run["store"]), "--output", str(output)]) == 0
    text = output.read_text(encoding="utf-8")
    fmt = {".tex": "latex", ".md": "markdown", ".txt": "text"}[suffix]
    assert text == report_tables(run["store"], format=fmt)
    assert text.startswith(first)
    assert "tables" in capsys.readouterr().out


def test_cli_report_tables_of_a_run_of_one_data_set_and_seed(tmp_path, capsys):
    store = tmp_path / "plain.sqlite"
    run_benchmark(MODELS, make_ranking(20, random_state=0), metrics=["ndcg@5"], n_splits=2,
                  store=store)
    assert main(["report", str(store), "--output", str(tmp_path / "t.tex")]) == 1
    err = capsys.readouterr().err
    assert "holds no finished cv run of several data sets or seeds" in err
    assert not (tmp_path / "t.tex").exists()


def test_report_tables_says_which_argument_failed(tmp_path):
    """A store without a run of several data sets or seeds: the error says in an attribute
    that the runs asked for are at fault; the command line reads it, not the message."""
    store = tmp_path / "plain.sqlite"
    run_benchmark(MODELS, make_ranking(20, random_state=0), metrics=["ndcg@5"], n_splits=2,
                  store=store)
    with pytest.raises(ValueError, match="holds no finished cv run") as info:
        report_tables(store, runs=[1])
    assert info.value.parameter == "runs"


def test_seed_summary_of_a_run_agrees_with_stats(run):
    """The run's summary is stats.seed_summary of its per-query values, nothing else."""
    result = run["result"]
    values = {(d, m, s): result.folds[d, s][m]["per_query"]
              for d in result.datasets for m in result.models for s in result.seeds}
    reference = seed_summary(values, metric=["ndcg@5", "map"])
    mine = result.seed_summary()
    for a, b in zip(mine.rows, reference.rows):
        assert a == b
    assert_array_equal(mine.values["hard"]["map"], reference.values["hard"]["map"])


@pytest.mark.parametrize("output", ["report.html", "tables.tex"])
def test_cli_report_of_a_run_with_nan_values_is_an_error_not_a_traceback(tmp_path, capsys,
                                                                        output):
    """A run of a metric with no_relevant=nan: the statistics refuse its NaN values, and the
    report says so in one line (it raised a traceback)."""
    pytest.importorskip("matplotlib")
    X, y, qid = make_ranking(30, random_state=0)
    y = np.where(qid == qid[0], 0, y)
    store = tmp_path / "nan.sqlite"
    run_benchmark({"ols": LinearRegression(), "ridge": Ridge()}, {"a": (X, y, qid),
                                                                   "b": (X, y, qid)},
                  metrics=["ndcg@10(no_relevant=nan)"], n_splits=3, n_repeats=2, store=store)
    assert main(["report", str(store), "--output", str(tmp_path / output)]) == 1
    err = capsys.readouterr().err
    assert "cannot report its runs" in err and "no_relevant=0.0" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_cv_of_several_seeds_with_nan_values_names_the_system(tmp_path, capsys):
    """The seed average keeps a NaN for the comparison to refuse, naming the system (a
    refusal inside the seed average would be a traceback)."""
    code = main(["cv", "--n-queries", "60", "--n-splits", "2", "--repeats", "2", "--metrics",
                 "ndcg@10(no_relevant=nan)", "--model",
                 "linear=sklearn.linear_model:LinearRegression", "--model",
                 "ridge=sklearn.linear_model:Ridge", "-q"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "cannot compare the models" in err and "system 'linear'" in err


def test_write_report_writes_the_page_whole_or_not_at_all(tmp_path):
    """The page goes through a temporary file renamed into place, as the command line writes
    its outputs: a failed write leaves the previous page as it was, a new one keeps the
    permissions of the page it replaces, and no temporary file is left behind."""
    import os

    store = tmp_path / "plain.sqlite"
    run_benchmark(MODELS, make_ranking(20, random_state=0), metrics=["ndcg@5"], n_splits=2,
                  store=store)
    page = tmp_path / "report.html"
    page.write_text("previous")
    os.chmod(page, 0o640)

    def broken(store, run):  # a section that fails once the page is being made
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        write_report(store, page, sections=[broken])
    assert page.read_text() == "previous"
    assert [run["id"] for run in write_report(store, page)] == [1]
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert os.stat(page).st_mode & 0o777 == 0o640  # the replaced page's permissions
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]
    with pytest.raises(ValueError, match="would replace the stored runs"):
        write_report(store, f"{store}-wal")
    assert load_store(store, 1).metrics == ["ndcg@5"]


def test_report_says_the_metrics_a_convention_leaves_at_the_defaults(tmp_path):
    """The provenance's convention row names the metrics that the preset's system lacks
    (metrics.outside_convention): 'trec_eval' over err@5 would claim trec_eval's number."""
    from sklearn_rank.metrics import outside_convention

    store = tmp_path / "trec.sqlite"
    run_benchmark(MODELS, make_ranking(20, random_state=0), metrics=["ndcg@5", "err@5"],
                  n_splits=2, convention="trec_eval", store=store)
    page = tmp_path / "report.html"
    write_report(store, page)
    text = page.read_text(encoding="utf-8")
    assert "trec_eval (err@5 is not a measure of trec_eval: the preset leaves it at" in text
    assert outside_convention(["ERR@5", "ndcg@5", "map", "err@10"], "trec_eval") == [
        "ERR@5", "err@10"]  # the names as given, in their order
    assert outside_convention(["err@5"], "catboost") == []
    with pytest.raises(ValueError, match="Unknown convention 'trec'"):
        outside_convention(["ndcg@5"], "trec")
