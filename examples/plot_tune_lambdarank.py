"""
============================================================
Tuning LightGBM LambdaRank with GridSearchCV on nDCG and ERR
============================================================

scikit-learn's :class:`~sklearn.model_selection.GridSearchCV` can tune a learning-to-rank
model as it tunes any other, provided that three of its pieces know which query each row
belongs to: the splitter (a query must stay whole in one fold), the ranker (LambdaRank
trains on groups of documents) and the scorers (nDCG and ERR are averages over queries).
This example tunes LightGBM's LambdaRank against ``nDCG@10`` and ``ERR@10`` at once, with the
query ids routed through the search as metadata, looks at the search's results with
:class:`~sklearn_rank.plot.ParameterSearchDisplay`, and evaluates the chosen model on
queries that the search never saw.

Everything runs offline in a few seconds on generated data.
"""

# %%
# Data: whole queries for the search, whole queries held out
# ------------------------------------------------------------
#
# :func:`~sklearn_rank.datasets.make_ranking` generates LETOR-like data: queries of 5 to 50
# documents, graded labels from 0 (not relevant) to 4 (perfect), and one query id per row;
# the rows of a query need not be contiguous.
# :class:`~sklearn_rank.model_selection.QueryShuffleSplit` keeps whole queries on either
# side: the search tunes on 200 queries and 100 others are kept for the final evaluation.
import matplotlib.pyplot as plt
import numpy as np
import sklearn
from sklearn.model_selection import GridSearchCV

from sklearn_rank.datasets import make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.metrics import evaluate, get_scorer, make_ranking_scorer
from sklearn_rank.model_selection import QueryKFold, QueryShuffleSplit
from sklearn_rank.plot import ParameterSearchDisplay
from sklearn_rank.stats import bootstrap_ci

X, y, qid = make_ranking(n_queries=300, n_features=20, n_informative=5, random_state=0)
train, test = next(QueryShuffleSplit(n_splits=1, test_size=100, random_state=0).split(qid=qid))
X_train, y_train, qid_train = X[train], y[train], qid[train]
X_test, y_test, qid_test = X[test], y[test], qid[test]
print(f"{len(np.unique(qid_train))} queries ({len(train)} rows) to tune on, "
      f"{len(np.unique(qid_test))} queries ({len(test)} rows) held out")

# %%
# The ranker
# ----------
#
# Stock :class:`lightgbm.LGBMRanker` cannot be tuned this way: its ``fit`` takes
# ``group``, the number of rows of each query in data sorted by query, which a search
# cannot cut into folds as it cuts per-row arrays, and it has no ``score`` method.
# :class:`sklearn_rank.lightgbm.LGBMRanker` is the same model, with all of LightGBM's
# parameters, that takes one query id per row (``fit(X, y, qid=qid)``, in any row order),
# asks for ``qid`` through scikit-learn's metadata routing, and scores itself with a ranking
# metric. One thread and few trees keep this example fast.
ranker = LGBMRanker(n_estimators=40, min_child_samples=10, n_jobs=1, random_state=0,
                    verbose=-1)

# %%
# Two metrics, one search
# -----------------------
#
# The scoring dict names each metric; the search predicts once per fold and computes both
# from those predictions. ``nDCG@10`` rewards putting the highly relevant documents near the
# top; ``ERR@10`` models a user who stops at the first satisfying document, so it mostly cares
# about the first few positions. :func:`~sklearn_rank.metrics.get_scorer` builds a scorer
# from a metric name. ERR turns a grade into a probability of satisfaction relative to the
# top grade of the scale, which a scorer needs declared (it refuses ``"err@10"`` alone: each
# test fold would otherwise be on the scale of its own largest grade):
# :func:`~sklearn_rank.metrics.make_ranking_scorer` with ``max_grade=4`` puts all folds on
# one scale.
#
# ``refit="ndcg@10"`` picks the parameters by ``nDCG@10`` and refits them on all 200 queries.
# :class:`~sklearn_rank.model_selection.QueryKFold` splits by query: every fold's test
# queries are whole and unseen in training.
scoring = {"ndcg@10": get_scorer("ndcg@10"),
           "err@10": make_ranking_scorer("err@10", max_grade=4)}
param_grid = {"num_leaves": [3, 7, 15, 31], "learning_rate": [0.05, 0.2]}
search = GridSearchCV(ranker, param_grid, scoring=scoring, refit="ndcg@10",
                      cv=QueryKFold(n_splits=3, shuffle=True, random_state=0))

# %%
# Routing switched on, ``fit`` takes ``qid=`` and scikit-learn hands every piece that
# requests it (the splitter, the ranker's ``fit``, both scorers) the slice of query ids of
# its rows. :func:`sklearn.config_context` limits the setting to this fit; a process-wide
# ``sklearn.set_config(enable_metadata_routing=True)`` works too.
# :ref:`How query ids travel through a search <qid-routing>` has the details, and the other
# way: a ``qid`` column in a DataFrame ``X``.
with sklearn.config_context(enable_metadata_routing=True):
    search.fit(X_train, y_train, qid=qid_train)

# %%
# The search's results
# --------------------
#
# ``cv_results_`` holds, for each candidate and each metric, the test value of every fold,
# their mean and standard deviation, and the candidate's rank by that metric.
results = search.cv_results_
print(f"{'num_leaves':>10}  {'learning_rate':>13}  {'nDCG@10 (rank)':>20}  "
      f"{'ERR@10 (rank)':>20}")
for i in np.argsort(results["rank_test_ndcg@10"], kind="stable"):
    params = results["params"][i]
    cells = [
        f"{results[f'mean_test_{m}'][i]:.4f} ± {results[f'std_test_{m}'][i]:.4f} "
        f"({results[f'rank_test_{m}'][i]})"
        for m in scoring
    ]
    print(f"{params['num_leaves']:>10}  {params['learning_rate']:>13}  "
          f"{cells[0]:>20}  {cells[1]:>20}")

best_by_err = results["params"][int(np.argmin(results["rank_test_err@10"]))]
n_reordered = int(np.sum(results["rank_test_ndcg@10"] != results["rank_test_err@10"]))
print("\nbest parameters by nDCG@10 (refit):", search.best_params_)
print("best parameters by ERR@10:         ", best_by_err)
print(f"candidates ranked differently by the two metrics: {n_reordered} of "
      f"{len(results['params'])}")

# %%
# The ``±`` is the standard deviation of the 3 fold values, each the mean over the fold's
# test queries (about 67). The two metrics need not rank the candidates in the same order:
# that is why ``refit`` must name one. ``best_params_`` and ``best_score_`` are those of
# that metric's best candidate.
#
# :class:`~sklearn_rank.plot.ParameterSearchDisplay` draws one parameter on the x axis and
# one line per value of the other parameters of the grid, with a band of one standard
# deviation over the folds and each fold as a faint dot; the star marks the best mean.
# The number of leaves is drawn on a logarithmic axis because its values are evenly spaced
# there.
fig, axes = plt.subplots(2, 1, figsize=(7, 8.5), sharex=True)
for metric, ax in zip(scoring, axes):
    ParameterSearchDisplay.from_cv_results(search, "num_leaves", metric=metric, ax=ax)
fig.tight_layout()

# %%
# The bands of the best candidates overlap far more than their means differ. Part of their
# width is not noise in the candidates but differences between the folds: a fold whose
# queries are harder scores lower whatever the candidate. Reading the folds side by side
# shows it:
fold_values = np.column_stack([results[f"split{s}_test_ndcg@10"] for s in range(3)])
print("nDCG@10 per fold, best candidates first")
for i in np.argsort(results["rank_test_ndcg@10"], kind="stable"):
    print(f"  {results['params'][i]}: {np.round(fold_values[i], 4)}")
worst_fold = np.argmin(fold_values, axis=1)
print("the lowest fold of every candidate:",
      f"fold {worst_fold[0]}" if np.all(worst_fold == worst_fold[0]) else "not always the same")

# %%
# Comparing candidates fold by fold, or better query by query (as the example on comparing
# rankers does with :func:`~sklearn_rank.stats.compare`), removes that shared part and tells
# close candidates apart far better than the bands.
#
# Evaluating the refit model on held-out queries
# -----------------------------------------------
#
# The search's best cross-validated score does not estimate how the refit model does on
# new queries. It is the best of several noisy estimates, on the very queries used to
# choose, which biases it up; and it comes from models trained on two thirds of the tuning
# queries, whereas the refit model learnt from all of them, which biases it down. The 100
# queries held out at the start answer the question directly.
# :func:`~sklearn_rank.metrics.evaluate` computes both metrics from one sort of the
# predictions, here query by query (an option such as ``max_grade`` reaches the metrics
# that take it), and :func:`~sklearn_rank.stats.bootstrap_ci` gives the confidence interval
# of each mean over the held-out queries.
held_out = evaluate(y_test, search.best_estimator_.predict(X_test), qid=qid_test,
                    metrics=["ndcg@10", "err@10"], max_grade=4, return_per_query=True)
for metric, per_query in held_out.items():
    estimate = bootstrap_ci(per_query, n_resamples=2000, random_state=0)
    low, high = estimate.confidence_interval
    cv_value = results[f"mean_test_{metric}"][search.best_index_]
    print(f"{metric}: cross-validated {cv_value:.4f}; on {estimate.n} held-out queries "
          f"{estimate.mean:.4f}, 95% CI [{low:.4f}, {high:.4f}]")

# %%
# The refit model also scores itself: ``score`` computes its ``scoring`` parameter
# (``nDCG@10`` by default), and takes ``qid=`` without any routing set-up.
held_out_score = search.best_estimator_.score(X_test, y_test, qid=qid_test)
print(f"best_estimator_.score on the held-out queries: {held_out_score:.4f}")
