"""NARL's line keys refined by the lines crossing each line's empty cells, as JSON.

    python benchmarks/line_context_keys.py [--system american]
        [--games 400000] [--deals 10000] [--prior 50] [--seeds 0 1]

NARL values each row and column by its own cards and the undealt cards. This experiment
asks whether a line is worth more or less by where its empty cells lie: an empty cell
whose crossing line is dead (mixed suits, distinct ranks, no straight) takes any card
the line needs without cost, one whose crossing line is live (a pair, one suit, a
straight draw) competes for the cards dealt. The context of a line is the count of its
empty cells whose crossing line is dead and whose crossing line is empty (the count
whose crossing line is live follows: NARL's key holds the line's cards). The refined
key is NARL's key with the context in bits 38 and up.

For each learning seed, one learner plays ``--games`` games epsilon-greedily on NARL's
own table (with the hand-size feature, the paper's schedule) and records, besides
NARL's keys, the refined keys of the same states with the same final line points. Then
the contest's deals 0..deals-1 are played greedily twice on that one table: on NARL's
values, and on the refined values, each shrunk toward its NARL value as
``(sum + prior * narl) / (count + prior)``. The difference is paired on the same table
and deals: one step of policy improvement on the refined estimates. (Acting on the
refined values while learning, in a first prototype not kept, drifted to a much weaker
policy, the grid's rows and columns no longer kept for suits and ranks.)

Measured (2026-12-03, American and British, 400,000 games per table, 2 seeds, 10,000
deals): see docs/results.md "NARL's line keys refined by their crossing lines: no gain".
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from numba import njit

from pokersquares.kernels.core import (LINES_ARRAY, empty_mask, line_scores, random_bit, rng_next, rng_seed,
                                       score_grid, shuffle_prefix)
from pokersquares.kernels.narl import (_NO_CARD, NO_KEY, SIZE_TABLE_LEN, _claim, _deal, _line_sizes, _size_value,
                                       line_key, lookup, new_table, size_index)
from pokersquares.kernels.td import _dead, line_states

EMPTY, DEAD, LIVE = 0, 1, 2


@njit(cache=True)
def line_classes(grid, classes):
    """``classes[X]``: EMPTY, DEAD (the TD evaluator's dead line: mixed suits, distinct
    ranks, no straight window holds its ranks) or LIVE, for each open line X."""
    k = np.empty(10, dtype=np.int64)
    fsuit = np.empty(10, dtype=np.int64)
    counts = np.empty(10, dtype=np.int64)
    line_states(grid, k, fsuit, counts)
    for X in range(10):
        classes[X] = EMPTY if k[X] == 0 else DEAD if _dead(k[X], fsuit[X], counts[X]) else LIVE


@njit(cache=True)
def context(grid, L, classes):
    """The context field of line ``L``: 1 + its empty cells' dead and empty crossing lines
    counted (never 0, so a refined key never equals NARL's)."""
    tally = np.zeros(3, dtype=np.int64)
    for j in range(5):
        cell = LINES_ARRAY[L, j]
        if grid[cell] < 0:
            tally[classes[5 + cell % 5 if L < 5 else cell // 5]] += 1
    return np.int64(1 + tally[DEAD] + 6 * tally[EMPTY])


@njit(cache=True)
def grid_value(grid, n, points, keys, sums, counts, rank_und, suit_und, undealt, refine, prior, size_sums, size_counts,
               classes, out_keys, sizes):
    """Estimated final score, on NARL's keys or (``refine``) on the refined keys shrunk
    toward them. ``out_keys[L]`` and ``out_keys[10 + L]``: line L's NARL and refined keys."""
    line_classes(grid, classes)
    total = 0.0
    for L in range(10):
        key, hand = line_key(grid, LINES_ARRAY[L], _NO_CARD, n, L >= 5, rank_und, suit_und, undealt)
        out_keys[L] = key
        out_keys[10 + L] = NO_KEY
        if key == NO_KEY:
            total += points[hand]
            continue
        s = lookup(keys, key)
        v = points[hand] if s < 0 else sums[s] / counts[s]
        refined = key | (context(grid, L, classes) << 38)
        out_keys[10 + L] = refined
        if refine:
            s1 = lookup(keys, refined)
            if s1 >= 0:
                v = (sums[s1] + prior * v) / (counts[s1] + prior)
        total += v
    if n < 25:
        _line_sizes(grid, sizes)
        total += _size_value(size_index(sizes), size_sums, size_counts)
    return total


@njit(cache=True)
def greedy_cell(grid, card, n_after, points, keys, sums, counts, rank_und, suit_und, undealt, refine, prior,
                size_sums, size_counts, classes, out_keys, sizes):
    best = -1
    best_value = -np.inf
    for cell in range(25):
        if grid[cell] >= 0:
            continue
        grid[cell] = card
        v = grid_value(grid, n_after, points, keys, sums, counts, rank_und, suit_und, undealt, refine, prior,
                       size_sums, size_counts, classes, out_keys, sizes)
        grid[cell] = -1
        if v > best_value:
            best_value = v
            best = cell
    return best


@njit(cache=True)
def _scratch():
    """Undealt counts by rank and suit, undealt flags, line classes, keys and sizes."""
    return (np.empty(13, dtype=np.int64), np.empty(4, dtype=np.int64), np.empty(52, dtype=np.uint8),
            np.empty(10, dtype=np.int64), np.empty(20, dtype=np.int64), np.empty(10, dtype=np.int64))


@njit(cache=True)
def _new_game(grid, undealt, rank_und, suit_und):
    grid[:] = -1
    undealt[:] = 1
    rank_und[:] = 4
    suit_und[:] = 13


@njit(cache=True, nogil=True)
def learn(n_games, state, epsilon, decay, points, keys, sums, counts, used, size_sums, size_counts):
    """NARL's on-policy Monte Carlo learning (epsilon-greedy on NARL's values, the hand-size
    feature), crediting each state's refined keys with the same final line points."""
    rank_und, suit_und, undealt, classes, out_keys, sizes = _scratch()
    deck = np.arange(52)
    grid = np.empty(25, dtype=np.int8)
    rec = np.empty((25, 20), dtype=np.int64)
    rec_size = np.empty(25, dtype=np.int64)
    for game in range(n_games):
        _new_game(grid, undealt, rank_und, suit_und)
        for i in range(52):
            deck[i] = i
        shuffle_prefix(state, deck, 0, 25)
        for t in range(25):
            card = deck[t]
            _deal(card, undealt, rank_und, suit_und)
            if np.float64(rng_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < epsilon:
                cell = random_bit(state, empty_mask(grid))
            else:
                cell = greedy_cell(grid, card, t + 1, points, keys, sums, counts, rank_und, suit_und, undealt, False,
                                   0.0, size_sums, size_counts, classes, out_keys, sizes)
            grid[cell] = card
            grid_value(grid, t + 1, points, keys, sums, counts, rank_und, suit_und, undealt, False, 0.0, size_sums,
                       size_counts, classes, out_keys, sizes)
            rec[t] = out_keys
            _line_sizes(grid, sizes)
            rec_size[t] = size_index(sizes)
        line_points = line_scores(grid, points)
        final = line_points.sum()
        for t in range(25):
            for j in range(20):
                if rec[t, j] != NO_KEY:
                    s = _claim(keys, used, rec[t, j])
                    sums[s] += line_points[j % 10]
                    counts[s] += 1
                    rec[t, j] = s
                else:
                    rec[t, j] = -1
        for t in range(24):  # NARL's hand-size residual, over NARL's own keys
            est = 0.0
            for L in range(10):
                s = rec[t, L]
                est += line_points[L] if s < 0 else sums[s] / counts[s]
            size_sums[rec_size[t]] += final - est
            size_counts[rec_size[t]] += 1
        epsilon *= decay
    return epsilon


@njit(cache=True)
def play(deals, points, keys, sums, counts, refine, prior, size_sums, size_counts):
    """Final scores of greedy play of ``deals`` (one row of 25 cards per deal)."""
    rank_und, suit_und, undealt, classes, out_keys, sizes = _scratch()
    grid = np.empty(25, dtype=np.int8)
    out = np.empty(deals.shape[0])
    for d in range(deals.shape[0]):
        _new_game(grid, undealt, rank_und, suit_und)
        for t in range(25):
            card = deals[d, t]
            _deal(card, undealt, rank_und, suit_und)
            grid[greedy_cell(grid, card, t + 1, points, keys, sums, counts, rank_und, suit_und, undealt,
                             refine, prior, size_sums, size_counts, classes, out_keys, sizes)] = card
        out[d] = score_grid(grid, points)
    return out


def one_seed(seed: int, system: str, games: int, deals: int, prior: float) -> dict:
    from pokersquares.cards import deal
    from pokersquares.points import AMERICAN, BRITISH

    points = np.array({"american": AMERICAN, "british": BRITISH}[system].points, dtype=np.int64)
    keys, sums, counts, used = new_table(1 << 24)
    size_sums = np.zeros(SIZE_TABLE_LEN)
    size_counts = np.zeros(SIZE_TABLE_LEN, dtype=np.int64)
    state = rng_seed(seed)
    start = time.perf_counter()
    epsilon = 0.5
    for done in range(0, games, 1024):  # the table never fills: 500 keys a game at most
        if used[0] + 1024 * 500 > 0.7 * len(keys):
            raise SystemExit("line_context_keys: the table is too small for --games")
        epsilon = learn(min(1024, games - done), state, epsilon, 0.999975, points, keys, sums, counts, used,
                        size_sums, size_counts)
    learn_s = time.perf_counter() - start
    cards = np.array([deal(s)[:25] for s in range(deals)], dtype=np.int64)
    narl = play(cards, points, keys, sums, counts, False, prior, size_sums, size_counts)
    refined = play(cards, points, keys, sums, counts, True, prior, size_sums, size_counts)
    diff = refined - narl
    se = lambda x: float(x.std(ddof=1) / math.sqrt(len(x)))  # noqa: E731
    return {"seed": seed, "learn_seconds": round(learn_s, 1), "entries": int(used[0]),
            "narl_mean": float(narl.mean()), "narl_se": se(narl), "refined_mean": float(refined.mean()),
            "refined_se": se(refined), "paired": float(diff.mean()), "paired_se": se(diff)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--system", choices=("american", "british"), default="american")
    ap.add_argument("--games", type=int, default=400_000)
    ap.add_argument("--deals", type=int, default=10_000)
    ap.add_argument("--prior", type=float, default=50.0)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    args = ap.parse_args()
    if args.games < 1 or args.deals < 2 or not 0 <= args.prior < math.inf:
        ap.error("--games must be >= 1, --deals >= 2 and --prior a finite number >= 0")
    with ProcessPoolExecutor(min(2, len(args.seeds))) as pool:
        rows = list(pool.map(one_seed, args.seeds, *zip(*[(args.system, args.games, args.deals,
                                                            args.prior)] * len(args.seeds))))
    paired = [r["paired"] for r in rows]
    print(json.dumps({"system": args.system, "games": args.games, "deals": args.deals,
                      "prior": args.prior, "seeds": rows,
                      "paired_mean": sum(paired) / len(paired),
                      "paired_se_across_seeds": (float(np.std(paired, ddof=1) / math.sqrt(len(paired)))
                                                 if len(paired) > 1 else None)}, indent=1))


if __name__ == "__main__":
    main()
