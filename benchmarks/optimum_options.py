"""The core model's proof under other options or CP-SAT parameters: CPU seconds per deal,
one deal at a time on one core; JSON lines on stdout, a summary line last.

    python benchmarks/optimum_options.py --seeds 0..29                      # the defaults
    python benchmarks/optimum_options.py --seeds 0..29 --option full_line_counts=false
    python benchmarks/optimum_options.py --seeds 16,21 --param search_branching=PSEUDO_COST_SEARCH
    python benchmarks/optimum_options.py --seeds 21 --param linearization_level=1 --start 155

Each deal is solved as `pokersquares optimum` solves it (local search, then the core
model) unless ``--start`` gives the score to prove (the proof alone, from that score).
``--option NAME=VALUE`` sets a field of ``CoreOptions`` (true/false); ``--param
NAME=VALUE`` sets a CP-SAT parameter on top of the defaults (an integer, a float,
true/false, or an enum member's name such as LP_SEARCH). Compare options on the same
deals on an otherwise idle machine: CPU seconds move with the load (caches, memory).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import statistics
import time

import numpy as np


def _value(text: str):
    """A player option's value (true/false, an integer, a float), else a CP-SAT enum member's name
    (ValueError for anything else)."""
    from ortools.sat.python import cp_model_helper

    from pokersquares.harness.registry import _parse_value

    value = _parse_value(text)
    if not isinstance(value, str):
        return value
    if hasattr(cp_model_helper.SatParameters, text):
        return getattr(cp_model_helper.SatParameters, text)
    raise ValueError(f"cannot read the value {text!r}")


def _pairs(items: list[str]) -> dict:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"expected NAME=VALUE, got {item!r}")
        out[name] = _value(value)
    return out


def main() -> None:
    from ortools.sat.python import cp_model

    import pokersquares.optimum as optimum
    from pokersquares.cards import deal
    from pokersquares.cli.optimum import parse_seeds
    from pokersquares.optimum.cores import CoreOptions, solve_cores
    from pokersquares.points import parse_point_system
    from pokersquares.errors import PokerSquaresError

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", required=True, help="A..B, A,B,C or one seed")
    parser.add_argument("--system", default="american")
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--option", action="append", default=[], help="a CoreOptions field, NAME=true|false")
    parser.add_argument("--param", action="append", default=[], help="a CP-SAT parameter, NAME=VALUE")
    parser.add_argument("--start", type=int, help="prove this score (skip the local search)")
    args = parser.parse_args()
    # Everything checked before the first deal is solved: one line, exit 2.
    if not (math.isfinite(args.time_limit) and args.time_limit > 0):
        parser.error(f"--time-limit must be a finite number of seconds more than 0, got {args.time_limit:g}")
    try:
        system = parse_point_system(args.system)
        seeds = parse_seeds(args.seeds)
        params = dict(CoreOptions().parameters)
        params.update(_pairs(args.param))
        fields = {f.name for f in dataclasses.fields(CoreOptions)} - {"parameters"}
        options = _pairs(args.option)
        for name in options:
            if name not in fields:
                raise ValueError(f"--option {name!r} is not a CoreOptions field; choose from {', '.join(sorted(fields))}")
        options = CoreOptions(**options, parameters=tuple(params.items()))
        probe = cp_model.CpSolver().parameters
        for name, setting in options.parameters:  # as solve_cores sets them, on a solver of its own
            if name.startswith("_") or not hasattr(probe, name):  # said alike by every ortools (their errors differ)
                raise ValueError(f"--param {name!r} is not a CP-SAT parameter (SatParameters)")
            setattr(probe, name, setting)
    except (PokerSquaresError, ValueError) as e:
        parser.error(str(e))
    except (AttributeError, TypeError) as e:
        parser.error(f"--param: {e}")
    cpu = []
    proven = 0
    for seed in seeds:
        c0 = time.process_time()
        if args.start is None:
            optimum.solve_cores = functools.partial(solve_cores, options=options)
            found = optimum.solve_seed(seed, system, time_limit=args.time_limit)
            row = {"seed": seed, "score": found.score, "bound": found.bound, "proven": found.proven}
        else:
            points = np.asarray(system.points, dtype=np.int64)
            found = solve_cores(deal(seed)[:25], points, time_limit=args.time_limit, at_least=args.start,
                                options=options)
            row = {"seed": seed, "score": found.score, "bound": found.bound,
                   "proven": found.proven, "rounds": found.rounds}
        row["cpu_s"] = round(time.process_time() - c0, 2)
        cpu.append(row["cpu_s"])
        proven += row["proven"]
        print(json.dumps(row), flush=True)
    print(json.dumps({"system": system.name, "options": repr(options), "deals": len(cpu), "proven": proven,
                      "cpu_s_mean": round(statistics.mean(cpu), 2), "cpu_s_median": round(statistics.median(cpu), 2),
                      "cpu_s_max": max(cpu)}))


if __name__ == "__main__":
    main()
