"""Imports point one way: the registry reads the players' catalogue and no player
imports the registry; the runner uses both backends and neither backend imports it."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pokersquares"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (anywhere in it), as dotted names relative to pokersquares."""
    package = path.relative_to(SRC).parent.parts
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            out.add(module.removeprefix("pokersquares."))
            out.update(f"{module}.{a.name}".removeprefix("pokersquares.") for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name.removeprefix("pokersquares.") for a in node.names)
    return out


def test_no_player_imports_the_registry_or_the_runner():
    for path in (SRC / "players").glob("*.py"):
        bad = {m for m in imported_modules(path) if m.startswith(("harness.registry", "harness.runner"))}
        assert not bad, f"{path.name} imports {bad}"


def test_the_backends_do_not_import_the_runner():
    for name in ("local_backend.py", "ray_backend.py", "spec.py"):
        bad = {m for m in imported_modules(SRC / "harness" / name) if m.startswith("harness.runner")}
        assert not bad, f"{name} imports {bad}"

