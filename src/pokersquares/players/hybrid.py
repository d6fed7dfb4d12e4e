"""Any evaluator with any search, as one named player: the pairing the 2016 report's
future work asks for ("testing a single search algorithm with each of our various
static evaluation functions").

``hybrid:evaluator=narl,search=mcts`` plays Tiger's tree search over GettysburgPlayer's
learned evaluation; ``hybrid:evaluator=possibility,search=flat_mc,cores=2`` BeeMo's
search over Tiger's heuristic. In Python it is one line as well:
``SearchPlayer(NarlEvaluator(), MCTS())``.
"""

from __future__ import annotations

from ..cards import is_integer
from ..errors import PokerSquaresError
from ..evaluators.base import Evaluator
from ..evaluators.narl import NarlEvaluator
from ..evaluators.patterns import PatternEvaluator
from ..evaluators.possibility import PossibilityEvaluator
from ..evaluators.td import TdEvaluator
from .catalog import register_player
from ..search.base import GreedySearch, Search
from ..search.expectimax import Expectimax
from ..search.flat_mc import FlatMonteCarlo
from ..search.flat_ucb import DepthLimitedFlatMC, FlatUCB1
from ..search.halving import CrnHalving
from ..search.mcts import MCTS
from .composed import SearchPlayer

__all__ = ["EVALUATORS", "SEARCHES", "hybrid"]

# Below 20 ms a move, MCTS over a learned table plays worse than the table's greedy move:
# at 0.2 s a game (searches of about 3 ms) `hybrid` scored 85.83 ± 2.04 on American
# against 118.61 ± 2.51 with this floor (150 deals, 2 s of learning; docs/results.md).
HYBRID_MCTS_MIN_SEARCH_S = 0.02

EVALUATORS = {
    "patterns": PatternEvaluator,       # BeeMo's learned hand patterns
    "narl": NarlEvaluator,              # GettysburgPlayer's abstracted hands
    "possibility": PossibilityEvaluator,  # Tiger's possibility heuristic
    "td": TdEvaluator,                  # NARL's table + a TD-learned residual over line interactions
}
SEARCHES = {
    "greedy": lambda cores: GreedySearch(),
    "flat_mc": lambda cores: FlatMonteCarlo(cores=cores),   # BeeMo
    "expectimax": lambda cores: Expectimax(),               # GettysburgPlayer
    "depth_mc": lambda cores: DepthLimitedFlatMC(),
    "flat_ucb": lambda cores: FlatUCB1(),
    "mcts": lambda cores: MCTS(min_search_s=HYBRID_MCTS_MIN_SEARCH_S),  # Tiger
    "halving": lambda cores: CrnHalving(depth=4, cores=cores),  # the champion's
}


def _pick(kind: str, name: str, table: dict):
    if name not in table:
        raise PokerSquaresError(f"unknown {kind} {name!r}; choose one of {', '.join(table)}")
    return table[name]


@register_player("hybrid", "any evaluator (patterns|narl|possibility|td) with any search "
                 "(greedy|flat_mc|expectimax|depth_mc|flat_ucb|mcts|halving), e.g. hybrid:evaluator=narl,search=mcts")
def hybrid(evaluator: str = "narl", search: str = "mcts", cores: int = 1,
           time_per_game: float | None = None, min_search: float | None = None) -> SearchPlayer:
    """``cores`` is what the search may use (only flat_mc and halving use more than one);
    ``min_search`` the least seconds worth a search (below it the evaluator's greedy
    move is played), by default the search's own."""
    if not is_integer(cores) or cores < 1:  # numpy's integers too; not True
        raise PokerSquaresError(f"cores must be a positive integer, got {cores!r}")
    cores = int(cores)
    if min_search is not None and not (isinstance(min_search, (int, float)) and not isinstance(min_search, bool)
                                       and 0 <= min_search < 60):
        raise PokerSquaresError(f"min_search must be seconds in [0, 60), got {min_search!r}")
    ev: Evaluator = _pick("evaluator", evaluator, EVALUATORS)()
    se: Search = _pick("search", search, SEARCHES)(cores)
    if min_search is not None:
        se.min_search_s = float(min_search)
    return SearchPlayer(ev, se, name=f"{evaluator}+{search}", time_per_game=time_per_game)


def _learner_threads(params: dict) -> int:
    """The threads the evaluator of ``params`` learns on in the preparation (its own
    ``threads`` or ``learn_threads`` default; 1 for one that does not learn), which may be
    more than the one core a game's search uses (harness.spec.prep_cores)."""
    import inspect
    kind = EVALUATORS.get(params.get("evaluator", "narl"))
    if kind is None:
        return 1
    signature = inspect.signature(kind).parameters
    return max([int(signature[k].default) for k in ("threads", "learn_threads") if k in signature] or [1])


hybrid.prep_threads = _learner_threads
hybrid.version = "12"  # 12: below 0.2 s of preparation the greedy rule (no time to learn and check); 11: the patterns evaluator's limited playouts run in one kernel that releases the GIL (search=halving over patterns overran its batches); 10: where the guard keeps the greedy rule, a Monte Carlo search over the rule (not with search=greedy); 9: its td evaluator learns with temporal coherence (tc=true, alpha=0.3); 8: faster NARL and TD kernels (same games, more of them in a budget); 7: the guard keeps the learned evaluator unless it is 2 SE behind the greedy rule; 6: search=halving (the champion's CrnHalving, 4-card playouts); 5: MCTS searches of less than 20 ms are greedy moves; 4: the shared MoveClock; 2: every evaluator's values estimate the final score; 3: the small-budget guard
