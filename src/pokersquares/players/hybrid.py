"""Any evaluator with any search, as one named player: the pairing the 2016 report's
future work asks for ("testing a single search algorithm with each of our various
static evaluation functions").

``hybrid:evaluator=narl,search=mcts`` plays Tiger's tree search over GettysburgPlayer's
learned evaluation; ``hybrid:evaluator=possibility,search=flat_mc,cores=2`` BeeMo's
search over Tiger's heuristic. In Python it is one line as well:
``SearchPlayer(NarlEvaluator(), MCTS())``.
"""

from __future__ import annotations

from ..errors import PokerSquaresError
from ..evaluators.base import Evaluator
from ..evaluators.narl import NarlEvaluator
from ..evaluators.patterns import PatternEvaluator
from ..evaluators.possibility import PossibilityEvaluator
from .catalog import register_player
from ..search.base import GreedySearch, Search
from ..search.expectimax import Expectimax
from ..search.flat_mc import FlatMonteCarlo
from ..search.flat_ucb import DepthLimitedFlatMC, FlatUCB1
from ..search.mcts import MCTS
from .composed import SearchPlayer

__all__ = ["EVALUATORS", "SEARCHES", "hybrid"]

EVALUATORS = {
    "patterns": PatternEvaluator,       # BeeMo's learned hand patterns
    "narl": NarlEvaluator,              # GettysburgPlayer's abstracted hands
    "possibility": PossibilityEvaluator,  # Tiger's possibility heuristic
}
SEARCHES = {
    "greedy": lambda cores: GreedySearch(),
    "flat_mc": lambda cores: FlatMonteCarlo(cores=cores),   # BeeMo
    "expectimax": lambda cores: Expectimax(),               # GettysburgPlayer
    "depth_mc": lambda cores: DepthLimitedFlatMC(),
    "flat_ucb": lambda cores: FlatUCB1(),
    "mcts": lambda cores: MCTS(),                           # Tiger
}


def _pick(kind: str, name: str, table: dict):
    if name not in table:
        raise PokerSquaresError(f"unknown {kind} {name!r}; choose one of {', '.join(table)}")
    return table[name]


@register_player("hybrid", "any evaluator (patterns|narl|possibility) with any search "
                 "(greedy|flat_mc|expectimax|depth_mc|flat_ucb|mcts), e.g. hybrid:evaluator=narl,search=mcts")
def hybrid(evaluator: str = "narl", search: str = "mcts", cores: int = 1,
           time_per_game: float | None = None) -> SearchPlayer:
    """``cores`` is what the search may use (only flat_mc uses more than one)."""
    if not isinstance(cores, int) or cores < 1:
        raise PokerSquaresError(f"cores must be a positive integer, got {cores!r}")
    ev: Evaluator = _pick("evaluator", evaluator, EVALUATORS)()
    se: Search = _pick("search", search, SEARCHES)(cores)
    return SearchPlayer(ev, se, name=f"{evaluator}+{search}", time_per_game=time_per_game)


hybrid.version = "4"  # 4: the shared MoveClock; 2: every evaluator's values estimate the final score; 3: the small-budget guard
