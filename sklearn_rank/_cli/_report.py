"""``sklearn-rank report``: one self-contained HTML page of the runs of a results store.

The page is :func:`sklearn_rank.benchmark.write_report`'s; this command checks the store and
the output path, writes the page safely and says what it reported.
"""

from ._common import (
    CLIError,
    check_input_file,
    check_output_path,
    import_extra,
    int_at_least,
    write_text,
)

NAME = "report"
SUMMARY = ("an HTML page of a results store: comparison tables, plots, provenance; or its "
           "tables across seeds and data sets as text, Markdown or LaTeX")
DESCRIPTION = """\
Write one self-contained HTML page of the runs that 'sklearn-rank cv --store' and
'sklearn-rank tune --store' wrote to a results store: for each run, the comparison table
(means with bootstrap confidence intervals, paired t-tests against the baseline with Holm's
correction), the metric at k when the run has several cut-offs, the per-query differences
with the baseline, the search curve of a tune run, and the provenance (versions, data
fingerprint, seed, conventions, command). The page requests nothing from the network: its
figures are embedded. Unfinished runs are listed, not reported (complete them with
--resume). A run of several data sets (--dataset) or seeds (--repeats, --seeds) also
gets the spread of each model's mean over the seeds, and, with two data sets or more, the
models compared across the data sets: the ranks table, Friedman's test, the Wilcoxon
post-hoc tests with Holm's correction (or the statement that too few data sets can reach
significance), the critical difference diagram and, per data set, the power line of the
best model against the runner-up. Needs matplotlib (pip install "sklearn-rank[plot]").

The suffix of --output chooses what is written: .html the page; .txt, .md or .tex the
tables of the runs of several data sets or seeds (spread over seeds, ranks and tests
across data sets), as plain text, Markdown or LaTeX (booktabs) for a paper.
"""
EPILOG = """\
examples:
  sklearn-rank cv --store results.sqlite --model pointwise --model lambdarank
  sklearn-rank report results.sqlite --output report.html
  sklearn-rank report results.sqlite --run 2 3 --output report.html
  sklearn-rank report results.sqlite --output tables.tex
"""
#: --output suffix -> the format of the tables (the others: the HTML page).
_TABLES = {".txt": "text", ".md": "markdown", ".tex": "latex"}


def add_arguments(parser):
    parser.add_argument("store", metavar="STORE",
                        help="the results store (a SQLite file) written with --store")
    parser.add_argument("--output", "-o", required=True, metavar="FILE",
                        help="the HTML page to write (.html), or the tables across seeds "
                             "and data sets as text (.txt), Markdown (.md) or LaTeX (.tex)")
    parser.add_argument("--run", nargs="+", type=int_at_least(1), metavar="ID",
                        help="the runs to report, by id (default: all of them)")


def run(args):
    """Run ``sklearn-rank report``; returns the exit code."""
    from ..benchmark import ResultsStore, StoreError, report_html, report_tables

    check_input_file(args.store, "STORE")
    from ._store import store_files

    suffix = check_output_path(args.output, "--output", (".html", ".htm", *_TABLES),
                               store_files(args.store, "STORE"))
    tables = _TABLES.get(suffix)
    if tables is None:
        import_extra("matplotlib", "plot", "sklearn-rank report")
    try:
        store = ResultsStore(args.store, create=False)
    except StoreError as exc:
        raise CLIError(f"STORE {exc}") from None
    try:
        runs = store.runs()
    except StoreError as exc:
        raise CLIError(f"STORE {exc}") from None
    finally:
        store.close()
    if args.run is not None:
        known = {r["id"] for r in runs}
        for run_id in args.run:
            if run_id not in known:
                raise CLIError(f"--run {run_id}: {args.store!r} has no such run; its runs: "
                               f"{', '.join(map(str, sorted(known))) or 'none'}.", 2)
        runs = [r for r in runs if r["id"] in args.run]
    if not runs:
        raise CLIError(f"STORE {args.store!r} holds no run; write one with "
                       "'sklearn-rank cv --store' or 'sklearn-rank tune --store'.")
    try:
        if tables is not None:
            try:
                page = report_tables(args.store, runs=[r["id"] for r in runs], format=tables)
            except ValueError as exc:  # no run of several data sets or seeds
                if getattr(exc, "parameter", None) != "runs":
                    raise
                raise CLIError(f"--output {args.output}: {exc}") from None
        else:
            page = report_html(args.store, runs)
    except StoreError as exc:  # a damaged store: its units cannot be read
        raise CLIError(f"STORE {exc}") from None
    except ValueError as exc:  # values the statistics refuse, e.g. NaN (no_relevant=nan)
        raise CLIError(f"STORE {args.store!r}: cannot report its runs: {exc}") from None
    write_text(args.output, page, "--output")
    finished = sum(1 for r in runs if r["finished"])
    print(f"{args.output}: {finished} finished run{'s' if finished != 1 else ''}"
          + (f", {len(runs) - finished} unfinished" if finished < len(runs) else "")
          + f" of {args.store}.")
    return 0
