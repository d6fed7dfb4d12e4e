"""The optimum called from Python with bad values: one PokerSquaresError at the call,
before any solving, and nothing written to a store for a call that is refused."""

import numpy as np
import pytest

from pokersquares.errors import InvalidCardError, InvalidPointSystemError, InvalidSeedError, PokerSquaresError
from pokersquares.optimum import solve_deal
from pokersquares.optimum.store import OptimaStore, optima_from, solve_seeds
from pokersquares.points import AMERICAN

CARDS = list(range(25))


@pytest.mark.parametrize("time_limit", [True, "5", float("inf"), float("nan"), 0, -1, None])
def test_the_time_limit_is_a_finite_number_of_seconds(time_limit):
    """True was taken as a second, inf as no limit at all (a proof for hours); "5" met a
    bare TypeError."""
    with pytest.raises(PokerSquaresError, match="time limit"):
        solve_deal(CARDS, AMERICAN, time_limit=time_limit)


@pytest.mark.parametrize("system", ["american", None, AMERICAN.points])
def test_the_point_system_is_a_point_system(system):
    with pytest.raises(InvalidPointSystemError):
        solve_deal(CARDS, system, time_limit=1)


def test_the_cards_and_the_seed_are_checked():
    with pytest.raises(InvalidCardError):
        solve_deal(None, AMERICAN, time_limit=1)
    with pytest.raises(InvalidCardError):
        solve_deal("AS KS", AMERICAN, time_limit=1)
    with pytest.raises(InvalidSeedError):
        solve_deal(CARDS, AMERICAN, time_limit=1, seed="x")  # a label stored as the deal's seed


@pytest.mark.parametrize("solver", ["exact", "cores"])
@pytest.mark.parametrize("cards, points, size, error, words", [
    (list(range(24)), AMERICAN.points, 5, InvalidCardError, "25 distinct cards"),
    (list(range(26)), AMERICAN.points, 5, InvalidCardError, "25 distinct cards"),
    ([0] * 12 + list(range(13)), AMERICAN.points, 5, InvalidCardError, "25 distinct cards"),
    (list(range(30, 55)), AMERICAN.points, 5, InvalidCardError, "ids 0..51"),
    (set(range(25)), AMERICAN.points, 5, InvalidCardError, "in an order"),  # the grid is positions into it
    (list(range(10)), AMERICAN.points, 3, InvalidCardError, "9 distinct cards"),
    (list(range(25)), AMERICAN.points[:2], 5, InvalidPointSystemError, "10 integers"),
], ids=["24_cards", "26_cards", "repeated_cards", "cards_past_51", "a_set", "10_cards_for_3x3", "two_points"])
def test_the_exact_solvers_called_directly_refuse_a_bad_deal_before_solving(solver, cards, points, size, error,
                                                                          words):
    """``solve_exact`` and ``solve_cores`` check their deal as ``solve_deal`` does: 24 cards
    raised IndexError, 26, repeated or unknown cards were solved as if they were a deal."""
    import time

    from pokersquares.optimum.cores import solve_cores
    from pokersquares.optimum.exact import solve_exact

    solve = {"exact": solve_exact, "cores": solve_cores}[solver]
    t0 = time.perf_counter()
    with pytest.raises(error, match=words):
        solve(cards, np.array(points), time_limit=5, size=size)
    assert time.perf_counter() - t0 < 1  # before any solving


@pytest.mark.parametrize("solver", ["exact", "cores"])
@pytest.mark.parametrize("kwargs, words", [
    (dict(time_limit="5"), "time limit"), (dict(time_limit=float("nan")), "time limit"),
    (dict(time_limit=0), "time limit"), (dict(size=6), "size is 2..5"), (dict(size="3"), "size is 2..5"),
    (dict(start_score=20), "comes with its start grid"),
    (dict(start_grid=list(range(8))), "the 9 positions"), (dict(start_grid=[0] * 9), "the 9 positions"),
    (dict(start_grid=[c + 0.5 for c in range(9)]), "the 9 positions"),
    (dict(start_grid="012345678"), "start grid must be a list"),
    (dict(start_grid=[None] + list(range(1, 9))), "the 9 positions"),
    (dict(start_grid=list(range(9)), start_score=2.5), "not the start score given, 2.5"),
], ids=["time_text", "time_nan", "time_0", "size_6", "size_text", "score_without_grid", "grid_of_8",
        "grid_repeated", "grid_halves", "grid_text", "grid_of_none", "score_half"])
def test_the_exact_solvers_called_directly_refuse_a_bad_limit_size_or_start(solver, kwargs, words):
    """The time limit met a bare TypeError ("5") or ran the solver on NaN; a size of 6
    asked for 36 cards of five-card lines; a start grid of 8 positions, or a position
    twice, was handed to the solver as a solution."""
    from pokersquares.optimum.cores import solve_cores
    from pokersquares.optimum.exact import solve_exact

    solve = {"exact": solve_exact, "cores": solve_cores}[solver]
    args = dict(time_limit=5, size=3)
    args.update(kwargs)
    with pytest.raises(PokerSquaresError, match=words):
        solve(list(range(9)), np.array(AMERICAN.points), **args)


@pytest.mark.parametrize("solver", ["exact", "cores"])
def test_a_start_score_its_grid_does_not_make_is_refused_not_proven(solver):
    """A start score above the deal's optimum, beside a grid that scores less, came back
    as the optimum, proven: the solver takes the start as found."""
    from pokersquares.optimum.cores import solve_cores
    from pokersquares.optimum.exact import solve_exact
    from pokersquares.optimum.search import start_score_of

    solve = {"exact": solve_exact, "cores": solve_cores}[solver]
    cards, points = [0, 13, 26, 1, 14, 27, 2, 15, 28], np.array(AMERICAN.points)  # three trips
    best = solve(cards, points, time_limit=20, size=3)
    assert best.proven and best.score == 30
    grid = [0, 1, 3, 2, 4, 6, 5, 7, 8]
    own = start_score_of(cards, grid, points, size=3)
    assert own < best.score
    with pytest.raises(PokerSquaresError, match=f"the start grid scores {own}, not the start score given, "
                                                f"{best.score + 1}"):
        solve(cards, points, time_limit=20, size=3, start_grid=grid, start_score=best.score + 1)
    kept = solve(cards, points, time_limit=20, size=3, start_grid=grid, start_score=own)
    assert kept.proven and kept.score == best.score


@pytest.mark.parametrize("kwargs", [
    dict(seeds=[0, 2 ** 70]), dict(seeds=[1.0]), dict(seeds=None), dict(seeds="12"),
    dict(point_system="american"), dict(time_limit=float("nan")), dict(workers=1.5), dict(workers=0),
    dict(backend="nope"),
])
def test_solve_seeds_refuses_a_bad_call_before_opening_its_store(tmp_path, kwargs):
    """A bad seed was found only when its deal's turn came: the store file was made (and
    the deals before it solved and stored); an unknown backend was taken as local."""
    db = tmp_path / "o.sqlite"
    args = dict(seeds=[0], point_system=AMERICAN, time_limit=1.0)
    args.update(kwargs)
    with pytest.raises(PokerSquaresError):
        solve_seeds(args.pop("seeds"), args.pop("point_system"), db=db, **args)
    assert not db.exists()


def test_seeds_given_as_a_generator_are_all_solved(tmp_path, monkeypatch):
    """A generator was used up by the look-up in an existing store: nothing was solved, {} returned."""
    import pokersquares.optimum as optimum
    solved = []

    def fake(seed, point_system, *, time_limit):
        solved.append(seed)
        return optimum.Optimum(seed, point_system.name, point_system.points, 1, 1, True, CARDS, 0.0, 1)

    monkeypatch.setattr(optimum, "solve_seed", fake)
    db = tmp_path / "o.sqlite"
    OptimaStore(db).close()  # a store that exists is read first
    got = solve_seeds((s for s in [4, 5]), AMERICAN, db=db, time_limit=1.0)
    assert sorted(got) == [4, 5] and solved == [4, 5]


def test_stored_optima_are_read_by_integer_seeds_from_open_stores(tmp_path):
    db = tmp_path / "o.sqlite"
    OptimaStore(db).close()
    with OptimaStore(db, readonly=True) as store:
        with pytest.raises(InvalidSeedError):
            store.many(["a"], AMERICAN.points)
    store.close()
    from pokersquares.harness.store import StoreError
    with pytest.raises(StoreError, match="closed"):
        store.get(0, AMERICAN.points)
    assert optima_from(str(db), [0], AMERICAN.points) == {}  # one path is one store, not its letters


@pytest.mark.parametrize("scores", [None, {0: 5}, [(0, float("nan"))], [(0.5, 5)], [(0, "5")], "05"])
def test_regret_takes_seed_and_score_pairs(scores):
    """A dict or None met a bare TypeError; a nan score made every figure nan."""
    from pokersquares.optimum import Optimum
    from pokersquares.optimum.regret import regret_summary
    optimum = Optimum(0, "American", AMERICAN.points, 10, 10, True, CARDS, 0.0, 10)
    with pytest.raises(PokerSquaresError, match="pairs"):
        regret_summary(scores, {0: optimum})
    assert regret_summary([(0, 4)], {0: optimum})["regret"] == 6


def _damaged_store(path, damage):
    """A store holding deal 0's optimum under American, its row then edited by hand."""
    import sqlite3

    from pokersquares.cards import deal
    from pokersquares.optimum import Optimum
    grid = [int(c) for c in deal(0)[:25]]
    with OptimaStore(path) as store:
        store.put(Optimum(0, "American", AMERICAN.points, 150, 150, True, grid, 1.0, 150), 5.0)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(f"UPDATE optima SET {damage} WHERE seed = 0")
    conn.close()


@pytest.mark.parametrize("damage", ["grid = '[1, 2'", "score = 'abc'", "score = 900", "proven = 'yes'",
                                    "seconds = 'x'", "score = 120"])
def test_a_stored_optimum_edited_by_hand_is_refused_naming_its_deal(tmp_path, damage, monkeypatch):
    """A grid that is not JSON, or a score that is text, met a bare JSONDecodeError or
    TypeError; a score above its bound, or proven 'yes', was read back as the deal's optimum;
    a proven optimum's score lowered below its bound was shown "proven optimal" beside it."""
    import pokersquares.optimum as optimum
    from pokersquares.optimum.store import DamagedOptimumError

    def solving(*args, **kwargs):
        raise AssertionError("a deal was solved")

    monkeypatch.setattr(optimum, "solve_seed", solving)
    db = tmp_path / "o.sqlite"
    _damaged_store(db, damage)
    with OptimaStore(db, readonly=True) as store:
        with pytest.raises(DamagedOptimumError, match="deal 0 is damaged"):
            store.many([0, 1], AMERICAN.points)
        assert store.many([1], AMERICAN.points) == {}  # the rows not asked for are not read
    with pytest.raises(PokerSquaresError, match="deal 0 is damaged"):
        solve_seeds([0], AMERICAN, db=db, time_limit=5.0)


def test_stored_points_edited_by_hand_are_refused(tmp_path):
    """A row whose points are not JSON met a bare JSONDecodeError in ``systems`` (the
    check of every --optima store, and the regret of ``results``)."""
    from pokersquares.optimum.store import DamagedOptimumError

    db = tmp_path / "o.sqlite"
    _damaged_store(db, "points = '[1, 2'")
    with OptimaStore(db, readonly=True) as store:
        with pytest.raises(DamagedOptimumError, match="points"):
            store.systems()


def test_a_grid_whose_every_line_is_the_best_is_proven_without_a_model():
    # Ten lines each worth the deal's best five cards cannot be beaten: the line model
    # was built and solved anyway (single:high_card, deal 1: 30 s, the whole limit, to
    # prove the 10 the local search had found in one).
    from pokersquares import deal
    from pokersquares.optimum.exact import line_subsets
    from pokersquares.points import parse_point_system
    from pokersquares.optimum.search import grid_score

    cards = deal(1)[:25]
    high = parse_point_system("single:high_card")
    found = solve_deal(cards, high, time_limit=30, seed=1)
    assert (found.score, found.bound, found.proven, found.method) == (10, 10, True, "search")
    assert sorted(found.grid) == sorted(cards) and grid_score(found.grid, high.points) == 10
    pairs = parse_point_system("single:two_pair")  # the local search's 6 is short of ten such lines
    short = solve_deal(cards, pairs, time_limit=1.5, seed=1)
    ceiling = 10 * int(line_subsets(np.asarray(cards), np.asarray(pairs.points, dtype=np.int64)).max())
    assert short.heuristic_score < ceiling == 10 and short.method != "search"


def test_cores_at_least_a_score_without_its_grid_proves_or_beats_it():
    """``at_least`` stands for a start whose grid is not given (a stored optimum's score);
    with a grid or as text it is refused."""
    from pokersquares.optimum.cores import solve_cores

    cards, points = [0, 13, 26, 1, 14, 27, 2, 15, 28], np.array(AMERICAN.points)  # three trips: 30
    at = solve_cores(cards, points, time_limit=20, size=3, at_least=30)
    assert (at.score, at.bound, at.proven, at.grid) == (30, 30, True, None)
    below = solve_cores(cards, points, time_limit=20, size=3, at_least=10)
    assert below.proven and below.score == 30 and sorted(below.grid) == list(range(9))
    for bad in (dict(at_least="30"), dict(at_least=30, start_grid=list(range(9)))):
        with pytest.raises(PokerSquaresError, match="at_least is an integer score"):
            solve_cores(cards, points, time_limit=20, size=3, **bad)
