"""Reviews of played games: each move's loss against a coach's values, exact over the last
cards, and the summaries over games."""

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.game import EMPTY, Game
from pokersquares.points import AMERICAN, BRITISH
from pokersquares.errors import InvalidSeedError
from pokersquares.review import (TIE, GameReview, ReviewError, STAGES, TRANSPOSE, coach_values, either_way_round,
                                 make_coach, prepare_coach, review_game, review_record, run_summary)
from pokersquares.search.endgame import exact_values_reference


def by_index(grid, card):
    """A coach that values an empty cell by its index: its best cell is the last empty one."""
    v = np.arange(25, dtype=np.float64)
    v[np.asarray(grid) != EMPTY] = -np.inf
    return v


def played(seed, pick):
    """A game of ``seed``'s deal, each card placed where ``pick(empty cells)`` says."""
    cards = deal(seed)[:25]
    grid = np.full(25, EMPTY, dtype=np.int8)
    out = []
    for card in cards:
        cell = pick(np.flatnonzero(grid == EMPTY))
        grid[cell] = card
        out.append((int(card), int(cell)))
    return out


def test_the_coachs_own_moves_cost_nothing_and_others_cost_the_gap_to_its_best():
    mine = review_game(by_index, AMERICAN.points, played(7, lambda empty: empty[-1]), exact_cells=0)
    assert mine.loss == 0 and mine.agreed == 25 and mine.worst() == []
    assert all(m.best == m.cell for m in mine.moves)
    worst = review_game(by_index, AMERICAN.points, played(7, lambda empty: empty[0]), exact_cells=0)
    # Turn t (1-based): empty cells 0..24 less the t-1 lowest, so the played cell is t-1, the best 24.
    assert [m.cell for m in worst.moves] == list(range(25))
    assert [m.best for m in worst.moves] == [24] * 25
    assert [m.loss for m in worst.moves] == [24.0 - t for t in range(25)]
    assert worst.loss == sum(range(25)) and worst.agreed == 1  # only the forced last move
    # Every cell's value is kept: the empty ones' (the coach's), None where occupied.
    assert worst.moves[3].values == [None] * 3 + [float(i) for i in range(3, 25)]
    assert [(m.turn, m.loss) for m in worst.worst(3)] == [(1, 24.0), (2, 23.0), (3, 22.0)]


def corner_by_parity(grid, card):
    """A coach that values the bottom-right cell above the rest: by 0.02 points for an
    even card, by 0.003 for an odd one; the same either way round."""
    v = np.zeros(25)
    v[24] = 0.02 if card % 2 == 0 else 0.003
    v[np.asarray(grid) != EMPTY] = -np.inf
    return v


def test_a_cell_valued_less_than_a_printed_hundredth_below_the_best_agrees():
    # A move 0.003 points below the coach's best counted as not agreed, yet printed and
    # sent to the web page as a loss of 0.0 (the page then listed none of them).
    placements = played(9, lambda empty: empty[0])
    r = review_game(corner_by_parity, AMERICAN.points, placements, exact_cells=0)
    odd = [m.turn for m in r.moves[:24] if m.card % 2]
    even = [m.turn for m in r.moves[:24] if m.card % 2 == 0]
    assert odd and even
    assert r.agreed == len(odd) + 1  # and the forced last move
    for m in r.moves:
        if m.turn in odd:
            assert m.agrees and m.loss == 0 and m.best == m.cell
        elif m.turn in even:
            assert not m.agrees and m.loss == pytest.approx(0.02) and m.best == 24
    moves = r.to_json()["moves"]
    assert [m["agrees"] for m in moves] == [m.agrees for m in r.moves]
    assert all(m["loss"] > 0 for m in moves if not m["agrees"])
    assert sorted(m.turn for m in r.worst(25)) == even


def test_a_cell_valued_as_high_as_the_best_is_the_best():
    def ties(grid, card):
        v = np.zeros(25)
        v[np.asarray(grid) != EMPTY] = -np.inf
        return v

    r = review_game(ties, AMERICAN.points, played(3, lambda empty: empty[len(empty) // 2]), exact_cells=0)
    assert r.loss == 0 and r.agreed == 25 and all(m.best == m.cell for m in r.moves)


@pytest.mark.parametrize("system", [AMERICAN, BRITISH])
def test_the_last_cards_are_judged_exactly(system):
    """With ``exact_cells`` empty cells or fewer the values are expectimax's, checked
    against the plain-Python recursion; before that, the coach's."""
    placements = played(11, lambda empty: empty[0])
    r = review_game(by_index, system.points, placements, exact_cells=3)
    assert [m.exact for m in r.moves] == [False] * 22 + [True] * 3
    grid = np.full(25, EMPTY, dtype=np.int8)
    for m, (card, cell) in zip(r.moves, placements):
        if m.exact:
            ref = exact_values_reference(grid, card, system.points)
            assert m.value == pytest.approx(ref[cell])
            assert m.best_value == pytest.approx(ref.max())
            assert m.loss == pytest.approx(ref.max() - ref[cell])
            assert (m.best == cell) == (ref[cell] >= ref.max() - TIE)
        grid[cell] = card
    # The forced last move is the final score itself.
    assert r.moves[-1].value == r.score


def test_the_score_is_the_games_own():
    placements = played(5, lambda empty: empty[len(empty) // 3])
    game = Game.from_seed(5, AMERICAN)
    for card, cell in placements:
        assert game.next_card == card
        game.play(cell // 5, cell % 5)
    assert review_game(by_index, AMERICAN.points, placements).score == game.score()


@pytest.mark.parametrize("placements, message", [
    (played(1, lambda e: e[0])[:24], "25 placements"),
    ([(c, 0) for c, _ in played(1, lambda e: e[0])], "each of the 25 cells once"),
    ([(0, cell) for _, cell in played(1, lambda e: e[0])], "25 different cards"),
    ([(c + 52, cell) for c, cell in played(1, lambda e: e[0])], "25 different cards"),
])
def test_what_is_not_a_finished_game_is_refused(placements, message):
    with pytest.raises(ReviewError, match=message):
        review_game(by_index, AMERICAN.points, placements)


def test_a_coach_that_leaves_an_empty_cell_unvalued_is_refused():
    def partial(grid, card):
        v = by_index(grid, card)
        v[np.flatnonzero(np.asarray(grid) == EMPTY)[0]] = -np.inf
        return v

    with pytest.raises(ReviewError, match="no value to some empty cell at turn 1"):
        review_game(partial, AMERICAN.points, played(2, lambda e: e[0]))


def test_the_coach_is_the_players_evaluator_or_the_rule_it_fell_back_to():
    class Searcher:
        class evaluator:
            @staticmethod
            def placement_values(grid, card):
                return by_index(grid, card)

        plays_greedy_rule = False
        points = np.asarray(AMERICAN.points)

    grid = np.full(25, EMPTY, dtype=np.int8)
    grid[[0, 1, 7]] = [3, 4, 5]
    # Either way round: each cell's value is the higher of its index and its transposed cell's.
    got = coach_values(Searcher())(grid, 30)
    assert list(got[[2, 3, 10, 24]]) == [10, 15, 10, 24]
    assert np.isneginf(got[[0, 1, 7]]).all()
    fallen = Searcher()
    fallen.plays_greedy_rule = True
    grid = np.full(25, EMPTY, dtype=np.int8)
    grid[:20] = np.arange(20)
    values = coach_values(fallen)(grid, 30)
    assert np.all(np.isinf(values[:20])) and np.all(np.isfinite(values[20:]))

    class Rule:
        name = "greedy"

    with pytest.raises(ReviewError, match="greedy cannot coach a review"):
        coach_values(Rule())


def test_a_game_and_its_transpose_are_judged_alike():
    """Swapping rows and columns changes nothing in the game, so nothing in its review,
    whatever way round the coach learned."""
    weights = np.random.default_rng(0).normal(size=25)

    def lopsided(grid, card):
        v = weights * (1 + (np.asarray(grid) != EMPTY).sum())
        v[np.asarray(grid) != EMPTY] = -np.inf
        return v

    judge = either_way_round(lopsided)
    placements = played(9, lambda empty: empty[len(empty) // 2])
    transposed = [(card, int(TRANSPOSE[cell])) for card, cell in placements]
    a = review_game(judge, AMERICAN.points, placements, exact_cells=3)
    b = review_game(judge, AMERICAN.points, transposed, exact_cells=3)
    assert a.score == b.score and a.loss > 0
    assert [m.loss for m in a.moves] == pytest.approx([m.loss for m in b.moves])
    assert [m.best_value for m in a.moves] == pytest.approx([m.best_value for m in b.moves])
    # The coach as given, one way round only, tells them apart.
    assert review_game(lopsided, AMERICAN.points, placements).loss != pytest.approx(
        review_game(lopsided, AMERICAN.points, transposed).loss)


def test_a_run_summary_splits_the_loss_by_stage():
    worst = review_game(by_index, AMERICAN.points, played(7, lambda empty: empty[0]), exact_cells=0)
    mine = review_game(by_index, AMERICAN.points, played(7, lambda empty: empty[-1]), exact_cells=0)
    s = run_summary([worst, mine])
    assert s["games"] == 2 and s["agreement"] == (1 + 25) / 50
    assert s["mean_loss"] == pytest.approx(sum(range(25)) / 2)
    assert s["loss_se"] == pytest.approx(sum(range(25)) / 2)  # stdev of (300, 0) / sqrt(2)
    assert list(s["stage_loss"]) == [f"{a}-{b}" for a, b in STAGES]
    assert sum(s["stage_loss"].values()) == pytest.approx(s["mean_loss"])
    assert s["stage_loss"]["1-5"] == pytest.approx((24 + 23 + 22 + 21 + 20) / 2)
    assert run_summary([mine])["loss_se"] is None
    with pytest.raises(ReviewError):
        run_summary([])


def test_a_learned_coach_judges_its_own_greedy_game_as_costing_nothing():
    """The values a real evaluator plays by: its own greedy moves agree with it, up to the
    exact last cards, where only expectimax can say."""
    from pokersquares.evaluators.narl import NarlEvaluator

    ev = NarlEvaluator(games=3000, threads=1)
    ev.prepare(np.asarray(AMERICAN.points, dtype=np.int64), 10.0, 0)
    cards = deal(4)[:25]
    grid = np.full(25, EMPTY, dtype=np.int8)
    placements = []
    for card in cards:
        cell = int(ev.greedy_cell(grid, int(card)))
        grid[cell] = card
        placements.append((int(card), cell))
    r = review_game(ev.placement_values, AMERICAN.points, placements, exact_cells=4)
    assert all(m.loss == 0 for m in r.moves if not m.exact)
    assert isinstance(r, GameReview) and r.score == r.moves[-1].value


@pytest.mark.parametrize("points", [[1, 2, 3], list(range(11)), [0.5] * 10, [True] * 10, None, "american"])
def test_points_that_are_not_ten_integers_are_refused(points):
    from pokersquares.errors import InvalidPointSystemError

    with pytest.raises(InvalidPointSystemError, match="10 integers"):
        review_game(by_index, points, played(1, lambda e: e[0]), exact_cells=0)


@pytest.mark.parametrize("exact_cells", [-1, 6, 25, 2.0, True, "3", None])
def test_exact_cells_beyond_the_cap_or_not_an_integer_are_refused(exact_cells):
    with pytest.raises(ReviewError, match=r"exact_cells .*0\.\.5"):
        review_game(by_index, AMERICAN.points, played(1, lambda e: e[0]), exact_cells=exact_cells)


def test_numpy_points_and_counts_and_placements_are_taken():
    placements = played(4, lambda e: e[0])
    expected = review_game(by_index, AMERICAN.points, placements, exact_cells=3)
    r = review_game(by_index, np.array(AMERICAN.points, dtype=np.int8), iter(np.array(placements)),
                    exact_cells=np.int64(3))
    assert r.to_json() == expected.to_json()


@pytest.mark.parametrize("placements, message", [
    ([(c + 0.5, cell) for c, cell in played(1, lambda e: e[0])], "25 different cards"),
    ([(True, cell) if i == 0 else (c, cell) for i, (c, cell) in enumerate(played(1, lambda e: e[0]))],
     "25 different cards"),
    ([(c, cell + 0.5) for c, cell in played(1, lambda e: e[0])], "pairs of integers"),
    ([(c, cell, 0) for c, cell in played(1, lambda e: e[0])], "pairs of integers"),
    ([c for c, _ in played(1, lambda e: e[0])], "pairs"),
])
def test_placements_that_are_not_integer_pairs_are_refused(placements, message):
    with pytest.raises(ReviewError, match=message):
        review_game(by_index, AMERICAN.points, placements)


def test_a_coach_that_values_other_than_25_cells_is_refused():
    with pytest.raises(ReviewError, match="not one per cell"):
        review_game(lambda grid, card: np.zeros(10), AMERICAN.points, played(2, lambda e: e[0]), exact_cells=0)


# -- called from Python with bad values: one ReviewError at the call ----------------------
def test_a_recorded_placement_off_the_grid_is_refused_not_taken_for_another_cell():
    """``(card, 0, 7)`` was cell 7, i.e. row 1 col 2; ``(card, 0, 0.7)`` was truncated to col 0;
    pairs or None met a bare unpacking or attribute error."""
    from pokersquares.harness.store import GameRecord
    placements = [(card, cell // 5, cell % 5) for card, cell in played(3, lambda empty: empty[0])]
    assert review_record_ok(placements)
    for bad in ([(c, 0, 5 * r + k) for c, r, k in placements],
                [(c, r, k + 0.7) for c, r, k in placements],
                [(c, 5 * r + k) for c, r, k in placements]):
        with pytest.raises(ReviewError, match="row and col 0..4"):
            review_record(by_index, AMERICAN.points, GameRecord(0, 3, 0, bad))
    with pytest.raises(ReviewError, match="recorded game"):
        review_record(by_index, AMERICAN.points, None)


def review_record_ok(placements):
    from pokersquares.harness.store import GameRecord
    return review_record(by_index, AMERICAN.points, GameRecord(0, 3, 0, placements), exact_cells=0).moves


def test_placements_without_an_order_are_refused():
    """A set of (card, cell) pairs was reviewed in whatever order the set gave."""
    with pytest.raises(ReviewError, match="order played"):
        review_game(by_index, AMERICAN.points, set(played(3, lambda empty: empty[0])))


def test_values_that_are_not_a_coach_are_refused():
    with pytest.raises(ReviewError, match="values"):
        review_game(None, AMERICAN.points, played(3, lambda empty: empty[0]))


@pytest.mark.parametrize("n", [-1, 1.5, None])
def test_worst_takes_a_count(n):
    review = review_game(by_index, AMERICAN.points, played(7, lambda empty: empty[0]), exact_cells=0)
    with pytest.raises(ReviewError, match="worst"):
        review.worst(n)


@pytest.mark.parametrize("prep_s, seed, error", [
    (-1, 0, ReviewError), (float("nan"), 0, ReviewError), (float("inf"), 0, ReviewError), (True, 0, ReviewError),
    (0, 1.5, InvalidSeedError), (0, 2 ** 70, InvalidSeedError)])
def test_a_coach_prepares_for_a_finite_time_with_a_seed_that_is_a_long(prep_s, seed, error):
    """A negative budget and a float or 70-bit seed were handed on to the player as they were."""
    prepared = []

    class Coach:
        def set_point_system(self, system, budget):
            prepared.append(budget)

    with pytest.raises(error):
        prepare_coach(Coach(), AMERICAN, prep_s, seed=seed)
    assert prepared == []


def test_a_coach_spec_is_text():
    with pytest.raises(ReviewError, match="player spec"):
        make_coach(None)


def test_worst_moves_of_equal_loss_come_in_turn_order():
    # corner_by_parity: every even card placed elsewhere than the corner gives away 0.02
    r = review_game(corner_by_parity, AMERICAN.points, played(9, lambda empty: empty[0]), exact_cells=0)
    even = [m.turn for m in r.moves[:24] if m.card % 2 == 0]
    assert len(even) >= 3
    assert [m.turn for m in r.worst(3)] == even[:3]
    assert [m.turn for m in r.worst(len(even))] == even


def test_a_recorded_game_is_reviewed_as_its_placements():
    """A record's (card, row, col) is cell row * 5 + col, not its transpose."""
    from pokersquares.harness.store import GameRecord
    placements = played(3, lambda empty: empty[len(empty) // 3])
    direct = review_game(by_index, AMERICAN.points, placements, exact_cells=2, seed=3)
    stored = [(card, cell // 5, cell % 5) for card, cell in placements]
    recorded = review_record(by_index, AMERICAN.points, GameRecord(0, 3, 0, stored), exact_cells=2)
    assert [m.cell for m in recorded.moves] == [cell for _, cell in placements]
    assert recorded.to_json() == direct.to_json()
