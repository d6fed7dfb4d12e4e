"""Monte Carlo over the evaluator's policy with common random numbers and sequential
halving at the root, exact over the last cards: the champion's search.

- **Common random numbers.** Every candidate cell is judged on the same sampled
  futures: a round's playouts use one seed for every cell, and an evaluator's
  playouts from grids with the same undealt cards deal the same cards in the same
  order for the same seed. Two cells' difference is then measured on paired samples,
  whose noise is far smaller than that of two independent means.
- **Sequential halving** (Karnin, Koren and Somekh 2013). The budget is split into
  ``ceil(log2(cells))`` rounds; each round plays the same number of playouts for each
  surviving cell and keeps the better half, so the close candidates get most of the
  playouts instead of every cell getting an equal share.
- **Truncated playouts.** A playout places ``depth`` more cards by the evaluator's
  greedy policy and ends with the evaluator's estimate of the final score
  (:meth:`Evaluator.limited_playouts`); near the end it reaches the full grid and
  its exact score.
- **Exact end game.** When the cells left are few enough for exact expectimax
  (:mod:`pokersquares.search.endgame`) to fit in the move's time, it decides.
- **One cell of each kind.** Empty cells that a symmetry of the grid (rows reordered,
  columns reordered, rows and columns swapped) maps onto each other are worth the same
  (:mod:`pokersquares.symmetry`); only the first of each class in the evaluator's order
  is searched. After the first card the 24 empty cells are two choices; while the
  early grid keeps empty lines the playouts go to the choices that differ.
- **Easy moves fast.** After each round the search stops once the leader is ahead of
  the runner-up by ``stop_z`` paired standard errors; the time saved goes to the
  moves still to come (the player shares the clock left among them).

Playouts of a round are split over ``cores`` threads (the NARL playout kernel
releases the GIL), each thread with its own seed shared by all cells.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from ..cards import is_integer, is_seconds
from ..evaluators.base import MAX_THREADS, Evaluator
from ..game import EMPTY
from ..symmetry import alike_values, cell_classes, distinct_cells
from .base import Search, SearchOptionError, checked_decision, last_cell_values, round_seed
from .endgame import exact_cost, exact_values

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["CrnHalving"]


# A move's playouts come in at least this many batches, each sized on the cost of a
# playout the batch before measured: one batch for two choices, sized on the last
# game's cost, overshot its budget threefold and cost the clock later moves.
MIN_ROUNDS = 3
# An exact end game of fewer full grids is not timed: its call's fixed cost is most of
# its time (the last move's 56 full grids made the next game's four-card end game look
# several times dearer than it is, and left it to playouts where it fitted).
MIN_TIMED_LEAVES = 1000


class CrnHalving(Search):
    """Sequential halving over common-random-number playouts, exact at the end.

    ``depth``: cards each playout places before the evaluator's estimate ends it (25:
    play to the end); ``cores``: threads the playouts run on; ``time_fraction``: the
    share of the move's budget planned for (each round is sized from the measured
    cost of playouts, with the rest as a margin for a busy machine); ``stop_z``: the
    paired z-score that ends the search early (``inf``: never); ``exact``: use exact
    expectimax when it fits; ``min_playouts``: the fewest playouts per cell and round
    worth playing: only as many of the evaluator's best cells are searched as the time
    gives that many (a few playouts judge a cell worse than the evaluator alone does;
    with time for fewer than two cells, the move is the evaluator's greedy one);
    ``from_cards``: grids with fewer cards placed get the evaluator's greedy move at
    once, so their time is left to the later moves, where playouts reach further
    towards the exact end; ``stratify``: each round's playouts deal every undealt card
    as the next card in turn instead of at random (evaluators whose ``limited_playouts``
    take ``first``: the TD evaluator); ``symmetry``: search one empty cell of each class
    of cells the grid's symmetries map onto each other (:func:`~pokersquares.symmetry.distinct_cells`).
    With no clock (``time_s=inf``) it needs ``max_playouts``, and then plays the exact end
    game where that fits a quarter of the time the capped playouts would take.
    :attr:`~.base.Search.cut_short` says the clock left it the greedy move or, with
    ``max_playouts``, fewer cells or playouts than the cap alone gives; whether the exact
    end game fits is judged on its measured cost, and is not counted.
    """

    name = "crn_halving"
    compile_s = 2.0  # the exact end game's kernel

    def __init__(self, depth: int = 25, cores: int = 2, time_fraction: float = 0.85, stop_z: float = 3.0,
                 exact: bool = True, min_playouts: int = 32, crn: bool = True, halving: bool = True,
                 max_playouts: int | None = None, from_cards: int = 0, lam: float = 1.0,
                 stratify: bool = False, symmetry: bool = True) -> None:
        # Types too: 2**64 cards or playouts overflowed the kernels' int64 in every game, a
        # fractional count failed in range(), a bool was taken as 1.
        counts = (depth, cores, min_playouts, from_cards) + (() if max_playouts is None else (max_playouts,))
        if (not all(is_integer(n) and n < 2 ** 63 for n in counts) or not all(map(is_seconds, (time_fraction, lam, stop_z)))
                or depth < 1 or not 1 <= cores <= MAX_THREADS or not 0 < time_fraction <= 1 or min_playouts < 1
                or not 0 <= from_cards <= 25 or not 0 <= lam <= 1 or not stop_z > 0
                or (max_playouts is not None and max_playouts < 1)):
            raise SearchOptionError(
                f"CrnHalving needs whole numbers depth >= 1, cores 1..{MAX_THREADS}, min_playouts >= 1, max_playouts "
                ">= 1 (or None) and 0 <= from_cards <= 25, numbers 0 < time_fraction <= 1, stop_z > 0 (inf: never "
                "stop early) and 0 <= lam <= 1")
        self.depth = int(depth)
        self.cores = int(cores)
        self.time_fraction = time_fraction
        self.stop_z = stop_z
        self.exact = exact
        self.min_playouts = int(min_playouts)
        self.crn = crn
        self.halving = halving
        self.max_playouts = None if max_playouts is None else int(max_playouts)
        self.from_cards = int(from_cards)
        self.lam = lam
        self.stratify = bool(stratify)
        self.symmetry = bool(symmetry)
        self.move_s = 2e-6        # seconds per playout move (one card placed), learned as it goes
        self.leaf_s = 1e-6        # seconds per full grid scored by the exact end game, learned too
        self._pool: ThreadPoolExecutor | None = None
        self._measured = False
        self.last: dict = {}      # what the last decision did (playouts per cell, rounds, ...), for reports and tests

    def needs_clock(self) -> str | None:
        if self.max_playouts is None:
            return ("it plays playouts until its time is up; give it max_playouts=N to play at most N a move "
                    "without a clock")
        return None

    # The thread pool is not copied into worker processes.
    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_pool"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.setdefault("symmetry", False)  # a search pickled before the option: as it was
        self.__dict__.update(state)
        self._pool = None

    def _playouts(self, evaluator: Evaluator, grid: np.ndarray, children: list[np.ndarray], n: int, seed: int,
                  round_: int) -> np.ndarray:
        """``float64[len(children), n]``: playouts of each child grid, sample ``j`` of
        every child on the same seed (common random numbers)."""
        threads = min(self.cores, n)
        shares = [n // threads + (t < n % threads) for t in range(threads)]

        # lam < 1 (the lambda-return along each playout) and a stratified next card only
        # for evaluators that take them.
        extra = {} if self.lam == 1.0 else {"lam": self.lam}
        # Stratified: the round's n playouts deal the undealt cards as the next card in
        # turn from an offset the round's seed draws, thread t from where thread t-1 ends.
        offset = round_seed(seed, round_, 0) % 1_000_003

        def work(t: int) -> np.ndarray:
            s = round_seed(seed, round_, t)
            first = {"first": offset + sum(shares[:t])} if self.stratify else {}
            return np.stack([evaluator.limited_playouts(child, shares[t], self.depth,
                                                        s if self.crn else round_seed(s, 0, 1 + int(np.argmax(child != grid))),
                                                        **extra, **first)
                             for child in children])

        if threads == 1:
            return work(0)
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor
            self._pool = ThreadPoolExecutor(self.cores)
        return np.concatenate(list(self._pool.map(work, range(threads))), axis=1)

    def choose(self, evaluator: Evaluator, grid: np.ndarray, card: int, points: np.ndarray,
               time_s: float, seed: int) -> tuple[int, np.ndarray]:
        start = time.perf_counter()
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        cells = np.flatnonzero(grid == EMPTY)
        if len(cells) == 0:
            raise ValueError("the grid is full")
        # This decision's own record, which self.last then shows: another thread's decision
        # on this search replaces self.last, and read back from it the playouts left under
        # max_playouts were that decision's (a shared search answered other moves, silently).
        last = self.last = {"rounds": 0, "playouts": np.zeros(25, dtype=np.int64), "exact": False,
                            "stopped_early": False, "choices": len(cells)}
        self.cut_short = False
        if len(cells) == 1:
            return last_cell_values(grid, card, points)
        deadline = start + self.time_fraction * time_s
        if self.exact:
            cost = exact_cost(grid)
            # One call that cannot stop part way: only when it fits four times over, in the
            # move's time or, with no clock, in the time of the capped playouts it replaces
            # (with no clock, every end game fitted, and an early one ran for ever).
            room = deadline - start
            if math.isinf(room):
                assert self.max_playouts is not None  # no clock: checked_decision asked for max_playouts
                room = self.max_playouts * min(self.depth, len(cells) - 1) * self.move_s / self.cores
            if cost * self.leaf_s < 0.25 * room:
                t = time.perf_counter()
                values = exact_values(grid, card, points)
                if cost >= MIN_TIMED_LEAVES:
                    self.leaf_s = max(1e-9, (time.perf_counter() - t) / cost)
                last["exact"] = True
                return int(np.argmax(values)), values
        greedy = evaluator.placement_values(grid, card)
        if 25 - len(cells) < self.from_cards:
            return int(cells[np.argmax(greedy[cells])]), greedy
        # Best greedy candidates first: ties in the halving keep the evaluator's order.
        ranked = cells[np.argsort(-greedy[cells], kind="stable")]
        classes = cell_classes(grid) if self.symmetry else None
        order = distinct_cells(grid, ranked, classes) if self.symmetry else ranked  # one cell of each kind, the evaluator's first
        last["choices"] = len(order)
        if len(order) == 1:
            return int(order[0]), greedy
        moves = min(self.depth, len(cells) - 1)
        if not self._measured:
            # A first, small batch measures what a playout costs here (its samples are not used).
            # Four cells whatever the choices: a batch of two cells' playouts is too small
            # to time (its fixed cost made a playout look dear and the next moves greedy).
            self._timed_playouts(evaluator, grid, card, ranked[:4], 4, seed, -1, moves)
        capacity = (deadline - time.perf_counter()) * self.cores / (moves * self.move_s)
        if self.max_playouts is not None:
            capacity = min(capacity, self.max_playouts)
        # Only as many of the greedy order's cells as get min_playouts each in every
        # round: a few playouts judge a cell worse than the evaluator alone does.
        alive = order[:self._width(len(order), capacity)]
        if self.max_playouts is not None:
            self.cut_short = len(alive) < self._width(len(order), self.max_playouts)
        total_rounds = self._rounds(len(alive))
        samples: dict[int, list[np.ndarray]] = {int(c): [] for c in alive}
        round_ = 0
        while len(alive) > 1:
            left = deadline - time.perf_counter()
            n = left / (total_rounds - round_) * self.cores / (len(alive) * moves * self.move_s)
            if self.max_playouts is not None:
                spare = self.max_playouts - int(last["playouts"].sum())
                capped = spare // ((total_rounds - round_) * len(alive))
                self.cut_short |= n < capped
                n = min(n, capped)
            n = int(n)  # capped first: with no clock the time gives infinitely many
            if n < self.min_playouts // 2:
                break
            scores = self._timed_playouts(evaluator, grid, card, alive, n, seed, round_, moves)
            for cell, row in zip(alive, scores):
                samples[int(cell)].append(row)
            last["playouts"][alive] += n
            round_ += 1
            means = np.array([np.mean(np.concatenate(samples[int(c)])) for c in alive])
            alive = alive[np.argsort(-means, kind="stable")]
            if self._clearly_ahead(samples[int(alive[0])], samples[int(alive[1])]):
                last["stopped_early"] = True
                alive = alive[:1]
                break
            if round_ >= total_rounds:
                alive = alive[:1]
            elif self.halving and len(alive) > 2:
                alive = alive[:math.ceil(len(alive) / 2)]  # the final two share the rounds left
        last["rounds"] = round_
        if round_ == 0:
            self.cut_short |= self.max_playouts is None
            # Left greedy by the clock, this move timed no playout: the next one times a
            # batch afresh, so that one slow batch cannot leave every later move greedy.
            self._measured = self._measured and not self.cut_short
            return int(order[0]), greedy
        values = np.full(25, -np.inf)
        for cell, rows in samples.items():
            if rows:
                values[cell] = float(np.mean(np.concatenate(rows)))
        if self.symmetry:
            values = alike_values(grid, values, classes)  # the cells not searched for being alike: as their kind
        return int(alive[0]), values

    def _rounds(self, width: int) -> int:
        """Rounds for ``width`` cells: halving's log2 (the last on the final two), and never
        fewer than ``MIN_ROUNDS``, so no batch is sized on a stale playout cost alone."""
        if width <= 1:
            return 1
        return max(MIN_ROUNDS, math.ceil(math.log2(width))) if self.halving else MIN_ROUNDS

    def _width(self, cells: int, capacity: float) -> int:
        """The most cells (of ``cells``) whose rounds ``capacity`` playouts can fill with
        ``min_playouts`` per cell per round; below 2 the move is the greedy one."""
        width = cells
        while width > 1 and capacity < self._rounds(width) * width * self.min_playouts:
            width -= 1
        return width

    def _timed_playouts(self, evaluator, grid, card, cells, n, seed, round_, moves) -> np.ndarray:
        """:meth:`_playouts` of ``card`` in each of ``cells``, learning the cost of a playout move."""
        children = []
        for cell in cells:
            child = grid.copy()
            child[cell] = card
            children.append(child)
        t = time.perf_counter()
        scores = self._playouts(evaluator, grid, children, n, seed, round_)
        self.move_s = max(1e-9, (time.perf_counter() - t) * self.cores / (len(cells) * n * moves))
        self._measured = True
        return scores

    def _clearly_ahead(self, leader: list[np.ndarray], runner_up: list[np.ndarray]) -> bool:
        if not math.isfinite(self.stop_z):
            return False
        diff = np.concatenate(leader) - np.concatenate(runner_up)  # paired: the same futures
        if len(diff) < 8:
            return False
        se = diff.std(ddof=1) / math.sqrt(len(diff))
        return bool(diff.mean() > self.stop_z * se) if se > 0 else bool(diff.mean() > 0)
