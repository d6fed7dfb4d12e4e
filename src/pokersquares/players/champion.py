"""``champion``: the strongest player here, composed like the others.

The evaluator is :class:`~pokersquares.evaluators.td.TdEvaluator`: GettysburgPlayer's
NARL table, then a TD-learned residual over how the lines interact, both learned from
scratch within the preparation budget on both cores (nothing learned outside the clock
ships with it). Over the table alone it adds +3.35 ± 0.27 greedily (10,000 American
deals, 300 s each); at 5 s per game version 14 scores 125.23 ± 0.96 over 1,000 American
deals, +0.73 ± 0.82 paired over ``gettysburg`` (version 9: 126.39 ± 1.01, +2.39 ± 0.76),
and at the contest's 30 s 127.19 ± 1.78 over seeds 0..299 (docs/results.md);
``evaluator=narl`` is the table alone. Since version 19 a preparation of less than
``SMALL_PREP_S`` (8) seconds learns BeeMo's pattern utilities instead, which a second
teaches as well as hours do, and the search plays them to the full grid (``evaluator=auto``,
below). Since version 10 the TD games also tune the
table's line values (``table_step=0.002``; British +0.65 ± 0.16 greedily, paired over
four learning seeds at fixed work; ``table_step=0`` is version 9's evaluator). Since
version 13 each residual weight steps by temporal coherence (``tc``, Jaśkowski 2018).
The search is :class:`~pokersquares.search.halving.CrnHalving`: Monte Carlo over the
evaluator's greedy policy (playouts of 4 cards, 8 where a straight outscores a flush,
that end in the evaluator's estimate)
with common random numbers, sequential halving at the root, an early stop on clear
decisions and exact expectimax over the last cards. Why: the table played greedily is
already strong and its depth-2 expectimax used 0.03 s of a 30 s game; this search turns
the rest of the clock into playouts where the choice is close (at fixed work, +3.05 ±
1.18 over its evaluator played greedily, 500 deals). docs/results.md holds the
measurements and the ablation table.

Options for ablations: ``depth`` (cards per playout before the evaluator's estimate
ends it; ``auto`` by default since version 17, :func:`playout_depth`: 8 where a straight
scores more than a flush and more than nothing, 4 elsewhere. Depth 4 beat playouts to the
end by 5.5 ± 2.8 points paired over 100 American deals at 5 s per game; at fixed work on
the 12 contest systems depth 8 is ahead under British (+0.94 ± 0.27) and Straight (+0.07
± 0.02), level or behind elsewhere, American −0.65 ± 0.79, 1,000 deals each; Ameritish
+0.56 ± 0.39 over two evaluators; timed at 1 s on one 30 s evaluator each, 500 deals:
Straight +0.05 ± 0.03, British +0.00 ± 0.42, Ameritish −0.11 ± 0.90), ``stop_z``
(``1000``: in effect never stop early), ``exact``, ``crn``, ``halving``,
``lam`` (each playout ends in the lambda-return of the evaluator's values after each of its
cards instead of the last one; lambda 0.7 scored −0.22 ± 0.52 paired against the default
at fixed work over 2,000 deals, so 1, the last value alone, stays the default);
``stratify=true`` deals each undealt card as the playouts' next card in turn (the rest
at random): level at fixed work on one evaluator over 2,000 American deals (+0.02 ± 0.53
at 100 playouts a move, −0.07 ± 0.53 at 1,000), so it is off by default;
``symmetry``: empty cells that a symmetry of the grid (rows reordered, columns
reordered, rows and columns swapped) maps onto each other are one choice, and the search
judges one cell of each (:mod:`pokersquares.symmetry`); ``symmetry=false`` searches every
empty cell, as versions up to 17 did.
``load=FILE`` plays from a saved evaluator instead of learning: a TD evaluator
(``pokersquares train --player champion``) or a NARL table (``pokersquares train
--player gettysburg``), told apart by the file's format; a variant for ablations on one
learned state, which does not count as learning within the budget unless the file was.
``evaluator=auto`` (the default since version 19) is ``evaluator=td`` for a preparation of
``SMALL_PREP_S`` seconds or more and ``evaluator=patterns`` below (a TD setting, ``games=``
or ``load=`` given chooses the evaluator they belong to whatever the budget);
``evaluator=td`` learns the NARL table in 70% of the budget and the TD
residual in the rest (:mod:`pokersquares.evaluators.td`); ``evaluator=narl`` the table alone;
``evaluator=patterns`` BeeMo's pattern utilities (:mod:`pokersquares.evaluators.patterns`),
which learn far more from a second than the table does (after 1 s of learning their
greedy policy scored about 116-117 on American against the TD evaluator's 106-114; from
2 s on the TD evaluator is ahead, and the patterns stay near 117), with playouts to the
full grid (``depth=auto``); ``load=FILE.json`` plays saved utilities (``pokersquares train
--player beemo``). Under this search they play far better than greedily: at 1 s of
preparation and 1 s a game, 132.09 ± 3.12 on 100 American deals against version 18's
91.35 ± 2.24 (+40.74 ± 3.33 paired) and ``beemo``'s 127.75 (+4.34 ± 2.95); at 2 s
133.32 ± 3.43 (+19.46 ± 3.63 over version 18, +7.91 ± 3.38 over ``beemo``); at 4 s level
with version 18 (+0.66 ± 3.11) (docs/results.md, "BeeMo's patterns under the champion's
search").
``clock=usage`` has the clock learn what share of its budget each move of a game
takes and plan with it (:class:`~.move_clock.MoveClock`'s ``learn_usage``): the time
that clear moves leave goes to the close ones; ``clock=even`` (the default) shares the
time left evenly among the moves to come. On one saved TD evaluator at 5 s per game
(American seeds 0..199) ``clock=usage`` used 4.25 s a game against 2.40 s and scored
+0.10 ± 0.99 paired: more search time on this evaluator buys nothing that shows, so
it is not the default (docs/results.md, the ablation on one TD evaluator).
``search_from=K`` plays the evaluator's greedy move while fewer than K cards are placed,
leaving that time to the later moves, where playouts reach further towards the end; on
the same saved evaluator and deals ``search_from=10`` scored −1.34 ± 1.67 paired and
used 1.63 s a game (a move takes at most three even shares), so it is not the default.
``playouts=N`` caps each move's search at N playouts (``CrnHalving``'s ``max_playouts``):
with a clock that does not bind, the search's work, and so its games, no longer depend
on the machine's speed or load, so variants can be compared at fixed work.
``groups``: the TD residual's feature groups (:mod:`pokersquares.evaluators.td`), by
default ``default+draws`` since version 14 (``groups=default`` is version 13's): the
``draws`` group tells an open-ended straight draw from a gutshot, which NARL's table
cannot; at equal learning time, greedily over 10,000 deals and four learning seeds,
British +1.14 ± 0.12, American −0.02 ± 0.13 (docs/results.md). A loaded evaluator keeps
the groups it was learned with.
``tdsearch=N``: TD search (:class:`~pokersquares.search.td_search.TdSearch`; Silver, Sutton
and Müller 2012): before each move a copy of the TD residual learns on N games simulated
from the position (on both cores, at most half the move's budget), and the search decides
on the copy; at fixed work over 1,000 American deals it was level with greedy play over
``td`` (−0.14 ± 0.57) and did not add to this search (docs/results.md, "TD search"), so
it is off (0) by default.
``epsilon``: the share of moves the TD residual's learning games play at random
(0.02 since version 15; 0 is version 14). Greedily at fixed work, paired on the same
tables and deals over eight learning seeds: American +0.38 ± 0.20 (2,000,000 table and
500,000 TD games; the eight learners' means spread 0.10 instead of 0.58, the worst
125.11 instead of 123.92: the exploration rescues the learners that the greedy games
left stuck), British +0.24 ± 0.09 (docs/results.md, "Exploring while the TD residual
learns").
``learn_in_game=true``: at each game's last card (its cell is forced) the TD residual
goes on learning on both cores for the time the game left, less the clock's reserve
(:meth:`SearchPlayer.learn_in_leftover`); the learning carries over to the run's
next games, so a run's later games play on more learning than its first. The game's
clock pays for it: a game then uses nearly all of its budget. Each game worker learns
on its own copy of the player, so with this option a run's games depend on how they
were shared among workers and in what order; a run that resumes after an interruption
starts again from the preparation's learning.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cards import is_integer, is_seconds
from ..errors import PokerSquaresError
from ..evaluators.narl import FORMAT as NARL_FORMAT, NarlEvaluator, read_saved
from ..evaluators.base import Evaluator, checked_threads
from ..evaluators.patterns import PatternEvaluator
from ..evaluators.td import FORMAT as TD_FORMAT, TdEvaluator, saved_format, step_settings
from ..game import EMPTY
from ..hands import HandId
from .catalog import register_player
from ..points import AMERICAN
from ..search.base import Search
from ..search.endgame import exact_values
from ..search.halving import CrnHalving
from ..search.td_search import TdSearch, episodes_option
from .composed import SearchPlayer

__all__ = ["ChampionPlayer", "champion", "DEFAULT_GROUPS", "playout_depth"]

# The TD residual's feature groups (version 14 added draws: British +1.14 ± 0.12 greedily at
# equal learning time, American −0.02 ± 0.13; four learning seeds, docs/results.md).
DEFAULT_GROUPS = "default+draws"
DEFAULT_EPSILON = 0.02  # since version 15: the TD residual's learning games explore
# The NARL table's exploration schedule (gettysburg's), which the patterns evaluator does not learn by.
NARL_EPSILON0, NARL_DECAY = 0.5, 0.999975
# evaluator=auto: a preparation of fewer seconds learns BeeMo's pattern utilities, not the
# TD evaluator (docs/results.md, "BeeMo's patterns under the champion's search").
SMALL_PREP_S = 8.0
SHORT_DEPTH, LONG_DEPTH, FULL_DEPTH = 4, 8, 25  # the playouts' horizons of depth=auto (playout_depth)


class ChampionPlayer(SearchPlayer):
    """A :class:`SearchPlayer` whose warm-up also compiles the exact end game (which
    the short warm-up searches would not reach) and the learning kernel (which a
    warm-up preparation too short to learn a game would not call). Its clock is the
    :class:`~.move_clock.MoveClock` every player shares its game with; clear moves end
    early (the search's stop rule), leaving their time to later ones.

    With a ``small_evaluator`` (``evaluator=auto``, the default), a preparation of less
    than ``SMALL_PREP_S`` seconds learns and plays that one (BeeMo's pattern utilities)
    instead of the evaluator it was built with (:meth:`evaluator_for`)."""

    def __init__(self, *args, auto_depth: bool = False, small_evaluator: Evaluator | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.auto_depth = auto_depth
        self.large_evaluator = self.evaluator
        self.small_evaluator = small_evaluator

    def evaluator_for(self, budget_s: float) -> Evaluator:
        """The evaluator a preparation of ``budget_s`` seconds (the whole budget, as
        ``set_point_system`` is given it) learns and plays: the small-budget one below
        ``SMALL_PREP_S`` when there is one, else the one the player was built with."""
        if self.small_evaluator is not None and budget_s < SMALL_PREP_S:
            return self.small_evaluator
        return self.large_evaluator

    def set_point_system(self, point_system, budget_s: float) -> None:
        """Prepare the evaluator :meth:`evaluator_for` chooses for ``budget_s``. A call the
        base class refuses leaves the player as it was, with the evaluator it last prepared."""
        self.check_preparation(point_system, budget_s)
        with self._alone("set_point_system"):
            self.evaluator = self.evaluator_for(budget_s)
            super().set_point_system(point_system, budget_s)

    def prepare(self, budget_s: float) -> None:
        """Set the playouts' horizon from the point system (``depth=auto``), then learn."""
        if self.auto_depth:
            _halving(self.search).depth = playout_depth(self.points, self.evaluator)
        super().prepare(budget_s)

    def warm_up(self) -> None:
        """Both evaluators' kernels (whichever the last preparation chose), each through
        the base class's tiny preparation, searches and learning games, then the exact
        end game."""
        current = self.evaluator
        try:
            for evaluator in (self.large_evaluator, self.small_evaluator):
                if evaluator is not None:
                    self.evaluator = evaluator
                    super().warm_up()
        finally:
            self.evaluator = current
        late = np.full(25, EMPTY, dtype=np.int8)
        late[:23] = np.arange(23)
        exact_values(late, 30, np.asarray(AMERICAN.points, dtype=np.int64))


def playout_depth(points, evaluator=None) -> int:
    """The playouts' horizon for a point system (``depth=auto``, the default since
    version 17): over BeeMo's pattern utilities (``evaluator=patterns``) every playout
    plays to the full grid, as BeeMo's own search does (a pattern's utility is a
    running average of final line points, a weak estimate of a partial grid); else
    ``LONG_DEPTH`` cards where a straight scores more than a flush and more
    than nothing (British, Ameritish, single:straight), ``SHORT_DEPTH`` elsewhere. A
    straight needs five ranks in a row that a short playout rarely completes, and where
    it pays more than a flush the evaluator's estimate after 4 cards undervalues the
    draws to it (docs/results.md, "A longer horizon where a straight outscores a flush"
    and "The horizon rule timed")."""
    if isinstance(evaluator, PatternEvaluator):
        return FULL_DEPTH
    return LONG_DEPTH if points[HandId.STRAIGHT] > max(0, points[HandId.FLUSH]) else SHORT_DEPTH


def _halving(search: Search) -> CrnHalving:
    """The :class:`CrnHalving` of ``search`` (itself, or the one a TD search wraps)."""
    inner = search.inner if isinstance(search, TdSearch) else search
    assert isinstance(inner, CrnHalving)  # champion's TD search wraps its halving
    return inner


def _saved_kind(path: str, evaluator: str | None) -> str:
    """``td`` or ``narl``: which evaluator the file at ``path`` holds, told by its format.
    A file that is missing, unreadable or of another format is refused here, in
    ``read_saved``'s words, before the settings are checked against the evaluator it
    would have been (a missing file is the error to fix, not a setting)."""
    fmt = saved_format(path)
    kind = {TD_FORMAT: "td", NARL_FORMAT: "narl"}.get(fmt) if isinstance(fmt, str) else None
    if kind is None:
        names: dict[str | None, str] = {"td": "TD evaluator", "narl": "NARL table"}
        what = names.get(evaluator, "saved TD evaluator or NARL table")
        read_saved(path, TD_FORMAT if evaluator == "td" else NARL_FORMAT, 0, what)  # raises, saying why
        raise PokerSquaresError(f"cannot read {what} {path}: not a saved TD evaluator or NARL table")
    return kind


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise PokerSquaresError(f"{name} must be true or false, got {value!r}")
    return value


@register_player("champion", "the strongest agent: NARL table + TD residual learned in the budget + Monte Carlo with common "
                 "random numbers, sequential halving and an exact end game, on both cores; depth=N|auto (cards a playout "
                 "places before the evaluator's estimate; auto: 8 where a straight outscores a flush, else 4), stop_z=, "
                 "exact=, crn=, halving=, cores=, games=N (learn N games, not the budget), load=FILE (a saved TD "
                 "evaluator or NARL table; a .json file: pattern utilities), evaluator=auto|td|narl|patterns (patterns: "
                 "BeeMo's pattern utilities, playouts to the full grid; auto: patterns below 8 s of preparation, "
                 "else td), clock=even|usage, search_from=K (greedy moves while "
                 "fewer than K cards are placed), table_step= (TD also learns the table's line values), alpha= and "
                 "tc=true|false (the TD residual's step and temporal coherence), epsilon= (the share of random "
                 "moves while the TD residual learns; 0.02), init= (each TD residual weight's start; above 0 an optimistic "
                 "start), "
                 "playouts=N (at most N playouts a move: fixed work, for ablations), learn_in_game=true|false (the TD "
                 "residual goes on learning in the time each game leaves, at its last card), groups= (the TD "
                 "residual's feature groups, joined by +: default+draws), lam= (each playout ends in the "
                 "lambda-return of its values, 1: its last value), tdsearch=N (TD search: before each move the residual "
                 "learns on N games from the position, then the search decides on it; 0: off), stratify=true|false "
                 "(each round's playouts deal every undealt card as the next card in turn), symmetry=true|false (search "
                 "one empty cell of each kind the grid's symmetries make alike)", cores=2)
def champion(depth: int | str = "auto", stop_z: float = 3.0, exact: bool = True, crn: bool = True, halving: bool = True,
             cores: int = 2, time_fraction: float = 0.85, epsilon0: float = NARL_EPSILON0, decay: float = NARL_DECAY,
             games: int | None = None, load: str | None = None, evaluator: str | None = None,
             clock: str = "even", search_from: int = 0, table_step: float | None = None,
             alpha: float | None = None, tc: bool | None = None, playouts: int | None = None,
             learn_in_game: bool = False, groups: str | None = DEFAULT_GROUPS, lam: float = 1.0,
             tdsearch: int = 0, epsilon: float = DEFAULT_EPSILON, init: float = 0.0,
             stratify: bool = False, symmetry: bool = True, time_per_game: float | None = None) -> ChampionPlayer:
    """Build the player (see the module docstring for the options)."""
    # Checked here in full, not left to the spec parser: ``pretrained`` hands its options on
    # unparsed (depth=2**64 failed every game in a kernel, tc=bogus was tc=true, stop_z=true 1).
    auto_depth = isinstance(depth, str) and depth == "auto"
    if not auto_depth and (not is_integer(depth) or not 1 <= depth <= FULL_DEPTH):
        raise PokerSquaresError(f"depth must be a whole number of cards 1..{FULL_DEPTH} or auto, got {depth!r}")
    cores = checked_threads(cores, "cores")
    if not is_seconds(stop_z) or stop_z <= 0:
        raise PokerSquaresError(f"stop_z must be a positive number (1000: in effect never stop early), got {stop_z!r}")
    if not is_seconds(time_fraction) or not 0 < time_fraction <= 1:
        raise PokerSquaresError(f"time_fraction must be in (0, 1], got {time_fraction!r}")
    for name, value in (("epsilon0", epsilon0), ("decay", decay), ("epsilon", epsilon), ("init", init),
                        ("alpha", alpha), ("table_step", table_step)):
        if not (is_seconds(value) or value is None and name in ("alpha", "table_step")):
            raise PokerSquaresError(f"{name} must be a number, got {value!r}")  # its range: the evaluator's
    if games is not None and (not is_integer(games) or not 0 <= games < 2 ** 63):
        raise PokerSquaresError(f"games must be a non-negative integer, got {games!r}")
    if isinstance(search_from, bool) or not isinstance(search_from, int) or not 0 <= search_from <= 25:
        raise PokerSquaresError(f"search_from must be a whole number of cards in 0..25, got {search_from!r}")
    if playouts is not None and (not is_integer(playouts) or not 1 <= playouts < 2 ** 63):
        raise PokerSquaresError(f"playouts must be a positive whole number of playouts a move, got {playouts!r}")
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not 0 <= lam <= 1:
        raise PokerSquaresError(f"lam must be a number in 0..1 (1: each playout ends in its last value), got {lam!r}")
    tdsearch = episodes_option(tdsearch)
    if clock not in ("even", "usage"):
        raise PokerSquaresError(f"clock must be even or usage, got {clock!r}")
    if evaluator not in (None, "auto", "td", "narl", "patterns"):
        raise PokerSquaresError(f"unknown evaluator {evaluator!r}; choose auto, td, narl or patterns")
    auto = evaluator in (None, "auto")
    if evaluator == "patterns" and games is not None:
        raise PokerSquaresError("games= sets the NARL and TD learners' games; evaluator=patterns learns for the budget")
    # A .json file holds pattern utilities (train --player beemo), unless it is a saved
    # evaluator renamed: it was said to hold pattern utilities, which it did not.
    if load is not None and str(load).lower().endswith(".json") and saved_format(str(load)) is None:
        if not auto and evaluator != "patterns":
            raise PokerSquaresError(f"load={load} holds pattern utilities (a .json file), which evaluator=patterns "
                                    f"plays, not evaluator={evaluator}")
        evaluator, auto = "patterns", False
    elif load is not None:
        kind = _saved_kind(str(load), None if auto else evaluator)  # a file that cannot be read is said before any setting
        evaluator, auto = (kind if auto else evaluator), False
    if auto:
        evaluator = "td"
    td_settings = [name for name, value in (
        ("table_step", table_step), ("alpha", alpha), ("tc", None if tc is None else _flag("tc", tc)),
        ("groups", None if groups == DEFAULT_GROUPS else groups),
        ("learn_in_game", _flag("learn_in_game", learn_in_game) or None),
        ("lam", None if lam == 1 else lam), ("tdsearch", tdsearch or None),
        ("epsilon", None if epsilon == DEFAULT_EPSILON else epsilon), ("init", init or None),
        ("stratify", _flag("stratify", stratify) or None)) if value is not None]
    if evaluator in ("narl", "patterns") and td_settings:
        raise PokerSquaresError(f"{td_settings[0]} is a setting of the TD evaluator (evaluator=td), "
                                f"not of evaluator={evaluator}")
    # BeeMo's patterns learn no NARL table: its schedule given with them was ignored (epsilon0=5 too).
    table_settings = [name for name, value, default in (("epsilon0", epsilon0, NARL_EPSILON0), ("decay", decay, NARL_DECAY))
                      if value != default]
    if evaluator == "patterns" and table_settings:
        raise PokerSquaresError(f"{table_settings[0]} is a setting of the NARL table (evaluator=td or narl), "
                                f"not of evaluator=patterns")
    learned: PatternEvaluator | NarlEvaluator | TdEvaluator
    if evaluator == "patterns":
        learned = PatternEvaluator(load=None if load is None else str(load), learn_threads=cores)
    elif evaluator == "narl":
        learned = NarlEvaluator(epsilon0=float(epsilon0), decay=float(decay), games=games, threads=cores)
        if load is not None:
            learned.load(str(load))
    elif evaluator == "td":
        group_setting: dict[str, Any] = {} if groups is None else {"groups": str(groups)}
        learned = TdEvaluator(epsilon0=float(epsilon0), decay=float(decay), games=games, threads=cores,
                              **step_settings(alpha, table_step, tc),
                              **group_setting,
                              epsilon=float(epsilon), init=init)
        if load is not None:
            learned.load(str(load))
    # evaluator=auto: small preparations learn BeeMo's patterns instead; not where the learning
    # is fixed in games or a setting of the TD evaluator is given (that asks for it).
    small = PatternEvaluator(learn_threads=cores) if auto and games is None and not td_settings else None
    search: CrnHalving | TdSearch = CrnHalving(depth=SHORT_DEPTH if isinstance(depth, str) else depth, cores=cores,
                        time_fraction=float(time_fraction), stop_z=float(stop_z),
                        exact=_flag("exact", exact), crn=_flag("crn", crn), halving=_flag("halving", halving),
                        from_cards=search_from, max_playouts=playouts, lam=float(lam),
                        stratify=_flag("stratify", stratify), symmetry=_flag("symmetry", symmetry))
    if tdsearch:
        search = TdSearch(search, episodes=tdsearch, cores=cores)
    return ChampionPlayer(learned, search, name="champion", time_per_game=time_per_game,
                          learn_usage=clock == "usage", learn_in_game=learn_in_game, auto_depth=auto_depth,
                          small_evaluator=small)


champion.version = "21"  # 21: a move the clock left greedy has the next move time its playouts afresh (one stalled timing batch left every later move greedy), and an exact end game of fewer than 1,000 full grids does not set what a full grid costs (the last move's made the next game's four-card end game look too dear); 20: below 0.2 s of preparation the greedy rule (no time to learn and check); 19: evaluator=auto, a preparation of less than 8 s learns BeeMo's pattern utilities and searches them with playouts to the full grid; 18: the search judges one empty cell of each kind the grid's symmetries make alike (symmetry=true), in at least three batches a move; 17: depth=auto, playouts of 8 cards where a straight outscores a flush (British, Ameritish, Straight); 16: where the guard keeps the greedy rule, a Monte Carlo search over the rule; 15: the TD residual's learning games make a random move with probability epsilon=0.02; 14: the TD residual's groups add draws (each open line's straight windows and outs); 13: the TD residual learns with temporal-coherence step sizes (tc=true, alpha=0.3); 12: faster NARL and TD kernels (same games, more of them in a budget); 11: the guard keeps the learned evaluator unless it is 2 SE behind the greedy rule; 10: TD also learns the table's line values (table_step=0.002); 9: the TD evaluator by default; 8: the shared MoveClock (a budget too small to search counts as a fallback move); 7: the small-budget guard (players.greedy_guard); 2: its own clock sharing; 3: searches only the cells the time gives min_playouts each;
# 4: margins for a loaded machine; 5: playouts of 4 cards ending in the table's value (was: to the end);
# 6: the reserve is a share of the game's clock (v5 with exact=false timed out 2 of 6 games)
