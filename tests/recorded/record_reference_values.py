"""Record what torchmetrics and CatBoost compute on fixed inputs, for the test suite.

``tests/test_reference_implementations.py`` compares sklearn-rank with these systems live when
they are importable, and with the values recorded here otherwise (torch is far too heavy for
CI, CatBoost is an optional extra). Each run writes ``<system>.json`` beside this script with
the inputs, the exact call of the system and its result, so the tests need neither the system
nor the random generator that made the inputs.

Usage, from the repository root (each system in an environment that has it)::

    python tests/recorded/record_reference_values.py torchmetrics
    python tests/recorded/record_reference_values.py catboost

torchmetrics was recorded with torch 2.13.0+cpu and torchmetrics 1.9.0, CatBoost with 1.2.10;
the versions are stored in the JSON files.
"""

import argparse
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
KS = (1, 3, 5, 10, None)


def make_case(seed, *, n_queries=25, max_size=30, scores="positive", graded=True):
    """Ragged queries of 1..max_size rows, shuffled together, with float32 scores.

    About one query in six has no relevant document. ``scores``: "positive" draws from
    (0.01, 1) without ties, "signed" from a standard normal (about half are <= 0),
    "ties" from five values in (0, 1).
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, n_queries)
    y_true, y_score, qid = [], [], []
    for q, n in enumerate(sizes):
        if rng.random() < 1 / 6:
            labels = np.zeros(n)
        elif graded:
            labels = rng.choice(5, n, p=[0.5, 0.2, 0.15, 0.1, 0.05]).astype(float)
        else:
            labels = (rng.random(n) < 0.3).astype(float)
        if scores == "positive":
            values = rng.uniform(0.01, 1.0, n)
        elif scores == "signed":
            values = rng.normal(size=n)
        else:
            values = rng.choice([0.2, 0.4, 0.6, 0.8, 1.0], n)
        y_true.extend(labels)
        y_score.extend(values.astype(np.float32).astype(float))
        qid.extend([q] * n)
    order = rng.permutation(len(y_true))
    return {
        "y_true": [float(v) for v in np.asarray(y_true)[order]],
        "y_score": [float(v) for v in np.asarray(y_score)[order]],
        "qid": [int(v) for v in np.asarray(qid)[order]],
    }


def record_torchmetrics():
    import torch
    import torchmetrics
    from torchmetrics import retrieval

    cases = {
        "positive": make_case(0, scores="positive"),
        "positive_binary": make_case(1, scores="positive", graded=False),
        "signed_binary": make_case(2, scores="signed", graded=False),
        "ties": make_case(3, scores="ties"),
    }
    classes = {
        "ndcg": retrieval.RetrievalNormalizedDCG,
        "map": retrieval.RetrievalMAP,
        "mrr": retrieval.RetrievalMRR,
        "precision": retrieval.RetrievalPrecision,
        "recall": retrieval.RetrievalRecall,
        "hit_rate": retrieval.RetrievalHitRate,
        "r_precision": retrieval.RetrievalRPrecision,
    }
    # Which metrics each case may feed: binary metrics need 0/1 targets, and only nDCG has
    # defined tie handling.
    plan = {
        "positive": ["ndcg"],
        "ties": ["ndcg"],
        "positive_binary": list(classes),
        "signed_binary": list(classes),
    }
    records = []
    for case_name, metric_names in plan.items():
        case = cases[case_name]
        preds = torch.tensor(case["y_score"], dtype=torch.float32)
        target = torch.tensor(case["y_true"])
        if case_name.endswith("binary"):
            target = target.long()
        indexes = torch.tensor(case["qid"], dtype=torch.long)
        for metric in metric_names:
            for action in ("neg", "pos", "skip"):
                variants = [{}] if metric == "r_precision" else [{"top_k": k} for k in KS]
                if metric == "precision":
                    variants += [{"top_k": k, "adaptive_k": True} for k in KS if k]
                for kwargs in variants:
                    kwargs = {**kwargs, "empty_target_action": action}
                    value = classes[metric](**kwargs)(preds, target, indexes=indexes)
                    records.append({"case": case_name, "metric": metric,
                                    "class": classes[metric].__name__, "kwargs": kwargs,
                                    "value": float(value)})
    return {
        "system": "torchmetrics",
        "versions": {"torch": torch.__version__, "torchmetrics": torchmetrics.__version__},
        "cases": cases,
        "records": records,
    }


def record_catboost():
    import catboost
    from catboost.utils import eval_metric

    cases = {
        "ties": make_case(10, scores="ties"),
        "positive": make_case(11, scores="positive"),
    }
    records = []
    for case_name, case in cases.items():
        # CatBoost wants the rows of a query together: sort by qid, keeping row order.
        order = np.argsort(case["qid"], kind="stable")
        y = np.asarray(case["y_true"])[order]
        s = np.asarray(case["y_score"])[order]
        q = np.asarray(case["qid"])[order]
        group_id = np.array([f"query-{v}" for v in q])
        # Multiples of 1/8: CatBoost holds weights in float32.
        weight_of_query = np.random.default_rng(99).integers(1, 25, q.max() + 1) / 8
        group_weight = weight_of_query[q]
        case["query_weight"] = [float(v) for v in weight_of_query]
        for k in KS:
            top = "" if k is None else f"top={k}"
            names = []
            for kind in ("Base", "Exp"):
                for base in ("NDCG", "DCG"):
                    names.append(f"{base}:" + ";".join(filter(None, [top, f"type={kind}"])))
            names += [f"{m}:{top}" if top else m
                      for m in ("MAP", "MRR", "ERR", "PrecisionAt", "RecallAt")]
            for name in names:
                labels = y / 4 if name.startswith("ERR") else y
                for weighted in (False, True):
                    value = eval_metric(labels, s, name, group_id=group_id,
                                        group_weight=group_weight if weighted else None)[0]
                    records.append({"case": case_name, "metric": name, "k": k,
                                    "weighted": weighted, "label_scale": 0.25 if
                                    name.startswith("ERR") else 1.0, "value": float(value)})
    return {
        "system": "catboost",
        "versions": {"catboost": catboost.__version__},
        "cases": cases,
        "records": records,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system", choices=["torchmetrics", "catboost"])
    system = parser.parse_args().system
    out = {"torchmetrics": record_torchmetrics, "catboost": record_catboost}[system]()
    path = HERE / f"{system}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(out['records'])} records to {path}")


if __name__ == "__main__":
    main()
