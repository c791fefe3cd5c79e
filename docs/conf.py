"""Sphinx configuration of the sklearn-rank documentation.

Build (from the root of a clone, with ``pip install -e ".[test,docs]"``; see index.rst)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The build runs every example of ``examples/`` (sphinx-gallery) and needs no network access:
intersphinx, which downloads the inventories of other projects, is off unless the environment
variable ``SKLEARN_RANK_DOCS_INTERSPHINX=1`` is set.
"""

import os
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

# Document the clone this file belongs to, installed or not.
DOCS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS_DIR.parent))

# The examples draw without a display; set before anything imports matplotlib.
os.environ.setdefault("MPLBACKEND", "Agg")

import sklearn_rank  # noqa: E402

# -- Project ------------------------------------------------------------------------------

project = "sklearn-rank"
author = "The sklearn-rank developers"
copyright = "the sklearn-rank developers"
release = sklearn_rank.__version__
version = release

# -- General ------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    # for its ``.. testsetup::`` directive only, which renders nothing: the set-up code at the
    # top of a page of the user guide, run by tests/test_docs.py with the page's code blocks
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
if os.environ.get("SKLEARN_RANK_DOCS_INTERSPHINX") == "1":
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
        "matplotlib": ("https://matplotlib.org/stable", None),
        "lightgbm": ("https://lightgbm.readthedocs.io/en/stable", None),
        "xgboost": ("https://xgboost.readthedocs.io/en/stable", None),
    }

templates_path = ["templates"]
exclude_patterns = ["_build", "templates"]
root_doc = "index"
default_role = "literal"
pygments_style = "sphinx"

# -- API reference: autosummary and numpydoc, in the scikit-learn manner --------------------

autosummary_generate = True
autodoc_typehints = "none"
# Class pages list their methods through the class.rst template (autodoc), not numpydoc.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False


def _defined_outside_sklearn_rank(member):
    """Whether a class member comes from scikit-learn, a booster or the standard library."""
    if isinstance(member, property):
        member = member.fget
    member = getattr(member, "__func__", member)
    module = getattr(member, "__module__", None) or ""
    return not module.startswith("sklearn_rank")


def skip_foreign_members(app, what, name, obj, skip, options):
    """Document on a class page only what sklearn-rank defines.

    The class template asks for inherited members, so that a method written once in a private
    base class of sklearn-rank appears on each public class. Members inherited from
    scikit-learn (``get_params``, the ``set_*_request`` methods it generates), LightGBM,
    XGBoost or CatBoost are documented by those projects; their docstrings link to pages of
    their own documentation, which do not exist here.
    """
    if what == "class" and _defined_outside_sklearn_rank(obj):
        return True
    return None


# -- Checks ---------------------------------------------------------------------------------

logger = logging.getLogger(__name__)


def warn_mailto_references(app, doctree):
    """Warn of every e-mail link in a page: in these docs, it is a metric name gone wrong.

    docutils turns any ``name@host`` of running text into a ``mailto:`` link, so a metric
    written as nDCG@10 outside a literal becomes a link to the address "nDCG@10". This runs on
    every page read, including the API pages rendered from docstrings and the pages of the
    gallery, and the build fails on the warning under ``-W``, as CI builds the docs. Write
    metric names as literals, ``nDCG@10``; the docs have no e-mail address.
    """
    for reference in doctree.findall(nodes.reference):
        if reference.get("refuri", "").startswith("mailto:"):
            text = reference.astext()
            logger.warning(
                "%r is rendered as an e-mail link (%s); write it as a literal, ``%s``",
                text,
                reference["refuri"],
                text,
                location=reference,
                type="sklearn_rank",
                subtype="mailto",
            )


# -- Generated tables ------------------------------------------------------------------------

#: The comment of metrics.rst that the table of metric names replaces when Sphinx reads the page.
METRIC_NAMES_TABLE = ".. The table of metric names: docs/conf.py writes it here from the registry."
#: The comment of api.rst that the lists of metric functions by family replace.
METRIC_FUNCTIONS_LISTS = (".. The lists of metric functions by family: docs/conf.py writes them "
                          "here from the registry.")
TREC_MEASURES_TABLE = (".. The table of trec_eval's measures: docs/conf.py writes it here from "
                       "sklearn_rank.metrics._trec_names.")


def metric_names_table():
    """The rST table of the metric names, their aliases and parameters, from the registry.

    The registry (``sklearn_rank/metrics/_registry.py``) is the one description of every
    metric; the table is written from it at each build, so that it cannot drift from it.
    """
    from sklearn_rank.metrics._registry import METRICS

    def literal(names):
        return ", ".join(f"``{name}``" for name in names)

    lines = [
        ".. list-table:: The metric names",
        "   :header-rows: 1",
        "   :widths: 20 30 50",
        "",
        "   * - name",
        "     - aliases",
        "     - parameters in parentheses (besides ``no_relevant``)",
    ]
    for metric in METRICS.values():
        name = literal([metric.name])
        if "k" not in metric.options:
            name += " (no ``@k``)"
        if metric.aggregation != "mean":
            name += f" ({metric.aggregation.replace('_', ' ')} over queries)"
        options = [
            literal([option.name]) + (f" (or {literal(option.aliases)})" if option.aliases else "")
            for option in metric.option_specs if option.name != "k"
        ]
        lines += [f"   * - {name}", f"     - {literal(metric.aliases)}".rstrip(),
                  f"     - {', '.join(options)}".rstrip()]
    return "\n".join(lines)


def metric_function_lists():
    """The API reference's sections of metric functions, one a family, from the registry.

    Each entry of the registry (``sklearn_rank/metrics/_registry.py``) names its family
    (:data:`~sklearn_rank.metrics._registry.FAMILIES`, which gives the headings and their
    order); its public function is listed under that heading, in the registry's order.
    """
    from sklearn_rank.metrics._registry import FAMILIES, METRICS

    lines = []
    for family, heading in FAMILIES.items():
        lines += [heading, "-" * len(heading), "", ".. autosummary::", "   :toctree: generated/",
                  "   :template: function.rst", ""]
        lines += [f"   {metric.function_name}" for metric in METRICS.values()
                  if metric.family == family]
        lines.append("")
    return "\n".join(lines)


def generate_metric_function_pages(app):
    """Write the page of each function of :func:`metric_function_lists`, as autosummary does.

    autosummary writes the pages of the functions that it finds in the source files as they
    are on disk, where api.rst holds a comment in place of these lists: it is given them here,
    in a file of their own, before Sphinx reads the pages.
    """
    from sphinx.ext.autosummary.generate import generate_autosummary_docs

    generated = Path(app.srcdir) / "generated"
    lists = metric_function_lists().replace(":toctree: generated/", f":toctree: {generated}")
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "metric_functions.rst"
        source.write_text(f".. currentmodule:: sklearn_rank.metrics\n\n{lists}", encoding="utf-8")
        generate_autosummary_docs([str(source)], app=app,
                                  overwrite=app.config.autosummary_generate_overwrite,
                                  encoding=app.config.source_encoding)


def _trec_measures_table():
    from sklearn_rank.metrics._trec_names import trec_measures_table

    return trec_measures_table()


# The tables written from the code in place of a comment of their page: page -> (comment,
# function that builds the table).
GENERATED_TABLES = {
    "metrics": (METRIC_NAMES_TABLE, metric_names_table),
    "api": (METRIC_FUNCTIONS_LISTS, metric_function_lists),
    "trec_eval": (TREC_MEASURES_TABLE, _trec_measures_table),
}


def insert_generated_tables(app, docname, source):
    """Put the table of :data:`GENERATED_TABLES` in place of its comment in its page.

    A comment, not an ``.. include::`` of a generated file: tests/test_docs.py reads the
    pages with docutils alone, where a comment is plain and an include would not be.
    """
    if docname not in GENERATED_TABLES:
        return
    comment, table = GENERATED_TABLES[docname]
    if comment not in source[0]:
        logger.warning("%s.rst lacks the comment %r, where its generated table goes", docname,
                       comment, type="sklearn_rank", subtype="generated_table")
    source[0] = source[0].replace(comment, table())


def setup(app):
    app.connect("builder-inited", generate_metric_function_pages)
    app.connect("source-read", insert_generated_tables)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("doctree-read", warn_mailto_references)


# -- Gallery ------------------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    # Run every plot_*.py script; any other script is only rendered.
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "image_scrapers": ("matplotlib",),
    "doc_module": ("sklearn_rank",),
    "reference_url": {"sklearn_rank": None},
    "backreferences_dir": "generated/backreferences",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
}

# -- HTML ---------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-rank {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_show_sourcelink = False
