"""What the README and docs/ point at is there: every Markdown link to a repository file
(and its ``#anchor``), every repository path the text names, the champion's current
version, the web app's route modules, and every player spec a ``--help`` gives as an
example. Files are moved, sections renamed and players changed over time; a reference
left behind is a reader's dead end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main

from pokersquares.cli import _load_subcommands, app
from pokersquares.harness.registry import list_players, make_player, split_player_list

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# docs/results.md is a log: it may name files of its day that are gone since.
DESCRIBING = [doc for doc in DOCS if doc.name != "results.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
REPO_PATH = re.compile(r"(?<![\w/.-])(?:docs|benchmarks|tests|\.ci|src/pokersquares)/[\w./*-]*[\w*]")


def prose(text: str) -> str:
    """The text without its fenced code blocks (a ``# comment`` there is no heading)."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def anchors(text: str) -> set[str]:
    """The ``#anchors`` of a Markdown text's headings, as GitHub makes them: lower case,
    punctuation dropped, spaces as hyphens, a repeated heading numbered ``-1``, ``-2``."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", prose(text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        seen[slug] = seen.get(slug, -1) + 1
        found.add(slug if seen[slug] == 0 else f"{slug}-{seen[slug]}")
    return found


def broken_links(doc: Path) -> list[str]:
    """Each link of ``doc`` to a file that is not there, or to an anchor its file lacks."""
    broken = []
    for target in LINK.findall(prose(doc.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not the repository's
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path) if path else doc
        if not file.exists():
            broken.append(f"{doc.name}: {target}: no such file")
        elif anchor and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{doc.name}: {target}: no heading #{anchor} in {file.name}")
    return broken


def test_the_docs_link_to_files_and_headings():
    """The extraction finds links, anchors among them."""
    links = [t for doc in DOCS for t in LINK.findall(prose(doc.read_text(encoding="utf-8")))]
    assert len(links) >= 20 and sum("#" in t for t in links) >= 10, links


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_link_resolves(doc):
    assert not broken_links(doc)


def test_a_broken_link_is_told_from_a_sound_one(tmp_path):
    (tmp_path / "other.md").write_text("# It's a heading: `code`\n\n## Twice\n\n## Twice\n", encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text("[a](other.md) [b](other.md#its-a-heading-code) [c](other.md#twice-1) [d](https://x.org/y)\n"
                   "[e](missing.md) [f](other.md#nowhere) [g](#here)\n```\n[h](inside-code.md)\n```\n# Here\n",
                   encoding="utf-8")
    assert broken_links(doc) == ["doc.md: missing.md: no such file", "doc.md: other.md#nowhere: no heading #nowhere in other.md"]


@pytest.mark.parametrize("doc", DESCRIBING, ids=lambda d: d.name)
def test_every_repository_path_the_docs_name_exists(doc):
    named = set(REPO_PATH.findall(doc.read_text(encoding="utf-8")))
    assert named, doc.name
    assert not sorted(p for p in named if not list(ROOT.glob(p.rstrip("/")))), doc.name


def test_the_readme_names_the_current_champion_version():
    """Rows of measured figures name the champion's version they measured; the one the
    README calls current is the code's."""
    from pokersquares.players.champion import champion

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    current = re.findall(r"the current one is version (\d+)|version (\d+) \(the current one\)", text)
    assert current and {a or b for a, b in current} == {champion.version}, current


def test_the_readme_names_every_route_module_of_the_web_app():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    routes = sorted(p.name for p in (ROOT / "src" / "pokersquares" / "web").glob("api_*.py"))
    assert routes and [r for r in routes if f"`{r}`" not in text] == []


def help_texts() -> list[tuple[str, str]]:
    """``(where, text)`` of every command's and option's help, and every player's
    description in ``pokersquares players``."""
    _load_subcommands()
    texts = []

    def walk(command, path):
        texts.append((path, command.help or ""))
        for param in command.params:
            texts.append((f"{path} {param.opts[0] if getattr(param, 'opts', None) else param.name}",
                          getattr(param, "help", None) or ""))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "pokersquares")
    return texts + [(f"players: {p.name}", p.description) for p in list_players()]


def example_specs(text: str, registered: set[str]) -> list[str]:
    """The registered players' specs with parameters that ``text`` gives, leaving out
    templates (``NAME:key=value``, ``load=FILE``)."""
    specs = []
    for word in text.split():
        word = word.strip("().,;'\"`")
        if ":" not in word or "=" not in word:
            continue
        for spec in split_player_list(word):
            name, _, params = spec.partition(":")
            if name in registered and params and not re.search(r"[A-Z]|(load|priors|log)=", params):
                specs.append(spec)
    return specs


def test_every_player_spec_a_help_gives_as_an_example_builds():
    registered = {p.name for p in list_players()}
    checked, failed = [], []
    for where, text in help_texts():
        for spec in example_specs(text, registered):
            checked.append(spec)
            try:
                make_player(spec)
            except Exception as e:  # noqa: BLE001: the failure is the finding
                failed.append(f"{where}: {spec!r}: {type(e).__name__}: {e}")
    assert not failed, "\n".join(failed)
    assert {"tiger:iterations=300", "champion:depth=25,stop_z=2"} <= set(checked), checked


def test_example_specs_are_told_from_templates():
    registered = {"tiger", "champion", "random", "beemo"}
    assert example_specs("(e.g. tiger:cores=1).", registered) == ["tiger:cores=1"]
    assert example_specs("e.g. random,champion:depth=25,stop_z=2,beemo (three players)", registered) \
        == ["champion:depth=25,stop_z=2"]
    assert example_specs("NAME:key=value,... or module.path:Class; beemo:load=FILE", registered) == []
