"""Where numba's compile time goes on an empty cache, as JSON.

    python benchmarks/compile_time.py                       # each agent alone, one process each
    python benchmarks/compile_time.py --players tiger,og    # some agents
    python benchmarks/compile_time.py --groups              # the processes `serve` and `demo` warm up in
    python benchmarks/compile_time.py --cache DIR           # a given cache (run twice: compile, then load)

Each agent (or each group of ``harness.warm_up.kernel_groups``, in the order of
``warm_up_players``) is warmed up in a fresh process whose ``NUMBA_CACHE_DIR`` is a new
empty directory (unless ``--cache``), listening to numba's ``numba:compile`` events.
Reported per process: the seconds of each player's ``warm_up``, and per kernel
(dispatcher) its specialisations (argument types), the seconds compiling it
including the kernels it called that were compiled on the way (``inclusive_s``) and
without them (``own_s``, and in CPU time ``own_cpu_s``: on a busy machine the wall
times stretch, the CPU times much less). Kernels with ``inline="always"`` are not dispatchers of
their own: their cost is in their callers' ``own_s``. ``core`` is the import time
and the first calls of two core kernels, as this script measured before.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

AGENTS = ["og", "beemo", "gettysburg", "champion", "tiger", "hybrid", "greedy"]


def _child(specs: list[str]) -> dict:
    """Warm up ``specs`` in this process, one after the other, timing every compile."""
    import threading

    from numba.core import event

    events: list[dict] = []
    stack = threading.local()

    class Compiles(event.Listener):
        def on_start(self, ev):
            frames = getattr(stack, "frames", None)
            if frames is None:
                frames = stack.frames = []
            frames.append([time.perf_counter(), time.process_time(), 0.0, 0.0])

        def on_end(self, ev):
            start, cpu_start, nested, nested_cpu = stack.frames.pop()
            took = time.perf_counter() - start
            cpu = time.process_time() - cpu_start
            if stack.frames:
                stack.frames[-1][2] += took
                stack.frames[-1][3] += cpu
            d = ev.data["dispatcher"]
            py = getattr(d, "py_func", None)
            name = f"{py.__module__}.{py.__qualname__}" if py is not None else repr(d)
            events.append({"kernel": name, "args": str(ev.data["args"]), "inclusive_s": took,
                           "own_s": took - nested, "own_cpu_s": cpu - nested_cpu})

    t0 = time.perf_counter()
    from pokersquares.harness.registry import make_player
    import pokersquares.players  # noqa: F401  (what `serve` imports before warming up)
    out: dict = {"import_s": round(time.perf_counter() - t0, 2), "players": {}}
    with event.install_listener("numba:compile", Compiles()):
        for spec in specs:
            t, cpu = time.perf_counter(), time.process_time()
            player = make_player(spec)
            if hasattr(player, "warm_up"):
                player.warm_up()
            out["players"][spec] = {"s": round(time.perf_counter() - t, 2),
                                    "cpu_s": round(time.process_time() - cpu, 2)}
    kernels: dict[str, dict] = {}
    for e in events:
        k = kernels.setdefault(e["kernel"], {"specialisations": [], "inclusive_s": 0.0, "own_s": 0.0,
                                              "own_cpu_s": 0.0})
        k["specialisations"].append(e["args"])
        # A kernel compiled inside another is counted in the outer one's inclusive time too.
        for key in ("inclusive_s", "own_s", "own_cpu_s"):
            k[key] += e[key]
    ranked = sorted(kernels.items(), key=lambda kv: -kv[1]["own_cpu_s"])
    out["compile_own_s_total"] = round(sum(k["own_s"] for _, k in ranked), 2)
    out["compile_own_cpu_s_total"] = round(sum(k["own_cpu_s"] for _, k in ranked), 2)
    out["kernels"] = {name: {"own_cpu_s": round(k["own_cpu_s"], 2), "own_s": round(k["own_s"], 2),
                             "inclusive_s": round(k["inclusive_s"], 2), "n": len(k["specialisations"]),
                             "specialisations": k["specialisations"]}
                      for name, k in ranked}
    return out


def _core() -> dict:
    t0 = time.perf_counter()
    import numpy as np

    from pokersquares.kernels import classify_batch, random_games
    t1 = time.perf_counter()
    random_games(10, 1, np.array([0, 2, 5, 10, 15, 20, 25, 50, 75, 100], dtype=np.int64))
    t2 = time.perf_counter()
    classify_batch(np.zeros((1, 5), dtype=np.int8))
    t3 = time.perf_counter()
    return {"import_s": round(t1 - t0, 3), "random_games_first_call_s": round(t2 - t1, 3),
            "classify_batch_first_call_s": round(t3 - t2, 3)}


def _run(args: list[str], cache: str | None) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache or tempfile.mkdtemp(prefix="numba-cold-"))
    t = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": done.stderr[-2000:]}
    out = json.loads(done.stdout)
    out["process_s"] = round(time.perf_counter() - t, 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default=",".join(AGENTS), help="comma-separated player specs")
    parser.add_argument("--groups", action="store_true",
                        help="one process per group of kernel_groups, as `serve` warms up, all at once")
    parser.add_argument("--cache", help="NUMBA_CACHE_DIR to use (default: a new empty one per process)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--core", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.core:
        print(json.dumps(_core()))
        return
    if args.child is not None:
        print(json.dumps(_child(args.child.split(","))))
        return
    specs = args.players.split(",")
    from pokersquares.errors import PokerSquaresError
    from pokersquares.harness.registry import make_player

    for spec in specs:  # an unknown player is one line, not an error row after the core's compilation
        try:
            make_player(spec)
        except PokerSquaresError as e:
            parser.error(str(e))
    out: dict = {"numba_cache": args.cache or "empty, one per process"}
    if args.groups:
        from concurrent.futures import ThreadPoolExecutor

        from pokersquares.harness.warm_up import plan

        parts = plan(specs, 2)
        cache = args.cache or tempfile.mkdtemp(prefix="numba-cold-")  # shared, as serve's processes share one
        out["numba_cache"] = args.cache or "empty, shared by the processes"
        with ThreadPoolExecutor(len(parts)) as pool:
            results = list(pool.map(lambda share: _run(["--child", ",".join(share)], cache), parts))
        out["processes"] = {",".join(share): r for share, r in zip(parts, results)}
    else:
        out["core"] = _run(["--core"], args.cache)
        for spec in specs:
            out[spec] = _run(["--child", spec], args.cache)
    out["load_average"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
