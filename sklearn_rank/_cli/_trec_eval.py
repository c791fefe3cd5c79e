"""``sklearn-rank trec_eval``: NIST trec_eval's command line, flags and output, byte for byte.

A thin command over :func:`~sklearn_rank.datasets.read_trec` and the metric registry: the
measures and their order come from :mod:`sklearn_rank.metrics._trec_names`, the values from
the registry's metrics with trec_eval's conventions. What it prints besides the metrics is
trec_eval's: the run's tag (``runid``), the number of queries (``num_q``) and ``relstring``.
"""

import sys

import numpy as np

from ._common import CLIError, check_input_file, int_at_least, usage_error

NAME = "trec_eval"
SUMMARY = "trec_eval's measures of a TREC run, printed as trec_eval prints them"
DESCRIPTION = """\
Evaluate a TREC run against TREC qrels as NIST's trec_eval does, with its flags and its
output: one line per measure, 'measure<TAB>query<TAB>value', the measure name padded to 22
characters, values to 4 decimals, counts as integers; per query with -q, then the 'all' lines
of means (sums for the counts). The measures come in trec_eval's order, whatever the order of
the -m options.

QRELS holds lines 'qid iteration docno grade' (grades are integers; a negative grade marks a
document in the pool left unjudged), RUN lines 'qid Q0 docno rank score tag'. Documents are
ranked by score, then by document name, descending; the rank field is ignored, as in
trec_eval. Only the queries of QRELS are evaluated, and without -c only those the run has
lines for.

-m takes a measure (map), a measure with parameters after a '.' (P.5,10  ndcg_cut.10,20
iprec_at_recall..10,.50  ndcg.1=3,2=9,4=4.5  utility.2,-1,0,0  set_F.0.5  rbp.p=0.8) or a
set of measures: official (the default), set, all_trec. trec_eval's preference measures,
ideal_dcg and its -D, -o, -R, -T, -Z and -v options are refused by name. yaap, which
trec_eval does not count in all_trec, is given by name (-m yaap).

The files are read as trec_eval reads them, and what it refuses is refused: blank lines
and lines of more than 4 fields in QRELS (in RUN, text after the tag is ignored, as
trec_eval ignores it). Numbers are read whole: a
field that trec_eval's atof/atol would read only a prefix of (a score '1_0', a grade '1e1')
is an error naming its line, as are non-numeric scores, where atof reads a prefix.
"""
EPILOG = """\
examples:
  sklearn-rank trec_eval qrels.txt run.txt
  sklearn-rank trec_eval -q -m all_trec qrels.txt run.txt
  sklearn-rank trec_eval -c -M100 -m P.5,10 -m ndcg_cut.10 -m map qrels.txt run.txt
"""

# trec_eval's options that sklearn-rank refuses, and why.
_REFUSED = {
    "-D": ("--Debug_level", "prints trec_eval's internal debugging output, which sklearn-rank "
           "does not reproduce"),
    "-o": ("--Output_old_results_format", "is obsolete in trec_eval itself"),
    "-R": ("--Rel_info_format", "selects another judgement format; sklearn-rank reads qrels "
           "only ('-R qrels')"),
    "-T": ("--Results_format", "selects another results format; sklearn-rank reads "
           "trec_results only ('-T trec_results')"),
    "-Z": ("--Zscore", "prints Z scores from a file of means, which sklearn-rank does not read"),
    "-v": ("--version", "prints trec_eval's version; 'sklearn-rank --version' prints "
           "sklearn-rank's"),
}
# The format names whose -R / -T is trec_eval's default: harmless to give.
_DEFAULT_FORMATS = {"-R": "qrels", "-T": "trec_results"}
# What trec_eval sets to 0 for a query that the run lacks under -c, after computing the
# measures on a placeholder ranking (trec_eval.c): the rest is 0 there on its own.
_RESET_WHEN_MISSING = ("num_ret", "utility", "unj", "rbp_resid")
_WIDTH = 22  # trec_eval's "%-22s"


def add_arguments(parser):
    parser.add_argument("-q", "--query_eval_wanted", dest="per_query", action="store_true",
                        help="print each query's values, then the 'all' lines")
    parser.add_argument("-m", "--measure", dest="measures", action="append", default=[],
                        metavar="MEASURE[.PARAMS]",
                        help="measure to print, repeatable: a measure, a measure with "
                        "parameters (P.5,10), or official, set, all_trec "
                        "(default: official)")
    parser.add_argument("-c", "--complete_rel_info_wanted", dest="complete",
                        action="store_true",
                        help="evaluate every query of QRELS: a query that the run lacks scores "
                        "0 and counts in the means")
    parser.add_argument("-n", "--nosummary", dest="summary", action="store_false",
                        help="no 'all' lines")
    parser.add_argument("-l", "--level_for_rel", dest="level", type=int_at_least(0), default=1,
                        metavar="N", help="smallest grade of a relevant document (default: 1; "
                        "with 0, every judged document is relevant, as in trec_eval)")
    parser.add_argument("-J", "--Judged_docs_only", dest="judged_only", action="store_true",
                        help="take documents without a judgement out of the ranking before "
                        "computing (trec_eval warns: numbers easy to misreport)")
    parser.add_argument("-M", "--Max_retrieved_per_topic", dest="max_docs",
                        type=int_at_least(0), metavar="N",
                        help="keep each query's first N ranked documents only (0: none)")
    parser.add_argument("-N", "--Number_docs_in_coll", dest="collection_size",
                        type=int_at_least(0), metavar="N",
                        help="number of documents in the collection, for the fourth "
                        "coefficient of utility (non-relevant documents not retrieved)")
    parser.add_argument("--recall-rounding", dest="recall_rounding",
                        choices=("nearest", "legacy"), default="nearest",
                        help="how iprec_at_recall and 11pt_avg turn a recall level x into a "
                        "number of relevant documents: x*R rounded to the nearest "
                        "(trec_eval 10.0, the default), or legacy: (long)(x*R + 0.9), as "
                        "trec_eval 9.0.8 and earlier, pytrec_eval and ir_measures "
                        "(sklearn-rank's option, not trec_eval's)")
    refused = parser.add_argument_group("trec_eval's options that sklearn-rank refuses")
    for short, (long, _) in _REFUSED.items():
        if short == "-v":
            refused.add_argument(short, long, dest="refused_v", action="store_true",
                                 help="refused")
        else:
            refused.add_argument(short, long, dest=f"refused_{short[1]}", metavar="ARG",
                                 help="refused")
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    parser.add_argument("run", metavar="RUN", help="TREC run file")


def run(args):
    """Run ``sklearn-rank trec_eval``; returns the exit code."""
    _refuse_options(args)
    if args.run == "-":
        raise usage_error("RUN '-' (the run read from standard input, as trec_eval allows) is "
                          "not supported; give the run's file.")
    plan = _plan(args)
    qrels = check_input_file(args.qrels, "QRELS")
    run_file = check_input_file(args.run, "RUN")
    data = _read(qrels, run_file, args)
    query_ids, columns = _compute(data, plan, args)
    if args.per_query and args.summary and np.isin("all", query_ids):
        # trec_eval prints it as it is: stdout stays trec_eval's, stderr says it
        print("sklearn-rank trec_eval: note: a query is named 'all', as the lines of the "
              "means are: with -q, its lines precede them but read alike. Rename it to tell "
              "them apart, or give -n (no lines of means).", file=sys.stderr)
    # written a block of lines at a time: the whole text of -q is tens of MB
    for text in _render([item for item, _ in plan], query_ids, columns, _run_id(run_file),
                        args):
        sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def _plan(args):
    """``[(item, bound)]``: the measures of the -m arguments, in trec_eval's order, each with
    its metric bound to its options and trec_eval's convention (None for runid and
    relstring), checked before the files are read."""
    from ..metrics import bind_metric
    from ..metrics._trec_names import expand_measures, needs_collection_size

    try:
        items = expand_measures(args.measures)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    missing = [item.measure for item in items
               if item.measure.metric is not None and item.measure.entry is None]
    if missing:
        names = ", ".join(dict.fromkeys(f"{m.name} (metric {m.metric!r})" for m in missing))
        raise usage_error(f"-m: this version of sklearn-rank does not compute trec_eval's "
                          f"{names}; leave them out of -m.")
    # -l 0: _compute ranks grades + 1 at threshold 1 (see _grades_from_zero)
    set_by_command_line = {"relevance_threshold": float(max(args.level, 1)),
                           "unjudged": "condensed" if args.judged_only else "nonrelevant",
                           "recall_rounding": args.recall_rounding}
    if args.collection_size is not None:
        set_by_command_line["collection_size"] = args.collection_size
    plan = []
    for item in items:
        metric = item.measure.entry
        if metric is None:  # runid, relstring: the command prints them
            plan.append((item, None))
            continue
        fixed = {**item.options, **{name: value for name, value in set_by_command_line.items()
                                    if name in metric.option_names}}
        if needs_collection_size(fixed):
            raise usage_error(f"-m: {item.name} counts the non-relevant documents not "
                              "retrieved, which needs the number of documents in the "
                              "collection: give -N (trec_eval counts a collection of 0 "
                              "documents without it).")
        try:
            bound = bind_metric(metric, options=fixed, convention="trec_eval",
                                caller=f"trec_eval's {item.name}")
        except (TypeError, ValueError) as exc:
            raise usage_error(f"-m: cannot compute {item.name}: {exc}") from None
        plan.append((item, bound))
    return plan


def _refuse_options(args):
    for short, (long, reason) in _REFUSED.items():
        value = getattr(args, f"refused_{short[1]}")
        if value in (None, False) or value == _DEFAULT_FORMATS.get(short):
            continue
        raise usage_error(f"{short} ({long}) {reason}: sklearn-rank trec_eval does not "
                          "support it.")


# ----------------------------------------------------------------------------------------
# Input


def _read(qrels, run, args):
    """read_trec's arrays, grades checked as trec_eval reads them (integers)."""
    import warnings

    from ..datasets import read_trec

    with warnings.catch_warnings():
        # judged queries without a line in the run: trec_eval leaves them out without a word
        # without -c; stdout stays trec_eval's, and a note on stderr names them (below)
        warnings.filterwarnings("ignore", message=r".* have no line in the run",
                                category=UserWarning)
        try:
            # strict: blank qrels lines and extra fields are trec_eval's "Malformed line"
            data = read_trec(qrels, run, complete=args.complete, max_docs=args.max_docs,
                             strict=True)
        except (OSError, ValueError) as exc:  # the message names the file
            which = "RUN" if repr(str(run)) in str(exc) else "QRELS"
            raise CLIError(f"{which}: {exc}") from None
    if len(data["qid"]) == 0:
        raise CLIError(f"no query of RUN {str(run)!r} is judged in QRELS {str(qrels)!r}: "
                       "expected the same query ids (first column) in both files, as trec_eval "
                       "does ('No queries with both results and relevance info').")
    grades = data["y_true"]
    fractional = np.flatnonzero(np.isfinite(grades) & (grades != np.trunc(grades)))
    if len(fractional):
        i = fractional[0]
        raise CLIError(
            f"QRELS {str(qrels)!r} gives document {data['docno'][i]!r} of query "
            f"{data['qid'][i]!r} the grade {grades[i]:g}, and {len(fractional) - 1} other "
            "judgement(s) a grade that is not an integer: trec_eval reads grades as integers "
            "(it would truncate them). Give integer grades, or use 'sklearn-rank evaluate' "
            "for fractional ones."
        )
    missing = data["qrels_only_queries"]
    if len(missing) and not args.complete:
        shown = ", ".join(map(repr, missing[:5].tolist())) + (", ..." if len(missing) > 5 else "")
        one = len(missing) == 1
        print(f"sklearn-rank trec_eval: note: {len(missing)} judged "
              f"quer{'y has' if one else 'ies have'} no line in the run ({shown}): left out, "
              f"as trec_eval leaves {'it' if one else 'them'} out without -c.", file=sys.stderr)
    return data


def _run_id(path):
    """The run's tag: the sixth field of its last line, which trec_eval prints as runid."""
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        block = 1 << 16
        while True:
            start = max(0, size - block)
            handle.seek(start)
            lines = handle.read(size - start).splitlines()
            if start > 0:
                lines = lines[1:]  # may be cut
            for line in reversed(lines):
                fields = line.split()
                if fields and not fields[0].startswith(b"#"):
                    return fields[5].decode("utf-8") if len(fields) > 5 else ""
            if start == 0:
                return ""
            block *= 4


# ----------------------------------------------------------------------------------------
# Computation: the metrics of the registry, one column per measure


def _compute(data, plan, args):
    """Query ids (sorted as trec_eval sorts them) and, per item of ``plan``, its column:
    ``(per-query values, summary)``, relstring's strings, or None for runid."""
    from ..metrics._input import check_ranking_input

    def rank(y_true):
        # read_trec's rows come query by query in ascending order: the engine numbers the
        # runs of equal ids (utils._qid.factorize), with no hash of every row's string
        try:
            return check_ranking_input(y_true, data["y_score"], data["qid"],
                                       retrieved=data["retrieved"], judged="y_true",
                                       caller="sklearn-rank trec_eval")
        except ValueError as exc:
            raise CLIError(f"cannot evaluate RUN against QRELS: {exc}") from None

    ranking = rank(data["y_true"])
    from_zero = None  # -l 0: the ranking of the grades + 1, and the gain of each such grade
    if args.level == 0:
        y_true, shifted_gain = _grades_from_zero(data["y_true"])
        from_zero = rank(y_true), shifted_gain
    query_ids = ranking.query_ids
    missing = None
    if args.complete and len(data["qrels_only_queries"]):
        missing = np.isin(query_ids, data["qrels_only_queries"])
    columns = []
    for item, bound in plan:
        if item.measure.name == "relstring":
            columns.append(_relstring(data, ranking, item.options["length"], args.judged_only))
            continue
        if bound is None:  # runid
            columns.append(None)
            continue
        evaluated = ranking
        if from_zero is not None and _decides_relevance(bound.options):
            evaluated = from_zero[0]
            if "gain" in bound.options:  # Rndcg: its gains are those of the grades as given
                bound = bound.replace(gain=from_zero[1](bound.options["gain"]))
        # gm_map and gm_bpref: map's and bpref's values, which their kernels compute once
        # per input, aggregated otherwise
        try:
            values = bound.compute(evaluated, label=item.name)[0]
        except (TypeError, ValueError) as exc:
            raise CLIError(f"cannot compute {item.name}: {exc}") from None
        if missing is not None and item.measure.name in _RESET_WHEN_MISSING:
            values = np.where(missing, 0.0, values)
        # trec_eval adds the queries' values in query order, then divides (the convention's
        # order: bound.in_order)
        summary = bound.aggregator(item.name).add(values, ranking.query_weight).result()
        columns.append((values, summary))
    return query_ids, columns


def _decides_relevance(options):
    """Whether trec_eval's -l decides which documents the measure counts relevant: the
    options have a threshold, and are not rbp's graded gains (m_rbp.c reads the grades, not
    the level; a grade 0 has gain 0 at any level)."""
    return "relevance_threshold" in options and not options.get("graded", False)


def _grades_from_zero(y_true):
    """-l 0 (trec_eval relevance: a judged grade >= 0, never a document without a
    judgement): ``(grades, gain_of)``, the judged grades + 1, which threshold 1 separates
    from the unjudged documents' 0 (NaN and -1 stay unjudged), and the function that turns a
    ``gain`` option into the gains of the shifted grades (each grade's gain as given).

    sklearn-rank's metrics rank an unjudged document as grade 0 and take thresholds above 0:
    a threshold of 0 would make the unjudged documents relevant too.
    """
    judged = y_true >= 0  # NaN (outside the pool) and -1 (unjudged in the pool): False
    grades = np.unique(y_true[judged]).tolist()

    def gain_of(gain):
        # "linear", or trec_eval's level=gain pairs, where an unlisted grade is its own gain
        given = {} if isinstance(gain, str) else dict(gain)
        return {grade + 1: float(given.get(grade, grade)) for grade in grades}

    return np.where(judged, y_true + 1, y_true), gain_of


def _relstring(data, ranking, length, judged_only):
    """trec_eval's relstring: the judgements of each query's first ``length`` ranked
    documents, one character each ('-' outside the pool, '.' in the pool but unjudged,
    '>' above 9), as a row of bytes per query, NUL-padded after a query's last document."""
    shown = data["retrieved"] & (data["y_true"] >= 0 if judged_only else True)
    rows = np.flatnonzero(shown)
    codes = ranking.codes[rows]
    first = np.searchsorted(codes, np.arange(ranking.n_queries))
    rank = np.arange(len(rows)) - first[codes]
    rows, codes, rank = rows[rank < length], codes[rank < length], rank[rank < length]
    grades = data["y_true"][rows]
    chars = np.full(len(rows), ord("<"), dtype=np.uint8)
    with np.errstate(invalid="ignore"):
        digit = (grades >= 0) & (grades <= 9)
        chars[digit] = grades[digit].astype(np.uint8) + ord("0")
        chars[grades > 9] = ord(">")
        chars[grades < 0] = ord(".")
    chars[np.isnan(grades)] = ord("-")
    text = np.zeros((ranking.n_queries, int(rank.max()) + 1 if len(rank) else 0),
                    dtype=np.uint8)
    text[codes, rank] = chars
    return text


# ----------------------------------------------------------------------------------------
# Output, as trec_eval prints it (meas_print_single.c, meas_print_final.c)


def _render(items, query_ids, columns, run_id, args):
    """The output, in pieces of text to write one after the other."""
    if args.per_query:
        shown = [(item, column) for item, column in zip(items, columns)
                 if item.measure.per_query]
        yield from _query_lines(shown, query_ids)
    lines = []
    if args.summary:
        for item, column in zip(items, columns):
            if not item.measure.summary:
                continue
            if item.measure.name == "runid":
                lines.append(f"{'runid':<{_WIDTH}}\tall\t{run_id}\n")
            elif item.measure.count:
                lines.append(f"{item.name:<{_WIDTH}}\tall\t{int(column[1])}\n")
            else:
                lines.append(f"{item.name:<{_WIDTH}}\tall\t{column[1]:6.4f}\n")
    yield "".join(lines)


# Lines of -q assembled and written per block of this many lines (a few MB)
_LINES_PER_BLOCK = 1 << 16


def _query_lines(shown, query_ids):
    """The -q lines of the measures ``shown`` (``[(item, column)]``), as trec_eval prints
    them, in blocks of lines: query by query, every measure of a query, then the next
    query.

    Each line is built as fixed-width byte fields padded with NUL bytes (the measure's
    name padded to 22, the query id, the value), one row of a matrix per line, and the NUL
    bytes dropped at once: no Python loop per line. The files hold no NUL byte
    (``read_trec`` refuses them), so the query ids and the tag cannot lose one.
    """
    if not shown or not len(query_ids):
        return
    ids = _bytes_matrix(np.strings.encode(np.asarray(query_ids, dtype=str), "utf-8"))
    heads = _bytes_matrix(np.array([f"{item.name:<{_WIDTH}}\t".encode() for item, _ in shown]))
    values = [_value_bytes(item, column) for item, column in shown]
    width_of_value = max(value.shape[1] for value in values)
    n_items = len(shown)
    fields = (heads.shape[1], ids.shape[1] + 1, width_of_value + 1)
    width = sum(fields)
    per_block = max(1, _LINES_PER_BLOCK // n_items)
    for start in range(0, len(query_ids), per_block):
        stop = min(start + per_block, len(query_ids))
        block = np.zeros((stop - start, n_items, width), dtype=np.uint8)
        block[:, :, :fields[0]] = heads
        at = fields[0]
        block[:, :, at:at + ids.shape[1]] = ids[start:stop, None, :]
        block[:, :, at + ids.shape[1]] = ord("\t")
        at += fields[1]
        for j, value in enumerate(values):
            block[:, j, at:at + value.shape[1]] = value[start:stop]
        block[:, :, -1] = ord("\n")
        block = block.ravel()
        yield block[block != 0].tobytes().decode("utf-8")


def _bytes_matrix(strings):
    """The bytes of a numpy ``S`` array, one row per string, NUL-padded."""
    strings = np.ascontiguousarray(strings)
    return strings.view(np.uint8).reshape(len(strings), strings.dtype.itemsize)


def _value_bytes(item, column):
    """Each query's value of a measure as trec_eval prints it (a NUL-padded row of bytes
    per query): relstring quoted, a count as an integer, the others to 4 decimals."""
    if item.measure.name == "relstring":
        quote = np.full((len(column), 1), ord("'"), dtype=np.uint8)
        return np.hstack([quote, column, quote])
    if item.measure.count:
        counts = column[0]
        if not np.isfinite(counts).all():
            int(counts[~np.isfinite(counts)][0])  # raises as the count's int() would
        return _integer_bytes(np.trunc(counts).astype(np.int64))
    return _fixed_bytes(column[0])


def _integer_bytes(numbers):
    """int64 numbers written in decimal, as ``str(int)``: a NUL-padded row per number."""
    negative = numbers < 0
    magnitude = np.abs(numbers).astype(np.uint64)
    n_digits = len(str(int(magnitude.max()))) if len(magnitude) else 1
    out = np.zeros((len(numbers), 1 + n_digits), dtype=np.uint8)
    out[negative, 0] = ord("-")
    rest = magnitude
    for j in range(n_digits, 0, -1):
        out[:, j] = rest % 10 + ord("0")
        rest = rest // 10
    # leading zeros are padding, the last digit stays
    out[:, 1:n_digits][np.cumsum(out[:, 1:n_digits] != ord("0"), axis=1) == 0] = 0
    return out


# 2**52: above it the scaled value has no fractional bits to round
_EXACT_SCALED = 2.0**52


def _fixed_bytes(values):
    """Floats written as ``f"{value:6.4f}"`` writes them, a NUL-padded row per value.

    ``value * 10**4`` rounded to the nearest integer gives the digits, except where the
    product, rounded itself, lies within its rounding error of a half: those values (and
    NaN, infinities and huge values) are written by Python's own formatting, which rounds
    the exact decimal value of the double as C's printf does.
    """
    scaled = values * 1e4
    rounded = np.rint(scaled)
    with np.errstate(invalid="ignore"):
        exact = ((np.abs(scaled) < _EXACT_SCALED)
                 & (np.abs(scaled - np.floor(scaled) - 0.5) > 2 * np.spacing(np.abs(scaled))))
    digits = np.where(exact, np.abs(rounded), 0).astype(np.int64)
    whole = _integer_bytes(digits // 10_000)
    whole[np.signbit(values), 0] = ord("-")  # -0.0000, as printf writes a negative value
    fraction = digits % 10_000
    decimals = np.empty((len(values), 5), dtype=np.uint8)
    decimals[:, 0] = ord(".")
    for j in range(4, 0, -1):
        decimals[:, j] = fraction % 10 + ord("0")
        fraction //= 10
    out = np.hstack([whole, decimals])
    others = np.flatnonzero(~exact)
    if len(others):
        written = np.array([f"{value:6.4f}".encode() for value in values[others].tolist()])
        width = max(out.shape[1], written.dtype.itemsize)
        out = np.hstack([out, np.zeros((len(out), width - out.shape[1]), dtype=np.uint8)])
        out[others] = 0
        out[others, :written.dtype.itemsize] = _bytes_matrix(written)
    return out
