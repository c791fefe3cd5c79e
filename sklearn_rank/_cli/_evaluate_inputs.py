"""The inputs of ``sklearn-rank evaluate`` and their metrics: TREC files, a table, a
directory of Parquet files on Dask, generated data; the library's errors in the words of the
command's options.

A shell over :func:`sklearn_rank.datasets.read_trec`, :func:`~sklearn_rank.datasets.read_table`,
:func:`~sklearn_rank.datasets.read_table_dask`,
:func:`~sklearn_rank.metrics.evaluate_per_query` and
:func:`~sklearn_rank.metrics.evaluate_summary`.
"""

import contextlib
import sys
import warnings

import numpy as np

from ._common import USAGE, CLIError, check_input_file, generated_data, import_extra

# Inputs: each returns a dict of y_true, y_score, qid, retrieved and judged (or None), and
# describe(n_queries), the input's description; its number of queries comes from the
# metrics' result, which works the query ids out once.


def read_trec_input(run, qrels, complete=False):
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


def generated_input(n_queries, seed):
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
    "table_format": "--table-format",
}


def read_table_input(path, qid_column, label_column, score_column, qid_type=None,
                docno_column=None, table_format=None):
    from ..datasets import TableError, read_table

    path = check_input_file(path, "--table")
    try:
        data = read_table(path, qid_column=qid_column, label_column=label_column,
                          score_column=score_column, docno_column=docno_column,
                          qid_type=qid_type, table_format=table_format)
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

def evaluate_directory(args, metrics, per_query):
    """``(query_ids, per-query values, means, description)`` of a directory of Parquet
    files; with ``per_query`` False, ``query_ids`` is ``range(n_queries)`` and the values
    None: the per-query values never reach this process."""
    import_extra("dask.dataframe", "dask", "--table DIR")
    from ..datasets import TableError, read_table_dask
    from ..metrics import (
        GradeError,
        SplitQueryError,
        TiedScoresWarning,
        evaluate,
        evaluate_summary,
    )

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
            else:  # the means with the numbers of queries and rows, in one pass
                summary = evaluate_summary(y_true, y_score, qid=qid, metrics=metrics,
                                           convention=args.convention, docno=docno,
                                           partitioned_by_query=args.partitioned_by_query)
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
        result, means = _per_query_result(table, metrics, args.convention)
        query_ids = result.query_ids
    else:
        result, means, n_rows = None, summary.means, summary.n_rows
        query_ids = range(summary.n_queries)
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
            # the cluster's own workers: client.scheduler_info() reads a cache that its
            # background refresh fills with totals only ("workers" empty)
            client.wait_for_workers(workers)
            n = len(cluster.workers)
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


def _per_query_result(table, metrics, convention):
    """The collected per-query frame as a :class:`PerQueryResult` in query order, and its
    means, aggregated as ``evaluate`` aggregates them: by each metric's rule, and, under
    the trec_eval convention, added one query at a time in query order, as trec_eval adds
    them (the options record the convention, which that order follows)."""
    from ..metrics import PerQueryResult, aggregate, bind_metric

    table = table.sort_values("qid", kind="stable")
    result = PerQueryResult(
        table["qid"].to_numpy(), {m: table[m].to_numpy() for m in metrics},
        options={m: {"metric": bind_metric(m).metric.name, "convention": convention}
                 for m in metrics})
    return result, aggregate(result)


# Computation


def compute(data, metrics, convention):
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
        shown = ", ".join(repr(qid_text(q)) for q in query_ids[:3]) + (
            ", ..." if len(query_ids) > 3 else "")
        queries = "query" if len(query_ids) == 1 else "queries"
        print(f"sklearn-rank evaluate: warning: in {len(query_ids):,} {queries} ({shown}), "
              "documents of different grades have equal scores. The trec_eval convention "
              "ranks them by document name, as trec_eval does, but no names were given: they "
              f"keep the order of {data.get('ties_in', 'the rows')}, and the metrics depend "
              "on it. Give the document-name column with --docno-column.", file=sys.stderr)


def qid_text(value):
    return str(value.item() if isinstance(value, np.generic) else value)


