"""The core model (CP-SAT): brute force on 3x3 grids, hand-proven 5x5 deals, realisation."""

import numpy as np
import pytest

from pokersquares.cards import parse_cards
from pokersquares.hands import classify
from pokersquares.optimum import CpSatNotInstalledError, solve_deal
from pokersquares.optimum.cores import is_monotone, line_cores, realise, require_cp_sat, solve_cores
from pokersquares.points import AMERICAN, BRITISH, PointSystem, parse_point_system

from test_exact import brute_force_3x3


def monotone_points(rng) -> tuple[int, ...]:
    p = [int(v) for v in rng.integers(-128, 128, 10)]
    p[0] = min(p)
    for a, b in ((1, 2), (1, 3), (1, 6), (1, 7), (2, 6), (3, 6), (3, 7)):
        p[b] = max(p[b], p[a])
    assert is_monotone(p)
    return tuple(p)


@pytest.mark.parametrize("trial", range(6))
def test_core_model_agrees_with_brute_force_on_3x3(trial):
    rng = np.random.default_rng(100 + trial)
    pool = [s * 13 + r for s in range(4) for r in (0, 5, 9)]  # 3 ranks: pairs and trips abound
    cards = [int(c) for c in rng.choice(pool, 9, replace=False)]
    points = monotone_points(rng)
    result = solve_cores(cards, np.array(points), time_limit=60, size=3)
    expected = brute_force_3x3(cards, points)
    assert result.proven
    assert result.score == result.bound == expected
    grid_cards = [cards[p] for p in result.grid]
    lines = [grid_cards[r * 3:r * 3 + 3] for r in range(3)] + [grid_cards[c::3] for c in range(3)]
    assert sum(points[classify(line)] for line in lines) == expected


def test_monotone_systems():
    assert is_monotone(AMERICAN.points) and is_monotone(BRITISH.points)
    assert is_monotone(parse_point_system("single:flush").points)
    assert not is_monotone(parse_point_system("random:1").points)  # high card is worth 59 there
    assert not is_monotone((0, 5, 1, 0, 0, 0, 0, 0, 0, 0))  # two pair below a pair


def test_cores_of_a_small_deal():
    cards = parse_cards("AC AD AH 2C 3C".split())
    cores = dict(line_cores(cards, AMERICAN.points))
    # three pairs and the trips of aces; no five-card core (AAA23 is trips, its trips core)
    assert cores == {(0, 1): 2, (0, 2): 2, (1, 2): 2, (0, 1, 2): 10}


def test_realise_needs_full_lines_to_meet():
    row = tuple(range(5))
    assert realise([row], [tuple(range(5, 10))]) is None   # a full row and a full column share a cell
    grid = realise([row], [(0, 5, 10, 15, 20)])
    assert grid is not None and sorted(grid) == list(range(25))
    assert set(grid[:5]) == set(row) and {grid[5 * r] for r in range(5)} == {0, 5, 10, 15, 20}


FLUSHY = parse_cards("2C 4C 6C 8C TC QC AC 3D 5D 7D 9D JD KD 2H 4H 6H 8H TH QH 3S 5S 7S 9S JS KS".split())


def test_hand_proven_optimum_of_single_flush():
    # Suits 7, 6, 6, 6. A flush row and a flush column share a cell, so both in one suit
    # need 9 cards of it, and in two suits are impossible: all flushes lie one way,
    # at most floor(7/5) + 1 + 1 + 1 = 4 of them; four flush rows and a fifth row make 4.
    opt = solve_deal(FLUSHY, parse_point_system("single:flush"), time_limit=60)
    assert (opt.score, opt.bound, opt.proven, opt.method) == (4, 4, True, "cores")


def test_hand_proven_optimum_of_five_quads_with_cores():
    from test_exact import FOUR_QUADS  # each rank makes at most one quads line: 5
    opt = solve_deal(FOUR_QUADS, PointSystem((0, 0, 0, 0, 0, 0, 0, 1, 0, 0), "quads"), time_limit=60)
    assert (opt.score, opt.bound, opt.proven, opt.method) == (5, 5, True, "cores")


def test_a_limit_that_runs_out_claims_nothing_under_american():
    from pokersquares.cards import deal
    opt = solve_deal(deal(0)[:25], AMERICAN, time_limit=0.05)
    assert opt.method == "cores"
    assert not opt.proven and opt.bound > opt.score


@pytest.mark.parametrize("system", [AMERICAN, BRITISH])
def test_a_round_stopped_before_it_has_a_bound_proves_nothing(system):
    # CP-SAT stopped by its limit before it had a bound says best_objective_bound 0: that
    # was taken as "no grid above the start", and the start (4 points on British deal 2)
    # reported as the proven optimum of a deal worth 90 (0.2 s of time limit).
    from pokersquares.cards import deal
    from pokersquares.optimum.cores import CoreOptions

    stopped = CoreOptions(parameters=CoreOptions().parameters + (("max_deterministic_time", 0.001),))
    cards = deal(2)[:25]  # solved in about 1.5 s under either system
    r = solve_cores(cards, system.points, time_limit=30, options=stopped)
    optimum = solve_deal(cards, system, time_limit=60)
    assert r.rounds == 1 and optimum.proven
    assert not r.proven and r.bound >= optimum.score > r.score


def test_non_monotone_systems_use_the_line_model():
    with pytest.raises(Exception, match="monotone"):
        solve_cores(list(range(9)), np.array(parse_point_system("random:1").points), time_limit=5, size=3)


def test_missing_cp_sat_names_the_extra(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "ortools.sat.python", None)
    monkeypatch.setitem(sys.modules, "ortools.sat.python.cp_model", None)
    with pytest.raises(CpSatNotInstalledError, match=r"pokersquares\[optimum\]"):
        require_cp_sat()


@pytest.mark.parametrize("seed, system", [(0, "single:flush"), (1, "single:flush"), (3, "single:full_house")])
def test_core_model_agrees_with_the_line_model(seed, system):
    # two exact models with nothing in common but the rules: the same optimum on 5x5 deals
    # (systems where HiGHS proves the line model in seconds; single:straight it does not)
    from pokersquares.cards import deal
    from pokersquares.optimum.exact import solve_exact
    cards = deal(seed)[:25]
    points = np.array(parse_point_system(system).points)
    lines = solve_exact(cards, points, time_limit=120)
    cores = solve_cores(cards, points, time_limit=120)
    assert lines.proven and cores.proven
    assert lines.score == cores.score


def own_cores(cards, grid, points, size=5):
    """Each line's own core (the most valuable core inside it), rows then columns, or
    None for a line worth high card: the choice a grid realises."""
    from pokersquares.optimum.search import size_lines
    cores = line_cores(cards, points, size)
    out = []
    for line in size_lines(size):
        inside = set(grid[q] for q in line)
        best = max(((v, core) for core, v in cores if set(core) <= inside), default=None)
        out.append(None if best is None else best[1])
    return out


def good_grids(points, seeds):
    """(cards, positions) of local-search grids: many full lines, so the counting
    bounds are tight on some of them."""
    from pokersquares.cards import deal
    from pokersquares.optimum.search import local_search
    for seed in seeds:
        cards = [int(c) for c in deal(seed)[:25]]
        _, grid = local_search(cards, np.array(points), restarts=2, steps=50_000)
        position = {c: i for i, c in enumerate(cards)}
        yield cards, [position[c] for c in grid]


@pytest.mark.parametrize("points", [AMERICAN.points, BRITISH.points])
def test_rank_family_bounds_hold_on_grids_and_bind_on_some(points):
    from pokersquares.optimum.cores import rank_family_bounds
    tight = 0
    for cards, grid in good_grids(points, range(12)):
        own = own_cores(cards, grid, points)
        cores = line_cores(cards, points)
        for js, one_way, both_ways in rank_family_bounds(cores, cards):
            family = {cores[j][0] for j in js}
            r = sum(k in family for k in own[:5])
            c = sum(k in family for k in own[5:])
            assert max(r, c) <= one_way and r + c <= both_ways, (js, r, c, one_way, both_ways)
            tight += r + c == both_ways < 2 * min(one_way, len(js))
    assert tight > 0  # a bound one too tight would fail above


@pytest.mark.parametrize("points", [AMERICAN.points, BRITISH.points])
def test_every_grid_is_a_choice_the_model_allows(points):
    # all the model's constraints (the full-line counts, the rank families, a crossing
    # count for every short core) with the cores fixed to a grid's own: still feasible
    from pokersquares.optimum.cores import CoreOptions, _core_model, _crossing_count
    cp_model = require_cp_sat()
    for cards, grid in good_grids(points, range(6)):
        cores = line_cores(cards, points)
        m, x = _core_model(cores, cards, 5, CoreOptions())
        for j, (core, _) in enumerate(cores):
            if len(core) < 5:
                _crossing_count(m, x, cores, j, 5)
        own = own_cores(cards, grid, points)
        for o in range(2):
            chosen = set(own[5 * o:5 * o + 5])
            for j, (core, _) in enumerate(cores):
                m.add(x[o][j] == int(core in chosen))
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        assert solver.solve(m) in (cp_model.OPTIMAL, cp_model.FEASIBLE)


@pytest.mark.parametrize("seed, system", [(2, "british"), (8, "british"), (1, "american")])
def test_the_model_without_its_options_agrees(seed, system):
    # the rank families, full-line counts, crossing counts and solver parameters change
    # how fast the optimum is proven, never which it is
    from pokersquares.cards import deal
    from pokersquares.optimum.cores import CoreOptions
    cards = [int(c) for c in deal(seed)[:25]]
    points = np.array(parse_point_system(system).points)
    bare = CoreOptions(rank_cuts=False, full_line_counts=False, lazy_crossings=False, parameters=())
    plain = solve_cores(cards, points, time_limit=120, options=bare)
    fast = solve_cores(cards, points, time_limit=120)
    assert plain.proven and fast.proven
    assert plain.score == fast.score


def test_straight_cores_ace_low_and_ace_high_but_not_around_the_corner():
    straight = AMERICAN.points[4]
    for hand in ("AC 2D 3H 4S 5C", "TC JD QH KS AC", "9C TD JH QS KC"):
        assert line_cores(parse_cards(hand.split()), AMERICAN.points) == [((0, 1, 2, 3, 4), straight)], hand
    assert line_cores(parse_cards("JC QD KH AS 2C".split()), AMERICAN.points) == []


@pytest.mark.parametrize("hand, contained", [(2, 1), (3, 1), (6, 1), (7, 1), (6, 2), (6, 3), (7, 3)])
def test_a_hand_worth_less_than_a_hand_whose_core_it_holds_is_not_monotone(hand, contained):
    # American made non-monotone in one place only: the hand below one whose core it contains
    p = list(AMERICAN.points)
    p[hand] = p[contained] - 1
    assert not is_monotone(p), (hand, contained, p)
    p = list(AMERICAN.points)
    p[0] = p[1] + 1  # high card above a pair
    assert not is_monotone(p)
