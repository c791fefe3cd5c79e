"""``sklearn-rank trec_eval``: NIST trec_eval's command line, flags and output, byte for byte.

A shell over :func:`sklearn_rank.metrics.trec_eval`, which reads the files, expands the -m
measures and computes them, and :meth:`~sklearn_rank.metrics.TrecEvalResult.write`, which
prints its numbers as trec_eval prints them: the command gives them its flags and says their
errors in the words of the command line.
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
    result = _evaluate(args)
    query_ids = result.query_ids
    if args.per_query and args.summary and np.isin("all", query_ids):
        # trec_eval prints it as it is: stdout stays trec_eval's, stderr says it
        print("sklearn-rank trec_eval: note: a query is named 'all', as the lines of the "
              "means are: with -q, its lines precede them but read alike. Rename it to tell "
              "them apart, or give -n (no lines of means).", file=sys.stderr)
    # written a block of lines at a time: the whole text of -q is tens of MB
    result.write(sys.stdout, per_query=args.per_query, summary=args.summary)
    sys.stdout.flush()
    return 0


# The parameters of trec_eval() -> the command's flags and arguments, for the messages of
# its TrecEvalError (TrecEvalError.describe)
_FLAGS = {"measures": "-m", "collection_size": "-N", "run": "RUN", "qrels": "QRELS"}


def _evaluate(args):
    """:func:`~sklearn_rank.metrics.trec_eval` with the command's flags, its errors in the
    command's words (a bad -m or -N is a usage error, checked before the files are read)."""
    import warnings

    from ..metrics import TrecEvalError, trec_eval

    options = {"relevance_level": args.level, "judged_only": args.judged_only,
               "complete": args.complete, "max_docs": args.max_docs,
               "collection_size": args.collection_size,
               "recall_rounding": args.recall_rounding}
    with warnings.catch_warnings():
        # judged queries without a line in the run: trec_eval leaves them out without a word
        # without -c; stdout stays trec_eval's, and a note on stderr names them (below)
        warnings.filterwarnings("ignore", message=r".* have no line in the run",
                                category=UserWarning)
        try:
            # the measures are checked first, then the files are read
            result = trec_eval(args.qrels, args.run, measures=args.measures, **options)
        except TrecEvalError as exc:
            if exc.parameter in ("measures", "collection_size"):
                raise usage_error(exc.describe(_FLAGS)) from None
            raise CLIError(exc.describe(_FLAGS)) from None
        except (OSError, ValueError) as exc:
            if isinstance(exc, OSError) or hasattr(exc, "path"):  # reading a file
                check_input_file(args.qrels, "QRELS")  # missing, a folder, unreadable
                check_input_file(args.run, "RUN")
                # read_trec's message names the file, its attribute which one
                which = "RUN" if getattr(exc, "parameter", None) == "run" else "QRELS"
                raise CLIError(f"{which}: {exc}") from None
            raise CLIError(str(exc)) from None
    missing = result.qrels_only_queries
    if len(missing) and not args.complete:
        shown = ", ".join(map(repr, missing[:5].tolist())) + (", ..." if len(missing) > 5 else "")
        one = len(missing) == 1
        print(f"sklearn-rank trec_eval: note: {len(missing)} judged "
              f"quer{'y has' if one else 'ies have'} no line in the run ({shown}): left out, "
              f"as trec_eval leaves {'it' if one else 'them'} out without -c.", file=sys.stderr)
    return result


def _refuse_options(args):
    for short, (long, reason) in _REFUSED.items():
        value = getattr(args, f"refused_{short[1]}")
        if value in (None, False) or value == _DEFAULT_FORMATS.get(short):
            continue
        raise usage_error(f"{short} ({long}) {reason}: sklearn-rank trec_eval does not "
                          "support it.")
