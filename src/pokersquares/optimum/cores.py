"""The exact part for most point systems: which scoring *core* each line holds, solved
by CP-SAT, with cuts for choices no grid can realise.

A line's hand is decided by a few of its cards, its core: the two cards of a pair, the
four of two pair, three of trips, four of quads, and all five of a straight, flush,
full house or straight flush. A grid gives each of its rows and columns at most one
core (its own hand's, if that scores above high card). Choosing cores for rows and
columns, with binaries ``x_K`` (K is a row's core) and ``y_K`` (a column's), is a
relaxation of the grid:

    maximise  sum_K (v_K - points[0]) (x_K + y_K)  +  2 size points[0]
    s.t.      sum_K x_K <= size,  sum_K y_K <= size
              sum_{K ∋ c} x_K <= 1,  sum_{K ∋ c} y_K <= 1          for each card c
              sum_{K ⊇ {c,d}} (x_K + y_K) <= 1                      for each pair {c, d}
              x_R + y_C <= 1                          for full lines R, C with no common card
              sum_K v_K x_K >= sum_K v_K y_K                        (a grid and its transpose)

Its optimum is an upper bound for every point system. A choice is *realised* by a
grid that keeps each chosen row core within one row and each column core within one
column: a perfect matching of cards to cells, a card of row core ``i`` allowed only
in row ``i`` and so on. If the solver's choice has no such grid, a smallest set of
its cores that has none is cut off (and its transpose) and the model solved again.
If it has one, that grid scores at least the choice's value when the point system
is *monotone* (``points[0]`` the least, and a hand worth at least every hand whose
core it contains: a full house at least trips, two pair and a pair, and so on), so
the choice is an optimum. :func:`is_monotone` tells; other systems use
:mod:`.exact`.

Constraints that hold for every grid's own cores and make the proof faster
(:class:`CoreOptions`, each tested against grids and against the bare model): a full
line meets each full line across it in exactly one card (instead of one clause per
disjoint pair, tens of thousands under British); counting bounds per family of cores
that need given cards of given ranks, across both orientations
(:func:`rank_family_bounds`); and, for each short core of a cut-off choice, that its
cards outside full lines need lines that are not full. The model is built once and
each cut is added to it.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from ..cards import is_integer
from ..errors import PokerSquaresError
from ..evaluators.base import checked_points
from ..hands import classify
from .search import check_deal, check_start, check_time_limit, start_score_of

__all__ = ["CpSatNotInstalledError", "require_cp_sat", "is_monotone", "line_cores", "realise", "solve_cores",
           "CoreOptions", "rank_family_bounds",
           "CoresResult"]


class CpSatNotInstalledError(PokerSquaresError):
    """OR-Tools (CP-SAT) is missing."""


def require_cp_sat():
    """The ``ortools.sat.python.cp_model`` module, or a one-line error naming the extra."""
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        raise CpSatNotInstalledError(
            "the optimum's exact solver needs OR-Tools: pip install 'pokersquares[optimum]' (or pip install ortools)"
        ) from None
    return cp_model


# hand ids: 1 pair, 2 two pair, 3 trips, 6 full house, 7 quads; each pair (a, b):
# a line whose hand is b contains a core of hand a
_CONTAINS = ((1, 2), (1, 3), (1, 6), (1, 7), (2, 6), (3, 6), (3, 7))


def is_monotone(points) -> bool:
    """Whether a realised choice of cores scores its value: high card worth least, and
    each hand worth at least the hands whose cores it contains."""
    p = [int(v) for v in points]
    return p[0] == min(p) and all(p[a] <= p[b] for a, b in _CONTAINS)


def line_cores(cards, points, size: int = 5) -> list[tuple[tuple[int, ...], int]]:
    """(positions into ``cards``, points above ``points[0]``) of every core worth more
    than high card. Lines hold ``size`` cards; straights and flushes need 5."""
    cards = [int(c) for c in cards]
    base = int(points[0])
    by_rank: dict[int, list[int]] = {}
    for i, c in enumerate(cards):
        by_rank.setdefault(c % 13, []).append(i)
    out = []

    def add(pos, hand):
        if len(pos) <= size and int(points[hand]) > base:
            out.append((tuple(sorted(pos)), int(points[hand]) - base))

    pairs = []
    for r, ps in sorted(by_rank.items()):
        for k, hand in ((2, 1), (3, 3), (4, 7)):
            for sub in itertools.combinations(ps, k):
                add(sub, hand)
                if k == 2:
                    pairs.append((r, sub))
    for (r1, p1), (r2, p2) in itertools.combinations(pairs, 2):
        if r1 != r2:
            add(p1 + p2, 2)
    if size != 5:
        return out
    for r1, ps in sorted(by_rank.items()):
        for t in itertools.combinations(ps, 3):
            for r2, qs in sorted(by_rank.items()):
                if r2 != r1:
                    for p in itertools.combinations(qs, 2):
                        add(t + p, 6)
    for s in range(4):
        ps = [i for i, c in enumerate(cards) if c // 13 == s]
        for sub in itertools.combinations(ps, 5):
            add(sub, int(classify([cards[i] for i in sub])))  # flush, straight flush, royal
    for low in range(10):
        ranks = [(low + k) % 13 if low < 9 else (9, 10, 11, 12, 0)[k] for k in range(5)]
        for sub in itertools.product(*(by_rank.get(r, []) for r in ranks)):
            if len({cards[i] // 13 for i in sub}) > 1:  # one suit is a flush core already
                add(sub, 4)
    return out


def realise(row_cores, col_cores, size: int = 5) -> list[int] | None:
    """A grid (positions, row-major) with row core ``i`` in row ``i`` and column core
    ``j`` in column ``j``, or None: a perfect matching of cards to allowed cells."""
    cells = size * size
    row_of: list[int | None] = [None] * cells
    col_of: list[int | None] = [None] * cells
    for i, core in enumerate(row_cores):
        for p in core:
            row_of[p] = i
    for j, core in enumerate(col_cores):
        for p in core:
            col_of[p] = j
    allowed = []
    for p in range(cells):
        rs = range(size) if (row := row_of[p]) is None else (row,)
        cs = range(size) if (col := col_of[p]) is None else (col,)
        allowed.append([size * r + k for r in rs for k in cs])
    owner = [-1] * cells

    def augment(p, seen):
        for cell in allowed[p]:
            if not seen[cell]:
                seen[cell] = True
                if owner[cell] < 0 or augment(owner[cell], seen):
                    owner[cell] = p
                    return True
        return False

    for p in sorted(range(cells), key=lambda q: len(allowed[q])):
        if not augment(p, [False] * cells):
            return None
    return owner


def _smallest_conflict(rows, cols, size):
    """A subset of the chosen (orientation, core) that no grid realises, from which no
    core can be dropped (a deletion filter)."""
    keep = [(0, k) for k in rows] + [(1, k) for k in cols]
    for item in list(keep):
        trial = [x for x in keep if x is not item]
        if realise([k for o, k in trial if o == 0], [k for o, k in trial if o == 1], size) is None:
            keep = trial
    return keep


@dataclass(frozen=True)
class CoreOptions:
    """Which optional parts of the core model to use (each is valid on its own; the
    defaults are the measured fastest, docs/results.md)."""

    rank_cuts: bool = True          # rank_family_bounds
    full_line_counts: bool = True   # _full_line_counts instead of pairwise clauses
    lazy_crossings: bool = True     # _crossing_count for the cores of each cut-off choice
    parameters: tuple[tuple[str, object], ...] = (("linearization_level", 2), ("add_lp_constraints_lazily", False))


@dataclass
class CoresResult:
    score: int              # best grid's score (``start_score`` if none better was found)
    bound: int              # proven upper bound
    proven: bool
    grid: list[int] | None  # positions into the deal's cards, row-major (``start_grid`` if none better)
    seconds: float
    rounds: int             # models solved (one more per cut-off choice)


def solve_cores(cards, points, *, time_limit: float, start_score: int | None = None,
                start_grid: list[int] | None = None, size: int = 5,
                options: CoreOptions | None = None, at_least: int | None = None) -> CoresResult:
    """Prove ``start_score`` (a grid's score) optimal or find a better grid, within
    ``time_limit`` seconds. The model above asks for a choice worth more than the
    start; none means the start is optimal. A limit that runs out leaves ``proven``
    false and the bound proven by then. Exact for monotone point systems. ``cards``
    that are not ``size**2`` distinct card ids are an InvalidCardError, ``points`` that
    are not 10 integers an InvalidPointSystemError. ``at_least``, in place of a start, is
    a score known to be reached by a grid not given (a stored optimum, to time its proof
    alone): the model asks for more, and the result's grid is None unless it finds more."""
    cards = check_deal(cards, size)
    points = checked_points(points)
    time_limit = check_time_limit(time_limit)
    start_grid, start_score = check_start(cards, points, start_grid, start_score, size)
    if at_least is not None:
        if start_grid is not None or not is_integer(at_least):
            raise PokerSquaresError(f"at_least is an integer score, in place of a start grid and score, "
                                    f"got {at_least!r}")
        start_score = int(at_least)
    cp_model = require_cp_sat()
    t0 = time.perf_counter()
    if not is_monotone(points):
        raise PokerSquaresError("the core model is exact only for monotone point systems (is_monotone)")
    options = options or CoreOptions()
    points = [int(p) for p in points]
    base = 2 * size * points[0]
    cores = line_cores(cards, points, size)
    index = {core: j for j, (core, _) in enumerate(cores)}
    score, grid = start_score, start_grid
    if score is None:
        grid = list(range(size * size))
        score = start_score_of(cards, grid, points, size)
    bound = 2 * size * max(points)  # every line at most the best hand, until a model says more
    rounds = 0
    m, x = _core_model(cores, cards, size, options)
    value = [sum(v * x[o][j] for j, (_, v) in enumerate(cores)) for o in range(2)]
    m.add(value[0] >= value[1])
    m.maximize(value[0] + value[1])
    above = None  # the score the model must beat, as last added
    crossed: set[tuple[int, ...]] = set()
    while True:
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0.01:
            break
        if above != score:  # a constraint per better grid; the older ones are then implied
            m.add(value[0] + value[1] >= score - base + 1)
            above = score
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = left
        for name, setting in options.parameters:
            setattr(solver.parameters, name, setting)
        status = _solve(solver, m)
        rounds += 1
        if status == cp_model.INFEASIBLE:
            bound = score
            break
        # No grid above ``score`` is worth more than this round's bound. The model asks for
        # more than ``score``, so a bound the solver has proven is above it (none above it
        # is INFEASIBLE, above); one at or below it is no bound at all: CP-SAT stopped by
        # its time limit before it had one (UNKNOWN, best_objective_bound 0), which was
        # taken as "nothing better" and a start of 4 reported as the proven optimum of a
        # deal worth 90 (British, deal 2, 0.2 s).
        proven_above = int(np.floor(solver.best_objective_bound + 1e-6)) + base
        if proven_above > score:
            bound = min(bound, proven_above)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        rows = [core for j, (core, _) in enumerate(cores) if solver.value(x[0][j])]
        cols = [core for j, (core, _) in enumerate(cores) if solver.value(x[1][j])]
        placed = realise(rows, cols, size)
        if placed is None:
            conflict = _smallest_conflict(rows, cols, size)
            for cut in (conflict, [(1 - o, core) for o, core in conflict]):
                m.add_bool_or([x[o][index[core]].Not() for o, core in cut])
            if options.lazy_crossings:
                for o, core in conflict:
                    if len(core) < size and core not in crossed:
                        crossed.add(core)
                        _crossing_count(m, x, cores, index[core], size)
            continue
        found = start_score_of(cards, placed, points, size)
        if found < int(round(solver.objective_value)) + base:
            raise RuntimeError("a realised choice of cores scores below its value: the point system is not monotone")
        score, grid = found, placed
        if status == cp_model.OPTIMAL:
            bound = score
            break
    bound = max(bound, score)
    return CoresResult(score, bound, score >= bound, grid, time.perf_counter() - t0, rounds)


def _solve(solver, model) -> int:
    """``solver.solve(model)``, stopped at once by Ctrl-C or SIGTERM, which then propagate.

    CP-SAT catches SIGINT itself by default: it ended only the round it was in, as if its
    time had run out, so a Ctrl-C went unseen, and the deal was stored as solved (unproven,
    under the full limit: a rerun read it back instead of solving it again). Here the
    signal goes to Python's handlers as everywhere else; while the search runs (in C++,
    where Python's handlers wait for it to return) a thread woken by the signal
    (``signal.set_wakeup_fd``) stops the search, and the handler's exception
    (KeyboardInterrupt, or the command's SIGTERM) is raised when it returns. Off the main
    thread (the web app's solves) no signal arrives: it is a plain solve."""
    import os
    import signal
    import threading

    solver.parameters.catch_sigint_signal = False
    if threading.current_thread() is not threading.main_thread():
        return solver.solve(model)
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # pragma: no cover - not the main thread of the main interpreter
        os.close(read_end)
        os.close(write_end)
        return solver.solve(model)
    solved = threading.Event()
    signalled = threading.Event()

    def watch() -> None:
        os.read(read_end, 1)  # a signal arrived, or the search ended (the byte written below)
        if not solved.is_set():
            signalled.set()
            solver.stop_search()

    watcher = threading.Thread(target=watch, name="cp-sat-signals", daemon=True)
    watcher.start()
    try:
        status = solver.solve(model)
    finally:
        solved.set()
        signal.set_wakeup_fd(previous)
        os.write(write_end, b"\0")
        watcher.join()
        os.close(read_end)
        os.close(write_end)
    # A signal's handler raises here, as the next bytecode runs; one that did not raise
    # (a handler that only notes the signal) cut the round short: it is searched again.
    if signalled.is_set():
        solver.parameters.max_time_in_seconds = max(0.01, solver.parameters.max_time_in_seconds - solver.wall_time)
        return _solve(solver, model)
    return status


def _core_model(cores, cards, size: int, options: CoreOptions):
    """The model above without its objective: binaries ``x[o][j]`` (core ``j`` chosen
    for a line of orientation ``o``, 0 rows, 1 columns) and every constraint that
    holds for each grid's own cores."""
    cp_model = require_cp_sat()
    m = cp_model.CpModel()
    x = [[m.new_bool_var(f"{'rc'[o]}{j}") for j in range(len(cores))] for o in range(2)]
    for o in range(2):
        m.add(sum(x[o]) <= size)
        for p in range(size * size):
            m.add_at_most_one([x[o][j] for j, (core, _) in enumerate(cores) if p in core])
    with_pair: dict[tuple[int, int], list[int]] = {}
    for j, (core, _) in enumerate(cores):
        for pair in itertools.combinations(core, 2):
            with_pair.setdefault(pair, []).append(j)
    for js in with_pair.values():
        m.add_at_most_one([x[o][j] for j in js for o in range(2)])
    if options.full_line_counts:
        _full_line_counts(m, x, cores, size)
    else:
        full = [(j, sum(1 << p for p in core)) for j, (core, _) in enumerate(cores) if len(core) == size]
        for a, ma in full:
            for b, mb in full:
                if not ma & mb:  # a full row and a full column share a cell
                    m.add_bool_or([x[0][a].Not(), x[1][b].Not()])
    _counting_cuts(m, x, cores, cards, size)
    if options.rank_cuts:
        for family, one_way, both_ways in rank_family_bounds(cores, cards, size):
            for o in range(2):
                if one_way < len(family):
                    m.add(sum(x[o][j] for j in family) <= one_way)
            if both_ways < 2 * min(one_way, len(family)):
                m.add(sum(x[o][j] for j in family for o in range(2)) <= both_ways)
    return m, x


def _crossing_count(m, x, cores, b, size):
    """A line's cards outside full lines across it need lines that are not full: core
    ``b`` in a line of either orientation leaves out at most ``size`` minus the number
    of full lines of the other orientation. All cores would make the model slower than
    the rounds this saves, so it is added for the cores of cut-off choices (a short
    core beside full lines is the usual conflict: trips in a column across three full
    rows)."""
    core = cores[b][0]
    full = [j for j, (k, _) in enumerate(cores) if len(k) == size]
    for o in range(2):
        count = sum(x[o][j] for j in full)
        held = sum(x[o][j] for j in full for p in core if p in cores[j][0])
        m.add(held >= count + len(core) - size).only_enforce_if(x[1 - o][b])


def _full_line_counts(m, x, cores, size):
    """A line of one orientation crosses every full line of the other once, so a full
    line's cards include exactly one of each full line across it (which excludes a
    full row and a full column without a common card)."""
    full = [j for j, (core, _) in enumerate(cores) if len(core) == size]
    for o in range(2):
        count = sum(x[o][j] for j in full)
        held = [sum(x[o][j] for j in full if p in cores[j][0]) for p in range(size * size)]
        for b in full:
            m.add(sum(held[p] for p in cores[b][0]) == count).only_enforce_if(x[1 - o][b])


def _counting_cuts(m, x, cores, cards, size):
    """Cliques the at-most-ones leave fractional: lines of one orientation with two
    or more cards of rank r number at most floor(m_r / 2); flush lines of suit s at
    most floor(n_s / 5) one way; flush rows of one suit exclude flush columns of another,
    and of their own suit unless it has the 9 cards a crossing row and column need."""
    ranks = [int(c) % 13 for c in cards]
    suits = [int(c) // 13 for c in cards]
    n_rank = np.bincount(ranks, minlength=13)
    n_suit = np.bincount(suits, minlength=4)
    for r in range(13):
        js = [j for j, (core, _) in enumerate(cores) if sum(ranks[p] == r for p in core) >= 2]
        if js and n_rank[r] // 2 < len(js):
            for o in range(2):
                m.add(sum(x[o][j] for j in js) <= int(n_rank[r] // 2))
    if size != 5:
        return
    flush = {s: [j for j, (core, _) in enumerate(cores) if len(core) == 5 and all(suits[p] == s for p in core)]
             for s in range(4)}
    for s in range(4):
        if flush[s]:
            for o in range(2):
                m.add(sum(x[o][j] for j in flush[s]) <= int(n_suit[s] // 5))
    for s in range(4):
        for t in range(4):
            if (s != t or n_suit[s] < 9) and flush[s] and flush[t]:
                a, b = int(n_suit[s] // 5), int(n_suit[t] // 5)
                m.add(b * sum(x[0][j] for j in flush[s]) + a * sum(x[1][j] for j in flush[t]) <= a * b)


def _straight_ranks() -> list[list[int]]:
    """The five ranks of each straight, ace low (A2345) to ace high (TJQKA)."""
    return [[(low + k) % 13 if low < 9 else (9, 10, 11, 12, 0)[k] for k in range(5)] for low in range(10)]


def _rank_profiles() -> list[tuple[tuple[int, int], ...]]:
    """Families of cores worth counting: (rank, cards of it a core needs) for each rank
    of the family. Two or more ranks of one straight, one card each; one rank, two to
    four cards; two ranks, as in two pair or a full house (or a pair and a card of a
    straight)."""
    out: set[tuple[tuple[int, int], ...]] = set()
    for ranks in _straight_ranks():
        for k in range(2, 6):
            out.update(tuple((r, 1) for r in sub) for sub in itertools.combinations(sorted(ranks), k))
    out.update(((r, d),) for r in range(13) for d in (2, 3, 4))
    for a, b in itertools.combinations(range(13), 2):
        out.update(((a, da), (b, db)) for da, db in ((2, 2), (3, 2), (2, 3), (2, 1), (1, 2), (3, 1), (1, 3)))
    return sorted(out)


def rank_family_bounds(cores, cards, size: int = 5) -> list[tuple[tuple[int, ...], int, int]]:
    """(cores of a family, most lines of one orientation, most lines of both) for each
    family of cores that need ``d_k`` cards of each rank ``k`` of a profile
    (:func:`_rank_profiles`), where the deal's ``m_k`` cards of those ranks bound them.

    Why: with ``r`` rows and ``c`` columns holding cores of the family, rank ``k``
    gives ``d_k`` distinct cards to each row and to each column; a card in both a row
    and a column sits where they cross, and a row and a column share at most one
    card, so at most ``r c`` cards are counted twice over all the profile's ranks:
    ``sum_k max(0, d_k (r + c) - m_k) <= r c``, with ``d_k r <= m_k`` and
    ``d_k c <= m_k``. The bounds are the largest ``r`` and ``r + c`` that allow."""
    ranks = np.array([int(c) % 13 for c in cards], dtype=np.int64)
    have = np.bincount(ranks, minlength=13)
    need = np.zeros((len(cores), 13), dtype=np.int64)
    for j, (core, _) in enumerate(cores):
        np.add.at(need[j], ranks[list(core)], 1)
    found: dict[tuple[int, ...], tuple[int, int]] = {}
    for profile in _rank_profiles():
        if any(have[r] < d for r, d in profile):
            continue
        js = tuple(int(j) for j in np.flatnonzero(np.all([need[:, r] >= d for r, d in profile], axis=0)))
        if not js:
            continue
        allowed = [(r, c) for r in range(size + 1) for c in range(size + 1)
                   if all(d * max(r, c) <= have[k] for k, d in profile)
                   and sum(max(0, d * (r + c) - int(have[k])) for k, d in profile) <= r * c]
        one_way = max(r for r, _ in allowed)
        both_ways = max(r + c for r, c in allowed)
        if js in found:
            one_way, both_ways = min(one_way, found[js][0]), min(both_ways, found[js][1])
        found[js] = (one_way, both_ways)
    return [(js, a, b) for js, (a, b) in found.items()]


