"""TrecEvalResult.to_text and write: trec_eval's output, byte for byte, from Python.

The text that ``sklearn-rank trec_eval`` prints (the command writes ``result.write``), and
the expected outputs of NIST's trec_eval test fixtures (``../shared/data/trec_eval-test``,
skipped when absent).
"""

import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_cli_trec_eval import (
    FIXTURE_COMMANDS,
    FIXTURES,
    _fixture_arguments,
    random_trec,
    write_trec,
)

from sklearn_rank.metrics import trec_eval

ROOT = Path(__file__).resolve().parents[1]


def _command_stdout(*argv):
    """The bytes that ``sklearn-rank trec_eval ARGV`` writes on stdout, in a process."""
    result = subprocess.run([sys.executable, "-m", "sklearn_rank", "trec_eval", *map(str, argv)],
                            capture_output=True, check=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    return result.stdout


# -m lists with every kind of value: floats, counts (int), relstring (quoted text), runid
MEASURES = ["all_trec", "relstring.10", "yaap"]


@pytest.mark.parametrize("flags, options, text", [
    ([], {}, {}),
    (["-q"], {}, {"per_query": True}),
    (["-q", "-n", "-c"], {"complete": True}, {"per_query": True, "summary": False}),
    (["-n"], {}, {"summary": False}),
    (["-q", "-c", "-M5", "-l2"], {"complete": True, "max_docs": 5, "relevance_level": 2},
     {"per_query": True}),
])
def test_to_text_is_the_command_s_stdout(tmp_path, flags, options, text):
    qrels, run = random_trec(np.random.default_rng(11), n_queries=9)
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    m = [f"-m{measure}" for measure in MEASURES]
    expected = _command_stdout(*flags, *m, qrels_path, run_path)
    with warnings.catch_warnings():  # the judged queries that the run lacks: said
        warnings.simplefilter("ignore", UserWarning)
        result = trec_eval(qrels_path, run_path, measures=MEASURES, **options)
    got = result.to_text(**text)
    assert got.encode() == expected
    written = io.StringIO()
    result.write(written, **text)
    assert written.getvalue() == got
    if text.get("per_query"):
        assert "relstring_10          \t" in got and "'" in got  # relstring, quoted
        assert len(got.splitlines()) > len(result.summary)


def test_write_to_a_file_is_to_text(tmp_path):
    qrels, run = random_trec(np.random.default_rng(2), n_queries=5)
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    result = trec_eval(qrels_path, run_path, measures="all_trec", complete=True)
    with open(tmp_path / "out.txt", "w", encoding="utf-8", newline="") as out:
        result.write(out, per_query=True)
    assert (tmp_path / "out.txt").read_bytes() == result.to_text(per_query=True).encode()
    assert result.to_text(per_query=False, summary=False) == ""


def _keywords(command):
    """trec_eval()'s keywords and to_text's of a command line of FIXTURE_COMMANDS."""
    measures, others = _fixture_arguments(command)
    options, text = {}, {}
    for word in others:
        if word == "-q":
            text["per_query"] = True
        elif word == "-c":
            options["complete"] = True
        elif word.startswith("-M"):
            options["max_docs"] = int(word[2:])
        elif word.startswith("-l"):
            options["relevance_level"] = int(word[2:])
        else:
            options.setdefault("files", []).append(word)
    qrels, run = options.pop("files")
    return qrels, run, {"measures": measures or "official", **options}, text


@pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"trec_eval's fixtures not at {FIXTURES}")
@pytest.mark.parametrize("output", list(FIXTURE_COMMANDS))
def test_to_text_is_trec_eval_s_expected_output(output):
    qrels, run, options, text = _keywords(FIXTURE_COMMANDS[output])
    result = trec_eval(FIXTURES / qrels, FIXTURES / run, **options)
    # runid: the tag of the run, as trec_eval prints it whatever the path
    assert result.to_text(**text) == (FIXTURES / output).read_text()
