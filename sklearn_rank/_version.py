"""The version of sklearn-rank, in a leaf module that imports nothing.

The one place the version is written: ``pyproject.toml`` reads it
(``[tool.setuptools.dynamic]``, a literal setuptools reads without importing the package), and
``sklearn_rank.__version__`` re-exports it. Modules that need the version import it from here,
which costs nothing and cannot form an import cycle.
"""

__version__ = "0.1.0.dev0"
