"""Learning-to-rank data: a generator, readers of LETOR/SVMlight, TREC and table files,
fetchers of the public benchmark data sets, and :func:`load_source`, which loads any of them
by name or path.

Everything returns flat arrays ``(X, y, qid)`` (or ``y_true, y_score, qid`` for TREC runs
and tables), the layout every function in :mod:`sklearn_rank.metrics` takes, or a
:class:`RankingDataset` holding them with their source.
"""

from ..utils._lazy import lazy_exports

# Module -> its public names, loaded on first use: read_trec needs numpy only.
_EXPORTS = {
    "._checks": ("check_file", "check_ranking_data"),
    "._errors": ("DataSourceError", "FetchError", "TableError"),
    "._fetch": ("fetch_istella_s", "fetch_letor4", "fetch_mslr_web10k", "fetch_mslr_web30k",
                "get_data_home", "load_yahoo_ltr"),
    "._files": ("NoQueryIdsError", "load_svmlight_ranking", "load_svmlight_ranking_files",
                "read_trec"),
    "._generator": ("make_ranking",),
    "._sources": ("DatasetName", "RankingDataset", "load_source", "parse_dataset_name",
                  "same_queries", "source_files"),
    "._tables": ("read_table", "read_table_dask", "table_columns"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
