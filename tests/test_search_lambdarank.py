"""Tuning LightGBM LambdaRank with stock GridSearchCV on LightGBM's own LambdaRank example.

The search's cv_results_ and best parameters must equal a manual loop over the same folds with
the metric functions, in both ways query ids travel. Skipped when ../shared/data is absent.
"""

from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from sklearn_rank import get_scorer
from sklearn_rank.datasets import load_svmlight_ranking, load_svmlight_ranking_files
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.metrics import evaluate
from sklearn_rank.model_selection import QueryKFold

pd = pytest.importorskip("pandas")
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "lambdarank-example"
METRICS = ["ndcg@10", "err@10(max_grade=4)", "map"]
GRID = {"num_leaves": [7, 15], "min_child_samples": [5, 20]}


@pytest.fixture(scope="module")
def lambdarank():
    if not SHARED.is_dir():
        pytest.skip("../shared/data/lambdarank-example is absent")
    X, y, qid = load_svmlight_ranking(SHARED / "rank.train")
    X = X.toarray()
    # shuffle the rows: queries are no longer contiguous, as after any CV split
    perm = np.random.default_rng(0).permutation(len(y))
    return X[perm], y[perm], qid[perm]


def ranker():
    return LGBMRanker(n_estimators=15, learning_rate=0.1, n_jobs=1, verbose=-1,
                      random_state=0, deterministic=True, force_row_wise=True)


def manual(X, y, qid, cv):
    results = {}
    for params in sklearn.model_selection.ParameterGrid(GRID):
        folds = []
        for train, test in cv.split(X, y, qid=qid):
            model = clone(ranker()).set_params(**params).fit(X[train], y[train], qid=qid[train])
            folds.append(evaluate(y[test], model.predict(X[test]), qid=qid[test],
                                  metrics=METRICS))
        results[tuple(sorted(params.items()))] = {
            m: np.mean([f[m] for f in folds]) for m in METRICS
        }
    return results


def check(search, expected):
    for i, params in enumerate(search.cv_results_["params"]):
        for m in METRICS:
            assert search.cv_results_[f"mean_test_{m}"][i] == pytest.approx(
                expected[tuple(sorted(params.items()))][m], abs=1e-12
            ), (params, m)
    best = max(expected, key=lambda key: expected[key]["ndcg@10"])
    assert tuple(sorted(search.best_params_.items())) == best
    assert hasattr(search.best_estimator_, "booster_")


def test_grid_search_routing_on(lambdarank):
    X, y, qid = lambdarank
    cv = QueryKFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(ranker(), GRID, cv=cv, refit="ndcg@10",
                              scoring={m: get_scorer(m) for m in METRICS})
        search.fit(X, y, qid=qid)
    check(search, manual(X, y, qid, cv))


def test_grid_search_routing_off_qid_column(lambdarank):
    X, y, qid = lambdarank
    cv = QueryKFold(3)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame["qid"] = qid
    search = GridSearchCV(ranker(), GRID, cv=cv, refit="ndcg@10", n_jobs=2,
                          scoring={m: get_scorer(m) for m in METRICS})
    search.fit(frame, y)
    check(search, manual(X, y, qid, cv))
    # both files read together: the side files number their queries from 0 each, and
    # load_svmlight_ranking_files numbers them apart (a test query under a trained id, with
    # other rows, is refused as a cut query)
    *_, test_X, test_y, test_qid = load_svmlight_ranking_files(
        [SHARED / "rank.train", SHARED / "rank.test"], n_features=X.shape[1])
    test_frame = pd.DataFrame(test_X.toarray(), columns=frame.columns[:-1])
    test_frame["qid"] = test_qid
    assert search.score(test_frame, test_y) == pytest.approx(
        evaluate(test_y, search.predict(test_frame), qid=test_qid, metrics=["ndcg@10"])["ndcg@10"],
        abs=1e-12,
    )
