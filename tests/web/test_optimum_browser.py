"""The "Best possible for this deal" panel in a real headless Chromium: after a game on
the Play page it shows the deal's optimum and, on request, its grid; the Results page
shows runs against their deals' optima."""

from __future__ import annotations

import re

import shutil

import pytest

# test_browser's Chromium, one for the module, and a new context per test; importing it
# skips this module without Chromium or Playwright.
from tests.web.test_browser import browser, context, deal, open_page, place  # noqa: F401

from playwright.sync_api import expect  # noqa: E402

from pokersquares.cards import deal as deal_cards  # noqa: E402
from pokersquares.optimum import Optimum  # noqa: E402
from pokersquares.optimum.search import local_search  # noqa: E402
from pokersquares.optimum.store import OptimaStore  # noqa: E402
from pokersquares.points import AMERICAN, single_hand_system  # noqa: E402
from pokersquares.web import create_app  # noqa: E402

from .conftest import serving  # noqa: E402

FLUSH = single_hand_system("flush")


@pytest.fixture(scope="module")
def optimum_server(result_store, tmp_path_factory):
    store = tmp_path_factory.mktemp("optimum-browser") / "results.sqlite"
    shutil.copyfile(result_store, store)
    with OptimaStore(store) as optima:
        for seed in range(4):  # the fixture's American tournament deals: a quick best grid, unproven
            score, grid = local_search(deal_cards(seed)[:25], AMERICAN.points, restarts=1, steps=20_000)
            optima.put(Optimum(seed, "American", AMERICAN.points, score, 10 * 100, False, grid, 0.1, score), 1)
    with serving(create_app(prep_s=1.0, think_s=1.0, store_path=store)) as url:
        yield url


def test_after_a_game_the_panel_shows_the_optimum_and_its_grid(context, optimum_server):
    page = open_page(context, optimum_server)
    page.select_option("#play-system [data-role=kind]", "single")
    page.select_option("#play-system [data-role=hand]", "flush")
    deal(page, 2, system="single")
    panel = page.locator("#optimum-panel")
    for cell in range(25):
        expect(panel).to_be_hidden()
        place(page, cell)
    expect(panel.locator("[data-role=optimum-score]")).to_have_text("3", timeout=90_000)
    expect(panel).to_contain_text("proven optimal")
    panel.locator("[data-role=optimum-show]").click()
    grid = panel.locator("[data-role=optimum-grid]")
    expect(grid).to_be_visible()
    assert grid.locator(".optimum-card").count() == 25
    page.click("#tab-results")
    rows = page.locator("#optimum-results tr[data-run]")
    expect(rows.first).to_be_visible()
    assert rows.count() >= 2
    assert page.errors == []


def test_a_busy_solver_is_asked_again_and_the_panel_says_so(context, optimum_server):
    context.clock.install()  # the page's timers: its wait before asking again is run ahead below
    page = open_page(context, optimum_server)
    asked = []

    def busy_once(route):
        asked.append(route.request.headers.get("x-client"))
        if len(asked) == 1:
            route.fulfill(status=503, content_type="application/json",
                          body='{"detail": "the optimum solver is busy with 3 deals; try again in a few seconds"}')
        else:
            route.continue_()

    page.route("**/api/optimum?*", busy_once)
    page.select_option("#play-system [data-role=kind]", "single")
    page.select_option("#play-system [data-role=hand]", "flush")
    deal(page, 7, system="single")  # not the first test's deal, whose optimum the server already has
    for cell in range(25):
        place(page, cell)
    panel = page.locator("#optimum-panel")
    expect(panel).to_contain_text("asking again in 3 s", timeout=30_000)
    page.clock.run_for(3000)
    expect(panel.locator("[data-role=optimum-score]")).to_have_text(re.compile(r"^\d+$"), timeout=90_000)
    expect(panel).to_contain_text("proven optimal")
    assert len(asked) == 2 and asked[0] and asked[0] == asked[1]  # the tab's own client id, both times
    assert page.errors == []
