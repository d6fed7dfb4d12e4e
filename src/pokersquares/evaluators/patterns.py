"""BeeMo's evaluator: learned utilities of hand patterns, played by optimized greedy.

Each line of the grid is abstracted into a 16-bit hand pattern with deck context
(:mod:`pokersquares.kernels.patterns`). A pattern's utility estimates the final
points of a line that passes through it. Optimized greedy (OG) places a card where
the utilities of its row and column rise most.

Learning (Castro-Wunsch, Maga and Anton 2016) runs in rounds until the budget is
spent. A round's *training phase* plays ``train_games`` games by OG; after each
game every pattern each line passed through is credited with the line's final
points, and the running averages guide the very next game (the feedback loop).
One game in ``ucb_every`` explores: the utility of each after-pattern gets a UCB1
bonus ``c * sqrt(ln T / (visits + 1))`` (unseen patterns kept finite), with
``c = ucb_c * (max points - min points)``.
The *evaluation phase* plays ``eval_games`` OG games on the round's utilities; the
set with the best mean is kept. As in the paper, each round starts from zero
utilities (``carry=True`` keeps learning on the previous round's averages instead).
Like BeeMo's search, learning uses both cores: two sequences of rounds run at once
(``learn_threads``) and the best set of either is kept.

Saved tables are JSON, format ``pokersquares-pattern-utilities`` version 1::

    {"format": "pokersquares-pattern-utilities", "version": 1,
     "encoding": "beemo16", "encoding_version": 1,
     "point_system": {"name": "American", "points": [0, 2, ...]},
     "training": {"rounds": 812, "games": 8120000, "seconds": 299.7,
                  "eval_mean": 117.9, "eval_games": 5000, ...},
     "patterns": [[code, utility, visits], ...]}

``code`` is the 16-bit pattern (bit layout in the kernels module); patterns not
listed have utility 0.
"""

from __future__ import annotations

import contextvars
import json
import math
import threading
import time
import warnings
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .. import progress
from ..cards import is_integer, is_seconds
from ..errors import PokerSquaresError
from ..files import write_atomically
from ..kernels import patterns as kp
from ..kernels.core import score_grid
from ..kernels.parallel import parallel_turn
from ..machine import run_in_threads
from .base import (MAX_LEARNED_VALUE, SEED_MASK, Evaluator, _brief, checked_budget, checked_card, checked_cells,
                   checked_count, checked_grid, checked_points, checked_seed, checked_threads)

__all__ = ["PatternEvaluator", "LearningReport", "PatternFileError", "learn_utilities", "read_utilities",
           "write_utilities", "warm_up", "FILE_FORMAT", "FILE_VERSION"]

FILE_FORMAT = "pokersquares-pattern-utilities"
FILE_VERSION = 1
# Far above the largest utilities file (every one of the 65,536 patterns, about 4 MB).
MAX_FILE_BYTES = 64 << 20
ENCODING_NAME = "beemo16"


class PatternFileError(PokerSquaresError):
    """A utilities file that is missing, malformed, or of another format or version."""


@dataclass
class LearningReport:
    """What a learning run did: rounds completed, games played, and the best set's
    evaluation mean (``None`` when no round reached its evaluation phase)."""

    rounds: int = 0
    games: int = 0
    seconds: float = 0.0
    eval_mean: float | None = None
    eval_games: int = 0
    history: list[float] = field(default_factory=list)  # evaluation mean of each round

    def to_json(self) -> dict:
        return {"rounds": self.rounds, "games": self.games, "seconds": round(self.seconds, 3),
                "eval_mean": self.eval_mean, "eval_games": self.eval_games}


def learn_utilities(points: np.ndarray, budget_s: float, seed: int = 0, *, train_games: int = 5000,
                    eval_games: int = 5000, ucb_every: int = 3, ucb_c: float = 0.02,
                    feedback: bool = True, carry: bool = False, known_complete: bool = False,
                    max_rounds: int | None = None, chunk: int = 500,
                    threads: int = 1) -> tuple[np.ndarray, np.ndarray, LearningReport]:
    """Learn pattern utilities for ``points`` within ``budget_s`` seconds (see the
    module docstring). Returns the best utilities, their visit counts and a report.

    The clock is checked between chunks of ``chunk`` games, and a phase is not
    started when the last one's duration says it would overrun. If not even one
    round completes, the partly trained utilities of the first are returned.
    ``feedback=False`` plays each training phase on the utilities it started with
    (zeros: uniformly random play), the paper's "without feedback" baseline.
    ``threads > 1`` runs that many independent sequences of rounds at once (the
    kernels release the GIL) and keeps the best set of all; ``max_rounds`` is then
    per thread.
    """
    points = checked_points(points)  # the kernels add them in int64 unchecked
    start = time.perf_counter()
    deadline = start + max(0.0, budget_s)
    options: dict[str, Any] = dict(train_games=train_games, eval_games=eval_games, ucb_every=ucb_every,
                   ucb_c=float(ucb_c) * float(max(1, points.max() - points.min())), feedback=feedback,
                   carry=carry, known_complete=known_complete, max_rounds=max_rounds, chunk=chunk)
    options["tally"] = [0]  # games played by all threads, for progress reports
    progress.report("learning", 0, budget_s, force=True)
    if threads <= 1:
        results = [_learn_rounds(points, deadline, np.random.default_rng(seed), **options)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        seeds = np.random.SeedSequence(seed).spawn(threads)
        stop = threading.Event()  # set when this thread is interrupted: the others end at their next chunk
        # Each learning thread reports to this thread's progress listener (a copy of its
        # context each): to the latest block open in the process, it was another preparation's.
        with ThreadPoolExecutor(threads) as pool:
            results = run_in_threads(pool, [partial(contextvars.copy_context().run, _learn_rounds, points, deadline,
                                                    np.random.default_rng(s), stop=stop, **options)
                                             for s in seeds], stop)
    evaluated = [(r[2].eval_mean, r) for r in results if r[2].eval_mean is not None]
    best_u, best_n, _ = max(evaluated, key=lambda e: e[0])[1] if evaluated else results[0]
    report = LearningReport(eval_games=eval_games)
    for _, _, part in results:
        report.rounds += part.rounds
        report.games += part.games
        report.history += part.history
    report.eval_mean = max((mean for mean, _ in evaluated), default=None)
    report.seconds = time.perf_counter() - start
    return best_u, best_n, report


def _learn_rounds(points: np.ndarray, deadline: float, rng: np.random.Generator, *, train_games: int,
                  eval_games: int, ucb_every: int, ucb_c: float, feedback: bool, carry: bool,
                  known_complete: bool, max_rounds: int | None, chunk: int, tally: list[int],
                  stop: threading.Event | None = None) -> tuple[np.ndarray, np.ndarray, LearningReport]:
    """One sequence of learning rounds until ``deadline`` (``learn_utilities``), or
    until ``stop`` is set (the thread that waits for this one was interrupted)."""
    report = LearningReport(eval_games=eval_games)
    utilities = np.zeros(kp.NUM_PATTERNS)
    counts = np.zeros(kp.NUM_PATTERNS, dtype=np.int64)
    best_u, best_n = utilities.copy(), counts.copy()
    complete = kp.complete_hand_utilities(points.tolist())
    per_game_train = per_game_eval = 0.0  # seconds, from the last phase

    def fits(seconds: float) -> bool:
        return time.perf_counter() + seconds <= deadline and not (stop is not None and stop.is_set())

    while max_rounds is None or report.rounds < max_rounds:
        if report.rounds > 0 and not fits(per_game_train * train_games + per_game_eval * eval_games):
            break
        if not carry or report.rounds == 0:
            utilities[:] = 0.0
            counts[:] = 0
            if known_complete:
                for code, value in complete.items():
                    utilities[code] = value
        play_u = utilities if feedback else utilities.copy()
        t = time.perf_counter()
        done = 0
        pace = 0.0  # seconds per game of the last chunk
        while done < train_games:
            if stop is not None and stop.is_set():
                break
            n = min(chunk, train_games - done)
            if report.rounds == 0:
                # The first round's chunks start at 50 games and at most double, each
                # no longer than the time left at the last chunk's pace: a first chunk
                # of 500 games overran 0.5 s budgets on a busy machine.
                n = min(n, max(50, 2 * done))
                if pace > 0:
                    n = min(n, int((deadline - time.perf_counter()) / pace))
                if n < 1 or not fits(0.0):
                    break
            c = time.perf_counter()
            kp.train_games(utilities, counts, play_u, points, n, int(rng.integers(2**62)), ucb_every, ucb_c,
                           done)
            done += n
            pace = (time.perf_counter() - c) / n
            per_game_train = (time.perf_counter() - t) / done
            tally[0] += n
            progress.report("learning", tally[0], deadline - time.perf_counter())
        report.games += done
        if done < train_games:  # the budget ran out inside the first round
            best_u, best_n = utilities.copy(), counts.copy()
            break
        # Before the first evaluation its speed is unknown: an OG game is quicker than
        # a training game, so the training phase's pace bounds it.
        if not fits((per_game_eval or per_game_train) * eval_games):
            if report.rounds == 0:
                best_u, best_n = utilities.copy(), counts.copy()
            break
        t = time.perf_counter()
        mean = float(kp.og_games(utilities, points, eval_games, int(rng.integers(2**62))).mean())
        per_game_eval = (time.perf_counter() - t) / eval_games
        tally[0] += eval_games
        report.games += eval_games
        report.rounds += 1
        report.history.append(mean)
        if report.eval_mean is None or mean > report.eval_mean:
            report.eval_mean = mean
            best_u, best_n = utilities.copy(), counts.copy()
    return best_u, best_n, report


class PatternEvaluator(Evaluator):
    """Learned hand-pattern utilities; OG is its greedy policy and its playouts.

    ``paired`` makes ``placement_playouts`` deal the same shuffles after every
    placement (common random numbers); flat MC then compares cells on the same
    futures. On American, 100 playouts per cell gained about 4 points over OG paired
    and none unpaired (300 games each).

    ``load`` names a saved utilities file; it is used instead of learning when its
    point system is the one being prepared for (otherwise the evaluator learns, and
    says so in ``self.loaded``). Learning options are those of ``learn_utilities``.
    """

    name = "patterns"
    compile_s = 25.0
    learns_within_budget = True

    def __init__(self, load: str | None = None, train_games: int = 5000, eval_games: int = 5000,
                 ucb_every: int = 3, ucb_c: float = 0.02, feedback: bool = True, carry: bool = False,
                 known_complete: bool = False, paired: bool = True, learn_threads: int = 2) -> None:
        # Checked here, before any learning: eval_games=0 divided by zero after the first
        # training phase, train_games=0 learned nothing, and thousands of learn_threads
        # outgrew the game process's memory, each only once the preparation had begun.
        for what, n in (("train_games", train_games), ("eval_games", eval_games)):
            if not is_integer(n) or not 1 <= n < 2 ** 63:
                raise PokerSquaresError(f"{what} must be a whole number of games of at least 1, got {_brief(n)}")
        if not is_integer(ucb_every) or not 0 <= ucb_every < 2 ** 63:
            raise PokerSquaresError(f"ucb_every must be a whole number of games of at least 0 (0: no UCB1 games), "
                                    f"got {_brief(ucb_every)}")
        if not is_seconds(ucb_c) or not 0 <= ucb_c < math.inf:
            raise PokerSquaresError(f"ucb_c must be a finite number >= 0 (UCB1's exploration), got {_brief(ucb_c)}")
        for what, flag in (("feedback", feedback), ("carry", carry), ("known_complete", known_complete),
                           ("paired", paired)):
            if not isinstance(flag, (bool, np.bool_)):
                raise PokerSquaresError(f"{what} must be true or false, got {_brief(flag)}")
        learn_threads = checked_threads(learn_threads, "learn_threads")
        self.paired = paired
        self.options: dict[str, Any] = dict(train_games=train_games, eval_games=eval_games, ucb_every=ucb_every,
                                            ucb_c=ucb_c, feedback=feedback, carry=carry, known_complete=known_complete,
                                            threads=learn_threads)
        self.points = None  # prepare or load gives it the point system's
        self.utilities = np.zeros(kp.NUM_PATTERNS)
        self.counts = np.zeros(kp.NUM_PATTERNS, dtype=np.int64)
        self.report: LearningReport | None = None
        self.loaded: str | None = None
        self._file: dict | None = None
        if load is not None:
            self._file = read_utilities(load)
            self._file_path = str(load)

    def forget_loaded_state(self) -> None:
        self._file = None

    def loaded_points(self) -> tuple[int, ...] | None:
        return None if self._file is None else tuple(int(p) for p in self._file["points"])

    # -- learning ----------------------------------------------------------------
    def prepare(self, points: np.ndarray, budget_s: float, seed: int = 0) -> None:
        """Use the loaded utilities if they are of ``points``, else learn anew within
        ``budget_s``. The points and the utilities change together, once all is done: a
        refused argument or a failed learning leaves the old points with their utilities."""
        start = time.perf_counter()
        points = checked_points(points)
        seed = checked_seed(seed) & SEED_MASK  # numpy's seeds are non-negative
        budget_s = checked_budget(budget_s)
        warm_up()
        if self._file is not None and list(self._file["points"]) == points.tolist():
            self.utilities, self.counts = self._file["utilities"].copy(), self._file["counts"].copy()
            self.points, self.report, self.loaded = points, None, self._file_path
            return
        if self._file is not None:
            warnings.warn(f"{self._file_path}: utilities were learned for points {self._file['points']}, "
                          f"not {points.tolist()}; learning anew", stacklevel=2)
        # Keep a little of the budget for the caller's own bookkeeping.
        budget = max(0.0, 0.97 * budget_s - 0.1 - (time.perf_counter() - start))
        learned = learn_utilities(points, budget, seed, **self.options)
        self.utilities, self.counts, self.report = learned
        self.points, self.loaded = points, None

    def __setstate__(self, state: dict) -> None:
        # A prepared evaluator is pickled into the harness's game workers: load the
        # kernels there and then, not on the clock of the first move.
        self.__dict__.update(state)
        warm_up()

    @property
    def patterns_seen(self) -> int:
        return int((self.counts > 0).sum())

    @property
    def shapes_seen(self) -> int:
        """Patterns seen with the deck context masked off (the paper's ~60)."""
        return len(set((np.flatnonzero(self.counts) & kp.SHAPE_MASK).tolist()))

    # -- the Evaluator interface --------------------------------------------------
    def placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        """The summed utilities of the ten lines after each placement (OG's gain per
        cell plus the grid's utilities now: the same argmax as OG), exact where the
        placement fills the grid."""
        self._require_points()
        grid = checked_grid(grid)
        return self._unchecked_placement_values(grid, checked_card(card, grid))

    def _unchecked_placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        empty = np.flatnonzero(grid == -1)
        if len(empty) == 1:
            values = np.full(25, -np.inf)
            full = grid.copy()
            full[empty[0]] = card
            values[empty[0]] = float(score_grid(full, self.points))
            return values
        return kp.og_values(grid, card, self.utilities) + kp.grid_utility(grid, card, self.utilities)

    def state_value(self, grid: np.ndarray) -> float:
        """The summed utilities of the ten line patterns; the exact score of a full grid."""
        self._require_points()
        return self._unchecked_state_value(checked_grid(grid))

    def _unchecked_state_value(self, grid: np.ndarray) -> float:
        if not (grid == -1).any():
            return float(score_grid(grid, self.points))
        return float(kp.grid_utility(grid, -1, self.utilities))

    def playouts(self, grid: np.ndarray, n: int, seed: int) -> np.ndarray:
        self._require_points()
        with parallel_turn():
            return kp.og_playouts(checked_grid(grid), checked_count(n, "the number of playouts"),
                                  _kernel_seed(checked_seed(seed)),
                                  self.utilities, self.points)

    def limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int) -> np.ndarray:
        """:meth:`Evaluator.limited_playouts` in one kernel that releases the GIL
        (:func:`~pokersquares.kernels.patterns.og_limited_playouts`): a search's threads
        run their playouts at once, and a playout costs about the same whether or not it
        reaches the full grid (the generic form placed cards in Python there and switched
        to the playout kernel at the end, so its cost per card jumped as the game neared it)."""
        self._require_points()
        return self._unchecked_limited_playouts(checked_grid(grid), checked_count(n, "the number of playouts"),
                                                checked_count(depth, "the depth"), checked_seed(seed))

    def _unchecked_limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int) -> np.ndarray:
        return kp.og_limited_playouts(grid, n, depth, _kernel_seed(seed), self.utilities, self.points)

    def placement_playouts(self, grid: np.ndarray, card: int, cells: np.ndarray, n: int,
                           seed: int) -> np.ndarray:
        self._require_points()
        grid = checked_grid(grid)
        card, cells = checked_card(card, grid), checked_cells(cells, grid)
        n, seed = checked_count(n, "the number of playouts"), _kernel_seed(checked_seed(seed))
        with parallel_turn():
            return kp.og_placement_playouts(grid, card, cells, n, seed, self.utilities, self.points, self.paired)

    # -- files ----------------------------------------------------------------------
    def save(self, path: str | Path, point_system_name: str = "custom") -> None:
        if self.report is None and self.loaded is None and not self.counts.any():
            raise PokerSquaresError(f"{self.name} has learned nothing yet to save: prepare or load first")
        assert self.points is not None  # learned or loaded, for points
        write_utilities(path, self.utilities, self.counts, self.points, point_system_name,
                        self.report.to_json() if self.report else {}, self.options)

    def load(self, path: str | Path) -> "PatternEvaluator":
        """Use the utilities in ``path`` (and its point system) from now on; return self.
        As with ``PatternEvaluator(load=path)``, ``prepare`` keeps them when asked for
        the same points, and learns anew (with a warning) for other points."""
        data = read_utilities(path)
        self.utilities, self.counts = data["utilities"].copy(), data["counts"].copy()
        self.points = np.array(data["points"], dtype=np.int64)
        self.report = None
        self.loaded = str(path)
        self._file, self._file_path = data, str(path)
        return self


def _kernel_seed(seed: int) -> int:
    # The kernels mix seeds by multiplying in int64: keep them far from overflow.
    return int(seed) % (1 << 40)


def warm_up() -> None:
    """Compile or load from cache every kernel the evaluator uses (tiny inputs)."""
    grid = np.full(25, -1, dtype=np.int8)
    grid[:23] = np.arange(23)
    u = np.zeros(kp.NUM_PATTERNS)
    points = np.zeros(10, dtype=np.int64)
    kp.og_values(grid, 30, u)
    kp.grid_utility(grid, 30, u)
    with parallel_turn():
        kp.og_playouts(grid, 1, 0, u, points)
    kp.og_limited_playouts(grid, 1, 1, 0, u, points)
    for paired in (False, True):
        with parallel_turn():
            kp.og_placement_playouts(grid, 30, np.array([23, 24], dtype=np.int64), 1, 0, u, points, paired)
    kp.og_games(u, points, 1, 0)
    kp.train_games(u, np.zeros(kp.NUM_PATTERNS, dtype=np.int64), u, points, 1, 0, 1, 0.5, 0)


def write_utilities(path: str | Path, utilities: np.ndarray, counts: np.ndarray, points: np.ndarray,
                    point_system_name: str, training: dict, options: dict) -> None:
    codes = np.flatnonzero((counts > 0) | (utilities != 0))
    doc = {
        "format": FILE_FORMAT, "version": FILE_VERSION,
        "encoding": ENCODING_NAME, "encoding_version": kp.ENCODING_VERSION,
        "point_system": {"name": point_system_name, "points": [int(p) for p in points]},
        "training": {**training, "options": options},
        "patterns": [[int(c), float(utilities[c]), int(counts[c])] for c in codes],
    }
    write_atomically(path, json.dumps(doc, indent=None, separators=(",", ":")) + "\n")


def _is_archive(path: str | Path) -> bool:
    """Whether ``path`` starts as a zip archive does (an ``.npz`` evaluators save)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def read_utilities(path: str | Path) -> dict:
    """Read a utilities file: ``{"points", "utilities", "counts", "name", "training"}``."""
    if not str(path).strip():  # ``load=`` with no name: Path("") is the current folder
        raise PatternFileError("cannot read utilities file: no file named (an empty name)")
    try:
        # A pipe or a device (/dev/zero) would be waited on or read without end; a file far
        # larger than every pattern's line is not one of ours, and would be read whole.
        if Path(path).exists() and not Path(path).is_dir() and (
                not Path(path).is_file() or Path(path).stat().st_size > MAX_FILE_BYTES):
            why = "not a regular file" if not Path(path).is_file() else \
                f"{Path(path).stat().st_size:,} bytes, more than a {FILE_FORMAT} file holds"
            raise PatternFileError(f"cannot read utilities file {str(path)!r}: {why}")
        if _is_archive(path):  # a player given another's file is told which it is
            raise PatternFileError(f"{str(path)!r} is an .npz archive (a saved NARL table or TD evaluator, which "
                                   f"gettysburg, td and champion load), not a {FILE_FORMAT} file")
        doc = json.loads(Path(path).read_text())
    except OSError as e:
        raise PatternFileError(f"cannot read utilities file {str(path)!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise PatternFileError(f"{str(path)!r} is not a text file (not UTF-8), so not a {FILE_FORMAT} file") from None
    except json.JSONDecodeError as e:
        raise PatternFileError(f"{str(path)!r} is not JSON: {e}") from None
    except RecursionError:
        raise PatternFileError(f"{str(path)!r} is not a {FILE_FORMAT} file (JSON nested too deep to read)") from None
    if not isinstance(doc, dict) or doc.get("format") != FILE_FORMAT:
        raise PatternFileError(f"{str(path)!r} is not a {FILE_FORMAT} file")
    if doc.get("version") != FILE_VERSION:
        raise PatternFileError(f"{str(path)!r} has format version {doc.get('version')!r}; "
                               f"this version reads {FILE_VERSION}")
    if doc.get("encoding") != ENCODING_NAME or doc.get("encoding_version") != kp.ENCODING_VERSION:
        raise PatternFileError(f"{str(path)!r} uses pattern encoding {doc.get('encoding')!r} "
                               f"v{doc.get('encoding_version')!r}; this version uses "
                               f"{ENCODING_NAME} v{kp.ENCODING_VERSION}")
    # Each value as write_utilities writes it, not as int() or float() would read it: points
    # 0.9, "5" or true, or the text "0123456789", read as ten integers, and points that
    # round to the game's had their utilities played for it; a code given twice was
    # silently overwritten; utilities near 1e308 overflowed to inf in the kernels' sums.
    try:
        points = doc["point_system"]["points"]
        if not isinstance(points, list) or len(points) != 10 or not all(is_integer(p) for p in points):
            raise ValueError(f"a point system is 10 integers, one per hand, got {_brief(points)}")
        checked_points(np.array(points))  # integers an evaluator can hold (int64)
        if not isinstance(doc["patterns"], list):
            raise ValueError(f"patterns is a list of [code, utility, count], got {_brief(doc['patterns'])}")
        utilities = np.zeros(kp.NUM_PATTERNS)
        counts = np.zeros(kp.NUM_PATTERNS, dtype=np.int64)
        seen = np.zeros(kp.NUM_PATTERNS, dtype=bool)
        for entry in doc["patterns"]:
            if not isinstance(entry, list) or len(entry) != 3:
                raise ValueError(f"a pattern is [code, utility, count], got {_brief(entry)}")
            code, u, n = entry
            if not is_integer(code) or not 0 <= code < kp.NUM_PATTERNS:
                raise ValueError(f"pattern code {code!r} is not an integer in 0..{kp.NUM_PATTERNS - 1}")
            if seen[code]:
                raise ValueError(f"pattern {code} is listed twice")
            # NaN or infinity would decide every move, and so would a utility far beyond any line's points.
            if not is_seconds(u) or not abs(u) <= MAX_LEARNED_VALUE or not is_integer(n) or not 0 <= n < 2 ** 63:
                raise ValueError(f"pattern {code} has utility {u!r} and count {n!r}: a number within "
                                 f"±{MAX_LEARNED_VALUE:,} and a whole count >= 0")
            seen[code] = True
            utilities[code] = float(u)
            counts[code] = int(n)
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        raise PatternFileError(f"{str(path)!r} is malformed: {e}") from None
    return {"points": points, "utilities": utilities, "counts": counts,
            "name": doc["point_system"].get("name", "custom"), "training": doc.get("training", {})}
