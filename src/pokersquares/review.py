"""A played game, move by move, against a coach's evaluation: where it lost points.

For each placement of a finished game the coach values every empty cell for the card
in hand (its estimate of the final score if the card goes there and it plays on), and
the move's *loss* is the best cell's value minus the value of the cell played: 0 when
the player agreed with the coach (a cell valued within :data:`TIE` of the best, less
than every output shows, is as good as the best). Over the last cards (``exact_cells`` empty cells or
fewer, the card's cell included) the values are exact: the expected final score under
best play from there (:mod:`pokersquares.search.endgame`), so a loss there is a real
expected loss, not an opinion.

The coach is a player that evaluates positions (``champion``, ``td``, ``gettysburg``,
``beemo``, ...: anything with an evaluator), prepared for the game's point system. Its
values are its own, greedy judgement without search: a move it would have searched
its way to may still count as a loss, and it judges its own moves as costing nothing.
Where the coach's learning lost its check against the greedy rule (small budgets,
``players.greedy_guard``), the rule's sampled values stand in.

The game does not change when the grid is transposed (rows become columns, the same
ten hands), but a learned evaluation does: a learner settles on one way round (say
suits down the columns), and it undervalues the other, which its games never reached.
So a position's value here is the higher of the coach's values of the grid and of its
transpose (:func:`either_way_round`). Measured on the 300 recorded 30 s games of
``gettysburg`` (American, docs/stores/champion-30s.sqlite), judged by one saved
``champion`` evaluator: 46.69 points given away a game as played, 1.37 transposed; the
evaluator's own greedy play scores the same with or without the transpose (+0.04 ±
0.09 over 2,000 deals), so taking the higher value costs the coach nothing. The sum of a game's
losses is a guide to where points went, not the score a perfect player would add: that
bound is ``pokersquares optimum``'s.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Set as AbstractSet
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .cards import is_card_id, is_integer, is_seconds
from .errors import PokerSquaresError
from .evaluators.base import checked_points
from .game import EMPTY, NUM_CELLS
from .kernels.core import score_grid
from .search.endgame import exact_values

__all__ = ["MoveReview", "GameReview", "ReviewError", "make_coach", "prepare_coach", "coach_values",
           "either_way_round", "review_game", "review_record", "record_placements", "run_summary", "STAGES",
           "TRANSPOSE", "MAX_EXACT_CELLS", "TIE"]

# Stages of a game, by the turns (1-based) they hold.
STAGES = ((1, 5), (6, 10), (11, 15), (16, 20), (21, 25))
# Values within this of the best count as the best (float noise, ties).
# A cell valued within this of the best is as good as the best: a smaller loss prints
# as 0.00 (here and in the web app), so a move that gave it away is counted as agreed,
# not as a move that gave away "-0.00" points (no estimate is that precise).
TIE = 0.005
# The most empty cells judged exactly: the exact endgame's work grows steeply with them
# (the command line caps --exact-cells here too).
MAX_EXACT_CELLS = 5


class ReviewError(PokerSquaresError):
    """A game or a coach that cannot be reviewed."""


@dataclass
class MoveReview:
    """One placement, judged: ``turn`` 1..25, the ``card`` (0..51), the ``cell`` it went
    to and the coach's ``best`` cell (row*5+col), their values (estimated final
    scores), ``loss`` = best value - value played (>= 0), whether the values are
    ``exact`` (the last cards) and ``values``, every cell's (None where occupied)."""

    turn: int
    card: int
    cell: int
    best: int
    value: float
    best_value: float
    loss: float
    exact: bool
    values: list[float | None] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.loss <= TIE


@dataclass
class GameReview:
    """A game's moves, judged; ``score`` is the game's final score."""

    score: int
    moves: list[MoveReview] = field(default_factory=list)
    seed: int | None = None

    @property
    def loss(self) -> float:
        return float(sum(m.loss for m in self.moves))

    @property
    def agreed(self) -> int:
        return sum(m.agrees for m in self.moves)

    def worst(self, n: int = 3) -> list[MoveReview]:
        """The ``n`` costliest moves (those with a loss), costliest first, ties by turn."""
        if not is_integer(n) or n < 0:
            raise ReviewError(f"how many of the worst moves is a whole number from 0, got {n!r}")
        lossy = [m for m in self.moves if not m.agrees]
        return sorted(lossy, key=lambda m: (-m.loss, m.turn))[:n]

    def stage_loss(self) -> list[float]:
        """The loss in each of :data:`STAGES`."""
        return [float(sum(m.loss for m in self.moves if a <= m.turn <= b)) for a, b in STAGES]

    def to_json(self) -> dict:
        return {"seed": self.seed, "score": self.score, "loss": round(self.loss, 3), "agreed": self.agreed,
                "moves": [{**asdict(m), "agrees": m.agrees, "value": round(m.value, 3), "best_value": round(m.best_value, 3),
                           "loss": round(m.loss, 3), "values": [None if v is None else round(v, 3) for v in m.values]}
                          for m in self.moves]}


def make_coach(spec: str) -> Any:
    """The player ``spec`` names, checked to be one that can coach (it has an evaluator):
    the check a command makes before any learning second is spent."""
    from .harness.registry import make_player

    if not isinstance(spec, str):
        raise ReviewError(f"a coach is a player spec (text such as 'champion'), got {spec!r}")
    player = make_player(spec)
    coach_values(player)
    return player


def prepare_coach(player: Any, point_system: Any, prep_s: float, seed: int = 0) -> Any:
    """Compile ``player``'s kernels (off the clock, as the harness does; said on the
    progress line when that is slow, as on a cold numba cache), then let it learn
    ``point_system`` within ``prep_s`` seconds, as it would before a game."""
    from .cards import check_seed
    from .harness.spec import warm_and_seed

    if not is_seconds(prep_s) or not 0 <= prep_s < math.inf:
        raise ReviewError(f"the coach's preparation time is a finite number of seconds from 0, got {prep_s!r}")
    seed = check_seed(seed, "the coach's seed")
    warm_and_seed(player, seed).set_point_system(point_system, prep_s)
    return player


# TRANSPOSE[i]: the cell that cell i becomes when rows and columns swap (its own inverse).
TRANSPOSE = np.array([(i % 5) * 5 + i // 5 for i in range(NUM_CELLS)])


def either_way_round(values: Callable[[np.ndarray, int], np.ndarray]) -> Callable[[np.ndarray, int], np.ndarray]:
    """``values`` made blind to transposition: each cell's value is the higher of its
    value in the grid and that of its image in the transposed grid."""
    def judged(grid: np.ndarray, card: int) -> np.ndarray:
        grid = np.asarray(grid, dtype=np.int8)
        return np.maximum(values(grid, card), np.asarray(values(grid[TRANSPOSE], card))[TRANSPOSE])

    return judged


def coach_values(player: Any) -> Callable[[np.ndarray, int], np.ndarray]:
    """The prepared ``player``'s judgement as ``values(grid, card) -> float64[25]``
    (``-inf`` where occupied), either way round (:func:`either_way_round`): its
    evaluator's greedy values, or the greedy rule's sampled ones where its learning lost
    the check against that rule."""
    if getattr(player, "plays_greedy_rule", False):
        from .players.greedy_guard import greedy_rule_values

        return either_way_round(lambda grid, card: greedy_rule_values(grid, card, player.points, 0))
    evaluator = getattr(player, "evaluator", None)
    if evaluator is None or not hasattr(evaluator, "placement_values"):
        raise ReviewError(f"{getattr(player, 'name', type(player).__name__)} cannot coach a review: it has no "
                          "evaluator to value positions with (choose champion, td, gettysburg, beemo, ...)")
    return either_way_round(evaluator.placement_values)


def _check_placements(placements: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The placements as ``(card, cell)`` ints, checked to be a finished game; else ReviewError."""
    if isinstance(placements, (AbstractSet, Mapping, str)):  # no order of play (or not pairs)
        raise ReviewError(f"a review needs the game's placements in the order played (a list), "
                          f"got a {type(placements).__name__}")
    try:
        pairs = [tuple(p) for p in placements]
    except TypeError:
        raise ReviewError("a review needs the game's placements as (card, cell) pairs") from None
    if len(pairs) != NUM_CELLS:
        raise ReviewError(f"a review needs a finished game of {NUM_CELLS} placements, got {len(pairs)}")
    if any(len(p) != 2 or not is_integer(p[1]) for p in pairs):
        raise ReviewError("a review needs the game's placements as (card, cell) pairs of integers")
    cards = [c for c, _ in pairs]
    cells = [int(c) for _, c in pairs]
    if sorted(set(cells)) != list(range(NUM_CELLS)):
        raise ReviewError("the placements do not fill each of the 25 cells once")
    if not all(is_integer(c) and is_card_id(c) for c in cards) or len(set(map(int, cards))) != NUM_CELLS:
        raise ReviewError("the placements' cards are not 25 different cards (0..51)")
    return [(int(card), cell) for card, cell in zip(cards, cells)]


def _check_exact_cells(exact_cells) -> int:
    if not is_integer(exact_cells) or not 0 <= exact_cells <= MAX_EXACT_CELLS:
        raise ReviewError(f"exact_cells is how many empty cells (0..{MAX_EXACT_CELLS}) are judged exactly, "
                          f"got {exact_cells!r}")
    return int(exact_cells)


def review_game(values: Callable[[np.ndarray, int], np.ndarray], points: Sequence[int],
                placements: Sequence[tuple[int, int]], exact_cells: int = 4, seed: int | None = None) -> GameReview:
    """Judge each of a finished game's ``placements`` ((card, cell), in the order
    played) by ``values`` (:func:`coach_values`), exactly where ``exact_cells`` empty
    cells or fewer are left (at most :data:`MAX_EXACT_CELLS`). ``points`` are the game's
    10 points."""
    if not callable(values):
        raise ReviewError(f"a review's values are a coach's judgement, values(grid, card) (coach_values), "
                          f"got {values!r}")
    placements = _check_placements(placements)
    exact_cells = _check_exact_cells(exact_cells)
    pts = checked_points(points)
    grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
    out = []
    for turn, (card, cell) in enumerate(placements, start=1):
        card, cell = int(card), int(cell)
        empty = np.flatnonzero(grid == EMPTY)
        exact = len(empty) <= exact_cells
        v = exact_values(grid, card, pts) if exact else np.asarray(values(grid.copy(), card), dtype=np.float64)
        if v.shape != (NUM_CELLS,):
            raise ReviewError(f"the coach gave {v.size} values, not one per cell (25), at turn {turn}")
        judged = v[empty]
        if not np.all(np.isfinite(judged)):
            raise ReviewError(f"the coach gave no value to some empty cell at turn {turn}")
        best = int(empty[np.argmax(judged)])
        chosen = float(v[cell])
        # A cell the coach values as high as its best (a tie) is its best.
        if chosen >= float(v[best]) - TIE:
            best = cell
        shown = [float(v[i]) if grid[i] == EMPTY else None for i in range(NUM_CELLS)]
        out.append(MoveReview(turn, card, cell, best, chosen, float(v[best]), max(0.0, float(v[best]) - chosen),
                              exact, shown))
        grid[cell] = card
    return GameReview(int(score_grid(grid, pts)), out, seed)


def record_placements(record: Any) -> list[tuple[int, int]]:
    """A result store's game (``harness.store.GameRecord``: placements ``[card, row, col]``
    in the order played) as the ``(card, cell)`` pairs :func:`review_game` judges, checked
    to be a finished game (ReviewError otherwise): a command checks every game so before
    its coach spends a second learning."""
    stored = getattr(record, "placements", None)
    if stored is None:
        raise ReviewError(f"a review needs a recorded game (a GameRecord with its placements), got {record!r}")
    placements = []
    for p in stored:
        # (card, row, col), row and col 0..4: anything else would be taken for another cell.
        if (not isinstance(p, (list, tuple)) or len(p) != 3 or not all(map(is_integer, p))
                or not (0 <= p[1] < 5 and 0 <= p[2] < 5)):
            raise ReviewError(f"a recorded game's placements are (card, row, col) with row and col 0..4, got {p!r}")
        placements.append((p[0], int(p[1]) * 5 + int(p[2])))
    return _check_placements(placements)


def review_record(values: Callable[[np.ndarray, int], np.ndarray], points: Sequence[int], record: Any,
                  exact_cells: int = 4) -> GameReview:
    """:func:`review_game` of a result store's game (:func:`record_placements`)."""
    return review_game(values, points, record_placements(record), exact_cells, seed=record.seed)


def run_summary(reviews: Sequence[GameReview]) -> dict:
    """Over several games: the mean loss a game ± SE, the share of moves the coach
    agreed with, and the mean loss a game in each stage (:data:`STAGES`)."""
    if not reviews:
        raise ReviewError("no games to summarise")
    losses = [r.loss for r in reviews]
    se = statistics.stdev(losses) / math.sqrt(len(losses)) if len(losses) > 1 else None
    moves = sum(len(r.moves) for r in reviews)
    stages = np.mean([r.stage_loss() for r in reviews], axis=0)
    return {"games": len(reviews), "mean_score": statistics.fmean(r.score for r in reviews),
            "mean_loss": statistics.fmean(losses), "loss_se": se,
            "agreement": sum(r.agreed for r in reviews) / moves,
            "stage_loss": {f"{a}-{b}": float(s) for (a, b), s in zip(STAGES, stages)}}
