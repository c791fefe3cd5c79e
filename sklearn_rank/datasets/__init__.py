"""Learning-to-rank data: a generator, readers of LETOR/SVMlight, TREC and table files, and
fetchers of the public benchmark data sets.

Everything returns flat arrays ``(X, y, qid)`` (or ``y_true, y_score, qid`` for TREC runs
and tables), the layout every function in :mod:`sklearn_rank.metrics` takes.
"""

from ..utils._lazy import lazy_exports

# Module -> its public names, loaded on first use: read_trec needs numpy only.
_EXPORTS = {
    "._fetch": ("fetch_istella_s", "fetch_letor4", "fetch_mslr_web10k", "fetch_mslr_web30k",
                "get_data_home", "load_yahoo_ltr"),
    "._files": ("load_svmlight_ranking", "load_svmlight_ranking_files", "read_trec"),
    "._generator": ("make_ranking",),
    "._tables": ("read_table",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
