"""``sklearn-rank evaluate``: the metrics of scores against judgements, from files."""

import re

import numpy as np

from ._common import (
    USAGE,
    CLIError,
    add_convention_option,
    add_generated_data_options,
    check_distinct,
    check_input_file,
    check_output_path,
    format_number,
    generated_data,
    metric_name,
    to_json,
    usage_error,
    wrap,
    write_text,
)

NAME = "evaluate"
SUMMARY = "metrics of a run against judgements (TREC files or a CSV/Parquet table)"
DESCRIPTION = """\
Compute ranking metrics of scores against graded judgements, per query and on average.

Input, one of:
  --run RUN --qrels QRELS  a TREC run ('qid Q0 docno rank score tag') judged by TREC qrels
                           ('qid iteration docno grade'). Judged documents missing from the
                           run count as trec_eval counts them: they are relevant documents
                           never retrieved (AP and recall divide by them).
  --table FILE             a .csv, .tsv or .parquet table with one row per (query, document)
                           and columns qid, label and score (rename with --qid-column...).
  nothing                  generated data (make_ranking), scored by its first feature.
"""
EPILOG = """\
examples:
  sklearn-rank evaluate --run run.txt --qrels qrels.txt --convention trec_eval
  sklearn-rank evaluate --table scores.csv --metrics ndcg@10 err@10 --per-query
  sklearn-rank evaluate --table scores.parquet --score-column prediction --format json
"""
DEFAULT_METRICS = ("ndcg@10", "err@10", "map", "mrr", "p@10")
_SUMMARY_ROW = "all"  # trec_eval's name of the row of means


def add_arguments(parser):
    source = parser.add_argument_group("input")
    source.add_argument("--run", metavar="RUN", help="TREC run file (with --qrels)")
    source.add_argument("--qrels", metavar="QRELS", help="TREC qrels file (with --run)")
    source.add_argument("--table", metavar="FILE",
                        help="table of qid, label and score columns: .csv, .tsv or .parquet "
                        "(Parquet needs pandas with pyarrow, or polars)")
    source.add_argument("--qid-column", default="qid", metavar="NAME",
                        help="query id column of --table (default: qid)")
    source.add_argument("--label-column", default="label", metavar="NAME",
                        help="graded relevance column of --table (default: label)")
    source.add_argument("--score-column", default="score", metavar="NAME",
                        help="score column of --table, higher ranks first (default: score)")
    source.add_argument("--qid-type", choices=("str", "int"),
                        help="type of the query ids of --table: str keeps them as written "
                        "('007' and '7' are two queries), int reads them as integers (one "
                        "query) (default: str for .csv/.tsv; for Parquet, the column's type)")
    add_generated_data_options(source, n_queries=100)
    what = parser.add_argument_group("metrics and output")
    what.add_argument("--metrics", nargs="+", type=metric_name, default=list(DEFAULT_METRICS),
                      metavar="METRIC",
                      help="metric names: ndcg@10, err@20, map, mrr, p@5, recall@100, "
                      "rbp(p=0.8)... (default: " + " ".join(DEFAULT_METRICS) + ")")
    add_convention_option(what, "every metric")
    what.add_argument("--per-query", action="store_true",
                      help="one row per query, then the row of means ('all')")
    what.add_argument("--format", choices=("text", "markdown", "csv", "json"), default="text",
                      help="output format on stdout (default: text)")
    what.add_argument("--output", metavar="FILE.csv",
                      help="also write the per-query values as CSV: qid, then one column per "
                      "metric")


def run(args):
    """Run ``sklearn-rank evaluate``; returns the exit code."""
    metrics = check_distinct(args.metrics, "--metrics")
    if args.table is not None and (args.run is not None or args.qrels is not None):
        raise usage_error("--table and --run/--qrels are two inputs; give one of them.")
    if (args.run is None) != (args.qrels is None):
        given, missing = ("--run", "--qrels") if args.qrels is None else ("--qrels", "--run")
        raise usage_error(f"{given} needs {missing}: a TREC run is judged against qrels.")
    if args.qid_type is not None and args.table is None:
        raise usage_error("--qid-type sets the type of the query ids of --table; the query ids "
                          "of TREC files are strings, as trec_eval reads them.")
    if args.output is not None:
        inputs = [("--run", args.run), ("--qrels", args.qrels), ("--table", args.table)]
        check_output_path(args.output, "--output", (".csv",), inputs)

    if args.run is not None:
        data = _read_trec(args.run, args.qrels)
    elif args.table is not None:
        data = _read_table(args.table, args.qid_column, args.label_column, args.score_column,
                           args.qid_type)
    else:
        data = _generated(args.n_queries, args.seed)

    result, means = _compute(data, metrics, args.convention)
    query_ids, per_query = result.query_ids, None
    if args.per_query or args.output is not None:
        order = _display_order(query_ids)
        query_ids = query_ids[order]
        per_query = {m: result[m][order] for m in metrics}
    if args.output is not None:
        from ..stats._table import format_table

        rows = [[_qid_text(q), *(repr(float(per_query[m][i])) for m in metrics)]
                for i, q in enumerate(query_ids)]
        write_text(args.output, format_table(["qid", *metrics], rows, "csv"), "--output")

    shown = per_query if args.per_query else None
    description = data["describe"](len(result))
    print(_render(args.format, description, metrics, args.convention, means, query_ids, shown))
    return 0


# ----------------------------------------------------------------------------------------
# Inputs: each returns a dict of y_true, y_score, qid, retrieved and judged (or None), and
# describe(n_queries), the input's description; its number of queries comes from the
# metrics' result, which works the query ids out once.


def _read_trec(run, qrels):
    from ..datasets import read_trec

    run = check_input_file(run, "--run")
    qrels = check_input_file(qrels, "--qrels")
    try:
        data = read_trec(qrels, run)
    except (OSError, ValueError) as exc:  # the message names the file
        option = "--run" if repr(str(run)) in str(exc) else "--qrels"
        raise CLIError(f"{option}: {exc}") from None
    if len(data["qid"]) == 0:
        raise CLIError(f"no query of --run {str(run)!r} is judged in --qrels {str(qrels)!r}: "
                       "expected the same query ids (first column) in both files.")
    unretrieved, n_rows = int((~data["retrieved"]).sum()), len(data["qid"])
    data["describe"] = lambda n_queries: (
        f"{run} judged by {qrels}: {n_queries:,} queries in both, "
        f"{n_rows:,} documents ({unretrieved:,} judged but not retrieved)"
    )
    return data


def _generated(n_queries, seed):
    dataset = generated_data(n_queries, seed)
    description = (f"{dataset.description}, scored by feature 0 (no input given: see "
                   "--run/--qrels and --table)")
    return {"y_true": dataset.y, "y_score": dataset.X[:, 0], "qid": dataset.qid,
            "retrieved": None, "judged": None, "describe": lambda n_queries: description}


# How the messages of the table reader name the options of --table.
_TABLE_OPTIONS = {
    "qid_column": "--qid-column", "label_column": "--label-column",
    "score_column": "--score-column", "qid_type=int": "--qid-type int",
    "qid_type=str": "--qid-type str",
}


def _read_table(path, qid_column, label_column, score_column, qid_type=None):
    from ..datasets._tables import _read_table

    path = check_input_file(path, "--table")
    try:
        qid, y_true, y_score = _read_table(path, [qid_column, label_column, score_column],
                                           qid_type, _TABLE_OPTIONS)
    except (ValueError, ImportError) as exc:  # the message starts with the file's name
        raise CLIError(f"--table {exc}") from None
    except OSError as exc:
        raise CLIError(f"--table {str(path)!r}: cannot read it: {exc.strerror}.") from None
    if len(qid) == 0:
        raise CLIError(f"--table {str(path)!r} has no rows.")
    return {"y_true": y_true, "y_score": y_score, "qid": qid, "retrieved": None, "judged": None,
            "describe": lambda n_queries: f"{path}: {n_queries:,} queries, {len(qid):,} rows"}


# ----------------------------------------------------------------------------------------
# Computation and output


def _compute(data, metrics, convention):
    """The per-query result of ``metrics`` on ``data`` (one computation), and its means."""
    from ..metrics import aggregate, evaluate_per_query

    try:
        result = evaluate_per_query(
            data["y_true"], data["y_score"], qid=data["qid"], metrics=metrics,
            retrieved=data["retrieved"], judged=data["judged"], convention=convention)
        means = aggregate(result)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"cannot compute the metrics: {exc}") from None
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metrics: cannot compute the metrics: {exc}", USAGE) from None
    return result, means


def _qid_text(value):
    return str(value.item() if isinstance(value, np.generic) else value)


def _display_order(query_ids):
    """Numeric query ids as numbers ("9" before "10"), others as evaluate sorts them."""
    texts = [_qid_text(q) for q in query_ids]
    if all(re.fullmatch(r"\d+", t) for t in texts):
        return np.argsort([int(t) for t in texts], kind="stable")
    return np.arange(len(texts))


def _render(fmt, description, metrics, convention, means, query_ids, per_query):
    from ..stats._table import format_table

    shown = range(len(query_ids)) if per_query is not None else []
    if fmt == "json":
        result = {"input": description, "convention": convention,
                  "n_queries": len(query_ids), "metrics": dict(means)}
        if per_query is not None:
            result["per_query"] = [
                {"qid": query_ids[i], **{m: per_query[m][i] for m in metrics}}
                for i in shown
            ]
        return to_json(result)
    if fmt == "csv":
        def cell(value):
            return repr(float(value))
    else:
        cell = format_number
    rows = [[_qid_text(query_ids[i]), *(cell(per_query[m][i]) for m in metrics)]
            for i in shown]
    rows.append([_SUMMARY_ROW, *(cell(means[m]) for m in metrics)])
    table = format_table(["qid", *metrics], rows, fmt)
    if fmt == "csv":
        return table
    conventions = (f"convention {convention!r}" if convention else
                   "sklearn-rank's default conventions (see --convention)")
    lines = [f"{description}.",
             f"Means over the {len(query_ids):,} queries, {conventions}."]
    return "\n".join([wrap(lines), "", table])
