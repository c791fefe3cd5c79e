"""The README's Python blocks run, and the quick start prints what the README says."""

import contextlib
import re
import sys
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


def _canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_with(requirements):
    """The distributions that ``requirements`` install, with their own requirements (as
    installed here), by canonical name."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement

    seen, todo = set(), list(requirements)
    while todo:
        requirement = Requirement(todo.pop())
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = _canonical(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        with contextlib.suppress(PackageNotFoundError):  # not installed here: no closure
            todo.extend(requires(requirement.name) or [])
    return seen


def test_readme_test_command_installs_what_the_tests_import():
    # The README's test command installed no Sphinx nor numpydoc: the snippet tests of the
    # docs (tests/test_docs.py) and the docstring checks (tests/test_metric_spec.py) skipped
    # under it, unseen. Every module a test skips without must come with its extras.
    tomllib = pytest.importorskip("tomllib")
    from importlib.metadata import packages_distributions

    root = README.parent
    command = re.search(r'pip install -e "\.\[([\w,]+)\]" && \S+ -m pytest[^\n]*\n',
                        README.read_text())
    assert command, "the README's test command"
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in command.group(1).split(","):
        requirements += project["optional-dependencies"][extra]
    installed = _installed_with(requirements)
    providers = packages_distributions()
    missing = {}
    for path in sorted((root / "tests").glob("*.py")):
        for module in re.findall(r'importorskip\(\s*"([\w.]+)"', path.read_text()):
            top = module.split(".")[0]
            if top == "sklearn_rank" or top in sys.stdlib_module_names:
                continue
            names = {_canonical(n) for n in providers.get(top, [top])}
            if not names & installed:
                missing.setdefault(module, []).append(path.name)
    assert missing == {}
