"""A class on the web app: students playing the daily deal at once, each asking the coach
for a hint every few cards, as JSON.

    python benchmarks/class_hints.py [--students 30] [--agent champion] [--hint-every 3] [--seconds 0.5]

Starts ``pokersquares serve`` in a subprocess, waits until the agents are loaded and the
agent is prepared for the day's point system, then plays ``--students`` games of the
daily deal at once, each from a page of its own (``X-Client``): a random empty cell for
each card, 0.2 to 1 s apart, and before every ``--hint-every``-th card a hint of
``--seconds``, asked again as the page asks (after 0.8 s on a busy answer, at most 30
times). Reports the hints answered, refused (busy answers) and given up, the waits for
an answer (median, 90th percentile, largest), the hints that shared their seconds with
others waiting and the seconds they thought, and every game recorded once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from served import check_agent, free_port, serve, wait_for_agents  # this folder's: the server stopped with the script

PAGE_TRIES = 30  # busy answers a page takes before it gives up (static/app.js, untilReady)


async def student(url: str, k: int, agent: str, hint_every: int, seconds: float, daily: dict, tally: dict) -> None:
    rng = random.Random(k)
    async with httpx.AsyncClient(base_url=url, headers={"X-Client": f"student{k:03d}"}, timeout=120) as client:
        game = (await client.post("/api/games", json={"system": daily["system"], "seed": daily["seed"],
                                                      "name": f"Student {k:02d}"})).json()
        while not game["done"]:
            if game["turn"] % hint_every == 0:
                started = time.monotonic()
                for busy in range(PAGE_TRIES + 1):
                    r = await client.post(f"/api/games/{game['id']}/hint",
                                          json={"agent": agent, "seconds": seconds, "turn": game["turn"]})
                    if r.status_code == 200:
                        answer = r.json()
                        tally["answered"].append(time.monotonic() - started)
                        if answer.get("others_waiting"):  # (a server before session 64 does not say)
                            tally["shared_s"].append(answer["seconds"])
                        break
                    if r.status_code not in (202, 429, 503):
                        raise SystemExit(f"a hint failed: {r.status_code} {r.text}")
                    tally["refused"] += r.status_code != 202
                    await asyncio.sleep(0.5 if r.status_code == 202 else 0.8)
                else:
                    tally["gave_up"] += 1
            empty = [cell for cell, card in enumerate(game["cells"]) if card is None]
            r = await client.post(f"/api/games/{game['id']}/place", json={"cell": rng.choice(empty), "turn": game["turn"]})
            if r.status_code != 200:
                raise SystemExit(f"a placement failed: {r.status_code} {r.text}")
            game = r.json()
            await asyncio.sleep(rng.uniform(0.2, 1.0))


def _spread(waits: list[float]) -> dict:
    if not waits:
        return {}
    w = sorted(waits)
    return {"median": round(statistics.median(w), 2), "p90": round(w[int(0.9 * (len(w) - 1))], 2), "max": round(w[-1], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--agent", default="champion")
    parser.add_argument("--hint-every", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    if args.students < 1 or args.hint_every < 1:
        parser.error(f"--students and --hint-every must be at least 1, got {args.students} and {args.hint_every}")
    if not 0.1 <= args.seconds <= 2.0:
        parser.error(f"--seconds is the page's thinking time, 0.1 to 2, got {args.seconds:g}")
    check_agent(parser, args.agent)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "class.sqlite"
        with serve([sys.executable, "-m", "pokersquares", "serve", "--port", str(port), "--warm", "", "--db", str(db)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            with httpx.Client(base_url=url, timeout=60) as client:
                wait_for_agents(client)
                daily = client.get("/api/daily").json()
                game = client.post("/api/games", json={"system": daily["system"], "seed": 1}).json()
                while client.post(f"/api/games/{game['id']}/hint",
                                  json={"agent": args.agent, "seconds": 0.1}).status_code != 200:
                    time.sleep(0.5)  # prepared for the day's point system
            tally = {"answered": [], "refused": 0, "gave_up": 0, "shared_s": []}
            started = time.monotonic()

            async def lesson():
                await asyncio.gather(*(student(url, k, args.agent, args.hint_every, args.seconds, daily, tally)
                                       for k in range(args.students)))

            asyncio.run(lesson())
            elapsed = time.monotonic() - started
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            recorded = conn.execute("SELECT COUNT(*), COUNT(DISTINCT r.player_name) FROM games g "
                                    "JOIN runs r ON g.run_id = r.run_id WHERE r.player = 'human'").fetchone()
    print(json.dumps({
        "students": args.students, "agent": args.agent, "hint_every": args.hint_every, "seconds": args.seconds,
        "daily": daily, "elapsed_s": round(elapsed, 1),
        "hints": {"answered": len(tally["answered"]), "refused": tally["refused"], "gave_up": tally["gave_up"],
                  "wait_s": _spread(tally["answered"]), "shared": len(tally["shared_s"]),
                  "shared_thought_s": _spread(tally["shared_s"])},
        "games_recorded": recorded[0], "names_recorded": recorded[1], "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
