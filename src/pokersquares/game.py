"""The game state: a 5x5 grid of cards, placing cards, hands, score and text form.

A cell is addressed by ``(row, col)`` with 0..4 each, or by its index
``row * 5 + col``. Lines (the 10 scored hands) are rows 0..4, then columns 0..4.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from .cards import NUM_CARDS, Card, as_sequence, card_name, check_seed, deal, is_card_id, is_integer
from .errors import IllegalPlacementError, InvalidCardError, InvalidCellError, InvalidPointSystemError
from .hands import NUM_HANDS, HandId, hand_id
from .points import PointSystem

__all__ = ["SIZE", "NUM_CELLS", "EMPTY", "LINES", "Grid", "Game", "cell_index", "cell_of"]

SIZE = 5
NUM_CELLS = 25
EMPTY = -1
# LINES[i] lists the cell indices of hand i: rows 0..4, then columns 0..4.
LINES: tuple[tuple[int, ...], ...] = tuple(
    [tuple(r * SIZE + c for c in range(SIZE)) for r in range(SIZE)]
    + [tuple(r * SIZE + c for r in range(SIZE)) for c in range(SIZE)]
)


def cell_index(row: int, col: int) -> int:
    return row * SIZE + col


def cell_of(index: int) -> tuple[int, int]:
    return divmod(index, SIZE)


class Grid:
    """A 5x5 grid; ``cells[i]`` is a card id or ``EMPTY``."""

    __slots__ = ("cells",)

    def __init__(self, cells: Sequence[int] | None = None) -> None:
        if cells is None:
            self.cells = [EMPTY] * NUM_CELLS
        else:
            if isinstance(cells, np.ndarray) and cells.shape == (SIZE, SIZE):
                cells = cells.ravel()
            cells = as_sequence(cells, "a grid's cells", IllegalPlacementError)
            if any(isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)) for c in cells):
                raise IllegalPlacementError("a grid holds card ids 0..51 or -1 for empty, as integers")
            cells = [int(c) for c in cells]
            if len(cells) != NUM_CELLS:
                raise IllegalPlacementError(f"a grid has 25 cells, got {len(cells)}")
            placed = [c for c in cells if c != EMPTY]
            if any(not 0 <= c < NUM_CARDS for c in placed) or len(set(placed)) != len(placed):
                raise IllegalPlacementError("a grid holds distinct card ids 0..51 or -1 for empty")
            self.cells = cells

    # -- placing -------------------------------------------------------------
    def check_placement(self, card: Card, row: int, col: int) -> None:
        """Raise ``IllegalPlacementError`` unless ``card`` may go at ``(row, col)``."""
        for v, what in ((row, "row"), (col, "column")):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise IllegalPlacementError(f"{what} must be an integer 0..4, got {v!r}")
            if not 0 <= v < SIZE:
                raise IllegalPlacementError(f"{what} must be 0..4, got {v}")
        if not is_card_id(card):
            raise IllegalPlacementError(f"card id must be an integer 0..51, got {card!r}")
        at = self.cells[cell_index(row, col)]
        if at != EMPTY:
            raise IllegalPlacementError(f"cell ({row}, {col}) already holds {card_name(at)}")
        if card in self.cells:
            raise IllegalPlacementError(f"{card_name(card)} is already on the grid")

    def place(self, card: Card, row: int, col: int) -> None:
        """Put ``card`` at ``(row, col)``; an illegal placement raises and changes nothing."""
        self.check_placement(card, row, col)
        self.cells[cell_index(row, col)] = int(card)

    # -- queries -------------------------------------------------------------
    def __getitem__(self, rc: tuple[int, int]) -> int:
        if type(rc) is tuple and len(rc) == 2:
            row, col = rc
            if type(row) is int and type(col) is int and 0 <= row < SIZE and 0 <= col < SIZE:
                return self.cells[row * SIZE + col]
        return self.cells[_checked_cell(rc)]

    def copy(self) -> "Grid":
        g = Grid.__new__(Grid)
        g.cells = list(self.cells)
        return g

    @property
    def is_full(self) -> bool:
        return EMPTY not in self.cells

    def empty_cells(self) -> list[tuple[int, int]]:
        return [cell_of(i) for i, c in enumerate(self.cells) if c == EMPTY]

    def line(self, i: int) -> list[Card]:
        """The cards of hand ``i`` (rows 0..4, then columns 0..4)."""
        if not (is_integer(i) and 0 <= i < 2 * SIZE):
            raise InvalidCellError(f"a hand is 0..9 (rows 0..4, then columns 0..4), got {i!r}")
        return [self.cells[j] for j in LINES[i] if self.cells[j] != EMPTY]

    def hands(self) -> list[list[Card]]:
        return [self.line(i) for i in range(2 * SIZE)]

    def hand_ids(self) -> list[HandId]:
        return [hand_id(h) for h in self.hands()]

    def hand_scores(self, point_system: PointSystem) -> list[int]:
        point_system = _point_system(point_system)
        return [point_system[h] for h in self.hand_ids()]

    def score(self, point_system: PointSystem) -> int:
        return sum(self.hand_scores(point_system))

    def hand_counts(self) -> list[int]:
        """How many of the 10 hands are of each hand id."""
        counts = [0] * NUM_HANDS
        for h in self.hand_ids():
            counts[h] += 1
        return counts

    def to_array(self) -> np.ndarray:
        return np.array(self.cells, dtype=np.int8)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and self.cells == other.cells

    def __repr__(self) -> str:
        return f"Grid({self.cells!r})"

    def render(self, point_system: PointSystem | None = None) -> str:
        """The grid as text, like the Java framework prints it: row scores at the right,
        column scores below, and the total."""
        lines = []
        scores = self.hand_scores(point_system) if point_system is not None else None
        for r in range(SIZE):
            row = " ".join(card_name(c) if c != EMPTY else "--" for c in self.cells[r * SIZE:(r + 1) * SIZE])
            lines.append(row + (f" {scores[r]:4d}" if scores else ""))
        if scores:
            lines.append(" ".join(f"{s:2d}" if -10 < s < 100 else f"{s:d}" for s in scores[SIZE:]))
            lines.append(f"Total: {sum(scores)}")
        return "\n".join(lines)

    __str__ = render


def _checked_cell(rc) -> int:
    """The index of cell ``rc``, ``(row, col)`` as two integers 0..4, else InvalidCellError:
    (0, 7) is no cell (not (1, 2)), and a set {1, 2} has no row first."""
    pair = isinstance(rc, (tuple, list)) or isinstance(rc, np.ndarray) and rc.ndim == 1
    if not pair or len(rc) != 2 or not all(is_integer(v) and 0 <= v < SIZE for v in rc):
        raise InvalidCellError(f"a cell is (row, col) with each an integer 0..4, got {rc!r}")
    return cell_index(int(rc[0]), int(rc[1]))


def _point_system(point_system) -> PointSystem:
    """What a grid is scored with: a PointSystem, or its ten integer points (clamped as a
    PointSystem clamps them); else InvalidPointSystemError."""
    if isinstance(point_system, PointSystem):
        return point_system
    if isinstance(point_system, str):
        raise InvalidPointSystemError(f"a grid is scored with a PointSystem, not text: {point_system!r} "
                                      f"(parse_point_system reads text)")
    return PointSystem(point_system)


@dataclass
class Game:
    """One game: a deal, a point system and the grid being filled.

    ``Game.from_seed(seed, ps)`` deals exactly as the contest framework does.
    """

    point_system: PointSystem
    deck: list[Card]
    grid: Grid = field(default_factory=Grid)
    seed: int | None = None
    placements: list[tuple[Card, int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.point_system, PointSystem):
            raise InvalidPointSystemError(f"a game's point system is a PointSystem (parse_point_system('american')), "
                                          f"got {self.point_system!r}")
        deck = as_sequence(self.deck, "a game's deck", InvalidCardError, "parse_cards reads card names")
        if len(deck) < NUM_CELLS or not all(map(is_card_id, deck)) or len(set(map(int, deck))) != len(deck):
            raise InvalidCardError(f"a game's deck holds at least 25 distinct card ids 0..51, got {deck!r}")
        # The checked copy, as plain ints: an iterator is read once, and a list the
        # caller changes afterwards must not change the game.
        self.deck = [int(c) for c in deck]
        if not isinstance(self.grid, Grid):
            raise IllegalPlacementError(f"a game's grid is a Grid (Grid() or Grid(cells)), got {self.grid!r}")
        self._check_placements()
        if self.seed is not None:
            self.seed = check_seed(self.seed, "a game's seed")

    def _check_placements(self) -> None:
        """A grid given with the game holds the deck's first cards where ``placements``
        put them, and nothing else: a grid of one card and no placements filled up after
        24 plays, and the game, counting plays, was never over (the next play was refused
        as an occupied cell)."""
        try:
            placed = [(int(card), int(row), int(col)) for card, row, col in self.placements]
            sound = (sum(c != EMPTY for c in self.grid.cells) == len(placed) <= NUM_CELLS
                     and all(card == self.deck[k] and 0 <= row < SIZE and 0 <= col < SIZE
                             and self.grid.cells[cell_index(row, col)] == card
                             for k, (card, row, col) in enumerate(placed)))
        except (TypeError, ValueError):
            sound = False
        if not sound:
            held = sum(c != EMPTY for c in self.grid.cells)
            raise IllegalPlacementError(f"a game's grid holds the deck's first cards where its placements put them: "
                                        f"got a grid of {held} cards and {self.placements!r:.80} (give both, or neither)")
        self.placements = placed

    @classmethod
    def from_seed(cls, seed: int, point_system: PointSystem) -> "Game":
        return cls(point_system, deal(seed), seed=seed)

    @property
    def turn(self) -> int:
        return len(self.placements)

    @property
    def done(self) -> bool:
        return self.turn >= NUM_CELLS

    @property
    def next_card(self) -> Card | None:
        return None if self.done else self.deck[self.turn]

    def play(self, row: int, col: int) -> None:
        if self.done:
            raise IllegalPlacementError("the game is over: all 25 cells are filled")
        c = self.deck[self.turn]
        self.grid.place(c, row, col)
        # As plain ints: numpy's row and column (a notebook's argmax) made placements
        # that json.dumps refused.
        self.placements.append((c, int(row), int(col)))

    def score(self) -> int:
        return self.grid.score(self.point_system)

    def __iter__(self) -> Iterator[Card]:
        while not self.done:
            yield self.next_card  # type: ignore[misc]
