"""The package's metadata agrees with itself: one version everywhere, the license
named in pyproject.toml is the LICENSE file's, and the changelog lists the version."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

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


def test_every_dependency_has_a_lower_bound():
    """Every requirement, core and extra, says the oldest release it works with (``>=``):
    ``.ci/lowest-deps`` installs exactly those releases and runs the demo and tests on them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += [r for r in extra if not r.startswith("pokersquares")]
    unbounded = [r for r in requirements if not re.fullmatch(r"[A-Za-z0-9_.\-]+(\[[\w,]+\])?>=\d[\w.]*(,<[\w.]+)?", r)]
    assert not unbounded, f"requirements without a lower bound (>=): {unbounded}"


def test_raylet_notes_reach_stderr_with_the_oldest_and_newest_rays(monkeypatch):
    """ray 2.10 (the lowest ``ray>=2.10`` allows) calls ``print_to_stdstream(data)``, later
    rays ``print_to_stdstream(data, ignore_prefix)``. The wrapper that sends the raylet's
    notes to stderr demanded ``ignore_prefix``: under ray 2.10 its log threads died with a
    TypeError traceback and the notes ("a worker died") were lost. Ray 2.60 passes
    ``ignore_prefix=False`` by name: the wrapper took it by position only, and the same
    thread died there."""
    import sys
    import types

    from pokersquares.harness import ray_backend

    seen = []
    note = {"pid": "raylet", "is_err": False, "lines": ["a worker died"]}
    for printer, rest, named in ((lambda data: seen.append((data,)), (), {}),
                                 (lambda data, ignore_prefix: seen.append((data, ignore_prefix)), (False,), {}),
                                 (lambda data, ignore_prefix: seen.append((data, ignore_prefix)), (), {"ignore_prefix": False})):
        worker = types.ModuleType("ray._private.worker")
        worker.print_to_stdstream = printer
        private = types.ModuleType("ray._private")
        private.worker = worker
        ray = types.ModuleType("ray")
        ray._private = private
        monkeypatch.setitem(sys.modules, "ray", ray)
        monkeypatch.setitem(sys.modules, "ray._private", private)
        monkeypatch.setitem(sys.modules, "ray._private.worker", worker)
        ray_backend._raylet_notes_to_stderr()
        worker.print_to_stdstream(dict(note), *rest, **named)
    assert seen == [(dict(note, is_err=True),), (dict(note, is_err=True), False), (dict(note, is_err=True), False)]


def test_the_package_ships_its_type_marker():
    """``py.typed`` (PEP 561): a researcher's type checker reads the package's annotations;
    pyproject.toml ships it and runs mypy on the package (``mypy`` with no arguments)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert (Path(pokersquares.__file__).parent / "py.typed").is_file()
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["pokersquares"]
    assert pyproject["tool"]["mypy"]["files"] == ["src/pokersquares"]


def test_the_package_and_the_web_test_client_import_without_a_deprecation():
    """Every part of the package, and the test client the web tests drive the app with,
    imports with warnings made errors: starlette 1.10 deprecated its test client over
    ``httpx`` for ``httpx2`` (the test extra installs both: the benchmarks speak to a
    served app with ``httpx``), and a library's deprecation of what the package calls is
    told here before the release that removes it."""
    pytest.importorskip("fastapi")
    modules = ["pokersquares.cli", "pokersquares.web.app", "pokersquares.envs", "pokersquares.openspiel",
               "pokersquares.optimum", "pokersquares.harness.ray_backend", "starlette.testclient", "fastapi.testclient"]
    flags = ["-W", "error"]  # every warning: starlette's deprecations are UserWarnings
    for module in modules:
        done = subprocess.run([sys.executable, *flags, "-c", f"import {module}"], capture_output=True, text=True,
                              timeout=120)
        last = done.stderr.strip().splitlines()[-1:] or [""]
        assert done.returncode == 0, f"importing {module}: {last[0]}"
