"""``sklearn-rank evaluate``: the metrics of scores against judgements, from files."""

import os
import re

import numpy as np

from ._common import (
    add_convention_option,
    add_generated_data_options,
    check_distinct,
    check_output_path,
    describe_convention,
    format_number,
    format_table,
    int_at_least,
    metric_name,
    to_json,
    usage_error,
    wrap,
    write_text,
)
from ._evaluate_inputs import (
    compute,
    evaluate_directory,
    generated_input,
    qid_text,
    read_table_input,
    read_trec_input,
)

NAME = "evaluate"
SUMMARY = "metrics of a run against judgements (TREC files or a CSV/Parquet table)"
DESCRIPTION = """\
Compute ranking metrics of scores against graded judgements, per query and on average.

Input, one of:
  --run RUN --qrels QRELS  a TREC run ('qid Q0 docno rank score tag') judged by TREC qrels
                           ('qid iteration docno grade'). Judged documents missing from the
                           run count as trec_eval counts them: they are relevant documents
                           never retrieved (AP and recall divide by them). Retrieved
                           documents the qrels do not list, and grades below 0, are
                           unjudged: non-relevant, as in trec_eval. Judged queries the run
                           has no line for are left out (a note says which) unless
                           --complete scores them 0, as trec_eval -c does.
  --table FILE             a .csv, .tsv or .parquet table with one row per (query, document)
                           and columns qid, label and score (rename with --qid-column...);
                           '-' or a pipe (/dev/stdin) reads standard input, of the type
                           --table-format says or its first bytes show.
                           With --convention trec_eval, give the document names with
                           --docno-column: trec_eval ranks tied scores by name.
  --table DIR              a directory of Parquet files with those columns, larger than
                           memory: read and evaluated by Dask, partition by partition, on
                           --scheduler (the rows of a query may sit in several files).
  nothing                  generated data (make_ranking), scored by its first feature.
"""
EPILOG = """\
examples:
  sklearn-rank evaluate --run run.txt --qrels qrels.txt --convention trec_eval
  sklearn-rank evaluate --table scores.csv --metrics ndcg@10 err@10 --per-query
  sklearn-rank evaluate --table scores.parquet --score-column prediction --format json
  some-ranker | sklearn-rank evaluate --table - --table-format tsv
  sklearn-rank evaluate --table scores/ --scheduler local --workers 2
"""
DEFAULT_METRICS = ("ndcg@10", "err@10", "map", "mrr", "p@10")
_SUMMARY_ROW = "all"  # trec_eval's name of the row of means


def add_arguments(parser):
    source = parser.add_argument_group("input")
    source.add_argument("--run", metavar="RUN", help="TREC run file (with --qrels)")
    source.add_argument("--qrels", metavar="QRELS", help="TREC qrels file (with --run)")
    source.add_argument("--complete", action="store_true",
                        help="with --run/--qrels: evaluate every query of --qrels, those the "
                        "run has no line for scoring 0 (trec_eval -c)")
    source.add_argument("--table", metavar="FILE",
                        help="table of qid, label and score columns: .csv, .tsv or .parquet "
                        "(Parquet needs pandas with pyarrow, or polars), or a directory of "
                        "Parquet files, evaluated with Dask (the 'dask' extra)")
    source.add_argument("--table-format", choices=("csv", "tsv", "parquet"),
                        help="type of the --table file, whatever its name says (default: its "
                        "suffix; for standard input, its first bytes)")
    source.add_argument("--qid-column", default="qid", metavar="NAME",
                        help="query id column of --table (default: qid)")
    source.add_argument("--label-column", default="label", metavar="NAME",
                        help="graded relevance column of --table (default: label)")
    source.add_argument("--score-column", default="score", metavar="NAME",
                        help="score column of --table, higher ranks first (default: score)")
    source.add_argument("--docno-column", metavar="NAME",
                        help="document-name column of --table: rows of equal scores are "
                        "ranked by it, descending, where the convention breaks ties by row "
                        "order (trec_eval ranks them so; default: none, row order)")
    source.add_argument("--qid-type", choices=("str", "int"),
                        help="type of the query ids of --table: str keeps them as written "
                        "('007' and '7' are two queries), int reads them as integers (one "
                        "query) (default: str for .csv/.tsv; for Parquet, the column's type)")
    add_generated_data_options(source, n_queries=100)
    scale = parser.add_argument_group("Dask (--table DIR)")
    scale.add_argument("--scheduler", metavar="local|ADDRESS",
                       help="where a directory of Parquet files is evaluated: 'local' starts a "
                       "Dask LocalCluster of --workers processes on this machine (loopback "
                       "only); an address such as tcp://10.0.0.5:8786 connects to a running "
                       "scheduler (default: Dask's threaded scheduler, in this process)")
    scale.add_argument("--workers", type=int_at_least(1), metavar="N",
                       help="worker processes of --scheduler local, one thread each (default: "
                       "Dask's choice, one per CPU core)")
    scale.add_argument("--partitioned-by-query", action="store_true",
                       help="the rows of each query sit in one Parquet file: no shuffle by "
                       "query (checked: a query found in two files is an error)")
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
    if args.complete and args.run is None:
        raise usage_error("--complete is an option of --run/--qrels: it evaluates the queries "
                          "of the qrels that the run has no line for.")
    if args.docno_column is not None and args.table is None:
        raise usage_error("--docno-column names the document-name column of --table; the "
                          "documents of a TREC run (--run) are named in the run.")
    if args.qid_type is not None and args.table is None:
        raise usage_error("--qid-type sets the type of the query ids of --table; the query ids "
                          "of TREC files are strings, as trec_eval reads them.")
    if args.table == "-":  # standard input: a stream, read once by read_table
        args.table = "/dev/stdin"
    directory = args.table is not None and os.path.isdir(args.table)
    if args.table_format is not None and (args.table is None or directory):
        raise usage_error("--table-format sets the type of a --table file; "
                          + ("a directory holds Parquet files." if directory else
                             "no --table is given."))
    _check_dask_options(args, directory)
    if args.output is not None:
        inputs = [("--run", args.run), ("--qrels", args.qrels), ("--table", args.table)]
        check_output_path(args.output, "--output", (".csv",), inputs)

    wanted = args.per_query or args.output is not None
    if directory:
        query_ids, result, means, description = evaluate_directory(args, metrics, wanted)
    else:
        if args.run is not None:
            data = read_trec_input(args.run, args.qrels, args.complete)
        elif args.table is not None:
            data = read_table_input(args.table, args.qid_column, args.label_column,
                               args.score_column, args.qid_type, args.docno_column,
                               args.table_format)
        else:
            data = generated_input(args.n_queries, args.seed)
        result, means = compute(data, metrics, args.convention)
        query_ids, description = result.query_ids, data["describe"](len(result))
    per_query = None
    if wanted:
        order = _display_order(query_ids)
        query_ids = query_ids[order]
        per_query = {m: result[m][order] for m in metrics}
    if args.per_query and args.format != "json":
        _check_summary_apart(query_ids, args.format)
    if args.output is not None:
        rows = [[qid_text(q), *(repr(float(per_query[m][i])) for m in metrics)]
                for i, q in enumerate(query_ids)]
        write_text(args.output, format_table(["qid", *metrics], rows, "csv"), "--output")

    shown = per_query if args.per_query else None
    print(_render(args.format, description, metrics, args.convention, means, query_ids, shown))
    return 0


def _check_dask_options(args, directory):
    """The Dask options go with a directory; --workers with --scheduler local."""
    given = [option for option, value in (("--scheduler", args.scheduler),
                                          ("--workers", args.workers),
                                          ("--partitioned-by-query", args.partitioned_by_query))
             if value]
    if given and not directory:
        what = (f"--table {args.table!r} is a file" if args.table is not None
                else "no --table DIR is given")
        raise usage_error(f"{given[0]} applies to a directory of Parquet files (--table DIR), "
                          f"evaluated with Dask; {what}.")
    if args.workers is not None and args.scheduler != "local":
        raise usage_error("--workers sets the worker processes of --scheduler local; a running "
                          "scheduler (--scheduler ADDRESS) has its own workers.")


# ----------------------------------------------------------------------------------------
# Output


def _display_order(query_ids):
    """Numeric query ids as numbers ("9" before "10"), others as evaluate sorts them."""
    texts = [qid_text(q) for q in query_ids]
    if all(re.fullmatch(r"[0-9]+", t) for t in texts):  # ASCII: "٣" is a name, not 3
        return np.argsort([int(t) for t in texts], kind="stable")
    return np.arange(len(texts))


def _check_summary_apart(query_ids, fmt):
    """Refuse a query named as the row of means: the table would hold two rows 'all'."""
    if any(qid_text(q) == _SUMMARY_ROW for q in query_ids):
        raise usage_error(
            f"--per-query --format {fmt}: a query is named {_SUMMARY_ROW!r}, as the row of "
            "the means is, so the table could not tell them apart; expected query ids other "
            f"than {_SUMMARY_ROW!r}. Give --format json (the means apart from the queries), "
            "or --output FILE.csv alone (the queries only), or rename the query.")


def _render(fmt, description, metrics, convention, means, query_ids, per_query):
    shown = range(len(query_ids)) if per_query is not None else []
    if fmt == "json":
        result = {"input": description, "convention": convention,
                  "n_queries": len(query_ids), "metrics": dict(means)}
        if convention is not None:  # what the preset left at sklearn-rank's defaults
            from ..metrics import outside_convention

            result["outside_convention"] = outside_convention(metrics, convention)
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
    rows = [[qid_text(query_ids[i]), *(cell(per_query[m][i]) for m in metrics)]
            for i in shown]
    rows.append([_SUMMARY_ROW, *(cell(means[m]) for m in metrics)])
    table = format_table(["qid", *metrics], rows, fmt)
    if fmt == "csv":
        return table
    conventions = (describe_convention(metrics, convention) if convention else
                   "sklearn-rank's default conventions (see --convention)")
    lines = [f"{description}.",
             f"Means over the {len(query_ids):,} queries, {conventions}."]
    return "\n".join([wrap(lines), "", table])
