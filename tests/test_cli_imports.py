"""The command line imports only public names from outside ``sklearn_rank/_cli/``.

A private name (``from ..datasets._tables import _read_table``, ``from ..metrics._engine
import GradeError``) ties the CLI to the inside of a library module: the library cannot
change its private code without breaking the CLI, and the CLI ends up a second copy of the
library. The CLI uses what a Python user can use; what it needs and no public name gives is
a missing public function.
"""

import ast
from pathlib import Path

import pytest

import sklearn_rank

CLI = Path(sklearn_rank.__file__).parent / "_cli"

# Private imports that stay in the files of this change, each with the reason no public name
# serves yet: each is a public function missing.
KNOWN = {}


def _private(dotted):
    """Whether a dotted name has a private part (``_x``, not a dunder such as
    ``__version__``)."""
    return any(part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
               for part in dotted.split("."))


def _absolute(node, package):
    """The absolute module of an ``ImportFrom`` node of a module of ``package``."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[:len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports(path, package="sklearn_rank._cli"):
    """``[(line, module, name)]``: the private names ``path`` imports from outside
    ``package`` (a private module, or a private name of a public one)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            if module == package or module.startswith(package + "."):
                continue
            found += [(node.lineno, module, alias.name) for alias in node.names
                      if _private(module) or _private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, alias.name) for alias in node.names
                      if _private(alias.name)]
    return found


# The leaves that the library and the command line share: plain text and figure-label
# helpers, and whether two paths name one file; no library logic and no import of
# sklearn_rank. One copy serves every layer (CONTRIBUTING: utils/ is the leaf layer), rather
# than a twin in the CLI; test_output_leaves_are_leaves keeps them so.
OUTPUT_LEAVES = {"sklearn_rank.utils._text", "sklearn_rank.utils._figures",
                 "sklearn_rank.utils._paths"}


def _offenders(name):
    return [(line, module, imported)
            for line, module, imported in private_imports(CLI / name)
            if (name, module, imported) not in KNOWN and module not in OUTPUT_LEAVES]


def test_output_leaves_are_leaves():
    """The output leaves import nothing of sklearn_rank, at module level or inside
    functions: the CLI reaches no library logic through them."""
    root = Path(sklearn_rank.__file__).parent
    for module in OUTPUT_LEAVES:
        path = root.joinpath(*module.split(".")[1:]).with_suffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert not node.level and not (node.module or "").startswith("sklearn_rank"), (
                    module, node.lineno)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("sklearn_rank") for a in node.names), module


def test_the_check_finds_private_imports(tmp_path):
    """The check itself: relative and absolute, module-level and inside functions; public
    names, dunders and the CLI's own modules pass."""
    path = tmp_path / "example.py"
    path.write_text(
        "import os\n"
        "from ._common import CLIError, _same_file\n"
        "from .. import __version__\n"
        "from ..datasets import read_table\n"
        "from ..datasets._tables import read_table\n"
        "def f():\n"
        "    from ..metrics import _engine\n"
        "    import sklearn_rank.utils._qid\n"
        "    from sklearn.utils._tags import get_tags\n"
        "    from .._version import __version__\n")
    assert private_imports(path) == [
        (5, "sklearn_rank.datasets._tables", "read_table"),
        (7, "sklearn_rank.metrics", "_engine"),
        (8, "sklearn_rank.utils._qid", "sklearn_rank.utils._qid"),
        (9, "sklearn.utils._tags", "get_tags"),
        (10, "sklearn_rank._version", "__version__"),
    ]


@pytest.mark.parametrize("name", sorted(p.name for p in CLI.glob("*.py")))
def test_cli_imports_no_private_name(name):
    assert _offenders(name) == []


def test_known_private_imports_are_still_there():
    """An entry of KNOWN that the code no longer needs goes: the list says what is left."""
    for name, module, imported in KNOWN:
        assert (module, imported) in {(m, i) for _, m, i in private_imports(CLI / name)}, (
            name, module, imported)


def test_no_subcommand_imports_the_package():
    """The package ``sklearn_rank._cli`` imports its subcommands: a subcommand that imported
    the package back (``from . import COMMANDS``) would make an import cycle."""
    for path in sorted(CLI.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert _absolute(node, "sklearn_rank._cli") != "sklearn_rank._cli", (
                    path.name, node.lineno)
