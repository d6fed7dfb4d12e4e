"""Tiger's possibility heuristic as an evaluator (Arrington, Langley and Bogaerts 2016).

The value ``h`` of a grid is the sum of ten hand values (one per row and column):

- a five-card hand is worth its points;
- a four-card hand is worth, for each hand type, its *weight* (the fraction of the
  undealt cards that complete the hand to exactly that type) times the type's points.
  This is the paper's rule: in the paper's example, 6H 6C 6S 7H with only 6D 7D 8D
  left gives 1/3 each to three of a kind, four of a kind and a full house;
- a one-, two- or three-card hand is worth alpha, beta or gamma times the sum, over
  the hand types its *possibility array* marks possible (1), of an a-priori
  probability of the type times its points (see ``APRIORI``), plus, over the types it
  marks made (2), ``made_weight`` times the type's points. The paper weighs made
  types like possible ones, by their a-priori probability (``made_weight=-1``); our
  default ``made_weight=1`` counts a made pair or trips at its full points, which
  played better with the British-derived table (``tiger`` uses the default);
- an empty hand is worth 0.

The possibility array has one slot per hand type: 0 when the type can no longer be
reached by adding cards, 1 when it can, 2 when the cards already make it (high card
while there is no pair; a pair, two pair, trips or quads in the cards so far).

``h`` is not an estimate of the final score (an empty grid is worth 0), which the
:class:`~pokersquares.evaluators.base.Evaluator` contract asks of ``state_value``: the
evaluator adds a calibration offset per number of cards on the grid, the mean final
score minus the mean ``h`` after that many moves of best-move play, measured in
``prepare`` (:func:`pokersquares.kernels.possibility.calibration_offsets`). The offset
is the same for every child of a position, so it changes no greedy, expectimax or
flat Monte Carlo choice, and MCTS's pruning subtracts it again (the kernel's
``baseline``): Tiger plays as the paper's ``h`` says.

The evaluator's greedy policy, the argmax of ``h`` over the placements of the card in
hand, is the paper's *best move*. Everything here is the readable reference; the
fast path is :mod:`pokersquares.kernels.possibility`.
"""

from __future__ import annotations

import time
from collections import Counter
from itertools import combinations_with_replacement
from typing import Sequence

import numpy as np

from ..cards import NUM_CARDS, Card, card, is_seconds, suit_of
from ..errors import PokerSquaresError
from ..game import LINES
from ..points import BRITISH
from ..hands import NUM_HANDS, classify
from ..kernels import possibility as kpos
from .base import Evaluator, _brief, checked_budget, checked_card, checked_count, checked_grid, checked_points, checked_seed
from .kernel import EvaluatorKernel

__all__ = [
    "APRIORI", "UNTUNED", "TUNED", "PossibilityEvaluator", "possibility", "four_card_weights",
    "hand_value", "state_value", "measure_apriori",
]

# Best-move games that calibrate h into an estimate of the final score (``prepare``).
CALIBRATION_GAMES = 1000
_SECONDS_PER_CALIBRATION_GAME = 1.5e-4  # measured 1.2e-4 on a busy core
_CALIBRATION_CHUNK = 100  # games per kernel call, the clock checked between calls

# The paper's weights for one-, two- and three-card hands.
UNTUNED = (0.2, 0.4, 0.6)
TUNED = (0.1, 0.3, 0.85)
# The largest weight (alpha, beta, gamma, made_weight) in magnitude: far beyond it values overflow.
MAX_WEIGHT = 1e12



def _inverse_british() -> tuple[float, ...]:
    # The British system prices each hand by how hard it is to finish in Poker Squares
    # (a straight, 12, is harder than a flush, 5). Reading points as inverse odds:
    # probability proportional to 1 / points, high card (0 points) taken to be as easy
    # as a pair (1 point), normalised to sum 1.
    difficulty = [1, *BRITISH.points[1:]]
    inverse = [1 / d for d in difficulty]
    return tuple(x / sum(inverse) for x in inverse)


# A-priori probabilities of the hand types (ids 0..9) of a finished hand. The paper
# estimated them "from the British scoring system ... based on the difficulty of
# finishing each of the hand types" without publishing them.
# - "british" (default): 1 / British points, normalised (see ``_inverse_british``):
#   0.332 0.332 0.111 0.055 0.028 0.066 0.033 0.021 0.011 0.011.
# - "measured": the hand-type frequencies of the ten finished hands when the best-move
#   policy plays the British system itself, iterated to a fixed point:
#   ``measure_apriori(BRITISH.points, games=20000, rounds=3)`` from a uniform table,
#   alpha, beta, gamma = 0.2, 0.4, 0.6, made weight 1.
# Greedy best-move play, American, 4,000 games each (mean +- s.e.), tuned weights:
# british 91.8 +- 0.4, measured 68.2 +- 0.4; untuned: 67.1 and 65.2. The paper's
# tuned weights suit the British-derived table, so it is the default.
APRIORI: dict[str, tuple[float, ...]] = {
    "british": _inverse_british(),
    "measured": (0.252015, 0.34559, 0.14921, 0.093595, 0.081135, 0.030065, 0.04042, 0.00622,
                 0.001575, 0.000175),
}


# -- the rules, readably ---------------------------------------------------------


def possibility(cards: Sequence[Card]) -> list[int]:
    """The possibility array of 0..5 cards, by brute force over every completion.

    A type is possible when some choice of the missing cards from the rest of the deck
    makes exactly that type; made when it is also the type of the cards so far (high
    card while there is no pair). A completion's type depends only on the ranks added
    and on whether all five cards share a suit, so each multiset of added ranks is
    tried once in the hand's suit and once with as few cards of that suit as possible.
    """
    cards = list(cards)
    current = classify(cards) if cards else None  # no cards make no type yet
    if len(cards) == 5:
        return [2 if t == current else 0 for t in range(NUM_HANDS)]
    reachable = set()
    for ranks in combinations_with_replacement(range(13), 5 - len(cards)):
        for suited in (True, False):
            hand = _completion(cards, ranks, suited)
            if hand is not None:
                reachable.add(classify(hand))
    return [(2 if t == current else 1) if t in reachable else 0 for t in range(NUM_HANDS)]


def _completion(cards: list[Card], ranks: Sequence[int], suited: bool) -> list[Card] | None:
    """``cards`` plus one card of each of ``ranks``, all in the hand's suit (``suited``)
    or off it where possible; None if no such cards exist."""
    # An empty hand's suit is its first added card's: with suit 0 for it, every card off
    # suit 0 went to suit 1, and five ranks made a flush, never a high card or a straight.
    suit = suit_of(cards[0]) if cards else None
    hand = list(cards)
    for r in ranks:
        if suit is None:
            suit = 0
            options = [suit]
        elif suited:
            options = [suit]
        else:
            options = [s for s in range(4) if s != suit] + [suit]
        free = [card(r, s) for s in options if card(r, s) not in hand]
        if not free:
            return None
        hand.append(free[0])
    if suited and len({suit_of(c) for c in hand}) != 1:
        return None
    return hand


def four_card_weights(cards: Sequence[Card], undealt: Sequence[Card]) -> list[float]:
    """For each hand type, the fraction of ``undealt`` that completes the four ``cards`` to it."""
    if len(cards) != 4:
        raise ValueError(f"four-card weights need 4 cards, got {len(cards)}")
    counts = Counter(int(classify(list(cards) + [c])) for c in undealt)
    return [counts[t] / len(undealt) if undealt else 0.0 for t in range(NUM_HANDS)]


def hand_value(cards: Sequence[Card], undealt: Sequence[Card], points: Sequence[int],
               apriori: Sequence[float], size_weights: Sequence[float], made_weight: float | None = 1.0) -> float:
    """The value of one hand. ``size_weights`` is (alpha, beta, gamma); ``made_weight``
    is the weight of a made type in a one- to three-card hand (``None``: its a-priori
    probability, like a possible type)."""
    n = len(cards)
    if n == 0:
        return 0.0
    if n == 5:
        return float(points[classify(list(cards))])
    if n == 4:
        return sum(w * p for w, p in zip(four_card_weights(cards, undealt), points))
    total = 0.0
    for t, flag in enumerate(possibility(cards)):
        if flag == 1 or (flag == 2 and made_weight is None):
            total += apriori[t] * points[t]
        elif flag == 2 and made_weight is not None:
            total += made_weight * points[t]
    return size_weights[n - 1] * total


def state_value(grid: Sequence[int], points: Sequence[int], apriori: Sequence[float],
                size_weights: Sequence[float], made_weight: float | None = 1.0) -> float:
    """``h(grid)``: the sum of its ten hand values; undealt = every card not on the grid."""
    on_grid = {c for c in grid if c >= 0}
    undealt = [c for c in range(NUM_CARDS) if c not in on_grid]
    return sum(hand_value([grid[i] for i in line if grid[i] >= 0], undealt, points, apriori,
                          size_weights, made_weight) for line in LINES)


# -- the evaluator ------------------------------------------------------------------


class PossibilityEvaluator(Evaluator):
    """Tiger's heuristic. ``alpha``, ``beta``, ``gamma`` weight one-, two- and three-card
    hands (default: the paper's tuned values); ``apriori`` names a table of ``APRIORI``
    or gives ten probabilities; ``made_weight`` weighs made types of short hands (negative: use the a-priori
    probability as for possible types)."""

    name = "possibility"
    compile_s = 6.0
    _points: np.ndarray | None
    _params: np.ndarray | None

    def __init__(self, alpha: float = TUNED[0], beta: float = TUNED[1], gamma: float = TUNED[2],
                 apriori: str | Sequence[float] = "british", made_weight: float = 1.0) -> None:
        if isinstance(apriori, str):
            if apriori not in APRIORI:
                raise PokerSquaresError(f"unknown a-priori table {apriori!r}; known: {', '.join(APRIORI)}")
            apriori = APRIORI[apriori]
        if not hasattr(apriori, "__len__") or len(apriori) != NUM_HANDS:
            raise PokerSquaresError(f"an a-priori table has 10 probabilities, got {_brief(apriori)}")
        # NaN or 1e308 made every value NaN (the greedy player refused to move); text, a
        # TypeError or ValueError from deep in the constructor.
        if not all(is_seconds(p) and abs(p) <= MAX_WEIGHT for p in apriori):
            raise PokerSquaresError(f"an a-priori table holds 10 numbers from {-MAX_WEIGHT:g} to {MAX_WEIGHT:g}, "
                                    f"got {_brief(list(apriori))}")
        # Finite and bounded: made_weight=1e308 made a value infinite, every cell's value
        # inf - inf, and the player had no cell to play (the game scored the penalty).
        # Far below the bound the weighted term already outweighs every other.
        for what, weight in (("alpha", alpha), ("beta", beta), ("gamma", gamma), ("made_weight", made_weight)):
            if not is_seconds(weight) or not abs(weight) <= MAX_WEIGHT:
                raise PokerSquaresError(f"{what} must be a number from {-MAX_WEIGHT:g} to {MAX_WEIGHT:g}, "
                                        f"got {weight!r}")
        self.size_weights = (float(alpha), float(beta), float(gamma))
        self.apriori = tuple(float(p) for p in apriori)
        self.made_weight = None if made_weight < 0 else float(made_weight)
        self.offsets = np.zeros(26)
        self.points = None  # prepare gives it the point system's

    def prepare(self, points: np.ndarray, budget_s: float, seed: int = 0) -> None:
        """Store the points and calibrate: ``CALIBRATION_GAMES`` best-move games (a fixed
        seed, about 0.12 s), fewer when ``budget_s`` is smaller than they would take (none:
        no offsets). The points, offsets and numba form change together once all is
        done: a refused argument or a failed calibration leaves the old ones, and the
        offsets never come from an earlier preparation's points."""
        start = time.perf_counter()
        points = checked_points(points)
        budget_s = checked_budget(budget_s)
        checked_seed(seed)
        games = min(CALIBRATION_GAMES, int(0.5 * max(0.0, budget_s) / _SECONDS_PER_CALIBRATION_GAME))
        # In chunks, each with its own seed, until half the budget is spent: a busy
        # machine plays them several times slower than the constant says (one call of
        # 1,000 games overran 0.5 s budgets). The offsets are means over games, so the
        # chunks' combine exactly.
        deadline = start + 0.5 * max(0.0, budget_s)
        offsets = np.zeros(26)
        params = self._build_params(points, offsets)
        total, done = np.zeros(26), 0
        while done < games and time.perf_counter() < deadline:
            n = min(_CALIBRATION_CHUNK, games - done)
            total += n * kpos.calibration_offsets(params, n, done // _CALIBRATION_CHUNK)
            done += n
        if done:
            offsets = total / done
            params = self._build_params(points, offsets)
        self._points, self.offsets, self._params = points, offsets, params
        self.prepare_seconds = time.perf_counter() - start

    @property
    def points(self) -> np.ndarray | None:
        """The point system's ``int64[10]``; None until ``prepare`` (or set by hand:
        the heuristic's numba form is made anew for them, with the offsets it has)."""
        return self._points

    @points.setter
    def points(self, points: np.ndarray | None) -> None:
        points = None if points is None else checked_points(points)  # the kernels take them unchecked
        self._params = None if points is None else self._build_params(points, self.offsets)
        self._points = points

    def _build_params(self, points: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """The numba form of this heuristic for ``points`` with calibration ``offsets``."""
        points = np.asarray(points, dtype=np.float64)
        apriori = np.array(self.apriori)
        made = apriori if self.made_weight is None else np.full(NUM_HANDS, self.made_weight)
        size = np.array([0.0, *self.size_weights, 1.0])
        return kpos.make_params(points, apriori * points, made * points, size, offsets)

    @property
    def params(self) -> np.ndarray:
        """The numba form of this heuristic for ``pokersquares.kernels.possibility``."""
        self._require_points()
        assert self._params is not None  # set with the points
        return self._params

    def kernel(self) -> EvaluatorKernel:
        self._require_points()
        return EvaluatorKernel(kpos.child_values, kpos.state_value, self._params, self.offsets)

    def placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        self._require_points()
        grid = checked_grid(grid)
        return self._unchecked_placement_values(grid, checked_card(card, grid))

    def _unchecked_placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        return kpos.placement_values(np.ascontiguousarray(grid), card, self._params)

    def heuristic(self, grid: np.ndarray) -> float:
        """The paper's ``h(grid)``: a damped heuristic (empty hands count 0, short hands
        are damped by alpha, beta, gamma), not an estimate of the final score."""
        self._require_points()
        grid = checked_grid(grid)
        return self._unchecked_state_value(grid) - float(self.offsets[int((grid >= 0).sum())])

    def state_value(self, grid: np.ndarray) -> float:
        """``h(grid)`` plus the calibration offset for its number of cards: an estimate
        of the final score (exact for a full grid)."""
        self._require_points()
        return self._unchecked_state_value(checked_grid(grid))

    def _unchecked_state_value(self, grid: np.ndarray) -> float:
        return float(kpos.state_value(np.ascontiguousarray(grid), self._params))

    def playouts(self, grid: np.ndarray, n: int, seed: int) -> np.ndarray:
        self._require_points()
        return kpos.greedy_playouts(np.ascontiguousarray(checked_grid(grid)),
                                    checked_count(n, "the number of playouts"), checked_seed(seed), self._params)


# -- estimating the a-priori probabilities -------------------------------------------


def measure_apriori(points: Sequence[int], games: int = 20000, seed: int = 0, rounds: int = 3,
                    start: Sequence[float] | None = None, size_weights: tuple[float, float, float] = UNTUNED,
                    made_weight: float = 1.0) -> tuple[float, ...]:
    """Hand-type frequencies of the ten finished hands of ``games`` games played by the
    best-move policy under ``points``, iterated ``rounds`` times (each round plays with
    the previous round's frequencies as its a-priori table) from ``start``
    (default: uniform)."""
    table = tuple(start) if start is not None else (0.1,) * NUM_HANDS
    pts = np.asarray(points, dtype=np.int64)
    for r in range(rounds):
        ev = PossibilityEvaluator(*size_weights, apriori=table, made_weight=made_weight)
        ev.prepare(pts, 0.0)
        counts = np.zeros(NUM_HANDS)
        for grid in _greedy_grids(ev, games, seed + r * games):
            for line in LINES:
                counts[classify([int(grid[i]) for i in line])] += 1
        table = tuple(float(x) for x in counts / counts.sum())
    return table


def _greedy_grids(ev: PossibilityEvaluator, games: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(games):
        grid = np.full(25, -1, dtype=np.int8)
        for c in rng.permutation(NUM_CARDS)[:25]:
            grid[ev.greedy_cell(grid, int(c))] = c
        yield grid
