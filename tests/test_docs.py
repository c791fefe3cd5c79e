"""The code of the user guide runs: each page of ``docs/`` is a script.

For each ``docs/*.rst`` page, every Python block runs in document order in one namespace, so
that a block sees the names that earlier blocks of the page bound, as a reader who runs the page
from the top does. A name rebound by a later section is what the blocks after it see.

Which blocks are Python, and how they run:

* ``.. code-block:: python`` (or ``py``, ``python3``, ``pycon``), and ``::`` literal blocks,
  which Sphinx highlights as Python unless ``.. highlight::`` says otherwise. A ``::`` block
  that is not Python fails the test: give it its language (``.. code-block:: text``).
  Blocks of any other language (``bash``, ``text``, ``console``...) are not run.
* A block whose first line starts with ``>>>`` is a doctest: its outputs are checked too,
  with the flags of ``pytest --doctest-glob`` (``ELLIPSIS``).
* ``.. testsetup::`` (Sphinx's ``sphinx.ext.doctest``, which renders nothing) holds a page's
  hidden set-up: the data that its text assumes (``X``, ``y``, ``qid``...), small enough for
  the page to run in seconds. It runs where it stands; put it at the top of the page.
* An rST comment ``.. untested: <reason>`` keeps the next Python block from running, e.g. one
  that needs a cluster or the reader's own files. The reason is required, and
  ``UNTESTED_BLOCKS`` below counts such blocks page by page, so that their number cannot grow
  unnoticed.

The doctests of each page also run on their own, as CI's ``pytest --doctest-glob="*.rst"
docs/*.rst`` runs them: a ``>>>`` example may use only what earlier doctests bound.

A failure names the page, the line of the failing statement and the exception. The rST is read
by docutils, with the directives of Sphinx that the pages use registered here; a directive it
does not know fails the test rather than hide the code inside it.
"""

import contextlib
import doctest
import importlib.util
import io
import re
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
import sklearn

docutils = pytest.importorskip("docutils", reason="docutils comes with Sphinx: the docs extra")
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # before the pages import pyplot

import matplotlib.pyplot as plt  # noqa: E402
from docutils import nodes  # noqa: E402
from docutils.parsers.rst import Directive, Parser, directives  # noqa: E402
from docutils.utils import new_document  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs"
# sphinx-gallery writes sg_execution_times.rst into docs/ (ignored by git); it is no page.
PAGES = sorted(p.name for p in DOCS.glob("*.rst") if p.name != "sg_execution_times.rst")

#: Blocks marked ``.. untested: <reason>``, page by page. Raise a count only with a reason that
#: a reader of the page would accept (a cluster, the reader's own files); data can always be
#: made up in a ``.. testsetup::``.
UNTESTED_BLOCKS = {}

PYTHON_LANGUAGES = {"python", "python3", "py", "py3", "pycon", "ipython", "ipython3"}
# Sphinx's default highlight_language, "default", is Python that may fail to lex.
DEFAULT_LANGUAGE = "default"
UNTESTED = re.compile(r"untested:\s*(?P<reason>\S.*)?", flags=re.S)


# -- Reading the blocks of a page -----------------------------------------------------------

class _AnyOption(dict):
    """An option_spec that takes every option (Sphinx's code-block has many docutils lacks)."""

    def __missing__(self, key):
        return directives.unchanged

    def __bool__(self):  # docutils reads no options when the spec is empty
        return True


DOCTEST_DIRECTIVES = {"testsetup": "python", "testcode": "python", "testcleanup": "python",
                      "doctest": "pycon"}


class _CodeBlock(Directive):
    """``code-block`` and its aliases, and ``testsetup``...: a literal block, its language."""

    optional_arguments = 1
    final_argument_whitespace = True  # doctest group lists: "group1, group2"
    option_spec = _AnyOption()
    has_content = True

    def run(self):
        text = "\n".join(self.content)
        node = nodes.literal_block(text, text)
        node["directive"] = self.name
        # sphinx.ext.doctest's directives take group names as arguments, not a language
        node["language"] = DOCTEST_DIRECTIVES.get(self.name) or (
            self.arguments[0].lower() if self.arguments else None)
        return [node]


class _Highlight(Directive):
    """``.. highlight:: LANGUAGE``: the language of the ``::`` blocks that follow."""

    required_arguments = 1
    option_spec = _AnyOption()

    def run(self):
        node = nodes.pending(None)
        node["highlight"] = self.arguments[0].lower()
        return [node]


class _Opaque(Directive):
    """A Sphinx directive whose content holds no code (``autosummary``, ``toctree``...)."""

    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = _AnyOption()
    has_content = True

    def run(self):
        return []


class _Body(Directive):
    """A Sphinx directive whose content is rST, which may hold code (``option``, ``data``...)."""

    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = _AnyOption()
    has_content = True

    def run(self):
        container = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, container)
        return [container]


# docutils keeps its directives in a module-level registry, which Sphinx fills too when it runs
# in this process; these are registered only while a page is read, as Sphinx's own
# docutils_namespace() does.
SPHINX_DIRECTIVES = {
    **dict.fromkeys(("code-block", "code", "sourcecode", *DOCTEST_DIRECTIVES), _CodeBlock),
    "highlight": _Highlight,
    **dict.fromkeys(("autosummary", "automodule", "autoclass", "autofunction", "currentmodule",
                     "module", "toctree", "program", "index", "literalinclude",
                     "testoutput"), _Opaque),
    **dict.fromkeys(("data", "option", "seealso", "versionadded", "versionchanged",
                     "deprecated", "only", "describe", "function", "class", "method",
                     "attribute"), _Body),
}


@contextlib.contextmanager
def _sphinx_directives():
    saved = dict(directives._directives)
    try:
        for name, directive in SPHINX_DIRECTIVES.items():
            directives.register_directive(name, directive)
        yield
    finally:
        directives._directives.clear()
        directives._directives.update(saved)


@dataclass
class Block:
    """A Python block of a page: its source, first line (1-based) and how it runs."""

    code: str
    line: int
    kind: str  # "doctest", "script" or "untested"
    reason: str = ""


def _default_settings():
    try:
        from docutils.frontend import get_default_settings  # docutils >= 0.19
    except ImportError:  # docutils 0.18, which Sphinx 7.0 allows
        from docutils.frontend import OptionParser

        return OptionParser(components=(Parser,)).get_default_values()
    return get_default_settings(Parser)


def _parse(text, source):
    settings = _default_settings()
    settings.report_level = 5  # silence: the problems that matter are raised below
    settings.halt_level = 5
    settings.syntax_highlight = "none"
    settings.file_insertion_enabled = False
    document = new_document(source, settings)
    with _sphinx_directives():
        Parser().parse(text, document)
    return document


def _first_line(node, lines, start, prefix=""):
    """The 1-based line of the first line of a block's content, searched from ``start``.

    docutils gives a literal block the line that follows it, or none; the content itself is
    found in the source instead, from the end of the previous block on.
    """
    content = node.astext().splitlines() or [""]
    for i in range(start, len(lines)):
        if lines[i].strip() == prefix + content[0].strip() and all(
            a.strip() == b.strip() for a, b in zip(lines[i + 1:i + len(content)], content[1:])
        ):
            return i + 1
    raise AssertionError(f"block not found in the source after line {start}: {content[0]!r}")


def python_blocks(text, source="<page>"):
    """The Python blocks of an rST text, in document order.

    Raises AssertionError for what would hide code or make a block ambiguous: a directive not
    registered here, a ``::`` block highlighted as Python that is not Python, an
    ``.. untested:`` without a reason or without a Python block after it.
    """
    document = _parse(text, source)
    lines = text.splitlines()
    problems = []
    for message in document.findall(nodes.system_message):
        said = message.children[0].astext()
        # Sphinx's roles (:func:...) are unknown to docutils, and harmless: they hold no code.
        if message["level"] >= 3 and not said.startswith("Unknown interpreted text role"):
            problems.append(f"{source}:{message.get('line')}: {said}")
    if problems:
        raise AssertionError("docutils cannot read the page as tests/test_docs.py registers "
                             "Sphinx's directives (register any new one there):\n"
                             + "\n".join(problems))

    blocks = []
    language = DEFAULT_LANGUAGE
    untested_reason = untested_line = None
    cursor = 0
    condition = (nodes.literal_block, nodes.doctest_block, nodes.comment, nodes.pending)
    for node in document.findall(lambda n: isinstance(n, condition)):
        if isinstance(node, nodes.pending):  # also what .. contents:: leaves
            language = node.get("highlight", language)
            continue
        if isinstance(node, nodes.comment):
            match = UNTESTED.match(node.astext())
            if match:
                untested_line = _first_line(node, lines, cursor, prefix=".. ")
                untested_reason = (match["reason"] or "").strip()
                if not untested_reason:
                    raise AssertionError(f"{source}:{untested_line}: '.. untested:' needs a "
                                         "reason, e.g. '.. untested: needs a Dask cluster'")
            continue
        line = _first_line(node, lines, cursor)
        cursor = line - 1 + len(node.astext().splitlines())
        if isinstance(node, nodes.doctest_block):
            block_language = "pycon"
        elif "directive" in node:
            block_language = node["language"] or language
        else:
            block_language = language
        code = node.astext()
        is_doctest = code.lstrip().startswith(">>>")
        if untested_reason is not None and (
                is_doctest or block_language not in PYTHON_LANGUAGES | {DEFAULT_LANGUAGE}):
            raise AssertionError(
                f"{source}:{untested_line}: '.. untested:' applies to the next block, a Python "
                "block that is not a doctest (in a doctest, mark an example "
                "'# doctest: +SKIP', which pytest --doctest-glob honours too)")
        if block_language not in PYTHON_LANGUAGES | {DEFAULT_LANGUAGE}:
            continue
        if not is_doctest:
            try:
                compile(code, source, "exec")
            except SyntaxError as exc:
                if block_language == DEFAULT_LANGUAGE and "directive" not in node:
                    raise AssertionError(
                        f"{source}:{line}: this '::' block is highlighted as Python but is not "
                        f"Python ({exc.msg}): introduce it with '.. code-block:: text' (or its "
                        "language) instead") from None
                raise AssertionError(f"{source}:{line}: a Python block that does not "
                                     f"compile: {exc}") from None
        if untested_reason is not None:
            blocks.append(Block(code, line, "untested", untested_reason))
            untested_reason = None
        else:
            blocks.append(Block(code, line, "doctest" if is_doctest else "script"))
    if untested_reason is not None:
        raise AssertionError(f"{source}:{untested_line}: '.. untested:' with no block after it")
    return blocks


# -- Running a page -------------------------------------------------------------------------

def _run_doctest(block, namespace, path):
    test = doctest.DocTestParser().get_doctest(
        block.code, namespace, name=path.name, filename=str(path), lineno=block.line - 1)
    runner = doctest.DebugRunner(verbose=False, optionflags=doctest.ELLIPSIS)
    failure = None
    try:
        runner.run(test, clear_globs=False)
    except (doctest.DocTestFailure, doctest.UnexpectedException) as exc:
        failure = exc
    namespace.update(test.globs)  # the DocTest ran on a copy of the namespace
    if failure is None:
        return
    example = failure.example
    where = f"{path.name}, line {block.line + example.lineno}: {example.source.strip()}"
    if isinstance(failure, doctest.DocTestFailure):
        pytest.fail(f"{where}\nexpected:\n{example.want}got:\n{failure.got}", pytrace=False)
    exc = failure.exc_info[1]
    pytest.fail(f"{where}\nraised {type(exc).__name__}: {exc}\n\n"
                f"{''.join(traceback.format_exception(exc))}", pytrace=False)


def _run_script(block, namespace, path):
    # Padded with blank lines, so that line numbers in tracebacks are those of the page.
    code = compile("\n" * (block.line - 1) + block.code, str(path), "exec")
    try:
        exec(code, namespace)
        return
    except Exception as exc:  # reported below, outside of the handler
        error = exc
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    line = frames[-1].lineno if frames else block.line
    pytest.fail(f"{path.name}, line {line} (in the block from line {block.line}): "
                f"{type(error).__name__}: {error}\n\n"
                f"{''.join(traceback.format_exception(error))}", pytrace=False)


@pytest.fixture
def page_environment(tmp_path, monkeypatch):
    """What a page may change, restored: scikit-learn's config, figures, the working folder."""
    monkeypatch.chdir(tmp_path)  # a page may write files
    with sklearn.config_context(), warnings.catch_warnings():  # a page may switch routing on
        # what plt.show() says under Agg, where a reader would see the figure
        warnings.filterwarnings("ignore", "FigureCanvasAgg is non-interactive", UserWarning)
        yield
    plt.close("all")


def run_page(path, untested_expected=0, kinds=("doctest", "script")):
    """Run the Python blocks of the page at ``path`` in order, in one namespace; return it.

    ``kinds=("doctest",)`` runs the doctests only, as ``pytest --doctest-glob`` does.
    """
    blocks = python_blocks(path.read_text(encoding="utf-8"), source=path.name)
    untested = [block for block in blocks if block.kind == "untested"]
    assert len(untested) == untested_expected, (
        f"{path.name}: {len(untested)} blocks marked '.. untested:' (lines "
        f"{[block.line for block in untested]}), UNTESTED_BLOCKS of tests/test_docs.py expects "
        f"{untested_expected}: run the new ones, with data from a '.. testsetup::'")
    namespace = {"__name__": "__main__"}
    for block in blocks:
        if block.kind == "doctest" and "doctest" in kinds:
            _run_doctest(block, namespace, path)
        elif block.kind == "script" and "script" in kinds:
            _run_script(block, namespace, path)
    return namespace


# The pages that take more than a few seconds: they fit rankers on the data of their text.
SLOW_PAGES = {"benchmarking.rst", "tuning.rst", "scaling.rst"}
# The pages whose doctests alone take more than a few seconds: they start Dask clusters of
# worker processes.
SLOW_DOCTESTS = {"scaling.rst"}


@pytest.mark.parametrize("page", [
    pytest.param(page, marks=[pytest.mark.slow] if page in SLOW_PAGES else [])
    for page in PAGES
])
def test_page_runs_as_a_script(page, page_environment):
    run_page(DOCS / page, UNTESTED_BLOCKS.get(page, 0))


@pytest.mark.parametrize("page", [
    pytest.param(page, marks=[pytest.mark.slow] if page in SLOW_DOCTESTS else [])
    for page in PAGES
])
def test_page_doctests_run_on_their_own(page, page_environment):
    """The doctests of a page pass without its other blocks, as CI's doctest step runs them.

    ``pytest --doctest-glob="*.rst" docs/*.rst`` (in ``.ci/run``) runs the ``>>>`` examples
    of a page alone, in order: a doctest that uses a name bound by a ``::`` block, a
    ``.. code-block:: python`` or a ``.. testsetup::`` fails there. Bind it in a doctest, or
    write the block that uses it without ``>>>``.
    """
    run_page(DOCS / page, UNTESTED_BLOCKS.get(page, 0), kinds=("doctest",))


# -- The reader itself ------------------------------------------------------------------------

SAMPLE = """\
Title
=====

.. testsetup::

    x = 1

Introduced by a paragraph::

    y = x + 1

.. code-block:: python
   :caption: Sphinx's options are accepted

   z = y + 1

.. code-block:: bash

   pip install sklearn-rank

.. note::

   Nested::

       >>> z
       3

>>> z + 1
4

.. untested: needs the reader's own files

.. code-block:: python

   open("my_run.txt")

.. highlight:: text

::

    not python at all
"""


def test_python_blocks_are_found_in_order_with_their_lines():
    blocks = python_blocks(SAMPLE)
    assert [(b.kind, b.line, b.code.splitlines()[0]) for b in blocks] == [
        ("script", 6, "x = 1"),
        ("script", 10, "y = x + 1"),
        ("script", 15, "z = y + 1"),
        ("doctest", 25, ">>> z"),
        ("doctest", 28, ">>> z + 1"),
        ("untested", 35, 'open("my_run.txt")'),
    ]
    assert blocks[-1].reason == "needs the reader's own files"


@pytest.mark.parametrize(("text", "message"), [
    ("Text::\n\n    $ sklearn-rank cv --help\n", "introduce it with '.. code-block:: text'"),
    (".. code-block:: python\n\n   def f(:\n", "a Python block that does not compile"),
    (".. untested:\n\n.. code-block:: python\n\n   x = 1\n", "needs a reason"),
    (".. untested: no data\n\nText.\n", "with no block after it"),
    (".. untested: no data\n\n.. code-block:: bash\n\n   ls\n", "applies to the next block"),
    (".. untested: no data\n\n>>> 1\n1\n", "'# doctest: +SKIP'"),
    (".. plot::\n\n   import matplotlib\n", 'Unknown directive type "plot"'),
])
def test_python_blocks_refuses_what_would_hide_code(text, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        python_blocks(text)


def test_a_page_is_one_script(tmp_path, page_environment):
    path = tmp_path / "page.rst"
    path.write_text(SAMPLE)
    namespace = run_page(path, untested_expected=1)
    assert (namespace["x"], namespace["y"], namespace["z"]) == (1, 2, 3)


def test_a_name_rebound_by_a_later_block_is_what_the_next_blocks_see(tmp_path,
                                                                        page_environment):
    # docs/tuning.rst as it was: its plot read the first search after a second one rebound it
    path = tmp_path / "page.rst"
    path.write_text(".. code-block:: python\n\n   search = {'num_leaves': [7, 31]}\n\n"
                    "Another search::\n\n    search = {'max_depth': [3, 6]}\n\n"
                    "Its plot::\n\n    search['num_leaves']\n")
    with pytest.raises(pytest.fail.Exception, match=r"page.rst, line 11 \(in the block from "
                                                    r"line 11\): KeyError: 'num_leaves'"):
        run_page(path)


def test_a_failing_block_names_the_page_line_and_exception(tmp_path, page_environment):
    path = tmp_path / "page.rst"
    path.write_text("Intro::\n\n    a = 1\n    b = a / 0\n\nThen::\n\n    >>> a\n    2\n")
    blocks = python_blocks(path.read_text(), source=path.name)
    namespace = {}
    with pytest.raises(pytest.fail.Exception,
                       match=r"page.rst, line 4 \(in the block from line 3\): "
                             r"ZeroDivisionError: division by zero"):
        _run_script(blocks[0], namespace, path)
    with pytest.raises(pytest.fail.Exception, match=r"(?s)page.rst, line 8: a\nexpected:\n2"):
        _run_doctest(blocks[1], namespace, path)


# -- Metric names are never e-mail links ------------------------------------------------------

def _load_docs_conf():
    spec = importlib.util.spec_from_file_location("sklearn_rank_docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


@pytest.mark.parametrize(("text", "fails"), [
    ("The mean nDCG@10 of the ranker.", True),
    ("The mean ``nDCG@10`` of the ranker, its P@k and `ERR@20`.", False),
])
def test_docs_build_fails_on_a_metric_name_rendered_as_an_e_mail_link(tmp_path, text, fails):
    application = pytest.importorskip("sphinx.application")
    from sphinx.util.docutils import docutils_namespace

    conf = _load_docs_conf()
    source = tmp_path / "source"
    source.mkdir()
    (source / "index.rst").write_text(f"Title\n=====\n\n{text}\n", encoding="utf-8")
    warnings = io.StringIO()
    with docutils_namespace():  # as sphinx-build does: docutils' registries restored after
        app = application.Sphinx(source, None, tmp_path / "out", tmp_path / "doctrees",
                                 "dummy", confoverrides={"default_role": conf.default_role},
                                 status=None, warning=warnings, warningiserror=True)
        app.setup_extension("sphinx.ext.autodoc")  # conf.setup also hooks into autodoc
        conf.setup(app)
        app.build()
    if fails:
        assert app.statuscode == 1
        assert ("index.rst:4: WARNING: 'nDCG@10' is rendered as an e-mail link (mailto:nDCG@10); "
                "write it as a literal, ``nDCG@10``") in warnings.getvalue()
    else:
        assert app.statuscode == 0, warnings.getvalue()
        assert warnings.getvalue() == ""
