"""trec_eval's numbers of a TREC run, without the command line: :func:`trec_eval`.

The computation of ``sklearn-rank trec_eval``: the files read by
:func:`~sklearn_rank.datasets.read_trec`, the ``-m`` measure list expanded by
:mod:`._trec_names`, each measure bound to trec_eval's convention with the options of
trec_eval's flags, the run ranked once and every measure computed on that one ranking. The
command prints what this returns.
"""

import os
import warnings
from numbers import Integral

import numpy as np

from ..utils._param_validation import Interval, StrOptions, validate_params
from ._trec_text import text_pieces

# What trec_eval sets to 0 for a query that the run lacks under -c, after computing the
# measures on a placeholder ranking (trec_eval.c): the rest is 0 there on its own.
_RESET_WHEN_MISSING = ("num_ret", "utility", "unj", "rbp_resid")


class TrecEvalResult:
    """The numbers of trec_eval for a run, as :func:`trec_eval` returns them.

    Parameters
    ----------
    query_ids, per_query, summary, qrels_only_queries, run_only_queries
        The attributes below.

    Attributes
    ----------
    query_ids : ndarray of str
        The evaluated queries, in trec_eval's order (sorted as strings).
    per_query : dict
        Printed measure name (``"P_5"``, ``"ndcg_cut_10"``) -> its value per query, aligned
        with ``query_ids``, for the measures trec_eval prints per query (``-q``), in
        trec_eval's order: float arrays, int64 arrays for the counts (``num_ret``...), and
        str arrays for ``relstring``.
    summary : dict
        Printed measure name -> the value of trec_eval's ``all`` lines, in trec_eval's
        order: the mean over queries as trec_eval computes it (the geometric mean of
        ``gm_map`` and ``gm_bpref``), an int for the counts (their sums; ``num_q``, the
        number of queries), and the run's tag (str) for ``runid``.
    qrels_only_queries : ndarray of str
        The judged queries that the run has no line for: left out, or evaluated with
        ``complete=True``.
    run_only_queries : ndarray of str
        The queries of the run that the qrels do not judge (left out, as in trec_eval).
    """

    def __init__(self, query_ids, per_query, summary, qrels_only_queries, run_only_queries):
        self.query_ids = query_ids
        self.per_query = per_query
        self.summary = summary
        self.qrels_only_queries = qrels_only_queries
        self.run_only_queries = run_only_queries

    def __repr__(self):
        n_measures = len(dict.fromkeys([*self.per_query, *self.summary]))
        return f"TrecEvalResult({len(self.query_ids)} queries, {n_measures} measures)"

    def to_text(self, *, per_query=False, summary=True):
        """trec_eval's output of these numbers, byte for byte, as a string.

        One line per measure, ``measure<TAB>query<TAB>value``: the measure's name padded
        to 22 characters, values to 4 decimals, counts as integers, ``relstring`` quoted,
        as ``sklearn-rank trec_eval`` and NIST's trec_eval print them.

        Parameters
        ----------
        per_query : bool, default=False
            Each query's lines first, query by query (trec_eval ``-q``).
        summary : bool, default=True
            The ``all`` lines of the means (sums for the counts); False leaves them out
            (trec_eval ``-n``).

        Returns
        -------
        text : str
            The lines, each ending with a newline.

        See Also
        --------
        write : The same text written to a file, a block at a time.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from sklearn_rank.metrics import trec_eval
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "qrels.txt").write_text("1 0 a 1\\n1 0 b 0\\n2 0 c 2\\n")
        >>> _ = (folder / "run.txt").write_text(
        ...     "1 Q0 b 1 0.9 mine\\n1 Q0 a 2 0.5 mine\\n2 Q0 c 1 0.7 mine\\n")
        >>> result = trec_eval(folder / "qrels.txt", folder / "run.txt",
        ...                    measures=["map", "num_q"])
        >>> for line in result.to_text(per_query=True).splitlines():
        ...     print(line.replace("\\t", " | "))
        map                    | 1 | 0.5000
        map                    | 2 | 1.0000
        num_q                  | all | 2
        map                    | all | 0.7500
        """
        return "".join(text_pieces(self, per_query=per_query, summary=summary))

    def write(self, file, *, per_query=False, summary=True):
        """Write trec_eval's output of these numbers to ``file``, a block of lines at a
        time: :meth:`to_text`'s text, without holding all of it (tens of MB with
        ``per_query`` on a large run).

        Parameters
        ----------
        file : file-like object
            Opened for writing text, such as :data:`sys.stdout` or ``open(path, "w")``.
        per_query, summary : bool
            As in :meth:`to_text`.

        Examples
        --------
        >>> import io, tempfile
        >>> from pathlib import Path
        >>> from sklearn_rank.metrics import trec_eval
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "qrels.txt").write_text("1 0 a 1\\n2 0 c 2\\n")
        >>> _ = (folder / "run.txt").write_text("1 Q0 a 1 0.9 mine\\n2 Q0 b 1 0.7 mine\\n")
        >>> out = io.StringIO()
        >>> trec_eval(folder / "qrels.txt", folder / "run.txt", measures="P.1").write(out)
        >>> out.getvalue()
        'P_1                   \\tall\\t0.5000\\n'
        """
        for text in text_pieces(self, per_query=per_query, summary=summary):
            file.write(text)


@validate_params(
    {
        "qrels": [str, os.PathLike],
        "run": [str, os.PathLike],
        "measures": [str, list, tuple],
        "relevance_level": [Interval(Integral, 0, None, closed="left")],
        "judged_only": ["boolean"],
        "complete": ["boolean"],
        "max_docs": [Interval(Integral, 0, None, closed="left"), None],
        "collection_size": [Interval(Integral, 0, None, closed="left"), None],
        "recall_rounding": [StrOptions({"nearest", "legacy"})],
    },
    prefer_skip_nested_validation=True,
)
def trec_eval(qrels, run, *, measures="official", relevance_level=1, judged_only=False,
              complete=False, max_docs=None, collection_size=None, recall_rounding="nearest"):
    """Compute trec_eval's measures of a TREC run judged by TREC qrels, as trec_eval does.

    What ``sklearn-rank trec_eval`` prints, as numbers: the files are read by
    :func:`~sklearn_rank.datasets.read_trec` (strictly, as trec_eval reads them), the
    measures are those that trec_eval's ``-m`` arguments name, in trec_eval's order, each
    with trec_eval's convention and the options below (trec_eval's flags), and the run is
    ranked once (by score, then by document name, descending) for all of them.

    Parameters
    ----------
    qrels : str or path-like
        Judgements, lines ``qid iteration docno grade`` (integer grades; a negative grade
        marks a document in the pool left unjudged).

    run : str or path-like
        Run, lines ``qid Q0 docno rank score tag``.

    measures : str or list of str, default="official"
        The ``-m`` arguments of trec_eval: a measure (``"map"``), a measure with parameters
        after a ``.`` (``"P.5,10"``, ``"ndcg_cut.10"``, ``"ndcg.1=3,2=9"``), or a set of
        measures: ``"official"``, ``"set"``, ``"all_trec"``.

    relevance_level : int, default=1
        Smallest grade of a relevant document (trec_eval ``-l``); with 0, every judged
        document is relevant.

    judged_only : bool, default=False
        Take the documents without a judgement out of the ranking before computing
        (trec_eval ``-J``).

    complete : bool, default=False
        Evaluate every query of the qrels (trec_eval ``-c``): a query that the run lacks
        scores 0 and counts in the means.

    max_docs : int, default=None
        Keep each query's first ``max_docs`` ranked documents only (trec_eval ``-M``);
        None keeps all.

    collection_size : int, default=None
        Number of documents in the collection (trec_eval ``-N``), for the fourth
        coefficient of ``utility``.

    recall_rounding : {"nearest", "legacy"}, default="nearest"
        How ``iprec_at_recall`` and ``11pt_avg`` turn a recall level x into a number of
        relevant documents: x*R rounded to the nearest (trec_eval 10.0), or
        ``(long)(x*R + 0.9)`` (trec_eval 9.0.8 and earlier, pytrec_eval, ir_measures).

    Returns
    -------
    result : TrecEvalResult
        ``query_ids``, ``per_query`` (measure -> values per query) and ``summary``
        (measure -> value of trec_eval's ``all`` line), keyed by trec_eval's printed
        names.

    Raises
    ------
    TrecEvalError
        A :class:`ValueError` for a measure that trec_eval refuses or that sklearn-rank
        does not compute, a ``utility`` that needs ``collection_size``, a grade that is
        not an integer, or no query of the run judged in the qrels; its ``parameter``
        names the parameter at fault, and :meth:`~TrecEvalError.describe` words the
        message with a caller's names of the parameters.
    ValueError
        For a file that trec_eval would refuse (the message names it; its ``parameter``
        says which file, ``"qrels"`` or ``"run"``).

    Warns
    -----
    UserWarning
        With ``complete=False``, when judged queries have no line in the run.

    See Also
    --------
    sklearn_rank.datasets.read_trec : The arrays of the files, for the metric functions.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sklearn_rank.metrics import trec_eval
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels.txt").write_text("1 0 a 1\\n1 0 b 0\\n2 0 c 2\\n")
    >>> _ = (folder / "run.txt").write_text(
    ...     "1 Q0 b 1 0.9 mine\\n1 Q0 a 2 0.5 mine\\n2 Q0 c 1 0.7 mine\\n")
    >>> result = trec_eval(folder / "qrels.txt", folder / "run.txt",
    ...                    measures=["map", "P.1", "num_q"])
    >>> result.query_ids
    array(['1', '2'], dtype='<U1')
    >>> result.per_query["map"]
    array([0.5, 1. ])
    >>> result.summary
    {'num_q': 2, 'map': 0.75, 'P_1': 0.5}
    """
    plan = _plan([measures] if isinstance(measures, str) else list(measures),
                 relevance_level=relevance_level, judged_only=judged_only,
                 collection_size=collection_size, recall_rounding=recall_rounding)
    data = _read(qrels, run, complete=complete, max_docs=max_docs)
    query_ids, columns = _compute(data, plan, relevance_level=relevance_level,
                                  judged_only=judged_only, complete=complete)
    per_query, summary = {}, {}
    for (item, _), column in zip(plan, columns):
        measure = item.measure
        if measure.name == "runid":
            summary["runid"] = _run_id(run)
        elif measure.name == "relstring":
            per_query[item.name] = column
        else:
            values, mean = column
            if measure.per_query:
                per_query[item.name] = _counts(values) if measure.count else values
            if measure.summary:
                summary[item.name] = int(mean) if measure.count else float(mean)
    return TrecEvalResult(query_ids, per_query, summary, data["qrels_only_queries"],
                          data["run_only_queries"])


class _Names(dict):
    """Parameter -> how a message names it; a parameter not given keeps its Python name."""

    def __missing__(self, key):
        return key


class TrecEvalError(ValueError):
    """What :func:`trec_eval` refuses: a measure, a missing ``collection_size``, files
    without a query in common, a grade that is not an integer.

    A :class:`ValueError` whose attributes say what failed, so that a caller (such as the
    command line, whose parameters are trec_eval's flags) can word the message in its own
    terms without reading it.

    Attributes
    ----------
    parameter : {"measures", "collection_size", "run", "qrels"}
        The parameter of :func:`trec_eval` at fault.
    template : str
        The message, with each parameter it names as a field ``{name[measures]}``.
    fields : dict
        The other fields of ``template``.

    Examples
    --------
    >>> from sklearn_rank.metrics import TrecEvalError, trec_eval
    >>> try:
    ...     trec_eval("qrels.txt", "run.txt", measures=[5])  # checked before the files
    ... except TrecEvalError as exc:
    ...     error = exc
    >>> error.parameter
    'measures'
    >>> print(error)
    measures: expected trec_eval measure names (str), got 5 of type int.
    >>> print(error.describe({"measures": "-m"}))
    -m: expected trec_eval measure names (str), got 5 of type int.
    """

    def __init__(self, template, parameter, **fields):
        self.template = template
        self.parameter = parameter
        self.fields = fields
        super().__init__(self.describe())

    def __reduce__(self):  # pickled by its attributes, not by re-running __init__
        return _rebuilt, (self.args,), self.__dict__

    def describe(self, names=None):
        """The message, with the parameters it mentions named as ``names`` says.

        Parameters
        ----------
        names : dict, default=None
            Parameter -> its name in the caller's terms, e.g. ``{"measures": "-m"}``; the
            parameters it leaves out keep their Python names.

        Returns
        -------
        message : str
        """
        return self.template.format_map({**self.fields, "name": _Names(names or {})})


def _rebuilt(args):
    error = ValueError.__new__(TrecEvalError)
    error.args = args
    return error


def _error(template, parameter, **fields):
    return TrecEvalError(template, parameter, **fields)


def _plan(measures, *, relevance_level, judged_only, collection_size, recall_rounding):
    """``[(item, bound)]``: the measures, in trec_eval's order, each with its metric bound
    to its options and trec_eval's convention (None for runid and relstring)."""
    from ._bound import bind_metric
    from ._trec_names import expand_measures, needs_collection_size

    for measure in measures:
        if not isinstance(measure, str):
            raise _error("{name[measures]}: expected trec_eval measure names (str), got "
                         "{measure} of type {kind}.", "measures", measure=repr(measure),
                         kind=type(measure).__name__)
    try:
        items = expand_measures(measures)
    except ValueError as exc:
        raise _error("{error}", "measures", error=str(exc)) from None
    missing = [item.measure for item in items
               if item.measure.metric is not None and item.measure.entry is None]
    if missing:
        names = ", ".join(dict.fromkeys(f"{m.name} (metric {m.metric!r})" for m in missing))
        raise _error("{name[measures]}: this version of sklearn-rank does not compute "
                     "trec_eval's {names}; leave them out of {name[measures]}.", "measures",
                     names=names)
    # relevance_level 0: _compute ranks grades + 1 at threshold 1 (see _grades_from_zero)
    set_by_flags = {"relevance_threshold": float(max(relevance_level, 1)),
                    "unjudged": "condensed" if judged_only else "nonrelevant",
                    "recall_rounding": recall_rounding}
    if collection_size is not None:
        set_by_flags["collection_size"] = collection_size
    plan = []
    for item in items:
        metric = item.measure.entry
        if metric is None:  # runid, relstring: read from the files
            plan.append((item, None))
            continue
        fixed = {**item.options, **{name: value for name, value in set_by_flags.items()
                                    if name in metric.option_names}}
        if needs_collection_size(fixed):
            raise _error("{name[measures]}: {item} counts the non-relevant documents not "
                         "retrieved, which needs the number of documents in the "
                         "collection: give {name[collection_size]} (trec_eval counts a "
                         "collection of 0 documents without it).", "collection_size",
                         item=item.name)
        try:
            bound = bind_metric(metric, options=fixed, convention="trec_eval",
                                caller=f"trec_eval's {item.name}")
        except (TypeError, ValueError) as exc:
            raise _error("{name[measures]}: cannot compute {item}: {error}", "measures",
                         item=item.name, error=str(exc)) from None
        plan.append((item, bound))
    return plan


def _read(qrels, run, *, complete, max_docs):
    """read_trec's arrays, grades checked as trec_eval reads them (integers)."""
    from ..datasets import read_trec

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # strict: blank qrels lines and extra fields are trec_eval's "Malformed line"
        data = read_trec(qrels, run, complete=complete, max_docs=max_docs, strict=True)
    for warning in caught:  # raised again at the caller of trec_eval (and its validation)
        warnings.warn(warning.message, warning.category, stacklevel=4)
    if len(data["qid"]) == 0:
        raise _error("no query of {name[run]} {run!r} is judged in {name[qrels]} {qrels!r}: "
                     "expected the same query ids (first column) in both files, as trec_eval "
                     "does ('No queries with both results and relevance info').", "run",
                     run=str(run), qrels=str(qrels))
    grades = data["y_true"]
    fractional = np.flatnonzero(np.isfinite(grades) & (grades != np.trunc(grades)))
    if len(fractional):
        i = fractional[0]
        raise _error(
            "{name[qrels]} {qrels!r} gives document {docno!r} of query {qid!r} the grade "
            "{grade:g}, and {others} other judgement(s) a grade that is not an integer: "
            "trec_eval reads grades as integers (it would truncate them). Give integer "
            "grades, or use 'sklearn-rank evaluate' for fractional ones.", "qrels",
            qrels=str(qrels), docno=str(data["docno"][i]), qid=str(data["qid"][i]),
            grade=grades[i], others=len(fractional) - 1)
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


def _counts(values):
    """A count's values per query as int64, as trec_eval prints them."""
    if not np.isfinite(values).all():
        int(values[~np.isfinite(values)][0])  # raises as the count's int() would
    return np.trunc(values).astype(np.int64)


def _compute(data, plan, *, relevance_level, judged_only, complete):
    """Query ids (sorted as trec_eval sorts them) and, per item of ``plan``, its column:
    ``(per-query values, summary)``, relstring's strings, or None for runid."""
    from ._input import check_ranking_input

    def rank(y_true):
        # read_trec's rows come query by query in ascending order: the engine numbers the
        # runs of equal ids (utils._qid.factorize), with no hash of every row's string
        try:
            return check_ranking_input(y_true, data["y_score"], data["qid"],
                                       retrieved=data["retrieved"], judged="y_true",
                                       caller="trec_eval")
        except ValueError as exc:
            raise _error("cannot evaluate {name[run]} against {name[qrels]}: {error}", "run",
                         error=str(exc)) from None

    ranking = rank(data["y_true"])
    from_zero = None  # -l 0: the ranking of the grades + 1, and the gain of each such grade
    if relevance_level == 0:
        y_true, shifted_gain = _grades_from_zero(data["y_true"])
        from_zero = rank(y_true), shifted_gain
    query_ids = ranking.query_ids
    missing = None
    if complete and len(data["qrels_only_queries"]):
        missing = np.isin(query_ids, data["qrels_only_queries"])
    columns = []
    for item, bound in plan:
        if item.measure.name == "relstring":
            columns.append(_relstring(data, ranking, item.options["length"], judged_only))
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
            raise _error("cannot compute {item}: {error}", "run", item=item.name,
                         error=str(exc)) from None
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
    '>' above 9), a str per query."""
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
    # a row of bytes per query, NUL-padded after its last document: one ASCII string each
    width = int(rank.max()) + 1 if len(rank) else 1
    text = np.zeros((ranking.n_queries, width), dtype=np.uint8)
    text[codes, rank] = chars
    return text.view(f"S{width}").ravel().astype(str)
