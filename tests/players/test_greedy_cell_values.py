"""GreedyPlayer.cell_values: the per-cell gains that the web app's advice shows."""

import numpy as np

from pokersquares import AMERICAN, Game
from pokersquares.players import GreedyPlayer


def test_cell_values_rank_cells_as_greedy_chooses():
    game = Game.from_seed(7, AMERICAN)
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    player.start_game()
    for card in game:
        grid = player.grid.copy()
        values = player.cell_values(grid, card, 1.0)
        occupied = grid != -1
        assert np.isnan(values[occupied]).all()
        assert np.isfinite(values[~occupied]).all()
        cell = player.choose(grid, card, 1.0)
        assert values[cell] == np.nanmax(values)
        game.play(*player.get_play(card, 1.0))
    assert game.done


def test_pair_gain_is_the_pair_points():
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    grid = np.full(25, -1, dtype=np.int8)
    grid[0] = 0  # AC at row 0, column 0
    values = player.cell_values(grid, 13, 1.0)  # AD
    # Next to the ace in its row: a pair (2 points); in its column: a pair, no flush (clubs vs diamonds).
    assert values[1] == AMERICAN[1]
    assert values[5] == AMERICAN[1]
    assert values[6] == 0
