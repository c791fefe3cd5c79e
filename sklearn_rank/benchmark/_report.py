"""One self-contained HTML page of the runs of a results store (``sklearn-rank report``).

For every finished run of ``cv`` (or :func:`~sklearn_rank.benchmark.run_benchmark`): per
data set, the comparison table of
:func:`sklearn_rank.stats.compare` (means, bootstrap confidence intervals, Holm-corrected
paired tests against the baseline), the same on the held-out test set, the metric at each
cut-off k when the run has several, and the per-query differences of each model with the
baseline. For every finished run of ``tune``: the search curve (the mean test score of each
candidate, in the order tried, with the best so far), the top candidates and their paired
comparison with the best. For every run, its provenance. An unfinished run is listed with
its count of units and how to complete it, never shown as results.

The page holds everything: figures are PNG images in ``data:`` URIs, styles are inline, it
has no script, and its Content-Security-Policy forbids any request (``default-src 'none'``).
"""

import base64
import html
import io
import json
import os

from ..utils._figures import figure_label, literal_text
from ..utils._paths import same_file, write_atomic
from ._values import power_pair

__all__ = ["RUN_SECTIONS", "figure_label", "literal_text", "report_html", "report_tables",
           "write_report"]


# Per-query difference plots per run at most (the non-baseline models, in order).
_MAX_DIFFERENCE_PLOTS = 6
# Candidates of a tune run in its table and paired comparison.
_TOP = 5
#: The difference of the power lines across data sets, in metric units.
ACROSS_DELTA = 0.01

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.significant { font-weight: bold; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.6em; }
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
code, pre { font-family: monospace; font-size: 0.9em; }
p.note { color: #555; font-size: 0.9em; }
"""


# ----------------------------------------------------------------------------------------
# The page


def _e(value):
    return html.escape(str(value), quote=True)


def _page(path, runs, sections):
    toc = "".join(f'<li><a href="#run-{r["id"]}">Run {r["id"]}: {_e(r["command"])}, '
                  f'{_e(r["started"])}{"" if r["finished"] else " (unfinished)"}</a></li>'
                  for r in runs)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        # nothing may be fetched: images are data: URIs, the style is inline
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "img-src data:; style-src 'unsafe-inline'\">\n"
        f"<title>sklearn-rank report: {_e(path)}</title>\n<style>{_STYLE}</style>\n"
        "</head>\n<body>\n"
        f"<h1>sklearn-rank report of <code>{_e(path)}</code></h1>\n<ul>{toc}</ul>\n"
        + "\n".join(sections) + "\n</body>\n</html>\n")


def _results(path, run):
    """The results of a finished run: a tune run's search, or a cv run's comparisons."""
    if run["command"].endswith(" tune"):
        return _tune_section(path, run)
    return _cv_section(path, run)


def _across_section(path, run):
    """The models compared across the data sets of a cv run of two data sets or more, per
    metric: the ranks table, Friedman's test and the post-hoc tests (or the statement that
    too few data sets can reach significance), the critical difference diagram, and the
    power line of each data set."""
    from ._store import load_store

    if run["command"].endswith(" tune"):
        return ""
    stored = load_store(path, run["id"])
    if len(stored.datasets) < 2 or len(stored) < 2:
        return ""
    from ..plot import CriticalDifferenceDisplay

    parts = [f"<h3>Across the {len(stored.datasets)} data sets</h3>\n"]
    for metric, result in across_results(stored):
        figure, (ax,) = _figure(height=1.2 + 0.35 * len(result.models))
        CriticalDifferenceDisplay.from_result(result, ax=ax)
        fragment = result.to_html(figure=figure)
        # the section of a run is an <h2>: the metric's heading goes beneath it
        fragment = fragment.replace("<h2>Across data sets</h2>",
                                    f"<h4>{_e(metric)}</h4>", 1)
        parts.append(fragment + "\n")
    best, runner_up = power_pair(result)
    parts.append(
        '<p class="note">Each data set scores each model by its mean over queries and '
        "seeds; the models are ranked within each data set, never averaged across them. "
        "The post-hoc tests compare each pair of models over the data sets (Holm's "
        "correction); the diagram joins the models that no test tells apart. The lines "
        f"<em>Queries</em> are the power of the paired t-test of {_e(best)} (best average "
        f"rank) against {_e(runner_up)} (runner-up) on each data set, from the variance of "
        "their per-query differences (each query averaged over the seeds).</p>\n")
    return "".join(parts)


def across_results(stored, *, posthoc="wilcoxon", alpha=0.05, delta=ACROSS_DELTA):
    """``[(metric, result)]``: the :meth:`~sklearn_rank.benchmark.StoredRun.compare_datasets`
    result of each metric of a stored run, what the report's section across data sets and
    ``sklearn-rank report --format`` show."""
    return [(metric, stored.compare_datasets(metric, posthoc=posthoc, alpha=alpha,
                                             delta=delta))
            for metric in stored.metrics]


#: The renderers of a finished run's section, in order: ``renderer(path, run)`` -> HTML
#: (``run`` a dict of :meth:`~sklearn_rank.benchmark.ResultsStore.runs`). More sections
#: are given to :func:`report_html` and :func:`write_report` as ``sections``, and come
#: before the provenance.
RUN_SECTIONS = (_results, _across_section)


def _section(path, run, sections=RUN_SECTIONS):
    title = (f'<h2 id="run-{run["id"]}">Run {run["id"]}: <code>{_e(run["command"])}'
             "</code></h2>\n")
    if not run["finished"]:
        body = (f'<p class="warning">This run is unfinished: {run["n_stored"]} of '
                f'{len(run["units"])} units of work are stored (started {_e(run["started"])}'
                "). Its partial results are not reported. Complete it by running the same "
                "command with <code>--resume</code> (<code>resume=True</code> in Python)."
                "</p>\n")
    else:
        body = "".join(render(path, run) for render in sections)
    return title + body + _provenance(run)


def report_html(path, runs, *, sections=()):
    """The HTML page of ``runs`` of the store ``path``.

    Parameters
    ----------
    path : str or path-like
        The results store.
    runs : list of dict
        The runs, as :meth:`~sklearn_rank.benchmark.ResultsStore.runs` gives them.
    sections : sequence of callable, default=()
        More renderers of a finished run's section, after the built-in ones.

    Returns
    -------
    page : str
    """
    path = os.fspath(path)
    renderers = (*RUN_SECTIONS, *sections)
    with literal_text():  # labels with '$' are no formulas
        parts = [_section(path, r, renderers) for r in runs]
    return _page(path, runs, parts)


def write_report(store, path, *, runs=None, sections=()):
    """Write one self-contained HTML page of the runs of a results store.

    For each finished run: per data set, the comparison table of
    :func:`~sklearn_rank.stats.compare` (means with bootstrap confidence intervals,
    Holm-corrected paired tests against the baseline), the spread of the means over the
    seeds of a repeated run, the metric at each cut-off k, the per-query differences with
    the baseline (a search's curve and best candidates for ``sklearn-rank tune``); and the
    provenance of every run. An unfinished run is listed, not reported. The page requests
    nothing from the network. Needs matplotlib.

    Parameters
    ----------
    store : str or path-like
        The results store, a SQLite file (opened read-only).
    path : str or path-like
        The HTML file to write: written whole or not at all (a temporary file renamed into
        place), never the store or a file SQLite keeps beside it.
    runs : list of int, default=None
        The ids of the runs to report; None reports all of them.
    sections : sequence of callable, default=()
        More section renderers, ``renderer(store, run) -> HTML``, after the built-in
        sections (the results of each data set, and those across data sets).

    Returns
    -------
    runs : list of dict
        The runs reported (as :meth:`~sklearn_rank.benchmark.ResultsStore.runs` gives them).

    Raises
    ------
    ValueError
        When the store holds no run, or no run of an id of ``runs``, or when ``path`` is
        the store itself (or a link to it): the page would replace the stored runs
        (:class:`~sklearn_rank.benchmark.StoreError` for a store that cannot be read, or a
        run whose provenance was edited).
    OSError
        When the page cannot be written; a file already at ``path`` is left as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.linear_model import LinearRegression, Ridge
    >>> from sklearn_rank.benchmark import run_benchmark, write_report
    >>> from sklearn_rank.datasets import make_ranking
    >>> folder = tempfile.mkdtemp()
    >>> store = os.path.join(folder, "results.sqlite")
    >>> _ = run_benchmark({"ols": LinearRegression(), "ridge": Ridge()},
    ...                   make_ranking(30, random_state=0), metrics=["ndcg@5", "ndcg@10"],
    ...                   n_splits=3, store=store)
    >>> [run["id"] for run in write_report(store, os.path.join(folder, "report.html"))]
    [1]
    """
    from ._store import ResultsStore

    # the page written over the store (or a link to it, or its write-ahead log) would
    # replace every stored run
    for companion in ("", "-wal", "-shm", "-journal"):
        if same_file(path, os.fspath(store) + companion):
            raise ValueError(
                f"path {os.fspath(path)!r} is the results store {os.fspath(store)!r}"
                + (f" (its {companion[1:]} file)" if companion else "")
                + "; writing the report there would replace the stored runs. Choose "
                "another file for the page, such as 'report.html'.")
    reader = ResultsStore(store, create=False)
    try:
        found = reader.runs()
    finally:
        reader.close()
    if runs is not None:
        known = {r["id"] for r in found}
        missing = [run_id for run_id in runs if run_id not in known]
        if missing:
            raise ValueError(f"{os.fspath(store)!r} has no run {missing[0]!r}; its runs: "
                             f"{', '.join(map(str, sorted(known))) or 'none'}.")
        found = [r for r in found if r["id"] in runs]
    if not found:
        raise ValueError(f"{os.fspath(store)!r} holds no run; write one with run_benchmark("
                         "..., store=...).")
    page = report_html(store, found, sections=sections)

    def write(temporary):
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(page)

    write_atomic(path, write)  # a failure leaves the previous page, not half of a new one
    return found


#: The formats of :func:`report_tables`.
TABLE_FORMATS = ("text", "markdown", "latex")


def report_tables(store, *, runs=None, format="text"):
    """The tables of the runs of several data sets or seeds of a results store, as text,
    Markdown or LaTeX: what the report's sections across seeds and data sets show, for a
    paper or a terminal.

    For each finished ``cv`` run (or :func:`~sklearn_rank.benchmark.run_benchmark` run) of
    several data sets or seeds: the spread over seeds
    (:meth:`~sklearn_rank.benchmark.StoredRun.seed_summary`: per data set and model, the
    mean over queries and seeds, the standard deviation and range of the per-seed means,
    the query-level interval); and, with two data sets or more, per metric, the models
    compared across the data sets
    (:meth:`~sklearn_rank.benchmark.StoredRun.compare_datasets`: the ranks table, Friedman's
    test, the Wilcoxon post-hoc tests with Holm's correction and the power lines). LaTeX
    tables need ``\\usepackage{booktabs}``.

    Parameters
    ----------
    store : str or path-like
        The results store.
    runs : list of int, default=None
        The ids of the runs; None: all of them.
    format : {"text", "markdown", "latex"}, default="text"

    Returns
    -------
    tables : str

    Raises
    ------
    ValueError
        When no run asked for has several data sets or seeds: its attribute ``parameter``
        is ``"runs"``.
    """
    from ._store import ResultsStore, load_store

    if format not in TABLE_FORMATS:
        raise ValueError(f"format must be one of {', '.join(TABLE_FORMATS)}; got "
                         f"{format!r}.")
    reader = ResultsStore(store, create=False)
    try:
        found = reader.runs()
    finally:
        reader.close()
    chosen = [r for r in found if (runs is None or r["id"] in runs) and r["finished"]
              and not r["command"].endswith(" tune")]
    heading = {"text": lambda t: f"{t}\n{'=' * len(t)}", "markdown": lambda t: f"## {t}",
               "latex": lambda t: f"% {t}"}[format]
    parts = []
    for run in chosen:
        stored = load_store(store, run["id"])
        if len(stored.datasets) < 2 and len(stored.seeds) < 2:
            continue
        title = f"Run {run['id']}: {run['command']}"
        summary = stored.seed_summary()
        parts.append(heading(f"{title}, spread over seeds"))
        parts.append({"text": summary.to_string, "markdown": summary.to_markdown,
                      "latex": summary.to_latex}[format]())
        if len(stored.datasets) < 2 or len(stored) < 2:
            continue
        for metric, result in across_results(stored):
            parts.append(heading(f"{title}, {metric} across data sets"))
            best, runner_up = power_pair(result)
            note = (f"Queries: the paired t-test of {best} (best average rank) against "
                    f"{runner_up} (runner-up) on each data set.")
            if format == "latex":
                parts.append(result.to_latex(caption=_latex_caption(metric)) + f"\n% {note}")
            else:
                parts.append((result.to_string() if format == "text"
                              else result.to_markdown()) + f"\n{note}")
    if not parts:
        error = ValueError(f"{os.fspath(store)!r} holds no finished cv run of several data "
                           "sets or seeds (asked for: "
                           f"{'all runs' if runs is None else ', '.join(map(str, runs))}); "
                           "its tables are in the HTML page (write_report).")
        error.parameter = "runs"  # a caller names its option of the runs, not the message
        raise error
    return "\n\n".join(parts) + "\n"


def _latex_caption(metric):
    from ..stats._table import _latex_escape

    return f"{_latex_escape(metric)} across data sets: score (rank), Friedman and Wilcoxon--Holm."


def _figure(ncols=1, nrows=1, width=6.4, height=4.0):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    return figure, figure.subplots(nrows, ncols, squeeze=False).ravel()


def _image(figure, alt):
    """The figure as an ``<img>`` of a PNG ``data:`` URI."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{data}">\n'


def _number(value, digits=4):
    return "nan" if value != value else f"{value:.{digits}f}"


# ----------------------------------------------------------------------------------------
# cv


def _cv_section(path, run):
    from ._store import load_store

    stored = load_store(path, run["id"])
    if list(stored.datasets) == [None] and list(stored.seeds) == [None]:
        return _cv_dataset(path, run, stored)
    parts = []
    for dataset in stored.datasets:
        title = "the data set" if dataset is None else f"data set {dataset}"
        parts.append(f"<h3>Results on {_e(title)}</h3>\n")
        if len(stored.seeds) > 1:
            parts.append(_seed_spread(stored, dataset))
        parts.append(_cv_dataset(path, run, stored.select(dataset), heading="h4"))
    return "".join(parts)


def _seed_spread(stored, dataset):
    """Per model and metric, the mean over queries under each seed: their mean and
    standard deviation (the spread that the choice of split and seed brings), from the
    stored run's :meth:`~sklearn_rank.benchmark.StoredRun.seed_summary`."""
    seeds = list(stored.seeds)
    summary = stored.seed_summary()
    spread = {(r.model, r.metric): r for r in summary.rows if r.dataset == dataset}
    head = "".join(f"<th>{_e(m)} mean</th><th>{_e(m)} std over seeds</th>"
                   for m in stored.metrics)
    rows = []
    for name in stored:
        cells = "".join(f'<td class="num">{_number(spread[name, m].mean)}</td>'
                        f'<td class="num">{_number(spread[name, m].seed_std)}</td>'
                        for m in stored.metrics)
        rows.append(f"<tr><th>{_e(name)}</th>{cells}</tr>")
    return (f"<table>\n<tr><th>System</th>{head}</tr>\n" + "\n".join(rows) + "\n</table>\n"
            f"<p class=\"note\">The mean over queries under each of the {len(seeds)} seeds "
            f"({', '.join(map(str, seeds))}): their mean, and their standard deviation "
            "(ddof=1). The comparison below pairs the same query under the same seed, each "
            "query's difference averaged over the seeds.</p>\n")


def _cv_dataset(path, run, systems, heading="h3"):
    from ..stats import compare
    from ._store import load_store

    parts = []
    seed = systems.seed
    result = compare(systems, metric=systems.metrics, baseline=systems.baseline,
                     random_state=seed)
    if all("fold" in v for v in systems.values()):
        n_folds = len({int(f) for v in systems.values() for f in v["fold"]})
        parts.append(f"<{heading}>Cross-validation, {n_folds} folds</{heading}>\n")
    else:  # averaged over the seeds of a repeated run
        parts.append(f"<{heading}>Cross-validation, averaged over {len(systems.seeds)} seeds"
                     f"</{heading}>\n")
    parts.append(_comparison_table(result))
    tested = load_store(path, run["id"], split="test")
    if len(tested) >= 2:
        held_out = compare(tested, metric=tested.metrics, baseline=tested.baseline,
                           random_state=seed)
        source = run["provenance"].get("test") or {}
        parts.append(f"<h3>Held-out test set, {_e(source.get('source', ''))}</h3>\n"
                     "<p>Each model refitted on all of the training data.</p>\n")
        parts.append(_comparison_table(held_out))
    parts.append(_metric_at_k(result))
    parts.append(_differences(systems, result, seed))
    return "".join(parts)


def _comparison_table(result):
    """Means with their intervals, then the paired tests, as HTML tables."""
    from ..stats._table import ci_name, difference_interval_note, test_name

    level = f"{100 * result.confidence_level:g}"
    head = "".join(f"<th>{_e(m)}</th>" for m in result.metrics)
    rows = []
    for system in result.systems:
        cells = []
        for m in result.metrics:
            estimate = result.estimates[m][system]
            low, high = estimate.confidence_interval
            mark = ""
            for c in result.comparisons:
                if c.metric == m and c.system_a == system and c.significant:
                    mark = " †" if c.result.mean_difference > 0 else " ‡"
            cells.append(f'<td class="num">{_number(estimate.mean)} [{_number(low)}, '
                         f"{_number(high)}]{mark}</td>")
        label = f"{system} (baseline)" if system == result.baseline else system
        rows.append(f"<tr><th>{_e(label)}</th>{''.join(cells)}</tr>")
    n = ", ".join(f"{result.n[m]} queries" for m in result.metrics[:1])
    means = (f"<table>\n<tr><th>System</th>{head}</tr>\n" + "\n".join(rows) + "\n</table>\n"
             f"<p class=\"note\">Mean over {n} [{level}% {_e(ci_name(result.ci_method))} "
             "CI of the mean]. † / ‡: significantly higher / lower than "
             + ("the baseline" if result.baseline is not None else "the other system")
             + f" ({_e(test_name(result.test))} of the per-query differences, two-sided, "
             f"{_e((result.correction or 'no').capitalize())} correction over the "
             f"comparisons of each metric, alpha = {result.alpha}).</p>\n")
    tests = []
    for c in result.comparisons:
        low, high = c.result.confidence_interval
        significant = ' class="significant"' if c.significant else ""
        tests.append(
            f"<tr{significant}><td>{_e(c.metric)}</td><td>{_e(c.system_a)} − "
            f"{_e(c.system_b)}</td><td class=\"num\">{_number(c.result.mean_difference)} "
            f"[{_number(low)}, {_number(high)}]</td><td class=\"num\">{c.pvalue:.4g}</td>"
            f"<td class=\"num\">{c.pvalue_corrected:.4g}</td>"
            f"<td>{'yes' if c.significant else 'no'}</td></tr>")
    correction = (result.correction or "uncorrected").capitalize()
    return means + (
        "<table>\n<tr><th>Metric</th><th>Difference</th><th>Mean difference "
        f"[{level}% {_e(ci_name(result.difference_ci_method))} CI]</th><th>p</th>"
        f"<th>p ({_e(correction)})</th><th>Significant</th></tr>\n"
        + "\n".join(tests) + "\n</table>\n"
        f"<p class=\"note\">{_e(difference_interval_note(result))}</p>\n")


def _metric_at_k(result):
    """The mean of each system at each cut-off, for a metric the run has at several k."""
    from ..metrics import parse_metric

    families = {}
    for m in result.metrics:
        entry, options = parse_metric(m)
        k = options.get("k")
        if k is not None:
            rest = json.dumps({o: v for o, v in options.items() if o != "k"}, sort_keys=True,
                              default=repr)
            families.setdefault((entry.name, rest), []).append((k, m))
    curves = [sorted(members) for members in families.values() if len(members) >= 2]
    if not curves:
        return ("<p class=\"note\">No metric-at-k curve: the run has no metric at two or "
                "more cut-offs (e.g. --metrics ndcg@1 ndcg@5 ndcg@10).</p>\n")
    figure, axes = _figure(ncols=len(curves))
    for ax, members in zip(axes, curves):
        ks = [k for k, _ in members]
        for system in result.systems:
            estimates = [result.estimates[m][system] for _, m in members]
            means = [e.mean for e in estimates]
            lows = [e.mean - e.confidence_interval[0] for e in estimates]
            highs = [e.confidence_interval[1] - e.mean for e in estimates]
            ax.errorbar(ks, means, yerr=[lows, highs], marker="o", capsize=3,
                        label=figure_label(system))
        name = members[0][1].split("@")[0]
        ax.set_xlabel("k")
        ax.set_ylabel(f"mean {name}@k")
        ax.set_title(f"{name} at k, mean and {round(100 * result.confidence_level)}% CI")
        ax.legend()
    return "<h3>Metric at k</h3>\n" + _image(figure, "metric at k of every system")


def _differences(systems, result, seed):
    """Per-query differences of each model with the baseline, on the first metric."""
    from ..plot import PerQueryDifferenceDisplay

    baseline = result.baseline
    others = [s for s in result.systems if s != baseline][:_MAX_DIFFERENCE_PLOTS]
    if baseline is None or not others:
        return ""
    metric = result.metrics[0]
    ncols = min(len(others), 2)
    nrows = -(-len(others) // ncols)
    figure, axes = _figure(ncols=ncols, nrows=nrows)
    for ax, system in zip(axes, others):
        PerQueryDifferenceDisplay.from_cv_results(
            systems[system], systems[baseline], metric=metric,
            names=(figure_label(system), figure_label(baseline)), ax=ax, random_state=seed)
    for ax in axes[len(others):]:
        ax.set_visible(False)
    return (f"<h3>Per-query differences with the baseline, {_e(metric)}</h3>\n"
            + _image(figure, f"per-query differences of {metric} with the baseline"))


# ----------------------------------------------------------------------------------------
# tune


def _tune_section(path, run):
    from ._store import ResultsStore, load_store

    stored = load_store(path, run["id"])
    store = ResultsStore(path, create=False)
    try:
        units = store.read_units(run["id"])
    finally:
        store.close()
    if list(stored.datasets) == [None]:
        # a repeated split: each query averaged over the seeds
        return _tune_dataset(run, stored.select() if len(stored.seeds) > 1 else stored, units)
    return "".join(f"<h3>Search on data set {_e(name)}</h3>\n"
                   + _tune_dataset(run, stored.select(name),
                                   [u for u in units if u["dataset"] == name], heading="h4")
                   for name in stored.datasets)


def _tune_dataset(run, systems, units, heading="h3"):
    import numpy as np

    from ..stats import bootstrap_ci, compare

    metric = run["provenance"]["metric"]
    seed = systems.seed
    folds = [u for u in units if u["split"] == "cv"]
    by_candidate = {}
    for u in folds:
        by_candidate.setdefault(u["candidate"], []).append(u)
    candidates = sorted(by_candidate)
    means = np.array([np.mean([u["scores"][metric] for u in by_candidate[c]])
                      for c in candidates])
    stds = np.array([np.std([u["scores"][metric] for u in by_candidate[c]])
                     for c in candidates])
    fit_times = [np.mean([u["fit_time"] for u in by_candidate[c]]) for c in candidates]
    n_folds = len({u["fold"] for u in folds})

    figure, (ax,) = _figure(width=8.0)
    x = np.arange(1, len(candidates) + 1)
    ax.errorbar(x, means, yerr=stds, fmt="o", capsize=3,
                label=f"mean ± std over {n_folds} folds")
    ax.step(x, np.maximum.accumulate(means), where="post", label="best so far")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("candidate (in the order tried)")
    ax.set_ylabel(f"mean test {metric}")
    ax.set_title(f"Search curve, {run['provenance'].get('search', '')} search")
    ax.legend()
    parts = [f"<{heading}>Search curve: {len(candidates)} candidates × {n_folds} folds"
             f"</{heading}>\n",
             _image(figure, "search curve: mean test score per candidate")]

    order = np.argsort(-means, kind="stable")
    names = list(systems)
    rows = []
    for rank, i in enumerate(order[:_TOP], start=1):
        params = by_candidate[candidates[i]][0]["params"]
        rows.append(f"<tr><td class=\"num\">{rank}</td><td class=\"num\">{candidates[i] + 1}"
                    f"</td><td class=\"num\">{_number(means[i])} ± {_number(stds[i])}</td>"
                    f"<td><code>{_e(json.dumps(params))}</code></td>"
                    f"<td class=\"num\">{fit_times[i]:.2f} s</td></tr>")
    parts.append(f"<{heading}>Best candidates</{heading}>\n<table>\n<tr><th>Rank</th>"
                 "<th>Candidate</th>"
                 f"<th>{_e(metric)} (mean ± std)</th><th>Parameters</th><th>Fit time</th>"
                 "</tr>\n" + "\n".join(rows) + "\n</table>\n")
    top = [names[i] for i in order[:_TOP]]
    if len(top) >= 2:
        result = compare({name: systems[name] for name in top}, metric=metric,
                         baseline=top[0], random_state=seed)
        parts.append(f"<{heading}>The top {len(top)} candidates against the best, per query"
                     f"</{heading}>\n"
                     + _comparison_table(result))
    refit = [u for u in units if u["split"] == "test" and u["per_query"]]
    if refit:
        values = refit[-1]["per_query"][metric]
        estimate = bootstrap_ci(values, random_state=seed)
        low, high = estimate.confidence_interval
        parts.append(f"<{heading}>Held-out test set</{heading}>\n<p>The model refitted with "
                     "the best "
                     f"parameters on all of the data: {_e(metric)} {_number(estimate.mean)} "
                     f"[{_number(low)}, {_number(high)}] (mean over {len(values)} queries, "
                     f"{round(100 * estimate.confidence_level)}% {_e(estimate.method)} "
                     "bootstrap CI).</p>\n")
    return "".join(parts)


# ----------------------------------------------------------------------------------------
# Provenance


def _convention(convention, metrics):
    """The preset of the run, and the metrics it leaves at sklearn-rank's defaults: the
    preset's name over a metric its system lacks would claim that system's number."""
    if convention is None:
        return "sklearn-rank's defaults"
    from ..metrics import outside_convention

    outside = outside_convention(metrics, convention)
    if not outside:
        return convention
    which, them = (("is not a measure", "it") if len(outside) == 1
                   else ("are not measures", "them"))
    return (f"{convention} ({', '.join(outside)} {which} of {convention}: the preset leaves "
            f"{them} at sklearn-rank's defaults)")


def _provenance(run):
    p = run["provenance"]
    rows = [("Command", p.get("command")), ("Started", run["started"]),
            ("Finished", run["finished"] or "unfinished"),
            ("Units of work", f"{run['n_stored']} of {len(run['units'])} stored")]
    described = ([("data", "Data", p.get("data")), ("test", "Held-out test set", p.get("test"))]
                 if not p.get("datasets") else
                 [(name, f"Data set {name}", data) for name, data in p["datasets"].items()])
    for _, title, data in described:
        if data:
            rows.append((title, f"{data['source']}: {data['n_queries']} queries, "
                                f"{data['n_documents']} documents, {data['n_features']} "
                                f"features"))
            rows.append((f"{title} SHA-256", data["sha256"]))
    rows += [("Seed", p.get("seed"))]
    if p.get("seeds"):
        rows.append(("Seeds of the repeats", ", ".join(map(str, p["seeds"]))))
    rows += [
             ("Convention", _convention(p.get("convention"), list(p["metrics"]))),
             ("Splitter", p.get("splitter")),
             ("Metrics", "; ".join(f"{name} = {key}" for name, key in p["metrics"].items()))]
    if "models" in p:
        rows.append(("Models", "; ".join(
            f"{label} = {m['model']}" + (f" {json.dumps(m['params'])}" if m["params"] else "")
            for label, m in p["models"].items())))
        rows.append(("Baseline", p.get("baseline")))
    if "model" in p:
        m = p["model"]
        rows.append(("Model", f"{m['label']} = {m['model']}"
                     + (f" {json.dumps(m['params'])}" if m["params"] else "")))
        # each text is the --param option as given: NAME=VALUES
        rows.append(("Search", f"{p.get('search')} over "
                     + ", ".join(p.get("space", {}).values())))
    rows.append(("Trees of built-in models (--n-estimators)", p.get("n_estimators")))
    rows.append(("Versions", ", ".join(f"{k} {v}" for k, v in (p.get("versions") or {}).items())))
    body = "\n".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f"<h3>Provenance</h3>\n<table>\n{body}\n</table>\n"
