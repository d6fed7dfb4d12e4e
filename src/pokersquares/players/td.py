"""``td``: the TD evaluator (NARL's table plus a residual over line interactions learned
by temporal differences, :mod:`pokersquares.evaluators.td`) with one of GettysburgPlayer's
searches, e.g. ``td:search=greedy,games=1000000`` (fixed work: a million games of the
table, a million of TD) for measuring the evaluation alone.
"""

from __future__ import annotations

from ..errors import PokerSquaresError
from ..evaluators.td import TdEvaluator, step_settings
from ..search.td_search import TdSearch, episodes_option
from .catalog import register_player
from .composed import SearchPlayer
from .gettysburg import make_search

__all__ = ["td"]


@register_player("td", "NARL table + a TD-learned residual over line interactions; search=expectimax|greedy|"
                 "depth_mc|flat_ucb, groups=A+B (sizes, suits, joint, ranks, discard, cross, draws, homes, pairs, needs; default), alpha=, lam=, games=N (table games), td_games=N, narl_share=, threads=, "
                 "table_updates=true (TD games keep the table's averages learning), table_step= (TD games learn "
                 "the table's line values too), tc=true|false (temporal-coherence step sizes), epsilon= (random moves while it learns), init= (each residual weight's start), tdsearch=N (TD search: before each move "
                 "the residual learns on N games from the position, then the search decides on it), load=FILE (a saved TD evaluator: pokersquares train --player td)",
                 cores=2)
def td(search: str = "greedy", groups: str = "sizes,suits,joint,ranks", alpha: float | None = None, lam: float = 0.5,
       epsilon: float = 0.0, games: int | None = None, td_games: int | None = None, narl_share: float = 0.7,
       threads: int = 2, load: str | None = None, table_updates: bool = False, table_step: float | None = None,
       tc: bool | None = None, tdsearch: int = 0, init: float = 0.0, time_per_game: float | None = None) -> SearchPlayer:
    """Build the player (see :class:`~pokersquares.evaluators.td.TdEvaluator` for the options)."""
    for name, value in (("games", games), ("td_games", td_games)):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise PokerSquaresError(f"{name} must be a non-negative integer, got {value!r}")
    tdsearch = episodes_option(tdsearch)
    evaluator = TdEvaluator(groups=str(groups), lam=float(lam), epsilon=float(epsilon), init=init,
                            games=games, td_games=td_games, narl_share=float(narl_share), threads=threads,
                            table_updates=table_updates, **step_settings(alpha, table_step, tc))
    if load is not None:
        evaluator.load(str(load))
    chosen = make_search(str(search))
    if tdsearch:
        chosen = TdSearch(chosen, episodes=tdsearch, cores=threads)
    return SearchPlayer(evaluator, chosen, name=f"td-{search}", time_per_game=time_per_game)


# The cores one game keeps busy: ``threads`` learn in the preparation and in TD search
# (``tdsearch=``), and every other search td plays is on one core.
td.threads_are_cores = "threads"
td.version = "10"  # 10: below 0.2 s of preparation the greedy rule (no time to learn and check); 9: with a search, where the guard keeps the greedy rule, a Monte Carlo search over the rule; 8: temporal-coherence step sizes by default (tc=true, alpha=0.3); 7: faster NARL and TD kernels (same games, more of them in a budget); 6: the guard keeps the learned evaluator unless it is 2 SE behind the greedy rule; 5: table_step=0.002 by default; 4: table_step=; 3: table_updates=; 2: load=FILE
