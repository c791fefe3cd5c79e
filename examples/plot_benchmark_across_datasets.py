"""
=============================================================
Benchmarking rankers across data sets, seeds and folds
=============================================================

A learning-to-rank paper compares rankers on several data sets, each over several folds and
seeds, and then claims that one ranker is better "in general". This example does that
comparison with :func:`~sklearn_rank.benchmark.run_benchmark` and the statistics of
:mod:`sklearn_rank.stats`, avoiding the three usual mistakes: seed noise taken for a
difference between rankers, scores averaged across data sets of different scales, and
post-hoc tests whose verdicts depend on the other rankers in the table.

Three rankers, four generated data sets of different difficulty, 3 seeds x 5 folds; the
example ends with the critical difference diagram and the power line: whether each data set
has enough queries to tell the two best rankers apart.

Everything runs offline on small generated data.
"""

# %%
# Four data sets, three rankers
# -----------------------------
#
# :func:`~sklearn_rank.datasets.make_ranking` draws LETOR-like queries, here with
# ``realistic=True``: what makes web-search data hard for a pointwise model
# (query-dependent shifts, features relative to the query, interactions). The four data
# sets differ in difficulty, the noise of the latent relevance behind the grades, from 0.25
# to 2. Each has 80 queries: small, so that the example runs in seconds.
#
# The rankers: LightGBM's LambdaRank (:class:`sklearn_rank.lightgbm.LGBMRanker`), XGBoost's
# pairwise ranker (:class:`sklearn_rank.xgboost.XGBRanker`), both taking one query id per
# row, and a pointwise regression of the grades (scikit-learn's
# :class:`~sklearn.ensemble.HistGradientBoostingRegressor`, which never sees the query ids).
from sklearn.ensemble import HistGradientBoostingRegressor

from sklearn_rank.benchmark import run_benchmark
from sklearn_rank.datasets import make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.plot import CriticalDifferenceDisplay
from sklearn_rank.xgboost import XGBRanker

settings = {"n_queries": 80, "n_features": 10, "max_docs": 30}
data = {
    f"noise {noise}": make_ranking(**settings, noise=noise, realistic=True, random_state=i)
    for i, noise in enumerate([0.25, 0.5, 1.0, 2.0])
}
models = {
    "LambdaRank": LGBMRanker(n_estimators=30, num_leaves=15, learning_rate=0.1,
                             min_child_samples=5, n_jobs=1, verbose=-1),
    "XGBoost pairwise": XGBRanker(n_estimators=30, max_depth=4, learning_rate=0.1,
                                  n_jobs=1),
    "Pointwise HGB": HistGradientBoostingRegressor(max_iter=30, max_leaf_nodes=15),
}

# %%
# 3 seeds x 5 folds
# -----------------
#
# Every model is fitted on the same five folds of whole queries of every data set, and the
# split is repeated with three seeds (each repeat also reseeds the models). Each query gets
# one test value per seed, from the model of the fold that did not train on it.
result = run_benchmark(models, data, metrics=["ndcg@10"], n_splits=5, n_repeats=3,
                       random_state=0)
print(result)

# %%
# Variance where it comes from
# ----------------------------
#
# :meth:`~sklearn_rank.benchmark.BenchmarkResult.seed_summary` gives, per data set and
# model, the mean over queries and seeds, the spread of the per-seed means (the seed's
# noise: the split and the models' own randomness), and the query-level interval (the
# data's noise). The seed's noise is much smaller than the queries' here: a difference
# between two rankers smaller than the seed spread would be no difference at all.
print(result.seed_summary())

# %%
# A paired test between two rankers on one data set pairs the same query under the same
# seed, and counts each query once: three seeds are not three times the evidence.
test = result.paired_test("LambdaRank", "Pointwise HGB", dataset="noise 0.5")
print(f"{test.n} queries, mean difference {test.mean_difference:.4f}, p = {test.pvalue:.3g}")

# %%
# Across data sets
# ----------------
#
# Each data set gives each model one score, its mean ``nDCG@10`` over queries and seeds.
# The models are ranked within each data set (scores of different data sets are never
# averaged); Friedman's test asks whether the ranks differ more than chance allows, and the
# Wilcoxon signed-rank test over the data sets, with Holm's correction, compares each pair
# (Benavoli et al., 2016). With four data sets the Wilcoxon test can never reach p < 0.05:
# the result says so instead of printing p-values that could only read "no difference".
# The lines "Queries" are the power of the paired t-test of the best ranker against the
# runner-up on each data set: the queries needed to detect a difference of 0.02 in
# ``nDCG@10`` with power 0.8 at alpha 0.05, and the smallest difference the 80 queries at
# hand detect.
across = result.compare_datasets(delta=0.02)
print(across)

# %%
# The critical difference diagram
# -------------------------------
#
# The average ranks on an axis, the best on the left; a bar joins the rankers that no test
# tells apart (:class:`~sklearn_rank.plot.CriticalDifferenceDisplay`).
display = CriticalDifferenceDisplay.from_result(across)

# %%
# How many queries are enough
# ---------------------------
#
# On the hardest data set, the difference between the two best rankers, and the queries
# the paired t-test would need to detect a difference of 0.01 with power 0.8: a
# non-significant result there means "too few queries", not "no difference".
best, runner_up = (across.models[i] for i in across.average_ranks.argsort()[:2])
print(result.query_set_size(best, runner_up, dataset="noise 2.0", delta=0.01))
