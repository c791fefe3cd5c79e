"""make_ranking's realistic mode, the default mode's stability, and the benchmark script that
reproduces the shape of published results (``asv_bench/published_shape.py``).

The process of ``realistic=True`` is checked against its docstring: every array is rebuilt
here from the formulas of the Notes and the terms the Bunch returns. The claim the mode exists
for (a ranking loss beats least squares on it, and not on the default process) is checked with
real boosters.
"""

import hashlib
import importlib.util
import io
import itertools
import re
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import norm
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_rank.datasets import _fetch, make_ranking

ASV_BENCH = Path(__file__).parents[1] / "asv_bench"
N_QUERY_FEATURES = 3


# -- The default process is frozen ----------------------------------------------------------

def _default_process_as_published(n_queries, n_features, n_informative, min_docs, max_docs,
                                  n_grades, noise, shuffle, random_state):
    """make_ranking before the realistic mode existed, copied verbatim: the default output
    must stay bit for bit what the docs and tests built on it expect."""
    rng = check_random_state(random_state)
    sizes = rng.randint(min_docs, max_docs + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    n_samples = qid.shape[0]
    X = rng.standard_normal(size=(n_samples, n_features))
    coef = np.zeros(n_features)
    if n_informative > 0:
        magnitude = rng.uniform(0.5, 1.5, size=n_informative)
        sign = rng.choice([-1.0, 1.0], size=n_informative)
        weights = magnitude * sign
        coef[:n_informative] = weights / np.linalg.norm(weights)
    signal_var = 1.0 if n_informative > 0 else 0.0
    query_effect = rng.normal(scale=0.5, size=n_queries)
    latent = X @ coef + query_effect[qid] + noise * rng.standard_normal(size=n_samples)
    total_std = np.sqrt(signal_var + 0.5**2 + noise**2)
    grade_prob = 0.5 ** np.arange(n_grades)
    grade_prob /= grade_prob.sum()
    thresholds = total_std * ndtri(np.cumsum(grade_prob)[:-1])
    y = np.searchsorted(thresholds, latent, side="right").astype(np.int64)
    if shuffle:
        permutation = rng.permutation(n_samples)
        X, y, qid = X[permutation], y[permutation], qid[permutation]
    return Bunch(data=X, target=y, qid=qid, coef=coef)


@pytest.mark.parametrize(
    "n_queries, n_features, n_informative, min_docs, max_docs, n_grades, noise, shuffle, seed",
    [(1, 1, 0, 1, 1, 2, 0.0, True, 0), (7, 5, 1, 2, 9, 5, 0.5, False, 3),
     (200, 20, 5, 5, 50, 5, 0.5, True, 0), (50, 12, 12, 1, 5, 7, 2.0, True, 42)],
)
def test_default_process_is_unchanged_bit_for_bit(n_queries, n_features, n_informative,
                                                  min_docs, max_docs, n_grades, noise,
                                                  shuffle, seed):
    params = dict(n_features=n_features, n_informative=n_informative, min_docs=min_docs,
                  max_docs=max_docs, n_grades=n_grades, noise=noise, shuffle=shuffle)
    expected = _default_process_as_published(n_queries, random_state=seed, **params)
    for realistic in ({}, {"realistic": False}):
        data = make_ranking(n_queries, random_state=seed, return_X_y_qid=False,
                            **params, **realistic)
        assert sorted(data) == ["coef", "data", "qid", "target"]
        for key in expected:
            np.testing.assert_array_equal(data[key], expected[key], strict=True)


# -- The realistic process, as its docstring states it --------------------------------------

def _rebuild(data, n_informative):
    """Every term of the Notes of make_ranking, rebuilt from the Bunch: returns the noiseless
    latent relevance h + b of each row and the hidden offsets u_q."""
    X, qid = data.data, data.qid
    n_features = X.shape[1]
    n_document = n_features - N_QUERY_FEATURES
    np.testing.assert_array_equal(data.query_columns, np.arange(n_document, n_features))
    v = X[:, n_document:]
    first, second, third = v.T
    # b_q = 0.8 (sin(2 v1) v2 + |v3| - sqrt(2/pi)) / sqrt(var) + 0.6 u_q
    offset_var = (1 - np.exp(-8)) / 2 + 1 - 2 / np.pi
    observed = (np.sin(2 * first) * second + np.abs(third) - np.sqrt(2 / np.pi)) / np.sqrt(
        offset_var)
    b = data.query_offset[qid]
    u = (b - 0.8 * observed) / 0.6
    # x = e^{v1/2} t + C^T v + u a, a_j = 1/sqrt(p - r) on the uninformative features
    C = data.feature_shift[:, :n_document]
    a = np.zeros(n_document)
    if n_document > n_informative:
        a[n_informative:] = 1 / np.sqrt(n_document - n_informative)
    t = (X[:, :n_document] - v @ C - u[:, None] * a) / np.exp(first / 2)[:, None]
    # h = (t_I . (w + v B) + sum of pair products / sqrt(m)) / s
    w = data.coef[:n_informative]
    B = data.query_coef[:, :n_informative]
    m = n_informative // 2
    products = sum(t[:, 2 * j] * t[:, 2 * j + 1] for j in range(m)) / np.sqrt(m) if m else 0
    h = np.sum(t[:, :n_informative] * (w + v @ B), axis=1) + products
    s = np.sqrt(1 + np.sum(B**2) + (m >= 1))
    h = h / s
    return h + b, u, t


@pytest.mark.parametrize("n_features, n_informative", [(20, 5), (8, 5), (9, 6), (6, 1),
                                                       (4, 0), (3, 0)])
@pytest.mark.parametrize("shuffle", [True, False])
def test_realistic_process_is_the_documented_one(n_features, n_informative, shuffle):
    data = make_ranking(300, n_features=n_features, n_informative=n_informative, noise=0.0,
                        shuffle=shuffle, realistic=True, random_state=0,
                        return_X_y_qid=False)
    n_document = n_features - N_QUERY_FEATURES
    latent, u, t = _rebuild(data, n_informative)
    # without noise, the latent relevance is h + b exactly
    np.testing.assert_allclose(data.latent, latent, rtol=1e-10, atol=1e-10)
    # the thresholds: sqrt(2 + noise**2) times the normal quantiles of 2**-g
    prob = 0.5 ** np.arange(5) / np.sum(0.5 ** np.arange(5))
    np.testing.assert_allclose(data.thresholds, np.sqrt(2.0) * norm.ppf(np.cumsum(prob)[:-1]))
    np.testing.assert_array_equal(data.target, np.searchsorted(data.thresholds, data.latent,
                                                               side="right"))
    # the terms have the documented shapes and zeros
    assert data.coef.shape == (n_features,) and not data.coef[n_informative:].any()
    if n_informative:
        np.testing.assert_allclose(np.linalg.norm(data.coef), 1.0)
    assert data.query_coef.shape == data.feature_shift.shape == (N_QUERY_FEATURES, n_features)
    assert not data.query_coef[:, n_informative:].any()
    assert not data.feature_shift[:, n_document:].any()
    # the query features, the hidden offsets and the scales are per query
    for column in (*data.data[:, n_document:].T, u):
        assert _constant_within_queries(column, data.qid)
    # the latent features are standard normal, independent of the query
    if n_document:
        assert abs(t.mean()) < 0.05 and abs(t.std() - 1) < 0.05
    assert abs(u.mean()) < 0.2 and abs(u.std() - 1) < 0.2


def _constant_within_queries(values, qid):
    order = np.lexsort((values, qid))
    first = np.r_[True, qid[order][1:] != qid[order][:-1]]
    starts = np.maximum.accumulate(np.where(first, np.arange(len(qid)), 0))
    return np.allclose(values[order], values[order][starts], rtol=1e-12, atol=1e-12)


def test_realistic_noise_is_the_documented_one():
    noise = 0.7
    data = make_ranking(3000, noise=noise, realistic=True, random_state=1,
                        return_X_y_qid=False)
    latent, _, _ = _rebuild(data, 5)
    residual = data.latent - latent
    assert abs(residual.mean()) < 0.01
    assert abs(residual.std() - noise) < 0.01
    prob = 0.5 ** np.arange(5) / np.sum(0.5 ** np.arange(5))
    np.testing.assert_allclose(data.thresholds,
                               np.sqrt(2.0 + noise**2) * norm.ppf(np.cumsum(prob)[:-1]))


def test_realistic_latent_has_the_documented_variances():
    data = make_ranking(4000, realistic=True, random_state=2, return_X_y_qid=False)
    # the query offset has mean 0 and variance 1
    assert abs(data.query_offset.mean()) < 0.05
    assert abs(data.query_offset.var() - 1) < 0.08
    # z = h + b + noise: variance 1 + 1 + 0.5**2
    assert abs(data.latent.mean()) < 0.05
    assert abs(data.latent.var() - 2.25) < 0.1



def test_realistic_coefficients_have_the_documented_laws():
    n_informative, n_document = 100, 300
    data = make_ranking(5, n_features=n_document + N_QUERY_FEATURES,
                        n_informative=n_informative, realistic=True, random_state=0,
                        return_X_y_qid=False)
    B = data.query_coef[:, :n_informative]  # N(0, 1/(3r)) entries
    C = data.feature_shift[:, :n_document]  # N(0, 1/3) entries
    for entries, std in ((B, 1 / np.sqrt(3 * n_informative)), (C, 1 / np.sqrt(3))):
        assert abs(entries.mean()) < 0.15 * std
        assert abs(entries.std() / std - 1) < 0.1
    # w: magnitudes uniform on [0.5, 1.5] before the scaling to norm 1, random signs
    w = data.coef[:n_informative]
    magnitude = np.abs(w) / np.abs(w).mean()
    assert magnitude.min() >= 0.5 / 1.5 - 1e-12 and magnitude.max() <= 1.5 / 0.5 + 1e-12
    assert 30 < np.sum(w > 0) < 70

@pytest.mark.parametrize("n_grades", [2, 5, 7])
def test_realistic_grades_are_skewed_as_documented(n_grades):
    _, y, qid = make_ranking(3000, n_grades=n_grades, realistic=True, random_state=0)
    assert y.dtype == np.int64 and y.min() == 0 and y.max() == n_grades - 1
    frequency = np.bincount(y, minlength=n_grades) / y.size
    expected = 0.5 ** np.arange(n_grades) / np.sum(0.5 ** np.arange(n_grades))
    # close to 2**-g: the latent relevance is not exactly normal
    np.testing.assert_allclose(frequency, expected, atol=0.03)
    # some queries have no relevant document, as in MSLR-WEB, but few
    has_relevant = np.bincount(qid, weights=y > 0) > 0
    assert 0 < (~has_relevant).sum() < 0.15 * has_relevant.size


def test_realistic_shapes_dtypes_and_reproducibility():
    X, y, qid = make_ranking(40, n_features=10, n_informative=4, min_docs=3, max_docs=9,
                             realistic=True, random_state=5)
    assert X.shape == (len(y), 10) and X.dtype == np.float64 and np.isfinite(X).all()
    assert y.shape == qid.shape and y.dtype == qid.dtype == np.int64
    sizes = np.bincount(qid)
    assert sizes.size == 40 and sizes.min() >= 3 and sizes.max() <= 9
    # the query sizes are drawn as in the default process
    _, _, qid_default = make_ranking(40, n_features=10, n_informative=4, min_docs=3,
                                     max_docs=9, random_state=5)
    np.testing.assert_array_equal(sizes, np.bincount(qid_default))
    for a, b in zip((X, y, qid), make_ranking(40, n_features=10, n_informative=4, min_docs=3,
                                              max_docs=9, realistic=True, random_state=5)):
        np.testing.assert_array_equal(a, b)
    other = make_ranking(40, n_features=10, n_informative=4, min_docs=3, max_docs=9,
                         realistic=True, random_state=6)[0]
    assert other.shape != X.shape or not np.array_equal(other, X)
    # a RandomState instance is advanced
    rng = np.random.RandomState(5)
    first = make_ranking(40, n_features=10, n_informative=4, min_docs=3, max_docs=9,
                         realistic=True, random_state=rng)[0]
    second = make_ranking(40, n_features=10, n_informative=4, min_docs=3, max_docs=9,
                          realistic=True, random_state=rng)[0]
    np.testing.assert_array_equal(first, X)
    assert second.shape != first.shape or not np.array_equal(second, first)


def test_realistic_tuple_and_bunch_hold_the_same_arrays():
    X, y, qid = make_ranking(30, realistic=True, random_state=0)
    data = make_ranking(30, realistic=True, random_state=0, return_X_y_qid=False)
    assert sorted(data) == ["coef", "data", "feature_shift", "latent", "qid", "query_coef",
                            "query_columns", "query_offset", "target", "thresholds"]
    for a, b in ((X, data.data), (y, data.target), (qid, data.qid)):
        np.testing.assert_array_equal(a, b)
    assert data.query_offset.shape == (30,)


@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"realistic": "yes"}, InvalidParameterError, "'realistic' parameter"),
        ({"realistic": None}, InvalidParameterError, "'realistic' parameter"),
        ({"realistic": True, "n_features": 7, "n_informative": 5}, ValueError,
         "With realistic=True, n_features must be at least n_informative + 3=8: the last 3 "
         "columns are query-level features. Got n_features=7 instead."),
        ({"realistic": True, "n_features": 2, "n_informative": 0}, ValueError,
         "n_features must be at least n_informative + 3=3"),
        # the checks of both modes come first
        ({"realistic": True, "n_features": 3, "n_informative": 4}, ValueError,
         "n_informative must be at most n_features=3. Got n_informative=4 instead."),
    ],
)
def test_realistic_invalid_parameters_raise(params, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make_ranking(**params)


# -- What the realistic mode is for ---------------------------------------------------------

def _lambdarank_minus_least_squares(realistic):
    """Per-query test nDCG@10 of LambdaRank minus that of a least-squares regressor with the
    same trees, trained on 300 queries and tested on 200 others of the same process."""
    from lightgbm import LGBMRegressor

    from sklearn_rank.lightgbm import LGBMRanker
    from sklearn_rank.metrics import ndcg_score

    X, y, qid = make_ranking(500, realistic=realistic, random_state=0)
    train = qid < 300
    trees = {"n_estimators": 100, "learning_rate": 0.1, "num_leaves": 15, "random_state": 0,
             "n_jobs": 1, "verbose": -1}
    ranker = LGBMRanker(**trees).fit(X[train], y[train], qid=qid[train])
    regressor = LGBMRegressor(**trees).fit(X[train], y[train])
    values = [ndcg_score(y[~train], model.predict(X[~train]), qid=qid[~train], k=10,
                         return_per_query=True) for model in (ranker, regressor)]
    return values[0] - values[1]


def test_ranking_loss_beats_least_squares_on_the_realistic_process_only():
    from sklearn_rank.stats import paired_test

    realistic = _lambdarank_minus_least_squares(True)
    default = _lambdarank_minus_least_squares(False)
    assert realistic.mean() > 0.02
    assert paired_test(realistic, np.zeros_like(realistic)).pvalue < 0.01
    assert abs(default.mean()) < 0.01


# -- asv_bench/published_shape.py -----------------------------------------------------------

def _load_script():
    spec = importlib.util.spec_from_file_location("published_shape",
                                                  ASV_BENCH / "published_shape.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # 15 cross-validated fits with early stopping: about 10 s
def test_published_shape_quick_run_on_generated_data():
    """The CI-sized run (500 queries, at most 300 trees): LambdaRank and XGBoost above the
    regressor, significantly, as published runs on MSLR-WEB10K put them."""
    script = _load_script()
    out = io.StringIO()
    table, trees = script.run("generated", quick=True, seed=0, stream=out)
    text = out.getvalue()
    assert "make_ranking(n_queries=500, realistic=True, random_state=0): 500 queries" in text
    assert str(table) in text
    assert set(trees) == {"pointwise", "lambdarank", "xgboost"}
    for kept in trees.values():  # early stopping stopped every fold before the cap
        assert len(kept) == 5 and all(1 <= n < 300 for n in kept)
    tests = {(c.metric, c.system_a, c.system_b): c for c in table.comparisons}
    for name in ("lambdarank", "xgboost"):
        comparison = tests["ndcg@10", name, "pointwise"]
        assert comparison.result.mean_difference > 0
        assert comparison.significant


def _mslr_archive(n_queries_per_part=12):
    """An archive with MSLR-WEB10K's layout (``Fold{k}/{train,vali,test}.txt``) and 136
    features, from make_ranking's realistic process, written as SVMlight lines."""
    X, y, qid = make_ranking(5 * n_queries_per_part, n_features=136, n_informative=10,
                             min_docs=10, max_docs=20, realistic=True, shuffle=False,
                             random_state=0)
    lines = [f"{grade} qid:{q + 1} " + " ".join(f"{j + 1}:{value:.6g}"
                                                 for j, value in enumerate(row)) + "\n"
             for grade, q, row in zip(y, qid, X)]
    part_of = qid // n_queries_per_part
    parts = ["".join(itertools.compress(lines, part_of == i)).encode() for i in range(5)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for k in range(1, 6):
            order = [parts[(k - 1 + i) % 5] for i in range(5)]
            for split, text in zip(("train", "vali", "test"),
                                   (b"".join(order[:3]), order[3], order[4])):
                bundle.writestr(f"Fold{k}/{split}.txt", text)
    return buffer.getvalue(), 5 * n_queries_per_part


@pytest.mark.slow  # 15 fits of up to 1,000 trees
def test_published_shape_reads_mslr_web10k_from_data_home(tmp_path, monkeypatch, capsys):
    """The --data mslr-web10k path, on an archive of MSLR-WEB10K's layout put in data_home by
    hand (the fetcher's table of known checksums pointed at it): the 10,000 queries of the
    real data set are here 60, and nothing is downloaded."""
    blob, n_queries = _mslr_archive()
    spec = _fetch.DATASETS["mslr-web10k"]
    archive = replace(spec.archive, size=len(blob), sha256=hashlib.sha256(blob).hexdigest())
    monkeypatch.setitem(_fetch.DATASETS, "mslr-web10k", replace(spec, archive=archive))
    path = tmp_path / spec.folder / spec.archive.filename
    path.parent.mkdir(parents=True)
    path.write_bytes(blob)
    script = _load_script()
    assert script.main(["--data", "mslr-web10k", "--data-home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"MSLR-WEB10K (fetch_mslr_web10k(fold=1, subset='all')): {n_queries} queries" in out
    assert "136 features" in out
    assert f"Mean over {n_queries} queries, pooled over 5 cross-validation folds" in out


def test_published_shape_without_mslr_web10k_is_one_clear_error(tmp_path, capsys):
    script = _load_script()
    assert script.main(["--data", "mslr-web10k", "--data-home", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("published_shape.py: error: MSLR-WEB10K is not in ")
    assert "download_if_missing" in err and err.count("\n") == 1


def test_published_shape_quick_is_for_generated_data(capsys):
    script = _load_script()
    with pytest.raises(SystemExit) as info:
        script.main(["--data", "mslr-web10k", "--quick"])
    assert info.value.code == 2
    assert "--quick is the size of the generated data" in capsys.readouterr().err


# -- Training and test queries of one problem -----------------------------------------------

# Each make_ranking seed draws its own relevance weights: the early-stopping example of
# docs/tuning.rst once trained on seed 1 and stopped on seed 2, another problem (an ERR of
# 0.59 in cross-validation, 0.40 on the other seed's queries). A page may draw once; the
# generator's docstring shows how to split that draw.
_SOURCES = ("README.md", "docs/*.rst", "examples/*.py", "asv_bench/*.py")
_CALL = re.compile(r"make_ranking\(((?:[^()]|\([^()]*\))*)\)")


def test_docs_and_examples_draw_their_queries_from_one_problem():
    root = Path(__file__).parents[1]
    mixed = {}
    for pattern in _SOURCES:
        for path in sorted(root.glob(pattern)):
            seeds = {found for call in _CALL.findall(path.read_text())
                     for found in re.findall(r"random_state=(\d+)", call)}
            if len(seeds) > 1:
                mixed[str(path.relative_to(root))] = sorted(seeds)
    assert not mixed, f"make_ranking drawn with several seeds (several problems): {mixed}"


def test_one_draw_split_by_query_is_one_problem():
    """The docstring's recipe: the queries of one call share the coefficients, which a
    second seed does not, and splitting by query id keeps every query whole."""
    data = make_ranking(n_queries=60, random_state=0, return_X_y_qid=False)
    other = make_ranking(n_queries=60, random_state=1, return_X_y_qid=False)
    assert not np.allclose(data.coef, other.coef)  # another seed, another problem
    train, test = data.qid < 40, data.qid >= 40
    assert set(data.qid[train]).isdisjoint(data.qid[test])
    assert len(np.unique(data.qid[train])) == 40 and len(np.unique(data.qid[test])) == 20
