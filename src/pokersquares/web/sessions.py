"""The games the web app holds: one per random id, in memory, the least recently used
dropped first, and their JSON views.

A game is fully determined by its point system spec, its deal seed and the cells it
was played into, so the page keeps those too and can rebuild a game the server has
forgotten (``GameStore.create(..., moves=...)``).
"""

from __future__ import annotations

import secrets
import threading
import time
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..cards import card_name
from ..errors import IllegalPlacementError, InvalidPointSystemError, PokerSquaresError
from ..game import EMPTY, NUM_CELLS, SIZE, Game, Grid, cell_of
from ..hands import HAND_NAMES, NUM_HANDS
from ..points import PointSystem, integer_or_none, parse_point_system

__all__ = [
    "GameNotFoundError", "GameConflictError", "PointsOutOfRangeError", "WebGame", "GameStore", "parse_system",
    "SEED_MIN", "SEED_MAX", "random_seed", "point_system_view", "grid_view", "game_view", "person_name", "NAME_MAX", "HUMAN",
]

POINTS_MIN, POINTS_MAX = -128, 127  # a contest point value is a Java byte

# A deal seed is a Java long, as in the contest framework.
SEED_MIN = -(2 ** 63)
SEED_MAX = 2 ** 63 - 1


class GameNotFoundError(PokerSquaresError):
    """A game id the server does not hold (never made, or dropped as least recently used)."""


class GameConflictError(PokerSquaresError):
    """A request about a turn other than the game's current one (a stale tab or a double click)."""


class PointsOutOfRangeError(InvalidPointSystemError):
    """A custom point value outside the contest's byte range (the library would clamp it)."""


def parse_system(spec: str) -> PointSystem:
    """``parse_point_system``, refusing custom values that it would clamp to [-128, 127]:
    a player who typed 200 for a royal flush should not silently get 127."""
    if "," in spec:
        for hand, text in zip(HAND_NAMES, spec.split(",")):
            value = integer_or_none(text)
            if value is None:
                break  # parse_point_system says what is wrong
            if not POINTS_MIN <= value <= POINTS_MAX:
                raise PointsOutOfRangeError(
                    f"{hand}: {value} is outside {POINTS_MIN}..{POINTS_MAX}, the range of contest points")
    return parse_point_system(spec)


def random_seed() -> int:
    # Small enough to read and type back in, to replay the deal.
    return secrets.randbelow(1_000_000_000)


NAME_MAX = 40  # characters of a person's name


HUMAN = "human"  # the player name of games people play in the browser, and the name of those without one


def person_name(name: str | None) -> str | None:
    """A person's name as recorded with their games: in Unicode's composed form (NFC), its
    runs of spaces made one and those around it dropped, printable (emoji joined by a
    zero-width joiner too), 1 to :data:`NAME_MAX` characters; None (or only spaces) for
    no name."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise PokerSquaresError(f"a name is text, got {name!r:.40}")
    # One form of each accented letter (an "é" typed as "e" and a combining accent is the
    # same name), then runs of spaces made one.
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if not name:
        return None
    if name == HUMAN:  # read back as no name at all (listed with the nameless, shown as plain "human")
        raise PokerSquaresError(f"the name {HUMAN!r} is how games played without a name are recorded; "
                                "type another name, or none")
    if len(name) > NAME_MAX:
        raise PokerSquaresError(f"a name has at most {NAME_MAX} characters, got {len(name)}; shorten it")
    hidden = next((c for i, c in enumerate(name) if not c.isprintable() and not _joins_emoji(name, i)), None)
    if hidden is not None:
        raise PokerSquaresError(f"a name cannot hold the invisible character U+{ord(hidden):04X}; "
                                "retype it without that character")
    return name


_EMOJI_JOINER = "\u200d"  # joins emoji into one (a woman and a laptop: a woman technologist)


def _joins_emoji(name: str, i: int) -> bool:
    """Whether ``name[i]`` is a zero-width joiner between two symbols (an emoji sequence,
    printable as one), not a hidden mark beside a letter."""
    symbol = ("So", "Sk", "Mn")  # emoji, their modifiers, variation selectors
    return (name[i] == _EMOJI_JOINER and 0 < i < len(name) - 1
            and unicodedata.category(name[i - 1]) in symbol and unicodedata.category(name[i + 1]) == "So")


@dataclass
class WebGame:
    id: str
    spec: str
    game: Game
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # When it was dealt, on the monotonic clock: a person's game is timed by it (the wall
    # clock may be set back while they play, by hand or by NTP).
    dealt: float = field(default_factory=time.monotonic)
    agent_played: bool = False  # an agent placed a card of it (watching, not a person's game)
    recorded: bool = False
    # The person's name, recorded with the finished game (a class's students told apart).
    name: str | None = None

    def finished_by_person(self) -> bool:
        """True once, when a game a person played is over: the moment to record it."""
        with self.lock:
            if self.game.done and not self.agent_played and not self.recorded:
                self.recorded = True
                return True
            return False

    def seconds_played(self) -> float:
        """Seconds since the deal (the person's time for the game, which they spent as
        they liked: nothing limits it)."""
        return max(0.0, time.monotonic() - self.dealt)

    @property
    def point_system(self) -> PointSystem:
        return self.game.point_system

    @property
    def moves(self) -> list[int]:
        return [r * SIZE + c for _, r, c in self.game.placements]

    def place(self, cell: int, turn: int | None = None, by_agent: bool = False) -> None:
        """Place the current card at ``cell``; ``turn``, when given, must be the current turn."""
        with self.lock:
            if turn is not None and turn != self.game.turn:
                raise GameConflictError(
                    f"this request is about turn {turn}, but the game is at turn {self.game.turn} "
                    "(played from another tab?); reload to see the game")
            if self.game.done:
                raise GameConflictError("the game is over: all 25 cells are filled")
            self.game.play(*cell_of(cell))
            # Only a card the agent did place makes the game its (a move refused
            # because the person played first leaves the game theirs).
            self.agent_played = self.agent_played or by_agent

    def snapshot(self) -> tuple[np.ndarray, int | None, int]:
        """The grid as ``int8[25]``, the card to place and the turn, read together."""
        with self.lock:
            return self.game.grid.to_array(), self.game.next_card, self.game.turn


class GameStore:
    """Games by id, at most ``max_games`` of them; thread-safe."""

    def __init__(self, max_games: int = 1000) -> None:
        if max_games < 1:
            raise ValueError("max_games must be at least 1")
        self.max_games = max_games
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def create(self, spec: str, seed: int | None = None, moves: Sequence[int] = (),
               agent_played: bool = False, name: str | None = None) -> WebGame:
        """A new game of the point system ``spec`` dealt from ``seed`` (random when None),
        with ``moves`` (cells, in order) already played; ``agent_played``: an agent placed
        some of them (a watched game the page rebuilds after a restart), so the game is
        never recorded as a person's; ``name``: the person's, recorded with the game."""
        name = person_name(name)
        point_system = parse_system(spec)
        if seed is None:
            seed = random_seed()
        if not SEED_MIN <= seed <= SEED_MAX:
            raise PokerSquaresError(f"a deal seed is a 64-bit integer, got {seed}")
        game = WebGame(secrets.token_urlsafe(16), spec.strip(), Game.from_seed(seed, point_system))
        if len(moves) > NUM_CELLS:
            raise IllegalPlacementError(f"a game has 25 moves, got {len(moves)}")
        for cell in moves:
            game.place(cell)
        game.agent_played = bool(agent_played)
        game.name = name
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)
        return game

    def get(self, game_id: str) -> WebGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise GameNotFoundError(
                    "no such game on the server (it may have been dropped after a restart "
                    "or to make room); start a new one")
            self._games.move_to_end(game_id)
            return game


# -- JSON views --------------------------------------------------------------------

def point_system_view(point_system: PointSystem, spec: str | None = None) -> dict:
    return {
        "name": point_system.name,
        "spec": spec,
        "points": list(point_system.points),
        "table": [{"hand": HAND_NAMES[i], "points": p} for i, p in enumerate(point_system.points)],
    }


def grid_view(cells: Sequence[int], point_system: PointSystem) -> dict:
    """A grid's cards, its ten hands with their points, the hand table and the total.

    ``hand_table`` is the score panel of PySol's Poker Square: per hand type, its
    points, how many of the ten lines hold it and what they make together.
    """
    grid = Grid(cells)
    hand_ids = grid.hand_ids()
    # An empty line holds no hand yet: it scores nothing so far (not high card).
    made = [(i, hand) for i, hand in enumerate(hand_ids) if len(grid.line(i))]
    lines = []
    for i, hand in enumerate(hand_ids):
        cards = len(grid.line(i))
        lines.append({
            "kind": "row" if i < SIZE else "col",
            "index": i % SIZE,
            "hand": HAND_NAMES[hand] if cards else None,
            "hand_id": int(hand) if cards else None,
            "points": point_system[hand] if cards else 0,
            "cards": cards,
        })
    counts = [0] * NUM_HANDS
    for _, hand in made:
        counts[hand] += 1
    table = [{"hand": HAND_NAMES[h], "hand_id": h, "points": point_system[h], "count": counts[h],
              "total": counts[h] * point_system[h]} for h in range(NUM_HANDS)]
    return {
        "cells": [None if c == EMPTY else card_name(c) for c in grid.cells],
        "lines": lines,
        "hand_table": table,
        "score": sum(point_system[h] for _, h in made),
    }


def game_view(web_game: WebGame) -> dict:
    with web_game.lock:
        game = web_game.game
        card = game.next_card
        view = grid_view(game.grid.cells, game.point_system)
        view.update({
            "id": web_game.id,
            "system": point_system_view(game.point_system, web_game.spec),
            "seed": game.seed,
            "seed_text": str(game.seed),  # exact in JavaScript too, whatever its size
            "turn": game.turn,
            "done": game.done,
            "card": None if card is None else card_name(card),
            "moves": [r * SIZE + c for _, r, c in game.placements],
            "agent_played": web_game.agent_played,  # for a client that rebuilds the game after a restart
            "last_cell": None if not game.placements else game.placements[-1][1] * SIZE + game.placements[-1][2],
        })
        return view


def replay_views(deck: Sequence[int], moves: Sequence[int], point_system: PointSystem) -> list[dict]:
    """The grid after each of 0..len(moves) placements of ``deck``'s cards into ``moves``."""
    cells = [EMPTY] * NUM_CELLS
    views = [grid_view(cells, point_system) | {"turn": 0, "last_cell": None, "card": None}]
    for turn, cell in enumerate(moves):
        cells[cell] = deck[turn]
        views.append(grid_view(cells, point_system)
                     | {"turn": turn + 1, "last_cell": cell, "card": card_name(deck[turn])})
    return views
