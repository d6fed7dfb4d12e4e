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

from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types

from .core import empty_mask, random_bit, rng_below, rng_seed, score_grid
from .possibility import CHILD_VALUES_SIG, STATE_VALUE_SIG

__all__ = [
    "CHOICE", "CHANCE", "SELECT_UCT", "SELECT_PRUNE", "SELECT_BEST", "SIM_RANDOM", "SIM_PRUNE",
    "SIM_BEST", "Tree", "new_tree", "reset_tree", "prune_mask", "uct_value", "run_iterations",
    "root_values", "endgame_values", "playout", "CHILD_VALUES_SIG", "STATE_VALUE_SIG", "no_child_values", "no_state_value", "rng_seed",
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


@njit(CHILD_VALUES_SIG, cache=True)
def no_child_values(grid, card, params, out):
    """A stand-in evaluator for plain UCT with random simulation: every child is 0."""
    for i in range(25):
        out[i] = 0.0 if grid[i] < 0 else -np.inf


@njit(STATE_VALUE_SIG, cache=True)
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
    order = np.argsort(values, kind="mergesort")  # occupied cells (-inf) come first
    n_pruned = int(FALLBACK_PRUNED * k)
    mask = 0
    for j in range(25 - k + n_pruned, 25):
        mask |= 1 << order[j]
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
# specialised on a particular jitted function).
_RUN_SIG = types.int64(
    typeof(new_tree(1)), types.int8[::1], types.int8[::1], types.int64, types.uint64[::1],
    types.int64, types.int64, types.boolean, types.boolean, types.float64, types.float64,
    types.float64, types.float64, types.int64[::1],
    types.FunctionType(types.void(types.int8[::1], types.int64, types.float64[::1], types.float64[::1])),
    types.FunctionType(types.float64(types.int8[::1], types.float64[::1])), types.float64[::1],
    types.float64[::1],
)


# nogil: a search runs for up to its whole thinking time in one call; a web server
# thinking in a worker thread keeps answering meanwhile.
@njit(_RUN_SIG, cache=True, nogil=True)
def run_iterations(tree, root_grid, root_deck, n_iterations, state,
                   selection, simulation, select_calc, simulate_calc, cp, delta, squash_lo, squash_hi,
                   points, child_values, state_value, params, baseline):
    """Run ``n_iterations`` iterations on ``tree`` from ``root_grid`` (the root's card
    is ``tree.move[0]``; ``root_deck`` holds the undealt cards without it). Scores are
    squashed to ``(s - squash_lo) / (squash_hi - squash_lo)`` for UCT when
    ``squash_hi > squash_lo``. ``baseline[k]`` is what pruning subtracts from the
    value of a grid holding ``k`` cards (see ``_pruned``). Returns how many nodes the
    tree gained."""
    grid = np.empty(25, dtype=np.int8)
    deck = np.empty(52, dtype=np.int8)
    path = np.empty(64, dtype=np.int64)
    values = np.empty(25)
    m0 = root_deck.shape[0]
    squash = squash_hi > squash_lo
    scale = 1.0 / (squash_hi - squash_lo) if squash else 1.0
    size_before = tree.size[0]
    for _ in range(n_iterations):
        grid[:] = root_grid
        deck[:m0] = root_deck
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
