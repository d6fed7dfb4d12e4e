"""``openspiel:mcts``: OpenSpiel's ``MCTSBot`` playing ``python_poker_squares`` (see
:mod:`pokersquares.openspiel`) under the harness's clocks.

The bot searches the OpenSpiel game, chance nodes included. Its leaves are judged by
OpenSpiel's ``RandomRolloutEvaluator`` (``evaluator=random``, the default) or by greedy
playouts of one of this toolkit's evaluators wrapped as an OpenSpiel evaluator
(``evaluator=possibility|narl|patterns``): both return final scores, the scale of the
game's returns. Each move's time is given by the :class:`~.move_clock.MoveClock`
every player shares its game's clock with; the search stops at that deadline
(checked before every simulation, and between a leaf's random rollouts).

Needs the ``openspiel`` extra (``pip install 'pokersquares[openspiel]'``).
"""

from __future__ import annotations

import gc
import importlib.util
import math
import time
from typing import Any

import numpy as np

from ..cards import Card, is_integer, is_seconds
from ..errors import PokerSquaresError, UnknownPlayerError
from ..game import EMPTY
from ..harness.player import BasePlayer
from .catalog import register_player, register_player_family
from .move_clock import MoveClock

__all__ = ["OpenSpielMCTSPlayer"]

AVAILABLE = importlib.util.find_spec("pyspiel") is not None
# 1,000 random rollouts from the empty grid take about a second, so a leaf's random
# rollouts stop at the move's deadline (after the first): run whole, rollouts=1000 took
# 1.2 s of a 1 s game (a timeout's penalty). rollouts=2**62 never returned from the first
# leaf, and evaluator=narl asked for an array that size, in every game.
MAX_ROLLOUTS = 1000
DESCRIPTION = ("OpenSpiel's MCTSBot on python_poker_squares, leaves judged by random rollouts "
               "(evaluator=random) or a toolkit evaluator's greedy playouts (evaluator=possibility|narl|patterns)")


class _TimeUp(Exception):
    pass


def _make_bot(game, uct_c: float, evaluator, seed: int):
    from open_spiel.python.algorithms import mcts

    class TimedMCTSBot(mcts.MCTSBot):
        """MCTSBot whose search stops at ``deadline``; ``root`` keeps what it found."""

        deadline = math.inf
        root = None

        def _apply_tree_policy(self, root, state):
            self.root = root
            if time.perf_counter() >= self.deadline:
                raise _TimeUp
            return super()._apply_tree_policy(root, state)

    # MCTS-Solver (solve=True) stays: its proven nodes steer the search (without it,
    # 200 American deals at 1 s a game scored 8.72 ± 1.96 less, paired). Its choice of a
    # move does not (_most_visited).
    return TimedMCTSBot(game, uct_c, max_simulations=10**9, evaluator=evaluator,
                        random_state=np.random.RandomState(seed))


def _most_visited(root) -> int:
    """The move to play: the root's most visited child. Not MCTSBot's ``best_child``,
    which is made for wins and losses: it ranks a proven child by its score and an
    unproven one as 0, so a move proven to score 110 (a chance node is proven when every
    card dealt next scores the same) was played over one expected to score 115."""
    return int(max(root.children, key=lambda c: (c.explore_count, c.total_reward)).action)


def _random_rollouts(rollouts: int, seed: int):
    """OpenSpiel's ``RandomRolloutEvaluator`` whose leaf stops its rollouts at
    ``deadline`` (after the first), its value the mean of those it played."""
    from open_spiel.python.algorithms import mcts

    class TimedRolloutEvaluator(mcts.RandomRolloutEvaluator):
        deadline = math.inf

        def evaluate(self, state):
            total, played = None, 0
            for _ in range(self.n_rollouts):
                working_state = state.clone()
                while not working_state.is_terminal():
                    if working_state.is_chance_node():
                        actions, probs = zip(*working_state.chance_outcomes())
                        action = self._random_state.choice(actions, p=probs)
                    else:
                        action = self._random_state.choice(working_state.legal_actions())
                    working_state.apply_action(action)
                returns = np.array(working_state.returns())
                total = returns if total is None else total + returns
                played += 1
                if time.perf_counter() >= self.deadline:
                    break
            return total / played

    return TimedRolloutEvaluator(rollouts, np.random.RandomState(seed))


def _toolkit_evaluator(evaluator, rollouts: int):
    """This toolkit's evaluator as an OpenSpiel one: a leaf's value is the mean final
    score of ``rollouts`` playouts by the evaluator's greedy policy (the card in hand,
    if any, placed greedily first)."""
    from open_spiel.python.algorithms import mcts

    from ..kernels.core import score_grid
    from ..openspiel import grid_of

    class ToolkitEvaluator(mcts.Evaluator):
        def __init__(self):
            self.calls = 0

        def evaluate(self, state):
            grid = grid_of(state)
            if state.card is not None:
                grid[evaluator.greedy_cell(grid, state.card)] = state.card
            if not (grid == EMPTY).any():
                return [float(score_grid(grid, evaluator.points))]
            self.calls += 1
            return [float(np.mean(evaluator.playouts(grid, rollouts, self.calls)))]

        def prior(self, state):
            if state.is_chance_node():
                return state.chance_outcomes()
            legal = state.legal_actions()
            return [(a, 1.0 / len(legal)) for a in legal]

    return ToolkitEvaluator()


class OpenSpielMCTSPlayer(BasePlayer):
    """``evaluator``: random (OpenSpiel's random rollouts) or a toolkit evaluator's name;
    ``rollouts``: playouts per leaf; ``uct_c``: UCT's exploration constant, in points
    (default: a fifth of the point system's largest absolute value, 20 for American)."""

    name = "openspiel:mcts"
    version = "5"  # 5: a leaf's random rollouts stop at the move's deadline, the most visited move played (MCTS-Solver's choice put a proven move over a better unproven one); 4: the tree freed before the collector is back on; 3: no cyclic garbage collection during a search; 2: the shared MoveClock (was: 90% of an even share of the time left, less the largest overshoot)

    def __init__(self, evaluator: str = "random", rollouts: int = 1, uct_c: float | None = None) -> None:
        super().__init__()
        if not AVAILABLE:
            raise PokerSquaresError("openspiel:mcts needs the openspiel extra: pip install 'pokersquares[openspiel]'")
        from .hybrid import EVALUATORS
        if evaluator != "random" and evaluator not in EVALUATORS:
            raise PokerSquaresError(f"unknown evaluator {evaluator!r}; choose random or one of {', '.join(EVALUATORS)}")
        if not is_integer(rollouts) or not 1 <= rollouts <= MAX_ROLLOUTS:
            raise PokerSquaresError(f"rollouts must be a whole number of rollouts a leaf from 1 to {MAX_ROLLOUTS}, "
                                    f"got {rollouts!r}")
        # A negative c made UCT avoid the children it knew least; NaN or text failed at the preparation.
        if uct_c is not None and not (is_seconds(uct_c) and 0 <= uct_c < math.inf):
            raise PokerSquaresError(f"uct_c must be a finite number >= 0 (UCT's exploration, in points), got {uct_c!r}")
        self.evaluator_name = evaluator
        self.rollouts = int(rollouts)
        self.uct_c = uct_c
        self._toolkit = None if evaluator == "random" else EVALUATORS[evaluator]()
        self._bot: Any = None  # an OpenSpiel MCTSBot once prepared
        self.clock = MoveClock()
        self.simulations = 0  # in the last search, for benchmarks
        self.fallback_moves = 0  # this game's moves left unsearched for lack of time

    def warm_up(self) -> None:
        from ..openspiel import load
        from ..points import AMERICAN

        super().warm_up()  # the position check every move makes
        # One game to its end through the game object, as the search's rollouts play:
        # its returns are scored by a kernel, whose first call in a process loads numba
        # itself (half a second that must not fall inside a game's clock).
        state = load(AMERICAN).new_initial_state()
        while not state.is_terminal():
            state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0])
        state.returns()
        if self._toolkit is not None:
            import copy
            ev = copy.deepcopy(self._toolkit)
            ev.prepare(np.array(AMERICAN.points, dtype=np.int64), 0.0, 0)
            ev.playouts(np.full(25, EMPTY, dtype=np.int8), 1, 0)  # compiles its kernels
            ev.greedy_cell(np.full(25, EMPTY, dtype=np.int8), 0)

    def prepare(self, budget_s: float) -> None:
        from ..openspiel import load
        assert self.point_system is not None  # set_point_system
        self.game = load(self.point_system)
        if self._toolkit is not None:
            self._toolkit.prepare(self.points, budget_s, self.seed)
            leaf = _toolkit_evaluator(self._toolkit, self.rollouts)
        else:
            leaf = _random_rollouts(self.rollouts, self.seed)
        uct_c = self.uct_c if self.uct_c is not None else max(0.2, 0.2 * float(np.abs(self.points).max()))
        self._bot = _make_bot(self.game, float(uct_c), leaf, self.seed)

    def set_seed(self, seed: int) -> None:
        super().set_seed(seed)
        if self._bot is not None:
            self._bot._random_state.seed(seed % 2**32)
            if hasattr(self._bot.evaluator, "_random_state"):
                self._bot.evaluator._random_state.seed(seed % 2**32)

    def start_game(self) -> None:
        super().start_game()
        self.clock.start_game()
        self.fallback_moves = 0

    def _state(self, grid: np.ndarray, card: Card):
        """The OpenSpiel state of this position: the grid's cards dealt and placed, then ``card`` dealt."""
        state = self.game.new_initial_state()
        for cell in np.flatnonzero(grid != EMPTY):
            state.apply_action(int(grid[cell]))
            state.apply_action(int(cell))
        state.apply_action(int(card))
        return state

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        # Unprepared, this was an AttributeError of the bot; a grid given as a list, or full,
        # a clock's ValueError; a card on the grid or a grid of 24 cells got a cell.
        grid, card = self.checked_position(grid, card)
        empty = np.flatnonzero(grid == EMPTY)
        if len(empty) == 1:
            return int(empty[0])
        budget = self.clock.budget(seconds_left, len(empty) - 1)  # the last move is free
        cell = None
        self.simulations = 0
        if budget > 0.0:
            bot = self._bot
            bot.deadline = bot.evaluator.deadline = time.perf_counter() + budget
            # The search allocates a Python object per node and state. With the cyclic
            # collector on, a process with a large heap (a long test session, the web app)
            # can run a full collection in the middle of a move. It is off during the
            # search, and the tree (which holds no cycles) is freed by reference counting
            # before it is turned back on: a tree still alive then would be counted as
            # new objects, and the first allocation after would run a full collection of
            # the whole heap inside the move (50 ms in a small process, 0.1 s and more in
            # CI's test session: 1.10 s of a 1 s game, 2026-11-26).
            collecting = gc.isenabled()
            gc.disable()
            try:
                try:
                    root = bot.mcts_search(self._state(grid, card))
                except _TimeUp:
                    root = bot.root
                self.simulations = 0 if root is None else root.explore_count
                if root is not None and root.children and root.explore_count > 0:
                    cell = _most_visited(root)
            finally:
                bot.root = root = None
                if collecting:
                    gc.enable()
        if cell is None:
            self.fallback_moves += 1
            cell = (self._toolkit.greedy_cell(grid, card) if self._toolkit is not None else int(empty[0]))
        if budget > 0.0:
            self.clock.move_done()
        return cell

if AVAILABLE:
    register_player("openspiel:mcts", DESCRIPTION)(OpenSpielMCTSPlayer)
else:
    def _needs_extra(member: str):
        raise UnknownPlayerError(f"openspiel:{member} needs the openspiel extra: pip install 'pokersquares[openspiel]'")

    register_player_family("openspiel", _needs_extra)
