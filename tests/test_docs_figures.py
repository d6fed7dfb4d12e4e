"""The README's headline strength figures are what the committed stores hold.

Each test reads one row of README's "Measured figures" table, takes the figures next
to its fixed words (a mean ± SE, a paired difference and its interval, a tournament's
totals, penalty and game counts), and computes them from the row's committed store
in ``docs/stores/`` with the library calls behind ``pokersquares compare`` and
``results --tournament``, formatted as those commands print them. A figure edited in
the text, or a store changed without the text, fails here with both values; a row
reworded so that its figures are no longer found fails too, naming what it looked for.
The stores are opened read only."""

from __future__ import annotations

import re
from pathlib import Path

from pokersquares.harness.compare import RecordedRun, load_runs, run_difference, run_summary
from pokersquares.harness.store import ResultStore
from pokersquares.harness.tournament import table_from_store

ROOT = Path(__file__).resolve().parents[1]
STORES = ROOT / "docs" / "stores"
NUMBER = r"[+−]?[\d,]+(?:\.\d+)?"  # as the README writes one: 1,200, 127.61, −2.34, +0.86
MEAN_SE = rf"{NUMBER} ± {NUMBER}"


def readme_row(first_cell: str) -> str:
    """The one line of README.md's tables whose first cell starts with ``first_cell``."""
    rows = [line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith(f"| {first_cell}")]
    assert len(rows) == 1, f"README.md has {len(rows)} table rows starting {first_cell!r}, not 1"
    return rows[0]


def figures(row: str, pattern: str) -> tuple[str, ...]:
    """The groups of ``pattern`` (each a figure as written) in a README row."""
    found = re.search(pattern, row)
    assert found, f"README.md's row no longer reads as {pattern!r}:\n{row}"
    return found.groups()


def fixed(x: float, places: int = 2) -> str:
    """A number as the commands print it and the README writes it (a minus sign, not a hyphen)."""
    return f"{x:.{places}f}".replace("-", "−")


def signed(x: float, places: int = 2) -> str:
    return f"{x:+.{places}f}".replace("-", "−")


def mean_se(run: RecordedRun) -> str:
    summary = run_summary(run)
    return f"{fixed(summary['mean'])} ± {fixed(summary['stderr'])}"


def difference(a: RecordedRun, b: RecordedRun) -> tuple[str, str, str]:
    """``a − b`` paired ± SE, and its 95 % interval's ends, as ``compare`` prints them."""
    d = run_difference(a, b)
    assert d is not None, "the two runs share no deals"
    low, high = d["ci95"]
    return f"{signed(d['a_minus_b'])} ± {fixed(d['stderr'])}", signed(low), signed(high)


def code_version(run: RecordedRun) -> str | None:
    """The player's own version of a run's code (``0.1.0/20`` -> ``20``); None for runs
    recorded before the store kept it."""
    return run.info.version.split("/")[1] if run.info.version else None


def the_run(runs: list[RecordedRun], player: str, version: str | None = None, system: str | None = None,
            prep_time: float | None = None) -> RecordedRun:
    """The one run of exactly ``player`` (of the champion's ``version`` number, of ``system``, with ``prep_time``)."""
    found = [r for r in runs if r.info.player == player
             and (version is None or code_version(r) == version)
             and (system is None or r.info.system_name == system)
             and (prep_time is None or r.info.prep_time == prep_time)]
    assert len(found) == 1, f"{len(found)} runs of {player} v{version} {system} {prep_time}, not 1"
    return found[0]


def count(n: int) -> str:
    return f"{n:,}"


def headline(run: RecordedRun) -> tuple[str, str, str]:
    """A run's mean ± SE, games and penalties, as a row writes them."""
    summary = run_summary(run)
    return mean_se(run), count(summary["games"]), str(summary["penalties"])


def test_champion_at_30_s_against_the_best_2016_winner():
    row = readme_row("champion version 20, 30 s per game")
    written = figures(row, rf"\| ({MEAN_SE}) \(({NUMBER}) games, seeds 0\.\.299; (\d+) penalties\); "
                           rf"paired − gettysburg ({MEAN_SE}) \(95 %: ({NUMBER}) \.\. ({NUMBER})\)")
    runs = load_runs([STORES / "champion-30s.sqlite"])
    champion, gettysburg = the_run(runs, "champion", "20"), the_run(runs, "gettysburg")
    assert written == (*headline(champion), *difference(champion, gettysburg))


def test_champion_at_5_s_over_1000_deals():
    row = readme_row("champion version 17, 5 s per game")
    written = figures(row, rf"\| ({MEAN_SE}) \(({NUMBER}) games, seeds 0\.\.999; (\d+) penalties\); "
                           rf"paired − gettysburg on the same deals \(({MEAN_SE})\) "
                           rf"\*\*({MEAN_SE}) \(95 %: ({NUMBER}) \.\. ({NUMBER})\)\*\*")
    runs = load_runs([STORES / "champion-5s-v17.sqlite"])
    champion, gettysburg = the_run(runs, "champion", "17"), the_run(runs, "gettysburg")
    assert written == (*headline(champion), mean_se(gettysburg), *difference(champion, gettysburg))


def test_the_current_champion_at_5_s_over_the_same_1000_deals():
    row = readme_row("champion version 21, 5 s per game")
    written = figures(row, rf"\| ({MEAN_SE}) \(({NUMBER}) games, seeds 0\.\.999; (\d+) penalties, .*\); "
                           rf"paired − gettysburg on the same deals \(version 17's store\) "
                           rf"({MEAN_SE}) \(95 %: ({NUMBER}) \.\. ({NUMBER})\); "
                           rf"− version 17 ({MEAN_SE}) \(95 %: ({NUMBER}) \.\. ({NUMBER})\)")
    runs = load_runs([STORES / "champion-5s-v21.sqlite", STORES / "champion-5s-v17.sqlite"])
    champion, gettysburg = the_run(runs, "champion", "21"), the_run(runs, "gettysburg")
    assert written == (*headline(champion), *difference(champion, gettysburg),
                       *difference(champion, the_run(runs, "champion", "17")))


def test_champion_under_british_at_5_s():
    row = readme_row("champion version 17, British, 5 s per game")
    written = figures(row, rf"\| ({MEAN_SE}) \(({NUMBER}) games, seeds 0\.\.299; (\d+) penalties\); "
                           rf"paired − beemo at 5 s ({MEAN_SE})")
    runs = load_runs([STORES / "british-5s-v17.sqlite"])
    champion, beemo = the_run(runs, "champion", "17"), the_run(runs, "beemo")
    assert written == (*headline(champion), difference(champion, beemo)[0])


def test_the_12_system_tournament_totals():
    row = readme_row("12-system tournament, 1 s per game, 30 s preparation, 100 games per system, "
                     "champion version 17")
    written = figures(row, rf"champion ({MEAN_SE}), beemo ({MEAN_SE}) \(({MEAN_SE})\), gettysburg ({MEAN_SE}), "
                           rf"tiger ({MEAN_SE}); champion first or within one paired SE on (\d+) of 12 .*; "
                           rf"(\d+) penalties")
    with ResultStore(STORES / "tournament-contest-100-v17.sqlite", readonly=True) as store:
        table = table_from_store(store, 1)
    assert table["ranking"][0] == "champion"  # the gap below is the leader's

    def total(p: str) -> str:
        return f"{fixed(table['scores'][p], 3)} ± {fixed(table['score_se'][p], 3)}"

    gap = f"{signed(table['scores']['champion'] - table['scores']['beemo'], 3)} ± {fixed(table['gap_se']['beemo'], 3)}"
    close = sum(table["behind_first"][s]["players"]["champion"]["close"] for s in table["systems"])
    penalties = sum(n for cells in table["penalties"].values() for n in cells.values())
    assert written == (total("champion"), total("beemo"), gap, total("gettysburg"), total("tiger"),
                       str(close), str(penalties))


def small_budget_champions(store: str, version: str) -> tuple[list[RecordedRun], list[RecordedRun]]:
    """Every run of a small-budget store, and its champion's 12 runs at 2 s of preparation,
    each checked to score at least ``greedy``'s mean on its system (the rows' claim)."""
    runs = load_runs([STORES / store])
    champions = [r for r in runs if r.info.player == "champion" and r.info.prep_time == 2
                 and code_version(r) == version]
    assert len(champions) == 12
    for champion in champions:
        greedy = [r for r in runs if r.info.player == "greedy" and r.info.points == champion.info.points]
        assert greedy and all(run_summary(champion)["mean"] >= run_summary(g)["mean"] for g in greedy), \
            f"{champion.info.system_name}: below greedy"
    return runs, champions


def penalties_and_games(champions: list[RecordedRun]) -> tuple[str, str]:
    return (str(sum(run_summary(r)["penalties"] for r in champions)),
            count(sum(len(r.games) for r in champions)))


def test_small_budgets_beside_busy_processes():
    row = readme_row("champion version 21, 2 s preparation and 1 s per game")
    written = figures(row, rf"\| (\d+) penalties in ({NUMBER}) games, (\d+) fallback moves; at least greedy's "
                           rf"mean on every system \(American ({MEAN_SE}), British ({MEAN_SE})\)")
    _, champions = small_budget_champions("small-prep-busy-v21.sqlite", "21")
    fallback = sum(g.fallback_moves for r in champions for g in r.games.values())
    assert written == (*penalties_and_games(champions), str(fallback),
                       mean_se(the_run(champions, "champion", system="American")),
                       mean_se(the_run(champions, "champion", system="British")))


def test_small_budgets_below_8_s_of_preparation():
    row = readme_row("champion version 19 (below 8 s")
    written = figures(row, rf"\| (\d+) penalties in ({NUMBER}) games; ahead of greedy on every system; .* "
                           rf"\(American ({MEAN_SE}), beemo ({MEAN_SE}); version 18 there ({MEAN_SE})\)")
    runs, champions = small_budget_champions("small-prep-v19.sqlite", "19")
    assert written == (*penalties_and_games(champions),
                       mean_se(the_run(champions, "champion", system="American")),
                       mean_se(the_run(runs, "beemo", system="American", prep_time=2.0)),
                       mean_se(the_run(runs, "champion", "18", "American", prep_time=2.0)))
