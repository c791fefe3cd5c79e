"""
=========================================================
Comparing rankers: significance tests and a results table
=========================================================

Is LambdaRank better than a pointwise regression of the grades on these data, or is the gap
in ``nDCG@10`` noise? This example cross-validates three rankers on the same queries, keeps
each query's test value, and compares the rankers the way an information-retrieval paper
does: the mean of each with a confidence interval, paired tests of every pair corrected for
multiple comparisons (:func:`~sklearn_rank.stats.compare`), a closer look at one pair
(:func:`~sklearn_rank.stats.paired_test`, :func:`~sklearn_rank.stats.bootstrap_ci`), and the
query-by-query differences behind it
(:class:`~sklearn_rank.plot.PerQueryDifferenceDisplay`).

Everything runs offline in a few seconds on generated data.
"""

# %%
# Three rankers, cross-validated on the same queries
# --------------------------------------------------
#
# :func:`~sklearn_rank.datasets.make_ranking` generates 300 LETOR-like queries with grades
# from 0 to 4. The three models:
#
# * LightGBM's LambdaRank, through :class:`sklearn_rank.lightgbm.LGBMRanker`, which takes one
#   query id per row;
# * the same trees (number, leaves, learning rate) fitted by least squares on the grades, a
#   pointwise :class:`lightgbm.LGBMRegressor`: the only difference is the loss;
# * a ridge regression, linear in the features. The latent relevance behind the grades of
#   :func:`~sklearn_rank.datasets.make_ranking` is linear in the features plus noise, so
#   this simple model is well specified here: a baseline that a ranking loss must beat.
#
# :func:`sklearn_rank.model_selection.cross_validate` routes the query ids to the splitter,
# the ranker and the scorers without any set-up. With ``return_per_query=True`` it also
# returns the test value of every query, each computed by the model of the fold that did not
# train on it. The same :class:`~sklearn_rank.model_selection.QueryKFold` (shuffled with a
# fixed seed) gives every model the same folds, so the values are paired: each query is
# scored by each model in the same conditions.
import numpy as np
from lightgbm import LGBMRegressor
from sklearn.linear_model import Ridge

from sklearn_rank.datasets import make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.metrics import make_ranking_scorer
from sklearn_rank.model_selection import QueryKFold, cross_validate
from sklearn_rank.plot import PerQueryDifferenceDisplay
from sklearn_rank.stats import bootstrap_ci, compare, paired_test

X, y, qid = make_ranking(n_queries=300, n_features=20, n_informative=5, random_state=0)

trees = {"n_estimators": 50, "num_leaves": 15, "learning_rate": 0.1, "n_jobs": 1,
         "random_state": 0, "verbose": -1}
models = {
    "LambdaRank": LGBMRanker(**trees),
    "LightGBM regression": LGBMRegressor(**trees),
    "Ridge": Ridge(alpha=1.0),
}
# ERR turns a grade into a probability of satisfaction relative to the top grade: fix it
# at 4 so that every fold is on one scale.
scoring = {"ndcg@10": "ndcg@10", "err@10": make_ranking_scorer("err@10", max_grade=4),
           "map": "map"}
cv = QueryKFold(n_splits=5, shuffle=True, random_state=0)
results = {
    name: cross_validate(model, X, y, qid=qid, scoring=scoring, cv=cv, return_per_query=True)
    for name, model in models.items()
}

for name, result in results.items():
    print(f"{name:>20}: nDCG@10 per fold {np.round(result['test_ndcg@10'], 3)}")
per_query = results["LambdaRank"]["per_query"]
print(f"per-query values: {per_query!r}, folds {np.unique(per_query.fold).tolist()}")

# %%
# Queries, not folds, are the unit
# --------------------------------
#
# The usual summary, the mean and standard deviation of the 5 fold scores, treats each fold
# as one observation: five numbers per model, from which a test must estimate how much the
# difference between two models varies, with 4 degrees of freedom. But the metric is a mean
# over queries, and queries are what the data sample: a model is good if it ranks well for
# the queries users will ask. Every query was tested exactly once, by a model that had not
# seen it, so the pooled per-query values are 300 paired observations per model. Pairing
# matters most: queries differ in difficulty for every model alike (a query without any
# relevant document scores 0 whatever the model), and a paired test looks at the
# difference on each query, which removes that shared part. The per-fold means stay
# available, and ``compare(..., unit="fold")`` tests them instead.
#
# :func:`~sklearn_rank.stats.compare` takes the ``cross_validate`` results directly. For
# each metric it computes each model's mean with a bootstrap confidence interval (BCa) and
# a paired t-test of every pair of models, with Holm's correction over the three
# comparisons of each metric so that the chance of any false "significant" among them stays
# below ``alpha``. Each test comes with the mean difference and its confidence interval:
# Student's t interval, the t-test's own.
comparison = compare(results, correction="holm", n_resamples=2000, random_state=0)
print(comparison)

# %%
# How to read the table: each model gets a letter, (a), (b), (c). A superscript letter after
# a mean says that this mean is significantly higher than the mean of the model with that
# letter, after correction; two models without a mark for each other do not differ
# significantly.
# The legend under the table states the test, the correction and the level. Markdown (for a
# README or a notebook) puts the best mean of each metric in bold;
# :meth:`~sklearn_rank.stats.ComparisonResult.to_latex` gives the same table for a paper.
print(comparison.to_markdown())

# %%
# The tests behind the marks are kept on the result, with raw and corrected p-values. The
# interval of each mean difference is Student's t interval (``ci_method="auto"``), the
# paired t-test inverted: it excludes 0 exactly when the *uncorrected* p-value is below
# 0.05. Holm's correction does not widen it, so an interval that excludes 0 can still sit
# beside a difference that is not significant after correction; the verdict is the
# corrected test's.
for c in comparison.comparisons:
    if c.metric == "ndcg@10":
        low, high = c.result.confidence_interval
        print(f"{c.system_a} - {c.system_b}: {c.result.mean_difference:+.4f} "
              f"[{low:+.4f}, {high:+.4f}], p = {c.pvalue:.2g}, Holm-corrected "
              f"{c.pvalue_corrected:.2g}, significant: {c.significant}")

# %%
# One pair up close
# -----------------
#
# LambdaRank against the pointwise regression with the same trees, on ``nDCG@10``.
# :func:`~sklearn_rank.stats.paired_test` runs one test, here the randomization test
# (random sign flips of the per-query differences), which assumes nothing about their
# distribution, and reports the effect size: Cohen's :math:`d_z`, the mean difference in
# units of the standard deviation of the differences.
test = paired_test(results["LambdaRank"], results["LightGBM regression"], metric="ndcg@10",
                   test="permutation", n_resamples=2000, random_state=0)
print(f"mean difference {test.mean_difference:+.4f} over {test.n} queries, "
      f"p = {test.pvalue:.3g} (randomization test), effect size d_z = "
      f"{test.effect_size:.2f}")

# %%
# An interval says how large the difference may plausibly be, which a p-value does not.
# The interval that belongs to a test is the test inverted: only then does "the interval
# excludes 0" mean "the test rejects at the same level".
# :func:`~sklearn_rank.stats.paired_test` reports that one by default with the t-test:
# Student's t interval, which excludes 0 exactly when the two-sided p-value is below 0.05.
# No interval of the mean inverts the randomization test exactly; beside it,
# ``paired_test`` reports a bootstrap interval, the other resampling method.
t_test = paired_test(results["LambdaRank"], results["LightGBM regression"],
                     metric="ndcg@10", test="t")
low, high = t_test.confidence_interval
print(f"paired t-test p = {t_test.pvalue:.3g}, 95% {t_test.ci_method} interval of the mean "
      f"difference [{low:+.4f}, {high:+.4f}]")

# %%
# :func:`~sklearn_rank.stats.bootstrap_ci` with two systems gives the bootstrap confidence
# interval of their mean difference: both keep the same queries in every resample. It
# assumes no normal distribution of the mean, but it inverts none of the tests: near the
# threshold, a bootstrap interval can exclude 0 while the t-test's p-value is above 0.05
# (skewed differences, a few large losses among many small gains, do that), or the
# reverse. Beside a test's verdict, report the test's own interval, or say that the two
# come from different methods, as ``to_frame("comparisons")`` (its ``ci_method`` column)
# and the HTML report of the command line do.
difference = bootstrap_ci(results["LambdaRank"], results["LightGBM regression"],
                          metric="ndcg@10", n_resamples=2000, random_state=0)
low, high = difference.confidence_interval
print(f"LambdaRank - LightGBM regression, nDCG@10: {difference.mean:+.4f}, "
      f"95% BCa bootstrap CI [{low:+.4f}, {high:+.4f}]")

# %%
# Query by query
# --------------
#
# :meth:`~sklearn_rank.plot.PerQueryDifferenceDisplay.from_cv_results` draws the same
# per-query differences, sorted: one bar per query, LambdaRank's wins on the left, the
# regression's on the right, and queries where both score the same without a bar. The
# black line is the mean difference and the band its confidence interval, the t-test's own
# (the legend names both).
display = PerQueryDifferenceDisplay.from_cv_results(
    results["LambdaRank"], results["LightGBM regression"], metric="ndcg@10",
    names=("LambdaRank", "LightGBM regression"), n_resamples=2000, random_state=0)
wins = int(np.sum(display.differences > 0))
losses = int(np.sum(display.differences < 0))
print(f"LambdaRank better on {wins} queries, worse on {losses}, "
      f"equal on {len(display.differences) - wins - losses}")

# %%
# However the comparison comes out on average, the better model loses on many individual
# queries: a mean difference is the balance of many wins and losses of various sizes. That
# is why a comparison needs many queries and a paired test, and why a difference between
# the means of a few folds proves little.
