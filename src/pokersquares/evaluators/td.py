"""TD: the NARL table plus a residual over how lines interact, learned by temporal differences.

NARL values each row and column alone and adds the ten values, so it cannot see two
columns both waiting for the same suit, or a row and a column both holding the rank
the next card may bring. This evaluator keeps the table (learned first, as
:class:`~pokersquares.evaluators.narl.NarlEvaluator` learns it) and adds weights of
features of the whole grid, in the manner of the n-tuple networks of 2048 (Szubert &
Jaśkowski 2014): one-hot indices, staged by the cards placed (Yeh et al. 2017's
multi-stage TD), each weight learned by TD(lambda) on afterstates while the greedy
policy on table plus residual plays (the table frozen). The feature groups:

- ``sizes``: how many lines hold 0, 1, 2, 3 and 4 cards (NARL's hand-size feature);
- ``suits``: for each suit and orientation, the cards on the grid, the open lines
  (1 to 4 cards) of that orientation whose cards are all of that suit, the cards
  they still need and the undealt cards of the suit;
- ``joint``: for each suit, the cards on the grid, such rows, such columns and the
  undealt cards of the suit;
- ``ranks``: for each rank an open line holds, the cards on the grid, the open rows
  and open columns holding it, its undealt cards and whether an open line holds two
  or more of it;
- ``discard`` (not in the default): the cards on the grid and the empty cells of dead
  rows and of dead columns (mixed suits, distinct ranks, no straight possible; each
  count capped at 10): room for a card that helps no line;
- ``cross`` (not in the default: −0.33 ± 0.19 paired over four learning seeds,
  docs/results.md): for each empty cell, the cards on the grid and the classes of its
  row and of its column (empty, one suit, a rank held twice or more, a straight still
  possible, dead): the two lines the one card placed there must serve;
- ``draws`` (not in the default): for each open line with distinct ranks that fit a
  straight window, the cards on the grid, row or column, its cards, the windows the
  undealt cards can still complete and its outs (the undealt cards of the ranks those
  windows miss, capped at 15). NARL's key has one bit for "a straight is still
  achievable" and sorts away which ranks the line holds, so it values an open-ended
  four-card straight (8 outs) as a gutshot (4).
- ``homes`` (not in the default): the cards on the grid and how many undealt cards
  have no home (capped at 31), or, while some empty cell's row and column are both
  empty or dead, how many such free cells (capped at 7). A line wants the cards of its
  suit (while it has one), of the ranks it holds and of the straight windows it can
  still complete; an empty or dead line wants every card; a card's home is an empty
  cell whose row and column both want it. NARL and the other groups see lines, ranks
  and suits apart; this group sees the grid's plan as a whole: the cards that can
  only arrive as a break. Level at fixed work over eight learning seeds (American
  +0.04 ± 0.06, British −0.03 ± 0.02) and its games cost 43-71 % more
  (docs/results.md, "Where each undealt card can go").
- ``pairs`` (not in the default): for each empty cell, the cards on the grid and the
  unordered pair of its row's and its column's types, an n-tuple over the two lines
  the card placed there must serve, with the deck in it: a line's type is empty, or
  its cards (1 to 4), its suits (mixed, one suit the undealt cards can no longer
  fill, one suit still live), its ranks (distinct, a pair, two pairs, three or four
  of a kind) and whether a straight window its ranks fit is still achievable (121
  types). Greedily over four learning seeds (10,000 deals, docs/results.md, "Whole
  line states jointly with their crossing lines"): American +0.09 ± 0.15 at equal
  games, British +0.09 ± 0.04 at equal games and +0.06 ± 0.03 at equal time; its
  games cost about 1.8 times as much.
- ``needs`` (not in the default): for each rank that the achievable straight windows
  of some open line miss, the cards on the grid, how many such rows and columns, and
  the undealt cards of the rank: lines that wait on the same outs, which ``draws``
  (each line's outs alone) cannot see.

Measured (American, greedy play over seeds 0..9999, fixed work): the table of 500,000
games plus 500,000 TD games scored 124.49 ± 0.30, +2.59 ± 0.30 paired over the same
table alone and +1.50 ± 0.29 over a table of 1,000,000 games; 2,000,000 + 2,000,000
games scored 124.80 ± 0.31, +2.23 ± 0.29 over a table of 4,000,000. Learned in the
same 300 s on a heavily loaded machine it was level with the table alone (-0.21 ±
0.30): there each part had fewer games than the table needs to settle. On a machine
with one other niced job (load average 2 to 4), 300 s each, one after the other: the
table alone (`gettysburg:search=greedy`) 121.53 ± 0.31, TD with half the budget to the
table 123.64 ± 0.31 (+2.11 ± 0.30 paired), with 70% (the default) 124.88 ± 0.31 (+3.35
± 0.27). A TD game costs about 1.7 NARL games.

Values keep the evaluator contract: the table's estimate of the final score plus a
residual learned toward final scores, exactly the score on a full grid (which has
no features). :func:`grid_features` is the readable reference of the features;
the kernels (:mod:`pokersquares.kernels.td`) are tested against it.
"""

from __future__ import annotations

import copy
import json
import math
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import progress
from ..errors import PokerSquaresError
from ..game import EMPTY, LINES
from ..kernels import td as K
from ..kernels.core import rng_seed
from ..machine import run_in_threads
from .base import (MAX_LEARNED_VALUE, TableKernelEvaluator, checked_budget, checked_card, checked_count, checked_grid,
                   checked_points, checked_share, checked_threads, masked_seed)
from .narl import UNREADABLE, InvalidTableError, NarlEvaluator, open_saved, read_saved, write_saved

__all__ = ["TdEvaluator", "Feature", "grid_features", "feature_index", "parse_groups", "GROUP_NAMES", "FORMAT",
           "VERSION", "saved_format", "check_saved"]

FORMAT = "pokersquares-td"
VERSION = 1


def saved_format(path) -> str | None:
    """The ``format`` a saved evaluator file declares (``"pokersquares-td"``,
    ``"pokersquares-narl"``), or None when the file has none or cannot be read."""
    if not Path(path).is_file():  # a pipe would be waited on: read_saved says what it is
        return None
    try:
        with open_saved(path) as data:
            meta = json.loads(str(data["meta"]))
    except (*UNREADABLE, TypeError, AttributeError):  # TypeError: a bare .npy array (no archive)
        return None
    return meta.get("format") if isinstance(meta, dict) else None


def check_saved(path, meta: dict, arrays: dict) -> None:
    """Check a saved TD evaluator (``meta`` and the arrays :func:`read_saved` read from
    ``path``) as :meth:`TdEvaluator.load` checks it, without loading it: the table, the
    weights and the settings; one :class:`InvalidTableError` naming the first problem."""
    try:
        TdEvaluator(threads=1)._checked_saved(meta, arrays)
        narl_meta = json.loads(str(arrays["narl_meta"]))
        if not isinstance(narl_meta, dict):
            raise ValueError("its table's meta is not a JSON object")
        NarlEvaluator._check_arrays(arrays)
        NarlEvaluator._checked_meta(narl_meta, 0)
    except (KeyError, ValueError, TypeError, IndexError, OverflowError, RecursionError) as e:
        raise InvalidTableError(f"cannot read TD evaluator {path}: {e}") from None

GROUP_NAMES = {"sizes": K.GROUP_SIZES, "suits": K.GROUP_SUITS, "joint": K.GROUP_JOINT, "ranks": K.GROUP_RANKS,
               "discard": K.GROUP_DISCARD, "cross": K.GROUP_CROSS, "draws": K.GROUP_DRAWS, "homes": K.GROUP_HOMES,
               "pairs": K.GROUP_PAIRS, "needs": K.GROUP_NEEDS}


def parse_groups(text: str) -> int:
    """The kernel's bit mask of group names joined by ``,`` or ``+`` (in a player spec,
    where commas part the parameters: ``td:groups=default+discard``); ``default`` is
    the four default groups."""
    mask = 0
    for name in filter(None, (part.strip() for part in re.split(r"[,+]", str(text)))):
        if name == "default":
            mask |= K.ALL_GROUPS
            continue
        if name not in GROUP_NAMES:
            raise PokerSquaresError(f"unknown TD feature group {name!r}; choose from {', '.join(GROUP_NAMES)} "
                                    "or default")
        mask |= GROUP_NAMES[name]
    return mask


# -- the readable reference -------------------------------------------------------------------


class Feature(NamedTuple):
    """One active feature: its group and the values it is indexed by (see the module docstring)."""

    group: str
    values: tuple[int, ...]


def _dead(line: list[int]) -> bool:
    """Mixed suits, distinct ranks, and no straight can complete it."""
    if not line:
        return False
    ranks = sorted(c % 13 for c in line)
    mixed = len({c // 13 for c in line}) > 1
    distinct = len(set(ranks)) == len(ranks)
    fits_straight = distinct and (ranks[-1] - ranks[0] <= 4 or all(r == 0 or r >= 9 for r in ranks))
    return mixed and distinct and not fits_straight


def line_class(line: list[int]) -> int:
    """The ``cross`` group's class of an open line: 0 empty, 1 one suit, 2 a rank held
    twice or more, 4 dead, 3 otherwise (a straight still possible)."""
    if not line:
        return 0
    if len({c // 13 for c in line}) == 1:
        return 1
    ranks = [c % 13 for c in line]
    if len(set(ranks)) < len(ranks):
        return 2
    return 4 if _dead(line) else 3


_WINDOWS = [set(range(low, low + 5)) for low in range(9)] + [{0, 9, 10, 11, 12}]  # ranks: 0 is the ace


def straight_windows(line: list[int], rank_left: list[int]) -> tuple[int, set[int]] | None:
    """An open line's straight windows still achievable and the ranks they miss, or None
    when it has no straight draw (empty, full, a rank held twice, ranks that fit no
    window). ``rank_left[r]``: the undealt cards of rank ``r``."""
    ranks = {c % 13 for c in line}
    if not line or len(line) >= 5 or len(ranks) < len(line):
        return None
    fitting = [w for w in _WINDOWS if ranks <= w]
    if not fitting:
        return None
    achievable = [w for w in fitting if all(rank_left[r] > 0 for r in w - ranks)]
    return len(achievable), (set().union(*achievable) - ranks if achievable else set())


def straight_draw(line: list[int], rank_left: list[int]) -> tuple[int, int] | None:
    """The ``draws`` group's (windows still achievable, outs) of an open line, or None
    when it has no straight draw: its outs are the undealt cards of the ranks its
    windows miss."""
    found = straight_windows(line, rank_left)
    if found is None:
        return None
    windows, missing = found
    return windows, sum(rank_left[r] for r in missing)


def wanted(line: list[int], rank_left: list[int]) -> set[int]:
    """The ``homes`` group's cards an open line wants (see the module docstring)."""
    if not line or _dead(line):
        return set(range(52))
    ranks = {c % 13 for c in line}
    want = set(ranks)
    if len(ranks) == len(line):  # no rank held twice: its straight windows count
        for w in _WINDOWS:
            if ranks <= w and all(rank_left[r] > 0 for r in w - ranks):
                want |= w
    suits = {c // 13 for c in line}
    return {c for c in range(52) if c % 13 in want or (len(suits) == 1 and c // 13 in suits)}


def line_type(line: list[int], undealt: set[int]) -> int:
    """The ``pairs`` group's type of an open line (fewer than five cards) given the
    undealt cards: 0 when empty, else its size, suits, ranks and straight (see the
    kernel's docstring) folded into 1..120."""
    if not line:
        return 0
    suits = {c // 13 for c in line}
    if len(suits) > 1:
        flush = 0
    else:
        flush = 2 if sum(1 for c in undealt if c // 13 in suits) >= 5 - len(line) else 1
    multiplicities = sorted(Counter(c % 13 for c in line).values())
    top = multiplicities[-1]
    ranks = 4 if top >= 4 else 3 if top == 3 else multiplicities.count(2)
    rank_left = [sum(1 for c in undealt if c % 13 == r) for r in range(13)]
    found = straight_windows(line, rank_left)
    straight = int(found is not None and found[0] > 0)
    return 1 + (((len(line) - 1) * 3 + flush) * 5 + ranks) * 2 + straight


def grid_features(grid: np.ndarray, groups: int = K.ALL_GROUPS) -> list[Feature]:
    """The active features of ``grid`` (no card in hand), in plain Python."""
    cards = [[int(grid[j]) for j in line if grid[j] != EMPTY] for line in LINES]
    n = sum(len(line) for line in cards[:5])
    if n == 25:
        return []
    undealt = set(range(52)) - {int(c) for c in grid if c != EMPTY}
    open_lines = [(i, line) for i, line in enumerate(cards) if len(line) < 5]
    out = []
    if groups & K.GROUP_SIZES:
        out.append(Feature("sizes", tuple(sum(1 for line in cards if len(line) == s) for s in range(5))))
    for suit in range(4):
        left = sum(1 for c in undealt if c // 13 == suit)
        suited = [(i, line) for i, line in open_lines if line and all(c // 13 == suit for c in line)]
        rows = [line for i, line in suited if i < 5]
        cols = [line for i, line in suited if i >= 5]
        if groups & K.GROUP_SUITS:
            for orientation, lines in ((0, rows), (1, cols)):
                out.append(Feature("suits", (n, orientation, len(lines), sum(5 - len(x) for x in lines), left)))
        if groups & K.GROUP_JOINT:
            out.append(Feature("joint", (n, len(rows), len(cols), left)))
    if groups & K.GROUP_RANKS:
        for rank in range(13):
            holding = [(i, [c % 13 for c in line].count(rank)) for i, line in open_lines]
            holding = [(i, count) for i, count in holding if count]
            if holding:
                left = sum(1 for c in undealt if c % 13 == rank)
                out.append(Feature("ranks", (n, sum(1 for i, _ in holding if i < 5),
                                             sum(1 for i, _ in holding if i >= 5), left,
                                             int(any(count >= 2 for _, count in holding)))))
    if groups & K.GROUP_DISCARD:
        room = [0, 0]
        for i, line in open_lines:
            if _dead(line):
                room[i >= 5] += 5 - len(line)
        out.append(Feature("discard", (n, min(room[0], K.DISCARD_CAP), min(room[1], K.DISCARD_CAP))))
    if groups & K.GROUP_CROSS:
        for cell in range(25):
            if grid[cell] == EMPTY:
                out.append(Feature("cross", (n, line_class(cards[cell // 5]), line_class(cards[5 + cell % 5]))))
    if groups & K.GROUP_DRAWS:
        rank_left = [sum(1 for c in undealt if c % 13 == r) for r in range(13)]
        for i, line in enumerate(cards):
            draw = straight_draw(line, rank_left)
            if draw is not None:
                out.append(Feature("draws", (n, int(i >= 5), len(line), draw[0], min(draw[1], K.OUTS_CAP))))
    if groups & K.GROUP_HOMES:
        rank_left = [sum(1 for c in undealt if c % 13 == r) for r in range(13)]
        loose = [not line or _dead(line) for line in cards]
        homes, free = set(), 0
        for cell in range(25):
            if grid[cell] == EMPTY:
                row, col = cards[cell // 5], cards[5 + cell % 5]
                homes |= wanted(row, rank_left) & wanted(col, rank_left)
                free += loose[cell // 5] and loose[5 + cell % 5]
        out.append(Feature("homes", (n, len(undealt - homes), free)))
    if groups & K.GROUP_PAIRS:
        for cell in range(25):
            if grid[cell] == EMPTY:
                types = sorted((line_type(cards[cell // 5], undealt), line_type(cards[5 + cell % 5], undealt)))
                out.append(Feature("pairs", (n, *types)))
    if groups & K.GROUP_NEEDS:
        rank_left = [sum(1 for c in undealt if c % 13 == r) for r in range(13)]
        waiting = [[0, 0] for _ in range(13)]  # per rank: rows, columns whose windows miss it
        for i, line in enumerate(cards):
            found = straight_windows(line, rank_left)
            if found is not None and found[0] > 0:
                for r in found[1]:
                    waiting[r][i >= 5] += 1
        for r, (rows_missing, cols_missing) in enumerate(waiting):
            if rows_missing + cols_missing:
                out.append(Feature("needs", (n, rows_missing, cols_missing, rank_left[r])))
    return out


def feature_index(feature: Feature) -> int:
    """The weight a feature reads (an index into the kernel's ``theta``)."""
    v = feature.values
    if feature.group == "sizes":
        return sum(count * 11 ** s for s, count in enumerate(v))
    if feature.group == "suits":
        n, orientation, lines, need, left = v
        return K.OFF_SUITS + (((n * 2 + orientation) * 6 + lines) * 21 + need) * 14 + left
    if feature.group == "joint":
        n, rows, cols, left = v
        return K.OFF_JOINT + ((n * 6 + rows) * 6 + cols) * 14 + left
    if feature.group == "discard":
        n, rows, cols = v
        return K.OFF_DISCARD + (n * (K.DISCARD_CAP + 1) + rows) * (K.DISCARD_CAP + 1) + cols
    if feature.group == "cross":
        n, row, col = v
        return K.OFF_CROSS + (n * K.N_CLASSES + row) * K.N_CLASSES + col
    if feature.group == "homes":
        n, homeless, free = feature.values
        slot = K.HOMES_CAP + min(free, K.FREE_CAP) if free else min(homeless, K.HOMES_CAP)
        return K.OFF_HOMES + n * (K.HOMES_CAP + 1 + K.FREE_CAP) + slot
    if feature.group == "needs":
        n, rows, cols, left = v
        return K.OFF_NEEDS + ((n * 6 + rows) * 6 + cols) * 5 + left
    if feature.group == "pairs":
        n, low, high = v
        return K.OFF_PAIRS + (n * K.N_LINE_TYPES + low) * K.N_LINE_TYPES + high
    if feature.group == "draws":
        n, orientation, size, windows, outs = v
        return K.OFF_DRAWS + (((n * 2 + orientation) * 4 + size - 1) * 6 + windows) * (K.OUTS_CAP + 1) + outs
    n, rows, cols, left, pair = v
    return K.OFF_RANKS + (((n * 6 + rows) * 6 + cols) * 4 + left) * 2 + pair


# -- the evaluator ------------------------------------------------------------------------------


# The largest steps and start TD takes: beyond them its weights overflowed to inf and NaN
# within a 10 s preparation (alpha=10, table_step=0.5 did; alpha=4 and table_step=0.1
# learned, on American, random:3 and Royal Flush). Within them, a learning that still
# diverges is said as such (see ``learn``).
MAX_ALPHA = 4.0
MAX_TABLE_STEP = 0.1
MAX_INIT = 10_000.0


def step_settings(alpha=None, table_step=None, tc=None) -> dict:
    """The step settings a player spec gives :class:`TdEvaluator`: those it leaves out
    (None) keep the evaluator's defaults. The spec parser has checked their types and
    the evaluator checks their ranges."""
    given = {"alpha": alpha, "table_step": table_step, "tc": tc}
    return {name: value for name, value in given.items() if value is not None}


class TdEvaluator(TableKernelEvaluator):
    """NARL's table plus a TD-learned residual over line interactions, usable by any search.

    ``groups``: the feature groups (comma-separated names); ``alpha``: the step size,
    shared among a state's active features; ``lam``: TD's lambda (0: one-step targets,
    1: the final score); ``epsilon``: share of random moves while TD learns.
    Fixed work: ``games`` NARL games (one learner, the paper's schedule), then
    ``td_games`` TD games (default: as many), a fixed number of games but not one
    replayable state unless ``threads=1``: two threads learn into the same weights, in an
    order the scheduler picks (three runs of ``td:games=2000,td_games=2000``, three
    other tables). Otherwise ``budget_share`` of the
    preparation budget learns on ``threads`` cores, ``narl_share`` of it the table
    (0.7: greedy over 10,000 American deals after 300 s, 124.88 ± 0.31 against 123.64 ±
    0.31 at 0.5, paired +1.24 ± 0.27; docs/results.md, "The TD evaluator").
    ``epsilon0``, ``decay`` and ``hand_sizes`` configure the table's learning.
    ``table_updates``: TD games also add their lines' final points to the table's
    averages (the keys it holds), so the table follows the policy that plays.
    ``table_step``: TD games also move the table's values of the line abstractions
    they meet by this step times the TD error (shared among the ten lines), learning
    table and residual jointly; 0 keeps the table as NARL learned it. 0.002 (the
    default): British +0.65 ± 0.16, American +0.09 ± 0.06 greedily at 2,000,000 table
    and 500,000 TD games, paired over four and six learning seeds (docs/results.md).
    ``tc``: temporal coherence (Jaskowski 2018): each residual weight's step is
    ``alpha`` times the coherence of the errors it has seen (``|sum| / sum of sizes``),
    large while they agree in sign and shrinking as they cancel, in place of one
    constant step for all; its sums are not saved with the weights (a loaded evaluator
    that learns on starts them afresh). The default (``tc`` with ``alpha`` 0.3, since
    ``td`` 8 and ``champion`` 13): greedily, American, +0.32 ± 0.08 over the constant
    step 0.01 at 2,000,000 table and 500,000 TD games (six learning seeds), +0.23 ±
    0.05 at half that (four); ``alpha`` 1 was unstable (docs/results.md).
    ``init``: every residual weight's start (0: none). Above 0 it is an optimistic start
    (Guei et al. 2022): a feature the learning games have not yet met adds ``init`` to a
    state's value, so the greedy learner is drawn toward the line interactions it has
    not tried, in place of (or beside) ``epsilon``'s random moves.
    """

    name = "td"
    compile_s = 32.0  # its own kernels and NARL's, which it builds on
    learns_more = True

    def __init__(self, groups: str = "sizes,suits,joint,ranks", alpha: float = 0.3, lam: float = 0.5,
                 epsilon: float = 0.0, games: int | None = None, td_games: int | None = None,
                 narl_share: float = 0.7, budget_share: float = 0.85, threads: int = 2, epsilon0: float = 0.5,
                 decay: float = 0.999975, hand_sizes: bool = True, table_updates: bool = False,
                 table_step: float = 0.002, tc: bool = True, init: float = 0.0) -> None:
        if not 0 <= alpha <= MAX_ALPHA:
            raise PokerSquaresError(f"TD needs alpha in 0..{MAX_ALPHA:g} (its step; alpha >= 0), got {alpha!r}")
        if not 0.0 <= lam <= 1.0:
            raise PokerSquaresError(f"TD needs lam in 0..1 (its lambda), got {lam!r}")
        if not 0.0 <= epsilon <= 1.0:
            raise PokerSquaresError(f"TD needs epsilon in 0..1 (the share of random moves while it learns), "
                                    f"got {epsilon!r}")
        if not 0.0 <= table_step <= MAX_TABLE_STEP:
            raise PokerSquaresError(f"table_step must be >= 0 and at most {MAX_TABLE_STEP:g}, got {table_step!r}")
        if isinstance(init, bool) or not isinstance(init, (int, float)) or not abs(init) <= MAX_INIT:
            raise PokerSquaresError(f"init must be a finite number (each residual weight's start) within "
                                    f"±{MAX_INIT:g}, got {init!r}")
        if not 0.0 < narl_share <= 1.0:
            raise PokerSquaresError(f"narl_share must be in (0, 1], got {narl_share!r}")
        threads = checked_threads(threads)
        budget_share = checked_share(budget_share, "budget_share")
        self.group_names = str(groups)
        self.groups = parse_groups(groups)
        self.alpha, self.lam, self.epsilon = float(alpha), float(lam), float(epsilon)
        self.table_updates = bool(table_updates)
        self.table_step = float(table_step)
        self.tc = bool(tc)
        self.init = float(init)
        self.games = games
        self.td_games = td_games if td_games is not None or games is None else games
        self.narl_share, self.budget_share, self.threads = float(narl_share), float(budget_share), threads
        self.narl = NarlEvaluator(epsilon0, decay, hand_sizes, games=games, threads=threads)  # points: its table's
        self.theta = np.full(K.N_WEIGHTS, self.init)
        self._new_coherence()
        self.td_games_learned = 0
        self.td_seconds = 0.0

    def _new_coherence(self) -> None:
        """Temporal coherence's per-weight sums (signed and absolute errors), or empty
        arrays for a constant step."""
        size = K.N_WEIGHTS if self.tc else 0
        self.tc_e, self.tc_a = np.zeros(size), np.zeros(size)

    @property
    def learns_within_budget(self) -> bool:
        """True unless fixed work (``games``) is asked for or a learned state was loaded."""
        return self.games is None and not getattr(self, "_loaded", False)

    @property
    def points(self) -> np.ndarray | None:
        """The point system's ``int64[10]``, the table's: one for the table and the
        residual, however it is set (``prepare``, ``load``, or by hand); None until then."""
        return self.narl.points

    @points.setter
    def points(self, points: np.ndarray | None) -> None:
        self.narl.points = points  # checked there

    def _tables(self):
        return (*self.narl._tables(), self.theta, self.groups)

    # -- learning -----------------------------------------------------------------------------
    def prepare(self, points: np.ndarray, budget_s: float, seed: int = 0) -> None:
        """Learn the table, then the residual, from scratch for ``points``."""
        start = time.perf_counter()
        points = checked_points(points)
        budget_s, seed = checked_budget(budget_s), masked_seed(seed)
        if self.keeps_loaded_state(points, "TD evaluator"):
            return
        self.points = points
        self.reset(seed)
        self._prepared = True
        try:
            if self.games is not None:
                self.narl.learn(games=self.games, show=False)
                self.learn(games=self.td_games)
            else:
                learn_s = max(0.0, budget_s * self.budget_share - 0.1)
                self.narl.learn_parallel(learn_s * self.narl_share, self.threads)
                self.learn(seconds=learn_s - (time.perf_counter() - start))
            self.warm_up()
        except BaseException:  # e.g. a diverged residual: half-learned, the state is of no points
            self.points, self._prepared = None, False
            raise

    def reset(self, seed: int = 0) -> None:
        """Forget everything learned (table and weights) for ``self.points``; learning's
        randomness restarts from ``seed``."""
        self.narl.reset(seed)
        self.theta = np.full(K.N_WEIGHTS, self.init)
        self._new_coherence()
        self.td_games_learned = 0
        self.td_seconds = 0.0
        self._seed = masked_seed(seed)

    def learn(self, seconds: float | None = None, games: int | None = None) -> dict:
        """TD learning of the residual for ``seconds`` or ``games`` on ``threads`` cores, all
        learning into the same weights. Returns figures of this call."""
        self._require_points()
        deadline = time.perf_counter() + (seconds if seconds is not None else float("inf"))
        target = games if games is not None else 1 << 62
        states = [rng_seed((self._seed * 1_000_003 + 7919 * (self.td_games_learned + 1) + k) & (2**64 - 1))
                  for k in range(self.threads)]
        start = time.perf_counter()
        played = 0
        score_sum = 0.0
        chunk = 16 if seconds is not None else 256
        with ThreadPoolExecutor(self.threads) as pool:
            while played < target and time.perf_counter() < deadline:
                share = [min(chunk, max(0, target - played - chunk * k)) for k in range(self.threads)]
                t0 = time.perf_counter()
                rest = (*self._tables(), self.table_updates, self.table_step, self.tc_e, self.tc_a)
                parts = run_in_threads(pool, [partial(K.learn_games, share[k], states[k], self.alpha, self.lam,
                                                      self.epsilon, *rest) for k in range(self.threads) if share[k]])
                score_sum += sum(r[0] for r in parts)
                played += sum(share)
                dt = time.perf_counter() - t0
                if seconds is not None:
                    left = deadline - time.perf_counter()
                    chunk = int(max(16, min(2 * chunk, chunk * 0.1 / max(dt, 1e-6), chunk * 0.9 * left / max(dt, 1e-6))))
                progress.report("learning the TD residual", self.td_games_learned + played,
                                deadline - time.perf_counter() if seconds is not None else None)
        elapsed = time.perf_counter() - start
        self.td_games_learned += played
        self.td_seconds += elapsed
        if not (np.isfinite(self.theta).all() and np.isfinite(self.narl.sums).all()
                and np.isfinite(self.narl.size_sums).all()):
            raise PokerSquaresError(f"TD's learning diverged (its values overflowed) at alpha={self.alpha:g}, "
                                    f"table_step={self.table_step:g}: take smaller steps")
        return {"games": played, "seconds": elapsed, "games_per_s": played / elapsed if elapsed else 0.0,
                "mean_score": score_sum / played if played else float("nan")}

    def learn_more(self, seconds: float) -> int:
        """More TD games for the residual, on ``threads`` cores, for at most ``seconds``
        (a learning round is timed to end within about 0.1 s of it)."""
        if seconds <= 0:
            return 0
        with progress.listening(None):  # a game's learning is not a preparation to show
            return self.learn(seconds=seconds)["games"]

    def adapted_copy(self) -> "TdEvaluator":
        """A copy that shares the table and owns its residual weights: what TD search
        (:class:`~pokersquares.search.td_search.TdSearch`) learns into during one move,
        leaving this evaluator's weights as they were."""
        twin = copy.copy(self)
        twin.theta = self.theta.copy()
        return twin

    def learn_from(self, grid: np.ndarray, card: int, games: int, seed: int, alpha: float = 0.01,
                   lam: float = 0.5) -> float:
        """TD search's learning: ``games`` games from ``grid`` with ``card`` in hand,
        moving this evaluator's residual weights (:func:`pokersquares.kernels.td.learn_from`);
        returns the sum of their final scores. The table is not changed."""
        self._require_points()
        grid = checked_grid(grid)
        return float(K.learn_from(grid, checked_card(card, grid), checked_count(games, "the number of games"),
                                  masked_seed(seed), float(alpha), float(lam), *self._tables()))

    def warm_up_copy(self) -> "TdEvaluator":
        twin = super().warm_up_copy()
        if twin.games is not None:
            twin.games = min(twin.games, 64)
            twin.narl.games = twin.games
            assert twin.td_games is not None  # games, unless given
            twin.td_games = min(twin.td_games, 64)
        twin.narl.compile_learning()
        return twin

    def warm_up(self) -> None:
        """Call each kernel once, so that the first move does not pay for loading them."""
        grid = np.full(25, EMPTY, dtype=np.int8)
        grid[0] = 0
        self.placement_values(grid, 1)
        self.best_placement_values(grid, np.arange(1, 4))
        self.limited_playouts(grid, 1, 1, 0)
        self.state_value(grid)

    # -- evaluation: TableKernelEvaluator's methods over these kernels ------------------------
    _placement_kernel = staticmethod(K.placement_values)
    _best_kernel = staticmethod(K.best_placement_values)
    _value_kernel = staticmethod(K.grid_value_td)
    _playout_kernel = staticmethod(K.playouts)
    _playout_args = (1.0, -1)  # lambda: each playout ends in its last value; the next card at random

    def limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int,
                         random_policy: bool = False, lam: float = 1.0, first: int = -1) -> np.ndarray:
        """:meth:`TableKernelEvaluator.limited_playouts`; with ``lam`` below 1 each playout
        ends in the lambda-return of the values along it; with ``first`` >= 0 the next
        card is stratified: playout ``g`` deals first the ``(first + g) % D``-th of the
        ``D`` undealt cards in card order (:func:`pokersquares.kernels.td.playouts`)."""
        if isinstance(first, bool) or not isinstance(first, (int, np.integer)) or first < -1:
            raise PokerSquaresError(f"first must be -1 (the next card at random) or a non-negative offset, got {first!r}")
        return self._checked_playouts(grid, n, depth, seed, random_policy, (float(lam), int(first)))

    def residual(self, grid: np.ndarray) -> float:
        """The weights' part of ``grid``'s value (what the residual adds to the table's)."""
        self._require_points()
        return float(K.residual(checked_grid(grid), self.theta, self.groups))

    # -- saving -------------------------------------------------------------------------------
    def save(self, path, point_system_name: str = "custom") -> None:
        """Write the table and the residual's weights to ``path`` (``.npz``): the NARL
        table's arrays (:meth:`NarlEvaluator.save`'s format), ``theta_index`` and
        ``theta`` (the non-zero weights) and a JSON ``meta`` (format, version, groups,
        what was learned, the point system, the learning settings: ``table_step`` and
        ``table_updates`` are restored by :meth:`load`)."""
        if not (getattr(self, "_prepared", False) or getattr(self, "_loaded", False)
                or self.td_games_learned > 0 or self.narl.games_learned > 0):
            raise PokerSquaresError(f"{self.name} has learned nothing yet to save: prepare or load first")
        self._require_points()  # a preparation that failed left a state of no points
        arrays = self.narl._arrays()
        arrays["narl_meta"] = arrays.pop("meta")
        theta = self.theta.copy()  # learning on another thread changes it as it is read (numpy raised)
        taken = np.flatnonzero(theta)
        arrays["theta_index"], arrays["theta"] = taken, theta[taken]
        assert self.points is not None  # _require_points
        meta = {"format": FORMAT, "version": VERSION, **self.info(),
                "point_system": {"name": point_system_name, "points": [int(p) for p in self.points]}}
        meta.pop("narl")
        write_saved(path, arrays, meta)

    def _checked_saved(self, meta: dict, arrays: dict) -> tuple:
        """The residual's weights and settings of a saved evaluator (``meta`` and arrays as
        :func:`read_saved` gives them), each checked to be what :meth:`save` writes:
        ValueError (or KeyError, TypeError) naming the first that is not. Settings a
        file saved before they were recorded lacks are this evaluator's."""
        index = np.asarray(arrays["theta_index"])
        weights = np.asarray(arrays["theta"])
        if index.dtype.kind not in "iu" or weights.dtype.kind not in "iuf" or index.shape != weights.shape or (
                index.ndim != 1) or (index.size and (index.min() < 0 or index.max() >= K.N_WEIGHTS)) or (
                not np.isfinite(weights).all()):
            raise ValueError("its weights are malformed")
        if weights.size and np.abs(weights).max() > MAX_LEARNED_VALUE:  # the kernels' sums would overflow
            raise ValueError(f"its weights must be within ±{MAX_LEARNED_VALUE:,} points, "
                             f"got {np.abs(weights).max():g}")
        theta = np.zeros(K.N_WEIGHTS)
        theta[index.astype(np.int64)] = weights
        group_names = str(meta["groups"])
        groups = parse_groups(group_names)

        def number(name, low=0.0, high=math.inf, default=None):
            value = meta[name] if default is None else meta.get(name, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not (
                    low <= value <= high):
                raise ValueError(f"{name} must be a finite number "
                                 + (f">= {low:g}" if high == math.inf else f"in [{low:g}, {high:g}]")
                                 + f", got {value!r}")
            return float(value)

        alpha, lam, epsilon = number("alpha"), number("lam", high=1.0), number("epsilon", high=1.0)
        tc = meta.get("tc", False)  # files saved before temporal coherence learned without it
        init = number("init", -math.inf, default=0.0)  # files saved before optimistic starts started at 0
        # Files saved before these were recorded keep this evaluator's settings.
        table_step = number("table_step", default=self.table_step)
        # The constructor's ranges: a loaded evaluator that learns on (learn_in_game, TD
        # search) takes these steps, and beyond them its weights overflowed (a game
        # process was killed by an index out of bounds).
        for name, value, most in (("alpha", alpha, MAX_ALPHA), ("table_step", table_step, MAX_TABLE_STEP),
                                  ("init", abs(init), MAX_INIT)):
            if value > most:
                raise ValueError(f"{name} must be at most {most:g}{' in size' if name == 'init' else ''}, "
                                 f"got {meta.get(name)!r}")
        table_updates = meta.get("table_updates", self.table_updates)
        for name, flag in (("tc", tc), ("table_updates", table_updates)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be true or false, got {flag!r}")
        td_games, td_seconds = meta["td_games_learned"], number("td_seconds")
        if isinstance(td_games, bool) or not isinstance(td_games, int) or td_games < 0:
            raise ValueError(f"td_games_learned must be a non-negative integer, got {td_games!r}")
        return (theta, group_names, groups, alpha, lam, epsilon, tc, init, table_step, table_updates, td_games,
                td_seconds)

    def load(self, path) -> "TdEvaluator":
        """Replace the table and weights by those saved at ``path``; ``prepare`` then keeps
        them when asked for the same points. Returns self."""
        meta, arrays = read_saved(path, FORMAT, VERSION, "TD evaluator")
        # Everything is read and checked before anything of this evaluator changes.
        try:
            (theta, group_names, groups, alpha, lam, epsilon, tc, init, table_step, table_updates, td_games,
             td_seconds) = self._checked_saved(meta, arrays)
            arrays["meta"] = arrays.pop("narl_meta")
            narl = copy.copy(self.narl)
            narl._restore(arrays)
        except (KeyError, ValueError, TypeError, IndexError, OverflowError, PokerSquaresError) as e:
            raise InvalidTableError(f"cannot read TD evaluator {path}: {e}") from None
        self.narl, self.theta, self.group_names, self.groups = narl, theta, group_names, groups
        self.alpha, self.lam, self.epsilon, self.tc, self.init = alpha, lam, epsilon, tc, init
        self.table_step, self.table_updates = table_step, table_updates
        self._new_coherence()
        self.td_games_learned, self.td_seconds = td_games, td_seconds
        self._loaded = True
        self.warm_up()
        return self

    def info(self) -> dict:
        return {"evaluator": self.name, "groups": self.group_names, "alpha": self.alpha, "lam": self.lam,
                "epsilon": self.epsilon, "init": self.init, "table_updates": self.table_updates,
                "table_step": self.table_step, "tc": self.tc, "narl": self.narl.info(), "td_games_learned": self.td_games_learned,
                "td_seconds": round(self.td_seconds, 3)}
