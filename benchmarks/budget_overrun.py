"""How far each player's preparation runs past its budget, pickling for the game workers
included, over budgets and machine loads; JSON on stdout.

    python benchmarks/budget_overrun.py --budgets 0.5,1,2,5,10 --loads 0,2

For each load (that many busy processes spinning beside it, killed after), each player
is warmed up once (untimed, as the harness does) and then prepared from scratch for
American and British at each budget, as the harness's preparation process does
(``prepare_for_handoff``). ``worst_overrun_s`` is the largest ``used - budget`` seen
(negative: every preparation ended early), ``worst_share`` the largest ``used / budget``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

from pokersquares import AMERICAN, BRITISH
from pokersquares.errors import PokerSquaresError
from pokersquares.harness.registry import list_players, make_player
from pokersquares.harness.runner import prepare_for_handoff


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="0.5,1,2,5,10")
    parser.add_argument("--loads", default="0,2", help="busy processes beside the preparation")
    parser.add_argument("--players", default=None, help="comma-separated (default: every registered one)")
    args = parser.parse_args()
    # Checked before any player prepares or any busy process starts: one line, exit 2.
    try:
        budgets = [float(b) for b in args.budgets.split(",")]
    except ValueError:
        parser.error(f"--budgets takes seconds separated by commas, got {args.budgets!r}")
    if not all(math.isfinite(b) and b > 0 for b in budgets):  # worst_share divides by the budget
        parser.error(f"--budgets must be finite numbers of seconds more than 0, got {args.budgets!r}")
    try:
        loads = [int(x) for x in args.loads.split(",")]
    except ValueError:
        loads = [-1]
    if not all(0 <= load <= 1000 for load in loads):
        parser.error(f"--loads takes numbers of busy processes (0 to 1000) separated by commas, got {args.loads!r}")
    players = args.players.split(",") if args.players else [p.name for p in list_players()]
    for name in players:
        try:
            make_player(name)
        except PokerSquaresError as e:
            parser.error(str(e))
    out = {"budgets": budgets, "cpus": os.cpu_count(), "loadavg_start": os.getloadavg()[0], "loads": {}}
    for load in loads:
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
        try:
            rows = {}
            for name in players:
                make_player(name).warm_up()
                used_all = []
                for budget in budgets:
                    for system in (AMERICAN, BRITISH):
                        player = make_player(name)
                        player.set_seed(1)
                        used, _ = prepare_for_handoff(player, system, budget)
                        used_all.append((budget, used))
                rows[name] = {"worst_overrun_s": round(max(u - b for b, u in used_all), 4),
                              "worst_share": round(max(u / b for b, u in used_all), 4),
                              "preparations": len(used_all)}
                print(json.dumps({"load": load, "player": name, **rows[name]}), file=sys.stderr, flush=True)
            out["loads"][str(load)] = rows
        finally:
            for p in spinners:
                p.kill()
                p.wait()
    out["loadavg_end"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
