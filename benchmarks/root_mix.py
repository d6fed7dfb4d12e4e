"""The champion's search values mixed at the root with flat Monte Carlo over the greedy
rule, at fixed work; JSON.

    python benchmarks/root_mix.py --load td-american.npz --deals 300 --weights 0,0.5,1 \\
        --playouts 3000 --rule-games 200 --out root-mix.jsonl

Each move (but the exact end game's, which is played as the champion plays it) goes to
the cell with the highest ``(1 - w) * champion + w * rule``: ``champion`` is each cell's
value from ``CrnHalving`` over the loaded TD evaluator with ``--playouts`` playouts a
move (no halving and no early stop, so that every candidate cell has a value; a 10 s clock
that the cap reaches first), ``rule``
each cell's mean final score over ``--rule-games`` games of the greedy rule on the same
sampled deals (``greedy_mc``'s values); with ``--align``, the rule turned to make its
flushes in rows when the evaluator's greedy games do (a learner settles on one
orientation; the rule keeps suits to columns). ``w = 0`` is the champion's search,
``w = 1`` greedy_mc. Game i is dealt from seed i; every weight plays the same deals, and the
differences to the first weight are paired. Each finished game is appended to
``--out`` (JSON lines), so a rerun resumes.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path

import numpy as np

from pokersquares.cards import deal
from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.td import TdEvaluator
from pokersquares.game import EMPTY
from pokersquares.players.greedy_guard import greedy_rule_values
from pokersquares.points import parse_point_system
from pokersquares.search.halving import CrnHalving
from pokersquares.strength import play_deal

# A move's clock that never binds before the playouts' cap, and gives the exact end game
# the last 3 or 4 cards as a search of the champion's at a few seconds a move does.
CLOCK_S = 10.0


def _transposed(cells: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(cells.reshape(5, 5).T).ravel()


def flush_rows(evaluator, points, games: int = 100) -> bool:
    """Whether the evaluator's greedy policy makes its flushes in rows (the greedy rule
    makes them in columns): counted over its games on deals 10**6 and on."""
    rows = cols = 0
    for seed in range(10**6, 10**6 + games):
        grid = np.full(25, EMPTY, dtype=np.int8)
        for move, card in enumerate(deal(seed)[:25]):
            empty = np.flatnonzero(grid == EMPTY)
            grid[empty[0] if move == 0 or len(empty) == 1 else evaluator.greedy_cell(grid, int(card))] = card
        suits = grid.reshape(5, 5) // 13
        rows += sum(len(set(line)) == 1 for line in suits)
        cols += sum(len(set(line)) == 1 for line in suits.T)
    return rows > cols


def mixed_move(evaluator, search, points, weight, rule_games, grid, card, seed, transpose=False) -> int:
    cell, champion = search.choose(evaluator, grid, card, points, CLOCK_S, seed)
    if weight == 0 or search.last["exact"] or search.last["rounds"] == 0:
        return cell
    if transpose:  # the rule with its suits to rows, as the evaluator plays them
        rule = _transposed(greedy_rule_values(_transposed(grid), card, points, seed, games=rule_games))
    else:
        rule = greedy_rule_values(grid, card, points, seed, games=rule_games)
    if weight == 1:
        return int(np.argmax(rule))
    both = np.isfinite(champion) & np.isfinite(rule)
    mixed = np.where(both, (1 - weight) * champion + weight * rule, -np.inf)
    return int(np.argmax(mixed))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--load", required=True, help="a TD evaluator saved by pokersquares train (champion)")
    ap.add_argument("--system", default="american")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--weights", default="0,0.5,1")
    ap.add_argument("--playouts", type=int, default=3000)
    ap.add_argument("--rule-games", type=int, default=200)
    ap.add_argument("--out", default="root-mix.jsonl")
    ap.add_argument("--align", action="store_true",
                    help="turn the rule's plan (suits to columns) to the evaluator's when its flushes go to rows")
    args = ap.parse_args()
    if args.deals < 2:  # a standard error needs two deals; said before any is played
        ap.error(f"--deals must be at least 2 (a standard error needs two deals), got {args.deals}")
    try:
        weights = [float(w) for w in args.weights.split(",")]
    except ValueError:
        weights = [math.nan]
    if not all(0 <= w <= 1 for w in weights) or args.rule_games < 1:
        ap.error(f"--weights are numbers in [0, 1] separated by commas and --rule-games at least 1, "
                 f"got {args.weights!r} and {args.rule_games}")
    try:
        points = np.array(parse_point_system(args.system).points, dtype=np.int64)
        evaluator = TdEvaluator().load(args.load)
        search = CrnHalving(depth=4, cores=1, halving=False, stop_z=math.inf, max_playouts=args.playouts)
    except PokerSquaresError as e:  # a missing or foreign --load, a bad system or playouts: one line
        ap.error(str(e))
    transpose = args.align and flush_rows(evaluator, points)
    out = Path(args.out)
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[(row["weight"], row["seed"])] = row["score"]
    with out.open("a") as f:
        for seed in range(args.first_deal, args.first_deal + args.deals):
            for w in weights:
                if (w, seed) in done:
                    continue
                score = play_deal(lambda g, c, m, s=seed, w=w: mixed_move(evaluator, search, points, w,
                                                                          args.rule_games, g, c, s * 31 + m,
                                                                          transpose),
                                  points, seed)
                done[(w, seed)] = score
                f.write(json.dumps({"weight": w, "seed": seed, "score": score}) + "\n")
                f.flush()
    seeds = range(args.first_deal, args.first_deal + args.deals)
    base = [done[(weights[0], s)] for s in seeds]
    rows = {}
    for w in weights:
        scores = [done[(w, s)] for s in seeds]
        diff = [a - b for a, b in zip(scores, base)]
        rows[str(w)] = {"mean": round(statistics.fmean(scores), 2),
                        "se": round(statistics.stdev(scores) / math.sqrt(len(scores)), 2),
                        "minus_first": round(statistics.fmean(diff), 2),
                        "minus_first_se": round(statistics.stdev(diff) / math.sqrt(len(diff)), 2) if w != weights[0]
                        else 0.0}
    print(json.dumps({"system": args.system, "deals": args.deals, "first_deal": args.first_deal,
                      "rule_transposed": bool(transpose),
                      "playouts": args.playouts, "rule_games": args.rule_games, "weights": rows}, indent=1))


if __name__ == "__main__":
    main()
