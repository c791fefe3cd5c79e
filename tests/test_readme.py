"""The README's Python blocks run, and the quick start prints what the README says."""

import re
from pathlib import Path

import numpy as np
import pytest
import sklearn

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(block):
    with sklearn.config_context():  # a block may switch metadata routing on
        exec(compile(block, str(README), "exec"), {})


def test_quick_start_values():
    namespace = {}
    exec(compile(BLOCKS[0], str(README), "exec"), namespace)
    evaluate, ndcg = namespace["evaluate"], namespace["ndcg_score"]
    args = namespace["y_true"], namespace["y_score"]
    qid = namespace["qid"]
    assert round(ndcg(*args, qid=qid, k=10), 4) == 0.4978
    # no qid: an error, never the one-query number that qid="single_query" asks for
    with pytest.raises(ValueError, match=r"ndcg_score needs the query id of every row"):
        ndcg(*args, k=10)
    assert round(ndcg(*args, qid="single_query", k=10), 4) == 0.9419
    np.testing.assert_allclose(ndcg(*args, qid=qid, k=10, return_per_query=True),
                               [1.0, 0.4935, 0.0], atol=5e-5)
    result = evaluate(*args, qid=qid, metrics=["ndcg@10", "err@10", "map", "mrr@10", "p@5"])
    assert {k: round(v, 4) for k, v in result.items()} == {
        "ndcg@10": 0.4978, "err@10": 0.3418, "map": 0.4722, "mrr@10": 0.4444, "p@5": 0.3333}
    result = evaluate(*args, qid=qid, metrics=["ndcg@10", "map@10"], convention="lightgbm")
    assert {k: round(v, 4) for k, v in result.items()} == {"ndcg@10": 0.8312, "map@10": 0.8056}
    result = namespace["result"]
    np.testing.assert_array_equal(result.query_ids, [1, 2, 3])
    np.testing.assert_allclose(result["ndcg@10"], [1.0, 0.4935, 0.0], atol=5e-5)
    means = namespace["aggregate"](result)
    assert {k: round(v, 4) for k, v in means.items()} == {"ndcg@10": 0.4978, "map": 0.4722}
