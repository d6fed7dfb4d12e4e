"""What a person meets in the browser beyond the happy path: keys on links, answers that
arrive late, a server busy while the page loads, long agent names on a phone, Pause and
Play pressed quickly, and where the keyboard focus goes when a game ends. Every flow
also checks the console: no JavaScript error and no unhandled promise rejection.

The server, browser and helpers are test_browser.py's."""

from __future__ import annotations

import json

import pytest

from tests.web.test_browser import ARGS, CHROMIUM, browser, context, deal, place, server  # noqa: F401

from playwright.sync_api import expect  # noqa: E402

from pokersquares.web import create_app  # noqa: E402

from .conftest import serving  # noqa: E402

# No test here reads the server's optimum of a finished game: it is solved in a moment.
pytestmark = pytest.mark.usefixtures("quick_optimum")

LONG = "W" * 40  # the longest agent name the API takes, in the widest letter
PHONE = {"width": 375, "height": 667}
SLOW = 120_000  # a loaded two-core machine is slow

# Answers to requests whose URL contains ``part`` are held from the page until the test lets
# them go (let_held_answers_go), or stops holding them: holdAnswers(false) delivers those
# held and passes the later ones, holdAnswers(true) holds them again. The page's
# window.heldAnswers counts those waiting, window.lateAnswers those delivered late.
HOLD_ANSWERS = """(part) => {
  const f = window.fetch;
  let open, gate, holding = true;
  const close = () => { gate = new Promise((s) => { open = s; }); window.heldAnswers = 0; };
  close();
  window.lateAnswers = 0;
  window.letHeldAnswersGo = () => { open(); close(); };
  window.holdAnswers = (on) => { holding = on; if (!on) window.letHeldAnswersGo(); };
  window.fetch = async (url, init) => {
    const r = await f(url, init);
    if (holding && String(url).includes(part)) { window.heldAnswers += 1; await gate; window.lateAnswers += 1; }
    return r;
  };
}"""


def let_held_answers_go(page, more=True):
    """Once an answer is held (HOLD_ANSWERS), deliver those held; with ``more`` the later
    ones are held too, else passed."""
    page.wait_for_function("window.heldAnswers >= 1", timeout=SLOW)
    page.evaluate("more => more ? letHeldAnswersGo() : holdAnswers(false)", more)


def open_watched(ctx, url, ready=True):
    """A page whose JavaScript errors, unhandled rejections and console errors are kept in
    ``page.problems`` (not the browser's own line for each 4xx/5xx answer)."""
    page = ctx.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("console", lambda m: problems.append(f"console: {m.text}")
            if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    page.goto(url)
    if ready:
        page.wait_for_selector("body[data-ready=true]", timeout=SLOW)
    page.problems = problems
    return page


def filled(page, board="#play-board"):
    return page.locator(f"{board} .cell.filled")


def test_enter_and_space_on_a_link_or_the_how_to_do_what_they_say_not_place_a_card(context, server):
    page = open_watched(context, server)
    deal(page, 41)
    page.focus("#tab-watch")
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-view", "watch")
    assert page.evaluate("play.game.turn") == 0  # no card was placed behind the person's back
    page.focus("#tab-play")
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-view", "play")
    page.focus("#how-to summary")
    page.keyboard.press("Enter")
    expect(page.locator("#how-to")).to_have_js_property("open", True)
    page.keyboard.press(" ")
    expect(page.locator("#how-to")).to_have_js_property("open", False)
    expect(filled(page)).to_have_count(0)
    assert page.evaluate("play.game.turn") == 0
    assert not page.problems


def test_a_new_game_dealt_while_a_card_is_on_its_way_stays(context, server):
    page = open_watched(context, server)
    deal(page, 31)
    place(page, 0)
    page.evaluate(HOLD_ANSWERS, "/place")
    page.click("#play-board button.cell[data-cell='1']")
    deal(page, 32)  # asks first (a card is down), then deals before the slow answer arrives
    let_held_answers_go(page, more=False)
    page.wait_for_function("window.lateAnswers >= 1", timeout=SLOW)
    page.wait_for_timeout(300)
    expect(page.locator("#play-info [data-seed]")).to_have_text("32")
    expect(filled(page)).to_have_count(0)
    assert page.evaluate("sessionStorage.getItem('ps.play.id') === play.game.id")
    place(page, 5)  # the new game goes on
    assert not page.problems


def test_a_server_busy_or_unreachable_while_the_page_loads_is_asked_again(context, server):
    answers = []

    def flaky(route):
        answers.append(route.request.url)
        if len(answers) == 1:
            route.abort()  # the server is restarting: no connection
        elif len(answers) == 2:
            route.fulfill(status=503, content_type="application/json",
                          body=json.dumps({"detail": "the server is busy; try again in a moment"}))
        else:
            route.continue_()

    context.route("**/api/config", flaky)
    try:
        page = open_watched(context, server, ready=False)
        expect(page.locator("#toast")).to_contain_text("asking again", timeout=SLOW)
        page.wait_for_selector("body[data-ready=true]", timeout=SLOW)
    finally:
        context.unroute("**/api/config", flaky)
    assert len(answers) >= 3
    deal(page, 5)
    place(page, 12)  # the page works
    assert not page.problems


def test_pause_then_play_at_once_goes_on_and_a_step_after_a_new_deal_is_taken(context, server):
    page = open_watched(context, server + "#watch")
    page.select_option("#watch-agent", "greedy")
    page.eval_on_selector("#watch-speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')); }")
    deal(page, 6, prefix="watch")
    page.evaluate(HOLD_ANSWERS, "/agent-move")
    button = page.locator("#watch-play")
    button.click()
    expect(page.locator("#watch-status")).to_contain_text("is thinking")
    button.click()  # Pause, and at once Play again, while the move is on its way
    expect(button).to_contain_text("Play")
    button.click()
    expect(button).to_contain_text("Pause")
    for _ in range(3):  # three moves, one at a time; the fourth is held: the watch still plays
        let_held_answers_go(page)
    page.wait_for_function("document.querySelectorAll('#watch-board .cell.filled').length >= 3", timeout=SLOW)
    expect(button).to_contain_text("Pause")
    button.click()
    expect(button).to_contain_text("Play")
    page.evaluate("holdAnswers(false)")  # the move on its way arrives

    # A Step, a new deal before its answer, then Step on the new deal: it is taken.
    page.wait_for_function("!watch.wait", timeout=SLOW)
    page.evaluate("holdAnswers(true)")  # the Step's answer, until the new deal's Step is clicked
    page.click("#watch-step")
    expect(page.locator("#watch-status")).to_contain_text("is thinking")
    deal(page, 7, prefix="watch")
    expect(filled(page, "#watch-board")).to_have_count(0)
    page.click("#watch-step")
    page.evaluate("holdAnswers(false)")
    expect(filled(page, "#watch-board")).to_have_count(1, timeout=SLOW)
    expect(page.locator("#watch-info [data-seed]")).to_have_text("7")
    assert not page.problems


def test_the_keyboard_focus_goes_to_the_result_and_back_to_the_board(context, server):
    page = open_watched(context, server)
    deal(page, 17)
    page.focus("#play-board button.cell[tabindex='0']")
    for turn in range(25):
        page.keyboard.press("Enter")
        expect(filled(page)).to_have_count(turn + 1)
    expect(page.locator("#play-over")).to_be_visible()
    # The focus is on the result (not lost to the page), and Tab goes on to its controls.
    page.wait_for_function("document.activeElement && document.activeElement.closest('#play-over') !== null")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#play-over') !== null")
    page.focus("#play-again")
    page.keyboard.press("Enter")
    expect(filled(page)).to_have_count(0)
    expect(page.locator("#play-over")).to_be_hidden()
    page.wait_for_function("document.activeElement && document.activeElement.closest('#play-board') !== null")
    page.keyboard.press("Enter")  # and play goes on from the keyboard
    expect(filled(page)).to_have_count(1)
    assert not page.problems


# -- a phone, and an agent with the longest name the API takes ------------------------------------

@pytest.fixture(scope="module")
def long_name_server():
    from pokersquares.web.agents import AgentSpec, registered_agents

    agents = registered_agents()
    agents[LONG] = AgentSpec(agents["greedy"].factory, "greedy under the longest name", 1)
    with serving(create_app(agents=agents, prep_s=1.0, think_s=1.0, game_s=5.0)) as url:
        yield url


OUTSIDE = """() => { const w = document.documentElement.clientWidth, out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('.chart-scroll, .table-scroll')) continue;
    const r = e.getBoundingClientRect();
    if (r.width && r.height && (r.right > w + 1 || r.left < -1)) out.push(`${e.tagName.toLowerCase()}#${e.id}.${e.className}`);
  }
  return { scroll: document.documentElement.scrollWidth, width: w, out: out.slice(0, 8) }; }"""


def assert_nothing_cut_off(page):
    found = page.evaluate(OUTSIDE)
    assert found["scroll"] <= found["width"] and not found["out"], found


def test_a_long_agent_name_on_a_phone_cuts_nothing_off(browser, long_name_server):  # noqa: F811
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        page = open_watched(ctx, long_name_server)
        deal(page, 19)
        page.select_option("#play-agent", LONG)
        for cell in (0, 6, 12):
            page.tap(f"#play-board button.cell[data-cell='{cell}']")
            expect(filled(page)).to_have_count(cell // 6 + 1)
        page.click("#play-hint")
        expect(page.locator("#play-hint-status")).to_contain_text("would place", timeout=SLOW)
        expect(page.locator("#play-legend")).to_be_visible()
        assert_nothing_cut_off(page)
        expect(page.locator("#play-hint")).to_be_in_viewport()
        for cell in range(25):
            if page.locator(f"#play-board button.cell[data-cell='{cell}']").count():
                before = filled(page).count()
                page.tap(f"#play-board button.cell[data-cell='{cell}']")
                expect(filled(page)).to_have_count(before + 1)
        expect(page.locator("#play-over")).to_be_visible()
        page.select_option("#replay-agent", LONG)
        assert_nothing_cut_off(page)
        page.tap("#replay-go")
        expect(page.locator("#replay")).to_be_visible(timeout=SLOW)
        expect(page.locator("#replay-status")).to_contain_text(LONG)
        assert_nothing_cut_off(page)
        page.tap("#play-again")  # the end of the game: a new one works on the phone too
        expect(filled(page)).to_have_count(0)

        page.click("#tab-watch")
        page.select_option("#watch-agent", LONG)
        page.tap("#watch-step")
        expect(filled(page, "#watch-board")).to_have_count(1, timeout=SLOW)
        expect(page.locator("#watch-legend")).to_be_visible()
        assert_nothing_cut_off(page)
        assert not page.problems
    finally:
        ctx.close()


def test_the_results_show_the_run_clicked_last_not_the_one_answered_last(context, server):
    page = open_watched(context, server + "#results")
    rows = page.locator(".results-list tr[data-run]")
    expect(rows.first).to_be_visible(timeout=SLOW)
    first, second = rows.nth(0).get_attribute("data-run"), rows.nth(1).get_attribute("data-run")
    # The first run's answer comes late, after the second's.
    page.evaluate(HOLD_ANSWERS, f"/api/results/runs/{first}")
    page.click(f".results-list tr[data-run='{first}']")
    page.click(f".results-list tr[data-run='{second}']")
    expect(page.locator(".results-detail h2").first).to_contain_text(f"Run {second}:")
    let_held_answers_go(page, more=False)
    page.wait_for_function("window.lateAnswers >= 1", timeout=SLOW)
    page.wait_for_timeout(300)
    expect(page.locator(".results-detail h2").first).to_contain_text(f"Run {second}:")
    assert page.evaluate("location.hash") == f"#results/run/{second}"
    expect(page.locator(".results-list tr.selected")).to_have_attribute("data-run", second)
    assert not page.problems


def test_a_slow_card_shows_where_it_goes_and_a_failed_one_says_so_once(context, server):
    page = open_watched(context, server)
    deal(page, 43)
    page.evaluate(HOLD_ANSWERS, "/place")
    page.click("#play-board button.cell[data-cell='4']")
    # While the server answers, the cell clicked says it is on its way (and the board is busy).
    expect(page.locator("#play-board .cell.pending[data-cell='4']")).to_have_count(1)
    expect(page.locator("#play-board")).to_have_attribute("aria-busy", "true")
    page.click("#play-board button.cell[data-cell='9']")  # one card at a time: not taken
    let_held_answers_go(page, more=False)
    expect(page.locator("#play-board .cell.filled[data-cell='4']")).to_have_count(1, timeout=SLOW)
    expect(filled(page)).to_have_count(1)
    expect(page.locator("#play-board .cell.pending")).to_have_count(0)
    expect(page.locator("#play-board")).not_to_have_attribute("aria-busy", "true")

    # A failed placement: one message; the next card that lands takes the stale message away.
    page.route("**/place", lambda r: r.fulfill(status=500, content_type="application/json",
                                               body=json.dumps({"detail": "internal error: RuntimeError: boom"})))
    page.click("#play-board button.cell[data-cell='9']")
    expect(page.locator("#toast")).to_have_text("internal error: RuntimeError: boom")
    expect(page.locator("#play-board .cell.pending")).to_have_count(0)
    page.unroute("**/place")
    page.click("#play-board button.cell[data-cell='9']")
    expect(filled(page)).to_have_count(2, timeout=SLOW)
    expect(page.locator("#toast")).to_be_hidden()
    assert not page.problems


COVERED = """() => {
  const dock = document.querySelector('.hint-dock').getBoundingClientRect(), out = [];
  for (const e of document.querySelectorAll('main *')) {
    if (e.closest('.hint-dock') || !e.offsetParent || e.childElementCount) continue;  // lines, not boxes
    const r = e.getBoundingClientRect();
    if (r.height && r.bottom > dock.top + 1 && r.top < dock.bottom) out.push(`${e.tagName.toLowerCase()}#${e.id}`);
  }
  return { dock: dock.height, covered: out.slice(0, 8) }; }"""


@pytest.mark.parametrize("words", [3, 150])
def test_the_hint_bar_on_a_phone_covers_no_line_of_the_page_scrolled_to_its_end(browser, server, words):  # noqa: F811
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        page = open_watched(ctx, server)
        deal(page, 23)
        # an agent's answer or failure can be long: the bar grows, the page makes room for it
        page.evaluate(f"document.getElementById('play-hint-status').textContent = 'a long message '.repeat({words})")
        page.evaluate("document.querySelector('#how-to').open = true")
        page.wait_for_timeout(300)  # the page answers the bar's new height on its next frame
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        found = page.evaluate(COVERED)
        assert found["dock"] <= 0.4 * PHONE["height"] and not found["covered"], found
        expect(page.locator("#play-hint")).to_be_in_viewport()
        assert not page.problems
    finally:
        ctx.close()


# Every message the page shows, kept in window.toastsSeen (a message may hide itself again soon).
TOASTS_SEEN = """() => { window.toastsSeen = []; const t = document.getElementById('toast');
  new MutationObserver(() => { if (!t.hidden) window.toastsSeen.push(t.textContent); })
    .observe(t, { attributes: true, childList: true, characterData: true, subtree: true }); }"""


def test_a_card_whose_answer_is_lost_or_refused_for_a_moment_is_asked_again_and_lands_once(context, server):
    page = open_watched(context, server)
    deal(page, 47)
    page.evaluate(TOASTS_SEEN)
    asked = []

    def busy_twice(route):  # a proxy before the server, busy for a moment
        asked.append(route.request.url)
        if len(asked) <= 2:
            route.fulfill(status=503, content_type="application/json", body=json.dumps({"detail": "busy"}))
        else:
            route.continue_()

    page.route("**/place", busy_twice)
    page.click("#play-board button.cell[data-cell='3']")
    expect(page.locator("#play-board .cell.filled[data-cell='3']")).to_have_count(1, timeout=SLOW)
    assert len(asked) == 3
    expect(page.locator("#toast")).to_be_hidden()
    page.unroute("**/place")

    lost = []

    def lands_but_answer_lost(route):  # the card is placed, the answer never arrives
        if not lost:
            lost.append(route.fetch().status)
            route.abort("connectionreset")
        else:
            lost.append("again")
            route.continue_()

    page.route("**/place", lands_but_answer_lost)
    page.click("#play-board button.cell[data-cell='8']")
    expect(page.locator("#play-board .cell.filled[data-cell='8']")).to_have_count(1, timeout=SLOW)
    expect(filled(page)).to_have_count(2)
    assert lost == [200, "again"] and page.evaluate("play.game.turn") == 2  # one card, not two
    expect(page.locator("#toast")).to_be_hidden()
    page.unroute("**/place")

    refused = []
    page.route("**/place", lambda r: (refused.append(1), r.fulfill(status=503, content_type="application/json",
                                                                   body=json.dumps({"detail": "still busy"}))))
    page.click("#play-board button.cell[data-cell='13']")
    expect(page.locator("#toast")).to_have_text("still busy", timeout=SLOW)
    assert len(refused) == 4  # a few tries, then one message
    assert page.evaluate("window.toastsSeen") == ["still busy"]  # none before, not even for a moment
    expect(page.locator("#play-board .cell.pending")).to_have_count(0)
    expect(filled(page)).to_have_count(2)
    assert not page.problems


def test_a_card_placed_while_its_hint_is_prepared_drops_that_hint_and_h_asks_about_the_next(context, server):
    """Hint asked while the agent prepares, then the card placed elsewhere: the page went on
    asking about the card already played, showed the server's refusal in red ("this
    request is about turn 0, but the game is at turn 1") and ignored Hint for the new
    card until then."""
    page = open_watched(context, server)
    deal(page, 53)
    page.select_option("#play-agent", "greedy")
    preparing, asked, held = [True], [], []

    def hint(route):
        asked.append((preparing[0], json.loads(route.request.post_data)["turn"]))
        if preparing[0] and len(asked) == 2:
            held.append(route)  # on its way while the card is placed; it reaches the server after
        elif preparing[0]:  # the agent learns the point system: the page is told to ask again
            route.fulfill(status=202, content_type="application/json",
                          body=json.dumps({"detail": "greedy is learning this point system", "waited": 0.5}))
        else:
            route.continue_()

    page.route("**/hint", hint)
    page.click("#play-hint")
    expect(page.locator("#play-hint-status")).to_contain_text("learning")
    while not held:
        page.wait_for_timeout(50)
    page.click("#play-board button.cell[data-cell='0']")
    expect(filled(page)).to_have_count(1)
    held[0].continue_()  # the server refuses it: the game is at turn 1 now
    page.wait_for_timeout(1000)  # its answer, and a poll about the old card, would have come by now
    expect(page.locator("#play-hint-status")).not_to_contain_text("turn")
    preparing[0] = False
    page.click("#play-hint")
    expect(page.locator("#play-hint-status")).to_contain_text("would place", timeout=SLOW)
    expect(page.locator("#play-board .cell.heat").first).to_be_visible()
    page.wait_for_timeout(500)
    expect(page.locator("#play-hint-status")).not_to_have_class("note error")
    assert [turn for was_preparing, turn in asked if not was_preparing] == [1], asked
    assert page.evaluate("play.hint.turn") == 1
    page.unroute("**/hint")
    assert not page.problems


def test_a_name_cleared_before_a_card_is_placed_is_sent_as_no_name(context, server):
    """The name recorded is the one in *Your name* when the game ends: cleared, the page
    sent no name at all, which the server read as "unchanged" (the old name stayed)."""
    page = open_watched(context, server)
    page.fill("#play-name", "Ada")
    deal(page, 59)
    page.fill("#play-name", "")
    with page.expect_request("**/place") as placed:
        page.click("#play-board button.cell[data-cell='0']")
    assert json.loads(placed.value.post_data)["name"] == ""
    expect(filled(page)).to_have_count(1)
    assert not page.problems


# -- a server that forgets games (restarted, or making room) -------------------------------------

@pytest.fixture(scope="module")
def forgetful_server():
    """A server that holds two games: two dealt elsewhere drop a page's."""
    from pokersquares.web.agents import registered_agents

    agents = {name: spec for name, spec in registered_agents().items() if name in ("greedy", "gettysburg")}
    with serving(create_app(agents=agents, max_games=2, prep_s=0.5, think_s=1.0, game_s=5.0)) as url:
        yield url


def forget_the_game(page, url):
    for _ in range(2):
        assert page.request.post(url + "api/games", data={"system": "british"}).status == 201


def test_a_game_the_server_forgot_is_rebuilt_for_a_hint_a_replay_and_a_review(browser, forgetful_server):
    """A placement on a game the server forgot rebuilt it from the page's moves, but Hint,
    Replay and Review said "no such game on the server ...; start a new one": the person
    who followed that advice lost a game the page could rebuild."""
    ctx = browser.new_context(viewport={"width": 1360, "height": 940})
    try:
        page = open_watched(ctx, forgetful_server)
        deal(page, 61)
        for cell in range(3):
            page.click(f"#play-board button.cell[data-cell='{cell}']")
            expect(filled(page)).to_have_count(cell + 1)
        forget_the_game(page, forgetful_server)
        page.select_option("#play-agent", "greedy")
        page.click("#play-hint")
        expect(page.locator("#play-hint-status")).to_contain_text("would place", timeout=SLOW)
        expect(page.locator("#play-board .cell.heat").first).to_be_visible()
        for cell in range(3, 25):
            page.click(f"#play-board button.cell[data-cell='{cell}']")
            expect(filled(page)).to_have_count(cell + 1)
        forget_the_game(page, forgetful_server)
        page.select_option("#replay-agent", "greedy")
        page.click("#replay-go")
        expect(page.locator("#replay")).to_be_visible(timeout=SLOW)
        expect(page.locator("#replay-status")).not_to_have_class("note error")
        forget_the_game(page, forgetful_server)
        page.select_option("#review-agent", "gettysburg")
        page.click("#review-go")
        expect(page.locator("#review-status")).to_contain_text("would have played", timeout=SLOW)
        expect(page.locator("#play-info [data-seed]")).to_have_text("61")
        assert page.evaluate("play.game.moves") == list(range(25))
        assert not page.problems
    finally:
        ctx.close()


# -- a result store that cannot take a finished game yet ------------------------------------------

def test_a_game_the_result_store_cannot_take_yet_is_said_under_the_score(browser, tmp_path, monkeypatch):  # noqa: F811
    """Another process holds the store's write lock when the last card lands: the page
    said nothing (the game looked saved, and was lost). It says the game is not saved
    yet; a game recorded, or the next deal, shows no such line."""
    import sqlite3

    from pokersquares.web import results as web_results

    monkeypatch.setattr(web_results, "RECORD_WAIT_S", 0.3)
    path = tmp_path / "store.sqlite"
    notice = "Not saved yet: the result store is busy; the server will try again."

    def finish(page, seed):
        deal(page, seed)
        page.focus("#play-board button.cell[tabindex='0']")
        for turn in range(25):
            page.keyboard.press("Enter")
            expect(filled(page)).to_have_count(turn + 1, timeout=SLOW)
        expect(page.locator("#play-over")).to_be_visible()

    with serving(create_app(agents={}, store_path=path)) as url:
        ctx = browser.new_context(viewport={"width": 1360, "height": 940})
        try:
            page = open_watched(ctx, url)
            finish(page, 61)
            expect(page.locator("#play-record")).to_be_empty()
            lock = sqlite3.connect(path, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")
            try:
                finish(page, 62)
                expect(page.locator("#play-record")).to_have_text(notice)
                expect(page.locator("#play-record")).to_be_visible()
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            page.click("#play-again")
            expect(filled(page)).to_have_count(0)
            expect(page.locator("#play-record")).to_be_empty()
            finish(page, 63)
            expect(page.locator("#play-record")).to_be_empty()
            assert not page.problems
        finally:
            ctx.close()
