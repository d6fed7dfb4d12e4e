"""``PokerSquares-v0``: one game of Parameterized Poker Squares as a Gymnasium environment.

An episode is one contest deal: 25 steps, each placing the card shown in an empty
cell. ``reset(seed=s)`` deals exactly as the contest framework does for seed ``s``
(so episode ``s`` is game ``s`` of the harness); ``reset()`` draws the deal's seed
from the environment's own generator.

Observation (a dict):
  ``grid``     int8[25], the card id in each cell (row * 5 + col), -1 for empty;
  ``card``     the card to place (id 0..51; 52 in the final observation, when none is left);
  ``points``   int64[10], the point system, indexed by hand id;
  ``undealt``  int8[52], 1 for each card neither on the grid nor the one to place
               (the cards that may still come: 25 of the 52 are never dealt).
Action: the cell, 0..24. ``info["action_mask"]`` (int8[25]) marks the empty cells; an
action outside 0..24 or on a filled cell raises ``IllegalPlacementError``: it is an
error, never a silent no-op.

Reward. ``reward="hands"`` (the default): the change in value of the two hands the
card joins (its row and its column), where a hand is worth its points as the contest
framework classifies it so far (pairs, trips, ... before it is complete; straights,
flushes and full houses only when complete) and a hand with no card is worth 0.
The rewards of an episode therefore add up exactly to the final score.
``reward="final"``: 0 until the last step, whose reward is the final score.
``info["score"]`` is always the value of the grid so far by the first rule.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..cards import NUM_CARDS, as_sequence, card_name, deal
from ..errors import IllegalPlacementError, InvalidPointSystemError, PokerSquaresError
from ..game import EMPTY, LINES, NUM_CELLS, Grid
from ..hands import classify
from ..points import AMERICAN, PointSystem, clamped_values, parse_point_system

__all__ = ["PokerSquaresEnv", "NO_CARD", "REWARDS"]

NO_CARD = NUM_CARDS  # the "card" of the final observation
REWARDS = ("hands", "final")
# The two hands through each cell: its row (index r) and its column (index 5 + c).
_CELL_LINES = [(i // 5, 5 + i % 5) for i in range(NUM_CELLS)]


def _point_system(value: PointSystem | str | Any) -> PointSystem:
    """A PointSystem, a spec (``"british"``) or ten integers (numpy's too); anything else
    is one InvalidPointSystemError."""
    if isinstance(value, PointSystem):
        return value
    if isinstance(value, str):
        system = parse_point_system(value)
        clamped = clamped_values(value, system)
    else:
        values = as_sequence(value, "a point system (a PointSystem, a spec such as 'british' or ten integers)",
                             InvalidPointSystemError)  # a set has no hand order, a dict gives its keys
        for p in values:
            if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
                raise InvalidPointSystemError(f"point values must be integers, got {p!r}")
        typed = [int(p) for p in values]
        system = PointSystem(tuple(typed))
        clamped = ", ".join(f"{t} -> {p}" for t, p in zip(typed, system.points) if t != p)
    if clamped:  # as the command line says it: a reward of 1000 never pays 127 unsaid
        warnings.warn(f"point values are clamped to [-128, 127] as the contest's are: {clamped}", stacklevel=3)
    return system


def line_value(grid, line: int, points) -> int:
    """Line ``line``'s worth in ``grid`` so far: its hand's points as the contest framework
    classifies the cards it holds, 0 for a line with no card."""
    cards = [int(grid[j]) for j in LINES[line] if grid[j] != EMPTY]
    return int(points[classify(cards)]) if cards else 0


def grid_value(grid, points) -> int:
    """``info["score"]``: the value of a (possibly partial) grid, the sum of its lines'."""
    return sum(line_value(grid, line, points) for line in range(len(LINES)))


class PokerSquaresEnv(gym.Env):
    """One contest game per episode; see the module docstring for spaces and rewards."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, point_system: PointSystem | str = AMERICAN, reward: str = "hands",
                 render_mode: str | None = None) -> None:
        # Text first: ``in`` would compare an array elementwise (and fail as ambiguous).
        if not isinstance(reward, str) or reward not in REWARDS:
            raise PokerSquaresError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and (not isinstance(render_mode, str)
                                        or render_mode not in self.metadata["render_modes"]):
            raise PokerSquaresError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.default_point_system = _point_system(point_system)
        self.point_system = self.default_point_system
        self.reward_kind = reward
        self.render_mode = render_mode
        self.observation_space = spaces.Dict({
            "grid": spaces.Box(-1, NUM_CARDS - 1, shape=(NUM_CELLS,), dtype=np.int8),
            "card": spaces.Discrete(NUM_CARDS + 1),
            "points": spaces.Box(-128, 127, shape=(10,), dtype=np.int64),
            "undealt": spaces.MultiBinary(NUM_CARDS),
        })
        self.action_space = spaces.Discrete(NUM_CELLS)
        self.deck: list[int] | None = None
        self.grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
        self.turn = 0
        self.deal_seed: int | None = None
        self._line_values = np.zeros(10, dtype=np.int64)

    # -- the rules, in the game's words ---------------------------------------------------------
    def _line_value(self, line: int) -> int:
        return line_value(self.grid, line, self.point_system)

    def _obs(self) -> dict:
        assert self.deck is not None  # reset dealt it
        card = self.deck[self.turn] if self.turn < NUM_CELLS else NO_CARD
        undealt = np.ones(NUM_CARDS, dtype=np.int8)
        undealt[self.grid[self.grid != EMPTY]] = 0
        if card != NO_CARD:
            undealt[card] = 0
        return {"grid": self.grid.copy(), "card": int(card),
                "points": np.array(self.point_system.points, dtype=np.int64), "undealt": undealt}

    def _info(self) -> dict:
        return {"action_mask": (self.grid == EMPTY).astype(np.int8), "seed": self.deal_seed, "turn": self.turn,
                "score": int(self._line_values.sum()), "point_system": self.point_system.name}

    # -- the Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal game ``seed`` (the contest's deal); ``options={"point_system": spec}``
        plays this episode under another point system."""
        # Everything is checked before anything changes: a reset that fails leaves the
        # episode as it was.
        if options is not None and not isinstance(options, dict):
            raise PokerSquaresError(f"options must be a dict such as {{'point_system': 'british'}}, got {options!r}")
        options = options or {}
        unknown = set(options) - {"point_system"}
        if unknown:
            raise PokerSquaresError(f"unknown reset options {sorted(unknown)}; the one option is point_system")
        point_system = _point_system(options.get("point_system", self.default_point_system))
        deck = None if seed is None else deal(seed)[:NUM_CELLS]  # any Java long; a bad seed fails here
        # Gymnasium seeds its generator with non-negative seeds only; the deal is the contest's either way.
        # Modulo 2**64, one generator seed per Java long (masking to 63 bits gave -1 and 2**63 - 1 one).
        super().reset(seed=None if seed is None else int(seed) % 2 ** 64)
        self.point_system = point_system
        self.deal_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2 ** 31 - 1))
        self.deck = deck if deck is not None else deal(self.deal_seed)[:NUM_CELLS]
        self.grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
        self.turn = 0
        self._line_values = np.zeros(10, dtype=np.int64)
        return self._obs(), self._info()

    def step(self, action):
        if self.deck is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.turn >= NUM_CELLS:
            raise IllegalPlacementError("the game is over: all 25 cells are filled; call reset()")
        if isinstance(action, np.ndarray) and action.size == 1:  # a batch of one, as some agents hand it
            action = action.reshape(()).item() if np.issubdtype(action.dtype, np.integer) else action
        if isinstance(action, (bool, np.bool_)) or isinstance(action, np.ndarray) or not hasattr(action, "__index__"):
            raise IllegalPlacementError(f"an action is a cell index 0..24, got {action!r}")
        try:
            cell = operator.index(action)  # another library's float or many-cell tensor refuses here
        except TypeError:
            raise IllegalPlacementError(f"an action is a cell index 0..24, got {action!r}") from None
        if not 0 <= cell < NUM_CELLS:
            raise IllegalPlacementError(f"an action is a cell index 0..24, got {cell}")
        if self.grid[cell] != EMPTY:
            # No percent sign on the raising line: AsyncVectorEnv formats the worker's traceback
            # with %, and "cell % 5" there turned this error into "TypeError: not enough arguments
            # for format string".
            row, col = divmod(cell, 5)
            raise IllegalPlacementError(f"cell {cell} (row {row}, col {col}) already holds "
                                        f"{card_name(int(self.grid[cell]))}")
        self.grid[cell] = self.deck[self.turn]
        self.turn += 1
        before = sum(int(self._line_values[line]) for line in _CELL_LINES[cell])
        for line in _CELL_LINES[cell]:
            self._line_values[line] = self._line_value(line)
        change = sum(int(self._line_values[line]) for line in _CELL_LINES[cell]) - before
        terminated = self.turn == NUM_CELLS
        if self.reward_kind == "hands":
            reward = float(change)
        else:
            reward = float(self._line_values.sum()) if terminated else 0.0
        return self._obs(), reward, terminated, False, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        # The lines' values as info["score"] counts them (a line with no card is worth 0):
        # Grid.render scores an empty line as a high card, a mid-game "Total: -25" beside
        # info["score"] -19 under a system whose high card is -3.
        values = [int(v) for v in self._line_values]
        rows = Grid([int(c) for c in self.grid]).render().split("\n")
        text = "\n".join([*(f"{row} {values[r]:4d}" for r, row in enumerate(rows)),
                          " ".join(f"{v:2d}" if -10 < v < 100 else f"{v:d}" for v in values[5:]),
                          f"Total: {sum(values)}"])
        if self.deck is not None and self.turn < NUM_CELLS:
            text += f"\nto place: {card_name(self.deck[self.turn])}"
        return text
