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
