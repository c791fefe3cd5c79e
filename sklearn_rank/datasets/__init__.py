"""Learning-to-rank data: a generator, readers of LETOR/SVMlight, TREC and table files, and
fetchers of the public benchmark data sets.

Everything returns flat arrays ``(X, y, qid)`` (or ``y_true, y_score, qid`` for TREC runs
and tables), the layout every function in :mod:`sklearn_rank.metrics` takes.
"""

from ._fetch import (
    fetch_istella_s,
    fetch_letor4,
    fetch_mslr_web10k,
    fetch_mslr_web30k,
    get_data_home,
    load_yahoo_ltr,
)
from ._files import load_svmlight_ranking, load_svmlight_ranking_files, read_trec
from ._generator import make_ranking
from ._tables import read_table

__all__ = ["fetch_istella_s", "fetch_letor4", "fetch_mslr_web10k", "fetch_mslr_web30k",
           "get_data_home", "load_svmlight_ranking", "load_svmlight_ranking_files",
           "load_yahoo_ltr", "make_ranking", "read_table", "read_trec"]
