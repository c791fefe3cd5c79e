"""Learning-to-rank data: a generator and readers of LETOR/SVMlight, TREC and table files.

Everything returns flat arrays ``(X, y, qid)`` (or ``y_true, y_score, qid`` for TREC runs
and tables), the layout every function in :mod:`sklearn_rank.metrics` takes.
"""

from ._files import load_svmlight_ranking, load_svmlight_ranking_files, read_trec
from ._generator import make_ranking
from ._tables import read_table

__all__ = ["load_svmlight_ranking", "load_svmlight_ranking_files", "make_ranking", "read_table",
           "read_trec"]
