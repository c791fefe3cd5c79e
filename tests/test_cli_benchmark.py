"""``cv`` and ``tune`` as a benchmark tool: any model, any data, held-out test, saved models.

Run through ``main(argv)`` (in-process) and, where the progress line's timing matters, as a
subprocess. The numbers are checked against independent computations: scikit-learn's own
``GridSearchCV`` and ``RandomizedSearchCV``, :func:`sklearn_rank.model_selection.
cross_validate` with estimators built here, and models refitted here and scored with
:func:`sklearn_rank.metrics.evaluate`. Every model is small (a few trees, a few dozen
queries) so that the file runs in about a minute.
"""

import csv
import hashlib
import io
import json
import os
import pickle
import queue
import subprocess
import sys
import threading
import zipfile
from dataclasses import replace
from pathlib import Path

import joblib
import numpy as np
import pytest
import sklearn
from _cli import one_line_error, run_cli
from sklearn.base import clone
from sklearn.datasets import dump_svmlight_file
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV

import sklearn_rank
from sklearn_rank._cli import _models, _params, _scoring
from sklearn_rank._cli._common import CLIError
from sklearn_rank.datasets import _fetch, load_svmlight_ranking, make_ranking
from sklearn_rank.lightgbm import LGBMRanker
from sklearn_rank.metrics import evaluate, make_ranking_scorer, parse_metric
from sklearn_rank.model_selection import QueryKFold, cross_validate

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["--n-splits", "3", "--n-estimators", "4", "-q"]


def flat(text):
    return " ".join(text.split())


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def lambdarank(n_estimators=4, **params):
    """The command line's lambdarank, built here from its documented parameters."""
    return LGBMRanker(objective="lambdarank", n_estimators=n_estimators, learning_rate=0.1,
                      num_leaves=15, random_state=0, n_jobs=1, verbose=-1).set_params(**params)


def pointwise(n_estimators=4, **params):
    from lightgbm import LGBMRegressor

    return LGBMRegressor(n_estimators=n_estimators, learning_rate=0.1, num_leaves=15,
                         random_state=0, n_jobs=1, verbose=-1).set_params(**params)


def reference_cv(estimator, X, y, qid, metrics, n_splits=3, seed=0):
    """Per-query values of the library's cross_validate on the command line's folds."""
    cv = QueryKFold(n_splits, shuffle=True, random_state=seed)
    result = cross_validate(estimator, X, y, qid=qid, scoring=metrics, cv=cv,
                            return_per_query=True)["per_query"]
    # a PerQueryResult in query order: as columns fold by fold, as the command writes them
    order = np.argsort(result.fold, kind="stable")
    return {"qid": result.query_ids[order], "fold": result.fold[order],
            **{m: result[m][order] for m in result.metrics}}


def per_query_rows(path, model, split):
    return [row for row in read_csv(path) if row["model"] == model and row["split"] == split]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A training and a test SVMlight file, and the training data as CSV with a doc column."""
    folder = tmp_path_factory.mktemp("data")
    X, y, qid = make_ranking(30, n_features=5, random_state=1, shuffle=False)
    train = folder / "train.txt"
    dump_svmlight_file(X, y.astype(int), str(train), query_id=qid)
    X2, y2, qid2 = make_ranking(12, n_features=5, random_state=2, shuffle=False)
    test = folder / "test.txt"
    dump_svmlight_file(X2, y2.astype(int), str(test), query_id=qid2 + 1000)
    X, y, qid = load_svmlight_ranking(train)
    table = folder / "train.csv"
    with open(table, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["doc", "query", "grade", *(f"f{j}" for j in range(X.shape[1]))])
        dense = X.toarray()
        for i in range(len(y)):
            writer.writerow([f"d{i}", qid[i], int(y[i]), *(repr(float(v)) for v in dense[i])])
    return {"folder": folder, "train": train, "test": test, "table": table}


# ----------------------------------------------------------------------------------------
# --model, --set and user classes


@pytest.mark.parametrize("text, expected", [
    ("15", 15), ("-3", -3), ("0.05", 0.05), ("1e-3", 1e-3), ("true", True), ("False", False),
    ("none", None), ("gbdt", "gbdt"), ("rank:ndcg", "rank:ndcg"), ("007", "007"),
    ("[1, 3, 5]", [1, 3, 5]), ('{"1": 3}', {"1": 3}), ("{1: 3, 2: 9}", {1: 3, 2: 9}),
    ("(1, 2)", (1, 2)), ("'007'", "007"), ('"a b"', "a b"), ("[0.5, null]", [0.5, None]),
])
def test_set_values_are_typed(text, expected):
    name, value = _params.parse_setting(f"param={text}")
    assert name == "param"
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("spec, message", [
    ("n_estimators", "expected name=value"),
    ("=3", "expected name=value"),
    ("1x=3", "'1x' is not a parameter name"),
    ("x=[1, 2", "cannot read the value '[1, 2'"),
])
def test_set_syntax_errors(spec, message):
    with pytest.raises(CLIError, match=message.replace("[", r"\[")) as info:
        _params.parse_setting(spec)
    assert info.value.code == 2


def test_models_with_settings_and_labels_are_those_built_here(capsys, tmp_path, files):
    # --set before any --model applies to every model; after one, to that model only
    output, per_query = tmp_path / "cv.json", tmp_path / "per_query.csv"
    code, out, err = run_cli(
        capsys, "cv", "--data", files["train"], *SMALL, "--metrics", "ndcg@5", "map",
        "--set", "n_estimators=3", "--model", "small=lightgbm", "--set", "num_leaves=3",
        "--model", "large=lightgbm", "--set", "num_leaves=7", "--set", "learning_rate=0.3",
        "--model", "pointwise", "--output", output, "--per-query-output", per_query)
    assert code == 0, err
    assert "small = LGBMRanker, LightGBM LambdaRank (nDCG) (n_estimators=3, num_leaves=3) " \
           "(the baseline)" in flat(out)
    assert "large = LGBMRanker" in flat(out) and "learning_rate=0.3" in flat(out)
    X, y, qid = load_svmlight_ranking(files["train"])
    expected = {
        "small": lambdarank(3, num_leaves=3),
        "large": lambdarank(3, num_leaves=7, learning_rate=0.3),
        "pointwise": pointwise(3),
    }
    result = json.loads(output.read_text())
    assert [row["model"] for row in result["cv"]] == list(expected)
    for row in result["cv"]:
        reference = reference_cv(expected[row["model"]], X, y, qid, ["ndcg@5", "map"])
        for metric in ("ndcg@5", "map"):
            assert row[f"{metric} mean"] == pytest.approx(np.mean(reference[metric]),
                                                          rel=1e-12)
        rows = per_query_rows(per_query, row["model"], "cv")
        # the fold and query of every value, and the values with all their digits
        assert [int(r["fold"]) for r in rows] == reference["fold"].tolist()
        assert [int(r["qid"]) for r in rows] == reference["qid"].tolist()
        assert [float(r["map"]) for r in rows] == reference["map"].tolist()
    assert result["metadata"]["models"]["large"] == {
        "model": "lightgbm", "params": {"n_estimators": 3, "num_leaves": 7,
                                        "learning_rate": 0.3}}


def test_models_option_still_compares_built_in_models(capsys, files):
    code, out, err = run_cli(capsys, "cv", "--data", files["train"], *SMALL,
                             "--models", "pointwise", "lambdarank", "--metrics", "map")
    assert code == 0, err
    assert "pointwise (baseline)" in out and "\nlambdarank " in out


USER_MODULE = '''
import numpy as np
from sklearn.linear_model import Ridge


class QueryRidge(Ridge):
    """A ridge regression that refuses to fit without the query ids (routed by the CLI)."""

    def fit(self, X, y, qid=None, sample_weight=None):
        if qid is None or len(qid) != len(y):
            raise ValueError("QueryRidge.fit got no query ids")
        return super().fit(X, y, sample_weight=sample_weight)


class NotAnEstimator:
    pass


SETTING = 3
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """``usermodels.py`` in the working directory, where ``--model MODULE:CLASS`` looks."""
    (tmp_path / "usermodels.py").write_text(USER_MODULE)
    (tmp_path / "broken.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command adds the folder to it
    for name in ("usermodels", "broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


def test_user_class_gets_its_settings_the_seed_and_the_query_ids(capsys, files, user_module):
    output = user_module / "cv.csv"
    code, out, err = run_cli(
        capsys, "cv", "--data", files["train"], *SMALL, "--metrics", "ndcg@5",
        "--model", "usermodels:QueryRidge", "--set", "alpha=2.5",
        "--model", "plain=sklearn.linear_model:Ridge", "--output", output)
    assert code == 0, err
    assert "QueryRidge = usermodels:QueryRidge (alpha=2.5) (the baseline)" in flat(out)
    X, y, qid = load_svmlight_ranking(files["train"])
    rows = {row["model"]: row for row in read_csv(output)}
    for label, estimator in (("QueryRidge", Ridge(alpha=2.5)), ("plain", Ridge())):
        reference = reference_cv(estimator, X, y, qid, ["ndcg@5"])
        assert float(rows[label]["ndcg@5 mean"]) == pytest.approx(
            np.mean(reference["ndcg@5"]), rel=1e-12)


@pytest.mark.parametrize("argv, code, parts", [
    (["--model", "ranknet"], 2,
     ["--model 'ranknet': unknown model 'ranknet'", "pointwise, lambdarank, lightgbm",
      "MODULE:CLASS"]),
    (["--model", "lightgmb"], 2, ["Did you mean 'lightgbm'?"]),
    (["--model", "no_such_module_xyz:Ranker"], 2,
     ["--model 'no_such_module_xyz:Ranker': no module named 'no_such_module_xyz'",
      "searched in the current folder"]),
    (["--model", "usermodels:QueryRdge"], 2,
     ["the module 'usermodels' has no attribute 'QueryRdge'", "Did you mean 'QueryRidge'?",
      "Its classes: NotAnEstimator, QueryRidge, Ridge"]),
    (["--model", "broken:Anything"], 2,
     ["importing 'broken' failed: it needs the module 'no_such_dependency_xyz'"]),
    (["--model", "usermodels:NotAnEstimator", "--model", "pointwise"], 2,
     ["NotAnEstimator is not a scikit-learn estimator: it has no fit, get_params, "
      "set_params"]),
    (["--model", "usermodels:SETTING"], 2, ["'SETTING' is a int, not a class"]),
    (["--model", "usermodels:"], 2, ["expected MODULE:CLASS"]),
    (["--model", "=lightgbm"], 2, ["expected LABEL=MODEL"]),
    (["--model", "pointwise", "--model", "usermodels:QueryRidge", "--set", "alpah=1"], 2,
     ["--set 'alpah=1': QueryRidge has no parameter 'alpah'. Did you mean 'alpha'? Its "
      "parameters: alpha, copy_X, fit_intercept, max_iter, positive, random_state, "
      "solver, tol."]),
    (["--model", "lightgbm", "--model", "pointwise", "--set", "num_leaves=abc"], 2,
     ["--set 'num_leaves=abc': LGBMRegressor refuses num_leaves='abc'"]),
    (["--model", "lightgbm", "--set", "no_such_param=1", "--model", "pointwise"], 2,
     ["--set 'no_such_param=1': lightgbm would ignore 'no_such_param' in LGBMRanker",
      "Its parameters: boosting_type, class_weight,"]),
    (["--model", "a=lightgbm", "--model", "a=pointwise"], 2,
     ["two models are labelled 'a'", "name them with LABEL="]),
    (["--model", "lightgbm", "--models", "pointwise", "lambdarank"], 2,
     ["--model (repeated) or --models, not both"]),
    (["--model", "lightgbm", "--model", "pointwise", "--baseline", "lambdarank"], 2,
     ["--baseline 'lambdarank' is not one of the models compared (lightgbm pointwise)"]),
    (["--model", "lightgbm"], 2, ["a comparison needs at least 2"]),
])
def test_cv_model_errors(capsys, files, user_module, argv, code, parts):
    got, out, err = run_cli(capsys, "cv", "--data", files["train"], *SMALL, *argv)
    assert got == code, err
    line = one_line_error(err, "cv")
    for part in parts:
        assert part in line
    assert out == ""  # refused before any work


@pytest.mark.parametrize("argv, parts", [
    (["--model", "lightgbm", "--model", "pointwise"],
     ["--model is given 2 times; tune searches one model"]),
    (["--set", "num_leaves=7", "--param", "num_leaves=3,7"],
     ["'num_leaves' is both set (--set) and searched (--param)"]),
    (["--model", "sklearn.linear_model:Ridge"],
     ["a class of one's own has no default grid; give the parameters to search with "
      "--param"]),
    (["--model", "lightgbm", "--set", "num_leaf=3"],
     ["--set 'num_leaf=3': lightgbm would ignore 'num_leaf' in LGBMRanker: it is an alias "
      "of num_leaves"]),
])
def test_tune_model_errors(capsys, files, argv, parts):
    code, out, err = run_cli(capsys, "tune", "--data", files["train"], *SMALL, *argv)
    assert code == 2, err
    line = one_line_error(err, "tune")
    for part in parts:
        assert part in line
    assert out == ""


@pytest.mark.skipif(not _models.MODELS["catboost"].available(), reason="needs catboost")
def test_catboost_model(capsys, files):
    # CatBoost names its trees iterations: --set n_estimators (an alias) replaces them
    code, out, err = run_cli(capsys, "cv", "--data", files["train"], *SMALL, "--metrics",
                             "ndcg@5", "--model", "pointwise", "--model", "catboost",
                             "--set", "n_estimators=3", "--set", "depth=2")
    assert code == 0, err
    assert "catboost = CatBoostRanker, CatBoost YetiRank (n_estimators=3, depth=2)" in flat(out)
    assert not (Path.cwd() / "catboost_info").exists()


# ----------------------------------------------------------------------------------------
# --data: tables, data sets; --test


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet"])
def test_table_data(capsys, tmp_path, files, suffix):
    X, y, qid = load_svmlight_ranking(files["train"])
    rows = read_csv(files["table"])
    path = tmp_path / f"train{suffix}"
    if suffix == ".parquet":
        pd = pytest.importorskip("pandas")
        pytest.importorskip("pyarrow")
        frame = pd.DataFrame(rows)
        for column in frame.columns[1:]:
            frame[column] = frame[column].astype(float if column.startswith("f") else int)
        frame.to_parquet(path)
    else:
        path.write_text(files["table"].read_text().replace(",", "\t")
                        if suffix == ".tsv" else files["table"].read_text())
    output = tmp_path / "cv.csv"
    code, out, err = run_cli(
        capsys, "cv", "--data", path, *SMALL, "--qid-column", "query", "--label-column",
        "grade", "--ignore-columns", "doc", "--models", "pointwise", "lambdarank",
        "--metrics", "ndcg@5", "--output", output)
    assert code == 0, err
    assert f"Data: {path}: 30 queries, {len(y)} documents, 5 features." in flat(out)
    means = {row["model"]: float(row["ndcg@5 mean"]) for row in read_csv(output)}
    # the table's features, in its column order, are the SVMlight file's; the query ids
    # of a text table are strings (as written), those of Parquet keep the column's type
    if suffix != ".parquet":
        qid = qid.astype(str)
    for label, estimator in (("pointwise", pointwise()), ("lambdarank", lambdarank())):
        reference = reference_cv(estimator, X.toarray(), y, qid, ["ndcg@5"])
        assert means[label] == pytest.approx(np.mean(reference["ndcg@5"]), rel=1e-12)


@pytest.mark.parametrize("argv, code, parts", [
    ([], 1, ["--data: ", "column 'doc' holds 'd0'; expected a number.",
             "If 'doc' is not a feature, leave it out with --ignore-columns doc."]),
    (["--qid-column", "qid"], 1,
     ["has no column 'qid' (its columns: 'doc', 'query', 'grade', 'f0'",
      "name the column with --qid-column"]),
    (["--ignore-columns", "docs"], 2, ["--ignore-columns 'docs': ", "has no such column"]),
    (["--feature-columns", "f0", "grade"], 2, ["--feature-columns names 'grade', the grades"]),
    (["--feature-columns", "f0", "f9"], 1, ["has no column 'f9', one of --feature-columns"]),
])
def test_table_errors(capsys, files, argv, code, parts):
    base = ["--qid-column", "query", "--label-column", "grade"]
    got, _, err = run_cli(capsys, "cv", "--data", files["table"], *SMALL, *base, *argv)
    assert got == code, err
    line = one_line_error(err, "cv")
    for part in parts:
        assert part in line


def test_table_test_set_needs_the_training_features(capsys, tmp_path, files):
    test = tmp_path / "test.csv"
    test.write_text("query,grade,f0,f1\n1,1,0.5,0.1\n1,0,0.2,0.3\n")
    code, _, err = run_cli(capsys, "cv", "--data", files["table"], "--test", test, *SMALL,
                           "--qid-column", "query", "--label-column", "grade",
                           "--ignore-columns", "doc")
    assert code == 1
    assert (f"--test {str(test)!r} has no column 'f2', one of the feature columns of "
            f"{files['table']}") in one_line_error(err, "cv")
    code, _, err = run_cli(capsys, "cv", "--data", files["table"], "--test", files["test"],
                           *SMALL, "--qid-column", "query", "--label-column", "grade",
                           "--ignore-columns", "doc")
    assert code == 2
    assert "is SVMlight data (features by number), but the training data" in one_line_error(
        err, "cv")


def letor4_folder(home, name, folds):
    """LETOR 4.0's extracted layout, ``letor4/<name>/Fold<k>/<split>.txt``, as the fetch
    tests build it: each query in one part, ids distinct across the splits."""
    for k in folds:
        fold = Path(home) / "letor4" / name / f"Fold{k}"
        fold.mkdir(parents=True)
        for i, split in enumerate(("train", "vali", "test")):
            X, y, qid = make_ranking(18 if split == "train" else 6, n_features=46,
                                     random_state=10 * k + i, shuffle=False)
            dump_svmlight_file(X, y.astype(int), str(fold / f"{split}.txt"),
                               query_id=qid + 1000 * i, zero_based=False)


def test_data_set_names(capsys, tmp_path):
    letor4_folder(tmp_path, "MQ2008", [2])
    per_query = tmp_path / "per_query.csv"
    code, out, err = run_cli(
        capsys, "cv", "--data", "letor4-mq2008:2", "--test", "LETOR4-MQ2008:2:test",
        "--data-home", tmp_path, "--no-download", "--n-splits", 3, "--n-estimators", 4,
        "--models", "pointwise", "lambdarank", "--metrics", "ndcg@5",
        "--per-query-output", per_query)
    assert code == 0, err
    X, y, qid = _fetch.fetch_letor4("MQ2008", fold=2, data_home=tmp_path, return_X_y_qid=True)
    Xt, yt, qidt = _fetch.fetch_letor4("MQ2008", fold=2, subset="test", data_home=tmp_path,
                                       return_X_y_qid=True)
    assert ("Data: letor4-mq2008:2 (LETOR 4.0 MQ2008 fold 2, train): 18 queries, "
            f"{len(y)} documents, 46 features.") in flat(out)
    assert "Held-out test set: LETOR4-MQ2008:2:test (LETOR 4.0 MQ2008 fold 2, test): 6 " \
           "queries" in flat(out)
    # the loads show progress (not --quiet)
    assert "sklearn-rank cv: note: loading letor4-mq2008:2 (LETOR 4.0 MQ2008 fold 2, " \
           "train)..." in err
    reference = reference_cv(lambdarank(), X, y, qid, ["ndcg@5"])
    rows = per_query_rows(per_query, "lambdarank", "cv")
    assert [float(r["ndcg@5"]) for r in rows] == reference["ndcg@5"].tolist()
    model = lambdarank().fit(X, y, qid=qid)
    expected = evaluate(yt, model.predict(Xt), qid=qidt, metrics=["ndcg@5"],
                        return_per_query=True)["ndcg@5"]
    rows = per_query_rows(per_query, "lambdarank", "test")
    assert [float(r["ndcg@5"]) for r in rows] == pytest.approx(expected, rel=1e-12)


def test_mslr_archive_put_in_place(capsys, tmp_path, monkeypatch):
    # the fetch tests' approach: an archive of MSLR's layout, its size and SHA-256 published
    buffer = io.BytesIO()
    texts = {}
    with zipfile.ZipFile(buffer, "w") as bundle:
        for i, split in enumerate(("train", "vali", "test")):
            X, y, qid = make_ranking(12 if split == "train" else 4, n_features=136,
                                     random_state=i, shuffle=False)
            text = io.BytesIO()
            dump_svmlight_file(X, y.astype(int), text, query_id=qid + 100 * i,
                               zero_based=False)
            texts[split] = text.getvalue()
            for k in range(1, 6):
                bundle.writestr(f"Fold{k}/{split}.txt", texts[split])
    blob = buffer.getvalue()
    spec = _fetch.DATASETS["mslr-web10k"]
    archive = replace(spec.archive, size=len(blob), sha256=hashlib.sha256(blob).hexdigest())
    monkeypatch.setitem(_fetch.DATASETS, "mslr-web10k", replace(spec, archive=archive))
    (tmp_path / "mslr_web10k").mkdir()
    (tmp_path / "mslr_web10k" / "MSLR-WEB10K.zip").write_bytes(blob)
    monkeypatch.setenv("SKLEARN_RANK_DATA", str(tmp_path))
    code, out, err = run_cli(capsys, "tune", "--data", "mslr-web10k:3", "--no-download",
                             *SMALL, "--param", "num_leaves=3,7")
    assert code == 0, err
    assert "Data: mslr-web10k:3 (MSLR-WEB10K fold 3, train): 12 queries" in flat(out)


@pytest.mark.parametrize("argv, code, parts", [
    (["--data", "letor4-mq2008:7"], 2,
     ["--data 'letor4-mq2008:7': letor4-mq2008 has folds 1 to 5, not 7; expected "
      "letor4-mq2008[:FOLD][:SUBSET]"]),
    (["--data", "istella-s:2"], 2, ["expected istella-s[:SUBSET], SUBSET one of train"]),
    (["--data", "mslr-web10k:1:train:x"], 2, ["expected mslr-web10k[:FOLD][:SUBSET]"]),
    (["--data", "mslr-web1Ok:1"], 2,
     ["no such file, and 'mslr-web1ok' is no data set. Did you mean 'mslr-web10k'?"]),
    (["--data", "letor4-mq2007:1", "--no-download"], 1,
     ["--data letor4-mq2007:1: LETOR 4.0 MQ2007 is not in", "and --no-download"]),
    (["--data", "letor4-mq2008:1", "letor4-mq2008:2"], 2,
     ["a data set name stands alone; pool SVMlight files only"]),
    (["--data", "letor4-mq2008:1", "--test", "letor4-mq2008:1"], 2,
     ["--test 'letor4-mq2008:1' holds the queries of --data 'letor4-mq2008:1'"]),
    (["--data", "letor4-mq2008:1:all", "--test", "letor4-mq2008:1:test"], 2,
     ["holds the queries of --data"]),
    (["--test", "letor4-mq2008:1"], 2, ["--test needs --data"]),
])
def test_data_set_errors(capsys, tmp_path, argv, code, parts):
    got, _, err = run_cli(capsys, "cv", "--data-home", tmp_path, *SMALL, *argv)
    assert got == code, err
    line = one_line_error(err, "cv")
    for part in parts:
        assert part in line


def test_cv_test_set_is_scored_by_the_models_refitted_on_all_the_data(capsys, tmp_path,
                                                                      files):
    per_query, output = tmp_path / "per_query.csv", tmp_path / "cv.csv"
    code, out, err = run_cli(
        capsys, "cv", "--data", files["train"], "--test", files["test"], *SMALL,
        "--models", "pointwise", "lambdarank", "--metrics", "ndcg@5", "err@5",
        "--per-query-output", per_query, "--output", output)
    assert code == 0, err
    assert f"Held-out test set, {files['test']}: 12 queries" in flat(out)
    X, y, qid = load_svmlight_ranking(files["train"])
    Xt, yt, qidt = load_svmlight_ranking(files["test"])
    # ERR's grade scale is the largest grade of the training and test data
    top = int(max(y.max(), yt.max()))
    rows = read_csv(output)
    assert [(r["model"], r["split"]) for r in rows] == [
        ("pointwise", "cv"), ("lambdarank", "cv"), ("pointwise", "test"),
        ("lambdarank", "test")]
    for label, estimator in (("pointwise", pointwise()), ("lambdarank", lambdarank())):
        model = clone(estimator).fit(X, y, **({"qid": qid} if label == "lambdarank" else {}))
        expected = evaluate(yt, model.predict(Xt), qid=qidt, return_per_query=True,
                            metrics=["ndcg@5", f"err@5(max_grade={top})"])
        got = per_query_rows(per_query, label, "test")
        assert [int(r["qid"]) for r in got] == np.unique(qidt).tolist()
        assert [float(r["err@5"]) for r in got] == pytest.approx(
            expected[f"err@5(max_grade={top})"], rel=1e-12)
        row = next(r for r in rows if r["model"] == label and r["split"] == "test")
        assert float(row["ndcg@5 mean"]) == pytest.approx(np.mean(expected["ndcg@5"]),
                                                          rel=1e-12)
        assert row["err@5 key"] == f"err@5(max_grade={top})"


def test_svmlight_test_set_with_fewer_features_is_widened(capsys, tmp_path, files):
    narrow = tmp_path / "narrow.txt"
    narrow.write_text("1 qid:1 1:0.5\n0 qid:1 2:0.1\n2 qid:2 1:0.3\n0 qid:2 1:0.9\n")
    code, out, err = run_cli(capsys, "cv", "--data", files["train"], "--test", narrow,
                             *SMALL, "--models", "pointwise", "lambdarank")
    assert code == 0, err
    assert "Held-out test set, " in flat(out)


# ----------------------------------------------------------------------------------------
# tune: GridSearchCV's numbers, the refitted model, best.json


def search_reference(search_class, space, X, y, qid, seed=0, **options):
    scorer = make_ranking_scorer("ndcg@10", response_method="predict")
    search = search_class(lambdarank(), space, scoring={"ndcg@10": scorer}, refit=False,
                          cv=QueryKFold(3, shuffle=True, random_state=seed), **options)
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, qid=qid)
    return search.cv_results_


def test_tune_grid_is_gridsearchcv(capsys, tmp_path, files):
    output = tmp_path / "best.json"
    code, out, err = run_cli(capsys, "tune", "--data", files["train"], *SMALL,
                             "--param", "num_leaves=3,7", "--param", "learning_rate=0.1,0.3",
                             "--output", output)
    assert code == 0, err
    X, y, qid = load_svmlight_ranking(files["train"])
    expected = search_reference(GridSearchCV, {"num_leaves": [3, 7],
                                               "learning_rate": [0.1, 0.3]}, X, y, qid)
    best = json.loads(output.read_text())
    results = best["cv_results"]
    assert results["params"] == expected["params"]
    for key in ("mean_test_ndcg@10", "std_test_ndcg@10", "rank_test_ndcg@10",
                "split0_test_ndcg@10", "split2_test_ndcg@10"):
        # the same numbers, bit for bit, through JSON: floats round-trip
        assert results[key] == expected[key].tolist(), key
    assert results["param_num_leaves"] == expected["param_num_leaves"].tolist()
    i = int(np.argmin(expected["rank_test_ndcg@10"]))
    assert best["best_index"] == i and best["best_params"] == expected["params"][i]
    assert best["best_score"] == expected["mean_test_ndcg@10"][i]
    assert best["metadata"]["sklearn_rank_version"] == sklearn_rank.__version__
    assert best["metadata"]["metrics"] == {"ndcg@10": "ndcg@10"}


def test_tune_random_is_randomizedsearchcv(capsys, tmp_path, files):
    from scipy.stats import loguniform, randint

    output = tmp_path / "best.json"
    code, out, err = run_cli(capsys, "tune", "--data", files["train"], *SMALL, "--seed", 3,
                             "--search", "random", "--n-iter", 4,
                             "--param", "learning_rate=loguniform(0.05,0.5)",
                             "--param", "num_leaves=randint(3,9)", "--output", output)
    assert code == 0, err
    X, y, qid = load_svmlight_ranking(files["train"])
    expected = search_reference(
        RandomizedSearchCV, {"learning_rate": loguniform(0.05, 0.5),
                             "num_leaves": randint(3, 10)}, X, y, qid, seed=3,
        n_iter=4, random_state=3)
    results = json.loads(output.read_text())["cv_results"]
    assert results["params"] == expected["params"]  # every digit of the sampled floats
    assert results["mean_test_ndcg@10"] == expected["mean_test_ndcg@10"].tolist()


def test_tune_test_set_and_saved_model(capsys, tmp_path, files):
    model_path, output = tmp_path / "best.joblib", tmp_path / "best.json"
    per_query = tmp_path / "per_query.csv"
    code, out, err = run_cli(capsys, "tune", "--data", files["train"], "--test",
                             files["test"], *SMALL, "--param", "num_leaves=3,7",
                             "--save-model", model_path, "--output", output,
                             "--per-query-output", per_query)
    assert code == 0, err
    best = json.loads(output.read_text())
    X, y, qid = load_svmlight_ranking(files["train"])
    Xt, yt, qidt = load_svmlight_ranking(files["test"])
    model = lambdarank(**best["best_params"]).fit(X, y, qid=qid)
    saved = joblib.load(model_path)
    np.testing.assert_array_equal(saved.predict(Xt), model.predict(Xt))
    expected = evaluate(yt, model.predict(Xt), qid=qidt, metrics=["ndcg@10"],
                        return_per_query=True)["ndcg@10"]
    assert best["test"]["mean"] == pytest.approx(np.mean(expected), rel=1e-12)
    assert best["test"]["n_queries"] == 12
    assert f"Held-out test ndcg@10: {np.mean(expected):.4f} [" in flat(out)
    rows = per_query_rows(per_query, "lambdarank", "test")
    assert [float(r["ndcg@10"]) for r in rows] == pytest.approx(expected, rel=1e-12)
    cv_rows = per_query_rows(per_query, "lambdarank", "cv")
    assert len(cv_rows) == 30  # the best candidate's folds: every training query once
    note = json.loads(Path(f"{model_path}.json").read_text())
    assert note["metadata"]["sklearn_rank_version"] == sklearn_rank.__version__
    assert note["estimator"] == "sklearn_rank.lightgbm.LGBMRanker"
    assert note["best_params"] == best["best_params"] and "cv_results" not in note
    assert note["load"] == "joblib.load(path)"


def test_tune_saves_a_pickle(capsys, tmp_path, files):
    path = tmp_path / "model.pkl"
    code, _, err = run_cli(capsys, "tune", "--data", files["train"], *SMALL,
                           "--param", "num_leaves=3,7", "--save-model", path)
    assert code == 0, err
    with open(path, "rb") as handle:
        model = pickle.load(handle)
    X, y, qid = load_svmlight_ranking(files["train"])
    assert model.predict(X).shape == y.shape


@pytest.mark.parametrize("target, part", [
    ("data", "--save-model {path!r} is the input file of --data"),
    ("test", "--save-model {path!r} is the input file of --test"),
    ("config", "--save-model (its note) {note!r} is the input file of --config"),
    ("suffix", "--save-model {path!r}: unknown file type '.txt'; expected one of .joblib, "
               ".pkl, .pickle"),
    ("output", "--save-model (its note) {note!r} is also the file of --output"),
])
def test_save_model_never_replaces_an_input(capsys, tmp_path, target, part):
    # an SVMlight file may have any name; the note beside the model is FILE.json
    data = tmp_path / "data.joblib"
    data.write_text("1 1:0.5\n0 1:0.2\n1 1:0.1\n0 1:0.3\n1 1:0.7\n0 1:0.2\n")
    (tmp_path / "data.joblib.query").write_text("2\n2\n2\n")
    test = tmp_path / "test.pkl"
    test.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    config = tmp_path / "c.joblib.json"
    config.write_text("{}")
    path = {"data": data, "test": test, "config": tmp_path / "c.joblib",
            "suffix": tmp_path / "model.txt", "output": tmp_path / "m.joblib"}[target]
    argv = ["tune", "--data", data, "--test", test, "--config", config, *SMALL,
            "--save-model", path]
    if target == "output":
        argv += ["--output", tmp_path / "m.joblib.json"]
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    got, out, err = run_cli(capsys, *argv)
    assert got == 2, err
    assert part.format(path=str(path), note=f"{path}.json") in one_line_error(err, "tune")
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before  # nothing written
    assert out == ""


# ----------------------------------------------------------------------------------------
# Progress


def stderr_lines(proc):
    """A queue of the lines of ``proc``'s stderr, read by a thread as they come."""
    lines = queue.Queue()

    def read():
        for line in proc.stderr:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def next_line(lines, prefix, seen):
    """The next line starting with ``prefix`` (others go to ``seen``); fails after 120 s
    without it, when the run would otherwise wait for ever."""
    while True:
        try:
            line = lines.get(timeout=120)
        except queue.Empty:
            pytest.fail(f"no line {prefix!r} came; got {seen}")
        assert line is not None, f"stderr ended before a line {prefix!r}: {seen}"
        seen.append(line)
        if line.startswith(prefix):
            return line


GATE_MODULE = '''
import os
import time

from sklearn.linear_model import Ridge


class Gate(Ridge):
    """A ridge regression whose fit waits until the file $GATE exists."""

    def fit(self, X, y, sample_weight=None):
        while not os.path.exists(os.environ["GATE"]):
            time.sleep(0.02)
        return super().fit(X, y, sample_weight=sample_weight)
'''


@pytest.mark.slow  # a subprocess with worker processes
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_progress_is_live(tmp_path, files, n_jobs):
    # The gated model's fits wait for a file that the test creates only after it has read
    # the progress line of the start and, with two processes, of the fast model's folds:
    # if the line came only at the end, the run would wait for ever (and the test fail).
    (tmp_path / "gate.py").write_text(GATE_MODULE)
    gate = tmp_path / "open"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GATE": str(gate)}
    argv = [sys.executable, "-m", "sklearn_rank", "cv", "--data", str(files["train"]),
            "--n-splits", "2", "--metrics", "ndcg@5", "--n-jobs", str(n_jobs),
            "--model", "fast=sklearn.linear_model:Ridge", "--model", "gated=gate:Gate"]
    if n_jobs == 1:  # the gated model first: its fold waits; the start shows meanwhile
        argv[-4:] = argv[-2:] + argv[-4:-2]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        lines = stderr_lines(proc)
        first = next_line(lines, "cross-validation: ", seen)
        assert first == (f"cross-validation: 0/4 (2 models x 2 folds, {n_jobs} "
                         f"process{'es' if n_jobs > 1 else ''})")
        if n_jobs > 1:
            next_line(lines, "cross-validation: 1/4 fast, fold ", seen)
            next_line(lines, "cross-validation: 2/4 fast, fold ", seen)
        gate.touch()
        out, _ = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 0, seen
    assert "gated " in out and "fast " in out


def test_progress_line_per_unit(capsys, tmp_path, files):
    code, out, err = run_cli(capsys, "tune", "--data", files["train"], *SMALL[:-1],
                             "--param", "num_leaves=3,7", "--save-model",
                             tmp_path / "missing" / "x.joblib")
    assert code == 1  # the folder of --save-model does not exist: checked before the work
    assert "the folder" in one_line_error(err, "tune") and out == ""
    code, _, err = run_cli(capsys, "cv", "--data", files["train"], "--test", files["test"],
                           *SMALL[:-1], "--models", "pointwise", "lambdarank", "--metrics",
                           "map")
    assert code == 0, err
    lines = err.splitlines()
    assert lines[0] == "cross-validation: 0/8 (2 models x 3 folds + test, 1 process)"
    assert [line.split(" ", 2)[1] for line in lines] == [f"{i}/8" for i in range(9)]
    details = [line.split(" ", 2)[2].rsplit(" (", 1)[0] for line in lines[1:]]
    assert details == [f"{m}, fold {f}/3" for m in ("pointwise", "lambdarank")
                       for f in (1, 2, 3)] + ["pointwise, test", "lambdarank, test"]


# ----------------------------------------------------------------------------------------
# What the outputs record


def test_outputs_record_conventions_metric_keys_data_version_and_seed(capsys, tmp_path,
                                                                      files):
    outputs = {s: tmp_path / f"cv{s}" for s in (".csv", ".json", ".md", ".tex", ".txt")}
    metrics = ["ndcg@5", "err@5", "map(rel=2)"]
    for path in outputs.values():
        code, out, err = run_cli(capsys, "cv", "--data", files["train"], *SMALL, "--seed", 7,
                                 "--convention", "trec_eval", "--models", "pointwise",
                                 "lambdarank", "--metrics", *metrics, "--output", path)
        assert code == 0, err
    X, y, qid = load_svmlight_ranking(files["train"])
    top = int(y.max())
    keys = {}
    for name in metrics:  # the canonical keys, computed here from the registry
        metric, options = parse_metric(name)
        scale = {"max_grade": top} if metric.name == "err" else {}
        keys[name] = metric.key({**options, **scale}, "trec_eval")
    assert keys["err@5"] != "err@5" and keys["ndcg@5"] != "ndcg@5"
    text = flat(out)
    for name, key in keys.items():
        assert f"{name} = {key}" in text
    # ERR is no trec_eval measure: the header says that the preset left it alone, and what
    # the ties of the models' scores are (the data name no documents)
    assert ("convention 'trec_eval' (err@5 is not a measure of trec_eval: the preset leaves "
            "it at sklearn-rank's default conventions). trec_eval ranks tied scores by "
            "document name; the data of cv and tune name no documents, so tied predictions "
            f"keep the row order of the data. sklearn-rank {sklearn_rank.__version__}, seed "
            "7, data sha256:") in text
    rows = read_csv(outputs[".csv"])
    assert len(rows) == 2
    for row in rows:
        assert {f"{m} key": row[f"{m} key"] for m in metrics} == {
            f"{m} key": k for m, k in keys.items()}
        assert (row["convention"], row["seed"], row["sklearn_rank_version"], row["data"]) == (
            "trec_eval", "7", sklearn_rank.__version__, str(files["train"]))
        assert row["splitter"] == "QueryKFold(n_splits=3, shuffle=True, random_state=7)"
    result = json.loads(outputs[".json"].read_text())
    metadata = result["metadata"]
    assert metadata["metrics"] == keys and metadata["convention"] == "trec_eval"
    assert metadata["seed"] == 7 and metadata["data"]["n_queries"] == 30
    assert metadata["data"]["sha256"] == rows[0]["data_sha256"]
    assert metadata["versions"]["sklearn-rank"] == sklearn_rank.__version__
    assert "lightgbm" in metadata["versions"]
    assert [r["model"] for r in result["cv"]] == ["pointwise", "lambdarank"]
    assert result["cv"][1]["map(rel=2) mean"] == float(rows[1]["map(rel=2) mean"])
    assert len(result["folds"]["lambdarank"]["fit_time"]) == 3
    for suffix, start in ((".md", "<!--\nData: "), (".tex", "% Data: "), (".txt", "Data: ")):
        written = outputs[suffix].read_text()
        assert written.startswith(start)
        assert f"err@5 = {keys['err@5']}" in flat(written.replace("\n% ", "\n"))


def test_data_fingerprint_follows_the_data(capsys, tmp_path, files):
    copy, changed = tmp_path / "copy.txt", tmp_path / "changed.txt"
    copy.write_bytes(files["train"].read_bytes())
    first, rest = files["train"].read_text().split(" ", 1)
    changed.write_text(("2" if first != "2" else "1") + " " + rest)  # one grade differs
    digests = []
    for path in (files["train"], copy, changed):
        output = tmp_path / "t.json"
        code, _, err = run_cli(capsys, "tune", "--data", path, *SMALL,
                               "--param", "num_leaves=3,7", "--output", output)
        assert code == 0, err
        digests.append(json.loads(output.read_text())["metadata"]["data"]["sha256"])
    assert digests[0] == digests[1] != digests[2]


def test_json_is_strict_and_handles_numpy_and_masked_values(tmp_path):
    from sklearn_rank._cli._common import json_safe, write_json

    masked = np.ma.MaskedArray(np.array([1, 2, 3], dtype=object), mask=[False, True, False])
    data = {"a": np.float64(0.1), "b": np.arange(3), "c": masked, "d": float("nan"),
            "e": (np.int32(4), np.bool_(True)), "f": 1 / 3, "g": object}
    path = tmp_path / "x.json"
    write_json(path, data, "--output")
    read = json.loads(path.read_text())  # strict JSON: no NaN
    assert read == {"a": 0.1, "b": [0, 1, 2], "c": [1, None, 3], "d": None, "e": [4, True],
                    "f": 1 / 3, "g": repr(object)}
    assert json_safe(np.float32(0.1)) == float(np.float32(0.1))


# ----------------------------------------------------------------------------------------
# Configuration files


TOML = '''\
seed = 2
metrics = ["ndcg@5", "map"]

[data]
train = "{train}"
test = "{test}"

[splitter]
n_splits = 3

[[models]]
model = "pointwise"
params = {{ n_estimators = 4 }}

[[models]]
model = "lightgbm"
label = "lambdarank"
params = {{ n_estimators = 4, num_leaves = 7 }}
'''


def test_config_file_is_the_same_run_as_the_options(capsys, tmp_path, files):
    folder = tmp_path / "configs"
    folder.mkdir()
    # paths relative to the file's folder
    relative = {k: os.path.relpath(files[k], folder) for k in ("train", "test")}
    toml = folder / "bench.toml"
    toml.write_text(TOML.format(**relative))
    as_json = folder / "bench.json"
    as_json.write_text(json.dumps({
        "seed": 2, "metrics": ["ndcg@5", "map"],
        "data": {"train": relative["train"], "test": relative["test"]},
        "splitter": {"n_splits": 3},
        "models": [{"model": "pointwise", "params": {"n_estimators": 4}},
                   {"model": "lightgbm", "label": "lambdarank",
                    "params": {"n_estimators": 4, "num_leaves": 7}}]}))
    tables = []
    for config in (toml, as_json):
        output = tmp_path / "cv.csv"
        code, _, err = run_cli(capsys, "cv", "--config", config, "-q", "--output", output)
        assert code == 0, err
        tables.append(output.read_text())
    output = tmp_path / "cv.csv"
    code, _, err = run_cli(capsys, "cv", "--data", files["train"], "--test", files["test"],
                           "--seed", 2, "--metrics", "ndcg@5", "map", "--n-splits", 3, "-q",
                           "--model", "pointwise", "--set", "n_estimators=4",
                           "--model", "lambdarank=lightgbm", "--set", "n_estimators=4",
                           "--set", "num_leaves=7", "--output", output)
    assert code == 0, err
    assert tables[0] == tables[1]

    def numbers(text):  # all but the paths, which are spelled as given
        return [{k: v for k, v in row.items() if k not in ("data", "test_data")}
                for row in csv.DictReader(io.StringIO(text))]

    assert numbers(tables[0]) == numbers(output.read_text())
    assert read_csv(output)[0]["data"] == str(files["train"])
    assert csv.DictReader(io.StringIO(tables[0])).__next__()["data"] == os.path.normpath(
        folder / relative["train"])


def test_command_line_overrides_the_file(capsys, tmp_path, files):
    config = tmp_path / "c.toml"
    config.write_text(TOML.format(train=files["train"], test=files["test"]))
    code, out, err = run_cli(capsys, "cv", "--config", config, "-q", "--seed", 5,
                             "--metrics", "mrr", "--set", "learning_rate=0.3")
    assert code == 0, err
    text = flat(out)
    assert "seed 5" in text and "random_state=5" in text
    assert next(line for line in out.splitlines() if line.startswith("System")).split() == [
        "System", "mrr"]
    # the file's params, then the --set before any --model: on every model
    assert "(n_estimators=4, learning_rate=0.3) (the baseline)" in text
    assert "(n_estimators=4, num_leaves=7, learning_rate=0.3)" in text
    # --model replaces the file's models
    code, out, err = run_cli(capsys, "cv", "--config", config, "-q", "--model", "a=pointwise",
                             "--model", "b=pointwise", "--set", "n_estimators=2")
    assert code == 0, err
    assert "a = LGBMRegressor" in flat(out) and "lambdarank" not in out


def test_tune_config_with_a_grid(capsys, tmp_path, files):
    config = tmp_path / "tune.toml"
    config.write_text(f'''\
search = "random"
n_iter = 3
metric = "map"
seed = 4

[data]
train = "{files['train']}"

[[models]]
model = "lightgbm"
params = {{ n_estimators = 4 }}
grid = {{ num_leaves = [3, 5, 7, 9], learning_rate = "loguniform(0.05,0.5)" }}
''')
    output = tmp_path / "best.json"
    code, out, err = run_cli(capsys, "tune", "--config", config, "-q", "--output", output)
    assert code == 0, err
    assert "(the grid of the configuration file)" in flat(out)
    from scipy.stats import loguniform

    X, y, qid = load_svmlight_ranking(files["train"])
    scorer = make_ranking_scorer("map", response_method="predict")
    search = RandomizedSearchCV(
        lambdarank(), {"num_leaves": [3, 5, 7, 9], "learning_rate": loguniform(0.05, 0.5)},
        n_iter=3, random_state=4, scoring={"map": scorer}, refit=False,
        cv=QueryKFold(3, shuffle=True, random_state=4))
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, qid=qid)
    results = json.loads(output.read_text())["cv_results"]
    assert results["params"] == search.cv_results_["params"]
    assert results["mean_test_map"] == search.cv_results_["mean_test_map"].tolist()


CONFIG_ERRORS = [
    ("c.toml", 'seed = 1\nmetrix = ["map"]\n', 2,
     ["--config '{path}': unknown key 'metrix'. Did you mean 'metrics'? The keys of "
      "'sklearn-rank cv': seed, n_queries, n_estimators, n_jobs, convention, metrics,"]),
    ("c.toml", '[data]\ntarin = "x.txt"\n', 2,
     ["[data]: unknown key 'tarin'. Did you mean 'train'? Its keys: train, test,"]),
    ("c.toml", '[splitter]\nn_split = 3\n', 2, ["[splitter]: unknown key 'n_split'"]),
    ("c.json", '{"models": [{"model": "lightgbm", "parms": {}}]}', 2,
     ["models[0]: unknown key 'parms'. Did you mean 'params'? The keys of a model: model, "
      "label, params."]),
    ("c.json", '{"models": [{"label": "x"}]}', 2, ["models[0]: no 'model' key"]),
    ("c.json", '{"models": "lightgbm"}', 2, ["models must be a list of tables"]),
    ("c.json", '{"seed": "one"}', 2, ["seed: expected an integer from 0 to 4294967295 "
                                      "(numpy's seeds are 32-bit integers), got 'one'."]),
    ("c.json", '{"metrics": ["ndgc@10"]}', 2, ["metrics: Unknown metric name 'ndgc@10'"]),
    ("c.json", '{"splitter": {"n_splits": 1}}', 2,
     ["n_splits: expected an integer of at least 2, got 1."]),
    ("c.toml", "seed = 1\n[data\n", 2,
     ["--config '{path}' is not valid TOML: Expected ']' at the end of a table declaration "
      "(at line 2, column 6)."]),
    ("c.json", '{"seed": 1,}', 2,
     ["is not valid JSON: Expecting property name enclosed in double quotes (line 1, "
      "column 12)."]),
    ("c.json", '[1, 2]', 2, ["expected a table of options at the top level, got a list."]),
    ("c.yaml", 'seed: 1\n', 2, ["unknown file type '.yaml'; expected .toml or .json."]),
    ("c.json", '{"models": [{"model": "lightgbm", "params": {"num_leavs": 3}}, '
               '{"model": "sklearn.linear_model:Ridge", "params": {"alpha": 1}}]}', 2,
     ["models[0]: params.num_leavs: lightgbm would ignore 'num_leavs' in LGBMRanker"]),
]


@pytest.mark.parametrize("name, content, code, parts", CONFIG_ERRORS,
                         ids=[f"{e[0]}-{e[2]}-{e[3][0][:30]}" for e in CONFIG_ERRORS])
def test_config_errors(capsys, tmp_path, files, name, content, code, parts):
    path = tmp_path / name
    path.write_text(content)
    got, out, err = run_cli(capsys, "cv", "--config", path, "--data", files["train"], *SMALL)
    assert got == code, err
    line = one_line_error(err, "cv")
    for part in parts:
        assert part.format(path=path) in line
    assert out == ""


def test_config_errors_of_tune(capsys, tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"models": [{"model": "lightgbm"}, {"model": "pointwise"}]}')
    code, _, err = run_cli(capsys, "tune", "--config", path)
    assert code == 2
    assert "tune searches one model; models lists 2" in one_line_error(err, "tune")
    path.write_text('{"models": [{"model": "lightgbm", "grid": {"num_leaves": []}}]}')
    code, _, err = run_cli(capsys, "tune", "--config", path)
    assert code == 2
    assert "grid.num_leaves: the list of values of 'num_leaves' is empty" in one_line_error(
        err, "tune")
    path.write_text('{"models": [{"model": "lightgbm", '
                    '"grid": {"learning_rate": "loguniform(0.01,0.3)"}}]}')
    code, _, err = run_cli(capsys, "tune", "--config", path)
    assert code == 2
    assert "needs search = \"random\"" in one_line_error(err, "tune")


def test_missing_config_file_is_a_data_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, "cv", "--config", tmp_path / "none.toml")
    assert code == 1
    assert "--config" in one_line_error(err, "cv") and "no such file" in err


def test_toml_without_a_reader(capsys, tmp_path, monkeypatch):
    # Python 3.10 without tomli: TOML is refused with what to do; JSON still works
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", None)
    path = tmp_path / "c.toml"
    path.write_text("seed = 1\n")
    code, _, err = run_cli(capsys, "cv", "--config", path)
    assert code == 2
    assert ("reading TOML needs Python 3.11 or newer, or the tomli package (pip install "
            "tomli); or write the file as JSON.") in one_line_error(err, "cv")


# ----------------------------------------------------------------------------------------
# The units of work and their recorder (where a results store plugs in)


class Keeping(_scoring.Recorder):
    """A recorder that keeps every result, and answers those of ``stored`` as known."""

    def __init__(self, stored=None):
        self.stored = stored or {}
        self.started, self.recorded, self.finished = None, [], False

    def start(self, provenance, units):
        self.started = (provenance, units)

    def known(self, unit, params):
        return self.stored.get(unit)

    def record(self, result):
        self.recorded.append(result)

    def finish(self):
        self.finished = True


def test_every_unit_is_recorded_once_and_known_units_are_not_run(capsys, monkeypatch, files):
    recorders = []

    def recorder_for(args, provenance, units):
        recorder = Keeping(recorders[0].stored if recorders else None)
        recorder.start(provenance, units)
        recorders.append(recorder)
        return recorder

    monkeypatch.setattr(_scoring, "recorder_for", recorder_for)
    argv = ["cv", "--data", files["train"], "--test", files["test"], *SMALL[:-1],
            "--models", "pointwise", "lambdarank", "--metrics", "ndcg@5"]
    code, first, _ = run_cli(capsys, *argv)
    assert code == 0
    recorder = recorders[0]
    units = [r.unit for r in recorder.recorded]
    assert sorted(units, key=repr) == sorted(recorder.started[1], key=repr)
    assert len(set(units)) == 8 and recorder.finished
    assert recorder.started[0]["data"]["n_queries"] == 30
    # a resumed run: half the units come from the recorder, the rest is computed; the
    # results are those of the run that computed everything
    recorder.stored = {r.unit: r for r in recorder.recorded[::2]}
    code, second, err = run_cli(capsys, *argv)
    assert code == 0
    assert len(recorders[1].recorded) == 4
    assert err.count("(stored)") == 4
    assert [line for line in second.splitlines() if not line.startswith("Mean fit")] == [
        line for line in first.splitlines() if not line.startswith("Mean fit")]


@pytest.mark.slow  # worker processes
def test_parallel_runs_give_the_same_results(capsys, tmp_path, files):
    outputs = []
    for n_jobs in (1, 2):
        output = tmp_path / f"best{n_jobs}.json"
        code, _, err = run_cli(capsys, "tune", "--data", files["train"], "--test",
                               files["test"], *SMALL, "--param", "num_leaves=3,7",
                               "--n-jobs", n_jobs, "--output", output)
        assert code == 0, err
        result = json.loads(output.read_text())
        outputs.append((result["cv_results"]["mean_test_ndcg@10"], result["best_params"],
                        result["test"]))
    assert outputs[0] == outputs[1]


def test_help_lists_the_new_options(capsys):
    for command, options in (("cv", ["--model", "--set", "--config", "--test",
                                     "--per-query-output", "MODULE:CLASS"]),
                             ("tune", ["--model", "--set", "--save-model", "--output",
                                       "--test", "--config"])):
        code, out, _ = run_cli(capsys, command, "--help")
        assert code == 0
        for option in options:
            assert option in out
