"""The web app end to end in a real headless Chromium (Debian's ``chromium``, driven by
Playwright's Python client; no browser download): a full game by mouse and keyboard,
a hint, a replay, a reload, two tabs, watching an agent and the Results page.

With ``POKERSQUARES_SCREENSHOTS=1`` screenshots go to ``artifacts/screenshots/`` (up to
a second each on a busy machine, so not taken otherwise). With ``POKERSQUARES_DOC_IMAGES=1``
they are taken and the README's images in ``docs/images/`` refreshed too.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from pokersquares import AMERICAN, HAND_NAMES, Game, card_name, parse_card
from pokersquares.game import cell_of
from pokersquares.players import GreedyPlayer

CHROMIUM = "/usr/bin/chromium"
IN_CI = os.environ.get("CI", "").lower() == "true"
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
DOC_IMAGES = ROOT / "docs" / "images"
REFRESH_DOC_IMAGES = os.environ.get("POKERSQUARES_DOC_IMAGES") == "1"
TAKE_SCREENSHOTS = os.environ.get("POKERSQUARES_SCREENSHOTS") == "1" or REFRESH_DOC_IMAGES
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

if not IN_CI:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (run .ci/install-web-deps)",
                    allow_module_level=True)
    pytest.importorskip("playwright", reason="browser tests need Playwright's Python client (.ci/install-web-deps)")

from playwright.sync_api import Error as PlaywrightError, expect, sync_playwright  # noqa: E402

from pokersquares.web import create_app  # noqa: E402

from .conftest import serving  # noqa: E402

# No test here reads the server's optimum of a finished game: it is solved in a moment.
pytestmark = pytest.mark.usefixtures("quick_optimum")


@contextlib.contextmanager
def serving_a_copy(result_store, tmp_path_factory, folder: str, **app_options):
    """The web app over a copy of the test store (games played are recorded in it),
    ``create_app(prep_s=1.0, think_s=1.0, **app_options)``, served; yields its URL."""
    store = tmp_path_factory.mktemp(folder) / "results.sqlite"
    shutil.copyfile(result_store, store)
    with serving(create_app(prep_s=1.0, think_s=1.0, store_path=store, **app_options)) as url:
        yield url


@contextlib.contextmanager
def chromium(viewport: dict | None = None):
    """Debian's Chromium through Playwright: the browser, or with ``viewport`` a context of it."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b if viewport is None else b.new_context(viewport=viewport)
        finally:
            b.close()


@pytest.fixture(scope="module")
def server(result_store, tmp_path_factory):
    with serving_a_copy(result_store, tmp_path_factory, "browser-store", game_s=5.0) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1360, "height": 940})
    yield ctx
    ctx.close()


def open_page(context, url):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    page.errors = errors
    return page


def shot(page, name, full_page=True, doc=None, element=None):
    """A screenshot of the page (or of ``element``, a selector) in artifacts/screenshots/,
    when screenshots are asked for (see the module's docstring)."""
    if not TAKE_SCREENSHOTS:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    if element is not None:
        page.locator(element).screenshot(path=str(path))
    else:
        page.screenshot(path=str(path), full_page=full_page)
    if doc and REFRESH_DOC_IMAGES:
        from PIL import Image

        DOC_IMAGES.mkdir(parents=True, exist_ok=True)
        # 256 colours keep the committed images small.
        image = Image.open(path).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        image.save(DOC_IMAGES / doc, optimize=True)


def deal(page, seed, prefix="play", system="american"):
    page.select_option(f"#{prefix}-system [data-role=kind]", system)
    page.select_option(f"#{prefix}-deal-kind", "seed")
    page.fill(f"#{prefix}-seed", str(seed))
    if prefix == "play" and page.locator("#play-board .cell.filled").count() and not page.locator("#play-over").is_visible():
        page.once("dialog", lambda d: d.accept())  # abandon the game in progress
    page.click(f"#{prefix}-new" if prefix == "play" else "#watch-new")
    expect(page.locator(f"#{prefix}-info [data-seed]")).to_have_text(str(seed))


def place(page, cell):
    """Click an empty cell and wait for its card (the page takes no click while one is in flight)."""
    filled = page.locator("#play-board .cell.filled")
    before = filled.count()
    page.click(f"#play-board button.cell[data-cell='{cell}']")
    expect(filled).to_have_count(before + 1)


def board_cells(page, board="#play-board"):
    return page.eval_on_selector_all(f"{board} .cell", "cs => cs.map(c => { const k = c.querySelector('.card'); "
                                     "return k ? k.dataset.card : null; })")


def greedy_game(seed, **params) -> Game:
    game, player = Game.from_seed(seed, AMERICAN), GreedyPlayer(**params)
    player.set_point_system(AMERICAN, 0)
    player.start_game()
    for card in game:
        game.play(*player.get_play(card, 10.0))
    return game


def test_a_full_game_by_mouse_and_keyboard_then_a_replay(context, server):
    page = open_page(context, server)
    deal(page, 59)
    # The cells a greedy player with a strong taste for flushes picks: a good game to show.
    order = [r * 5 + c for _, r, c in greedy_game(59, flush_weight=1.0).placements]
    reference = Game.from_seed(59, AMERICAN)
    for turn, cell in enumerate(order):
        expect(page.locator("#play-next .card")).to_have_attribute("data-card", card_name(reference.next_card))
        if turn < 12:
            page.click(f"#play-board button.cell[data-cell='{cell}']")
        else:
            # Keyboard play: move the cursor from where it is to the cell, then Enter.
            cursor = page.eval_on_selector("#play-board .cell.cursor", "c => Number(c.dataset.cell)")
            (r0, c0), (r1, c1) = cell_of(cursor), cell_of(cell)
            for _ in range((r1 - r0) % 5):
                page.keyboard.press("ArrowDown")
            for _ in range((c1 - c0) % 5):
                page.keyboard.press("ArrowRight")
            expect(page.locator(f"#play-board .cell.cursor[data-cell='{cell}']")).to_have_count(1)
            page.keyboard.press("Enter")
        reference.play(*cell_of(cell))
        expect(page.locator("#play-board .cell.filled")).to_have_count(turn + 1)
    expect(page.locator("#play-over")).to_be_visible()
    assert board_cells(page) == [card_name(c) for c in reference.grid.cells]
    expect(page.locator("#play-final")).to_have_text(str(reference.score()))
    expect(page.locator("#play-board [data-total] .pts")).to_have_text(str(reference.score()))
    rows = page.locator("#play-board .row-hand .hand").all_inner_texts()
    cols = page.locator("#play-board .col-hand .hand").all_inner_texts()
    assert rows + cols == [h.label for h in reference.grid.hand_ids()]
    for hand_id, n in enumerate(reference.grid.hand_counts()):
        row = page.locator(f"#play-hands tr[data-hand='{HAND_NAMES[hand_id]}']")
        expect(row.locator(".count")).to_have_text(f"× {n}" if n else "")
    expect(page.locator("#play-hands tfoot .total")).to_have_text(str(reference.score()))
    shot(page, "finished-game", doc="finished-game.png")

    page.select_option("#replay-agent", "greedy")
    page.click("#replay-go")
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#replay-you-score")).to_have_text(str(reference.score()))
    expect(page.locator("#replay-agent-score")).to_have_text(str(greedy_game(59).score()))
    page.click("#replay-first")
    expect(page.locator("#replay-you .cell.filled")).to_have_count(0)
    page.click("#replay-next")
    expect(page.locator("#replay-you .cell.filled")).to_have_count(1)
    expect(page.locator("#replay-agent-board .cell.filled")).to_have_count(1)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-caption")).to_contain_text("card 2:")
    page.click("#replay-last")
    expect(page.locator("#replay-agent-board .cell.filled")).to_have_count(25)
    shot(page, "replay")
    assert not page.errors


def test_a_finished_game_reviewed_by_an_agent_lists_the_costliest_moves(context, server):
    page = open_page(context, server)
    deal(page, 21, system="british")  # beemo on British: no other test here waits for it to prepare
    for cell in range(25):  # reading order: a game an agent finds plenty of fault with
        place(page, cell)
    expect(page.locator("#play-over")).to_be_visible()
    coaches = page.eval_on_selector_all("#review-agent option", "os => os.map(o => o.value)")
    assert {"champion", "gettysburg", "beemo"} <= set(coaches) and not {"greedy", "random"} & set(coaches)
    page.select_option("#review-agent", "beemo")
    page.click("#review-go")
    expect(page.locator("#review-status")).to_contain_text("beemo would have played", timeout=120_000)
    items = page.locator("#review-moves li")
    expect(items.first).to_be_visible()
    texts = items.all_inner_texts()
    assert 1 <= len(texts) <= 5
    losses = [float(re.search(r"−(\d+\.\d)", t).group(1)) for t in texts]
    assert losses == sorted(losses, reverse=True) and all(x > 0 for x in losses)
    reference = Game.from_seed(21, AMERICAN)
    for t, turn in zip(texts, page.eval_on_selector_all("#review-moves li", "ls => ls.map(l => Number(l.dataset.turn))")):
        cell = turn - 1  # cards were placed in reading order
        assert t.startswith(f"card {turn}, {card_name(reference.deck[cell])}: you r{cell // 5 + 1}c{cell % 5 + 1}, beemo r")
    # A listed move shown where it was made: the grid before it, the coach's values of the
    # empty cells, its choice starred and the cell played dashed.
    first = int(page.get_attribute("#review-moves li >> nth=0", "data-turn"))
    page.click("#review-moves li >> nth=0 >> button")
    expect(page.locator("#review-move")).to_be_visible()
    expect(page.locator("#review-board .cell.filled")).to_have_count(first - 1)
    expect(page.locator("#review-board .cell.heat")).to_have_count(25 - (first - 1))
    expect(page.locator("#review-board .cell.choice")).to_have_count(1)
    expect(page.locator(f"#review-board .cell.other-choice[data-cell='{first - 1}']")).to_have_count(1)
    assert page.get_attribute("#review-board .cell.choice", "data-cell") != str(first - 1)
    expect(page.locator("#review-caption")).to_contain_text(f"card {first}, ")
    shot(page, "review", doc="review.png", element="#play-over")
    deal(page, 22, system="british")  # a new game clears the review
    expect(page.locator("#review-move")).to_be_hidden()
    expect(page.locator("#review-moves")).to_be_hidden()
    expect(page.locator("#review-status")).to_have_text("")
    assert not page.errors


def test_hint_shows_a_heat_map_and_greedys_choice(context, server):
    page = open_page(context, server)
    deal(page, 7)
    for cell in (0, 1, 6, 12, 18, 2, 7):
        place(page, cell)
    expect(page.locator("#play-board .cell.filled")).to_have_count(7)
    page.select_option("#play-agent", "greedy")
    page.keyboard.press("h")
    expect(page.locator("#play-board .cell.choice")).to_have_count(1)
    expect(page.locator("#play-board .cell.heat")).to_have_count(18)
    expect(page.locator("#play-legend")).to_be_visible()
    cells = board_cells(page)
    grid = np.array([-1 if c is None else parse_card(c) for c in cells], dtype=np.int8)
    card = parse_card(page.get_attribute("#play-next .card", "data-card"))
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    choice = int(page.get_attribute("#play-board .cell.choice", "data-cell"))
    assert choice == player.choose(grid, card, 1.0)
    # The heat map shows greedy's estimates of the final score (greedy's own game scores
    # about 81 on American), not its one-ply gains of a few points.
    values = [float(page.get_attribute(f"#play-board .cell[data-cell='{i}']", "data-value"))
              for i in np.flatnonzero(grid == -1)]
    assert 30 < max(values) < 200
    expect(page.locator("#play-hint-status")).to_contain_text("greedy would place")
    shot(page, "advice-heatmap-greedy", full_page=False)

    # A learned agent first prepares for the point system (the page says so), then advises.
    # Its kernels are compiled here first: compiling in the server's process holds the GIL,
    # so on a cold cache (CI on two processes reached this test before the players' tests
    # had filled it) the server could not say "preparing" until the answer itself.
    from pokersquares.harness.registry import make_player
    make_player("gettysburg").warm_up()
    page.select_option("#play-agent", "gettysburg")
    page.click("#play-hint")
    expect(page.locator("#play-hint-status")).to_contain_text(re.compile("compiling|learning|queue"))
    expect(page.locator("#play-hint-status")).to_contain_text("gettysburg would place", timeout=240_000)
    expect(page.locator("#play-board .cell.choice")).to_have_count(1)
    expect(page.locator("#play-legend")).to_contain_text("gettysburg's values")
    expect(page.locator("#play-legend [data-values-note]")).to_have_text(
        "Gettysburg's estimate of the final score if the card goes in that cell.")
    values = page.eval_on_selector_all("#play-board .cell.heat", "cs => cs.map(c => Number(c.dataset.value))")
    choice = int(page.get_attribute("#play-board .cell.choice", "data-cell"))
    assert values and float(page.get_attribute(f"#play-board .cell[data-cell='{choice}']", "data-value")) == max(values)
    shot(page, "advice-heatmap", full_page=False, doc="advice-heatmap.png")
    # Placing a card clears the hint: it was about that card only.
    page.click(f"#play-board button.cell[data-cell='{choice}']")
    expect(page.locator("#play-board .cell.heat")).to_have_count(0)
    assert not page.errors


def test_a_reload_resumes_and_tabs_keep_their_own_games(context, server):
    first = open_page(context, server)
    deal(first, 5)
    for cell in (3, 8, 13):
        place(first, cell)
    expect(first.locator("#play-board .cell.filled")).to_have_count(3)
    before = board_cells(first)
    first.reload()
    first.wait_for_selector("body[data-ready=true]")
    assert board_cells(first) == before
    expect(first.locator("#play-info [data-seed]")).to_have_text("5")

    second = open_page(context, server)  # a new tab picks up the last game
    assert board_cells(second) == before
    deal(second, 6)
    second.click("#play-board button.cell[data-cell='0']")
    expect(second.locator("#play-board .cell.filled")).to_have_count(1)
    first.reload()
    first.wait_for_selector("body[data-ready=true]")
    assert board_cells(first) == before  # the first tab keeps its game
    expect(first.locator("#play-info [data-seed]")).to_have_text("5")
    assert not first.errors and not second.errors


def test_bad_input_shows_the_servers_message(context, server):
    context.clock.install()  # the page's timers, run ahead below rather than waited for
    page = open_page(context, server)
    page.select_option("#play-system [data-role=kind]", "ameritish")
    page.fill("#play-system [data-role=system-seed]", "abc")
    expect(page.locator("#play-system .preview")).to_contain_text("must be an integer")
    page.click("#play-new")
    expect(page.locator("#toast")).to_contain_text("must be an integer")
    # Let that message go (it hides after 5 s) so the next one is seen on its own.
    page.clock.run_for(5000)
    expect(page.locator("#toast")).to_be_hidden()
    page.select_option("#play-system [data-role=kind]", "american")
    # The preview's chips replace the error text and move the button down: a click during
    # that shift can land beside it (seen once in CI), so wait for them as a user would.
    expect(page.locator("#play-system .preview li")).to_have_count(10)
    page.select_option("#play-deal-kind", "seed")
    page.fill("#play-seed", "12x")
    page.click("#play-new")
    expect(page.locator("#toast")).to_contain_text("seed must be a whole number")


def test_watch_an_agent_play_a_deal(context, server):
    page = open_page(context, server + "#watch")
    page.select_option("#watch-agent", "greedy")
    page.eval_on_selector("#watch-speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')); }")
    page.eval_on_selector("#watch-think", "e => { e.value = '0.1'; e.dispatchEvent(new Event('input')); }")
    deal(page, 3, prefix="watch")
    page.click("#watch-step")
    expect(page.locator("#watch-board .cell.filled")).to_have_count(1)
    expect(page.locator("#watch-log li")).to_have_count(1)
    page.click("#watch-play")
    expect(page.locator("#watch-board .cell.filled")).to_have_count(25, timeout=30_000)
    expected = greedy_game(3)
    expect(page.locator("#watch-status")).to_contain_text(f"finished with {expected.score()} points")
    assert board_cells(page, "#watch-board") == [card_name(c) for c in expected.grid.cells]
    expect(page.locator("#watch-log li")).to_have_count(25)
    shot(page, "watch")
    assert not page.errors


@pytest.fixture(scope="module")
def java_server(java_classes):
    """A server started as ``serve --java-player FirstEmptyPlayer`` would start it."""
    from pokersquares.web.agents import registered_agents
    from pokersquares.web.java_agents import java_agents

    agents = {**registered_agents(), **java_agents(["FirstEmptyPlayer"], game_s=10.0)}
    with serving(create_app(agents=agents, prep_s=1.0, think_s=1.0, game_s=10.0)) as url:
        yield url


def test_watch_a_contest_java_player_play_a_deal(context, java_server):
    page = open_page(context, java_server + "#watch")
    assert "java-FirstEmptyPlayer" not in page.eval_on_selector_all("#play-agent option", "os => os.map(o => o.value)")
    page.select_option("#watch-agent", "java-FirstEmptyPlayer")
    page.eval_on_selector("#watch-speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')); }")
    deal(page, 3, prefix="watch")
    page.click("#watch-play")
    expect(page.locator("#watch-board .cell.filled")).to_have_count(25, timeout=60_000)
    game = Game.from_seed(3, AMERICAN)
    for cell, card in enumerate(game.deck[:25]):  # the first empty cell, in reading order
        game.play(*cell_of(cell))
    expect(page.locator("#watch-status")).to_contain_text(f"finished with {game.score()} points")
    assert board_cells(page, "#watch-board") == [card_name(c) for c in game.grid.cells]
    shot(page, "watch-java-player")
    assert not page.errors


def test_results_show_a_tournament_and_a_run(context, server):
    page = open_page(context, server + "#results")
    table = page.locator("#tournament-table")
    expect(table).to_be_visible()
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(page.locator(".results-detail svg.chart")).to_have_count(2 + 2)  # ranking, normalised, a box plot per system
    ranking = table.locator("tbody tr").evaluate_all("rs => rs.map(r => r.dataset.player)")
    assert sorted(ranking) == ["greedy", "random"]
    titles = table.locator("tbody td[title]").evaluate_all("ts => ts.map(t => t.title)")
    assert any("first on this system" in t for t in titles)
    assert any("paired game by game" in t for t in titles)
    # The gap to each system's first, on the page itself (a tooltip is no use on a phone).
    gaps = {p: table.locator(f'tr[data-player="{p}"] small.gap').all_inner_texts() for p in ("greedy", "random")}
    assert gaps["greedy"] == ["first", "first"], gaps
    assert len(gaps["random"]) == 2 and all(re.fullmatch(r"−\d+(\.\d+)? ± \d+(\.\d+)? ✗", g) for g in gaps["random"]), gaps
    shot(page, "results-tournament")
    page.locator("tr[data-run]", has_text="greedy").first.click()
    expect(page.locator("#results-best")).to_be_visible()
    expect(page.locator(".results-detail svg.chart")).to_have_count(1)
    expect(page.locator(".results-detail h2").first).to_contain_text("greedy on American")
    hands = page.locator("#results-hands")
    expect(hands.locator("tbody tr")).to_have_count(10)
    expect(hands.locator("tbody tr").nth(5)).to_contain_text("flush")
    lines = hands.locator("tbody td:nth-child(3)").evaluate_all("ts => ts.map(t => parseFloat(t.textContent))")
    assert sum(lines) == pytest.approx(10, abs=0.006)
    page.reload()
    page.wait_for_selector("#results-best")  # the run stays open across a reload
    shot(page, "results-run")
    assert not page.errors


def test_results_show_long_seeds_to_the_last_digit(context, long_seed_store):
    from .conftest import LONG_SEED

    with serving(create_app(prep_s=1.0, think_s=1.0, game_s=5.0, store_path=long_seed_store,
                            record_games=False)) as url:
        page = open_page(context, url + "#results")
        detail = page.locator(".results-detail")
        expect(detail).to_contain_text(f"seeds from {LONG_SEED}.")
        page.locator("tr[data-run]").first.click()
        expect(page.locator("#results-best")).to_be_visible()
        expect(detail).to_contain_text(f"{LONG_SEED} … {LONG_SEED + 1}")
        best = detail.locator("h2", has_text="Best game")
        expect(best).to_contain_text(re.compile(f"seed ({LONG_SEED}|{LONG_SEED + 1})\\)"))
        assert not page.errors


def test_small_screens_get_the_whole_game(browser, server):
    ctx = browser.new_context(viewport={"width": 400, "height": 860})
    try:
        page = open_page(ctx, server)
        deal(page, 9)
        page.click("#play-board button.cell[data-cell='12']")
        box = page.locator("#play-board").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 400
        shot(page, "small-screen")
    finally:
        ctx.close()


def test_dealing_mid_game_asks_first(context, server):
    page = open_page(context, server)
    deal(page, 12)
    page.click("#play-board button.cell[data-cell='0']")
    expect(page.locator("#play-board .cell.filled")).to_have_count(1)
    page.once("dialog", lambda d: d.dismiss())
    page.click("#play-new")
    expect(page.locator("#play-board .cell.filled")).to_have_count(1)  # kept
    page.once("dialog", lambda d: d.accept())
    page.click("#play-new")
    expect(page.locator("#play-board .cell.filled")).to_have_count(0)
    assert not page.errors


def test_seeds_out_of_range_say_so_and_messages_go_with_their_tab(context, server):
    page = open_page(context, server)
    page.select_option("#play-deal-kind", "seed")
    for seed in ("12345678901234567890", str(2 ** 63)):
        page.fill("#play-seed", seed)
        page.click("#play-new")
        expect(page.locator("#toast")).to_contain_text("must be between -9223372036854775808 and 9223372036854775807")
    page.click("#tab-watch")
    expect(page.locator("#toast")).to_be_hidden()
    page.click("#tab-play")
    page.fill("#play-seed", str(2 ** 63 - 1))
    page.click("#play-new")
    expect(page.locator("#play-info [data-seed]")).to_have_text(str(2 ** 63 - 1))


def test_custom_points_out_of_range_are_refused(context, server):
    page = open_page(context, server)
    page.select_option("#play-system [data-role=kind]", "custom")
    page.locator("#play-system [data-role=custom]").nth(9).fill("200")
    expect(page.locator("#play-system .preview")).to_contain_text("royal flush: 200 is outside -128..127")
    page.click("#play-new")
    expect(page.locator("#toast")).to_contain_text("outside -128..127")


def test_the_running_score_of_an_empty_board_is_zero(context, server):
    page = open_page(context, server)
    deal(page, 3, system="random")
    page.fill("#play-system [data-role=system-seed]", "7")
    page.click("#play-new")
    expect(page.locator("#play-info")).to_contain_text("random:7")
    expect(page.locator("#play-hands tfoot .total")).to_have_text("0")
    expect(page.locator("#play-board [data-total] .pts")).to_have_text("0")


def test_waiting_for_advice_shows_progress_can_be_cancelled_and_is_cleared(context, server):
    page = open_page(context, server)
    # A point system no agent has prepared for: gettysburg compiles or learns first.
    page.select_option("#play-system [data-role=kind]", "random")
    page.fill("#play-system [data-role=system-seed]", "4242")
    deal(page, 1, system="random")
    page.select_option("#play-agent", "gettysburg")
    # Its 1 s of learning can end between seeing Cancel and clicking it (a quiet machine
    # did so in CI): until the click, the server's last "still preparing" answer stands
    # in for a later ready one, so the page is still waiting when Cancel is clicked.
    preparing = {}

    def hold(route):
        response = route.fetch()
        if response.status == 202:
            preparing["body"] = response.body()
        try:
            if response.status == 202 or "body" not in preparing:
                route.fulfill(response=response)
            else:
                route.fulfill(status=202, body=preparing["body"], content_type="application/json")
        except PlaywrightError as e:
            # Cancel aborts the poll in flight: its route may be gone before it is answered
            # (CI, on both cores: "Route is already handled!").
            if "already handled" not in str(e):
                raise

    page.route("**/api/games/*/hint", hold)
    page.click("#play-hint")
    status = page.locator("#play-hint-status")
    expect(status).to_contain_text("gettysburg")
    expect(status).to_contain_text("waiting")
    expect(page.locator("#play-hint-cancel")).to_be_visible()
    page.click("#play-hint-cancel")
    page.unroute("**/api/games/*/hint", hold)
    assert "body" in preparing  # the server did answer "still preparing" first
    expect(status).to_have_text("Cancelled.")
    expect(page.locator("#play-hint")).to_be_enabled()
    # Another agent, or a new deal, clears what the old wait said.
    page.select_option("#play-agent", "tiger")
    page.click("#play-hint")
    expect(status).to_contain_text("tiger")
    page.select_option("#play-agent", "greedy")
    expect(status).to_have_text("")
    page.click("#play-hint")
    expect(page.locator("#play-board .cell.heat")).to_have_count(25)
    place(page, 3)  # the hint was about that card: it goes
    expect(page.locator("#play-board .cell.heat")).to_have_count(0)
    page.click("#play-hint")
    expect(page.locator("#play-board .cell.heat")).to_have_count(24)
    page.once("dialog", lambda d: d.accept())
    page.click("#play-new")
    expect(page.locator("#play-board .cell.heat")).to_have_count(0)
    expect(status).to_have_text("")
    assert not page.errors


def test_watch_keeps_each_moves_estimates_until_the_next(context, server):
    page = open_page(context, server + "#watch")
    page.select_option("#watch-agent", "greedy")
    page.eval_on_selector("#watch-speed", "e => { e.value = '0'; e.dispatchEvent(new Event('input')); }")
    deal(page, 4, prefix="watch")
    page.click("#watch-step")
    expect(page.locator("#watch-board .cell.filled")).to_have_count(1)
    # The placed card is marked as the choice and the other 24 cells keep their estimates.
    expect(page.locator("#watch-board .cell.filled.choice")).to_have_count(1)
    expect(page.locator("#watch-board .cell.heat")).to_have_count(24)
    page.wait_for_timeout(500)
    expect(page.locator("#watch-board .cell.heat")).to_have_count(24)
    expect(page.locator("#watch-legend")).to_contain_text("greedy's values for")
    expect(page.locator("#watch-legend [data-values-note]")).to_contain_text("estimate of the final score")
    # Play and pause are drawn, not emoji (an empty box without an emoji font).
    button = page.locator("#watch-play")
    assert button.locator("svg.icon").count() == 1
    assert not any(ord(ch) > 0x2000 for ch in button.inner_text())
    button.click()
    expect(button).to_contain_text("Pause")
    assert not any(ord(ch) > 0x2000 for ch in button.inner_text())
    expect(page.locator("#watch-board .cell.filled")).to_have_count(25, timeout=30_000)
    expect(button).to_contain_text("Play")


# -- layout, accessibility, screenshots at a laptop's and a phone's size -----------------------------

LAPTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def serious_violations(axe, page) -> list[str]:
    result = axe.run(page)
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:3]]}"
            for v in result.response["violations"] if v["impact"] in ("critical", "serious")]


def midgame(page, seed=21, cells=(0, 6, 12, 18, 3)):
    deal(page, seed)
    for cell in cells:
        place(page, cell)
    page.select_option("#play-agent", "greedy")
    page.click("#play-hint")
    expect(page.locator("#play-board .cell.choice")).to_have_count(1)


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_every_page_has_no_serious_accessibility_violation(browser, server, axe, size):
    ctx = browser.new_context(viewport=size)
    tag = f"{size['width']}x{size['height']}"
    try:
        page = open_page(ctx, server)
        midgame(page)
        assert serious_violations(axe, page) == []
        shot(page, f"play-{tag}", full_page=False)
        page.click("#how-to summary")
        assert serious_violations(axe, page) == []
        page.goto(server + "#watch")
        page.wait_for_selector("body[data-ready=true]")
        page.select_option("#watch-agent", "greedy")
        deal(page, 8, prefix="watch")
        page.click("#watch-step")
        expect(page.locator("#watch-board .cell.filled")).to_have_count(1)
        assert serious_violations(axe, page) == []
        shot(page, f"watch-{tag}", full_page=False)
        page.goto(server + "#results")
        expect(page.locator("#tournament-table")).to_be_visible()
        assert serious_violations(axe, page) == []
        shot(page, f"results-tournament-{tag}")
        page.locator("tr[data-run]", has_text="greedy").first.click()
        expect(page.locator("#results-best")).to_be_visible()
        assert serious_violations(axe, page) == []
        shot(page, f"results-run-{tag}")
        page.goto(server + "api/docs")
        assert serious_violations(axe, page) == []
        assert not page.errors
    finally:
        ctx.close()


def test_a_laptop_screen_shows_the_whole_board_and_the_result(browser, server):
    ctx = browser.new_context(viewport=LAPTOP)
    try:
        page = open_page(ctx, server)
        midgame(page)
        for what in ("#play-board .row-hand >> nth=4", "#play-board .col-hand >> nth=4", "#play-board [data-total]",
                     "#play-legend", "#play-next .card"):
            box = page.locator(what).bounding_box()
            assert box and box["y"] + box["height"] <= LAPTOP["height"], what
        assert page.evaluate("window.scrollY") == 0
        for cell in range(25):
            if page.locator(f"#play-board button.cell[data-cell='{cell}']").count():
                place(page, cell)
        expect(page.locator("#play-over")).to_be_in_viewport()
        expect(page.locator("#replay-go")).to_be_in_viewport()
        shot(page, "game-over-1280x800", full_page=False)
    finally:
        ctx.close()


OVERLAP_JS = """view => {
  const box = s => { const e = document.querySelector(s); if (!e) return null; const b = e.getBoundingClientRect();
                     return [b.left, b.right, b.top, b.bottom]; };
  return {board: box(`#${view}-board`), next: box(`#${view}-next`), setup: box(`#view-${view} aside.setup`),
          score: box(`#view-${view} .score-panel`), sideways: document.documentElement.scrollWidth > innerWidth};
}"""


def overlapping(a, b) -> bool:
    return a[0] < b[1] - 0.5 and b[0] < a[1] - 0.5 and a[2] < b[3] - 0.5 and b[2] < a[3] - 0.5


# Windows of three columns (1280x900, 1280x1024, 1200x900) and of two (800x1000, 721x900)
# whose height let the cells grow past the middle column's width: the board ran under the
# score panel and the card in hand over the setup panel (800x1000 scrolled sideways).
@pytest.mark.parametrize("size", [(1280, 900), (1280, 1024), (1200, 900), (1101, 1000), (800, 1000), (721, 900),
                                  (1280, 800), (1920, 1080), (390, 844)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_board_and_the_card_in_hand_keep_clear_of_the_panels(browser, server, size):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    try:
        page = open_page(ctx, server)
        midgame(page)  # hands named and a hint's values shown: the widest the board gets
        for view in ("play", "watch"):
            if view == "watch":
                page.goto(server + "#watch")
                page.wait_for_selector("#view-watch:not([hidden])")
            boxes = page.evaluate(OVERLAP_JS, view)
            assert not boxes["sideways"], (view, size)
            for what in ("board", "next"):
                for panel in ("setup", "score"):
                    assert not overlapping(boxes[what], boxes[panel]), (view, what, panel, boxes)
        assert not page.errors
    finally:
        ctx.close()


def test_a_phone_keeps_hint_within_reach_and_text_readable(browser, server):
    ctx = browser.new_context(viewport=PHONE, has_touch=True)
    try:
        page = open_page(ctx, server)
        midgame(page)
        expect(page.locator("#play-hint")).to_be_in_viewport()
        page.mouse.wheel(0, 600)
        page.wait_for_timeout(200)
        expect(page.locator("#play-hint")).to_be_in_viewport()  # the bar stays at the bottom
        page.evaluate("window.scrollTo(0, 0)")
        sizes = page.eval_on_selector_all("#play-board .cell .value", "vs => vs.map(v => parseFloat(getComputedStyle(v).fontSize))")
        assert sizes and min(sizes) >= 12
        page.tap("#play-board button.cell[data-cell='24']")
        expect(page.locator("#play-board .cell.filled")).to_have_count(6)
        cut = page.eval_on_selector_all("#play-board .hand-label .hand", "hs => hs.filter(h => h.scrollWidth > h.clientWidth + 1).length")
        assert cut == 0
        box = page.locator("#play-board").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        page.goto(server + "#results")
        expect(page.locator("#tournament-table")).to_be_visible()
        # Chart text is drawn at 9 px or more (the charts scroll sideways rather than shrink).
        heights = page.eval_on_selector_all(".results-detail svg.chart text", "ts => ts.map(t => t.getBoundingClientRect().height)")
        assert heights and min(h for h in heights if h > 0) >= 9
        shot(page, "results-390x844-charts", full_page=False)
    finally:
        ctx.close()


def test_the_keyboard_focus_stays_on_the_board(context, server):
    page = open_page(context, server)
    deal(page, 15)
    page.focus("#play-board button.cell[tabindex='0']")
    start = page.evaluate("document.activeElement.dataset.cell")
    page.keyboard.press("ArrowRight")
    moved = page.evaluate("document.activeElement.dataset.cell")
    assert moved is not None and moved != start  # the focus follows the cursor
    page.keyboard.press("Enter")
    expect(page.locator("#play-board .cell.filled")).to_have_count(1)
    assert page.evaluate("document.activeElement.closest('#play-board') !== null")
    assert page.evaluate("document.activeElement.dataset.cell") != moved
    # The focus ring (an outline) shows on the cursor's cell: the cursor draws a border instead.
    style = page.evaluate("(() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; })()")
    assert style[0] == "solid" and style[1] != "0px"
    assert page.locator("#play-board [role=row]").count() == 6


def test_buttons_keep_the_focus_while_their_request_runs(context, server):
    page = open_page(context, server)
    deal(page, 16)
    page.select_option("#play-agent", "greedy")
    page.focus("#play-hint")
    page.keyboard.press("Enter")
    expect(page.locator("#play-board .cell.choice")).to_have_count(1)
    assert page.evaluate("document.activeElement.id") == "play-hint"
    expect(page.locator("#play-hint")).to_have_attribute("aria-disabled", "false")
