"""TdSearch: the inner search decides on a copy of the evaluator learned from the position."""

import math
import time

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.evaluators.narl import NarlEvaluator
from pokersquares.evaluators.td import TdEvaluator
from pokersquares.points import AMERICAN
from pokersquares.search.base import GreedySearch, Search
from pokersquares.search.td_search import TdSearch

POINTS = np.array(AMERICAN.points, dtype=np.int64)


@pytest.fixture(scope="module")
def td():
    evaluator = TdEvaluator(games=2000, td_games=500, threads=1)
    evaluator.prepare(POINTS, 0.0, seed=3)
    grid, card = _mid_game()
    evaluator.adapted_copy().learn_from(grid, card, 1, 0)  # compiled before any clock runs
    return evaluator


def _mid_game(seed: int = 5, placed: int = 9):
    cards = deal(seed)
    grid = np.full(25, -1, dtype=np.int8)
    grid[np.random.default_rng(seed).permutation(25)[:placed]] = cards[:placed]
    return grid, int(cards[placed])


class Recording(Search):
    """Greedy, remembering the evaluator and budget it was given."""

    def choose(self, evaluator, grid, card, points, time_s, seed):
        self.seen, self.time_s = evaluator, time_s
        return GreedySearch().choose(evaluator, grid, card, points, time_s, seed)


@pytest.mark.parametrize("cores", [1, 2])
def test_the_inner_search_decides_on_a_learned_copy_and_the_evaluator_keeps_its_weights(td, cores):
    grid, card = _mid_game()
    before = td.theta.copy()
    inner = Recording()
    search = TdSearch(inner, episodes=400, cores=cores)
    cell, values = search.choose(td, grid, card, POINTS, 10.0, seed=1)
    np.testing.assert_array_equal(td.theta, before)
    assert inner.seen is not td and inner.seen.narl is td.narl  # the table is shared, not copied
    assert np.abs(inner.seen.theta - before).max() > 0
    assert search.last["episodes"] == 400
    assert cell == int(np.argmax(inner.seen.placement_values(grid, card)))
    assert inner.time_s < 10.0


def test_with_no_clock_it_learns_its_episodes_and_the_inner_search_decides_with_none(td):
    """time_s=inf: sizing a batch of learning games to an infinite time failed as int(inf);
    ``episodes`` bounds the learning, and an inner search only its clock stops is refused
    before any learning."""
    from pokersquares.search.base import SearchOptionError
    from pokersquares.search.mcts import MCTS

    grid, card = _mid_game()
    inner = Recording()
    search = TdSearch(inner, episodes=300, cores=1)
    search.choose(td, grid, card, POINTS, math.inf, seed=1)
    assert search.last["episodes"] == 300 and inner.time_s == math.inf
    clocked = TdSearch(MCTS(), episodes=300, cores=1)
    with pytest.raises(SearchOptionError, match="give it iterations=N"):
        clocked.choose(td, grid, card, POINTS, math.inf, seed=1)
    assert clocked.last == {}  # refused before learning


def test_learning_stops_at_its_share_of_the_move(td):
    grid, card = _mid_game(placed=3)
    search = TdSearch(GreedySearch(), episodes=200_000, time_share=0.5)
    search.choose(td, grid, card, POINTS, 0.05, seed=2)  # learns the playing speed
    start = time.perf_counter()
    search.choose(td, grid, card, POINTS, 0.4, seed=3)
    took = time.perf_counter() - start
    assert 0 < search.last["episodes"] < 200_000
    assert search.last["learn_s"] <= 0.2 + 0.1 and took < 0.4 + 0.1


def test_an_evaluator_that_cannot_learn_so_goes_to_the_inner_search_as_it_is():
    narl = NarlEvaluator(games=1000, threads=1)
    narl.prepare(POINTS, 0.0, seed=1)
    grid, card = _mid_game()
    inner = Recording()
    TdSearch(inner, episodes=100).choose(narl, grid, card, POINTS, 1.0, seed=1)
    assert inner.seen is narl


def test_a_position_with_one_empty_cell_learns_nothing(td):
    grid = np.full(25, -1, dtype=np.int8)
    grid[:24] = np.arange(24)
    search = TdSearch(GreedySearch(), episodes=100)
    assert search.choose(td, grid, 30, POINTS, 1.0, seed=1)[0] == 24
    assert search.last["episodes"] == 0


class _Slowing:
    """An evaluator whose learning turns three times slower after its first three
    batches (the batches grow fourfold: the fourth is the first large one), as when
    other work starts beside it mid-move."""

    def __init__(self):
        self.calls = 0

    def adapted_copy(self):
        return self

    def learn_from(self, grid, card, n, seed, alpha=0.01, lam=0.5):
        self.calls += 1
        time.sleep(n * (2e-4 if self.calls <= 3 else 6e-4))


def test_a_machine_that_slows_mid_move_does_not_push_the_learning_past_its_share():
    search = TdSearch(GreedySearch(), episodes=10**9, time_share=0.5, cores=1)
    search.episode_s = 2e-4  # as measured before, on the quiet machine
    grid, card = _mid_game()
    search.adapt(_Slowing(), grid, card, 1.0, seed=0)
    # Planned for all the time left, the fourth batch (1,024 games) would have ended near 0.7 s.
    assert search.last["learn_s"] <= 0.5 + 0.03


class _CostedLearning:
    """Learning whose games take 0.1 ms each on the fake clock."""

    def __init__(self, clock):
        self.clock = clock

    def adapted_copy(self):
        return self

    def learn_from(self, grid, card, n, seed, alpha=0.01, lam=0.5):
        self.clock.charge(n * 1e-4)


class _CutShort(Search):
    """Greedy, saying the clock cut it short."""

    def choose(self, evaluator, grid, card, points, time_s, seed):
        self.cut_short = True
        return GreedySearch().choose(evaluator, grid, card, points, time_s, seed)


def test_a_batch_the_clock_made_smaller_or_an_inner_search_cut_short_is_a_search_cut_short(td, fake_clock):
    """``cut_short`` (a player counts the move as a fallback): the clock sized a batch
    below what ``episodes`` gave (other games on other seeds than a replay's), or cut the
    inner search short; not learning its episodes in batches only they sized."""
    from pokersquares.search import td_search

    clock = fake_clock.install(td_search)
    grid, card = _mid_game()
    said = []
    for episodes, budget in ((300, math.inf), (300, 10.0), (300, 0.02), (3, 0.0)):
        search = TdSearch(GreedySearch(), episodes=episodes, cores=1)
        search.episode_s = 1e-4
        search.adapt(_CostedLearning(clock), grid, card, budget, seed=0)
        said.append((search.cut_short, search.last["episodes"]))
    assert said[:2] == [(False, 300)] * 2
    assert said[2][0] and 0 < said[2][1] < 300
    assert said[3] == (True, 0)
    for inner, cut in ((GreedySearch(), False), (_CutShort(), True)):
        search = TdSearch(inner, episodes=50, cores=1)
        search.choose(td, grid, card, POINTS, math.inf, seed=1)
        assert search.cut_short == cut
