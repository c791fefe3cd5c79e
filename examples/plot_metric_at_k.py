"""
======================================================
Metric-at-k curves: where in the ranking models differ
======================================================

A single number such as ``nDCG@10`` hides *where* in the ranking a model gains or loses.
Drawing the metric against its cut-off k shows it: a model may put a relevant document first
more often (``nDCG@1``, ``P@1``) and yet find fewer of them further down (``R@20``). This
example compares two rankers with :class:`~sklearn_rank.plot.MetricAtKDisplay`, with bootstrap
confidence bands over queries, then looks at ``nDCG@10`` query by query with
:class:`~sklearn_rank.plot.PerQueryDifferenceDisplay`.

Everything runs offline in a few seconds on generated data.
"""

# %%
# Data and two models
# -------------------
#
# :func:`~sklearn_rank.datasets.make_ranking` generates LETOR-like data: queries with 5 to 50
# documents, graded labels from 0 to 4 skewed towards 0 as human judgements are, and features
# of which a few carry signal. We keep whole queries together: a third of them for testing.
#
# The two models are pointwise regressors of the grade: a ridge regression, linear in the
# features, and LightGBM's gradient-boosted trees, which can model interactions.
import matplotlib.pyplot as plt
import numpy as np
from lightgbm import LGBMRegressor
from sklearn.linear_model import Ridge

from sklearn_rank.datasets import make_ranking
from sklearn_rank.model_selection import QueryShuffleSplit
from sklearn_rank.plot import MetricAtKDisplay, PerQueryDifferenceDisplay

X, y, qid = make_ranking(n_queries=300, n_features=20, n_informative=5, random_state=0)
train, test = next(QueryShuffleSplit(n_splits=1, test_size=100, random_state=0).split(qid=qid))

ridge = Ridge(alpha=1.0).fit(X[train], y[train])
boosting = LGBMRegressor(n_estimators=100, num_leaves=15, n_jobs=1, verbose=-1)
boosting.fit(X[train], y[train])

# %%
# nDCG@k of both models, with 95% confidence bands
# ------------------------------------------------
#
# :meth:`~sklearn_rank.plot.MetricAtKDisplay.from_estimator` scores the test queries once per
# model and computes every cut-off from one sort (one call of
# :func:`~sklearn_rank.metrics.evaluate` with the names ``"nDCG@1"``, ..., ``"nDCG@20"``).
# With ``confidence_level=0.95``, each point gets a bootstrap interval of the mean over
# queries, from :func:`~sklearn_rank.stats.bootstrap_ci`. Passing the first display's axes to
# the second draws both on one plot, as scikit-learn's displays do.
common = {"X": X[test], "y": y[test], "qid": qid[test], "ks": range(1, 21),
          "confidence_level": 0.95, "n_resamples": 2000, "random_state": 0}
ndcg_ridge = MetricAtKDisplay.from_estimator(ridge, metric="nDCG", **common)
ndcg_boosting = MetricAtKDisplay.from_estimator(boosting, metric="nDCG", name="LightGBM",
                                                ax=ndcg_ridge.ax_, **common)
ndcg_ridge.ax_.set_title("nDCG@k on 100 test queries")

# %%
# The bands are wide at small k, where nDCG@k depends on one or two documents per query and
# varies most from query to query; they narrow as k grows. Where the bands overlap, the
# curves alone do not tell the models apart: the per-query view below does better, because
# it pairs the two models' values on each query.
#
# The data behind the curves are kept on the display:
print("k       ", ndcg_ridge.ks[:5])
print("Ridge   ", ndcg_ridge.values[:5].round(3))
print("LightGBM", ndcg_boosting.values[:5].round(3))
print("95% CI of Ridge's nDCG@1:", ndcg_ridge.ci_low[0].round(3), ndcg_ridge.ci_high[0].round(3))

# %%
# Precision and recall at k
# -------------------------
#
# Any metric with a cut-off works: ``"P"`` (precision), ``"R"`` (recall), ``"ERR"``,
# ``"AP"``, ``"RR"``, ``"success"``, ``"RBP(p=0.8)"``... Options of the metrics pass through,
# here the grade from which a document counts as relevant for the binary metrics.
fig, (ax_p, ax_r) = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
for model, name in ((ridge, "Ridge"), (boosting, "LightGBM")):
    for metric, ax in (("P", ax_p), ("R", ax_r)):
        MetricAtKDisplay.from_estimator(model, X[test], y[test], qid=qid[test], metric=metric,
                                        ks=range(1, 21), name=name, ax=ax,
                                        relevance_threshold=2)
ax_p.set_title("Precision at k (grade 2 or more is relevant)")
ax_r.set_title("Recall at k")
fig.tight_layout()

# %%
# Precision falls and recall rises with k, as they must; the gap between the models is the
# information. A metric without a cut-off, such as Kendall's tau, has no such curve and is
# an error here.
#
# Query by query
# --------------
#
# The mean hides how a gain is spread over queries: a few big wins, or a small gain on
# most? :class:`~sklearn_rank.plot.PerQueryDifferenceDisplay` sorts the per-query
# differences and draws the mean difference with its bootstrap confidence interval and the
# p-value of a paired t-test, from :func:`~sklearn_rank.stats.paired_test`.
differences = PerQueryDifferenceDisplay.from_estimator(
    boosting, ridge, X[test], y[test], qid=qid[test], metric="nDCG@10",
    names=("LightGBM", "Ridge"), n_resamples=2000, random_state=0)
print(f"nDCG@10: mean difference {differences.mean_difference:+.3f}, "
      f"95% CI {np.round(differences.confidence_interval, 3)}, "
      f"p = {differences.pvalue:.2g}")

# %%
# The model ahead on average is behind on many queries, and the two tie on the queries where
# they put documents of the same grades first (or that have no relevant document at all):
# a mean difference is the balance of many wins and losses, which the confidence interval
# and the test weigh. To compare
# models over cross-validation folds instead of one split, pass two
# :func:`~sklearn_rank.model_selection.cross_validate` results with ``return_per_query=True``
# to :meth:`~sklearn_rank.plot.PerQueryDifferenceDisplay.from_cv_results`.
