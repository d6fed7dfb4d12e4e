"""A class in real Chromium: a student with two tabs, the server restarted mid-game, a
name typed after the page dealt, and what the teacher then reads on the Results page."""

from __future__ import annotations

import pytest

# test_browser's Chromium, one for the module, and a new context (its own storage) per test;
# importing it skips this module without Chromium or Playwright.
from .test_browser import browser, context  # noqa: F401

from playwright.sync_api import expect  # noqa: E402

from pokersquares.harness.store import ResultStore  # noqa: E402
from pokersquares.web import create_app  # noqa: E402

from .conftest import serving  # noqa: E402

# No test here reads the server's optimum of a finished game: it is solved in a moment.
pytestmark = pytest.mark.usefixtures("quick_optimum")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = tmp_path_factory.mktemp("class-browser") / "class.sqlite"
    app = create_app(agents={}, store_path=path)
    with serving(app) as url:
        yield app, url, path


def opened(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    return page


def click(page, cell):
    turn = page.evaluate("play.game.turn")
    page.click(f"#play-board button.cell[data-cell='{cell}']")
    page.wait_for_function(f"play.game.turn === {turn + 1}")


def test_a_daily_deal_stays_the_daily_deal_when_another_tab_deals(context, served):
    """One localStorage slot said which game was the daily deal: a second tab's new deal
    emptied it, and the first tab's daily deal lost its label (and its comparison with
    the agents at the end) at its next card."""
    _, url, _ = served
    first = opened(context, url)
    first.click("#play-daily")
    expect(first.locator("#play-info")).to_contain_text("Daily deal")
    click(first, 0)
    second = opened(context, url)
    second.evaluate("play.newGame()")
    second.wait_for_function("play.game.turn === 0")
    click(first, 1)
    expect(first.locator("#play-info")).to_contain_text("Daily deal")


def test_a_restart_mid_game_keeps_each_tabs_own_game_and_the_card_clicked(context, served):
    """The server restarted (it forgets its games): the next card clicked in a tab rebuilt
    the last game played in any tab, so a student's half-played daily deal became their
    other tab's game, with "start a new one" on the screen and the card lost. Now the
    tab rebuilds its own game, still the daily deal, and the card clicked is placed."""
    app, url, _ = served
    first = opened(context, url)
    first.click("#play-daily")
    expect(first.locator("#play-info")).to_contain_text("Daily deal")
    for cell in range(6):
        click(first, cell)
    seed = first.evaluate("play.game.seed_text")
    second = opened(context, url)
    second.evaluate("play.newGame()")
    second.wait_for_function("play.game.turn === 0")
    click(second, 24)  # the last game played anywhere is the second tab's
    app.state.games._games.clear()  # what a restart does to the games
    first.click("#play-board button.cell[data-cell='6']")
    first.wait_for_function("play.game.turn === 7", timeout=10_000)
    assert first.evaluate("play.game.moves") == list(range(7))
    assert first.evaluate("play.game.seed_text") == seed
    expect(first.locator("#play-info")).to_contain_text("Daily deal")
    expect(first.locator("#toast")).to_be_hidden()


def test_a_name_typed_after_the_deal_is_the_one_the_teacher_reads(context, served):
    """The page deals as it opens; a student who then typed a name and played was
    recorded as plain human. The run the teacher opens names the student too (it said
    "human" only)."""
    _, url, path = served
    page = opened(context, url)
    page.evaluate("play.newGame()")
    page.wait_for_function("play.game && play.game.turn === 0")
    page.fill("#play-name", "Grace Late")
    page.press("#play-name", "Tab")
    game = page.evaluate("play.game.id")
    for cell in range(25):
        click(page, cell)
    with ResultStore(path, readonly=True) as store:
        runs = [r for r in store.runs() if r.version == f"web:{game}"]
    assert [r.player_name for r in runs] == ["Grace Late"]
    page.goto(f"{url}#results/run/{runs[0].run_id}")
    expect(page.locator(".results-detail h2").first).to_contain_text("human (Grace Late)")


def test_two_students_on_one_computer_each_see_their_own_best_on_the_daily_deal(context, served):
    """"Your best today" on the daily deal was kept per browser: on a shared computer the
    second student was shown the first's best as their own."""
    import random

    from pokersquares import Game
    from pokersquares.web.daily import daily_deal
    from pokersquares.web.sessions import parse_system

    _, url, _ = served
    today = daily_deal()
    orders = [random.Random(k).sample(range(25), 25) for k in range(20)]

    def score(order):
        game = Game.from_seed(today["seed"], parse_system(today["system"]))
        for cell in order:
            game.play(*divmod(cell, 5))
        return game.score()

    orders.sort(key=score, reverse=True)
    better, worse = orders[0], orders[-1]
    assert score(better) > score(worse)
    page = opened(context, url)
    page.evaluate("""localStorage.setItem("ps.daily.best", JSON.stringify({'["2020-01-01","Ada"]': 99}))""")
    for name, order in (("Ada", better), ("Bo", worse)):
        page.fill("#play-name", name)
        page.press("#play-name", "Tab")
        page.click("#play-daily")
        page.wait_for_function("play.daily && play.game && play.game.turn === 0")
        for cell in order:
            click(page, cell)
        expect(page.locator("[data-daily-best]")).to_have_text(str(score(order)))
    kept = page.evaluate("""JSON.parse(localStorage.getItem("ps.daily.best"))""")
    assert kept == {f'["{today["date"]}","Ada"]': score(better), f'["{today["date"]}","Bo"]': score(worse)}  # not other days'
