"""
===================================================================
Why ranking metrics: a lower MSE or fewer inversions can rank worse
===================================================================

A ranking is judged by the user who reads it from the top: what matters is how soon the
relevant documents come. The mean squared error of predicted grades, and the share of pairs
of documents put in the right order (Kendall's tau, pairwise accuracy), weigh every document
and every pair alike, wherever they sit in the list. They can prefer the worse ranking.

This example shows it twice, with numbers computed by sklearn-rank and
:mod:`sklearn.metrics`: on one query, with two result lists made up to show it, then at scale,
where a pointwise regressor with the better test MSE has the worse test ``nDCG@10``, and a
paired test says the gap is not noise.

Everything runs offline in a few seconds.
"""

# %%
# One query, two result lists
# ---------------------------
#
# Ten documents, graded from 0 (irrelevant) to 3 (the answer). Two systems predict a grade
# for each document and rank by it:
#
# * **A** hedges, as a least-squares fit does: it predicts every relevant document a little
#   under its grade, and two irrelevant ones a little over theirs. Its errors are small, and
#   it orders most pairs right: everything but the two irrelevant documents it puts first.
# * **B** is sure of the answer and puts it first; below it, it is sloppy: five irrelevant
#   documents come before the other four relevant ones, and its grades are further off.
import matplotlib.pyplot as plt
import numpy as np
from lightgbm import LGBMRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_squared_error
from sklearn.metrics import ndcg_score as sklearn_ndcg_score

from sklearn_rank.datasets import make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.metrics import evaluate
from sklearn_rank.model_selection import QueryShuffleSplit
from sklearn_rank.plot import PerQueryDifferenceDisplay
from sklearn_rank.stats import paired_test

grades = np.array([3, 2, 2, 1, 1, 0, 0, 0, 0, 0])
systems = {
    "A": np.array([1.5, 1.4, 1.35, 1.2, 1.1, 1.7, 1.6, 0.3, 0.2, 0.1]),
    "B": np.array([3.0, 0.4, 0.35, 0.3, 0.25, 1.0, 0.95, 0.9, 0.85, 0.8]),
}
for name, predicted in systems.items():
    print(f"{name}: grades in the order shown: {grades[np.argsort(-predicted)]}")

# %%
# The user of A reads two irrelevant documents before the answer; the user of B finds it
# first. Now the numbers. :func:`~sklearn_rank.metrics.evaluate` computes the ranking metrics
# of one query (every row has the same query id) from one sort; ERR turns a grade into the
# probability that the document satisfies the user, relative to the top grade of the scale,
# here 3. :func:`sklearn.metrics.mean_squared_error` scores the predicted grades as a
# regression, and :func:`sklearn.metrics.ndcg_score` (one query per row of its input, linear
# gains) is a second opinion on nDCG.
qid = np.zeros(grades.size, dtype=int)
names = {"MSE (lower is better)": None, "Kendall's tau": "kendall_tau",
         "pairs in order": "pairwise_accuracy", "nDCG@10": "ndcg@10", "MRR": "mrr@10",
         "ERR@10": "err@10(max_grade=3)"}
table = {}
for name, predicted in systems.items():
    values = evaluate(grades, predicted, qid=qid, metrics=[m for m in names.values() if m])
    table[name] = [mean_squared_error(grades, predicted), *values.values(),
                   sklearn_ndcg_score([grades], [predicted], k=10)]
rows = [*names, "sklearn nDCG@10"]
print(f"{'':24}{'A':>8}{'B':>8}   better")
for i, row in enumerate(rows):
    a, b = table["A"][i], table["B"][i]
    better = ("A" if a < b else "B") if i == 0 else ("A" if a > b else "B")
    print(f"{row:24}{a:8.3f}{b:8.3f}   {better}")

# %%
# A wins on everything that weighs all documents or all pairs alike: its MSE is lower and it
# orders 70% of the pairs of documents of different grades right, against 39% for B (hence
# Kendall's tau). Every metric that discounts by rank sides with the user: ``nDCG@10``
# (0.85 against 0.59), the reciprocal rank of the first relevant document (1 against 1/3)
# and ERR, the expected reciprocal rank at which the user stops, satisfied (0.89 against
# 0.31). scikit-learn's ``ndcg_score``, with linear gains, agrees.
#
# Inversions at the bottom of the list cost as much as inversions at the top in an MSE or a
# count of pairs; to the user, the top is all that is seen.
fig, (ax_lists, ax_metrics) = plt.subplots(
    1, 2, figsize=(11, 3.4), gridspec_kw={"width_ratios": [1.1, 1]})
strips = np.array([grades[np.argsort(-systems[name])] for name in systems])
ax_lists.imshow(strips, cmap="Greens", vmin=-0.5, vmax=3.5, aspect="auto")
for (row, rank), grade in np.ndenumerate(strips):
    ax_lists.text(rank, row, grade, ha="center", va="center",
                  color="white" if grade >= 2 else "black")
ax_lists.set_yticks([0, 1], [f"system {name}" for name in systems])
ax_lists.set_xticks(range(grades.size), range(1, grades.size + 1))
ax_lists.set_xlabel("rank (the grade of the document shown there)")
ax_lists.set_title("The two result lists")

positions = np.arange(len(rows))
for offset, name in ((-0.2, "A"), (0.2, "B")):
    ax_metrics.barh(positions + offset, table[name], height=0.4, label=f"system {name}")
ax_metrics.set_yticks(positions, rows)
ax_metrics.invert_yaxis()
ax_metrics.axvline(0, color="black", linewidth=0.8)
ax_metrics.set_title("A wins the first three rows, B the others")
ax_metrics.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=2, frameon=False)
fig.tight_layout()

# %%
# At scale: a better test MSE, a worse ranking
# --------------------------------------------
#
# :func:`~sklearn_rank.datasets.make_ranking` with ``realistic=True`` simulates what makes
# web-search data such as MSLR-WEB hard for a regression: the relevance of all the documents
# of a query shifts with the query (with features of the query, and in part invisibly),
# document features are relative to the query, and some of them reveal the query's shift but
# say nothing about which of its documents are relevant. Its docstring states the process.
#
# Two models with the same trees (100 of 15 leaves), trained on 400 queries and tested on
# 200 others: LightGBM's least-squares regression of the grades, and LightGBM's LambdaRank
# (:class:`sklearn_rank.lightgbm.LGBMRanker`), which only compares documents of the same
# query. LambdaRank's scores are on no particular scale, so, to give its MSE a fair chance,
# they are mapped to the grades by the best affine function, fitted on the training queries
# (a ranking metric does not change under it).
X, y, qid = make_ranking(n_queries=600, realistic=True, random_state=0)
train, test = next(QueryShuffleSplit(n_splits=1, test_size=200, random_state=0).split(qid=qid))

trees = {"n_estimators": 100, "learning_rate": 0.1, "num_leaves": 15, "n_jobs": 1,
         "random_state": 0, "verbose": -1}
regression = LGBMRegressor(**trees).fit(X[train], y[train])
lambdarank = LGBMRanker(**trees).fit(X[train], y[train], qid=qid[train])
to_grades = LinearRegression().fit(lambdarank.predict(X[train]).reshape(-1, 1), y[train])

scores = {"regression": regression.predict(X[test]),
          "LambdaRank": to_grades.predict(lambdarank.predict(X[test]).reshape(-1, 1))}
metrics = ["ndcg@10", "err@10(max_grade=4)", "mrr@10"]
print(f"{'':12}{'test MSE':>10}" + "".join(f"{m.split('(')[0]:>10}" for m in metrics))
for name, y_score in scores.items():
    values = evaluate(y[test], y_score, qid=qid[test], metrics=metrics)
    print(f"{name:12}{mean_squared_error(y[test], y_score):10.3f}"
          + "".join(f"{v:10.3f}" for v in values.values()))

# %%
# Model selection by test MSE picks the regression, by a wide margin; every ranking metric
# picks LambdaRank. The regression spends its trees on predicting how relevant a query's
# documents are *on the whole*, which lowers the MSE and changes no order within a query;
# LambdaRank spends them on the order.
#
# Is the gap in ``nDCG@10`` more than noise? The 200 test queries are scored by both models:
# a paired test on the per-query values (:func:`~sklearn_rank.stats.paired_test`) answers,
# with a bootstrap confidence interval of the mean difference.
per_query = {name: evaluate(y[test], y_score, qid=qid[test], metrics=["ndcg@10"],
                            return_per_query=True)["ndcg@10"]
             for name, y_score in scores.items()}
result = paired_test(per_query["LambdaRank"], per_query["regression"], n_resamples=2000,
                     random_state=0)
low, high = result.confidence_interval
print(f"nDCG@10, LambdaRank minus regression over {result.n} test queries: "
      f"{result.mean_difference:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}], paired t-test "
      f"p = {result.pvalue:.1g}")

# %%
# :class:`~sklearn_rank.plot.PerQueryDifferenceDisplay` draws the same test, query by query:
# LambdaRank ahead on many queries, behind on fewer, tied on the rest (queries whose top ten
# holds the same grades under both models, or that have no relevant document).
display = PerQueryDifferenceDisplay.from_predictions(
    y[test], scores["LambdaRank"], scores["regression"], qid=qid[test], metric="nDCG@10",
    names=("LambdaRank", "regression"), n_resamples=2000, random_state=0)
display.ax_.set_title("nDCG@10 of LambdaRank minus regression, per test query")

# %%
# If you select models by RMSE, you select the model that predicts grades best, not the one
# that ranks best; the two differ whenever the grades vary from query to query for reasons
# that do not change the order within a query, which is what human judgements of web search
# do. Select by the metric of what the user sees, ``nDCG@10`` or ERR, and compare models on
# the same queries with a paired test (:func:`sklearn_rank.stats.compare` for several).
