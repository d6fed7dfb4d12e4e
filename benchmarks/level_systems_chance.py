"""How often a player level with its rivals meets issue 16's tournament target by chance:
first, or within one paired standard error of the first, on every point system. JSON on
stdout.

The model: on each of ``--level`` systems the player and its ``--rivals`` rivals are
equally strong and play the same deals; each one's mean over the deals misses the common
truth by independent normal errors of equal spread, so every rival-minus-player paired
difference has a standard error of 1 and any two of them are correlated by 1/2. The
player misses a system when some rival's mean leads its own by more than ``--within``
paired standard errors. Systems on which the player is well ahead add nothing to the
chance of a miss and are left out.

    python benchmarks/level_systems_chance.py --rivals 3 --level 7
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np


def miss_chance(rivals: int, within: float, trials: int, seed: int) -> tuple[float, float]:
    """The chance, with its Monte Carlo standard error, that on one level system some
    rival leads the player by more than ``within`` paired standard errors."""
    rng = np.random.default_rng(seed)
    errors = rng.standard_normal((trials, rivals + 1)) / math.sqrt(2)  # each pair's difference: SD 1
    leads = errors[:, 1:] - errors[:, :1]
    p = float((leads > within).any(axis=1).mean())
    return p, math.sqrt(p * (1 - p) / trials)


def at_least(low: int):
    """An argparse type: an integer of at least ``low``."""
    def convert(text: str) -> int:
        value = int(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value
    convert.__name__ = f"integer of at least {low}"
    return convert


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rivals", type=at_least(1), default=3, help="rivals level with the player (3: beemo, "
                        "gettysburg, tiger)")
    parser.add_argument("--level", type=at_least(0), default=7, help="systems on which they are all level")
    parser.add_argument("--within", type=float, default=1.0, help="the target's margin, in paired standard errors")
    parser.add_argument("--trials", type=at_least(1), default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not math.isfinite(args.within) or args.within < 0:
        parser.error(f"--within must be a finite number of at least 0, got {args.within}")
    p, se = miss_chance(args.rivals, args.within, args.trials, args.seed)
    print(json.dumps({"rivals": args.rivals, "level_systems": args.level, "within_se": args.within,
                      "trials": args.trials, "miss_one_system": round(p, 4), "miss_one_system_se": round(se, 4),
                      "target_met_by_chance": round((1 - p) ** args.level, 4)}))


if __name__ == "__main__":
    main()
