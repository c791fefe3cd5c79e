"""
==============================================================
One ranking, four ``nDCG@10``: the conventions behind a number
==============================================================

Score the same ranking with scikit-learn, LightGBM, XGBoost and trec_eval and you can get four
different ``nDCG@10``. None of them is wrong: they differ in conventions that papers and
documentation seldom state, namely the gain of a grade, the order of documents with equal
scores, the value of a query without any relevant document, the precision in which scores
are held, and the documents that the ideal ranking is computed over.

This example builds four small queries, each of which exposes one convention, computes
``nDCG@10`` with each library, and reproduces every value with the ``convention=`` presets of
:func:`sklearn_rank.metrics.ndcg_score` (see :ref:`conventions` for the full table).
scikit-learn and LightGBM are dependencies of sklearn-rank; XGBoost and trec_eval (through
``pytrec_eval``) are used when they are installed, and only sklearn-rank's preset value is
shown otherwise.
"""

# %%
# Four queries, four conventions
# ------------------------------
#
# Grades go from 0 (not relevant) to 4 (perfect). Each query is built so that one
# convention changes its ``nDCG@10``:
#
# * **gain**: distinct scores, graded labels, an imperfect ranking;
# * **ties**: three documents share the top score, and the first of them in row order is
#   not relevant;
# * **no relevant**: every document has grade 0, so that the ideal DCG is 0 and nDCG is 0/0;
# * **float32**: two scores differ by 1e-8, less than float32 can tell apart near 0.3; the
#   higher one belongs to the non-relevant document, which comes second in row order.
#
# The rows of each query are contiguous and in the order given, which is what LightGBM and
# XGBoost require.
import lightgbm
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import ndcg_score as sklearn_ndcg_score

from sklearn_rank.metrics import ndcg_score

queries = {
    "gain": ([4, 0, 2, 1, 0, 3], [0.9, 0.8, 0.7, 0.5, 0.4, 0.3]),
    "ties": ([0, 3, 1, 0, 2], [0.6, 0.6, 0.6, 0.2, 0.1]),
    "no relevant": ([0, 0, 0, 0], [0.8, 0.5, 0.3, 0.1]),
    "float32": ([2, 0, 1], [0.3, 0.30000001, 0.1]),
}
names = list(queries)
y_true = np.concatenate([np.array(grades, dtype=float) for grades, _ in queries.values()])
y_score = np.concatenate([np.array(scores, dtype=float) for _, scores in queries.values()])
sizes = np.array([len(grades) for grades, _ in queries.values()])
qid = np.repeat(np.arange(len(queries)), sizes)  # sklearn-rank returns queries in this order

for name, (grades, scores) in queries.items():
    print(f"{name:>12}: grades {grades}, scores {scores}")
print("0.3 and 0.30000001 are equal in float32:",
      bool(np.float32(0.3) == np.float32(0.30000001)))

# %%
# What each library says
# ----------------------
#
# **scikit-learn.** :func:`sklearn.metrics.ndcg_score` takes a 2-D array with one row per
# query, so all queries must have the same number of documents. For lists of different
# lengths, call it on each query and average.
library = {}
library["scikit-learn"] = np.mean([
    sklearn_ndcg_score(y_true[qid == q][np.newaxis], y_score[qid == q][np.newaxis], k=10)
    for q in range(len(queries))
])

# %%
# **LightGBM.** A :class:`lightgbm.Booster` built on a :class:`lightgbm.Dataset` whose
# ``init_score`` holds the scores has no tree yet, so evaluating it on its training data
# evaluates exactly these scores. LightGBM takes the sizes of groups of contiguous rows.
dataset = lightgbm.Dataset(np.zeros((len(y_true), 1)), label=y_true, group=sizes,
                           init_score=y_score, params={"verbose": -1})
booster = lightgbm.Booster(
    params={"objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "verbose": -1},
    train_set=dataset)
# one (data name, metric name, value, is higher better) per metric
library["LightGBM"] = booster.eval_train()[0][2]

# %%
# **XGBoost.** Likewise, a booster with no tree on a :class:`xgboost.DMatrix` whose
# ``base_margin`` holds the scores.
try:
    import xgboost
except ImportError:
    library["XGBoost"] = None
    print("XGBoost is not installed: its bar shows sklearn-rank's preset value only.")
else:
    dmatrix = xgboost.DMatrix(np.zeros((len(y_true), 1)), label=y_true, qid=qid,
                              base_margin=y_score)
    booster = xgboost.Booster({"objective": "rank:ndcg", "eval_metric": "ndcg@10"}, [dmatrix])
    library["XGBoost"] = float(booster.eval(dmatrix).rsplit(":", 1)[1])

# %%
# **trec_eval**, through ``pytrec_eval``, takes dictionaries: the judgements ("qrels")
# ``{query: {document: grade}}`` and the run ``{query: {document: score}}``. trec_eval
# orders documents with equal scores by document name, descending: naming the rows so that
# this order is the row order makes the ties comparable with the other libraries.
try:
    import pytrec_eval
except ImportError:
    library["trec_eval"] = None
    print("pytrec_eval is not installed: its bar shows sklearn-rank's preset value only.")
else:
    docno = [f"d{len(y_true) - 1 - i:03d}" for i in range(len(y_true))]
    qrels = {str(q): {docno[i]: int(y_true[i]) for i in np.flatnonzero(qid == q)}
             for q in range(len(queries))}
    run = {str(q): {docno[i]: float(y_score[i]) for i in np.flatnonzero(qid == q)}
           for q in range(len(queries))}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    library["trec_eval"] = np.mean(
        [measures["ndcg_cut_10"] for measures in evaluator.evaluate(run).values()])

for name, value in library.items():
    print(f"{name:>12}: " + ("not installed" if value is None else f"{value:.4f}"))

# %%
# The presets
# -----------
#
# :func:`~sklearn_rank.metrics.ndcg_score` takes flat arrays and one query id per row.
# ``convention=`` sets every convention to what a library does, in one word:
#
# ============  ===========  =============  ====================  =======================
# preset        gain         ties           no relevant document  the library holds
#                                                                 scores in
# ============  ===========  =============  ====================  =======================
# sklearn       linear       averaged       0                     float64
# trec_eval     linear       document name  0                     float32
# lightgbm      exponential  row order      1                     float64
# xgboost       exponential  row order      1                     float32
# ============  ===========  =============  ====================  =======================
#
# A preset changes how the metric is computed, not its input: for trec_eval and XGBoost,
# cast the scores to float32 to see the ties they see. (trec_eval's order of tied
# documents is that of ``ties="stable"``, the row order, once the documents are named as
# above.)
presets = {"scikit-learn": "sklearn", "trec_eval": "trec_eval", "LightGBM": "lightgbm",
           "XGBoost": "xgboost"}
float32_systems = {"trec_eval", "XGBoost"}
per_query = {}
for system, convention in presets.items():
    scores = y_score.astype(np.float32) if system in float32_systems else y_score
    per_query[system] = ndcg_score(y_true, scores, qid=qid, k=10, convention=convention,
                                   return_per_query=True)

print(f"{'query':>12}" + "".join(f"{system:>14}" for system in presets))
for i, name in enumerate(names):
    print(f"{name:>12}" + "".join(f"{per_query[s][i]:>14.4f}" for s in presets))
print(f"{'mean':>12}" + "".join(f"{per_query[s].mean():>14.4f}" for s in presets))
print(f"{'library':>12}" + "".join(
    f"{'-':>14}" if library[s] is None else f"{library[s]:>14.4f}" for s in presets))
for system in presets:
    if library[system] is not None:
        assert abs(library[system] - per_query[system].mean()) < 1e-9, system

# %%
# Every library's value computed above equals its preset's mean (the ``assert`` checks it
# to 1e-9). Query by query:
#
# * **gain**: scikit-learn and trec_eval give a grade ``y`` the gain ``y``, LightGBM and
#   XGBoost ``2**y - 1``, which weighs the top grades far more: the same ranking gets
#   another value.
# * **ties**: scikit-learn averages over every order of the tied documents (the exact
#   expectation, as ``ties="average"`` does). The three others keep the row order, or the
#   document names for trec_eval, which here puts the non-relevant document first.
# * **no relevant**: nDCG is 0/0. scikit-learn and trec_eval count the query as 0,
#   LightGBM and XGBoost as 1: this query alone moves the mean over the four queries by
#   0.25.
# * **float32**: trec_eval and XGBoost hold the scores in float32, where the two top scores
#   are equal; row order then puts the relevant document first. scikit-learn and LightGBM
#   hold them in float64 and rank the non-relevant document first.
#
# The bar plot shows the four values and where they come from.
systems = list(presets)
fig, (ax_mean, ax_query) = plt.subplots(1, 2, figsize=(11, 4.2),
                                        gridspec_kw={"width_ratios": [1, 1.6]})
for i, system in enumerate(systems):
    computed = library[system] is not None
    ax_mean.bar(i, per_query[system].mean(), color=f"C{i}", hatch=None if computed else "//",
                alpha=1.0 if computed else 0.4)
    ax_mean.text(i, per_query[system].mean() + 0.01, f"{per_query[system].mean():.3f}",
                 ha="center", va="bottom")
ax_mean.set_xticks(range(len(systems)), systems)
ax_mean.set(ylim=(0, 1.05), ylabel="nDCG@10, mean over the 4 queries",
            title="Same scores, four libraries")

width = 0.8 / len(systems)
for i, system in enumerate(systems):
    ax_query.bar(np.arange(len(names)) + (i - 1.5) * width, per_query[system], width,
                 label=system, color=f"C{i}")
ax_query.set_xticks(range(len(names)), names)
ax_query.set(ylim=(0, 1.2), yticks=np.linspace(0, 1, 6), ylabel="nDCG@10 of the query",
             title="Query by query")
ax_query.legend(loc="upper center", ncols=len(systems), fontsize="small")
fig.tight_layout()

# %%
# A hatched bar, if any, is a library that is not installed here: its height is the
# preset's value. The per-query values of every bar come from the presets.
#
# Mixing conventions
# ------------------
#
# Explicit keywords override the preset, which answers questions such as "what would
# LightGBM report if empty queries counted as 0?". Without a preset, sklearn-rank's defaults
# are exponential gains, averaged ties and 0 for a query without relevant documents: a
# fifth value, since no library above combines these three.
print("lightgbm with no_relevant=0:",
      round(ndcg_score(y_true, y_score, qid=qid, k=10, convention="lightgbm",
                       no_relevant=0.0), 4))
print("lightgbm, ties averaged:    ",
      round(ndcg_score(y_true, y_score, qid=qid, k=10, convention="lightgbm",
                       ties="average"), 4))
print("sklearn-rank's defaults:    ", round(ndcg_score(y_true, y_score, qid=qid, k=10), 4))

# %%
# Documents the system did not return
# ------------------------------------
#
# One more difference lies in the data rather than in the formula. trec_eval computes the
# ideal ranking from every judged document of a query, including those that the system did
# not return, whereas a model's predictions only cover the rows it scored. Suppose the
# system behind the **gain** query missed a sixth judged document, of grade 3. sklearn-rank
# takes it as a row with ``retrieved=False``: it is never ranked, but it raises the ideal
# DCG.
missed_true = np.append(y_true[qid == 0], 3.0)
missed_score = np.append(y_score[qid == 0], 0.0)  # any score: it is never ranked
retrieved = np.append(np.ones(sizes[0], dtype=bool), False)
print("gain query, returned documents only:", round(
    ndcg_score(y_true[qid == 0], y_score[qid == 0], qid="single_query", k=10,
               convention="trec_eval"), 4))
print("with the missed document judged:    ", round(
    ndcg_score(missed_true, missed_score, qid="single_query", k=10, retrieved=retrieved,
               convention="trec_eval"), 4))
if library["trec_eval"] is not None:
    qrels_missed = {"0": {**qrels["0"], "missed": 3}}
    run_missed = {"0": run["0"]}
    trec = pytrec_eval.RelevanceEvaluator(qrels_missed, {"ndcg_cut.10"}).evaluate(run_missed)
    print("trec_eval with the missed document: ", round(trec["0"]["ndcg_cut_10"], 4))

# %%
# Whichever value you report, say which conventions it follows: passing the same
# ``convention=`` to every :mod:`sklearn_rank.metrics` function, scorer and
# :func:`~sklearn_rank.metrics.evaluate` call keeps a whole study on one definition.
