"""``python -m sklearn_rank``: the ``sklearn-rank`` command line.

Without arguments it runs the demonstration, a cross-validated comparison of a pointwise
regressor and learning-to-rank models on generated data (``sklearn-rank cv`` with its
defaults); ``python -m sklearn_rank --help`` lists the subcommands. The implementation lives
in :mod:`sklearn_rank._cli`.
"""

from sklearn_rank._cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
