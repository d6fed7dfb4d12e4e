"""NARL: the GettysburgPlayer's static evaluation (Neller et al. 2016, sect. 6.1).

Naive Abstract Reinforcement Learning abstracts each row and column on its own and
learns, by on-policy Monte Carlo reinforcement learning with an epsilon-greedy
policy, the mean final points of each abstraction. A grid's value is the sum of
its ten line values (naively assuming the hands independent), plus, with the
hand-size feature, the learned mean difference between the final score and that
sum for the grid's distribution of line sizes.

A line's abstraction, in the paper's text form (``14 1(3)1(2)1(2)f(8)s``):

- the number of cards played in the game so far;
- ``-`` for a row, a space for a column;
- the line's non-zero rank counts in descending order, each followed by how many
  cards of that rank are undealt, in parentheses (ties: more undealt first);
- ``f(k)`` when a flush is still achievable, ``k`` undealt cards of that suit;
- ``s`` when a straight is still achievable; ``r`` when a royal flush is.

An empty line is only its first two fields. A complete line needs no abstraction:
its value is its exact points (the mean that learning would converge to). An
abstraction never seen in learning is valued at the points of the partial hand.
Learning, lookups and searches run in :mod:`pokersquares.kernels.narl`;
:func:`hand_abstraction` is the readable reference the kernel is tested against.

Saved tables (:meth:`NarlEvaluator.save`) are ``.npz`` files, format
``pokersquares-narl`` version 1: arrays ``keys`` (int64 abstraction keys, see the
kernel module), ``sums`` (float64 sums of final line points), ``counts`` (int64),
``size_index``/``size_sums``/``size_counts`` (the hand-size feature's non-empty
entries), ``points`` (int64[10]) and ``meta`` (a JSON object: format, version and
the learning parameters and statistics).
"""

from __future__ import annotations

import json
import math
import time
import zipfile
import zlib
from functools import partial
from pathlib import Path
from typing import Collection, Sequence

import numpy as np

from .. import progress
from ..errors import PokerSquaresError
from ..files import replacing
from ..game import EMPTY, LINES
from ..kernels import narl as K
from ..kernels.core import rng_seed
from ..machine import run_in_threads
from .base import (MAX_LEARNED_VALUE, TableKernelEvaluator, checked_budget, checked_card, checked_grid, checked_points,
                   checked_share, checked_threads, masked_seed)

__all__ = ["NarlEvaluator", "hand_abstraction", "describe_key", "size_distribution", "InvalidTableError",
           "FORMAT", "VERSION", "read_saved", "write_saved"]

FORMAT = "pokersquares-narl"
VERSION = 1
_ROYAL = (0, 9, 10, 11, 12)  # A T J Q K


class InvalidTableError(PokerSquaresError):
    """A saved NARL table that cannot be read, or that was learned for other points."""


# What reading a damaged ``.npz`` raises: numpy's and zipfile's errors (an archive cut
# short, a member whose CRC or compressed bytes are wrong), and json's on its meta.
UNREADABLE = (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, RecursionError)


_INT64_MAX = np.iinfo(np.int64).max
MAX_SAVED_BYTES = 256 << 20  # the arrays of a saved evaluator, unpacked: a 300 s table is about 1 MB


class OversizedArchiveError(ValueError):
    """A saved evaluator whose arrays would not fit: see :func:`open_saved`."""


def open_saved(path) -> np.lib.npyio.NpzFile:
    """The ``.npz`` archive at ``path``, opened once each member's array is known to fit:
    the bytes its header declares must be bytes the archive holds for it, and all the
    members together stay under :data:`MAX_SAVED_BYTES` unpacked. Else a few hundred
    bytes that declare a terabyte, or a megabyte of zeros that unpacks to gigabytes,
    would take the memory before any check. Raises :class:`OversizedArchiveError`, one
    of :data:`UNREADABLE`, or TypeError for a bare ``.npy`` array."""
    data = np.load(Path(path), allow_pickle=False)
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise TypeError("a bare .npy array")
    try:
        assert data.zip is not None  # an archive np.load opened
        total = 0
        for info in data.zip.infolist():
            total += info.file_size
            if total > MAX_SAVED_BYTES:
                raise OversizedArchiveError(f"its arrays unpack to more than {MAX_SAVED_BYTES >> 20} MiB")
            with data.zip.open(info) as member:
                read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                               (2, 0): np.lib.format.read_array_header_2_0}.get(np.lib.format.read_magic(member))
                if read_header is None:
                    raise ValueError(f"member {info.filename} is not an array as numpy saves them")
                shape, _, dtype = read_header(member)
                declared = math.prod(shape) * dtype.itemsize
                if declared > info.file_size:
                    raise OversizedArchiveError(f"its member {info.filename} declares {declared:,} bytes "
                                                f"and holds {info.file_size:,}")
    except BaseException:
        data.close()
        raise
    return data


# What each saved format is, and who loads it: a player given another's file is told.
_KINDS = {"pokersquares-narl": "a NARL table, which gettysburg and champion load",
          "pokersquares-td": "a TD evaluator, which td, champion and pretrained load"}


def _not_an_archive(path) -> str:
    """Why ``path`` is no saved evaluator: the pattern utilities og and beemo save (a
    player given another's file is told which it is), or no archive at all."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        head = b""
    if head.lstrip().startswith(b"{") and b'"pokersquares-pattern-utilities"' in head:
        return "it holds pattern utilities (a file og, beemo and champion:evaluator=patterns load), not a saved evaluator"
    return "not an .npz archive as pokersquares saves them"


def read_saved(path, fmt: str, version: int, what: str) -> tuple[dict, dict]:
    """The JSON ``meta`` and the arrays of an ``.npz`` an evaluator saved, checked to be
    of format ``fmt`` and ``version``; anything else is one :class:`InvalidTableError`
    naming ``what`` was expected."""
    if not str(path).strip():  # ``load=`` with no name: Path("") is the current folder
        raise InvalidTableError(f"cannot read {what}: no file named (an empty name)")
    if not Path(path).is_file():  # nor a pipe or a device, which numpy would wait on or read without end
        raise InvalidTableError(f"cannot read {what} {path}: "
                                + ("a folder, not a file" if Path(path).is_dir() else
                                   "not a regular file" if Path(path).exists() else "no such file"))
    try:
        data = open_saved(path)
    except OversizedArchiveError as e:
        raise InvalidTableError(f"cannot read {what} {path}: {e}") from None
    except (*UNREADABLE, TypeError):  # numpy's own text would suggest unpickling it
        raise InvalidTableError(f"cannot read {what} {path}: {_not_an_archive(path)}") from None
    try:
        with data:
            meta = json.loads(str(data["meta"]))
            if not isinstance(meta, dict):
                raise InvalidTableError(f"{path}: not a {what} (its meta is not a JSON object)")
            if meta.get("format") != fmt:
                kind = _KINDS.get(found) if isinstance(found := meta.get("format"), str) else None
                raise InvalidTableError(f"{path}: not a {what} (format {meta.get('format')!r}"
                                        + (f": {kind})" if kind else ")"))
            if meta.get("version") != version:
                raise InvalidTableError(f"{path}: {what} version {meta.get('version')} is not {version}")
            return meta, {k: data[k] for k in data.files}
    except InvalidTableError:
        raise
    except UNREADABLE as e:  # e.g. an archive cut short or a member whose bytes were changed
        raise InvalidTableError(f"cannot read {what} {path}: {e}") from None


def write_saved(path, arrays: dict, meta: dict) -> None:
    """Write ``arrays`` and ``meta`` (as JSON) to the ``.npz`` at ``path``, whole or not at
    all: an interrupted save leaves the file that was there."""
    with replacing(path) as tmp, open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays, meta=np.array(json.dumps(meta)))


# -- the readable reference ---------------------------------------------------------------


def hand_abstraction(line_cards: Sequence[int], undealt: Collection[int], cards_played: int,
                     is_column: bool) -> str:
    """The paper's text form of a line's abstraction (plain Python, the reference).

    ``undealt`` holds the ids of the cards not on the grid (and not in hand).
    """
    head = f"{cards_played}{' ' if is_column else '-'}"
    cards = list(line_cards)
    if not cards:
        return head
    undealt = set(undealt)
    ranks = [c % 13 for c in cards]
    suits = {c // 13 for c in cards}
    left_of_rank = lambda r: sum(1 for s in range(4) if s * 13 + r in undealt)  # noqa: E731
    groups = sorted(((ranks.count(r), left_of_rank(r)) for r in set(ranks)), reverse=True)
    text = head + "".join(f"{n}({u})" for n, u in groups)
    flush = False
    if len(suits) == 1:
        (suit,) = suits
        left = sum(1 for r in range(13) if suit * 13 + r in undealt)
        if left >= 5 - len(cards):
            flush = True
            text += f"f({left})"
    if len(set(ranks)) == len(ranks):
        windows = [set(range(low, low + 5)) for low in range(9)] + [{9, 10, 11, 12, 0}]
        if any(set(ranks) <= w and all(left_of_rank(r) > 0 for r in w - set(ranks)) for w in windows):
            text += "s"
        if flush and set(ranks) <= set(_ROYAL) and all(
                suit * 13 + r in undealt for r in set(_ROYAL) - set(ranks)):
            text += "r"
    return text


def describe_key(key: int) -> str:
    """The text form of a kernel abstraction key (``complete`` for a full line)."""
    key = int(key)
    if key == K.NO_KEY:
        return "complete"
    text = f"{key & 31}{' ' if key >> 5 & 1 else '-'}"
    for g in range(5):
        code = key >> (6 + 5 * g) & 31
        if code:
            text += f"{code >> 2}({code & 3})"
    if key >> 31 & 1:
        text += f"f({key >> 32 & 15})"
    if key >> 36 & 1:
        text += "s"
    if key >> 37 & 1:
        text += "r"
    return text


def size_distribution(grid: np.ndarray) -> str:
    """The paper's hand-size frequency string: how many of the 10 lines hold 0..5 cards."""
    sizes = [sum(1 for j in line if grid[j] != EMPTY) for line in LINES]
    return "".join(str(sizes.count(s)) for s in range(6))


class LearnReport:
    """Figures of a NARL learning run (``to_json`` for reports)."""

    def __init__(self, info: dict) -> None:
        self.info = info

    def to_json(self) -> dict:
        info = dict(self.info)
        info["seconds"] = info.pop("learn_seconds")
        return info


# -- the evaluator -------------------------------------------------------------------------


def _checked_games(games, what: str) -> int:
    """A count of learning games: a whole number >= 0, or one line saying what it is not."""
    if isinstance(games, bool) or not hasattr(games, "__index__") or games < 0:
        raise PokerSquaresError(f"{what} must be a whole number of games >= 0, got {games!r}")
    return int(games)


class NarlEvaluator(TableKernelEvaluator):
    """The learned abstracted-hand table (NARL), usable by any search.

    ``epsilon0`` and ``decay``: the epsilon-greedy schedule (decay per simulated game);
    ``hand_sizes``: learn the hand-size feature jointly; ``games``: learn exactly this
    many games instead of filling the time budget (one learner, the paper's schedule);
    ``budget_share``: the share of the preprocessing budget spent learning (the rest
    is a safety margin); ``threads``: games learned at once when filling the time
    budget, one per core, all learning one pooled table (:meth:`learn_parallel`), so
    a 2-core budget learns from twice the games.
    """

    name = "narl"
    compile_s = 12.0

    @property
    def learns_within_budget(self) -> bool:
        """True unless a fixed number of ``games`` is asked for (an experiment's table,
        played as learned) or a table was loaded."""
        return self.games is None and not getattr(self, "_loaded", False)

    def __init__(self, epsilon0: float = 0.5, decay: float = 0.999975, hand_sizes: bool = True,
                 games: int | None = None, budget_share: float = 0.85, capacity: int = 1 << 18,
                 threads: int = 2, horizon: int = 0) -> None:
        if not 0.0 <= epsilon0 <= 1.0 or not 0.0 < decay <= 1.0:
            raise PokerSquaresError("NARL needs 0 <= epsilon0 <= 1 and 0 < decay <= 1")
        if not isinstance(horizon, int) or horizon < 0:
            raise PokerSquaresError(f"horizon must be a non-negative integer, got {horizon!r}")
        self.horizon = horizon
        self.threads = checked_threads(threads)
        self.epsilon0 = float(epsilon0)
        self.decay = float(decay)
        self.hand_sizes = bool(hand_sizes)
        self.games = None if games is None else _checked_games(games, "games")
        self.budget_share = checked_share(budget_share, "budget_share")
        self._capacity = capacity
        self.points = None  # prepare or load gives it the point system's
        self.reset()

    # -- state --------------------------------------------------------------------------
    def reset(self, seed: int = 0) -> None:
        """Forget everything learned; learning's randomness restarts from ``seed``."""
        self.keys, self.sums, self.counts, self.used = K.new_table(self._capacity)
        self.size_sums = np.zeros(K.SIZE_TABLE_LEN)
        self.size_counts = np.zeros(K.SIZE_TABLE_LEN, dtype=np.int64)
        self.epsilon = self.epsilon0
        self.games_learned = 0
        self.learn_seconds = 0.0
        self.learn_score_sum = 0.0
        self._seed = masked_seed(seed)
        self._rng = rng_seed(self._seed)

    def _has_learned(self) -> bool:
        """Whether there is a table to save: prepared, loaded or learned into."""
        return (getattr(self, "_prepared", False) or getattr(self, "_loaded", False)
                or self.games_learned > 0)

    @property
    def entries(self) -> int:
        """How many abstractions the table holds."""
        return int(self.used[0])

    def _tables(self):
        return (self.points, self.keys, self.sums, self.counts, self.size_sums, self.size_counts,
                self.hand_sizes)

    # -- learning -------------------------------------------------------------------------
    def prepare(self, points: np.ndarray, budget_s: float, seed: int = 0) -> None:
        """Learn from scratch for ``points``: ``games`` games if set, else for
        ``budget_share`` of ``budget_s``. A table loaded for the same points is kept."""
        points = checked_points(points)
        budget_s, seed = checked_budget(budget_s), masked_seed(seed)
        if self.keeps_loaded_state(points, "NARL table"):
            return
        self.points = points
        self.reset(seed)
        self._prepared = True
        try:
            if self.games is not None:
                self.learn(games=self.games)
            else:
                self.learn_parallel(max(0.0, budget_s * self.budget_share - 0.1), self.threads)
            self.warm_up()
        except BaseException:  # an interrupt too: a half-learned table is no table of these points
            self.points, self._prepared = None, False
            raise

    def warm_up_copy(self) -> "NarlEvaluator":
        copy = super().warm_up_copy()
        if copy.games is not None:
            copy.games = min(copy.games, 64)  # compiling the learning kernel needs no more
        copy.compile_learning()
        return copy

    def compile_learning(self) -> None:
        """Run every learning kernel once on scratch tables (the games, the pooling of
        :meth:`learn_parallel`, growing the table), leaving this evaluator untouched: a
        preparation timed in tenths of a second cannot afford to load them from numba's
        cache, let alone compile them (on a cold cache that took 35 s of a 0.5 s budget)."""
        from ..points import AMERICAN

        scratch = NarlEvaluator(self.epsilon0, self.decay, self.hand_sizes, capacity=1024, threads=1, horizon=self.horizon)
        scratch.points = np.array(AMERICAN.points, dtype=np.int64)
        scratch.reset(0)
        helper = NarlEvaluator(self.epsilon0, self.decay, self.hand_sizes, capacity=16, threads=1, horizon=self.horizon)
        helper.points = scratch.points
        helper.reset(1)
        base = scratch._snapshot()
        helper._start_from(base, scratch.epsilon)
        helper.learn(games=2, show=False)  # scratch learning: nobody's progress
        scratch.learn(games=2, show=False)
        scratch._add_new(helper, base)
        scratch._grow()

    def warm_up(self) -> None:
        """Call each kernel once, so that the first move does not pay for loading them."""
        grid = np.full(25, EMPTY, dtype=np.int8)
        grid[0] = 0
        self.placement_values(grid, 1)
        self.best_placement_values(grid, np.arange(1, 4))
        self.limited_playouts(grid, 1, 1, 0)
        self.state_value(grid)

    def learn(self, seconds: float | None = None, games: int | None = None, *, show: bool = True) -> dict:
        """Continue learning for ``seconds`` or ``games`` (whichever is given; both: the
        first reached). Returns figures of this call; ``show`` reports progress
        (:mod:`pokersquares.progress`)."""
        if seconds is None and games is None:
            raise ValueError("learn needs seconds or games")
        if games is not None:  # 1.5 played 1, then 0.5 for ever (0 games a call)
            games = _checked_games(games, "learn's games")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not math.isfinite(seconds)):  # NaN: a deadline never reached
            raise PokerSquaresError(f"learn's seconds must be a finite number, got {seconds!r}")
        self._require_points()
        start = time.perf_counter()
        deadline = start + seconds if seconds is not None else float("inf")
        target = games if games is not None else 1 << 62
        played = 0
        score_sum = 0.0
        chunk = 64
        while played < target:
            now = time.perf_counter()
            if now >= deadline:
                break
            if self.used[0] + 250 > 0.6 * len(self.keys):
                self._grow()
            n = min(chunk, target - played)
            t0 = time.perf_counter()
            done, self.epsilon, s = K.learn_games(
                n, self._rng, self.epsilon, self.decay, self.points, self.keys, self.sums, self.counts,
                self.used, self.size_sums, self.size_counts, self.hand_sizes, int(0.7 * len(self.keys)), self.horizon)
            dt = time.perf_counter() - t0
            played += done
            score_sum += s
            if show:
                progress.report("learning", self.games_learned + played,
                                deadline - time.perf_counter() if seconds is not None else None)
            if done == n and seconds is not None:
                # Aim at about 0.1 s per call, never beyond the deadline, and at most
                # double the last call: one quick call (a busy machine's scheduler
                # favouring this thread for a moment) once made the next one 1 s long.
                rate = done / max(dt, 1e-6)
                chunk = int(max(16, min(2 * n, rate * 0.1, rate * (deadline - time.perf_counter()) * 0.9)))
        elapsed = time.perf_counter() - start
        self.games_learned += played
        self.learn_seconds += elapsed
        self.learn_score_sum += score_sum
        return {"games": played, "seconds": elapsed, "games_per_s": played / elapsed if elapsed else 0.0,
                "mean_score": score_sum / played if played else float("nan"), "epsilon": self.epsilon,
                "entries": self.entries}

    def learn_parallel(self, seconds: float, threads: int, round_s: float = 1.0) -> dict:
        """Learn for ``seconds`` on ``threads`` cores, as one learner playing ``threads``
        games at a time. In rounds of ``round_s`` seconds, every learner (this one and
        ``threads - 1`` helpers, each with its own random stream; the kernel releases
        the GIL) starts from the pooled table and plays on-policy on it; then what each
        gained is added into the pool, and epsilon decays by ``decay`` per game of all
        learners. Returns figures of the call."""
        self._require_points()
        if threads <= 1:
            return self.learn(seconds=seconds)
        from concurrent.futures import ThreadPoolExecutor

        helpers = []
        for k in range(1, threads):
            helper = NarlEvaluator(self.epsilon0, self.decay, self.hand_sizes, capacity=16, threads=1, horizon=self.horizon)
            helper.points = self.points
            helper.reset(self._seed * 1_000_003 + k)
            helpers.append(helper)
        start = time.perf_counter()
        deadline = start + seconds
        games = 0
        score_sum = 0.0
        progress.report("learning", self.games_learned, seconds, force=True)
        with ThreadPoolExecutor(threads) as pool:
            while (left := deadline - time.perf_counter()) > 0.005:
                if self.used[0] + 250 * threads > 0.6 * len(self.keys):
                    self._grow()
                base = self._snapshot()
                for helper in helpers:
                    helper._start_from(base, self.epsilon)
                epsilon = self.epsilon
                parts = run_in_threads(pool, [partial(learner.learn, min(round_s, left), show=False)
                                              for learner in [self, *helpers]])
                for helper in helpers:
                    self._add_new(helper, base)
                    self.games_learned += helper.games_learned
                    self.learn_score_sum += helper.learn_score_sum
                round_games = sum(p["games"] for p in parts)
                games += round_games
                score_sum += sum(p["mean_score"] * p["games"] for p in parts if p["games"])
                self.epsilon = epsilon * self.decay ** round_games
                progress.report("learning", self.games_learned, deadline - time.perf_counter())
        elapsed = time.perf_counter() - start
        return {"games": games, "seconds": elapsed, "games_per_s": games / elapsed if elapsed else 0.0,
                "mean_score": score_sum / games if games else float("nan"), "epsilon": self.epsilon,
                "entries": self.entries, "threads": threads}

    def _snapshot(self) -> tuple:
        return (self.keys.copy(), self.sums.copy(), self.counts.copy(), self.used.copy(),
                self.size_sums.copy(), self.size_counts.copy())

    def _start_from(self, snapshot: tuple, epsilon: float) -> None:
        """Continue learning from a copy of another learner's table (a helper's round)."""
        keys, sums, counts, used, size_sums, size_counts = snapshot
        self.keys, self.sums, self.counts, self.used = keys.copy(), sums.copy(), counts.copy(), used.copy()
        self.size_sums, self.size_counts = size_sums.copy(), size_counts.copy()
        self.epsilon = epsilon
        self.games_learned = 0
        self.learn_score_sum = 0.0

    def _add_new(self, helper: "NarlEvaluator", base: tuple) -> None:
        """Add into this table what ``helper`` learned since it started from ``base``."""
        while self.used[0] + helper.used[0] - base[3][0] + 250 > 0.6 * len(self.keys):
            self._grow()
        K.add_new(helper.keys, helper.sums, helper.counts, base[0], base[1], base[2],
                  self.keys, self.sums, self.counts, self.used)
        self.size_sums += helper.size_sums - base[4]
        self.size_counts += helper.size_counts - base[5]

    def _grow(self) -> None:
        keys, sums, counts, used = K.new_table(2 * len(self.keys))
        K.rehash(self.keys, self.sums, self.counts, keys, sums, counts, used)
        self.keys, self.sums, self.counts, self.used = keys, sums, counts, used

    # -- evaluation: TableKernelEvaluator's methods over these kernels ---------------------
    _placement_kernel = staticmethod(K.placement_values)
    _best_kernel = staticmethod(K.best_placement_values)
    _value_kernel = staticmethod(K.grid_value)
    _playout_kernel = staticmethod(K.playouts)

    # -- inspection -------------------------------------------------------------------------
    def line_abstractions(self, grid: np.ndarray, card: int = -1) -> list[str]:
        """The text forms of the 10 lines of ``grid`` (``card``, if given, counted as dealt)."""
        grid = checked_grid(grid)
        if not (type(card) is int and card == -1):  # -1: no card in hand
            card = checked_card(card, grid)
        rank_und = np.empty(13, dtype=np.int64)
        suit_und = np.empty(4, dtype=np.int64)
        undealt = np.empty(52, dtype=np.uint8)
        n = K.undealt_counts(grid, card, rank_und, suit_und, undealt)
        return [describe_key(K.line_key(grid, K.LINES_ARRAY[i], -1, n, i >= 5, rank_und, suit_und, undealt)[0])
                for i in range(10)]

    def entry(self, abstraction: str) -> tuple[float, int] | None:
        """(mean final points, count) of an abstraction's text form, or None if unseen."""
        for key, mean, count in self.table():
            if key == abstraction:
                return mean, count
        return None

    def table(self, min_count: int = 1) -> list[tuple[str, float, int]]:
        """Every learned abstraction as (text form, mean final points, count)."""
        taken = np.flatnonzero((self.keys != K.NO_KEY) & (self.counts >= min_count))
        return [(describe_key(self.keys[i]), float(self.sums[i] / self.counts[i]), int(self.counts[i]))
                for i in taken]

    def size_table(self) -> list[tuple[str, float, int]]:
        """Every learned hand-size distribution as (text form, mean residual, count)."""
        out = []
        for idx in np.flatnonzero(self.size_counts):
            digits = [int(idx) // 11 ** s % 11 for s in range(5)]
            text = "".join(map(str, digits + [10 - sum(digits)]))
            out.append((text, float(self.size_sums[idx] / self.size_counts[idx]), int(self.size_counts[idx])))
        return out

    @property
    def report(self) -> "LearnReport":
        """What learning did, for ``pokersquares train``."""
        return LearnReport(self.info())

    def info(self) -> dict:
        return {"evaluator": self.name, "epsilon0": self.epsilon0, "decay": self.decay,
                "hand_sizes": self.hand_sizes, "horizon": self.horizon, "threads": self.threads, "games_learned": self.games_learned,
                "learn_seconds": round(self.learn_seconds, 3), "epsilon": self.epsilon,
                "entries": self.entries,
                "learn_mean_score": self.learn_score_sum / self.games_learned if self.games_learned else None}

    # -- saving -------------------------------------------------------------------------------
    def _arrays(self) -> dict:
        taken = np.flatnonzero(self.keys != K.NO_KEY)
        sizes = np.flatnonzero(self.size_counts)
        meta = {"format": FORMAT, "version": VERSION, **self.info()}
        return {"keys": self.keys[taken], "sums": self.sums[taken], "counts": self.counts[taken],
                "size_index": sizes, "size_sums": self.size_sums[sizes], "size_counts": self.size_counts[sizes],
                "points": self.points, "meta": np.array(json.dumps(meta))}

    @staticmethod
    def _check_arrays(arrays) -> None:
        """ValueError naming the first way the saved arrays disagree with each other or
        with the kernel's table (a file cut short or edited by hand)."""
        keys, sums, counts = (np.asarray(arrays[k]) for k in ("keys", "sums", "counts"))
        index, size_sums, size_counts = (np.asarray(arrays[k]) for k in ("size_index", "size_sums", "size_counts"))
        for name, array, kinds in (("keys", keys, "iu"), ("sums", sums, "iuf"), ("counts", counts, "iu"),
                                   ("size_index", index, "iu"), ("size_sums", size_sums, "iuf"),
                                   ("size_counts", size_counts, "iu")):
            if array.dtype.kind not in kinds:  # strings, booleans, complex numbers: never saved so
                raise ValueError(f"{name} must hold {'integers' if kinds == 'iu' else 'numbers'}, got {array.dtype}")
        for name, array in (("keys", keys), ("counts", counts), ("size_counts", size_counts)):
            if array.size and array.dtype.kind == "u" and array.max() > _INT64_MAX:  # int64 would wrap them
                raise ValueError(f"{name} must fit in 64-bit signed integers, got {array.max()}")
        if not keys.ndim == sums.ndim == counts.ndim == 1 or not len(keys) == len(sums) == len(counts):
            raise ValueError(f"keys, sums and counts must be three lists of one length, "
                             f"got {keys.shape}, {sums.shape} and {counts.shape}")
        if (keys == K.NO_KEY).any() or len(np.unique(keys)) != len(keys):
            raise ValueError("the abstraction keys must be distinct and none empty")
        if not np.isfinite(sums).all() or (counts < 0).any():
            raise ValueError("the sums must be finite and the counts not negative")
        if (counts == 0).any():  # a value is its sum over its count: every key saved has a sample
            raise ValueError("every abstraction key must have a count of at least 1")
        if not index.ndim == size_sums.ndim == size_counts.ndim == 1 or not len(index) == len(size_sums) == len(size_counts):
            raise ValueError("size_index, size_sums and size_counts must be three lists of one length")
        if len(index) and (index.min() < 0 or index.max() >= K.SIZE_TABLE_LEN or len(np.unique(index)) != len(index)):
            raise ValueError(f"size_index must hold distinct entries in 0..{K.SIZE_TABLE_LEN - 1}")
        if not np.isfinite(size_sums).all() or (size_counts < 0).any():
            raise ValueError("the size sums must be finite and the size counts not negative")
        # A value is a mean (its sum over its count): one beyond any game's points is no value learned.
        if (np.abs(sums) > MAX_LEARNED_VALUE * counts.astype(np.float64)).any() or (
                np.abs(size_sums) > MAX_LEARNED_VALUE * np.maximum(size_counts, 1).astype(np.float64)).any():
            raise ValueError(f"its values must be means within ±{MAX_LEARNED_VALUE:,} points")
        points = np.asarray(arrays["points"])
        if points.shape != (10,):
            raise ValueError("points must hold the 10 hands' points")
        checked_points(points)  # ten integers

    @staticmethod
    def _checked_meta(meta: dict, horizon: int) -> dict:
        """The learning figures of a saved table's ``meta``, checked (ValueError naming the
        first that is not what :meth:`info` writes); a file saved before the horizon was
        recorded gets ``horizon``."""
        def number(name, low, high, low_open=False):
            value = meta[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not (
                    low < value <= high if low_open else low <= value <= high):
                bounds = f">= {low:g}" if high == math.inf else f"in {'(' if low_open else '['}{low:g}, {high:g}]"
                raise ValueError(f"{name} must be a finite number {bounds}, got {value!r}")
            return float(value)

        horizon = meta.get("horizon", horizon)
        if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0:
            raise ValueError(f"horizon must be a non-negative integer, got {horizon!r}")
        games = meta["games_learned"]
        if isinstance(games, bool) or not isinstance(games, int) or games < 0:
            raise ValueError(f"games_learned must be a non-negative integer, got {games!r}")
        if not isinstance(meta["hand_sizes"], bool):
            raise ValueError(f"hand_sizes must be true or false, got {meta['hand_sizes']!r}")
        mean = meta.get("learn_mean_score")
        if mean is not None and (isinstance(mean, bool) or not isinstance(mean, (int, float))
                                 or not math.isfinite(mean)):
            raise ValueError(f"learn_mean_score must be a finite number, got {mean!r}")
        return {"epsilon0": number("epsilon0", 0.0, 1.0), "decay": number("decay", 0.0, 1.0, low_open=True),
                "epsilon": number("epsilon", 0.0, 1.0), "learn_seconds": number("learn_seconds", 0.0, math.inf),
                "hand_sizes": meta["hand_sizes"], "games_learned": games, "horizon": horizon,
                "learn_score_sum": mean * games if mean is not None else 0.0}

    def _restore(self, arrays) -> None:
        self._check_arrays(arrays)
        meta = json.loads(str(arrays["meta"]))
        if not isinstance(meta, dict):
            raise ValueError("its meta is not a JSON object")
        # Files saved before the horizon was recorded keep this evaluator's.
        learned = self._checked_meta(meta, self.horizon)
        keys = np.asarray(arrays["keys"], dtype=np.int64)
        capacity = max(self._capacity, 1 << int(2 * len(keys) + 16).bit_length())
        self.keys, self.sums, self.counts, self.used = K.new_table(capacity)
        K.rehash(keys, np.asarray(arrays["sums"], dtype=np.float64), np.asarray(arrays["counts"], dtype=np.int64),
                 self.keys, self.sums, self.counts, self.used)
        self.size_sums = np.zeros(K.SIZE_TABLE_LEN)
        self.size_counts = np.zeros(K.SIZE_TABLE_LEN, dtype=np.int64)
        idx = np.asarray(arrays["size_index"], dtype=np.int64)
        self.size_sums[idx] = arrays["size_sums"]
        self.size_counts[idx] = arrays["size_counts"]
        self.points = np.asarray(arrays["points"], dtype=np.int64).copy()
        self.__dict__.update(learned)

    def save(self, path, point_system_name: str = "custom") -> None:
        """Write the learned table to ``path`` (``.npz``, format documented in the module)."""
        if not self._has_learned():
            raise PokerSquaresError(f"{self.name} has learned nothing yet to save: prepare or load first")
        self._require_points()  # a preparation that failed left a table of no points
        arrays = self._arrays()
        meta = json.loads(str(arrays["meta"]))
        assert self.points is not None  # _require_points
        meta["point_system"] = {"name": point_system_name, "points": [int(p) for p in self.points]}
        arrays.pop("meta")
        write_saved(path, arrays, meta)

    def load(self, path) -> "NarlEvaluator":
        """Replace the learned table by the one saved at ``path``; ``prepare`` then keeps it
        when asked for the same points. ``path`` may also be a saved TD evaluator
        (:class:`~pokersquares.evaluators.td.TdEvaluator`): its table is read and its
        residual's weights are left out, so ``gettysburg:load=TD.npz`` plays the table a
        TD preparation learned, alone. Returns self."""
        from .td import FORMAT as TD_FORMAT, VERSION as TD_VERSION, saved_format  # td builds on this module

        if saved_format(path) == TD_FORMAT:
            _, arrays = read_saved(path, TD_FORMAT, TD_VERSION, "TD evaluator")
            arrays = {name: value for name, value in arrays.items() if name not in ("meta", "theta", "theta_index")}
            if "narl_meta" in arrays:
                arrays["meta"] = arrays.pop("narl_meta")
        else:
            _, arrays = read_saved(path, FORMAT, VERSION, "NARL table")
        try:
            self._restore(arrays)
        except (KeyError, ValueError, TypeError) as e:
            raise InvalidTableError(f"cannot read NARL table {path}: {e}") from None
        self._loaded = True
        self.warm_up()
        return self

    # The table is mostly empty slots: pickle (e.g. to worker processes) only the entries.
    def __getstate__(self) -> dict:
        state = {k: v for k, v in self.__dict__.items()
                 if k not in ("keys", "sums", "counts", "used", "size_sums", "size_counts")}
        state["_arrays"] = self._arrays()
        if self.points is None:  # not prepared: the arrays' form wants ten points, the copy has none
            state["_arrays"]["points"] = np.zeros(10, dtype=np.int64)
        return state

    def __setstate__(self, state: dict) -> None:
        arrays = state.pop("_arrays")
        self.__dict__.update(state)
        self._restore(arrays)
        self.points = state["_points"]
