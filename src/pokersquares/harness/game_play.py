"""One contest-exact game of a player, in the calling process.

The rules of a game's time and faults (RULES.md): the player's total decision
time is capped; a timeout, an illegal or malformed play, or an exception scores
``10 * min(points)`` (0 where no hand scores below 0). This module knows nothing of processes; the runner adds the
watchdog that catches players that hang or crash the interpreter.
"""

from __future__ import annotations

import copy
import operator
import random
import time
from typing import Callable

import numpy as np

from ..cards import deal, is_integer
from ..game import Grid
from ..points import PointSystem
from . import seeds
from .player import MalformedAnswerError, OccupiedCellError
from .store import GameRecord

__all__ = ["as_cell", "fault_text", "one_line", "over_limit", "play_game", "prepare_player", "seed_global_randomness"]

# The most characters of a penalty's reason: what a run prints of it, and the store keeps.
MAX_REASON = 300


def prepare_player(player, point_system: PointSystem, prep_time: float) -> float:
    """Tell the player the point system with its preprocessing budget; return seconds used.
    The player is handed a copy: the run's own object scores its games, and a player that
    wrote into what it was handed (``object.__setattr__`` gets past the frozen dataclass)
    scored 1,270 a game where each worker prepared its own copy of it."""
    point_system = copy.copy(point_system)
    t = time.perf_counter()
    player.set_point_system(point_system, prep_time)
    return time.perf_counter() - t


def one_line(text: str) -> str:
    """A penalty's reason as one line of at most ``MAX_REASON`` characters: a player's own
    words (an exception's message holding an array, an answer of 5,000 numbers) were
    printed as they came, over several lines or 29,000 characters."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 3] + "..."


def fault_text(e: BaseException) -> str:
    """``Class: message`` of a player's exception, on one line; an exception whose message
    itself fails (a ``__str__`` that raises) is named by its class, where it took down the
    game's process and the reason said only that the process died."""
    try:
        message = str(e)
    except Exception:
        message = "(its message could not be made)"
    return one_line(f"{type(e).__name__}: {message}" if message else type(e).__name__)


def players_own_exit(e: SystemExit) -> bool:
    """Whether a ``SystemExit`` is the player's own ``sys.exit()`` (its game scores the
    penalty with its words, as any error of the player's; it took the game's process
    down, said as "the player's process died") rather than Ray stopping its worker on
    SIGTERM, which marks the exception it raises and must leave the game."""
    return not hasattr(e, "ray_terminate_msg")


def seed_global_randomness(seed: int) -> None:
    """Seed the process-wide generators a player of one's own may draw from without a
    seed of its own (``random.choice``, ``np.random.rand``) with the harness's seed of
    the game or preparation about to run. A game process calls it, never a caller's
    interpreter: a run of such a player then replays exactly, on any number of workers,
    as README says of every run whose work does not depend on the clock."""
    random.seed(seed)
    np.random.seed(seed & 0xFFFFFFFF)


def as_cell(answer) -> tuple[int, int]:
    """``(row, col)`` as two integers, or ValueError for anything else."""
    if not isinstance(answer, (tuple, list, np.ndarray)):  # not bytes, a string, a dict...
        raise ValueError(f"expected (row, col), got {answer!r}")
    try:
        row, col = answer
    except (TypeError, ValueError):
        raise ValueError(f"expected (row, col), got {answer!r}") from None
    try:
        if isinstance(row, bool) or isinstance(col, bool):
            raise TypeError
        return operator.index(row), operator.index(col)  # numpy's integers; not 1.0, nor array([1])
    except (TypeError, ValueError):
        raise ValueError(f"expected (row, col) as integers, got {answer!r}") from None


def over_limit(used: float, limit: float) -> str:
    """``used`` seconds, past ``limit``, to two decimals, or to as many more as show it
    past the limit: a player that slept all its ``seconds_left`` was over by microseconds,
    and "1.00 s of decision time, limit 1 s" read as no timeout at all."""
    for digits in range(2, 10):
        text = f"{used:.{digits}f}"
        if float(text) > limit:
            return text
    return f"{used!r}"


def play_game(player, point_system: PointSystem, seed: int, time_per_game: float,
              game_index: int = 0, player_seed: int | None = None,
              on_move: Callable[[int, int, int, float], None] | None = None) -> GameRecord:
    """Play the game dealt by ``seed``; faults score the penalty with their reason.

    The player is seeded with ``player_seed`` (default: :func:`~.seeds.player_seed` of
    the deal seed under this interpreter's secret), never with the deal seed.
    ``on_move(card, row, col, decision_seconds_so_far)`` is told each placement as it is
    made (what a game process leaves for the run to read should it hang or die)."""
    cards = deal(seed)
    if player_seed is None:
        player_seed = seeds.player_seed(seeds.PROCESS_SECRET, "game", seed)
    grid = Grid()
    placements: list[tuple[int, int, int]] = []
    used = 0.0
    penalty = None
    try:  # set_seed is the player's code too (an override may raise): its error is the game's, not a crash
        if hasattr(player, "set_seed"):
            player.set_seed(player_seed)
        player.start_game()
        for card in cards[:25]:
            t = time.perf_counter()
            try:
                answer = player.get_play(card, max(0.0, time_per_game - used))
            except (MalformedAnswerError, OccupiedCellError) as e:
                answer = e
            used += time.perf_counter() - t
            if used > time_per_game:
                penalty = f"timeout: {over_limit(used, time_per_game)} s of decision time, limit {time_per_game:g} s"
                break
            if isinstance(answer, MalformedAnswerError):
                penalty = f"malformed answer: {answer}"
                break
            if isinstance(answer, OccupiedCellError):
                penalty = f"illegal play: {answer}"
                break
            try:
                row, col = as_cell(answer)
            except ValueError as e:
                penalty = f"malformed answer: {e}"
                break
            try:
                grid.place(card, row, col)
            except ValueError as e:
                penalty = f"illegal play: {e}"
                break
            placements.append((card, row, col))
            if on_move is not None:
                on_move(card, row, col, used)
    except Exception as e:  # the player's own error: the game scores the penalty, the run goes on
        penalty = f"error: {fault_text(e)}"
    except SystemExit as e:
        if not players_own_exit(e):
            raise
        penalty = f"error: {fault_text(e)}"
    score = point_system.penalty if penalty else grid.score(point_system)
    return GameRecord(game_index, seed, score, placements, used, one_line(penalty) if penalty else None,
                      _fallback_moves(player))


def _fallback_moves(player) -> int:
    """The moves the player says it left to its greedy rule this game: a count 0..25, or 0
    for anything else a player's attribute holds (it is a report, never worth a run)."""
    try:
        value = getattr(player, "fallback_moves", 0)
    except Exception:
        return 0
    return min(max(int(value), 0), 25) if is_integer(value) else 0
