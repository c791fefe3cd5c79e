"""The sklearn-rank adapter of a booster, by name, for tests run over the three of them."""

import pytest

NAMES = ("lightgbm", "xgboost", "catboost")


def adapter_class(name):
    """The adapter class of booster ``name``; the test is skipped without the booster."""
    pytest.importorskip(name)
    if name == "lightgbm":
        from sklearn_rank.lightgbm import LGBMRanker
        return LGBMRanker
    if name == "xgboost":
        from sklearn_rank.xgboost import XGBRanker
        return XGBRanker
    from sklearn_rank.catboost import CatBoostRanker
    return CatBoostRanker


def small_ranker(name):
    """A few trees of booster ``name``'s adapter, quiet, on one thread."""
    params = {"lightgbm": {"n_estimators": 3, "verbose": -1, "n_jobs": 1},
              "xgboost": {"n_estimators": 3, "n_jobs": 1},
              "catboost": {"iterations": 3, "verbose": 0, "thread_count": 1,
                           "allow_writing_files": False}}[name]
    return adapter_class(name)(**params)
