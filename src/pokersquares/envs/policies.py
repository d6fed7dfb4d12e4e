"""Players and policies, each usable as the other.

A *policy* is any callable ``policy(obs, info) -> action`` over ``PokerSquares-v0``'s
observations (see :mod:`pokersquares.envs.poker_squares`).

* :class:`PlayerPolicy` wraps a harness player (or a player spec such as ``"tiger"``)
  as a policy: it tells the player the point system when it changes, starts a game
  at each new episode, seeds it as the harness does (a keyed hash of the episode's
  deal seed, never the deal seed itself; ``random`` and ``np.random`` too, a stream of
  the player's own beside the caller's) and turns its ``(row, col)`` into a cell
  index. Called for every step of an episode from its ``reset``, it plays exactly the
  game :func:`~pokersquares.harness.game_play.play_game` plays, and with a run's
  ``secret`` the game of that run.
* :class:`PolicyPlayer` wraps a policy as a harness player, so that ``run``,
  ``tournament`` and ``sweep`` can play it. By module path:
  ``--player pokersquares.envs.policies:PolicyPlayer:policy=mypackage.mymodule:my_policy``
  (a class named there is instantiated with no arguments).
"""

from __future__ import annotations

import contextlib
import importlib
import random
import time
from typing import Any, Callable

import numpy as np

from ..cards import NUM_CARDS
from ..errors import PokerSquaresError
from ..game import EMPTY, NUM_CELLS
from ..harness import seeds
from ..harness.game_play import as_cell, seed_global_randomness
from ..harness.player import BasePlayer
from ..harness.registry import PLAYER_METHODS, make_player
from ..harness.spec import check_seconds
from ..points import PointSystem
from .poker_squares import grid_value

__all__ = ["PlayerPolicy", "PolicyPlayer", "MaskedRandomPolicy", "observation"]

Policy = Callable[[dict, dict], Any]


def observation(grid: np.ndarray, card: int, points) -> tuple[dict, dict]:
    """The environment's observation and info for a player's view of a game."""
    grid = np.asarray(grid, dtype=np.int8).copy()
    undealt = np.ones(NUM_CARDS, dtype=np.int8)
    undealt[grid[grid != EMPTY]] = 0
    undealt[int(card)] = 0
    obs = {"grid": grid, "card": int(card), "points": np.array(tuple(points), dtype=np.int64), "undealt": undealt}
    return obs, {"action_mask": (grid == EMPTY).astype(np.int8), "turn": int((grid != EMPTY).sum()),
                 "score": grid_value(grid, obs["points"])}  # as the environment's info has it


class PlayerPolicy:
    """A harness player as a policy ``(obs, info) -> cell``.

    ``time_per_game`` is the decision time the player is told it has per episode;
    ``prep_time`` the preprocessing budget it gets for each new point system (the
    contest's 30 s and 300 s by default). ``secret`` keys the player's seeds as a run's
    secret does (default: this interpreter's, as for games played outside a run).

    It must see every step of an episode from ``reset``: it keeps the player's own
    grid, and an observation that is not that grid plus one card (an episode joined
    part way, a step skipped) is refused, not played on a stale grid."""

    def __init__(self, player, *, time_per_game: float = 30.0, prep_time: float = 300.0,
                 secret: str | None = None) -> None:
        self.player = make_player(player) if isinstance(player, str) else player
        missing = [m for m in PLAYER_METHODS if not callable(getattr(self.player, m, None))]
        if missing:
            raise PokerSquaresError(f"a PlayerPolicy needs a player (a spec such as 'greedy', or an object with "
                                    f"{', '.join(PLAYER_METHODS)}); {self.player!r} has no {', '.join(missing)}")
        # Checked now, as a run's are: "30" failed only at the first step, -1 and nan
        # gave the player 0 s without a word.
        self.time_per_game = check_seconds(time_per_game, "a PlayerPolicy's time_per_game", zero_ok=False)
        self.prep_time = check_seconds(prep_time, "a PlayerPolicy's prep_time", zero_ok=True)
        self.secret = seeds.PROCESS_SECRET if secret is None else str(secret)
        self._points: tuple[int, ...] | None = None
        self._used = 0.0
        self._grid: np.ndarray | None = None  # the grid after the player's last move
        # The process-wide generators (``random``, ``np.random``) as the player left them:
        # a player drawing from them gets its own stream, seeded as a run's game process
        # seeds them, and the caller's own draws are neither taken nor disturbed.
        self._globals = (random.getstate(), np.random.get_state())
        self._warm = False  # warmed up (its kernels compiled or loaded), before its first preparation

    @contextlib.contextmanager
    def _players_globals(self, seed: int | None = None):
        """The player's own state of the process-wide generators while it runs (seeded
        anew with ``seed`` as the harness seeds a game or a preparation), the caller's
        put back after (a player of one's own drawing from them played other games here
        than in its run)."""
        callers = (random.getstate(), np.random.get_state())
        random.setstate(self._globals[0])
        np.random.set_state(self._globals[1])
        if seed is not None:
            seed_global_randomness(seed)
        try:
            yield
        finally:
            self._globals = (random.getstate(), np.random.get_state())
            random.setstate(callers[0])
            np.random.set_state(callers[1])

    def __call__(self, obs: dict, info: dict | None = None) -> int:
        info = info or {}
        if np.ndim(obs["card"]) != 0 or np.size(obs["grid"]) != NUM_CELLS:
            raise PokerSquaresError("a PlayerPolicy plays one environment's observation (one card, 25 cells), "
                                    "not a vector environment's batch: call it once per environment")
        if int(obs["card"]) >= NUM_CARDS:
            raise PokerSquaresError("the episode is over (the observation holds no card to place); call reset()")
        points = tuple(int(p) for p in obs["points"])
        seed = info.get("seed")
        if points != self._points:
            prep_seed = None if seed is None else seeds.player_seed(self.secret, "prepare", int(seed))
            with self._players_globals(prep_seed):
                # Warmed up untimed, as the harness builds a player (seeded, warmed up, then
                # prepared): left to the first move, loading its kernels took 0.6 to 0.75 s of
                # a 1 s episode (tiger:iterations=300 then left 15 moves to its greedy
                # fallback and scored 89 where its run scored 109).
                if not self._warm and callable(getattr(self.player, "warm_up", None)):
                    self.player.warm_up()
                self._warm = True
                if prep_seed is not None and hasattr(self.player, "set_seed"):
                    self.player.set_seed(prep_seed)
                self.player.set_point_system(PointSystem(points, str(info.get("point_system", "custom"))),
                                             self.prep_time)
            self._points = points
        grid = np.asarray(obs["grid"]).astype(np.int8).reshape(NUM_CELLS)
        if not (grid != EMPTY).any():  # a new episode
            game_seed = None if seed is None else seeds.player_seed(self.secret, "game", int(seed))
            with self._players_globals(game_seed):
                if game_seed is not None and hasattr(self.player, "set_seed"):
                    self.player.set_seed(game_seed)
                self.player.start_game()
            self._used = 0.0
        elif self._grid is None or not np.array_equal(grid, self._grid):
            raise PokerSquaresError("this observation's grid is not the one the player built: a PlayerPolicy "
                                    "must be called for every step of an episode, from reset()")
        t = time.perf_counter()
        with self._players_globals():
            answer = self.player.get_play(int(obs["card"]), max(0.0, self.time_per_game - self._used))
        self._used += time.perf_counter() - t
        # What play_game refuses (a timeout's None, (0, 7), 3.5, text...) is an error here,
        # never another cell: (0, 7) is not cell 7, nor (1, -1) cell 4.
        try:
            row, col = as_cell(answer)
        except ValueError:
            row = col = -1
        if not (0 <= row < 5 and 0 <= col < 5):
            self._grid = None  # the player's grid is no longer the episode's
            raise PokerSquaresError(f"the player answered {answer!r}, not a (row, col) of the grid "
                                    f"(None: no answer in its time)")
        cell = row * 5 + col
        self._grid = grid.copy()
        self._grid[cell] = int(obs["card"])
        return cell


def _resolve(policy: Policy | str) -> Policy:
    if not isinstance(policy, str):
        if not callable(policy):
            raise PokerSquaresError(f"a policy is a callable (obs, info) -> cell or 'module.path:name', got {policy!r}")
        return policy
    module_name, _, attr = policy.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as e:
        raise PokerSquaresError(f"cannot load the policy {policy!r} (module.path:name): {e}") from None
    if isinstance(found, type):
        try:
            found = found()
        except TypeError as e:  # PlayerPolicy, which needs a player: said as such, not as "bad parameters"
            raise PokerSquaresError(f"the policy class {policy!r} cannot be made with no arguments: {e}") from None
    if not callable(found):  # said now, in one line, not as every game's penalty
        raise PokerSquaresError(f"the policy {policy!r} is not a callable (obs, info) -> cell: {found!r}")
    return found


class PolicyPlayer(BasePlayer):
    """A policy ``(obs, info) -> cell`` as a harness player.

    ``info`` holds ``action_mask``, ``turn``, ``score`` and ``point_system`` (as the
    environment's info), ``seed`` (the player's seed for this game, as the harness gives
    it: not the deal's) and ``seconds_left``. A policy with a ``set_seed(seed)`` method is
    reseeded each game, as the harness reseeds players, so that its games are reproducible.
    An answer that ``env.step`` refuses (3.9, "3", True) is a malformed answer here too."""

    name = "policy"

    def __init__(self, policy: Policy | str) -> None:
        super().__init__()
        self.policy = _resolve(policy)

    def set_seed(self, seed: int) -> None:
        super().set_seed(seed)
        if hasattr(self.policy, "set_seed"):
            self.policy.set_seed(seed)

    def choose(self, grid: np.ndarray, card: int, seconds_left: float) -> int:
        # Checked as every player's position is: unprepared, a policy was shown points of
        # all 0 and played on, and a card on the grid or a grid of 24 cells got a cell.
        grid, card = self.checked_position(grid, card)
        obs, info = observation(grid, card, self.points)
        info.update(seed=self.seed, seconds_left=seconds_left,
                    point_system=self.point_system.name if self.point_system else "custom")
        answer = self.policy(obs, info)
        # What env.step takes (a numpy integer, an integer array of one cell) is a cell;
        # anything else (3.9, "3", True, None) goes as given to BasePlayer.get_play, which
        # calls it malformed as the harness does, never int() of it.
        if isinstance(answer, np.ndarray) and answer.size == 1 and np.issubdtype(answer.dtype, np.integer):
            answer = answer.reshape(()).item()
        return answer


class MaskedRandomPolicy:
    """A uniformly random empty cell, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.set_seed(seed)

    def set_seed(self, seed: int | None) -> None:
        """Any Java long (the harness's game seeds), modulo 2**64 to numpy's non-negative
        seeds: one generator per Java long (masking to 63 bits gave -1 and 2**63 - 1 one)."""
        if seed is not None and (isinstance(seed, bool) or not hasattr(seed, "__index__")):
            raise PokerSquaresError(f"a seed is an integer, got {seed!r}")
        self.rng = np.random.default_rng(None if seed is None else int(seed) % 2 ** 64)

    def __call__(self, obs: dict, info: dict) -> int:
        mask = (info or {}).get("action_mask")
        # One flag per cell: a vector environment's (n, 25) batch, flattened, gave 37, no cell.
        if mask is not None and (np.shape(mask) != (NUM_CELLS,) or np.asarray(mask).dtype.kind not in "biuf"):
            raise PokerSquaresError(f"info['action_mask'] must be 25 flags (one per cell), got {type(mask).__name__} "
                                    f"of shape {np.shape(mask)}: call the policy once per environment")
        if mask is None or not np.asarray(mask).any():
            raise PokerSquaresError("no empty cell to choose (info['action_mask'] is missing or all 0)")
        return int(self.rng.choice(np.flatnonzero(mask)))
