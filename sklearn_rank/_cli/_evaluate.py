"""``sklearn-rank evaluate``: the metrics of scores against judgements, from files."""

import csv
import re
import sys

import numpy as np

from ..utils._qid import unique_ids
from ._common import (
    USAGE,
    CLIError,
    add_convention_option,
    add_generated_data_options,
    check_distinct,
    check_input_file,
    check_output_path,
    format_number,
    format_table,
    generated_data,
    import_extra,
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

    means, query_ids, per_query = _compute(data, metrics, args.convention,
                                           args.per_query or args.output is not None)
    if per_query is not None:
        order = _display_order(query_ids)
        query_ids = query_ids[order]
        per_query = {m: values[order] for m, values in per_query.items()}
    if args.output is not None:
        rows = [[_qid_text(q), *(repr(float(per_query[m][i])) for m in metrics)]
                for i, q in enumerate(query_ids)]
        write_text(args.output, format_table(["qid", *metrics], rows, "csv"), "--output")

    shown = per_query if args.per_query else None
    print(_render(args.format, data, metrics, args.convention, means, query_ids, shown))
    return 0


# ----------------------------------------------------------------------------------------
# Inputs: each returns a dict of y_true, y_score, qid, retrieved (or None) and a description.


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
    unretrieved = int((~data["retrieved"]).sum())
    data["description"] = (
        f"{run} judged by {qrels}: {len(unique_ids(data['qid'])):,} queries in both, "
        f"{len(data['qid']):,} documents ({unretrieved:,} judged but not retrieved)"
    )
    return data


def _generated(n_queries, seed):
    dataset = generated_data(n_queries, seed)
    return {"y_true": dataset.y, "y_score": dataset.X[:, 0], "qid": dataset.qid,
            "retrieved": None,
            "description": f"{dataset.description}, scored by feature 0 (no input given: "
                           "see --run/--qrels and --table)"}


def _read_table(path, qid_column, label_column, score_column, qid_type=None):
    path = check_input_file(path, "--table")
    reader = _TABLE_READERS.get(path.suffix.lower())
    if reader is None:
        raise CLIError(f"--table {str(path)!r}: unknown table type {path.suffix or '(none)'!r}; "
                       f"expected one of {', '.join(_TABLE_READERS)}.")
    wanted = {"--qid-column": qid_column, "--label-column": label_column,
              "--score-column": score_column}
    columns = reader(path, list(wanted.values()), qid_type)
    qid, y_true, y_score = columns
    if len(qid) == 0:
        raise CLIError(f"--table {str(path)!r} has no rows.")
    return {"y_true": y_true, "y_score": y_score, "qid": qid, "retrieved": None,
            "description": f"{path}: {len(unique_ids(qid)):,} queries, {len(qid):,} rows"}


def _missing_columns(path, header, names):
    options = ("--qid-column", "--label-column", "--score-column")
    for option, name in zip(options, names):
        count = list(header).count(name)
        if count == 0:
            raise CLIError(
                f"--table {str(path)!r} has no column {name!r} (its columns: "
                f"{', '.join(repr(str(c)) for c in header)}); name the column with {option}."
            )
        if count > 1:
            raise CLIError(f"--table {str(path)!r} has {count} columns named {name!r}; "
                           f"rename them so that {option} names one column.")


def _numbers(path, name, values, where, finite=False):
    """A column as floats; a missing, non-numeric or NaN cell is an error naming its row.

    With ``finite``, infinite values are errors too (grades; a score may be infinite).
    """
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        out = None
    if out is not None and out.ndim == 1:
        bad = ~np.isfinite(out) if finite else np.isnan(out)
        if not bad.any():
            return out
    for i, value in enumerate(values):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = np.nan
        if np.isnan(number) or (finite and np.isinf(number)):
            expected = "a finite number" if finite else "a number"
            raise CLIError(f"--table {str(path)!r}, {where(i)}: column {name!r} holds "
                           f"{_shown(value)}; expected {expected}.")
    raise AssertionError("unreachable")  # pragma: no cover


def _shown(value):
    """A cell for a message: its repr, cut short."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def _missing_ids(path, name, values, where):
    for i, value in enumerate(values):
        if (value is None or (isinstance(value, str) and not value.strip())
                or (isinstance(value, (float, np.floating)) and np.isnan(value))):
            raise CLIError(f"--table {str(path)!r}, {where(i)}: column {name!r} is empty; "
                           "every row needs a query id.")


def _query_ids(path, name, values, where, qid_type):
    """The query-id column: strings, integers, or (``qid_type=None``) the column's type.

    Strings are kept as written, so that ``"007"`` and ``"7"`` stay two queries; ``int``
    reads each id as an integer, which makes them one, as the user asked.
    """
    values = np.asarray(values)
    if values.dtype.kind in "OUSf":
        _missing_ids(path, name, values.tolist() if values.dtype.kind == "O" else values,
                     where)
    if qid_type == "str":
        return values.astype(str)
    if qid_type == "int":
        if values.dtype.kind in "iu":
            return values
        for i, value in enumerate(values.tolist()):
            text = str(value).strip()
            if isinstance(value, float):
                ok = value.is_integer()
            else:
                ok = re.fullmatch(r"[+-]?\d+", text) is not None
            if not ok:
                raise CLIError(f"--table {str(path)!r}, {where(i)}: the query id {_shown(value)} "
                               "is not an integer; --qid-type int reads integers (use --qid-type "
                               "str to keep the ids as written).")
        try:
            return np.array([int(float(v)) if isinstance(v, float) else int(str(v))
                             for v in values.tolist()], dtype=np.int64)
        except OverflowError:
            raise CLIError(f"--table {str(path)!r}: column {name!r} holds an integer beyond "
                           "64 bits; use --qid-type str.") from None
    return values


def _read_rows(path, delimiter, names):
    """The non-empty rows of a delimited UTF-8 file (a byte-order mark is skipped)."""
    limit = csv.field_size_limit()
    # a field of any length (a document's text, say): the csv module caps them at 128 KiB
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    reader = None
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            return [row for row in reader if row]
    except UnicodeDecodeError as exc:
        raise CLIError(f"--table {str(path)!r} is not UTF-8 text (byte {exc.start} cannot be "
                       f"decoded); expected a {'CSV' if delimiter == ',' else 'TSV'} table "
                       f"with the columns {', '.join(map(repr, names))}. Save it as UTF-8.") \
            from None
    except csv.Error as exc:
        line = f", line {reader.line_num}" if reader is not None else ""
        raise CLIError(f"--table {str(path)!r}{line}: cannot read it as "
                       f"{'CSV' if delimiter == ',' else 'TSV'}: {exc}.") from None
    except OSError as exc:
        raise CLIError(f"--table {str(path)!r}: cannot read it: {exc.strerror}.") from None
    finally:
        csv.field_size_limit(limit)


def _delimited(delimiter):
    def read(path, names, qid_type):
        rows = _read_rows(path, delimiter, names)
        if not rows:
            raise CLIError(f"--table {str(path)!r} is empty; expected a header line naming "
                           f"the columns {', '.join(names)}.")
        header = [cell.strip() for cell in rows[0]]
        _missing_columns(path, header, names)
        index = [header.index(name) for name in names]
        body = rows[1:]
        for number, row in enumerate(body, start=2):
            if len(row) != len(header):
                raise CLIError(f"--table {str(path)!r}, line {number}: {len(row)} fields, but "
                               f"the header has {len(header)}.")

        def where(i):
            return f"line {i + 2}"

        qid, label, score = ([row[j].strip() for row in body] for j in index)
        return (_query_ids(path, names[0], qid, where, qid_type or "str"),
                _numbers(path, names[1], label, where, finite=True),
                _numbers(path, names[2], score, where))

    return read


def _read_parquet(path, names, qid_type):
    frame_columns = _parquet_columns(path)
    _missing_columns(path, list(frame_columns), names)

    def where(i):
        return f"row {i + 1}"

    qid, label, score = (frame_columns[name] for name in names)
    qid = _query_ids(path, names[0], qid, where, qid_type)
    return (qid, _numbers(path, names[1], label, where, finite=True),
            _numbers(path, names[2], score, where))


def _pandas_parquet():
    pd = import_extra("pandas", "pandas", "--table FILE.parquet")

    def columns(frame):
        return {str(c): frame[c].to_numpy() for c in frame.columns}

    # pyarrow's errors on a bad file are OSError and ValueError subclasses
    return pd.read_parquet, columns, (OSError, ValueError)


def _polars_parquet():
    pl = import_extra("polars", "polars", "--table FILE.parquet")

    def columns(frame):
        return {c: frame[c].to_numpy() for c in frame.columns}

    return pl.read_parquet, columns, (OSError, pl.exceptions.PolarsError)


def _parquet_columns(path):
    """Column name -> numpy array, read with pandas (and pyarrow) or else polars."""
    import importlib.util

    def have(*modules):
        return all(importlib.util.find_spec(m) is not None for m in modules)

    if have("pandas") and (have("pyarrow") or have("fastparquet")):
        read, columns, errors = _pandas_parquet()
    elif have("polars"):
        read, columns, errors = _polars_parquet()
    else:
        raise CLIError(
            f"--table {str(path)!r}: reading Parquet needs pandas with pyarrow, or polars, "
            'which are not installed. Install one: pip install "sklearn-rank[pandas]" pyarrow, '
            'or pip install "sklearn-rank[polars]"'
        )
    try:
        frame = read(path)
    except errors as exc:
        raise CLIError(f"--table {str(path)!r}: cannot read it as Parquet: {exc}") from None
    return columns(frame)


# Table type (file suffix) -> reader(path, [qid, label, score column names]).
_TABLE_READERS = {
    ".csv": _delimited(","),
    ".tsv": _delimited("\t"),
    ".parquet": _read_parquet,
    ".pq": _read_parquet,
}


# ----------------------------------------------------------------------------------------
# Computation and output


def _compute(data, metrics, convention, per_query):
    from ..metrics import evaluate

    options = {"qid": data["qid"], "metrics": metrics, "retrieved": data["retrieved"],
               "convention": convention}
    try:
        means = evaluate(data["y_true"], data["y_score"], **options)
        values = (evaluate(data["y_true"], data["y_score"], return_per_query=True, **options)
                  if per_query else None)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"cannot compute the metrics: {exc}") from None
    except OverflowError as exc:  # e.g. a cut-off too large
        raise CLIError(f"--metrics: cannot compute the metrics: {exc}", USAGE) from None
    # evaluate returns the queries in the order of np.unique
    return means, unique_ids(data["qid"]), values


def _qid_text(value):
    return str(value.item() if isinstance(value, np.generic) else value)


def _display_order(query_ids):
    """Numeric query ids as numbers ("9" before "10"), others as evaluate sorts them."""
    texts = [_qid_text(q) for q in query_ids]
    if all(re.fullmatch(r"\d+", t) for t in texts):
        return np.argsort([int(t) for t in texts], kind="stable")
    return np.arange(len(texts))


def _render(fmt, data, metrics, convention, means, query_ids, per_query):
    shown = range(len(query_ids)) if per_query is not None else []
    if fmt == "json":
        result = {"input": data["description"], "convention": convention,
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
    lines = [f"{data['description']}.",
             f"Means over the {len(query_ids):,} queries, {conventions}."]
    return "\n".join([wrap(lines), "", table])
