"""Which learner to give a small preparation: BeeMo's pattern utilities or the champion's
TD evaluator (NARL's table + the TD residual), each learned for the same seconds in
this process (kernels compiled first, nothing else learning), then judged by its greedy
policy over the same number of games from the empty grid. JSON on stdout, one line per
learning on stderr as it finishes.

    python benchmarks/learner_crossover.py --systems american,british --preps 1,2,4,8,16 \\
        --seeds 0,1 --games 4000

Each row: system, preparation seconds, learning seed, each learner's seconds spent and
its greedy policy's mean and standard error over ``--games`` playouts (the same playout
seed for both). ``--patterns-prep S`` gives the patterns S seconds whatever the
preparation (they stop improving within a few seconds): a split of one budget between
the two learners, e.g. ``--preps 26 --patterns-prep 4`` for a 30 s preparation.
The champion's ``evaluator=auto`` learns the patterns below ``SMALL_PREP_S`` seconds of
preparation (docs/results.md, "BeeMo's patterns under the champion's search").
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.patterns import PatternEvaluator, warm_up as patterns_warm_up
from pokersquares.game import EMPTY
from pokersquares.harness.spec import check_seconds
from pokersquares.players.champion import champion
from pokersquares.points import parse_point_systems


def _numbers(text: str, option: str, kind):
    try:
        values = [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise PokerSquaresError(f"{option} takes numbers separated by commas, got {text!r}") from None
    if not values:
        raise PokerSquaresError(f"{option} is empty")
    return values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--systems", default="american,british", help="point-system specs separated by commas")
    ap.add_argument("--preps", default="1,2,4,8,16", help="learning seconds, separated by commas")
    ap.add_argument("--seeds", default="0,1", help="learning seeds, separated by commas")
    ap.add_argument("--games", type=int, default=4000, help="greedy games judging each learner")
    ap.add_argument("--patterns-prep", type=float, default=None,
                    help="the patterns' learning seconds (default: each of --preps, as the TD evaluator's)")
    args = ap.parse_args(argv)
    try:
        systems = parse_point_systems(args.systems)
        preps = _numbers(args.preps, "--preps", float)
        for p in preps:
            check_seconds(p, "--preps", zero_ok=False)
        seeds = _numbers(args.seeds, "--seeds", int)
        if args.patterns_prep is not None:
            check_seconds(args.patterns_prep, "--patterns-prep", zero_ok=False)
        if args.games < 2:
            raise PokerSquaresError(f"--games must be at least 2, got {args.games}")
    except PokerSquaresError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    patterns_warm_up()
    champion().warm_up()
    empty = np.full(25, EMPTY, dtype=np.int8)
    rows = []
    for system in systems:
        points = np.asarray(system.points, dtype=np.int64)
        for prep in preps:
            for seed in seeds:
                row = {"system": system.name, "prep_s": prep, "seed": seed}
                for name, learner, seconds in (("patterns", PatternEvaluator(), args.patterns_prep or prep),
                                               ("td", champion(evaluator="td").evaluator, prep)):
                    t = time.perf_counter()
                    learner.prepare(points, seconds, seed)
                    row[f"{name}_s"] = round(time.perf_counter() - t, 3)
                    scores = learner.playouts(empty, args.games, 99)
                    row[f"{name}_mean"] = round(float(scores.mean()), 3)
                    row[f"{name}_stderr"] = round(float(scores.std(ddof=1) / np.sqrt(len(scores))), 3)
                print(json.dumps(row), file=sys.stderr, flush=True)
                rows.append(row)
    print(json.dumps({"games": args.games, "patterns_prep_s": args.patterns_prep, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
