"""What a student playing with a coach is told, checked against what is true: advice is
about the game on the board, and the review says what its numbers are (the coach's
evaluation alone, which its searched hints can disagree with)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.web.test_browser import browser, context, deal, open_page, place, server  # noqa: F401

from playwright.sync_api import expect  # noqa: E402

from pokersquares import AMERICAN, Game  # noqa: E402
from pokersquares.game import EMPTY  # noqa: E402
from pokersquares.review import coach_values, review_game  # noqa: E402
from pokersquares.harness.player import BasePlayer  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.agents import AgentSpec  # noqa: E402

from .conftest import serving  # noqa: E402


def test_a_hint_is_not_shown_on_the_next_deal(context, server):
    # A hint on the first card, then a new deal (also at its first card, of another
    # point system): the old values and star stayed on the new board, about another card.
    page = open_page(context, server)
    deal(page, 3)
    page.select_option("#play-agent", "greedy")
    page.click("#play-hint")
    expect(page.locator("#play-hint-status")).to_contain_text("would place", timeout=120_000)
    expect(page.locator("#play-board .cell.heat")).to_have_count(25)
    deal(page, 4, system="british")
    expect(page.locator("#play-info")).to_contain_text("British")
    expect(page.locator("#play-board .cell.heat")).to_have_count(0)
    expect(page.locator("#play-board .cell.choice")).to_have_count(0)
    expect(page.locator("#play-legend")).to_be_hidden()
    assert page.errors == []


@pytest.mark.usefixtures("quick_optimum")  # the server's optimum of its game is not read
def test_the_review_says_its_best_cells_are_the_evaluations_not_the_searched_hints(context, server):
    # The review ranks cells by the coach's evaluation alone, while its hints search: a
    # student who followed every hint was told the coach "would have played" other cells
    # and "would play" them, points better. The page says what the review's best is.
    page = open_page(context, server)
    deal(page, 8)
    for cell in range(25):
        place(page, cell)
    expect(page.locator("#play-over")).to_be_visible()
    page.select_option("#review-agent", "champion")
    page.click("#review-go")
    status = page.locator("#review-status")
    expect(status).to_contain_text("champion would have played", timeout=120_000)
    expect(status).to_contain_text("By its evaluation alone (no search, so its hints can differ)")
    items = page.locator("#review-moves li")
    expect(items.first).to_be_visible()
    texts = items.all_inner_texts()
    searched = [i for i, t in enumerate(texts) if ", exact)" not in t]
    exact = [i for i, t in enumerate(texts) if ", exact)" in t]
    caption = page.locator("#review-caption")
    if searched:
        items.nth(searched[0]).locator("button").click()
        expect(caption).to_contain_text("champion's evaluation alone prefers")
        expect(caption).not_to_contain_text("champion would play")
    if exact:
        items.nth(exact[0]).locator("button").click()
        expect(caption).to_contain_text("best play is")
    assert searched or exact
    assert page.errors == []


def test_a_persons_game_against_its_optimum_is_listed_under_their_name_without_a_made_up_error(context, server):
    # One deal has no standard error: the Results page showed "± 0.00" beside its regret
    # and fraction, and listed the game as "human" where the table of runs says whose it is.
    page = open_page(context, server)
    page.fill("#play-name", "Ada")
    page.dispatch_event("#play-name", "change")
    page.select_option("#play-system [data-role=kind]", "single")
    page.select_option("#play-system [data-role=hand]", "flush")
    deal(page, 2, system="single")
    for cell in range(25):
        place(page, cell)
    score = int(page.text_content("#play-final"))
    expect(page.locator("#optimum-panel [data-role=optimum-score]")).to_have_text("3", timeout=90_000)
    page.click("#tab-results")
    row = page.locator("#optimum-results tr[data-run]", has_text="human (Ada)")
    expect(row).to_have_count(1, timeout=30_000)
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == "human (Ada)" and cells[3] == "1 (1)"
    assert cells[-1] == f"{3 - score:.2f}" and "±" not in cells[-2]
    assert page.errors == []


def test_the_regret_route_names_whose_game_it_is(server):
    import requests

    headers = {"X-Client": "regret-route"}
    game = requests.post(server + "api/games", json={"system": "single:flush", "seed": 2, "name": "Bo"},
                         headers=headers, timeout=30).json()
    for turn in range(25):
        game = requests.post(server + f"api/games/{game['id']}/place", json={"cell": turn, "turn": turn},
                             headers=headers, timeout=30).json()
    assert requests.get(server + "api/optimum?seed=2&system=single:flush", headers=headers, timeout=120).json()["proven"]
    rows = requests.get(server + "api/optimum/regret", timeout=30).json()["runs"]
    mine = [r for r in rows if r["player"] == "human" and r["player_name"] == "Bo"]
    assert len(mine) == 1 and mine[0]["regret"] == 3 - game["score"]



class _CornerByParity:
    """Values the bottom-right cell above the rest: by 0.02 points for an even card, by
    0.003 for an odd one (a tie, less than a printed hundredth)."""

    def placement_values(self, grid, card):
        v = np.zeros(25)
        v[24] = 0.02 if card % 2 == 0 else 0.003
        v[np.asarray(grid) != EMPTY] = -np.inf
        return v


class _FineCoach(BasePlayer):
    name = "fine"

    def __init__(self):
        super().__init__()
        self.evaluator = _CornerByParity()

    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == EMPTY)[-1])


@pytest.fixture(scope="module")
def fine_server():
    with serving(create_app(agents={"fine": AgentSpec(_FineCoach, "values to a hundredth")},
                            prep_s=0.5, think_s=1.0, game_s=10.0)) as url:
        yield url


@pytest.mark.usefixtures("quick_optimum")  # the server's optimum of its game is not read
def test_the_review_lists_the_moves_it_counts_as_not_agreed_with_their_hundredths(context, fine_server):
    # A move a few thousandths below the coach's best counted as not agreed, yet was sent
    # as a loss of 0.0 and so not listed ("24 of your 25 cards" and no costly move), and
    # a loss below a tenth was shown as "−0.0".
    page = open_page(context, fine_server)
    deal(page, 9)
    for cell in range(25):
        place(page, cell)
    page.select_option("#review-agent", "fine")
    page.click("#review-go")
    status = page.locator("#review-status")
    expect(status).to_contain_text("fine would have played", timeout=60_000)
    game = Game.from_seed(9, AMERICAN)
    placements = [(int(card), cell) for card, cell in zip(game.deck[:25], range(25))]
    expected = review_game(coach_values(_FineCoach()), AMERICAN.points, placements)  # as the server judges
    fine = [m for m in expected.moves if not m.exact]
    assert any(m.agrees for m in fine) and any(not m.agrees for m in fine)
    expect(status).to_contain_text(f"would have played {expected.agreed} of your 25 cards where you did")
    expect(status).to_contain_text(f"gave away {expected.loss:.1f} points")
    texts = page.locator("#review-moves li").all_inner_texts()
    assert len(texts) == len(expected.worst(5)) == 5
    for text, m in zip(texts, expected.worst(5)):
        assert text.startswith(f"card {m.turn},")
        assert (f"(−{m.loss:.1f}, exact)" if m.exact else "(−0.02)") in text
    page.locator("#review-moves li", has_text="(−0.02)").first.locator("button").click()
    expect(page.locator("#review-caption")).to_contain_text("by its estimate 0.02 points better")
    assert page.errors == []
