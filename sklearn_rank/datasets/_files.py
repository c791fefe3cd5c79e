"""Read learning-to-rank and TREC files into the flat arrays of sklearn-rank."""

import os
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from ..utils._qid import factorize


def load_svmlight_ranking(path, *, query_file=None, n_features=None, zero_based="auto",
                          dtype=np.float64):
    """Load a LETOR / SVMlight ranking file as ``X, y, qid``.

    Lines look like ``<grade> qid:<query> <feature>:<value> ...`` (LETOR, MSLR, Yahoo!) or,
    without ``qid:``, like LightGBM's examples, whose query sizes come in a side file
    ``<path>.query`` holding the number of rows of each consecutive query.

    Parameters
    ----------
    path : str or path-like
        The SVMlight file.

    query_file : str or path-like, default=None
        File of consecutive query sizes, one per line. By default ``<path>.query`` is used when
        the file has no ``qid:`` fields and that side file exists.

    n_features : int, default=None
        Number of features; inferred from the file when None.

    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0, as in :func:`sklearn.datasets.load_svmlight_file`.

    dtype : numpy dtype, default=np.float64
        Dtype of ``X``.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Grades.
    qid : ndarray of shape (n_samples,)
        Query id of each row.

    Raises
    ------
    FileNotFoundError
        When ``path`` (or a given ``query_file``) does not exist.
    ValueError
        When the file is not SVMlight, or query sizes do not add up to the number of rows.

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank.datasets import load_svmlight_ranking
    >>> text = "2 qid:1 1:0.5 2:0.1\\n0 qid:1 1:0.1 2:0.9\\n1 qid:7 1:0.3 2:0.3\\n"
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "train.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write(text)
    ...     X, y, qid = load_svmlight_ranking(path)
    >>> X.shape, y.tolist(), qid.tolist()
    ((3, 2), [2.0, 0.0, 1.0], [1, 1, 7])
    """
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"No SVMlight ranking file at {str(path)!r}.")
    try:
        X, y, qid = load_svmlight_file(str(path), n_features=n_features, dtype=dtype,
                                       zero_based=zero_based, query_id=True)
    except ValueError as exc:
        raise ValueError(
            f"{str(path)!r} is not an SVMlight ranking file (lines like "
            f"'<grade> qid:<query> <feature>:<value> ...'): {exc}"
        ) from None
    side = Path(os.fspath(query_file)) if query_file is not None else Path(str(path) + ".query")
    if query_file is not None and not side.is_file():
        raise FileNotFoundError(f"No query-size file at {str(side)!r}.")
    # scikit-learn returns no query ids (an empty array) for a file without qid: fields
    no_ids = len(qid) != len(y)
    if no_ids and query_file is None and not side.is_file():
        raise ValueError(
            f"{str(path)!r} has no query ids: its lines need 'qid:<query>' fields, or the "
            f"query sizes must be in a side file ({str(side)!r} or query_file=)."
        )
    if query_file is not None or ((no_ids or (qid == 0).all()) and side.is_file()):
        sizes = np.loadtxt(side, dtype=np.int64, ndmin=1)
        if sizes.sum() != len(y) or (sizes <= 0).any():
            raise ValueError(
                f"The query sizes in {str(side)!r} add up to {int(sizes.sum())} rows, but "
                f"{str(path)!r} has {len(y)}; each line must be the positive number of rows "
                "of one consecutive query."
            )
        qid = np.repeat(np.arange(len(sizes)), sizes)
    return X, y, qid


def _read_columns(path, n_columns, what, example):
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"No TREC {what} file at {str(path)!r}.")
    rows = []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) < n_columns:
                raise ValueError(
                    f"Line {number} of {str(path)!r} has {len(fields)} fields; a TREC {what} "
                    f"line has {n_columns}, e.g. {example!r}."
                )
            rows.append(fields[:n_columns])
    if not rows:
        raise ValueError(f"{str(path)!r} holds no TREC {what} line.")
    return np.array(rows, dtype=object)


def read_trec(qrels, run):
    """Flat arrays of a TREC run judged by TREC qrels, ordered as trec_eval ranks them.

    One row per (query, document) pair that is judged, retrieved, or both. Judgements below 0
    count as non-relevant (grade 0); retrieved documents without a judgement have grade 0;
    judged documents absent from the run get ``retrieved=False``. Only the queries both judged
    and in the run are kept, as trec_eval does. Rows are sorted by query, then score
    descending, then document name descending: trec_eval's tie-break, so that
    ``ties="stable"`` (the ``"trec_eval"`` convention) reproduces it.

    Parameters
    ----------
    qrels : str or path-like
        Judgements, lines ``qid iteration docno grade``.
    run : str or path-like
        Run, lines ``qid Q0 docno rank score tag``.

    Returns
    -------
    arrays : dict
        ``y_true``, ``y_score``, ``qid``, ``retrieved`` (arrays) and ``docno``.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.datasets import read_trec
    >>> from sklearn_rank.metrics import map_score
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    ...     with open(qrels, "w") as f:
    ...         _ = f.write("1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n")
    ...     with open(run, "w") as f:
    ...         _ = f.write("1 Q0 a 1 0.9 sys\\n1 Q0 b 2 0.5 sys\\n")
    ...     d = read_trec(qrels, run)
    >>> d["docno"].tolist(), d["retrieved"].tolist()
    (['a', 'b', 'c'], [True, True, False])
    >>> map_score(d["y_true"], d["y_score"], qid=d["qid"], retrieved=d["retrieved"],
    ...           convention="trec_eval")
    0.5
    """
    judged = _read_columns(qrels, 4, "qrels", "301 0 FR940202-2-00150 1")
    ranked = _read_columns(run, 5, "run", "301 Q0 FR940202-2-00150 1 2.129 tag")
    try:
        grades = judged[:, 3].astype(np.float64)
        scores = ranked[:, 4].astype(np.float64)
    except ValueError:
        raise ValueError(
            "TREC files must hold numbers in the grade column of the qrels (4th) and the "
            "score column of the run (5th)."
        ) from None
    grade_of = {(q, d): max(g, 0.0) for q, d, g in zip(judged[:, 0], judged[:, 2], grades)}
    score_of = {}
    for q, d, s in zip(ranked[:, 0], ranked[:, 2], scores):
        score_of[(q, d)] = s
    queries = set(ranked[:, 0]) & set(judged[:, 0])
    keys = sorted(key for key in set(score_of) | set(grade_of) if key[0] in queries)
    qid = np.array([q for q, _ in keys], dtype=object)
    docno = np.array([d for _, d in keys], dtype=object)
    retrieved = np.array([key in score_of for key in keys])
    y_score = np.array([score_of.get(key, -np.inf) for key in keys])
    y_true = np.array([grade_of.get(key, 0.0) for key in keys])
    # trec_eval's order: query, score descending, document name descending
    docno_rank = factorize(docno, len(docno))[0]
    order = np.lexsort((-docno_rank, -y_score, factorize(qid, len(qid))[0]))
    return {
        "y_true": y_true[order],
        "y_score": y_score[order],
        "qid": qid[order].astype(str),
        "retrieved": retrieved[order],
        "docno": docno[order].astype(str),
    }
