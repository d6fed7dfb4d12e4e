"""Seconds from ``pokersquares serve`` starting to each agent's first hint, as JSON.

    python benchmarks/web_first_advice.py            # numba's cache as it is
    python benchmarks/web_first_advice.py --cold     # an empty numba cache (NUMBA_CACHE_DIR=$(mktemp -d))
    python benchmarks/web_first_advice.py --agents og   # one agent asked, as a single page does

It starts the server in a subprocess, waits for its URL, deals a game, then asks
every agent for a hint at once and again every 0.5 s until each answers, as a page
does. Also reported: when the URL answered, when the agents' list did, and the
slowest ``/api/config`` answer seen meanwhile.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time

import httpx
from served import free_port, serve  # this folder's: the server stopped with the script


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="start with an empty numba cache")
    parser.add_argument("--prep-time", type=float, default=5.0)
    parser.add_argument("--limit", type=float, default=300.0, help="give up after this many seconds")
    parser.add_argument("--agents", default="", help="comma-separated agents to ask (default: every agent, at once)")
    args = parser.parse_args()
    if not 0 < args.prep_time < math.inf or not 0 < args.limit < math.inf:  # before the server starts
        parser.error(f"--prep-time and --limit must be finite numbers of seconds > 0, got {args.prep_time:g} and "
                     f"{args.limit:g}")
    from pokersquares.web.agents import registered_agents

    unknown = set(filter(None, args.agents.split(","))) - set(registered_agents())
    if unknown:  # before the server starts (it was said once every agent had been listed)
        parser.error(f"unknown agents: {', '.join(sorted(unknown))}; known: {', '.join(sorted(registered_agents()))}")
    env = dict(os.environ)
    if args.cold:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    start = time.monotonic()
    console: list[tuple[float, str]] = []
    out: dict = {"cold_cache": args.cold, "prep_time": args.prep_time}
    with serve([sys.executable, "-X", "faulthandler", "-m", "pokersquares", "serve", "--port", str(port),
                "--prep-time", str(args.prep_time), "--db", os.devnull + ".none"],
               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as server:
        threading.Thread(target=lambda: [console.append((round(time.monotonic() - start, 1), line.rstrip()))
                                         for line in server.stdout], daemon=True).start()
        with httpx.Client(base_url=url, timeout=30) as client:
            while True:
                try:
                    client.get("/")
                    break
                except httpx.TransportError:
                    time.sleep(0.05)
            out["page_s"] = round(time.monotonic() - start, 2)
            while not (config := client.get("/api/config").json())["agents"]:
                time.sleep(0.2)
            out["agents_listed_s"] = round(time.monotonic() - start, 2)
            agents = [a["name"] for a in config["agents"]]
            if args.agents:
                unknown = set(args.agents.split(",")) - set(agents)
                if unknown:
                    raise SystemExit(f"unknown agents: {', '.join(sorted(unknown))}")
                agents = args.agents.split(",")
            game = client.post("/api/games", json={"system": "american", "seed": 1}).json()
            first: dict[str, float | str] = {}

            def ask(name: str) -> None:  # as a page does: ask again every 0.5 s until it answers
                with httpx.Client(base_url=url, timeout=60) as own:
                    while time.monotonic() - start < args.limit:
                        try:
                            r = own.post(f"/api/games/{game['id']}/hint", json={"agent": name, "seconds": 0.5},
                                         headers={"X-Client": f"bench-{name}"})
                        except httpx.HTTPError as e:
                            first[name] = f"{type(e).__name__}: {e} (server exit code {server.poll()})"
                            return
                        if r.status_code == 200:
                            first[name] = round(time.monotonic() - start, 1)
                            return
                        if r.status_code not in (202, 429, 503):
                            first[name] = f"error {r.status_code}: {r.json().get('detail')}"
                            return
                        time.sleep(0.5)

            askers = [threading.Thread(target=ask, args=(name,)) for name in agents]
            for t in askers:
                t.start()
            worst_config = 0.0
            while any(t.is_alive() for t in askers) and server.poll() is None:
                t0 = time.monotonic()
                try:
                    client.get("/api/config")
                except httpx.HTTPError:
                    continue  # the server died: its exit code and console are reported
                worst_config = max(worst_config, time.monotonic() - t0)
                time.sleep(0.5)
            out["first_hint_s"] = first
            out["slowest_config_s"] = round(worst_config, 3)
    out["server_exit_code"] = server.returncode
    out["console"] = [f"{t:6.1f} s  {line}" for t, line in console]
    out["load_average"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
