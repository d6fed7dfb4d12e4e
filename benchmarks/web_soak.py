"""A ``pokersquares serve`` driven as a classroom drives it for days, and what its process
holds meanwhile, as JSON.

    python benchmarks/web_soak.py [--requests 4000] [--every 200] [--agents greedy,gettysburg,beemo,champion]

Starts the server in a subprocess (a fresh result store in a temporary folder, agents
learning for ``--prep-time`` seconds, none warmed) and sends it, one after another,
what many pages do: games dealt and played to the end (recorded), games abandoned
half-way, hints from the ``--agents`` on many point systems, watched agent games,
daily deals, replays and reviews, results pages and CSV exports (some dropped after
their first bytes), optimum requests, each from a new ``X-Client`` id; then
``--crowd`` pages at once, each asking the last agent for a hint on its own point
system, more than the server holds prepared. Every
``--every`` requests it reads the server's resident memory, threads, open file
descriptors, child processes and the temporary files it left in its ``TMPDIR``.
Reported: those samples (with how long the Results page's list took), their growth
over the second half of the requests, the status codes and the details of errors. A
server that holds what it serves fills its caches in the first half and stays flat
in the second.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from served import free_port, serve, wait_for_agents  # this folder's: the server stopped with the script

SYSTEMS = ["american", "british", "ameritish:7", "random:3", "hypercorner:5", "1,2,3,4,5,6,7,8,9,10"]


def _results_time(client: httpx.Client) -> dict:
    """How long the Results page's list takes, and how big it is (it grows with the games
    people finish: each is a run of its own)."""
    t = time.monotonic()
    r = client.get("/api/results")
    return {"results_s": round(time.monotonic() - t, 3), "results_kb": len(r.content) // 1024}


def _proc_sample(pid: int, tmp: Path) -> dict:
    """The server's RSS (kB), threads, open fds, children and its temporary files."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children += (task / "children").read_text().split()
        except OSError:
            pass
    return {"rss_kb": int(status["VmRSS"].split()[0]), "threads": int(status["Threads"]),
            "fds": len(os.listdir(f"/proc/{pid}/fd")), "children": len(set(children)),
            "tmp_files": sum(1 for _ in tmp.iterdir())}


class Soak:
    def __init__(self, client: httpx.Client, agents: list[str], seconds: float, systems: int) -> None:
        self.client, self.agents, self.seconds, self.systems = client, agents, seconds, systems
        self.requests = 0
        self.codes: collections.Counter = collections.Counter()
        self.errors: collections.Counter = collections.Counter()  # 4xx and 5xx answers but 404 and 429, by detail
        self.page = 0
        self.rng = random.Random(1)

    def call(self, method: str, url: str, **kw) -> httpx.Response:
        kw.setdefault("headers", {"X-Client": f"page{self.page}"})
        r = self.client.request(method, url, **kw)
        self.requests += 1
        self.codes[r.status_code] += 1
        if r.status_code >= 400 and r.status_code not in (404, 429):
            self.errors[f"{r.status_code} {method} {url.split('/')[-1]}: {r.json().get('detail', '')[:80]}"] += 1
        return r

    def until_ready(self, method: str, url: str, limit_s: float = 120, **kw) -> httpx.Response:
        deadline = time.monotonic() + limit_s
        while True:
            r = self.call(method, url, **kw)
            if r.status_code not in (202, 503) or time.monotonic() > deadline:
                return r
            time.sleep(0.2)

    def new_game(self, system: str, seed: int | None = None) -> dict:
        body = {"system": system} if seed is None else {"system": system, "seed": seed}
        return self.call("POST", "/api/games", json=body).json()

    def play(self, game: dict, cards: int) -> dict:
        for _ in range(cards):
            if game["done"]:
                break
            cell = game["cells"].index(None)
            game = self.call("POST", f"/api/games/{game['id']}/place", json={"cell": cell, "turn": game["turn"]}).json()
        return game

    def hints(self, game: dict, agent: str) -> None:
        self.until_ready("POST", f"/api/games/{game['id']}/hint",
                         json={"agent": agent, "seconds": self.seconds, "turn": game["turn"]})

    def watch(self, system: str) -> dict:
        game = self.new_game(system)
        while not game["done"]:
            r = self.until_ready("POST", f"/api/games/{game['id']}/agent-move",
                                 json={"agent": "greedy", "seconds": self.seconds, "turn": game["turn"]})
            if r.status_code != 200:
                break
            game = r.json()["game"]
        return game

    def step(self, k: int) -> None:
        """One page's visit, of a kind chosen by ``k``."""
        self.page += 1
        system = self.rng.choice(SYSTEMS)
        kind = k % 8
        if kind == 0:  # a whole game, a hint on the way, then a replay and a review
            game = self.play(self.new_game(system), 12)
            self.hints(game, self.agents[k // 8 % len(self.agents)])
            game = self.play(game, 25)
            self.until_ready("POST", f"/api/games/{game['id']}/replay", json={"agent": "greedy"})
            self.until_ready("POST", f"/api/games/{game['id']}/review", json={"agent": "gettysburg"})
        elif kind == 1:  # abandoned half-way
            self.play(self.new_game(system), self.rng.randrange(1, 20))
        elif kind == 2:  # the daily deal, played to the end
            deal = self.call("GET", "/api/daily").json()
            self.play(self.new_game(deal["system"], deal["seed"]), 25)
        elif kind == 3:  # hints from every agent on one game, of a point system among many
            game = self.play(self.new_game(f"random:{k // 8 % self.systems}"), 5)
            for agent in self.agents:
                self.hints(game, agent)
        elif kind == 4:  # watched
            self.watch(system)
        elif kind == 5:  # results, a run, the CSV (every other one dropped after its first bytes)
            index = self.call("GET", "/api/results").json()
            runs = index.get("runs", [])
            if runs:
                self.call("GET", f"/api/results/runs/{runs[-1]['run_id']}")
            if k % 16 == 5:
                self.call("GET", "/api/results/export.csv")
            else:
                with self.client.stream("GET", "/api/results/export.csv",
                                        headers={"X-Client": f"page{self.page}"}) as r:
                    self.requests += 1
                    self.codes[r.status_code] += 1
                    next(r.iter_bytes(), None)
        elif kind == 6:  # a deal's optimum (a few deals, asked again and again)
            self.until_ready("GET", "/api/optimum", params={"seed": str(k // 8 % 5), "system": "american"})
            self.call("GET", "/api/optimum/regret")
        else:  # the page's own reads, a rebuilt game, a game the server does not hold
            self.call("GET", "/api/config")
            self.call("GET", "/api/agents/status")
            game = self.play(self.new_game(system, 5), 3)
            self.call("POST", "/api/games", json={"system": system, "seed": 5, "moves": game["moves"]})
            self.call("GET", "/api/games/no-such-game-here")


def crowd(url: str, agent: str, pages: int, seconds: float) -> dict:
    """``pages`` pages at once, each on a point system of its own (more than the server
    holds prepared: 16), asking ``agent`` for a hint as the page does: again every 0.5 s
    while it prepares (202), every 0.8 s while the server is busy (503, 429), giving up
    after 30 of those. How many answered, and when the last did."""
    import threading

    answers: list = []

    def page(k: int) -> None:
        start, busy = time.monotonic(), 0
        with httpx.Client(base_url=url, timeout=120, headers={"X-Client": f"crowd{k}"}) as client:
            game = client.post("/api/games", json={"system": f"random:{10_000 + k}", "seed": k}).json()
            while True:
                r = client.post(f"/api/games/{game['id']}/hint", json={"agent": agent, "seconds": seconds})
                if r.status_code == 202:
                    time.sleep(0.5)
                elif r.status_code in (503, 429) and busy < 30:
                    busy += 1
                    time.sleep(0.8)
                else:
                    answers.append((r.status_code, time.monotonic() - start))
                    return

    threads = [threading.Thread(target=page, args=(k,)) for k in range(pages)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"pages": pages, "agent": agent, "answered": sum(code == 200 for code, _ in answers),
            "codes": dict(collections.Counter(str(code) for code, _ in answers)),
            "slowest_s": round(max((s for _, s in answers), default=0.0), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=4000, help="requests to send in all")
    parser.add_argument("--every", type=int, default=200, help="requests between samples")
    parser.add_argument("--agents", default="greedy,gettysburg,beemo,champion")
    parser.add_argument("--prep-time", type=float, default=0.5)
    parser.add_argument("--seconds", type=float, default=0.05, help="an agent's thinking time per hint")
    parser.add_argument("--crowd", type=int, default=24,
                        help="pages asking at once at the end, each on its own point system (0: none)")
    parser.add_argument("--systems", type=int, default=40,
                        help="distinct generated point systems the hints of every agent go round")
    args = parser.parse_args()
    agents = [a for a in args.agents.split(",") if a]
    if args.requests < 1 or args.every < 1 or args.systems < 1 or args.crowd < 0 or not agents:
        parser.error("--requests, --every and --systems must be at least 1, --crowd at least 0, and --agents "
                     "name at least one agent")
    from pokersquares.web.agents import registered_agents

    unknown = sorted(set(agents) - set(registered_agents()))
    if unknown:
        parser.error(f"unknown agents: {', '.join(unknown)}")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="web-soak-") as folder:
        tmp = Path(folder) / "tmp"
        tmp.mkdir()
        env = os.environ | {"TMPDIR": str(tmp)}
        command = [sys.executable, "-m", "pokersquares", "serve", "--port", str(port), "--warm", "",
                   "--prep-time", str(args.prep_time), "--think-time", "1", "--db", str(Path(folder) / "r.sqlite")]
        with serve(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
                wait_for_agents(client)
                soak = Soak(client, agents, args.seconds, args.systems)
                samples, k, start = [], 0, time.monotonic()
                next_sample = 0
                while soak.requests < args.requests:
                    soak.step(k)
                    k += 1
                    if soak.requests >= next_sample or soak.requests >= args.requests:
                        samples.append({"requests": soak.requests, "seconds": round(time.monotonic() - start, 1),
                                        **_proc_sample(server.pid, tmp), **_results_time(client)})
                        print(json.dumps(samples[-1]), file=sys.stderr, flush=True)
                        next_sample = soak.requests + args.every
                at_once = None
                if args.crowd:
                    at_once = crowd(f"http://127.0.0.1:{port}", agents[-1], args.crowd, args.seconds)
    base, last = samples[len(samples) // 2], samples[-1]
    print(json.dumps({
        "requests": soak.requests, "pages": soak.page, "agents": agents,
        "codes": {str(c): n for c, n in sorted(soak.codes.items())},
        "errors": dict(soak.errors.most_common(10)),
        # The first half fills what the server may hold (games, prepared agents, answers);
        # past it nothing should grow.
        "second_half_growth": {key: last[key] - base[key]
                               for key in ("rss_kb", "threads", "fds", "children", "tmp_files")},
        "second_half_from": base["requests"],
        "crowd": at_once,
        "samples": samples,
    }))


if __name__ == "__main__":
    main()
