"""Contest Java players as web agents (``pokersquares serve --java-player CLASS``).

A contest player answers one thing: where the next card of *its own* game goes
(``getPlay``), on its game's clock. So in the web app it plays whole games: Watch
(a new deal, move by move) and Replay (a finished deal, at once). It cannot advise
on a position it did not reach itself, so it is not offered for hints, and a page
that asks anyway is told so in one line.
"""

from __future__ import annotations

import functools
import time
from collections import deque
from typing import Sequence

import numpy as np

from ..cards import Card
from ..game import EMPTY, NUM_CELLS, SIZE
from ..players.java import java_player_class
from .agents import AGENT_NAME_MAX, AgentError, AgentSpec, AgentTimeoutError
from .sessions import GameConflictError

# Games a player left unfinished to start another, remembered to say so (grids of 25 bytes).
_INTERRUPTED = 64

__all__ = ["WholeGamePlayer", "java_agents", "java_agent_name"]


class WholeGamePlayer:
    """A Java player behind the web agent's interface: ``choose`` plays the next move of
    the game it started on an empty grid, on a clock of ``game_s`` seconds for the
    whole game, and refuses any other position."""

    advises = False

    def __init__(self, player, game_s: float) -> None:
        self.player = player
        self.name = player.name
        self.cores = getattr(player, "cores", 1)
        self.game_s = float(game_s)
        self._grid: np.ndarray | None = None
        self._left = 0.0
        self._interrupted: deque[bytes] = deque(maxlen=_INTERRUPTED)

    def warm_up(self) -> None:
        self.player.warm_up()

    def set_seed(self, seed: int) -> None:
        self.player.set_seed(seed)

    def set_point_system(self, point_system, budget_s: float) -> None:
        self.player.set_point_system(point_system, budget_s)

    def start_game(self) -> None:
        if self._grid is not None and (self._grid == EMPTY).any() and (self._grid != EMPTY).any():
            self._interrupted.append(self._grid.tobytes())  # another watch, or a replay, takes the player
        self.player.start_game()
        self._grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
        self._left = self.game_s

    def get_play(self, card: Card, seconds_left: float) -> tuple[int, int]:
        """The contest protocol, with the player's answer checked: anything but an empty
        cell of its game is one line of error."""
        answer = self.player.get_play(int(card), seconds_left)
        if answer is None:
            raise AgentTimeoutError(f"{self.name} did not answer within its game's clock")
        if not (isinstance(answer, (tuple, list)) and len(answer) == 2
                and all(isinstance(v, (int, np.integer)) for v in answer)):
            raise AgentError(f"{self.name} answered {answer!r}, not a row and a column")
        row, col = int(answer[0]), int(answer[1])
        cell = row * SIZE + col
        if not (0 <= row < SIZE and 0 <= col < SIZE) or (self._grid is not None and self._grid[cell] != EMPTY):
            raise AgentError(f"{self.name} made an illegal play: ({row}, {col})")
        if self._grid is not None:
            self._grid[cell] = card
        return row, col

    def choose(self, grid: np.ndarray, card: Card, seconds: float) -> int:
        grid = np.asarray(grid, dtype=np.int8)
        if (grid == EMPTY).all():
            self.start_game()
        elif self._grid is None or not np.array_equal(grid, self._grid):
            if grid.tobytes() in self._interrupted:
                raise GameConflictError(
                    f"{self.name} has started another game since (watched in another tab, or a replay): a contest "
                    "Java player plays one game at a time, so it cannot go on with this one; watch it on a new deal")
            raise AgentError(f"{self.name} is a contest Java player: it plays only whole games of its own "
                             "from the first card (Watch a new deal, or Replay), not a position")
        start = time.monotonic()
        row, col = self.get_play(int(card), self._left)
        self._left -= time.monotonic() - start
        if self._left < 0:
            raise AgentTimeoutError(f"{self.name} ran out of its {self.game_s:g} s for the game")
        return row * SIZE + col


def java_agent_name(class_name: str) -> str:
    """The web's name for ``java:CLASS``: ``java-`` and the class's simple name (a nested
    class's ``Outer$Inner`` as ``Outer.Inner``), as long as the API takes."""
    return f"java-{class_name.rsplit('.', 1)[-1].replace('$', '.')}"[:AGENT_NAME_MAX]


def java_agents(class_names: Sequence[str], game_s: float) -> dict[str, AgentSpec]:
    """Web agents for the contest Java players ``class_names`` on the classpath already
    set (``players.java.set_classpath``); each is checked now (java runs, the class is a
    PokerSquaresPlayer), so a bad one fails in one line before the server starts."""
    agents: dict[str, AgentSpec] = {}
    for class_name in class_names:
        factory = java_player_class(class_name)
        name = java_agent_name(class_name)
        if name in agents:
            raise AgentError(f"two Java players would both be called {name!r} in the web app")
        agents[name] = AgentSpec(functools.partial(lambda f: WholeGamePlayer(f(), game_s), factory),
                                 f"contest Java player {class_name} (plays whole games: Watch and Replay)",
                                 advises=False)
    return agents
