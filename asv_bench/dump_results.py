"""Dump every metric's per-query values over metrics x options x conventions, and compare dumps.

A refactoring of the engine, the registry or the way a metric name reaches its kernel must
not change a single number. This script computes, on seeded inputs, the per-query values,
undefined masks and means of every registry metric through its public function, for each
convention preset (and none) and each value of each option taken one at a time, plus every
trec_eval measure of ``all_trec`` through :func:`~sklearn_rank.metrics.evaluate_per_query`;
a combination that is refused records its error's type and message instead. Two dumps are
identical when every array is equal bit for bit (NaN payloads included) and every error
reads the same::

    python asv_bench/dump_results.py before.npz                 # on the old tree
    python asv_bench/dump_results.py after.npz --compare before.npz
"""

import argparse
import functools
import sys
import warnings

import numpy as np


def _inputs():
    """Seeded inputs that reach the engine's corners: ties, queries without relevant
    documents, one-row queries, graded and binary labels, weights, judged and retrieved
    masks."""
    rng = np.random.default_rng(20261127)
    cases = {}
    n = 600
    qid = rng.integers(0, 60, n)
    y = rng.integers(0, 5, n).astype(float)
    y[qid % 7 == 0] = 0.0  # queries without a relevant document
    cases["graded"] = dict(y_true=y, y_score=rng.normal(size=n), qid=qid)
    cases["ties"] = dict(y_true=y, y_score=np.round(rng.normal(size=n), 1), qid=qid)
    cases["binary_weighted"] = dict(
        y_true=(y > 2).astype(float), y_score=rng.integers(0, 4, n).astype(float),
        qid=np.array([f"q{v:02d}" for v in qid], dtype=object),
        sample_weight=np.repeat(rng.uniform(0.5, 2.0, 60), 10)[np.argsort(np.argsort(qid))])
    judged = rng.random(n) > 0.3
    yj = y.copy()
    yj[~judged] = 0.0
    cases["judged_retrieved"] = dict(y_true=yj, y_score=rng.normal(size=n), qid=qid,
                                     judged=judged, retrieved=rng.random(n) > 0.2)
    single = rng.integers(0, 3, 7).astype(float)
    cases["small"] = dict(y_true=np.r_[single, 1.0], y_score=np.r_[rng.normal(size=7), 0.0],
                          qid=np.r_[np.zeros(7, int), 1])
    return cases


_REAL_VALUES = {
    "relevance_threshold": [0.5, 2.0, 3.5], "max_grade": [4.0, 10.0],
    "persistence": [0.5, 0.95], "log_base": [10.0, 1.5], "half_life": [1.0, 5.0],
    "default_rating": [0.0, 1.0], "beta": [0.5, 2.0], "mult": [0.2, 2.0],
    "recall": [0.0, 0.35, 1.0], "ties_credit": [0.0, 0.5, 1.0],
    "relevant_retrieved": [2.0], "nonrelevant_retrieved": [-0.5], "relevant_missed": [-1.0],
    "nonrelevant_missed": [0.5], "collection_size": [1000],
}
_K_VALUES = [1, 3, 10, 1000]


def _option_values(option):
    """A few values of ``option``: every listed choice, else some reals or cut-offs."""
    values = []
    for constraint in option.constraint:
        listed = getattr(constraint, "options", None)
        if listed is not None:
            values.extend(sorted(listed, key=repr))
        elif constraint == "boolean":
            values.extend([False, True])
    if option.name == "k":
        values.extend(_K_VALUES)
    values.extend(_REAL_VALUES.get(option.name, []))
    return values


def _record(out, key, compute):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = compute()
        except Exception as exc:  # a refused combination: its message is part of the dump
            out[key + "|error"] = np.array(f"{type(exc).__name__}: {exc}")
            return
    for name in result.metrics:
        out[f"{key}|{name}|values"] = np.asarray(result[name], dtype=np.float64)
        undefined = result.undefined.get(name) if hasattr(result.undefined, "get") else None
        if undefined is not None:
            out[f"{key}|{name}|undefined"] = np.asarray(undefined)
    out[key + "|ids"] = np.asarray(result.query_ids).astype(str)


def dump():
    from sklearn_rank import metrics
    from sklearn_rank._conventions import CONVENTIONS
    from sklearn_rank.metrics import evaluate_per_query

    try:
        from sklearn_rank.metrics._registry import METRICS
    except ImportError:  # the registry may move; the spec is what counts
        from sklearn_rank.metrics import _registry as _r
        METRICS = _r.METRICS
    conventions = [None, *CONVENTIONS]
    out = {}
    for data_name, data in _inputs().items():
        extras = {k: v for k, v in data.items()
                  if k not in ("y_true", "y_score", "qid")}
        for name, spec in METRICS.items():
            function = getattr(metrics, spec.function_name)
            variants = [{}]
            for option in spec.all_options:
                variants.extend({option.name: value} for value in _option_values(option))
            for convention in conventions:
                for options in variants:
                    key = f"{data_name}|{name}|{convention}|{sorted(options.items())!r}"

                    _record(out, key, functools.partial(
                        evaluate_per_query, data["y_true"], data["y_score"], qid=data["qid"],
                        metrics=[name], convention=convention, **extras, **options))
                    # the public function, mean and per query, through its own shell
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            value = function(data["y_true"], data["y_score"], qid=data["qid"],
                                             convention=convention, **extras, **options)
                        out[key + "|function"] = np.asarray(value, dtype=np.float64)
                    except Exception as exc:
                        out[key + "|function|error"] = np.array(f"{type(exc).__name__}: {exc}")
        # every trec_eval measure of all_trec, by its printed name, under the trec_eval preset
        for name in _trec_names():
            key = f"{data_name}|trec:{name}"
            _record(out, key, functools.partial(
                evaluate_per_query, data["y_true"], data["y_score"], qid=data["qid"],
                metrics=[name], convention="trec_eval", **extras))
    return out


def _trec_names():
    """The printed names of ``-m all_trec`` that the registry computes (``P_5``...)."""
    from sklearn_rank.metrics._trec_names import expand_measures

    return [item.name for item in expand_measures(["all_trec"])
            if item.measure.entry is not None]


def _same(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return a.tobytes() == b.tobytes()  # bit for bit, NaN payloads and -0.0 included
    return np.array_equal(a, b)


def compare(new, old):
    """The keys that differ between two dumps, as lines of text."""
    lines = []
    for key in sorted(set(new) | set(old)):
        if key not in old:
            lines.append(f"only in the new dump: {key}")
        elif key not in new:
            lines.append(f"only in the old dump: {key}")
        elif not _same(np.asarray(new[key]), np.asarray(old[key])):
            lines.append(f"differs: {key}: {new[key]!r} != {old[key]!r}"[:400])
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="the .npz file to write")
    parser.add_argument("--compare", metavar="OLD", help="a dump to compare the new one with")
    args = parser.parse_args(argv)
    out = dump()
    np.savez_compressed(args.output, **out)
    n_errors = sum(k.endswith("error") for k in out)
    print(f"{args.output}: {len(out)} arrays ({n_errors} refused combinations)")
    if args.compare:
        with np.load(args.compare, allow_pickle=False) as old:
            differences = compare(out, dict(old))
        if differences:
            print(f"NOT identical to {args.compare}: {len(differences)} differences")
            print("\n".join(differences[:50]))
            return 1
        print(f"identical to {args.compare}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
