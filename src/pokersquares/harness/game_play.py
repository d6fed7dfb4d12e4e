"""One contest-exact game of a player, in the calling process.

The rules of a game's time and faults (RULES.md): the player's total decision
time is capped; a timeout, an illegal or malformed play, or an exception scores
``10 * min(points)`` (0 where no hand scores below 0). This module knows nothing of processes; the runner adds the
watchdog that catches players that hang or crash the interpreter.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..cards import deal, is_integer
from ..game import Grid
from ..points import PointSystem
from . import seeds
from .player import MalformedAnswerError, OccupiedCellError
from .store import GameRecord

__all__ = ["as_cell", "play_game", "prepare_player"]


def prepare_player(player, point_system: PointSystem, prep_time: float) -> float:
    """Tell the player the point system with its preprocessing budget; return seconds used."""
    t = time.perf_counter()
    player.set_point_system(point_system, prep_time)
    return time.perf_counter() - t


def as_cell(answer) -> tuple[int, int]:
    """``(row, col)`` as two integers, or ValueError for anything else."""
    if not isinstance(answer, (tuple, list, np.ndarray)):  # not bytes, a string, a dict...
        raise ValueError(f"expected (row, col), got {answer!r}")
    try:
        row, col = answer
    except (TypeError, ValueError):
        raise ValueError(f"expected (row, col), got {answer!r}") from None
    for v in (row, col):
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise ValueError(f"expected (row, col) as integers, got {answer!r}")
    return int(row), int(col)


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
    if hasattr(player, "set_seed"):
        player.set_seed(player_seed)
    try:
        player.start_game()
        for card in cards[:25]:
            t = time.perf_counter()
            try:
                answer = player.get_play(card, max(0.0, time_per_game - used))
            except (MalformedAnswerError, OccupiedCellError) as e:
                answer = e
            used += time.perf_counter() - t
            if used > time_per_game:
                penalty = f"timeout: {used:.2f} s of decision time, limit {time_per_game:g} s"
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
        penalty = f"error: {type(e).__name__}: {e}"
    score = point_system.penalty if penalty else grid.score(point_system)
    return GameRecord(game_index, seed, score, placements, used, penalty, _fallback_moves(player))


def _fallback_moves(player) -> int:
    """The moves the player says it left to its greedy rule this game: a count 0..25, or 0
    for anything else a player's attribute holds (it is a report, never worth a run)."""
    try:
        value = getattr(player, "fallback_moves", 0)
    except Exception:
        return 0
    return min(max(int(value), 0), 25) if is_integer(value) else 0
