"""The files that let others carry the project on agree with pyproject.toml and each other."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the test extra installs tomli
    import tomli as tomllib


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_license_file_is_the_declared_licence():
    assert _pyproject()["project"]["license"] == "BSD-3-Clause"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder nor the names of its" in text


def test_pre_commit_runs_the_ruff_that_ci_pins():
    (pin,) = _pyproject()["project"]["optional-dependencies"]["lint"]
    version = pin.removeprefix("ruff==")
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert re.search(rf"^\s+rev: v{re.escape(version)}$", config, re.MULTILINE), (pin, config)


def test_changelog_has_an_unreleased_section_with_known_headings():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    assert sections[0].startswith("Unreleased")
    headings = set(re.findall(r"^### (.+)$", text, flags=re.MULTILINE))
    assert headings <= {"Added", "Changed", "Deprecated", "Fixed", "Removed"}, headings
    for section in sections:
        assert re.search(r"^- ", section, re.MULTILINE), section.splitlines()[0]


def test_contributing_names_modules_that_exist():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:sklearn_rank|tests|asv_bench|metrics|datasets|_adapters)"
                           r"/[\w/.*]+\.py)`", text))
    assert paths
    for path in paths:
        found = [*ROOT.glob(path), *(ROOT / "sklearn_rank").glob(path)]
        assert found, path
