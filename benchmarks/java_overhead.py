"""What running a contest Java player through the JVM shim costs, as JSON: compiling the
shim (once per user), a JVM's start-up (player created and ready; outside every clock),
and the round trip of one move (Python -> shim -> getPlay -> Python) with a player that
does almost nothing, so that the figure is the protocol's overhead.

    python benchmarks/java_overhead.py [--starts 5] [--games 40]

Compiles the tests' stand-ins of the contest framework (tests/players/java/) with javac.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--starts", type=int, default=5, help="JVM starts to time")
    ap.add_argument("--games", type=int, default=40, help="games of 25 moves to time")
    args = ap.parse_args()
    if args.starts < 1 or args.games < 1:  # medians of nothing, after compiling everything
        ap.error(f"--starts and --games must be at least 1, got {args.starts} and {args.games}")
    work = Path(tempfile.mkdtemp(prefix="java-overhead-"))
    classes = work / "classes"
    subprocess.run(["javac", "-d", str(classes), *map(str, (ROOT / "tests/players/java").glob("*.java"))], check=True)
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")  # a cold shim cache, to time its compilation
    os.environ["POKERSQUARES_CLASSPATH"] = str(classes)

    from pokersquares import AMERICAN, deal
    from pokersquares.players import java

    t = time.perf_counter()
    java.shim_classpath()
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    java.java_player_class("RandomJavaPlayer")  # the check run before any game (one JVM)
    check_s = time.perf_counter() - t

    starts = []
    for _ in range(args.starts):
        player = java.JavaPlayer("RandomJavaPlayer")
        t = time.perf_counter()
        player.warm_up()
        starts.append(time.perf_counter() - t)
        player.close()

    player = java.JavaPlayer("RandomJavaPlayer")
    player.set_point_system(AMERICAN, 1.0)
    moves = []
    for seed in range(args.games):
        player.start_game()
        for card in deal(seed)[:25]:
            t = time.perf_counter()
            player.get_play(card, 30.0)
            moves.append(time.perf_counter() - t)
    player.close()
    moves_steady = moves[25 * min(5, args.games // 2):]  # after the JIT has warmed up
    print(json.dumps({
        "java": subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0],
        "shim_compile_s": round(compile_s, 3),
        "class_check_s": round(check_s, 3),
        "jvm_start_s_median": round(statistics.median(starts), 3),
        "jvm_start_s_max": round(max(starts), 3),
        "jvm_starts": len(starts),
        "move_round_trip_us_median": round(statistics.median(moves_steady) * 1e6, 1),
        "move_round_trip_us_p99": round(sorted(moves_steady)[int(0.99 * len(moves_steady))] * 1e6, 1),
        "move_round_trip_us_first_game_mean": round(statistics.fmean(moves[:25]) * 1e6, 1),
        "moves_timed": len(moves_steady),
        "load_average_1min": os.getloadavg()[0],
    }))


if __name__ == "__main__":
    sys.exit(main())
