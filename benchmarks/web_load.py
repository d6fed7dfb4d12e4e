"""100 hints at once for one agent, and how fast ``/api/config`` answers meanwhile, as JSON.

    python benchmarks/web_load.py [--agent tiger] [--requests 100] [--clients 100]

Starts ``pokersquares serve`` in a subprocess, waits until the agent is prepared for
American, then sends ``--requests`` hints at once from ``--clients`` distinct pages
(``X-Client`` ids) while asking for ``/api/config`` every 0.1 s. Reports the status
codes of the hints, their slowest answer, and the configuration's answer times.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import subprocess
import sys
import time

import httpx
from served import check_agent, free_port, serve, wait_for_agents  # this folder's: the server stopped with the script


async def burst(url: str, game_id: str, agent: str, requests: int, clients: int) -> dict:
    limits = httpx.Limits(max_connections=requests + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        done = asyncio.Event()
        config_s: list[float] = []

        async def watch_config() -> None:
            while not done.is_set():
                t = time.monotonic()
                await client.get("/api/config")
                config_s.append(time.monotonic() - t)
                await asyncio.sleep(0.1)

        async def hint(k: int) -> tuple[int, float]:
            t = time.monotonic()
            r = await client.post(f"/api/games/{game_id}/hint", json={"agent": agent, "seconds": 1.0},
                                  headers={"X-Client": f"page{k % clients}"})
            return r.status_code, time.monotonic() - t

        watcher = asyncio.create_task(watch_config())
        results = await asyncio.gather(*(hint(k) for k in range(requests)))
        done.set()
        await watcher
    return {"codes": dict(collections.Counter(code for code, _ in results)),
            "slowest_hint_s": round(max(s for _, s in results), 2),
            "config_s": {"n": len(config_s), "median": round(statistics.median(config_s), 3),
                         "max": round(max(config_s), 3)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="tiger")
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--clients", type=int, default=100)
    args = parser.parse_args()
    # Checked before the server starts: an unknown agent's hint never succeeds (the wait
    # for it would never end), and no request or client leaves nothing to measure.
    if args.requests < 1 or args.clients < 1:
        parser.error(f"--requests and --clients must be at least 1, got {args.requests} and {args.clients}")
    check_agent(parser, args.agent)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serve([sys.executable, "-m", "pokersquares", "serve", "--port", str(port), "--warm", "",
                "--db", os.devnull + ".none", "--no-record"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        with httpx.Client(base_url=url, timeout=60) as client:
            wait_for_agents(client)
            game = client.post("/api/games", json={"system": "american", "seed": 1}).json()
            while client.post(f"/api/games/{game['id']}/hint", json={"agent": args.agent, "seconds": 0.2}).status_code != 200:
                time.sleep(0.5)
        out = {"agent": args.agent, "requests": args.requests, "clients": args.clients,
               **asyncio.run(burst(url, game["id"], args.agent, args.requests, args.clients))}
    out["load_average"] = os.getloadavg()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
