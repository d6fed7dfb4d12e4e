"""The greedy rule's kernel against its readable reference, players.baseline.GreedyPlayer."""

import numpy as np
import pytest

from pokersquares.kernels.core import score_grid
from pokersquares.kernels.greedy import greedy_rule_cell, greedy_rule_games
from pokersquares.players.baseline import GreedyPlayer
from pokersquares.points import AMERICAN, BRITISH, PointSystem, parse_point_system

SYSTEMS = [AMERICAN, BRITISH, parse_point_system("random:1"), parse_point_system("single:flush"),
           PointSystem((-1, -2, -5, -10, -15, -20, -25, -50, -75, -100), "all negative")]


def _reference_game(system, deal):
    player = GreedyPlayer()
    player.set_point_system(system, 0.0)
    player.start_game()
    cells = []
    for card in deal:
        player.get_play(int(card), 1.0)
        cells.append(int(np.flatnonzero(player.grid == card)[0]))
    return cells, player.grid.copy()


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_kernel_moves_are_the_reference_players_moves(system):
    points = np.array(system.points, dtype=np.int64)
    rng = np.random.default_rng(7)
    for _ in range(20):
        deal = rng.permutation(52)[:25].astype(np.int8)
        cells, final = _reference_game(system, deal)
        grid = np.full(25, -1, dtype=np.int8)
        for card, cell in zip(deal, cells):
            assert greedy_rule_cell(grid, card, points, 0.3) == cell
            grid[cell] = card
        assert greedy_rule_games(np.full(25, -1, dtype=np.int8), deal[None, :], points, 0.3)[0] == \
            score_grid(final, points)


def test_games_go_on_from_a_partial_grid_with_the_deal_s_cards_in_order():
    points = np.array(AMERICAN.points, dtype=np.int64)
    deal = np.random.default_rng(3).permutation(52)[:25].astype(np.int8)
    cells, final = _reference_game(AMERICAN, deal)
    grid = np.full(25, -1, dtype=np.int8)
    for card, cell in zip(deal[:10], cells[:10]):
        grid[cell] = card
    scores = greedy_rule_games(grid, np.stack([deal[10:], deal[10:]]), points, 0.3)
    assert scores.tolist() == [score_grid(final, points)] * 2
