"""The web app for people without a mouse on a large screen, in a real headless Chromium:
a whole game by the keyboard alone at 200 % zoom (with reduced motion), what a screen
reader is told, the heat map's text contrast measured from the rendered colours, and
no page wider than a 360 px phone."""

from __future__ import annotations

import re

import pytest

# test_browser's module fixtures (a server on a copy of the result store, one Chromium),
# one of each for this module too; importing it skips this module without a browser.
from tests.web.test_browser import browser, deal, open_page, place, server  # noqa: F401

from playwright.sync_api import expect  # noqa: E402

# No test here reads the server's optimum of a finished game: it is solved in a moment.
pytestmark = pytest.mark.usefixtures("quick_optimum")

ZOOM_200 = {"width": 680, "height": 470}  # a 1360x940 window at 200 %
PHONE = {"width": 360, "height": 740}


@pytest.fixture
def new_context(browser):
    made = []

    def make(**options):
        ctx = browser.new_context(**options)
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


FOCUSED = """(() => { const a = document.activeElement, r = a.getBoundingClientRect();
  const dock = document.querySelector('.hint-dock'), d = dock.getBoundingClientRect();
  const covered = getComputedStyle(dock).position === 'fixed' && d.height > 0 ? d.top : innerHeight;
  return { id: a.id, cell: a.dataset.cell === undefined ? null : Number(a.dataset.cell), onBoard: !!a.closest('#play-board'),
           top: r.top, bottom: r.bottom, visibleTo: Math.min(innerHeight, covered) }; })()"""


def test_a_whole_game_by_the_keyboard_alone_at_200_percent_zoom(new_context, server):
    ctx = new_context(viewport=ZOOM_200, device_scale_factor=2, reduced_motion="reduce")
    # Every scroll the page asks for, to see that none is animated under reduced motion.
    ctx.add_init_script("""window.scrolls = []; const s = Element.prototype.scrollIntoView;
      Element.prototype.scrollIntoView = function (o) { window.scrolls.push(o && o.behavior || 'auto'); return s.call(this, o); };""")
    page = open_page(ctx, server)
    # The point system's chips come a moment later and move the controls below them down.
    expect(page.locator("#play-system .preview li")).to_have_count(10)
    for _ in range(20):  # Tab to "Deal a new game" and press it
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "play-new":
            break
    focused = page.evaluate(FOCUSED)
    assert focused["id"] == "play-new" and focused["bottom"] <= focused["visibleTo"] + 1, focused
    dealt = page.text_content("#play-info [data-seed]")  # the page's first game, a random deal
    page.keyboard.press("Enter")
    expect(page.locator("#play-info [data-seed]")).not_to_have_text(dealt)
    # The arrows move the board's cursor and take the focus with them: Enter then places
    # the card there, rather than dealing again from the button left behind.
    page.evaluate("window.scrollTo(0, 0)")  # the board at the top of the window, its lower rows below it
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    focused = page.evaluate(FOCUSED)
    assert focused["onBoard"] and focused["cell"] == 22
    # ... and it is in view, not under the bottom of the window or the Hint bar.
    assert focused["top"] >= 0 and focused["bottom"] <= focused["visibleTo"] + 1, focused
    said = page.locator("#play-said")
    expect(said).to_contain_text("Next: ")
    for turn in range(25):
        page.keyboard.press("Enter")
        expect(page.locator("#play-board .cell.filled")).to_have_count(turn + 1)
        expect(said).to_contain_text(re.compile(r"placed in row \d, column \d\. Row \d: .*; column \d: .*; total -?\d+\."))
        if turn < 24:
            expect(said).to_contain_text(f"card {turn + 2} of 25.")
            focused = page.evaluate(FOCUSED)
            assert focused["onBoard"], focused  # the focus stays on the board, on an empty cell
            assert page.locator("#play-board .cell.filled:focus").count() == 0
    score = page.text_content("#play-final")
    expect(said).to_contain_text(f"Game over: final score {score}.")
    expect(page.locator("#play-over")).to_be_focused()
    expect(page.locator(".hint-dock")).to_be_hidden()  # a finished game's Hint bar would cover its result
    page.keyboard.press("Tab")
    expect(page.locator("#replay-agent")).to_be_focused()
    page.keyboard.press("Tab")
    focused = page.evaluate(FOCUSED)
    assert focused["id"] == "replay-go" and focused["bottom"] <= focused["visibleTo"] + 1, focused
    assert "smooth" not in page.evaluate("window.scrolls")
    # N deals a new game and the focus goes back to the board.
    page.keyboard.press("n")
    expect(page.locator("#play-board .cell.filled")).to_have_count(0)
    expect(page.locator("#play-board button.cell[tabindex='0']")).to_be_focused()
    assert not page.errors


def test_a_screen_reader_hears_a_placement_and_a_hint_but_not_each_cursor_move(new_context, server):
    page = open_page(new_context(viewport={"width": 1360, "height": 940}), server)
    deal(page, 11)
    page.focus("#play-board button.cell[tabindex='0']")
    # A live region that changes is read again: a cursor move must leave them all alone.
    page.evaluate("""window.liveChanges = 0; for (const r of document.querySelectorAll('[aria-live]'))
      new MutationObserver(() => { window.liveChanges += 1; }).observe(r, { childList: true, subtree: true, characterData: true });""")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    page.wait_for_timeout(100)
    assert page.evaluate("window.liveChanges") == 0
    card = page.get_attribute("#play-next .card", "aria-label")
    page.keyboard.press("Enter")
    expect(page.locator("#play-board .cell.filled")).to_have_count(1)
    said = page.locator("#play-said")
    expect(said).to_have_attribute("aria-live", "polite")
    expect(said).to_contain_text(f"{card} placed in row 2, column 4. Row 2: ")
    # The cells name their card or say they are empty; the hands and the total their score.
    expect(page.locator("#play-board .cell.filled")).to_have_attribute("aria-label", f"row 2, column 4: {card}")
    assert page.locator("#play-board button.cell[aria-label$=', empty']").count() == 24
    expect(page.locator("#play-board [data-line='row-1']")).to_have_attribute("aria-label", re.compile(r"^row 2: .+, -?\d+ points$"))
    expect(page.locator("#play-board [data-total]")).to_have_attribute("aria-label", re.compile(r"^total -?\d+$"))
    # A hint's answer names the card in words, not as "5H".
    page.select_option("#play-agent", "greedy")
    page.focus("#play-board button.cell[tabindex='0']")
    next_card = page.get_attribute("#play-next .card", "aria-label")
    page.keyboard.press("h")
    expect(page.locator("#play-hint-status")).to_contain_text(f"greedy would place {next_card} at row ")
    expect(page.locator("#play-board .cell.choice")).to_have_attribute("aria-label", re.compile(r"estimate [\d.]+, the agent's choice$"))
    assert not page.errors


CONTRAST = """(els) => {
  const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                       return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ground = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length === 3 || c[3] > 0) return c; } return [255, 255, 255]; };
  return els.map((e) => { const a = lum(rgb(getComputedStyle(e).color)), b = lum(ground(e));
                          return [e.textContent, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]; });
}"""


def test_text_on_the_heat_map_and_the_best_grid_reads_at_4_5_to_1(new_context, server):
    page = open_page(new_context(viewport={"width": 1360, "height": 940}), server)
    deal(page, 7)
    page.select_option("#play-agent", "greedy")
    page.click("#play-hint")
    expect(page.locator("#play-board .cell.heat")).to_have_count(25)
    ratios = page.eval_on_selector_all("#play-board .cell.heat .value", CONTRAST)
    assert len(ratios) == 25 and min(r for _, r in ratios) >= 4.5, ratios
    expect(page.locator("#play-board .cell.choice")).to_have_count(1)  # the choice is starred, not only coloured
    assert page.eval_on_selector("#play-board .cell.choice", "c => getComputedStyle(c, '::after').content") == '"★"'
    # The best grid of a finished deal: its cards and hands on the felt.
    grid = ["AS", "KS", "QS", "JS", "TS", "AH", "KH", "QH", "JH", "TH", "AD", "KD", "QD", "JD", "TD",
            "AC", "KC", "QC", "JC", "TC", "2S", "3H", "4D", "5C", "6S"]
    lines = [{"hand": "royal flush", "points": 100}] * 4 + [{"hand": "high card", "points": 0}] * 6
    page.route("**/api/optimum?*", lambda route: route.fulfill(json={
        "score": 400, "bound": 400, "proven": True, "grid": grid, "view": {"lines": lines}}))
    for cell in range(25):
        place(page, cell)
    page.click("[data-role=optimum-show]")
    ratios = page.eval_on_selector_all("#optimum-panel .optimum-card, #optimum-panel .optimum-hand", CONTRAST)
    assert len(ratios) == 35 and min(r for _, r in ratios) >= 4.5, sorted(ratios, key=lambda x: x[1])[:3]
    assert not page.errors


WIDER = """(() => [document.documentElement.scrollWidth, innerWidth,
  [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1
    && !e.closest('.table-scroll, .chart-scroll')).slice(0, 5).map((e) => e.tagName + '.' + (e.className.baseVal ?? e.className))])()"""


def test_nothing_is_wider_than_a_360_px_phone(new_context, server):
    page = open_page(new_context(viewport=PHONE, device_scale_factor=2, has_touch=True), server)
    deal(page, 3)
    page.select_option("#play-agent", "greedy")
    page.click("#play-hint")
    expect(page.locator("#play-board .cell.heat")).to_have_count(25)
    width, inner, wide = page.evaluate(WIDER)
    assert width <= inner and not wide, wide
    page.click("#tab-watch")
    expect(page.locator("#watch-board")).to_be_visible()
    width, inner, wide = page.evaluate(WIDER)
    assert width <= inner and not wide, wide
    # The Results page with the runs against their deals' optima (a wide table).
    run = {"run_id": 1, "player": "greedy", "system": "American", "deals": 4, "proven": 0, "mean_optimum": 170.25,
           "mean_score": 81.5, "fraction": 0.479, "fraction_stderr": 0.021, "regret": 88.75, "regret_stderr": 3.25}
    page.route("**/api/optimum/regret", lambda route: route.fulfill(json={"runs": [run, {**run, "run_id": 2}]}))
    page.click("#tab-results")
    expect(page.locator("#optimum-results tr[data-run]")).to_have_count(2)
    expect(page.locator("#tournament-table")).to_be_visible()
    width, inner, wide = page.evaluate(WIDER)
    assert width <= inner and not wide, wide
    assert not page.errors


def test_the_section_tabs_answer_the_arrow_keys(new_context, server):
    page = open_page(new_context(viewport={"width": 1360, "height": 940}), server)
    cursor = page.get_attribute("#play-board .cell.cursor", "data-cell")
    page.focus("#tab-play")
    page.keyboard.press("ArrowRight")  # to Watch, not the board's cursor
    expect(page.locator("#tab-watch")).to_be_focused()
    expect(page.locator("#tab-watch")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#view-watch")).to_be_visible()
    page.keyboard.press("End")
    expect(page.locator("#tab-results")).to_be_focused()
    expect(page.locator("#view-results")).to_be_visible()
    expect(page.locator("#tournament-table")).to_be_visible()
    page.keyboard.press("ArrowRight")  # round to the first
    expect(page.locator("#tab-play")).to_be_focused()
    expect(page.locator("#view-play")).to_be_visible()
    expect(page.locator("#tab-play")).to_have_attribute("aria-controls", "view-play")
    assert page.get_attribute("#play-board .cell.cursor", "data-cell") == cursor
    assert not page.errors


@pytest.mark.parametrize("view", ["play", "results"])
def test_the_first_tab_stop_skips_the_header_to_the_tab_shown(new_context, server, view):
    """A keyboard's first Tab shows the skip link; Enter takes the focus to the tab shown,
    past the header and its tabs, and leaves the page's address as it was."""
    page = open_page(new_context(viewport=PHONE), server + f"#{view}")
    if view == "results":  # the last tournament opens, and its address with it
        expect(page.locator("#tournament-table")).to_be_visible()
    address = page.evaluate("location.hash")
    page.keyboard.press("Tab")
    link = page.locator("#skip-link")
    expect(link).to_be_focused()
    box = link.bounding_box()
    assert box is not None and box["y"] >= 0 and box["height"] > 0  # on screen while focused
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == f"view-{view}"
    assert page.evaluate("location.hash") == address
    assert page.locator(f"#view-{view}").is_visible()
    page.keyboard.press("Tab")  # the next stop is inside the tab shown, not the header's tabs
    assert page.evaluate(f"!!document.activeElement.closest('#view-{view}')")
