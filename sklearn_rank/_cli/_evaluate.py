"""``sklearn-rank evaluate``: the metrics of scores against judgements, from files."""

import contextlib
import os
import re
import sys
import warnings

import numpy as np

from ._common import (
    USAGE,
    CLIError,
    add_convention_option,
    add_generated_data_options,
    check_distinct,
    check_input_file,
    check_output_path,
    describe_convention,
    format_number,
    format_table,
    generated_data,
    import_extra,
    int_at_least,
    metric_name,
    outside_convention,
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
                           never retrieved (AP and recall divide by them). Retrieved
                           documents the qrels do not list, and grades below 0, are
                           unjudged: non-relevant, as in trec_eval. Judged queries the run
                           has no line for are left out (a note says which) unless
                           --complete scores them 0, as trec_eval -c does.
  --table FILE             a .csv, .tsv or .parquet table with one row per (query, document)
                           and columns qid, label and score (rename with --qid-column...).
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
    directory = args.table is not None and os.path.isdir(args.table)
    _check_dask_options(args, directory)
    if args.output is not None:
        inputs = [("--run", args.run), ("--qrels", args.qrels), ("--table", args.table)]
        check_output_path(args.output, "--output", (".csv",), inputs)

    wanted = args.per_query or args.output is not None
    if directory:
        query_ids, result, means, description = _evaluate_directory(args, metrics, wanted)
    else:
        if args.run is not None:
            data = _read_trec(args.run, args.qrels, args.complete)
        elif args.table is not None:
            data = _read_table(args.table, args.qid_column, args.label_column,
                               args.score_column, args.qid_type, args.docno_column)
        else:
            data = _generated(args.n_queries, args.seed)
        result, means = _compute(data, metrics, args.convention)
        query_ids, description = result.query_ids, data["describe"](len(result))
    per_query = None
    if wanted:
        order = _display_order(query_ids)
        query_ids = query_ids[order]
        per_query = {m: result[m][order] for m in metrics}
    if args.per_query and args.format != "json":
        _check_summary_apart(query_ids, args.format)
    if args.output is not None:
        rows = [[_qid_text(q), *(repr(float(per_query[m][i])) for m in metrics)]
                for i, q in enumerate(query_ids)]
        write_text(args.output, format_table(["qid", *metrics], rows, "csv"), "--output")

    shown = per_query if args.per_query else None
    print(_render(args.format, description, metrics, args.convention, means, query_ids, shown))
    return 0


# ----------------------------------------------------------------------------------------
# Inputs: each returns a dict of y_true, y_score, qid, retrieved and judged (or None), and
# describe(n_queries), the input's description; its number of queries comes from the
# metrics' result, which works the query ids out once.


def _read_trec(run, qrels, complete=False):
    from ..datasets import read_trec

    run = check_input_file(run, "--run")
    qrels = check_input_file(qrels, "--qrels")
    try:
        with warnings.catch_warnings():
            # said below, in the description of the input, with what --complete does
            warnings.filterwarnings("ignore", message=r".* have no line in the run")
            data = read_trec(qrels, run, complete=complete)
    except (OSError, ValueError) as exc:  # the message names the file; the attribute too
        option = {"run": "--run"}.get(getattr(exc, "parameter", None), "--qrels")
        raise CLIError(f"{option}: {exc}") from None
    if len(data["qid"]) == 0:
        raise CLIError(f"no query of --run {str(run)!r} is judged in --qrels {str(qrels)!r}: "
                       "expected the same query ids (first column) in both files.")
    # NaN (not in the qrels) and negative grades (trec_eval's -1) mark the unjudged rows
    data["judged"] = "y_true"
    data["grade_error"] = lambda exc: (
        f"--qrels {str(qrels)!r} holds the grade {exc.value}; expected finite grades.")
    unretrieved, n_rows = int((~data["retrieved"]).sum()), len(data["qid"])
    unjudged = int(np.count_nonzero(~(data["y_true"] >= 0)))
    left_out = [] if complete else list(data["qrels_only_queries"])
    notes = ""
    if unjudged:
        notes += f", {unjudged:,} retrieved but unjudged (non-relevant)"
    if left_out:
        shown = ", ".join(repr(str(q)) for q in left_out[:5]) + (
            ", ..." if len(left_out) > 5 else "")
        queries, them = ("query", "it") if len(left_out) == 1 else ("queries", "them")
        notes += (f"; {len(left_out):,} judged {queries} left out, the run having no line "
                  f"for {them} ({shown}): --complete scores {them} 0, as trec_eval -c")
    where = "judged" if complete else "in both"
    data["describe"] = lambda n_queries: (
        f"{run} judged by {qrels}: {n_queries:,} queries {where}, "
        f"{n_rows:,} documents ({unretrieved:,} judged but not retrieved{notes})"
    )
    return data


def _generated(n_queries, seed):
    dataset = generated_data(n_queries, seed)
    description = (f"{dataset.description}, scored by feature 0 (no input given: see "
                   "--run/--qrels and --table)")
    return {"y_true": dataset.y, "y_score": dataset.X[:, 0], "qid": dataset.qid,
            "retrieved": None, "judged": None, "docno": None, "ties_in": "the generated rows",
            "describe": lambda n_queries: description}


# How the messages of the table reader name the options of --table.
_TABLE_OPTIONS = {
    "qid_column": "--qid-column", "label_column": "--label-column",
    "score_column": "--score-column", "docno_column": "--docno-column",
    "qid_type=int": "--qid-type int", "qid_type=str": "--qid-type str",
}


def _read_table(path, qid_column, label_column, score_column, qid_type=None,
                docno_column=None):
    from ..datasets import TableError, read_table

    path = check_input_file(path, "--table")
    try:
        data = read_table(path, qid_column=qid_column, label_column=label_column,
                          score_column=score_column, docno_column=docno_column,
                          qid_type=qid_type)
    except TableError as exc:  # the message starts with the file's name
        raise CLIError(f"--table {exc.describe(_TABLE_OPTIONS)}") from None
    except (ValueError, ImportError) as exc:  # the message starts with the file's name
        raise CLIError(f"--table {exc}") from None
    except OSError as exc:
        raise CLIError(f"--table {str(path)!r}: cannot read it: {exc.strerror}.") from None
    qid, y_true, y_score = data["qid"], data["y_true"], data["y_score"]
    if len(qid) == 0:
        raise CLIError(f"--table {str(path)!r} has no rows.")
    return {"y_true": y_true, "y_score": y_score, "qid": qid, "retrieved": None, "judged": None,
            "docno": data.get("docno"), "ties_in": "the rows of --table",
            "describe": lambda n_queries: f"{path}: {n_queries:,} queries, {len(qid):,} rows",
            "grade_error": lambda exc: _refused_grades(f"--table {str(path)!r}", label_column,
                                                      exc, exc.row)}


def _refused_grades(where, label_column, exc, row=None):
    """The metrics' :class:`~sklearn_rank.metrics._input.GradeError` in the words of the
    command: a table's grades are the ``--label-column``, and the command has no ``judged``
    option to read negative grades as trec_eval's -1."""
    more = f" (and {exc.count - 1:,} more)" if exc.count > 1 else ""
    at = f" in data row {row + 1:,}" if row is not None else ""
    value = exc.value
    if value == value and value < 0 and value != -np.inf:
        return (f"{where}: the grades (--label-column {label_column!r}) hold {value:g}{at}"
                f"{more}; expected grades of 0 or more. Map such grades to 0 (non-relevant) "
                "in the table; for trec_eval's -1 (a pooled document left unjudged), "
                "evaluate TREC files with --run and --qrels, which read it as trec_eval "
                "does.")
    return (f"{where}: the grades (--label-column {label_column!r}) hold {value}{at}{more}; "
            "expected finite grades of 0 or more.")


# A directory of Parquet files: read and evaluated by Dask, partition by partition.

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


def _evaluate_directory(args, metrics, per_query):
    """``(query_ids, per-query values, means, description)`` of a directory of Parquet
    files; with ``per_query`` False, ``query_ids`` is ``range(n_queries)`` and the values
    None: the per-query values never reach this process."""
    import_extra("dask.dataframe", "dask", "--table DIR")
    from ..datasets import TableError, read_table_dask
    from ..metrics import GradeError, SplitQueryError, TiedScoresWarning, evaluate

    # the means with the numbers of queries and rows, in one pass: no public function
    # gives them (see the report of the CLI's private imports, tests/test_cli_imports.py)
    from ..metrics._dask import dask_summary

    path = args.table

    with _dask_scheduler(args.scheduler, args.workers) as where, \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TiedScoresWarning)  # one per partition: said once
        # dask's Parquet reader calls reset_index(inplace=True), which pandas 3.1 deprecates:
        # nothing that a user of the command can act on
        warnings.filterwarnings("ignore", message="The inplace keyword",
                                module=r"dask\.dataframe\.io\.parquet")
        try:
            data = read_table_dask(path, qid_column=args.qid_column,
                                   label_column=args.label_column,
                                   score_column=args.score_column,
                                   docno_column=args.docno_column, qid_type=args.qid_type,
                                   partitioned_by_query=args.partitioned_by_query)
        except TableError as exc:
            raise CLIError(f"--table {exc.describe(_TABLE_OPTIONS)}") from None
        files = data["files"]
        y_true, y_score, qid = data["y_true"], data["y_score"], data["qid"]
        docno = data.get("docno")
        try:
            if per_query:
                table = evaluate(
                    y_true, y_score, qid=qid, metrics=metrics, convention=args.convention,
                    return_per_query=True, partitioned_by_query=args.partitioned_by_query,
                    docno=docno).compute()
                n_rows = len(data["rows"])  # from the files' metadata
            else:
                summary = dask_summary(y_true, y_score, qid, metrics, args.convention,
                                       partitioned_by_query=args.partitioned_by_query,
                                       docno=docno)
        except SplitQueryError as exc:
            queries = f" (and {exc.n_queries - 1:,} other queries)" if exc.n_queries > 1 else ""
            first, last = exc.partitions
            raise CLIError(
                f"--partitioned-by-query says that the rows of each query sit in one file "
                f"of --table {str(path)!r}, but query {exc.qid!r} has rows in "
                f"{exc.n_partitions} files (the files {first} and {last}, counted from 0 in "
                f"the order Dask reads them){queries}: its value would be computed from part "
                "of its rows. Drop --partitioned-by-query to let Dask gather the rows of "
                "each query, or write the files with each query in one file."
            ) from None
        except GradeError as exc:
            raise CLIError(_refused_grades(f"--table {str(path)!r}", args.label_column,
                                           exc)) from None
        except TableError as exc:  # the reader's, in a partition of the directory
            message = " ".join([exc.describe(_TABLE_OPTIONS), *getattr(exc, "__notes__", ())])
            raise CLIError(f"--table {message}") from None
        except (TypeError, ValueError) as exc:
            message = " ".join([str(exc), *getattr(exc, "__notes__", ())])
            raise CLIError(f"cannot compute the metrics: {message}") from None
        except OSError as exc:
            raise CLIError(f"--table {str(path)!r}: cannot read it: {exc}") from None
    # the threaded scheduler's partitions warn here; a cluster's workers keep their warnings
    _report_row_order_ties(caught, {"ties_in": "the rows of the Parquet files"})
    if per_query:
        result, means = _per_query_result(table, metrics)
        query_ids = result.query_ids
    else:
        result, means, n_rows = None, summary["means"], summary["rows"]
        query_ids = range(summary["queries"])
    description = (f"{path}: {len(query_ids):,} queries, {n_rows:,} rows in {len(files):,} "
                   f"Parquet files, evaluated with Dask on {where}")
    return query_ids, result, means, description


@contextlib.contextmanager
def _dask_scheduler(address, workers):
    """Where Dask computes, as a phrase for the output: the threaded scheduler (None), a
    LocalCluster of ``workers`` processes on loopback (``"local"``) or a running scheduler."""
    if address is None:
        yield "its threaded scheduler, in this process"
        return
    import logging

    distributed = import_extra("distributed", "dask", "--scheduler")
    if address == "local":
        # no dashboard port to collide with another cluster's; the shuffle's routine
        # messages (logged as warnings) kept off the output
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                      processes=True, host="127.0.0.1",
                                      dashboard_address="127.0.0.1:0",
                                      silence_logs=logging.ERROR) as cluster, \
                distributed.Client(cluster) as client:
            n = len(client.scheduler_info()["workers"])
            yield f"a local cluster of {n} worker process{'es' if n > 1 else ''}"
        return
    try:
        _check_address(address)
        # not the default client: one that fails to connect would stay the default, and
        # the next computation in this process would wait for it forever
        client = distributed.Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise CLIError(f"--scheduler {address!r}: cannot connect to a Dask scheduler there "
                       f"({exc}); expected 'local' or the address of a running scheduler, "
                       "such as tcp://10.0.0.5:8786.") from None
    with client, client.as_current():
        yield f"the scheduler at {address}"


def _check_address(address):
    """Raise a ValueError for an address that no scheduler can have (a client built on it
    fails in a way that leaves it behind, closing itself for seconds)."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(address if "://" in address else f"tcp://{address}",
                                     strict=True)
    get_backend(scheme)
    if scheme in ("tcp", "tls"):
        parse_host_port(location)


def _per_query_result(table, metrics):
    """The collected per-query frame as a :class:`PerQueryResult` in query order, and its
    means, aggregated as ``evaluate`` aggregates them."""
    from ..metrics import PerQueryResult, aggregate, bind_metric

    table = table.sort_values("qid", kind="stable")
    result = PerQueryResult(
        table["qid"].to_numpy(), {m: table[m].to_numpy() for m in metrics},
        options={m: {"metric": bind_metric(m).metric.name} for m in metrics})
    return result, aggregate(result)


# ----------------------------------------------------------------------------------------
# Computation and output


def _compute(data, metrics, convention):
    """The per-query result of ``metrics`` on ``data`` (one computation), and its means."""
    from ..metrics import GradeError, TiedScoresWarning, aggregate, evaluate_per_query

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TiedScoresWarning)
            result = evaluate_per_query(
                data["y_true"], data["y_score"], qid=data["qid"], metrics=metrics,
                retrieved=data["retrieved"], judged=data["judged"], docno=data["docno"],
                convention=convention)
        _report_row_order_ties(caught, data)
        means = aggregate(result)
    except GradeError as exc:
        if "grade_error" not in data:
            raise CLIError(f"cannot compute the metrics: {exc}") from None
        raise CLIError(data["grade_error"](exc)) from None
    except (TypeError, ValueError) as exc:
        raise CLIError(f"cannot compute the metrics: {exc}") from None
    except OverflowError as exc:  # e.g. map(rel=1000...0), beyond the floats' range
        raise CLIError(f"--metrics: cannot compute the metrics: {exc}", USAGE) from None
    return result, means


def _report_row_order_ties(caught, data):
    """Say once, on stderr, the library's warnings of tied scores ranked in row order (one
    per call, or per Dask partition), in the command's words; warn again whatever else was
    caught."""
    from ..metrics import TiedScoresWarning

    query_ids = []
    for warning in caught:
        found = warning.message
        if isinstance(found, TiedScoresWarning):
            query_ids.extend(q for q in found.query_ids if q not in query_ids)
        else:
            warnings.warn_explicit(found, warning.category, warning.filename, warning.lineno)
    if query_ids:
        shown = ", ".join(repr(_qid_text(q)) for q in query_ids[:3]) + (
            ", ..." if len(query_ids) > 3 else "")
        queries = "query" if len(query_ids) == 1 else "queries"
        print(f"sklearn-rank evaluate: warning: in {len(query_ids):,} {queries} ({shown}), "
              "documents of different grades have equal scores. The trec_eval convention "
              "ranks them by document name, as trec_eval does, but no names were given: they "
              f"keep the order of {data.get('ties_in', 'the rows')}, and the metrics depend "
              "on it. Give the document-name column with --docno-column.", file=sys.stderr)


def _qid_text(value):
    return str(value.item() if isinstance(value, np.generic) else value)


def _display_order(query_ids):
    """Numeric query ids as numbers ("9" before "10"), others as evaluate sorts them."""
    texts = [_qid_text(q) for q in query_ids]
    if all(re.fullmatch(r"[0-9]+", t) for t in texts):  # ASCII: "٣" is a name, not 3
        return np.argsort([int(t) for t in texts], kind="stable")
    return np.arange(len(texts))


def _check_summary_apart(query_ids, fmt):
    """Refuse a query named as the row of means: the table would hold two rows 'all'."""
    if any(_qid_text(q) == _SUMMARY_ROW for q in query_ids):
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
    rows = [[_qid_text(query_ids[i]), *(cell(per_query[m][i]) for m in metrics)]
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
