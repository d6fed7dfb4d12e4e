import math

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.base import Evaluator
from pokersquares.evaluators.possibility import PossibilityEvaluator
from pokersquares.kernels import mcts as km
from pokersquares.kernels import score_grid
from pokersquares.points import AMERICAN
from pokersquares.search.mcts import DEFAULT_CP, MAX_CAPACITY, MCTS, squash_range

PTS = np.array(AMERICAN.points, dtype=np.int64)


def _values(pairs):
    v = np.full(25, -np.inf)
    for cell, value in pairs.items():
        v[cell] = value
    return v


def _cells(mask):
    return {i for i in range(25) if mask >> i & 1}


def test_prune_keeps_children_at_or_above_delta_times_parent():
    v = _values({0: 10.0, 1: 13.0, 2: 14.0, 3: 20.0, 4: 12.9})
    # threshold 1.3 * 10 = 13: cells 0 and 4 go (2 of 5 = 40% <= 70%)
    assert _cells(km.prune_mask(v, 10.0, 1.3)) == {1, 2, 3}


def test_overpruning_falls_back_to_the_bottom_half():
    v = _values({0: 1.0, 1: 2.0, 2: 3.0, 3: 4.0, 4: 50.0})
    # threshold 13 prunes 4 of 5 (80% > 70%): prune only the lowest floor(5/2) = 2
    assert _cells(km.prune_mask(v, 10.0, 1.3)) == {2, 3, 4}
    # everything below the threshold: still the top half survives
    assert _cells(km.prune_mask(_values({7: 1.0, 8: 2.0}), 100.0, 1.3)) == {8}
    assert _cells(km.prune_mask(_values({7: 1.0}), 100.0, 1.3)) == {7}


def test_uct_arithmetic():
    assert km.uct_value(50.0, 4, 100, 2.0) == pytest.approx(50 + 4 * math.sqrt(2 * math.log(100) / 4))
    assert DEFAULT_CP == pytest.approx(141.42, abs=0.01)


def test_squash_ranges():
    assert squash_range("none", PTS) == (0.0, 0.0)
    assert squash_range("imprecise", PTS) == (0.0, 1000.0)
    assert squash_range("precise", PTS) == (0.0, 725.0)
    with pytest.raises(PokerSquaresError):
        squash_range("precise", np.arange(10))


def test_endgame_values_are_exact_expectations():
    cards = deal(3)
    grid = np.array(list(cards[:23]) + [-1, -1], dtype=np.int8)
    card = cards[23]
    values = km.endgame_values(grid, card, PTS)
    assert values[:23].max() == -np.inf
    rest = [c for c in range(52) if c not in set(cards[:24])]
    for cell, other in ((23, 24), (24, 23)):
        scores = []
        for c in rest:
            g = grid.copy()
            g[cell], g[other] = card, c
            scores.append(score_grid(g, PTS))
        assert values[cell] == pytest.approx(np.mean(scores))


def _mid_game(n=14, seed=2):
    cards = deal(seed)
    ev = PossibilityEvaluator()
    ev.prepare(PTS, 0.0)
    grid = np.full(25, -1, dtype=np.int8)
    for c in cards[:n]:
        grid[ev.greedy_cell(grid, c)] = c
    return ev, grid, cards[n]


@pytest.mark.parametrize("selection", ["uct", "prune", "best"])
@pytest.mark.parametrize("simulation", ["random", "prune", "best"])
def test_every_variant_chooses_a_legal_cell(selection, simulation):
    ev, grid, card = _mid_game()
    search = MCTS(selection, simulation, iterations=300)
    cell, values = search.choose(ev, grid, card, PTS, 0.0, seed=1)
    assert grid[cell] == -1
    assert np.isfinite(values[cell]) and values[cell] == values.max()
    assert (values[grid >= 0] == -np.inf).all()


def test_visits_add_up_and_selection_respects_pruning():
    ev, grid, card = _mid_game()
    search = MCTS("prune", "random", iterations=2000)
    search.choose(ev, grid, card, PTS, 0.0, seed=5)
    tree = search._tree
    assert tree.visits[0] == 2000
    children = []
    child = tree.first_child[0]
    while child >= 0:
        children.append(child)
        child = tree.next_sibling[child]
    assert sum(tree.visits[c] for c in children) == 2000
    allowed = km.prune_mask(ev.placement_values(grid, card), ev.state_value(grid), 1.3)
    assert {int(tree.move[c]) for c in children} == _cells(allowed)
    assert search.last_nodes == int(tree.size[0]) > len(children)


def test_best_move_selection_searches_only_the_best_child():
    ev, grid, card = _mid_game()
    search = MCTS("best", "random", iterations=200)
    cell, values = search.choose(ev, grid, card, PTS, 0.0, seed=1)
    assert cell == ev.greedy_cell(grid, card)
    assert np.isfinite(values).sum() == 1


def test_same_seed_same_choice():
    ev, grid, card = _mid_game()
    a = MCTS("uct", "best", iterations=500).choose(ev, grid, card, PTS, 0.0, seed=9)
    b = MCTS("uct", "best", iterations=500).choose(ev, grid, card, PTS, 0.0, seed=9)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])


def test_time_budget_is_kept(fake_clock):
    """On a clock that moves only with the iterations run (25 us each, a stall of 0.1 s
    in one batch), the search spends its budget and stops within one stalled batch."""
    from pokersquares.search import mcts as search_mcts

    ev, grid, card = _mid_game(8)
    clock = fake_clock.install(search_mcts)
    calls = []

    def cost(tree, grid, deck, n, *rest):
        calls.append(n)
        return n * 25e-6 + (0.1 if len(calls) == 3 else 0.0)
    fake_clock.charge_per(search_mcts.km, "run_iterations", cost)
    search = MCTS("prune", "best")
    start = clock.now
    search.choose(ev, grid, card, PTS, 0.5, seed=0)
    elapsed = clock.now - start
    assert 0.45 < elapsed <= 0.5 + 0.1
    assert search.last_iterations == sum(calls) > 0.4 / 25e-6 * 0.9


class _PythonEvaluator(Evaluator):
    """An evaluator without a numba kernel: counts hands already made."""

    name = "python"

    def placement_values(self, grid, card):
        out = np.full(25, -np.inf)
        for cell in np.flatnonzero(grid < 0):
            g = grid.copy()
            g[cell] = card
            out[cell] = self.state_value(g)
        return out

    def state_value(self, grid):
        return float(score_grid(np.ascontiguousarray(grid, dtype=np.int8), self.points))

    def playouts(self, grid, n, seed):
        raise NotImplementedError


def test_any_evaluator_drives_pruning_and_best_move_simulation():
    _, grid, card = _mid_game()
    ev = _PythonEvaluator()
    ev.prepare(PTS, 0.0)
    for selection, simulation in (("prune", "best"), ("uct", "random"), ("uct", "prune")):
        cell, values = MCTS(selection, simulation, iterations=30).choose(ev, grid, card, PTS, 0.0, seed=2)
        assert grid[cell] == -1 and np.isfinite(values[cell])


def test_bad_options_are_user_errors():
    for kwargs in (dict(selection="x"), dict(simulation="x"), dict(squash="x"), dict(final="x"), dict(cp=-1)):
        with pytest.raises(PokerSquaresError):
            MCTS(**kwargs)


@pytest.mark.parametrize("kwargs, word", [
    (dict(cp=math.nan), "cp"), (dict(cp=math.inf), "cp"), (dict(delta=0), "delta"), (dict(delta=math.nan), "delta"),
    (dict(capacity=10**10), "capacity"), (dict(capacity=1), "capacity"), (dict(capacity=2.5), "capacity"),
    (dict(iterations=0), "iterations"), (dict(iterations=1.5), "iterations"),
    (dict(min_search_s=-1), "min_search_s"), (dict(min_search_s=math.nan), "min_search_s")])
def test_numbers_that_would_fail_in_the_game_are_refused_when_built(kwargs, word):
    # A capacity of ten billion nodes was a MemoryError in the game (the penalty); a NaN
    # C_p or a negative least search was taken as given.
    with pytest.raises(PokerSquaresError, match=word):
        MCTS(**kwargs)
    MCTS(capacity=MAX_CAPACITY, iterations=1, min_search_s=0.0)  # the bounds themselves are fine


def test_pickled_search_leaves_its_tree_behind():
    import pickle
    ev, grid, card = _mid_game()
    search = MCTS(iterations=50)
    search.choose(ev, grid, card, PTS, 0.0, seed=0)
    copy = pickle.loads(pickle.dumps(search))
    assert copy._tree is None and search._tree is not None
    assert copy.choose(ev, grid, card, PTS, 0.0, seed=0)[0] == search.choose(ev, grid, card, PTS, 0.0, seed=0)[0]


def test_searches_in_two_threads_each_reach_their_own_python_evaluator():
    """As the web app's thinking threads do: two searches at once, under different point
    systems, each with an evaluator that has no numba kernel."""
    import threading

    from pokersquares.points import BRITISH

    _, grid, card = _mid_game()
    both_searching = threading.Barrier(2, timeout=30)

    class Recording(_PythonEvaluator):
        def __init__(self, wait: bool):
            self.callers, self.wait = set(), wait

        def state_value(self, grid):
            self.callers.add(threading.get_ident())
            if self.wait:  # hold the first call until the other search is running too
                self.wait = False
                both_searching.wait()
            return super().state_value(grid)

    def search(points, wait, out, key):
        ev = Recording(wait)
        ev.prepare(points, 0.0)
        out[key] = (ev, threading.get_ident(),
                    MCTS("prune", "best", iterations=200).choose(ev, grid, card, points, 0.0, seed=4))

    systems = {"american": PTS, "british": np.array(BRITISH.points, dtype=np.int64)}
    alone, together = {}, {}
    for key, points in systems.items():
        search(points, False, alone, key)
    threads = [threading.Thread(target=search, args=(points, True, together, key)) for key, points in systems.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key in systems:
        ev, ident, (cell, values) = together[key]
        assert ev.callers == {ident}  # only its own search called it
        assert cell == alone[key][2][0] and np.array_equal(values, alone[key][2][1])


@pytest.mark.parametrize("selection,simulation", [("uct", "random"), ("prune", "best"), ("prune", "prune"),
                                                  ("best", "best"), ("uct", "best")])
@pytest.mark.parametrize("filled", [19, 16])
def test_kernel_matches_the_plain_python_reference(selection, simulation, filled):
    """The whole search, iteration for iteration: the same tree statistics at the root
    as the readable reference (same rules, same random numbers) after 400 iterations."""
    ev, grid, card = _mid_game(filled, seed=4)
    ev.prepare(PTS, 1.0)  # calibrated values: the baseline matters to pruning
    search = MCTS(selection, simulation, cp=20.0, iterations=400)
    search.choose(ev, grid, card, PTS, 0.0, seed=9)
    visits = km.root_values(search._tree, True)
    means = km.root_values(search._tree, False)
    reference = km.mcts_reference(grid, card, 400, 9, search.selection, search.simulation, 20.0, 1.3, PTS, ev,
                                  ev.offsets)
    assert sorted(reference) == sorted(np.flatnonzero(np.isfinite(visits)).tolist())
    for cell, (n, total) in reference.items():
        assert visits[cell] == n
        assert means[cell] == pytest.approx(total / n, rel=1e-12)
    assert sum(n for n, _ in reference.values()) == 400


def test_one_search_asked_from_two_threads_at_once_answers_each_as_if_alone():
    """Both searches used to grow the one scratch tree from their two roots: wrong moves
    (a cell of the other position's tree) or a ZeroDivisionError in the kernel."""
    import threading

    ev = PossibilityEvaluator()
    ev.prepare(PTS, 0.0, 0)
    a = np.full(25, -1, np.int8)
    a[:10] = np.arange(10)
    b = np.full(25, -1, np.int8)
    b[5:15] = np.arange(20, 30)
    asks = {"a": (a, 40, 1), "b": (b, 41, 2)}
    search = MCTS(iterations=20000)
    alone = {k: search.choose(ev, g, card, PTS, 0.0, seed) for k, (g, card, seed) in asks.items()}
    for _ in range(4):
        got, errors = {}, []

        def ask(k):
            g, card, seed = asks[k]
            try:
                got[k] = search.choose(ev, g, card, PTS, 0.0, seed)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=ask, args=(k,)) for k in asks]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        for k in asks:
            assert got[k][0] == alone[k][0] and np.array_equal(got[k][1], alone[k][1]), k


def test_final_picks_the_best_mean_or_the_most_visited_root_child():
    # with a wide C_p on a mid-game position the most visited child and the best mean
    # differ: each final rule must pick its own
    ev, grid, card = _mid_game(8)
    for final in ("mean", "visits"):
        search = MCTS("uct", "random", cp=1000.0, final=final, iterations=300)
        cell, means = search.choose(ev, grid, card, PTS, 0.0, seed=0)
        visits = km.root_values(search._tree, True)
        assert np.array_equal(means, km.root_values(search._tree, False))
        assert int(np.argmax(visits)) != int(np.argmax(means))
        assert cell == int(np.argmax(visits if final == "visits" else means))


def test_squash_ranges_of_every_kind():
    from pokersquares.points import BRITISH
    british = np.array(BRITISH.points, dtype=np.int64)
    negative = np.array([-20, -5, 0, 3, 4, 5, 6, 7, 8, 90], dtype=np.int64)
    assert squash_range("imprecise", negative) == (-200.0, 900.0)  # 10 x the lowest, 10 x the highest
    assert squash_range("imprecise", british) == (10.0 * british.min(), 10.0 * british.max())
    assert squash_range("max200", negative) == (0.0, 200.0)
    assert squash_range("max2000", negative) == (0.0, 2000.0)
    with pytest.raises(PokerSquaresError, match="unknown squash"):
        squash_range("max20", PTS)


def test_iterations_above_the_cap_are_refused():
    from pokersquares.search.mcts import MAX_ITERATIONS
    with pytest.raises(PokerSquaresError, match="iterations"):
        MCTS(iterations=MAX_ITERATIONS + 1)
    assert MCTS(iterations=MAX_ITERATIONS).iterations == MAX_ITERATIONS


def test_fixed_iterations_are_counted():
    ev, grid, card = _mid_game()
    search = MCTS("prune", "best", iterations=120)
    for move in (1, 2):
        search.choose(ev, grid, card, PTS, 0.0, seed=move)
        assert search.last_iterations == 120 and int(search._tree.visits[0]) == 120
        assert search.iterations_total == 120 * move and search.moves_total == move


def test_calc_variants_compute_the_evaluators_values_without_using_them():
    # the paper's "+ Calc": plain UCT selection or random simulation that still pays for
    # the values pruning would use, and plays exactly as without them
    _, grid, card = _mid_game()

    class Counting(_PythonEvaluator):
        calls = 0

        def placement_values(self, grid, card):
            Counting.calls += 1
            return super().placement_values(grid, card)

    ev = Counting()
    ev.prepare(PTS, 0.0)
    plain = MCTS("uct", "random", iterations=200)
    assert not plain.needs_evaluator
    cell, values = plain.choose(ev, grid, card, PTS, 0.0, seed=3)
    for kwargs in (dict(select_calc=True), dict(simulate_calc=True)):
        Counting.calls = 0
        search = MCTS("uct", "random", iterations=200, **kwargs)
        assert search.needs_evaluator
        got = search.choose(ev, grid, card, PTS, 0.0, seed=3)
        assert Counting.calls > 1, kwargs  # at the root and below it
        assert got[0] == cell and np.array_equal(got[1], values)


def test_a_warm_up_searches_at_most_its_cap():
    from pokersquares.search.mcts import WARM_UP_ITERATIONS
    assert MCTS(iterations=10 ** 6).warm_up_copy().iterations == WARM_UP_ITERATIONS
    assert MCTS(iterations=5).warm_up_copy().iterations == 5
    assert MCTS().warm_up_copy().iterations is None
