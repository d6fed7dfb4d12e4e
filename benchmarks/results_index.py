"""Bytes and seconds of the Results page's list (``GET /api/results``) over a store of
many games played in the browser, as JSON.

    python benchmarks/results_index.py            # 20,000 people's games
    python benchmarks/results_index.py 100000 --repeat 9

Every game a person finishes is recorded as a run of its own (player ``human``, as
``record_human_game`` does: one transaction each, the game's 25 moves with it). The
store is built in a temporary folder, then asked through FastAPI's TestClient for the
first page of the index, the next older page, and the newest run's detail (what the
page opens by default). Each is timed ``--repeat`` times; the first and the median are
given. Before the index was paged, 20,000 games gave 6.66 MB in 0.55 s (median) here, every
run at once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path


def build_store(path: Path, games: int) -> None:
    """``games`` people's games, a run each, every third on the British system; each
    placed card by card, left to right, top to bottom."""
    from pokersquares import AMERICAN, BRITISH, Game
    from pokersquares.game import cell_of
    from pokersquares.harness.store import GameRecord, ResultStore
    from pokersquares.web.results import HUMAN

    with ResultStore(path) as store:
        for k in range(games):
            system = BRITISH if k % 3 == 0 else AMERICAN
            game = Game.from_seed(k, system)
            for cell, _card in enumerate(game):
                game.play(*cell_of(cell))
            run = store.open_run(HUMAN, HUMAN, system, k, 1, 0.0, 0.0, version=f"web:{k:032x}")
            store.add_games(run, [GameRecord(0, k, game.score(), [tuple(p) for p in game.placements], 30.0)])


def timed(client, url: str, repeat: int) -> dict:
    seconds, size = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        r = client.get(url)
        seconds.append(time.perf_counter() - start)
        assert r.status_code == 200, r.text
        size = len(r.content)
    return {"url": url, "bytes": size, "seconds_first": round(seconds[0], 4),
            "seconds_median": round(statistics.median(seconds), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=20000, help="people's games in the store")
    parser.add_argument("--repeat", type=int, default=5, help="times each request is timed")
    args = parser.parse_args()
    if args.games < 1 or args.repeat < 1:
        parser.error(f"games and --repeat are 1 or more, got {args.games} and {args.repeat}")
    from fastapi.testclient import TestClient

    from pokersquares.web import create_app

    with tempfile.TemporaryDirectory(prefix="results-index-") as folder:
        path = Path(folder) / "results.sqlite"
        start = time.perf_counter()
        build_store(path, args.games)
        out: dict = {"games": args.games, "build_seconds": round(time.perf_counter() - start, 2),
                     "store_bytes": path.stat().st_size}
        with TestClient(create_app(agents={}, store_path=path, record_games=False), base_url="http://127.0.0.1") as c:
            out["first_page"] = timed(c, "/api/results", args.repeat)
            index = c.get("/api/results").json()
            out["first_page"] |= {"runs": len(index["runs"]), "runs_total": index["runs_total"],
                                  "humans": index["humans"]}
            if index["next_before"] is not None:
                out["older_page"] = timed(c, f"/api/results?before={index['next_before']}", args.repeat)
            out["newest_run"] = timed(c, f"/api/results/runs/{index['runs'][-1]['run_id']}", args.repeat)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
