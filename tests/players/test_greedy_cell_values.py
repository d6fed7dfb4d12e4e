"""GreedyPlayer's advice: its numbers estimate the final score when the card goes in a
cell and its one-ply rule plays on; its advised cell is its own move."""

import numpy as np
import pytest

from pokersquares import AMERICAN, BRITISH, Game, Grid
from pokersquares.cards import deal
from pokersquares.players import GreedyPlayer


def _late_grid(seed: int, placed: int):
    """``placed`` cards of deal ``seed`` placed by greedy, and the next card."""
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    player.start_game()
    cards = deal(seed)
    for card in cards[:placed]:
        player.get_play(int(card), 1.0)
    return player.grid.copy(), int(cards[placed])


@pytest.mark.parametrize("system, flush_weight", [(AMERICAN, 0.3), (BRITISH, 1.0)])
def test_cell_values_are_greedy_playing_on_over_the_same_sampled_futures(system, flush_weight):
    grid, card = _late_grid(3, 20)
    player = GreedyPlayer(flush_weight)
    player.set_point_system(system, 0)
    player.set_seed(11)
    values = player.cell_values(grid, card, 60.0)  # time for all 200 futures
    # The plain-Python reference: the same 200 shuffles of the undealt cards (drawn as
    # the advice draws them), each played on by the player's own rule.
    undealt = np.setdiff1d(np.arange(52), np.append(grid[grid >= 0], card))
    rng = np.random.default_rng(11)
    futures = [rng.permutation(undealt) for _ in range(200)]
    for cell in range(25):
        if grid[cell] >= 0:
            assert values[cell] == -np.inf
            continue
        scores = []
        for future in futures:
            g = grid.copy()
            g[cell] = card
            for c in future[:int((g < 0).sum())]:
                g[player.choose(g, int(c), 1.0)] = c
            scores.append(Grid(g.tolist()).score(system))
        assert values[cell] == pytest.approx(np.mean(scores)), cell


def test_a_short_time_samples_fewer_futures_but_still_estimates_every_cell():
    grid, card = _late_grid(5, 4)
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    values = player.cell_values(grid, card, 0.01)
    assert np.isfinite(values[grid < 0]).all() and np.isneginf(values[grid >= 0]).all()
    assert 20 < values[grid < 0].max() < 200  # final scores, not one-ply gains of a few points


def test_the_advised_cell_is_greedys_own_move():
    game = Game.from_seed(7, AMERICAN)
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    player.start_game()
    for card in game:
        grid = player.grid.copy()
        assert player.advised_cell(grid, card) == player.choose(grid, card, 1.0)
        game.play(*player.get_play(card, 1.0))
    assert game.done


def test_pair_gain_is_the_pair_points():
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    grid = np.full(25, -1, dtype=np.int8)
    grid[0] = 0  # AC at row 0, column 0
    gains = player.gains(grid, 13)  # AD
    # Next to the ace in its row: a pair (2 points); in its column: a pair, no flush (clubs vs diamonds).
    assert gains[1] == AMERICAN[1]
    assert gains[5] == AMERICAN[1]
    assert gains[6] == 0


@pytest.mark.parametrize("flush_weight", [1e308, -1e308, 1e13, float("nan"), float("inf"), "0.3", True])
def test_a_flush_weight_that_is_no_number_or_overflows_is_refused(flush_weight):
    """Before, GreedyPlayer(flush_weight=1e308) (greedy:flush_weight=1e308) was built, its
    flush term overflowed to inf, every gain became -inf or NaN, and it played its 11th
    card into an occupied cell: the game scored the penalty."""
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match=r"^flush_weight must be a number from -1e\+12 to 1e\+12, got"):
        GreedyPlayer(flush_weight=flush_weight)


@pytest.mark.parametrize("flush_weight", [1e12, -1e12])
def test_the_largest_flush_weights_play_legal_games(flush_weight, play_legal):
    player = GreedyPlayer(flush_weight=flush_weight)
    player.set_point_system(AMERICAN, 0)
    play_legal(player, 0)


@pytest.mark.parametrize("flush, second_club, fifth_club", [(20, 0.3 * 2 / 5 * 20, 20 - 0.3 * 4 / 5 * 20),
                                                            (-20, 0.0, -20.0)])
def test_a_suited_columns_bonus_grows_with_it_and_ends_when_it_is_full_or_flushes_score_below_zero(
        flush, second_club, fifth_club):
    """The column bonus is flush_weight x length / 5 of the flush points, for two to four
    cards of one suit: none for one card, none for a full column (it scores its flush
    itself), none for two suits, none when a flush scores below zero."""
    from pokersquares import PointSystem

    player = GreedyPlayer()
    player.set_point_system(PointSystem((0, 2, 5, 10, 15, flush, 25, 50, 75, 100)), 0)
    grid = np.full(25, -1, dtype=np.int8)
    grid[0] = 0  # AC
    gains = player.gains(grid, 1)  # 2C
    assert gains[5] == pytest.approx(second_club)  # under the ace: a suited column of two
    assert gains[1] == 0 and gains[6] == 0  # beside it (rows take no bonus); alone in its lines
    assert player.gains(grid, 13)[5] == 2  # AD under AC: the pair's points, no bonus for two suits
    grid[[0, 5, 10, 15]] = [1, 3, 5, 7]  # 2C 4C 6C 8C down column 0
    assert player.gains(grid, 9)[20] == pytest.approx(fifth_club)  # TC completes a flush (no straight)
