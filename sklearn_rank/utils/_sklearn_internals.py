"""The one place that touches scikit-learn's private code.

Every other module of sklearn-rank imports scikit-learn's private names from here, so a
scikit-learn release that moves or changes one is mended in this file. Checked against
scikit-learn 1.9.1, the installed version, by ``tests/test_booster_internals.py`` (which fails
naming the private name that moved or changed). Not checked against any other version here;
the floor of ``pyproject.toml`` (``scikit-learn>=1.4``) was checked by a run of the test suite
(see the comment there).

Nothing here imports scikit-learn when this module is imported: each name is imported on
first use (PEP 562's module ``__getattr__``), so the light modules (the metric registry,
:mod:`sklearn_rank.utils._param_validation`, the command line) may import this one and keep
scikit-learn away until it has something to say.

Each private name, why sklearn-rank needs it, and where:

- ``_BaseScorer`` (``sklearn.metrics._scorer``): the base of scikit-learn's scorers;
  ``RankingScorer`` is one, so that ``check_scoring``, the searches and multi-metric scoring
  treat it as a scorer (``metrics/_scorer.py``, ``model_selection/_validation.py``).
- ``_cached_call`` (same module): the scorers' shared call of a response method, one
  ``predict`` for all the scorers of a fold (the same two modules).
- ``_MultimetricScorer`` (same module): the base of ``cross_validate``'s fold scorer, which
  keeps each fold's per-query results on its clone (``model_selection/_validation.py``).
- ``_raise_for_params`` (``sklearn.utils._metadata_requests``): the scorers' refusal of
  metadata without routing (``metrics/_scorer.py``).
- ``_check_response_method`` (``sklearn.utils._response``): which response method an
  estimator answers, since a ``predict_proba`` of numeric classes is a score
  (``metrics/_scorer.py``).
- ``_MetadataRequester`` (``sklearn.utils._metadata_requests``): metadata routing of the
  adapters' ``qid``, without ``BaseEstimator``, whose ``get_params`` would clash with the
  boosters' own (``_adapters/_base.py``).
- ``_safe_indexing`` (``sklearn.utils``): row selection of arrays, frames and sparse
  matrices alike (``_adapters/_queries.py``).
- ``_SubsampleMetaSplitter`` (``sklearn.model_selection._search_successive_halving``): the
  halving searches' row-subsampling splitter, swapped for one that draws whole queries
  (``model_selection/_search.py``).
- ``_validate_shuffle_split`` (``sklearn.model_selection._split``): ``GroupShuffleSplit``'s
  size checks and their wording, run before splitting, in queries
  (``model_selection/_split.py``).
- ``param_validation``, the module ``sklearn.utils._param_validation``: ``validate_params``,
  ``validate_parameter_constraints``, ``InvalidParameterError`` and the constraint classes
  (``PARAM_VALIDATION_NAMES``), which scikit-learn keeps in a private module
  (``utils/_param_validation.py``).

Two more are relied on by name, without an import: :func:`is_subsample_meta_splitter`
(the splitters refuse to serve ``_SubsampleMetaSplitter`` with ``fraction < 1``) and
:data:`PARAM_VALIDATION_MODULE` (warnings skip ``validate_params``'s wrapper frames).
"""

import importlib

#: The scikit-learn versions on which ``tests/test_booster_internals.py`` passed.
CHECKED_VERSIONS = ("1.9.1",)

#: Private name -> the scikit-learn module it is imported from.
PRIVATE_NAMES = {
    "_BaseScorer": "sklearn.metrics._scorer",
    "_cached_call": "sklearn.metrics._scorer",
    "_MultimetricScorer": "sklearn.metrics._scorer",
    "_raise_for_params": "sklearn.utils._metadata_requests",
    "_check_response_method": "sklearn.utils._response",
    "_MetadataRequester": "sklearn.utils._metadata_requests",
    "_safe_indexing": "sklearn.utils",
    "_SubsampleMetaSplitter": "sklearn.model_selection._search_successive_halving",
    "_validate_shuffle_split": "sklearn.model_selection._split",
}

#: The private module of scikit-learn's parameter validation, imported as ``param_validation``.
PARAM_VALIDATION_MODULE = "sklearn.utils._param_validation"

#: The names sklearn-rank takes from :data:`PARAM_VALIDATION_MODULE`.
PARAM_VALIDATION_NAMES = ("validate_params", "validate_parameter_constraints",
                          "InvalidParameterError", "Interval", "StrOptions", "Options")


def is_subsample_meta_splitter(obj):
    """Whether ``obj`` is scikit-learn's ``_SubsampleMetaSplitter`` (by name: no import).

    The splitters look at whoever iterates their ``split``; importing the halving module
    there to test ``isinstance`` would not be cheaper nor more exact.
    """
    cls = type(obj)
    return cls.__name__ == "_SubsampleMetaSplitter" and cls.__module__.startswith("sklearn.")


def validate_estimator_params(estimator):
    """scikit-learn's own check of ``estimator``'s parameters, which ``fit`` runs first.

    ``BaseEstimator._validate_params`` is private: called here, in the fence, for the
    estimators that declare ``_parameter_constraints`` (scikit-learn's own and those written
    its way); other estimators are left to their ``fit``. Raises scikit-learn's
    ``InvalidParameterError``, worded with the estimator's class name.
    """
    if hasattr(estimator, "_parameter_constraints") and hasattr(estimator, "_validate_params"):
        estimator._validate_params()


def __getattr__(name):
    if name == "param_validation":
        return importlib.import_module(PARAM_VALIDATION_MODULE)
    if name in PRIVATE_NAMES:
        return getattr(importlib.import_module(PRIVATE_NAMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
