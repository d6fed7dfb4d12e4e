"""The Results page of a store with more runs than the server gives at once, in a real
headless Chromium: the newest page, "Show older runs" for the rest (by the keyboard
too), and a run off the first page opened by its address."""

from __future__ import annotations

import pytest

# test_browser's Chromium and page helper; importing it skips this module without a browser.
from tests.web.test_browser import axe, browser, context, open_page, serious_violations  # noqa: F401

from playwright.sync_api import expect  # noqa: E402

from pokersquares import AMERICAN, BRITISH  # noqa: E402
from pokersquares.harness.store import GameRecord, ResultStore  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.results import RUNS_PAGE  # noqa: E402

from .conftest import serving  # noqa: E402

# No test here reads the server's optimum of a finished game: it is solved in a moment.
pytestmark = pytest.mark.usefixtures("quick_optimum")

RUNS = RUNS_PAGE + 30  # a page and some


@pytest.fixture(scope="module")
def paged_server(tmp_path_factory):
    """A store of people's games, a run each, every tenth on the British system."""
    path = tmp_path_factory.mktemp("paged-store") / "results.sqlite"
    with ResultStore(path) as store:
        for k in range(RUNS):
            run = store.open_run("human", "human", BRITISH if k % 10 == 0 else AMERICAN, k, 1, 0.0, 0.0,
                                 version=f"web:{k}")
            store.add_games(run, [GameRecord(0, k, k % 50, [], 1.0)])
    with serving(create_app(prep_s=1.0, think_s=1.0, game_s=5.0, store_path=path, record_games=False)) as url:
        yield url


def run_ids(page) -> list[int]:
    return page.locator("tr[data-run]").evaluate_all("rs => rs.map(r => Number(r.dataset.run))")


def test_the_newest_runs_come_first_and_the_button_adds_the_older(context, paged_server, axe):  # noqa: F811
    page = open_page(context, paged_server + "#results")
    expect(page.locator("#results-runs-heading")).to_have_text(f"Runs ({RUNS:,})")
    rows = page.locator("tr[data-run]")
    expect(rows).to_have_count(RUNS_PAGE)
    assert run_ids(page) == list(range(RUNS, RUNS - RUNS_PAGE, -1))
    expect(page.locator(".results-detail h2").first).to_contain_text(f"Run {RUNS}:")  # the newest, opened
    expect(page.locator(".results-list")).not_to_contain_text("null")  # no tournament: nothing said of them
    expect(page.locator(f"tr[data-run='{RUNS}']")).to_have_class("pick human selected")
    expect(page.locator("#results-runs-shown")).to_have_text(f"the newest {RUNS_PAGE} of {RUNS} shown")
    # Games played in the browser: every game of the store summed up, not only the page's
    # (every person's: a class's server headed them "Your games").
    expect(page.locator("[data-humans] h2")).to_have_text("Games played in the browser")
    british = [k % 50 for k in range(0, RUNS, 10)]
    humans = page.locator("[data-humans] tbody tr")
    expect(humans).to_have_count(2)
    expect(humans.nth(0).locator("td")).to_have_text(["British", str(len(british)),
                                                      f"{sum(british) / len(british):.1f}".removesuffix(".0"), str(max(british))])
    expect(humans.nth(1).locator("td").nth(1)).to_have_text(str(RUNS - len(british)))
    assert serious_violations(axe, page) == []

    # A real button, reached by Tab from the table's last run, pressed by Enter.
    page.locator("tr[data-run] button").last.focus()
    page.keyboard.press("Tab")
    assert page.evaluate("[document.activeElement.tagName, document.activeElement.textContent]") == \
        ["BUTTON", "Show older runs"]
    page.keyboard.press("Enter")
    expect(rows).to_have_count(RUNS)
    assert run_ids(page) == list(range(RUNS, 0, -1))
    expect(page.locator("#results-older")).to_be_hidden()  # no older runs left
    expect(page.locator("#results-runs-shown")).to_have_text("")
    # The button went: the focus is on the first run it added, not lost to the page.
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == f"open run {RUNS - RUNS_PAGE}"
    assert not page.errors


def test_a_run_off_the_first_page_opens_by_its_address(context, paged_server):  # noqa: F811
    page = open_page(context, paged_server + "#results/run/3")
    expect(page.locator(".results-detail h2").first).to_contain_text("Run 3: human on American")
    # A person's game is a run of one: no standard error, where it said "± 0"
    expect(page.locator(".results-detail")).to_contain_text("(one game: no standard error)")
    expect(page.locator(".results-detail")).not_to_contain_text("± 0 (standard error)")
    expect(page.locator("tr[data-run]")).to_have_count(RUNS_PAGE)
    expect(page.locator("tr[data-run='3']")).to_have_count(0)
    page.click("#results-older")
    expect(page.locator("tr[data-run='3']")).to_have_class("pick human selected")  # marked once it is listed
    assert page.url.endswith("#results/run/3")
    assert not page.errors


def test_a_name_given_on_the_play_tab_is_kept_and_its_games_are_told_apart(context, tmp_path):  # noqa: F811
    """The name field's value stays in the browser, goes with each new game, and the
    game finished is listed and summed under it on the Results tab."""
    path = tmp_path / "named.sqlite"
    with serving(create_app(prep_s=1.0, think_s=1.0, game_s=5.0, store_path=path)) as url:
        page = open_page(context, url)
        page.fill("#play-name", "Ada")
        page.locator("#play-name").dispatch_event("change")
        page.click("#play-new")
        for _ in range(25):  # the first empty cell each time
            before = page.locator("#play-board .cell.filled").count()
            page.locator("#play-board .cell:not(.filled)").first.click()
            expect(page.locator("#play-board .cell.filled")).to_have_count(before + 1)
        page.reload()
        expect(page.locator("#play-name")).to_have_value("Ada")
        page.goto(url + "#results")
        expect(page.locator("tr[data-run] td").nth(1)).to_have_text("human (Ada)")
        people = page.locator("[data-people] tbody tr")
        expect(people).to_have_count(1)
        expect(people.first.locator("td").first).to_have_text("Ada")
        expect(people.first.locator("td").nth(2)).to_have_text("1")


L = 2**62 + 5  # deal seeds past 2**53, where JavaScript's numbers lose digits
LONG_REASON = "error: FileNotFoundError: /home/student/" + "a_long_folder_name_" * 8 + "weights.npz"


@pytest.fixture(scope="module")
def penalised_server(tmp_path_factory):
    """Tournament 1: bob and cy level first, dee third, ada last; ada's and dee's games
    penalised for reasons of their own (dee's has HTML in it; ada has four). Tournament 2:
    no game penalised."""
    path = tmp_path_factory.mktemp("penalised-store") / "results.sqlite"
    players, systems, games = ["ada", "bob", "cy", "dee"], [AMERICAN, BRITISH], 6
    why = {("ada", "American"): ["error: A"] * 4 + ["error: B", "error: C"],
           ("ada", "British"): [LONG_REASON] * 2 + ["error: A"] * 4,
           ("dee", "American"): ["timeout: <b>x</b>"] * 2, ("dee", "British"): ["timeout: <b>x</b>"]}
    with ResultStore(path) as store:
        tid = store.open_tournament(players, systems, games, L, 1.0, 0.0)
        for system in systems:
            for p in players:
                run = store.open_run(p, p, system, L, games, 1.0, 0.0, tid)
                reasons = why.get((p, system.name), [])
                store.add_games(run, [GameRecord(i, L + i, {"ada": 1, "bob": 30, "cy": 30, "dee": 5}[p], [], 0.1,
                                                 reasons[i] if i < len(reasons) else None) for i in range(games)])
        tid = store.open_tournament(["bob", "cy"], [AMERICAN], 2, 0, 1.0, 0.0)
        for p in ("bob", "cy"):
            run = store.open_run(p, p, AMERICAN, 0, 2, 1.0, 0.0, tid)
            store.add_games(run, [GameRecord(i, i, 10 if p == "bob" else 5, [], 0.1) for i in range(2)])
    with serving(create_app(prep_s=1.0, think_s=1.0, game_s=5.0, store_path=path, record_games=False)) as url:
        yield url


def test_a_tournament_ranks_level_players_alike_and_says_why_games_were_penalised(
        context, penalised_server, axe):  # noqa: F811
    # The rank column was the listing order (bob 1, cy 2 on the same score), and a penalised
    # game was not on the page at all: a student scored 0 on a system could not learn why.
    page = open_page(context, penalised_server + "#results/tournament/1")
    table = page.locator("#tournament-table")
    expect(table.locator("tbody tr")).to_have_count(4)
    assert table.locator("tbody tr").evaluate_all("rs => rs.map(r => r.dataset.player)") == ["bob", "cy", "dee", "ada"]
    expect(table.locator("tbody td:first-child")).to_have_text(["1", "1", "3", "4"])  # as the command line ranks them
    # Each cell's penalised games, on the page (not in a tooltip a phone never shows).
    expect(table.locator('tr[data-player="dee"] small.penalised')).to_have_text(["2 penalised games",
                                                                                 "1 penalised game"])
    expect(table.locator('tr[data-player="ada"] small.penalised')).to_have_text(["6 penalised games"] * 2)
    expect(table.locator('tr[data-player="bob"] small.penalised')).to_have_count(0)
    section = page.locator("#tournament-penalties")
    expect(section.locator("h2")).to_have_text("Penalised games and why")
    # Per player and reason, most games first, three reasons at most; the seeds to the last digit.
    expect(section.locator("li")).to_have_text([
        f"ada: 8 games (American, British; seeds {L}, {L + 1}, {L + 2}, {L + 3}, {L + 4} and 1 more): error: A",
        f"ada: 2 games (British; seeds {L}, {L + 1}): {LONG_REASON}",
        f"ada: 1 game (American; seed {L + 4}): error: B",
        "ada: 1 more reason; the CSV of ada's games gives each game's",
        f"dee: 3 games (American, British; seeds {L}, {L + 1}): timeout: <b>x</b>"])
    expect(section.locator("b")).to_have_count(0)  # a player's text, never HTML
    csv = page.request.get(section.locator("a").evaluate("a => a.href"))
    assert csv.ok and "error: C" in csv.text() and "timeout" not in csv.text()  # ada's games, dee's not
    assert serious_violations(axe, page) == []
    # A phone: the long reason wraps, the table scrolls in its region; the page is no wider.
    page.set_viewport_size({"width": 360, "height": 740})
    expect(section).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert section.locator("li").evaluate_all("ls => ls.filter(l => l.scrollWidth > l.clientWidth + 1).length") == 0
    region = page.evaluate("document.querySelector('#tournament-table').closest('[role=region]').className")
    assert region == "table-scroll"
    # A tournament with no game penalised says nothing of them.
    page.set_viewport_size({"width": 1360, "height": 940})
    page.locator("tr[data-tournament='2']").click()
    expect(page.locator(".results-detail h2").first).to_have_text("Tournament 2")
    expect(table.locator("tbody td:first-child")).to_have_text(["1", "2"])
    expect(section).to_have_count(0)
    expect(table.locator("small.penalised")).to_have_count(0)
    assert not page.errors
