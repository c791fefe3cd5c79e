"""
=======================================================
Preprocessing in front of a ranker, query ids preserved
=======================================================

A ranker needs the query id of every row, and a transformer in front of it usually loses
them: :class:`~sklearn.preprocessing.StandardScaler` returns an array, so in
``make_pipeline(StandardScaler(), LGBMRanker())`` fitted on a DataFrame with a ``qid``
column, the ranker would get no query ids, and the scaled ids as one more feature. This
example shows the two ways that work and give the same model, to the last bit: routing the
query ids as metadata, or wrapping the transformer in
:class:`~sklearn_rank.preprocessing.KeepQueryId`, which carries the query-id column through.
It also shows the error that the naive pipeline raises, and what it used to cost.

Everything runs offline in a few seconds on generated data.
"""

# %%
# Data: a DataFrame with a query-id column
# ----------------------------------------
#
# :func:`~sklearn_rank.datasets.make_ranking` generates LETOR-like queries, graded 0 to 4.
# :class:`~sklearn_rank.model_selection.QueryShuffleSplit` keeps 60 whole queries aside for
# testing. Without metadata routing (scikit-learn's default), the query ids travel as a
# ``qid`` column of the features' DataFrame, which the splitters, the scorers and the rankers
# of sklearn-rank read.
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sklearn
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank.datasets import make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.metrics import get_scorer, ndcg_score
from sklearn_rank.model_selection import QueryKFold, QueryShuffleSplit
from sklearn_rank.preprocessing import KeepQueryId

X, y, qid = make_ranking(n_queries=240, n_features=20, n_informative=5, random_state=0)
train, test = next(QueryShuffleSplit(n_splits=1, test_size=60, random_state=0).split(qid=qid))
X_train, y_train, qid_train = X[train], y[train], qid[train]
X_test, y_test, qid_test = X[test], y[test], qid[test]

columns = [f"f{i}" for i in range(X.shape[1])]
frame_train = pd.DataFrame(X_train, columns=columns).assign(qid=qid_train)
frame_test = pd.DataFrame(X_test, columns=columns).assign(qid=qid_test)

ranker = LGBMRanker(n_estimators=50, min_child_samples=10, n_jobs=1, random_state=0,
                    verbose=-1)
cv = QueryKFold(n_splits=3, shuffle=True, random_state=0)
ndcg10 = get_scorer("ndcg@10")

# %%
# The routed pipeline
# -------------------
#
# With metadata routing on, ``qid=`` goes to whoever requests it: the ranker's ``fit``, the
# splitter and the scorer. The scaler never sees the query ids.
with sklearn.config_context(enable_metadata_routing=True):
    routed = make_pipeline(StandardScaler(), clone(ranker))
    routed.fit(X_train, y_train, qid=qid_train)
    routed_cv = cross_val_score(routed, X_train, y_train, cv=cv, scoring=ndcg10,
                                params={"qid": qid_train})
routed_test = ndcg_score(y_test, routed.predict(X_test), qid=qid_test, k=10)
print(f"routed pipeline:       cross-validated nDCG@10 {np.round(routed_cv, 4)}, "
      f"on the test queries {routed_test:.4f}")

# %%
# The same pipeline without routing: ``KeepQueryId``
# ---------------------------------------------------
#
# :class:`~sklearn_rank.preprocessing.KeepQueryId` fits and transforms the columns other than
# ``qid`` and returns a DataFrame of the transformed features with the ``qid`` column
# appended, unchanged. The ranker reads the query ids from it (and drops the column before
# training), the scorers read them from the test frames, the splitter from the training
# frame. No routing is needed, and the numbers are those of the routed pipeline.
kept = make_pipeline(KeepQueryId(StandardScaler()), clone(ranker))
kept.fit(frame_train, y_train)
kept_cv = cross_val_score(kept, frame_train, y_train, cv=cv, scoring=ndcg10)
kept_test = ndcg_score(y_test, kept.predict(frame_test), qid=qid_test, k=10)
print(f"KeepQueryId pipeline:  cross-validated nDCG@10 {np.round(kept_cv, 4)}, "
      f"on the test queries {kept_test:.4f}")
print("same predictions as the routed pipeline:",
      np.array_equal(kept.predict(frame_test), routed.predict(X_test)))
print("same fold scores:", np.array_equal(kept_cv, routed_cv))

# %%
# The wrapper's output is what the ranker sees: the scaled features, and the query ids as
# they were.
print(kept[0].transform(frame_test).iloc[:3, -4:])

# %%
# The naive pipeline now refuses
# ------------------------------
#
# Without the wrapper and without routing, the ranker gets the scaler's array: no query-id
# column, hence no query ids. It raises, and says why and what to do.
naive = make_pipeline(StandardScaler(), clone(ranker))
try:
    naive.fit(frame_train, y_train)
except ValueError as error:
    print(textwrap.fill(str(error), width=88))

# %%
# What it used to do, silently: train every row as one query, with the scaled query ids as
# one more feature. ``qid="single_query"``, the explicit way to ask for one query, passed to
# the ranker through the pipeline, reproduces it. Its scores looked plausible, because the
# scorers still read the query ids from the outer frame; only a comparison with the right
# pipeline shows the loss.
naive.fit(frame_train, y_train, lgbmranker__qid="single_query")
naive_test = ndcg_score(y_test, naive.predict(frame_test), qid=qid_test, k=10)
print(f"one query, ids as a feature: nDCG@10 on the test queries {naive_test:.4f}")

fig, ax = plt.subplots(figsize=(6.5, 3))
labels = ["routed", "KeepQueryId,\nno routing", "naive: one query,\nids as a feature"]
values = [routed_test, kept_test, naive_test]
ax.barh(labels, values, color=["tab:blue", "tab:blue", "tab:gray"])
for i, value in enumerate(values):
    ax.text(value, i, f" {value:.4f}", va="center")
ax.set_xlim(min(values) - 0.05, max(values) + 0.04)
ax.invert_yaxis()
ax.set_xlabel("nDCG@10 on the test queries")
fig.tight_layout()

# %%
# A scaler told to return pandas keeps the column
# -----------------------------------------------
#
# ``StandardScaler().set_output(transform="pandas")`` returns a DataFrame that still has a
# ``qid`` column, scaled: the ids are no longer ids (a ``QuantileTransformer`` would even map
# several queries to one value). The ranker refuses a query-id column of non-integer numbers,
# and points to the wrapper.
scaled = make_pipeline(StandardScaler().set_output(transform="pandas"), clone(ranker))
try:
    scaled.fit(frame_train, y_train)
except ValueError as error:
    print(textwrap.fill(str(error), width=88))

# %%
# :ref:`How query ids travel through a search <qid-routing>` has the details, and the other
# transformers ``KeepQueryId`` takes: a :class:`~sklearn.compose.ColumnTransformer` (which
# sees a DataFrame without the query-id column and selects columns by name), or a whole
# pipeline of transformers.
