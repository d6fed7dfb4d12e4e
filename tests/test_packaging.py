"""The package's metadata agrees with itself: one version everywhere, the license
named in pyproject.toml is the LICENSE file's, and the changelog lists the version."""

import re
import tomllib
from pathlib import Path

import pokersquares

ROOT = Path(__file__).resolve().parents[1]


def test_version_license_and_citation_agree():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" in project["dynamic"]  # read from pokersquares.__version__
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^version: (\S+)$", citation, re.M).group(1) == pokersquares.__version__
    assert re.search(r"^license: (\S+)$", citation, re.M).group(1) == project["license"]
    assert f"## [{pokersquares.__version__}]" in (ROOT / "CHANGELOG.md").read_text()


def test_the_optional_extras_do_not_grow_the_core_install():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    for extra in ("open_spiel", "fastapi", "ray", "gymnasium"):
        assert extra not in core
    assert project["optional-dependencies"]["openspiel"] == ["open_spiel>=2.0.2"]
