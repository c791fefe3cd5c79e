"""``sklearn-rank trec_eval``: trec_eval's flags and output, byte for byte.

Three references, none of them sklearn-rank:

* trec_eval's own test fixtures (``../shared/data/trec_eval-test``, skipped when absent): the
  command's output must be the file, byte for byte, on the command line that made it;
* pytrec_eval (trec_eval compiled) on random qrels and runs with ties, unjudged documents,
  -1 judgements, queries without relevant documents and queries on one side only, with and
  without -c, -M, -l and -J: every printed value must be pytrec_eval's, printed as trec_eval
  prints it;
* plain Python built here from the files, for what pytrec_eval does not print (relstring,
  runid, the order of the lines).

Measures that the registry does not have are left out of the fixture comparisons and listed
by ``test_fixture_needs_only_available_measures``, which fails unless ``STRICT`` is False
(then it skips, naming them).
"""

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _cli import run_cli

from sklearn_rank.datasets import read_trec
from sklearn_rank.metrics import evaluate_per_query
from sklearn_rank.metrics._trec_names import (
    NICKNAMES,
    TREC_MEASURES,
    _split_printed,
    expand_measures,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "data" / "trec_eval-test"
#: Every measure of the fixtures must be computed (False lists the missing ones as skips).
STRICT = True

# The command lines of trec_eval's Makefile (quicktest) that wrote the expected outputs.
FIXTURE_COMMANDS = {
    "out.test": "qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
        "qrels.test results.test"),
}


def run_trec_eval(capsys, *argv):
    """``(exit code, stdout, stderr)`` of ``sklearn-rank trec_eval ARGV``, in process."""
    return run_cli(capsys, "trec_eval", *argv)


# ------------------------------------------------------------------------------------------
# trec_eval's fixtures


def _fixture_arguments(command):
    """(-m arguments, other arguments) of a command line of FIXTURE_COMMANDS."""
    words, measures, others = command.split(), [], []
    while words:
        word = words.pop(0)
        if word == "-m":
            measures.append(words.pop(0))
        elif word.startswith("-m"):
            measures.append(word[2:])
        else:
            others.append(word)
    return measures, others


def _unavailable(measures):
    """The roots named by ``measures`` (-m arguments) that sklearn-rank cannot compute yet:
    not in the registry, or with options that the registry's metric does not take yet."""
    from sklearn_rank.metrics._registry import metric_options
    from sklearn_rank.utils._param_validation import validate_parameter_constraints

    missing = []
    for item in expand_measures(measures):
        metric = item.measure.entry
        if item.measure.metric is None:
            continue
        if metric is None:
            missing.append(item.measure.name)
            continue
        try:
            validate_parameter_constraints(metric.constraints,
                                           metric_options(metric, item.options, {}),
                                           caller_name=item.name)
        except (TypeError, ValueError):
            missing.append(item.measure.name)
    return list(dict.fromkeys(missing))


def _available_command(command):
    """The command line restricted to the measures sklearn-rank computes: the same flags
    and files, each available root of the measure sets named on its own -m, with its
    parameters. The command itself when every measure is available."""
    measures, others = _fixture_arguments(command)
    missing = _unavailable(measures)
    if not missing:
        return command.split(), []
    parameters = {}
    for argument in measures:
        root, dot, given = argument.partition(".")
        if dot:
            parameters[root] = given
    roots = {item.measure.name for item in expand_measures(measures)}
    kept = [measure.name for measure in TREC_MEASURES
            if measure.name in roots and measure.name not in missing]
    arguments = [f"-m{root}.{parameters[root]}" if root in parameters else f"-m{root}"
                 for root in kept]
    return [*arguments, *others], missing


@pytest.fixture(scope="module")
def fixtures():
    if not FIXTURES.is_dir():
        pytest.skip(f"trec_eval's fixtures not found at {FIXTURES}")
    return FIXTURES


@pytest.mark.parametrize("output", list(FIXTURE_COMMANDS))
def test_fixture_output_is_trec_eval_s(fixtures, output, capsys, monkeypatch):
    monkeypatch.chdir(fixtures)
    argv, missing = _available_command(FIXTURE_COMMANDS[output])
    expected = (fixtures / output).read_text()
    if missing:  # only the lines of the measures computed, in trec_eval's order
        expected = "".join(
            line for line in expected.splitlines(keepends=True)
            if _split_printed(line.split("\t")[0].rstrip())[0].name not in missing)
    code, out, err = run_trec_eval(capsys, *argv)
    assert (code, err) == (0, "")
    assert out == expected


@pytest.mark.parametrize("output", list(FIXTURE_COMMANDS))
def test_fixture_needs_only_available_measures(fixtures, output):
    missing = _unavailable(_fixture_arguments(FIXTURE_COMMANDS[output])[0])
    if missing and not STRICT:
        pytest.skip(f"{output}: measures not computed yet, left out of its comparison: "
                    f"{', '.join(missing)}")
    assert missing == []


def test_fixtures_name_every_measure_in_trec_eval_s_order(fixtures):
    """The roots of all_trec's output, in the order of their lines, are TREC_MEASURES'."""
    printed = [line.split("\t")[0].rstrip()
               for line in (fixtures / "out.test.aq").read_text().splitlines()]
    roots = list(dict.fromkeys(_split_printed(name)[0].name for name in printed))
    per_query_then_summary = [m.name for m in TREC_MEASURES if m.name in roots]
    # the per-query lines come first: runid, num_q, gm_map and gm_bpref are summary-only
    assert sorted(roots) == sorted(NICKNAMES["all_trec"])
    summary = [_split_printed(name)[0].name for name, qid in zip(
        printed, [line.split("\t")[1] for line in
                  (fixtures / "out.test.aq").read_text().splitlines()]) if qid == "all"]
    assert list(dict.fromkeys(summary)) == [n for n in per_query_then_summary
                                            if n != "relstring"]
    official = {_split_printed(line.split("\t")[0].rstrip())[0].name
                for line in (fixtures / "out.test").read_text().splitlines()}
    assert official == set(NICKNAMES["official"])


# ------------------------------------------------------------------------------------------
# Random qrels and runs against pytrec_eval


def random_trec(rng, n_queries=14):
    """Qrels ``{qid: {docno: grade}}`` and a run ``{qid: {docno: score}}`` with trec_eval's
    edge cases: tied scores (on a grid that float32 keeps exact, as pytrec_eval holds
    scores), retrieved documents outside the qrels, -1 judgements, grades 0-3 and up to 11,
    queries without relevant documents, queries in the qrels only and in the run only,
    and query ids whose byte order is not their numeric order."""
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = str(q * 7)  # "0", "7", "14", ..., "91": "14" sorts before "7"
        docs = [f"D{rng.integers(0, 60):02d}-{j}" for j in range(rng.integers(1, 25))]
        kind = q % 7
        if kind != 6:  # judged
            judged = [d for d in docs if rng.random() < 0.7] or docs[:1]
            top = 0 if kind == 1 else (11 if kind == 2 else 3)
            qrels[qid] = {d: int(rng.integers(-1, top + 1)) for d in judged}
            qrels[qid][f"X{q}"] = int(rng.integers(0, top + 1))  # judged, never retrieved
        if kind != 5:  # in the run
            retrieved = [d for d in docs if rng.random() < 0.8] or docs[:1]
            run[qid] = {d: float(rng.integers(0, 12)) / 4 for d in retrieved}
    return qrels, run


def write_trec(folder, qrels, run, tag="sysA"):
    qrels_path, run_path = Path(folder) / "qrels", Path(folder) / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} {i} {s} {tag}\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))
    return qrels_path, run_path


def trec_ranking(docs):
    """trec_eval's order of a query's documents: score descending, then name descending."""
    return sorted(docs, key=lambda d: (docs[d], d), reverse=True)


def parse_output(text):
    """{(measure, qid): printed value} of trec_eval's output, checking its layout."""
    printed = {}
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        assert len(name) >= 22 and name == name.rstrip().ljust(22), line
        printed[name.rstrip(), qid] = value
    return printed


def trec_format(value, count=False):
    return str(int(value)) if count else f"{value:6.4f}"


def pytrec_eval_expected(qrels, run, roots, *, complete=False, max_docs=None, level=1,
                         judged_only=False):
    """{(measure, qid or "all"): text} that trec_eval prints, from pytrec_eval's values.

    pytrec_eval has no -c or -M: -M keeps each query's first documents before the call;
    -c adds the judged queries that the run lacks, scoring 0 (num_rel their relevant
    documents), and averages over all judged queries, as trec_eval does.
    """
    pytrec_eval = pytest.importorskip("pytrec_eval")
    if max_docs is not None:
        run = {q: {d: docs[d] for d in trec_ranking(docs)[:max_docs]} for q, docs in run.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(roots), relevance_level=level,
                                               judged_docs_only_flag=judged_only)
    per_query = evaluator.evaluate({q: docs for q, docs in run.items() if q in qrels})
    names = sorted({name for values in per_query.values() for name in values})
    if complete:
        for q in set(qrels) - set(per_query):
            relevant = sum(grade >= level for grade in qrels[q].values())
            per_query[q] = {name: float(relevant) if name == "num_rel" else 0.0
                            for name in names}
            for name in ("gm_map", "gm_bpref"):  # pytrec_eval holds their logarithm
                if name in names:
                    per_query[q][name] = math.log(1e-5)
    expected = {}
    for name in names:
        root = _split_printed(name)[0]
        values = [per_query[q][name] for q in sorted(per_query)]
        if root.per_query:
            for q in per_query:
                expected[name, q] = trec_format(per_query[q][name], root.count)
        if root.name in ("gm_map", "gm_bpref"):
            expected[name, "all"] = trec_format(math.exp(sum(values) / len(values)))
        elif root.count:
            expected[name, "all"] = trec_format(sum(values), count=True)
        elif root.name != "num_q":
            expected[name, "all"] = trec_format(sum(values) / len(values))
    expected["num_q", "all"] = str(len(per_query))
    return expected


# pytrec_eval runs trec_eval 9, which turned a recall level x into (long)(x * R + 0.9)
# relevant documents up to 9.0.8; trec_eval 10.0, the fixtures and the command round x * R
# to the nearest: the fixtures check these two (and --recall-rounding legacy pytrec_eval's).
_ROUNDING_CHANGED = ("iprec_at_recall", "11pt_avg")


def _pytrec_roots():
    """The roots that both pytrec_eval and sklearn-rank compute, with their defaults."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    return [m.name for m in TREC_MEASURES
            if m.name in pytrec_eval.supported_measures and m.entry is not None
            and m.name not in ("num_q", "runid", "relstring", *_ROUNDING_CHANGED)]


FLAGS = {
    "default": {},
    "-c": {"complete": True},
    "-M7": {"max_docs": 7},
    "-l2": {"level": 2},
    "-J": {"judged_only": True},
    "-c -M3 -l2 -J": {"complete": True, "max_docs": 3, "level": 2, "judged_only": True},
}
ARGUMENTS = {"complete": "-c", "max_docs": "-M{}", "level": "-l{}", "judged_only": "-J"}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("flags", list(FLAGS))
def test_every_value_is_pytrec_eval_s(tmp_path, capsys, seed, flags):
    qrels, run = random_trec(np.random.default_rng(seed))
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    options = FLAGS[flags]
    roots = _pytrec_roots()
    argv = [ARGUMENTS[name].format(value) for name, value in options.items()]
    code, out, err = run_trec_eval(capsys, "-q", *argv, *(f"-m{root}" for root in roots),
                                   qrels_path, run_path)
    assert code == 0, err
    printed = parse_output(out)
    expected = pytrec_eval_expected(qrels, run, roots, **options)
    expected.pop(("num_q", "all"))  # asked for only with its set (official, all_trec)
    assert printed == expected


def test_the_default_measures_are_official(tmp_path, capsys):
    qrels, run = random_trec(np.random.default_rng(2))
    files = write_trec(tmp_path, qrels, run)
    assert run_trec_eval(capsys, *files)[:2] == run_trec_eval(capsys, "-m", "official",
                                                              *files)[:2]
    items = expand_measures([])
    assert [item.name for item in items] == [item.name for item in expand_measures(["official"])]
    missing = [item.measure.name for item in items if item.measure.metric is not None
               and item.measure.entry is None]
    if missing:
        pytest.skip(f"official needs {sorted(set(missing))}, not computed yet")
    code, out, _ = run_trec_eval(capsys, "-q", *files)
    roots = [m for m in NICKNAMES["official"] if m not in ("runid", "num_q")]
    expected = pytrec_eval_expected(qrels, run, roots)
    expected["runid", "all"] = "sysA"
    printed = parse_output(out)
    assert {key for key in printed if key[0].startswith("iprec_at_recall")} == {
        key for key in expected if key[0].startswith("iprec_at_recall")}
    assert ({k: v for k, v in printed.items() if not k[0].startswith("iprec_at_recall")}
            == {k: v for k, v in expected.items() if not k[0].startswith("iprec_at_recall")})


# ------------------------------------------------------------------------------------------
# The layout of the output


@pytest.fixture
def small_files(tmp_path):
    qrels, run = random_trec(np.random.default_rng(3), n_queries=7)
    return (qrels, run, *write_trec(tmp_path, qrels, run))


def _lines(text):
    return [line.split("\t") for line in text.splitlines()]


def test_lines_come_in_trec_eval_s_order_whatever_the_order_of_m(small_files, capsys):
    *_, qrels_path, run_path = small_files
    first = run_trec_eval(capsys, "-q", "-m", "P.10,5", "-m", "recip_rank", "-m", "map",
                          qrels_path, run_path)
    second = run_trec_eval(capsys, "-q", "-mmap", "-mrecip_rank", "-mP.5,10",
                           qrels_path, run_path)
    assert first == second and first[0] == 0
    lines = _lines(first[1])
    queries = sorted({q for _, q, _ in lines} - {"all"}, key=lambda q: q.encode())
    names = ["map", "recip_rank", "P_5", "P_10"]
    # every measure of a query, query after query in byte order, then the 'all' lines
    assert [(n.rstrip(), q) for n, q, _ in lines] == [
        *((name, q) for q in queries for name in names), *((name, "all") for name in names)]
    assert queries[:2] == ["0", "14"]  # byte order: "14" before "7"


def test_summary_only_per_query_only_and_both(small_files, capsys):
    *_, qrels_path, run_path = small_files
    both = _lines(run_trec_eval(capsys, "-q", "-m", "map", qrels_path, run_path)[1])
    summary = _lines(run_trec_eval(capsys, "-m", "map", qrels_path, run_path)[1])
    per_query = _lines(run_trec_eval(capsys, "-q", "-n", "-m", "map", qrels_path, run_path)[1])
    nothing = run_trec_eval(capsys, "-n", "-m", "map", qrels_path, run_path)
    assert summary == [line for line in both if line[1] == "all"] and len(summary) == 1
    assert per_query == [line for line in both if line[1] != "all"] and per_query
    assert nothing[:2] == (0, "")


def test_long_option_names_are_trec_eval_s(small_files, capsys):
    *_, qrels_path, run_path = small_files
    short = run_trec_eval(capsys, "-q", "-c", "-n", "-l2", "-J", "-M5", "-mP.5", qrels_path,
                          run_path)
    long = run_trec_eval(capsys, "--query_eval_wanted", "--complete_rel_info_wanted",
                         "--nosummary", "--level_for_rel", "2", "--Judged_docs_only",
                         "--Max_retrieved_per_topic", "5", "--measure", "P.5", qrels_path,
                         run_path)
    assert short == long and short[0] == 0 and short[1]


def test_runid_is_the_tag_of_the_run_s_last_line(tmp_path, capsys):
    qrels, run = random_trec(np.random.default_rng(4), n_queries=4)
    qrels_path, run_path = write_trec(tmp_path, qrels, run, tag="first")
    last_query = next(q for q in reversed(list(run)) if q in qrels)
    last_doc = next(iter(run[last_query]))
    with run_path.open("a") as handle:  # trec_eval keeps the tag of the last content line
        handle.write(f"{last_query} Q0 {last_doc}x 9 0.5 last-tag extra words\n\n# comment\n")
    code, out, _ = run_trec_eval(capsys, "-m", "runid", qrels_path, run_path)
    assert (code, out) == (0, f"{'runid':<22}\tall\tlast-tag\n")


def test_relstring_shows_each_query_s_first_judgements(tmp_path, capsys):
    rng = np.random.default_rng(5)
    qrels, run = random_trec(rng, n_queries=14)
    qrels_path, run_path = write_trec(tmp_path, qrels, run)

    def expected(length, judged_only=False, max_docs=None):
        strings = {}
        for q in sorted(set(qrels) & set(run), key=str.encode):
            ranked = trec_ranking(run[q])[:max_docs]
            if judged_only:
                ranked = [d for d in ranked if qrels[q].get(d, -1) >= 0]
            chars = []
            for d in ranked[:length]:
                grade = qrels[q].get(d)
                chars.append("-" if grade is None else "." if grade < 0 else
                             ">" if grade > 9 else str(grade))
            strings[q] = "'" + "".join(chars) + "'"
        return strings

    for argv, want in [((), expected(10)), (("-mrelstring.25",), expected(25)),
                       (("-J", "-mrelstring.4"), expected(4, judged_only=True)),
                       (("-M3", "-mrelstring.8"), expected(8, max_docs=3))]:
        code, out, _ = run_trec_eval(capsys, "-q", "-mrelstring", *argv, qrels_path, run_path)
        assert code == 0
        lines = _lines(out)
        name = "relstring" if not argv else f"relstring_{argv[-1].split('.')[1]}"
        assert {q: v for n, q, v in lines} == want
        assert {n.rstrip() for n, _, _ in lines} == {name}
    assert any(">" in s for s in expected(25).values())  # the data has every character
    assert any("." in s for s in expected(25).values())
    assert any("-" in s for s in expected(25).values())


def test_per_query_values_are_written_as_printf_writes_them():
    """-q writes its values without a Python loop per line: each value as f"{v:6.4f}"
    (printf's "%6.4f") writes it, halves of the fourth decimal included, and each count as
    str(int(v))."""
    from sklearn_rank.metrics._trec_text import _fixed_bytes, _integer_bytes

    rng = np.random.default_rng(0)
    values = np.concatenate([
        rng.random(20_000), -rng.random(1_000) * 50,
        np.arange(1, 3_000) / 32,  # exact halves of the fourth decimal: 0.03125
        rng.integers(0, 100_000, 5_000) / 10_000 + 0.00005,  # near halves, either side
        rng.integers(0, 1_000, 2_000) / rng.integers(1, 1_000, 2_000),
        [0.0, -0.0, -0.00001, 0.00005, 0.00015, 2.5e-5, 12345.67895, 99999.99995, 1e20,
         -1e300, np.nan, np.inf, -np.inf, 2.0**52 / 1e4, 0.5e-4 * 3],
    ])

    def written(rows):
        return [bytes(row[row != 0]).decode() for row in rows]

    assert written(_fixed_bytes(values)) == [f"{v:6.4f}" for v in values.tolist()]
    counts = np.r_[0, 1, 9, 10, 99, 100, -5, -100, 123_456_789_012, rng.integers(0, 10**6, 500)]
    assert written(_integer_bytes(counts)) == [str(c) for c in counts.tolist()]


def test_per_query_lines_are_the_same_in_blocks(small_files, capsys, monkeypatch):
    """The -q lines, assembled in blocks of lines to bound memory, are the same whatever
    the block's size (one line, a few queries, all)."""
    from sklearn_rank.metrics import _trec_text

    *_, qrels, run = small_files
    outputs = []
    for size in (1, 7, 1 << 16):
        monkeypatch.setattr(_trec_text, "_LINES_PER_BLOCK", size)
        code, out, _ = run_trec_eval(capsys, "-q", "-c", "-m", "all_trec", "-m", "yaap",
                                     qrels, run)
        assert code == 0
        outputs.append(out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert len({q for _, q, _ in _lines(outputs[0])}) > 3


def test_a_judged_query_without_run_lines_is_named_on_stderr(small_files, capsys):
    qrels, run, qrels_path, run_path = small_files
    lacking = sorted(set(qrels) - set(run))
    assert lacking
    code, out, err = run_trec_eval(capsys, "-m", "map", qrels_path, run_path)
    assert code == 0 and out
    assert "no line in the run" in err and all(repr(q) in err for q in lacking)
    assert "-c" in err
    assert run_trec_eval(capsys, "-c", "-m", "map", qrels_path, run_path)[2] == ""


def test_a_query_named_all_is_printed_as_trec_eval_prints_it(tmp_path, capsys):
    # trec_eval prints a query 'all' with -q as any query, before the lines of the means
    # that bear the same name: stdout stays trec_eval's, stderr says it
    qrels = tmp_path / "qrels"
    qrels.write_text("all 0 d1 1\nall 0 d2 0\nb 0 d1 0\nb 0 d2 1\n")
    run = tmp_path / "run"
    run.write_text("all Q0 d1 1 0.9 r\nall Q0 d2 2 0.1 r\nb Q0 d1 1 0.9 r\n"
                   "b Q0 d2 2 0.1 r\n")
    code, out, err = run_trec_eval(capsys, "-q", "-m", "map", qrels, run)
    assert code == 0
    assert out == ("map                   \tall\t1.0000\nmap                   \tb\t0.5000\n"
                   "map                   \tall\t0.7500\n")
    assert "note: a query is named 'all'" in err and "-n" in err
    for flags in (["-m", "map"], ["-q", "-n", "-m", "map"]):  # no two lines alike: no note
        code, out, err = run_trec_eval(capsys, *flags, qrels, run)
        assert code == 0 and out and err == ""


def test_c_averages_over_every_judged_query(small_files, capsys):
    qrels, run, qrels_path, run_path = small_files
    code, out, _ = run_trec_eval(capsys, "-q", "-c", "-m", "P.5", qrels_path, run_path)
    lines = _lines(out)
    assert code == 0
    assert sorted(q for _, q, _ in lines if q != "all") == sorted(qrels)
    lacking = set(qrels) - set(run)
    assert all(v == "0.0000" for _, q, v in lines if q in lacking)


def test_sums_are_added_in_trec_eval_s_order(tmp_path, capsys):
    """trec_eval adds a query's precisions in ranked order, and the queries' values in
    query order, then divides: exact halves at the 4th decimal round as its sums do.
    Pairwise sums (np.add.reduceat, mean) printed map 0.1098 and P_20 0.6062."""
    # relevant at ranks 2, 8, 16 and 25 of 10 relevant: AP = 1.0975 / 10
    qrels = "".join(f"1 0 r{i} 1\n" for i in range(10))
    ranked = {1: "r0", 7: "r1", 15: "r2", 24: "r3"}
    run = "".join(f"1 Q0 {ranked.get(i, f'n{i}')} {i + 1} {100 - i} s\n" for i in range(30))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    code, out, _ = run_trec_eval(capsys, "-m", "map", tmp_path / "q", tmp_path / "r")
    assert (code, out) == (0, f"{'map':<22}\tall\t0.1097\n")
    # 16 queries whose P_20 are hits / 20: the mean is 0.60625 exactly
    hits = [17, 12, 10, 14, 10, 20, 15, 1, 3, 11, 17, 1, 14, 15, 16, 18]
    qrels = "".join(f"{q} 0 d{i} 1\n" for q, h in enumerate(hits, 10) for i in range(h))
    run = "".join(f"{q} Q0 d{i} {i + 1} {50 - i} s\n" for q in range(10, 26)
                  for i in range(20))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    code, out, _ = run_trec_eval(capsys, "-m", "P.20", tmp_path / "q", tmp_path / "r")
    assert (code, out) == (0, f"{'P_20':<22}\tall\t0.6063\n")


# ------------------------------------------------------------------------------------------
# Errors: one line on stderr, the exit code, the option or the measure named


ERRORS = [
    (["-m", "nDCG"], 2, "case-sensitive: 'ndcg'"),
    (["-m", "ndcgg"], 2, "unknown trec_eval measure 'ndcgg'"),
    (["-m", "prefs"], 2, "preferences"),
    (["-m", "prefs_simp"], 2, "preferences"),
    (["-m", "map_avgjg"], 2, "qrels_jg"),
    (["-m", "ideal_dcg"], 2, "ideal_dcg"),
    (["-m", "map.5"], 2, "map takes no parameters"),
    (["-m", "all_trec.5"], 2, "takes no parameters"),
    (["-m", "P."], 2, "no parameters after the '.'"),
    (["-m", "P.5", "-m", "P.10"], 2, "trec_eval would keep the first only"),
    (["-m", "P.0"], 2, "cut-offs must be positive"),
    (["-m", "P.5,5"], 2, "cut-offs must be distinct"),
    (["-m", "P.x"], 2, "cut-offs must be integers"),
    (["-m", "iprec_at_recall.a"], 2, "must be numbers"),
    (["-m", "ndcg.1=3,x"], 2, "level=gain pairs"),
    (["-m", "rbp.q=0.5"], 2, "rbp takes one parameter, the persistence p"),
    (["-m", "rbp_resid.p=1"], 2, "persistence p between 0 and 1"),
    (["-m", "yaap.5"], 2, "yaap takes no parameters"),
    (["-m", "iprec_at_recall.0_5"], 2, "must be numbers; got '0_5'"),
    (["-m", "P.\u0661\u0660"], 2, "cut-offs must be integers"),
    (["--recall-rounding", "floor"], 2, "invalid choice: 'floor'"),
    (["-m", "utility.1,2"], 2, "takes 4 coefficients"),
    (["-m", "11pt_avg..5,.25"], 2, "ascending"),
    (["-m", "set_F.0"], 2, "positive relative weight"),
    (["-m", "utility.1,-1,0,0.5"], 2, "give -N"),
    (["-N", "-1"], 2, "must be at least 0"),
    (["-R", "prefs"], 2, "-R (--Rel_info_format)"),
    (["-T", "other"], 2, "-T (--Results_format)"),
    (["-Z", "means.txt"], 2, "-Z (--Zscore)"),
    (["-D", "1"], 2, "-D (--Debug_level)"),
    (["-v"], 2, "-v (--version)"),
    (["-l-1"], 2, "-l/--level_for_rel: must be at least 0, got -1"),
    (["-l-1"], 2, "must be at least 0"),
    (["-M-1"], 2, "must be at least 0"),
    (["-l", "1.5"], 2, "expected an integer"),
    (["-x"], 2, "unrecognized arguments: -x"),
]


@pytest.mark.parametrize("argv, code, message", ERRORS, ids=[" ".join(e[0]) for e in ERRORS])
def test_errors_name_what_is_wrong(small_files, capsys, argv, code, message):
    *_, qrels_path, run_path = small_files
    got, out, err = run_trec_eval(capsys, *argv, qrels_path, run_path)
    assert (got, out) == (code, "")
    assert err.startswith("sklearn-rank trec_eval: error: ") and err.count("\n") == 1
    assert message in err


def test_utility_counts_the_collection_of_n(small_files, capsys):
    """-N: the fourth coefficient counts the collection's documents neither relevant nor
    retrieved (m_utility.c), computed here from the files."""
    qrels, run, qrels_path, run_path = small_files
    code, out, _ = run_trec_eval(capsys, "-q", "-N", "500", "-m", "utility.2,-1,0.5,0.25",
                                 qrels_path, run_path)
    assert code == 0
    printed = parse_output(out)
    queries = sorted(set(qrels) & set(run))
    values = []
    for q in queries:
        relevant = {d for d, g in qrels[q].items() if g >= 1}
        found = len(relevant & set(run[q]))
        retrieved = len(run[q])
        values.append(2 * found - (retrieved - found) + 0.5 * (len(relevant) - found)
                      + 0.25 * (500 + found - retrieved - len(relevant)))
        assert printed["utility_2,-1,0.5,0.25", q] == trec_format(values[-1])
    assert printed["utility_2,-1,0.5,0.25", "all"] == trec_format(sum(values) / len(values))


def test_default_formats_are_accepted(small_files, capsys):
    *_, qrels_path, run_path = small_files
    plain = run_trec_eval(capsys, "-m", "map", qrels_path, run_path)
    assert run_trec_eval(capsys, "-R", "qrels", "-T", "trec_results", "-m", "map",
                         qrels_path, run_path) == plain


@pytest.mark.parametrize("qrels_text, run_text, message", [
    ("1 0 a 1.5\n", "1 Q0 a 1 1.0 t\n", "not an integer"),
    ("1 0 a 1\n", "2 Q0 a 1 1.0 t\n", "no query of RUN"),
    ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1.0 t\n", "twice"),
    ("1 0 a x\n", "1 Q0 a 1 1.0 t\n", "QRELS"),
    ("1 0 a 1\n", "1 Q0 a 1 nan t\n", "RUN"),
    # numbers that trec_eval's atol and atof read a prefix of: refused with their line
    ("1 0 b 0\n1 0 a inf\n", "1 Q0 a 1 1.0 t\n", "QRELS: Line 2 of "),
    ("1 0 a 1e1\n", "1 Q0 a 1 1.0 t\n", "the grade '1e1' is not a number"),
    ("1 0 a 1\n", "1 Q0 a 1 1_0 t\n", "RUN: Line 1 of "),
])
def test_data_errors_name_the_file(tmp_path, capsys, qrels_text, run_text, message):
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    code, out, err = run_trec_eval(capsys, "-m", "P.1", tmp_path / "q", tmp_path / "r")
    assert (code, out) == (1, "")
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("qrels_text, run_text, message", [
    ("1 0 a 1 extra\n", "1 Q0 a 1 1.0 t\n", "QRELS: Line 1 of .* has 5 fields; a TREC qrels "
     "line has 4, .* \\(trec_eval refuses the line: 'Malformed line'\\)"),
    ("1 0 a 1\n\n1 0 b 0\n", "1 Q0 a 1 1.0 t\n", "QRELS: Line 2 of .* is blank; trec_eval "
     "refuses it \\('Malformed line'\\)"),
    ("1 0 a 1\n\t\n", "1 Q0 a 1 1.0 t\n", "QRELS: Line 2 of .* is blank"),
])
def test_malformed_lines_are_refused_as_trec_eval_refuses_them(tmp_path, capsys, qrels_text,
                                                                run_text, message):
    """trec_eval stops on a blank line and on a line of more fields ("Malformed line"); the
    command read them (read_trec, strict=False, still does)."""
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    code, out, err = run_trec_eval(capsys, "-m", "P.1", tmp_path / "q", tmp_path / "r")
    assert (code, out) == (1, "")
    assert re.search(message, err) and err.count("\n") == 1
    assert read_trec(tmp_path / "q", tmp_path / "r")["qid"].tolist() == ["1"] * (
        1 + qrels_text.count(" b "))
    # a run's text after the tag, which trec_eval's own test run holds, and blank lines
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t more junk\n\n")
    code, out, err = run_trec_eval(capsys, "-m", "P.1", tmp_path / "q", tmp_path / "r")
    assert (code, out) == (0, f"{'P_1':<22}\tall\t1.0000\n"), err


def test_m0_keeps_no_document_and_rbp_takes_its_persistence(small_files, capsys):
    """-M0 (trec_eval keeps min(n, 0) documents of each query) and rbp.p=, rbp_resid.p=,
    which trec_eval 10.0 reads as the persistence: both were refused."""
    qrels, run, qrels_path, run_path = small_files
    code, out, err = run_trec_eval(capsys, "-M0", "-m", "num_ret", "-m", "num_rel_ret",
                                   "-m", "map", qrels_path, run_path)
    assert code == 0, err
    assert out == (f"{'num_ret':<22}\tall\t0\n{'num_rel_ret':<22}\tall\t0\n"
                   f"{'map':<22}\tall\t0.0000\n")
    code, out, err = run_trec_eval(capsys, "-q", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.5",
                                   qrels_path, run_path)
    assert code == 0, err
    printed = parse_output(out)
    with pytest.warns(UserWarning, match="have no line in the run"):
        data = read_trec(qrels_path, run_path)
    arrays = {name: data[name] for name in ("y_true", "y_score", "qid", "retrieved", "docno")}
    for name, metric in (("rbp_p=0.5", "rbp(p=0.5)"), ("rbp_resid_p=0.5", "rbp_residual(p=0.5)")):
        result = evaluate_per_query(**arrays, judged="y_true", metrics=[metric],
                                    convention="trec_eval")
        for q, value in zip(result.query_ids.tolist(), result.values[metric].tolist()):
            assert printed[name, q] == trec_format(value), (name, q)
    # p=0.9, trec_eval's default, is rbp's value
    assert {q: v for (m, q), v in printed.items() if m == "rbp_p=0.5"} != {
        q: v for (m, q), v in parse_output(run_trec_eval(
            capsys, "-q", "-m", "rbp", qrels_path, run_path)[1]).items()}
    assert run_trec_eval(capsys, "-m", "rbp.p=0.9", qrels_path, run_path)[1].split("\t")[1:] == (
        run_trec_eval(capsys, "-m", "rbp", qrels_path, run_path)[1].split("\t")[1:])


def test_recall_rounding_legacy_is_trec_eval_9_s(tmp_path, capsys):
    """--recall-rounding legacy: (long)(x R + 0.9), trec_eval 9.0.8 and earlier, as
    pytrec_eval computes it; the default rounds x R to the nearest (trec_eval 10.0)."""
    qrels, run = random_trec(np.random.default_rng(4))
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    roots = ["iprec_at_recall", "11pt_avg"]
    code, out, err = run_trec_eval(capsys, "-q", "--recall-rounding", "legacy",
                                   *(f"-m{root}" for root in roots), qrels_path, run_path)
    assert code == 0, err
    expected = pytrec_eval_expected(qrels, run, roots)
    expected.pop(("num_q", "all"))
    assert parse_output(out) == expected
    nearest = run_trec_eval(capsys, "-q", *(f"-m{root}" for root in roots), qrels_path,
                            run_path)[1]
    assert parse_output(nearest) != expected


def test_missing_files_and_standard_input(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n")
    code, _, err = run_trec_eval(capsys, "-mmap", tmp_path / "q", tmp_path / "absent")
    assert code == 1 and "RUN" in err and "no such file" in err
    code, _, err = run_trec_eval(capsys, "-mmap", tmp_path / "absent", tmp_path / "q")
    assert code == 1 and "QRELS" in err and "no such file" in err
    code, _, err = run_trec_eval(capsys, "-mmap", tmp_path / "q", "-")
    assert code == 2 and "standard input" in err
    code, out, err = run_trec_eval(capsys, "-mmap", tmp_path / "q", tmp_path / "q")
    assert code == 1 and out == "" and "are the same file" in err


def test_help_lists_trec_eval_s_flags(capsys):
    code, out, _ = run_trec_eval(capsys, "--help")
    assert code == 0
    for flag in ("-q", "-m", "-c", "-n", "-l", "-J", "-M", "all_trec", "official"):
        assert re.search(rf"(^|\s){re.escape(flag)}\b", out), flag


def test_the_command_stays_light(small_files):
    """Neither --help nor a run of every measure imports scikit-learn, SciPy or pandas:
    importing them took a second of the three of a 1M-line run."""
    *_, qrels, run = small_files
    code = ("import sys\n"
            "from sklearn_rank._cli import main\n"
            "main(['trec_eval', '-q', '-c', '-m', 'all_trec', sys.argv[1], sys.argv[2]])\n"
            "print(sorted(m for m in ('sklearn', 'pandas', 'scipy') if m in sys.modules))\n")
    result = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)],
                            capture_output=True, text=True, check=True, cwd=ROOT,
                            env={**os.environ, "PYTHONWARNINGS": "error"})
    assert "\nndcg_cut_10           \tall\t" in result.stdout
    assert result.stdout.splitlines()[-1] == "[]"


# ------------------------------------------------------------------------------------------
# yaap (m_yaap.c), which pytrec_eval does not compute


def test_yaap_is_worked_by_hand(tmp_path, capsys):
    # q1: relevant at ranks 1 and 3, a third relevant document never retrieved: S = 1 + 2/3,
    # R = 3, yaap = log((1 + 5/3) / (1 + 3 - 5/3)) = log(8/7). q2: its relevant document at
    # rank 2, below an unjudged one: S = 1/2, R = 1, yaap = log(1) = 0. q3 is judged only:
    # with -c, S = 0 and yaap = log(1 / (1 + 2)).
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 1}, "q2": {"e1": 1},
             "q3": {"f1": 1, "f2": 2}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"e1": 0.5, "e2": 1.0}}
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    code, out, err = run_trec_eval(capsys, "-q", "-m", "yaap", qrels_path, run_path)
    assert code == 0, err
    yaap_q1 = math.log(8 / 7)
    assert out == (f"{'yaap':<22}\tq1\t{yaap_q1:6.4f}\n"  # 0.1335
                   f"{'yaap':<22}\tq2\t0.0000\n"
                   f"{'yaap':<22}\tall\t{yaap_q1 / 2:6.4f}\n")
    assert f"{yaap_q1:6.4f}" == "0.1335" and f"{yaap_q1 / 2:6.4f}" == "0.0668"
    code, out, err = run_trec_eval(capsys, "-q", "-c", "-m", "yaap", qrels_path, run_path)
    assert code == 0, err
    mean = (yaap_q1 + 0.0 + math.log(1 / 3)) / 3
    assert out == (f"{'yaap':<22}\tq1\t0.1335\n"
                   f"{'yaap':<22}\tq2\t0.0000\n"
                   f"{'yaap':<22}\tq3\t-1.0986\n"
                   f"{'yaap':<22}\tall\t{mean:6.4f}\n")
    assert f"{mean:6.4f}" == "-0.3217"
    # summary only without -q; yaap comes in trec_eval's order, after map
    code, out, _ = run_trec_eval(capsys, "-m", "yaap", "-m", "map", qrels_path, run_path)
    assert [line.split("\t")[0].rstrip() for line in out.splitlines()] == ["map", "yaap"]


def _yaap(ap, n_relevant):
    # AP = S / R: yaap from AP's numerator S and R
    numerator = ap * n_relevant
    return math.log((1.0 + numerator) / (1.0 + n_relevant - numerator))


@pytest.mark.parametrize("flags", list(FLAGS))
def test_yaap_follows_from_pytrec_eval_s_map_and_num_rel(tmp_path, capsys, flags):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    options = FLAGS[flags]
    level = options.get("level", 1)
    qrels, run = random_trec(np.random.default_rng(5))
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    argv = [ARGUMENTS[name].format(value) for name, value in options.items()]
    code, out, err = run_trec_eval(capsys, "-q", *argv, "-m", "yaap", qrels_path, run_path)
    assert code == 0, err
    if "max_docs" in options:
        run = {q: {d: docs[d] for d in trec_ranking(docs)[:options["max_docs"]]}
               for q, docs in run.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "num_rel"}, relevance_level=level,
        judged_docs_only_flag=options.get("judged_only", False))
    values = {q: _yaap(v["map"], v["num_rel"])
              for q, v in evaluator.evaluate({q: d for q, d in run.items() if q in qrels}).items()}
    if options.get("complete"):
        for q in set(qrels) - set(values):  # no run line: S = 0
            values[q] = _yaap(0.0, sum(grade >= level for grade in qrels[q].values()))
    expected = {("yaap", q): f"{v:6.4f}" for q, v in values.items()}
    expected["yaap", "all"] = f"{sum(values[q] for q in sorted(values)) / len(values):6.4f}"
    assert parse_output(out) == expected


# ------------------------------------------------------------------------------------------
# -l 0: every judged document relevant, none without a judgement


def test_l0_makes_every_judged_document_relevant_and_no_unjudged_one(tmp_path, capsys):
    # ranked: a (2), b (0), x (outside the qrels), c (1), e (-1: unjudged in the pool), d (0);
    # z (1) is judged, never retrieved
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "d": 0, "e": -1, "z": 1}}
    run = {"q1": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6, "e": 0.5, "d": 0.4}}
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    measures = ["-m", "map", "-m", "P.5", "-m", "recall.5", "-m", "num_rel", "-m",
                "num_rel_ret", "-m", "ndcg", "-m", "rbp", "-m", "yaap", "-m", "bpref"]

    def printed(level):
        code, out, err = run_trec_eval(capsys, f"-l{level}", *measures, qrels_path, run_path)
        assert code == 0, err
        return {name: value for (name, _), value in parse_output(out).items()}

    one, zero = printed(1), printed(0)
    # -l 1: a, c, z relevant (R = 3); a at rank 1, c at 4
    assert {name: one[name] for name in ("map", "P_5", "recall_5", "num_rel", "num_rel_ret")} == {
        "map": f"{(1 + 2 / 4) / 3:6.4f}", "P_5": "0.4000", "recall_5": f"{2 / 3:6.4f}",
        "num_rel": "3", "num_rel_ret": "2"}
    # -l 0: a, b, c, d, z relevant (R = 5), x and e not; a, b, c, d at ranks 1, 2, 4, 6
    ap = (1 / 1 + 2 / 2 + 3 / 4 + 4 / 6) / 5
    assert {name: zero[name] for name in ("map", "P_5", "recall_5", "num_rel", "num_rel_ret")} == {
        "map": f"{ap:6.4f}", "P_5": "0.6000", "recall_5": "0.6000", "num_rel": "5",
        "num_rel_ret": "4"}
    assert zero["map"] == "0.6833"
    assert zero["yaap"] == f"{math.log((1 + ap * 5) / (1 + 5 - ap * 5)):6.4f}"
    # every judged document relevant: no judged non-relevant one above a relevant one (x and
    # e do not count), bpref = 4 relevant retrieved / R = 5
    assert zero["bpref"] == "0.8000"
    # trec_eval's ndcg and rbp read the grades as gains, not the level: unchanged
    ndcg = (2 + 1 / math.log2(5)) / (2 + 1 / math.log2(3) + 1 / math.log2(4))
    assert zero["ndcg"] == one["ndcg"] == f"{ndcg:6.4f}"
    assert zero["rbp"] == one["rbp"]


def test_l0_gives_rndcg_the_grades_as_gains(tmp_path, capsys):
    # Rndcg reads both: R from the level, the gains from the grades. Without a judged grade
    # 0 and without unjudged documents, -l 0 and -l 1 agree on every measure.
    qrels = {"q1": {"a": 2, "b": 1, "c": 3}, "q2": {"d": 1, "e": 2}}
    run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7}, "q2": {"e": 0.5, "d": 0.4}}
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    outputs = [run_trec_eval(capsys, "-q", f"-l{level}", "-m", "all_trec", "-m",
                             "ndcg.1=3,2=9", qrels_path, run_path)
               for level in (0, 1)]
    assert outputs[0][0] == outputs[1][0] == 0
    assert outputs[0][1] == outputs[1][1]


def test_a_fractional_grade_is_named_as_written(tmp_path, capsys):
    # the document and the query as written in the file, not numpy's np.str_('a')
    (tmp_path / "qrels").write_text("1 0 a 1.5\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1.0 t\n")
    code, out, err = run_trec_eval(capsys, tmp_path / "qrels", tmp_path / "run")
    assert (code, out) == (1, "")
    assert err == (f"sklearn-rank trec_eval: error: QRELS {str(tmp_path / 'qrels')!r} gives "
                   "document 'a' of query '1' the grade 1.5, and 0 other judgement(s) a grade "
                   "that is not an integer: trec_eval reads grades as integers (it would "
                   "truncate them). Give integer grades, or use 'sklearn-rank evaluate' for "
                   "fractional ones.\n")
