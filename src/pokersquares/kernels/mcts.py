"""Monte Carlo tree search for Poker Squares in numba: the tree lives in flat arrays.

The tree alternates *choice* nodes (a card is in hand; one child per cell it may go
to) and *chance* nodes (the card is placed; one child per next card drawn). An
iteration descends from the root, choosing cells by UCT and drawing cards uniformly
from the undealt ones, adds one node, plays the game out, and adds the final score
to every node on its path.

What an evaluator contributes comes in as two jitted functions and their parameters
(see :class:`pokersquares.evaluators.kernel.EvaluatorKernel`): ``child_values`` gives
``h`` of every child of a choice node, ``state_value`` gives ``h`` of the node itself.
They serve the pruning of choice nodes (Arrington et al. 2016: hard pruning below
``delta * h(parent)``, at most 70% of the children, else the bottom 50%; ``h`` is the
evaluator's value above its baseline, see ``_pruned``) and the
prune + random and best-move simulations. The "calc" switches compute them without
using them, to measure what the computation alone costs (the paper's Table 3).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types

from .core import empty_mask, random_bit, rng_below, rng_seed, score_grid
from .possibility import CHILD_VALUES_SIG, STATE_VALUE_SIG

__all__ = [
    "CHOICE", "CHANCE", "SELECT_UCT", "SELECT_PRUNE", "SELECT_BEST", "SIM_RANDOM", "SIM_PRUNE",
    "SIM_BEST", "Tree", "new_tree", "reset_tree", "prune_mask", "uct_value", "run_iterations",
    "root_values", "endgame_values", "playout", "mcts_reference", "CHILD_VALUES_SIG", "STATE_VALUE_SIG", "no_child_values", "no_state_value", "rng_seed",
]

CHOICE = 0  # a card is in hand; children are cells
CHANCE = 1  # the card is placed; children are the next card drawn

SELECT_UCT, SELECT_PRUNE, SELECT_BEST = 0, 1, 2
SIM_RANDOM, SIM_PRUNE, SIM_BEST = 0, 1, 2

MAX_PRUNED = 0.7  # never prune more than this share of the children...
FALLBACK_PRUNED = 0.5  # ...else prune only this share, the lowest


class Tree(NamedTuple):
    """A search tree in arrays indexed by node; node 0 is the root (a choice node)."""

    parent: np.ndarray  # int32
    kind: np.ndarray  # int8: CHOICE or CHANCE
    move: np.ndarray  # int8: the cell placed into (chance nodes), the card drawn (choice nodes)
    first_child: np.ndarray  # int32, -1 for none
    next_sibling: np.ndarray  # int32, -1 for none
    visits: np.ndarray  # int64
    total: np.ndarray  # float64: sum of final scores through the node
    allowed: np.ndarray  # int32 bit mask of cells open to selection (choice nodes)
    tried: np.ndarray  # int32 bit mask of cells with a child (choice nodes)
    ready: np.ndarray  # int8: 1 once a choice node's allowed cells are known
    size: np.ndarray  # int64[1]: nodes in use


def new_tree(capacity: int) -> Tree:
    tree = Tree(
        np.empty(capacity, np.int32), np.empty(capacity, np.int8), np.empty(capacity, np.int8),
        np.empty(capacity, np.int32), np.empty(capacity, np.int32), np.empty(capacity, np.int64),
        np.empty(capacity, np.float64), np.empty(capacity, np.int32), np.empty(capacity, np.int32),
        np.empty(capacity, np.int8), np.zeros(1, np.int64),
    )
    return tree


@njit(cache=True)
def reset_tree(tree, root_card):
    """Empty the tree down to a root choice node holding ``root_card``."""
    tree.size[0] = 0
    _add_node(tree, -1, CHOICE, root_card)


@njit(cache=True, inline="always")
def _add_node(tree, parent, kind, move):
    i = tree.size[0]
    if i >= tree.parent.shape[0]:
        return -1
    tree.size[0] = i + 1
    tree.parent[i] = parent
    tree.kind[i] = kind
    tree.move[i] = move
    tree.first_child[i] = -1
    tree.visits[i] = 0
    tree.total[i] = 0.0
    tree.allowed[i] = 0
    tree.tried[i] = 0
    tree.ready[i] = 0
    if parent >= 0:
        tree.next_sibling[i] = tree.first_child[parent]
        tree.first_child[parent] = i
    else:
        tree.next_sibling[i] = -1
    return i


# -- the evaluator's part ---------------------------------------------------------


@njit(cache=True)  # compiled at first use, for CHILD_VALUES_SIG (nothing compiles at import)
def no_child_values(grid, card, params, out):
    """A stand-in evaluator for plain UCT with random simulation: every child is 0."""
    for i in range(25):
        out[i] = 0.0 if grid[i] < 0 else -np.inf


@njit(cache=True)
def no_state_value(grid, params):
    return 0.0


@njit(cache=True)
def prune_mask(values, parent_value, delta):
    """Bit mask of the cells that survive pruning (``values`` is ``-inf`` where occupied).

    Children whose value is below ``delta * parent_value`` are pruned, unless that
    prunes more than 70% of them: then only the lowest 50% (rounded down) are.
    """
    threshold = delta * parent_value
    k = 0
    below = 0
    mask = 0
    for i in range(25):
        if values[i] == -np.inf:
            continue
        k += 1
        if values[i] < threshold:
            below += 1
        else:
            mask |= 1 << i
    if below <= MAX_PRUNED * k:
        return mask
    # Keep the cells whose place in the values' stable ascending order is at least
    # ``cutoff`` (occupied cells, -inf, come first). Ranked by counting, not np.argsort:
    # 25 cells need no sort, and numba's mergesort took seconds to compile.
    cutoff = 25 - k + int(FALLBACK_PRUNED * k)
    mask = 0
    for i in range(25):
        rank = 0
        for j in range(25):
            if values[j] < values[i] or (values[j] == values[i] and j < i):
                rank += 1
        if rank >= cutoff:
            mask |= 1 << i
    return mask


@njit(cache=True, inline="always")
def _pruned(grid, values, parent_value, delta, baseline):
    """``prune_mask`` on values above the evaluator's baseline: children (``k + 1``
    cards) lose ``baseline[k + 1]``, the parent (``k`` cards) ``baseline[k]``.
    Evaluator values estimate the final score; the paper's ``delta * h(parent)``
    is meant for a heuristic that starts at 0 on an empty grid and grows as cards
    are placed, which is the estimate minus the baseline (zeros where an evaluator
    has none). ``values`` is scratch and is changed."""
    k = 0
    for i in range(25):
        if grid[i] >= 0:
            k += 1
    shift = baseline[min(k + 1, 25)]
    for i in range(25):
        values[i] -= shift
    return prune_mask(values, parent_value - baseline[k], delta)


@njit(cache=True, inline="always")
def uct_value(mean, visits, parent_visits, cp):
    """The paper's UCT: ``mean + 2 C_p sqrt(2 ln n / n_j)``."""
    return mean + 2.0 * cp * np.sqrt(2.0 * np.log(parent_visits) / visits)


@njit(cache=True, inline="always")
def _draw(state, deck, m):
    """Move a uniformly drawn card of ``deck[:m]`` to ``deck[m - 1]`` and return it."""
    j = rng_below(state, m)
    c = deck[j]
    deck[j] = deck[m - 1]
    deck[m - 1] = c
    return c


@njit(cache=True)
def playout(grid, card, deck, m, state, simulation, calc, delta, points,
            child_values, state_value, params, baseline, values):
    """Finish the game on ``grid`` (changed in place) and return its score. ``card`` is
    the card in hand (``-1``: draw first); later cards are drawn from ``deck[:m]``."""
    empty = 0
    for i in range(25):
        if grid[i] < 0:
            empty += 1
    for _ in range(empty):
        if card < 0:
            card = _draw(state, deck, m)
            m -= 1
        if simulation == SIM_BEST:
            child_values(grid, card, params, values)
            cell = np.argmax(values)
        elif simulation == SIM_PRUNE:
            child_values(grid, card, params, values)
            cell = random_bit(state, _pruned(grid, values, state_value(grid, params), delta, baseline))
        else:
            if calc:
                child_values(grid, card, params, values)
                state_value(grid, params)
            cell = random_bit(state, empty_mask(grid))
        grid[cell] = card
        card = -1
    return score_grid(grid, points)


@njit(cache=True, inline="always")
def _ready_choice(tree, node, grid, card, selection, calc, delta, child_values, state_value, params,
                  baseline, values):
    """Decide which cells of a choice node selection may ever visit."""
    if selection == SELECT_UCT:
        if calc:
            child_values(grid, card, params, values)
            state_value(grid, params)
        tree.allowed[node] = empty_mask(grid)
    elif selection == SELECT_PRUNE:
        child_values(grid, card, params, values)
        tree.allowed[node] = _pruned(grid, values, state_value(grid, params), delta, baseline)
    else:  # best move: the single best child
        child_values(grid, card, params, values)
        tree.allowed[node] = 1 << np.argmax(values)
    tree.ready[node] = 1


# The evaluator's functions arrive as typed function pointers, so that this kernel is
# compiled once for every evaluator and cached on disk (numba cannot cache a kernel
# specialised on a particular jitted function). A signature given to ``njit`` compiles
# at once, so the kernel is made on its first call, not when the module is imported
# (on an empty cache that took 7 s of every command's start).
@functools.cache
def _run_kernel():
    signature = types.int64(
        typeof(new_tree(1)), types.int8[::1], types.int8[::1], types.int64, types.uint64[::1],
        types.int64, types.int64, types.boolean, types.boolean, types.float64, types.float64,
        types.float64, types.float64, types.int64[::1],
        types.FunctionType(types.void(types.int8[::1], types.int64, types.float64[::1], types.float64[::1])),
        types.FunctionType(types.float64(types.int8[::1], types.float64[::1])), types.float64[::1],
        types.float64[::1],
    )
    # nogil: a search runs for up to its whole thinking time in one call; a web server
    # thinking in a worker thread keeps answering meanwhile.
    return njit(signature, cache=True, nogil=True)(_run_iterations)


def run_iterations(tree, root_grid, root_deck, n_iterations, state,
                   selection, simulation, select_calc, simulate_calc, cp, delta, squash_lo, squash_hi,
                   points, child_values, state_value, params, baseline):
    """Run ``n_iterations`` iterations on ``tree`` from ``root_grid`` (the root's card
    is ``tree.move[0]``; ``root_deck`` holds the undealt cards without it). Scores are
    squashed to ``(s - squash_lo) / (squash_hi - squash_lo)`` for UCT when
    ``squash_hi > squash_lo``. ``baseline[k]`` is what pruning subtracts from the
    value of a grid holding ``k`` cards (see ``_pruned``). Returns how many nodes the
    tree gained."""
    return _run_kernel()(tree, root_grid, root_deck, n_iterations, state, selection, simulation, select_calc,
                         simulate_calc, cp, delta, squash_lo, squash_hi, points, child_values, state_value,
                         params, baseline)


def _run_iterations(tree, root_grid, root_deck, n_iterations, state,
                    selection, simulation, select_calc, simulate_calc, cp, delta, squash_lo, squash_hi,
                    points, child_values, state_value, params, baseline):
    # The kernel behind run_iterations (compiled by _run_kernel).
    grid = np.empty(25, dtype=np.int8)
    deck = np.empty(52, dtype=np.int8)
    path = np.empty(64, dtype=np.int64)
    values = np.empty(25)
    m0 = root_deck.shape[0]
    squash = squash_hi > squash_lo
    scale = 1.0 / (squash_hi - squash_lo) if squash else 1.0
    size_before = tree.size[0]
    for _ in range(n_iterations):
        # Loops, not slice assignments: those compile their error message (seconds, cold).
        for i in range(25):
            grid[i] = root_grid[i]
        for i in range(m0):
            deck[i] = root_deck[i]
        m = m0
        node = 0
        card = tree.move[0]
        depth = 0
        path[0] = 0
        # -- selection and expansion --
        while True:
            if tree.kind[node] == CHOICE:
                if not tree.ready[node]:
                    _ready_choice(tree, node, grid, card, selection, select_calc, delta,
                                  child_values, state_value, params, baseline, values)
                untried = tree.allowed[node] & ~tree.tried[node]
                if untried != 0:
                    cell = random_bit(state, untried)
                    child = _add_node(tree, node, CHANCE, cell)
                    if child < 0:
                        break  # the tree is full: play out from here
                    tree.tried[node] |= 1 << cell
                    grid[cell] = card
                    card = -1
                    depth += 1
                    path[depth] = child
                    break
                parent_visits = tree.visits[node]
                best = -1
                best_u = -np.inf
                child = tree.first_child[node]
                while child >= 0:
                    mean = tree.total[child] / tree.visits[child]
                    if squash:
                        mean = (mean - squash_lo) * scale
                    u = uct_value(mean, tree.visits[child], parent_visits, cp)
                    if u > best_u:
                        best_u = u
                        best = child
                    child = tree.next_sibling[child]
                grid[tree.move[best]] = card
                card = -1
                node = best
                depth += 1
                path[depth] = node
            else:
                if empty_mask(grid) == 0:
                    break  # the game is over
                card = _draw(state, deck, m)
                m -= 1
                child = tree.first_child[node]
                while child >= 0 and tree.move[child] != card:
                    child = tree.next_sibling[child]
                if child < 0:
                    child = _add_node(tree, node, CHOICE, card)
                    if child >= 0:
                        depth += 1
                        path[depth] = child
                    break
                node = child
                depth += 1
                path[depth] = node
        # -- simulation --
        score = float(playout(grid, card, deck, m, state, simulation, simulate_calc, delta, points,
                              child_values, state_value, params, baseline, values))
        # -- backpropagation --
        for d in range(depth + 1):
            tree.visits[path[d]] += 1
            tree.total[path[d]] += score
    return tree.size[0] - size_before


@njit(cache=True)
def root_values(tree, by_visits):
    """``float64[25]``: per cell, the mean final score of the root's child there (or its
    visit count when ``by_visits``), ``-inf`` for cells without a child."""
    out = np.full(25, -np.inf)
    child = tree.first_child[0]
    while child >= 0:
        n = tree.visits[child]
        if n > 0:
            out[tree.move[child]] = float(n) if by_visits else tree.total[child] / n
        child = tree.next_sibling[child]
    return out


@njit(cache=True)
def endgame_values(grid, card, points):
    """``float64[25]``: with two cells empty, the exact expected final score of putting
    ``card`` in each (the last card uniform over the undealt ones), ``-inf`` elsewhere."""
    out = np.full(25, -np.inf)
    on_grid = np.zeros(52, dtype=np.bool_)
    for i in range(25):
        if grid[i] >= 0:
            on_grid[grid[i]] = True
    on_grid[card] = True
    work = grid.copy()
    for cell in range(25):
        if work[cell] >= 0:
            continue
        other = -1
        for j in range(25):
            if j != cell and work[j] < 0:
                other = j
        work[cell] = card
        total = 0.0
        n = 0
        for c in range(52):
            if not on_grid[c]:
                work[other] = c
                total += score_grid(work, points)
                n += 1
        work[other] = -1
        work[cell] = -1
        out[cell] = total / n
    return out


# -- the readable reference ---------------------------------------------------------------

_MASK64 = (1 << 64) - 1


class _ReferenceRng:
    """The kernels' generator (splitmix64 seeding, xorshift64*) in plain Python."""

    def __init__(self, seed: int) -> None:
        z = (seed + 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        self.x = (z ^ (z >> 31)) or 1

    def below(self, n: int) -> int:
        x = self.x
        x ^= x >> 12
        x ^= (x << 25) & _MASK64
        x ^= x >> 27
        self.x = x
        return (((x * 0x2545F4914F6CDD1D) & _MASK64) >> 32) * n >> 32

    def pick(self, cells: list[int]) -> int:
        """A uniformly random one of ``cells`` (ascending)."""
        return cells[self.below(len(cells))]


class _Node:
    def __init__(self, kind: int, move: int) -> None:
        self.kind, self.move = kind, move
        self.children: list[_Node] = []  # newest first, as the kernel walks them
        self.visits, self.total = 0, 0.0
        self.allowed: set[int] | None = None
        self.tried: set[int] = set()


def _prune_reference(values: list[float], parent: float, delta: float) -> set[int]:
    open_cells = [i for i in range(25) if values[i] != -math.inf]
    kept = {i for i in open_cells if values[i] >= delta * parent}
    if len(open_cells) - len(kept) <= MAX_PRUNED * len(open_cells):
        return kept
    ranked = sorted(open_cells, key=lambda i: values[i])  # stable: ties keep cell order
    return set(ranked[int(FALLBACK_PRUNED * len(open_cells)):])


def mcts_reference(grid, card: int, n_iterations: int, seed: int, selection: int, simulation: int,
                   cp: float, delta: float, points, evaluator, baseline) -> dict[int, tuple[int, float]]:
    """``run_iterations`` on a fresh tree, in plain Python: the same rules and the same
    random numbers, without capacity limits, squashing or the "calc" switches.
    ``evaluator`` provides ``placement_values`` and ``state_value``. Returns, per root
    child's cell, its visits and total score."""
    from ..game import LINES
    from ..hands import classify

    rng = _ReferenceRng(seed)
    root = _Node(CHOICE, card)
    on_grid = {int(c) for c in grid if c >= 0} | {card}
    root_deck = [c for c in range(52) if c not in on_grid]

    def cards_on(g):
        return sum(1 for c in g if c >= 0)

    def values_above_baseline(g, c) -> tuple[list[float], float]:
        k = cards_on(g)
        values = [v - baseline[min(k + 1, 25)] for v in evaluator.placement_values(np.array(g, dtype=np.int8), c)]
        return values, evaluator.state_value(np.array(g, dtype=np.int8)) - baseline[k]

    def draw(deck, m):
        j = rng.below(m)
        deck[j], deck[m - 1] = deck[m - 1], deck[j]
        return deck[m - 1]

    def empty_cells(g):
        return [i for i in range(25) if g[i] < 0]

    child: _Node | None
    for _ in range(n_iterations):
        g = [int(c) for c in grid]
        deck, m = list(root_deck), len(root_deck)
        node, c, path = root, card, [root]
        while True:
            if node.kind == CHOICE:
                if node.allowed is None:
                    if selection == SELECT_UCT:
                        node.allowed = set(empty_cells(g))
                    elif selection == SELECT_PRUNE:
                        node.allowed = _prune_reference(*values_above_baseline(g, c), delta)
                    else:
                        values = evaluator.placement_values(np.array(g, dtype=np.int8), c)
                        node.allowed = {int(np.argmax(values))}
                untried = sorted(node.allowed - node.tried)
                if untried:
                    cell = rng.pick(untried)
                    child = _Node(CHANCE, cell)
                    node.children.insert(0, child)
                    node.tried.add(cell)
                    g[cell], c = c, -1
                    path.append(child)
                    break
                best, best_u = None, -math.inf
                for child in node.children:
                    u = child.total / child.visits + 2.0 * cp * math.sqrt(2.0 * math.log(node.visits) / child.visits)
                    if u > best_u:
                        best, best_u = child, u
                assert best is not None  # every move tried: the node has children
                g[best.move], c = c, -1
                node = best
                path.append(node)
            else:
                if not empty_cells(g):
                    break
                c = draw(deck, m)
                m -= 1
                child = next((ch for ch in node.children if ch.move == c), None)
                if child is None:
                    child = _Node(CHOICE, c)
                    node.children.insert(0, child)
                    path.append(child)
                    break
                node = child
                path.append(node)
        for _ in range(len(empty_cells(g))):
            if c < 0:
                c = draw(deck, m)
                m -= 1
            if simulation == SIM_BEST:
                cell = int(np.argmax(evaluator.placement_values(np.array(g, dtype=np.int8), c)))
            elif simulation == SIM_PRUNE:
                cell = rng.pick(sorted(_prune_reference(*values_above_baseline(g, c), delta)))
            else:
                cell = rng.pick(empty_cells(g))
            g[cell], c = c, -1
        final = float(sum(points[classify([g[i] for i in line])] for line in LINES))
        for n in path:
            n.visits += 1
            n.total += final
    return {child.move: (child.visits, child.total) for child in root.children}
