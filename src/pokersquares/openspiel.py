"""Parameterized Poker Squares as an OpenSpiel game, ``python_poker_squares``.

Importing this module registers the game with ``pyspiel`` (``pip install
'pokersquares[openspiel]'``)::

    import pyspiel
    import pokersquares.openspiel  # registers python_poker_squares
    game = pyspiel.load_game("python_poker_squares", {"point_system": "british"})

One player; explicit chance nodes deal each card uniformly from the undealt ones
(outcomes are card ids 0..51, ``suit * 13 + rank``); the player's 25 actions are the
cells (``row * 5 + col``), legal where empty. The point system is the game parameter
``point_system``, any spec ``pokersquares system`` accepts (ten integers may be
separated by spaces instead of commas). The return, at the end only,
is the grid's score. The observation tensor is the grid (25 x 52 one-hot), the card to
place (52) and the undealt cards (52).

:func:`play_deal` plays the contest's deal of a seed through the chance nodes, so an
OpenSpiel algorithm plays exactly the games the harness plays.
"""

from __future__ import annotations

import operator
from typing import Callable

import numpy as np
import pyspiel

from .cards import NUM_CARDS, card_name, deal
from .errors import IllegalPlacementError, InvalidCellError, PokerSquaresError
from .game import EMPTY, NUM_CELLS, Grid, cell_of
from .kernels.core import score_grid
from .points import PointSystem, parse_point_system

__all__ = ["GAME_NAME", "PokerSquaresGame", "PokerSquaresState", "load", "play_deal", "grid_of"]

GAME_NAME = "python_poker_squares"
_DEFAULT_PARAMS = {"point_system": "american"}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Parameterized Poker Squares",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=1,
    min_num_players=1,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


class PokerSquaresGame(pyspiel.Game):
    """The game for one point system (parameter ``point_system``)."""

    def __init__(self, params: dict | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        # Ten integers are kept separated by spaces: OpenSpiel's game strings
        # ("python_poker_squares(point_system=...)") split parameters at commas.
        words = str(params["point_system"]).replace(",", " ").split()
        spec = ",".join(words) if len(words) > 1 else str(params["point_system"])
        params["point_system"] = " ".join(words)
        point_system = parse_point_system(spec)
        self._point_system: PointSystem | None = point_system
        # Ten hands, each scoring between the lowest and the highest points: bounds, not
        # always reached. A system of ten equal values has one outcome, but OpenSpiel asks
        # for MinUtility < MaxUtility (its checks, and algorithms that divide by the range).
        low, high = 10 * min(point_system.points), 10 * max(point_system.points)
        high = max(high, low + 1)
        super().__init__(
            _GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=NUM_CELLS,
                max_chance_outcomes=NUM_CARDS,
                num_players=1,
                min_utility=float(low),
                max_utility=float(high),
                max_game_length=NUM_CELLS,
            ),
            params,
        )

    @property
    def point_system(self) -> PointSystem:
        """The game's point system. A copy of the game (``pickle``, ``copy.deepcopy``) is
        made by pyspiel from its parameters without ``__init__``: read from them then."""
        point_system = self.__dict__.get("_point_system")
        if point_system is None:
            words = str(self.get_parameters()["point_system"]).split()
            point_system = parse_point_system(",".join(words) if len(words) > 1 else " ".join(words))
            self._point_system = point_system
        return point_system

    @property
    def points(self) -> np.ndarray:
        points = self.__dict__.get("_points")
        if points is None:
            points = self._points = np.array(self.point_system.points, dtype=np.int64)
        return points

    def new_initial_state(self):
        return PokerSquaresState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return PokerSquaresObserver(params)


class PokerSquaresState(pyspiel.State):
    """A grid being filled: a chance node deals the next card, then the player places it."""

    def __init__(self, game: PokerSquaresGame):
        # The points are read from the game (get_game()), never kept here: a state's
        # attributes are what serialize() pickles and deserialize_state() restores, and a
        # state of another point system's game would be scored by that system.
        super().__init__(game)
        self.grid = [EMPTY] * NUM_CELLS
        self.undealt = [True] * NUM_CARDS
        self.card: int | None = None  # in hand: the player's turn
        self.placed = 0

    def current_player(self):
        if self.placed == NUM_CELLS:
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if self.card is None else 0

    def _legal_actions(self, player):
        return [cell for cell in range(NUM_CELLS) if self.grid[cell] == EMPTY]

    def chance_outcomes(self):
        if self.card is not None or self.placed == NUM_CELLS:  # not cards to sample as cells
            raise PokerSquaresError("chance_outcomes() is for chance nodes; this state is "
                                    + ("terminal" if self.placed == NUM_CELLS else "the player's turn"))
        cards = [c for c in range(NUM_CARDS) if self.undealt[c]]
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action):
        # OpenSpiel applies what it is given: an illegal action is refused here, before
        # anything changes, never a card dealt twice, a filled cell overwritten or an
        # action applied past the end.
        if self.placed == NUM_CELLS:
            raise IllegalPlacementError(f"the game is over: all 25 cells are filled (action {action})")
        if self.card is None:  # a chance node deals ``action``
            if not 0 <= action < NUM_CARDS or not self.undealt[action]:
                raise IllegalPlacementError(f"cannot deal {action}: not an undealt card id 0..51")
            self.undealt[action] = False
            self.card = int(action)
        else:
            if not 0 <= action < NUM_CELLS or self.grid[action] != EMPTY:
                raise IllegalPlacementError(f"cannot place {card_name(self.card)} in cell {action}: "
                                            f"not an empty cell 0..24")
            self.grid[action] = self.card
            self.card = None
            self.placed += 1

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        if not 0 <= action < NUM_CELLS:  # never "row 19 col 4" for 99
            raise InvalidCellError(f"no cell {action}: a player's action is a cell 0..24")
        row, col = cell_of(action)
        return f"row {row} col {col}"

    def is_terminal(self):
        return self.placed == NUM_CELLS

    def returns(self):
        if self.placed < NUM_CELLS:
            return [0.0]
        return [float(score_grid(np.array(self.grid, dtype=np.int8), self.get_game().points))]

    def __str__(self):
        rows = [" ".join(card_name(c) if c != EMPTY else ".." for c in self.grid[r * 5:r * 5 + 5]) for r in range(5)]
        return "\n".join(rows) + ("" if self.card is None else f"\nto place: {card_name(self.card)}")


class PokerSquaresObserver:
    """The observation (conforming to OpenSpiel's PyObserver interface): the grid as 25
    one-hot cards, the card to place, and the undealt cards."""

    def __init__(self, params):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.tensor = np.zeros(NUM_CELLS * NUM_CARDS + 2 * NUM_CARDS, np.float32)
        self.dict = {
            "grid": self.tensor[:NUM_CELLS * NUM_CARDS].reshape(NUM_CELLS, NUM_CARDS),
            "card": self.tensor[NUM_CELLS * NUM_CARDS:NUM_CELLS * NUM_CARDS + NUM_CARDS],
            "undealt": self.tensor[NUM_CELLS * NUM_CARDS + NUM_CARDS:],
        }

    def set_from(self, state: PokerSquaresState, player):
        self.tensor.fill(0)
        for cell, c in enumerate(state.grid):
            if c != EMPTY:
                self.dict["grid"][cell, c] = 1
        if state.card is not None:
            self.dict["card"][state.card] = 1
        self.dict["undealt"][:] = state.undealt

    def string_from(self, state: PokerSquaresState, player):
        return str(state)


pyspiel.register_game(_GAME_TYPE, PokerSquaresGame)


def load(point_system: PointSystem | str = "american") -> PokerSquaresGame:
    """The game for a point system (a PointSystem, a spec such as ``"british"`` or ten
    integers, as the environment takes; anything else is one InvalidPointSystemError)."""
    if not isinstance(point_system, (str, PointSystem)):
        point_system = PointSystem(point_system)  # checks: ten integers, else InvalidPointSystemError
    spec = point_system if isinstance(point_system, str) else _spec_of(point_system)
    return pyspiel.load_game(GAME_NAME, {"point_system": spec})


def _spec_of(point_system: PointSystem) -> str:
    """The game's parameter for ``point_system``: its name where the name says these very
    points (``AMERICAN`` is "American", not "custom"), else its ten integers."""
    try:
        name = point_system.name
        if name.split() == [name] and "," not in name and parse_point_system(name).points == point_system.points:
            return name
    except PokerSquaresError:
        pass
    return " ".join(map(str, point_system.points))


def grid_of(state: PokerSquaresState) -> np.ndarray:
    """The state's grid as this toolkit's ``int8[25]`` (``-1`` empty)."""
    return np.array(state.grid, dtype=np.int8)


def play_deal(game, seed: int, choose: Callable[[PokerSquaresState], int]) -> tuple[PokerSquaresState, int]:
    """Play the contest's deal of ``seed`` (``pokersquares deal --seed``): each chance node
    deals the next card of that deal, ``choose(state)`` picks each cell. Returns the
    final state and its score, checked against this toolkit's scoring."""
    state = game.new_initial_state()
    for card in deal(seed)[:NUM_CELLS]:
        state.apply_action(card)
        answer = choose(state)
        # A cell index (numpy's too); never int() of 3.5, "3" or True, another cell.
        try:
            if isinstance(answer, (bool, np.bool_)):
                raise TypeError
            cell = operator.index(answer)
            if not 0 <= cell < NUM_CELLS:  # -1 is OpenSpiel's kInvalidAction, 2**70 no action at all
                raise TypeError
        except TypeError:
            raise IllegalPlacementError(f"choose answered {answer!r}, not a cell index 0..24") from None
        state.apply_action(cell)
    score = int(state.returns()[0])
    grid = Grid(state.grid)
    assert score == grid.score(game.point_system), "the OpenSpiel game and the rules disagree"
    return state, score
