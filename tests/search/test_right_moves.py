"""Every evaluator with every search, on positions with one clearly right move:
complete the royal flush, complete the four of a kind, keep a four-card flush open.
A search that misreads its evaluator's values (averaging gains as if they were
scores, pruning on the wrong scale) fails here."""

import numpy as np
import pytest

from pokersquares.cards import parse_card
from pokersquares.points import AMERICAN
from pokersquares.search.base import GreedySearch
from pokersquares.search.expectimax import Expectimax
from pokersquares.search.flat_mc import FlatMonteCarlo
from pokersquares.search.flat_ucb import DepthLimitedFlatMC, FlatUCB1
from pokersquares.search.mcts import MCTS

POINTS = np.array(AMERICAN.points, dtype=np.int64)

# Fixed work, so that a loaded machine changes nothing (expectimax finishes well
# within its generous clock).
SEARCHES = {
    "greedy": lambda: GreedySearch(),
    "flat_mc": lambda: FlatMonteCarlo(playouts=60, cores=1),
    "expectimax": lambda: Expectimax(),
    "depth_mc": lambda: DepthLimitedFlatMC(pulls=11 * 30),
    "flat_ucb": lambda: FlatUCB1(pulls=11 * 40),
    "mcts": lambda: MCTS(iterations=3000),
}


def c(text: str) -> int:
    return int(parse_card(text))


def _position(row0: list[str], filler: list[str]) -> np.ndarray:
    """Row 0 holds ``row0`` in cells 0-3 (cell 4 empty), rows 1 and 2 hold ``filler``
    (no pair, flush or straight draw among them), rows 3 and 4 are empty."""
    grid = np.full(25, -1, dtype=np.int8)
    grid[:4] = [c(t) for t in row0]
    grid[5:15] = [c(t) for t in filler]
    return grid


FILLER = ["2C", "7D", "3S", "8H", "4D", "9S", "5C", "JD", "6S", "QC"]
POSITIONS = {
    # the missing card of a royal flush in hand: only cell 4 scores 100
    "royal flush": (_position(["TH", "JH", "QH", "KH"], FILLER), c("AH"), {4}),
    # the fourth king in hand: only cell 4 makes four of a kind (50)
    "four of a kind": (_position(["KS", "KH", "KD", "2H"], FILLER), c("KC"), {4}),
    # a spade in hand: cell 4 would end row 0's flush draw (9 hearts unseen)
    "keep the flush open": (_position(["2H", "5H", "9H", "JH"], FILLER), c("7S"),
                            set(range(25)) - {4}),
}


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("evaluator", ["patterns", "narl", "possibility"])
@pytest.mark.parametrize("position", POSITIONS)
def test_the_right_move(prepared_evaluators, evaluator, search, position):
    grid, in_hand, right = POSITIONS[position]
    assert len(set(grid[grid >= 0].tolist()) | {in_hand}) == 15  # no card twice
    ev = prepared_evaluators[evaluator]
    cell, values = SEARCHES[search]().choose(ev, grid.copy(), in_hand, POINTS, 30.0, 11)
    assert cell in right, (cell, np.round(values, 1).reshape(5, 5))
    assert grid[cell] == -1
