"""The clock every player shares its game with (players/move_clock.py), on a fake
clock that moves only when a test says a move took time: the figures are exact."""

import math

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.harness.registry import make_player
from pokersquares.players import greedy_guard, move_clock
from pokersquares.players.move_clock import MAX_SHARES, OVERSHOOT_FLOOR_S, MoveClock
from pokersquares.points import AMERICAN
from pokersquares.search.base import Search

FLOOR = OVERSHOOT_FLOOR_S


def play(clock, fake, game_s, moves=23, late=lambda move, budget: 0.0, took=None):
    """One game of ``moves`` searched moves on the fake clock: each takes its whole
    budget plus ``late(move, budget)`` (or ``took(move, budget)`` seconds instead).
    Returns the budgets and the seconds left at the end."""
    clock.start_game()
    left, budgets = game_s, []
    for move in range(moves):
        budget = clock.budget(left, moves - move)
        budgets.append(budget)
        if budget > 0:
            spent = took(move, budget) if took else budget + late(move, budget)
            fake.charge(spent)
            left -= spent
            clock.move_done()
    return budgets, left


@pytest.fixture
def fake(fake_clock):
    fake_clock.install(move_clock)
    return fake_clock


def test_even_shares_keep_the_reserve_of_the_whole_game_to_the_last_move(fake):
    clock = MoveClock(reserve=0.08)
    budgets, left = play(clock, fake, 5.0)
    # Each move takes its budget exactly, so the overshoot kept back stays at its floor:
    # the first move gets (5 - 0.4 - 23 * floor) / 23, later ones a little more as the
    # floors kept for them are released, and the game ends with the reserve and one
    # move's floor unspent. (Dropping the reserve leaves 0.005 s: this fails.)
    assert budgets[0] == pytest.approx((5.0 - 0.4 - 23 * FLOOR) / 23)
    assert budgets == sorted(budgets)
    assert left == pytest.approx(0.4 + FLOOR)


def test_the_reserve_is_capped(fake):
    _, left = play(MoveClock(reserve=0.07, reserve_max_s=0.5), fake, 30.0)
    assert left == pytest.approx(0.5 + FLOOR)  # not 7% of 30 s


def test_an_overshoot_is_kept_back_for_every_move_to_come_and_decays(fake):
    clock = MoveClock(reserve=0.08)
    # The fourth move ends 0.05 s late; the others on time.
    budgets, left = play(clock, fake, 5.0, late=lambda move, budget: 0.05 if move == 3 else 0.0)
    # The next move keeps back 0.05 s for each of the 19 moves to come (itself included) ...
    assert budgets[4] == pytest.approx((5.0 - sum(budgets[:4]) - 0.05 - 0.4 - 0.05 * 19) / 19)
    # ... and 0.9 of it less after each of the 19 moves that end on time.
    assert clock.overshoot_s == pytest.approx(max(FLOOR, 0.05 * 0.9 ** 19))
    # The late move was paid for by the moves after it: the game ends with the reserve
    # and what the last move kept back.
    assert left == pytest.approx(0.4 + 0.05 * 0.9 ** 18)
    # A new game starts from half of what was kept back.
    kept = clock.overshoot_s
    clock.start_game()
    assert clock.overshoot_s == pytest.approx(max(FLOOR, kept / 2))


def test_stalls_never_run_the_game_out_of_time(fake):
    """Every third move stalls for 40% past its budget, and the last move of the
    game stalls for 0.2 s (4% of the clock): the reserve still covers it."""
    def late(move, budget):
        return 0.2 if move == 22 else (0.4 * budget if move % 3 == 0 else 0.0)
    budgets, left = play(MoveClock(reserve=0.08), fake, 5.0, late=late)
    assert all(b > 0 for b in budgets)
    assert left > 0.1


def test_no_move_takes_more_than_three_even_shares(fake):
    # Moves that end at once (a search's early stop) leave their time to later ones,
    # but no later move gets more than three shares of the game's clock.
    budgets, _ = play(MoveClock(reserve=0.08), fake, 5.0, took=lambda move, budget: 0.0)
    assert max(budgets) == pytest.approx(MAX_SHARES * 5.0 / 23)
    assert budgets[-1] == pytest.approx(MAX_SHARES * 5.0 / 23)


def test_too_little_time_is_no_search(fake):
    clock = MoveClock(reserve=0.08)
    clock.start_game()
    clock.overshoot_s = 1.0
    assert clock.budget(5.0, 10) == 0.0  # 5 s less 10 moves x 1 s of overshoot
    assert clock.overshoot_s == pytest.approx(0.9)  # a greedy move is on time: it decays
    with pytest.raises(RuntimeError):
        clock.move_done()


def test_a_budget_below_the_searchs_minimum_is_no_search(fake):
    clock = MoveClock(reserve=0.08)
    clock.start_game()
    share = (1.0 - 0.08 - 10 * FLOOR) / 10  # 0.087 s a move
    assert clock.budget(1.0, 10, min_search_s=share + 0.001) == 0.0
    assert clock.budget(1.0, 10, min_search_s=share - 0.001) == pytest.approx(share)


def test_hybrid_plays_its_tables_move_below_twenty_ms_and_counts_it(fake, monkeypatch):
    """At 0.2 s a game a hybrid MCTS would search a few ms a move; it plays the learned
    table's greedy move instead (docs/results.md, small budgets), counted as a fallback,
    and searches only the last moves, whose shares of what is left reach 20 ms."""
    calls = []

    class Spy(Search):
        def choose(self, evaluator, grid, card, points, time_s, seed):
            calls.append(time_s)
            fake.charge(time_s)
            return int(np.flatnonzero(grid == -1)[0]), np.zeros(25)

    # Its table played at 0 s of preparation, as it was before the guard played the greedy
    # rule below MIN_BUDGET_S: the moves' clock is under test here, not what was learned.
    monkeypatch.setattr(greedy_guard, "MIN_BUDGET_S", 0.0)
    searched = {}
    for spec in ("hybrid", "hybrid:min_search=0"):
        player = make_player(spec)
        player.set_point_system(AMERICAN, 0.0)
        spy = Spy()
        spy.min_search_s = player.search.min_search_s
        player.search = spy
        calls.clear()
        player.start_game()
        left = 0.2
        for card in deal(1)[:25]:
            before = len(calls)
            player.get_play(int(card), left)
            left -= sum(calls[before:])
        assert player.fallback_moves == 23 - len(calls), spec
        searched[spec] = list(calls)
    assert searched["hybrid"] and min(searched["hybrid"]) >= 0.02
    assert min(searched["hybrid:min_search=0"]) < 0.01
    assert len(searched["hybrid:min_search=0"]) > len(searched["hybrid"])


def test_time_per_game_counts_what_the_moves_took(fake):
    clock = MoveClock(reserve=0.08, time_per_game=1.0)
    # The harness gives 30 s; the cap of 1 s binds, and the late moves are paid back.
    budgets, left = play(clock, fake, 30.0, late=lambda move, budget: 0.01 if move < 5 else 0.0)
    spent = 30.0 - left
    assert spent == pytest.approx(clock.spent_s)
    assert 1.0 - 0.08 - 0.05 <= spent <= 1.0 - 0.08


def test_every_player_shares_its_clock_through_a_move_clock():
    for spec in ("champion", "beemo", "og", "gettysburg", "tiger", "hybrid:evaluator=possibility,search=flat_mc"):
        assert isinstance(make_player(spec).clock, MoveClock), spec


def test_champion_budgets_keep_the_reserve_through_a_real_game():
    """Through the player: a search that spends exactly the budget it is given (the
    harness's clock runs down by it) sees 23 budgets, every one within three even
    shares, and the game ends with the reserve."""
    budgets = []

    class Spender(Search):
        def choose(self, evaluator, grid, card, points, time_s, seed):
            budgets.append(time_s)
            return int(np.flatnonzero(grid == -1)[0]), np.zeros(25)

    player = make_player("champion:games=50")
    player.set_point_system(AMERICAN, 5.0)
    player.search = Spender()
    player.start_game()
    left = 5.0
    for card in deal(1)[:25]:
        before = len(budgets)
        player.get_play(int(card), left)
        if len(budgets) > before:
            left -= budgets[-1]
    assert len(budgets) == 23  # every move but the first and the last searched
    assert max(budgets) <= MAX_SHARES * 5.0 / 23 + 1e-9
    assert left >= 5.0 * player.clock.reserve - 1e-9


def test_learned_usage_gives_the_time_clear_moves_leave_to_the_others(fake):
    """Every move takes half its budget (a search stopping early). Even shares leave
    much of the clock unused; a clock that learns the usage plans for it and, after a
    few games, spends most of the game, still ending with its reserve."""
    half = lambda move, budget: 0.5 * budget  # noqa: E731
    even = MoveClock(reserve=0.08)
    _, even_left = play(even, fake, 30.0, took=half)
    usage = MoveClock(reserve=0.08, learn_usage=True)
    for _ in range(8):
        budgets, left = play(usage, fake, 30.0, took=half)
    assert usage.usage[1:24] == pytest.approx([0.5] * 23, abs=0.03)
    assert budgets[0] > 1.8 * (30.0 - 2.4 - 23 * FLOOR) / 23  # about twice the even share
    assert 30.0 - left > (30.0 - even_left) + 4.0  # 27.5 s of the 30 s used against 22.9
    assert left >= 2.4  # the reserve is never planned for


def test_learned_usage_of_moves_that_take_their_budget_is_even_shares(fake):
    even, usage = MoveClock(reserve=0.08), MoveClock(reserve=0.08, learn_usage=True)
    for _ in range(3):
        even_budgets, _ = play(even, fake, 5.0)
        usage_budgets, left = play(usage, fake, 5.0)
    assert usage_budgets == pytest.approx(even_budgets)
    assert left == pytest.approx(0.4 + FLOOR)


def test_learned_usage_survives_a_game_whose_late_moves_all_need_their_budget(fake):
    """Taught by games whose moves took a tenth of their budgets, the clock meets a
    game whose last ten moves each take all of it: the reserve still holds."""
    usage = MoveClock(reserve=0.08, learn_usage=True)
    for _ in range(10):
        play(usage, fake, 5.0, took=lambda move, budget: 0.1 * budget)
    budgets, left = play(usage, fake, 5.0, took=lambda move, budget: budget if move >= 13 else 0.1 * budget)
    assert all(b > 0 for b in budgets[:13])
    assert left >= 0.4 - 1e-9


@pytest.mark.parametrize("time_per_game", ["5", 0, -5.0, float("nan"), True])
def test_a_time_per_game_that_is_not_seconds_is_one_clear_error(time_per_game):
    """"5" used to fail at the first move (str - float); 0, -5 and NaN played every move
    unsearched, as if out of time."""
    from pokersquares.errors import PokerSquaresError
    from pokersquares.players.hybrid import hybrid

    with pytest.raises(PokerSquaresError, match="time_per_game is seconds > 0"):
        MoveClock(time_per_game=time_per_game)
    with pytest.raises(PokerSquaresError, match="time_per_game is seconds > 0"):
        hybrid(time_per_game=time_per_game)


def test_a_game_with_no_clock_is_planned_on_the_time_per_game_or_refused(fake):
    """``seconds_left=inf``: an infinite reserve (a share of an infinite game) made every
    budget NaN or 0, the game played unsearched, or with a reserve cap an infinite budget
    handed to a search that stops only on its clock. With ``time_per_game`` that is the
    clock, exactly as under a finite clock above it; without, it is one clear error."""
    from pokersquares.errors import PokerSquaresError

    for clock in (MoveClock(), MoveClock(reserve=0.07, reserve_max_s=0.5), MoveClock(time_per_game=math.inf)):
        clock.start_game()
        with pytest.raises(PokerSquaresError, match="seconds_left is inf.*finite time_per_game"):
            clock.budget(math.inf, 10)
    with pytest.raises(PokerSquaresError, match="seconds_left is a number of seconds, got nan"):
        MoveClock().budget(math.nan, 10)
    own, above = MoveClock(time_per_game=1.0), MoveClock(time_per_game=1.0)
    assert play(own, fake, math.inf)[0] == play(above, fake, 30.0)[0]
    assert MoveClock().budget(-1.0, 10) == 0.0  # a game past its time: the greedy move, as before


@pytest.mark.timeout(300)
@pytest.mark.parametrize("spec", ["hybrid:evaluator=possibility,search=flat_mc", "tiger", "greedy_mc",
                                  "hybrid:evaluator=possibility,search=flat_mc,time_per_game=0.5"])
def test_a_player_told_its_game_has_no_clock_plays_its_time_per_game_or_says_it_needs_one(spec):
    """``get_play(card, inf)``: the hybrid's flat MC was handed NaN seconds, tiger's MCTS
    infinite ones (a search that never stopped), and a player whose clock kept a capped
    reserve played the rest of its game unsearched. A player with ``time_per_game`` plays
    the game searched within it; one without refuses at its first searched move."""
    from pokersquares.errors import PokerSquaresError

    player = make_player(spec)
    player.set_point_system(AMERICAN, 0.0)
    player.start_game()
    cards = [int(c) for c in deal(3)[:25]]
    if "time_per_game" not in spec:
        with pytest.raises(PokerSquaresError, match="seconds_left is inf.*give the player a finite time_per_game"):
            for card in cards:
                player.get_play(card, math.inf)
        assert (player.grid >= 0).sum() <= 2  # the corner and (tiger) its rule's move are played unsearched
        return
    budgets, search = [], player.search

    class Recording(Search):
        def choose(self, evaluator, grid, card, points, time_s, seed):
            budgets.append(time_s)
            return search.choose(evaluator, grid, card, points, time_s, seed)

    player.search = Recording()
    for card in cards:
        player.get_play(card, math.inf)
    assert (player.grid >= 0).all()
    assert len(budgets) + player.fallback_moves == 23 and budgets  # searched, on its own clock
    assert all(0 < b <= 0.5 / 23 * MAX_SHARES for b in budgets)
